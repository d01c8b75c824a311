/* ridge calibrate: fit a GPU's efficiency parameters to measurements and write a calibrated GPU
 * file; report the error on the measurements not used for fitting (docs/cli.md,
 * docs/validation.md "Calibration").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "progress.h"
#include "ridge/calibrate.h"
#include "ridge/plot.h"
#include "ridge/version.h"

#define CMD "calibrate"
#define CAL_MAX_RULES 64

static const char help[] =
    "usage: ridge calibrate --gpu ID FILE... -o CALIBRATED.json [--train GLOB]... [--fit NAME]...\n"
    "                       [--format text|json] [--min-time S]\n"
    "\n"
    "Fit the efficiency parameters of catalogue GPU ID (achievable share of each peak, DRAM\n"
    "fraction and latency, L2 bandwidth, kernel floor, launch costs) to the measurements of\n"
    "ridge measurement files (docs/validation.md) taken on that GPU, with GSL nonlinear least\n"
    "squares (Levenberg-Marquardt on log(predicted / measured)), on a declared training subset.\n"
    "Writes the GPU's file with the fitted `efficiency` to CALIBRATED.json (use it with\n"
    "--gpu-file) and reports the error before and after on the training cases and, separately,\n"
    "on every other measurement (held out).\n"
    "\n"
    "Options:\n"
    "  --gpu ID             the catalogue GPU (measurements of other GPUs are ignored)\n"
    "  -o, --output PATH    the calibrated GPU file (written atomically)\n"
    "  --train GLOB         measurement ids to fit on (fnmatch pattern; repeatable); replaces the\n"
    "                       default split: bandwidth/copy/*, bandwidth/triad/*, gemm/*/8192,\n"
    "                       launch/empty_async_issue, launch/graph_replay/*, small/scale/*\n"
    "  --fit NAME           fit only this parameter (repeatable; names as in the report, e.g.\n"
    "                       framework_op_s, fraction_by_peak.bf16); the others keep their values\n"
    "  --format text|json   the report (default text)\n"
    "  --min-time S         leave out measurements timed below S seconds (training and held out)\n"
    "  -h, --help           this help\n";

/* The GPU's own file with `efficiency` replaced by the fitted parameters; its source names the
 * held-out MAPE after the fit (test_mape over ntest cases), or says there was no held-out case. */
static int write_calibrated(const char *path, const ridge_gpu *g, const ridge_cal_result *r, char **files, int nfiles,
                            int ntest, double test_mape)
{
    size_t len = 0;
    const char *json = ridge_catalog_json(g->id, &len);
    cJSON *root = json ? cJSON_ParseWithLength(json, len) : NULL, *eff, *fb = NULL;
    ridge_err err = {{0}};
    ridge_gpu check;
    char src[240], date[32], *text;
    time_t now = time(NULL);
    struct tm tmv;
    int k;
    if (!root) {
        cli_error("%s: the catalogue entry could not be read", g->id);
        return CLI_EXIT_FAILURE;
    }
    /* The file's own efficiency entries stay; fitted ones are replaced or added. */
    eff = cJSON_GetObjectItemCaseSensitive(root, "efficiency");
    if (!cJSON_IsObject(eff)) {
        cJSON_DeleteItemFromObjectCaseSensitive(root, "efficiency");
        eff = cJSON_AddObjectToObject(root, "efficiency");
    }
    fb = cJSON_GetObjectItemCaseSensitive(eff, "fraction_by_peak");
    for (int j = 0; j < r->nparams; j++) {
        const ridge_cal_param *p = &r->p[j];
        cJSON *obj = eff;
        const char *key = p->name;
        if (!p->fitted)
            continue;
        if (p->field < 0) {
            if (!cJSON_IsObject(fb))
                fb = cJSON_AddObjectToObject(eff, "fraction_by_peak");
            obj = fb;
            key = ridge_peak_key((ridge_peak)p->peak);
        }
        cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
        cJSON_AddNumberToObject(obj, key, p->value);
    }
    cJSON_DeleteItemFromObjectCaseSensitive(eff, "source");
    gmtime_r(&now, &tmv);
    strftime(date, sizeof date, "%Y-%m-%d", &tmv);
    /* "ridge V calibrate, DATE: N training cases from FILE...; held-out MAPE X %": the files that fit
     * the source's 239 bytes (a GPU file's limit), then "and K more", the MAPE always. */
    {
        char tail[64], more[32];
        size_t room;
        if (ntest > 0)
            snprintf(tail, sizeof tail, "; held-out MAPE %.1f %%", 100.0 * test_mape);
        else
            snprintf(tail, sizeof tail, "; no held-out case");
        k = snprintf(src, sizeof src, "ridge %s calibrate, %s: %d training cases from", ridge_version(), date,
                     r->ntrain);
        room = sizeof src - strlen(tail) - sizeof more;
        for (int i = 0; i < nfiles && k > 0; i++) {
            if ((size_t)k + 1 + strlen(files[i]) >= room) {
                snprintf(more, sizeof more, " and %d more file%s", nfiles - i, nfiles - i == 1 ? "" : "s");
                k += snprintf(src + k, sizeof src - (size_t)k, "%s", more);
                break;
            }
            k += snprintf(src + k, sizeof src - (size_t)k, " %s", files[i]);
        }
        if (k > 0 && (size_t)k < sizeof src)
            snprintf(src + k, sizeof src - (size_t)k, "%s", tail);
    }
    cJSON_AddStringToObject(eff, "source", src);
    /* The file must load as a GPU: check it before it replaces anything. */
    text = cJSON_PrintUnformatted(root);
    if (!text)
        snprintf(err.msg, sizeof err.msg, "out of memory");
    if (!text || ridge_gpu_parse(text, strlen(text), path, &check, &err) != RIDGE_OK) {
        free(text);
        cJSON_Delete(root);
        cli_error("%s", err.msg);
        return CLI_EXIT_FAILURE;
    }
    free(text);
    return cli_write_json_file(path, root);
}

