/* ridge compare ID ID...: GPUs side by side, one row per figure, ratio to the first column and
 * the winner marked.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "figure_fmt.h"
#include "model_run.h"
#include "predict_emit.h"
#include "ridge/figures.h"

#define MAX_GPUS 16

static const char help[] =
    "usage: ridge compare ID ID [ID...] [--gpu-file PATH]... [--format text|json|csv]\n"
    "\n"
    "Puts GPUs side by side: memory size and type, bandwidth, cores and tensor cores, dense peak per\n"
    "precision, ridge points, power and efficiency, interconnect, price, MIG. Each value after the\n"
    "first column shows its ratio to the first GPU; '*' marks the winner of each row (higher is\n"
    "better, except board power and price). At most 16 GPUs; ids may name MIG slices\n"
    "(a100-sxm4-80gb:1g.10gb). --gpu-file adds a GPU from a JSON file (docs/gpu-schema.md).\n"
    "\n"
    "With --workload ID|FILE (a model: see 'ridge workloads') and run options, compares the\n"
    "predictions instead: step time, throughput, speedup over the first GPU, MFU, throughput per\n"
    "watt (board power) and per dollar (price per GPU-hour, where known), memory and fit.\n"
    "  --runtime eager|graph   host launch cost per kernel (default eager)\n"
    "\n" CLI_RUN_HELP;

/* Index of the winner among n values, -1 for none or a tie for first place. */
static int winner(const cli_figure_val *v, int n, ridge_better better)
{
    int best = -1, present = 0, ties = 0;
    if (better == RIDGE_BETTER_NONE)
        return -1;
    for (int i = 0; i < n; i++) {
        if (v[i].kind != RIDGE_FIGURE_NUMBER)
            continue;
        present++;
        if (best < 0) {
            best = i;
            continue;
        }
        double a = v[i].num, b = v[best].num;
        if (a == b)
            ties++;
        else if ((better == RIDGE_BETTER_HIGHER) ? a > b : a < b) {
            best = i;
            ties = 0;
        }
    }
    if (best < 0 || ties > 0)
        return -1;
    /* One GPU having a capability the others lack wins it; a lone price or power figure does not. */
    if (present == 1 && (n == 1 || better == RIDGE_BETTER_LOWER))
        return -1;
    return best;
}

/* Side-by-side predictions of one model run on several GPUs (without --precision, in the best
 * precision all of them have, so that the rows compare like with like). */
