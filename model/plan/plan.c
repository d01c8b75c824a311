/* ridge — capacity planning: the memo, the per-configuration arithmetic, ranking and Pareto
 * fronts (docs/planning.md). SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include "ridge/plan.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ridge/comm.h"
#include "ridge/parallel.h"
#include "ridge/schedule.h"

/* The synthetic fabric a data-parallel group runs on (docs/planning.md, "Communication"). */
#define PLAN_GPUS_PER_NODE 8
#define PLAN_INTER_BW_PER_GPU 25e9 /* bytes/s per GPU per direction: one 200 Gb/s NIC per GPU */

typedef struct {
    ridge_plan_reason reason; /* FEASIBLE, UNSUPPORTED, INVALID or OOM */
    double step_s;
    double backward_s; /* the backward pass the gradient buckets hide behind */
    double compute_s;
    double memory_bytes;
    double items; /* target units one GPU processes per step */
    double by_bound_s[RIDGE_BOUND_COUNT];
} plan_step;

struct ridge_plan {
    ridge_plan_spec spec; /* arrays point at the copies below */
    ridge_gpu *gpus;
    double *prices;
    ridge_dtype *precisions;
    int *counts;
    double *batches;
    plan_step *steps; /* [gpu][prec][recompute][batch] */
    double *comm_s;   /* [gpu][prec][count]: the whole gradient all-reduce */
    double *bucket_s; /* [gpu][prec][count]: one bucket's all-reduce */
    double *buckets;  /* [gpu][prec]: buckets of the gradient */
    int *tps, *pps, *zeros; /* parallelism ranges ({1}, {1}, {0} by default) */
    ridge_recompute *recomputes; /* the searched dimensions ({run.recompute}, {0}, {1}, {0} by default) */
    int *sps, *vstages;
    double *global_batches;     /* {0}: none listed (global batch = batch x dp x pp) */
    ridge_cluster *cluster;     /* the spec's fabric, or NULL: derived per GPU */
    int parallel;     /* 1: a range differs from the default; eval runs ridge_parallel_predict */
    double tokens_per_sample;
    size_t size;
};

static const ridge_name objective_rows[] = {
    {"cost", RIDGE_PLAN_COST}, {"time", RIDGE_PLAN_TIME}, {"energy", RIDGE_PLAN_ENERGY}, {"gpus", RIDGE_PLAN_GPUS}};
static const char *const reason_names[] = {"feasible",    "unsupported precision", "invalid run", "out of memory",
                                           "no price",    "misses deadline",       "over budget", "over power cap",
                                           "SLO unreachable", "invalid parallel layout"};
static const char *const reason_keys[] = {"feasible", "unsupported_precision", "invalid_run", "out_of_memory",
                                          "no_price", "misses_deadline",       "over_budget", "over_power_cap",
                                          "slo_unreachable", "invalid_parallel_layout"};

RIDGE_NAMES_DEFINE(ridge_plan_objective, objective_rows, "?")

const char *ridge_plan_reason_name(ridge_plan_reason r)
{
    return (unsigned)r < RIDGE_PLAN_REASON_COUNT ? reason_names[r] : "?";
}

const char *ridge_plan_reason_key(ridge_plan_reason r)
{
    return (unsigned)r < RIDGE_PLAN_REASON_COUNT ? reason_keys[r] : "?";
}

void ridge_plan_spec_init(ridge_plan_spec *s)
{
    memset(s, 0, sizeof *s);
    ridge_run_config_init(&s->run);
    s->runtime = RIDGE_RUNTIME_EAGER;
    s->objective = RIDGE_PLAN_COST;
    s->threads = 1;
}

double ridge_plan_power_w(double tdp_w, double utilisation)
{
    double idle = RIDGE_PLAN_IDLE_FRACTION * tdp_w;
    if (utilisation < 0)
        utilisation = 0;
    if (utilisation > 1)
        utilisation = 1;
    return idle + utilisation * (tdp_w - idle);
}

size_t ridge_plan_size(const ridge_plan *p)
{
    return p ? p->size : 0;
}

const ridge_plan_spec *ridge_plan_get_spec(const ridge_plan *p)
{
    return &p->spec;
}

int ridge_plan_is_parallel(const ridge_plan *p)
{
    return p ? p->parallel : 0;
}

void ridge_plan_free(ridge_plan *p)
{
    if (!p)
        return;
    free(p->gpus);
    free(p->prices);
    free(p->precisions);
    free(p->counts);
    free(p->batches);
    free(p->steps);
    free(p->comm_s);
    free(p->bucket_s);
    free(p->buckets);
    free(p->tps);
    free(p->pps);
    free(p->zeros);
    free(p->recomputes);
    free(p->sps);
    free(p->vstages);
    free(p->global_batches);
    free(p->cluster);
    free(p);
}

/* ---- the memo ---- */

typedef struct {
    const ridge_plan *p;
    size_t first, n, stride; /* entries first, first + stride, ... (n of them) */
    double tokens_per_sample;
} memo_job;

static void memo_step(const ridge_plan *p, size_t k, double tokens_per_sample, plan_step *s)
{
    const ridge_plan_spec *sp = &p->spec;
    size_t nb = sp->nbatches, np = sp->nprecisions, nr = sp->nrecomputes;
    size_t g = k / (np * nr * nb), pr = k / (nr * nb) % np, q = k / nb % nr, b = k % nb;
    const ridge_gpu *gpu = &p->gpus[g];
    ridge_run_config rc = sp->run;
    ridge_memory mem;
    ridge_oplist ops;
    ridge_schedule_totals tot;
    ridge_op_result *res = NULL;
    ridge_err err;
    int st;

    memset(s, 0, sizeof *s);
    rc.precision = p->precisions[pr];
    rc.batch = p->batches[b];
    rc.recompute = p->recomputes[q];
    s->items = sp->target_kind == RIDGE_PLAN_TARGET_TOKENS ? rc.batch * tokens_per_sample : rc.batch;
    if (ridge_kernel_peak_for(gpu, rc.precision, 1) < 0 && ridge_kernel_peak_for(gpu, rc.precision, 0) < 0) {
        s->reason = RIDGE_PLAN_UNSUPPORTED;
        return;
    }
    if (ridge_model_memory(sp->model, &rc, &mem, &err) != RIDGE_OK) {
        s->reason = RIDGE_PLAN_INVALID;
        return;
    }
    s->memory_bytes = mem.total_bytes;
    /* Out of memory is decided before scheduling: it saves the build of a graph nobody runs. */
    if (mem.total_bytes > gpu->memory_bytes) {
        s->reason = RIDGE_PLAN_OOM;
        return;
    }
    memset(&ops, 0, sizeof ops);
    st = ridge_model_build(sp->model, &rc, &ops, &err);
    if (st == RIDGE_OK && !(res = calloc(ops.n ? ops.n : 1, sizeof *res)))
        st = RIDGE_ENOMEM;
    if (st == RIDGE_OK)
        st = ridge_schedule_ops(gpu, ops.ops, ops.n, sp->runtime, res, &tot, &err);
    if (st == RIDGE_OK) {
        /* The backward as ridge_parallel_predict counts it: the step less its forward and optimizer. */
        double f, bw, o;
        ridge_parallel_step_split(&ops, res, &f, &bw, &o);
        s->backward_s = tot.total_time_s - o - f;
    }
    free(res);
    ridge_oplist_free(&ops);
    if (st != RIDGE_OK) {
        s->reason = st == RIDGE_EUNSUPPORTED ? RIDGE_PLAN_UNSUPPORTED : RIDGE_PLAN_INVALID;
        return;
    }
    s->reason = RIDGE_PLAN_FEASIBLE;
    s->step_s = tot.total_time_s;
    s->compute_s = tot.time_by_bound_s[RIDGE_BOUND_COMPUTE];
    memcpy(s->by_bound_s, tot.time_by_bound_s, sizeof s->by_bound_s);
}

