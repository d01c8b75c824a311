/* Measurement files: reading, mapping to predictions, predicting (docs/validation.md, docs/cli.md).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_util.h"
#include "ridge/file.h"
#include "ridge/kernel.h"
#include "ridge/measure.h"
#include "ridge/schedule.h"
#include "ridge/serve.h"
#include "torch_map_internal.h"

struct ridge_meas_doc {
    cJSON *root;
};

/* Largest accepted ratio between a measured value and its prediction, either way: far beyond any
 * real model error, far below where error percentages and their sums overflow. */
#define RIDGE_MEAS_MAX_RATIO 1e100

/* Count a skip by reason; the slot of its reason, or -1 when it went to "other reasons". */
static int skip_slot(ridge_meas_set *s, const char *reason)
{
    int i;
    for (i = 0; i < s->nreasons; i++)
        if (strcmp(s->reason[i], reason) == 0) {
            s->reason_count[i]++;
            return i;
        }
    /* The last slot is "other reasons": every skip is counted, whatever the number of reasons. */
    if (s->nreasons == RIDGE_MEAS_MAX_REASONS) {
        s->reason_count[RIDGE_MEAS_MAX_REASONS - 1]++;
        return -1;
    }
    s->reason[s->nreasons] = s->nreasons == RIDGE_MEAS_MAX_REASONS - 1 ? RIDGE_MEAS_SKIP_OTHER : reason;
    s->reason_count[s->nreasons++] = 1;
    return s->nreasons == RIDGE_MEAS_MAX_REASONS ? -1 : s->nreasons - 1;
}

void ridge_meas_skip(ridge_meas_set *s, const char *reason)
{
    skip_slot(s, reason);
}

void ridge_meas_skip_detail(ridge_meas_set *s, const char *reason, const char *id, const char *detail)
{
    int i = skip_slot(s, reason);
    if (i < 0 || !detail || !detail[0] || s->detail[i][0])
        return;
    snprintf(s->detail[i], sizeof s->detail[i], "%s: %s", id && id[0] ? id : "(no id)", detail);
    rj_utf8_trim(s->detail[i]);
}

static ridge_meas_item *add_item(ridge_meas_set *s)
{
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 64;
        ridge_meas_item *nv = realloc(s->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return NULL;
        s->v = nv;
        s->cap = cap;
    }
    return &s->v[s->n++];
}

static void item_free(ridge_meas_item *it)
{
    ridge_oplist_free(&it->graph);
    ridge_oplist_free(&it->decode);
    ridge_model_free(it->par_model);
    free(it->par_cluster);
    it->par_model = NULL;
    it->par_cluster = NULL;
}

void ridge_meas_set_free(ridge_meas_set *s)
{
    for (int i = 0; i < s->n; i++)
        item_free(&s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* The top-level keys of a measurement file (docs/validation.md, "Top level"): what
 * ridge-bench-cuda, bench_torch.py, collect.py and the converters write. */
static const char *const doc_keys[] = {"schema_version", "kind",   "provenance", "measurements", "skipped",
                                       "errors",         "parts",  "groups",     "summary",      NULL};

/* Strict on the file (its kind, version and top-level keys: a file that is not a measurement file
 * is an input error), lenient on each measurement: one that lacks a field, or has one of the wrong
 * type, is skipped with a reason by ridge_meas_collect, never the whole file rejected. */
int ridge_meas_doc_parse(const char *text, size_t len, const char *origin, ridge_meas_doc **out, ridge_err *err)
{
    const cJSON *kind, *sv, *arr, *prov;
    cJSON *root;
    ridge_meas_doc *doc;
    rj_ctx ctx = {origin, err};
    int st = RIDGE_EINVAL;
    *out = NULL;
    if (ridge_json_refuse_nul_escape(text, len, origin, err) != RIDGE_OK)
        return RIDGE_EPARSE;
    root = cJSON_ParseWithLength(text, len);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return ridge_err_set(err, RIDGE_EPARSE, "%s: not a JSON object (malformed or truncated file)", origin);
    }
    kind = cJSON_GetObjectItemCaseSensitive(root, "kind");
    sv = cJSON_GetObjectItemCaseSensitive(root, "schema_version");
    arr = cJSON_GetObjectItemCaseSensitive(root, "measurements");
    prov = cJSON_GetObjectItemCaseSensitive(root, "provenance");
    if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "ridge-measurements") != 0)
        ridge_err_set(err, st, "%s: $.kind: not \"ridge-measurements\" (not a measurement file)", origin);
    else if (!sv)
        ridge_err_set(err, st, "%s: $.schema_version: missing (measurement files are version 1)", origin);
    else if (!cJSON_IsNumber(sv))
        ridge_err_set(err, st, "%s: $.schema_version: %s, not the number 1", origin, rj_type_name(sv));
    else if (sv->valuedouble != 1)
        ridge_err_set(err, st, "%s: $.schema_version: %.17g is not 1 (the version this ridge reads)", origin,
                      sv->valuedouble);
    else if (rj_check_keys(root, "$", doc_keys, &ctx) != RIDGE_OK)
        ; /* "ORIGIN: $.KEY: unknown key" (or duplicate key) */
    else if (prov && !cJSON_IsObject(prov))
        ridge_err_set(err, st, "%s: $.provenance: %s, not an object", origin, rj_type_name(prov));
    else if (!arr)
        ridge_err_set(err, st, "%s: $.measurements: missing", origin);
    else if (!cJSON_IsArray(arr))
        ridge_err_set(err, st, "%s: $.measurements: %s, not an array", origin, rj_type_name(arr));
    else
        st = RIDGE_OK;
    if (st != RIDGE_OK) {
        cJSON_Delete(root);
        return st;
    }
    if (!(doc = malloc(sizeof *doc))) {
        cJSON_Delete(root);
        return ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
    }
    doc->root = root;
    *out = doc;
    return RIDGE_OK;
}

static int parse_loaded(const char *text, size_t len, const char *path, void *out, ridge_err *err)
{
    return ridge_meas_doc_parse(text, len, path, out, err);
}

int ridge_meas_doc_load(const char *path, ridge_meas_doc **out, ridge_err *err)
{
    *out = NULL;
    return ridge_file_load(path, parse_loaded, out, err);
}

size_t ridge_meas_doc_count(const ridge_meas_doc *doc)
{
    return (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc->root, "measurements"));
}

void ridge_meas_doc_free(ridge_meas_doc *doc)
{
    if (!doc)
        return;
    cJSON_Delete(doc->root);
    free(doc);
}

/* A finite number, or NAN. */
static double num_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : NAN;
}

/* ---- a measurement's fields: absent and null read as "not given" (the files write null for
 * what was not stated); present and of the wrong type or out of range, the measurement is skipped
 * with a reason naming the field, never read as the default. ---- */

/* The member key of o, NULL when absent or null. */
static const cJSON *given(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return v && !cJSON_IsNull(v) ? v : NULL;
}

/* An optional string: 0 with *out the string, or NULL when not given; -1 when of another type. */
static int opt_str(const cJSON *o, const char *key, const char **out)
{
    const cJSON *v = given(o, key);
    *out = NULL;
    if (!v)
        return 0;
    if (!cJSON_IsString(v) || !v->valuestring)
        return -1;
    *out = v->valuestring;
    return 0;
}

/* An optional integer in [lo, hi]: 1 with *out set, 0 when not given (*out untouched), -1 when
 * of another type, fractional or out of range. */
static int opt_int(const cJSON *o, const char *key, double lo, double hi, double *out)
{
    const cJSON *v = given(o, key);
    if (!v)
        return 0;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi) ||
        v->valuedouble != floor(v->valuedouble))
        return -1;
    *out = v->valuedouble;
    return 1;
}

/* An optional boolean: 1 with *out set, 0 when not given (*out untouched), -1 when of another
 * type ("true", 1). */
static int opt_bool(const cJSON *o, const char *key, int *out)
{
    const cJSON *v = given(o, key);
    if (!v)
        return 0;
    if (!cJSON_IsBool(v))
        return -1;
    *out = cJSON_IsTrue(v);
    return 1;
}

/* The optional string member KEY of o into s (NULL when not given); one of another type makes the
 * calling mapper return "WHERE.KEY: not a string" (WHERE, KEY: string literals). */
#define OPT_STR(o, where, key, s)                   \
    do {                                            \
        if (opt_str((o), key, &(s)))                \
            return where key ": not a string";      \
    } while (0)

#define MEAS_STR_(x) #x
#define MEAS_STR(x) MEAS_STR_(x)

/* The measured time: time_s.median, in seconds (its sign is checked by the caller). */
static const char *median_time_s(const cJSON *m, double *out)
{
    const cJSON *t = given(m, "time_s"), *v;
    if (!t)
        return "no time_s";
    if (!cJSON_IsObject(t))
        return "time_s: not an object";
    if (!(v = given(t, "median")))
        return "no time_s.median";
    if (!cJSON_IsNumber(v))
        return "time_s.median: not a number";
    *out = v->valuedouble;
    return NULL;
}

/* The measured value of a published figure (value; its sign is checked by the caller). */
static const char *value_of(const cJSON *m, double *out)
{
    const cJSON *v = given(m, "value");
    if (!v)
        return "no value";
    if (!cJSON_IsNumber(v))
        return "value: not a number";
    *out = v->valuedouble;
    return NULL;
}

/* The kernel family of an op, for the per-family summaries (docs/validation.md, "Kernel
 * families"). GEMMs by dtype and shape: skinny (GEMV-like, min(m, n) <= 64), small (fewer than
 * 128 output tiles of 128 x 128: under one wave on any data-centre part), large otherwise. */
