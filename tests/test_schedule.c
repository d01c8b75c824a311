/* The host launch pipeline (docs/model.md, section 7).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ridge/schedule.h"
#include "ridge/workload.h"

static ridge_gpu load(const char *id)
{
    ridge_gpu g;
    ridge_err err;
    memset(&g, 0, sizeof g);
    CHECK(ridge_catalog_load(id, &g, &err) == RIDGE_OK);
    return g;
}

/* Kernel-by-kernel simulation of the two-stage pipeline, to check the closed form. h: launch cost per
 * kernel; f: framework cost per operator instance, spread over its kernels; h0: host time before
 * the first issue. */
static double simulate(const ridge_gpu *g, const ridge_op *ops, size_t n, double h, double f, double h0,
                       ridge_runtime rt)
{
    double H = h0, E = 0;
    for (size_t i = 0; i < n; i++) {
        ridge_kernel_result r;
        ridge_err err;
        double kernels, gk;
        if (ridge_kernel_predict(g, &ops[i], &r, &err) != RIDGE_OK)
            return -1;
        kernels = r.kernels * ops[i].count;
        /* In a graph only the back-to-back repeats of one kernel (an optimizer's multi-tensor
         * launches) run at graph_kernel_floor_s; a step's other kernels keep kernel_floor_s
         * (docs/model.md §7, "Kernel floors in a graph"). */
        gk = (rt == RIDGE_RUNTIME_GRAPH && ridge_host_class_of(&ops[i]) == RIDGE_HOST_MULTI_TENSOR
                  ? r.time_s - r.floor_s + r.kernels * g->eff.graph_kernel_floor_s
                  : r.time_s) /
             r.kernels;
        for (double k = 0; k < kernels; k++) {
            H += h + f / r.kernels;
            E = (H > E ? H : E) + gk;
        }
    }
    return E;
}

static void test_closed_form_matches_simulation(void)
{
    ridge_gpu g = load("a100-sxm4-80gb");
    ridge_op ops[64];
    unsigned long long s = 2385;
    for (int i = 0; i < 64; i++) {
        double sz;
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        sz = (double)(1 + (s >> 40) % 4096);
        ops[i] = (i % 3 == 0) ? ridge_op_gemm(RIDGE_DTYPE_BF16, sz, 1024, 512, 1)
                              : ridge_op_elementwise(RIDGE_DTYPE_FP16, sz * 37, 2, 1, 1);
        ops[i].count = (double)(1 + (s >> 20) % 5);
    }
    for (int rt = 0; rt < 2; rt++) {
        ridge_schedule_totals tot;
        ridge_op_result *res = calloc(64, sizeof *res);
        ridge_err err;
        double h = rt ? g.eff.graph_launch_s : g.eff.host_launch_s;
        double f = rt ? 0 : g.eff.framework_op_s, h0 = rt ? g.eff.host_launch_s + g.eff.framework_op_s : 0;
        double sum = 0;
        CHECK(ridge_schedule_ops(&g, ops, 64, (ridge_runtime)rt, res, &tot, &err) == RIDGE_OK);
        CHECK_NEAR(tot.total_time_s, simulate(&g, ops, 64, h, f, h0, (ridge_runtime)rt), 1e-12);
        for (int i = 0; i < 64; i++)
            sum += res[i].time_s;
        CHECK_NEAR(sum, tot.total_time_s, 1e-12);
        CHECK_NEAR(tot.gpu_busy_s + tot.host_wait_s, tot.total_time_s, 1e-9);
        free(res);
    }
}

