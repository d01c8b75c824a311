/* The kernel model: each mechanism in isolation (docs/model.md).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ridge/gpu.h"
#include "ridge/kernel.h"

static ridge_gpu load(const char *id)
{
    ridge_gpu g;
    ridge_err err;
    memset(&g, 0, sizeof g);
    if (ridge_catalog_load(id, &g, &err) != RIDGE_OK)
        fprintf(stderr, "cannot load %s: %s\n", id, err.msg);
    return g;
}

static ridge_kernel_result predict(const ridge_gpu *g, ridge_op op)
{
    ridge_kernel_result r;
    ridge_err err;
    memset(&r, 0, sizeof r);
    if (!CHECK(ridge_kernel_predict(g, &op, &r, &err) == RIDGE_OK))
        fprintf(stderr, "  %s\n", err.msg);
    return r;
}

/* A GEMM whose 128x256 tiles exactly fill the SMs, against one with a single row more: before
 * sm80 (no stream-K kernels) the last wave is nearly empty; from sm80 on, stream-K spreads the
 * extra tiles' work over every SM, so one row more costs a few per cent, not a wave. */
static void test_wave_quantization(void)
{
    static const struct {
        const char *gpu;
        double a, b; /* a x b = SM count */
        int stream_k;
    } rows[] = {{"h200-sxm-141gb", 11, 12, 1}, {"a100-sxm4-80gb", 9, 12, 1}, {"a40", 7, 12, 1},
                {"l40s", 71, 2, 1},           {"v100-sxm2-32gb", 5, 16, 0}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_gpu g = load(rows[i].gpu);
        double m = 128 * rows[i].a, n = 256 * rows[i].b;
        ridge_dtype dt = rows[i].stream_k ? RIDGE_DTYPE_BF16 : RIDGE_DTYPE_FP16;
        ridge_kernel_result below = predict(&g, ridge_op_gemm(dt, m, n, 8192, 1));
        ridge_kernel_result past = predict(&g, ridge_op_gemm(dt, m + 1, n, 8192, 1));
        check_context(rows[i].gpu);
        CHECK_NEAR(below.tiles, g.sm_count, 1e-12);
        CHECK_NEAR(below.wave_efficiency, 1.0, 1e-12);
        if (rows[i].stream_k) {
            CHECK(past.time_s < 1.2 * below.time_s); /* the padded row of tiles, no empty wave */
            CHECK(past.time_s > below.time_s);
        } else {
            /* 0.07 % more FLOPs, at least 50 % more time: the last wave is nearly empty. */
            CHECK(past.time_s > 1.5 * below.time_s);
            CHECK(past.achieved_flops_per_s < 0.85 * below.achieved_flops_per_s);
        }
        CHECK(below.bound == RIDGE_BOUND_COMPUTE);
    }
    check_context(NULL);
    {
        /* Blackwell (compute capability 10.0) has stream-K too: no empty wave past 148 tiles. */
        ridge_gpu g = load("b200");
        ridge_kernel_result below = predict(&g, ridge_op_gemm(RIDGE_DTYPE_BF16, 128 * 37, 256 * 4, 8192, 1));
        ridge_kernel_result past = predict(&g, ridge_op_gemm(RIDGE_DTYPE_BF16, 128 * 37 + 1, 256 * 4, 8192, 1));
        CHECK_NEAR(below.tiles, g.sm_count, 1e-12);
        CHECK(past.time_s < 1.2 * below.time_s);
    }
}

/* A cuBLAS GEMM with a short K loop (under 2 KiB of K per row: k < 1024 in BF16) keeps the
 * data-parallel tiles: with 7.76 waves of 128x256 tiles on an H100 it costs what the op does
 * without stream-K (no_split_k: the unsplit schedule alone; its grid is too large for split-K),
 * while from k = 1024 on stream-K is costed and wins (docs/model.md §2, "Short K loops"). */
static void test_stream_k_short_k(void)
{
    ridge_gpu g = load("h100-sxm5-80gb");
    static const double ks[] = {256, 512, 1016, 1024, 2048};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        ridge_op op = ridge_op_gemm(RIDGE_DTYPE_BF16, 8192, 4096, ks[i], 1), dp = op;
        ridge_kernel_result r, r_dp;
        dp.u.gemm.no_split_k = 1;
        r = predict(&g, op);
        r_dp = predict(&g, dp);
        check_context("stream-K by k");
        CHECK_NEAR(r.tiles, 1024, 0);
        if (ks[i] * 2 < 2048)
            CHECK(r.time_s == r_dp.time_s);
        else
            CHECK(r.time_s < 0.99 * r_dp.time_s);
    }
    check_context(NULL);
}

/* Every operand's leading dimension decides the alignment: a vocabulary projection (k = 768,
 * n = 50257) is misaligned through B and C although k is aligned; the same GEMM with B stored
 * transposed (nn.Linear, layout nt) is still misaligned through C. On Hopper a misaligned
 * tensor-core GEMM loses the TMA kernels (a much larger penalty than on Ampere); int8 outside
 * the TN layout runs as DP4A on the CUDA cores. */
static void test_layout_alignment(void)
{
    ridge_gpu h200 = load("h200-sxm-141gb"), a100 = load("a100-sxm4-80gb");
    ridge_op op = ridge_op_gemm(RIDGE_DTYPE_BF16, 4096, 50257, 768, 1);
    ridge_kernel_result h, a, ok;
    h = predict(&h200, op);
    a = predict(&a100, op);
    CHECK(h.align_efficiency < 1.0);
    CHECK(a.align_efficiency < 1.0);
    CHECK(h.align_efficiency < 0.5 * a.align_efficiency); /* Hopper without TMA */
    op.u.gemm.n = 50304;                                  /* padded to a multiple of 64 */
    ok = predict(&h200, op);
    CHECK_NEAR(ok.align_efficiency, 1.0, 1e-12);
    /* A transposed A with an odd m is misaligned; the same m stored as written is not. */
    op = ridge_op_gemm(RIDGE_DTYPE_BF16, 4095, 4096, 4096, 1);
    CHECK_NEAR(predict(&a100, op).align_efficiency, 1.0, 1e-12);
    op.u.gemm.layout = RIDGE_LAYOUT_TN;
    CHECK(predict(&a100, op).align_efficiency < 1.0);
    /* int8: TN (B stored transposed) on the IMMA tensor cores, nn as DP4A: 2x the FP32 rate. */
    op = ridge_op_gemm(RIDGE_DTYPE_INT8, 8192, 8192, 8192, 1);
    op.u.gemm.layout = RIDGE_LAYOUT_NT;
    ok = predict(&h200, op);
    op.u.gemm.layout = RIDGE_LAYOUT_NN;
    h = predict(&h200, op);
    CHECK(ok.tensor == 1 && h.tensor == 0);
    CHECK(h.achieved_flops_per_s < 2.0 * h200.peak_flops_per_s[RIDGE_PEAK_FP32]);
    CHECK(h.achieved_flops_per_s > 1.5 * h200.peak_flops_per_s[RIDGE_PEAK_FP32] * h200.eff.vector_fraction);
    CHECK(ok.time_s < 0.2 * h.time_s);
}

/* One CTA per row (docs/model.md §6): a softmax over long rows takes rows / (SMs x 2) rounds of
 * three passes and two block reductions, whatever its bytes; a short-row softmax goes to warps;
 * an elementwise kernel with `rows` pays one pass per round. */
static void test_row_kernels(void)
{
    ridge_gpu g = load("h200-sxm-141gb");
    ridge_op op = ridge_op_elementwise(RIDGE_DTYPE_BF16, 1, 1, 1, 1);
    ridge_kernel_result r, flat;
    double rounds, t_round;
    op.kind = RIDGE_OP_SOFTMAX;
    op.u.rows.rows = 65536;
    op.u.rows.cols = 4096;
    r = predict(&g, op);
    rounds = ceil(65536.0 / (g.sm_count * 2));
    t_round = 3 * g.eff.dram_latency_s + 2 * 1500.0 / g.boost_clock_hz;
    CHECK_NEAR(r.time_s, g.eff.kernel_floor_s + rounds * t_round, 1e-9);
    CHECK(r.bound == RIDGE_BOUND_LATENCY);
    op.u.rows.rows = 65536 * 4;
    op.u.rows.cols = 1024; /* a warp per row: bandwidth */
    r = predict(&g, op);
    CHECK(r.bound == RIDGE_BOUND_MEMORY);
    op = ridge_op_elementwise(RIDGE_DTYPE_BF16, 32768.0 * 128, 1, 1, 1);
    flat = predict(&g, op);
    op.u.ew.rows = 32768;
    r = predict(&g, op);
    CHECK_NEAR(r.time_s - g.eff.kernel_floor_s, ceil(32768.0 / (g.sm_count * 2)) * g.eff.dram_latency_s, 1e-9);
    CHECK(r.time_s > 10 * flat.time_s);
}

static void test_alignment(void)
{
    static const struct {
        ridge_dtype dt;
        double aligned, misaligned;
    } rows[] = {
        {RIDGE_DTYPE_BF16, 4096, 4095}, {RIDGE_DTYPE_FP16, 8192, 8190}, {RIDGE_DTYPE_TF32, 4096, 4094},
        {RIDGE_DTYPE_BF16, 2048, 2044}, /* 8-byte multiple: milder */
    };
    ridge_gpu g = load("h200-sxm-141gb");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double a = rows[i].aligned, b = rows[i].misaligned;
        ridge_kernel_result ra = predict(&g, ridge_op_gemm(rows[i].dt, a, a, a, 1));
        ridge_kernel_result rb = predict(&g, ridge_op_gemm(rows[i].dt, a, b, b, 1));
        check_context(ridge_dtype_name(rows[i].dt));
        CHECK_NEAR(ra.align_efficiency, 1.0, 0);
        CHECK(rb.align_efficiency < 1.0);
        /* Fewer FLOPs, more time. */
        CHECK(rb.flops < ra.flops);
        CHECK(rb.time_s > 1.15 * ra.time_s);
    }
    check_context(NULL);
}

static void test_latency_floor(void)
{
    static const char *gpus[] = {"h200-sxm-141gb", "a100-sxm4-80gb", "a40", "t4", "mi300x"};
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
        ridge_gpu g = load(gpus[i]);
        /* 4 KB: 512 fp32 elements in, 512 out. */
        ridge_kernel_result r = predict(&g, ridge_op_elementwise(RIDGE_DTYPE_FP32, 512, 1, 1, 1));
        check_context(gpus[i]);
        CHECK_NEAR(r.min_bytes, 4096, 0);
        CHECK(r.bound == RIDGE_BOUND_LATENCY);
        CHECK(r.time_s >= g.eff.kernel_floor_s);
        CHECK(r.time_s < 2 * g.eff.kernel_floor_s + g.eff.dram_latency_s);
        /* An empty kernel (no tensor, no arithmetic) costs exactly the floor. */
        r = predict(&g, ridge_op_elementwise(RIDGE_DTYPE_FP32, 1, 0, 0, 0));
        CHECK(r.bound == RIDGE_BOUND_LATENCY);
        CHECK_NEAR(r.time_s, g.eff.kernel_floor_s, 1e-15);
    }
    check_context(NULL);
}

