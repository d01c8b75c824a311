/* Convolution as implicit GEMM (docs/model.md, "Convolution").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <string.h>

#include "cost_models.h"
#include "gemm.h"

/* Grouped convolutions with fewer channels per group than this run as direct (depthwise-style)
 * kernels on the vector path: per-group GEMMs this narrow cannot feed tensor cores. An ungrouped
 * convolution with few input channels (the RGB stem) still runs as implicit GEMM, misaligned. */
#define RK_CONV_MIN_TENSOR_CHANNELS 8.0

/* cuDNN's non-fused Winograd F(4x4, 3x3) (docs/model.md, "Convolution"): each 6x6 input tile
 * gives a 4x4 output tile; the convolution becomes 36 independent GEMMs in the transformed domain
 * (one per tile element) between a transform of the input and one of the output. */
#define RK_WINO_OUT 4.0                           /* output tile edge m */
#define RK_WINO_TILE 6.0                          /* transformed tile edge m + r - 1 */
#define RK_WINO_ELEMS (RK_WINO_TILE * RK_WINO_TILE) /* GEMMs in the batch */
/* FP32 convolutions on CUDA cores with channels_last tensors (TF32 off): cuDNN runs its NHWC
 * FFMA implicit-GEMM kernels, which reach this share of the SGEMM rate (docs/model.md §3;
 * h200-2026-11-29/a/fp32_n128_c64_k64_hw56_r3_s1 and fp32_n128_c512_k512_hw7_r3_s1: 35.6 and
 * 31.8 TFLOP/s, 0.59 and 0.53 of 0.9 x 67 TFLOP/s). Its Winograd kernels are NCHW: an NHWC
 * convolution pays a transpose of its input and of its output around them. */
#define RK_CONV_NHWC_FFMA_SHARE 0.55

/* cuDNN's FP32 (FFMA) forward and data-gradient kernels, implicit GEMM and Winograd's batched
 * GEMM alike, keep their grid: no split over the reduction, as its FP32 recurrent GEMMs (lstm.c)
 * and cuBLAS's FFMA GEMMs (gemm.c); the filter gradient (K = n p q) splits over the images, and
 * the tensor-core kernels split or run stream-K (docs/model.md §3, "FP32 grids"). */
static int ffma_grid(const ridge_op *op)
{
    return op->dtype == RIDGE_DTYPE_FP32 && op->u.conv.pass != RIDGE_PASS_BWD_FILTER ? RK_GEMM_NO_SPLIT_K : 0;
}

/* Arithmetic of the tile transforms per transformed element (B^T d B, A^T m A: a few adds and
 * constant multiplies per element of each 1-D pass, two passes). Never the bound: ~1 FLOP/B. */
#define RK_WINO_TRANSFORM_FLOPS 8.0

/* A streaming transform kernel reading `in` and writing `out` elements, summed into r; `cold`:
 * it reads or writes the filter itself (the op's cold bytes), not a transformed copy. */
static void wino_transform(const rk_kernel_prepared *kp, const ridge_op *op, double in, double out, int cold,
                           ridge_kernel_result *r)
{
    ridge_kernel_result part;
    double bytes = (in + out) * rk_dtype_bytes(op->dtype);
    rk_streaming(kp, op->dtype, RK_WINO_TRANSFORM_FLOPS * (in > out ? in : out),
                 cold ? rk_op_bytes(op, bytes) : rk_hot(bytes), 1, &part);
    rk_accumulate(r, &part, 1);
}

/* The Winograd algorithm for one pass of an ungrouped 3x3 stride-1 convolution. Sets r to the
 * sum of its kernels (input/gradient transforms, the batched GEMM, the output transform). */
