/* Private: the roof layer under the per-operator cost models (docs/model.md §1): peaks, the DRAM
 * and L2 rules, floors and finish (roofline.c), and the small inline helpers the models share.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_ROOFLINE_H
#define RIDGE_ROOFLINE_H

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "ridge/kernel.h"

#include "efficiency_inline.h"
#include "kernel_prep.h"

/* ceil/floor/max without libm calls on baseline x86-64 (no SSE4.1 rounding): the GEMM tile
 * search runs them millions of times per second. Exact for |x| < 2^52 (4.5e15 < 2^52); beyond,
 * and for NaN, the libm call. One range test (fabs: a mask). The adjustment stays a branch: a
 * compare-and-mask form ran the bench 6 % slower (the branch predicts well). A result of 0 is
 * +0 (ceil of -0.5 gives +0, not -0). */
static inline double rk_ceil(double x)
{
    double t;
    if (!(fabs(x) < 4.5e15))
        return ceil(x);
    t = (double)(long long)x;
    return t < x ? t + 1 : t;
}

static inline double rk_floor(double x)
{
    double t;
    if (!(fabs(x) < 4.5e15))
        return floor(x);
    t = (double)(long long)x;
    return t > x ? t - 1 : t;
}

/* memset(r, 0, sizeof *r) without the string instruction gcc emits for it (rep stosq: a
 * start-up of tens of clocks, once or more per prediction): every field stored as 0 (+0.0 is
 * all zero bytes), and the enum/int fields with the padding after them by one fixed-size memset
 * (two stores). The same bytes as the memset, padding included. A new field of
 * ridge_kernel_result must be added here: the size check below fails until it is. */
_Static_assert(sizeof(ridge_kernel_result) == 23 * sizeof(double) &&
                   offsetof(ridge_kernel_result, tile_m) - offsetof(ridge_kernel_result, bound) == 2 * sizeof(double),
               "rk_result_clear: ridge_kernel_result changed");
static inline void rk_result_clear(ridge_kernel_result *r)
{
    r->time_s = r->flops = r->dram_bytes = r->l2_bytes = r->kernels = 0;
    r->compute_s = r->memory_s = r->l2_s = r->floor_s = 0;
    memset(&r->bound, 0, offsetof(ridge_kernel_result, tile_m) - offsetof(ridge_kernel_result, bound));
    r->tile_m = r->tile_n = r->tiles = r->waves = r->wave_efficiency = r->split_k = r->align_efficiency = 0;
    r->min_bytes = r->intensity_flops_per_byte = r->achieved_flops_per_s = r->achieved_bytes_per_s = 0;
    r->roof_efficiency = 0;
}

/* The part of rk_result_clear that a model which sets every other field itself leaves (rk_gemm,
 * rk_streaming: their own fields, then rk_finish_mem's, and rk_predicted the derived fields): the
 * enum/int fields with the padding after them (one fixed-size memset, as rk_result_clear). Those
 * models' results are rk_result_clear's bytes then; a new field of ridge_kernel_result must be
 * added to them too (the size check above). */
static inline void rk_result_clear_enums(ridge_kernel_result *r)
{
    memset(&r->bound, 0, offsetof(ridge_kernel_result, tile_m) - offsetof(ridge_kernel_result, bound));
}

static inline double rk_max(double a, double b)
{
    return a > b ? a : b;
}
static inline double rk_min(double a, double b)
{
    return a < b ? a : b;
}


/* Compulsory bytes of a kernel, with the cold part of them and its reuse distance (ridge_op
 * cold_bytes, reuse_bytes; 0, 0 when every byte was touched just before). */
typedef struct {
    double bytes, cold, reuse;
} rk_bytes;

static inline rk_bytes rk_hot(double bytes)
{
    rk_bytes b = {bytes, 0, 0};
    return b;
}

/* `bytes` of an op's kernel of which up to `cap` (at most the op's cold_bytes) are cold. */
static inline rk_bytes rk_op_bytes_capped(const ridge_op *op, double bytes, double cap)
{
    rk_bytes b = {bytes, 0, 0};
    if (op->reuse_bytes > 0 && op->cold_bytes > 0) {
        b.cold = cap < op->cold_bytes ? cap : op->cold_bytes;
        b.cold = b.cold < bytes ? b.cold : bytes;
        b.reuse = op->reuse_bytes;
    }
    return b;
}