static void family_of(const ridge_op *op, char *buf, size_t cap)
{
    const char *dt = ridge_dtype_name(op->dtype);
    switch (op->kind) {
    case RIDGE_OP_GEMM: {
        double m = op->u.gemm.m, n = op->u.gemm.n;
        if (op->u.gemm.batch > 1)
            snprintf(buf, cap, "bmm/%s", dt);
        else
            snprintf(buf, cap, "gemm/%s/%s", dt, (m < n ? m : n) <= 64 ? "skinny" : m * n < 2097152.0 ? "small" : "large");
        return;
    }
    case RIDGE_OP_CONV2D: snprintf(buf, cap, "conv/%s", dt); return;
    case RIDGE_OP_ATTENTION: snprintf(buf, cap, "attention"); return;
    case RIDGE_OP_LSTM: snprintf(buf, cap, "lstm/%s", dt); return;
    case RIDGE_OP_ELEMENTWISE:
    case RIDGE_OP_COPY: snprintf(buf, cap, "copy+elementwise"); return;
    case RIDGE_OP_SOFTMAX:
    case RIDGE_OP_LAYERNORM:
    case RIDGE_OP_RMSNORM:
    case RIDGE_OP_REDUCE: snprintf(buf, cap, "row reduction"); return;
    default: snprintf(buf, cap, "%s", ridge_op_kind_name(op->kind)); return;
    }
}

/* The op (config.op) or ops (config.ops, run one after another in one timed call) of a kernel
 * measurement through ridge's own operator-list loader: the same checks as a user's file. */
static const char *parse_kernel_ops(const cJSON *opj, const cJSON *opsj, ridge_meas_item *it)
{
    int seq = cJSON_IsArray(opsj);
    cJSON *doc = cJSON_CreateObject(), *ops = seq ? cJSON_Duplicate(opsj, 1) : cJSON_CreateArray();
    cJSON *one = seq ? NULL : cJSON_Duplicate(opj, 1);
    ridge_oplist w = {{0}, 0, NULL};
    ridge_err err = {{0}};
    char *text;
    int rc;
    if (!doc || !ops || (!seq && !one)) {
        cJSON_Delete(doc);
        cJSON_Delete(ops);
        cJSON_Delete(one);
        return "out of memory";
    }
    if (one)
        cJSON_AddItemToArray(ops, one);
    cJSON_AddNumberToObject(doc, "schema_version", 1);
    cJSON_AddStringToObject(doc, "name", "measurement");
    cJSON_AddItemToObject(doc, "ops", ops);
    text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    if (!text)
        return "out of memory";
    rc = ridge_oplist_parse(text, strlen(text), "measurement", &w, &err);
    free(text);
    if (rc != RIDGE_OK)
        return "op not understood by ridge";
    it->op = w.ops[0];
    for (size_t i = 1; i < w.n; i++) /* the family and names follow the op of most FLOPs */
        if (ridge_op_flops(&w.ops[i]) > ridge_op_flops(&it->op))
            it->op = w.ops[i];
    if (w.n > 1)
        it->graph = w; /* the sequence; it->op names it */
    else
        ridge_oplist_free(&w);
    return NULL;
}

/* A kernel measurement: its op(s) and how it was timed. Returns a skip reason or NULL. */
static const char *map_kernel(const cJSON *m, const cJSON *cfg, const cJSON *opj, ridge_meas_item *it)
{
    const char *s, *why;
    double v = 0;
    int cold = 0;
    it->type = RIDGE_MEAS_KERNEL;
    if ((why = parse_kernel_ops(opj, cJSON_GetObjectItemCaseSensitive(cfg, "ops"), it)))
        return why;
    if (opt_int(m, "reps", 1, 1e12, &it->reps) < 0) /* 0 (not stated) when not given */
        return "reps: not an integer in [1, 1e12]";
    it->rt = RIDGE_RUNTIME_EAGER;
    OPT_STR(cfg, "config.", "runtime", s);
    if (s && ridge_runtime_parse(s, &it->rt))
        return "unknown runtime";
    /* Host-device copies are modelled from pinned memory (docs/model.md §6); a pageable copy
     * goes through the driver's staging buffer at the host's memcpy rate, which ridge does not
     * have. */
    OPT_STR(cfg, "config.", "host_memory", s);
    if (s && strcmp(s, "pinned") != 0)
        return strcmp(s, "pageable") == 0 ? "pageable host memory is not modelled (config.host_memory)"
                                          : "unknown host_memory (pinned, pageable)";
    OPT_STR(cfg, "config.", "framework", s);
    if (s) {
        if (strcmp(s, "pytorch") != 0)
            return "unknown framework (config.framework)";
        it->framework = 1;
    }
    it->form = RIDGE_MEAS_STEADY;
    OPT_STR(cfg, "config.", "timed", s);
    if (s) {
        /* What time_s is, as the benchmark states it. */
        if (strcmp(s, "round_trip") == 0)
            it->form = RIDGE_MEAS_ROUNDTRIP;
        else if (strcmp(s, "issue") == 0)
            it->form = RIDGE_MEAS_ISSUE;
        else if (strcmp(s, "gpu_time") == 0)
            it->form = RIDGE_MEAS_GPU_TIME;
        /* A CUDA event recorded before and after each call, calls issued back to back. */
        else if (strcmp(s, "per_call_events") == 0)
            it->form = RIDGE_MEAS_PER_CALL_EVENTS;
        else if (strcmp(s, "back_to_back") != 0)
            return "unknown timing form (config.timed)";
    } else {
        /* Files from before config.timed: a synchronize per call, or an _issue id. */
        OPT_STR(cfg, "config.", "sync", s);
        if (s && strcmp(s, "each") == 0)
            it->form = RIDGE_MEAS_ROUNDTRIP;
        if (strlen(it->id) > 6 && strcmp(it->id + strlen(it->id) - 6, "_issue") == 0)
            it->form = RIDGE_MEAS_ISSUE;
    }
    /* A published rate (config.kind "rate"): the value in TFLOPS or GB/s of the op as stated;
     * otherwise time_s.median. */
    OPT_STR(cfg, "config.", "kind", s);
    if (s && strcmp(s, "rate") == 0) {
        const char *unit;
        double value = 0;
        OPT_STR(m, "", "unit", unit);
        if (!unit)
            return "no unit (a rate: TFLOPS or GB/s)";
        if ((why = value_of(m, &value)))
            return why;
        if (strcmp(unit, "TFLOPS") == 0)
            it->kind = RIDGE_MEAS_FLOP_RATE, it->measured = value * 1e12;
        else if (strcmp(unit, "GB/s") == 0)
            it->kind = RIDGE_MEAS_BYTE_RATE, it->measured = value * 1e9;
        else
            return "unknown rate unit (TFLOPS, GB/s)";
    } else if (s && strcmp(s, "latency") != 0)
        return "unknown config.kind";
    else if ((why = median_time_s(m, &it->measured)))
        return why;
    /* 0 when not given: the op's own kernels are the graph */
    if (opt_int(cfg, "graph_nodes", 1, 1e9, &it->graph_nodes) < 0)
        return "config.graph_nodes: not an integer in [1, 1e9]";
    if (opt_bool(cfg, "l2_cold", &cold) < 0)
        return "config.l2_cold: not a boolean";
    if (opt_int(cfg, "rotating_buffer_sets", 1, 1e6, &v) < 0)
        return "config.rotating_buffer_sets: not an integer in [1, 1e6]";
    /* GEMMs rotating through `sets` copies of their operands (about 3x L2 in all): each call
     * finds its operands as the other sets left them, a reuse distance of sets copies. */
    if (v > 1 && !(it->op.cold_bytes > 0) && it->graph.n == 0) {
        double b = ridge_op_min_bytes(&it->op);
        it->op.cold_bytes = b;
        it->op.reuse_bytes = b * v;
    } else if (cold) {
        /* Operands that reach the kernel from DRAM whatever their size (the benchmark evicts
         * them, or the records show DRAM rates): all compulsory bytes cold, never reused in L2. */
        size_t nops = it->graph.n > 1 ? it->graph.n : 1;
        for (size_t i = 0; i < nops; i++) {
            ridge_op *op = it->graph.n > 1 ? &it->graph.ops[i] : &it->op;
            if (!(op->cold_bytes > 0)) {
                op->cold_bytes = ridge_op_min_bytes(op);
                op->reuse_bytes = 1e18;
            }
        }
    }
    snprintf(it->workload, sizeof it->workload, "%s", ridge_op_kind_name(it->op.kind));
    snprintf(it->desc, sizeof it->desc, "%s %s%s", ridge_op_kind_name(it->op.kind), ridge_dtype_name(it->op.dtype),
             it->graph.n > 1 ? " (+ more ops)" : "");
    snprintf(it->unit, sizeof it->unit, "%s",
             it->kind == RIDGE_MEAS_FLOP_RATE ? "FLOP/s" : it->kind == RIDGE_MEAS_BYTE_RATE ? "B/s" : "s");
    snprintf(it->kind_name, sizeof it->kind_name, "kernel");
    family_of(&it->op, it->family, sizeof it->family);
    return NULL;
}

/* The host profile files (config.host paths) a collection has read, by path: each is read once,
 * so that a pipe or a FIFO serves every measurement that names it, and a file that cannot be
 * loaded is tried once and skips each of them with its first error. Built-in ids are not kept
 * (found without a read); beyond MEAS_HOST_FILES paths a file is read per measurement. */
#define MEAS_HOST_FILES 16
typedef struct {
    size_t n;
    struct {
        char *path;
        int status;
        ridge_host_profile hp;
        char msg[RIDGE_ERR_MSG_MAX];
    } e[MEAS_HOST_FILES];
} host_files;

static void host_files_free(host_files *hf)
{
    for (size_t i = 0; i < hf->n; i++)
        free(hf->e[i].path);
    hf->n = 0;
}

/* ridge_host_load through hf (may be NULL: no cache); only paths are kept (a built-in id never
 * looks like one, ridge_file_is_path). */
