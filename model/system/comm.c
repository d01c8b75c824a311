/* Collective communication times: an alpha-beta model per tier (docs/comm.md, "Collectives").
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A tier is a latency alpha per step and an achievable bandwidth B = link x fraction x protocol
 * efficiency. A ring of n ranks over a buffer of S bytes takes
 *     all-reduce     base + 2(n-1) alpha + 2(n-1)/n S / B
 *     all-gather,
 *     reduce-scatter base +  (n-1) alpha +  (n-1)/n S / B
 * where alpha and B are those of the ring's slowest hop. Across nodes NCCL runs one ring per NIC,
 * so a node's network carries one GPU's worth of ring traffic in total: B = min(B_intra, B_node). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ridge/comm.h"

#include "attrs.h"
#include "comm_group.h"

static const ridge_name op_rows[] = {
    {"allreduce", RIDGE_COLL_ALLREDUCE}, {"allgather", RIDGE_COLL_ALLGATHER}, {"reducescatter", RIDGE_COLL_REDUCESCATTER},
    {"alltoall", RIDGE_COLL_ALLTOALL},   {"broadcast", RIDGE_COLL_BROADCAST}, {"sendrecv", RIDGE_COLL_SENDRECV}};
static const ridge_name algo_rows[] = {{"auto", RIDGE_ALGO_AUTO}, {"ring", RIDGE_ALGO_RING}, {"tree", RIDGE_ALGO_TREE},
                                       {"hierarchical", RIDGE_ALGO_HIERARCHICAL}, {"direct", RIDGE_ALGO_DIRECT}};
static const ridge_name proto_rows[] = {
    {"auto", RIDGE_PROTO_AUTO}, {"ll", RIDGE_PROTO_LL}, {"ll128", RIDGE_PROTO_LL128}, {"simple", RIDGE_PROTO_SIMPLE}};

RIDGE_NAMES_DEFINE(ridge_coll_op, op_rows, "?")
RIDGE_NAMES_DEFINE(ridge_coll_algo, algo_rows, "?")
RIDGE_NAMES_DEFINE(ridge_coll_proto, proto_rows, "?")

/* NCCL's three protocols (src/graph/tuning.cc, baseLat and hwLat, ring column):
 *   LL     8-byte stores of 4 data bytes + a 4-byte flag: no fences, the lowest step latency
 *          (hwLat ratio LL/Simple ~0.19 on NVLink, PCIe and network alike), but half the bytes
 *          are flags and NCCL caps LL's per-channel rate further: ~0.3 of Simple's bandwidth.
 *   LL128  128-byte lines with 8 flag bytes: 120/128 of the bandwidth, ~half Simple's step latency.
 *   Simple plain copies with fences: full bandwidth, the highest step latency (the tier's alpha).
 * Base latencies are NCCL's per-collective baseLat (ring) for each protocol. */
static const ridge_coll_proto_info proto_info[RIDGE_PROTO_COUNT] = {
    {0, 0, 0},
    {6.6e-6, 0.19, 0.30},
    {14.0e-6, 0.50, 120.0 / 128.0},
    {8.4e-6, 1.00, 1.00},
};

/* The algorithms each op has, one bit per ridge_coll_algo: ridge_coll_supports and the search of
 * ridge_collective_shaped read the same bits. */
static inline unsigned algo_mask(ridge_coll_op op)
{
    switch (op) {
    case RIDGE_COLL_ALLREDUCE: return 1u << RIDGE_ALGO_RING | 1u << RIDGE_ALGO_TREE | 1u << RIDGE_ALGO_HIERARCHICAL;
    case RIDGE_COLL_ALLGATHER:
    case RIDGE_COLL_REDUCESCATTER:
    case RIDGE_COLL_BROADCAST: return 1u << RIDGE_ALGO_RING;
    case RIDGE_COLL_ALLTOALL:
    case RIDGE_COLL_SENDRECV: return 1u << RIDGE_ALGO_DIRECT;
    default: return 0;
    }
}

/* ridge_coll_supports, inlined where the collectives are timed. */
static inline int supports(ridge_coll_op op, ridge_coll_algo a)
{
    return (unsigned)a < RIDGE_ALGO_COUNT && (algo_mask(op) >> a & 1u);
}

