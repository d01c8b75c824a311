/* Calibration engine: the training split, the parameters and the GSL fit (docs/validation.md,
 * "Calibration").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#include "ridge/calibrate.h"

/* The declared training subset of ridge-bench-cuda's measurements. Each parameter is fitted on
 * one kind of kernel and checked on others: DRAM/L2 bandwidth and latency on the copy and triad
 * kernels (read, write, memcpy held out), achievable peaks on the 8192^3 GEMMs (16384^3 and the
 * whole shape sweep held out), the launch cost on the async issue time (round trips, wall and GPU
 * times of eager launches held out), the kernel floor on graph replays of empty kernels and on
 * `scale` (`add` and `reduce` held out). graph_launch_s is identified only where it exceeds the
 * kernel floor (replays launch-bound rather than GPU-bound). FMA peaks, host copies, PyTorch
 * end-to-end runs and published figures are never fitted by default. */
const ridge_cal_rule ridge_cal_default_rules[] = {
    {"bandwidth/copy/*", 1},       {"bandwidth/triad/*", 1},    {"gemm/*/8192", 1},
    {"launch/empty_async_issue", 1}, {"launch/graph_replay/*", 1}, {"small/scale/*", 1},
};
const int ridge_cal_default_rule_count = (int)(sizeof ridge_cal_default_rules / sizeof ridge_cal_default_rules[0]);

void ridge_cal_split(const ridge_meas_set *s, const ridge_cal_rule *rules, int nrules, int *train)
{
    for (int i = 0; i < s->n; i++) {
        train[i] = 0;
        if (s->v[i].serving || s->v[i].queue)
            continue; /* never a training case: a simulation of thousands of steps, not a
                       * microbenchmark (and a fit would rerun it at every evaluation); held out */
        for (int r = 0; r < nrules; r++)
            if (fnmatch(rules[r].glob, s->v[i].id, 0) == 0) {
                train[i] = rules[r].train;
                break;
            }
    }
}

/* Search boxes (the GPU schema's ranges, with positive lower ends for the log scale). */
static const double field_lo[RIDGE_EFF_FIELD_COUNT] = {0.05, 0.05, 0.05, 1e9, 1e-8, 1e-8, 1e-8, 1e-9, 1e-9, 1e-8};
static const double field_hi[RIDGE_EFF_FIELD_COUNT] = {1, 1, 1, 1e15, 1e-3, 1e-5, 1e-3, 1e-3, 1e-3, 1e-3};

static double get_param(const ridge_gpu *g, const ridge_cal_param *p)
{
    return p->field >= 0 ? ridge_efficiency_get(&g->eff, p->field)
                         : ridge_efficiency_fraction(&g->eff, (ridge_peak)p->peak);
}

static void set_param(ridge_gpu *g, const ridge_cal_param *p, double v)
{
    if (p->field >= 0)
        *ridge_efficiency_field(&g->eff, p->field) = v;
    else
        g->eff.fraction_by_peak[p->peak] = v;
}

/* Unbounded x <-> bounded value: a logistic curve over log(value) between the box ends. */
static double to_value(const ridge_cal_param *p, double x)
{
    double a = log(p->lo), b = log(p->hi);
    return exp(a + (b - a) / (1.0 + exp(-x)));
}

static double to_x(const ridge_cal_param *p, double v)
{
    double a = log(p->lo), b = log(p->hi), u = (log(v) - a) / (b - a);
    if (u < 1e-6)
        u = 1e-6;
    if (u > 1 - 1e-6)
        u = 1 - 1e-6;
    return log(u / (1 - u));
}

typedef struct {
    ridge_gpu *g;
    const ridge_meas_set *s;
    const int *idx; /* training items */
    int n;
    const ridge_cal_param *p;
    int np;
} cal_ctx;

/* A prediction that fails (a parameter far out) costs a large residual instead of an error. */
#define CAL_FAILED_RESIDUAL 10.0

static double residual(const ridge_meas_item *it, const ridge_gpu *g)
{
    double pred = 0;
    if (ridge_meas_predict(it, g, &pred) != NULL || !(pred > 0) || !isfinite(pred))
        return CAL_FAILED_RESIDUAL;
    return log(pred / it->measured);
}

