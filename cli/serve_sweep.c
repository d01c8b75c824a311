/* ridge serve --sweep-rate: latency against offered load for one or more GPUs, as a table and a
 * chart (docs/serving.md). SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "chart_render.h"
#include "emit.h"
#include "ridge/plot.h"
#include "serve_cli.h"

int serve_parse_sweep(const char *arg, double *a, double *b, long *n)
{
    char buf[256], *p1, *p2;
    if (snprintf(buf, sizeof buf, "%s", arg) >= (int)sizeof buf)
        return cli_usage_error("serve", "--sweep-rate: '%.40s...' is too long", arg);
    p1 = strchr(buf, ':');
    p2 = p1 ? strchr(p1 + 1, ':') : NULL;
    if (!p1 || !p2)
        return cli_usage_error("serve", "--sweep-rate: '%s' is not A:B:N (first rate, last rate, points)", arg);
    *p1 = *p2 = '\0';
    if (cli_parse_double("--sweep-rate", buf, 1e-9, 1e12, a) || cli_parse_double("--sweep-rate", p1 + 1, 1e-9, 1e12, b) ||
        cli_parse_long("--sweep-rate", p2 + 1, 2, SERVE_MAX_SWEEP, n))
        return CLI_EXIT_USAGE;
    if (*b <= *a)
        return cli_usage_error("serve", "--sweep-rate: the last rate %g is not above the first %g", *b, *a);
    return CLI_EXIT_OK;
}

/* The sweep's results: per GPU, latency (mean, p50, p99; NAN when unstable) at each rate; for
 * continuous batching also TTFT and TPOT (the chart's lower panels). */
typedef struct {
    int ngpu;
    long npts;
    double rates[SERVE_MAX_SWEEP], sat[SERVE_MAX_GPUS];
    int stable[SERVE_MAX_GPUS][SERVE_MAX_SWEEP];
    double lat[SERVE_MAX_GPUS][3][SERVE_MAX_SWEEP];
    double ttft[SERVE_MAX_GPUS][3][SERVE_MAX_SWEEP], tpot[SERVE_MAX_GPUS][3][SERVE_MAX_SWEEP];
    double slo_ms[3]; /* the chart's objective lines: p99 latency (end to end), TTFT, TPOT; 0 = none */
    char ids[SERVE_MAX_GPUS][64];
    const char *queue;
    cli_progress prog; /* over every GPU and rate */
} sweep_data;

/* stats (mean, p50, p99) of an LLM result into v[3][k], NAN when unstable. */
static void llm_stats(const ridge_llm_stats *st, int ok, double (*v)[SERVE_MAX_SWEEP], long k)
{
    v[0][k] = ok ? st->mean_s : NAN;
    v[1][k] = ok ? st->p50_s : NAN;
    v[2][k] = ok ? st->p99_s : NAN;
}

/* One GPU (c->s.g, prepared) at every rate. */
static int sweep_gpu(serve_cli *c, sweep_data *d, int gi)
{
    ridge_err err;
    int st;
    d->sat[gi] = 0;
    for (long k = 0; k < d->npts; k++) {
        double mean = 0, p50 = 0, p99 = 0;
        int ok;
        if (c->s.continuous) {
            ridge_llm_result r;
            st = ridge_serve_llm_eval(&c->s, d->rates[k], c->s.replicas, &r, &err);
            ok = r.stable;
            mean = r.e2e.mean_s;
            p50 = r.e2e.p50_s;
            p99 = r.e2e.p99_s;
            d->sat[gi] = r.saturation_rate_per_s * c->s.replicas;
            llm_stats(&r.ttft, ok, d->ttft[gi], k);
            llm_stats(&r.tpot, ok, d->tpot[gi], k);
        } else {
            ridge_queue_result r;
            st = ridge_serve_eval(&c->s, d->rates[k], c->s.replicas, &r, &err);
            ok = r.stable;
            mean = r.mean_latency_s;
            p50 = r.p50_s;
            p99 = r.p99_s;
            d->sat[gi] = r.saturation_rate_per_s;
        }
        if (st != RIDGE_OK) {
            cli_error("serve: %s", err.msg);
            return cli_exit_code(st);
        }
        d->stable[gi][k] = ok;
        d->lat[gi][0][k] = ok ? mean : NAN;
        d->lat[gi][1][k] = ok ? p50 : NAN;
        d->lat[gi][2][k] = ok ? p99 : NAN;
        cli_progress_update(&d->prog, (double)(gi * d->npts + k + 1), (double)(d->ngpu * d->npts));
    }
    return CLI_EXIT_OK;
}

