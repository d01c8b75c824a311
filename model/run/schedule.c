/* The host launch pipeline: a two-stage pipeline of host issue feeding the GPU stream, priced
 * by a host profile (host.c) or by the GPU's own launch figures (docs/model.md §7).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "ridge/host.h"
#include "ridge/kernel.h"
#include "ridge/schedule.h"

#include "attrs.h"
#include "kernel_prep.h"
#include "schedule_times.h"

static double max3(double a, double b, double c)
{
    double m = a > b ? a : b;
    return m > c ? m : c;
}

/* Host time r before the step's first kernel: the whole pipeline shifts by it, the GPU waiting. */
static void add_host_before(double r, ridge_schedule_totals *tot)
{
    if (!(r > 0))
        return;
    tot->total_time_s += r;
    tot->host_issue_s += r;
    tot->host_wait_s += r;
    tot->time_by_bound_s[RIDGE_BOUND_HOST] += r;
}

void ridge_host_add_request(const ridge_host_profile *hp, const ridge_gpu *g, ridge_schedule_totals *tot)
{
    add_host_before(ridge_host_request_on(hp, g), tot);
}

void ridge_host_add_sequences(const ridge_host_profile *hp, const ridge_gpu *g, double batch,
                              ridge_schedule_totals *tot)
{
    add_host_before(ridge_host_sequences_on(hp, g, batch), tot);
}

/* ------------------------------------------------------------------ the pipeline */

/* ridge_schedule_finish_s, inlined in the pipeline's loop. */
static inline double finish_s(double gpu_end_s, double host_end_s, double issue_s, double kernels, double gpu_s,
                              double last_kernel_s)
{
    return max3(gpu_end_s + gpu_s, host_end_s + issue_s + gpu_s, host_end_s + kernels * issue_s + last_kernel_s);
}

double ridge_schedule_finish_s(double gpu_end_s, double host_end_s, double issue_s, double kernels, double gpu_s,
                               double last_kernel_s)
{
    return finish_s(gpu_end_s, host_end_s, issue_s, kernels, gpu_s, last_kernel_s);
}

/* The kernel model itself, as a ridge_schedule_kernel_fn: through the figures ctx holds, prepared
 * once for the schedule's GPU (kernel_prep.h), for that GPU; for another (schedule_best's copy
 * with no_split_k set) or without them, ridge_kernel_predict. The same result either way. */
static const ridge_kernel_result *plain_kernel(void *ctx, const ridge_gpu *g, size_t i, const ridge_op *op,
                                              ridge_kernel_result *buf, int *status, ridge_err *err)
{
    const rk_kernel_prepared *p = ctx;
    (void)i;
    *status = p && g == p->g ? rk_kernel_predict_prepared(p, op, buf, err) : ridge_kernel_predict(g, op, buf, err);
    return *status == RIDGE_OK ? buf : NULL;
}

/* An op's bound in the schedule: host when the GPU waited for the host longer than it ran the op's
 * kernels (grow, the stream's growth, less their time gpu), else its kernels' own. */
static inline ridge_bound op_bound(double grow, double gpu, ridge_bound kernel)
{
    return grow - gpu > gpu ? RIDGE_BOUND_HOST : kernel;
}

/* The pass below is inlined four times into schedule(): as it stands, eager with hp and results
 * NULL (ridge_schedule_ops_with's common call), eager with hp and results NULL over kernel
 * results known before the pass (krs: ridge_schedule_ops_known), and that one with times set
 * (rs_schedule_times, the call the parallel model makes every evaluation: the per-op times and
 * the step's end only), so that the copies carry no branch on them and the last two no call per
 * op. */
#define SCHEDULE_PASS RIDGE_ALWAYS_INLINE static inline int

/* The failure of op i (status rc, err's message): "op i name: message". */
static int op_failed(const ridge_op *ops, size_t i, int rc, ridge_err *err)
{
    char msg[RIDGE_ERR_MSG_MAX];
    if (err) {
        memcpy(msg, err->msg, sizeof msg);
        ridge_err_set(err, rc, "op %zu%s%s: %s", i, ops[i].name[0] ? " " : "", ops[i].name, msg);
    }
    return rc;
}

