/* ridge plan: capacity planning over GPUs, counts, batches and precisions (docs/planning.md).
 * The flags are parsed in plan_args.c, sweeps print through plan_out.c, charts are plan_chart.c
 * and serving plans plan_serve.c (plan_cli.h). SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "plan_cli.h"
#include "progress.h"
#ifdef RIDGE_HAVE_MPI
#include "plan_mpi.h" /* under mpirun: ranks split the space (plan_mpi_load.c loads ridge-mpi.so) */
#else                 /* one process */
static int plan_mpi_setup(void) { return CLI_EXIT_OK; }
static int plan_mpi_rank(void) { return 0; }
static int plan_mpi_size(void) { return 1; }
#define plan_mpi_eval_range ridge_plan_eval_range
static int plan_mpi_worker(const ridge_plan *p, size_t chunk, int threads)
{
    (void)p, (void)chunk, (void)threads;
    return CLI_EXIT_OK;
}
static int plan_mpi_reduce(ridge_plan_select *sel, size_t *counts, size_t ncounts)
{
    (void)sel, (void)counts, (void)ncounts;
    return CLI_EXIT_OK;
}
static void plan_mpi_abort(int code) { (void)code; }
#endif

static const char help_text[] =
    "usage: ridge plan --workload ID|FILE [--mode train|infer] --gpus all|ID,ID... [--counts 1,2,4,8]\n"
    "                  [--batches 8,16,32] [--precisions bf16,fp16] --tokens N|--samples N\n"
    "                  [--deadline-hours H] [--budget-usd X] [--power-cap-w W]\n"
    "                  [--objective cost|time|energy|gpus] [--top K] [--price ID=USD_PER_HOUR ...]\n"
    "                  [--prices FILE] [--pareto time-cost|time-energy] [--no-comm] [--threads N]\n"
    "                  [--tp 1,2,4,8] [--pp 1,2,4] [--zero 0,1,2,3] [--cluster ID|FILE]\n"
    "                  [--recompute none,selective,full] [--sp 0,1] [--virtual-stages 1,2,4]\n"
    "                  [--global-batches 1536,3072]\n"
    "                  [--format text|jsonl|csv] [--plan FILE.json] [run options]\n"
    "       ridge plan --bench [--threads N]\n"
    "\n"
    "Evaluates every (GPU, precision, GPU count, per-GPU batch) configuration of a data-parallel\n"
    "run that processes --tokens or --samples, filters by memory, precision support, deadline,\n"
    "budget and power cap, and ranks the feasible ones by the objective (default cost). Each GPU\n"
    "count runs the single-GPU step, then all-reduces the gradients (training) over a fabric\n"
    "derived from the GPU (--no-comm: ideal scaling). Cost = GPUs x hours x price per GPU-hour\n"
    "(the catalogue's, or --price, --prices FILE: docs/cli.md, \"Prices\"); energy uses P = idle +\n"
    "utilisation x (TDP - idle), idle = 0.25 x TDP; the power cap limits GPUs x TDP. Lists accept\n"
    "A..B ranges (1..8) and name each value once. --plan reads the same settings from a JSON file\n"
    "(relative paths from its directory); later options override earlier ones (docs/planning.md).\n"
    "--tp/--pp/--zero (training, transformers): ranges of tensor- and pipeline-parallel sizes and\n"
    "ZeRO stages; each configuration is then predicted with dp = GPUs / (tp x pp), microbatch =\n"
    "batch, pp microbatches per step, and the output gains tp, pp, zero columns.\n"
    "--cluster (training): the fabric of a cluster (ridge clusters) instead of one derived from\n"
    "the GPU, and its GPU (--gpus may only name it); N GPUs are N / GPUs-per-node of its nodes\n"
    "(or one node of N < GPUs per node), other counts are invalid layouts. Searched dimensions:\n"
    "--recompute none,selective,full (one value: the run option), --sp 0,1 (sequence parallelism;\n"
    "sp 1 needs tp > 1), --virtual-stages 1,2,4 (interleaved 1F1B; > 1 needs pp > 1 and layers\n"
    "divisible by pp x v), --global-batches B,... (sequences per step: B / (dp x batch)\n"
    "microbatches, a whole number, else an invalid layout; default batch x dp x pp). A list of\n"
    "two or more values adds its column.\n"
    "\n"
    "Text: the top K (default 10) with the Pareto front of (time, cost) marked '*', and the\n"
    "infeasible configurations counted by reason. jsonl and csv: one line per configuration,\n"
    "feasible or not, in space order, as evaluated. --threads N (default: all cores).\n"
    "Steps are scheduled on the GPU's own launch figures, as the multi-GPU model does, without a\n"
    "host profile: --host is refused (check a host-bound candidate with ridge predict or serve).\n"
    "--bench: configurations per second of a llama2-7b training sweep (all GPUs x 6 precisions\n"
    "x counts 1..1024 x 9 batches).\n"
    "\n"
    "Charts: --chart pareto|throughput-batch|breakdown|gpus -o CHART.png|svg writes CHART.dat and\n"
    "CHART.gp beside the chart and renders it with gnuplot when present (docs/planning.md):\n"
    "cost against time with the Pareto front; throughput against batch on one GPU; the step time\n"
    "split by bound at each GPU's best batch; GPUs on throughput, per watt and per USD.\n"
    "Serving: --mode infer --rate R --slo-p99-ms X: for each (GPU or MIG slice, precision, batch)\n"
    "server the fewest replicas (up to 4096) whose p99 meets X under the M/D/c closed form, with\n"
    "the cost per hour and per 1,000 requests, ranked by cost (--chart serve -o CHART: its bars).\n"
    "\n";
