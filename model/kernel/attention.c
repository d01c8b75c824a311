/* Fused (flash-style) attention (docs/model.md, "Attention").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <string.h>

#include "cost_models.h"
#include "roofline.h"

/* Query rows per CTA tile, and the smallest KV chunk a split-KV (flash-decoding) part takes. */
#define RK_ATTN_TILE_Q 128.0
#define RK_ATTN_TILE_Q_DECODE 64.0
#define RK_ATTN_MIN_KV_CHUNK 256.0
/* Backward does 2.5x the forward FLOPs. */
#define RK_ATTN_BWD_FLOPS_RATIO 2.5

/* Share of the GEMM efficiency a fused attention kernel reaches, by architecture, forward and
 * backward (the backward's share is of the forward's): the softmax's exponentials and rescaling
 * run on the vector units between the matmuls (docs/model.md §4). Hopper: PyTorch 2.11's SDPA
 * runs Hopper-native (wgmma) kernels, h200-2026-11-29/{a,c}/sdpa_fwd_causal_b8_h32_s{2048,8192}
 * at 547-573 TFLOP/s: 0.76, the share whose predictions, tile fill and drain and waves included,
 * meet those four records on average (+0.4 %; 0.73, the bare rate share 0.73 x 0.785 x 989 = 567
 * TFLOP/s, left them +4.4 % slow), and sdpa_fwdbwd_causal_b8_h32_s2048 with a backward at 0.62 of
 * the forward's rate; Ampere/Ada: FlashAttention-2 at ~70 % of the A100 peak. */
void rk_attention_prep(rk_kernel_prepared *p)
{
    /* the first letter before each strcmp: one string compare, not up to four */
    const char *a = p->g->architecture;
    p->attn_bwd = 0.80;
    if ((a[0] == 'h' && strcmp(a, "hopper") == 0) || (a[0] == 'b' && strcmp(a, "blackwell") == 0))
        p->attn_fwd = 0.76, p->attn_bwd = 0.62;
    else if (a[0] == 'a' && (strcmp(a, "ampere") == 0 || strcmp(a, "ada") == 0))
        p->attn_fwd = 0.88;
    else
        p->attn_fwd = 0.60;
}

/* What rk_attention's time depends on apart from the KV split: the unsplit tiles and their rows,
 * the visible pairs per query, the tile rate, and a decode's per-head extras. */
typedef struct {
    double tiles, tm, kv_avg, d, peak_sm, eff, eta_bwd, t_vec, per_head_l2;
    rk_bytes bytes;
} attn_shape;

/* The kernel with its KV sequence in s chunks (s = 1: unsplit), finished (rk_finish): r->time_s
 * is its GPU time. */
static void attn_split(const rk_kernel_prepared *p, const ridge_op *op, const attn_shape *a, double s,
                       ridge_kernel_result *r)
{
    const ridge_gpu *g = p->g;
    double tiles = a->tiles * s, kv_per_tile = a->kv_avg / s, t_over, t_tile, waves;
    /* Each tile's fill and drain, as a GEMM tile's (docs/model.md §2): one DRAM latency before its
     * first block of keys, and its FP32 output accumulators (tm x head_dim) out through shared
     * memory at the end. At short sequences this is a large share of a tile. */
    t_over = g->eff.dram_latency_s + a->tm * a->d * 4.0 / (128.0 * g->tensor_clock_hz);
    t_tile = 4.0 * a->tm * kv_per_tile * a->d / (a->peak_sm * a->eff) + t_over;
    waves = tiles / g->sm_count;
    r->compute_s = rk_ceil(waves) * t_tile;
    if (a->t_vec > r->compute_s)
        r->compute_s = a->t_vec;
    r->kernels = s > 1 ? 2 : 1; /* split-KV adds a combine kernel */
    if (op->u.attn.pass == RIDGE_PASS_FWD_BWD) {
        r->compute_s += r->compute_s * RK_ATTN_BWD_FLOPS_RATIO / a->eta_bwd;
        r->kernels += 3; /* backward preprocess, main kernel, dQ conversion */
    }
    rk_l2_split(p, a->bytes, 0, 0, &r->dram_bytes, &r->l2_bytes);
    r->l2_bytes += a->per_head_l2;
    r->tile_m = a->tm;
    r->tile_n = kv_per_tile;
    r->tiles = tiles;
    r->waves = waves;
    r->wave_efficiency = waves / rk_ceil(waves);
    r->split_k = s;
    rk_finish(p, r);
}

