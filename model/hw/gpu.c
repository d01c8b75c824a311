/* Loading and checking GPU descriptions (docs/gpu-schema.md).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "ridge/gpu.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_util.h"
#include "ridge/file.h"

static const char *const top_keys[] = {
    "schema_version", "id", "name", "vendor", "architecture", "chip", "compute_capability", "form_factor",
    "sm_count", "fp32_lanes", "tensor_cores", "base_clock_hz", "boost_clock_hz", "tensor_clock_hz",
    "peak_dense_flops_per_s", "memory", "l2_bytes", "sm", "interconnect", "tdp_w", "sustained_tensor_clock_hz", "price", "mig", "efficiency",
    "die", "rt_cores", "device_names", "notes", "sources", NULL,
};
static const char *const memory_keys[] = {"type", "capacity_bytes", "bandwidth_bytes_per_s", "bus_width_bits", "ecc", NULL};
static const char *const die_keys[] = {"process", "foundry", "area_mm2", "transistors", NULL};
static const char *const sm_keys[] = {"shared_memory_bytes", "max_warps", "max_blocks", "registers", NULL};
static const char *const ic_keys[] = {
    "pcie_generation", "pcie_lanes", "nvlink_links", "nvlink_bandwidth_bytes_per_s_per_direction", "nvlink_kind", NULL,
};
static const char *const price_keys[] = {"usd_per_hour", "kind", "spot_usd_per_hour", "usd_list", "date", "source", NULL};
static const char *const mig_keys[] = {
    "profile", "compute_slices", "memory_slices", "sm_count", "memory_bytes", "max_instances", NULL,
};
static const char *const eff_keys[] = {
    "tensor_fraction", "vector_fraction", "dram_fraction", "l2_bandwidth_bytes_per_s", "kernel_floor_s",
    "dram_latency_s", "host_launch_s", "graph_launch_s", "framework_op_s", "graph_kernel_floor_s", "fraction_by_peak",
    "source", NULL,
};

/* Propagate errors (< 0) from the rj_ getters. */
static int get_int(const cJSON *o, const char *path, const char *key, int req, long lo, long hi, int *out,
                   const rj_ctx *c)
{
    long v = 0;
    int rc = rj_int(o, path, key, req, lo, hi, &v, c);
    if (rc == 1)
        *out = (int)v;
    return rc;
}

static int check_id(const char *id, const rj_ctx *c)
{
    for (const char *p = id; *p; p++) {
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '-' || *p == '.'))
            return rj_fail(c, RIDGE_EINVAL, "$", "id", "'%s' may contain only a-z, 0-9, '-' and '.'", id);
    }
    return RIDGE_OK;
}

/* v, a string the file gives as it is (the GPU keeps the text), must name a row of `allowed`. */
static int check_one_of(const char *v, const ridge_names *allowed, const char *path, const char *key,
                        const rj_ctx *c)
{
    char list[160];
    int value = 0;
    if (ridge_name_parse(allowed, v, &value) == RIDGE_OK)
        return RIDGE_OK;
    return rj_fail(c, RIDGE_EINVAL, path, key, "'%s' is not one of: %s", v, ridge_name_list(allowed, list, sizeof list));
}

/* Dies whose L2 is one partition shared by all SMs: Turing (TU1xx), the GA10x dies other than
 * GA100 (GA102-GA107), Ada (AD102-AD107). A few character tests, not a table of names: the kernel
 * model's preparation calls this on every prediction. */
static int l2_single_partition(const char *c)
{
    if (c[0] == 'T' && c[1] == 'U' && c[2] == '1')
        return 1;
    if (c[0] == 'A' && c[1] == 'D' && c[2] == '1' && c[3] == '0' && c[4] >= '2' && c[4] <= '7' && c[5] == '\0')
        return 1;
    return c[0] == 'G' && c[1] == 'A' && c[2] == '1' && c[3] == '0' && c[4] >= '2' && c[4] <= '7' && c[5] == '\0';
}

double ridge_gpu_l2_full_hit_bytes(const ridge_gpu *g)
{
    return (l2_single_partition(g->chip) ? RIDGE_L2_FULL_HIT_SHARE_SINGLE : RIDGE_L2_FULL_HIT_SHARE) * g->l2_bytes;
}

