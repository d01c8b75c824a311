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

int ridge_kernel_predict(const ridge_gpu *g, const ridge_op *op, ridge_kernel_result *r, ridge_err *err)
{
    /* The op's compulsory bytes, rk_op_min_bytes(op): a conv2d's and a memory-bound op's are
     * computed by their models (with the output sides, the FLOPs), once. */
    double min_bytes;
    int rc;
    switch (op->kind) {
    case RIDGE_OP_GEMM: {
        double batch = op->u.gemm.batch > 0 ? op->u.gemm.batch : 1;
        min_bytes = rk_gemm_kind_bytes(op) + op->epilogue_bytes;
        rc = rk_gemm(g, op->dtype, op->u.gemm.m, op->u.gemm.n, op->u.gemm.k, batch, op->u.gemm.layout, 0,
                     rk_op_bytes(op, min_bytes), 1.0,
                     (op->u.gemm.no_split_k ? RK_GEMM_NO_SPLIT_K : 0) | (op->u.gemm.tiles_by_m ? RK_GEMM_TILES_BY_M : 0) |
                         RK_GEMM_CUBLAS,
                     r, err);
        break;
    }
    case RIDGE_OP_CONV2D: rc = rk_conv2d(g, op, &min_bytes, r, err); break;
    case RIDGE_OP_ATTENTION:
        min_bytes = rk_op_min_bytes(op);
        rc = rk_attention(g, op, min_bytes, r, err);
        break;
    case RIDGE_OP_LSTM:
        min_bytes = rk_op_min_bytes(op);
        rc = rk_lstm(g, op, r, err);
        break;
    case RIDGE_OP_ELEMENTWISE:
    case RIDGE_OP_SOFTMAX:
    case RIDGE_OP_LAYERNORM:
    case RIDGE_OP_RMSNORM:
    case RIDGE_OP_REDUCE:
    case RIDGE_OP_EMBEDDING:
    case RIDGE_OP_COPY:
    case RIDGE_OP_CUSTOM: rc = rk_memory_bound(g, op, &min_bytes, r, err); break;
    default: return ridge_err_set(err, RIDGE_EINVAL, "unknown operator kind %d", (int)op->kind);
    }
    if (rc != RIDGE_OK)
        return rc;
    if (!(r->time_s > 0 && r->time_s < INFINITY)) /* finite and positive (NaN fails both) */
        return ridge_err_set(err, RIDGE_EINVAL, "%s: the model produced no finite time for this %s op", g->id,
                             ridge_op_kind_name(op->kind));
    {
        /* The plain roofline with datasheet figures: compulsory bytes over DRAM bandwidth (PCIe for
         * host copies), FLOPs over the peak of the unit used. */
        int pcie = op->kind == RIDGE_OP_COPY && op->u.copy.kind != RIDGE_COPY_D2D;
        double bw = pcie ? ridge_gpu_pcie_bw_bytes_per_s(g) : g->memory_bw_bytes_per_s;
        double t_flops = r->flops > 0 && g->peak_flops_per_s[r->peak] > 0 ? r->flops / g->peak_flops_per_s[r->peak] : 0;
        double t_bytes;
        r->min_bytes = min_bytes;
        t_bytes = r->min_bytes / bw;
        r->intensity_flops_per_byte = r->min_bytes > 0 ? r->flops / r->min_bytes : 0;
        r->achieved_flops_per_s = r->flops / r->time_s;
        r->achieved_bytes_per_s = r->min_bytes / r->time_s;
        r->roof_efficiency = (t_flops > t_bytes ? t_flops : t_bytes) / r->time_s;
    }
    return RIDGE_OK;
}
