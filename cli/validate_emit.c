/* ridge validate's report in text, JSON and CSV, and its baseline file (validate_emit.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "json_emit.h"
#include "ridge/version.h"
#include "validate_emit.h"

static void fmt_pct(char *buf, size_t cap, double frac, int sign)
{
    snprintf(buf, cap, sign ? "%+.2f" : "%.2f", 100.0 * frac);
}

int cli_val_print_text(const ridge_val_cases *s, const ridge_meas_set *ms, const ridge_val_summary *v, int nv,
                       int summary_only)
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

int cli_val_print_json(const ridge_val_cases *s, const ridge_meas_set *ms, const ridge_val_summary *v, int nv)
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
        const cli_json_field f[] = {CLI_JSTR("id", c->id),
                                    CLI_JSTR("group", c->group),
                                    CLI_JSTR("gpu", c->gpu),
                                    CLI_JSTR("workload", c->workload),
                                    CLI_JSTR("case", c->desc),
                                    CLI_JSTR("kind", c->kind),
                                    CLI_JSTR("family", strchr(c->family, ' ') ? strchr(c->family, ' ') + 1 : c->family),
                                    CLI_JSTR("unit", c->unit),
                                    CLI_JNUM("measured", c->measured),
                                    CLI_JNUM("predicted", c->predicted),
                                    CLI_JNUM("error_percent", 100.0 * c->error)};
        CLI_JSON_ADD(o, f);
        cJSON_AddItemToArray(cases, o);
    }
    for (i = 0; i < nv; i++) {
        cJSON *o = cJSON_CreateObject();
        const cli_json_field f[] = {CLI_JSTR("by", v[i].scope),
                                    CLI_JSTR("name", v[i].name),
                                    CLI_JNUM("cases", v[i].n),
                                    CLI_JNUM("mape_percent", 100.0 * v[i].mape),
                                    CLI_JNUM("median_ape_percent", 100.0 * v[i].median),
                                    CLI_JNUM("worst_error_percent", 100.0 * v[i].worst_case->error),
                                    CLI_JSTR("worst_id", v[i].worst_case->id)};
        CLI_JSON_ADD(o, f);
        cJSON_AddItemToArray(sums, o);
    }
    for (i = 0; i < ms->nreasons; i++) {
        cJSON *o = cJSON_CreateObject();
        const cli_json_field f[] = {CLI_JSTR("reason", cli_flag_words(ms->reason[i])),
                                    CLI_JNUM("count", ms->reason_count[i])};
        CLI_JSON_ADD(o, f);
        cJSON_AddItemToArray(skips, o);
    }
    return cli_print_json(root);
}

void cli_val_print_csv(const ridge_val_cases *s)
{
    int i;
    printf("id,group,gpu,workload,kind,measured,predicted,unit,error_percent\n");
    for (i = 0; i < s->n; i++) {
        const ridge_val_case *c = &s->v[i];
        printf("%s,%s,%s,%s,%s,%.9g,%.9g,%s,%.4f\n", c->id, c->group, c->gpu, c->workload, c->kind, c->measured,
               c->predicted, c->unit, 100.0 * c->error);
    }
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