/* Run fn on jobs[0..n) (job_size bytes apart), each on a thread of its own (tid[1..n)); job 0,
 * and the jobs whose thread did not start, run on this thread. Each job writes only its own
 * block, so the results are those of one thread whatever starts. */
static void fan_out(void *(*fn)(void *), void *jobs, size_t job_size, int n, pthread_t *tid)
{
    char *j = jobs;
    int started = 0;
    for (int t = 1; t < n; t++) {
        if (pthread_create(&tid[t], NULL, fn, j + (size_t)t * job_size) != 0)
            break;
        started = t;
    }
    fn(j);
    for (int t = started + 1; t < n; t++)
        fn(j + (size_t)t * job_size);
    for (int t = 1; t <= started; t++)
        pthread_join(tid[t], NULL);
}

static void *memo_thread(void *arg)
{
    memo_job *j = arg;
    for (size_t i = 0, k = j->first; i < j->n; i++, k += j->stride)
        memo_step(j->p, k, j->tokens_per_sample, &j->p->steps[k]);
    return NULL;
}

/* A one-tier-per-level fabric from the GPU's own links: NVSwitch, NVLink bridges or PCIe
 * inside a node of 8, InfiniBand at 25 GB/s per GPU between nodes. MIG slices get PCIe
 * (instances do not talk over NVLink). */
static void plan_cluster(const ridge_gpu *g, int nodes, ridge_cluster *cl)
{
    memset(cl, 0, sizeof *cl);
    snprintf(cl->id, sizeof cl->id, "plan-%.40s", g->id);
    snprintf(cl->gpu_id, sizeof cl->gpu_id, "%s", g->id);
    cl->gpu = *g;
    cl->gpus_per_node = PLAN_GPUS_PER_NODE;
    cl->nodes = nodes;
    cl->intra_pcie_bw_bytes_per_s = ridge_gpu_pcie_bw_bytes_per_s(g);
    if (!g->mig_of[0] && g->nvlink_bw_bytes_per_s > 0 && strcmp(g->nvlink_kind, "bridge") == 0) {
        cl->intra_kind = RIDGE_INTRA_NVLINK_BRIDGE;
        cl->intra_bw_bytes_per_s = g->nvlink_bw_bytes_per_s;
    } else if (!g->mig_of[0] && g->nvlink_bw_bytes_per_s > 0) {
        cl->intra_kind = RIDGE_INTRA_NVSWITCH;
        cl->intra_bw_bytes_per_s = g->nvlink_bw_bytes_per_s;
    } else {
        cl->intra_kind = RIDGE_INTRA_PCIE_HOST;
        cl->intra_bw_bytes_per_s = cl->intra_pcie_bw_bytes_per_s;
    }
    cl->intra_latency_s = ridge_intra_default_latency_s(cl->intra_kind);
    cl->intra_fraction = ridge_intra_default_fraction(cl->intra_kind);
    cl->has_inter = 1;
    cl->inter_kind = RIDGE_INTER_INFINIBAND;
    cl->inter_bw_bytes_per_s_per_node = PLAN_INTER_BW_PER_GPU * PLAN_GPUS_PER_NODE;
    cl->inter_latency_s = ridge_inter_default_latency_s(cl->inter_kind);
    cl->inter_fraction = ridge_inter_default_fraction(cl->inter_kind);
}

/* GPUs per node of the plan's fabric: the cluster's, or 8. */
static int plan_node_gpus(const ridge_plan *p)
{
    return p->cluster ? p->cluster->gpus_per_node : PLAN_GPUS_PER_NODE;
}

static int plan_comm(ridge_plan *p, ridge_err *err)
{
    const ridge_plan_spec *sp = &p->spec;
    int maxc = 1, nodes, per_node = plan_node_gpus(p);
    ridge_cluster *cl;
    for (size_t c = 0; c < sp->ncounts; c++)
        if (p->counts[c] > maxc)
            maxc = p->counts[c];
    nodes = (maxc + per_node - 1) / per_node;
    cl = malloc(sizeof *cl);
    if (!cl)
        return ridge_err_set(err, RIDGE_ENOMEM, "plan: out of memory");
    for (size_t g = 0; g < sp->ngpus; g++) {
        if (p->cluster) { /* the cluster's fabric, with as many nodes as the largest count needs */
            *cl = *p->cluster;
            cl->gpu = p->gpus[g];
            cl->nodes = nodes;
        } else
            plan_cluster(&p->gpus[g], nodes, cl);
        for (size_t pr = 0; pr < sp->nprecisions; pr++) {
            ridge_run_config rc = sp->run;
            ridge_memory mem;
            double bytes = 0;
            rc.precision = p->precisions[pr];
            rc.batch = 1;
            /* The gradient in the parameter dtype, as ridge_parallel_predict reduces it. */
            if (ridge_model_memory(sp->model, &rc, &mem, err) == RIDGE_OK)
                bytes = ridge_model_params_for(sp->model, &rc) *
                        (rc.precision == RIDGE_DTYPE_FP16 || rc.precision == RIDGE_DTYPE_BF16 ||
                                 rc.precision == RIDGE_DTYPE_FP8
                             ? 2
                             : 4);
            p->buckets[g * sp->nprecisions + pr] = bytes > 0 ? ceil(bytes / RIDGE_DP_BUCKET_BYTES) : 1;
            for (size_t c = 0; c < sp->ncounts; c++) {
                int n = p->counts[c];
                ridge_coll_result cr;
                double t = 0, tb = 0;
                /* Beyond one node the collective needs whole nodes: round the group up. */
                if (n > per_node && n % per_node)
                    n += per_node - n % per_node;
                if (n > 1 && bytes > 0 && sp->run.mode == RIDGE_MODE_TRAIN && !sp->no_comm &&
                    ridge_collective(cl, RIDGE_COLL_ALLREDUCE, bytes, n, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO, &cr,
                                     err) == RIDGE_OK)
                    t = cr.time_s;
                if (t > 0 && ridge_collective(cl, RIDGE_COLL_ALLREDUCE, bytes < RIDGE_DP_BUCKET_BYTES ? bytes
                                                                                                   : RIDGE_DP_BUCKET_BYTES,
                                              n, RIDGE_ALGO_AUTO, RIDGE_PROTO_AUTO, &cr, err) == RIDGE_OK)
                    tb = cr.time_s;
                p->comm_s[(g * sp->nprecisions + pr) * sp->ncounts + c] = t;
                p->bucket_s[(g * sp->nprecisions + pr) * sp->ncounts + c] = tb;
            }
        }
    }
    free(cl);
    return RIDGE_OK;
}

static int dup_array(void **dst, const void *src, size_t n, size_t size)
{
    *dst = malloc(n > 0 ? n * size : 1);
    if (!*dst)
        return -1;
    if (n)
        memcpy(*dst, src, n * size);
    return 0;
}

