/* Serving a model at a request rate: service times and iteration costs from the performance
 * model, the queue models and the continuous-batching simulation at a rate, the SLO checks and
 * the rate and replica searches (docs/serving.md).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ridge/file.h"
#include "ridge/parallel.h"
#include "ridge/predict.h"
#include "ridge/serve.h"

double ridge_serve_prompt(const ridge_serve *s)
{
    return s->run.prompt > 0 ? s->run.prompt : RIDGE_SERVE_DEFAULT_PROMPT;
}

const ridge_queue_type *ridge_serve_queue_for(int max_batch)
{
    return max_batch > 0 ? ridge_queue_type_batch : ridge_queue_type_mgc;
}

/* ---- the service model ---- */

/* Service time of a batch of b requests: one pass, or prefill + output x decode for an LLM at
 * context prompt + output/2. */
static int service_time(const ridge_serve *s, double b, double *t_s, ridge_err *err)
{
    ridge_run_config rc = s->run;
    double t;
    int st;
    rc.batch = b;
    if (!s->llm)
        return s->step(&rc, s->step_ctx, t_s, NULL, err);
    rc.mode = RIDGE_MODE_PREFILL;
    st = s->step(&rc, s->step_ctx, t_s, NULL, err);
    if (st != RIDGE_OK || s->output <= 0)
        return st;
    rc.mode = RIDGE_MODE_DECODE;
    rc.context = ridge_serve_prompt(s) + floor(s->output / 2);
    st = s->step(&rc, s->step_ctx, &t, NULL, err);
    *t_s += s->output * t;
    return st;
}

/* s(b) for b = 1..max(1, max_batch) (the queue models). */
static int prepare_service(ridge_serve *s, ridge_err *err)
{
    int nserv = s->max_batch > 0 ? s->max_batch : 1;
    if (nserv > RIDGE_SERVE_MAX_BATCH)
        return ridge_err_set(err, RIDGE_EINVAL, "serve: max_batch %d is above %d", nserv, RIDGE_SERVE_MAX_BATCH);
    s->queue = ridge_serve_queue_for(s->max_batch);
    for (int k = 1; k <= nserv; k++) {
        int st = service_time(s, k, &s->service_s[k - 1], err);
        if (st != RIDGE_OK)
            return st;
        if (!(s->service_s[k - 1] > 0))
            return ridge_err_set(err, RIDGE_EINVAL, "%s on %s: predicted service time is not positive",
                                 ridge_model_name(s->m), s->g->id);
    }
    return RIDGE_OK;
}

int ridge_serve_eval(const ridge_serve *s, double rate_per_s, int replicas, ridge_queue_result *r, ridge_err *err)
{
    ridge_queue_system sys = {0};
    sys.rate_per_s = rate_per_s;
    sys.servers = replicas;
    sys.service_s = s->service_s;
    sys.service_cs2 = 0; /* the model's service time is deterministic */
    sys.max_batch = s->max_batch;
    sys.batch_timeout_s = s->timeout_s;
    sys.customers = s->customers;
    sys.seed = s->seed;
    return s->queue->eval(&sys, r, err);
}

/* ---- continuous batching (decoder LLMs) ---- */

/* One prediction of the performance model at a batch, mode and token count. */
static int llm_predict(const ridge_serve *s, ridge_mode mode, double batch, double tokens, double *t_s,
                       ridge_err *err)
{
    ridge_run_config rc = s->run;
    int st;
    rc.mode = mode;
    rc.batch = batch;
    if (mode == RIDGE_MODE_PREFILL)
        rc.prompt = tokens;
    else
        rc.context = tokens;
    st = s->step(&rc, s->step_ctx, t_s, NULL, err);
    if (st == RIDGE_OK && !(*t_s > 0))
        return ridge_err_set(err, RIDGE_EINVAL, "%s on %s: predicted %s time is not positive", ridge_model_name(s->m),
                             s->g->id, ridge_mode_name(mode));
    return st;
}

/* Piecewise-linear position of x on an increasing grid: cell i and weight w of grid[i + 1]. */
static void grid_pos(const double *grid, int n, double x, int *i, double *w)
{
    int k = 0;
    if (n < 2 || x <= grid[0]) {
        *i = 0;
        *w = n < 2 ? 0 : (x - grid[0]) / (grid[1] - grid[0]); /* extrapolates below the grid */
        return;
    }
    while (k < n - 2 && x > grid[k + 1])
        k++;
    *i = k;
    *w = (x - grid[k]) / (grid[k + 1] - grid[k]);
}