/* `bytes` of an op's kernel of which the op's cold_bytes (at most all of them) are cold. */
static inline rk_bytes rk_op_bytes(const ridge_op *op, double bytes)
{
    return rk_op_bytes_capped(op, bytes, bytes);
}

/* Ada (compute capability 8.9) data-centre parts under dense tensor-core load do not hold the
 * clock their tensor peak is quoted at: their MMAs run at this sustained clock (docs/model.md §2,
 * "Ada's sustained tensor clock"). From the 314 AIConfigurator L40S BF16 GEMMs with m, n, k >= 4096:
 * median predicted/measured time 0.780 at the 2.49 GHz tensor-peak clock, i.e. 1.94 GHz; the L4
 * (2.04 GHz tensor-peak clock, 87 of 121 TFLOP/s FP16 measured, gpu-specs.md §8) is held out. */
#define RK_ADA_SUSTAINED_TENSOR_CLOCK_HZ 1.94e9

/* Share of the quoted tensor peak the MMAs of a 16- or 8-bit tensor-core GEMM sustain under
 * sustained load (g->sustained_load): min(1, sustained_tensor_clock_hz / tensor_clock_hz) on a GPU
 * whose file gives that clock, 1 otherwise (docs/model.md §2, "Power-limited sustained tensor
 * clock"). TF32 and the CUDA-core paths keep the quoted clocks. */
static inline double rk_sustained_tensor_share(const ridge_gpu *g, ridge_dtype dt)
{
    if (!g->sustained_load || !(g->sustained_tensor_clock_hz > 0) || g->sustained_tensor_clock_hz >= g->tensor_clock_hz)
        return 1.0;
    if (dt != RIDGE_DTYPE_FP16 && dt != RIDGE_DTYPE_BF16 && dt != RIDGE_DTYPE_FP8 && dt != RIDGE_DTYPE_INT8)
        return 1.0;
    return g->sustained_tensor_clock_hz / g->tensor_clock_hz;
}

/* A GPU's compute capability as major * 10 + minor ("9.0" -> 90, "8.9" -> 89, "10.0" -> 100); 0
 * when the file's string is not of that form (an AMD "gfx942"). */
static inline int rk_cc(const ridge_gpu *g)
{
    const char *s = g->compute_capability;
    int major = 0;
    /* "D.D", every catalogue NVIDIA part but Blackwell's "10.0": the value the loop below gives,
     * without it (this runs once or more per prediction). */
    if (s[0] >= '0' && s[0] <= '9' && s[1] == '.' && s[2] >= '0' && s[2] <= '9' && s[3] == '\0')
        return 10 * (s[0] - '0') + (s[2] - '0');
    while (*s >= '0' && *s <= '9' && major < 100)
        major = 10 * major + (*s++ - '0');
    if (s == g->compute_capability || s[0] != '.' || s[1] < '0' || s[1] > '9' || s[2] != '\0')
        return 0;
    return 10 * major + (s[1] - '0');
}

/* Share of the quoted tensor peak the MMAs of a tensor-core kernel sustain from the clock alone:
 * min(1, sustained clock / tensor_clock_hz) on Ada, 1 elsewhere; cc: rk_cc(g) (prepared once,
 * kernel_prep.h). */
static inline double rk_tensor_clock_share_cc(const ridge_gpu *g, int cc)
{
    if (cc == 89 && g->tensor_clock_hz > RK_ADA_SUSTAINED_TENSOR_CLOCK_HZ)
        return RK_ADA_SUSTAINED_TENSOR_CLOCK_HZ / g->tensor_clock_hz;
    return 1.0;
}

/* ridge_dtype_bytes and ridge_gemm_out_bytes (op.c, ridge/op.h) inline, for the hot paths: the
 * exported functions are these. */
static inline double rk_dtype_bytes(ridge_dtype d)
{
    switch (d) {
    case RIDGE_DTYPE_FP64: return 8;
    case RIDGE_DTYPE_FP32:
    case RIDGE_DTYPE_TF32: return 4;
    case RIDGE_DTYPE_FP16:
    case RIDGE_DTYPE_BF16: return 2;
    case RIDGE_DTYPE_FP8:
    case RIDGE_DTYPE_INT8: return 1;
    case RIDGE_DTYPE_INT4: return 0.5;
    default: return 0;
    }
}