/* The searched dimensions and the cluster of a spec. */
static int dims_check(const ridge_plan_spec *spec, ridge_err *err)
{
    if (spec->nrecomputes > RIDGE_PLAN_MAX_DIM || spec->nsps > RIDGE_PLAN_MAX_DIM ||
        spec->nvstages > RIDGE_PLAN_MAX_DIM || spec->nglobal_batches > RIDGE_PLAN_MAX_DIM)
        return ridge_err_set(err, RIDGE_EINVAL, "plan: a list has more than %d entries", RIDGE_PLAN_MAX_DIM);
    if ((spec->nrecomputes && !spec->recomputes) || (spec->nsps && !spec->sps) || (spec->nvstages && !spec->vstages) ||
        (spec->nglobal_batches && !spec->global_batches))
        return ridge_err_set(err, RIDGE_EINVAL, "plan: a searched dimension has entries but no array");
    for (size_t i = 0; i < spec->nrecomputes; i++)
        if ((unsigned)spec->recomputes[i] > RIDGE_RECOMPUTE_FULL)
            return ridge_err_set(err, RIDGE_EINVAL, "plan: recomputes: %d is not none, selective or full",
                                 (int)spec->recomputes[i]);
    for (size_t i = 0; i < spec->nsps; i++)
        if (spec->sps[i] != 0 && spec->sps[i] != 1)
            return ridge_err_set(err, RIDGE_EINVAL, "plan: sp: %d is not 0 or 1", spec->sps[i]);
    for (size_t i = 0; i < spec->nvstages; i++)
        if (spec->vstages[i] < 1 || spec->vstages[i] > 64)
            return ridge_err_set(err, RIDGE_EINVAL, "plan: virtual stages: %d is not in [1, 64]", spec->vstages[i]);
    for (size_t i = 0; i < spec->nglobal_batches; i++)
        if (!(spec->global_batches[i] >= 1 && spec->global_batches[i] <= 1e9 &&
              spec->global_batches[i] == floor(spec->global_batches[i])))
            return ridge_err_set(err, RIDGE_EINVAL, "plan: global batches: %g is not an integer in [1, 1e9]",
                                 spec->global_batches[i]);
    if ((spec->nsps || spec->nvstages || spec->nglobal_batches) && spec->run.mode != RIDGE_MODE_TRAIN)
        return ridge_err_set(err, RIDGE_EINVAL, "plan: sps, vstages and global_batches need run.mode \"train\"");
    if (spec->cluster && (spec->ngpus != 1 || strcmp(spec->gpus[0].id, spec->cluster->gpu.id) != 0))
        return ridge_err_set(err, RIDGE_EINVAL, "plan: cluster %s has %s GPUs: the GPU list must be that GPU alone",
                             spec->cluster->id, spec->cluster->gpu.id);
    if (spec->cluster && spec->cluster->gpus_per_node < 1)
        return ridge_err_set(err, RIDGE_EINVAL, "plan: cluster %s: no GPUs per node", spec->cluster->id);
    return RIDGE_OK;
}

/* The checks of a spec that need no memo; *tokens_per_sample for a target in tokens. */
static int spec_check(const ridge_plan_spec *spec, double *tokens_per_sample, ridge_err *err)
{
    int st;
    if (!spec->model)
        return ridge_err_set(err, RIDGE_EINVAL, "plan: no workload");
    if (!spec->ngpus || !spec->nprecisions || !spec->ncounts || !spec->nbatches)
        return ridge_err_set(err, RIDGE_EINVAL, "plan: %s is empty",
                             !spec->ngpus         ? "the GPU list"
                             : !spec->nprecisions ? "the precision list"
                             : !spec->ncounts     ? "the count list"
                                                  : "the batch list");
    if (spec->ngpus > RIDGE_PLAN_MAX_DIM || spec->nprecisions > RIDGE_PLAN_MAX_DIM ||
        spec->ncounts > RIDGE_PLAN_MAX_DIM || spec->nbatches > RIDGE_PLAN_MAX_DIM)
        return ridge_err_set(err, RIDGE_EINVAL, "plan: a list has more than %d entries", RIDGE_PLAN_MAX_DIM);
    for (size_t i = 0; i < spec->ncounts; i++)
        if (spec->counts[i] < 1 || spec->counts[i] > 1000000)
            return ridge_err_set(err, RIDGE_EINVAL, "plan: counts: %d is not in [1, 1000000]", spec->counts[i]);
    for (size_t i = 0; i < spec->nbatches; i++)
        if (!(spec->batches[i] >= 1 && spec->batches[i] <= 1e7))
            return ridge_err_set(err, RIDGE_EINVAL, "plan: batches: %g is not in [1, 1e7]", spec->batches[i]);
    if (spec->run.grad_accum > 1)
        return ridge_err_set(err, RIDGE_EINVAL, "plan: run.grad_accum is not swept; give the batch per step in batches");
    if (!(spec->target > 0 && isfinite(spec->target)))
        return ridge_err_set(err, RIDGE_EINVAL, "plan: the target (samples or tokens) must be > 0");
    if (!(spec->deadline_s >= 0) || !(spec->budget_usd >= 0) || !(spec->power_cap_w >= 0))
        return ridge_err_set(err, RIDGE_EINVAL, "plan: deadline, budget and power cap must be >= 0");
    if (spec->ntps > RIDGE_PLAN_MAX_DIM || spec->npps > RIDGE_PLAN_MAX_DIM || spec->nzeros > RIDGE_PLAN_MAX_DIM)
        return ridge_err_set(err, RIDGE_EINVAL, "plan: a list has more than %d entries", RIDGE_PLAN_MAX_DIM);
    if ((spec->ntps && !spec->tps) || (spec->npps && !spec->pps) || (spec->nzeros && !spec->zeros))
        return ridge_err_set(err, RIDGE_EINVAL, "plan: a parallelism list has entries but no array");
    for (size_t i = 0; i < spec->ntps; i++)
        if (spec->tps[i] < 1 || spec->tps[i] > 1024)
            return ridge_err_set(err, RIDGE_EINVAL, "plan: tp: %d is not in [1, 1024]", spec->tps[i]);
    for (size_t i = 0; i < spec->npps; i++)
        if (spec->pps[i] < 1 || spec->pps[i] > 1024)
            return ridge_err_set(err, RIDGE_EINVAL, "plan: pp: %d is not in [1, 1024]", spec->pps[i]);
    for (size_t i = 0; i < spec->nzeros; i++)
        if (spec->zeros[i] < 0 || spec->zeros[i] > 3)
            return ridge_err_set(err, RIDGE_EINVAL, "plan: zero: %d is not in [0, 3]", spec->zeros[i]);
    if ((unsigned)spec->objective >= RIDGE_PLAN_OBJECTIVE_COUNT)
        return ridge_err_set(err, RIDGE_EINVAL, "plan: unknown objective");
    if ((st = dims_check(spec, err)) != RIDGE_OK)
        return st;
    if (spec->target_kind == RIDGE_PLAN_TARGET_TOKENS) {
        ridge_run_config rc = spec->run;
        rc.batch = 1;
        if (strncmp(ridge_model_throughput_unit(spec->model, &rc), "tokens", 6) != 0)
            return ridge_err_set(err, RIDGE_EINVAL, "plan: %s does not process tokens (use samples)",
                                 ridge_model_name(spec->model));
        *tokens_per_sample = ridge_model_items_per_step(spec->model, &rc);
    }
    return RIDGE_OK;
}