/* Weight of the pull towards the starting values: one residual lambda * log(value / start) per
 * parameter. It decides between values the measurements cannot tell apart (a parameter that only
 * matters in a corner, noise of a few tenths of a percent), and costs a well-determined parameter
 * nothing measurable: moving kernel_floor_s by 30 % costs as much as 1.3 % error on one case. */
#define CAL_PRIOR_WEIGHT 0.05

static int cal_f(const gsl_vector *x, void *data, gsl_vector *f)
{
    cal_ctx *c = data;
    for (int j = 0; j < c->np; j++)
        set_param(c->g, &c->p[j], to_value(&c->p[j], gsl_vector_get(x, (size_t)j)));
    for (int i = 0; i < c->n; i++)
        gsl_vector_set(f, (size_t)i, residual(&c->s->v[c->idx[i]], c->g));
    for (int j = 0; j < c->np; j++)
        gsl_vector_set(f, (size_t)(c->n + j),
                       CAL_PRIOR_WEIGHT * log(to_value(&c->p[j], gsl_vector_get(x, (size_t)j)) / c->p[j].initial));
    return GSL_SUCCESS;
}

static double rms(const ridge_gpu *g, const ridge_meas_set *s, const int *idx, int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++) {
        double r = residual(&s->v[idx[i]], g);
        sum += r * r;
    }
    return n ? sqrt(sum / n) : 0;
}

/* The candidates: every efficiency field except the global tensor and vector fractions, and one
 * fraction per peak the GPU has (the global fractions stay as the default for peaks no training
 * case uses). */
int ridge_cal_candidates(const ridge_gpu *g, ridge_cal_param *p)
{
    int n = 0;
    for (int i = 0; i < RIDGE_EFF_FIELD_COUNT; i++) {
        if (i == 0 || i == 1)
            continue;
        memset(&p[n], 0, sizeof p[n]);
        snprintf(p[n].name, sizeof p[n].name, "%s", ridge_efficiency_field_name(i));
        p[n].field = i;
        p[n].lo = field_lo[i];
        p[n].hi = field_hi[i];
        /* An L2 slower than DRAM would make the cache a penalty (the defaults keep it >= 2x). */
        if (i == 3 && p[n].lo < g->memory_bw_bytes_per_s)
            p[n].lo = g->memory_bw_bytes_per_s;
        n++;
    }
    for (int k = 0; k < RIDGE_PEAK_COUNT; k++) {
        if (!(g->peak_flops_per_s[k] > 0))
            continue;
        memset(&p[n], 0, sizeof p[n]);
        snprintf(p[n].name, sizeof p[n].name, "fraction_by_peak.%s", ridge_peak_key((ridge_peak)k));
        p[n].field = -1;
        p[n].peak = k;
        p[n].lo = 0.05;
        p[n].hi = 1;
        n++;
    }
    for (int j = 0; j < n; j++) {
        double v = get_param(g, &p[j]);
        if (v < p[j].lo)
            v = p[j].lo;
        if (v > p[j].hi)
            v = p[j].hi;
        p[j].initial = p[j].value = v;
    }
    return n;
}

/* The first of the values tries[] of parameter p (at value v now) that moves the case's residual
 * by more than 0.001, as an index, or -1 when none does. p is left at v. */
static int first_move(ridge_gpu *g, const ridge_meas_item *it, const ridge_cal_param *p, double v, const double *tries, int ntries)
{
    double r0 = residual(it, g);
    int moved = -1;
    for (int t = 0; t < ntries && moved < 0; t++) {
        set_param(g, p, tries[t]);
        if (fabs(residual(it, g) - r0) > 1e-3)
            moved = t;
    }
    set_param(g, p, v);
    return moved;
}

/* A training case informs a parameter when changing the parameter by 10 %, or by 10x either way
 * (within its box), moves its prediction by more than 0.1 %: a launch cost that only matters
 * once it exceeds the GPU time is flat near the default and still counts. */
