/* ridge — multi-GPU training and inference: tensor, pipeline, data and expert parallelism with
 * ZeRO (docs/parallel.md).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * ridge_parallel_predict shards one microbatch's operator graph the way Megatron-LM does (TP
 * splits heads, FFN and vocabulary; PP splits the layers), predicts it on the cluster's GPU,
 * then adds the collectives of ridge/comm.h and the pipeline bubble. Transformers take every
 * kind of parallelism; other families take data parallelism only (tp = pp = ep = 1). Plain
 * values in and out; allocates nothing the caller frees. */
#ifndef RIDGE_PARALLEL_H
#define RIDGE_PARALLEL_H

#include "ridge/comm.h"
#include "ridge/error.h"
#include "ridge/host.h"
#include "ridge/kernel.h"
#include "ridge/schedule.h"
#include "ridge/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { RIDGE_PP_1F1B = 0, RIDGE_PP_INTERLEAVED } ridge_pp_schedule;

/* "1f1b", "interleaved"; parse: RIDGE_OK, or RIDGE_EINVAL when unknown (ridge/names.h). */
extern const ridge_names ridge_pp_schedule_names;
const char *ridge_pp_schedule_name(ridge_pp_schedule s);
int ridge_pp_schedule_parse(const char *s, ridge_pp_schedule *out);

/* PyTorch FSDP sharding strategies (docs/parallel.md, "Data parallelism"). */
typedef enum { RIDGE_FSDP_NONE = 0, RIDGE_FSDP_FULL, RIDGE_FSDP_GRAD_OP, RIDGE_FSDP_HYBRID } ridge_fsdp_mode;

/* "none", "full", "grad-op", "hybrid"; parse: RIDGE_OK, or RIDGE_EINVAL when unknown. */
extern const ridge_names ridge_fsdp_mode_names;
const char *ridge_fsdp_mode_name(ridge_fsdp_mode f);
int ridge_fsdp_mode_parse(const char *s, ridge_fsdp_mode *out);

/* Defaults of the data-parallel schedule (docs/parallel.md). */
#define RIDGE_DP_BUCKET_BYTES (25.0 * 1048576.0) /* PyTorch DDP bucket_cap_mb = 25 */
#define RIDGE_PARALLEL_MAX_BUCKET_BYTES (1e6 * 1048576.0) /* the largest bucket: 1e6 MiB */
#define RIDGE_NCCL_CHANNELS 16                    /* CTAs (SMs) a collective occupies while it overlaps */

typedef struct {
    int tp, pp, dp, ep;    /* group sizes; tp x pp x dp = the cluster's GPUs; ep divides dp */
    int zero;              /* 0..3: ZeRO stage (DeepSpeed's schedules; 3 = parameters sharded too) */
    ridge_fsdp_mode fsdp;  /* instead of zero: PyTorch FSDP's schedule (NONE = use zero) */
    int fsdp_group;        /* hybrid: GPUs per shard group, dividing dp; 0 = the GPUs of a node / (tp pp) */
    int prefetch;          /* ZeRO-3 / FSDP: layers whose parameters are gathered ahead (0: none) */
    double bucket_bytes;   /* gradient bucket of the overlapped reduction */
    int grad_reduce_fp32;  /* 1: reduce fp32 main gradients (Megatron), 0: in the parameter dtype */
    int dp_overlap;        /* 1: buckets reduced during the backward pass; 0: after it (Megatron's local DDP) */
    int p2p_scatter_gather; /* 1: pipeline sends split over the tp ranks, all-gathered after (Megatron) */
    int sequence_parallel; /* Megatron sequence parallelism (needs tp > 1 to matter) */
    double microbatch;     /* sequences per microbatch */
    double global_batch;   /* sequences per step, a multiple of dp x microbatch */
    ridge_pp_schedule schedule;
    int virtual_stages;    /* interleaved: model chunks per GPU (1 for 1F1B) */
} ridge_parallel_config;

/* tp = pp = dp = ep = 1, zero 0, no FSDP, prefetch 1, 25 MiB buckets, gradients reduced in the
 * parameter dtype, overlapped; scatter/gather sends; microbatch 1, global batch 1, 1F1B, 1 virtual stage. */
void ridge_parallel_config_init(ridge_parallel_config *pc);