static const char *fmt_value(const ridge_cal_param *p, double v, char *buf, size_t cap)
{
    if (p->field == 3)
        snprintf(buf, cap, "%.4g GB/s", v / 1e9);
    else if (p->field >= 4)
        snprintf(buf, cap, "%.4g us", v * 1e6);
    else
        snprintf(buf, cap, "%.4f", v);
    return buf;
}

static void print_text(const ridge_gpu *g, const ridge_cal_result *r, const ridge_cal_group *tr, int ntr,
                       const ridge_cal_group *te, int nte, const char *out)
{
    cli_table t;
    char a[48], b[48], c[16];
    printf("calibration of %s: %d training cases, %d held out; solver: %d iterations, %s\n", g->id, r->ntrain,
           r->ntest, r->iterations, r->stop ? r->stop : "-");
    printf("training rms of log(predicted/measured): %.4f before, %.4f after\n\n", r->rms_log_before,
           r->rms_log_after);
    if (cli_table_init(&t, 5))
        return;
    {
        const char *h[] = {"parameter", "default", "fitted", "training cases", "note"};
        cli_table_add(&t, h);
    }
    t.right[1] = t.right[2] = t.right[3] = 1;
    for (int j = 0; j < r->nparams; j++) {
        const ridge_cal_param *p = &r->p[j];
        const char *row[5];
        snprintf(c, sizeof c, "%d", p->cases);
        row[0] = p->name;
        row[1] = fmt_value(p, p->initial, a, sizeof a);
        row[2] = p->fitted ? fmt_value(p, p->value, b, sizeof b) : "-";
        row[3] = c;
        row[4] = p->excluded    ? "not fitted: not named by --fit"
                 : p->flat      ? "not identified: no training case depends on it near the fit"
                 : !p->fitted   ? "not fitted: no training case depends on it"
                 : p->at_bound  ? "at the search bound"
                                : "";
        cli_table_add(&t, row);
    }
    cli_table_print_text(&t, stdout);
    cli_table_free(&t);
    for (int set = 0; set < 2; set++) {
        const ridge_cal_group *gr = set ? te : tr;
        int ng = set ? nte : ntr;
        printf("\n%s cases: mean absolute percentage error\n", set ? "held-out" : "training");
        if (cli_table_init(&t, 4))
            return;
        {
            const char *h[] = {"group", "cases", "MAPE before [%]", "MAPE after [%]"};
            cli_table_add(&t, h);
        }
        t.right[1] = t.right[2] = t.right[3] = 1;
        for (int k = 0; k < ng; k++) {
            char n[16], x[32], y[32];
            const char *row[4];
            if (gr[k].n == 0)
                continue;
            snprintf(n, sizeof n, "%d", gr[k].n);
            snprintf(x, sizeof x, "%.2f", 100.0 * gr[k].before / gr[k].n);
            snprintf(y, sizeof y, "%.2f", 100.0 * gr[k].after / gr[k].n);
            row[0] = gr[k].name, row[1] = n, row[2] = x, row[3] = y;
            cli_table_add(&t, row);
        }
        if (t.nrows > 1)
            cli_table_print_text(&t, stdout);
        else
            printf("(none)\n");
        cli_table_free(&t);
    }
    printf("\nwrote %s\n", out);
}

