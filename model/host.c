/* The host launch pipeline: a two-stage pipeline of host issue feeding the GPU stream, and the
 * host profiles that price the issue (docs/model.md §7).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_util.h"
#include "nearest.h"
#include "ridge/file.h"
#include "ridge/host.h"
#include "ridge/kernel.h"
#include "ridge/schedule.h"
#include "ridge/workload.h"

static double max3(double a, double b, double c)
{
    double m = a > b ? a : b;
    return m > c ? m : c;
}

/* ------------------------------------------------------------------ host profiles */

static const ridge_name class_rows[] = {{"auto", RIDGE_HOST_AUTO},         {"aten", RIDGE_HOST_ATEN},
                                        {"library", RIDGE_HOST_LIBRARY},   {"attention", RIDGE_HOST_ATTENTION},
                                        {"autograd", RIDGE_HOST_AUTOGRAD}, {"multi_tensor", RIDGE_HOST_MULTI_TENSOR}};
const ridge_names ridge_host_class_names = RIDGE_NAMES(class_rows, "?");

const char *ridge_host_class_name(ridge_host_class c)
{
    return ridge_name_of(&ridge_host_class_names, (int)c);
}

static int ends_with(const char *s, const char *sfx)
{
    size_t n = strlen(s), k = strlen(sfx);
    return n >= k && strcmp(s + n - k, sfx) == 0;
}

ridge_host_class ridge_host_class_of(const ridge_op *op)
{
    if (op->host_class > RIDGE_HOST_AUTO && op->host_class < RIDGE_HOST_CLASS_COUNT)
        return (ridge_host_class)op->host_class;
    if (strcmp(op->group, "optimizer") == 0)
        return RIDGE_HOST_MULTI_TENSOR;
    if (ends_with(op->name, ".bwd") || ends_with(op->name, ".dgrad") || ends_with(op->name, ".wgrad") ||
        ends_with(op->name, ".gcast"))
        return RIDGE_HOST_AUTOGRAD;
    switch (op->kind) {
    case RIDGE_OP_GEMM:
    case RIDGE_OP_CONV2D:
    case RIDGE_OP_LSTM: return RIDGE_HOST_LIBRARY;
    case RIDGE_OP_ATTENTION: return op->u.attn.pass == RIDGE_PASS_FWD_BWD ? RIDGE_HOST_LIBRARY : RIDGE_HOST_ATTENTION;
    default: return RIDGE_HOST_ATEN;
    }
}

/* The built-in profiles. Every constant is explained, with the records it comes from, in
 * docs/model.md §7 ("Host profiles"); the H200 records are cited as h200-2026-11-29/RUN/NAME. */
