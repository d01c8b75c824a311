/* RNN family: LSTM stacks, language models and GNMT-style encoder-decoders with attention
 * (docs/workloads.md, "RNNs").
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Layers are numbered from 1. The encoder is `layers` LSTM layers (the first bidirectional when
 * bidirectional_first); the decoder (decoder_layers > 0) is an attention LSTM (layer 1) whose
 * output queries a Bahdanau attention over the encoder outputs, then decoder_layers - 1 LSTMs whose
 * input is the previous output concatenated with the attention context. Layers numbered
 * residual_from and above add their input to their output. A vocabulary (vocab > 0) adds the
 * embeddings and the classifier (projection to the vocabulary) with a softmax loss. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

#define RNN_DIM_MAX 1000000  /* input, hidden, vocab */
#define RNN_LAYERS_MAX RIDGE_RUN_RNN_LAYERS_MAX
#define RNN_SEQ_MAX RIDGE_RUN_TOKENS_MAX

typedef struct {
    char id[64]; /* the model, for messages ("gnmt") */
    double input; /* features into layer 1 (the embedding width when vocab > 0); 0 = hidden */
    double hidden, layers, vocab, seq, residual_from, decoder_layers;
    int bidir, share_embedding;
} rnn_arch;

/* The arch with the run's overrides applied, and the run's sizes. */
typedef struct {
    double in, h, L, D, V, R; /* input, hidden, encoder layers, decoder layers, vocab, residual_from */
    int bidir, share;
    double b, S, T; /* batch, source and target steps (T = S) */
} rnn_cfg;

static const char *const arch_keys[] = {"cell", "input", "hidden", "layers", "vocab", "seq", "bidirectional_first",
                                        "residual_from", "decoder_layers", "attention", "share_embedding", NULL};

static int get_num(const cJSON *o, const char *key, int required, long lo, long hi, double def, double *out,
                   const rj_ctx *c)
{
    long v = 0;
    int rc = rj_int(o, "$.arch", key, required, lo, hi, &v, c);
    if (rc < 0)
        return rc;
    *out = rc ? (double)v : def;
    return RIDGE_OK;
}

/* Shape rules shared by the file check and the --hidden/--layers check. `where` is a JSON path
 * ("ORIGIN: $.arch.layers") or a run field ("run.layers 1"). */
static int check_shape(const rnn_arch *a, double layers, const char *where, ridge_err *err)
{
    if (a->bidir && layers < 2)
        return ridge_err_set(err, RIDGE_EINVAL,
                             "%s: %g layer with bidirectional_first; at least 2 are needed (layer 2 merges the two "
                             "directions)",
                             where, layers);
    if (a->residual_from > 0 && a->residual_from < (a->bidir ? 3 : 2))
        return ridge_err_set(err, RIDGE_EINVAL,
                             "%s: residual_from %g: layer %g takes a %s-wide input; residual connections need "
                             "layers whose input and output widths are hidden (from layer %d)",
                             where, a->residual_from, a->residual_from,
                             a->residual_from == 1 ? "input" : "2 x hidden", a->bidir ? 3 : 2);
    return RIDGE_OK;
}

static void set_id(char *id, size_t cap, const char *origin)
{
    const char *pre = "builtin:";
    if (strncmp(origin, pre, strlen(pre)) == 0)
        origin += strlen(pre);
    snprintf(id, cap, "%s", origin);
}

#define GET(key, req, lo, hi, def, out)                                     \
    do {                                                                   \
        if ((rc = get_num(j, (key), (req), (lo), (hi), (def), (out), c)) < 0) \
            return rc;                                                     \
    } while (0)

