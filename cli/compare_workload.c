/* ridge compare --workload: one model run predicted on several GPUs, side by side (step time,
 * throughput, speed-up over the first GPU, MFU, throughput per watt and per dollar, memory, fit).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "compare_workload.h"

#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "json_emit.h"
#include "model_run.h"
#include "predict_emit.h"
#include "prices.h"

/* What the comparison adds to one GPU's prediction (derive, as each row is written). */
typedef struct {
    double speedup;  /* over the first GPU */
    double per_w;    /* throughput per watt of board power */
    double per_usd;  /* throughput per USD per GPU-hour, where has_usd */
    int has_usd;
} cmp_derived;

static void derive(const ridge_gpu *g, const cli_model_prediction *p, const cli_model_prediction *first,
                   int batch_max, cmp_derived *d)
{
    /* Own batches (--batch max): steps of different sizes, so the speedup is in throughput. */
    d->speedup = batch_max ? p->throughput / first->throughput : first->time_s / p->time_s;
    d->per_w = p->throughput / g->tdp_w;
    d->has_usd = g->price_usd_per_hour > 0;
    d->per_usd = d->has_usd ? p->throughput / g->price_usd_per_hour : 0;
}

/* One model run compared across GPUs is a cli_compare_run (compare_workload.h). */
typedef cli_compare_run cmp_workload;

static const char *speedup_x(double v, char *b, size_t n)
{
    snprintf(b, n, "%.3gx", v);
    return b;
}
static const char *yes_no_caps(double v, char *b, size_t n)
{
    (void)b, (void)n;
    return v != 0 ? "yes" : "NO";
}

/* One row per GPU: SI values in JSON and CSV, display units in text (the throughput's headings
 * are filled in with its unit); width 1: right-aligned. */
static const cli_emit_col workload_cols[] = {
    CLI_EMIT_STR_COL("gpu", "gpu", "gpu"),
    /* --batch max only: each GPU's batch (cols_for leaves it out otherwise) */
    {"batch", NULL, "batch", "batch", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_whole, cli_emit_fmt_whole},
    {"time_s", NULL, "time_s", "step [ms]", 1, 1e3, CLI_EMIT_NUM, 0, NULL, NULL},
    {"throughput", NULL, "throughput", NULL, 1, 1, CLI_EMIT_NUM, 0, NULL, NULL},
    {"speedup_over_first", NULL, "speedup_over_first", "speedup", 1, 1, CLI_EMIT_NUM, 0, speedup_x, cli_emit_fmt_g6},
    {"mfu", NULL, "mfu", "MFU [%]", 1, 100, CLI_EMIT_NUM, 0, NULL, cli_emit_fmt_g6},
    {"throughput_per_w", NULL, "throughput_per_w", NULL, 1, 1, CLI_EMIT_NUM, 0, NULL, cli_emit_fmt_g6},
    {"throughput_per_usd_per_hour", NULL, "throughput_per_usd_per_hour", "per USD/h", 1, 1, CLI_EMIT_NUM, 0, NULL,
     cli_emit_fmt_g6},
    {"memory_total_bytes", NULL, "memory_total_bytes", "memory [GiB]", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_gib, NULL},
    {"memory_capacity_bytes", NULL, "memory_capacity_bytes", "capacity [GiB]", 1, 1, CLI_EMIT_NUM, 0,
     cli_emit_fmt_gib, NULL},
    {"fits", NULL, "fits", "fits", 1, 1, CLI_EMIT_BOOL, 0, yes_no_caps, NULL},
    {"max_batch", NULL, "max_batch", "max batch", 1, 1, CLI_EMIT_NUM, 0, NULL, cli_emit_fmt_whole},
    /* Where the per-dollar figure's price comes from: CSV (JSON has a "price" object per GPU). */
    {NULL, NULL, "price_usd_per_hour", NULL, 1, 1, CLI_EMIT_NUM, 0, NULL, NULL},
    CLI_EMIT_STR_COL(NULL, "price_kind", NULL),
    CLI_EMIT_STR_COL(NULL, "price_date", NULL),
    CLI_EMIT_STR_COL(NULL, "price_source", NULL),
};
#define NCOLS (sizeof workload_cols / sizeof workload_cols[0])
#define COL_BATCH 1

/* The rows' predictions: each GPU at its own batch under --batch max. */
static const cli_model_prediction *rows_of(const cmp_workload *c)
{
    return c->own ? c->own : c->p;
}

/* Drop the batch column (entry COL_BATCH of n-sized `items` of `size` bytes) without --batch max;
 * returns the count kept. */
static size_t cols_kept(const cmp_workload *c, void *items, size_t size)
{
    if (c->own)
        return NCOLS;
    memmove((char *)items + COL_BATCH * size, (char *)items + (COL_BATCH + 1) * size, (NCOLS - COL_BATCH - 1) * size);
    return NCOLS - 1;
}