static int host_load_once(host_files *hf, const char *id_or_path, ridge_host_profile *out, ridge_err *err)
{
    ridge_err e = {{0}};
    size_t i;
    int st;
    if (!hf || !ridge_file_is_path(id_or_path))
        return ridge_host_load(id_or_path, out, err);
    for (i = 0; i < hf->n; i++)
        if (strcmp(hf->e[i].path, id_or_path) == 0) {
            if (hf->e[i].status == RIDGE_OK)
                *out = hf->e[i].hp;
            else if (err)
                ridge_err_set(err, hf->e[i].status, "%s", hf->e[i].msg);
            return hf->e[i].status;
        }
    st = ridge_host_load(id_or_path, out, &e);
    if (err && st != RIDGE_OK)
        *err = e;
    if (hf->n < MEAS_HOST_FILES && (hf->e[hf->n].path = malloc(strlen(id_or_path) + 1))) {
        memcpy(hf->e[hf->n].path, id_or_path, strlen(id_or_path) + 1);
        hf->e[hf->n].status = st;
        if (st == RIDGE_OK)
            hf->e[hf->n].hp = *out;
        snprintf(hf->e[hf->n].msg, sizeof hf->e[hf->n].msg, "%s", e.msg);
        hf->n++;
    }
    return st;
}

/* The host profile (config.host, else torch-eager; a file through hf) and code style
 * (config.code, else the profile's) of a model measurement. Returns a reason or NULL. */
static const char *model_host(const cJSON *cfg, host_files *hf, ridge_run_config *rc, ridge_meas_item *it,
                              ridge_err *err)
{
    const char *s;
    OPT_STR(cfg, "config.", "host", s);
    if (host_load_once(hf, s ? s : RIDGE_HOST_DEFAULT, &it->host, err) != RIDGE_OK)
        return "host profile not loaded (config.host)";
    OPT_STR(cfg, "config.", "code", s);
    if (s && ridge_code_parse(s, &rc->code))
        return "unknown code style (config.code)";
    ridge_host_apply(&it->host, rc);
    return NULL;
}

/* Build the graphs of a model run; takes ownership of nothing. Returns a reason or NULL. */
static const char *build_model(const ridge_model *model, ridge_run_config rc, ridge_runtime rt, ridge_meas_item *it,
                               ridge_err *err)
{
    it->rt = (ridge_runtime)ridge_host_runtime_for(&it->host, rc.mode == RIDGE_MODE_DECODE, rt);
    it->decode_rt = (ridge_runtime)ridge_host_runtime_for(&it->host, 1, rt);
    if (ridge_model_build(model, &rc, &it->graph, err) != RIDGE_OK)
        return "model graph could not be built";
    it->items = ridge_model_items_per_step(model, &rc);
    it->prefill = rc.mode == RIDGE_MODE_PREFILL;
    it->inference = rc.mode != RIDGE_MODE_TRAIN;
    if (it->generate) {
        rc.mode = RIDGE_MODE_DECODE;
        if (ridge_model_build(model, &rc, &it->decode, err) != RIDGE_OK)
            return "model graph could not be built";
    }
    return NULL;
}

/* The numeric run-configuration keys of a preset measurement, their ridge_run_config fields,
 * ranges (docs/workloads.md, "Run configuration"; 0 is the run's "default", so a given value is at
 * least 1, a context at least 0) and the reason that skips a measurement outside them. */
#define RUN_INT(key, lo, hi) \
    {#key, offsetof(ridge_run_config, key), lo, hi, "config." #key ": not an integer in [" #lo ", " MEAS_STR(hi) "]"}
static const struct {
    const char *key;
    size_t offset;
    double lo, hi;
    const char *why;
} run_numbers[] = {
    RUN_INT(batch, 1, RIDGE_RUN_BATCH_MAX),        RUN_INT(seq, 1, RIDGE_RUN_TOKENS_MAX),
    RUN_INT(image, 1, RIDGE_RUN_IMAGE_MAX),        RUN_INT(prompt, 1, RIDGE_RUN_TOKENS_MAX),
    RUN_INT(context, 0, RIDGE_RUN_TOKENS_MAX),     RUN_INT(grad_accum, 1, RIDGE_RUN_GRAD_ACCUM_MAX),
    RUN_INT(mlm_positions, 1, RIDGE_RUN_TOKENS_MAX),
};
#undef RUN_INT

/* The run_numbers keys cfg gives, into rc: NULL, or the reason of the first out of its range. */
static const char *read_run_numbers(const cJSON *cfg, ridge_run_config *rc)
{
    for (size_t k = 0; k < sizeof run_numbers / sizeof run_numbers[0]; k++)
        if (opt_int(cfg, run_numbers[k].key, run_numbers[k].lo, run_numbers[k].hi,
                    (double *)((char *)rc + run_numbers[k].offset)) < 0)
            return run_numbers[k].why;
    return NULL;
}

/* A string key with two values: *on = 1 when it is `yes`, 0 when `no` or not given; -1 for any
 * other value or type. */
static int two_way_key(const cJSON *cfg, const char *key, const char *no, const char *yes, int *on)
{
    const char *s;
    if (opt_str(cfg, key, &s) || (s && strcmp(s, no) != 0 && strcmp(s, yes) != 0))
        return -1;
    *on = s && strcmp(s, yes) == 0;
    return 0;
}

/* The model config.workload names: a preset id, or a ridge model document (docs/workloads.md,
 * "Model files"; an object with schema_version) built by a converter from a record's own
 * hyper-parameters. NULL with *why set when it is neither, and what is wrong in err. */
static ridge_model *workload_model(const cJSON *wl, const char *origin, const char **why, ridge_err *err)
{
    ridge_model *model = NULL;
    if (cJSON_IsString(wl)) {
        if (ridge_model_load_builtin(wl->valuestring, &model, err) != RIDGE_OK)
            *why = "unknown workload preset";
    } else {
        char *text = cJSON_PrintUnformatted(wl);
        int st = text ? ridge_model_parse(text, strlen(text), origin, &model, err) : RIDGE_ENOMEM;
        free(text);
        if (st != RIDGE_OK)
            *why = st == RIDGE_ENOMEM ? "out of memory" : "workload: not a valid ridge model document";
    }
    return model;
}

/* config.workload a model document rather than a torch hyper-parameter object (map_torch). */
static int is_model_document(const cJSON *wl)
{
    return cJSON_IsObject(wl) && cJSON_GetObjectItemCaseSensitive(wl, "schema_version") &&
           cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(wl, "arch"));
}

/* config.kind is `kind`: "serving" (an offline serving benchmark, map_serving) or "queue" (a
 * serving queue at a request rate, map_queue). */
static int kind_is(const cJSON *cfg, const char *kind)
{
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(cfg, "kind");
    return cJSON_IsString(k) && strcmp(k->valuestring, kind) == 0;
}

/* A generation's config.output (required): NULL, or the reason it is skipped. */
static const char *output_tokens(const cJSON *cfg, ridge_meas_item *it)
{
    int st = opt_int(cfg, "output", 1, RIDGE_RUN_TOKENS_MAX, &it->output);
    if (st < 0)
        return "config.output: not an integer in [1, " MEAS_STR(RIDGE_RUN_TOKENS_MAX) "]";
    return st == 0 ? "generation without output tokens (config.output)" : NULL;
}

/* A model measurement with a preset id or a model document (config.workload; published figures,
 * converted whole-model records). */
static const char *map_model(const cJSON *m, const cJSON *cfg, host_files *hf, const cJSON *wl_item,
                             ridge_meas_item *it, ridge_err *err)
{
    ridge_run_config rc;
    ridge_model *model = NULL;
    const char *kind, *mode, *s, *why = NULL, *wl;
    ridge_run_config_init(&rc);
    it->type = RIDGE_MEAS_MODEL;
    it->rt = RIDGE_RUNTIME_EAGER;
    OPT_STR(cfg, "config.", "kind", kind);
    OPT_STR(cfg, "config.", "mode", mode);
    if (mode && strcmp(mode, "generate") == 0) {
        it->generate = 1;
        rc.mode = RIDGE_MODE_PREFILL;
    } else if (mode && ridge_mode_parse(mode, &rc.mode))
        return "unknown mode";
    if (!kind) /* measured files: time_s is the step time; a generation's figure is its value */
        kind = it->generate ? "generation" : "latency";
    if (strcmp(kind, "generation") == 0 && !it->generate)
        return "generation needs mode generate";
    /* A prefill and a decode step are one figure only as output tokens/s: a latency or a
     * throughput of mode generate would be predicted from its prefill alone. */
    if (it->generate && strcmp(kind, "generation") != 0)
        return "a generation is config.kind generation";
    OPT_STR(cfg, "config.", "precision", s);
    if (s && ridge_dtype_parse(s, &rc.precision))
        return "unknown precision";
    OPT_STR(cfg, "config.", "runtime", s);
    if (s && ridge_runtime_parse(s, &it->rt))
        return "unknown runtime";
    if (two_way_key(cfg, "layout", "nhwc", "nchw", &rc.nchw))
        return "unknown layout";
    if (two_way_key(cfg, "attention", "flash", "unfused", &rc.unfused_attention))
        return "unknown attention";
    if (opt_bool(cfg, "amp", &rc.amp) < 0)
        return "config.amp: not a boolean";
    if (two_way_key(cfg, "fusion", "eager", "engine", &rc.engine))
        return "unknown fusion";
    if (two_way_key(cfg, "bn_fusion", "separate", "fused", &rc.bn_fused))
        return "unknown bn_fusion";
    OPT_STR(cfg, "config.", "optimizer", s);
    if (s && ridge_optimizer_parse(s, &rc.optimizer))
        return "unknown optimizer";
    OPT_STR(cfg, "config.", "optimizer_impl", s);
    if (s) {
        ridge_optimizer_impl impl;
        if (ridge_optimizer_impl_parse(s, &impl))
            return "unknown optimizer_impl";
        rc.optimizer_impl = impl;
    }
    if ((why = read_run_numbers(cfg, &rc)))
        return why;
    if (it->generate && (why = output_tokens(cfg, it)))
        return why;
    OPT_STR(cfg, "config.", "timed", s);
    if (s && strcmp(s, "back_to_back") == 0) {
        /* calls issued back to back between two events: time_s is their mean */
        if (strcmp(kind, "latency") != 0 || it->generate)
            return "config.timed back_to_back: only a latency record's step";
        if (opt_int(cfg, "calls", 1, 1e6, &it->calls) <= 0)
            return "config.calls: a back_to_back record needs an integer in [1, 1e6]";
    } else if (s && strcmp(s, "per_call_events") != 0 && strcmp(s, "host_clock_sync") != 0) {
        /* a model's step is timed one call from an idle stream (events around each, or launch to
         * synchronize on the host clock) or back to back */
        return "unknown timing form (config.timed)";
    }
    if (strcmp(kind, "throughput") == 0) {
        /* value, else rate.items_per_s */
        const cJSON *rate = given(m, "rate");
        it->kind = RIDGE_MEAS_THROUGHPUT;
        if (given(m, "value") || !rate) {
            if ((why = value_of(m, &it->measured)))
                return given(m, "value") ? why : "no value or rate.items_per_s";
        } else {
            const cJSON *r = cJSON_IsObject(rate) ? given(rate, "items_per_s") : NULL;
            if (!cJSON_IsObject(rate))
                return "rate: not an object";
            if (!r)
                return "no value or rate.items_per_s";
            if (!cJSON_IsNumber(r))
                return "rate.items_per_s: not a number";
            it->measured = r->valuedouble;
        }
    } else if (strcmp(kind, "latency") == 0) {
        it->kind = RIDGE_MEAS_LATENCY;
        if ((why = median_time_s(m, &it->measured)))
            return why;
    } else if (it->generate) {
        it->kind = RIDGE_MEAS_GENERATION;
        if ((why = value_of(m, &it->measured)))
            return why;
    } else
        return "unknown config.kind";
    if ((why = model_host(cfg, hf, &rc, it, err)))
        return why;
    if (!(model = workload_model(wl_item, "config.workload", &why, err)))
        return why;
    wl = cJSON_IsString(wl_item) ? wl_item->valuestring : ridge_model_name(model);
    it->batch = rc.batch;
    why = build_model(model, rc, it->rt, it, err);
    if (!why) {
        snprintf(it->unit, sizeof it->unit, "%s",
                 it->kind == RIDGE_MEAS_LATENCY      ? "s"
                 : it->kind == RIDGE_MEAS_GENERATION ? "output tokens/s"
                                               : ridge_model_throughput_unit(model, &rc));
    }
    snprintf(it->workload, sizeof it->workload, "%s", wl);
    ridge_model_free(model);
    if (why)
        return why;
    snprintf(it->kind_name, sizeof it->kind_name, "%s", kind);
    snprintf(it->family, sizeof it->family, "model");
    {
        char accum[24] = "";
        if (rc.grad_accum > 1) /* micro-batch x micro-batches per step */
            snprintf(accum, sizeof accum, "x%g", rc.grad_accum);
        snprintf(it->desc, sizeof it->desc, "%s %s b%g%s %s", it->workload, mode ? mode : ridge_mode_name(rc.mode), rc.batch,
                 accum, ridge_dtype_name(rc.precision));
    }
    return NULL;
}

