/* ridge compare ID ID...: GPUs side by side, one row per figure, ratio to the first column and
 * the winner marked.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare_workload.h"
#include "figure_fmt.h"
#include "json_emit.h"
#include "model_run.h"
#include "prices.h"
#include "ridge/figures.h"

#define MAX_GPUS 16
/* --batch, a run option (model_run.h) that compare also takes as "max". */
#define CMP_OPT_BATCH (CLI_RUN_OPT_BASE + 1)

static const char help[] =
    "usage: ridge compare ID ID [ID...] [--gpu-file PATH]... [--price ID=USD_PER_HOUR]... [--prices FILE]\n"
    "                     [--format text|json|csv]\n"
    "\n"
    "Puts GPUs side by side: memory size and type, bandwidth, cores and tensor cores, dense peak per\n"
    "precision, ridge points, power and efficiency, interconnect, price, MIG. Each value after the\n"
    "first column shows its ratio to the first GPU; '*' marks the winner of each row (higher is\n"
    "better, except board power and price). At most 16 GPUs; ids may name MIG slices\n"
    "(a100-sxm4-80gb:1g.10gb). --gpu-file adds a GPU from a JSON file (docs/gpu-schema.md).\n"
    "Below the table: each GPU's price and its source, and for products sold as several parts (the\n"
    "four A100s) the figures that differ between the parts. --price and --prices FILE replace the\n"
    "catalogue's price per GPU-hour; a MIG slice takes its share of its parent's (docs/cli.md).\n"
    "\n"
    "With --workload ID|FILE (a model: see 'ridge workloads') and run options, compares the\n"
    "predictions instead: step time, throughput, speedup over the first GPU, MFU, throughput per\n"
    "watt (board power) and per dollar (price per GPU-hour, where known), memory and fit.\n"
    "  --runtime eager|graph   host launch cost per kernel (default eager)\n"
    "  --per-op                kernel by kernel: each kernel's time, speedup, bound and roof on each\n"
    "                          GPU, and what the speedup over the first GPU comes from (tensor or\n"
    "                          vector throughput, bandwidth, latency, host, batch)\n"
    "  --top N                 --per-op text: the N longest kernels on the first GPU (default 20,\n"
    "                          0: all; JSON, CSV: every kernel)\n"
    "  --batch max             each GPU at its largest batch that fits (speedup: throughput)\n";
static const char help_run[] = "\n" CLI_RUN_HELP; /* a literal of its own: each under 4,095 characters */

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

static const char *better_name(ridge_better b)
{
    return b == RIDGE_BETTER_HIGHER ? "higher" : b == RIDGE_BETTER_LOWER ? "lower" : "none";
}

/* Figure f of every GPU into v[0..n) and its winner into *w; 0 where no GPU has the figure (the
 * row is left out). */
static int figure_row(const ridge_gpu *g, int n, size_t f, cli_figure_val *v, int *w)
{
    int any = 0;
    for (int i = 0; i < n; i++) {
        cli_figure_eval(&g[i], f, &v[i]);
        any |= v[i].kind != RIDGE_FIGURE_ABSENT;
    }
    *w = any ? winner(v, n, ridge_figure(f)->better) : -1;
    return any;
}

/* v[i] over the first GPU's value, where both are numbers. */
static int ratio(const cli_figure_val *v, int i, double *r)
{
    if (v[i].kind != RIDGE_FIGURE_NUMBER || v[0].kind != RIDGE_FIGURE_NUMBER)
        return 0;
    *r = v[i].num / v[0].num;
    return 1;
}

