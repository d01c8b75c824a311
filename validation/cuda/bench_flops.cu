/*
 * bench_flops.cu - FP32 and FP64 FMA peak (vector units, no tensor cores).
 *
 * Every thread runs RIDGE_FMA_CHAINS independent register-resident chains
 * x = fma(x, m, a) for `iters` steps; the chains give the scheduler enough
 * independent instructions to hide FMA latency.  One full wave of blocks
 * (occupancy x SM count) keeps every SM busy and finishes together.
 *
 *   FLOPs = 2 * threads * RIDGE_FMA_CHAINS * iters   (an FMA is 2 FLOPs)
 *   bytes = threads * RIDGE_FMA_CHAINS * sizeof(T)   (the final store)
 *
 * m < 1 and a = (1-m) keep the values bounded (fixed point 1).  The host
 * recomputes the chains with fma()/fmaf(), which round exactly like the GPU,
 * so the check is bit-exact.
 */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RIDGE_FMA_CHAINS 8
#define FMA_THREADS 256
#define FMA_SEEDS 8 /* distinct starting values, by thread index mod 8 */

__host__ __device__ static float fma_seed_f32(int s, int j)
{
    return 0.5f + 0.0078125f * (float)s + 0.001953125f * (float)j;
}

__host__ __device__ static double fma_seed_f64(int s, int j)
{
    return 0.5 + 0.0078125 * (double)s + 0.001953125 * (double)j;
}

__global__ static void fma_f32(float *out, int iters, float m, float a)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float x[RIDGE_FMA_CHAINS];
    int i, j;
#pragma unroll
    for (j = 0; j < RIDGE_FMA_CHAINS; ++j)
        x[j] = fma_seed_f32(tid % FMA_SEEDS, j);
#pragma unroll 8
    for (i = 0; i < iters; ++i) {
#pragma unroll
        for (j = 0; j < RIDGE_FMA_CHAINS; ++j)
            x[j] = __fmaf_rn(x[j], m, a);
    }
#pragma unroll
    for (j = 0; j < RIDGE_FMA_CHAINS; ++j)
        out[(size_t)tid * RIDGE_FMA_CHAINS + j] = x[j];
}

__global__ static void fma_f64(double *out, int iters, double m, double a)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    double x[RIDGE_FMA_CHAINS];
    int i, j;
#pragma unroll
    for (j = 0; j < RIDGE_FMA_CHAINS; ++j)
        x[j] = fma_seed_f64(tid % FMA_SEEDS, j);
#pragma unroll 8
    for (i = 0; i < iters; ++i) {
#pragma unroll
        for (j = 0; j < RIDGE_FMA_CHAINS; ++j)
            x[j] = __fma_rn(x[j], m, a);
    }
#pragma unroll
    for (j = 0; j < RIDGE_FMA_CHAINS; ++j)
        out[(size_t)tid * RIDGE_FMA_CHAINS + j] = x[j];
}

typedef struct {
    int fp64;
    void *out;
    unsigned grid;
    int iters;
} fma_args;

static const float FMA_M32 = 0.999755859375f; /* 1 - 2^-12 */
static const double FMA_M64 = 0.999755859375;

static int fma_enqueue(ridge_bench *b, void *arg, cudaStream_t s)
{
    fma_args *x = (fma_args *)arg;
    if (x->fp64)
        fma_f64<<<x->grid, FMA_THREADS, 0, s>>>((double *)x->out, x->iters,
                                                FMA_M64, 1.0 - FMA_M64);
    else
        fma_f32<<<x->grid, FMA_THREADS, 0, s>>>((float *)x->out, x->iters,
                                                FMA_M32, 1.0f - FMA_M32);
    RIDGE_LAUNCH_TRY(b, "fma kernel");
    return 0;
fail:
    return -1;
}

/* Time one launch of `iters` steps (after one warm-up launch). */
static int fma_probe(ridge_bench *b, fma_args *x, double *sec)
{
    cudaEvent_t e0 = NULL, e1 = NULL;
    float ms = 0.0f;
    int rc = -1;
    RIDGE_CUDA_TRY(b, cudaEventCreate(&e0));
    RIDGE_CUDA_TRY(b, cudaEventCreate(&e1));
    if (fma_enqueue(b, x, b->stream))
        goto fail;
    RIDGE_CUDA_TRY(b, cudaEventRecord(e0, b->stream));
    if (fma_enqueue(b, x, b->stream))
        goto fail;
    RIDGE_CUDA_TRY(b, cudaEventRecord(e1, b->stream));
    RIDGE_CUDA_TRY(b, cudaEventSynchronize(e1));
    RIDGE_CUDA_TRY(b, cudaEventElapsedTime(&ms, e0, e1));
    *sec = (double)ms * 1e-3;
    rc = 0;
fail:
    ridge_events_destroy(e0, e1);
    return rc;
}

