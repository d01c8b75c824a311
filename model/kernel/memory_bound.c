/* Memory-bound operators: elementwise, normalisations, reductions, embedding gathers, copies
 * and custom kernels (docs/model.md, "Memory-bound operators").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "cost_models.h"
#include "roofline.h"

/* Host<->device copies: achievable share of the PCIe link (pinned memory, large transfers) and
 * the fixed cost of one cudaMemcpy (driver call, DMA set-up and completion). */
#define RK_PCIE_FRACTION 0.80
#define RK_PCIE_LATENCY_S 8e-6

/* Rows longer than this share of an SM's shared memory cannot be held on chip by one CTA:
 * normalisations then read their input twice (statistics pass, then normalise pass). */
#define RK_ROW_ON_CHIP_FRACTION 0.5

/* Row kernels (docs/model.md §6, "One CTA per row"): a kernel that gives each row to one CTA of
 * this many threads, and the time of one block-wide reduction in such a CTA (warp shuffles, a
 * __syncthreads, the shared-memory exchange and the broadcast of the result), in SM clocks. */
#define RK_ROW_CTA_THREADS 1024.0
#define RK_ROW_REDUCE_CYCLES 1500.0
/* Softmax and norm rows at most this long (elements, and bytes) go to one warp each, many rows per
 * CTA (PyTorch's persistent softmax and its warp-per-row norms): no per-row CTA cost. */
#define RK_ROW_WARP_MAX_ELEMS 1024.0
#define RK_ROW_WARP_MAX_BYTES 4096.0

/* Elements a round of PyTorch's channels_last batch-norm per-element kernels as ptxas schedules
 * them (below, "channels_last batch-norm kernels"). */
#define RK_BN_CL_TRANSFORM_ROUND 2.0 /* elements a round: the transform, and the backward elemt kernel */
#define RK_BN_CL_BWD_ROUND_SM86 4.0  /* the backward elemt kernel on sm_86 and sm_89 */

void rk_memory_bound_prep(rk_kernel_prepared *p)
{
    const ridge_gpu *g = p->g;
    int cc = rk_cc(g);
    /* Threads resident on one SM at once (2,048 where the file does not say), and the CTAs of a
     * row kernel that fit beside each other (at least one). */
    double resident = g->max_warps_per_sm > 0 ? 32.0 * g->max_warps_per_sm : 2048.0;
    double ctas = rk_floor(resident / RK_ROW_CTA_THREADS);
    if (ctas < 1)
        ctas = 1;
    p->gpu_threads = g->sm_count * resident;
    p->row_ctas = g->sm_count * ctas;
    p->row_clock_hz = g->boost_clock_hz > 0 ? g->boost_clock_hz : 1.5e9;
    p->half_smem = RK_ROW_ON_CHIP_FRACTION * g->smem_per_sm_bytes;
    p->bn_bwd_round = cc == 86 || cc == 89 ? RK_BN_CL_BWD_ROUND_SM86 : RK_BN_CL_TRANSFORM_ROUND;
}

/* Time of the rounds of a one-CTA-per-row kernel: rows / (SMs x CTAs per SM) rounds, each of
 * `loads` dependent passes over the row (one DRAM latency each) and `reductions` block-wide
 * reductions. 0 when the rows go to warps. */
static double row_rounds_s(const rk_kernel_prepared *p, double rows, double cols, double es, double loads,
                           double reductions, ridge_row_kernel kernel)
{
    if (kernel == RIDGE_ROW_WARP ||
        (kernel == RIDGE_ROW_AUTO && cols <= RK_ROW_WARP_MAX_ELEMS && cols * es <= RK_ROW_WARP_MAX_BYTES))
        return 0;
    return rk_ceil(rows / p->row_ctas) * (loads * p->dram_latency_s + reductions * RK_ROW_REDUCE_CYCLES / p->row_clock_hz);
}

/* Elementwise kernels over non-contiguous inputs (docs/model.md §6, "Strided inputs"): PyTorch's
 * TensorIterator takes its legacy path (elementwise_kernel<128, 4> with an OffsetCalculator), whose
 * per-element loop loads, computes and stores through untyped pointers that may alias, so a
 * thread's next loads wait for its previous store: one element per thread in flight. Every
 * resident thread of every SM then waits one DRAM latency per element it handles. */
static double strided_rounds_s(const rk_kernel_prepared *p, double elements)
{
    return rk_ceil(elements / p->gpu_threads) * p->dram_latency_s;
}

