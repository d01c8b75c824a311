/* ridge tests: multi-GPU parallelism (ridge/parallel.h, docs/parallel.md).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ridge/parallel.h"
#include "ridge/schedule.h"

/* gpt2: 124,439,808 parameters (tests/test_transformer.c pins the count). */
#define GPT2_PARAMS 124439808.0

static const char one_gpu_json[] = "{\"schema_version\":1,\"id\":\"one-a100\",\"name\":\"one A100\","
                                   "\"gpu\":\"a100-sxm4-80gb\",\"gpus_per_node\":1,"
                                   "\"intra\":{\"kind\":\"nvswitch\"}}";

static ridge_model *load_model(const char *id)
{
    ridge_model *m = NULL;
    ridge_err err;
    if (ridge_model_load_builtin(id, &m, &err) != RIDGE_OK) {
        fprintf(stderr, "cannot load %s: %s\n", id, err.msg);
        return NULL;
    }
    return m;
}

/* The model m loaded (NULL: not) and the cluster `id` on `nodes` nodes read into cl: 1, or 0 after a
 * failed CHECK, with m freed and set to NULL. */
static int with_cluster(ridge_model **m, const char *id, int nodes, ridge_cluster *cl)
{
    ridge_err err;
    if (CHECK(*m) && CHECK_INT(ridge_cluster_load(id, nodes, cl, &err), RIDGE_OK))
        return 1;
    ridge_model_free(*m);
    *m = NULL;
    return 0;
}

static void pconf(ridge_parallel_config *pc, int tp, int pp, int dp, double mb, double gb)
{
    ridge_parallel_config_init(pc);
    pc->tp = tp;
    pc->pp = pp;
    pc->dp = dp;
    pc->microbatch = mb;
    pc->global_batch = gb;
}

/* The 1F1B and interleaved bubble fractions are exactly (p-1)/(v m + p-1). */
static void test_bubble(void)
{
    static const struct {
        int tp, pp, dp, v;
        double mb, gb;
    } rows[] = {
        {2, 4, 1, 1, 2, 16}, /* m = 8 */
        {1, 4, 2, 1, 1, 6},  /* m = 3 < p */
        {2, 4, 1, 3, 1, 12}, /* interleaved, m = 12 */
        {1, 2, 4, 2, 3, 24}, /* interleaved, m = 2 = p */
    };
    ridge_cluster cl;
    ridge_err err;
    ridge_model *m = load_model("gpt2");
    ridge_run_config rc;
    if (!with_cluster(&m, "dgx-a100", 1, &cl))
        return;
    ridge_run_config_init(&rc);
    rc.seq = 512;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_parallel_config pc;
        ridge_parallel_result r;
        const ridge_parallel_breakdown *b = &r.breakdown;
        double mbs, p, v, busy;
        pconf(&pc, rows[i].tp, rows[i].pp, rows[i].dp, rows[i].mb, rows[i].gb);
        if (rows[i].v > 1) {
            pc.schedule = RIDGE_PP_INTERLEAVED;
            pc.virtual_stages = rows[i].v;
        }
        check_context("bubble row");
        if (!CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_OK)) {
            fprintf(stderr, "  %s\n", err.msg);
            continue;
        }
        mbs = rows[i].gb / (rows[i].dp * rows[i].mb);
        p = rows[i].pp;
        v = rows[i].v;
        busy = b->compute_s + b->tp_comm_s + b->ep_comm_s + b->bubble_s;
        CHECK_NEAR(r.microbatches, mbs, 0);
        CHECK_NEAR(b->bubble_s / busy, (p - 1) / (v * mbs + p - 1), 1e-12);
        CHECK_NEAR(r.bubble_fraction, (p - 1) / (v * mbs + p - 1), 1e-12);
        CHECK(b->compute_s > 0 && b->pp_comm_s > 0);
        CHECK_NEAR(r.step_time_s, b->compute_s + b->tp_comm_s + b->pp_comm_s + b->dp_comm_exposed_s + b->ep_comm_s +
                                      b->bubble_s + b->optimizer_s,
                   1e-12);
        CHECK_NEAR(b->pp_comm_s, 2 * (v * mbs + p - 1) * r.p2p_s, 1e-12); /* blocking sends */
        CHECK(rows[i].tp == 1 ? b->tp_comm_s == 0 : b->tp_comm_s > 0);
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* A pipeline's exchanges go over the network once its stages span nodes (T P > G), whatever T:
 * on a cluster whose network moves 1e8 B/s per GPU, a hop of S_act / T bytes takes at least that
 * over it; within one node (T P <= G) the NVLink hop does not see the network. */
static void test_p2p_tier(void)
{
    static const char slow_json[] = "{\"schema_version\":1,\"id\":\"slow-net\",\"name\":\"slow network\","
                                    "\"gpu\":\"a100-sxm4-80gb\",\"gpus_per_node\":8,"
                                    "\"intra\":{\"kind\":\"nvswitch\"},"
                                    "\"inter\":{\"kind\":\"infiniband\",\"bandwidth_bytes_per_s_per_gpu\":1e8}}";
    static const struct {
        int nodes, tp, pp, dp;
        int spans;
    } rows[] = {
        {1, 2, 4, 1, 0}, /* 8 GPUs: one node */
        {3, 2, 6, 2, 1}, /* 12 per pipeline on nodes of 8 */
        {3, 4, 3, 2, 1},
        {2, 1, 4, 4, 0}, /* 16 GPUs, each pipeline within a node */
    };
    ridge_model *m = load_model("gpt2");
    ridge_run_config rc;
    ridge_err err;
    if (!CHECK(m))
        return;
    ridge_run_config_init(&rc);
    rc.seq = 1024;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_cluster cl;
        ridge_parallel_config pc;
        ridge_parallel_result r;
        double s_act = 1024.0 * 768 * 2, hop = s_act / rows[i].tp / 1e8;
        check_context(rows[i].spans ? "pipeline across nodes" : "pipeline in one node");
        if (!CHECK_INT(ridge_cluster_parse(slow_json, strlen(slow_json), "slow", rows[i].nodes, &cl, &err), RIDGE_OK))
            break;
        pconf(&pc, rows[i].tp, rows[i].pp, rows[i].dp, 1, rows[i].pp * rows[i].dp);
        if (!CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_OK)) {
            fprintf(stderr, "  %s\n", err.msg);
            continue;
        }
        CHECK(rows[i].spans ? r.p2p_s >= hop : r.p2p_s < 0.1 * hop);
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* tp = pp = dp = 1 on a one-GPU cluster is the single-GPU prediction. */
static void test_single_gpu(void)
{
    static const struct {
        const char *model;
        ridge_mode mode;
        double batch;
    } rows[] = {
        {"gpt2", RIDGE_MODE_TRAIN, 3},
        {"bert-base", RIDGE_MODE_TRAIN, 5},
        {"llama2-7b", RIDGE_MODE_PREFILL, 2},
        {"resnet50", RIDGE_MODE_TRAIN, 7},
    };
    ridge_cluster cl;
    ridge_err err;
    if (!CHECK_INT(ridge_cluster_parse(one_gpu_json, strlen(one_gpu_json), "one", 0, &cl, &err), RIDGE_OK)) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_model *m = load_model(rows[i].model);
        ridge_run_config rc;
        ridge_parallel_config pc;
        ridge_parallel_result r;
        ridge_oplist ops = {0};
        ridge_schedule_totals tot;
        ridge_memory mem;
        check_context(rows[i].model);
        if (!CHECK(m))
            continue;
        ridge_run_config_init(&rc);
        rc.mode = rows[i].mode;
        rc.batch = rows[i].batch;
        pconf(&pc, 1, 1, 1, rows[i].batch, rows[i].batch);
        if (CHECK_INT(ridge_model_build(m, &rc, &ops, &err), RIDGE_OK) &&
            CHECK_INT(ridge_schedule_ops(&cl.gpu, ops.ops, ops.n, RIDGE_RUNTIME_EAGER, NULL, &tot, &err), RIDGE_OK) &&
            CHECK_INT(ridge_model_memory(m, &rc, &mem, &err), RIDGE_OK) &&
            CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_OK)) {
            CHECK_NEAR(r.step_time_s, tot.total_time_s, 1e-9);
            CHECK_NEAR(r.memory.total_bytes, mem.total_bytes, 1e-9);
            CHECK_NEAR(r.memory.activations_bytes, mem.activations_bytes, 1e-9);
            CHECK_NEAR(r.memory.kv_cache_bytes, mem.kv_cache_bytes, 1e-9);
            CHECK_NEAR(r.model_flops, ridge_model_flops(m, &rc), 1e-12);
            CHECK(r.breakdown.tp_comm_s == 0 && r.breakdown.pp_comm_s == 0 && r.breakdown.dp_comm_exposed_s == 0 &&
                  r.breakdown.dp_comm_hidden_s == 0 && r.breakdown.ep_comm_s == 0 && r.breakdown.bubble_s == 0);
            CHECK_INT(r.gpus, 1);
        }
        ridge_oplist_free(&ops);
        ridge_model_free(m);
    }
    check_context(NULL);
}

