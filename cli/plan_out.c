/* ridge plan: what sweeps and serving plans print (plan_cli.h; docs/planning.md, "Output").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "plan_cli.h"

void plan_print_row_jsonl(const ridge_plan_result *r, const ridge_gpu *g, int par)
{
    printf("{\"schema_version\":%d,\"index\":%zu,\"gpu\":\"%s\",\"precision\":\"%s\",\"gpus\":%d,"
           "\"batch_per_gpu\":%.17g,",
           CLI_SCHEMA_VERSION, r->index, g->id, ridge_dtype_name(r->precision), r->count, r->batch);
    if (par)
        printf("\"tp\":%d,\"pp\":%d,\"zero\":%d,", r->tp, r->pp, r->zero);
    printf("\"feasible\":%s,\"reason\":\"%s\"", r->reason == RIDGE_PLAN_FEASIBLE ? "true" : "false",
           ridge_plan_reason_key(r->reason));
    printf(",\"memory_bytes_per_gpu\":%.6g", r->memory_bytes);
    if (r->step_time_s > 0) {
        printf(",\"step_time_s\":%.6g,\"comm_s\":%.6g,\"steps\":%.17g,\"time_s\":%.6g,\"utilisation\":%.4f,"
               "\"power_w_per_gpu\":%.6g,\"energy_j\":%.6g,\"throughput_per_s\":%.6g",
               r->step_time_s, r->comm_s, r->steps, r->time_s, r->utilisation, r->power_w, r->energy_j,
               r->throughput);
        if (!isnan(r->cost_usd))
            printf(",\"cost_usd\":%.6g", r->cost_usd);
        else
            printf(",\"cost_usd\":null");
    }
    printf("}\n");
}

void plan_print_row_csv(const ridge_plan_result *r, const ridge_gpu *g, int par)
{
    printf("%zu,%s,%s,%d,%.17g,", r->index, g->id, ridge_dtype_name(r->precision), r->count, r->batch);
    if (par)
        printf("%d,%d,%d,", r->tp, r->pp, r->zero);
    printf("%d,%s,%.6g,", r->reason == RIDGE_PLAN_FEASIBLE, ridge_plan_reason_key(r->reason), r->memory_bytes);
    if (r->step_time_s > 0) {
        printf("%.6g,%.6g,%.17g,%.6g,%.4f,%.6g,%.6g,%.6g,", r->step_time_s, r->comm_s, r->steps, r->time_s,
               r->utilisation, r->power_w, r->energy_j, r->throughput);
        if (!isnan(r->cost_usd))
            printf("%.6g\n", r->cost_usd);
        else
            printf("\n");
    } else
        printf(",,,,,,,,\n");
}

void plan_progress(double done, double total)
{
    int w = 40, k = total > 0 ? (int)(w * done / total) : w;
    fprintf(stderr, "\r[%.*s%*s] %3.0f%%", k, "########################################", w - k, "",
            total > 0 ? 100.0 * done / total : 100.0);
    fflush(stderr);
}

void plan_print_csv_header(int par)
{
    printf("index,gpu,precision,gpus,batch_per_gpu,%sfeasible,reason,memory_bytes_per_gpu,step_time_s,comm_s,"
           "steps,time_s,utilisation,power_w_per_gpu,energy_j,throughput_per_s,cost_usd\n",
           par ? "tp,pp,zero," : "");
}

void plan_print_infeasible(size_t n, const size_t *by_reason)
{
    printf("infeasible: %zu", n);
    for (int q = 1; q < RIDGE_PLAN_REASON_COUNT; q++)
        if (by_reason[q])
            printf(", %s %zu", ridge_plan_reason_name((ridge_plan_reason)q), by_reason[q]);
    printf("\n");
}

/* The text table's header: with parallelism ranges, tp, pp, zero after the batch. */
static void text_header(cli_table *t, int tokens, int par)
{
    /* Unit cost: per million tokens, or per 1,000 samples (images, sequences). */
    const char *hdr[] = {"rank",       "gpu",          "precision",
                         "gpus",       "batch/gpu",    "step [ms]",
                         "time [h]",   "cost [USD]",   tokens ? "USD/M tokens" : "USD/1k samples",
                         "energy [kWh]", "power [kW]", "pareto"};
    const char *phdr[15];
    for (int q = 0, k = 0; q < 12; q++) {
        phdr[k++] = hdr[q];
        if (q == 4) {
            phdr[k++] = "tp";
            phdr[k++] = "pp";
            phdr[k++] = "zero";
        }
    }
    cli_table_add(t, par ? phdr : hdr);
}

