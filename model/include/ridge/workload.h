/* ridge — workloads: operator lists loaded from JSON (docs/workloads.md).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Ownership: ridge_oplist_parse/load allocate `ops`; ridge_oplist_free releases them and is
 * harmless on a zeroed or already-freed list. */
#ifndef RIDGE_WORKLOAD_H
#define RIDGE_WORKLOAD_H

#include <stddef.h>

#include "ridge/error.h"
#include "ridge/op.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RIDGE_OPLIST_MAX_OPS 1000000

typedef struct {
    char name[96];
    size_t n;
    ridge_op *ops;
} ridge_oplist;

/* Parse an operator-list workload {"schema_version":1,"name":...,"ops":[...]}. Unknown kinds,
 * unknown keys, missing keys, non-positive, non-integer or non-finite sizes are errors naming
 * origin and the JSON path ("w.json: $.ops[2].k: ..."). */
int ridge_oplist_parse(const char *json, size_t len, const char *origin, ridge_oplist *out, ridge_err *err);
int ridge_oplist_load_file(const char *path, ridge_oplist *out, ridge_err *err);
void ridge_oplist_free(ridge_oplist *w);

/* ---- Model families: transformer, CNN, RNN (docs/workloads.md, "Model families") ----
 *
 * A model file describes a network ({"schema_version":1, "name":..., "family":"transformer",
 * "arch":{...}}); a run configuration says what to do with it. ridge_model_build turns the two into
 * the operator graph a framework would launch (forward, backward, optimizer step), and
 * ridge_model_memory estimates the memory it needs. */

typedef enum { RIDGE_MODE_TRAIN = 0, RIDGE_MODE_INFER, RIDGE_MODE_PREFILL, RIDGE_MODE_DECODE } ridge_mode;
/* SGD with momentum, AdamW, LAMB (layer-wise adaptive AdamW, as apex's FusedLAMB runs it). */
typedef enum { RIDGE_OPTIMIZER_SGD = 0, RIDGE_OPTIMIZER_ADAMW, RIDGE_OPTIMIZER_LAMB } ridge_optimizer;
/* How the optimizer step is implemented (ridge_run_config.optimizer_impl; docs/workloads.md). */
typedef enum {
    RIDGE_OPT_IMPL_FORLOOP = 0,           /* a few kernels per tensor (foreach=False) */
    RIDGE_OPT_IMPL_FUSED = 1,             /* one multi-tensor kernel, one pass (fused=True, apex) */
    RIDGE_OPT_IMPL_FOREACH = 2,           /* PyTorch's default: one multi-tensor pass per arithmetic step */
    RIDGE_OPT_IMPL_FOREACH_CAPTURABLE = 3 /* the same with capturable=True (AdamW: one pass more) */
} ridge_optimizer_impl;
/* "fused", "foreach", "foreach-capturable", "forloop" (the table's order); RIDGE_OK or RIDGE_EINVAL. */
extern const ridge_names ridge_optimizer_impl_names;
int ridge_optimizer_impl_parse(const char *s, ridge_optimizer_impl *out);
const char *ridge_optimizer_impl_name(ridge_optimizer_impl impl);
typedef enum { RIDGE_RECOMPUTE_NONE = 0, RIDGE_RECOMPUTE_SELECTIVE, RIDGE_RECOMPUTE_FULL } ridge_recompute;
/* How the model's code is written, for the kernels it launches (--code; docs/workloads.md, "How
 * the code is written"): as the model file's keys say, plain PyTorch modules as measure.py writes
 * them, Hugging Face transformers, Megatron-LM (fused kernels), an inference engine, or
 * torch.compile (inductor's fused pointwise kernels). */
