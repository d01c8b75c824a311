/* Validation: cases, their summaries and the worst of them (docs/validation.md, `ridge validate`).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include "json_util.h"
#include "ridge/file.h"
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

/* The scopes of the summaries: a baseline row's `by`. */
static const char *const scopes[VAL_SCOPES] = {"group", "gpu", "workload", "family"};

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

/* ---- the error baseline ---- */

double ridge_val_baseline_mape_percent(const ridge_val_summary *v)
{
    return round(10000.0 * v->mape) / 100.0;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static int add_regression(ridge_val_regressions *r, ridge_val_regression_kind kind, const char *by, const char *name,
                          int base_cases, double base_mape, const ridge_val_summary *cur)
{
    ridge_val_regression *x;
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 8;
        ridge_val_regression *v = realloc(r->v, (size_t)cap * sizeof *v);
        if (!v)
            return RIDGE_ENOMEM;
        r->v = v;
        r->cap = cap;
    }
    x = &r->v[r->n];
    memset(x, 0, sizeof *x);
    x->kind = kind;
    x->by = dup_str(by);
    x->name = dup_str(name);
    if (!x->by || !x->name) {
        free(x->by);
        free(x->name);
        return RIDGE_ENOMEM;
    }
    x->base_cases = base_cases;
    x->base_mape_percent = base_mape;
    x->cases = cur ? cur->n : 0;
    x->mape_percent = cur ? 100.0 * cur->mape : 0;
    r->n++;
    return RIDGE_OK;
}

/* One entry of the baseline checked for form: by one of the scopes and name strings, cases a
 * whole number in [0, INT_MAX], mape_percent in [0, 1e9]. RIDGE_EINVAL naming the entry's field. */
static int check_entry(const cJSON *b, const char *origin, int idx, ridge_err *err)
{
    int known = 0;
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(b, "by"), *name = cJSON_GetObjectItemCaseSensitive(b, "name");
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(b, "cases");
    const cJSON *mape = cJSON_GetObjectItemCaseSensitive(b, "mape_percent");
    if (!cJSON_IsString(by) || !cJSON_IsString(name) || !cJSON_IsNumber(cases) || !cJSON_IsNumber(mape))
        return ridge_err_set(err, RIDGE_EINVAL,
                             "%s: $.summaries[%d]: needs by, name (strings), cases and mape_percent (numbers)", origin,
                             idx);
    if (!(cases->valuedouble >= 0 && cases->valuedouble <= INT_MAX) || cases->valuedouble != floor(cases->valuedouble))
        return ridge_err_set(err, RIDGE_EINVAL, "%s: $.summaries[%d].cases: %g is not a count in [0, %d]", origin, idx,
                             cases->valuedouble, INT_MAX);
    if (!(mape->valuedouble >= 0 && mape->valuedouble <= 1e9))
        return ridge_err_set(err, RIDGE_EINVAL, "%s: $.summaries[%d].mape_percent: %g is out of range [0, 1e+09]",
                             origin, idx, mape->valuedouble);
    for (int k = 0; k < VAL_SCOPES; k++)
        known |= strcmp(by->valuestring, scopes[k]) == 0;
    if (!known) /* a row no summary can match: it would fail as "no cases any more" */
        return ridge_err_set(err, RIDGE_EINVAL, "%s: $.summaries[%d].by: '%s' is not one of: %s, %s, %s, %s", origin,
                             idx, by->valuestring, scopes[0], scopes[1], scopes[2], scopes[3]);
    return RIDGE_OK;
}

/* A baseline row (checked by check_entry) by its by and name, then its index. */
typedef struct {
    const char *by, *name;
    int i;
} val_row;