/* Per-GPU weights, gradients and optimizer state under ZeRO 0..3, gpt2 on 8 GPUs (dp 8), bf16
 * mixed precision with AdamW: 2 B/param weights, 2 B/param gradients, 12 B/param optimizer
 * (FP32 master weights, m, v). */
static void test_zero_memory(void)
{
    static const struct {
        int zero;
        double weights, gradients, optimizer;
    } rows[] = {
        {0, 248879616.0, 248879616.0, 1493277696.0},
        {1, 248879616.0, 248879616.0, 186659712.0},
        {2, 248879616.0, 31109952.0, 186659712.0},
        /* ZeRO-3: the shard plus the layer in use and the prefetched one, whole (12 layers) */
        {3, 31109952.0 + 2 * 248879616.0 / 12, 31109952.0, 186659712.0},
    };
    ridge_cluster cl;
    ridge_err err;
    ridge_model *m = load_model("gpt2");
    ridge_run_config rc;
    if (!with_cluster(&m, "dgx-h100", 1, &cl))
        return;
    CHECK_NEAR(ridge_model_params(m), GPT2_PARAMS, 0);
    ridge_run_config_init(&rc);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_parallel_config pc;
        ridge_parallel_result r;
        pconf(&pc, 1, 1, 8, 4, 64);
        pc.zero = rows[i].zero;
        check_context(rows[i].zero == 0 ? "zero 0" : rows[i].zero == 1 ? "zero 1" : rows[i].zero == 2 ? "zero 2"
                                                                                                     : "zero 3");
        if (!CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_OK))
            continue;
        CHECK_NEAR(r.memory.weights_bytes, rows[i].weights, 1e-12);
        CHECK_NEAR(r.memory.gradients_bytes, rows[i].gradients, 1e-12);
        CHECK_NEAR(r.memory.optimizer_bytes, rows[i].optimizer, 1e-12);
        CHECK(r.breakdown.dp_comm_exposed_s + r.breakdown.dp_comm_hidden_s > 0);
    }
    /* The gathered layers are at most the stage's: 4 stages of 3 layers, --prefetch 8, D = 2:
     * the shard (W / (P D)) plus the stage's 3 layers whole (W / P), never more than that. */
    {
        ridge_parallel_config pc;
        ridge_parallel_result r;
        check_context("zero 3, prefetch beyond the stage");
        pconf(&pc, 1, 4, 2, 1, 8);
        pc.zero = 3;
        pc.prefetch = 8;
        if (CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_OK))
            CHECK_NEAR(r.memory.weights_bytes, 248879616.0 / 8 + 248879616.0 / 4, 1e-12);
    }
    check_context(NULL);
    ridge_model_free(m);
    /* A shard group of one GPU gathers nothing: ZeRO-3 on D = 1 holds the weights as ZeRO-0. */
    if (CHECK_INT(ridge_cluster_parse(one_gpu_json, strlen(one_gpu_json), "one", 0, &cl, &err), RIDGE_OK) &&
        CHECK(m = load_model("gpt2"))) {
        ridge_parallel_config pc;
        ridge_parallel_result r0, r3;
        check_context("zero 3 on one GPU");
        pconf(&pc, 1, 1, 1, 4, 4);
        if (CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r0, &err), RIDGE_OK)) {
            pc.zero = 3;
            if (CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r3, &err), RIDGE_OK))
                CHECK_NEAR(r3.memory.weights_bytes, r0.memory.weights_bytes, 0);
        }
        check_context(NULL);
        ridge_model_free(m);
    }
}

/* Inference: the KV caches of all the step's microbatches stay resident (gpt2 decode, dp 8,
 * microbatch 2, global batch 64: 4 microbatches of 2 sequences per GPU). */
static void test_decode_kv_memory(void)
{
    ridge_cluster cl;
    ridge_err err;
    ridge_model *m = load_model("gpt2");
    ridge_run_config rc;
    ridge_parallel_config pc;
    ridge_parallel_result r;
    ridge_memory mem;
    if (!with_cluster(&m, "dgx-a100", 1, &cl))
        return;
    ridge_run_config_init(&rc);
    rc.mode = RIDGE_MODE_DECODE;
    rc.context = 512;
    rc.batch = 2;
    pconf(&pc, 1, 1, 8, 2, 64);
    check_context("decode kv memory");
    if (CHECK_INT(ridge_model_memory(m, &rc, &mem, &err), RIDGE_OK) &&
        CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_OK)) {
        CHECK(mem.kv_cache_bytes > 0);
        CHECK_NEAR(r.memory.kv_cache_bytes, 4 * mem.kv_cache_bytes, 1e-12);
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* The DP reduction is comm's collective on the GPUs the group spans. */
static void test_dp_collective(void)
{
    ridge_cluster cl, two;
    ridge_err err;
    ridge_model *m = load_model("gpt2");
    ridge_run_config rc;
    ridge_parallel_config pc;
    ridge_parallel_result r;
    ridge_coll_result ar, rs, ag;
    double s = GPT2_PARAMS * 2;
    if (!with_cluster(&m, "dgx-a100", 1, &cl))
        return;
    ridge_run_config_init(&rc);
    check_context("dp 8 in one node: all-reduce of the bf16 gradient");
    pconf(&pc, 1, 1, 8, 2, 16);
    if (CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_OK) &&
        CHECK_INT(ridge_collective(&cl, RIDGE_COLL_ALLREDUCE, s, 8, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO, &ar, &err),
                  RIDGE_OK)) {
        CHECK_NEAR(r.dp_bytes, s, 0);
        CHECK_NEAR(r.dp_collective_s, ar.time_s, 1e-12);
        CHECK_NEAR(r.breakdown.dp_comm_exposed_s + r.breakdown.dp_comm_hidden_s, ar.time_s, 1e-12);
        /* Ten 25 MiB buckets behind the backward: the last one exposed, and the SMs NCCL takes
         * while the others run slow the backward. */
        {
            ridge_coll_result bk;
            double sm = 16.0 / cl.gpu.sm_count, tail;
            if (CHECK_INT(ridge_collective(&cl, RIDGE_COLL_ALLREDUCE, 25.0 * 1048576, 8, RIDGE_ALGO_AUTO,
                                           RIDGE_PROTO_AUTO, &bk, &err),
                          RIDGE_OK)) {
                tail = r.stage_backward_s / 10 + ar.time_s - r.stage_backward_s;
                if (tail < bk.time_s)
                    tail = bk.time_s;
                CHECK_NEAR(r.breakdown.dp_comm_exposed_s, tail + sm * (ar.time_s - tail), 1e-12);
                CHECK(r.breakdown.dp_comm_exposed_s < ar.time_s / 2);
            }
        }
    }
    check_context("dp 8, reduced after the backward (Megatron's local DDP), fp32 main gradients");
    pc.dp_overlap = 0;
    pc.grad_reduce_fp32 = 1;
    if (CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_OK) &&
        CHECK_INT(ridge_collective(&cl, RIDGE_COLL_ALLREDUCE, 2 * s, 8, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO, &ar, &err),
                  RIDGE_OK)) {
        CHECK_NEAR(r.dp_bytes, 2 * s, 0);
        CHECK_NEAR(r.breakdown.dp_comm_exposed_s, ar.time_s, 1e-12);
        CHECK_NEAR(r.breakdown.dp_comm_hidden_s, 0, 0);
    }
    pc.dp_overlap = 1;
    pc.grad_reduce_fp32 = 0;
    check_context("zero 3: per microbatch and layer, two all-gathers and a reduce-scatter");
    pc.zero = 3;
    if (CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_OK) &&
        CHECK_INT(ridge_collective(&cl, RIDGE_COLL_REDUCESCATTER, s / 12, 8, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO, &rs,
                                   &err),
                  RIDGE_OK) &&
        CHECK_INT(ridge_collective(&cl, RIDGE_COLL_ALLGATHER, s / 12, 8, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO, &ag, &err),
                  RIDGE_OK)) {
        CHECK_NEAR(r.dp_layer_allgather_s, ag.time_s, 1e-12);
        CHECK_NEAR(r.dp_layer_reducescatter_s, rs.time_s, 1e-12);
        CHECK_NEAR(r.dp_collective_s, r.microbatches * 12 * (rs.time_s + 2 * ag.time_s), 1e-12);
        /* one gather before the first layer and one reduce-scatter after the last, at least */
        CHECK(r.breakdown.dp_comm_exposed_s >= r.microbatches * (ag.time_s + rs.time_s) * (1 - 1e-12));
    }
    pc.zero = 0;
    /* tp 4 x dp 4 on two nodes: the dp groups have stride 4, two members per node,
     * and the node's network is shared by the 4 DP groups of the node running at once. */
    check_context("dp 4 across two nodes, tp 4 inside");
    if (CHECK_INT(ridge_cluster_load("dgx-a100", 2, &cl, &err), RIDGE_OK)) {
        pconf(&pc, 4, 1, 4, 1, 8); /* dp groups stride 4: 2 members per node, 2 nodes */
        two = cl;
        two.gpus_per_node = 2;
        two.nodes = 2;
        two.inter_bw_bytes_per_s_per_node = cl.inter_bw_bytes_per_s_per_node * 2 / 8;
        if (CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_OK) &&
            CHECK_INT(ridge_collective(&two, RIDGE_COLL_ALLREDUCE, r.dp_bytes, 4, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO,
                                       &ar, &err),
                      RIDGE_OK)) {
            CHECK_NEAR(r.dp_bytes, ridge_model_params(m) / 4 * 2, 1e-12);
            CHECK_NEAR(r.dp_collective_s, ar.time_s, 1e-12);
        }
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* A global batch beyond one run's batch limit (1e7) still counts its work: the throughput of
 * 10,000,008 sequences is that of 10,000,000 times their step-time ratio, never 0. */
