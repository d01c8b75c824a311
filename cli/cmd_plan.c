/* ridge plan: capacity planning over GPUs, counts, batches and precisions (docs/planning.md).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "model_run.h"
#include "ridge/plan.h"
#include "ridge/plot.h"
#include "ridge/serve_plan.h"
#ifdef RIDGE_HAVE_MPI
#include "plan_mpi.h"
#define PLAN_EVAL_RANGE plan_mpi_eval_range /* under mpirun: the ranks' shares, gathered on rank 0 */
#else
#define PLAN_EVAL_RANGE ridge_plan_eval_range
#endif

#define PLAN_MAX_LIST 4096
#define PLAN_MAX_PRICES 64
#define PLAN_CHUNK 65536
#define PLAN_MAX_STORED 50000000ul

static const char help[] =
    "usage: ridge plan --workload ID|FILE [--mode train|infer] --gpus all|ID,ID... [--counts 1,2,4,8]\n"
    "                  [--batches 8,16,32] [--precisions bf16,fp16] --tokens N|--samples N\n"
    "                  [--deadline-hours H] [--budget-usd X] [--power-cap-w W]\n"
    "                  [--objective cost|time|energy|gpus] [--top K] [--price ID=USD_PER_HOUR ...]\n"
    "                  [--pareto time-cost|time-energy] [--no-comm] [--threads N]\n"
    "                  [--tp 1,2,4,8] [--pp 1,2,4] [--zero 0,1,2,3]\n"
    "                  [--format text|jsonl|csv] [--plan FILE.json] [run options]\n"
    "       ridge plan --bench [--threads N]\n"
    "\n"
    "Evaluates every (GPU, precision, GPU count, per-GPU batch) configuration of a data-parallel\n"
    "run that processes --tokens or --samples, filters by memory, precision support, deadline,\n"
    "budget and power cap, and ranks the feasible ones by the objective (default cost). Each GPU\n"
    "count runs the single-GPU step, then all-reduces the gradients (training) over a fabric\n"
    "derived from the GPU (--no-comm: ideal scaling). Cost = GPUs x hours x price per GPU-hour\n"
    "(the catalogue's, or --price); energy uses P = idle + utilisation x (TDP - idle), idle =\n"
    "0.25 x TDP; the power cap limits GPUs x TDP. Lists accept A..B ranges (1..8). --plan reads\n"
    "the same settings from a JSON file; later options override earlier ones (docs/planning.md).\n"
    "--tp/--pp/--zero (training, transformers): ranges of tensor- and pipeline-parallel sizes and\n"
    "ZeRO stages; each configuration is then predicted with dp = GPUs / (tp x pp), microbatch =\n"
    "batch, pp microbatches per step, and the output gains tp, pp, zero columns.\n"
    "\n"
    "Text: the top K (default 10) with the Pareto front of (time, cost) marked '*', and the\n"
    "infeasible configurations counted by reason. jsonl and csv: one line per configuration,\n"
    "feasible or not, in space order, as evaluated. --threads N (default: all cores).\n"
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

typedef enum { PF_TEXT = 0, PF_JSONL, PF_CSV } plan_format;

typedef struct {
    const char *workload;
    char workload_buf[4096]; /* a path: PATH_MAX on Linux */
    ridge_run_config run;
    char gpus[PLAN_MAX_LIST][64];
    size_t ngpus;
    int counts[PLAN_MAX_LIST];
    size_t ncounts;
    int tps[PLAN_MAX_LIST], pps[PLAN_MAX_LIST], zeros[4];
    size_t ntps, npps, nzeros; /* 0: the defaults 1, 1, 0 */
    double batches[PLAN_MAX_LIST];
    size_t nbatches;
    ridge_dtype precisions[16];
    size_t nprecisions;
    char price_id[PLAN_MAX_PRICES][64];
    double price[PLAN_MAX_PRICES];
    size_t nprices;
    ridge_plan_target target_kind;
    double target;
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
} plan_opts;

enum {
    O_WORKLOAD = 1, O_GPUS, O_COUNTS, O_BATCHES, O_PRECISIONS, O_TOKENS, O_SAMPLES, O_DEADLINE, O_BUDGET,
    O_POWER, O_OBJECTIVE, O_TOP, O_PRICE, O_PARETO, O_NOCOMM, O_THREADS, O_FORMAT, O_PLAN, O_BENCH,
    O_CHART, O_OUTPUT, O_RATE, O_SLO, O_TP, O_PP, O_ZERO
};

static const struct option long_opts[] = {
    {"workload", required_argument, 0, O_WORKLOAD},   {"gpus", required_argument, 0, O_GPUS},
    {"counts", required_argument, 0, O_COUNTS},       {"batches", required_argument, 0, O_BATCHES},
    {"precisions", required_argument, 0, O_PRECISIONS}, {"tokens", required_argument, 0, O_TOKENS},
    {"samples", required_argument, 0, O_SAMPLES},     {"deadline-hours", required_argument, 0, O_DEADLINE},
    {"budget-usd", required_argument, 0, O_BUDGET},   {"power-cap-w", required_argument, 0, O_POWER},
    {"objective", required_argument, 0, O_OBJECTIVE}, {"top", required_argument, 0, O_TOP},
    {"price", required_argument, 0, O_PRICE},         {"pareto", required_argument, 0, O_PARETO},
    {"no-comm", no_argument, 0, O_NOCOMM},            {"threads", required_argument, 0, O_THREADS},
    {"format", required_argument, 0, O_FORMAT},       {"plan", required_argument, 0, O_PLAN},
    {"bench", no_argument, 0, O_BENCH},               {"help", no_argument, 0, 'h'},
    {"chart", required_argument, 0, O_CHART},         {"output", required_argument, 0, 'o'},
    {"rate", required_argument, 0, O_RATE},           {"slo-p99-ms", required_argument, 0, O_SLO},
    {"tp", required_argument, 0, O_TP},               {"pp", required_argument, 0, O_PP},
    {"zero", required_argument, 0, O_ZERO},
    CLI_RUN_OPTIONS,                                  {0, 0, 0, 0}};

/* A copy of an option's text to cut into a list (strtok_r), of any length: the caller frees it.
 * NULL after printing the error. */
static char *list_copy(const char *s)
{
    char *buf = malloc(strlen(s) + 1);
    if (!buf)
        cli_error("out of memory");
    else
        strcpy(buf, s);
    return buf;
}

/* Comma-separated list; integers may be given as ranges A..B. Returns 0 or prints and -1. */
static int parse_num_list(const char *opt, const char *s, int integer, double lo, double hi, double *out,
                          size_t *n)
{
    char *buf = list_copy(s), *save = NULL, *tok;
    int rc = -1;
    *n = 0;
    if (!buf)
        return -1;
    if (cli_check_list(opt, s)) {
        free(buf);
        return -1;
    }
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *dots = strstr(tok, "..");
        double a, b;
        if (dots && integer) {
            *dots = '\0';
            if (cli_parse_double(opt, tok, lo, hi, &a) || cli_parse_double(opt, dots + 2, lo, hi, &b))
                goto done;
            if (a != floor(a) || b != floor(b) || b < a) {
                cli_error("%s: '%s..%s' is not an integer range A..B with A <= B", opt, tok, dots + 2);
                goto done;
            }
        } else {
            if (cli_parse_double(opt, tok, lo, hi, &a))
                goto done;
            if (integer && a != floor(a)) {
                cli_error("%s: '%s' is not an integer", opt, tok);
                goto done;
            }
            b = a;
        }
        for (double v = a; v <= b; v++) {
            if (*n >= PLAN_MAX_LIST) {
                cli_error("%s: more than %d values", opt, PLAN_MAX_LIST);
                goto done;
            }
            out[(*n)++] = v;
        }
    }
    if (*n == 0)
        cli_error("%s: empty list", opt);
    else
        rc = 0;
done:
    free(buf);
    return rc;
}