/* The iteration cost for the simulator: decode step (bilinear on the grid) + prefill (linear in the
 * number of prompts, scaled to the tokens). The two are separate kernels launched one after the
 * other (docs/serving.md). */
int ridge_serve_iter_cost(double dec, double ctx, double preq, double ptok, void *p, double *t_s)
{
    const ridge_serve *s = p;
    double t = 0, w, u;
    int i, j;
    /* Below the grid's first batch (1: only the saturation estimate's averages, B/O prompts or
     * B (1 - 1/O) decodes per iteration, go there) the cost is that batch's, scaled: the
     * expected cost of an iteration that has the work a fraction of the time. Extrapolating the
     * grid's first segment instead could go negative (an fp32 prefill of 2 prompts costs 2.5x one). */
    if (dec > 0) {
        double lo, hi;
        grid_pos(s->grid_b, s->nb, dec, &i, &w);
        grid_pos(s->grid_c, s->nc, ctx, &j, &u);
        if (s->nc < 2) {
            lo = s->decode_s[i][0];
            hi = s->nb < 2 ? lo : s->decode_s[i + 1][0];
        } else {
            lo = s->decode_s[i][j] + u * (s->decode_s[i][j + 1] - s->decode_s[i][j]);
            hi = s->nb < 2 ? lo
                           : s->decode_s[i + 1][j] + u * (s->decode_s[i + 1][j + 1] - s->decode_s[i + 1][j]);
        }
        t += s->nb < 2 ? lo * dec : dec < s->grid_b[0] ? lo * dec / s->grid_b[0] : lo + w * (hi - lo);
    }
    if (preq > 0 && ptok > 0) {
        double v;
        grid_pos(s->grid_b, s->nb, preq, &i, &w);
        v = s->nb < 2 || preq < s->grid_b[0] ? s->prefill_s[0] * preq / s->grid_b[0]
                                              : s->prefill_s[i] + w * (s->prefill_s[i + 1] - s->prefill_s[i]);
        t += v * ptok / (preq * s->prefill_prompt);
    }
    *t_s = t;
    return t > 0 && isfinite(t) ? 0 : -1;
}

/* KV bytes per token (difference of two contexts, so fixed terms cancel) and the memory left for
 * the KV cache: GPU memory - weights - workspace, times the engine's kv_fraction. The contexts are 0 and 1, which any decoder
 * takes (one with 1024 learned positions refused 2048). */
static int llm_kv(ridge_serve *s, ridge_err *err)
{
    ridge_run_config rc = s->run;
    ridge_memory m1, m2;
    ridge_err e;
    int st, gpus = s->gpus_per_replica;
    rc.mode = RIDGE_MODE_DECODE;
    rc.batch = 1;
    rc.context = 0;
    st = ridge_model_memory(s->m, &rc, &m1, &e);
    rc.context = 1;
    if (st == RIDGE_OK)
        st = ridge_model_memory(s->m, &rc, &m2, &e);
    if (st != RIDGE_OK)
        return ridge_err_set(err, st, "%s: %s", ridge_model_name(s->m), e.msg);
    if (s->tensor_parallel) {
        /* Per GPU of the tensor-parallel group (weights and KV heads sharded), times tp: the
         * replica's KV per token and free memory (their ratio, the tokens held, is per GPU). */
        double t;
        rc.context = 0;
        if ((st = s->step(&rc, s->step_ctx, &t, &m1, err)) != RIDGE_OK)
            return st;
        rc.context = 1;
        if ((st = s->step(&rc, s->step_ctx, &t, &m2, err)) != RIDGE_OK)
            return st;
    }
    s->kv_bytes_per_token = (m2.kv_cache_bytes - m1.kv_cache_bytes) * gpus;
    s->kv_capacity_bytes = (s->g->memory_bytes - m1.weights_bytes - m1.workspace_bytes) * gpus *
                           (s->kv_fraction > 0 && s->kv_fraction <= 1 ? s->kv_fraction : 1.0);
    if (!(s->kv_bytes_per_token > 0) || !(s->kv_capacity_bytes > 0))
        return ridge_err_set(err, RIDGE_EINVAL, "%s on %s: no room for a KV cache (%g GB of memory, %g GB of weights%s)",
                             ridge_model_name(s->m), s->g->id, s->g->memory_bytes / 1e9,
                             (s->g->memory_bytes - s->kv_capacity_bytes / gpus) / 1e9,
                             s->tensor_parallel ? " per GPU at the tensor-parallel size" : "");
    return RIDGE_OK;
}