static void test_huge_global_batch(void)
{
    ridge_cluster cl;
    ridge_err err;
    ridge_model *m = load_model("gpt2");
    ridge_run_config rc;
    ridge_parallel_config pc;
    ridge_parallel_result a, b;
    if (!with_cluster(&m, "dgx-a100", 1, &cl))
        return;
    ridge_run_config_init(&rc);
    rc.seq = 128;
    check_context("global batch 1e7 + 8");
    pconf(&pc, 1, 1, 8, 1, 10000000);
    if (CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &a, &err), RIDGE_OK)) {
        pconf(&pc, 1, 1, 8, 1, 10000008);
        if (CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &b, &err), RIDGE_OK)) {
            CHECK(b.throughput > 0 && b.model_flops_per_s_per_gpu > 0 && b.mfu > 0);
            CHECK_NEAR(b.throughput * b.step_time_s / 10000008.0, a.throughput * a.step_time_s / 10000000.0, 1e-9);
            CHECK_NEAR(b.model_flops / 10000008.0, a.model_flops / 10000000.0, 1e-9);
        }
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* Inference has no backward: the stage's backward time is 0, never a rounding residue below it
 * (llama3-8b at tp 8, microbatch 2 gave -6.9e-18 s). */
static void test_inference_no_negative_backward(void)
{
    ridge_cluster cl;
    ridge_err err;
    ridge_model *m = load_model("llama3-8b");
    ridge_run_config rc;
    ridge_parallel_config pc;
    ridge_parallel_result r;
    if (!with_cluster(&m, "hgx-h200", 1, &cl))
        return;
    ridge_run_config_init(&rc);
    rc.mode = RIDGE_MODE_INFER;
    for (int tp = 1; tp <= 8; tp *= 2) {
        pconf(&pc, tp, 1, 8 / tp, 2, 16 / tp);
        if (CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_OK))
            CHECK(r.stage_backward_s >= 0 && r.stage_forward_s > 0);
    }
    ridge_model_free(m);
}

/* A prefill starts its requests: ridge_parallel_add_request adds the profile's request_s (over its
 * cpu_speed) as breakdown.host_s and scales the throughput to the longer step; other modes, a
 * profile without request work, or none, leave the result alone. */
static void test_add_request(void)
{
    ridge_cluster cl;
    ridge_err err;
    ridge_model *m = load_model("llama2-7b");
    ridge_run_config rc;
    ridge_parallel_config pc;
    ridge_parallel_result r, r0;
    ridge_host_profile hp;
    if (!CHECK(m) || !CHECK_INT(ridge_cluster_load("dgx-a100", 1, &cl, &err), RIDGE_OK) ||
        !CHECK_INT(ridge_host_load("trtllm-session", &hp, &err), RIDGE_OK)) {
        ridge_model_free(m);
        return;
    }
    ridge_run_config_init(&rc);
    rc.mode = RIDGE_MODE_PREFILL;
    rc.prompt = rc.seq = 128;
    pconf(&pc, 4, 1, 2, 1, 2);
    if (CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r0, &err), RIDGE_OK)) {
        r = r0;
        ridge_parallel_add_request(&hp, NULL, &rc, 1, &r);
        CHECK(hp.request_s > 0);
        CHECK_NEAR(r.breakdown.host_s, hp.request_s / hp.cpu_speed, 1e-15);
        CHECK_NEAR(r.step_time_s, r0.step_time_s + r.breakdown.host_s, 1e-15);
        CHECK_NEAR(r.throughput * r.step_time_s, r0.throughput * r0.step_time_s, 1e-12);
        CHECK_NEAR(r.mfu * r.step_time_s, r0.mfu * r0.step_time_s, 1e-12);
        /* The cluster's GPU as it comes: the profile's own speed. A GPU file whose calibrated host
         * is twice as slow (host_launch_s and framework_op_s doubled) doubles the request's
         * work, as it does every other cost of the profile. */
        r = r0;
        ridge_parallel_add_request(&hp, &cl.gpu, &rc, 1, &r);
        CHECK_NEAR(r.breakdown.host_s, hp.request_s / hp.cpu_speed, 1e-15);
        {
            ridge_gpu slow = cl.gpu;
            slow.eff.host_launch_s *= 2;
            slow.eff.framework_op_s *= 2;
            r = r0;
            ridge_parallel_add_request(&hp, &slow, &rc, 1, &r);
            CHECK_NEAR(r.breakdown.host_s, 2 * hp.request_s / hp.cpu_speed, 1e-12);
        }
        r = r0;
        rc.mode = RIDGE_MODE_DECODE; /* a decode step starts nothing */
        ridge_parallel_add_request(&hp, NULL, &rc, 1, &r);
        CHECK(r.step_time_s == r0.step_time_s && r.breakdown.host_s == 0);
        rc.mode = RIDGE_MODE_PREFILL;
        ridge_parallel_add_request(NULL, NULL, &rc, 1, &r);
        CHECK(r.step_time_s == r0.step_time_s);
        CHECK_INT(ridge_host_load("engine", &hp, &err), RIDGE_OK); /* no request work */
        ridge_parallel_add_request(&hp, NULL, &rc, 1, &r);
        CHECK(r.step_time_s == r0.step_time_s);
        /* trtllm-bench: no request work, but every inference step's per-sequence work, at the
         * sequences a replica's step runs (here 2, global_batch / dp); a training step pays none. */
        CHECK_INT(ridge_host_load("trtllm-bench", &hp, &err), RIDGE_OK);
        for (int k = 0; k < 3; k++) {
            static const ridge_mode md[] = {RIDGE_MODE_PREFILL, RIDGE_MODE_DECODE, RIDGE_MODE_TRAIN};
            rc.mode = md[k];
            r = r0;
            ridge_parallel_add_request(&hp, NULL, &rc, 2, &r);
            CHECK_NEAR(r.breakdown.host_s, md[k] == RIDGE_MODE_TRAIN ? 0 : 2 * hp.sequence_s / hp.cpu_speed, 1e-15);
            CHECK_NEAR(r.step_time_s, r0.step_time_s + r.breakdown.host_s, 1e-15);
        }
    }
    ridge_model_free(m);
}

