/* The transformer family: decoders (GPT, Llama, Mixtral, Transformer-XL), text encoders (BERT)
 * and vision transformers (ViT). docs/workloads.md, "Transformers", gives the arch keys, the graph
 * built per mode and the parameter, memory and model-FLOPs formulas implemented here.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "family.h"

typedef enum { TF_ACT_GELU = 0, TF_ACT_SWIGLU, TF_ACT_RELU } tf_act;
typedef enum { TF_NORM_LAYERNORM = 0, TF_NORM_RMSNORM } tf_norm;
typedef enum { TF_POS_LEARNED = 0, TF_POS_ROPE, TF_POS_RELATIVE, TF_POS_NONE } tf_pos;

typedef struct {
    char id[160]; /* the preset id or file path, for run errors */
    double d, layers, heads, kv_heads, head_dim, ffn;
    double vocab;      /* 0 for a vision transformer */
    double head_vocab; /* logits per token the LM head computes (default vocab) */
    double experts, top_k, max_seq, mem_len;
    double image, patch, channels, classes; /* vision transformer; classes: classifier width (0: none) */
    tf_act act;
    tf_norm norm;
    tf_pos pos;
    int encoder, tied, bias, dropout, pooler, vit;
    int qa; /* qa_head: extractive question answering, start and end logits on every token */
    int fused_qkv, fused_gate_up; /* one GEMM for Q, K and V (gate and up); else one each */
    int composite_norm, composite_rope; /* the framework's pointwise decomposition, kernel by kernel */
    int composite_gelu; /* gelu_impl "composite": the tanh GELU as pointwise ops (Hugging Face's gelu_new) */
    int fused_softmax; /* Megatron's scale-mask softmax: a warp per row, the row in registers */
    int repeat_kv; /* gqa_impl "repeat" 1, "repeat_all" 2: K and V copied out to every query head */
    int parallel;  /* parallel_residual: attention and MLP read one norm's output, both added to x */
    double rotary_dim; /* dimensions of each head the rotary embedding turns (default head_dim) */
} tf_arch;

/* Limits on sizes in model files and run options. */
#define TF_SIZE_MAX 10000000L
#define TF_VOCAB_MAX 100000000L
/* Tokens a prefill takes when --prompt is not given. */
#define TF_DEFAULT_PROMPT 512.0
/* FLOPs per element: GELU (tanh form: cube, multiply-adds, tanh, scale), ReLU, SiLU(gate)*up
 * (exp, add, divide, two multiplies), rotary embedding (x cos + rotate(x) sin), tanh. */
#define TF_GELU_FLOPS 8.0
#define TF_RELU_FLOPS 1.0
#define TF_SILU_MUL_FLOPS 5.0
#define TF_ROPE_FLOPS 3.0
#define TF_TANH_FLOPS 4.0

static const ridge_name act_rows[] = {{"gelu", TF_ACT_GELU}, {"swiglu", TF_ACT_SWIGLU}, {"relu", TF_ACT_RELU}};
static const ridge_name norm_rows[] = {{"layernorm", TF_NORM_LAYERNORM}, {"rmsnorm", TF_NORM_RMSNORM}};
static const ridge_name pos_rows[] = {
    {"learned", TF_POS_LEARNED}, {"rope", TF_POS_ROPE}, {"relative", TF_POS_RELATIVE}, {"none", TF_POS_NONE}};
static const ridge_names act_names = RIDGE_NAMES(act_rows, "?");
static const ridge_names norm_names = RIDGE_NAMES(norm_rows, "?");
static const ridge_names pos_names = RIDGE_NAMES(pos_rows, "?");

static const char *const arch_keys[] = {"d_model", "layers", "heads", "kv_heads", "ffn", "vocab", "head_vocab",
                                        "ffn_act", "norm", "position", "encoder", "tied_embeddings", "bias",
                                        "dropout", "experts", "top_k", "max_seq", "mem_len", "pooler", "classes",
                                        "image", "patch", "channels", "fused_qkv", "fused_gate_up", "norm_impl",
                                        "rope_impl", "gqa_impl", "parallel_residual", "rotary_dim", "qa_head", "gelu_impl",
                                        NULL};
/* The *_impl keys set tf_arch's composite_* flags, gqa_impl its repeat_kv flag. */
static const ridge_name impl_rows[] = {{"fused", 0}, {"composite", 1}};
static const ridge_name gqa_rows[] = {{"grouped", 0}, {"repeat", 1}, {"repeat_all", 2}};
static const ridge_names impl_names = RIDGE_NAMES(impl_rows, "?");
static const ridge_names gqa_names = RIDGE_NAMES(gqa_rows, "?");

/* ------------------------------------------------------------------ parsing */

/* An integer size in [lo, hi] into *out (left alone when absent and optional). */
static int get_size(const cJSON *a, const char *key, int required, long lo, long hi, double *out, const rj_ctx *c)
{
    long v = 0;
    int rc = rj_int(a, "$.arch", key, required, lo, hi, &v, c);
    if (rc == 1)
        *out = (double)v;
    return rc;
}

#define TRY(expr)                                                                                                  \
    do {                                                                                                           \
        int try_rc_ = (expr);                                                                                      \
        if (try_rc_ < 0)                                                                                           \
            return try_rc_;                                                                                        \
    } while (0)

static int parse(const cJSON *j, void *arch, const rj_ctx *c)
{
    tf_arch *a = arch;
    int v = 0;
    const char *id = c->origin ? c->origin : "model";
    if (strncmp(id, "builtin:", 8) == 0)
        id += 8;
    snprintf(a->id, sizeof a->id, "%.150s", id);
    TRY(rj_check_keys(j, "$.arch", arch_keys, c));
    TRY(get_size(j, "d_model", 1, 1, TF_SIZE_MAX, &a->d, c));
    TRY(get_size(j, "layers", 1, 1, 100000, &a->layers, c));
    TRY(get_size(j, "heads", 1, 1, 100000, &a->heads, c));
    a->kv_heads = a->heads;
    TRY(get_size(j, "kv_heads", 0, 1, 100000, &a->kv_heads, c));
    TRY(get_size(j, "ffn", 1, 1, TF_SIZE_MAX, &a->ffn, c));
    TRY(rj_enum(j, "$.arch", "ffn_act", 1, &act_names, &v, c));
    a->act = (tf_act)v;
    TRY(rj_enum(j, "$.arch", "norm", 1, &norm_names, &v, c));
    a->norm = (tf_norm)v;
    TRY(rj_enum(j, "$.arch", "position", 1, &pos_names, &v, c));
    a->pos = (tf_pos)v;
    TRY(rj_bool(j, "$.arch", "tied_embeddings", 0, &a->tied, c));
    TRY(rj_bool(j, "$.arch", "bias", 0, &a->bias, c));
    TRY(rj_bool(j, "$.arch", "dropout", 0, &a->dropout, c));
    TRY(rj_bool(j, "$.arch", "pooler", 0, &a->pooler, c));
    TRY(rj_bool(j, "$.arch", "parallel_residual", 0, &a->parallel, c));
    TRY(rj_bool(j, "$.arch", "qa_head", 0, &a->qa, c));
    TRY(get_size(j, "rotary_dim", 0, 2, TF_SIZE_MAX, &a->rotary_dim, c));
    a->fused_qkv = a->fused_gate_up = 1;
    TRY(rj_bool(j, "$.arch", "fused_qkv", 0, &a->fused_qkv, c));
    TRY(rj_bool(j, "$.arch", "fused_gate_up", 0, &a->fused_gate_up, c));
    TRY(rj_enum(j, "$.arch", "norm_impl", 0, &impl_names, &a->composite_norm, c));
    TRY(rj_enum(j, "$.arch", "gelu_impl", 0, &impl_names, &a->composite_gelu, c));
    TRY(rj_enum(j, "$.arch", "rope_impl", 0, &impl_names, &a->composite_rope, c));
    TRY(rj_enum(j, "$.arch", "gqa_impl", 0, &gqa_names, &a->repeat_kv, c));
    a->experts = a->top_k = 1;
    TRY(get_size(j, "experts", 0, 1, 100000, &a->experts, c));
    TRY(get_size(j, "top_k", 0, 1, 100000, &a->top_k, c));
    TRY(get_size(j, "mem_len", 0, 0, TF_SIZE_MAX, &a->mem_len, c));
    TRY(get_size(j, "classes", 0, 0, TF_VOCAB_MAX, &a->classes, c));
    TRY(get_size(j, "patch", 0, 1, 100000, &a->patch, c));
    a->vit = a->patch > 0;
    /* A vision transformer is an encoder unless the file says otherwise (which is an error). */
    a->encoder = a->vit;
    TRY(rj_bool(j, "$.arch", "encoder", 0, &a->encoder, c));

    if (a->composite_norm && a->norm != TF_NORM_RMSNORM)
        return rj_fail(c, RIDGE_EINVAL, "$.arch", "norm_impl", "composite is modelled for rmsnorm only");
    if (a->composite_rope && a->pos != TF_POS_ROPE)
        return rj_fail(c, RIDGE_EINVAL, "$.arch", "rope_impl", "needs position rope");
    if (fmod(a->d, a->heads) != 0)
        return rj_fail(c, RIDGE_EINVAL, "$.arch", "heads", "%g does not divide d_model (%g)", a->heads, a->d);
    if (a->kv_heads > a->heads)
        return rj_fail(c, RIDGE_EINVAL, "$.arch", "kv_heads", "%g exceeds heads (%g)", a->kv_heads, a->heads);
    if (fmod(a->heads, a->kv_heads) != 0)
        return rj_fail(c, RIDGE_EINVAL, "$.arch", "kv_heads", "%g does not divide heads (%g)", a->kv_heads,
                       a->heads);
    a->head_dim = a->d / a->heads;
    if (a->rotary_dim > 0) {
        if (a->pos != TF_POS_ROPE)
            return rj_fail(c, RIDGE_EINVAL, "$.arch", "rotary_dim", "needs position rope");
        if (a->rotary_dim > a->head_dim || fmod(a->rotary_dim, 2) != 0)
            return rj_fail(c, RIDGE_EINVAL, "$.arch", "rotary_dim", "%g is not an even number of at most head_dim (%g)",
                           a->rotary_dim, a->head_dim);
    } else {
        a->rotary_dim = a->head_dim;
    }
    if (a->top_k > a->experts)
        return rj_fail(c, RIDGE_EINVAL, "$.arch", "top_k", "%g exceeds experts (%g)", a->top_k, a->experts);

    if (a->vit) {
        if (!a->encoder)
            return rj_fail(c, RIDGE_EINVAL, "$.arch", "encoder",
                           "a vision transformer (\"patch\" given) is an encoder; drop \"encoder\": false");
        if (cJSON_GetObjectItemCaseSensitive(j, "vocab"))
            return rj_fail(c, RIDGE_EINVAL, "$.arch", "vocab",
                           "a vision transformer (\"patch\" given) has no vocabulary");
        if (cJSON_GetObjectItemCaseSensitive(j, "max_seq"))
            return rj_fail(c, RIDGE_EINVAL, "$.arch", "max_seq",
                           "a vision transformer's sequence is (image/patch)^2 + 1; give \"image\" instead");
        TRY(get_size(j, "image", 1, 1, RIDGE_RUN_IMAGE_MAX, &a->image, c));
        a->channels = 3;
        TRY(get_size(j, "channels", 0, 1, 100000, &a->channels, c));
        if (a->image < a->patch)
            return rj_fail(c, RIDGE_EINVAL, "$.arch", "image", "%g is smaller than the patch (%g)", a->image, a->patch);
    } else {
        const char *vk = cJSON_GetObjectItemCaseSensitive(j, "image") ? "image" : "channels";
        if (cJSON_GetObjectItemCaseSensitive(j, vk))
            return rj_fail(c, RIDGE_EINVAL, "$.arch", vk, "only vision transformers (with \"patch\") take it");
        TRY(get_size(j, "vocab", 1, 1, TF_VOCAB_MAX, &a->vocab, c));
        TRY(get_size(j, "max_seq", 1, 1, TF_SIZE_MAX, &a->max_seq, c));
    }
    a->head_vocab = a->vocab;
    if (a->encoder) {
        if (cJSON_GetObjectItemCaseSensitive(j, "head_vocab"))
            return rj_fail(c, RIDGE_EINVAL, "$.arch", "head_vocab", "only decoders have an LM head to size");
        if (a->mem_len > 0)
            return rj_fail(c, RIDGE_EINVAL, "$.arch", "mem_len", "an encoder has no recurrence memory");
        if (a->qa && (a->vit || a->classes > 0))
            return rj_fail(c, RIDGE_EINVAL, "$.arch", "qa_head",
                           a->vit ? "a vision transformer has no tokens to answer with" : "give classes or qa_head, not both");
    } else {
        const char *ek = a->pooler ? "pooler" : a->qa ? "qa_head" : "classes";
        if (a->pooler || a->qa || a->classes > 0)
            return rj_fail(c, RIDGE_EINVAL, "$.arch", ek, "only encoders (\"encoder\": true) take it");
        TRY(get_size(j, "head_vocab", 0, 1, TF_VOCAB_MAX, &a->head_vocab, c));
    }
    return RIDGE_OK;
}

