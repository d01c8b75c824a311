/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "model_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ridge/kernel.h"

/* An option with two values: *out = 0 for `off`, 1 for `on`; returns 1, or -1 after an error. */
static int two_way(const char *opt, const char *arg, const char *off, const char *on, int *out)
{
    if (strcmp(arg, off) == 0 || strcmp(arg, on) == 0) {
        *out = strcmp(arg, on) == 0;
        return 1;
    }
    cli_error("%s: '%s' is not one of %s, %s", opt, arg, off, on);
    return -1;
}

void cli_default_precision(ridge_run_config *rc, const ridge_gpu *g, int n, char *note, size_t cap)
{
    static const ridge_dtype best[] = {RIDGE_DTYPE_BF16, RIDGE_DTYPE_FP16};
    int lacking = -1; /* the first GPU without a bf16 tensor path */
    note[0] = '\0';
    rc->precision = RIDGE_DTYPE_FP32;
    for (size_t k = 0; k < sizeof best / sizeof best[0]; k++) {
        int all = 1;
        for (int i = 0; i < n && all; i++)
            if (ridge_kernel_peak_for(&g[i], best[k], 1) < 0) {
                all = 0;
                if (k == 0)
                    lacking = i;
            }
        if (all) {
            rc->precision = best[k];
            break;
        }
    }
    if (lacking >= 0)
        snprintf(note, cap, " (the default bf16 has no tensor path on %s)", g[lacking].id);
}

const char *cli_grad_accum_note(const ridge_run_config *rc, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (rc->grad_accum > 1)
        snprintf(buf, cap, " x %.0f micro-batches", rc->grad_accum);
    return buf;
}

/* "--NAME" of run option c, for messages. */
static const char *run_option_flag(int c, char *buf, size_t cap)
{
    static const struct option run_opts[] = {CLI_RUN_OPTIONS};
    for (size_t i = 0; i < sizeof run_opts / sizeof run_opts[0]; i++)
        if (run_opts[i].val == c) {
            snprintf(buf, cap, "--%s", run_opts[i].name);
            return buf;
        }
    return "?";
}