typedef enum {
    RIDGE_CODE_AS_WRITTEN = 0,
    RIDGE_CODE_TORCH,
    RIDGE_CODE_HF,
    RIDGE_CODE_MEGATRON,
    RIDGE_CODE_ENGINE,
    RIDGE_CODE_COMPILE
} ridge_code;
/* "torch", "hf", "megatron", "engine", "compile"; the name of RIDGE_CODE_AS_WRITTEN (no row of
 * the table) is "as-written"; RIDGE_OK or RIDGE_EINVAL. */
extern const ridge_names ridge_code_names;
int ridge_code_parse(const char *s, ridge_code *out);
const char *ridge_code_name(ridge_code c);

/* "train", "infer", "prefill", "decode"; "sgd", "adamw", "lamb"; "none", "selective", "full".
 * Parsers return RIDGE_OK, or RIDGE_EINVAL when unknown (ridge/names.h). */
extern const ridge_names ridge_mode_names, ridge_optimizer_names, ridge_recompute_names;
const char *ridge_mode_name(ridge_mode m);
int ridge_mode_parse(const char *s, ridge_mode *out);
const char *ridge_optimizer_name(ridge_optimizer o);
int ridge_optimizer_parse(const char *s, ridge_optimizer *out);
const char *ridge_recompute_name(ridge_recompute r);
int ridge_recompute_parse(const char *s, ridge_recompute *out);

/* The ranges of the run options, which ridge_model_build checks and the command line parses
 * against, so that both name the same limits (docs/workloads.md, "Run configuration"). A model
 * may narrow them: learned positions bound a sequence, a vision transformer's image starts at its
 * patch side. */
#define RIDGE_RUN_BATCH_MAX 10000000      /* batch */
#define RIDGE_RUN_TOKENS_MAX 10000000     /* seq, prompt, context (tokens of one sequence) */
#define RIDGE_RUN_IMAGE_MAX 65536         /* image, pixels per side */
#define RIDGE_RUN_GRAD_ACCUM_MAX 1000000  /* grad_accum */
#define RIDGE_RUN_RNN_HIDDEN_MAX 1000000  /* hidden (RNN) */
#define RIDGE_RUN_RNN_LAYERS_MAX 1000     /* layers (RNN) */

typedef struct {
    ridge_mode mode;
    double batch;     /* sequences or images per step */
    double seq;       /* tokens per sequence (train, infer); 0 = the model's default */
    double image;     /* image side in pixels (CNN, ViT); 0 = the model's default */
    double prompt;    /* prefill: prompt tokens */
    double context;   /* decode: tokens already in the KV cache */
    ridge_dtype precision;    /* fp32, tf32, fp16, bf16 (mixed precision when training), fp8, int8 */
    ridge_optimizer optimizer;
    ridge_optimizer_impl optimizer_impl; /* default RIDGE_OPT_IMPL_FUSED */
    ridge_recompute recompute;
    int unfused_attention;    /* 1: attention as separate GEMMs and softmax (no flash kernel) */
    int amp;                  /* 1 = autocast over FP32 weights (PyTorch AMP): every weight is cast
                               * to the run precision on every forward (--amp); in training each
                               * weight gradient is cast back, with no master copy */
    int nchw;                 /* CNNs: 1 = activations in NCHW; tensor-core convolutions then
                               * transpose their operands to NHWC and back (--layout nchw) */
    int bn_fused;             /* CNNs: 1 = cuDNN's fused batch norms (--bn-fusion fused): a batch
                               * norm runs the ReLU after it, or the residual add and the ReLU
                               * after that, in its kernel, forward and backward (NGC MXNet) */
    int engine;               /* CNN inference: 1 = an inference engine's graph (TensorRT-style,
                               * --fusion engine): batch norms folded into the convolutions,
                               * activations and residual adds fused into their epilogues,
                               * activations kept in the run precision (int8 and fp8 too) */
    double grad_accum;        /* training: micro-batches of `batch` per optimizer step
                               * (--grad-accum; 1, or 0 in a zeroed struct, = none): the step
                               * runs forward and backward grad_accum times, adds each micro-batch's
                               * weight gradients into .grad, and steps the optimizer once */
    double mlm_positions;     /* masked-LM training of a text encoder: positions per sequence the
                               * MLM head and loss run on (--mlm-positions, BERT's
                               * max_predictions_per_seq with the masked rows gathered first);
                               * 0 = every position */
    ridge_code code;          /* how the model code is written (--code); 0 = the model file's keys,
                               * or the host profile's style */
    char host[256];           /* host profile: a built-in id or a JSON file (--host); "" = torch-eager */
    int gqa_per_head;         /* decode attention reads a KV head once per query head (the host
                               * profile's gqa_decode "per_head", ridge_host_apply); 0 = packed */
    double hidden;            /* RNN overrides (--hidden, --layers); 0 = the model's */
    double layers;
} ridge_run_config;