int ridge_plan_alloc(const ridge_plan_spec *spec, ridge_plan **out, ridge_err *err)
{
    ridge_plan *p = NULL;
    ridge_plan_spec *sp;
    size_t nmemo;
    double tokens_per_sample = 1;
    int threads, st;
    *out = NULL;
    if ((st = spec_check(spec, &tokens_per_sample, err)) != RIDGE_OK)
        return st;
    p = calloc(1, sizeof *p);
    if (!p)
        goto nomem;
    p->spec = *spec;
    sp = &p->spec;
    p->tokens_per_sample = tokens_per_sample;
    {
        static const int one = 1, zero = 0;
        static const double no_global = 0;
        if (!sp->nrecomputes) {
            sp->recomputes = &sp->run.recompute; /* copied below, before sp->run can move */
            sp->nrecomputes = 1;
        }
        if (!sp->nsps) {
            sp->sps = &zero;
            sp->nsps = 1;
        }
        if (!sp->nvstages) {
            sp->vstages = &one;
            sp->nvstages = 1;
        }
        if (!sp->nglobal_batches) {
            sp->global_batches = &no_global;
            sp->nglobal_batches = 1;
        }
        if (!sp->ntps) {
            sp->tps = &one;
            sp->ntps = 1;
        }
        if (!sp->npps) {
            sp->pps = &one;
            sp->npps = 1;
        }
        if (!sp->nzeros) {
            sp->zeros = &zero;
            sp->nzeros = 1;
        }
    }
    if (dup_array((void **)&p->tps, sp->tps, sp->ntps, sizeof *p->tps) ||
        dup_array((void **)&p->pps, sp->pps, sp->npps, sizeof *p->pps) ||
        dup_array((void **)&p->zeros, sp->zeros, sp->nzeros, sizeof *p->zeros))
        goto nomem;
    sp->tps = p->tps;
    sp->pps = p->pps;
    sp->zeros = p->zeros;
    if (dup_array((void **)&p->recomputes, sp->recomputes, sp->nrecomputes, sizeof *p->recomputes) ||
        dup_array((void **)&p->sps, sp->sps, sp->nsps, sizeof *p->sps) ||
        dup_array((void **)&p->vstages, sp->vstages, sp->nvstages, sizeof *p->vstages) ||
        dup_array((void **)&p->global_batches, sp->global_batches, sp->nglobal_batches, sizeof *p->global_batches) ||
        (spec->cluster && dup_array((void **)&p->cluster, spec->cluster, 1, sizeof *p->cluster)))
        goto nomem;
    sp->recomputes = p->recomputes;
    sp->sps = p->sps;
    sp->vstages = p->vstages;
    sp->global_batches = p->global_batches;
    sp->cluster = p->cluster;
    /* Sequence parallelism, interleaving and global batches are the parallel model's alone. */
    for (size_t i = 0; i < sp->nsps; i++)
        p->parallel |= p->sps[i] != 0;
    for (size_t i = 0; i < sp->nvstages; i++)
        p->parallel |= p->vstages[i] != 1;
    p->parallel |= spec->nglobal_batches > 0;
    for (size_t i = 0; i < sp->ntps; i++)
        p->parallel |= p->tps[i] != 1;
    for (size_t i = 0; i < sp->npps; i++)
        p->parallel |= p->pps[i] != 1;
    for (size_t i = 0; i < sp->nzeros; i++)
        p->parallel |= p->zeros[i] != 0;
    if (p->parallel && sp->run.mode != RIDGE_MODE_TRAIN) {
        ridge_plan_free(p);
        return ridge_err_set(err, RIDGE_EINVAL, "plan: tps, pps and zeros ranges need run.mode \"train\"");
    }
    nmemo = sp->ngpus * sp->nprecisions * sp->nrecomputes * sp->nbatches;
    if (dup_array((void **)&p->gpus, spec->gpus, sp->ngpus, sizeof *p->gpus) ||
        dup_array((void **)&p->precisions, spec->precisions, sp->nprecisions, sizeof *p->precisions) ||
        dup_array((void **)&p->counts, spec->counts, sp->ncounts, sizeof *p->counts) ||
        dup_array((void **)&p->batches, spec->batches, sp->nbatches, sizeof *p->batches))
        goto nomem;
    p->prices = calloc(sp->ngpus, sizeof *p->prices);
    p->steps = calloc(nmemo, sizeof *p->steps);
    p->comm_s = calloc(sp->ngpus * sp->nprecisions * sp->ncounts, sizeof *p->comm_s);
    p->bucket_s = calloc(sp->ngpus * sp->nprecisions * sp->ncounts, sizeof *p->bucket_s);
    p->buckets = calloc(sp->ngpus * sp->nprecisions, sizeof *p->buckets);
    if (!p->prices || !p->steps || !p->comm_s || !p->bucket_s || !p->buckets)
        goto nomem;
    for (size_t g = 0; g < sp->ngpus; g++)
        p->prices[g] = spec->price_usd_per_hour && spec->price_usd_per_hour[g] > 0 ? spec->price_usd_per_hour[g]
                                                                                : p->gpus[g].price_usd_per_hour;
    sp->gpus = p->gpus;
    sp->price_usd_per_hour = p->prices;
    sp->precisions = p->precisions;
    sp->counts = p->counts;
    sp->batches = p->batches;
    p->size = sp->ngpus * sp->nprecisions * sp->ncounts * sp->nbatches * sp->nglobal_batches * sp->nrecomputes *
              sp->ntps * sp->nsps * sp->npps * sp->nvstages * sp->nzeros;

    /* The memo: (gpu, precision, batch) steps, dealt out over the threads in turn (entry k to
     * thread k mod T): the cost of an entry depends on its GPU and batch (one that does not fit
     * stops at its memory), so contiguous blocks left one thread with most of the work. Each entry
     * is computed alone, so the memo does not depend on the split. */
    threads = sp->threads < 1 ? 1 : sp->threads > 256 ? 256 : sp->threads;
    if ((size_t)threads > nmemo)
        threads = (int)nmemo;
    {
        pthread_t tid[256];
        memo_job jobs[256];
        for (int t = 0; t < threads; t++) {
            jobs[t].p = p;
            jobs[t].first = (size_t)t;
            jobs[t].stride = (size_t)threads;
            jobs[t].n = (nmemo - (size_t)t + (size_t)threads - 1) / (size_t)threads;
            jobs[t].tokens_per_sample = tokens_per_sample;
        }
        fan_out(memo_thread, jobs, sizeof jobs[0], threads, tid);
    }
    if (plan_comm(p, err) != RIDGE_OK) {
        ridge_plan_free(p);
        return RIDGE_ENOMEM;
    }
    *out = p;
    return RIDGE_OK;
nomem:
    ridge_plan_free(p);
    return ridge_err_set(err, RIDGE_ENOMEM, "plan: out of memory");
}

/* ---- one configuration: arithmetic only ---- */

/* ---- the evaluation context of parallelism ranges ---- */

/* Prepared models a context keeps: the GPT-3 search's order (zero innermost, then pp, then tp)
 * visits one (precision, batch) with every pp, and pp sets the accumulated microbatches. */
#define PLAN_PREPARED 8

typedef struct {
    ridge_parallel_model *pm; /* NULL: empty */
    ridge_dtype precision;
    ridge_recompute recompute;
    double microbatch, microbatches; /* global batch / (dp x microbatch) */
} plan_prepared;

