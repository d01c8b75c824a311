/* One table of results -> text, JSON or CSV (cli/emit.h). SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "emit.h"

static int shown(const cli_emit_col *c, cli_format fmt)
{
    return fmt == CLI_FMT_CSV ? c->csv != NULL : fmt == CLI_FMT_TEXT ? c->head != NULL : c->key != NULL;
}

int cli_emit_ncols(const cli_emit_table *t)
{
    int n = 0;
    for (size_t i = 0; i < t->ncols; i++)
        n += shown(&t->cols[i], t->fmt);
    return n;
}

/* sep, then s padded to |width| display columns (printf's widths count bytes, and "µs" is 3 bytes
 * in 2 columns): right-aligned for width > 0, left-aligned below. */
static void put_padded(const char *sep, int width, const char *s)
{
    int w = width < 0 ? -width : width, pad = w - cli_text_width(s);
    if (pad < 0)
        pad = 0;
    if (width > 0)
        printf("%s%*s%s", sep, pad, "", s);
    else
        printf("%s%s%*s", sep, s, pad, "");
}

int cli_emit_head(const cli_emit_table *t)
{
    const char *sep = "";
    const char *row[CLI_EMIT_MAX_COLS];
    int n = 0;
    if (t->fmt == CLI_FMT_JSON)
        return 0;
    for (size_t i = 0; i < t->ncols; i++) {
        const cli_emit_col *c = &t->cols[i];
        if (!shown(c, t->fmt))
            continue;
        if (t->tab) {
            t->tab->right[n] = c->width > 0;
            row[n++] = t->fmt == CLI_FMT_CSV ? c->csv : c->head;
            continue;
        }
        if (t->fmt == CLI_FMT_CSV)
            printf("%s%s", sep, c->csv);
        else
            put_padded(sep, c->width, c->head);
        sep = t->fmt == CLI_FMT_CSV ? "," : " ";
    }
    if (t->tab)
        return cli_table_add(t->tab, row);
    printf("\n");
    return 0;
}

static void json_cell(cJSON *row, const cli_emit_col *c, const cli_emit_val *v)
{
    cJSON *o = row;
    if (c->group) {
        o = cJSON_GetObjectItemCaseSensitive(row, c->group);
        if (!o)
            o = cJSON_AddObjectToObject(row, c->group);
    }
    if (v->null)
        cJSON_AddNullToObject(o, c->key);
    else if (c->kind == CLI_EMIT_STR)
        cJSON_AddStringToObject(o, c->key, v->s);
    else if (c->kind == CLI_EMIT_BOOL)
        cJSON_AddBoolToObject(o, c->key, v->v != 0);
    else
        cJSON_AddNumberToObject(o, c->key, v->v);
}

/* The text or CSV cell of a value (b: room for a number's digits). */
static const char *cell(const cli_emit_col *c, cli_format fmt, const cli_emit_val *v, int absent, char *b,
                        size_t n)
{
    const char *(*f)(double, char *, size_t) = fmt == CLI_FMT_CSV ? c->csv_fmt : c->text_fmt;
    if (absent && fmt == CLI_FMT_TEXT)
        return "-";
    if (c->kind == CLI_EMIT_STR)
        return v->s;
    if (v->null)
        return fmt == CLI_FMT_TEXT ? "-" : ""; /* CSV: an empty cell, as JSON's null */
    if (f)
        return f(v->v, b, n);
    if (fmt == CLI_FMT_CSV) {
        if (c->kind == CLI_EMIT_BOOL)
            return v->v != 0 ? "true" : "false";
        if (absent) /* not known for this row: an empty cell, as JSON's null */
            return "";
        snprintf(b, n, "%.9g", v->v);
        return b;
    }
    return c->kind == CLI_EMIT_BOOL ? (v->v != 0 ? "yes" : "no") : cli_num(v->v * c->text_scale, b, n);
}

int cli_emit_row(const cli_emit_table *t, const cli_emit_val *vals, int has_optional)
{
    cJSON *row = t->fmt == CLI_FMT_JSON ? cJSON_CreateObject() : NULL;
    const char *sep = "";
    const char *cells[CLI_EMIT_MAX_COLS];
    char bufs[CLI_EMIT_MAX_COLS][48];
    int n = 0;
    for (size_t i = 0; i < t->ncols; i++) {
        const cli_emit_col *c = &t->cols[i];
        int absent = c->optional && !has_optional;
        if (!shown(c, t->fmt))
            continue;
        if (row) {
            const cli_emit_val unknown = {NULL, 0, 1}; /* an absent figure is null (docs/cli.md) */
            json_cell(row, c, absent ? &unknown : &vals[i]);
            continue;
        }
        cells[n] = cell(c, t->fmt, &vals[i], absent, bufs[n], sizeof bufs[n]);
        if (!t->tab) {
            if (t->fmt == CLI_FMT_CSV)
                printf("%s%s", sep, cells[n]);
            else
                put_padded(sep, c->width, cells[n]);
        }
        n++;
        sep = t->fmt == CLI_FMT_CSV ? "," : " ";
    }
    if (row) {
        cJSON_AddItemToArray(t->rows, row);
        return 0;
    }
    if (t->tab)
        return cli_table_add(t->tab, cells);
    printf("\n");
    return 0;
}

void cli_emit_end(const cli_emit_table *t)
{
    if (t->tab && t->fmt == CLI_FMT_CSV)
        cli_table_print_csv(t->tab, stdout);
    else if (t->tab && t->fmt == CLI_FMT_TEXT)
        cli_table_print_text(t->tab, stdout);
    cli_table_free(t->tab);
}

int cli_emit_open(cli_emit_table *t, const cli_emit_col *cols, size_t ncols, cli_format fmt, cli_table *tab)
{
    const cli_emit_table e = {cols, ncols, fmt, NULL, tab};
    *t = e;
    if (cli_table_init(tab, cli_emit_ncols(t)))
        return -1;
    if (cli_emit_head(t)) {
        cli_table_free(tab);
        return -1;
    }
    return 0;
}

const char *cli_emit_fmt_num(double v, char *b, size_t n) { return cli_num(v, b, n); }
const char *cli_emit_fmt_giga(double v, char *b, size_t n) { return cli_num(v / 1e9, b, n); }
const char *cli_emit_fmt_tera(double v, char *b, size_t n) { return cli_num(v / 1e12, b, n); }
const char *cli_emit_fmt_mega(double v, char *b, size_t n) { return cli_num(v / 1e6, b, n); }
const char *cli_emit_fmt_gib(double v, char *b, size_t n) { return cli_num(v / 1073741824.0, b, n); }

const char *cli_emit_fmt_whole(double v, char *b, size_t n)
{
    snprintf(b, n, "%.0f", v);
    return b;
}

const char *cli_emit_fmt_g6(double v, char *b, size_t n)
{
    snprintf(b, n, "%.6g", v);
    return b;
}

const char *cli_emit_fmt_g17(double v, char *b, size_t n)
{
    snprintf(b, n, "%.17g", v);
    return b;
}

const char *cli_emit_fmt_yes_no(double v, char *b, size_t n)
{
    (void)b, (void)n;
    return v != 0 ? "yes" : "no";
}

const char *cli_emit_fmt_time(double v, char *b, size_t n) { return cli_num_time(v, b, n); }
const char *cli_emit_fmt_bytes(double v, char *b, size_t n) { return cli_num_bytes(v, b, n); }
const char *cli_emit_fmt_si(double v, char *b, size_t n) { return cli_num_si(v, b, n); }