static int add_gpu(plan_opts *o, const char *id, const char *name)
{
    if (o->ngpus >= PLAN_MAX_LIST) {
        cli_error("%s: more than %d GPUs", name, PLAN_MAX_LIST);
        return -1;
    }
    if (strlen(id) >= sizeof o->gpus[0]) {
        cli_error("%s: '%.40s...' is longer than %zu characters, which no GPU id is", name, id, sizeof o->gpus[0] - 1);
        return -1;
    }
    strcpy(o->gpus[o->ngpus++], id);
    return 0;
}

static int load_plan_file(plan_opts *o, const char *path);

/* "--NAME" of option c, for messages. */
static const char *opt_flag(int c, char *buf, size_t cap)
{
    for (const struct option *op = long_opts; op->name; op++)
        if (op->val == c) {
            snprintf(buf, cap, "--%s", op->name);
            return buf;
        }
    return "?";
}

/* One option by code (from getopt or from a plan file key). 0, or -1 after printing one line
 * that names the value by label ("plan.json: $.counts"), or by the option when label is NULL. */
static int set_opt(plan_opts *o, int c, const char *arg, const char *label)
{
    static double tmp[PLAN_MAX_LIST];
    char flag[48];
    const char *name = label ? label : opt_flag(c, flag, sizeof flag);
    size_t n;
    int r;
    switch (c) {
    case O_WORKLOAD:
        if (strlen(arg) >= sizeof o->workload_buf) {
            cli_error("--workload: longer than %zu characters", sizeof o->workload_buf - 1);
            return -1;
        }
        strcpy(o->workload_buf, arg);
        o->workload = o->workload_buf;
        return 0;
    case O_GPUS: {
        char *buf = list_copy(arg), *save = NULL, *tok;
        r = buf ? 0 : -1;
        o->ngpus = 0;
        if (buf && cli_check_list(name, arg))
            r = -1;
        for (tok = buf && !r ? strtok_r(buf, ",", &save) : NULL; tok && !r; tok = strtok_r(NULL, ",", &save)) {
            if (strcmp(tok, "all") == 0) {
                for (size_t i = 0; i < ridge_catalog_count() && !r; i++)
                    r = add_gpu(o, ridge_catalog_id(i), name);
            } else
                r = add_gpu(o, tok, name);
        }
        free(buf);
        if (!r && !o->ngpus) {
            cli_error("%s: empty list", name);
            r = -1;
        }
        return r;
    }
    case O_COUNTS:
        if (parse_num_list(name, arg, 1, 1, 1000000, tmp, &n))
            return -1;
        for (size_t i = 0; i < n; i++)
            o->counts[i] = (int)tmp[i];
        o->ncounts = n;
        return 0;
    case O_TP:
    case O_PP:
        if (parse_num_list(name, arg, 1, 1, 1024, tmp, &n))
            return -1;
        for (size_t i = 0; i < n; i++)
            (c == O_TP ? o->tps : o->pps)[i] = (int)tmp[i];
        *(c == O_TP ? &o->ntps : &o->npps) = n;
        return 0;
    case O_ZERO:
        if (parse_num_list(name, arg, 1, 0, 3, tmp, &n))
            return -1;
        if (n > 4) {
            cli_error("%s: more than 4 values", name);
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            o->zeros[i] = (int)tmp[i];
        o->nzeros = n;
        return 0;
    case O_BATCHES:
        if (parse_num_list(name, arg, 1, 1, 10000000, o->batches, &o->nbatches))
            return -1;
        return 0;
    case O_PRECISIONS: {
        char *buf = list_copy(arg), *save = NULL, *tok;
        r = buf ? 0 : -1;
        o->nprecisions = 0;
        if (buf && cli_check_list(name, arg))
            r = -1;
        for (tok = buf && !r ? strtok_r(buf, ",", &save) : NULL; tok && !r; tok = strtok_r(NULL, ",", &save)) {
            ridge_dtype d;
            if (ridge_dtype_parse(tok, &d) || d == RIDGE_DTYPE_FP64 || d == RIDGE_DTYPE_INT4) {
                cli_error("%s: '%s' is not one of fp32, tf32, fp16, bf16, fp8, int8", name, tok);
                r = -1;
            } else if (o->nprecisions >= 16) {
                cli_error("%s: more than 16 values", name);
                r = -1;
            } else
                o->precisions[o->nprecisions++] = d;
        }
        free(buf);
        if (!r && !o->nprecisions) {
            cli_error("%s: empty list", name);
            r = -1;
        }
        return r;
    }
    case O_TOKENS:
    case O_SAMPLES:
        if (cli_parse_double(name, arg, 1, 1e18, &o->target))
            return -1;
        o->target_kind = c == O_TOKENS ? RIDGE_PLAN_TARGET_TOKENS : RIDGE_PLAN_TARGET_SAMPLES;
        return 0;
    case O_DEADLINE:
        if (cli_parse_double(name, arg, 1e-6, 1e7, &o->deadline_s))
            return -1;
        o->deadline_s *= 3600.0;
        return 0;
    case O_BUDGET: return cli_parse_double(name, arg, 1e-6, 1e12, &o->budget_usd);
    case O_POWER: return cli_parse_double(name, arg, 1, 1e10, &o->power_cap_w);
    case O_OBJECTIVE:
        if (ridge_plan_objective_parse(arg, &o->objective)) {
            cli_error("%s: '%s' is not one of cost, time, energy, gpus", name, arg);
            return -1;
        }
        return 0;
    case O_TOP: return cli_parse_long(name, arg, 1, 100000, &o->top);
    case O_PRICE: {
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : 0;
        if (!eq || len == 0 || len >= sizeof o->price_id[0]) {
            cli_error("%s: '%s' is not ID=USD_PER_HOUR", name, arg);
            return -1;
        }
        if (o->nprices >= PLAN_MAX_PRICES) {
            cli_error("%s: more than %d prices", name, PLAN_MAX_PRICES);
            return -1;
        }
        if (cli_parse_double(name, eq + 1, 0.001, 100000, &o->price[o->nprices]))
            return -1;
        memcpy(o->price_id[o->nprices], arg, len);
        o->price_id[o->nprices][len] = '\0';
        o->nprices++;
        return 0;
    }
    case O_PARETO:
        if (strcmp(arg, "time-cost") == 0)
            o->pareto_energy = 0;
        else if (strcmp(arg, "time-energy") == 0)
            o->pareto_energy = 1;
        else {
            cli_error("%s: '%s' is not one of time-cost, time-energy", name, arg);
            return -1;
        }
        return 0;
    case O_NOCOMM: o->no_comm = 1; return 0;
    case O_THREADS: return cli_parse_long(name, arg, 1, 256, &o->threads);
    case O_FORMAT:
        if (strcmp(arg, "text") == 0)
            o->format = PF_TEXT;
        else if (strcmp(arg, "jsonl") == 0)
            o->format = PF_JSONL;
        else if (strcmp(arg, "csv") == 0)
            o->format = PF_CSV;
        else {
            cli_error("%s: '%s' is not one of text, jsonl, csv", name, arg);
            return -1;
        }
        return 0;
    case O_PLAN: return load_plan_file(o, arg);
    case O_BENCH: o->bench = 1; return 0;
    case O_CHART:
        if (strcmp(arg, "pareto") && strcmp(arg, "throughput-batch") && strcmp(arg, "breakdown") &&
            strcmp(arg, "gpus") && strcmp(arg, "serve")) {
            cli_error("%s: '%s' is not one of pareto, throughput-batch, breakdown, gpus, serve", name, arg);
            return -1;
        }
        snprintf(o->chart, sizeof o->chart, "%s", arg);
        return 0;
    case O_OUTPUT:
    case 'o':
        if (strlen(arg) >= sizeof o->output) {
            cli_error("%s: path too long", name);
            return -1;
        }
        snprintf(o->output, sizeof o->output, "%s", arg);
        return 0;
    case O_RATE: return cli_parse_double(name, arg, 1e-6, 1e12, &o->rate_per_s);
    case O_SLO:
        if (cli_parse_double(name, arg, 1e-6, 1e9, &o->slo_p99_s))
            return -1;
        o->slo_p99_s /= 1e3;
        return 0;
    default:
        r = cli_run_option(c, arg, label, &o->run);
        if (r == 1) {
            if (c == CLI_RUN_OPT_PRECISION) { /* --precision: a one-entry list */
                o->precisions[0] = o->run.precision;
                o->nprecisions = 1;
            }
            if (c == CLI_RUN_OPT_BASE + 1) {
                o->batches[0] = o->run.batch;
                o->nbatches = 1;
            }
            return 0;
        }
        return -1;
    }
}

/* A plan-file value as option text, of any length (caller frees): a string as it is, a number
 * with 17 digits, a list of those joined with commas. NULL after printing an error. */
static char *plan_value(const cJSON *it, const char *path)
{
    /* A single value is walked as a list of one: `it`, then nothing. */
    const cJSON *first = cJSON_IsArray(it) ? it->child : it, *e;
    size_t cap = 1, used = 0;
    char *val;
    if (!cJSON_IsArray(it) && !cJSON_IsString(it) && !cJSON_IsNumber(it)) {
        cli_error("%s: $.%s: unsupported value type", path, it->string);
        return NULL;
    }
    for (e = first; e; e = e == it ? NULL : e->next) {
        if (!cJSON_IsString(e) && !cJSON_IsNumber(e)) {
            cli_error("%s: $.%s: list entries must be strings or numbers", path, it->string);
            return NULL;
        }
        cap += 1 + (cJSON_IsString(e) ? strlen(e->valuestring) : 32); /* "%.17g" takes at most 24 */
    }
    if (!(val = malloc(cap))) {
        cli_error("out of memory");
        return NULL;
    }
    val[0] = '\0';
    for (e = first; e; e = e == it ? NULL : e->next) {
        const char *sep = used ? "," : "";
        int w = cJSON_IsString(e) ? snprintf(val + used, cap - used, "%s%s", sep, e->valuestring)
                                  : snprintf(val + used, cap - used, "%s%.17g", sep, e->valuedouble);
        used += (size_t)w;
    }
    return val;
}

/* Plan file: the long option names as keys with '-' written '_' (docs/planning.md). An error in a
 * value names the file and the JSON path. */
static int load_plan_file(plan_opts *o, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    cJSON *root = NULL, *it;
    int rc = cli_read_file(path, &text, &len);
    if (rc != CLI_EXIT_OK)
        return rc == CLI_EXIT_IO ? -3 : -1;
    rc = -1;
    root = cJSON_ParseWithLengthOpts(text, len, NULL, 0);
    if (!cJSON_IsObject(root)) {
        cli_error("%s: not a JSON object", path);
        goto done;
    }
    cJSON_ArrayForEach(it, root)
    {
        char name[64], *val, label[RIDGE_ERR_MSG_MAX];
        int code = 0, bad;
        if (strcmp(it->string, "schema_version") == 0)
            continue;
        snprintf(name, sizeof name, "%s", it->string);
        for (char *q = name; *q; q++)
            if (*q == '_')
                *q = '-';
        if (strcmp(name, "prices") == 0 && cJSON_IsObject(it)) {
            cJSON *pi;
            cJSON_ArrayForEach(pi, it)
            {
                char price[48];
                if (!cJSON_IsNumber(pi)) {
                    cli_error("%s: $.prices.%s: not a number", path, pi->string);
                    goto done;
                }
                snprintf(price, sizeof price, "%.17g", pi->valuedouble);
                if (!(val = malloc(strlen(pi->string) + strlen(price) + 2))) {
                    cli_error("out of memory");
                    goto done;
                }
                sprintf(val, "%s=%s", pi->string, price);
                snprintf(label, sizeof label, "%s: $.prices.%s", path, pi->string);
                bad = set_opt(o, O_PRICE, val, label);
                free(val);
                if (bad)
                    goto done;
            }
            continue;
        }
        for (const struct option *op = long_opts; op->name; op++)
            if (strcmp(op->name, name) == 0)
                code = op->val;
        if (!code || code == O_PLAN || code == O_BENCH || code == 'h' || code == O_PRICE) {
            cli_error("%s: $.%s: unknown key", path, it->string);
            goto done;
        }
        if (cJSON_IsBool(it)) {
            if (!cJSON_IsTrue(it))
                continue;
            val = NULL; /* a flag */
        } else if (!(val = plan_value(it, path))) {
            goto done;
        }
        snprintf(label, sizeof label, "%s: $.%s", path, it->string);
        bad = set_opt(o, code, val ? val : "", label);
        free(val);
        if (bad)
            goto done;
    }
    rc = 0;
done:
    cJSON_Delete(root);
    free(text);
    return rc;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void print_row_jsonl(const ridge_plan_result *r, const ridge_gpu *g, int par)
{
    printf("{\"schema_version\":%d,\"index\":%zu,\"gpu\":\"%s\",\"precision\":\"%s\",\"gpus\":%d,"
           "\"batch_per_gpu\":%.17g,",
           CLI_SCHEMA_VERSION, r->index, g->id, ridge_dtype_name(r->precision), r->count, r->batch);
    if (par)
        printf("\"tp\":%d,\"pp\":%d,\"zero\":%d,", r->tp, r->pp, r->zero);
    printf("\"feasible\":%s,\"reason\":\"%s\"", r->reason == RIDGE_PLAN_FEASIBLE ? "true" : "false",
           ridge_plan_reason_key(r->reason));
    printf(",\"memory_bytes_per_gpu\":%.6g", r->memory_bytes);
    if (r->step_time_s > 0) {
        printf(",\"step_time_s\":%.6g,\"comm_s\":%.6g,\"steps\":%.17g,\"time_s\":%.6g,\"utilisation\":%.4f,"
               "\"power_w_per_gpu\":%.6g,\"energy_j\":%.6g,\"throughput_per_s\":%.6g",
               r->step_time_s, r->comm_s, r->steps, r->time_s, r->utilisation, r->power_w, r->energy_j,
               r->throughput);
        if (!isnan(r->cost_usd))
            printf(",\"cost_usd\":%.6g", r->cost_usd);
        else
            printf(",\"cost_usd\":null");
    }
    printf("}\n");
}

static void print_row_csv(const ridge_plan_result *r, const ridge_gpu *g, int par)
{
    printf("%zu,%s,%s,%d,%.17g,", r->index, g->id, ridge_dtype_name(r->precision), r->count, r->batch);
    if (par)
        printf("%d,%d,%d,", r->tp, r->pp, r->zero);
    printf("%d,%s,%.6g,", r->reason == RIDGE_PLAN_FEASIBLE, ridge_plan_reason_key(r->reason), r->memory_bytes);
    if (r->step_time_s > 0) {
        printf("%.6g,%.6g,%.17g,%.6g,%.4f,%.6g,%.6g,%.6g,", r->step_time_s, r->comm_s, r->steps, r->time_s,
               r->utilisation, r->power_w, r->energy_j, r->throughput);
        if (!isnan(r->cost_usd))
            printf("%.6g\n", r->cost_usd);
        else
            printf("\n");
    } else
        printf(",,,,,,,,\n");
}

static void progress(double done, double total)
{
    int w = 40, k = total > 0 ? (int)(w * done / total) : w;
    fprintf(stderr, "\r[%.*s%*s] %3.0f%%", k, "########################################", w - k, "",
            total > 0 ? 100.0 * done / total : 100.0);
    fflush(stderr);
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

/* ---- charts and serving plans (docs/planning.md, "Charts" and "Serving plans") ---- */

/* The candidates, their prices, the workload and the plan of o (target = the given one). Prints
 * and returns an exit code; the caller frees what was made. */
static int plan_setup(const plan_opts *o, const int *counts, size_t ncounts, double target, ridge_gpu **gpus,
                      double **prices, ridge_model **m, ridge_plan **p)
{
    ridge_plan_spec sp;
    ridge_err err = {{0}};
    int rc;
    *gpus = calloc(o->ngpus, sizeof **gpus);
    *prices = calloc(o->ngpus, sizeof **prices);
    if (!*gpus || !*prices) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    for (size_t i = 0; i < o->ngpus; i++)
        if ((rc = cli_load_gpu(o->gpus[i], NULL, &(*gpus)[i])) != CLI_EXIT_OK)
            return rc;
    for (size_t k = 0; k < o->nprices; k++) {
        int found = 0;
        for (size_t i = 0; i < o->ngpus; i++)
            if (strcmp(o->gpus[i], o->price_id[k]) == 0) {
                (*prices)[i] = o->price[k];
                found = 1;
            }
        if (!found)
            return cli_usage_error("plan", "--price: '%s' is not among the candidate GPUs", o->price_id[k]);
    }
    if ((rc = ridge_model_load(o->workload, m, &err)) != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(rc);
    }
    ridge_plan_spec_init(&sp);
    sp.model = *m;
    sp.run = o->run;
    sp.gpus = *gpus;
    sp.price_usd_per_hour = *prices;
    sp.ngpus = o->ngpus;
    sp.precisions = o->precisions;
    sp.nprecisions = o->nprecisions;
    sp.counts = counts;
    sp.ncounts = ncounts;
    sp.batches = o->batches;
    sp.nbatches = o->nbatches;
    sp.target_kind = o->target_kind;
    sp.target = target;
    sp.deadline_s = o->deadline_s;
    sp.budget_usd = o->budget_usd;
    sp.power_cap_w = o->power_cap_w;
    sp.objective = o->objective;
    sp.no_comm = o->no_comm;
    sp.threads = (int)o->threads;
    if ((rc = ridge_plan_alloc(&sp, p, &err)) != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(rc);
    }
    return CLI_EXIT_OK;
}

/* Render a written .dat/.gp with gnuplot when present; without it a note, and success. */
static int plan_render(const ridge_plot_paths *paths)
{
    ridge_err err = {{0}};
    int st;
    if (!ridge_gnuplot_find(NULL, 0)) {
        fprintf(stderr, "ridge: gnuplot not found; wrote %s and %s; render with: gnuplot %s\n", paths->dat, paths->gp,
                paths->gp);
        return CLI_EXIT_OK;
    }
    st = ridge_gnuplot_run(paths, &err);
    if (st != RIDGE_OK) {
        cli_error("%s (the .dat and .gp are kept)", err.msg);
        return cli_exit_code(st);
    }
    fprintf(stderr, "ridge: wrote %s (data %s, script %s)\n", paths->chart, paths->dat, paths->gp);
    return CLI_EXIT_OK;
}

/* The single-GPU step of GPU g with the highest throughput over precisions and batches that fit;
 * -1 in *pr when none fits. */
static void best_step(const ridge_plan *p, size_t g, size_t *pr_out, size_t *b_out, ridge_plan_step_info *best)
{
    const ridge_plan_spec *sp = ridge_plan_get_spec(p);
    double best_thr = -1;
    *pr_out = (size_t)-1;
    *b_out = 0;
    for (size_t pr = 0; pr < sp->nprecisions; pr++)
        for (size_t b = 0; b < sp->nbatches; b++) {
            ridge_plan_step_info s;
            if (ridge_plan_step(p, g, pr, b, &s, NULL) != RIDGE_OK || s.reason != RIDGE_PLAN_FEASIBLE ||
                !(s.step_s > 0))
                continue;
            if (s.items / s.step_s > best_thr) {
                best_thr = s.items / s.step_s;
                *best = s;
                *pr_out = pr;
                *b_out = b;
            }
        }
}

static int span_is_wide(const double *v, size_t n)
{
    double lo = HUGE_VAL, hi = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]) && v[i] > 0) {
            lo = fmin(lo, v[i]);
            hi = fmax(hi, v[i]);
        }
    return hi > 0 && hi / lo > 20;
}

