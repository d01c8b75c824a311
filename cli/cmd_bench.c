/* ridge bench: how fast the kernel model predicts (predictions per second on one core).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cli.h"
#include "ridge/kernel.h"
#include "ridge/schedule.h"
#include "ridge/workload.h"

static const char help[] =
    "usage: ridge bench [--suite] [--gpu ID|--gpu-file PATH] [--ops N] [--reps R] [--min-seconds S] [--format text|json]\n"
    "\n"
    "Builds a synthetic workload of N operators (default 1000: a deterministic mix of GEMMs of many\n"
    "shapes and precisions, convolutions, attention, normalisations, elementwise ops and copies),\n"
    "predicts it repeatedly on one thread for at least S seconds of the thread's CPU time per\n"
    "repetition (default 0.5), R times (default 7), and prints successful op predictions per CPU\n"
    "second: median, min and max over the repetitions, for the kernel model alone and through the\n"
    "host-pipeline schedule (of the ops the kernel model predicts). Then the same for N ops taken\n"
    "from real model graphs (training steps of llama2-7b, bert-large and resnet50, in turn). Ops\n"
    "that fail (an unsupported dtype on the GPU) are counted apart, not as done. The target is at\n"
    "least 10 million op predictions per second per core.\n"
    "\n"
    "--suite: every figure of issue 18's table, in process (docs/cli.md): kernel predictions/s,\n"
    "microseconds per GPT-3 configuration on 4,096 A100s, the GPT-3 plan search and the what-if\n"
    "sweep at --plan-size N batches (default 16) and 2N, extrapolated to full size; medians over R\n"
    "repetitions (3 at most for the plan runs), each with its goal; the machine named. S defaults\n"
    "to 0.3 with --suite.\n"
    "\n"
    "--gpu ID or --gpu-file PATH (a GPU file, for example one written by ridge calibrate): the GPU\n"
    "predicted (default h200-sxm-141gb).\n";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double bench_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Deterministic pseudo-random sizes (a 64-bit LCG; no global state). */
static double pick(unsigned long long *s, const double *v, int n)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return v[(int)((*s >> 33) % (unsigned long long)n)];
}

void bench_build_ops(ridge_op *ops, size_t n)
{
    static const double dims[] = {1, 16, 128, 384, 512, 768, 1000, 1024, 2048, 3072, 4096, 8192, 11008, 14336};
    static const ridge_dtype dts[] = {RIDGE_DTYPE_BF16, RIDGE_DTYPE_FP16, RIDGE_DTYPE_TF32, RIDGE_DTYPE_FP32};
    unsigned long long s = 0x5eedULL;
    for (size_t i = 0; i < n; i++) {
        ridge_op *o = &ops[i];
        int kind = (int)(i % 10);
        ridge_dtype dt = dts[(int)pick(&s, (const double[]){0, 1, 2, 3}, 4)];
        memset(o, 0, sizeof *o);
        o->count = 1;
        o->dtype = dt;
        switch (kind) {
        case 0: case 1: case 2: case 3:
            *o = ridge_op_gemm(dt, pick(&s, dims, 14), pick(&s, dims, 14), pick(&s, dims, 14), 1);
            break;
        case 4:
            o->kind = RIDGE_OP_CONV2D;
            o->u.conv.n = 32; o->u.conv.c = pick(&s, (const double[]){64, 128, 256, 512}, 4);
            o->u.conv.h = o->u.conv.w = pick(&s, (const double[]){7, 14, 28, 56}, 4);
            o->u.conv.k = pick(&s, (const double[]){64, 128, 256, 512}, 4);
            o->u.conv.r = o->u.conv.s = pick(&s, (const double[]){1, 3}, 2);
            o->u.conv.stride = 1; o->u.conv.pad = o->u.conv.r > 1 ? 1 : 0; o->u.conv.groups = 1;
            o->u.conv.pass = (ridge_pass)(i % 3);
            o->dtype = RIDGE_DTYPE_FP16;
            break;
        case 5:
            o->kind = RIDGE_OP_ATTENTION;
            o->u.attn.batch = pick(&s, (const double[]){1, 8, 32}, 3); o->u.attn.heads = 32; o->u.attn.kv_heads = 8;
            o->u.attn.q_len = pick(&s, (const double[]){1, 512, 2048}, 3); o->u.attn.kv_len = 4096;
            o->u.attn.head_dim = 128; o->u.attn.causal = 1; o->u.attn.pass = RIDGE_PASS_FWD;
            o->dtype = RIDGE_DTYPE_BF16;
            break;
        case 6:
            o->kind = RIDGE_OP_LAYERNORM; o->u.rows.rows = pick(&s, dims, 14); o->u.rows.cols = 4096;
            break;
        case 7:
            o->kind = RIDGE_OP_SOFTMAX; o->u.rows.rows = pick(&s, dims, 14) * 32; o->u.rows.cols = pick(&s, dims, 14);
            break;
        case 8:
            *o = ridge_op_elementwise(dt, pick(&s, dims, 14) * 4096, 2, 1, 1);
            break;
        default:
            *o = ridge_op_copy(pick(&s, dims, 14) * 65536, RIDGE_COPY_D2D);
            break;
        }
    }
}

