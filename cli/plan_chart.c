/* ridge plan --chart: the data and gnuplot script of each chart kind (plan_cli.h; docs/planning.md,
 * "Charts"). SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_render.h"
#include "cli.h"
#include "plan_cli.h"

/* What every sweep chart draws from: the options, the candidates and their plan. */
typedef struct {
    const plan_opts *o;
    const ridge_gpu *gpus;
    const ridge_model *m;
    const ridge_plan *p;
    const char *unit; /* "tokens" or "samples" */
    ridge_plot_paths paths;
    ridge_err err;
} chart_ctx;

/* The one line for an allocation that failed. */
static int oom(void)
{
    cli_error("out of memory");
    return CLI_EXIT_FAILURE;
}

/* An axis is logarithmic when its positive, finite data span more than 20x (docs/planning.md). */
static int span_is_wide(const double *v, size_t n)
{
    double lo = HUGE_VAL, hi = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]) && v[i] > 0) {
            lo = fmin(lo, v[i]);
            hi = fmax(hi, v[i]);
        }
    return hi > 0 && hi / lo > 20;
}

/* A chart without a point is bad input, as a sweep that fits nothing: one line, exit 2, before
 * anything is written (gnuplot would fail on its empty ranges). */
static int nothing_to_chart(const plan_opts *o, const char *why)
{
    cli_error("plan: --chart %s: %s; nothing to chart", o->chart, why);
    return CLI_EXIT_USAGE;
}

/* Why no configuration has a point on the Pareto chart: none feasible ("infeasible: 3, no price
 * 2, over power cap 1"), or none with a cost (a time objective needs no price). */
static int pareto_nothing(const chart_ctx *c, const ridge_plan_result *all, size_t space, size_t nf)
{
    size_t by[RIDGE_PLAN_REASON_COUNT] = {0}, len = 0;
    char list[256] = "", why[320];
    if (nf)
        return nothing_to_chart(c->o, "no feasible configuration has a price, so none has a cost (give --price "
                                      "ID=USD_PER_HOUR or --prices FILE)");
    for (size_t i = 0; i < space; i++)
        if (all[i].reason > RIDGE_PLAN_FEASIBLE && all[i].reason < RIDGE_PLAN_REASON_COUNT)
            by[all[i].reason]++;
    for (int q = 1; q < RIDGE_PLAN_REASON_COUNT && len < sizeof list; q++)
        if (by[q])
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s %zu", len ? ", " : "",
                                    ridge_plan_reason_name((ridge_plan_reason)q), by[q]);
    snprintf(why, sizeof why, "no feasible configuration (infeasible: %zu, %s)", space, list);
    return nothing_to_chart(c->o, why);
}

/* Each chart below prints its table, returns an exit code (CLI_EXIT_OK once it has written its
 * .dat/.gp) and sets *st to the status of that write. */

/* The short id of GPU g on a chart: its id up to the first '-' ("a100"), unless another GPU of
 * the chart has the same short id (then the whole id). */
static void short_gpu_id(const chart_ctx *c, size_t g, char *out, size_t cap)
{
    const char *id = c->gpus[g].id;
    size_t n = strcspn(id, "-");
    for (size_t h = 0; h < c->o->ngpus; h++)
        if (h != g && strncmp(c->gpus[h].id, id, n) == 0 && strcspn(c->gpus[h].id, "-") == n)
            n = strlen(id);
    snprintf(out, cap, "%.*s", (int)n, id);
}

/* A front point's label: "a100 ×8, batch 64" (with the precision when the sweep has several). */
static void front_label(const chart_ctx *c, const ridge_plan_result *r, char *out, size_t cap)
{
    char gid[48];
    short_gpu_id(c, (size_t)r->gpu, gid, sizeof gid);
    if (c->o->nprecisions > 1)
        snprintf(out, cap, "%s ×%d %s, batch %.17g", gid, r->count, ridge_dtype_name(r->precision), r->batch);
    else
        snprintf(out, cap, "%s ×%d, batch %.17g", gid, r->count, r->batch);
}

/* Series of the Pareto chart: each GPU's feasible results, then the front (ranked by time, so the
 * front comes in order) with a label per point (labs, lab_p: space entries), the front listed on
 * stdout. xs, ys hold 2 x space + 1. */
