/*
 * bench_gemm.cu - GEMM peak per precision on large square shapes.
 *
 *   variant       inputs  output  accumulate  library call
 *   fp32          fp32    fp32    fp32        cublasSgemm (no tensor cores)
 *   tf32          fp32    fp32    fp32        cublasGemmEx, COMPUTE_32F_FAST_TF32
 *   fp16          fp16    fp16    fp32        cublasGemmEx, COMPUTE_32F
 *   fp16_acc16    fp16    fp16    fp16        cublasGemmEx, COMPUTE_16F
 *   bf16          bf16    bf16    fp32        cublasGemmEx, COMPUTE_32F
 *   fp8           e4m3    bf16    fp32        cublasLtMatmul (sm_89+)
 *   fp8_fastacc   e4m3    bf16    fp32        cublasLtMatmul, FAST_ACCUM (sm_89+)
 *   int8          int8    int32   int32       cublasLtMatmul, COMPUTE_32I
 *
 * Sizes: 8192 for fp32/tf32, 8192 and 16384 for the others.  A variant the
 * device or library cannot run is recorded as skipped with the reason.
 */
#include "gemm.h"

#include <string.h>

static const ridge_gemm_kind peak_kinds[] = {
    {"fp32", RIDGE_DT_FP32, RIDGE_DT_FP32, "fp32", RIDGE_GEMM_SGEMM, 0, 0},
    {"tf32", RIDGE_DT_TF32, RIDGE_DT_FP32, "fp32", RIDGE_GEMM_GEMMEX, 0, 80},
    {"fp16", RIDGE_DT_FP16, RIDGE_DT_FP16, "fp32", RIDGE_GEMM_GEMMEX, 0, 70},
    {"fp16_acc16", RIDGE_DT_FP16, RIDGE_DT_FP16, "fp16", RIDGE_GEMM_GEMMEX, 0,
     70},
    {"bf16", RIDGE_DT_BF16, RIDGE_DT_BF16, "fp32", RIDGE_GEMM_GEMMEX, 0, 80},
    {"fp8", RIDGE_DT_FP8, RIDGE_DT_BF16, "fp32", RIDGE_GEMM_LT, 0, 89},
    {"fp8_fastacc", RIDGE_DT_FP8, RIDGE_DT_BF16, "fp32", RIDGE_GEMM_LT, 1, 89},
    {"int8", RIDGE_DT_INT8, RIDGE_DT_INT32, "int32", RIDGE_GEMM_LT, 0, 75},
};

int ridge_group_gemm(ridge_bench *b)
{
    static const long long sizes_full[] = {8192, 16384};
    static const long long sizes_quick[] = {1024};
    const long long *sizes = b->quick ? sizes_quick : sizes_full;
    int nsizes = b->quick ? 1 : 2;
    int nk = (int)(sizeof peak_kinds / sizeof peak_kinds[0]);
    ridge_gemm_pool pool;
    ridge_timing t = ridge_timing_default(b);
    ridge_gemm_extra extra;
    int si, ki, rc = 0;

    memset(&pool, 0, sizeof pool);
    memset(&extra, 0, sizeof extra);
    extra.shape_class = "peak";
    t.warmup = b->quick ? 1 : 3;
    t.min_reps = b->quick ? 3 : 5;
    t.max_reps = b->quick ? 5 : 20;
    t.inner = 1;
    t.max_time_s = b->quick ? 0.05 : 1.5;

    /* size-major: every precision gets its 8192 point before any 16384 */
    for (si = 0; si < nsizes && !b->fatal; ++si) {
        for (ki = 0; ki < nk && !b->fatal; ++ki) {
            const ridge_gemm_kind *kd = &peak_kinds[ki];
            long long s = sizes[si];
            char id[160];
            int is16 = kd->in != RIDGE_DT_FP32 && kd->in != RIDGE_DT_TF32;
            if (!b->quick && s > 8192 && !is16)
                continue; /* fp32/tf32 at 16384 would cost seconds each */
            snprintf(id, sizeof id, "gemm/%s/%lld", kd->name, s);
            if (ridge_bench_time_left(b) <= 0) {
                ridge_bench_skip(b, id, "group time budget exhausted");
                continue;
            }
            if (ridge_gemm_measure(b, &pool, kd, s, s, s, 1, id, &t, &extra))
                rc = -1;
        }
    }
    ridge_gemm_pool_free(&pool);
    return rc;
}
