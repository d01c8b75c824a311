/* Discrete-event simulation of FIFO c-server queues and of the dynamic-batching server
 * (docs/serving.md). SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Requests are served in arrival order, so no event list is needed: a FIFO c-server queue
 * starts each request on the server that frees first (Lindley's recursion generalised to c
 * servers), and the batching server dispatches when its batch is full, when the oldest waiting
 * request has waited the timeout, or when it frees after either. Seeded gsl_rng (MT19937):
 * the same configuration and seed give identical results. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "ridge/queue.h"

#define DES_MAX_CUSTOMERS 100000000u

void ridge_des_config_init(ridge_des_config *c)
{
    memset(c, 0, sizeof *c);
    c->arrival = RIDGE_ARRIVAL_POISSON;
    c->service = RIDGE_SERVICE_EXPONENTIAL;
    c->servers = 1;
    c->customers = 200000;
    c->warmup = 10000;
    c->ci_batches = 20;
    c->seed = 1;
}

static int check_config(const ridge_des_config *c, size_t *total, ridge_err *err)
{
    if (c->ci_batches < 2)
        return ridge_err_set(err, RIDGE_EINVAL, "des: %zu confidence batches (need >= 2)", c->ci_batches);
    if (c->customers < c->ci_batches || c->customers > DES_MAX_CUSTOMERS || c->warmup > DES_MAX_CUSTOMERS)
        return ridge_err_set(err, RIDGE_EINVAL, "des: %zu customers (need %zu to %u)", c->customers, c->ci_batches,
                             DES_MAX_CUSTOMERS);
    if (c->servers < 1)
        return ridge_err_set(err, RIDGE_EINVAL, "des: %d servers (need >= 1)", c->servers);
    switch (c->arrival) {
    case RIDGE_ARRIVAL_POISSON:
    case RIDGE_ARRIVAL_CONSTANT:
        if (!(c->rate_per_s > 0) || !isfinite(c->rate_per_s))
            return ridge_err_set(err, RIDGE_EINVAL, "des: arrival rate %g is not > 0", c->rate_per_s);
        *total = c->warmup + c->customers;
        break;
    case RIDGE_ARRIVAL_TRACE:
        if (!c->trace_s || c->trace_n <= c->warmup + c->ci_batches)
            return ridge_err_set(err, RIDGE_EINVAL, "des: the trace has %zu arrivals; it needs more than the warm-up "
                                                    "(%zu) plus %zu", c->trace_n, c->warmup, c->ci_batches);
        for (size_t i = 0; i < c->trace_n; i++)
            if (!isfinite(c->trace_s[i]) || c->trace_s[i] < 0 || (i && c->trace_s[i] < c->trace_s[i - 1]))
                return ridge_err_set(err, RIDGE_EINVAL, "des: trace arrival %zu (%g s) is negative, not finite or "
                                                        "earlier than the one before", i, c->trace_s[i]);
        *total = c->trace_n < c->warmup + c->customers ? c->trace_n : c->warmup + c->customers;
        break;
    default: return ridge_err_set(err, RIDGE_EINVAL, "des: unknown arrival process %d", (int)c->arrival);
    }
    if (c->max_batch >= 1) {
        if (c->servers != 1)
            return ridge_err_set(err, RIDGE_EINVAL, "des: the batching server has one server, not %d", c->servers);
        if (!(c->batch_timeout_s >= 0) || !isfinite(c->batch_timeout_s))
            return ridge_err_set(err, RIDGE_EINVAL, "des: batch timeout %g s is not >= 0", c->batch_timeout_s);
        if (!c->batch_service_s)
            return ridge_err_set(err, RIDGE_EINVAL, "des: no batch service-time table");
        for (int b = 0; b < c->max_batch; b++)
            if (!(c->batch_service_s[b] > 0) || !isfinite(c->batch_service_s[b]))
                return ridge_err_set(err, RIDGE_EINVAL, "des: service time of a batch of %d (%g s) is not > 0", b + 1,
                                     c->batch_service_s[b]);
        return RIDGE_OK;
    }
    switch (c->service) {
    case RIDGE_SERVICE_DETERMINISTIC:
    case RIDGE_SERVICE_EXPONENTIAL:
        if (!(c->mean_service_s > 0) || !isfinite(c->mean_service_s))
            return ridge_err_set(err, RIDGE_EINVAL, "des: mean service time %g s is not > 0", c->mean_service_s);
        break;
    case RIDGE_SERVICE_EMPIRICAL:
        if (!c->table_s || c->table_n == 0)
            return ridge_err_set(err, RIDGE_EINVAL, "des: empty service-time table");
        for (size_t i = 0; i < c->table_n; i++)
            if (!(c->table_s[i] >= 0) || !isfinite(c->table_s[i]))
                return ridge_err_set(err, RIDGE_EINVAL, "des: service table entry %zu (%g s) is not >= 0", i,
                                     c->table_s[i]);
        break;
    default: return ridge_err_set(err, RIDGE_EINVAL, "des: unknown service law %d", (int)c->service);
    }
    return RIDGE_OK;
}

static double sample_service(const ridge_des_config *c, gsl_rng *rng)
{
    switch (c->service) {
    case RIDGE_SERVICE_DETERMINISTIC: return c->mean_service_s;
    case RIDGE_SERVICE_EXPONENTIAL: return gsl_ran_exponential(rng, c->mean_service_s);
    default: return c->table_s[gsl_rng_uniform_int(rng, (unsigned long)c->table_n)];
    }
}

/* The relaxation time in arrivals and whether the batches of the interval are shorter than
 * RIDGE_DES_MIN_RELAXATIONS of it (ridge_des_result). rho is the offered load where the rate and
 * the service law give it (a backlog at the end of a run near rho = 1 inflates the measured
 * utilisation), else the measured one (traces, batching). A trace's gaps count as Poisson's. */