static inline double rk_gemm_out_bytes(ridge_dtype d)
{
    switch (d) {
    case RIDGE_DTYPE_FP32:
    case RIDGE_DTYPE_TF32:
    case RIDGE_DTYPE_INT8:
    case RIDGE_DTYPE_INT4: return 4;
    case RIDGE_DTYPE_FP8: return 2;
    default: return rk_dtype_bytes(d);
    }
}

/* The peak a dtype runs at on the vector (CUDA-core) path. Never fails: FP32 is required. */
static inline ridge_peak rk_vector_peak(const ridge_gpu *g, ridge_dtype dt)
{
    switch (dt) {
    case RIDGE_DTYPE_FP64: return g->peak_flops_per_s[RIDGE_PEAK_FP64] > 0 ? RIDGE_PEAK_FP64 : RIDGE_PEAK_FP32;
    case RIDGE_DTYPE_FP16:
    case RIDGE_DTYPE_BF16:
        /* Packed half2 arithmetic where the part lists it. */
        return g->peak_flops_per_s[RIDGE_PEAK_FP16_VECTOR] > 0 ? RIDGE_PEAK_FP16_VECTOR : RIDGE_PEAK_FP32;
    default: return RIDGE_PEAK_FP32;
    }
}

/* The tensor-core peak for a dtype, or -1 if the GPU has none (tf32 falls back to -1 too). */
static inline int rk_tensor_peak(const ridge_gpu *g, ridge_dtype dt)
{
    ridge_peak p;
    switch (dt) {
    case RIDGE_DTYPE_FP64: p = RIDGE_PEAK_FP64_TENSOR; break;
    case RIDGE_DTYPE_TF32: p = RIDGE_PEAK_TF32; break;
    case RIDGE_DTYPE_FP16:
        /* Frameworks accumulate FP16 GEMMs in FP32. */
        p = g->peak_flops_per_s[RIDGE_PEAK_FP16_FP32ACC] > 0 ? RIDGE_PEAK_FP16_FP32ACC : RIDGE_PEAK_FP16;
        break;
    case RIDGE_DTYPE_BF16: p = RIDGE_PEAK_BF16; break;
    case RIDGE_DTYPE_FP8: p = RIDGE_PEAK_FP8; break;
    case RIDGE_DTYPE_INT8: p = RIDGE_PEAK_INT8; break;
    case RIDGE_DTYPE_INT4: p = RIDGE_PEAK_INT4; break;
    default: return -1; /* fp32 GEMMs run on the vector path (no TF32 unless asked) */
    }
    return g->peak_flops_per_s[p] > 0 ? (int)p : -1;
}

/* ridge_op_flops and ridge_op_min_bytes (op.c) for the kernel model's own calls: direct calls,
 * not through the exported symbols' PLT entries. */
RIDGE_PRIVATE double rk_op_flops(const ridge_op *op);
RIDGE_PRIVATE double rk_op_min_bytes(const ridge_op *op);

/* Parts of op.c's reference formulas (its header comment), inline for the kernel model's hot
 * paths; rk_op_flops and rk_op_min_bytes use these for their kinds, so each formula is written
 * once. A GEMM's compulsory bytes less the epilogue's: */
static inline double rk_gemm_kind_bytes_es(const ridge_op *op, double es, double es_out)
{
    double b = op->u.gemm.batch, m = op->u.gemm.m, n = op->u.gemm.n, k = op->u.gemm.k;
    return b * (m * k + k * n) * es + b * m * n * es_out;
}
/* with es, es_out the dtype's rk_dtype_bytes and rk_gemm_out_bytes (_es: given) */
static inline double rk_gemm_kind_bytes(const ridge_op *op)
{
    return rk_gemm_kind_bytes_es(op, rk_dtype_bytes(op->dtype), rk_gemm_out_bytes(op->dtype));
}
/* Visible (query, key) pairs per (batch, head) of an attention op: the causal triangle when
 * requested, with the queries aligned to the end of the keys (decode and chunked prefill: for q >
 * kv, the first q - kv queries see nothing and the last kv a triangle). */
