/* The chart of a validation's cases: sets by unit and the error note (plots/include/ridge/val_chart.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ridge/val_chart.h"

/* The units of s in order of first appearance, at most RIDGE_VAL_CHART_MAX_SETS. */
static int units_of(const ridge_val_cases *s, const char **units)
{
    int nsets = 0;
    for (int i = 0; i < s->n; i++) {
        int u;
        for (u = 0; u < nsets; u++)
            if (strcmp(units[u], s->v[i].unit) == 0)
                break;
        if (u == nsets && nsets < RIDGE_VAL_CHART_MAX_SETS)
            units[nsets++] = s->v[i].unit;
    }
    return nsets;
}

/* Set u: the cases of units[u] (the last set also takes every unit beyond the list), their
 * numbers, measured and predicted values from num[k..] (num holds 3 x s->n), ids from ids[k..].
 * Returns the new k. */
static int fill_set(const ridge_val_cases *s, const char *const *units, int nsets, int u, double *num,
                    const char **ids, int k, ridge_validation_set *v, char *name, size_t cap)
{
    int cnt = 0;
    memset(v, 0, sizeof *v);
    v->number = num + k;
    v->measured = num + s->n + k;
    v->predicted = num + 2 * s->n + k;
    v->ids = ids + k;
    for (int i = 0; i < s->n; i++) {
        int w;
        for (w = 0; w < nsets - 1; w++)
            if (strcmp(units[w], s->v[i].unit) == 0)
                break;
        if (w != u)
            continue;
        num[k] = i + 1;
        num[s->n + k] = s->v[i].measured;
        num[2 * s->n + k] = s->v[i].predicted;
        ids[k] = s->v[i].id;
        k++;
        cnt++;
    }
    v->n = (size_t)cnt;
    snprintf(name, cap, "%s%s (%d case%s)", units[u], strcmp(units[u], "s") ? "" : ", time", cnt,
             cnt == 1 ? "" : "s");
    v->name = name;
    return k;
}

/* "N cases: MAPE x %, a within 10 %, b within 25 %". */
static void error_note(const ridge_val_cases *s, char *note, size_t cap)
{
    int in10 = 0, in25 = 0;
    double sum = 0;
    for (int i = 0; i < s->n; i++) {
        double a = fabs(s->v[i].error);
        sum += a;
        in10 += a <= 0.10 + 1e-12;
        in25 += a <= 0.25 + 1e-12;
    }
    if (s->n)
        snprintf(note, cap, "%d cases: MAPE %.1f %%, %d within 10 %%, %d within 25 %%", s->n, 100.0 * sum / s->n,
                 in10, in25);
    else
        snprintf(note, cap, "no cases compared");
}

/* Index of name in list[0..*n), appended when new and there is room; else the last entry. */
static int index_of(const char *name, const char **list, int *n, int cap)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(list[i], name) == 0)
            return i;
    if (*n < cap) {
        list[*n] = name;
        return (*n)++;
    }
    return cap - 1;
}

/* SCATTER: a panel per unit (the 8th and beyond share the last), a set per group within each
 * (the 12th group and beyond share the last colour), each group one colour on every panel. */
