/*
 * gemm_common.cu - plan, run, time and check one GEMM (see gemm.h).
 *
 *   FLOPs = 2 m n k batch            (int8: integer operations, same count)
 *   bytes = batch ((m k + n k) sizeof(in) + m n sizeof(out))   (each operand
 *           read once, the output written once; beta = 0 so Y is not read)
 *
 * Inputs are uniform random in [-1, 1) (INT8: integers in [-8, 8)), never
 * zeros.  When one set of operands fits in L2 the measurement rotates
 * through enough copies that the working set is at least 3x the L2 size, so
 * a GEMM reads its operands from DRAM as it would inside a network.
 *
 * Check: 128 sampled outputs (corners included) against an fp64 dot product
 * of the very inputs the GEMM saw, as a relative L2 error.
 */
#include "gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#define GEMM_ALIGN 256
#define GEMM_SAMPLES 128
#define GEMM_REF_THREADS 256
#define GEMM_MAX_SETS 16

typedef struct {
    const ridge_gemm_kind *kind;
    long long m, n, k, batch;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulAlgo_t algo;
    int lt_algo_id, lt_tile_id;
    float alpha_f, beta_f;
    __half alpha_h, beta_h;
    int alpha_i, beta_i;
} gemm_plan;

static size_t gemm_align(size_t x)
{
    return (x + GEMM_ALIGN - 1) / GEMM_ALIGN * GEMM_ALIGN;
}

static cudaDataType_t gemm_cuda_type(ridge_dtype dt)
{
    switch (dt) {
    case RIDGE_DT_FP64: return CUDA_R_64F;
    case RIDGE_DT_FP32:
    case RIDGE_DT_TF32: return CUDA_R_32F;
    case RIDGE_DT_FP16: return CUDA_R_16F;
    case RIDGE_DT_BF16: return CUDA_R_16BF;
    case RIDGE_DT_FP8: return CUDA_R_8F_E4M3;
    case RIDGE_DT_INT8: return CUDA_R_8I;
    case RIDGE_DT_INT32: return CUDA_R_32I;
    }
    return CUDA_R_32F;
}

static int gemm_acc16(const ridge_gemm_kind *k)
{
    return strcmp(k->accumulate, "fp16") == 0;
}

static double gemm_tolerance(const ridge_gemm_kind *k)
{
    if (k->out == RIDGE_DT_INT32)
        return 0.0; /* integer arithmetic is exact */
    if (k->backend == RIDGE_GEMM_SGEMM)
        return 1e-4;
    /* fp16 accumulators round after every k-step of the MMA (about 2-3 %
     * at k = 16384), and FP8 fast accumulation skips the periodic
     * promotion to fp32: both are far from the ~1.4 of a wrong result. */
    if (gemm_acc16(k) || (k->in == RIDGE_DT_FP8 && k->fast_accum))
        return 1e-1;
    if (k->in == RIDGE_DT_FP8)
        return 3e-2;
    if (k->out == RIDGE_DT_BF16)
        return 2e-2;
    return 1e-2; /* tf32, fp16 output with fp32 accumulate */
}

static const char *gemm_backend_name(const gemm_plan *p)
{
    switch (p->kind->backend) {
    case RIDGE_GEMM_SGEMM:
        return p->batch > 1 ? "cublasSgemmStridedBatched" : "cublasSgemm";
    case RIDGE_GEMM_GEMMEX:
        return p->batch > 1 ? "cublasGemmStridedBatchedEx" : "cublasGemmEx";
    case RIDGE_GEMM_LT: return "cublasLtMatmul";
    }
    return "unknown";
}

