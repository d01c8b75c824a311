/* Calibration (model/measure/calibrate.c) on synthetic measurements: a "true" H200 whose efficiency
 * parameters differ from the defaults predicts every measurement of a ridge-bench-cuda-shaped
 * file (ids and configs as the benchmarks write them), with +-0.5 % deterministic noise. The fit,
 * started from the defaults on the declared training subset, must recover the parameters the
 * training cases inform and bring the held-out cases to the truth.
 *
 * With a path argument the synthetic file is also written there (the CLI test uses it); it is
 * test input, marked so in its provenance, never a measurement.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "ridge/calibrate.h"

static cJSON *measurement(cJSON *arr, const char *id, const char *group, cJSON *op, const char *runtime,
                          const char *sync, double graph_nodes)
{
    cJSON *m = cJSON_CreateObject(), *cfg, *t;
    cJSON_AddStringToObject(m, "id", id);
    cJSON_AddStringToObject(m, "group", group);
    t = cJSON_AddObjectToObject(m, "time_s");
    cJSON_AddNumberToObject(t, "median", 1.0); /* replaced by the truth below */
    if (strcmp(group, "launch") == 0) {
        /* As bench_launch.cu writes them: nothing to check, so not "checked", and still used. */
        cJSON_AddBoolToObject(m, "checked", 0);
        cJSON_AddStringToObject(cJSON_AddObjectToObject(m, "check"), "status", "none");
    } else
        cJSON_AddBoolToObject(m, "checked", 1);
    cfg = cJSON_AddObjectToObject(m, "config");
    cJSON_AddItemToObject(cfg, "op", op);
    cJSON_AddStringToObject(cfg, "runtime", runtime);
    if (sync)
        cJSON_AddStringToObject(cfg, "sync", sync);
    if (strcmp(group, "launch") == 0) /* what time_s is, as bench_launch.cu states it */
        cJSON_AddStringToObject(cfg, "timed",
                                strstr(id, "_issue") ? "issue"
                                : sync && strcmp(sync, "each") == 0 ? "round_trip"
                                                                     : "back_to_back");
    if (graph_nodes > 0)
        cJSON_AddNumberToObject(cfg, "graph_nodes", graph_nodes);
    cJSON_AddItemToArray(arr, m);
    return m;
}

static cJSON *op_elementwise(double n, int in, int out, double fpe, double count)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", "elementwise");
    cJSON_AddStringToObject(o, "dtype", "fp32");
    cJSON_AddNumberToObject(o, "elements", n);
    cJSON_AddNumberToObject(o, "inputs", in);
    cJSON_AddNumberToObject(o, "outputs", out);
    cJSON_AddNumberToObject(o, "flops_per_element", fpe);
    if (count > 1)
        cJSON_AddNumberToObject(o, "count", count);
    return o;
}

static cJSON *op_reduce(double n)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", "reduce");
    cJSON_AddStringToObject(o, "dtype", "fp32");
    cJSON_AddNumberToObject(o, "rows", 1);
    cJSON_AddNumberToObject(o, "cols", n);
    return o;
}

static cJSON *op_gemm(const char *dt, double m, double n, double k, double batch)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", "gemm");
    cJSON_AddStringToObject(o, "dtype", dt);
    cJSON_AddNumberToObject(o, "m", m);
    cJSON_AddNumberToObject(o, "n", n);
    cJSON_AddNumberToObject(o, "k", k);
    if (batch > 1)
        cJSON_AddNumberToObject(o, "batch", batch);
    cJSON_AddStringToObject(o, "layout", "nt"); /* ridge-bench-cuda: Y = X W^T */
    return o;
}

