/* Private: the collectives of one parallel group, its node shape worked out once (comm.c), for
 * the parallel model, which times several collectives on each group per evaluation.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_COMM_GROUP_H
#define RIDGE_COMM_GROUP_H

#include "ridge/comm.h"

#include "attrs.h" /* RIDGE_PRIVATE: not exported from libridge */

/* What the shape of a collective gives every protocol alike. */
typedef struct {
    int m, k;             /* nodes, GPUs per node */
    double dn, dm, dk;    /* GPUs, nodes and GPUs per node as doubles */
    const char *link;     /* the intra link: "nvlink" (a switch or bridges) or "pcie" */
    double link_share;    /* intra link x intra_fraction */
    double pcie_share;    /* intra PCIe x intra_fraction */
    double node_share;    /* node network x inter_fraction */
} shape;

/* The tiers a collective sees, for one protocol, and the ring over all n GPUs on them. */
typedef struct {
    double a_intra;     /* step latency inside a node */
    double a_inter;     /* step latency across nodes */
    double b_link;      /* per GPU: the fast intra link (NVLink, or PCIe where that is all) */
    double b_pcie;      /* per GPU: PCIe hops of a bridged node */
    double b_ring;      /* per GPU: the slowest hop of an intra-node ring of k */
    const char *ring_bound;
    double b_node;      /* whole node, network, one direction */
    double base;
    double alpha, beta; /* step latency and bandwidth of a ring over all n GPUs */
    const char *bound;  /* the link that sets beta */
} tiers;

/* A group of `gpus` GPUs on cl seen as gpus_per_node x nodes with inter_bw of network per node
 * (ridge_collective_shaped's view): whether that size passes its checks and, when it does, the
 * shape and the tiers of each protocol, the same for every op and size. */
typedef struct {
    const ridge_cluster *cl;
    int gpus_per_node, nodes, gpus;
    int ok;                       /* the size passes ridge_collective_shaped's checks */
    unsigned protos;              /* the protocols RIDGE_PROTO_AUTO tries, one bit each */
    shape sh;
    tiers t[RIDGE_PROTO_COUNT];   /* [protocol]: those of protos */
} rc_coll_group;

RIDGE_PRIVATE void rc_coll_group_init(const ridge_cluster *cl, int gpus_per_node, int nodes, double inter_bw, int gpus,
                                      rc_coll_group *g);

/* ridge_collective_shaped's time_s for op on bytes with algorithm and protocol AUTO over the
 * group: the same time, status and message. */
RIDGE_PRIVATE int rc_coll_group_time(const rc_coll_group *g, ridge_coll_op op, double bytes, double *time_s,
                                     ridge_err *err);

/* The op whose times op's are, for a memo of them: an all-gather and a reduce-scatter are timed
 * alike (one case of comm.c's eval, one algorithm: the same candidates and arithmetic), so the
 * time of either on the same group and bytes is the other's. */
static inline ridge_coll_op rc_coll_timed_as(ridge_coll_op op)
{
    return op == RIDGE_COLL_ALLGATHER ? RIDGE_COLL_REDUCESCATTER : op;
}

#endif