static void test_errors(void)
{
    static const struct {
        const char *model;
        int nodes, tp, pp, dp, ep;
        double mb, gb;
        const char *msg;
    } rows[] = {
        {"gpt2", 1, 2, 2, 4, 1, 1, 8, "parallel.tp 2 x parallel.pp 2 x parallel.dp 4 = 16 GPUs, but cluster dgx-a100 has 8"},
        {"gpt2", 2, 2, 1, 4, 1, 1, 8, "= 8 GPUs, but cluster dgx-a100 has 16"},
        {"gpt2", 1, 1, 8, 1, 1, 1, 8, "parallel.pp 8: does not divide the 12 layers of gpt2"},
        {"gpt2", 1, 8, 1, 1, 1, 1, 8, "parallel.tp 8: does not divide the 12 attention heads of gpt2"},
        {"gpt2", 1, 1, 1, 8, 1, 3, 36, "parallel.global_batch 36: not a multiple of parallel.dp 8 x parallel.microbatch 3"},
        {"gpt2", 1, 1, 1, 8, 3, 1, 8, "parallel.ep 3: does not divide parallel.dp 8"},
        {"gpt2", 1, 1, 1, 8, 2, 1, 8, "parallel.ep 2: gpt2 has no experts"},
        {"mixtral-8x7b", 3, 1, 1, 24, 3, 1, 24, "parallel.ep 3: does not divide the 8 experts of mixtral-8x7b"},
        {"resnet50", 1, 2, 1, 4, 1, 1, 8, "parallelism is modelled for transformers"},
        {"resnet50", 1, 1, 2, 4, 1, 1, 8, "parallelism is modelled for transformers"},
        /* interleaved (set below for this row) with 3 microbatches on 2 stages */
        {"gpt2", 1, 1, 2, 4, 1, 1, 12, "the 3 microbatches per step (global_batch / (dp x microbatch)) are not a "
                                       "multiple of parallel.pp 2"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_cluster cl;
        ridge_err err;
        ridge_model *m = load_model(rows[i].model);
        ridge_run_config rc;
        ridge_parallel_config pc;
        ridge_parallel_result r;
        check_context(rows[i].msg);
        if (!CHECK(m) || !CHECK_INT(ridge_cluster_load("dgx-a100", rows[i].nodes, &cl, &err), RIDGE_OK)) {
            ridge_model_free(m);
            continue;
        }
        ridge_run_config_init(&rc);
        pconf(&pc, rows[i].tp, rows[i].pp, rows[i].dp, rows[i].mb, rows[i].gb);
        pc.ep = rows[i].ep;
        if (strstr(rows[i].msg, "microbatches per step")) {
            pc.schedule = RIDGE_PP_INTERLEAVED;
            pc.virtual_stages = 2;
        }
        err.msg[0] = '\0';
        CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, rows[i].msg);
        ridge_model_free(m);
    }
    check_context(NULL);
}

/* Tensor parallelism shrinks the per-GPU compute and adds its all-reduces; sequence
 * parallelism keeps the volume and shrinks activations. */
static void test_tp_shapes(void)
{
    ridge_cluster cl;
    ridge_err err;
    ridge_model *m = load_model("llama2-7b");
    ridge_run_config rc;
    ridge_parallel_config pc;
    ridge_parallel_result r1, r8, r8sp;
    if (!with_cluster(&m, "dgx-h100", 1, &cl))
        return;
    ridge_run_config_init(&rc);
    rc.seq = 2048;
    check_context("llama2-7b tp 1 vs tp 8");
    pconf(&pc, 1, 1, 8, 1, 8);
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r1, &err), RIDGE_OK);
    pconf(&pc, 8, 1, 1, 1, 8);
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r8, &err), RIDGE_OK);
    pc.sequence_parallel = 1;
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r8sp, &err), RIDGE_OK);
    /* 8 microbatches of 1/8 of the work each: compute (less the 7 gradient accumulations the
     * single-microbatch dp 8 run does not have) within 25% of the dp 8 run's */
    CHECK(r1.grad_accumulate_s == 0 && r8.grad_accumulate_s > 0);
    CHECK(r8.breakdown.compute_s - r8.grad_accumulate_s > 0.75 * r1.breakdown.compute_s &&
          r8.breakdown.compute_s - r8.grad_accumulate_s < 1.6 * r1.breakdown.compute_s);
    CHECK(r8.breakdown.tp_comm_s > 0 && r1.breakdown.tp_comm_s == 0);
    CHECK_NEAR(r8.memory.weights_bytes, r1.memory.weights_bytes / 8, 1e-12);
    CHECK_NEAR(r8.memory.activations_bytes, r1.memory.activations_bytes * (10 + 24 / 8.0) / 34, 1e-12);
    CHECK_NEAR(r8sp.memory.activations_bytes, r1.memory.activations_bytes / 8, 1e-12);
    CHECK(r8sp.breakdown.tp_comm_s > 0);
    check_context(NULL);
    ridge_model_free(m);
}

/* Expert parallelism splits the experts' weights, gradients and optimizer state over E ranks; the
 * dense rest stays replicated. Mixtral: 8 experts x 32 layers x 3 x 4096 x 14336 expert params. */
static void test_expert_parallel_memory(void)
{
    ridge_cluster cl;
    ridge_err err;
    ridge_model *m = load_model("mixtral-8x7b");
    ridge_run_config rc;
    ridge_parallel_config pc;
    ridge_parallel_result r1, r8;
    double p, fe;
    if (!with_cluster(&m, "dgx-h100", 1, &cl))
        return;
    p = ridge_model_params(m);
    CHECK_NEAR(ridge_model_expert_params(m), 8.0 * 32 * 3 * 4096 * 14336, 1e-12);
    fe = ridge_model_expert_params(m) / p;
    ridge_run_config_init(&rc);
    rc.seq = 1024;
    pconf(&pc, 1, 1, 8, 1, 8);
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r1, &err), RIDGE_OK);
    pc.ep = 8;
    if (CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r8, &err), RIDGE_OK)) {
        CHECK_NEAR(r8.memory.weights_bytes, r1.memory.weights_bytes * ((1 - fe) + fe / 8), 1e-12);
        CHECK_NEAR(r8.memory.optimizer_bytes, r1.memory.optimizer_bytes * ((1 - fe) + fe / 8), 1e-12);
        CHECK(r8.breakdown.ep_comm_s > 0);
    }
    ridge_model_free(m);
}

/* DeepSpeed-MoE's rule: with EP and ZeRO, an EP rank's 1/E of the experts is sharded over the
 * dp / E ranks of its expert-data-parallel group, the dense parameters over dp: 1/dp of every
 * state. Mixtral 8x7B on 64 H100s, --ep 8 --dp 64 --zero 1: 12 B x 46.7e9 / 64 = 8.16 GiB of
 * optimizer state (the 5.6 B expert parameters over 8 GPUs plus 1.6 B dense over 64). */