static int conv_winograd(const rk_kernel_prepared *kp, const ridge_op *op, double p, double q, ridge_kernel_result *r,
                         ridge_err *err)
{
    double n = op->u.conv.n, c = op->u.conv.c, h = op->u.conv.h, w = op->u.conv.w, k = op->u.conv.k;
    double es = rk_dtype_bytes(op->dtype), a2 = RK_WINO_ELEMS, filt = 9.0 * k * c;
    double t_out = rk_ceil(p / RK_WINO_OUT) * rk_ceil(q / RK_WINO_OUT); /* tiles over the output */
    double t_in = rk_ceil(h / RK_WINO_OUT) * rk_ceil(w / RK_WINO_OUT);  /* over the input (bwd_data) */
    double gm, gn, gk, gbytes;
    ridge_kernel_result gemm;
    int rc;

    rk_result_clear(r);
    if (op->u.conv.nhwc) {
        /* NHWC -> NCHW of the pass's input and NCHW -> NHWC of its output, around the kernels. */
        double x = n * c * h * w, y = n * k * p * q;
        double in = op->u.conv.pass == RIDGE_PASS_BWD_DATA ? y : x;
        double out = op->u.conv.pass == RIDGE_PASS_BWD_DATA ? x : y; /* bwd_filter: dY, the second input */
        wino_transform(kp, op, in, in, 0, r);
        wino_transform(kp, op, out, out, 0, r);
    }
    switch (op->u.conv.pass) {
    case RIDGE_PASS_BWD_DATA:
        /* dX = dY correlated with the flipped filter: the forward with c and k swapped. */
        wino_transform(kp, op, n * k * p * q, a2 * n * t_in * k, 0, r);
        wino_transform(kp, op, filt, a2 * k * c, 1, r);
        gm = n * t_in, gn = c, gk = k;
        wino_transform(kp, op, a2 * n * t_in * c, n * c * h * w, 0, r);
        break;
    case RIDGE_PASS_BWD_FILTER:
        /* dW[e] = sum over images and tiles of dY^[e] x X^[e]: the reduction runs over n * tiles. */
        wino_transform(kp, op, n * c * h * w, a2 * n * t_out * c, 0, r);
        wino_transform(kp, op, n * k * p * q, a2 * n * t_out * k, 0, r);
        gm = k, gn = c, gk = n * t_out;
        wino_transform(kp, op, a2 * k * c, filt, 1, r);
        break;
    default:
        wino_transform(kp, op, n * c * h * w, a2 * n * t_out * c, 0, r);
        wino_transform(kp, op, filt, a2 * k * c, 1, r);
        gm = n * t_out, gn = k, gk = c;
        /* the output transform is the epilogue: it also reads a fused residual */
        wino_transform(kp, op, a2 * n * t_out * k + op->epilogue_bytes / es, n * k * p * q, 0, r);
        break;
    }
    gbytes = a2 * (gm * gk + gk * gn + gm * gn) * es;
    rc = rk_gemm(kp, op->dtype, gm, gn, gk, a2, RIDGE_LAYOUT_NT, c < k ? c : k, rk_hot(gbytes),
                 op->u.conv.nhwc ? RK_CONV_NHWC_FFMA_SHARE : 1.0, ffma_grid(op), &gemm, err);
    if (rc != RIDGE_OK)
        return rc;
    rk_accumulate(r, &gemm, 1);
    r->peak = gemm.peak;
    r->tensor = gemm.tensor;
    r->tile_m = gemm.tile_m;
    r->tile_n = gemm.tile_n;
    r->tiles = gemm.tiles;
    r->waves = gemm.waves;
    r->wave_efficiency = gemm.wave_efficiency;
    r->split_k = gemm.split_k;
    r->align_efficiency = gemm.align_efficiency;
    r->flops = rk_conv_flops(op, p, q);
    rk_composite_bound(r);
    return RIDGE_OK;
}

int rk_conv2d(const rk_kernel_prepared *kp, const ridge_op *op, ridge_kernel_result *r, ridge_err *err)
{
    double n = op->u.conv.n, c = op->u.conv.c, h = op->u.conv.h, w = op->u.conv.w, k = op->u.conv.k;
    double rr = op->u.conv.r, s = op->u.conv.s, stride = op->u.conv.stride;
    double groups = op->u.conv.groups > 0 ? op->u.conv.groups : 1;
    double cg = c / groups, kg = k / groups, gm, gn, gk, align;
    double p = rk_conv_out(h, op->u.conv.pad, rr, stride), q = rk_conv_out(w, op->u.conv.pad, s, stride);
    double flops = rk_conv_flops(op, p, q), bytes = rk_conv_bytes(op, p, q) + op->epilogue_bytes;
    int rc;

    if (groups > 1 && (cg < RK_CONV_MIN_TENSOR_CHANNELS || kg < RK_CONV_MIN_TENSOR_CHANNELS)) {
        /* Depthwise and narrow grouped convolutions: each output reads r*s*cg inputs. */
        double mult = op->u.conv.pass == RIDGE_PASS_FWD ? 1.0 : 1.5; /* backward reads more */
        rk_streaming(kp, op->dtype, flops, rk_op_bytes(op, bytes * mult), 1, r);
        return rk_predicted(kp, op, bytes, r, err);
    }
    switch (op->u.conv.pass) {
    case RIDGE_PASS_BWD_DATA: gm = n * h * w; gn = cg; gk = kg * rr * s; break;
    case RIDGE_PASS_BWD_FILTER: gm = kg; gn = cg * rr * s; gk = n * p * q; break;
    default: gm = n * p * q; gn = kg; gk = cg * rr * s; break;
    }
    /* NHWC: the contiguous dimensions are the channel counts. */
    align = cg < kg ? cg : kg;
    rc = rk_gemm(kp, op->dtype, gm, gn, gk, groups, RIDGE_LAYOUT_NT, align, rk_op_bytes(op, bytes),
                 op->u.conv.nhwc && op->dtype == RIDGE_DTYPE_FP32 ? RK_CONV_NHWC_FFMA_SHARE : 1.0,
                 RK_GEMM_PLAIN_FINISH | ffma_grid(op), r, err);
    if (rc != RIDGE_OK)
        return rc;
    /* Report the useful FLOPs of the convolution (bwd_data with stride > 1 computes on zeros). */
    r->flops = flops;
    /* FP32 3x3 stride-1 convolutions on CUDA cores: cuDNN (benchmark mode) also times Winograd and
     * keeps the faster. Tensor-core paths keep implicit GEMM (docs/model.md, "Convolution"). */
    if (groups == 1 && rr == 3 && s == 3 && stride == 1 && op->dtype == RIDGE_DTYPE_FP32 && !r->tensor) {
        ridge_kernel_result wino;
        rc = conv_winograd(kp, op, p, q, &wino, err);
        if (rc != RIDGE_OK)
            return rc;
        if (wino.time_s < r->time_s)
            *r = wino;
    }
    return rk_predicted(kp, op, bytes, r, err);
}
