/* libFuzzer target: predictions, not only parsing. An operator list that parses
 * (ridge_oplist_parse) is predicted op by op (ridge_kernel_predict) and through the host launch
 * pipeline (ridge_schedule_ops), as `ridge predict --workload FILE` does; a model document (one
 * with "family") that parses (ridge_model_parse) is built into the operator graph of one step
 * (ridge_model_build) and predicted the same way. See tests/fuzz/README.md.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The input's size picks the GPU (size % 4: an H200, a T4 without BF16, an A100 MIG slice, an
 * MI300X) and the runtime (size / 4 odd: CUDA-graph replay, else eager). Besides crashes,
 * sanitizer reports and timeouts (a prediction must take no longer for a size near the schema's
 * 1e15 than for a small one: run with -timeout=5), it aborts when a contract of ridge/kernel.h or
 * ridge/schedule.h breaks: a failure must return a known negative status with one non-empty line
 * in err; a success must give every op a finite, positive time and finite, non-negative work,
 * and totals that add up. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_contract.h"
#include "ridge/error.h"
#include "ridge/gpu.h"
#include "ridge/kernel.h"
#include "ridge/schedule.h"
#include "ridge/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const gpu_ids[4] = {"h200-sxm-141gb", "t4", "a100-sxm4-80gb:3g.40gb", "mi300x"};

static int finite_nonneg(double v)
{
    return isfinite(v) && v >= 0;
}

static void check_kernel(const ridge_kernel_result *k)
{
    REQUIRE(isfinite(k->time_s) && k->time_s > 0);
    REQUIRE(finite_nonneg(k->flops) && finite_nonneg(k->dram_bytes) && finite_nonneg(k->l2_bytes));
    REQUIRE(isfinite(k->kernels) && k->kernels >= 1);
    REQUIRE(finite_nonneg(k->compute_s) && finite_nonneg(k->memory_s) && finite_nonneg(k->l2_s));
    REQUIRE(finite_nonneg(k->floor_s));
    REQUIRE(finite_nonneg(k->achieved_flops_per_s) && finite_nonneg(k->roof_efficiency));
    REQUIRE((unsigned)k->bound < RIDGE_BOUND_HOST);
}

/* Every op alone, then the sequence through the launch pipeline. */
static void predict_ops(const ridge_gpu *g, const ridge_op *ops, size_t n, ridge_runtime rt)
{
    ridge_op_result *res = calloc(n ? n : 1, sizeof *res);
    ridge_schedule_totals tot;
    ridge_err err;
    double busy = 0, by_bound = 0;
    int rc;
    REQUIRE(res != NULL);
    for (size_t i = 0; i < n; i++) {
        ridge_kernel_result k;
        memset(&err, 0, sizeof err);
        rc = ridge_kernel_predict(g, &ops[i], &k, &err);
        if (rc != RIDGE_OK)
            fuzz_check_error(rc, &err);
        else
            check_kernel(&k);
    }
    memset(&err, 0, sizeof err);
    rc = ridge_schedule_ops(g, ops, n, rt, res, &tot, &err);
    if (rc != RIDGE_OK) {
        fuzz_check_error(rc, &err);
        free(res);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        check_kernel(&res[i].kernel);
        REQUIRE(res[i].count == ops[i].count);
        /* The stream's end grows by time_s: after an op of 1e30 s, a 1 s op rounds to 0. */
        REQUIRE(finite_nonneg(res[i].time_s));
        REQUIRE(res[i].time_s > 0 || res[i].gpu_s <= 1e-15 * tot.total_time_s);
        REQUIRE(isfinite(res[i].gpu_s) && res[i].gpu_s > 0 && finite_nonneg(res[i].host_wait_s));
        REQUIRE((unsigned)res[i].bound < RIDGE_BOUND_COUNT);
        busy += res[i].gpu_s;
    }
    REQUIRE(isfinite(tot.total_time_s) && tot.total_time_s > 0);
    REQUIRE(finite_nonneg(tot.gpu_busy_s) && finite_nonneg(tot.host_wait_s) && finite_nonneg(tot.host_issue_s));
    REQUIRE(finite_nonneg(tot.flops) && finite_nonneg(tot.dram_bytes) && finite_nonneg(tot.kernels));
    /* The stream ends no earlier than its kernels' GPU time; the bound shares add up to it. */
    REQUIRE(tot.total_time_s >= tot.gpu_busy_s * (1 - 1e-9));
    REQUIRE(fabs(busy - tot.gpu_busy_s) <= 1e-9 * tot.gpu_busy_s);
    for (int b = 0; b < RIDGE_BOUND_COUNT; b++) {
        REQUIRE(finite_nonneg(tot.time_by_bound_s[b]));
        by_bound += tot.time_by_bound_s[b];
    }
    REQUIRE(fabs(by_bound - tot.total_time_s) <= 1e-9 * tot.total_time_s);
    free(res);
}

