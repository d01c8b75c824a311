/* Loading and checking cluster descriptions (docs/comm.md, "Cluster schema").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "nearest.h"
#include "json_util.h"
#include "ridge/file.h"
#include "ridge/cluster.h"

static const ridge_name intra_rows[] = {{"nvswitch", RIDGE_INTRA_NVSWITCH},
                                        {"nvlink_bridge", RIDGE_INTRA_NVLINK_BRIDGE},
                                        {"pcie_switch", RIDGE_INTRA_PCIE_SWITCH},
                                        {"pcie_host", RIDGE_INTRA_PCIE_HOST}};
static const ridge_name inter_rows[] = {
    {"infiniband", RIDGE_INTER_INFINIBAND}, {"roce", RIDGE_INTER_ROCE}, {"ethernet", RIDGE_INTER_ETHERNET}};
const ridge_names ridge_intra_kind_names = RIDGE_NAMES(intra_rows, "?");
const ridge_names ridge_inter_kind_names = RIDGE_NAMES(inter_rows, "?");

/* Achievable shares of the link bandwidth, as nccl-tests bus bandwidth over the data-sheet figure
 * (docs/comm.md has the reasoning): NVLink ~0.8 (DGX A100 ~230-240 of 300 GB/s), PCIe peer-to-peer
 * ~0.75 (~24 of 31.5 GB/s Gen4), PCIe staged through the host ~0.6, InfiniBand ~0.85 (GPUDirect
 * RDMA), RoCE ~0.8 (congestion control and smaller MTU), TCP Ethernet ~0.6 (socket copies). */
static const double intra_fraction[RIDGE_INTRA_COUNT] = {0.80, 0.80, 0.75, 0.60};
static const double inter_fraction[RIDGE_INTER_COUNT] = {0.85, 0.80, 0.60};
/* Step latency with NCCL's Simple protocol, after NCCL's hwLat table (ring, Simple): NVLink 3.4 us,
 * PCIe 5.7 us, network 14 us. A bridged ring crosses PCIe, so it takes the PCIe figure; the host
 * path adds a bounce through system memory (assumed 2 us more); TCP sockets ~2x the RDMA path. */
static const double intra_latency[RIDGE_INTRA_COUNT] = {3.4e-6, 5.7e-6, 5.7e-6, 7.7e-6};
static const double inter_latency[RIDGE_INTER_COUNT] = {14e-6, 16e-6, 30e-6};

const char *ridge_intra_kind_name(ridge_intra_kind k)
{
    return ridge_name_of(&ridge_intra_kind_names, (int)k);
}

const char *ridge_inter_kind_name(ridge_inter_kind k)
{
    return ridge_name_of(&ridge_inter_kind_names, (int)k);
}

double ridge_intra_default_fraction(ridge_intra_kind k)
{
    return (unsigned)k < RIDGE_INTRA_COUNT ? intra_fraction[k] : 0;
}

double ridge_inter_default_fraction(ridge_inter_kind k)
{
    return (unsigned)k < RIDGE_INTER_COUNT ? inter_fraction[k] : 0;
}

double ridge_intra_default_latency_s(ridge_intra_kind k)
{
    return (unsigned)k < RIDGE_INTRA_COUNT ? intra_latency[k] : 0;
}

double ridge_inter_default_latency_s(ridge_inter_kind k)
{
    return (unsigned)k < RIDGE_INTER_COUNT ? inter_latency[k] : 0;
}

/* Bandwidths from 100 MB/s to 100 TB/s, latencies from 10 ns to 10 ms: wider is a typo. */
#define BW_LO 1e8
#define BW_HI 1e14
#define LAT_LO 1e-8
#define LAT_HI 1e-2

