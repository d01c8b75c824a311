/*
 * bench_bandwidth.cu - memory bandwidth from far inside L2 to far beyond it.
 *
 * Four STREAM-style kernels on fp32 arrays (16-byte vector accesses,
 * grid-stride loops unrolled four deep so each thread keeps four loads in
 * flight) plus cudaMemcpy device-to-device, at array sizes 1 MiB .. 4 GiB:
 *
 *   kernel   work                 bytes counted      FLOPs
 *   read     s += a[i]            4 n                n       (block partials)
 *   write    c[i] = v             4 n                0
 *   copy     c[i] = a[i]          8 n                0
 *   triad    a[i] = b[i] + s*c[i] 12 n               2 n     (one fma)
 *   memcpy   cudaMemcpyAsync D2D  2 * size           0
 *
 * Arrays are re-initialised for every size, every kernel is checked exactly
 * (all values are multiples of 1/16, so sums and fmas are exact).
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#define BW_THREADS 256

/* ---------------------------------------------------------------- kernels */

__global__ static void bw_init(float *a, float *b, float *c, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (; i < n; i += stride) {
        a[i] = (float)(i % 16) * 0.125f;
        b[i] = (float)((i * 7) % 16) * 0.25f;
        c[i] = (float)((i * 3) % 16) * 0.0625f;
    }
}

__device__ static double bw_block_sum(double v)
{
    __shared__ double warp_sums[32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int nwarps = (blockDim.x + 31) / 32, off;
    for (off = 16; off > 0; off /= 2)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    v = 0.0;
    if (warp == 0) {
        v = lane < nwarps ? warp_sums[lane] : 0.0;
        for (off = 16; off > 0; off /= 2)
            v += __shfl_down_sync(0xffffffffu, v, off);
    }
    return v; /* valid in thread 0 */
}

__global__ static void bw_read(const float4 *__restrict__ a, size_t n4,
                               double *__restrict__ partials)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    double s;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 v0 = a[i], v1 = a[i + stride], v2 = a[i + 2 * stride],
               v3 = a[i + 3 * stride];
        s0 += (v0.x + v0.y) + (v0.z + v0.w);
        s1 += (v1.x + v1.y) + (v1.z + v1.w);
        s2 += (v2.x + v2.y) + (v2.z + v2.w);
        s3 += (v3.x + v3.y) + (v3.z + v3.w);
    }
    for (; i < n4; i += stride) {
        float4 v = a[i];
        s0 += (v.x + v.y) + (v.z + v.w);
    }
    s = bw_block_sum((double)s0 + (double)s1 + (double)s2 + (double)s3);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = s;
}

__global__ static void bw_write(float4 *__restrict__ c, size_t n4, float v)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    float4 w = make_float4(v, v, v, v);
    for (; i < n4; i += stride)
        c[i] = w;
}

__global__ static void bw_copy(const float4 *__restrict__ a,
                               float4 *__restrict__ c, size_t n4)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 v0 = a[i], v1 = a[i + stride], v2 = a[i + 2 * stride],
               v3 = a[i + 3 * stride];
        c[i] = v0;
        c[i + stride] = v1;
        c[i + 2 * stride] = v2;
        c[i + 3 * stride] = v3;
    }
    for (; i < n4; i += stride)
        c[i] = a[i];
}

__device__ static float4 bw_fma4(float s, float4 c, float4 b)
{
    return make_float4(__fmaf_rn(s, c.x, b.x), __fmaf_rn(s, c.y, b.y),
                       __fmaf_rn(s, c.z, b.z), __fmaf_rn(s, c.w, b.w));
}

__global__ static void bw_triad(float4 *__restrict__ a,
                                const float4 *__restrict__ b,
                                const float4 *__restrict__ c, float s,
                                size_t n4)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 b0 = b[i], b1 = b[i + stride], b2 = b[i + 2 * stride],
               b3 = b[i + 3 * stride];
        float4 c0 = c[i], c1 = c[i + stride], c2 = c[i + 2 * stride],
               c3 = c[i + 3 * stride];
        a[i] = bw_fma4(s, c0, b0);
        a[i + stride] = bw_fma4(s, c1, b1);
        a[i + 2 * stride] = bw_fma4(s, c2, b2);
        a[i + 3 * stride] = bw_fma4(s, c3, b3);
    }
    for (; i < n4; i += stride)
        a[i] = bw_fma4(s, c[i], b[i]);
}

