/* ridge serve, the CLI side: the command's flags and its context around the library's
 * ridge_serve; the run (cli/serve_run.c), the reports (cli/serve_report.c) and the rate sweep
 * (cli/serve_sweep.c). docs/serving.md.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_SERVE_H
#define RIDGE_CLI_SERVE_H

#include "cli.h"
#include "model_run.h"
#include "prices.h"
#include "ridge/comm.h"
#include "ridge/host.h"
#include "ridge/serve.h"

#define SERVE_MAX_GPUS 8
#define SERVE_MAX_SWEEP 200

typedef struct {
    ridge_serve s;                  /* the library's serving context */
    const ridge_cluster *cl, *rep_cl; /* --cluster: the cluster and one replica's cut of it (tp GPUs) */
    int tp;
    int precision_given;            /* --precision; else the best the GPUs have (cli_default_precision) */
    char precision_note[96];
    ridge_host_profile hp;          /* --host (else the default), loaded once by serve_setup_service_model */
    int hp_loaded;
} serve_cli;

/* The flags, as given. */
typedef struct {
    const char *gpu_id, *gpu_file, *wl, *find, *trace, *sweep, *chart, *cluster_id;
    long nodes, tp, sweep_n;
    int replicas_given, ngpus, static_model, batch_given, mode_given, simulate, help;
    int offline; /* --offline: every --requests request queued at time 0 */
    int run_batch_given, output_given, requests_given; /* --batch, --output, --requests */
    cli_run_lengths lens;                              /* --seq, --prompt, --context given */
    double rate, slo_ms, timeout_ms, price, sweep_a, sweep_b;
    cli_format fmt;
    ridge_serve_slo slo; /* --slo-ttft-p99-ms, --slo-tpot-ms (and, for continuous batching, --slo-p99-ms) */
    cli_prices prices;   /* --price, --prices */
    char gpus_buf[1024];
    const char *gpu_list[SERVE_MAX_GPUS];
} serve_opts;

/* Decoder LLMs or not, continuous batching or the queue models: the flags that belong to one
 * service model, a --trace loaded into *trace_cols (the caller frees it). Prints the usage error. */
int serve_setup_service_model(serve_opts *o, serve_cli *c, double **trace_cols);

/* The longest request must fit an LLM's context (else the usage error naming --prompt and
 * --output, or the trace); nothing to check for other models. */
int serve_check_request(const serve_cli *c);

/* One deployment (g receives its GPU); prints, returns an exit code. */
int serve_run(serve_cli *c, serve_opts *o, ridge_gpu *g);

/* The step function of s (cli/serve_run.c): one GPU (ridge_predict_model), or tp GPUs of the
 * cluster (ridge_parallel_predict with tp, pp = dp = 1, microbatch = global batch = the batch). */
int serve_replica_step(const ridge_run_config *rc, void *ctx, double *t_s, ridge_memory *mem, ridge_err *err);

/* Prepare c->s on c->s.g; prints the error and returns an exit code. */
int serve_prepare(serve_cli *c);

/* Without --precision: the best precision the n GPUs all have. */
void serve_default_precision(serve_cli *c, const ridge_gpu *g, int n);

/* "fp16 (the default bf16 has no tensor path on t4), " when the default precision was not kept,
 * else "". */
const char *serve_precision_text(const serve_cli *c, char *buf, size_t cap);

/* The queue's name in the reports: the model's service time is deterministic (M/D). */
const char *serve_queue_title(const serve_cli *c);

/* Continuous batching: what the report shows. */
typedef struct {
    double rate, mean_prompt, mean_out;
    double price;                /* USD per GPU-hour (< 0: the GPU's) */
    const char *find;            /* --find, or NULL */
    const ridge_serve_slo *slo;
    ridge_llm_result r;
} serve_llm_report;

/* The queue models: what the report shows. */
typedef struct {
    double rate, price, slo_ms;
    const char *find;
    ridge_queue_result r;
    int have_sim;
    ridge_des_result sim;
} serve_queue_report;

int serve_report_llm(const serve_cli *c, const serve_llm_report *rep, cli_format fmt);
int serve_report_queue(const serve_cli *c, const serve_queue_report *rep, cli_format fmt);

/* "A:B:N" -> first and last rate, number of points; prints a usage error. */
int serve_parse_sweep(const char *arg, double *a, double *b, long *n);

/* --sweep-rate: latency against offered load for each GPU (--gpus, else --gpu or --gpu-file): table
 * and, with a chart path, .dat/.gp/chart. */
int serve_sweep(serve_cli *c, serve_opts *o);

#endif
