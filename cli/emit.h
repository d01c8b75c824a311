/* One table of results -> text, JSON or CSV: the caller describes its columns once, then hands
 * each row's values; the routine writes the CSV header and rows, the aligned text table, or the
 * JSON row objects (into an array the caller owns and prints). SPDX-License-Identifier:
 * GPL-3.0-or-later
 *
 * A column may be optional: a row without its optional values (an unstable queue's latencies,
 * say) leaves them out of JSON, writes 0 in CSV and "-" in text. A column with no text heading
 * is left out of the text table, one with no CSV name out of the CSV. */
#ifndef RIDGE_CLI_EMIT_H
#define RIDGE_CLI_EMIT_H

#include <stddef.h>

#include "cli.h"

typedef enum { CLI_EMIT_STR, CLI_EMIT_NUM, CLI_EMIT_BOOL } cli_emit_kind;

typedef struct {
    const char *key;     /* JSON key */
    const char *group;   /* JSON: the nested object of the row that holds it (NULL: the row) */
    const char *csv;     /* CSV column (NULL: not in the CSV) */
    const char *head;    /* text heading (NULL: not in the text) */
    int width;           /* text: field width, right-aligned (negative: left-aligned) */
    double text_scale;   /* text: a number is printed by cli_num as value x scale (ms from s: 1e3) */
    cli_emit_kind kind;
    int optional;
} cli_emit_col;

/* One value of a row: s for CLI_EMIT_STR, v for numbers and booleans (non-zero: true). */
typedef struct {
    const char *s;
    double v;
} cli_emit_val;

typedef struct {
    const cli_emit_col *cols;
    size_t ncols;
    cli_format fmt;
    cJSON *rows; /* JSON: the array the row objects go into */
} cli_emit_table;

/* The CSV header row or the text heading line (nothing for JSON). */
void cli_emit_head(const cli_emit_table *t);
/* One row of t->ncols values; has_optional = 0 for a row without its optional values. Numbers
 * go into CSV as %.9g. */
void cli_emit_row(const cli_emit_table *t, const cli_emit_val *vals, int has_optional);

#endif
