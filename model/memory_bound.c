/* Memory-bound operators: elementwise, normalisations, reductions, embedding gathers, copies
 * and custom kernels (docs/model.md, "Memory-bound operators").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "kernel_internal.h"

/* Host<->device copies: achievable share of the PCIe link (pinned memory, large transfers) and
 * the fixed cost of one cudaMemcpy (driver call, DMA set-up and completion). */
#define RK_PCIE_FRACTION 0.80
#define RK_PCIE_LATENCY_S 8e-6

/* Rows longer than this share of an SM's shared memory cannot be held on chip by one CTA:
 * normalisations then read their input twice (statistics pass, then normalise pass). */
#define RK_ROW_ON_CHIP_FRACTION 0.5

static double row_passes(const ridge_gpu *g, const ridge_op *op)
{
    double row_bytes = op->u.rows.cols * ridge_dtype_bytes(op->dtype);
    return row_bytes > RK_ROW_ON_CHIP_FRACTION * g->smem_per_sm_bytes ? 2.0 : 1.0;
}

int rk_memory_bound(const ridge_gpu *g, const ridge_op *op, ridge_kernel_result *r, ridge_err *err)
{
    double flops = ridge_op_flops(op), bytes = ridge_op_min_bytes(op);
    switch (op->kind) {
    case RIDGE_OP_SOFTMAX:
    case RIDGE_OP_LAYERNORM:
    case RIDGE_OP_RMSNORM: {
        /* Extra passes re-read the input (rows x cols elements). */
        double extra = (row_passes(g, op) - 1) * op->u.rows.rows * op->u.rows.cols * ridge_dtype_bytes(op->dtype);
        rk_streaming(g, op->dtype, flops, rk_op_bytes_capped(op, bytes + extra, bytes), 1, r);
        return RIDGE_OK;
    }
    case RIDGE_OP_COPY:
        if (op->u.copy.kind != RIDGE_COPY_D2D) {
            double bw = ridge_gpu_pcie_bw_bytes_per_s(g) * RK_PCIE_FRACTION;
            memset(r, 0, sizeof *r);
            r->peak = RIDGE_PEAK_FP32;
            r->kernels = 1;
            r->dram_bytes = bytes;
            r->memory_s = RK_PCIE_LATENCY_S + bytes / bw;
            r->time_s = r->memory_s;
            r->bound = bytes / bw > RK_PCIE_LATENCY_S ? RIDGE_BOUND_MEMORY : RIDGE_BOUND_LATENCY;
            r->wave_efficiency = 1;
            r->split_k = 1;
            r->align_efficiency = 1;
            return RIDGE_OK;
        }
        rk_streaming(g, op->dtype, 0, rk_op_bytes(op, bytes), 1, r);
        return RIDGE_OK;
    case RIDGE_OP_CUSTOM:
        if (op->u.custom.unit == RIDGE_UNIT_TENSOR) {
            int tp = rk_tensor_peak(g, op->dtype);
            if (tp < 0)
                return rk_no_tensor_path(g, op->dtype, err);
            memset(r, 0, sizeof *r);
            r->peak = (ridge_peak)tp;
            r->tensor = 1;
            r->flops = flops;
            r->kernels = 1;
            r->compute_s = flops / (g->peak_flops_per_s[tp] * ridge_efficiency_fraction(&g->eff, (ridge_peak)tp));
            rk_l2_split(g, rk_op_bytes(op, bytes), 0, &r->dram_bytes, &r->l2_bytes);
            r->wave_efficiency = 1;
            r->split_k = 1;
            r->align_efficiency = 1;
            rk_finish(g, r);
            return RIDGE_OK;
        }
        rk_streaming(g, op->dtype, flops, rk_op_bytes(op, bytes), 1, r);
        return RIDGE_OK;
    default:
        /* elementwise, reduce, embedding */
        rk_streaming(g, op->dtype, flops, rk_op_bytes(op, bytes), 1, r);
        return RIDGE_OK;
    }
}
