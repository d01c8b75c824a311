/* ridge — the prediction of one model step on one GPU: step time, throughput, MFU, time by layer
 * type and by bound, memory against the GPU's capacity and the largest batch that fits
 * (docs/model.md; the multi-GPU twin is ridge/parallel.h).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * ridge_predict_model builds the operator graph of one step (ridge_model_build), issues it
 * through the host pipeline (ridge_schedule_ops_host) and sizes its memory (ridge_model_memory).
 * Reentrant: no globals; the result owns the graph and its per-op results, freed by
 * ridge_predict_result_free (harmless on a zeroed or already freed result). */
#ifndef RIDGE_PREDICT_H
#define RIDGE_PREDICT_H

#include "ridge/error.h"
#include "ridge/host.h"
#include "ridge/kernel.h"
#include "ridge/schedule.h"
#include "ridge/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Layer types (op groups) a result breaks the step into; the rest are added into the last one. */
#define RIDGE_PREDICT_GROUPS_MAX 24

typedef struct {
    double time_s;             /* the step, from the first host issue to the end of the last kernel */
    double throughput;         /* items_per_step / time_s, in throughput_unit */
    const char *throughput_unit; /* "images/s", "sequences/s", "tokens/s" (static) */
    double items_per_step;
    double model_flops;        /* useful FLOPs of the step (ridge_model_flops) */
    double mfu;                /* ridge_predict_mfu of model_flops / time_s */
    double params;
    ridge_memory mem;
    double capacity_bytes;     /* the GPU's memory */
    int fits;                  /* mem.total_bytes <= capacity_bytes */
    double max_batch;          /* largest batch that fits (0 if none) */
    ridge_schedule_totals tot;
    /* Time by layer type (op group; ops without one are "other"), in order of first appearance. */
    int ngroups;
    char groups[RIDGE_PREDICT_GROUPS_MAX][RIDGE_OP_GROUP_MAX];
    double group_time_s[RIDGE_PREDICT_GROUPS_MAX];
    ridge_host_profile host;   /* the profile the step was priced with */
    ridge_runtime runtime;     /* the runtime it ran in (an engine's decode: graph) */
    ridge_code code;           /* the code style the graph was built for */
    ridge_oplist ops;          /* the graph, owned */
    ridge_op_result *results;  /* per op, owned */
} ridge_predict_result;

/* Predict one step of run rc of model m on GPU g with host profile hp, in runtime rt unless the
 * profile moves it (ridge_host_runtime_for). A run whose code is RIDGE_CODE_AS_WRITTEN takes the
 * profile's code style. out is zeroed first and may be freed whatever the status; errors name
 * the model ("llama2-7b: ...") or the model and GPU ("llama2-7b on h100-sxm5-80gb: ...").
 * ENOMEM when the per-op results cannot be allocated. */
int ridge_predict_model(const ridge_gpu *g, const ridge_model *m, const ridge_run_config *rc,
                        const ridge_host_profile *hp, ridge_runtime rt, ridge_predict_result *out, ridge_err *err);
void ridge_predict_result_free(ridge_predict_result *p);

/* Model FLOP utilisation: model_flops_per_s against g's dense peak in precision, on its tensor
 * path, else its vector path; 0 where the GPU has neither. One formula for one GPU and for a
 * cluster (ridge_parallel_predict, with the model FLOP/s per GPU). */
double ridge_predict_mfu(const ridge_gpu *g, ridge_dtype precision, double model_flops_per_s);

/* The largest batch of run rc (its batch ignored) whose memory fits in capacity_bytes: doubling
 * up to 1e7, then bisection (memory grows with the batch); 0 if not even one fits. */
double ridge_predict_max_batch(const ridge_model *m, const ridge_run_config *rc, double capacity_bytes);

/* The precision of a run that was given none (docs/cli.md): bf16 where each of the n GPUs has a
 * BF16 tensor path, else fp16 where they all have an FP16 one (V100, T4), else fp32. Returns the
 * index of the first GPU without a bf16 tensor path, or -1 when they all have one. */
int ridge_predict_default_precision(const ridge_gpu *g, int n, ridge_dtype *out);

#ifdef __cplusplus
}
#endif
#endif
