/* ridge — serving a model at a request rate: service times from the performance model, the queue
 * or continuous-batching simulation at a rate, the SLO checks and the searches for the highest
 * rate and the fewest replicas that meet them (docs/serving.md). Implemented in model/serve/serve.c.
 *
 * The caller fills a ridge_serve (the model, the run, the deployment, and the step-time function
 * that prices one run of one replica), calls ridge_serve_prepare once per GPU, then evaluates
 * and searches. Nothing here prints, exits or keeps global state: a prepared context is read
 * only by the evaluations, so one context can be evaluated from many threads. Messages name the
 * fields of the JSON output (prompt_tokens, output_tokens, slo e2e_p99_s ...), never a flag. */
#ifndef RIDGE_SERVE_H
#define RIDGE_SERVE_H

#include <stddef.h>

#include "ridge/comm.h"
#include "ridge/error.h"
#include "ridge/host.h"
#include "ridge/gpu.h"
#include "ridge/queue.h"
#include "ridge/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RIDGE_SERVE_MAX_BATCH 1024 /* the largest max_batch (s(b) is tabulated for each b) */
#define RIDGE_SERVE_GRID_CTX 6     /* continuous batching's decode-time grid: context points */
#define RIDGE_SERVE_GRID_BATCH 12  /* ... batch points: 1, 2, 4, ..., max_batch */
#define RIDGE_SERVE_DEFAULT_PROMPT 512 /* prompt tokens of a run that gives none */
/* Continuous batching: the most output tokens one simulation generates, warm-up included (each
 * costs a step of the simulated scheduler; 2e8 take a few seconds). With a token budget per
 * iteration the prompt chunks count too (ridge_serve_sim_steps). */
#define RIDGE_SERVE_MAX_SIM_TOKENS 200000000

/* The scheduler steps one request costs a simulation: its output tokens, plus with a token budget
 * max_tokens > 0 the iterations its prompt's chunks take beyond the one giving its first token,
 * ceil(prompt / max_tokens) - 1. */
double ridge_serve_sim_steps(double prompt, double output, double max_tokens);

/* Time of one run (rc: batch, mode, prompt or context) of one replica, and (mem, may be NULL)
 * the memory per GPU. Returns RIDGE_OK or a status with err filled. */
typedef int (*ridge_serve_step_fn)(const ridge_run_config *rc, void *ctx, double *time_s, ridge_memory *mem,
                                   ridge_err *err);

typedef struct {
    /* ---- filled by the caller ---- */
    const ridge_gpu *g;       /* the replica's GPU (the capacity of the KV cache, messages) */
    const ridge_model *m;
    ridge_run_config run;     /* mode infer (one pass) or prefill/decode; prompt 0 = the default */
    ridge_serve_step_fn step; /* the performance model of one replica */
    void *step_ctx;
    int tensor_parallel;      /* replicas of tensor-parallel groups (a cluster): the KV cache and free
                               * memory come from the step's memory per GPU, not the model's */
    int gpus_per_replica;     /* tensor-parallel GPUs per replica (>= 1) */
    int llm;                  /* a decoder LLM: prefill + output x decode */
    int continuous;           /* continuous batching (llm only); else the queue models */
    double output;            /* output tokens per request (llm) */
    int max_batch;            /* queue models: 0 = no batching; continuous: most running requests */
    double max_tokens;        /* continuous: tokens per iteration, prompts chunked (0 = no limit) */
    double timeout_s;         /* dynamic batching: longest wait for a batch to fill */
    int replicas;
    int max_replicas;         /* the limit of the replica search */
    unsigned long seed;
    size_t customers;         /* dynamic batching: simulated requests */
    size_t requests;          /* continuous batching: simulated requests (a tenth more as warm-up;
                               * offline: all of them, split over the replicas, no warm-up) */
    double kv_fraction;       /* continuous batching: share of the free memory the KV cache takes
                               * (the host profile's kv_memory_fraction; 0 = all of it) */
    int offline;              /* continuous batching: every request queued at time 0 (an offline
                               * throughput benchmark); the rate is not used. Exclusive with a trace */
    const double *trace_s, *trace_prompt, *trace_output; /* a trace (borrowed; trace_n = 0: Poisson) */
    size_t trace_n;

    /* ---- filled by ridge_serve_prepare ---- */
    const ridge_queue_type *queue;               /* the queue model (not continuous) */
    double service_s[RIDGE_SERVE_MAX_BATCH];     /* s(b), b = 1..max(1, max_batch) */
    int nb, nc;                                  /* continuous: grid sizes */
    double grid_b[RIDGE_SERVE_GRID_BATCH], grid_c[RIDGE_SERVE_GRID_CTX];
    double decode_s[RIDGE_SERVE_GRID_BATCH][RIDGE_SERVE_GRID_CTX]; /* one decode step at batch b, context c */
    double prefill_s[RIDGE_SERVE_GRID_BATCH];    /* prefill of b prompts of prefill_prompt tokens */
    double prefill_prompt;
    double kv_bytes_per_token, kv_capacity_bytes;
} ridge_serve;

/* Latency objectives of continuous batching, in milliseconds as they are given (a comparison in
 * seconds would round differently); 0 = not set. */
typedef struct {
    double e2e_p99_ms, ttft_p99_ms, tpot_p99_ms;
} ridge_serve_slo;

/* Which objective an SLO check names (the fields of ridge_serve_slo). */
typedef enum { RIDGE_SERVE_SLO_NONE = 0, RIDGE_SERVE_SLO_E2E, RIDGE_SERVE_SLO_TTFT, RIDGE_SERVE_SLO_TPOT } ridge_serve_slo_kind;