static int compare_workload(const ridge_gpu *g, int n, const char *workload, const ridge_run_config *given,
                            int precision_given, ridge_runtime rt, cli_format fmt)
{
    ridge_model *m = NULL;
    ridge_err err;
    cli_model_prediction *p = calloc((size_t)n, sizeof *p);
    cli_table t;
    ridge_run_config rc_run = *given;
    const ridge_run_config *run = &rc_run;
    char note[96] = "";
    int rc = CLI_EXIT_OK;
    if (!p)
        return CLI_EXIT_FAILURE;
    if (!precision_given)
        cli_default_precision(&rc_run, g, n, note, sizeof note);
    rc = ridge_model_load(workload, &m, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s", err.msg);
        free(p);
        return cli_exit_code(rc);
    }
    rc = CLI_EXIT_OK;
    for (int i = 0; i < n && rc == CLI_EXIT_OK; i++)
        rc = cli_model_predict(&g[i], m, run, rt, &p[i]);
    if (rc != CLI_EXIT_OK)
        goto out;
    if (fmt == CLI_FMT_JSON) {
        cJSON *root = cJSON_CreateObject(), *arr;
        cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
        cJSON_AddStringToObject(root, "workload", ridge_model_name(m));
        cJSON_AddStringToObject(root, "mode", ridge_mode_name(run->mode));
        cJSON_AddNumberToObject(root, "batch", run->batch);
        cJSON_AddStringToObject(root, "precision", ridge_dtype_name(run->precision));
        cJSON_AddStringToObject(root, "runtime", ridge_runtime_name(rt));
        cli_run_json(root, run);
        cJSON_AddStringToObject(root, "throughput_unit", p[0].throughput_unit);
        arr = cJSON_AddArrayToObject(root, "gpus");
        for (int i = 0; i < n; i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "gpu", g[i].id);
            cJSON_AddNumberToObject(o, "time_s", p[i].time_s);
            cJSON_AddNumberToObject(o, "throughput", p[i].throughput);
            cJSON_AddNumberToObject(o, "speedup_over_first", p[0].time_s / p[i].time_s);
            cJSON_AddNumberToObject(o, "mfu", p[i].mfu);
            cJSON_AddNumberToObject(o, "throughput_per_w", p[i].throughput / g[i].tdp_w);
            if (g[i].price_usd_per_hour > 0)
                cJSON_AddNumberToObject(o, "throughput_per_usd_per_hour", p[i].throughput / g[i].price_usd_per_hour);
            else
                cJSON_AddNullToObject(o, "throughput_per_usd_per_hour");
            cJSON_AddNumberToObject(o, "memory_total_bytes", p[i].mem.total_bytes);
            cJSON_AddNumberToObject(o, "memory_capacity_bytes", p[i].capacity_bytes);
            cJSON_AddBoolToObject(o, "fits", p[i].fits);
            cJSON_AddNumberToObject(o, "max_batch", p[i].max_batch);
            cJSON_AddItemToArray(arr, o);
        }
        rc = cli_print_json(root);
        goto out;
    }
    if (cli_table_init(&t, 11)) {
        rc = CLI_EXIT_FAILURE;
        goto out;
    }
    {
        char unit[64], hdr_tp[80], hdr_w[80], hdr_usd[80];
        snprintf(unit, sizeof unit, "%s", p[0].throughput_unit);
        if (fmt == CLI_FMT_CSV) {
            const char *h[11] = {"gpu", "time_s", "throughput", "speedup_over_first", "mfu", "throughput_per_w",
                                 "throughput_per_usd_per_hour", "memory_total_bytes", "memory_capacity_bytes", "fits",
                                 "max_batch"};
            cli_table_add(&t, h);
        } else {
            snprintf(hdr_tp, sizeof hdr_tp, "throughput [%s]", unit);
            snprintf(hdr_w, sizeof hdr_w, "per watt [%.20s/W]", unit);
            snprintf(hdr_usd, sizeof hdr_usd, "per USD/h");
            const char *h[11] = {"gpu", "step [ms]", hdr_tp, "speedup", "MFU [%]", hdr_w, hdr_usd, "memory [GiB]",
                                 "capacity [GiB]", "fits", "max batch"};
            cli_table_add(&t, h);
            for (int k = 1; k < 11; k++)
                t.right[k] = 1;
        }
    }
    for (int i = 0; i < n; i++) {
        char b[10][48];
        double usd = g[i].price_usd_per_hour;
        if (fmt == CLI_FMT_CSV) {
            snprintf(b[0], 48, "%.9g", p[i].time_s);
            snprintf(b[1], 48, "%.9g", p[i].throughput);
            snprintf(b[2], 48, "%.6g", p[0].time_s / p[i].time_s);
            snprintf(b[3], 48, "%.6g", p[i].mfu);
            snprintf(b[4], 48, "%.6g", p[i].throughput / g[i].tdp_w);
            if (usd > 0)
                snprintf(b[5], 48, "%.6g", p[i].throughput / usd);
            else
                b[5][0] = '\0';
            snprintf(b[6], 48, "%.9g", p[i].mem.total_bytes);
            snprintf(b[7], 48, "%.9g", p[i].capacity_bytes);
            snprintf(b[9], 48, "%.0f", p[i].max_batch);
        } else {
            cli_num(p[i].time_s * 1e3, b[0], 48);
            cli_num(p[i].throughput, b[1], 48);
            snprintf(b[2], 48, "%.3gx", p[0].time_s / p[i].time_s);
            cli_num(p[i].mfu * 100, b[3], 48);
            cli_num(p[i].throughput / g[i].tdp_w, b[4], 48);
            if (usd > 0)
                cli_num(p[i].throughput / usd, b[5], 48);
            else
                snprintf(b[5], 48, "-");
            cli_num(p[i].mem.total_bytes / 1073741824.0, b[6], 48);
            cli_num(p[i].capacity_bytes / 1073741824.0, b[7], 48);
            cli_num(p[i].max_batch, b[9], 48);
        }
        const char *row[11] = {g[i].id, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                               fmt == CLI_FMT_CSV ? (p[i].fits ? "true" : "false") : (p[i].fits ? "yes" : "NO"), b[9]};
        cli_table_add(&t, row);
    }
    if (fmt == CLI_FMT_CSV) {
        cli_table_print_csv(&t, stdout);
    } else {
        char mname[CLI_NAME_TEXT_CAP], sum[256];
        printf("%s, %s, %s runtime\n\n", cli_text(ridge_model_name(m), mname, sizeof mname),
               cli_run_summary(run, note, sum, sizeof sum), ridge_runtime_name(rt));
        cli_table_print_text(&t, stdout);
        printf("\nSpeedup is over %s; per watt uses board power (TDP); per USD/h needs a catalogue price.\n", g[0].id);
    }
    cli_table_free(&t);
