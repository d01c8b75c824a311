/* ridge — serving: queueing models of an inference server (docs/serving.md).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Closed forms: M/G/1 by Pollaczek–Khinchine (M/M/1 and M/D/1 are its special cases), M/G/c by
 * Erlang C with the Allen–Cunneen correction (exact for M/M/c). A discrete-event simulator
 * (seeded, reproducible) runs the same systems and the dynamic-batching server, which has no
 * closed form here. Times are in seconds, rates per second. A queue with utilisation >= 1 is
 * reported with stable = 0 and its saturation rate; its latency fields are then 0 (never NaN
 * or infinity). Nothing here prints, exits or keeps global state. */
#ifndef RIDGE_QUEUE_H
#define RIDGE_QUEUE_H

#include <stddef.h>

#include "ridge/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A queue with Poisson arrivals and `servers` identical FIFO servers. */
typedef struct {
    double rate_per_s;      /* arrival rate lambda */
    double mean_service_s;  /* E[S] */
    double service_cs2;     /* squared coefficient of variation Var[S]/E[S]^2: 0 deterministic, 1 exponential */
    double service_m3_s3;   /* E[S^3] (M/G/1 second moment of the wait); 0 = that of a gamma law with E[S], cs2 */
    int servers;            /* c >= 1 */
} ridge_queue_params;

typedef struct {
    int stable;                  /* 1 when utilisation < 1 */
    double utilisation;          /* rho = lambda E[S] / c */
    double saturation_rate_per_s; /* c / E[S] */
    double throughput_per_s;     /* lambda when stable, else the saturation rate */
    double p_wait;               /* P(W > 0): rho for M/G/1, Erlang C for M/G/c */
    double mean_wait_s;          /* E[W], time in queue */
    double wait_m2_s2;           /* E[W^2] (Takacs, c = 1 only; 0 otherwise) */
    double wait_tail_rate_per_s; /* theta in P(W > x) ~ p_wait exp(-theta x) */
    double mean_latency_s;       /* E[T] = E[W] + E[S] */
    double p50_s, p90_s, p99_s;  /* latency (sojourn) percentiles */
} ridge_queue_result;

/* Fill p with: one server, exponential service (cs2 = 1). */
void ridge_queue_params_init(ridge_queue_params *p);

/* M/G/1 (servers must be 1): Pollaczek–Khinchine mean wait, Takacs E[W^2], latency percentiles
 * from the exponential-tail approximation of W (exact for M/M/1). */
int ridge_queue_mg1(const ridge_queue_params *p, ridge_queue_result *r, ridge_err *err);

/* Erlang C: probability of waiting in M/M/c with offered load a = lambda E[S] Erlangs (a < c). */
int ridge_queue_erlang_c(int servers, double load_erlangs, double *p_wait, ridge_err *err);

/* M/G/c: Erlang C P(wait); mean wait E[W] = C/(c mu - lambda) (1 + cs2)/2 (Allen–Cunneen, exact
 * for M/M/c; for c = 1 this is Pollaczek–Khinchine). Percentiles as for M/G/1 with the tail mass
 * C. With servers == 1 this is ridge_queue_mg1. */
int ridge_queue_mgc(const ridge_queue_params *p, ridge_queue_result *r, ridge_err *err);

/* Quantile q in (0,1) of the latency T = W + S where P(W > x) = p_wait exp(-theta x) and S is
 * gamma with mean E[S] and squared CV cs2 (deterministic when cs2 = 0), W and S independent. */
int ridge_queue_latency_quantile(double p_wait, double theta_per_s, double mean_service_s, double cs2, double q,
                                 double *t_s, ridge_err *err);

/* Largest rate in (0, hi_rate) with f(rate) <= target, by Brent's method on f(rate) - target
 * (a rate with f(rate) == target counted as meeting it, so a range where f equals the target
 * gives its highest rate); f must not decrease with the rate and reports failure through its
 * return status (non-zero).
 * *rate_out = 0 when even a tiny rate misses the target, hi_rate when the whole range meets it. */
typedef int (*ridge_queue_rate_fn)(double rate_per_s, void *ctx, double *value);
int ridge_queue_max_rate(ridge_queue_rate_fn f, void *ctx, double hi_rate_per_s, double target, double *rate_out,
                         ridge_err *err);

/* ---- Discrete-event simulation (model/serve/des.c) ---- */

/* RIDGE_ARRIVAL_OFFLINE (continuous batching only): every request is queued at time 0, an
 * offline throughput benchmark (trtllm-bench, vLLM's benchmark_throughput); no warm-up. */
typedef enum {
    RIDGE_ARRIVAL_POISSON = 0,
    RIDGE_ARRIVAL_CONSTANT,
    RIDGE_ARRIVAL_TRACE,
    RIDGE_ARRIVAL_OFFLINE
} ridge_arrival_kind;
typedef enum { RIDGE_SERVICE_DETERMINISTIC = 0, RIDGE_SERVICE_EXPONENTIAL, RIDGE_SERVICE_EMPIRICAL } ridge_service_kind;

