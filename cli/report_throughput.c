/* ridge report: the sections on the GPUs, training and inference throughput, per watt and per
 * dollar, and the largest batch and model that fit (docs/cli.md, "report").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <string.h>

#include "model_run.h"
#include "report.h"

/* The language models whose fit the capacity section asks about, smallest first. */
static const char *const llms[] = {"llama2-7b", "llama3-8b", "llama2-13b", "mixtral-8x7b", "llama2-70b"};
#define NLLMS (sizeof llms / sizeof llms[0])

void report_section_gpus(report_doc *d, const report_run *r)
{
    char h[16][96], b[48];
    cli_table t;
    const char *cols[] = {"GPU", "memory", "bandwidth [TB/s]", "16-bit tensor [TFLOP/s]", "FP32 [TFLOP/s]",
                          "board power [W]", "price [USD/h]", "MIG", "GPU-to-GPU link"};
    for (int i = 0; i < 9; i++)
        snprintf(h[i], sizeof h[i], "%s", cols[i]);
    report_h(d, 2, "The GPUs");
    report_table_start(&t, 9, h);
    for (int i = 0; i < r->n; i++) {
        const ridge_gpu *g = &r->g[i];
        double usd;
        const char *src, *date;
        double t16 = g->peak_flops_per_s[RIDGE_PEAK_BF16] > 0 ? g->peak_flops_per_s[RIDGE_PEAK_BF16]
                                                               : g->peak_flops_per_s[RIDGE_PEAK_FP16_FP32ACC];
        report_cell(h[0], "%s (%s)", g->id, g->name);
        report_cell(h[1], "%s GiB %s", report_num(g->memory_bytes / 1073741824.0, b, sizeof b), g->memory_type);
        report_num(g->memory_bw_bytes_per_s / 1e12, h[2], 96);
        report_num(t16 / 1e12, h[3], 96);
        report_num(g->peak_flops_per_s[RIDGE_PEAK_FP32] / 1e12, h[4], 96);
        report_num(g->tdp_w, h[5], 96);
        if (report_price(g, &usd, &src, &date))
            report_cell(h[6], "%s (%s)", report_num(usd, b, sizeof b), date);
        else
            report_cell(h[6], "no price");
        report_cell(h[7], "%s", g->mig_count ? "yes" : "no");
        if (g->nvlink_links)
            report_cell(h[8], "NVLink %s, %s GB/s", g->nvlink_kind,
                        report_num(g->nvlink_bw_bytes_per_s / 1e9, b, sizeof b));
        else
            report_cell(h[8], "PCIe Gen%d x%d", g->pcie_generation, g->pcie_lanes);
        report_row(&t, h);
    }
    report_table(d, &t);
    cli_table_free(&t);
}

/* Grouped bars of values[case][gpu] relative to the first GPU, one bar per GPU. */
static int bars_relative(report_doc *d, const report_run *r, const char *name, double (*v)[REPORT_MAX_GPUS],
                         const char *title, const char *ylabel, const char *alt)
{
    const char *cats[REPORT_NCASES];
    double vals[REPORT_MAX_GPUS][REPORT_NCASES];
    ridge_bar_series s[REPORT_MAX_GPUS];
    ridge_plot_paths paths;
    ridge_err err;
    ridge_bars_options o = {title, NULL, ylabel, 0, 1};
    int rc = report_chart_paths(d, name, &paths);
    if (rc != CLI_EXIT_OK)
        return rc;
    for (size_t c = 0; c < REPORT_NCASES; c++) {
        cats[c] = report_cases[c].label;
        for (int i = 0; i < r->n; i++)
            vals[i][c] = v[c][i] / v[c][0];
    }
    for (int i = 0; i < r->n; i++) {
        s[i].name = r->g[i].id;
        s[i].values = vals[i];
    }
    if ((rc = ridge_bars_write(cats, REPORT_NCASES, s, (size_t)r->n, &o, &paths, &err)) != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(rc);
    }
    return report_chart(d, &paths, alt);
}

