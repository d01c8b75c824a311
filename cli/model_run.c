/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "model_run.h"
#include "cli.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
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
    {21, RUN_TWO_WAY, offsetof(ridge_run_config, bn_fused), 0, 0, "separate", "fused"},
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

/* The profile of the last --host given (run_host), parsed there: a file is read once, as a pipe
 * can be, and each run takes the profile from here, by its name, instead of reading it again. */
static struct {
    char name[sizeof ((ridge_run_config *)0)->host];
    ridge_host_profile hp;
} host_given;

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
    snprintf(host_given.name, sizeof host_given.name, "%s", arg);
    host_given.hp = hp;
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

/* Whether text is an operator list, by the look that was once taken at the file's first blocks
 * and is now taken at its text, so that every file gets the answer it got: parse the first 64 KiB
 * (a small file whole), else look for the keys. */
static int text_is_oplist(const char *text, size_t len)
{
    char buf[65536];
    size_t n = len < sizeof buf - 1 ? len : sizeof buf - 1, at = n;
    int ops, fam;
    cJSON *j = cJSON_ParseWithLength(text, n);
    if (j) {
        int is = cJSON_GetObjectItemCaseSensitive(j, "ops") != NULL &&
                 cJSON_GetObjectItemCaseSensitive(j, "family") == NULL;
        cJSON_Delete(j);
        return is;
    }
    memcpy(buf, text, n);
    buf[n] = '\0';
    ops = strstr(buf, "\"ops\"") != NULL;
    fam = strstr(buf, "\"family\"") != NULL;
    /* Neither key in the first 64 KiB (a long description before "ops"): look on until one shows,
     * each block after the last 8 bytes of the one before (a key across the seam). */
    while (!ops && !fam && n == sizeof buf - 1) {
        size_t keep = 8, got = len - at < sizeof buf - 1 - keep ? len - at : sizeof buf - 1 - keep;
        memmove(buf, buf + n - keep, keep);
        memcpy(buf + keep, text + at, got);
        at += got;
        n = keep + got;
        buf[n] = '\0';
        ops = strstr(buf, "\"ops\"") != NULL;
        fam = strstr(buf, "\"family\"") != NULL;
        if (n <= keep)
            break;
    }
    return ops && !fam;
}

void cli_workload_init(cli_workload *w, const char *arg)
{
    memset(w, 0, sizeof *w);
    w->arg = arg;
}

/* Read a file's text at the first look. RIDGE_OK (a built-in id, or the text), else the reader's
 * status, with its error in err (NULL: not wanted). */
static int workload_read(cli_workload *w, ridge_err *err)
{
    if (!w->looked) {
        w->looked = 1;
        w->is_file = ridge_model_names_file(w->arg);
        if (w->is_file)
            w->read_st = ridge_file_read(w->arg, &w->text, &w->len, &w->read_err);
    }
    if (w->read_st != RIDGE_OK && err)
        *err = w->read_err;
    return w->read_st;
}

int cli_workload_is_oplist(cli_workload *w)
{
    return workload_read(w, NULL) == RIDGE_OK && w->text && text_is_oplist(w->text, w->len);
}

int cli_workload_model(cli_workload *w, ridge_model **out, ridge_err *err)
{
    int st = workload_read(w, err);
    *out = NULL;
    if (st != RIDGE_OK)
        return st;
    if (!w->is_file)
        return ridge_model_load_builtin(w->arg, out, err);
    return ridge_model_parse(w->text, w->len, w->arg, out, err);
}

int cli_workload_oplist(cli_workload *w, ridge_oplist *out, ridge_err *err)
{
    int st = workload_read(w, err);
    memset(out, 0, sizeof *out);
    if (st != RIDGE_OK)
        return st;
    if (!w->is_file)
        return ridge_err_set(err, RIDGE_EINVAL, "%s: not an operator list file", w->arg);
    return ridge_oplist_parse(w->text, w->len, w->arg, out, err);
}

void cli_workload_free(cli_workload *w)
{
    if (!w)
        return;
    free(w->text);
    w->text = NULL;
    w->looked = 0;
}

int cli_host_load(const char *id_or_path, ridge_host_profile *hp, ridge_err *err)
{
    if (host_given.name[0] && strcmp(id_or_path, host_given.name) == 0) {
        *hp = host_given.hp;
        return RIDGE_OK;
    }
    return ridge_host_load(id_or_path, hp, err);
}

int cli_host_for_run(ridge_run_config *rc, ridge_host_profile *hp)
{
    ridge_err err;
    int st = cli_host_load(rc->host[0] ? rc->host : RIDGE_HOST_DEFAULT, hp, &err);
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
