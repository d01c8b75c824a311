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

/* What the comparison adds to one GPU's prediction (derive, as each row is written). */
typedef struct {
    double speedup;  /* over the first GPU */
    double per_w;    /* throughput per watt of board power */
    double per_usd;  /* throughput per USD per GPU-hour, where has_usd */
    int has_usd;
} cmp_derived;

static void derive(const ridge_gpu *g, const cli_model_prediction *p, const cli_model_prediction *first,
                   cmp_derived *d)
{
    d->speedup = first->time_s / p->time_s;
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
};
#define NCOLS (sizeof workload_cols / sizeof workload_cols[0])

/* The GPUs' rows into e. */
static int workload_rows(const cmp_workload *c, const cli_emit_table *e)
{
    for (int i = 0; i < c->n; i++) {
        const cli_model_prediction *p = &c->p[i];
        cmp_derived dv, *d = &dv;
        derive(&c->g[i], p, &c->p[0], d);
        const cli_emit_val v[NCOLS] = {{c->g[i].id, 0, 0},
                                       {NULL, p->time_s, 0},
                                       {NULL, p->throughput, 0},
                                       {NULL, d->speedup, 0},
                                       {NULL, p->mfu, 0},
                                       {NULL, d->per_w, 0},
                                       {NULL, d->per_usd, !d->has_usd},
                                       {NULL, p->mem.total_bytes, 0},
                                       {NULL, p->capacity_bytes, 0},
                                       {NULL, p->fits, 0},
                                       {NULL, p->max_batch, 0}};
        if (cli_emit_row(e, v, 1))
            return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}

cJSON *cli_compare_workload_json(const cmp_workload *c)
{
    const ridge_run_config *run = c->run;
    cJSON *root = cJSON_CreateObject();
    cli_emit_table e = {workload_cols, NCOLS, CLI_FMT_JSON, NULL, NULL};
    const cli_json_field head[] = {
        CLI_JNUM("schema_version", CLI_SCHEMA_VERSION), CLI_JSTR("workload", ridge_model_name(c->m)),
        CLI_JSTR("mode", ridge_mode_name(run->mode)),   CLI_JNUM("batch", run->batch),
        CLI_JSTR("precision", ridge_dtype_name(run->precision)), CLI_JSTR("runtime", ridge_runtime_name(c->rt))};
    CLI_JSON_ADD(root, head);
    cli_run_json(root, run);
    cJSON_AddStringToObject(root, "throughput_unit", c->p[0].throughput_unit);
    e.rows = cJSON_AddArrayToObject(root, "gpus");
    if (!e.rows || workload_rows(c, &e)) {
        cJSON_Delete(root);
        return NULL;
    }
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
    memcpy(cols, workload_cols, sizeof cols);
    snprintf(unit, sizeof unit, "%s", c->p[0].throughput_unit);
    snprintf(hdr_tp, sizeof hdr_tp, "throughput [%s]", unit);
    snprintf(hdr_w, sizeof hdr_w, "per watt [%.20s/W]", unit);
    cols[2].head = hdr_tp;
    cols[5].head = hdr_w;
    if (cli_emit_open(&e, cols, NCOLS, fmt, &t) || workload_rows(c, &e)) {
        cli_table_free(&t);
        return CLI_EXIT_FAILURE;
    }
    if (fmt == CLI_FMT_CSV) {
        cli_emit_end(&e);
    } else {
        char mname[CLI_NAME_TEXT_CAP], sum[256];
        printf("%s, %s, %s runtime\n\n", cli_text(ridge_model_name(c->m), mname, sizeof mname),
               cli_run_summary(c->run, c->note, sum, sizeof sum), ridge_runtime_name(c->rt));
        cli_emit_end(&e);
        printf("\nSpeedup is over %s; per watt uses board power (TDP); per USD/h needs a catalogue price.\n",
               c->g[0].id);
    }
    return CLI_EXIT_OK;
}

int cli_compare_workload(const ridge_gpu *g, int n, const char *workload, const ridge_run_config *given,
                         int precision_given, ridge_runtime rt, int per_op, int top, cli_format fmt)
{
    ridge_model *m = NULL;
    ridge_err err;
    cli_model_prediction *p = calloc((size_t)n, sizeof *p);
    ridge_run_config run = *given;
    char note[96] = "";
    int rc;
    if (!p)
        return CLI_EXIT_FAILURE;
    if (!precision_given)
        cli_default_precision(&run, g, n, note, sizeof note);
    rc = ridge_model_load(workload, &m, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s", err.msg);
        free(p);
        return cli_exit_code(rc);
    }
    rc = CLI_EXIT_OK;
    for (int i = 0; i < n && rc == CLI_EXIT_OK; i++)
        rc = cli_model_predict(&g[i], m, &run, rt, &p[i]);
    if (rc == CLI_EXIT_OK) {
        cmp_workload c = {g, n, m, &run, rt, note, p};
        if (per_op)
            rc = cli_compare_per_op(&c, top, fmt);
        else
            rc = fmt == CLI_FMT_JSON ? workload_json(&c) : workload_table(&c, fmt);
    }
    for (int i = 0; i < n; i++)
        cli_model_prediction_free(&p[i]);
    free(p);
    ridge_model_free(m);
    return rc;
}