static int parse_intra(const cJSON *root, ridge_cluster *cl, const rj_ctx *c)
{
    static const char *const keys[] = {"kind", "bandwidth_bytes_per_s_per_direction",
                                       "pcie_bandwidth_bytes_per_s_per_direction", "latency_s",
                                       "achievable_fraction", NULL};
    const char *path = "$.intra";
    const cJSON *o = NULL;
    int kind = 0, rc;
    double pcie = ridge_gpu_pcie_bw_bytes_per_s(&cl->gpu);
    RJ_TRY(rj_object(root, "$", "intra", 1, &o, c));
    RJ_TRY(rj_check_keys(o, path, keys, c));
    RJ_TRY(rj_enum(o, path, "kind", 1, &ridge_intra_kind_names, &kind, c));
    cl->intra_kind = (ridge_intra_kind)kind;
    cl->intra_pcie_bw_bytes_per_s = pcie;
    cl->intra_bw_bytes_per_s = kind <= RIDGE_INTRA_NVLINK_BRIDGE ? cl->gpu.nvlink_bw_bytes_per_s : pcie;
    rc = rj_number(o, path, "bandwidth_bytes_per_s_per_direction", 0, BW_LO, BW_HI, &cl->intra_bw_bytes_per_s, c);
    RJ_TRY(rc);
    if (rc == 0 && cl->intra_bw_bytes_per_s <= 0)
        return rj_fail(c, RIDGE_EINVAL, path, "bandwidth_bytes_per_s_per_direction",
                       "missing, and GPU '%s' has no %s figure to default to", cl->gpu_id,
                       kind <= RIDGE_INTRA_NVLINK_BRIDGE ? "NVLink" : "PCIe");
    rc = rj_number(o, path, "pcie_bandwidth_bytes_per_s_per_direction", 0, BW_LO, BW_HI,
                   &cl->intra_pcie_bw_bytes_per_s, c);
    RJ_TRY(rc);
    if (rc == 1 && kind != RIDGE_INTRA_NVLINK_BRIDGE)
        return rj_fail(c, RIDGE_EINVAL, path, "pcie_bandwidth_bytes_per_s_per_direction",
                       "only for kind nvlink_bridge (use bandwidth_bytes_per_s_per_direction)");
    if (kind == RIDGE_INTRA_NVLINK_BRIDGE && cl->intra_pcie_bw_bytes_per_s <= 0)
        return rj_fail(c, RIDGE_EINVAL, path, "pcie_bandwidth_bytes_per_s_per_direction",
                       "missing, and GPU '%s' has no PCIe figure to default to", cl->gpu_id);
    cl->intra_latency_s = intra_latency[kind];
    RJ_TRY(rj_number(o, path, "latency_s", 0, LAT_LO, LAT_HI, &cl->intra_latency_s, c));
    cl->intra_fraction = intra_fraction[kind];
    RJ_TRY(rj_number(o, path, "achievable_fraction", 0, 0.01, 1.0, &cl->intra_fraction, c));
    if (kind == RIDGE_INTRA_NVLINK_BRIDGE && cl->gpus_per_node % 2 != 0)
        return rj_fail(c, RIDGE_EINVAL, "$", "gpus_per_node", "%d: bridge pairs need an even count",
                       cl->gpus_per_node);
    return RIDGE_OK;
}