static inline double rk_attn_pairs(const ridge_op *op)
{
    double q = op->u.attn.q_len, kv = op->u.attn.kv_len;
    if (!op->u.attn.causal)
        return q * kv;
    if (q <= kv)
        return q * kv - q * (q - 1) / 2;
    return kv * (kv + 1) / 2;
}
/* An attention op's FLOPs, from its rk_attn_pairs */
static inline double rk_attn_flops(const ridge_op *op, double pairs)
{
    double fwd = 4 * op->u.attn.batch * op->u.attn.heads * op->u.attn.head_dim * pairs;
    return op->u.attn.pass == RIDGE_PASS_FWD_BWD ? 3.5 * fwd : fwd;
}
/* An attention op's compulsory bytes less the epilogue's */
static inline double rk_attn_kind_bytes(const ridge_op *op)
{
    double es = rk_dtype_bytes(op->dtype);
    double qo = op->u.attn.batch * op->u.attn.heads * op->u.attn.q_len * op->u.attn.head_dim;
    double kv = op->u.attn.batch * op->u.attn.kv_heads * op->u.attn.kv_len * op->u.attn.head_dim;
    double lse = 4 * op->u.attn.batch * op->u.attn.heads * op->u.attn.q_len;
    double fwd = (2 * qo + 2 * kv) * es + lse;
    if (op->u.attn.pass == RIDGE_PASS_FWD_BWD)
        return fwd + (4 * qo + 4 * kv) * es + lse;
    return fwd;
}
/* Tensors a reduce reads together (batch-norm backward: x and dy); 0 in a zeroed op means one. */
static inline double rk_reduce_inputs(const ridge_op *op)
{
    return op->u.rows.inputs > 1 ? op->u.rows.inputs : 1;
}
/* A memory-bound op's FLOPs (*flops) and compulsory bytes less the epilogue's (*bytes), in one
 * switch on its kind (elementwise, softmax, layernorm, rmsnorm, reduce, embedding, copy, custom;
 * 0 and 0 for any other kind). */
static inline void rk_mb_work(const ridge_op *op, double *flops, double *bytes)
{
    double es = rk_dtype_bytes(op->dtype);
    switch (op->kind) {
    case RIDGE_OP_ELEMENTWISE:
        *flops = op->u.ew.elements * op->u.ew.flops_per_element;
        *bytes = op->u.ew.elements * (op->u.ew.inputs + op->u.ew.outputs) * es;
        return;
    case RIDGE_OP_SOFTMAX:
        *flops = 5 * op->u.rows.rows * op->u.rows.cols;
        *bytes = 2 * op->u.rows.rows * op->u.rows.cols * es;
        return;
    case RIDGE_OP_LAYERNORM:
        *flops = 8 * op->u.rows.rows * op->u.rows.cols;
        *bytes = (2 * op->u.rows.rows * op->u.rows.cols + 2 * op->u.rows.cols) * es;
        return;
    case RIDGE_OP_RMSNORM:
        *flops = 6 * op->u.rows.rows * op->u.rows.cols;
        *bytes = (2 * op->u.rows.rows * op->u.rows.cols + op->u.rows.cols) * es;
        return;
    case RIDGE_OP_REDUCE:
        *flops = rk_reduce_inputs(op) * op->u.rows.rows * op->u.rows.cols;
        *bytes = (rk_reduce_inputs(op) * op->u.rows.rows * op->u.rows.cols + op->u.rows.rows) * es;
        return;
    case RIDGE_OP_EMBEDDING:
        *flops = 0;
        *bytes = 2 * op->u.emb.tokens * op->u.emb.dim * es + 8 * op->u.emb.tokens;
        return;
    case RIDGE_OP_COPY:
        *flops = 0;
        *bytes = op->u.copy.kind == RIDGE_COPY_D2D ? 2 * op->u.copy.bytes : op->u.copy.bytes;
        return;
    case RIDGE_OP_CUSTOM:
        *flops = op->u.custom.flops;
        *bytes = op->u.custom.bytes;
        return;
    default: *flops = *bytes = 0; return;
    }
}
/* A convolution's output side, floor((in + 2 pad - filt) / stride) + 1 (a zero's sign aside, which
 * + 1 drops); x / 1 = x exactly, so stride 1 skips the division. */
static inline double rk_conv_out(double in, double pad, double filt, double stride)
{
    double x = in + 2 * pad - filt;
    return rk_floor(stride == 1 ? x : x / stride) + 1;
}
/* rk_op_flops, and rk_op_min_bytes less the epilogue's bytes, of a conv2d whose output is p x q
 * (rk_conv_out), for a caller that has them: ridge_kernel_predict computes them once for the op's
 * bytes, FLOPs and implicit GEMM. */
RIDGE_PRIVATE double rk_conv_flops(const ridge_op *op, double p, double q);
RIDGE_PRIVATE double rk_conv_bytes(const ridge_op *op, double p, double q);