typedef struct {
    ridge_arrival_kind arrival;
    double rate_per_s;        /* Poisson and constant arrivals */
    const double *trace_s;    /* trace: nondecreasing arrival times (borrowed) */
    size_t trace_n;
    ridge_service_kind service;
    double mean_service_s;    /* deterministic, exponential */
    const double *table_s;    /* empirical: equally likely service times (borrowed) */
    size_t table_n;
    int servers;              /* FIFO servers, >= 1 */
    /* Dynamic batching (one server): max_batch >= 1 turns it on; the server takes up to max_batch
     * waiting requests, holding a partial batch at most batch_timeout_s after its oldest arrival;
     * a batch of b takes batch_service_s[b - 1]. */
    int max_batch;
    double batch_timeout_s;
    const double *batch_service_s; /* borrowed, max_batch entries */
    size_t customers;         /* measured requests (a trace: at most trace_n - warmup) */
    size_t warmup;            /* requests discarded first */
    size_t ci_batches;        /* batch means for the confidence interval (>= 2) */
    unsigned long seed;
} ridge_des_config;

typedef struct {
    size_t customers;          /* measured */
    double mean_latency_s;
    double ci95_half_width_s;  /* batch-means 95 % confidence half-width of the mean latency */
    double mean_wait_s;
    double p50_s, p90_s, p99_s;
    double utilisation;        /* busy server time / (servers x simulated span) */
    double throughput_per_s;   /* measured completions / their span */
    double mean_batch;         /* requests per batch (1 without batching) */
    /* How long the queue takes to forget its state, in arrivals: the heavy-traffic relaxation
     * time rho (ca2 + cs2) / (2 (1 - sqrt rho)^2) at the measured utilisation rho (exact for
     * M/M/1, Morse; ca2, cs2 the squared coefficients of variation of the gaps between arrivals
     * and of the service) (docs/serving.md). */
    double relaxation_customers;
    /* 1 when a batch of the confidence interval spans fewer than RIDGE_DES_MIN_RELAXATIONS
     * relaxation times (or rho >= 1): its means are correlated and the interval understates the
     * error (at rho = 0.999 in 200,000 requests it missed the exact mean by a factor of 2). */
    int short_run;
} ridge_des_result;

#define RIDGE_DES_MIN_RELAXATIONS 5.0

/* Defaults: Poisson, exponential, one server, no batching, 200000 customers, 10000 warm-up,
 * 20 batches, seed 1. */
void ridge_des_config_init(ridge_des_config *c);
int ridge_des_run(const ridge_des_config *c, ridge_des_result *r, ridge_err *err);

/* ---- Dynamic batching server (model/serve/queue_batch.c) ---- */

typedef struct {
    double rate_per_s;
    int max_batch;
    double batch_timeout_s;
    const double *batch_service_s; /* s(b), b = 1..max_batch (borrowed) */
    size_t customers;
    unsigned long seed;
} ridge_batch_params;

/* Stability (rate < max_batch / s(max_batch), the saturation rate) and, when stable, the DES
 * result: there is no closed form for the latency of this server. */
int ridge_queue_batch(const ridge_batch_params *p, ridge_queue_result *r, ridge_des_result *sim, ridge_err *err);

/* ---- Queue models as const descriptors (GSL's gsl_multifit_nlinear_trs_lm habit) ----
 *
 * A serving deployment picks its queue model once, by pointer, and every evaluation goes through
 * it: no branch on the batch size at each call. The system the models read: */
typedef struct {
    double rate_per_s;             /* arrivals to the whole system */
    int servers;                   /* identical servers (replicas) */
    const double *service_s;       /* s(b), b = 1..max(1, max_batch) (borrowed); s(1) for one at a time */
    double service_cs2;            /* squared CV of s(1): 0 deterministic, 1 exponential */
    int max_batch;                 /* batching: most requests per batch */
    double batch_timeout_s;        /* batching: longest wait for a batch to fill */
    size_t customers;              /* batching: simulated requests */
    unsigned long seed;
} ridge_queue_system;

typedef struct {
    const char *name; /* "mg1", "mgc", "batch" */
    /* The result of the system: closed form, or simulation for batching. */
    int (*eval)(const ridge_queue_system *sys, ridge_queue_result *r, ridge_err *err);
} ridge_queue_type;

/* M/G/1 (servers must be 1); M/G/c (Erlang C, Allen-Cunneen; M/G/1 for one server); dynamic
 * batching, the arrivals split evenly over the servers, each a batching server simulated
 * (ridge_queue_batch), its saturation and throughput scaled to the whole system. */
