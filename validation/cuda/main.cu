/*
 * main.cu - ridge-bench-cuda: run ridge's CUDA microbenchmarks and write a
 * measurement file (format: docs/validation.md, "Measurement files").
 *
 *   ridge-bench-cuda [--out FILE.json] [--quick] [--only GROUP[,GROUP...]]
 *                    [--budget-s SECONDS] [--device N] [--list]
 *
 * Exit status: 0 all selected groups ran and every check passed; 1 a group
 * failed, a check failed or no GPU could be used; 2 usage error.
 */
#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STR_(...) #__VA_ARGS__
#define STR(...) STR_(__VA_ARGS__) /* __CUDA_ARCH_LIST__ may hold commas */

typedef struct {
    const char *name;
    const char *what;
    int (*run)(ridge_bench *);
    double budget_s;       /* soft budget, full mode */
    double budget_quick_s; /* soft budget, --quick */
} ridge_group;

static const ridge_group groups[] = {
    {"bandwidth", "read/write/copy/triad kernels and memcpy D2D, 1 MiB..4 GiB",
     ridge_group_bandwidth, 25.0, 5.0},
    {"flops", "FP32 and FP64 FMA peak", ridge_group_flops, 10.0, 3.0},
    {"gemm", "GEMM peak per precision (cuBLAS / cuBLASLt), 8192 and 16384",
     ridge_group_gemm, 35.0, 5.0},
    {"gemm_sweep", "bf16/fp16 GEMM shapes: square, skinny, misaligned, "
                   "shallow K, wave boundaries, batched",
     ridge_group_gemm_sweep, 50.0, 5.0},
    {"launch", "kernel launch latency and throughput, eager and CUDA graph",
     ridge_group_launch, 10.0, 3.0},
    {"copy", "host<->device copies, pinned and pageable, 4 KiB..256 MiB",
     ridge_group_copy, 15.0, 3.0},
    {"small", "tiny elementwise/reduce kernels, 4 KiB..1 MiB, eager and graph",
     ridge_group_small, 10.0, 3.0},
};
#define NGROUPS ((int)(sizeof groups / sizeof groups[0]))

typedef struct {
    const char *status; /* "ok", "error", "not_run" */
    double elapsed_s;
    int measurements;
    int selected;
} group_result;

static void usage(FILE *f)
{
    int i;
    fprintf(f,
            "usage: ridge-bench-cuda [options]\n"
            "  --out FILE       write measurements as JSON to FILE "
            "(default ridge-bench-cuda.json)\n"
            "  --quick          tiny sizes and few repetitions (smoke test, "
            "seconds)\n"
            "  --only LIST      run only these groups (comma-separated)\n"
            "  --budget-s S     soft time budget per group in seconds\n"
            "  --device N       CUDA device ordinal (default 0)\n"
            "  --list           list the groups and exit\n"
            "  --version        print versions and exit\n"
            "  --help           this text\n"
            "groups:\n");
    for (i = 0; i < NGROUPS; ++i)
        fprintf(f, "  %-11s %s (budget %.0f s)\n", groups[i].name,
                groups[i].what, groups[i].budget_s);
}

static int find_group(const char *name, size_t len)
{
    int i;
    for (i = 0; i < NGROUPS; ++i)
        if (strlen(groups[i].name) == len &&
            strncmp(groups[i].name, name, len) == 0)
            return i;
    return -1;
}

/* Parse "a,b,c" into selected[]; 0 ok, -1 unknown name. */
static int parse_only(const char *arg, int *selected)
{
    const char *p = arg;
    int i;
    for (i = 0; i < NGROUPS; ++i)
        selected[i] = 0;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > 0) {
            int g = find_group(p, len);
            if (g < 0) {
                fprintf(stderr, "ridge-bench-cuda: unknown group '%.*s'\n",
                        (int)len, p);
                return -1;
            }
            selected[g] = 1;
        }
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

