/* ridge — validation: measured cases against their predictions, summarised per group, GPU,
 * workload and GPU x kernel family (docs/validation.md); `ridge validate` prints them.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_VALIDATE_H
#define RIDGE_VALIDATE_H

#include "ridge/gpu.h"
#include "ridge/measure.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char id[96], group[32], gpu[48], workload[48], desc[96], unit[24], kind[16];
    char family[96]; /* "GPU family": the GPU x kernel family summaries */
    double measured, predicted, error; /* error = predicted / measured - 1 */
} ridge_val_case;

typedef struct {
    ridge_val_case *v;
    int n;
    int file_used; /* cases predicted with file_gpu (ridge_val_cases_of) */
} ridge_val_cases;

/* One summary row: the cases of one name within one scope ("group", "gpu", "workload", "family"). */
typedef struct {
    const char *scope;
    char name[96];
    int n, first; /* first: index of the first case, for the order of rows */
    double mape, median, worst; /* of |error| */
    const ridge_val_case *worst_case;
} ridge_val_summary;

/* The cases: every item of ms with the prediction ridge_meas_collect made on its GPU; file_gpu
 * (or NULL) the GPU file whose id's items count in file_used. RIDGE_OK or RIDGE_ENOMEM. */
int ridge_val_cases_of(const ridge_meas_set *ms, const ridge_gpu *file_gpu, ridge_val_cases *out);
void ridge_val_cases_free(ridge_val_cases *c);

/* MAPE, median and worst case per group, GPU, workload and GPU x kernel family, each scope's rows
 * in order of first appearance; *out (free) holds *nout rows pointing into s. RIDGE_OK or
 * RIDGE_ENOMEM. */
int ridge_val_summarize(const ridge_val_cases *s, ridge_val_summary **out, int *nout);

/* Indices of the *n cases of largest |error|, largest first (at most RIDGE_VAL_WORST). */
#define RIDGE_VAL_WORST 10
void ridge_val_worst(const ridge_val_cases *s, int *out, int *n);

/* ---- the error baseline (`ridge validate --write-baseline`, `--baseline`) ---- */

/* The kind of a baseline file: {"kind": RIDGE_VAL_BASELINE_KIND, "summaries": [{"by", "name",
 * "cases", "mape_percent"}, ...]} (docs/validation.md). */
#define RIDGE_VAL_BASELINE_KIND "ridge-validation-baseline"

/* A summary's MAPE as a baseline holds it: in percent, rounded to 0.01 point, so that the file
 * compares equal across machines and compilers. */
double ridge_val_baseline_mape_percent(const ridge_val_summary *v);

typedef enum {
    RIDGE_VAL_REG_GONE = 0, /* the baseline's group has no cases any more */
    RIDGE_VAL_REG_FEWER,    /* fewer cases than the baseline's */
    RIDGE_VAL_REG_MAPE      /* its MAPE exceeds the baseline's by more than the tolerance */
} ridge_val_regression_kind;

/* One group of the baseline that regressed; by and name as the baseline spells them. */
typedef struct {
    ridge_val_regression_kind kind;
    char *by, *name;
    int base_cases, cases;           /* cases: 0 for RIDGE_VAL_REG_GONE */
    double base_mape_percent, mape_percent; /* mape_percent unrounded */
} ridge_val_regression;

typedef struct {
    ridge_val_regression *v;
    int n, cap;
} ridge_val_regressions;

/* Compare the summaries v[0..nv) with the baseline document text[0..len): every group of the
 * baseline must still be there with at least as many cases and a MAPE at most tol_points above
 * the baseline's. Each group that is not is appended to *out, in the baseline's order
 * (ridge_val_regressions_free; zeroed by the caller). origin names the document in errors.
 * RIDGE_OK (regressions or not); RIDGE_EINVAL when it is not a baseline or an entry lacks a field,
 * *out then holding the regressions of the entries before it; RIDGE_ENOMEM. */
int ridge_val_baseline_compare(const char *text, size_t len, const char *origin, const ridge_val_summary *v, int nv,
                               double tol_points, ridge_val_regressions *out, ridge_err *err);
/* The same for the baseline file at path (ridge_file_read: RIDGE_EIO when unreadable). */
int ridge_val_baseline_check(const char *path, const ridge_val_summary *v, int nv, double tol_points,
                             ridge_val_regressions *out, ridge_err *err);
void ridge_val_regressions_free(ridge_val_regressions *r);

#ifdef __cplusplus
}
#endif
#endif