static int rnn_parse(const cJSON *j, void *arch, const rj_ctx *c)
{
    rnn_arch *a = arch;
    char cell[16] = "", att[16] = "", where[RIDGE_ERR_MSG_MAX];
    int rc, has_att;
    set_id(a->id, sizeof a->id, c->origin);
    if ((rc = rj_check_keys(j, "$.arch", arch_keys, c)) < 0)
        return rc;
    if ((rc = rj_string(j, "$.arch", "cell", 1, cell, sizeof cell, c)) < 0)
        return rc;
    if (strcmp(cell, "lstm") != 0)
        return rj_fail(c, RIDGE_EINVAL, "$.arch", "cell", "'%s' is not supported (lstm)", cell);
    GET("hidden", 1, 1, RNN_DIM_MAX, 0, &a->hidden);
    GET("input", 0, 1, RNN_DIM_MAX, 0, &a->input);
    GET("layers", 1, 1, RNN_LAYERS_MAX, 0, &a->layers);
    GET("vocab", 0, 0, RNN_DIM_MAX, 0, &a->vocab);
    GET("seq", 1, 1, RNN_SEQ_MAX, 0, &a->seq);
    GET("residual_from", 0, 0, RNN_LAYERS_MAX, 0, &a->residual_from);
    GET("decoder_layers", 0, 0, RNN_LAYERS_MAX, 0, &a->decoder_layers);
    if ((rc = rj_bool(j, "$.arch", "bidirectional_first", 0, &a->bidir, c)) < 0)
        return rc;
    a->share_embedding = 1;
    if ((rc = rj_bool(j, "$.arch", "share_embedding", 0, &a->share_embedding, c)) < 0)
        return rc;
    if ((rc = has_att = rj_string(j, "$.arch", "attention", 0, att, sizeof att, c)) < 0)
        return rc;
    if (has_att && strcmp(att, "bahdanau") != 0)
        return rj_fail(c, RIDGE_EINVAL, "$.arch", "attention", "'%s' is not supported (bahdanau)", att);
    if (a->decoder_layers > 0 && a->vocab == 0)
        return rj_fail(c, RIDGE_EINVAL, "$.arch", "decoder_layers",
                       "an encoder-decoder needs a vocabulary (vocab > 0) for its decoder inputs and outputs");
    if (a->decoder_layers == 0 && (has_att || cJSON_GetObjectItemCaseSensitive(j, "share_embedding")))
        return rj_fail(c, RIDGE_EINVAL, "$.arch", has_att ? "attention" : "share_embedding",
                       "only applies to an encoder-decoder (decoder_layers > 0)");
    snprintf(where, sizeof where, "%.200s: $.arch.%s", c->origin,
             a->bidir && a->layers < 2 ? "layers" : "residual_from");
    return check_shape(a, a->layers, where, c->err);
}

static void config(const rnn_arch *a, const ridge_run_config *rc, rnn_cfg *k)
{
    memset(k, 0, sizeof *k);
    k->h = rc && rc->hidden > 0 ? rc->hidden : a->hidden;
    k->in = a->input > 0 ? a->input : k->h;
    k->L = rc && rc->layers > 0 ? rc->layers : a->layers;
    k->D = a->decoder_layers > 0 ? (rc && rc->layers > 0 ? rc->layers : a->decoder_layers) : 0;
    k->V = a->vocab;
    k->R = a->residual_from;
    k->bidir = a->bidir;
    k->share = a->share_embedding;
    k->b = rc ? rc->batch : 1;
    k->S = k->T = rc && rc->seq > 0 ? rc->seq : a->seq;
}

/* ---- the encoder's cuDNN calls ----
 * Layer 1 bidirectional: one call per direction. Then the layers without a residual connection
 * as one stacked call, then each residual layer as its own call (the add sits between calls). */
typedef struct {
    double in, layers, count; /* input width of the call, stacked layers, identical calls */
} lstm_call;

static size_t encoder_calls(const rnn_cfg *k, lstm_call out[3], double *residual_layers)
{
    size_t n = 0;
    double j0 = 1, plain_end = k->L, res = 0;
    if (k->bidir) {
        out[n++] = (lstm_call){k->in, 1, 2};
        j0 = 2;
    }
    if (k->R > 0 && k->R <= k->L) {
        plain_end = k->R - 1;
        res = k->L - k->R + 1;
    }
    if (plain_end >= j0)
        out[n++] = (lstm_call){j0 == 1 ? k->in : 2 * k->h, plain_end - j0 + 1, 1};
    if (res > 0)
        out[n++] = (lstm_call){k->h, 1, res};
    *residual_layers = res;
    return n;
}