static void test_large_copy(void)
{
    static const char *gpus[] = {"h200-sxm-141gb", "a100-sxm4-80gb", "a40", "rtx-4090"};
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
        ridge_gpu g = load(gpus[i]);
        double bytes = 4294967296.0;
        ridge_kernel_result r = predict(&g, ridge_op_copy(bytes, RIDGE_COPY_D2D));
        check_context(gpus[i]);
        CHECK(r.bound == RIDGE_BOUND_MEMORY);
        /* Read + write at the calibrated bandwidth, within the floors (< 0.2 %). */
        CHECK_NEAR(2 * bytes / r.time_s, g.memory_bw_bytes_per_s * g.eff.dram_fraction, 2e-3);
        /* A different calibration moves it proportionally. */
        g.eff.dram_fraction = 0.75;
        r = predict(&g, ridge_op_copy(bytes, RIDGE_COPY_D2D));
        CHECK_NEAR(2 * bytes / r.time_s, g.memory_bw_bytes_per_s * 0.75, 2e-3);
    }
    check_context(NULL);
}

static void test_memory_levels(void)
{
    ridge_gpu g = load("h200-sxm-141gb");
    /* Bandwidth achieved by a copy grows with its size (Little's law), and a working set inside L2
     * runs at L2 bandwidth: faster per byte than one that spills to DRAM. */
    double sizes[] = {65536, 1048576, 8388608, 16777216, 268435456, 4294967296.0};
    double prev = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        ridge_kernel_result r = predict(&g, ridge_op_copy(sizes[i], RIDGE_COPY_D2D));
        double bw = 2 * sizes[i] / r.time_s;
        if (sizes[i] * 2 <= 0.5 * g.l2_bytes)
            CHECK(r.dram_bytes == 0);
        if (sizes[i] * 2 >= g.l2_bytes)
            CHECK(r.l2_bytes == 0);
        if (i > 0 && sizes[i] * 2 <= 0.5 * g.l2_bytes)
            CHECK(bw > prev);
        prev = bw;
    }
    {
        ridge_kernel_result in_l2 = predict(&g, ridge_op_copy(8388608, RIDGE_COPY_D2D));
        ridge_kernel_result in_dram = predict(&g, ridge_op_copy(268435456, RIDGE_COPY_D2D));
        CHECK(in_l2.dram_bytes == 0);
        CHECK(in_l2.l2_s > 0);
        /* In L2 the achieved bandwidth beats what DRAM can give at any size. */
        CHECK(2 * 8388608 / (in_l2.time_s - in_l2.floor_s) > g.memory_bw_bytes_per_s * g.eff.dram_fraction);
        CHECK(in_dram.bound == RIDGE_BOUND_MEMORY);
    }
}

static void test_split_k(void)
{
    ridge_gpu g = load("a100-sxm4-80gb");
    /* Skinny output, long reduction: one tile of output cannot fill 108 SMs unless its K is cut
     * over them: split-K (a second, reduction kernel) or, from sm80 on, stream-K, whichever is
     * faster; either way far faster than one SM doing the whole tile. */
    ridge_kernel_result r = predict(&g, ridge_op_gemm(RIDGE_DTYPE_FP16, 128, 256, 65536, 1));
    ridge_gpu v = load("v100-sxm2-32gb");
    double one_sm = 2.0 * 128 * 256 * 65536 / (g.peak_flops_per_s[RIDGE_PEAK_FP16_FP32ACC] / g.sm_count);
    CHECK(r.time_s < 0.1 * one_sm);
    /* Before sm80 (no stream-K) it is split-K. */
    r = predict(&v, ridge_op_gemm(RIDGE_DTYPE_FP16, 128, 256, 65536, 1));
    CHECK(r.split_k > 1);
    CHECK(r.kernels == 2); /* the reduction kernel */
    CHECK(r.tiles > 1);
    /* A square GEMM never splits. */
    r = predict(&g, ridge_op_gemm(RIDGE_DTYPE_FP16, 8192, 8192, 8192, 1));
    CHECK(r.split_k == 1);
}

/* cuBLAS's FFMA GEMMs: a matrix-vector product (m or n = 1) streams its matrix over every SM (no
 * 128x128 tile walking K on a few SMs), and a grid of 128x128 tiles below a quarter of the SMs
 * takes the smaller tiles and split-K; the 1024^3 SGEMM of the H200 records keeps one unsplit
 * 128x128 tile on 64 of its 132 SMs (docs/model.md §2, "cuBLAS FFMA GEMMs"). */
static void test_ffma_small_grids(void)
{
    ridge_gpu v = load("v100-sxm2-32gb"), h = load("h200-sxm-141gb");
    ridge_op gemv = ridge_op_gemm(RIDGE_DTYPE_FP32, 1, 1000, 2048, 1);
    ridge_kernel_result r = predict(&v, gemv);
    double weights = 1000.0 * 2048 * 4;
    /* within 2x of streaming the weights at the datasheet bandwidth, plus the floors */
    CHECK(r.time_s < 2.0 * weights / v.memory_bw_bytes_per_s + 2 * v.eff.kernel_floor_s + v.eff.dram_latency_s);
    CHECK(r.bound == RIDGE_BOUND_MEMORY);
    CHECK(r.tiles == 0 && r.split_k == 1); /* a streaming kernel, not a tile search */
    /* the transposed vector (n = 1) alike */
    ridge_kernel_result rt = predict(&v, ridge_op_gemm(RIDGE_DTYPE_FP32, 1000, 1, 2048, 1));
    CHECK_NEAR(rt.time_s, r.time_s, 1e-9);
    /* 16 x 1000 x 2048: 8 tiles of 128x128 on 80 SMs: split over K, far below one tile's K loop */
    r = predict(&v, ridge_op_gemm(RIDGE_DTYPE_FP32, 16, 1000, 2048, 1));
    double one_tile = 2.0 * 128 * 128 * 2048 / (v.peak_flops_per_s[RIDGE_PEAK_FP32] / v.sm_count);
    CHECK(r.time_s < 0.25 * one_tile);
    CHECK(r.split_k > 1 || r.tile_m < 128);
    /* 1024^3 on the H200: 64 tiles >= 132 / 4: one unsplit 128x128 tile each */
    r = predict(&h, ridge_op_gemm(RIDGE_DTYPE_FP32, 1024, 1024, 1024, 1));
    CHECK(r.split_k == 1);
    CHECK(r.tile_m == 128 && r.tile_n == 128);
    CHECK(r.tiles == 64);
}

/* An SGEMV or a narrow SGEMM on GDDR streams at the library GEMM shares (docs/model.md §2): a
 * GEMV at 0.94, m <= 16 at 0.90, m of 17..63 at 0.82 of the streaming rate; on HBM at 1. */
static void test_ffma_skinny_gddr(void)
{
    ridge_gpu l40s = load("l40s"), h200 = load("h200-sxm-141gb");
    static const struct {
        double m, share;
    } rows[] = {{1, 0.94}, {16, 0.90}, {63, 0.82}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_kernel_result r = predict(&l40s, ridge_op_gemm(RIDGE_DTYPE_FP32, rows[i].m, 16384, 16384, 1));
        double bw = l40s.memory_bw_bytes_per_s * l40s.eff.dram_fraction;
        CHECK(r.tensor == 0 && r.tiles == 0); /* the streaming kernel */
        CHECK_NEAR(r.memory_s, l40s.eff.dram_latency_s + r.dram_bytes / (rows[i].share * bw), 1e-9);
        r = predict(&h200, ridge_op_gemm(RIDGE_DTYPE_FP32, rows[i].m, 16384, 16384, 1));
        bw = h200.memory_bw_bytes_per_s * h200.eff.dram_fraction;
        CHECK_NEAR(r.memory_s, h200.eff.dram_latency_s + r.dram_bytes / bw, 1e-9);
    }
}

static void test_units_and_precisions(void)
{
    ridge_gpu a100 = load("a100-sxm4-80gb"), v100 = load("v100-sxm2-32gb"), h200 = load("h200-sxm-141gb");
    ridge_op op = ridge_op_gemm(RIDGE_DTYPE_FP8, 4096, 4096, 4096, 1);
    ridge_kernel_result r, t;
    ridge_err err;
    CHECK(ridge_kernel_predict(&a100, &op, &r, &err) == RIDGE_EUNSUPPORTED);
    CHECK_STR_HAS(err.msg, "fp8");
    op.dtype = RIDGE_DTYPE_BF16;
    CHECK(ridge_kernel_predict(&v100, &op, &r, &err) == RIDGE_EUNSUPPORTED);
    /* Attention likewise: a 16- or 8-bit one needs its tensor path; FP32 runs on the CUDA cores. */
    op = ridge_op_blank(RIDGE_OP_ATTENTION, RIDGE_DTYPE_FP8);
    op.u.attn.batch = 8, op.u.attn.heads = 32, op.u.attn.q_len = op.u.attn.kv_len = 2048, op.u.attn.head_dim = 128;
    op.u.attn.pass = RIDGE_PASS_FWD;
    CHECK(ridge_kernel_predict(&a100, &op, &r, &err) == RIDGE_EUNSUPPORTED);
    CHECK_STR_HAS(err.msg, "no fp8 tensor path");
    op.dtype = RIDGE_DTYPE_BF16;
    CHECK(ridge_kernel_predict(&v100, &op, &r, &err) == RIDGE_EUNSUPPORTED);
    op.dtype = RIDGE_DTYPE_FP32;
    CHECK(ridge_kernel_predict(&v100, &op, &r, &err) == RIDGE_OK && r.tensor == 0 && r.time_s > 0);
    op = ridge_op_gemm(RIDGE_DTYPE_BF16, 4096, 4096, 4096, 1);
    /* fp32 GEMMs run on the vector path, tf32 on tensor cores. */
    r = predict(&a100, ridge_op_gemm(RIDGE_DTYPE_FP32, 8192, 8192, 8192, 1));
    t = predict(&a100, ridge_op_gemm(RIDGE_DTYPE_TF32, 8192, 8192, 8192, 1));
    CHECK(r.tensor == 0 && r.peak == RIDGE_PEAK_FP32);
    CHECK(t.tensor == 1 && t.peak == RIDGE_PEAK_TF32);
    CHECK(r.time_s > 5 * t.time_s);
    /* fp8 doubles bf16 on Hopper. */
    r = predict(&h200, ridge_op_gemm(RIDGE_DTYPE_BF16, 8192, 8192, 8192, 1));
    t = predict(&h200, ridge_op_gemm(RIDGE_DTYPE_FP8, 8192, 8192, 8192, 1));
    CHECK_NEAR(r.time_s / t.time_s, 2.0, 0.05);
    /* The worked example of docs/model.md: H200 BF16 8192^3 = 772 TFLOP/s (stream-K). */
    CHECK_NEAR(r.achieved_flops_per_s, 772.08e12, 2e-3);
}