int ridge_price_date_valid(const char *d)
{
    static const int days[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    size_t n = d ? strlen(d) : 0;
    int ok = (n == 4 || n == 7 || n == 10), year, month, day;
    for (size_t i = 0; ok && i < n; i++) {
        if (i == 4 || i == 7)
            ok = d[i] == '-';
        else
            ok = isdigit((unsigned char)d[i]) != 0;
    }
    if (!ok)
        return 0;
    year = (d[0] - '0') * 1000 + (d[1] - '0') * 100 + (d[2] - '0') * 10 + (d[3] - '0');
    if (n == 4)
        return 1;
    month = (d[5] - '0') * 10 + (d[6] - '0');
    if (month < 1 || month > 12)
        return 0;
    if (n == 7)
        return 1;
    day = (d[8] - '0') * 10 + (d[9] - '0');
    if (month == 2 && day == 29)
        return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return day >= 1 && day <= days[month - 1];
}

static int check_date(const char *d, const rj_ctx *c)
{
    if (!ridge_price_date_valid(d))
        return rj_fail(c, RIDGE_EINVAL, "$.price", "date", "'%s' is not a date YYYY, YYYY-MM or YYYY-MM-DD", d);
    return RIDGE_OK;
}

static int parse_peaks(const cJSON *root, ridge_gpu *g, const rj_ctx *c)
{
    const cJSON *o = NULL;
    const char *path = "$.peak_dense_flops_per_s";
    static const char *const keys[RIDGE_PEAK_COUNT + 1] = {
        "fp64", "fp64_tensor", "fp32", "fp16_vector", "tf32", "fp16", "fp16_fp32acc", "bf16", "fp8", "int8", "int4", NULL,
    };
    RJ_TRY(rj_object(root, "$", "peak_dense_flops_per_s", 1, &o, c));
    RJ_TRY(rj_check_keys(o, path, keys, c));
    for (int p = 0; p < RIDGE_PEAK_COUNT; p++) {
        double v = 0;
        RJ_TRY(rj_number(o, path, keys[p], p == RIDGE_PEAK_FP32, 1e9, 1e17, &v, c));
        g->peak_flops_per_s[p] = v;
    }
    return RIDGE_OK;
}

static int parse_memory(const cJSON *root, ridge_gpu *g, const rj_ctx *c)
{
    const cJSON *o = NULL;
    const char *path = "$.memory";
    int rc, ecc = 0;
    RJ_TRY(rj_object(root, "$", "memory", 1, &o, c));
    RJ_TRY(rj_check_keys(o, path, memory_keys, c));
    RJ_TRY(rj_string(o, path, "type", 1, g->memory_type, sizeof g->memory_type, c));
    RJ_TRY(rj_number(o, path, "capacity_bytes", 1, 1e8, 1e13, &g->memory_bytes, c));
    RJ_TRY(rj_number(o, path, "bandwidth_bytes_per_s", 1, 1e9, 1e14, &g->memory_bw_bytes_per_s, c));
    RJ_TRY(get_int(o, path, "bus_width_bits", 0, 32, 16384, &g->memory_bus_bits, c));
    RJ_TRY(rc = rj_bool(o, path, "ecc", 0, &ecc, c));
    if (rc == 1)
        g->ecc = ecc ? 1 : RIDGE_GPU_NONE;
    return RIDGE_OK;
}

static int parse_sm(const cJSON *root, ridge_gpu *g, const rj_ctx *c)
{
    const cJSON *o = NULL;
    const char *path = "$.sm";
    RJ_TRY(rj_object(root, "$", "sm", 1, &o, c));
    RJ_TRY(rj_check_keys(o, path, sm_keys, c));
    RJ_TRY(rj_number(o, path, "shared_memory_bytes", 1, 1024, 1e7, &g->smem_per_sm_bytes, c));
    RJ_TRY(get_int(o, path, "max_warps", 1, 1, 256, &g->max_warps_per_sm, c));
    RJ_TRY(get_int(o, path, "max_blocks", 0, 1, 256, &g->max_blocks_per_sm, c));
    RJ_TRY(get_int(o, path, "registers", 0, 1024, 10000000, &g->registers_per_sm, c));
    return RIDGE_OK;
}

static int parse_interconnect(const cJSON *root, ridge_gpu *g, const rj_ctx *c)
{
    static const ridge_name kind_rows[] = {{"switch", 0}, {"bridge", 1}, {"fabric", 2}};
    static const ridge_names kinds = RIDGE_NAMES(kind_rows, "?");
    const cJSON *o = NULL;
    const char *path = "$.interconnect";
    int has_kind;
    RJ_TRY(rj_object(root, "$", "interconnect", 1, &o, c));
    RJ_TRY(rj_check_keys(o, path, ic_keys, c));
    RJ_TRY(get_int(o, path, "pcie_generation", 1, 1, 7, &g->pcie_generation, c));
    RJ_TRY(get_int(o, path, "pcie_lanes", 1, 1, 32, &g->pcie_lanes, c));
    RJ_TRY(get_int(o, path, "nvlink_links", 0, 0, 64, &g->nvlink_links, c));
    RJ_TRY(rj_number(o, path, "nvlink_bandwidth_bytes_per_s_per_direction", 0, 1e9, 1e13, &g->nvlink_bw_bytes_per_s,
                     c));
    RJ_TRY(has_kind = rj_string(o, path, "nvlink_kind", 0, g->nvlink_kind, sizeof g->nvlink_kind, c));
    if (has_kind)
        RJ_TRY(check_one_of(g->nvlink_kind, &kinds, path, "nvlink_kind", c));
    if (g->nvlink_links > 0 && g->nvlink_bw_bytes_per_s <= 0)
        return rj_fail(c, RIDGE_EINVAL, path, "nvlink_bandwidth_bytes_per_s_per_direction",
                       "required when nvlink_links > 0");
    if (g->nvlink_links == 0 && g->nvlink_bw_bytes_per_s > 0)
        return rj_fail(c, RIDGE_EINVAL, path, "nvlink_links", "must be > 0 when an NVLink bandwidth is given");
    return RIDGE_OK;
}

static int parse_price(const cJSON *root, ridge_gpu *g, const rj_ctx *c)
{
    const cJSON *o = NULL;
    static const ridge_name kind_rows[] = {{"on_demand", 0}, {"spot", 1}};
    static const ridge_names kinds = RIDGE_NAMES(kind_rows, "?");
    const char *path = "$.price";
    int rc, has_kind;
    RJ_TRY(rc = rj_object(root, "$", "price", 0, &o, c));
    if (rc == 0)
        return RIDGE_OK;
    RJ_TRY(rj_check_keys(o, path, price_keys, c));
    RJ_TRY(rj_number(o, path, "usd_per_hour", 0, 0.01, 1000, &g->price_usd_per_hour, c));
    RJ_TRY(has_kind = rj_string(o, path, "kind", 0, g->price_kind, sizeof g->price_kind, c));
    if (has_kind)
        RJ_TRY(check_one_of(g->price_kind, &kinds, path, "kind", c));
    if (has_kind && g->price_usd_per_hour <= 0)
        return rj_fail(c, RIDGE_EINVAL, path, "kind", "needs usd_per_hour (the price it qualifies)");
    RJ_TRY(rj_number(o, path, "spot_usd_per_hour", 0, 0.01, 1000, &g->price_spot_usd_per_hour, c));
    if (g->price_spot_usd_per_hour > 0 && strcmp(g->price_kind, "on_demand") != 0)
        return rj_fail(c, RIDGE_EINVAL, path, "spot_usd_per_hour", "needs an on-demand usd_per_hour (kind \"on_demand\")");
    RJ_TRY(rj_number(o, path, "usd_list", 0, 10, 1e7, &g->price_usd_list, c));
    if (g->price_usd_per_hour <= 0 && g->price_usd_list <= 0)
        return rj_fail(c, RIDGE_EINVAL, path, NULL, "needs usd_per_hour or usd_list");
    RJ_TRY(rj_string(o, path, "date", 1, g->price_date, sizeof g->price_date, c));
    RJ_TRY(check_date(g->price_date, c));
    RJ_TRY(rj_string(o, path, "source", 1, g->price_source, sizeof g->price_source, c));
    return RIDGE_OK;
}

/* The die facts (process, foundry, area, transistors) and the RT-core count: display only. */
static int parse_die(const cJSON *root, ridge_gpu *g, const rj_ctx *c)
{
    const cJSON *o = NULL;
    const char *path = "$.die";
    int rc;
    long rt = 0;
    RJ_TRY(rc = rj_int(root, "$", "rt_cores", 0, 0, 100000, &rt, c));
    if (rc == 1)
        g->rt_cores = rt > 0 ? (int)rt : RIDGE_GPU_NONE;
    RJ_TRY(rc = rj_object(root, "$", "die", 0, &o, c));
    if (rc == 0)
        return RIDGE_OK;
    RJ_TRY(rj_check_keys(o, path, die_keys, c));
    RJ_TRY(rj_string(o, path, "process", 0, g->process, sizeof g->process, c));
    RJ_TRY(rj_string(o, path, "foundry", 0, g->foundry, sizeof g->foundry, c));
    RJ_TRY(rj_number(o, path, "area_mm2", 0, 1, 5000, &g->die_area_mm2, c));
    RJ_TRY(rj_number(o, path, "transistors", 0, 1e6, 1e13, &g->transistors, c));
    if (!g->process[0] && !g->foundry[0] && g->die_area_mm2 <= 0 && g->transistors <= 0)
        return rj_fail(c, RIDGE_EINVAL, "$", "die", "empty object (omit the key instead)");
    return RIDGE_OK;
}

static int parse_mig(const cJSON *root, ridge_gpu *g, const rj_ctx *c)
{
    const cJSON *arr = NULL, *it;
    int rc, i = 0;
    RJ_TRY(rc = rj_array(root, "$", "mig", 0, &arr, c));
    if (rc == 0)
        return RIDGE_OK;
    cJSON_ArrayForEach(it, arr)
    {
        char path[RJ_PATH_MAX];
        ridge_mig_profile *m;
        snprintf(path, sizeof path, "$.mig[%d]", i);
        if (i >= RIDGE_GPU_MAX_MIG)
            return rj_fail(c, RIDGE_EINVAL, "$", "mig", "more than %d profiles", RIDGE_GPU_MAX_MIG);
        if (!cJSON_IsObject(it))
            return rj_fail(c, RIDGE_EINVAL, path, NULL, "expected an object");
        m = &g->mig[i];
        RJ_TRY(rj_check_keys(it, path, mig_keys, c));
        RJ_TRY(rj_string(it, path, "profile", 1, m->profile, sizeof m->profile, c));
        RJ_TRY(get_int(it, path, "compute_slices", 1, 1, 8, &m->compute_slices, c));
        RJ_TRY(get_int(it, path, "memory_slices", 1, 1, 8, &m->memory_slices, c));
        RJ_TRY(get_int(it, path, "sm_count", 1, 1, g->sm_count, &m->sm_count, c));
        RJ_TRY(rj_number(it, path, "memory_bytes", 1, 1e8, g->memory_bytes, &m->memory_bytes, c));
        RJ_TRY(get_int(it, path, "max_instances", 1, 1, 8, &m->max_instances, c));
        for (int j = 0; j < i; j++) {
            if (strcmp(g->mig[j].profile, m->profile) == 0)
                return rj_fail(c, RIDGE_EINVAL, path, "profile", "duplicate profile '%s'", m->profile);
        }
        if (m->compute_slices > g->mig_total_compute_slices)
            g->mig_total_compute_slices = m->compute_slices;
        if (m->memory_slices > g->mig_total_memory_slices)
            g->mig_total_memory_slices = m->memory_slices;
        i++;
    }
    if (i == 0)
        return rj_fail(c, RIDGE_EINVAL, "$", "mig", "empty array (omit the key instead)");
    g->mig_count = i;
    return RIDGE_OK;
}

static int parse_efficiency(const cJSON *root, ridge_gpu *g, const rj_ctx *c)
{
    const cJSON *o = NULL, *fb = NULL;
    const char *path = "$.efficiency";
    ridge_efficiency *e = &g->eff;
    /* Accepted ranges, in the order of ridge_efficiency_field(). */
    static const double lo[RIDGE_EFF_FIELD_COUNT] = {0.05, 0.05, 0.05, 1e9, 0, 1e-8, 0, 0, 0, 0};
    static const double hi[RIDGE_EFF_FIELD_COUNT] = {1, 1, 1, 1e15, 1e-3, 1e-5, 1e-3, 1e-3, 1e-3, 1e-3};
    int rc;
    ridge_efficiency_defaults(g->compute_capability, g->sm_count, g->boost_clock_hz, g->memory_bw_bytes_per_s, e);
    RJ_TRY(rc = rj_object(root, "$", "efficiency", 0, &o, c));
    if (rc == 0)
        return RIDGE_OK;
    RJ_TRY(rj_check_keys(o, path, eff_keys, c));
    for (int i = 0; i < RIDGE_EFF_FIELD_COUNT; i++) {
        double v = 0;
        RJ_TRY(rc = rj_number(o, path, ridge_efficiency_field_name(i), 0, lo[i], hi[i], &v, c));
        if (rc == 1) {
            *ridge_efficiency_field(e, i) = v;
            e->from_file_mask |= 1u << i;
        }
    }
    RJ_TRY(rc = rj_object(o, path, "fraction_by_peak", 0, &fb, c));
    if (rc == 1) {
        const char *fpath = "$.efficiency.fraction_by_peak";
        const char *keys[RIDGE_PEAK_COUNT + 1];
        for (int p = 0; p < RIDGE_PEAK_COUNT; p++)
            keys[p] = ridge_peak_key((ridge_peak)p);
        keys[RIDGE_PEAK_COUNT] = NULL;
        RJ_TRY(rj_check_keys(fb, fpath, keys, c));
        for (int p = 0; p < RIDGE_PEAK_COUNT; p++) {
            double v = 0;
            RJ_TRY(rc = rj_number(fb, fpath, keys[p], 0, 0.05, 1, &v, c));
            if (rc == 1 && g->peak_flops_per_s[p] <= 0)
                return rj_fail(c, RIDGE_EINVAL, fpath, keys[p], "the GPU has no %s peak", keys[p]);
            if (rc == 1)
                e->fraction_by_peak[p] = v;
        }
    }
    RJ_TRY(rj_string(o, path, "source", 0, e->source, sizeof e->source, c));
    return RIDGE_OK;
}

/* A `sources` key names a field path ("memory.bandwidth_bytes_per_s"); it must exist in the file. */
static int source_path_exists(const cJSON *root, const char *key)
{
    const cJSON *node = root;
    const char *p = key;
    if (strcmp(key, "sources") == 0 || strncmp(key, "sources.", 8) == 0)
        return 0;
    while (*p) {
        char part[64];
        size_t n = strcspn(p, ".");
        if (n == 0 || n >= sizeof part || !cJSON_IsObject(node))
            return 0;
        memcpy(part, p, n);
        part[n] = '\0';
        node = cJSON_GetObjectItemCaseSensitive(node, part);
        if (!node)
            return 0;
        p += n;
        if (*p == '.' && !*++p)
            return 0; /* trailing dot */
    }
    return node != root;
}

/* The `sources` object, checked whether or not it is kept: prov NULL checks into a scratch entry. */
static int parse_sources(const cJSON *root, ridge_gpu_provenance *prov, const rj_ctx *c)
{
    static const char *const must[] = {"sm_count", "memory.bandwidth_bytes_per_s", "peak_dense_flops_per_s.fp32"};
    /* Facts that need a source when the file gives them. */
    static const char *const when[] = {"die.process", "die.foundry", "die.area_mm2", "die.transistors", "rt_cores",
                                       "memory.ecc"};
    const size_t nmust = sizeof must / sizeof must[0];
    const cJSON *o = NULL, *it;
    ridge_gpu_source scratch;
    int n = 0;
    RJ_TRY(rj_object(root, "$", "sources", 1, &o, c));
    for (it = o->child; it; it = it->next) {
        ridge_gpu_source *s;
        if (n >= RIDGE_GPU_MAX_SOURCES)
            return rj_fail(c, RIDGE_EINVAL, "$", "sources", "more than %d entries", RIDGE_GPU_MAX_SOURCES);
        for (const cJSON *q = o->child; q != it; q = q->next)
            if (strcmp(q->string, it->string) == 0)
                return rj_fail(c, RIDGE_EINVAL, "$.sources", it->string, "duplicate key");
        if (!source_path_exists(root, it->string))
            return rj_fail(c, RIDGE_EINVAL, "$.sources", it->string, "names no field of this file");
        s = prov ? &prov->sources[n] : &scratch;
        if (strlen(it->string) >= sizeof s->key)
            return rj_fail(c, RIDGE_EINVAL, "$.sources", it->string, "key too long");
        strcpy(s->key, it->string);
        if (!cJSON_IsString(it) || !it->valuestring || !it->valuestring[0])
            return rj_fail(c, RIDGE_EINVAL, "$.sources", it->string, "expected a non-empty string");
        if (strlen(it->valuestring) >= sizeof s->value)
            return rj_fail(c, RIDGE_EINVAL, "$.sources", it->string, "string longer than %zu bytes (UTF-8)",
                           sizeof s->value - 1);
        strcpy(s->value, it->valuestring);
        n++;
    }
    if (prov)
        prov->source_count = n;
    for (size_t i = 0; i < nmust + sizeof when / sizeof when[0]; i++) {
        const char *key = i < nmust ? must[i] : when[i - nmust];
        int found = 0;
        if (i >= nmust && !source_path_exists(root, key))
            continue; /* a fact the file leaves out needs no source */
        for (it = o->child; it && !found; it = it->next) {
            size_t kl = strlen(it->string);
            /* "peak_dense_flops_per_s" sources every peak; "memory" every memory field. */
            found = strcmp(it->string, key) == 0 || (strncmp(it->string, key, kl) == 0 && key[kl] == '.');
        }
        if (!found)
            return rj_fail(c, RIDGE_EINVAL, "$.sources", key, "missing: this figure must be sourced");
    }
    return RIDGE_OK;
}

/* `device_names`: an optional array of 1 to RIDGE_GPU_MAX_DEVICE_NAMES distinct, non-empty
 * strings, each shorter than RIDGE_GPU_DEVICE_NAME_MAX bytes. */
static int parse_device_names(const cJSON *root, ridge_gpu_provenance *prov, const rj_ctx *c)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "device_names"), *it;
    int n = 0;
    if (!a)
        return 0;
    if (!cJSON_IsArray(a) || !a->child)
        return rj_fail(c, RIDGE_EINVAL, "$", "device_names", "expected a non-empty array of strings");
    for (it = a->child; it; it = it->next, n++) {
        if (n >= RIDGE_GPU_MAX_DEVICE_NAMES)
            return rj_fail(c, RIDGE_EINVAL, "$", "device_names", "more than %d names", RIDGE_GPU_MAX_DEVICE_NAMES);
        if (!cJSON_IsString(it) || !it->valuestring || !it->valuestring[0])
            return rj_fail(c, RIDGE_EINVAL, "$", "device_names", "entry %d: expected a non-empty string", n);
        if (strlen(it->valuestring) >= RIDGE_GPU_DEVICE_NAME_MAX)
            return rj_fail(c, RIDGE_EINVAL, "$", "device_names", "entry %d: longer than %d bytes", n,
                           RIDGE_GPU_DEVICE_NAME_MAX - 1);
        for (const cJSON *q = a->child; q != it; q = q->next)
            if (strcmp(q->valuestring, it->valuestring) == 0)
                return rj_fail(c, RIDGE_EINVAL, "$", "device_names", "entry %d: \"%s\" given twice", n,
                               it->valuestring);
        if (prov)
            strcpy(prov->device_names[n], it->valuestring);
    }
    if (prov)
        prov->device_name_count = n;
    return 0;
}