/* The integer config.parallel.KEY in [lo, hi], or def when absent; -1 when present and not such
 * an integer. */
static int par_int(const cJSON *par, const char *key, int lo, int hi, int def)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(par, key);
    if (!v || cJSON_IsNull(v)) /* null: not given, as everywhere in a measurement */
        return def;
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo || v->valuedouble > hi)
        return -1;
    return (int)v->valuedouble;
}

/* A multi-GPU run (config.cluster): the cluster and node count, config.parallel with the layout
 * and schedule (docs/validation.md, "Multi-GPU runs"), config.workload a preset id or a ridge model
 * document; a training or inference step (time_s.median), or a generation (value, output tokens/s
 * per replica or per GPU). What is wrong goes into err as well as the reason returned. */
static const char *map_parallel(const cJSON *m, const cJSON *cfg, host_files *hf, ridge_meas_item *it, ridge_err *err)
{
    const cJSON *par = cJSON_GetObjectItemCaseSensitive(cfg, "parallel");
    const cJSON *wl = cJSON_GetObjectItemCaseSensitive(cfg, "workload");
    const char *cid, *s;
    ridge_parallel_config *pc = &it->par;
    ridge_run_config *rc = &it->par_run;
    double nodes = num_of(cfg, "nodes");
    int k;
    /* The keys a cluster record takes (docs/validation.md, "Multi-GPU runs"): any other one is
     * refused, never ignored (a single-GPU key such as batch or amp means nothing here). */
    static const char *const keys[] = {"gpu",       "cluster", "nodes",  "parallel", "workload", "mode",
                                       "seq",       "prompt",  "context", "output",  "per_gpu",  "kind",
                                       "precision", "recompute", "attention", "code", "optimizer", "host",
                                       "runtime",   "source",  "assumed", NULL};
    ridge_runtime base_rt = RIDGE_RUNTIME_EAGER;
    rj_ctx kc = {"measurement", err};
    it->type = RIDGE_MEAS_MODEL;
    it->kind = RIDGE_MEAS_LATENCY;
    it->rt = RIDGE_RUNTIME_EAGER;
    ridge_run_config_init(rc);
    ridge_parallel_config_init(pc);
    if (rj_check_keys(cfg, "$.config", keys, &kc) != RIDGE_OK)
        return "a key a multi-GPU record does not take";
    OPT_STR(cfg, "config.", "runtime", s);
    if (s && ridge_runtime_parse(s, &base_rt))
        return "unknown runtime";
    if (!cJSON_IsObject(par))
        return "multi-GPU run without config.parallel";
    if (!(isfinite(nodes) && nodes >= 1 && nodes <= 100000 && nodes == floor(nodes)))
        return "multi-GPU run without integer config.nodes";
    {
#define PAR_INT(key, lo, hi) {#key, lo, hi, offsetof(ridge_parallel_config, key), \
                             "config.parallel." #key ": not an integer in [" #lo ", " #hi "]"}
        static const struct {
            const char *key;
            int lo, hi;
            size_t off;
            const char *why;
        } ints[] = {
            PAR_INT(tp, 1, 1024),        PAR_INT(pp, 1, 4096),       PAR_INT(dp, 1, 1000000),
            PAR_INT(ep, 1, 1000000),     PAR_INT(zero, 0, 3),        PAR_INT(virtual_stages, 1, 64),
            PAR_INT(fsdp_group, 0, 1000000), PAR_INT(prefetch, 0, 64),
        };
#undef PAR_INT
        for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
            int *f = (int *)((char *)pc + ints[i].off);
            if ((k = par_int(par, ints[i].key, ints[i].lo, ints[i].hi, *f)) < 0)
                return ints[i].why;
            *f = k;
        }
    }
    /* the batches: required, and within ridge predict --cluster's bounds */
    if (!given(par, "microbatch") || !given(par, "global_batch"))
        return "config.parallel without microbatch and global_batch";
    pc->microbatch = num_of(par, "microbatch");
    pc->global_batch = num_of(par, "global_batch");
    if (!(pc->microbatch >= 1 && pc->microbatch <= 1e7))
        return "config.parallel.microbatch: not a number in [1, 1e7]";
    if (!(pc->global_batch >= 1 && pc->global_batch <= 1e9))
        return "config.parallel.global_batch: not a number in [1, 1e9]";
    OPT_STR(par, "config.parallel.", "schedule", s);
    if (s && ridge_pp_schedule_parse(s, &pc->schedule))
        return "unknown config.parallel.schedule";
    OPT_STR(par, "config.parallel.", "fsdp", s);
    if (s && ridge_fsdp_mode_parse(s, &pc->fsdp))
        return "unknown config.parallel.fsdp";
    if (two_way_key(par, "dp_overlap", "buckets", "none", &k))
        return "unknown config.parallel.dp_overlap";
    pc->dp_overlap = !k;
    if (two_way_key(par, "grad_reduce", "param", "fp32", &pc->grad_reduce_fp32))
        return "unknown config.parallel.grad_reduce";
    if (opt_bool(par, "sequence_parallel", &pc->sequence_parallel) < 0)
        return "config.parallel.sequence_parallel: not a boolean";
    OPT_STR(cfg, "config.", "mode", s);
    if (s && strcmp(s, "generate") == 0) { /* prefill, then output x decode (map_model's rule) */
        it->generate = 1;
        rc->mode = RIDGE_MODE_PREFILL;
    } else if (s && ridge_mode_parse(s, &rc->mode))
        return "unknown mode";
    OPT_STR(cfg, "config.", "precision", s);
    if (s && ridge_dtype_parse(s, &rc->precision))
        return "unknown precision";
    OPT_STR(cfg, "config.", "recompute", s);
    if (s && ridge_recompute_parse(s, &rc->recompute))
        return "unknown recompute";
    if (two_way_key(cfg, "attention", "flash", "unfused", &rc->unfused_attention))
        return "unknown attention";
    OPT_STR(cfg, "config.", "code", s);
    if (s && ridge_code_parse(s, &rc->code))
        return "unknown code style (config.code)";
    OPT_STR(cfg, "config.", "optimizer", s);
    if (s && ridge_optimizer_parse(s, &rc->optimizer))
        return "unknown optimizer";
    if (opt_int(cfg, "seq", 1, RIDGE_RUN_TOKENS_MAX, &rc->seq) < 0)
        return "config.seq: not an integer in [1, " MEAS_STR(RIDGE_RUN_TOKENS_MAX) "]";
    if (opt_int(cfg, "prompt", 1, RIDGE_RUN_TOKENS_MAX, &rc->prompt) < 0)
        return "config.prompt: not an integer in [1, " MEAS_STR(RIDGE_RUN_TOKENS_MAX) "]";
    if (opt_int(cfg, "context", 0, RIDGE_RUN_TOKENS_MAX, &rc->context) < 0)
        return "config.context: not an integer in [0, " MEAS_STR(RIDGE_RUN_TOKENS_MAX) "]";
    if (opt_bool(cfg, "per_gpu", &it->per_gpu) < 0)
        return "config.per_gpu: not a boolean";
    {
        /* The host profile gives the code style and the runtimes (an engine's decode graphs); the
         * cluster model schedules with the GPU's own host figures (docs/validation.md). */
        const char *why = it->generate           ? output_tokens(cfg, it)
                          : given(cfg, "output") ? "config.output: only for mode generate"
                                                 : NULL;
        if (!why)
            why = model_host(cfg, hf, rc, it, err);
        if (why)
            return why;
        it->rt = (ridge_runtime)ridge_host_runtime_for(&it->host, rc->mode == RIDGE_MODE_DECODE, base_rt);
        it->decode_rt = (ridge_runtime)ridge_host_runtime_for(&it->host, 1, base_rt);
        it->par_decode = *rc;
        it->par_decode.mode = RIDGE_MODE_DECODE;
    }
    OPT_STR(cfg, "config.", "cluster", cid);
    if (!cid || !(it->par_cluster = malloc(sizeof *it->par_cluster)))
        return cid ? "out of memory" : "no config.cluster";
    if (ridge_cluster_load(cid, (int)nodes, it->par_cluster, err) != RIDGE_OK)
        return "cluster not found (config.cluster)";
    {
        const char *why = NULL;
        if (!(it->par_model = workload_model(wl, "config.workload", &why, err)))
            return why;
    }
    {
        const char *kind, *why;
        OPT_STR(cfg, "config.", "kind", kind);
        if (!kind)
            kind = it->generate ? "generation" : "latency";
        if (strcmp(kind, it->generate ? "generation" : "latency") != 0)
            return it->generate ? "a multi-GPU generation is config.kind generation"
                                : "a multi-GPU step is config.kind latency (or mode generate)";
        it->kind = it->generate ? RIDGE_MEAS_GENERATION : RIDGE_MEAS_LATENCY;
        why = it->generate ? value_of(m, &it->measured) : median_time_s(m, &it->measured);
        if (why)
            return why;
        snprintf(it->kind_name, sizeof it->kind_name, "%s", kind);
    }
    it->batch = pc->global_batch;
    snprintf(it->workload, sizeof it->workload, "%s", ridge_model_name(it->par_model));
    snprintf(it->unit, sizeof it->unit, "%s",
             !it->generate ? "s" : it->per_gpu ? "output tokens/s/GPU" : "output tokens/s");
    snprintf(it->family, sizeof it->family, "multi-gpu");
    {
        /* "WORKLOAD [MODE] N GPUs tpT ppP dpD bB [inI outO]": a training step names no mode */
        char mode[24] = "", io[48] = "";
        if (it->generate) {
            snprintf(mode, sizeof mode, " generate");
            snprintf(io, sizeof io, " in%.0f out%.0f", rc->prompt, it->output);
        } else if (rc->mode != RIDGE_MODE_TRAIN)
            snprintf(mode, sizeof mode, " %s", ridge_mode_name(rc->mode));
        snprintf(it->desc, sizeof it->desc, "%.*s%s %d GPUs tp%d pp%d dp%d b%g%s", mode[0] ? 24 : 47, it->workload,
                 mode, pc->tp * pc->pp * pc->dp, pc->tp, pc->pp, pc->dp, pc->global_batch, io);
    }
    return NULL;
}

