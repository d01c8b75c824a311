/* Tests of the enum <-> name tables (ridge/names.h) and of every table the library publishes.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "check.h"
#include "ridge/comm.h"
#include "ridge/host.h"
#include "ridge/kernel.h"
#include "ridge/names.h"
#include "ridge/op.h"
#include "ridge/parallel.h"
#include "ridge/plan.h"
#include "ridge/workload.h"

/* Each table with the list its messages quote (the order is the messages'). */
static const struct {
    const char *what;
    const ridge_names *t;
    const char *list;
} tables[] = {
    {"op kind", &ridge_op_kind_names,
     "gemm, conv2d, attention, elementwise, softmax, layernorm, rmsnorm, reduce, embedding, lstm, copy, custom"},
    {"dtype", &ridge_dtype_names, "fp64, fp32, tf32, fp16, bf16, fp8, int8, int4"},
    {"pass", &ridge_pass_names, "fwd, bwd_data, bwd_filter, fwd_bwd"},
    {"copy kind", &ridge_copy_kind_names, "d2d, h2d, d2h"},
    {"layout", &ridge_layout_names, "nn, nt, tn, tt"},
    {"ew fn", &ridge_ew_fn_names, "plain, gelu_erf, gelu_tanh, silu, exp"},
    {"row kernel", &ridge_row_kernel_names, "auto, cta, warp, column"},
    {"coll op", &ridge_coll_op_names, "allreduce, allgather, reducescatter, alltoall, broadcast, sendrecv"},
    {"coll algo", &ridge_coll_algo_names, "auto, ring, tree, hierarchical, direct"},
    {"coll proto", &ridge_coll_proto_names, "auto, ll, ll128, simple"},
    {"intra", &ridge_intra_kind_names, "nvswitch, nvlink_bridge, pcie_switch, pcie_host"},
    {"inter", &ridge_inter_kind_names, "infiniband, roce, ethernet"},
    {"bound", &ridge_bound_names, "compute, memory, l2, latency, host"},
    {"runtime", &ridge_runtime_names, "eager, graph"},
    {"host class", &ridge_host_class_names, "auto, aten, library, attention, autograd, multi_tensor"},
    {"pp schedule", &ridge_pp_schedule_names, "1f1b, interleaved"},
    {"fsdp", &ridge_fsdp_mode_names, "none, full, grad-op, hybrid"},
    {"objective", &ridge_plan_objective_names, "cost, time, energy, gpus"},
    {"mode", &ridge_mode_names, "train, infer, prefill, decode"},
    {"optimizer", &ridge_optimizer_names, "sgd, adamw, lamb"},
    {"recompute", &ridge_recompute_names, "none, selective, full"},
    {"optimizer impl", &ridge_optimizer_impl_names, "fused, foreach, foreach-capturable, forloop"},
    {"code", &ridge_code_names, "torch, hf, megatron, engine, compile"},
};

static void test_tables(void)
{
    char list[256];
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        const ridge_names *t = tables[i].t;
        check_context(tables[i].what);
        CHECK_STR_EQ(ridge_name_list(t, list, sizeof list), tables[i].list);
        for (int r = 0; r < t->count; r++) {
            int v = -77;
            CHECK_INT(ridge_name_parse(t, t->rows[r].name, &v), RIDGE_OK);
            CHECK_INT(v, t->rows[r].value);
            CHECK_STR_EQ(ridge_name_of(t, t->rows[r].value), t->rows[r].name);
            for (int q = 0; q < r; q++) /* names and values are each unique */
                CHECK(strcmp(t->rows[q].name, t->rows[r].name) != 0 && t->rows[q].value != t->rows[r].value);
        }
        {
            int v = -77;
            CHECK_INT(ridge_name_parse(t, "no such name", &v), RIDGE_EINVAL);
            CHECK_INT(ridge_name_parse(t, NULL, &v), RIDGE_EINVAL);
            CHECK_INT(ridge_name_parse(t, "", &v), RIDGE_EINVAL);
            CHECK_INT(v, -77); /* untouched on failure */
            CHECK_STR_EQ(ridge_name_of(t, 4093), t->unknown);
            CHECK_STR_EQ(ridge_name_of(t, -1), t->unknown);
        }
    }
    check_context(NULL);
}

/* The typed pairs share the convention, and the tables' unknown names are the old fallbacks. */
static void test_typed(void)
{
    ridge_optimizer_impl impl = RIDGE_OPT_IMPL_FUSED;
    ridge_code code = RIDGE_CODE_AS_WRITTEN;
    ridge_runtime rt = RIDGE_RUNTIME_GRAPH;
    ridge_coll_algo algo = RIDGE_ALGO_RING;
    ridge_dtype d = RIDGE_DTYPE_FP8;
    check_context("typed pairs");
    CHECK_INT(ridge_optimizer_impl_parse("forloop", &impl), RIDGE_OK);
    CHECK_INT(impl, RIDGE_OPT_IMPL_FORLOOP); /* a table out of the enum's order */
    CHECK_STR_EQ(ridge_optimizer_impl_name(RIDGE_OPT_IMPL_FOREACH_CAPTURABLE), "foreach-capturable");
    CHECK_INT(ridge_code_parse("", &code), RIDGE_EINVAL);
    CHECK_INT(ridge_code_parse("megatron", &code), RIDGE_OK);
    CHECK_INT(code, RIDGE_CODE_MEGATRON);
    CHECK_STR_EQ(ridge_code_name(RIDGE_CODE_AS_WRITTEN), "as-written");
    CHECK_INT(ridge_runtime_parse("Graph", &rt), RIDGE_EINVAL);
    CHECK_INT(rt, RIDGE_RUNTIME_GRAPH);
    CHECK_STR_EQ(ridge_runtime_name((ridge_runtime)5), "eager");
    CHECK_INT(ridge_coll_algo_parse("tree", &algo), RIDGE_OK);
    CHECK_INT(algo, RIDGE_ALGO_TREE);
    CHECK_INT(ridge_dtype_parse("int4", &d), RIDGE_OK);
    CHECK_INT(d, RIDGE_DTYPE_INT4);
    CHECK_STR_EQ(ridge_host_class_name(RIDGE_HOST_CLASS_COUNT), "?");
    check_context(NULL);
}

/* A list is cut to the buffer, always terminated; a prefix of a table is a table. */
static void test_list(void)
{
    char small[9], none[1] = {'x'};
    ridge_names prefix = ridge_row_kernel_names;
    check_context("ridge_name_list");
    CHECK_STR_EQ(ridge_name_list(&ridge_layout_names, small, sizeof small), "nn, nt, ");
    CHECK_STR_EQ(ridge_name_list(&ridge_layout_names, none, sizeof none), "");
    prefix.count = 3;
    CHECK_STR_EQ(ridge_name_list(&prefix, small, sizeof small), "auto, ct");
    check_context(NULL);
}

int main(void)
{
    test_tables();
    test_typed();
    test_list();
    return check_report();
}
