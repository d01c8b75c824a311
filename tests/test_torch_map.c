/* cli/torch_map.c: PyTorch end-to-end measurement configs (validation/torch/wl_NAME.py) mapped to ridge
 * models and runs. The measurements are tests/data/validate/torch-e2e-sample.json (configs exactly
 * as the scripts write them; times arbitrary); expected parameter counts are computed here by hand
 * from the hyper-parameters, for the network that ran.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "check_oplist.h"
#include "ridge/torch_map.h"

/* ---------------------------------------------------------------- parameter counts by hand */

/* Llama-style decoder (wl_llama.py): embedding, L layers (q, k, v, o; SwiGLU w1, w3, w2; two
 * RMSNorms), final RMSNorm, untied lm_head. */
static double llama_params(double L)
{
    const double V = 32000, d = 4096, h = 32, kv = 8, hd = 128, f = 14336;
    double layer = d * h * hd + 2 * d * kv * hd + h * hd * d + 3 * d * f + 2 * d;
    return V * d + L * layer + d + d * V;
}

/* GPT-2 124M (wl_gpt2.py): wte, wpe, 12 pre-LN layers with biases, ln_f, lm_head tied. */
static double gpt2_params(void)
{
    const double V = 50257, n_ctx = 1024, d = 768, f = 3072, L = 12;
    double layer = 2 * d + (d * 3 * d + 3 * d) + (d * d + d) + 2 * d + (d * f + f) + (f * d + d);
    return V * d + n_ctx * d + L * layer + 2 * d;
}

/* BERT layer as nn.TransformerEncoderLayer holds it: in_proj (3d x d + 3d), out_proj, two
 * linears, two LayerNorms. */
static double bert_layer(double d, double f)
{
    return (3 * d * d + 3 * d) + (d * d + d) + (d * f + f) + (f * d + d) + 2 * 2 * d;
}

/* The torch module of wl_bert.py: tok, pos (512), type (2) embeddings, embedding LayerNorm, the
 * layers, pooler, classifier(2). */
static double bert_torch_module(double d, double f, double L)
{
    const double V = 30522;
    return V * d + 512 * d + 2 * d + 2 * d + L * bert_layer(d, f) + (d * d + d) + (d * 2 + 2);
}

/* ridge leaves out the 2 token-type rows (docs/workloads.md). Fine-tuning: exactly the module
 * otherwise. Inference (sequence output): no pooler or classifier, but a ridge text encoder
 * without classes counts BERT's tied masked-LM head (d^2 + 3d + V), which is not built in
 * inference. */
static double bert_ridge_train(double d, double f, double L)
{
    return bert_torch_module(d, f, L) - 2 * d;
}
static double bert_ridge_infer(double d, double f, double L)
{
    const double V = 30522;
    return bert_torch_module(d, f, L) - 2 * d - (d * d + d) - (2 * d + 2) + (d * d + 3 * d + V);
}

static double lstm_params(double in, double h, double L)
{
    return 4 * h * (in + h) + 8 * h + (L - 1) * (4 * h * 2 * h + 8 * h);
}

/* ---------------------------------------------------------------- expectations per measurement */

typedef struct {
    const char *id;
    const char *reason; /* NULL: mapped; else a substring of the skip reason */
    const char *family; /* ridge family */
    ridge_mode mode;
    double batch, seq, image, prompt, context;
    ridge_dtype precision;
    ridge_runtime runtime;
    ridge_optimizer optimizer; /* train only */
    double params;             /* expected ridge_model_params_for */
    double layers;             /* transformers: qkv_proj (q_proj) count (layers in the graph); 0: not checked */
    double head_rows;          /* decoders: rows of the lm_head GEMM; 0: not checked */
    int has_pooler;            /* encoders: a pooler op in the graph */
} expect_t;

#define TRAIN RIDGE_MODE_TRAIN
#define INFER RIDGE_MODE_INFER
#define PREFILL RIDGE_MODE_PREFILL
#define DECODE RIDGE_MODE_DECODE
#define EAGER RIDGE_RUNTIME_EAGER
#define GRAPH RIDGE_RUNTIME_GRAPH
#define SGD RIDGE_OPTIMIZER_SGD
#define ADAMW RIDGE_OPTIMIZER_ADAMW

static expect_t expectations[32];
static size_t n_expect;