/* mode 0: x == v; mode 1: x == y; mode 2: x == fma(s, z, y). */
__global__ static void bw_check(const float *x, const float *y, const float *z,
                                float s, float v, int mode, size_t n,
                                unsigned long long *bad)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long nbad = 0;
    for (; i < n; i += stride) {
        float want = mode == 0 ? v : mode == 1 ? y[i] : __fmaf_rn(s, z[i], y[i]);
        if (x[i] != want)
            ++nbad;
    }
    if (nbad)
        atomicAdd(bad, nbad);
}

/* ---------------------------------------------------------------- harness */

typedef enum { BW_READ, BW_WRITE, BW_COPY, BW_TRIAD, BW_MEMCPY } bw_kind;

static const char *const bw_names[] = {"read", "write", "copy", "triad",
                                       "memcpy_d2d"};

typedef struct {
    bw_kind kind;
    float *a, *b, *c;
    double *partials;
    size_t n;
    unsigned grid;
    float scalar, value;
} bw_args;

static int bw_enqueue(ridge_bench *b, void *arg, cudaStream_t s)
{
    bw_args *x = (bw_args *)arg;
    size_t n4 = x->n / 4;
    switch (x->kind) {
    case BW_READ:
        bw_read<<<x->grid, BW_THREADS, 0, s>>>((const float4 *)x->a, n4,
                                               x->partials);
        break;
    case BW_WRITE:
        bw_write<<<x->grid, BW_THREADS, 0, s>>>((float4 *)x->c, n4, x->value);
        break;
    case BW_COPY:
        bw_copy<<<x->grid, BW_THREADS, 0, s>>>((const float4 *)x->a,
                                               (float4 *)x->c, n4);
        break;
    case BW_TRIAD:
        bw_triad<<<x->grid, BW_THREADS, 0, s>>>(
            (float4 *)x->a, (const float4 *)x->b, (const float4 *)x->c,
            x->scalar, n4);
        break;
    case BW_MEMCPY:
        RIDGE_CUDA_TRY(b, cudaMemcpyAsync(x->c, x->b, x->n * sizeof(float),
                                          cudaMemcpyDeviceToDevice, s));
        return 0;
    }
    RIDGE_LAUNCH_TRY(b, "bandwidth kernel");
    return 0;
fail:
    return -1;
}

static unsigned bw_grid(const ridge_bench *b, const void *kernel, size_t n4)
{
    size_t want = (n4 + BW_THREADS - 1) / BW_THREADS;
    size_t cap = (size_t)b->sm_count *
                 (size_t)ridge_blocks_per_sm(kernel, BW_THREADS);
    if (want > cap)
        want = cap;
    return (unsigned)(want < 1 ? 1 : want);
}

/* Run a check kernel; *bad gets the number of wrong elements. */
static int bw_run_check(ridge_bench *b, const float *x, const float *y,
                        const float *z, float s, float v, int mode, size_t n,
                        unsigned long long *d_bad, unsigned long long *bad)
{
    unsigned grid = (unsigned)(b->sm_count * 8);
    RIDGE_CUDA_TRY(b, cudaMemsetAsync(d_bad, 0, sizeof *d_bad, b->stream));
    bw_check<<<grid, BW_THREADS, 0, b->stream>>>(x, y, z, s, v, mode, n,
                                                 d_bad);
    RIDGE_LAUNCH_TRY(b, "bw_check");
    RIDGE_CUDA_TRY(b, cudaMemcpyAsync(bad, d_bad, sizeof *bad,
                                      cudaMemcpyDeviceToHost, b->stream));
    RIDGE_CUDA_TRY(b, cudaStreamSynchronize(b->stream));
    return 0;
fail:
    return -1;
}