/* `notes`, `device_names` and `sources`, into prov when given. */
static int parse_provenance(const cJSON *root, ridge_gpu_provenance *prov, const rj_ctx *c)
{
    char scratch[sizeof prov->notes];
    RJ_TRY(rj_string(root, "$", "notes", 0, prov ? prov->notes : scratch, sizeof scratch, c));
    RJ_TRY(parse_device_names(root, prov, c));
    return parse_sources(root, prov, c);
}

static int parse_root(const cJSON *root, ridge_gpu *g, ridge_gpu_provenance *prov, const rj_ctx *c)
{
    static const ridge_name vendor_rows[] = {{"nvidia", 0}, {"amd", 1}};
    static const ridge_names vendors = RIDGE_NAMES(vendor_rows, "?");
    long version = 0;
    RJ_TRY(rj_check_keys(root, "$", top_keys, c));
    RJ_TRY(rj_int(root, "$", "schema_version", 1, 1, 1000, &version, c));
    if (version != 1)
        return rj_fail(c, RIDGE_EINVAL, "$", "schema_version", "%ld is not supported (this ridge reads 1)", version);
    RJ_TRY(rj_string(root, "$", "id", 1, g->id, sizeof g->id, c));
    RJ_TRY(check_id(g->id, c));
    RJ_TRY(rj_string(root, "$", "name", 1, g->name, sizeof g->name, c));
    RJ_TRY(rj_string(root, "$", "vendor", 1, g->vendor, sizeof g->vendor, c));
    RJ_TRY(check_one_of(g->vendor, &vendors, "$", "vendor", c));
    RJ_TRY(rj_string(root, "$", "architecture", 1, g->architecture, sizeof g->architecture, c));
    RJ_TRY(rj_string(root, "$", "chip", 0, g->chip, sizeof g->chip, c));
    RJ_TRY(rj_string(root, "$", "compute_capability", 0, g->compute_capability, sizeof g->compute_capability, c));
    RJ_TRY(rj_string(root, "$", "form_factor", 0, g->form_factor, sizeof g->form_factor, c));
    RJ_TRY(get_int(root, "$", "sm_count", 1, 1, 1024, &g->sm_count, c));
    RJ_TRY(get_int(root, "$", "fp32_lanes", 1, 1, 1000000, &g->fp32_lanes, c));
    RJ_TRY(get_int(root, "$", "tensor_cores", 1, 0, 100000, &g->tensor_cores, c));
    RJ_TRY(rj_number(root, "$", "base_clock_hz", 0, 1e8, 5e9, &g->base_clock_hz, c));
    RJ_TRY(rj_number(root, "$", "boost_clock_hz", 1, 1e8, 5e9, &g->boost_clock_hz, c));
    g->tensor_clock_hz = g->boost_clock_hz;
    RJ_TRY(rj_number(root, "$", "tensor_clock_hz", 0, 1e8, 5e9, &g->tensor_clock_hz, c));
    RJ_TRY(parse_peaks(root, g, c));
    RJ_TRY(parse_memory(root, g, c));
    RJ_TRY(rj_number(root, "$", "l2_bytes", 1, 1e5, 1e10, &g->l2_bytes, c));
    RJ_TRY(parse_sm(root, g, c));
    RJ_TRY(parse_interconnect(root, g, c));
    RJ_TRY(rj_number(root, "$", "tdp_w", 1, 10, 5000, &g->tdp_w, c));
    RJ_TRY(rj_number(root, "$", "sustained_tensor_clock_hz", 0, 1e8, 5e9, &g->sustained_tensor_clock_hz, c));
    RJ_TRY(parse_price(root, g, c));
    RJ_TRY(parse_die(root, g, c));
    RJ_TRY(parse_mig(root, g, c));
    RJ_TRY(parse_efficiency(root, g, c));
    RJ_TRY(parse_provenance(root, prov, c));
    if (g->fp32_lanes < g->sm_count)
        return rj_fail(c, RIDGE_EINVAL, "$", "fp32_lanes", "fewer lanes (%d) than SMs (%d)", g->fp32_lanes, g->sm_count);
    return RIDGE_OK;
}