/* One pass of the pipeline over the ops, each op's kernel result from kfn, or krs[i] (kfn NULL);
 * *split (may be NULL) tells whether a kernel split over K. results and time_s (each may be NULL)
 * take the per-op results, or only their time_s. The totals are summed in locals (the same sums in
 * the same order), which the stores to time_s could otherwise alias, and stored on return. times
 * (a constant; only with hp and results NULL): the step's end and the host's (total_time_s,
 * host_issue_s) and the compute-bound class of time_by_bound_s (what a plan's power needs) are
 * all of tot it sums, the rest 0, and no op's wait or other bound is worked out. */
SCHEDULE_PASS schedule_pass(const ridge_gpu *g, const ridge_op *ops, size_t n, ridge_runtime rt,
                            const ridge_host_profile *hp, ridge_schedule_kernel_fn kfn, void *kctx,
                            const ridge_kernel_result *const *krs, ridge_op_result *results, double *time_s,
                            ridge_schedule_totals *tot, int *split, int times, ridge_err *err)
{
    /* H: when the host has issued the last kernel so far; E: when the GPU finishes the last
     * kernel so far. Without a profile (plain CUDA op lists): h = the launch plus the framework
     * cost spread over an op's kernels; a graph costs one eager launch to start. With one: the
     * op's dispatch by class, its module calls and its launches (eager), or the replay and its
     * nodes (graph), after the profile's per-step CPU work. */
    int graph = rt == RIDGE_RUNTIME_GRAPH;
    double h0 = graph ? g->eff.graph_launch_s : g->eff.host_launch_s;
    double f = graph ? 0 : g->eff.framework_op_s;
    double h1 = h0 + f; /* h of a one-kernel op: h0 + f / 1 */
    double H = graph ? g->eff.host_launch_s + g->eff.framework_op_s : 0, E = 0;
    ridge_host_profile eff_hp;
    if (hp) {
        /* A GPU file whose host parameters were calibrated (host_launch_s, framework_op_s) says how
         * fast its host is against the defaults: the profile's CPU costs scale by that ratio. */
        eff_hp = *hp;
        eff_hp.cpu_speed = ridge_host_cpu_speed_on(hp, g);
        hp = &eff_hp;
        H = (hp->step_s + (graph ? hp->graph_replay_s : 0)) / hp->cpu_speed;
    }
    double busy = 0, wait_s = 0, flops = 0, dram = 0, kernels = 0, by_bound[RIDGE_BOUND_COUNT] = {0};
    int rc = RIDGE_OK, any_split = 0;
    for (size_t i = 0; i < n; i++) {
        ridge_kernel_result buf;
        double c, gk, h, E1, H1, gpu, wait;
        ridge_bound b;
        int st = RIDGE_OK, one;
        const ridge_kernel_result *kp;
        if (!kfn) {
            kp = krs[i];
        } else if (!(kp = kfn(kctx, g, i, &ops[i], &buf, &st, err))) {
            rc = op_failed(ops, i, st, err);
            break;
        }
        if (split && kp->split_k > 1)
            any_split = 1;
        /* C identical kernels of GPU time gk each, issued every h:
         * E_C = max(E + C gk, H + h + C gk, H + C h + gk), H_C = H + C h. */
        /* Most ops are one kernel: x / 1 and 1 x are x exactly, so they skip the divisions. A
         * step's kernel follows a different kernel (the op before it; an op's count is its layers,
         * interleaved with the other ops), so in a graph too it pays the kernel floor,
         * kernel_floor_s; only the repeats of one kernel back to back run at graph_kernel_floor_s
         * (ridge_kernel_time_in): an optimizer's multi-tensor launches (docs/model.md §7, "Kernel
         * floors in a graph"). */
        one = kp->kernels == 1;
        c = one ? ops[i].count : kp->kernels * ops[i].count;
        gk = graph && ridge_host_class_of(&ops[i]) == RIDGE_HOST_MULTI_TENSOR ? ridge_kernel_time_in(g, kp, rt)
                                                                              : kp->time_s;
        if (!one)
            gk /= kp->kernels;
        if (!hp)
            h = one ? h1 : h0 + f / kp->kernels;
        else if (graph)
            h = hp->graph_node_s / hp->cpu_speed;
        else
            h = ridge_host_op_cost(hp, &ops[i], kp->kernels) / kp->kernels;
        E1 = finish_s(E, H, h, c, c * gk, gk);
        H1 = H + c * h;
        /* A host that waits for the GPU (eager only: a graph replays without the host) issues
         * nothing more until the op has run. */
        if (hp && !graph && ops[i].host_sync && H1 < E1)
            H1 = E1;
        if (times) {
            /* the op's time in the compute-bound class (by_bound's, below) */
            double grow = E1 - E;
            by_bound[RIDGE_BOUND_COMPUTE] += op_bound(grow, c * gk, kp->bound) == RIDGE_BOUND_COMPUTE ? grow : 0;
            if (time_s)
                time_s[i] = grow;
            E = E1;
            H = H1;
            continue;
        }
        gpu = c * gk;
        wait = (E1 - E) - gpu;
        if (wait < 0)
            wait = 0;
        b = op_bound(E1 - E, gpu, kp->bound);
        if (results) {
            results[i].kernel = *kp;
            results[i].count = ops[i].count;
            results[i].time_s = E1 - E;
            results[i].gpu_s = gpu;
            results[i].host_wait_s = wait;
            results[i].bound = b;
        }
        if (time_s)
            time_s[i] = E1 - E;
        busy += gpu;
        wait_s += wait;
        flops += kp->flops * ops[i].count;
        dram += kp->dram_bytes * ops[i].count;
        kernels += c;
        by_bound[b] += E1 - E;
        E = E1;
        H = H1;
    }
    if (split && any_split)
        *split = 1;
    tot->total_time_s = rc == RIDGE_OK ? E : 0;
    tot->host_issue_s = rc == RIDGE_OK ? H : 0;
    tot->gpu_busy_s = busy;
    tot->host_wait_s = wait_s;
    tot->flops = flops;
    tot->dram_bytes = dram;
    tot->kernels = kernels;
    memcpy(tot->time_by_bound_s, by_bound, sizeof by_bound);
    return rc;
}