static int fma_run(ridge_bench *b, int fp64)
{
    const char *id = fp64 ? "flops/fma/fp64" : "flops/fma/fp32";
    size_t esize = fp64 ? sizeof(double) : sizeof(float);
    const void *kern = fp64 ? (const void *)fma_f64 : (const void *)fma_f32;
    int per_sm = ridge_blocks_per_sm(kern, FMA_THREADS);
    fma_args x;
    size_t threads, nout;
    void *d_out = NULL, *h_out = NULL;
    double expect[FMA_SEEDS][RIDGE_FMA_CHAINS];
    double probe_s = 0.0, target_s = b->quick ? 2e-4 : 5e-3;
    ridge_timing t = ridge_timing_default(b);
    ridge_stats st;
    ridge_check chk;
    ridge_meas m;
    ridge_json *j;
    long long flops;
    size_t i, bad = 0;
    int inner = 1, rc = -1, s, c, it;

    memset(&x, 0, sizeof x);
    x.fp64 = fp64;
    x.grid = (unsigned)(b->sm_count * per_sm);
    threads = (size_t)x.grid * FMA_THREADS;
    nout = threads * RIDGE_FMA_CHAINS;
    RIDGE_CUDA_TRY(b, cudaMalloc(&d_out, nout * esize));
    h_out = malloc(nout * esize);
    if (!h_out)
        RIDGE_FAIL(b, "out of host memory");
    x.out = d_out;

    /* Pick iters so one launch takes about target_s on this GPU. */
    x.iters = 1024;
    if (fma_probe(b, &x, &probe_s))
        goto fail;
    if (probe_s > 0) {
        double want = (double)x.iters * target_s / probe_s;
        if (want > (double)(1 << 20))
            want = (double)(1 << 20);
        if (want < 64)
            want = 64;
        x.iters = ((int)want + 63) / 64 * 64;
    }

    t.inner = 1;
    t.max_time_s = b->quick ? 0.05 : 0.5;
    if (ridge_time_events(b, fma_enqueue, &x, &t, &st, &inner))
        goto fail;

    /* Bit-exact check against the host. */
    RIDGE_CUDA_TRY(b, cudaMemcpy(h_out, d_out, nout * esize,
                                 cudaMemcpyDeviceToHost));
    for (s = 0; s < FMA_SEEDS; ++s) {
        for (c = 0; c < RIDGE_FMA_CHAINS; ++c) {
            if (fp64) {
                double v = fma_seed_f64(s, c);
                for (it = 0; it < x.iters; ++it)
                    v = fma(v, FMA_M64, 1.0 - FMA_M64);
                expect[s][c] = v;
            } else {
                float v = fma_seed_f32(s, c);
                for (it = 0; it < x.iters; ++it)
                    v = fmaf(v, FMA_M32, 1.0f - FMA_M32);
                expect[s][c] = (double)v;
            }
        }
    }
    for (i = 0; i < nout; ++i) {
        size_t tid = i / RIDGE_FMA_CHAINS;
        int ch = (int)(i % RIDGE_FMA_CHAINS);
        double got = fp64 ? ((double *)h_out)[i] : (double)((float *)h_out)[i];
        if (got != expect[tid % FMA_SEEDS][ch])
            ++bad;
    }
    memset(&chk, 0, sizeof chk);
    chk.metric = "mismatches";
    chk.value = (double)bad;
    chk.tolerance = 0.0;
    chk.status = bad == 0 ? RIDGE_CHECK_PASSED : RIDGE_CHECK_FAILED;

    flops = 2LL * (long long)threads * RIDGE_FMA_CHAINS * x.iters;
    ridge_meas_init(&m, id, &st, inner, t.warmup, flops,
                    (long long)(nout * esize));
    m.check = chk;
    j = ridge_meas_begin(b, &m);
    ridge_op_custom(j, fp64 ? RIDGE_DT_FP64 : RIDGE_DT_FP32, flops,
                    (long long)(nout * esize), "vector", 1);
    ridge_json_str(j, "kernel", "fma_chains");
    ridge_json_int(j, "chains_per_thread", RIDGE_FMA_CHAINS);
    ridge_json_int(j, "iters", x.iters);
    ridge_json_int(j, "grid", x.grid);
    ridge_json_int(j, "block", FMA_THREADS);
    ridge_json_int(j, "blocks_per_sm", per_sm);
    ridge_json_int(j, "threads", (long long)threads);
    ridge_json_str(j, "runtime", "eager");
    ridge_meas_end(b);
    ridge_print_result(id, &st, flops, 0, &chk);
    rc = 0;
fail:
    cudaFree(d_out);
    free(h_out);
    return rc;
}

int ridge_group_flops(ridge_bench *b)
{
    int rc = 0;
    if (fma_run(b, 0))
        rc = -1;
    if (b->fatal)
        return -1;
    if (ridge_bench_time_left(b) <= 0)
        ridge_bench_skip(b, "flops/fma/fp64", "group time budget exhausted");
    else if (fma_run(b, 1))
        rc = -1;
    return rc;
}