static int cmp_row(const void *a, const void *b)
{
    const val_row *x = a, *y = b;
    int c = strcmp(x->by, y->by);
    if (!c)
        c = strcmp(x->name, y->name);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* No two rows of the checked entries of arr (n of them) with the same by and name: sorted, so
 * that a large file is not compared pairwise. RIDGE_EINVAL naming the first repeated row. */
static int check_unique(const cJSON *arr, int n, const char *origin, ridge_err *err)
{
    val_row *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    const cJSON *b;
    int k = 0, dup = -1, first = -1;
    if (!r)
        return ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
    cJSON_ArrayForEach(b, arr)
    {
        r[k].by = cJSON_GetObjectItemCaseSensitive(b, "by")->valuestring;
        r[k].name = cJSON_GetObjectItemCaseSensitive(b, "name")->valuestring;
        r[k].i = k;
        k++;
    }
    qsort(r, (size_t)n, sizeof *r, cmp_row);
    for (k = 1; k < n; k++) /* the repeat of lowest index: the second of a run of equal rows */
        if (strcmp(r[k].by, r[k - 1].by) == 0 && strcmp(r[k].name, r[k - 1].name) == 0 &&
            (k < 2 || strcmp(r[k].by, r[k - 2].by) != 0 || strcmp(r[k].name, r[k - 2].name) != 0) &&
            (dup < 0 || r[k].i < r[dup].i))
            dup = k, first = k - 1;
    if (dup >= 0)
        ridge_err_set(err, RIDGE_EINVAL, "%s: $.summaries[%d]: %s %s again (first at $.summaries[%d])", origin,
                      r[dup].i, r[dup].by, r[dup].name, r[first].i);
    free(r);
    return dup >= 0 ? RIDGE_EINVAL : RIDGE_OK;
}

/* The top-level keys of a baseline: what --write-baseline writes, and a note. */
static const char *const baseline_keys[] = {"schema_version", "kind", "ridge_version", "files", "summaries", "note",
                                            NULL};

/* One entry of the baseline (checked by check_entry) against the summaries: appends its
 * regression, if any. */
static int compare_entry(const cJSON *b, const ridge_val_summary *v, int nv, double tol, ridge_val_regressions *out)
{
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(b, "by"), *name = cJSON_GetObjectItemCaseSensitive(b, "name");
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(b, "cases");
    const cJSON *mape = cJSON_GetObjectItemCaseSensitive(b, "mape_percent");
    const ridge_val_summary *cur = NULL;
    int base_cases = (int)cases->valuedouble;
    for (int i = 0; i < nv && !cur; i++)
        if (strcmp(v[i].scope, by->valuestring) == 0 && strcmp(v[i].name, name->valuestring) == 0)
            cur = &v[i];
    if (!cur)
        return add_regression(out, RIDGE_VAL_REG_GONE, by->valuestring, name->valuestring, base_cases,
                              mape->valuedouble, NULL);
    if (cur->n < base_cases)
        return add_regression(out, RIDGE_VAL_REG_FEWER, by->valuestring, name->valuestring, base_cases,
                              mape->valuedouble, cur);
    if (ridge_val_baseline_mape_percent(cur) > mape->valuedouble + tol + 1e-9)
        return add_regression(out, RIDGE_VAL_REG_MAPE, by->valuestring, name->valuestring, base_cases,
                              mape->valuedouble, cur);
    return RIDGE_OK;
}

int ridge_val_baseline_compare(const char *text, size_t len, const char *origin, const ridge_val_summary *v, int nv,
                               double tol_points, ridge_val_regressions *out, ridge_err *err)
{
    cJSON *root;
    const cJSON *arr, *b, *kind;
    int idx = 0, st = RIDGE_OK;
    rj_ctx ctx = {origin, err};
    if (ridge_json_refuse_nul_escape(text, len, origin, err) != RIDGE_OK)
        return RIDGE_EPARSE;
    root = cJSON_ParseWithLength(text, len);
    kind = cJSON_GetObjectItemCaseSensitive(root, "kind");
    arr = cJSON_GetObjectItemCaseSensitive(root, "summaries");
    if (!cJSON_IsObject(root) || !cJSON_IsString(kind) || strcmp(kind->valuestring, RIDGE_VAL_BASELINE_KIND) != 0 ||
        !cJSON_IsArray(arr)) {
        cJSON_Delete(root);
        return ridge_err_set(err, RIDGE_EINVAL, "%s: not a validation baseline (kind \"%s\" with a summaries array)",
                             origin, RIDGE_VAL_BASELINE_KIND);
    }
    if (rj_check_keys(root, "$", baseline_keys, &ctx) != RIDGE_OK) { /* "ORIGIN: $.KEY: unknown key" */
        cJSON_Delete(root);
        return RIDGE_EINVAL;
    }
    if (cJSON_GetArraySize(arr) == 0) { /* it would pass whatever the summaries */
        cJSON_Delete(root);
        return ridge_err_set(err, RIDGE_EINVAL, "%s: $.summaries: empty (no row to check)", origin);
    }
    /* Every entry is checked before any is compared: a bad entry is the one error, not the last
     * line after the regressions of the entries before it. */
    cJSON_ArrayForEach(b, arr)
    {
        if ((st = check_entry(b, origin, idx++, err)) != RIDGE_OK)
            break;
    }
    if (st == RIDGE_OK)
        st = check_unique(arr, idx, origin, err);
    if (st == RIDGE_OK)
        cJSON_ArrayForEach(b, arr)
        {
            if ((st = compare_entry(b, v, nv, tol_points, out)) != RIDGE_OK) {
                ridge_err_set(err, st, "out of memory");
                break;
            }
        }
    cJSON_Delete(root);
    return st;
}

int ridge_val_baseline_check(const char *path, const ridge_val_summary *v, int nv, double tol_points,
                             ridge_val_regressions *out, ridge_err *err)
{
    char *text = NULL;
    size_t len = 0;
    int st = ridge_file_read(path, &text, &len, err);
    if (st != RIDGE_OK)
        return st;
    st = ridge_val_baseline_compare(text, len, path, v, nv, tol_points, out, err);
    free(text);
    return st;
}

void ridge_val_regressions_free(ridge_val_regressions *r)
{
    for (int i = 0; i < r->n; i++) {
        free(r->v[i].by);
        free(r->v[i].name);
    }
    free(r->v);
    memset(r, 0, sizeof *r);
}
