/* ridge serve: latency percentiles, SLO and cost of serving a model at a request rate
 * (docs/serving.md). SPDX-License-Identifier: GPL-3.0-or-later */
#include <ctype.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "model_run.h"
#include "ridge/comm.h"
#include "ridge/parallel.h"
#include "ridge/plot.h"
#include "ridge/queue.h"
#include "ridge/schedule.h"
#include "ridge/workload.h"

#define SERVE_MAX_BATCH 1024
#define SERVE_MAX_REPLICAS 4096
#define SERVE_MAX_GPUS 8
#define SERVE_MAX_SWEEP 200
#define SERVE_MAX_SEED 4294967295L /* gsl_rng_set takes 32 bits of the seed */
_Static_assert(LONG_MAX >= SERVE_MAX_SEED, "--seed is parsed as a long");
#define LLM_DEFAULT_MAX_BATCH 256
#define LLM_GRID_CTX 6   /* decode-time grid: context points */
#define LLM_GRID_MAX 12  /* batch points: 1, 2, 4, ..., max_batch */

static const char help[] =
    "usage: ridge serve --gpu ID|--gpu-file PATH --workload ID|FILE --rate R [--replicas N]\n"
    "       ridge serve --cluster ID|FILE [--nodes N] --tp T --workload ID|FILE --rate R [--replicas N]\n"
    "                   [--max-batch B [--batch-timeout-ms T]] [--slo-p99-ms X] [--find max-rate|replicas]\n"
    "                   [--price-per-hour P] [--output N] [--simulate] [--seed S] [run options]\n"
    "                   [--slo-ttft-p99-ms X] [--slo-tpot-ms X] [--trace FILE] [--requests N] [--static]\n"
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
    "output).\n"
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
    "not exceed that. A replica costs T x the GPU's price per hour (--price-per-hour is per GPU).\n"
    "\n"
    "Prints utilisation, throughput, mean/p50/p90/p99 latency, stability (with the saturation rate\n"
    "when the queue cannot keep up), whether p99 meets --slo-p99-ms, and the cost per 1,000 requests\n"
    "from the GPU's price per hour (--price-per-hour overrides). --find max-rate: the highest rate\n"
    "whose p99 meets the SLO (Brent's method); --find replicas: the fewest replicas meeting it at R.\n"
    "\n";

static const char help_options[] =
    "Options:\n"
    "  --rate R               requests per second (> 0)\n"
    "  --replicas N           GPUs (with --cluster: groups of T GPUs) serving the model (default 1;\n"
    "                         with --cluster: all the cluster's GPUs / T)\n"
    "  --cluster ID|FILE      replicas on a cluster (docs/comm.md) instead of --gpu\n"
    "  --nodes N              with --cluster: number of nodes (default: the cluster's)\n"
    "  --tp T                 with --cluster: tensor-parallel GPUs per replica (default 1)\n"
    "  --max-batch B          dynamic batching with at most B requests per batch\n"
    "  --batch-timeout-ms T   longest wait for a batch to fill (default 0: take what is queued)\n"
    "  --slo-p99-ms X         latency objective for the 99th percentile\n"
    "  --find max-rate|replicas\n"
    "  --price-per-hour P     US dollars per GPU-hour (default: the GPU's catalogue price)\n"
    "  --output N             LLM: tokens generated per request (default 128)\n"
    "  --slo-ttft-p99-ms X    LLM: objective for the 99th percentile of the time to first token\n"
    "  --slo-tpot-ms X        LLM: objective for the 99th percentile of the time per output token\n"
    "  --trace FILE           LLM: arrival_s,prompt,output per line (CSV or JSON lines)\n"
    "  --requests N           LLM: simulated requests (default 20000, a tenth more as warm-up)\n"
    "  --static               LLM: the static-batch service model instead of continuous batching\n"
    "  --sweep-rate A:B:N     latency at N rates from A to B requests/s\n"
    "  --gpus ID,ID,...       with --sweep-rate: several GPUs on one table and chart\n"
    "  -o, --chart PATH       with --sweep-rate: chart (.png or .svg) plus .dat and .gp\n"
    "  --simulate             also simulate the queue without batching (200000 requests)\n"
    "  --seed S               simulation seed (default 1)\n"
    "\n" CLI_RUN_HELP;

typedef struct {
    const ridge_gpu *g;
    const ridge_model *m;
    ridge_run_config run;
    int llm;
    double output;
    int max_batch;        /* 0: no batching */
    double timeout_s;
    double *service_s;    /* s(b), b = 1..max(1, max_batch) */
    int replicas;
    unsigned long seed;
    size_t customers;     /* batching simulation size */
    /* Continuous batching (decoder LLMs): iteration times on a grid, interpolated. */
    int continuous;
    size_t requests;      /* simulated requests (measured) */
    int nb, nc;           /* grid sizes */
    double grid_b[LLM_GRID_MAX], grid_c[LLM_GRID_CTX];
    double decode_s[LLM_GRID_MAX][LLM_GRID_CTX]; /* one decode step at batch b, context c */
    double prefill_s[LLM_GRID_MAX];              /* prefill of b prompts of prefill_prompt tokens */
    double prefill_prompt;
    double kv_bytes_per_token, kv_capacity_bytes;
    const double *trace_s, *trace_prompt, *trace_output; /* --trace (owned by cmd_serve) */
    size_t trace_n;
    /* --cluster: one replica = tp GPUs of one node (rep_cl: the cluster cut to those GPUs). */
    const ridge_cluster *cl, *rep_cl;
    int tp;
    int max_replicas;     /* SERVE_MAX_REPLICAS, or the cluster's GPUs / tp */
    int precision_given;  /* --precision; else the best the GPUs have (cli_default_precision) */
    char precision_note[96];
} serve_ctx;

/* Time of one run (rc) of one replica: one GPU (cli_model_predict), or tp GPUs of the cluster
 * (ridge_parallel_predict with tp, pp = dp = 1, microbatch = global batch = rc->batch).
 * Prints the error and returns an exit code; mem (may be NULL) gets the memory per GPU. */
static int replica_predict(const serve_ctx *s, const ridge_run_config *rc, double *t_s, ridge_memory *mem)
{
    if (s->rep_cl) {
        ridge_parallel_config pc;
        ridge_parallel_result r;
        ridge_err err;
        int st;
        ridge_parallel_config_init(&pc);
        pc.tp = s->tp;
        pc.microbatch = rc->batch;
        pc.global_batch = rc->batch;
        st = ridge_parallel_predict(s->rep_cl, s->m, rc, &pc, RIDGE_RUNTIME_EAGER, &r, &err);
        if (st != RIDGE_OK) {
            cli_error("%s", err.msg);
            return cli_exit_code(st);
        }
        *t_s = r.step_time_s;
        if (mem)
            *mem = r.memory;
        return CLI_EXIT_OK;
    } else {
        cli_model_prediction p;
        int rc_exit = cli_model_predict(s->g, s->m, rc, RIDGE_RUNTIME_EAGER, &p);
        *t_s = p.time_s;
        if (mem)
            *mem = p.mem;
        cli_model_prediction_free(&p);
        return rc_exit;
    }
}

/* GPUs per replica (1 without --cluster). */
static int replica_gpus(const serve_ctx *s)
{
    return s->rep_cl ? s->tp : 1;
}

/* Service time of a batch of b requests: one pass, or prefill + output x decode for an LLM. */
static int service_time(const serve_ctx *s, double b, double *t_s)
{
    ridge_run_config rc = s->run;
    double t;
    int rc_exit;
    rc.batch = b;
    if (!s->llm)
        return replica_predict(s, &rc, t_s, NULL);
    rc.mode = RIDGE_MODE_PREFILL;
    rc_exit = replica_predict(s, &rc, t_s, NULL);
    if (rc_exit != CLI_EXIT_OK || s->output <= 0)
        return rc_exit;
    rc.mode = RIDGE_MODE_DECODE;
    rc.context = (s->run.prompt > 0 ? s->run.prompt : 512) + floor(s->output / 2);
    rc_exit = replica_predict(s, &rc, &t, NULL);
    *t_s += s->output * t;
    return rc_exit;
}

/* The system at a total rate: closed form or, with batching, simulation of one replica. */
static int evaluate(const serve_ctx *s, double rate, int replicas, ridge_queue_result *r, ridge_err *err)
{
    if (s->max_batch > 0) {
        ridge_batch_params bp = {0};
        ridge_des_result sim;
        int st;
        bp.rate_per_s = rate / replicas;
        bp.max_batch = s->max_batch;
        bp.batch_timeout_s = s->timeout_s;
        bp.batch_service_s = s->service_s;
        bp.customers = s->customers;
        bp.seed = s->seed;
        st = ridge_queue_batch(&bp, r, &sim, err);
        r->saturation_rate_per_s *= replicas;
        r->throughput_per_s *= replicas;
        return st;
    } else {
        ridge_queue_params p;
        ridge_queue_params_init(&p);
        p.rate_per_s = rate;
        p.mean_service_s = s->service_s[0];
        p.service_cs2 = 0; /* the model's service time is deterministic */
        p.servers = replicas;
        return ridge_queue_mgc(&p, r, err);
    }
}

static int p99_at(double rate, void *ctx, double *v)
{
    const serve_ctx *s = ctx;
    ridge_queue_result r;
    ridge_err err;
    if (evaluate(s, rate, s->replicas, &r, &err) != RIDGE_OK)
        return -1;
    /* Unstable: report a latency above any objective so the root stays below saturation. */
    *v = r.stable ? r.p99_s : 1e30;
    return 0;
}

static const char *yesno(int v)
{
    return v ? "yes" : "no";
}

/* ---- continuous batching (decoder LLMs) ---- */

/* One prediction of the performance model at a batch, mode and token count. */
static int llm_predict(const serve_ctx *s, ridge_mode mode, double batch, double tokens, double *t_s)
{
    ridge_run_config rc = s->run;
    int rc_exit;
    rc.mode = mode;
    rc.batch = batch;
    if (mode == RIDGE_MODE_PREFILL)
        rc.prompt = tokens;
    else
        rc.context = tokens;
    rc_exit = replica_predict(s, &rc, t_s, NULL);
    if (rc_exit == CLI_EXIT_OK && !(*t_s > 0)) {
        cli_error("%s on %s: predicted %s time is not positive", ridge_model_name(s->m), s->g->id,
                  ridge_mode_name(mode));
        return CLI_EXIT_FAILURE;
    }
    return rc_exit;
}