static void sensitivity(ridge_gpu *g, const ridge_meas_set *s, const int *idx, int n, ridge_cal_param *p, int np)
{
    for (int j = 0; j < np; j++) {
        double v = p[j].initial, tries[3];
        int local = 0;
        tries[0] = v * 1.1 <= p[j].hi ? v * 1.1 : v / 1.1;
        tries[1] = v * 10 <= p[j].hi ? v * 10 : p[j].hi;
        tries[2] = v / 10 >= p[j].lo ? v / 10 : p[j].lo;
        p[j].cases = 0;
        for (int i = 0; i < n; i++) {
            int t = first_move(g, &s->v[idx[i]], &p[j], v, tries, 3);
            local |= t == 0;
            p[j].cases += t >= 0;
        }
        p[j].fitted = p[j].cases > 0;
        p[j].local = local;
    }
}

static double cost(cal_ctx *c, gsl_vector *x, gsl_vector *f)
{
    double d = 0;
    cal_f(x, c, f);
    gsl_blas_ddot(f, f, &d);
    return d;
}

/* One pass of coordinate search over a coarse grid of each parameter's box before the local
 * solver: a parameter on a flat stretch (no gradient at the start) still finds its region. */
static void coarse_start(cal_ctx *c, gsl_vector *x)
{
    gsl_vector *f = gsl_vector_alloc((size_t)(c->n + c->np));
    double best;
    if (!f)
        return;
    best = cost(c, x, f);
    for (int j = 0; j < c->np; j++) {
        double bx = gsl_vector_get(x, (size_t)j);
        for (int k = -6; k <= 6; k++) {
            double d;
            gsl_vector_set(x, (size_t)j, (double)k);
            d = cost(c, x, f);
            if (d < 0.9 * best) { /* a clear improvement, not noise */
                best = d;
                bx = (double)k;
            }
        }
        gsl_vector_set(x, (size_t)j, bx);
    }
    gsl_vector_free(f);
}

#define CAL_MAX_ITER 200
/* Starts of the local solver beyond the coarse one, drawn over the box (a fixed sequence): the
 * model's bounds (max of compute, DRAM, L2; the L2 share a streaming kernel is served) make the
 * objective piecewise, with local minima a single start can stop in (test_calibrate's synthetic
 * H200: rms log error 0.042 from the coarse start alone, 0.002 with the restarts). The fit kept
 * is the one of least cost. */
#define CAL_RESTARTS 8

typedef struct {
    ridge_progress_fn fn;
    void *arg;
} cal_progress;

/* The solver's callback, once per iteration: iterations done of CAL_MAX_ITER at most. */
static void cal_iter(const size_t iter, void *arg, const gsl_multifit_nlinear_workspace *w)
{
    const cal_progress *p = arg;
    (void)w;
    if (iter % 8 == 0 && iter < CAL_MAX_ITER)
        p->fn(p->arg, iter, CAL_MAX_ITER);
}

const char *ridge_cal_fit(ridge_gpu *g, const ridge_meas_set *s, const int *train, const char *const *only, int nonly,
                    ridge_cal_result *res)
{
    return ridge_cal_fit_progress(g, s, train, only, nonly, res, NULL, NULL);
}

