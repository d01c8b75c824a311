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

#include "cli.h"
#include "ridge/measure.h"
#include "ridge/plot.h"
#include "ridge/val_chart.h"
#include "ridge/validate.h"
#include "ridge/version.h"

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
    "published figures, is fine); measurements that cannot be mapped are counted by reason.\n"
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
    "  --tolerance-points N the tolerance of --baseline in percentage points (default 2)\n"
    "  --min-time S         leave out cases measured in seconds below S (counted as skipped)\n"
    "  --summary            text: the summaries and the 10 worst cases, not every case\n"
    "  --only kernels|models  compare only kernel (config.op) or only model measurements\n"
    "  -h, --help           this help\n";

static void fmt_pct(char *buf, size_t cap, double frac, int sign)
{
    snprintf(buf, cap, sign ? "%+.2f" : "%.2f", 100.0 * frac);
}

static int print_text(const ridge_val_cases *s, const ridge_meas_set *ms, const ridge_val_summary *v, int nv, int summary_only)
{
    cli_table t;
    int i, worst[RIDGE_VAL_WORST], nworst;
    if (cli_table_init(&t, 8))
        return CLI_EXIT_FAILURE;
    {
        const char *h[] = {"id", "group", "gpu", "case", "measured", "predicted", "unit", "error [%]"};
        cli_table_add(&t, h);
    }
    t.right[4] = t.right[5] = t.right[7] = 1;
    for (i = 0; i < s->n; i++) {
        const ridge_val_case *c = &s->v[i];
        char a[32], b[32], e[32];
        const char *row[8];
        cli_num(c->measured, a, sizeof a);
        cli_num(c->predicted, b, sizeof b);
        fmt_pct(e, sizeof e, c->error, 1);
        row[0] = c->id, row[1] = c->group, row[2] = c->gpu, row[3] = c->desc;
        row[4] = a, row[5] = b, row[6] = c->unit, row[7] = e;
        if (cli_table_add(&t, row)) {
            cli_table_free(&t);
            return CLI_EXIT_FAILURE;
        }
    }
    if (s->n && !summary_only)
        cli_table_print_text(&t, stdout);
    cli_table_free(&t);
    if (cli_table_init(&t, 7))
        return CLI_EXIT_FAILURE;
    {
        const char *h[] = {"by", "name", "cases", "MAPE [%]", "median APE [%]", "worst [%]", "worst id"};
        cli_table_add(&t, h);
    }
    t.right[2] = t.right[3] = t.right[4] = t.right[5] = 1;
    for (i = 0; i < nv; i++) {
        char n[16], a[32], b[32], w[32];
        const char *row[7];
        snprintf(n, sizeof n, "%d", v[i].n);
        fmt_pct(a, sizeof a, v[i].mape, 0);
        fmt_pct(b, sizeof b, v[i].median, 0);
        fmt_pct(w, sizeof w, v[i].worst_case->error, 1);
        row[0] = v[i].scope, row[1] = v[i].name, row[2] = n, row[3] = a, row[4] = b, row[5] = w;
        row[6] = v[i].worst_case->id;
        if (cli_table_add(&t, row)) {
            cli_table_free(&t);
            return CLI_EXIT_FAILURE;
        }
    }
    if (nv) {
        if (!summary_only)
            printf("\n");
        cli_table_print_text(&t, stdout);
    }
    cli_table_free(&t);
    ridge_val_worst(s, worst, &nworst);
    if (nworst) {
        if (cli_table_init(&t, 6))
            return CLI_EXIT_FAILURE;
        {
            const char *h[] = {"worst", "id", "gpu", "case", "error [%]", "family"};
            cli_table_add(&t, h);
        }
        t.right[0] = t.right[4] = 1;
        for (i = 0; i < nworst; i++) {
            const ridge_val_case *c = &s->v[worst[i]];
            char r[8], e[32];
            const char *row[6];
            snprintf(r, sizeof r, "%d", i + 1);
            fmt_pct(e, sizeof e, c->error, 1);
            row[0] = r, row[1] = c->id, row[2] = c->gpu, row[3] = c->desc, row[4] = e;
            row[5] = strchr(c->family, ' ') ? strchr(c->family, ' ') + 1 : c->family;
            if (cli_table_add(&t, row)) {
                cli_table_free(&t);
                return CLI_EXIT_FAILURE;
            }
        }
        printf("\n");
        cli_table_print_text(&t, stdout);
        cli_table_free(&t);
    }
    printf("%s%d cases compared", s->n || nv ? "\n" : "", s->n);
    for (i = 0; i < ms->nreasons; i++)
        printf("; %d skipped: %s", ms->reason_count[i], cli_flag_words(ms->reason[i]));
    printf("\n");
    return CLI_EXIT_OK;
}

