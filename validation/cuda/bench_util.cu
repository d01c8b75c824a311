/*
 * bench_util.cu - error reporting, JSON writer, statistics, event timing,
 * measurement records and random fills shared by all benchmark groups.
 */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

/* ------------------------------------------------------------ data types */

const char *ridge_dtype_name(ridge_dtype dt)
{
    switch (dt) {
    case RIDGE_DT_FP64: return "fp64";
    case RIDGE_DT_FP32: return "fp32";
    case RIDGE_DT_TF32: return "tf32";
    case RIDGE_DT_FP16: return "fp16";
    case RIDGE_DT_BF16: return "bf16";
    case RIDGE_DT_FP8: return "fp8";
    case RIDGE_DT_INT8: return "int8";
    case RIDGE_DT_INT32: return "int32";
    }
    return "unknown";
}

size_t ridge_dtype_size(ridge_dtype dt)
{
    switch (dt) {
    case RIDGE_DT_FP64: return 8;
    case RIDGE_DT_FP32:
    case RIDGE_DT_TF32:
    case RIDGE_DT_INT32: return 4;
    case RIDGE_DT_FP16:
    case RIDGE_DT_BF16: return 2;
    case RIDGE_DT_FP8:
    case RIDGE_DT_INT8: return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- errors */

static void ridge_note_add(ridge_note *notes, int *n, const char *group,
                           const char *id, const char *text)
{
    ridge_note *x;
    if (*n >= RIDGE_MAX_NOTES)
        return;
    x = &notes[(*n)++];
    snprintf(x->group, sizeof x->group, "%s", group ? group : "");
    snprintf(x->id, sizeof x->id, "%s", id ? id : "");
    snprintf(x->text, sizeof x->text, "%s", text ? text : "");
}

static int ridge_error_is_sticky(cudaError_t err)
{
    /* Errors after which the context cannot be used any more. */
    switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorDevicesUnavailable:
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
        return 1;
    default:
        return 0;
    }
}

void ridge_bench_cuda_error(ridge_bench *b, const char *file, int line,
                            const char *expr, cudaError_t err)
{
    char msg[RIDGE_NOTE_LEN];
    snprintf(msg, sizeof msg, "%s:%d: %s: %s (%s)", file, line, expr,
             cudaGetErrorName(err), cudaGetErrorString(err));
    fprintf(stderr, "ridge-bench-cuda: error: %s\n", msg);
    fflush(stderr);
    if (b) {
        ridge_note_add(b->errors, &b->n_errors, b->group, NULL, msg);
        if (ridge_error_is_sticky(err))
            b->fatal = 1;
    }
}

void ridge_bench_cublas_error(ridge_bench *b, const char *file, int line,
                              const char *expr, cublasStatus_t st)
{
    char msg[RIDGE_NOTE_LEN];
    snprintf(msg, sizeof msg, "%s:%d: %s: cublasStatus %d (%s)", file, line,
             expr, (int)st, cublasGetStatusString(st));
    fprintf(stderr, "ridge-bench-cuda: error: %s\n", msg);
    fflush(stderr);
    if (b)
        ridge_note_add(b->errors, &b->n_errors, b->group, NULL, msg);
}

void ridge_bench_error(ridge_bench *b, const char *file, int line,
                       const char *what)
{
    char msg[RIDGE_NOTE_LEN];
    snprintf(msg, sizeof msg, "%s:%d: %s", file, line, what);
    fprintf(stderr, "ridge-bench-cuda: error: %s\n", msg);
    fflush(stderr);
    if (b)
        ridge_note_add(b->errors, &b->n_errors, b->group, NULL, msg);
}

void ridge_bench_skip(ridge_bench *b, const char *id, const char *reason)
{
    printf("  %-52s skipped: %s\n", id, reason);
    fflush(stdout);
    ridge_note_add(b->skipped, &b->n_skipped, b->group, id, reason);
}

/* ------------------------------------------------------------------ time */

double ridge_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double ridge_bench_time_left(const ridge_bench *b)
{
    return b->budget_s - (ridge_now_s() - b->group_t0);
}

void ridge_format_bytes(char *buf, size_t len, unsigned long long bytes)
{
    const unsigned long long kib = 1024ULL, mib = kib * 1024ULL,
                             gib = mib * 1024ULL;
    if (bytes >= gib && bytes % gib == 0)
        snprintf(buf, len, "%lluGiB", bytes / gib);
    else if (bytes >= mib && bytes % mib == 0)
        snprintf(buf, len, "%lluMiB", bytes / mib);
    else if (bytes >= kib && bytes % kib == 0)
        snprintf(buf, len, "%lluKiB", bytes / kib);
    else
        snprintf(buf, len, "%lluB", bytes);
}

/* ------------------------------------------------------------------ JSON */

void ridge_json_init(ridge_json *j, FILE *f)
{
    memset(j, 0, sizeof *j);
    j->f = f;
}

void ridge_json_write_string(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    fputc('"', f);
    for (; *p; ++p) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                fprintf(f, "\\u%04x", (unsigned)*p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

/* Comma, line break and key before a value. */
static void ridge_json_pre(ridge_json *j, const char *key)
{
    if (!j->f)
        return;
    if (j->depth > 0) {
        int d = j->depth - 1;
        if (!j->first[d])
            fputc(',', j->f);
        if (j->lines[d])
            fputc('\n', j->f);
        j->first[d] = 0;
    }
    if (key) {
        ridge_json_write_string(j->f, key);
        fputc(':', j->f);
    }
}

static void ridge_json_open(ridge_json *j, const char *key, char c, int lines)
{
    ridge_json_pre(j, key);
    if (!j->f)
        return;
    fputc(c, j->f);
    if (j->depth >= RIDGE_JSON_MAX_DEPTH) {
        j->failed = 1;
        return;
    }
    j->first[j->depth] = 1;
    j->lines[j->depth] = lines;
    j->depth++;
}

static void ridge_json_close(ridge_json *j, char c)
{
    if (!j->f)
        return;
    if (j->depth > 0) {
        j->depth--;
        if (j->lines[j->depth])
            fputc('\n', j->f);
    } else {
        j->failed = 1;
    }
    fputc(c, j->f);
}

void ridge_json_obj_begin(ridge_json *j, const char *key)
{
    ridge_json_open(j, key, '{', 0);
}

void ridge_json_obj_end(ridge_json *j) { ridge_json_close(j, '}'); }

void ridge_json_arr_begin(ridge_json *j, const char *key)
{
    ridge_json_open(j, key, '[', 0);
}

void ridge_json_arr_begin_lines(ridge_json *j, const char *key)
{
    ridge_json_open(j, key, '[', 1);
}

void ridge_json_arr_end(ridge_json *j) { ridge_json_close(j, ']'); }

void ridge_json_str(ridge_json *j, const char *key, const char *val)
{
    ridge_json_pre(j, key);
    if (!j->f)
        return;
    if (val)
        ridge_json_write_string(j->f, val);
    else
        fputs("null", j->f);
}

void ridge_json_num(ridge_json *j, const char *key, double val)
{
    ridge_json_pre(j, key);
    if (!j->f)
        return;
    if (isfinite(val))
        fprintf(j->f, "%.12g", val);
    else
        fputs("null", j->f); /* JSON has no NaN or Infinity */
}

void ridge_json_int(ridge_json *j, const char *key, long long val)
{
    ridge_json_pre(j, key);
    if (j->f)
        fprintf(j->f, "%lld", val);
}

void ridge_json_bool(ridge_json *j, const char *key, int val)
{
    ridge_json_pre(j, key);
    if (j->f)
        fputs(val ? "true" : "false", j->f);
}

void ridge_json_null(ridge_json *j, const char *key)
{
    ridge_json_pre(j, key);
    if (j->f)
        fputs("null", j->f);
}

void ridge_json_flush(ridge_json *j)
{
    if (j->f) {
        if (fflush(j->f) != 0 || ferror(j->f))
            j->failed = 1;
    }
}

/* ----------------------------------------------------------------- stats */

static int ridge_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void ridge_stats_compute(double *samples, int n, ridge_stats *out)
{
    double sum = 0.0, ss = 0.0;
    int i;
    memset(out, 0, sizeof *out);
    if (n <= 0)
        return;
    qsort(samples, (size_t)n, sizeof *samples, ridge_cmp_double);
    for (i = 0; i < n; ++i)
        sum += samples[i];
    out->n = n;
    out->min = samples[0];
    out->max = samples[n - 1];
    out->median = (n % 2) ? samples[n / 2]
                          : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    out->mean = sum / n;
    for (i = 0; i < n; ++i)
        ss += (samples[i] - out->mean) * (samples[i] - out->mean);
    out->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
}

/* ---------------------------------------------------------------- timing */

ridge_timing ridge_timing_default(const ridge_bench *b)
{
    ridge_timing t;
    t.warmup = b->quick ? 1 : 3;
    t.min_reps = b->quick ? 3 : 5;
    t.max_reps = b->quick ? 5 : 30;
    t.inner = 0;
    t.max_inner = b->quick ? 20 : 1000;
    t.target_sample_s = b->quick ? 20e-6 : 200e-6;
    t.max_time_s = b->quick ? 0.05 : 1.0;
    return t;
}

int ridge_time_events(ridge_bench *b, ridge_enqueue_fn fn, void *arg,
                      const ridge_timing *t, ridge_stats *out,
                      int *inner_used)
{
    cudaEvent_t e0 = NULL, e1 = NULL;
    double *samples = NULL, t0;
    int rc = -1, inner = t->inner, n = 0, i, max_reps = t->max_reps;
    float ms = 0.0f;
    cudaStream_t s = b->stream;

    if (max_reps < 1)
        max_reps = 1;
    samples = (double *)malloc((size_t)max_reps * sizeof *samples);
    if (!samples)
        RIDGE_FAIL(b, "out of host memory for samples");
    RIDGE_CUDA_TRY(b, cudaEventCreate(&e0));
    RIDGE_CUDA_TRY(b, cudaEventCreate(&e1));

    for (i = 0; i < t->warmup; ++i)
        if (fn(b, arg, s) != 0)
            goto fail;
    RIDGE_CUDA_TRY(b, cudaStreamSynchronize(s));

    if (inner <= 0) {
        double per;
        RIDGE_CUDA_TRY(b, cudaEventRecord(e0, s));
        if (fn(b, arg, s) != 0)
            goto fail;
        RIDGE_CUDA_TRY(b, cudaEventRecord(e1, s));
        RIDGE_CUDA_TRY(b, cudaEventSynchronize(e1));
        RIDGE_CUDA_TRY(b, cudaEventElapsedTime(&ms, e0, e1));
        per = (double)ms * 1e-3;
        if (per < 1e-7)
            per = 1e-7;
        inner = (int)ceil(t->target_sample_s / per);
        if (inner > t->max_inner)
            inner = t->max_inner;
        if (inner < 1)
            inner = 1;
    }

    t0 = ridge_now_s();
    while (n < max_reps) {
        RIDGE_CUDA_TRY(b, cudaEventRecord(e0, s));
        for (i = 0; i < inner; ++i)
            if (fn(b, arg, s) != 0)
                goto fail;
        RIDGE_CUDA_TRY(b, cudaEventRecord(e1, s));
        RIDGE_CUDA_TRY(b, cudaEventSynchronize(e1));
        RIDGE_CUDA_TRY(b, cudaEventElapsedTime(&ms, e0, e1));
        samples[n++] = (double)ms * 1e-3 / inner;
        if (n >= t->min_reps && ridge_now_s() - t0 > t->max_time_s)
            break;
    }
    ridge_stats_compute(samples, n, out);
    if (inner_used)
        *inner_used = inner;
    rc = 0;
fail:
    ridge_events_destroy(e0, e1);
    free(samples);
    return rc;
}

void ridge_events_destroy(cudaEvent_t e0, cudaEvent_t e1)
{
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
}

void ridge_graph_cleanup(ridge_bench *b, int capturing, cudaGraphExec_t exec,
                         cudaGraph_t graph)
{
    if (capturing) {
        cudaGraph_t junk = NULL;
        cudaStreamEndCapture(b->stream, &junk);
        if (junk)
            cudaGraphDestroy(junk);
        (void)cudaGetLastError();
    }
    if (exec)
        cudaGraphExecDestroy(exec);
    if (graph)
        cudaGraphDestroy(graph);
}

/* ------------------------------------------------------- measurement out */

void ridge_meas_init(ridge_meas *m, const char *id, const ridge_stats *time,
                     int inner, int warmup, long long flops, long long bytes)
{
    memset(m, 0, sizeof *m);
    m->id = id;
    m->time = time;
    m->inner = inner;
    m->warmup = warmup;
    m->timer = "cuda_event";
    m->flops = flops;
    m->bytes = bytes;
}

ridge_json *ridge_meas_begin(ridge_bench *b, const ridge_meas *m)
{
    ridge_json *j = &b->json;
    const ridge_stats *st = m->time;
    const char *status = "none";

    if (m->check.status == RIDGE_CHECK_PASSED)
        status = "passed";
    else if (m->check.status == RIDGE_CHECK_FAILED)
        status = "failed";

    ridge_json_obj_begin(j, NULL);
    ridge_json_str(j, "id", m->id);
    ridge_json_str(j, "group", m->group ? m->group : b->group);
    ridge_json_obj_begin(j, "time_s");
    ridge_json_num(j, "min", st->min);
    ridge_json_num(j, "median", st->median);
    ridge_json_num(j, "max", st->max);
    ridge_json_num(j, "mean", st->mean);
    ridge_json_num(j, "stddev", st->stddev);
    ridge_json_obj_end(j);
    ridge_json_int(j, "reps", st->n);
    ridge_json_int(j, "inner_reps", m->inner);
    ridge_json_int(j, "warmup", m->warmup);
    ridge_json_str(j, "timer", m->timer ? m->timer : "cuda_event");
    ridge_json_int(j, "flops", m->flops);
    ridge_json_int(j, "bytes", m->bytes);
    ridge_json_obj_begin(j, "rate");
    ridge_json_num(j, "flop_per_s",
                   st->median > 0 ? (double)m->flops / st->median : 0.0);
    ridge_json_num(j, "bytes_per_s",
                   st->median > 0 ? (double)m->bytes / st->median : 0.0);
    ridge_json_obj_end(j);
    ridge_json_bool(j, "checked", m->check.status == RIDGE_CHECK_PASSED);
    ridge_json_obj_begin(j, "check");
    ridge_json_str(j, "status", status);
    if (m->check.status != RIDGE_CHECK_NONE) {
        ridge_json_str(j, "metric", m->check.metric);
        ridge_json_num(j, "value", m->check.value);
        ridge_json_num(j, "tolerance", m->check.tolerance);
    }
    ridge_json_obj_end(j);
    ridge_json_obj_begin(j, "config");

    b->n_measurements++;
    if (m->check.status == RIDGE_CHECK_FAILED)
        b->n_failed_checks++;
    return j;
}

void ridge_meas_end(ridge_bench *b)
{
    ridge_json_obj_end(&b->json); /* config */
    ridge_json_obj_end(&b->json); /* measurement */
    ridge_json_flush(&b->json);
}

/* Open the "op" object with the two keys every op starts with. */
static void op_begin(ridge_json *j, const char *op, const char *dtype)
{
    ridge_json_obj_begin(j, "op");
    ridge_json_str(j, "op", op);
    ridge_json_str(j, "dtype", dtype);
}

/* Close the "op" object; `count` (repetitions of the op) is written only
 * when > 1, ridge's default being one. */
static void op_end(ridge_json *j, long long count)
{
    if (count > 1)
        ridge_json_int(j, "count", count);
    ridge_json_obj_end(j);
}

void ridge_op_gemm(ridge_json *j, ridge_dtype dt, long long m, long long n,
                   long long k, long long batch)
{
    op_begin(j, "gemm", ridge_dtype_name(dt));
    ridge_json_int(j, "m", m);
    ridge_json_int(j, "n", n);
    ridge_json_int(j, "k", k);
    if (batch > 1)
        ridge_json_int(j, "batch", batch);
    /* Y = X W^T with W[n,k] row-major (the nn.Linear layout; cuBLAS sees TN): B is stored
     * transposed (docs/workloads.md, gemm `layout`). */
    ridge_json_str(j, "layout", "nt");
    ridge_json_obj_end(j);
}

void ridge_op_elementwise(ridge_json *j, ridge_dtype dt, long long elements,
                          int inputs, int outputs, double flops_per_element,
                          long long count)
{
    op_begin(j, "elementwise", ridge_dtype_name(dt));
    ridge_json_int(j, "elements", elements);
    ridge_json_int(j, "inputs", inputs);
    ridge_json_int(j, "outputs", outputs);
    ridge_json_num(j, "flops_per_element", flops_per_element);
    op_end(j, count);
}

void ridge_op_reduce(ridge_json *j, ridge_dtype dt, long long rows,
                     long long cols)
{
    op_begin(j, "reduce", ridge_dtype_name(dt));
    ridge_json_int(j, "rows", rows);
    ridge_json_int(j, "cols", cols);
    ridge_json_obj_end(j);
}

void ridge_op_copy(ridge_json *j, long long bytes, const char *kind)
{
    /* A copy moves bytes; its dtype only names it (ridge's default). */
    op_begin(j, "copy", "fp32");
    ridge_json_int(j, "bytes", bytes);
    ridge_json_str(j, "kind", kind);
    ridge_json_obj_end(j);
}

void ridge_op_custom(ridge_json *j, ridge_dtype dt, long long flops,
                     long long bytes, const char *unit, long long count)
{
    op_begin(j, "custom", ridge_dtype_name(dt));
    ridge_json_int(j, "flops", flops);
    ridge_json_int(j, "bytes", bytes);
    ridge_json_str(j, "unit", unit);
    op_end(j, count);
}

void ridge_print_result(const char *id, const ridge_stats *st, long long flops,
                        long long bytes, const ridge_check *c)
{
    const char *chk = "unchecked";
    char rate[64] = "";
    if (c->status == RIDGE_CHECK_PASSED)
        chk = "ok";
    else if (c->status == RIDGE_CHECK_FAILED)
        chk = "CHECK FAILED";
    if (st->median > 0 && flops > 0)
        snprintf(rate, sizeof rate, "%9.2f TFLOP/s",
                 (double)flops / st->median * 1e-12);
    else if (st->median > 0 && bytes > 0)
        snprintf(rate, sizeof rate, "%9.1f GB/s",
                 (double)bytes / st->median * 1e-9);
    printf("  %-52s median %10.3f us  [min %10.3f, max %10.3f] %s  %s\n", id,
           st->median * 1e6, st->min * 1e6, st->max * 1e6, rate, chk);
    fflush(stdout);
}

/* ------------------------------------------------------- device helpers */

__device__ static unsigned long long ridge_mix64(unsigned long long x)
{
    /* splitmix64 finaliser: a cheap, well-mixed hash of the index. */
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

__global__ static void ridge_fill_kernel(void *p, size_t n, int dt, float lo,
                                         float hi, unsigned seed)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (; i < n; i += stride) {
        unsigned long long h =
            ridge_mix64((unsigned long long)i ^
                        ((unsigned long long)seed << 40));
        float u = (float)(h >> 40) * (1.0f / 16777216.0f); /* [0,1) */
        float v = lo + (hi - lo) * u;
        switch (dt) {
        case RIDGE_DT_FP64: ((double *)p)[i] = (double)v; break;
        case RIDGE_DT_FP32:
        case RIDGE_DT_TF32: ((float *)p)[i] = v; break;
        case RIDGE_DT_FP16: ((__half *)p)[i] = __float2half_rn(v); break;
        case RIDGE_DT_BF16:
            ((__nv_bfloat16 *)p)[i] = __float2bfloat16_rn(v);
            break;
        case RIDGE_DT_FP8: ((__nv_fp8_e4m3 *)p)[i] = __nv_fp8_e4m3(v); break;
        case RIDGE_DT_INT8: {
            float f = floorf(v);
            f = fminf(fmaxf(f, -128.0f), 127.0f);
            ((signed char *)p)[i] = (signed char)f;
            break;
        }
        case RIDGE_DT_INT32: ((int *)p)[i] = (int)floorf(v); break;
        default: break;
        }
    }
}

int ridge_fill_random(ridge_bench *b, void *p, size_t n, ridge_dtype dt,
                      float lo, float hi, unsigned seed)
{
    size_t blocks = (n + 255) / 256;
    size_t cap = (size_t)b->sm_count * 32;
    if (n == 0)
        return 0;
    if (blocks > cap)
        blocks = cap;
    if (blocks < 1)
        blocks = 1;
    ridge_fill_kernel<<<(unsigned)blocks, 256, 0, b->stream>>>(p, n, (int)dt,
                                                              lo, hi, seed);
    RIDGE_LAUNCH_TRY(b, "ridge_fill_kernel");
    return 0;
fail:
    return -1;
}

int ridge_try_malloc(ridge_bench *b, void **p, size_t bytes)
{
    cudaError_t err;
    *p = NULL;
    err = cudaMalloc(p, bytes);
    if (err == cudaSuccess)
        return 0;
    *p = NULL;
    (void)cudaGetLastError(); /* clear the (non-sticky) error */
    if (err == cudaErrorMemoryAllocation)
        return -1;
    ridge_bench_cuda_error(b, __FILE__, __LINE__, "cudaMalloc(p, bytes)", err);
    return -2;
}

int ridge_blocks_per_sm(const void *kernel, int threads)
{
    int n = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, 0) !=
        cudaSuccess) {
        (void)cudaGetLastError();
        return 1;
    }
    return n < 1 ? 1 : n;
}