static int figures_json(const ridge_gpu *g, int n)
{
    cJSON *root = cJSON_CreateObject(), *gl, *rows;
    cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
    gl = cJSON_AddArrayToObject(root, "gpus");
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(gl, cJSON_CreateString(g[i].id));
    rows = cJSON_AddArrayToObject(root, "rows");
    for (size_t f = 0; f < ridge_figure_count(); f++) {
        const ridge_figure_info *fi = ridge_figure(f);
        cli_figure_val v[MAX_GPUS];
        cJSON *row, *vals, *ratios;
        int w;
        double r;
        if (!figure_row(g, n, f, v, &w))
            continue;
        const cli_json_field head[] = {CLI_JSTR("key", fi->key), CLI_JSTR("group", fi->group),
                                       CLI_JSTR("label", fi->label), CLI_JSTR("better", better_name(fi->better))};
        row = CLI_JSON_ADD(cJSON_CreateObject(), head);
        vals = cJSON_AddArrayToObject(row, "values");
        ratios = cJSON_AddArrayToObject(row, "ratio_to_first");
        for (int i = 0; i < n; i++) {
            cJSON_AddItemToArray(vals, cli_figure_json(&v[i]));
            cJSON_AddItemToArray(ratios, ratio(v, i, &r) ? cJSON_CreateNumber(r) : cJSON_CreateNull());
        }
        if (w >= 0)
            cJSON_AddStringToObject(row, "winner", g[w].id);
        else
            cJSON_AddNullToObject(row, "winner");
        cJSON_AddItemToArray(rows, row);
    }
    {
        cJSON *pr = cJSON_AddObjectToObject(root, "prices");
        for (int i = 0; i < n; i++)
            cJSON_AddItemToObject(pr, g[i].id, cli_price_json(&g[i]));
    }
    cJSON_AddItemToObject(root, "sku_families", cli_compare_sku_json(g, n));
    return cli_print_json(root);
}

/* The header into cells (ncols of them): text: group | figure | unit | gpu1 | gpu2 ... (the winner
 * marked "*" in its cell); csv: group,key,display_unit,better,<ids...>,ratio_<ids 2..>,winner (SI). */
static void figures_header(cli_table *t, const ridge_gpu *g, int n, cli_format fmt, char (*cells)[96])
{
    int ncols = t->ncols, k = 0;
    snprintf(cells[k++], 96, "group");
    snprintf(cells[k++], 96, fmt == CLI_FMT_CSV ? "key" : "figure");
    snprintf(cells[k++], 96, fmt == CLI_FMT_CSV ? "display_unit" : "unit");
    if (fmt == CLI_FMT_CSV)
        snprintf(cells[k++], 96, "better");
    for (int i = 0; i < n; i++) {
        if (fmt != CLI_FMT_CSV)
            t->right[k] = 1;
        snprintf(cells[k++], 96, "%s", g[i].id);
    }
    for (int i = 1; i < n && fmt == CLI_FMT_CSV; i++)
        snprintf(cells[k++], 96, "ratio_%s", g[i].id);
    if (fmt == CLI_FMT_CSV)
        snprintf(cells[ncols - 1], 96, "winner");
}

/* A text value longer than this (the MIG profile names) is printed under the table, so that the
 * table keeps to 120 columns. */
#define CMP_TEXT_CELL 24

/* The long text values of figure f under the table, a line per GPU. */
static void long_texts(const ridge_figure_info *fi, const ridge_gpu *g, const cli_figure_val *v, int n)
{
    int any = 0;
    for (int i = 0; i < n; i++)
        any |= strlen(v[i].text) > CMP_TEXT_CELL;
    if (!any)
        return;
    printf("%s:\n", fi->label);
    for (int i = 0; i < n; i++)
        printf("  %s: %s\n", g[i].id, v[i].text);
}

/* Figure f's cells: SI values and ratios in CSV; display values with their ratio and '*' for the
 * winner in text. */
static void figures_cells(const ridge_figure_info *fi, const cli_figure_val *v, int n, int w, cli_format fmt,
                          char (*cells)[96])
{
    double r;
    snprintf(cells[0], 96, "%s", fi->group);
    snprintf(cells[1], 96, "%s", fmt == CLI_FMT_CSV ? fi->key : fi->label);
    snprintf(cells[2], 96, "%s", fi->unit);
    if (fmt != CLI_FMT_CSV) {
        for (int i = 0; i < n; i++) {
            char rt[32] = "";
            if (i > 0 && ratio(v, i, &r))
                snprintf(rt, sizeof rt, " (%.3gx)", r); /* 3 digits: "0.643x" */
            if (strlen(v[i].text) > CMP_TEXT_CELL)
                snprintf(cells[3 + i], 96, "(below)");
            else
                snprintf(cells[3 + i], 96, "%.60s%s%s", v[i].text, rt, i == w ? " *" : "  ");
        }
        return;
    }
    snprintf(cells[3], 96, "%s", better_name(fi->better));
    for (int i = 0; i < n; i++) {
        if (v[i].kind == RIDGE_FIGURE_NUMBER)
            snprintf(cells[4 + i], 96, "%.9g", v[i].num);
        else if (v[i].kind == RIDGE_FIGURE_TEXT)
            snprintf(cells[4 + i], 96, "%.90s", v[i].text);
        else
            cells[4 + i][0] = '\0';
    }
    for (int i = 1; i < n; i++) {
        if (ratio(v, i, &r))
            snprintf(cells[4 + n + i - 1], 96, "%.6g", r);
        else
            cells[4 + n + i - 1][0] = '\0';
    }
}