static int print_json(const ridge_val_cases *s, const ridge_meas_set *ms, const ridge_val_summary *v, int nv)
{
    cJSON *root = cJSON_CreateObject(), *cases, *sums, *skips, *wa;
    int i, worst[RIDGE_VAL_WORST], nworst;
    if (!root)
        return cli_print_json(NULL);
    cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
    cases = cJSON_AddArrayToObject(root, "cases");
    sums = cJSON_AddArrayToObject(root, "summaries");
    skips = cJSON_AddArrayToObject(root, "skipped");
    wa = cJSON_AddArrayToObject(root, "worst_ids");
    ridge_val_worst(s, worst, &nworst);
    for (i = 0; i < nworst; i++)
        cJSON_AddItemToArray(wa, cJSON_CreateString(s->v[worst[i]].id));
    for (i = 0; i < s->n; i++) {
        const ridge_val_case *c = &s->v[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", c->id);
        cJSON_AddStringToObject(o, "group", c->group);
        cJSON_AddStringToObject(o, "gpu", c->gpu);
        cJSON_AddStringToObject(o, "workload", c->workload);
        cJSON_AddStringToObject(o, "case", c->desc);
        cJSON_AddStringToObject(o, "kind", c->kind);
        cJSON_AddStringToObject(o, "family", strchr(c->family, ' ') ? strchr(c->family, ' ') + 1 : c->family);
        cJSON_AddStringToObject(o, "unit", c->unit);
        cJSON_AddNumberToObject(o, "measured", c->measured);
        cJSON_AddNumberToObject(o, "predicted", c->predicted);
        cJSON_AddNumberToObject(o, "error_percent", 100.0 * c->error);
        cJSON_AddItemToArray(cases, o);
    }
    for (i = 0; i < nv; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "by", v[i].scope);
        cJSON_AddStringToObject(o, "name", v[i].name);
        cJSON_AddNumberToObject(o, "cases", v[i].n);
        cJSON_AddNumberToObject(o, "mape_percent", 100.0 * v[i].mape);
        cJSON_AddNumberToObject(o, "median_ape_percent", 100.0 * v[i].median);
        cJSON_AddNumberToObject(o, "worst_error_percent", 100.0 * v[i].worst_case->error);
        cJSON_AddStringToObject(o, "worst_id", v[i].worst_case->id);
        cJSON_AddItemToArray(sums, o);
    }
    for (i = 0; i < ms->nreasons; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "reason", cli_flag_words(ms->reason[i]));
        cJSON_AddNumberToObject(o, "count", ms->reason_count[i]);
        cJSON_AddItemToArray(skips, o);
    }
    return cli_print_json(root);
}

static void print_csv(const ridge_val_cases *s)
{
    int i;
    printf("id,group,gpu,workload,kind,measured,predicted,unit,error_percent\n");
    for (i = 0; i < s->n; i++) {
        const ridge_val_case *c = &s->v[i];
        printf("%s,%s,%s,%s,%s,%.9g,%.9g,%s,%.4f\n", c->id, c->group, c->gpu, c->workload, c->kind, c->measured,
               c->predicted, c->unit, 100.0 * c->error);
    }
}

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
    if (!ridge_gnuplot_find(NULL, 0)) {
        fprintf(stderr, "ridge: gnuplot not found; wrote %s and %s; render with: gnuplot %s\n", paths->dat,
                paths->gp, paths->gp);
        return CLI_EXIT_OK;
    }
    st = ridge_gnuplot_run(paths, &err);
    if (st != RIDGE_OK) {
        cli_error("%s (the .dat and .gp are kept)", err.msg);
        return cli_exit_code(st);
    }
    *rendered = 1;
    return CLI_EXIT_OK;
}

