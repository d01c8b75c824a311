/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "model_run.h"

#include <stdio.h>
#include <string.h>

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
    int lacking = ridge_predict_default_precision(g, n, &rc->precision);
    note[0] = '\0';
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
    ridge_host_profile hp;
    ridge_run_config run = *rc;
    int st;
    memset(p, 0, sizeof *p);
    if (cli_host_for_run(&run, &hp) != CLI_EXIT_OK)
        return CLI_EXIT_USAGE;
    st = ridge_predict_model(g, m, &run, &hp, rt, p, &err);
    if (st != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(st);
    }
    return CLI_EXIT_OK;
}

void cli_model_prediction_free(cli_model_prediction *p)
{
    ridge_predict_result_free(p);
}