/* RIDGE_EUNSUPPORTED with "ID has no DT tensor path (it has: fp16, tf32, ...)". */
RIDGE_PRIVATE int rk_no_tensor_path(const ridge_gpu *g, ridge_dtype dt, ridge_err *err);

/* DRAM time of `bytes`: latency + bytes / achievable bandwidth (Little's law: the bytes in
 * flight, at most bytes, over the latency). Inline: the GEMM tile search calls it in its loop.
 * The helpers from here on take the GPU's prepared figures (kernel_prep.h). */
static inline double rk_dram_time(const rk_kernel_prepared *p, double bytes)
{
    if (bytes <= 0)
        return 0;
    /* t = L + B / BW: achieved bandwidth B / t is Little's law with min(B, BW*L) bytes in flight. */
    return p->dram_latency_s + bytes / p->dram_bw;
}
/* Share of accesses served by L2 for a working set (or reuse distance) of `ws` bytes: 1 up to
 * ridge_gpu_l2_full_hit_bytes (p->l2_full), falling linearly to 0 at all of the L2 (a GEMM's
 * re-read tiles). With `sweep` (a streaming kernel, which sweeps its whole working set in order,
 * call after call) 0 past the share: it evicts each line before the line comes round again, as
 * under LRU (docs/model.md, "Cache levels": h200-2026-11-29/a/add_fp32_2^22, 48 MiB on the 60 MiB
 * L2, streams at the DRAM rate). */
static inline double rk_l2_hit(const rk_kernel_prepared *p, double ws, int sweep)
{
    if (ws <= p->l2_full)
        return 1;
    if (sweep || ws >= p->l2_bytes)
        return 0;
    return (p->l2_bytes - ws) / p->l2_span;
}

/* Split compulsory bytes between DRAM and L2: the cold part by the hit rule at its reuse
 * distance, the rest by the rule at the working set (all of b.bytes plus `extra` hot bytes);
 * `sweep` as rk_l2_hit's. Inline: the GEMM tile search calls it in its loop. */
static inline void rk_l2_split(const rk_kernel_prepared *p, rk_bytes b, double extra, int sweep, double *dram,
                               double *l2)
{
    double ws = b.bytes + extra, hit = rk_l2_hit(p, ws, sweep);
    *l2 = ws * hit;
    /* Cold bytes: the hit at their reuse distance instead (never above the working set's). */
    if (b.cold > 0 && b.reuse > ws)
        *l2 -= b.cold * (hit - rk_l2_hit(p, b.reuse, sweep));
    *dram = ws - *l2;
}

/* Fill time_s, memory_s, l2_s, floor_s and bound of r from compute_s, dram_bytes, l2_bytes and
 * kernels already set: rk_finish_extra(g, r, 0). rk_finish_mem with memory_s given:
 * rk_dram_time(g, dram_bytes) + extra_s, already computed. Inline, all three: once per
 * prediction, after the model's stores to r, which they read back (forwarded, not reloaded). */
static inline void rk_finish_mem(const rk_kernel_prepared *p, ridge_kernel_result *r, double memory_s)
{
    double lat = r->dram_bytes > 0 ? p->dram_latency_s : 0;
    double mem_thr, t, l2_traffic;
    r->floor_s = r->kernels * p->kernel_floor_s;
    r->memory_s = memory_s;
    /* Every byte moved between DRAM and the SMs passes the L2, misses too: the L2 time counts the
     * DRAM bytes and the bytes the L2 serves (docs/model.md §1, "Kernel time"). */
    l2_traffic = r->dram_bytes + r->l2_bytes;
    r->l2_s = l2_traffic > 0 ? l2_traffic / p->l2_bw : 0;
    t = r->compute_s;
    if (r->memory_s > t)
        t = r->memory_s;
    if (r->l2_s > t)
        t = r->l2_s;
    r->time_s = r->floor_s + t;
    /* Bound: the largest of the throughput terms, or the latency floors when they dominate. */
    mem_thr = r->memory_s - lat;
    r->bound = RIDGE_BOUND_COMPUTE;
    t = r->compute_s;
    if (mem_thr > t) {
        r->bound = RIDGE_BOUND_MEMORY;
        t = mem_thr;
    }
    if (r->l2_s > t) {
        r->bound = RIDGE_BOUND_L2;
        t = r->l2_s;
    }
    if (r->floor_s + lat > t)
        r->bound = RIDGE_BOUND_LATENCY;
}
/* rk_finish with `extra_s` more DRAM time than dram_bytes at the streaming rate (GEMM tile writes). */
static inline void rk_finish_extra(const rk_kernel_prepared *p, ridge_kernel_result *r, double extra_s)
{
    rk_finish_mem(p, r, rk_dram_time(p, r->dram_bytes) + extra_s);
}
static inline void rk_finish(const rk_kernel_prepared *p, ridge_kernel_result *r)
{
    rk_finish_extra(p, r, 0);
}