out:
    for (int i = 0; i < n; i++)
        cli_model_prediction_free(&p[i]);
    free(p);
    ridge_model_free(m);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {{"format", required_argument, 0, 'f'},
                                         {"gpu-file", required_argument, 0, 'g'},
                                         {"help", no_argument, 0, 'h'},
                                         {"workload", required_argument, 0, 'w'},
                                         {"runtime", required_argument, 0, 'r'},
                                         CLI_RUN_OPTIONS,
                                         {0, 0, 0, 0}};
    cli_format fmt = CLI_FMT_TEXT;
    const char *workload = NULL;
    ridge_run_config run;
    ridge_runtime rt = RIDGE_RUNTIME_EAGER;
    int run_flags = 0, precision_given = 0;
    const char *ids[MAX_GPUS], *files[MAX_GPUS];
    ridge_gpu *g = NULL;
    int n = 0, c, rc = CLI_EXIT_OK;
    cli_table t = {0};
    cJSON *root = NULL;
    ridge_run_config_init(&run);
    optind = 1;
    opterr = 0; /* one line of our own instead of getopt's */
    /* '-' first: keep ids and --gpu-file in command-line order. */
    while ((c = getopt_long(argc, argv, "-:h", opts, NULL)) != -1) {
        if (c >= CLI_RUN_OPT_BASE) {
            if (cli_run_option(c, optarg, NULL, &run) < 0)
                return CLI_EXIT_USAGE;
            run_flags++;
            precision_given |= c == CLI_RUN_OPT_PRECISION;
            continue;
        }
        switch (c) {
        case 'w': workload = optarg; break;
        case 'r':
            if (ridge_runtime_parse(optarg, &rt))
                return cli_usage_error("compare", "--runtime: '%s' is not eager or graph", optarg);
            break;
        case 1:
        case 'g':
            if (n == MAX_GPUS)
                return cli_usage_error("compare", "at most %d GPUs", MAX_GPUS);
            ids[n] = c == 1 ? optarg : NULL;
            files[n] = c == 'g' ? optarg : NULL;
            n++;
            break;
        case 'f':
            if (cli_parse_format(optarg, &fmt))
                return CLI_EXIT_USAGE;
            break;
        case 'h': fputs(help, stdout); return CLI_EXIT_OK;
        case ':':
        default: return cli_getopt_error("compare", c, argv);
        }
    }
    if (n < 2)
        return cli_usage_error("compare", "needs at least two GPUs");
    g = calloc((size_t)n, sizeof *g);
    if (!g)
        return CLI_EXIT_FAILURE;
    for (int i = 0; i < n; i++) {
        rc = cli_load_gpu(ids[i], files[i], &g[i]);
        if (rc)
            goto done;
    }
    if (workload) {
        rc = compare_workload(g, n, workload, &run, precision_given, rt, fmt);
        goto done;
    }
    if (run_flags) {
        rc = cli_usage_error("compare", "run options (--mode, --batch...) need --workload");
        goto done;
    }
    if (fmt == CLI_FMT_JSON) {
        cJSON *gl, *rows;
        root = cJSON_CreateObject();
        cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
        gl = cJSON_AddArrayToObject(root, "gpus");
        for (int i = 0; i < n; i++)
            cJSON_AddItemToArray(gl, cJSON_CreateString(g[i].id));
        rows = cJSON_AddArrayToObject(root, "rows");
        for (size_t f = 0; f < ridge_figure_count(); f++) {
            const ridge_figure_info *fi = ridge_figure(f);
            cli_figure_val v[MAX_GPUS];
            cJSON *row, *vals, *ratios;
            int any = 0, w;
            for (int i = 0; i < n; i++) {
                cli_figure_eval(&g[i], f, &v[i]);
                any |= v[i].kind != RIDGE_FIGURE_ABSENT;
            }
            if (!any)
                continue;
            w = winner(v, n, fi->better);
            row = cJSON_CreateObject();
            cJSON_AddStringToObject(row, "key", fi->key);
            cJSON_AddStringToObject(row, "group", fi->group);
            cJSON_AddStringToObject(row, "label", fi->label);
            cJSON_AddStringToObject(row, "better", fi->better == RIDGE_BETTER_HIGHER  ? "higher"
                                                   : fi->better == RIDGE_BETTER_LOWER ? "lower"
                                                                                      : "none");
            vals = cJSON_AddArrayToObject(row, "values");
            ratios = cJSON_AddArrayToObject(row, "ratio_to_first");
            for (int i = 0; i < n; i++) {
                cJSON_AddItemToArray(vals, cli_figure_json(&v[i]));
                if (v[i].kind == RIDGE_FIGURE_NUMBER && v[0].kind == RIDGE_FIGURE_NUMBER)
                    cJSON_AddItemToArray(ratios, cJSON_CreateNumber(v[i].num / v[0].num));
                else
                    cJSON_AddItemToArray(ratios, cJSON_CreateNull());
            }
            if (w >= 0)
                cJSON_AddStringToObject(row, "winner", g[w].id);
            else
                cJSON_AddNullToObject(row, "winner");
            cJSON_AddItemToArray(rows, row);
        }
        rc = cli_print_json(root);
        root = NULL;
        goto done;
    }
    {
        /* text: group | figure | unit | gpu1 | gpu2 (ratio) ... | winner
         * csv:  group,key,display_unit,better,<ids...>,ratio_<ids 2..>,winner (values in SI) */
        int ncols = fmt == CLI_FMT_CSV ? 4 + n + (n - 1) + 1 : 3 + n + 1;
        char **hdr = calloc((size_t)ncols, sizeof *hdr);
        char (*cells)[96] = calloc((size_t)ncols, sizeof *cells);
        if (!hdr || !cells || cli_table_init(&t, ncols)) {
            free(hdr);
            free(cells);
            rc = CLI_EXIT_FAILURE;
            goto done;
        }
        if (fmt == CLI_FMT_CSV) {
            snprintf(cells[0], 96, "group");
            snprintf(cells[1], 96, "key");
            snprintf(cells[2], 96, "display_unit");
            snprintf(cells[3], 96, "better");
            for (int i = 0; i < n; i++)
                snprintf(cells[4 + i], 96, "%s", g[i].id);
            for (int i = 1; i < n; i++)
                snprintf(cells[4 + n + i - 1], 96, "ratio_%s", g[i].id);
            snprintf(cells[ncols - 1], 96, "winner");
        } else {
            snprintf(cells[0], 96, "group");
            snprintf(cells[1], 96, "figure");
            snprintf(cells[2], 96, "unit");
            for (int i = 0; i < n; i++)
                snprintf(cells[3 + i], 96, "%s", g[i].id);
            snprintf(cells[ncols - 1], 96, "winner");
            for (int i = 0; i < n; i++)
                t.right[3 + i] = 1;
        }
        for (int k = 0; k < ncols; k++)
            hdr[k] = cells[k];
        cli_table_add(&t, (const char *const *)hdr);
        for (size_t f = 0; f < ridge_figure_count(); f++) {
            const ridge_figure_info *fi = ridge_figure(f);
            cli_figure_val v[MAX_GPUS];
            int any = 0, w;
            for (int i = 0; i < n; i++) {
                cli_figure_eval(&g[i], f, &v[i]);
                any |= v[i].kind != RIDGE_FIGURE_ABSENT;
            }
            if (!any)
                continue;
            w = winner(v, n, fi->better);
            if (fmt == CLI_FMT_CSV) {
                snprintf(cells[0], 96, "%s", fi->group);
                snprintf(cells[1], 96, "%s", fi->key);
                snprintf(cells[2], 96, "%s", fi->unit);
                snprintf(cells[3], 96, "%s", fi->better == RIDGE_BETTER_HIGHER  ? "higher"
                                             : fi->better == RIDGE_BETTER_LOWER ? "lower"
                                                                                : "none");
                for (int i = 0; i < n; i++) {
                    if (v[i].kind == RIDGE_FIGURE_NUMBER)
                        snprintf(cells[4 + i], 96, "%.9g", v[i].num);
                    else if (v[i].kind == RIDGE_FIGURE_TEXT)
                        snprintf(cells[4 + i], 96, "%.90s", v[i].text);
                    else
                        cells[4 + i][0] = '\0';
                }
                for (int i = 1; i < n; i++) {
                    if (v[i].kind == RIDGE_FIGURE_NUMBER && v[0].kind == RIDGE_FIGURE_NUMBER)
                        snprintf(cells[4 + n + i - 1], 96, "%.6g", v[i].num / v[0].num);
                    else
                        cells[4 + n + i - 1][0] = '\0';
                }
            } else {
                snprintf(cells[0], 96, "%s", fi->group);
                snprintf(cells[1], 96, "%s", fi->label);
                snprintf(cells[2], 96, "%s", fi->unit);
                for (int i = 0; i < n; i++) {
                    char r[32] = "";
                    if (i > 0 && v[i].kind == RIDGE_FIGURE_NUMBER && v[0].kind == RIDGE_FIGURE_NUMBER) {
                        char rb[24];
                        snprintf(r, sizeof r, " (%sx)", cli_num(v[i].num / v[0].num, rb, sizeof rb));
                    }
                    snprintf(cells[3 + i], 96, "%.60s%s%s", v[i].text, r, i == w ? " *" : "  ");
                }
            }
            snprintf(cells[ncols - 1], 96, "%s", w >= 0 ? g[w].id : "");
            cli_table_add(&t, (const char *const *)hdr);
        }
        if (fmt == CLI_FMT_CSV) {
            cli_table_print_csv(&t, stdout);
        } else {
            cli_table_print_text(&t, stdout);
            printf("\nRatios are to %s; '*' marks the winner (higher is better except power and price).\n",
                   g[0].id);
        }
        free(hdr);
        free(cells);
    }
done:
    cli_table_free(&t);
    cJSON_Delete(root);
    free(g);
    return rc;
}