static const char *gemm_compute_name(const ridge_gemm_kind *k)
{
    if (k->backend == RIDGE_GEMM_SGEMM)
        return "CUBLAS_COMPUTE_32F (default math, no tensor cores)";
    if (k->out == RIDGE_DT_INT32)
        return "CUBLAS_COMPUTE_32I";
    if (gemm_acc16(k))
        return "CUBLAS_COMPUTE_16F";
    if (k->in == RIDGE_DT_TF32)
        return "CUBLAS_COMPUTE_32F_FAST_TF32";
    return "CUBLAS_COMPUTE_32F";
}

static void gemm_plan_free(gemm_plan *p)
{
    if (p->lc)
        cublasLtMatrixLayoutDestroy(p->lc);
    if (p->lb)
        cublasLtMatrixLayoutDestroy(p->lb);
    if (p->la)
        cublasLtMatrixLayoutDestroy(p->la);
    if (p->desc)
        cublasLtMatmulDescDestroy(p->desc);
    p->lc = p->lb = p->la = NULL;
    p->desc = NULL;
}

static int gemm_layout(ridge_bench *b, cublasLtMatrixLayout_t *l,
                       ridge_dtype dt, long long rows, long long cols,
                       long long batch, long long stride)
{
    RIDGE_CUBLAS_TRY(b, cublasLtMatrixLayoutCreate(l, gemm_cuda_type(dt),
                                                   (uint64_t)rows,
                                                   (uint64_t)cols, rows));
    if (batch > 1) {
        int32_t bc = (int32_t)batch;
        int64_t st = (int64_t)stride;
        RIDGE_CUBLAS_TRY(b, cublasLtMatrixLayoutSetAttribute(
                                *l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc,
                                sizeof bc));
        RIDGE_CUBLAS_TRY(b, cublasLtMatrixLayoutSetAttribute(
                                *l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                &st, sizeof st));
    }
    return 0;
fail:
    return -1;
}

