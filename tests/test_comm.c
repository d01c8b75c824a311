/* Unit tests: cluster loading and collective times (docs/comm.md).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ridge/comm.h"

/* A hand-built cluster with high-entropy figures. */
static const char hand[] = "{\"schema_version\": 1, \"id\": \"hand\", \"name\": \"hand-built\", \"gpu\": \"a100-sxm4-80gb\","
                           " \"gpus_per_node\": 8, \"nodes\": 4,"
                           " \"intra\": {\"kind\": \"nvswitch\", \"bandwidth_bytes_per_s_per_direction\": 2.385e11,"
                           "   \"latency_s\": 3.17e-6, \"achievable_fraction\": 0.815},"
                           " \"inter\": {\"kind\": \"infiniband\", \"bandwidth_bytes_per_s_per_node\": 2.5e10,"
                           "   \"latency_s\": 1.23e-5, \"achievable_fraction\": 0.9}}";

static void test_closed_form(const ridge_cluster *cl)
{
    static const struct {
        int gpus;
        double bytes;
    } rows[] = {{2, 1234567}, {4, 3.7e8}, {8, 3.7e8}, {8, 1073741824.0}, {5, 98765.4}};
    const ridge_coll_proto_info *simple = ridge_coll_proto_constants(RIDGE_PROTO_SIMPLE);
    check_context("ring all-reduce closed form");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_coll_result r;
        ridge_err err = {{0}};
        double n = rows[i].gpus, S = rows[i].bytes;
        double want = simple->base_latency_s + 2 * (n - 1) * (3.17e-6 + (S / n) / (2.385e11 * 0.815));
        CHECK_INT(ridge_collective(cl, RIDGE_COLL_ALLREDUCE, S, rows[i].gpus, RIDGE_ALGO_RING, RIDGE_PROTO_SIMPLE, &r,
                                   &err),
                  RIDGE_OK);
        CHECK_NEAR(r.time_s, want, 1e-12);
        CHECK_NEAR(r.latency_s + r.bandwidth_s, r.time_s, 1e-12);
        CHECK_STR_EQ(r.bound, "nvlink");
    }
    /* Across nodes the ring's bandwidth is the node's network, its step latency the network's. */
    {
        ridge_coll_result r;
        ridge_err err = {{0}};
        double n = 32, S = 7.77e8;
        double want = simple->base_latency_s + 2 * (n - 1) * (1.23e-5 + (S / n) / (2.5e10 * 0.9));
        CHECK_INT(ridge_collective(cl, RIDGE_COLL_ALLREDUCE, S, 32, RIDGE_ALGO_RING, RIDGE_PROTO_SIMPLE, &r, &err),
                  RIDGE_OK);
        CHECK_NEAR(r.time_s, want, 1e-12);
        CHECK_STR_EQ(r.bound, "network");
        CHECK_INT(r.nodes, 4);
    }
}

static void test_busbw(const ridge_cluster *cl)
{
    static const struct {
        ridge_coll_op op;
        double factor; /* for n = 8 */
    } rows[] = {{RIDGE_COLL_ALLREDUCE, 14.0 / 8}, {RIDGE_COLL_ALLGATHER, 7.0 / 8}, {RIDGE_COLL_REDUCESCATTER, 7.0 / 8},
                {RIDGE_COLL_ALLTOALL, 7.0 / 8},  {RIDGE_COLL_BROADCAST, 1.0},    {RIDGE_COLL_SENDRECV, 1.0}};
    check_context("bus bandwidth conventions");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_coll_result r;
        ridge_err err = {{0}};
        CHECK_NEAR(ridge_coll_busbw_factor(rows[i].op, 8), rows[i].factor, 1e-15);
        CHECK_INT(ridge_collective(cl, rows[i].op, 5.4321e7, 8, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO, &r, &err), RIDGE_OK);
        CHECK_NEAR(r.alg_bw_bytes_per_s, 5.4321e7 / r.time_s, 1e-12);
        CHECK_NEAR(r.bus_bw_bytes_per_s, r.alg_bw_bytes_per_s * rows[i].factor, 1e-12);
    }
    /* all-gather and reduce-scatter: (n-1) steps on S/n each. */
    {
        ridge_coll_result r;
        ridge_err err = {{0}};
        const ridge_coll_proto_info *pi = ridge_coll_proto_constants(RIDGE_PROTO_SIMPLE);
        double want = pi->base_latency_s + 7 * (3.17e-6 + (6.5e8 / 8) / (2.385e11 * 0.815));
        CHECK_INT(ridge_collective(cl, RIDGE_COLL_ALLGATHER, 6.5e8, 8, RIDGE_ALGO_RING, RIDGE_PROTO_SIMPLE, &r, &err),
                  RIDGE_OK);
        CHECK_NEAR(r.time_s, want, 1e-12);
    }
}