/* ------------------------------------------------------------------ parameters */

static double norm_params(const tf_arch *a)
{
    return a->norm == TF_NORM_LAYERNORM ? 2 * a->d : a->d;
}

/* Norms per layer: one before attention and one before the MLP, or one shared by both branches. */
static double layer_norms(const tf_arch *a)
{
    return a->parallel ? 1 : 2;
}

static double qkv_width(const tf_arch *a)
{
    return (a->heads + 2 * a->kv_heads) * a->head_dim;
}

/* Attention projections of one layer (QKV and output, biases), without the relative-position
 * projection. */
static double attn_params(const tf_arch *a)
{
    double w = qkv_width(a), o = a->heads * a->head_dim;
    return a->d * w + o * a->d + (a->bias ? w + a->d : 0);
}

static double mlp_up_width(const tf_arch *a)
{
    return a->act == TF_ACT_SWIGLU ? 2 * a->ffn : a->ffn;
}

/* One expert (or the dense MLP). */
static double mlp_params(const tf_arch *a)
{
    double up = mlp_up_width(a);
    return a->d * up + a->ffn * a->d + (a->bias ? up + a->d : 0);
}

static double router_params(const tf_arch *a)
{
    return a->experts > 1 ? a->d * a->experts : 0;
}

static double pos_proj_params(const tf_arch *a)
{
    return a->pos == TF_POS_RELATIVE ? a->d * a->d : 0;
}

static double patches(const tf_arch *a, double image)
{
    double side = floor(image / a->patch);
    return side * side;
}

static int text_encoder_mlm(const tf_arch *a)
{
    return a->encoder && !a->vit && a->classes == 0 && !a->qa;
}

/* Parameters outside the embedding tables that run once per token (or per sequence) outside
 * the layers: final norm, heads. */
static double head_params(const tf_arch *a)
{
    double p = 0;
    if (!a->encoder) {
        p += a->tied ? 0 : a->vocab * a->d;
    } else {
        if (text_encoder_mlm(a)) /* transform dense + LayerNorm, decoder bias; decoder tied or not */
            p += a->d * a->d + a->d + 2 * a->d + a->vocab + (a->tied ? 0 : a->vocab * a->d);
        if (a->pooler)
            p += a->d * a->d + a->d;
        if (a->classes > 0)
            p += a->d * a->classes + a->classes;
        if (a->qa) /* qa_outputs: d x 2 and its bias */
            p += 2 * a->d + 2;
    }
    return p;
}

static double embedding_params(const tf_arch *a)
{
    double p = a->vocab * a->d;
    if (a->pos == TF_POS_LEARNED)
        p += (a->vit ? patches(a, a->image) + 1 : a->max_seq) * a->d;
    if (a->vit) /* patch-embedding convolution with bias, class token */
        p += a->channels * a->patch * a->patch * a->d + a->d + a->d;
    return p;
}

static double layer_params(const tf_arch *a)
{
    return attn_params(a) + pos_proj_params(a) + a->experts * mlp_params(a) + router_params(a) +
           layer_norms(a) * norm_params(a);
}

static double params(const void *arch)
{
    const tf_arch *a = arch;
    double p = embedding_params(a) + a->layers * layer_params(a) + norm_params(a) + head_params(a);
    if (a->pos == TF_POS_RELATIVE) /* Transformer-XL's global content and position biases */
        p += 2 * a->heads * a->head_dim;
    return p;
}

/* Parameter tensors, for the per-tensor (unfused) optimizer kernels. */
static double param_tensors(const tf_arch *a)
{
    double ln = a->norm == TF_NORM_LAYERNORM ? 2 : 1;
    double per_layer = layer_norms(a) * ln + 4 + (a->bias ? 4 : 0) + (a->pos == TF_POS_RELATIVE ? 1 : 0) +
                       a->experts * ((a->act == TF_ACT_SWIGLU ? 3 : 2) + (a->bias ? 2 : 0)) + (a->experts > 1 ? 1 : 0);
    double t = a->layers * per_layer + ln + (a->vocab > 0 ? 1 : 0) + (a->pos == TF_POS_LEARNED ? 1 : 0);
    if (!a->encoder && !a->tied)
        t += 1;
    if (text_encoder_mlm(a))
        t += 5 + (a->tied ? 0 : 1);
    t += (a->pooler ? 2 : 0) + (a->classes > 0 ? 2 : 0) + (a->qa ? 2 : 0) + (a->vit ? 3 : 0) + (a->pos == TF_POS_RELATIVE ? 2 : 0);
    return t;
}

/* ------------------------------------------------------------------ runs */

static int is_int_in(double x, double lo, double hi)
{
    return x >= lo && x <= hi && x == floor(x);
}

static int resolve(const void *arch, ridge_run_config *rc, ridge_err *err)
{
    const tf_arch *a = arch;
    const char *mode = ridge_mode_name(rc->mode);
    if (rc->hidden != 0 || rc->layers != 0)
        return ridge_err_set(err, RIDGE_EINVAL, "%s: applies to RNN models only; %s is a transformer",
                             rc->hidden != 0 ? "run.hidden" : "run.layers", a->id);
    if ((unsigned)rc->mode > RIDGE_MODE_DECODE)
        return ridge_err_set(err, RIDGE_EINVAL, "run.mode: %d is not a mode", (int)rc->mode);
    if (a->encoder && (rc->mode == RIDGE_MODE_PREFILL || rc->mode == RIDGE_MODE_DECODE))
        return ridge_err_set(err, RIDGE_EINVAL, "run.mode %s: %s is an encoder; use infer", mode, a->id);
    if (rc->mlm_positions != 0 && (!text_encoder_mlm(a) || rc->mode != RIDGE_MODE_TRAIN))
        return ridge_err_set(err, RIDGE_EINVAL,
                             "run.mlm_positions: applies to masked-LM training (run.mode train) of a text encoder "
                             "without classes or qa_head; not to %s in %s",
                             a->id, mode);
    if (a->vit) {
        if (rc->seq != 0 && rc->seq != patches(a, rc->image != 0 ? rc->image : a->image) + 1)
            return ridge_err_set(err, RIDGE_EINVAL,
                                 "run.seq: %s is a vision transformer; its sequence is (image/patch)^2 + 1 tokens: "
                                 "set run.image",
                                 a->id);
        if (rc->image == 0)
            rc->image = a->image;
        if (!is_int_in(rc->image, a->patch, RIDGE_RUN_IMAGE_MAX))
            return ridge_err_set(err, RIDGE_EINVAL, "run.image: %g is not an integer in [%g, %d] (from the patch side)",
                                 rc->image, a->patch, RIDGE_RUN_IMAGE_MAX);
        rc->seq = patches(a, rc->image) + 1;
        return RIDGE_OK;
    }
    if (rc->image != 0)
        return ridge_err_set(err, RIDGE_EINVAL, "run.image: %s is not a vision model", a->id);
    switch (rc->mode) {
    case RIDGE_MODE_TRAIN:
    case RIDGE_MODE_INFER:
        if (rc->seq == 0)
            rc->seq = a->max_seq;
        if (!is_int_in(rc->seq, 1, RIDGE_RUN_TOKENS_MAX))
            return ridge_err_set(err, RIDGE_EINVAL, "run.seq: %g is not an integer in [1, %d]", rc->seq,
                                 RIDGE_RUN_TOKENS_MAX);
        if (a->pos == TF_POS_LEARNED && rc->seq > a->max_seq)
            return ridge_err_set(err, RIDGE_EINVAL, "run.seq: %g exceeds the %g positions %s has learned", rc->seq,
                                 a->max_seq, a->id);
        break;
    case RIDGE_MODE_PREFILL:
        if (rc->prompt == 0)
            rc->prompt = TF_DEFAULT_PROMPT < a->max_seq || a->pos != TF_POS_LEARNED ? TF_DEFAULT_PROMPT : a->max_seq;
        if (!is_int_in(rc->prompt, 1, RIDGE_RUN_TOKENS_MAX))
            return ridge_err_set(err, RIDGE_EINVAL, "run.prompt: %g is not an integer in [1, %d]", rc->prompt,
                                 RIDGE_RUN_TOKENS_MAX);
        if (a->pos == TF_POS_LEARNED && rc->prompt > a->max_seq)
            return ridge_err_set(err, RIDGE_EINVAL, "run.prompt: %g exceeds the %g positions %s has learned",
                                 rc->prompt, a->max_seq, a->id);
        break;
    case RIDGE_MODE_DECODE:
        if (!is_int_in(rc->context, 0, RIDGE_RUN_TOKENS_MAX))
            return ridge_err_set(err, RIDGE_EINVAL, "run.context: %g is not an integer in [0, %d]", rc->context,
                                 RIDGE_RUN_TOKENS_MAX);
        if (a->pos == TF_POS_LEARNED && rc->context + 1 > a->max_seq)
            return ridge_err_set(err, RIDGE_EINVAL,
                                 "run.context: %g + 1 new token exceeds the %g positions %s has learned",
                                 rc->context, a->max_seq, a->id);
        break;
    }
    if (rc->mlm_positions != 0 && !is_int_in(rc->mlm_positions, 1, rc->seq)) /* train: seq resolved above */
        return ridge_err_set(err, RIDGE_EINVAL, "run.mlm_positions: %g is not an integer in [1, %g] (the sequence)",
                             rc->mlm_positions, rc->seq);
    return RIDGE_OK;
}

