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

/* An engine's work per sequence (docs/model.md §7, sequence_s): an inference step of b sequences
 * under trtllm-bench (engine plus sequence_s) takes engine's time plus b x sequence_s / cpu_speed,
 * all of it host time before the first kernel; a training step pays none of it. */
static void test_sequence_work(void)
{
    static const ridge_mode modes[] = {RIDGE_MODE_DECODE, RIDGE_MODE_PREFILL, RIDGE_MODE_INFER, RIDGE_MODE_TRAIN};
    ridge_gpu g;
    ridge_model *m = NULL;
    ridge_host_profile eng, seq;
    ridge_err err;
    if (load("h100-sxm5-80gb", "llama2-7b", &g, &m) || !CHECK_INT(ridge_host_load("engine", &eng, &err), RIDGE_OK) ||
        !CHECK_INT(ridge_host_load("trtllm-bench", &seq, &err), RIDGE_OK)) {
        ridge_model_free(m);
        return;
    }
    CHECK(seq.sequence_s > 0 && eng.sequence_s == 0);
    for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++)
        for (double b = 1; b <= 256; b *= 16) {
            ridge_run_config rc;
            ridge_predict_result p0, p1;
            ridge_run_config_init(&rc);
            rc.mode = modes[k];
            rc.batch = b;
            rc.prompt = rc.seq = 128;
            rc.context = 512;
            if (CHECK_INT(ridge_predict_model(&g, m, &rc, &eng, RIDGE_RUNTIME_EAGER, &p0, &err), RIDGE_OK) &&
                CHECK_INT(ridge_predict_model(&g, m, &rc, &seq, RIDGE_RUNTIME_EAGER, &p1, &err), RIDGE_OK)) {
                double extra = rc.mode == RIDGE_MODE_TRAIN ? 0 : b * seq.sequence_s / seq.cpu_speed;
                CHECK_NEAR(p1.time_s, p0.time_s + extra, 1e-12);
                CHECK_NEAR(p1.tot.host_wait_s, p0.tot.host_wait_s + extra, 1e-12);
                CHECK_NEAR(p1.tot.time_by_bound_s[RIDGE_BOUND_HOST], p0.tot.time_by_bound_s[RIDGE_BOUND_HOST] + extra,
                           1e-12);
                CHECK_NEAR(p1.tot.gpu_busy_s, p0.tot.gpu_busy_s, 1e-15);
            }
            ridge_predict_result_free(&p0);
            ridge_predict_result_free(&p1);
        }
    /* A host twice as slow (a calibrated GPU file's host figures doubled) doubles it. */
    CHECK_NEAR(ridge_host_sequences_on(&seq, NULL, 100), 100 * seq.sequence_s / seq.cpu_speed, 1e-18);
    {
        ridge_gpu slow = g;
        slow.eff.host_launch_s *= 2;
        slow.eff.framework_op_s *= 2;
        CHECK_NEAR(ridge_host_sequences_on(&seq, &slow, 100), 2 * 100 * seq.sequence_s / seq.cpu_speed, 1e-15);
    }
    CHECK(ridge_host_sequences_on(&eng, &g, 100) == 0 && ridge_host_sequences_on(NULL, &g, 100) == 0 &&
          ridge_host_sequences_on(&seq, &g, 0) == 0);
    ridge_model_free(m);
}

int main(void)
{
    test_mfu();
    test_default_precision();
    test_max_batch();
    test_step();
    test_sequence_work();
    return check_report();
}