static int run_chart(const plan_opts *o)
{
    ridge_gpu *gpus = NULL;
    double *prices = NULL, *xs = NULL, *ys = NULL, *vals = NULL;
    ridge_model *m = NULL;
    ridge_plan *p = NULL;
    ridge_plan_result *all = NULL;
    size_t *order = NULL, space = 0, ng = o->ngpus;
    ridge_plot_paths paths;
    ridge_err err = {{0}};
    char title[512], note[512], ylabel[128], b[4][48];
    const char *unit = o->target_kind == RIDGE_PLAN_TARGET_TOKENS ? "tokens" : "samples";
    char (*names)[160] = NULL;
    const char **cats = NULL;
    int rc, st = RIDGE_OK;

    if (!o->output[0])
        return cli_usage_error("plan", "--chart needs -o/--output CHART.png|svg");
    if (ridge_plot_paths_from_chart(o->output, &paths, &err) != RIDGE_OK)
        return cli_usage_error("plan", "-o: %s", err.msg);
    if ((rc = plan_setup(o, o->counts, o->ncounts, o->target, &gpus, &prices, &m, &p)) != CLI_EXIT_OK)
        goto done;
    rc = CLI_EXIT_FAILURE;
    space = ridge_plan_size(p);
    names = calloc(ng * 16 + 2, sizeof *names);
    cats = calloc(ng * 16 + 2, sizeof *cats);
    vals = calloc(ng * 16 + 2, sizeof *vals);
    if (!names || !cats || !vals) {
        cli_error("out of memory");
        goto done;
    }
    if (strcmp(o->chart, "pareto") == 0) {
        ridge_scatter_series *ser = NULL;
        ridge_scatter_options so = {0};
        size_t nf, nfront, ns = 0, k = 0;
        if (space > PLAN_MAX_STORED) {
            rc = cli_usage_error("plan", "%zu configurations are too many to chart", space);
            goto done;
        }
        all = malloc(space * sizeof *all);
        order = malloc(space * sizeof *order);
        xs = malloc((2 * space + 1) * sizeof *xs);
        ys = malloc((2 * space + 1) * sizeof *ys);
        ser = calloc(ng + 1, sizeof *ser);
        if (!all || !order || !xs || !ys || !ser) {
            free(ser);
            cli_error("out of memory");
            goto done;
        }
        ridge_plan_eval_range(p, 0, space, (int)o->threads, all, &err);
        nfront = ridge_plan_pareto(all, space, 0, order);
        nf = ridge_plan_rank(all, space, RIDGE_PLAN_TIME, order); /* by time: the front in order */
        for (size_t g = 0; g < ng; g++) {
            size_t first = k;
            for (size_t i = 0; i < nf; i++) {
                const ridge_plan_result *r = &all[order[i]];
                if ((size_t)r->gpu == g && !isnan(r->cost_usd)) {
                    xs[k] = r->time_s / 3600.0;
                    ys[k++] = r->cost_usd;
                }
            }
            snprintf(names[ns], sizeof names[0], "%s (%zu feasible)", gpus[g].id, k - first);
            ser[ns] = (ridge_scatter_series){names[ns], xs + first, ys + first, k - first, (int)g, 0};
            ns++;
        }
        {
            size_t first = k;
            for (size_t i = 0; i < nf; i++)
                if (all[order[i]].pareto) {
                    xs[k] = all[order[i]].time_s / 3600.0;
                    ys[k++] = all[order[i]].cost_usd;
                }
            snprintf(names[ns], sizeof names[0], "Pareto front (%zu)", nfront);
            ser[ns] = (ridge_scatter_series){names[ns], xs + first, ys + first, k - first, 0, 1};
            ns++;
            printf("Pareto front (time, cost) of %s %s, %.4g %s: %zu of %zu feasible configurations\n",
                   ridge_model_name(m), ridge_mode_name(o->run.mode), o->target, unit, nfront, nf);
            for (size_t i = 0; i < nf; i++)
                if (all[order[i]].pareto) {
                    const ridge_plan_result *r = &all[order[i]];
                    printf("  %-24s %-5s %5d GPUs  batch %-6.17g  %10s h  %10s USD\n", gpus[r->gpu].id,
                           ridge_dtype_name(r->precision), r->count, r->batch, cli_num(r->time_s / 3600, b[0], 48),
                           cli_num(r->cost_usd, b[1], 48));
                }
        }
        snprintf(title, sizeof title, "%s %s, %.4g %s: cost against time of the feasible configurations",
                 ridge_model_name(m), ridge_mode_name(o->run.mode), o->target, unit);
        snprintf(note, sizeof note, "%zu feasible of %zu configurations; circled and joined: the Pareto front",
                 nf, space);
        so.title = title;
        so.note = note;
        so.xlabel = "Time to finish [h]";
        so.ylabel = "Cost [USD]";
        so.log_x = span_is_wide(xs, k);
        so.log_y = span_is_wide(ys, k);
        st = ridge_scatter_write(ser, ns, &so, &paths, &err);
        free(ser);
    } else if (strcmp(o->chart, "throughput-batch") == 0) {
        ridge_scatter_series *ser = calloc(ng * o->nprecisions, sizeof *ser);
        ridge_scatter_options co = {0};
        size_t ns = 0, k = 0;
        xs = malloc((ng * o->nprecisions * o->nbatches + 1) * sizeof *xs);
        ys = malloc((ng * o->nprecisions * o->nbatches + 1) * sizeof *ys);
        free(names);
        names = calloc(ng * o->nprecisions + 1, sizeof *names);
        if (!ser || !xs || !ys || !names) {
            free(ser);
            cli_error("out of memory");
            goto done;
        }
        printf("%-24s %-9s %10s %16s\n", "gpu", "precision", "batch", "throughput [/s]");
        for (size_t g = 0; g < ng; g++)
            for (size_t pr = 0; pr < o->nprecisions; pr++) {
                size_t first = k;
                for (size_t bi = 0; bi < o->nbatches; bi++) {
                    ridge_plan_step_info s;
                    ridge_plan_step(p, g, pr, bi, &s, NULL);
                    if (s.reason != RIDGE_PLAN_FEASIBLE || !(s.step_s > 0))
                        continue;
                    xs[k] = o->batches[bi];
                    ys[k++] = s.items / s.step_s;
                    printf("%-24s %-9s %10.17g %16s\n", gpus[g].id, ridge_dtype_name(o->precisions[pr]),
                           o->batches[bi], cli_num(s.items / s.step_s, b[0], 48));
                }
                if (o->nprecisions > 1)
                    snprintf(names[ns], sizeof names[0], "%s %s", gpus[g].id, ridge_dtype_name(o->precisions[pr]));
                else
                    snprintf(names[ns], sizeof names[0], "%s", gpus[g].id);
                ser[ns] = (ridge_scatter_series){names[ns], xs + first, ys + first, k - first, (int)g, 2};
                ns++;
            }
        snprintf(title, sizeof title, "%s %s (%s): throughput against batch, one GPU",
                 ridge_model_name(m), ridge_mode_name(o->run.mode),
                 o->nprecisions > 1 ? "several precisions" : ridge_dtype_name(o->precisions[0]));
        snprintf(ylabel, sizeof ylabel, "Throughput [%s/s, one GPU]", unit);
        co.title = title;
        co.xlabel = "Batch per GPU [samples per step]";
        co.ylabel = ylabel;
        co.log_x = span_is_wide(xs, k);
        co.key_outside = 1;
        co.y_from_zero = 1;
        st = ridge_scatter_write(ser, ns, &co, &paths, &err);
        free(ser);
    } else if (strcmp(o->chart, "breakdown") == 0 || strcmp(o->chart, "gpus") == 0) {
        int gpus_chart = strcmp(o->chart, "gpus") == 0;
        /* Stacked layers: the schedule's split by bound. */
        static const struct {
            ridge_bound bound;
            const char *name;
        } layers[] = {{RIDGE_BOUND_COMPUTE, "compute-bound"}, {RIDGE_BOUND_MEMORY, "DRAM-bound"},
                      {RIDGE_BOUND_L2, "L2-bound"},           {RIDGE_BOUND_LATENCY, "latency-bound"},
                      {RIDGE_BOUND_HOST, "host (launch) waits"}};
        enum { NL = sizeof layers / sizeof layers[0] };
        double *v = vals; /* [series][category], up to 5 x ng */
        double base[3] = {0, 0, 0};
        size_t nc = 0, gmap_first = (size_t)-1;
        ridge_bar_series ser[NL];
        ridge_bars_options bo = {0};
        free(vals);
        vals = v = calloc(NL * ng + 1, sizeof *v);
        if (!v) {
            cli_error("out of memory");
            goto done;
        }
        if (gpus_chart)
            printf("%-24s %-9s %8s %16s %10s %18s %16s\n", "gpu", "precision", "batch", "throughput [/s]", "power [W]",
                   "throughput/W", "per USD");
        else
            printf("%-24s %-9s %8s %12s   time by bound [ms per %s]: compute, DRAM, L2, latency, host\n", "gpu",
                   "precision", "batch", "step [ms]", o->target_kind == RIDGE_PLAN_TARGET_TOKENS ? "1000 tokens" : "sample");
        for (size_t g = 0; g < ng; g++) {
            size_t pr, bi;
            ridge_plan_step_info s;
            double per = o->target_kind == RIDGE_PLAN_TARGET_TOKENS ? 1000.0 : 1.0;
            best_step(p, g, &pr, &bi, &s);
            if (pr == (size_t)-1) {
                printf("%-24s (no batch fits)\n", gpus[g].id);
                continue;
            }
            snprintf(names[nc], sizeof names[0], "%s (%s, b=%.17g)", gpus[g].id, ridge_dtype_name(o->precisions[pr]),
                     o->batches[bi]);
            cats[nc] = names[nc];
            if (gpus_chart) {
                double thr = s.items / s.step_s;
                double pw = ridge_plan_power_w(gpus[g].tdp_w, s.time_by_bound_s[RIDGE_BOUND_COMPUTE] / s.step_s);
                double price = ridge_plan_get_spec(p)->price_usd_per_hour[g];
                double m3[3] = {thr, thr / pw, price > 0 ? thr * 3600.0 / price : NAN};
                if (gmap_first == (size_t)-1) {
                    gmap_first = g;
                    for (int q = 0; q < 3; q++)
                        base[q] = m3[q];
                }
                for (int q = 0; q < 3; q++)
                    v[(size_t)q * ng + nc] = base[q] > 0 ? m3[q] / base[q] : NAN;
                printf("%-24s %-9s %8.17g %16s %10s %18s %16s\n", gpus[g].id, ridge_dtype_name(o->precisions[pr]),
                       o->batches[bi], cli_num(thr, b[0], 48), cli_num(pw, b[1], 48), cli_num(thr / pw, b[2], 48),
                       price > 0 ? cli_num(m3[2], b[3], 48) : "-");
            } else {
                printf("%-24s %-9s %8.17g %12s  ", gpus[g].id, ridge_dtype_name(o->precisions[pr]), o->batches[bi],
                       cli_num(s.step_s * 1e3, b[0], 48));
                for (int q = 0; q < NL; q++) {
                    v[(size_t)q * ng + nc] = s.time_by_bound_s[layers[q].bound] / s.items * per * 1e3;
                    printf(" %s", cli_num(v[(size_t)q * ng + nc], b[0], 48));
                }
                printf("\n");
            }
            nc++;
        }
        if (!nc) {
            cli_error("plan: no candidate fits any batch; nothing to chart");
            goto done;
        }
        if (gpus_chart) {
            static const char *const sn[3] = {"throughput", "throughput per watt", "throughput per USD"};
            for (int q = 0; q < 3; q++)
                ser[q] = (ridge_bar_series){sn[q], v + (size_t)q * ng};
            snprintf(title, sizeof title, "%s %s: GPUs relative to %s (= 1), one GPU at its best batch",
                     ridge_model_name(m), ridge_mode_name(o->run.mode), cats[0]);
            snprintf(note, sizeof note, "%s = 1: %s %s/s, %s %s/s per W, %s %s per USD", gpus[gmap_first].id,
                     cli_num(base[0], b[0], 48), unit, cli_num(base[1], b[1], 48), unit,
                     base[2] > 0 ? cli_num(base[2], b[2], 48) : "(no price:", base[2] > 0 ? unit : "no bars)");
            bo.ylabel = "Relative to the first GPU [ratio]";
            bo.value_labels = 1;
            st = ridge_bars_write(cats, nc, ser, 3, &(ridge_bars_options){title, note, bo.ylabel, 0, 1}, &paths, &err);
        } else {
            for (int q = 0; q < NL; q++)
                ser[q] = (ridge_bar_series){layers[q].name, v + (size_t)q * ng};
            snprintf(title, sizeof title, "%s %s: where the step time goes, best batch per GPU", ridge_model_name(m),
                     ridge_mode_name(o->run.mode));
            snprintf(note, sizeof note, "time of the kernels by what bounds them, per %s (lower is faster)",
                     o->target_kind == RIDGE_PLAN_TARGET_TOKENS ? "1,000 tokens" : "sample");
            snprintf(ylabel, sizeof ylabel, "Step time per %s [ms]",
                     o->target_kind == RIDGE_PLAN_TARGET_TOKENS ? "1,000 tokens" : "sample");
            st = ridge_bars_write(cats, nc, ser, NL, &(ridge_bars_options){title, note, ylabel, 1, 1}, &paths, &err);
        }
    } else {
        rc = cli_usage_error("plan", "--chart: '%s' is not one of pareto, throughput-batch, breakdown, gpus", o->chart);
        goto done;
    }
    if (st != RIDGE_OK) {
        cli_error("%s", err.msg);
        rc = cli_exit_code(st);
        goto done;
    }
    rc = plan_render(&paths);
done:
    ridge_plan_free(p);
    ridge_model_free(m);
    free(all);
    free(order);
    free(xs);
    free(ys);
    free(vals);
    free(names);
    free(cats);
    free(prices);
    free(gpus);
    return rc;
}

