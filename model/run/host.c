/* Host profiles: what the software stack costs the CPU to issue an op, by its dispatch class
 * (docs/model.md §7, "Host profiles"). The pipeline that spends it is schedule.c.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <ctype.h>
#include <string.h>

#include "json_util.h"
#include "nearest.h"
#include "ridge/efficiency.h"
#include "ridge/file.h"
#include "ridge/host.h"
#include "ridge/kernel.h"
#include "ridge/workload.h"


/* The built-in profiles. Every constant is explained, with the records it comes from, in
 * docs/model.md §7 ("Host profiles"); the H200 records are cited as h200-2026-11-29/RUN/NAME. */
#define US 1e-6
static const ridge_host_profile builtins[] = {
    {"torch-eager", "",
     "PyTorch 2.x eager on a current server CPU (the H200 host of h200-2026-11-29 run a): launch, aten and "
     "library costs from its tiny-op records, module calls and the in-model factor fitted on its llm_infer "
     "prefill T128 and resnet50 infer bs1 records (docs/model.md §7)",
     5.0 * US, {0, 9.9 * US, 21.0 * US, 99.7 * US, 28.6 * US, 12.0 * US}, 0.35 * US, 0.6 * US, 10.0 * US, 0, 1.0,
     RIDGE_HOST_RUNTIME_EAGER, 0, 0, 0, 0},
    {"torch-eager-ngc21", "",
     "PyTorch 1.x eager (NGC pytorch 20.xx-22.xx) on the hosts of the NVIDIA DeepLearningExamples READMEs "
     "(DGX-1: Xeon E5-2698 v4): torch-eager's costs on a CPU 0.319 as fast, fitted on published-dev pub0225 "
     "and pub0228 (V100 ResNet-50 inference batch 1, FP32 and AMP; docs/model.md §7)",
     5.0 * US, {0, 9.9 * US, 21.0 * US, 99.7 * US, 28.6 * US, 12.0 * US}, 0.35 * US, 0.6 * US, 10.0 * US, 0, 0.319,
     RIDGE_HOST_RUNTIME_EAGER, 0, 0, 0, 0},
    {"torch-graph", "",
     "PyTorch with torch.cuda.graphs: the step captured once and replayed (g.replay(): one Python call and "
     "cudaGraphLaunch, then 0.6 us per node, gpu-specs §9 OCANNL-488)",
     5.0 * US, {0, 9.9 * US, 21.0 * US, 99.7 * US, 28.6 * US, 12.0 * US}, 0.35 * US, 0.6 * US, 10.0 * US, 0, 1.0,
     RIDGE_HOST_RUNTIME_GRAPH, 0, 0, 0, 0},
    {"torch-compile", "compile",
     "torch.compile (inductor, default mode): pointwise chains fused into Triton kernels, each launched from "
     "the generated Python wrapper (an estimate: launch plus a few us, no module calls)",
     5.0 * US, {0, 3.0 * US, 6.0 * US, 10.0 * US, 3.0 * US, 12.0 * US}, 0, 0.6 * US, 10.0 * US, 0, 1.0,
     RIDGE_HOST_RUNTIME_EAGER, 0, 0, 0, 0},
    {"engine", "engine",
     "an inference engine (TensorRT, TensorRT-LLM, vLLM style): fused kernels from a C++ runtime, decode "
     "steps as CUDA graphs, 0.1 ms of CPU work per step (scheduling, sampling; an estimate, far below Vidur's "
     "2.9 ms for a Python engine, ANCHORS.md); KV cache 0.9 of free memory (free_gpu_memory_fraction)",
     2.5 * US, {0, 0, 0, 0, 0, 0}, 0, 0.6 * US, 10.0 * US, 0.1e-3, 1.0, RIDGE_HOST_RUNTIME_DECODE_GRAPH, 0, 0, 0.9, 0},
    {"trtllm-bench", "engine",
     "TensorRT-LLM trtllm-bench, PyTorch backend (in-flight batching from the Python executor): engine plus "
     "6.5 us of CPU per running sequence every iteration (preparing its inputs, handling its outputs), not "
     "overlapped, fitted on the published-dev H100 Llama-3.1-8B rows (docs/model.md §7)",
     2.5 * US, {0, 0, 0, 0, 0, 0}, 0, 0.6 * US, 10.0 * US, 0.1e-3, 1.0, RIDGE_HOST_RUNTIME_DECODE_GRAPH, 0, 0, 0.9,
     6.5 * US},
    {"trtllm-session", "engine",
     "TensorRT-LLM GptSession (gptSessionBenchmark v0.5-0.6): engine plus 4.2 ms per request (session set-up, "
     "input copies, first sampling, output copy back, their syncs), fitted on pub0464 and pub0466 (A100 "
     "FP16 first-token latency; docs/model.md §7); decode attention a CTA per query head (masked MHA, pre-XQA)",
     2.5 * US, {0, 0, 0, 0, 0, 0}, 0, 0.6 * US, 10.0 * US, 0.1e-3, 1.0, RIDGE_HOST_RUNTIME_DECODE_GRAPH, 4.2e-3, 1, 0, 0},
    {"tf1-graph", "",
     "TensorFlow 1.15 graph execution without XLA (NGC 20.06-tf1, DLE ConvNets): the C++ executor's cost per op, "
     "one value for every class (no Python, no module calls) plus the 5 us launch, fitted on published-dev pub0252 "
     "(V100 DGX-1 ResNet-50 AMP inference, batch 1; docs/model.md §7)",
     5.0 * US, {0, 7.6 * US, 7.6 * US, 7.6 * US, 7.6 * US, 7.6 * US}, 0, 0.6 * US, 10.0 * US, 0, 1.0,
     RIDGE_HOST_RUNTIME_EAGER, 0, 0, 0, 0},
    {"tf1-xla", "",
     "TensorFlow 1.15 with XLA auto-clustering (DLE ConvNets training): the compiled clusters' kernels launched by "
     "XLA's C++ executable, 5 us each, no per-op executor cost (an estimate, not fitted: its rows are GPU-bound; "
     "docs/model.md §7)",
     5.0 * US, {0, 0, 0, 0, 0, 0}, 0, 0.6 * US, 10.0 * US, 0, 1.0, RIDGE_HOST_RUNTIME_EAGER, 0, 0, 0, 0},
    {"mxnet-hybrid", "",
     "MXNet Gluon hybridized (NGC mxnet 20.12, 22.10; DLE RN50): ops pushed by the C++ CachedOp to the dependency "
     "engine, tf1-graph's 7.6 us per op plus the launch (borrowed, not fitted: no mapped MXNet row is host-bound; "
     "docs/model.md §7)",
     5.0 * US, {0, 7.6 * US, 7.6 * US, 7.6 * US, 7.6 * US, 7.6 * US}, 0, 0.6 * US, 10.0 * US, 0, 1.0,
     RIDGE_HOST_RUNTIME_EAGER, 0, 0, 0, 0},
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
        return ridge_err_set(err, RIDGE_ENOTFOUND, "%s: %s: unknown host profile '%s' (nearest built-in: %s)", origin,
                             path, id, near);
    return ridge_err_set(err, RIDGE_ENOTFOUND, "unknown host profile '%s' (nearest: %s; a JSON file also works)",
                         id, near);
}