/* Fill the iteration-time grid on s->g: batches 1, 2, 4, ..., max_batch; contexts spread over
 * [shortest prompt, longest prompt + output - 1] (the last decode step's). */
static int llm_prepare(ridge_serve *s, ridge_err *err)
{
    double pmin = ridge_serve_prompt(s), pmax = pmin, omax = s->output, psum = 0;
    int st;
    if (s->trace_n) {
        pmin = HUGE_VAL;
        pmax = omax = 0;
        for (size_t i = 0; i < s->trace_n; i++) {
            pmin = fmin(pmin, s->trace_prompt[i]);
            pmax = fmax(pmax, s->trace_prompt[i]);
            omax = fmax(omax, s->trace_output[i]);
            psum += s->trace_prompt[i];
        }
        s->prefill_prompt = floor(psum / (double)s->trace_n + 0.5);
    } else {
        s->prefill_prompt = pmin;
    }
    s->nb = 0;
    for (double b = 1; b < s->max_batch && s->nb < RIDGE_SERVE_GRID_BATCH - 1; b *= 2)
        s->grid_b[s->nb++] = b;
    s->grid_b[s->nb++] = s->max_batch;
    /* Distinct context points (a span of fewer than RIDGE_SERVE_GRID_CTX - 1 tokens takes one a
     * token), so that the interpolation between two never divides by zero. */
    {
        double span = pmax + omax - 1 - pmin;
        s->nc = span >= RIDGE_SERVE_GRID_CTX - 1 ? RIDGE_SERVE_GRID_CTX : span > 0 ? (int)span + 1 : 1;
    }
    for (int j = 0; j < s->nc; j++)
        s->grid_c[j] = floor(pmin + (pmax + omax - 1 - pmin) * j / (s->nc > 1 ? s->nc - 1 : 1));
    for (int i = 0; i < s->nb; i++) {
        for (int j = 0; j < s->nc; j++) {
            st = llm_predict(s, RIDGE_MODE_DECODE, s->grid_b[i], s->grid_c[j], &s->decode_s[i][j], err);
            if (st != RIDGE_OK)
                return st;
        }
        st = llm_predict(s, RIDGE_MODE_PREFILL, s->grid_b[i], s->prefill_prompt, &s->prefill_s[i], err);
        if (st != RIDGE_OK)
            return st;
    }
    return llm_kv(s, err);
}

double ridge_serve_sim_steps(double prompt, double output, double max_tokens)
{
    return output + (max_tokens > 0 && prompt > max_tokens ? ceil(prompt / max_tokens) - 1 : 0);
}

void ridge_serve_replica_cluster(const ridge_cluster *cl, int tp, ridge_cluster *out)
{
    *out = *cl;
    out->gpus_per_node = tp;
    out->nodes = 1;
    out->inter_bw_bytes_per_s_per_node = cl->inter_bw_bytes_per_s_per_node * (double)tp / cl->gpus_per_node;
}