/* Defaults: train, batch 1, model's seq/image, bf16, adamw fused, no recompute, no gradient
 * accumulation. */
void ridge_run_config_init(ridge_run_config *rc);

typedef struct {
    double weights_bytes;
    double gradients_bytes;
    double optimizer_bytes;   /* optimizer state, with FP32 master weights in mixed precision */
    double activations_bytes; /* kept for the backward pass (training) or live at peak (inference) */
    double kv_cache_bytes;
    double workspace_bytes;   /* library workspaces, allocator slack */
    double total_bytes;
} ridge_memory;

typedef struct ridge_model ridge_model; /* opaque */

/* Load a model file or a built-in preset ("llama2-7b"); unknown ids list the nearest. */
int ridge_model_load_file(const char *path, ridge_model **out, ridge_err *err);
int ridge_model_load_builtin(const char *id, ridge_model **out, ridge_err *err);
/* Either: an existing file path, else a built-in id. */
int ridge_model_load(const char *id_or_path, ridge_model **out, ridge_err *err);
/* 1 when ridge_model_load reads id_or_path as a file (it exists, or has a '/' or ".json" in it),
 * 0 for a built-in id: for a caller that reads the file itself and parses the text. */
int ridge_model_names_file(const char *id_or_path);
/* Parse a model document from memory (the same checks and errors as a file; len bytes, no NUL
 * needed); origin names it in errors ("torch:gpt2-124m: $.arch.ffn: ..."). */
int ridge_model_parse(const char *json, size_t len, const char *origin, ridge_model **out, ridge_err *err);
void ridge_model_free(ridge_model *m);

size_t ridge_model_builtin_count(void);
const char *ridge_model_builtin_id(size_t i);

const char *ridge_model_name(const ridge_model *m);
const char *ridge_model_family(const ridge_model *m); /* "transformer", "cnn", "rnn" */
double ridge_model_params(const ridge_model *m);      /* parameter count, as the file describes it */
/* Parameters held by mixture-of-experts experts (0 for dense models). */
double ridge_model_expert_params(const ridge_model *m);
/* Parameter count of a run (RNN --hidden/--layers change it). */
double ridge_model_params_for(const ridge_model *m, const ridge_run_config *rc);
/* Unit of throughput for a run: "images/s", "sequences/s" or "tokens/s", and how many of those
 * one step processes. */
const char *ridge_model_throughput_unit(const ridge_model *m, const ridge_run_config *rc);
double ridge_model_items_per_step(const ridge_model *m, const ridge_run_config *rc);
/* Model FLOPs of one step (useful work the MFU is computed from). */
double ridge_model_flops(const ridge_model *m, const ridge_run_config *rc);

/* The operator graph of one step (allocates out->ops; free with ridge_oplist_free). Errors for
 * a run the model cannot do (decode on a CNN) name the field. */
int ridge_model_build(const ridge_model *m, const ridge_run_config *rc, ridge_oplist *out, ridge_err *err);
int ridge_model_memory(const ridge_model *m, const ridge_run_config *rc, ridge_memory *out, ridge_err *err);

#ifdef __cplusplus
}
#endif
#endif