/* What one step processes, from a resolved run. */
typedef struct {
    double b;      /* sequences */
    double s;      /* query tokens per sequence this step (decode: 1) */
    double t;      /* tokens: b s */
    double kv_len; /* keys each query sequence attends over (with Transformer-XL memory) */
    double t_kv;   /* tokens the QKV projection runs on: memory tokens too, except in decode */
    double head_rows; /* rows the LM head and the loss run on */
    int mlm_gather;   /* masked-LM head on gathered positions (--mlm-positions) */
    int train, causal;
    int unfused; /* attention as separate kernels (--attention unfused) */
    ridge_dtype mdt, adt, attn_dt;
    ridge_code code; /* how the code is written (--code) */
    int eager;       /* eager PyTorch modules (--code torch, hf): bias kernels, embedding backward */
    /* Autocast over an eager LayerNorm model (--amp, --code torch or hf): LayerNorm is on
     * autocast's FP32 list, so its outputs, the FP32 embeddings and the residual stream they feed
     * are FP32; each linear layer that reads one casts it to adt first (rw_act_cast). A composite
     * RMSNorm (norm_impl composite) is on no list, but the FP32 embeddings start the stream in FP32
     * and the residual adds keep it there (FP32 + adt is FP32), so its kernels run in FP32 too. A
     * ViT's stream starts FP32 too: torch.cat of the FP32 class token and the adt patches is FP32.
     * ndt: the dtype of norms and residual adds (FP32 then, else adt). */
    int f32res;
    ridge_dtype ndt;
    int gqa_per_head; /* decode attention a CTA per query head (rc->gqa_per_head) */
} tf_shape;

static tf_shape shape_of(const tf_arch *a, const ridge_run_config *rc)
{
    tf_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.b = rc->batch;
    sh.train = rc->mode == RIDGE_MODE_TRAIN;
    sh.causal = !a->encoder;
    sh.unfused = rc->unfused_attention;
    sh.code = rc->code;
    sh.gqa_per_head = rc->gqa_per_head && rc->mode == RIDGE_MODE_DECODE; /* the generation phase only */
    switch (rc->mode) {
    case RIDGE_MODE_PREFILL:
        sh.s = rc->prompt;
        sh.kv_len = rc->prompt + a->mem_len;
        sh.t_kv = sh.b * sh.kv_len;
        break;
    case RIDGE_MODE_DECODE:
        sh.s = 1;
        sh.kv_len = rc->context + 1 + a->mem_len;
        sh.t_kv = sh.b;
        break;
    default:
        sh.s = rc->seq;
        sh.kv_len = rc->seq + a->mem_len;
        sh.t_kv = sh.b * sh.kv_len;
        break;
    }
    sh.t = sh.b * sh.s;
    if (!a->encoder)
        sh.head_rows = sh.train ? sh.t : sh.b;
    else if (sh.train && text_encoder_mlm(a)) {
        sh.mlm_gather = rc->mlm_positions > 0;
        sh.head_rows = sh.b * (sh.mlm_gather ? rc->mlm_positions : sh.s);
    } else
        sh.head_rows = sh.b;
    sh.mdt = rw_math_dtype(rc->precision);
    sh.adt = rw_act_dtype(rc->precision);
    /* No framework runs attention in integer arithmetic: int8/int4 runs attend in bf16. fp8 runs
     * attend in fp8 over an fp8 KV cache (as TensorRT-LLM's FP8 KV cache); the cache is written,
     * read and sized in attn_dt. */
    sh.attn_dt = sh.mdt == RIDGE_DTYPE_INT8 || sh.mdt == RIDGE_DTYPE_INT4 ? sh.adt : sh.mdt;
    sh.eager = rc->code == RIDGE_CODE_TORCH || rc->code == RIDGE_CODE_HF;
    sh.f32res = sh.eager && rc->amp && (a->norm == TF_NORM_LAYERNORM || a->composite_norm) && sh.adt != RIDGE_DTYPE_FP32;
    sh.ndt = sh.f32res ? RIDGE_DTYPE_FP32 : sh.adt;
    return sh;
}

/* Visible (query, key) pairs per sequence and head, as ridge_op_flops counts them. */
static double attn_pairs(double q, double kv, int causal)
{
    if (!causal)
        return q * kv;
    return q <= kv ? q * kv - q * (q - 1) / 2 : kv * (kv + 1) / 2;
}

/* ------------------------------------------------------------------ graph */

static void name2(char *buf, size_t cap, const char *base, const char *sfx)
{
    snprintf(buf, cap, "%.40s%.20s", base, sfx);
}

/* A batched GEMM and, in training, its two backward GEMMs. */
static void batched_gemm(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double m, double n,
                         double k, double batch, int train, double count)
{
    char nm[RIDGE_OP_NAME_MAX];
    rw_gemm(g, group, name, dt, m, n, k, batch, count);
    if (!train)
        return;
    snprintf(nm, sizeof nm, "%.50s.dgrad", name);
    rw_gemm(g, group, nm, dt, m, k, n, batch, count);
    snprintf(nm, sizeof nm, "%.50s.wgrad", name);
    rw_gemm(g, group, nm, dt, n, k, m, batch, count);
}

/* Experts a step touches under uniform routing (a token picks top_k distinct experts, so an
 * expert stays idle with probability (1 - top_k/experts)^tokens), and how the tokens * top_k
 * routed rows split over them: `more` experts take `lo` + 1 rows, the others `lo` (the total is
 * exact, so expert GEMM FLOPs are 2 tokens top_k (weights of one expert)). */
typedef struct {
    double active, lo, more;
} tf_moe_load;

static tf_moe_load moe_load(const tf_arch *a, double tokens)
{
    tf_moe_load r;
    double rows = tokens * a->top_k;
    double e = floor(a->experts * (1 - pow(1 - a->top_k / a->experts, tokens)) + 0.5);
    if (e < a->top_k)
        e = a->top_k;
    if (e > a->experts)
        e = a->experts;
    r.active = e;
    r.lo = floor(rows / e);
    r.more = rows - r.lo * e;
    return r;
}

/* The expert GEMMs of one projection: two ops when the rows do not split evenly. */
static void expert_linear(rw_graph *g, const char *name, const tf_arch *a, const tf_shape *sh, double in, double out,
                          int train)
{
    tf_moe_load ld = moe_load(a, sh->t);
    char nm[RIDGE_OP_NAME_MAX];
    if (ld.lo > 0)
        rw_linear(g, "moe", name, sh->mdt, ld.lo, in, out, train, a->layers * (ld.active - ld.more));
    if (ld.more > 0) {
        snprintf(nm, sizeof nm, "%.50s+1", name);
        rw_linear(g, "moe", ld.lo > 0 ? nm : name, sh->mdt, ld.lo + 1, in, out, train, a->layers * ld.more);
    }
}

/* One kernel of a framework's pointwise decomposition, given by its traffic; in training the
 * autograd backward reads the gradient and the saved input and writes a gradient (1.5x). */
static void composite_kernel(rw_graph *g, const char *group, const char *name, const char *step, ridge_dtype dt,
                             double bytes, double flops, int train, double count)
{
    char nm[RIDGE_OP_NAME_MAX];
    for (int b = 0; b <= train; b++) {
        snprintf(nm, sizeof nm, "%.40s.%s%s", name, step, b ? ".bwd" : "");
        rw_custom(g, group, nm, dt, flops, b ? 1.5 * bytes : bytes, count);
    }
}

/* An eager kernel over `elements` outputs that reads a non-contiguous view (a head-major
 * transpose, a half of a fused projection; docs/model.md §6, "Strided inputs"): PyTorch's legacy
 * elementwise loop, one element per thread in flight. Its backward (train) as composite_kernel's. */
static void strided_kernel(rw_graph *g, const char *group, const char *name, const char *step, ridge_dtype dt,
                           double elements, double bytes, double flops, int train, double count)
{
    char nm[RIDGE_OP_NAME_MAX];
    size_t i0 = g->n;
    snprintf(nm, sizeof nm, "%.40s.%s", name, step);
    rw_elementwise(g, group, nm, dt, elements, 1, 1, elements > 0 ? flops / elements : 0, 0, count);
    if (!g->failed && i0 < g->n)
        g->ops[i0].u.ew.strided_inputs = 1;
    if (train) {
        snprintf(nm, sizeof nm, "%.40s.%s.bwd", name, step);
        rw_custom(g, group, nm, dt, flops, 1.5 * bytes, count);
    }
}

/* A norm over rows x cols. norm_impl "composite": RMSNorm as eager PyTorch runs
 * `(x.float() * rsqrt(x.float().pow(2).mean(-1) + eps)).to(dt) * w`, eight kernels with the
 * intermediates in FP32 (e bytes per activation value); six on an FP32 x, whose .float() and
 * .to(x.dtype) return x itself. */