int ridge_serve_replica_step(const ridge_run_config *rc, void *ctx, double *t_s, ridge_memory *mem, ridge_err *err)
{
    const ridge_serve_replica *rp = ctx;
    int st;
    if (rp->cl) {
        ridge_parallel_config pc;
        ridge_parallel_result r;
        ridge_run_config run = *rc;
        const ridge_cluster *cl = rp->cl;
        ridge_cluster *sus = NULL;
        if (rp->sustained && rp->cl->gpu.sustained_tensor_clock_hz > 0) {
            if (!(sus = malloc(sizeof *sus)))
                return ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
            *sus = *rp->cl;
            sus->gpu.sustained_load = 1;
            cl = sus;
        }
        ridge_runtime rt =
            (ridge_runtime)ridge_host_runtime_for(rp->hp, rc->mode == RIDGE_MODE_DECODE, RIDGE_RUNTIME_EAGER);
        ridge_host_apply(rp->hp, &run);
        ridge_parallel_config_init(&pc);
        pc.tp = rp->tp;
        pc.microbatch = pc.global_batch = rc->batch;
        st = ridge_parallel_predict(cl, rp->m, &run, &pc, rt, &r, err);
        free(sus);
        if (st != RIDGE_OK)
            return st;
        /* a prefill starts its requests; every step pays its sequences' work (one replica: dp 1) */
        ridge_parallel_add_request(rp->hp, &rp->cl->gpu, &run, rc->batch, &r);
        *t_s = r.step_time_s;
        if (mem)
            *mem = r.memory;
        return RIDGE_OK;
    } else {
        ridge_predict_result p;
        ridge_gpu g = *rp->g;
        g.sustained_load = rp->sustained;
        st = ridge_predict_model(&g, rp->m, rc, rp->hp, RIDGE_RUNTIME_EAGER, &p, err);
        *t_s = p.time_s;
        if (mem)
            *mem = p.mem;
        ridge_predict_result_free(&p);
        return st;
    }
}

int ridge_serve_prepare(ridge_serve *s, ridge_err *err)
{
    if (!s->step || !s->g || !s->m || s->gpus_per_replica < 1)
        return ridge_err_set(err, RIDGE_EINVAL, "serve: need a GPU, a model, a step function and gpus_per_replica >= 1");
    return s->continuous ? llm_prepare(s, err) : prepare_service(s, err);
}

int ridge_serve_llm_eval(const ridge_serve *s, double rate_per_s, int replicas, ridge_llm_result *r, ridge_err *err)
{
    ridge_llm_config c;
    double *sub = NULL;
    int st;
    ridge_llm_config_init(&c);
    c.prompt_tokens = ridge_serve_prompt(s);
    c.output_tokens = s->output;
    c.max_batch = s->max_batch;
    c.max_tokens = s->max_tokens;
    c.kv_bytes_per_token = s->kv_bytes_per_token;
    c.kv_capacity_bytes = s->kv_capacity_bytes;
    c.iter_time = ridge_serve_iter_cost;
    c.prefill_time = ridge_serve_iter_cost; /* additive: its prompts-only call is their part */
    c.iter_ctx = (void *)(uintptr_t)s; /* read only: the callback takes a void * */
    c.seed = s->seed;
    c.requests = s->requests;
    c.warmup = s->requests / 10;
    if (s->offline && s->trace_n)
        return ridge_err_set(err, RIDGE_EINVAL, "serve: an offline run takes no trace");
    if (s->trace_n) {
        size_t n = (s->trace_n + (size_t)replicas - 1) / (size_t)replicas, k = 0;
        sub = malloc(3 * n * sizeof *sub);
        if (!sub)
            return ridge_err_set(err, RIDGE_ENOMEM, "out of memory for the trace");
        for (size_t i = 0; i < s->trace_n; i += (size_t)replicas, k++) {
            sub[k] = s->trace_s[i];
            sub[n + k] = s->trace_prompt[i];
            sub[2 * n + k] = s->trace_output[i];
        }
        c.arrival = RIDGE_ARRIVAL_TRACE;
        c.trace_s = sub;
        c.trace_prompt = sub + n;
        c.trace_output = sub + 2 * n;
        c.trace_n = k;
        c.warmup = k / 10;
        c.requests = k - c.warmup;
    } else if (s->offline) {
        /* The benchmark's requests split evenly over the replicas, each queued at time 0. */
        c.arrival = RIDGE_ARRIVAL_OFFLINE;
        c.requests = (s->requests + (size_t)replicas - 1) / (size_t)replicas;
        c.warmup = 0;
    } else {
        c.rate_per_s = rate_per_s / replicas;
    }
    st = ridge_llm_run(&c, r, err);
    /* Requests that do not divide evenly over the replicas (offline, or a trace dealt round
     * robin): the replica simulated holds the most, ceil(N / r), and ends last. Over the whole
     * system the throughput is N requests (and their tokens) over that replica's span, so its
     * per-replica share (which the callers multiply by the replicas) is N / r of them. */
    if (st == RIDGE_OK && (s->trace_n || s->offline)) {
        double all = s->trace_n ? (double)s->trace_n : (double)s->requests;
        double held = s->trace_n ? (double)c.trace_n : (double)c.requests;
        if (held > 0) {
            r->throughput_per_s *= all / replicas / held;
            r->output_tokens_per_s *= all / replicas / held;
        }
    }
    free(sub);
    return st;
}

