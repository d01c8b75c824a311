/* ridge — serving plans: replicas of fixed-batch servers for a p99 SLO, and their cost
 * (docs/planning.md, "Serving plans"). SPDX-License-Identifier: GPL-3.0-or-later */
#include "ridge/serve_plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ridge/queue.h"

static int serve_at(double rate_per_s, double service_s, double batch, int c, ridge_plan_serve_result *r,
                    ridge_err *err)
{
    ridge_queue_params q;
    ridge_queue_result qr;
    int st;
    ridge_queue_params_init(&q);
    q.rate_per_s = rate_per_s / batch; /* batches per second */
    q.mean_service_s = service_s;
    q.service_cs2 = 0; /* the model's service time is deterministic: M/D/c */
    q.servers = c;
    st = ridge_queue_mgc(&q, &qr, err);
    if (st != RIDGE_OK)
        return st;
    r->utilisation = qr.utilisation;
    if (!qr.stable) {
        r->p99_s = INFINITY;
        r->mean_latency_s = INFINITY;
        return RIDGE_OK;
    }
    r->p99_s = r->fill_s + qr.p99_s;
    r->mean_latency_s = r->fill_s + qr.mean_latency_s;
    return RIDGE_OK;
}

int ridge_plan_serve(double rate_per_s, double service_s, double batch, double slo_p99_s, int max_replicas,
                     ridge_plan_serve_result *r, ridge_err *err)
{
    double need;
    int lo, st;
    memset(r, 0, sizeof *r);
    if (!(rate_per_s > 0 && isfinite(rate_per_s)) || !(service_s > 0 && isfinite(service_s)) ||
        !(batch >= 1 && isfinite(batch)) || !(slo_p99_s > 0 && isfinite(slo_p99_s)))
        return ridge_err_set(err, RIDGE_EINVAL, "plan serve: rate, service time, batch and SLO must be positive");
    if (max_replicas < 1)
        max_replicas = 1;
    r->fill_s = (batch - 1) / rate_per_s;
    /* Even an idle replica answers no sooner than fill + service: no count can help. */
    if (r->fill_s + service_s > slo_p99_s) {
        r->p99_s = r->fill_s + service_s;
        r->mean_latency_s = r->p99_s;
        return RIDGE_OK;
    }
    /* Fewer replicas than the offered load in Erlangs cannot keep up: start just above it. */
    need = floor(rate_per_s / batch * service_s) + 1;
    if (need > max_replicas) {
        r->p99_s = INFINITY;
        r->mean_latency_s = INFINITY;
        r->utilisation = rate_per_s / batch * service_s / max_replicas;
        return RIDGE_OK;
    }
    /* p99 falls as replicas are added: walk up from the stability bound (a few steps at most). */
    for (lo = (int)need; lo <= max_replicas; lo++) {
        if ((st = serve_at(rate_per_s, service_s, batch, lo, r, err)) != RIDGE_OK)
            return st;
        if (r->p99_s <= slo_p99_s) {
            r->replicas = lo;
            return RIDGE_OK;
        }
    }
    return RIDGE_OK;
}

size_t ridge_serve_plan_size(const ridge_plan *p)
{
    const ridge_plan_spec *sp = ridge_plan_get_spec(p);
    return sp->ngpus * sp->nprecisions * sp->nbatches;
}

/* Cost per hour, then p99, then the candidate order (GPU, precision, batch): a total order, so
 * the ranking does not depend on qsort being stable (glibc's is; the C standard's need not be). */
static int row_cmp(const void *a, const void *b)
{
    const ridge_serve_plan_row *x = a, *y = b;
    if (x->cost_usd_per_hour != y->cost_usd_per_hour)
        return x->cost_usd_per_hour < y->cost_usd_per_hour ? -1 : 1;
    if (x->serve.p99_s != y->serve.p99_s)
        return x->serve.p99_s < y->serve.p99_s ? -1 : 1;
    if (x->gpu != y->gpu)
        return x->gpu < y->gpu ? -1 : 1;
    if (x->precision != y->precision)
        return x->precision < y->precision ? -1 : 1;
    return (x->batch > y->batch) - (x->batch < y->batch);
}