static void relaxation(const ridge_des_config *c, ridge_des_result *r)
{
    double rho = r->utilisation, ca2 = c->arrival == RIDGE_ARRIVAL_CONSTANT ? 0 : 1, cs2 = 0, gap;
    if (c->max_batch < 1) {
        double m = c->mean_service_s;
        if (c->service == RIDGE_SERVICE_EXPONENTIAL)
            cs2 = 1;
        else if (c->service == RIDGE_SERVICE_EMPIRICAL) {
            m = gsl_stats_mean(c->table_s, 1, c->table_n);
            /* Equally likely values: the population variance (divided by n, not n - 1). */
            cs2 = m > 0 ? gsl_stats_variance_with_fixed_mean(c->table_s, 1, c->table_n, m) / (m * m) : 0;
        }
        if (c->arrival != RIDGE_ARRIVAL_TRACE)
            rho = c->rate_per_s * m / c->servers;
    }
    if (!(rho < 1)) {
        r->short_run = 1;
        return;
    }
    gap = 1 - sqrt(rho);
    r->relaxation_customers = rho * (ca2 + cs2) / (2 * gap * gap);
    r->short_run = (double)r->customers / (double)c->ci_batches < RIDGE_DES_MIN_RELAXATIONS * r->relaxation_customers;
}

/* Times are kept from a recent origin, not from time 0: at a low rate the arrivals reach 1e13 s,
 * where a double's step is milliseconds, and a latency taken as the difference of two such times
 * would round to it. The origin moves to an arrival that finds the system empty (the start of a
 * busy period), so each time is a sum of the gaps since then and stays as small as the period. */

/* FIFO c servers: each request starts on the earliest-free server. gap[i]: arrival i - arrival
 * i - 1 (gap[0], arrival 0). */
static void run_fifo(const ridge_des_config *c, const double *abs_arr, const double *gap, size_t total, gsl_rng *rng,
                     double *free_at, double *lat, double *wait, double *busy, double *end_max)
{
    double a = 0, origin = 0;
    for (size_t i = 0; i < total; i++) {
        int j = 0, idle;
        double s, start;
        a += gap[i];
        idle = free_at[0] <= a;
        /* the earliest-free server, and whether every server is free at the arrival */
        for (int k = 1; k < c->servers; k++) {
            idle &= free_at[k] <= a;
            if (free_at[k] < free_at[j])
                j = k;
        }
        if (idle) { /* a new busy period: times from this arrival (every server free at 0) */
            for (int k = 0; k < c->servers; k++)
                free_at[k] = 0;
            a = 0;
            j = 0;
            origin = abs_arr[i];
        }
        s = sample_service(c, rng);
        start = a > free_at[j] ? a : free_at[j];
        free_at[j] = start + s;
        if (i >= c->warmup) {
            lat[i - c->warmup] = start + s - a;
            wait[i - c->warmup] = start - a;
            *busy += s;
            if (origin + start + s > *end_max)
                *end_max = origin + start + s;
        }
    }
}

/* One batching server: a batch starting at request i dispatches at
 * d = max(free, min(a_i + timeout, a_{i+B-1})) with the requests arrived by d (at most B).
 * rel[j] (base <= j < *known) is arrival j from the origin, arrival `base`, the first of the busy
 * period; rel_at extends it to j. */
static double rel_at(const double *gap, double *rel, size_t base, size_t *known, size_t j)
{
    for (; *known <= j; (*known)++)
        rel[*known] = *known > base ? rel[*known - 1] + gap[*known] : 0;
    return rel[j];
}

