/* One table of results -> text, JSON or CSV: the caller describes its columns once, then hands
 * each row's values; the routine writes the CSV header and rows, the aligned text table, or the
 * JSON row objects (into an array the caller owns and prints). SPDX-License-Identifier:
 * GPL-3.0-or-later
 *
 * A column may be optional: a row without its optional values (an unstable queue's latencies,
 * say) leaves them out of JSON, writes 0 in CSV and "-" in text. A column with no text heading
 * is left out of the text table, one with no CSV name out of the CSV, one with no JSON key out of
 * the JSON (so a listing whose JSON keys come in another order than its text columns lists the
 * field twice: once JSON-only, once text-and-CSV-only).
 *
 * Two ways to print text and CSV: straight away, each cell padded to its column's width (a long
 * sweep), or, with a cli_table given, into that table, printed at the end by cli_emit_end: text
 * aligned to the widest cell with a dashed rule under the heading, CSV quoted where a cell needs
 * it (the listings, collective, compare --workload, predict's op rows, validate, plan). */
#ifndef RIDGE_CLI_EMIT_H
#define RIDGE_CLI_EMIT_H

#include <stddef.h>

#include "cli.h"

/* The most columns a table may have (the row buffers are on the stack). */
#define CLI_EMIT_MAX_COLS 64

typedef enum { CLI_EMIT_STR, CLI_EMIT_NUM, CLI_EMIT_BOOL } cli_emit_kind;

typedef struct {
    const char *key;     /* JSON key (NULL: not in the JSON) */
    const char *group;   /* JSON: the nested object of the row that holds it (NULL: the row) */
    const char *csv;     /* CSV column (NULL: not in the CSV) */
    const char *head;    /* text heading (NULL: not in the text) */
    int width;           /* text: field width, right-aligned (negative: left-aligned); with a
                          * cli_table only the sign counts (> 0: right-aligned) */
    double text_scale;   /* text: a number is printed by cli_num as value x scale (ms from s: 1e3) */
    cli_emit_kind kind;
    int optional;
    /* Number and boolean cells where the default does not fit (NULL: the default). text_fmt: the
     * text cell (default cli_num(v x text_scale), "yes"/"no"); csv_fmt: the CSV cell (default
     * %.9g, "true"/"false": the JSON value, docs/cli.md "Keys and units"; a whole number may
     * take cli_emit_fmt_whole). Each writes into b (n bytes) or returns a constant. */
    const char *(*text_fmt)(double v, char *b, size_t n);
    const char *(*csv_fmt)(double v, char *b, size_t n);
} cli_emit_col;

/* A left-aligned string column, the most common kind. */
#define CLI_EMIT_STR_COL(key, csv, head) {(key), NULL, (csv), (head), 0, 1, CLI_EMIT_STR, 0, NULL, NULL}

/* One value of a row: s for CLI_EMIT_STR, v for numbers and booleans (non-zero: true). A null
 * value (a GPU without a price) is null in JSON, "-" in text and an empty CSV cell. */
typedef struct {
    const char *s;
    double v;
    int null;
} cli_emit_val;

typedef struct {
    const cli_emit_col *cols;
    size_t ncols;
    cli_format fmt;
    cJSON *rows;    /* JSON: the array the row objects go into */
    cli_table *tab; /* text and CSV into this table (NULL: printed straight away); a column of
                     * positive width is right-aligned in it, but for the heading */
} cli_emit_table;

/* Stock cell formatters for text_fmt and csv_fmt: cli_num of v, of v in giga, tera, mega or GiB
 * units (divided, as the callers always did); a whole number (%.0f); 6 significant digits; all
 * 17 (%.17g: the value read back exactly); yes/no. */
const char *cli_emit_fmt_num(double v, char *b, size_t n);
const char *cli_emit_fmt_giga(double v, char *b, size_t n);
const char *cli_emit_fmt_tera(double v, char *b, size_t n);
const char *cli_emit_fmt_mega(double v, char *b, size_t n);
const char *cli_emit_fmt_gib(double v, char *b, size_t n);
const char *cli_emit_fmt_whole(double v, char *b, size_t n);
const char *cli_emit_fmt_g6(double v, char *b, size_t n);
const char *cli_emit_fmt_g17(double v, char *b, size_t n);
const char *cli_emit_fmt_yes_no(double v, char *b, size_t n);
/* Text in human units (cli_num_time, cli_num_bytes, cli_num_si): seconds, bytes, counts. */
const char *cli_emit_fmt_time(double v, char *b, size_t n);
const char *cli_emit_fmt_bytes(double v, char *b, size_t n);
const char *cli_emit_fmt_si(double v, char *b, size_t n);

/* The number of columns t shows in its format (the cli_table's width). */
int cli_emit_ncols(const cli_emit_table *t);

/* The CSV header row or the text heading line (nothing for JSON); with a table, its first row and
 * the columns' alignment. Returns 0, -1 out of memory. */
int cli_emit_head(const cli_emit_table *t);
/* One row of t->ncols values; has_optional = 0 for a row without its optional values. Numbers
 * go into CSV as %.9g. Returns 0, -1 out of memory. */
int cli_emit_row(const cli_emit_table *t, const cli_emit_val *vals, int has_optional);
/* With a table: print it, text or CSV (nothing otherwise), and free it. */
void cli_emit_end(const cli_emit_table *t);
/* A table of the columns into tab (initialised here, freed by cli_emit_end) and its heading.
 * Returns 0, -1 out of memory (tab freed). */
int cli_emit_open(cli_emit_table *t, const cli_emit_col *cols, size_t ncols, cli_format fmt, cli_table *tab);

#endif
