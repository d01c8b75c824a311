/* Private: the GEMM cost model (gemm.c), which the dispatch and the implicit-GEMM models (conv.c,
 * lstm.c) call.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_GEMM_H
#define RIDGE_GEMM_H

#include "roofline.h"

/* GEMM core: C[m,n] (+)= A[m,k] B[k,n] for `batch` independent problems, operands stored as
 * `layout` says. `align_elems` > 0 is the smallest contiguous dimension in elements (implicit
 * GEMMs: convolution channels, LSTM sizes); 0: every operand's leading dimension from the layout
 * (docs/model.md §2, "Alignment"). `min_bytes` are the compulsory bytes of the operator (which
 * may differ from the GEMM's view, e.g. convolution). Picks the tile shape and split-K factor of
 * least predicted time, as a library heuristic would. */
/* rk_gemm flags: the library has no stream-K kernels for this GEMM (cuDNN's recurrent GEMMs);
 * it splits K neither (vLLM's CUTLASS FP8 scaled-mm: fixed tile configurations, one CTA a tile). */
#define RK_GEMM_NO_STREAM_K 1
#define RK_GEMM_NO_SPLIT_K 2
/* A cuBLAS GEMM op (not a convolution's or an LSTM's implicit GEMM): its FFMA (SGEMM, DGEMM)
 * kernels are 128x128 tiles that do not split K (docs/model.md §2). */
#define RK_GEMM_CUBLAS 4
/* The library dispatches its tile configuration on m alone (vLLM's CUTLASS scaled-mm): a small m
 * keeps its small tile however few tiles the grid has (docs/model.md §2, "Tiles by m"). */
#define RK_GEMM_TILES_BY_M 8
/* The result's memory time is its DRAM bytes at the streaming rate alone (rk_finish), without the
 * tile-write and round-trip terms: the implicit GEMM of a convolution, whose model finishes its
 * result so (conv.c). */
#define RK_GEMM_PLAIN_FINISH 16
RIDGE_PRIVATE int rk_gemm(const rk_kernel_prepared *p, ridge_dtype dt, double m, double n, double k, double batch,
                          ridge_layout layout, double align_elems, rk_bytes min_bytes, double eff_scale, int flags,
                          ridge_kernel_result *r, ridge_err *err);
/* A GEMM op's prediction (rk_kernel_predict_prepared past its dispatch): rk_gemm of its sides,
 * layout and flags, then rk_predicted. */
RIDGE_PRIVATE int rk_gemm_op(const rk_kernel_prepared *p, const ridge_op *op, ridge_kernel_result *r, ridge_err *err);
/* The GEMM model's figures of a GPU (the tile fit inputs, the epilogue rate, the search's bound
 * constants), into *p from p->g (rk_kernel_prep). */
RIDGE_PRIVATE void rk_gemm_prep(rk_kernel_prepared *p);

#endif
