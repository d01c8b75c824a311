/* ridge tests: one model step on one GPU (ridge/predict.h): MFU, the largest batch that fits,
 * the default precision, time by layer type and the messages of a failing run.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "check.h"
#include "ridge/predict.h"

static int load(const char *gpu_id, const char *model_id, ridge_gpu *g, ridge_model **m)
{
    ridge_err err;
    if (ridge_catalog_load(gpu_id, g, &err) != RIDGE_OK ||
        (model_id && ridge_model_load_builtin(model_id, m, &err) != RIDGE_OK)) {
        fprintf(stderr, "cannot load %s / %s: %s\n", gpu_id, model_id ? model_id : "-", err.msg);
        return -1;
    }
    return 0;
}

/* MFU is model FLOP/s over the dense peak of the precision: the tensor path where there is one. */
static void test_mfu(void)
{
    ridge_gpu g;
    int peak;
    if (load("a100-sxm4-80gb", NULL, &g, NULL))
        return;
    peak = ridge_kernel_peak_for(&g, RIDGE_DTYPE_BF16, 1);
    if (!CHECK(peak >= 0))
        return;
    CHECK_NEAR(ridge_predict_mfu(&g, RIDGE_DTYPE_BF16, 0.385 * g.peak_flops_per_s[peak]), 0.385, 1e-12);
    CHECK_NEAR(ridge_predict_mfu(&g, RIDGE_DTYPE_BF16, 0), 0, 0);
}

/* The default precision: bf16 where every GPU has its tensor path, else fp16 (T4), naming the GPU. */
static void test_default_precision(void)
{
    ridge_gpu g[2];
    ridge_dtype dt;
    if (load("h100-sxm5-80gb", NULL, &g[0], NULL) || load("t4", NULL, &g[1], NULL))
        return;
    CHECK_INT(ridge_predict_default_precision(g, 1, &dt), -1);
    CHECK_INT(dt, RIDGE_DTYPE_BF16);
    CHECK_INT(ridge_predict_default_precision(g, 2, &dt), 1);
    CHECK_INT(dt, RIDGE_DTYPE_FP16);
}

/* The largest batch that fits does, and one more does not. */
static void test_max_batch(void)
{
    ridge_gpu g;
    ridge_model *m = NULL;
    ridge_run_config rc;
    ridge_memory mem;
    ridge_err err;
    double b;
    if (load("a100-sxm4-40gb", "gpt2", &g, &m))
        return;
    ridge_run_config_init(&rc);
    b = ridge_predict_max_batch(m, &rc, g.memory_bytes);
    CHECK(b >= 1);
    rc.batch = b;
    CHECK(ridge_model_memory(m, &rc, &mem, &err) == RIDGE_OK && mem.total_bytes <= g.memory_bytes);
    rc.batch = b + 1;
    CHECK(ridge_model_memory(m, &rc, &mem, &err) == RIDGE_OK && mem.total_bytes > g.memory_bytes);
    CHECK_NEAR(ridge_predict_max_batch(m, &rc, 1.0), 0, 0);
    ridge_model_free(m);
}

/* A step's figures add up: layer types to the step, MFU from the model FLOPs and the step. */
static void test_step(void)
{
    ridge_gpu g;
    ridge_model *m = NULL;
    ridge_run_config rc;
    ridge_host_profile hp;
    ridge_predict_result p;
    ridge_err err;
    double groups = 0, ops = 0;
    if (load("h100-sxm5-80gb", "gpt2", &g, &m) || !CHECK(ridge_host_load(RIDGE_HOST_DEFAULT, &hp, &err) == RIDGE_OK))
        return;
    ridge_run_config_init(&rc);
    rc.batch = 6;
    if (CHECK(ridge_predict_model(&g, m, &rc, &hp, RIDGE_RUNTIME_EAGER, &p, &err) == RIDGE_OK)) {
        for (int k = 0; k < p.ngroups; k++)
            groups += p.group_time_s[k];
        for (size_t i = 0; i < p.ops.n; i++)
            ops += p.results[i].time_s;
        CHECK(p.ngroups > 1);
        CHECK_NEAR(groups, ops, 1e-12);
        CHECK_NEAR(p.mfu, ridge_predict_mfu(&g, rc.precision, p.model_flops / p.time_s), 1e-15);
        CHECK_NEAR(p.throughput * p.time_s, p.items_per_step, 1e-12);
        CHECK_INT(p.fits, p.mem.total_bytes <= g.memory_bytes);
        CHECK(p.max_batch >= rc.batch);
    }
    ridge_predict_result_free(&p);
    ridge_predict_result_free(&p); /* twice is harmless */
    /* A run the model cannot do: the message names the model, and the result may be freed. */
    ridge_model_free(m);
    m = NULL;
    if (ridge_model_load_builtin("resnet50", &m, &err) == RIDGE_OK) {
        rc.mode = RIDGE_MODE_DECODE;
        CHECK(ridge_predict_model(&g, m, &rc, &hp, RIDGE_RUNTIME_EAGER, &p, &err) != RIDGE_OK);
        CHECK_STR_HAS(err.msg, "resnet50: ");
        ridge_predict_result_free(&p);
    }
    ridge_model_free(m);
}

int main(void)
{
    test_mfu();
    test_default_precision();
    test_max_batch();
    test_step();
    return check_report();
}
