/* ridge plan --rate R --slo-p99-ms X: a serving plan (ridge/serve_plan.h), its output and its
 * chart (docs/planning.md, "Serving plans"). SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_render.h"
#include "cli.h"
#include "plan_cli.h"
#include "prices.h"

/* A serving plan's top K as a text table. */
static int serve_text(const plan_opts *o, const ridge_model *m, const ridge_gpu *gpus,
                      const ridge_serve_plan_row *rows, size_t n, size_t nf)
{
    static const char *const hdr[] = {"rank", "gpu", "precision", "batch", "service [ms]", "replicas", "util",
                                      "p99 [ms]", "cost [USD/h]", "USD/1k req"};
    size_t infeasible[RIDGE_PLAN_REASON_COUNT] = {0};
    cli_table t;
    const char *row[11];
    char b[8][48];
    {
        char line[512];
        snprintf(line, sizeof line,
                 "serving plan: %s infer, %s requests/s, p99 <= %s ms; M/D/c (Allen-Cunneen), fixed batches: "
                 "%zu candidates, %zu feasible",
                 ridge_model_name(m), cli_num(o->rate_per_s, b[0], 48), cli_num(o->slo_p99_s * 1e3, b[1], 48), n, nf);
        cli_print_wrapped(stdout, line, 0, 2); /* 120 columns (docs/cli.md, "Output") */
    }
    if (cli_table_init(&t, 10)) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    cli_table_add(&t, hdr);
    for (int k = 2; k < 10; k++)
        t.right[k] = (unsigned char)(k >= 3);
    for (size_t k = 0; k < nf && k < (size_t)o->top; k++) {
        const ridge_serve_plan_row *r = &rows[k];
        snprintf(b[0], 48, "%zu", k + 1);
        snprintf(b[1], 48, "%.17g", o->batches[r->batch]);
        snprintf(b[2], 48, "%d", r->serve.replicas);
        row[0] = b[0];
        row[1] = gpus[r->gpu].id;
        row[2] = ridge_dtype_name(o->precisions[r->precision]);
        row[3] = b[1];
        row[4] = cli_num(r->service_s * 1e3, b[3], 48);
        row[5] = b[2];
        snprintf(b[4], 48, "%.2f", r->serve.utilisation);
        row[6] = b[4];
        row[7] = cli_num(r->serve.p99_s * 1e3, b[5], 48);
        row[8] = cli_num(r->cost_usd_per_hour, b[6], 48);
        row[9] = cli_num(r->cost_usd_per_1000_requests, b[7], 48);
        cli_table_add(&t, row);
    }
    if (nf)
        cli_table_print_text(&t, stdout);
    cli_table_free(&t);
    for (size_t k = 0; k < n; k++)
        infeasible[rows[k].reason]++;
    plan_print_infeasible(n - nf, infeasible);
    plan_print_prices(o, gpus);
    return CLI_EXIT_OK;
}

/* The ranked rows in o's format: text (the top K), csv or jsonl (every candidate). */
static int serve_print(const plan_opts *o, const ridge_model *m, const ridge_gpu *gpus,
                       const ridge_serve_plan_row *rows, size_t n, size_t nf)
{
    if (o->format == PF_TEXT)
        return serve_text(o, m, gpus, rows, n, nf);
    if (o->format == PF_CSV)
        printf("rank,gpu,precision,batch,feasible,reason,service_time_s,replicas,utilisation,p99_s,"
               "cost_usd_per_hour,cost_usd_per_1000_requests," CLI_PRICE_COLUMNS "\n");
    for (size_t k = 0; k < n; k++) {
        const ridge_serve_plan_row *r = &rows[k];
        int ok = r->reason == RIDGE_PLAN_FEASIBLE;
        const char *id = gpus[r->gpu].id, *prec = ridge_dtype_name(o->precisions[r->precision]);
        if (o->format == PF_CSV) {
            printf("%zu,%s,%s,%.17g,%s,%s,", ok ? k + 1 : 0, id, prec, o->batches[r->batch], ok ? "true" : "false",
                   ridge_plan_reason_key(r->reason));
            if (ok)
                printf("%.9g,%d,%.9g,%.9g,%.9g,%.9g", r->service_s, r->serve.replicas, r->serve.utilisation,
                       r->serve.p99_s, r->cost_usd_per_hour, r->cost_usd_per_1000_requests);
            else
                printf("%.9g,,,,,", r->service_s);
            cli_price_cells(&gpus[r->gpu], 0); /* the price behind the cost */
            printf("\n");
            continue;
        }
        printf("{\"schema_version\":%d,\"rank\":%zu,\"gpu\":\"%s\",\"precision\":\"%s\",\"batch\":%.17g,"
               "\"feasible\":%s,\"reason\":\"%s\",\"service_time_s\":%.17g",
               CLI_SCHEMA_VERSION, ok ? k + 1 : 0, id, prec, o->batches[r->batch], ok ? "true" : "false",
               ridge_plan_reason_key(r->reason), r->service_s);
        if (ok)
            printf(",\"replicas\":%d,\"utilisation\":%.17g,\"p99_s\":%.17g,\"cost_usd_per_hour\":%.17g,"
                   "\"cost_usd_per_1000_requests\":%.17g",
                   r->serve.replicas, r->serve.utilisation, r->serve.p99_s, r->cost_usd_per_hour,
                   r->cost_usd_per_1000_requests);
        cli_price_cells(&gpus[r->gpu], 1);
        printf("}\n");
    }
    return CLI_EXIT_OK;
}