int report_section_throughput(report_doc *d, report_run *r)
{
    char h[16][96], b[48];
    cli_table t;
    int nc = 2 + 2 * r->n + (r->n > 1);
    report_h(d, 2, "Training and inference throughput");
    report_p(d, "One GPU, the batch shown, %s. The bound is where the step spends most of its time: compute "
                "(tensor or vector throughput), memory (DRAM bandwidth), latency (launch and ramp-up floors) "
                "or host (the GPU waits for the framework to issue kernels).",
             ridge_dtype_name(r->given.precision));
    report_cell(h[0], "question");
    report_cell(h[1], "batch");
    for (int i = 0; i < r->n; i++) {
        report_cell(h[2 + 2 * i], "%s", r->g[i].id);
        report_cell(h[3 + 2 * i], "bound on %s", r->g[i].id);
    }
    if (r->n > 1)
        report_cell(h[nc - 1], "%s / %s", r->g[r->n - 1].id, r->g[0].id);
    report_table_start(&t, nc, h);
    for (size_t c = 0; c < REPORT_NCASES; c++) {
        report_cell(h[0], "%s", report_cases[c].label);
        report_num(report_cases[c].batch, h[1], 96);
        for (int i = 0; i < r->n; i++) {
            report_cell(h[2 + 2 * i], "%s %s", isnan(r->thr[c][i]) ? "-" : report_num(r->thr[c][i], b, sizeof b),
                        r->unit[c]);
            report_cell(h[3 + 2 * i], "%s", r->bound[c][i]);
        }
        if (r->n > 1)
            report_cell(h[nc - 1], "%s x", report_num(r->thr[c][r->n - 1] / r->thr[c][0], b, sizeof b));
        report_row(&t, h);
    }
    report_table(d, &t);
    cli_table_free(&t);
    {
        double mape;
        int n;
        for (size_t c = 0; c < REPORT_NCASES; c += 2)
            if (report_trust("workload", report_cases[c].trust, &mape, &n))
                report_li(d, "%s: MAPE %.3g %% over %d published measurements (validation baseline).",
                          c == 2 ? "GNMT/LSTM (the lstm kernels)" : report_cases[c].id, mape, n);
        for (int i = 0; i < r->n; i++)
            if (report_trust("gpu", r->g[i].id, &mape, &n))
                report_li(d, "all measurements on %s: MAPE %.3g %% over %d cases.", r->g[i].id, mape, n);
        report_list_end(d);
    }
    char title[160];
    report_cell(title, "Predicted throughput relative to %s", r->g[0].id);
    return bars_relative(d, r, "throughput", r->thr, title, "throughput relative to the first GPU",
                         "Throughput of each question relative to the first GPU (higher is faster).");
}

int report_section_efficiency(report_doc *d, report_run *r)
{
    char h[16][96], b[48];
    cli_table t;
    double perw[REPORT_NCASES][REPORT_MAX_GPUS];
    int nc = 1 + 2 * r->n, priced = 0;
    report_h(d, 2, "Per watt and per dollar");
    report_p(d, "Per watt divides the throughput by the board power (TDP), the power the board may draw "
                "under load; per dollar divides it by the price per GPU-hour. The bound is that of the "
                "throughput above.");
    report_cell(h[0], "question");
    for (int i = 0; i < r->n; i++) {
        report_cell(h[1 + 2 * i], "%s per W", r->g[i].id);
        report_cell(h[2 + 2 * i], "%s per USD", r->g[i].id);
    }
    report_table_start(&t, nc, h);
    for (size_t c = 0; c < REPORT_NCASES; c++) {
        report_cell(h[0], "%s [%s]", report_cases[c].label, r->unit[c]);
        for (int i = 0; i < r->n; i++) {
            double usd;
            const char *src, *date;
            perw[c][i] = r->thr[c][i] / r->g[i].tdp_w;
            report_num(perw[c][i], h[1 + 2 * i], 96);
            if (report_price(&r->g[i], &usd, &src, &date) && !isnan(r->thr[c][i])) {
                /* items per USD: throughput x 3600 s / price per hour */
                /* "4.224 M images" (cli_num_si): the unit of the throughput without its "/s" */
                report_cell(h[2 + 2 * i], "%s %.*s", cli_num_si(r->thr[c][i] * 3600 / usd, b, sizeof b),
                            (int)strcspn(r->unit[c], "/"), r->unit[c]);
                priced = 1;
            } else {
                report_cell(h[2 + 2 * i], "no price");
            }
        }
        report_row(&t, h);
    }
    report_table(d, &t);
    cli_table_free(&t);
    if (!priced)
        report_p(d, "No GPU here has a sourced price in the catalogue, so there is no per-dollar answer: "
                    "give one with --price ID=USD_PER_HOUR.");
    return bars_relative(d, r, "per-watt", perw, "Throughput per watt relative to the first GPU",
                         "per watt relative to the first GPU", "Throughput per watt of board power, relative to the first GPU.");
}