/* NVIDIA kernel-module version from /proc, or "" where not readable. */
static void read_driver_version(char *buf, size_t len)
{
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    char line[512];
    buf[0] = '\0';
    if (!f)
        return;
    if (fgets(line, sizeof line, f)) {
        const char *k = strstr(line, "Kernel Module");
        if (k) {
            char ver[64];
            k += strlen("Kernel Module");
            if (sscanf(k, " %63s", ver) == 1)
                snprintf(buf, len, "%s", ver);
        }
    }
    fclose(f);
}

static void write_command(ridge_json *j, int argc, char **argv)
{
    char cmd[2048];
    size_t used = 0;
    int i;
    cmd[0] = '\0';
    for (i = 0; i < argc && used < sizeof cmd; ++i) {
        int q = strpbrk(argv[i], " \t\"'$") != NULL;
        int w = snprintf(cmd + used, sizeof cmd - used, "%s%s%s%s",
                         i ? " " : "", q ? "'" : "", argv[i], q ? "'" : "");
        if (w < 0)
            break;
        used += (size_t)w;
    }
    ridge_json_str(j, "command", cmd);
}

static void write_provenance(ridge_bench *b, int have_device, int argc,
                             char **argv, const int *selected)
{
    ridge_json *j = &b->json;
    char buf[256], date[64];
    time_t now = time(NULL);
    struct tm tmv;
    int v = 0, maj = 0, min = 0, pat = 0, i;
    const char *env;

    ridge_json_obj_begin(j, "provenance");
    ridge_json_str(j, "tool", "ridge-bench-cuda");
    ridge_json_str(j, "tool_version", RIDGE_BENCH_VERSION);
    if (have_device) {
        ridge_json_str(j, "gpu_name", b->gpu_name);
        ridge_json_int(j, "sm_count", b->sm_count);
        ridge_json_int(j, "sm_clock_max_hz", b->sm_clock_max_hz);
        ridge_json_int(j, "mem_clock_max_hz", b->mem_clock_max_hz);
        snprintf(buf, sizeof buf, "%d.%d", b->cc_major, b->cc_minor);
        ridge_json_str(j, "compute_capability", buf);
        ridge_json_int(j, "l2_bytes", (long long)b->l2_bytes);
        ridge_json_int(j, "global_mem_bytes", (long long)b->global_mem_bytes);
        ridge_json_int(j, "mem_bus_bits", b->mem_bus_bits);
    } else {
        ridge_json_null(j, "gpu_name");
        ridge_json_null(j, "sm_count");
        ridge_json_null(j, "sm_clock_max_hz");
        ridge_json_null(j, "mem_clock_max_hz");
    }
    read_driver_version(buf, sizeof buf);
    ridge_json_str(j, "driver", buf[0] ? buf : NULL);
    if (cudaDriverGetVersion(&v) == cudaSuccess && v > 0) {
        snprintf(buf, sizeof buf, "%d.%d", v / 1000, (v % 1000) / 10);
        ridge_json_str(j, "cuda_driver_api", buf);
    } else {
        ridge_json_null(j, "cuda_driver_api");
    }
    (void)cudaGetLastError();
    if (cudaRuntimeGetVersion(&v) == cudaSuccess) {
        snprintf(buf, sizeof buf, "%d.%d", v / 1000, (v % 1000) / 10);
        ridge_json_str(j, "cuda_runtime", buf);
    } else {
        ridge_json_null(j, "cuda_runtime");
    }
    if (cublasGetProperty(MAJOR_VERSION, &maj) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(MINOR_VERSION, &min) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(PATCH_LEVEL, &pat) == CUBLAS_STATUS_SUCCESS) {
        snprintf(buf, sizeof buf, "%d.%d.%d", maj, min, pat);
        ridge_json_str(j, "cublas", buf);
    } else {
        ridge_json_null(j, "cublas");
    }
    ridge_json_int(j, "cublaslt_version", (long long)cublasLtGetVersion());
    ridge_json_null(j, "torch");
    gmtime_r(&now, &tmv);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    ridge_json_str(j, "date", date);
    if (gethostname(buf, sizeof buf) != 0)
        buf[0] = '\0';
    buf[sizeof buf - 1] = '\0';
    ridge_json_str(j, "host", buf);
    write_command(j, argc, argv);
    ridge_json_bool(j, "quick", b->quick);
    ridge_json_str(j, "built_with_cuda", STR(CUDART_VERSION));
#ifdef __CUDA_ARCH_LIST__
    ridge_json_str(j, "built_for_arch", STR(__CUDA_ARCH_LIST__));
#endif
    env = getenv("NVIDIA_TF32_OVERRIDE");
    ridge_json_str(j, "env_NVIDIA_TF32_OVERRIDE", env);
    env = getenv("CUDA_VISIBLE_DEVICES");
    ridge_json_str(j, "env_CUDA_VISIBLE_DEVICES", env);
    ridge_json_arr_begin(j, "groups_selected");
    for (i = 0; i < NGROUPS; ++i)
        if (selected[i])
            ridge_json_str(j, NULL, groups[i].name);
    ridge_json_arr_end(j);
    ridge_json_obj_end(j);
}

