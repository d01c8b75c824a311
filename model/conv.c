/* Convolution as implicit GEMM (docs/model.md, "Convolution").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>

#include "kernel_internal.h"

/* Grouped convolutions with fewer channels per group than this run as direct (depthwise-style)
 * kernels on the vector path: per-group GEMMs this narrow cannot feed tensor cores. An ungrouped
 * convolution with few input channels (the RGB stem) still runs as implicit GEMM, misaligned. */
#define RK_CONV_MIN_TENSOR_CHANNELS 8.0

int rk_conv2d(const ridge_gpu *g, const ridge_op *op, ridge_kernel_result *r, ridge_err *err)
{
    double n = op->u.conv.n, c = op->u.conv.c, h = op->u.conv.h, w = op->u.conv.w, k = op->u.conv.k;
    double rr = op->u.conv.r, s = op->u.conv.s, stride = op->u.conv.stride, pad = op->u.conv.pad;
    double groups = op->u.conv.groups > 0 ? op->u.conv.groups : 1;
    double p = rk_floor((h + 2 * pad - rr) / stride) + 1, q = rk_floor((w + 2 * pad - s) / stride) + 1;
    double cg = c / groups, kg = k / groups, gm, gn, gk, align;
    double flops = ridge_op_flops(op), bytes = ridge_op_min_bytes(op);
    int rc;

    if (groups > 1 && (cg < RK_CONV_MIN_TENSOR_CHANNELS || kg < RK_CONV_MIN_TENSOR_CHANNELS)) {
        /* Depthwise and narrow grouped convolutions: each output reads r*s*cg inputs. */
        double mult = op->u.conv.pass == RIDGE_PASS_FWD ? 1.0 : 1.5; /* backward reads more */
        rk_streaming(g, op->dtype, flops, bytes * mult, 1, r);
        return RIDGE_OK;
    }
    switch (op->u.conv.pass) {
    case RIDGE_PASS_BWD_DATA: gm = n * h * w; gn = cg; gk = kg * rr * s; break;
    case RIDGE_PASS_BWD_FILTER: gm = kg; gn = cg * rr * s; gk = n * p * q; break;
    default: gm = n * p * q; gn = kg; gk = cg * rr * s; break;
    }
    /* NHWC: the contiguous dimensions are the channel counts. */
    align = cg < kg ? cg : kg;
    rc = rk_gemm(g, op->dtype, gm, gn, gk, groups, align, bytes, 1.0, r, err);
    if (rc != RIDGE_OK)
        return rc;
    /* Report the useful FLOPs of the convolution (bwd_data with stride > 1 computes on zeros). */
    r->flops = flops;
    rk_finish(g, r);
    return RIDGE_OK;
}
