/* ridge plan: what sweeps and serving plans print (plan_cli.h; docs/planning.md, "Output").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "emit.h"
#include "plan_cli.h"
#include "prices.h"

int plan_columns(const plan_opts *o)
{
    int par = 0;
    for (size_t i = 0; i < o->ntps; i++)
        par |= o->tps[i] != 1;
    for (size_t i = 0; i < o->npps; i++)
        par |= o->pps[i] != 1;
    for (size_t i = 0; i < o->nzeros; i++)
        par |= o->zeros[i] != 0;
    return (par ? PLAN_COL_PAR : 0) | (o->nrecomputes > 1 ? PLAN_COL_RECOMPUTE : 0) | (o->nsps > 1 ? PLAN_COL_SP : 0) |
           (o->nvstages > 1 ? PLAN_COL_VSTAGES : 0) | (o->nglobal_batches > 1 ? PLAN_COL_GLOBAL : 0);
}

/* The searched dimensions' fields of a row (after tp, pp, zero), as JSON members or CSV cells. */
static void print_dims(const ridge_plan_result *r, int par, int json)
{
    if (par & PLAN_COL_RECOMPUTE)
        printf(json ? "\"recompute\":\"%s\"," : "%s,", ridge_recompute_name(r->recompute));
    if (par & PLAN_COL_SP)
        printf(json ? "\"sp\":%d," : "%d,", r->sp);
    if (par & PLAN_COL_VSTAGES)
        printf(json ? "\"virtual_stages\":%d," : "%d,", r->vstages);
    if (par & PLAN_COL_GLOBAL)
        printf(json ? "\"global_batch\":%.17g,\"microbatches\":%.17g," : "%.17g,%.17g,", r->global_batch,
               r->microbatches);
}

/* A JSON string: quotes, backslashes and control characters escaped. */
void plan_print_row_jsonl(const ridge_plan_result *r, const ridge_gpu *g, int par)
{
    printf("{\"schema_version\":%d,\"index\":%zu,\"gpu\":\"%s\",\"precision\":\"%s\",\"gpus\":%d,"
           "\"batch_per_gpu\":%.17g,",
           CLI_SCHEMA_VERSION, r->index, g->id, ridge_dtype_name(r->precision), r->count, r->batch);
    if (par & PLAN_COL_PAR)
        printf("\"tp\":%d,\"pp\":%d,\"zero\":%d,", r->tp, r->pp, r->zero);
    print_dims(r, par, 1);
    printf("\"feasible\":%s,\"reason\":\"%s\"", r->reason == RIDGE_PLAN_FEASIBLE ? "true" : "false",
           ridge_plan_reason_key(r->reason));
    printf(",\"memory_per_gpu_bytes\":%.17g", r->memory_bytes);
    if (r->step_time_s > 0) {
        printf(",\"step_time_s\":%.17g,\"comm_s\":%.17g,\"steps\":%.17g,\"time_s\":%.17g,\"utilisation\":%.17g,"
               "\"power_per_gpu_w\":%.17g,\"energy_j\":%.17g,\"throughput_per_s\":%.17g",
               r->step_time_s, r->comm_s, r->steps, r->time_s, r->utilisation, r->power_w, r->energy_j,
               r->throughput);
        if (!isnan(r->cost_usd))
            printf(",\"cost_usd\":%.17g", r->cost_usd);
        else
            printf(",\"cost_usd\":null");
    }
    cli_price_cells(g, 1);
    printf("}\n");
}

