/* GEMM cost model: tiles, waves, split-K, alignment (docs/model.md, "GEMM").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <string.h>

#include "attrs.h"
#include "gemm.h"

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
    int im, in;         /* tm, tn as 64 << im, 64 << in */
    long long tm1, tn1; /* tm - 1, tn - 1, and shm, shn: 6 + im, 6 + in; a whole x: ceil(x / tm) = (x + tm1) >> shm */
    int shm, shn;
    double acc4, mac2; /* tm * tn * 4.0 (its FP32 accumulator bytes) and 2.0 * tm * tn: exact products */
    double smem;       /* (tm + tn) x RK_GEMM_STAGE_K_BYTES x RK_GEMM_STAGES: its stages' shared memory, exact */
    int mirror;        /* the previous row transposed (tn x tm, the same eff): the same products above */
    int size;          /* its size class, tm x tn = 2^15 >> size, whose GPU figures rk_gemm_prep prepares */
} rk_tile;
/* One row of the tables below: every derived field from tm, tn and eff, as exact constants
 * (RK_TILE_LOG: log2 of a tile side, 64, 128 or 256). The tiles of a size class (tm x tn: 256 x
 * 128 and 128 x 256, 128 x 128, 128 x 64 and 64 x 128, 64 x 64) have the same tm + tn too, so
 * the same products above but the sides and eff. */
#define RK_TILE_LOG(x) ((x) == 64 ? 6 : (x) == 128 ? 7 : 8)
#define RK_TILE(tm, tn, eff, mirror)                                                                                   \
    {tm, tn, eff, 1.0 / tm, 1.0 / tn, 1.0 / eff, RK_TILE_LOG(tm) - 6, RK_TILE_LOG(tn) - 6, (long long)(tm) - 1,        \
     (long long)(tn) - 1, RK_TILE_LOG(tm), RK_TILE_LOG(tn), tm * tn * 4.0, 2.0 * tm * tn,                              \
     (tm + tn) * RK_GEMM_STAGE_K_BYTES * RK_GEMM_STAGES, mirror, 15 - RK_TILE_LOG(tm) - RK_TILE_LOG(tn)}

/* Tile shapes a library picks among (CUTLASS/cuBLAS-like). Larger tiles reuse each loaded
 * operand more and sustain a higher share of the peak. Each table is in order of non-increasing
 * eff: the search stops at the first tile whose compute bound loses (rk_gemm). */
static const rk_tile tensor_tiles[] = {
    RK_TILE(128.0, 256.0, 1.00, 0), RK_TILE(256.0, 128.0, 1.00, 1), RK_TILE(128.0, 128.0, 0.95, 0),
    RK_TILE(64.0, 128.0, 0.85, 0),  RK_TILE(64.0, 64.0, 0.72, 0),
};
static const rk_tile vector_tiles[] = {
    RK_TILE(128.0, 128.0, 1.00, 0),
    RK_TILE(128.0, 64.0, 0.93, 0),
    RK_TILE(64.0, 64.0, 0.85, 0),
};
#undef RK_TILE
#undef RK_TILE_LOG
/* A row of each size class (rk_tile.size), whose figures rk_gemm_prep prepares for the class */
static const rk_tile *const size_tiles[RK_GEMM_TILE_SIZES] = {&tensor_tiles[0], &tensor_tiles[2], &tensor_tiles[3],
                                                              &tensor_tiles[4]};

/* x / c for c = 1, 2, 3 or 4 (CTAs per SM): x, x * 0.5, x * 0.25 are the quotient exactly (the
 * same real, rounded once), without the division; any other c (3, NaN) divides. */
static inline double rk_div_1to4(double x, double c)
{
    return c == 1 ? x : c == 2 ? x * 0.5 : c == 4 ? x * 0.25 : x / c;
}

/* The ceiling of a candidate's waves, per_sm / c_eff, with c_ceil = rk_ceil(per_sm) and c_eff =
 * min(c_ceil, ctas) (the CTAs sharing an SM): 1 for a grid within one round of c_eff CTAs per SM
 * (per_sm <= c_ceil = c_eff, so 0 < waves <= 1: a correctly rounded quotient of x <= y is <= 1);
 * c_ceil itself for one CTA per SM (per_sm / 1 is per_sm); else the quotient's ceiling. */
static inline double waves_ceil(double per_sm, double c_ceil, double c_eff, double ctas)
{
    if (c_ceil <= ctas && per_sm > 0)
        return 1.0;
    return c_eff == 1 ? c_ceil : rk_ceil(rk_div_1to4(per_sm, c_eff));
}

/* Tiles by m (RK_GEMM_TILES_BY_M, docs/model.md §2): a library that dispatches its configuration
 * on m buckets, as vLLM's CUTLASS FP8 scaled-mm does on sm90, runs 64x64 tiles up to m = 64 and
 * 64x128 up to m = 128 whatever n and k are, and tiles of 128x128 or larger beyond. It never
 * shrinks its tile to spread a small grid over more SMs (the AIConfigurator H100 FP8 rows with
 * m = 256 and n <= 1024 take the same time for every n: one 128x128 tile's full K per SM). */
#define RK_GEMM_BY_M_SMALL 64.0
#define RK_GEMM_BY_M_MEDIUM 128.0

/* Most parts a split-K GEMM is cut into, and how many whole-wave splits are tried besides the one
 * that fills the machine. */
#define RK_GEMM_MAX_SPLIT_K 16.0
#define RK_GEMM_NSPLITS 3
/* Tiles in the longest table (tensor_tiles). */
#define RK_GEMM_NTILES 5
/* A lower bound of a candidate's time is taken this much below the real-number bound, so that it
 * stays below the candidate's time however both round (a few roundings of 2^-53 each). */
#define RK_GEMM_LB_MARGIN (1.0 - 1e-9)

/* Hopper (compute capability 9.x) without 16-byte-aligned operands: the TMA cannot describe the
 * tensors, so cuBLAS falls back from its wgmma kernels to sm80-class mma.sync kernels, which
 * reach this share of the Hopper tensor peak before the alignment factor below (docs/model.md
 * §2; h200-2026-11-29/{a,c}/bf16_4096x2100x4096: 193 TFLOP/s against 750 aligned). */
#define RK_GEMM_HOPPER_NO_TMA 0.35