/* The most requests an offline serving record may queue (config.requests; the simulation budget
 * of ridge serve, RIDGE_SERVE_MAX_SIM_TOKENS, bounds requests x output as well). */
#define MEAS_SERVE_MAX_REQUESTS 1000000

/* An offline serving benchmark (config.kind "serving"): config.requests requests of config.prompt
 * + config.output tokens queued at 0 s on one replica of config.tp GPUs (of one node of
 * config.cluster, or the GPU alone), continuous batching of at most config.max_batch running
 * requests (ridge serve --offline; docs/validation.md, "Serving benchmarks"); value is the
 * replica's output tokens/s. */
static const char *map_serving(const cJSON *m, const cJSON *cfg, host_files *hf, ridge_meas_item *it, ridge_err *err)
{
    static const char *const keys[] = {"gpu",    "workload", "kind", "precision", "host",    "code",
                                       "prompt", "output",   "requests", "max_batch", "max_tokens", "cluster",
                                       "nodes",  "tp",       "source",   "assumed", NULL};
    const cJSON *wl = cJSON_GetObjectItemCaseSensitive(cfg, "workload");
    ridge_run_config *rc = &it->par_run;
    rj_ctx kc = {"measurement", err};
    double v = 0, nodes = 1;
    const char *s, *cid, *why = NULL;
    int k;
    it->type = RIDGE_MEAS_MODEL;
    it->kind = RIDGE_MEAS_THROUGHPUT;
    it->serving = 1;
    ridge_run_config_init(rc);
    ridge_parallel_config_init(&it->par);
    if (rj_check_keys(cfg, "$.config", keys, &kc) != RIDGE_OK)
        return "a key a serving record does not take";
    OPT_STR(cfg, "config.", "precision", s);
    if (s && ridge_dtype_parse(s, &rc->precision))
        return "unknown precision";
    /* prompt, output, requests and max_batch are required: the run is not defined without them */
    if ((k = opt_int(cfg, "prompt", 1, RIDGE_RUN_TOKENS_MAX, &rc->prompt)) <= 0)
        return k ? "config.prompt: not an integer in [1, " MEAS_STR(RIDGE_RUN_TOKENS_MAX) "]"
                 : "serving record without config.prompt";
    if ((why = output_tokens(cfg, it)))
        return why;
    if ((k = opt_int(cfg, "requests", 1, MEAS_SERVE_MAX_REQUESTS, &it->requests)) <= 0)
        return k ? "config.requests: not an integer in [1, " MEAS_STR(MEAS_SERVE_MAX_REQUESTS) "]"
                 : "serving record without config.requests";
    if (it->requests * it->output > RIDGE_SERVE_MAX_SIM_TOKENS)
        return "config.requests x config.output: more output tokens than one simulation takes (2e8)";
    if ((k = opt_int(cfg, "max_batch", 1, RIDGE_SERVE_MAX_BATCH, &v)) <= 0)
        return k ? "config.max_batch: not an integer in [1, " MEAS_STR(RIDGE_SERVE_MAX_BATCH) "]"
                 : "serving record without config.max_batch";
    it->max_batch = (int)v;
    if (opt_int(cfg, "max_tokens", it->max_batch, 1e8, &it->max_tokens) < 0)
        return "config.max_tokens: not an integer from config.max_batch to 1e8";
    if (it->requests * ridge_serve_sim_steps(rc->prompt, it->output, it->max_tokens) > RIDGE_SERVE_MAX_SIM_TOKENS)
        return "config.requests x (config.output + prompt chunks): more steps than one simulation takes (2e8)";
    v = 1;
    if (opt_int(cfg, "tp", 1, 1024, &v) < 0)
        return "config.tp: not an integer in [1, 1024]";
    it->par.tp = (int)v;
    if (opt_int(cfg, "nodes", 1, 100000, &nodes) < 0)
        return "config.nodes: not an integer in [1, 100000]";
    if ((why = model_host(cfg, hf, rc, it, err)))
        return why;
    OPT_STR(cfg, "config.", "cluster", cid);
    if (cid) {
        ridge_cluster whole;
        if (!(it->par_cluster = malloc(sizeof *it->par_cluster)))
            return "out of memory";
        if (ridge_cluster_load(cid, (int)nodes, &whole, err) != RIDGE_OK)
            return "cluster not found (config.cluster)";
        if (whole.gpus_per_node % it->par.tp != 0)
            return "config.tp: does not divide the cluster's GPUs per node";
        ridge_serve_replica_cluster(&whole, it->par.tp, it->par_cluster); /* ridge serve --cluster's replica */
    } else if (it->par.tp > 1)
        return "config.tp above 1 needs config.cluster";
    if (!(it->par_model = workload_model(wl, "config.workload", &why, err)))
        return why;
    if ((why = value_of(m, &it->measured)))
        return why;
    it->batch = it->max_batch;
    snprintf(it->kind_name, sizeof it->kind_name, "serving");
    snprintf(it->workload, sizeof it->workload, "%s", ridge_model_name(it->par_model));
    snprintf(it->unit, sizeof it->unit, "output tokens/s");
    snprintf(it->family, sizeof it->family, "serving");
    snprintf(it->desc, sizeof it->desc, "%.40s serve tp%d in%.0f out%.0f n%.0f %s", it->workload, it->par.tp,
             rc->prompt, it->output, it->requests, ridge_dtype_name(rc->precision));
    return NULL;
}

/* The most requests per second a serving-queue record may name (config.rate_per_s). */
#define MEAS_QUEUE_MAX_RATE 1e9

/* A serving queue (config.kind "queue"): Poisson arrivals at config.rate_per_s into one replica
 * that takes up to config.max_batch waiting requests per batch, waiting at most
 * config.batch_timeout_ms (default 0: what is queued) for a batch to fill, each batch one pass of
 * the model's run (config.mode infer by default) under the host profile; time_s.median is the
 * request latency's config.statistic (mean, p50, p90 or p99), in seconds (ridge serve --rate
 * --max-batch; docs/validation.md, "Serving queues"). */
