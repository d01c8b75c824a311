/* Running a model workload on a GPU: the run flags shared by predict and compare, and the
 * prediction with its breakdowns and memory (docs/cli.md).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_MODEL_RUN_H
#define RIDGE_CLI_MODEL_RUN_H

#include <getopt.h>

#include "cli.h"
#include "ridge/predict.h"
#include "ridge/schedule.h"
#include "ridge/workload.h"

/* getopt_long entries for the run flags; option values start at CLI_RUN_OPT_BASE. */
#define CLI_RUN_OPT_BASE 1000
#define CLI_RUN_OPT_MODE (CLI_RUN_OPT_BASE + 0)
#define CLI_RUN_OPT_BATCH (CLI_RUN_OPT_BASE + 1)
#define CLI_RUN_OPT_SEQ (CLI_RUN_OPT_BASE + 2)
#define CLI_RUN_OPT_PROMPT (CLI_RUN_OPT_BASE + 4)
#define CLI_RUN_OPT_CONTEXT (CLI_RUN_OPT_BASE + 5)
#define CLI_RUN_OPT_PRECISION (CLI_RUN_OPT_BASE + 6)
#define CLI_RUN_OPTIONS                                                                            \
    {"mode", required_argument, 0, CLI_RUN_OPT_BASE + 0}, {"batch", required_argument, 0, CLI_RUN_OPT_BASE + 1},  \
        {"seq", required_argument, 0, CLI_RUN_OPT_BASE + 2}, {"image", required_argument, 0, CLI_RUN_OPT_BASE + 3}, \
        {"prompt", required_argument, 0, CLI_RUN_OPT_BASE + 4},                                    \
        {"context", required_argument, 0, CLI_RUN_OPT_BASE + 5},                                   \
        {"precision", required_argument, 0, CLI_RUN_OPT_BASE + 6},                                 \
        {"optimizer", required_argument, 0, CLI_RUN_OPT_BASE + 7},                                 \
        {"unfused-optimizer", no_argument, 0, CLI_RUN_OPT_BASE + 8},                               \
        {"recompute", required_argument, 0, CLI_RUN_OPT_BASE + 9},                                 \
        {"hidden", required_argument, 0, CLI_RUN_OPT_BASE + 10},                                   \
        {"layers", required_argument, 0, CLI_RUN_OPT_BASE + 11},                                   \
        {"attention", required_argument, 0, CLI_RUN_OPT_BASE + 12},                                \
        {"layout", required_argument, 0, CLI_RUN_OPT_BASE + 13},                                   \
        {"amp", no_argument, 0, CLI_RUN_OPT_BASE + 14},                                            \
        {"optimizer-impl", required_argument, 0, CLI_RUN_OPT_BASE + 15},                            \
        {"fusion", required_argument, 0, CLI_RUN_OPT_BASE + 16},                                  \
        {"grad-accum", required_argument, 0, CLI_RUN_OPT_BASE + 17},                              \
        {"mlm-positions", required_argument, 0, CLI_RUN_OPT_BASE + 18},                           \
        {"host", required_argument, 0, CLI_RUN_OPT_BASE + 19},                                    \
        {"code", required_argument, 0, CLI_RUN_OPT_BASE + 20},                                    \
        {"bn-fusion", required_argument, 0, CLI_RUN_OPT_BASE + 21}

#define CLI_RUN_HELP                                                                                   \
    "Run options (model workloads: a built-in id such as llama2-7b, or a model file):\n"               \
    "  --mode train|infer|prefill|decode   default train\n"                                           \
    "  --batch N                           sequences or images per step (default 1)\n"                \
    "  --seq N | --image N                 sequence length / image side (default: the model's)\n"     \
    "  --prompt N                          prefill: prompt tokens (default 512)\n"                    \
    "  --context N                         decode: tokens already in the KV cache (default 0)\n"      \
    "  --precision fp32|tf32|fp16|bf16|fp8|int8   default bf16 (fp16 on a GPU without it);\n"       \
    "                                      fp16/bf16 training: FP32 master weights, optimizer state\n" \
    "  --optimizer sgd|adamw|lamb          default adamw (lamb: apex FusedLAMB)\n"                   \
    "  --optimizer-impl fused|foreach|foreach-capturable|forloop   default fused; foreach is\n"     \
    "                                      torch.optim's default (--unfused-optimizer: forloop)\n"   \
    "  --recompute none|selective|full     activation recomputation (default none)\n"               \
    "  --grad-accum N                      training: N micro-batches of --batch per optimizer\n"     \
    "                                      step, gradients added into .grad (default 1)\n"           \
    "  --mlm-positions N                   masked-LM training: the MLM head on N gathered positions\n" \
    "                                      per sequence (default: every position)\n"                \
    "  --attention flash|unfused           fused flash attention (default) or separate QK^T,\n"     \
    "                                      softmax and PV kernels with the score matrix in memory\n"                 \
    "  --layout nhwc|nchw                  CNN activation layout (default nhwc); in nchw, tensor-core\n"   \
    "                                      convolutions transpose their input and output\n"            \
    "  --fusion eager|engine               CNN inference: the framework's kernels (default) or an\n"    \
    "                                      engine's (BN folded, activation and add in the conv)\n"    \
    "  --bn-fusion separate|fused          CNNs: batch norm, add and ReLU as kernels of their own\n"   \
    "                                      (default) or cuDNN's BN+ReLU, BN+add+ReLU (NGC MXNet)\n"   \
    "  --amp                               autocast over FP32 weights (PyTorch AMP): weights cast\n"    \
    "                                      every forward, gradients cast back (docs/workloads.md)\n"    \
    "  --host PROFILE|FILE    torch-eager (default), torch-graph, torch-compile, engine,\n"        \
    "                         or a published stack's: see docs/model.md §7\n"                    \
    "  --code STYLE           torch, hf, megatron, engine, compile (docs/workloads.md)\n"              \
    "  --hidden N --layers N               RNN stack overrides (the lstm preset)\n"