/* Decoder layers 2..D with a residual connection. */
static double decoder_residuals(const rnn_cfg *k)
{
    double first;
    if (k->D < 2 || k->R <= 0)
        return 0;
    first = k->R > 2 ? k->R : 2;
    return first <= k->D ? k->D - first + 1 : 0;
}

static double lstm_params(double in, double h)
{
    return 4 * h * (in + h) + 8 * h; /* W_ih, W_hh and two bias vectors (cuDNN, PyTorch) */
}

static double lstm_macs(double in, double h, double tokens)
{
    return tokens * 4 * h * (in + h);
}

static double cfg_params(const rnn_cfg *k, double *tensors)
{
    lstm_call calls[3];
    double res, p = 0, t = 0;
    size_t n = encoder_calls(k, calls, &res);
    for (size_t i = 0; i < n; i++) {
        double layers = calls[i].layers * calls[i].count;
        p += calls[i].count * (lstm_params(calls[i].in, k->h) + (calls[i].layers - 1) * lstm_params(k->h, k->h));
        t += 4 * layers;
    }
    if (k->V > 0) {
        p += k->V * k->in + k->h * k->V + k->V; /* embedding, classifier weight and bias */
        t += 3;
    }
    if (k->D > 0) {
        /* attention LSTM, Bahdanau attention (query and key projections, the score vector, the
         * normalization scalar and bias), the context-fed LSTMs */
        p += lstm_params(k->in, k->h) + 2 * k->h * k->h + 2 * k->h + 1 + (k->D - 1) * lstm_params(2 * k->h, k->h);
        t += 4 + 5 + 4 * (k->D - 1);
        if (!k->share) {
            p += k->V * k->in;
            t += 1;
        }
    }
    if (tensors)
        *tensors = t;
    return p;
}

static double rnn_params(const void *arch, const ridge_run_config *rc)
{
    rnn_cfg k;
    config(arch, rc, &k);
    return cfg_params(&k, NULL);
}

static int rnn_resolve(const void *arch, ridge_run_config *rc, ridge_err *err)
{
    const rnn_arch *a = arch;
    char where[64];
    int st;
    if (rc->mode != RIDGE_MODE_TRAIN && rc->mode != RIDGE_MODE_INFER)
        return ridge_err_set(err, RIDGE_EINVAL, "run.mode %s: %s is an RNN; use train or infer",
                             ridge_mode_name(rc->mode), a->id);
    if (rc->image != 0)
        return ridge_err_set(err, RIDGE_EINVAL, "run.image: %s is an RNN; it has no image size", a->id);
    if (rc->seq == 0)
        rc->seq = a->seq;
    if (!(rc->seq >= 1 && rc->seq <= RNN_SEQ_MAX && rc->seq == floor(rc->seq)))
        return ridge_err_set(err, RIDGE_EINVAL, "run.seq: %g is not an integer in [1, %d]", rc->seq, RNN_SEQ_MAX);
    /* --hidden and --layers stay 0 when not given: "the model's" (the decoder keeps its own depth) */
    if (rc->hidden != 0 &&
        !(rc->hidden >= 1 && rc->hidden <= RIDGE_RUN_RNN_HIDDEN_MAX && rc->hidden == floor(rc->hidden)))
        return ridge_err_set(err, RIDGE_EINVAL, "run.hidden: %g is not an integer in [1, %d]", rc->hidden,
                             RIDGE_RUN_RNN_HIDDEN_MAX);
    if (rc->layers != 0) {
        if (!(rc->layers >= 1 && rc->layers <= RNN_LAYERS_MAX && rc->layers == floor(rc->layers)))
            return ridge_err_set(err, RIDGE_EINVAL, "run.layers: %g is not an integer in [1, %d]", rc->layers,
                                 RNN_LAYERS_MAX);
        snprintf(where, sizeof where, "run.layers %g", rc->layers);
        if ((st = check_shape(a, rc->layers, where, err)) != RIDGE_OK)
            return st;
    }
    return RIDGE_OK;
}

/* Model FLOPs of the forward pass: 2 x the multiply-adds of the LSTM gate matrices, the
 * attention projections and products, and the classifier. */