/* ---- SLOs ---- */

int ridge_serve_slo_holds(const ridge_serve_slo *slo, const ridge_llm_result *r)
{
    return r->stable && (slo->e2e_p99_ms <= 0 || r->e2e.p99_s * 1e3 <= slo->e2e_p99_ms) &&
           (slo->ttft_p99_ms <= 0 || r->ttft.p99_s * 1e3 <= slo->ttft_p99_ms) &&
           (slo->tpot_p99_ms <= 0 || r->tpot.p99_s * 1e3 <= slo->tpot_p99_ms);
}

/* What no number of replicas and no rate can beat: a request alone. Its first token needs the
 * prefill of its prompt, each later one a decode step at batch 1 and a context of at least its
 * prompt (the cost grows with batch, context and prefill tokens), so every request has
 * TTFT >= prefill(P), TPOT >= decode(1, P) and e2e >= prefill(P) + (O - 1) decode(1, P), with P and
 * O the shortest prompt and output (a trace's). An SLO below its floor is infeasible: the caller
 * says so at once instead of searching thousands of replicas. */
ridge_serve_slo_kind ridge_serve_llm_floor(const ridge_serve *s, const ridge_serve_slo *slo, ridge_serve_floor *f)
{
    double p = ridge_serve_prompt(s), o = s->output;
    void *ctx = (void *)(uintptr_t)s;
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < s->trace_n; i++) {
        p = i == 0 || s->trace_prompt[i] < p ? s->trace_prompt[i] : p;
        o = i == 0 || s->trace_output[i] < o ? s->trace_output[i] : o;
    }
    f->prompt = p;
    f->output = o;
    if (ridge_serve_iter_cost(0, 0, 1, p, ctx, &f->ttft_s) || ridge_serve_iter_cost(1, p, 0, 0, ctx, &f->tpot_s))
        return RIDGE_SERVE_SLO_NONE; /* no floor known: the search decides */
    f->known = 1;
    f->e2e_s = f->ttft_s + (o - 1) * f->tpot_s;
    if (slo->e2e_p99_ms > 0 && f->e2e_s * 1e3 > slo->e2e_p99_ms)
        return RIDGE_SERVE_SLO_E2E;
    if (slo->ttft_p99_ms > 0 && f->ttft_s * 1e3 > slo->ttft_p99_ms)
        return RIDGE_SERVE_SLO_TTFT;
    if (slo->tpot_p99_ms > 0 && o > 1 && f->tpot_s * 1e3 > slo->tpot_p99_ms)
        return RIDGE_SERVE_SLO_TPOT;
    return RIDGE_SERVE_SLO_NONE;
}

/* An LLM request holds its prompt and output tokens in the KV cache by its last decode step,
 * which attends to all of them: the model must take that sequence. */
int ridge_serve_check_request(const ridge_serve *s, double *prompt, double *output, ridge_err *err)
{
    ridge_run_config rc = s->run;
    ridge_oplist ol = {0};
    int st;
    *prompt = ridge_serve_prompt(s);
    *output = s->output;
    for (size_t i = 0; i < s->trace_n; i++)
        if (i == 0 || s->trace_prompt[i] + s->trace_output[i] > *prompt + *output) {
            *prompt = s->trace_prompt[i];
            *output = s->trace_output[i];
        }
    if (*output < 1)
        return RIDGE_OK; /* no decode step */
    rc.mode = RIDGE_MODE_DECODE;
    rc.batch = 1;
    rc.context = *prompt + *output - 1;
    st = ridge_model_build(s->m, &rc, &ol, err);
    ridge_oplist_free(&ol);
    return st;
}

/* ---- searches ---- */

/* One probe of the replica search: 1 when n replicas meet the SLOs, 0 when not, -1 on an error
 * (in the probe's err). */
typedef int (*replicas_probe)(const ridge_serve *s, int n, void *arg);

