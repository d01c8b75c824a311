/* ridge report GPU... -o report.html|report.md: the article's questions (training or inference,
 * CNN, RNN or transformer, per watt, per dollar, the largest batch and model, MIG, NVLink or PCIe)
 * answered with the model's predictions for the GPUs given, each with the bound that explains it
 * and the model's measured error for its family (docs/cli.md, "report").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model_run.h"
#include "prices.h"
#include "report.h"
#include "ridge/cluster.h"
#include "ridge/parallel.h"
#include "ridge/version.h"

#define REPORT_MAX_GPUS 4

static const char help[] =
    "usage: ridge report GPU... [run options] -o report.html|report.md\n"
    "\n"
    "One self-contained page that answers which of the GPUs to use for deep learning: training\n"
    "and inference throughput of a CNN (ResNet-50), an RNN (GNMT) and transformers (BERT-large,\n"
    "Llama 2 7B), per watt and per dollar where a price exists, the largest batch and model that\n"
    "fit, MIG slices for inference, data-parallel scaling over the GPU's built-in cluster (NVLink\n"
    "or PCIe), the bound behind each answer, the assumptions and the model's measured error.\n"
    ".html: inline SVG charts, no external link; .md: charts as PNG files beside it. The report\n"
    "sets each question's mode, batch and lengths; --precision, --host, --code, --optimizer and\n"
    "the other run options apply to every question. Up to 4 GPUs.\n"
    "\n"
    "Options:\n"
    "  -o, --output PATH   the report (.html, .htm or .md); its directory must exist\n"
    "  --price ID=USD_PER_HOUR   a price per GPU-hour in place of the catalogue's (repeatable;\n"
    "                      a MIG slice takes its share of its parent's); --prices FILE: a prices\n"
    "                      file (docs/cli.md, \"Prices\")\n"
    "  -h, --help          this help\n"
    "\n";

/* One question of throughput: a model run. */
typedef struct {
    const char *label;  /* "ResNet-50 training" */
    const char *id;     /* workload preset */
    ridge_mode mode;
    double batch, prompt, context;
    const char *trust;  /* the baseline's workload summary that measures this family */
} report_case;