int cli_run_option(int c, const char *arg, const char *label, ridge_run_config *rc)
{
    char flag[48];
    const char *name;
    long v = 0;
    name = label ? label : run_option_flag(c, flag, sizeof flag);
    switch (c - CLI_RUN_OPT_BASE) {
    case 0:
        if (ridge_mode_parse(arg, &rc->mode)) {
            cli_error("%s: '%s' is not one of train, infer, prefill, decode", name, arg);
            return -1;
        }
        return 1;
    case 1:
        if (cli_parse_long(name, arg, 1, RIDGE_RUN_BATCH_MAX, &v))
            return -1;
        rc->batch = (double)v;
        return 1;
    case 2:
        if (cli_parse_long(name, arg, 1, RIDGE_RUN_TOKENS_MAX, &v))
            return -1;
        rc->seq = (double)v;
        return 1;
    case 3:
        if (cli_parse_long(name, arg, 1, RIDGE_RUN_IMAGE_MAX, &v))
            return -1;
        rc->image = (double)v;
        return 1;
    case 4:
        if (cli_parse_long(name, arg, 1, RIDGE_RUN_TOKENS_MAX, &v))
            return -1;
        rc->prompt = (double)v;
        return 1;
    case 5:
        if (cli_parse_long(name, arg, 0, RIDGE_RUN_TOKENS_MAX, &v))
            return -1;
        rc->context = (double)v;
        return 1;
    case 6:
        if (ridge_dtype_parse(arg, &rc->precision) || rc->precision == RIDGE_DTYPE_FP64 ||
            rc->precision == RIDGE_DTYPE_INT4) {
            cli_error("%s: '%s' is not one of fp32, tf32, fp16, bf16, fp8, int8", name, arg);
            return -1;
        }
        return 1;
    case 7:
        if (ridge_optimizer_parse(arg, &rc->optimizer)) {
            cli_error("%s: '%s' is not one of sgd, adamw, lamb", name, arg);
            return -1;
        }
        return 1;
    case 8: rc->optimizer_impl = RIDGE_OPT_IMPL_FORLOOP; return 1;
    case 15: {
        ridge_optimizer_impl impl;
        if (ridge_optimizer_impl_parse(arg, &impl)) {
            cli_error("%s: '%s' is not one of fused, foreach, foreach-capturable, forloop", name, arg);
            return -1;
        }
        rc->optimizer_impl = impl;
        return 1;
    }
    case 9:
        if (ridge_recompute_parse(arg, &rc->recompute)) {
            cli_error("%s: '%s' is not one of none, selective, full", name, arg);
            return -1;
        }
        return 1;
    case 10:
        if (cli_parse_long(name, arg, 1, RIDGE_RUN_RNN_HIDDEN_MAX, &v))
            return -1;
        rc->hidden = (double)v;
        return 1;
    case 11:
        if (cli_parse_long(name, arg, 1, RIDGE_RUN_RNN_LAYERS_MAX, &v))
            return -1;
        rc->layers = (double)v;
        return 1;
    case 12: return two_way(name, arg, "flash", "unfused", &rc->unfused_attention);
    case 14: rc->amp = 1; return 1;
    case 16: return two_way(name, arg, "eager", "engine", &rc->engine);
    case 17:
        if (cli_parse_long(name, arg, 1, RIDGE_RUN_GRAD_ACCUM_MAX, &v))
            return -1;
        rc->grad_accum = (double)v;
        return 1;
    case 18:
        if (cli_parse_long(name, arg, 1, RIDGE_RUN_TOKENS_MAX, &v))
            return -1;
        rc->mlm_positions = (double)v;
        return 1;
    case 13: return two_way(name, arg, "nhwc", "nchw", &rc->nchw);
    case 19: {
        /* checked now, so that a bad profile is one line before any output */
        ridge_host_profile hp;
        ridge_err err;
        if (ridge_host_load(arg, &hp, &err) != RIDGE_OK) {
            cli_error("%s: %s", name, err.msg);
            return -1;
        }
        if (strlen(arg) >= sizeof rc->host) {
            cli_error("%s: path longer than %zu characters", name, sizeof rc->host - 1);
            return -1;
        }
        snprintf(rc->host, sizeof rc->host, "%s", arg);
        return 1;
    }
    case 20:
        if (ridge_code_parse(arg, &rc->code)) {
            cli_error("%s: '%s' is not one of torch, hf, megatron, engine, compile", name, arg);
            return -1;
        }
        return 1;
    default: return 0;
    }
}

int cli_is_oplist_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char buf[65536];
    size_t n;
    cJSON *j;
    int is = 0;
    if (!f)
        return 0;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* A cheap look: parse when small, else look for the key. */
    j = cJSON_ParseWithLength(buf, n);
    if (j) {
        is = cJSON_GetObjectItemCaseSensitive(j, "ops") != NULL && cJSON_GetObjectItemCaseSensitive(j, "family") == NULL;
        cJSON_Delete(j);
    } else {
        is = strstr(buf, "\"ops\"") != NULL && strstr(buf, "\"family\"") == NULL;
    }
    return is;
}

static double memory_total(const ridge_model *m, const ridge_run_config *rc, double batch, ridge_err *err, int *rc_out)
{
    ridge_run_config r = *rc;
    ridge_memory mem;
    r.batch = batch;
    *rc_out = ridge_model_memory(m, &r, &mem, err);
    return mem.total_bytes;
}