const char *ridge_cal_fit_progress(ridge_gpu *g, const ridge_meas_set *s, const int *train, const char *const *only,
                                   int nonly, ridge_cal_result *res, ridge_progress_fn progress, void *arg)
{
    cal_progress prog = {progress, arg};
    ridge_cal_param all[RIDGE_CAL_MAX_PARAMS], fit[RIDGE_CAL_MAX_PARAMS];
    int *idx = malloc((size_t)(s->n ? s->n : 1) * sizeof *idx), n = 0, nall, nfit = 0, nlocal = 0, status, info = 0;
    gsl_multifit_nlinear_workspace *w = NULL;
    gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_fdf fdf;
    gsl_vector *x0 = NULL;
    cal_ctx ctx;
    const char *why = NULL;
    memset(res, 0, sizeof *res);
    if (!idx)
        return "out of memory";
    for (int i = 0; i < s->n; i++) {
        if (strcmp(s->v[i].gpu, g->id) != 0 && !(g->mig_of[0] && strcmp(s->v[i].gpu, g->mig_of) == 0))
            continue; /* calibrate on this GPU's measurements only */
        if (train[i])
            idx[n++] = i;
        else
            res->ntest++;
    }
    res->ntrain = n;
    nall = ridge_cal_candidates(g, all);
    sensitivity(g, s, idx, n, all, nall);
    for (int j = 0; j < nall && nonly > 0; j++) {
        int named = 0;
        for (int k = 0; k < nonly && !named; k++)
            named = strcmp(all[j].name, only[k]) == 0;
        if (!named) {
            all[j].excluded = all[j].fitted;
            all[j].fitted = 0;
        }
    }
    for (int j = 0; j < nall; j++)
        if (all[j].fitted) {
            fit[nfit++] = all[j];
            nlocal += all[j].local;
        }
    res->rms_log_before = rms(g, s, idx, n);
    if (n == 0) {
        why = "no training measurements for this GPU (see the training split in docs/validation.md)";
        goto done;
    }
    if (nfit == 0) {
        why = nonly > 0 ? RIDGE_CAL_WHY_ONLY_UNINFORMED
                        : "no training measurement depends on an efficiency parameter";
        goto done;
    }
    if (n < nlocal) {
        why = RIDGE_CAL_WHY_UNDERDETERMINED;
        goto done;
    }
    gsl_set_error_handler_off();
    ctx.g = g;
    ctx.s = s;
    ctx.idx = idx;
    ctx.n = n;
    ctx.p = fit;
    ctx.np = nfit;
    memset(&fdf, 0, sizeof fdf);
    fdf.f = cal_f;
    fdf.df = NULL; /* forward differences */
    fdf.fvv = NULL;
    fdf.n = (size_t)(n + nfit);
    fdf.p = (size_t)nfit;
    fdf.params = &ctx;
    params.trs = gsl_multifit_nlinear_trs_lm;
    params.h_df = 1e-4; /* the model has tile and wave steps: a step wider than rounding noise */
    w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, (size_t)(n + nfit), (size_t)nfit);
    x0 = gsl_vector_alloc((size_t)nfit);
    if (!w || !x0) {
        why = "out of memory";
        goto done;
    }
    for (int j = 0; j < nfit; j++)
        gsl_vector_set(x0, (size_t)j, to_x(&fit[j], fit[j].initial));
    coarse_start(&ctx, x0);
    {
        gsl_vector *best = gsl_vector_alloc((size_t)nfit), *fv = gsl_vector_alloc((size_t)(n + nfit));
        double best_cost = INFINITY;
        int best_status = GSL_FAILURE, best_info = 0, best_iter = 0;
        unsigned long long seed = 0x9E3779B97F4A7C15ULL;
        if (!best || !fv) {
            gsl_vector_free(best);
            gsl_vector_free(fv);
            why = "out of memory";
            goto done;
        }
        for (int start = 0; start < 1 + CAL_RESTARTS; start++) {
            int st2, inf2 = 0;
            if (start > 0) /* a start drawn over the box: each x uniform in [-3, 3] (logistic) */
                for (int j = 0; j < nfit; j++) {
                    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
                    gsl_vector_set(x0, (size_t)j, -3.0 + 6.0 * (double)(seed % 1000001) / 1000000.0);
                }
            st2 = gsl_multifit_nlinear_init(x0, &fdf, w);
            if (st2 == GSL_SUCCESS)
                st2 = gsl_multifit_nlinear_driver(CAL_MAX_ITER, 1e-8, 1e-8, 1e-10,
                                                  progress && start == 0 ? cal_iter : NULL, &prog, &inf2, w);
            gsl_vector_memcpy(x0, gsl_multifit_nlinear_position(w));
            {
                double c2 = cost(&ctx, x0, fv);
                if (c2 < best_cost) {
                    best_cost = c2;
                    gsl_vector_memcpy(best, x0);
                    best_status = st2;
                    best_info = inf2;
                    best_iter = (int)gsl_multifit_nlinear_niter(w);
                }
            }
        }
        status = best_status;
        info = best_info;
        res->iterations = best_iter;
        gsl_vector_memcpy(x0, best);
        gsl_vector_free(best);
        gsl_vector_free(fv);
    }
    if (progress)
        progress(arg, CAL_MAX_ITER, CAL_MAX_ITER); /* the fit is done, whatever its iterations */
    res->stop = status != GSL_SUCCESS ? gsl_strerror(status)
                : info == 1              ? "small step"
                : info == 2              ? "small gradient"
                                         : "converged";
    {
        const gsl_vector *x = x0;
        for (int j = 0; j < nfit; j++) {
            double xj = gsl_vector_get(x, (size_t)j), v = to_value(&fit[j], xj);
            double u = (log(v) - log(fit[j].lo)) / (log(fit[j].hi) - log(fit[j].lo));
            fit[j].value = v;
            fit[j].at_bound = u < 1e-3 || u > 1 - 1e-3;
            set_param(g, &fit[j], v);
        }
    }
    /* A parameter the training cases only feel far from its fitted value (a launch cost hidden
     * under the GPU time) is not identified: it keeps its value from before. */
    for (int j = 0; j < nfit; j++) {
        int moved = 0;
        double v = fit[j].value, tries[2] = {v * 1.1, v / 1.1};
        for (int i = 0; i < n && !moved; i++)
            moved = first_move(g, &s->v[idx[i]], &fit[j], v, tries, 2) >= 0;
        if (!moved) {
            fit[j].flat = 1;
            fit[j].fitted = 0;
            fit[j].at_bound = 0;
            fit[j].value = fit[j].initial;
            set_param(g, &fit[j], fit[j].initial);
        }
    }
    res->rms_log_after = rms(g, s, idx, n);
    /* Keep the start if the solver made things worse (it cannot, but a failed run might). */
    if (!(res->rms_log_after <= res->rms_log_before)) {
        for (int j = 0; j < nfit; j++) {
            fit[j].value = fit[j].initial;
            set_param(g, &fit[j], fit[j].initial);
        }
        res->rms_log_after = res->rms_log_before;
        res->stop = "no improvement; kept the starting values";
    }
    for (int j = 0, k = 0; j < nall; j++)
        if (all[j].fitted)
            all[j] = fit[k++];
    /* A fraction_by_peak entry that was not fitted must not stay set (sensitivity set it). */
    for (int j = 0; j < nall; j++)
        if (!all[j].fitted && all[j].field < 0)
            g->eff.fraction_by_peak[all[j].peak] = 0;
