/* libFuzzer target: measurement documents (docs/validation.md) as `ridge validate` and
 * `ridge calibrate` read them: ridge_meas_collect (kernel ops, preset models, PyTorch end-to-end configs
 * through cli_torch_map), ridge_meas_predict of every collected item on its GPU, the default training
 * split (ridge_cal_split) and, for small sets with training items, ridge_cal_fit on an H200 (all parameters,
 * or two named ones as with --fit). The input's size picks the variant: size % 3 is 0 for no
 * --gpu-file, 1 for an H200 file under its catalogue id (used for the H200's measurements), 2 for
 * one under an id the catalogue lacks (used for every measurement); an odd size fits two named
 * parameters only.
 * See tests/fuzz/README.md.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Besides crashes, leaks and sanitizer reports, it aborts when a contract of cli/measure.h or
 * cli/calibrate.h breaks: a collected item has a known GPU, a finite positive measured value
 * and NUL-terminated strings; a prediction that ridge_meas_predict accepts is finite and positive, and
 * so is its ratio to the measured value (the error);
 * ridge_cal_split gives 0 or 1; a fit leaves finite parameters inside their search box and finite
 * residuals. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz_contract.h"
#include "ridge/calibrate.h"
#include "ridge/gpu.h"
#include "ridge/measure.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Calibration runs the model thousands of times: only on small sets, to keep executions fast. */
#define FUZZ_MAX_FIT_ITEMS 40

#define TERMINATED(arr) (memchr((arr), '\0', sizeof(arr)) != NULL)

static void check_item(const ridge_meas_item *it)
{
    REQUIRE(TERMINATED(it->id) && TERMINATED(it->group) && TERMINATED(it->gpu) && TERMINATED(it->workload) &&
            TERMINATED(it->desc) && TERMINATED(it->unit) && TERMINATED(it->kind_name));
    REQUIRE(it->gpu[0] != '\0' && it->unit[0] != '\0');
    REQUIRE(isfinite(it->measured) && it->measured > 0);
    REQUIRE(it->type == RIDGE_MEAS_KERNEL || it->type == RIDGE_MEAS_MODEL);
    if (it->type == RIDGE_MEAS_MODEL) {
        REQUIRE(it->graph.n >= 1 && it->graph.ops != NULL);
        if (it->kind == RIDGE_MEAS_GENERATION)
            REQUIRE(it->decode.n >= 1 && it->decode.ops != NULL && isfinite(it->output) && it->output >= 1);
    } else {
        REQUIRE(it->graph_nodes == 0 || (isfinite(it->graph_nodes) && it->graph_nodes >= 1));
    }
}

static void check_prediction(const char *why, double pred)
{
    if (why)
        REQUIRE(why[0] != '\0' && strchr(why, '\n') == NULL);
    else
        REQUIRE(isfinite(pred) && pred > 0);
}