void plan_print_row_csv(const ridge_plan_result *r, const ridge_gpu *g, int par)
{
    printf("%zu,%s,%s,%d,%.17g,", r->index, g->id, ridge_dtype_name(r->precision), r->count, r->batch);
    if (par & PLAN_COL_PAR)
        printf("%d,%d,%d,", r->tp, r->pp, r->zero);
    print_dims(r, par, 0);
    printf("%s,%s,%.9g,", r->reason == RIDGE_PLAN_FEASIBLE ? "true" : "false", ridge_plan_reason_key(r->reason),
           r->memory_bytes);
    if (r->step_time_s > 0) {
        printf("%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,", r->step_time_s, r->comm_s, r->steps, r->time_s,
               r->utilisation, r->power_w, r->energy_j, r->throughput);
        if (!isnan(r->cost_usd))
            printf("%.9g", r->cost_usd);
    } else
        printf(",,,,,,,,");
    cli_price_cells(g, 0);
    putchar('\n');
}

void plan_print_csv_header(int par)
{
    printf("index,gpu,precision,gpus,batch_per_gpu,%s%s%s%s%sfeasible,reason,memory_per_gpu_bytes,step_time_s,"
           "comm_s,steps,time_s,utilisation,power_per_gpu_w,energy_j,throughput_per_s,cost_usd,"
           CLI_PRICE_COLUMNS "\n",
           par & PLAN_COL_PAR ? "tp,pp,zero," : "", par & PLAN_COL_RECOMPUTE ? "recompute," : "",
           par & PLAN_COL_SP ? "sp," : "", par & PLAN_COL_VSTAGES ? "virtual_stages," : "",
           par & PLAN_COL_GLOBAL ? "global_batch,microbatches," : "");
}

void plan_print_prices(const plan_opts *o, const ridge_gpu *gpus)
{
    cli_prices_print(gpus, plan_candidate_gpus(o), stdout);
}

void plan_print_infeasible(size_t n, const size_t *by_reason)
{
    printf("infeasible: %zu", n);
    for (int q = 1; q < RIDGE_PLAN_REASON_COUNT; q++)
        if (by_reason[q])
            printf(", %s %zu", ridge_plan_reason_name((ridge_plan_reason)q), by_reason[q]);
    printf("\n");
}

/* The text table of the top K (CSV and JSONL list every configuration, in the order of the sweep,
 * with other fields: plan_print_row_csv, plan_print_row_jsonl). Text only, so the cells are the
 * display values; the heading of the unit cost and the tp, pp, zero columns (with parallelism
 * ranges) are set per plan; width 1: right-aligned. */
static const cli_emit_col text_cols[] = {
    CLI_EMIT_STR_COL(NULL, NULL, "rank"), /* "1*": on the Pareto front */
    CLI_EMIT_STR_COL(NULL, NULL, "gpu"),
    CLI_EMIT_STR_COL(NULL, NULL, "precision"),
    {NULL, NULL, NULL, "gpus", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_whole, NULL},
    {NULL, NULL, NULL, "batch/gpu", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_g17, NULL},
    {NULL, NULL, NULL, "tp", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_whole, NULL},
    {NULL, NULL, NULL, "pp", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_whole, NULL},
    {NULL, NULL, NULL, "zero", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_whole, NULL},
    CLI_EMIT_STR_COL(NULL, NULL, "recompute"), /* the searched dimensions: TEXT_DIMS.. */
    {NULL, NULL, NULL, "sp", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_whole, NULL},
    {NULL, NULL, NULL, "vstages", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_whole, NULL},
    {NULL, NULL, NULL, "global batch", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_g17, NULL},
    {NULL, NULL, NULL, "step", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_time, NULL},
    {NULL, NULL, NULL, "time", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_time, NULL},
    {NULL, NULL, NULL, "cost [USD]", 1, 1, CLI_EMIT_NUM, 0, NULL, NULL},
    {NULL, NULL, NULL, NULL, 1, 1, CLI_EMIT_NUM, 0, NULL, NULL},
    {NULL, NULL, NULL, "energy [kWh]", 1, 1, CLI_EMIT_NUM, 0, NULL, NULL},
    {NULL, NULL, NULL, "power [kW]", 1, 1, CLI_EMIT_NUM, 0, NULL, NULL},
};
#define NTEXT (sizeof text_cols / sizeof text_cols[0])
#define TEXT_DIMS 8 /* the recompute column */
#define TEXT_UNIT_COST (TEXT_DIMS + 7)

