/* LSTM layer stacks as cuDNN runs them: one input-projection GEMM per layer over all time
 * steps, then per step a recurrent GEMM and a pointwise kernel (docs/model.md, "LSTM").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <string.h>

#include "cost_models.h"
#include "gemm.h"

/* Gate pointwise math per hidden unit and step: 3 sigmoids, 2 tanh, 5 multiply-adds. */
#define RK_LSTM_POINTWISE_FLOPS 10.0

/* One of the layer's GEMMs, `times` over. `align` is the smallest leading dimension of its
 * operands (docs/model.md §2, "Alignment"): min(k, n) for the forward and data-gradient GEMMs
 * (activations b·t x k, weights k x n, output b·t x n), min(m, n) for the weight gradient, whose
 * K = b·t is the row count of both operands, stored with the channels (4h and in + h) leading. */
static int add_gemm(const rk_kernel_prepared *p, ridge_dtype dt, double m, double n, double k, double align,
                    double times, ridge_kernel_result *acc, ridge_err *err)
{
    ridge_kernel_result part;
    double es = rk_dtype_bytes(dt);
    double bytes = (m * k + k * n + m * n) * es;
    int rc = rk_gemm(p, dt, m, n, k, 1, RIDGE_LAYOUT_NT, align, rk_hot(bytes), 1.0, RK_GEMM_NO_STREAM_K | RK_GEMM_NO_SPLIT_K, &part, err);
    if (rc == RIDGE_OK)
        rk_accumulate(acc, &part, times);
    return rc;
}

int rk_lstm(const rk_kernel_prepared *p, const ridge_op *op, ridge_kernel_result *r, ridge_err *err)
{
    double b = op->u.lstm.batch, t = op->u.lstm.seq, in = op->u.lstm.input, hd = op->u.lstm.hidden;
    double layers = op->u.lstm.layers;
    int bwd = op->u.lstm.pass == RIDGE_PASS_FWD_BWD;
    double es = rk_dtype_bytes(op->dtype);
    ridge_kernel_result pw;
    int rc;

    rk_result_clear(r);
    /* Pointwise kernel per step: reads 4 gate pre-activations and the cell, writes h and c. */
    rk_streaming(p, op->dtype, RK_LSTM_POINTWISE_FLOPS * b * hd, rk_hot(b * hd * 7 * es), 1, &pw);
    /* Layer 0 reads the input, layers 1..layers-1 the hidden state of the one below and cost the
     * same: two iterations, the second counted layers - 1 times (closed form, so that a layer
     * count near the schema's 1e15, beyond 2^53 where l++ stops counting, costs no more). */
    for (int l = 0; l < 2 && l < layers; l++) {
        double in_l = l == 0 ? in : hd;
        ridge_kernel_result layer;
        memset(&layer, 0, sizeof layer);
        if ((rc = add_gemm(p, op->dtype, b * t, 4 * hd, in_l, fmin(in_l, 4 * hd), 1, &layer, err)) != RIDGE_OK)
            return rc;
        if ((rc = add_gemm(p, op->dtype, b, 4 * hd, hd, hd, t, &layer, err)) != RIDGE_OK)
            return rc;
        rk_accumulate(&layer, &pw, t);
        if (bwd) {
            /* Per step: gradient through the recurrent weights and the gates; then the input
             * gradient and the weight gradient over all steps at once. */
            if ((rc = add_gemm(p, op->dtype, b, hd, 4 * hd, hd, t, &layer, err)) != RIDGE_OK)
                return rc;
            rk_accumulate(&layer, &pw, t);
            if ((rc = add_gemm(p, op->dtype, b * t, in_l, 4 * hd, fmin(in_l, 4 * hd), 1, &layer, err)) != RIDGE_OK)
                return rc;
            if ((rc = add_gemm(p, op->dtype, 4 * hd, in_l + hd, b * t, fmin(4 * hd, in_l + hd), 1, &layer, err)) != RIDGE_OK)
                return rc;
        }
        rk_accumulate(r, &layer, l == 0 ? 1 : layers - 1);
    }
    /* Report the op's own FLOP count; the bound is the component holding most of the time. */
    r->flops = rk_op_flops(op);
    rk_composite_bound(r);
    {
        int tp = p->dt[op->dtype].tensor_peak;
        r->peak = tp >= 0 ? (ridge_peak)tp : p->dt[op->dtype].vector_peak;
        r->tensor = tp >= 0;
    }
    r->wave_efficiency = 1;
    r->split_k = 1;
    r->align_efficiency = 1;
    return rk_predicted(p, op, rk_op_min_bytes(op), r, err);
}
