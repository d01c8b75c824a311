/* Private: the kernel model's figures that depend on the GPU alone (or on the GPU and a dtype),
 * derived once by rk_kernel_prep, and the prediction of one op from them,
 * rk_kernel_predict_prepared: for a caller that predicts many ops on one GPU (the parallel
 * model's evaluation). ridge_kernel_predict is the two in one call, so the two paths give the
 * same bytes. The cost models (cost_models.h, gemm.h) take the prepared figures too.
 *
 * Contract: rk_kernel_prep reads *g, and the prediction reads the prepared figures and *g (the
 * fields not prepared): g must outlive p and stay unchanged while p is used; a caller that edits
 * the GPU (ridge calibrate edits its efficiency fields in place) prepares again after the edit.
 * One field is read from g by every prediction, never prepared: no_split_k, which the parallel
 * model sets and clears on its GPU between the passes of its schedule.
 * p is plain data the caller owns (no allocation, no global state): prepared once, it may be read
 * by many threads at once.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_KERNEL_PREP_H
#define RIDGE_KERNEL_PREP_H

#include "ridge/kernel.h"

#include "attrs.h" /* RIDGE_PRIVATE: the kernel model's private functions are not exported */

/* The figures of one dtype: its peaks and the rates the cost models divide by. */
typedef struct {
    double es, es_out;      /* rk_dtype_bytes(dt), rk_gemm_out_bytes(dt) */
    long long es_i;         /* es when it is whole, else 0 (int4) */
    int tensor_peak;        /* rk_tensor_peak(g, dt): -1 when the GPU has no tensor path for dt */
    ridge_peak vector_peak; /* rk_vector_peak(g, dt) */
    double tensor_rate;     /* peak x its efficiency fraction (tensor path; 0 without one): a custom op's */
    double vector_rate;     /* the same on the vector path: a streaming kernel's */
    /* A GEMM's rate per SM on the tensor and on the vector path, before its alignment factor and
     * eff_scale: peak (tensor: x the clock shares, Ada's and the power limit's) / SMs x fraction. */
    double gemm_tensor_sm, gemm_vector_sm;
} rk_dtype_prep;

/* The GEMM model's figures of one tile size class (gemm.c, rk_tile.size): its CTAs per SM (0: it
 * does not fit), fill and drain time t_over, and stream-K fix-up time. */
#define RK_GEMM_TILE_SIZES 4
typedef struct {
    double ctas, t_over, fix;
} rk_gemm_size_prep;

typedef struct {
    const ridge_gpu *g;
    /* 1 (rk_kernel_prep): a prediction fills every field of its result. A caller that reads none
     * of the five derived fields (min_bytes, intensity_flops_per_byte, achieved_flops_per_s,
     * achieved_bytes_per_s, roof_efficiency) may set 0: they are then left as they were. */
    int derived;
    int cc;     /* rk_cc(g) */
    int hopper; /* compute capability 9.x */
    double sm, inv_sm;                 /* SMs, 1 / SMs */
    double kernel_floor_s, dram_latency_s;
    double dram_bw;                    /* memory_bw_bytes_per_s x dram_fraction: the streaming rate */
    double l2_bw, inv_l2_bw;           /* eff.l2_bandwidth_bytes_per_s and its reciprocal */
    double inv_dram_l2_bw;             /* 1 / (dram_bw + l2_bw): partial sums through both */
    double l2_bytes, l2_full, l2_span; /* L2 capacity, the share served entirely (rk_l2_hit), the rest */
    double tensor_clock_share;         /* rk_tensor_clock_share_cc(g, cc) */
    double inv_epi;                    /* 1 / (epilogue bytes per clock x tensor clock) (gemm.c) */
    double gemm_lo_floor;              /* the least floor of a GEMM candidate (gemm.c) */
    int gemm_lb_ok;                    /* the GEMM search's bounds apply (its times are >= 0: gemm.c) */
    double gemm_gddr_x;                /* GDDR tile streams: extra seconds per DRAM byte (0 on HBM; gemm.c) */
    double gemm_gddr_narrow_x;         /* the same for a narrow GEMM (m or n <= 16; 0 on HBM) */
    double gemm_gddr_gemv_x;           /* the same for a GEMV (m or n = 1; 0 on HBM) */
    double gemm_occ0, gemm_occ1;       /* a grid of T < SM tiles streams DRAM (occ0 + occ1 / T) x slower (gemm.c) */
    double row_ctas;                   /* SMs x CTAs of a row kernel per SM (memory_bound.c) */
    double row_clock_hz;               /* the clock of its block reductions */
    double gpu_threads;                /* threads resident on the whole GPU at once */
    double half_smem;                  /* the longest row a CTA holds on chip, in bytes */
    double bn_bwd_round;               /* elements a round of the channels_last batch-norm backward elemt kernel */
    double attn_fwd, attn_bwd;         /* attention's shares of the GEMM efficiency (attention.c) */
    rk_dtype_prep dt[RIDGE_DTYPE_COUNT];
    rk_gemm_size_prep gemm_size[RK_GEMM_TILE_SIZES]; /* the tile sizes' (gemm.c) */
} rk_kernel_prepared;

/* Fill *p from *g: every figure above, for every dtype (p->derived = 1). */
RIDGE_PRIVATE void rk_kernel_prep(const ridge_gpu *g, rk_kernel_prepared *p);
/* ridge_kernel_predict(p->g, op, r, err), from the prepared figures: the same result and status,
 * byte for byte (with p->derived 0, the derived fields aside). */
RIDGE_PRIVATE int rk_kernel_predict_prepared(const rk_kernel_prepared *p, const ridge_op *op, ridge_kernel_result *r,
                                             ridge_err *err);

#endif
