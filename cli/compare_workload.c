/* ridge compare --workload: one model run predicted on several GPUs, side by side (step time,
 * throughput, speed-up over the first GPU, MFU, throughput per watt and per dollar, memory, fit).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "compare_workload.h"

#include <stdlib.h>

#include "json_emit.h"
#include "model_run.h"
#include "predict_emit.h"

/* What the comparison adds to one GPU's prediction, computed once for every format. */
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

/* One model run compared across GPUs: what every emitter below reads. */
typedef struct {
    const ridge_gpu *g;
    int n;
    const ridge_model *m;
    const ridge_run_config *run;
    ridge_runtime rt;
    const char *note;
    const cli_model_prediction *p;
    const cmp_derived *d;
} cmp_workload;

static int workload_json(const cmp_workload *c)
{
    const ridge_run_config *run = c->run;
    cJSON *root = cJSON_CreateObject(), *arr;
    const cli_json_field head[] = {
        CLI_JNUM("schema_version", CLI_SCHEMA_VERSION), CLI_JSTR("workload", ridge_model_name(c->m)),
        CLI_JSTR("mode", ridge_mode_name(run->mode)),   CLI_JNUM("batch", run->batch),
        CLI_JSTR("precision", ridge_dtype_name(run->precision)), CLI_JSTR("runtime", ridge_runtime_name(c->rt))};
    CLI_JSON_ADD(root, head);
    cli_run_json(root, run);
    cJSON_AddStringToObject(root, "throughput_unit", c->p[0].throughput_unit);
    arr = cJSON_AddArrayToObject(root, "gpus");
    for (int i = 0; i < c->n; i++) {
        const cli_model_prediction *p = &c->p[i];
        const cmp_derived *d = &c->d[i];
        const cli_json_field row[] = {
            CLI_JSTR("gpu", c->g[i].id), CLI_JNUM("time_s", p->time_s), CLI_JNUM("throughput", p->throughput),
            CLI_JNUM("speedup_over_first", d->speedup), CLI_JNUM("mfu", p->mfu),
            CLI_JNUM("throughput_per_w", d->per_w),
            CLI_JNUM_OR_NULL("throughput_per_usd_per_hour", d->has_usd, d->per_usd),
            CLI_JNUM("memory_total_bytes", p->mem.total_bytes), CLI_JNUM("memory_capacity_bytes", p->capacity_bytes),
            CLI_JBOOL("fits", p->fits), CLI_JNUM("max_batch", p->max_batch)};
        cJSON_AddItemToArray(arr, CLI_JSON_ADD(cJSON_CreateObject(), row));
    }
    return cli_print_json(root);
}

/* The header row: CSV keys, or text labels with the throughput unit (numbers right-aligned). */
static void workload_header(cli_table *t, const char *throughput_unit, cli_format fmt)
{
    char unit[64], hdr_tp[80], hdr_w[80];
    snprintf(unit, sizeof unit, "%s", throughput_unit);
    if (fmt == CLI_FMT_CSV) {
        const char *h[11] = {"gpu", "time_s", "throughput", "speedup_over_first", "mfu", "throughput_per_w",
                             "throughput_per_usd_per_hour", "memory_total_bytes", "memory_capacity_bytes", "fits",
                             "max_batch"};
        cli_table_add(t, h);
        return;
    }
    snprintf(hdr_tp, sizeof hdr_tp, "throughput [%s]", unit);
    snprintf(hdr_w, sizeof hdr_w, "per watt [%.20s/W]", unit);
    const char *h[11] = {"gpu", "step [ms]", hdr_tp, "speedup", "MFU [%]", hdr_w, "per USD/h", "memory [GiB]",
                         "capacity [GiB]", "fits", "max batch"};
    cli_table_add(t, h);
    for (int k = 1; k < 11; k++)
        t->right[k] = 1;
}