static const report_case cases[] = {
    {"ResNet-50 training", "resnet50", RIDGE_MODE_TRAIN, 256, 0, 0, "resnet50"},
    {"ResNet-50 inference", "resnet50", RIDGE_MODE_INFER, 128, 0, 0, "resnet50"},
    {"GNMT (LSTM) training", "gnmt", RIDGE_MODE_TRAIN, 128, 0, 0, "lstm"},
    {"GNMT (LSTM) inference", "gnmt", RIDGE_MODE_INFER, 128, 0, 0, "lstm"},
    {"BERT-large training", "bert-large", RIDGE_MODE_TRAIN, 32, 0, 0, "bert-large"},
    {"BERT-large inference", "bert-large", RIDGE_MODE_INFER, 64, 0, 0, "bert-large"},
    {"Llama 2 7B prefill", "llama2-7b", RIDGE_MODE_PREFILL, 1, 2048, 0, "llama2-7b"},
    {"Llama 2 7B decode", "llama2-7b", RIDGE_MODE_DECODE, 16, 0, 1024, "llama2-7b"},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* The language models whose fit the capacity section asks about, smallest first. */
static const char *const llms[] = {"llama2-7b", "llama3-8b", "llama2-13b", "mixtral-8x7b", "llama2-70b"};
#define NLLMS (sizeof llms / sizeof llms[0])

typedef struct {
    int n;
    ridge_gpu g[REPORT_MAX_GPUS];
    ridge_run_config given;
    int precision_given;
    ridge_runtime rt;
    char precision_note[96];
    double thr[NCASES][REPORT_MAX_GPUS];
    const char *unit[NCASES];
    char bound[NCASES][REPORT_MAX_GPUS][48];
    double max_batch[NCASES][REPORT_MAX_GPUS];
    double mem_gib[NCASES][REPORT_MAX_GPUS];
    char host_id[64], code[24];
    int progress;
} report_run;

static char *num(double v, char *buf, size_t cap)
{
    cli_num(v, buf, cap);
    return buf;
}

/* A large count in 3 significant digits with k, M, G ("4.22 M"). */
static char *count_text(double v, char *buf, size_t cap)
{
    static const char *const sfx[] = {"", " k", " M", " G", " T"};
    int e = 0;
    while (fabs(v) >= 999.5 && e < 4) {
        v /= 1000;
        e++;
    }
    snprintf(buf, cap, "%.3g%s", v, sfx[e]);
    return buf;
}

/* A table cell (96 bytes), cut to fit. */
static void cellf(char *dst, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void cellf(char *dst, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, 96, fmt, ap);
    va_end(ap);
}

static void progress(const report_run *r, const char *what)
{
    if (r->progress)
        fprintf(stderr, "\rridge report: %-40s", what);
}

/* "compute 71 %": the bound that holds most of the step's time. */
static void dominant_bound(const ridge_schedule_totals *t, char *buf, size_t cap)
{
    double sum = 0, best = -1;
    int b = 0;
    for (int i = 0; i < RIDGE_BOUND_COUNT; i++) {
        sum += t->time_by_bound_s[i];
        if (t->time_by_bound_s[i] > best) {
            best = t->time_by_bound_s[i];
            b = i;
        }
    }
    snprintf(buf, cap, "%s %.0f %%", ridge_bound_name((ridge_bound)b), sum > 0 ? 100 * best / sum : 0);
}

static void case_config(const report_run *r, const report_case *c, ridge_run_config *rc)
{
    *rc = r->given;
    rc->mode = c->mode;
    rc->batch = c->batch;
    if (c->prompt > 0)
        rc->prompt = c->prompt;
    if (c->context > 0)
        rc->context = c->context;
}

static int predict_cases(report_run *r)
{
    for (size_t c = 0; c < NCASES; c++) {
        ridge_model *m = NULL;
        ridge_err err;
        ridge_run_config rc;
        int st;
        progress(r, cases[c].label);
        case_config(r, &cases[c], &rc);
        if ((st = ridge_model_load(cases[c].id, &m, &err)) != RIDGE_OK) {
            cli_error("%s", err.msg);
            return cli_exit_code(st);
        }
        for (int i = 0; i < r->n; i++) {
            cli_model_prediction p;
            memset(&p, 0, sizeof p);
            st = cli_model_predict(&r->g[i], m, &rc, r->rt, &p);
            if (st != CLI_EXIT_OK) {
                cli_model_prediction_free(&p);
                ridge_model_free(m);
                return st;
            }
            r->thr[c][i] = p.fits ? p.throughput : NAN;
            r->unit[c] = p.throughput_unit;
            if (p.fits)
                dominant_bound(&p.tot, r->bound[c][i], sizeof r->bound[c][i]);
            else
                snprintf(r->bound[c][i], sizeof r->bound[c][i], "capacity (does not fit)");
            r->max_batch[c][i] = p.max_batch;
            r->mem_gib[c][i] = p.mem.total_bytes / 1073741824.0;
            if (c == 0 && i == 0) {
                snprintf(r->host_id, sizeof r->host_id, "%s", p.host.id);
                snprintf(r->code, sizeof r->code, "%s", ridge_code_name(p.code));
            }
            cli_model_prediction_free(&p);
        }
        ridge_model_free(m);
    }
    return CLI_EXIT_OK;
}

static int table_row(cli_table *t, char cells[][96])
{
    const char *row[16];
    for (int i = 0; i < t->ncols; i++)
        row[i] = cells[i];
    return cli_table_add(t, row);
}

static void table_start(cli_table *t, int ncols, char cells[][96])
{
    cli_table_init(t, ncols);
    table_row(t, cells);
    for (int i = 1; i < ncols; i++)
        t->right[i] = 1;
}

static void section_gpus(report_doc *d, const report_run *r)
{
    char h[16][96], b[48];
    cli_table t;
    const char *cols[] = {"GPU", "memory", "bandwidth [TB/s]", "16-bit tensor [TFLOP/s]", "FP32 [TFLOP/s]",
                          "board power [W]", "price [USD/h]", "MIG", "GPU-to-GPU link"};
    for (int i = 0; i < 9; i++)
        snprintf(h[i], sizeof h[i], "%s", cols[i]);
    report_h(d, 2, "The GPUs");
    table_start(&t, 9, h);
    for (int i = 0; i < r->n; i++) {
        const ridge_gpu *g = &r->g[i];
        double usd;
        const char *src, *date;
        double t16 = g->peak_flops_per_s[RIDGE_PEAK_BF16] > 0 ? g->peak_flops_per_s[RIDGE_PEAK_BF16]
                                                               : g->peak_flops_per_s[RIDGE_PEAK_FP16_FP32ACC];
        cellf(h[0], "%s (%s)", g->id, g->name);
        cellf(h[1], "%s GiB %s", num(g->memory_bytes / 1073741824.0, b, sizeof b), g->memory_type);
        num(g->memory_bw_bytes_per_s / 1e12, h[2], 96);
        num(t16 / 1e12, h[3], 96);
        num(g->peak_flops_per_s[RIDGE_PEAK_FP32] / 1e12, h[4], 96);
        num(g->tdp_w, h[5], 96);
        if (report_price(g, &usd, &src, &date))
            cellf(h[6], "%s (%s)", num(usd, b, sizeof b), date);
        else
            cellf(h[6], "no price");
        cellf(h[7], "%s", g->mig_count ? "yes" : "no");
        if (g->nvlink_links)
            cellf(h[8], "NVLink %s, %s GB/s", g->nvlink_kind, num(g->nvlink_bw_bytes_per_s / 1e9, b, sizeof b));
        else
            cellf(h[8], "PCIe Gen%d x%d", g->pcie_generation, g->pcie_lanes);
        table_row(&t, h);
    }
    report_table(d, &t);
    cli_table_free(&t);
}

/* Grouped bars of values[case][gpu] relative to the first GPU, one bar per GPU. */
static int bars_relative(report_doc *d, const report_run *r, const char *name, double (*v)[REPORT_MAX_GPUS],
                         const char *title, const char *ylabel, const char *alt)
{
    const char *cats[NCASES];
    double vals[REPORT_MAX_GPUS][NCASES];
    ridge_bar_series s[REPORT_MAX_GPUS];
    ridge_plot_paths paths;
    ridge_err err;
    ridge_bars_options o = {title, NULL, ylabel, 0, 1};
    int rc = report_chart_paths(d, name, &paths);
    if (rc != CLI_EXIT_OK)
        return rc;
    for (size_t c = 0; c < NCASES; c++) {
        cats[c] = cases[c].label;
        for (int i = 0; i < r->n; i++)
            vals[i][c] = v[c][i] / v[c][0];
    }
    for (int i = 0; i < r->n; i++) {
        s[i].name = r->g[i].id;
        s[i].values = vals[i];
    }
    if ((rc = ridge_bars_write(cats, NCASES, s, (size_t)r->n, &o, &paths, &err)) != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(rc);
    }
    return report_chart(d, &paths, alt);
}

static void trust_note(report_doc *d, const char *workload)
{
    double mape;
    int n;
    if (report_trust("workload", workload, &mape, &n))
        report_p(d, "How far to trust it: on %d published %s measurements the model's mean absolute "
                    "percentage error (MAPE) is %.3g %%.", n, workload, mape);
    else
        report_p(d, "How far to trust it: no published %s measurements in the validation baseline.", workload);
}

static int section_throughput(report_doc *d, report_run *r)
{
    char h[16][96], b[48];
    cli_table t;
    int nc = 2 + 2 * r->n + (r->n > 1);
    report_h(d, 2, "Training and inference throughput");
    report_p(d, "One GPU, the batch shown, %s. The bound is where the step spends most of its time: compute "
                "(tensor or vector throughput), memory (DRAM bandwidth), latency (launch and ramp-up floors) "
                "or host (the GPU waits for the framework to issue kernels).",
             ridge_dtype_name(r->given.precision));
    cellf(h[0], "question");
    cellf(h[1], "batch");
    for (int i = 0; i < r->n; i++) {
        cellf(h[2 + 2 * i], "%s", r->g[i].id);
        cellf(h[3 + 2 * i], "bound on %s", r->g[i].id);
    }
    if (r->n > 1)
        cellf(h[nc - 1], "%s / %s", r->g[r->n - 1].id, r->g[0].id);
    table_start(&t, nc, h);
    for (size_t c = 0; c < NCASES; c++) {
        cellf(h[0], "%s", cases[c].label);
        num(cases[c].batch, h[1], 96);
        for (int i = 0; i < r->n; i++) {
            cellf(h[2 + 2 * i], "%s %s", isnan(r->thr[c][i]) ? "-" : num(r->thr[c][i], b, sizeof b), r->unit[c]);
            cellf(h[3 + 2 * i], "%s", r->bound[c][i]);
        }
        if (r->n > 1)
            cellf(h[nc - 1], "%s x", num(r->thr[c][r->n - 1] / r->thr[c][0], b, sizeof b));
        table_row(&t, h);
    }
    report_table(d, &t);
    cli_table_free(&t);
    {
        double mape;
        int n;
        for (size_t c = 0; c < NCASES; c += 2)
            if (report_trust("workload", cases[c].trust, &mape, &n))
                report_li(d, "%s: MAPE %.3g %% over %d published measurements (validation baseline).",
                          c == 2 ? "GNMT/LSTM (the lstm kernels)" : cases[c].id, mape, n);
        for (int i = 0; i < r->n; i++)
            if (report_trust("gpu", r->g[i].id, &mape, &n))
                report_li(d, "all measurements on %s: MAPE %.3g %% over %d cases.", r->g[i].id, mape, n);
        report_list_end(d);
    }
    char title[160];
    cellf(title, "Predicted throughput relative to %s", r->g[0].id);
    return bars_relative(d, r, "throughput", r->thr, title, "throughput relative to the first GPU",
                         "Throughput of each question relative to the first GPU (higher is faster).");
}

static int section_efficiency(report_doc *d, report_run *r)
{
    char h[16][96], b[48];
    cli_table t;
    double perw[NCASES][REPORT_MAX_GPUS];
    int nc = 1 + 2 * r->n, priced = 0;
    report_h(d, 2, "Per watt and per dollar");
    report_p(d, "Per watt divides the throughput by the board power (TDP), the power the board may draw "
                "under load; per dollar divides it by the price per GPU-hour. The bound is that of the "
                "throughput above.");
    cellf(h[0], "question");
    for (int i = 0; i < r->n; i++) {
        cellf(h[1 + 2 * i], "%s per W", r->g[i].id);
        cellf(h[2 + 2 * i], "%s per USD", r->g[i].id);
    }
    table_start(&t, nc, h);
    for (size_t c = 0; c < NCASES; c++) {
        cellf(h[0], "%s [%s]", cases[c].label, r->unit[c]);
        for (int i = 0; i < r->n; i++) {
            double usd;
            const char *src, *date;
            perw[c][i] = r->thr[c][i] / r->g[i].tdp_w;
            num(perw[c][i], h[1 + 2 * i], 96);
            if (report_price(&r->g[i], &usd, &src, &date) && !isnan(r->thr[c][i])) {
                /* items per USD: throughput x 3600 s / price per hour */
                /* "4.22 M images": the unit of the throughput without its "/s" */
                cellf(h[2 + 2 * i], "%s %.*s", count_text(r->thr[c][i] * 3600 / usd, b, sizeof b),
                      (int)strcspn(r->unit[c], "/"), r->unit[c]);
                priced = 1;
            } else {
                cellf(h[2 + 2 * i], "no price");
            }
        }
        table_row(&t, h);
    }
    report_table(d, &t);
    cli_table_free(&t);
    if (!priced)
        report_p(d, "No GPU here has a sourced price in the catalogue, so there is no per-dollar answer: "
                    "give one with --price ID=USD_PER_HOUR.");
    return bars_relative(d, r, "per-watt", perw, "Throughput per watt relative to the first GPU",
                         "per watt relative to the first GPU", "Throughput per watt of board power, relative to the first GPU.");
}

static int section_capacity(report_doc *d, report_run *r)
{
    char h[16][96], b[48], b2[48];
    cli_table t;
    report_h(d, 2, "The largest batch and model that fit");
    report_p(d, "Memory is weights, gradients, optimizer state, activations, KV cache and workspace against "
                "the GPU's capacity; the bound of these answers is capacity.");
    cellf(h[0], "question");
    for (int i = 0; i < r->n; i++)
        cellf(h[1 + i], "%s: largest batch", r->g[i].id);
    table_start(&t, 1 + r->n, h);
    for (size_t c = 0; c < NCASES; c++) {
        cellf(h[0], "%s (%s GiB at batch %s)", cases[c].label, num(r->mem_gib[c][0], b, sizeof b),
                 num(cases[c].batch, b2, sizeof b2));
        for (int i = 0; i < r->n; i++)
            num(r->max_batch[c][i], h[1 + i], 96);
        table_row(&t, h);
    }
    report_table(d, &t);
    cli_table_free(&t);

    cellf(h[0], "model");
    cellf(h[1], "parameters");
    cellf(h[2], "inference [GiB]");
    cellf(h[3], "training [GiB]");
    for (int i = 0; i < r->n; i++)
        cellf(h[4 + i], "fits %s", r->g[i].id);
    table_start(&t, 4 + r->n, h);
    char largest_inf[REPORT_MAX_GPUS][48] = {{0}}, largest_train[REPORT_MAX_GPUS][48] = {{0}};
    for (size_t k = 0; k < NLLMS; k++) {
        ridge_model *m = NULL;
        ridge_err err;
        ridge_run_config inf = r->given, tr = r->given;
        ridge_memory mi, mt;
        int st = ridge_model_load(llms[k], &m, &err);
        inf.mode = RIDGE_MODE_DECODE;
        inf.batch = 1;
        inf.context = 2048;
        tr.mode = RIDGE_MODE_TRAIN;
        tr.batch = 1;
        if (st == RIDGE_OK)
            st = ridge_model_memory(m, &inf, &mi, &err);
        if (st == RIDGE_OK)
            st = ridge_model_memory(m, &tr, &mt, &err);
        if (st != RIDGE_OK) {
            cli_error("%s", err.msg);
            ridge_model_free(m);
            cli_table_free(&t);
            return cli_exit_code(st);
        }
        cellf(h[0], "%s", llms[k]);
        cellf(h[1], "%s B", num(ridge_model_params(m) / 1e9, b, sizeof b));
        num(mi.total_bytes / 1073741824.0, h[2], 96);
        num(mt.total_bytes / 1073741824.0, h[3], 96);
        for (int i = 0; i < r->n; i++) {
            int fi = mi.total_bytes <= r->g[i].memory_bytes, ft = mt.total_bytes <= r->g[i].memory_bytes;
            cellf(h[4 + i], "%s", fi && ft ? "inference and training" : fi ? "inference only" : "no");
            if (fi)
                snprintf(largest_inf[i], 48, "%s", llms[k]);
            if (ft)
                snprintf(largest_train[i], 48, "%s", llms[k]);
        }
        table_row(&t, h);
        ridge_model_free(m);
    }
    report_p(d, "Language models, one sequence: decode with 2048 tokens of KV cache, and training at batch 1 "
                "(AdamW, mixed precision) on a single GPU.");
    report_table(d, &t);
    cli_table_free(&t);
    for (int i = 0; i < r->n; i++)
        report_li(d, "%s (%s GiB): the largest of these it serves is %s; the largest it trains alone is %s.",
                  r->g[i].id, num(r->g[i].memory_bytes / 1073741824.0, b, sizeof b),
                  largest_inf[i][0] ? largest_inf[i] : "none", largest_train[i][0] ? largest_train[i] : "none");
    report_list_end(d);
    return CLI_EXIT_OK;
}

static int section_mig(report_doc *d, report_run *r)
{
    char h[16][96], b[48];
    report_h(d, 2, "MIG slices for inference");
    report_p(d, "Multi-Instance GPU splits one GPU into isolated slices, each with its own SMs and memory. "
                "Here: ResNet-50 inference at batch 32 on one slice, and the whole GPU filled with slices "
                "of that profile.");
    for (int i = 0; i < r->n; i++) {
        const ridge_gpu *g = &r->g[i];
        cli_table t;
        ridge_model *m = NULL;
        ridge_err err;
        ridge_run_config rc = r->given;
        int st;
        if (!g->mig_count) {
            report_p(d, "%s has no MIG: it runs one workload at a time, or several sharing all its SMs.", g->id);
            continue;
        }
        progress(r, "MIG slices");
        const char *cols[] = {"slice", "SMs", "memory [GiB]", "instances", "one slice [images/s]",
                              "all slices [images/s]", "bound"};
        for (int k = 0; k < 7; k++)
            cellf(h[k], "%s", cols[k]);
        table_start(&t, 7, h);
        rc.mode = RIDGE_MODE_INFER;
        rc.batch = 32;
        if ((st = ridge_model_load("resnet50", &m, &err)) != RIDGE_OK) {
            cli_error("%s", err.msg);
            cli_table_free(&t);
            return cli_exit_code(st);
        }
        for (int k = 0; k < g->mig_count; k++) {
            char id[96];
            ridge_gpu s;
            cli_model_prediction p;
            memset(&p, 0, sizeof p);
            snprintf(id, sizeof id, "%s:%s", g->id, g->mig[k].profile);
            if ((st = cli_load_gpu(id, NULL, &s)) != CLI_EXIT_OK ||
                (st = cli_model_predict(&s, m, &rc, r->rt, &p)) != CLI_EXIT_OK) {
                cli_model_prediction_free(&p);
                ridge_model_free(m);
                cli_table_free(&t);
                return st;
            }
            cellf(h[0], "%s", id);
            cellf(h[1], "%d", s.sm_count);
            num(s.memory_bytes / 1073741824.0, h[2], 96);
            cellf(h[3], "%d", g->mig[k].max_instances);
            num(p.throughput, h[4], 96);
            num(p.throughput * g->mig[k].max_instances, h[5], 96);
            dominant_bound(&p.tot, h[6], 96);
            table_row(&t, h);
            cli_model_prediction_free(&p);
        }
        ridge_model_free(m);
        report_table(d, &t);
        cli_table_free(&t);
        (void)b;
    }
    return CLI_EXIT_OK;
}

/* The built-in cluster of g's GPUs, by catalogue id; 0 when there is none. */
static int cluster_of(const ridge_gpu *g, ridge_cluster *cl)
{
    ridge_err err;
    for (size_t k = 0; k < ridge_cluster_builtin_count(); k++)
        if (ridge_cluster_load(ridge_cluster_builtin_id(k), 0, cl, &err) == RIDGE_OK && strcmp(cl->gpu_id, g->id) == 0)
            return 1;
    return 0;
}

static int section_scaling(report_doc *d, report_run *r)
{
    static const int counts[] = {1, 2, 4, 8};
    static const struct { const char *id; double batch; } models[] = {{"resnet50", 256}, {"bert-large", 32}};
    double x[REPORT_MAX_GPUS * 2][4], y[REPORT_MAX_GPUS * 2][4];
    char names[REPORT_MAX_GPUS * 2][96], h[16][96], b[48];
    ridge_curve_series s[REPORT_MAX_GPUS * 2];
    double base[2] = {0, 0}; /* each model's throughput on one of the first GPU with a cluster */
    size_t ns = 0;
    cli_table t;
    ridge_cluster *cl = malloc(sizeof *cl);
    int rc = CLI_EXIT_OK;
    if (!cl)
        return CLI_EXIT_FAILURE;
    report_h(d, 2, "Multi-GPU scaling: NVLink or PCIe");
    report_p(d, "Data-parallel training in one server (the built-in cluster of each GPU), the per-GPU batch "
                "kept. Efficiency is the throughput of n GPUs over n times one GPU's; the bound is "
                "communication when the gradient reduction the backward pass cannot hide costs more than "
                "5 %% of the step.");
    const char *cols[] = {"cluster", "link", "model", "GPUs", "throughput", "efficiency", "exposed reduction",
                          "bound"};
    for (int k = 0; k < 8; k++)
        cellf(h[k], "%s", cols[k]);
    table_start(&t, 8, h);
    for (int i = 0; i < r->n && rc == CLI_EXIT_OK; i++) {
        if (!cluster_of(&r->g[i], cl)) {
            report_p(d, "%s: no built-in cluster (ridge clusters lists them).", r->g[i].id);
            continue;
        }
        progress(r, "multi-GPU scaling");
        for (size_t k = 0; k < 2 && rc == CLI_EXIT_OK; k++) {
            ridge_model *m = NULL;
            ridge_err err;
            ridge_run_config run = r->given;
            double one = 0;
            int st = ridge_model_load(models[k].id, &m, &err);
            run.mode = RIDGE_MODE_TRAIN;
            for (size_t c = 0; c < 4 && st == RIDGE_OK; c++) {
                ridge_cluster sub = *cl;
                ridge_parallel_config pc;
                ridge_parallel_result pr;
                sub.gpus_per_node = counts[c];
                sub.nodes = 1;
                ridge_parallel_config_init(&pc);
                pc.dp = counts[c];
                pc.microbatch = models[k].batch;
                pc.global_batch = models[k].batch * counts[c];
                st = ridge_parallel_predict(&sub, m, &run, &pc, r->rt, &pr, &err);
                if (st != RIDGE_OK)
                    break;
                if (c == 0)
                    one = pr.throughput;
                if (c == 0 && base[k] <= 0)
                    base[k] = pr.throughput;
                double eff = pr.throughput / (counts[c] * one), exposed = pr.breakdown.dp_comm_exposed_s / pr.step_time_s;
                cellf(h[0], "%s", cl->id);
                cellf(h[1], "%s", ridge_intra_kind_name(cl->intra_kind));
                cellf(h[2], "%s", models[k].id);
                cellf(h[3], "%d", counts[c]);
                cellf(h[4], "%s %s", num(pr.throughput, b, sizeof b), pr.throughput_unit);
                cellf(h[5], "%.1f %%", 100 * eff);
                cellf(h[6], "%.1f %%", 100 * exposed);
                cellf(h[7], "%s", exposed > 0.05 ? "communication" : "compute (reduction hidden)");
                table_row(&t, h);
                x[ns][c] = counts[c];
                /* The chart: throughput over one first GPU's, so that it shows both the scaling and how
                 * many of one GPU match the other (efficiency alone sits near 100 % and says neither). */
                y[ns][c] = pr.throughput / base[k];
            }
            if (st != RIDGE_OK) {
                cli_error("%s", err.msg);
                rc = cli_exit_code(st);
            } else {
                snprintf(names[ns], sizeof names[ns], "%s, %s (%s)", models[k].id, r->g[i].id,
                         ridge_intra_kind_name(cl->intra_kind));
                s[ns] = (ridge_curve_series){names[ns], x[ns], y[ns], 4, i, (int)k + 1, 0};
                ns++;
            }
            ridge_model_free(m);
        }
    }
    free(cl);
    if (rc == CLI_EXIT_OK) {
        double mape;
        int n;
        report_table(d, &t);
        if (report_trust("group", "published-multi-gpu", &mape, &n))
            report_p(d, "How far to trust it: on %d published multi-GPU measurements the MAPE is %.3g %%.", n, mape);
    }
    cli_table_free(&t);
    if (rc == CLI_EXIT_OK && ns > 0) {
        ridge_plot_paths paths;
        ridge_err err;
        ridge_curve_options o = {0};
        o.title = "Data-parallel training throughput in one server";
        o.xlabel = "GPUs";
        o.ylabel = "throughput relative to one of the first GPU";
        if ((rc = report_chart_paths(d, "scaling", &paths)) == CLI_EXIT_OK) {
            int st = ridge_curves_write(s, ns, &o, &paths, &err);
            if (st != RIDGE_OK) {
                cli_error("%s", err.msg);
                rc = cli_exit_code(st);
            } else {
                rc = report_chart(d, &paths, "Data-parallel training throughput against the GPU count, relative to one GPU of the first kind (same model).");
            }
        }
    }
    return rc;
}

static void section_short(report_doc *d, const report_run *r)
{
    char b[48];
    report_h(d, 2, "The short answer");
    if (r->n < 2) {
        report_p(d, "One GPU: the sections below give its figures.");
        return;
    }
    const ridge_gpu *a = &r->g[0], *z = &r->g[r->n - 1];
    for (size_t c = 0; c < NCASES; c++)
        report_li(d, "%s: %s is %s x %s (bound on %s: %s; on %s: %s).", cases[c].label, z->id,
                  num(r->thr[c][r->n - 1] / r->thr[c][0], b, sizeof b), a->id, a->id, r->bound[c][0], z->id,
                  r->bound[c][r->n - 1]);
    report_list_end(d);
}

static void section_trust(report_doc *d, const report_run *r)
{
    char files[1024];
    double mape;
    int n;
    report_h(d, 2, "How far to trust these numbers");
    report_p(d, "Every figure is a prediction of ridge's analytical model, not a measurement. Its measured "
                "error (docs/validation.md), from the validation baseline built into this ridge (%s; files: %s):",
             report_trust_stamp(), report_trust_files(files, sizeof files));
    static const struct { const char *by, *name, *what; } rows[] = {
        {"workload", "resnet50", "ResNet-50 published rows"},   {"group", "lstm", "LSTM kernels (GNMT)"},
        {"workload", "bert-large", "BERT-large published rows"}, {"workload", "llama2-7b", "Llama 2 7B published rows"},
        {"group", "published-multi-gpu", "multi-GPU published rows"}, {"group", "published", "all published model rows"},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
        if (report_trust(rows[k].by, rows[k].name, &mape, &n))
            report_li(d, "%s: MAPE %.3g %% (%d cases)", rows[k].what, mape, n);
    for (int i = 0; i < r->n; i++) {
        if (report_trust("gpu", r->g[i].id, &mape, &n))
            report_li(d, "every case on %s: MAPE %.3g %% (%d cases)", r->g[i].id, mape, n);
        else
            report_li(d, "%s: no measurements in the baseline; its figures are untested", r->g[i].id);
    }
    report_list_end(d);
    (void)trust_note;
}

static void section_assumptions(report_doc *d, const report_run *r)
{
    report_h(d, 2, "Assumptions");
    report_li(d, "ridge %s; predictions from its analytical model (docs/model.md).", ridge_version());
    report_li(d, "Software stack: host profile %s (the framework's per-kernel launch and dispatch cost), code "
                 "style %s, runtime %s, precision %s%s, optimizer %s.",
              r->host_id, r->code, ridge_runtime_name(r->rt), ridge_dtype_name(r->given.precision), r->precision_note,
              ridge_optimizer_name(r->given.optimizer));
    for (int i = 0; i < r->n; i++) {
        char b[512];
        /* One phrase per GPU, as compare and plan print it: price, kind, date and source, or "no price". */
        report_li(d, "Price of %s: %s.", r->g[i].id, cli_price_text(&r->g[i], b, sizeof b));
    }
    report_li(d, "Board power is the catalogue's TDP; clocks as the catalogue quotes them.");
    report_list_end(d);
}

static const char css[] =
    "body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222;line-height:1.4}"
    "table{border-collapse:collapse;margin:.5em 0 1em;font-size:90%}"
    "th,td{border:1px solid #bbb;padding:.2em .5em}th{background:#eee}td.n{text-align:right}"
    "figure{margin:1em 0}svg{max-width:100%;width:760px;height:auto}figcaption{font-size:90%;color:#555}";

static int write_doc(report_doc *d, report_run *r)
{
    char title[512];
    int n = snprintf(title, sizeof title, "Which GPU for deep learning:"), rc;
    for (int i = 0; i < r->n; i++)
        n += snprintf(title + n, sizeof title - (size_t)n, "%s %s", i ? (i == r->n - 1 ? " or" : ",") : "", r->g[i].id);
    if (d->fmt == REPORT_HTML)
        fprintf(d->out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n"
                        "<style>%s</style>\n</head>\n<body>\n", title, css);
    report_h(d, 1, "%s", title);
    report_p(d, "Training or inference, CNNs or RNNs or transformers, large models, per watt, per dollar, MIG, "
                "NVLink: the answers ridge's model predicts for these GPUs, each with the bound that explains it "
                "and the model's measured error.");
    section_short(d, r);
    section_gpus(d, r);
    if ((rc = section_throughput(d, r)) != CLI_EXIT_OK || (rc = section_efficiency(d, r)) != CLI_EXIT_OK ||
        (rc = section_capacity(d, r)) != CLI_EXIT_OK || (rc = section_mig(d, r)) != CLI_EXIT_OK ||
        (rc = section_scaling(d, r)) != CLI_EXIT_OK)
        return rc;
    section_trust(d, r);
    section_assumptions(d, r);
    if (d->fmt == REPORT_HTML)
        fputs("</body>\n</html>\n", d->out);
    return CLI_EXIT_OK;
}

/* Split path into its directory (which must exist) and stem; the extension picks the format. */
static int output_path(const char *path, report_doc *d)
{
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path, *dot = strrchr(base, '.');
    struct stat st;
    if (!dot || dot == base) {
        cli_error("report: %s: the extension must be .html, .htm or .md", path);
        return CLI_EXIT_USAGE;
    }
    if (strcasecmp(dot, ".html") == 0 || strcasecmp(dot, ".htm") == 0)
        d->fmt = REPORT_HTML;
    else if (strcasecmp(dot, ".md") == 0)
        d->fmt = REPORT_MD;
    else {
        cli_error("report: %s: unknown extension '%s' (use .html, .htm or .md)", path, dot);
        return CLI_EXIT_USAGE;
    }
    if (strlen(path) >= sizeof d->dir - 64) {
        cli_error("report: %s: path too long", path);
        return CLI_EXIT_USAGE;
    }
    if (slash)
        snprintf(d->dir, sizeof d->dir, "%.*s", (int)(slash - path == 0 ? 1 : slash - path), path);
    else
        snprintf(d->dir, sizeof d->dir, ".");
    snprintf(d->stem, sizeof d->stem, "%.*s", (int)(dot - base), base);
    if (stat(d->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        cli_error("report: %s: directory '%s' does not exist", path, d->dir);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
    static const struct option longopts[] = {{"output", required_argument, 0, 'o'}, CLI_OPTION_HELP,
                                             CLI_OPTION_RUNTIME, CLI_OPTION_PRICES, CLI_RUN_OPTIONS, CLI_OPTION_END};
    static cli_prices prices; /* large: not on the stack */
    cli_opts o = {"report", help, CLI_RUN_HELP, NULL, 0, -1};
    report_run *r = calloc(1, sizeof *r);
    report_doc d;
    const char *out = NULL;
    int c, rc = CLI_EXIT_OK;
    if (!r)
        return CLI_EXIT_FAILURE;
    memset(&d, 0, sizeof d);
    ridge_run_config_init(&r->given);
    r->rt = RIDGE_RUNTIME_EAGER;
    while ((c = cli_getopt(&o, argc, argv, ":ho:", longopts)) != -1) {
        int k;
        if (c == 'o') {
            out = optarg;
        } else if (c == CLI_OPT_PRICE || c == CLI_OPT_PRICES) {
            if ((k = cli_prices_option(&prices, c, optarg)) != 0) {
                rc = k == -3 ? CLI_EXIT_IO : CLI_EXIT_USAGE;
                goto done;
            }
        } else if (c == 'r') {
            int st = ridge_runtime_parse(optarg, &r->rt);
            if (st != 0) {
                rc = cli_usage_error("report", "unknown --runtime '%s'", optarg);
                goto done;
            }
        } else if ((k = cli_run_option(c, optarg, NULL, &r->given)) == 1) {
            if (c == CLI_RUN_OPT_PRECISION)
                r->precision_given = 1;
        } else {
            rc = k < 0 ? CLI_EXIT_USAGE : cli_getopt_error("report", c, argv);
            goto done;
        }
    }
    if (o.exit >= 0) {
        rc = o.exit;
        goto done;
    }
    if (optind >= argc) {
        rc = cli_usage_error("report", "give one or more GPU ids");
        goto done;
    }
    if (!out) {
        rc = cli_usage_error("report", "give the report's path with -o PATH (.html or .md)");
        goto done;
    }
    if (argc - optind > REPORT_MAX_GPUS) {
        rc = cli_usage_error("report", "at most %d GPUs", REPORT_MAX_GPUS);
        goto done;
    }
    if ((rc = output_path(out, &d)) != CLI_EXIT_OK)
        goto done;
    for (int i = optind; i < argc; i++)
        if ((rc = cli_load_gpu(argv[i], NULL, &r->g[r->n++])) != CLI_EXIT_OK)
            goto done;
    /* Each GPU carries the price it is costed at: --price / --prices, else the catalogue's. */
    if ((rc = cli_prices_apply(&prices, r->g, (size_t)r->n, "report")) != CLI_EXIT_OK)
        goto done;
    if (!r->precision_given)
        cli_default_precision(&r->given, r->g, r->n, r->precision_note, sizeof r->precision_note);
    r->progress = isatty(2);
    if (d.fmt == REPORT_HTML) {
        int len = snprintf(d.tmpdir, sizeof d.tmpdir, "%s/.ridge-report.XXXXXX", d.dir);
        if (len < 0 || (size_t)len >= sizeof d.tmpdir) {
            cli_error("report: %s: path too long", out);
            d.tmpdir[0] = '\0';
            rc = CLI_EXIT_USAGE;
            goto done;
        }
        if (!mkdtemp(d.tmpdir)) {
            cli_error("report: cannot create a directory in '%s': %s", d.dir, strerror(errno));
            d.tmpdir[0] = '\0';
            rc = CLI_EXIT_IO;
            goto done;
        }
    }
    d.out = open_memstream(&d.buf, &d.len);
    if (!d.out) {
        rc = CLI_EXIT_FAILURE;
        goto done;
    }
    if ((rc = predict_cases(r)) == CLI_EXIT_OK)
        rc = write_doc(&d, r);
    fclose(d.out);
    d.out = NULL;
    if (r->progress)
        fputs("\r\033[K", stderr);
    if (rc == CLI_EXIT_OK) {
        ridge_err err;
        if (ridge_plot_write_file(out, d.buf, d.len, &err) != RIDGE_OK) {
            cli_error("%s", err.msg);
            rc = CLI_EXIT_IO;
        } else {
            fprintf(stderr, "ridge: wrote %s (%d chart%s%s)\n", out, d.charts, d.charts == 1 ? "" : "s",
                    d.charts_missing ? "; gnuplot absent, some charts not drawn" : "");
        }
    }
done:
    if (d.tmpdir[0])
        rmdir(d.tmpdir);
    free(d.buf);
    free(r);
    return rc;
}
