/* ridge plan: one flag or plan-file key at a time (plan_cli.h); cmd_plan.c walks argv, plan_file.c
 * reads plan files. SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "plan_cli.h"

const struct option plan_long_opts[] = {
    {"workload", required_argument, 0, O_WORKLOAD},   {"gpus", required_argument, 0, O_GPUS},
    {"counts", required_argument, 0, O_COUNTS},       {"batches", required_argument, 0, O_BATCHES},
    {"precisions", required_argument, 0, O_PRECISIONS}, {"tokens", required_argument, 0, O_TOKENS},
    {"samples", required_argument, 0, O_SAMPLES},     {"deadline-hours", required_argument, 0, O_DEADLINE},
    {"budget-usd", required_argument, 0, O_BUDGET},   {"power-cap-w", required_argument, 0, O_POWER},
    {"objective", required_argument, 0, O_OBJECTIVE}, {"top", required_argument, 0, O_TOP},
    CLI_OPTION_PRICES,                                {"pareto", required_argument, 0, O_PARETO},
    {"no-comm", no_argument, 0, O_NOCOMM},            {"threads", required_argument, 0, O_THREADS},
    {"format", required_argument, 0, O_FORMAT},       {"plan", required_argument, 0, O_PLAN},
    {"bench", no_argument, 0, O_BENCH},               {"help", no_argument, 0, 'h'},
    {"chart", required_argument, 0, O_CHART},         {"output", required_argument, 0, 'o'},
    {"rate", required_argument, 0, O_RATE},           {"slo-p99-ms", required_argument, 0, O_SLO},
    {"tp", required_argument, 0, O_TP},               {"pp", required_argument, 0, O_PP},
    {"zero", required_argument, 0, O_ZERO},
    {"cluster", required_argument, 0, O_CLUSTER},     {"sp", required_argument, 0, O_SP},
    {"virtual-stages", required_argument, 0, O_VSTAGES}, {"global-batches", required_argument, 0, O_GLOBAL},
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

/* Comma-separated list; integers may be given as ranges A..B; a value given twice (1,1 or
 * 1..4,4..8) is an error, so no configuration is swept twice. Returns 0 or prints and -1. */
/* An integer list entry is decimal digits only (docs/cli.md, "Exit codes"): no sign, exponent or
 * point, as a single integer option's. */