static double forward_flops(const rnn_cfg *k)
{
    lstm_call calls[3];
    double res, macs = 0, src = k->b * k->S, tgt = k->b * k->T;
    size_t n = encoder_calls(k, calls, &res);
    for (size_t i = 0; i < n; i++)
        macs += calls[i].count *
                (lstm_macs(calls[i].in, k->h, src) + (calls[i].layers - 1) * lstm_macs(k->h, k->h, src));
    if (k->D > 0) {
        macs += lstm_macs(k->in, k->h, tgt) + (k->D - 1) * lstm_macs(2 * k->h, k->h, tgt);
        macs += src * k->h * k->h + tgt * k->h * k->h; /* key and query projections */
        macs += 2 * tgt * k->S * k->h;                 /* scores (tanh(q + k) . v) and the context */
    }
    if (k->V > 0)
        macs += tgt * k->h * k->V;
    return 2 * macs;
}

static double rnn_flops(const void *arch, const ridge_run_config *rc)
{
    rnn_cfg k;
    config(arch, rc, &k);
    return forward_flops(&k) * (rc->mode == RIDGE_MODE_TRAIN ? 3 : 1);
}

static const char *rnn_unit(const void *arch, const ridge_run_config *rc)
{
    const rnn_arch *a = arch;
    (void)rc;
    return a->vocab > 0 ? "tokens/s" : "sequences/s";
}

static double rnn_items(const void *arch, const ridge_run_config *rc)
{
    rnn_cfg k;
    config(arch, rc, &k);
    return k.V > 0 ? k.b * k.T : k.b; /* target tokens, or sequences */
}

/* ------------------------------------------------------------ graph */

/* The backward half of what a graph.h helper adds in training (it pushes the forward first). */
static void keep_backward(rw_graph *g, size_t n0, size_t nfwd)
{
    if (g->failed || g->n < n0 + nfwd)
        return;
    memmove(&g->ops[n0], &g->ops[n0 + nfwd], (g->n - n0 - nfwd) * sizeof *g->ops);
    g->n -= nfwd;
}

/* cuDNN has no fp8 or integer RNN path: those runs keep the LSTMs in the activation dtype. */
static ridge_dtype lstm_dtype(ridge_dtype p)
{
    return p == RIDGE_DTYPE_FP8 || p == RIDGE_DTYPE_INT8 || p == RIDGE_DTYPE_INT4 ? rw_act_dtype(p)
                                                                                   : rw_math_dtype(p);
}

static void push_lstm(rw_graph *g, const char *name, ridge_dtype dt, double batch, double seq, double in, double h,
                      double layers, int train, double count)
{
    ridge_op *op;
    /* cuDNN keeps the stack's weights in one buffer: one cast of 4h(in + h) + 4h(h + h)(layers - 1)
     * values (biases are small and left out), and in training one of their gradients. */
    double weights = 4 * h * (in + h) + 4 * h * (2 * h) * (layers - 1);
    rw_weight_cast(g, "lstm", name, dt, weights, count);
    op = rw_push(g, RIDGE_OP_LSTM, dt, "lstm", name, count);
    if (!op)
        return;
    op->u.lstm.batch = batch;
    op->u.lstm.seq = seq;
    op->u.lstm.input = in;
    op->u.lstm.hidden = h;
    op->u.lstm.layers = layers;
    op->u.lstm.pass = train ? RIDGE_PASS_FWD_BWD : RIDGE_PASS_FWD;
    if (train)
        rw_grad_cast(g, "lstm", name, dt, weights, count);
}

static void push_embedding(rw_graph *g, const char *name, ridge_dtype dt, double tokens, double dim, double vocab,
                           double count)
{
    ridge_op *op = rw_push(g, RIDGE_OP_EMBEDDING, dt, "embedding", name, count);
    if (!op)
        return;
    op->u.emb.tokens = tokens;
    op->u.emb.dim = dim;
    op->u.emb.vocab = vocab;
    rw_cold(g, op, tokens * dim * ridge_dtype_bytes(dt)); /* the table rows it gathers */
}