int ridge_coll_supports(ridge_coll_op op, ridge_coll_algo a)
{
    return supports(op, a);
}

const ridge_coll_proto_info *ridge_coll_proto_constants(ridge_coll_proto p)
{
    return p > RIDGE_PROTO_AUTO && p < RIDGE_PROTO_COUNT ? &proto_info[p] : NULL;
}

/* ridge_coll_busbw_factor, inlined in ridge_collective_shaped. */
static inline double busbw_factor(ridge_coll_op op, int gpus)
{
    double n = gpus;
    if (gpus < 1)
        return 0;
    switch (op) {
    case RIDGE_COLL_ALLREDUCE: return 2.0 * (n - 1) / n;
    case RIDGE_COLL_ALLGATHER:
    case RIDGE_COLL_REDUCESCATTER:
    case RIDGE_COLL_ALLTOALL: return (n - 1) / n;
    default: return 1.0;
    }
}

double ridge_coll_busbw_factor(ridge_coll_op op, int gpus)
{
    return busbw_factor(op, gpus);
}

static void make_shape(const ridge_cluster *cl, double inter_bw, int n, int m, shape *s)
{
    s->m = m;
    s->k = n / m;
    s->dn = n;
    s->dm = m;
    s->dk = s->k;
    s->link = cl->intra_kind == RIDGE_INTRA_NVSWITCH || cl->intra_kind == RIDGE_INTRA_NVLINK_BRIDGE ? "nvlink" : "pcie";
    s->link_share = cl->intra_bw_bytes_per_s * cl->intra_fraction;
    s->pcie_share = cl->intra_pcie_bw_bytes_per_s * cl->intra_fraction;
    s->node_share = inter_bw * cl->inter_fraction;
}

static void make_tiers(const ridge_cluster *cl, const shape *s, ridge_coll_proto p, tiers *t)
{
    const ridge_coll_proto_info *pi = &proto_info[p];
    t->base = pi->base_latency_s;
    t->a_intra = cl->intra_latency_s * pi->step_latency_factor;
    t->a_inter = cl->inter_latency_s * pi->step_latency_factor;
    t->b_link = s->link_share * pi->bw_efficiency;
    t->b_pcie = s->pcie_share * pi->bw_efficiency;
    t->b_ring = t->b_link;
    t->ring_bound = s->link;
    /* A ring through bridged pairs alternates bridge and PCIe hops once it has more than one pair. */
    if (cl->intra_kind == RIDGE_INTRA_NVLINK_BRIDGE && s->k > 2 && t->b_pcie < t->b_link) {
        t->b_ring = t->b_pcie;
        t->ring_bound = "pcie";
    }
    t->b_node = s->node_share * pi->bw_efficiency;
    /* the flat ring: inside a node its slowest hop; across nodes the slower step and the network
     * where that is the narrower (or the only) way */
    t->alpha = t->a_intra;
    t->beta = t->b_ring;
    t->bound = t->ring_bound;
    if (s->m > 1) {
        t->alpha = s->k > 1 && t->a_intra > t->a_inter ? t->a_intra : t->a_inter;
        if (s->k == 1 || t->b_node < t->b_ring) {
            t->beta = t->b_node;
            t->bound = "network";
        }
    }
}

static int ceil_log2(int m)
{
    int d = 0;
    while ((1 << d) < m)
        d++;
    return d;
}

/* One candidate: an algorithm on one protocol, its latency and bandwidth terms and the link that
 * bounds it. */
typedef struct {
    int algo;
    double lat, bw;
    const char *bound;
} cand;

/* A search for the fastest candidate (fastest): the best so far, of protocol proto, in time; the
 * protocol whose candidates eval offers now. */
typedef struct {
    cand best;
    int proto, p;
    double time;
} search;

/* A candidate to the search: it wins only when it is faster (the first finite time beats
 * HUGE_VAL). Inlined: a search read for its time alone keeps no candidate. */
RIDGE_ALWAYS_INLINE
static inline void offer(search *sr, int algo, double lat, double bw, const char *bound)
{
    double time = lat + bw;
    if (time < sr->time && isfinite(time)) {
        sr->best.algo = algo;
        sr->best.lat = lat;
        sr->best.bw = bw;
        sr->best.bound = bound;
        sr->proto = sr->p;
        sr->time = time;
    }
}

