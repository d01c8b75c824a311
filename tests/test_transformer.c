/* The transformer family (workloads/transformer.c; docs/workloads.md, "Transformers").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_oplist.h"
#include "ridge/gpu.h"
#include "ridge/kernel.h"
#include "ridge/schedule.h"
#include "ridge/workload.h"

static ridge_model *load(const char *id)
{
    ridge_model *m = NULL;
    ridge_err err;
    int rc = ridge_model_load(id, &m, &err);
    if (!CHECK(rc == RIDGE_OK))
        fprintf(stderr, "  %s: %s\n", id, err.msg);
    return m;
}

static ridge_run_config run(ridge_mode mode, double batch)
{
    ridge_run_config rc;
    ridge_run_config_init(&rc);
    rc.mode = mode;
    rc.batch = batch;
    return rc;
}

/* A training step of batch x seq in eager code `code`, under autocast when amp. */
static ridge_run_config amp_train(double batch, double seq, int amp, ridge_code code)
{
    ridge_run_config rc = run(RIDGE_MODE_TRAIN, batch);
    rc.seq = seq;
    rc.amp = amp;
    rc.code = code;
    return rc;
}

/* Sums over a built graph (count applied). */
typedef struct {
    double flops, matmul_flops, matmul_bytes, attn_fwd_flops, ops;
} graph_sums;

static int build(const ridge_model *m, const ridge_run_config *rc, ridge_oplist *ol)
{
    ridge_err err;
    int st = ridge_model_build(m, rc, ol, &err);
    if (!CHECK(st == RIDGE_OK))
        fprintf(stderr, "  build: %s\n", err.msg);
    return st;
}

static graph_sums sums(const ridge_oplist *ol)
{
    graph_sums s;
    memset(&s, 0, sizeof s);
    for (size_t i = 0; i < ol->n; i++) {
        const ridge_op *op = &ol->ops[i];
        double f = ridge_op_flops(op) * op->count;
        s.flops += f;
        s.ops += 1;
        if (op->kind == RIDGE_OP_GEMM || op->kind == RIDGE_OP_ATTENTION) {
            s.matmul_flops += f;
            s.matmul_bytes += ridge_op_min_bytes(op) * op->count;
        }
        if (op->kind == RIDGE_OP_ATTENTION)
            s.attn_fwd_flops += op->u.attn.pass == RIDGE_PASS_FWD_BWD ? f / 3.5 : f;
    }
    return s;
}

/* ---- parameter counts against the published figures (1 %) ---- */