#define US 1e-6
static const ridge_host_profile builtins[] = {
    {"torch-eager", "",
     "PyTorch 2.x eager on a current server CPU (the H200 host of h200-2026-11-29 run a): launch, aten and "
     "library costs from its tiny-op records, module calls and the in-model factor fitted on its llm_infer "
     "prefill T128 and resnet50 infer bs1 records (docs/model.md §7)",
     5.0 * US, {0, 8.6 * US, 18.4 * US, 87.2 * US, 29.5 * US, 12.0 * US}, 4.8 * US, 0.6 * US, 10.0 * US, 0, 1.0,
     RIDGE_HOST_RUNTIME_EAGER, 0},
    {"torch-eager-ngc21", "",
     "PyTorch 1.x eager (NGC pytorch 20.xx-22.xx) on the hosts of the NVIDIA DeepLearningExamples READMEs "
     "(DGX-1: Xeon E5-2698 v4): torch-eager's costs on a CPU 0.294 as fast, fitted on published-dev pub0225 "
     "and pub0228 (V100 ResNet-50 inference batch 1, FP32 and AMP; docs/model.md §7)",
     5.0 * US, {0, 8.6 * US, 18.4 * US, 87.2 * US, 29.5 * US, 12.0 * US}, 4.8 * US, 0.6 * US, 10.0 * US, 0, 0.294,
     RIDGE_HOST_RUNTIME_EAGER, 0},
    {"torch-graph", "",
     "PyTorch with torch.cuda.graphs: the step captured once and replayed (g.replay(): one Python call and "
     "cudaGraphLaunch, then 0.6 us per node, gpu-specs §9 OCANNL-488)",
     5.0 * US, {0, 8.6 * US, 18.4 * US, 87.2 * US, 29.5 * US, 12.0 * US}, 4.8 * US, 0.6 * US, 10.0 * US, 0, 1.0,
     RIDGE_HOST_RUNTIME_GRAPH, 0},
    {"torch-compile", "compile",
     "torch.compile (inductor, default mode): pointwise chains fused into Triton kernels, each launched from "
     "the generated Python wrapper (an estimate: launch plus a few us, no module calls)",
     5.0 * US, {0, 3.0 * US, 6.0 * US, 10.0 * US, 3.0 * US, 12.0 * US}, 0, 0.6 * US, 10.0 * US, 0, 1.0,
     RIDGE_HOST_RUNTIME_EAGER, 0},
    {"engine", "engine",
     "an inference engine (TensorRT, TensorRT-LLM, vLLM style): fused kernels enqueued by a C++ runtime, "
     "decode steps as CUDA graphs, and the engine's CPU work per step (scheduling, sampling, output "
     "processing: 0.1 ms, an estimate for a C++ runtime, far below Vidur's 2.9 ms for a Python engine, ANCHORS.md)",
     2.5 * US, {0, 0, 0, 0, 0, 0}, 0, 0.6 * US, 10.0 * US, 0.1e-3, 1.0, RIDGE_HOST_RUNTIME_DECODE_GRAPH, 0},
    {"trtllm-session", "engine",
     "TensorRT-LLM GptSession (gptSessionBenchmark v0.5-0.6): engine plus 4.7 ms per request (session set-up, "
     "input copies, first sampling, output copy back, their syncs), fitted on published-dev pub0464 and "
     "pub0466 (A100 FP16 first-token latency, 128 tokens; docs/model.md §7)",
     2.5 * US, {0, 0, 0, 0, 0, 0}, 0, 0.6 * US, 10.0 * US, 0.1e-3, 1.0, RIDGE_HOST_RUNTIME_DECODE_GRAPH, 4.7e-3},
};
#undef US
#define NBUILTIN (sizeof builtins / sizeof builtins[0])

size_t ridge_host_builtin_count(void)
{
    return NBUILTIN;
}

const ridge_host_profile *ridge_host_builtin(size_t i)
{
    return i < NBUILTIN ? &builtins[i] : NULL;
}

static const char *builtin_id(size_t i)
{
    return i < NBUILTIN ? builtins[i].id : NULL;
}

static const ridge_host_profile *find_builtin(const char *id)
{
    for (size_t i = 0; i < NBUILTIN; i++)
        if (strcmp(builtins[i].id, id) == 0)
            return &builtins[i];
    return NULL;
}

static int unknown_profile(const char *id, ridge_err *err, const char *origin, const char *path)
{
    char near[160];
    ridge_nearest_names(id, builtin_id, NBUILTIN, near, sizeof near);
    if (origin)
        return ridge_err_set(err, RIDGE_ENOTFOUND, "%s: %s: unknown host profile '%s' (built-in: %s)", origin, path,
                             id, near);
    return ridge_err_set(err, RIDGE_ENOTFOUND, "unknown host profile '%s' (nearest: %s; a JSON file also works)",
                         id, near);
}

/* The cost keys of a host block and where they go. */
static const struct {
    const char *key;
    size_t offset;
} cost_keys[] = {
    {"launch_s", offsetof(ridge_host_profile, launch_s)},
    {"aten_op_s", offsetof(ridge_host_profile, dispatch_s) + RIDGE_HOST_ATEN * sizeof(double)},
    {"library_op_s", offsetof(ridge_host_profile, dispatch_s) + RIDGE_HOST_LIBRARY * sizeof(double)},
    {"attention_op_s", offsetof(ridge_host_profile, dispatch_s) + RIDGE_HOST_ATTENTION * sizeof(double)},
    {"autograd_op_s", offsetof(ridge_host_profile, dispatch_s) + RIDGE_HOST_AUTOGRAD * sizeof(double)},
    {"multi_tensor_s", offsetof(ridge_host_profile, dispatch_s) + RIDGE_HOST_MULTI_TENSOR * sizeof(double)},
    {"module_call_s", offsetof(ridge_host_profile, module_call_s)},
    {"graph_node_s", offsetof(ridge_host_profile, graph_node_s)},
    {"graph_replay_s", offsetof(ridge_host_profile, graph_replay_s)},
    {"step_s", offsetof(ridge_host_profile, step_s)},
    {"request_s", offsetof(ridge_host_profile, request_s)},
};
#define NCOST (sizeof cost_keys / sizeof cost_keys[0])

