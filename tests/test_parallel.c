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
        {2, 4, 1, 3, 1, 13}, /* interleaved, m = 13 */
        {1, 2, 4, 2, 3, 36}, /* interleaved, m = 3 */
    };
    ridge_cluster cl;
    ridge_err err;
    ridge_model *m = load_model("gpt2");
    ridge_run_config rc;
    if (!CHECK(m) || !CHECK_INT(ridge_cluster_load("dgx-a100", 1, &cl, &err), RIDGE_OK)) {
        ridge_model_free(m);
        return;
    }
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
        CHECK_NEAR(b->pp_comm_s, 2 * (v * p - 1) * r.p2p_s, 1e-12);
        CHECK(rows[i].tp == 1 ? b->tp_comm_s == 0 : b->tp_comm_s > 0);
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
        {3, 31109952.0, 31109952.0, 186659712.0},
    };
    ridge_cluster cl;
    ridge_err err;
    ridge_model *m = load_model("gpt2");
    ridge_run_config rc;
    if (!CHECK(m) || !CHECK_INT(ridge_cluster_load("dgx-h100", 1, &cl, &err), RIDGE_OK)) {
        ridge_model_free(m);
        return;
    }
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
    if (!CHECK(m) || !CHECK_INT(ridge_cluster_load("dgx-a100", 1, &cl, &err), RIDGE_OK)) {
        ridge_model_free(m);
        return;
    }
    ridge_run_config_init(&rc);
    check_context("dp 8 in one node: all-reduce of the bf16 gradient");
    pconf(&pc, 1, 1, 8, 2, 16);
    if (CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_OK) &&
        CHECK_INT(ridge_collective(&cl, RIDGE_COLL_ALLREDUCE, s, 8, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO, &ar, &err),
                  RIDGE_OK)) {
        CHECK_NEAR(r.dp_bytes, s, 0);
        CHECK_NEAR(r.dp_collective_s, ar.time_s, 1e-12);
        CHECK_NEAR(r.breakdown.dp_comm_exposed_s + r.breakdown.dp_comm_hidden_s, ar.time_s, 1e-12);
        CHECK_NEAR(r.breakdown.dp_comm_exposed_s,
                   ar.time_s > r.stage_backward_s ? ar.time_s - r.stage_backward_s : 0, 1e-12);
    }
    check_context("zero 3: reduce-scatter and two all-gathers");
    pc.zero = 3;
    if (CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err), RIDGE_OK) &&
        CHECK_INT(ridge_collective(&cl, RIDGE_COLL_REDUCESCATTER, s, 8, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO, &rs, &err),
                  RIDGE_OK) &&
        CHECK_INT(ridge_collective(&cl, RIDGE_COLL_ALLGATHER, s, 8, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO, &ag, &err),
                  RIDGE_OK))
        CHECK_NEAR(r.dp_collective_s, rs.time_s + 2 * ag.time_s, 1e-12);
    /* tp 4 x dp 2 x 2 nodes... no: tp 8 in each node, dp 2 across two nodes: one member per node,
     * and the node's 8 NICs are shared by the 8 DP groups running at once. */
    check_context("dp 2 across nodes, tp 8 inside");
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

static void test_errors(void)
{
    static const struct {
        const char *model;
        int nodes, tp, pp, dp, ep;
        double mb, gb;
        const char *msg;
    } rows[] = {
        {"gpt2", 1, 2, 2, 4, 1, 1, 8, "--tp 2 x --pp 2 x --dp 4 = 16 GPUs, but cluster dgx-a100 has 8"},
        {"gpt2", 2, 2, 1, 4, 1, 1, 8, "= 8 GPUs, but cluster dgx-a100 has 16"},
        {"gpt2", 1, 1, 8, 1, 1, 1, 8, "--pp 8: does not divide the 12 layers of gpt2"},
        {"gpt2", 1, 8, 1, 1, 1, 1, 8, "--tp 8: does not divide the 12 attention heads of gpt2"},
        {"gpt2", 1, 1, 1, 8, 1, 3, 36, "--global-batch 36: not a multiple of --dp 8 x --microbatch 3"},
        {"gpt2", 1, 1, 1, 8, 3, 1, 8, "--ep 3: does not divide --dp 8"},
        {"gpt2", 1, 1, 1, 8, 2, 1, 8, "--ep 2: gpt2 has no experts"},
        {"resnet50", 1, 2, 1, 4, 1, 1, 8, "parallelism is modelled for transformers"},
        {"resnet50", 1, 1, 2, 4, 1, 1, 8, "parallelism is modelled for transformers"},
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
    if (!CHECK(m) || !CHECK_INT(ridge_cluster_load("dgx-h100", 1, &cl, &err), RIDGE_OK)) {
        ridge_model_free(m);
        return;
    }
    ridge_run_config_init(&rc);
    rc.seq = 2048;
    check_context("llama2-7b tp 1 vs tp 8");
    pconf(&pc, 1, 1, 8, 1, 8);
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r1, &err), RIDGE_OK);
    pconf(&pc, 8, 1, 1, 1, 8);
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r8, &err), RIDGE_OK);
    pc.sequence_parallel = 1;
    CHECK_INT(ridge_parallel_predict(&cl, m, &rc, &pc, RIDGE_RUNTIME_EAGER, &r8sp, &err), RIDGE_OK);
    /* 8 microbatches of 1/8 of the work each: compute within 25% of the dp 8 run's */
    CHECK(r8.breakdown.compute_s > 0.75 * r1.breakdown.compute_s && r8.breakdown.compute_s < 1.6 * r1.breakdown.compute_s);
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
    if (!CHECK(m) || !CHECK_INT(ridge_cluster_load("dgx-h100", 1, &cl, &err), RIDGE_OK)) {
        ridge_model_free(m);
        return;
    }
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

int main(void)
{
    test_expert_parallel_memory();
    test_bubble();
    test_single_gpu();
    test_zero_memory();
    test_dp_collective();
    test_errors();
    test_tp_shapes();
    return check_report();
}
