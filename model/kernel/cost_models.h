/* Private: the per-operator cost models kernel.c dispatches to, one file each (conv.c,
 * attention.c, lstm.c, memory_bound.c; GEMMs go through gemm.h). They sit below kernel.c and
 * include only the roof layer (roofline.h) and gemm.h.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_COST_MODELS_H
#define RIDGE_COST_MODELS_H

#include "ridge/kernel.h"

#include "roofline.h"

/* Each predicts its op, the whole of rk_kernel_predict_prepared past the dispatch on the kind:
 * its result ends with rk_predicted (the finite-time check and the derived fields), from the op's
 * compulsory bytes, ridge_op_min_bytes(op), which a conv2d's and a memory-bound op's model
 * computes with its output sides or its FLOPs, once. (A GEMM op's is rk_gemm_op, gemm.h.) */

RIDGE_PRIVATE int rk_conv2d(const rk_kernel_prepared *p, const ridge_op *op, ridge_kernel_result *r, ridge_err *err);
RIDGE_PRIVATE int rk_attention(const rk_kernel_prepared *p, const ridge_op *op, ridge_kernel_result *r, ridge_err *err);
RIDGE_PRIVATE int rk_lstm(const rk_kernel_prepared *p, const ridge_op *op, ridge_kernel_result *r, ridge_err *err);
/* Their figures of a GPU, into *p from p->g (rk_kernel_prep): attention's architecture shares,
 * the memory-bound models' row-kernel figures. */
RIDGE_PRIVATE void rk_attention_prep(rk_kernel_prepared *p);
RIDGE_PRIVATE void rk_memory_bound_prep(rk_kernel_prepared *p);
RIDGE_PRIVATE int rk_memory_bound(const rk_kernel_prepared *p, const ridge_op *op, ridge_kernel_result *r,
                                  ridge_err *err);

#endif