static void test_host_bound_small_kernels(void)
{
    ridge_gpu g = load("h200-sxm-141gb");
    ridge_op tiny = ridge_op_elementwise(RIDGE_DTYPE_FP32, 1024, 1, 1, 1), big;
    ridge_schedule_totals eager, graph, bigt;
    ridge_op_result res;
    ridge_err err;
    tiny.count = 1000;
    CHECK(ridge_schedule_ops(&g, &tiny, 1, RIDGE_RUNTIME_EAGER, &res, &eager, &err) == RIDGE_OK);
    /* 1000 kernels of ~2.5 us issued every 5 + 3 us: the GPU waits for the host. */
    CHECK(res.bound == RIDGE_BOUND_HOST);
    CHECK_NEAR(eager.total_time_s, 1000 * (g.eff.host_launch_s + g.eff.framework_op_s) + res.kernel.time_s, 1e-9);
    CHECK(eager.host_wait_s > eager.gpu_busy_s);
    CHECK(ridge_schedule_ops(&g, &tiny, 1, RIDGE_RUNTIME_GRAPH, &res, &graph, &err) == RIDGE_OK);
    /* In a CUDA graph the host's costs go, but a step's kernel follows a different kernel (an
     * op's count is its layers, interleaved with the other ops): it keeps the kernel floor. */
    CHECK(res.bound != RIDGE_BOUND_HOST);
    CHECK(graph.total_time_s < 0.5 * eager.total_time_s);
    CHECK_NEAR(graph.total_time_s,
               g.eff.host_launch_s + g.eff.framework_op_s + g.eff.graph_launch_s + 1000 * res.kernel.time_s, 1e-9);
    CHECK(res.kernel.floor_s == g.eff.kernel_floor_s);
    /* Repeats of one kernel back to back (an optimizer's multi-tensor launches) run at the graph's
     * floor: about a microsecond a tiny kernel (h200-2026-11-29/a/add_fp32_2^10/graph: 1.011 us
     * per kernel, 100 adds replayed). */
    snprintf(tiny.group, sizeof tiny.group, "optimizer");
    CHECK(ridge_schedule_ops(&g, &tiny, 1, RIDGE_RUNTIME_GRAPH, &res, &graph, &err) == RIDGE_OK);
    CHECK_NEAR(graph.total_time_s,
               g.eff.host_launch_s + g.eff.framework_op_s + g.eff.graph_launch_s +
                   1000 * ridge_kernel_time_in(&g, &res.kernel, RIDGE_RUNTIME_GRAPH),
               1e-9);
    CHECK(ridge_kernel_time_in(&g, &res.kernel, RIDGE_RUNTIME_GRAPH) < 1.3e-6);
    CHECK(ridge_kernel_time_in(&g, &res.kernel, RIDGE_RUNTIME_GRAPH) > 0.9e-6);
    tiny.group[0] = 0;
    /* A large GEMM hides the host entirely after the first issue. */
    big = ridge_op_gemm(RIDGE_DTYPE_BF16, 8192, 8192, 8192, 1);
    big.count = 10;
    CHECK(ridge_schedule_ops(&g, &big, 1, RIDGE_RUNTIME_EAGER, &res, &bigt, &err) == RIDGE_OK);
    CHECK(res.bound == RIDGE_BOUND_COMPUTE);
    CHECK_NEAR(bigt.host_wait_s, g.eff.host_launch_s + g.eff.framework_op_s, 1e-9);
}

/* Split-K adds a reduction kernel, whose launch the host pays: an eager step is also run without
 * split-K and the faster pass kept (docs/model.md §7). Exact against the kernel-by-kernel
 * simulation of both passes. */