/* Piecewise-linear position of x on an increasing grid: cell i and weight w of grid[i + 1]. */
static void grid_pos(const double *grid, int n, double x, int *i, double *w)
{
    int k = 0;
    if (n < 2 || x <= grid[0]) {
        *i = 0;
        *w = n < 2 ? 0 : (x - grid[0]) / (grid[1] - grid[0]); /* extrapolates below the grid */
        return;
    }
    while (k < n - 2 && x > grid[k + 1])
        k++;
    *i = k;
    *w = (x - grid[k]) / (grid[k + 1] - grid[k]);
}

/* The iteration cost for the simulator: decode step (bilinear on the grid) + prefill (linear in the
 * number of prompts, scaled to the tokens). The two are separate kernels launched one after the
 * other, as in an engine without chunked prefill (docs/serving.md). */
static int llm_iter_cost(double dec, double ctx, double preq, double ptok, void *p, double *t_s)
{
    const serve_ctx *s = p;
    double t = 0, w, u;
    int i, j;
    if (dec > 0) {
        double lo, hi;
        grid_pos(s->grid_b, s->nb, dec, &i, &w);
        grid_pos(s->grid_c, s->nc, ctx, &j, &u);
        if (s->nc < 2) {
            lo = s->decode_s[i][0];
            hi = s->nb < 2 ? lo : s->decode_s[i + 1][0];
        } else {
            lo = s->decode_s[i][j] + u * (s->decode_s[i][j + 1] - s->decode_s[i][j]);
            hi = s->nb < 2 ? lo
                           : s->decode_s[i + 1][j] + u * (s->decode_s[i + 1][j + 1] - s->decode_s[i + 1][j]);
        }
        t += s->nb < 2 ? lo * dec : lo + w * (hi - lo);
    }
    if (preq > 0 && ptok > 0) {
        double v;
        grid_pos(s->grid_b, s->nb, preq, &i, &w);
        v = s->nb < 2 ? s->prefill_s[0] * preq : s->prefill_s[i] + w * (s->prefill_s[i + 1] - s->prefill_s[i]);
        t += v * ptok / (preq * s->prefill_prompt);
    }
    *t_s = t;
    return t > 0 && isfinite(t) ? 0 : -1;
}

/* KV bytes per token (difference of two contexts, so fixed terms cancel) and the memory left for
 * the KV cache: GPU memory - weights - workspace. The contexts are 0 and 1, which any decoder
 * takes (one with 1024 learned positions refused 2048). */