/* Cold bytes (weights last touched a step ago) hit L2 by their reuse distance, not by the
 * op's own working set. */
static void test_cold_bytes(void)
{
    ridge_gpu g = load("l40s"); /* 96 MB of L2: a 16.8 MB fp8 projection fits it */
    ridge_op op = ridge_op_gemm(RIDGE_DTYPE_FP8, 1, 4096, 4096, 1);
    ridge_kernel_result steady, near, far, clamp;
    double w = 4096.0 * 4096;
    steady = predict(&g, op);
    op.cold_bytes = w;
    op.reuse_bytes = 30e6; /* the whole model fits in half the L2: the weights stay resident */
    near = predict(&g, op);
    op.reuse_bytes = 7e9; /* a 7B model's step: they were evicted since */
    far = predict(&g, op);
    op.cold_bytes = 1e15; /* more than the op moves: all of it, no more */
    clamp = predict(&g, op);
    CHECK_NEAR(steady.dram_bytes, 0, 0);
    CHECK_NEAR(near.dram_bytes, 0, 0);
    CHECK_NEAR(far.dram_bytes, w, 1e-12);
    CHECK(far.bound == RIDGE_BOUND_MEMORY && far.time_s > 1.5 * steady.time_s);
    CHECK_NEAR(clamp.dram_bytes, ridge_op_min_bytes(&op), 1e-12);
}

/* A forward convolution of n images c x hw x hw into k channels, r x r filter, ungrouped. */
static ridge_op conv_op(ridge_dtype dt, double n, double c, double hw, double k, double r, double stride, double pad)
{
    ridge_op op = ridge_op_blank(RIDGE_OP_CONV2D, dt);
    op.u.conv.n = n; op.u.conv.c = c; op.u.conv.h = hw; op.u.conv.w = hw; op.u.conv.k = k;
    op.u.conv.r = r; op.u.conv.s = r; op.u.conv.stride = stride; op.u.conv.pad = pad; op.u.conv.groups = 1;
    op.u.conv.pass = RIDGE_PASS_FWD;
    return op;
}

/* The per-tile prologue/epilogue is a time (a DRAM latency and the accumulator drain), so a
 * shallow GEMM loses a smaller share of a slow CUDA-core tile than of a fast tensor-core one. */
static void test_tile_overhead(void)
{
    ridge_gpu v100 = load("v100-sxm2-32gb");
    ridge_kernel_result vs = predict(&v100, ridge_op_gemm(RIDGE_DTYPE_FP32, 8192, 8192, 64, 1));
    ridge_kernel_result vl = predict(&v100, ridge_op_gemm(RIDGE_DTYPE_FP32, 8192, 8192, 8192, 1));
    ridge_kernel_result ts = predict(&v100, ridge_op_gemm(RIDGE_DTYPE_FP16, 8192, 8192, 64, 1));
    ridge_kernel_result tl = predict(&v100, ridge_op_gemm(RIDGE_DTYPE_FP16, 8192, 8192, 8192, 1));
    /* Share of the shallow GEMM's compute time spent on K steps (at the deep GEMM's rate per step). */
    double vec = vl.compute_s * 64.0 / 8192.0 / vs.compute_s;
    double ten = tl.compute_s * 64.0 / 8192.0 / ts.compute_s;
    CHECK(vs.bound == RIDGE_BOUND_COMPUTE && ts.tensor == 1 && vs.tensor == 0);
    CHECK(vs.achieved_flops_per_s > 0.85 * vl.achieved_flops_per_s);
    /* 128x128 FP32 tile: 64 K steps take ~12 us against ~0.9 us of fill and drain. */
    CHECK(vec > 0.9 && vec < 0.96);
    /* 128x256 FP16 tile: the same K takes ~3.4 us against ~1.3 us. */
    CHECK(ten > 0.65 && ten < 0.8);
}

/* FP32 3x3 stride-1 convolutions: cuDNN's Winograd F(4x4,3x3) (3 transforms + 36 batched GEMMs)
 * when it is faster than implicit GEMM; other shapes and tensor-core precisions stay implicit GEMM. */
static void test_winograd(void)
{
    ridge_gpu g = load("v100-sxm2-32gb");
    ridge_op c = conv_op(RIDGE_DTYPE_FP32, 128, 256, 14, 256, 3, 1, 1);
    ridge_kernel_result fwd, dgrad, wgrad, s2, half;
    double p = 14, direct;
    fwd = predict(&g, c);
    c.u.conv.pass = RIDGE_PASS_BWD_DATA;
    dgrad = predict(&g, c);
    c.u.conv.pass = RIDGE_PASS_BWD_FILTER;
    wgrad = predict(&g, c);
    c.u.conv.pass = RIDGE_PASS_FWD;
    c.u.conv.stride = 2;
    s2 = predict(&g, c);
    c.u.conv.stride = 1;
    c.dtype = RIDGE_DTYPE_FP16;
    half = predict(&g, c);
    /* The same convolution as one implicit GEMM: M = n p q, N = k, K = 9 c. */
    direct = predict(&g, ridge_op_gemm(RIDGE_DTYPE_FP32, 128 * p * p, 256, 9 * 256, 1)).time_s;
    CHECK_NEAR(fwd.kernels, 4, 0);
    CHECK_NEAR(dgrad.kernels, 4, 0);
    CHECK_NEAR(wgrad.kernels, 4, 0);
    /* 4x fewer multiplies in the GEMMs, less the transforms and the 16x16 padding of 14x14. */
    CHECK(fwd.time_s < 0.6 * direct);
    /* Useful (direct) FLOPs are reported: the effective rate passes the FP32 peak. */
    CHECK_NEAR(fwd.flops, 2.0 * 128 * p * p * 256 * 9 * 256, 1e-12);
    CHECK(fwd.achieved_flops_per_s > g.peak_flops_per_s[RIDGE_PEAK_FP32]);
    CHECK(fwd.tensor == 0 && fwd.bound == RIDGE_BOUND_COMPUTE);
    CHECK_NEAR(s2.kernels, 1, 0);
    CHECK_NEAR(half.kernels, 1, 0);
    CHECK(half.tensor == 1);
    /* A 2x2 output fills a 6x6 tile to get 4 of its 16 outputs: no multiplies saved, implicit
     * GEMM stays. */
    c.dtype = RIDGE_DTYPE_FP32;
    c.u.conv.c = 512; c.u.conv.k = 512; c.u.conv.h = 2; c.u.conv.w = 2;
    CHECK(predict(&g, c).kernels <= 2); /* one GEMM, or split-K's GEMM and reduction */
}

static ridge_op attention(double b, double h, double hk, double q, double kv, int causal)
{
    ridge_op op = ridge_op_blank(RIDGE_OP_ATTENTION, RIDGE_DTYPE_BF16);
    op.u.attn.batch = b; op.u.attn.heads = h; op.u.attn.kv_heads = hk;
    op.u.attn.q_len = q; op.u.attn.kv_len = kv; op.u.attn.head_dim = 128;
    op.u.attn.causal = causal; op.u.attn.pass = RIDGE_PASS_FWD;
    return op;
}

static void test_attention(void)
{
    ridge_gpu g = load("h200-sxm-141gb");
    ridge_kernel_result mha = predict(&g, attention(16, 32, 32, 1, 8192, 1));
    ridge_kernel_result gqa = predict(&g, attention(16, 32, 8, 1, 8192, 1));
    ridge_kernel_result full = predict(&g, attention(4, 32, 32, 4096, 4096, 0));
    ridge_kernel_result causal = predict(&g, attention(4, 32, 32, 4096, 4096, 1));
    ridge_op fb = attention(4, 32, 32, 4096, 4096, 1);
    ridge_kernel_result both;
    fb.u.attn.pass = RIDGE_PASS_FWD_BWD;
    both = predict(&g, fb);
    /* Decode reads the KV cache: memory-bound, and grouped-query attention reads 4x less. */
    CHECK(mha.bound == RIDGE_BOUND_MEMORY);
    CHECK(gqa.time_s < 0.5 * mha.time_s);
    CHECK_NEAR(mha.min_bytes / gqa.min_bytes, 4.0, 0.01);
    /* Long prefill is compute-bound; causal masking halves the work (almost). */
    CHECK(full.bound == RIDGE_BOUND_COMPUTE);
    CHECK_NEAR(causal.flops / full.flops, 0.5, 0.01);
    CHECK(causal.time_s < 0.6 * full.time_s);
    CHECK(both.time_s > 3 * causal.time_s);
    CHECK_NEAR(both.flops / causal.flops, 3.5, 1e-9);
}

/* Decode without GQA packing (per_head_kv: TensorRT-LLM's masked MHA before XQA): each of the
 * h / hk query heads sharing a KV head reads it, the repeats through the L2, and the dot products
 * run on the CUDA cores; the packed kernel reads it once. Prefill ignores the flag. */
static void test_attention_per_head_decode(void)
{
    ridge_gpu g = load("a100-sxm4-80gb");
    ridge_op packed = attention(64, 16, 2, 1, 4096, 1), per = packed, pre = attention(1, 16, 2, 2048, 2048, 1), pre2;
    ridge_kernel_result a, b;
    double kv_bytes = 2.0 * 64 * 2 * 4096 * 128 * 2;
    per.u.attn.per_head_kv = 1;
    a = predict(&g, packed);
    b = predict(&g, per);
    CHECK(isfinite(b.time_s) && b.time_s > a.time_s);
    CHECK_NEAR(b.l2_bytes - a.l2_bytes, (16.0 / 2 - 1) * kv_bytes, 1e-9);
    CHECK_NEAR(b.dram_bytes, a.dram_bytes, 1e-12); /* the first read of each KV head only */
    CHECK(b.time_s >= b.l2_bytes / g.eff.l2_bandwidth_bytes_per_s);
    pre2 = pre;
    pre2.u.attn.per_head_kv = 1;
    CHECK_NEAR(predict(&g, pre2).time_s, predict(&g, pre).time_s, 1e-12);
}