struct ridge_plan_ctx {
    const ridge_plan *p;
    ridge_parallel_ctx *par;
    ridge_cluster *cl; /* the fabric of (cl_gpu, cl_count) */
    int cl_gpu, cl_count;
    plan_prepared prep[PLAN_PREPARED];
    int next;
};

int ridge_plan_ctx_alloc(const ridge_plan *p, ridge_plan_ctx **out, ridge_err *err)
{
    ridge_plan_ctx *c = calloc(1, sizeof *c);
    *out = NULL;
    if (!c || !(c->cl = malloc(sizeof *c->cl)) || ridge_parallel_ctx_alloc(&c->par, err) != RIDGE_OK) {
        ridge_plan_ctx_free(c);
        return ridge_err_set(err, RIDGE_ENOMEM, "plan: out of memory");
    }
    c->p = p;
    c->cl_gpu = -1;
    *out = c;
    return RIDGE_OK;
}

void ridge_plan_ctx_free(ridge_plan_ctx *c)
{
    if (!c)
        return;
    for (int k = 0; k < PLAN_PREPARED; k++)
        ridge_parallel_model_free(c->prep[k].pm);
    ridge_parallel_ctx_free(c->par);
    free(c->cl);
    free(c);
}

/* The prepared model of (rc's precision and recompute, pc's microbatch and microbatches), made on a miss in
 * place of the oldest; NULL when out of memory. */
static const ridge_parallel_model *plan_prepared_for(ridge_plan_ctx *c, const ridge_run_config *rc,
                                                     const ridge_parallel_config *pc)
{
    double nm = pc->global_batch / ((double)pc->dp * pc->microbatch);
    plan_prepared *e;
    for (int k = 0; k < PLAN_PREPARED; k++) {
        e = &c->prep[k];
        if (e->pm && e->precision == rc->precision && e->recompute == rc->recompute && e->microbatch == pc->microbatch &&
            e->microbatches == nm)
            return e->pm;
    }
    e = &c->prep[c->next];
    c->next = (c->next + 1) % PLAN_PREPARED;
    ridge_parallel_model_free(e->pm);
    e->pm = NULL;
    if (ridge_parallel_prepare(c->p->spec.model, rc, pc, &e->pm, NULL) != RIDGE_OK)
        return NULL;
    e->precision = rc->precision;
    e->recompute = rc->recompute;
    e->microbatch = pc->microbatch;
    e->microbatches = nm;
    return e->pm;
}

/* One configuration with parallelism ranges: ridge_parallel_predict on the plan's fabric (the
 * cluster's, or derived from the GPU) with dp = N / (T P), microbatch = b, global batch =
 * r->global_batch (b dp P unless listed), r's recompute, sequence parallelism and virtual stages
 * (interleaved when > 1), evaluated memory first with the context's prepared models (the same
 * results: ridge/parallel.h). Fills the step fields of r or sets its reason; returns the target
 * units per step (0 when infeasible). */
static double eval_parallel(const ridge_plan *p, ridge_plan_ctx *c, size_t g, ridge_plan_result *r)
{
    const ridge_plan_spec *sp = &p->spec;
    const ridge_gpu *gpu = &p->gpus[g];
    const ridge_parallel_model *pm;
    int n = r->count, tp = r->tp, pp = r->pp, nodes, per_node;
    ridge_parallel_config pc;
    ridge_parallel_result pres;
    ridge_run_config rc = sp->run;
    ridge_err err;
    double items;
    int st;

    if (ridge_kernel_peak_for(gpu, r->precision, 1) < 0 && ridge_kernel_peak_for(gpu, r->precision, 0) < 0) {
        r->reason = RIDGE_PLAN_UNSUPPORTED;
        return 0;
    }
    /* Nodes as for the DP all-reduce; a group smaller than a node is one node of that many. */
    if (n % (tp * pp) || (n > plan_node_gpus(p) && n % plan_node_gpus(p))) {
        r->reason = RIDGE_PLAN_LAYOUT;
        return 0;
    }
    if (c->cl_gpu != (int)g || c->cl_count != n) {
        per_node = n < plan_node_gpus(p) ? n : plan_node_gpus(p);
        nodes = n / per_node;
        if (p->cluster) { /* the cluster's links; its network per node as it is */
            *c->cl = *p->cluster;
            c->cl->gpu = *gpu;
            c->cl->nodes = nodes;
        } else {
            plan_cluster(gpu, nodes, c->cl);
            c->cl->inter_bw_bytes_per_s_per_node = PLAN_INTER_BW_PER_GPU * per_node;
        }
        c->cl->gpus_per_node = per_node;
        c->cl_gpu = (int)g;
        c->cl_count = n;
    }
    ridge_parallel_config_init(&pc);
    pc.tp = tp;
    pc.pp = pp;
    pc.dp = n / (tp * pp);
    pc.zero = r->zero;
    pc.microbatch = r->batch;
    pc.global_batch = r->global_batch;
    pc.sequence_parallel = r->sp;
    pc.virtual_stages = r->vstages;
    pc.schedule = r->vstages > 1 ? RIDGE_PP_INTERLEAVED : RIDGE_PP_1F1B;
    rc.precision = r->precision;
    rc.batch = r->batch;
    rc.recompute = r->recompute;
    if (!(pm = plan_prepared_for(c, &rc, &pc))) {
        r->reason = RIDGE_PLAN_INVALID;
        return 0;
    }
    st = ridge_parallel_evaluate(c->par, pm, c->cl, &pc, sp->runtime, RIDGE_PARALLEL_MEMORY_FIRST, &pres, &err);
    if (st != RIDGE_OK) {
        r->reason = st == RIDGE_EINVAL ? RIDGE_PLAN_LAYOUT
                    : st == RIDGE_EUNSUPPORTED ? RIDGE_PLAN_UNSUPPORTED
                                               : RIDGE_PLAN_INVALID;
        return 0;
    }
    r->memory_bytes = pres.memory.total_bytes;
    if (!pres.fits || pres.memory.total_bytes > gpu->memory_bytes) {
        r->reason = RIDGE_PLAN_OOM;
        return 0;
    }
    r->comm_s = pres.breakdown.tp_comm_s + pres.breakdown.pp_comm_s + pres.breakdown.dp_comm_exposed_s +
                pres.breakdown.ep_comm_s;
    r->step_time_s = pres.step_time_s;
    if (sp->no_comm) { /* ideal scaling: drop the communication, keep the bubble */
        r->step_time_s -= r->comm_s;
        r->comm_s = 0;
    }
    r->utilisation = r->step_time_s > 0 ? pres.compute_bound_s / r->step_time_s : 0;
    if (r->utilisation > 1)
        r->utilisation = 1;
    items = pc.global_batch;
    if (sp->target_kind == RIDGE_PLAN_TARGET_TOKENS)
        items *= p->tokens_per_sample;
    return items;
}

void ridge_plan_eval(const ridge_plan *p, size_t i, ridge_plan_result *r)
{
    ridge_plan_ctx *c = NULL;
    if (p->parallel && ridge_plan_ctx_alloc(p, &c, NULL) != RIDGE_OK) {
        memset(r, 0, sizeof *r);
        r->index = i;
        r->reason = RIDGE_PLAN_INVALID;
        return;
    }
    ridge_plan_eval_ctx(p, c, i, r);
    ridge_plan_ctx_free(c);
}