/* How a pass gets its kernel results: kfn per op, or (pfn non-NULL) pfn once for the whole pass into
 * krs, then the pass over them; known: krs already holds this gpu's (the faster pass run again).
 * times: the caller reads the per-op times and tot's total_time_s and host_issue_s alone
 * (rs_schedule_times). */
typedef struct {
    ridge_schedule_kernel_fn kfn;
    ridge_schedule_known_fn pfn;
    void *kctx;
    const ridge_kernel_result **krs;
    int times;
} schedule_kernels;

static int schedule(const ridge_gpu *g, const ridge_op *ops, size_t n, ridge_runtime rt, const ridge_host_profile *hp,
                    const schedule_kernels *k, int known, ridge_op_result *results, double *time_s,
                    ridge_schedule_totals *tot, int *split, ridge_err *err)
{
    if (k->pfn) {
        size_t failed = 0;
        int rc = known ? RIDGE_OK : k->pfn(k->kctx, g, ops, n, k->krs, &failed, err);
        if (rc == RIDGE_OK && !hp && !results && rt == RIDGE_RUNTIME_EAGER && k->times)
            return schedule_pass(g, ops, n, RIDGE_RUNTIME_EAGER, NULL, NULL, NULL, k->krs, NULL, time_s, tot, split, 1,
                                 err);
        if (rc == RIDGE_OK && !hp && !results && rt == RIDGE_RUNTIME_EAGER)
            return schedule_pass(g, ops, n, RIDGE_RUNTIME_EAGER, NULL, NULL, NULL, k->krs, NULL, time_s, tot, split, 0,
                                 err);
        if (rc == RIDGE_OK)
            return schedule_pass(g, ops, n, rt, hp, NULL, NULL, k->krs, results, time_s, tot, split, 0, err);
        /* The ops before the failed one, as the pass op by op leaves them, then its error. */
        schedule_pass(g, ops, failed < n ? failed : n, rt, hp, NULL, NULL, k->krs, results, time_s, tot, split, 0,
                      err);
        tot->total_time_s = tot->host_issue_s = 0;
        return op_failed(ops, failed, rc, err);
    }
    if (!hp && !results && rt == RIDGE_RUNTIME_EAGER)
        return schedule_pass(g, ops, n, RIDGE_RUNTIME_EAGER, NULL, k->kfn, k->kctx, NULL, NULL, time_s, tot, split, 0,
                             err);
    return schedule_pass(g, ops, n, rt, hp, k->kfn, k->kctx, NULL, results, time_s, tot, split, 0, err);
}