static void test_conv_and_lstm(void)
{
    ridge_gpu g = load("a100-sxm4-80gb");
    ridge_op c = conv_op(RIDGE_DTYPE_FP16, 256, 3, 224, 64, 7, 2, 3);
    ridge_kernel_result stem, body, dw;
    stem = predict(&g, c);
    c.u.conv.c = 64; c.u.conv.h = 56; c.u.conv.w = 56; c.u.conv.r = 3; c.u.conv.s = 3; c.u.conv.stride = 1;
    c.u.conv.pad = 1;
    body = predict(&g, c);
    /* 3 input channels are 6 bytes: the misaligned slow path. */
    CHECK(stem.align_efficiency < 1.0);
    CHECK(body.align_efficiency == 1.0);
    CHECK(stem.achieved_flops_per_s < body.achieved_flops_per_s);
    /* Depthwise runs on the vector path, memory-bound. */
    c.u.conv.k = 64; c.u.conv.groups = 64;
    dw = predict(&g, c);
    CHECK(dw.tensor == 0);
    CHECK(dw.bound == RIDGE_BOUND_MEMORY || dw.bound == RIDGE_BOUND_L2);
    {
        ridge_op l;
        ridge_kernel_result small;
        memset(&l, 0, sizeof l);
        l.kind = RIDGE_OP_LSTM;
        l.dtype = RIDGE_DTYPE_FP16;
        l.count = 1;
        l.u.lstm.batch = 1; l.u.lstm.seq = 100; l.u.lstm.input = 256; l.u.lstm.hidden = 256; l.u.lstm.layers = 2;
        l.u.lstm.pass = RIDGE_PASS_FWD;
        small = predict(&g, l);
        /* Batch 1: two kernels per step per layer, each tiny: the launch floors dominate. */
        CHECK(small.bound == RIDGE_BOUND_LATENCY);
        CHECK_NEAR(small.kernels, 2 * (1 + 2 * 100), 0);
    }
}

/* cuDNN's FP32 (FFMA) forward and data-gradient convolutions keep their grid: no split over the
 * reduction (as its FP32 recurrent GEMMs, docs/model.md §3), so a batch-1 7x7x512 3x3 layer (8
 * tiles on 80 SMs) runs far slower than a split would; the filter gradient (K = n p q) and the
 * tensor-core paths still split. */
static void test_ffma_conv_no_split(void)
{
    ridge_gpu v = load("v100-sxm2-32gb");
    /* a 1x1 layer (no Winograd): M = 49, N = 512, K = 2048, at most 8 tiles of 64 columns */
    ridge_op c = conv_op(RIDGE_DTYPE_FP32, 1, 2048, 7, 512, 1, 1, 0);
    ridge_kernel_result f = predict(&v, c), h, w;
    CHECK(f.split_k == 1);
    /* at least one 64x64 tile's whole K loop on one SM */
    CHECK(f.time_s > 2.0 * 64 * 64 * 2048 / (v.peak_flops_per_s[RIDGE_PEAK_FP32] / v.sm_count));
    c.u.conv.pass = RIDGE_PASS_BWD_DATA;
    CHECK(predict(&v, c).split_k == 1);
    /* the filter gradient of a 64 -> 64 1x1 layer at 56x56 x 32 images: one tile, K = 100,352 */
    c = conv_op(RIDGE_DTYPE_FP32, 32, 64, 56, 64, 1, 1, 0);
    c.u.conv.pass = RIDGE_PASS_BWD_FILTER;
    w = predict(&v, c);
    CHECK(w.split_k > 1);
    /* tensor cores split (V100: no stream-K) */
    c = conv_op(RIDGE_DTYPE_FP16, 1, 2048, 7, 512, 1, 1, 0);
    h = predict(&v, c);
    CHECK(h.split_k > 1);
}

/* The kernel model computes a convolution's output sides once for its bytes, FLOPs and implicit
 * GEMM (docs/model.md §2, "Cost of the search"): its result's FLOPs and compulsory bytes are the op's
 * own (ridge_op_flops, ridge_op_min_bytes) for every stride, padding, pass and a fused epilogue,
 * on the implicit-GEMM, Winograd and depthwise paths. */
static void test_conv_sides_once(void)
{
    ridge_gpu g = load("h100-sxm5-80gb");
    static const double strides[] = {1, 2, 3}, pads[] = {0, 1, 3}, hws[] = {7, 17, 56};
    for (int dt = 0; dt < 2; dt++)
        for (int si = 0; si < 3; si++)
            for (int pi = 0; pi < 3; pi++)
                for (int hi = 0; hi < 3; hi++)
                    for (int pass = 0; pass < 3; pass++)
                        for (int grouped = 0; grouped < 2; grouped++) {
                            ridge_op c = conv_op(dt ? RIDGE_DTYPE_FP32 : RIDGE_DTYPE_FP16, 8, 64, hws[hi], 128, 3,
                                                 strides[si], pads[pi]);
                            ridge_kernel_result r;
                            c.u.conv.pass = (ridge_pass)pass;
                            c.u.conv.groups = grouped ? 64 : 1;
                            c.epilogue_bytes = pi == 1 ? 12345 : 0;
                            r = predict(&g, c);
                            CHECK(r.flops == ridge_op_flops(&c));
                            CHECK(r.min_bytes == ridge_op_min_bytes(&c));
                            CHECK(r.time_s > 0);
                        }
}

/* A test that hangs fails instead: SIGALRM reports which one and exits. */
static void hung(int sig)
{
    static const char msg[] = "test_kernel: FAIL: a prediction did not finish within 10 s (a loop over a count?)\n";
    (void)sig;
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(w < 0 ? 2 : 1);
}

/* The cost of an LSTM stack is closed-form in its layers: layer 0 plus layers - 1 equal layers,
 * up to the schema's 1e15 (beyond 2^53, where counting layers one by one never ends). */
static void test_lstm_layers(void)
{
    static const struct {
        double layers;
        ridge_pass pass;
    } rows[] = {
        {3, RIDGE_PASS_FWD}, {7, RIDGE_PASS_FWD_BWD}, {1e6, RIDGE_PASS_FWD}, {1e15, RIDGE_PASS_FWD},
        {1e15, RIDGE_PASS_FWD_BWD},
    };
    ridge_gpu g = load("h200-sxm-141gb");
    signal(SIGALRM, hung);
    alarm(10);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_op l;
        ridge_kernel_result one, two, many;
        char ctx[64];
        snprintf(ctx, sizeof ctx, "lstm layers %g, pass %d", rows[i].layers, (int)rows[i].pass);
        check_context(ctx);
        memset(&l, 0, sizeof l);
        l.kind = RIDGE_OP_LSTM;
        l.dtype = RIDGE_DTYPE_BF16;
        l.count = 1;
        l.u.lstm.batch = 24; l.u.lstm.seq = 37; l.u.lstm.input = 333; l.u.lstm.hidden = 517;
        l.u.lstm.pass = rows[i].pass;
        l.u.lstm.layers = 1;
        one = predict(&g, l);
        l.u.lstm.layers = 2;
        two = predict(&g, l);
        l.u.lstm.layers = rows[i].layers;
        many = predict(&g, l);
        CHECK(isfinite(many.time_s) && many.time_s > two.time_s);
        CHECK_NEAR(many.time_s, one.time_s + (rows[i].layers - 1) * (two.time_s - one.time_s), 1e-9);
        CHECK_NEAR(many.kernels, one.kernels + (rows[i].layers - 1) * (two.kernels - one.kernels), 1e-12);
        CHECK_NEAR(many.dram_bytes, one.dram_bytes + (rows[i].layers - 1) * (two.dram_bytes - one.dram_bytes),
                   1e-9);
    }
    alarm(0);
    signal(SIGALRM, SIG_DFL);
    check_context(NULL);
}

/* Every kind on every catalogue GPU gives a finite positive time, or EUNSUPPORTED. */
static void test_all_kinds_everywhere(void)
{
    for (size_t i = 0; i < ridge_catalog_count(); i++) {
        ridge_gpu g = load(ridge_catalog_id(i));
        for (int dt = 0; dt < RIDGE_DTYPE_COUNT; dt++) {
            ridge_op ops[4];
            ops[0] = ridge_op_gemm((ridge_dtype)dt, 1000, 3000, 777, 3);
            ops[1] = ridge_op_elementwise((ridge_dtype)dt, 12345678, 2, 1, 3);
            ops[2] = ridge_op_copy(123456789, RIDGE_COPY_H2D);
            ops[3] = attention(2, 16, 4, 333, 1500, 1);
            ops[3].dtype = (ridge_dtype)dt;
            for (int k = 0; k < 4; k++) {
                ridge_kernel_result r;
                ridge_err err;
                int rc = ridge_kernel_predict(&g, &ops[k], &r, &err);
                check_context(ridge_catalog_id(i));
                CHECK(rc == RIDGE_OK || rc == RIDGE_EUNSUPPORTED);
                if (rc == RIDGE_OK) {
                    CHECK(isfinite(r.time_s) && r.time_s > 0);
                    CHECK(isfinite(r.roof_efficiency) && r.roof_efficiency >= 0);
                    CHECK(r.bound < RIDGE_BOUND_HOST);
                }
            }
        }
    }
    check_context(NULL);
}

/* The mechanisms of the imported records, each in isolation (docs/model.md §2-6). */
/* Strided elementwise inputs (docs/model.md §6): PyTorch's legacy TensorIterator loop has one
 * element per thread in flight, so a kernel over 2^27 elements takes elements / (SMs x resident
 * threads) DRAM latencies, whatever its bytes; the same op on contiguous inputs streams at the
 * DRAM bandwidth, 1.6x as fast on an H200. An L40S, with a sixth of the bandwidth, streams slower
 * than its rounds allow: the strided op costs what the contiguous one does. */
static void test_strided_elementwise(void)
{
    ridge_gpu g = load("h200-sxm-141gb"), l40s = load("l40s");
    ridge_op op = ridge_op_elementwise(RIDGE_DTYPE_BF16, 134217728.0, 2, 1, 1);
    ridge_kernel_result flat = predict(&g, op), r;
    op.u.ew.strided_inputs = 1;
    r = predict(&g, op);
    CHECK(flat.bound == RIDGE_BOUND_MEMORY);
    CHECK(r.bound == RIDGE_BOUND_LATENCY);
    CHECK_NEAR(r.time_s - r.floor_s, ceil(134217728.0 / (g.sm_count * 32.0 * g.max_warps_per_sm)) * g.eff.dram_latency_s,
               1e-12);
    CHECK(r.time_s > 1.5 * flat.time_s);
    r = predict(&l40s, op);
    op.u.ew.strided_inputs = 0;
    flat = predict(&l40s, op);
    CHECK(r.bound == RIDGE_BOUND_MEMORY);
    CHECK_NEAR(r.time_s, flat.time_s, 1e-12);
    op.u.ew.strided_inputs = 1;
    /* A small strided op (one round) stays a bandwidth or floor question. */
    op.u.ew.elements = 4096;
    r = predict(&g, op);
    CHECK(r.time_s - r.floor_s <= g.eff.dram_latency_s + 1e-12);
}