void ridge_plan_eval_ctx(const ridge_plan *p, ridge_plan_ctx *ctx, size_t i, ridge_plan_result *r)
{
    const ridge_plan_spec *sp = &p->spec;
    size_t nb = sp->nbatches, nc = sp->ncounts, np = sp->nprecisions, nr = sp->nrecomputes;
    size_t j = i, z, v, q, s_, t, rq, gb, b, c, pr, g;
    const plan_step *s;
    const ridge_gpu *gpu;
    double n, items, dp;

    /* One value of a dimension not searched: no division. */
#define PLAN_DIGIT(d, size)                                                                                     \
    do {                                                                                                        \
        size_t size_ = (size);                                                                                  \
        d = size_ > 1 ? j % size_ : 0;                                                                          \
        j = size_ > 1 ? j / size_ : j;                                                                          \
    } while (0)
    PLAN_DIGIT(z, sp->nzeros);
    PLAN_DIGIT(v, sp->nvstages);
    PLAN_DIGIT(q, sp->npps);
    PLAN_DIGIT(s_, sp->nsps);
    PLAN_DIGIT(t, sp->ntps);
    PLAN_DIGIT(rq, nr);
    PLAN_DIGIT(gb, sp->nglobal_batches);
    PLAN_DIGIT(b, nb);
    PLAN_DIGIT(c, nc);
    PLAN_DIGIT(pr, np);
#undef PLAN_DIGIT
    g = j;
    s = &p->steps[((g * np + pr) * nr + rq) * nb + b];
    gpu = &p->gpus[g];
    n = (double)p->counts[c];

    memset(r, 0, sizeof *r);
    r->index = i;
    r->gpu = (int)g;
    r->precision = p->precisions[pr];
    r->count = p->counts[c];
    r->batch = p->batches[b];
    r->tp = p->tps[t];
    r->pp = p->pps[q];
    r->zero = p->zeros[z];
    r->recompute = p->recomputes[rq];
    r->sp = p->sps[s_];
    r->vstages = p->vstages[v];
    dp = n / (r->tp * r->pp);
    if (p->global_batches[gb] > 0) {
        r->global_batch = p->global_batches[gb];
        r->microbatches = r->global_batch / (dp * r->batch);
    } else { /* one microbatch per stage */
        r->global_batch = r->batch * dp * r->pp;
        r->microbatches = r->pp;
    }
    r->memory_bytes = s->memory_bytes;
    r->price_usd_per_hour = p->prices[g];
    r->cost_usd = NAN;
    /* The layouts the searched dimensions rule out, whatever else was searched (docs/planning.md):
     * sequence parallelism without tensor parallelism (Megatron turns it off: the sp = 0 row),
     * virtual stages without a pipeline, a global batch that is not whole microbatches of every
     * data-parallel rank, a count that is not whole nodes of the cluster (or spans nodes of a
     * cluster without a network). */
    if ((r->sp && r->tp == 1) || (r->vstages > 1 && r->pp == 1) ||
        !(r->microbatches >= 1 && r->microbatches == floor(r->microbatches)) ||
        (p->cluster && r->count > p->cluster->gpus_per_node &&
         (r->count % p->cluster->gpus_per_node || !p->cluster->has_inter))) {
        r->memory_bytes = 0;
        r->reason = RIDGE_PLAN_LAYOUT;
        return;
    }
    /* tp = pp = 1 without ZeRO, in one microbatch, is the data-parallel configuration whatever
     * ranges were searched: the same memoised arithmetic answers it (ridge_parallel_predict's for
     * that layout). */
    if (p->parallel && (r->tp > 1 || r->pp > 1 || r->zero > 0 || r->microbatches != 1)) {
        r->memory_bytes = 0;
        items = eval_parallel(p, ctx, g, r);
        if (r->reason != RIDGE_PLAN_FEASIBLE)
            return;
    } else {
        if (s->reason != RIDGE_PLAN_FEASIBLE) {
            r->reason = s->reason;
            return;
        }
        /* Data parallel: each GPU runs the single-GPU step on its own batch; the gradients are
         * all-reduced in buckets behind its backward pass (ridge_parallel_predict's rule). */
        size_t k = (g * np + pr) * nc + c;
        r->comm_s = sp->no_comm ? 0
                                : ridge_dp_overlap_exposed_s(p->comm_s[k], p->bucket_s[k], p->buckets[g * np + pr],
                                                             s->backward_s, ridge_nccl_sm_share(gpu));
        r->step_time_s = s->step_s + r->comm_s;
        r->utilisation = r->step_time_s > 0 ? s->compute_s / r->step_time_s : 0;
        items = s->items * n;
    }
    r->steps = ceil(sp->target / items);
    r->time_s = r->steps * r->step_time_s;
    r->throughput = r->step_time_s > 0 ? items / r->step_time_s : 0;
    r->power_w = ridge_plan_power_w(gpu->tdp_w, r->utilisation);
    r->energy_j = r->power_w * n * r->time_s;
    if (r->price_usd_per_hour > 0)
        r->cost_usd = n * r->time_s / 3600.0 * r->price_usd_per_hour;

    if (!(r->price_usd_per_hour > 0) && (sp->objective == RIDGE_PLAN_COST || sp->budget_usd > 0))
        r->reason = RIDGE_PLAN_NO_PRICE;
    else if (sp->deadline_s > 0 && r->time_s > sp->deadline_s)
        r->reason = RIDGE_PLAN_DEADLINE;
    else if (sp->budget_usd > 0 && r->cost_usd > sp->budget_usd)
        r->reason = RIDGE_PLAN_BUDGET;
    else if (sp->power_cap_w > 0 && n * gpu->tdp_w > sp->power_cap_w)
        r->reason = RIDGE_PLAN_POWER;
}

typedef struct {
    const ridge_plan *p;
    size_t first, n;
    ridge_plan_result *r;
} eval_job;

static void *eval_thread(void *arg)
{
    eval_job *j = arg;
    ridge_plan_ctx *c = NULL;
    if (j->p->parallel && ridge_plan_ctx_alloc(j->p, &c, NULL) != RIDGE_OK)
        c = NULL; /* then each configuration makes its own (ridge_plan_eval) */
    for (size_t k = 0; k < j->n; k++) {
        if (j->p->parallel && !c)
            ridge_plan_eval(j->p, j->first + k, &j->r[k]);
        else
            ridge_plan_eval_ctx(j->p, c, j->first + k, &j->r[k]);
    }
    ridge_plan_ctx_free(c);
    return NULL;
}

int ridge_plan_eval_range(const ridge_plan *p, size_t first, size_t n, int threads, ridge_plan_result *r,
                          ridge_err *err)
{
    pthread_t tid[256];
    eval_job jobs[256];
    if (first > p->size || n > p->size - first)
        return ridge_err_set(err, RIDGE_EINVAL, "plan: range [%zu, %zu) is outside the space of %zu", first,
                             first + n, p->size);
    if (threads < 1)
        threads = 1;
    if (threads > 256)
        threads = 256;
    if ((size_t)threads > n)
        threads = n ? (int)n : 1;
    for (int t = 0; t < threads; t++) {
        size_t a = n * (size_t)t / (size_t)threads, b = n * (size_t)(t + 1) / (size_t)threads;
        jobs[t].p = p;
        jobs[t].first = first + a;
        jobs[t].n = b - a;
        jobs[t].r = r + a;
    }
    fan_out(eval_thread, jobs, sizeof jobs[0], threads, tid);
    return RIDGE_OK;
}