static const char *const host_keys[] = {"id",           "base",          "source",        "code",
                                        "runtime",      "cpu_speed",     "launch_s",      "aten_op_s",
                                        "library_op_s", "attention_op_s", "autograd_op_s", "multi_tensor_s",
                                        "module_call_s", "graph_node_s", "graph_replay_s", "step_s",
                                        "request_s",     NULL};
static const char *const root_keys[] = {"schema_version", "kind", "host", NULL};
static const ridge_name runtime_rows[] = {{"eager", RIDGE_HOST_RUNTIME_EAGER},
                                          {"graph", RIDGE_HOST_RUNTIME_GRAPH},
                                          {"decode_graph", RIDGE_HOST_RUNTIME_DECODE_GRAPH}};
static const ridge_names runtime_names = RIDGE_NAMES(runtime_rows, "?");

/* An optional string of the host object naming a row of `names`: 1 with buf (and *value, if not
 * NULL) set, 0 when absent, negative when unknown. */
static int pick(const cJSON *o, const char *key, const ridge_names *names, char *buf, size_t cap, int *value,
                const rj_ctx *c)
{
    int v = 0, rc = rj_string(o, "$.host", key, 0, buf, cap, c);
    if (rc <= 0)
        return rc;
    if (ridge_name_parse(names, buf, &v) != RIDGE_OK)
        return rj_fail(c, RIDGE_EINVAL, "$.host", key, "unknown value '%s'", buf);
    if (value)
        *value = v;
    return 1;
}

static int parse_host(const cJSON *root, ridge_host_profile *hp, const rj_ctx *c)
{
    const cJSON *h = NULL;
    char buf[320];
    long ver = 0;
    int rc, idx = 0;
    if ((rc = rj_check_keys(root, "$", root_keys, c)) != RIDGE_OK)
        return rc;
    RJ_TRY(rj_int(root, "$", "schema_version", 1, 1, 1, &ver, c));
    RJ_TRY(rc = rj_string(root, "$", "kind", 0, buf, sizeof buf, c));
    if (rc > 0 && strcmp(buf, "ridge-host") != 0)
        return rj_fail(c, RIDGE_EINVAL, "$", "kind", "not \"ridge-host\"");
    RJ_TRY(rj_object(root, "$", "host", 1, &h, c));
    if ((rc = rj_check_keys(h, "$.host", host_keys, c)) != RIDGE_OK)
        return rc;
    /* A profile starts from its base (default torch-eager) and overrides what it gives. */
    RJ_TRY(rc = rj_string(h, "$.host", "base", 0, buf, sizeof buf, c));
    {
        const ridge_host_profile *base = find_builtin(rc > 0 ? buf : RIDGE_HOST_DEFAULT);
        if (!base)
            return unknown_profile(buf, c->err, c->origin, "$.host.base");
        *hp = *base;
    }
    snprintf(hp->id, sizeof hp->id, "%s", c->origin);
    RJ_TRY(rj_string(h, "$.host", "id", 0, hp->id, sizeof hp->id, c));
    RJ_TRY(rj_string(h, "$.host", "source", 0, hp->source, sizeof hp->source, c));
    RJ_TRY(rc = pick(h, "code", &ridge_code_names, buf, sizeof buf, NULL, c));
    if (rc > 0)
        snprintf(hp->code, sizeof hp->code, "%.15s", buf);
    RJ_TRY(rc = pick(h, "runtime", &runtime_names, buf, sizeof buf, &idx, c));
    if (rc > 0)
        hp->runtime = (ridge_host_runtime)idx;
    for (size_t i = 0; i < NCOST; i++)
        RJ_TRY(rj_number(h, "$.host", cost_keys[i].key, 0, 0, 10.0, (double *)((char *)hp + cost_keys[i].offset), c));
    RJ_TRY(rj_number(h, "$.host", "cpu_speed", 0, 1e-3, 1e3, &hp->cpu_speed, c));
    return RIDGE_OK;
}