/* Largest batch whose memory fits: doubling, then bisection (memory grows with the batch). */
static double max_batch_that_fits(const ridge_model *m, const ridge_run_config *rc, double capacity)
{
    ridge_err err;
    int st;
    double lo = 0, hi = 1;
    while (hi <= 1e7) {
        double t = memory_total(m, rc, hi, &err, &st);
        if (st != RIDGE_OK || t > capacity)
            break;
        lo = hi;
        hi *= 2;
    }
    if (hi > 1e7)
        return lo;
    while (hi - lo > 1) {
        double mid = (double)(long long)((lo + hi) / 2);
        double t = memory_total(m, rc, mid, &err, &st);
        if (st == RIDGE_OK && t <= capacity)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int cli_host_for_run(ridge_run_config *rc, ridge_host_profile *hp)
{
    ridge_err err;
    if (ridge_host_load(rc->host[0] ? rc->host : RIDGE_HOST_DEFAULT, hp, &err) != RIDGE_OK) {
        cli_error("--host: %s", err.msg);
        return CLI_EXIT_USAGE;
    }
    if (rc->code == RIDGE_CODE_AS_WRITTEN && hp->code[0])
        ridge_code_parse(hp->code, &rc->code);
    return CLI_EXIT_OK;
}

int cli_model_predict(const ridge_gpu *g, const ridge_model *m, const ridge_run_config *rc, ridge_runtime rt,
                      cli_model_prediction *p)
{
    ridge_err err;
    int st, peak;
    ridge_run_config run = *rc;
    memset(p, 0, sizeof *p);
    if (cli_host_for_run(&run, &p->host) != CLI_EXIT_OK)
        return CLI_EXIT_USAGE;
    rt = (ridge_runtime)ridge_host_runtime_for(&p->host, run.mode == RIDGE_MODE_DECODE, rt);
    p->runtime = rt;
    p->code = run.code;
    rc = &run;
    st = ridge_model_build(m, rc, &p->ops, &err);
    if (st != RIDGE_OK) {
        cli_error("%s: %s", ridge_model_name(m), err.msg);
        return cli_exit_code(st);
    }
    p->results = calloc(p->ops.n ? p->ops.n : 1, sizeof *p->results);
    if (!p->results) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    st = ridge_schedule_ops_host(g, p->ops.ops, p->ops.n, rt, &p->host, p->results, &p->tot, &err);
    if (st != RIDGE_OK) {
        cli_error("%s on %s: %s", ridge_model_name(m), g->id, err.msg);
        return cli_exit_code(st);
    }
    if (run.mode == RIDGE_MODE_PREFILL) /* a prefill starts a request (docs/model.md §7) */
        ridge_host_add_request(&p->host, &p->tot);
    st = ridge_model_memory(m, rc, &p->mem, &err);
    if (st != RIDGE_OK) {
        cli_error("%s: %s", ridge_model_name(m), err.msg);
        return cli_exit_code(st);
    }
    p->time_s = p->tot.total_time_s;
    p->items_per_step = ridge_model_items_per_step(m, rc);
    p->throughput = p->time_s > 0 ? p->items_per_step / p->time_s : 0;
    p->throughput_unit = ridge_model_throughput_unit(m, rc);
    p->model_flops = ridge_model_flops(m, rc);
    p->params = ridge_model_params_for(m, rc);
    /* MFU against the dense peak of the run's precision (its tensor path, else the vector path). */
    peak = ridge_kernel_peak_for(g, rc->precision, 1);
    if (peak < 0)
        peak = ridge_kernel_peak_for(g, rc->precision, 0);
    p->mfu = p->time_s > 0 && g->peak_flops_per_s[peak] > 0 ? p->model_flops / p->time_s / g->peak_flops_per_s[peak] : 0;
    p->capacity_bytes = g->memory_bytes;
    p->fits = p->mem.total_bytes <= g->memory_bytes;
    p->max_batch = max_batch_that_fits(m, rc, g->memory_bytes);
    for (size_t i = 0; i < p->ops.n; i++) {
        const char *grp = p->ops.ops[i].group[0] ? p->ops.ops[i].group : "other";
        int k;
        for (k = 0; k < p->ngroups; k++)
            if (strcmp(p->groups[k], grp) == 0)
                break;
        if (k == p->ngroups) {
            if (p->ngroups == 24)
                k = 23; /* lump the rest */
            else {
                snprintf(p->groups[k], sizeof p->groups[k], "%s", grp);
                p->ngroups++;
            }
        }
        p->group_time_s[k] += p->results[i].time_s;
    }
    return CLI_EXIT_OK;
}

void cli_model_prediction_free(cli_model_prediction *p)
{
    ridge_oplist_free(&p->ops);
    free(p->results);
    p->results = NULL;
}
