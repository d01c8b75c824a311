/* ridge — clusters: the GPUs and links that collectives run on (docs/comm.md).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A ridge_cluster is a plain value: nodes of identical GPUs joined inside a node by one fabric
 * (NVSwitch, NVLink bridge pairs, PCIe) and between nodes by one network. Load it from the
 * built-in set (model/clusters/ID.json) or a JSON file; ridge/comm.h prices collectives on it. */
#ifndef RIDGE_CLUSTER_H
#define RIDGE_CLUSTER_H

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

#ifdef __cplusplus
}
#endif
#endif