static void test_moe_zero_memory(void)
{
    ridge_cluster cl;
    ridge_err err;
    ridge_model *m = load_model("mixtral-8x7b");
    ridge_run_config rc;
    ridge_parallel_config pc;
    ridge_parallel_result r;
    ridge_memory full;
    double p, pe;
    if (!with_cluster(&m, "dgx-h100", 8, &cl))
        return;
    ridge_run_config_init(&rc);
    rc.seq = 1024;
    p = ridge_model_params(m);
    pe = ridge_model_expert_params(m);
    rc.batch = 1;
    CHECK_INT(ridge_model_memory(m, &rc, &full, &err), RIDGE_OK);
    pconf(&pc, 1, 1, 64, 1, 64);
    pc.ep = 8;
    pc.zero = 1;
    check_context("mixtral ep 8 dp 64 zero 1");
    if (CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_OK)) {
        CHECK_NEAR(r.memory.optimizer_bytes, 12.0 * (pe / 8 / 8 + (p - pe) / 64), 1e-9);
        CHECK_NEAR(r.memory.optimizer_bytes / 1073741824.0, 8.16, 0.01);
        /* not sharded by ZeRO-1: each EP rank's weights are its 1/8 of the experts and all the dense */
        CHECK_NEAR(r.memory.weights_bytes, full.weights_bytes * ((p - pe) / p + pe / p / 8), 1e-12);
        CHECK_INT(r.dp_shard_group, 64);
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* ZeRO-3 at a fixed global batch: adding GPUs shrinks each GPU's compute, but every GPU still
 * gathers the parameters twice and reduce-scatters the gradients once per step, through its own
 * NIC: the step stops falling (docs/parallel.md, the DGX A100 example). DDP keeps scaling. */
static void test_zero3_plateau(void)
{
    static const int dps[] = {32, 64, 128, 256};
    ridge_model *m = load_model("llama2-7b");
    ridge_run_config rc;
    double z3[4] = {0}, z0[4] = {0}, comm[4] = {0};
    if (!CHECK(m))
        return;
    ridge_run_config_init(&rc);
    rc.seq = 1024;
    for (int i = 0; i < 4; i++) {
        ridge_cluster cl;
        ridge_err err;
        ridge_parallel_config pc;
        ridge_parallel_result r;
        check_context("zero-3 weak point");
        if (!CHECK_INT(ridge_cluster_load("dgx-a100", dps[i] / 8, &cl, &err), RIDGE_OK))
            continue;
        pconf(&pc, 1, 1, dps[i], 256 / dps[i], 256); /* one microbatch of 256 / dp per GPU */
        pc.zero = 3;
        if (CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_OK)) {
            z3[i] = r.step_time_s;
            comm[i] = r.dp_collective_s;
        }
        pc.zero = 0;
        if (CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_OK))
            z0[i] = r.step_time_s;
    }
    check_context("zero-3 plateau");
    /* the traffic per GPU and step does not shrink: (n - 1) / n of 3 x 2 B x params, plus the
     * ring's n - 1 steps of latency */
    CHECK(comm[3] > comm[0] && comm[3] < 2 * comm[0]);
    /* from 128 to 256 GPUs ZeRO-3 gains nothing, DDP still more than 20 % */
    CHECK(z3[3] > 0.97 * z3[2]);
    CHECK(z3[2] < 0.6 * z3[1]); /* while it still halved from 64 to 128 */
    CHECK(z0[3] < 0.8 * z0[2]);
    /* and ZeRO-3 is bounded below by its traffic */
    CHECK(z3[3] >= comm[3]);
    check_context(NULL);
    ridge_model_free(m);
}

/* FSDP: full shard gathers twice per microbatch, shard-grad-op once; hybrid shards within a
 * group and all-reduces the shard across groups; no prefetch exposes every gather. */
static void test_fsdp_modes(void)
{
    ridge_cluster cl;
    ridge_err err;
    ridge_model *m = load_model("llama2-7b");
    ridge_run_config rc;
    ridge_parallel_config pc;
    ridge_parallel_result full, gop, hyb, nopf, z3;
    ridge_memory mem;
    if (!with_cluster(&m, "dgx-h100", 2, &cl))
        return;
    ridge_run_config_init(&rc);
    rc.seq = 2048;
    rc.batch = 2;
    CHECK_INT(ridge_model_memory(m, &rc, &mem, &err), RIDGE_OK);
    pconf(&pc, 1, 1, 16, 2, 64); /* 2 microbatches */
    pc.fsdp = RIDGE_FSDP_FULL;
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &full, &err), RIDGE_OK);
    pc.fsdp = RIDGE_FSDP_GRAD_OP;
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &gop, &err), RIDGE_OK);
    pc.fsdp = RIDGE_FSDP_HYBRID;
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &hyb, &err), RIDGE_OK);
    pc.fsdp = RIDGE_FSDP_FULL;
    pc.prefetch = 0;
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &nopf, &err), RIDGE_OK);
    pc.fsdp = RIDGE_FSDP_NONE;
    pc.prefetch = 1;
    pc.zero = 3;
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &z3, &err), RIDGE_OK);
    check_context("fsdp modes");
    CHECK_NEAR(full.step_time_s, z3.step_time_s, 1e-12); /* full shard is ZeRO-3's schedule */
    CHECK_NEAR(full.dp_per_microbatch_s, 32 * (2 * full.dp_layer_allgather_s + full.dp_layer_reducescatter_s), 1e-12);
    CHECK_NEAR(gop.dp_per_microbatch_s, 32 * (gop.dp_layer_allgather_s + gop.dp_layer_reducescatter_s), 1e-12);
    CHECK(gop.step_time_s < full.step_time_s);
    CHECK_NEAR(gop.memory.weights_bytes, mem.weights_bytes, 1e-12); /* whole through forward and backward */
    CHECK_INT(full.dp_shard_group, 16);
    CHECK_INT(hyb.dp_shard_group, 8); /* one node */
    CHECK_NEAR(hyb.memory.optimizer_bytes, mem.optimizer_bytes / 8, 1e-12);
    CHECK_NEAR(full.memory.optimizer_bytes, mem.optimizer_bytes / 16, 1e-12);
    /* the shard group inside a node: the gathers run on NVLink, faster than full shard's */
    CHECK(hyb.dp_layer_allgather_s < full.dp_layer_allgather_s);
    CHECK(nopf.step_time_s > full.step_time_s);
    check_context(NULL);
    ridge_model_free(m);
}

/* Bad FSDP input: one line, EINVAL. */
static void test_fsdp_errors(void)
{
    ridge_cluster cl;
    ridge_err err;
    ridge_model *m = load_model("gpt2");
    ridge_run_config rc;
    ridge_parallel_config pc;
    ridge_parallel_result r;
    if (!with_cluster(&m, "dgx-a100", 1, &cl))
        return;
    ridge_run_config_init(&rc);
    pconf(&pc, 1, 1, 8, 1, 8);
    pc.fsdp = RIDGE_FSDP_HYBRID;
    pc.fsdp_group = 3;
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "parallel.fsdp_group 3: does not divide parallel.dp 8");
    pc.fsdp_group = 0;
    pc.zero = 2;
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "give parallel.fsdp or parallel.zero, not both");
    pc.zero = 0;
    pc.fsdp = RIDGE_FSDP_FULL;
    pc.fsdp_group = 4;
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "only parallel.fsdp hybrid has a shard group");
    CHECK(strchr(err.msg, '\n') == NULL);
    /* The bucket's range is the command line's --bucket-mb range in bytes: 1e6 MiB is taken,
     * beyond it is refused in bytes and MiB. */
    pc.fsdp = RIDGE_FSDP_NONE;
    pc.fsdp_group = 0;
    pc.bucket_bytes = RIDGE_PARALLEL_MAX_BUCKET_BYTES;
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_OK);
    CHECK_NEAR(RIDGE_PARALLEL_MAX_BUCKET_BYTES, 1e6 * 1048576.0, 1e-9);
    pc.bucket_bytes = RIDGE_PARALLEL_MAX_BUCKET_BYTES * 1.01;
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "(1e6 MiB)");
    ridge_model_free(m);
}

/* Gradient accumulation over the step's microbatches: microbatches 2..m add their gradients
 * into .grad (one add per parameter tensor), m - 1 adds per step over this GPU's gradient; none
 * with one microbatch; ZeRO-2 adds into the 1/D gradient shard. */
static void test_grad_accumulation(void)
{
    ridge_cluster cl;
    ridge_err err;
    ridge_model *m = load_model("gpt2");
    ridge_run_config rc;
    ridge_parallel_config pc;
    ridge_parallel_result r1, r2, r4, z2, p2;
    if (!with_cluster(&m, "dgx-a100", 1, &cl))
        return;
    ridge_run_config_init(&rc);
    rc.seq = 1024;
    check_context("grad accumulation");
    pconf(&pc, 1, 1, 8, 1, 8);
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r1, &err), RIDGE_OK);
    pconf(&pc, 1, 1, 8, 1, 16);
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r2, &err), RIDGE_OK);
    pconf(&pc, 1, 1, 8, 1, 32);
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r4, &err), RIDGE_OK);
    CHECK(r1.grad_accumulate_s == 0);
    CHECK(r2.grad_accumulate_s > 0);
    CHECK_NEAR(r4.grad_accumulate_s, 3 * r2.grad_accumulate_s, 1e-9); /* 3 adds against 1 */
    /* the rest of the compute is m microbatches of the same work */
    CHECK_NEAR(r4.breakdown.compute_s - r4.grad_accumulate_s, 2 * (r2.breakdown.compute_s - r2.grad_accumulate_s),
               1e-9);
    CHECK_NEAR(r4.breakdown.optimizer_s, r1.breakdown.optimizer_s, 1e-9); /* not in the optimizer step */
    pconf(&pc, 1, 1, 8, 1, 32);
    pc.zero = 2;
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &z2, &err), RIDGE_OK);
    CHECK(z2.grad_accumulate_s > 0 && z2.grad_accumulate_s < r4.grad_accumulate_s);
    /* two stages: each adds into half the tensors */
    pconf(&pc, 1, 2, 4, 1, 16);
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &p2, &err), RIDGE_OK);
    CHECK(p2.grad_accumulate_s > 0 && p2.grad_accumulate_s < r4.grad_accumulate_s);
    check_context(NULL);
    ridge_model_free(m);
}

