/* ridge serve: latency percentiles, SLO and cost of serving a model at a request rate
 * (docs/serving.md). The serving model is the library's (model/serve/serve.c); this file parses and
 * checks the flags; cli/serve_run.c runs the model for them, cli/serve_report.c prints one
 * deployment and cli/serve_sweep.c a rate sweep. SPDX-License-Identifier: GPL-3.0-or-later */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "model_run.h"
#include "serve_cli.h"

#define SERVE_MAX_REPLICAS 4096
#define SERVE_MAX_SEED 4294967295L /* gsl_rng_set takes 32 bits of the seed */
_Static_assert(LONG_MAX >= SERVE_MAX_SEED, "--seed is parsed as a long");

static const char help[] =
    "usage: ridge serve --gpu ID|--gpu-file PATH --workload ID|FILE --rate R [--replicas N]\n"
    "       ridge serve --cluster ID|FILE [--nodes N] --tp T --workload ID|FILE --rate R [--replicas N]\n"
    "                   [--max-batch B [--batch-timeout-ms T]] [--slo-p99-ms X] [--find max-rate|replicas]\n"
    "                   [--price ID=USD_PER_HOUR] [--prices FILE] [--output N] [--simulate] [--seed S]\n"
    "                   [run options]\n"
    "                   [--slo-ttft-p99-ms X] [--slo-tpot-ms X] [--trace FILE] [--requests N] [--static]\n"
    "                   [--offline] [--max-tokens N]\n"
    "                   [--sweep-rate A:B:N [--gpus ID,ID...] [-o CHART.png|svg]] [--format text|json|csv]\n"
    "\n"
    "Serving a model: requests arrive as a Poisson process at R per second and are served by N\n"
    "replicas, one GPU each (docs/serving.md). The service time of a request comes from the\n"
    "performance model: one inference pass (--mode infer, the default for CNNs and encoders) or,\n"
    "for decoder LLMs, prefill(--prompt) + --output (default 128) x decode at context prompt +\n"
    "output/2 (the static model, --static).\n"
    "\n"
    "Decoder LLMs are served with continuous batching by default (vLLM/Orca style, simulated): each\n"
    "iteration admits waiting requests while fewer than --max-batch (default 256) run and the KV\n"
    "cache holds their prompt + output tokens, prefills them and decodes one token for every running\n"
    "request; iteration times come from the performance model. Prints TTFT, TPOT and end-to-end\n"
    "latency percentiles, tokens/s, the mean running batch, stability and the SLOs: --slo-p99-ms\n"
    "(end to end), --slo-ttft-p99-ms, --slo-tpot-ms (p99 time per output token); the cost is per\n"
    "million output tokens. --trace FILE replays arrivals (CSV or JSON lines: arrival_s, prompt,\n"
    "output). --offline: every request queued at 0 s, throughput to the last token.\n"
    "\n"
    "--sweep-rate A:B:N tabulates latency (mean, p50, p99; end to end) at N rates from A to B for\n"
    "any workload; --gpus ID,ID,... sweeps several GPUs; -o CHART.png|svg writes CHART.dat and\n"
    "CHART.gp and renders them with gnuplot when present.\n"
    "\n"
    "Without --max-batch each replica serves one request at a time: M/D/1 for one replica,\n"
    "M/D/c by the Allen-Cunneen approximation of M/G/c for several; --simulate adds a\n"
    "discrete-event simulation as a check. With --max-batch the replicas batch dynamically (up to B\n"
    "requests, waiting at most T ms for a batch to fill; a batch of b takes the model's time at\n"
    "batch b); the arrivals split evenly over the replicas and each is simulated (no closed form).\n"
    "\n"
    "--cluster ID|FILE --tp T (instead of --gpu): each replica is T GPUs of one node of the cluster\n"
    "running the model with tensor parallelism (docs/parallel.md); service and iteration times come\n"
    "from the multi-GPU model (tp T, pp = dp = 1, microbatch = global batch = the batch). T must\n"
    "divide the GPUs per node; replicas default to (GPUs per node x nodes) / T and --replicas may\n"
    "not exceed that. A replica costs T x the GPU's price per hour (--price is per GPU).\n"
    "\n"
    "Prints utilisation, throughput, mean/p50/p90/p99 latency, stability (with the saturation rate\n"
    "when the queue cannot keep up), whether p99 meets --slo-p99-ms, and the cost per 1,000 requests\n"
    "from the GPU's price per hour (--price or --prices FILE override it: docs/cli.md, \"Prices\"; a\n"
    "MIG slice takes its share of its parent's). --find max-rate: the highest rate\n"
    "whose p99 meets the SLO (Brent's method); --find replicas: the fewest replicas meeting it at R.\n"
    "\n"
    "Options:\n"
    "  --rate R               requests per second (> 0)\n"
    "  --replicas N           GPUs (with --cluster: groups of T GPUs) serving the model (default 1;\n"
    "                         with --cluster: all the cluster's GPUs / T)\n"
    "  --cluster ID|FILE      replicas on a cluster (docs/comm.md) instead of --gpu\n"
    "  --nodes N              with --cluster: number of nodes (default: the cluster's)\n"
    "  --tp T                 with --cluster: tensor-parallel GPUs per replica (default 1)\n"
    ;

