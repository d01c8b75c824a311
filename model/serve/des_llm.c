/* Continuous batching of LLM requests (Orca / vLLM iteration-level scheduling), simulated
 * (docs/serving.md, "LLM serving with continuous batching"). SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Time advances one iteration at a time. Before an iteration the scheduler admits waiting
 * requests in arrival order (head of line: a request that does not fit blocks the ones behind it)
 * while fewer than max_batch run and the KV cache holds the request's whole final context, which
 * is reserved on admission so no request is ever preempted. The iteration prefills the admitted
 * prompts whole (the prefill gives the first output token) and decodes one token for every request
 * admitted before; with a token budget per iteration (max_tokens, vLLM's max_num_batched_tokens,
 * TensorRT-LLM's max_num_tokens) the decodes come first and the prompts are prefilled in chunks
 * that fill the rest (chunked prefill), a prompt's first token after its last chunk. Its duration
 * comes from the caller's cost function.
 * Arrivals drawn from a seeded gsl_rng (MT19937): same configuration, same result; offline, every
 * request is queued at time 0 (a throughput benchmark). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "ridge/queue.h"

#define LLM_MAX_REQUESTS 100000000u
#define LLM_MAX_BATCH 1000000
/* Stable when the number of requests in the system grows over the second half of the arrivals
 * by at most this share of the arrivals in it plus one full batch (a stable system's occupancy
 * changes by far less than that over a long window; a queue growing at rate lambda - mu does not). */
#define LLM_GROWTH_SHARE 0.03

void ridge_llm_config_init(ridge_llm_config *c)
{
    memset(c, 0, sizeof *c);
    c->arrival = RIDGE_ARRIVAL_POISSON;
    c->prompt_tokens = 512;
    c->output_tokens = 128;
    c->max_batch = 256;
    c->requests = 20000;
    c->warmup = 2000;
    c->seed = 1;
}

static int tokens_ok(double v)
{
    return isfinite(v) && v >= 1 && v <= 1e9;
}