/* The GPUs' rows into e. */
static int workload_rows(const cmp_workload *c, const cli_emit_table *e)
{
    const cli_model_prediction *rows = rows_of(c);
    for (int i = 0; i < c->n; i++) {
        const cli_model_prediction *p = &rows[i];
        cmp_derived dv, *d = &dv;
        derive(&c->g[i], p, &rows[0], c->own != NULL, d);
        cli_emit_val v[NCOLS] = {{c->g[i].id, 0, 0},
                                 {NULL, c->batch ? c->batch[i] : 0, 0},
                                       {NULL, p->time_s, 0},
                                       {NULL, p->throughput, 0},
                                       {NULL, d->speedup, 0},
                                       {NULL, p->mfu, 0},
                                       {NULL, d->per_w, 0},
                                       {NULL, d->per_usd, !d->has_usd},
                                       {NULL, p->mem.total_bytes, 0},
                                       {NULL, p->capacity_bytes, 0},
                                       {NULL, p->fits, 0},
                                       {NULL, p->max_batch, 0},
                                       {NULL, c->g[i].price_usd_per_hour, !d->has_usd},
                                       {c->g[i].price_kind, 0, 0},
                                       {c->g[i].price_date, 0, 0},
                                       {c->g[i].price_source, 0, 0}};
        cols_kept(c, v, sizeof v[0]);
        if (cli_emit_row(e, v, 1))
            return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}

cJSON *cli_compare_workload_json(const cmp_workload *c)
{
    const ridge_run_config *run = c->run;
    cJSON *root = cJSON_CreateObject();
    cli_emit_col cols[NCOLS];
    cli_emit_table e = {cols, 0, CLI_FMT_JSON, NULL, NULL};
    memcpy(cols, workload_cols, sizeof cols);
    e.ncols = cols_kept(c, cols, sizeof cols[0]);
    const cli_json_field head[] = {
        CLI_JNUM("schema_version", CLI_SCHEMA_VERSION), CLI_JSTR("workload", ridge_model_name(c->m)),
        CLI_JSTR("mode", ridge_mode_name(run->mode)),   CLI_JNUM("batch", run->batch),
        CLI_JSTR("precision", ridge_dtype_name(run->precision)), CLI_JSTR("runtime", ridge_runtime_name(c->rt))};
    CLI_JSON_ADD(root, head);
    if (c->own) /* "batch" is then the first GPU's; each row has its own */
        cJSON_AddBoolToObject(root, "batch_max", 1);
    cli_run_json(root, run);
    cJSON_AddStringToObject(root, "throughput_unit", c->p[0].throughput_unit);
    e.rows = cJSON_AddArrayToObject(root, "gpus");
    if (!e.rows || workload_rows(c, &e)) {
        cJSON_Delete(root);
        return NULL;
    }
    for (int i = 0; i < c->n; i++)
        cJSON_AddItemToObject(cJSON_GetArrayItem(e.rows, i), "price", cli_price_json(&c->g[i]));
    cJSON_AddItemToObject(root, "sku_families", cli_compare_sku_json(c->g, c->n));
    return root;
}

static int workload_json(const cmp_workload *c)
{
    cJSON *root = cli_compare_workload_json(c);
    return root ? cli_print_json(root) : CLI_EXIT_FAILURE;
}

static int workload_table(const cmp_workload *c, cli_format fmt)
{
    cli_emit_col cols[NCOLS];
    cli_emit_table e;
    cli_table t;
    char unit[64], hdr_tp[80], hdr_w[80];
    size_t ncols;
    memcpy(cols, workload_cols, sizeof cols);
    snprintf(unit, sizeof unit, "%s", c->p[0].throughput_unit);
    snprintf(hdr_tp, sizeof hdr_tp, "throughput [%s]", unit);
    snprintf(hdr_w, sizeof hdr_w, "per watt [%.20s/W]", unit);
    cols[3].head = hdr_tp;
    cols[6].head = hdr_w;
    ncols = cols_kept(c, cols, sizeof cols[0]);
    if (cli_emit_open(&e, cols, ncols, fmt, &t) || workload_rows(c, &e)) {
        cli_table_free(&t);
        return CLI_EXIT_FAILURE;
    }
    if (fmt == CLI_FMT_CSV) {
        cli_emit_end(&e);
    } else {
        char mname[CLI_NAME_TEXT_CAP], sum[256];
        printf("%s, %s, %s runtime\n\n", cli_text(ridge_model_name(c->m), mname, sizeof mname),
               cli_compare_run_summary(c, sum, sizeof sum), ridge_runtime_name(c->rt));
        cli_emit_end(&e);
        printf("\nSpeedup is over %s; per watt uses board power (TDP); per USD/h the price below.\n", c->g[0].id);
        if (c->own)
            printf("batch: each GPU's largest that fits its memory (--batch max); the speedup is in throughput.\n");
        cli_prices_print(c->g, (size_t)c->n, stdout);
        cli_compare_sku_text(c->g, c->n);
    }
    return CLI_EXIT_OK;
}

const char *cli_compare_run_summary(const cli_compare_run *c, char *buf, size_t cap)
{
    char pre[64], sum[256];
    size_t k = (size_t)snprintf(pre, sizeof pre, "%s, batch %.0f", ridge_mode_name(c->run->mode), c->run->batch);
    cli_run_summary(c->run, c->note, sum, sizeof sum);
    if (c->own && strncmp(sum, pre, k) == 0) /* "train, batch 1149, ..." -> "train, batch max, ..." */
        snprintf(buf, cap, "%s, batch max%s", ridge_mode_name(c->run->mode), sum + k);
    else
        snprintf(buf, cap, "%s", sum);
    return buf;
}

/* The predictions of run on g[0..n) into p (p[i] freed by the caller whatever this returns). */
static int predict_all(const ridge_gpu *g, int n, const ridge_model *m, const ridge_run_config *run,
                       ridge_runtime rt, cli_model_prediction *p)
{
    int rc = CLI_EXIT_OK;
    for (int i = 0; i < n && rc == CLI_EXIT_OK; i++)
        rc = cli_model_predict(&g[i], m, run, rt, &p[i]);
    return rc;
}

/* --batch max: each GPU's largest batch that fits, as predict reports it (max_batch, from a
 * prediction at batch 1), into batch; then each GPU at its own into own, and with --per-op every
 * GPU at the first's into p (p[0] is own[0]: not predicted twice, not freed twice). A GPU that
 * holds not even one: the error, exit 2. */
static int predict_max(const ridge_gpu *g, int n, const ridge_model *m, ridge_run_config *run, ridge_runtime rt,
                       int per_op, double *batch, cli_model_prediction *own, cli_model_prediction *p)
{
    int rc = CLI_EXIT_OK;
    run->batch = 1;
    for (int i = 0; i < n && rc == CLI_EXIT_OK; i++) {
        ridge_run_config r = *run;
        rc = cli_model_predict(&g[i], m, &r, rt, &own[i]);
        batch[i] = own[i].max_batch;
        cli_model_prediction_free(&own[i]);
        memset(&own[i], 0, sizeof own[i]);
        if (rc == CLI_EXIT_OK && batch[i] < 1) {
            char mname[CLI_NAME_TEXT_CAP];
            cli_error("--batch max: not even batch 1 of %s (%s) fits in the memory of %s",
                      cli_text(ridge_model_name(m), mname, sizeof mname), ridge_mode_name(run->mode), g[i].id);
            return CLI_EXIT_USAGE;
        }
        if (rc == CLI_EXIT_OK) {
            r.batch = batch[i];
            rc = cli_model_predict(&g[i], m, &r, rt, &own[i]);
        }
    }
    run->batch = batch[0];
    if (rc != CLI_EXIT_OK || !per_op)
        return rc;
    p[0] = own[0];
    return predict_all(g + 1, n - 1, m, run, rt, p + 1);
}

int cli_compare_workload(const ridge_gpu *g, int n, cli_workload *workload, const ridge_run_config *given,
                         int precision_given, ridge_runtime rt, cli_compare_opts o, cli_format fmt)
{
    ridge_model *m = NULL;
    ridge_err err;
    cli_model_prediction *p = calloc((size_t)n * 2, sizeof *p), *own = p ? p + n : NULL;
    double *batch = calloc((size_t)n, sizeof *batch);
    ridge_run_config run = *given;
    char note[96] = "";
    int rc;
    if (!p || !batch) {
        free(p);
        free(batch);
        return CLI_EXIT_FAILURE;
    }
    if (!precision_given)
        cli_default_precision(&run, g, n, note, sizeof note);
    rc = cli_workload_model(workload, &m, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s", err.msg);
        free(p);
        free(batch);
        return cli_exit_code(rc);
    }
    if (o.batch_max)
        rc = predict_max(g, n, m, &run, rt, o.per_op, batch, own, p);
    else
        rc = predict_all(g, n, m, &run, rt, p);
    if (rc == CLI_EXIT_OK) {
        cmp_workload c = {g, n, m, &run, rt, note, o.batch_max && o.per_op ? p : o.batch_max ? own : p,
                          o.batch_max ? own : NULL, o.batch_max ? batch : NULL};
        if (o.per_op)
            rc = cli_compare_per_op(&c, o.top, fmt);
        else
            rc = fmt == CLI_FMT_JSON ? workload_json(&c) : workload_table(&c, fmt);
    }
    for (int i = 0; i < n; i++) {
        if (!(o.batch_max && o.per_op && i == 0)) /* p[0] is own[0] then */
            cli_model_prediction_free(&p[i]);
        cli_model_prediction_free(&own[i]);
    }
    free(p);
    free(batch);
    ridge_model_free(m);
    return rc;
}