/* ---- the error baseline: --write-baseline FILE, --baseline FILE ---- */

static int write_baseline(const char *path, char **files, int nfiles, const ridge_val_summary *v, int nv)
{
    cJSON *root = cJSON_CreateObject(), *fa, *sa;
    int i;
    if (!root)
        return CLI_EXIT_FAILURE;
    cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
    cJSON_AddStringToObject(root, "kind", RIDGE_VAL_BASELINE_KIND);
    cJSON_AddStringToObject(root, "ridge_version", ridge_version());
    fa = cJSON_AddArrayToObject(root, "files");
    for (i = 0; i < nfiles; i++)
        cJSON_AddItemToArray(fa, cJSON_CreateString(files[i]));
    sa = cJSON_AddArrayToObject(root, "summaries");
    for (i = 0; i < nv; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "by", v[i].scope);
        cJSON_AddStringToObject(o, "name", v[i].name);
        cJSON_AddNumberToObject(o, "cases", v[i].n);
        cJSON_AddNumberToObject(o, "mape_percent", ridge_val_baseline_mape_percent(&v[i]));
        cJSON_AddItemToArray(sa, o);
    }
    return cli_write_json_file(path, root);
}

/* Compare the summaries with a baseline (ridge_val_baseline_check); each regression goes to stderr,
 * one line each. Returns an exit code (CLI_EXIT_CHECK when a group regressed). */