static void test_split_k_against_the_host(void)
{
    static const struct {
        const char *name;
        double m, n, k;
        ridge_runtime rt;
        int split_kept;
    } rows[] = {
        {"eager, host-bound: 7.0 us split (2 launches) vs 8.3 us whole", 16, 256, 1024, RIDGE_RUNTIME_EAGER, 0},
        {"eager, GPU-bound: 21.5 us split vs 85.4 us whole", 256, 256, 16384, RIDGE_RUNTIME_EAGER, 1},
        {"graph: launches are cheap, the kernel model's split stands", 16, 256, 1024, RIDGE_RUNTIME_GRAPH, 1},
    };
    ridge_gpu g = load("a100-sxm4-80gb"), whole = g;
    whole.no_split_k = 1;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_op op = ridge_op_gemm(RIDGE_DTYPE_BF16, rows[i].m, rows[i].n, rows[i].k, 1);
        ridge_schedule_totals tot;
        ridge_op_result res;
        ridge_err err;
        int graph = rows[i].rt == RIDGE_RUNTIME_GRAPH;
        double h = graph ? g.eff.graph_launch_s : g.eff.host_launch_s, f = graph ? 0 : g.eff.framework_op_s;
        double h0 = graph ? g.eff.host_launch_s + g.eff.framework_op_s : 0, split, unsplit;
        check_context(rows[i].name);
        op.count = 200;
        CHECK(ridge_kernel_predict(&g, &op, &res.kernel, &err) == RIDGE_OK && res.kernel.split_k > 1);
        split = simulate(&g, &op, 1, h, f, h0, rows[i].rt);
        unsplit = simulate(&whole, &op, 1, h, f, h0, rows[i].rt);
        CHECK(ridge_schedule_ops(&g, &op, 1, rows[i].rt, &res, &tot, &err) == RIDGE_OK);
        CHECK_NEAR(tot.total_time_s, rows[i].split_kept ? split : unsplit, 1e-12);
        CHECK_INT(res.kernel.split_k > 1, rows[i].split_kept);
        CHECK_INT(res.kernel.kernels, rows[i].split_kept ? 2 : 1);
        CHECK_NEAR(res.time_s, tot.total_time_s, 1e-12);
    }
    check_context(NULL);
}

/* A MIG slice is a part of its GPU: never faster than the whole one. ResNet-50 at batch 1 and 2
 * was (1g.10gb 1.443 ms against 1.511 ms): the whole A100 split the K of its small convolutions
 * over idle SMs and paid each reduction kernel's launch on a host that bounds the step. */
static void test_mig_slices_not_faster(void)
{
    static const char *const workloads[] = {"resnet50", "mobilenet-v2"};
    ridge_gpu whole = load("a100-sxm4-80gb");
    for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; w++) {
        ridge_model *m = NULL;
        ridge_err err;
        if (!CHECK(ridge_model_load_builtin(workloads[w], &m, &err) == RIDGE_OK))
            continue;
        for (double b = 1; b <= 4; b *= 2) {
            ridge_run_config rc;
            ridge_oplist ol = {0};
            ridge_schedule_totals t_whole;
            ridge_run_config_init(&rc);
            rc.mode = RIDGE_MODE_INFER;
            rc.precision = RIDGE_DTYPE_FP16;
            rc.batch = b;
            if (!CHECK(ridge_model_build(m, &rc, &ol, &err) == RIDGE_OK))
                continue;
            CHECK(ridge_schedule_ops(&whole, ol.ops, ol.n, RIDGE_RUNTIME_EAGER, NULL, &t_whole, &err) == RIDGE_OK);
            for (int p = 0; p < whole.mig_count; p++) {
                ridge_gpu slice = whole;
                ridge_schedule_totals t_slice;
                char what[96];
                snprintf(what, sizeof what, "%s batch %.0f on %s", workloads[w], b, whole.mig[p].profile);
                check_context(what);
                CHECK(ridge_gpu_mig_slice(&slice, whole.mig[p].profile, &err) == RIDGE_OK);
                CHECK(ridge_schedule_ops(&slice, ol.ops, ol.n, RIDGE_RUNTIME_EAGER, NULL, &t_slice, &err) == RIDGE_OK);
                if (!CHECK(t_slice.total_time_s >= t_whole.total_time_s))
                    fprintf(stderr, "  slice %.6g s, whole GPU %.6g s\n", t_slice.total_time_s, t_whole.total_time_s);
            }
            ridge_oplist_free(&ol);
        }
        ridge_model_free(m);
    }
    check_context(NULL);
}