static void test_param_counts(void)
{
    static const struct {
        const char *id;
        double published;
        const char *where;
    } rows[] = {
        {"bert-base", 110e6, "Devlin et al. 2019: 110M"},
        {"bert-large", 336e6, "released checkpoint: 336M (the paper rounds to 340M)"},
        {"vit-b16", 86e6, "Dosovitskiy et al. 2021, Table 1: 86M"},
        {"gpt2", 124e6, "openai/gpt-2: 124M"},
        {"gpt3-175b", 175.0e9, "Brown et al. 2020, Table 2.1: 175.0B"},
        {"llama2-7b", 6.74e9, "meta-llama/Llama-2-7b-hf: 6.74B"},
        {"llama2-13b", 13.0e9, "meta-llama/Llama-2-13b-hf: 13.0B"},
        {"llama2-70b", 69.0e9, "meta-llama/Llama-2-70b-hf: 69.0B"},
        {"llama3-8b", 8.03e9, "meta-llama/Meta-Llama-3-8B: 8.03B"},
        {"llama3-70b", 70.6e9, "meta-llama/Meta-Llama-3-70B: 70.6B"},
        {"llama3-405b", 405e9, "Llama 3 Herd, Table 3: 405B"},
        {"mixtral-8x7b", 46.7e9, "Jiang et al. 2024: 46.7B"},
        {"falcon-180b", 180e9, "tiiuae/falcon-180B: 180B (a rounded name; 178.6B counted)"},
        {"gpt-j-6b", 6053381344.0, "EleutherAI/gpt-j-6b model card: 6,053,381,344"},
        {"transformer-xl-base", 151e6, "Dai et al. 2019, Table 1: 151M"},
        {"transformer-xl-large", 257e6, "Dai et al. 2019, Table 1: 257M"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_model *m = load(rows[i].id);
        check_context(rows[i].where);
        if (m) {
            CHECK_NEAR(ridge_model_params(m), rows[i].published, 0.01);
            CHECK_STR_EQ(ridge_model_family(m), "transformer");
            CHECK_STR_EQ(ridge_model_name(m), rows[i].id);
        }
        ridge_model_free(m);
    }
    check_context(NULL);
    {
        /* Exact counts where the checkpoint's is known: Llama-2-7B 6,738,415,616. */
        ridge_model *m = load("llama2-7b");
        if (m)
            CHECK_NEAR(ridge_model_params(m), 6738415616.0, 1e-12);
        ridge_model_free(m);
        m = load("gpt2");
        if (m)
            CHECK_NEAR(ridge_model_params(m), 124439808.0, 1e-12);
        ridge_model_free(m);
        m = load("vit-b16"); /* timm vit_base_patch16_224 */
        if (m)
            CHECK_NEAR(ridge_model_params(m), 86567656.0, 1e-12);
        ridge_model_free(m);
    }
}

/* ---- FLOPs ---- */

/* Llama-2-7B, one training step of 2 x 4096 tokens. Hand-derived: N = non-embedding parameters
 * (the LM head is in N: untied), T = tokens, attention 12 L d s T halved by the causal mask
 * (exactly: pairs s (s + 1) / 2). The graph's GEMMs are exactly 6 (N - norm weights) T; its
 * attention is 3.5 x the forward (FlashAttention's backward recomputes QK^T) where the model
 * FLOPs count 3 x; the rest (norms, SiLU, RoPE, residual adds, loss, AdamW at 12 FLOPs per
 * parameter) is under 1 %. So graph / model is in [1, 1.03]. */
static void test_train_flops_decoder(void)
{
    ridge_model *m = load("llama2-7b");
    ridge_run_config rc = run(RIDGE_MODE_TRAIN, 2);
    ridge_oplist ol;
    const double d = 4096, L = 32, s = 4096, T = 2 * s, V = 32000;
    const double N = 6738415616.0 - V * d, norms = (2 * L + 1) * d;
    const double attn_fwd = L * 4 * 2 * d * s * (s + 1) / 2; /* 4 b h hd pairs, h hd = d */
    if (!m)
        return;
    check_context("llama2-7b train b2 s4096");
    CHECK_NEAR(ridge_model_flops(m, &rc), 6 * N * T + 3 * attn_fwd, 1e-12);
    CHECK_NEAR(ridge_model_flops(m, &rc), 6 * N * T + 12 * L * d * s * T / 2, 1e-3);
    if (build(m, &rc, &ol) == RIDGE_OK) {
        graph_sums g = sums(&ol);
        CHECK_NEAR(g.matmul_flops, 6 * (N - norms) * T + 3.5 * attn_fwd, 1e-12);
        CHECK(g.flops >= ridge_model_flops(m, &rc));
        CHECK(g.flops <= 1.03 * ridge_model_flops(m, &rc));
        CHECK_NEAR(ridge_model_items_per_step(m, &rc), T, 0);
        CHECK_STR_EQ(ridge_model_throughput_unit(m, &rc), "tokens/s");
        ridge_oplist_free(&ol);
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* Forward only: 2 N T + attention (4 L d s T, halved when causal). */
static void test_infer_flops(void)
{
    ridge_model *m = load("bert-base");
    ridge_run_config rc = run(RIDGE_MODE_INFER, 8);
    ridge_oplist ol;
    rc.seq = 128;
    if (m) {
        /* BERT-base: 12 layers of 7,087,872 parameters, the embedding LayerNorm (counted as the
         * final norm), the pooler (d x d on one token per sequence); not causal. */
        const double d = 768, L = 12, s = 128, T = 8 * s;
        const double expect = 2 * T * (L * 7087872 + 2 * d) + 4 * L * d * s * T + 2 * 8 * d * d;
        check_context("bert-base infer b8 s128");
        CHECK_NEAR(ridge_model_flops(m, &rc), expect, 1e-3);
        if (build(m, &rc, &ol) == RIDGE_OK) {
            graph_sums g = sums(&ol);
            CHECK(g.flops >= 0.995 * expect && g.flops <= 1.01 * expect);
            ridge_oplist_free(&ol);
        }
        CHECK_STR_EQ(ridge_model_throughput_unit(m, &rc), "sequences/s");
        CHECK_NEAR(ridge_model_items_per_step(m, &rc), 8, 0);
    }
    ridge_model_free(m);
    m = load("llama2-7b");
    rc = run(RIDGE_MODE_INFER, 2);
    rc.seq = 2048;
    if (m) {
        /* Decoder inference: logits only for the last token of each sequence. */
        const double d = 4096, L = 32, s = 2048, T = 2 * s, V = 32000;
        const double N = 6738415616.0 - 2 * V * d; /* without the embedding table and the LM head */
        const double expect = 2 * N * T + 2 * 2 * d * V + L * 4 * 2 * d * s * (s + 1) / 2;
        check_context("llama2-7b infer b2 s2048");
        CHECK_NEAR(ridge_model_flops(m, &rc), expect, 1e-9);
        if (build(m, &rc, &ol) == RIDGE_OK) {
            graph_sums g = sums(&ol);
            CHECK(g.flops >= expect && g.flops <= 1.01 * expect);
            ridge_oplist_free(&ol);
        }
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* ---- decode reads every weight and the KV cache from DRAM, even on a 96 MB L2 ---- */

static double dram_of(const ridge_gpu *g, const ridge_oplist *ol)
{
    double d = 0;
    for (size_t i = 0; i < ol->n; i++) {
        ridge_kernel_result r;
        ridge_err err;
        if (CHECK(ridge_kernel_predict(g, &ol->ops[i], &r, &err) == RIDGE_OK))
            d += r.dram_bytes * ol->ops[i].count;
    }
    return d;
}

/* m: llama2-7b; rc: its decode run at context 4096 (test_decode_bytes), here in fp8. */
static void test_cold_weights(const ridge_model *m, ridge_run_config rc)
{
    ridge_gpu l40s;
    ridge_err err;
    ridge_memory mem;
    ridge_oplist ol;
    rc.precision = RIDGE_DTYPE_FP8;
    if (!CHECK(ridge_catalog_load("l40s", &l40s, &err) == RIDGE_OK))
        return;
    CHECK(ridge_model_memory(m, &rc, &mem, &err) == RIDGE_OK);
    if (build(m, &rc, &ol) == RIDGE_OK) {
        double cold = 0, kv_old = mem.kv_cache_bytes * 4096.0 / 4097.0, hot;
        /* The embedding table (bf16: an 8-bit run keeps it and the LM head in 16-bit) is
         * gathered (one row, bf16 activations); the 65 RMSNorm weight vectors are read by the norm
         * kernels with the activations (not marked); the rest of the weights, the bf16 LM head
         * included, are read whole. */
        double table = 32000.0 * 4096 * 2, norms = 65.0 * 4096 * 1, row = 4096.0 * 2;
        for (size_t i = 0; i < ol.n; i++) {
            cold += ol.ops[i].cold_bytes * ol.ops[i].count;
            CHECK(ol.ops[i].cold_bytes == 0 || ol.ops[i].reuse_bytes >= mem.weights_bytes);
        }
        CHECK_NEAR(cold, mem.weights_bytes - table - norms + row + kv_old, 1e-9);
        /* Each projection (16.8 MB in fp8) fits the L40S's L2; only their reuse distance, the
         * whole step, decides: every weight and the old KV cache come from DRAM. */
        CHECK(dram_of(&l40s, &ol) >= cold);
        for (size_t i = 0; i < ol.n; i++)
            ol.ops[i].cold_bytes = ol.ops[i].reuse_bytes = 0;
        hot = dram_of(&l40s, &ol);
        CHECK(hot < 0.6 * cold); /* as steady-state op lists: the small projections stay in L2 */
        ridge_oplist_free(&ol);
    }
}

/* ---- decode: the bytes are the weights and the KV cache ---- */

static void test_decode_bytes(void)
{
    ridge_model *m = load("llama2-7b");
    ridge_run_config rc = run(RIDGE_MODE_DECODE, 1);
    ridge_oplist ol;
    ridge_memory mem;
    ridge_err err;
    rc.context = 4096;
    if (!m)
        return;
    check_context("llama2-7b decode b1 context 4096");
    CHECK(ridge_model_memory(m, &rc, &mem, &err) == RIDGE_OK);
    /* Hand-computed: weights 2 B x 6,738,415,616; KV cache 2 (K, V) x 32 layers x 32 heads x
     * 128 x 4097 tokens x 2 B = 2.15 GB; activations: one token's SwiGLU MLP (3 x 11008 x 2 B)
     * and its fp32 logits (32000 x 4 B); 768 MiB of workspace. */
    CHECK_NEAR(mem.weights_bytes, 13476831232.0, 1e-12);
    CHECK_NEAR(mem.kv_cache_bytes, 2.0 * 32 * 32 * 128 * 4097 * 2, 1e-12);
    CHECK_NEAR(mem.kv_cache_bytes, 2.15e9, 0.005);
    CHECK_NEAR(mem.activations_bytes, 3 * 11008 * 2 + 32000 * 4, 1e-12);
    CHECK_NEAR(mem.total_bytes, 13476831232.0 + 2148007936.0 + 194048 + 768.0 * 1048576, 1e-12);
    CHECK_NEAR(mem.gradients_bytes + mem.optimizer_bytes, 0, 0);
    if (build(m, &rc, &ol) == RIDGE_OK) {
        graph_sums g = sums(&ol);
        const ridge_op *at = check_find_op(&ol, "attention");
        CHECK_NEAR(g.matmul_bytes, mem.weights_bytes + mem.kv_cache_bytes, 0.05);
        if (CHECK(at != NULL)) {
            CHECK_NEAR(at->u.attn.q_len, 1, 0);
            CHECK_NEAR(at->u.attn.kv_len, 4097, 0);
        }
        CHECK(check_find_op(&ol, "kv_cache_write") != NULL);
        ridge_oplist_free(&ol);
    }
    CHECK_NEAR(ridge_model_items_per_step(m, &rc), 1, 0);
    /* Hugging Face's DynamicCache concatenates: K (and V) of the 4,096 cached tokens and the new
     * one copied into a new tensor, read once and written once: 2 x 4097 tokens x 32 heads x 128
     * x 2 B of traffic each; the torch style's index_copy_ moves the new token only. */
    for (int hf = 0; hf < 2; hf++) {
        ridge_run_config rk = rc;
        rk.code = hf ? RIDGE_CODE_HF : RIDGE_CODE_TORCH;
        if (build(m, &rk, &ol) == RIDGE_OK) {
            const ridge_op *k = check_find_op(&ol, "k_cache_write");
            if (CHECK(k != NULL))
                CHECK_NEAR(ridge_op_min_bytes(k), 2.0 * (hf ? 4097 : 1) * 32 * 128 * 2, 1e-12);
            ridge_oplist_free(&ol);
        }
    }
    test_cold_weights(m, rc);
    /* An empty cache: the new token attends to itself. */
    rc.context = 0;
    if (build(m, &rc, &ol) == RIDGE_OK) {
        const ridge_op *at = check_find_op(&ol, "attention");
        if (CHECK(at != NULL))
            CHECK_NEAR(at->u.attn.kv_len, 1, 0);
        ridge_oplist_free(&ol);
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* ---- optimizer implementations: bytes per parameter of the step's passes ---- */

static void test_optimizer_impls(void)
{
    static const struct {
        ridge_optimizer opt;
        int impl;
        const char *name;
        double bytes_per_param, passes;
    } rows[] = {
        {RIDGE_OPTIMIZER_ADAMW, RIDGE_OPT_IMPL_FOREACH, "adamw_foreach", 80, 8},
        {RIDGE_OPTIMIZER_ADAMW, RIDGE_OPT_IMPL_FOREACH_CAPTURABLE, "adamw_foreach", 88, 9},
        {RIDGE_OPTIMIZER_SGD, RIDGE_OPT_IMPL_FOREACH, "sgd_foreach", 44, 4},
        {RIDGE_OPTIMIZER_ADAMW, RIDGE_OPT_IMPL_FUSED, "adamw_step", 28, 0},
        {RIDGE_OPTIMIZER_SGD, RIDGE_OPT_IMPL_FUSED, "sgd_step", 20, 0},
        /* FusedLAMB: gradient norm 4, stage 1 28, tensor norms 8, stage 2 12 */
        {RIDGE_OPTIMIZER_LAMB, RIDGE_OPT_IMPL_FUSED, "lamb_step", 52, 0},
    };
    ridge_model *m = load("gpt2");
    if (!m)
        return;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_run_config rc = run(RIDGE_MODE_TRAIN, 2);
        ridge_oplist ol;
        const ridge_op *op;
        double p = ridge_model_params(m);
        rc.precision = RIDGE_DTYPE_BF16;
        rc.amp = 1; /* FP32 weights and gradients, as torch.optim sees them */
        rc.seq = 128;
        rc.optimizer = rows[i].opt;
        rc.optimizer_impl = rows[i].impl;
        check_context(ridge_optimizer_impl_name((ridge_optimizer_impl)rows[i].impl));
        if (build(m, &rc, &ol) != RIDGE_OK)
            continue;
        op = check_find_op(&ol, rows[i].name);
        if (CHECK(op != NULL)) {
            double bytes = ridge_op_min_bytes(op) * op->count;
            CHECK_NEAR(bytes / p, rows[i].bytes_per_param, 0.01);
            /* 124 M parameters in 148 tensors: 6 launches of 21 M values per pass */
            if (rows[i].passes > 0)
                CHECK_NEAR(op->count, 6 * rows[i].passes, 0);
        }
        ridge_oplist_free(&ol);
    }
    {
        /* LAMB in mixed precision (16-bit gradients, the 16-bit weight copy): 50 B per parameter in
         * four passes of ceil(124 M / 5e7) kernels; m and v in memory as AdamW's; fused only */
        ridge_run_config rc = run(RIDGE_MODE_TRAIN, 2), adam;
        ridge_oplist ol;
        ridge_memory ml, ma;
        ridge_err err;
        const ridge_op *op;
        rc.seq = 128;
        rc.optimizer = RIDGE_OPTIMIZER_LAMB;
        adam = rc;
        adam.optimizer = RIDGE_OPTIMIZER_ADAMW;
        check_context("lamb mixed");
        if (build(m, &rc, &ol) == RIDGE_OK) {
            if (CHECK((op = check_find_op(&ol, "lamb_step")) != NULL)) {
                CHECK_NEAR(ridge_op_min_bytes(op) * op->count / ridge_model_params(m), 50, 0.01);
                CHECK_NEAR(op->count, 10, 0);
            }
            CHECK(check_find_op(&ol, "adamw_step") == NULL);
            ridge_oplist_free(&ol);
        }
        if (CHECK(ridge_model_memory(m, &rc, &ml, &err) == RIDGE_OK) && CHECK(ridge_model_memory(m, &adam, &ma, &err) == RIDGE_OK))
            CHECK_NEAR(ml.optimizer_bytes, ma.optimizer_bytes, 0);
        rc.optimizer_impl = RIDGE_OPT_IMPL_FOREACH;
        CHECK(ridge_model_build(m, &rc, &ol, &err) == RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "run.optimizer lamb: modelled as apex's FusedLAMB only");
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* ---- the loss runs in FP32: 16-bit logits are cast up, and the gradient back ---- */

static void test_loss_upcast(void)
{
    ridge_model *m = load("gpt2");
    ridge_run_config rc = run(RIDGE_MODE_TRAIN, 2);
    ridge_oplist ol;
    if (!m)
        return;
    rc.seq = 256;
    rc.precision = RIDGE_DTYPE_BF16;
    if (build(m, &rc, &ol) == RIDGE_OK) {
        const ridge_op *up = check_find_op(&ol, "logits_to_fp32"), *down = check_find_op(&ol, "logits_to_fp32.bwd");
        double cells = 2.0 * 256 * 50257; /* tokens x vocabulary */
        if (CHECK(up != NULL && down != NULL)) {
            CHECK_NEAR(up->u.custom.bytes, cells * (2 + 4), 1e-12);
            CHECK_NEAR(down->u.custom.bytes, cells * (2 + 4), 1e-12);
        }
        ridge_oplist_free(&ol);
    }
    rc.precision = RIDGE_DTYPE_FP32; /* already FP32: nothing to cast */
    if (build(m, &rc, &ol) == RIDGE_OK) {
        CHECK(check_find_op(&ol, "logits_to_fp32") == NULL);
        CHECK(check_find_op(&ol, "cross_entropy") != NULL);
        ridge_oplist_free(&ol);
    }
    ridge_model_free(m);
}

/* ---- a linear layer's weight gradient reads dY transposed: its alignment is the output width ---- */

static void test_wgrad_layout(void)
{
    ridge_model *m = load("gpt2");
    ridge_run_config rc = run(RIDGE_MODE_TRAIN, 8);
    ridge_oplist ol;
    ridge_gpu g;
    ridge_err err;
    memset(&g, 0, sizeof g);
    if (!m || !CHECK(ridge_catalog_load("h200-sxm-141gb", &g, &err) == RIDGE_OK))
        goto out;
    rc.seq = 1024;
    rc.precision = RIDGE_DTYPE_BF16;
    rc.amp = 1;
    if (build(m, &rc, &ol) == RIDGE_OK) {
        const ridge_op *w = check_find_op(&ol, "lm_head.wgrad"), *d = check_find_op(&ol, "lm_head.dgrad");
        const ridge_op *qw = check_find_op(&ol, "qkv_proj.wgrad");
        if (CHECK(w != NULL && d != NULL && qw != NULL)) {
            ridge_op nn = *w;
            ridge_kernel_result rw, rn, rd;
            CHECK(w->u.gemm.layout == RIDGE_LAYOUT_TN && qw->u.gemm.layout == RIDGE_LAYOUT_TN);
            nn.u.gemm.layout = RIDGE_LAYOUT_NN;
            if (CHECK(ridge_kernel_predict(&g, w, &rw, &err) == RIDGE_OK &&
                      ridge_kernel_predict(&g, &nn, &rn, &err) == RIDGE_OK &&
                      ridge_kernel_predict(&g, d, &rd, &err) == RIDGE_OK)) {
                /* 50,257 columns: dY's rows are not 16-byte multiples, so the wgrad loses the TMA
                 * path as the dgrad (which reads the same dY) does; the same GEMM read as if
                 * aligned is several times faster. */
                CHECK(rw.align_efficiency < 1 && rn.align_efficiency == 1);
                CHECK(rw.time_s > 3 * rn.time_s);
                CHECK(rw.time_s > 0.5 * rd.time_s && rw.time_s < 2 * rd.time_s);
            }
        }
        ridge_oplist_free(&ol);
    }
out:
    ridge_model_free(m);
}

/* ---- grouped-query attention shrinks the KV cache by heads / kv_heads ---- */

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

#define LLAMA3_ARCH_MHA                                                                                           \
    "{\"schema_version\":1,\"name\":\"llama3-8b-mha\",\"family\":\"transformer\",\"arch\":{\"d_model\":4096,"     \
    "\"layers\":32,\"heads\":32,\"kv_heads\":32,\"ffn\":14336,\"vocab\":128256,\"max_seq\":8192,"                 \
    "\"ffn_act\":\"swiglu\",\"norm\":\"rmsnorm\",\"position\":\"rope\"}}"

static void test_gqa(void)
{
    const char *path = "test_transformer_mha.json";
    ridge_model *gqa = load("llama3-8b"), *mha = NULL;
    ridge_memory a, b;
    ridge_err err;
    ridge_run_config rc = run(RIDGE_MODE_DECODE, 4);
    rc.context = 2047;
    if (!CHECK(write_file(path, LLAMA3_ARCH_MHA) == 0))
        return;
    mha = load(path);
    if (gqa && mha) {
        ridge_oplist o1, o2;
        CHECK(ridge_model_memory(gqa, &rc, &a, &err) == RIDGE_OK);
        CHECK(ridge_model_memory(mha, &rc, &b, &err) == RIDGE_OK);
        CHECK_NEAR(b.kv_cache_bytes / a.kv_cache_bytes, 32.0 / 8.0, 1e-12);
        CHECK_NEAR(a.kv_cache_bytes, 2.0 * 32 * 8 * 128 * 2048 * 4 * 2, 1e-12);
        /* and so does the attention kernel's DRAM traffic (the K, V read) */
        if (build(gqa, &rc, &o1) == RIDGE_OK) {
            if (build(mha, &rc, &o2) == RIDGE_OK) {
                const ridge_op *x = check_find_op(&o1, "attention"), *y = check_find_op(&o2, "attention");
                if (CHECK(x && y))
                    CHECK_NEAR(ridge_op_min_bytes(y) / ridge_op_min_bytes(x), 4.0, 0.01);
                ridge_oplist_free(&o2);
            }
            ridge_oplist_free(&o1);
        }
        /* prefill: kv_len = prompt */
        rc = run(RIDGE_MODE_PREFILL, 2);
        rc.prompt = 1000;
        CHECK(ridge_model_memory(gqa, &rc, &a, &err) == RIDGE_OK);
        CHECK_NEAR(a.kv_cache_bytes, 2.0 * 32 * 8 * 128 * 1000 * 2 * 2, 1e-12);
    }
    ridge_model_free(gqa);
    ridge_model_free(mha);
    remove(path);
}

/* ---- mixture of experts ---- */

static void test_moe(void)
{
    ridge_model *m = load("mixtral-8x7b");
    ridge_run_config rc = run(RIDGE_MODE_TRAIN, 1);
    ridge_oplist ol;
    const double d = 4096, ffn = 14336, L = 32;
    rc.seq = 4096;
    if (!m)
        return;
    check_context("mixtral train b1 s4096");
    if (build(m, &rc, &ol) == RIDGE_OK) {
        double expert = 0, experts_seen = 0;
        for (size_t i = 0; i < ol.n; i++)
            if (strncmp(ol.ops[i].name, "expert_", 7) == 0 && ol.ops[i].kind == RIDGE_OP_GEMM) {
                expert += ridge_op_flops(&ol.ops[i]) * ol.ops[i].count;
                if (strcmp(ol.ops[i].name, "expert_gate_up") == 0) {
                    CHECK_NEAR(ol.ops[i].u.gemm.m, 4096.0 * 2 / 8, 0); /* tokens x top_k / experts */
                    experts_seen = ol.ops[i].count;
                }
            }
        /* fwd + dgrad + wgrad of (gate_up + down) on tokens x top_k rows */
        CHECK_NEAR(expert, 3 * 2 * (4096.0 * 2) * (3 * d * ffn) * L, 1e-12);
        CHECK_NEAR(experts_seen, 8 * L, 0);
        ridge_oplist_free(&ol);
    }
    /* Active parameters: one token's forward is 2 FLOPs per active parameter outside the
     * embedding table; with the table (32000 x 4096) that is the published 12.9B. */
    rc = run(RIDGE_MODE_INFER, 1);
    rc.seq = 1;
    check_context("mixtral active parameters");
    CHECK_NEAR(ridge_model_flops(m, &rc) / 2 + 32000.0 * 4096, 12.9e9, 0.01);
    /* Decode of one token touches top_k = 2 experts per layer. */
    rc = run(RIDGE_MODE_DECODE, 1);
    rc.context = 100;
    check_context("mixtral decode b1");
    if (build(m, &rc, &ol) == RIDGE_OK) {
        const ridge_op *e = check_find_op(&ol, "expert_down");
        if (CHECK(e != NULL)) {
            CHECK_NEAR(e->count, 2 * L, 0);
            CHECK_NEAR(e->u.gemm.m, 1, 0);
        }
        ridge_oplist_free(&ol);
    }
    /* Uneven split: 3 tokens x top 2 = 6 rows over the experts 3 tokens touch. */
    rc.batch = 3;
    if (build(m, &rc, &ol) == RIDGE_OK) {
        double rows = 0;
        for (size_t i = 0; i < ol.n; i++)
            if (strncmp(ol.ops[i].name, "expert_down", 11) == 0)
                rows += ol.ops[i].u.gemm.m * ol.ops[i].count / L;
        CHECK_NEAR(rows, 6, 1e-12);
        ridge_oplist_free(&ol);
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* ---- training memory: Korthikanti et al. 2022 ---- */

static void test_train_memory(void)
{
    ridge_model *m = load("gpt3-175b");
    ridge_run_config rc = run(RIDGE_MODE_TRAIN, 1);
    ridge_memory mem, sel, full;
    ridge_err err;
    if (m) {
        /* GPT-3 (MHA, MLP 4h, GELU, dropout, 16-bit): 34 s b h bytes per layer without the
         * 5 a s^2 attention-matrix term (flash attention keeps none) but with its fp32
         * log-sum-exp (4 a s b), plus the final norm and LM-head inputs (2 x 2 s b h) and the
         * fp32 logits. */
        const double s = 2048, h = 12288, L = 96, V = 50257, per = 34 * h + 4 * 96;
        const double head = 2 * 2 * s * h + s * V * 4;
        check_context("gpt3-175b train b1 s2048");
        CHECK(ridge_model_memory(m, &rc, &mem, &err) == RIDGE_OK);
        CHECK_NEAR(mem.activations_bytes, L * s * per + head, 1e-12);
        rc.recompute = RIDGE_RECOMPUTE_SELECTIVE;
        CHECK(ridge_model_memory(m, &rc, &sel, &err) == RIDGE_OK);
        CHECK_NEAR(sel.activations_bytes, mem.activations_bytes, 0);
        rc.recompute = RIDGE_RECOMPUTE_FULL;
        CHECK(ridge_model_memory(m, &rc, &full, &err) == RIDGE_OK);
        CHECK_NEAR(full.activations_bytes, L * 2 * s * h + s * per + head, 1e-12);
        /* weights bf16, gradients bf16, AdamW m, v and the fp32 master: 2 + 2 + 12 B/param */
        CHECK_NEAR(mem.weights_bytes + mem.gradients_bytes + mem.optimizer_bytes, 16 * ridge_model_params(m), 1e-12);
    }
    ridge_model_free(m);
    m = load("llama2-7b");
    rc = run(RIDGE_MODE_TRAIN, 1);
    if (m) {
        /* SwiGLU, no dropout: per token and layer 2 (2d norms + d QKV in + 3d QKV + d out + d
         * MLP in + 3 ffn) + 4 heads (fp32 log-sum-exp). */
        const double s = 4096, d = 4096, L = 32, f = 11008, V = 32000;
        const double per = 2 * (8 * d + 3 * f) + 4 * 32;
        check_context("llama2-7b train b1 s4096");
        CHECK(ridge_model_memory(m, &rc, &mem, &err) == RIDGE_OK);
        CHECK_NEAR(mem.activations_bytes, L * s * per + 2 * 2 * s * d + s * V * 4, 1e-12);
        CHECK(mem.total_bytes > mem.weights_bytes);
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* ---- recompute adds forward work ---- */

static void test_recompute(void)
{
    ridge_model *m = load("llama2-13b");
    ridge_run_config rc = run(RIDGE_MODE_TRAIN, 1);
    ridge_oplist o0, o1, o2;
    rc.seq = 2048;
    if (!m)
        return;
    if (build(m, &rc, &o0) == RIDGE_OK) {
        graph_sums g0 = sums(&o0);
        rc.recompute = RIDGE_RECOMPUTE_SELECTIVE;
        if (build(m, &rc, &o1) == RIDGE_OK) {
            graph_sums g1 = sums(&o1);
            const ridge_op *r = check_find_op(&o1, "attention.recompute");
            if (CHECK(r != NULL)) {
                CHECK(r->u.attn.pass == RIDGE_PASS_FWD);
                CHECK_NEAR(r->count, 40, 0);
                CHECK_NEAR(g1.flops - g0.flops, ridge_op_flops(r) * 40, 1e-9);
            }
            ridge_oplist_free(&o1);
        }
        rc.recompute = RIDGE_RECOMPUTE_FULL;
        if (build(m, &rc, &o2) == RIDGE_OK) {
            graph_sums g2 = sums(&o2);
            ridge_run_config ri = run(RIDGE_MODE_INFER, 1);
            ridge_oplist oi;
            CHECK(check_find_op(&o2, "qkv_proj.recompute") != NULL);
            CHECK(check_find_op(&o2, "adamw_step.recompute") == NULL);
            /* exactly the layers' forward: the ops an inference graph runs `layers` times */
            ri.seq = 2048;
            if (build(m, &ri, &oi) == RIDGE_OK) {
                double layer_fwd = 0;
                for (size_t i = 0; i < oi.n; i++)
                    if (oi.ops[i].count == 40)
                        layer_fwd += ridge_op_flops(&oi.ops[i]) * oi.ops[i].count;
                CHECK_NEAR(g2.flops - g0.flops, layer_fwd, 1e-9);
                CHECK(layer_fwd > 0.3 * g0.flops && layer_fwd < 0.34 * g0.flops);
                ridge_oplist_free(&oi);
            }
            ridge_oplist_free(&o2);
        }
        ridge_oplist_free(&o0);
    }
    ridge_model_free(m);
}

/* A recomputed layer draws its dropout masks again: full recompute reruns the three dropouts'
 * forwards (the probabilities', the attention output's, the MLP output's), selective recompute
 * of unfused attention the probabilities' one, each as the forward's kernel without a backward. */
static void test_recompute_dropout(void)
{
    ridge_model *m = load("gpt2");
    ridge_run_config rc = run(RIDGE_MODE_TRAIN, 1);
    ridge_oplist o;
    static const char *const drops[] = {"attn_dropout", "attn_out_dropout", "mlp_out_dropout"};
    if (!m)
        return;
    rc.seq = 1024;
    rc.unfused_attention = 1;
    for (int r = 0; r < 2; r++) {
        rc.recompute = r ? RIDGE_RECOMPUTE_SELECTIVE : RIDGE_RECOMPUTE_FULL;
        if (build(m, &rc, &o) != RIDGE_OK)
            continue;
        for (int i = 0; i < 3; i++) {
            char nm[64];
            const ridge_op *f = check_find_op(&o, drops[i]), *re;
            snprintf(nm, sizeof nm, "%s.recompute", drops[i]);
            re = check_find_op(&o, nm);
            if (r && i > 0) {
                CHECK(re == NULL);
                continue;
            }
            if (CHECK(f != NULL) && CHECK(re != NULL)) {
                CHECK(re->kind == f->kind);
                CHECK_NEAR(re->count, f->count, 0);
                CHECK_NEAR(ridge_op_flops(re), ridge_op_flops(f), 1e-12);
            }
            snprintf(nm, sizeof nm, "%s.recompute.bwd", drops[i]);
            CHECK(check_find_op(&o, nm) == NULL);
        }
        ridge_oplist_free(&o);
    }
    ridge_model_free(m);
}

/* ---- Transformer-XL memory and vision transformers ---- */

static void test_xl_and_vit(void)
{
    ridge_model *m = load("transformer-xl-large");
    ridge_run_config rc = run(RIDGE_MODE_TRAIN, 4);
    ridge_oplist ol;
    ridge_memory mem;
    ridge_err err;
    if (m) {
        check_context("transformer-xl-large train b4");
        if (build(m, &rc, &ol) == RIDGE_OK) {
            const ridge_op *at = check_find_op(&ol, "attention"), *pp = check_find_op(&ol, "pos_proj");
            if (CHECK(at != NULL)) {
                CHECK_NEAR(at->u.attn.q_len, 384, 0);
                CHECK_NEAR(at->u.attn.kv_len, 384 + 384, 0);
                CHECK(at->u.attn.causal == 1);
            }
            if (CHECK(pp != NULL))
                CHECK_NEAR(pp->u.gemm.m, 768, 0);
            ridge_oplist_free(&ol);
        }
        CHECK(ridge_model_memory(m, &rc, &mem, &err) == RIDGE_OK);
        CHECK_NEAR(mem.kv_cache_bytes, 18.0 * 384 * 4 * 1024 * 2, 1e-12); /* the memory's hidden states */
        rc = run(RIDGE_MODE_DECODE, 1);
        rc.context = 100;
        CHECK(ridge_model_memory(m, &rc, &mem, &err) == RIDGE_OK);
        CHECK_NEAR(mem.kv_cache_bytes, 2.0 * 18 * 1024 * (100 + 1 + 384) * 2, 1e-12);
    }
    ridge_model_free(m);
    m = load("vit-b16");
    rc = run(RIDGE_MODE_TRAIN, 32);
    if (m) {
        check_context("vit-b16");
        CHECK_STR_EQ(ridge_model_throughput_unit(m, &rc), "images/s");
        CHECK_NEAR(ridge_model_items_per_step(m, &rc), 32, 0);
        if (build(m, &rc, &ol) == RIDGE_OK) {
            const ridge_op *at = check_find_op(&ol, "attention"), *pe = check_find_op(&ol, "patch_embed");
            if (CHECK(at != NULL)) {
                CHECK_NEAR(at->u.attn.q_len, 197, 0); /* 14 x 14 patches + the class token */
                CHECK(at->u.attn.causal == 0);
            }
            if (CHECK(pe != NULL))
                CHECK_NEAR(ridge_op_flops(pe), 2.0 * 32 * 196 * 768 * 3 * 16 * 16, 1e-12);
            CHECK(check_find_op(&ol, "patch_embed.wgrad") != NULL);
            ridge_oplist_free(&ol);
        }
        rc.image = 384;
        if (build(m, &rc, &ol) == RIDGE_OK) {
            const ridge_op *at = check_find_op(&ol, "attention");
            if (CHECK(at != NULL))
                CHECK_NEAR(at->u.attn.q_len, 24 * 24 + 1, 0);
            ridge_oplist_free(&ol);
        }
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* ---- errors: bad model files and bad runs ---- */

#define ARCH_HEAD "{\"schema_version\":1,\"name\":\"t\",\"family\":\"transformer\",\"arch\":{"
#define ARCH_OK                                                                                                    \
    "\"d_model\":512,\"layers\":2,\"ffn\":2048,\"vocab\":1000,\"max_seq\":128,\"ffn_act\":\"gelu\","  \
    "\"norm\":\"layernorm\",\"position\":\"learned\""

static void test_bad_files(void)
{
    static const struct {
        const char *json, *expect;
    } rows[] = {
        {ARCH_HEAD ARCH_OK ",\"heads\":8,\"kv_head\":2}}", "$.arch.kv_head: unknown key"},
        {ARCH_HEAD ARCH_OK ",\"heads\":8,\"kv_heads\":3}}", "$.arch.kv_heads: 3 does not divide heads (8)"},
        {ARCH_HEAD ARCH_OK ",\"heads\":8,\"kv_heads\":16}}", "$.arch.kv_heads: 16 exceeds heads (8)"},
        {ARCH_HEAD ARCH_OK ",\"heads\":7}}", "$.arch.heads: 7 does not divide d_model (512)"},
        {ARCH_HEAD ARCH_OK ",\"heads\":8,\"experts\":2,\"top_k\":3}}", "$.arch.top_k: 3 exceeds experts (2)"},
        {ARCH_HEAD ARCH_OK ",\"heads\":8,\"top_k\":2}}", "$.arch.top_k: 2 exceeds experts (1)"},
        {ARCH_HEAD ARCH_OK ",\"heads\":0}}", "$.arch.heads: 0 is out of range"},
        {ARCH_HEAD ARCH_OK ",\"heads\":8,\"mem_len\":-1}}", "$.arch.mem_len: -1 is out of range"},
        {ARCH_HEAD "\"d_model\":512,\"layers\":2,\"heads\":8,\"ffn\":2048,\"vocab\":1000,\"max_seq\":128,"
                   "\"ffn_act\":\"geglu\",\"norm\":\"layernorm\",\"position\":\"learned\"}}",
         "$.arch.ffn_act: 'geglu' is not one of: gelu, swiglu, relu"},
        {ARCH_HEAD "\"d_model\":512,\"layers\":2,\"heads\":8,\"ffn\":2048,\"vocab\":1000,\"max_seq\":128,"
                   "\"ffn_act\":\"gelu\",\"norm\":\"batchnorm\",\"position\":\"learned\"}}",
         "$.arch.norm: 'batchnorm' is not one of: layernorm, rmsnorm"},
        {ARCH_HEAD "\"d_model\":512,\"layers\":2,\"heads\":8,\"ffn\":2048,\"vocab\":1000,\"max_seq\":128,"
                   "\"ffn_act\":\"gelu\",\"norm\":\"layernorm\",\"position\":\"alibi\"}}",
         "$.arch.position: 'alibi' is not one of: learned, rope, relative, none"},
        {ARCH_HEAD "\"d_model\":512,\"heads\":8,\"ffn\":2048,\"vocab\":1000,\"max_seq\":128,"
                   "\"ffn_act\":\"gelu\",\"norm\":\"layernorm\",\"position\":\"learned\"}}",
         "$.arch.layers: missing required number"},
        {ARCH_HEAD ARCH_OK ",\"heads\":8,\"d_model\":1.5}}", "duplicate key"},
        {ARCH_HEAD ARCH_OK ",\"heads\":8,\"pooler\":true}}", "$.arch.pooler: only encoders"},
        {ARCH_HEAD ARCH_OK ",\"heads\":8,\"kv_heads\":2,\"gqa_impl\":\"copy\"}}",
         "$.arch.gqa_impl: 'copy' is not one of: grouped, repeat"},
        {ARCH_HEAD ARCH_OK ",\"heads\":8,\"rotary_dim\":32}}", "$.arch.rotary_dim: needs position rope"},
        {ARCH_HEAD ARCH_OK ",\"heads\":8,\"parallel_residual\":\"yes\"}}",
         "$.arch.parallel_residual: expected true or false"},
        {ARCH_HEAD ARCH_OK ",\"heads\":8,\"qa_head\":true}}", "$.arch.qa_head: only encoders"},
        {ARCH_HEAD ARCH_OK ",\"heads\":8,\"encoder\":true,\"qa_head\":true,\"classes\":2}}",
         "$.arch.qa_head: give classes or qa_head, not both"},
        {ARCH_HEAD ARCH_OK ",\"heads\":8,\"tied_embeddings\":1}}", "$.arch.tied_embeddings: expected true or false"},
        {ARCH_HEAD ARCH_OK ",\"heads\":8,\"image\":224}}", "$.arch.image: only vision transformers"},
        {ARCH_HEAD ARCH_OK ",\"heads\":8,\"encoder\":true,\"mem_len\":10}}", "$.arch.mem_len: an encoder has no"},
        {ARCH_HEAD "\"d_model\":768,\"layers\":2,\"heads\":12,\"ffn\":3072,\"ffn_act\":\"gelu\",\"norm\":\"layernorm\","
                   "\"position\":\"learned\",\"patch\":16,\"image\":8}}",
         "$.arch.image: 8 is smaller than the patch (16)"},
        {ARCH_HEAD "\"d_model\":768,\"layers\":2,\"heads\":12,\"ffn\":3072,\"ffn_act\":\"gelu\",\"norm\":\"layernorm\","
                   "\"position\":\"learned\",\"patch\":16,\"image\":224,\"encoder\":false}}",
         "$.arch.encoder: a vision transformer"},
    };
    const char *path = "test_transformer_bad.json";
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_model *m = NULL;
        ridge_err err;
        memset(&err, 0, sizeof err);
        check_context(rows[i].expect);
        if (!CHECK(write_file(path, rows[i].json) == 0))
            continue;
        CHECK(ridge_model_load_file(path, &m, &err) == RIDGE_EINVAL);
        CHECK(m == NULL);
        CHECK_STR_HAS(err.msg, rows[i].expect);
        CHECK_STR_HAS(err.msg, path);
        ridge_model_free(m);
    }
    check_context(NULL);
    remove(path);
}

static void test_bad_runs(void)
{
    static const struct {
        const char *id;
        ridge_mode mode;
        double seq, prompt, context, image, layers;
        const char *expect;
    } rows[] = {
        {"bert-large", RIDGE_MODE_DECODE, 0, 0, 0, 0, 0, "run.mode decode: bert-large is an encoder; use infer"},
        {"vit-b16", RIDGE_MODE_PREFILL, 0, 0, 0, 0, 0, "run.mode prefill: vit-b16 is an encoder; use infer"},
        {"gpt2", RIDGE_MODE_TRAIN, 2048, 0, 0, 0, 0, "run.seq: 2048 exceeds the 1024 positions gpt2 has learned"},
        {"gpt2", RIDGE_MODE_DECODE, 0, 0, 1024, 0, 0, "run.context: 1024 + 1 new token exceeds the 1024 positions"},
        {"gpt2", RIDGE_MODE_PREFILL, 0, 1025, 0, 0, 0, "run.prompt: 1025 exceeds"},
        {"llama2-7b", RIDGE_MODE_TRAIN, 2.5, 0, 0, 0, 0, "run.seq: 2.5 is not an integer"},
        {"llama2-7b", RIDGE_MODE_PREFILL, 0, -3, 0, 0, 0, "run.prompt: -3 is not an integer"},
        {"llama2-7b", RIDGE_MODE_DECODE, 0, 0, -1, 0, 0, "run.context: -1 is not an integer"},
        {"llama2-7b", RIDGE_MODE_TRAIN, 0, 0, 0, 224, 0, "run.image: llama2-7b is not a vision model"},
        {"llama2-7b", RIDGE_MODE_TRAIN, 0, 0, 0, 0, 4, "run.layers: applies to RNN models only"},
        {"vit-b16", RIDGE_MODE_TRAIN, 0, 0, 0, 8, 0, "run.image: 8 is not an integer in [16, 65536]"},
        /* One past the run options' limits (RIDGE_RUN_*_MAX, the command line's too). */
        {"vit-b16", RIDGE_MODE_TRAIN, 0, 0, 0, RIDGE_RUN_IMAGE_MAX + 1, 0, "run.image: 65537 is not an integer in [16, 65536]"},
        {"llama2-7b", RIDGE_MODE_TRAIN, RIDGE_RUN_TOKENS_MAX + 1, 0, 0, 0, 0, "run.seq: 1e+07 is not an integer in [1, 10000000]"},
        {"llama2-7b", RIDGE_MODE_PREFILL, 0, RIDGE_RUN_TOKENS_MAX + 1, 0, 0, 0, "run.prompt: 1e+07 is not an integer in [1, 10000000]"},
        {"llama2-7b", RIDGE_MODE_DECODE, 0, 0, RIDGE_RUN_TOKENS_MAX + 1, 0, 0, "run.context: 1e+07 is not an integer in [0, 10000000]"},
        {"vit-b16", RIDGE_MODE_TRAIN, 512, 0, 0, 0, 0, "run.seq: vit-b16 is a vision transformer"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_model *m = load(rows[i].id);
        ridge_run_config rc = run(rows[i].mode, 1);
        ridge_oplist ol;
        ridge_memory mem;
        ridge_err err;
        memset(&err, 0, sizeof err);
        check_context(rows[i].expect);
        if (!m)
            continue;
        rc.seq = rows[i].seq;
        rc.prompt = rows[i].prompt;
        rc.context = rows[i].context;
        rc.image = rows[i].image;
        rc.layers = rows[i].layers;
        CHECK(ridge_model_build(m, &rc, &ol, &err) == RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, rows[i].expect);
        CHECK(ol.ops == NULL);
        CHECK(ridge_model_memory(m, &rc, &mem, &err) == RIDGE_EINVAL);
        CHECK_NEAR(ridge_model_flops(m, &rc), 0, 0);
        ridge_model_free(m);
    }
    check_context(NULL);
}

/* ---- defaults ---- */

static void test_defaults(void)
{
    ridge_model *m = load("llama3-8b");
    ridge_run_config rc = run(RIDGE_MODE_TRAIN, 2);
    ridge_oplist ol;
    if (!m)
        return;
    CHECK_NEAR(ridge_model_items_per_step(m, &rc), 2 * 8192, 0); /* seq = max_seq */
    rc = run(RIDGE_MODE_PREFILL, 3);
    CHECK_NEAR(ridge_model_items_per_step(m, &rc), 3 * 512, 0); /* prompt 512 */
    if (build(m, &rc, &ol) == RIDGE_OK) {
        const ridge_op *lm = check_find_op(&ol, "lm_head");
        if (CHECK(lm != NULL))
            CHECK_NEAR(lm->u.gemm.m, 3, 0); /* the last token's logits only */
        CHECK(check_find_op(&ol, "cross_entropy") == NULL);
        CHECK(check_find_op(&ol, "adamw_step") == NULL);
        ridge_oplist_free(&ol);
    }
    rc = run(RIDGE_MODE_DECODE, 5);
    CHECK_NEAR(ridge_model_items_per_step(m, &rc), 5, 0);
    ridge_model_free(m);
}

/* ---- 8-bit and 4-bit runs keep the embedding and LM head in 16-bit ---- */

/* Quantized checkpoints (ModelOpt FP8, W8A8, AWQ/GPTQ int4) leave the token embedding and the LM
 * head unquantized: the head's GEMM runs in bf16 while the layers' run in the run's precision, and
 * the two tables weigh 2 bytes per parameter in the weights (llama3-8b: untied, 128256 x 4096
 * each). A bf16 run is unchanged. */
static void test_wide_tables(void)
{
    static const ridge_dtype prec[] = {RIDGE_DTYPE_FP8, RIDGE_DTYPE_INT8, RIDGE_DTYPE_INT4};
    ridge_model *m = load("llama3-8b");
    ridge_run_config rc = run(RIDGE_MODE_DECODE, 4);
    ridge_memory m16, mq;
    ridge_oplist ol;
    ridge_err err;
    const double table = 128256.0 * 4096;
    if (!m)
        return;
    CHECK(ridge_model_memory(m, &rc, &m16, &err) == RIDGE_OK); /* bf16: 2 bytes for every weight */
    for (size_t i = 0; i < sizeof prec / sizeof prec[0]; i++) {
        double wb = ridge_dtype_bytes(prec[i]);
        check_context(ridge_dtype_name(prec[i]));
        rc.precision = prec[i];
        CHECK(ridge_model_memory(m, &rc, &mq, &err) == RIDGE_OK);
        /* the layers at wb bytes per weight, the two tables at 2 */
        CHECK_NEAR(mq.weights_bytes, (m16.weights_bytes / 2 - 2 * table) * wb + 2 * table * 2, 1e-12);
        if (build(m, &rc, &ol) == RIDGE_OK) {
            const ridge_op *lm = check_find_op(&ol, "lm_head"), *q = check_find_op(&ol, "qkv_proj");
            if (CHECK(lm != NULL))
                CHECK_INT(lm->dtype, RIDGE_DTYPE_BF16);
            if (q)
                CHECK_INT(q->dtype, prec[i]);
            ridge_oplist_free(&ol);
        }
    }
    check_context(NULL);
    rc.precision = RIDGE_DTYPE_BF16;
    if (build(m, &rc, &ol) == RIDGE_OK) {
        const ridge_op *lm = check_find_op(&ol, "lm_head");
        if (CHECK(lm != NULL))
            CHECK_INT(lm->dtype, RIDGE_DTYPE_BF16);
        ridge_oplist_free(&ol);
    }
    ridge_model_free(m);
}

/* ---- every preset, every mode it supports ---- */

static void test_every_preset(void)
{
    static const ridge_dtype train_prec[] = {RIDGE_DTYPE_BF16, RIDGE_DTYPE_FP32, RIDGE_DTYPE_FP8};
    static const ridge_dtype infer_prec[] = {RIDGE_DTYPE_BF16, RIDGE_DTYPE_FP16, RIDGE_DTYPE_INT8};
    ridge_gpu gpu;
    ridge_err err;
    size_t presets = 0;
    char ctx[160];
    CHECK(ridge_catalog_load("h200-sxm-141gb", &gpu, &err) == RIDGE_OK);
    for (size_t i = 0; i < ridge_model_builtin_count(); i++) {
        const char *id = ridge_model_builtin_id(i);
        ridge_model *m = NULL;
        /* other families' presets are their tests' business; ours all load (test_param_counts) */
        if (ridge_model_load_builtin(id, &m, &err) != RIDGE_OK)
            continue;
        if (strcmp(ridge_model_family(m), "transformer") != 0) {
            ridge_model_free(m);
            continue;
        }
        presets++;
        for (int mode = 0; mode < 4; mode++) {
            for (int p = 0; p < 3; p++) {
                ridge_run_config rc = run((ridge_mode)mode, 2);
                ridge_oplist ol;
                ridge_memory mem;
                int st;
                rc.precision = mode == RIDGE_MODE_TRAIN ? train_prec[p] : infer_prec[p];
                rc.recompute = (ridge_recompute)p;
                rc.optimizer_impl = p == 0 ? RIDGE_OPT_IMPL_FUSED : p == 1 ? RIDGE_OPT_IMPL_FORLOOP
                                                                             : RIDGE_OPT_IMPL_FOREACH;
                if (mode == RIDGE_MODE_TRAIN && strncmp(id, "llama", 5) == 0)
                    rc.seq = 1024; /* keep the graph sizes moderate */
                rc.context = 300;
                snprintf(ctx, sizeof ctx, "%s %s %s", id, ridge_mode_name(rc.mode), ridge_dtype_name(rc.precision));
                check_context(ctx);
                st = ridge_model_build(m, &rc, &ol, &err);
                if (st != RIDGE_OK) {
                    /* only encoders refuse, and only prefill and decode */
                    CHECK(mode >= RIDGE_MODE_PREFILL);
                    CHECK_STR_HAS(err.msg, "is an encoder; use infer");
                    continue;
                }
                {
                    graph_sums g = sums(&ol);
                    int bad = 0;
                    for (size_t k = 0; k < ol.n; k++)
                        if (ridge_op_check(&ol.ops[k], "op", &err) != RIDGE_OK) {
                            bad++;
                            fprintf(stderr, "  %s: %s\n", ol.ops[k].name, err.msg);
                        }
                    CHECK(bad == 0);
                    CHECK(isfinite(g.flops) && g.flops > 0);
                    CHECK(ridge_model_flops(m, &rc) > 0 && isfinite(ridge_model_flops(m, &rc)));
                    CHECK(g.flops >= 0.99 * ridge_model_flops(m, &rc));
                    CHECK(ridge_model_items_per_step(m, &rc) > 0);
                    CHECK(ridge_model_memory(m, &rc, &mem, &err) == RIDGE_OK);
                    CHECK(mem.total_bytes > mem.weights_bytes && isfinite(mem.total_bytes));
                    CHECK(mem.activations_bytes > 0);
                    if (p == 0) {
                        ridge_schedule_totals tot;
                        st = ridge_schedule_ops(&gpu, ol.ops, ol.n, RIDGE_RUNTIME_EAGER, NULL, &tot, &err);
                        if (!CHECK(st == RIDGE_OK))
                            fprintf(stderr, "  schedule: %s\n", err.msg);
                        else
                            CHECK(tot.total_time_s > 0 && isfinite(tot.total_time_s));
                    }
                }
                ridge_oplist_free(&ol);
            }
        }
        ridge_model_free(m);
    }
    check_context(NULL);
    CHECK(presets >= 13);
}

/* fused_qkv / fused_gate_up false: the same FLOPs and parameters in separate GEMMs. */
static void test_separate_projections(void)
{
    static const char base[] =
        "{\"schema_version\":1,\"name\":\"t\",\"family\":\"transformer\",\"arch\":{\"d_model\":4096,"
        "\"layers\":2,\"heads\":32,\"kv_heads\":8,\"ffn\":14336,\"vocab\":32000,\"ffn_act\":\"swiglu\","
        "\"norm\":\"rmsnorm\",\"position\":\"rope\",\"max_seq\":4096%s}}";
    char text[512];
    ridge_model *fused = NULL, *sep = NULL;
    ridge_err err;
    ridge_run_config rc = run(RIDGE_MODE_TRAIN, 2);
    ridge_oplist a, b;
    check_context("separate projections");
    snprintf(text, sizeof text, base, "");
    CHECK(ridge_model_parse(text, strlen(text), "fused", &fused, &err) == RIDGE_OK);
    snprintf(text, sizeof text, base, ",\"fused_qkv\":false,\"fused_gate_up\":false");
    CHECK(ridge_model_parse(text, strlen(text), "separate", &sep, &err) == RIDGE_OK);
    if (!fused || !sep) {
        ridge_model_free(fused);
        ridge_model_free(sep);
        return;
    }
    rc.seq = 512;
    CHECK_NEAR(ridge_model_params(sep), ridge_model_params(fused), 0);
    if (build(fused, &rc, &a) == RIDGE_OK) {
        if (build(sep, &rc, &b) == RIDGE_OK) {
            graph_sums sa = sums(&a), sb = sums(&b);
            const ridge_op *q = check_find_op(&b, "q_proj"), *k = check_find_op(&b, "k_proj"),
                           *g = check_find_op(&b, "gate_proj");
            CHECK_NEAR(sb.flops, sa.flops, 1e-12 * sa.flops);
            /* q, k, v and gate, up replace qkv and gate_up: 3 more GEMMs, each with dgrad and wgrad */
            CHECK_NEAR(sb.ops - sa.ops, 3 * 3, 0);
            CHECK(check_find_op(&b, "qkv_proj") == NULL && check_find_op(&a, "q_proj") == NULL);
            if (CHECK(q && k && g)) {
                CHECK_NEAR(q->u.gemm.n, 4096, 0);
                CHECK_NEAR(k->u.gemm.n, 8 * 128, 0);
                CHECK_NEAR(g->u.gemm.n, 14336, 0);
            }
            ridge_oplist_free(&b);
        }
        ridge_oplist_free(&a);
    }
    ridge_model_free(sep);
    sep = NULL;
    snprintf(text, sizeof text, base, ",\"fused_qkv\":1");
    CHECK(ridge_model_parse(text, strlen(text), "bad", &sep, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "fused_qkv");
    /* norm_impl / rope_impl composite: eager PyTorch's pointwise kernels, one op each. */
    check_context("composite norm and rope");
    snprintf(text, sizeof text, base, ",\"norm_impl\":\"composite\",\"rope_impl\":\"composite\"");
    sep = NULL;
    if (CHECK(ridge_model_parse(text, strlen(text), "composite", &sep, &err) == RIDGE_OK)) {
        ridge_run_config inf = run(RIDGE_MODE_PREFILL, 1);
        inf.prompt = 128;
        if (build(fused, &inf, &a) == RIDGE_OK) {
            if (build(sep, &inf, &b) == RIDGE_OK) {
                graph_sums sa = sums(&a), sb = sums(&b);
                /* per layer two norms of 8 kernels (was 1 each) and two ropes of 5 (was one op);
                 * the final norm: 8 instead of 1 */
                CHECK_NEAR(sb.ops - sa.ops, 2 * 7 + 10 - 1 + 7, 0);
                CHECK_NEAR(sb.matmul_flops, sa.matmul_flops, 1e-12 * sa.matmul_flops);
                CHECK(check_find_op(&b, "attn_norm.pow") != NULL && check_find_op(&b, "rope_k.cat") != NULL);
                CHECK(check_find_op(&b, "rope") == NULL && check_find_op(&b, "attn_norm") == NULL);
                ridge_oplist_free(&b);
            }
            ridge_oplist_free(&a);
        }
        ridge_model_free(sep);
        sep = NULL;
    }
    snprintf(text, sizeof text, base, ",\"norm_impl\":\"unfused\"");
    CHECK(ridge_model_parse(text, strlen(text), "bad", &sep, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "norm_impl");
    check_context(NULL);
    ridge_model_free(fused);
}

/* Training dropouts (arch dropout: true): attention output, MLP output and embedding, each a
 * forward and a backward kernel; none in inference. */
static void test_dropout_kernels(void)
{
    ridge_model *m = load("bert-base");
    ridge_run_config rc = run(RIDGE_MODE_TRAIN, 4), inf = run(RIDGE_MODE_INFER, 4);
    ridge_oplist g;
    check_context("bert-base dropout kernels");
    if (!m)
        return;
    rc.seq = inf.seq = 128;
    if (build(m, &rc, &g) == RIDGE_OK) {
        const ridge_op *a = check_find_op(&g, "attn_out_dropout"), *b = check_find_op(&g, "mlp_out_dropout.bwd");
        const ridge_op *e = check_find_op(&g, "embed_dropout");
        if (CHECK(a && b && e)) {
            CHECK_NEAR(a->count, 12, 0);
            CHECK_NEAR(b->count, 12, 0);
            /* 4 x 128 tokens x 768 values: y and dy in bf16 (2 B) plus the 1-byte mask */
            CHECK_NEAR(a->u.custom.bytes, 4.0 * 128 * 768 * 5, 0);
            CHECK_NEAR(e->count, 1, 0);
        }
        ridge_oplist_free(&g);
    }
    if (build(m, &inf, &g) == RIDGE_OK) {
        CHECK(check_find_op(&g, "attn_out_dropout") == NULL && check_find_op(&g, "embed_dropout") == NULL);
        ridge_oplist_free(&g);
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* GPT-J: parallel attention and MLP after one LayerNorm (parallel_residual) and a rotary
 * embedding on 64 of each head's 256 dimensions (rotary_dim). Hand-derived: one layer holds
 * 4 d^2 (QKV, output) + 2 d f (MLP) + biases (4 d + f + d, with "bias") + one LayerNorm (2 d). */
static void test_parallel_residual(void)
{
    static const char base[] =
        "{\"schema_version\":1,\"name\":\"t\",\"family\":\"transformer\",\"arch\":{\"d_model\":4096,"
        "\"layers\":28,\"heads\":16,\"ffn\":16384,\"vocab\":50400,\"max_seq\":2048,\"ffn_act\":\"gelu\","
        "\"norm\":\"layernorm\",\"position\":\"rope\",\"bias\":true%s}}";
    const double d = 4096, f = 16384, L = 28, V = 50400, s = 2048;
    const double layer = 4 * d * d + 2 * d * f + 4 * d + f + d + 2 * d;
    char text[512];
    ridge_model *seq = NULL, *par = load("gpt-j-6b"), *half = NULL;
    ridge_err err;
    ridge_run_config rc = run(RIDGE_MODE_INFER, 1), tr = run(RIDGE_MODE_TRAIN, 1);
    ridge_oplist a, b;
    check_context("gpt-j-6b parallel residual");
    if (!par)
        return;
    rc.seq = tr.seq = s;
    CHECK_NEAR(ridge_model_params(par), L * layer + 2 * V * d + 2 * d, 1e-12);
    /* forward: 2 T (layer params + final norm) + attention (causal pairs) + last-token LM head */
    CHECK_NEAR(ridge_model_flops(par, &rc), 2 * s * (L * layer + 2 * d) + L * 4 * d * s * (s + 1) / 2 + 2 * d * V, 1e-12);
    snprintf(text, sizeof text, base, "");
    if (!CHECK(ridge_model_parse(text, strlen(text), "sequential", &seq, &err) == RIDGE_OK)) {
        ridge_model_free(par);
        return;
    }
    /* the sequential layer has a second LayerNorm: 2 d parameters a layer more */
    CHECK_NEAR(ridge_model_params(seq) - ridge_model_params(par), L * 2 * d, 0);
    if (build(par, &rc, &a) == RIDGE_OK) {
        if (build(seq, &rc, &b) == RIDGE_OK) {
            const ridge_op *rp = check_find_op(&a, "rope"), *rs = check_find_op(&b, "rope");
            CHECK(check_find_op(&a, "mlp_norm") == NULL && check_find_op(&b, "mlp_norm") != NULL);
            CHECK(check_find_op(&a, "attn_residual") != NULL && check_find_op(&a, "mlp_residual") != NULL);
            CHECK_NEAR(sums(&b).ops - sums(&a).ops, 1, 0); /* the MLP norm */
            CHECK_NEAR(sums(&a).matmul_flops, sums(&b).matmul_flops, 1e-12 * sums(&b).matmul_flops);
            /* rotary on 64 of 256 dimensions: a quarter of the values */
            if (CHECK(rp && rs))
                CHECK_NEAR(rp->u.ew.elements, rs->u.ew.elements / 4, 0);
            ridge_oplist_free(&b);
        }
        ridge_oplist_free(&a);
    }
    /* training: the two branches' input gradients are summed once per layer */
    if (build(par, &tr, &a) == RIDGE_OK) {
        const ridge_op *g = check_find_op(&a, "branch_grad_sum");
        if (CHECK(g)) {
            CHECK_NEAR(g->count, L, 0);
            CHECK_NEAR(g->u.custom.bytes, 3 * s * d * 2, 0); /* two bf16 gradients in, one out */
        }
        ridge_oplist_free(&a);
    }
    /* the parallel layer keeps one norm input and no separate MLP input: 2 d values a token less */
    {
        ridge_memory mp, ms;
        if (CHECK(ridge_model_memory(par, &tr, &mp, &err) == RIDGE_OK) &&
            CHECK(ridge_model_memory(seq, &tr, &ms, &err) == RIDGE_OK))
            CHECK_NEAR(ms.activations_bytes - mp.activations_bytes, L * s * 2 * d * 2, 1e-9);
    }
    snprintf(text, sizeof text, base, ",\"rotary_dim\":300");
    CHECK(ridge_model_parse(text, strlen(text), "bad", &half, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "$.arch.rotary_dim: 300 is not an even number of at most head_dim (256)");
    snprintf(text, sizeof text, base, ",\"rotary_dim\":63");
    CHECK(ridge_model_parse(text, strlen(text), "bad", &half, &err) == RIDGE_EINVAL);
    check_context(NULL);
    ridge_model_free(seq);
    ridge_model_free(par);
}

/* --grad-accum N: N micro-batches per optimizer step. Items and model FLOPs are N times one
 * micro-batch's; every forward and backward op runs N times, the optimizer group once, plus
 * autograd's in-place add of micro-batches 2..N into .grad (one kernel per parameter tensor). */
static void test_grad_accum(void)
{
    ridge_model *m = load("gpt2");
    ridge_run_config one = run(RIDGE_MODE_TRAIN, 4), four = one, inf = run(RIDGE_MODE_INFER, 4);
    ridge_oplist a, b;
    ridge_err err;
    check_context("gpt2 grad_accum 4");
    if (!m)
        return;
    one.seq = four.seq = inf.seq = 256;
    four.grad_accum = 4;
    CHECK_NEAR(ridge_model_items_per_step(m, &four), 4 * ridge_model_items_per_step(m, &one), 0);
    CHECK_NEAR(ridge_model_flops(m, &four), 4 * ridge_model_flops(m, &one), 1e-12);
    if (build(m, &one, &a) == RIDGE_OK) {
        if (build(m, &four, &b) == RIDGE_OK) {
            const ridge_op *acc = check_find_op(&b, "grad_accumulate");
            size_t j = 0;
            CHECK(check_find_op(&a, "grad_accumulate") == NULL);
            /* the same ops in the same order, then the accumulation after the optimizer step */
            for (size_t i = 0; i < a.n && j < b.n; i++, j++) {
                if (strcmp(b.ops[j].name, "grad_accumulate") == 0)
                    j++;
                CHECK_STR_EQ(b.ops[j].name, a.ops[i].name);
                CHECK_NEAR(b.ops[j].count, a.ops[i].count * (strcmp(a.ops[i].group, "optimizer") ? 4 : 1), 0);
            }
            if (CHECK(acc)) {
                /* mixed bf16 training: 2-byte gradients; all tensors together hold every parameter */
                CHECK_NEAR(acc->u.ew.elements * acc->count, 3 * ridge_model_params(m), 1e-9);
                CHECK_NEAR(ridge_op_min_bytes(acc) * acc->count, 3 * 3 * ridge_model_params(m) * 2, 1e-9);
                CHECK_STR_EQ(acc->group, "optimizer");
            }
            ridge_oplist_free(&b);
        }
        ridge_oplist_free(&a);
    }
    /* fp32 training accumulates 4-byte gradients */
    four.precision = RIDGE_DTYPE_FP32;
    if (build(m, &four, &b) == RIDGE_OK) {
        const ridge_op *acc = check_find_op(&b, "grad_accumulate");
        if (CHECK(acc))
            CHECK_NEAR(ridge_op_min_bytes(acc) * acc->count, 3 * 3 * ridge_model_params(m) * 4, 1e-9);
        ridge_oplist_free(&b);
    }
    /* only training accumulates; a fraction or 0.5 is refused, 0 (a zeroed struct) is 1 */
    inf.grad_accum = 2;
    CHECK(ridge_model_build(m, &inf, &a, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.grad_accum: applies to run.mode train, not infer");
    four.grad_accum = 2.5;
    CHECK(ridge_model_build(m, &four, &a, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.grad_accum: 2.5 is not an integer");
    four.grad_accum = 0;
    CHECK_NEAR(ridge_model_items_per_step(m, &four), ridge_model_items_per_step(m, &one), 0);
    check_context(NULL);
    ridge_model_free(m);
}

/* bert-large-squad (qa_head): the encoder with a 2-way span head on every token instead of the
 * masked-LM head and the pooler. Hand-derived: BertModel's 335,141,888 less the pooler
 * (1,049,600) and the token-type table (2,048, left out), plus 2 d + 2. Training adds the head's
 * GEMMs and a cross-entropy over the s positions for 2 b rows; no MLM kernels, no pooler. */
static void test_qa_head(void)
{
    ridge_model *m = load("bert-large-squad"), *mlm = load("bert-large");
    ridge_run_config rc = run(RIDGE_MODE_TRAIN, 4);
    ridge_oplist ol;
    ridge_err err;
    const double d = 1024, s = 384, T = 4 * s;
    check_context("bert-large-squad");
    if (!m || !mlm) {
        ridge_model_free(m);
        ridge_model_free(mlm);
        return;
    }
    rc.seq = s;
    CHECK_NEAR(ridge_model_params(m), 335141888.0 - 1049600 - 2048 + 2 * d + 2, 0);
    /* model FLOPs: the MLM model's without its head (2 T (d^2 + d V)) and pooler (2 b d^2), with 2 T d 2 */
    CHECK_NEAR(ridge_model_flops(m, &rc),
               ridge_model_flops(mlm, &rc) - 3 * (2 * T * (d * d + d * 30522) + 2 * 4 * d * d) + 3 * 2 * T * d * 2, 1e-9);
    if (build(m, &rc, &ol) == RIDGE_OK) {
        const ridge_op *qa = check_find_op(&ol, "qa_outputs"), *ce = check_find_op(&ol, "cross_entropy");
        CHECK(check_find_op(&ol, "mlm_decoder") == NULL && check_find_op(&ol, "pooler") == NULL);
        if (CHECK(qa && ce)) {
            CHECK_NEAR(qa->u.gemm.m, T, 0);
            CHECK_NEAR(qa->u.gemm.n, 2, 0);
            CHECK_NEAR(ce->u.rows.rows, 2 * 4, 0);
            CHECK_NEAR(ce->u.rows.cols, s, 0);
        }
        ridge_oplist_free(&ol);
    }
    /* no masked-LM head to restrict */
    rc.mlm_positions = 20;
    CHECK(ridge_model_build(m, &rc, &ol, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.mlm_positions: applies to masked-LM training");
    check_context(NULL);
    ridge_model_free(m);
    ridge_model_free(mlm);
}

/* --mlm-positions N: BERT's masked-LM head on N gathered positions per sequence. */
static void test_mlm_positions(void)
{
    ridge_model *m = load("bert-large");
    ridge_run_config all = run(RIDGE_MODE_TRAIN, 8), few = all;
    ridge_oplist a, b;
    ridge_memory ma, mb;
    ridge_err err;
    const double d = 1024, V = 30522, s = 128;
    check_context("bert-large mlm_positions 20");
    if (!m)
        return;
    all.seq = few.seq = s;
    few.mlm_positions = 20;
    /* the head's FLOPs shrink from 8 x 128 rows to 8 x 20 */
    CHECK_NEAR(ridge_model_flops(m, &all) - ridge_model_flops(m, &few), 3 * 2 * 8 * (s - 20) * (d * d + d * V), 1e-9);
    if (build(m, &all, &a) == RIDGE_OK) {
        if (build(m, &few, &b) == RIDGE_OK) {
            const ridge_op *dec = check_find_op(&b, "mlm_decoder"), *ce = check_find_op(&b, "cross_entropy"), *ga = check_find_op(&b, "mlm_gather");
            CHECK(check_find_op(&a, "mlm_gather") == NULL);
            if (CHECK(dec && ce && ga)) {
                CHECK_NEAR(dec->u.gemm.m, 8 * 20, 0);
                CHECK_NEAR(ce->u.rows.rows, 8 * 20, 0);
                CHECK_NEAR(ga->u.ew.elements, 8 * 20 * d, 0);
            }
            ridge_oplist_free(&b);
        }
        ridge_oplist_free(&a);
    }
    if (CHECK(ridge_model_memory(m, &all, &ma, &err) == RIDGE_OK) && CHECK(ridge_model_memory(m, &few, &mb, &err) == RIDGE_OK))
        CHECK_NEAR(ma.activations_bytes - mb.activations_bytes, 8 * (s - 20) * (4 * d * 2 + V * 4), 1e-9);
    few.mlm_positions = 129;
    CHECK(ridge_model_build(m, &few, &a, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.mlm_positions: 129 is not an integer in [1, 128]");
    few.mlm_positions = 20;
    few.mode = RIDGE_MODE_INFER;
    CHECK(ridge_model_build(m, &few, &a, &err) == RIDGE_EINVAL);
    check_context(NULL);
    ridge_model_free(m);
}

/* Kernels per step of the models in the H200 records, as their code launches them
 * (docs/workloads.md, "How the code is written"). measure.py's Llama decoder, one decode step:
 * per layer RMSNorm 8 x 2, QKV, RoPE 7 x 2 (chunk/cat), K and V index_copy_ 2, SDPA 2 (a split-KV
 * decode and its combine), o_proj, residual add, gate_up, SiLU and multiply 2, down, add: 42;
 * plus the embedding, the final norm's 8 and the head: 32 x 42 + 10 = 1,354. Its prefill passes no
 * cache (ridge's infer mode over the prompt): no index_copy_, one causal SDPA kernel, and the
 * attention output's transpose copied (more than one token): 40 a layer, 32 x 40 + 10 = 1,290. */
static void test_kernel_counts_as_written(void)
{
    static const struct {
        const char *id;
        ridge_mode mode;
        ridge_code code;
        double batch, kernels;
    } rows[] = {
        {"llama2-7b", RIDGE_MODE_DECODE, RIDGE_CODE_TORCH, 1, 32 * 42 + 10},
        {"llama2-7b", RIDGE_MODE_INFER, RIDGE_CODE_TORCH, 1, 32 * 40 + 10},
        {"llama2-7b", RIDGE_MODE_DECODE, RIDGE_CODE_AS_WRITTEN, 1, 419},
        {"llama2-7b", RIDGE_MODE_DECODE, RIDGE_CODE_ENGINE, 1, 323},
        /* torchvision ResNet-50 inference: 53 conv, 53 BN, 49 ReLU, 16 adds, the pools, fc (174
         * ops); each eval BN of the FP16 model (native channels_last) also copies the running mean
         * and computes invstd: 2 x 53 more kernels */
        {"resnet50", RIDGE_MODE_INFER, RIDGE_CODE_TORCH, 1, 174 + 2 * 53},
    };
    ridge_gpu g;
    ridge_err err;
    CHECK(ridge_catalog_load("h200-sxm-141gb", &g, &err) == RIDGE_OK);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_model *m = load(rows[i].id);
        ridge_run_config rc;
        ridge_oplist ol;
        ridge_schedule_totals tot;
        ridge_run_config_init(&rc);
        rc.mode = rows[i].mode;
        rc.batch = rows[i].batch;
        if (rows[i].mode == RIDGE_MODE_DECODE)
            rc.context = 1024;
        rc.seq = 128; /* the infer row: measure.py's 128-token prefill */
        rc.precision = strcmp(rows[i].id, "resnet50") == 0 ? RIDGE_DTYPE_FP16 : RIDGE_DTYPE_BF16;
        rc.code = rows[i].code;
        if (!m)
            continue;
        CHECK(ridge_model_build(m, &rc, &ol, &err) == RIDGE_OK);
        /* the prefill's m = 128 GEMMs would split K; its eager step is host-bound, so ridge predict
         * keeps the pass without split-K (docs/model.md §7, "Split-K against the host") */
        g.no_split_k = rows[i].mode == RIDGE_MODE_INFER;
        CHECK(ridge_schedule_ops(&g, ol.ops, ol.n, RIDGE_RUNTIME_EAGER, NULL, &tot, &err) == RIDGE_OK);
        if (!check_near_(tot.kernels, rows[i].kernels, 1e-12, __FILE__, __LINE__, rows[i].id, "kernels"))
            fprintf(stderr, "  %s code %s: %g kernels\n", rows[i].id, ridge_code_name(rows[i].code), tot.kernels);
        ridge_oplist_free(&ol);
        ridge_model_free(m);
    }
}

/* Eager code reads views: in measure.py's decoder (code torch) the four RoPE multiplies read the
 * halves of the head-major transpose of q and k, the SiLU and its multiply the halves of the fused
 * gate/up projection, and the attention output's copy its transpose, so those seven kernels a
 * layer take PyTorch's strided loop (strided_inputs); the subtraction, addition and cat read
 * contiguous temporaries. Hugging Face's rotary reads q and its half x2 strided. */
static void test_strided_views(void)
{
    static const struct {
        ridge_code code;
        const char *strided[8], *contiguous[4];
    } rows[] = {
        {RIDGE_CODE_TORCH,
         {"rope_q.x1_cos", "rope_q.x2_sin", "rope_q.x2_cos", "rope_q.x1_sin", "rope_k.x1_cos", "silu",
          "silu_times_up", "attn_out_transpose.copy"},
         {"rope_q.sub", "rope_q.add", "rope_q.cat", "attn_residual"}},
        {RIDGE_CODE_HF, {"rope_q.mul_cos", "rope_q.neg", "rope_k.mul_cos", "silu", "silu_times_up", NULL},
         {"rope_q.mul_sin", "rope_q.add", "rope_q.cat", NULL}},
    };
    ridge_model *m = load("llama2-7b");
    ridge_err err;
    if (!m)
        return;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_run_config rc;
        ridge_oplist ol;
        ridge_run_config_init(&rc);
        rc.mode = RIDGE_MODE_PREFILL;
        rc.prompt = rc.seq = 2048;
        rc.code = rows[i].code;
        check_context(ridge_code_name(rows[i].code));
        if (!CHECK(ridge_model_build(m, &rc, &ol, &err) == RIDGE_OK))
            continue;
        for (int k = 0; k < 8 && rows[i].strided[k]; k++) {
            const ridge_op *op = check_find_op(&ol, rows[i].strided[k]);
            if (CHECK(op != NULL))
                CHECK(op->kind == RIDGE_OP_ELEMENTWISE && op->u.ew.strided_inputs == 1);
        }
        for (int k = 0; k < 4 && rows[i].contiguous[k]; k++) {
            const ridge_op *op = check_find_op(&ol, rows[i].contiguous[k]);
            if (CHECK(op != NULL))
                CHECK(op->kind != RIDGE_OP_ELEMENTWISE || op->u.ew.strided_inputs == 0);
        }
        ridge_oplist_free(&ol);
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* Autocast over measure.py's decoder (code torch, --amp, FP32 weights): the FP32 embeddings start
 * an FP32 residual stream, so the composite RMSNorm's x.float() and .to(x.dtype) launch nothing
 * (six kernels, all FP32), each linear that reads the stream casts it (qkv_proj.acast), the
 * rotary products of the BF16 projection and the FP32 tables are FP32, and autocast casts q and
 * K back at the SDPA call (K's GQA copies, where the code makes them, come before that cast, in
 * FP32).
 * Without --amp (a BF16 model) none of that: eight norm kernels in their dtypes, no casts. */
static void test_amp_composite_stream(void)
{
    ridge_model *m = load("llama3-8b");
    ridge_err err;
    if (!m)
        return;
    for (int amp = 0; amp <= 1; amp++) {
        ridge_run_config rc = amp_train(1, 512, amp, RIDGE_CODE_TORCH);
        ridge_oplist ol;
        const ridge_op *op;
        size_t norm_kernels = 0;
        check_context(amp ? "amp" : "bf16");
        if (!CHECK(ridge_model_build(m, &rc, &ol, &err) == RIDGE_OK))
            continue;
        for (size_t k = 0; k < ol.n; k++)
            if (strncmp(ol.ops[k].name, "attn_norm.", 10) == 0 && !strstr(ol.ops[k].name, ".bwd"))
                norm_kernels++, CHECK(!amp || ol.ops[k].dtype == RIDGE_DTYPE_FP32);
        CHECK(norm_kernels == (amp ? 6 : 8));
        CHECK((check_find_op(&ol, "attn_norm.to_fp32") == NULL) == amp);
        CHECK((check_find_op(&ol, "qkv_proj.acast") != NULL) == amp);
        CHECK((check_find_op(&ol, "attn_q.acast") != NULL) == amp);
        op = check_find_op(&ol, "attn_k.acast");
        CHECK((op != NULL) == amp);
        if (op) /* the preset's grouped K: 8 heads of 128, read in FP32, written in BF16 */
            CHECK_NEAR(op->u.custom.bytes, 512.0 * 8 * 128 * (4 + 2), 1e-12);
        if (CHECK((op = check_find_op(&ol, "rope_q.x1_cos")) != NULL))
            CHECK(op->dtype == (amp ? RIDGE_DTYPE_FP32 : RIDGE_DTYPE_BF16));
        if (CHECK((op = check_find_op(&ol, "embed_tokens")) != NULL))
            CHECK(op->dtype == (amp ? RIDGE_DTYPE_FP32 : RIDGE_DTYPE_BF16));
        if (CHECK((op = check_find_op(&ol, "attn_residual")) != NULL))
            CHECK(op->dtype == (amp ? RIDGE_DTYPE_FP32 : RIDGE_DTYPE_BF16));
        ridge_oplist_free(&ol);
    }
    check_context(NULL);
    ridge_model_free(m);
    /* measure.py's llm_train decoder without enable_gqa (gqa_impl repeat_all, as its importer maps
     * it): repeat_interleave copies the FP32 rotary K to every query head, then autocast casts the
     * copies */
    {
        static const char text[] =
            "{\"schema_version\": 1, \"name\": \"tiny\", \"family\": \"transformer\", \"arch\": {\"d_model\": 2048,"
            " \"layers\": 2, \"heads\": 32, \"kv_heads\": 4, \"ffn\": 5632, \"vocab\": 32000, \"max_seq\": 4096,"
            " \"ffn_act\": \"swiglu\", \"norm\": \"rmsnorm\", \"position\": \"rope\", \"tied_embeddings\": false,"
            " \"bias\": false, \"gqa_impl\": \"repeat_all\"}}";
        ridge_run_config rc = amp_train(1, 512, 1, RIDGE_CODE_TORCH);
        ridge_oplist ol;
        const ridge_op *op;
        m = NULL;
        if (CHECK(ridge_model_parse(text, strlen(text), "tiny", &m, &err) == RIDGE_OK) &&
            CHECK(ridge_model_build(m, &rc, &ol, &err) == RIDGE_OK)) {
            if (CHECK((op = check_find_op(&ol, "repeat_k")) != NULL))
                CHECK(op->dtype == RIDGE_DTYPE_FP32 && op->u.custom.bytes == 512.0 * 64 * (4 + 32) * 4);
            if (CHECK((op = check_find_op(&ol, "repeat_v")) != NULL))
                CHECK(op->dtype == RIDGE_DTYPE_BF16 && op->u.custom.bytes == 512.0 * 64 * (4 + 32) * 2);
            if (CHECK((op = check_find_op(&ol, "attn_k.acast")) != NULL))
                CHECK_NEAR(op->u.custom.bytes, 512.0 * 32 * 64 * (4 + 2), 1e-12);
            ridge_oplist_free(&ol);
        }
        ridge_model_free(m);
    }
}

/* Hugging Face's gelu_new under autocast: torch.pow is on autocast's FP32 list, so x is cast to FP32
 * for x^3 and everything after it promotes to FP32 (the GELU's output too, which the next linear
 * casts back); without autocast every kernel stays in the run's dtype and there is no cast. */
static void test_amp_gelu_new(void)
{
    ridge_model *m = load("gpt2");
    ridge_err err;
    if (!m)
        return;
    for (int amp = 0; amp <= 1; amp++) {
        ridge_run_config rc = amp_train(8, 1024, amp, RIDGE_CODE_HF);
        ridge_oplist ol;
        const ridge_op *op;
        double E = 8.0 * 1024 * 3072;
        check_context(amp ? "gelu_new amp" : "gelu_new bf16");
        if (!CHECK(ridge_model_build(m, &rc, &ol, &err) == RIDGE_OK))
            continue;
        op = check_find_op(&ol, "gelu.cube.cast");
        CHECK((op != NULL) == amp);
        if (op) /* read BF16, write FP32 */
            CHECK_NEAR(op->u.custom.bytes, E * (2 + 4), 1e-12);
        if (CHECK((op = check_find_op(&ol, "gelu.mul")) != NULL)) {
            CHECK(op->dtype == (amp ? RIDGE_DTYPE_FP32 : RIDGE_DTYPE_BF16));
            /* the 0.5 x factor in BF16 and the FP32 bracket read, an FP32 product written */
            CHECK_NEAR(op->u.custom.bytes, amp ? E * (2 + 4 + 4) : E * 2 * 3, 1e-12);
        }
        CHECK((check_find_op(&ol, "gelu.cube.cast.bwd") != NULL) == amp);
        CHECK((check_find_op(&ol, "down_proj.acast") != NULL) == amp);
        ridge_oplist_free(&ol);
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* torchvision's ViT in training (code torch): nn.MultiheadAttention's slow path copies the
 * transposed input and the packed projection, adds the bias in a kernel of its own, and in backward
 * zero-fills and copies three select gradients and sums them (two adds); not in inference (the
 * fused path) nor in other code styles. Under autocast its stream is FP32 (the FP32 class token's
 * cat). */
static void test_vit_mha_training(void)
{
    ridge_model *m = load("vit-b16");
    ridge_err err;
    if (!m)
        return;
    for (int train = 0; train <= 1; train++)
        for (int code = 0; code <= 1; code++) {
            ridge_run_config rc;
            ridge_oplist ol;
            const ridge_op *op;
            int torch = code == 0;
            ridge_run_config_init(&rc);
            rc.mode = train ? RIDGE_MODE_TRAIN : RIDGE_MODE_INFER;
            rc.batch = 64;
            rc.amp = train;
            rc.code = torch ? RIDGE_CODE_TORCH : RIDGE_CODE_ENGINE;
            if (!train)
                rc.precision = RIDGE_DTYPE_FP16;
            check_context(train ? (torch ? "train torch" : "train engine") : (torch ? "infer torch" : "infer engine"));
            if (rc.amp && !torch)
                continue; /* (autocast is eager code's) */
            if (!CHECK(ridge_model_build(m, &rc, &ol, &err) == RIDGE_OK))
                continue;
            op = check_find_op(&ol, "qkv_proj.select.bwd_zero");
            CHECK((op != NULL) == (train && torch));
            if (op) { /* three selects a layer, each a full (3, T, B, E) tensor of bf16 */
                CHECK(op->count == 3 * 12);
                CHECK_NEAR(op->u.custom.bytes, 3 * 64.0 * 197 * 768 * 2, 1e-12);
                CHECK(ridge_host_class_of(op) == RIDGE_HOST_AUTOGRAD);
            }
            CHECK((check_find_op(&ol, "qkv_proj.packed_copy") != NULL) == (train && torch));
            CHECK((check_find_op(&ol, "qkv_proj.in_copy") != NULL) == (train && torch));
            if ((op = check_find_op(&ol, "cls_concat")) != NULL)
                CHECK(op->dtype == (train ? RIDGE_DTYPE_FP32 : RIDGE_DTYPE_FP16));
            ridge_oplist_free(&ol);
        }
    check_context(NULL);
    ridge_model_free(m);
}

/* The training steps of the H200 records as their code runs them (docs/workloads.md, "Training
 * steps and the optimizer"): Hugging Face BERT-base and GPT-2 under bf16 autocast with fused
 * AdamW, and torchvision ResNet-50 with SGD foreach. zero_grad(set_to_none) launches nothing in
 * eager code (a memset as the model is written); GPT-2's gelu_new is 8 + 11 kernels a layer, 9 + 14
 * under autocast in eager code (pow's FP32 cast and the three casts of x's gradients back);
 * an fp16 GradScaler before a foreach SGD reads found_inf with .item() (one host_sync op), before
 * a fused AdamW it does not. */
static void test_training_step_as_run(void)
{
    static const struct {
        const char *id;
        ridge_code code;
        ridge_optimizer opt;
        ridge_optimizer_impl impl;
        double batch, seq, kernels;
    } rows[] = {
        {"bert-base", RIDGE_CODE_HF, RIDGE_OPTIMIZER_ADAMW, RIDGE_OPT_IMPL_FUSED, 32, 128, 1052},
        {"gpt2", RIDGE_CODE_HF, RIDGE_OPTIMIZER_ADAMW, RIDGE_OPT_IMPL_FUSED, 8, 1024, 1053}, /* with split-K reductions (H200: 24 of them); 981 before the GELU's autocast casts (12 x (4 + 2)) */
        {"resnet50", RIDGE_CODE_TORCH, RIDGE_OPTIMIZER_SGD, RIDGE_OPT_IMPL_FOREACH, 64, 0, 850 + 51}, /* native channels_last BN: semaphore fills, one backward reduce; the running statistics' update after each BN's statistics; 903 until the fc's backward stopped repeating its forward GEMM (and its split-K reduction) under autocast */
    };
    ridge_gpu g;
    ridge_err err;
    check_context("training step as run");
    CHECK(ridge_catalog_load("h200-sxm-141gb", &g, &err) == RIDGE_OK);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_model *m = load(rows[i].id);
        for (int code = 0; m && code < 2; code++) {
            for (int fp16 = 0; fp16 < 2; fp16++) {
                ridge_run_config rc;
                ridge_oplist ol;
                ridge_schedule_totals tot;
                int zero = 0, sync = 0, gelu = 0;
                ridge_run_config_init(&rc);
                rc.mode = RIDGE_MODE_TRAIN;
                rc.batch = rows[i].batch;
                if (rows[i].seq > 0)
                    rc.seq = rows[i].seq;
                rc.precision = fp16 ? RIDGE_DTYPE_FP16 : RIDGE_DTYPE_BF16;
                rc.amp = 1;
                rc.optimizer = rows[i].opt;
                rc.optimizer_impl = rows[i].impl;
                rc.code = code ? rows[i].code : RIDGE_CODE_AS_WRITTEN;
                CHECK(ridge_model_build(m, &rc, &ol, &err) == RIDGE_OK);
                for (size_t k = 0; k < ol.n; k++) {
                    zero += strcmp(ol.ops[k].name, "zero_grad") == 0;
                    sync += ol.ops[k].host_sync != 0;
                    gelu += strncmp(ol.ops[k].name, "gelu.", 5) == 0;
                }
                CHECK(zero == (code ? 0 : 1));
                CHECK(sync == (code && fp16 && rows[i].impl == RIDGE_OPT_IMPL_FOREACH ? 1 : 0));
                if (strcmp(rows[i].id, "gpt2") == 0)
                    CHECK(gelu == (code ? 23 : 19));
                if (code && !fp16) {
                    CHECK(ridge_schedule_ops(&g, ol.ops, ol.n, RIDGE_RUNTIME_EAGER, NULL, &tot, &err) == RIDGE_OK);
                    if (!check_near_(tot.kernels, rows[i].kernels, 1e-12, __FILE__, __LINE__, rows[i].id, "kernels"))
                        fprintf(stderr, "  %s: %g kernels\n", rows[i].id, tot.kernels);
                }
                ridge_oplist_free(&ol);
            }
        }
        ridge_model_free(m);
    }
    check_context(NULL);
}

/* The attention ops of m's graph for rc, and how many of them are marked per_head_kv (-1, -1 when
 * it does not build). */
static void per_head_ops(const ridge_model *m, const ridge_run_config *rc, int *attn, int *per_head)
{
    ridge_oplist ol = {0};
    *attn = *per_head = -1;
    if (build(m, rc, &ol) != RIDGE_OK)
        return;
    *attn = *per_head = 0;
    for (size_t j = 0; j < ol.n; j++)
        if (ol.ops[j].kind == RIDGE_OP_ATTENTION) {
            ++*attn;
            *per_head += ol.ops[j].u.attn.per_head_kv != 0;
        }
    ridge_oplist_free(&ol);
}

/* A run whose host profile decodes without GQA packing (ridge_run_config.gqa_per_head, from
 * trtllm-session) marks its attention ops per_head_kv, only where heads share a KV head, and only
 * in a decode step. */
static void test_gqa_per_head(void)
{
    ridge_model *gqa = load("llama2-70b"), *mha = load("llama2-7b"); /* 8 KV heads for 64; MHA */
    ridge_run_config rc;
    int attn, per;
    if (CHECK(gqa) && CHECK(mha)) {
        ridge_run_config_init(&rc);
        rc.mode = RIDGE_MODE_DECODE;
        rc.context = 512;
        rc.gqa_per_head = 1;
        per_head_ops(gqa, &rc, &attn, &per);
        CHECK(attn > 0);
        CHECK_INT(per, attn);
        per_head_ops(mha, &rc, &attn, &per);
        CHECK(attn > 0);
        CHECK_INT(per, 0);
        rc.gqa_per_head = 0;
        per_head_ops(gqa, &rc, &attn, &per);
        CHECK(attn > 0);
        CHECK_INT(per, 0);
        /* a prefill (even of a short prompt) runs the context kernels: never per head */
        rc.gqa_per_head = 1;
        rc.mode = RIDGE_MODE_PREFILL;
        rc.prompt = 16;
        per_head_ops(gqa, &rc, &attn, &per);
        CHECK(attn > 0);
        CHECK_INT(per, 0);
    }
    ridge_model_free(gqa);
    ridge_model_free(mha);
}

/* Megatron's fused bias-dropout-add: one forward kernel per branch (reading the branch and the
 * residual, writing the sum and the mask) instead of a dropout and an add; the backward kernels
 * stay. Other code styles keep the two. */
static void test_bias_dropout_add(void)
{
    ridge_model *m = load("gpt2");
    ridge_run_config rc;
    ridge_oplist ol = {0};
    if (!CHECK(m))
        return;
    for (int k = 0; k < 2; k++) {
        int fused = 0, drop_fwd = 0, drop_bwd = 0, res_fwd = 0;
        ridge_run_config_init(&rc);
        rc.code = k == 0 ? RIDGE_CODE_MEGATRON : RIDGE_CODE_TORCH;
        if (build(m, &rc, &ol) != RIDGE_OK)
            continue;
        for (size_t j = 0; j < ol.n; j++) {
            const char *nm = ol.ops[j].name;
            fused += strcmp(nm, "attention_bias_dropout_add") == 0 || strcmp(nm, "mlp_bias_dropout_add") == 0;
            drop_fwd += strcmp(nm, "attn_out_dropout") == 0 || strcmp(nm, "mlp_out_dropout") == 0;
            drop_bwd += strcmp(nm, "attn_out_dropout.bwd") == 0 || strcmp(nm, "mlp_out_dropout.bwd") == 0;
            res_fwd += strcmp(nm, "attn_residual") == 0 || strcmp(nm, "mlp_residual") == 0;
            if (k == 0 && strcmp(nm, "attention_bias_dropout_add") == 0) /* 3 tensors of e bytes + the mask */
                CHECK_NEAR(ridge_op_min_bytes(&ol.ops[j]), 1024.0 * 768 * (3 * 2 + 1), 1e-12);
        }
        CHECK_INT(fused, k == 0 ? 2 : 0);
        CHECK_INT(drop_fwd, k == 0 ? 0 : 2);
        CHECK_INT(res_fwd, k == 0 ? 0 : 2);
        CHECK_INT(drop_bwd, 2);
        ridge_oplist_free(&ol);
    }
    ridge_model_free(m);
}

int main(void)
{
    test_amp_gelu_new();
    test_vit_mha_training();
    test_amp_composite_stream();
    test_bias_dropout_add();
    test_gqa_per_head();
    test_training_step_as_run();
    test_kernel_counts_as_written();
    test_strided_views();
    test_param_counts();
    test_train_flops_decoder();
    test_infer_flops();
    test_decode_bytes();
    test_optimizer_impls();
    test_loss_upcast();
    test_wgrad_layout();
    test_gqa();
    test_moe();
    test_train_memory();
    test_recompute();
    test_recompute_dropout();
    test_xl_and_vit();
    test_bad_files();
    test_bad_runs();
    test_defaults();
    test_wide_tables();
    test_every_preset();
    test_separate_projections();
    test_dropout_kernels();
    test_parallel_residual();
    test_grad_accum();
    test_qa_head();
    test_mlm_positions();
    return check_report();
}