/* The measurements of a full ridge-bench-cuda run, shaped as the benchmarks write them. */
static cJSON *synthetic_doc(void)
{
    cJSON *doc = cJSON_CreateObject(), *prov, *arr;
    static const char *const dts[] = {"fp16", "bf16", "tf32", "fp32", "fp8", "int8"};
    char id[128];
    cJSON_AddNumberToObject(doc, "schema_version", 1);
    cJSON_AddStringToObject(doc, "kind", "ridge-measurements");
    prov = cJSON_AddObjectToObject(doc, "provenance");
    cJSON_AddStringToObject(prov, "gpu_name", "NVIDIA H200");
    cJSON_AddStringToObject(prov, "note", "synthetic test input from tests/test_calibrate.c, not a measurement");
    arr = cJSON_AddArrayToObject(doc, "measurements");
    /* every power of two, as ridge-bench-cuda sweeps: the copies and triads of 8 MiB per array
     * keep L2-bound training cases below the half of the L2 a streaming kernel is served from */
    for (double mib = 1; mib <= 4096; mib *= 2) {
        double n = mib * 1048576.0 / 4;
        snprintf(id, sizeof id, "bandwidth/read/%gMiB", mib);
        measurement(arr, id, "bandwidth", op_reduce(n), "eager", NULL, 0);
        snprintf(id, sizeof id, "bandwidth/write/%gMiB", mib);
        measurement(arr, id, "bandwidth", op_elementwise(n, 0, 1, 0, 1), "eager", NULL, 0);
        snprintf(id, sizeof id, "bandwidth/copy/%gMiB", mib);
        measurement(arr, id, "bandwidth", op_elementwise(n, 1, 1, 0, 1), "eager", NULL, 0);
        snprintf(id, sizeof id, "bandwidth/triad/%gMiB", mib);
        measurement(arr, id, "bandwidth", op_elementwise(n, 2, 1, 2, 1), "eager", NULL, 0);
    }
    for (int s = 8192; s <= 16384; s *= 2)
        for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
            snprintf(id, sizeof id, "gemm/%s/%d", dts[d], s);
            measurement(arr, id, "gemm", op_gemm(dts[d], s, s, s, 1), "eager", NULL, 0);
        }
    measurement(arr, "gemm_sweep/bf16/skinny/m8_n14336_k4096", "gemm_sweep", op_gemm("bf16", 8, 14336, 4096, 1),
                "eager", NULL, 0);
    measurement(arr, "gemm_sweep/bf16/misaligned/m4095_n4096_k4095", "gemm_sweep",
                op_gemm("bf16", 4095, 4096, 4095, 1), "eager", NULL, 0);
    measurement(arr, "gemm_sweep/fp16/wave/m16896_n4096_k4096", "gemm_sweep", op_gemm("fp16", 16896, 4096, 4096, 1),
                "eager", NULL, 0);
    measurement(arr, "gemm_sweep/bf16/batched/b64_m512_n512_k128", "gemm_sweep", op_gemm("bf16", 512, 512, 128, 64),
                "eager", NULL, 0);
    measurement(arr, "gemm_sweep/tf32/square/m2048_n2048_k2048", "gemm_sweep", op_gemm("tf32", 2048, 2048, 2048, 1),
                "eager", NULL, 0);
    measurement(arr, "launch/empty_sync", "launch", op_elementwise(1, 0, 0, 0, 1), "eager", "each", 0);
    measurement(arr, "launch/empty_async_issue", "launch", op_elementwise(1, 0, 0, 0, 1), "eager", "end", 0);
    measurement(arr, "launch/empty_async_wall", "launch", op_elementwise(1, 0, 0, 0, 1), "eager", "end", 0);
    for (int nodes = 10; nodes <= 1000; nodes *= 10) {
        snprintf(id, sizeof id, "launch/graph_sync/nodes%d", nodes);
        measurement(arr, id, "launch", op_elementwise(1, 0, 0, 0, nodes), "graph", "each", 0);
        snprintf(id, sizeof id, "launch/graph_replay/nodes%d", nodes);
        measurement(arr, id, "launch", op_elementwise(1, 0, 0, 0, nodes), "graph", "end", 0);
    }
    for (double b = 4096; b <= 1048576; b *= 4) {
        const char *rt[2] = {"eager", "graph"};
        for (int r = 0; r < 2; r++) {
            snprintf(id, sizeof id, "small/scale/%s/%gB", rt[r], b);
            measurement(arr, id, "small", op_elementwise(b / 4, 1, 1, 1, 1), rt[r], NULL, r ? 100 : 0);
            snprintf(id, sizeof id, "small/add/%s/%gB", rt[r], b);
            measurement(arr, id, "small", op_elementwise(b / 4, 2, 1, 1, 1), rt[r], NULL, r ? 100 : 0);
            snprintf(id, sizeof id, "small/reduce/%s/%gB", rt[r], b);
            measurement(arr, id, "small", op_reduce(b / 4), rt[r], NULL, r ? 100 : 0);
        }
    }
    return doc;
}