/* The smallest non-zero cost a host file may give, in seconds. */
#define HOST_MIN_COST_S 1e-12

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
    {"sequence_s", offsetof(ridge_host_profile, sequence_s)},
};
#define NCOST (sizeof cost_keys / sizeof cost_keys[0])

static const char *const host_keys[] = {"id",           "base",          "source",        "code",
                                        "runtime",      "cpu_speed",     "launch_s",      "aten_op_s",
                                        "library_op_s", "attention_op_s", "autograd_op_s", "multi_tensor_s",
                                        "module_call_s", "graph_node_s", "graph_replay_s", "step_s",
                                        "request_s",     "sequence_s",   "gqa_decode",   "kv_memory_fraction", NULL};
static const char *const root_keys[] = {"schema_version", "kind", "host", NULL};
static const ridge_name runtime_rows[] = {{"eager", RIDGE_HOST_RUNTIME_EAGER},
                                          {"graph", RIDGE_HOST_RUNTIME_GRAPH},
                                          {"decode_graph", RIDGE_HOST_RUNTIME_DECODE_GRAPH}};
static const ridge_names runtime_names = RIDGE_NAMES(runtime_rows, "?");
static const ridge_name gqa_rows[] = {{"packed", 0}, {"per_head", 1}};
static const ridge_names gqa_names = RIDGE_NAMES(gqa_rows, "?");

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
    for (char *p = hp->id; *p; p++) /* the file's path names it: printed on one line */
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    RJ_TRY(rc = rj_string(h, "$.host", "id", 0, hp->id, sizeof hp->id, c));
    if (rc > 0)
        for (const char *p = hp->id; *p; p++)
            if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '-' || *p == '.' || *p == '_'))
                return rj_fail(c, RIDGE_EINVAL, "$.host", "id", "'%s' may contain only a-z, 0-9, '-', '_' and '.'",
                               hp->id);
    RJ_TRY(rj_string(h, "$.host", "source", 0, hp->source, sizeof hp->source, c));
    RJ_TRY(rc = pick(h, "code", &ridge_code_names, buf, sizeof buf, NULL, c));
    if (rc > 0)
        snprintf(hp->code, sizeof hp->code, "%.15s", buf);
    RJ_TRY(rc = pick(h, "runtime", &runtime_names, buf, sizeof buf, &idx, c));
    if (rc > 0)
        hp->runtime = (ridge_host_runtime)idx;
    RJ_TRY(rc = pick(h, "gqa_decode", &gqa_names, buf, sizeof buf, &idx, c));
    if (rc > 0)
        hp->gqa_per_head = idx;
    for (size_t i = 0; i < NCOST; i++) {
        double *v = (double *)((char *)hp + cost_keys[i].offset);
        RJ_TRY(rc = rj_number(h, "$.host", cost_keys[i].key, 0, 0, 10.0, v, c));
        /* a cost is 0 or at least a picosecond: a subnormal one printed as 1e-317 ms */
        if (rc > 0 && *v > 0 && *v < HOST_MIN_COST_S)
            return rj_fail(c, RIDGE_EINVAL, "$.host", cost_keys[i].key, "%g s is below %g s (0 for none)", *v,
                           HOST_MIN_COST_S);
    }
    RJ_TRY(rj_number(h, "$.host", "cpu_speed", 0, 1e-3, 1e3, &hp->cpu_speed, c));
    RJ_TRY(rj_number(h, "$.host", "kv_memory_fraction", 0, 1e-3, 1.0, &hp->kv_memory_fraction, c));
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