/* A memory- or vector-bound kernel: flops on the vector path at dtype, compulsory bytes. rk_streaming_in
 * is its body, inline for rk_memory_bound's one call (once per memory-bound prediction). */
static inline void rk_streaming_in(const rk_kernel_prepared *p, ridge_dtype dt, double flops, rk_bytes bytes,
                                   double kernels, ridge_kernel_result *r)
{
    const rk_dtype_prep *d = &p->dt[dt];
    /* every field: these, rk_finish's, rk_result_clear_enums's, and the derived (rk_predicted's) */
    rk_result_clear_enums(r);
    r->tile_m = r->tile_n = r->tiles = r->waves = 0;
    r->peak = d->vector_peak;
    r->flops = flops;
    r->kernels = kernels;
    r->compute_s = flops > 0 ? flops / d->vector_rate : 0;
    rk_l2_split(p, bytes, 0, 1, &r->dram_bytes, &r->l2_bytes); /* a streaming kernel sweeps */
    r->wave_efficiency = 1;
    r->split_k = 1;
    r->align_efficiency = 1;
    rk_finish(p, r);
}
RIDGE_PRIVATE void rk_streaming(const rk_kernel_prepared *p, ridge_dtype dt, double flops, rk_bytes bytes,
                                double kernels, ridge_kernel_result *r);

/* RIDGE_EINVAL: "ID: the model produced no finite time for this KIND op" (kernel.c), or, for a
 * time of exactly 0, that the op does no work on a GPU whose kernel floor is 0. */
RIDGE_PRIVATE int rk_no_finite_time(const ridge_gpu *g, const ridge_op *op, double t, ridge_err *err);

/* The end of every op's model (cost_models.h, rk_gemm_op): its time must be finite and positive
 * (NaN fails both tests); then the derived fields, unless p->derived is 0 (they are left unset):
 * the plain roofline with datasheet figures, the op's compulsory bytes `min_bytes` over `bw`
 * (DRAM's, rk_predicted; PCIe's for host copies), FLOPs over the peak of the unit used. Inline in
 * each model's tail, where its result is in registers. */
static inline int rk_predicted_bw(const rk_kernel_prepared *p, const ridge_op *op, double min_bytes, double bw,
                                  ridge_kernel_result *r, ridge_err *err)
{
    const ridge_gpu *g = p->g;
    double t_flops, t_bytes;
    if (!(r->time_s > 0 && r->time_s < INFINITY))
        return rk_no_finite_time(g, op, r->time_s, err);
    if (!p->derived)
        return RIDGE_OK;
    t_flops = r->flops > 0 && g->peak_flops_per_s[r->peak] > 0 ? r->flops / g->peak_flops_per_s[r->peak] : 0;
    r->min_bytes = min_bytes;
    t_bytes = r->min_bytes / bw;
    r->intensity_flops_per_byte = r->min_bytes > 0 ? r->flops / r->min_bytes : 0;
    r->achieved_flops_per_s = r->flops / r->time_s;
    r->achieved_bytes_per_s = r->min_bytes / r->time_s;
    r->roof_efficiency = (t_flops > t_bytes ? t_flops : t_bytes) / r->time_s;
    return RIDGE_OK;
}
static inline int rk_predicted(const rk_kernel_prepared *p, const ridge_op *op, double min_bytes,
                               ridge_kernel_result *r, ridge_err *err)
{
    return rk_predicted_bw(p, op, min_bytes, p->g->memory_bw_bytes_per_s, r, err);
}

/* Sum b into a (times, bytes, flops, kernels) for composite ops; bound is recomputed by caller. */
RIDGE_PRIVATE void rk_accumulate(ridge_kernel_result *a, const ridge_kernel_result *b, double times);
/* The bound of a composite op (kernels run one after another, times summed): the component
 * (compute, DRAM, L2, floors) holding most of the summed time. */
RIDGE_PRIVATE void rk_composite_bound(ridge_kernel_result *r);

#endif