/* 0: ready; 1: unsupported here (reason in why); -1: error (recorded). */
static int gemm_plan_init(ridge_bench *b, gemm_plan *p,
                          const ridge_gemm_kind *kind, long long m, long long n,
                          long long k, long long batch, char *why,
                          size_t why_len)
{
    int cc = b->cc_major * 10 + b->cc_minor;
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->m = m;
    p->n = n;
    p->k = k;
    p->batch = batch < 1 ? 1 : batch;
    p->alpha_f = 1.0f;
    p->beta_f = 0.0f;
    p->alpha_h = __float2half(1.0f);
    p->beta_h = __float2half(0.0f);
    p->alpha_i = 1;
    p->beta_i = 0;
    p->lt_algo_id = -1;
    p->lt_tile_id = -1;

    if (cc < kind->min_cc) {
        snprintf(why, why_len,
                 "%s GEMM needs compute capability %d.%d, device has %d.%d",
                 kind->name, kind->min_cc / 10, kind->min_cc % 10, b->cc_major,
                 b->cc_minor);
        return 1;
    }
    if (m > 2147483647LL || n > 2147483647LL || k > 2147483647LL) {
        snprintf(why, why_len, "dimension exceeds int range");
        return 1;
    }

    if (kind->backend == RIDGE_GEMM_LT) {
        cublasComputeType_t ct = kind->out == RIDGE_DT_INT32
                                     ? CUBLAS_COMPUTE_32I
                                     : CUBLAS_COMPUTE_32F;
        cudaDataType_t st =
            kind->out == RIDGE_DT_INT32 ? CUDA_R_32I : CUDA_R_32F;
        cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
        cublasLtMatmulPreference_t pref = NULL;
        cublasLtMatmulHeuristicResult_t res;
        int nres = 0;
        cublasStatus_t hs;
        size_t ws = b->workspace_bytes;

        RIDGE_CUBLAS_TRY(b, cublasLtMatmulDescCreate(&p->desc, ct, st));
        RIDGE_CUBLAS_TRY(b, cublasLtMatmulDescSetAttribute(
                                p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
                                sizeof ta));
        RIDGE_CUBLAS_TRY(b, cublasLtMatmulDescSetAttribute(
                                p->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
                                sizeof tb));
        if (kind->in == RIDGE_DT_FP8) {
            int8_t fast = (int8_t)(kind->fast_accum ? 1 : 0);
            RIDGE_CUBLAS_TRY(b, cublasLtMatmulDescSetAttribute(
                                    p->desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM,
                                    &fast, sizeof fast));
        }
        /* A = W stored k x n (col-major), B = X stored k x m, C = Y n x m */
        if (gemm_layout(b, &p->la, kind->in, k, n, p->batch, n * k) ||
            gemm_layout(b, &p->lb, kind->in, k, m, p->batch, m * k) ||
            gemm_layout(b, &p->lc, kind->out, n, m, p->batch, m * n))
            goto fail;
        RIDGE_CUBLAS_TRY(b, cublasLtMatmulPreferenceCreate(&pref));
        if (cublasLtMatmulPreferenceSetAttribute(
                pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                sizeof ws) != CUBLAS_STATUS_SUCCESS) {
            cublasLtMatmulPreferenceDestroy(pref);
            RIDGE_FAIL(b, "cublasLtMatmulPreferenceSetAttribute failed");
        }
        memset(&res, 0, sizeof res);
        hs = cublasLtMatmulAlgoGetHeuristic(b->lt, p->desc, p->la, p->lb,
                                            p->lc, p->lc, pref, 1, &res, &nres);
        cublasLtMatmulPreferenceDestroy(pref);
        if (hs != CUBLAS_STATUS_SUCCESS || nres < 1 ||
            res.state != CUBLAS_STATUS_SUCCESS) {
            snprintf(why, why_len,
                     "cuBLASLt has no algorithm for %s here (%s)", kind->name,
                     cublasGetStatusString(hs != CUBLAS_STATUS_SUCCESS
                                               ? hs
                                               : res.state));
            gemm_plan_free(p);
            return 1;
        }
        p->algo = res.algo;
        {
            size_t wr = 0;
            int id = -1;
            uint32_t tile = 0;
            if (cublasLtMatmulAlgoConfigGetAttribute(
                    &p->algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &wr) ==
                CUBLAS_STATUS_SUCCESS)
                p->lt_algo_id = id;
            if (cublasLtMatmulAlgoConfigGetAttribute(
                    &p->algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile,
                    &wr) == CUBLAS_STATUS_SUCCESS)
                p->lt_tile_id = (int)tile;
        }
    }
    return 0;
fail:
    gemm_plan_free(p);
    return -1;
}