/* One serving candidate: a (GPU, precision, batch) server. */
typedef struct {
    size_t gpu, prec, batch;
    ridge_plan_reason reason;
    double service_s;
    ridge_plan_serve_result s;
    double usd_per_hour, usd_per_1k;
} serve_row;

static int serve_cmp(const void *a, const void *b)
{
    const serve_row *x = a, *y = b;
    if (x->usd_per_hour != y->usd_per_hour)
        return x->usd_per_hour < y->usd_per_hour ? -1 : 1;
    if (x->s.p99_s != y->s.p99_s)
        return x->s.p99_s < y->s.p99_s ? -1 : 1;
    return (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

static int run_serve_plan(const plan_opts *o)
{
    static const int one = 1;
    ridge_gpu *gpus = NULL;
    double *prices = NULL;
    ridge_model *m = NULL;
    ridge_plan *p = NULL;
    serve_row *rows = NULL;
    size_t n = 0, nf = 0, infeasible[RIDGE_PLAN_REASON_COUNT] = {0};
    ridge_err err = {{0}};
    char b[8][48];
    int rc;
    if (!(o->rate_per_s > 0) || !(o->slo_p99_s > 0))
        return cli_usage_error("plan", "a serving plan needs both --rate and --slo-p99-ms");
    if (o->run.mode != RIDGE_MODE_INFER)
        return cli_usage_error("plan", "a serving plan needs --mode infer");
    if ((rc = plan_setup(o, &one, 1, o->rate_per_s, &gpus, &prices, &m, &p)) != CLI_EXIT_OK)
        goto done;
    rc = CLI_EXIT_FAILURE;
    rows = calloc(o->ngpus * o->nprecisions * o->nbatches, sizeof *rows);
    if (!rows) {
        cli_error("out of memory");
        goto done;
    }
    for (size_t g = 0; g < o->ngpus; g++)
        for (size_t pr = 0; pr < o->nprecisions; pr++)
            for (size_t bi = 0; bi < o->nbatches; bi++) {
                serve_row *r = &rows[n++];
                ridge_plan_step_info s;
                double price = ridge_plan_get_spec(p)->price_usd_per_hour[g];
                r->gpu = g;
                r->prec = pr;
                r->batch = bi;
                ridge_plan_step(p, g, pr, bi, &s, NULL);
                r->reason = s.reason;
                r->service_s = s.step_s;
                if (r->reason == RIDGE_PLAN_FEASIBLE) {
                    int st = ridge_plan_serve(o->rate_per_s, s.step_s, o->batches[bi], o->slo_p99_s,
                                              RIDGE_PLAN_MAX_REPLICAS, &r->s, &err);
                    if (st != RIDGE_OK) {
                        cli_error("%s", err.msg);
                        rc = cli_exit_code(st);
                        goto done;
                    }
                    if (!r->s.replicas)
                        r->reason = RIDGE_PLAN_SLO;
                    else if (!(price > 0))
                        r->reason = RIDGE_PLAN_NO_PRICE;
                    else {
                        r->usd_per_hour = r->s.replicas * price;
                        r->usd_per_1k = r->usd_per_hour / 3600.0 / o->rate_per_s * 1000.0;
                    }
                }
                infeasible[r->reason]++;
                if (r->reason == RIDGE_PLAN_FEASIBLE)
                    nf++;
            }
    /* Feasible first (stable sort not needed: the key ends in the space order). */
    {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (rows[i].reason == RIDGE_PLAN_FEASIBLE) {
                serve_row t = rows[k];
                rows[k++] = rows[i];
                rows[i] = t;
            }
        qsort(rows, nf, sizeof *rows, serve_cmp);
    }
    if (o->format == PF_TEXT) {
        cli_table t;
        const char *row[11];
        printf("serving plan: %s infer, %s requests/s, p99 <= %s ms; M/D/c (Allen-Cunneen), fixed batches: "
               "%zu candidates, %zu feasible\n",
               ridge_model_name(m), cli_num(o->rate_per_s, b[0], 48), cli_num(o->slo_p99_s * 1e3, b[1], 48), n, nf);
        if (cli_table_init(&t, 10)) {
            cli_error("out of memory");
            goto done;
        }
        {
            const char *hdr[] = {"rank", "gpu", "precision", "batch", "service [ms]", "replicas", "util",
                                 "p99 [ms]", "cost [USD/h]", "USD/1k req"};
            cli_table_add(&t, hdr);
        }
        for (int k = 2; k < 10; k++)
            t.right[k] = (unsigned char)(k >= 3);
        for (size_t k = 0; k < nf && k < (size_t)o->top; k++) {
            const serve_row *r = &rows[k];
            snprintf(b[0], 48, "%zu", k + 1);
            snprintf(b[1], 48, "%.17g", o->batches[r->batch]);
            snprintf(b[2], 48, "%d", r->s.replicas);
            row[0] = b[0];
            row[1] = gpus[r->gpu].id;
            row[2] = ridge_dtype_name(o->precisions[r->prec]);
            row[3] = b[1];
            row[4] = cli_num(r->service_s * 1e3, b[3], 48);
            row[5] = b[2];
            snprintf(b[4], 48, "%.2f", r->s.utilisation);
            row[6] = b[4];
            row[7] = cli_num(r->s.p99_s * 1e3, b[5], 48);
            row[8] = cli_num(r->usd_per_hour, b[6], 48);
            row[9] = cli_num(r->usd_per_1k, b[7], 48);
            cli_table_add(&t, row);
        }
        if (nf)
            cli_table_print_text(&t, stdout);
        cli_table_free(&t);
        printf("infeasible: %zu", n - nf);
        for (int q = 1; q < RIDGE_PLAN_REASON_COUNT; q++)
            if (infeasible[q])
                printf(", %s %zu", ridge_plan_reason_name((ridge_plan_reason)q), infeasible[q]);
        printf("\n");
    } else {
        if (o->format == PF_CSV)
            printf("rank,gpu,precision,batch,feasible,reason,service_time_s,replicas,utilisation,p99_s,"
                   "cost_usd_per_hour,cost_usd_per_1000_requests\n");
        for (size_t k = 0; k < n; k++) {
            const serve_row *r = &rows[k];
            int ok = r->reason == RIDGE_PLAN_FEASIBLE;
            if (o->format == PF_CSV) {
                printf("%zu,%s,%s,%.17g,%d,%s,", ok ? k + 1 : 0, gpus[r->gpu].id,
                       ridge_dtype_name(o->precisions[r->prec]), o->batches[r->batch], ok,
                       ridge_plan_reason_key(r->reason));
                if (ok)
                    printf("%.6g,%d,%.4f,%.6g,%.6g,%.6g\n", r->service_s, r->s.replicas, r->s.utilisation,
                           r->s.p99_s, r->usd_per_hour, r->usd_per_1k);
                else
                    printf("%.6g,,,,,\n", r->service_s);
            } else {
                printf("{\"schema_version\":%d,\"rank\":%zu,\"gpu\":\"%s\",\"precision\":\"%s\",\"batch\":%.17g,"
                       "\"feasible\":%s,\"reason\":\"%s\",\"service_time_s\":%.6g",
                       CLI_SCHEMA_VERSION, ok ? k + 1 : 0, gpus[r->gpu].id, ridge_dtype_name(o->precisions[r->prec]),
                       o->batches[r->batch], ok ? "true" : "false", ridge_plan_reason_key(r->reason), r->service_s);
                if (ok)
                    printf(",\"replicas\":%d,\"utilisation\":%.4f,\"p99_s\":%.6g,\"cost_usd_per_hour\":%.6g,"
                           "\"cost_usd_per_1000_requests\":%.6g",
                           r->s.replicas, r->s.utilisation, r->s.p99_s, r->usd_per_hour, r->usd_per_1k);
                printf("}\n");
            }
        }
    }
    rc = CLI_EXIT_OK;
    if (o->chart[0]) {
        /* The cheapest server per candidate: cost per 1,000 requests, replicas in the label. */
        ridge_plot_paths paths;
        char (*names)[160] = calloc(o->ngpus + 1, sizeof *names);
        const char **cats = calloc(o->ngpus + 1, sizeof *cats);
        double *v = calloc(o->ngpus + 1, sizeof *v);
        char title[256], note[256];
        size_t nc = 0;
        int st;
        ridge_bar_series ser;
        if (!names || !cats || !v) {
            cli_error("out of memory");
            rc = CLI_EXIT_FAILURE;
        } else if (strcmp(o->chart, "serve") != 0) {
            rc = cli_usage_error("plan", "--chart: with --rate only 'serve' is drawn");
        } else if (!o->output[0]) {
            rc = cli_usage_error("plan", "--chart needs -o/--output CHART.png|svg");
        } else if (ridge_plot_paths_from_chart(o->output, &paths, &err) != RIDGE_OK) {
            rc = cli_usage_error("plan", "-o: %s", err.msg);
        } else {
            for (size_t g = 0; g < o->ngpus; g++)
                for (size_t k = 0; k < nf; k++)
                    if (rows[k].gpu == g) { /* rows are sorted: the first is the cheapest */
                        snprintf(names[nc], sizeof names[0], "%s: %d x b=%.17g", gpus[g].id, rows[k].s.replicas,
                                 o->batches[rows[k].batch]);
                        cats[nc] = names[nc];
                        v[nc++] = rows[k].usd_per_1k * 1000.0; /* USD per million requests reads better */
                        break;
                    }
            snprintf(title, sizeof title, "%s serving %s requests/s at p99 <= %s ms: cheapest server per candidate",
                     ridge_model_name(m), cli_num(o->rate_per_s, b[0], 48), cli_num(o->slo_p99_s * 1e3, b[1], 48));
            snprintf(note, sizeof note, "labels: candidate: replicas x batch; M/D/c closed form; lower is cheaper");
            ser = (ridge_bar_series){"cost per million requests", v};
            if (!nc) {
                cli_error("plan: no feasible serving configuration to chart");
                rc = CLI_EXIT_FAILURE;
            } else if ((st = ridge_bars_write(cats, nc, &ser, 1,
                                              &(ridge_bars_options){title, note, "Cost [USD per million requests]", 0, 1},
                                              &paths, &err)) != RIDGE_OK) {
                cli_error("%s", err.msg);
                rc = cli_exit_code(st);
            } else
                rc = plan_render(&paths);
        }
        free(names);
        free(cats);
        free(v);
    }
done:
    ridge_plan_free(p);
    ridge_model_free(m);
    free(rows);
    free(prices);
    free(gpus);
    return rc;
}

int cmd_plan(int argc, char **argv)
{
    static plan_opts o; /* large lists: not on the stack */
    ridge_gpu *gpus = NULL;
    double *prices = NULL;
    ridge_model *m = NULL;
    ridge_plan *p = NULL;
    ridge_plan_result *all = NULL, *buf = NULL;
    size_t *order = NULL, space, stored, infeasible[RIDGE_PLAN_REASON_COUNT] = {0};
    ridge_plan_spec sp;
    ridge_err err = {{0}};
    int c, rc = CLI_EXIT_USAGE, progress_on, par = 0;
    long ncpu;

    memset(&o, 0, sizeof o);
    ridge_run_config_init(&o.run);
    o.counts[0] = 1;
    o.ncounts = 1;
    o.batches[0] = 1;
    o.nbatches = 1;
    o.precisions[0] = RIDGE_DTYPE_BF16;
    o.nprecisions = 1;
    o.top = 10;
    ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    o.threads = ncpu > 0 ? (ncpu > 256 ? 256 : ncpu) : 1;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":ho:", long_opts, NULL)) != -1) {
        int r;
        if (c == 'h') {
            fputs(help, stdout);
            fputs(help_run, stdout);
            return CLI_EXIT_OK;
        }
        if (c == ':' || c == '?')
            return cli_getopt_error("plan", c, argv);
        r = set_opt(&o, c, optarg, NULL);
        if (r)
            return r == -3 ? CLI_EXIT_IO : CLI_EXIT_USAGE;
    }
    if (optind < argc)
        return cli_usage_error("plan", "unexpected argument '%s'", argv[optind]);
    if (o.bench)
        return run_bench(o.threads);
    if (!o.workload)
        return cli_usage_error("plan", "--workload is required");
    if (!o.ngpus)
        return cli_usage_error("plan", "--gpus is required");
