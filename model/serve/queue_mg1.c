/* M/G/1 by Pollaczek–Khinchine and Takacs; latency percentiles; the rate root finder
 * (docs/serving.md). SPDX-License-Identifier: GPL-3.0-or-later */
#include <float.h>
#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include "queue_internal.h"

/* GSL's default error handler aborts: every GSL call here is fed finite values and bracketed
 * roots only, and its status is checked. */

void ridge_queue_params_init(ridge_queue_params *p)
{
    memset(p, 0, sizeof *p);
    p->service_cs2 = 1;
    p->servers = 1;
}

int ridge_queue_check_params_(const ridge_queue_params *p, ridge_err *err)
{
    if (!p)
        return ridge_err_set(err, RIDGE_EINVAL, "queue: no parameters");
    if (!isfinite(p->rate_per_s) || p->rate_per_s < 0)
        return ridge_err_set(err, RIDGE_EINVAL, "queue: arrival rate %g is not a finite rate >= 0", p->rate_per_s);
    if (!isfinite(p->mean_service_s) || p->mean_service_s <= 0)
        return ridge_err_set(err, RIDGE_EINVAL, "queue: mean service time %g is not > 0", p->mean_service_s);
    if (!isfinite(p->service_cs2) || p->service_cs2 < 0)
        return ridge_err_set(err, RIDGE_EINVAL, "queue: service cs2 %g is not >= 0", p->service_cs2);
    if (!isfinite(p->service_m3_s3) || p->service_m3_s3 < 0)
        return ridge_err_set(err, RIDGE_EINVAL, "queue: service E[S^3] %g is not >= 0", p->service_m3_s3);
    if (p->servers < 1)
        return ridge_err_set(err, RIDGE_EINVAL, "queue: %d servers (need >= 1)", p->servers);
    return RIDGE_OK;
}

/* ---- latency distribution: T = W + S ---- */

typedef struct {
    double pw, theta, s, cs2, tail; /* tail = 1 - q */
} latency_ctx;

/* P(T > t) = P(S > t) + pw * integral_0^t f_S(x) exp(-theta (t - x)) dx. For gamma S (shape k,
 * scale b) with theta b < 1 the integral is exp(-theta t) (1 - theta b)^-k P_gamma(t; k, b/(1 - theta b)). */
static double latency_survival(double t, const latency_ctx *c)
{
    double k, b, tb, pg, v;
    if (t <= 0)
        return 1;
    if (c->cs2 == 0)
        return t < c->s ? 1 : c->pw * exp(-c->theta * (t - c->s));
    k = 1 / c->cs2;
    b = c->s * c->cs2;
    v = gsl_cdf_gamma_Q(t, k, b);
    if (c->pw <= 0 || c->theta <= 0)
        return v;
    tb = c->theta * b;
    pg = gsl_cdf_gamma_P(t, k, b / (1 - tb));
    if (pg > 0)
        v += c->pw * exp(-c->theta * t - k * log1p(-tb) + log(pg));
    return v > 1 ? 1 : v;
}

static double latency_root(double t, void *ctx)
{
    const latency_ctx *c = ctx;
    return latency_survival(t, c) - c->tail;
}