/* Hopper tensor-core GEMMs write C tile by tile from the epilogue (128 rows of a few hundred
 * bytes each, scattered over DRAM pages, interleaved with the operand reads): those writes reach
 * this share of the streaming DRAM rate (dram_fraction). From the 32 AIConfigurator H100 BF16
 * rows with k <= 128 and m n >= 2^26 (write-bound: median 0.725 of the H100's 3.35 TB/s against
 * 0.90 for a copy); h200-2026-11-29/a/bf16_b64_2048x2048x128 gives 0.735 (docs/model.md §2). */
#define RK_GEMM_HOPPER_TILE_WRITE_SHARE 0.80

/* A GEMM kernel's DRAM stream has DRAM round trips outside the one the streaming time pays
 * (rk_dram_time: the first operand stage): before it, the kernel's arguments and the operands'
 * TMA descriptors / pointers are read from global memory before the first load can be issued;
 * after it, the epilogue's C stores (and a split-K part's semaphore through L2/DRAM) must complete
 * before the kernel retires. docs/model.md §2, "GEMM round trips": the AIConfigurator H100 BF16
 * GEMVs (m <= 16, 544 rows) fit T = 3.7 us + B / (0.88 BW); ridge had 1.6 us (graph floor and one
 * latency) -> 2 more latencies of 600 ns. */
#define RK_GEMM_MEM_ROUND_TRIPS 2.0

/* On GDDR memory (GDDR6, GDDR6X: memory_type "GDDR..."), a tiled library GEMM's DRAM traffic
 * reaches this share of the streaming rate (dram_fraction): each CTA reads its operand panels as
 * short runs (one k-step of a tile row, 64-128 B) of many DRAM rows at once and writes C tile by
 * tile, and a GDDR part has few banks to keep those rows open (an L40S: 12 chips x 2 channels x 16
 * banks; an HBM3 H100 several times as many), so rows are opened and closed far more often than in
 * a sequential stream. The L40 reads a sequential stream at 0.98 of its 864 GB/s
 * (published-microbench pub0533), the AIConfigurator L40S BF16 weight-bound GEMMs (m = 32-128)
 * stream at a median 0.74-0.76 of it; HBM parts stream GEMM operands at their copy rate
 * (the H100's m = 64 rows at 0.84-0.91). Fitted on half of the L40S rows of 20 us or more (docs/model.md §2,
 * "GDDR tile streams"): 0.85 on 2026-12-02, 0.82 refitted the same way on 2026-12-03, after the
 * epilogue stalls and the narrow shares. Narrower GEMMs and GEMVs have shares of their own, below. */
#define RK_GEMM_GDDR_TILE_SHARE 0.82
/* The same streams for GEMMs narrower than a tile: cuBLAS runs a GEMM whose m or n is at most
 * RK_GEMM_GDDR_NARROW (a decode step's tokens) on kernels that give each warp a stretch of whole
 * weight rows, longer runs per DRAM row than a tile's k-steps but more rows open at once than a
 * sequential stream; a GEMV (m or n = 1, cuBLAS's gemv kernels) reads one row per warp. Fitted
 * together on the even-CRC half of the AIConfigurator L40S BF16 rows of 20 us or more (docs/model.md
 * §2, "GDDR tile streams"). */
#define RK_GEMM_GDDR_NARROW 16.0
#define RK_GEMM_GDDR_NARROW_SHARE 0.90
#define RK_GEMM_GDDR_GEMV_SHARE 0.94

/* Hopper tensor-core GEMMs with TMA (aligned operands) run in thread-block clusters of two CTAs
 * along m (cuBLAS's and CUTLASS's sm90 default cluster 2x1x1): the B tile both CTAs need is
 * multicast from one L2 read, so B's column-panels are streamed from L2 once per cluster of tile
 * rows (docs/model.md §2, "Hopper clusters"). */
#define RK_GEMM_HOPPER_CLUSTER_M 2.0

/* A GEMM CTA's bytes in flight from DRAM, as a share of its SM's shared memory (the operand stages
 * a multistage pipeline keeps loading): a grid of T < SM tiles that the library cannot spread
 * further (no split over K) streams DRAM at Little's law's rate for T SMs, not the chip's
 * (docs/model.md §2, "Grids short of the SMs"). Fitted on the even-CRC half of the AIConfigurator
 * H100 FP8 rows of 20 us or more (vLLM's CUTLASS scaled-mm, which never splits K). */
#define RK_GEMM_SM_INFLIGHT_SMEM_SHARE 0.32

/* cuBLAS's FFMA (SGEMM/DGEMM) kernels keep their 128x128 tiles without a split over K for a grid
 * of at least this share of the SMs (the one record, h200-2026-11-29/{a,c}/fp32_1024x1024x1024,
 * has 64 tiles on 132 SMs: 0.48); below it, a 128x128 grid would leave three SMs in four idle,
 * and the library's smaller tiles and split-K kernels are costed instead (an assumption the
 * records do not test: no FFMA GEMM record has a smaller grid; docs/model.md §2). */
#define RK_GEMM_FFMA_MIN_GRID 0.25
/* An FFMA GEMM with m or n below this is a GEMV-like streaming kernel, not a tile loop that
 * would pad it: the smallest vector tile is 64 wide (vector_tiles). */
#define RK_GEMM_FFMA_SKINNY 64.0

/* cuBLAS runs its stream-K (persistent) kernels only for a GEMM whose K loop has at least this many
 * bytes of K per operand row (k x element size; 2 KiB: k >= 1024 in 16-bit): a shorter loop keeps
 * the data-parallel tiles, whose fill and drain are paid per tile (docs/model.md §2, "Stream-K";
 * fitted on the AIConfigurator H100 BF16 rows alone: 1, 2, 3, 4 KiB give 6.87, 6.64, 6.63,
 * 6.68 % MAPE against 6.95 % without the bound; the L40S BF16 rows, not fitted, 14.04 -> 13.91 %).
 * Convolutions' and LSTMs' implicit GEMMs (cuDNN) keep their rule. */
#define RK_GEMM_STREAM_K_MIN_K_BYTES 2048.0

/* Share of the aligned speed by the alignment (bytes) of a leading dimension: without
 * 16-byte multiples the kernel cannot use 16-byte vector loads / TMA and falls back. */
