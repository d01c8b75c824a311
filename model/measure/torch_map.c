/* Mapping a PyTorch end-to-end measurement to a ridge model and run (docs/validation.md, "config of
 * a PyTorch end-to-end measurement"). The config's workload is the hyper-parameters the script built
 * its network from (validation/torch/wl_*.py); this file turns them into ridge's own model format
 * (docs/workloads.md, "Model families"), for exactly the network that ran (layers_run layers), or a
 * built-in preset where the network is one (ResNet-50 v1.5, the LSTM stack), and reads the run
 * (mode, sizes, precision, optimizer, runtime) from the config. What ridge cannot represent is a
 * skip reason, never an approximate model.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_util.h"
#include "ridge/torch_map.h"
#include "torch_map_internal.h"

typedef enum { TM_CNN, TM_ENCODER, TM_DECODER, TM_RNN } tm_family;

/* ------------------------------------------------------------------ typed access */

static const cJSON *item(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* Present and not null. */
static int has(const cJSON *o, const char *k)
{
    const cJSON *v = item(o, k);
    return v && !cJSON_IsNull(v);
}

/* An integer in [lo, hi]: 1 with *out set; 0 when absent or null; -1 when of another type,
 * fractional, non-finite or out of range. */
static int int_of(const cJSON *o, const char *k, double lo, double hi, double *out)
{
    const cJSON *v = item(o, k);
    double d;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsNumber(v))
        return -1;
    d = v->valuedouble;
    if (!isfinite(d) || d < lo || d > hi || d != floor(d))
        return -1;
    *out = d;
    return 1;
}

/* A boolean: 1 or 0; def when absent or null; -1 when of another type. */
static int bool_of(const cJSON *o, const char *k, int def)
{
    const cJSON *v = item(o, k);
    if (!v || cJSON_IsNull(v))
        return def;
    if (!cJSON_IsBool(v))
        return -1;
    return cJSON_IsTrue(v) ? 1 : 0;
}

static int eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