int report_section_capacity(report_doc *d, report_run *r)
{
    char h[16][96], b[48], b2[48];
    cli_table t;
    report_h(d, 2, "The largest batch and model that fit");
    report_p(d, "Memory is weights, gradients, optimizer state, activations, KV cache and workspace against "
                "the GPU's capacity; the bound of these answers is capacity.");
    report_cell(h[0], "question");
    for (int i = 0; i < r->n; i++)
        report_cell(h[1 + i], "%s: largest batch", r->g[i].id);
    report_table_start(&t, 1 + r->n, h);
    for (size_t c = 0; c < REPORT_NCASES; c++) {
        report_cell(h[0], "%s (%s GiB at batch %s)", report_cases[c].label,
                    report_num(r->mem_gib[c][0], b, sizeof b), report_num(report_cases[c].batch, b2, sizeof b2));
        for (int i = 0; i < r->n; i++)
            report_num(r->max_batch[c][i], h[1 + i], 96);
        report_row(&t, h);
    }
    report_table(d, &t);
    cli_table_free(&t);

    report_cell(h[0], "model");
    report_cell(h[1], "parameters");
    report_cell(h[2], "inference [GiB]");
    report_cell(h[3], "training [GiB]");
    for (int i = 0; i < r->n; i++)
        report_cell(h[4 + i], "fits %s", r->g[i].id);
    report_table_start(&t, 4 + r->n, h);
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
        report_cell(h[0], "%s", llms[k]);
        report_cell(h[1], "%s B", report_num(ridge_model_params(m) / 1e9, b, sizeof b));
        report_num(mi.total_bytes / 1073741824.0, h[2], 96);
        report_num(mt.total_bytes / 1073741824.0, h[3], 96);
        for (int i = 0; i < r->n; i++) {
            int fi = mi.total_bytes <= r->g[i].memory_bytes, ft = mt.total_bytes <= r->g[i].memory_bytes;
            report_cell(h[4 + i], "%s", fi && ft ? "inference and training" : fi ? "inference only" : "no");
            if (fi)
                snprintf(largest_inf[i], 48, "%s", llms[k]);
            if (ft)
                snprintf(largest_train[i], 48, "%s", llms[k]);
        }
        report_row(&t, h);
        ridge_model_free(m);
    }
    report_p(d, "Language models, one sequence: decode with 2048 tokens of KV cache, and training at batch 1 "
                "(AdamW, mixed precision) on a single GPU.");
    report_table(d, &t);
    cli_table_free(&t);
    for (int i = 0; i < r->n; i++)
        report_li(d, "%s (%s GiB): the largest of these it serves is %s; the largest it trains alone is %s.",
                  r->g[i].id, report_num(r->g[i].memory_bytes / 1073741824.0, b, sizeof b),
                  largest_inf[i][0] ? largest_inf[i] : "none", largest_train[i][0] ? largest_train[i] : "none");
    report_list_end(d);
    return CLI_EXIT_OK;
}