static double align_of(long long b)
{
    long long low = b & -b; /* largest power of two dividing the byte count (b != 0) */
    if (low >= 16)
        return 1.0;
    if (low >= 8)
        return 0.80;
    if (low >= 4)
        return 0.65;
    return 0.50;
}
static double align_eff(double elems, double es)
{
    double bytes = elems * es;
    long long b;
    if (bytes != rk_floor(bytes) || bytes >= 4.5e15)
        return 0.5;
    b = (long long)bytes;
    return b == 0 ? 1.0 : align_of(b);
}

/* x as an integer when it is one in [1, 4.5e15) (a checked dimension, a byte count), else 0. */
static long long int_or_0(double x)
{
    long long v;
    if (!(x >= 1 && x < 4.5e15))
        return 0;
    v = (long long)x;
    return (double)v == x ? v : 0;
}

/* CTAs of a tile that fit on one SM at once, by shared memory (its stages, t->smem) and FP32
 * accumulator registers (t->acc4), at most 4; 0: the tile does not fit. The largest c <= 4 with
 * c x smem <= smem_avail and c x acc4 <= regs (exact products). `smem_avail` and `regs` (0.75 x
 * registers x 4 bytes) are the GPU's; rk_gemm_prep counts each size class's once. */
static double ctas_per_sm(double smem_avail, double regs, const rk_tile *t)
{
    double smem = t->smem, acc = t->acc4;
    if (!(smem <= smem_avail && acc <= regs))
        return 0;
    if (!(2 * smem <= smem_avail && 2 * acc <= regs))
        return 1;
    if (!(3 * smem <= smem_avail && 3 * acc <= regs))
        return 2;
    if (!(4 * smem <= smem_avail && 4 * acc <= regs))
        return 3;
    return 4;
}

/* The alignment factor of a GEMM (docs/model.md §2): every operand's leading dimension, A's (k
 * when stored as written, m when transposed), B's (n, or k when transposed) and C's (n, at the
 * output element size), must be a multiple of 16 bytes for the fast path; the worst operand
 * sets the factor. `align_elems` > 0: one contiguous dimension given by the caller instead. */
/* mi, ni: int_or_0(m), int_or_0(n), which the caller has; es_i: es when it is whole (all but
 * int4's 0.5), else 0. Inline: once per GEMM. */
static inline double gemm_align(int hopper, double es, double es_out, long long es_i, double m, double n, double k,
                                long long mi, long long ni, ridge_layout layout, double align_elems, int tensor)
{
    double a;
    if (align_elems > 0)
        a = align_eff(align_elems, es);
    else {
        int a_t = layout == RIDGE_LAYOUT_TN || layout == RIDGE_LAYOUT_TT, b_t = layout == RIDGE_LAYOUT_NT || layout == RIDGE_LAYOUT_TT;
        double lda = a_t ? m : k, ldb = b_t ? k : n;
        long long ki = a_t && !b_t ? 0 : int_or_0(k), lda_i = a_t ? mi : ki, ldb_i = b_t ? ki : ni;
        /* Integer sides in [1, 2^48] (x - 1 below 2^48, unsigned: a 0 wraps above) and a whole
         * element size (at most 8 bytes): the byte counts are below 2^51 < 4.5e15, where the
         * double products are exact and int_or_0 gives them; in integers here. */
        if (es_i && ((unsigned long long)(lda_i - 1) | (unsigned long long)(ldb_i - 1) | (unsigned long long)(ni - 1)) <
                        (1ULL << 48))
            a = align_of(lda_i * es_i | ldb_i * es_i | ni * (long long)es_out);
        else {
            long long ix = int_or_0(lda * es), iy = int_or_0(ldb * es), iz = int_or_0(n * es_out);
            if (ix && iy && iz) {
                /* whole byte counts: the worst operand's factor is that of the largest power of
                 * two dividing all three (align_of is monotone in it), the lowest bit set in any */
                a = align_of(ix | iy | iz);
            } else {
                double x = align_eff(lda, es), y = align_eff(ldb, es), z = align_eff(n, es_out);
                a = x < y ? x : y;
                a = a < z ? a : z;
            }
        }
    }
    if (a < 1.0 && tensor && hopper)
        a *= RK_GEMM_HOPPER_NO_TMA;
    return a;
}

/* The extra time per DRAM byte of a library GEMM op on GDDR (0 on HBM) by its narrower side mn:
 * a GEMV's (mn = 1), a narrow GEMM's (mn <= RK_GEMM_GDDR_NARROW), a tiled one's (docs/model.md
 * §2, "GDDR tile streams"). */
static inline double gddr_extra_per_byte(const rk_kernel_prepared *p, double mn)
{
    return mn == 1 ? p->gemm_gddr_gemv_x : mn <= RK_GEMM_GDDR_NARROW ? p->gemm_gddr_narrow_x : p->gemm_gddr_x;
}

/* int8 GEMMs whose B is not stored transposed (cuBLAS "TN" is the only layout of the IMMA
 * kernels: torch._int_mm with a row-major B) run on the CUDA cores as DP4A dot products: four
 * int8 multiply-adds per instruction on each INT32 lane. Parts whose INT32 lanes are half the FP32
 * lanes (Volta on, except GA10x/AD10x that share them) reach 2x the FP32 FLOP rate in int ops. */
static double dp4a_peak(const ridge_gpu *g)
{
    return 2.0 * g->peak_flops_per_s[RIDGE_PEAK_FP32];
}

/* The best candidate of a GEMM's search so far: its time (INFINITY: none yet), tile, split,
 * CTAs per SM (per_sm / c_eff: its waves, and wc their ceiling), tiles, compute time and A and B
 * stream. Its DRAM and L2 bytes and DRAM time are the unsplit ones of the call, or a split's,
 * which the result computes again (the same values). */
typedef struct {
    double t;
    const rk_tile *tile;
    double s, per_sm, c_eff, wc, tiles, compute, stream, occ;
} gemm_best;