static void norm_op(rw_graph *g, const tf_arch *a, const char *group, const char *name, ridge_dtype dt, double rows,
                    double cols, int train, double count)
{
    double E = rows * cols, R = rows, e = ridge_dtype_bytes(dt);
    if (!a->composite_norm) {
        size_t first = g->n;
        rw_rows(g, a->norm == TF_NORM_RMSNORM ? RIDGE_OP_RMSNORM : RIDGE_OP_LAYERNORM, group, name, dt, rows, cols,
                train, count);
        rw_modules_at(g, first, 1);
        return;
    }
    {
        size_t first = g->n;
        if (dt != RIDGE_DTYPE_FP32)
            composite_kernel(g, group, name, "to_fp32", dt, E * (e + 4), 0, train, count);
        composite_kernel(g, group, name, "pow", RIDGE_DTYPE_FP32, E * 8, E, train, count);
        rw_modules_at(g, first, 1); /* the RMSNorm module */
    }
    composite_kernel(g, group, name, "mean", RIDGE_DTYPE_FP32, E * 4 + R * 4, E, train, count);
    composite_kernel(g, group, name, "add_eps", RIDGE_DTYPE_FP32, R * 8, R, train, count);
    composite_kernel(g, group, name, "rsqrt", RIDGE_DTYPE_FP32, R * 8, R, train, count);
    composite_kernel(g, group, name, "mul", RIDGE_DTYPE_FP32, E * 8 + R * 4, E, train, count);
    if (dt != RIDGE_DTYPE_FP32)
        composite_kernel(g, group, name, "to_dtype", dt, E * (4 + e), 0, train, count);
    composite_kernel(g, group, name, "mul_weight", dt, E * 2 * e + cols * e, E, train, count);
}

/* Rotary embedding of one tensor of E values (rows of hd). rope_impl "composite": eager
 * `x * cos + rotate_half(x) * sin`, rotate_half = cat(-x2, x1): five kernels. x is in dt, the
 * cos and sin tables and so every product in odt: FP32 under autocast over FP32 weights (the
 * tables are made in the weights' or the FP32 stream's dtype, and dt x FP32 is FP32), else dt.
 * Each kernel's bytes are its reads and writes at those sizes. */
static void rope_op(rw_graph *g, const tf_arch *a, const char *name, ridge_dtype dt, ridge_dtype odt, double T,
                    double E, int train, double count, int chunk_cat)
{
    double e = ridge_dtype_bytes(dt), o = ridge_dtype_bytes(odt), table = T * a->head_dim * o;
    if (chunk_cat) {
        /* measure.py's rope: x1, x2 = x.chunk(2, -1); cat((x1 cos - x2 sin, x2 cos + x1 sin), -1):
         * four multiplies of a half by the table, a subtraction, an addition, the cat: seven. The
         * halves are views of the head-major transpose of the projection: the four multiplies
         * read them strided. */
        double half = E / 2 * (e + o) + table / 2; /* a half of x read, a product written, the table's half */
        strided_kernel(g, "attention", name, "x1_cos", odt, E / 2, half, E / 2, train, count);
        strided_kernel(g, "attention", name, "x2_sin", odt, E / 2, half, E / 2, train, count);
        composite_kernel(g, "attention", name, "sub", odt, E * 1.5 * o, E / 2, train, count);
        strided_kernel(g, "attention", name, "x2_cos", odt, E / 2, half, E / 2, train, count);
        strided_kernel(g, "attention", name, "x1_sin", odt, E / 2, half, E / 2, train, count);
        composite_kernel(g, "attention", name, "add", odt, E * 1.5 * o, E / 2, train, count);
        composite_kernel(g, "attention", name, "cat", odt, E * 2 * o, 0, train, count);
        return;
    }
    /* Hugging Face's q * cos + rotate_half(q) * sin: q and its half x2 are views of the head-major
     * transpose (the multiply by cos and the negation read them strided); rotate_half is in dt. */
    strided_kernel(g, "attention", name, "mul_cos", odt, E, E * (e + o) + table, E, train, count);
    strided_kernel(g, "attention", name, "neg", dt, E / 2, E * e, E / 2, train, count);
    composite_kernel(g, "attention", name, "cat", dt, E * 2 * e, 0, train, count);
    composite_kernel(g, "attention", name, "mul_sin", odt, E * (e + o) + table, E, train, count);
    composite_kernel(g, "attention", name, "add", odt, E * 3 * o, E, train, count);
}

/* A dropout over E values: forward reads x and writes y and a 1-byte mask (alone, a recomputed
 * layer drawing its masks again, below), backward reads dy and the mask and writes dx (the masks
 * are the 2d bytes per token of the activation memory). */
static void dropout_fwd_op(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double E, double count)
{
    rw_custom(g, group, name, dt, E, E * (2 * ridge_dtype_bytes(dt) + 1), count);
}

static void dropout_bwd_op(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double E, double count)
{
    char nm[RIDGE_OP_NAME_MAX];
    snprintf(nm, sizeof nm, "%.50s.bwd", name);
    rw_custom(g, group, nm, dt, E, E * (2 * ridge_dtype_bytes(dt) + 1), count);
}

/* A training dropout: both. */
static void dropout_op(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double E, double count)
{
    dropout_fwd_op(g, group, name, dt, E, count);
    dropout_bwd_op(g, group, name, dt, E, count);
}

/* A linear layer as the run's code launches it: autocast's cast of an FP32 input (sh->f32res and
 * `f32_in`), the GEMMs, and in eager code the bias's kernels (rw_linear_bias). */
static void tf_linear(rw_graph *g, const tf_arch *a, const tf_shape *sh, const char *group, const char *name,
                      double tokens, double in, double out, int train, double count, int f32_in)
{
    if (sh->f32res && f32_in)
        rw_act_cast(g, group, name, sh->adt, tokens * in, train, count);
    rw_linear(g, group, name, sh->mdt, tokens, in, out, train, count);
    if (a->bias && sh->eager)
        rw_linear_bias(g, group, name, sh->adt, tokens, out, train, count);
}

/* The tanh GELU over E values as Hugging Face's gelu_new writes it (gelu_impl "composite"):
 * 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), eight pointwise kernels forward (0.5 x, x^3,
 * 0.044715 *, x +, sqrt(2/pi) *, tanh, 1 +, the product); autograd's backward, eleven: the
 * product's two gradients, tanh_backward, three scalar multiplies, pow's backward (x^2, times 3,
 * times the gradient) and two adds summing x's three gradients. Each reads its operands and writes
 * one value of e bytes. Under autocast (`amp`, a 16-bit dt) torch.pow is on autocast's FP32 list:
 * x is cast to FP32 for it (a kernel), and every op after it promotes to FP32 (0.5 x stays in dt),
 * so the product, the GELU's output, is FP32; backward, the FP32 gradients of x's three uses
 * (the product's 0.5 x factor, the add, the cast) are cast back to dt before they are summed:
 * nine kernels forward, fourteen backward, each with its operands' and result's own sizes. */
static void gelu_composite(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double E, int train,
                           double count, int amp)
{
    /* r16, r32: operands read in dt and (under autocast) in FP32; w32: the result is FP32 under
     * autocast; cast: a kernel only autocast launches. Without autocast every operand is dt. */
    typedef struct {
        const char *step;
        double r16, r32;
        int w32, cast;
    } gelu_step;
    static const gelu_step fwd[] = {{"half_x", 1, 0, 0, 0}, {"cube.cast", 1, 0, 1, 1}, {"cube", 0, 1, 1, 0}, {"mul_c", 0, 1, 1, 0},
               {"add_x", 1, 1, 1, 0},  {"mul_k", 0, 1, 1, 0},     {"tanh", 0, 1, 1, 0}, {"add_1", 0, 1, 1, 0},
               {"mul", 1, 1, 1, 0}};
    static const gelu_step bwd[] = {{"mul.bwd_a", 0, 2, 1, 0},  {"mul.bwd_a.cast", 0, 1, 0, 1}, {"mul.bwd_b", 1, 1, 1, 0},
               {"tanh.bwd", 0, 2, 1, 0},   {"mul_k.bwd", 0, 1, 1, 0},      {"add_x.bwd.cast", 0, 1, 0, 1},
               {"mul_c.bwd", 0, 1, 1, 0},  {"cube.bwd_sq", 0, 1, 1, 0},    {"cube.bwd_3", 0, 1, 1, 0},
               {"cube.bwd_mul", 0, 2, 1, 0}, {"cube.cast.bwd", 0, 1, 0, 1}, {"half_x.bwd", 1, 0, 0, 0},
               {"grad_sum", 2, 0, 0, 0},   {"grad_sum2", 2, 0, 0, 0}};
    char nm[RIDGE_OP_NAME_MAX];
    double e = ridge_dtype_bytes(dt);
    amp = amp && dt != RIDGE_DTYPE_FP32;
    for (int pass = 0; pass <= train; pass++) {
        const gelu_step *t = pass ? bwd : fwd;
        size_t n = pass ? sizeof bwd / sizeof bwd[0] : sizeof fwd / sizeof fwd[0];
        for (size_t i = 0; i < n; i++) {
            if (t[i].cast && !amp)
                continue;
            snprintf(nm, sizeof nm, "%.40s.%s", name, t[i].step);
            if (amp)
                rw_custom(g, group, nm, t[i].w32 ? RIDGE_DTYPE_FP32 : dt, t[i].cast ? 0 : E,
                          E * (t[i].r16 * e + t[i].r32 * 4 + (t[i].w32 ? 4 : e)), count);
            else
                rw_custom(g, group, nm, dt, E, E * e * (t[i].r16 + t[i].r32 + 1), count);
            if (pass)
                rw_autograd_from(g, g->n - 1);
        }
    }
}

/* Engines and inductor fuse each residual add into the norm that follows it. */
static int residual_fused(const tf_shape *sh)
{
    return sh->code == RIDGE_CODE_ENGINE || sh->code == RIDGE_CODE_COMPILE;
}

/* Megatron-LM's fused bias-dropout-add (--bias-dropout-fusion, on by default; Narayanan et al.
 * 2021 §4.2): the dropout of a branch's output and the residual add are one kernel that reads the
 * branch output and the residual and writes the sum and the mask, not a dropout pass and an add
 * pass. Their backward kernels are unchanged (the mask's multiply, the residual stream's sum). */
static int bias_dropout_add_fused(const tf_shape *sh, const tf_arch *a, int drop)
{
    return sh->code == RIDGE_CODE_MEGATRON && drop && !a->parallel && !residual_fused(sh);
}

static void bias_dropout_add(rw_graph *g, const tf_shape *sh, const char *group, const char *drop_name,
                             const char *res_name, const char *sfx, double E, int train, double L)
{
    char nm[RIDGE_OP_NAME_MAX], base[RIDGE_OP_NAME_MAX];
    double e = ridge_dtype_bytes(sh->adt);
    snprintf(base, sizeof base, "%.30s_bias_dropout_add", group);
    name2(nm, sizeof nm, base, sfx);
    rw_custom(g, group, nm, sh->adt, 2 * E, E * (3 * e + 1), L);
    if (!train)
        return;
    dropout_bwd_op(g, group, drop_name, sh->adt, E, L);
    rw_elementwise_bwd(g, group, res_name, sh->ndt, E, 2, 1, L); /* the add's, as rw_elementwise's */
}

