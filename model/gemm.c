/* GEMM cost model: tiles, waves, split-K, alignment (docs/model.md, "GEMM").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <string.h>

#include "kernel_internal.h"

/* Per-tile prologue and epilogue, in time (docs/model.md, "GEMM"): the pipeline waits one DRAM
 * latency for its first stage, and the FP32 accumulators leave through shared memory at this many
 * bytes per clock per SM. A time, not a number of K elements: on CUDA cores one K step of a tile
 * takes 8-16x longer than on tensor cores while the fill and drain do not. */
#define RK_GEMM_EPILOGUE_BYTES_PER_CLOCK 128.0
/* Bytes of K per pipeline stage and stages held in shared memory (for the fit check). */
#define RK_GEMM_STAGE_K_BYTES 64.0
#define RK_GEMM_STAGES 3.0
/* Smallest K slice per split-K part, in elements. */
#define RK_GEMM_MIN_SPLIT_K 256.0

typedef struct {
    double tm, tn;
    double eff;            /* operand reuse and issue overhead of this tile size relative to the largest */
    double inv_tm, inv_tn; /* 1/tm, 1/tn (exact: powers of two) */
    double inv_eff;
} rk_tile;

/* Tile shapes a library picks among (CUTLASS/cuBLAS-like). Larger tiles reuse each loaded
 * operand more and sustain a higher share of the peak. */
static const rk_tile tensor_tiles[] = {
    {128, 256, 1.00, 1.0 / 128, 1.0 / 256, 1.0 / 1.00},
    {256, 128, 1.00, 1.0 / 256, 1.0 / 128, 1.0 / 1.00},
    {128, 128, 0.95, 1.0 / 128, 1.0 / 128, 1.0 / 0.95},
    {64, 128, 0.85, 1.0 / 64, 1.0 / 128, 1.0 / 0.85},
    {64, 64, 0.72, 1.0 / 64, 1.0 / 64, 1.0 / 0.72},
};
static const rk_tile vector_tiles[] = {
    {128, 128, 1.00, 1.0 / 128, 1.0 / 128, 1.0 / 1.00},
    {128, 64, 0.93, 1.0 / 128, 1.0 / 64, 1.0 / 0.93},
    {64, 64, 0.85, 1.0 / 64, 1.0 / 64, 1.0 / 0.85},
};

/* Most parts a split-K GEMM is cut into. */
#define RK_GEMM_MAX_SPLIT_K 16.0

/* Share of the aligned speed by the alignment (bytes) of the contiguous dimension: without
 * 16-byte multiples the kernel cannot use 16-byte vector loads / TMA and falls back. */
static double align_eff(double elems, double es)
{
    double bytes = elems * es;
    long long b, low;
    if (bytes != rk_floor(bytes) || bytes >= 4.5e15)
        return 0.5;
    b = (long long)bytes;
    low = b & -b; /* largest power of two dividing the byte count */
    if (low >= 16 || b == 0)
        return 1.0;
    if (low >= 8)
        return 0.80;
    if (low >= 4)
        return 0.65;
    return 0.50;
}

/* CTAs of a tile that fit on one SM at once, by shared memory and accumulator registers
 * (multiplications only: this is in the hot loop). 0: the tile does not fit. */
static double ctas_per_sm(const ridge_gpu *g, const rk_tile *t)
{
    double smem = (t->tm + t->tn) * RK_GEMM_STAGE_K_BYTES * RK_GEMM_STAGES;
    double regs = 0.75 * (g->registers_per_sm > 0 ? g->registers_per_sm : 65536) * 4.0;
    double acc = t->tm * t->tn * 4.0; /* FP32 accumulators */
    double c = 0;
    while (c < 4 && (c + 1) * smem <= g->smem_per_sm_bytes && (c + 1) * acc <= regs)
        c++;
    return c;
}

