/* ridge — collective communication on a cluster (docs/comm.md).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The cluster itself (ridge_cluster, its loaders and default link figures) is ridge/cluster.h.
 * The model is alpha-beta per tier: a step costs the tier's latency, a byte costs
 * 1 / (bandwidth x achievable fraction x protocol efficiency); every constant is in docs/comm.md. */
#ifndef RIDGE_COMM_H
#define RIDGE_COMM_H

#include <stddef.h>

#include "ridge/cluster.h"
#include "ridge/error.h"
#include "ridge/names.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    RIDGE_COLL_ALLREDUCE = 0,
    RIDGE_COLL_ALLGATHER,
    RIDGE_COLL_REDUCESCATTER,
    RIDGE_COLL_ALLTOALL,
    RIDGE_COLL_BROADCAST,
    RIDGE_COLL_SENDRECV,
    RIDGE_COLL_COUNT
} ridge_coll_op;

typedef enum {
    RIDGE_ALGO_AUTO = 0, /* the fastest the op supports */
    RIDGE_ALGO_RING,
    RIDGE_ALGO_TREE,
    RIDGE_ALGO_HIERARCHICAL, /* reduce-scatter intra, all-reduce inter, all-gather intra */
    RIDGE_ALGO_DIRECT,       /* all-to-all and send/recv: every pair at once */
    RIDGE_ALGO_COUNT
} ridge_coll_algo;

typedef enum { RIDGE_PROTO_AUTO = 0, RIDGE_PROTO_LL, RIDGE_PROTO_LL128, RIDGE_PROTO_SIMPLE, RIDGE_PROTO_COUNT } ridge_coll_proto;

/* "allreduce", "ring", "ll128", from one table each (ridge/names.h); parse returns RIDGE_OK, or
 * RIDGE_EINVAL when s is unknown (ridge_name_list gives the choices for a message). */
extern const ridge_names ridge_coll_op_names, ridge_coll_algo_names, ridge_coll_proto_names;
const char *ridge_coll_op_name(ridge_coll_op op);
const char *ridge_coll_algo_name(ridge_coll_algo a);
const char *ridge_coll_proto_name(ridge_coll_proto p);
int ridge_coll_op_parse(const char *s, ridge_coll_op *op);
int ridge_coll_algo_parse(const char *s, ridge_coll_algo *a);
int ridge_coll_proto_parse(const char *s, ridge_coll_proto *p);
/* 1 if the op has an implementation with this algorithm. */
int ridge_coll_supports(ridge_coll_op op, ridge_coll_algo a);

/* NCCL-like protocol constants: a per-collective base latency, a factor on each step's latency,
 * and the share of link bandwidth that carries data. */
typedef struct {
    double base_latency_s;
    double step_latency_factor;
    double bw_efficiency;
} ridge_coll_proto_info;
const ridge_coll_proto_info *ridge_coll_proto_constants(ridge_coll_proto p); /* NULL for AUTO */

/* nccl-tests bus bandwidth factor: busbw = algbw x factor. */
double ridge_coll_busbw_factor(ridge_coll_op op, int gpus);

typedef struct {
    ridge_coll_op op;
    ridge_coll_algo algo;   /* the one used (never AUTO) */
    ridge_coll_proto proto; /* the one used (never AUTO) */
    int gpus;
    int nodes;         /* nodes used */
    int gpus_per_node; /* GPUs used per node */
    double bytes;      /* nccl-tests size: the buffer (all-gather: the gathered output) */
    double time_s;
    double latency_s;   /* part of time_s from base and step latencies */
    double bandwidth_s; /* part of time_s from bytes over bandwidth */
    double alg_bw_bytes_per_s;
    double bus_bw_bytes_per_s;
    const char *bound; /* the link that sets the bandwidth term: "nvlink", "pcie", "network" */
} ridge_coll_result;

/* Time of one collective on the first `gpus` GPUs (nodes filled in order; more than one node
 * needs a multiple of gpus_per_node). algo / proto AUTO pick the fastest. EINVAL for bad sizes
 * or GPU counts, EUNSUPPORTED for an algorithm the op lacks. Allocates nothing. */
int ridge_collective(const ridge_cluster *cl, ridge_coll_op op, double bytes, int gpus, ridge_coll_algo algo,
                     ridge_coll_proto proto, ridge_coll_result *r, ridge_err *err);

/* ridge_collective on cl with its node shape replaced: gpus_per_node GPUs per node, `nodes`
 * nodes, inter_bw_bytes_per_s_per_node of network per node (the view one parallel group has of
 * the cluster, without copying the cluster). */
int ridge_collective_shaped(const ridge_cluster *cl, int gpus_per_node, int nodes,
                            double inter_bw_bytes_per_s_per_node, ridge_coll_op op, double bytes, int gpus,
                            ridge_coll_algo algo, ridge_coll_proto proto, ridge_coll_result *r, ridge_err *err);

#ifdef __cplusplus
}
#endif
#endif