/* PyTorch's channels_last batch-norm kernels (docs/model.md §6, "Channels-last batch norm"): an
 * (m, c) tensor, threads along the channels (32 per block row) and 16 block rows, at most 128
 * blocks along m (flexible_launch_configs in Normalization.cuh: MAX_BLOCK_SIZE 512, OPTIMAL_TILE_W
 * 32, ELEMENTS_PER_THREAD 16, MAX_H_BLOCK 128), so about 2,048 threads per channel however long the
 * column. Each thread walks its channel's column with `in_flight` elements' loads outstanding per
 * round; every round waits one DRAM latency. The reductions keep their PARALLEL_LOADS = 4 explicit
 * buffers in flight. The per-element kernels' four-way unrolled loop (ELEMENTS_PER_ITER) is
 * scheduled by ptxas (CUDA 13.0) into rounds: the transform loads 3 elements, stores them, then
 * loads the 4th (sm_80 to sm_90: 2 elements a round); the backward elemt kernel loads 2 elements a
 * round on sm_80 and sm_90 and 4 on sm_86 / sm_89. The grid is persistent and every thread runs
 * the same rounds, so a round's loads reach the memory as one burst and the round ends when the
 * burst has been served: latency plus the round's bytes at the streaming rate (closed, in lockstep). */
#define RK_BN_CL_TILE_W 32.0
#define RK_BN_CL_BLOCK_ROWS 16.0
#define RK_BN_CL_ELEMS_PER_THREAD 16.0
#define RK_BN_CL_MAX_H_BLOCK 128.0
#define RK_BN_CL_PARALLEL_LOADS 4.0
#define RK_BN_CL_COOP_MIN_BLOCKS 8.0
/* Elements a round of a per-element kernel: the transform's (one input), or the backward elemt
 * kernel's (x and dy), prepared per GPU in rk_memory_bound_prep. */
static double bn_elemt_in_flight(const rk_kernel_prepared *p, double inputs)
{
    return inputs >= 2 ? p->bn_bwd_round : RK_BN_CL_TRANSFORM_ROUND;
}
/* grid_y, PyTorch's flexible_launch_configs: blocks down a column of m elements, at most
 * MAX_H_BLOCK; a cooperative (grid) reduction of fewer than 8 takes one block down the column,
 * "not worth having a grid reduction if the reduction dimension is not big enough". */
static double column_blocks(double m, int coop)
{
    double grid_y = rk_ceil(m / (RK_BN_CL_BLOCK_ROWS * RK_BN_CL_ELEMS_PER_THREAD));
    return coop && grid_y < RK_BN_CL_COOP_MIN_BLOCKS ? 1 : grid_y;
}
static double column_rounds_s(const rk_kernel_prepared *p, double channels, double elements, double in_flight,
                              int coop)
{
    double m = elements / channels;
    double grid_y = column_blocks(m, coop);
    double threads = rk_ceil(channels / RK_BN_CL_TILE_W) * RK_BN_CL_TILE_W * RK_BN_CL_BLOCK_ROWS *
                     (grid_y < RK_BN_CL_MAX_H_BLOCK ? grid_y : RK_BN_CL_MAX_H_BLOCK);
    if (threads > p->gpu_threads)
        threads = p->gpu_threads;
    return rk_ceil(elements / (threads * in_flight)) * p->dram_latency_s;
}

/* A streaming kernel whose rows go to one CTA each: the slower of streaming and the row rounds. A
 * closed kernel (`closed` 1: the channels_last batch norms' persistent grids, above) adds to its rounds the
 * streaming time beyond the first latency, which the rounds already count. */
static void row_kernel(double t_rows, int closed, double latency_s, ridge_kernel_result *r)
{
    double t = rk_max(r->compute_s, rk_max(r->memory_s, r->l2_s));
    if (closed && r->memory_s > latency_s)
        t_rows += r->memory_s - latency_s;
    if (t_rows > t) {
        r->time_s = r->floor_s + t_rows;
        r->bound = RIDGE_BOUND_LATENCY;
    }
}

/* FP32 instructions per element of the functions an elementwise op may name (ridge_ew_fn),
 * conversions from and to the storage type and the multiply-adds around the function included:
 * frameworks compute half-precision elementwise math in FP32 (PyTorch's opmath), so these run at
 * the FP32 rate whatever the dtype, one instruction being an FMA's 2 FLOPs (docs/model.md §6).
 * gelu_erf from h200-2026-11-29/a/gelu_bf16_65536x4096 (0.344 ms for 268 M elements: 41 per
 * element at 0.9 x 33.4 T lane-instructions/s); the others are estimates from the CUDA math
 * library's sequences (expf ~12, tanhf ~18, an IEEE division ~10) until records price them. */