/* One ranked configuration as a text row. */
static int text_row(const cli_emit_table *e, size_t rank, const ridge_plan_result *r, const ridge_gpu *gpus,
                    const plan_opts *o)
{
    int tokens = o->target_kind == RIDGE_PLAN_TARGET_TOKENS, nocost = isnan(r->cost_usd);
    char rk[32];
    snprintf(rk, sizeof rk, "%zu%s", rank, r->pareto ? "*" : "");
    const cli_emit_val v[NTEXT] = {{rk, 0, 0},
                                   {gpus[r->gpu].id, 0, 0},
                                   {ridge_dtype_name(r->precision), 0, 0},
                                   {NULL, r->count, 0},
                                   {NULL, r->batch, 0},
                                   {NULL, r->tp, 0},
                                   {NULL, r->pp, 0},
                                   {NULL, r->zero, 0},
                                   {ridge_recompute_name(r->recompute), 0, 0},
                                   {NULL, r->sp, 0},
                                   {NULL, r->vstages, 0},
                                   {NULL, r->global_batch, 0},
                                   {NULL, r->step_time_s, 0},
                                   {NULL, r->time_s, 0},
                                   {NULL, r->cost_usd, nocost},
                                   {NULL, nocost ? 0 : r->cost_usd / (o->target / (tokens ? 1e6 : 1e3)), nocost},
                                   {NULL, r->energy_j / 3.6e6, 0},
                                   {NULL, r->power_w * r->count / 1e3, 0}};
    return cli_emit_row(e, v, 1);
}

int plan_print_text(const plan_opts *o, const ridge_model *m, const ridge_gpu *gpus, ridge_plan_select *sel,
                    size_t space, const size_t *infeasible, int par)
{
    size_t nrows, nfront = ridge_plan_select_front(sel), nf = ridge_plan_select_feasible(sel);
    const ridge_plan_result *rows = ridge_plan_select_rows(sel, &nrows);
    int tokens = o->target_kind == RIDGE_PLAN_TARGET_TOKENS;
    cli_emit_col cols[NTEXT];
    cli_emit_table e;
    cli_table t;
    char tb[32];
    printf("plan: %s %s%s%s, %s %s, objective %s: %zu configurations, %zu feasible\n", ridge_model_name(m),
           ridge_mode_name(o->run.mode), o->cluster[0] ? " on " : "", o->cluster, cli_num_si(o->target, tb, sizeof tb),
           tokens ? "tokens" : "samples", ridge_plan_objective_name(o->objective), space, nf);
    memcpy(cols, text_cols, sizeof cols);
    /* Unit cost: per million tokens, or per 1,000 samples (images, sequences). */
    cols[TEXT_UNIT_COST].head = tokens ? "USD/M tokens" : "USD/1k samples";
    if (!(par & PLAN_COL_PAR))
        cols[5].head = cols[6].head = cols[7].head = NULL;
    for (int k = 0; k < 4; k++) /* recompute, sp, vstages, global batch */
        if (!(par & (PLAN_COL_RECOMPUTE << k)))
            cols[TEXT_DIMS + k].head = NULL;
    if (cli_emit_open(&e, cols, NTEXT, CLI_FMT_TEXT, &t)) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    t.nkey = 3; /* a table wider than 120 columns wraps, each part led by rank, gpu, precision */
    for (size_t k = 0; k < nrows; k++)
        if (text_row(&e, k + 1, &rows[k], gpus, o)) {
            cli_table_free(&t);
            cli_error("out of memory");
            return CLI_EXIT_FAILURE;
        }
    if (nf)
        cli_emit_end(&e);
    cli_table_free(&t);
    printf("Pareto front (time, %s): %zu configurations, their rank marked *\n", o->pareto_energy ? "energy" : "cost", nfront);
    plan_print_infeasible(space - nf, infeasible);
    plan_print_prices(o, gpus);
    return CLI_EXIT_OK;
}