static int print_json(const ridge_gpu *g, const ridge_cal_result *r, const ridge_cal_group *tr, int ntr,
                      const ridge_cal_group *te, int nte, const char *out)
{
    cJSON *root = cJSON_CreateObject(), *ps, *es;
    if (!root)
        return cli_print_json(NULL);
    cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
    cJSON_AddStringToObject(root, "gpu", g->id);
    cJSON_AddStringToObject(root, "output", out);
    cJSON_AddNumberToObject(root, "training_cases", r->ntrain);
    cJSON_AddNumberToObject(root, "held_out_cases", r->ntest);
    cJSON_AddNumberToObject(root, "iterations", r->iterations);
    cJSON_AddStringToObject(root, "solver_stop", r->stop ? r->stop : "");
    cJSON_AddNumberToObject(root, "training_rms_log_before", r->rms_log_before);
    cJSON_AddNumberToObject(root, "training_rms_log_after", r->rms_log_after);
    ps = cJSON_AddArrayToObject(root, "parameters");
    for (int j = 0; j < r->nparams; j++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", r->p[j].name);
        cJSON_AddNumberToObject(o, "default", r->p[j].initial);
        cJSON_AddNumberToObject(o, "value", r->p[j].value);
        cJSON_AddBoolToObject(o, "fitted", r->p[j].fitted);
        cJSON_AddNumberToObject(o, "training_cases", r->p[j].cases);
        cJSON_AddBoolToObject(o, "at_bound", r->p[j].at_bound);
        cJSON_AddBoolToObject(o, "identified", !r->p[j].flat);
        cJSON_AddItemToArray(ps, o);
    }
    es = cJSON_AddArrayToObject(root, "errors");
    for (int set = 0; set < 2; set++)
        for (int k = 0; k < (set ? nte : ntr); k++) {
            const ridge_cal_group *x = set ? &te[k] : &tr[k];
            cJSON *o;
            if (x->n == 0)
                continue;
            o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "set", set ? "held-out" : "training");
            cJSON_AddStringToObject(o, "group", x->name);
            cJSON_AddNumberToObject(o, "cases", x->n);
            cJSON_AddNumberToObject(o, "mape_before_percent", 100.0 * x->before / x->n);
            cJSON_AddNumberToObject(o, "mape_after_percent", 100.0 * x->after / x->n);
            cJSON_AddItemToArray(es, o);
        }
    return cli_print_json(root);
}