static const char *map_queue(const cJSON *m, const cJSON *cfg, host_files *hf, ridge_meas_item *it, ridge_err *err)
{
    static const char *const keys[] = {"gpu",       "workload", "kind",     "mode",   "precision",      "layout",
                                       "image",     "seq",      "prompt",   "context", "code", "host",     "timed",
                                       "runtime",   "rate_per_s", "max_batch", "batch_timeout_ms", "statistic",
                                       "requests",  "duration_s", "source", "assumed", NULL};
    static const char *const stats[] = {"mean", "p50", "p90", "p99"};
    const cJSON *wl = cJSON_GetObjectItemCaseSensitive(cfg, "workload"), *v;
    ridge_run_config *rc = &it->par_run;
    rj_ctx kc = {"measurement", err};
    double x = 0;
    const char *s, *why = NULL;
    int k;
    it->type = RIDGE_MEAS_MODEL;
    it->kind = RIDGE_MEAS_LATENCY;
    it->queue = 1;
    ridge_run_config_init(rc);
    rc->mode = RIDGE_MODE_INFER;
    if (rj_check_keys(cfg, "$.config", keys, &kc) != RIDGE_OK)
        return "a key a queue record does not take";
    OPT_STR(cfg, "config.", "mode", s);
    if (s && (ridge_mode_parse(s, &rc->mode) || rc->mode == RIDGE_MODE_TRAIN))
        return "config.mode: not infer, prefill or decode";
    OPT_STR(cfg, "config.", "precision", s);
    if (s && ridge_dtype_parse(s, &rc->precision))
        return "unknown precision";
    OPT_STR(cfg, "config.", "runtime", s);
    if (s && strcmp(s, "eager") != 0)
        return "config.runtime: a queue record runs its host profile's runtime (eager)";
    if (two_way_key(cfg, "layout", "nhwc", "nchw", &rc->nchw))
        return "unknown layout";
    /* (batch, grad_accum and mlm_positions are not among its keys: the check above refused them) */
    if ((why = read_run_numbers(cfg, rc)))
        return why;
    if (!(v = given(cfg, "rate_per_s")))
        return "queue record without config.rate_per_s";
    if (!cJSON_IsNumber(v) || !(v->valuedouble > 0 && v->valuedouble <= MEAS_QUEUE_MAX_RATE))
        return "config.rate_per_s: not a number in (0, 1e9]";
    it->rate_per_s = v->valuedouble;
    if ((k = opt_int(cfg, "max_batch", 1, RIDGE_SERVE_MAX_BATCH, &x)) <= 0)
        return k ? "config.max_batch: not an integer in [1, " MEAS_STR(RIDGE_SERVE_MAX_BATCH) "]"
                 : "queue record without config.max_batch";
    it->max_batch = (int)x;
    if ((v = given(cfg, "batch_timeout_ms"))) {
        if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 1e6))
            return "config.batch_timeout_ms: not a number in [0, 1e6]";
        it->timeout_s = v->valuedouble / 1e3;
    }
    OPT_STR(cfg, "config.", "statistic", s);
    if (!s)
        return "queue record without config.statistic";
    for (k = 0; k < 4 && strcmp(s, stats[k]) != 0; k++)
        ;
    if (k == 4)
        return "config.statistic: not mean, p50, p90 or p99";
    it->statistic = (ridge_meas_queue_stat)k;
    if (opt_int(cfg, "requests", 1, 1e12, &x) < 0)
        return "config.requests: not an integer in [1, 1e12]";
    if ((v = given(cfg, "duration_s")) && !(cJSON_IsNumber(v) && v->valuedouble > 0))
        return "config.duration_s: not a positive number";
    if ((why = median_time_s(m, &it->measured)))
        return why;
    if ((why = model_host(cfg, hf, rc, it, err)))
        return why;
    if (!(it->par_model = workload_model(wl, "config.workload", &why, err)))
        return why;
    rc->batch = 1;
    it->batch = it->max_batch;
    snprintf(it->kind_name, sizeof it->kind_name, "queue");
    snprintf(it->workload, sizeof it->workload, "%s", ridge_model_name(it->par_model));
    snprintf(it->unit, sizeof it->unit, "s");
    snprintf(it->family, sizeof it->family, "queue");
    snprintf(it->desc, sizeof it->desc, "%.40s queue %s %.4g/s max%d %s", it->workload, stats[it->statistic],
             it->rate_per_s, it->max_batch, ridge_dtype_name(rc->precision));
    return NULL;
}

static const char *failed(int st, const char *otherwise);

/* What a record's serving context holds whatever it simulates: the model and run of the item on
 * GPU g, priced by ridge_serve_replica_step on rp (a replica of `gpus` GPUs), one replica of at
 * most it->max_batch, seed 1. */
static void serve_init(ridge_serve *s, const ridge_meas_item *it, const ridge_gpu *g, ridge_serve_replica *rp,
                       int gpus)
{
    s->g = g;
    s->m = it->par_model;
    s->run = it->par_run;
    s->step = ridge_serve_replica_step;
    s->step_ctx = rp;
    s->gpus_per_replica = gpus;
    s->max_batch = it->max_batch;
    s->replicas = s->max_replicas = 1;
    s->seed = 1;
}

/* A serving queue's prediction on GPU g: ridge serve --rate R --max-batch B with one replica, the
 * dynamic-batching simulation (seed 1, 100,000 requests, as the CLI). An unstable queue (the rate
 * at or above what the replica serves) has no latency to compare: the record is skipped, never
 * given a finite guess. */
static const char *predict_queue(const ridge_meas_item *it, const ridge_gpu *g, double *pred, ridge_err *err)
{
    ridge_serve *s = calloc(1, sizeof *s);
    ridge_serve_replica rp = {g, NULL, 1, it->par_model, &it->host, 0};
    ridge_queue_result r;
    int st;
    if (!s)
        return "out of memory";
    serve_init(s, it, g, &rp, 1);
    s->timeout_s = it->timeout_s;
    s->customers = 100000;
    st = ridge_serve_prepare(s, err);
    if (st == RIDGE_OK)
        st = ridge_serve_eval(s, it->rate_per_s, 1, &r, err);
    free(s);
    if (st != RIDGE_OK)
        return st == RIDGE_EINVAL ? "queue simulation failed" : failed(st, "model prediction failed");
    if (!r.stable)
        return "the queue is unstable at config.rate_per_s (ridge's replica serves fewer)";
    switch (it->statistic) {
    case RIDGE_MEAS_Q_P50: *pred = r.p50_s; break;
    case RIDGE_MEAS_Q_P90: *pred = r.p90_s; break;
    case RIDGE_MEAS_Q_P99: *pred = r.p99_s; break;
    default: *pred = r.mean_latency_s; break;
    }
    return isfinite(*pred) && *pred > 0 ? NULL : "no positive prediction";
}

/* A serving record's prediction on GPU g: ridge serve --offline with one replica. */
static const char *predict_serving(const ridge_meas_item *it, const ridge_gpu *g, double *pred, ridge_err *err)
{
    ridge_serve *s = calloc(1, sizeof *s);
    ridge_cluster *cl = NULL;
    ridge_serve_replica rp = {g, NULL, it->par.tp, it->par_model, &it->host, 1}; /* offline: sustained */
    ridge_llm_result r;
    int st;
    if (!s)
        return "out of memory";
    if (it->par_cluster) {
        if (!(cl = malloc(sizeof *cl))) {
            free(s);
            return "out of memory";
        }
        *cl = *it->par_cluster;
        cl->gpu = *g; /* the GPU being predicted (a calibrated copy included) */
        rp.cl = cl;
        s->tensor_parallel = 1;
    }
    serve_init(s, it, g, &rp, it->par.tp);
    s->llm = s->continuous = s->offline = 1;
    s->output = it->output;
    s->max_tokens = it->max_tokens;
    s->requests = (size_t)it->requests;
    s->kv_fraction = ridge_host_kv_fraction(&it->host);
    st = ridge_serve_prepare(s, err);
    if (st == RIDGE_OK)
        st = ridge_serve_llm_eval(s, 0, 1, &r, err);
    free(cl);
    free(s);
    if (st != RIDGE_OK)
        return st == RIDGE_EINVAL ? "serving simulation failed" : failed(st, "model prediction failed");
    *pred = r.output_tokens_per_s;
    return isfinite(*pred) && *pred > 0 ? NULL : "no positive prediction";
}

/* A PyTorch end-to-end measurement (config.workload holds hyper-parameters): the model that
 * ran, through ridge_torch_map_config; time_s is the step time. */
static const char *map_torch(const cJSON *m, const cJSON *cfg, host_files *hf, ridge_meas_item *it)
{
    ridge_model *model = NULL;
    ridge_run_config rc;
    const char *why;
    ridge_run_config_init(&rc);
    it->type = RIDGE_MEAS_MODEL;
    it->kind = RIDGE_MEAS_LATENCY;
    it->rt = RIDGE_RUNTIME_EAGER;
    why = ridge_torch_map_config(cfg, &model, &rc, &it->rt);
    if (!why && (why = model_host(cfg, hf, &rc, it, NULL)))
        ridge_model_free(model);
    if (!why && (why = median_time_s(m, &it->measured)))
        ridge_model_free(model);
    if (why)
        return why;
    it->batch = rc.batch;
    why = build_model(model, rc, it->rt, it, NULL);
    if (!why) {
        const cJSON *wl = cJSON_GetObjectItemCaseSensitive(cfg, "workload");
        const char *name = rj_str_or_null(wl, "name");
        snprintf(it->workload, sizeof it->workload, "%s", name ? name : ridge_model_name(model));
        snprintf(it->unit, sizeof it->unit, "s");
        snprintf(it->kind_name, sizeof it->kind_name, "latency");
        snprintf(it->family, sizeof it->family, "model");
        snprintf(it->desc, sizeof it->desc, "%s %s b%g %s %s", it->workload, ridge_mode_name(rc.mode), rc.batch,
                 ridge_dtype_name(rc.precision), ridge_runtime_name(it->rt));
    }
    ridge_model_free(model);
    return why;
}

/* Progress of a collection over several documents: the callback every RIDGE_PROGRESS_EVERY. */
typedef struct {
    ridge_progress_fn fn;
    void *arg;
    size_t done, total, next;
} meas_tick;

static void tick_step(meas_tick *t)
{
    if (t && t->fn && ++t->done >= t->next) {
        t->fn(t->arg, t->done, t->total);
        t->next = t->done + RIDGE_PROGRESS_EVERY;
    }
}

static void collect_doc(const ridge_meas_doc *doc, const char *gpu_opt, const ridge_gpu *gpu_file,
                        ridge_meas_set *s, host_files *hf, meas_tick *tick);

void ridge_meas_collect(const ridge_meas_doc *doc, const char *gpu_opt, const ridge_gpu *gpu_file, ridge_meas_set *s)
{
    host_files hf = {0};
    collect_doc(doc, gpu_opt, gpu_file, s, &hf, NULL);
    host_files_free(&hf);
}

