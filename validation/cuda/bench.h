/*
 * bench.h - shared pieces of ridge's CUDA microbenchmarks (ridge-bench-cuda).
 *
 * Habits (STREAM / BabelStream / ERT): every benchmark declares the FLOPs and
 * bytes it does, discards a warm-up, times many repetitions with CUDA events,
 * reports min/median/max, checks its result, and stores each result with the
 * configuration that produced it.  Every CUDA/cuBLAS call goes through a TRY
 * macro that prints file, line and expression and jumps to the function's one
 * cleanup path (`fail:`); nothing here calls exit() or abort().
 *
 * The JSON format written here is documented in docs/validation.md
 * ("Measurement files").  Each measurement is written on a line of its own so
 * that a file cut short by a time-out can still be salvaged line by line.
 */
#ifndef RIDGE_BENCH_H
#define RIDGE_BENCH_H

#include <stddef.h>
#include <stdio.h>

#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cublasLt.h>

#define RIDGE_BENCH_VERSION "1.0.0"
#define RIDGE_SCHEMA_VERSION 1

/* ---------------------------------------------------------------- errors */

struct ridge_bench;

/* Record a failed CUDA runtime call (prints "file:line: expr: error"). */
void ridge_bench_cuda_error(struct ridge_bench *b, const char *file, int line,
                            const char *expr, cudaError_t err);
/* Record a failed cuBLAS / cuBLASLt call. */
void ridge_bench_cublas_error(struct ridge_bench *b, const char *file, int line,
                              const char *expr, cublasStatus_t st);
/* Record any other failure (bad allocation size, failed check of inputs...). */
void ridge_bench_error(struct ridge_bench *b, const char *file, int line,
                       const char *what);

/* The one body of the TRY macros below: evaluate `expr` once and, when its
 * status is not `ok`, pass `text` (the expression as the caller wrote it,
 * stringified by the public macro so that it is never macro-expanded) and the
 * status to `report`, then `goto fail`. */
#define RIDGE_TRY_STATUS_(b, type, ok, report, expr, text)                    \
    do {                                                                      \
        type ridge_status_ = (expr);                                          \
        if (ridge_status_ != (ok)) {                                          \
            report((b), __FILE__, __LINE__, (text), ridge_status_);           \
            goto fail;                                                        \
        }                                                                     \
    } while (0)