static void bw_emit(ridge_bench *b, const char *id, const bw_args *x,
                    const ridge_stats *st, int inner, int warmup,
                    const ridge_check *chk)
{
    long long n = (long long)x->n, bytes = 0, flops = 0;
    ridge_meas m;
    ridge_json *j;
    switch (x->kind) {
    case BW_READ: bytes = 4 * n; flops = n; break;
    case BW_WRITE: bytes = 4 * n; break;
    case BW_COPY: bytes = 8 * n; break;
    case BW_TRIAD: bytes = 12 * n; flops = 2 * n; break;
    case BW_MEMCPY: bytes = 8 * n; break;
    }
    ridge_meas_init(&m, id, st, inner, warmup, flops, bytes);
    m.check = *chk;
    j = ridge_meas_begin(b, &m);
    switch (x->kind) {
    case BW_READ: ridge_op_reduce(j, RIDGE_DT_FP32, 1, n); break;
    case BW_WRITE:
        ridge_op_elementwise(j, RIDGE_DT_FP32, n, 0, 1, 0.0, 1);
        break;
    case BW_COPY:
        ridge_op_elementwise(j, RIDGE_DT_FP32, n, 1, 1, 0.0, 1);
        break;
    case BW_TRIAD:
        ridge_op_elementwise(j, RIDGE_DT_FP32, n, 2, 1, 2.0, 1);
        break;
    case BW_MEMCPY: ridge_op_copy(j, 4 * n, "d2d"); break;
    }
    ridge_json_str(j, "kernel", bw_names[x->kind]);
    ridge_json_int(j, "array_bytes", 4 * n);
    ridge_json_int(j, "elements", n);
    ridge_json_int(j, "l2_bytes", (long long)b->l2_bytes);
    ridge_json_bool(j, "fits_in_l2",
                    (size_t)(x->kind == BW_READ || x->kind == BW_WRITE ? 4 * n
                             : x->kind == BW_TRIAD ? 12 * n
                                                   : 8 * n) <= b->l2_bytes);
    if (x->kind != BW_MEMCPY) {
        ridge_json_int(j, "grid", x->grid);
        ridge_json_int(j, "block", BW_THREADS);
        ridge_json_int(j, "vector_bytes", 16);
    }
    ridge_json_str(j, "runtime", "eager");
    ridge_meas_end(b);
    ridge_print_result(id, st, flops, bytes, chk);
}

