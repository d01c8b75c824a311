/* ridge — capacity planning: evaluate a what-if space of GPUs, counts, batches and precisions,
 * filter it by constraints and rank it (docs/planning.md).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A ridge_plan is an opaque engine built once from a ridge_plan_spec: ridge_plan_alloc predicts
 * every (GPU, precision, recompute, batch) step on one GPU and every (GPU, precision, count) gradient
 * all-reduce up front (the memo); ridge_plan_eval then turns one configuration index into a
 * ridge_plan_result with arithmetic only, allocating nothing, so any number of threads may call
 * it on the same plan at once. The spec's arrays are copied; the model is borrowed and must
 * outlive the plan. */
#ifndef RIDGE_PLAN_H
#define RIDGE_PLAN_H

#include <stddef.h>

#include "ridge/cluster.h"
#include "ridge/error.h"
#include "ridge/gpu.h"
#include "ridge/kernel.h"
#include "ridge/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { RIDGE_PLAN_COST = 0, RIDGE_PLAN_TIME, RIDGE_PLAN_ENERGY, RIDGE_PLAN_GPUS, RIDGE_PLAN_OBJECTIVE_COUNT } ridge_plan_objective;

/* Why a configuration is infeasible; the first that applies, in this order. Memory is checked
 * before the step is scheduled, so a precision the GPU's kernels lack (found by scheduling) is
 * reported only for runs that fit; one without any peak for the precision is reported first. */
typedef enum {
    RIDGE_PLAN_FEASIBLE = 0,
    RIDGE_PLAN_UNSUPPORTED, /* "unsupported precision": the GPU lacks the precision's path */
    RIDGE_PLAN_INVALID,     /* "invalid run": the model cannot run this configuration */
    RIDGE_PLAN_OOM,         /* "out of memory" */
    RIDGE_PLAN_NO_PRICE,    /* "no price": cost objective or budget, and no price for the GPU */
    RIDGE_PLAN_DEADLINE,    /* "misses deadline" */
    RIDGE_PLAN_BUDGET,      /* "over budget" */
    RIDGE_PLAN_POWER,       /* "over power cap" */
    RIDGE_PLAN_SLO,         /* "SLO unreachable": serving plans only (ridge/serve_plan.h) */
    RIDGE_PLAN_LAYOUT,      /* "invalid parallel layout": parallelism ranges only (checked first) */
    RIDGE_PLAN_REASON_COUNT
} ridge_plan_reason;

typedef enum { RIDGE_PLAN_TARGET_SAMPLES = 0, RIDGE_PLAN_TARGET_TOKENS } ridge_plan_target;

/* "cost", "time", "energy", "gpus"; parse: RIDGE_OK, or RIDGE_EINVAL when unknown (ridge/names.h). */
extern const ridge_names ridge_plan_objective_names;
const char *ridge_plan_objective_name(ridge_plan_objective o);
int ridge_plan_objective_parse(const char *s, ridge_plan_objective *out);
const char *ridge_plan_reason_name(ridge_plan_reason r);           /* "out of memory" */
const char *ridge_plan_reason_key(ridge_plan_reason r);            /* "out_of_memory" */

#define RIDGE_PLAN_MAX_DIM 4096

