/* ridge validate's report in text, JSON and CSV, and its baseline file (validate_emit.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "emit.h"
#include "json_emit.h"
#include "ridge/version.h"
#include "validate_emit.h"

/* Percentages: the values are 100 x the fractions; 2 decimals (signed for errors) in text, 4 in
 * CSV. */
static const char *pct2(double v, char *b, size_t n)
{
    snprintf(b, n, "%.2f", v);
    return b;
}
static const char *spct2(double v, char *b, size_t n)
{
    snprintf(b, n, "%+.2f", v);
    return b;
}
static const char *pct4(double v, char *b, size_t n)
{
    snprintf(b, n, "%.4f", v);
    return b;
}

/* One row per case. The three formats order their fields differently, so the unit stands twice
 * (JSON-only before the values, text-and-CSV after them); width 1: right-aligned. */
static const cli_emit_col case_cols[] = {
    CLI_EMIT_STR_COL("id", "id", "id"),
    CLI_EMIT_STR_COL("group", "group", "group"),
    CLI_EMIT_STR_COL("gpu", "gpu", "gpu"),
    CLI_EMIT_STR_COL("workload", "workload", NULL),
    CLI_EMIT_STR_COL("case", NULL, "case"),
    CLI_EMIT_STR_COL("kind", "kind", NULL),
    CLI_EMIT_STR_COL("family", NULL, NULL),
    CLI_EMIT_STR_COL("unit", NULL, NULL),
    {"measured", NULL, "measured", "measured", 1, 1, CLI_EMIT_NUM, 0, NULL, NULL},
    {"predicted", NULL, "predicted", "predicted", 1, 1, CLI_EMIT_NUM, 0, NULL, NULL},
    CLI_EMIT_STR_COL(NULL, "unit", "unit"),
    {"error_percent", NULL, "error_percent", "error [%]", 1, 1, CLI_EMIT_NUM, 0, spct2, pct4},
};

/* One row per summary (text and JSON). */
static const cli_emit_col summary_cols[] = {
    CLI_EMIT_STR_COL("by", NULL, "by"),
    CLI_EMIT_STR_COL("name", NULL, "name"),
    {"cases", NULL, NULL, "cases", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_whole, NULL},
    {"mape_percent", NULL, NULL, "MAPE [%]", 1, 1, CLI_EMIT_NUM, 0, pct2, NULL},
    {"median_ape_percent", NULL, NULL, "median APE [%]", 1, 1, CLI_EMIT_NUM, 0, pct2, NULL},
    {"worst_error_percent", NULL, NULL, "worst [%]", 1, 1, CLI_EMIT_NUM, 0, spct2, NULL},
    CLI_EMIT_STR_COL("worst_id", NULL, "worst id"),
};

/* The worst cases (text; JSON lists their ids alone). */
static const cli_emit_col worst_cols[] = {
    {NULL, NULL, NULL, "worst", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_whole, NULL},
    CLI_EMIT_STR_COL(NULL, NULL, "id"),
    CLI_EMIT_STR_COL(NULL, NULL, "gpu"),
    CLI_EMIT_STR_COL(NULL, NULL, "case"),
    {NULL, NULL, NULL, "error [%]", 1, 1, CLI_EMIT_NUM, 0, spct2, NULL},
    CLI_EMIT_STR_COL(NULL, NULL, "family"),
};

#define NCOLS(cols) (sizeof(cols) / sizeof(cols)[0])

/* The family without its leading word ("kernel gemm": "gemm"). */
static const char *family_name(const ridge_val_case *c)
{
    return strchr(c->family, ' ') ? strchr(c->family, ' ') + 1 : c->family;
}

static int case_row(const cli_emit_table *e, const ridge_val_case *c)
{
    const cli_emit_val v[NCOLS(case_cols)] = {
        {c->id, 0, 0},   {c->group, 0, 0},          {c->gpu, 0, 0},        {c->workload, 0, 0},
        {c->desc, 0, 0}, {c->kind, 0, 0},           {family_name(c), 0, 0}, {c->unit, 0, 0},
        {NULL, c->measured, 0}, {NULL, c->predicted, 0}, {c->unit, 0, 0}, {NULL, 100.0 * c->error, 0}};
    return cli_emit_row(e, v, 1);
}

