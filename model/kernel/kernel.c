/* The kernel model's entry point: dispatch one op to its cost model (docs/model.md).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <string.h>

#include "cost_models.h"
#include "gemm.h"

static const ridge_name bound_rows[] = {{"compute", RIDGE_BOUND_COMPUTE}, {"memory", RIDGE_BOUND_MEMORY},
                                        {"l2", RIDGE_BOUND_L2},           {"latency", RIDGE_BOUND_LATENCY},
                                        {"host", RIDGE_BOUND_HOST}};
static const ridge_name runtime_rows[] = {{"eager", RIDGE_RUNTIME_EAGER}, {"graph", RIDGE_RUNTIME_GRAPH}};

const ridge_names ridge_bound_names = RIDGE_NAMES(bound_rows, "?");

const char *ridge_bound_name(ridge_bound b)
{
    return ridge_name_of(&ridge_bound_names, (int)b);
}

/* Anything but graph replay is eager. */
RIDGE_NAMES_DEFINE(ridge_runtime, runtime_rows, "eager")

double ridge_kernel_time_in(const ridge_gpu *g, const ridge_kernel_result *r, ridge_runtime rt)
{
    if (rt != RIDGE_RUNTIME_GRAPH || !(r->floor_s > 0))
        return r->time_s;
    return r->time_s - r->floor_s + r->kernels * g->eff.graph_kernel_floor_s;
}

/* The figures of dtype dt (rk_dtype_prep) that every model may read: its peaks and the rates
 * of the streaming and custom kernels; with `gemm`, the GEMM model's too (after prep_arch: its cc);
 * none for an unknown dtype. Each peak's efficiency fraction is looked up once. */
static inline void prep_dtype(rk_kernel_prepared *p, ridge_dtype dt, int gemm)
{
    const ridge_gpu *g = p->g;
    rk_dtype_prep *d;
    int tp;
    ridge_peak vp;
    double fv, ft;
    if ((unsigned)dt >= RIDGE_DTYPE_COUNT)
        return;
    d = &p->dt[dt];
    tp = rk_tensor_peak(g, dt);
    vp = rk_vector_peak(g, dt);
    fv = rh_efficiency_fraction(&g->eff, vp);
    ft = tp >= 0 ? rh_efficiency_fraction(&g->eff, (ridge_peak)tp) : 0;
    d->tensor_peak = tp;
    d->vector_peak = vp;
    d->vector_rate = g->peak_flops_per_s[vp] * fv;
    d->tensor_rate = tp >= 0 ? g->peak_flops_per_s[tp] * ft : 0;
    if (!gemm)
        return;
    d->es = rk_dtype_bytes(dt);
    d->es_out = rk_gemm_out_bytes(dt);
    d->es_i = d->es >= 1 ? (long long)d->es : 0;
    d->gemm_vector_sm = g->peak_flops_per_s[vp] / g->sm_count * fv;
    d->gemm_tensor_sm = 0;
    if (tp >= 0) {
        /* a GEMM's MMAs: the quoted peak at Ada's sustained clock and under the power limit */
        double flops = g->peak_flops_per_s[tp] * (rk_tensor_clock_share_cc(g, p->cc) * rk_sustained_tensor_share(g, dt));
        d->gemm_tensor_sm = flops / g->sm_count * ft;
    }
}

/* The figures of the GPU every model reads: the roof layer's (rk_l2_split, rk_finish,
 * rk_predicted). */
static void prep_roof(const ridge_gpu *g, rk_kernel_prepared *p)
{
    p->g = g;
    p->derived = 1;
    p->kernel_floor_s = g->eff.kernel_floor_s;
    p->dram_latency_s = g->eff.dram_latency_s;
    p->dram_bw = g->memory_bw_bytes_per_s * g->eff.dram_fraction;
    p->l2_bw = g->eff.l2_bandwidth_bytes_per_s;
    p->l2_bytes = g->l2_bytes;
    p->l2_full = ridge_gpu_l2_full_hit_bytes(g); /* the cache rule's full-hit share (ridge/gpu.h) */
    p->l2_span = g->l2_bytes - p->l2_full;
}

/* Those the tiled models read (the GEMM model's and attention's): the compute capability and
 * what follows from it, the SMs, the reciprocal rates. */
static void prep_arch(rk_kernel_prepared *p)
{
    const ridge_gpu *g = p->g;
    p->cc = rk_cc(g);
    p->hopper = p->cc / 10 == 9;
    p->sm = g->sm_count;
    p->inv_sm = 1.0 / g->sm_count;
    p->inv_l2_bw = 1.0 / p->l2_bw;
    p->inv_dram_l2_bw = 1.0 / (p->dram_bw + p->l2_bw);
    p->tensor_clock_share = rk_tensor_clock_share_cc(g, p->cc);
}