void rk_gemm_prep(rk_kernel_prepared *p)
{
    const ridge_gpu *g = p->g;
    double smem = g->smem_per_sm_bytes, regs = 0.75 * (g->registers_per_sm > 0 ? g->registers_per_sm : 65536) * 4.0;
    p->inv_epi = 1.0 / (RK_GEMM_EPILOGUE_BYTES_PER_CLOCK * g->tensor_clock_hz);
    /* the search's bounds (rk_gemm: lo_floor, ideal_lb) */
    p->gemm_lo_floor = p->kernel_floor_s >= 0 ? p->kernel_floor_s : 2 * p->kernel_floor_s;
    p->gemm_lb_ok = p->dram_latency_s >= 0 && p->inv_epi >= 0 && p->inv_l2_bw >= 0;
    /* each tile size's fit, fill and drain (one DRAM latency, the accumulators out through shared
     * memory) and stream-K fix-up (an SM's partial tile written and read through L2) */
    for (int c = 0; c < RK_GEMM_TILE_SIZES; c++) {
        const rk_tile *t = size_tiles[c];
        p->gemm_size[c].ctas = ctas_per_sm(smem, regs, t);
        p->gemm_size[c].t_over = p->dram_latency_s + t->acc4 * p->inv_epi;
        p->gemm_size[c].fix = p->sm * t->tm * t->tn * 4.0 * 2.0 * p->inv_l2_bw;
    }
    /* GDDR tile streams: the extra time per DRAM byte of a tiled library GEMM (0 on HBM) */
    {
        int gddr = strncmp(g->memory_type, "GDDR", 4) == 0;
        p->gemm_gddr_x = gddr ? (1.0 / RK_GEMM_GDDR_TILE_SHARE - 1.0) / p->dram_bw : 0;
        p->gemm_gddr_narrow_x = gddr ? (1.0 / RK_GEMM_GDDR_NARROW_SHARE - 1.0) / p->dram_bw : 0;
        p->gemm_gddr_gemv_x = gddr ? (1.0 / RK_GEMM_GDDR_GEMV_SHARE - 1.0) / p->dram_bw : 0;
    }
    /* Grids short of the SMs: T SMs, each with x bytes in flight, stream at T x / L unloaded; with
     * the latency growing under load (1 / rate = 1 / (T x / L) + 1 / R0) and the whole chip at the
     * streaming rate BW, a grid of T tiles takes 1 + (BW L / x) (1 / T - 1 / SM) times the
     * streaming time: occ0 + occ1 / T. No figure (an edited GPU without shared memory or latency):
     * no stretch. */
    {
        double x = RK_GEMM_SM_INFLIGHT_SMEM_SHARE * smem;
        p->gemm_occ1 = x > 0 && p->dram_latency_s > 0 && p->dram_bw > 0 ? p->dram_bw * p->dram_latency_s / x : 0.0;
        p->gemm_occ0 = 1.0 - p->gemm_occ1 * p->inv_sm;
    }
}