static void collect_doc(const ridge_meas_doc *doc, const char *gpu_opt, const ridge_gpu *gpu_file,
                        ridge_meas_set *s, host_files *hf, meas_tick *tick)
{
    const cJSON *root = doc->root;
    const cJSON *prov = cJSON_GetObjectItemCaseSensitive(root, "provenance");
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "measurements"), *m;
    const char *prov_gpu, *name = cJSON_IsObject(prov) ? rj_str_or_null(prov, "gpu_name") : NULL;
    char prov_id[128];
    int file_for_all = 0;
    if (gpu_file) {
        ridge_gpu probe;
        file_for_all = ridge_catalog_load(gpu_file->id, &probe, NULL) != RIDGE_OK;
    }
    /* The driver's name of the GPU (provenance.gpu_name) maps to the catalogue part whose file
     * lists it in `device_names` (docs/gpu-schema.md), a MIG instance's to that part's slice. */
    prov_gpu = ridge_catalog_device_id(name, prov_id, sizeof prov_id) ? prov_id : NULL;
    cJSON_ArrayForEach(m, arr)
    {
        const cJSON *cfg, *op, *wl, *ck;
        const char *id = NULL, *group, *gid, *why = NULL, *st, *cgpu;
        int checked = 0;
        ridge_gpu g;
        ridge_err err = {{0}}, detail = {{0}}; /* detail: what a failed mapping or prediction says */
        ridge_meas_item it;
        memset(&it, 0, sizeof it);
        tick_step(tick);
        /* The fields every measurement has (docs/validation.md, "A measurement"). */
        cfg = cJSON_GetObjectItemCaseSensitive(m, "config");
        if (!cJSON_IsObject(m))
            why = "measurement: not an object";
        else if (opt_str(m, "id", &id))
            why = "id: not a string";
        else if (!id)
            why = "no id";
        else if (opt_str(m, "group", &group))
            why = "group: not a string";
        else if (!group)
            why = "no group";
        else if (!given(m, "config"))
            why = "no config";
        else if (!cJSON_IsObject(cfg))
            why = "config: not an object";
        else if (opt_bool(m, "checked", &checked) < 0)
            why = "checked: not a boolean";
        else if ((ck = given(m, "check")) && !cJSON_IsObject(ck))
            why = "check: not an object";
        else if (opt_str(ck, "status", &st))
            why = "check.status: not a string";
        else if (opt_str(cfg, "gpu", &cgpu))
            why = "config.gpu: not a string";
        else if (strlen(id) >= sizeof it.id) /* two long ids must not become one */
            why = "id: longer than " MEAS_STR(RIDGE_MEAS_ID_MAX) " bytes";
        else {
            /* names and strings go into reports and JSON output: UTF-8 only */
            rj_ctx u = {"measurement", &detail};
            if (rj_check_utf8(m, "$", &u) != RIDGE_OK)
                why = "not valid UTF-8";
        }
        if (why) {
            ridge_meas_skip_detail(s, why, id && rj_utf8_valid(id) && strlen(id) < sizeof it.id ? id : NULL,
                                   detail.msg);
            continue;
        }
        op = cJSON_GetObjectItemCaseSensitive(cfg, "op");
        wl = cJSON_GetObjectItemCaseSensitive(cfg, "workload");
        if (!cJSON_IsObject(op) && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(cfg, "ops")))
            op = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cfg, "ops"), 0);
        if (!cJSON_IsObject(op) && !cJSON_IsString(wl) && !cJSON_IsObject(wl)) {
            ridge_meas_skip(s, "no op or workload in config");
            continue;
        }
        /* A failed check is skipped; nothing to check (empty launches, published figures that
         * nobody ridge knows verified) is taken as measured. */
        if (!checked && !(st && strcmp(st, "none") == 0) && strcmp(group, "published") != 0) {
            ridge_meas_skip(s, "unchecked");
            continue;
        }
        if (file_for_all)
            g = *gpu_file;
        else {
            gid = gpu_opt ? gpu_opt : cgpu ? cgpu : prov_gpu;
            if (!gid) {
                ridge_meas_skip(s, RIDGE_MEAS_SKIP_NO_GPU);
                continue;
            }
            if (ridge_catalog_load(gid, &g, &err) != RIDGE_OK) {
                ridge_meas_skip(s, "GPU not in the catalogue");
                continue;
            }
            if (gpu_file && strcmp(g.id, gpu_file->id) == 0)
                g = *gpu_file;
        }
        snprintf(it.id, sizeof it.id, "%s", id);
        snprintf(it.group, sizeof it.group, "%s", group);
        snprintf(it.gpu, sizeof it.gpu, "%s", g.id);
        detail.msg[0] = 0;
        if (kind_is(cfg, "serving"))
            why = map_serving(m, cfg, hf, &it, &detail);
        else if (kind_is(cfg, "queue"))
            why = map_queue(m, cfg, hf, &it, &detail);
        else if (cJSON_GetObjectItemCaseSensitive(cfg, "cluster"))
            why = map_parallel(m, cfg, hf, &it, &detail);
        else if (cJSON_IsObject(op))
            why = map_kernel(m, cfg, op, &it);
        else if (cJSON_IsString(wl) || is_model_document(wl))
            why = map_model(m, cfg, hf, wl, &it, &detail);
        else
            why = map_torch(m, cfg, hf, &it);
        if (!why && !(isfinite(it.measured) && it.measured > 0))
            why = "no positive measured value";
        if (!why) {
            double p = 0;
            why = ridge_meas_predict_err(&it, &g, &p, &detail); /* one that cannot be predicted is skipped now */
            /* The error is predicted / measured: a value absurdly far from any prediction (a
             * subnormal time, 1e300 tokens/s) would overflow it, the MAPE and log residuals. */
            if (!why && !(p / it.measured < RIDGE_MEAS_MAX_RATIO && it.measured / p < RIDGE_MEAS_MAX_RATIO))
                why = "measured value off the prediction by more than 1e100x";
            it.predicted = p;
        }
        if (why) {
            item_free(&it);
            ridge_meas_skip_detail(s, why, it.id, detail.msg);
            continue;
        }
        /* fixed buffers cut by bytes: never leave half a character */
        rj_utf8_trim(it.group);
        rj_utf8_trim(it.workload);
        rj_utf8_trim(it.desc);
        {
            ridge_meas_item *slot = add_item(s);
            if (!slot) {
                item_free(&it);
                ridge_meas_skip(s, "out of memory");
                continue;
            }
            *slot = it;
        }
    }
}

static double max3(double a, double b, double c)
{
    double x = a > b ? a : b;
    return x > c ? x : c;
}

/* Kernel measurements: the op's GPU time and kernels (each op of config.ops in turn), and the host's
 * cost of issuing them: the launch alone for plain CUDA programs, plus framework_op_s per op
 * instance when PyTorch issued them (config.framework). docs/validation.md. */
static const char *predict_kernel_on(const ridge_meas_item *it, const ridge_gpu *g, double *pred, double *gpu_s,
                                     ridge_err *err);

/* A loop of one GEMM that lasts RIDGE_SUSTAINED_LOAD_S or more (reps x predicted call) runs at the
 * clock the board's power limit sustains (docs/model.md §2): predicted on a copy of g with
 * sustained_load set. Other ops (attention, convolutions, LSTMs) and whole models keep the quoted
 * clocks: one model record ran at the limit (a 2048-token Llama prefill at batch 4) and one with the
 * same tensor duty cycle did not, so nothing ridge predicts tells them apart (docs/model.md §2). */
static const char *predict_kernel(const ridge_meas_item *it, const ridge_gpu *g, double *pred, ridge_err *err)
{
    double gpu;
    const char *why = predict_kernel_on(it, g, pred, &gpu, err);
    if (!why && it->reps > 0 && g->sustained_tensor_clock_hz > 0 && it->graph.n <= 1 && it->op.kind == RIDGE_OP_GEMM &&
        it->rt == RIDGE_RUNTIME_EAGER) {
        if (it->reps * gpu >= RIDGE_SUSTAINED_LOAD_S) {
            ridge_gpu *g2 = malloc(sizeof *g2);
            if (!g2)
                return "out of memory";
            *g2 = *g;
            g2->sustained_load = 1;
            why = predict_kernel_on(it, g2, pred, &gpu, err);
            free(g2);
        }
    }
    return why;
}

/* A PyTorch call's host cost in a loop of the same call, by its dispatch class
 * (ridge_host_class_of), as a multiple of an aten op's (framework_op_s): the hot-loop costs of the
 * H200 host of run a (docs/model.md §7, "Where torch-eager comes from"): aten 3.2 us
 * (h200-2026-11-29/a/add_fp32_2^10/back_to_back), a cuBLAS call 6.8 us (…/a/bf16_128x128x128),
 * SDPA 32.3 us (…/a/sdpa_decode_b1_h32_L4096_d128); a backward node half an aten op, a
 * multi-tensor launch torch-eager's 12 us. */
static const double hot_class_share[RIDGE_HOST_CLASS_COUNT] = {
    [RIDGE_HOST_AUTO] = 1.0,          [RIDGE_HOST_ATEN] = 1.0,     [RIDGE_HOST_LIBRARY] = 6.8 / 3.2,
    [RIDGE_HOST_ATTENTION] = 32.3 / 3.2, [RIDGE_HOST_AUTOGRAD] = 0.5, [RIDGE_HOST_MULTI_TENSOR] = 12.0 / 3.2,
};