static void test_hierarchical_and_small(const ridge_cluster *cl)
{
    ridge_coll_result ring, hier, aut, small;
    ridge_err err = {{0}};
    const ridge_coll_proto_info *ll = ridge_coll_proto_constants(RIDGE_PROTO_LL);
    check_context("hierarchical beats a flat ring across nodes (fast NVSwitch, slow per-node network)");
    CHECK_INT(ridge_collective(cl, RIDGE_COLL_ALLREDUCE, 1073741824.0, 32, RIDGE_ALGO_RING, RIDGE_PROTO_AUTO, &ring,
                               &err),
              RIDGE_OK);
    CHECK_INT(ridge_collective(cl, RIDGE_COLL_ALLREDUCE, 1073741824.0, 32, RIDGE_ALGO_HIERARCHICAL, RIDGE_PROTO_AUTO,
                               &hier, &err),
              RIDGE_OK);
    CHECK(hier.time_s < ring.time_s);
    CHECK_INT(ridge_collective(cl, RIDGE_COLL_ALLREDUCE, 1073741824.0, 32, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO, &aut,
                               &err),
              RIDGE_OK);
    CHECK(aut.time_s <= hier.time_s && aut.time_s <= ring.time_s);
    CHECK(aut.algo != RIDGE_ALGO_AUTO && aut.proto != RIDGE_PROTO_AUTO);

    check_context("small messages are latency-bound");
    CHECK_INT(ridge_collective(cl, RIDGE_COLL_ALLREDUCE, 8, 8, RIDGE_ALGO_RING, RIDGE_PROTO_AUTO, &small, &err),
              RIDGE_OK);
    CHECK_INT(small.proto, RIDGE_PROTO_LL);
    CHECK(small.bandwidth_s < 1e-3 * small.time_s);
    CHECK_NEAR(small.time_s, ll->base_latency_s + 14 * 3.17e-6 * ll->step_latency_factor, 1e-3);
    /* and large ones bandwidth-bound, on the Simple protocol */
    CHECK_INT(ridge_collective(cl, RIDGE_COLL_ALLREDUCE, 4294967296.0, 8, RIDGE_ALGO_RING, RIDGE_PROTO_AUTO, &small,
                               &err),
              RIDGE_OK);
    CHECK_INT(small.proto, RIDGE_PROTO_SIMPLE);
    CHECK(small.latency_s < 0.01 * small.time_s);
}

static void test_bridge(void)
{
    ridge_cluster *cl = malloc(sizeof *cl);
    ridge_coll_result r;
    ridge_err err = {{0}};
    check_context("A40 bridge pairs: the ring is bounded by PCIe");
    if (!CHECK(cl != NULL))
        return;
    if (CHECK_INT(ridge_cluster_load("pcie-a40x8", 0, cl, &err), RIDGE_OK)) {
        double S = 2.5e8, pcie = cl->intra_pcie_bw_bytes_per_s * cl->intra_fraction;
        CHECK(cl->intra_pcie_bw_bytes_per_s < cl->intra_bw_bytes_per_s);
        CHECK_INT(ridge_collective(cl, RIDGE_COLL_ALLREDUCE, S, 8, RIDGE_ALGO_RING, RIDGE_PROTO_SIMPLE, &r, &err),
                  RIDGE_OK);
        CHECK_STR_EQ(r.bound, "pcie");
        CHECK_NEAR(r.bandwidth_s, 2 * 7.0 / 8 * S / pcie, 1e-12);
        /* one pair alone runs at the bridge's rate */
        CHECK_INT(ridge_collective(cl, RIDGE_COLL_ALLREDUCE, S, 2, RIDGE_ALGO_RING, RIDGE_PROTO_SIMPLE, &r, &err),
                  RIDGE_OK);
        CHECK_STR_EQ(r.bound, "nvlink");
        CHECK_NEAR(r.bandwidth_s, S / (cl->intra_bw_bytes_per_s * cl->intra_fraction), 1e-12);
    }
    free(cl);
}

