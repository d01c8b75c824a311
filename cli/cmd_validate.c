/* ridge validate: compare predictions with measurement files (docs/cli.md, docs/validation.md).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each measurement ridge can map is predicted and compared: kernel measurements (config.op)
 * with the kernel model, model measurements (config.workload, a preset id) with a model run.
 * The error of a case is predicted / measured - 1. Unmappable measurements are counted by
 * reason, never fatal. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "model_run.h"
#include "ridge/kernel.h"
#include "ridge/plot.h"

#define CMD "validate"
#define VAL_MAX_FILES 64
#define VAL_MAX_REASONS 16

static const char help[] =
    "usage: ridge validate FILE... [--gpu ID] [--format text|json|csv] [--chart scatter -o CHART]\n"
    "\n"
    "Predict every measurement of ridge measurement files (docs/validation.md) that ridge can\n"
    "map and print measured, predicted and error = predicted / measured - 1 per case, then the\n"
    "mean (MAPE) and median absolute percentage error and the worst case per group, GPU and\n"
    "workload. Kernel measurements (config.op) are predicted with the kernel model: time per\n"
    "call = kernel time x the op's count. Model measurements (config.workload, a preset id) are\n"
    "predicted with the recorded run configuration: throughput (items/s), latency (step time)\n"
    "or generation (prefill + output x decode at the recorded context, output tokens/s).\n"
    "Unchecked measurements are skipped (published figures excepted); measurements that cannot\n"
    "be mapped are counted by reason. CSV holds the cases only.\n"
    "\n"
    "Options:\n"
    "  --gpu ID             the catalogue GPU for every measurement (default: mapped from\n"
    "                       provenance.gpu_name, else the measurement's config.gpu)\n"
    "  --format text|json|csv   default text\n"
    "  --chart scatter -o CHART.png|CHART.svg\n"
    "                       also chart predicted / measured per case (log axis, lines at\n"
    "                       1, +-10 %% and +-25 %%, one colour per unit) with CHART.dat and\n"
    "                       CHART.gp beside it; rendered when gnuplot is present\n"
    "  -h, --help           this help\n";

/* nvidia-smi / CUDA device names to catalogue ids. */
static const struct {
    const char *name, *id;
} gpu_names[] = {
    {"NVIDIA H200", "h200-sxm-141gb"},
    {"NVIDIA H100 80GB HBM3", "h100-sxm5-80gb"},
    {"NVIDIA H100 PCIe", "h100-pcie-80gb"},
    {"NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb"},
    {"NVIDIA A100-SXM4-40GB", "a100-sxm4-40gb"},
    {"NVIDIA A100 80GB PCIe", "a100-pcie-80gb"},
    {"NVIDIA L40S", "l40s"},
    {"NVIDIA L4", "l4"},
    {"NVIDIA A40", "a40"},
    {"Tesla T4", "t4"},
    {"Tesla V100-SXM2-32GB", "v100-sxm2-32gb"},
    {"Tesla V100-SXM2-16GB", "v100-sxm2-32gb"},
};

typedef struct {
    char id[96], group[32], gpu[48], workload[48], desc[96], unit[24], kind[16];
    double measured, predicted, error; /* error = predicted / measured - 1 */
} val_case;

typedef struct {
    val_case *v;
    int n, cap;
    const char *reason[VAL_MAX_REASONS];
    int reason_count[VAL_MAX_REASONS];
    int nreasons;
} val_state;

static void skip(val_state *s, const char *reason)
{
    int i;
    for (i = 0; i < s->nreasons; i++)
        if (strcmp(s->reason[i], reason) == 0) {
            s->reason_count[i]++;
            return;
        }
    if (s->nreasons < VAL_MAX_REASONS) {
        s->reason[s->nreasons] = reason;
        s->reason_count[s->nreasons++] = 1;
    }
}

static val_case *add_case(val_state *s)
{
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 64;
        val_case *nv = realloc(s->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return NULL;
        s->v = nv;
        s->cap = cap;
    }
    memset(&s->v[s->n], 0, sizeof s->v[s->n]);
    return &s->v[s->n++];
}