/* Wrap every CUDA runtime call; on failure report and `goto fail`. */
#define RIDGE_CUDA_TRY(b, expr)                                               \
    RIDGE_TRY_STATUS_(b, cudaError_t, cudaSuccess, ridge_bench_cuda_error,    \
                      expr, #expr)

/* Wrap every cuBLAS / cuBLASLt call; on failure report and `goto fail`. */
#define RIDGE_CUBLAS_TRY(b, expr)                                             \
    RIDGE_TRY_STATUS_(b, cublasStatus_t, CUBLAS_STATUS_SUCCESS,               \
                      ridge_bench_cublas_error, expr, #expr)

/* After a <<<...>>> launch: catch configuration errors at once. */
#define RIDGE_LAUNCH_TRY(b, what)                                             \
    RIDGE_TRY_STATUS_(b, cudaError_t, cudaSuccess, ridge_bench_cuda_error,    \
                      cudaGetLastError(), "launch " what)

/* Non-CUDA failure inside a function with a `fail:` label. */
#define RIDGE_FAIL(b, what)                                                   \
    do {                                                                      \
        ridge_bench_error((b), __FILE__, __LINE__, (what));                   \
        goto fail;                                                            \
    } while (0)

/* ------------------------------------------------------------ data types */

typedef enum {
    RIDGE_DT_FP64 = 0,
    RIDGE_DT_FP32,
    RIDGE_DT_TF32,  /* stored as fp32, multiplied on tensor cores as tf32 */
    RIDGE_DT_FP16,
    RIDGE_DT_BF16,
    RIDGE_DT_FP8,   /* e4m3 */
    RIDGE_DT_INT8,
    RIDGE_DT_INT32
} ridge_dtype;

/* ridge's operator-list name of a dtype ("fp32", "bf16", ...). */
const char *ridge_dtype_name(ridge_dtype dt);
/* Storage size of one element in bytes. */
size_t ridge_dtype_size(ridge_dtype dt);

/* ------------------------------------------------------------------ JSON */

/* A streaming JSON writer on a FILE*.  Keys are NULL inside arrays and at the
 * top level.  Non-finite doubles are written as null, never NaN/Infinity.
 * Nothing is buffered except by stdio; ridge_json_flush() after each record. */
#define RIDGE_JSON_MAX_DEPTH 32
typedef struct {
    FILE *f;
    int depth;
    int first[RIDGE_JSON_MAX_DEPTH]; /* 1 while the container is empty */
    int lines[RIDGE_JSON_MAX_DEPTH]; /* 1: one element per line */
    int failed;                      /* depth overflow or write error */
} ridge_json;

void ridge_json_init(ridge_json *j, FILE *f);
void ridge_json_obj_begin(ridge_json *j, const char *key);
void ridge_json_obj_end(ridge_json *j);
void ridge_json_arr_begin(ridge_json *j, const char *key);
/* An array written with each element on a line of its own. */
void ridge_json_arr_begin_lines(ridge_json *j, const char *key);
void ridge_json_arr_end(ridge_json *j);
void ridge_json_str(ridge_json *j, const char *key, const char *val);
void ridge_json_num(ridge_json *j, const char *key, double val);
void ridge_json_int(ridge_json *j, const char *key, long long val);
void ridge_json_bool(ridge_json *j, const char *key, int val);
void ridge_json_null(ridge_json *j, const char *key);
void ridge_json_flush(ridge_json *j);
/* Write `s` as a JSON string literal with escaping (quotes included). */
void ridge_json_write_string(FILE *f, const char *s);

/* ----------------------------------------------------------------- stats */

typedef struct {
    double min, median, max, mean, stddev;
    int n;
} ridge_stats;

/* Sorts `samples` in place; n >= 1. */
void ridge_stats_compute(double *samples, int n, ridge_stats *out);

/* ------------------------------------------------------------ the context */

#define RIDGE_MAX_NOTES 256
#define RIDGE_NOTE_LEN 320

typedef struct {
    char id[160];
    char group[32];
    char text[RIDGE_NOTE_LEN];
} ridge_note;

typedef struct ridge_bench {
    /* configuration */
    int quick;          /* tiny sizes, few repetitions (smoke tests) */
    int device;
    double budget_s;    /* soft time budget of the current group */
    /* device facts, read once */
    char gpu_name[256];
    int cc_major, cc_minor;
    int sm_count;
    int max_threads_per_sm;
    size_t l2_bytes;
    size_t global_mem_bytes;
    long long sm_clock_max_hz, mem_clock_max_hz;
    int mem_bus_bits;
    /* resources shared by the groups */
    cudaStream_t stream;
    cublasHandle_t cublas;
    cublasLtHandle_t lt;
    void *workspace;      /* cuBLAS / cuBLASLt workspace */
    size_t workspace_bytes;
    /* output */
    ridge_json json;
    int json_open;        /* measurements array is open */
    const char *group;    /* group currently running */
    double group_t0;      /* wall clock at group start */
    int n_measurements;
    int n_failed_checks;
    int fatal;            /* the CUDA context is unusable */
    ridge_note skipped[RIDGE_MAX_NOTES];
    int n_skipped;
    ridge_note errors[RIDGE_MAX_NOTES];
    int n_errors;
} ridge_bench;

/* Wall clock (CLOCK_MONOTONIC) in seconds. */
double ridge_now_s(void);
/* Seconds left in the current group's budget (may be negative). */
double ridge_bench_time_left(const ridge_bench *b);
/* Record a benchmark that did not run, with the reason, and print it. */
void ridge_bench_skip(ridge_bench *b, const char *id, const char *reason);
/* Format a byte count for ids: "4KiB", "16MiB", "4GiB", "1000B". */
void ridge_format_bytes(char *buf, size_t len, unsigned long long bytes);

/* -------------------------------------------------------------- timing */

/* Enqueue one instance of the work on `s`.  Returns 0, or -1 after
 * reporting an error through the bench context. */
typedef int (*ridge_enqueue_fn)(ridge_bench *b, void *arg, cudaStream_t s);

typedef struct {
    int warmup;          /* discarded calls before timing */
    int min_reps;        /* samples always taken */
    int max_reps;        /* samples at most */
    int inner;           /* calls per sample; 0 = choose so a sample >= target */
    int max_inner;       /* cap for the automatic choice */
    double target_sample_s; /* automatic inner: aim for this per sample */
    double max_time_s;   /* stop after min_reps once this much time is spent */
} ridge_timing;

/* Defaults suited to kernels from microseconds to tens of milliseconds. */
ridge_timing ridge_timing_default(const ridge_bench *b);

/* Time `fn` with CUDA events: warm-up, then samples of `inner` back-to-back
 * calls; each sample is divided by `inner` (time per call).  Samples land in
 * `out`; `*inner_used` gets the calls per sample. Returns 0 or -1. */
int ridge_time_events(ridge_bench *b, ridge_enqueue_fn fn, void *arg,
                      const ridge_timing *t, ridge_stats *out,
                      int *inner_used);

/* Fail-path cleanup of a timing pair: destroys whichever of e0, e1 was
 * created (NULL ones are passed over). */
void ridge_events_destroy(cudaEvent_t e0, cudaEvent_t e1);
/* Fail-path cleanup of a function that captures CUDA graphs on b->stream:
 * ends a capture still open when `capturing` (dropping its graph and the
 * error the abandoned capture leaves), then destroys `exec` and `graph`
 * where they are not NULL. */
void ridge_graph_cleanup(ridge_bench *b, int capturing, cudaGraphExec_t exec,
                         cudaGraph_t graph);

/* ------------------------------------------------------- measurement out */

typedef enum {
    RIDGE_CHECK_NONE = 0, /* nothing to check (e.g. an empty kernel) */
    RIDGE_CHECK_PASSED,
    RIDGE_CHECK_FAILED
} ridge_check_status;

typedef struct {
    ridge_check_status status;
    const char *metric;  /* e.g. "rel_l2_error", "mismatches" */
    double value;
    double tolerance;
} ridge_check;

typedef struct {
    const char *id;
    const char *group;     /* measurement group; NULL = the running group */
    const ridge_stats *time; /* per-call seconds */
    int inner;             /* calls per timed sample */
    int warmup;
    const char *timer;     /* "cuda_event" or "host_clock" */
    long long flops;       /* per call */
    long long bytes;       /* per call, DRAM/PCIe traffic counted */
    ridge_check check;
} ridge_meas;

/* Write the common fields of a measurement and open its "config" object;
 * the caller adds config keys (including "op") with ridge_json_* on
 * &b->json and then calls ridge_meas_end(). */
ridge_json *ridge_meas_begin(ridge_bench *b, const ridge_meas *m);
/* Zero *m and fill the fields every benchmark sets, with the "cuda_event"
 * timer and group NULL (the running group); the caller then sets `check`,
 * and `group` or `timer` where they differ. */
void ridge_meas_init(ridge_meas *m, const char *id, const ridge_stats *time,
                     int inner, int warmup, long long flops, long long bytes);
void ridge_meas_end(ridge_bench *b);

/* Helpers for the "op" object in ridge's operator-list format
 * (docs/workloads.md); `count` is written when > 1. */
void ridge_op_gemm(ridge_json *j, ridge_dtype dt, long long m, long long n,
                   long long k, long long batch);
void ridge_op_elementwise(ridge_json *j, ridge_dtype dt, long long elements,
                          int inputs, int outputs, double flops_per_element,
                          long long count);
void ridge_op_reduce(ridge_json *j, ridge_dtype dt, long long rows,
                     long long cols);
void ridge_op_copy(ridge_json *j, long long bytes, const char *kind);
void ridge_op_custom(ridge_json *j, ridge_dtype dt, long long flops,
                     long long bytes, const char *unit, long long count);

/* Print a one-line progress report for a measurement to stdout. */
void ridge_print_result(const char *id, const ridge_stats *st, long long flops,
                        long long bytes, const ridge_check *c);

/* ------------------------------------------------------- device helpers */

/* Fill n elements of type dt with uniform pseudo-random values in [lo, hi)
 * (integers for INT8/INT32), converted to dt.  Deterministic in seed. */
int ridge_fill_random(ridge_bench *b, void *p, size_t n, ridge_dtype dt,
                      float lo, float hi, unsigned seed);
/* cudaMalloc with a skip-friendly outcome: returns 0, or -1 with *p = NULL
 * when the device is out of memory (the error is cleared, not recorded). */
int ridge_try_malloc(ridge_bench *b, void **p, size_t bytes);
/* Blocks per SM for `kernel` at `threads` per block (>= 1). */
int ridge_blocks_per_sm(const void *kernel, int threads);

/* ------------------------------------------------------------- groups */

int ridge_group_bandwidth(ridge_bench *b);
int ridge_group_flops(ridge_bench *b);
int ridge_group_gemm(ridge_bench *b);
int ridge_group_gemm_sweep(ridge_bench *b);
int ridge_group_launch(ridge_bench *b);
int ridge_group_copy(ridge_bench *b);
int ridge_group_small(ridge_bench *b);

#endif /* RIDGE_BENCH_H */
