/*
 * bench_gemm_sweep.cu - GEMM shape sweep in bf16 and fp16 (fp32 accumulate),
 * the shapes where a roofline alone goes wrong:
 *
 *   square      m = n = k = 256 .. 16384
 *   skinny      m = 1 .. 128 tokens against 4096x4096, 14336x4096 and
 *               4096x14336 weights (LLM decode)
 *   misaligned  n or k (or m) = 4095, 4097, 8191, 8193, 4088, 4092 next to
 *               their aligned neighbours (vector-load and tile alignment)
 *   shallow     m = n = 8192 with k = 64 .. 1024: each output tile does few
 *               K steps, so its fill and drain (a DRAM latency, the
 *               accumulator write-out) weigh (docs/model.md, GEMM)
 *   wave        tile counts just below / at / above 1, 2 and 3 waves,
 *               assuming 128x256 output tiles and the SM count of this GPU
 *   batched     cublasGemmStridedBatchedEx, attention-like shapes
 *
 * Shapes follow gemm.h: Y[m,n] = X[m,k] * W[n,k]^T.
 */
#include "gemm.h"

#include <string.h>

static const ridge_gemm_kind sweep_kinds[] = {
    {"bf16", RIDGE_DT_BF16, RIDGE_DT_BF16, "fp32", RIDGE_GEMM_GEMMEX, 0, 80},
    {"fp16", RIDGE_DT_FP16, RIDGE_DT_FP16, "fp32", RIDGE_GEMM_GEMMEX, 0, 70},
};

#define SWEEP_TILE_M 128
#define SWEEP_TILE_N 256
#define SWEEP_MAX_SHAPES 128

typedef struct {
    const char *cls;
    long long m, n, k, batch;
    int wave;
    long long tiles;
    double waves;
} sweep_shape;

static int sweep_add(sweep_shape *s, int n, const char *cls, long long m,
                     long long nn, long long k, long long batch)
{
    if (n >= SWEEP_MAX_SHAPES)
        return n;
    memset(&s[n], 0, sizeof s[n]);
    s[n].cls = cls;
    s[n].m = m;
    s[n].n = nn;
    s[n].k = k;
    s[n].batch = batch;
    return n + 1;
}

static int sweep_shapes(const ridge_bench *b, sweep_shape *s)
{
    int n = 0, i, j, w;
    if (b->quick) {
        n = sweep_add(s, n, "square", 256, 256, 256, 1);
        n = sweep_add(s, n, "square", 512, 512, 512, 1);
        n = sweep_add(s, n, "skinny", 1, 1024, 1024, 1);
        n = sweep_add(s, n, "skinny", 16, 1024, 1024, 1);
        n = sweep_add(s, n, "misaligned", 512, 512, 511, 1);
        n = sweep_add(s, n, "misaligned", 512, 512, 512, 1);
        n = sweep_add(s, n, "batched", 128, 128, 64, 4);
        n = sweep_add(s, n, "shallow", 1024, 1024, 64, 1);
    } else {
        static const long long sq[] = {256,  512,  1024, 1536,  2048, 3072,
                                       4096, 6144, 8192, 12288, 16384};
        static const long long tok[] = {1, 2, 4, 8, 16, 32, 64, 128};
        static const long long wts[][2] = {
            {4096, 4096}, {14336, 4096}, {4096, 14336}};
        static const long long mis[][3] = {
            {4096, 4096, 4095}, {4096, 4096, 4096}, {4096, 4096, 4097},
            {4096, 4096, 4088}, {4096, 4096, 4092}, {4096, 4095, 4096},
            {4096, 4097, 4096}, {4096, 4088, 4096}, {4096, 8192, 8191},
            {4096, 8192, 8192}, {4096, 8192, 8193}, {4096, 8191, 8192},
            {4096, 8193, 8192}, {4095, 4096, 4096}, {4097, 4096, 4096}};
        static const long long bat[][4] = {
            /* batch, m, n, k */
            {96, 512, 512, 64}, /* QK^T: 8 x 12 heads, seq 512, d 64 */
            {96, 512, 64, 512}, /* P V */
            {256, 128, 128, 64},
            {512, 64, 64, 64},
            {32, 1024, 1024, 1024},
            {8, 4096, 4096, 128}};
        for (i = 0; i < (int)(sizeof sq / sizeof sq[0]); ++i)
            n = sweep_add(s, n, "square", sq[i], sq[i], sq[i], 1);
        for (j = 0; j < 3; ++j)
            for (i = 0; i < (int)(sizeof tok / sizeof tok[0]); ++i)
                n = sweep_add(s, n, "skinny", tok[i], wts[j][0], wts[j][1],
                              1);
        for (i = 0; i < (int)(sizeof mis / sizeof mis[0]); ++i)
            n = sweep_add(s, n, "misaligned", mis[i][0], mis[i][1], mis[i][2],
                          1);
        for (i = 0; i < (int)(sizeof bat / sizeof bat[0]); ++i)
            n = sweep_add(s, n, "batched", bat[i][1], bat[i][2], bat[i][3],
                          bat[i][0]);
        for (i = 64; i <= 1024; i *= 2)
            n = sweep_add(s, n, "shallow", 8192, 8192, i, 1);
    }
    /* Wave boundaries: n = 4 tiles wide, m stepped one tile row at a time
     * around w * SM-count tiles, for w = 1, 2, 3. */
    for (w = 1; w <= (b->quick ? 1 : 3); ++w) {
        const int tn = 4;
        long long target = (long long)w * b->sm_count;
        long long tm0 = target / tn, tm;
        for (tm = tm0 - 2; tm <= tm0 + 2; ++tm) {
            if (tm < 1)
                continue;
            n = sweep_add(s, n, "wave", tm * SWEEP_TILE_M, tn * SWEEP_TILE_N,
                          b->quick ? 256 : 4096, 1);
            s[n - 1].wave = 1;
            s[n - 1].tiles = tm * tn;
            s[n - 1].waves = (double)(tm * tn) / b->sm_count;
        }
    }
    return n;
}