static void write_notes(ridge_json *j, const char *key, const ridge_note *n,
                        int count, int with_id)
{
    int i;
    ridge_json_arr_begin_lines(j, key);
    for (i = 0; i < count; ++i) {
        ridge_json_obj_begin(j, NULL);
        if (with_id)
            ridge_json_str(j, "id", n[i].id);
        ridge_json_str(j, "group", n[i].group);
        ridge_json_str(j, with_id ? "reason" : "message", n[i].text);
        ridge_json_obj_end(j);
    }
    ridge_json_arr_end(j);
}

/* Device facts and shared handles; 0 ok, -1 no usable device. */
static int bench_open(ridge_bench *b)
{
    cudaDeviceProp prop;
    int v = 0;
    RIDGE_CUDA_TRY(b, cudaSetDevice(b->device));
    RIDGE_CUDA_TRY(b, cudaGetDeviceProperties(&prop, b->device));
    snprintf(b->gpu_name, sizeof b->gpu_name, "%s", prop.name);
    b->cc_major = prop.major;
    b->cc_minor = prop.minor;
    b->global_mem_bytes = prop.totalGlobalMem;
    RIDGE_CUDA_TRY(b, cudaDeviceGetAttribute(
                          &b->sm_count, cudaDevAttrMultiProcessorCount,
                          b->device));
    RIDGE_CUDA_TRY(b, cudaDeviceGetAttribute(
                          &b->max_threads_per_sm,
                          cudaDevAttrMaxThreadsPerMultiProcessor, b->device));
    RIDGE_CUDA_TRY(b, cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize,
                                             b->device));
    b->l2_bytes = (size_t)v;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, b->device) ==
        cudaSuccess)
        b->sm_clock_max_hz = (long long)v * 1000;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, b->device) ==
        cudaSuccess)
        b->mem_clock_max_hz = (long long)v * 1000;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth,
                               b->device) == cudaSuccess)
        b->mem_bus_bits = v;
    (void)cudaGetLastError();

    RIDGE_CUDA_TRY(b, cudaStreamCreateWithFlags(&b->stream,
                                                cudaStreamNonBlocking));
    RIDGE_CUBLAS_TRY(b, cublasCreate(&b->cublas));
    RIDGE_CUBLAS_TRY(b, cublasSetStream(b->cublas, b->stream));
    /* Plain fp32 must stay fp32: TF32 is asked for explicitly where wanted. */
    RIDGE_CUBLAS_TRY(b, cublasSetMathMode(b->cublas, CUBLAS_DEFAULT_MATH));
    b->workspace_bytes = (size_t)32 << 20; /* cuBLAS's Hopper recommendation */
    RIDGE_CUDA_TRY(b, cudaMalloc(&b->workspace, b->workspace_bytes));
    RIDGE_CUBLAS_TRY(b, cublasSetWorkspace(b->cublas, b->workspace,
                                           b->workspace_bytes));
    RIDGE_CUBLAS_TRY(b, cublasLtCreate(&b->lt));
    return 0;