static void test_errors_name_the_op(void)
{
    ridge_gpu g = load("a100-sxm4-80gb");
    ridge_op ops[2] = {ridge_op_gemm(RIDGE_DTYPE_BF16, 64, 64, 64, 1), ridge_op_gemm(RIDGE_DTYPE_FP8, 64, 64, 64, 1)};
    ridge_schedule_totals tot;
    ridge_err err;
    strcpy(ops[1].name, "fp8-proj");
    CHECK(ridge_schedule_ops(&g, ops, 2, RIDGE_RUNTIME_EAGER, NULL, &tot, &err) == RIDGE_EUNSUPPORTED);
    CHECK_STR_HAS(err.msg, "op 1 fp8-proj");
}

/* Host profiles (docs/model.md §7): the built-ins, a user's file and its errors, the op classes,
 * and the pipeline priced by a profile. */
static void test_host_profiles(void)
{
    ridge_gpu g = load("h200-sxm-141gb");
    ridge_host_profile hp, slow;
    ridge_err err;
    ridge_op tiny = ridge_op_elementwise(RIDGE_DTYPE_FP32, 1024, 2, 1, 1), lin, bwd, opt;
    ridge_schedule_totals tot, tot2;
    ridge_op_result res;
    const char *neg = "{\"schema_version\": 1, \"host\": {\"aten_op_s\": -2e-6}}";
    const char *unk = "{\"schema_version\": 1, \"host\": {\"dispatch\": 1}}";
    const char *half = "{\"schema_version\": 1, \"host\": {\"id\": \"half\", \"cpu_speed\": 0.5}}";
    CHECK(ridge_host_builtin_count() >= 4);
    for (size_t i = 0; i < ridge_host_builtin_count(); i++) {
        const ridge_host_profile *b = ridge_host_builtin(i);
        CHECK(ridge_host_load(b->id, &hp, &err) == RIDGE_OK);
        CHECK(hp.cpu_speed > 0 && hp.launch_s > 0 && hp.source[0]);
    }
    CHECK(ridge_host_load("torch-eagr", &hp, &err) == RIDGE_ENOTFOUND);
    CHECK_STR_HAS(err.msg, "torch-eager");
    CHECK(ridge_host_parse(neg, strlen(neg), "n.json", &hp, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "n.json: $.host.aten_op_s");
    CHECK(ridge_host_parse(unk, strlen(unk), "u.json", &hp, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "u.json: $.host.dispatch: unknown key");
    {
        /* gqa_decode: the profile's decode attention kernel; trtllm-session's runs a CTA per
         * query head, and ridge_host_apply hands that (and the code style) to a run */
        const char *ph = "{\"schema_version\": 1, \"host\": {\"id\": \"ph\", \"gqa_decode\": \"per_head\"}}";
        const char *bad = "{\"schema_version\": 1, \"host\": {\"gqa_decode\": \"split\"}}";
        ridge_run_config rc;
        CHECK(ridge_host_parse(ph, strlen(ph), "p.json", &hp, &err) == RIDGE_OK);
        CHECK_INT(hp.gqa_per_head, 1);
        CHECK(ridge_host_parse(bad, strlen(bad), "b.json", &hp, &err) == RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "b.json: $.host.gqa_decode: unknown value 'split'");
        CHECK(ridge_host_load("trtllm-session", &hp, &err) == RIDGE_OK);
        ridge_run_config_init(&rc);
        ridge_host_apply(&hp, &rc);
        CHECK_INT(rc.gqa_per_head, 1);
        CHECK_INT(rc.code, RIDGE_CODE_ENGINE);
        CHECK(ridge_host_load("engine", &hp, &err) == RIDGE_OK);
        ridge_host_apply(&hp, &rc);
        CHECK_INT(rc.gqa_per_head, 0);
    }
    /* the classes of the graph builders' ops */
    lin = ridge_op_gemm(RIDGE_DTYPE_BF16, 128, 4096, 4096, 1);
    bwd = lin;
    strcpy(bwd.name, "qkv_proj.dgrad");
    opt = tiny;
    strcpy(opt.group, "optimizer");
    CHECK_INT(ridge_host_class_of(&tiny), RIDGE_HOST_ATEN);
    CHECK_INT(ridge_host_class_of(&lin), RIDGE_HOST_LIBRARY);
    CHECK_INT(ridge_host_class_of(&bwd), RIDGE_HOST_AUTOGRAD);
    CHECK_INT(ridge_host_class_of(&opt), RIDGE_HOST_MULTI_TENSOR);
    /* eager: a tiny aten op inside a module costs its dispatch, the module call and the launch */
    CHECK(ridge_host_load("torch-eager", &hp, &err) == RIDGE_OK);
    tiny.count = 1000;
    tiny.modules = 1;
    CHECK(ridge_schedule_ops_host(&g, &tiny, 1, RIDGE_RUNTIME_EAGER, &hp, &res, &tot, &err) == RIDGE_OK);
    CHECK(res.bound == RIDGE_BOUND_HOST);
    CHECK_NEAR(tot.host_issue_s, 1000 * (hp.dispatch_s[RIDGE_HOST_ATEN] + hp.module_call_s + hp.launch_s), 1e-12);
    CHECK_NEAR(tot.total_time_s, tot.host_issue_s + res.kernel.time_s, 1e-9);
    /* half the CPU speed: twice the host time */
    CHECK(ridge_host_parse(half, strlen(half), "h.json", &slow, &err) == RIDGE_OK);
    CHECK_STR_EQ(slow.id, "half");
    CHECK(ridge_schedule_ops_host(&g, &tiny, 1, RIDGE_RUNTIME_EAGER, &slow, &res, &tot2, &err) == RIDGE_OK);
    CHECK_NEAR(tot2.host_issue_s, 2 * tot.host_issue_s, 1e-12);
    /* graph: one replay, then the nodes; the GPU is no longer waiting */
    CHECK(ridge_schedule_ops_host(&g, &tiny, 1, RIDGE_RUNTIME_GRAPH, &hp, &res, &tot2, &err) == RIDGE_OK);
    CHECK(res.bound != RIDGE_BOUND_HOST);
    CHECK_NEAR(tot2.host_issue_s, hp.graph_replay_s + 1000 * hp.graph_node_s, 1e-12);
    /* an engine replays decode steps as a graph; the other profiles keep the runtime asked for */
    CHECK(ridge_host_load("engine", &hp, &err) == RIDGE_OK);
    CHECK_INT(ridge_host_runtime_for(&hp, 1, RIDGE_RUNTIME_EAGER), RIDGE_RUNTIME_GRAPH);
    CHECK_INT(ridge_host_runtime_for(&hp, 0, RIDGE_RUNTIME_EAGER), RIDGE_RUNTIME_EAGER);
    /* host_sync: the host waits for a long kernel before issuing the next op */
    {
        ridge_op two[2] = {ridge_op_gemm(RIDGE_DTYPE_BF16, 8192, 8192, 8192, 1), ridge_op_elementwise(RIDGE_DTYPE_FP32, 1024, 2, 1, 1)};
        CHECK(ridge_host_load("torch-eager", &hp, &err) == RIDGE_OK);
        CHECK(ridge_schedule_ops_host(&g, two, 2, RIDGE_RUNTIME_EAGER, &hp, NULL, &tot, &err) == RIDGE_OK);
        two[0].host_sync = 1;
        CHECK(ridge_schedule_ops_host(&g, two, 2, RIDGE_RUNTIME_EAGER, &hp, NULL, &tot2, &err) == RIDGE_OK);
        CHECK(tot2.total_time_s > tot.total_time_s + 5e-6);
    }
}

int main(void)
{
    test_host_profiles();
    test_closed_form_matches_simulation();
    test_host_bound_small_kernels();
    test_split_k_against_the_host();
    test_mig_slices_not_faster();
    test_errors_name_the_op();
    return check_report();
}