/* rk_gemm's body, inlined in it and in rk_gemm_op (a GEMM op's arguments then in registers). */
RIDGE_ALWAYS_INLINE
static inline int gemm_search(const rk_kernel_prepared *p, ridge_dtype dt, double m, double n, double k, double batch,
                              ridge_layout layout, double align_elems, rk_bytes min_bytes, double eff_scale, int flags,
                              ridge_kernel_result *r, ridge_err *err)
{
    const ridge_gpu *g = p->g;
    const rk_dtype_prep *d = &p->dt[dt];
    int tensor = d->tensor_peak >= 0;
    ridge_peak peak;
    const rk_tile *tiles;
    size_t ntiles;
    double es = d->es, es_out = d->es_out, aeff, peak_sm0;
    gemm_best best = {INFINITY, NULL, 1, 0, 1, 1, 0, 0, 0, 1};
    int hopper = p->hopper;
    int dp4a = 0;

    if (tensor && dt == RIDGE_DTYPE_INT8 && align_elems <= 0 && layout != RIDGE_LAYOUT_NT) {
        tensor = 0;
        dp4a = 1;
    }
    /* peak_sm0: the rate per SM before the alignment factor and eff_scale (rk_dtype_prep) */
    if (dp4a) {
        peak = RIDGE_PEAK_FP32;
        tiles = vector_tiles;
        ntiles = sizeof vector_tiles / sizeof vector_tiles[0];
        peak_sm0 = dp4a_peak(g) / g->sm_count * rh_efficiency_fraction(&g->eff, peak);
    } else if (!tensor) {
        if (dt == RIDGE_DTYPE_FP16 || dt == RIDGE_DTYPE_BF16 || dt == RIDGE_DTYPE_FP8 || dt == RIDGE_DTYPE_INT8 ||
            dt == RIDGE_DTYPE_INT4)
            return rk_no_tensor_path(g, dt, err);
        if ((flags & RK_GEMM_CUBLAS) && (m < RK_GEMM_FFMA_SKINNY || n < RK_GEMM_FFMA_SKINNY)) {
            /* A matrix-vector product on the CUDA cores, or one narrower than a tile (SGEMV, DGEMV
             * and cuBLAS's small-n kernels for m or n below 64: rows of the matrix per warp over
             * every SM): no tile to pad, no K loop of one CTA; a streaming kernel of its 2 m n k
             * FLOPs and its bytes (docs/model.md §2, "cuBLAS FFMA GEMMs"). */
            double gx = gddr_extra_per_byte(p, m < n ? m : n);
            rk_streaming_in(p, dt, 2.0 * m * n * k * batch, min_bytes, 1, r);
            if (gx != 0) /* a library GEMM's DRAM stream on GDDR, at its share (below) */
                rk_finish_extra(p, r, r->dram_bytes * gx);
            return RIDGE_OK;
        }
        peak = d->vector_peak; /* fp32 SGEMM, fp64 DGEMM, tf32 without TF32 units */
        tiles = vector_tiles;
        ntiles = sizeof vector_tiles / sizeof vector_tiles[0];
        peak_sm0 = d->gemm_vector_sm;
    } else {
        peak = (ridge_peak)d->tensor_peak;
        tiles = tensor_tiles;
        ntiles = sizeof tensor_tiles / sizeof tensor_tiles[0];
        peak_sm0 = d->gemm_tensor_sm; /* the clock shares included: Ada; power limit */
    }
    /* Integer m, n (an op's checked sides), for the alignment's byte counts and the tiles' counts:
     * ceil(m / 2^j) = (m + 2^j - 1) >> j, the integer rk_ceil(m * 2^-j) gives (an exact product),
     * in three instructions instead of rk_ceil's. */
    long long mi = int_or_0(m), ni = int_or_0(n);
    aeff = gemm_align(hopper, es, es_out, d->es_i, m, n, k, mi, ni, layout, align_elems, tensor);
    /* cuBLAS (11.8 on) and CUTLASS have stream-K tensor-core kernels on sm80 and later, costed
     * for any grid of more tiles than SMs and kept when faster than the data-parallel waves (a
     * whole number of waves too: the persistent kernel pays each SM's fill and drain once); a
     * grid under one wave is split-K. The FFMA (SGEMM, DGEMM, DP4A) kernels are classic; a
     * cuBLAS GEMM with a short K loop keeps its data-parallel kernel (RK_GEMM_STREAM_K_MIN_K_BYTES):
     * sk_tiles below. The per-call tests and figures a candidate reads once are worked out where
     * they are read: values kept through the loop crowd its registers (spills are a large share
     * of the search's instructions). */
    {
        /* Candidate loop: only the time is compared; the full result is built once for the best.
         * Nothing here allocates: this runs millions of times in sweeps. */
        double peak_sm = peak_sm0 * aeff * eff_scale;
        double inv_peak_sm = 1.0 / peak_sm, inv_sm = p->inv_sm, sm = p->sm;
        double ideal = 2.0 * m * n * k * batch * inv_peak_sm * inv_sm; /* a perfectly filled machine */
        double inv_l2bw = p->inv_l2_bw;
        double dram0, l20, floor1 = p->kernel_floor_s;
        double mem0, dt0;
        rk_l2_split(p, min_bytes, 0, 0, &dram0, &l20);
        /* The L2 traffic of the compulsory bytes, misses and hits (every byte passes the L2): a
         * candidate's L2 time is the larger of it and its tile stream (docs/model.md §1). */
        double b20 = dram0 + l20;
        /* Tile-shaped C writes (Hopper tensor kernels): the extra DRAM time of the output's DRAM
         * share (C's part of the compulsory bytes) over the streaming rate. Elsewhere wx is 0 and
         * so are these terms (finite products of it; a sign of zero no sum below keeps). */
        double c_bytes = 0, wx = 0, mem_wx = 0;
        /* (not for a convolution's implicit GEMM, RK_GEMM_PLAIN_FINISH: its result leaves the
         * term out, so the search does too, or it would rank its candidates by a time it never
         * reports) */
        if (tensor && hopper && min_bytes.bytes > 0 && !(flags & RK_GEMM_PLAIN_FINISH)) {
            c_bytes = m * n * batch * es_out;
            wx = (1.0 / RK_GEMM_HOPPER_TILE_WRITE_SHARE - 1.0) / (p->dram_bw * min_bytes.bytes);
            if (dram0 > 0)
                mem_wx = rk_min(c_bytes, min_bytes.bytes) * dram0 * wx;
        }
        /* The DRAM round trips of a GEMM kernel's memory stream outside it (docs/model.md §2). */
        int sm90_lib = tensor && hopper && aeff >= 1.0 && (flags & RK_GEMM_CUBLAS);
        double lat_x = sm90_lib ? RK_GEMM_MEM_ROUND_TRIPS * p->dram_latency_s : 0;
        /* GDDR tile streams: each DRAM byte of a library GEMM costs gx more: a tiled one's, a
         * narrow one's (m or n at most RK_GEMM_GDDR_NARROW) and a GEMV's at their shares */
        double gx = 0, mn_min = m < n ? m : n;
        if (flags & RK_GEMM_CUBLAS)
            gx = gddr_extra_per_byte(p, mn_min);
        dt0 = rk_dram_time(p, dram0) + dram0 * gx;
        mem0 = dt0 + mem_wx + (dram0 > 0 ? lat_x : 0);
        /* GDDR epilogue stalls (docs/model.md §2, "GDDR epilogue stalls"): a tiled tensor GEMM of
         * cuBLAS on GDDR (gx, m and n above RK_GEMM_GDDR_NARROW) writes C from each CTA's epilogue
         * while its SM waits, and the part of C beyond the L2 goes at the DRAM streaming rate: cw.
         * The SMs of a data-parallel grid (a K loop short of RK_GEMM_STREAM_K_MIN_K_BYTES) run in
         * waves, all computing, then all writing; from that K on (stream-K eligible) the exposed
         * share falls as 1 / K, the bursts spread over longer main loops. The stall adds to an
         * unsplit candidate's compute (data-parallel or stream-K) up to the main loops' own time (a
         * wave whose main loop is shorter than its write burst runs under the previous burst, and
         * the kernel is bound by the writes: the memory term). Split candidates are not charged:
         * a split is tried only for a grid short of one wave, whose C is one partial wave of tiles
         * (at most a few MB: within the L2 but for FP32 outputs on the smallest L2s). */
        double cw = 0;
        if (gx != 0 && mn_min > RK_GEMM_GDDR_NARROW && tensor && p->dram_bw > 0) {
            double beyond = m * n * batch * es_out - p->l2_bytes, kb = k * es;
            if (beyond > 0)
                cw = beyond / p->dram_bw * (kb < RK_GEMM_STREAM_K_MIN_K_BYTES ? 1.0 : RK_GEMM_STREAM_K_MIN_K_BYTES / kb);
        }
        /* its streaming part (the latencies left out), which a grid short of the SMs stretches */
        double strm0 = dram0 > 0 ? mem0 - p->dram_latency_s - lat_x : 0;
        if (!tensor && (flags & RK_GEMM_CUBLAS) && m >= vector_tiles[0].tm && n >= vector_tiles[0].tn &&
            rk_ceil(m / vector_tiles[0].tm) * rk_ceil(n / vector_tiles[0].tn) * batch >= RK_GEMM_FFMA_MIN_GRID * sm) {
            /* cuBLAS's FFMA kernels: 128x128 tiles (vector_tiles[0]) and no split over K
             * (h200-2026-11-29/{a,c}/fp32_1024x1024x1024: 67 us, one 128x128 tile per SM for 64
             * of the 132 SMs; ridge's 64x64 tiles and split-K gave 42 us), for m and n of a tile
             * or more and a grid of them that covers a quarter of the SMs or more; a narrower or
             * smaller one takes the general search (the library's smaller SGEMM tiles and split-K),
             * docs/model.md §2. */
            ntiles = 1;
            flags |= RK_GEMM_NO_SPLIT_K;
        }
        /* A grid the library cannot spread over more SMs (no split over K): docs/model.md §2,
         * "Grids short of the SMs". */
        int fixed_grid = (flags & RK_GEMM_NO_SPLIT_K) != 0;
        /* Stream-K applies to a grid of more than sk_tiles tiles: the SMs, or none */
        double sk_tiles = tensor && p->cc >= 80 && !(flags & (RK_GEMM_NO_STREAM_K | RK_GEMM_NO_SPLIT_K)) &&
                                  (!(flags & RK_GEMM_CUBLAS) || k * es >= RK_GEMM_STREAM_K_MIN_K_BYTES)
                              ? sm
                              : INFINITY;
        size_t i0 = 0;
        if (tensor && (flags & RK_GEMM_TILES_BY_M)) {
            /* tensor_tiles: 128x256, 256x128, 128x128, 64x128, 64x64 */
            i0 = m <= RK_GEMM_BY_M_SMALL ? 4 : m <= RK_GEMM_BY_M_MEDIUM ? 3 : 0;
            ntiles = i0 > 0 ? i0 + 1 : 3;
        }
        /* Branch and bound (docs/model.md §2, "Cost of the search"), in one pass over the tiles
         * in order: a lower bound of each tile's time, unsplit (lb1) and split (any split: lb2),
         * from quantities its candidates need anyway, and a tile or candidate is skipped when its
         * bound reaches the best time so far. The result is the least time, ties to the first
         * candidate (tile, then split, in order): every candidate skipped comes after the best so
         * far and takes at least its time, so it could not have won. */
        double lb_partial = -1;
        /* A's and B's bytes, m * k * es and k * n * es: the first two products of each tile's stream */
        double mk_es = m * k * es, kn_es = k * n * es;
        /* A candidate loses when its bound reaches the best so far: it comes after the best in the
         * order (a tie goes to the first). While no candidate is kept (best.t infinite) only an
         * infinite bound loses, whose candidate could not be kept either, as long as its terms are
         * numbers: for an op that passes ridge_op_check on a GPU the loader accepts. (A NaN compute
         * term, from m = 0 on a GPU edited to a zero fraction, can hide in rk_max behind a finite
         * memory term; the search before the one-pass form skipped such a candidate.) */
#define RK_LOSES(lb) ((lb) >= best.t)
        /* The tiles' compute bound (docs/model.md §2, "Cost of the search"): every candidate of a
         * tile computes at least its MACs on a perfectly filled machine, ideal / eff (a split's
         * and a stream-K kernel's too), after at least one kernel floor (two for a split: `lo_floor`
         * is the smaller of the two), given a positive rate and fill, drain and fix-up times >= 0;
         * the margin covers the rounding of either side. The tables are in order of
         * non-increasing eff, so once a tile's bound loses, every later tile's does. -INFINITY:
         * no bound (a GPU edited to a negative rate or time). */
        double ideal_lb = inv_peak_sm > 0 && p->gemm_lb_ok ? ideal * RK_GEMM_LB_MARGIN : -INFINITY;
        /* The previous tile's tile count and stream (past the first tile, i0: every tile the
         * loop reaches computes them before anything skips it): the next, when it is that tile transposed
         * (`mirror`) with the same tile count and stream, computes the same times bit for bit,
         * and the earlier tile wins the ties (below); tested first, before the tile's bounds,
         * which would give what they gave the previous tile. */
        double prev_bt = 0, prev_stream = 0;
        for (size_t i = i0; i < ntiles; i++) {
            const rk_tile *t = &tiles[i];
            /* this tile's candidates, and every later tile's, cannot win. Not tested for a mirror
             * row: its bound is its original's (the same eff), which did not lose; should it reach
             * the best kept since, its candidates lose to the best, and the next row's bound (no
             * lower) breaks. */
            if (!t->mirror && RK_LOSES(p->gemm_lo_floor + ideal_lb * t->inv_eff))
                break;
            /* ceil(m / tm), ceil(n / tn) (m * (1/tm) exactly: tm is a power of two), and the tile
             * rows per cluster (a tile of 128 rows or more, Hopper clusters: TMA multicast reads B
             * from L2 once per cluster of tile rows; sm90_lib), else per tile */
            double otm = mi ? (double)((mi + t->tm1) >> t->shm) : rk_ceil(m * t->inv_tm);
            double otn = ni ? (double)((ni + t->tn1) >> t->shn) : rk_ceil(n * t->inv_tn);
            double otmc = sm90_lib && t->im ? rk_ceil(otm * (1.0 / RK_GEMM_HOPPER_CLUSTER_M)) : otm;
            double base_tiles = otm * otn * batch;
            /* SMs stream each A row-panel once per column of tiles, B once per row of tiles. */
            double stream0 = batch * (mk_es * otn + kn_es * otmc);
            /* The previous tile transposed, with its tile count and stream: the same times as the
             * previous tile's candidates, each of which was kept, or lost to a best time no lower
             * than today's (a bound, or a time), or did not fit (the same fit): none can win. */
            if (t->mirror && i > i0 && base_tiles == prev_bt && stream0 == prev_stream)
                continue;
            prev_bt = base_tiles;
            prev_stream = stream0;
            const rk_gemm_size_prep *z = &p->gemm_size[t->size]; /* the fit, t_over and fix-up of its size */
            double t_over = z->t_over;
            double per1 = base_tiles * inv_sm, work1 = t->mac2 * k * inv_peak_sm * t->inv_eff, c1 = 0, lb1 = -1;
            /* Split-K only helps when one wave is not full: try no split, the split that fills
             * the machine, and the splits of RK_GEMM_SPLITS that fit (at most 16 parts, each at
             * least RK_GEMM_MIN_SPLIT_K deep), as a library heuristic weighs a fuller machine
             * against the partial sums it writes and reduces. */
            double s_fill = 1, s_max = 1;
            if (base_tiles < sm && !(flags & RK_GEMM_NO_SPLIT_K) && !g->no_split_k) {
                s_max = rk_floor(k / RK_GEMM_MIN_SPLIT_K);
                if (s_max > RK_GEMM_MAX_SPLIT_K)
                    s_max = RK_GEMM_MAX_SPLIT_K;
                s_fill = rk_ceil(sm / base_tiles);
                if (s_fill > s_max)
                    s_fill = s_max;
            }
            if (best.t < INFINITY) {
                /* Unsplit: compute >= max(per_sm, 1) one tile's MACs + one fill and drain (waves x
                 * CTAs per SM >= per_sm and >= 1; stream-K: per_sm x work + 2 t_over + fix-up),
                 * less a margin far above the rounding of either side; the memory terms are the
                 * search's (lb1, below). The compute term is tested first: floor + max(c1, x) >=
                 * floor + c1. */
                c1 = ((per1 > 1 ? per1 : 1) * work1 + t_over) * RK_GEMM_LB_MARGIN;
                if (s_max == 1 && RK_LOSES(floor1 + c1))
                    continue; /* no split to try, and unsplit cannot win */
            }
            if (best.t < INFINITY) {
                double l2b1 = stream0 > b20 ? stream0 : b20, lbt;
                lb1 = floor1 + rk_max(c1, rk_max(mem0, l2b1 * inv_l2bw));
                lbt = lb1;
                if (s_max > 1) {
                    /* Split in s: per_sm x work does not fall (s x ceil(k / s) >= k); two floors;
                     * the least partial sums of a split (2 parts) through DRAM and L2 at their
                     * combined rate, computed once per call when first needed (-1: not yet; a
                     * grid of a wave or more never needs it). */
                    if (lb_partial < 0)
                        lb_partial = 2.0 * 2.0 * m * n * batch * 4.0 * p->inv_dram_l2_bw;
                    double lb2 = 2 * floor1 + rk_max((per1 * work1 + t_over) * RK_GEMM_LB_MARGIN, lb_partial);
                    if (lb2 < lbt)
                        lbt = lb2;
                }
                if (RK_LOSES(lbt))
                    continue;
            }
            /* the fit, for a tile not skipped by its bounds */
            double ctas = z->ctas;
            if (ctas < 1)
                continue;
            if (!RK_LOSES(lb1)) { /* lb1 = -1: not computed (no best yet) */
                /* Unsplit. CTAs actually sharing an SM: fewer than fit when the grid is small. */
                double per_sm = per1, c_ceil = rk_ceil(per_sm), c_eff = c_ceil > ctas ? ctas : c_ceil;
                /* One tile's time on its share (1/c_eff) of an SM at the achievable rate; work1:
                 * its MACs alone (the stream-K work of a tile, below). */
                double ttile = (work1 + t_over) * c_eff, compute, l2b = stream0 > b20 ? stream0 : b20, tt, wc;
                /* Waves: per_sm / c_eff (divided only for the best, and here when it can exceed
                 * one and c_eff is not 1; x / c = x * (1 / c) for c = 1, 2, 4): waves_ceil. */
                wc = waves_ceil(per_sm, c_ceil, c_eff, ctas);
                compute = wc * ttile;
                compute += rk_min(compute, cw); /* GDDR epilogue stalls: at most the main loops' time */
                double occ = base_tiles < sm && fixed_grid ? p->gemm_occ0 + p->gemm_occ1 / base_tiles : 1.0;
                double mem_c = occ != 1.0 ? mem0 + strm0 * (occ - 1.0) : mem0;
                tt = floor1 + rk_max(compute, rk_max(mem_c, l2b * inv_l2bw));
                if (base_tiles > sk_tiles) {
                    /* Stream-K (docs/model.md §2): one persistent CTA per SM; the MAC iterations of
                     * all tiles are divided evenly over the SMs, so the last wave is not
                     * part-empty. A persistent kernel loads the next tile while it drains the
                     * last, so each SM pays the fill and drain once, and once more for the tile it
                     * shares, whose FP32 partial sums go through L2 (the fix-up). */
                    double sk = per_sm * work1 + 2.0 * t_over;
                    double fix = z->fix;
                    double csk = sk + fix;
                    csk += rk_min(csk, cw); /* GDDR epilogue stalls, as the data-parallel tiles' */
                    double tsk = floor1 + rk_max(csk, rk_max(mem0, l2b * inv_l2bw));
                    if (tsk < tt) {
                        tt = tsk;
                        compute = csk;
                    }
                }
                /* the least time; a tie goes to the candidate first in order (the one kept) */
                if (tt < best.t)
                    best = (gemm_best){tt, t, 1, per_sm, c_eff, wc, base_tiles, compute, stream0, occ};
            }
            if (!(s_max > 1))
                continue;
            /* The splits: the fill split, then those that leave no wave part-empty: the most parts
             * that fit in 1, 2 or 3 waves (floor(j SM / tiles)). */
            double prev_s = 1;
            for (int s_i = 1; s_i < 2 + RK_GEMM_NSPLITS; s_i++) {
                double s = s_i == 1 ? s_fill : rk_floor((s_i - 1) * sm / base_tiles), compute, mem, l2b, tt, dd, l, dtd;
                if (s < 2 || s > s_max || s == prev_s || (s_i > 1 && s == s_fill)) {
                    if (s_i > 1 && s > s_max)
                        break; /* the wave splits ascend: the rest are above s_max too */
                    prev_s = s;
                    continue;
                }
                prev_s = s;
                /* A split pays two kernel floors and its partial sums through DRAM at least: no
                 * split (nor a larger one) can win once that alone reaches the best time. */
                if (RK_LOSES(2 * floor1 + rk_max(ideal * t->inv_eff, 2.0 * s * m * n * batch * 4.0 * p->inv_dram_l2_bw))) {
                    if (s_i > 1)
                        break; /* the wave splits ascend: their partial sums only grow */
                    continue;
                }
                double per_sm = base_tiles * s * inv_sm, c_ceil = rk_ceil(per_sm), c_eff = c_ceil > ctas ? ctas : c_ceil;
                double work = t->mac2 * rk_ceil(k / s) * inv_peak_sm * t->inv_eff;
                double wc = waves_ceil(per_sm, c_ceil, c_eff, ctas);
                compute = wc * ((work + t_over) * c_eff);
                if (RK_LOSES(2 * floor1 + compute))
                    continue; /* its compute alone loses: skip the memory terms */
                {
                    /* FP32 partial sums written and read back by a second (reduction) kernel. */
                    double partial = 2.0 * s * m * n * batch * 4.0;
                    rk_l2_split(p, min_bytes, partial, 0, &dd, &l);
                    /* the partial tiles are the tile-shaped writes now; C is the reduction's */
                    dtd = rk_dram_time(p, dd) + dd * gx;
                    mem = dtd + 0.5 * partial * dd / (min_bytes.bytes + partial) * min_bytes.bytes * wx +
                          (dd > 0 ? lat_x : 0);
                    l2b = stream0 + partial > dd + l ? stream0 + partial : dd + l;
                }
                tt = 2 * floor1 + rk_max(compute, rk_max(mem, l2b * inv_l2bw));
                if (tt < best.t)
                    best = (gemm_best){tt, t, s, per_sm, c_eff, wc, base_tiles * s, compute, stream0, 1.0};
            }
        }
#undef RK_LOSES
        if (best.t < INFINITY) {
            double partial = 0, dt_best = dt0;
            /* The search's values for the best: rk_l2_split(partial) and its rk_dram_time (a
             * split's computed again, as its candidate did), and its A and B stream. */
            double stream;
            /* every field: these, rk_finish_mem's, rk_result_clear_enums's, and the derived
             * (rk_predicted's) */
            rk_result_clear_enums(r);
            r->dram_bytes = dram0;
            r->l2_bytes = l20;
            if (best.s > 1) {
                partial = 2.0 * best.s * m * n * batch * 4.0;
                rk_l2_split(p, min_bytes, partial, 0, &r->dram_bytes, &r->l2_bytes);
                dt_best = rk_dram_time(p, r->dram_bytes) + r->dram_bytes * gx;
            }
            /* L2 traffic max(stream, D + hits): l2_bytes, the bytes the L2 serves, is it less the
             * DRAM bytes (rk_finish_mem's L2 time counts both) */
            stream = best.stream + partial;
            if (stream > r->dram_bytes + r->l2_bytes)
                r->l2_bytes = stream - r->dram_bytes;
            r->compute_s = best.compute;
            r->flops = 2.0 * m * n * k * batch;
            r->kernels = best.s > 1 ? 2 : 1;
            r->peak = peak;
            r->tensor = tensor;
            r->tile_m = best.tile->tm;
            r->tile_n = best.tile->tn;
            r->tiles = best.tiles;
            /* per_sm / c_eff (c_eff is 1 to 4) */
            r->waves = rk_div_1to4(best.per_sm, best.c_eff);
            /* wc: rk_ceil(waves), which the search computed (a grid within one round: 1) */
            r->wave_efficiency = best.wc == 1 ? r->waves : r->waves / best.wc;
            r->split_k = best.s;
            r->align_efficiency = aeff;
            /* memory_s: rk_dram_time(dram_bytes) + extra, as rk_finish_extra adds them (the extra
             * is 0 for RK_GEMM_PLAIN_FINISH, rk_finish's) */
            {
                double extra = 0;
                if (!(flags & RK_GEMM_PLAIN_FINISH))
                    extra = (r->dram_bytes > 0 ? lat_x : 0) +
                            (best.s > 1 ? 0.5 * partial * r->dram_bytes / (min_bytes.bytes + partial) * min_bytes.bytes * wx
                             : r->dram_bytes > 0 ? rk_min(c_bytes, min_bytes.bytes) * r->dram_bytes * wx
                                                 : 0);
                if (best.occ != 1.0 && r->dram_bytes > 0) /* the stream of a grid short of the SMs */
                    extra += (dt_best + extra - p->dram_latency_s - (flags & RK_GEMM_PLAIN_FINISH ? 0 : lat_x)) *
                             (best.occ - 1.0);
                rk_finish_mem(p, r, dt_best + extra);
            }
        }
    }
    if (!(best.t < INFINITY))
        return ridge_err_set(err, RIDGE_EUNSUPPORTED,
                             "%s: no GEMM tile fits in an SM's %.0f bytes of shared memory ($.sm.shared_memory_bytes) "
                             "and 3/4 of its %.0f registers ($.sm.registers)",
                             g->id, g->smem_per_sm_bytes, g->registers_per_sm > 0 ? (double)g->registers_per_sm : 65536.0);
    return RIDGE_OK;
}