/* Channels-last batch norm (docs/model.md §6): PyTorch's native channels_last kernels give each
 * channel ~2,048 threads (blocks of 32 channels x 16 rows, at most 128 blocks down the column).
 * Their persistent grids walk the column in lockstep rounds, each a DRAM latency plus its bytes at
 * the streaming rate (rounds + streaming time beyond its first latency). The per-element transform
 * has two elements per thread a round (ptxas's 3 + 1 schedule of its four-way loop): on an H200 a
 * BF16 normalise of 256 x 28 x 28 x 256 values (51 M, full occupancy) takes its rounds plus its
 * streaming, ~2.1x the streaming time, and at 64 channels (half the resident threads) more. The
 * backward elemt kernel (two inputs) has two a round on sm_90 and four on sm_86 / sm_89. The
 * reduction, with four loads in flight, pays its rounds on top of its streaming, and zero-fills
 * its semaphores first (two kernels). */
static void test_channels_last_bn(void)
{
    ridge_gpu g = load("h200-sxm-141gb"), l40s = load("l40s");
    double el = 256.0 * 28 * 28 * 256, res = g.sm_count * 32.0 * g.max_warps_per_sm;
    double lat = g.eff.dram_latency_s;
    ridge_op op = ridge_op_elementwise(RIDGE_DTYPE_BF16, el, 1, 1, 2);
    ridge_kernel_result flat = predict(&g, op), r, r64, red, b2;
    op.u.ew.channels = 256;
    r = predict(&g, op);
    CHECK(flat.bound == RIDGE_BOUND_MEMORY);
    CHECK(r.bound == RIDGE_BOUND_LATENCY);
    CHECK_NEAR(r.memory_s, flat.memory_s, 1e-12);
    CHECK_NEAR(r.time_s - r.floor_s, ceil(el / (res * 2)) * lat + flat.memory_s - lat, 1e-12);
    CHECK(r.time_s > 1.9 * flat.time_s);
    CHECK(r.time_s < 2.3 * flat.time_s);
    op.u.ew.channels = 64;
    r64 = predict(&g, op);
    CHECK_NEAR(r64.time_s - r64.floor_s, ceil(el / (64.0 * 16 * 128 * 2)) * lat + flat.memory_s - lat, 1e-12);
    CHECK(r64.time_s > r.time_s);
    /* the backward elemt kernel: x and dy in, dx out; two elements a round on the H200, four on
     * the L40S (sm_89), where the transform keeps two */
    op.u.ew.channels = 256;
    op.u.ew.inputs = 2;
    b2 = predict(&g, op);
    CHECK(b2.bound == RIDGE_BOUND_LATENCY);
    CHECK_NEAR(b2.time_s - b2.floor_s, ceil(el / (res * 2)) * lat + b2.memory_s - lat, 1e-12);
    CHECK(b2.memory_s > 1.4 * r.memory_s);
    {
        double res_l = l40s.sm_count * 32.0 * l40s.max_warps_per_sm, lat_l = l40s.eff.dram_latency_s;
        ridge_op t = ridge_op_elementwise(RIDGE_DTYPE_BF16, el, 1, 1, 2), bw = ridge_op_elementwise(RIDGE_DTYPE_BF16, el, 2, 1, 2);
        ridge_kernel_result tr, br;
        t.u.ew.channels = bw.u.ew.channels = 256;
        tr = predict(&l40s, t);
        br = predict(&l40s, bw);
        CHECK(tr.bound == RIDGE_BOUND_LATENCY);
        CHECK(br.bound == RIDGE_BOUND_LATENCY);
        CHECK_NEAR(tr.time_s - tr.floor_s, ceil(el / (res_l * 2)) * lat_l + tr.memory_s - lat_l, 1e-12);
        CHECK_NEAR(br.time_s - br.floor_s, ceil(el / (res_l * 4)) * lat_l + br.memory_s - lat_l, 1e-12);
    }
    /* the reduction: rows = channels, cols = the column */
    op = ridge_op_blank(RIDGE_OP_REDUCE, RIDGE_DTYPE_BF16);
    op.u.rows.rows = 256;
    op.u.rows.cols = el / 256;
    flat = predict(&g, op);
    op.u.rows.kernel = RIDGE_ROW_COLUMN;
    red = predict(&g, op);
    CHECK(red.kernels == 2);
    CHECK_NEAR(red.time_s - red.floor_s, ceil(el / (res * 4)) * lat + red.memory_s - lat, 1e-12);
    CHECK(red.time_s < r.time_s);
    op.u.rows.rows = 64;
    op.u.rows.cols = 256.0 * 112 * 112;
    red = predict(&g, op);
    CHECK(red.bound == RIDGE_BOUND_LATENCY);
    CHECK_NEAR(red.time_s - red.floor_s,
               ceil(64.0 * op.u.rows.cols / (64.0 * 16 * 128 * 4)) * lat + red.memory_s - lat, 1e-12);
    /* PyTorch's grid-reduction rule: 8 or more blocks of 256 down the column (m > 1,792) take the
     * grid reduction and its semaphore fill (2 kernels); fewer go to one block down the column,
     * 16 x 32 threads per 32 channels: m = 1,800 (8 blocks), 1,792 (7: one) and 300 (2: one). */
    {
        ridge_op c = op;
        c.u.rows.cols = 1800;
        CHECK_INT((int)predict(&g, c).kernels, 2);
        c.u.rows.cols = 1792;
        CHECK_INT((int)predict(&g, c).kernels, 1);
        c.u.rows.rows = 512;
        c.u.rows.cols = 300;
        ridge_kernel_result one = predict(&g, c);
        CHECK_INT((int)one.kernels, 1);
        /* 512 x 300 elements in L2 (no DRAM stream beyond the rounds): 16 x 512 threads, 4
         * loads each a round: 5 rounds, where 2 blocks down the column would have taken 3 */
        CHECK(one.memory_s <= lat);
        CHECK_NEAR(one.time_s - one.floor_s, ceil(512.0 * 300 / (16 * 512.0 * 4)) * lat, 1e-12);
    }
    /* backward: x and dy reduced together, twice the bytes, the same rounds plus the longer stream */
    op.u.rows.inputs = 2;
    b2 = predict(&g, op);
    CHECK(b2.dram_bytes + b2.l2_bytes > 1.9 * (red.dram_bytes + red.l2_bytes));
    CHECK(b2.time_s > red.time_s);
    /* the training statistics' running-stats update (aux_kernels 1): one more kernel, one more
     * floor, nothing else */
    op.u.rows.inputs = 1;
    op.u.rows.aux_kernels = 1;
    r = predict(&g, op);
    CHECK(r.kernels == 3);
    CHECK_NEAR(r.time_s - red.time_s, g.eff.kernel_floor_s, 1e-12);
    CHECK_NEAR(r.dram_bytes, red.dram_bytes, 1e-12);
    /* the eval transform's running-mean copy and invstd (aux_kernels 2) */
    op = ridge_op_elementwise(RIDGE_DTYPE_BF16, el, 1, 1, 2);
    op.u.ew.channels = 64;
    op.u.ew.aux_kernels = 2;
    r = predict(&g, op);
    CHECK(r.kernels == 3);
    CHECK_NEAR(r.time_s - r64.time_s, 2 * g.eff.kernel_floor_s, 1e-12);
}

/* Hopper tile writes (docs/model.md §2): a write-bound GEMM (k = 64, a 512 MB C) on an H200 writes
 * C at 0.80 of the streaming rate while its operands stream at the full rate; an A100 (no TMA
 * epilogue in the evidence) and the FP32 SGEMM on the H200 keep the streaming rate throughout. */
static void test_tile_writes(void)
{
    ridge_gpu h200 = load("h200-sxm-141gb"), a100 = load("a100-sxm4-80gb");
    double m = 16384, n = 16384, k = 64, ab = (m * k + k * n) * 2.0, c = m * n * 2.0;
    ridge_kernel_result r = predict(&h200, ridge_op_gemm(RIDGE_DTYPE_BF16, m, n, k, 1));
    double bw = h200.memory_bw_bytes_per_s * h200.eff.dram_fraction;
    CHECK(r.bound == RIDGE_BOUND_MEMORY);
    CHECK_NEAR(r.dram_bytes, ab + c, 1e-12);
    /* (plus the two round trips of a Hopper library GEMM's memory stream: test_gemm_round_trips) */
    CHECK_NEAR(r.memory_s, 3.0 * h200.eff.dram_latency_s + ab / bw + c / (0.80 * bw), 1e-12);
    CHECK_NEAR(r.time_s, r.floor_s + r.memory_s, 1e-12);
    r = predict(&a100, ridge_op_gemm(RIDGE_DTYPE_BF16, m, n, k, 1));
    CHECK_NEAR(r.memory_s, a100.eff.dram_latency_s + (ab + c) / (a100.memory_bw_bytes_per_s * a100.eff.dram_fraction),
               1e-12);
    r = predict(&h200, ridge_op_gemm(RIDGE_DTYPE_FP32, m, n, k, 1));
    CHECK_NEAR(r.memory_s, h200.eff.dram_latency_s + 2.0 * (ab + c) / bw, 1e-12);
}

/* A Hopper library GEMM's DRAM stream pays two DRAM round trips besides the first stage's
 * (arguments and TMA descriptors before it, the epilogue's stores after it): a weight-bound GEMV
 * on the H100 costs 2 latencies more than its bytes at the streaming rate; an A100 GEMV and a
 * misaligned (no-TMA) Hopper GEMV do not pay them. */
