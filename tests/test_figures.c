/* Tests of the figure table (ridge/figures.h): its shape, and the value of chosen figures for
 * built-in GPUs and the test fixture (tests/data/valid.json).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <ctype.h>
#include <string.h>

#include "check.h"
#include "ridge/figures.h"
#include "ridge/gpu.h"

#ifndef RIDGE_TEST_DATA_DIR
#error "RIDGE_TEST_DATA_DIR must name tests/data (set by tests/CMakeLists.txt)"
#endif

#define GIB 1073741824.0

static size_t figure_index(const char *key)
{
    for (size_t i = 0; i < ridge_figure_count(); i++) {
        if (strcmp(ridge_figure(i)->key, key) == 0)
            return i;
    }
    return (size_t)-1;
}

static void test_table_shape(void)
{
    size_t n = ridge_figure_count();
    check_context("figure table");
    CHECK(n > 40);
    CHECK(ridge_figure(n) == NULL);
    for (size_t i = 0; i < n; i++) {
        const ridge_figure_info *f = ridge_figure(i);
        int snake = 1;
        check_context(f ? f->key : "(null figure)");
        if (!CHECK(f != NULL && f->key && f->group && f->label && f->unit))
            continue;
        for (const char *p = f->key; *p; p++)
            snake &= islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_';
        CHECK(snake);
        CHECK(f->label[0] != '\0' && f->group[0] != '\0');
        CHECK(f->scale > 0);
        CHECK(f->better == RIDGE_BETTER_NONE || f->better == RIDGE_BETTER_HIGHER || f->better == RIDGE_BETTER_LOWER);
        /* Derived figures have no datasheet source; keys are unique. */
        if (f->derived)
            CHECK(f->source_key == NULL);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(ridge_figure(j)->key, f->key) != 0);
    }
    check_context(NULL);
}

typedef struct {
    const char *gpu;  /* built-in id, or "@valid" for tests/data/valid.json */
    const char *key;
    ridge_figure_kind kind;
    double num;       /* SI, for RIDGE_FIGURE_NUMBER */
    const char *text; /* for RIDGE_FIGURE_TEXT */
} figure_case;