int ridge_host_parse(const char *json, size_t len, const char *origin, ridge_host_profile *out, ridge_err *err)
{
    rj_ctx c = {origin ? origin : "host", err};
    cJSON *root = NULL;
    int rc = rj_parse_object(json, len, &c, &root);
    if (rc != RIDGE_OK)
        return rc;
    rc = parse_host(root, out, &c);
    cJSON_Delete(root);
    return rc;
}

static int parse_loaded(const char *text, size_t len, const char *path, void *out, ridge_err *err)
{
    return ridge_host_parse(text, len, path, out, err);
}

int ridge_host_load(const char *id_or_path, ridge_host_profile *out, ridge_err *err)
{
    const ridge_host_profile *b;
    if (!id_or_path || !*id_or_path)
        return ridge_err_set(err, RIDGE_EINVAL, "empty host profile");
    if ((b = find_builtin(id_or_path))) {
        *out = *b;
        return RIDGE_OK;
    }
    if (ridge_file_is_path(id_or_path))
        return ridge_file_load(id_or_path, parse_loaded, out, err);
    return unknown_profile(id_or_path, err, NULL, NULL);
}

int ridge_host_runtime_for(const ridge_host_profile *hp, int decode, int rt)
{
    if (hp && (hp->runtime == RIDGE_HOST_RUNTIME_GRAPH || (hp->runtime == RIDGE_HOST_RUNTIME_DECODE_GRAPH && decode)))
        return RIDGE_RUNTIME_GRAPH;
    return rt;
}

double ridge_host_op_cost(const ridge_host_profile *hp, const ridge_op *op, double kernels)
{
    double cpu = hp->dispatch_s[ridge_host_class_of(op)] + op->modules * hp->module_call_s;
    if (ridge_host_class_of(op) == RIDGE_HOST_MULTI_TENSOR)
        cpu = hp->dispatch_s[RIDGE_HOST_MULTI_TENSOR] * kernels; /* per launch: each builds its tensor lists */
    return (cpu + kernels * hp->launch_s) / hp->cpu_speed;
}

void ridge_host_add_request(const ridge_host_profile *hp, ridge_schedule_totals *tot)
{
    double r;
    if (!hp || !(hp->request_s > 0) || !(hp->cpu_speed > 0))
        return;
    r = hp->request_s / hp->cpu_speed;
    tot->total_time_s += r;
    tot->host_issue_s += r;
    tot->host_wait_s += r;
    tot->time_by_bound_s[RIDGE_BOUND_HOST] += r;
}

/* ------------------------------------------------------------------ the pipeline */

double ridge_schedule_finish_s(double gpu_end_s, double host_end_s, double issue_s, double kernels, double gpu_s,
                               double last_kernel_s)
{
    return max3(gpu_end_s + gpu_s, host_end_s + issue_s + gpu_s, host_end_s + kernels * issue_s + last_kernel_s);
}

