/* The library in the CLI's words: the skip reasons and fit refusals that the measurement and
 * calibration library words by its arguments, and the run, parallel and cluster fields its error
 * messages name, each named here by the flag that sets it (cli.h). It calls nothing of the CLI:
 * cli_error (common.c) calls it.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ridge/calibrate.h"

/* The library's words and the CLI's, pairwise. */
static const char *const flag_words[][2] = {
    {RIDGE_MEAS_SKIP_NO_GPU, "GPU not mapped (use --gpu)"},
    {RIDGE_MEAS_SKIP_NOT_KERNEL, "not a kernel (--only kernels)"},
    {RIDGE_MEAS_SKIP_NOT_MODEL, "not a model (--only models)"},
    {RIDGE_MEAS_SKIP_BELOW_MIN_TIME, "measured below --min-time"},
    {RIDGE_CAL_WHY_ONLY_UNINFORMED, "no training measurement depends on the parameters given with --fit"},
    {RIDGE_CAL_WHY_UNDERDETERMINED,
     "fewer training measurements than parameters they inform (use --fit or more --train)"},
};

const char *cli_flag_words(const char *why)
{
    for (size_t i = 0; i < sizeof flag_words / sizeof flag_words[0]; i++)
        if (strcmp(why, flag_words[i][0]) == 0)
            return flag_words[i][1];
    return why;
}

/* The fields (and the one function) library messages name, by the flag that sets each; longest
 * first, so that "run.optimizer_impl" is not read as "run.optimizer" (cli_put_flags matches
 * whole tokens as well). */
static const char *const field_flags[][2] = {
    {"parallel.sequence_parallel", "--sp"},
    {"ridge_oplist_load_file", "--workload FILE"},
    {"parallel.virtual_stages", "--virtual-stages"},
    {"parallel.bucket_bytes", "--bucket-mb"},
    {"parallel.global_batch", "--global-batch"},
    {"parallel.fsdp_group", "--fsdp-group"},
    {"parallel.microbatch", "--microbatch"},
    {"run.optimizer_impl", "--optimizer-impl"},
    {"run.mlm_positions", "--mlm-positions"},
    {"parallel.prefetch", "--prefetch"},
    {"parallel.schedule", "--schedule"},
    {"run.grad_accum", "--grad-accum"},
    {"run.precision", "--precision"},
    {"run.optimizer", "--optimizer"},
    {"parallel.fsdp", "--fsdp"},
    {"parallel.zero", "--zero"},
    {"cluster.nodes", "--nodes"},
    {"run.context", "--context"},
    {"parallel.tp", "--tp"},
    {"parallel.pp", "--pp"},
    {"parallel.dp", "--dp"},
    {"parallel.ep", "--ep"},
    {"run.fusion", "--fusion"},
    {"run.bn_fusion", "--bn-fusion"},
    {"run.hidden", "--hidden"},
    {"run.layers", "--layers"},
    {"run.prompt", "--prompt"},
    {"run.batch", "--batch"},
    {"run.image", "--image"},
    {"run.mode", "--mode"},
    {"run.seq", "--seq"},
    {"run.amp", "--amp"},
};

static int word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The field named at msg[i], if one starts there as a whole token: not inside a longer name or a
 * JSON path ("$.run.mode", "config.parallel.fsdp"), nor followed by more of a name. */
static const char *const *field_at(const char *msg, size_t i)
{
    if (i > 0 && (word_char(msg[i - 1]) || strchr(".$-", msg[i - 1])))
        return NULL;
    for (size_t k = 0; k < sizeof field_flags / sizeof field_flags[0]; k++) {
        size_t n = strlen(field_flags[k][0]);
        const char *after = msg + i + n;
        if (strncmp(msg + i, field_flags[k][0], n) == 0 && !word_char(*after) &&
            !((*after == '.' || *after == '-') && word_char(after[1])))
            return field_flags[k];
    }
    return NULL;
}

void cli_put_flags(const char *msg, FILE *f)
{
    size_t i = 0, from = 0;
    while (msg[i]) {
        const char *const *ff = field_at(msg, i);
        if (!ff) {
            i++;
            continue;
        }
        fwrite(msg + from, 1, i - from, f);
        fputs(ff[1], f);
        i += strlen(ff[0]);
        from = i;
    }
    fwrite(msg + from, 1, i - from, f);
}