/* The true GPU: every parameter the training split informs moved away from its default. */
static void make_truth(ridge_gpu *t)
{
    t->eff.dram_fraction = 0.86;
    t->eff.dram_latency_s = 820e-9;
    t->eff.l2_bandwidth_bytes_per_s *= 1.35;
    t->eff.kernel_floor_s = 3.3e-6;
    t->eff.host_launch_s = 4.2e-6;
    t->eff.fraction_by_peak[RIDGE_PEAK_BF16] = 0.73;
    t->eff.fraction_by_peak[RIDGE_PEAK_FP16_FP32ACC] = 0.745;
    t->eff.fraction_by_peak[RIDGE_PEAK_TF32] = 0.66;
    t->eff.fraction_by_peak[RIDGE_PEAK_FP32] = 0.84;
    t->eff.fraction_by_peak[RIDGE_PEAK_FP8] = 0.61;
    t->eff.fraction_by_peak[RIDGE_PEAK_INT8] = 0.69;
}

/* What a progress callback (ridge_progress_fn) was called with. */
typedef struct {
    size_t calls, last, total;
    int over, backwards, total_changed;
} progress_seen;

static void seen_progress(void *arg, size_t done, size_t total)
{
    progress_seen *r = arg;
    r->over |= done > total;
    r->backwards |= r->calls > 0 && done < r->last;
    r->total_changed |= r->calls > 0 && total != r->total;
    r->calls++;
    r->last = done;
    r->total = total;
}

/* The callback ended at done == total, never beyond it nor backwards, one total throughout. */
static void check_progress(const progress_seen *r, size_t want_total, size_t most_calls)
{
    CHECK(r->calls >= 1);
    CHECK(r->calls <= most_calls);
    CHECK_INT((long)r->total, (long)want_total);
    CHECK_INT((long)r->last, (long)r->total);
    CHECK(!r->over && !r->backwards && !r->total_changed);
}

/* ridge_meas_collect_files_progress over a file of the synthetic document, twice over: the same
 * items as ridge_meas_collect gave (s), and a progress count of every entry of both. */
static void check_collect_progress(const cJSON *doc, const ridge_meas_set *s)
{
    char path[] = "/tmp/ridge-test-calibrate-XXXXXX", *text = cJSON_PrintUnformatted(doc);
    const char *paths[2] = {path, path};
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    ridge_meas_set s2;
    progress_seen seen = {0};
    ridge_err err = {{0}};
    size_t entries = (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "measurements"));
    memset(&s2, 0, sizeof s2);
    if (!CHECK(text && f)) {
        free(text);
        return;
    }
    fputs(text, f);
    fclose(f);
    free(text);
    CHECK(ridge_meas_collect_files_progress(paths, 2, NULL, NULL, &s2, seen_progress, &seen, &err) == RIDGE_OK);
    check_progress(&seen, 2 * entries, 2 * entries / RIDGE_PROGRESS_EVERY + 1);
    if (CHECK_INT(s2.n, 2 * s->n))
        for (int i = 0; i < s2.n; i++)
            CHECK(strcmp(s2.v[i].id, s->v[i % s->n].id) == 0 && s2.v[i].predicted == s->v[i % s->n].predicted);
    /* A file that cannot be read: the error, and no progress at all. */
    memset(&seen, 0, sizeof seen);
    paths[1] = "/nonexistent/ridge-measurements.json";
    ridge_meas_set_free(&s2);
    memset(&s2, 0, sizeof s2);
    CHECK(ridge_meas_collect_files_progress(paths, 2, NULL, NULL, &s2, seen_progress, &seen, &err) == RIDGE_EIO);
    CHECK_INT((long)seen.calls, 0);
    ridge_meas_set_free(&s2);
    remove(path);
}

/* The reader on a copy of the synthetic document: a file-level fault is one error naming the
 * field; a measurement that lacks a field is skipped with a reason naming it, the others kept. */