static size_t pareto_series(chart_ctx *c, const ridge_plan_result *all, const size_t *order, size_t nf,
                            size_t nfront, double *xs, double *ys, char (*names)[160], ridge_scatter_series *ser,
                            char (*labs)[128], const char **lab_p, size_t *k_out)
{
    const plan_opts *o = c->o;
    size_t ns = 0, k = 0, first;
    char b[2][48];
    for (size_t g = 0; g < o->ngpus; g++) {
        first = k;
        for (size_t i = 0; i < nf; i++) {
            const ridge_plan_result *r = &all[order[i]];
            if ((size_t)r->gpu == g && !isnan(r->cost_usd)) {
                xs[k] = r->time_s / 3600.0;
                ys[k++] = r->cost_usd;
            }
        }
        snprintf(names[ns], sizeof names[0], "%s (%zu feasible)", c->gpus[g].id, k - first);
        ser[ns] = (ridge_scatter_series){names[ns], xs + first, ys + first, k - first, (int)g, 0, NULL};
        ns++;
    }
    first = k;
    for (size_t i = 0; i < nf; i++)
        if (all[order[i]].pareto) {
            front_label(c, &all[order[i]], labs[k - first], sizeof labs[0]);
            lab_p[k - first] = labs[k - first];
            xs[k] = all[order[i]].time_s / 3600.0;
            ys[k++] = all[order[i]].cost_usd;
        }
    snprintf(names[ns], sizeof names[0], "Pareto front (%zu)", nfront);
    ser[ns] = (ridge_scatter_series){names[ns], xs + first, ys + first, k - first, 0, 1, lab_p};
    ns++;
    printf("Pareto front (time, cost) of %s %s, %.4g %s: %zu of %zu feasible configurations\n",
           ridge_model_name(c->m), ridge_mode_name(o->run.mode), o->target, c->unit, nfront, nf);
    for (size_t i = 0; i < nf; i++)
        if (all[order[i]].pareto) {
            const ridge_plan_result *r = &all[order[i]];
            printf("  %-24s %-5s %5d GPUs  batch %-6.17g  %10s h  %10s USD\n", c->gpus[r->gpu].id,
                   ridge_dtype_name(r->precision), r->count, r->batch, cli_num(r->time_s / 3600, b[0], 48),
                   cli_num(r->cost_usd, b[1], 48));
        }
    *k_out = k;
    return ns;
}

/* Cost against time of every feasible configuration, the (time, cost) Pareto front joined. */
static int chart_pareto(chart_ctx *c, int *st)
{
    const plan_opts *o = c->o;
    size_t space = ridge_plan_size(c->p), ng = o->ngpus, nf, nfront, ns, k;
    ridge_plan_result *all = NULL;
    size_t *order = NULL;
    double *xs = NULL, *ys = NULL;
    char(*names)[160] = NULL, (*labs)[128] = NULL;
    const char **lab_p = NULL;
    ridge_scatter_series *ser = NULL;
    ridge_scatter_options so = {0};
    char title[512], note[512];
    int rc = CLI_EXIT_FAILURE;
    if (space > PLAN_MAX_STORED)
        return cli_usage_error("plan", "%zu configurations are too many to chart", space);
    all = malloc(space * sizeof *all);
    order = malloc(space * sizeof *order);
    xs = malloc((2 * space + 1) * sizeof *xs);
    ys = malloc((2 * space + 1) * sizeof *ys);
    names = calloc(ng + 1, sizeof *names);
    ser = calloc(ng + 1, sizeof *ser);
    labs = malloc(space * sizeof *labs);
    lab_p = malloc(space * sizeof *lab_p);
    if (!all || !order || !xs || !ys || !names || !ser || !labs || !lab_p) {
        rc = oom();
        goto done;
    }
    ridge_plan_eval_range(c->p, 0, space, (int)o->threads, all, &c->err);
    nfront = ridge_plan_pareto(all, space, 0, order);
    nf = ridge_plan_rank(all, space, RIDGE_PLAN_TIME, order); /* by time: the front in order */
    k = 0;
    for (size_t i = 0; i < nf; i++)
        k += !isnan(all[order[i]].cost_usd);
    if (!k) {
        rc = pareto_nothing(c, all, space, nf);
        goto done;
    }
    ns = pareto_series(c, all, order, nf, nfront, xs, ys, names, ser, labs, lab_p, &k);
    snprintf(title, sizeof title, "%s %s, %.4g %s: cost against time of the feasible configurations",
             ridge_model_name(c->m), ridge_mode_name(o->run.mode), o->target, c->unit);
    snprintf(note, sizeof note, "%zu feasible of %zu configurations; circled, joined and labelled: the Pareto front", nf,
             space);
    so.title = title;
    so.note = note;
    so.xlabel = "Time to finish [h]";
    so.ylabel = "Cost [USD]";
    so.log_x = span_is_wide(xs, k);
    so.log_y = span_is_wide(ys, k);
    *st = ridge_scatter_write(ser, ns, &so, &c->paths, &c->err);
    rc = CLI_EXIT_OK;
done:
    free(all);
    free(order);
    free(xs);
    free(ys);
    free(names);
    free(ser);
    free(labs);
    free(lab_p);
    return rc;
}

