/* M/M/c by Erlang C; M/G/c by the Allen–Cunneen approximation (docs/serving.md).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <string.h>

#include "queue_internal.h"

/* Erlang B by its recursion B(k) = a B(k-1) / (k + a B(k-1)), B(0) = 1 (no factorials, no
 * overflow), then C = B / (1 - rho (1 - B)) with rho = a / c. */
int ridge_queue_erlang_c(int servers, double load_erlangs, double *p_wait, ridge_err *err)
{
    double b = 1, rho;
    *p_wait = 0;
    if (servers < 1)
        return ridge_err_set(err, RIDGE_EINVAL, "queue: Erlang C: %d servers (need >= 1)", servers);
    if (!isfinite(load_erlangs) || load_erlangs < 0)
        return ridge_err_set(err, RIDGE_EINVAL, "queue: Erlang C: load %g is not >= 0", load_erlangs);
    rho = load_erlangs / servers;
    if (rho >= 1) {
        *p_wait = 1;
        return RIDGE_OK;
    }
    for (int k = 1; k <= servers; k++)
        b = load_erlangs * b / (k + load_erlangs * b);
    *p_wait = b / (1 - rho * (1 - b));
    return RIDGE_OK;
}

int ridge_queue_mgc(const ridge_queue_params *p, ridge_queue_result *r, ridge_err *err)
{
    double s, lam, a, c, cw;
    int st;
    memset(r, 0, sizeof *r);
    st = ridge_queue_check_params_(p, err);
    if (st != RIDGE_OK)
        return st;
    if (p->servers == 1)
        return ridge_queue_mg1(p, r, err);
    s = p->mean_service_s;
    lam = p->rate_per_s;
    c = p->servers;
    a = lam * s;
    r->utilisation = a / c;
    r->saturation_rate_per_s = c / s;
    if (a >= c) {
        r->throughput_per_s = r->saturation_rate_per_s;
        return RIDGE_OK;
    }
    r->stable = 1;
    r->throughput_per_s = lam;
    st = ridge_queue_erlang_c(p->servers, a, &cw, err);
    if (st != RIDGE_OK)
        return st;
    r->p_wait = cw;
    /* M/M/c: W | W > 0 is exponential with rate c mu - lambda; Allen–Cunneen scales the mean by
     * (C_a^2 + C_s^2) / 2 with C_a^2 = 1 for Poisson arrivals, keeping the tail mass C. */
    r->mean_wait_s = cw / (c / s - lam) * (1 + p->service_cs2) / 2;
    r->wait_tail_rate_per_s = r->mean_wait_s > 0 ? cw / r->mean_wait_s : 0;
    r->mean_latency_s = r->mean_wait_s + s;
    return ridge_queue_fill_percentiles_(r, s, p->service_cs2, err);
}

static int mgc_eval(const ridge_queue_system *sys, ridge_queue_result *r, ridge_err *err)
{
    return ridge_queue_closed_form_eval_(sys, ridge_queue_mgc, r, err);
}

static const ridge_queue_type mgc_type = {"mgc", mgc_eval};
const ridge_queue_type *const ridge_queue_type_mgc = &mgc_type;