static int summary_row(const cli_emit_table *e, const ridge_val_summary *s)
{
    const cli_emit_val v[NCOLS(summary_cols)] = {
        {s->scope, 0, 0}, {s->name, 0, 0}, {NULL, s->n, 0}, {NULL, 100.0 * s->mape, 0}, {NULL, 100.0 * s->median, 0},
        {NULL, 100.0 * s->worst_case->error, 0}, {s->worst_case->id, 0, 0}};
    return cli_emit_row(e, v, 1);
}

/* The text tables: the cases (printed where show), the summaries, the worst cases; each returns
 * an exit code. */
static int text_cases(const ridge_val_cases *s, int show)
{
    cli_table t;
    cli_emit_table e;
    if (cli_emit_open(&e, case_cols, NCOLS(case_cols), CLI_FMT_TEXT, &t))
        return CLI_EXIT_FAILURE;
    for (int i = 0; i < s->n; i++)
        if (case_row(&e, &s->v[i])) {
            cli_table_free(&t);
            return CLI_EXIT_FAILURE;
        }
    if (show)
        cli_emit_end(&e);
    cli_table_free(&t);
    return CLI_EXIT_OK;
}

static int text_summaries(const ridge_val_summary *v, int nv, int summary_only)
{
    cli_table t;
    cli_emit_table e;
    if (cli_emit_open(&e, summary_cols, NCOLS(summary_cols), CLI_FMT_TEXT, &t))
        return CLI_EXIT_FAILURE;
    t.nkey = 2; /* by, name: repeated where the worst id goes to a table of its own */
    for (int i = 0; i < nv; i++)
        if (summary_row(&e, &v[i])) {
            cli_table_free(&t);
            return CLI_EXIT_FAILURE;
        }
    if (nv) {
        if (!summary_only)
            printf("\n");
        cli_emit_end(&e);
    }
    cli_table_free(&t);
    return CLI_EXIT_OK;
}

static int text_worst(const ridge_val_cases *s)
{
    int worst[RIDGE_VAL_WORST], nworst;
    cli_table t;
    cli_emit_table e;
    ridge_val_worst(s, worst, &nworst);
    if (!nworst)
        return CLI_EXIT_OK;
    if (cli_emit_open(&e, worst_cols, NCOLS(worst_cols), CLI_FMT_TEXT, &t))
        return CLI_EXIT_FAILURE;
    for (int i = 0; i < nworst; i++) {
        const ridge_val_case *c = &s->v[worst[i]];
        const cli_emit_val v[NCOLS(worst_cols)] = {{NULL, i + 1, 0},  {c->id, 0, 0},
                                                   {c->gpu, 0, 0},    {c->desc, 0, 0},
                                                   {NULL, 100.0 * c->error, 0}, {family_name(c), 0, 0}};
        if (cli_emit_row(&e, v, 1)) {
            cli_table_free(&t);
            return CLI_EXIT_FAILURE;
        }
    }
    printf("\n");
    cli_emit_end(&e);
    return CLI_EXIT_OK;
}

int cli_val_print_text(const ridge_val_cases *s, const ridge_meas_set *ms, const ridge_val_summary *v, int nv,
                       int summary_only)
{
    int rc = text_cases(s, s->n && !summary_only);
    if (rc == CLI_EXIT_OK)
        rc = text_summaries(v, nv, summary_only);
    if (rc == CLI_EXIT_OK)
        rc = text_worst(s);
    if (rc != CLI_EXIT_OK)
        return rc;
    printf("%s%d cases compared", s->n || nv ? "\n" : "", s->n);
    for (int i = 0; i < ms->nreasons; i++)
        printf("; %d skipped: %s", ms->reason_count[i], cli_flag_words(ms->reason[i]));
    printf("\n");
    for (int i = 0; i < ms->nreasons; i++) /* why, for the reasons an error message explains */
        if (ms->detail[i][0]) {
            char esc[4 * RIDGE_MEAS_DETAIL_MAX]; /* ids and messages from the file: escaped, one line */
            printf("  first skipped as \"%s\": %s\n", cli_flag_words(ms->reason[i]),
                   cli_text(ms->detail[i], esc, sizeof esc));
        }
    return CLI_EXIT_OK;
}