static int gemm_plan_run(ridge_bench *b, gemm_plan *p, const void *w,
                         const void *x, void *y, cudaStream_t s)
{
    const ridge_gemm_kind *kd = p->kind;
    int M = (int)p->n, N = (int)p->m, K = (int)p->k;
    long long sa = p->n * p->k, sb = p->m * p->k, sc = p->m * p->n;
    int bc = (int)p->batch;
    (void)s; /* cuBLAS runs on b->stream, set once at start-up */

    switch (kd->backend) {
    case RIDGE_GEMM_SGEMM:
        if (bc > 1)
            RIDGE_CUBLAS_TRY(b, cublasSgemmStridedBatched(
                                    b->cublas, CUBLAS_OP_T, CUBLAS_OP_N, M, N,
                                    K, &p->alpha_f, (const float *)w, K, sa,
                                    (const float *)x, K, sb, &p->beta_f,
                                    (float *)y, M, sc, bc));
        else
            RIDGE_CUBLAS_TRY(b, cublasSgemm(b->cublas, CUBLAS_OP_T,
                                            CUBLAS_OP_N, M, N, K, &p->alpha_f,
                                            (const float *)w, K,
                                            (const float *)x, K, &p->beta_f,
                                            (float *)y, M));
        break;
    case RIDGE_GEMM_GEMMEX: {
        cublasComputeType_t ct = CUBLAS_COMPUTE_32F;
        const void *alpha = &p->alpha_f, *beta = &p->beta_f;
        cudaDataType_t ti = gemm_cuda_type(kd->in), to = gemm_cuda_type(kd->out);
        if (gemm_acc16(kd)) {
            ct = CUBLAS_COMPUTE_16F;
            alpha = &p->alpha_h;
            beta = &p->beta_h;
        } else if (kd->in == RIDGE_DT_TF32) {
            ct = CUBLAS_COMPUTE_32F_FAST_TF32;
        }
        if (bc > 1)
            RIDGE_CUBLAS_TRY(b, cublasGemmStridedBatchedEx(
                                    b->cublas, CUBLAS_OP_T, CUBLAS_OP_N, M, N,
                                    K, alpha, w, ti, K, sa, x, ti, K, sb, beta,
                                    y, to, M, sc, bc, ct, CUBLAS_GEMM_DEFAULT));
        else
            RIDGE_CUBLAS_TRY(b, cublasGemmEx(b->cublas, CUBLAS_OP_T,
                                             CUBLAS_OP_N, M, N, K, alpha, w,
                                             ti, K, x, ti, K, beta, y, to, M,
                                             ct, CUBLAS_GEMM_DEFAULT));
        break;
    }
    case RIDGE_GEMM_LT: {
        const void *alpha = &p->alpha_f, *beta = &p->beta_f;
        if (kd->out == RIDGE_DT_INT32) {
            alpha = &p->alpha_i;
            beta = &p->beta_i;
        }
        RIDGE_CUBLAS_TRY(b, cublasLtMatmul(b->lt, p->desc, alpha, w, p->la, x,
                                           p->lb, beta, y, p->lc, y, p->lc,
                                           &p->algo, b->workspace,
                                           b->workspace_bytes, b->stream));
        break;
    }
    }
    return 0;
fail:
    return -1;
}

/* ------------------------------------------------------------ reference */

__device__ static double gemm_load(const void *p, int dt, size_t i)
{
    switch (dt) {
    case RIDGE_DT_FP64: return ((const double *)p)[i];
    case RIDGE_DT_FP32:
    case RIDGE_DT_TF32: return (double)((const float *)p)[i];
    case RIDGE_DT_FP16: return (double)__half2float(((const __half *)p)[i]);
    case RIDGE_DT_BF16:
        return (double)__bfloat162float(((const __nv_bfloat16 *)p)[i]);
    case RIDGE_DT_FP8:
        return (double)(float)(((const __nv_fp8_e4m3 *)p)[i]);
    case RIDGE_DT_INT8: return (double)((const signed char *)p)[i];
    case RIDGE_DT_INT32: return (double)((const int *)p)[i];
    default: return 0.0;
    }
}

/* One block per sampled output: fp64 dot product of row r of X (batch bi)
 * with row c of W; also fetches the GEMM's Y[bi][r][c]. */
__global__ static void gemm_ref_kernel(const void *w, const void *x,
                                       const void *y, int in_dt, int out_dt,
                                       long long m, long long n, long long k,
                                       const long long *pos, double *ref,
                                       double *got)
{
    __shared__ double part[GEMM_REF_THREADS];
    long long bi = pos[3 * blockIdx.x], r = pos[3 * blockIdx.x + 1],
              c = pos[3 * blockIdx.x + 2];
    size_t xo = (size_t)(bi * m * k + r * k), wo = (size_t)(bi * n * k + c * k);
    double acc = 0.0;
    long long l;
    int h;
    for (l = threadIdx.x; l < k; l += blockDim.x)
        acc += gemm_load(x, in_dt, xo + (size_t)l) *
               gemm_load(w, in_dt, wo + (size_t)l);
    part[threadIdx.x] = acc;
    __syncthreads();
    for (h = GEMM_REF_THREADS / 2; h > 0; h /= 2) {
        if ((int)threadIdx.x < h)
            part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        ref[blockIdx.x] = part[0];
        got[blockIdx.x] =
            gemm_load(y, out_dt, (size_t)(bi * m * n + r * n + c));
    }
}