static int llm_kv(serve_ctx *s)
{
    ridge_run_config rc = s->run;
    ridge_memory m1, m2;
    ridge_err err;
    int st;
    rc.mode = RIDGE_MODE_DECODE;
    rc.batch = 1;
    rc.context = 0;
    st = ridge_model_memory(s->m, &rc, &m1, &err);
    rc.context = 1;
    if (st == RIDGE_OK)
        st = ridge_model_memory(s->m, &rc, &m2, &err);
    if (st != RIDGE_OK) {
        cli_error("%s: %s", ridge_model_name(s->m), err.msg);
        return cli_exit_code(st);
    }
    if (s->rep_cl) {
        /* Per GPU of the tensor-parallel group (weights and KV heads sharded), times tp: the
         * replica's KV per token and free memory (their ratio, the tokens held, is per GPU). */
        double t;
        rc.context = 0;
        if ((st = replica_predict(s, &rc, &t, &m1)) != CLI_EXIT_OK)
            return st;
        rc.context = 1;
        if ((st = replica_predict(s, &rc, &t, &m2)) != CLI_EXIT_OK)
            return st;
    }
    s->kv_bytes_per_token = (m2.kv_cache_bytes - m1.kv_cache_bytes) * replica_gpus(s);
    s->kv_capacity_bytes = (s->g->memory_bytes - m1.weights_bytes - m1.workspace_bytes) * replica_gpus(s);
    if (!(s->kv_bytes_per_token > 0) || !(s->kv_capacity_bytes > 0)) {
        cli_error("%s on %s: no room for a KV cache (%g GB of memory, %g GB of weights%s)", ridge_model_name(s->m),
                  s->g->id, s->g->memory_bytes / 1e9, (s->g->memory_bytes - s->kv_capacity_bytes / replica_gpus(s)) / 1e9,
                  s->rep_cl ? " per GPU at the tensor-parallel size" : "");
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* Fill the iteration-time grid on the current GPU: batches 1, 2, 4, ..., max_batch; contexts
 * spread over [shortest prompt, longest prompt + output - 1] (the last decode step's). */
static int llm_prepare(serve_ctx *s)
{
    double pmin = s->run.prompt > 0 ? s->run.prompt : 512, pmax = pmin, omax = s->output, psum = 0;
    int rc;
    if (s->trace_n) {
        pmin = HUGE_VAL;
        pmax = omax = 0;
        for (size_t i = 0; i < s->trace_n; i++) {
            pmin = fmin(pmin, s->trace_prompt[i]);
            pmax = fmax(pmax, s->trace_prompt[i]);
            omax = fmax(omax, s->trace_output[i]);
            psum += s->trace_prompt[i];
        }
        s->prefill_prompt = floor(psum / (double)s->trace_n + 0.5);
    } else {
        s->prefill_prompt = pmin;
    }
    s->nb = 0;
    for (double b = 1; b < s->max_batch && s->nb < LLM_GRID_MAX - 1; b *= 2)
        s->grid_b[s->nb++] = b;
    s->grid_b[s->nb++] = s->max_batch;
    s->nc = pmax + omax - 1 > pmin ? LLM_GRID_CTX : 1;
    for (int j = 0; j < s->nc; j++)
        s->grid_c[j] = floor(pmin + (pmax + omax - 1 - pmin) * j / (s->nc > 1 ? s->nc - 1 : 1));
    for (int i = 0; i < s->nb; i++) {
        for (int j = 0; j < s->nc; j++) {
            rc = llm_predict(s, RIDGE_MODE_DECODE, s->grid_b[i], s->grid_c[j], &s->decode_s[i][j]);
            if (rc != CLI_EXIT_OK)
                return rc;
        }
        rc = llm_predict(s, RIDGE_MODE_PREFILL, s->grid_b[i], s->prefill_prompt, &s->prefill_s[i]);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    return llm_kv(s);
}

/* Simulate one replica at rate / replicas (a trace: every replicas-th request). */
static int llm_evaluate(const serve_ctx *s, double rate, int replicas, ridge_llm_result *r, ridge_err *err)
{
    ridge_llm_config c;
    double *sub = NULL;
    int st;
    ridge_llm_config_init(&c);
    c.prompt_tokens = s->run.prompt > 0 ? s->run.prompt : 512;
    c.output_tokens = s->output;
    c.max_batch = s->max_batch;
    c.kv_bytes_per_token = s->kv_bytes_per_token;
    c.kv_capacity_bytes = s->kv_capacity_bytes;
    c.iter_time = llm_iter_cost;
    c.iter_ctx = (void *)(uintptr_t)s;
    c.seed = s->seed;
    c.requests = s->requests;
    c.warmup = s->requests / 10;
    if (s->trace_n) {
        size_t n = (s->trace_n + (size_t)replicas - 1) / (size_t)replicas, k = 0;
        sub = malloc(3 * n * sizeof *sub);
        if (!sub)
            return ridge_err_set(err, RIDGE_ENOMEM, "out of memory for the trace");
        for (size_t i = 0; i < s->trace_n; i += (size_t)replicas, k++) {
            sub[k] = s->trace_s[i];
            sub[n + k] = s->trace_prompt[i];
            sub[2 * n + k] = s->trace_output[i];
        }
        c.arrival = RIDGE_ARRIVAL_TRACE;
        c.trace_s = sub;
        c.trace_prompt = sub + n;
        c.trace_output = sub + 2 * n;
        c.trace_n = k;
        c.warmup = k / 10;
        c.requests = k - c.warmup;
    } else {
        c.rate_per_s = rate / replicas;
    }
    st = ridge_llm_run(&c, r, err);
    free(sub);
    return st;
}

typedef struct {
    double e2e_ms, ttft_ms, tpot_ms; /* 0: not set */
} llm_slo;

static int llm_slo_holds(const llm_slo *slo, const ridge_llm_result *r)
{
    return r->stable && (slo->e2e_ms <= 0 || r->e2e.p99_s * 1e3 <= slo->e2e_ms) &&
           (slo->ttft_ms <= 0 || r->ttft.p99_s * 1e3 <= slo->ttft_ms) &&
           (slo->tpot_ms <= 0 || r->tpot.p99_s * 1e3 <= slo->tpot_ms);
}

/* ---- traces: arrival_s,prompt,output per line (CSV, optional header) or JSON lines ---- */

static int trace_field(cJSON *o, const char *key, double *v)
{
    cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(it))
        return -1;
    *v = it->valuedouble;
    return 0;
}

static int trace_load(const char *path, double **out, size_t *n_out)
{
    char *text = NULL, *line, *text_end;
    size_t len = 0, n = 0, cap = 0, lineno = 0;
    double *v = NULL;
    int rc = cli_read_file(path, &text, &len);
    if (rc != CLI_EXIT_OK)
        return rc;
    text_end = text + len;
    for (line = text; line < text_end; line += strlen(line) + 1) {
        char *p = line, *end, *nl = memchr(line, '\n', (size_t)(text_end - line));
        double a, pr, o;
        lineno++;
        if (nl)
            *nl = '\0';
        if (strlen(line) != (size_t)((nl ? nl : text_end) - line)) {
            cli_error("%s:%zu: a NUL byte: not a text file", path, lineno);
            rc = CLI_EXIT_USAGE;
            goto done;
        }
        while (isspace((unsigned char)*p))
            p++;
        if (!*p || *p == '#')
            continue;
        if (*p == '{') {
            cJSON *j = cJSON_ParseWithLength(p, strlen(p));
            int bad = !j || trace_field(j, "arrival_s", &a) || trace_field(j, "prompt", &pr) ||
                      trace_field(j, "output", &o);
            cJSON_Delete(j);
            if (bad) {
                cli_error("%s:%zu: need {\"arrival_s\": T, \"prompt\": P, \"output\": O}", path, lineno);
                rc = CLI_EXIT_USAGE;
                goto done;
            }
        } else {
            if (isalpha((unsigned char)*p) && n == 0)
                continue; /* a CSV header */
            a = strtod(p, &end);
            if (end == p || *end != ',')
                goto bad_csv;
            p = end + 1;
            pr = strtod(p, &end);
            if (end == p || *end != ',')
                goto bad_csv;
            p = end + 1;
            o = strtod(p, &end);
            if (end == p)
                goto bad_csv;
            while (isspace((unsigned char)*end))
                end++;
            if (*end)
                goto bad_csv;
        }
        if (!isfinite(a) || a < 0 || (n && a < v[3 * (n - 1)]) || !(pr >= 1) || !(o >= 1) ||
            pr > RIDGE_RUN_TOKENS_MAX || o > RIDGE_RUN_TOKENS_MAX) {
            cli_error("%s:%zu: arrival %g s must be >= 0 and not earlier than the one before; prompt and output "
                      "1 to %d tokens",
                      path, lineno, a, RIDGE_RUN_TOKENS_MAX);
            rc = CLI_EXIT_USAGE;
            goto done;
        }
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 1024;
            double *nv = realloc(v, 3 * nc * sizeof *nv);
            if (!nv) {
                cli_error("out of memory");
                rc = CLI_EXIT_FAILURE;
                goto done;
            }
            v = nv;
            cap = nc;
        }
        v[3 * n] = a;
        v[3 * n + 1] = floor(pr);
        v[3 * n + 2] = floor(o);
        n++;
        continue;
    bad_csv:
        cli_error("%s:%zu: need arrival_s,prompt,output", path, lineno);
        rc = CLI_EXIT_USAGE;
        goto done;
    }
    if (n < 20) {
        cli_error("%s: %zu requests; a trace needs at least 20", path, n);
        rc = CLI_EXIT_USAGE;
    }
done:
    free(text);
    if (rc == CLI_EXIT_OK) {
        /* Rows to columns: arrivals, then prompts, then outputs. */
        double *cols = malloc(3 * n * sizeof *cols);
        if (!cols) {
            cli_error("out of memory");
            rc = CLI_EXIT_FAILURE;
        } else {
            for (size_t i = 0; i < n; i++) {
                cols[i] = v[3 * i];
                cols[n + i] = v[3 * i + 1];
                cols[2 * n + i] = v[3 * i + 2];
            }
            *out = cols;
            *n_out = n;
        }
    }
    free(v);
    return rc;
}

/* s(b) for b = 1..max(1, max_batch) on the current GPU (the queue models). */
static int prepare_service(serve_ctx *s)
{
    int nserv = s->max_batch > 0 ? s->max_batch : 1;
    free(s->service_s);
    s->service_s = calloc((size_t)nserv, sizeof *s->service_s);
    if (!s->service_s) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    for (int k = 1; k <= nserv; k++) {
        int rc = service_time(s, k, &s->service_s[k - 1]);
        if (rc != CLI_EXIT_OK)
            return rc;
        if (!(s->service_s[k - 1] > 0)) {
            cli_error("%s on %s: predicted service time is not positive", ridge_model_name(s->m), s->g->id);
            return CLI_EXIT_FAILURE;
        }
    }
    return CLI_EXIT_OK;
}

/* An LLM request holds its prompt and output tokens in the KV cache by its last decode step,
 * which attends to all of them: the model must take that sequence. Checked once, here, so the
 * error names --prompt and --output (or the trace) rather than the --context of a decode step
 * serve derives from them. */
static int check_request_tokens(const serve_ctx *s)
{
    double prompt = s->run.prompt > 0 ? s->run.prompt : 512, output = s->output;
    ridge_run_config rc = s->run;
    ridge_oplist ol = {0};
    ridge_err err;
    int st;
    for (size_t i = 0; i < s->trace_n; i++)
        if (i == 0 || s->trace_prompt[i] + s->trace_output[i] > prompt + output) {
            prompt = s->trace_prompt[i];
            output = s->trace_output[i];
        }
    if (output < 1)
        return CLI_EXIT_OK; /* no decode step */
    rc.mode = RIDGE_MODE_DECODE;
    rc.batch = 1;
    rc.context = prompt + output - 1;
    st = ridge_model_build(s->m, &rc, &ol, &err);
    ridge_oplist_free(&ol);
    if (st != RIDGE_OK) {
        if (s->trace_n)
            cli_error("%s: the trace's longest request, %.0f prompt + %.0f output = %.0f tokens, does not fit the "
                      "model (its last decode step: %s)",
                      ridge_model_name(s->m), prompt, output, prompt + output, err.msg);
        else
            cli_error("%s: a request of --prompt %.0f + --output %.0f = %.0f tokens does not fit the model (its "
                      "last decode step: %s)",
                      ridge_model_name(s->m), prompt, output, prompt + output, err.msg);
        return cli_exit_code(st);
    }
    return CLI_EXIT_OK;
}

static int prepare(serve_ctx *s)
{
    return s->continuous ? llm_prepare(s) : prepare_service(s);
}

static void stats_json(cJSON *root, const char *key, const ridge_llm_stats *st)
{
    cJSON *o = cJSON_AddObjectToObject(root, key);
    cJSON_AddNumberToObject(o, "mean", st->mean_s);
    cJSON_AddNumberToObject(o, "p50", st->p50_s);
    cJSON_AddNumberToObject(o, "p90", st->p90_s);
    cJSON_AddNumberToObject(o, "p99", st->p99_s);
}

static void stats_text(const char *label, const ridge_llm_stats *st)
{
    char b[4][48];
    printf("%-18smean %s, p50 %s, p90 %s, p99 %s\n", label, cli_num(st->mean_s * 1e3, b[0], 48),
           cli_num(st->p50_s * 1e3, b[1], 48), cli_num(st->p90_s * 1e3, b[2], 48), cli_num(st->p99_s * 1e3, b[3], 48));
}

/* --cluster: the cluster and tensor-parallel size in JSON. */
static void cluster_json(const serve_ctx *s, cJSON *root)
{
    if (!s->cl)
        return;
    cJSON_AddStringToObject(root, "cluster", s->cl->id);
    cJSON_AddNumberToObject(root, "cluster_gpus", (double)s->cl->gpus_per_node * s->cl->nodes);
    cJSON_AddNumberToObject(root, "tp", s->tp);
    cJSON_AddNumberToObject(root, "gpus_per_replica", s->tp);
}

/* The first line of the text report: "MODEL on GPU (NAME)" or, on a cluster, the replica layout. */
/* "fp16 (the default bf16 has no tensor path on t4), " when the default precision was not kept
 * (the headers say which one runs), else "". */
static const char *precision_text(const serve_ctx *s, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (s->precision_note[0])
        snprintf(buf, cap, "%s%s, ", ridge_dtype_name(s->run.precision), s->precision_note);
    return buf;
}

static void title_text(const serve_ctx *s, const char *what)
{
    char mname[CLI_NAME_TEXT_CAP], name[CLI_NAME_TEXT_CAP], prec[128];
    cli_text(ridge_model_name(s->m), mname, sizeof mname);
    precision_text(s, prec, sizeof prec);
    if (s->cl)
        printf("%s on %s (%s), replicas of %d x %s with tensor parallelism (tp %d), %s%s\n\n", mname, s->cl->id,
               cli_text(s->cl->name, name, sizeof name), s->tp, s->g->id, s->tp, prec, what);
    else
        printf("%s on %s (%s), %s%s\n\n", mname, s->g->id, cli_text(s->g->name, name, sizeof name), prec, what);
}

/* Without --precision: the best precision the n GPUs all have. */
static void default_precision(serve_ctx *s, const ridge_gpu *g, int n)
{
    if (!s->precision_given)
        cli_default_precision(&s->run, g, n, s->precision_note, sizeof s->precision_note);
}

/* The price part of the cost line: "(P USD per GPU-hour)" [", T GPUs per replica"]. */
static void price_text(const serve_ctx *s, double pr)
{
    char b[48];
    printf("(%s USD per GPU-hour", cli_num(pr, b, sizeof b));
    if (s->rep_cl)
        printf(", %d GPU%s per replica", s->tp, s->tp == 1 ? "" : "s");
    printf(")\n");
}

/* One probe of --find replicas: 1 when n replicas meet the SLOs, 0 when not, -1 on an error (in
 * the probe's err). */
typedef int (*replicas_probe)(const serve_ctx *s, int n, void *arg);

/* The fewest replicas in [n0, s->max_replicas] that meet the SLOs: double from n0 until they hold,
 * then bisect (more replicas are assumed never to hurt: each probe is deterministic, a closed form
 * or a simulation with the fixed seed). Fewer than n0 are known to fail. Returns the number, 0
 * when none up to the limit does, -1 after a failed probe. */
static int min_replicas(const serve_ctx *s, int n0, replicas_probe holds, void *arg)
{
    int n = n0 < 1 ? 1 : n0 > s->max_replicas ? s->max_replicas : n0, lo = n - 1, hi = 0, h;
    while (!hi) {
        if ((h = holds(s, n, arg)) < 0)
            return -1;
        if (h)
            hi = n;
        else if (n == s->max_replicas)
            return 0;
        else {
            lo = n;
            n = n > s->max_replicas / 2 ? s->max_replicas : 2 * n;
        }
    }
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if ((h = holds(s, mid, arg)) < 0)
            return -1;
        if (h)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* What no number of replicas and no rate can beat: a request alone. Its first token needs the
 * prefill of its prompt, each later one a decode step at batch 1 and a context of at least its
 * prompt (the cost grows with batch, context and prefill tokens), so every request has
 * TTFT >= prefill(P), TPOT >= decode(1, P) and e2e >= prefill(P) + (O - 1) decode(1, P), with P and
 * O the shortest prompt and output (a trace's). An SLO below its floor is infeasible: said at
 * once, with the reason, instead of searching thousands of replicas. Prints and returns an exit
 * code. */
static int llm_slo_floor(const serve_ctx *s, const llm_slo *slo, const char *find)
{
    const char *what = strcmp(find, "replicas") == 0 ? "number of replicas" : "rate";
    double p = s->run.prompt > 0 ? s->run.prompt : 512, o = s->output, ttft, tpot, e2e;
    char b[4][48];
    for (size_t i = 0; i < s->trace_n; i++) {
        p = i == 0 || s->trace_prompt[i] < p ? s->trace_prompt[i] : p;
        o = i == 0 || s->trace_output[i] < o ? s->trace_output[i] : o;
    }
    if (llm_iter_cost(0, 0, 1, p, (void *)(uintptr_t)s, &ttft) || llm_iter_cost(1, p, 0, 0, (void *)(uintptr_t)s, &tpot))
        return CLI_EXIT_OK; /* no floor known: the search decides */
    e2e = ttft + (o - 1) * tpot;
    cli_num(ttft * 1e3, b[1], 48);
    cli_num(tpot * 1e3, b[2], 48);
    if (slo->e2e_ms > 0 && e2e * 1e3 > slo->e2e_ms) {
        cli_error("serve: infeasible: no %s meets --slo-p99-ms %g: a request alone takes %s ms (the prefill of "
                  "%g prompt tokens, %s ms, and %g decode steps of at least %s ms)",
                  what, slo->e2e_ms, cli_num(e2e * 1e3, b[0], 48), p, b[1], o - 1, b[2]);
        return CLI_EXIT_USAGE;
    }
    if (slo->ttft_ms > 0 && ttft * 1e3 > slo->ttft_ms) {
        cli_error("serve: infeasible: no %s meets --slo-ttft-p99-ms %g: the prefill of %g prompt tokens alone "
                  "takes %s ms",
                  what, slo->ttft_ms, p, b[1]);
        return CLI_EXIT_USAGE;
    }
    if (slo->tpot_ms > 0 && o > 1 && tpot * 1e3 > slo->tpot_ms) {
        cli_error("serve: infeasible: no %s meets --slo-tpot-ms %g: a decode step at batch 1 takes %s ms", what,
                  slo->tpot_ms, b[2]);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* What a probe of min_replicas needs: the rate, the SLOs, where its error goes. */
typedef struct {
    double rate;
    double slo_s;       /* the queue models: p99 */
    const llm_slo *slo; /* continuous batching */
    ridge_err *err;
    int st; /* the status of the last probe */
} probe_arg;

/* The queue models: stable, and the p99 latency within the SLO. */
static int queue_probe(const serve_ctx *s, int n, void *arg)
{
    probe_arg *a = arg;
    ridge_queue_result r;
    a->st = evaluate(s, a->rate, n, &r, a->err);
    return a->st != RIDGE_OK ? -1 : r.stable && r.p99_s <= a->slo_s;
}

static int llm_probe(const serve_ctx *s, int n, void *arg)
{
    probe_arg *a = arg;
    ridge_llm_result r;
    a->st = llm_evaluate(s, a->rate, n, &r, a->err);
    return a->st != RIDGE_OK ? -1 : llm_slo_holds(a->slo, &r);
}

/* Continuous batching: find, simulate, print. */
static int serve_llm(serve_ctx *s, double rate, const char *find, const llm_slo *slo, double price, cli_format fmt)
{
    const ridge_gpu *g = s->g;
    ridge_llm_result r;
    ridge_err err;
    int st, rc = CLI_EXIT_OK, holds;
    double pr = price >= 0 ? price : g->price_usd_per_hour, cost, mean_out = s->output, mean_prompt, tok_total;
    double ctx_hi = s->grid_c[s->nc - 1];
    char b[6][48];

    mean_prompt = s->run.prompt > 0 ? s->run.prompt : 512;
    if (s->trace_n) {
        double po = 0, pp = 0, span = s->trace_s[s->trace_n - 1] - s->trace_s[0];
        for (size_t i = 0; i < s->trace_n; i++) {
            po += s->trace_output[i];
            pp += s->trace_prompt[i];
        }
        mean_out = po / (double)s->trace_n;
        mean_prompt = pp / (double)s->trace_n;
        rate = span > 0 ? (double)(s->trace_n - 1) / span : 0;
    }
    if (find && (rc = llm_slo_floor(s, slo, find)) != CLI_EXIT_OK)
        return rc;
    if (find && strcmp(find, "replicas") == 0) {
        /* Fewer replicas than rate / saturation cannot keep up: start just below that. */
        probe_arg pa = {rate, 0, slo, &err, RIDGE_OK};
        int n;
        st = llm_evaluate(s, rate, 1, &r, &err);
        if (st == RIDGE_OK) {
            n = min_replicas(s, r.saturation_rate_per_s > 0 ? (int)floor(0.9 * rate / r.saturation_rate_per_s) : 1,
                             llm_probe, &pa);
            st = pa.st;
            if (n == 0) {
                cli_error("serve: infeasible: no number of replicas up to %d meets the SLOs at %g requests/s",
                          s->max_replicas, rate);
                return CLI_EXIT_USAGE;
            }
            s->replicas = n;
        }
    } else if (find) {
        /* Bisection on the rate: the simulation has a fixed seed, so each probe is deterministic;
         * the SLO is assumed to hold below the found rate and fail above it. */
        double lo, hi;
        st = llm_evaluate(s, 1, s->replicas, &r, &err);
        hi = 1.2 * r.saturation_rate_per_s * s->replicas;
        lo = 0.01 * hi;
        if (st == RIDGE_OK)
            st = llm_evaluate(s, lo, s->replicas, &r, &err);
        if (st == RIDGE_OK && !llm_slo_holds(slo, &r)) {
            cli_error("serve: no rate meets the SLOs: even at %s requests/s TTFT p99 is %s ms, TPOT p99 %s ms, e2e "
                      "p99 %s ms",
                      cli_num(lo, b[0], 48), cli_num(r.ttft.p99_s * 1e3, b[1], 48), cli_num(r.tpot.p99_s * 1e3, b[2], 48),
                      cli_num(r.e2e.p99_s * 1e3, b[3], 48));
            return CLI_EXIT_USAGE;
        }
        for (int it = 0; st == RIDGE_OK && it < 30 && hi - lo > 1e-3 * hi; it++) {
            double mid = (lo + hi) / 2;
            st = llm_evaluate(s, mid, s->replicas, &r, &err);
            if (st == RIDGE_OK && llm_slo_holds(slo, &r))
                lo = mid;
            else
                hi = mid;
        }
        rate = lo;
    } else {
        st = RIDGE_OK;
    }
    if (st == RIDGE_OK)
        st = llm_evaluate(s, rate, s->replicas, &r, &err);
    if (st != RIDGE_OK) {
        cli_error("serve: %s", err.msg);
        return cli_exit_code(st);
    }
    holds = llm_slo_holds(slo, &r);
    tok_total = r.output_tokens_per_s * s->replicas;
    cost = pr > 0 && tok_total > 0 ? pr * s->replicas * replica_gpus(s) / (3600 * tok_total) * 1e6 : 0;
    if (fmt == CLI_FMT_JSON) {
        cJSON *root = cJSON_CreateObject(), *o;
        cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
        cJSON_AddStringToObject(root, "gpu", g->id);
        cluster_json(s, root);
        cJSON_AddStringToObject(root, "workload", ridge_model_name(s->m));
        cJSON_AddStringToObject(root, "service_model", "continuous-batching");
        cJSON_AddStringToObject(root, "arrivals", s->trace_n ? "trace" : "poisson");
        cJSON_AddNumberToObject(root, "replicas", s->replicas);
        cJSON_AddNumberToObject(root, "max_batch", s->max_batch);
        cJSON_AddNumberToObject(root, "prompt_tokens", mean_prompt);
        cJSON_AddNumberToObject(root, "output_tokens", mean_out);
        cJSON_AddNumberToObject(root, "rate_per_s", rate);
        cJSON_AddBoolToObject(root, "stable", r.stable);
        cJSON_AddNumberToObject(root, "saturation_rate_per_s", r.saturation_rate_per_s * s->replicas);
        cJSON_AddNumberToObject(root, "throughput_per_s", r.throughput_per_s * s->replicas);
        cJSON_AddNumberToObject(root, "output_tokens_per_s", tok_total);
        cJSON_AddNumberToObject(root, "mean_running_batch", r.mean_batch);
        cJSON_AddNumberToObject(root, "mean_iteration_s", r.mean_iteration_s);
        cJSON_AddNumberToObject(root, "kv_bytes_per_token", s->kv_bytes_per_token);
        cJSON_AddNumberToObject(root, "kv_capacity_bytes", s->kv_capacity_bytes);
        cJSON_AddNumberToObject(root, "kv_max_running", r.kv_max_running);
        o = cJSON_AddObjectToObject(root, "iteration_time_s");
        cJSON_AddNumberToObject(o, "decode_batch_1", s->decode_s[0][0]);
        cJSON_AddNumberToObject(o, "decode_batch_max", s->decode_s[s->nb - 1][s->nc - 1]);
        cJSON_AddNumberToObject(o, "prefill_one_prompt", s->prefill_s[0]);
        cJSON_AddNumberToObject(root, "simulated_requests", (double)r.requests);
        stats_json(root, "ttft_s", &r.ttft);
        stats_json(root, "tpot_s", &r.tpot);
        stats_json(root, "e2e_s", &r.e2e);
        if (slo->e2e_ms > 0 || slo->ttft_ms > 0 || slo->tpot_ms > 0) {
            o = cJSON_AddObjectToObject(root, "slo");
            if (slo->e2e_ms > 0)
                cJSON_AddNumberToObject(o, "e2e_p99_s", slo->e2e_ms / 1e3);
            if (slo->ttft_ms > 0)
                cJSON_AddNumberToObject(o, "ttft_p99_s", slo->ttft_ms / 1e3);
            if (slo->tpot_ms > 0)
                cJSON_AddNumberToObject(o, "tpot_p99_s", slo->tpot_ms / 1e3);
            cJSON_AddBoolToObject(o, "holds", holds);
        }
        if (find)
            cJSON_AddStringToObject(root, "found", find);
        if (cost > 0) {
            cJSON_AddNumberToObject(root, "price_usd_per_gpu_hour", pr);
            cJSON_AddNumberToObject(root, "cost_usd_per_million_output_tokens", cost);
        }
        return cli_print_json(root);
    }
    if (fmt == CLI_FMT_CSV) {
        printf("gpu,workload,replicas,max_batch,prompt_tokens,output_tokens,rate_per_s,stable,saturation_rate_per_s,"
               "output_tokens_per_s,mean_running_batch,mean_iteration_s,ttft_p50_s,ttft_p99_s,tpot_p50_s,tpot_p99_s,"
               "e2e_mean_s,e2e_p50_s,e2e_p99_s,slo_holds,cost_usd_per_million_output_tokens\n");
        printf("%s,%s,%d,%d,%.9g,%.9g,%.9g,%s,%.9g,%.9g,%.6g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%s,%.6g\n", g->id,
               ridge_model_name(s->m), s->replicas, s->max_batch, mean_prompt, mean_out, rate,
               r.stable ? "true" : "false", r.saturation_rate_per_s * s->replicas, tok_total, r.mean_batch,
               r.mean_iteration_s, r.ttft.p50_s, r.ttft.p99_s, r.tpot.p50_s, r.tpot.p99_s, r.e2e.mean_s, r.e2e.p50_s,
               r.e2e.p99_s,
               slo->e2e_ms > 0 || slo->ttft_ms > 0 || slo->tpot_ms > 0 ? (holds ? "true" : "false") : "", cost);
        return CLI_EXIT_OK;
    }
    title_text(s, "LLM: prefill + output x decode per request, continuous batching");
    printf("requests          prompt %s, output %s tokens%s, %s arrivals\n", cli_num(mean_prompt, b[0], 48),
           cli_num(mean_out, b[1], 48), s->trace_n ? " (trace means)" : "", s->trace_n ? "trace" : "Poisson");
    printf("iteration [ms]    decode step %s (batch 1, context %s) to %s (batch %d, context %s); prefill of one "
           "prompt %s\n",
           cli_num(s->decode_s[0][0] * 1e3, b[0], 48), cli_num(s->grid_c[0], b[1], 48),
           cli_num(s->decode_s[s->nb - 1][s->nc - 1] * 1e3, b[2], 48), s->max_batch, cli_num(ctx_hi, b[3], 48),
           cli_num(s->prefill_s[0] * 1e3, b[4], 48));
    printf("KV cache          %s KiB per token, %s GB free: %d requests of %s tokens\n",
           cli_num(s->kv_bytes_per_token / 1024, b[0], 48), cli_num(s->kv_capacity_bytes / 1e9, b[1], 48),
           r.kv_max_running, cli_num(mean_prompt + mean_out, b[2], 48));
    printf("scheduler         continuous batching, at most %d running, %d replica%s\n", s->max_batch, s->replicas,
           s->replicas == 1 ? "" : "s");
    if (find)
        printf("found             %s: %s\n", find,
               strcmp(find, "replicas") == 0 ? cli_num(s->replicas, b[0], 48) : cli_num(rate, b[0], 48));
    printf("arrival rate      %s requests/s", cli_num(rate, b[0], 48));
    if (s->replicas > 1)
        printf(" (%s per replica)", cli_num(rate / s->replicas, b[0], 48));
    printf("\nthroughput        %s requests/s, %s output tokens/s\n",
           cli_num(r.throughput_per_s * s->replicas, b[0], 48), cli_num(tok_total, b[1], 48));
    printf("running batch     mean %s per replica (limit %d)\n", cli_num(r.mean_batch, b[0], 48),
           r.kv_max_running < s->max_batch ? r.kv_max_running : s->max_batch);
    printf("iteration         mean %s ms (%zu iterations per replica)\n", cli_num(r.mean_iteration_s * 1e3, b[0], 48),
           r.iterations);
    printf("stable            %s (saturation about %s requests/s", yesno(r.stable),
           cli_num(r.saturation_rate_per_s * s->replicas, b[0], 48));
    if (!r.stable && rate >= r.saturation_rate_per_s * s->replicas)
        printf("; the rate is not below it");
    else if (!r.stable)
        printf("; second half: %s completions/s against %s arrivals/s per replica",
               cli_num(r.completion_rate_2nd_half_per_s, b[1], 48), cli_num(r.arrival_rate_2nd_half_per_s, b[2], 48));
    printf(")\n");
    stats_text("TTFT [ms]", &r.ttft);
    stats_text("TPOT [ms]", &r.tpot);
    stats_text("e2e [ms]", &r.e2e);
    if (!r.stable)
        printf("latency           unbounded: the queue grows (the figures above cover a finite run of %zu requests)\n",
               r.requests);
    if (slo->e2e_ms > 0)
        printf("SLO e2e p99 <= %s ms  %s\n", cli_num(slo->e2e_ms, b[0], 48),
               r.stable && r.e2e.p99_s * 1e3 <= slo->e2e_ms ? "holds" : "MISSED");
    if (slo->ttft_ms > 0)
        printf("SLO TTFT p99 <= %s ms  %s\n", cli_num(slo->ttft_ms, b[0], 48),
               r.stable && r.ttft.p99_s * 1e3 <= slo->ttft_ms ? "holds" : "MISSED");
    if (slo->tpot_ms > 0)
        printf("SLO TPOT p99 <= %s ms  %s\n", cli_num(slo->tpot_ms, b[0], 48),
               r.stable && r.tpot.p99_s * 1e3 <= slo->tpot_ms ? "holds" : "MISSED");
    if (cost > 0) {
        printf("cost              %s USD per million output tokens ", cli_num(cost, b[0], 48));
        price_text(s, pr);
    } else
        printf("cost              unknown (no price: give --price-per-hour)\n");
    return rc;
}

/* "A:B:N" -> first and last rate, number of points. */
static int parse_sweep(const char *arg, double *a, double *b, long *n)
{
    char buf[256], *p1, *p2;
    if (snprintf(buf, sizeof buf, "%s", arg) >= (int)sizeof buf)
        return cli_usage_error("serve", "--sweep-rate: '%.40s...' is too long", arg);
    p1 = strchr(buf, ':');
    p2 = p1 ? strchr(p1 + 1, ':') : NULL;
    if (!p1 || !p2)
        return cli_usage_error("serve", "--sweep-rate: '%s' is not A:B:N (first rate, last rate, points)", arg);
    *p1 = *p2 = '\0';
    if (cli_parse_double("--sweep-rate", buf, 1e-9, 1e12, a) || cli_parse_double("--sweep-rate", p1 + 1, 1e-9, 1e12, b) ||
        cli_parse_long("--sweep-rate", p2 + 1, 2, SERVE_MAX_SWEEP, n))
        return CLI_EXIT_USAGE;
    if (*b <= *a)
        return cli_usage_error("serve", "--sweep-rate: the last rate %g is not above the first %g", *b, *a);
    return CLI_EXIT_OK;
}

/* Latency against offered load for each GPU: table and, with a chart path, .dat/.gp/chart. */
static int run_sweep(serve_ctx *s, const char *const *gpu_ids, int ngpu, const char *gpu_file, double ra, double rb,
                     long npts, const char *chart, cli_format fmt)
{
    double (*lat)[3][SERVE_MAX_SWEEP] = calloc((size_t)ngpu, sizeof *lat);
    ridge_gpu *gs = calloc((size_t)ngpu, sizeof *gs);
    double rates[SERVE_MAX_SWEEP], sat[SERVE_MAX_GPUS];
    int stable[SERVE_MAX_GPUS][SERVE_MAX_SWEEP];
    char ids[SERVE_MAX_GPUS][64], b[4][48];
    ridge_plot_paths paths;
    ridge_err err;
    int rc = CLI_EXIT_OK, st;
    cJSON *root = NULL, *arr = NULL;
    const char *queue = s->continuous ? "continuous batching (simulated), end-to-end latency"
                        : s->max_batch ? "dynamic batching (simulated)"
                        : s->replicas == 1 ? "M/D/1 (Pollaczek-Khinchine)"
                                           : "M/D/c (Erlang C, Allen-Cunneen)";
    if (!lat || !gs) {
        cli_error("out of memory");
        rc = CLI_EXIT_FAILURE;
        goto done;
    }
    if (chart) {
        st = ridge_plot_paths_from_chart(chart, &paths, &err);
        if (st != RIDGE_OK) {
            rc = cli_usage_error("serve", "-o: %s", err.msg);
            goto done;
        }
    }
    for (long k = 0; k < npts; k++)
        rates[k] = ra + (rb - ra) * (double)k / (double)(npts - 1);
    /* All the GPUs first: they are compared in one precision. */
    for (int gi = 0; gi < ngpu; gi++) {
        if (s->cl)
            gs[gi] = s->cl->gpu;
        else if ((rc = cli_load_gpu(gpu_ids ? gpu_ids[gi] : NULL, gpu_ids ? NULL : gpu_file, &gs[gi])) != CLI_EXIT_OK)
            goto done;
    }
    default_precision(s, gs, ngpu);
    for (int gi = 0; gi < ngpu; gi++) {
        snprintf(ids[gi], sizeof ids[gi], "%s", gs[gi].id);
        s->g = &gs[gi];
        rc = prepare(s);
        if (rc)
            goto done;
        sat[gi] = 0;
        for (long k = 0; k < npts; k++) {
            double mean = 0, p50 = 0, p99 = 0;
            int ok;
            if (s->continuous) {
                ridge_llm_result r;
                st = llm_evaluate(s, rates[k], s->replicas, &r, &err);
                ok = r.stable;
                mean = r.e2e.mean_s;
                p50 = r.e2e.p50_s;
                p99 = r.e2e.p99_s;
                sat[gi] = r.saturation_rate_per_s * s->replicas;
            } else {
                ridge_queue_result r;
                st = evaluate(s, rates[k], s->replicas, &r, &err);
                ok = r.stable;
                mean = r.mean_latency_s;
                p50 = r.p50_s;
                p99 = r.p99_s;
                sat[gi] = r.saturation_rate_per_s;
            }
            if (st != RIDGE_OK) {
                cli_error("serve: %s", err.msg);
                rc = cli_exit_code(st);
                goto done;
            }
            stable[gi][k] = ok;
            lat[gi][0][k] = ok ? mean : NAN;
            lat[gi][1][k] = ok ? p50 : NAN;
            lat[gi][2][k] = ok ? p99 : NAN;
        }
    }
    s->g = NULL;
    /* The chart first: a path that cannot be written fails before anything is printed. */
    if (chart) {
        ridge_curve_series ser[3 * SERVE_MAX_GPUS];
        static const char *const stat_names[3] = {"mean", "p50", "p99"};
        static const int dash_of[3] = {3, 2, 1};
        char names[3 * SERVE_MAX_GPUS][96], title[256], vlab[SERVE_MAX_GPUS][96];
        const char *vlab_p[SERVE_MAX_GPUS];
        int vgroup[SERVE_MAX_GPUS];
        ridge_curve_options co = {0};
        double ms[SERVE_MAX_GPUS][3][SERVE_MAX_SWEEP];
        size_t ns = 0;
        for (int gi = 0; gi < ngpu; gi++)
            for (int q = 2; q >= 0; q--) {
                for (long k = 0; k < npts; k++)
                    ms[gi][q][k] = lat[gi][q][k] * 1e3;
                snprintf(names[ns], sizeof names[ns], "%s %s", ids[gi], stat_names[q]);
                ser[ns].name = names[ns];
                ser[ns].x = rates;
                ser[ns].y = ms[gi][q];
                ser[ns].n = (size_t)npts;
                ser[ns].group = gi;
                ser[ns].dash = dash_of[q];
                ns++;
            }
        if (s->continuous)
            snprintf(title, sizeof title, "%s (%s): end-to-end latency against load, continuous batching (max %d)",
                     ridge_model_name(s->m), ridge_dtype_name(s->run.precision), s->max_batch);
        else if (s->max_batch)
            snprintf(title, sizeof title, "%s (%s): latency against load, dynamic batching (max %d, timeout %g ms)",
                     ridge_model_name(s->m), ridge_dtype_name(s->run.precision), s->max_batch, s->timeout_s * 1e3);
        else
            snprintf(title, sizeof title, "%s (%s): latency against load, %s", ridge_model_name(s->m),
                     ridge_dtype_name(s->run.precision), queue);
        co.title = title;
        co.xlabel = s->replicas > 1 ? "Offered load [requests/s, all replicas]" : "Offered load [requests/s]";
        co.ylabel = "Latency [ms]";
        co.log_y = 1;
        for (int gi = 0; gi < ngpu; gi++) {
            snprintf(vlab[gi], sizeof vlab[gi], "%s saturation %s/s", ids[gi], cli_num(sat[gi], b[0], 48));
            vlab_p[gi] = vlab[gi];
            vgroup[gi] = gi;
        }
        co.nvlines = (size_t)ngpu;
        co.vline_x = sat;
        co.vline_group = vgroup;
        co.vline_label = vlab_p;
        st = ridge_curves_write(ser, ns, &co, &paths, &err);
        if (st != RIDGE_OK) {
            cli_error("%s", err.msg);
            rc = cli_exit_code(st);
            goto done;
        }
        if (!ridge_gnuplot_find(NULL, 0)) {
            fprintf(stderr, "ridge: gnuplot not found; wrote %s and %s; render with: gnuplot %s\n", paths.dat,
                    paths.gp, paths.gp);
        } else {
            st = ridge_gnuplot_run(&paths, &err);
            if (st != RIDGE_OK) {
                cli_error("%s (the .dat and .gp are kept)", err.msg);
                rc = cli_exit_code(st);
                goto done;
            }
            fprintf(stderr, "ridge: wrote %s (data %s, script %s)\n", paths.chart, paths.dat, paths.gp);
        }
    }
    if (fmt == CLI_FMT_JSON) {
        root = cJSON_CreateObject();
        cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
        cJSON_AddStringToObject(root, "workload", ridge_model_name(s->m));
        cJSON_AddStringToObject(root, "queue", queue);
        cJSON_AddNumberToObject(root, "replicas", s->replicas);
        cJSON_AddNumberToObject(root, "max_batch", s->max_batch);
        arr = cJSON_AddArrayToObject(root, "points");
    } else if (fmt == CLI_FMT_CSV) {
        printf("gpu,rate_per_s,stable,saturation_rate_per_s,mean_latency_s,p50_s,p99_s\n");
    } else {
        char prec[128];
        printf("%s: latency against offered load; %s%s, %d replica%s\n\n", ridge_model_name(s->m),
               precision_text(s, prec, sizeof prec), queue, s->replicas, s->replicas == 1 ? "" : "s");
        printf("%-20s %14s %7s %11s %11s %11s\n", "gpu", "rate [req/s]", "stable", "mean [ms]", "p50 [ms]", "p99 [ms]");
    }
    for (int gi = 0; gi < ngpu; gi++)
        for (long k = 0; k < npts; k++) {
            int ok = stable[gi][k];
            double mean = ok ? lat[gi][0][k] : 0, p50 = ok ? lat[gi][1][k] : 0, p99 = ok ? lat[gi][2][k] : 0;
            if (fmt == CLI_FMT_JSON) {
                cJSON *o = cJSON_CreateObject(), *l;
                cJSON_AddStringToObject(o, "gpu", ids[gi]);
                cJSON_AddNumberToObject(o, "rate_per_s", rates[k]);
                cJSON_AddBoolToObject(o, "stable", ok);
                cJSON_AddNumberToObject(o, "saturation_rate_per_s", sat[gi]);
                if (ok) {
                    l = cJSON_AddObjectToObject(o, "latency_s");
                    cJSON_AddNumberToObject(l, "mean", mean);
                    cJSON_AddNumberToObject(l, "p50", p50);
                    cJSON_AddNumberToObject(l, "p99", p99);
                }
                cJSON_AddItemToArray(arr, o);
            } else if (fmt == CLI_FMT_CSV) {
                printf("%s,%.9g,%s,%.9g,%.9g,%.9g,%.9g\n", ids[gi], rates[k], ok ? "true" : "false", sat[gi], mean, p50,
                       p99);
            } else if (ok) {
                printf("%-20s %14s %7s %11s %11s %11s\n", ids[gi], cli_num(rates[k], b[0], 48), "yes",
                       cli_num(mean * 1e3, b[1], 48), cli_num(p50 * 1e3, b[2], 48), cli_num(p99 * 1e3, b[3], 48));
            } else {
                printf("%-20s %14s %7s %11s %11s %11s\n", ids[gi], cli_num(rates[k], b[0], 48), "no", "-", "-", "-");
            }
        }
    if (fmt == CLI_FMT_TEXT)
        for (int gi = 0; gi < ngpu; gi++)
            printf("saturation        %s: %s requests/s\n", ids[gi], cli_num(sat[gi], b[0], 48));
    if (root) {
        rc = cli_print_json(root);
        root = NULL;
        if (rc)
            goto done;
    }
done:
    cJSON_Delete(root);
    free(gs);
    free(lat);
    return rc;
}

int cmd_serve(int argc, char **argv)
{
    static const struct option opts[] = {{"gpu", required_argument, 0, 'g'},
                                         {"gpu-file", required_argument, 0, 'G'},
                                         {"gpus", required_argument, 0, 'L'},
                                         {"workload", required_argument, 0, 'w'},
                                         {"rate", required_argument, 0, 'r'},
                                         {"replicas", required_argument, 0, 'n'},
                                         {"max-batch", required_argument, 0, 'b'},
                                         {"batch-timeout-ms", required_argument, 0, 't'},
                                         {"slo-p99-ms", required_argument, 0, 's'},
                                         {"slo-ttft-p99-ms", required_argument, 0, 'T'},
                                         {"slo-tpot-ms", required_argument, 0, 'O'},
                                         {"find", required_argument, 0, 'F'},
                                         {"price-per-hour", required_argument, 0, 'P'},
                                         {"output", required_argument, 0, 'u'},
                                         {"trace", required_argument, 0, 'R'},
                                         {"requests", required_argument, 0, 'q'},
                                         {"static", no_argument, 0, 'A'},
                                         {"sweep-rate", required_argument, 0, 'W'},
                                         {"chart", required_argument, 0, 'o'},
                                         {"simulate", no_argument, 0, 'S'},
                                         {"seed", required_argument, 0, 'e'},
                                         {"format", required_argument, 0, 'f'},
                                         {"help", no_argument, 0, 'h'},
                                         {"cluster", required_argument, 0, 'C'},
                                         {"nodes", required_argument, 0, 'N'},
                                         {"tp", required_argument, 0, 'p'},
                                         CLI_RUN_OPTIONS,
                                         {0, 0, 0, 0}};
    const char *gpu_id = NULL, *gpu_file = NULL, *wl = NULL, *find = NULL, *trace = NULL, *sweep = NULL;
    const char *chart = NULL, *cluster_id = NULL;
    long nodes = 0, tp = 0;
    int replicas_given = 0;
    ridge_cluster *cl = NULL, *rep_cl = NULL;
    char gpus_buf[1024];
    const char *gpu_list[SERVE_MAX_GPUS];
    int ngpus = 0, static_model = 0, batch_given = 0;
    double rate = 0, slo_ms = 0, timeout_ms = -1, price = -1, sweep_a = 0, sweep_b = 0;
    long lv, sweep_n = 0;
    int mode_given = 0, simulate = 0, c, rc = CLI_EXIT_OK, st;
    cli_format fmt = CLI_FMT_TEXT;
    serve_ctx s;
    ridge_gpu g;
    ridge_model *m = NULL;
    ridge_err err;
    ridge_queue_result r;
    ridge_des_result sim;
    llm_slo slo = {0, 0, 0};
    double *trace_cols = NULL;
    int have_sim = 0;
    const char *queue_name;
    char b[8][48];

    memset(&s, 0, sizeof s);
    ridge_run_config_init(&s.run);
    s.run.mode = RIDGE_MODE_INFER;
    s.replicas = 1;
    s.output = 128;
    s.seed = 1;
    s.customers = 100000;
    s.requests = 20000;
    s.max_replicas = SERVE_MAX_REPLICAS;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        if (c >= CLI_RUN_OPT_BASE) {
            if (cli_run_option(c, optarg, NULL, &s.run) < 0)
                return CLI_EXIT_USAGE;
            if (c == CLI_RUN_OPT_MODE)
                mode_given = 1;
            s.precision_given |= c == CLI_RUN_OPT_PRECISION;
            continue;
        }
        switch (c) {
        case 'g': gpu_id = optarg; break;
        case 'G': gpu_file = optarg; break;
        case 'L': {
            char *p = gpus_buf;
            if (snprintf(gpus_buf, sizeof gpus_buf, "%s", optarg) >= (int)sizeof gpus_buf)
                return cli_usage_error("serve", "--gpus: the list is too long");
            if (cli_check_list("--gpus", optarg))
                return CLI_EXIT_USAGE;
            ngpus = 0;
            while (*p) {
                char *comma = strchr(p, ',');
                if (comma)
                    *comma = '\0';
                if (*p) {
                    if (ngpus == SERVE_MAX_GPUS)
                        return cli_usage_error("serve", "--gpus: at most %d GPUs", SERVE_MAX_GPUS);
                    gpu_list[ngpus++] = p;
                }
                if (!comma)
                    break;
                p = comma + 1;
            }
            if (ngpus == 0)
                return cli_usage_error("serve", "--gpus: no GPU in '%s'", optarg);
            break;
        }
        case 'w': wl = optarg; break;
        case 'r':
            if (cli_parse_double("--rate", optarg, 1e-9, 1e12, &rate))
                return CLI_EXIT_USAGE;
            break;
        case 'n':
            if (cli_parse_long("--replicas", optarg, 1, SERVE_MAX_REPLICAS, &lv))
                return CLI_EXIT_USAGE;
            s.replicas = (int)lv;
            replicas_given = 1;
            break;
        case 'C': cluster_id = optarg; break;
        case 'N':
            if (cli_parse_long("--nodes", optarg, 1, 4096, &nodes))
                return CLI_EXIT_USAGE;
            break;
        case 'p':
            if (cli_parse_long("--tp", optarg, 1, 1024, &tp))
                return CLI_EXIT_USAGE;
            break;
        case 'b':
            if (cli_parse_long("--max-batch", optarg, 1, SERVE_MAX_BATCH, &lv))
                return CLI_EXIT_USAGE;
            s.max_batch = (int)lv;
            batch_given = 1;
            break;
        case 't':
            if (cli_parse_double("--batch-timeout-ms", optarg, 0, 1e9, &timeout_ms))
                return CLI_EXIT_USAGE;
            break;
        case 's':
            if (cli_parse_double("--slo-p99-ms", optarg, 1e-9, 1e12, &slo_ms))
                return CLI_EXIT_USAGE;
            break;
        case 'T':
            if (cli_parse_double("--slo-ttft-p99-ms", optarg, 1e-9, 1e12, &slo.ttft_ms))
                return CLI_EXIT_USAGE;
            break;
        case 'O':
            if (cli_parse_double("--slo-tpot-ms", optarg, 1e-9, 1e12, &slo.tpot_ms))
                return CLI_EXIT_USAGE;
            break;
        case 'F':
            if (strcmp(optarg, "max-rate") && strcmp(optarg, "replicas"))
                return cli_usage_error("serve", "--find: '%s' is not max-rate or replicas", optarg);
            find = optarg;
            break;
        case 'P':
            if (cli_parse_double("--price-per-hour", optarg, 0, 1e9, &price))
                return CLI_EXIT_USAGE;
            break;
        case 'u':
            if (cli_parse_long("--output", optarg, 0, 10000000, &lv))
                return CLI_EXIT_USAGE;
            s.output = (double)lv;
            break;
        case 'R': trace = optarg; break;
        case 'q':
            if (cli_parse_long("--requests", optarg, 100, 10000000, &lv))
                return CLI_EXIT_USAGE;
            s.requests = (size_t)lv;
            break;
        case 'A': static_model = 1; break;
        case 'W':
            if (parse_sweep(optarg, &sweep_a, &sweep_b, &sweep_n))
                return CLI_EXIT_USAGE;
            sweep = optarg;
            break;
        case 'o': chart = optarg; break;
        case 'S': simulate = 1; break;
        case 'e':
            /* One message from the parser (a second from here doubled it for -1). */
            if (cli_parse_long("--seed", optarg, 0, SERVE_MAX_SEED, &lv))
                return CLI_EXIT_USAGE;
            s.seed = (unsigned long)lv;
            break;
        case 'f':
            if (cli_parse_format(optarg, &fmt))
                return CLI_EXIT_USAGE;
            break;
        case 'h':
            fputs(help, stdout);
            fputs(help_options, stdout);
            return CLI_EXIT_OK;
        case ':':
        default: return cli_getopt_error("serve", c, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("serve", "unexpected argument '%s'", argv[optind]);
    if (ngpus && (gpu_id || gpu_file))
        return cli_usage_error("serve", "give --gpus ID,ID... or one of --gpu / --gpu-file, not both");
    if (ngpus && !sweep)
        return cli_usage_error("serve", "--gpus applies to --sweep-rate; give --gpu ID for one deployment");
    if (cluster_id && (gpu_id || gpu_file || ngpus))
        return cli_usage_error("serve", "give --gpu (or --gpu-file, --gpus) or --cluster, not both");
    if (!cluster_id && (nodes || tp))
        return cli_usage_error("serve", "--nodes and --tp need --cluster ID|FILE");
    if (!cluster_id && !ngpus && !gpu_id == !gpu_file)
        return cli_usage_error("serve", "give exactly one of --gpu ID, --gpu-file PATH or --cluster ID|FILE");
    if (!wl)
        return cli_usage_error("serve", "missing --workload ID|FILE");
    if (chart && !sweep)
        return cli_usage_error("serve", "-o/--chart needs --sweep-rate A:B:N");
    if (sweep && (find || trace || simulate))
        return cli_usage_error("serve", "--sweep-rate does not combine with --find, --trace or --simulate");
    if (rate <= 0 && !(find && strcmp(find, "max-rate") == 0) && !sweep && !trace)
        return cli_usage_error("serve", "missing --rate R (requests per second)");
    if (trace && find && strcmp(find, "max-rate") == 0)
        return cli_usage_error("serve", "--find max-rate does not apply to a --trace (its arrivals fix the rate)");
    if (timeout_ms >= 0 && !s.max_batch)
        return cli_usage_error("serve", "--batch-timeout-ms needs --max-batch");
    if (s.run.mode == RIDGE_MODE_TRAIN)
        return cli_usage_error("serve", "--mode train: serving runs infer, prefill or decode");
    if (simulate && s.max_batch)
        return cli_usage_error("serve", "--simulate applies without --max-batch (batching is always simulated)");
    s.timeout_s = timeout_ms > 0 ? timeout_ms / 1e3 : 0;
    if (cli_is_oplist_file(wl))
        return cli_usage_error("serve", "%s is an operator list; serve needs a model (built-in id or model file)", wl);
    st = ridge_model_load(wl, &m, &err);
    if (st != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(st);
    }
    s.m = m;
    if (cluster_id) {
        long gpus;
        cl = malloc(sizeof *cl);
        rep_cl = malloc(sizeof *rep_cl);
        if (!cl || !rep_cl) {
            cli_error("out of memory");
            rc = CLI_EXIT_FAILURE;
            goto done;
        }
        st = ridge_cluster_load(cluster_id, (int)nodes, cl, &err);
        if (st != RIDGE_OK) {
            cli_error("%s", err.msg);
            rc = cli_exit_code(st);
            goto done;
        }
        if (!tp)
            tp = 1;
        if (cl->gpus_per_node % tp != 0) {
            rc = cli_usage_error("serve", "--tp %ld: does not divide the %d GPUs per node of %s (a replica is one "
                                          "tensor-parallel group inside a node)",
                                 tp, cl->gpus_per_node, cl->id);
            goto done;
        }
        gpus = (long)cl->gpus_per_node * cl->nodes;
        s.max_replicas = (int)(gpus / tp < SERVE_MAX_REPLICAS ? gpus / tp : SERVE_MAX_REPLICAS);
        if (replicas_given && s.replicas > s.max_replicas) {
            rc = cli_usage_error("serve", "--replicas %d: cluster %s has %ld GPUs, room for %d replicas of --tp %ld",
                                 s.replicas, cl->id, gpus, s.max_replicas, tp);
            goto done;
        }
        if (!replicas_given)
            s.replicas = s.max_replicas;
        /* One replica: tp GPUs of one node, so tp x pp x dp = its GPUs with pp = dp = 1. */
        *rep_cl = *cl;
        rep_cl->gpus_per_node = (int)tp;
        rep_cl->nodes = 1;
        rep_cl->inter_bw_bytes_per_s_per_node = cl->inter_bw_bytes_per_s_per_node * (double)tp / cl->gpus_per_node;
        s.cl = cl;
        s.rep_cl = rep_cl;
        s.tp = (int)tp;
    }
    /* Decoder LLMs: prefill + decode, unless --mode infer says one pass. */
    if (mode_given) {
        s.llm = s.run.mode == RIDGE_MODE_PREFILL || s.run.mode == RIDGE_MODE_DECODE;
    } else if (strcmp(ridge_model_family(m), "transformer") == 0) {
        ridge_run_config t = s.run;
        ridge_oplist ol = {0};
        t.mode = RIDGE_MODE_DECODE;
        s.llm = ridge_model_build(m, &t, &ol, &err) == RIDGE_OK;
        ridge_oplist_free(&ol);
    }
    s.continuous = s.llm && !static_model;
    if (s.continuous) {
        if (timeout_ms >= 0 || simulate) {
            rc = cli_usage_error("serve", "%s applies to the queue models; continuous batching has no batch timeout "
                                          "and is always simulated (--static for the static model)",
                                 simulate ? "--simulate" : "--batch-timeout-ms");
            goto done;
        }
        if (s.output < 1) {
            rc = cli_usage_error("serve", "--output 0: continuous batching needs at least one output token");
            goto done;
        }
        if (!batch_given)
            s.max_batch = LLM_DEFAULT_MAX_BATCH;
        slo.e2e_ms = slo_ms;
        if (find && slo.e2e_ms <= 0 && slo.ttft_ms <= 0 && slo.tpot_ms <= 0) {
            rc = cli_usage_error("serve", "--find %s needs --slo-p99-ms, --slo-ttft-p99-ms or --slo-tpot-ms", find);
            goto done;
        }
        if (trace) {
            rc = trace_load(trace, &trace_cols, &s.trace_n);
            if (rc)
                goto done;
            s.trace_s = trace_cols;
            s.trace_prompt = trace_cols + s.trace_n;
            s.trace_output = trace_cols + 2 * s.trace_n;
            s.requests = s.trace_n;
        }
    } else {
        if (trace || slo.ttft_ms > 0 || slo.tpot_ms > 0) {
            rc = cli_usage_error("serve", "%s to decoder LLMs with continuous batching",
                                 trace ? "--trace applies" : "--slo-ttft-p99-ms and --slo-tpot-ms apply");
            goto done;
        }
        if (static_model && !s.llm) {
            rc = cli_usage_error("serve", "--static applies to decoder LLMs");
            goto done;
        }
        if (find && slo_ms <= 0) {
            rc = cli_usage_error("serve", "--find %s needs --slo-p99-ms", find);
            goto done;
        }
    }
    if (s.llm && (rc = check_request_tokens(&s)) != CLI_EXIT_OK)
        goto done;
    if (sweep) {
        if (!ngpus && gpu_id) {
            gpu_list[0] = gpu_id;
            ngpus = 1;
        }
        rc = run_sweep(&s, ngpus ? gpu_list : NULL, ngpus ? ngpus : 1, gpu_file, sweep_a, sweep_b, sweep_n, chart,
                       fmt);
        goto done;
    }
    if (cl)
        g = cl->gpu;
    else if ((rc = cli_load_gpu(gpu_id, gpu_file, &g)) != CLI_EXIT_OK)
        goto done;
    s.g = &g;
    default_precision(&s, &g, 1);
    rc = prepare(&s);
    if (rc != CLI_EXIT_OK)
        goto done;
    if (s.continuous) {
        rc = serve_llm(&s, rate, find, &slo, price, fmt);
        goto done;
    }
    if (find && s.service_s[0] * 1e3 > slo_ms) {
        /* A lone request (or batch of one) is the floor of every latency (llm_slo_floor). */
        cli_error("serve: infeasible: no %s meets p99 <= %g ms: a lone request takes %s ms",
                  strcmp(find, "replicas") == 0 ? "number of replicas" : "rate", slo_ms,
                  cli_num(s.service_s[0] * 1e3, b[0], 48));
        rc = CLI_EXIT_USAGE;
        goto done;
    }
    if (find && strcmp(find, "replicas") == 0) {
        probe_arg pa = {rate, slo_ms / 1e3, NULL, &err, RIDGE_OK};
        int n = min_replicas(&s, 1, queue_probe, &pa);
        st = pa.st;
        if (n == 0) {
            cli_error("serve: infeasible: no number of replicas up to %d meets p99 <= %g ms at %g requests/s",
                      s.max_replicas, slo_ms, rate);
            rc = CLI_EXIT_USAGE;
            goto done;
        }
        s.replicas = n;
    } else if (find) {
        double hi, found;
        st = evaluate(&s, 1, s.replicas, &r, &err);
        if (st == RIDGE_OK) {
            hi = r.saturation_rate_per_s;
            st = ridge_queue_max_rate(p99_at, &s, hi, slo_ms / 1e3, &found, &err);
            rate = found;
        }
        if (st == RIDGE_OK && rate <= 0) {
            cli_error("serve: no rate meets p99 <= %g ms: a lone request takes %s ms", slo_ms,
                      cli_num(s.service_s[0] * 1e3, b[0], 48));
            rc = CLI_EXIT_USAGE;
            goto done;
        }
    }
    if (st == RIDGE_OK)
        st = evaluate(&s, rate, s.replicas, &r, &err);
    if (st != RIDGE_OK) {
        cli_error("serve: %s", err.msg);
        rc = cli_exit_code(st);
        goto done;
    }
    if (simulate && r.stable) {
        ridge_des_config dc;
        ridge_des_config_init(&dc);
        dc.rate_per_s = rate;
        dc.service = RIDGE_SERVICE_DETERMINISTIC;
        dc.mean_service_s = s.service_s[0];
        dc.servers = s.replicas;
        dc.seed = s.seed;
        st = ridge_des_run(&dc, &sim, &err);
        if (st != RIDGE_OK) {
            cli_error("serve: %s", err.msg);
            rc = cli_exit_code(st);
            goto done;
        }
        have_sim = 1;
        if (sim.short_run)
            fprintf(stderr,
                    "ridge: warning: --simulate: %zu requests are too few at utilisation %.4g: the queue forgets its "
                    "state over about %s requests and the 95%% interval needs about %s (%g of those per batch); it may "
                    "understate the error\n",
                    sim.customers, r.utilisation, cli_num(sim.relaxation_customers, b[0], 48),
                    cli_num(RIDGE_DES_MIN_RELAXATIONS * sim.relaxation_customers * (double)dc.ci_batches, b[1], 48),
                    RIDGE_DES_MIN_RELAXATIONS);
    }
    {
        int slo_set = slo_ms > 0, slo_ok = r.stable && r.p99_s * 1e3 <= slo_ms;
        double pr = price >= 0 ? price : g.price_usd_per_hour;
        double thr = r.stable ? rate : r.throughput_per_s;
        double cost = pr > 0 && thr > 0 ? pr * s.replicas * replica_gpus(&s) / (3600 * thr) * 1000 : 0;
        queue_name = s.max_batch ? "dynamic batching (simulated)"
                     : s.replicas == 1 ? "M/D/1 (Pollaczek-Khinchine)"
                                       : "M/D/c (Erlang C, Allen-Cunneen)";
        if (fmt == CLI_FMT_JSON) {
            cJSON *root = cJSON_CreateObject(), *o;
            cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
            cJSON_AddStringToObject(root, "gpu", g.id);
            cluster_json(&s, root);
            cJSON_AddStringToObject(root, "workload", ridge_model_name(m));
            cJSON_AddStringToObject(root, "service_model", s.llm ? "prefill+decode" : "infer");
            cJSON_AddStringToObject(root, "queue", queue_name);
            cJSON_AddNumberToObject(root, "replicas", s.replicas);
            cJSON_AddNumberToObject(root, "max_batch", s.max_batch);
            cJSON_AddNumberToObject(root, "batch_timeout_s", s.timeout_s);
            cJSON_AddNumberToObject(root, "service_time_s", s.service_s[0]);
            cJSON_AddNumberToObject(root, "rate_per_s", rate);
            cJSON_AddBoolToObject(root, "stable", r.stable);
            cJSON_AddNumberToObject(root, "utilisation", r.utilisation);
            cJSON_AddNumberToObject(root, "throughput_per_s", thr);
            cJSON_AddNumberToObject(root, "saturation_rate_per_s", r.saturation_rate_per_s);
            if (r.stable) {
                o = cJSON_AddObjectToObject(root, "latency_s");
                cJSON_AddNumberToObject(o, "mean", r.mean_latency_s);
                cJSON_AddNumberToObject(o, "p50", r.p50_s);
                cJSON_AddNumberToObject(o, "p90", r.p90_s);
                cJSON_AddNumberToObject(o, "p99", r.p99_s);
            }
            if (slo_set) {
                cJSON_AddNumberToObject(root, "slo_p99_s", slo_ms / 1e3);
                cJSON_AddBoolToObject(root, "slo_holds", slo_ok);
            }
            if (find)
                cJSON_AddStringToObject(root, "found", find);
            if (cost > 0) {
                cJSON_AddNumberToObject(root, "price_usd_per_gpu_hour", pr);
                cJSON_AddNumberToObject(root, "cost_usd_per_1000_requests", cost);
            }
            if (have_sim) {
                o = cJSON_AddObjectToObject(root, "simulation");
                cJSON_AddNumberToObject(o, "customers", (double)sim.customers);
                cJSON_AddNumberToObject(o, "mean_latency_s", sim.mean_latency_s);
                cJSON_AddNumberToObject(o, "mean_latency_ci95_s", sim.ci95_half_width_s);
                cJSON_AddNumberToObject(o, "p50_s", sim.p50_s);
                cJSON_AddNumberToObject(o, "p90_s", sim.p90_s);
                cJSON_AddNumberToObject(o, "p99_s", sim.p99_s);
                cJSON_AddNumberToObject(o, "relaxation_requests", sim.relaxation_customers);
                cJSON_AddBoolToObject(o, "run_too_short", sim.short_run);
            }
            rc = cli_print_json(root);
        } else if (fmt == CLI_FMT_CSV) {
            printf("gpu,workload,replicas,max_batch,rate_per_s,service_time_s,utilisation,throughput_per_s,"
                   "saturation_rate_per_s,stable,mean_latency_s,p50_s,p90_s,p99_s,slo_p99_s,slo_holds,"
                   "cost_usd_per_1000_requests\n");
            printf("%s,%s,%d,%d,%.9g,%.9g,%.6g,%.9g,%.9g,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%s,%.6g\n", g.id,
                   ridge_model_name(m), s.replicas, s.max_batch, rate, s.service_s[0], r.utilisation, thr,
                   r.saturation_rate_per_s, r.stable ? "true" : "false", r.mean_latency_s, r.p50_s, r.p90_s, r.p99_s,
                   slo_ms / 1e3, slo_set ? (slo_ok ? "true" : "false") : "", cost);
        } else {
            title_text(&s, s.llm ? "LLM: prefill + output x decode per request" : "one inference pass per request");
            printf("service time      %s ms (batch 1)", cli_num(s.service_s[0] * 1e3, b[0], 48));
            if (s.max_batch > 1)
                printf(", %s ms (batch %d)", cli_num(s.service_s[s.max_batch - 1] * 1e3, b[0], 48), s.max_batch);
            printf("\nqueue             %s, %d replica%s\n", queue_name, s.replicas, s.replicas == 1 ? "" : "s");
            if (find)
                printf("found             %s: %s\n", find,
                       strcmp(find, "replicas") == 0 ? cli_num(s.replicas, b[0], 48) : cli_num(rate, b[0], 48));
            printf("arrival rate      %s requests/s\n", cli_num(rate, b[0], 48));
            printf("utilisation       %s %%\n", cli_num(r.utilisation * 100, b[0], 48));
            printf("throughput        %s requests/s\n", cli_num(thr, b[0], 48));
            printf("stable            %s (saturation %s requests/s)\n", yesno(r.stable),
                   cli_num(r.saturation_rate_per_s, b[0], 48));
            if (r.stable)
                printf("latency [ms]      mean %s, p50 %s, p90 %s, p99 %s\n", cli_num(r.mean_latency_s * 1e3, b[0], 48),
                       cli_num(r.p50_s * 1e3, b[1], 48), cli_num(r.p90_s * 1e3, b[2], 48),
                       cli_num(r.p99_s * 1e3, b[3], 48));
            else
                printf("latency [ms]      unbounded: the queue grows without limit\n");
            if (have_sim)
                printf("simulated [ms]    mean %s +- %s, p50 %s, p90 %s, p99 %s (%zu requests)\n",
                       cli_num(sim.mean_latency_s * 1e3, b[0], 48), cli_num(sim.ci95_half_width_s * 1e3, b[1], 48),
                       cli_num(sim.p50_s * 1e3, b[2], 48), cli_num(sim.p90_s * 1e3, b[3], 48),
                       cli_num(sim.p99_s * 1e3, b[4], 48), sim.customers);
            if (slo_set)
                printf("SLO p99 <= %s ms  %s\n", cli_num(slo_ms, b[0], 48), slo_ok ? "holds" : "MISSED");
            if (cost > 0) {
                printf("cost              %s USD per 1,000 requests ", cli_num(cost, b[0], 48));
                price_text(&s, pr);
            } else
                printf("cost              unknown (no price: give --price-per-hour)\n");
        }
    }
done:
    free(trace_cols);
    free(s.service_s);
    free(cl);
    free(rep_cl);
    ridge_model_free(m);
    return rc;
}