/* Load and check one file: a JSON object of kind ridge-measurements with a measurements array. */
static int load_doc(const char *path, cJSON **out)
{
    char *text = NULL;
    size_t len = 0;
    const cJSON *kind, *arr;
    cJSON *root;
    int rc = cli_read_file(path, &text, &len);
    if (rc)
        return rc;
    root = cJSON_ParseWithLength(text, len);
    free(text);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        cli_error("%s: not a JSON object (malformed or truncated file)", path);
        return CLI_EXIT_USAGE;
    }
    kind = cJSON_GetObjectItemCaseSensitive(root, "kind");
    if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "ridge-measurements") != 0) {
        cJSON_Delete(root);
        cli_error("%s: $.kind: not \"ridge-measurements\" (not a measurement file)", path);
        return CLI_EXIT_USAGE;
    }
    arr = cJSON_GetObjectItemCaseSensitive(root, "measurements");
    if (!cJSON_IsArray(arr)) {
        cJSON_Delete(root);
        cli_error("%s: $.measurements: missing or not an array", path);
        return CLI_EXIT_USAGE;
    }
    *out = root;
    return CLI_EXIT_OK;
}

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A finite number, or NAN. */
static double num_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : NAN;
}

static double median_time_s(const cJSON *m)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(m, "time_s");
    return cJSON_IsObject(t) ? num_of(t, "median") : NAN;
}

/* Predict a kernel measurement; returns a skip reason or NULL when c was filled. */
static const char *map_kernel(const cJSON *opj, const ridge_gpu *g, double measured, val_case *c)
{
    cJSON *doc = cJSON_CreateObject(), *ops = cJSON_CreateArray(), *dup = cJSON_Duplicate(opj, 1);
    ridge_oplist w = {{0}, 0, NULL};
    ridge_kernel_result kr;
    ridge_err err = {{0}};
    char *text;
    int rc;
    if (!doc || !ops || !dup) {
        cJSON_Delete(doc);
        cJSON_Delete(ops);
        cJSON_Delete(dup);
        return "out of memory";
    }
    cJSON_AddNumberToObject(doc, "schema_version", 1);
    cJSON_AddStringToObject(doc, "name", "measurement");
    cJSON_AddItemToArray(ops, dup);
    cJSON_AddItemToObject(doc, "ops", ops);
    text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    if (!text)
        return "out of memory";
    rc = ridge_oplist_parse(text, strlen(text), "measurement", &w, &err);
    free(text);
    if (rc != RIDGE_OK)
        return "op not understood by ridge";
    rc = ridge_kernel_predict(g, &w.ops[0], &kr, &err);
    if (rc != RIDGE_OK) {
        ridge_oplist_free(&w);
        return rc == RIDGE_EUNSUPPORTED ? "precision not supported by the GPU" : "kernel prediction failed";
    }
    c->measured = measured;
    c->predicted = kr.time_s * w.ops[0].count; /* per call: every instance of the op */
    snprintf(c->workload, sizeof c->workload, "%s", ridge_op_kind_name(w.ops[0].kind));
    snprintf(c->desc, sizeof c->desc, "%s %s", ridge_op_kind_name(w.ops[0].kind), ridge_dtype_name(w.ops[0].dtype));
    snprintf(c->unit, sizeof c->unit, "s");
    snprintf(c->kind, sizeof c->kind, "kernel");
    ridge_oplist_free(&w);
    return NULL;
}

static int run_model(const ridge_gpu *g, const ridge_model *m, const ridge_run_config *rc, ridge_runtime rt,
                     double *time_s, double *thr, char *unit, size_t cap)
{
    cli_model_prediction p;
    int r = cli_model_predict(g, m, rc, rt, &p);
    if (r == CLI_EXIT_OK) {
        *time_s = p.time_s;
        *thr = p.throughput;
        snprintf(unit, cap, "%s", p.throughput_unit ? p.throughput_unit : "items/s");
    }
    cli_model_prediction_free(&p);
    return r;
}