int ridge_gpu_parse_prov(const char *json, size_t len, const char *origin, ridge_gpu *gpu,
                         ridge_gpu_provenance *prov, ridge_err *err)
{
    rj_ctx c = {origin ? origin : "<gpu>", err};
    cJSON *root = NULL;
    int rc;
    memset(gpu, 0, sizeof *gpu);
    if (prov)
        memset(prov, 0, sizeof *prov);
    if (!json)
        return ridge_err_set(err, RIDGE_EINVAL, "%s: no data", c.origin);
    rc = rj_parse_object(json, len, &c, &root);
    if (rc != RIDGE_OK)
        return rc;
    rc = parse_root(root, gpu, prov, &c);
    cJSON_Delete(root);
    return rc;
}

int ridge_gpu_parse(const char *json, size_t len, const char *origin, ridge_gpu *gpu, ridge_err *err)
{
    return ridge_gpu_parse_prov(json, len, origin, gpu, NULL, err);
}

typedef struct {
    ridge_gpu *gpu;
    ridge_gpu_provenance *prov;
} gpu_load_out;

static int parse_loaded(const char *text, size_t len, const char *path, void *out, ridge_err *err)
{
    gpu_load_out *o = out;
    return ridge_gpu_parse_prov(text, len, path, o->gpu, o->prov, err);
}