#define VC_GROUPS 12
static int write_panels(const ridge_val_cases *s, const ridge_plot_paths *paths, const char *note, ridge_err *err)
{
    enum { NP = RIDGE_VALIDATION_MAX_PANELS, NS = RIDGE_VALIDATION_MAX_PANELS * VC_GROUPS };
    const char *units[NP], *groups[VC_GROUPS];
    char ptitle[NP][128], (*names)[96] = calloc(NS, sizeof *names);
    const char *ptitle_p[NP];
    int nu = 0, ng = 0, *pair = malloc((size_t)(s->n ? s->n : 1) * sizeof *pair), cnt[NS] = {0}, ucnt[NP] = {0};
    double *num = malloc((size_t)(s->n ? s->n : 1) * 3 * sizeof *num), uerr[NP] = {0};
    const char **ids = malloc((size_t)(s->n ? s->n : 1) * sizeof *ids);
    ridge_validation_set *sets = calloc(NS, sizeof *sets);
    ridge_validation_options o = {0};
    size_t nsets = 0;
    int st, k = 0;
    if (!names || !pair || !num || !ids || !sets) {
        st = ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < s->n; i++) {
        int u = index_of(s->v[i].unit, units, &nu, NP), g = index_of(s->v[i].group, groups, &ng, VC_GROUPS);
        pair[i] = u * VC_GROUPS + g;
        cnt[pair[i]]++;
        ucnt[u]++;
        uerr[u] += fabs(s->v[i].error);
    }
    for (int q = 0; q < NS; q++) {
        ridge_validation_set *v = &sets[nsets];
        int g = q % VC_GROUPS;
        if (!cnt[q])
            continue;
        v->number = num + k;
        v->measured = num + s->n + k;
        v->predicted = num + 2 * s->n + k;
        v->ids = ids + k;
        for (int i = 0; i < s->n; i++)
            if (pair[i] == q) {
                num[k] = i + 1;
                num[s->n + k] = s->v[i].measured;
                num[2 * s->n + k] = s->v[i].predicted;
                ids[k++] = s->v[i].id;
            }
        v->n = (size_t)cnt[q];
        v->panel = q / VC_GROUPS;
        v->color = g;
        snprintf(names[nsets], sizeof names[0], "%s (%d)", ng == VC_GROUPS && g == VC_GROUPS - 1 ? "other groups" : groups[g],
                 cnt[q]);
        v->name = names[nsets++];
    }
    for (int u = 0; u < nu; u++) {
        snprintf(ptitle[u], sizeof ptitle[u], "%s%s: %d case%s, MAPE %.1f %%",
                 nu == NP && u == NP - 1 ? "other units" : units[u], strcmp(units[u], "s") ? "" : " (time)", ucnt[u],
                 ucnt[u] == 1 ? "" : "s", 100.0 * uerr[u] / ucnt[u]);
        ptitle_p[u] = ptitle[u];
    }
    o.title = "ridge validate: predicted / measured against measured, a panel per unit";
    o.note = note;
    o.style = RIDGE_VALIDATION_SCATTER;
    o.npanels = (size_t)nu;
    o.panel_titles = ptitle_p;
    o.panel_units = units;
    st = ridge_validation_write(sets, nsets, &o, paths, err);
done:
    free(names);
    free(pair);
    free(num);
    free(ids);
    free(sets);
    return st;
}

int ridge_val_chart_write(const ridge_val_cases *s, ridge_validation_style style, const ridge_plot_paths *paths,
                          ridge_err *err)
{
    ridge_validation_set sets[RIDGE_VAL_CHART_MAX_SETS];
    char names[RIDGE_VAL_CHART_MAX_SETS][64], note[160];
    const char *units[RIDGE_VAL_CHART_MAX_SETS];
    double *num = malloc((size_t)(s->n ? s->n : 1) * 3 * sizeof *num);
    const char **ids = malloc((size_t)(s->n ? s->n : 1) * sizeof *ids);
    ridge_validation_options o = {0};
    int nsets, k = 0, st;
    if (!num || !ids) {
        free(num);
        free(ids);
        return ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
    }
    error_note(s, note, sizeof note);
    if (style == RIDGE_VALIDATION_SCATTER && s->n) {
        free(num);
        free(ids);
        return write_panels(s, paths, note, err);
    }
    nsets = units_of(s, units);
    for (int u = 0; u < nsets; u++)
        k = fill_set(s, units, nsets, u, num, ids, k, &sets[u], names[u], sizeof names[u]);
    o.title = style == RIDGE_VALIDATION_RATIO ? "ridge validate: predicted / measured per case"
                                              : "ridge validate: predicted against measured";
    o.style = style;
    o.note = note;
    if (nsets == 0) { /* an empty chart still shows the bands */
        memset(&sets[0], 0, sizeof sets[0]);
        sets[0].name = "no cases";
        nsets = 1;
    }
    st = ridge_validation_write(sets, (size_t)nsets, &o, paths, err);
    free(num);
    free(ids);
    return st;
}