#ifdef RIDGE_HAVE_MPI
    /* Serving plans and charts are small and run on rank 0 alone; the other ranks stay quiet. */
    if (plan_mpi_rank() > 0 && (o.rate_per_s > 0 || o.slo_p99_s > 0 || o.chart[0]))
        return CLI_EXIT_OK;
#endif
    if ((o.ntps || o.npps || o.nzeros) && (o.rate_per_s > 0 || o.slo_p99_s > 0))
        return cli_usage_error("plan", "a serving plan does not take --tp, --pp or --zero");
    if (o.rate_per_s > 0 || o.slo_p99_s > 0)
        return run_serve_plan(&o);
    if (!(o.target > 0))
        return cli_usage_error("plan", "--tokens or --samples is required");
    if (o.run.mode != RIDGE_MODE_TRAIN && o.run.mode != RIDGE_MODE_INFER)
        return cli_usage_error("plan", "--mode must be train or infer");
    if ((o.ntps || o.npps || o.nzeros) && (o.chart[0] || o.output[0]))
        return cli_usage_error("plan", "--chart does not take --tp, --pp or --zero");
    if (o.chart[0] || o.output[0])
        return o.chart[0] ? run_chart(&o) : cli_usage_error("plan", "-o/--output needs --chart KIND");

    gpus = calloc(o.ngpus, sizeof *gpus);
    prices = calloc(o.ngpus, sizeof *prices);
    if (!gpus || !prices) {
        cli_error("out of memory");
        rc = CLI_EXIT_FAILURE;
        goto done;
    }
    for (size_t i = 0; i < o.ngpus; i++)
        if ((rc = cli_load_gpu(o.gpus[i], NULL, &gpus[i])) != CLI_EXIT_OK)
            goto done;
    for (size_t k = 0; k < o.nprices; k++) {
        int found = 0;
        for (size_t i = 0; i < o.ngpus; i++)
            if (strcmp(o.gpus[i], o.price_id[k]) == 0) {
                prices[i] = o.price[k];
                found = 1;
            }
        if (!found) {
            rc = cli_usage_error("plan", "--price: '%s' is not among the candidate GPUs", o.price_id[k]);
            goto done;
        }
    }
    if ((rc = ridge_model_load(o.workload, &m, &err)) != RIDGE_OK) {
        cli_error("%s", err.msg);
        rc = cli_exit_code(rc);
        goto done;
    }
    ridge_plan_spec_init(&sp);
    sp.model = m;
    sp.run = o.run;
    sp.gpus = gpus;
    sp.price_usd_per_hour = prices;
    sp.ngpus = o.ngpus;
    sp.precisions = o.precisions;
    sp.nprecisions = o.nprecisions;
    sp.counts = o.counts;
    sp.ncounts = o.ncounts;
    sp.batches = o.batches;
    sp.nbatches = o.nbatches;
    sp.target_kind = o.target_kind;
    sp.target = o.target;
    sp.deadline_s = o.deadline_s;
    sp.budget_usd = o.budget_usd;
    sp.power_cap_w = o.power_cap_w;
    sp.objective = o.objective;
    sp.no_comm = o.no_comm;
    sp.threads = (int)o.threads;
    sp.tps = o.tps;
    sp.ntps = o.ntps;
    sp.pps = o.pps;
    sp.npps = o.npps;
    sp.zeros = o.zeros;
    sp.nzeros = o.nzeros;
    if ((rc = ridge_plan_alloc(&sp, &p, &err)) != RIDGE_OK) {
        cli_error("%s", err.msg);
        rc = cli_exit_code(rc);
        goto done;
    }
    space = ridge_plan_size(p);
    stored = o.format == PF_TEXT ? space : 0;
    if (stored > PLAN_MAX_STORED) {
        rc = cli_usage_error("plan", "%zu configurations are too many to rank in memory; use --format jsonl or csv",
                             space);
        goto done;
    }
