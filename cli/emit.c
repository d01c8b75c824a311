/* One table of results -> text, JSON or CSV (cli/emit.h). SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "emit.h"

static int shown(const cli_emit_col *c, cli_format fmt)
{
    return fmt == CLI_FMT_CSV ? c->csv != NULL : fmt == CLI_FMT_TEXT ? c->head != NULL : 1;
}

void cli_emit_head(const cli_emit_table *t)
{
    const char *sep = "";
    if (t->fmt == CLI_FMT_JSON)
        return;
    for (size_t i = 0; i < t->ncols; i++) {
        const cli_emit_col *c = &t->cols[i];
        if (!shown(c, t->fmt))
            continue;
        if (t->fmt == CLI_FMT_CSV)
            printf("%s%s", sep, c->csv);
        else
            printf("%s%*s", sep, c->width, c->head);
        sep = t->fmt == CLI_FMT_CSV ? "," : " ";
    }
    printf("\n");
}

static void json_cell(cJSON *row, const cli_emit_col *c, const cli_emit_val *v)
{
    cJSON *o = row;
    if (c->group) {
        o = cJSON_GetObjectItemCaseSensitive(row, c->group);
        if (!o)
            o = cJSON_AddObjectToObject(row, c->group);
    }
    if (c->kind == CLI_EMIT_STR)
        cJSON_AddStringToObject(o, c->key, v->s);
    else if (c->kind == CLI_EMIT_BOOL)
        cJSON_AddBoolToObject(o, c->key, v->v != 0);
    else
        cJSON_AddNumberToObject(o, c->key, v->v);
}

static void text_cell(const cli_emit_col *c, const cli_emit_val *v, int absent)
{
    char b[48];
    const char *s = absent ? "-"
                    : c->kind == CLI_EMIT_STR  ? v->s
                    : c->kind == CLI_EMIT_BOOL ? (v->v != 0 ? "yes" : "no")
                                               : cli_num(v->v * c->text_scale, b, sizeof b);
    printf("%*s", c->width, s);
}

static void csv_cell(const cli_emit_col *c, const cli_emit_val *v, int absent)
{
    if (c->kind == CLI_EMIT_STR)
        printf("%s", v->s);
    else if (c->kind == CLI_EMIT_BOOL)
        printf("%s", v->v != 0 ? "true" : "false");
    else
        printf("%.9g", absent ? 0 : v->v);
}

void cli_emit_row(const cli_emit_table *t, const cli_emit_val *vals, int has_optional)
{
    cJSON *row = t->fmt == CLI_FMT_JSON ? cJSON_CreateObject() : NULL;
    const char *sep = "";
    for (size_t i = 0; i < t->ncols; i++) {
        const cli_emit_col *c = &t->cols[i];
        int absent = c->optional && !has_optional;
        if (!shown(c, t->fmt))
            continue;
        if (row) {
            if (!absent)
                json_cell(row, c, &vals[i]);
            continue;
        }
        printf("%s", sep);
        if (t->fmt == CLI_FMT_CSV)
            csv_cell(c, &vals[i], absent);
        else
            text_cell(c, &vals[i], absent);
        sep = t->fmt == CLI_FMT_CSV ? "," : " ";
    }
    if (row)
        cJSON_AddItemToArray(t->rows, row);
    else
        printf("\n");
}