static void test_gemm_round_trips(void)
{
    ridge_gpu h100 = load("h100-sxm5-80gb"), a100 = load("a100-sxm4-80gb");
    ridge_op op = ridge_op_gemm(RIDGE_DTYPE_BF16, 1, 8192, 8192, 1);
    ridge_kernel_result r = predict(&h100, op);
    double lat = h100.eff.dram_latency_s, bw = h100.memory_bw_bytes_per_s * h100.eff.dram_fraction;
    CHECK(r.bound == RIDGE_BOUND_MEMORY);
    /* The x and y bytes are L2-resident (hot): the weight alone comes from DRAM. */
    /* 3 latencies; the tile-shaped write of the 16 KB output adds ~1 ns */
    CHECK(fabs(r.memory_s - r.dram_bytes / bw - 3.0 * lat) < 0.01 * lat);
    r = predict(&a100, op);
    CHECK_NEAR(r.memory_s, a100.eff.dram_latency_s + r.dram_bytes / (a100.memory_bw_bytes_per_s * a100.eff.dram_fraction),
               1e-12);
    op.u.gemm.n = 8190; /* 16380 B rows: no TMA */
    r = predict(&h100, op);
    CHECK(r.memory_s - r.dram_bytes / bw < 1.5 * lat);
}

/* Hopper clusters: with 2-CTA clusters along m, B is streamed from L2 once per pair of tile rows.
 * A large square BF16 GEMM on the H100 streams m k e (n / tn) + k n e (m / tm) / 2 bytes through
 * L2; on the A100 (no clusters) the full k n e (m / tm). That stream is its L2 traffic, the DRAM
 * bytes and the bytes the L2 serves (l2_bytes) together. */
static void test_hopper_clusters(void)
{
    ridge_gpu h100 = load("h100-sxm5-80gb"), a100 = load("a100-sxm4-80gb");
    double m = 16384, n = 16384, k = 16384, e = 2;
    ridge_kernel_result r = predict(&h100, ridge_op_gemm(RIDGE_DTYPE_BF16, m, n, k, 1));
    CHECK(r.tile_m == 128 && r.tile_n == 256);
    CHECK_NEAR(r.dram_bytes + r.l2_bytes, m * k * e * (n / 256) + k * n * e * (m / 128) / 2.0, 1e-12);
    r = predict(&a100, ridge_op_gemm(RIDGE_DTYPE_BF16, m, n, k, 1));
    CHECK_NEAR(r.dram_bytes + r.l2_bytes, m * k * e * (n / r.tile_n) + k * n * e * (m / r.tile_m), 1e-12);
}

static void test_record_mechanisms(void)
{
    ridge_gpu h200 = load("h200-sxm-141gb"), h100 = load("h100-sxm5-80gb"), a100 = load("a100-sxm4-80gb");
    ridge_op op;
    ridge_kernel_result a, b;
    /* NHWC FP32 convolution (TF32 off): cuDNN's FFMA kernels at 0.55 of the SGEMM rate. A 1x1
     * convolution is implicit GEMM either way, so the ratio is the share (the floor aside). */
    op = ridge_op_blank(RIDGE_OP_CONV2D, RIDGE_DTYPE_FP32);
    op.u.conv.n = 128, op.u.conv.c = 256, op.u.conv.h = 56, op.u.conv.w = 56, op.u.conv.k = 256;
    op.u.conv.r = 1, op.u.conv.s = 1, op.u.conv.stride = 1, op.u.conv.pad = 0, op.u.conv.groups = 1;
    a = predict(&h200, op);
    op.u.conv.nhwc = 1;
    b = predict(&h200, op);
    CHECK_NEAR((b.time_s - b.floor_s) / (a.time_s - a.floor_s), 1.0 / 0.55, 0.03);
    /* ... and half precision keeps its tensor-core path. */
    op.dtype = RIDGE_DTYPE_FP16;
    a = predict(&h200, op);
    op.u.conv.nhwc = 0;
    CHECK_NEAR(predict(&h200, op).time_s, a.time_s, 1e-12);

    /* A named elementwise function is FP32 math: GELU (erf) over 2^28 bf16 elements is bound by
     * its 40 instructions per element, a plain op with the same bytes by DRAM. */
    op = ridge_op_elementwise(RIDGE_DTYPE_BF16, 268435456.0, 1, 1, 1);
    a = predict(&h200, op);
    op.u.ew.fn = RIDGE_EW_GELU_ERF;
    b = predict(&h200, op);
    CHECK(a.bound == RIDGE_BOUND_MEMORY);
    CHECK(b.bound == RIDGE_BOUND_COMPUTE);
    CHECK_NEAR(b.compute_s,
               268435456.0 * 80.0 / (h200.peak_flops_per_s[RIDGE_PEAK_FP32] * h200.eff.vector_fraction), 1e-9);
    /* ... issued at four warp instructions per SM clock: an A100 SM (64 FP32 lanes) issues 128
     * instructions a clock, twice its FP32 lanes, so the same GELU is DRAM-bound there, its
     * instructions taking 80 FLOPs' issue time at twice the FP32 rate, and only the lanes' half of
     * the slots counted as FP32 FLOPs (within the roof). */
    b = predict(&a100, op);
    CHECK_NEAR(b.compute_s,
               268435456.0 * 80.0 / (2.0 * a100.peak_flops_per_s[RIDGE_PEAK_FP32] * a100.eff.vector_fraction), 1e-9);
    CHECK_NEAR(b.flops, 268435456.0 * 40.0, 1e-9);
    CHECK(b.bound == RIDGE_BOUND_MEMORY && b.roof_efficiency <= 1.0);

    /* no_split_k: a long-k GEMM of a few tiles cannot use the idle SMs (8 tiles of 64x64 on 132). */
    op = ridge_op_gemm(RIDGE_DTYPE_FP8, 256, 128, 65536, 1);
    op.u.gemm.layout = RIDGE_LAYOUT_NT;
    a = predict(&h100, op);
    op.u.gemm.no_split_k = 1;
    b = predict(&h100, op);
    CHECK(a.split_k > 1);
    CHECK(b.split_k == 1 && b.kernels == 1);
    CHECK(b.time_s > 4 * a.time_s);

    /* tiles_by_m: a library dispatching its tile on m (vLLM's CUTLASS FP8) keeps 128x128 or larger
     * tiles at m = 256 however few the tiles (2 instead of the 8 64x64 tiles above: the MMAs of one
     * 128x128 tile's full K on each of 2 SMs), 64x128 at m = 128 and 64x64 at m = 64. */
    op.u.gemm.tiles_by_m = 1;
    a = predict(&h100, op);
    CHECK(a.tile_m * a.tile_n >= 128 * 128 && a.tiles == 2 && a.split_k == 1);
    CHECK(a.time_s > 2.5 * b.time_s);
    CHECK(b.tile_m * b.tile_n == 64 * 64);
    op.u.gemm.m = 128;
    a = predict(&h100, op);
    CHECK(a.tile_m == 64 && a.tile_n == 128);
    op.u.gemm.m = 64;
    op.u.gemm.n = 8192;
    a = predict(&h100, op);
    CHECK(a.tile_m == 64 && a.tile_n == 64 && a.tiles == 128);
    op.u.gemm.m = 8192; /* a large grid still takes the largest tiles */
    a = predict(&h100, op);
    CHECK(a.tile_m * a.tile_n == 128 * 256);

    /* Grids short of the SMs: a weight-bound GEMM of 64 fixed 64x64 tiles (n = 4096) streams its
     * bytes 1 + (BW L / x) (1 / 64 - 1 / 132) times slower than one of 132 tiles (n = 8448), x =
     * 0.32 of the SM's shared memory in flight; the same 64 tiles from cuBLAS, which may split K, are
     * taken as spread over the SMs and not stretched. */
    {
        double bw = h100.memory_bw_bytes_per_s * h100.eff.dram_fraction, lat = h100.eff.dram_latency_s;
        double x = 0.32 * h100.smem_per_sm_bytes, want = 1.0 + bw * lat / x * (1.0 / 64 - 1.0 / h100.sm_count);
        op.u.gemm.m = 16, op.u.gemm.n = 4096, op.u.gemm.k = 51200;
        a = predict(&h100, op);
        op.u.gemm.n = 64.0 * h100.sm_count;
        b = predict(&h100, op);
        CHECK(a.tiles == 64 && b.tiles == h100.sm_count && a.bound == RIDGE_BOUND_MEMORY);
        CHECK_NEAR(((a.memory_s - 3 * lat) / a.dram_bytes) / ((b.memory_s - 3 * lat) / b.dram_bytes), want, 0.01);
        CHECK(want > 1.1);
        op.u.gemm.n = 4096;
        op.u.gemm.no_split_k = 0, op.u.gemm.tiles_by_m = 0;
        b = predict(&h100, op);
        CHECK(b.tiles == 64 && b.time_s < 0.9 * a.time_s);
    }
    /* A GPU whose registers hold no tile's accumulators is refused naming the field, not the
     * shared memory it has enough of. */
    {
        ridge_gpu few = h100;
        ridge_err e = {{0}};
        few.registers_per_sm = 1024;
        CHECK_INT(ridge_kernel_predict(&few, &op, &a, &e), RIDGE_EUNSUPPORTED);
        CHECK_STR_HAS(e.msg, "$.sm.registers");
    }

    /* row_kernel cta: a kernel that launches one CTA per row pays its rounds even for short rows; a
     * framework reduction over the same short rows goes to warps. */
    op = ridge_op_blank(RIDGE_OP_REDUCE, RIDGE_DTYPE_BF16);
    op.u.rows.rows = 32768, op.u.rows.cols = 128;
    a = predict(&h100, op);
    op.u.rows.kernel = RIDGE_ROW_CTA;
    b = predict(&h100, op);
    CHECK(b.bound == RIDGE_BOUND_LATENCY);
    CHECK_NEAR(b.time_s - b.floor_s,
               ceil(32768.0 / (h100.sm_count * 2)) * (h100.eff.dram_latency_s + 1500.0 / h100.boost_clock_hz), 1e-9);
    CHECK(b.time_s > 10 * a.time_s);

    /* Attention: Hopper's SDPA at 0.73 of the GEMM rate forward and 0.62 of that backward;
     * Ampere's FlashAttention-2 at 0.88 and 0.80. A long causal prefill is compute-bound. */
    {
        ridge_op f = attention(8, 32, 32, 8192, 8192, 1), fb;
        double ph = h200.peak_flops_per_s[RIDGE_PEAK_BF16] * h200.eff.tensor_fraction;
        double pa = a100.peak_flops_per_s[RIDGE_PEAK_BF16] * a100.eff.tensor_fraction;
        a = predict(&h200, f);
        b = predict(&a100, f);
        CHECK_NEAR(a.achieved_flops_per_s / ph, 0.73, 0.05);
        CHECK_NEAR(b.achieved_flops_per_s / pa, 0.88, 0.05);
        fb = f;
        fb.u.attn.pass = RIDGE_PASS_FWD_BWD;
        /* forward + 2.5x its FLOPs at 0.62 of its rate: 1 + 2.5 / 0.62 = 5.03 forwards */
        CHECK_NEAR((predict(&h200, fb).time_s - 4 * h200.eff.kernel_floor_s) / (a.time_s - a.floor_s), 1 + 2.5 / 0.62,
                   0.02);
    }
}