/* ---- ranking and Pareto fronts ---- */

double ridge_plan_objective_value(const ridge_plan_result *r, ridge_plan_objective o)
{
    switch (o) {
    case RIDGE_PLAN_COST: return r->cost_usd;
    case RIDGE_PLAN_TIME: return r->time_s;
    case RIDGE_PLAN_ENERGY: return r->energy_j;
    case RIDGE_PLAN_GPUS: return (double)r->count;
    default: return NAN;
    }
}

/* Ascending, NaN after every number. */
static int cmp_num(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}

typedef int (*cmp_fn)(const ridge_plan_result *r, size_t a, size_t b, int key);

static int cmp_rank(const ridge_plan_result *r, size_t a, size_t b, int key)
{
    int c = cmp_num(ridge_plan_objective_value(&r[a], (ridge_plan_objective)key),
                    ridge_plan_objective_value(&r[b], (ridge_plan_objective)key));
    if (!c)
        c = cmp_num(r[a].time_s, r[b].time_s);
    if (!c)
        c = cmp_num(r[a].cost_usd, r[b].cost_usd);
    if (!c)
        c = (r[a].index > r[b].index) - (r[a].index < r[b].index);
    return c;
}

/* By time, then the second axis, then index. */
static int cmp_front(const ridge_plan_result *r, size_t a, size_t b, int use_energy)
{
    int c = cmp_num(r[a].time_s, r[b].time_s);
    if (!c)
        c = use_energy ? cmp_num(r[a].energy_j, r[b].energy_j) : cmp_num(r[a].cost_usd, r[b].cost_usd);
    if (!c)
        c = (r[a].index > r[b].index) - (r[a].index < r[b].index);
    return c;
}

static void sift_down(size_t *h, size_t root, size_t n, const ridge_plan_result *r, cmp_fn cmp, int key)
{
    for (;;) {
        size_t child = 2 * root + 1, t;
        if (child >= n)
            return;
        if (child + 1 < n && cmp(r, h[child], h[child + 1], key) < 0)
            child++;
        if (cmp(r, h[root], h[child], key) >= 0)
            return;
        t = h[root];
        h[root] = h[child];
        h[child] = t;
        root = child;
    }
}

static void heap_sort(size_t *h, size_t n, const ridge_plan_result *r, cmp_fn cmp, int key)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(h, i, n, r, cmp, key);
    for (size_t end = n; end > 1; end--) {
        size_t t = h[0];
        h[0] = h[end - 1];
        h[end - 1] = t;
        sift_down(h, 0, end - 1, r, cmp, key);
    }
}

size_t ridge_plan_rank(const ridge_plan_result *r, size_t n, ridge_plan_objective o, size_t *order)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].reason == RIDGE_PLAN_FEASIBLE)
            order[m++] = i;
    heap_sort(order, m, r, cmp_rank, (int)o);
    return m;
}

size_t ridge_plan_pareto(ridge_plan_result *r, size_t n, int use_energy, size_t *scratch)
{
    size_t m = 0, front = 0;
    double best = INFINITY;
    for (size_t i = 0; i < n; i++) {
        r[i].pareto = 0;
        if (r[i].reason == RIDGE_PLAN_FEASIBLE && !isnan(r[i].time_s) &&
            !isnan(use_energy ? r[i].energy_j : r[i].cost_usd))
            scratch[m++] = i;
    }
    heap_sort(scratch, m, r, cmp_front, use_energy);
    /* Sweep in time order: a point is on the front when it is strictly cheaper than every
     * faster-or-equal point before it (ties in both keep the first index only). */
    for (size_t k = 0; k < m; k++) {
        ridge_plan_result *x = &r[scratch[k]];
        double y = use_energy ? x->energy_j : x->cost_usd;
        if (y < best) {
            x->pareto = 1;
            best = y;
            front++;
        }
    }
    return front;
}

/* ---- streaming selection ---- */

/* A ranked result's compact key (cmp_rank's fields) and where its row is kept. */
typedef struct {
    double v, t, c;
    size_t index, slot;
} sel_key;

/* A point of the front: time, second axis, index (cmp_front's fields). */
typedef struct {
    double t, y;
    size_t index;
} front_key;

struct ridge_plan_select {
    ridge_plan_objective objective;
    int use_energy;
    size_t k, nheap, feasible;
    sel_key *heap;           /* a max-heap: the worst of the K best at the root */
    ridge_plan_result *rows; /* rows[slot] */
    ridge_plan_result *out;  /* the rows ranked by ridge_plan_select_rows (after rows, one block) */
    front_key *front;        /* ascending by (t, y, index); y strictly decreasing */
    size_t nfront, capfront;
};

static int cmp_sel(const sel_key *a, const sel_key *b)
{
    int c = cmp_num(a->v, b->v);
    if (!c)
        c = cmp_num(a->t, b->t);
    if (!c)
        c = cmp_num(a->c, b->c);
    if (!c)
        c = (a->index > b->index) - (a->index < b->index);
    return c;
}

static int cmp_fkey(const front_key *a, const front_key *b)
{
    int c = cmp_num(a->t, b->t);
    if (!c)
        c = cmp_num(a->y, b->y);
    if (!c)
        c = (a->index > b->index) - (a->index < b->index);
    return c;
}

static void sel_swap(sel_key *a, sel_key *b)
{
    sel_key t = *a;
    *a = *b;
    *b = t;
}

static void sel_sift_down(sel_key *h, size_t root, size_t n)
{
    for (size_t child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && cmp_sel(&h[child], &h[child + 1]) < 0)
            child++;
        if (cmp_sel(&h[root], &h[child]) >= 0)
            return;
        sel_swap(&h[root], &h[child]);
    }
}

static void sel_sift_up(sel_key *h, size_t i)
{
    for (size_t parent; i > 0 && cmp_sel(&h[parent = (i - 1) / 2], &h[i]) < 0; i = parent)
        sel_swap(&h[parent], &h[i]);
}

int ridge_plan_select_alloc(size_t k, ridge_plan_objective o, int use_energy, ridge_plan_select **out,
                            ridge_err *err)
{
    ridge_plan_select *s;
    *out = NULL;
    if (k == 0)
        return ridge_err_set(err, RIDGE_EINVAL, "plan: a selection needs k >= 1");
    s = calloc(1, sizeof *s);
    /* rows and out in one block (both of k results) */
    if (!s || !(s->heap = malloc(k * sizeof *s->heap)) || !(s->rows = malloc(2 * k * sizeof *s->rows))) {
        ridge_plan_select_free(s);
        return ridge_err_set(err, RIDGE_ENOMEM, "plan: out of memory");
    }
    s->out = s->rows + k;
    s->objective = o;
    s->use_energy = use_energy;
    s->k = k;
    *out = s;
    return RIDGE_OK;
}

void ridge_plan_select_free(ridge_plan_select *s)
{
    if (!s)
        return;
    free(s->heap);
    free(s->rows); /* and out */
    free(s->front);
    free(s);
}