/* clang-format off */
static const figure_case cases[] = {
    {"a100-sxm4-80gb", "name", RIDGE_FIGURE_TEXT, 0, "NVIDIA A100 SXM4 80GB"},
    {"a100-sxm4-80gb", "sm_count", RIDGE_FIGURE_NUMBER, 108, NULL},
    {"a100-sxm4-80gb", "memory_bandwidth_bytes_per_s", RIDGE_FIGURE_NUMBER, 2.039e12, NULL},
    {"a100-sxm4-80gb", "peak_bf16_flops_per_s", RIDGE_FIGURE_NUMBER, 312e12, NULL},
    {"a100-sxm4-80gb", "peak_fp8_flops_per_s", RIDGE_FIGURE_ABSENT, 0, NULL},
    {"a100-sxm4-80gb", "ridge_point_bf16_flops_per_byte", RIDGE_FIGURE_NUMBER, 312e12 / 2.039e12, NULL},
    {"a100-sxm4-80gb", "ridge_point_fp32_flops_per_byte", RIDGE_FIGURE_NUMBER, 19.5e12 / 2.039e12, NULL},
    {"a100-sxm4-80gb", "ridge_point_fp8_flops_per_byte", RIDGE_FIGURE_ABSENT, 0, NULL},
    {"a100-sxm4-80gb", "pcie_bandwidth_bytes_per_s_per_direction", RIDGE_FIGURE_NUMBER, 16 * 2 * 8e9 * 128.0 / 130.0 / 8.0, NULL},
    {"a100-sxm4-80gb", "bandwidth_per_16bit_tensor_flop_bytes_per_flop", RIDGE_FIGURE_NUMBER, 2.039e12 / 312e12, NULL},
    {"a100-sxm4-80gb", "tensor_16bit_flops_per_s_per_w", RIDGE_FIGURE_NUMBER, 312e12 / 400, NULL},
    {"a100-sxm4-80gb", "fp32_flops_per_s_per_w", RIDGE_FIGURE_NUMBER, 19.5e12 / 400, NULL},
    {"a100-sxm4-80gb", "memory_per_sm_bytes", RIDGE_FIGURE_NUMBER, 80 * GIB / 108, NULL},
    {"a100-sxm4-80gb", "nvlink_kind", RIDGE_FIGURE_TEXT, 0, "switch"},
    {"a100-sxm4-80gb", "mig_profiles", RIDGE_FIGURE_NUMBER, 6, NULL},
    {"a100-sxm4-80gb", "mig_max_instances", RIDGE_FIGURE_NUMBER, 7, NULL},
    {"a100-sxm4-80gb", "mig_profile_names", RIDGE_FIGURE_TEXT, 0, "1g.10gb 1g.20gb 2g.20gb 3g.40gb 4g.40gb 7g.80gb"},
    {"a100-sxm4-80gb", "price_usd_per_hour", RIDGE_FIGURE_NUMBER, 2.45, NULL},
    {"a100-sxm4-80gb", "price_kind", RIDGE_FIGURE_TEXT, 0, "on demand"},
    {"a100-sxm4-80gb", "price_spot_usd_per_hour", RIDGE_FIGURE_NUMBER, 1.39, NULL},
    {"a100-sxm4-80gb", "process", RIDGE_FIGURE_TEXT, 0, "7 nm (N7)"},
    {"a100-sxm4-80gb", "foundry", RIDGE_FIGURE_TEXT, 0, "TSMC"},
    {"a100-sxm4-80gb", "die_area_mm2", RIDGE_FIGURE_NUMBER, 826, NULL},
    {"a100-sxm4-80gb", "transistors", RIDGE_FIGURE_NUMBER, 54.2e9, NULL},
    {"a100-sxm4-80gb", "rt_cores", RIDGE_FIGURE_TEXT, 0, "none"},
    {"a100-sxm4-80gb", "memory_ecc", RIDGE_FIGURE_ABSENT, 0, NULL},
    {"a100-pcie-40gb", "price_usd_per_hour", RIDGE_FIGURE_ABSENT, 0, NULL},
    {"a100-pcie-40gb", "memory_type", RIDGE_FIGURE_TEXT, 0, "HBM2"},
    {"a40", "rt_cores", RIDGE_FIGURE_NUMBER, 84, NULL},
    {"a40", "memory_ecc", RIDGE_FIGURE_TEXT, 0, "yes"},
    {"a40", "price_usd_per_hour", RIDGE_FIGURE_ABSENT, 0, NULL},
    {"b200", "die_area_mm2", RIDGE_FIGURE_ABSENT, 0, NULL},
    {"mi300x", "price_usd_per_hour", RIDGE_FIGURE_ABSENT, 0, NULL},
    /* A MIG slice: compute_slices/7 of the parent's prices. */
    {"a100-sxm4-80gb:1g.10gb", "price_usd_per_hour", RIDGE_FIGURE_NUMBER, 2.45 / 7, NULL},
    {"a100-sxm4-80gb:3g.40gb", "price_spot_usd_per_hour", RIDGE_FIGURE_NUMBER, 1.39 * 3 / 7, NULL},
    {"a100-sxm4-80gb:3g.40gb", "mig_profile_names", RIDGE_FIGURE_TEXT, 0, "none"},
    {"a100-sxm4-80gb:3g.40gb", "memory_bandwidth_bytes_per_s", RIDGE_FIGURE_NUMBER, 2.039e12 / 2, NULL},
    {"a100-sxm4-80gb:3g.40gb", "ridge_point_bf16_flops_per_byte", RIDGE_FIGURE_NUMBER, (312e12 * 42 / 108) / (2.039e12 / 2), NULL},
    {"a40", "nvlink_kind", RIDGE_FIGURE_TEXT, 0, "bridge"},
    {"a40", "mig_profiles", RIDGE_FIGURE_ABSENT, 0, NULL},
    {"a40", "ridge_point_bf16_flops_per_byte", RIDGE_FIGURE_NUMBER, 149.7e12 / 696e9, NULL},
    {"t4", "nvlink_kind", RIDGE_FIGURE_TEXT, 0, "none"},
    /* No BF16: the 16-bit tensor figures fall back to FP16 with FP32 accumulate. */
    {"v100-sxm2-32gb", "tensor_16bit_flops_per_s_per_w", RIDGE_FIGURE_NUMBER, 125e12 / 300, NULL},
    {"v100-sxm2-32gb", "ridge_point_bf16_flops_per_byte", RIDGE_FIGURE_ABSENT, 0, NULL},
    {"h100-sxm5-80gb", "price_usd_per_hour", RIDGE_FIGURE_NUMBER, 4.76, NULL},
    {"@valid", "price_usd_per_hour", RIDGE_FIGURE_NUMBER, 2.385, NULL},
    {"@valid", "price_usd_list", RIDGE_FIGURE_ABSENT, 0, NULL},
    {"@valid", "price_date", RIDGE_FIGURE_TEXT, 0, "2024-05-17"},
    {"@valid", "tensor_16bit_flops_per_s_per_usd_per_hour", RIDGE_FIGURE_NUMBER, 236.2e12 / 2.385, NULL},
    {"@valid", "memory_bandwidth_bytes_per_s_per_w", RIDGE_FIGURE_NUMBER, 1.2345e12 / 385, NULL},
    {"@valid", "pcie_bandwidth_bytes_per_s_per_direction", RIDGE_FIGURE_NUMBER, 16 * 4 * 8e9 * 128.0 / 130.0 / 8.0, NULL},
    {"@valid", "tensor_clock_hz", RIDGE_FIGURE_NUMBER, 1.515e9, NULL},
    {"@valid", "l2_bytes", RIDGE_FIGURE_NUMBER, 37748736, NULL},
};
/* clang-format on */