typedef struct {
    double compute_s;          /* microbatches x per-microbatch stage compute, + gradient accumulation */
    double tp_comm_s;          /* tensor-parallel all-reduces (or all-gather/reduce-scatter) */
    double pp_comm_s;          /* point-to-point sends on the critical path */
    double dp_comm_exposed_s;  /* gradient reduction not hidden by the last backward */
    double dp_comm_hidden_s;   /* the part hidden behind it */
    double ep_comm_s;          /* MoE all-to-alls */
    double bubble_s;           /* pipeline fill and drain */
    double optimizer_s;        /* the (sharded) optimizer step */
    double host_s;             /* a prefill's per-request and a step's per-sequence host work
                                * (ridge_parallel_add_request), not overlapped */
} ridge_parallel_breakdown;

typedef struct {
    double step_time_s;
    ridge_parallel_breakdown breakdown;
    int gpus;
    double microbatches;        /* m = global_batch / (dp x microbatch) */
    double bubble_fraction;     /* bubble / (compute + tp + ep + bubble) */
    double compute_bound_s;     /* the step's microbatches' time in compute-bound kernels (the
                                   graph's time_by_bound_s[compute] over its microbatch time,
                                   carried to the stage's): a plan's utilisation */
    double stage_forward_s;     /* one microbatch on one stage, compute only */
    double stage_backward_s;
    double grad_accumulate_s;   /* microbatches 2..m adding their gradients into .grad (in compute_s) */
    double tp_comm_per_microbatch_s;
    double ep_comm_per_microbatch_s;
    double p2p_s;               /* one activation send between stages */
    double dp_bytes;            /* nccl-tests size of the gradient reduction (one GPU's gradient shard) */
    double dp_collective_s;     /* every data-parallel collective of the step, end to end */
    int dp_shard_group;         /* GPUs the optimizer state (ZeRO >= 1, FSDP) is sharded over; 1 without */
    double dp_layer_allgather_s;     /* ZeRO-3 / FSDP: one layer's parameter all-gather */
    double dp_layer_reducescatter_s; /* ZeRO-2/3 / FSDP: one layer's gradient reduce-scatter (+ HSDP all-reduce) */
    double dp_per_microbatch_s;      /* ZeRO-2/3 / FSDP: data-parallel traffic of one microbatch */
    double params;              /* of the whole model */
    double params_per_gpu;      /* params / (tp x pp) */
    double model_flops;         /* of the global batch */
    double model_flops_per_s_per_gpu;
    double mfu;                 /* model FLOPs / (step x GPUs x dense peak of the precision) */
    double throughput;          /* whole cluster, throughput_unit */
    double throughput_per_gpu;
    const char *throughput_unit;
    ridge_memory memory;        /* per GPU */
    double capacity_bytes;
    int fits;
} ridge_parallel_result;

/* The exposed part of a gradient reduction of t_dp_s in buckets of t_bucket_s each (`buckets` of
 * them), issued as a backward pass of backward_s produces them: max(last bucket, what outlasts the
 * backward), plus the compute the hidden part slows down by sm_share (docs/parallel.md). */
double ridge_dp_overlap_exposed_s(double t_dp_s, double t_bucket_s, double buckets, double backward_s,
                                  double sm_share);

/* Share of a GPU's SMs an overlapped NCCL collective occupies: RIDGE_NCCL_CHANNELS / SMs (at most 0.5). */
double ridge_nccl_sm_share(const ridge_gpu *g);

/* The forward, backward and optimizer time of a scheduled single-GPU graph, op by op as
 * ridge_parallel_predict splits it (res: ridge_schedule_ops's results for g). */
void ridge_parallel_step_split(const ridge_oplist *g, const ridge_op_result *res, double *forward_s,
                               double *backward_s, double *optimizer_s);

/* Predict one training step (rc->mode train; rc->batch is ignored: pc gives the batch) or one
 * inference step (prefill, decode, infer: global_batch sequences) on the whole cluster.
 * EINVAL with a one-line message naming the option for: tp x pp x dp != the cluster's GPUs,
 * layers not divisible by pp (x virtual stages), heads (and kv_heads when >= tp) not divisible
 * by tp, global batch not a multiple of dp x microbatch, ep not dividing dp or ep > 1 without
 * experts or not dividing the experts, --fsdp with --zero, an FSDP group that does not divide dp,
 * tp/pp/ep > 1 for a family other than transformer. */