int ridge_gpu_load_file_prov(const char *path, ridge_gpu *gpu, ridge_gpu_provenance *prov, ridge_err *err)
{
    gpu_load_out out = {gpu, prov};
    return ridge_file_load(path, parse_loaded, &out, err);
}

int ridge_gpu_load_file(const char *path, ridge_gpu *gpu, ridge_err *err)
{
    return ridge_gpu_load_file_prov(path, gpu, NULL, err);
}

double ridge_gpu_pcie_bw_bytes_per_s(const ridge_gpu *gpu)
{
    /* Gen3: 8 GT/s with 128b/130b = 0.985 GB/s per lane and direction; each generation doubles.
     * Gen1/2 used 8b/10b: 0.25 and 0.5 GB/s per lane. */
    double per_lane;
    if (gpu->pcie_generation <= 0)
        return 0;
    if (gpu->pcie_generation == 1)
        per_lane = 0.25e9;
    else if (gpu->pcie_generation == 2)
        per_lane = 0.5e9;
    else
        per_lane = 8e9 * 128.0 / 130.0 / 8.0 * pow(2.0, gpu->pcie_generation - 3);
    return per_lane * gpu->pcie_lanes;
}

double ridge_gpu_ridge_point(const ridge_gpu *gpu, ridge_peak p)
{
    if ((unsigned)p >= RIDGE_PEAK_COUNT || gpu->memory_bw_bytes_per_s <= 0)
        return 0;
    return gpu->peak_flops_per_s[p] / gpu->memory_bw_bytes_per_s;
}

