/* Validation: cases, their summaries and the worst of them (docs/validation.md, `ridge validate`).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ridge/validate.h"

int ridge_val_cases_of(const ridge_meas_set *ms, const ridge_gpu *file_gpu, ridge_val_cases *s)
{
    memset(s, 0, sizeof *s);
    s->v = calloc((size_t)(ms->n ? ms->n : 1), sizeof *s->v);
    if (!s->v)
        return RIDGE_ENOMEM;
    for (int i = 0; i < ms->n; i++) {
        const ridge_meas_item *it = &ms->v[i];
        ridge_val_case *c = &s->v[s->n++];
        if (file_gpu && strcmp(file_gpu->id, it->gpu) == 0)
            s->file_used++;
        snprintf(c->id, sizeof c->id, "%s", it->id);
        snprintf(c->group, sizeof c->group, "%s", it->group);
        snprintf(c->gpu, sizeof c->gpu, "%s", it->gpu);
        snprintf(c->workload, sizeof c->workload, "%s", it->workload);
        snprintf(c->desc, sizeof c->desc, "%s", it->desc);
        snprintf(c->unit, sizeof c->unit, "%s", it->unit);
        snprintf(c->kind, sizeof c->kind, "%s", it->kind_name);
        snprintf(c->family, sizeof c->family, "%s %s", it->gpu, it->family[0] ? it->family : "model");
        c->measured = it->measured;
        c->predicted = it->predicted;
        c->error = it->predicted / it->measured - 1.0;
    }
    return RIDGE_OK;
}

void ridge_val_cases_free(ridge_val_cases *c)
{
    free(c->v);
    memset(c, 0, sizeof *c);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define VAL_SCOPES 4

static const char *key_of(const ridge_val_case *c, int scope)
{
    return scope == 0 ? c->group : scope == 1 ? c->gpu : scope == 2 ? c->workload : c->family;
}

/* A case of one scope, sorted by key, then by input order (qsort is not stable); the key travels
 * with the index, so the comparison needs no context and summarising is reentrant. */
typedef struct {
    const char *key;
    int i;
} val_keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const val_keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

static int cmp_first(const void *a, const void *b)
{
    const ridge_val_summary *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

/* The rows of one name: cases idx[i..*end) (sorted by key) share the key of idx[i]. */
static void summarize_run(const ridge_val_cases *s, const val_keyed *idx, int i, double *ape, ridge_val_summary *r,
                          int *end)
{
    double sum = 0;
    int cnt = 0, j;
    snprintf(r->name, sizeof r->name, "%s", idx[i].key);
    r->first = idx[i].i;
    for (j = i; j < s->n && strcmp(idx[j].key, idx[i].key) == 0; j++) {
        double a = fabs(s->v[idx[j].i].error);
        ape[cnt++] = a;
        sum += a;
        if (!r->worst_case || a > r->worst) {
            r->worst = a;
            r->worst_case = &s->v[idx[j].i];
        }
    }
    qsort(ape, (size_t)cnt, sizeof *ape, cmp_double);
    r->n = cnt;
    r->mape = sum / cnt;
    r->median = cnt % 2 ? ape[cnt / 2] : 0.5 * (ape[cnt / 2 - 1] + ape[cnt / 2]);
    *end = j;
}

/* Sorting keeps it O(n log n) over 10^4..10^5 cases. */
int ridge_val_summarize(const ridge_val_cases *s, ridge_val_summary **out, int *nout)
{
    static const char *const scopes[VAL_SCOPES] = {"group", "gpu", "workload", "family"};
    ridge_val_summary *v = NULL;
    size_t nn = (size_t)(s->n ? s->n : 1);
    double *ape = malloc(nn * sizeof *ape);
    val_keyed *idx = malloc(nn * sizeof *idx);
    int n = 0, scope, i, j;
    if (!ape || !idx || !(v = calloc((size_t)(VAL_SCOPES * s->n + 1), sizeof *v))) {
        free(ape);
        free(idx);
        return RIDGE_ENOMEM;
    }
    for (scope = 0; scope < VAL_SCOPES; scope++) {
        int start = n;
        for (i = 0; i < s->n; i++) {
            idx[i].key = key_of(&s->v[i], scope);
            idx[i].i = i;
        }
        qsort(idx, (size_t)s->n, sizeof *idx, cmp_keyed);
        for (i = 0; i < s->n; i = j) {
            v[n].scope = scopes[scope];
            summarize_run(s, idx, i, ape, &v[n++], &j);
        }
        qsort(v + start, (size_t)(n - start), sizeof *v, cmp_first);
    }
    free(ape);
    free(idx);
    *out = v;
    *nout = n;
    return RIDGE_OK;
}

void ridge_val_worst(const ridge_val_cases *s, int *out, int *n)
{
    *n = 0;
    for (int i = 0; i < s->n; i++) {
        double a = fabs(s->v[i].error);
        int j = *n < RIDGE_VAL_WORST ? (*n)++ : RIDGE_VAL_WORST;
        if (j == RIDGE_VAL_WORST && a <= fabs(s->v[out[RIDGE_VAL_WORST - 1]].error))
            continue;
        if (j == RIDGE_VAL_WORST)
            j = RIDGE_VAL_WORST - 1;
        while (j > 0 && fabs(s->v[out[j - 1]].error) < a) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = i;
    }
}