static void test_bad_files(ridge_cluster *cl)
{
    static const struct {
        const char *json;
        int status;
        const char *needle;
    } rows[] = {
        {"{\"schema_version\":1,\"id\":\"x\",\"name\":\"x\",\"gpu\":\"a40\",\"gpus_per_node\":8,\"intra\":{\"kind\":\"nvswitchh\"}}",
         RIDGE_EINVAL, "$.intra.kind: 'nvswitchh' is not one of"},
        {"{\"schema_version\":1,\"id\":\"x\",\"name\":\"x\",\"gpu\":\"a40\",\"gpus_per_node\":8,\"intra\":{\"kind\":\"pcie_host\",\"speed\":1}}",
         RIDGE_EINVAL, "$.intra.speed"},
        {"{\"schema_version\":1,\"id\":\"x\",\"name\":\"x\",\"gpu\":\"a99\",\"gpus_per_node\":8,\"intra\":{\"kind\":\"pcie_host\"}}",
         RIDGE_ENOTFOUND, "$.gpu: unknown GPU id 'a99'"},
        {"{\"schema_version\":1,\"id\":\"x\",\"name\":\"x\",\"gpu\":\"l40s\",\"gpus_per_node\":8,\"intra\":{\"kind\":\"nvswitch\"}}",
         RIDGE_EINVAL, "$.intra.bandwidth_bytes_per_s_per_direction: missing"},
        {"{\"schema_version\":1,\"id\":\"x\",\"name\":\"x\",\"gpu\":\"a40\",\"gpus_per_node\":7,\"intra\":{\"kind\":\"nvlink_bridge\"}}",
         RIDGE_EINVAL, "$.gpus_per_node"},
        {"{\"schema_version\":1,\"id\":\"x\",\"name\":\"x\",\"gpu\":\"a40\",\"gpus_per_node\":8,\"nodes\":2,\"intra\":{\"kind\":\"pcie_switch\"}}",
         RIDGE_EINVAL, "$.inter: missing"},
        {"{\"schema_version\":1,\"id\":\"x\",\"name\":\"x\",\"gpu\":\"a40\",\"gpus_per_node\":8,\"intra\":{\"kind\":\"pcie_switch\"},"
         "\"inter\":{\"kind\":\"roce\",\"bandwidth_bytes_per_s_per_gpu\":1e10,\"bandwidth_bytes_per_s_per_node\":1e10}}",
         RIDGE_EINVAL, "$.inter.bandwidth_bytes_per_s_per_node: give bandwidth per GPU or per node"},
        {"{\"schema_version\":1,\"id\":\"x\",\"name\":\"x\",\"gpu\":\"a40\",\"gpus_per_node\":8,\"intra\":{\"kind\":\"pcie_switch\"},"
         "\"inter\":{\"kind\":\"roce\",\"bandwidth_bytes_per_s_per_gpu\":-3}}",
         RIDGE_EINVAL, "$.inter.bandwidth_bytes_per_s_per_gpu"},
        {"{\"schema_version\":1,\"id\":\"x\",\"name\":\"x\",\"gpu\":\"a40\",\"gpus_per_node\":8,\"intra\":{\"kind\":\"pcie_switch\","
         "\"latency_s\":\"fast\"}}",
         RIDGE_EINVAL, "$.intra.latency_s"},
        {"{\"schema_version\":2,\"id\":\"x\",\"name\":\"x\",\"gpu\":\"a40\",\"gpus_per_node\":8,\"intra\":{\"kind\":\"pcie_switch\"}}",
         RIDGE_EINVAL, "$.schema_version"},
        {"{\"schema_version\":1,\"id\":\"x\",\"name\":\"x\",\"gpu\":\"a40\",\"intra\":{\"kind\":\"pcie_switch\"}}",
         RIDGE_EINVAL, "$.gpus_per_node"},
        {"{\"schema_version\":1,", RIDGE_EPARSE, "test.json"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_err err = {{0}};
        int rc = ridge_cluster_parse(rows[i].json, strlen(rows[i].json), "test.json", 0, cl, &err);
        check_context(rows[i].needle);
        CHECK_INT(rc, rows[i].status);
        CHECK_STR_HAS(err.msg, rows[i].needle);
        CHECK_STR_HAS(err.msg, "test.json");
    }
    {
        ridge_err err = {{0}};
        check_context("unknown id, missing file");
        CHECK_INT(ridge_cluster_load("dgx-h10", 0, cl, &err), RIDGE_ENOTFOUND);
        CHECK_STR_HAS(err.msg, "nearest: dgx-h100");
        CHECK_INT(ridge_cluster_load("/nonexistent/c.json", 0, cl, &err), RIDGE_EIO);
    }
}

static void test_errors(const ridge_cluster *cl)
{
    ridge_coll_result r;
    ridge_err err = {{0}};
    check_context("collective argument errors");
    CHECK_INT(ridge_collective(cl, RIDGE_COLL_ALLREDUCE, 1e6, 33, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO, &r, &err),
              RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "exceed");
    CHECK_INT(ridge_collective(cl, RIDGE_COLL_ALLREDUCE, 1e6, 12, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO, &r, &err),
              RIDGE_EINVAL);
    CHECK_INT(ridge_collective(cl, RIDGE_COLL_ALLREDUCE, 0, 8, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO, &r, &err),
              RIDGE_EINVAL);
    CHECK_INT(ridge_collective(cl, RIDGE_COLL_ALLREDUCE, NAN, 8, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO, &r, &err),
              RIDGE_EINVAL);
    CHECK_INT(ridge_collective(cl, RIDGE_COLL_ALLREDUCE, 1e6, 1, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO, &r, &err),
              RIDGE_EINVAL);
    CHECK_INT(ridge_collective(cl, RIDGE_COLL_ALLGATHER, 1e6, 8, RIDGE_ALGO_TREE, RIDGE_PROTO_AUTO, &r, &err),
              RIDGE_EUNSUPPORTED);
    {
        ridge_coll_op op;
        char list[160];
        CHECK_INT(ridge_coll_op_parse("allreduce", &op), RIDGE_OK);
        CHECK_INT(op, RIDGE_COLL_ALLREDUCE);
        CHECK_INT(ridge_coll_op_parse("all-reduce", &op), RIDGE_EINVAL);
        CHECK_INT(op, RIDGE_COLL_ALLREDUCE);
        CHECK_STR_HAS(ridge_name_list(&ridge_coll_op_names, list, sizeof list), "allreduce, allgather");
    }
}

static void test_builtins(void)
{
    ridge_cluster *cl = malloc(sizeof *cl);
    if (!CHECK(cl != NULL))
        return;
    CHECK(ridge_cluster_builtin_count() >= 6);
    for (size_t i = 0; i < ridge_cluster_builtin_count(); i++) {
        ridge_err err = {{0}};
        const char *id = ridge_cluster_builtin_id(i);
        check_context(id);
        if (!CHECK_INT(ridge_cluster_load(id, 3, cl, &err), RIDGE_OK)) {
            fprintf(stderr, "  %s\n", err.msg);
            continue;
        }
        CHECK_STR_EQ(cl->id, id);
        CHECK_INT(cl->nodes, 3);
        CHECK(cl->source_count >= 2);
        for (int op = 0; op < RIDGE_COLL_COUNT; op++) {
            const int gpus[3] = {2, cl->gpus_per_node, 3 * cl->gpus_per_node};
            for (int g = 0; g < 3; g++) {
                for (double s = 8; s <= 8589934592.0; s *= 64) {
                    ridge_coll_result r;
                    int rc = ridge_collective(cl, (ridge_coll_op)op, s, gpus[g], RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO,
                                              &r, &err);
                    CHECK_INT(rc, RIDGE_OK);
                    CHECK(isfinite(r.time_s) && r.time_s > 0 && isfinite(r.bus_bw_bytes_per_s));
                }
            }
        }
    }
    free(cl);
}

int main(void)
{
    ridge_cluster *cl = malloc(sizeof *cl);
    ridge_err err = {{0}};
    if (!cl)
        return 1;
    check_context("hand-built cluster parses");
    if (CHECK_INT(ridge_cluster_parse(hand, strlen(hand), "hand.json", 0, cl, &err), RIDGE_OK)) {
        CHECK_INT(cl->nodes, 4);
        CHECK_NEAR(cl->inter_bw_bytes_per_s_per_node, 2.5e10, 0);
        test_closed_form(cl);
        test_busbw(cl);
        test_hierarchical_and_small(cl);
        test_errors(cl);
    } else {
        fprintf(stderr, "%s\n", err.msg);
    }
    test_bridge();
    test_bad_files(cl);
    test_builtins();
    free(cl);
    return check_report();
}