static int parse_inter(const cJSON *root, ridge_cluster *cl, const rj_ctx *c)
{
    static const char *const keys[] = {"kind", "bandwidth_bytes_per_s_per_gpu", "bandwidth_bytes_per_s_per_node",
                                       "latency_s", "achievable_fraction", NULL};
    const char *path = "$.inter";
    const cJSON *o = NULL;
    int kind = 0, has_gpu, has_node;
    double per_gpu = 0, per_node = 0;
    RJ_TRY(rj_object(root, "$", "inter", 0, &o, c));
    if (!o)
        return RIDGE_OK;
    RJ_TRY(rj_check_keys(o, path, keys, c));
    RJ_TRY(rj_enum(o, path, "kind", 1, &ridge_inter_kind_names, &kind, c));
    cl->inter_kind = (ridge_inter_kind)kind;
    RJ_TRY(has_gpu = rj_number(o, path, "bandwidth_bytes_per_s_per_gpu", 0, BW_LO, BW_HI, &per_gpu, c));
    RJ_TRY(has_node = rj_number(o, path, "bandwidth_bytes_per_s_per_node", 0, BW_LO, BW_HI, &per_node, c));
    if (has_gpu && has_node)
        return rj_fail(c, RIDGE_EINVAL, path, "bandwidth_bytes_per_s_per_node",
                       "give bandwidth per GPU or per node, not both");
    if (!has_gpu && !has_node)
        return rj_fail(c, RIDGE_EINVAL, path, "bandwidth_bytes_per_s_per_gpu",
                       "missing (or bandwidth_bytes_per_s_per_node)");
    cl->inter_bw_bytes_per_s_per_node = has_gpu ? per_gpu * cl->gpus_per_node : per_node;
    cl->inter_latency_s = inter_latency[kind];
    RJ_TRY(rj_number(o, path, "latency_s", 0, LAT_LO, LAT_HI, &cl->inter_latency_s, c));
    cl->inter_fraction = inter_fraction[kind];
    RJ_TRY(rj_number(o, path, "achievable_fraction", 0, 0.01, 1.0, &cl->inter_fraction, c));
    cl->has_inter = 1;
    return RIDGE_OK;
}

static int parse_sources(const cJSON *root, ridge_cluster *cl, const rj_ctx *c)
{
    const cJSON *o = NULL, *it;
    int n = 0;
    RJ_TRY(rj_object(root, "$", "sources", 0, &o, c));
    if (!o)
        return RIDGE_OK;
    for (it = o->child; it; it = it->next) {
        ridge_gpu_source *s = &cl->sources[n];
        if (n >= RIDGE_CLUSTER_MAX_SOURCES)
            return rj_fail(c, RIDGE_EINVAL, "$", "sources", "more than %d entries", RIDGE_CLUSTER_MAX_SOURCES);
        for (const cJSON *q = o->child; q != it; q = q->next)
            if (strcmp(q->string, it->string) == 0)
                return rj_fail(c, RIDGE_EINVAL, "$.sources", it->string, "duplicate key");
        if (strlen(it->string) >= sizeof s->key)
            return rj_fail(c, RIDGE_EINVAL, "$.sources", it->string, "key too long");
        if (!cJSON_IsString(it) || !it->valuestring || !it->valuestring[0])
            return rj_fail(c, RIDGE_EINVAL, "$.sources", it->string, "expected a non-empty string");
        if (strlen(it->valuestring) >= sizeof s->value)
            return rj_fail(c, RIDGE_EINVAL, "$.sources", it->string, "string longer than %zu bytes (UTF-8)",
                           sizeof s->value - 1);
        strcpy(s->key, it->string);
        strcpy(s->value, it->valuestring);
        n++;
    }
    cl->source_count = n;
    return RIDGE_OK;
}