/* The candidates of op on one protocol's tiers, offered to sr in algorithm order, among `algos`
 * (bits of algo_mask(op), one or more; an all-reduce has up to 3). */
RIDGE_ALWAYS_INLINE
static inline void eval(const ridge_cluster *cl, ridge_coll_op op, double S, const shape *s, const tiers *t,
                        unsigned algos, search *sr)
{
    double n = s->dn, k = s->dk, m = s->dm, alpha = t->alpha, beta = t->beta, lat = t->base;
    switch (op) {
    case RIDGE_COLL_ALLREDUCE:
        if (algos & 1u << RIDGE_ALGO_RING) {
            offer(sr, RIDGE_ALGO_RING, lat + 2 * (n - 1) * alpha, 2 * (n - 1) / n * S / beta, t->bound);
        }
        if (algos & 1u << RIDGE_ALGO_TREE) {
            /* NCCL: a chain inside each node, a double binary tree across nodes; latency
             * 2((k-1) a_intra + log2(m) a_inter); reduce up and broadcast down each move S, which
             * NCCL's tuning counts as algbw = B / 2 (ratio 0.5). */
            offer(sr, RIDGE_ALGO_TREE, lat + 2 * ((k - 1) * t->a_intra + ceil_log2(s->m) * t->a_inter), 2 * S / beta,
                  t->bound);
        }
        if (algos & 1u << RIDGE_ALGO_HIERARCHICAL) {
            /* Reduce-scatter in the node (ring of k), all-reduce of S/k across the m nodes (k
             * rings at once, each GPU on its share of the network), all-gather in the node. */
            double b_gpu_net = t->b_node / k, bw = 2 * (k - 1) / k * S / t->b_ring;
            const char *bound = t->ring_bound;
            lat += 2 * (k - 1) * t->a_intra;
            if (s->m > 1) {
                double net = 2 * (m - 1) / m * (S / k) / b_gpu_net;
                lat += 2 * (m - 1) * t->a_inter;
                if (net > bw)
                    bound = "network";
                bw += net;
            }
            offer(sr, RIDGE_ALGO_HIERARCHICAL, lat, bw, bound);
        }
        return;
    case RIDGE_COLL_ALLGATHER: /* timed alike (rc_coll_timed_as) */
    case RIDGE_COLL_REDUCESCATTER:
        offer(sr, RIDGE_ALGO_RING, lat + (n - 1) * alpha, (n - 1) / n * S / beta, t->bound);
        return;
    case RIDGE_COLL_BROADCAST:
        /* A pipelined chain: the first chunk pays n-1 steps, then the stream runs at B. */
        offer(sr, RIDGE_ALGO_RING, lat + (n - 1) * alpha, S / beta, t->bound);
        return;
    case RIDGE_COLL_SENDRECV:
        /* nccl-tests sendrecv: every rank sends S to the next and receives from the previous. */
        offer(sr, RIDGE_ALGO_DIRECT, lat + alpha, S / beta, t->bound);
        return;
    case RIDGE_COLL_ALLTOALL: {
        /* S/n to every peer, all at once; NCCL issues the n-1 exchanges in rounds of one step. */
        double t_intra = 0, t_pcie = 0, t_net = 0, bw;
        const char *bound = t->ring_bound;
        if (cl->intra_kind == RIDGE_INTRA_NVLINK_BRIDGE) {
            t_intra = (k > 1 ? 1 : 0) * S / n / t->b_link;
            t_pcie = (k > 2 ? k - 2 : 0) * S / n / t->b_pcie;
        } else {
            t_intra = (k - 1) * S / n / t->b_link;
        }
        if (s->m > 1)
            t_net = k * (n - k) * S / n / t->b_node;
        bw = t_intra;
        if (cl->intra_kind == RIDGE_INTRA_NVLINK_BRIDGE)
            bound = "nvlink";
        if (t_pcie > bw) {
            bw = t_pcie;
            bound = "pcie";
        }
        if (t_net > bw) {
            bw = t_net;
            bound = "network";
        }
        offer(sr, RIDGE_ALGO_DIRECT, lat + (n - 1) * alpha, bw, bound);
        return;
    }
    default: return;
    }
}