/* N ops drawn in turn from the training graphs of three presets (the graphs a sweep predicts). */
int bench_build_model_ops(ridge_op *ops, size_t n)
{
    static const char *const ids[] = {"llama2-7b", "bert-large", "resnet50"};
    ridge_oplist lists[3];
    size_t got = 0;
    int ok = 1;
    memset(lists, 0, sizeof lists);
    for (int i = 0; i < 3 && ok; i++) {
        ridge_model *m = NULL;
        ridge_run_config rc;
        ridge_err err;
        ridge_run_config_init(&rc);
        rc.batch = i == 2 ? 256 : 8;
        rc.precision = RIDGE_DTYPE_BF16;
        ok = ridge_model_load_builtin(ids[i], &m, &err) == RIDGE_OK && ridge_model_build(m, &rc, &lists[i], &err) == RIDGE_OK &&
             lists[i].n > 0;
        ridge_model_free(m);
    }
    for (size_t k = 0; ok && got < n; k++) {
        const ridge_oplist *l = &lists[k % 3];
        ops[got++] = l->ops[(k / 3) % l->n];
    }
    for (int i = 0; i < 3; i++)
        ridge_oplist_free(&lists[i]);
    return ok ? 0 : -1;
}

/* Moves the ops the kernel model predicts to the front, in order; returns how many. */
static long keep_predictable(const ridge_gpu *g, ridge_op *ops, long nops)
{
    long ok = 0;
    for (long i = 0; i < nops; i++) {
        ridge_kernel_result kr;
        if (ridge_kernel_predict(g, &ops[i], &kr, NULL) == RIDGE_OK)
            ops[ok++] = ops[i];
    }
    return ok;
}

/* Successful predictions per second of thread CPU time (and of wall time) over reps repetitions
 * of >= min_s CPU seconds each: the kernel model over all nops ops (failures not counted), then
 * the schedule over the ops that succeed. Returns the failures of one pass. */