static int parse_root(const cJSON *root, int nodes_override, ridge_cluster *cl, const rj_ctx *c)
{
    static const char *const keys[] = {"schema_version", "id",    "name",  "gpu",     "gpus_per_node",
                                       "nodes",          "intra", "inter", "sources", NULL};
    long v = 0;
    ridge_err gerr = {{0}};
    RJ_TRY(rj_check_keys(root, "$", keys, c));
    RJ_TRY(rj_int(root, "$", "schema_version", 1, 1, 1000, &v, c));
    if (v != 1)
        return rj_fail(c, RIDGE_EINVAL, "$", "schema_version", "%ld is not supported (this ridge reads 1)", v);
    RJ_TRY(rj_string(root, "$", "id", 1, cl->id, sizeof cl->id, c));
    for (const char *p = cl->id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '.'))
            return rj_fail(c, RIDGE_EINVAL, "$", "id", "'%s' may contain only a-z, 0-9, '-' and '.'", cl->id);
    RJ_TRY(rj_string(root, "$", "name", 1, cl->name, sizeof cl->name, c));
    RJ_TRY(rj_string(root, "$", "gpu", 1, cl->gpu_id, sizeof cl->gpu_id, c));
    if (strchr(cl->gpu_id, ':')) /* a MIG instance shares its GPU's links: no NVLink or NIC of its own */
        return rj_fail(c, RIDGE_EINVAL, "$", "gpu", "'%s' is a MIG instance; a cluster's GPUs are whole GPUs",
                       cl->gpu_id);
    if (ridge_catalog_load(cl->gpu_id, &cl->gpu, &gerr) != RIDGE_OK)
        return rj_fail(c, RIDGE_ENOTFOUND, "$", "gpu", "%s", gerr.msg);
    RJ_TRY(rj_int(root, "$", "gpus_per_node", 1, 1, 1024, &v, c));
    cl->gpus_per_node = (int)v;
    v = 1;
    RJ_TRY(rj_int(root, "$", "nodes", 0, 1, 1000000, &v, c));
    cl->nodes = nodes_override > 0 ? nodes_override : (int)v;
    RJ_TRY(parse_intra(root, cl, c));
    RJ_TRY(parse_inter(root, cl, c));
    if (cl->nodes > 1 && !cl->has_inter)
        return rj_fail(c, RIDGE_EINVAL, "$", "inter", "missing: %d nodes need an inter-node network", cl->nodes);
    RJ_TRY(parse_sources(root, cl, c));
    return RIDGE_OK;
}

int ridge_cluster_parse(const char *json, size_t len, const char *origin, int nodes_override, ridge_cluster *cl,
                        ridge_err *err)
{
    rj_ctx c = {origin ? origin : "<cluster>", err};
    cJSON *root = NULL;
    int rc;
    memset(cl, 0, sizeof *cl);
    if (!json)
        return ridge_err_set(err, RIDGE_EINVAL, "%s: no data", c.origin);
    if (nodes_override < 0 || nodes_override > 1000000)
        return ridge_err_set(err, RIDGE_EINVAL, "%s: node count %d is out of range 1..1000000", c.origin,
                             nodes_override);
    rc = rj_parse_object(json, len, &c, &root);
    if (rc != RIDGE_OK)
        return rc;
    rc = parse_root(root, nodes_override, cl, &c);
    cJSON_Delete(root);
    return rc;
}

size_t ridge_cluster_builtin_count(void)
{
    return ridge_cluster_count_;
}

const char *ridge_cluster_builtin_id(size_t i)
{
    return i < ridge_cluster_count_ ? ridge_cluster_files[i].name : NULL;
}

typedef struct {
    int nodes_override;
    ridge_cluster *cl;
} cluster_load_out;

static int parse_loaded(const char *text, size_t len, const char *path, void *out, ridge_err *err)
{
    cluster_load_out *o = out;
    return ridge_cluster_parse(text, len, path, o->nodes_override, o->cl, err);
}

int ridge_cluster_load(const char *id_or_path, int nodes_override, ridge_cluster *cl, ridge_err *err)
{
    char origin[96], near[160];
    if (!id_or_path || !*id_or_path)
        return ridge_err_set(err, RIDGE_EINVAL, "empty cluster id");
    if (ridge_file_is_path(id_or_path)) {
        cluster_load_out out = {nodes_override, cl};
        return ridge_file_load(id_or_path, parse_loaded, &out, err);
    }
    for (size_t i = 0; i < ridge_cluster_count_; i++) {
        if (strcmp(ridge_cluster_files[i].name, id_or_path) == 0) {
            snprintf(origin, sizeof origin, "builtin:%s", id_or_path);
            return ridge_cluster_parse(ridge_cluster_files[i].data, ridge_cluster_files[i].len, origin,
                                       nodes_override, cl, err);
        }
    }
    ridge_nearest_names(id_or_path, ridge_cluster_builtin_id, ridge_cluster_count_, near, sizeof near);
    return ridge_err_set(err, RIDGE_ENOTFOUND, "unknown cluster id '%s' (nearest: %s; 'ridge clusters' lists all)",
                         id_or_path, near);
}