/* Predict a model measurement with a preset id; returns a skip reason or NULL. */
static const char *map_model(const cJSON *m, const cJSON *cfg, const char *wl, const ridge_gpu *g, val_case *c)
{
    ridge_run_config rc;
    ridge_runtime rt = RIDGE_RUNTIME_EAGER;
    ridge_model *model = NULL;
    ridge_err err = {{0}};
    const char *kind = str_of(cfg, "kind"), *mode = str_of(cfg, "mode"), *s;
    double v, t1 = 0, t2 = 0, thr = 0, output = 0;
    int generate = 0, r;
    ridge_run_config_init(&rc);
    if (!kind)
        kind = "latency"; /* measured files: time_s is the step time */
    if (mode && strcmp(mode, "generate") == 0) {
        generate = 1;
        rc.mode = RIDGE_MODE_PREFILL;
    } else if (mode && ridge_mode_parse(mode, &rc.mode))
        return "unknown mode";
    if (strcmp(kind, "generation") == 0 && !generate)
        return "generation needs mode generate";
    if ((s = str_of(cfg, "precision")) && ridge_dtype_parse(s, &rc.precision))
        return "unknown precision";
    if ((s = str_of(cfg, "runtime")) && ridge_runtime_parse(s, &rt))
        return "unknown runtime";
    if (isfinite(v = num_of(cfg, "batch")))
        rc.batch = v;
    if (isfinite(v = num_of(cfg, "seq")))
        rc.seq = v;
    if (isfinite(v = num_of(cfg, "image")))
        rc.image = v;
    if (isfinite(v = num_of(cfg, "prompt")))
        rc.prompt = v;
    if (isfinite(v = num_of(cfg, "context")))
        rc.context = v;
    if (generate && !(isfinite(output = num_of(cfg, "output")) && output >= 1))
        return "generation without output tokens";
    if (ridge_model_load_builtin(wl, &model, &err) != RIDGE_OK)
        return "unknown workload preset";
    r = run_model(g, model, &rc, rt, &t1, &thr, c->unit, sizeof c->unit);
    if (r == CLI_EXIT_OK && generate) {
        rc.mode = RIDGE_MODE_DECODE;
        r = run_model(g, model, &rc, rt, &t2, &thr, c->unit, sizeof c->unit);
    }
    ridge_model_free(model);
    if (r != CLI_EXIT_OK)
        return "model prediction failed";
    snprintf(c->workload, sizeof c->workload, "%s", wl);
    snprintf(c->kind, sizeof c->kind, "%s", kind);
    snprintf(c->desc, sizeof c->desc, "%s %s b%g %s", wl, mode ? mode : ridge_mode_name(rc.mode), rc.batch,
             ridge_dtype_name(rc.precision));
    if (strcmp(kind, "throughput") == 0) {
        const cJSON *rate = cJSON_GetObjectItemCaseSensitive(m, "rate");
        c->measured = num_of(m, "value");
        if (!isfinite(c->measured) && cJSON_IsObject(rate))
            c->measured = num_of(rate, "items_per_s");
        c->predicted = thr;
    } else if (strcmp(kind, "latency") == 0) {
        c->measured = median_time_s(m);
        c->predicted = t1;
        snprintf(c->unit, sizeof c->unit, "s");
    } else if (generate) {
        c->measured = num_of(m, "value");
        c->predicted = rc.batch * output / (t1 + output * t2);
        snprintf(c->unit, sizeof c->unit, "output tokens/s");
    } else
        return "unknown config.kind";
    return NULL;
}