/* The cheapest server per candidate GPU: its cost per million requests, replicas in the label. */
static int serve_bars(const plan_opts *o, const ridge_model *m, const ridge_gpu *gpus,
                      const ridge_serve_plan_row *rows, size_t nf, const ridge_plot_paths *paths, char (*names)[160],
                      const char **cats, double *v)
{
    ridge_err err = {{0}};
    ridge_bar_series ser;
    char title[256], note[256], b[2][48];
    size_t nc = 0;
    int st;
    for (size_t g = 0; g < o->ngpus; g++) {
        const ridge_serve_plan_row *r = ridge_serve_plan_cheapest(rows, nf, g);
        if (!r)
            continue;
        snprintf(names[nc], sizeof names[0], "%s: %d x b=%.17g", gpus[g].id, r->serve.replicas,
                 o->batches[r->batch]);
        cats[nc] = names[nc];
        v[nc++] = r->cost_usd_per_1000_requests * 1000.0; /* USD per million requests reads better */
    }
    snprintf(title, sizeof title, "%s serving %s requests/s at p99 <= %s ms: cheapest server per candidate",
             ridge_model_name(m), cli_num(o->rate_per_s, b[0], 48), cli_num(o->slo_p99_s * 1e3, b[1], 48));
    snprintf(note, sizeof note, "labels: candidate: replicas x batch; M/D/c closed form; lower is cheaper");
    ser = (ridge_bar_series){"cost per million requests", v};
    if (!nc) {
        cli_error("plan: no feasible serving configuration to chart");
        return CLI_EXIT_FAILURE;
    }
    if ((st = ridge_bars_write(cats, nc, &ser, 1,
                               &(ridge_bars_options){title, note, "Cost [USD per million requests]", 0, 1}, paths,
                               &err)) != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(st);
    }
    return cli_chart_render_noted(paths);
}

/* --chart serve, checked once the table is out: a bad --chart still prints the plan. */
static int serve_chart(const plan_opts *o, const ridge_model *m, const ridge_gpu *gpus,
                       const ridge_serve_plan_row *rows, size_t nf)
{
    ridge_plot_paths paths;
    ridge_err err = {{0}};
    char(*names)[160] = calloc(o->ngpus + 1, sizeof *names);
    const char **cats = calloc(o->ngpus + 1, sizeof *cats);
    double *v = calloc(o->ngpus + 1, sizeof *v);
    int rc;
    if (!names || !cats || !v) {
        cli_error("out of memory");
        rc = CLI_EXIT_FAILURE;
    } else if (strcmp(o->chart, "serve") != 0)
        rc = cli_usage_error("plan", "--chart: with --rate only 'serve' is drawn");
    else if (!o->output[0])
        rc = cli_usage_error("plan", "--chart needs -o/--output CHART.png|svg");
    else if (ridge_plot_paths_from_chart(o->output, &paths, &err) != RIDGE_OK)
        rc = cli_usage_error("plan", "-o: %s", err.msg);
    else if ((rc = cli_refuse_chart_over_input("plan", &paths, (const char *const[]){o->workload, o->cluster}, 2)) ==
             CLI_EXIT_OK)
        rc = serve_bars(o, m, gpus, rows, nf, &paths, names, cats, v);
    free(names);
    free(cats);
    free(v);
    return rc;
}

int plan_serve(const plan_opts *o)
{
    static const int one = 1;
    ridge_gpu *gpus = NULL;
    double *prices = NULL;
    ridge_model *m = NULL;
    ridge_plan *p = NULL;
    ridge_serve_plan_row *rows = NULL;
    size_t nf = 0;
    ridge_err err = {{0}};
    int rc, st;
    if (!(o->rate_per_s > 0) || !(o->slo_p99_s > 0))
        return cli_usage_error("plan", "a serving plan needs both --rate and --slo-p99-ms");
    if (o->run.mode != RIDGE_MODE_INFER)
        return cli_usage_error("plan", "a serving plan needs --mode infer");
    if ((rc = plan_setup(o, &one, 1, o->rate_per_s, &gpus, &prices, &m, &p)) != CLI_EXIT_OK)
        goto done;
    if (!(rows = calloc(ridge_serve_plan_size(p), sizeof *rows))) {
        cli_error("out of memory");
        rc = CLI_EXIT_FAILURE;
        goto done;
    }
    if ((st = ridge_serve_plan_eval(p, o->rate_per_s, o->slo_p99_s, rows, &nf, &err)) != RIDGE_OK) {
        cli_error("%s", err.msg);
        rc = cli_exit_code(st);
        goto done;
    }
    rc = serve_print(o, m, gpus, rows, ridge_serve_plan_size(p), nf);
    if (rc == CLI_EXIT_OK && o->chart[0])
        rc = serve_chart(o, m, gpus, rows, nf);
done:
    ridge_plan_free(p);
    ridge_model_free(m);
    free(rows);
    free(prices);
    free(gpus);
    return rc;
}