int ridge_group_bandwidth(ridge_bench *b)
{
    static const size_t mib = (size_t)1 << 20;
    size_t sizes[16];
    int nsizes = 0, si, rc = -1;
    size_t max_bytes, free_b = 0, total_b = 0;
    float *a = NULL, *bb = NULL, *c = NULL;
    double *partials = NULL, *h_partials = NULL;
    unsigned long long *d_bad = NULL;
    size_t max_grid;

    if (b->quick) {
        sizes[nsizes++] = 1 * mib;
        sizes[nsizes++] = 32 * mib;
    } else {
        size_t s;
        for (s = mib; s <= ((size_t)4 << 30); s *= 2)
            sizes[nsizes++] = s;
    }

    /* Three arrays of the largest size must fit, with room to spare. */
    RIDGE_CUDA_TRY(b, cudaMemGetInfo(&free_b, &total_b));
    max_bytes = sizes[nsizes - 1];
    while (max_bytes > mib && 3 * max_bytes + 512 * mib > free_b)
        max_bytes /= 2;
    if (ridge_try_malloc(b, (void **)&a, max_bytes) ||
        ridge_try_malloc(b, (void **)&bb, max_bytes) ||
        ridge_try_malloc(b, (void **)&c, max_bytes))
        RIDGE_FAIL(b, "cannot allocate bandwidth arrays");
    max_grid = (size_t)b->sm_count * 64; /* >= any grid bw_grid returns */
    RIDGE_CUDA_TRY(b, cudaMalloc((void **)&partials,
                                 max_grid * sizeof *partials));
    RIDGE_CUDA_TRY(b, cudaMalloc((void **)&d_bad, sizeof *d_bad));
    h_partials = (double *)malloc(max_grid * sizeof *h_partials);
    if (!h_partials)
        RIDGE_FAIL(b, "out of host memory");

    for (si = 0; si < nsizes; ++si) {
        size_t bytes = sizes[si], n = bytes / sizeof(float);
        char sz[32], id[160];
        int k;
        ridge_format_bytes(sz, sizeof sz, bytes);
        if (bytes > max_bytes) {
            for (k = 0; k <= BW_MEMCPY; ++k) {
                snprintf(id, sizeof id, "bandwidth/%s/%s", bw_names[k], sz);
                ridge_bench_skip(b, id, "insufficient free device memory");
            }
            continue;
        }
        if (ridge_bench_time_left(b) <= 0) {
            for (k = 0; k <= BW_MEMCPY; ++k) {
                snprintf(id, sizeof id, "bandwidth/%s/%s", bw_names[k], sz);
                ridge_bench_skip(b, id, "group time budget exhausted");
            }
            continue;
        }
        bw_init<<<(unsigned)(b->sm_count * 8), BW_THREADS, 0, b->stream>>>(
            a, bb, c, n);
        RIDGE_LAUNCH_TRY(b, "bw_init");
        RIDGE_CUDA_TRY(b, cudaStreamSynchronize(b->stream));

        for (k = 0; k <= BW_MEMCPY; ++k) {
            bw_args x;
            ridge_timing t = ridge_timing_default(b);
            ridge_stats st;
            ridge_check chk;
            unsigned long long bad = 0;
            int inner = 1;
            const void *kern = NULL;

            memset(&x, 0, sizeof x);
            x.kind = (bw_kind)k;
            x.a = a;
            x.b = bb;
            x.c = c;
            x.partials = partials;
            x.n = n;
            x.scalar = 0.4375f;
            x.value = 1.5f;
            switch (x.kind) {
            case BW_READ: kern = (const void *)bw_read; break;
            case BW_WRITE: kern = (const void *)bw_write; break;
            case BW_COPY: kern = (const void *)bw_copy; break;
            case BW_TRIAD: kern = (const void *)bw_triad; break;
            case BW_MEMCPY: kern = NULL; break;
            }
            x.grid = kern ? bw_grid(b, kern, n / 4) : 0;
            t.max_time_s = b->quick ? 0.05 : 0.25;
            snprintf(id, sizeof id, "bandwidth/%s/%s", bw_names[k], sz);

            if (ridge_time_events(b, bw_enqueue, &x, &t, &st, &inner) != 0)
                goto fail;

            /* check the result of the last timed call */
            memset(&chk, 0, sizeof chk);
            chk.metric = "mismatches";
            chk.tolerance = 0.0;
            if (x.kind == BW_READ) {
                double sum = 0.0, want = (double)(n / 16) * 15.0;
                unsigned g;
                RIDGE_CUDA_TRY(b, cudaMemcpy(h_partials, partials,
                                             x.grid * sizeof *h_partials,
                                             cudaMemcpyDeviceToHost));
                for (g = 0; g < x.grid; ++g)
                    sum += h_partials[g];
                chk.metric = "abs_error_of_sum";
                chk.value = sum - want;
                if (chk.value < 0)
                    chk.value = -chk.value;
                chk.status =
                    chk.value == 0.0 ? RIDGE_CHECK_PASSED : RIDGE_CHECK_FAILED;
            } else {
                int mode = x.kind == BW_WRITE ? 0 : x.kind == BW_TRIAD ? 2 : 1;
                const float *dst = x.kind == BW_TRIAD ? a : c;
                const float *src = x.kind == BW_COPY ? a : bb;
                if (bw_run_check(b, dst, src, c, x.scalar, x.value, mode, n,
                                 d_bad, &bad) != 0)
                    goto fail;
                chk.value = (double)bad;
                chk.status = bad == 0 ? RIDGE_CHECK_PASSED : RIDGE_CHECK_FAILED;
            }
            bw_emit(b, id, &x, &st, inner, t.warmup, &chk);
        }
    }
    rc = 0;
fail:
    cudaFree(a);
    cudaFree(bb);
    cudaFree(c);
    cudaFree(partials);
    cudaFree(d_bad);
    free(h_partials);
    return rc;
}