static void validate_doc(const cJSON *root, const char *gpu_opt, val_state *s)
{
    const cJSON *prov = cJSON_GetObjectItemCaseSensitive(root, "provenance");
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "measurements"), *m;
    const char *prov_gpu = NULL, *name = cJSON_IsObject(prov) ? str_of(prov, "gpu_name") : NULL;
    size_t i;
    if (name)
        for (i = 0; i < sizeof gpu_names / sizeof gpu_names[0]; i++)
            if (strcmp(name, gpu_names[i].name) == 0)
                prov_gpu = gpu_names[i].id;
    cJSON_ArrayForEach(m, arr)
    {
        const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(m, "config"), *op, *wl, *chk;
        const char *id = str_of(m, "id"), *group = str_of(m, "group"), *gid, *why;
        ridge_gpu g;
        ridge_err err = {{0}};
        val_case c;
        memset(&c, 0, sizeof c);
        if (!cJSON_IsObject(m) || !id || !cJSON_IsObject(cfg)) {
            skip(s, "no id or config");
            continue;
        }
        op = cJSON_GetObjectItemCaseSensitive(cfg, "op");
        wl = cJSON_GetObjectItemCaseSensitive(cfg, "workload");
        chk = cJSON_GetObjectItemCaseSensitive(m, "checked");
        if (!cJSON_IsObject(op) && !cJSON_IsString(wl)) {
            skip(s, cJSON_IsObject(wl) ? "not mapped yet (workload given as hyper-parameters)"
                                      : "no op or workload in config");
            continue;
        }
        /* Published figures are not checked by anyone; they are taken as published. */
        if (!cJSON_IsTrue(chk) && !(group && strcmp(group, "published") == 0)) {
            skip(s, "unchecked");
            continue;
        }
        gid = gpu_opt ? gpu_opt : str_of(cfg, "gpu") ? str_of(cfg, "gpu") : prov_gpu;
        if (!gid) {
            skip(s, "GPU not mapped (use --gpu)");
            continue;
        }
        if (ridge_catalog_load(gid, &g, &err) != RIDGE_OK) {
            skip(s, "GPU not in the catalogue");
            continue;
        }
        if (cJSON_IsObject(op)) {
            double t = median_time_s(m);
            why = isfinite(t) && t > 0 ? map_kernel(op, &g, t, &c) : "no median time";
        } else
            why = map_model(m, cfg, wl->valuestring, &g, &c);
        if (!why && !(isfinite(c.measured) && c.measured > 0 && isfinite(c.predicted) && c.predicted > 0))
            why = "no positive measured or predicted value";
        if (why) {
            skip(s, why);
            continue;
        }
        snprintf(c.id, sizeof c.id, "%s", id);
        snprintf(c.group, sizeof c.group, "%s", group ? group : "-");
        snprintf(c.gpu, sizeof c.gpu, "%s", g.id);
        c.error = c.predicted / c.measured - 1.0;
        {
            val_case *slot = add_case(s);
            if (!slot) {
                skip(s, "out of memory");
                continue;
            }
            *slot = c;
        }
    }
}

/* ---- summaries: per group, per GPU, per workload ---- */

typedef struct {
    const char *scope;
    char name[48];
    int n;
    double mape, median, worst;
    const val_case *worst_case;
} val_summary;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static const char *key_of(const val_case *c, int scope)
{
    return scope == 0 ? c->group : scope == 1 ? c->gpu : c->workload;
}

static int summarize(const val_state *s, val_summary **out, int *nout)
{
    static const char *const scopes[] = {"group", "gpu", "workload"};
    val_summary *v = NULL;
    double *ape = malloc((size_t)(s->n ? s->n : 1) * sizeof *ape);
    int n = 0, scope, i, j;
    if (!ape)
        return -1;
    v = calloc((size_t)(3 * s->n + 1), sizeof *v);
    if (!v) {
        free(ape);
        return -1;
    }
    for (scope = 0; scope < 3; scope++)
        for (i = 0; i < s->n; i++) {
            const char *k = key_of(&s->v[i], scope);
            int seen = 0, cnt = 0;
            double sum = 0;
            val_summary *r;
            for (j = 0; j < i && !seen; j++)
                seen = strcmp(key_of(&s->v[j], scope), k) == 0;
            if (seen)
                continue;
            r = &v[n++];
            r->scope = scopes[scope];
            snprintf(r->name, sizeof r->name, "%s", k);
            for (j = i; j < s->n; j++) {
                double a;
                if (strcmp(key_of(&s->v[j], scope), k) != 0)
                    continue;
                a = fabs(s->v[j].error);
                ape[cnt++] = a;
                sum += a;
                if (!r->worst_case || a > r->worst) {
                    r->worst = a;
                    r->worst_case = &s->v[j];
                }
            }
            qsort(ape, (size_t)cnt, sizeof *ape, cmp_double);
            r->n = cnt;
            r->mape = sum / cnt;
            r->median = cnt % 2 ? ape[cnt / 2] : 0.5 * (ape[cnt / 2 - 1] + ape[cnt / 2]);
        }
    free(ape);
    *out = v;
    *nout = n;
    return 0;
}