static const double ew_fn_instructions[RIDGE_EW_FN_COUNT] = {
    [RIDGE_EW_PLAIN] = 0, [RIDGE_EW_GELU_ERF] = 40, [RIDGE_EW_GELU_TANH] = 26, [RIDGE_EW_SILU] = 28, [RIDGE_EW_EXP] = 16,
};

/* An elementwise op's FLOPs and the peak they run at: a named function is FP32 math
 * (ew_fn_instructions, two FLOPs each); plain ops keep flops_per_element at the dtype's rate. */
static void ew_work(const ridge_op *op, double *flops, ridge_dtype *dt)
{
    *dt = op->dtype;
    if (op->u.ew.fn != RIDGE_EW_PLAIN && (unsigned)op->u.ew.fn < RIDGE_EW_FN_COUNT) {
        double f = 2.0 * ew_fn_instructions[op->u.ew.fn];
        *flops = op->u.ew.elements * (f > op->u.ew.flops_per_element ? f : op->u.ew.flops_per_element);
        *dt = RIDGE_DTYPE_FP32;
    }
}

/* A named function's instruction stream (ew_fn_instructions: FP32 arithmetic mixed with selects,
 * integer and conversion instructions) is bound by instruction issue, four warp instructions per
 * SM clock on every NVIDIA SM since Volta, not by the FP32 lanes alone (docs/model.md §6,
 * "Elementwise functions"). Where an SM has 128 FP32 lanes (Hopper, Blackwell, GA10x, AD10x) the
 * FP32 peak is that issue rate; where it has 64 (V100, T4, A100, A30) the issue rate is twice the
 * FP32 peak, and of the slots only the lanes' share can be FP32 arithmetic. fn_issue_share is
 * issue width / FP32 lanes (at least 1): the function's FLOPs on the FP32 lanes are its
 * instruction FLOPs over it, timed at the FP32 vector rate (so, its instructions at the issue
 * rate). */
#define RK_ISSUE_LANES_PER_SM 128.0
static double fn_issue_share(const ridge_gpu *g)
{
    double lanes = (double)g->fp32_lanes / g->sm_count;
    if (g->vendor[0] != 'n' || !(lanes > 0) || lanes >= RK_ISSUE_LANES_PER_SM)
        return 1.0;
    return RK_ISSUE_LANES_PER_SM / lanes;
}

static double row_passes(const rk_kernel_prepared *p, const ridge_op *op)
{
    double row_bytes = op->u.rows.cols * rk_dtype_bytes(op->dtype);
    return row_bytes > p->half_smem ? 2.0 : 1.0;
}

/* One streaming kernel per op (rk_streaming_in, inlined once): each kind sets the math dtype,
 * FLOPs, bytes and launches it streams, and the time of the rounds of a row or column kernel
 * (row_kernel) where it has one; PCIe copies and tensor-core custom ops are their own. */