/* The chart: .dat, .gp and, with gnuplot, the picture. Continuous batching: three panels, the
 * end-to-end latency, TTFT and TPOT, each with its objective line when given; otherwise one. */
static int sweep_chart(const serve_cli *c, const sweep_data *d, const ridge_plot_paths *paths)
{
    const ridge_serve *s = &c->s;
    enum { NP = 3 };
    ridge_curve_series ser[NP * 3 * SERVE_MAX_GPUS];
    static const char *const stat_names[3] = {"mean", "p50", "p99"};
    static const char *const panel_names[NP] = {"", " TTFT", " TPOT"};
    static const char *const panel_ylabel[NP] = {"End-to-end latency [ms]", "Time to first token (TTFT) [ms]",
                                                 "Time per output token (TPOT) [ms]"};
    static const char *const slo_names[NP] = {"objective: p99 latency", "objective: TTFT p99",
                                              "objective: TPOT p99"};
    static const int dash_of[3] = {3, 2, 1};
    char names[NP * 3 * SERVE_MAX_GPUS][96], title[256], vlab[SERVE_MAX_GPUS][96], hlab[NP][96], b[48];
    const char *vlab_p[SERVE_MAX_GPUS], *hlab_p[NP];
    int vgroup[SERVE_MAX_GPUS], hpanel[NP], st, np = s->continuous ? NP : 1;
    double hy[NP];
    ridge_curve_options co = {0};
    double(*ms)[SERVE_MAX_GPUS][3][SERVE_MAX_SWEEP] = malloc(NP * sizeof *ms); /* in ms */
    size_t ns = 0, nh = 0;
    ridge_err err;
    if (!ms) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    for (int p = 0; p < np; p++)
        for (int gi = 0; gi < d->ngpu; gi++)
            for (int q = 2; q >= 0; q--) {
                const double *v = p == 0 ? d->lat[gi][q] : p == 1 ? d->ttft[gi][q] : d->tpot[gi][q];
                for (long k = 0; k < d->npts; k++)
                    ms[p][gi][q][k] = v[k] * 1e3;
                snprintf(names[ns], sizeof names[ns], "%s%s %s", d->ids[gi], panel_names[p], stat_names[q]);
                ser[ns] = (ridge_curve_series){names[ns], d->rates, ms[p][gi][q], (size_t)d->npts, gi, dash_of[q], p};
                ns++;
            }
    for (int p = 0; p < np; p++)
        if (d->slo_ms[p] > 0) {
            snprintf(hlab[nh], sizeof hlab[nh], "%s %s ms", slo_names[p], cli_num(d->slo_ms[p], b, 48));
            hlab_p[nh] = hlab[nh];
            hy[nh] = d->slo_ms[p];
            hpanel[nh++] = p;
        }
    if (s->continuous)
        snprintf(title, sizeof title, "%s (%s): latency, TTFT and TPOT against load, continuous batching (max %d)",
                 ridge_model_name(s->m), ridge_dtype_name(s->run.precision), s->max_batch);
    else if (s->max_batch)
        snprintf(title, sizeof title, "%s (%s): latency against load, dynamic batching (max %d, timeout %g ms)",
                 ridge_model_name(s->m), ridge_dtype_name(s->run.precision), s->max_batch, s->timeout_s * 1e3);
    else
        snprintf(title, sizeof title, "%s (%s): latency against load, %s", ridge_model_name(s->m),
                 ridge_dtype_name(s->run.precision), d->queue);
    co.title = title;
    co.xlabel = s->replicas > 1 ? "Offered load [requests/s, all replicas]" : "Offered load [requests/s]";
    co.ylabel = "Latency [ms]";
    co.log_y = 1;
    for (int gi = 0; gi < d->ngpu; gi++) {
        snprintf(vlab[gi], sizeof vlab[gi], "%s saturation %s/s", d->ids[gi], cli_num(d->sat[gi], b, 48));
        vlab_p[gi] = vlab[gi];
        vgroup[gi] = gi;
    }
    co.nvlines = (size_t)d->ngpu;
    co.vline_x = d->sat;
    co.vline_group = vgroup;
    co.vline_label = vlab_p;
    co.npanels = (size_t)np;
    co.panel_ylabel = panel_ylabel;
    co.nhlines = nh;
    co.hline_y = hy;
    co.hline_panel = hpanel;
    co.hline_label = hlab_p;
    st = ridge_curves_write(ser, ns, &co, paths, &err);
    free(ms);
    if (st != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(st);
    }
    return cli_chart_render_noted(paths);
}

