/*
 * gemm.h - one GEMM measurement through cuBLAS / cuBLASLt, shared by the
 * peak group (bench_gemm.cu) and the shape sweep (bench_gemm_sweep.cu).
 *
 * Shapes are in ridge's terms, the nn.Linear convention (row-major):
 *
 *     Y[m, n] = X[m, k] * W[n, k]^T        (batch of these when batch > 1)
 *
 * which cuBLAS (column-major) sees as C = op(A) op(B) with A = W (op T,
 * lda = k), B = X (op N, ldb = k), C = Y (ldc = n) and M = n, N = m, K = k:
 * the "TN" layout, the one FP8 and INT8 tensor-core kernels require and the
 * one PyTorch's linear layers produce.
 */
#ifndef RIDGE_GEMM_H
#define RIDGE_GEMM_H

#include "bench.h"

typedef enum {
    RIDGE_GEMM_SGEMM,  /* cublasSgemm: plain fp32, no tensor cores */
    RIDGE_GEMM_GEMMEX, /* cublasGemmEx / cublasGemmStridedBatchedEx */
    RIDGE_GEMM_LT      /* cublasLtMatmul with heuristic algorithm */
} ridge_gemm_backend;

typedef struct {
    const char *name;        /* id component: "bf16", "fp16_acc16", ... */
    ridge_dtype in;          /* dtype of X and W (TF32: fp32 storage) */
    ridge_dtype out;         /* dtype of Y */
    const char *accumulate;  /* "fp32", "fp16", "int32" */
    ridge_gemm_backend backend;
    int fast_accum;          /* FP8 only: CUBLASLT_MATMUL_DESC_FAST_ACCUM */
    int min_cc;              /* lowest compute capability, major*10+minor */
} ridge_gemm_kind;

/* Device buffers shared by many measurements; grown on demand and filled
 * with random data of one input dtype at a time. */
typedef struct {
    void *w, *x, *y;
    size_t w_cap, x_cap, y_cap;
    int filled;        /* W and X hold random data of `filled_dt` */
    ridge_dtype filled_dt;
} ridge_gemm_pool;

/* Optional extra configuration recorded with a measurement. */
typedef struct {
    const char *shape_class; /* "peak", "square", "skinny", ... */
    int wave;                /* 1: record the tile/wave fields below */
    int tile_m, tile_n;
    long long tiles;
    double waves;
} ridge_gemm_extra;

void ridge_gemm_pool_free(ridge_gemm_pool *p);

/* Measure one GEMM: plan, rotate buffers so the working set exceeds L2,
 * warm up, time, check sampled outputs against an fp64 reference, write
 * the measurement.  An unsupported kind/shape is recorded as skipped.
 * Returns 0 (measured or skipped) or -1 on a CUDA/cuBLAS error. */
int ridge_gemm_measure(ridge_bench *b, ridge_gemm_pool *pool,
                       const ridge_gemm_kind *kind, long long m, long long n,
                       long long k, long long batch, const char *id,
                       const ridge_timing *timing,
                       const ridge_gemm_extra *extra);

#endif /* RIDGE_GEMM_H */
