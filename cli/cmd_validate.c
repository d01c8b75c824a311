/* ridge validate: compare predictions with measurement files (docs/cli.md, docs/validation.md).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each measurement ridge can map is predicted and compared: kernel measurements (config.op)
 * with the kernel model, model measurements (config.workload, a preset id) with a model run.
 * The error of a case is predicted / measured - 1. Unmappable measurements are counted by
 * reason, never fatal. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "chart_render.h"
#include "cli.h"
#include "progress.h"
#include "ridge/measure.h"
#include "ridge/plot.h"
#include "ridge/val_chart.h"
#include "ridge/validate.h"
#include "validate_emit.h"

#define CMD "validate"

static const char help[] =
    "usage: ridge validate FILE... [--gpu ID | --gpu-file PATH] [--format text|json|csv]\n"
    "                      [--chart scatter|ratio -o CHART] [--baseline FILE | --write-baseline FILE]\n"
    "\n"
    "Predict every measurement of ridge measurement files (docs/validation.md) that ridge can\n"
    "map and print measured, predicted and error = predicted / measured - 1 per case, then the\n"
    "mean (MAPE) and median absolute percentage error and the worst case per group, GPU,\n"
    "workload and GPU x kernel family (docs/validation.md), then the 10 worst cases. Kernel measurements (config.op) are predicted with the kernel model as they were\n"
    "timed: calls back to back (the slower of GPU time and launch issue), one call and a\n"
    "synchronize (config.timed \"round_trip\"), or the launch call alone (config.timed\n"
    "\"issue\"; older files: config.sync \"each\", ids ending in _issue).\n"
    "Model measurements (config.workload, a preset id, or the hyper-parameters a PyTorch run\n"
    "recorded) are predicted with the recorded run configuration: throughput (items/s), latency\n"
    "(step time) or generation (prefill + output x decode at the recorded context).\n"
    "Measurements whose check failed are skipped (nothing to check, as for launch timings and\n"
    "published figures, is fine); measurements that cannot be mapped, lack a field or have one\n"
    "of the wrong type or range are counted by reason (\"no time_s.median\").\n"
    "CSV holds the cases only.\n"
    "\n"
    "Options:\n"
    "  --gpu ID             the catalogue GPU for every measurement (default: the measurement's\n"
    "                       config.gpu, else provenance.gpu_name mapped to the catalogue)\n"
    "  --gpu-file PATH      a GPU file (for example one written by ridge calibrate) for the\n"
    "                       measurements of its id, instead of the catalogue entry; for every\n"
    "                       measurement when its id is not a catalogue id. Exclusive with --gpu\n"
    "  --format text|json|csv   default text\n"
    "  --chart scatter|ratio -o CHART.png|CHART.svg\n"
    "                       also chart the cases, one colour per unit, with CHART.dat and\n"
    "                       CHART.gp beside it (rendered when gnuplot is present): scatter,\n"
    "                       predicted against measured on log-log axes with the diagonal and\n"
    "                       the +-10 % and +-25 % lines; ratio, predicted / measured (log) per\n"
    "                       case in input order with the same bands\n"
    "  --write-baseline FILE    also write the per-group/GPU/workload MAPE as a baseline file\n"
    "  --baseline FILE      compare with a baseline: exit 5 when any of its groups lost cases or\n"
    "                       its MAPE grew by more than the tolerance\n"
    "  --tolerance-points N with --baseline: its tolerance in percentage points (default 2)\n"
    "  --min-time S         leave out cases measured in seconds below S (counted as skipped)\n"
    "  --summary            text: the summaries and the 10 worst cases, not every case\n"
    "  --only kernels|models  compare only kernel (config.op) or only model measurements\n"
    "  -h, --help           this help\n";

/* --chart scatter|ratio: the cases, one set per unit (ridge/val_chart.h), rendered when gnuplot is here. */
static int write_chart(const ridge_val_cases *s, ridge_validation_style style, const ridge_plot_paths *paths,
                       int *rendered)
{
    ridge_err err = {{0}};
    int st = ridge_val_chart_write(s, style, paths, &err);
    if (st != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(st);
    }
    return cli_chart_render(paths, 1, rendered);
}

/* ---- --baseline FILE ---- */

/* Compare the summaries with a baseline (ridge_val_baseline_check); each regression goes to stderr,
 * one line each. Returns an exit code (CLI_EXIT_CHECK when a group regressed). */
static int check_baseline(const char *path, const ridge_val_summary *v, int nv, double tol, int *regressions)
{
    ridge_val_regressions r = {0};
    ridge_err err = {{0}};
    int st = ridge_val_baseline_check(path, v, nv, tol, &r, &err);
    for (int i = 0; st == RIDGE_OK && i < r.n; i++) {
        const ridge_val_regression *x = &r.v[i];
        fprintf(stderr, "ridge: baseline: %s %s: ", x->by, x->name);
        if (x->kind == RIDGE_VAL_REG_GONE)
            fprintf(stderr, "no cases any more (baseline %d)\n", x->base_cases);
        else if (x->kind == RIDGE_VAL_REG_FEWER)
            fprintf(stderr, "%d cases, fewer than the baseline's %d\n", x->cases, x->base_cases);
        else
            fprintf(stderr, "MAPE %.2f %% exceeds the baseline %.2f %% by more than %g points\n", x->mape_percent,
                    x->base_mape_percent, tol);
    }
    *regressions = st == RIDGE_OK ? r.n : 0;
    ridge_val_regressions_free(&r);
    if (st != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(st);
    }
    return *regressions ? CLI_EXIT_CHECK : CLI_EXIT_OK;
}