static int gemm_check(ridge_bench *b, gemm_plan *p, const void *w,
                      const void *x, void *y, size_t y_bytes, ridge_check *chk)
{
    long long hpos[3 * GEMM_SAMPLES];
    double href[GEMM_SAMPLES], hgot[GEMM_SAMPLES];
    long long *dpos = NULL;
    double *dref = NULL, *dgot = NULL, num = 0.0, den = 0.0;
    unsigned long long st = 0x2545f4914f6cdd1dULL;
    int i, rc = -1, finite = 1;

    for (i = 0; i < GEMM_SAMPLES; ++i) {
        long long bi, r, c;
        st = st * 6364136223846793005ULL + 1442695040888963407ULL;
        bi = (long long)((st >> 33) % (unsigned long long)p->batch);
        r = (long long)((st >> 17) % (unsigned long long)p->m);
        st = st * 6364136223846793005ULL + 1442695040888963407ULL;
        c = (long long)((st >> 21) % (unsigned long long)p->n);
        if (i < 4) { /* the corners */
            bi = i == 3 ? p->batch - 1 : 0;
            r = (i & 1) ? p->m - 1 : 0;
            c = (i & 2) ? p->n - 1 : 0;
        }
        hpos[3 * i] = bi;
        hpos[3 * i + 1] = r;
        hpos[3 * i + 2] = c;
    }
    RIDGE_CUDA_TRY(b, cudaMalloc((void **)&dpos, sizeof hpos));
    RIDGE_CUDA_TRY(b, cudaMalloc((void **)&dref, sizeof href));
    RIDGE_CUDA_TRY(b, cudaMalloc((void **)&dgot, sizeof hgot));
    RIDGE_CUDA_TRY(b, cudaMemcpyAsync(dpos, hpos, sizeof hpos,
                                      cudaMemcpyHostToDevice, b->stream));
    /* Poison the output (NaN for floats, -1 for int32) and run once. */
    RIDGE_CUDA_TRY(b, cudaMemsetAsync(y, 0xff, y_bytes, b->stream));
    if (gemm_plan_run(b, p, w, x, y, b->stream))
        goto fail;
    gemm_ref_kernel<<<GEMM_SAMPLES, GEMM_REF_THREADS, 0, b->stream>>>(
        w, x, y, (int)p->kind->in, (int)p->kind->out, p->m, p->n, p->k, dpos,
        dref, dgot);
    RIDGE_LAUNCH_TRY(b, "gemm_ref_kernel");
    RIDGE_CUDA_TRY(b, cudaMemcpyAsync(href, dref, sizeof href,
                                      cudaMemcpyDeviceToHost, b->stream));
    RIDGE_CUDA_TRY(b, cudaMemcpyAsync(hgot, dgot, sizeof hgot,
                                      cudaMemcpyDeviceToHost, b->stream));
    RIDGE_CUDA_TRY(b, cudaStreamSynchronize(b->stream));

    for (i = 0; i < GEMM_SAMPLES; ++i) {
        double d = hgot[i] - href[i];
        if (!isfinite(hgot[i]))
            finite = 0;
        num += d * d;
        den += href[i] * href[i];
    }
    memset(chk, 0, sizeof *chk);
    chk->metric = "rel_l2_error_sampled";
    chk->tolerance = gemm_tolerance(p->kind);
    chk->value = den > 0 ? sqrt(num / den) : sqrt(num);
    if (!finite)
        chk->value = INFINITY; /* written as null */
    chk->status = finite && chk->value <= chk->tolerance ? RIDGE_CHECK_PASSED
                                                         : RIDGE_CHECK_FAILED;
    rc = 0;
fail:
    cudaFree(dpos);
    cudaFree(dref);
    cudaFree(dgot);
    return rc;
}