static void build_expectations(void)
{
    const expect_t e[] = {
        {"torch/resnet50/train/bf16/b64/eager", NULL, "cnn", TRAIN, 64, 0, 224, 0, 0, RIDGE_DTYPE_BF16, EAGER, SGD,
         25557032, 0, 0, 0},
        {"torch/resnet50/infer/fp16/b256/graph", NULL, "cnn", INFER, 256, 0, 224, 0, 0, RIDGE_DTYPE_FP16, GRAPH, SGD,
         25557032, 0, 0, 0},
        {"torch/bert-base/infer/bf16/b32_s128/graph", NULL, "transformer", INFER, 32, 128, 0, 0, 0, RIDGE_DTYPE_BF16,
         GRAPH, SGD, bert_ridge_infer(768, 3072, 12), 12, 0, 0},
        {"torch/bert-large/infer/bf16/b32_s512/eager", NULL, "transformer", INFER, 32, 512, 0, 0, 0,
         RIDGE_DTYPE_BF16, EAGER, SGD, bert_ridge_infer(1024, 4096, 24), 24, 0, 0},
        {"torch/bert-base/train/bf16/b32_s128/eager", NULL, "transformer", TRAIN, 32, 128, 0, 0, 0, RIDGE_DTYPE_BF16,
         EAGER, ADAMW, bert_ridge_train(768, 3072, 12), 12, 0, 1},
        {"torch/bert-large/train/bf16/b8_s512/eager", NULL, "transformer", TRAIN, 8, 512, 0, 0, 0, RIDGE_DTYPE_BF16,
         EAGER, ADAMW, bert_ridge_train(1024, 4096, 24), 24, 0, 1},
        {"torch/gpt2-124m/train/bf16/b8_s1024/graph", NULL, "transformer", TRAIN, 8, 1024, 0, 0, 0,
         RIDGE_DTYPE_BF16, GRAPH, ADAMW, gpt2_params(), 12, 8 * 1024, 0},
        {"torch/llama-7b-gqa-shape/L2/prefill/bf16/b1_p512/eager", NULL, "transformer", PREFILL, 1, 0, 0, 512, 0,
         RIDGE_DTYPE_BF16, EAGER, SGD, llama_params(2), 2, 1, 0},
        {"torch/llama-7b-gqa-shape/L2/prefill/bf16/b8_p512/graph", NULL, "transformer", PREFILL, 8, 0, 0, 512, 0,
         RIDGE_DTYPE_BF16, GRAPH, SGD, llama_params(2), 2, 8, 0},
        {"torch/llama-7b-gqa-shape/L4/decode/bf16/b8_c2048/graph", NULL, "transformer", DECODE, 8, 0, 0, 0, 2048,
         RIDGE_DTYPE_BF16, GRAPH, SGD, llama_params(4), 4, 8, 0},
        {"torch/llama-7b-gqa-shape/L2/decode/bf16/b1_c512/eager", NULL, "transformer", DECODE, 1, 0, 0, 0, 512,
         RIDGE_DTYPE_BF16, EAGER, SGD, llama_params(2), 2, 1, 0},
        /* fp32 LSTMs: cuDNN with torch.backends.cudnn.allow_tf32 (recorded tf32_cudnn: true) */
        {"torch/lstm-2x1024/infer/fp32/b64_s128/eager", NULL, "rnn", INFER, 64, 128, 0, 0, 0, RIDGE_DTYPE_TF32, EAGER,
         SGD, lstm_params(1024, 1024, 2), 0, 0, 0},
        {"torch/lstm-2x1024/infer/fp16/b64_s128/graph", NULL, "rnn", INFER, 64, 128, 0, 0, 0, RIDGE_DTYPE_FP16, GRAPH,
         SGD, lstm_params(1024, 1024, 2), 0, 0, 0},
        {"torch/lstm-2x1024/train/fp32/b64_s128/eager", NULL, "rnn", TRAIN, 64, 128, 0, 0, 0, RIDGE_DTYPE_TF32, EAGER,
         SGD, lstm_params(1024, 1024, 2), 0, 0, 0},
        {"torch/lstm-2x1024/train/fp16/b64_s128/eager", NULL, "rnn", TRAIN, 64, 128, 0, 0, 0, RIDGE_DTYPE_FP16, EAGER,
         SGD, lstm_params(1024, 1024, 2), 0, 0, 0},
        {"torch/malformed/unknown-family/eager", "unknown torch workload family", NULL, TRAIN, 0, 0, 0, 0, 0,
         RIDGE_DTYPE_BF16, EAGER, SGD, 0, 0, 0, 0},
        {"torch/malformed/batch-is-a-string/eager", "batch", NULL, TRAIN, 0, 0, 0, 0, 0, RIDGE_DTYPE_BF16, EAGER, SGD,
         0, 0, 0, 0},
    };
    n_expect = sizeof e / sizeof e[0];
    if (!CHECK(n_expect <= sizeof expectations / sizeof expectations[0])) {
        n_expect = 0;
        return;
    }
    memcpy(expectations, e, sizeof e);
}