static int figures_table(const ridge_gpu *g, int n, cli_format fmt)
{
    /* text: no winner column, the '*' marks the winner */
    int ncols = fmt == CLI_FMT_CSV ? 4 + n + (n - 1) + 1 : 3 + n;
    const char *hdr[4 + 2 * MAX_GPUS];
    char cells[4 + 2 * MAX_GPUS][96];
    cli_table t;
    if (cli_table_init(&t, ncols))
        return CLI_EXIT_FAILURE;
    for (int k = 0; k < ncols; k++)
        hdr[k] = cells[k];
    figures_header(&t, g, n, fmt, cells);
    cli_table_add(&t, hdr);
    for (size_t f = 0; f < ridge_figure_count(); f++) {
        cli_figure_val v[MAX_GPUS];
        int w;
        if (!figure_row(g, n, f, v, &w))
            continue;
        figures_cells(ridge_figure(f), v, n, w, fmt, cells);
        if (fmt == CLI_FMT_CSV)
            snprintf(cells[ncols - 1], 96, "%s", w >= 0 ? g[w].id : "");
        cli_table_add(&t, hdr);
    }
    if (fmt == CLI_FMT_CSV) {
        cli_table_print_csv(&t, stdout);
    } else {
        t.nkey = 3; /* group, figure, unit: repeated where the GPUs take more than one table */
        cli_table_print_text(&t, stdout);
        printf("\n");
        for (size_t f = 0; f < ridge_figure_count(); f++) {
            cli_figure_val v[MAX_GPUS];
            int w;
            if (figure_row(g, n, f, v, &w))
                long_texts(ridge_figure(f), g, v, n);
        }
        printf("Ratios are to %s; '*' marks the winner (higher is better except power and price).\n", g[0].id);
        cli_prices_print(g, (size_t)n, stdout);
        cli_compare_sku_text(g, n);
    }
    cli_table_free(&t);
    return CLI_EXIT_OK;
}

/* The parsed command line. */
typedef struct {
    cli_format fmt;
    const char *workload;
    cli_workload wl; /* the workload, read at the first look */
    ridge_run_config run;
    ridge_runtime rt;
    int run_flags, precision_given;
    int per_op, top, top_given;
    int batch_max; /* --batch max */
    const char *ids[MAX_GPUS], *files[MAX_GPUS];
    int n;
    cli_prices prices;
} cmp_args;

