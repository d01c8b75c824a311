/* ridge report: the short answer at the top of the page, how far to trust its numbers and the
 * assumptions behind them (docs/cli.md, "report").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "prices.h"
#include "report.h"
#include "ridge/version.h"

void report_section_short(report_doc *d, const report_run *r)
{
    char b[48];
    report_h(d, 2, "The short answer");
    if (r->n < 2) {
        report_p(d, "One GPU: the sections below give its figures.");
        return;
    }
    const ridge_gpu *a = &r->g[0], *z = &r->g[r->n - 1];
    for (size_t c = 0; c < REPORT_NCASES; c++)
        report_li(d, "%s: %s is %s x %s (bound on %s: %s; on %s: %s).", report_cases[c].label, z->id,
                  report_num(r->thr[c][r->n - 1] / r->thr[c][0], b, sizeof b), a->id, a->id, r->bound[c][0], z->id,
                  r->bound[c][r->n - 1]);
    report_list_end(d);
}

void report_section_trust(report_doc *d, const report_run *r)
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
}

void report_section_assumptions(report_doc *d, const report_run *r)
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