static void test_values(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const figure_case *tc = &cases[i];
        ridge_gpu g;
        ridge_err err = {{0}};
        char text[256] = "";
        double num = -1;
        size_t fi = figure_index(tc->key);
        int rc;
        ridge_figure_kind kind;
        check_context(tc->key);
        if (!CHECK(fi != (size_t)-1))
            continue;
        if (strcmp(tc->gpu, "@valid") == 0)
            rc = ridge_gpu_load_file(RIDGE_TEST_DATA_DIR "/valid.json", &g, &err);
        else
            rc = ridge_catalog_load(tc->gpu, &g, &err);
        if (!CHECK_INT(rc, RIDGE_OK))
            continue;
        kind = ridge_figure_value(&g, fi, &num, text, sizeof text);
        if (!CHECK_INT(kind, tc->kind))
            continue;
        if (kind == RIDGE_FIGURE_NUMBER)
            CHECK_NEAR(num, tc->num, 1e-12);
        else if (kind == RIDGE_FIGURE_TEXT)
            CHECK_STR_EQ(text, tc->text);
    }
    check_context(NULL);
}

/* Every figure of every built-in GPU evaluates to a finite positive number, a text or absent,
 * and a small text buffer is never overrun. */
static void test_all_values(void)
{
    for (size_t k = 0; k < ridge_catalog_count(); k++) {
        ridge_gpu g;
        ridge_err err = {{0}};
        check_context(ridge_catalog_id(k));
        if (!CHECK_INT(ridge_catalog_load(ridge_catalog_id(k), &g, &err), RIDGE_OK))
            continue;
        for (size_t i = 0; i < ridge_figure_count(); i++) {
            char text[8];
            double num = 0;
            ridge_figure_kind kind = ridge_figure_value(&g, i, &num, text, sizeof text);
            if (kind == RIDGE_FIGURE_NUMBER)
                CHECK(isfinite(num) && num > 0);
            else if (kind == RIDGE_FIGURE_TEXT)
                CHECK(strlen(text) < sizeof text && text[0] != '\0');
            else
                CHECK(kind == RIDGE_FIGURE_ABSENT);
        }
        CHECK(ridge_figure_value(&g, ridge_figure_count(), NULL, NULL, 0) == RIDGE_FIGURE_ABSENT);
    }
    check_context(NULL);
}

int main(void)
{
    test_table_shape();
    test_values();
    test_all_values();
    return check_report();
}