static void check_reader(const cJSON *doc, int n)
{
    static const struct {
        const char *what, *key; /* a top-level key set to a number (NULL: the first time_s.median removed) */
        double value;
        int status;
        const char *msg;
    } rows[] = {
        {"schema_version 2", "schema_version", 2, RIDGE_EINVAL, "t: $.schema_version: 2 is not 1"},
        {"an unknown top-level key", "measurement", 1, RIDGE_EINVAL, "t: $.measurement: unknown key"},
        {"measurements a number", "measurements", 1, RIDGE_EINVAL, "t: $.measurements: a number, not an array"},
        {"no time_s.median", NULL, 0, RIDGE_OK, NULL},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        cJSON *d = cJSON_Duplicate(doc, 1);
        ridge_meas_doc *md = NULL;
        ridge_meas_set s;
        ridge_err err = {{0}};
        char *text;
        int st;
        check_context(rows[k].what);
        memset(&s, 0, sizeof s);
        if (rows[k].key) {
            cJSON_DeleteItemFromObjectCaseSensitive(d, rows[k].key);
            cJSON_AddNumberToObject(d, rows[k].key, rows[k].value);
        } else
            cJSON_DeleteItemFromObjectCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(
                    cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d, "measurements"), 0), "time_s"),
                "median");
        text = cJSON_PrintUnformatted(d);
        cJSON_Delete(d);
        if (!CHECK(text != NULL))
            continue;
        st = ridge_meas_doc_parse(text, strlen(text), "t", &md, &err);
        free(text);
        CHECK_INT(st, rows[k].status);
        if (rows[k].msg)
            CHECK(strncmp(err.msg, rows[k].msg, strlen(rows[k].msg)) == 0);
        if (md) {
            ridge_meas_collect(md, NULL, NULL, &s);
            CHECK_INT(s.n, n - 1);
            if (CHECK_INT(s.nreasons, 1))
                CHECK(strcmp(s.reason[0], "no time_s.median") == 0 && s.reason_count[0] == 1);
        }
        ridge_meas_doc_free(md);
        ridge_meas_set_free(&s);
    }
    check_context(NULL);
}

/* More distinct skip reasons than a set holds: the last slot counts the rest, none is lost. */
static void check_skip_overflow(void)
{
    static char reasons[RIDGE_MEAS_MAX_REASONS + 10][16];
    ridge_meas_set s;
    long total = 0;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < RIDGE_MEAS_MAX_REASONS + 10; i++) {
        snprintf(reasons[i], sizeof reasons[i], "reason %d", i);
        ridge_meas_skip(&s, reasons[i]);
        ridge_meas_skip(&s, reasons[i]);
    }
    CHECK_INT(s.nreasons, RIDGE_MEAS_MAX_REASONS);
    for (int i = 0; i < s.nreasons; i++)
        total += s.reason_count[i];
    CHECK_INT(total, 2 * (RIDGE_MEAS_MAX_REASONS + 10));
    CHECK(strcmp(s.reason[RIDGE_MEAS_MAX_REASONS - 1], RIDGE_MEAS_SKIP_OTHER) == 0);
    CHECK_INT(s.reason_count[RIDGE_MEAS_MAX_REASONS - 1], 2 * 11);
    ridge_meas_set_free(&s);
}

static const ridge_cal_param *find(const ridge_cal_result *r, const char *name)
{
    for (int j = 0; j < r->nparams; j++)
        if (strcmp(r->p[j].name, name) == 0)
            return &r->p[j];
    return NULL;
}