fail:
    return -1;
}

static void bench_close(ridge_bench *b)
{
    if (b->lt)
        cublasLtDestroy(b->lt);
    if (b->cublas)
        cublasDestroy(b->cublas);
    if (b->workspace)
        cudaFree(b->workspace);
    if (b->stream)
        cudaStreamDestroy(b->stream);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'},
        {"quick", no_argument, NULL, 'q'},
        {"only", required_argument, NULL, 'g'},
        {"budget-s", required_argument, NULL, 'b'},
        {"device", required_argument, NULL, 'd'},
        {"list", no_argument, NULL, 'l'},
        {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    static ridge_bench bench; /* large (notes); zero-initialised */
    ridge_bench *b = &bench;
    const char *out_path = "ridge-bench-cuda.json";
    int selected[NGROUPS];
    group_result res[NGROUPS];
    double budget_override = -1.0, t_start;
    FILE *out = NULL;
    int c, i, have_device, status = 0;

    for (i = 0; i < NGROUPS; ++i)
        selected[i] = 1;
    while ((c = getopt_long(argc, argv, "o:qg:b:d:lVh", opts, NULL)) != -1) {
        char *end = NULL;
        switch (c) {
        case 'o': out_path = optarg; break;
        case 'q': b->quick = 1; break;
        case 'g':
            if (parse_only(optarg, selected))
                return 2;
            break;
        case 'b':
            errno = 0;
            budget_override = strtod(optarg, &end);
            if (errno || end == optarg || *end != '\0' || budget_override <= 0) {
                fprintf(stderr, "ridge-bench-cuda: bad --budget-s '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'd': {
            long d;
            errno = 0;
            d = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end != '\0' || d < 0 || d > 1024) {
                fprintf(stderr, "ridge-bench-cuda: bad --device '%s'\n",
                        optarg);
                return 2;
            }
            b->device = (int)d;
            break;
        }
        case 'l':
            for (i = 0; i < NGROUPS; ++i)
                printf("%s\t%s\n", groups[i].name, groups[i].what);
            return 0;
        case 'V': {
            int v = 0;
            printf("ridge-bench-cuda %s (built with CUDA runtime %s)\n",
                   RIDGE_BENCH_VERSION, STR(CUDART_VERSION));
            if (cudaRuntimeGetVersion(&v) == cudaSuccess)
                printf("cuda runtime %d\n", v);
            printf("cublasLt %zu\n", cublasLtGetVersion());
            return 0;
        }
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "ridge-bench-cuda: try --help\n");
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ridge-bench-cuda: unexpected argument '%s'\n",
                argv[optind]);
        return 2;
    }

    out = fopen(out_path, "w");
    if (!out) {
        fprintf(stderr, "ridge-bench-cuda: cannot open %s: %s\n", out_path,
                strerror(errno));
        return 1;
    }
    ridge_json_init(&b->json, out);
    b->group = "init";
    t_start = ridge_now_s();
    have_device = bench_open(b) == 0;
    if (have_device)
        printf("ridge-bench-cuda: %s, %d SMs, cc %d.%d, L2 %zu B, %s%s\n",
               b->gpu_name, b->sm_count, b->cc_major, b->cc_minor,
               b->l2_bytes, b->quick ? "quick mode" : "full mode",
               "");
    fflush(stdout);

    ridge_json_obj_begin(&b->json, NULL);
    ridge_json_int(&b->json, "schema_version", RIDGE_SCHEMA_VERSION);
    ridge_json_str(&b->json, "kind", "ridge-measurements");
    write_provenance(b, have_device, argc, argv, selected);
    ridge_json_arr_begin_lines(&b->json, "measurements");
    ridge_json_flush(&b->json);

    for (i = 0; i < NGROUPS; ++i) {
        int before = b->n_measurements, errs = b->n_errors, rc;
        double t0;
        res[i].selected = selected[i];
        res[i].status = "not_run";
        res[i].elapsed_s = 0.0;
        res[i].measurements = 0;
        if (!selected[i])
            continue;
        if (!have_device || b->fatal) {
            b->group = groups[i].name;
            ridge_bench_skip(b, groups[i].name,
                             have_device ? "CUDA context unusable after an "
                                           "earlier error"
                                         : "no usable CUDA device");
            continue;
        }
        b->group = groups[i].name;
        b->budget_s = budget_override > 0 ? budget_override
                      : b->quick          ? groups[i].budget_quick_s
                                          : groups[i].budget_s;
        printf("== %s: %s (budget %.0f s)\n", groups[i].name, groups[i].what,
               b->budget_s);
        fflush(stdout);
        t0 = ridge_now_s();
        b->group_t0 = t0;
        rc = groups[i].run(b);
        if (cudaStreamSynchronize(b->stream) != cudaSuccess) {
            cudaError_t e = cudaGetLastError();
            ridge_bench_cuda_error(b, __FILE__, __LINE__,
                                   "cudaStreamSynchronize after group", e);
            b->fatal = 1;
        }
        res[i].elapsed_s = ridge_now_s() - t0;
        res[i].measurements = b->n_measurements - before;
        res[i].status = (rc == 0 && b->n_errors == errs) ? "ok" : "error";
        printf("== %s: %s, %d measurements in %.1f s\n", groups[i].name,
               res[i].status, res[i].measurements, res[i].elapsed_s);
        fflush(stdout);
    }

    ridge_json_arr_end(&b->json); /* measurements */
    write_notes(&b->json, "skipped", b->skipped, b->n_skipped, 1);
    write_notes(&b->json, "errors", b->errors, b->n_errors, 0);
    ridge_json_arr_begin_lines(&b->json, "groups");
    for (i = 0; i < NGROUPS; ++i) {
        if (!res[i].selected)
            continue;
        ridge_json_obj_begin(&b->json, NULL);
        ridge_json_str(&b->json, "name", groups[i].name);
        ridge_json_str(&b->json, "status", res[i].status);
        ridge_json_num(&b->json, "elapsed_s", res[i].elapsed_s);
        ridge_json_int(&b->json, "measurements", res[i].measurements);
        ridge_json_obj_end(&b->json);
    }
    ridge_json_arr_end(&b->json);
    ridge_json_obj_begin(&b->json, "summary");
    ridge_json_int(&b->json, "measurements", b->n_measurements);
    ridge_json_int(&b->json, "failed_checks", b->n_failed_checks);
    ridge_json_int(&b->json, "skipped", b->n_skipped);
    ridge_json_int(&b->json, "errors", b->n_errors);
    ridge_json_num(&b->json, "elapsed_s", ridge_now_s() - t_start);
    ridge_json_obj_end(&b->json);
    ridge_json_obj_end(&b->json);
    fputc('\n', out);
    ridge_json_flush(&b->json);
    if (b->json.failed) {
        fprintf(stderr, "ridge-bench-cuda: error writing %s\n", out_path);
        status = 1;
    }
    if (fclose(out) != 0)
        status = 1;

    printf("ridge-bench-cuda: %d measurements, %d failed checks, %d skipped, "
           "%d errors -> %s\n",
           b->n_measurements, b->n_failed_checks, b->n_skipped, b->n_errors,
           out_path);
    if (!have_device || b->n_errors > 0 || b->n_failed_checks > 0)
        status = 1;
    bench_close(b);
    return status;
}