static const expect_t *expectation(const char *id)
{
    for (size_t i = 0; i < n_expect; i++)
        if (strcmp(expectations[i].id, id) == 0)
            return &expectations[i];
    return NULL;
}

/* ---------------------------------------------------------------- helpers */

static void check_graph(const ridge_model *m, const ridge_run_config *rc, const expect_t *e)
{
    ridge_oplist w;
    ridge_err err;
    const ridge_op *op;
    memset(&err, 0, sizeof err);
    if (!CHECK(ridge_model_build(m, rc, &w, &err) == RIDGE_OK)) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    if (e->layers > 0) {
        /* The Llama script holds q, k, v (and gate, up) in separate nn.Linear layers. */
        int separate = strstr(e->id, "llama") != NULL;
        op = check_find_op(&w, separate ? "q_proj" : "qkv_proj");
        if (CHECK(op != NULL))
            CHECK_NEAR(op->count, e->layers, 0);
        CHECK((check_find_op(&w, "gate_proj") != NULL) == separate);
    }
    if (e->head_rows > 0) {
        op = check_find_op(&w, "lm_head");
        if (CHECK(op != NULL))
            CHECK_NEAR(op->u.gemm.m, e->head_rows, 0);
    }
    if (strcmp(e->family, "transformer") == 0 && e->mode == INFER && e->layers > 0) {
        /* BERT's sequence output: no pooler, no masked-LM head in inference */
        CHECK(check_find_op(&w, "pooler") == NULL);
        CHECK(check_find_op(&w, "mlm_decoder") == NULL);
    }
    if (e->has_pooler) {
        CHECK(check_find_op(&w, "pooler") != NULL);
        op = check_find_op(&w, "classifier");
        if (CHECK(op != NULL))
            CHECK_NEAR(op->u.gemm.n, 2, 0); /* 2 classes */
        CHECK(check_find_op(&w, "mlm_decoder") == NULL);
    }
    if (e->mode == TRAIN)
        CHECK(check_find_op(&w, e->optimizer == ADAMW ? "adamw_foreach" : "sgd_foreach") != NULL);
    /* The Llama script's prefill copies K and V out to every head (repeat_kv); its decode reads
     * the cache in place; the other models have no grouped queries. */
    CHECK((check_find_op(&w, "repeat_k") != NULL) == (strstr(e->id, "llama") != NULL && e->mode == PREFILL));
    ridge_oplist_free(&w);
}