/* The table's columns: latency in seconds (JSON, CSV: the group flattened, latency_s.p50 ->
 * latency_p50_s, docs/cli.md "Keys and units"), human units (text). */
static const cli_emit_col sweep_cols[] = {
    {"gpu", NULL, "gpu", "gpu", -20, 1, CLI_EMIT_STR, 0, NULL, NULL},
    {"rate_per_s", NULL, "rate_per_s", "rate [req/s]", 14, 1, CLI_EMIT_NUM, 0, NULL, NULL},
    {"stable", NULL, "stable", "stable", 7, 1, CLI_EMIT_BOOL, 0, NULL, NULL},
    {"saturation_rate_per_s", NULL, "saturation_rate_per_s", NULL, 0, 1, CLI_EMIT_NUM, 0, NULL, NULL},
    {"mean", "latency_s", "latency_mean_s", "mean", 11, 1, CLI_EMIT_NUM, 1, cli_emit_fmt_time, NULL},
    {"p50", "latency_s", "latency_p50_s", "p50", 11, 1, CLI_EMIT_NUM, 1, cli_emit_fmt_time, NULL},
    {"p99", "latency_s", "latency_p99_s", "p99", 11, 1, CLI_EMIT_NUM, 1, cli_emit_fmt_time, NULL},
};

/* The table: one row per GPU and rate, then (text) the saturation rates. */
static int sweep_table(const serve_cli *c, const sweep_data *d, cli_format fmt)
{
    const ridge_serve *s = &c->s;
    cli_emit_table t = {sweep_cols, sizeof sweep_cols / sizeof sweep_cols[0], fmt, NULL, NULL};
    cJSON *root = NULL;
    char b[48];
    if (fmt == CLI_FMT_JSON) {
        root = cJSON_CreateObject();
        cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
        cJSON_AddStringToObject(root, "workload", ridge_model_name(s->m));
        cJSON_AddStringToObject(root, "queue", d->queue);
        cJSON_AddNumberToObject(root, "replicas", s->replicas);
        cJSON_AddNumberToObject(root, "max_batch", s->max_batch);
        t.rows = cJSON_AddArrayToObject(root, "points");
    } else if (fmt == CLI_FMT_TEXT) {
        char prec[128], name[256];
        printf("%s: latency against offered load; %s%s, %d replica%s\n\n",
               cli_text(ridge_model_name(s->m), name, sizeof name),
               serve_precision_text(c, prec, sizeof prec), d->queue, s->replicas, s->replicas == 1 ? "" : "s");
    }
    cli_emit_head(&t);
    for (int gi = 0; gi < d->ngpu; gi++)
        for (long k = 0; k < d->npts; k++) {
            cli_emit_val v[7] = {{d->ids[gi], 0, 0},           {NULL, d->rates[k], 0},       {NULL, d->stable[gi][k], 0},
                                 {NULL, d->sat[gi], 0},         {NULL, d->lat[gi][0][k], 0}, {NULL, d->lat[gi][1][k], 0},
                                 {NULL, d->lat[gi][2][k], 0}};
            cli_emit_row(&t, v, d->stable[gi][k]);
        }
    if (fmt == CLI_FMT_TEXT)
        for (int gi = 0; gi < d->ngpu; gi++)
            printf("saturation        %s: %s requests/s\n", d->ids[gi], cli_num(d->sat[gi], b, 48));
    return root ? cli_print_json(root) : CLI_EXIT_OK;
}