static void push_rows(rw_graph *g, ridge_op_kind kind, const char *group, const char *name, ridge_dtype dt,
                      double rows, double cols, double count)
{
    ridge_op *op = rw_push(g, kind, dt, group, name, count);
    if (!op)
        return;
    op->u.rows.rows = rows;
    op->u.rows.cols = cols;
}

/* The backward half of one helper call made with train = 1. */
#define BWD_HALF(call)                \
    do {                              \
        size_t n0_ = g->n;            \
        call;                         \
        keep_backward(g, n0_, 1);     \
    } while (0)

static void encoder(rw_graph *g, const rnn_cfg *k, const ridge_run_config *rc, int bwd)
{
    int train = rc->mode == RIDGE_MODE_TRAIN;
    ridge_dtype at = rw_act_dtype(rc->precision), lt = lstm_dtype(rc->precision);
    lstm_call calls[3];
    double res, src = k->b * k->S;
    size_t n = encoder_calls(k, calls, &res);
    if (!bwd) {
        if (k->V > 0)
            push_embedding(g, "encoder.embedding", at, src, k->in, k->V, 1);
        for (size_t i = 0; i < n; i++) {
            const char *nm = k->bidir && i == 0 ? "encoder.bidirectional"
                             : res > 0 && i == n - 1 ? "encoder.residual_lstm"
                                                     : "encoder.lstm";
            /* Forward and backward of a cuDNN layer stack are one op (pass fwd_bwd). */
            push_lstm(g, nm, lt, k->b, k->S, calls[i].in, k->h, calls[i].layers, train, calls[i].count);
        }
        if (res > 0)
            rw_elementwise(g, "other", "encoder.residual_add", at, src * k->h, 2, 1, 1, 0, res);
        return;
    }
    if (res > 0) /* the gradient reaching a residual layer's input is the sum of two */
        rw_elementwise(g, "other", "encoder.residual_add.bwd", at, src * k->h, 2, 1, 1, 0, res);
    if (k->V > 0)
        push_embedding(g, "encoder.embedding.bwd", at, src, k->in, k->V, 1);
}

/* Teacher-forced decoder over all target steps at once (training, bwd = 0 then 1) */
static void decoder_batched(rw_graph *g, const rnn_cfg *k, const ridge_run_config *rc, int bwd)
{
    int train = rc->mode == RIDGE_MODE_TRAIN;
    ridge_dtype dt = rw_math_dtype(rc->precision), at = rw_act_dtype(rc->precision), lt = lstm_dtype(rc->precision);
    double src = k->b * k->S, tgt = k->b * k->T, scores = tgt * k->S, res = decoder_residuals(k);
    if (!bwd) {
        push_embedding(g, "decoder.embedding", at, tgt, k->in, k->V, 1);
        push_lstm(g, "decoder.attention_lstm", lt, k->b, k->T, k->in, k->h, 1, train, 1);
    } else {
        if (res > 0)
            rw_elementwise(g, "other", "decoder.residual_add.bwd", at, tgt * k->h, 2, 1, 1, 0, res);
        if (k->D > 1) /* the context feeds every layer: its gradients are summed */
            rw_elementwise(g, "other", "decoder.concat.bwd", at, tgt * k->h, 2, 1, 1, 0, k->D - 1);
        /* context = P V: dP = dC V^T, dV = P^T dC */
        rw_gemm(g, "attention", "attention.context.dgrad", dt, k->T, k->S, k->h, k->b, 1);
        rw_gemm(g, "attention", "attention.context.wgrad", dt, k->S, k->h, k->T, k->b, 1);
    }
    if (!bwd) {
        rw_linear(g, "attention", "attention.key", dt, src, k->h, k->h, 0, 1);
        rw_linear(g, "attention", "attention.query", dt, tgt, k->h, k->h, 0, 1);
        /* q + k broadcast over (target, source) pairs plus the normalization bias */
        rw_elementwise(g, "attention", "attention.sum_qk", at, scores * k->h, 0, 1, 2, 0, 1);
        rw_elementwise(g, "attention", "attention.tanh", at, scores * k->h, 1, 1, 4, 0, 1);
        rw_linear(g, "attention", "attention.score", dt, scores, k->h, 1, 0, 1);
        rw_rows(g, RIDGE_OP_SOFTMAX, "attention", "attention.softmax", at, tgt, k->S, 0, 1);
        rw_gemm(g, "attention", "attention.context", dt, k->T, k->h, k->S, k->b, 1);
    } else {
        BWD_HALF(rw_rows(g, RIDGE_OP_SOFTMAX, "attention", "attention.softmax", at, tgt, k->S, 1, 1));
        rw_linear_backward(g, "attention", "attention.score", dt, scores, k->h, 1, 1, 1);
        BWD_HALF(rw_elementwise(g, "attention", "attention.tanh", at, scores * k->h, 1, 1, 4, 1, 1));
        /* the broadcast add: sum the gradient over sources (query) and over targets (keys) */
        push_rows(g, RIDGE_OP_REDUCE, "attention", "attention.sum_qk.bwd_query", at, tgt * k->h, k->S, 1);
        push_rows(g, RIDGE_OP_REDUCE, "attention", "attention.sum_qk.bwd_key", at, src * k->h, k->T, 1);
        rw_linear_backward(g, "attention", "attention.query", dt, tgt, k->h, k->h, 1, 1);
        rw_linear_backward(g, "attention", "attention.key", dt, src, k->h, k->h, 1, 1);
        push_embedding(g, "decoder.embedding.bwd", at, tgt, k->in, k->V, 1);
        return;
    }
    if (k->D > 1) {
        rw_elementwise(g, "other", "decoder.concat", at, tgt * k->h, 2, 2, 0, 0, k->D - 1);
        push_lstm(g, "decoder.lstm", lt, k->b, k->T, 2 * k->h, k->h, 1, train, k->D - 1);
    }
    if (res > 0)
        rw_elementwise(g, "other", "decoder.residual_add", at, tgt * k->h, 2, 1, 1, 0, res);
}