/* The options list goes on here (one literal each stays under C's 4,095 characters). */
static const char help_options[] =
    "  --max-batch B          dynamic batching with at most B requests per batch\n"
    "  --batch-timeout-ms T   longest wait for a batch to fill (default 0: take what is queued)\n"
    "  --slo-p99-ms X         latency objective for the 99th percentile\n"
    "  --find max-rate|replicas\n"
    "  --price ID=USD_PER_HOUR, --prices FILE   USD per GPU-hour (default: the catalogue's)\n"
    "  --output N             LLM: tokens generated per request (default 128)\n"
    "  --slo-ttft-p99-ms X    LLM: objective for the 99th percentile of the time to first token\n"
    "  --slo-tpot-ms X        LLM: objective for the 99th percentile of the time per output token\n"
    "  --trace FILE           LLM: arrival_s,prompt,output per line (CSV or JSON lines)\n"
    "  --requests N           LLM: simulated requests (default 20000, a tenth more as warm-up;\n"
    "                         --offline: all of them, no warm-up)\n"
    "  --offline              LLM: every request queued at time 0 (throughput at full load)\n"
    "  --max-tokens N         LLM: tokens per iteration, prompts prefilled in chunks (chunked\n"
    "                         prefill: vLLM's max_num_batched_tokens); default no limit\n"
    "  --static               LLM: the static-batch service model instead of continuous batching\n"
    "  --sweep-rate A:B:N     latency at N rates from A to B requests/s\n"
    "  --gpus ID,ID,...       with --sweep-rate: several GPUs on one table and chart\n"
    "  -o, --chart PATH       with --sweep-rate: chart (.png or .svg) plus .dat and .gp\n"
    "  --simulate             also simulate the queue without batching (200000 requests)\n"
    "  --seed S               simulation seed (default 1)\n";
static const char help_run[] = "\n" CLI_RUN_HELP;