static void check_measurement(const cJSON *m)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(m, "config");
    const expect_t *e;
    ridge_model *model = (ridge_model *)&model; /* garbage the call must overwrite */
    ridge_run_config rc;
    ridge_runtime rt = GRAPH;
    const char *why;
    if (!CHECK(cJSON_IsString(id)))
        return;
    check_context(id->valuestring);
    e = expectation(id->valuestring);
    if (!CHECK(e != NULL))
        return;
    {
        char *text = cJSON_PrintUnformatted(cfg);
        why = ridge_torch_map(text, text ? strlen(text) : 0, &model, &rc, &rt);
        free(text);
    }
    if (e->reason) {
        if (CHECK(why != NULL))
            CHECK_STR_HAS(why, e->reason);
        CHECK(model == NULL);
        return;
    }
    if (!CHECK(why == NULL)) {
        fprintf(stderr, "  reason: %s\n", why);
        return;
    }
    if (!CHECK(model != NULL))
        return;
    CHECK_STR_EQ(ridge_model_family(model), e->family);
    CHECK_INT(rc.mode, e->mode);
    CHECK_NEAR(rc.batch, e->batch, 0);
    CHECK_NEAR(rc.seq, e->seq, 0);
    CHECK_NEAR(rc.image, e->image, 0);
    CHECK_NEAR(rc.prompt, e->prompt, 0);
    CHECK_NEAR(rc.context, e->context, 0);
    CHECK_INT(rc.precision, e->precision);
    /* Autocast over FP32 weights is ridge's --amp, in training as in inference. */
    {
        const cJSON *amp = cJSON_GetObjectItemCaseSensitive(cfg, "amp");
        const char *wdt = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cfg, "weights_dtype"));
        int autocast = cJSON_IsTrue(amp) && (!wdt || strcmp(wdt, "fp32") == 0) &&
                       e->precision != RIDGE_DTYPE_FP32 && e->precision != RIDGE_DTYPE_TF32;
        CHECK_INT(rc.amp, autocast);
    }
    CHECK_INT(rt, e->runtime);
    CHECK_INT(rc.recompute, RIDGE_RECOMPUTE_NONE);
    CHECK_INT(rc.unfused_attention, 0);
    if (e->mode == TRAIN) {
        CHECK_INT(rc.optimizer, e->optimizer);
        /* torch.optim's default multi-tensor path; the harness's AdamW is capturable */
        CHECK_INT(rc.optimizer_impl, e->optimizer == ADAMW ? RIDGE_OPT_IMPL_FOREACH_CAPTURABLE : RIDGE_OPT_IMPL_FOREACH);
    }
    CHECK_NEAR(ridge_model_params_for(model, &rc), e->params, 0);
    {
        /* The Llama script records the KV cache it allocated (layers_run layers, context + 1 or
         * prompt positions, bf16): ridge's KV cache of the same run is the same bytes. */
        const cJSON *kv = cJSON_GetObjectItemCaseSensitive(cfg, "kv_cache_bytes");
        ridge_memory mem;
        ridge_err err;
        memset(&err, 0, sizeof err);
        CHECK(ridge_model_memory(model, &rc, &mem, &err) == RIDGE_OK);
        if (cJSON_IsNumber(kv))
            CHECK_NEAR(mem.kv_cache_bytes, kv->valuedouble, 0);
    }
    check_graph(model, &rc, e);
    ridge_model_free(model);
}

/* ---------------------------------------------------------------- edge cases, built in place */

/* Map a config given as JSON text; returns the reason (NULL: mapped, the model freed). */
static const char *map_text(const char *json, double *params, ridge_run_config *rc_out)
{
    ridge_model *m = NULL;
    ridge_run_config rc;
    ridge_runtime rt;
    const char *why;
    why = ridge_torch_map(json, strlen(json), &m, &rc, &rt);
    if (!why && m) {
        if (params)
            *params = ridge_model_params_for(m, &rc);
        if (rc_out)
            *rc_out = rc;
    }
    if (why)
        CHECK(m == NULL);
    ridge_model_free(m);
    return why;
}

#define LLAMA_WL                                                                                               \
    "{\"family\":\"transformer_decoder\",\"name\":\"llama-7b-gqa-shape\",\"vocab\":32000,\"hidden\":4096,"    \
    "\"layers\":32,\"heads\":32,\"kv_heads\":8,\"head_dim\":128,\"ffn\":14336,\"activation\":\"swiglu\","     \
    "\"norm\":\"rmsnorm\",\"norm_eps\":1e-5,\"positional\":\"rope\",\"rope_theta\":10000.0,\"bias\":false,"  \
    "\"tied_embeddings\":false}"