static void check_fit(const ridge_gpu *g, const ridge_meas_set *s, const int *train, const char *const *only,
                      int nonly, const char *why, const ridge_cal_result *res)
{
    REQUIRE(res->nparams >= 0 && res->nparams <= RIDGE_CAL_MAX_PARAMS);
    REQUIRE(res->ntrain >= 0 && res->ntest >= 0 && res->ntrain + res->ntest <= s->n);
    REQUIRE(isfinite(res->rms_log_before) && res->rms_log_before >= 0);
    for (int j = 0; j < res->nparams; j++) {
        const ridge_cal_param *p = &res->p[j];
        REQUIRE(TERMINATED(p->name) && p->name[0] != '\0');
        REQUIRE(isfinite(p->initial) && isfinite(p->value));
        REQUIRE(p->value >= p->lo * (1 - 1e-9) && p->value <= p->hi * (1 + 1e-9));
        REQUIRE(p->fitted || p->value == p->initial);
        if (p->fitted && nonly > 0)
            REQUIRE(strcmp(p->name, only[0]) == 0 || strcmp(p->name, only[1]) == 0);
    }
    if (why) {
        REQUIRE(why[0] != '\0' && strchr(why, '\n') == NULL);
        return;
    }
    REQUIRE(res->stop != NULL);
    REQUIRE(isfinite(res->rms_log_after) && res->rms_log_after <= res->rms_log_before);
    /* The calibrated GPU still predicts every training item it could before (or refuses it). */
    for (int i = 0; i < s->n; i++) {
        double pred = 0;
        if (!train[i] || strcmp(s->v[i].gpu, g->id) != 0)
            continue;
        check_prediction(ridge_meas_predict(&s->v[i], g, &pred), pred);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The input buffer is exactly `size` bytes, not NUL-terminated: ASan catches any read past it. */
    static ridge_gpu g, h200, file_gpu;
    static int loaded;
    ridge_meas_set set;
    ridge_meas_doc *root = NULL;
    const ridge_gpu *gpu_file = NULL;
    int *train = NULL, ntrain = 0;
    {
        ridge_err perr;
        memset(&perr, 0, sizeof perr);
        if (ridge_meas_doc_parse((const char *)data, size, "fuzz", &root, &perr) != RIDGE_OK) {
            REQUIRE(root == NULL && perr.msg[0] != '\0');
            return 0;
        }
    }
    if (!loaded) {
        ridge_err err;
        memset(&err, 0, sizeof err);
        REQUIRE(ridge_catalog_load("h200-sxm-141gb", &h200, &err) == RIDGE_OK);
        loaded = 1;
    }
    if (size % 3) {
        file_gpu = h200;
        if (size % 3 == 2)
            snprintf(file_gpu.id, sizeof file_gpu.id, "%s", "fuzz-gpu-file");
        gpu_file = &file_gpu;
    }
    memset(&set, 0, sizeof set);
    ridge_meas_collect(root, NULL, gpu_file, &set);
    REQUIRE(set.n >= 0 && set.n <= set.cap && (set.n == 0 || set.v != NULL));
    REQUIRE(set.nreasons >= 0 && set.nreasons <= RIDGE_MEAS_MAX_REASONS);
    for (int r = 0; r < set.nreasons; r++)
        REQUIRE(set.reason[r] && set.reason[r][0] != '\0' && set.reason_count[r] >= 1);
    for (int i = 0; i < set.n; i++) {
        ridge_err err;
        double pred = 0;
        memset(&err, 0, sizeof err);
        check_item(&set.v[i]);
        if (gpu_file && strcmp(set.v[i].gpu, gpu_file->id) == 0)
            g = *gpu_file;
        else
            REQUIRE(!(gpu_file && size % 3 == 2) && ridge_catalog_load(set.v[i].gpu, &g, &err) == RIDGE_OK);
        /* ridge_meas_collect keeps only items that predict on their GPU. */
        REQUIRE(ridge_meas_predict(&set.v[i], &g, &pred) == NULL);
        check_prediction(NULL, pred);
        /* The error (predicted / measured), its percentage and log stay finite and non-zero. */
        REQUIRE(isfinite(100 * pred / set.v[i].measured) && pred / set.v[i].measured > 0);
        REQUIRE(isfinite(log(pred / set.v[i].measured)));
    }
    if (set.n > 0) {
        train = calloc((size_t)set.n, sizeof *train);
        REQUIRE(train != NULL);
        ridge_cal_split(&set, ridge_cal_default_rules, ridge_cal_default_rule_count, train);
        for (int i = 0; i < set.n; i++) {
            REQUIRE(train[i] == 0 || train[i] == 1);
            ntrain += train[i];
        }
    }
    if (ntrain > 0 && set.n <= FUZZ_MAX_FIT_ITEMS) {
        /* Odd-sized inputs fit only two named parameters (`ridge calibrate --fit`). */
        static const char *const only[] = {"dram_fraction", "host_launch_s"};
        ridge_cal_result res;
        const char *why;
        g = gpu_file ? *gpu_file : h200;
        why = ridge_cal_fit(&g, &set, train, only, size % 2 ? 2 : 0, &res);
        check_fit(&g, &set, train, only, size % 2 ? 2 : 0, why, &res);
    }
    free(train);
    ridge_meas_set_free(&set);
    REQUIRE(set.n == 0 && set.v == NULL);
    ridge_meas_doc_free(root);
    return 0;
}