int rk_gemm(const rk_kernel_prepared *p, ridge_dtype dt, double m, double n, double k, double batch,
            ridge_layout layout, double align_elems, rk_bytes min_bytes, double eff_scale, int flags,
            ridge_kernel_result *r, ridge_err *err)
{
    return gemm_search(p, dt, m, n, k, batch, layout, align_elems, min_bytes, eff_scale, flags, r, err);
}

/* rk_gemm_op's search of an op with compulsory bytes min_bytes and rk_gemm flags `flags`. */
RIDGE_ALWAYS_INLINE
static inline int gemm_op_search(const rk_kernel_prepared *p, const ridge_op *op, double min_bytes, int flags,
                                 ridge_kernel_result *r, ridge_err *err)
{
    double batch = op->u.gemm.batch > 0 ? op->u.gemm.batch : 1;
    return gemm_search(p, op->dtype, op->u.gemm.m, op->u.gemm.n, op->u.gemm.k, batch, op->u.gemm.layout, 0,
                       rk_op_bytes(op, min_bytes), 1.0, flags, r, err);
}

int rk_gemm_op(const rk_kernel_prepared *p, const ridge_op *op, ridge_kernel_result *r, ridge_err *err)
{
    double min_bytes = rk_gemm_kind_bytes_es(op, p->dt[op->dtype].es, p->dt[op->dtype].es_out) + op->epilogue_bytes;
    int rc;
    /* An op that neither forbids split-K nor dispatches its tiles on m (nearly every one) has the
     * search inlined with its flags constant: the tests of them fold away. */
    if (!op->u.gemm.no_split_k && !op->u.gemm.tiles_by_m)
        rc = gemm_op_search(p, op, min_bytes, RK_GEMM_CUBLAS, r, err);
    else
        rc = gemm_op_search(p, op, min_bytes,
                            (op->u.gemm.no_split_k ? RK_GEMM_NO_SPLIT_K : 0) |
                                (op->u.gemm.tiles_by_m ? RK_GEMM_TILES_BY_M : 0) | RK_GEMM_CUBLAS,
                            r, err);
    if (rc != RIDGE_OK)
        return rc;
    return rk_predicted(p, op, min_bytes, r, err);
}