/* The prompt of a run without a trace: run.prompt, else RIDGE_SERVE_DEFAULT_PROMPT. */
double ridge_serve_prompt(const ridge_serve *s);

/* The queue model of a deployment, chosen once: dynamic batching with max_batch > 0, else M/G/c
 * (which is M/G/1 for one server, so a replica search may vary the servers). */
const ridge_queue_type *ridge_serve_queue_for(int max_batch);

/* The longest request (a trace's, else prompt + output) must fit the model at its last decode
 * step. On failure *prompt and *output are that request's and err holds the model's reason. */
int ridge_serve_check_request(const ridge_serve *s, double *prompt, double *output, ridge_err *err);

/* One replica's run, the step function most callers want (ridge_serve_replica_step, ctx a
 * ridge_serve_replica): on one GPU, ridge_predict_model under the host profile; a tensor-parallel
 * replica (cl: tp GPUs of one node, cut from a cluster) with ridge_parallel_predict under the same
 * profile: its code style and decode attention (ridge_host_apply), runtimes (an engine's decode
 * steps as CUDA graphs) and a prefill's per-request work (ridge_parallel_add_request); with
 * `sustained`, on the GPU under sustained load (ridge_gpu.sustained_load). */
typedef struct {
    const ridge_gpu *g;           /* one GPU (cl NULL) */
    const ridge_cluster *cl;      /* or the replica's cluster */
    int tp;                       /* its tensor-parallel size (cl) */
    const ridge_model *m;
    const ridge_host_profile *hp; /* never NULL */
    int sustained;                /* a full load for minutes (an offline run): the GPU's power-limited
                                   * tensor clock applies (sustained_tensor_clock_hz, docs/serving.md) */
} ridge_serve_replica;

int ridge_serve_replica_step(const ridge_run_config *rc, void *ctx, double *time_s, ridge_memory *mem, ridge_err *err);

/* One replica's cluster cut from cl: tp GPUs of one node, with their share of the node's network
 * (inter_bw x tp / GPUs per node). The caller has checked that tp divides the GPUs per node. */
void ridge_serve_replica_cluster(const ridge_cluster *cl, int tp, ridge_cluster *out);

/* The service times (queue models) or the iteration-time grid and KV cache (continuous) on s->g. */
int ridge_serve_prepare(ridge_serve *s, ridge_err *err);

/* The queue models at a total rate over `replicas` replicas (s->queue). */
int ridge_serve_eval(const ridge_serve *s, double rate_per_s, int replicas, ridge_queue_result *r, ridge_err *err);

/* Continuous batching: one replica simulated at rate / replicas (a trace: every replicas-th request). */
int ridge_serve_llm_eval(const ridge_serve *s, double rate_per_s, int replicas, ridge_llm_result *r, ridge_err *err);

/* The iteration cost of the simulator (a ridge_llm_iter_fn; ctx is the prepared ridge_serve). */
int ridge_serve_iter_cost(double decode_batch, double mean_context_tokens, double prefill_requests,
                          double prefill_tokens, void *ctx, double *time_s);

/* 1 when the run is stable and every objective set holds. */
int ridge_serve_slo_holds(const ridge_serve_slo *slo, const ridge_llm_result *r);

/* A request alone: TTFT >= prefill(P), TPOT >= decode(1, P), e2e >= TTFT + (O - 1) TPOT with P, O the
 * shortest prompt and output. */
typedef struct {
    int known;             /* 0 when the floor could not be priced (the search decides) */
    double prompt, output; /* P and O */
    double ttft_s, tpot_s, e2e_s;
} ridge_serve_floor;

/* The floor, and (return value) the first objective below it (RIDGE_SERVE_SLO_NONE: feasible). */
ridge_serve_slo_kind ridge_serve_llm_floor(const ridge_serve *s, const ridge_serve_slo *slo, ridge_serve_floor *f);

/* The fewest replicas in [1, s->max_replicas] whose p99 is within slo_p99_s at the rate (queue
 * models) or that meet the SLOs (continuous). *replicas = 0 when none does. */
int ridge_serve_find_replicas(const ridge_serve *s, double rate_per_s, double slo_p99_s, int *replicas, ridge_err *err);
int ridge_serve_llm_find_replicas(const ridge_serve *s, double rate_per_s, const ridge_serve_slo *slo, int *replicas,
                                  ridge_err *err);

/* The highest rate over s->replicas whose p99 is within slo_p99_s (Brent's method); 0 when even a
 * tiny rate misses it. */
int ridge_serve_find_rate(const ridge_serve *s, double slo_p99_s, double *rate_per_s, ridge_err *err);

/* Continuous batching: the highest rate that meets the SLOs (bisection; the simulation's fixed
 * seed makes each probe deterministic). When even the lowest rate probed misses them, *rate_per_s
 * is 0, *low_rate_per_s that rate and *at_low its result. */
int ridge_serve_llm_find_rate(const ridge_serve *s, const ridge_serve_slo *slo, double *rate_per_s,
                              double *low_rate_per_s, ridge_llm_result *at_low, ridge_err *err);

/* A trace: arrival_s,prompt,output per line (CSV, an optional header, # comments) or JSON lines
 * {"arrival_s": T, "prompt": P, "output": O}; at least 20 requests, arrivals nondecreasing. On
 * success *cols holds n arrivals, then n prompts, then n outputs (the caller frees it).
 * Messages name the file and line. */
int ridge_serve_trace_load(const char *path, double **cols, size_t *n, ridge_err *err);

#ifdef __cplusplus
}
#endif
#endif