void rk_kernel_prep(const ridge_gpu *g, rk_kernel_prepared *p)
{
    prep_roof(g, p);
    prep_arch(p);
    rk_gemm_prep(p);
    rk_memory_bound_prep(p);
    rk_attention_prep(p);
    for (int dt = 0; dt < RIDGE_DTYPE_COUNT; dt++)
        prep_dtype(p, (ridge_dtype)dt, 1);
}

/* One prediction on its own prepares only the figures its op's model reads: the roof layer's,
 * the tiled models' (prep_arch) and the GEMM model's (the GEMM, convolution and LSTM models run
 * GEMMs; their dtype's GEMM figures too), attention's, the row kernels' (memory_bound.c), and
 * those of the op's dtype, and of fp32 for an elementwise op with a function (ew_work's math
 * dtype) and for a per-head decode attention (its dot products). A model that comes to read other figures must have them prepared here (the
 * result hashes of the checks, over every kind on every catalogue GPU, go through this path). */
int ridge_kernel_predict(const ridge_gpu *g, const ridge_op *op, ridge_kernel_result *r, ridge_err *err)
{
    rk_kernel_prepared p;
    prep_roof(g, &p);
    switch (op->kind) {
    case RIDGE_OP_GEMM:
    case RIDGE_OP_CONV2D:
    case RIDGE_OP_LSTM:
        prep_arch(&p);
        rk_gemm_prep(&p);
        prep_dtype(&p, op->dtype, 1);
        return rk_kernel_predict_prepared(&p, op, r, err);
    default: prep_dtype(&p, op->dtype, 0); break;
    }
    switch (op->kind) {
    case RIDGE_OP_ATTENTION:
        prep_arch(&p);
        rk_attention_prep(&p);
        if (op->u.attn.per_head_kv && op->dtype != RIDGE_DTYPE_FP32) /* its FP32 dot products */
            prep_dtype(&p, RIDGE_DTYPE_FP32, 0);
        break;
    case RIDGE_OP_ELEMENTWISE:
        /* its row, strided or column rounds (memory_bound.c) read the row-kernel figures */
        if (op->u.ew.rows > 0 || op->u.ew.strided_inputs > 0 || op->u.ew.channels > 0)
            rk_memory_bound_prep(&p);
        if (op->u.ew.fn != RIDGE_EW_PLAIN && op->dtype != RIDGE_DTYPE_FP32)
            prep_dtype(&p, RIDGE_DTYPE_FP32, 0);
        break;
    case RIDGE_OP_SOFTMAX:
    case RIDGE_OP_LAYERNORM:
    case RIDGE_OP_RMSNORM:
    case RIDGE_OP_REDUCE: rk_memory_bound_prep(&p); break;
    default: break; /* embedding, copy, custom: the roof layer's and the dtype's alone */
    }
    return rk_kernel_predict_prepared(&p, op, r, err);
}

int rk_no_finite_time(const ridge_gpu *g, const ridge_op *op, double t, ridge_err *err)
{
    /* A time of exactly 0: an op with no work on a GPU whose kernel floor is 0 (allowed, as a
     * fit's bound): say which field, since nothing is wrong with the op alone. */
    if (t == 0 && g->eff.kernel_floor_s == 0)
        return ridge_err_set(err, RIDGE_EINVAL,
                             "%s: this %s op does no work and efficiency.kernel_floor_s is 0: it would take no time",
                             g->id, ridge_op_kind_name(op->kind));
    return ridge_err_set(err, RIDGE_EINVAL, "%s: the model produced no finite time for this %s op", g->id,
                         ridge_op_kind_name(op->kind));
}

/* The dispatch on the kind: each model is the rest of the prediction (rk_predicted at its end),
 * called last, so that this function saves no registers and keeps no frame. */
int rk_kernel_predict_prepared(const rk_kernel_prepared *p, const ridge_op *op, ridge_kernel_result *r, ridge_err *err)
{
    if ((unsigned)op->dtype >= RIDGE_DTYPE_COUNT) /* an op that fails ridge_op_check: no figures for it */
        return ridge_err_set(err, RIDGE_EINVAL, "unknown dtype %d", (int)op->dtype);
    switch (op->kind) {
    case RIDGE_OP_GEMM: return rk_gemm_op(p, op, r, err);
    case RIDGE_OP_CONV2D: return rk_conv2d(p, op, r, err);
    case RIDGE_OP_ATTENTION: return rk_attention(p, op, r, err);
    case RIDGE_OP_LSTM: return rk_lstm(p, op, r, err);
    case RIDGE_OP_ELEMENTWISE:
    case RIDGE_OP_SOFTMAX:
    case RIDGE_OP_LAYERNORM:
    case RIDGE_OP_RMSNORM:
    case RIDGE_OP_REDUCE:
    case RIDGE_OP_EMBEDDING:
    case RIDGE_OP_COPY:
    case RIDGE_OP_CUSTOM: return rk_memory_bound(p, op, r, err);
    default: return ridge_err_set(err, RIDGE_EINVAL, "unknown operator kind %d", (int)op->kind);
    }
}