typedef struct {
    const ridge_model *model; /* borrowed */
    ridge_run_config run;     /* mode, seq, optimizer...; batch and precision come from the lists */
    ridge_runtime runtime;
    const ridge_gpu *gpus;    /* candidate GPUs (MIG slices are GPUs of their own) */
    const double *price_usd_per_hour; /* per GPU, overrides the catalogue when > 0; may be NULL */
    size_t ngpus;
    const ridge_dtype *precisions;
    size_t nprecisions;
    const int *counts; /* GPUs per configuration (data parallel) */
    size_t ncounts;
    const double *batches; /* per-GPU batch (sequences or images per step on one GPU) */
    size_t nbatches;
    ridge_plan_target target_kind;
    double target;        /* samples or tokens to process, > 0 */
    double deadline_s;    /* 0 = none */
    double budget_usd;    /* 0 = none */
    double power_cap_w;   /* 0 = none: limits count x TDP */
    ridge_plan_objective objective;
    int no_comm;          /* 1: ignore the gradient all-reduce (ideal scaling) */
    int threads;          /* for building the memo; <= 0 means 1 */
    /* Parallelism ranges (docs/planning.md, "Parallelism ranges"): NULL or empty = {1}, {1}, {0}.
     * When any value differs from the default, each configuration is predicted with
     * ridge_parallel_predict (training only) instead of the memoised data-parallel arithmetic. */
    const int *tps;       /* tensor-parallel sizes, 1..1024 */
    size_t ntps;
    const int *pps;       /* pipeline-parallel sizes, 1..1024 */
    size_t npps;
    const int *zeros;     /* ZeRO stages, 0..3 */
    size_t nzeros;
    /* Searched dimensions (docs/planning.md, "Searched dimensions"); NULL or empty = the default
     * alone: run.recompute, sequence parallelism off, 1F1B, global batch = batch x dp x pp. */
    const ridge_recompute *recomputes; /* activation recomputation per configuration */
    size_t nrecomputes;
    const int *sps;       /* Megatron sequence parallelism: 0 or 1 (1 needs tp > 1) */
    size_t nsps;
    const int *vstages;   /* virtual pipeline stages, 1..64: 1 = 1F1B, > 1 = interleaved (needs pp > 1) */
    size_t nvstages;
    const double *global_batches; /* sequences per optimizer step, integers 1..1e9 (training) */
    size_t nglobal_batches;
    /* The fabric (ridge/cluster.h), or NULL for the one derived from each GPU. With a cluster the
     * GPU list is the cluster's GPU alone; a count of N GPUs is N / gpus_per_node of its nodes
     * (N a multiple of gpus_per_node) or one node of N (N < gpus_per_node). Copied. */
    const ridge_cluster *cluster;
} ridge_plan_spec;

/* Zeros, run config defaults, objective cost, eager runtime. */
void ridge_plan_spec_init(ridge_plan_spec *s);

typedef struct {
    size_t index;       /* position in the space: ((((((((((gpu x nprec + prec) x ncounts + count) x nbatches
                           + batch) x nglobal + global) x nrecompute + recompute) x ntps + tp) x nsps + sp)
                           x npps + pp) x nvstages + v) x nzeros + zero; a dimension not searched has
                           one value (so the index is today's without the new dimensions) */
    int gpu;            /* index into spec.gpus */
    ridge_dtype precision;
    int count;          /* GPUs */
    double batch;       /* per GPU (with parallelism ranges: the microbatch) */
    int tp, pp, zero;   /* 1, 1, 0 unless the spec has parallelism ranges */
    ridge_recompute recompute; /* spec.run.recompute unless the spec has recomputes */
    int sp, vstages;    /* 0, 1 unless searched */
    double global_batch; /* sequences per step: a listed global batch, else batch x dp x pp */
    double microbatches; /* per step: global_batch / (dp x batch) */
    ridge_plan_reason reason;
    double step_time_s;  /* one data-parallel step: single-GPU step + exposed all-reduce */
    double comm_s;       /* the all-reduce of the gradients (0 for inference, one GPU, no_comm) */
    double steps;        /* ceil(target / items per step, all GPUs) */
    double time_s;       /* steps x step_time_s */
    double cost_usd;     /* count x hours x price; NaN without a price */
    double price_usd_per_hour;
    double utilisation;  /* compute-bound share of the step */
    double power_w;      /* average per GPU: idle + utilisation x (TDP - idle) */
    double energy_j;     /* power_w x count x time_s */
    double memory_bytes; /* per GPU */
    double throughput;   /* target units (samples or tokens) per second, all GPUs */
    int pareto;          /* set by ridge_plan_pareto */
} ridge_plan_result;

typedef struct ridge_plan ridge_plan; /* opaque */