static int check_config(const ridge_llm_config *c, size_t *total, ridge_err *err)
{
    if (!c->iter_time)
        return ridge_err_set(err, RIDGE_EINVAL, "llm serving: no iteration cost function");
    if (c->max_batch < 1 || c->max_batch > LLM_MAX_BATCH)
        return ridge_err_set(err, RIDGE_EINVAL, "llm serving: max batch %d (need 1 to %d)", c->max_batch,
                             LLM_MAX_BATCH);
    if (!(c->max_tokens >= 0) || !isfinite(c->max_tokens) || (c->max_tokens > 0 && c->max_tokens < c->max_batch))
        return ridge_err_set(err, RIDGE_EINVAL, "llm serving: %g tokens per iteration (need 0, none, or at least the "
                                                "max batch, %d: every running request decodes)", c->max_tokens,
                             c->max_batch);
    if (c->requests < 1 || c->requests > LLM_MAX_REQUESTS || c->warmup > LLM_MAX_REQUESTS)
        return ridge_err_set(err, RIDGE_EINVAL, "llm serving: %zu requests (need 1 to %u)", c->requests,
                             LLM_MAX_REQUESTS);
    if (!(c->kv_bytes_per_token >= 0) || !isfinite(c->kv_bytes_per_token) ||
        (c->kv_bytes_per_token > 0 && (!(c->kv_capacity_bytes > 0) || !isfinite(c->kv_capacity_bytes))))
        return ridge_err_set(err, RIDGE_EINVAL, "llm serving: KV %g bytes per token, capacity %g bytes (need >= 0, > 0)",
                             c->kv_bytes_per_token, c->kv_capacity_bytes);
    switch (c->arrival) {
    case RIDGE_ARRIVAL_POISSON:
    case RIDGE_ARRIVAL_CONSTANT:
        if (!(c->rate_per_s > 0) || !isfinite(c->rate_per_s))
            return ridge_err_set(err, RIDGE_EINVAL, "llm serving: arrival rate %g is not > 0", c->rate_per_s);
        if (!tokens_ok(c->prompt_tokens) || !tokens_ok(c->output_tokens))
            return ridge_err_set(err, RIDGE_EINVAL, "llm serving: prompt %g and output %g tokens (need 1 to 1e9)",
                                 c->prompt_tokens, c->output_tokens);
        *total = c->warmup + c->requests;
        break;
    case RIDGE_ARRIVAL_OFFLINE:
        if (c->warmup != 0)
            return ridge_err_set(err, RIDGE_EINVAL, "llm serving: an offline run has no warm-up (%zu requests given)",
                                 c->warmup);
        if (!tokens_ok(c->prompt_tokens) || !tokens_ok(c->output_tokens))
            return ridge_err_set(err, RIDGE_EINVAL, "llm serving: prompt %g and output %g tokens (need 1 to 1e9)",
                                 c->prompt_tokens, c->output_tokens);
        *total = c->requests;
        break;
    case RIDGE_ARRIVAL_TRACE:
        if (!c->trace_s || !c->trace_prompt || !c->trace_output || c->trace_n <= c->warmup)
            return ridge_err_set(err, RIDGE_EINVAL, "llm serving: the trace has %zu requests; it needs more than the "
                                                    "warm-up (%zu)", c->trace_n, c->warmup);
        *total = c->trace_n < c->warmup + c->requests ? c->trace_n : c->warmup + c->requests;
        for (size_t i = 0; i < *total; i++) {
            if (!isfinite(c->trace_s[i]) || c->trace_s[i] < 0 || (i && c->trace_s[i] < c->trace_s[i - 1]))
                return ridge_err_set(err, RIDGE_EINVAL, "llm serving: trace arrival %zu (%g s) is negative, not "
                                                        "finite or earlier than the one before", i, c->trace_s[i]);
            if (!tokens_ok(c->trace_prompt[i]) || !tokens_ok(c->trace_output[i]))
                return ridge_err_set(err, RIDGE_EINVAL, "llm serving: trace request %zu: prompt %g, output %g "
                                                        "tokens (need 1 to 1e9)", i, c->trace_prompt[i],
                                     c->trace_output[i]);
        }
        break;
    default: return ridge_err_set(err, RIDGE_EINVAL, "llm serving: unknown arrival process %d", (int)c->arrival);
    }
    return RIDGE_OK;
}

static void stats_of(double *v, size_t n, ridge_llm_stats *s)
{
    memset(s, 0, sizeof *s);
    if (n == 0)
        return;
    s->mean_s = gsl_stats_mean(v, 1, n);
    gsl_sort(v, 1, n);
    s->p50_s = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.50);
    s->p90_s = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.90);
    s->p99_s = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.99);
}

static int iteration(const ridge_llm_config *c, double dec, double ctx, double preq, double ptok, double *dt,
                     ridge_err *err)
{
    if (c->iter_time(dec, ctx, preq, ptok, c->iter_ctx, dt) != 0)
        return ridge_err_set(err, RIDGE_EINVAL, "llm serving: the cost model failed (decode batch %g, context %g, "
                                                "prefill %g tokens)", dec, ctx, ptok);
    if (!(*dt > 0) || !isfinite(*dt))
        return ridge_err_set(err, RIDGE_EINVAL, "llm serving: iteration time %g s (decode batch %g, context %g, "
                                                "prefill %g tokens) is not > 0", *dt, dec, ctx, ptok);
    return RIDGE_OK;
}

/* Saturation estimate: under overload B_eff requests run; each lives O iterations (one prefill
 * and O - 1 decodes), so x = B_eff/O are admitted per iteration: t = cost(B_eff (1 - 1/O), P + O/2,
 * x, x P) and the system completes x / t requests per second. A token budget T per iteration
 * (max_tokens) admits at most x = T / (P + O - 1) (each request needs P prefill and O - 1 decode
 * tokens), with x (O - 1) decoding. */