/* Tensor parallelism at the model's ends: the vocabulary-parallel embedding's forward all-reduce
 * (training and inference), the LM head's backward all-reduce and the cross entropy's three
 * fp32 all-reduces of one value per token (training): gpt2, tp 2, one stage. Per layer, 2
 * all-reduces in inference and 4 in training, so without the ends training would be exactly
 * twice inference; with them it is (4L + 2) t + 3 t_loss against (2L + 1) t, 0 < t_loss <= t. */
static void test_tp_ends(void)
{
    ridge_cluster cl;
    ridge_err err;
    ridge_model *m = load_model("gpt2");
    ridge_run_config rc;
    ridge_parallel_config pc;
    ridge_parallel_result tr, inf;
    double layers = 12, t, extra;
    if (!with_cluster(&m, "dgx-a100", 1, &cl))
        return;
    check_context("tp ends");
    ridge_run_config_init(&rc);
    rc.seq = 1024;
    pconf(&pc, 2, 1, 4, 1, 4);
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &tr, &err), RIDGE_OK);
    rc.mode = RIDGE_MODE_INFER;
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &inf, &err), RIDGE_OK);
    t = inf.tp_comm_per_microbatch_s / (2 * layers + 1);
    extra = tr.tp_comm_per_microbatch_s - (4 * layers + 2) * t; /* the three loss all-reduces */
    CHECK(t > 0);
    CHECK(extra > 0 && extra < 3 * t); /* a 4-byte-per-token all-reduce is no slower than the activations' */
    check_context(NULL);
    ridge_model_free(m);
}

/* Megatron's fp16 optimizer (--code megatron): the gradients copied to FP32 main gradients, one
 * kernel per tensor, unscaled, their norm, the FP32 Adam step and the copy back to the model:
 * 26 2-byte units per parameter against the 14 of one fused mixed-precision step. */
static void test_megatron_optimizer(void)
{
    ridge_err err;
    ridge_model *m = load_model("gpt2");
    ridge_run_config rc;
    ridge_oplist g;
    double units[2] = {0, 0};
    if (!CHECK(m))
        return;
    check_context("megatron optimizer");
    for (int k = 0; k < 2; k++) {
        ridge_run_config_init(&rc);
        rc.precision = RIDGE_DTYPE_FP16;
        rc.code = k ? RIDGE_CODE_MEGATRON : RIDGE_CODE_TORCH;
        if (!CHECK_INT(ridge_model_build(m, &rc, &g, &err), RIDGE_OK))
            break;
        for (size_t i = 0; i < g.n; i++)
            if (strcmp(g.ops[i].group, "optimizer") == 0 && g.ops[i].kind == RIDGE_OP_ELEMENTWISE &&
                strcmp(g.ops[i].name, "zero_grad") != 0)
                units[k] += g.ops[i].count * g.ops[i].u.ew.elements * (g.ops[i].u.ew.inputs + g.ops[i].u.ew.outputs);
        ridge_oplist_free(&g);
    }
    CHECK_NEAR(units[1] / ridge_model_params_for(m, &rc), 26, 1e-3);
    CHECK_NEAR(units[0] / ridge_model_params_for(m, &rc), 14, 1e-3);
    check_context(NULL);
    ridge_model_free(m);
}

/* The prepared model on one context equals ridge_parallel_predict, configuration by configuration,
 * whatever came before on the context (the memos): ZeRO 0..3, FSDP, SP, pp > 1, interleaving, MoE
 * ep > 1, inference, graph replay, errors; and memory first gives the same memory, and the full
 * result wherever the configuration fits. */
static void test_prepared(void)
{
    static const char *const ids[] = {"gpt2", "llama2-7b", "mixtral-8x7b"};
    static const struct {
        int model, nodes, tp, pp, dp, ep, zero, fsdp, sp, v, graph, mode;
        double mb, gb;
        ridge_recompute rec;
    } rows[] = {
        {0, 1, 2, 2, 2, 1, 0, 0, 0, 1, 0, 0, 2, 16, RIDGE_RECOMPUTE_NONE},
        {0, 1, 2, 2, 2, 1, 1, 0, 0, 1, 0, 0, 2, 16, RIDGE_RECOMPUTE_NONE},
        {0, 1, 2, 2, 2, 1, 2, 0, 0, 1, 0, 0, 2, 16, RIDGE_RECOMPUTE_FULL},
        {0, 1, 2, 2, 2, 1, 3, 0, 1, 1, 0, 0, 2, 16, RIDGE_RECOMPUTE_SELECTIVE},
        {0, 1, 4, 2, 1, 1, 0, 0, 1, 3, 0, 0, 1, 12, RIDGE_RECOMPUTE_NONE},
        {0, 2, 1, 1, 16, 1, 0, RIDGE_FSDP_HYBRID, 0, 1, 0, 0, 1, 16, RIDGE_RECOMPUTE_NONE},
        {0, 1, 1, 1, 8, 1, 0, RIDGE_FSDP_FULL, 0, 1, 0, 0, 1, 8, RIDGE_RECOMPUTE_NONE},
        {0, 1, 1, 1, 8, 1, 0, RIDGE_FSDP_GRAD_OP, 0, 1, 1, 0, 1, 8, RIDGE_RECOMPUTE_NONE},
        {0, 1, 8, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 8, RIDGE_RECOMPUTE_NONE},       /* tp 8: 12 heads, error */
        {0, 1, 1, 1, 8, 2, 0, 0, 0, 1, 0, 0, 1, 8, RIDGE_RECOMPUTE_NONE},       /* ep without experts, error */
        {1, 2, 2, 2, 4, 1, 1, 0, 0, 1, 0, 0, 1, 32, RIDGE_RECOMPUTE_NONE},
        {1, 2, 2, 2, 4, 1, 2, 0, 0, 1, 0, 0, 1, 32, RIDGE_RECOMPUTE_NONE},
        {1, 2, 2, 2, 4, 1, 3, 0, 1, 1, 0, 0, 2, 32, RIDGE_RECOMPUTE_FULL},
        {1, 1, 1, 1, 8, 1, 0, 0, 0, 1, 0, 0, 16, 128, RIDGE_RECOMPUTE_NONE},   /* out of memory */
        {1, 1, 1, 1, 8, 1, 1, 0, 0, 1, 1, 0, 16, 128, RIDGE_RECOMPUTE_NONE},   /* out of memory, graphs */
        {1, 2, 2, 2, 4, 1, 0, 0, 0, 1, 0, RIDGE_MODE_INFER, 1, 4, RIDGE_RECOMPUTE_NONE},
        {2, 1, 1, 1, 8, 4, 1, 0, 0, 1, 0, 0, 1, 8, RIDGE_RECOMPUTE_NONE},
        {2, 1, 2, 1, 4, 2, 2, 0, 1, 1, 0, 0, 1, 8, RIDGE_RECOMPUTE_NONE},
        {2, 1, 1, 2, 4, 4, 3, 0, 0, 1, 0, 0, 1, 16, RIDGE_RECOMPUTE_SELECTIVE},
    };
    enum { N = sizeof rows / sizeof rows[0] };
    ridge_model *ms[3] = {NULL, NULL, NULL};
    ridge_parallel_ctx *ctx = NULL;
    ridge_cluster *cl = malloc(sizeof *cl);
    ridge_err err;
    int fits = 0, oom = 0, bad = 0;
    for (int k = 0; k < 3; k++)
        ms[k] = load_model(ids[k]);
    if (!CHECK(cl && ms[0] && ms[1] && ms[2]) || !CHECK_INT(ridge_parallel_ctx_alloc(&ctx, &err), RIDGE_OK))
        goto done;
    check_context("prepared");
    /* Forward, backward, forward again: each configuration after different ones. */
    for (int round = 0; round < 3; round++)
        for (int j = 0; j < N; j++) {
            int i = round == 1 ? N - 1 - j : j, st, st2, st3;
            ridge_parallel_config pc;
            ridge_parallel_result want, got, mem;
            ridge_parallel_model *pm = NULL;
            ridge_run_config rc;
            ridge_err e1 = {{0}}, e2 = {{0}}, e3 = {{0}};
            ridge_runtime rt = rows[i].graph ? RIDGE_RUNTIME_GRAPH : RIDGE_RUNTIME_EAGER;
            if (!CHECK_INT(ridge_cluster_load("dgx-a100", rows[i].nodes, cl, &err), RIDGE_OK))
                continue;
            ridge_run_config_init(&rc);
            rc.seq = rows[i].model == 2 ? 256 : 512;
            rc.recompute = rows[i].rec;
            rc.mode = rows[i].mode ? RIDGE_MODE_INFER : RIDGE_MODE_TRAIN;
            pconf(&pc, rows[i].tp, rows[i].pp, rows[i].dp, rows[i].mb, rows[i].gb);
            pc.ep = rows[i].ep;
            pc.zero = rows[i].fsdp ? 0 : rows[i].zero;
            pc.fsdp = (ridge_fsdp_mode)rows[i].fsdp;
            pc.sequence_parallel = rows[i].sp;
            if (rows[i].v > 1) {
                pc.schedule = RIDGE_PP_INTERLEAVED;
                pc.virtual_stages = rows[i].v;
            }
            st = ridge_parallel_predict(cl, ms[rows[i].model], &rc, &pc, rt, &want, &e1);
            if (!CHECK_INT(ridge_parallel_prepare(ms[rows[i].model], &rc, &pc, &pm, &err), RIDGE_OK))
                continue;
            st2 = ridge_parallel_evaluate(ctx, pm, cl, &pc, rt, 0, &got, &e2);
            st3 = ridge_parallel_evaluate(ctx, pm, cl, &pc, rt, RIDGE_PARALLEL_MEMORY_FIRST, &mem, &e3);
            CHECK_INT(st2, st);
            CHECK_INT(st3, st);
            CHECK(memcmp(&got, &want, sizeof got) == 0);
            if (st != RIDGE_OK) {
                CHECK_STR_EQ(e2.msg, e1.msg);
                CHECK_STR_EQ(e3.msg, e1.msg);
                bad++;
            } else if (want.fits) {
                CHECK(memcmp(&mem, &want, sizeof mem) == 0);
                fits++;
            } else {
                CHECK(memcmp(&mem.memory, &want.memory, sizeof mem.memory) == 0);
                CHECK_INT(mem.fits, 0);
                CHECK_NEAR(mem.capacity_bytes, want.capacity_bytes, 0);
                CHECK_INT(mem.dp_shard_group, want.dp_shard_group);
                CHECK_NEAR(mem.step_time_s, 0, 0);
                oom++;
            }
            /* The prepared model is for its microbatch and accumulation only. */
            pc.microbatch *= 2;
            pc.global_batch *= 4;
            if (st == RIDGE_OK)
                CHECK_INT(ridge_parallel_evaluate(ctx, pm, cl, &pc, rt, 0, &got, &e2), RIDGE_EINVAL);
            ridge_parallel_model_free(pm);
        }
    /* Every kind of row was seen. */
    CHECK(fits > 0 && oom > 0 && bad > 0);
    check_context(NULL);
done:
    ridge_parallel_ctx_free(ctx);
    for (int k = 0; k < 3; k++)
        ridge_model_free(ms[k]);
    free(cl);
}