/* Whether the bytes hold `key` (the input is not NUL-terminated). */
static int has_bytes(const uint8_t *data, size_t size, const char *key)
{
    size_t m = strlen(key);
    for (size_t i = 0; i + m <= size; i++)
        if (memcmp(data + i, key, m) == 0)
            return 1;
    return 0;
}

/* A model document: one step of its default run, BF16 where the GPU has it (else FP16). */
static void predict_model(const ridge_gpu *g, const uint8_t *data, size_t size, ridge_runtime rt)
{
    ridge_model *m = NULL;
    ridge_run_config rc;
    ridge_oplist ol;
    ridge_err err;
    int st;
    memset(&err, 0, sizeof err);
    st = ridge_model_parse((const char *)data, size, "fuzz.json", &m, &err);
    if (st != RIDGE_OK) {
        fuzz_check_error(st, &err);
        REQUIRE(m == NULL);
        return;
    }
    ridge_run_config_init(&rc);
    rc.precision = g->peak_flops_per_s[RIDGE_PEAK_BF16] > 0 ? RIDGE_DTYPE_BF16 : RIDGE_DTYPE_FP16;
    rc.mode = (size / 8) % 2 ? RIDGE_MODE_TRAIN : RIDGE_MODE_INFER;
    memset(&ol, 0, sizeof ol);
    memset(&err, 0, sizeof err);
    st = ridge_model_build(m, &rc, &ol, &err);
    if (st != RIDGE_OK)
        fuzz_check_error(st, &err);
    else
        predict_ops(g, ol.ops, ol.n, rt);
    ridge_oplist_free(&ol);
    ridge_model_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The catalogue GPUs, loaded once (a GPU is a plain value). */
    static ridge_gpu gpus[4];
    static int loaded;
    const ridge_gpu *g;
    ridge_runtime rt = (size / 4) % 2 ? RIDGE_RUNTIME_GRAPH : RIDGE_RUNTIME_EAGER;
    ridge_oplist w;
    ridge_err err;
    int rc;
    if (!loaded) {
        for (int i = 0; i < 4; i++)
            REQUIRE(ridge_catalog_load(gpu_ids[i], &gpus[i], &err) == RIDGE_OK);
        loaded = 1;
    }
    g = &gpus[size % 4];
    /* "family" marks a model document (docs/workloads.md); anything else is read as an operator list. */
    if (has_bytes(data, size, "\"family\"")) {
        predict_model(g, data, size, rt);
        return 0;
    }
    memset(&err, 0, sizeof err);
    rc = ridge_oplist_parse((const char *)data, size, "fuzz.json", &w, &err);
    if (rc != RIDGE_OK) {
        fuzz_check_error(rc, &err);
        ridge_oplist_free(&w);
        return 0;
    }
    predict_ops(g, w.ops, w.n, rt);
    ridge_oplist_free(&w);
    return 0;
}