/* The command line of `ridge validate`, parsed and checked. */
typedef struct {
    const char *gpu, *chart, *out, *baseline, *write_base, *gpu_file, *only;
    double tol, min_time;
    int tol_given, summary_only, help;
    cli_format fmt;
    ridge_plot_paths paths;
    ridge_gpu fileg; /* --gpu-file, loaded */
    char **files;
    int nfiles;
} val_args;

static int parse_options(int argc, char **argv, val_args *a)
{
    static const struct option longopts[] = {CLI_OPTIONS_GPU,
                                             CLI_OPTION_FORMAT,
                                             {"chart", required_argument, 0, 'c'},
                                             {"output", required_argument, 0, 'o'},
                                             {"baseline", required_argument, 0, 'b'},
                                             {"write-baseline", required_argument, 0, 'w'},
                                             {"tolerance-points", required_argument, 0, 't'},
                                             {"min-time", required_argument, 0, 'm'},
                                             {"summary", no_argument, 0, 's'},
                                             {"only", required_argument, 0, 'k'},
                                             CLI_OPTION_HELP,
                                             CLI_OPTION_END};
    cli_opts co = {CMD, help, NULL, &a->fmt, 0, -1, NULL};
    int c;
    while ((c = cli_getopt(&co, argc, argv, ":ho:", longopts)) != -1) {
        switch (c) {
        case 'g':
            if (cli_take_once(CMD, "--gpu", &a->gpu, optarg, "one GPU for every measurement, or none (each its own)"))
                return CLI_EXIT_USAGE;
            break;
        case 'c': a->chart = optarg; break;
        case 'o': a->out = optarg; break;
        case 'b': a->baseline = optarg; break;
        case 'G':
            if (cli_take_once(CMD, "--gpu-file", &a->gpu_file, optarg, "one GPU for every measurement, or none"))
                return CLI_EXIT_USAGE;
            break;
        case 'w': a->write_base = optarg; break;
        case 't':
            if (cli_parse_double("--tolerance-points", optarg, 0, 100, &a->tol))
                return CLI_EXIT_USAGE;
            a->tol_given = 1;
            break;
        case 'm':
            if (cli_parse_double("--min-time", optarg, 0, 1e6, &a->min_time))
                return CLI_EXIT_USAGE;
            break;
        case 's': a->summary_only = 1; break;
        case 'k':
            if (strcmp(optarg, "kernels") != 0 && strcmp(optarg, "models") != 0)
                return cli_usage_error(CMD, "--only: unknown '%s' (kernels, models)", optarg);
            a->only = optarg;
            break;
        }
    }
    if (co.exit >= 0) {
        a->help = co.exit == CLI_EXIT_OK;
        return co.exit;
    }
    a->files = argv + optind;
    a->nfiles = argc - optind;
    return CLI_EXIT_OK;
}

/* No output (the baseline written, the chart and its .dat and .gp) may be one of the files read:
 * `validate k.json --write-baseline k.json` would replace the measurements. */
static int refuse_outputs_over_inputs(const val_args *a)
{
    const char *const *files = (const char *const *)a->files, *other[2] = {a->baseline, a->gpu_file};
    int rc = cli_refuse_output_over_input(CMD, "--write-baseline", a->write_base, files, a->nfiles);
    if (rc == CLI_EXIT_OK)
        rc = cli_refuse_output_over_input(CMD, "--write-baseline", a->write_base, other, 2);
    if (rc == CLI_EXIT_OK && a->out)
        rc = cli_refuse_chart_over_input(CMD, &a->paths, files, a->nfiles);
    if (rc == CLI_EXIT_OK && a->out)
        rc = cli_refuse_chart_over_input(CMD, &a->paths, other, 2);
    return rc;
}