/* Throughput against batch on one GPU, a series per GPU (and precision). */
static int chart_throughput_batch(chart_ctx *c, int *st)
{
    const plan_opts *o = c->o;
    size_t ng = o->ngpus, ns = 0, k = 0;
    ridge_scatter_series *ser = calloc(ng * o->nprecisions, sizeof *ser);
    ridge_scatter_options co = {0};
    double *xs = malloc((ng * o->nprecisions * o->nbatches + 1) * sizeof *xs);
    double *ys = malloc((ng * o->nprecisions * o->nbatches + 1) * sizeof *ys);
    char(*names)[160] = calloc(ng * o->nprecisions + 1, sizeof *names);
    char title[512], ylabel[128], b[48];
    int rc = CLI_EXIT_FAILURE;
    if (!ser || !xs || !ys || !names) {
        rc = oom();
        goto done;
    }
    printf("%-24s %-9s %10s %16s\n", "gpu", "precision", "batch", "throughput [/s]");
    for (size_t g = 0; g < ng; g++)
        for (size_t pr = 0; pr < o->nprecisions; pr++) {
            size_t first = k;
            for (size_t bi = 0; bi < o->nbatches; bi++) {
                ridge_plan_step_info s;
                ridge_plan_step(c->p, g, pr, bi, &s, NULL);
                if (s.reason != RIDGE_PLAN_FEASIBLE || !(s.step_s > 0))
                    continue;
                xs[k] = o->batches[bi];
                ys[k++] = s.items / s.step_s;
                printf("%-24s %-9s %10.17g %16s\n", c->gpus[g].id, ridge_dtype_name(o->precisions[pr]),
                       o->batches[bi], cli_num(s.items / s.step_s, b, 48));
            }
            if (o->nprecisions > 1)
                snprintf(names[ns], sizeof names[0], "%s %s", c->gpus[g].id, ridge_dtype_name(o->precisions[pr]));
            else
                snprintf(names[ns], sizeof names[0], "%s", c->gpus[g].id);
            ser[ns] = (ridge_scatter_series){names[ns], xs + first, ys + first, k - first, (int)g, 2, NULL};
            ns++;
        }
    if (!k) {
        rc = nothing_to_chart(o, "no candidate fits any batch");
        goto done;
    }
    snprintf(title, sizeof title, "%s %s (%s): throughput against batch, one GPU", ridge_model_name(c->m),
             ridge_mode_name(o->run.mode),
             o->nprecisions > 1 ? "several precisions" : ridge_dtype_name(o->precisions[0]));
    snprintf(ylabel, sizeof ylabel, "Throughput [%s/s, one GPU]", c->unit);
    co.title = title;
    co.xlabel = "Batch per GPU [samples per step]";
    co.ylabel = ylabel;
    co.log_x = span_is_wide(xs, k);
    co.key_outside = 1;
    co.y_from_zero = 1;
    *st = ridge_scatter_write(ser, ns, &co, &c->paths, &c->err);
    rc = CLI_EXIT_OK;
done:
    free(ser);
    free(xs);
    free(ys);
    free(names);
    return rc;
}

/* Stacked layers of the breakdown: the schedule's split by bound. */
static const struct {
    ridge_bound bound;
    const char *name;
} layers[] = {{RIDGE_BOUND_COMPUTE, "compute-bound"}, {RIDGE_BOUND_MEMORY, "DRAM-bound"},
              {RIDGE_BOUND_L2, "L2-bound"},           {RIDGE_BOUND_LATENCY, "latency-bound"},
              {RIDGE_BOUND_HOST, "host (launch) waits"}};
enum { NL = sizeof layers / sizeof layers[0] };