/* torchvision's ViT attention is nn.MultiheadAttention (batch_first); in training it takes
 * F.multi_head_attention_forward, not the fused inference path (docs/workloads.md): the in-projection
 * of the transposed (tokens-major) input copies it contiguous before its matmul (reshape of a
 * non-viewable tensor), adds the bias as a kernel of its own (matmul's path, not addmm's epilogue),
 * and copies the packed projection to (3, T, B, E) (unflatten...transpose...contiguous) before taking
 * q, k and v as proj[0..2]. Backward: each of the three selects' gradients is a zero-filled
 * full-size tensor with its slice copied in (select_backward), which autograd sums (two adds).
 * E = tokens x d values of e bytes. */
static void mha_packed_slow_path(rw_graph *g, const tf_shape *sh, const char *name, double E, double L)
{
    /* per kernel: FLOPs and values moved in units of E, kernels per layer, whether backward's */
    static const struct {
        const char *step;
        double flops, values, per_layer;
        int bwd;
    } steps[] = {{"in_copy", 0, 2, 1, 0},         {"bias_add", 3, 6, 1, 0},         {"packed_copy", 0, 6, 1, 0},
                 {"select.bwd_zero", 0, 3, 3, 1}, {"select.bwd_copy", 0, 2, 3, 1}, {"select.bwd_sum", 3, 9, 2, 1}};
    char nm[RIDGE_OP_NAME_MAX];
    double e = ridge_dtype_bytes(sh->adt);
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        snprintf(nm, sizeof nm, "%.40s.%s", name, steps[i].step);
        rw_custom(g, "attention", nm, sh->adt, steps[i].flops * E, steps[i].values * E * e, steps[i].per_layer * L);
        if (steps[i].bwd)
            rw_autograd_from(g, g->n - 1);
    }
}

/* One transformer layer, `count` = layers times. sfx names recomputed copies. `redo`: a full
 * recomputation's forward (train 0), which runs the layer's dropouts again with the saved RNG
 * state (torch.utils.checkpoint's preserve_rng_state; Megatron's CheckpointFunction restores
 * its CUDA RNG tracker), forward only. */