/* What a probe needs: the rate, the SLOs, where its error goes. */
typedef struct {
    double rate;
    double slo_s;               /* the queue models: p99 */
    const ridge_serve_slo *slo; /* continuous batching */
    ridge_err *err;
    int st; /* the status of the last probe */
} probe_arg;

/* The fewest replicas in [n0, s->max_replicas] that meet the SLOs: double from n0 until they hold,
 * then bisect (more replicas are assumed never to hurt: each probe is deterministic, a closed form
 * or a simulation with the fixed seed). Fewer than n0 are known to fail. Returns the number, 0
 * when none up to the limit does, -1 after a failed probe. */
static int min_replicas(const ridge_serve *s, int n0, replicas_probe holds, void *arg)
{
    int n = n0 < 1 ? 1 : n0 > s->max_replicas ? s->max_replicas : n0, lo = n - 1, hi = 0, h;
    while (!hi) {
        if ((h = holds(s, n, arg)) < 0)
            return -1;
        if (h)
            hi = n;
        else if (n == s->max_replicas)
            return 0;
        else {
            lo = n;
            n = n > s->max_replicas / 2 ? s->max_replicas : 2 * n;
        }
    }
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if ((h = holds(s, mid, arg)) < 0)
            return -1;
        if (h)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* The queue models: stable, and the p99 latency within the SLO. */
static int queue_probe(const ridge_serve *s, int n, void *arg)
{
    probe_arg *a = arg;
    ridge_queue_result r;
    a->st = ridge_serve_eval(s, a->rate, n, &r, a->err);
    return a->st != RIDGE_OK ? -1 : r.stable && r.p99_s <= a->slo_s;
}

static int llm_probe(const ridge_serve *s, int n, void *arg)
{
    probe_arg *a = arg;
    ridge_llm_result r;
    a->st = ridge_serve_llm_eval(s, a->rate, n, &r, a->err);
    return a->st != RIDGE_OK ? -1 : ridge_serve_slo_holds(a->slo, &r);
}

int ridge_serve_find_replicas(const ridge_serve *s, double rate_per_s, double slo_p99_s, int *replicas, ridge_err *err)
{
    probe_arg pa = {rate_per_s, slo_p99_s, NULL, err, RIDGE_OK};
    int n = min_replicas(s, 1, queue_probe, &pa);
    *replicas = n < 0 ? 0 : n;
    return pa.st;
}

int ridge_serve_llm_find_replicas(const ridge_serve *s, double rate_per_s, const ridge_serve_slo *slo, int *replicas,
                                  ridge_err *err)
{
    /* Fewer replicas than rate / saturation cannot keep up: start just below that. */
    probe_arg pa = {rate_per_s, 0, slo, err, RIDGE_OK};
    ridge_llm_result r;
    int n, st = ridge_serve_llm_eval(s, rate_per_s, 1, &r, err);
    *replicas = 0;
    if (st != RIDGE_OK)
        return st;
    n = min_replicas(s, r.saturation_rate_per_s > 0 ? (int)floor(0.9 * rate_per_s / r.saturation_rate_per_s) : 1,
                     llm_probe, &pa);
    *replicas = n < 0 ? 0 : n;
    return pa.st;
}

/* p99 at a rate for Brent's method over s->replicas. */
static int p99_at(double rate, void *ctx, double *v)
{
    const ridge_serve *s = ctx;
    ridge_queue_result r;
    ridge_err err;
    if (ridge_serve_eval(s, rate, s->replicas, &r, &err) != RIDGE_OK)
        return -1;
    /* Unstable: report a latency above any objective so the root stays below saturation. */
    *v = r.stable ? r.p99_s : 1e30;
    return 0;
}

int ridge_serve_find_rate(const ridge_serve *s, double slo_p99_s, double *rate_per_s, ridge_err *err)
{
    ridge_queue_result r;
    double found = 0;
    int st = ridge_serve_eval(s, 1, s->replicas, &r, err);
    if (st != RIDGE_OK)
        return st;
    st = ridge_queue_max_rate(p99_at, (void *)(uintptr_t)s, r.saturation_rate_per_s, slo_p99_s, &found, err);
    *rate_per_s = found;
    return st;
}

/* Bisection on the rate: the simulation has a fixed seed, so each probe is deterministic; the SLO
 * is assumed to hold below the found rate and fail above it. */
int ridge_serve_llm_find_rate(const ridge_serve *s, const ridge_serve_slo *slo, double *rate_per_s,
                              double *low_rate_per_s, ridge_llm_result *at_low, ridge_err *err)
{
    ridge_llm_result r;
    double lo, hi;
    int st = ridge_serve_llm_eval(s, 1, s->replicas, &r, err);
    *rate_per_s = 0;
    if (st != RIDGE_OK)
        return st;
    hi = 1.2 * r.saturation_rate_per_s * s->replicas;
    lo = 0.01 * hi;
    *low_rate_per_s = lo;
    st = ridge_serve_llm_eval(s, lo, s->replicas, at_low, err);
    if (st != RIDGE_OK || !ridge_serve_slo_holds(slo, at_low))
        return st;
    for (int it = 0; st == RIDGE_OK && it < 30 && hi - lo > 1e-3 * hi; it++) {
        double mid = (lo + hi) / 2;
        st = ridge_serve_llm_eval(s, mid, s->replicas, &r, err);
        if (st == RIDGE_OK && ridge_serve_slo_holds(slo, &r))
            lo = mid;
        else
            hi = mid;
    }
    *rate_per_s = lo;
    return st;
}

/* ---- traces: arrival_s,prompt,output per line (CSV, optional header) or JSON lines ---- */

static int trace_field(cJSON *o, const char *key, double *v)
{
    cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(it))
        return -1;
    *v = it->valuedouble;
    return 0;
}