/* Greedy decoding (inference): one step per target token, each op with count = steps. */
static void decoder_steps(rw_graph *g, const rnn_cfg *k, const ridge_run_config *rc)
{
    ridge_dtype dt = rw_math_dtype(rc->precision), at = rw_act_dtype(rc->precision), lt = lstm_dtype(rc->precision);
    double T = k->T, b = k->b, res = decoder_residuals(k);
    rw_linear(g, "attention", "attention.key", dt, b * k->S, k->h, k->h, 0, 1);
    push_embedding(g, "decoder.embedding", at, b, k->in, k->V, T);
    push_lstm(g, "decoder.attention_lstm", lt, b, 1, k->in, k->h, 1, 0, T);
    rw_linear(g, "attention", "attention.query", dt, b, k->h, k->h, 0, T);
    rw_elementwise(g, "attention", "attention.sum_qk", at, b * k->S * k->h, 0, 1, 2, 0, T);
    rw_elementwise(g, "attention", "attention.tanh", at, b * k->S * k->h, 1, 1, 4, 0, T);
    rw_linear(g, "attention", "attention.score", dt, b * k->S, k->h, 1, 0, T);
    rw_rows(g, RIDGE_OP_SOFTMAX, "attention", "attention.softmax", at, b, k->S, 0, T);
    rw_gemm(g, "attention", "attention.context", dt, 1, k->h, k->S, b, T);
    if (k->D > 1) {
        rw_elementwise(g, "other", "decoder.concat", at, b * k->h, 2, 2, 0, 0, T * (k->D - 1));
        push_lstm(g, "decoder.lstm", lt, b, 1, 2 * k->h, k->h, 1, 0, T * (k->D - 1));
    }
    if (res > 0)
        rw_elementwise(g, "other", "decoder.residual_add", at, b * k->h, 2, 1, 1, 0, T * res);
    rw_linear(g, "classifier", "classifier", dt, b, k->h, k->V, 0, T);
    push_rows(g, RIDGE_OP_REDUCE, "classifier", "argmax", at, b, k->V, T);
}

