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
    nsets = units_of(s, units);
    for (int u = 0; u < nsets; u++)
        k = fill_set(s, units, nsets, u, num, ids, k, &sets[u], names[u], sizeof names[u]);
    error_note(s, note, sizeof note);
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
