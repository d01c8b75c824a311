/*
 * bench_small.cu - tiny elementwise and reduction kernels (4 KiB .. 1 MiB
 * per array): the latency floor every real network pays per kernel.
 *
 *   kernel   work               bytes   FLOPs
 *   scale    y[i] = a * x[i]    8 n     n
 *   add      z[i] = x[i] + y[i] 12 n    n
 *   reduce   s = sum x[i]       4 n     n     (one kernel: block partials,
 *                                              the last block finishes)
 *
 * Each at each size runs two ways, timed per kernel with CUDA events:
 *   eager  back-to-back launches on one stream
 *   graph  a CUDA graph of SMALL_GRAPH_NODES launches, replayed back to back
 * Results are checked exactly (inputs are multiples of 1/8).
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#define SMALL_THREADS 256
#define SMALL_GRAPH_NODES 100

__global__ static void small_init(float *x, float *y, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (; i < n; i += stride) {
        x[i] = (float)(i % 16) * 0.125f;
        y[i] = (float)((i * 5) % 16) * 0.25f;
    }
}

__global__ static void small_scale(const float *__restrict__ x,
                                   float *__restrict__ y, float a, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (; i < n; i += stride)
        y[i] = a * x[i];
}

__global__ static void small_add(const float *__restrict__ x,
                                 const float *__restrict__ y,
                                 float *__restrict__ z, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (; i < n; i += stride)
        z[i] = x[i] + y[i];
}

__device__ static float small_block_sum(float v)
{
    __shared__ float ws[32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, off;
    int nw = (blockDim.x + 31) / 32;
    for (off = 16; off > 0; off /= 2)
        v += __shfl_down_sync(0xffffffffu, v, off);
    __syncthreads(); /* ws may still be read from a previous call */
    if (lane == 0)
        ws[warp] = v;
    __syncthreads();
    v = 0.0f;
    if (warp == 0) {
        v = lane < nw ? ws[lane] : 0.0f;
        for (off = 16; off > 0; off /= 2)
            v += __shfl_down_sync(0xffffffffu, v, off);
    }
    return v; /* valid in thread 0 */
}

/* Single-kernel sum: every block writes a partial; the last block to finish
 * (ticket counter) adds the partials and resets the counter. */
__global__ static void small_reduce(const float *__restrict__ x, size_t n,
                                    float *partials, unsigned *counter,
                                    float *out)
{
    __shared__ int is_last;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    float s = 0.0f;
    unsigned t;
    for (; i < n; i += stride)
        s += x[i];
    s = small_block_sum(s);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = s;
        __threadfence();
        t = atomicAdd(counter, 1u);
        is_last = (t == gridDim.x - 1);
    }
    __syncthreads();
    if (is_last) {
        float v = 0.0f;
        unsigned k;
        for (k = threadIdx.x; k < gridDim.x; k += blockDim.x)
            v += __ldcg(&partials[k]);
        v = small_block_sum(v);
        if (threadIdx.x == 0) {
            *out = v;
            *counter = 0u;
        }
    }
}

/* mode 0: y == a*x; mode 1: z == x + y */
__global__ static void small_check(const float *x, const float *y,
                                   const float *z, float a, int mode, size_t n,
                                   unsigned long long *bad)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long nb = 0;
    for (; i < n; i += stride) {
        float want = mode == 0 ? a * x[i] : x[i] + y[i];
        float got = mode == 0 ? y[i] : z[i];
        if (got != want)
            ++nb;
    }
    if (nb)
        atomicAdd(bad, nb);
}

typedef enum { SMALL_SCALE, SMALL_ADD, SMALL_REDUCE } small_kind;
static const char *const small_names[] = {"scale", "add", "reduce"};

typedef struct {
    small_kind kind;
    float *x, *y, *z, *partials, *out;
    unsigned *counter;
    size_t n;
    unsigned grid;
    cudaGraphExec_t exec; /* set: replay the graph instead */
} small_args;

