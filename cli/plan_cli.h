/* The pieces of `ridge plan` shared by its files: the options (plan_args.c, plan_file.c), the
 * output of sweeps (plan_out.c), their charts (plan_chart.c), serving plans (plan_serve.c), the
 * setup these three start from (plan_setup.c) and the command (cmd_plan.c), which walks argv.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_PLAN_CLI_H
#define RIDGE_CLI_PLAN_CLI_H

#include <getopt.h>
#include <stddef.h>

#include "model_run.h"
#include "prices.h"
#include "ridge/plan.h"
#include "ridge/plot.h"
#include "ridge/serve_plan.h"

#define PLAN_MAX_LIST 4096
#define PLAN_CHUNK 65536
#define PLAN_MAX_STORED 50000000ul

typedef enum { PF_TEXT = 0, PF_JSONL, PF_CSV } plan_format;

typedef struct {
    const char *workload;
    char workload_buf[4096]; /* a path: PATH_MAX on Linux */
    char workload_from[RIDGE_ERR_MSG_MAX]; /* where it came from: "--workload", "plan.json: $.workload" */
    ridge_run_config run;
    char gpus[PLAN_MAX_LIST][64];
    size_t ngpus;
    char gpus_from[RIDGE_ERR_MSG_MAX]; /* where the list came from: "--gpus", "plan.json: $.gpus" */
    int counts[PLAN_MAX_LIST];
    size_t ncounts;
    int tps[PLAN_MAX_LIST], pps[PLAN_MAX_LIST], zeros[4];
    size_t ntps, npps, nzeros; /* 0: the defaults 1, 1, 0 */
    double batches[PLAN_MAX_LIST];
    size_t nbatches;
    ridge_dtype precisions[16];
    size_t nprecisions;
    cli_prices prices; /* --price, --prices, a plan file's "prices" */
    ridge_plan_target target_kind;
    double target;
    char target_from[RIDGE_ERR_MSG_MAX]; /* "--tokens", "plan.json: $.samples"; "" before either */
    double deadline_s, budget_usd, power_cap_w;
    ridge_plan_objective objective;
    long top;
    int pareto_energy;
    int no_comm;
    long threads;
    plan_format format;
    int bench;
    char chart[32];     /* --chart KIND, "" for none */
    char output[4096];  /* -o/--output CHART.png|svg */
    double rate_per_s;  /* --rate: a serving plan */
    double slo_p99_s;   /* --slo-p99-ms */
    /* Searched dimensions (docs/planning.md, "Searched dimensions"); 0 entries: not given. */
    ridge_recompute recomputes[3]; /* --recompute A,B: a list (one value sets run.recompute instead) */
    size_t nrecomputes;
    int sps[2];                    /* --sp 0,1 */
    size_t nsps;
    int vstages[64];               /* --virtual-stages 1,2,4 */
    size_t nvstages;
    double global_batches[PLAN_MAX_LIST]; /* --global-batches B1,B2 */
    size_t nglobal_batches;
    char cluster[4096];            /* --cluster ID|FILE, "" for the fabric derived from each GPU */
    char cluster_from[RIDGE_ERR_MSG_MAX]; /* "--cluster", "plan.json: $.cluster" */
} plan_opts;

/* ---- plan_args.c: flags and plan files ---- */

/* The option codes: getopt_long's (plan_long_opts) and those of plan-file keys. */
enum {
    O_WORKLOAD = 1, O_GPUS, O_COUNTS, O_BATCHES, O_PRECISIONS, O_TOKENS, O_SAMPLES, O_DEADLINE, O_BUDGET,
    O_POWER, O_OBJECTIVE, O_TOP, O_PARETO, O_NOCOMM, O_THREADS, O_FORMAT, O_PLAN, O_BENCH,
    O_CHART, O_OUTPUT, O_RATE, O_SLO, O_TP, O_PP, O_ZERO,
    O_CLUSTER, O_SP, O_VSTAGES, O_GLOBAL /* the searched dimensions and the fabric */
};