/* --gpus ID,ID,... into o->gpu_list. */
static int parse_gpus(serve_opts *o, const char *arg)
{
    char *p = o->gpus_buf;
    if (snprintf(o->gpus_buf, sizeof o->gpus_buf, "%s", arg) >= (int)sizeof o->gpus_buf)
        return cli_usage_error("serve", "--gpus: the list is too long");
    if (cli_check_list("--gpus", arg))
        return CLI_EXIT_USAGE;
    o->ngpus = 0;
    while (*p) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (*p) {
            if (o->ngpus == SERVE_MAX_GPUS)
                return cli_usage_error("serve", "--gpus: at most %d GPUs", SERVE_MAX_GPUS);
            o->gpu_list[o->ngpus++] = p;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    if (o->ngpus == 0)
        return cli_usage_error("serve", "--gpus: no GPU in '%s'", arg);
    return CLI_EXIT_OK;
}

/* A numeric flag into dst, or return the usage error the parser printed. */
#define PARSE_D(flag, lo, hi, dst)                                                                                   \
    if (cli_parse_double(flag, optarg, lo, hi, dst))                                                                 \
    return CLI_EXIT_USAGE
#define PARSE_L(flag, lo, hi, dst)                                                                                   \
    if (cli_parse_long(flag, optarg, lo, hi, dst))                                                                   \
    return CLI_EXIT_USAGE

/* One serve flag (not a run option); a usage error is printed. */
static int parse_option(int ch, serve_opts *o, serve_cli *c)
{
    long lv;
    switch (ch) {
    case 'g':
        return cli_take_once("serve", "--gpu", &o->gpu_id, optarg,
                             "one GPU per deployment (--gpus ID,ID,... sweeps several)");
    case 'G': return cli_take_once("serve", "--gpu-file", &o->gpu_file, optarg, "one GPU per deployment");
    case 'L': return parse_gpus(o, optarg);
    case 'w': o->wl = optarg; break;
    case 'r':
        PARSE_D("--rate", 1e-9, 1e12, &o->rate);
        break;
    case 'n':
        PARSE_L("--replicas", 1, SERVE_MAX_REPLICAS, &lv);
        c->s.replicas = (int)lv;
        o->replicas_given = 1;
        break;
    case 'C': o->cluster_id = optarg; break;
    case 'N':
        PARSE_L("--nodes", 1, 4096, &o->nodes);
        break;
    case 'p':
        PARSE_L("--tp", 1, 1024, &o->tp);
        break;
    case 'b':
        PARSE_L("--max-batch", 1, RIDGE_SERVE_MAX_BATCH, &lv);
        c->s.max_batch = (int)lv;
        o->batch_given = 1;
        break;
    case 't':
        PARSE_D("--batch-timeout-ms", 0, 1e9, &o->timeout_ms);
        break;
    case 's':
        PARSE_D("--slo-p99-ms", 1e-9, 1e12, &o->slo_ms);
        break;
    case 'T':
        PARSE_D("--slo-ttft-p99-ms", 1e-9, 1e12, &o->slo.ttft_p99_ms);
        break;
    case 'O':
        PARSE_D("--slo-tpot-ms", 1e-9, 1e12, &o->slo.tpot_p99_ms);
        break;
    case 'F':
        if (strcmp(optarg, "max-rate") && strcmp(optarg, "replicas"))
            return cli_usage_error("serve", "--find: '%s' is not max-rate or replicas", optarg);
        o->find = optarg;
        break;
    case 'P':
        PARSE_D("--price-per-hour", CLI_PRICE_MIN_USD, CLI_PRICE_MAX_USD, &o->price);
        break;
    case CLI_OPT_PRICE:
    case CLI_OPT_PRICES:
        if ((lv = cli_prices_option(&o->prices, ch, optarg)) != 0)
            return lv == -3 ? CLI_EXIT_IO : CLI_EXIT_USAGE;
        break;
    case 'u':
        PARSE_L("--output", 0, 10000000, &lv);
        c->s.output = (double)lv;
        o->output_given = 1;
        break;
    case 'R': o->trace = optarg; break;
    case 'q':
        PARSE_L("--requests", 100, 10000000, &lv);
        c->s.requests = (size_t)lv;
        o->requests_given = 1;
        break;
    case 'A': o->static_model = 1; break;
    case 'X': o->offline = 1; break;
    case 'K':
        PARSE_L("--max-tokens", 1, 100000000, &lv);
        c->s.max_tokens = (double)lv;
        break;
    case 'W':
        if (serve_parse_sweep(optarg, &o->sweep_a, &o->sweep_b, &o->sweep_n))
            return CLI_EXIT_USAGE;
        o->sweep = optarg;
        break;
    case 'o': o->chart = optarg; break;
    case 'S': o->simulate = 1; break;
    case 'e':
        /* One message from the parser (a second from here doubled it for -1). */
        PARSE_L("--seed", 0, SERVE_MAX_SEED, &lv);
        c->s.seed = (unsigned long)lv;
        break;
    }
    return CLI_EXIT_OK;
}

static const struct option serve_long_opts[] = {
    CLI_OPTIONS_GPU,
    {"gpus", required_argument, 0, 'L'},          CLI_OPTION_WORKLOAD,
    {"rate", required_argument, 0, 'r'},          {"replicas", required_argument, 0, 'n'},
    {"max-batch", required_argument, 0, 'b'},     {"batch-timeout-ms", required_argument, 0, 't'},
    {"slo-p99-ms", required_argument, 0, 's'},    {"slo-ttft-p99-ms", required_argument, 0, 'T'},
    {"slo-tpot-ms", required_argument, 0, 'O'},   {"find", required_argument, 0, 'F'},
    {"price-per-hour", required_argument, 0, 'P'}, {"output", required_argument, 0, 'u'},
    {"trace", required_argument, 0, 'R'},         {"requests", required_argument, 0, 'q'},
    {"static", no_argument, 0, 'A'},              {"sweep-rate", required_argument, 0, 'W'},
    {"offline", no_argument, 0, 'X'},             {"max-tokens", required_argument, 0, 'K'},
    {"chart", required_argument, 0, 'o'},         {"simulate", no_argument, 0, 'S'},
    {"seed", required_argument, 0, 'e'},          {"cluster", required_argument, 0, 'C'},
    {"nodes", required_argument, 0, 'N'},         {"tp", required_argument, 0, 'p'},
    CLI_OPTION_FORMAT,                            CLI_OPTION_HELP,
    CLI_OPTION_PRICES,                            CLI_RUN_OPTIONS,
    CLI_OPTION_END};

/* The flags, then the combinations that make no sense; prints the usage error. */
static int parse_args(int argc, char **argv, serve_opts *o, serve_cli *c)
{
    cli_opts co = {"serve", help, help_options, &o->fmt, 0, -1, help_run};
    int ch, rc;
    while ((ch = cli_getopt(&co, argc, argv, ":ho:", serve_long_opts)) != -1) {
        if (ch >= CLI_RUN_OPT_BASE) {
            int k = cli_run_option(ch, optarg, NULL, &c->s.run);
            if (k < 0)
                return CLI_RUN_OPTION_EXIT(k);
            o->mode_given |= ch == CLI_RUN_OPT_MODE;
            c->precision_given |= ch == CLI_RUN_OPT_PRECISION;
            o->run_batch_given |= ch == CLI_RUN_OPT_BATCH;
            cli_run_lengths_note(&o->lens, ch);
            continue;
        }
        if ((rc = parse_option(ch, o, c)) != CLI_EXIT_OK)
            return rc;
    }
    if (co.exit >= 0) {
        o->help = co.exit == CLI_EXIT_OK;
        return co.exit;
    }
    if (optind < argc)
        return cli_extra_arg_error("serve", argv);
    if (o->ngpus && (o->gpu_id || o->gpu_file))
        return cli_usage_error("serve", "give --gpus ID,ID... or one of --gpu / --gpu-file, not both");
    if (o->ngpus && !o->sweep)
        return cli_usage_error("serve", "--gpus applies to --sweep-rate; give --gpu ID for one deployment");
    if (o->cluster_id && (o->gpu_id || o->gpu_file || o->ngpus))
        return cli_usage_error("serve", "give --gpu (or --gpu-file, --gpus) or --cluster, not both");
    if (!o->cluster_id && (o->nodes || o->tp))
        return cli_usage_error("serve", "--nodes and --tp need --cluster ID|FILE");
    if (!o->cluster_id && !o->ngpus && !o->gpu_id == !o->gpu_file)
        return cli_usage_error("serve", "give exactly one of --gpu ID, --gpu-file PATH or --cluster ID|FILE");
    if (!o->wl)
        return cli_usage_error("serve", "missing --workload ID|FILE");
    if (o->chart && !o->sweep)
        return cli_usage_error("serve", "-o/--chart needs --sweep-rate A:B:N");
    if (o->sweep && (o->prices.n || o->price >= 0))
        return cli_usage_error("serve", "--sweep-rate shows no cost: --price, --prices and --price-per-hour apply "
                                        "to one deployment");
    if (o->price >= 0 && o->prices.n) /* it would win over them whatever their order */
        return cli_usage_error("serve", "--price-per-hour: not with --price or --prices; give the GPU's price once");
    if (o->sweep && (o->find || o->trace || o->simulate))
        return cli_usage_error("serve", "--sweep-rate does not combine with --find, --trace or --simulate");
    if (o->offline && (o->rate > 0 || o->trace || o->find || o->sweep || o->static_model || o->simulate ||
                       o->slo_ms > 0 || o->slo.ttft_p99_ms > 0 || o->slo.tpot_p99_ms > 0))
        return cli_usage_error("serve", "--offline queues every request at time 0: it takes no --rate, --trace, "
                                        "--find, --sweep-rate, --static, --simulate or SLO");
    if (o->rate <= 0 && !(o->find && strcmp(o->find, "max-rate") == 0) && !o->sweep && !o->trace && !o->offline)
        return cli_usage_error("serve", "missing --rate R (requests per second)");
    if (o->trace && o->find && strcmp(o->find, "max-rate") == 0)
        return cli_usage_error("serve", "--find max-rate does not apply to a --trace (its arrivals fix the rate)");
    /* Options the run would ignore are refused, not dropped. */
    if (o->find && strcmp(o->find, "max-rate") == 0 && o->rate > 0)
        return cli_usage_error("serve", "--find max-rate searches the rate: give no --rate");
    if (o->trace && (o->rate > 0 || o->lens.prompt || o->output_given || o->requests_given))
        return cli_usage_error("serve", "--trace gives the arrivals, prompts and outputs: it takes no --rate, "
                                        "--prompt, --output or --requests");
    if (o->run_batch_given)
        return cli_usage_error("serve", "--batch: a server's batches come from its queue (--max-batch B for "
                                        "dynamic or continuous batching; without it one request at a time)");
    if (o->timeout_ms >= 0 && !c->s.max_batch)
        return cli_usage_error("serve", "--batch-timeout-ms needs --max-batch");
    if (c->s.run.mode == RIDGE_MODE_TRAIN)
        return cli_usage_error("serve", "--mode train: serving runs infer, prefill or decode");
    if (o->simulate && c->s.max_batch)
        return cli_usage_error("serve", "--simulate applies without --max-batch (batching is always simulated)");
    return CLI_EXIT_OK;
}

/* --cluster: load it, cut one replica (tp GPUs of one node) out of it, size the replicas. */
static int setup_cluster(const serve_opts *o, serve_cli *c, ridge_cluster *cl, ridge_cluster *rep_cl)
{
    long gpus, tp = o->tp ? o->tp : 1;
    ridge_err err;
    int st = ridge_cluster_load(o->cluster_id, (int)o->nodes, cl, &err);
    if (st != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(st);
    }
    if (cl->gpus_per_node % tp != 0)
        return cli_usage_error("serve", "--tp %ld: does not divide the %d GPUs per node of %s (a replica is one "
                                        "tensor-parallel group inside a node)",
                               tp, cl->gpus_per_node, cl->id);
    gpus = (long)cl->gpus_per_node * cl->nodes;
    c->s.max_replicas = (int)(gpus / tp < SERVE_MAX_REPLICAS ? gpus / tp : SERVE_MAX_REPLICAS);
    if (o->replicas_given && c->s.replicas > c->s.max_replicas)
        return cli_usage_error("serve", "--replicas %d: cluster %s has %ld GPUs, room for %d replicas of --tp %ld",
                               c->s.replicas, cl->id, gpus, c->s.max_replicas, tp);
    if (!o->replicas_given)
        c->s.replicas = c->s.max_replicas;
    /* One replica: tp GPUs of one node, so tp x pp x dp = its GPUs with pp = dp = 1. */
    ridge_serve_replica_cluster(cl, (int)tp, rep_cl);
    c->cl = cl;
    c->rep_cl = rep_cl;
    c->tp = (int)tp;
    c->s.tensor_parallel = 1;
    c->s.gpus_per_replica = (int)tp;
    return CLI_EXIT_OK;
}

int cmd_serve(int argc, char **argv)
{
    serve_opts o = {0};
    serve_cli *c = calloc(1, sizeof *c);
    ridge_cluster *cl = NULL, *rep_cl = NULL;
    ridge_model *m = NULL;
    cli_workload wl = {0};
    double *trace_cols = NULL;
    ridge_gpu g;
    ridge_err err;
    int rc, st;
    if (!c) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    ridge_run_config_init(&c->s.run);
    c->s.run.mode = RIDGE_MODE_INFER;
    c->s.step = serve_replica_step;
    c->s.step_ctx = c;
    c->s.gpus_per_replica = 1;
    c->s.replicas = 1;
    c->s.output = 128;
    c->s.seed = 1;
    c->s.customers = 100000;
    c->s.requests = 20000;
    c->s.max_replicas = SERVE_MAX_REPLICAS;
    o.timeout_ms = -1;
    o.price = -1;
    if ((rc = parse_args(argc, argv, &o, c)) != CLI_EXIT_OK || o.help)
        goto done;
    c->s.timeout_s = o.timeout_ms > 0 ? o.timeout_ms / 1e3 : 0;
    cli_workload_init(&wl, o.wl);
    if (cli_workload_is_oplist(&wl)) {
        rc = cli_usage_error("serve", "%s is an operator list; serve needs a model (built-in id or model file)", o.wl);
        goto done;
    }
    if ((st = cli_workload_model(&wl, &m, &err)) != RIDGE_OK) {
        cli_error("%s", err.msg);
        rc = cli_exit_code(st);
        goto done;
    }
    c->s.m = m;
    if (o.cluster_id) {
        cl = malloc(sizeof *cl);
        rep_cl = malloc(sizeof *rep_cl);
        if (!cl || !rep_cl) {
            cli_error("out of memory");
            rc = CLI_EXIT_FAILURE;
            goto done;
        }
        if ((rc = setup_cluster(&o, c, cl, rep_cl)) != CLI_EXIT_OK)
            goto done;
    }
    if ((rc = serve_setup_service_model(&o, c, &trace_cols)) == CLI_EXIT_OK &&
        (rc = serve_check_request(c)) == CLI_EXIT_OK)
        rc = o.sweep ? serve_sweep(c, &o) : serve_run(c, &o, &g);
done:
    free(trace_cols);
    free(cl);
    free(rep_cl);
    ridge_model_free(m);
    cli_workload_free(&wl);
    free(c);
    return rc;
}