static int small_launch(ridge_bench *b, const small_args *a, cudaStream_t s)
{
    switch (a->kind) {
    case SMALL_SCALE:
        small_scale<<<a->grid, SMALL_THREADS, 0, s>>>(a->x, a->y, 1.5f, a->n);
        break;
    case SMALL_ADD:
        small_add<<<a->grid, SMALL_THREADS, 0, s>>>(a->x, a->y, a->z, a->n);
        break;
    case SMALL_REDUCE:
        small_reduce<<<a->grid, SMALL_THREADS, 0, s>>>(a->x, a->n, a->partials,
                                                       a->counter, a->out);
        break;
    }
    RIDGE_LAUNCH_TRY(b, "small kernel");
    return 0;
fail:
    return -1;
}

static int small_enqueue(ridge_bench *b, void *arg, cudaStream_t s)
{
    small_args *a = (small_args *)arg;
    if (a->exec) {
        RIDGE_CUDA_TRY(b, cudaGraphLaunch(a->exec, s));
        return 0;
    }
    return small_launch(b, a, s);
fail:
    return -1;
}

static void small_scale_stats(ridge_stats *st, double f)
{
    st->min *= f;
    st->median *= f;
    st->max *= f;
    st->mean *= f;
    st->stddev *= f;
}

int ridge_group_small(ridge_bench *b)
{
    static const size_t full[] = {4096, 16384, 65536, 262144, 1048576};
    static const size_t quick[] = {4096, 1048576};
    const size_t *sizes = b->quick ? quick : full;
    int nsizes = b->quick ? 2 : 5, si, k, graph, rc = -1;
    size_t maxn = sizes[nsizes - 1] / sizeof(float);
    float *x = NULL, *y = NULL, *z = NULL, *partials = NULL, *out = NULL;
    unsigned *counter = NULL;
    unsigned long long *d_bad = NULL;
    int max_grid = b->sm_count * 8;
    cudaGraph_t gr = NULL;
    cudaGraphExec_t exec = NULL;
    int capturing = 0;

    RIDGE_CUDA_TRY(b, cudaMalloc((void **)&x, maxn * sizeof(float)));
    RIDGE_CUDA_TRY(b, cudaMalloc((void **)&y, maxn * sizeof(float)));
    RIDGE_CUDA_TRY(b, cudaMalloc((void **)&z, maxn * sizeof(float)));
    RIDGE_CUDA_TRY(b, cudaMalloc((void **)&partials,
                                 (size_t)max_grid * sizeof(float)));
    RIDGE_CUDA_TRY(b, cudaMalloc((void **)&out, sizeof(float)));
    RIDGE_CUDA_TRY(b, cudaMalloc((void **)&counter, sizeof(unsigned)));
    RIDGE_CUDA_TRY(b, cudaMalloc((void **)&d_bad, sizeof *d_bad));
    RIDGE_CUDA_TRY(b, cudaMemsetAsync(counter, 0, sizeof(unsigned), b->stream));
    small_init<<<(unsigned)max_grid, SMALL_THREADS, 0, b->stream>>>(x, y,
                                                                    maxn);
    RIDGE_LAUNCH_TRY(b, "small_init");
    RIDGE_CUDA_TRY(b, cudaStreamSynchronize(b->stream));

    for (si = 0; si < nsizes; ++si) {
        size_t bytes = sizes[si], n = bytes / sizeof(float);
        char sz[32];
        ridge_format_bytes(sz, sizeof sz, bytes);
        for (k = 0; k < 3; ++k) {
            for (graph = 0; graph < 2; ++graph) {
                small_args a;
                ridge_timing t = ridge_timing_default(b);
                ridge_stats st;
                ridge_check chk;
                ridge_meas m;
                ridge_json *j;
                int inner = 1, i;
                char id[160];
                long long flops = (long long)n, nbytes;
                size_t want_grid = (n + SMALL_THREADS - 1) / SMALL_THREADS;

                snprintf(id, sizeof id, "small/%s/%s/%s", small_names[k],
                         graph ? "graph" : "eager", sz);
                if (ridge_bench_time_left(b) <= 0) {
                    ridge_bench_skip(b, id, "group time budget exhausted");
                    continue;
                }
                memset(&a, 0, sizeof a);
                a.kind = (small_kind)k;
                a.x = x;
                a.y = y;
                a.z = z;
                a.partials = partials;
                a.out = out;
                a.counter = counter;
                a.n = n;
                a.grid = (unsigned)(want_grid < (size_t)max_grid
                                        ? want_grid
                                        : (size_t)max_grid);
                if (graph) {
                    RIDGE_CUDA_TRY(b, cudaStreamBeginCapture(
                                          b->stream,
                                          cudaStreamCaptureModeThreadLocal));
                    capturing = 1;
                    for (i = 0; i < SMALL_GRAPH_NODES; ++i)
                        if (small_launch(b, &a, b->stream))
                            goto fail;
                    capturing = 0;
                    RIDGE_CUDA_TRY(b, cudaStreamEndCapture(b->stream, &gr));
                    RIDGE_CUDA_TRY(b, cudaGraphInstantiate(&exec, gr, 0));
                    RIDGE_CUDA_TRY(b, cudaGraphUpload(exec, b->stream));
                    a.exec = exec;
                }
                t.max_time_s = b->quick ? 0.02 : 0.15;
                t.max_reps = b->quick ? 3 : 20;
                if (graph) {
                    t.max_inner = b->quick ? 2 : 20;
                    t.target_sample_s = b->quick ? 20e-6 : 300e-6;
                }
                if (ridge_time_events(b, small_enqueue, &a, &t, &st, &inner))
                    goto fail;
                if (graph)
                    small_scale_stats(&st, 1.0 / SMALL_GRAPH_NODES);

                /* check the last call's result */
                memset(&chk, 0, sizeof chk);
                chk.tolerance = 0.0;
                if (a.kind == SMALL_REDUCE) {
                    float got = 0.0f;
                    double want = (double)(n / 16) * 15.0;
                    RIDGE_CUDA_TRY(b, cudaMemcpy(&got, out, sizeof got,
                                                 cudaMemcpyDeviceToHost));
                    chk.metric = "abs_error_of_sum";
                    chk.value = (double)got - want;
                    if (chk.value < 0)
                        chk.value = -chk.value;
                } else {
                    unsigned long long bad = 0;
                    RIDGE_CUDA_TRY(b, cudaMemsetAsync(d_bad, 0, sizeof *d_bad,
                                                      b->stream));
                    small_check<<<(unsigned)max_grid, SMALL_THREADS, 0,
                                  b->stream>>>(x, y, z, 1.5f,
                                               a.kind == SMALL_SCALE ? 0 : 1,
                                               n, d_bad);
                    RIDGE_LAUNCH_TRY(b, "small_check");
                    RIDGE_CUDA_TRY(b, cudaMemcpy(&bad, d_bad, sizeof bad,
                                                 cudaMemcpyDeviceToHost));
                    chk.metric = "mismatches";
                    chk.value = (double)bad;
                }
                chk.status = chk.value == 0.0 ? RIDGE_CHECK_PASSED
                                              : RIDGE_CHECK_FAILED;

                nbytes = (long long)bytes *
                         (a.kind == SMALL_SCALE ? 2 : a.kind == SMALL_ADD ? 3
                                                                          : 1);
                ridge_meas_init(&m, id, &st, inner, t.warmup, flops, nbytes);
                m.check = chk;
                j = ridge_meas_begin(b, &m);
                if (a.kind == SMALL_REDUCE)
                    ridge_op_reduce(j, RIDGE_DT_FP32, 1, (long long)n);
                else
                    ridge_op_elementwise(j, RIDGE_DT_FP32, (long long)n,
                                         a.kind == SMALL_ADD ? 2 : 1, 1, 1.0,
                                         1);
                ridge_json_str(j, "kernel", small_names[k]);
                ridge_json_int(j, "array_bytes", (long long)bytes);
                ridge_json_int(j, "grid", a.grid);
                ridge_json_int(j, "block", SMALL_THREADS);
                ridge_json_int(j, "launches", 1);
                if (graph)
                    ridge_json_int(j, "graph_nodes", SMALL_GRAPH_NODES);
                ridge_json_str(j, "runtime", graph ? "graph" : "eager");
                ridge_meas_end(b);
                ridge_print_result(id, &st, flops, nbytes, &chk);

                if (exec) {
                    cudaGraphExecDestroy(exec);
                    exec = NULL;
                }
                if (gr) {
                    cudaGraphDestroy(gr);
                    gr = NULL;
                }
            }
        }
    }
    rc = 0;
fail:
    ridge_graph_cleanup(b, capturing, exec, gr);
    cudaFree(x);
    cudaFree(y);
    cudaFree(z);
    cudaFree(partials);
    cudaFree(out);
    cudaFree(counter);
    cudaFree(d_bad);
    return rc;
}