int cmd_calibrate(int argc, char **argv)
{
    static const struct option longopts[] = {{"gpu", required_argument, 0, 'g'},
                                             {"output", required_argument, 0, 'o'},
                                             {"train", required_argument, 0, 't'},
                                             {"fit", required_argument, 0, 'F'},
                                             {"min-time", required_argument, 0, 'm'},
                                             CLI_OPTION_FORMAT,
                                             CLI_OPTION_HELP,
                                             CLI_OPTION_END};
    ridge_cal_rule rules[CAL_MAX_RULES];
    const char *only[RIDGE_CAL_MAX_PARAMS];
    int nonly = 0;
    int nrules = 0, c, i, rc = CLI_EXIT_OK, *train = NULL, ntr = 0, nte = 0;
    const char *gpu = NULL, *out = NULL, *why;
    double *before = NULL, *after = NULL, min_time = 0;
    cli_format fmt = CLI_FMT_TEXT;
    ridge_gpu g0, g;
    ridge_meas_set ms;
    ridge_cal_result res;
    ridge_cal_group tr[32], te[32];
    cli_progress prog;
    memset(&ms, 0, sizeof ms);
    cli_opts co = {CMD, help, NULL, NULL, 0, -1, NULL};
    while ((c = cli_getopt(&co, argc, argv, ":ho:", longopts)) != -1) {
        switch (c) {
        case 'g':
            if (cli_take_once(CMD, "--gpu", &gpu, optarg, "calibrate fits one GPU"))
                return CLI_EXIT_USAGE;
            break;
        case 'o': out = optarg; break;
        case 't':
            if (nrules == CAL_MAX_RULES)
                return cli_usage_error(CMD, "at most %d --train patterns", CAL_MAX_RULES);
            rules[nrules].glob = optarg;
            rules[nrules++].train = 1;
            break;
        case 'F':
            if (nonly == RIDGE_CAL_MAX_PARAMS)
                return cli_usage_error(CMD, "at most %d --fit names", RIDGE_CAL_MAX_PARAMS);
            for (int k = 0; k < nonly; k++)
                if (strcmp(only[k], optarg) == 0)
                    return cli_usage_error(CMD, "--fit: '%s' is listed twice", optarg);
            only[nonly++] = optarg;
            break;
        case 'f':
            if (cli_parse_format_text_json(optarg, &fmt))
                return CLI_EXIT_USAGE;
            break;
        case 'm':
            if (cli_parse_double("--min-time", optarg, 0, 1e6, &min_time))
                return CLI_EXIT_USAGE;
            break;
        }
    }
    if (co.exit >= 0)
        return co.exit;
    if (!gpu)
        return cli_usage_error(CMD, "missing --gpu ID");
    if (!out)
        return cli_usage_error(CMD, "missing -o CALIBRATED.json");
    if (!*out)
        return cli_usage_error(CMD, "-o: empty path");
    if (optind >= argc)
        return cli_usage_error(CMD, "missing measurement file");
    if (argc - optind > RIDGE_MEAS_MAX_FILES)
        return cli_usage_error(CMD, "at most %d files", RIDGE_MEAS_MAX_FILES);
    rc = cli_refuse_output_over_input(CMD, "-o", out, (const char *const *)(argv + optind), argc - optind);
    if (rc != CLI_EXIT_OK)
        return rc;
    if ((rc = cli_load_gpu(gpu, NULL, &g0)) != CLI_EXIT_OK)
        return rc;
    if (g0.mig_of[0])
        return cli_usage_error(CMD, "--gpu: calibrate the whole GPU (%s), not a MIG slice", g0.mig_of);
    {
        ridge_cal_param cand[RIDGE_CAL_MAX_PARAMS];
        int nc = ridge_cal_candidates(&g0, cand);
        for (i = 0; i < nonly; i++) {
            int k;
            for (k = 0; k < nc && strcmp(cand[k].name, only[i]) != 0; k++)
                ;
            if (k == nc)
                return cli_usage_error(CMD, "--fit: '%s' is not a parameter of %s (see the report's names)", only[i],
                                       g0.id);
        }
    }
    /* One progress line: the measurements collected (and predicted), then the fit's iterations. */
    cli_progress_begin(&prog, "calibrate");
    rc = cli_meas_collect(argv + optind, argc - optind, NULL, NULL, &ms, &prog);
    if (rc != CLI_EXIT_OK) {
        cli_progress_end(&prog);
        goto done;
    }
    ridge_meas_filter(&ms, min_time, NULL);
    train = calloc((size_t)(ms.n ? ms.n : 1), sizeof *train);
    before = calloc((size_t)(ms.n ? ms.n : 1), sizeof *before);
    after = calloc((size_t)(ms.n ? ms.n : 1), sizeof *after);
    if (!train || !before || !after) {
        cli_progress_end(&prog);
        cli_error("out of memory");
        rc = CLI_EXIT_FAILURE;
        goto done;
    }
    if (nrules)
        ridge_cal_split(&ms, rules, nrules, train);
    else
        ridge_cal_split(&ms, ridge_cal_default_rules, ridge_cal_default_rule_count, train);
    for (i = 0; i < ms.n; i++) /* ridge_meas_collect predicted each on its catalogue entry: the defaults */
        before[i] = strcmp(ms.v[i].gpu, g0.id) == 0 ? ms.v[i].predicted : 0;
    g = g0;
    prog.what = "calibrate fit";
    why = ridge_cal_fit_progress(&g, &ms, train, only, nonly, &res, cli_progress_cb, &prog);
    cli_progress_end(&prog);
    if (why) {
        cli_error("%s: %s", gpu, cli_flag_words(why));
        rc = CLI_EXIT_USAGE;
        goto done;
    }
    ridge_cal_predict_all(&ms, &g, after);
    ntr = ridge_cal_group_errors(&ms, train, 1, before, after, g.id, tr, 32);
    nte = ridge_cal_group_errors(&ms, train, 0, before, after, g.id, te, 32);
    rc = write_calibrated(out, &g, &res, argv + optind, argc - optind, te[0].n, te[0].n ? te[0].after / te[0].n : 0);
    if (rc != CLI_EXIT_OK)
        goto done;
    if (fmt == CLI_FMT_JSON)
        rc = print_json(&g, &res, tr, ntr, te, nte, out);
    else
        print_text(&g, &res, tr, ntr, te, nte, out);
done:
    free(train);
    free(before);
    free(after);
    ridge_meas_set_free(&ms);
    return rc;
}