int ridge_gpu_mig_slice(ridge_gpu *gpu, const char *profile, ridge_err *err)
{
    const ridge_mig_profile *m = NULL;
    double csh, msh, cfrac;
    char parent[48];
    for (int i = 0; i < gpu->mig_count; i++) {
        if (strcmp(gpu->mig[i].profile, profile) == 0)
            m = &gpu->mig[i];
    }
    if (!m) {
        char list[128] = "";
        for (int i = 0; i < gpu->mig_count; i++) {
            if (list[0])
                strncat(list, ", ", sizeof list - strlen(list) - 1);
            strncat(list, gpu->mig[i].profile, sizeof list - strlen(list) - 1);
        }
        if (gpu->mig_count == 0)
            return ridge_err_set(err, RIDGE_ENOTFOUND, "%s: this GPU has no MIG profiles", gpu->id);
        return ridge_err_set(err, RIDGE_ENOTFOUND, "%s: no MIG profile '%s' (known: %s)", gpu->id, profile, list);
    }
    /* SM share scales compute; memory-slice share scales bandwidth, L2 and capacity
     * (docs/model.md, "MIG slices"). */
    csh = (double)m->sm_count / gpu->sm_count;
    msh = (double)m->memory_slices / (gpu->mig_total_memory_slices > 0 ? gpu->mig_total_memory_slices : 8);
    cfrac = (double)m->compute_slices / (gpu->mig_total_compute_slices > 0 ? gpu->mig_total_compute_slices : 7);
    for (int p = 0; p < RIDGE_PEAK_COUNT; p++)
        gpu->peak_flops_per_s[p] *= csh;
    gpu->fp32_lanes = (int)lround(gpu->fp32_lanes * csh);
    gpu->tensor_cores = (int)lround(gpu->tensor_cores * csh);
    gpu->sm_count = m->sm_count;
    gpu->memory_bytes = m->memory_bytes;
    gpu->memory_bw_bytes_per_s *= msh;
    gpu->l2_bytes *= msh;
    gpu->eff.l2_bandwidth_bytes_per_s *= msh;
    gpu->tdp_w *= cfrac;
    /* A slice is priced at its share of the GPU's compute slices, as clouds sell them. */
    gpu->mig_compute_slices = m->compute_slices;
    gpu->mig_compute_total = gpu->mig_total_compute_slices > 0 ? gpu->mig_total_compute_slices : 7;
    if (gpu->price_usd_per_hour > 0)
        gpu->price_usd_per_hour *= cfrac;
    if (gpu->price_spot_usd_per_hour > 0)
        gpu->price_spot_usd_per_hour *= cfrac;
    if (gpu->price_usd_list > 0)
        gpu->price_usd_list *= cfrac;
    snprintf(parent, sizeof parent, "%s", gpu->id);
    snprintf(gpu->mig_of, sizeof gpu->mig_of, "%s", parent);
    snprintf(gpu->id, sizeof gpu->id, "%.30s:%.15s", parent, m->profile);
    {
        char nm[96];
        snprintf(nm, sizeof nm, "%.70s MIG %.15s", gpu->name, m->profile);
        snprintf(gpu->name, sizeof gpu->name, "%s", nm);
    }
    gpu->mig_count = 0;
    return RIDGE_OK;
}