/* ----------------------------------------------------------------- pool */

void ridge_gemm_pool_free(ridge_gemm_pool *p)
{
    cudaFree(p->w);
    cudaFree(p->x);
    cudaFree(p->y);
    memset(p, 0, sizeof *p);
}

/* Grow one buffer; 0 ok, 1 out of memory, -1 error. */
static int gemm_pool_grow(ridge_bench *b, void **buf, size_t *cap,
                          size_t need)
{
    int r;
    if (*cap >= need)
        return 0;
    cudaFree(*buf);
    *buf = NULL;
    *cap = 0;
    r = ridge_try_malloc(b, buf, need);
    if (r == -1)
        return 1;
    if (r != 0)
        return -1;
    *cap = need;
    return 0;
}

static int gemm_pool_reserve(ridge_bench *b, ridge_gemm_pool *p, size_t w,
                             size_t x, size_t y)
{
    int r;
    if (p->w_cap < w || p->x_cap < x)
        p->filled = 0;
    if ((r = gemm_pool_grow(b, &p->w, &p->w_cap, w)) != 0)
        return r;
    if ((r = gemm_pool_grow(b, &p->x, &p->x_cap, x)) != 0)
        return r;
    return gemm_pool_grow(b, &p->y, &p->y_cap, y);
}

static int gemm_pool_fill(ridge_bench *b, ridge_gemm_pool *p, ridge_dtype dt)
{
    float lo = -1.0f, hi = 1.0f;
    size_t es = ridge_dtype_size(dt);
    if (p->filled && p->filled_dt == dt)
        return 0;
    if (dt == RIDGE_DT_INT8) {
        lo = -8.0f;
        hi = 8.0f;
    }
    if (ridge_fill_random(b, p->w, p->w_cap / es, dt, lo, hi, 1234u) ||
        ridge_fill_random(b, p->x, p->x_cap / es, dt, lo, hi, 5678u))
        return -1;
    RIDGE_CUDA_TRY(b, cudaStreamSynchronize(b->stream));
    p->filled = 1;
    p->filled_dt = dt;
    return 0;
fail:
    return -1;
}

/* ------------------------------------------------------------- measure */

typedef struct {
    gemm_plan *plan;
    ridge_gemm_pool *pool;
    size_t set_w, set_x, set_y;
    int sets, cur;
} gemm_args;

static int gemm_enqueue(ridge_bench *b, void *arg, cudaStream_t s)
{
    gemm_args *a = (gemm_args *)arg;
    int i = a->cur;
    a->cur = (a->cur + 1) % a->sets;
    return gemm_plan_run(b, a->plan, (char *)a->pool->w + i * a->set_w,
                         (char *)a->pool->x + i * a->set_x,
                         (char *)a->pool->y + i * a->set_y, s);
}

