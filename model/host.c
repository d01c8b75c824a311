/* The host launch pipeline: a two-stage pipeline of host issue feeding the GPU stream
 * (docs/model.md, "Host").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "ridge/kernel.h"
#include "ridge/schedule.h"

static double max3(double a, double b, double c)
{
    double m = a > b ? a : b;
    return m > c ? m : c;
}

/* One pass of the pipeline over the ops; *split (may be NULL) tells whether a kernel split over K. */
static int schedule_pass(const ridge_gpu *g, const ridge_op *ops, size_t n, ridge_runtime rt,
                         ridge_op_result *results, ridge_schedule_totals *tot, int *split, ridge_err *err)
{
    /* h: host time to issue one kernel; H: when the host has issued the last kernel so far;
     * E: when the GPU finishes the last kernel so far. A graph costs one eager launch to start. */
    /* f: framework dispatch per operator instance, eager only (a graph replay is one call). */
    double h0 = rt == RIDGE_RUNTIME_GRAPH ? g->eff.graph_launch_s : g->eff.host_launch_s;
    double f = rt == RIDGE_RUNTIME_GRAPH ? 0 : g->eff.framework_op_s;
    double H = rt == RIDGE_RUNTIME_GRAPH ? g->eff.host_launch_s + g->eff.framework_op_s : 0, E = 0;
    memset(tot, 0, sizeof *tot);
    for (size_t i = 0; i < n; i++) {
        ridge_kernel_result kr;
        double c, gk, h, E1, H1, gpu, wait;
        ridge_bound b;
        int rc = ridge_kernel_predict(g, &ops[i], &kr, err);
        if (rc != RIDGE_OK) {
            char msg[RIDGE_ERR_MSG_MAX];
            if (err) {
                memcpy(msg, err->msg, sizeof msg);
                ridge_err_set(err, rc, "op %zu%s%s: %s", i, ops[i].name[0] ? " " : "", ops[i].name, msg);
            }
            return rc;
        }
        if (split && kr.split_k > 1)
            *split = 1;
        /* C identical kernels of GPU time gk each, issued every h (the launch plus the
         * operator's framework cost spread over its kernels):
         * E_C = max(E + C gk, H + h + C gk, H + C h + gk), H_C = H + C h. */
        c = kr.kernels * ops[i].count;
        gk = ridge_kernel_time_in(g, &kr, rt) / kr.kernels;
        h = h0 + f / kr.kernels;
        E1 = max3(E + c * gk, H + h + c * gk, H + c * h + gk);
        H1 = H + c * h;
        gpu = c * gk;
        wait = (E1 - E) - gpu;
        if (wait < 0)
            wait = 0;
        b = wait > gpu ? RIDGE_BOUND_HOST : kr.bound;
        if (results) {
            results[i].kernel = kr;
            results[i].count = ops[i].count;
            results[i].time_s = E1 - E;
            results[i].gpu_s = gpu;
            results[i].host_wait_s = wait;
            results[i].bound = b;
        }
        tot->gpu_busy_s += gpu;
        tot->host_wait_s += wait;
        tot->flops += kr.flops * ops[i].count;
        tot->dram_bytes += kr.dram_bytes * ops[i].count;
        tot->kernels += c;
        tot->time_by_bound_s[b] += E1 - E;
        E = E1;
        H = H1;
    }
    tot->total_time_s = E;
    tot->host_issue_s = H;
    return RIDGE_OK;
}

int ridge_schedule_ops(const ridge_gpu *g, const ridge_op *ops, size_t n, ridge_runtime rt, ridge_op_result *results,
                       ridge_schedule_totals *tot, ridge_err *err)
{
    /* The kernel model picks split-K for GPU time; the reduction kernel it adds costs a launch.
     * Where the host bounds an eager step, as at batch 1, those launches are on the critical path
     * and the GPU time saved is not: the whole A100 launching them ran ResNet-50 slower than a
     * 1g.10gb slice, too small to split (docs/model.md §7, §8). So a step with a split is run
     * again without split-K and the faster pass is kept, as a framework autotuning the step
     * would. Graph replays cost the host little: their choice stands. */
    int split = 0, rc = schedule_pass(g, ops, n, rt, results, tot, &split, err);
    ridge_schedule_totals unsplit;
    ridge_gpu g1;
    if (rc != RIDGE_OK || !split || rt != RIDGE_RUNTIME_EAGER)
        return rc;
    g1 = *g;
    g1.no_split_k = 1;
    rc = schedule_pass(&g1, ops, n, rt, NULL, &unsplit, NULL, err);
    if (rc == RIDGE_OK && unsplit.total_time_s < tot->total_time_s) {
        if (results) /* the faster pass's per-op results */
            rc = schedule_pass(&g1, ops, n, rt, results, tot, NULL, err);
        else
            *tot = unsplit;
    }
    return rc;
}