/* One ranked configuration as a text row. */
static void text_row(cli_table *t, size_t rank, const ridge_plan_result *r, const ridge_gpu *gpus,
                     const plan_opts *o, int par)
{
    int tokens = o->target_kind == RIDGE_PLAN_TARGET_TOKENS;
    char b[16][48];
    const char *row[15];
    snprintf(b[0], sizeof b[0], "%zu", rank);
    snprintf(b[1], sizeof b[1], "%s", gpus[r->gpu].id);
    snprintf(b[2], sizeof b[2], "%s", ridge_dtype_name(r->precision));
    snprintf(b[3], sizeof b[3], "%d", r->count);
    snprintf(b[4], sizeof b[4], "%.17g", r->batch);
    cli_num(r->step_time_s * 1e3, b[5], sizeof b[5]);
    cli_num(r->time_s / 3600.0, b[6], sizeof b[6]);
    if (isnan(r->cost_usd)) {
        snprintf(b[7], sizeof b[7], "-");
        snprintf(b[8], sizeof b[8], "-");
    } else {
        cli_num(r->cost_usd, b[7], sizeof b[7]);
        cli_num(r->cost_usd / (o->target / (tokens ? 1e6 : 1e3)), b[8], sizeof b[8]);
    }
    cli_num(r->energy_j / 3.6e6, b[9], sizeof b[9]);
    cli_num(r->power_w * r->count / 1e3, b[10], sizeof b[10]);
    snprintf(b[11], sizeof b[11], "%s", r->pareto ? "*" : "");
    snprintf(b[12], sizeof b[12], "%d", r->tp);
    snprintf(b[13], sizeof b[13], "%d", r->pp);
    snprintf(b[14], sizeof b[14], "%d", r->zero);
    for (int q = 0, w = 0; q < 12; q++) {
        row[w++] = b[q];
        if (par && q == 4) {
            row[w++] = b[12];
            row[w++] = b[13];
            row[w++] = b[14];
        }
    }
    cli_table_add(t, row);
}

int plan_print_text(const plan_opts *o, const ridge_model *m, const ridge_gpu *gpus, ridge_plan_result *all,
                    size_t space, size_t *order, const size_t *infeasible, int par)
{
    size_t nfront = ridge_plan_pareto(all, space, o->pareto_energy, order); /* order: scratch */
    size_t nf = ridge_plan_rank(all, space, o->objective, order);
    int ncol = par ? 15 : 12, tokens = o->target_kind == RIDGE_PLAN_TARGET_TOKENS;
    cli_table t;
    printf("plan: %s %s, %.4g %s, objective %s: %zu configurations, %zu feasible\n", ridge_model_name(m),
           ridge_mode_name(o->run.mode), o->target, tokens ? "tokens" : "samples",
           ridge_plan_objective_name(o->objective), space, nf);
    if (cli_table_init(&t, ncol)) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    text_header(&t, tokens, par);
    for (int k = 1; k < ncol; k++)
        t.right[k] = (unsigned char)(k >= 3 && k <= ncol - 2);
    for (size_t k = 0; k < nf && k < (size_t)o->top; k++)
        text_row(&t, k + 1, &all[order[k]], gpus, o, par);
    if (nf)
        cli_table_print_text(&t, stdout);
    cli_table_free(&t);
    printf("Pareto front (time, %s): %zu configurations, marked *\n", o->pareto_energy ? "energy" : "cost", nfront);
    plan_print_infeasible(space - nf, infeasible);
    return CLI_EXIT_OK;
}