/* Printed after help (one string would pass the 4095 characters C99 guarantees). */
static const char help_run[] = CLI_RUN_HELP;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int run_bench(long threads)
{
    static const ridge_dtype precs[] = {RIDGE_DTYPE_FP32, RIDGE_DTYPE_TF32, RIDGE_DTYPE_FP16,
                                        RIDGE_DTYPE_BF16, RIDGE_DTYPE_FP8,  RIDGE_DTYPE_INT8};
    static const double batches[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
    size_t ng = ridge_catalog_count(), space;
    ridge_gpu *gpus = calloc(ng, sizeof *gpus);
    int *counts = malloc(1024 * sizeof *counts);
    ridge_plan_result *buf = malloc(PLAN_CHUNK * sizeof *buf);
    ridge_model *m = NULL;
    ridge_plan *p = NULL;
    ridge_plan_spec sp;
    ridge_err err = {{0}};
    double t0, t1, t2, sink = 0;
    size_t feasible = 0;
    int rc = CLI_EXIT_FAILURE;
    if (!gpus || !counts || !buf) {
        cli_error("out of memory");
        goto done;
    }
    for (size_t i = 0; i < ng; i++)
        if (ridge_catalog_load(ridge_catalog_id(i), &gpus[i], &err) != RIDGE_OK) {
            cli_error("%s", err.msg);
            goto done;
        }
    for (int i = 0; i < 1024; i++)
        counts[i] = i + 1;
    if (ridge_model_load("llama2-7b", &m, &err) != RIDGE_OK) {
        cli_error("%s", err.msg);
        goto done;
    }
    ridge_plan_spec_init(&sp);
    sp.model = m;
    sp.gpus = gpus;
    sp.ngpus = ng;
    sp.precisions = precs;
    sp.nprecisions = sizeof precs / sizeof precs[0];
    sp.counts = counts;
    sp.ncounts = 1024;
    sp.batches = batches;
    sp.nbatches = sizeof batches / sizeof batches[0];
    sp.target_kind = RIDGE_PLAN_TARGET_TOKENS;
    sp.target = 1e9;
    sp.objective = RIDGE_PLAN_TIME;
    sp.threads = (int)threads;
    t0 = now_s();
    if (ridge_plan_alloc(&sp, &p, &err) != RIDGE_OK) {
        cli_error("%s", err.msg);
        rc = CLI_EXIT_USAGE;
        goto done;
    }
    t1 = now_s();
    space = ridge_plan_size(p);
    for (size_t first = 0; first < space; first += PLAN_CHUNK) {
        size_t n = space - first < PLAN_CHUNK ? space - first : PLAN_CHUNK;
        ridge_plan_eval_range(p, first, n, (int)threads, buf, &err);
        for (size_t k = 0; k < n; k++)
            if (buf[k].reason == RIDGE_PLAN_FEASIBLE) {
                feasible++;
                sink += buf[k].time_s;
            }
    }
    t2 = now_s();
    printf("plan bench: llama2-7b train, 1e9 tokens; %zu GPUs x %zu precisions x 1024 counts x %zu batches\n", ng,
           sp.nprecisions, sp.nbatches);
    printf("configurations:           %zu (%zu feasible)\n", space, feasible);
    printf("threads:                  %ld\n", threads);
    printf("memo (single-GPU steps):  %.3f s for %zu predictions\n", t1 - t0, ng * sp.nprecisions * sp.nbatches);
    printf("evaluation:               %.3f s\n", t2 - t1);
    printf("total:                    %.3f s\n", t2 - t0);
    printf("configurations/s (total): %.4g\n", (double)space / (t2 - t0));
    printf("configurations/s (eval):  %.4g\n", (double)space / (t2 - t1 > 0 ? t2 - t1 : 1e-9));
    rc = sink >= 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
done:
    ridge_plan_free(p);
    ridge_model_free(m);
    free(buf);
    free(counts);
    free(gpus);
    return rc;
}

/* Evaluate [first, first + n) into dst, count it by reason and stream it (jsonl, csv: under
 * mpirun a whole chunk, the ranks' shares gathered on rank 0) or feed it to the selection (text:
 * under mpirun this rank's share of a chunk, to this rank's selection). */
static int sweep_chunk(const plan_opts *o, const ridge_plan *p, const ridge_gpu *gpus, size_t first, size_t n,
                       ridge_plan_result *dst, size_t *infeasible, int par, ridge_plan_select *sel)
{
    ridge_err err = {{0}};
    int st;
    if ((st = sel ? ridge_plan_eval_range(p, first, n, (int)o->threads, dst, &err)
                  : plan_mpi_eval_range(p, first, n, (int)o->threads, dst, &err)) != RIDGE_OK ||
        (sel && (st = ridge_plan_select_add(sel, dst, n, &err)) != RIDGE_OK)) {
        cli_error("%s", err.msg);
        return cli_exit_code(st);
    }
    for (size_t k = 0; k < n; k++) {
        infeasible[dst[k].reason]++;
        if (o->format == PF_JSONL)
            plan_print_row_jsonl(&dst[k], &gpus[dst[k].gpu], par);
        else if (o->format == PF_CSV)
            plan_print_row_csv(&dst[k], &gpus[dst[k].gpu], par);
    }
    return CLI_EXIT_OK;
}

/* The sweep: every configuration, streamed chunk by chunk, printed (jsonl, csv) or fed to a
 * selection of the top K and the Pareto front (text), so memory is bounded by a chunk, K and the
 * front. Under mpirun every rank evaluates its share of each chunk and the ranks > 0 print
 * nothing: jsonl and csv gather each chunk on rank 0; text feeds each rank's own selection and
 * counts, which rank 0 merges at the end (plan_mpi.h). */
static int run_sweep(const plan_opts *o)
{
    ridge_gpu *gpus = NULL;
    double *prices = NULL;
    ridge_model *m = NULL;
    ridge_plan *p = NULL;
    ridge_plan_result *buf = NULL;
    ridge_plan_select *sel = NULL;
    ridge_err err = {{0}};
    size_t space, infeasible[RIDGE_PLAN_REASON_COUNT] = {0};
    size_t rank = (size_t)plan_mpi_rank(), ranks = (size_t)plan_mpi_size();
    cli_progress prog = {0};
    int rc, par, text = o->format == PF_TEXT, collective = 0;
    if ((rc = plan_setup(o, o->counts, o->ncounts, o->target, &gpus, &prices, &m, &p)) != CLI_EXIT_OK)
        goto done; /* every rank alike: no collective has started */
    space = ridge_plan_size(p);
    if (rank > 0 && !text) { /* under mpirun: evaluate this rank's shares for rank 0, print nothing */
        rc = plan_mpi_worker(p, PLAN_CHUNK, (int)o->threads);
        goto done;
    }
    collective = ranks > 1; /* from here a failure on one rank ends the job: the others wait */
    if (text &&
        ridge_plan_select_alloc((size_t)o->top, o->objective, o->pareto_energy, &sel, &err) != RIDGE_OK) {
        cli_error("%s", err.msg);
        rc = CLI_EXIT_FAILURE;
        goto done;
    }
    buf = malloc(PLAN_CHUNK * sizeof *buf);
    if (!buf) {
        cli_error("out of memory");
        rc = CLI_EXIT_FAILURE;
        goto done;
    }
    cli_progress_begin(&prog, "plan");
    prog.on = prog.on && rank == 0; /* one line for the job, from rank 0 */
    par = plan_columns(o);
    if (o->format == PF_CSV)
        plan_print_csv_header(par);
    for (size_t first = 0; first < space; first += PLAN_CHUNK) {
        size_t n = space - first < PLAN_CHUNK ? space - first : PLAN_CHUNK;
        /* text: this rank's share [lo, hi) of the chunk (all of it in one process) */
        size_t lo = text ? n * rank / ranks : 0, hi = text ? n * (rank + 1) / ranks : n;
        if ((rc = sweep_chunk(o, p, gpus, first + lo, hi - lo, buf, infeasible, par, sel)) != CLI_EXIT_OK)
            goto done;
        cli_progress_update(&prog, (double)(first + n), (double)space);
    }
    cli_progress_end(&prog);
    if (text && (rc = plan_mpi_reduce(sel, infeasible, RIDGE_PLAN_REASON_COUNT)) != CLI_EXIT_OK)
        goto done;
    collective = 0;
    rc = text && rank == 0 ? plan_print_text(o, m, gpus, sel, space, infeasible, par) : CLI_EXIT_OK;
done:
    cli_progress_end(&prog); /* the line erased before an error message */
    if (rc != CLI_EXIT_OK && collective)
        plan_mpi_abort(rc);
    ridge_plan_select_free(sel);
    ridge_plan_free(p);
    ridge_model_free(m);
    free(buf);
    free(prices);
    free(gpus);
    return rc;
}

/* Parse argv into o (help printed by the caller when *help is set): -1 to go on, or an exit code
 * after printing the usage error. --plan FILE is read here, where it stands among the flags. */
static int parse_args(int argc, char **argv, plan_opts *o, int *help)
{
    /* No help text here: cmd_plan prints it (with the plan file's) when *help is set. */
    cli_opts co = {"plan", "", NULL, NULL, 0, -1, NULL};
    int c;
    *help = 0;
    while ((c = cli_getopt(&co, argc, argv, ":ho:", plan_long_opts)) != -1) {
        int r = c == O_PLAN ? plan_file_load(o, optarg) : plan_set_opt(o, c, optarg, NULL);
        if (r)
            return r == -3 ? CLI_EXIT_IO : CLI_EXIT_USAGE;
    }
    *help = co.exit == CLI_EXIT_OK;
    if (co.exit >= 0)
        return co.exit;
    if (optind < argc)
        return cli_extra_arg_error("plan", argv);
    return -1;
}

int cmd_plan(int argc, char **argv)
{
    static plan_opts o; /* large lists: not on the stack */
    int help, rc;
    plan_opts_init(&o);
    if ((rc = parse_args(argc, argv, &o, &help)) >= 0) {
        if (help) {
            fputs(help_text, stdout);
            fputs(help_run, stdout);
        }
        return rc;
    }
    if (o.bench)
        return run_bench(o.threads);
    if (!o.workload)
        return cli_usage_error("plan", "--workload is required");
    if (!o.ngpus && !o.cluster[0])
        return cli_usage_error("plan", "--gpus is required");
    if ((rc = plan_mpi_setup()) != CLI_EXIT_OK) /* under mpirun: load ridge-mpi.so, MPI_Init */
        return rc;
    /* Serving plans and charts are small and run on rank 0 alone; the other ranks stay quiet. */
    if (plan_mpi_rank() > 0 && (o.rate_per_s > 0 || o.slo_p99_s > 0 || o.chart[0]))
        return CLI_EXIT_OK;
    if ((o.ntps || o.npps || o.nzeros) && (o.rate_per_s > 0 || o.slo_p99_s > 0))
        return cli_usage_error("plan", "a serving plan does not take --tp, --pp or --zero");
    if (plan_has_dims(&o) && (o.rate_per_s > 0 || o.slo_p99_s > 0 || o.chart[0]))
        return cli_usage_error("plan", "%s does not take --cluster, --recompute lists, --sp, --virtual-stages or "
                                       "--global-batches",
                               o.chart[0] ? "--chart" : "a serving plan");
    if (o.rate_per_s > 0 || o.slo_p99_s > 0)
        return plan_serve(&o);
    if (!(o.target > 0))
        return cli_usage_error("plan", "--tokens or --samples is required");
    if ((o.ntps || o.npps || o.nzeros) && (o.chart[0] || o.output[0]))
        return cli_usage_error("plan", "--chart does not take --tp, --pp or --zero");
    if (o.chart[0] || o.output[0])
        return o.chart[0] ? plan_chart(&o) : cli_usage_error("plan", "-o/--output needs --chart KIND");
    return run_sweep(&o);
}