static void run_batching(const ridge_des_config *c, const double *abs_arr, const double *gap, double *rel,
                         size_t total, double *lat, double *wait, double *busy, double *end_max, double *nbatches)
{
    double free_at = 0, origin = 0;
    size_t i = 0, bmax = (size_t)c->max_batch, known = 0, base = 0;
    while (i < total) {
        double d, s;
        size_t b = 0;
        if (free_at <= rel_at(gap, rel, base, &known, i)) { /* idle: a new busy period from arrival i */
            base = known = i; /* the arrivals looked ahead at are taken again from this origin */
            free_at = 0;
            origin = abs_arr[i];
        }
        d = rel_at(gap, rel, base, &known, i) + c->batch_timeout_s;
        if (i + bmax - 1 < total && rel_at(gap, rel, base, &known, i + bmax - 1) < d)
            d = rel[i + bmax - 1];
        if (d < free_at)
            d = free_at;
        while (b < bmax && i + b < total && rel_at(gap, rel, base, &known, i + b) <= d)
            b++;
        s = c->batch_service_s[b - 1];
        free_at = d + s;
        for (size_t j = i; j < i + b; j++)
            if (j >= c->warmup) {
                lat[j - c->warmup] = d + s - rel[j];
                wait[j - c->warmup] = d - rel[j];
            }
        if (i >= c->warmup) {
            *busy += s;
            *nbatches += 1;
            if (origin + d + s > *end_max)
                *end_max = origin + d + s;
        }
        i += b;
    }
}

int ridge_des_run(const ridge_des_config *c, ridge_des_result *r, ridge_err *err)
{
    size_t total = 0, n, k, per;
    double *arr = NULL, *gap = NULL, *rel = NULL, *lat = NULL, *wait = NULL, *free_at = NULL, *bm = NULL;
    double busy = 0, end_max = 0, nbatches = 0, t = 0, span, sd;
    gsl_rng *rng = NULL;
    int st;
    memset(r, 0, sizeof *r);
    if (!c)
        return ridge_err_set(err, RIDGE_EINVAL, "des: no configuration");
    st = check_config(c, &total, err);
    if (st != RIDGE_OK)
        return st;
    n = total - c->warmup;
    k = c->ci_batches;
    arr = malloc(total * sizeof *arr);
    gap = malloc(total * sizeof *gap);
    rel = c->max_batch >= 1 ? malloc(total * sizeof *rel) : NULL;
    lat = malloc(n * sizeof *lat);
    wait = malloc(n * sizeof *wait);
    free_at = calloc((size_t)c->servers, sizeof *free_at);
    bm = malloc(k * sizeof *bm);
    rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!arr || !gap || (c->max_batch >= 1 && !rel) || !lat || !wait || !free_at || !bm || !rng) {
        st = ridge_err_set(err, RIDGE_ENOMEM, "des: out of memory for %zu customers", total);
        goto done;
    }
    gsl_rng_set(rng, c->seed);
    for (size_t i = 0; i < total; i++) {
        /* The gaps as drawn (or given): a difference of two absolute times would round. */
        if (c->arrival == RIDGE_ARRIVAL_TRACE)
            gap[i] = c->trace_s[i] - (i ? c->trace_s[i - 1] : 0);
        else if (c->arrival == RIDGE_ARRIVAL_CONSTANT)
            gap[i] = 1 / c->rate_per_s;
        else
            gap[i] = gsl_ran_exponential(rng, 1 / c->rate_per_s);
        t = c->arrival == RIDGE_ARRIVAL_TRACE ? c->trace_s[i] : t + gap[i];
        arr[i] = t;
    }
    if (c->max_batch >= 1)
        run_batching(c, arr, gap, rel, total, lat, wait, &busy, &end_max, &nbatches);
    else
        run_fifo(c, arr, gap, total, rng, free_at, lat, wait, &busy, &end_max);

    r->customers = n;
    r->mean_latency_s = gsl_stats_mean(lat, 1, n);
    r->mean_wait_s = gsl_stats_mean(wait, 1, n);
    /* Batch means over consecutive requests (the latencies are correlated; the means of long
     * batches nearly are not); Student's t with k - 1 degrees of freedom. */
    per = n / k;
    for (size_t b = 0; b < k; b++)
        bm[b] = gsl_stats_mean(lat + b * per, 1, per);
    sd = gsl_stats_sd(bm, 1, k);
    r->ci95_half_width_s = gsl_cdf_tdist_Pinv(0.975, (double)(k - 1)) * sd / sqrt((double)k);
    gsl_sort(lat, 1, n);
    r->p50_s = gsl_stats_quantile_from_sorted_data(lat, 1, n, 0.50);
    r->p90_s = gsl_stats_quantile_from_sorted_data(lat, 1, n, 0.90);
    r->p99_s = gsl_stats_quantile_from_sorted_data(lat, 1, n, 0.99);
    span = end_max - arr[c->warmup];
    if (span > 0) {
        r->utilisation = busy / (span * c->servers);
        r->throughput_per_s = (double)n / span;
    }
    r->mean_batch = c->max_batch >= 1 && nbatches > 0 ? (double)n / nbatches : 1;
    relaxation(c, r);
    st = RIDGE_OK;
done:
    gsl_rng_free(rng);
    free(bm);
    free(free_at);
    free(wait);
    free(lat);
    free(rel);
    free(gap);
    free(arr);
    return st;
}