static int sweep_run(serve_cli *c, const char *const *gpu_ids, int ngpu, const char *gpu_file, double ra, double rb,
                     long npts, const char *chart, const char *const *inputs, const ridge_serve_slo *slo,
                     double slo_ms, cli_format fmt)
{
    sweep_data *d = calloc(1, sizeof *d);
    ridge_gpu *gs = calloc((size_t)ngpu, sizeof *gs);
    ridge_plot_paths paths;
    ridge_err err;
    int rc = CLI_EXIT_OK;
    if (!d || !gs) {
        cli_error("out of memory");
        rc = CLI_EXIT_FAILURE;
        goto done;
    }
    d->ngpu = ngpu;
    d->npts = npts;
    d->queue = c->s.continuous ? "continuous batching (simulated), end-to-end latency" : serve_queue_title(c);
    d->slo_ms[0] = c->s.continuous ? slo->e2e_p99_ms : slo_ms;
    d->slo_ms[1] = c->s.continuous ? slo->ttft_p99_ms : 0;
    d->slo_ms[2] = c->s.continuous ? slo->tpot_p99_ms : 0;
    if (chart && ridge_plot_paths_from_chart(chart, &paths, &err) != RIDGE_OK) {
        rc = cli_usage_error("serve", "-o: %s", err.msg);
        goto done;
    }
    if (chart && (rc = cli_refuse_chart_over_input("serve", &paths, inputs, 4)) != CLI_EXIT_OK)
        goto done;
    for (long k = 0; k < npts; k++)
        d->rates[k] = ra + (rb - ra) * (double)k / (double)(npts - 1);
    /* All the GPUs first: they are compared in one precision. */
    for (int gi = 0; gi < ngpu; gi++) {
        if (c->cl)
            gs[gi] = c->cl->gpu;
        else if ((rc = cli_load_gpu(gpu_ids ? gpu_ids[gi] : NULL, gpu_ids ? NULL : gpu_file, &gs[gi])) != CLI_EXIT_OK)
            goto done;
    }
    serve_default_precision(c, gs, ngpu);
    cli_progress_begin(&d->prog, "serve sweep");
    for (int gi = 0; gi < ngpu; gi++) {
        snprintf(d->ids[gi], sizeof d->ids[gi], "%s", gs[gi].id);
        c->s.g = &gs[gi];
        rc = serve_prepare(c);
        if (!rc)
            rc = sweep_gpu(c, d, gi);
        if (rc) {
            cli_progress_end(&d->prog);
            goto done;
        }
    }
    cli_progress_end(&d->prog);
    c->s.g = NULL;
    /* The chart first: a path that cannot be written fails before anything is printed. */
    if (chart && (rc = sweep_chart(c, d, &paths)))
        goto done;
    rc = sweep_table(c, d, fmt);
done:
    free(gs);
    free(d);
    return rc;
}

int serve_sweep(serve_cli *c, serve_opts *o)
{
    if (!o->ngpus && o->gpu_id) {
        o->gpu_list[0] = o->gpu_id;
        o->ngpus = 1;
    }
    const char *inputs[4] = {o->wl, o->trace, o->gpu_file, o->cluster_id};
    return sweep_run(c, o->ngpus ? o->gpu_list : NULL, o->ngpus ? o->ngpus : 1, o->gpu_file, o->sweep_a, o->sweep_b,
                     o->sweep_n, o->chart, inputs, &o->slo, o->slo_ms, o->fmt);
}