static int check_baseline(const char *path, const ridge_val_summary *v, int nv, double tol, int *regressions)
{
    ridge_val_regressions r = {0};
    ridge_err err = {{0}};
    int st = ridge_val_baseline_check(path, v, nv, tol, &r, &err);
    for (int i = 0; i < r.n; i++) {
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

int cmd_validate(int argc, char **argv)
{
    static const struct option longopts[] = {{"gpu", required_argument, 0, 'g'},
                                             {"format", required_argument, 0, 'f'},
                                             {"chart", required_argument, 0, 'c'},
                                             {"output", required_argument, 0, 'o'},
                                             {"gpu-file", required_argument, 0, 'G'},
                                             {"baseline", required_argument, 0, 'b'},
                                             {"write-baseline", required_argument, 0, 'w'},
                                             {"tolerance-points", required_argument, 0, 't'},
                                             {"min-time", required_argument, 0, 'm'},
                                             {"summary", no_argument, 0, 's'},
                                             {"only", required_argument, 0, 'k'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    int c, rc = CLI_EXIT_OK, nv = 0, rendered = 0, regressions = 0, summary_only = 0;
    double min_time = 0;
    const char *only = NULL;
    const char *gpu = NULL, *chart = NULL, *out = NULL, *baseline = NULL, *write_base = NULL, *gpu_file = NULL;
    ridge_gpu fileg;
    double tol = 2.0;
    ridge_plot_paths paths;
    cli_format fmt = CLI_FMT_TEXT;
    ridge_val_cases s;
    ridge_meas_set ms;
    ridge_val_summary *v = NULL;
    memset(&s, 0, sizeof s);
    memset(&ms, 0, sizeof ms);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'g': gpu = optarg; break;
        case 'f':
            if (cli_parse_format(optarg, &fmt))
                return CLI_EXIT_USAGE;
            break;
        case 'c': chart = optarg; break;
        case 'o': out = optarg; break;
        case 'b': baseline = optarg; break;
        case 'G': gpu_file = optarg; break;
        case 'w': write_base = optarg; break;
        case 't':
            if (cli_parse_double("--tolerance-points", optarg, 0, 100, &tol))
                return CLI_EXIT_USAGE;
            break;
        case 'm':
            if (cli_parse_double("--min-time", optarg, 0, 1e6, &min_time))
                return CLI_EXIT_USAGE;
            break;
        case 's': summary_only = 1; break;
        case 'k':
            if (strcmp(optarg, "kernels") != 0 && strcmp(optarg, "models") != 0)
                return cli_usage_error(CMD, "--only: unknown '%s' (kernels, models)", optarg);
            only = optarg;
            break;
        case 'h': fputs(help, stdout); return CLI_EXIT_OK;
        case ':':
        default: return cli_getopt_error(CMD, c, argv);
        }
    }
    if (optind >= argc)
        return cli_usage_error(CMD, "missing measurement file");
    if (argc - optind > RIDGE_MEAS_MAX_FILES)
        return cli_usage_error(CMD, "at most %d files", RIDGE_MEAS_MAX_FILES);
    if (chart && strcmp(chart, "scatter") != 0 && strcmp(chart, "ratio") != 0)
        return cli_usage_error(CMD, "--chart: unknown chart '%s' (scatter, ratio)", chart);
    if (chart && !out)
        return cli_usage_error(CMD, "--chart needs -o CHART.png|CHART.svg");
    if (out && !chart)
        return cli_usage_error(CMD, "-o needs --chart scatter|ratio");
    if (out) {
        ridge_err perr = {{0}};
        if (ridge_plot_paths_from_chart(out, &paths, &perr) != RIDGE_OK)
            return cli_usage_error(CMD, "-o: %s", perr.msg);
    }
    if (gpu) {
        ridge_gpu g;
        if ((rc = cli_load_gpu(gpu, NULL, &g)) != CLI_EXIT_OK)
            return rc;
    }
    if (baseline && write_base)
        return cli_usage_error(CMD, "--baseline and --write-baseline are exclusive");
    if (gpu && gpu_file)
        return cli_usage_error(CMD, "--gpu and --gpu-file are exclusive");
    if (gpu_file && (rc = cli_load_gpu(NULL, gpu_file, &fileg)) != CLI_EXIT_OK)
        return rc;
    if ((rc = cli_meas_collect(argv + optind, argc - optind, gpu, gpu_file ? &fileg : NULL, &ms)) != CLI_EXIT_OK)
        goto done;
    ridge_meas_filter(&ms, min_time, only);
    if (ridge_val_cases_of(&ms, gpu_file ? &fileg : NULL, &s) || ridge_val_summarize(&s, &v, &nv)) {
        cli_error("out of memory");
        rc = CLI_EXIT_FAILURE;
        goto done;
    }
    if (gpu_file && s.file_used == 0)
        fprintf(stderr, "ridge: note: --gpu-file %s (id %s) matched no measurement\n", gpu_file, fileg.id);
    /* The chart first: a chart that cannot be written leaves stdout empty. */
    if (chart &&
        (rc = write_chart(&s, strcmp(chart, "ratio") == 0 ? RIDGE_VALIDATION_RATIO : RIDGE_VALIDATION_SCATTER,
                          &paths, &rendered)) != CLI_EXIT_OK)
        goto done;
    /* The baseline is read (and checked for form) before anything is printed. */
    if (baseline && (rc = check_baseline(baseline, v, nv, tol, &regressions)) != CLI_EXIT_OK &&
        rc != CLI_EXIT_CHECK)
        goto done;
    if (fmt == CLI_FMT_JSON)
        rc = print_json(&s, &ms, v, nv);
    else if (fmt == CLI_FMT_CSV)
        print_csv(&s);
    else
        rc = print_text(&s, &ms, v, nv, summary_only);
    if (rc == CLI_EXIT_OK && write_base)
        rc = write_baseline(write_base, argv + optind, argc - optind, v, nv);
    if (rc == CLI_EXIT_OK && baseline) {
        fprintf(stderr, "ridge: baseline %s: %s\n", baseline,
                regressions ? "FAILED (see above)" : "every group within its baseline");
        if (regressions)
            rc = CLI_EXIT_CHECK;
    }
    if (rc == CLI_EXIT_OK && rendered) /* stdout holds only the report in json and csv */
        fprintf(fmt == CLI_FMT_TEXT ? stdout : stderr, "wrote %s (data %s, script %s)\n", paths.chart, paths.dat,
                paths.gp);
done:
    free(v);
    ridge_val_cases_free(&s);
    ridge_meas_set_free(&ms);
    return rc;
}
