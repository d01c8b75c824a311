/* ridge — host profiles: the CPU cost of issuing a step's kernels, as a property of the
 * software stack (docs/model.md §7, "Host profiles").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_HOST_H
#define RIDGE_HOST_H

#include <stddef.h>

#include "ridge/error.h"
#include "ridge/gpu.h"
#include "ridge/op.h"
#include "ridge/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which kernels a profile's framework launches (ridge_run_config.code when the run does not say). */
typedef enum { RIDGE_HOST_RUNTIME_EAGER = 0, RIDGE_HOST_RUNTIME_GRAPH, RIDGE_HOST_RUNTIME_DECODE_GRAPH } ridge_host_runtime;

typedef struct {
    char id[48];
    char code[16];       /* the code style it implies ("" = as the model is written; docs/workloads.md) */
    char source[320];    /* where the constants come from */
    double launch_s;     /* per kernel: the CUDA launch call */
    double dispatch_s[RIDGE_HOST_CLASS_COUNT]; /* per op instance, by class ([0] unused) */
    double module_call_s;  /* per nn.Module call (ridge_op.modules) */
    double graph_node_s;   /* per kernel node of a replayed CUDA graph */
    double graph_replay_s; /* per graph replay, before its first node */
    double step_s;         /* per step, before the first kernel: the engine's scheduler, sampler... */
    double cpu_speed;      /* > 0: every CPU cost above is divided by it (1 = the reference CPU) */
    ridge_host_runtime runtime; /* eager; every step a graph; decode steps a graph (engines) */
    double request_s; /* per request, paid once by its prefill step, not overlapped with the GPU: an
                       * engine session's set-up, input copies, first sampling and output copy back */
    int gqa_per_head; /* its decode attention kernel runs a CTA per query head, each reading its KV
                       * head ("gqa_decode": "per_head"; 0, "packed": the heads sharing one are
                       * packed into one tile, flash-decoding); docs/model.md §4 */
    double kv_memory_fraction; /* serving: the share of the free memory (memory - weights - workspace)
                                * the engine's KV-cache pool takes ("kv_memory_fraction", in (0, 1];
                                * 0 = all of it); docs/serving.md */
    double sequence_s; /* per sequence of an inference step's batch, every step, not overlapped with
                        * the GPU: an in-flight-batching engine's per-request work each iteration
                        * (its executor preparing the inputs, handling the outputs); docs/model.md §7 */
} ridge_host_profile;

#define RIDGE_HOST_DEFAULT "torch-eager"

size_t ridge_host_builtin_count(void);
const ridge_host_profile *ridge_host_builtin(size_t i);
/* A built-in id (docs/model.md), else a JSON file {"schema_version": 1, "host": {...}}. Unknown
 * ids, unknown keys, negative costs and a non-positive cpu_speed are errors naming the file and
 * the JSON path ("h.json: $.host.launch_s: ..."). */
int ridge_host_load(const char *id_or_path, ridge_host_profile *out, ridge_err *err);
/* Parse a host document from memory; origin names it in errors. */
int ridge_host_parse(const char *json, size_t len, const char *origin, ridge_host_profile *out, ridge_err *err);
/* The profile's effective runtime for a step: graph when it replays every step, or a decode step
 * under an engine; else `rt` as asked. */
int ridge_host_runtime_for(const ridge_host_profile *hp, int decode, int rt);
/* What the profile says of how the model's code runs: its code style when rc has none (as
 * written), and its decode attention kernel (gqa_per_head). */
void ridge_host_apply(const ridge_host_profile *hp, ridge_run_config *rc);
/* The profile's cpu_speed on GPU g's host: a GPU file whose host parameters were calibrated
 * (host_launch_s, framework_op_s) says how fast its host is against the defaults, and every cost
 * of the profile scales by that ratio (docs/model.md §7); g NULL or uncalibrated: cpu_speed. */
double ridge_host_cpu_speed_on(const ridge_host_profile *hp, const ridge_gpu *g);
/* The host seconds of a request's own work on GPU g's host (request_s over
 * ridge_host_cpu_speed_on; 0 without either), which a prefill step pays once, not overlapped with
 * the GPU. */
double ridge_host_request_on(const ridge_host_profile *hp, const ridge_gpu *g);

/* The profile's per-sequence work of an inference step of `batch` sequences on g: batch x
 * sequence_s / ridge_host_cpu_speed_on (0 without a profile, a sequence cost or a batch). */
double ridge_host_sequences_on(const ridge_host_profile *hp, const ridge_gpu *g, double batch);
/* The share of the free memory a serving engine under this profile gives its KV cache (1 when
 * the profile sets none). */
double ridge_host_kv_fraction(const ridge_host_profile *hp);
/* Host seconds to issue one instance of op of `kernels` kernels in eager mode. */
double ridge_host_op_cost(const ridge_host_profile *hp, const ridge_op *op, double kernels);

#ifdef __cplusplus
}
#endif
#endif