extern const ridge_queue_type *const ridge_queue_type_mg1;
extern const ridge_queue_type *const ridge_queue_type_mgc;
extern const ridge_queue_type *const ridge_queue_type_batch;

/* ---- Continuous batching of LLM requests (model/serve/des_llm.c) ----
 *
 * Iteration-level scheduling (Orca, vLLM): before each iteration the scheduler admits waiting
 * requests in arrival order while fewer than max_batch run and the KV cache can hold the new
 * request's whole final context (prompt + output tokens, reserved on admission, so nothing is
 * ever preempted); the iteration prefills the newly admitted prompts whole, which yields their
 * first output token, and decodes one token for every request admitted earlier; with max_tokens
 * the decodes come first and the prompts are prefilled in chunks filling the rest of the budget
 * (chunked prefill). A request leaves after its last output token. */

/* Time of one iteration: decode one token for decode_batch requests whose mean context (tokens in
 * the KV cache) is mean_context_tokens, plus the prefill of prefill_requests prompts holding
 * prefill_tokens tokens in all. Either part may be 0 (not both). Non-zero return = failure. */
typedef int (*ridge_llm_iter_fn)(double decode_batch, double mean_context_tokens, double prefill_requests,
                                 double prefill_tokens, void *ctx, double *time_s);

typedef struct {
    ridge_arrival_kind arrival;  /* Poisson, constant, trace or offline (all at time 0) */
    double rate_per_s;           /* Poisson and constant arrivals */
    double prompt_tokens;        /* Poisson, constant and offline: every request's prompt (>= 1) */
    double output_tokens;        /* ... and output (>= 1) */
    const double *trace_s;       /* trace: nondecreasing arrival times (borrowed) */
    const double *trace_prompt;  /* trace: prompt tokens per request (borrowed) */
    const double *trace_output;  /* trace: output tokens per request (borrowed) */
    size_t trace_n;
    int max_batch;               /* most running requests (>= 1) */
    double max_tokens;           /* tokens per iteration, decodes first, prompts chunked to fill the
                                  * rest (chunked prefill); 0 = no limit, whole prompts; else >= max_batch */
    double kv_bytes_per_token;   /* 2 layers kv_heads head_dim bytes; 0 = KV not limiting */
    double kv_capacity_bytes;    /* memory - weights - workspace; ignored when kv_bytes_per_token is 0 */
    ridge_llm_iter_fn iter_time; /* the cost model */
    ridge_llm_iter_fn prefill_time; /* optional: the prompts' part of an iteration alone (same ctx;
                                     * called with no decodes), for the reported prefill share */
    void *iter_ctx;
    size_t requests;             /* measured requests (a trace: at most trace_n - warmup) */
    size_t warmup;               /* requests discarded first (offline: must be 0) */
    unsigned long seed;
} ridge_llm_config;

typedef struct {
    double mean_s, p50_s, p90_s, p99_s;
} ridge_llm_stats;

typedef struct {
    size_t requests;               /* measured */
    int stable;                    /* completions kept up with arrivals over the second half, and the
                                    * offered rate is below saturation_rate_per_s */
    double arrival_rate_2nd_half_per_s;    /* arrivals / time over the second half of the arrivals */
    double completion_rate_2nd_half_per_s; /* completions over the same window */
    double saturation_rate_per_s;  /* estimate: B_eff / (O t(B_eff)) (docs/serving.md) */
    int kv_max_running;            /* requests whose full context fits the KV cache (max_batch if unlimited) */
    ridge_llm_stats ttft;          /* arrival to first output token */
    ridge_llm_stats tpot;          /* (e2e - ttft) / (output - 1), requests with output > 1 */
    ridge_llm_stats e2e;           /* arrival to last output token */
    double throughput_per_s;       /* measured completions / their span */
    double output_tokens_per_s;
    double mean_batch;             /* running requests per iteration (mean over iterations) */
    double mean_iteration_s;
    double prefill_share;          /* of the measured iterations' time, the prefills': prompt-only
                                    * iterations whole, mixed ones by prefill_time (without it they
                                    * count as decoding); the rest is decoding */
    double max_queue;              /* most requests waiting at an iteration start */
    size_t iterations;
} ridge_llm_result;

/* Defaults: Poisson, prompt 512, output 128, max_batch 256, no KV limit, 20000 requests, 2000
 * warm-up, seed 1. The caller sets the rate (or trace) and iter_time. */
void ridge_llm_config_init(ridge_llm_config *c);

/* Simulate; an unstable run (stable = 0) still has finite statistics, of a finite run only.
 * RIDGE_EINVAL for a bad configuration (a request whose context alone exceeds the KV cache
 * included), the callback's failure as RIDGE_EINVAL, RIDGE_ENOMEM. */
int ridge_llm_run(const ridge_llm_config *c, ridge_llm_result *r, ridge_err *err);

#ifdef __cplusplus
}
#endif
#endif