static void build_layer(rw_graph *g, const tf_arch *a, const tf_shape *sh, int train, int kv_write, const char *sfx,
                        int redo)
{
    char nm[RIDGE_OP_NAME_MAX];
    const double L = a->layers, d = a->d, T = sh->t, hd = a->head_dim, kvd = a->kv_heads * hd;
    const int drop = a->dropout && (train || redo);
    /* gqa_impl repeat (multi-token passes) or repeat_all (every pass): K and V copied out to
     * every query head before attention */
    const int repeated = a->repeat_kv && a->kv_heads < a->heads && (sh->s > 1 || a->repeat_kv == 2);
    /* the rotary products' dtype: FP32 under autocast over FP32 weights (rope_op), cast back to
     * adt by autocast at the SDPA call (after the GQA copies, which come first in the code) */
    const ridge_dtype rdt = sh->f32res && a->pos == TF_POS_ROPE && a->composite_rope ? RIDGE_DTYPE_FP32 : sh->adt;
    ridge_op *op;
    size_t first = g->n;

    name2(nm, sizeof nm, "attn_norm", sfx);
    norm_op(g, a, "norm", nm, sh->ndt, T, d, train, L);
    /* The layer's own module calls besides its linears and norms: the block (torch); Hugging
     * Face's decoder layer, attention, MLP and activation modules, or BERT's layer, attention,
     * self-attention, self-output, intermediate, output and activation modules with their two
     * dropouts */
    rw_modules_at(g, first, sh->code == RIDGE_CODE_HF ? (a->encoder ? 9 : 4) : 1);
    if (a->fused_qkv) {
        name2(nm, sizeof nm, "qkv_proj", sfx);
        tf_linear(g, a, sh, "attention", nm, sh->t_kv, d, qkv_width(a), train, L, 1);
        if (a->vit && sh->code == RIDGE_CODE_TORCH && train)
            mha_packed_slow_path(g, sh, nm, T * d, L);
    } else { /* separate projections (Hugging Face Llama, BERT): the same FLOPs in three GEMMs */
        name2(nm, sizeof nm, "q_proj", sfx);
        tf_linear(g, a, sh, "attention", nm, sh->t_kv, d, a->heads * hd, train, L, 1);
        name2(nm, sizeof nm, "k_proj", sfx);
        tf_linear(g, a, sh, "attention", nm, sh->t_kv, d, kvd, train, L, 1);
        name2(nm, sizeof nm, "v_proj", sfx);
        tf_linear(g, a, sh, "attention", nm, sh->t_kv, d, kvd, train, L, 1);
        if (train && sh->f32res) {
            /* the three casts' FP32 input gradients summed by autograd (two adds) */
            name2(nm, sizeof nm, "qkv_input_grad_sum", sfx);
            rw_custom(g, "attention", nm, RIDGE_DTYPE_FP32, T * d, 12 * T * d, 2 * L);
            rw_autograd_from(g, g->n - 1);
        }
    }
    if (a->pos == TF_POS_ROPE) {
        double rd = a->rotary_dim; /* the rotated part of each head (GPT-J: 64 of 256) */
        if (a->composite_rope) {
            name2(nm, sizeof nm, "rope_q", sfx);
            rope_op(g, a, nm, sh->adt, rdt, T, T * a->heads * rd, train, L, sh->code == RIDGE_CODE_TORCH);
            name2(nm, sizeof nm, "rope_k", sfx);
            rope_op(g, a, nm, sh->adt, rdt, T, T * a->kv_heads * rd, train, L, sh->code == RIDGE_CODE_TORCH);
        } else {
            name2(nm, sizeof nm, "rope", sfx);
            rw_elementwise(g, "attention", nm, sh->adt, T * (a->heads + a->kv_heads) * rd, 1, 1, TF_ROPE_FLOPS, train,
                           L);
        }
    }
    if (kv_write && (sh->code == RIDGE_CODE_TORCH || sh->code == RIDGE_CODE_HF)) {
        /* Eager code writes K and V separately: index_copy_ of this step's tokens into a
         * preallocated cache (torch), or Hugging Face's DynamicCache, which concatenates: a decode
         * step copies the whole cache and the new token into a new tensor, each of K and V (a copy
         * of old + new bytes: read once, written once). */
        double es = ridge_dtype_bytes(sh->attn_dt), new_b = sh->t_kv * kvd * es;
        double old_b = sh->code == RIDGE_CODE_HF && sh->s == 1 ? sh->b * (sh->kv_len - 1) * kvd * es : 0;
        for (int kv = 0; kv < 2; kv++) {
            op = rw_push(g, RIDGE_OP_COPY, sh->attn_dt, "attention", kv ? "v_cache_write" : "k_cache_write", L);
            if (op) {
                op->u.copy.bytes = old_b + new_b;
                op->u.copy.kind = RIDGE_COPY_D2D;
                rw_cold(g, op, 2 * old_b);
            }
        }
    } else if (kv_write && sh->code != RIDGE_CODE_ENGINE && sh->code != RIDGE_CODE_COMPILE) {
        /* (engines and inductor write the cache from the rotary kernel's epilogue) */
        op = rw_push(g, RIDGE_OP_COPY, sh->attn_dt, "attention", "kv_cache_write", L);
        if (op) {
            op->u.copy.bytes = 2 * sh->t_kv * kvd * ridge_dtype_bytes(sh->attn_dt);
            op->u.copy.kind = RIDGE_COPY_D2D;
        }
    }
    if (a->pos == TF_POS_RELATIVE) {
        /* Transformer-XL: project the kv_len sinusoidal positions (shared by the batch), score
         * every query against them (the "BD" term), shift the scores into place; the result is
         * the additive bias the fused attention reads. */
        name2(nm, sizeof nm, "pos_proj", sfx);
        rw_linear(g, "attention", nm, sh->mdt, sh->kv_len, d, d, train, L);
        name2(nm, sizeof nm, "rel_pos_scores", sfx);
        batched_gemm(g, "attention", nm, sh->mdt, sh->s, sh->kv_len, hd, sh->b * a->heads, train, L);
        name2(nm, sizeof nm, "rel_shift", sfx);
        rw_elementwise(g, "attention", nm, sh->adt, sh->b * a->heads * sh->s * sh->kv_len, 1, 1, 0, train, L);
    }
    if (repeated) {
        /* Hugging Face's repeat_kv (expand + reshape) before a multi-token attention: K and V
         * each read at kv_heads and written at heads; in training the backward sums the copies'
         * gradients back (read heads, write kv_heads). Decode (one query) reads the cache in place,
         * except with repeat_all (repeat_interleave before every SDPA call, where SDPA has no
         * enable_gqa): the whole cache is copied out each step. */
        double rows = sh->b * sh->kv_len * hd;
        for (int kv = 0; kv < 2; kv++) {
            /* K comes from the rotary: FP32 when its products are */
            ridge_dtype kdt = !kv && rdt == RIDGE_DTYPE_FP32 ? RIDGE_DTYPE_FP32 : sh->attn_dt;
            double bytes = rows * (a->kv_heads + a->heads) * ridge_dtype_bytes(kdt);
            for (int b = 0; b <= train; b++) {
                name2(nm, sizeof nm, kv ? (b ? "repeat_v.bwd" : "repeat_v") : (b ? "repeat_k.bwd" : "repeat_k"), sfx);
                rw_custom(g, "attention", nm, kdt, b ? rows * a->heads : 0, bytes, L);
            }
        }
    }
    if (rdt != sh->adt) {
        /* autocast's casts of the FP32 rotary outputs q and K (repeated, where it was) to adt */
        name2(nm, sizeof nm, "attn_q", sfx);
        rw_act_cast(g, "attention", nm, sh->adt, T * a->heads * hd, train, L);
        name2(nm, sizeof nm, "attn_k", sfx);
        rw_act_cast(g, "attention", nm, sh->adt, sh->t_kv * (repeated ? a->heads : a->kv_heads) * hd, train, L);
    }
    if (sh->unfused) {
        /* Without a fused kernel the framework materialises the scores: QK^T, a masked and scaled
         * softmax over each row, dropout in training, then PV (GQA repeats K and V per head). */
        double bh = sh->b * a->heads, probs = bh * sh->s * sh->kv_len;
        name2(nm, sizeof nm, "attn_scores", sfx);
        batched_gemm(g, "attention", nm, sh->mdt, sh->s, sh->kv_len, hd, bh, train, L);
        name2(nm, sizeof nm, "attn_softmax", sfx);
        {
            size_t first_sm = g->n;
            rw_rows(g, RIDGE_OP_SOFTMAX, "attention", nm, sh->adt, bh * sh->s, sh->kv_len, train, L);
            for (size_t i = first_sm; a->fused_softmax && i < g->n; i++) /* forward and backward */
                g->ops[i].u.rows.kernel = RIDGE_ROW_WARP;
        }
        if (drop) {
            name2(nm, sizeof nm, "attn_dropout", sfx);
            rw_elementwise(g, "attention", nm, sh->adt, probs, 1, 2, 2, train, L);
        }
        name2(nm, sizeof nm, "attn_context", sfx);
        batched_gemm(g, "attention", nm, sh->mdt, sh->s, hd, sh->kv_len, bh, train, L);
        op = NULL;
    } else {
        name2(nm, sizeof nm, "attention", sfx);
        op = rw_push(g, RIDGE_OP_ATTENTION, sh->attn_dt, "attention", nm, L);
    }
    if (op) {
        op->u.attn.batch = sh->b;
        op->u.attn.heads = a->heads;
        op->u.attn.kv_heads = repeated ? a->heads : a->kv_heads; /* SDPA reads the copies */
        op->u.attn.q_len = sh->s;
        op->u.attn.kv_len = sh->kv_len;
        op->u.attn.head_dim = hd;
        op->u.attn.causal = sh->causal;
        op->u.attn.pass = train ? RIDGE_PASS_FWD_BWD : RIDGE_PASS_FWD;
        /* a decode step's kernel without GQA packing reads each KV head once per query head */
        op->u.attn.per_head_kv = sh->gqa_per_head && a->kv_heads < a->heads;
        /* The KV cache of earlier steps (all but this step's tokens, which were just written). */
        if (sh->kv_len > sh->s && !repeated) /* (repeated: the copies just written) */
            rw_cold(g, op, 2 * sh->b * a->kv_heads * (sh->kv_len - sh->s) * hd * ridge_dtype_bytes(sh->attn_dt));
    }
    if ((sh->code == RIDGE_CODE_TORCH || sh->code == RIDGE_CODE_HF) && sh->s > 1) {
        /* a.transpose(1, 2).reshape(B, T, D): the heads-major output copied token-major (a copy
         * that reads the transpose strided) */
        name2(nm, sizeof nm, "attn_out_transpose", sfx);
        strided_kernel(g, "attention", nm, "copy", sh->adt, T * a->heads * hd,
                       2 * T * a->heads * hd * ridge_dtype_bytes(sh->adt), 0, train, L);
    }
    name2(nm, sizeof nm, "o_proj", sfx);
    tf_linear(g, a, sh, "attention", nm, T, a->heads * hd, d, train, L, 0);
    if (bias_dropout_add_fused(sh, a, drop)) {
        bias_dropout_add(g, sh, "attention", "attn_out_dropout", "attn_residual", sfx, T * d, train, L);
    } else if (drop) {
        name2(nm, sizeof nm, "attn_out_dropout", sfx);
        (train ? dropout_op : dropout_fwd_op)(g, "attention", nm, sh->adt, T * d, L);
    }
    if (!a->parallel) {
        name2(nm, sizeof nm, "attn_residual", sfx);
        if (!residual_fused(sh) && !bias_dropout_add_fused(sh, a, drop))
            rw_elementwise(g, "attention", nm, sh->ndt, T * d, 2, 1, 1, train, L);
        name2(nm, sizeof nm, "mlp_norm", sfx);
        norm_op(g, a, "norm", nm, sh->ndt, T, d, train, L);
    } else if (train) {
        /* parallel_residual: attention and MLP both read attn_norm's output, so autograd sums
         * their two input gradients before the norm's backward (one add). */
        name2(nm, sizeof nm, "branch_grad_sum", sfx);
        rw_custom(g, "norm", nm, sh->adt, T * d, 3 * T * d * ridge_dtype_bytes(sh->adt), L);
    }

    if (a->experts > 1) {
        double k = a->top_k;
        name2(nm, sizeof nm, "router", sfx);
        rw_linear(g, "moe", nm, sh->mdt, T, d, a->experts, train, L);
        name2(nm, sizeof nm, "router_softmax", sfx);
        rw_rows(g, RIDGE_OP_SOFTMAX, "moe", nm, sh->adt, T, a->experts, train, L);
        /* top-k selection and the gather of each token's row into expert order */
        name2(nm, sizeof nm, "topk_permute", sfx);
        rw_elementwise(g, "moe", nm, sh->adt, T * k * d, 1, 1, 0, train, L);
        name2(nm, sizeof nm, a->act == TF_ACT_SWIGLU ? "expert_gate_up" : "expert_up", sfx);
        expert_linear(g, nm, a, sh, d, mlp_up_width(a), train);
        if (a->act == TF_ACT_SWIGLU) {
            name2(nm, sizeof nm, "expert_silu_mul", sfx);
            rw_elementwise(g, "moe", nm, sh->adt, T * k * a->ffn, 2, 1, TF_SILU_MUL_FLOPS, train, L);
        } else {
            name2(nm, sizeof nm, a->act == TF_ACT_GELU ? "expert_gelu" : "expert_relu", sfx);
            rw_elementwise(g, "moe", nm, sh->adt, T * k * a->ffn, 1, 1,
                           a->act == TF_ACT_GELU ? TF_GELU_FLOPS : TF_RELU_FLOPS, train, L);
        }
        name2(nm, sizeof nm, "expert_down", sfx);
        expert_linear(g, nm, a, sh, a->ffn, d, train);
        /* scatter back and sum the top_k rows weighted by the router */
        name2(nm, sizeof nm, "unpermute_combine", sfx);
        rw_elementwise(g, "moe", nm, sh->adt, T * d, k, 1, 2 * k, train, L);
    } else if (a->act == TF_ACT_SWIGLU) {
        if (a->fused_gate_up) {
            name2(nm, sizeof nm, "gate_up_proj", sfx);
            rw_linear(g, "mlp", nm, sh->mdt, T, d, 2 * a->ffn, train, L);
        } else {
            name2(nm, sizeof nm, "gate_proj", sfx);
            rw_linear(g, "mlp", nm, sh->mdt, T, d, a->ffn, train, L);
            name2(nm, sizeof nm, "up_proj", sfx);
            rw_linear(g, "mlp", nm, sh->mdt, T, d, a->ffn, train, L);
        }
        if (sh->code == RIDGE_CODE_TORCH || sh->code == RIDGE_CODE_HF) {
            /* F.silu(g) * u: SiLU over the gate (a strided half of the fused projection), then
             * the multiply, two kernels */
            size_t i0 = g->n;
            name2(nm, sizeof nm, "silu", sfx);
            rw_elementwise(g, "mlp", nm, sh->adt, T * a->ffn, 1, 1, 0, train, L);
            if (!g->failed && i0 < g->n) {
                g->ops[i0].u.ew.fn = RIDGE_EW_SILU;
                g->ops[i0].u.ew.strided_inputs = a->fused_gate_up ? 1 : 0;
            }
            name2(nm, sizeof nm, "silu_times_up", sfx);
            i0 = g->n;
            rw_elementwise(g, "mlp", nm, sh->adt, T * a->ffn, 2, 1, 1, train, L);
            if (!g->failed && i0 < g->n) /* u: the other half of the fused projection */
                g->ops[i0].u.ew.strided_inputs = a->fused_gate_up ? 1 : 0;
        } else {
            name2(nm, sizeof nm, "silu_mul", sfx);
            rw_elementwise(g, "mlp", nm, sh->adt, T * a->ffn, 2, 1, TF_SILU_MUL_FLOPS, train, L);
        }
        name2(nm, sizeof nm, "down_proj", sfx);
        rw_linear(g, "mlp", nm, sh->mdt, T, a->ffn, d, train, L);
    } else {
        /* the composite GELU under autocast writes FP32, which the down projection casts */
        const int gelu_f32 = a->act == TF_ACT_GELU && a->composite_gelu && sh->eager && g->amp;
        name2(nm, sizeof nm, "up_proj", sfx);
        tf_linear(g, a, sh, "mlp", nm, T, d, a->ffn, train, L, 1);
        name2(nm, sizeof nm, a->act == TF_ACT_GELU ? "gelu" : "relu", sfx);
        if (a->act == TF_ACT_GELU && a->composite_gelu)
            gelu_composite(g, "mlp", nm, sh->adt, T * a->ffn, train, L, gelu_f32);
        else
            rw_elementwise(g, "mlp", nm, sh->adt, T * a->ffn, 1, 1,
                           a->act == TF_ACT_GELU ? TF_GELU_FLOPS : TF_RELU_FLOPS, train, L);
        name2(nm, sizeof nm, "down_proj", sfx);
        tf_linear(g, a, sh, "mlp", nm, T, a->ffn, d, train, L, gelu_f32);
    }
    if (bias_dropout_add_fused(sh, a, drop)) {
        bias_dropout_add(g, sh, a->experts > 1 ? "moe" : "mlp", "mlp_out_dropout", "mlp_residual", sfx, T * d,
                         train, L);
    } else if (drop) {
        name2(nm, sizeof nm, "mlp_out_dropout", sfx);
        (train ? dropout_op : dropout_fwd_op)(g, a->experts > 1 ? "moe" : "mlp", nm, sh->adt, T * d, L);
    }
    if (a->parallel) { /* GPT-J: x + attn(ln(x)) + mlp(ln(x)), two adds in eager */
        name2(nm, sizeof nm, "attn_residual", sfx);
        rw_elementwise(g, "attention", nm, sh->adt, T * d, 2, 1, 1, train, L);
    }
    name2(nm, sizeof nm, "mlp_residual", sfx);
    if (!residual_fused(sh) && !bias_dropout_add_fused(sh, a, drop))
        rw_elementwise(g, a->experts > 1 ? "moe" : "mlp", nm, sh->ndt, T * d, 2, 1, 1, train, L);
}

static void build_embedding_ops(rw_graph *g, const tf_arch *a, const ridge_run_config *rc, const tf_shape *sh);

static void build_embedding(rw_graph *g, const tf_arch *a, const ridge_run_config *rc, const tf_shape *sh)
{
    size_t first = g->n;
    build_embedding_ops(g, a, rc, sh);
    /* the model's own module and its embedding (Hugging Face: also the base model and the rotary
     * or position modules) */
    rw_modules_at(g, first, sh->code == RIDGE_CODE_HF ? 4 : 2);
}