static int starts_with(const char *s, const char *prefix)
{
    return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Absent, or an array of exactly these integers. */
static int int_array_is(const cJSON *o, const char *k, const double *want, int n)
{
    const cJSON *a = item(o, k), *e;
    int i = 0;
    if (!a || cJSON_IsNull(a))
        return 1;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
        return 0;
    cJSON_ArrayForEach(e, a)
    {
        if (!cJSON_IsNumber(e) || e->valuedouble != want[i++])
            return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ building a model document */

/* The model's name: the workload's, printable ASCII, with the layers that ran when fewer. */
static void model_name(const cJSON *wl, double layers_run, double layers, char *buf, size_t cap)
{
    const char *n = rj_str_or_null(wl, "name");
    char clean[64];
    size_t i = 0;
    if (!n || !*n)
        n = "torch-model";
    for (; n[i] && i < sizeof clean - 1; i++)
        clean[i] = (n[i] > 0x20 && n[i] < 0x7f) ? n[i] : '_';
    clean[i] = '\0';
    if (layers_run < layers)
        snprintf(buf, cap, "%s, %.0f of %.0f layers", clean, layers_run, layers);
    else
        snprintf(buf, cap, "%s", clean);
}

/* Print the document and parse it as a model file would be; NULL or a reason. */
static const char *parse_doc(cJSON *root, const char *name, ridge_model **model)
{
    char origin[96];
    char *text;
    ridge_err err;
    int st;
    memset(&err, 0, sizeof err);
    if (!root)
        return "out of memory";
    text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!text)
        return "out of memory";
    snprintf(origin, sizeof origin, "torch:%.80s", name);
    st = ridge_model_parse(text, strlen(text), origin, model, &err);
    cJSON_free(text);
    if (st != RIDGE_OK) {
        *model = NULL;
        return "hyper-parameters ridge's model format rejects";
    }
    return NULL;
}

static cJSON *new_doc(const char *name, const char *family, const char *description, cJSON **arch)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema_version", 1);
    cJSON_AddStringToObject(root, "name", name);
    cJSON_AddStringToObject(root, "family", family);
    cJSON_AddStringToObject(root, "source", "validation/torch hyper-parameters recorded with the measurement "
                                            "(mapped by cli/torch_map.c)");
    cJSON_AddStringToObject(root, "description", description);
    *arch = cJSON_AddObjectToObject(root, "arch");
    if (!*arch) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

/* ------------------------------------------------------------------ run: precision, optimizer */

static const char *map_precision(const cJSON *cfg, tm_family fam, ridge_run_config *rc)
{
    const char *p = rj_str_or_null(cfg, "precision"), *w = rj_str_or_null(cfg, "weights_dtype");
    int amp = bool_of(cfg, "amp", 0);
    if (!p)
        return "precision missing";
    if (amp < 0)
        return "amp is not a boolean";
    if (has(cfg, "weights_dtype") && !w)
        return "weights_dtype is not a string";
    if (eq(p, "fp32")) {
        /* cuDNN (convolutions, cuDNN RNNs) follows torch.backends.cudnn.allow_tf32 (PyTorch's
         * default: true), cuBLAS matmuls torch.backends.cuda.matmul.allow_tf32 (default: false). */
        int tf32 = fam == TM_CNN || fam == TM_RNN ? bool_of(cfg, "tf32_cudnn", 1) : bool_of(cfg, "tf32_matmul", 0);
        if (w && !eq(w, "fp32"))
            return "fp32 precision with weights in another dtype";
        if (tf32 < 0)
            return "tf32 switch is not a boolean";
        rc->precision = tf32 ? RIDGE_DTYPE_TF32 : RIDGE_DTYPE_FP32;
        return NULL;
    }
    if (!(eq(p, "fp16") || eq(p, "bf16")) || ridge_dtype_parse(p, &rc->precision))
        return "precision is not fp32, fp16 or bf16";
    if (!w)
        w = amp ? "fp32" : p;
    /* Autocast over fp32 weights: ridge's --amp, half-precision math on FP32 weights cast every
     * forward (and in training each weight gradient cast back to FP32). */
    if (amp && eq(w, "fp32")) {
        rc->amp = 1;
        return NULL;
    }
    if (!amp && eq(w, p)) {
        if (rc->mode == RIDGE_MODE_TRAIN)
            return "half-precision training without fp32 master weights (no AMP) is not modelled";
        return NULL; /* weights stored in the run precision, as ridge's inference */
    }
    return "weights_dtype and amp combination not modelled";
}

static const char *map_optimizer(const cJSON *cfg, ridge_run_config *rc)
{
    const char *o = rj_str_or_null(cfg, "optimizer");
    if (!o)
        return "training step without a recorded optimizer";
    /* The scripts record the constructor ("SGD(momentum=0.9, ...)", "AdamW(lr=..., capturable)"). */
    if (ridge_optimizer_parse(o, &rc->optimizer) == 0)
        ;
    else if (eq(o, "SGD") || starts_with(o, "SGD("))
        rc->optimizer = RIDGE_OPTIMIZER_SGD;
    else if (eq(o, "AdamW") || starts_with(o, "AdamW("))
        rc->optimizer = RIDGE_OPTIMIZER_ADAMW;
    else
        return "optimizer is not SGD or AdamW";
    /* torch.optim's default on CUDA is the multi-tensor (foreach) implementation, one pass over
     * the tensors per arithmetic step (capturable=True: one pass more for AdamW); fused=True is
     * one fused kernel; foreach=False the per-tensor loop. */
    if (strstr(o, "fused=True"))
        rc->optimizer_impl = RIDGE_OPT_IMPL_FUSED;
    else if (strstr(o, "foreach=False"))
        rc->optimizer_impl = RIDGE_OPT_IMPL_FORLOOP;
    else
        rc->optimizer_impl = strstr(o, "capturable") ? RIDGE_OPT_IMPL_FOREACH_CAPTURABLE : RIDGE_OPT_IMPL_FOREACH;
    return NULL;
}

/* ------------------------------------------------------------------ CNN: ResNet-50 v1.5 */

static const char *map_cnn(const cJSON *cfg, const cJSON *wl, double layers_run, ridge_model **model,
                           ridge_run_config *rc)
{
    static const double blocks[] = {3, 4, 6, 3}, widths[] = {256, 512, 1024, 2048};
    const cJSON *img = item(cfg, "image");
    ridge_err err;
    double depth = 0, v = 0, side = 0;
    int cl;
    memset(&err, 0, sizeof err);
    if (int_of(wl, "depth", 1, 10000, &depth) != 1 || depth != 50 || !int_array_is(wl, "blocks", blocks, 4) ||
        !int_array_is(wl, "widths", widths, 4))
        return "CNN is not a ResNet-50 (only ResNet-50 v1.5 is mapped)";
    if (has(wl, "bottleneck_stride_on") && !eq(rj_str_or_null(wl, "bottleneck_stride_on"), "conv3x3"))
        return "ResNet-50 v1 (stride on the 1x1 convolution) is not modelled; ridge's is v1.5";
    if (has(wl, "classes") && (int_of(wl, "classes", 1, 1e9, &v) != 1 || v != 1000))
        return "ResNet-50 with other than 1000 classes is not modelled";
    if (layers_run != depth)
        return "ResNet-50 run with fewer layers than its depth is not modelled";
    if (rc->mode != RIDGE_MODE_TRAIN && rc->mode != RIDGE_MODE_INFER)
        return "a CNN runs train or infer only";
    if (cJSON_IsArray(img)) {
        const cJSON *c = cJSON_GetArrayItem(img, 0), *h = cJSON_GetArrayItem(img, 1), *w = cJSON_GetArrayItem(img, 2);
        if (cJSON_GetArraySize(img) != 3 || !cJSON_IsNumber(c) || !cJSON_IsNumber(h) || !cJSON_IsNumber(w) ||
            c->valuedouble != 3 || h->valuedouble != w->valuedouble)
            return "image is not [3, H, H] (square RGB)";
        side = h->valuedouble;
    } else if (int_of(cfg, "image", 1, 100000, &side) != 1) {
        return "image missing or not [3, H, H]";
    }
    if (!(isfinite(side) && side >= 1 && side <= 100000 && side == floor(side)))
        return "image side is not a positive integer";
    rc->image = side;
    cl = bool_of(cfg, "channels_last", 1);
    if (cl < 0)
        return "channels_last is not a boolean";
    rc->nchw = !cl; /* NCHW: tensor-core convolutions transpose in and out (docs/workloads.md) */
    if (ridge_model_load_builtin("resnet50", model, &err) != RIDGE_OK)
        return "the built-in resnet50 preset is missing";
    /* torchvision's ResNet-50 v1.5 is the preset; a different recorded count is another network */
    if (has(wl, "params") && (int_of(wl, "params", 1, 1e12, &v) != 1 || v != ridge_model_params(*model)))
        return "parameter count differs from ResNet-50 v1.5";
    return NULL;
}

/* ------------------------------------------------------------------ RNN: LSTM stacks */

static double lstm_layer_params(double in, double h)
{
    return 4 * h * (in + h) + 8 * h; /* W_ih, W_hh, b_ih, b_hh (nn.LSTM, cuDNN) */
}

static const char *map_rnn(const cJSON *cfg, const cJSON *wl, double layers_run, ridge_model **model,
                           ridge_run_config *rc)
{
    char name[96], desc[256];
    double hidden = 0, input = 0, layers = 0, seq = 0, expect, v = 0;
    ridge_err err;
    cJSON *root, *arch;
    memset(&err, 0, sizeof err);
    if (!eq(rj_str_or_null(wl, "cell"), "lstm"))
        return "RNN cell is not an LSTM";
    if (bool_of(wl, "bidirectional", 0) != 0)
        return "bidirectional LSTM stack is not modelled";
    if (bool_of(wl, "bias", 1) != 1)
        return "LSTM without biases is not modelled";
    if (has(wl, "proj_size") && !(int_of(wl, "proj_size", 0, 0, &v) == 1))
        return "LSTM with projections (proj_size) is not modelled";
    if (has(wl, "dropout") && !(cJSON_IsNumber(item(wl, "dropout")) && item(wl, "dropout")->valuedouble == 0))
        return "LSTM with dropout between layers is not modelled";
    if (int_of(wl, "hidden", 1, 1e6, &hidden) != 1 || int_of(wl, "input", 1, 1e6, &input) != 1 ||
        int_of(wl, "layers", 1, 1000, &layers) != 1)
        return "LSTM hidden, input or layers missing or not positive integers";
    if (layers_run > layers)
        return "layers_run exceeds the model's layers";
    if (rc->mode != RIDGE_MODE_TRAIN && rc->mode != RIDGE_MODE_INFER)
        return "an RNN runs train or infer only";
    if (int_of(cfg, "seq", 1, 1e6, &seq) != 1)
        return "seq missing or not a positive integer";
    rc->seq = seq;
    /* The lstm preset with --hidden and --layers, when its input width is this one (the parameter
     * count tells); otherwise a stack of the recorded shape. */
    expect = lstm_layer_params(input, hidden) + (layers_run - 1) * lstm_layer_params(hidden, hidden);
    if (ridge_model_load_builtin("lstm", model, &err) == RIDGE_OK) {
        rc->hidden = hidden;
        rc->layers = layers_run;
        if (ridge_model_params_for(*model, rc) == expect)
            return NULL;
        ridge_model_free(*model);
        *model = NULL;
        rc->hidden = rc->layers = 0;
    }
    model_name(wl, layers_run, layers, name, sizeof name);
    snprintf(desc, sizeof desc, "LSTM stack as nn.LSTM ran it: %.0f layers, input %.0f, hidden %.0f", layers_run,
             input, hidden);
    if (!(root = new_doc(name, "rnn", desc, &arch)))
        return "out of memory";
    cJSON_AddStringToObject(arch, "cell", "lstm");
    cJSON_AddNumberToObject(arch, "input", input);
    cJSON_AddNumberToObject(arch, "hidden", hidden);
    cJSON_AddNumberToObject(arch, "layers", layers_run);
    cJSON_AddNumberToObject(arch, "seq", seq);
    return parse_doc(root, name, model);
}

/* ------------------------------------------------------------------ transformers */

typedef struct {
    double d, layers, heads, kv_heads, ffn, vocab, max_pos, classes;
    const char *act, *norm, *pos;
    int bias, tied, dropout, pooler;
    int fused_qkv, fused_gate_up; /* "qkv_projection" / "gate_up_projection": "fused" or "separate" */
    const char *norm_impl, *rope_impl; /* "fused" (absent) or "composite" */
} tm_arch;

static const char *transformer_arch(const cJSON *wl, tm_family fam, tm_arch *a)
{
    const char *act = rj_str_or_null(wl, "activation"), *norm = rj_str_or_null(wl, "norm"), *pos = rj_str_or_null(wl, "positional");
    const char *att = rj_str_or_null(wl, "attention");
    const cJSON *drop = item(wl, "dropout");
    double hd = 0;
    int r;
    memset(a, 0, sizeof *a);
    if (has(wl, "experts") || has(wl, "num_experts"))
        return "mixture-of-experts torch workloads are not mapped";
    if (int_of(wl, "hidden", 1, 1e7, &a->d) != 1 || int_of(wl, "layers", 1, 1e5, &a->layers) != 1 ||
        int_of(wl, "heads", 1, 1e5, &a->heads) != 1 || int_of(wl, "ffn", 1, 1e7, &a->ffn) != 1 ||
        int_of(wl, "vocab", 1, 1e8, &a->vocab) != 1)
        return "transformer hidden, layers, heads, ffn or vocab missing or not positive integers";
    a->kv_heads = a->heads;
    if (int_of(wl, "kv_heads", 1, 1e5, &a->kv_heads) < 0)
        return "kv_heads is not a positive integer";
    r = int_of(wl, "head_dim", 1, 1e5, &hd);
    if (r < 0 || (r == 1 && hd * a->heads != a->d))
        return "head_dim other than hidden / heads is not modelled";
    if (eq(act, "gelu") || eq(act, "gelu_tanh") || eq(act, "gelu_new"))
        a->act = "gelu";
    else if (eq(act, "relu"))
        a->act = "relu";
    else if (eq(act, "swiglu"))
        a->act = "swiglu";
    else
        return "MLP activation missing or not gelu, relu or swiglu";
    if (eq(norm, "layernorm") || eq(norm, "post_layernorm") || eq(norm, "pre_layernorm"))
        a->norm = "layernorm";
    else if (eq(norm, "rmsnorm"))
        a->norm = "rmsnorm";
    else
        return "norm missing or not layernorm or rmsnorm";
    /* The longest sequence: GPT-2's n_ctx, BERT's max_position. */
    r = int_of(wl, "n_ctx", 1, 1e7, &a->max_pos);
    if (r == 0)
        r = int_of(wl, "max_position", 1, 1e7, &a->max_pos);
    if (r < 0)
        return "n_ctx or max_position is not a positive integer";
    if (!pos && r == 1)
        pos = "learned"; /* BERT records max_position and no positional key: a learned table */
    if (eq(pos, "learned")) {
        if (r != 1)
            return "learned positions without n_ctx or max_position";
        a->pos = "learned";
    } else if (eq(pos, "rope") || eq(pos, "none")) {
        a->pos = pos;
    } else {
        return "positional encoding missing or not learned, rope or none";
    }
    if (att && (fam == TM_ENCODER) == (strstr(att, "causal") != NULL))
        return "attention masking does not match the family (encoders bidirectional, decoders causal)";
    if ((a->bias = bool_of(wl, "bias", 0)) < 0 || (a->tied = bool_of(wl, "tied_embeddings", 0)) < 0)
        return "bias or tied_embeddings is not a boolean";
    {
        /* How the script holds the projections (absent: fused, one GEMM). */
        const cJSON *q = item(wl, "qkv_projection"), *gu = item(wl, "gate_up_projection");
        if ((q && !(cJSON_IsString(q) && (eq(q->valuestring, "fused") || eq(q->valuestring, "separate")))) ||
            (gu && !(cJSON_IsString(gu) && (eq(gu->valuestring, "fused") || eq(gu->valuestring, "separate")))))
            return "qkv_projection or gate_up_projection is not \"fused\" or \"separate\"";
        a->fused_qkv = !(q && eq(q->valuestring, "separate"));
        a->fused_gate_up = !(gu && eq(gu->valuestring, "separate"));
    }
    {
        /* How the script computes RMSNorm and rotary embeddings: one kernel each ("fused", the
         * default) or PyTorch's pointwise ops one by one ("composite"). */
        const cJSON *ni = item(wl, "norm_impl"), *ri = item(wl, "rope_impl");
        if ((ni && !(cJSON_IsString(ni) && (eq(ni->valuestring, "fused") || eq(ni->valuestring, "composite")))) ||
            (ri && !(cJSON_IsString(ri) && (eq(ri->valuestring, "fused") || eq(ri->valuestring, "composite")))))
            return "norm_impl or rope_impl is not \"fused\" or \"composite\"";
        a->norm_impl = ni ? ni->valuestring : "fused";
        a->rope_impl = ri ? ri->valuestring : "fused";
        if (eq(a->norm_impl, "composite") && !eq(a->norm, "rmsnorm"))
            return "a composite norm is modelled for RMSNorm only";
        if (eq(a->rope_impl, "composite") && !eq(a->pos, "rope"))
            return "rope_impl without rotary positions";
    }
    if (!drop || cJSON_IsNull(drop))
        a->dropout = 0;
    else if (cJSON_IsBool(drop))
        a->dropout = cJSON_IsTrue(drop);
    else if (cJSON_IsNumber(drop) && isfinite(drop->valuedouble) && drop->valuedouble >= 0 && drop->valuedouble < 1)
        a->dropout = drop->valuedouble > 0;
    else
        return "dropout is not a probability";
    return NULL;
}

/* "pooler + classifier(N)": the fine-tuning head of the BERT script; N classes. */
static int classifier_head(const char *head, double *classes)
{
    const char *pre = "pooler + classifier(";
    char *end = NULL;
    long n;
    if (!starts_with(head, pre))
        return 0;
    n = strtol(head + strlen(pre), &end, 10);
    if (!end || strcmp(end, ")") != 0 || n < 1 || n > 100000000L)
        return 0;
    *classes = (double)n;
    return 1;
}

static const char *map_transformer(const cJSON *cfg, const cJSON *wl, tm_family fam, double layers_run,
                                   ridge_model **model, ridge_run_config *rc)
{
    tm_arch a;
    const char *why, *logits = rj_str_or_null(cfg, "logits"), *impl = rj_str_or_null(cfg, "attention_impl");
    const char *loss = rj_str_or_null(cfg, "loss");
    char name[96], desc[320];
    double v = 0, run_len = 1;
    int encoder = fam == TM_ENCODER;
    cJSON *root, *arch;
    if ((why = transformer_arch(wl, fam, &a)))
        return why;
    if (layers_run > a.layers)
        return "layers_run exceeds the model's layers";
    if (has(cfg, "loss") && !starts_with(loss, "cross_entropy"))
        return "loss other than cross-entropy is not modelled";
    switch (rc->mode) {
    case RIDGE_MODE_TRAIN:
    case RIDGE_MODE_INFER:
        if (int_of(cfg, "seq", 1, 1e7, &rc->seq) != 1)
            return "seq missing or not a positive integer";
        run_len = rc->seq;
        break;
    case RIDGE_MODE_PREFILL:
        if (encoder)
            return "an encoder runs train or infer only";
        if (int_of(cfg, "prompt", 1, 1e7, &rc->prompt) != 1)
            return "prefill without a prompt length";
        if ((has(cfg, "seq") && (int_of(cfg, "seq", 1, 1e7, &v) != 1 || v != rc->prompt)) ||
            (has(cfg, "context") && (int_of(cfg, "context", 0, 1e7, &v) != 1 || v != 0)))
            return "prefill not from position 0 (seq != prompt or context != 0)";
        run_len = rc->prompt;
        break;
    case RIDGE_MODE_DECODE:
        if (encoder)
            return "an encoder runs train or infer only";
        if (int_of(cfg, "context", 0, 1e7, &rc->context) != 1)
            return "decode without a context length";
        if (has(cfg, "seq") && (int_of(cfg, "seq", 1, 1e7, &v) != 1 || v != 1))
            return "decode of more than one token per sequence is not modelled";
        run_len = rc->context + 1;
        break;
    }
    if (encoder) {
        if (rc->mode == RIDGE_MODE_TRAIN) {
            /* Fine-tuning: pooler and classifier with cross-entropy on the first token. */
            if (!classifier_head(rj_str_or_null(cfg, "head"), &a.classes))
                return "encoder training head not recorded or not 'pooler + classifier(N)'";
            a.pooler = 1;
        } else if (has(cfg, "output") && !eq(rj_str_or_null(cfg, "output"), "sequence_output")) {
            return "encoder inference output other than the sequence output is not modelled";
        } else {
            /* The sequence output: the encoder alone, no pooler or classifier. Without classes a
             * ridge text encoder counts BERT's masked-LM head in its parameters (never built in
             * inference); tied, that is d^2 + 3d + V, where the torch module holds its unused
             * pooler and classifier instead. */
            a.tied = 1;
        }
    } else if (rc->mode != RIDGE_MODE_TRAIN && !eq(logits, "last position only")) {
        /* ridge's LM head outside training computes the last position's logits. */
        return "decoder inference with logits not recorded as 'last position only' is not modelled";
    }
    if (impl && strstr(impl, "math fallback"))
        rc->unfused_attention = 1; /* PyTorch < 2.0: matmul, softmax, matmul */
    if (a.max_pos == 0)
        a.max_pos = run_len; /* rotary or no positions: only the default sequence length */

    model_name(wl, layers_run, a.layers, name, sizeof name);
    snprintf(desc, sizeof desc,
             "%s as the PyTorch script built it: %.0f of %.0f layers, hidden %.0f, %.0f heads (%.0f KV), MLP %.0f "
             "(%s), %s, %s positions%s",
             encoder ? "encoder" : "decoder", layers_run, a.layers, a.d, a.heads, a.kv_heads, a.ffn, a.act, a.norm,
             a.pos,
             encoder ? (rc->mode == RIDGE_MODE_TRAIN ? "; pooler + classifier head" : "; sequence output")
                     : (a.tied ? "; tied LM head" : "; untied LM head"));
    if (!(root = new_doc(name, "transformer", desc, &arch)))
        return "out of memory";
    cJSON_AddNumberToObject(arch, "d_model", a.d);
    cJSON_AddNumberToObject(arch, "layers", layers_run);
    cJSON_AddNumberToObject(arch, "heads", a.heads);
    cJSON_AddNumberToObject(arch, "kv_heads", a.kv_heads);
    cJSON_AddNumberToObject(arch, "ffn", a.ffn);
    cJSON_AddNumberToObject(arch, "vocab", a.vocab);
    cJSON_AddNumberToObject(arch, "max_seq", a.max_pos);
    cJSON_AddStringToObject(arch, "ffn_act", a.act);
    cJSON_AddStringToObject(arch, "norm", a.norm);
    cJSON_AddStringToObject(arch, "position", a.pos);
    cJSON_AddBoolToObject(arch, "encoder", encoder);
    cJSON_AddBoolToObject(arch, "tied_embeddings", a.tied);
    cJSON_AddBoolToObject(arch, "bias", a.bias);
    cJSON_AddBoolToObject(arch, "dropout", a.dropout);
    cJSON_AddBoolToObject(arch, "fused_qkv", a.fused_qkv);
    cJSON_AddBoolToObject(arch, "fused_gate_up", a.fused_gate_up);
    cJSON_AddStringToObject(arch, "norm_impl", a.norm_impl);
    if (eq(a.pos, "rope"))
        cJSON_AddStringToObject(arch, "rope_impl", a.rope_impl);
    /* Grouped-query attention as the run did it: "repeat_kv" copies K and V out to every query
     * head first (Hugging Face style); otherwise the kernel reads the shared heads in place. */
    if (a.kv_heads < a.heads) {
        const char *gqa = rj_str_or_null(cfg, "gqa_impl");
        cJSON_AddStringToObject(arch, "gqa_impl", gqa && strstr(gqa, "repeat_kv") ? "repeat" : "grouped");
    }
    if (encoder) {
        cJSON_AddBoolToObject(arch, "pooler", a.pooler);
        if (a.classes > 0)
            cJSON_AddNumberToObject(arch, "classes", a.classes);
    }
    return parse_doc(root, name, model);
}

/* ------------------------------------------------------------------ entry point */

static const char *map(const cJSON *cfg, ridge_model **model, ridge_run_config *rc, ridge_runtime *rt)
{
    const cJSON *wl;
    const char *family, *s, *why;
    double layers_run = 0;
    tm_family fam;
    if (!cJSON_IsObject(cfg))
        return "config is not an object";
    wl = item(cfg, "workload");
    if (cJSON_IsString(wl))
        return "workload is a preset id, not hyper-parameters";
    if (!cJSON_IsObject(wl))
        return "no workload hyper-parameters in config";
    family = rj_str_or_null(wl, "family");
    if (!family)
        return "torch workload without a family";
    if (eq(family, "cnn"))
        fam = TM_CNN;
    else if (eq(family, "transformer_encoder"))
        fam = TM_ENCODER;
    else if (eq(family, "transformer_decoder"))
        fam = TM_DECODER;
    else if (eq(family, "rnn"))
        fam = TM_RNN;
    else
        return "unknown torch workload family";
    if (has(cfg, "device") && !starts_with(rj_str_or_null(cfg, "device"), "cuda"))
        return "not measured on a CUDA device";
    if (has(cfg, "precision_effective"))
        return "precision substituted on the CPU (precision_effective)";
    s = rj_str_or_null(cfg, "mode");
    if (!s || ridge_mode_parse(s, &rc->mode))
        return "mode missing or not train, infer, prefill or decode";
    if (int_of(cfg, "batch", 1, 1e7, &rc->batch) != 1)
        return "batch missing or not an integer in [1, 1e7]";
    s = rj_str_or_null(cfg, "runtime");
    if (!s || ridge_runtime_parse(s, rt))
        return "runtime missing or not eager or graph";
    if (int_of(cfg, "layers_run", 1, 1e5, &layers_run) != 1)
        return "layers_run missing or not a positive integer";
    if ((why = map_precision(cfg, fam, rc)))
        return why;
    if (rc->mode == RIDGE_MODE_TRAIN && (why = map_optimizer(cfg, rc)))
        return why;
    switch (fam) {
    case TM_CNN: return map_cnn(cfg, wl, layers_run, model, rc);
    case TM_RNN: return map_rnn(cfg, wl, layers_run, model, rc);
    case TM_ENCODER:
    case TM_DECODER: return map_transformer(cfg, wl, fam, layers_run, model, rc);
    }
    return "unknown torch workload family";
}

const char *ridge_torch_map_config(const cJSON *cfg, ridge_model **model, ridge_run_config *rc, ridge_runtime *rt)
{
    const char *why;
    ridge_memory mem;
    if (model)
        *model = NULL;
    if (rc)
        ridge_run_config_init(rc);
    if (rt)
        *rt = RIDGE_RUNTIME_EAGER;
    if (!model || !rc || !rt)
        return "nothing to map into";
    why = map(cfg, model, rc, rt);
    /* A run ridge refuses (a sequence beyond the learned positions, ...) is a skip, not an error
     * later in the prediction. */
    if (!why && ridge_model_memory(*model, rc, &mem, NULL) != RIDGE_OK)
        why = "ridge refuses the mapped run (mode or sizes)";
    if (why) {
        ridge_model_free(*model);
        *model = NULL;
        ridge_run_config_init(rc);
        *rt = RIDGE_RUNTIME_EAGER;
    }
    return why;
}

const char *ridge_torch_map(const char *cfg_json, size_t len, ridge_model **model, ridge_run_config *rc,
                            ridge_runtime *rt)
{
    cJSON *cfg = cfg_json ? cJSON_ParseWithLength(cfg_json, len) : NULL;
    const char *why = ridge_torch_map_config(cfg, model, rc, rt);
    cJSON_Delete(cfg);
    return why;
}