/* Order: square, skinny, misaligned, shallow, wave, batched (each in both
 * dtypes). */
#define SWEEP_CLASSES 6
static int sweep_class_rank(const char *cls)
{
    static const char *const order[SWEEP_CLASSES] = {
        "square", "skinny", "misaligned", "shallow", "wave", "batched"};
    int i;
    for (i = 0; i < SWEEP_CLASSES; ++i)
        if (strcmp(cls, order[i]) == 0)
            return i;
    return SWEEP_CLASSES;
}

int ridge_group_gemm_sweep(ridge_bench *b)
{
    sweep_shape shapes[SWEEP_MAX_SHAPES];
    int nshapes = sweep_shapes(b, shapes);
    int nk = (int)(sizeof sweep_kinds / sizeof sweep_kinds[0]);
    ridge_gemm_pool pool;
    ridge_timing t = ridge_timing_default(b);
    int rank, si, ki, rc = 0;

    memset(&pool, 0, sizeof pool);
    t.warmup = b->quick ? 1 : 2;
    t.min_reps = 3;
    t.max_reps = b->quick ? 3 : 15;
    t.max_time_s = b->quick ? 0.02 : 0.2;
    t.target_sample_s = b->quick ? 20e-6 : 100e-6;
    t.max_inner = b->quick ? 10 : 200;

    for (rank = 0; rank <= SWEEP_CLASSES && !b->fatal; ++rank) {
        for (ki = 0; ki < nk && !b->fatal; ++ki) {
            const ridge_gemm_kind *kd = &sweep_kinds[ki];
            for (si = 0; si < nshapes && !b->fatal; ++si) {
                const sweep_shape *sh = &shapes[si];
                ridge_gemm_extra extra;
                char id[160];
                if (sweep_class_rank(sh->cls) != rank)
                    continue;
                if (sh->batch > 1)
                    snprintf(id, sizeof id,
                             "gemm_sweep/%s/%s/b%lld_m%lld_n%lld_k%lld",
                             kd->name, sh->cls, sh->batch, sh->m, sh->n,
                             sh->k);
                else
                    snprintf(id, sizeof id,
                             "gemm_sweep/%s/%s/m%lld_n%lld_k%lld", kd->name,
                             sh->cls, sh->m, sh->n, sh->k);
                if (ridge_bench_time_left(b) <= 0) {
                    ridge_bench_skip(b, id, "group time budget exhausted");
                    continue;
                }
                memset(&extra, 0, sizeof extra);
                extra.shape_class = sh->cls;
                if (sh->wave) {
                    extra.wave = 1;
                    extra.tile_m = SWEEP_TILE_M;
                    extra.tile_n = SWEEP_TILE_N;
                    extra.tiles = sh->tiles;
                    extra.waves = sh->waves;
                }
                if (ridge_gemm_measure(b, &pool, kd, sh->m, sh->n, sh->k,
                                       sh->batch, id, &t, &extra))
                    rc = -1;
            }
        }
    }
    ridge_gemm_pool_free(&pool);
    return rc;
}