/* The first position in the front whose key is after x. */
static size_t front_upper(const ridge_plan_select *s, const front_key *x)
{
    size_t lo = 0, hi = s->nfront;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_fkey(&s->front[mid], x) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ridge_plan_pareto's sweep, one point at a time: x is on the front of all points when no point
 * before it in (time, y, index) order has y <= its y; a point that is off the front is beaten by
 * one on it, so checking the front so far suffices. Inserting x drops the points after it that
 * it beats (contiguous from its position, as y decreases along the front). */
static int front_add(ridge_plan_select *s, const front_key *x)
{
    size_t pos = front_upper(s, x), end = pos;
    if (pos > 0 && s->front[pos - 1].y <= x->y)
        return RIDGE_OK;
    while (end < s->nfront && s->front[end].y >= x->y)
        end++;
    if (end == pos) { /* nothing dropped: room for one more */
        if (s->nfront == s->capfront) {
            size_t cap = s->capfront ? 2 * s->capfront : 64;
            front_key *f = realloc(s->front, cap * sizeof *f);
            if (!f)
                return RIDGE_ENOMEM;
            s->front = f;
            s->capfront = cap;
        }
        memmove(&s->front[pos + 1], &s->front[pos], (s->nfront - pos) * sizeof *s->front);
        s->nfront++;
    } else if (end > pos + 1) {
        memmove(&s->front[pos + 1], &s->front[end], (s->nfront - end) * sizeof *s->front);
        s->nfront -= end - pos - 1;
    }
    s->front[pos] = *x;
    return RIDGE_OK;
}

int ridge_plan_select_add(ridge_plan_select *s, const ridge_plan_result *r, size_t n, ridge_err *err)
{
    for (size_t i = 0; i < n; i++) {
        const ridge_plan_result *x = &r[i];
        sel_key key;
        double y;
        if (x->reason != RIDGE_PLAN_FEASIBLE)
            continue;
        y = s->use_energy ? x->energy_j : x->cost_usd;
        if (!isnan(x->time_s) && !isnan(y)) {
            front_key f = {x->time_s, y, x->index};
            if (front_add(s, &f) != RIDGE_OK)
                return ridge_err_set(err, RIDGE_ENOMEM, "plan: out of memory");
        }
        s->feasible++;
        key.v = ridge_plan_objective_value(x, s->objective);
        key.t = x->time_s;
        key.c = x->cost_usd;
        key.index = x->index;
        if (s->nheap < s->k) {
            key.slot = s->nheap;
            s->rows[key.slot] = *x;
            s->heap[s->nheap] = key;
            sel_sift_up(s->heap, s->nheap++);
        } else if (cmp_sel(&key, &s->heap[0]) < 0) {
            key.slot = s->heap[0].slot;
            s->rows[key.slot] = *x;
            s->heap[0] = key;
            sel_sift_down(s->heap, 0, s->nheap);
        }
    }
    return RIDGE_OK;
}

const ridge_plan_result *ridge_plan_select_rows(ridge_plan_select *s, size_t *nrows)
{
    /* Rank a copy of the heap (heap sort: ascending) and mark the rows on the front. */
    size_t n = s->nheap;
    sel_key *h = s->heap;
    for (size_t end = n; end > 1; end--) {
        sel_swap(&h[0], &h[end - 1]);
        sel_sift_down(h, 0, end - 1);
    }
    for (size_t k = 0; k < n; k++) {
        ridge_plan_result *o = &s->out[k];
        double y;
        *o = s->rows[h[k].slot];
        y = s->use_energy ? o->energy_j : o->cost_usd;
        o->pareto = 0;
        if (!isnan(o->time_s) && !isnan(y)) {
            front_key f = {o->time_s, y, o->index};
            size_t pos = front_upper(s, &f);
            o->pareto = pos > 0 && s->front[pos - 1].index == o->index;
        }
    }
    /* Back to a max-heap for later adds: the ascending order reversed is one. */
    for (size_t a = 0, b = n; a + 1 < b; a++, b--)
        sel_swap(&h[a], &h[b - 1]);
    *nrows = n;
    return s->out;
}

size_t ridge_plan_select_feasible(const ridge_plan_select *s) { return s->feasible; }
size_t ridge_plan_select_front(const ridge_plan_select *s) { return s->nfront; }

size_t ridge_plan_select_front_points(const ridge_plan_select *s, ridge_plan_front_point *out, size_t cap)
{
    for (size_t i = 0; i < s->nfront && i < cap; i++) {
        out[i].time_s = s->front[i].t;
        out[i].y = s->front[i].y;
        out[i].index = s->front[i].index;
    }
    return s->nfront;
}

int ridge_plan_select_merge(ridge_plan_select *s, const ridge_plan_result *rows, size_t nrows,
                            const ridge_plan_front_point *front, size_t nfront, size_t feasible, ridge_err *err)
{
    /* The K best of the union are among the K best of each part, and a point of the union's front
     * is on its part's front; both are orders without ties (index last), so order does not matter. */
    size_t before = s->feasible;
    int st = ridge_plan_select_add(s, rows, nrows, err);
    for (size_t i = 0; st == RIDGE_OK && i < nfront; i++) {
        front_key f = {front[i].time_s, front[i].y, front[i].index};
        if (front_add(s, &f) != RIDGE_OK)
            st = ridge_err_set(err, RIDGE_ENOMEM, "plan: out of memory");
    }
    s->feasible = before + feasible;
    return st;
}

/* ---- the memo for charts ---- */

int ridge_plan_step(const ridge_plan *p, size_t gpu, size_t precision, size_t batch, ridge_plan_step_info *out,
                    ridge_err *err)
{
    const ridge_plan_spec *sp = &p->spec;
    const plan_step *s;
    if (gpu >= sp->ngpus || precision >= sp->nprecisions || batch >= sp->nbatches)
        return ridge_err_set(err, RIDGE_EINVAL, "plan: step (%zu, %zu, %zu) is outside the space", gpu, precision,
                             batch);
    s = &p->steps[(gpu * sp->nprecisions + precision) * sp->nrecomputes * sp->nbatches + batch]; /* 1st recompute */
    memset(out, 0, sizeof *out);
    out->reason = s->reason;
    out->step_s = s->step_s;
    out->items = s->items;
    out->memory_bytes = s->memory_bytes;
    memcpy(out->time_by_bound_s, s->by_bound_s, sizeof out->time_by_bound_s);
    return RIDGE_OK;
}

int ridge_plan_best_step(const ridge_plan *p, size_t gpu, ridge_plan_best *out)
{
    const ridge_plan_spec *sp = &p->spec;
    double best_thr = -1;
    int found = 0;
    if (gpu >= sp->ngpus)
        return 0;
    for (size_t pr = 0; pr < sp->nprecisions; pr++)
        for (size_t b = 0; b < sp->nbatches; b++) {
            ridge_plan_step_info s;
            if (ridge_plan_step(p, gpu, pr, b, &s, NULL) != RIDGE_OK || s.reason != RIDGE_PLAN_FEASIBLE ||
                !(s.step_s > 0))
                continue;
            if (s.items / s.step_s > best_thr) {
                best_thr = s.items / s.step_s;
                out->step = s;
                out->precision = pr;
                out->batch = b;
                found = 1;
            }
        }
    if (found) {
        double price = p->prices[gpu];
        out->throughput_per_s = out->step.items / out->step.step_s;
        out->power_w = ridge_plan_power_w(p->gpus[gpu].tdp_w,
                                          out->step.time_by_bound_s[RIDGE_BOUND_COMPUTE] / out->step.step_s);
        out->throughput_per_w = out->throughput_per_s / out->power_w;
        out->units_per_usd = price > 0 ? out->throughput_per_s * 3600.0 / price : NAN;
    }
    return found;
}