/* The options that go together, the chart's paths and the GPUs, checked before any file is read. */
static int parse_args(int argc, char **argv, val_args *a)
{
    int rc = parse_options(argc, argv, a);
    if (rc != CLI_EXIT_OK || a->help)
        return rc;
    if (a->nfiles <= 0)
        return cli_usage_error(CMD, "missing measurement file");
    if (a->nfiles > RIDGE_MEAS_MAX_FILES)
        return cli_usage_error(CMD, "at most %d files", RIDGE_MEAS_MAX_FILES);
    if (a->chart && strcmp(a->chart, "scatter") != 0 && strcmp(a->chart, "ratio") != 0)
        return cli_usage_error(CMD, "--chart: unknown chart '%s' (scatter, ratio)", a->chart);
    if (a->chart && !a->out)
        return cli_usage_error(CMD, "--chart needs -o CHART.png|CHART.svg");
    if (a->out && !a->chart)
        return cli_usage_error(CMD, "-o needs --chart scatter|ratio");
    if (a->out) {
        ridge_err perr = {{0}};
        if (ridge_plot_paths_from_chart(a->out, &a->paths, &perr) != RIDGE_OK)
            return cli_usage_error(CMD, "-o: %s", perr.msg);
    }
    if (a->gpu) {
        ridge_gpu g;
        if ((rc = cli_load_gpu(a->gpu, NULL, &g)) != CLI_EXIT_OK)
            return rc;
    }
    if (a->baseline && a->write_base)
        return cli_usage_error(CMD, "--baseline and --write-baseline are exclusive");
    if (a->tol_given && !a->baseline)
        return cli_usage_error(CMD, "--tolerance-points needs --baseline FILE (it is the baseline's tolerance)");
    if (a->write_base && !*a->write_base)
        return cli_usage_error(CMD, "--write-baseline: empty path");
    if (a->gpu && a->gpu_file)
        return cli_usage_error(CMD, "--gpu and --gpu-file are exclusive");
    if ((rc = refuse_outputs_over_inputs(a)) != CLI_EXIT_OK)
        return rc;
    if (a->gpu_file)
        return cli_load_gpu(NULL, a->gpu_file, &a->fileg);
    return CLI_EXIT_OK;
}

/* The baseline file (first: one that cannot be written leaves stdout empty), the report on
 * stdout, the baseline's verdict and the chart's line. */
static int emit(const val_args *a, const ridge_val_cases *s, const ridge_meas_set *ms, const ridge_val_summary *v,
                int nv, int regressions, int rendered)
{
    int rc = CLI_EXIT_OK;
    if (a->write_base && (rc = cli_val_write_baseline(a->write_base, a->files, a->nfiles, v, nv)) != CLI_EXIT_OK)
        return rc;
    if (a->fmt == CLI_FMT_JSON)
        rc = cli_val_print_json(s, ms, v, nv);
    else if (a->fmt == CLI_FMT_CSV)
        rc = cli_val_print_csv(s);
    else
        rc = cli_val_print_text(s, ms, v, nv, a->summary_only);
    if (rc == CLI_EXIT_OK && a->baseline) {
        fprintf(stderr, "ridge: baseline %s: %s\n", a->baseline,
                regressions ? "FAILED (see above)" : "every group within its baseline");
        if (regressions)
            rc = CLI_EXIT_CHECK;
    }
    if (rc == CLI_EXIT_OK && rendered) /* stdout holds only the report in json and csv */
        fprintf(a->fmt == CLI_FMT_TEXT ? stdout : stderr, "wrote %s (data %s, script %s)\n", a->paths.chart,
                a->paths.dat, a->paths.gp);
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    val_args a;
    int rc, nv = 0, rendered = 0, regressions = 0;
    const ridge_gpu *file_gpu;
    ridge_val_cases s;
    ridge_meas_set ms;
    ridge_val_summary *v = NULL;
    cli_progress prog;
    memset(&a, 0, sizeof a);
    a.tol = 2.0;
    a.fmt = CLI_FMT_TEXT;
    if ((rc = parse_args(argc, argv, &a)) != CLI_EXIT_OK || a.help)
        return rc;
    file_gpu = a.gpu_file ? &a.fileg : NULL;
    memset(&s, 0, sizeof s);
    memset(&ms, 0, sizeof ms);
    /* The predictions are made as the measurements are collected: the progress line is theirs. */
    cli_progress_begin(&prog, "validate");
    rc = cli_meas_collect(a.files, a.nfiles, a.gpu, file_gpu, &ms, &prog);
    cli_progress_end(&prog);
    if (rc != CLI_EXIT_OK)
        goto done;
    ridge_meas_filter(&ms, a.min_time, a.only);
    if (ridge_val_cases_of(&ms, file_gpu, &s) || ridge_val_summarize(&s, &v, &nv)) {
        cli_error("out of memory");
        rc = CLI_EXIT_FAILURE;
        goto done;
    }
    if (a.gpu_file && s.file_used == 0)
        fprintf(stderr, "ridge: note: --gpu-file %s (id %s) matched no measurement\n", a.gpu_file, a.fileg.id);
    /* The chart first: a chart that cannot be written leaves stdout empty. */
    if (a.chart &&
        (rc = write_chart(&s, strcmp(a.chart, "ratio") == 0 ? RIDGE_VALIDATION_RATIO : RIDGE_VALIDATION_SCATTER,
                          &a.paths, &rendered)) != CLI_EXIT_OK)
        goto done;
    /* The baseline is read (and checked for form) before anything is printed. */
    if (a.baseline && (rc = check_baseline(a.baseline, v, nv, a.tol, &regressions)) != CLI_EXIT_OK &&
        rc != CLI_EXIT_CHECK)
        goto done;
    rc = emit(&a, &s, &ms, v, nv, regressions, rendered);
done:
    free(v);
    ridge_val_cases_free(&s);
    ridge_meas_set_free(&ms);
    return rc;
}