/* Check the spec and build the memo. EINVAL (message names the field) for empty lists, counts
 * < 1, batches < 1, a target <= 0, a target in tokens for a model without tokens, values of the
 * searched dimensions out of range, sps/vstages/global_batches outside training, or a cluster
 * whose GPU is not the spec's only GPU. ENOMEM. */
int ridge_plan_alloc(const ridge_plan_spec *spec, ridge_plan **out, ridge_err *err);
void ridge_plan_free(ridge_plan *p); /* NULL is harmless */
size_t ridge_plan_size(const ridge_plan *p); /* configurations in the space */
const ridge_plan_spec *ridge_plan_get_spec(const ridge_plan *p); /* the plan's own copy */
/* 1 when the spec has parallelism ranges other than the defaults (or sps, vstages or global
 * batches: configurations then go through the parallel model, a context per thread). */
int ridge_plan_is_parallel(const ridge_plan *p);
/* Evaluate configuration i (< size). Reentrant. Without parallelism ranges it allocates nothing;
 * with them it makes and frees a ridge_plan_ctx per call (reason "invalid run" when out of memory):
 * a caller evaluating many configurations keeps one context per thread instead. */
void ridge_plan_eval(const ridge_plan *p, size_t i, ridge_plan_result *r);

/* Per-thread state of the parallel evaluation (docs/planning.md, "Parallelism ranges"): the
 * fabric of the last (GPU, count), a few prepared models (ridge/parallel.h) keyed by precision,
 * recompute, microbatch and microbatches per step, and a ridge_parallel_ctx with its memos. A context
 * serves one plan on one thread at a time; results are those of ridge_plan_eval. */
typedef struct ridge_plan_ctx ridge_plan_ctx; /* opaque */
int ridge_plan_ctx_alloc(const ridge_plan *p, ridge_plan_ctx **out, ridge_err *err); /* ENOMEM */
void ridge_plan_ctx_free(ridge_plan_ctx *c); /* NULL is harmless */
/* ridge_plan_eval with a context of p (NULL: only without parallelism ranges). After the context
 * has seen the model's graphs, allocates nothing. */
void ridge_plan_eval_ctx(const ridge_plan *p, ridge_plan_ctx *c, size_t i, ridge_plan_result *r);
/* Evaluate [first, first + n) into r[0..n) on `threads` threads (results as one thread gives),
 * each thread with a ridge_plan_ctx of its own.
 * Returns 0, or ENOMEM/EINVAL when threads cannot be started (then nothing is written). */
int ridge_plan_eval_range(const ridge_plan *p, size_t first, size_t n, int threads, ridge_plan_result *r,
                          ridge_err *err);

/* The objective's value of a result (cost_usd, time_s, energy_j, count). */
double ridge_plan_objective_value(const ridge_plan_result *r, ridge_plan_objective o);
/* Order of the feasible results by objective, then time, then cost, then index (NaN last):
 * writes their positions in r to order[] (capacity n) and returns how many there are.
 * Allocates nothing (an in-place heap sort). */
size_t ridge_plan_rank(const ridge_plan_result *r, size_t n, ridge_plan_objective o, size_t *order);
/* Mark (r[i].pareto = 1) the feasible results not dominated in (time_s, cost_usd) — or
 * (time_s, energy_j) when use_energy — by another feasible result; results with a NaN cost
 * take no part in the cost front. Returns the size of the front. `scratch` has n entries. */
size_t ridge_plan_pareto(ridge_plan_result *r, size_t n, int use_energy, size_t *scratch);

/* ---- streaming selection: the top K and the Pareto front, chunk by chunk ---- */

/* What ridge_plan_rank and ridge_plan_pareto give, without the whole space in memory: feed the
 * results in any order, chunk by chunk; the selection keeps the K best by the objective (a
 * K-entry heap on compact keys) and the front so far (time, second axis, index), so memory is
 * bounded by K and the front. The ranked rows, their pareto marks and the counts are exactly
 * those of ridge_plan_rank and ridge_plan_pareto over the same results. */
typedef struct ridge_plan_select ridge_plan_select; /* opaque */