static const char *predict_kernel_on(const ridge_meas_item *it, const ridge_gpu *g, double *pred, double *gpu_s,
                                     ridge_err *err)
{
    ridge_kernel_result kr;
    double c = 0, gpu = 0, h, start, gk = 0, fw = 0, work = 0;
    size_t nops = it->graph.n > 1 ? it->graph.n : 1;
    for (size_t i = 0; i < nops; i++) {
        const ridge_op *op = it->graph.n > 1 ? &it->graph.ops[i] : &it->op;
        int rc = ridge_kernel_predict(g, op, &kr, err);
        if (rc != RIDGE_OK)
            return rc == RIDGE_EUNSUPPORTED ? "precision not supported by the GPU" : "kernel prediction failed";
        double t = ridge_kernel_time_in(g, &kr, it->rt);
        c += kr.kernels * op->count; /* kernels in one call */
        gpu += t * op->count;
        if (i == 0)
            gk = kr.kernels > 0 ? t / kr.kernels : t;
        if (it->framework)
            fw += g->eff.framework_op_s * hot_class_share[ridge_host_class_of(op)] * op->count;
        work += (it->kind == RIDGE_MEAS_FLOP_RATE ? ridge_op_flops(op) : ridge_op_min_bytes(op)) * op->count;
    }
    if (it->rt == RIDGE_RUNTIME_GRAPH) {
        /* One graph launch per replay of graph_nodes kernels, then graph_launch_s per node; the
         * framework's dispatch happened at capture. */
        double nodes = it->graph_nodes > 0 ? it->graph_nodes : c;
        h = g->eff.graph_launch_s;
        start = g->eff.host_launch_s * c / nodes;
        fw = 0;
    } else {
        h = g->eff.host_launch_s;
        start = 0;
    }
    switch (it->form) {
    case RIDGE_MEAS_ISSUE: *pred = it->rt == RIDGE_RUNTIME_GRAPH ? start : c * h + fw; break;
    case RIDGE_MEAS_ROUNDTRIP: /* from an idle stream: the two-stage pipeline of docs/model.md */
        *pred = ridge_schedule_finish_s(0, start + fw, h, c, gpu, gk);
        break;
    case RIDGE_MEAS_GPU_TIME: *pred = gpu; break;
    case RIDGE_MEAS_PER_CALL_EVENTS:
        /* The host records an event before and after each call: each is one more command on the
         * stream, a launch's cost, but not a framework op (torch.cuda.Event.record goes straight
         * to cudaEventRecord, no dispatcher): h200-2026-11-29/a/add_fp32_2^10 takes 18.67 us per
         * call with its events against 8.21 us back to back, 5.2 us an event. When the GPU is
         * faster than the host, the events are as far apart as the host's issue of one call and
         * one event record; back to back, the slower stage sets the pace. */
        *pred = max3(gpu, c * h + fw + 2.0 * g->eff.host_launch_s, start);
        break;
    default: /* back to back: the slower of the two stages */ *pred = max3(gpu, c * h + fw, start); break;
    }
    if (it->kind == RIDGE_MEAS_FLOP_RATE || it->kind == RIDGE_MEAS_BYTE_RATE)
        *pred = work / *pred;
    *gpu_s = gpu;
    return NULL;
}

void ridge_meas_filter(ridge_meas_set *s, double min_time_s, const char *only)
{
    int k = 0;
    for (int i = 0; i < s->n; i++) {
        ridge_meas_item *it = &s->v[i];
        const char *why = NULL;
        if (only && (strcmp(only, "kernels") == 0) != (it->type == RIDGE_MEAS_KERNEL))
            why = strcmp(only, "kernels") == 0 ? RIDGE_MEAS_SKIP_NOT_KERNEL : RIDGE_MEAS_SKIP_NOT_MODEL;
        else if (min_time_s > 0 && strcmp(it->unit, "s") == 0 && it->measured < min_time_s)
            why = RIDGE_MEAS_SKIP_BELOW_MIN_TIME;
        if (why) {
            ridge_meas_skip(s, why);
            item_free(it);
        } else
            s->v[k++] = *it;
    }
    s->n = k;
}

int ridge_meas_collect_files(const char *const *paths, int n, const char *gpu_opt, const ridge_gpu *gpu_file,
                             ridge_meas_set *s, ridge_err *err)
{
    return ridge_meas_collect_files_progress(paths, n, gpu_opt, gpu_file, s, NULL, NULL, err);
}

int ridge_meas_collect_files_progress(const char *const *paths, int n, const char *gpu_opt, const ridge_gpu *gpu_file,
                                      ridge_meas_set *s, ridge_progress_fn progress, void *arg, ridge_err *err)
{
    ridge_meas_doc *docs[RIDGE_MEAS_MAX_FILES];
    meas_tick tick = {progress, arg, 0, 0, RIDGE_PROGRESS_EVERY};
    host_files hf = {0}; /* shared by the files: a path names the same file in each */
    int loaded = 0, rc = RIDGE_OK;
    if (n > RIDGE_MEAS_MAX_FILES)
        n = RIDGE_MEAS_MAX_FILES; /* the commands refuse more as a usage error */
    while (loaded < n && (rc = ridge_meas_doc_load(paths[loaded], &docs[loaded], err)) == RIDGE_OK)
        loaded++;
    for (int i = 0; i < loaded; i++)
        tick.total += ridge_meas_doc_count(docs[i]);
    for (int i = 0; i < loaded; i++) {
        if (rc == RIDGE_OK)
            collect_doc(docs[i], gpu_opt, gpu_file, s, &hf, &tick);
        ridge_meas_doc_free(docs[i]);
    }
    host_files_free(&hf);
    if (rc == RIDGE_OK && progress)
        progress(arg, tick.total, tick.total); /* done == total: every entry was visited */
    return rc;
}

const char *ridge_meas_predict(const ridge_meas_item *it, const ridge_gpu *g, double *pred)
{
    return ridge_meas_predict_err(it, g, pred, NULL);
}

/* The reason for a failed prediction's status: an op or precision the GPU lacks is its own. */
static const char *failed(int st, const char *otherwise)
{
    return st == RIDGE_EUNSUPPORTED ? "precision not supported by the GPU" : otherwise;
}

const char *ridge_meas_predict_err(const ridge_meas_item *it, const ridge_gpu *g, double *pred, ridge_err *detail)
{
    ridge_schedule_totals t1, t2;
    ridge_err scratch = {{0}}, *err = detail ? detail : &scratch;
    int st;
    if (it->type == RIDGE_MEAS_KERNEL)
        return predict_kernel(it, g, pred, err);
    if (it->serving)
        return predict_serving(it, g, pred, err);
    if (it->queue)
        return predict_queue(it, g, pred, err);
    if (it->par_cluster) {
        /* The cluster of the GPU being predicted (a calibrated copy included). */
        ridge_cluster *cl = malloc(sizeof *cl);
        ridge_parallel_result r;
        if (!cl)
            return "out of memory";
        *cl = *it->par_cluster;
        cl->gpu = *g;
        st = ridge_parallel_predict(cl, it->par_model, &it->par_run, &it->par, it->rt, &r, err);
        if (st == RIDGE_OK)
            /* a prefill starts its requests; each step pays a replica's sequences' work */
            ridge_parallel_add_request(&it->host, &cl->gpu, &it->par_run, it->par.global_batch / it->par.dp, &r);
        if (st == RIDGE_OK && it->generate) {
            /* global_batch sequences over the cluster: prefill (and the profile's per-request
             * work), then output decode steps; per replica (tp x pp GPUs) or per GPU. */
            ridge_parallel_result rd;
            double t_pre = r.step_time_s, gpus = (double)it->par.tp * it->par.pp * it->par.dp;
            st = ridge_parallel_predict(cl, it->par_model, &it->par_decode, &it->par, it->decode_rt, &rd, err);
            if (st == RIDGE_OK)
                ridge_parallel_add_request(&it->host, &cl->gpu, &it->par_decode, it->par.global_batch / it->par.dp,
                                           &rd);
            if (st == RIDGE_OK)
                r.step_time_s = it->par.global_batch * it->output / (t_pre + it->output * rd.step_time_s) /
                                (it->per_gpu ? gpus : it->par.dp);
        }
        free(cl);
        if (st != RIDGE_OK)
            return st == RIDGE_EINVAL ? "invalid parallel layout" : failed(st, "model prediction failed");
        *pred = r.step_time_s;
        return isfinite(*pred) && *pred > 0 ? NULL : "no positive prediction";
    }
    if ((st = ridge_schedule_ops_host(g, it->graph.ops, it->graph.n, it->rt, &it->host, NULL, &t1, err)) != RIDGE_OK)
        return failed(st, "model prediction failed");
    if (it->prefill)
        ridge_host_add_request(&it->host, g, &t1);
    if (it->inference)
        ridge_host_add_sequences(&it->host, g, it->batch, &t1);
    if (it->calls > 1) {
        /* Back to back (docs/validation.md, "Model measurements"): the host issues call i + 1
         * while the GPU runs call i, so after the first call each costs the slower of the two
         * stages, its host issue or its GPU time; a step whose host waits for the GPU (an op
         * with host_sync) does not overlap and costs its own time again. */
        int sync = 0;
        for (size_t i = 0; i < it->graph.n && !sync; i++)
            sync = it->graph.ops[i].host_sync;
        double per = sync ? t1.total_time_s : t1.host_issue_s > t1.gpu_busy_s ? t1.host_issue_s : t1.gpu_busy_s;
        t1.total_time_s = (t1.total_time_s + (it->calls - 1) * per) / it->calls;
    }
    switch (it->kind) {
    case RIDGE_MEAS_LATENCY: *pred = t1.total_time_s; break;
    case RIDGE_MEAS_THROUGHPUT: *pred = t1.total_time_s > 0 ? it->items / t1.total_time_s : 0; break;
    case RIDGE_MEAS_GENERATION:
        if ((st = ridge_schedule_ops_host(g, it->decode.ops, it->decode.n, it->decode_rt, &it->host, NULL, &t2,
                                          err)) != RIDGE_OK)
            return failed(st, "model prediction failed");
        ridge_host_add_sequences(&it->host, g, it->batch, &t2);
        *pred = it->batch * it->output / (t1.total_time_s + it->output * t2.total_time_s);
        break;
    default: return "unknown measurement kind"; /* rates are kernel measurements */
    }
    if (!(isfinite(*pred) && *pred > 0))
        return "no positive prediction";
    return NULL;
}