/* One prepared model on one context through configurations that shard its graph differently (tp,
 * pp, ZeRO stage, sequence parallelism), in one order, the reverse, then on two clusters in turn
 * with the memos cleared (once or many times) between some: each equals ridge_parallel_predict. The context shards its copy of the graph in
 * place, restoring only what sharding changes, and its memos must see every change. */
static void test_prepared_configs(void)
{
    static const struct {
        int tp, pp, dp, zero, sp;
    } rows[] = {{2, 2, 2, 0, 0}, {1, 1, 8, 1, 0}, {4, 1, 2, 2, 1}, {2, 4, 1, 0, 0}, {1, 2, 4, 3, 0},
                {8, 1, 1, 0, 0}, /* tp 8: 12 heads, error */
                {4, 2, 1, 1, 1}, {1, 1, 8, 2, 0}, {2, 1, 4, 3, 1}};
    enum { N = sizeof rows / sizeof rows[0] };
    ridge_model *m = load_model("gpt2");
    ridge_cluster *cls = malloc(2 * sizeof *cls);
    ridge_parallel_model *pm = NULL;
    ridge_parallel_ctx *ctx = NULL;
    ridge_run_config rc;
    ridge_parallel_config pc;
    ridge_err err;
    int ok = 0, bad = 0;
    ridge_run_config_init(&rc);
    rc.seq = 512;
    rc.recompute = RIDGE_RECOMPUTE_FULL;
    pconf(&pc, 1, 1, 8, 1, 16); /* 2 microbatches per step throughout */
    if (!CHECK(m && cls) || !CHECK_INT(ridge_cluster_load("dgx-a100", 1, &cls[0], &err), RIDGE_OK) ||
        !CHECK_INT(ridge_cluster_load("dgx-h100", 1, &cls[1], &err), RIDGE_OK) ||
        !CHECK_INT(ridge_parallel_prepare(m, &rc, &pc, &pm, &err), RIDGE_OK) ||
        !CHECK_INT(ridge_parallel_ctx_alloc(&ctx, &err), RIDGE_OK))
        goto done;
    check_context("prepared configs");
    for (int round = 0; round < 3; round++)
        for (int j = 0; j < N; j++) {
            int i = round == 1 ? N - 1 - j : j, st;
            const ridge_cluster *cl = &cls[round == 2 ? j % 2 : 0];
            ridge_parallel_result want, got;
            ridge_err e1 = {{0}}, e2 = {{0}};
            pconf(&pc, rows[i].tp, rows[i].pp, rows[i].dp, 1, 2.0 * rows[i].dp);
            pc.zero = rows[i].zero;
            pc.sequence_parallel = rows[i].sp;
            /* Clearing is a new generation of the memos. In a build with an 8-bit generation
             * (-DPAR_GEN_TYPE=uint8_t, 255 of them) 254 clears and the change of cluster bring
             * back the previous evaluation's generation, through the wrap-around: the other
             * cluster's entries of that generation must not count. */
            for (int k = 0; round == 2 && j % 2 && k < (j % 4 == 1 ? 254 : 1); k++)
                ridge_parallel_ctx_clear(ctx);
            st = ridge_parallel_predict(cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &want, &e1);
            CHECK_INT(ridge_parallel_evaluate(ctx, pm, cl, &pc, RIDGE_RUNTIME_EAGER, 0, &got, &e2), st);
            CHECK(memcmp(&got, &want, sizeof got) == 0);
            if (st == RIDGE_OK)
                ok++;
            else {
                CHECK_STR_EQ(e2.msg, e1.msg);
                bad++;
            }
        }
    CHECK(ok > 0 && bad > 0);
    check_context(NULL);
done:
    ridge_parallel_ctx_free(ctx);
    ridge_parallel_model_free(pm);
    ridge_model_free(m);
    free(cls);
}

/* Random configurations (a fixed xorshift seed) of three models on three clusters through eight
 * prepared models on one context, with clears, graph replay and memory-first at random: each
 * evaluation equals ridge_parallel_predict bit for bit (a memory-first stop: the same memory, times
 * 0). The context keeps each op sharded for its (tp, pp, SP, shard) and its memo way between
 * evaluations: a sharding or memo state kept across a change that should have voided it shows
 * here (it caught the shard state kept across a new optimizer shard). */
static unsigned long long prep_rs = 88172645463325252ULL;
static unsigned prep_rnd(unsigned n)
{
    prep_rs ^= prep_rs << 13;
    prep_rs ^= prep_rs >> 7;
    prep_rs ^= prep_rs << 17;
    return (unsigned)(prep_rs % n);
}