static int rnn_build(const void *arch, const ridge_run_config *rc, rw_graph *g, ridge_err *err)
{
    rnn_cfg k;
    int train = rc->mode == RIDGE_MODE_TRAIN;
    ridge_dtype dt = rw_math_dtype(rc->precision), at = rw_act_dtype(rc->precision);
    double tensors = 0, params;
    (void)err;
    config(arch, rc, &k);
    encoder(g, &k, rc, 0);
    if (!train) {
        if (k.D > 0)
            decoder_steps(g, &k, rc);
        else if (k.V > 0)
            rw_linear(g, "classifier", "classifier", dt, k.b * k.T, k.h, k.V, 0, 1);
        return RIDGE_OK;
    }
    if (k.D > 0)
        decoder_batched(g, &k, rc, 0);
    if (k.V > 0) {
        rw_linear(g, "classifier", "classifier", dt, k.b * k.T, k.h, k.V, 0, 1);
        rw_rows(g, RIDGE_OP_SOFTMAX, "loss", "loss", at, k.b * k.T, k.V, 0, 1);
        BWD_HALF(rw_rows(g, RIDGE_OP_SOFTMAX, "loss", "loss", at, k.b * k.T, k.V, 1, 1));
        rw_linear_backward(g, "classifier", "classifier", dt, k.b * k.T, k.h, k.V, 1, 1);
    }
    if (k.D > 0)
        decoder_batched(g, &k, rc, 1);
    encoder(g, &k, rc, 1);
    params = cfg_params(&k, &tensors);
    rw_optimizer(g, params, tensors, rc->precision, rc->optimizer, rc->optimizer_impl);
    return RIDGE_OK;
}

/* Training: what the backward pass reads (docs/workloads.md, "RNNs"); inference: the largest set
 * of sequences live at once. */
static int rnn_memory(const void *arch, const ridge_run_config *rc, ridge_memory *m, ridge_err *err)
{
    rnn_cfg k;
    lstm_call calls[3];
    double es = ridge_dtype_bytes(rw_act_dtype(rc->precision)), res, el = 0;
    size_t n;
    (void)err;
    config(arch, rc, &k);
    n = encoder_calls(&k, calls, &res);
    if (rc->mode == RIDGE_MODE_TRAIN) {
        double src = k.b * k.S, tgt = k.b * k.T;
        for (size_t i = 0; i < n; i++) {
            /* cuDNN's reserve space: 4 gates, the cell state and the output of every step and
             * layer; and the input sequence of the call (a bidirectional pair shares it). */
            el += 6 * src * k.h * calls[i].layers * calls[i].count;
            el += src * calls[i].in * (k.bidir && i == 0 ? 1 : calls[i].count);
        }
        if (k.D > 0) {
            el += 6 * tgt * k.h * k.D + tgt * k.in + (k.D - 1) * tgt * 2 * k.h; /* LSTMs and their inputs */
            el += 2 * src * k.h + tgt * k.h;         /* encoder outputs, keys, attention-LSTM output */
            el += tgt * k.S * k.h + tgt * k.S;        /* tanh(q + k) and the attention weights */
        }
        if (k.V > 0)
            el += tgt * k.h + tgt * k.V * 4 / es; /* classifier input; fp32 softmax for the loss */
    } else {
        double src = k.b * k.S;
        for (size_t i = 0; i < n; i++) {
            double w_out = (k.bidir && i == 0 ? 2 : 1) * k.h;
            if (src * (calls[i].in + w_out) > el)
                el = src * (calls[i].in + w_out);
        }
        if (k.D > 0) {
            /* encoder outputs and keys, one step's q + k, the logits and the step's states */
            double dec = 3 * src * k.h + k.b * k.V + 4 * k.b * k.h * (k.D + 1);
            if (dec > el)
                el = dec;
        } else if (k.V > 0 && src * (k.h + k.V) > el) {
            el = src * (k.h + k.V);
        }
    }
    m->activations_bytes = el * es;
    m->kv_cache_bytes = 0;
    return RIDGE_OK;
}

static void rnn_free_arch(void *arch)
{
    (void)arch;
}

const rw_family rw_family_rnn = {
    "rnn",     sizeof(rnn_arch), rnn_parse,  rnn_free_arch, rnn_params, rnn_resolve,
    rnn_build, rnn_memory,       rnn_flops,  rnn_unit,      rnn_items,   NULL, /* no experts */
    NULL, /* no 16-bit tables */
};