/* k >= 1 rows; use_energy as in ridge_plan_pareto. EINVAL for k = 0, ENOMEM. */
int ridge_plan_select_alloc(size_t k, ridge_plan_objective o, int use_energy, ridge_plan_select **out,
                            ridge_err *err);
void ridge_plan_select_free(ridge_plan_select *s); /* NULL is harmless */
/* Take r[0..n). ENOMEM when the front cannot grow (the selection is then unchanged by r[i..n)). */
int ridge_plan_select_add(ridge_plan_select *s, const ridge_plan_result *r, size_t n, ridge_err *err);
/* The ranked rows (at most K, pareto set) and their number; the feasible results taken so far
 * and the size of their front. Valid until the next add or free. */
const ridge_plan_result *ridge_plan_select_rows(ridge_plan_select *s, size_t *nrows);
size_t ridge_plan_select_feasible(const ridge_plan_select *s);
size_t ridge_plan_select_front(const ridge_plan_select *s);

/* Merging selections of disjoint results (MPI ranks, each with its own selection): a point of a
 * front, and the front so far, ascending by time: the first min(cap, front size) points are
 * written to out; returns the front's size (ridge_plan_select_front). */
typedef struct {
    double time_s, y; /* y: cost_usd, or energy_j with use_energy */
    size_t index;
} ridge_plan_front_point;
size_t ridge_plan_select_front_points(const ridge_plan_select *s, ridge_plan_front_point *out, size_t cap);
/* Take another selection's rows (ridge_plan_select_rows), front points and feasible count, the
 * other selection having the same k, objective and use_energy and results disjoint from this
 * one's: afterwards this one is exactly what it would be had it taken the other's results too
 * (the outcome does not depend on the order of adds and merges). ENOMEM as for add. */
int ridge_plan_select_merge(ridge_plan_select *s, const ridge_plan_result *rows, size_t nrows,
                            const ridge_plan_front_point *front, size_t nfront, size_t feasible, ridge_err *err);

/* ---- one single-GPU step from the memo (charts) ---- */

typedef struct {
    ridge_plan_reason reason; /* FEASIBLE, UNSUPPORTED, INVALID or OOM */
    double step_s;            /* one step on one GPU (no communication) */
    double items;             /* target units (samples or tokens) per step */
    double memory_bytes;
    double time_by_bound_s[RIDGE_BOUND_COUNT]; /* the schedule's split of the step */
} ridge_plan_step_info;

/* The memoised step of (gpu, precision, batch), indices into the spec's lists. EINVAL when an
 * index is out of range. */
int ridge_plan_step(const ridge_plan *p, size_t gpu, size_t precision, size_t batch, ridge_plan_step_info *out,
                    ridge_err *err);

/* A GPU's best single-GPU step (the charts' "best batch"): the precision and batch of the spec's
 * lists with the highest throughput among the steps that fit, and what it gives. */
typedef struct {
    size_t precision, batch;   /* indices into the spec's lists */
    ridge_plan_step_info step;
    double throughput_per_s;   /* step.items / step.step_s: target units per second, one GPU */
    double power_w;            /* ridge_plan_power_w at the step's compute-bound share */
    double throughput_per_w;   /* throughput_per_s / power_w */
    double units_per_usd;      /* throughput_per_s x 3600 / price per GPU-hour; NaN without a price */
} ridge_plan_best;

/* The best step of GPU gpu (an index into the spec's gpus) into *out: 1, or 0 when no precision
 * and batch fit (or gpu is out of range; *out is then untouched). Ties keep the first in the
 * spec's order (precision, then batch). */
int ridge_plan_best_step(const ridge_plan *p, size_t gpu, ridge_plan_best *out);

/* Power model (docs/planning.md): idle = 0.25 x TDP; P = idle + utilisation x (TDP - idle). */
#define RIDGE_PLAN_IDLE_FRACTION 0.25
double ridge_plan_power_w(double tdp_w, double utilisation);

#ifdef __cplusplus
}
#endif
#endif