int main(int argc, char **argv)
{
    ridge_gpu truth, g;
    ridge_err err;
    cJSON *doc = synthetic_doc(), *m;
    ridge_meas_set s;
    ridge_cal_result res;
    int *train, i = 0, ntrain = 0;
    double held = 0, held_before = 0;
    unsigned long long seed = 88172645463325252ULL;
    memset(&s, 0, sizeof s);
    CHECK(ridge_catalog_load("h200-sxm-141gb", &truth, &err) == RIDGE_OK);
    g = truth;
    make_truth(&truth);

    /* Every measured time: the truth's prediction, +-0.5 %. */
    {
        char *text = cJSON_PrintUnformatted(doc);
        ridge_meas_doc *md = NULL;
        CHECK(text != NULL);
        CHECK(text && ridge_meas_doc_parse(text, strlen(text), "synthetic", &md, &err) == RIDGE_OK);
        free(text);
        if (md)
            ridge_meas_collect(md, NULL, NULL, &s);
        ridge_meas_doc_free(md);
    }
    if (!CHECK_INT(s.nreasons, 0))
        printf("skipped: %s\n", s.reason[0]);
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(doc, "measurements"))
    {
        double p = 0, noise;
        const char *why;
        if (!CHECK(i < s.n))
            break;
        why = ridge_meas_predict(&s.v[i], &truth, &p);
        CHECK(why == NULL);
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        noise = 1.0 + 0.01 * ((double)(seed % 1000001) / 1000000.0 - 0.5);
        s.v[i].measured = p * noise;
        cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, "time_s"), "median"),
                             s.v[i].measured);
        i++;
    }
    CHECK_INT(i, s.n);
    check_reader(doc, s.n);
    check_skip_overflow();
    if (argc > 1) {
        char *text = cJSON_Print(doc);
        FILE *f = fopen(argv[1], "w");
        CHECK(text && f);
        if (text && f)
            fputs(text, f);
        if (f)
            fclose(f);
        free(text);
    }

    /* The declared split. */
    train = calloc((size_t)s.n, sizeof *train);
    ridge_cal_split(&s, ridge_cal_default_rules, ridge_cal_default_rule_count, train);
    for (i = 0; i < s.n; i++) {
        ntrain += train[i];
        check_context(s.v[i].id);
        if (strncmp(s.v[i].id, "gemm/", 5) == 0)
            CHECK_INT(train[i], strstr(s.v[i].id, "/8192") != NULL);
        if (strncmp(s.v[i].id, "gemm_sweep/", 11) == 0 || strncmp(s.v[i].id, "bandwidth/read", 14) == 0 ||
            strcmp(s.v[i].id, "launch/empty_sync") == 0 || strncmp(s.v[i].id, "small/add/", 10) == 0)
            CHECK_INT(train[i], 0);
    }
    check_context(NULL);
    CHECK(ntrain > 20 && ntrain < s.n - 20);

    CHECK(ridge_cal_fit(&g, &s, train, NULL, 0, &res) == NULL);
    CHECK(res.rms_log_after < 0.01);
    CHECK(res.rms_log_before > 0.05);
    {
        struct {
            const char *name;
            double truth;
        } want[] = {
            {"dram_fraction", 0.86},
            {"kernel_floor_s", 3.3e-6},
            {"host_launch_s", 4.2e-6},
            {"fraction_by_peak.bf16", 0.73},
            {"fraction_by_peak.fp16_fp32acc", 0.745},
            {"fraction_by_peak.tf32", 0.66},
            {"fraction_by_peak.fp32", 0.84},
            {"fraction_by_peak.fp8", 0.61},
            {"fraction_by_peak.int8", 0.69},
            {"l2_bandwidth_bytes_per_s", truth.eff.l2_bandwidth_bytes_per_s},
        };
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
            const ridge_cal_param *p = find(&res, want[k].name);
            check_context(want[k].name);
            if (!CHECK(p != NULL))
                continue;
            CHECK(p->fitted);
            CHECK_NEAR(p->value / want[k].truth, 1.0, 0.03);
        }
        check_context(NULL);
    }
    /* Not informed by CUDA microbenchmarks: the framework cost and the unused global fractions. */
    {
        const ridge_cal_param *fw = find(&res, "framework_op_s");
        if (CHECK(fw != NULL))
            CHECK(!fw->fitted);
    }
    CHECK(find(&res, "tensor_fraction") == NULL);
    /* Held-out cases (other kernels, sizes, shapes and timings) now match the truth. */
    {
        ridge_gpu d;
        CHECK(ridge_catalog_load("h200-sxm-141gb", &d, &err) == RIDGE_OK);
        for (i = 0; i < s.n; i++) {
            double p = 0, p0 = 0;
            if (train[i])
                continue;
            CHECK(ridge_meas_predict(&s.v[i], &g, &p) == NULL);
            CHECK(ridge_meas_predict(&s.v[i], &d, &p0) == NULL);
            held += fabs(p / s.v[i].measured - 1);
            held_before += fabs(p0 / s.v[i].measured - 1);
        }
        held /= s.n - ntrain;
        held_before /= s.n - ntrain;
        printf("held-out MAPE: %.2f %% with the defaults, %.2f %% calibrated\n", 100 * held_before, 100 * held);
        CHECK(held < 0.02);
        CHECK(held_before > 0.05);
    }
    /* The same fit with a progress callback: the same values, the callback ending at its total. */
    {
        ridge_gpu h;
        ridge_cal_result res2;
        progress_seen seen = {0};
        CHECK(ridge_catalog_load("h200-sxm-141gb", &h, &err) == RIDGE_OK);
        CHECK(ridge_cal_fit_progress(&h, &s, train, NULL, 0, &res2, seen_progress, &seen) == NULL);
        check_progress(&seen, seen.total, (size_t)res2.iterations + 1);
        CHECK(seen.total >= (size_t)res2.iterations);
        CHECK_INT(res2.iterations, res.iterations);
        for (int k = 0; k < res.nparams; k++)
            CHECK(res2.p[k].value == res.p[k].value);
    }
    check_collect_progress(doc, &s);
    /* Too little to fit: no training case. */
    {
        int *none = calloc((size_t)s.n, sizeof *none);
        ridge_gpu h = g;
        CHECK(ridge_cal_fit(&h, &s, none, NULL, 0, &res) != NULL);
        free(none);
    }
    free(train);
    ridge_meas_set_free(&s);
    cJSON_Delete(doc);
    return check_report();
}