static int digits_only(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

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
            if (!digits_only(tok) || !digits_only(dots + 2)) {
                cli_error("%s: '%s..%s' is not an integer range A..B with A <= B", opt, tok, dots + 2);
                goto done;
            }
            if (cli_parse_double(opt, tok, lo, hi, &a) || cli_parse_double(opt, dots + 2, lo, hi, &b))
                goto done;
            if (a != floor(a) || b != floor(b) || b < a) {
                cli_error("%s: '%s..%s' is not an integer range A..B with A <= B", opt, tok, dots + 2);
                goto done;
            }
        } else {
            /* a minus sign is read, so that -1 is out of range; what follows it is digits too
             * (-0.0, -0e1 and -1.5 are not integers) */
            if (integer && !digits_only(tok + (tok[0] == '-'))) {
                cli_error("%s: '%s' is not an integer", opt, tok);
                goto done;
            }
            if (cli_parse_double(opt, tok, lo, hi, &a))
                goto done;
            if (integer && a != floor(a)) {
                cli_error("%s: '%s' is not an integer", opt, tok);
                goto done;
            }
            a += 0.0; /* -0 is 0: listed, and named in messages, as 0 */
            b = a;
        }
        for (double v = a; v <= b; v++) {
            for (size_t k = 0; k < *n; k++) /* at most PLAN_MAX_LIST values, each once */
                if (out[k] == v) {
                    cli_error("%s: %.17g is listed twice", opt, v);
                    goto done;
                }
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
    for (size_t k = 0; k < o->ngpus; k++) /* each GPU once: a40,a40 would be swept and priced twice */
        if (strcmp(o->gpus[k], id) == 0) {
            cli_error("%s: '%s' is listed twice", name, id);
            return -1;
        }
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

/* "--NAME" of option c, for messages. */
static const char *opt_flag(int c, char *buf, size_t cap)
{
    for (const struct option *op = plan_long_opts; op->name; op++)
        if (op->val == c) {
            snprintf(buf, cap, "--%s", op->name);
            return buf;
        }
    return "?";
}

/* Each entry of the comma-separated list arg through fn, until one fails; *n (the list's count)
 * is reset first, and a list that ends empty is an error. 0, or -1 after printing. */
static int each_entry(plan_opts *o, const char *arg, const char *name,
                      int (*fn)(plan_opts *, const char *, const char *), size_t *n)
{
    char *buf = list_copy(arg), *save = NULL, *tok;
    int r = buf ? 0 : -1;
    *n = 0;
    if (buf && cli_check_list(name, arg))
        r = -1;
    for (tok = buf && !r ? strtok_r(buf, ",", &save) : NULL; tok && !r; tok = strtok_r(NULL, ",", &save))
        r = fn(o, tok, name);
    free(buf);
    if (!r && !*n) {
        cli_error("%s: empty list", name);
        r = -1;
    }
    return r;
}

/* A --gpus entry: an id, or "all" (the catalogue: all,a40 lists a40 twice). */
static int gpu_entry(plan_opts *o, const char *tok, const char *name)
{
    int r = 0;
    if (strcmp(tok, "all") != 0)
        return add_gpu(o, tok, name);
    for (size_t i = 0; i < ridge_catalog_count() && !r; i++)
        r = add_gpu(o, ridge_catalog_id(i), name);
    return r;
}

/* A --precisions entry: one of fp32, tf32, fp16, bf16, fp8, int8 (16 at most). */
static int precision_entry(plan_opts *o, const char *tok, const char *name)
{
    ridge_dtype d;
    if (ridge_dtype_parse(tok, &d) || d == RIDGE_DTYPE_FP64 || d == RIDGE_DTYPE_INT4) {
        cli_error("%s: '%s' is not one of fp32, tf32, fp16, bf16, fp8, int8", name, tok);
        return -1;
    }
    for (size_t k = 0; k < o->nprecisions; k++)
        if (o->precisions[k] == d) {
            cli_error("%s: '%s' is listed twice", name, tok);
            return -1;
        }
    if (o->nprecisions >= 16) {
        cli_error("%s: more than 16 values", name);
        return -1;
    }
    o->precisions[o->nprecisions++] = d;
    return 0;
}

/* --counts, --tp, --pp, --zero: integer lists with ranges. */
static int set_int_list(plan_opts *o, int c, const char *arg, const char *name)
{
    static double tmp[PLAN_MAX_LIST];
    int *dst = c == O_COUNTS ? o->counts : c == O_TP ? o->tps : c == O_PP ? o->pps : o->zeros;
    size_t *nd = c == O_COUNTS ? &o->ncounts : c == O_TP ? &o->ntps : c == O_PP ? &o->npps : &o->nzeros;
    double lo = c == O_ZERO ? 0 : 1, hi = c == O_COUNTS ? 1000000 : c == O_ZERO ? 3 : 1024;
    size_t n;
    if (parse_num_list(name, arg, 1, lo, hi, tmp, &n))
        return -1;
    if (c == O_ZERO && n > 4) {
        cli_error("%s: more than 4 values", name);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        dst[i] = (int)tmp[i];
    *nd = n;
    return 0;
}

int plan_set_price(plan_opts *o, const char *arg, const char *label)
{
    return cli_prices_add(&o->prices, arg, label);
}

/* One of a few words into *out (its position in words), or the error naming them all. */
static int set_word(const char *name, const char *arg, const char *const *words, int nwords, int *out)
{
    char list[128] = "";
    for (int k = 0; k < nwords; k++)
        if (strcmp(arg, words[k]) == 0) {
            *out = k;
            return 0;
        }
    for (int k = 0; k < nwords; k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", words[k]);
    cli_error("%s: '%s' is not one of %s", name, arg, list);
    return -1;
}

/* A run option (model_run.h); --precision and --batch are one-entry lists here. */
static int set_run_opt(plan_opts *o, int c, const char *arg, const char *label)
{
    int k = cli_run_option(c, arg, label, &o->run);
    if (k != 1)
        return k == -3 ? -3 : -1;
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

/* ---- the searched dimensions and the fabric ---- */

/* A --recompute entry: none, selective or full (3 at most). */
static int recompute_entry(plan_opts *o, const char *tok, const char *name)
{
    ridge_recompute r;
    if (ridge_recompute_parse(tok, &r)) {
        cli_error("%s: '%s' is not one of none, selective, full", name, tok);
        return -1;
    }
    for (size_t k = 0; k < o->nrecomputes; k++)
        if (o->recomputes[k] == r) {
            cli_error("%s: '%s' is listed twice", name, tok);
            return -1;
        }
    if (o->nrecomputes >= 3) {
        cli_error("%s: more than 3 values", name);
        return -1;
    }
    o->recomputes[o->nrecomputes++] = r;
    return 0;
}

/* --recompute (a list: one value is the run option, as in predict), --sp, --virtual-stages,
 * --global-batches, --cluster. 1 when c is not one of them. */
static int set_dim_opt(plan_opts *o, int c, const char *arg, const char *name)
{
    static double tmp[PLAN_MAX_LIST];
    size_t n;
    switch (c) {
    case CLI_RUN_OPT_BASE + 9:
        if (each_entry(o, arg, name, recompute_entry, &o->nrecomputes))
            return -1;
        if (o->nrecomputes == 1) { /* one value: the run's, and no dimension */
            o->run.recompute = o->recomputes[0];
            o->nrecomputes = 0;
        }
        return 0;
    case O_SP:
    case O_VSTAGES:
        if (parse_num_list(name, arg, 1, c == O_SP ? 0 : 1, c == O_SP ? 1 : 64, tmp, &n))
            return -1;
        if (n > (c == O_SP ? 2 : 64)) {
            cli_error("%s: more than %d values", name, c == O_SP ? 2 : 64);
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            (c == O_SP ? o->sps : o->vstages)[i] = (int)tmp[i];
        *(c == O_SP ? &o->nsps : &o->nvstages) = n;
        return 0;
    case O_GLOBAL: return parse_num_list(name, arg, 1, 1, 1e9, o->global_batches, &o->nglobal_batches) ? -1 : 0;
    case O_CLUSTER:
        if (!arg[0] || strlen(arg) >= sizeof o->cluster) {
            cli_error("%s: %s", name, arg[0] ? "path too long" : "empty");
            return -1;
        }
        snprintf(o->cluster, sizeof o->cluster, "%s", arg);
        snprintf(o->cluster_from, sizeof o->cluster_from, "%s", name); /* for plan_setup's messages */
        return 0;
    default: return 1;
    }
}

/* --tokens, --samples: the work, given once, as one or the other (the later of two --tokens wins).
 * A plan file's and a flag's (or two files') tokens and samples clash too: one run has one target. */
static int set_target(plan_opts *o, int c, const char *arg, const char *name)
{
    ridge_plan_target kind = c == O_TOKENS ? RIDGE_PLAN_TARGET_TOKENS : RIDGE_PLAN_TARGET_SAMPLES;
    if (o->target_from[0] && o->target_kind != kind) {
        /* "plan.json: $.tokens: not with $.samples": the file named once when both are its keys */
        const char *other = o->target_from, *key = strstr(name, "$."), *okey = strstr(other, "$.");
        if (key && okey && key - name == okey - other && strncmp(name, other, (size_t)(key - name)) == 0)
            other = okey;
        cli_error("%s: not with %s: give the work as tokens or as samples, not both", name, other);
        return -1;
    }
    if (cli_parse_double(name, arg, 1, 1e18, &o->target))
        return -1;
    o->target_kind = kind;
    snprintf(o->target_from, sizeof o->target_from, "%s", name);
    return 0;
}

int plan_has_dims(const plan_opts *o)
{
    return o->nrecomputes || o->nsps || o->nvstages || o->nglobal_batches || o->cluster[0];
}

int plan_set_opt(plan_opts *o, int c, const char *arg, const char *label)
{
    static const char *const pareto[] = {"time-cost", "time-energy"}, *const formats[] = {"text", "jsonl", "csv"},
                             *const charts[] = {"pareto", "throughput-batch", "breakdown", "gpus", "serve"};
    char flag[48];
    const char *name = label ? label : opt_flag(c, flag, sizeof flag);
    int w = set_dim_opt(o, c, arg, name);
    if (w != 1)
        return w;
    switch (c) {
    case O_WORKLOAD:
        if (strlen(arg) >= sizeof o->workload_buf) {
            cli_error("%s: longer than %zu characters", name, sizeof o->workload_buf - 1);
            return -1;
        }
        strcpy(o->workload_buf, arg);
        o->workload = o->workload_buf;
        snprintf(o->workload_from, sizeof o->workload_from, "%s", name); /* for plan_setup's messages */
        return 0;
    case O_GPUS: /* the list's source, for plan_setup's message on an unknown id */
        snprintf(o->gpus_from, sizeof o->gpus_from, "%s", name);
        return each_entry(o, arg, name, gpu_entry, &o->ngpus);
    case O_COUNTS:
    case O_TP:
    case O_PP:
    case O_ZERO: return set_int_list(o, c, arg, name);
    case O_BATCHES: return parse_num_list(name, arg, 1, 1, 10000000, o->batches, &o->nbatches) ? -1 : 0;
    case O_PRECISIONS: return each_entry(o, arg, name, precision_entry, &o->nprecisions);
    case O_TOKENS:
    case O_SAMPLES: return set_target(o, c, arg, name);
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
    case CLI_OPT_PRICE: return plan_set_price(o, arg, label);
    case CLI_OPT_PRICES: return cli_prices_load(&o->prices, arg);
    case O_PARETO: return set_word(name, arg, pareto, 2, &o->pareto_energy);
    case O_NOCOMM: o->no_comm = 1; return 0;
    case O_THREADS: return cli_parse_long(name, arg, 1, 256, &o->threads);
    case O_FORMAT:
        if (set_word(name, arg, formats, 3, &w))
            return -1;
        o->format = (plan_format)w;
        return 0;
    case O_BENCH: o->bench = 1; return 0;
    case O_CHART:
        if (set_word(name, arg, charts, 5, &w))
            return -1;
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
    case CLI_RUN_OPT_MODE: /* a sweep trains or serves replicas: prefill and decode are predict's */
        if ((w = set_run_opt(o, c, arg, label)) != 0)
            return w;
        if (o->run.mode != RIDGE_MODE_TRAIN && o->run.mode != RIDGE_MODE_INFER) {
            cli_error("%s: '%s' is not one of train, infer", name, arg);
            return -1;
        }
        return 0;
    default: return set_run_opt(o, c, arg, label);
    }
}

int plan_file_key_code(const char *name)
{
    int code = 0;
    for (const struct option *op = plan_long_opts; op->name; op++)
        if (strcmp(op->name, name) == 0)
            code = op->val;
    return code == O_PLAN || code == O_BENCH || code == 'h' || code == CLI_OPT_PRICE ? 0 : code;
}

void plan_opts_init(plan_opts *o)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    memset(o, 0, sizeof *o);
    ridge_run_config_init(&o->run);
    o->counts[0] = 1;
    o->ncounts = 1;
    o->batches[0] = 1;
    o->nbatches = 1;
    o->precisions[0] = RIDGE_DTYPE_BF16;
    o->nprecisions = 1;
    o->top = 10;
    o->threads = ncpu > 0 ? (ncpu > 256 ? 256 : ncpu) : 1;
}