/* One pass of the pipeline over the ops; *split (may be NULL) tells whether a kernel split over K. */
static int schedule(const ridge_gpu *g, const ridge_op *ops, size_t n, ridge_runtime rt, const ridge_host_profile *hp,
                    ridge_op_result *results, ridge_schedule_totals *tot, int *split, ridge_err *err)
{
    /* H: when the host has issued the last kernel so far; E: when the GPU finishes the last
     * kernel so far. Without a profile (plain CUDA op lists): h = the launch plus the framework
     * cost spread over an op's kernels; a graph costs one eager launch to start. With one: the
     * op's dispatch by class, its module calls and its launches (eager), or the replay and its
     * nodes (graph), after the profile's per-step CPU work. */
    int graph = rt == RIDGE_RUNTIME_GRAPH;
    double h0 = graph ? g->eff.graph_launch_s : g->eff.host_launch_s;
    double f = graph ? 0 : g->eff.framework_op_s;
    double H = graph ? g->eff.host_launch_s + g->eff.framework_op_s : 0, E = 0;
    ridge_host_profile eff_hp;
    if (hp) {
        /* A GPU file whose host parameters were calibrated (host_launch_s, framework_op_s) says how
         * fast its host is against the defaults: the profile's CPU costs scale by that ratio. */
        ridge_efficiency e0;
        double now = g->eff.host_launch_s + g->eff.framework_op_s;
        ridge_efficiency_defaults(g->compute_capability, g->sm_count, g->boost_clock_hz, g->memory_bw_bytes_per_s,
                                  &e0);
        eff_hp = *hp;
        if (now > 0)
            eff_hp.cpu_speed *= (e0.host_launch_s + e0.framework_op_s) / now;
        hp = &eff_hp;
        H = (hp->step_s + (graph ? hp->graph_replay_s : 0)) / hp->cpu_speed;
    }
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
        /* C identical kernels of GPU time gk each, issued every h:
         * E_C = max(E + C gk, H + h + C gk, H + C h + gk), H_C = H + C h. */
        c = kr.kernels * ops[i].count;
        gk = ridge_kernel_time_in(g, &kr, rt) / kr.kernels;
        if (!hp)
            h = h0 + f / kr.kernels;
        else if (graph)
            h = hp->graph_node_s / hp->cpu_speed;
        else
            h = ridge_host_op_cost(hp, &ops[i], kr.kernels) / kr.kernels;
        E1 = ridge_schedule_finish_s(E, H, h, c, c * gk, gk);
        H1 = H + c * h;
        /* A host that waits for the GPU (eager only: a graph replays without the host) issues
         * nothing more until the op has run. */
        if (hp && !graph && ops[i].host_sync && H1 < E1)
            H1 = E1;
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

/* The kernel model picks split-K for GPU time; the reduction kernel it adds costs a launch. Where
 * the host bounds an eager step, as at batch 1, those launches are on the critical path and the
 * GPU time saved is not: the whole A100 launching them ran ResNet-50 slower than a 1g.10gb slice,
 * too small to split (docs/model.md §7, §8). So a step with a split is run again without split-K
 * and the faster pass is kept, as a framework autotuning the step would. Graph replays cost the
 * host little: their choice stands. */
static int schedule_best(const ridge_gpu *g, const ridge_op *ops, size_t n, ridge_runtime rt,
                         const ridge_host_profile *hp, ridge_op_result *results, ridge_schedule_totals *tot,
                         ridge_err *err)
{
    int split = 0, rc = schedule(g, ops, n, rt, hp, results, tot, &split, err);
    ridge_schedule_totals unsplit;
    ridge_gpu g1;
    if (rc != RIDGE_OK || !split || rt != RIDGE_RUNTIME_EAGER)
        return rc;
    g1 = *g;
    g1.no_split_k = 1;
    rc = schedule(&g1, ops, n, rt, hp, NULL, &unsplit, NULL, err);
    if (rc == RIDGE_OK && unsplit.total_time_s < tot->total_time_s) {
        if (results) /* the faster pass's per-op results */
            rc = schedule(&g1, ops, n, rt, hp, results, tot, NULL, err);
        else
            *tot = unsplit;
    }
    return rc;
}

int ridge_schedule_ops(const ridge_gpu *g, const ridge_op *ops, size_t n, ridge_runtime rt, ridge_op_result *results,
                       ridge_schedule_totals *tot, ridge_err *err)
{
    return schedule_best(g, ops, n, rt, NULL, results, tot, err);
}

int ridge_schedule_ops_host(const ridge_gpu *g, const ridge_op *ops, size_t n, ridge_runtime rt,
                            const ridge_host_profile *hp, ridge_op_result *results, ridge_schedule_totals *tot,
                            ridge_err *err)
{
    return schedule_best(g, ops, n, rt, hp, results, tot, err);
}