/* One GPU's row: SI values in CSV, display units in text. */
static void workload_row(cli_table *t, const ridge_gpu *g, const cli_model_prediction *p, const cmp_derived *d,
                         cli_format fmt)
{
    char b[10][48];
    if (fmt == CLI_FMT_CSV) {
        snprintf(b[0], 48, "%.9g", p->time_s);
        snprintf(b[1], 48, "%.9g", p->throughput);
        snprintf(b[2], 48, "%.6g", d->speedup);
        snprintf(b[3], 48, "%.6g", p->mfu);
        snprintf(b[4], 48, "%.6g", d->per_w);
        if (d->has_usd)
            snprintf(b[5], 48, "%.6g", d->per_usd);
        else
            b[5][0] = '\0';
        snprintf(b[6], 48, "%.9g", p->mem.total_bytes);
        snprintf(b[7], 48, "%.9g", p->capacity_bytes);
        snprintf(b[9], 48, "%.0f", p->max_batch);
    } else {
        cli_num(p->time_s * 1e3, b[0], 48);
        cli_num(p->throughput, b[1], 48);
        snprintf(b[2], 48, "%.3gx", d->speedup);
        cli_num(p->mfu * 100, b[3], 48);
        cli_num(d->per_w, b[4], 48);
        if (d->has_usd)
            cli_num(d->per_usd, b[5], 48);
        else
            snprintf(b[5], 48, "-");
        cli_num(p->mem.total_bytes / 1073741824.0, b[6], 48);
        cli_num(p->capacity_bytes / 1073741824.0, b[7], 48);
        cli_num(p->max_batch, b[9], 48);
    }
    const char *row[11] = {g->id, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                           fmt == CLI_FMT_CSV ? (p->fits ? "true" : "false") : (p->fits ? "yes" : "NO"), b[9]};
    cli_table_add(t, row);
}

static int workload_table(const cmp_workload *c, cli_format fmt)
{
    cli_table t;
    if (cli_table_init(&t, 11))
        return CLI_EXIT_FAILURE;
    workload_header(&t, c->p[0].throughput_unit, fmt);
    for (int i = 0; i < c->n; i++)
        workload_row(&t, &c->g[i], &c->p[i], &c->d[i], fmt);
    if (fmt == CLI_FMT_CSV) {
        cli_table_print_csv(&t, stdout);
    } else {
        char mname[CLI_NAME_TEXT_CAP], sum[256];
        printf("%s, %s, %s runtime\n\n", cli_text(ridge_model_name(c->m), mname, sizeof mname),
               cli_run_summary(c->run, c->note, sum, sizeof sum), ridge_runtime_name(c->rt));
        cli_table_print_text(&t, stdout);
        printf("\nSpeedup is over %s; per watt uses board power (TDP); per USD/h needs a catalogue price.\n",
               c->g[0].id);
    }
    cli_table_free(&t);
    return CLI_EXIT_OK;
}

int cli_compare_workload(const ridge_gpu *g, int n, const char *workload, const ridge_run_config *given,
                            int precision_given, ridge_runtime rt, cli_format fmt)
{
    ridge_model *m = NULL;
    ridge_err err;
    cli_model_prediction *p = calloc((size_t)n, sizeof *p);
    cmp_derived *d = calloc((size_t)n, sizeof *d);
    ridge_run_config run = *given;
    char note[96] = "";
    int rc;
    if (!p || !d) {
        free(p);
        free(d);
        return CLI_EXIT_FAILURE;
    }
    if (!precision_given)
        cli_default_precision(&run, g, n, note, sizeof note);
    rc = ridge_model_load(workload, &m, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s", err.msg);
        free(p);
        free(d);
        return cli_exit_code(rc);
    }
    rc = CLI_EXIT_OK;
    for (int i = 0; i < n && rc == CLI_EXIT_OK; i++)
        rc = cli_model_predict(&g[i], m, &run, rt, &p[i]);
    if (rc == CLI_EXIT_OK) {
        cmp_workload c = {g, n, m, &run, rt, note, p, d};
        for (int i = 0; i < n; i++)
            derive(&g[i], &p[i], &p[0], &d[i]);
        rc = fmt == CLI_FMT_JSON ? workload_json(&c) : workload_table(&c, fmt);
    }
    for (int i = 0; i < n; i++)
        cli_model_prediction_free(&p[i]);
    free(p);
    free(d);
    ridge_model_free(m);
    return rc;
}