int ridge_parallel_predict(const ridge_cluster *cl, const ridge_model *m, const ridge_run_config *rc,
                           const ridge_parallel_config *pc, ridge_runtime rt, ridge_parallel_result *out,
                           ridge_err *err);

/* A prefill step (rc->mode prefill) starts its requests: add the host profile's request_s (over its
 * cpu_speed on GPU g's host, ridge_host_cpu_speed_on, g may be NULL; an engine session's set-up,
 * input copies, first sampling, docs/model.md §7), and every inference step (prefill, decode,
 * infer) its per-sequence work for the `sequences` a replica's step runs (global_batch / dp;
 * ridge_host_sequences_on), to the step as
 * breakdown.host_s, and rescale the throughput, model FLOP/s and MFU to the longer step. Training,
 * hp NULL or neither cost: r unchanged. The cluster model schedules every rank with the GPU's own
 * launch figures; these are the only costs of a host profile it adds. */
void ridge_parallel_add_request(const ridge_host_profile *hp, const ridge_gpu *g, const ridge_run_config *rc,
                                double sequences, ridge_parallel_result *r);

/* ---- a prepared model and an evaluation context: many configurations, no allocation ----
 *
 * ridge_parallel_predict is ridge_parallel_prepare + ridge_parallel_evaluate on a fresh context.
 * A caller that evaluates many configurations of one model (ridge plan) prepares the model once
 * per (run config, microbatch, microbatches accumulated) and evaluates every layout with one
 * context per thread: the results are exactly ridge_parallel_predict's (docs/parallel.md,
 * "Prepared models"). */

/* One microbatch's unsharded graph with each op's class, the architecture read from it, the
 * model's memory and parameters; opaque. Built for rc (mode, precision, recompute...) and pc's
 * microbatch and microbatches per step (global_batch / (dp x microbatch), for the optimizer
 * group's gradient accumulation); nothing else of pc is read. m is borrowed. */
typedef struct ridge_parallel_model ridge_parallel_model;

/* RIDGE_OK or ENOMEM only: a graph or memory error of the model is kept and returned by
 * ridge_parallel_evaluate where ridge_parallel_predict returns it (after the configuration's
 * own checks). */
int ridge_parallel_prepare(const ridge_model *m, const ridge_run_config *rc, const ridge_parallel_config *pc,
                           ridge_parallel_model **out, ridge_err *err);
void ridge_parallel_model_free(ridge_parallel_model *pm); /* NULL is harmless */

/* Scratch for one thread's evaluations (the sharded graph, its results) and its memos: the kernel
 * result of each op for the last kernel inputs it had, and the collectives timed, both for the
 * cluster last evaluated (another cluster clears them). Exact: a memo entry is used only for the
 * same inputs. Grows to the largest graph, then allocates nothing. Not shared between threads. */
typedef struct ridge_parallel_ctx ridge_parallel_ctx;
int ridge_parallel_ctx_alloc(ridge_parallel_ctx **out, ridge_err *err); /* ENOMEM */
void ridge_parallel_ctx_free(ridge_parallel_ctx *c);                      /* NULL is harmless */
void ridge_parallel_ctx_clear(ridge_parallel_ctx *c); /* forget the memos, the sharding and cached values */

/* Stop after the memory when the configuration does not fit: RIDGE_OK with memory, capacity_bytes,
 * dp_shard_group set, fits 0 and the times 0, provided every kernel prediction and collective
 * the evaluation could need succeeds (a superset, through the memos); when one fails, the full
 * evaluation runs and returns ridge_parallel_predict's error. */
#define RIDGE_PARALLEL_MEMORY_FIRST 1

/* ridge_parallel_predict for the prepared model (its m and rc) on cl with pc (whose microbatch
 * and microbatches per step must be those pm was prepared for: EINVAL otherwise). flags: 0 or
 * RIDGE_PARALLEL_MEMORY_FIRST. Without flags *out and the status are ridge_parallel_predict's. */
int ridge_parallel_evaluate(ridge_parallel_ctx *c, const ridge_parallel_model *pm, const ridge_cluster *cl,
                            const ridge_parallel_config *pc, ridge_runtime rt, int flags, ridge_parallel_result *out,
                            ridge_err *err);

#ifdef __cplusplus
}
#endif
#endif