static int saturation(const ridge_llm_config *c, double p, double o, double beff, double *rate, ridge_err *err)
{
    double dt, x = beff / o, dec = beff * (1 - 1 / o);
    int st;
    if (c->max_tokens > 0 && c->max_tokens / (p + o - 1) < x) {
        x = c->max_tokens / (p + o - 1);
        dec = x * (o - 1);
    }
    st = iteration(c, dec, p + o / 2, x, x * p, &dt, err);
    if (st == RIDGE_OK)
        *rate = x / dt;
    return st;
}

/* One function on purpose (195 lines): the event loop's state (clock, running set, KV in use, the
 * window counters) is shared by admission, the iteration, retirement and the measurement window;
 * split into helpers it would travel as a dozen in/out pointers, and the loop reads top to bottom
 * as the scheduler it simulates (docs/serving.md, "LLM serving with continuous batching"). */
int ridge_llm_run(const ridge_llm_config *c, ridge_llm_result *r, ridge_err *err)
{
    size_t total = 0, n, nt = 0, next = 0, arrived = 0, done = 0, iters = 0, iters_meas = 0;
    double *arr = NULL, *gap = NULL, *pr = NULL, *out = NULL, *fin = NULL, *gen = NULL, *v = NULL;
    double *ttft = NULL, *e2e = NULL, *left = NULL, *chunk = NULL;
    size_t *run = NULL;
    gsl_rng *rng = NULL;
    double t = 0, kv_used = 0, ctx_sum = 0, cap, batch_sum = 0, iter_sum = 0, pmean = 0, omean = 0, tok = 0;
    double pre_sum = 0; /* the prefill part of the measured iterations (prefill_share) */
    double end_max = 0, mid, ta, tb, offered, origin = 0, a_next = 0;
    size_t nrun = 0, win_arr = 0, win_done = 0, kvmax;
    int st;

    memset(r, 0, sizeof *r);
    if (!c)
        return ridge_err_set(err, RIDGE_EINVAL, "llm serving: no configuration");
    st = check_config(c, &total, err);
    if (st != RIDGE_OK)
        return st;
    n = total - c->warmup;
    arr = malloc(total * sizeof *arr);
    gap = malloc(total * sizeof *gap);
    ttft = malloc(total * sizeof *ttft);
    e2e = malloc(total * sizeof *e2e);
    pr = malloc(total * sizeof *pr);
    out = malloc(total * sizeof *out);
    fin = malloc(total * sizeof *fin);
    v = malloc(total * sizeof *v);
    gen = malloc((size_t)c->max_batch * sizeof *gen);
    left = malloc((size_t)c->max_batch * sizeof *left);
    chunk = malloc((size_t)c->max_batch * sizeof *chunk);
    run = malloc((size_t)c->max_batch * sizeof *run);
    rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!arr || !gap || !ttft || !e2e || !pr || !out || !fin || !v || !gen || !left || !chunk || !run || !rng) {
        st = ridge_err_set(err, RIDGE_ENOMEM, "llm serving: out of memory for %zu requests", total);
        goto done;
    }
    gsl_rng_set(rng, c->seed);
    for (size_t i = 0; i < total; i++) {
        if (c->arrival == RIDGE_ARRIVAL_TRACE) {
            arr[i] = c->trace_s[i];
            gap[i] = arr[i] - (i ? arr[i - 1] : 0);
            pr[i] = floor(c->trace_prompt[i]);
            out[i] = floor(c->trace_output[i]);
        } else if (c->arrival == RIDGE_ARRIVAL_OFFLINE) {
            gap[i] = arr[i] = 0;
            pr[i] = floor(c->prompt_tokens);
            out[i] = floor(c->output_tokens);
        } else {
            /* The gaps as drawn: a difference of two absolute times would round. */
            if (c->arrival == RIDGE_ARRIVAL_CONSTANT)
                gap[i] = 1 / c->rate_per_s;
            else
                gap[i] = gsl_ran_exponential(rng, 1 / c->rate_per_s);
            t += gap[i];
            arr[i] = t;
            pr[i] = floor(c->prompt_tokens);
            out[i] = floor(c->output_tokens);
        }
        pmean += pr[i] / (double)total;
        omean += out[i] / (double)total;
    }
    /* KV capacity in tokens (a request holds prompt + output tokens from admission to its end). */
    cap = c->kv_bytes_per_token > 0 ? c->kv_capacity_bytes / c->kv_bytes_per_token : HUGE_VAL;
    for (size_t i = 0; i < total; i++)
        if (pr[i] + out[i] > cap) {
            st = ridge_err_set(err, RIDGE_EINVAL, "llm serving: request %zu needs %g tokens of KV cache; it holds %g",
                               i, pr[i] + out[i], floor(cap));
            goto done;
        }
    kvmax = isfinite(cap) && cap / (pmean + omean) < (double)c->max_batch ? (size_t)(cap / (pmean + omean))
                                                                           : (size_t)c->max_batch;
    if (kvmax < 1)
        kvmax = 1;
    r->kv_max_running = (int)kvmax;

    /* The clock t runs from an origin, the arrival that found the system empty: at a low rate the
     * arrivals reach 1e13 s, where a double's step is milliseconds, and a latency taken between
     * two such times would round to it. a_next: arrival `arrived` from the origin. */
    t = 0;
    a_next = gap[0];
    while (done < total) {
        size_t ndec = 0, npre = 0, w = 0;
        double ptok = 0, dt, dec_ctx, budget = c->max_tokens > 0 ? c->max_tokens : HUGE_VAL;
        if (nrun == 0 && next == arrived && next < total && a_next > t) { /* empty until arrival next (== arrived) */
            t = 0;
            a_next = 0;
            origin = arr[next];
        }
        while (arrived < total && a_next <= t) {
            ttft[arrived] = e2e[arrived] = a_next; /* less the first and last token's times below */
            arrived++;
            if (arrived < total)
                a_next += gap[arrived];
        }
        if (arrived > c->warmup && (double)(arrived - next) > r->max_queue)
            r->max_queue = (double)(arrived - next);
        /* The token budget (max_tokens; none: every admitted prompt whole): every decoding request
         * takes one token, then the prompts still being prefilled take chunks in admission order,
         * then new requests are admitted while tokens are left. */
        for (size_t k = 0; k < nrun; k++)
            ndec += left[k] == 0;
        budget -= (double)ndec;
        for (size_t k = 0; k < nrun; k++) {
            chunk[k] = 0;
            if (left[k] > 0 && budget > 0) {
                chunk[k] = left[k] < budget ? left[k] : budget;
                budget -= chunk[k];
                ptok += chunk[k];
                npre++;
            }
        }
        while (nrun < (size_t)c->max_batch && next < arrived && kv_used + pr[next] + out[next] <= cap && budget > 0) {
            kv_used += pr[next] + out[next];
            run[nrun] = next;
            gen[nrun] = 0;
            left[nrun] = pr[next];
            chunk[nrun] = pr[next] < budget ? pr[next] : budget;
            budget -= chunk[nrun];
            ptok += chunk[nrun];
            npre++;
            nrun++;
            next++;
        }
        dec_ctx = ndec ? ctx_sum / (double)ndec : 0;
        st = iteration(c, (double)ndec, dec_ctx, (double)npre, ptok, &dt, err);
        if (st != RIDGE_OK)
            goto done;
        if (arrived > c->warmup) {
            batch_sum += (double)nrun;
            iter_sum += dt;
            iters_meas++;
            if (ptok > 0) { /* what the prompts alone cost, for the share (never above dt) */
                double tp = dt;
                if (ndec > 0 && (!c->prefill_time || c->prefill_time(0, 0, (double)npre, ptok, c->iter_ctx, &tp) != 0 ||
                                 !(tp >= 0)))
                    tp = 0; /* unknown: the mixed iteration counts as decoding */
                pre_sum += tp < dt ? tp : dt;
            }
        }
        iters++;
        t += dt;
        /* A token for every decoding request and for each prompt whose prefill this iteration
         * completed (its first); a prompt with tokens left waits for its next chunk. */
        for (size_t k = 0; k < nrun; k++) {
            size_t i = run[k];
            if (left[k] > 0) {
                left[k] -= chunk[k];
                if (left[k] > 0) {
                    run[w] = i;
                    gen[w] = gen[k];
                    left[w] = left[k];
                    w++;
                    continue;
                }
                ttft[i] = t - ttft[i];
                ctx_sum += pr[i];
            }
            gen[k] += 1;
            ctx_sum += 1;
            if (gen[k] >= out[i]) {
                fin[i] = origin + t;
                e2e[i] = t - e2e[i];
                kv_used -= pr[i] + out[i];
                ctx_sum -= pr[i] + gen[k];
                done++;
            } else {
                run[w] = i;
                gen[w] = gen[k];
                left[w] = 0;
                w++;
            }
        }
        nrun = w;
        if (nrun == 0) {
            kv_used = 0; /* no drift from rounding */
            ctx_sum = 0;
        }
    }

    /* Statistics of the measured requests. */
    r->requests = n;
    for (size_t i = c->warmup; i < total; i++)
        v[i - c->warmup] = ttft[i];
    stats_of(v, n, &r->ttft);
    for (size_t i = c->warmup; i < total; i++)
        v[i - c->warmup] = e2e[i];
    stats_of(v, n, &r->e2e);
    for (size_t i = c->warmup; i < total; i++)
        if (out[i] > 1)
            v[nt++] = (e2e[i] - ttft[i]) / (out[i] - 1);
    stats_of(v, nt, &r->tpot);
    for (size_t i = c->warmup; i < total; i++) {
        if (fin[i] > end_max)
            end_max = fin[i];
        tok += out[i];
    }
    /* Offline: the span from time 0 (every arrival) to the last completion, as the benchmarks
     * report it (trtllm-bench's total output throughput). */
    if (end_max > arr[c->warmup]) {
        r->throughput_per_s = (double)n / (end_max - arr[c->warmup]);
        r->output_tokens_per_s = tok / (end_max - arr[c->warmup]);
    }
    r->iterations = iters;
    r->mean_batch = iters_meas ? batch_sum / (double)iters_meas : 0;
    r->mean_iteration_s = iters_meas ? iter_sum / (double)iters_meas : 0;
    r->prefill_share = iter_sum > 0 ? pre_sum / iter_sum : 0;

    /* Stability over the second half of the arrivals: did completions keep up? */
    ta = arr[0];
    tb = arr[total - 1];
    mid = (ta + tb) / 2;
    for (size_t i = 0; i < total; i++) {
        win_arr += arr[i] > mid;
        win_done += fin[i] > mid && fin[i] <= tb;
    }
    if (tb > mid) {
        r->arrival_rate_2nd_half_per_s = (double)win_arr / (tb - mid);
        r->completion_rate_2nd_half_per_s = (double)win_done / (tb - mid);
    }
    st = saturation(c, pmean, omean, (double)kvmax, &r->saturation_rate_per_s, err);
    /* Stable when completions kept up and the offered rate is below the saturation rate reported
     * with the verdict: near saturation a finite run grows too slowly for the first test to see
     * (at 1.0x and 1.01x it passed), and a queue at rho >= 1 is not stable however long it runs. */
    offered = c->arrival == RIDGE_ARRIVAL_TRACE ? (tb > ta ? (double)(total - 1) / (tb - ta) : 0) : c->rate_per_s;
    /* Offline: every request waits from the start, an overload by construction (not stable). */
    r->stable = c->arrival != RIDGE_ARRIVAL_OFFLINE &&
                (double)win_arr - (double)win_done <= LLM_GROWTH_SHARE * (double)win_arr + (double)kvmax &&
                offered < r->saturation_rate_per_s;
done:
    gsl_rng_free(rng);
    free(run);
    free(chunk);
    free(left);
    free(gen);
    free(v);
    free(fin);
    free(out);
    free(pr);
    free(e2e);
    free(ttft);
    free(gap);
    free(arr);
    return st;
}