int rk_memory_bound(const rk_kernel_prepared *p, const ridge_op *op, ridge_kernel_result *r, ridge_err *err)
{
    double flops, bytes, kernels = 1, t_rows = 0;
    /* rk_op_flops(op) and rk_op_min_bytes(op), their memory-bound part inline */
    rk_mb_work(op, &flops, &bytes);
    bytes += op->epilogue_bytes; /* the op's compulsory bytes */
    ridge_dtype math = op->dtype;
    rk_bytes b;
    int rows = 0; /* 1: t_rows is a row kernel's rounds */
    int closed = 0;
    switch (op->kind) {
    case RIDGE_OP_SOFTMAX:
    case RIDGE_OP_LAYERNORM:
    case RIDGE_OP_RMSNORM: {
        /* Extra passes re-read the input (rows x cols elements). */
        double es = rk_dtype_bytes(op->dtype), passes = row_passes(p, op);
        double extra = (passes - 1) * op->u.rows.rows * op->u.rows.cols * es;
        /* Softmax: a max pass, a sum-of-exponentials pass and the normalising pass, two block
         * reductions; the norms: the moments in one pass and one (Welford) reduction. */
        int sm = op->kind == RIDGE_OP_SOFTMAX;
        b = rk_op_bytes_capped(op, bytes + extra, bytes);
        t_rows = row_rounds_s(p, op->u.rows.rows, op->u.rows.cols, es, sm ? 3 : passes, sm ? 2 : 1, op->u.rows.kernel);
        rows = 1;
        break;
    }
    case RIDGE_OP_COPY:
        if (op->u.copy.kind != RIDGE_COPY_D2D) {
            double pcie = ridge_gpu_pcie_bw_bytes_per_s(p->g), bw = pcie * RK_PCIE_FRACTION;
            rk_result_clear(r);
            r->peak = RIDGE_PEAK_FP32;
            r->kernels = 1;
            r->dram_bytes = bytes;
            r->memory_s = RK_PCIE_LATENCY_S + bytes / bw;
            r->time_s = r->memory_s;
            r->bound = bytes / bw > RK_PCIE_LATENCY_S ? RIDGE_BOUND_MEMORY : RIDGE_BOUND_LATENCY;
            r->wave_efficiency = 1;
            r->split_k = 1;
            r->align_efficiency = 1;
            return rk_predicted_bw(p, op, bytes, pcie, r, err);
        }
        flops = 0;
        b = rk_op_bytes(op, bytes);
        break;
    case RIDGE_OP_CUSTOM:
        if (op->u.custom.unit == RIDGE_UNIT_TENSOR) {
            const rk_dtype_prep *d = &p->dt[op->dtype];
            int tp = d->tensor_peak;
            if (tp < 0)
                return rk_no_tensor_path(p->g, op->dtype, err);
            rk_result_clear(r);
            r->peak = (ridge_peak)tp;
            r->tensor = 1;
            r->flops = flops;
            r->kernels = 1;
            r->compute_s = flops / d->tensor_rate;
            rk_l2_split(p, rk_op_bytes(op, bytes), 0, 0, &r->dram_bytes, &r->l2_bytes);
            r->wave_efficiency = 1;
            r->split_k = 1;
            r->align_efficiency = 1;
            rk_finish(p, r);
            return rk_predicted(p, op, bytes, r, err);
        }
        b = rk_op_bytes(op, bytes);
        break;
    case RIDGE_OP_REDUCE:
        /* A channels_last batch-norm reduction with a grid reduction (grid_y >= 8 blocks along
         * the column) zero-fills its semaphores first: one more kernel per launch. */
        b = rk_op_bytes(op, bytes);
        if (op->u.rows.kernel == RIDGE_ROW_COLUMN && column_blocks(op->u.rows.cols, 1) >= RK_BN_CL_COOP_MIN_BLOCKS)
            kernels = 2;
        kernels += op->u.rows.aux_kernels;
        /* A framework reduction over short rows gives them to warps (one pass); a kernel that
         * launches one CTA per row (row_kernel cta) pays its rounds whatever the row length. */
        if (op->u.rows.kernel == RIDGE_ROW_COLUMN) {
            t_rows =
                column_rounds_s(p, op->u.rows.rows, op->u.rows.rows * op->u.rows.cols, RK_BN_CL_PARALLEL_LOADS, 1);
            rows = 1;
            closed = 1;
        } else if (op->u.rows.rows > 1) {
            t_rows = row_rounds_s(p, op->u.rows.rows, op->u.rows.cols, rk_dtype_bytes(op->dtype), 1, 1, op->u.rows.kernel);
            rows = 1;
        }
        break;
    case RIDGE_OP_ELEMENTWISE:
        ew_work(op, &flops, &math);
        kernels += op->u.ew.aux_kernels;
        if (op->u.ew.fn != RIDGE_EW_PLAIN)
            flops /= fn_issue_share(p->g);
        b = rk_op_bytes(op, bytes);
        rows = 1;
        if (op->u.ew.rows > 0)
            t_rows = row_rounds_s(p, op->u.ew.rows, op->u.ew.elements / op->u.ew.rows, rk_dtype_bytes(op->dtype), 1, 0,
                                  RIDGE_ROW_CTA);
        else if (op->u.ew.strided_inputs > 0)
            t_rows = strided_rounds_s(p, op->u.ew.elements);
        else if (op->u.ew.channels > 0) {
            t_rows = column_rounds_s(p, op->u.ew.channels, op->u.ew.elements, bn_elemt_in_flight(p, op->u.ew.inputs), 0);
            closed = 1;
        } else
            rows = 0;
        break;
    default:
        /* embedding */
        b = rk_op_bytes(op, bytes);
        break;
    }
    rk_streaming_in(p, math, flops, b, kernels, r);
    if (rows)
        row_kernel(t_rows, closed, p->dram_latency_s, r);
    return rk_predicted(p, op, bytes, r, err);
}
