/* The dynamic-batching server (docs/serving.md): Poisson arrivals, one server that takes up to B
 * waiting requests and holds a partial batch at most T after its oldest arrival; a batch of b
 * takes s(b). Its latency has no reasonable closed form (the batch size depends on the queue, the
 * timeout and the service time together), so it is analysed by simulation only; stability is
 * exact: the server can clear at most B / s(B) requests per second.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <string.h>

#include "ridge/queue.h"

int ridge_queue_batch(const ridge_batch_params *p, ridge_queue_result *r, ridge_des_result *sim, ridge_err *err)
{
    ridge_des_config c;
    int st;
    memset(r, 0, sizeof *r);
    memset(sim, 0, sizeof *sim);
    if (!p || p->max_batch < 1 || !p->batch_service_s)
        return ridge_err_set(err, RIDGE_EINVAL, "batching: need a maximum batch >= 1 and its service times");
    if (!(p->rate_per_s > 0) || !isfinite(p->rate_per_s))
        return ridge_err_set(err, RIDGE_EINVAL, "batching: arrival rate %g is not > 0", p->rate_per_s);
    for (int b = 1; b <= p->max_batch; b++) {
        double s = p->batch_service_s[b - 1];
        if (!(s > 0) || !isfinite(s))
            return ridge_err_set(err, RIDGE_EINVAL, "batching: service time of a batch of %d (%g s) is not > 0", b, s);
    }
    /* Under overload every batch is full, so B / s(B) is the saturation rate (a smaller batch
     * with a higher b / s(b) would be chosen only by a different policy). */
    r->saturation_rate_per_s = p->max_batch / p->batch_service_s[p->max_batch - 1];
    r->utilisation = p->rate_per_s / r->saturation_rate_per_s;
    if (r->utilisation >= 1) {
        r->throughput_per_s = r->saturation_rate_per_s;
        return RIDGE_OK;
    }
    ridge_des_config_init(&c);
    c.rate_per_s = p->rate_per_s;
    c.max_batch = p->max_batch;
    c.batch_timeout_s = p->batch_timeout_s;
    c.batch_service_s = p->batch_service_s;
    if (p->customers)
        c.customers = p->customers;
    if (c.warmup > c.customers / 10)
        c.warmup = c.customers / 10;
    c.seed = p->seed;
    st = ridge_des_run(&c, sim, err);
    if (st != RIDGE_OK)
        return st;
    r->stable = 1;
    r->throughput_per_s = p->rate_per_s;
    r->utilisation = sim->utilisation;
    r->mean_wait_s = sim->mean_wait_s;
    r->mean_latency_s = sim->mean_latency_s;
    r->p50_s = sim->p50_s;
    r->p90_s = sim->p90_s;
    r->p99_s = sim->p99_s;
    return RIDGE_OK;
}

/* The arrivals split evenly over the servers: one batching server at rate / servers, its
 * saturation and throughput times the servers. */
static int batch_eval(const ridge_queue_system *sys, ridge_queue_result *r, ridge_err *err)
{
    ridge_batch_params bp = {0};
    ridge_des_result sim;
    int st;
    if (sys->servers < 1)
        return ridge_err_set(err, RIDGE_EINVAL, "batching: %d servers (need >= 1)", sys->servers);
    bp.rate_per_s = sys->rate_per_s / sys->servers;
    bp.max_batch = sys->max_batch;
    bp.batch_timeout_s = sys->batch_timeout_s;
    bp.batch_service_s = sys->service_s;
    bp.customers = sys->customers;
    bp.seed = sys->seed;
    st = ridge_queue_batch(&bp, r, &sim, err);
    r->saturation_rate_per_s *= sys->servers;
    r->throughput_per_s *= sys->servers;
    return st;
}

static const ridge_queue_type batch_type = {"batch", batch_eval};
const ridge_queue_type *const ridge_queue_type_batch = &batch_type;