int ridge_queue_latency_quantile(double p_wait, double theta_per_s, double mean_service_s, double cs2, double q,
                                 double *t_s, ridge_err *err)
{
    latency_ctx c;
    gsl_function F;
    gsl_root_fsolver *sv;
    double lo = 0, hi, t = 0;
    int st = GSL_CONTINUE, it;
    *t_s = 0;
    if (!(q > 0 && q < 1) || !(p_wait >= 0 && p_wait <= 1) || !(theta_per_s >= 0) || !isfinite(theta_per_s) ||
        !(mean_service_s > 0) || !isfinite(mean_service_s) || !(cs2 >= 0) || !isfinite(cs2))
        return ridge_err_set(err, RIDGE_EINVAL, "queue: latency quantile: bad arguments (q %g, P(wait) %g, theta %g, "
                                                "E[S] %g, cs2 %g)", q, p_wait, theta_per_s, mean_service_s, cs2);
    if (theta_per_s <= 0)
        p_wait = 0;
    if (cs2 == 0) { /* closed form: T = s + W */
        *t_s = mean_service_s + (1 - q < p_wait ? log(p_wait / (1 - q)) / theta_per_s : 0);
        return RIDGE_OK;
    }
    if (cs2 > 0 && theta_per_s * mean_service_s * cs2 >= 1)
        theta_per_s = (1 - 1e-9) / (mean_service_s * cs2); /* docs/serving.md: the cap for very variable S */
    c = (latency_ctx){p_wait, theta_per_s, mean_service_s, cs2, 1 - q};
    hi = mean_service_s;
    for (it = 0; latency_root(hi, &c) > 0; it++) {
        if (it > 200)
            return ridge_err_set(err, RIDGE_EINVAL, "queue: latency quantile %g not bracketed", q);
        lo = hi;
        hi *= 2;
    }
    if (latency_root(hi, &c) == 0 || hi == lo) {
        *t_s = hi;
        return RIDGE_OK;
    }
    F.function = latency_root;
    F.params = &c;
    sv = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!sv)
        return ridge_err_set(err, RIDGE_ENOMEM, "queue: out of memory");
    if (gsl_root_fsolver_set(sv, &F, lo, hi) != GSL_SUCCESS) {
        gsl_root_fsolver_free(sv);
        return ridge_err_set(err, RIDGE_EINVAL, "queue: latency quantile %g: root solver failed", q);
    }
    for (it = 0; it < 200 && st == GSL_CONTINUE; it++) {
        if (gsl_root_fsolver_iterate(sv) != GSL_SUCCESS)
            break;
        t = gsl_root_fsolver_root(sv);
        st = gsl_root_test_interval(gsl_root_fsolver_x_lower(sv), gsl_root_fsolver_x_upper(sv), 0, 1e-12);
    }
    gsl_root_fsolver_free(sv);
    if (st != GSL_SUCCESS)
        return ridge_err_set(err, RIDGE_EINVAL, "queue: latency quantile %g did not converge", q);
    *t_s = t;
    return RIDGE_OK;
}

/* Percentiles of a stable result from p_wait, the tail rate and S. */
int ridge_queue_fill_percentiles_(ridge_queue_result *r, double s, double cs2, ridge_err *err)
{
    static const double qs[3] = {0.50, 0.90, 0.99};
    double *out[3] = {&r->p50_s, &r->p90_s, &r->p99_s};
    for (int i = 0; i < 3; i++) {
        int st = ridge_queue_latency_quantile(r->p_wait, r->wait_tail_rate_per_s, s, cs2, qs[i], out[i], err);
        if (st != RIDGE_OK)
            return st;
    }
    return RIDGE_OK;
}

int ridge_queue_mg1(const ridge_queue_params *p, ridge_queue_result *r, ridge_err *err)
{
    double s, lam, rho, m2, m3;
    int st;
    memset(r, 0, sizeof *r);
    st = ridge_queue_check_params_(p, err);
    if (st != RIDGE_OK)
        return st;
    if (p->servers != 1)
        return ridge_err_set(err, RIDGE_EINVAL, "queue: M/G/1 needs one server, not %d", p->servers);
    s = p->mean_service_s;
    lam = p->rate_per_s;
    rho = lam * s;
    r->utilisation = rho;
    r->saturation_rate_per_s = 1 / s;
    if (rho >= 1) {
        r->throughput_per_s = r->saturation_rate_per_s;
        return RIDGE_OK; /* unstable: flag and saturation rate, latencies 0 */
    }
    r->stable = 1;
    r->throughput_per_s = lam;
    m2 = s * s * (1 + p->service_cs2);
    m3 = p->service_m3_s3 > 0 ? p->service_m3_s3 : s * s * s * (1 + p->service_cs2) * (1 + 2 * p->service_cs2);
    r->p_wait = rho;
    r->mean_wait_s = lam * m2 / (2 * (1 - rho));                           /* Pollaczek–Khinchine */
    r->wait_m2_s2 = 2 * r->mean_wait_s * r->mean_wait_s + lam * m3 / (3 * (1 - rho)); /* Takacs */
    r->wait_tail_rate_per_s = r->mean_wait_s > 0 ? rho / r->mean_wait_s : 0;
    r->mean_latency_s = r->mean_wait_s + s;
    return ridge_queue_fill_percentiles_(r, s, p->service_cs2, err);
}