long bench_measure(const ridge_gpu *g, ridge_op *ops, long nops, ridge_op_result *res, long reps, double min_s,
                   bench_rates *br, double *sink)
{
    long nfail = 0, nok;
    for (long r = 0; r < reps; r++) {
        double c0 = bench_cpu_s(), w0 = now_s(), t = 0, done = 0;
        do {
            long ok = 0;
            for (long i = 0; i < nops; i++) {
                ridge_kernel_result kr;
                if (ridge_kernel_predict(g, &ops[i], &kr, NULL) == RIDGE_OK) {
                    *sink += kr.time_s;
                    ok++;
                }
            }
            nfail = nops - ok;
            done += (double)ok;
            t = bench_cpu_s() - c0;
        } while (t < min_s);
        br->kernel[r] = done / t;
        br->kernel_wall[r] = done / (now_s() - w0);
    }
    nok = keep_predictable(g, ops, nops);
    for (long r = 0; r < reps; r++) {
        double c0 = bench_cpu_s(), t = 0, done = 0;
        do {
            ridge_schedule_totals tot;
            if (nok > 0 && ridge_schedule_ops(g, ops, (size_t)nok, RIDGE_RUNTIME_EAGER, res, &tot, NULL) == RIDGE_OK) {
                *sink += tot.total_time_s;
                done += (double)nok;
            }
            t = bench_cpu_s() - c0;
        } while (t < min_s);
        br->sched[r] = done / t;
    }
    return nfail;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_sort(double *v, long n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
}

/* Long (about 130 lines) on purpose: the options, the two measured op sets (synthetic, model
 * graphs) and the three outputs (text, JSON, the suite) read in order as one benchmark run; the
 * measuring itself is in bench_measure and bench_suite.c. */
int cmd_bench(int argc, char **argv)
{
    static const struct option opts[] = {{"gpu", required_argument, 0, 'g'}, {"gpu-file", required_argument, 0, 'G'},
                                         {"ops", required_argument, 0, 'n'},
                                         {"reps", required_argument, 0, 'r'},
                                         {"min-seconds", required_argument, 0, 's'},
                                         {"suite", no_argument, 0, 'S'}, {"plan-size", required_argument, 0, 'P'},
                                         CLI_OPTION_FORMAT, CLI_OPTION_HELP, CLI_OPTION_END};
    const char *gpu_id = NULL, *gpu_file = NULL; /* one of --gpu, --gpu-file, once; the H200 by default */
    long nops = 1000, reps = 7, fail_k, fail_m, plan_n = 16;
    double min_s = 0.5, sink = 0;
    bench_rates syn, mod;
    cli_format fmt = CLI_FMT_TEXT;
    ridge_gpu g;
    ridge_op *ops;
    ridge_op_result *res;
    int c, rc, suite = 0, min_given = 0;
    cli_opts co = {"bench", help, NULL, NULL, 0, -1, NULL};
    while ((c = cli_getopt(&co, argc, argv, ":h", opts)) != -1) {
        switch (c) {
        case 'g':
            if (cli_take_once("bench", "--gpu", &gpu_id, optarg, "bench times one GPU"))
                return CLI_EXIT_USAGE;
            break;
        case 'G':
            if (cli_take_once("bench", "--gpu-file", &gpu_file, optarg, "bench times one GPU"))
                return CLI_EXIT_USAGE;
            break;
        case 'S': suite = 1; break;
        case 'P':
            if (cli_parse_long("--plan-size", optarg, 1, 666, &plan_n))
                return CLI_EXIT_USAGE;
            break;
        case 'n':
            if (cli_parse_long("--ops", optarg, 1, 1000000, &nops))
                return CLI_EXIT_USAGE;
            break;
        case 'r':
            if (cli_parse_long("--reps", optarg, 1, BENCH_MAX_REPS, &reps))
                return CLI_EXIT_USAGE;
            break;
        case 's':
            if (cli_parse_double("--min-seconds", optarg, 0.001, 60, &min_s))
                return CLI_EXIT_USAGE;
            min_given = 1;
            break;
        case 'f':
            if (cli_parse_format_text_json(optarg, &fmt))
                return CLI_EXIT_USAGE;
            break;
        }
    }
    if (co.exit >= 0)
        return co.exit;
    if (optind < argc)
        return cli_extra_arg_error("bench", argv);
    if (suite && !min_given)
        min_s = 0.3; /* the suite's default: all of it in about 25 s */
    if (gpu_id && gpu_file)
        return cli_usage_error("bench", "give one of --gpu ID or --gpu-file PATH, not both");
    rc = cli_load_gpu(gpu_file ? NULL : gpu_id ? gpu_id : "h200-sxm-141gb", gpu_file, &g);
    if (rc)
        return rc;
    ops = calloc((size_t)nops, sizeof *ops);
    res = calloc((size_t)nops, sizeof *res);
    if (!ops || !res) {
        free(ops);
        free(res);
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    bench_build_ops(ops, (size_t)nops);
    fail_k = bench_measure(&g, ops, nops, res, reps, min_s, &syn, &sink);
    if (bench_build_model_ops(ops, (size_t)nops) != 0) {
        free(ops);
        free(res);
        cli_error("bench: cannot build the preset graphs");
        return CLI_EXIT_FAILURE;
    }
    fail_m = bench_measure(&g, ops, nops, res, reps, min_s, &mod, &sink);
    free(ops);
    free(res);
    bench_sort(syn.kernel, reps);
    bench_sort(syn.kernel_wall, reps);
    bench_sort(syn.sched, reps);
    bench_sort(mod.kernel, reps);
    bench_sort(mod.kernel_wall, reps);
    bench_sort(mod.sched, reps);
    if (suite) {
        bench_suite_args sa = {&g, nops, reps, min_s, fmt, syn.kernel[reps / 2], mod.kernel[reps / 2], fail_k, fail_m, plan_n};
        rc = bench_suite(&sa, &sink);
    } else if (fmt == CLI_FMT_JSON) {
        cJSON *root = cJSON_CreateObject();
        cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
        cJSON_AddStringToObject(root, "gpu", g.id);
        cJSON_AddNumberToObject(root, "ops", (double)nops);
        cJSON_AddNumberToObject(root, "reps", (double)reps);
        cJSON_AddNumberToObject(root, "kernel_predictions_per_s_median", syn.kernel[reps / 2]);
        cJSON_AddNumberToObject(root, "kernel_predictions_per_s_min", syn.kernel[0]);
        cJSON_AddNumberToObject(root, "kernel_predictions_per_s_max", syn.kernel[reps - 1]);
        cJSON_AddNumberToObject(root, "scheduled_predictions_per_s_median", syn.sched[reps / 2]);
        cJSON_AddNumberToObject(root, "scheduled_predictions_per_s_min", syn.sched[0]);
        cJSON_AddNumberToObject(root, "scheduled_predictions_per_s_max", syn.sched[reps - 1]);
        cJSON_AddNumberToObject(root, "model_graph_predictions_per_s_median", mod.kernel[reps / 2]);
        cJSON_AddNumberToObject(root, "model_graph_predictions_per_s_min", mod.kernel[0]);
        cJSON_AddNumberToObject(root, "model_graph_predictions_per_s_max", mod.kernel[reps - 1]);
        cJSON_AddNumberToObject(root, "model_graph_scheduled_predictions_per_s_median", mod.sched[reps / 2]);
        cJSON_AddNumberToObject(root, "target_predictions_per_s", 10e6);
        cJSON_AddNumberToObject(root, "failed_ops", (double)fail_k);
        cJSON_AddNumberToObject(root, "model_graph_failed_ops", (double)fail_m);
        cJSON_AddNumberToObject(root, "kernel_predictions_per_wall_s_median", syn.kernel_wall[reps / 2]);
        cJSON_AddNumberToObject(root, "model_graph_predictions_per_wall_s_median", mod.kernel_wall[reps / 2]);
        rc = cli_print_json(root);
    } else {
        char b[4][32];
        printf("ridge bench: %ld-op synthetic workload on %s, %ld repetitions of >= %g s, one thread\n", nops, g.id,
               reps, min_s);
        printf("kernel model      %s M op predictions/s median (min %s, max %s), %s ns per op\n",
               cli_num(syn.kernel[reps / 2] / 1e6, b[0], 32), cli_num(syn.kernel[0] / 1e6, b[1], 32),
               cli_num(syn.kernel[reps - 1] / 1e6, b[2], 32), cli_num(1e9 / syn.kernel[reps / 2], b[3], 32));
        printf("with schedule     %s M op predictions/s median (min %s, max %s)\n",
               cli_num(syn.sched[reps / 2] / 1e6, b[0], 32), cli_num(syn.sched[0] / 1e6, b[1], 32),
               cli_num(syn.sched[reps - 1] / 1e6, b[2], 32));
        printf("model graphs      %s M op predictions/s median (min %s, max %s); with schedule %s M\n",
               cli_num(mod.kernel[reps / 2] / 1e6, b[0], 32), cli_num(mod.kernel[0] / 1e6, b[1], 32),
               cli_num(mod.kernel[reps - 1] / 1e6, b[2], 32), cli_num(mod.sched[reps / 2] / 1e6, b[3], 32));
        printf("target            10 M op predictions/s per core: synthetic %s, model graphs %s\n",
               syn.kernel[reps / 2] >= 10e6 ? "met" : "NOT met", mod.kernel[reps / 2] >= 10e6 ? "met" : "NOT met");
        char line[512];
        snprintf(line, sizeof line, "successful predictions per second of thread CPU time (%ld of %ld synthetic and %ld of "
                 "%ld model-graph ops fail, not counted); wall clock: %s M and %s M", fail_k, nops, fail_m, nops,
                 cli_num(syn.kernel_wall[reps / 2] / 1e6, b[0], 32), cli_num(mod.kernel_wall[reps / 2] / 1e6, b[1], 32));
        fputs("counted           ", stdout);
        cli_print_wrapped(stdout, line, 18, 18);
    }
    if (sink < 0)
        printf("%g\n", sink); /* keeps the loops from being optimised away */
    return rc;
}