/* One candidate: its memoised step, then the replicas for the SLO, then the price. */
static int eval_row(const ridge_plan *p, size_t g, size_t pr, size_t bi, double rate_per_s, double slo_p99_s,
                    ridge_serve_plan_row *r, ridge_err *err)
{
    const ridge_plan_spec *sp = ridge_plan_get_spec(p);
    double price = sp->price_usd_per_hour[g];
    ridge_plan_step_info s;
    int st;
    memset(r, 0, sizeof *r);
    r->gpu = g;
    r->precision = pr;
    r->batch = bi;
    if ((st = ridge_plan_step(p, g, pr, bi, &s, err)) != RIDGE_OK)
        return st;
    r->reason = s.reason;
    r->service_s = s.step_s;
    if (r->reason != RIDGE_PLAN_FEASIBLE)
        return RIDGE_OK;
    st = ridge_plan_serve(rate_per_s, s.step_s, sp->batches[bi], slo_p99_s, RIDGE_PLAN_MAX_REPLICAS, &r->serve, err);
    if (st != RIDGE_OK)
        return st;
    if (!r->serve.replicas)
        r->reason = RIDGE_PLAN_SLO;
    else if (!(price > 0))
        r->reason = RIDGE_PLAN_NO_PRICE;
    else {
        r->cost_usd_per_hour = r->serve.replicas * price;
        r->cost_usd_per_1000_requests = r->cost_usd_per_hour / 3600.0 / rate_per_s * 1000.0;
    }
    return RIDGE_OK;
}

int ridge_serve_plan_eval(const ridge_plan *p, double rate_per_s, double slo_p99_s, ridge_serve_plan_row *rows,
                          size_t *nfeasible, ridge_err *err)
{
    const ridge_plan_spec *sp = ridge_plan_get_spec(p);
    size_t n = 0, nf = 0;
    int st;
    *nfeasible = 0;
    if (sp->run.mode != RIDGE_MODE_INFER)
        return ridge_err_set(err, RIDGE_EINVAL, "serve plan: run.mode must be \"infer\"");
    if (!(rate_per_s > 0 && isfinite(rate_per_s)) || !(slo_p99_s > 0 && isfinite(slo_p99_s)))
        return ridge_err_set(err, RIDGE_EINVAL, "serve plan: rate_per_s and slo_p99_s must be positive and finite");
    for (size_t g = 0; g < sp->ngpus; g++)
        for (size_t pr = 0; pr < sp->nprecisions; pr++)
            for (size_t bi = 0; bi < sp->nbatches; bi++) {
                if ((st = eval_row(p, g, pr, bi, rate_per_s, slo_p99_s, &rows[n], err)) != RIDGE_OK)
                    return st;
                if (rows[n++].reason == RIDGE_PLAN_FEASIBLE)
                    nf++;
            }
    /* Feasible first (a stable sort is not needed: the key ends in the candidate order). */
    for (size_t i = 0, k = 0; i < n; i++)
        if (rows[i].reason == RIDGE_PLAN_FEASIBLE) {
            ridge_serve_plan_row t = rows[k];
            rows[k++] = rows[i];
            rows[i] = t;
        }
    qsort(rows, nf, sizeof *rows, row_cmp);
    *nfeasible = nf;
    return RIDGE_OK;
}

const ridge_serve_plan_row *ridge_serve_plan_cheapest(const ridge_serve_plan_row *rows, size_t nfeasible,
                                                      size_t gpu)
{
    for (size_t k = 0; k < nfeasible; k++)
        if (rows[k].gpu == gpu) /* ranked: the first is the cheapest */
            return &rows[k];
    return NULL;
}