/* Eager PyTorch's embedding backward of a table of `rows` x d FP32 values looked up by T
 * indices (embedding_dense_backward on CUDA): the gradient table zero-filled (rows d 4 bytes
 * written), the indices radix-sorted and segmented and the rows summed: about twelve small
 * kernels over the indices (cub's sort, unique-by-key and scans, PyTorch's partial-sum and
 * scatter kernels), each reading and writing 16 bytes an index. */
static void embedding_backward(rw_graph *g, const char *name, double rows, double d, double T)
{
    char nm[RIDGE_OP_NAME_MAX];
    size_t first = g->n;
    snprintf(nm, sizeof nm, "%.40s.bwd_zero", name);
    rw_custom(g, "embedding", nm, RIDGE_DTYPE_FP32, 0, rows * d * 4, 1);
    snprintf(nm, sizeof nm, "%.40s.bwd_sort", name);
    rw_custom(g, "embedding", nm, RIDGE_DTYPE_FP32, T, 16 * T, 12);
    rw_autograd_from(g, first);
}

static void build_embedding_ops(rw_graph *g, const tf_arch *a, const ridge_run_config *rc, const tf_shape *sh)
{
    const double T = sh->t, d = a->d;
    const ridge_dtype edt = sh->ndt; /* FP32 tables under autocast give FP32 embeddings */
    ridge_op *op;
    if (a->vit) {
        /* Patch embedding: a convolution with stride = kernel = patch; its input gradient is not
         * needed (the input is the image). */
        for (int pass = 0; pass < (sh->train ? 2 : 1); pass++) {
            op = rw_push(g, RIDGE_OP_CONV2D, sh->mdt, "embedding", pass ? "patch_embed.wgrad" : "patch_embed", 1);
            if (!op)
                return;
            op->u.conv.n = sh->b;
            op->u.conv.c = a->channels;
            op->u.conv.h = op->u.conv.w = rc->image;
            op->u.conv.k = d;
            op->u.conv.r = op->u.conv.s = a->patch;
            op->u.conv.stride = a->patch;
            op->u.conv.pad = 0;
            op->u.conv.groups = 1;
            op->u.conv.pass = pass ? RIDGE_PASS_BWD_FILTER : RIDGE_PASS_FWD;
        }
        /* flatten to tokens and prepend the class token (FP32 under autocast: the token is) */
        rw_elementwise(g, "embedding", "cls_concat", edt, T * d, 1, 1, 0, sh->train, 1);
    } else {
        op = rw_push(g, RIDGE_OP_EMBEDDING, edt, "embedding", "embed_tokens", 1);
        if (op) {
            op->u.emb.tokens = T;
            op->u.emb.dim = d;
            op->u.emb.vocab = a->vocab;
            rw_cold(g, op, T * d * ridge_dtype_bytes(sh->adt)); /* the table rows it gathers */
        }
        if (sh->train) {
            /* scatter-add of the output gradient into the table's rows */
            op = rw_push(g, RIDGE_OP_ELEMENTWISE, edt, "embedding", "embed_tokens.bwd", 1);
            if (op) {
                op->u.ew.elements = T * d;
                op->u.ew.inputs = 1;
                op->u.ew.outputs = 1;
                op->u.ew.flops_per_element = 1;
            }
            if (sh->eager)
                embedding_backward(g, "embed_tokens", a->vocab, d, T);
        }
    }
    if (a->pos == TF_POS_LEARNED) {
        if (sh->eager && !a->vit) {
            /* the position ids (torch.arange) and the position table's look-up */
            rw_custom(g, "embedding", "position_ids", RIDGE_DTYPE_FP32, 0, 8 * sh->s, 1);
            rw_custom(g, "embedding", "pos_embed", edt, 0, 2 * T * d * ridge_dtype_bytes(edt), 1);
            if (sh->train)
                embedding_backward(g, "pos_embed", a->max_seq, d, T);
        }
        rw_elementwise(g, "embedding", "pos_add", edt, T * d, 2, 1, 1, sh->train, 1);
    }
    if (sh->eager && a->encoder && !a->vit && sh->code == RIDGE_CODE_HF) {
        /* BertEmbeddings: the token-type table's look-up (token_type_ids: the registered zeros
         * buffer) and add, then the embeddings' LayerNorm */
        rw_custom(g, "embedding", "token_type_embed", edt, 0, 2 * T * d * ridge_dtype_bytes(edt), 1);
        if (sh->train)
            embedding_backward(g, "token_type_embed", 2, d, T);
        rw_elementwise(g, "embedding", "token_type_add", edt, T * d, 2, 1, 1, sh->train, 1);
        rw_rows(g, RIDGE_OP_LAYERNORM, "embedding", "embed_norm", edt, T, d, sh->train, 1);
    }
    if (sh->train && a->dropout)
        dropout_op(g, "embedding", "embed_dropout", edt, T * d, 1);
}

/* Cross-entropy over rows x cols logits in FP32 (autocast lists it among the FP32 ops; Megatron
 * upcasts as well): 16-bit logits are first cast to FP32 (reading es, writing 4 bytes a value)
 * and the cast's backward turns the FP32 gradient back (the same bytes); then log-softmax and the
 * loss with their backward. */
static void cross_entropy(rw_graph *g, ridge_dtype logits_dt, double rows, double cols, int eager)
{
    if (logits_dt != RIDGE_DTYPE_FP32) {
        double bytes = rows * cols * (ridge_dtype_bytes(logits_dt) + 4);
        rw_custom(g, "loss", "logits_to_fp32", logits_dt, 0, bytes, 1);
        rw_custom(g, "loss", "logits_to_fp32.bwd", logits_dt, 0, bytes, 1);
    }
    rw_rows(g, RIDGE_OP_SOFTMAX, "loss", "cross_entropy", RIDGE_DTYPE_FP32, rows, cols, 1, 1);
    if (eager) {
        /* F.cross_entropy as eager PyTorch runs it: log_softmax (above), nll_loss forward (one
         * small kernel), loss.backward()'s seed (ones_like, one), nll_loss backward's scatter
         * into the zeroed gradient (one; the zero fill and log_softmax's backward are the two
         * above) */
        rw_custom(g, "loss", "nll_loss", RIDGE_DTYPE_FP32, rows, 12 * rows, 1);
        rw_custom(g, "loss", "loss_seed", RIDGE_DTYPE_FP32, 0, 4, 1);
        rw_custom(g, "loss", "nll_loss.bwd", RIDGE_DTYPE_FP32, rows, 12 * rows, 1);
    }
}

static void build_head(rw_graph *g, const tf_arch *a, const tf_shape *sh)
{
    const double d = a->d;
    if (!a->encoder) {
        if (sh->f32res)
            rw_act_cast(g, "lm_head", "lm_head", sh->adt, sh->head_rows * d, sh->train, 1);
        /* 8-bit and 4-bit runs keep the LM head in 16-bit (wide_params) and multiply in it. */
        rw_linear(g, "lm_head", "lm_head", ridge_dtype_bytes(sh->mdt) < 2 ? sh->adt : sh->mdt, sh->head_rows, d,
                  a->head_vocab, sh->train, 1);
        if (sh->train && sh->code == RIDGE_CODE_HF) {
            /* Hugging Face's causal-LM loss shifts the labels: pad by one, slice, contiguous */
            rw_custom(g, "loss", "labels_shift", RIDGE_DTYPE_FP32, 0, 16 * sh->t, 2);
        }
        /* cross-entropy on logits upcast to fp32 */
        if (sh->train)
            cross_entropy(g, sh->adt, sh->t, a->head_vocab, sh->eager);
        if (sh->train && sh->eager && a->tied) /* the tied table's two gradients summed */
        {
            rw_custom(g, "lm_head", "tied_grad_sum", RIDGE_DTYPE_FP32, a->vocab * d, 12 * a->vocab * d, 1);
            rw_autograd_from(g, g->n - 1);
        }
        return;
    }
    if (sh->train && text_encoder_mlm(a)) {
        /* BERT's masked-LM head over every position (Hugging Face BertForMaskedLM), or over the
         * masked positions gathered first (--mlm-positions; NVIDIA's BERT: dense_seq_output) */
        ridge_op_kind nk = a->norm == TF_NORM_RMSNORM ? RIDGE_OP_RMSNORM : RIDGE_OP_LAYERNORM;
        const double R = sh->head_rows;
        if (sh->mlm_gather) /* index_select of the rows; its backward scatters them back (zeros elsewhere) */
            rw_elementwise(g, "lm_head", "mlm_gather", sh->adt, R * d, 1, 1, 0, 1, 1);
        tf_linear(g, a, sh, "lm_head", "mlm_transform", R, d, d, 1, 1, 1);
        rw_elementwise(g, "lm_head", "mlm_gelu", sh->adt, R * d, 1, 1, TF_GELU_FLOPS, 1, 1);
        rw_rows(g, nk, "lm_head", "mlm_norm", sh->ndt, R, d, 1, 1);
        tf_linear(g, a, sh, "lm_head", "mlm_decoder", R, d, a->vocab, 1, 1, 1);
        cross_entropy(g, sh->adt, R, a->vocab, sh->eager);
        if (sh->eager && a->tied) /* the tied table's two gradients summed */
        {
            rw_custom(g, "lm_head", "tied_grad_sum", RIDGE_DTYPE_FP32, a->vocab * d, 12 * a->vocab * d, 1);
            rw_autograd_from(g, g->n - 1);
        }
    }
    if (a->qa) {
        /* BertForQuestionAnswering: start and end logits on every token; in training a
         * cross-entropy over the s positions for each of the 2 b (sequence, start|end) rows */
        rw_linear(g, "other", "qa_outputs", sh->mdt, sh->t, d, 2, sh->train, 1);
        if (sh->train)
            cross_entropy(g, sh->adt, 2 * sh->b, sh->s, sh->eager);
    }
    if (a->pooler) {
        rw_linear(g, "other", "pooler", sh->mdt, sh->b, d, d, sh->train, 1);
        rw_elementwise(g, "other", "pooler_tanh", sh->adt, sh->b * d, 1, 1, TF_TANH_FLOPS, sh->train, 1);
    }
    if (a->classes > 0) {
        rw_linear(g, "other", "classifier", sh->mdt, sh->b, d, a->classes, sh->train, 1);
        if (sh->train)
            cross_entropy(g, sh->adt, sh->b, a->classes, sh->eager);
    }
}

/* The arch as the run's code writes it (--code; docs/workloads.md, "How the code is written"):
 * eager PyTorch and Hugging Face compute RMSNorm and the rotary embedding as pointwise kernels;
 * Megatron, engines and inductor fuse them. As written: the model file's keys. */