/* The kernel model picks split-K for GPU time; the reduction kernel it adds costs a launch. Where
 * the host bounds an eager step, as at batch 1, those launches are on the critical path and the
 * GPU time saved is not: the whole A100 launching them ran ResNet-50 slower than a 1g.10gb slice,
 * too small to split (docs/model.md §7, §8). So a step with a split is run again without split-K
 * and the faster pass is kept, as a framework autotuning the step would. Graph replays cost the
 * host little: their choice stands. */
static int schedule_best(const ridge_gpu *g, const ridge_op *ops, size_t n, ridge_runtime rt,
                         const ridge_host_profile *hp, const schedule_kernels *k, ridge_op_result *results,
                         double *time_s, ridge_schedule_totals *tot, ridge_err *err)
{
    int split = 0, rc = schedule(g, ops, n, rt, hp, k, 0, results, time_s, tot, &split, err);
    ridge_schedule_totals unsplit;
    ridge_gpu g1;
    if (rc != RIDGE_OK || !split || rt != RIDGE_RUNTIME_EAGER)
        return rc;
    g1 = *g;
    g1.no_split_k = 1;
    rc = schedule(&g1, ops, n, rt, hp, k, 0, NULL, NULL, &unsplit, NULL, err);
    if (rc == RIDGE_OK && unsplit.total_time_s < tot->total_time_s) {
        if (results || time_s) /* the faster pass's per-op results */
            rc = schedule(&g1, ops, n, rt, hp, k, 1, results, time_s, tot, NULL, err);
        else
            *tot = unsplit;
    }
    return rc;
}

int ridge_schedule_ops(const ridge_gpu *g, const ridge_op *ops, size_t n, ridge_runtime rt, ridge_op_result *results,
                       ridge_schedule_totals *tot, ridge_err *err)
{
    return ridge_schedule_ops_host(g, ops, n, rt, NULL, results, tot, err); /* no host profile */
}

int ridge_schedule_ops_with(const ridge_gpu *g, const ridge_op *ops, size_t n, ridge_runtime rt,
                            ridge_schedule_kernel_fn kernel, void *kernel_ctx, ridge_op_result *results,
                            double *time_s, ridge_schedule_totals *tot, ridge_err *err)
{
    schedule_kernels k = {kernel, NULL, kernel_ctx, NULL, 0};
    return schedule_best(g, ops, n, rt, NULL, &k, results, time_s, tot, err);
}

int ridge_schedule_ops_known(const ridge_gpu *g, const ridge_op *ops, size_t n, ridge_runtime rt,
                             ridge_schedule_known_fn kernels, void *kernel_ctx, const ridge_kernel_result **kr,
                             ridge_op_result *results, double *time_s, ridge_schedule_totals *tot, ridge_err *err)
{
    schedule_kernels k = {NULL, kernels, kernel_ctx, kr, 0};
    return schedule_best(g, ops, n, rt, NULL, &k, results, time_s, tot, err);
}

int rs_schedule_times(const ridge_gpu *g, const ridge_op *ops, size_t n, ridge_runtime rt,
                      ridge_schedule_known_fn kernels, void *kernel_ctx, const ridge_kernel_result **kr, double *time_s,
                      ridge_schedule_totals *tot, ridge_err *err)
{
    schedule_kernels k = {NULL, kernels, kernel_ctx, kr, 1};
    return schedule_best(g, ops, n, rt, NULL, &k, NULL, time_s, tot, err);
}

int ridge_schedule_ops_host(const ridge_gpu *g, const ridge_op *ops, size_t n, ridge_runtime rt,
                            const ridge_host_profile *hp, ridge_op_result *results, ridge_schedule_totals *tot,
                            ridge_err *err)
{
    rk_kernel_prepared p;
    schedule_kernels k = {plain_kernel, NULL, &p, NULL, 0};
    rk_kernel_prep(g, &p);
    return schedule_best(g, ops, n, rt, hp, &k, results, NULL, tot, err);
}