int cli_val_print_json(const ridge_val_cases *s, const ridge_meas_set *ms, const ridge_val_summary *v, int nv)
{
    cJSON *root = cJSON_CreateObject(), *skips, *wa;
    cli_emit_table cases = {case_cols, NCOLS(case_cols), CLI_FMT_JSON, NULL, NULL};
    cli_emit_table sums = {summary_cols, NCOLS(summary_cols), CLI_FMT_JSON, NULL, NULL};
    int i, worst[RIDGE_VAL_WORST], nworst;
    if (!root)
        return cli_print_json(NULL);
    cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
    cases.rows = cJSON_AddArrayToObject(root, "cases");
    sums.rows = cJSON_AddArrayToObject(root, "summaries");
    skips = cJSON_AddArrayToObject(root, "skipped");
    wa = cJSON_AddArrayToObject(root, "worst_ids");
    ridge_val_worst(s, worst, &nworst);
    for (i = 0; i < nworst; i++)
        cJSON_AddItemToArray(wa, cJSON_CreateString(s->v[worst[i]].id));
    for (i = 0; i < s->n; i++)
        case_row(&cases, &s->v[i]);
    for (i = 0; i < nv; i++)
        summary_row(&sums, &v[i]);
    for (i = 0; i < ms->nreasons; i++) {
        cJSON *o = cJSON_CreateObject();
        const cli_json_field f[] = {CLI_JSTR("reason", cli_flag_words(ms->reason[i])),
                                    CLI_JNUM("count", ms->reason_count[i])};
        CLI_JSON_ADD(o, f);
        if (ms->detail[i][0]) /* the first such measurement and what its error said */
            cJSON_AddStringToObject(o, "first", ms->detail[i]);
        cJSON_AddItemToArray(skips, o);
    }
    return cli_print_json(root);
}

/* CSV through a table, so that a cell holding a comma, a quote or a line break (an id from the
 * file) is quoted (cli_csv_cell), as predict --per-op quotes its op names. */
int cli_val_print_csv(const ridge_val_cases *s)
{
    cli_table t;
    cli_emit_table e;
    if (cli_emit_open(&e, case_cols, NCOLS(case_cols), CLI_FMT_CSV, &t))
        return CLI_EXIT_FAILURE;
    for (int i = 0; i < s->n; i++)
        if (case_row(&e, &s->v[i])) {
            cli_table_free(&t);
            return CLI_EXIT_FAILURE;
        }
    cli_emit_end(&e);
    return CLI_EXIT_OK;
}

int cli_val_write_baseline(const char *path, char *const *files, int nfiles, const ridge_val_summary *v, int nv)
{
    cJSON *root = cJSON_CreateObject(), *fa, *sa;
    int i;
    if (!root)
        return CLI_EXIT_FAILURE;
    const cli_json_field head[] = {CLI_JNUM("schema_version", CLI_SCHEMA_VERSION),
                                   CLI_JSTR("kind", RIDGE_VAL_BASELINE_KIND), CLI_JSTR("ridge_version", ridge_version())};
    CLI_JSON_ADD(root, head);
    fa = cJSON_AddArrayToObject(root, "files");
    for (i = 0; i < nfiles; i++)
        cJSON_AddItemToArray(fa, cJSON_CreateString(files[i]));
    sa = cJSON_AddArrayToObject(root, "summaries");
    for (i = 0; i < nv; i++) {
        cJSON *o = cJSON_CreateObject();
        const cli_json_field f[] = {CLI_JSTR("by", v[i].scope), CLI_JSTR("name", v[i].name), CLI_JNUM("cases", v[i].n),
                                    CLI_JNUM("mape_percent", ridge_val_baseline_mape_percent(&v[i]))};
        CLI_JSON_ADD(o, f);
        cJSON_AddItemToArray(sa, o);
    }
    return cli_write_json_file(path, root);
}