/* The precision of a run that was given none (ridge_predict_default_precision). Sets
 * rc->precision, and writes into note what the header says when bf16 was not kept
 * (" (the default bf16 has no tensor path on t4)"), else "". */
void cli_default_precision(ridge_run_config *rc, const ridge_gpu *g, int n, char *note, size_t cap);

/* " x N micro-batches" for a run with gradient accumulation (--grad-accum N > 1), else "";
 * written into buf. */
const char *cli_grad_accum_note(const ridge_run_config *rc, char *buf, size_t cap);

/* Handle one run option; returns 1 if c was a run option (0 if not), -1 on a bad value, -3 when
 * the --host file cannot be read. Messages name the value by label ("plan.json: $.seq"), or by
 * the option (--seq) when label is NULL. */
int cli_run_option(int c, const char *arg, const char *label, ridge_run_config *rc);
/* The length options given (--seq, --prompt, --context): a mode uses some of them only, and one it
 * would ignore is refused (cli_run_lengths_check). */
typedef struct {
    int seq, prompt, context;
} cli_run_lengths;
/* Note run option c in l. */
void cli_run_lengths_note(cli_run_lengths *l, int c);
/* 0, or CLI_EXIT_USAGE after "COMMAND: --X: ..." when rc's mode does not use a length given: a
 * prefill is --prompt long (--seq is the training and inference length), a decode step reads
 * --context tokens, train and infer take --seq. */
int cli_run_lengths_check(const char *cmd, const cli_run_lengths *l, const ridge_run_config *rc);
/* "--NAME" of run option c (CLI_RUN_OPT_BASE + n), written into buf, for messages. */
const char *cli_run_option_flag(int c, char *buf, size_t cap);
/* The exit code of a failed cli_run_option (k < 0): CLI_EXIT_IO for -3, else CLI_EXIT_USAGE. */
#define CLI_RUN_OPTION_EXIT(k) ((k) == -3 ? CLI_EXIT_IO : CLI_EXIT_USAGE)

/* The single-GPU prediction (ridge/predict.h), under the name the commands know it by. */
typedef ridge_predict_result cli_model_prediction;

/* The host profile named id_or_path (ridge_host_load): the one a --host option parsed when it
 * names that (a file is read once, so that a pipe works), else loaded now. */
int cli_host_load(const char *id_or_path, ridge_host_profile *hp, ridge_err *err);
/* The host profile of a run (rc->host, else torch-eager; cli_host_load), and its code style when
 * the run has none; prints the error and returns an exit code. */
int cli_host_for_run(ridge_run_config *rc, ridge_host_profile *hp);

/* Build, schedule and size a model run on a GPU (ridge_predict_model with the run's host
 * profile). Prints the error and returns an exit code; p may be freed whatever it returns. */
int cli_model_predict(const ridge_gpu *g, const ridge_model *m, const ridge_run_config *rc, ridge_runtime rt,
                      cli_model_prediction *p);
void cli_model_prediction_free(cli_model_prediction *p);

/* A --workload: a built-in model id, or a file (ridge_model_names_file) read once, at the first
 * look, and parsed from its text, so that a pipe or a FIFO works as a file does. A file that
 * cannot be read is no operator list, and loading it gives the reader's error. */
typedef struct {
    const char *arg; /* as given: names it in errors */
    int looked;      /* the file was read, or its read failed */
    int is_file;
    char *text; /* the file's text (NULL for an id, or a file that could not be read) */
    size_t len;
    int read_st; /* ridge_file_read's status, and its error */
    ridge_err read_err;
} cli_workload;
/* A workload named arg (not read yet); cli_workload_free releases its text. */
void cli_workload_init(cli_workload *w, const char *arg);
/* 1 if the workload is an operator list file ({"ops": [...]}), 0 otherwise (model file, id). */
int cli_workload_is_oplist(cli_workload *w);
/* Its model (ridge_model_load's errors) or operator list (ridge_oplist_load_file's). */
int cli_workload_model(cli_workload *w, ridge_model **out, ridge_err *err);
int cli_workload_oplist(cli_workload *w, ridge_oplist *out, ridge_err *err);
void cli_workload_free(cli_workload *w);

#endif