static const char *const trace_names[3] = {"arrival", "prompt", "output"};

/* One CSV row "arrival_s,prompt,output" into v[0..2]: 0, -1 when it has not three fields or one
 * holds no number, or 1 + the field that is not a decimal number (docs/cli.md: no hexadecimal, no
 * leading blank or plus sign, nothing after it; an exponent is allowed), its text in *bad, *bad_len. */
static int trace_csv_row(const char *p, double v[3], const char **bad, int *bad_len)
{
    for (int f = 0; f < 3; f++) {
        size_t n = strcspn(p, ","), m = n;
        char *end;
        if ((f < 2) != (p[n] == ','))
            return -1;
        while (f == 2 && m > 0 && isspace((unsigned char)p[m - 1]))
            m--; /* trailing blanks end the line */
        *bad = p;
        *bad_len = m > 40 ? 40 : (int)m;
        v[f] = strtod(p, &end);
        if (end == p)
            return -1; /* no number at all: not a row */
        if (isspace((unsigned char)*p) || *p == '+' || memchr(p, 'x', m) || memchr(p, 'X', m) || end != p + m)
            return 1 + f;
        p += n + 1;
    }
    return 0;
}

/* A row's values in range: RIDGE_OK, or an error naming the field that is not. */
static int trace_check(const char *path, size_t lineno, const double row[3], const double *v, size_t n,
                       ridge_err *err)
{
    if (!isfinite(row[0]) || row[0] < 0)
        return ridge_err_set(err, RIDGE_EINVAL, "%s:%zu: arrival %g s must be >= 0 and finite", path, lineno, row[0]);
    if (n && row[0] < v[3 * (n - 1)])
        return ridge_err_set(err, RIDGE_EINVAL, "%s:%zu: arrival %.17g s must not be earlier than the one before (%.17g s)",
                             path, lineno, row[0], v[3 * (n - 1)]);
    for (int f = 1; f < 3; f++) {
        if (!(row[f] >= 1) || row[f] > RIDGE_RUN_TOKENS_MAX)
            return ridge_err_set(err, RIDGE_EINVAL, "%s:%zu: %s %g is not in [1, %d] tokens", path, lineno,
                                 trace_names[f], row[f], RIDGE_RUN_TOKENS_MAX);
        if (row[f] != floor(row[f]))
            return ridge_err_set(err, RIDGE_EINVAL, "%s:%zu: %s %g is not a whole number of tokens", path, lineno,
                                 trace_names[f], row[f]);
    }
    return RIDGE_OK;
}

/* One line (NUL-terminated, without its newline) into row v[3n..3n+2]: 1 when it held a request,
 * 0 when blank, a comment or the CSV header, a status on error. The header is the first line
 * that is neither blank nor a comment, or none (*content counts those lines): a later line of
 * words ("nan,10,10", "abc") is a malformed row, not one more header skipped. */