static void test_prepared_random(void)
{
    static const char *const ids[] = {"gpt2", "llama2-7b", "mixtral-8x7b"};
    static const int tps[] = {1, 2, 4, 8}, pps[] = {1, 2, 4};
    enum { NP = 8, ITERS = 5000 };
    struct {
        int model;
        double mb, nm;
        ridge_run_config rc;
        ridge_parallel_model *pm;
    } pool[NP];
    ridge_model *ms[3] = {NULL, NULL, NULL};
    ridge_cluster *cls = malloc(3 * sizeof *cls);
    ridge_parallel_ctx *ctx = NULL;
    ridge_err err;
    int ok = 0, bad = 0, stopped = 0, same = 1, np = 0;
    for (int k = 0; k < 3; k++)
        ms[k] = load_model(ids[k]);
    if (!CHECK(ms[0] && ms[1] && ms[2] && cls) || !CHECK_INT(ridge_cluster_load("dgx-a100", 1, &cls[0], &err), RIDGE_OK) ||
        !CHECK_INT(ridge_cluster_load("dgx-a100", 2, &cls[1], &err), RIDGE_OK) ||
        !CHECK_INT(ridge_cluster_load("dgx-h100", 2, &cls[2], &err), RIDGE_OK) ||
        !CHECK_INT(ridge_parallel_ctx_alloc(&ctx, &err), RIDGE_OK))
        goto done;
    for (; np < NP; np++) {
        ridge_parallel_config pc;
        pool[np].model = np % 3;
        pool[np].mb = 1 + np % 2;
        pool[np].nm = (double)(1 << (np % 3));
        ridge_run_config_init(&pool[np].rc);
        pool[np].rc.seq = pool[np].model == 2 ? 256 : 512;
        pool[np].rc.recompute = (ridge_recompute)(np % 3);
        if (np == 7)
            pool[np].rc.mode = RIDGE_MODE_INFER;
        pool[np].rc.precision = np % 4 == 3 ? RIDGE_DTYPE_FP16 : RIDGE_DTYPE_BF16;
        pconf(&pc, 1, 1, 4, pool[np].mb, pool[np].nm * 4 * pool[np].mb);
        if (!CHECK_INT(ridge_parallel_prepare(ms[pool[np].model], &pool[np].rc, &pc, &pool[np].pm, &err), RIDGE_OK))
            goto done;
    }
    check_context("prepared random");
    for (int it = 0; it < ITERS; it++) {
        int p = (int)prep_rnd(NP), ci = prep_rnd(8) == 0 ? (int)prep_rnd(3) : 1, z, st, st2, flags, g;
        const ridge_cluster *cl = &cls[ci];
        ridge_parallel_config pc;
        ridge_parallel_result want, got;
        ridge_err e1 = {{0}}, e2 = {{0}};
        ridge_runtime rt;
        g = cl->gpus_per_node * cl->nodes;
        pconf(&pc, tps[prep_rnd(4)], pps[prep_rnd(3)], 1, pool[p].mb, 0);
        if (g % (pc.tp * pc.pp))
            continue;
        pc.dp = g / (pc.tp * pc.pp);
        pc.global_batch = pool[p].nm * pc.dp * pool[p].mb;
        pc.ep = prep_rnd(3) == 0 ? 2 : 1;
        z = (int)prep_rnd(7);
        if (z < 4)
            pc.zero = z;
        else
            pc.fsdp = (ridge_fsdp_mode)(z - 3);
        pc.sequence_parallel = (int)prep_rnd(2);
        pc.p2p_scatter_gather = (int)prep_rnd(2);
        if (prep_rnd(5) == 0) {
            pc.schedule = RIDGE_PP_INTERLEAVED;
            pc.virtual_stages = 2;
        }
        if (prep_rnd(4) == 0)
            ridge_parallel_ctx_clear(ctx);
        rt = prep_rnd(6) == 0 ? RIDGE_RUNTIME_GRAPH : RIDGE_RUNTIME_EAGER;
        flags = prep_rnd(3) == 0 ? RIDGE_PARALLEL_MEMORY_FIRST : 0;
        st = ridge_parallel_predict(cl, ms[pool[p].model], &pool[p].rc, &pc, rt, &want, &e1);
        st2 = ridge_parallel_evaluate(ctx, pool[p].pm, cl, &pc, rt, flags, &got, &e2);
        if (st != st2)
            same = 0;
        else if (st != RIDGE_OK)
            same &= strcmp(e1.msg, e2.msg) == 0 && memcmp(&got, &want, sizeof got) == 0;
        else if (flags && !want.fits) {
            same &= memcmp(&got.memory, &want.memory, sizeof got.memory) == 0 && got.step_time_s == 0;
            stopped++;
        } else
            same &= memcmp(&got, &want, sizeof got) == 0;
        if (!same) {
            fprintf(stderr, "prepared random: iteration %d differs (model %d tp %d pp %d dp %d ep %d z %d sp %d)\n", it,
                    pool[p].model, pc.tp, pc.pp, pc.dp, pc.ep, z, pc.sequence_parallel);
            break;
        }
        if (st == RIDGE_OK)
            ok++;
        else
            bad++;
    }
    CHECK(same);
    CHECK(ok > 1000 && bad > 100 && stopped > 10); /* every kind of outcome was met */
    check_context(NULL);
done:
    ridge_parallel_ctx_free(ctx);
    for (int k = 0; k < np; k++)
        ridge_parallel_model_free(pool[k].pm);
    for (int k = 0; k < 3; k++)
        ridge_model_free(ms[k]);
    free(cls);
}

/* One context, one stamp, no clear: ZeRO-1 alternating with hybrid FSDP over shard groups 1..16,
 * so an optimizer-group op's two kept shardings (its current and the one before) are swapped and
 * replaced in every order: each evaluation equals ridge_parallel_predict. */
static void test_prepared_alternating(void)
{
    ridge_model *m = load_model("gpt2");
    ridge_cluster *cl = malloc(sizeof *cl);
    ridge_parallel_model *pm = NULL;
    ridge_parallel_ctx *ctx = NULL;
    ridge_run_config rc;
    ridge_parallel_config pc;
    ridge_err err;
    int n = 0, same = 1;
    ridge_run_config_init(&rc);
    rc.seq = 512;
    pconf(&pc, 1, 1, 32, 1, 64);
    if (!CHECK(m && cl) || !CHECK_INT(ridge_cluster_load("dgx-a100", 4, cl, &err), RIDGE_OK) ||
        !CHECK_INT(ridge_parallel_prepare(m, &rc, &pc, &pm, &err), RIDGE_OK) ||
        !CHECK_INT(ridge_parallel_ctx_alloc(&ctx, &err), RIDGE_OK))
        goto done;
    for (int round = 0; round < 6 && same; round++)
        for (int g = 0; g < 5 && same; g++)
            for (int x = 0; x < 2 && same; x++) {
                ridge_parallel_config q = pc;
                ridge_parallel_result want, got;
                ridge_err e1 = {{0}}, e2 = {{0}};
                int st;
                if (x == 0)
                    q.zero = 1;
                else {
                    q.fsdp = RIDGE_FSDP_HYBRID;
                    q.fsdp_group = 1 << ((g + round) % 5);
                }
                st = ridge_parallel_predict(cl, m, &rc, &q, RIDGE_RUNTIME_EAGER, &want, &e1);
                same = ridge_parallel_evaluate(ctx, pm, cl, &q, RIDGE_RUNTIME_EAGER, 0, &got, &e2) == st &&
                       memcmp(&got, &want, sizeof got) == 0;
                n++;
            }
    CHECK(same);
    CHECK_INT(n, 60);
done:
    ridge_parallel_ctx_free(ctx);
    ridge_parallel_model_free(pm);
    ridge_model_free(m);
    free(cl);
}

int main(void)
{
    test_prepared();
    test_prepared_configs();
    test_prepared_random();
    test_prepared_alternating();
    test_megatron_optimizer();
    test_tp_ends();
    test_grad_accumulation();
    test_moe_zero_memory();
    test_zero3_plateau();
    test_fsdp_modes();
    test_fsdp_errors();
    test_expert_parallel_memory();
    test_bubble();
    test_p2p_tier();
    test_single_gpu();
    test_zero_memory();
    test_decode_kv_memory();
    test_dp_collective();
    test_errors();
    test_huge_global_batch();
    test_inference_no_negative_backward();
    test_add_request();
    test_tp_shapes();
    return check_report();
}
