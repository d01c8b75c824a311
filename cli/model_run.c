/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "model_run.h"
#include "cli.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "ridge/file.h"

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
const char *cli_run_option_flag(int c, char *buf, size_t cap)
{
    static const struct option run_opts[] = {CLI_RUN_OPTIONS};
    for (size_t i = 0; i < sizeof run_opts / sizeof run_opts[0]; i++)
        if (run_opts[i].val == c) {
            snprintf(buf, cap, "--%s", run_opts[i].name);
            return buf;
        }
    return "?";
}

/* The run options that set a field from their value alone: a count (whole, within [lo, hi], kept
 * as a double) or one of two words (an int: 0 for off, 1 for on). One row each, read by one loop
 * in cli_run_option; the options a parser of their own reads are in its switch. */
typedef enum { RUN_COUNT, RUN_TWO_WAY } run_field_kind;
static const struct {
    int opt; /* value - CLI_RUN_OPT_BASE */
    run_field_kind kind;
    size_t field; /* offsetof(ridge_run_config, ...) */
    long lo, hi;  /* RUN_COUNT */
    const char *off, *on; /* RUN_TWO_WAY */
} run_fields[] = {
    {1, RUN_COUNT, offsetof(ridge_run_config, batch), 1, RIDGE_RUN_BATCH_MAX, 0, 0},
    {2, RUN_COUNT, offsetof(ridge_run_config, seq), 1, RIDGE_RUN_TOKENS_MAX, 0, 0},
    {3, RUN_COUNT, offsetof(ridge_run_config, image), 1, RIDGE_RUN_IMAGE_MAX, 0, 0},
    {4, RUN_COUNT, offsetof(ridge_run_config, prompt), 1, RIDGE_RUN_TOKENS_MAX, 0, 0},
    {5, RUN_COUNT, offsetof(ridge_run_config, context), 0, RIDGE_RUN_TOKENS_MAX, 0, 0},
    {10, RUN_COUNT, offsetof(ridge_run_config, hidden), 1, RIDGE_RUN_RNN_HIDDEN_MAX, 0, 0},
    {11, RUN_COUNT, offsetof(ridge_run_config, layers), 1, RIDGE_RUN_RNN_LAYERS_MAX, 0, 0},
    {12, RUN_TWO_WAY, offsetof(ridge_run_config, unfused_attention), 0, 0, "flash", "unfused"},
    {13, RUN_TWO_WAY, offsetof(ridge_run_config, nchw), 0, 0, "nhwc", "nchw"},
    {16, RUN_TWO_WAY, offsetof(ridge_run_config, engine), 0, 0, "eager", "engine"},
    {17, RUN_COUNT, offsetof(ridge_run_config, grad_accum), 1, RIDGE_RUN_GRAD_ACCUM_MAX, 0, 0},
    {18, RUN_COUNT, offsetof(ridge_run_config, mlm_positions), 1, RIDGE_RUN_TOKENS_MAX, 0, 0},
};

/* Set the field of run_fields row r from arg; 1, or -1 after an error. */
static int run_field_set(size_t r, const char *name, const char *arg, ridge_run_config *rc)
{
    char *field = (char *)rc + run_fields[r].field;
    long v = 0;
    if (run_fields[r].kind == RUN_COUNT) {
        if (cli_parse_long(name, arg, run_fields[r].lo, run_fields[r].hi, &v))
            return -1;
        *(double *)(void *)field = (double)v;
        return 1;
    }
    if (strcmp(arg, run_fields[r].off) == 0 || strcmp(arg, run_fields[r].on) == 0) {
        *(int *)(void *)field = strcmp(arg, run_fields[r].on) == 0;
        return 1;
    }
    cli_error("%s: '%s' is not one of %s, %s", name, arg, run_fields[r].off, run_fields[r].on);
    return -1;
}

/* 1 when a parse of arg succeeded (failed == 0), else -1 after "NAME: 'ARG' is not one of WORDS". */
static int run_choice(int failed, const char *name, const char *arg, const char *words)
{
    if (!failed)
        return 1;
    cli_error("%s: '%s' is not one of %s", name, arg, words);
    return -1;
}

/* --host: checked now, so that a bad profile is one line before any output. */
static int run_host(const char *name, const char *arg, ridge_run_config *rc)
{
    ridge_host_profile hp;
    ridge_err err;
    int st = ridge_host_load(arg, &hp, &err);
    if (st != RIDGE_OK) {
        cli_error("%s: %s", name, err.msg);
        return st == RIDGE_EIO ? -3 : -1; /* a file that cannot be read: exit 3 */
    }
    if (strlen(arg) >= sizeof rc->host) {
        cli_error("%s: path longer than %zu characters", name, sizeof rc->host - 1);
        return -1;
    }
    snprintf(rc->host, sizeof rc->host, "%s", arg);
    return 1;
}