int ridge_collective(const ridge_cluster *cl, ridge_coll_op op, double bytes, int gpus, ridge_coll_algo algo,
                     ridge_coll_proto proto, ridge_coll_result *r, ridge_err *err)
{
    if (!cl || !r)
        return ridge_err_set(err, RIDGE_EINVAL, "no cluster or result");
    return ridge_collective_shaped(cl, cl->gpus_per_node, cl->nodes, cl->inter_bw_bytes_per_s_per_node, op, bytes,
                                   gpus, algo, proto, r, err);
}

/* ridge_collective_shaped's checks past its pointers, in its order: the first that fails with its
 * message, else RIDGE_OK. */
static int check(const ridge_cluster *cl, int gpus_per_node, int nodes, ridge_coll_op op, double bytes, int gpus,
                 ridge_coll_algo algo, ridge_coll_proto proto, ridge_err *err)
{
    if ((unsigned)op >= RIDGE_COLL_COUNT || (unsigned)algo >= RIDGE_ALGO_COUNT || (unsigned)proto >= RIDGE_PROTO_COUNT)
        return ridge_err_set(err, RIDGE_EINVAL, "operation, algorithm or protocol out of range");
    if (!(bytes >= 1 && bytes <= 1e15))
        return ridge_err_set(err, RIDGE_EINVAL, "message size %g bytes is out of range 1..1e15", bytes);
    if (gpus < 2)
        return ridge_err_set(err, RIDGE_EINVAL, "a collective needs at least 2 GPUs, not %d", gpus);
    if ((long)gpus > (long)gpus_per_node * nodes)
        return ridge_err_set(err, RIDGE_EINVAL,
                             "%d GPUs exceed cluster '%s' (%d node%s x %d GPUs; cluster.nodes scales it)", gpus,
                             cl->id, nodes, nodes == 1 ? "" : "s", gpus_per_node);
    if (gpus > gpus_per_node && gpus % gpus_per_node != 0)
        return ridge_err_set(err, RIDGE_EINVAL, "%d GPUs span nodes but are not a multiple of %d GPUs per node", gpus,
                             gpus_per_node);
    if (algo != RIDGE_ALGO_AUTO && !supports(op, algo))
        return ridge_err_set(err, RIDGE_EUNSUPPORTED, "%s has no '%s' algorithm", ridge_coll_op_name(op),
                             ridge_coll_algo_name(algo));
    return RIDGE_OK;
}

/* The protocols a search over proto tries, one bit each: proto, or (AUTO) all, but LL128 where
 * not every GPU pair talks over NVLink (NCCL enables it by default only there). */
static unsigned protos_tried(const ridge_cluster *cl, ridge_coll_proto proto)
{
    unsigned all = ((1u << RIDGE_PROTO_COUNT) - 1) & ~(1u << RIDGE_PROTO_AUTO);
    if (proto != RIDGE_PROTO_AUTO)
        return 1u << proto;
    return cl->intra_kind == RIDGE_INTRA_NVSWITCH ? all : all & ~(1u << RIDGE_PROTO_LL128);
}

/* Each tried protocol's tiers (protos: protos_tried's bits), into t[protocol]. */
static void make_all_tiers(const ridge_cluster *cl, const shape *sh, unsigned protos, tiers *t)
{
    for (int p = RIDGE_PROTO_LL; p < RIDGE_PROTO_COUNT; p++)
        if (protos >> p & 1u)
            make_tiers(cl, sh, (ridge_coll_proto)p, &t[p]);
}

/* The fastest candidate of op on S bytes among `algos` over the protocols `protos` (protos_tried's
 * bits; their tiers t[protocol]), into sr: the candidates in order, protocol then algorithm; a
 * later one wins only when it is faster (offer). EUNSUPPORTED when none has a finite time.
 * Inlined in each caller (a caller that reads the time alone keeps no candidate). */
