/* ridge — calibration: fitting a GPU's efficiency parameters to measurements with GSL nonlinear least
 * squares on a declared training subset (docs/validation.md, "Calibration").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CALIBRATE_H
#define RIDGE_CALIBRATE_H

#include "ridge/gpu.h"
#include "ridge/measure.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One rule of the training split: measurements whose id matches `glob` (fnmatch) are training
 * (train = 1) or held out (train = 0). The first matching rule decides; no match: held out. */
typedef struct {
    const char *glob;
    int train;
} ridge_cal_rule;

/* The default split (docs/validation.md lists it). */
extern const ridge_cal_rule ridge_cal_default_rules[];
extern const int ridge_cal_default_rule_count;

#define RIDGE_CAL_MAX_PARAMS (RIDGE_EFF_FIELD_COUNT + RIDGE_PEAK_COUNT)

typedef struct {
    char name[48];  /* "dram_fraction", "fraction_by_peak.bf16" */
    int field;      /* efficiency field index, or -1 for a fraction_by_peak entry */
    int peak;       /* the peak of a fraction_by_peak entry */
    double lo, hi;  /* search box */
    double initial; /* value before fitting */
    double value;   /* fitted value (= initial when not fitted) */
    int cases;      /* training cases whose prediction moves with this parameter */
    int fitted;     /* 1 when some training case informs it (and --fit, if given, names it) */
    int excluded;   /* informed, but left out by --fit */
    int flat;       /* fitted, but no training case depends on it near the fitted value: kept */
    int local;      /* a training case depends on it near its starting value */
    int at_bound;   /* the fit ended within 0.1 % (log scale) of the box */
} ridge_cal_param;

typedef struct {
    int nparams;
    ridge_cal_param p[RIDGE_CAL_MAX_PARAMS];
    int ntrain, ntest;
    int iterations;
    const char *stop;      /* why the solver stopped */
    double rms_log_before; /* training residuals, sqrt(mean(log(pred/meas)^2)) */
    double rms_log_after;
} ridge_cal_result;

/* Mark each item of s as training or held out by the rules: train[i] = 1 / 0. */
void ridge_cal_split(const ridge_meas_set *s, const ridge_cal_rule *rules, int nrules, int *train);

/* The parameters calibration may fit on g, with their current values; returns how many. */
int ridge_cal_candidates(const ridge_gpu *g, ridge_cal_param *p);

/* Two of ridge_cal_fit's refusals depend on its only/nonly and on the training split; a command
 * names its own flags for them. */
#define RIDGE_CAL_WHY_ONLY_UNINFORMED "no training measurement depends on the parameters named in only"
#define RIDGE_CAL_WHY_UNDERDETERMINED                                                                  \
    "fewer training measurements than parameters they inform (name fewer in only, or train on more)"

/* Fit g's efficiency parameters to the training items (train[i] = 1) of s; g is updated in place
 * with the fitted values. only/nonly: when nonly > 0, fit only the parameters so named (the rest
 * keep their values). Returns NULL or a reason it could not fit (a static string). */
const char *ridge_cal_fit(ridge_gpu *g, const ridge_meas_set *s, const int *train, const char *const *only, int nonly,
                    ridge_cal_result *res);

/* ridge_cal_fit, calling progress (or NULL) with the solver's iterations of its most (200), every
 * few iterations and once with done == total when the fit ends (ridge_progress_fn, measure.h). */
const char *ridge_cal_fit_progress(ridge_gpu *g, const ridge_meas_set *s, const int *train, const char *const *only,
                                   int nonly, ridge_cal_result *res, ridge_progress_fn progress, void *arg);

/* The error of one group of items before and after a fit: sums of |predicted / measured - 1|. */
typedef struct {
    double before, after;
    int n;
    char name[48]; /* the items' group; "all" for every item */
} ridge_cal_group;

/* predicted[i]: item i of s predicted on g, when it names g's id and can be predicted; else 0. */
void ridge_cal_predict_all(const ridge_meas_set *s, const ridge_gpu *g, double *predicted);

/* The error sums of the items of s on GPU id `gpu` with train[i] == want (1: training, 0: held
 * out) and both predictions before[i], after[i] positive: gr[0] "all" of them, then one per group
 * in order of first appearance (at most cap - 1; the groups beyond count in "all" alone).
 * Returns the number of groups filled, "all" included. */
int ridge_cal_group_errors(const ridge_meas_set *s, const int *train, int want, const double *before,
                           const double *after, const char *gpu, ridge_cal_group *gr, int cap);

#ifdef __cplusplus
}
#endif
#endif