int ridge_queue_closed_form_eval_(const ridge_queue_system *sys, ridge_queue_closed_form_fn_ f, ridge_queue_result *r,
                                  ridge_err *err)
{
    ridge_queue_params p;
    ridge_queue_params_init(&p);
    p.rate_per_s = sys->rate_per_s;
    p.mean_service_s = sys->service_s ? sys->service_s[0] : 0;
    p.service_cs2 = sys->service_cs2;
    p.servers = sys->servers;
    return f(&p, r, err);
}

static int mg1_eval(const ridge_queue_system *sys, ridge_queue_result *r, ridge_err *err)
{
    return ridge_queue_closed_form_eval_(sys, ridge_queue_mg1, r, err);
}

static const ridge_queue_type mg1_type = {"mg1", mg1_eval};
const ridge_queue_type *const ridge_queue_type_mg1 = &mg1_type;

/* ---- the largest rate meeting a target ---- */

typedef struct {
    ridge_queue_rate_fn f;
    void *ctx;
    double target, tie;
    int failed;
} rate_ctx;

static double rate_root(double rate, void *ctx)
{
    rate_ctx *c = ctx;
    double v = 0;
    if (c->f(rate, c->ctx, &v) != 0 || !isfinite(v)) {
        c->failed = 1;
        return 1; /* finite, so GSL's solver does not raise */
    }
    /* A rate that meets the target exactly is on the meeting side, below zero: a p99 flat at the
     * service time over a range of rates (few waits) equals an SLO set to it, and with zero there
     * Brent's method took the range's lowest rate for the root. */
    v -= c->target;
    return v > 0 ? v : v - c->tie;
}

int ridge_queue_max_rate(ridge_queue_rate_fn f, void *ctx, double hi_rate_per_s, double target, double *rate_out,
                         ridge_err *err)
{
    rate_ctx c = {f, ctx, target, fmax(1e-9 * fabs(target), DBL_MIN), 0};
    gsl_function F = {rate_root, &c};
    gsl_root_fsolver *sv;
    double lo = hi_rate_per_s * 1e-6, hi = hi_rate_per_s * (1 - 1e-6), glo, ghi, x = 0;
    int st = GSL_CONTINUE;
    *rate_out = 0;
    if (!f || !(hi_rate_per_s > 0) || !isfinite(hi_rate_per_s) || !isfinite(target))
        return ridge_err_set(err, RIDGE_EINVAL, "queue: max rate: bad arguments");
    glo = rate_root(lo, &c);
    if (c.failed)
        return ridge_err_set(err, RIDGE_EINVAL, "queue: max rate: evaluation failed at %g/s", lo);
    if (glo > 0)
        return RIDGE_OK; /* even a tiny rate misses the target */
    ghi = rate_root(hi, &c);
    if (c.failed)
        return ridge_err_set(err, RIDGE_EINVAL, "queue: max rate: evaluation failed at %g/s", hi);
    if (ghi <= 0) {
        *rate_out = hi;
        return RIDGE_OK;
    }
    sv = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!sv)
        return ridge_err_set(err, RIDGE_ENOMEM, "queue: out of memory");
    if (gsl_root_fsolver_set(sv, &F, lo, hi) != GSL_SUCCESS || c.failed) {
        gsl_root_fsolver_free(sv);
        return ridge_err_set(err, RIDGE_EINVAL, "queue: max rate: root solver failed");
    }
    for (int it = 0; it < 100 && st == GSL_CONTINUE; it++) {
        if (gsl_root_fsolver_iterate(sv) != GSL_SUCCESS || c.failed)
            break;
        x = gsl_root_fsolver_x_lower(sv); /* the side that meets the target */
        st = gsl_root_test_interval(gsl_root_fsolver_x_lower(sv), gsl_root_fsolver_x_upper(sv), 0, 1e-6);
    }
    gsl_root_fsolver_free(sv);
    if (c.failed)
        return ridge_err_set(err, RIDGE_EINVAL, "queue: max rate: evaluation failed");
    if (st != GSL_SUCCESS)
        return ridge_err_set(err, RIDGE_EINVAL, "queue: max rate did not converge");
    *rate_out = x;
    return RIDGE_OK;
}