/* Parse the command line into a; returns -1 to go on, else the exit code to return. */
static int parse_args(int argc, char **argv, cmp_args *a)
{
    /* --gpu-file is 'g' here: compare takes GPU ids as arguments, not --gpu */
    static const struct option opts[] = {{"gpu-file", required_argument, 0, 'g'},
                                         CLI_OPTION_WORKLOAD,
                                         CLI_OPTION_RUNTIME,
                                         {"per-op", no_argument, 0, 'p'},
                                         {"top", required_argument, 0, 't'},
                                         CLI_OPTION_FORMAT,
                                         CLI_OPTION_HELP,
                                         CLI_OPTION_PRICES,
                                         CLI_RUN_OPTIONS,
                                         CLI_OPTION_END};
    cli_opts co = {"compare", help, help_run, &a->fmt, 0, -1, NULL};
    cli_run_lengths lens = {0, 0, 0};
    int c, rc;
    /* '-' first: keep ids and --gpu-file in command-line order. */
    while ((c = cli_getopt(&co, argc, argv, "-:h", opts)) != -1) {
        if (c >= CLI_RUN_OPT_BASE) {
            if (c == CMP_OPT_BATCH) /* the last --batch counts: a number, or max */
                a->batch_max = strcmp(optarg, "max") == 0;
            int k = c == CMP_OPT_BATCH && a->batch_max ? 1 : cli_run_option(c, optarg, NULL, &a->run);
            if (k < 0)
                return CLI_RUN_OPTION_EXIT(k);
            a->run_flags++;
            a->precision_given |= c == CLI_RUN_OPT_PRECISION;
            cli_run_lengths_note(&lens, c);
            continue;
        }
        switch (c) {
        case CLI_OPT_PRICE:
        case CLI_OPT_PRICES:
            if ((rc = cli_prices_option(&a->prices, c, optarg)) != 0)
                return rc == -3 ? CLI_EXIT_IO : CLI_EXIT_USAGE;
            break;
        case 'w': a->workload = optarg; break;
        case 'p': a->per_op = 1; break;
        case 't': {
            long v;
            if (cli_parse_long("--top", optarg, 0, 1000000, &v))
                return CLI_EXIT_USAGE;
            a->top = (int)v;
            a->top_given = 1;
            break;
        }
        case 'r':
            if (ridge_runtime_parse(optarg, &a->rt))
                return cli_usage_error("compare", "--runtime: '%s' is not eager or graph", optarg);
            break;
        case 1:
        case 'g':
            if (a->n == MAX_GPUS)
                return cli_usage_error("compare", "at most %d GPUs", MAX_GPUS);
            a->ids[a->n] = c == 1 ? optarg : NULL;
            a->files[a->n] = c == 'g' ? optarg : NULL;
            a->n++;
            break;
        }
    }
    if (co.exit >= 0)
        return co.exit;
    if (a->n < 2)
        return cli_usage_error("compare", "needs at least two GPUs");
    if ((rc = cli_run_lengths_check("compare", &lens, &a->run)) != 0)
        return rc;
    if (a->per_op && !a->workload)
        return cli_usage_error("compare", "--per-op needs --workload (a model to compare kernel by kernel)");
    if (a->top_given && !a->per_op)
        return cli_usage_error("compare", "--top applies to --per-op");
    if (a->workload)
        cli_workload_init(&a->wl, a->workload);
    if (a->workload && cli_workload_is_oplist(&a->wl))
        return cli_usage_error("compare",
                               "%s is an operator list; compare needs a model (built-in id or model file); "
                               "'ridge predict --gpu ID --workload FILE' predicts an operator list",
                               a->workload);
    return -1;
}

int cmd_compare(int argc, char **argv)
{
    cmp_args a = {.fmt = CLI_FMT_TEXT, .rt = RIDGE_RUNTIME_EAGER, .top = 20};
    ridge_gpu *g;
    int rc;
    ridge_run_config_init(&a.run);
    rc = parse_args(argc, argv, &a);
    if (rc >= 0) {
        cli_workload_free(&a.wl);
        return rc;
    }
    g = calloc((size_t)a.n, sizeof *g);
    if (!g) {
        cli_workload_free(&a.wl);
        return CLI_EXIT_FAILURE;
    }
    rc = CLI_EXIT_OK;
    for (int i = 0; i < a.n && rc == CLI_EXIT_OK; i++)
        rc = cli_load_gpu(a.ids[i], a.files[i], &g[i]);
    if (rc == CLI_EXIT_OK)
        rc = cli_prices_apply(&a.prices, g, (size_t)a.n, "compare");
    if (rc != CLI_EXIT_OK)
        ;
    else if (a.workload)
        rc = cli_compare_workload(g, a.n, &a.wl, &a.run, a.precision_given, a.rt,
                                  (cli_compare_opts){a.per_op, a.top, a.batch_max}, a.fmt);
    else if (a.run_flags)
        rc = cli_usage_error("compare", "run options (--mode, --batch...) need --workload");
    else
        rc = a.fmt == CLI_FMT_JSON ? figures_json(g, a.n) : figures_table(g, a.n, a.fmt);
    free(g);
    cli_workload_free(&a.wl);
    return rc;
}