/* The gpus chart's row of GPU g, category nc: its three metrics relative to the first GPU's (base). */
static void gpus_row(const chart_ctx *c, size_t g, size_t nc, const ridge_plan_best *best, double *base,
                     int first, double *v)
{
    const plan_opts *o = c->o;
    double m3[3] = {best->throughput_per_s, best->throughput_per_w, best->units_per_usd};
    char b[4][48];
    if (first)
        for (int q = 0; q < 3; q++)
            base[q] = m3[q];
    for (int q = 0; q < 3; q++)
        v[(size_t)q * o->ngpus + nc] = base[q] > 0 ? m3[q] / base[q] : NAN;
    printf("%-24s %-9s %8.17g %16s %10s %18s %16s\n", c->gpus[g].id, ridge_dtype_name(o->precisions[best->precision]),
           o->batches[best->batch], cli_num(m3[0], b[0], 48), cli_num(best->power_w, b[1], 48),
           cli_num(m3[1], b[2], 48), !isnan(m3[2]) ? cli_num_si(m3[2], b[3], 48) : "-"); /* "4.957 M" */
}

/* The breakdown's row of GPU g, category nc: time by bound per 1,000 tokens or per sample. */
static void breakdown_row(const chart_ctx *c, size_t g, size_t nc, const ridge_plan_best *best, double *v)
{
    const plan_opts *o = c->o;
    double per = o->target_kind == RIDGE_PLAN_TARGET_TOKENS ? 1000.0 : 1.0;
    char b[48];
    printf("%-24s %-9s %8.17g %12s  ", c->gpus[g].id, ridge_dtype_name(o->precisions[best->precision]),
           o->batches[best->batch], cli_num(best->step.step_s * 1e3, b, 48));
    for (int q = 0; q < NL; q++) {
        v[(size_t)q * o->ngpus + nc] = best->step.time_by_bound_s[layers[q].bound] / best->step.items * per * 1e3;
        printf(" %s", cli_num(v[(size_t)q * o->ngpus + nc], b, 48));
    }
    printf("\n");
}

/* The bars of the breakdown and gpus charts, from the categories' values v ([series][category]). */
static int bars_write(chart_ctx *c, int gpus_chart, const char **cats, size_t nc, double *v, const double *base,
                      size_t gmap_first)
{
    const plan_opts *o = c->o;
    const char *per = o->target_kind == RIDGE_PLAN_TARGET_TOKENS ? "1,000 tokens" : "sample";
    ridge_bar_series ser[NL];
    char title[512], note[512], ylabel[128], b[3][48];
    if (gpus_chart) {
        static const char *const sn[3] = {"throughput", "throughput per watt", "throughput per USD"};
        for (int q = 0; q < 3; q++)
            ser[q] = (ridge_bar_series){sn[q], v + (size_t)q * o->ngpus};
        snprintf(title, sizeof title, "%s %s: GPUs relative to %s (= 1), one GPU at its best batch",
                 ridge_model_name(c->m), ridge_mode_name(o->run.mode), cats[0]);
        snprintf(note, sizeof note, "%s = 1: %s %s/s, %s %s/s per W, %s %s per USD", c->gpus[gmap_first].id,
                 cli_num(base[0], b[0], 48), c->unit, cli_num(base[1], b[1], 48), c->unit,
                 base[2] > 0 ? cli_num(base[2], b[2], 48) : "(no price:", base[2] > 0 ? c->unit : "no bars)");
        return ridge_bars_write(cats, nc, ser, 3,
                                &(ridge_bars_options){title, note, "Relative to the first GPU [ratio]", 0, 1},
                                &c->paths, &c->err);
    }
    const char *colors[NL]; /* each bound in its colour on every chart (the roofline's too) */
    for (int q = 0; q < NL; q++) {
        ser[q] = (ridge_bar_series){layers[q].name, v + (size_t)q * o->ngpus};
        colors[q] = ridge_plot_bound_color(layers[q].bound);
    }
    snprintf(title, sizeof title, "%s %s: where the step time goes, best batch per GPU", ridge_model_name(c->m),
             ridge_mode_name(o->run.mode));
    snprintf(note, sizeof note, "time of the kernels by what bounds them, per %s (lower is faster)", per);
    snprintf(ylabel, sizeof ylabel, "Step time per %s [ms]", per);
    return ridge_bars_write_colored(cats, nc, ser, NL, colors, &(ridge_bars_options){title, note, ylabel, 1, 1},
                                    &c->paths, &c->err);
}