#ifdef RIDGE_HAVE_MPI
    if (plan_mpi_rank() > 0) { /* under mpirun: evaluate this rank's shares for rank 0, print nothing */
        rc = plan_mpi_worker(p, PLAN_CHUNK, (int)o.threads);
        goto done;
    }
#endif
    buf = malloc(PLAN_CHUNK * sizeof *buf);
    all = stored ? malloc(stored * sizeof *all) : NULL;
    order = stored ? malloc(stored * sizeof *order) : NULL;
    if (!buf || (stored && (!all || !order))) {
        cli_error("out of memory");
        rc = CLI_EXIT_FAILURE;
        goto done;
    }
    progress_on = isatty(STDERR_FILENO);
    par = ridge_plan_is_parallel(p);
    if (o.format == PF_CSV)
        printf("index,gpu,precision,gpus,batch_per_gpu,%sfeasible,reason,memory_bytes_per_gpu,step_time_s,comm_s,"
               "steps,time_s,utilisation,power_w_per_gpu,energy_j,throughput_per_s,cost_usd\n",
               par ? "tp,pp,zero," : "");
    for (size_t first = 0; first < space; first += PLAN_CHUNK) {
        size_t n = space - first < PLAN_CHUNK ? space - first : PLAN_CHUNK;
        ridge_plan_result *dst = stored ? all + first : buf;
        if ((rc = PLAN_EVAL_RANGE(p, first, n, (int)o.threads, dst, &err)) != RIDGE_OK) {
            cli_error("%s", err.msg);
            rc = cli_exit_code(rc);
            goto done;
        }
        for (size_t k = 0; k < n; k++) {
            infeasible[dst[k].reason]++;
            if (o.format == PF_JSONL)
                print_row_jsonl(&dst[k], &gpus[dst[k].gpu], par);
            else if (o.format == PF_CSV)
                print_row_csv(&dst[k], &gpus[dst[k].gpu], par);
        }
        if (progress_on)
            progress((double)(first + n), (double)space);
    }
    if (progress_on)
        fputs("\r\033[K", stderr);
    if (o.format == PF_TEXT) {
        size_t nfront = ridge_plan_pareto(all, space, o.pareto_energy, order); /* order: scratch */
        size_t nf = ridge_plan_rank(all, space, o.objective, order);
        cli_table t;
        char b[16][48];
        const char *row[15];
        int ncol = par ? 15 : 12;
        printf("plan: %s %s, %.4g %s, objective %s: %zu configurations, %zu feasible\n", ridge_model_name(m),
               ridge_mode_name(o.run.mode), o.target, o.target_kind == RIDGE_PLAN_TARGET_TOKENS ? "tokens" : "samples",
               ridge_plan_objective_name(o.objective), space, nf);
        int tokens = o.target_kind == RIDGE_PLAN_TARGET_TOKENS;
        if (cli_table_init(&t, ncol)) {
            cli_error("out of memory");
            rc = CLI_EXIT_FAILURE;
            goto done;
        }
        {
            /* Unit cost: per million tokens, or per 1,000 samples (images, sequences). */
            const char *hdr[] = {"rank",       "gpu",          "precision",
                                 "gpus",       "batch/gpu",    "step [ms]",
                                 "time [h]",   "cost [USD]",   tokens ? "USD/M tokens" : "USD/1k samples",
                                 "energy [kWh]", "power [kW]", "pareto"};
            const char *phdr[15];
            /* With parallelism ranges: tp, pp, zero after the batch. */
            for (int q = 0, k = 0; q < 12; q++) {
                phdr[k++] = hdr[q];
                if (q == 4) {
                    phdr[k++] = "tp";
                    phdr[k++] = "pp";
                    phdr[k++] = "zero";
                }
            }
            cli_table_add(&t, par ? phdr : hdr);
        }
        for (int k = 1; k < ncol; k++)
            t.right[k] = (unsigned char)(k >= 3 && k <= ncol - 2);
        for (size_t k = 0; k < nf && k < (size_t)o.top; k++) {
            const ridge_plan_result *r = &all[order[k]];
            snprintf(b[0], sizeof b[0], "%zu", k + 1);
            snprintf(b[1], sizeof b[1], "%s", gpus[r->gpu].id);
            snprintf(b[2], sizeof b[2], "%s", ridge_dtype_name(r->precision));
            snprintf(b[3], sizeof b[3], "%d", r->count);
            snprintf(b[4], sizeof b[4], "%.17g", r->batch);
            cli_num(r->step_time_s * 1e3, b[5], sizeof b[5]);
            cli_num(r->time_s / 3600.0, b[6], sizeof b[6]);
            if (isnan(r->cost_usd)) {
                snprintf(b[7], sizeof b[7], "-");
                snprintf(b[8], sizeof b[8], "-");
            } else {
                cli_num(r->cost_usd, b[7], sizeof b[7]);
                cli_num(r->cost_usd / (o.target / (tokens ? 1e6 : 1e3)), b[8], sizeof b[8]);
            }
            cli_num(r->energy_j / 3.6e6, b[9], sizeof b[9]);
            cli_num(r->power_w * r->count / 1e3, b[10], sizeof b[10]);
            snprintf(b[11], sizeof b[11], "%s", r->pareto ? "*" : "");
            snprintf(b[12], sizeof b[12], "%d", r->tp);
            snprintf(b[13], sizeof b[13], "%d", r->pp);
            snprintf(b[14], sizeof b[14], "%d", r->zero);
            for (int q = 0, w = 0; q < 12; q++) {
                row[w++] = b[q];
                if (par && q == 4) {
                    row[w++] = b[12];
                    row[w++] = b[13];
                    row[w++] = b[14];
                }
            }
            cli_table_add(&t, row);
        }
        if (nf)
            cli_table_print_text(&t, stdout);
        cli_table_free(&t);
        printf("Pareto front (time, %s): %zu configurations, marked *\n", o.pareto_energy ? "energy" : "cost",
               nfront);
        printf("infeasible: %zu", space - nf);
        for (int q = 1; q < RIDGE_PLAN_REASON_COUNT; q++)
            if (infeasible[q])
                printf(", %s %zu", ridge_plan_reason_name((ridge_plan_reason)q), infeasible[q]);
        printf("\n");
    }
    rc = CLI_EXIT_OK;
done:
    ridge_plan_free(p);
    ridge_model_free(m);
    free(order);
    free(all);
    free(buf);
    free(prices);
    free(gpus);
    return rc;
}