RIDGE_ALWAYS_INLINE
static inline int fastest(const ridge_cluster *cl, ridge_coll_op op, double S, const shape *sh, const tiers *t,
                          unsigned algos, unsigned protos, search *sr, ridge_err *err)
{
    sr->best.algo = RIDGE_ALGO_AUTO;
    sr->best.lat = sr->best.bw = 0;
    sr->best.bound = NULL;
    sr->proto = RIDGE_PROTO_AUTO;
    sr->time = HUGE_VAL; /* none found while it is */
    for (int p = RIDGE_PROTO_LL; p < RIDGE_PROTO_COUNT; p++)
        if (protos >> p & 1u) {
            sr->p = p;
            eval(cl, op, S, sh, &t[p], algos, sr);
        }
    if (sr->proto == RIDGE_PROTO_AUTO)
        return ridge_err_set(err, RIDGE_EUNSUPPORTED, "no algorithm for %s on cluster '%s'", ridge_coll_op_name(op),
                             cl->id);
    return RIDGE_OK;
}

int ridge_collective_shaped(const ridge_cluster *cl, int gpus_per_node, int nodes,
                            double inter_bw_bytes_per_s_per_node, ridge_coll_op op, double bytes, int gpus,
                            ridge_coll_algo algo, ridge_coll_proto proto, ridge_coll_result *r, ridge_err *err)
{
    int m, st;
    unsigned algos, protos;
    search sr;
    shape sh;
    tiers t[RIDGE_PROTO_COUNT];
    if (!cl || !r)
        return ridge_err_set(err, RIDGE_EINVAL, "no cluster or result");
    if ((st = check(cl, gpus_per_node, nodes, op, bytes, gpus, algo, proto, err)) != RIDGE_OK)
        return st;
    m = gpus > gpus_per_node ? gpus / gpus_per_node : 1;
    make_shape(cl, inter_bw_bytes_per_s_per_node, gpus, m, &sh);
    algos = algo_mask(op);
    if (algo != RIDGE_ALGO_AUTO)
        algos &= 1u << algo;
    protos = protos_tried(cl, proto);
    make_all_tiers(cl, &sh, protos, t);
    if ((st = fastest(cl, op, bytes, &sh, t, algos, protos, &sr, err)) != RIDGE_OK)
        return st;
    r->op = op;
    r->algo = (ridge_coll_algo)sr.best.algo;
    r->proto = (ridge_coll_proto)sr.proto;
    r->gpus = gpus;
    r->nodes = m;
    r->gpus_per_node = sh.k;
    r->bytes = bytes;
    r->time_s = sr.time;
    r->latency_s = sr.best.lat;
    r->bandwidth_s = sr.best.bw;
    r->alg_bw_bytes_per_s = bytes / sr.time;
    r->bus_bw_bytes_per_s = r->alg_bw_bytes_per_s * busbw_factor(op, gpus);
    r->bound = sr.best.bound;
    return RIDGE_OK;
}

void rc_coll_group_init(const ridge_cluster *cl, int gpus_per_node, int nodes, double inter_bw, int gpus,
                        rc_coll_group *g)
{
    g->cl = cl;
    g->gpus_per_node = gpus_per_node;
    g->nodes = nodes;
    g->gpus = gpus;
    g->ok = gpus >= 2 && (long)gpus <= (long)gpus_per_node * nodes &&
            !(gpus > gpus_per_node && gpus % gpus_per_node != 0);
    if (!g->ok)
        return;
    make_shape(cl, inter_bw, gpus, gpus > gpus_per_node ? gpus / gpus_per_node : 1, &g->sh);
    g->protos = protos_tried(cl, RIDGE_PROTO_AUTO);
    make_all_tiers(cl, &g->sh, g->protos, g->t);
}

int rc_coll_group_time(const rc_coll_group *g, ridge_coll_op op, double bytes, double *time_s, ridge_err *err)
{
    int st;
    search sr;
    if ((unsigned)op >= RIDGE_COLL_COUNT || !(bytes >= 1 && bytes <= 1e15) || !g->ok) /* one of them fails */
        return check(g->cl, g->gpus_per_node, g->nodes, op, bytes, g->gpus, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO, err);
    if ((st = fastest(g->cl, op, bytes, &g->sh, g->t, algo_mask(op), g->protos, &sr, err)) != RIDGE_OK)
        return st;
    *time_s = sr.time;
    return RIDGE_OK;
}