int ridge_gemm_measure(ridge_bench *b, ridge_gemm_pool *pool,
                       const ridge_gemm_kind *kind, long long m, long long n,
                       long long k, long long batch, const char *id,
                       const ridge_timing *timing,
                       const ridge_gemm_extra *extra)
{
    gemm_plan plan;
    gemm_args args;
    char why[256];
    size_t ei = ridge_dtype_size(kind->in), eo = ridge_dtype_size(kind->out);
    size_t set_bytes;
    ridge_stats st;
    ridge_check chk;
    ridge_meas meas;
    ridge_json *j;
    long long flops, bytes;
    int r, inner = 1, rc = -1;

    if (batch < 1)
        batch = 1;
    memset(&plan, 0, sizeof plan);
    r = gemm_plan_init(b, &plan, kind, m, n, k, batch, why, sizeof why);
    if (r == 1) {
        ridge_bench_skip(b, id, why);
        return 0;
    }
    if (r != 0)
        return -1;

    memset(&args, 0, sizeof args);
    args.plan = &plan;
    args.pool = pool;
    args.set_w = gemm_align((size_t)(n * k * batch) * ei);
    args.set_x = gemm_align((size_t)(m * k * batch) * ei);
    args.set_y = gemm_align((size_t)(m * n * batch) * eo);
    set_bytes = args.set_w + args.set_x + args.set_y;
    args.sets = (int)((3 * b->l2_bytes + set_bytes - 1) / set_bytes);
    if (args.sets < 1)
        args.sets = 1;
    if (args.sets > GEMM_MAX_SETS)
        args.sets = GEMM_MAX_SETS;
    r = gemm_pool_reserve(b, pool, args.sets * args.set_w,
                          args.sets * args.set_x, args.sets * args.set_y);
    if (r == 1 && args.sets > 1) {
        args.sets = 1;
        r = gemm_pool_reserve(b, pool, args.set_w, args.set_x, args.set_y);
    }
    if (r == 1) {
        ridge_bench_skip(b, id, "insufficient free device memory");
        gemm_plan_free(&plan);
        return 0;
    }
    if (r != 0 || gemm_pool_fill(b, pool, kind->in))
        goto fail;

    if (ridge_time_events(b, gemm_enqueue, &args, timing, &st, &inner))
        goto fail;
    if (gemm_check(b, &plan, pool->w, pool->x, pool->y, args.set_y, &chk))
        goto fail;

    flops = 2LL * m * n * k * batch;
    bytes = batch * ((m * k + n * k) * (long long)ei + m * n * (long long)eo);
    ridge_meas_init(&meas, id, &st, inner, timing->warmup, flops, bytes);
    meas.check = chk;
    j = ridge_meas_begin(b, &meas);
    ridge_op_gemm(j, kind->in, m, n, k, batch);
    ridge_json_str(j, "variant", kind->name);
    ridge_json_str(j, "accumulate", kind->accumulate);
    ridge_json_str(j, "output_dtype", ridge_dtype_name(kind->out));
    ridge_json_str(j, "backend", gemm_backend_name(&plan));
    ridge_json_str(j, "compute_type", gemm_compute_name(kind));
    if (kind->in == RIDGE_DT_FP8)
        ridge_json_bool(j, "fast_accum", kind->fast_accum);
    if (kind->backend == RIDGE_GEMM_LT) {
        ridge_json_int(j, "lt_algo_id", plan.lt_algo_id);
        ridge_json_int(j, "lt_tile_id", plan.lt_tile_id);
    }
    ridge_json_str(j, "layout", "Y[m,n] = X[m,k] * W[n,k]^T row-major; "
                                "cuBLAS TN with M=n N=m K=k");
    ridge_json_str(j, "input_distribution",
                   kind->in == RIDGE_DT_INT8 ? "uniform integers [-8,8)"
                                             : "uniform [-1,1)");
    ridge_json_int(j, "workspace_bytes", (long long)b->workspace_bytes);
    ridge_json_int(j, "rotating_buffer_sets", args.sets);
    ridge_json_bool(j, "l2_cold", (size_t)args.sets * set_bytes > b->l2_bytes);
    if (extra && extra->shape_class)
        ridge_json_str(j, "shape_class", extra->shape_class);
    if (extra && extra->wave) {
        ridge_json_arr_begin(j, "tile_assumed");
        ridge_json_int(j, NULL, extra->tile_m);
        ridge_json_int(j, NULL, extra->tile_n);
        ridge_json_arr_end(j);
        ridge_json_int(j, "tiles", extra->tiles);
        ridge_json_int(j, "sm_count", b->sm_count);
        ridge_json_num(j, "waves", extra->waves);
    }
    ridge_json_str(j, "runtime", "eager");
    ridge_meas_end(b);
    ridge_print_result(id, &st, flops, bytes, &chk);
    rc = 0;
fail:
    gemm_plan_free(&plan);
    return rc;
}