static void fmt_pct(char *buf, size_t cap, double frac, int sign)
{
    snprintf(buf, cap, sign ? "%+.2f" : "%.2f", 100.0 * frac);
}

static int print_text(const val_state *s, const val_summary *v, int nv)
{
    cli_table t;
    int i;
    if (cli_table_init(&t, 8))
        return CLI_EXIT_FAILURE;
    {
        const char *h[] = {"id", "group", "gpu", "case", "measured", "predicted", "unit", "error [%]"};
        cli_table_add(&t, h);
    }
    t.right[4] = t.right[5] = t.right[7] = 1;
    for (i = 0; i < s->n; i++) {
        const val_case *c = &s->v[i];
        char a[32], b[32], e[32];
        const char *row[8];
        cli_num(c->measured, a, sizeof a);
        cli_num(c->predicted, b, sizeof b);
        fmt_pct(e, sizeof e, c->error, 1);
        row[0] = c->id, row[1] = c->group, row[2] = c->gpu, row[3] = c->desc;
        row[4] = a, row[5] = b, row[6] = c->unit, row[7] = e;
        if (cli_table_add(&t, row)) {
            cli_table_free(&t);
            return CLI_EXIT_FAILURE;
        }
    }
    if (s->n)
        cli_table_print_text(&t, stdout);
    cli_table_free(&t);
    if (cli_table_init(&t, 7))
        return CLI_EXIT_FAILURE;
    {
        const char *h[] = {"by", "name", "cases", "MAPE [%]", "median APE [%]", "worst [%]", "worst id"};
        cli_table_add(&t, h);
    }
    t.right[2] = t.right[3] = t.right[4] = t.right[5] = 1;
    for (i = 0; i < nv; i++) {
        char n[16], a[32], b[32], w[32];
        const char *row[7];
        snprintf(n, sizeof n, "%d", v[i].n);
        fmt_pct(a, sizeof a, v[i].mape, 0);
        fmt_pct(b, sizeof b, v[i].median, 0);
        fmt_pct(w, sizeof w, v[i].worst_case->error, 1);
        row[0] = v[i].scope, row[1] = v[i].name, row[2] = n, row[3] = a, row[4] = b, row[5] = w;
        row[6] = v[i].worst_case->id;
        if (cli_table_add(&t, row)) {
            cli_table_free(&t);
            return CLI_EXIT_FAILURE;
        }
    }
    if (nv) {
        printf("\n");
        cli_table_print_text(&t, stdout);
    }
    cli_table_free(&t);
    printf("%s%d cases compared", s->n || nv ? "\n" : "", s->n);
    for (i = 0; i < s->nreasons; i++)
        printf("%s%d skipped: %s", i ? "; " : "; ", s->reason_count[i], s->reason[i]);
    printf("\n");
    return CLI_EXIT_OK;
}

static int print_json(const val_state *s, const val_summary *v, int nv)
{
    cJSON *root = cJSON_CreateObject(), *cases, *sums, *skips;
    int i;
    if (!root)
        return cli_print_json(NULL);
    cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
    cases = cJSON_AddArrayToObject(root, "cases");
    sums = cJSON_AddArrayToObject(root, "summaries");
    skips = cJSON_AddArrayToObject(root, "skipped");
    for (i = 0; i < s->n; i++) {
        const val_case *c = &s->v[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", c->id);
        cJSON_AddStringToObject(o, "group", c->group);
        cJSON_AddStringToObject(o, "gpu", c->gpu);
        cJSON_AddStringToObject(o, "workload", c->workload);
        cJSON_AddStringToObject(o, "case", c->desc);
        cJSON_AddStringToObject(o, "kind", c->kind);
        cJSON_AddStringToObject(o, "unit", c->unit);
        cJSON_AddNumberToObject(o, "measured", c->measured);
        cJSON_AddNumberToObject(o, "predicted", c->predicted);
        cJSON_AddNumberToObject(o, "error_percent", 100.0 * c->error);
        cJSON_AddItemToArray(cases, o);
    }
    for (i = 0; i < nv; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "by", v[i].scope);
        cJSON_AddStringToObject(o, "name", v[i].name);
        cJSON_AddNumberToObject(o, "cases", v[i].n);
        cJSON_AddNumberToObject(o, "mape_percent", 100.0 * v[i].mape);
        cJSON_AddNumberToObject(o, "median_ape_percent", 100.0 * v[i].median);
        cJSON_AddNumberToObject(o, "worst_error_percent", 100.0 * v[i].worst_case->error);
        cJSON_AddStringToObject(o, "worst_id", v[i].worst_case->id);
        cJSON_AddItemToArray(sums, o);
    }
    for (i = 0; i < s->nreasons; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "reason", s->reason[i]);
        cJSON_AddNumberToObject(o, "count", s->reason_count[i]);
        cJSON_AddItemToArray(skips, o);
    }
    return cli_print_json(root);
}