/* Ada's sustained tensor clock (docs/model.md §2): on compute capability 8.9 the MMAs run at
 * 1.94 GHz, not at the 2.49 GHz tensor-peak clock of the L40S; the same part labelled 8.6 keeps
 * the quoted peak. A compute-bound GEMM slows by 2.49 / 1.94 (its fill and drain, at the
 * SM clock, aside); a write-bound one (k = 64) does not move; an L4 (2.04 GHz) by 2.04 / 1.94. */
static void test_ada_tensor_clock(void)
{
    ridge_gpu l40s = load("l40s"), other = l40s, l4 = load("l4"), l4o;
    ridge_kernel_result a, b;
    strcpy(other.compute_capability, "8.6");
    a = predict(&l40s, ridge_op_gemm(RIDGE_DTYPE_BF16, 8192, 8192, 8192, 1));
    b = predict(&other, ridge_op_gemm(RIDGE_DTYPE_BF16, 8192, 8192, 8192, 1));
    CHECK(a.bound == RIDGE_BOUND_COMPUTE);
    CHECK_NEAR(a.compute_s / b.compute_s, 2.49e9 / 1.94e9, 0.01);
    a = predict(&l40s, ridge_op_gemm(RIDGE_DTYPE_BF16, 16384, 16384, 64, 1));
    b = predict(&other, ridge_op_gemm(RIDGE_DTYPE_BF16, 16384, 16384, 64, 1));
    CHECK(a.bound == RIDGE_BOUND_MEMORY);
    CHECK_NEAR(a.time_s, b.time_s, 1e-12);
    /* the vector path (SGEMM) keeps its clock */
    a = predict(&l40s, ridge_op_gemm(RIDGE_DTYPE_FP32, 4096, 4096, 4096, 1));
    b = predict(&other, ridge_op_gemm(RIDGE_DTYPE_FP32, 4096, 4096, 4096, 1));
    CHECK_NEAR(a.time_s, b.time_s, 1e-12);
    l4o = l4;
    strcpy(l4o.compute_capability, "8.6");
    a = predict(&l4, ridge_op_gemm(RIDGE_DTYPE_FP16, 8192, 8192, 8192, 1));
    b = predict(&l4o, ridge_op_gemm(RIDGE_DTYPE_FP16, 8192, 8192, 8192, 1));
    CHECK_NEAR(a.compute_s / b.compute_s, l4.tensor_clock_hz / 1.94e9, 0.01);
}

/* Power-limited sustained tensor clock (docs/model.md §2): under sustained load a 16- or 8-bit
 * tensor-core GEMM on a GPU whose file gives sustained_tensor_clock_hz runs its MMAs at that clock;
 * the memory terms, TF32, the CUDA-core paths, an unsustained load and a GPU without the figure
 * keep the quoted clocks. */
static void test_sustained_tensor_clock(void)
{
    ridge_gpu h200 = load("h200-sxm-141gb"), hot = h200, h100 = load("h100-sxm5-80gb"), h100hot = h100;
    ridge_kernel_result a, b;
    hot.sustained_load = 1;
    h100hot.sustained_load = 1;
    CHECK(h200.sustained_tensor_clock_hz > 0 && h200.sustained_tensor_clock_hz < h200.tensor_clock_hz);
    CHECK(h100.sustained_tensor_clock_hz == 0);
    {
        /* the B200's observed figure: 1.58 GHz against its 1.86 GHz peak clock, FlashInfer's -15 % */
        ridge_gpu b200 = load("b200"), b200hot = b200;
        b200hot.sustained_load = 1;
        CHECK_NEAR(b200.sustained_tensor_clock_hz, 1.58e9, 1e-12);
        a = predict(&b200hot, ridge_op_gemm(RIDGE_DTYPE_BF16, 8192, 8192, 8192, 1));
        b = predict(&b200, ridge_op_gemm(RIDGE_DTYPE_BF16, 8192, 8192, 8192, 1));
        CHECK_NEAR(b.compute_s / a.compute_s, 1.58 / 1.86, 0.01);
    }
    static const ridge_dtype slowed[] = {RIDGE_DTYPE_BF16, RIDGE_DTYPE_FP16, RIDGE_DTYPE_FP8};
    for (size_t i = 0; i < sizeof slowed / sizeof slowed[0]; i++) {
        a = predict(&hot, ridge_op_gemm(slowed[i], 8192, 8192, 8192, 1));
        b = predict(&h200, ridge_op_gemm(slowed[i], 8192, 8192, 8192, 1));
        CHECK(a.bound == RIDGE_BOUND_COMPUTE);
        CHECK_NEAR(a.compute_s / b.compute_s, h200.tensor_clock_hz / h200.sustained_tensor_clock_hz, 0.01);
    }
    /* a write-bound shallow GEMM is held by DRAM, not the MMAs */
    a = predict(&hot, ridge_op_gemm(RIDGE_DTYPE_BF16, 16384, 16384, 64, 1));
    b = predict(&h200, ridge_op_gemm(RIDGE_DTYPE_BF16, 16384, 16384, 64, 1));
    CHECK(a.bound == RIDGE_BOUND_MEMORY);
    CHECK_NEAR(a.time_s, b.time_s, 1e-12);
    static const ridge_dtype kept[] = {RIDGE_DTYPE_TF32, RIDGE_DTYPE_FP32};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
        a = predict(&hot, ridge_op_gemm(kept[i], 8192, 8192, 8192, 1));
        b = predict(&h200, ridge_op_gemm(kept[i], 8192, 8192, 8192, 1));
        CHECK_NEAR(a.time_s, b.time_s, 1e-12);
    }
    a = predict(&h100hot, ridge_op_gemm(RIDGE_DTYPE_BF16, 8192, 8192, 8192, 1));
    b = predict(&h100, ridge_op_gemm(RIDGE_DTYPE_BF16, 8192, 8192, 8192, 1));
    CHECK_NEAR(a.time_s, b.time_s, 1e-12);
}

/* The kernel model keeps no per-GPU state between calls: the per-GPU values it hoists out of the
 * GEMM tile loop (compute capability, shared memory and accumulator budget per SM, peaks and
 * fractions) are taken from the ridge_gpu on every call. A copy edited after loading predicts as
 * its edited fields say, and restoring the fields gives back the loaded GPU's result bit for bit. */
static void test_edited_gpu_fields(void)
{
    ridge_gpu h = load("h100-sxm5-80gb"), e = h;
    ridge_op op = ridge_op_gemm(RIDGE_DTYPE_BF16, 8192, 8192, 8192, 1);
    ridge_op small = ridge_op_gemm(RIDGE_DTYPE_BF16, 256, 1024, 4096, 1);
    ridge_kernel_result a = predict(&h, op), a2 = predict(&h, small), b, c;
    CHECK(a.tile_m * a.tile_n == 128.0 * 256.0);
    /* 128x256 and 256x128 tiles need 3 x (128 + 256) x 64 = 73,728 bytes of stages */
    e.smem_per_sm_bytes = 60000;
    b = predict(&e, op);
    CHECK(b.tile_m * b.tile_n == 128.0 * 128.0);
    /* 128x128 FP32 accumulators (65,536 B) over 0.75 x 4 x 16,384 = 49,152 B of registers */
    e.registers_per_sm = 16384;
    b = predict(&e, op);
    CHECK(b.tile_m * b.tile_n == 64.0 * 128.0);
    e = h;
    strcpy(e.compute_capability, "8.0"); /* no Hopper clusters, tile writes or round trips */
    b = predict(&e, small);
    CHECK(b.time_s != a2.time_s);
    e = h;
    b = predict(&e, op);
    c = predict(&e, small);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    CHECK(memcmp(&a2, &c, sizeof a2) == 0);
}

/* The GEMM search is one in-order pass that skips what exact lower bounds rule out (docs/model.md
 * §2, "Cost of the search"), and its result is that of trying every tile in order: the least
 * time, ties to the first tile. A memory-bound GEMM (k = 16: C's writes) takes
 * the same time with every tile, so it keeps the first, 128x256, though a smaller tile's bound is
 * as low; a small grid still takes the smaller tile that fills more SMs. */
static void test_gemm_search_ties(void)
{
    ridge_gpu h = load("h100-sxm5-80gb");
    ridge_kernel_result a = predict(&h, ridge_op_gemm(RIDGE_DTYPE_BF16, 8192, 8192, 16, 1));
    ridge_kernel_result b = predict(&h, ridge_op_gemm(RIDGE_DTYPE_BF16, 512, 512, 8192, 1));
    CHECK(a.bound == RIDGE_BOUND_MEMORY);
    CHECK(a.tile_m == 128 && a.tile_n == 256 && a.split_k == 1);
    CHECK(b.tile_m * b.tile_n < 128 * 256);
}

/* GDDR tile streams (docs/model.md §2): on GDDR memory a tiled library GEMM's DRAM bytes stream at
 * 0.82 of the streaming rate, so a weight-bound L40S GEMM (m = 64) takes 1/0.82 of its DRAM time
 * on the same GPU described with HBM; a narrow GEMM (m or n at most 16) at 0.90 and a GEMV (m = 1)
 * at 0.94; the cuDNN convolutions' implicit GEMMs are unchanged. */