int rk_attention(const rk_kernel_prepared *p, const ridge_op *op, ridge_kernel_result *r, ridge_err *err)
{
    /* rk_op_min_bytes(op) and rk_op_flops(op) (below), their attention formulas inline */
    double min_bytes = rk_attn_kind_bytes(op) + op->epilogue_bytes;
    double b = op->u.attn.batch, h = op->u.attn.heads, hk = op->u.attn.kv_heads > 0 ? op->u.attn.kv_heads : h;
    double q = op->u.attn.q_len, kv = op->u.attn.kv_len, d = op->u.attn.head_dim;
    double pr = rk_attn_pairs(op), kv_avg = q > 0 ? pr / q : 0;
    const ridge_gpu *g = p->g;
    int tp = p->dt[op->dtype].tensor_peak;
    double peak_sm, eff, eta = p->attn_fwd, eta_bwd = p->attn_bwd, tiles, tm, kv_per_tile, s_lo = 1, s_hi = 1;
    double per_head_l2 = 0, t_vec = 0;
    /* A 16- or 8-bit attention needs the tensor path (FlashAttention has no CUDA-core kernel for
     * them), as a GEMM does: bf16 on a V100, fp8 on an A100 are errors, not a silent fallback. */
    if (tp < 0 && (op->dtype == RIDGE_DTYPE_FP16 || op->dtype == RIDGE_DTYPE_BF16 || op->dtype == RIDGE_DTYPE_FP8 ||
                   op->dtype == RIDGE_DTYPE_INT8 || op->dtype == RIDGE_DTYPE_INT4))
        return rk_no_tensor_path(g, op->dtype, err);
    rk_result_clear(r);
    if (tp >= 0) {
        r->peak = (ridge_peak)tp;
        r->tensor = 1;
        eff = rh_efficiency_fraction(&g->eff, r->peak) * eta;
    } else {
        r->peak = p->dt[op->dtype].vector_peak;
        r->tensor = 0;
        eff = rh_efficiency_fraction(&g->eff, r->peak) * 0.5; /* unfused-style math on CUDA cores */
    }
    peak_sm = g->peak_flops_per_s[r->peak] / g->sm_count * (r->tensor ? p->tensor_clock_share : 1.0);
    if (q >= RK_ATTN_TILE_Q_DECODE) {
        /* Prefill / training: one CTA per 128 queries of one head. */
        tm = RK_ATTN_TILE_Q;
        tiles = b * h * rk_ceil(q / tm);
        kv_per_tile = kv_avg;
    } else {
        /* Decode: queries of the heads sharing a KV head are packed into one tile (GQA), and the
         * KV sequence is split across CTAs until the SMs are filled (flash-decoding). */
        double rows = q * (h / hk);
        tm = RK_ATTN_TILE_Q_DECODE;
        tiles = b * hk * rk_ceil(rows / tm);
        /* The split candidates: the most chunks that keep one wave, floor(SM / tiles), and the
         * fewest that cover every SM, ceil(SM / tiles) (more chunks than that add a wave and save
         * no time), each at most floor(kv / 256); below, the fastest of these and no split. */
        if (tiles < g->sm_count) {
            double cap = rk_floor(kv / RK_ATTN_MIN_KV_CHUNK);
            s_lo = fmax(1, fmin(rk_floor(g->sm_count / tiles), cap));
            s_hi = fmax(1, fmin(rk_ceil(g->sm_count / tiles), cap));
        }
        kv_per_tile = kv_avg;
        /* A packed tile computes tm rows however few are real. */
        if (op->u.attn.per_head_kv && hk < h) {
            /* One CTA per query head (TensorRT-LLM's masked MHA before its XQA kernels): each
             * reads its KV head, so the h / hk heads sharing one read it h / hk times, the first
             * from DRAM and the rest through the L2 (below), and the dot products run on the CUDA
             * cores, unpadded (docs/model.md §4, "Decode without GQA packing"). */
            per_head_l2 = (h / hk - 1.0) * 2.0 * b * hk * kv * d * rk_dtype_bytes(op->dtype);
            t_vec = rk_attn_flops(op, pr) / p->dt[RIDGE_DTYPE_FP32].vector_rate; /* FP32 dot products */
        }
    }
    /* flash-decoding's split is taken by GPU time, as a GEMM's split-K is (docs/model.md §2, §4):
     * the combine kernel's floor can outweigh what a split saves. */
    {
        attn_shape a = {tiles, tm, kv_per_tile, d, peak_sm, eff, eta_bwd, t_vec, per_head_l2,
                        rk_op_bytes(op, min_bytes)};
        double cand[3] = {1, s_lo, s_hi};
        ridge_kernel_result best = *r, c;
        attn_split(p, op, &a, 1, &best);
        for (int i = 1; i < 3; i++) {
            if (cand[i] <= 1 || cand[i] == cand[i - 1])
                continue;
            c = *r;
            attn_split(p, op, &a, cand[i], &c);
            if (c.time_s < best.time_s)
                best = c;
        }
        *r = best;
    }
    r->flops = rk_attn_flops(op, pr);
    r->align_efficiency = 1;
    (void)hk;
    return rk_predicted(p, op, min_bytes, r, err);
}