int cli_run_option(int c, const char *arg, const char *label, ridge_run_config *rc)
{
    char flag[48];
    const char *name;
    ridge_optimizer_impl impl;
    name = label ? label : cli_run_option_flag(c, flag, sizeof flag);
    for (size_t r = 0; r < sizeof run_fields / sizeof run_fields[0]; r++)
        if (c - CLI_RUN_OPT_BASE == run_fields[r].opt)
            return run_field_set(r, name, arg, rc);
    switch (c - CLI_RUN_OPT_BASE) {
    case 0: return run_choice(ridge_mode_parse(arg, &rc->mode), name, arg, "train, infer, prefill, decode");
    case 6:
        return run_choice(ridge_dtype_parse(arg, &rc->precision) || rc->precision == RIDGE_DTYPE_FP64 ||
                              rc->precision == RIDGE_DTYPE_INT4,
                          name, arg, "fp32, tf32, fp16, bf16, fp8, int8");
    case 7: return run_choice(ridge_optimizer_parse(arg, &rc->optimizer), name, arg, "sgd, adamw, lamb");
    case 8: rc->optimizer_impl = RIDGE_OPT_IMPL_FORLOOP; return 1;
    case 9: return run_choice(ridge_recompute_parse(arg, &rc->recompute), name, arg, "none, selective, full");
    case 14: rc->amp = 1; return 1;
    case 15:
        if (ridge_optimizer_impl_parse(arg, &impl))
            return run_choice(1, name, arg, "fused, foreach, foreach-capturable, forloop");
        rc->optimizer_impl = impl;
        return 1;
    case 19: return run_host(name, arg, rc);
    case 20:
        return run_choice(ridge_code_parse(arg, &rc->code), name, arg, "torch, hf, megatron, engine, compile");
    default: return 0;
    }
}

void cli_run_lengths_note(cli_run_lengths *l, int c)
{
    l->seq |= c == CLI_RUN_OPT_SEQ;
    l->prompt |= c == CLI_RUN_OPT_PROMPT;
    l->context |= c == CLI_RUN_OPT_CONTEXT;
}

int cli_run_lengths_check(const char *cmd, const cli_run_lengths *l, const ridge_run_config *rc)
{
    if (rc->mode == RIDGE_MODE_PREFILL && l->seq)
        return cli_usage_error(cmd, "--seq: a prefill is --prompt tokens long (--seq is a training or inference "
                                    "pass's length)");
    if (rc->mode == RIDGE_MODE_PREFILL && l->context)
        return cli_usage_error(cmd, "--context: a prefill starts from an empty cache (--context is a decode "
                                    "step's)");
    if (rc->mode == RIDGE_MODE_DECODE && (l->seq || l->prompt))
        return cli_usage_error(cmd, "%s: a decode step reads --context tokens of KV cache", l->seq ? "--seq" : "--prompt");
    if ((rc->mode == RIDGE_MODE_TRAIN || rc->mode == RIDGE_MODE_INFER) && l->prompt)
        return cli_usage_error(cmd, "--prompt: a prefill's length (--mode prefill); train and infer take --seq");
    if ((rc->mode == RIDGE_MODE_TRAIN || rc->mode == RIDGE_MODE_INFER) && l->context)
        return cli_usage_error(cmd, "--context: a decode step's KV cache (--mode decode); train and infer take --seq");
    return 0;
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
    buf[n] = '\0';
    /* A cheap look: parse when small, else look for the key. */
    j = cJSON_ParseWithLength(buf, n);
    if (j) {
        is = cJSON_GetObjectItemCaseSensitive(j, "ops") != NULL && cJSON_GetObjectItemCaseSensitive(j, "family") == NULL;
        cJSON_Delete(j);
    } else {
        int ops = strstr(buf, "\"ops\"") != NULL, fam = strstr(buf, "\"family\"") != NULL;
        /* Neither key in the first 64 KiB (a long description before "ops"): read on until one
         * shows, each block after the last 8 bytes of the one before (a key across the seam), up
         * to the input file limit (/dev/zero never ends; the loader then says it is too large). */
        size_t total = n;
        while (!ops && !fam && n == sizeof buf - 1 && total <= RIDGE_FILE_MAX_BYTES) {
            size_t keep = 8;
            memmove(buf, buf + n - keep, keep);
            n = keep + fread(buf + keep, 1, sizeof buf - 1 - keep, f);
            total += n - keep;
            buf[n] = '\0';
            ops = strstr(buf, "\"ops\"") != NULL;
            fam = strstr(buf, "\"family\"") != NULL;
            if (n <= keep)
                break;
        }
        is = ops && !fam;
    }
    fclose(f);
    return is;
}

int cli_host_for_run(ridge_run_config *rc, ridge_host_profile *hp)
{
    ridge_err err;
    int st = ridge_host_load(rc->host[0] ? rc->host : RIDGE_HOST_DEFAULT, hp, &err);
    if (st != RIDGE_OK) {
        cli_error("--host: %s", err.msg);
        return cli_exit_code(st); /* a file that cannot be read: 3, as every input file */
    }
    ridge_host_apply(hp, rc);
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