done:
    res->nparams = nall;
    memcpy(res->p, all, (size_t)nall * sizeof all[0]);
    gsl_multifit_nlinear_free(w);
    gsl_vector_free(x0);
    free(idx);
    return why;
}

/* ---- the error of a fit per group (`ridge calibrate`'s report) ---- */

int ridge_cal_group_errors(const ridge_meas_set *s, const int *train, int want, const double *before,
                           const double *after, const char *gpu, ridge_cal_group *gr, int cap)
{
    int ng = 1;
    memset(gr, 0, sizeof *gr * (size_t)cap);
    snprintf(gr[0].name, sizeof gr[0].name, "all");
    for (int i = 0; i < s->n; i++) {
        int k;
        if (train[i] != want || strcmp(s->v[i].gpu, gpu) != 0 || !(before[i] > 0) || !(after[i] > 0))
            continue;
        for (k = 1; k < ng; k++)
            if (strcmp(gr[k].name, s->v[i].group) == 0)
                break;
        if (k == ng && ng < cap)
            snprintf(gr[ng++].name, sizeof gr[0].name, "%s", s->v[i].group);
        else if (k == ng)
            k = 0;
        for (int t = 0; t < 2; t++) {
            ridge_cal_group *x = t ? &gr[0] : &gr[k];
            if (t && k == 0)
                break;
            x->before += fabs(before[i] / s->v[i].measured - 1);
            x->after += fabs(after[i] / s->v[i].measured - 1);
            x->n++;
        }
    }
    return ng;
}

void ridge_cal_predict_all(const ridge_meas_set *s, const ridge_gpu *g, double *predicted)
{
    for (int i = 0; i < s->n; i++) {
        double p = 0;
        predicted[i] = strcmp(s->v[i].gpu, g->id) == 0 && ridge_meas_predict(&s->v[i], g, &p) == NULL ? p : 0;
    }
}