double ridge_host_cpu_speed_on(const ridge_host_profile *hp, const ridge_gpu *g)
{
    double now, speed = hp ? hp->cpu_speed : 0;
    ridge_efficiency e0;
    if (!hp || !g)
        return speed;
    now = g->eff.host_launch_s + g->eff.framework_op_s;
    ridge_efficiency_defaults(g->compute_capability, g->sm_count, g->boost_clock_hz, g->memory_bw_bytes_per_s, &e0);
    return now > 0 ? speed * (e0.host_launch_s + e0.framework_op_s) / now : speed;
}

double ridge_host_request_on(const ridge_host_profile *hp, const ridge_gpu *g)
{
    double speed = ridge_host_cpu_speed_on(hp, g);
    return hp && hp->request_s > 0 && speed > 0 ? hp->request_s / speed : 0;
}

double ridge_host_sequences_on(const ridge_host_profile *hp, const ridge_gpu *g, double batch)
{
    double speed = ridge_host_cpu_speed_on(hp, g);
    return hp && hp->sequence_s > 0 && speed > 0 && batch > 0 ? batch * hp->sequence_s / speed : 0;
}

double ridge_host_kv_fraction(const ridge_host_profile *hp)
{
    return hp && hp->kv_memory_fraction > 0 ? hp->kv_memory_fraction : 1.0;
}

void ridge_host_apply(const ridge_host_profile *hp, ridge_run_config *rc)
{
    if (!hp)
        return;
    if (rc->code == RIDGE_CODE_AS_WRITTEN && hp->code[0])
        ridge_code_parse(hp->code, &rc->code);
    rc->gqa_per_head = hp->gqa_per_head;
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