static tf_arch code_arch(const tf_arch *a, ridge_code code)
{
    tf_arch c = *a;
    switch (code) {
    case RIDGE_CODE_TORCH:
    case RIDGE_CODE_HF:
        c.composite_norm = a->norm == TF_NORM_RMSNORM;
        c.composite_rope = a->pos == TF_POS_ROPE;
        if (code == RIDGE_CODE_HF && a->encoder && !a->vit)
            c.fused_qkv = 0; /* BertSelfAttention: query, key and value linears */
        break;
    case RIDGE_CODE_MEGATRON:
        c.composite_norm = c.composite_rope = c.composite_gelu = 0;
        c.fused_softmax = 1;
        break;
    case RIDGE_CODE_ENGINE:
    case RIDGE_CODE_COMPILE: c.composite_norm = c.composite_rope = c.composite_gelu = 0; break;
    default: break;
    }
    return c;
}

static int build(const void *arch, const ridge_run_config *rc, rw_graph *g, ridge_err *err)
{
    tf_arch ca = code_arch(arch, rc->code);
    const tf_arch *a = &ca;
    if (rc->code == RIDGE_CODE_HF && rc->mode == RIDGE_MODE_TRAIN && text_encoder_mlm(a))
        ca.pooler = 0; /* BertForMaskedLM builds its BertModel without the pooler */
    tf_shape sh = shape_of(a, rc);
    int kv_write = rc->mode == RIDGE_MODE_PREFILL || rc->mode == RIDGE_MODE_DECODE;
    (void)err;
    build_embedding(g, a, rc, &sh);
    build_layer(g, a, &sh, sh.train, kv_write, "", 0);
    if (sh.train && rc->recompute == RIDGE_RECOMPUTE_SELECTIVE && sh.unfused) {
        /* Recompute the score matrix instead of keeping it: QK^T, softmax, PV forward again. */
        double bh = sh.b * a->heads;
        rw_gemm(g, "attention", "attn_scores.recompute", sh.mdt, sh.s, sh.kv_len, a->head_dim, bh, a->layers);
        rw_rows(g, RIDGE_OP_SOFTMAX, "attention", "attn_softmax.recompute", sh.adt, bh * sh.s, sh.kv_len, 0,
                a->layers);
        if (a->dropout) /* the probabilities' dropout, its mask drawn again (Korthikanti et al. 2022, §4.2) */
            rw_elementwise(g, "attention", "attn_dropout.recompute", sh.adt, bh * sh.s * sh.kv_len, 1, 2, 2, 0,
                           a->layers);
        rw_gemm(g, "attention", "attn_context.recompute", sh.mdt, sh.s, a->head_dim, sh.kv_len, bh, a->layers);
    } else if (sh.train && rc->recompute == RIDGE_RECOMPUTE_SELECTIVE) {
        ridge_op *op = rw_push(g, RIDGE_OP_ATTENTION, sh.attn_dt, "attention", "attention.recompute", a->layers);
        if (op) {
            op->u.attn.batch = sh.b;
            op->u.attn.heads = a->heads;
            op->u.attn.kv_heads = a->kv_heads;
            op->u.attn.q_len = sh.s;
            op->u.attn.kv_len = sh.kv_len;
            op->u.attn.head_dim = a->head_dim;
            op->u.attn.causal = sh.causal;
            op->u.attn.pass = RIDGE_PASS_FWD;
        }
    } else if (sh.train && rc->recompute == RIDGE_RECOMPUTE_FULL) {
        build_layer(g, a, &sh, 0, 0, ".recompute", 1);
    }
    norm_op(g, a, "norm", "final_norm", sh.ndt, sh.t, a->d, sh.train, 1);
    build_head(g, a, &sh);
    if (sh.train)
        rw_optimizer(g, params(a), param_tensors(a), rc->precision, rc->optimizer, rc->optimizer_impl);
    return RIDGE_OK;
}

/* ------------------------------------------------------------------ memory */

/* Bytes one layer keeps for its backward pass, per token (docs/workloads.md, "Transformers"). */
static double train_layer_bytes_per_token(const tf_arch *a, const tf_shape *sh)
{
    double e = ridge_dtype_bytes(sh->adt), d = a->d, hd = a->head_dim;
    double kv_ratio = sh->t_kv / sh->t; /* Transformer-XL: K and V cover the memory too */
    double f_mlp = a->act == TF_ACT_SWIGLU ? 3 * a->ffn : 2 * a->ffn;
    double bytes = e * (layer_norms(a) * d                                 /* inputs of the norms */
                        + d                                                /* QKV input */
                        + (a->heads * hd + 2 * a->kv_heads * hd * kv_ratio) /* Q, K, V */
                        + a->heads * hd                                    /* attention output */
                        + (a->parallel ? 0 : d))                           /* MLP input (parallel: the QKV input) */
                   + 4 * a->heads;                                         /* fp32 log-sum-exp */
    if (a->experts > 1)
        bytes += e * a->top_k * (d + f_mlp) + e * a->experts; /* permuted rows, expert MLPs, router probs */
    else
        bytes += e * f_mlp;
    if (a->dropout)
        bytes += 2 * d; /* 1-byte masks of the attention-output and MLP-output dropouts */
    return bytes;
}

static int memory(const void *arch, const ridge_run_config *rc, ridge_memory *m, ridge_err *err)
{
    const tf_arch *a = arch;
    tf_shape sh = shape_of(a, rc);
    double e = ridge_dtype_bytes(sh.adt), d = a->d, L = a->layers, T = sh.t;
    double kvd = a->kv_heads * a->head_dim;
    (void)err;
    if (sh.train) {
        double layer = T * train_layer_bytes_per_token(a, &sh), head = 0;
        if (a->pos == TF_POS_RELATIVE)
            layer += sh.kv_len * d * e; /* projected positions */
        if (!a->encoder)
            head = 2 * T * d * e + T * a->head_vocab * 4; /* final norm and LM-head inputs, fp32 logits */
        else if (text_encoder_mlm(a))
            head = 4 * sh.head_rows * d * e + sh.head_rows * a->vocab * 4; /* every position, or the gathered */
        head += (a->pooler ? 2 * sh.b * d * e : 0) + (a->classes > 0 ? sh.b * (d * e + a->classes * 4) : 0);
        if (a->qa) /* the qa_outputs input, and the fp32 start and end logits */
            head += T * d * e + 2 * T * 4;
        if (a->vit)
            head += sh.b * a->channels * rc->image * rc->image * e; /* the image, for the patch wgrad */
        if (sh.unfused && rc->recompute == RIDGE_RECOMPUTE_NONE) /* the saved softmax output, and with dropout its mask and output (Korthikanti's 5as^2b) */
            layer += sh.b * a->heads * sh.s * sh.kv_len * (a->dropout ? 2 * e + 1 : e);
        if (rc->recompute == RIDGE_RECOMPUTE_FULL)
            m->activations_bytes = L * T * d * e + layer + head; /* layer inputs + one layer rebuilt */
        else
            m->activations_bytes = L * layer + head; /* selective: the same with flash attention */
    } else {
        double f_mlp = (a->act == TF_ACT_SWIGLU ? 3 * a->ffn : 2 * a->ffn) * a->top_k;
        double rows = a->encoder ? (a->classes > 0 ? sh.b * a->classes : a->qa ? 2 * T : 0) : sh.b * a->head_vocab;
        m->activations_bytes = T * e * (f_mlp > 4 * d ? f_mlp : 4 * d) + rows * 4;
    }
    if (rc->mode == RIDGE_MODE_PREFILL || rc->mode == RIDGE_MODE_DECODE)
        m->kv_cache_bytes = 2 * L * kvd * sh.kv_len * sh.b * ridge_dtype_bytes(sh.attn_dt);
    else if (a->mem_len > 0) /* Transformer-XL keeps each layer's input of the last mem_len tokens */
        m->kv_cache_bytes = L * a->mem_len * sh.b * d * e;
    return RIDGE_OK;
}

/* ------------------------------------------------------------------ model FLOPs */

static double flops(const void *arch, const ridge_run_config *rc)
{
    const tf_arch *a = arch;
    tf_shape sh = shape_of(a, rc);
    const double L = a->layers, d = a->d, T = sh.t, hd = a->head_dim, kvd = a->kv_heads * hd;
    /* Parameters each token meets in the layers (only top_k experts), plus the final norm. */
    double n_layer = L * (attn_params(a) + a->top_k * mlp_params(a) + router_params(a) +
                          layer_norms(a) * norm_params(a)) +
                     norm_params(a);
    double fwd = 2 * T * n_layer;
    double pairs = attn_pairs(sh.s, sh.kv_len, sh.causal);
    fwd += L * 4 * sh.b * a->heads * hd * pairs; /* QK^T and PV */
    if (a->pos == TF_POS_RELATIVE)
        fwd += L * (2 * sh.b * a->heads * hd * pairs + 2 * sh.kv_len * d * d); /* BD scores, positions */
    if (sh.t_kv > T)
        fwd += L * 2 * (sh.t_kv - T) * d * 2 * kvd; /* K and V of the memory tokens */
    if (!a->encoder) {
        fwd += 2 * sh.head_rows * d * a->head_vocab;
    } else {
        if (sh.train && text_encoder_mlm(a))
            fwd += 2 * sh.head_rows * (d * d + d * a->vocab);
        fwd += (a->pooler ? 2 * sh.b * d * d : 0) + 2 * sh.b * d * a->classes + (a->qa ? 2 * T * d * 2 : 0);
    }
    if (a->vit)
        fwd += 2 * sh.b * patches(a, rc->image) * a->channels * a->patch * a->patch * d;
    return sh.train ? 3 * fwd : fwd;
}

static const char *unit(const void *arch, const ridge_run_config *rc)
{
    const tf_arch *a = arch;
    (void)rc;
    if (a->vit)
        return "images/s";
    return a->encoder ? "sequences/s" : "tokens/s";
}

static double items(const void *arch, const ridge_run_config *rc)
{
    const tf_arch *a = arch;
    if (a->encoder)
        return rc->batch;
    return shape_of(a, rc).t;
}

static double family_params(const void *arch, const ridge_run_config *rc)
{
    (void)rc; /* no run option changes a transformer's parameters */
    return params(arch);
}

static double expert_params(const void *arch)
{
    const tf_arch *a = arch;
    return a->experts > 1 ? a->layers * a->experts * mlp_params(a) : 0;
}

/* The token embedding and an untied LM head: quantized checkpoints leave them in 16-bit. */
static double wide_params(const void *arch)
{
    const tf_arch *a = arch;
    return a->vocab * a->d + (!a->encoder && !a->tied ? a->vocab * a->d : 0);
}

const rw_family rw_family_transformer = {"transformer", sizeof(tf_arch), parse, NULL, family_params, resolve, build,
                                         memory, flops, unit, items, expert_params, wide_params};
