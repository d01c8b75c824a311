/* Prices per GPU-hour from the command line, shared by compare, plan and serve (and any command
 * that costs a run): --price ID=USD_PER_HOUR and --prices FILE (CLI_OPTION_PRICES in cli.h), one
 * parser, one rule for which price each GPU gets, one way to name where it came from (docs/cli.md,
 * "Prices"). SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_PRICES_H
#define RIDGE_CLI_PRICES_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "ridge/gpu.h"

#define CLI_PRICES_MAX 64
/* A price per GPU-hour ridge accepts: a MIG slice of a cheap part is a few cents, and nothing
 * rents for more than this an hour. */
#define CLI_PRICE_MIN_USD 0.001
#define CLI_PRICE_MAX_USD 1000

typedef struct {
    char id[64];          /* a GPU id, "ID:PROFILE" for a MIG slice */
    double usd_per_hour;
    char kind[12];        /* "on_demand", "spot" or "" */
    char date[16];        /* "" where not given */
    char origin[160];     /* "--price" or "FILE line N" */
    char source[160];     /* a prices file's source= text, or "" */
    int strict;           /* from the command line: must name one of the command's GPUs */
} cli_price;

typedef struct {
    cli_price p[CLI_PRICES_MAX];
    size_t n;
} cli_prices;

/* The option CLI_OPTION_PRICES gave, code CLI_OPT_PRICE (arg ID=USD_PER_HOUR) or CLI_OPT_PRICES
 * (arg a file): 0, or -1 after printing one line (-3: the file cannot be read). */
int cli_prices_option(cli_prices *ps, int code, const char *arg);
/* One ID=USD_PER_HOUR; label names it in errors ("--price", "plan.json: $.prices.l4"). A later
 * price for the same id replaces the earlier one. 0, or -1 after printing. */
int cli_prices_add(cli_prices *ps, const char *arg, const char *label);
/* A prices file (docs/cli.md, "Prices"): per line ID=USD_PER_HOUR [kind=on_demand|spot]
 * [date=YYYY-MM-DD] [source=TEXT to the end of the line]; '#' starts a comment. Errors name the
 * file, the line and the field. 0, -1 after printing (-3 when it cannot be read). */
int cli_prices_load(cli_prices *ps, const char *path);
/* The same from the text of the file at path, read by the caller (len bytes, NUL-terminated; its
 * lines are cut in place). */
int cli_prices_parse(cli_prices *ps, char *text, size_t len, const char *path);

/* Give each of g[0..n) the price that applies to it, in place of the catalogue's: a price for its
 * id, else, for a MIG slice, its share of a price for its parent (mig_compute_slices of
 * mig_compute_total). A --price that names none of the GPUs is an error (unknown id: the nearest
 * ids; a known id the command does not use: the ids it does), and so is an id of a prices file
 * that is no GPU at all. Prints the usage error for cmd; returns an exit code. */
int cli_prices_apply(const cli_prices *ps, ridge_gpu *g, size_t n, const char *cmd);

/* Where g's price per GPU-hour comes from, one phrase: "2.45 USD/h on demand, 2026-03, SOURCE"
 * (a MIG slice: "0.35 USD/h = 1/7 of a100-sxm4-80gb's 2.45 USD/h ..."), or "no price (give
 * --price ID=USD_PER_HOUR or --prices FILE)". Escaped for a terminal. */
const char *cli_price_text(const ridge_gpu *g, char *buf, size_t cap);
/* "Prices:" and one line per GPU of g[0..n) with cli_price_text, to out. */
void cli_prices_print(const ridge_gpu *g, size_t n, FILE *out);
/* The price behind a cost as the last cells of a CSV row (json 0) or members of a JSONL object
 * (json 1), each after a comma: CLI_PRICE_COLUMNS, null / empty where not known. */
#define CLI_PRICE_COLUMNS "price_usd_per_hour,price_kind,price_date,price_source,price_share"
void cli_price_cells(const ridge_gpu *g, int json);
/* JSON of g's price: usd_per_hour (null without one), kind, date, source, and for a MIG slice
 * the share of its parent's. */
struct cJSON;
struct cJSON *cli_price_json(const ridge_gpu *g);

#endif
