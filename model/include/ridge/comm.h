/* ridge — clusters and collective communication (docs/comm.md).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A ridge_cluster is a plain value: nodes of identical GPUs joined inside a node by one fabric
 * (NVSwitch, NVLink bridge pairs, PCIe) and between nodes by one network. Load it from the
 * built-in set (model/clusters/ID.json) or a JSON file, then ask for collective times. The model
 * is alpha-beta per tier: a step costs the tier's latency, a byte costs 1 / (bandwidth x
 * achievable fraction x protocol efficiency); every constant is in docs/comm.md. */
#ifndef RIDGE_COMM_H
#define RIDGE_COMM_H

#include <stddef.h>

#include "ridge/error.h"
#include "ridge/gpu.h"
#include "ridge/names.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Intra-node fabric. */
typedef enum {
    RIDGE_INTRA_NVSWITCH = 0, /* all-to-all NVLink through NVSwitch */
    RIDGE_INTRA_NVLINK_BRIDGE, /* GPUs paired by NVLink bridges, PCIe between pairs */
    RIDGE_INTRA_PCIE_SWITCH,   /* peer-to-peer through a PCIe switch */
    RIDGE_INTRA_PCIE_HOST,     /* through the CPU root complex (and socket link) */
    RIDGE_INTRA_COUNT
} ridge_intra_kind;

/* Inter-node network. */
typedef enum { RIDGE_INTER_INFINIBAND = 0, RIDGE_INTER_ROCE, RIDGE_INTER_ETHERNET, RIDGE_INTER_COUNT } ridge_inter_kind;

/* Names as in cluster files ("nvswitch", "infiniband"), from one table each (ridge/names.h). */
extern const ridge_names ridge_intra_kind_names, ridge_inter_kind_names;
const char *ridge_intra_kind_name(ridge_intra_kind k);
const char *ridge_inter_kind_name(ridge_inter_kind k);

#define RIDGE_CLUSTER_MAX_SOURCES 16

typedef struct {
    char id[48];
    char name[96];
    char gpu_id[48];
    ridge_gpu gpu; /* the catalogue entry named by gpu_id */
    int gpus_per_node;
    int nodes;

    ridge_intra_kind intra_kind;
    double intra_bw_bytes_per_s;   /* per GPU, one direction (bridge: the bridge link) */
    double intra_pcie_bw_bytes_per_s; /* per GPU, one direction: the PCIe hops between bridged pairs */
    double intra_latency_s;        /* one step, Simple protocol */
    double intra_fraction;         /* achievable share of intra_bw (and of the PCIe hops) */

    int has_inter;                 /* 0: single-node only */
    ridge_inter_kind inter_kind;
    double inter_bw_bytes_per_s_per_node; /* one direction, all NICs of a node */
    double inter_latency_s;        /* one step, Simple protocol */
    double inter_fraction;         /* achievable share of the network bandwidth */

    int source_count;
    ridge_gpu_source sources[RIDGE_CLUSTER_MAX_SOURCES];
} ridge_cluster;

/* Parse and check a cluster description held in memory; `origin` names it in errors.
 * nodes_override > 0 replaces the file's node count. Errors: "ORIGIN: $.path: problem". */
int ridge_cluster_parse(const char *json, size_t len, const char *origin, int nodes_override, ridge_cluster *cl,
                        ridge_err *err);
/* A built-in id ("dgx-h100") or a path (anything with '/' or ending in ".json"). Unknown ids
 * fail with RIDGE_ENOTFOUND and the nearest built-in ids. */
int ridge_cluster_load(const char *id_or_path, int nodes_override, ridge_cluster *cl, ridge_err *err);
size_t ridge_cluster_builtin_count(void);
const char *ridge_cluster_builtin_id(size_t i);

/* Default achievable fractions per fabric and network kind (docs/comm.md, "Constants"). */
double ridge_intra_default_fraction(ridge_intra_kind k);
double ridge_inter_default_fraction(ridge_inter_kind k);
double ridge_intra_default_latency_s(ridge_intra_kind k);
double ridge_inter_default_latency_s(ridge_inter_kind k);

/* ---- collectives ---- */

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

#ifdef __cplusplus
}
#endif
#endif