extern const struct option plan_long_opts[];

/* The defaults: one GPU, batch 1, bf16, top 10, all cores (at most 256). */
void plan_opts_init(plan_opts *o);

/* One option by its getopt code, from a flag or a plan-file key: 0, or -1 after printing one line
 * that names the value by label ("plan.json: $.counts"), or by the flag when label is NULL. --plan
 * is not one: the command reads its file with plan_file_load. A list may not name a value twice
 * (after its ranges are expanded), and --tokens and --samples, from wherever, exclude each other. */
int plan_set_opt(plan_opts *o, int code, const char *arg, const char *label);
/* --price ID=USD_PER_HOUR (a plan file's "prices" entries): as plan_set_opt. */
int plan_set_price(plan_opts *o, const char *arg, const char *label);
/* The option code of a plan-file key (a long option name, '-' for '_'); 0 for an unknown key and
 * for those a file cannot hold (plan, bench, help, price: prices go in "prices"). */
int plan_file_key_code(const char *name);

/* ---- plan_file.c ---- */

/* Plan file: the long option names as keys with '-' written '_' (docs/planning.md), each once; a
 * relative path in it (workload and cluster files, prices, host, output) is taken from the plan
 * file's directory. An error in a value names the file and the JSON path. 0, -1 after printing,
 * -3 when it (or a file it names) cannot be read. */
int plan_file_load(plan_opts *o, const char *path);

/* ---- plan_setup.c ---- */

/* The candidate GPUs plan_setup loads: with --cluster the one its nodes have, whatever --gpus
 * held (it may only name that GPU again); else --gpus. */
size_t plan_candidate_gpus(const plan_opts *o);

/* The candidates, their prices, the workload and the plan of o (with counts and target as
 * given). Prints and returns an exit code; the caller frees what was made. */
int plan_setup(const plan_opts *o, const int *counts, size_t ncounts, double target, ridge_gpu **gpus,
               double **prices, ridge_model **m, ridge_plan **p);

/* 1 when o has a searched dimension or --cluster (which charts and serving plans do not take). */
int plan_has_dims(const plan_opts *o);

/* ---- plan_out.c: what sweeps and serving plans print ---- */

/* The columns of a sweep's output (`par` below): tp, pp, zero with parallelism ranges, and one
 * per searched dimension given as a list of two or more values. */
enum { PLAN_COL_PAR = 1, PLAN_COL_RECOMPUTE = 2, PLAN_COL_SP = 4, PLAN_COL_VSTAGES = 8, PLAN_COL_GLOBAL = 16 };
int plan_columns(const plan_opts *o);

void plan_print_csv_header(int par);
void plan_print_row_jsonl(const ridge_plan_result *r, const ridge_gpu *g, int par);
void plan_print_row_csv(const ridge_plan_result *r, const ridge_gpu *g, int par);
/* The ranked top of a whole space (text) from the selection that took every result of it, with
 * its Pareto front marked. Returns an exit code. */
int plan_print_text(const plan_opts *o, const ridge_model *m, const ridge_gpu *gpus, ridge_plan_select *sel,
                    size_t space, const size_t *infeasible, int par);
/* Each candidate's price per GPU-hour and where it comes from, or "no price" and the option that
 * gives one (cli_prices_print). */
void plan_print_prices(const plan_opts *o, const ridge_gpu *gpus);
/* "infeasible: N, REASON N..." and a newline. */
void plan_print_infeasible(size_t n, const size_t *by_reason);
/* A progress bar on stderr. */

/* ---- plan_chart.c: --chart ---- */

/* A chart of the sweep of o (pareto, throughput-batch, breakdown, gpus). Returns an exit code. */
int plan_chart(const plan_opts *o);
/* ---- plan_serve.c ---- */

/* A serving plan (--rate, --slo-p99-ms), printed in o's format, and its chart (--chart serve).
 * Returns an exit code. */
int plan_serve(const plan_opts *o);

#endif
