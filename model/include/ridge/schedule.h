/* ridge — scheduling a sequence of ops: the host launch pipeline (docs/model.md, "Host").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_SCHEDULE_H
#define RIDGE_SCHEDULE_H

#include <stddef.h>

#include "ridge/host.h"
#include "ridge/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    ridge_kernel_result kernel; /* one instance */
    double count;               /* op->count */
    double time_s;              /* wall time this op adds to the stream, all instances */
    double gpu_s;               /* kernel.time_s x count */
    double host_wait_s;         /* GPU idle waiting for the host during this op */
    ridge_bound bound;          /* kernel.bound, or RIDGE_BOUND_HOST when host_wait_s > gpu_s */
} ridge_op_result;

typedef struct {
    double total_time_s;   /* end of the last kernel, from the first host issue */
    double gpu_busy_s;     /* sum of kernel times */
    double host_issue_s;   /* host time to issue every kernel */
    double host_wait_s;    /* GPU idle time waiting for the host */
    double flops;
    double dram_bytes;
    double kernels;
    double time_by_bound_s[RIDGE_BOUND_COUNT];
} ridge_schedule_totals;

/* The two-stage pipeline's step (docs/model.md §7): `kernels` kernels of gpu_s GPU time in all,
 * the last of them last_kernel_s, issued every issue_s after a GPU busy until gpu_end_s and a
 * host that has issued until host_end_s. The GPU finishes them at
 * E_C = max(E + gpu_s, H + h + gpu_s, H + C h + g_last): behind its own work, behind the first
 * launch, or behind the last. ridge_schedule_ops applies it op by op. */
double ridge_schedule_finish_s(double gpu_end_s, double host_end_s, double issue_s, double kernels, double gpu_s,
                               double last_kernel_s);

/* Two-stage pipeline (host issue -> GPU stream) over ops in order. results may be NULL; else it
 * has n entries. Stops at the first op that fails (its index in err). In eager mode a step whose
 * GEMMs split over K is also run without split-K, and the faster of the two is kept: a split's
 * reduction kernel costs a launch the host may not have time for (docs/model.md §7). */
int ridge_schedule_ops(const ridge_gpu *gpu, const ridge_op *ops, size_t n, ridge_runtime rt,
                       ridge_op_result *results, ridge_schedule_totals *tot, ridge_err *err);

/* ridge_schedule_ops with each op's kernel result from kernel(kernel_ctx, gpu, i, &ops[i], buf,
 * &status, err) instead of ridge_kernel_predict(gpu, &ops[i], buf, err): it returns buf filled or
 * a result of its own that stays valid until the next call, or NULL with *status set (and err's
 * message) on failure. A caller that memoises kernel results (ridge/parallel.h) passes one that
 * gives exactly what ridge_kernel_predict would for the gpu it is handed (the no-split pass hands
 * a copy of gpu with no_split_k set). results and time_s may each be NULL; time_s[i] gets
 * results[i].time_s. Results, errors and messages are ridge_schedule_ops's. */
typedef const ridge_kernel_result *(*ridge_schedule_kernel_fn)(void *kernel_ctx, const ridge_gpu *gpu, size_t i,
                                                              const ridge_op *op, ridge_kernel_result *buf,
                                                              int *status, ridge_err *err);
int ridge_schedule_ops_with(const ridge_gpu *gpu, const ridge_op *ops, size_t n, ridge_runtime rt,
                            ridge_schedule_kernel_fn kernel, void *kernel_ctx, ridge_op_result *results,
                            double *time_s, ridge_schedule_totals *tot, ridge_err *err);

/* ridge_schedule_ops_with with each pass's kernel results found before the pass, not op by op:
 * kernels(kernel_ctx, gpu, ops, n, kr, &failed, err) fills kr[0..n) (the caller's n entries) with
 * each op's result for the gpu it is handed, each valid until the next call, and returns RIDGE_OK;
 * or the status of the first op in order that fails, its index in failed (and err's message). The
 * pass then makes no call per op. Results, errors and messages are ridge_schedule_ops_with's for a
 * kernel function giving the same results. */
typedef int (*ridge_schedule_known_fn)(void *kernel_ctx, const ridge_gpu *gpu, const ridge_op *ops, size_t n,
                                       const ridge_kernel_result **kr, size_t *failed, ridge_err *err);
int ridge_schedule_ops_known(const ridge_gpu *gpu, const ridge_op *ops, size_t n, ridge_runtime rt,
                             ridge_schedule_known_fn kernels, void *kernel_ctx, const ridge_kernel_result **kr,
                             ridge_op_result *results, double *time_s, ridge_schedule_totals *tot, ridge_err *err);

/* The same with a host profile (ridge/host.h): each op's host cost by its dispatch class, module
 * calls and launches (eager), or the profile's replay and per-node costs (graph), after the
 * profile's per-step CPU work; an op with host_sync makes the host wait for the GPU. hp NULL is
 * ridge_schedule_ops. */
/* A prefill step starts a request: add the profile's request_s (over its cpu_speed on GPU g's
 * host, ridge_host_cpu_speed_on; g may be NULL) to the step's totals as host time the GPU waits for
 * (the whole pipeline shifted by it: H_0 + request_s). */
void ridge_host_add_request(const ridge_host_profile *hp, const ridge_gpu *g, ridge_schedule_totals *tot);
/* An inference step of `batch` sequences: add the profile's per-sequence work
 * (ridge_host_sequences_on) the same way, host time before the first kernel. */
void ridge_host_add_sequences(const ridge_host_profile *hp, const ridge_gpu *g, double batch,
                              ridge_schedule_totals *tot);
int ridge_schedule_ops_host(const ridge_gpu *gpu, const ridge_op *ops, size_t n, ridge_runtime rt,
                            const ridge_host_profile *hp, ridge_op_result *results, ridge_schedule_totals *tot,
                            ridge_err *err);

#ifdef __cplusplus
}
#endif
#endif
