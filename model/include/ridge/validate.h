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

#ifdef __cplusplus
}
#endif
#endif