static void test_gddr_tile_streams(void)
{
    ridge_gpu gddr = load("l40s"), hbm = gddr;
    snprintf(hbm.memory_type, sizeof hbm.memory_type, "HBM3");
    double bw = gddr.memory_bw_bytes_per_s * gddr.eff.dram_fraction, lat = gddr.eff.dram_latency_s;
    ridge_op op = ridge_op_gemm(RIDGE_DTYPE_BF16, 64, 8192, 8192, 1);
    ridge_kernel_result g = predict(&gddr, op), h = predict(&hbm, op);
    check_context("m = 64");
    CHECK(g.bound == RIDGE_BOUND_MEMORY && h.bound == RIDGE_BOUND_MEMORY);
    CHECK(g.split_k == 1 && h.split_k == 1);
    CHECK_NEAR(g.dram_bytes, h.dram_bytes, 1e-12);
    CHECK(g.dram_bytes > 0.9 * 8192.0 * 8192.0 * 2.0); /* the weight, from DRAM */
    CHECK_NEAR(h.memory_s, lat + h.dram_bytes / bw, 1e-12);
    CHECK_NEAR(g.memory_s, lat + g.dram_bytes / (0.82 * bw), 1e-12);
    CHECK(g.time_s > 1.18 * h.time_s);
    check_context("narrow (m = 16): its own share");
    op.u.gemm.m = 16;
    g = predict(&gddr, op);
    h = predict(&hbm, op);
    CHECK(g.bound == RIDGE_BOUND_MEMORY && h.bound == RIDGE_BOUND_MEMORY);
    CHECK_NEAR(g.dram_bytes, h.dram_bytes, 1e-12);
    CHECK_NEAR(h.memory_s, lat + h.dram_bytes / bw, 1e-12);
    CHECK_NEAR(g.memory_s, lat + g.dram_bytes / (0.90 * bw), 1e-12);
    check_context("n = 16, m = 8192: the same");
    op.u.gemm.m = 8192;
    op.u.gemm.n = 16;
    g = predict(&gddr, op);
    CHECK_NEAR(g.memory_s, lat + g.dram_bytes / (0.90 * bw), 1e-12);
    op.u.gemm.n = 8192;
    check_context("GEMV");
    op.u.gemm.m = 1;
    g = predict(&gddr, op);
    h = predict(&hbm, op);
    CHECK(g.bound == RIDGE_BOUND_MEMORY && h.bound == RIDGE_BOUND_MEMORY);
    CHECK_NEAR(h.memory_s, lat + h.dram_bytes / bw, 1e-12);
    CHECK_NEAR(g.memory_s, lat + g.dram_bytes / (0.94 * bw), 1e-12);
    CHECK(g.time_s > h.time_s && g.time_s < 1.1 * h.time_s);
    check_context("convolution");
    op = conv_op(RIDGE_DTYPE_FP16, 1, 512, 7, 512, 3, 1, 1);
    g = predict(&gddr, op);
    h = predict(&hbm, op);
    CHECK(g.time_s == h.time_s);
    check_context(NULL);
}

/* GDDR epilogue stalls (docs/model.md §2): a tiled cuBLAS tensor GEMM on GDDR pays the writes of
 * the C beyond the L2, at the DRAM streaming rate, in series with its main loops, up to their own
 * time; with 2 KiB of K per row or more, 2 KiB / (k x es) of them; nothing with a C within the
 * L2, or on HBM. The HBM copy is the same GPU with only the memory type edited. */
static void test_gddr_epilogue_stalls(void)
{
    ridge_gpu gddr = load("l40s"), hbm = gddr;
    snprintf(hbm.memory_type, sizeof hbm.memory_type, "HBM3");
    double bw = gddr.memory_bw_bytes_per_s * gddr.eff.dram_fraction;
    ridge_op op = ridge_op_gemm(RIDGE_DTYPE_BF16, 16384, 16384, 512, 1);
    ridge_kernel_result g = predict(&gddr, op), h = predict(&hbm, op);
    double beyond = 16384.0 * 16384.0 * 2.0 - gddr.l2_bytes;
    check_context("k = 512, C of 512 MiB");
    CHECK(g.tile_m == h.tile_m && g.tile_n == h.tile_n && g.split_k == 1 && h.split_k == 1);
    CHECK(h.bound == RIDGE_BOUND_COMPUTE && g.bound == RIDGE_BOUND_COMPUTE);
    CHECK(beyond / bw < h.compute_s); /* the whole write burst is exposed */
    CHECK_NEAR(g.compute_s, h.compute_s + beyond / bw, 1e-12);
    CHECK(g.time_s > 1.4 * h.time_s);
    check_context("k = 128: the stall capped at the main loops' time, write-bound");
    op.u.gemm.k = 128;
    g = predict(&gddr, op);
    h = predict(&hbm, op);
    CHECK(g.tile_m == h.tile_m && g.tile_n == h.tile_n);
    CHECK(beyond / bw > h.compute_s);
    CHECK_NEAR(g.compute_s, 2.0 * h.compute_s, 1e-12);
    CHECK(g.bound == RIDGE_BOUND_MEMORY && g.memory_s > g.compute_s);
    check_context("k = 4096: 8 KiB of K, a quarter of the burst exposed");
    op.u.gemm.k = 4096;
    g = predict(&gddr, op);
    h = predict(&hbm, op);
    CHECK(g.tile_m == h.tile_m && g.tile_n == h.tile_n && g.split_k == 1);
    CHECK(0.25 * beyond / bw < h.compute_s);
    CHECK_NEAR(g.compute_s, h.compute_s + 0.25 * beyond / bw, 1e-12);
    check_context("k = 1000 and 1024: no cliff at the stream-K bound");
    op.u.gemm.k = 1000;
    g = predict(&gddr, op);
    op.u.gemm.k = 1024;
    h = predict(&gddr, op);
    CHECK(h.time_s > 0.95 * g.time_s && h.time_s < 1.1 * g.time_s); /* 24 more of K, the stream-K balance */
    check_context("C within the L2");
    op = ridge_op_gemm(RIDGE_DTYPE_BF16, 4096, 4096, 512, 1);
    g = predict(&gddr, op);
    h = predict(&hbm, op);
    CHECK(g.compute_s == h.compute_s);
    check_context(NULL);
}

/* One L2 partition (Ada, GA102, Turing) serves a working set of 0.9 of it entirely; a split L2
 * (GA100, GH100: each half caches lines for its own SMs) only up to half of it: a streaming
 * kernel's larger working set none of it, a GEMM's a share falling to none at all of it. Same GPU,
 * only the chip edited. */
/* The whole k for which a GEMM's m k + k n + m n elements are at most mn_rest + k (m + n): the
 * elements left once m n is taken (x) over m + n, at least 1. */
static double gemm_k_for(double x, double m_plus_n)
{
    return x > m_plus_n ? (double)(long long)(x / m_plus_n) : 1;
}

static void test_single_partition_l2(void)
{
    ridge_gpu one = load("l40s"), two = one, none = one;
    snprintf(two.chip, sizeof two.chip, "GA100");
    none.chip[0] = '\0';
    double half = 0.45 * one.l2_bytes; /* a copy reads and writes it: a working set of 0.9 x L2 */
    ridge_kernel_result a = predict(&one, ridge_op_copy(half, RIDGE_COPY_D2D));
    ridge_kernel_result b = predict(&two, ridge_op_copy(half, RIDGE_COPY_D2D));
    ridge_kernel_result c = predict(&none, ridge_op_copy(half, RIDGE_COPY_D2D));
    check_context("0.9 x L2");
    CHECK(a.dram_bytes == 0 && a.l2_bytes > 0);
    /* split: a copy sweeps its 0.9 x L2 again each call, past the half the L2 holds of it: every
     * line is evicted before it comes round, all of it from DRAM (rk_l2_split, sweep) */
    CHECK_NEAR(b.dram_bytes, 2 * half, 1e-9);
    CHECK(b.time_s > 2 * a.time_s);
    CHECK(c.dram_bytes == b.dram_bytes && c.time_s == b.time_s);
    check_context("at and past the share");
    a = predict(&one, ridge_op_copy(0.5 * one.l2_bytes, RIDGE_COPY_D2D));
    CHECK(a.l2_bytes == 0);
    a = predict(&one, ridge_op_copy(0.4875 * one.l2_bytes, RIDGE_COPY_D2D)); /* 0.975 x L2, past 0.95 */
    CHECK_NEAR(a.dram_bytes, 0.975 * one.l2_bytes, 1e-9);
    a = predict(&one, ridge_op_copy(0.47 * one.l2_bytes, RIDGE_COPY_D2D)); /* 0.94 x L2, within it */
    CHECK(a.dram_bytes == 0);
    /* a GEMM's re-read tiles keep the ramp (rk_l2_hit): an L40S GEMM whose operands and output make
     * 0.975 x L2 has some of them from L2, a copy of the same bytes none */
    {
        ridge_op gm = ridge_op_gemm(RIDGE_DTYPE_BF16, 4096, 128, 1, 1);
        double ws = 0.975 * one.l2_bytes, e = 2;
        gm.u.gemm.k = gemm_k_for(ws / e - 4096.0 * 128.0, 4096.0 + 128.0);
        a = predict(&one, gm);
        CHECK(a.l2_bytes > 0 && a.dram_bytes > 0);
    }
    check_context("catalogue");
    ridge_gpu h = load("h100-sxm5-80gb"), t4 = load("t4"), a40 = load("a40");
    CHECK(predict(&h, ridge_op_copy(0.3 * h.l2_bytes, RIDGE_COPY_D2D)).dram_bytes > 0);
    CHECK(predict(&t4, ridge_op_copy(0.45 * t4.l2_bytes, RIDGE_COPY_D2D)).dram_bytes == 0);
    CHECK(predict(&a40, ridge_op_copy(0.45 * a40.l2_bytes, RIDGE_COPY_D2D)).dram_bytes == 0);
    check_context(NULL);
}

/* An op with no work on a GPU whose kernel floor is 0 would take no time: refused, naming the
 * field (a time of 0 divides the achieved rates), not "no finite time". */
static void test_zero_time_op(void)
{
    ridge_gpu g = load("a100-sxm4-80gb");
    ridge_op op = ridge_op_elementwise(RIDGE_DTYPE_BF16, 1, 0, 0, 0);
    ridge_kernel_result r;
    ridge_err err;
    g.eff.kernel_floor_s = 0;
    CHECK(ridge_kernel_predict(&g, &op, &r, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "efficiency.kernel_floor_s is 0");
    g.eff.kernel_floor_s = 1e-6; /* with a floor it is the floor */
    CHECK(ridge_kernel_predict(&g, &op, &r, &err) == RIDGE_OK && r.time_s == 1e-6);
}

int main(void)
{
    test_wave_quantization();
    test_stream_k_short_k();
    test_layout_alignment();
    test_row_kernels();
    test_alignment();
    test_latency_floor();
    test_large_copy();
    test_memory_levels();
    test_split_k();
    test_ffma_small_grids();
    test_units_and_precisions();
    test_ffma_skinny_gddr();
    test_attention();
    test_attention_per_head_decode();
    test_conv_and_lstm();
    test_conv_sides_once();
    test_ffma_conv_no_split();
    test_lstm_layers();
    test_tile_overhead();
    test_winograd();
    test_cold_bytes();
    test_all_kinds_everywhere();
    test_record_mechanisms();
    test_strided_elementwise();
    test_channels_last_bn();
    test_tile_writes();
    test_gemm_round_trips();
    test_gddr_tile_streams();
    test_gddr_epilogue_stalls();
    test_single_partition_l2();
    test_zero_time_op();
    test_hopper_clusters();
    test_ada_tensor_clock();
    test_sustained_tensor_clock();
    test_edited_gpu_fields();
    test_gemm_search_ties();
    return check_report();
}