int rk_gemm(const ridge_gpu *g, ridge_dtype dt, double m, double n, double k, double batch, double align_elems,
            rk_bytes min_bytes, double eff_scale, ridge_kernel_result *r, ridge_err *err)
{
    int tp = rk_tensor_peak(g, dt);
    int tensor = tp >= 0;
    ridge_peak peak;
    const rk_tile *tiles;
    size_t ntiles;
    double es = ridge_dtype_bytes(dt), frac, aeff, best_t = INFINITY;
    ridge_kernel_result best;

    if (!tensor) {
        if (dt == RIDGE_DTYPE_FP16 || dt == RIDGE_DTYPE_BF16 || dt == RIDGE_DTYPE_FP8 || dt == RIDGE_DTYPE_INT8 ||
            dt == RIDGE_DTYPE_INT4)
            return rk_no_tensor_path(g, dt, err);
        peak = rk_vector_peak(g, dt); /* fp32 SGEMM, fp64 DGEMM, tf32 without TF32 units */
        tiles = vector_tiles;
        ntiles = sizeof vector_tiles / sizeof vector_tiles[0];
        frac = ridge_efficiency_fraction(&g->eff, peak);
    } else {
        peak = (ridge_peak)tp;
        tiles = tensor_tiles;
        ntiles = sizeof tensor_tiles / sizeof tensor_tiles[0];
        frac = ridge_efficiency_fraction(&g->eff, peak);
    }
    aeff = align_eff(align_elems, es);
    {
        /* Candidate loop: only the time is compared; the full result is built once for the best.
         * Nothing here allocates: this runs millions of times in sweeps. */
        double peak_sm = g->peak_flops_per_s[peak] / g->sm_count * frac * aeff * eff_scale;
        double inv_peak_sm = 1.0 / peak_sm, inv_sm = 1.0 / g->sm_count, sm = g->sm_count;
        double ideal = 2.0 * m * n * k * batch * inv_peak_sm * inv_sm; /* a perfectly filled machine */
        double inv_l2bw, inv_epi = 1.0 / (RK_GEMM_EPILOGUE_BYTES_PER_CLOCK * g->tensor_clock_hz);
        double dram0, l20, floor1 = g->eff.kernel_floor_s, l2bw = g->eff.l2_bandwidth_bytes_per_s;
        double mem0, best_tm = 0, best_tn = 0, best_s = 1, best_waves = 0, best_tiles = 0, best_compute = 0;
        inv_l2bw = 1.0 / l2bw;
        rk_l2_split(g, min_bytes, 0, &dram0, &l20);
        mem0 = rk_dram_time(g, dram0);
        for (size_t i = 0; i < ntiles; i++) {
            const rk_tile *t = &tiles[i];
            double t_over = g->eff.dram_latency_s + t->tm * t->tn * 4.0 * inv_epi;
            double ctas, base_tiles, otm, otn, stream0;
            /* No better than a perfectly filled machine paying one tile's fill and drain: skip
             * tiles that cannot win. */
            if (floor1 + ideal * t->inv_eff + t_over >= best_t)
                continue;
            ctas = ctas_per_sm(g, t);
            if (ctas < 1)
                continue;
            otm = rk_ceil(m * t->inv_tm);
            otn = rk_ceil(n * t->inv_tn);
            base_tiles = otm * otn * batch;
            /* SMs stream each A row-panel once per column of tiles, B once per row of tiles. */
            stream0 = batch * (m * k * es * otn + k * n * es * otm);
            /* Split-K only helps when one wave is not full: try no split, and the split that fills
             * the machine (at most 16 parts, each at least RK_GEMM_MIN_SPLIT_K deep). */
            double s_fill = 1;
            if (base_tiles < sm && !g->no_split_k) {
                s_fill = rk_ceil(sm / base_tiles);
                if (s_fill > RK_GEMM_MAX_SPLIT_K)
                    s_fill = RK_GEMM_MAX_SPLIT_K;
                if (s_fill > rk_floor(k / RK_GEMM_MIN_SPLIT_K))
                    s_fill = rk_floor(k / RK_GEMM_MIN_SPLIT_K);
            }
            for (int s_i = 0; s_i < (s_fill > 1 ? 2 : 1); s_i++) {
                double s = s_i == 0 ? 1 : s_fill, waves, ttile, compute, mem, l2b, tt;
                /* CTAs actually sharing an SM: fewer than fit when the grid is small. */
                double c_eff = rk_ceil(base_tiles * s * inv_sm);
                if (c_eff > ctas)
                    c_eff = ctas;
                waves = base_tiles * s * inv_sm / c_eff;
                /* One tile's time on its share (1/c_eff) of an SM at the achievable rate. */
                ttile = (2.0 * t->tm * t->tn * (s > 1 ? rk_ceil(k / s) : k) * inv_peak_sm * t->inv_eff + t_over) * c_eff;
                compute = rk_ceil(waves) * ttile;
                if (s > 1) {
                    /* FP32 partial sums written and read back by a second (reduction) kernel. */
                    double partial = 2.0 * s * m * n * batch * 4.0, d, l;
                    rk_l2_split(g, min_bytes, partial, &d, &l);
                    mem = rk_dram_time(g, d);
                    l2b = stream0 + partial > l ? stream0 + partial : l;
                    tt = 2 * floor1;
                } else {
                    mem = mem0;
                    l2b = stream0 > l20 ? stream0 : l20;
                    tt = floor1;
                }
                tt += rk_max(compute, rk_max(mem, l2b * inv_l2bw));
                if (tt < best_t) {
                    best_t = tt;
                    best_tm = t->tm;
                    best_tn = t->tn;
                    best_s = s;
                    best_waves = waves;
                    best_tiles = base_tiles * s;
                    best_compute = compute;
                }
            }
        }
        if (best_t < INFINITY) {
            double partial = best_s > 1 ? 2.0 * best_s * m * n * batch * 4.0 : 0;
            double stream = batch * (m * k * es * rk_ceil(n / best_tn) + k * n * es * rk_ceil(m / best_tm)) + partial;
            memset(&best, 0, sizeof best);
            rk_l2_split(g, min_bytes, partial, &best.dram_bytes, &best.l2_bytes);
            if (stream > best.l2_bytes)
                best.l2_bytes = stream;
            best.compute_s = best_compute;
            best.flops = 2.0 * m * n * k * batch;
            best.kernels = best_s > 1 ? 2 : 1;
            best.peak = peak;
            best.tensor = tensor;
            best.tile_m = best_tm;
            best.tile_n = best_tn;
            best.tiles = best_tiles;
            best.waves = best_waves;
            best.wave_efficiency = best_waves / rk_ceil(best_waves);
            best.split_k = best_s;
            best.align_efficiency = aeff;
            rk_finish(g, &best);
        }
    }
    if (!(best_t < INFINITY))
        return ridge_err_set(err, RIDGE_EUNSUPPORTED, "%s: no GEMM tile fits in %.0f bytes of shared memory", g->id,
                             g->smem_per_sm_bytes);
    *r = best;
    return RIDGE_OK;
}