static void edge_cases(void)
{
    static const struct {
        const char *what, *json, *reason;
    } bad[] = {
        {"null config", "null", "not an object"},
        {"config is an array", "[1,2]", "not an object"},
        {"no workload", "{\"mode\":\"infer\"}", "no workload"},
        {"preset id", "{\"workload\":\"resnet50\"}", "preset id"},
        {"family missing", "{\"workload\":{\"name\":\"x\"}}", "without a family"},
        {"family not a string", "{\"workload\":{\"family\":3}}", "without a family"},
        {"unknown family", "{\"workload\":{\"family\":\"gnn\"}}", "unknown torch workload family"},
        {"mode missing", "{\"workload\":" LLAMA_WL ",\"batch\":1,\"runtime\":\"eager\",\"layers_run\":2}", "mode"},
        {"mode unknown",
         "{\"workload\":" LLAMA_WL ",\"mode\":\"serve\",\"batch\":1,\"runtime\":\"eager\",\"layers_run\":2}", "mode"},
        {"batch fractional",
         "{\"workload\":" LLAMA_WL ",\"mode\":\"decode\",\"batch\":1.5,\"runtime\":\"eager\",\"layers_run\":2}",
         "batch"},
        {"batch zero", "{\"workload\":" LLAMA_WL ",\"mode\":\"decode\",\"batch\":0,\"runtime\":\"eager\"}", "batch"},
        {"runtime unknown",
         "{\"workload\":" LLAMA_WL ",\"mode\":\"decode\",\"batch\":1,\"runtime\":\"compile\",\"layers_run\":2}",
         "runtime"},
        {"layers_run missing",
         "{\"workload\":" LLAMA_WL ",\"mode\":\"decode\",\"batch\":1,\"runtime\":\"eager\",\"precision\":\"bf16\"}",
         "layers_run"},
        {"layers_run beyond the model",
         "{\"workload\":" LLAMA_WL ",\"mode\":\"decode\",\"batch\":1,\"runtime\":\"eager\",\"precision\":\"bf16\","
         "\"weights_dtype\":\"bf16\",\"layers_run\":33,\"context\":8,\"seq\":1,\"logits\":\"last position only\"}",
         "layers_run exceeds"},
        {"precision fp8",
         "{\"workload\":" LLAMA_WL ",\"mode\":\"decode\",\"batch\":1,\"runtime\":\"eager\",\"precision\":\"fp8\","
         "\"layers_run\":2,\"context\":8}",
         "precision"},
        {"cpu smoke run",
         "{\"workload\":" LLAMA_WL ",\"mode\":\"decode\",\"batch\":1,\"runtime\":\"eager\",\"precision\":\"bf16\","
         "\"layers_run\":2,\"context\":8,\"device\":\"cpu\"}",
         "CUDA"},
        {"decode without context",
         "{\"workload\":" LLAMA_WL ",\"mode\":\"decode\",\"batch\":1,\"runtime\":\"eager\",\"precision\":\"bf16\","
         "\"weights_dtype\":\"bf16\",\"layers_run\":2,\"logits\":\"last position only\"}",
         "context"},
        {"decode, logits of every position",
         "{\"workload\":" LLAMA_WL ",\"mode\":\"decode\",\"batch\":1,\"runtime\":\"eager\",\"precision\":\"bf16\","
         "\"weights_dtype\":\"bf16\",\"layers_run\":2,\"context\":8,\"logits\":\"all positions\"}",
         "logits"},
        {"prefill not from position 0",
         "{\"workload\":" LLAMA_WL ",\"mode\":\"prefill\",\"batch\":1,\"runtime\":\"eager\",\"precision\":\"bf16\","
         "\"weights_dtype\":\"bf16\",\"layers_run\":2,\"prompt\":64,\"seq\":64,\"context\":32,"
         "\"logits\":\"last position only\"}",
         "position 0"},
        {"pure bf16 training",
         "{\"workload\":" LLAMA_WL ",\"mode\":\"train\",\"batch\":1,\"seq\":64,\"runtime\":\"eager\","
         "\"precision\":\"bf16\",\"amp\":false,\"weights_dtype\":\"bf16\",\"layers_run\":2,"
         "\"optimizer\":\"AdamW(lr=1e-4)\"}",
         "master weights"},
        {"training without optimizer",
         "{\"workload\":" LLAMA_WL ",\"mode\":\"train\",\"batch\":1,\"seq\":64,\"runtime\":\"eager\","
         "\"precision\":\"bf16\",\"amp\":true,\"weights_dtype\":\"fp32\",\"layers_run\":2}",
         "optimizer"},
        {"Adagrad",
         "{\"workload\":" LLAMA_WL ",\"mode\":\"train\",\"batch\":1,\"seq\":64,\"runtime\":\"eager\","
         "\"precision\":\"bf16\",\"amp\":true,\"weights_dtype\":\"fp32\",\"layers_run\":2,"
         "\"optimizer\":\"Adagrad(lr=0.1)\"}",
         "optimizer"},
        {"hidden a string",
         "{\"workload\":{\"family\":\"transformer_decoder\",\"hidden\":\"4096\",\"layers\":2,\"heads\":32,"
         "\"ffn\":1,\"vocab\":5},\"mode\":\"decode\",\"batch\":1,\"runtime\":\"eager\",\"precision\":\"bf16\","
         "\"layers_run\":2,\"context\":8}",
         "hidden"},
        {"head_dim not hidden/heads",
         "{\"workload\":{\"family\":\"transformer_decoder\",\"hidden\":4096,\"layers\":2,\"heads\":32,"
         "\"head_dim\":64,\"ffn\":1,\"vocab\":5,\"activation\":\"swiglu\",\"norm\":\"rmsnorm\","
         "\"positional\":\"rope\"},\"mode\":\"decode\",\"batch\":1,\"runtime\":\"eager\",\"precision\":\"bf16\","
         "\"layers_run\":2,\"context\":8,\"logits\":\"last position only\"}",
         "head_dim"},
        {"kv_heads not dividing heads (ridge rejects the document)",
         "{\"workload\":{\"family\":\"transformer_decoder\",\"hidden\":4096,\"layers\":2,\"heads\":32,"
         "\"kv_heads\":5,\"ffn\":8,\"vocab\":5,\"activation\":\"swiglu\",\"norm\":\"rmsnorm\","
         "\"positional\":\"rope\"},\"mode\":\"decode\",\"batch\":1,\"runtime\":\"eager\",\"precision\":\"bf16\","
         "\"layers_run\":2,\"context\":8,\"logits\":\"last position only\"}",
         "rejects"},
        {"GPT-2 sequence beyond n_ctx (ridge refuses the run)",
         "{\"workload\":{\"family\":\"transformer_decoder\",\"name\":\"gpt2-124m\",\"vocab\":50257,\"n_ctx\":1024,"
         "\"hidden\":768,\"layers\":12,\"heads\":12,\"ffn\":3072,\"activation\":\"gelu_tanh\","
         "\"norm\":\"pre_layernorm\",\"bias\":true,\"tied_embeddings\":true,\"dropout\":0.0,"
         "\"positional\":\"learned\",\"attention\":\"multi_head_causal\"},\"mode\":\"train\",\"batch\":8,"
         "\"seq\":2048,\"precision\":\"bf16\",\"amp\":true,\"weights_dtype\":\"fp32\",\"layers_run\":12,"
         "\"runtime\":\"eager\",\"optimizer\":\"AdamW(lr=6e-4)\"}",
         "refuses"},
        {"encoder prefill",
         "{\"workload\":{\"family\":\"transformer_encoder\",\"name\":\"bert-base\",\"hidden\":768,\"layers\":12,"
         "\"heads\":12,\"ffn\":3072,\"vocab\":30522,\"max_position\":512,\"activation\":\"gelu\","
         "\"norm\":\"post_layernorm\",\"attention\":\"multi_head\",\"bias\":true},\"mode\":\"prefill\","
         "\"batch\":1,\"prompt\":128,\"precision\":\"bf16\",\"weights_dtype\":\"bf16\",\"layers_run\":12,"
         "\"runtime\":\"eager\"}",
         "encoder"},
        {"encoder training with an MLM head",
         "{\"workload\":{\"family\":\"transformer_encoder\",\"name\":\"bert-base\",\"hidden\":768,\"layers\":12,"
         "\"heads\":12,\"ffn\":3072,\"vocab\":30522,\"max_position\":512,\"activation\":\"gelu\","
         "\"norm\":\"post_layernorm\",\"attention\":\"multi_head\",\"bias\":true},\"mode\":\"train\","
         "\"batch\":1,\"seq\":128,\"precision\":\"bf16\",\"amp\":true,\"weights_dtype\":\"fp32\","
         "\"layers_run\":12,\"runtime\":\"eager\",\"optimizer\":\"AdamW(lr=1e-4)\",\"head\":\"masked LM\"}",
         "head"},
        {"ResNet-101",
         "{\"workload\":{\"family\":\"cnn\",\"name\":\"resnet101\",\"depth\":101,\"blocks\":[3,4,23,3]},"
         "\"mode\":\"infer\",\"batch\":1,\"image\":[3,224,224],\"precision\":\"fp16\",\"amp\":true,"
         "\"weights_dtype\":\"fp32\",\"layers_run\":101,\"runtime\":\"eager\"}",
         "ResNet-50"},
        {"ResNet-50 rectangular image",
         "{\"workload\":{\"family\":\"cnn\",\"name\":\"resnet50_v1.5\",\"depth\":50},\"mode\":\"infer\","
         "\"batch\":1,\"image\":[3,224,256],\"precision\":\"fp16\",\"amp\":true,\"weights_dtype\":\"fp32\","
         "\"layers_run\":50,\"runtime\":\"eager\"}",
         "image"},
        {"ResNet-50 image of strings",
         "{\"workload\":{\"family\":\"cnn\",\"name\":\"resnet50_v1.5\",\"depth\":50},\"mode\":\"infer\","
         "\"batch\":1,\"image\":[\"3\",\"a\"],\"precision\":\"fp16\",\"amp\":true,\"weights_dtype\":\"fp32\","
         "\"layers_run\":50,\"runtime\":\"eager\"}",
         "image"},
        {"ResNet-50 decode",
         "{\"workload\":{\"family\":\"cnn\",\"name\":\"resnet50_v1.5\",\"depth\":50},\"mode\":\"decode\","
         "\"batch\":1,\"image\":[3,224,224],\"precision\":\"fp16\",\"amp\":true,\"weights_dtype\":\"fp32\","
         "\"layers_run\":50,\"runtime\":\"eager\"}",
         "train or infer"},
        {"GRU",
         "{\"workload\":{\"family\":\"rnn\",\"cell\":\"gru\",\"layers\":2,\"input\":8,\"hidden\":8},"
         "\"mode\":\"infer\",\"batch\":1,\"seq\":4,\"precision\":\"fp32\",\"layers_run\":2,\"runtime\":\"eager\"}",
         "LSTM"},
        {"bidirectional LSTM",
         "{\"workload\":{\"family\":\"rnn\",\"cell\":\"lstm\",\"layers\":2,\"input\":8,\"hidden\":8,"
         "\"bidirectional\":true},\"mode\":\"infer\",\"batch\":1,\"seq\":4,\"precision\":\"fp32\","
         "\"layers_run\":2,\"runtime\":\"eager\"}",
         "bidirectional"},
        {"LSTM without seq",
         "{\"workload\":{\"family\":\"rnn\",\"cell\":\"lstm\",\"layers\":2,\"input\":8,\"hidden\":8},"
         "\"mode\":\"infer\",\"batch\":1,\"precision\":\"fp32\",\"layers_run\":2,\"runtime\":\"eager\"}",
         "seq"},
    };
    ridge_run_config rc;
    double p = 0;
    const char *why;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        check_context(bad[i].what);
        why = map_text(bad[i].json, NULL, NULL);
        if (CHECK(why != NULL))
            CHECK_STR_HAS(why, bad[i].reason);
    }

    /* NCHW (channels_last false) maps, with the layout carried over; NHWC is the default. */
    check_context("ResNet-50 NCHW");
    {
        static const char nchw[] =
            "{\"workload\":{\"family\":\"cnn\",\"name\":\"resnet50_v1.5\",\"depth\":50},\"mode\":\"infer\","
            "\"batch\":1,\"image\":[3,224,224],\"precision\":\"fp16\",\"amp\":true,\"weights_dtype\":\"fp32\","
            "\"layers_run\":50,\"runtime\":\"eager\",\"channels_last\":false}";
        ridge_run_config r;
        memset(&r, 0, sizeof r);
        why = map_text(nchw, NULL, &r);
        if (CHECK(why == NULL))
            CHECK_INT(r.nchw, 1);
    }

    /* NULL outputs: a reason, no crash. */
    check_context("NULL outputs");
    {
        ridge_model *m = NULL;
        ridge_run_config r;
        ridge_runtime t;
        CHECK(ridge_torch_map(NULL, 0, &m, &r, &t) != NULL);
        CHECK(m == NULL);
        CHECK(ridge_torch_map(NULL, 0, NULL, &r, &t) != NULL);
        CHECK(ridge_torch_map(NULL, 0, &m, NULL, &t) != NULL);
        CHECK(ridge_torch_map(NULL, 0, &m, &r, NULL) != NULL);
    }

    /* The --quick LSTM (input 128 != the lstm preset's 1024): a stack of the recorded shape. */
    check_context("quick LSTM 2x128 (own document, not the preset)");
    why = map_text("{\"workload\":{\"family\":\"rnn\",\"name\":\"lstm-2x128\",\"cell\":\"lstm\",\"layers\":2,"
                   "\"input\":128,\"hidden\":128,\"bidirectional\":false,\"bias\":true,"
                   "\"impl\":\"nn.LSTM (cuDNN)\"},\"mode\":\"infer\",\"batch\":4,\"seq\":16,\"precision\":\"fp16\","
                   "\"amp\":true,\"weights_dtype\":\"fp32\",\"layers_run\":2,\"runtime\":\"graph\","
                   "\"device\":\"cuda\",\"tf32_matmul\":false,\"tf32_cudnn\":true}",
                   &p, &rc);
    if (CHECK(why == NULL)) {
        CHECK_NEAR(p, lstm_params(128, 128, 2), 0);
        CHECK_NEAR(rc.hidden, 0, 0);
        CHECK_NEAR(rc.seq, 16, 0);
    }

    /* One layer of the LSTM stack through the preset's --layers. */
    check_context("LSTM 1 of 2 layers run (preset --layers 1)");
    why = map_text("{\"workload\":{\"family\":\"rnn\",\"cell\":\"lstm\",\"layers\":2,\"input\":1024,\"hidden\":1024},"
                   "\"mode\":\"infer\",\"batch\":64,\"seq\":128,\"precision\":\"fp32\",\"layers_run\":1,"
                   "\"runtime\":\"eager\",\"tf32_cudnn\":false}",
                   &p, &rc);
    if (CHECK(why == NULL)) {
        CHECK_NEAR(p, lstm_params(1024, 1024, 1), 0);
        CHECK_NEAR(rc.layers, 1, 0);
        CHECK_NEAR(rc.hidden, 1024, 0);
        CHECK_INT(rc.precision, RIDGE_DTYPE_FP32); /* tf32_cudnn false */
    }

    /* A transformer in fp32 follows the cuBLAS switch (tf32_matmul). */
    check_context("decoder fp32 with tf32_matmul");
    why = map_text("{\"workload\":" LLAMA_WL ",\"mode\":\"decode\",\"batch\":1,\"runtime\":\"eager\","
                   "\"precision\":\"fp32\",\"weights_dtype\":\"fp32\",\"layers_run\":1,\"context\":8,\"seq\":1,"
                   "\"prompt\":null,\"logits\":\"last position only\",\"tf32_matmul\":true,\"tf32_cudnn\":false,"
                   "\"attention_impl\":\"math fallback (matmul, softmax in fp32, matmul)\"}",
                   &p, &rc);
    if (CHECK(why == NULL)) {
        CHECK_INT(rc.precision, RIDGE_DTYPE_TF32);
        CHECK_INT(rc.unfused_attention, 1);
        CHECK_NEAR(p, llama_params(1), 0);
    }
    check_context(NULL);
}

int main(void)
{
    char *text = check_read_file(RIDGE_TEST_DATA_DIR "/validate/torch-e2e-sample.json");
    cJSON *root, *m;
    const cJSON *arr;
    size_t seen = 0;
    build_expectations();
    if (!CHECK(text != NULL))
        return check_report();
    root = cJSON_Parse(text);
    free(text);
    if (!CHECK(root != NULL))
        return check_report();
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "kind")), "ridge-measurements");
    arr = cJSON_GetObjectItemCaseSensitive(root, "measurements");
    cJSON_ArrayForEach(m, arr)
    {
        check_measurement(m);
        seen++;
    }
    check_context(NULL);
    CHECK_INT(seen, n_expect); /* every measurement of the file has its expectation, and back */
    cJSON_Delete(root);

    /* Sanity of the hand counts against published figures. */
    CHECK_NEAR(gpt2_params(), 124439808, 0);       /* GPT-2 small with the tied head */
    CHECK_NEAR(lstm_params(1024, 1024, 2), 16793600, 0);
    CHECK_NEAR(bert_torch_module(768, 3072, 12), 109483778, 0); /* HF BertForSequenceClassification, 2 labels */

    edge_cases();
    return check_report();
}