/* Each GPU at its best batch (ridge_plan_best_step): the step split by bound (breakdown), or
 * throughput, per watt and per USD relative to the first GPU (gpus). */
static int chart_bars(chart_ctx *c, int *st, int gpus_chart)
{
    const plan_opts *o = c->o;
    size_t ng = o->ngpus, nc = 0, gmap_first = (size_t)-1;
    char(*names)[160] = calloc(ng + 1, sizeof *names);
    const char **cats = calloc(ng + 1, sizeof *cats);
    double *v = calloc(NL * ng + 1, sizeof *v), base[3] = {0, 0, 0};
    int rc = CLI_EXIT_FAILURE;
    if (!names || !cats || !v) {
        rc = oom();
        goto done;
    }
    if (gpus_chart)
        printf("%-24s %-9s %8s %16s %10s %18s %16s\n", "gpu", "precision", "batch", "throughput [/s]", "power [W]",
               "throughput/W", "per USD");
    else
        printf("%-24s %-9s %8s %12s   by bound [ms/%s]: compute, DRAM, L2, latency, host\n", "gpu",
               "precision", "batch", "step [ms]", o->target_kind == RIDGE_PLAN_TARGET_TOKENS ? "1k tokens" : "sample");
    for (size_t g = 0; g < ng; g++) {
        ridge_plan_best best;
        if (!ridge_plan_best_step(c->p, g, &best)) {
            printf("%-24s (no batch fits)\n", c->gpus[g].id);
            continue;
        }
        snprintf(names[nc], sizeof names[0], "%s (%s, b=%.17g)", c->gpus[g].id,
                 ridge_dtype_name(o->precisions[best.precision]), o->batches[best.batch]);
        cats[nc] = names[nc];
        if (gpus_chart) {
            gpus_row(c, g, nc, &best, base, gmap_first == (size_t)-1, v);
            if (gmap_first == (size_t)-1)
                gmap_first = g;
        } else
            breakdown_row(c, g, nc, &best, v);
        nc++;
    }
    if (!nc) {
        rc = nothing_to_chart(o, "no candidate fits any batch");
        goto done;
    }
    *st = bars_write(c, gpus_chart, cats, nc, v, base, gmap_first);
    rc = CLI_EXIT_OK;
done:
    free(names);
    free(cats);
    free(v);
    return rc;
}

int plan_chart(const plan_opts *o)
{
    ridge_gpu *gpus = NULL;
    double *prices = NULL;
    ridge_model *m = NULL;
    ridge_plan *p = NULL;
    chart_ctx c = {.o = o, .unit = o->target_kind == RIDGE_PLAN_TARGET_TOKENS ? "tokens" : "samples"};
    int rc, st = RIDGE_OK;
    if (!o->output[0])
        return cli_usage_error("plan", "--chart needs -o/--output CHART.png|svg");
    if (ridge_plot_paths_from_chart(o->output, &c.paths, &c.err) != RIDGE_OK)
        return cli_usage_error("plan", "-o: %s", c.err.msg);
    {
        const char *in[2] = {o->workload, o->cluster};
        if ((rc = cli_refuse_chart_over_input("plan", &c.paths, in, 2)) != CLI_EXIT_OK)
            return rc;
    }
    if ((rc = plan_setup(o, o->counts, o->ncounts, o->target, &gpus, &prices, &m, &p)) != CLI_EXIT_OK)
        goto done;
    c.gpus = gpus;
    c.m = m;
    c.p = p;
    if (strcmp(o->chart, "pareto") == 0)
        rc = chart_pareto(&c, &st);
    else if (strcmp(o->chart, "throughput-batch") == 0)
        rc = chart_throughput_batch(&c, &st);
    else if (strcmp(o->chart, "breakdown") == 0 || strcmp(o->chart, "gpus") == 0)
        rc = chart_bars(&c, &st, strcmp(o->chart, "gpus") == 0);
    else
        rc = cli_usage_error("plan", "--chart: '%s' is not one of pareto, throughput-batch, breakdown, gpus", o->chart);
    if (rc != CLI_EXIT_OK)
        goto done;
    if (st != RIDGE_OK) {
        cli_error("%s", c.err.msg);
        rc = cli_exit_code(st);
        goto done;
    }
    rc = cli_chart_render_noted(&c.paths);
done:
    ridge_plan_free(p);
    ridge_model_free(m);
    free(prices);
    free(gpus);
    return rc;
}