static void print_csv(const val_state *s)
{
    int i;
    printf("id,group,gpu,workload,kind,measured,predicted,unit,error_percent\n");
    for (i = 0; i < s->n; i++) {
        const val_case *c = &s->v[i];
        printf("%s,%s,%s,%s,%s,%.9g,%.9g,%s,%.4f\n", c->id, c->group, c->gpu, c->workload, c->kind, c->measured,
               c->predicted, c->unit, 100.0 * c->error);
    }
}

/* --chart scatter: predicted / measured per case, one set per unit (in order of appearance). */
static int write_chart(const val_state *s, const ridge_plot_paths *paths, int *rendered)
{
    ridge_validation_set sets[16];
    char names[16][64];
    double *num = malloc((size_t)(s->n ? s->n : 1) * 3 * sizeof *num);
    const char **ids = malloc((size_t)(s->n ? s->n : 1) * sizeof *ids);
    const char *units[16];
    ridge_validation_options o = {0};
    ridge_err err = {{0}};
    char note[160];
    int nsets = 0, i, u, in10 = 0, in25 = 0, k = 0, rc = CLI_EXIT_OK, st;
    double sum = 0;
    if (!num || !ids) {
        free(num);
        free(ids);
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    for (i = 0; i < s->n; i++) {
        for (u = 0; u < nsets; u++)
            if (strcmp(units[u], s->v[i].unit) == 0)
                break;
        if (u == nsets && nsets < 16)
            units[nsets++] = s->v[i].unit;
    }
    /* The cases grouped by unit, numbered in input order; a 17th unit and beyond share the last set. */
    for (u = 0; u < nsets; u++) {
        ridge_validation_set *v = &sets[u];
        int cnt = 0;
        memset(v, 0, sizeof *v);
        v->number = num + k;
        v->measured = num + s->n + k;
        v->predicted = num + 2 * s->n + k;
        v->ids = ids + k;
        for (i = 0; i < s->n; i++) {
            int w;
            for (w = 0; w < nsets - 1; w++)
                if (strcmp(units[w], s->v[i].unit) == 0)
                    break;
            if (w != u)
                continue;
            num[k] = i + 1;
            num[s->n + k] = s->v[i].measured;
            num[2 * s->n + k] = s->v[i].predicted;
            ids[k] = s->v[i].id;
            k++;
            cnt++;
        }
        v->n = (size_t)cnt;
        snprintf(names[u], sizeof names[u], "%s%s (%d case%s)", units[u], strcmp(units[u], "s") ? "" : ", time",
                 cnt, cnt == 1 ? "" : "s");
        v->name = names[u];
    }
    for (i = 0; i < s->n; i++) {
        double a = fabs(s->v[i].error);
        sum += a;
        in10 += a <= 0.10 + 1e-12;
        in25 += a <= 0.25 + 1e-12;
    }
    if (s->n)
        snprintf(note, sizeof note, "%d cases: MAPE %.1f %%, %d within 10 %%, %d within 25 %%", s->n,
                 100.0 * sum / s->n, in10, in25);
    else
        snprintf(note, sizeof note, "no cases compared");
    o.title = "ridge validate: predicted / measured per case";
    o.note = note;
    if (nsets == 0) { /* an empty chart still shows the bands */
        memset(&sets[0], 0, sizeof sets[0]);
        sets[0].name = "no cases";
        nsets = 1;
    }
    st = ridge_validation_write(sets, (size_t)nsets, &o, paths, &err);
    free(num);
    free(ids);
    if (st != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(st);
    }
    if (!ridge_gnuplot_find(NULL, 0)) {
        fprintf(stderr, "ridge: gnuplot not found; wrote %s and %s; render with: gnuplot %s\n", paths->dat,
                paths->gp, paths->gp);
        return CLI_EXIT_OK;
    }
    st = ridge_gnuplot_run(paths->gp, &err);
    if (st != RIDGE_OK) {
        cli_error("%s (the .dat and .gp are kept)", err.msg);
        return cli_exit_code(st);
    }
    *rendered = 1;
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    static const struct option longopts[] = {{"gpu", required_argument, 0, 'g'},
                                             {"format", required_argument, 0, 'f'},
                                             {"chart", required_argument, 0, 'c'},
                                             {"output", required_argument, 0, 'o'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    cJSON *docs[VAL_MAX_FILES];
    int ndocs = 0, c, i, rc = CLI_EXIT_OK, nv = 0, rendered = 0;
    const char *gpu = NULL, *chart = NULL, *out = NULL;
    ridge_plot_paths paths;
    cli_format fmt = CLI_FMT_TEXT;
    val_state s;
    val_summary *v = NULL;
    memset(&s, 0, sizeof s);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'g': gpu = optarg; break;
        case 'f':
            if (cli_parse_format(optarg, &fmt))
                return CLI_EXIT_USAGE;
            break;
        case 'c': chart = optarg; break;
        case 'o': out = optarg; break;
        case 'h': fputs(help, stdout); return CLI_EXIT_OK;
        case ':': return cli_usage_error(CMD, "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error(CMD, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error(CMD, "missing measurement file");
    if (argc - optind > VAL_MAX_FILES)
        return cli_usage_error(CMD, "at most %d files", VAL_MAX_FILES);
    if (chart && strcmp(chart, "scatter") != 0)
        return cli_usage_error(CMD, "--chart: unknown chart '%s' (scatter)", chart);
    if (chart && !out)
        return cli_usage_error(CMD, "--chart needs -o CHART.png|CHART.svg");
    if (out && !chart)
        return cli_usage_error(CMD, "-o needs --chart scatter");
    if (out) {
        ridge_err perr = {{0}};
        if (ridge_plot_paths_from_chart(out, &paths, &perr) != RIDGE_OK)
            return cli_usage_error(CMD, "-o: %s", perr.msg);
    }
    if (gpu) {
        ridge_gpu g;
        if ((rc = cli_load_gpu(gpu, NULL, &g)) != CLI_EXIT_OK)
            return rc;
    }
    for (i = optind; i < argc; i++) {
        if ((rc = load_doc(argv[i], &docs[ndocs])) != CLI_EXIT_OK)
            goto done;
        ndocs++;
    }
    for (i = 0; i < ndocs; i++)
        validate_doc(docs[i], gpu, &s);
    if (summarize(&s, &v, &nv)) {
        cli_error("out of memory");
        rc = CLI_EXIT_FAILURE;
        goto done;
    }
    /* The chart first: a chart that cannot be written leaves stdout empty. */
    if (chart && (rc = write_chart(&s, &paths, &rendered)) != CLI_EXIT_OK)
        goto done;
    if (fmt == CLI_FMT_JSON)
        rc = print_json(&s, v, nv);
    else if (fmt == CLI_FMT_CSV)
        print_csv(&s);
    else
        rc = print_text(&s, v, nv);
    if (rc == CLI_EXIT_OK && rendered) /* stdout holds only the report in json and csv */
        fprintf(fmt == CLI_FMT_TEXT ? stdout : stderr, "wrote %s (data %s, script %s)\n", paths.chart, paths.dat,
                paths.gp);
done:
    for (i = 0; i < ndocs; i++)
        cJSON_Delete(docs[i]);
    free(v);
    free(s.v);
    return rc;
}