static int trace_line(const char *path, size_t lineno, const char *line, const double *v, size_t n, double row[3],
                      size_t *content, ridge_err *err)
{
    const char *p = line;
    int st;
    while (isspace((unsigned char)*p))
        p++;
    if (!*p || *p == '#')
        return 0;
    if ((*content)++ == 0 && n == 0 && isalpha((unsigned char)*p))
        return 0; /* the CSV header */
    if (*p == '{') {
        cJSON *j = ridge_json_nul_escape(p, strlen(p)) ? NULL : cJSON_ParseWithLength(p, strlen(p));
        int bad = !j || trace_field(j, "arrival_s", &row[0]) || trace_field(j, "prompt", &row[1]) ||
                  trace_field(j, "output", &row[2]);
        cJSON_Delete(j);
        if (bad)
            return ridge_err_set(err, RIDGE_EINVAL, "%s:%zu: need {\"arrival_s\": T, \"prompt\": P, \"output\": O}",
                                 path, lineno);
    } else {
        const char *text;
        int len, f = trace_csv_row(p, row, &text, &len);
        if (f < 0)
            return ridge_err_set(err, RIDGE_EINVAL, "%s:%zu: need arrival_s,prompt,output", path, lineno);
        if (f > 0)
            return ridge_err_set(err, RIDGE_EINVAL, "%s:%zu: %s '%.*s' is not a decimal number", path, lineno,
                                 trace_names[f - 1], len, text);
    }
    if ((st = trace_check(path, lineno, row, v, n, err)) != RIDGE_OK)
        return st;
    return 1;
}

/* Rows (arrival, prompt, output) to columns: arrivals, then prompts, then outputs. */
static int trace_columns(const double *v, size_t n, double **out, ridge_err *err)
{
    double *cols = malloc(3 * n * sizeof *cols);
    if (!cols)
        return ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        cols[i] = v[3 * i];
        cols[n + i] = v[3 * i + 1];
        cols[2 * n + i] = v[3 * i + 2];
    }
    *out = cols;
    return RIDGE_OK;
}

int ridge_serve_trace_load(const char *path, double **out, size_t *n_out, ridge_err *err)
{
    char *text = NULL, *line, *text_end;
    size_t len = 0, n = 0, cap = 0, lineno = 0, content = 0;
    double *v = NULL;
    int st = ridge_file_read(path, &text, &len, err);
    if (st != RIDGE_OK)
        return st;
    text_end = text + len;
    for (line = text; line < text_end; line += strlen(line) + 1) {
        char *nl = memchr(line, '\n', (size_t)(text_end - line));
        double row[3];
        lineno++;
        if (nl)
            *nl = '\0';
        if (strlen(line) != (size_t)((nl ? nl : text_end) - line)) {
            st = ridge_err_set(err, RIDGE_EINVAL, "%s:%zu: a NUL byte: not a text file", path, lineno);
            goto done;
        }
        if ((st = trace_line(path, lineno, line, v, n, row, &content, err)) <= 0) {
            if (st < 0)
                goto done;
            continue;
        }
        st = RIDGE_OK;
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 1024;
            double *nv = realloc(v, 3 * nc * sizeof *nv);
            if (!nv) {
                st = ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
                goto done;
            }
            v = nv;
            cap = nc;
        }
        memcpy(v + 3 * n, row, sizeof row);
        n++;
    }
    st = RIDGE_OK;
    if (n < 20)
        st = ridge_err_set(err, RIDGE_EINVAL, "%s: %zu requests; a trace needs at least 20", path, n);
    else if (!(v[3 * (n - 1)] > v[0]))
        st = ridge_err_set(err, RIDGE_EINVAL, "%s: all %zu arrivals are at %g s; a trace needs them spread over time",
                           path, n, v[0]);
    else {
        /* Times from the first arrival: an absolute clock (epoch seconds) would lose the service
         * times' microseconds in sums with it. */
        double t0 = v[0];
        for (size_t i = 0; i < n; i++)
            v[3 * i] -= t0;
    }
done:
    free(text);
    if (st == RIDGE_OK && (st = trace_columns(v, n, out, err)) == RIDGE_OK)
        *n_out = n;
    free(v);
    return st;
}
