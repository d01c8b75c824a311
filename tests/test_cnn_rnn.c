/* Tests of the CNN and RNN model families (workloads/cnn.c, workloads/rnn.c) and their presets.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "check_oplist.h"
#include "ridge/workload.h"

/* ------------------------------------------------------------ helpers */

static ridge_model *load(const char *id)
{
    ridge_model *m = NULL;
    ridge_err err = {{0}};
    if (!CHECK(ridge_model_load_builtin(id, &m, &err) == RIDGE_OK))
        fprintf(stderr, "  %s: %s\n", id, err.msg);
    return m;
}

/* The preset `id` (checked) built for rc into ol (checked); NULL, nothing left to free, when either fails. */
static ridge_model *load_built(const char *id, const ridge_run_config *rc, ridge_oplist *ol)
{
    ridge_model *m = load(id);
    ridge_err err;
    if (m && !CHECK(ridge_model_build(m, rc, ol, &err) == RIDGE_OK)) {
        ridge_model_free(m);
        return NULL;
    }
    return m;
}

/* Write text to a fresh temporary file; the caller unlinks it. */
static int write_temp(const char *text, char *path, size_t cap)
{
    int fd;
    FILE *f;
    snprintf(path, cap, "/tmp/ridge_test_cnn_rnn_XXXXXX");
    fd = mkstemp(path);
    if (fd < 0)
        return -1;
    f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(path);
        return -1;
    }
    fputs(text, f);
    fclose(f);
    return 0;
}

/* Load a model file written from `text`. */
static int load_text(const char *text, ridge_model **m, ridge_err *err)
{
    char path[64];
    int rc;
    *m = NULL;
    if (write_temp(text, path, sizeof path) != 0)
        return ridge_err_set(err, RIDGE_EIO, "cannot write a temporary file");
    rc = ridge_model_load_file(path, m, err);
    unlink(path);
    return rc;
}

static ridge_run_config config(ridge_mode mode, ridge_dtype p, double batch)
{
    ridge_run_config rc;
    ridge_run_config_init(&rc);
    rc.mode = mode;
    rc.precision = p;
    rc.batch = batch;
    return rc;
}

/* Sum of ridge_op_flops x count over the ops whose group is one of `groups` (NULL-terminated;
 * NULL = all ops), optionally only of one kind (-1 = any). */
static double graph_flops(const ridge_oplist *ol, const char *const *groups, int kind)
{
    double f = 0;
    for (size_t i = 0; i < ol->n; i++) {
        int in = groups == NULL;
        for (const char *const *g = groups; g && *g; g++)
            if (strcmp(ol->ops[i].group, *g) == 0)
                in = 1;
        if (in && (kind < 0 || (int)ol->ops[i].kind == kind))
            f += ridge_op_flops(&ol->ops[i]) * ol->ops[i].count;
    }
    return f;
}

/* Convolution and GEMM FLOPs of the ops in `groups`. */
static double matmul_flops(const ridge_oplist *ol, const char *const *groups)
{
    return graph_flops(ol, groups, RIDGE_OP_CONV2D) + graph_flops(ol, groups, RIDGE_OP_GEMM);
}

/* ------------------------------------------------------------ parameter counts */

typedef struct {
    const char *id;
    const char *family;
    double published; /* parameter count from the source named in the preset */
    double exact;     /* an exact count from the reference code (0: none) */
    const char *unit;
} param_row;

static const param_row param_rows[] = {
    /* torchvision model cards / the reference implementations */
    {"resnet50", "cnn", 25.56e6, 25557032, "images/s"},
    {"vgg16", "cnn", 138.36e6, 138357544, "images/s"},
    {"mobilenet-v2", "cnn", 3.50e6, 3504872, "images/s"},
    /* DLE SSD300 v1.1 publishes no count: counted by hand from ssd/model.py (backbone to conv4_x
     * 8,543,296; extra blocks 3,773,696; heads 10,577,910) */
    {"ssd300", "cnn", 22894902, 22894902, "images/s"},
    /* 2 layers x (4 x 1024 x 2048 + 8 x 1024) */
    {"lstm", "rnn", 16793600, 16793600, "sequences/s"},
    /* DLE GNMT: ~160M */
    {"gnmt", "rnn", 160e6, 0, "tokens/s"},
};

static void test_param_counts(void)
{
    char ctx[128];
    for (size_t i = 0; i < sizeof param_rows / sizeof param_rows[0]; i++) {
        const param_row *r = &param_rows[i];
        ridge_model *m;
        ridge_run_config rc = config(RIDGE_MODE_TRAIN, RIDGE_DTYPE_FP16, 3);
        snprintf(ctx, sizeof ctx, "params %s", r->id);
        check_context(ctx);
        if (!(m = load(r->id)))
            continue;
        CHECK_STR_EQ(ridge_model_family(m), r->family);
        CHECK_NEAR(ridge_model_params(m), r->published, 0.01);
        if (r->exact > 0)
            CHECK_NEAR(ridge_model_params(m), r->exact, 0);
        CHECK_STR_EQ(ridge_model_throughput_unit(m, &rc), r->unit);
        ridge_model_free(m);
    }
    check_context(NULL);
}

/* ------------------------------------------------------------ CNN FLOPs */

typedef struct {
    const char *id;
    double macs;   /* published forward multiply-adds per image at the default size */
    double tol;
} macs_row;

static const macs_row macs_rows[] = {
    {"resnet50", 4.1e9, 0.03},      /* He et al. / torchvision: 4.1 (4.09) GMACs */
    {"vgg16", 15.5e9, 0.01},        /* torchvision: 15.47 GMACs */
    {"mobilenet-v2", 0.30e9, 0.03}, /* Sandler et al. Table 3: 300M multiply-adds */
};

static void test_cnn_flops(void)
{
    static const char *const conv_fc[] = {"conv", "fc", NULL};
    char ctx[128];
    for (size_t i = 0; i < sizeof macs_rows / sizeof macs_rows[0]; i++) {
        const macs_row *r = &macs_rows[i];
        ridge_model *m;
        ridge_run_config inf = config(RIDGE_MODE_INFER, RIDGE_DTYPE_FP16, 1);
        ridge_run_config tr = config(RIDGE_MODE_TRAIN, RIDGE_DTYPE_FP16, 1);
        ridge_oplist fwd = {0}, step = {0};
        ridge_err err;
        snprintf(ctx, sizeof ctx, "flops %s", r->id);
        check_context(ctx);
        if (!(m = load(r->id)))
            continue;
        CHECK_NEAR(ridge_model_flops(m, &inf), 2 * r->macs, r->tol);
        CHECK_NEAR(ridge_model_flops(m, &tr), 3 * ridge_model_flops(m, &inf), 1e-12);
        /* The forward graph's convolutions and GEMMs are the model's forward FLOPs. */
        if (CHECK(ridge_model_build(m, &inf, &fwd, &err) == RIDGE_OK))
            CHECK_NEAR(matmul_flops(&fwd, conv_fc), ridge_model_flops(m, &inf), 1e-9);
        /* A training step does ~3x (the first conv has no dgrad: a little less). */
        if (CHECK(ridge_model_build(m, &tr, &step, &err) == RIDGE_OK)) {
            double ratio = matmul_flops(&step, conv_fc) / matmul_flops(&fwd, conv_fc);
            CHECK(ratio > 2.9 && ratio <= 3.0);
        }
        /* FLOPs scale with the batch. */
        inf.batch = 7;
        CHECK_NEAR(ridge_model_flops(m, &inf), 7 * 2 * r->macs, r->tol);
        ridge_oplist_free(&fwd);
        ridge_oplist_free(&step);
        ridge_model_free(m);
    }
    check_context(NULL);
}

/* ResNet-50's training graph: conv passes, BN, loss, optimizer; repeated blocks merged. */
static void test_resnet50_graph(void)
{
    ridge_run_config rc = config(RIDGE_MODE_TRAIN, RIDGE_DTYPE_BF16, 32);
    ridge_oplist ol = {0};
    ridge_err err;
    const ridge_op *op;
    int fwd = 0, dgrad = 0, wgrad = 0, count5 = 0;
    ridge_model *m;
    check_context("resnet50 graph");
    if (!(m = load_built("resnet50", &rc, &ol)))
        return;
    for (size_t i = 0; i < ol.n; i++) {
        if (ol.ops[i].kind == RIDGE_OP_CONV2D) {
            fwd += ol.ops[i].u.conv.pass == RIDGE_PASS_FWD;
            dgrad += ol.ops[i].u.conv.pass == RIDGE_PASS_BWD_DATA;
            wgrad += ol.ops[i].u.conv.pass == RIDGE_PASS_BWD_FILTER;
            CHECK(ol.ops[i].dtype == RIDGE_DTYPE_BF16);
        }
        if (ol.ops[i].count == 5) /* conv4_x: blocks 2..6 as one op */
            count5++;
    }
    CHECK_INT(fwd, wgrad);
    CHECK_INT(dgrad, fwd - 1); /* the stem conv's input needs no gradient */
    CHECK(count5 > 0);
    CHECK(ol.n < 400);
    /* The stem: 7x7/2 on 224 -> 112 */
    if (CHECK((op = check_find_op(&ol, "l0.conv")) != NULL)) {
        CHECK_INT(op->u.conv.n, 32);
        CHECK_INT(op->u.conv.c, 3);
        CHECK_INT(op->u.conv.k, 64);
        CHECK_INT(op->u.conv.h, 224);
        CHECK_INT(op->u.conv.r, 7);
    }
    CHECK(check_find_op(&ol, "l0.conv.dgrad") == NULL);
    CHECK(check_find_op(&ol, "l0.conv.wgrad") != NULL);
    /* conv5_x's first block projects 1024 -> 2048 at stride 2 on 14x14 */
    if (CHECK((op = check_find_op(&ol, "l7[0].downsample")) != NULL)) {
        CHECK_INT(op->u.conv.c, 1024);
        CHECK_INT(op->u.conv.k, 2048);
        CHECK_INT(op->u.conv.h, 14);
        CHECK_INT(op->u.conv.stride, 2);
    }
    if (CHECK((op = check_find_op(&ol, "l6[1:6].conv2")) != NULL))
        CHECK_INT(op->count, 5);
    CHECK(check_find_op(&ol, "l1.bn.stats") != NULL); /* batch statistics in training */
    CHECK(check_find_op(&ol, "loss") != NULL && check_find_op(&ol, "loss.bwd") != NULL);
    CHECK(check_find_op(&ol, "adamw_step") != NULL);
    for (size_t i = 0; i < ol.n; i++) {
        static const char *const groups[] = {"conv", "bn", "activation", "pool", "fc", "loss", "optimizer", "other"};
        int ok = 0;
        for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
            ok |= strcmp(ol.ops[i].group, groups[g]) == 0;
        if (!ok)
            CHECK_STR_EQ(ol.ops[i].group, "one of the CNN groups");
    }
    ridge_oplist_free(&ol);
    /* Inference: no backward, no BN statistics, no loss. */
    rc.mode = RIDGE_MODE_INFER;
    if (CHECK(ridge_model_build(m, &rc, &ol, &err) == RIDGE_OK)) {
        CHECK(check_find_op(&ol, "l0.conv.wgrad") == NULL);
        CHECK(check_find_op(&ol, "l1.bn.stats") == NULL);
        CHECK(check_find_op(&ol, "loss") == NULL);
        CHECK(check_find_op(&ol, "adamw_step") == NULL);
        ridge_oplist_free(&ol);
    }
    ridge_model_free(m);
    check_context(NULL);
}

/* SSD300: feature maps 38..1 and 8732 default boxes. */
static void test_ssd300(void)
{
    static const double side[6] = {38, 19, 10, 5, 3, 1};
    ridge_run_config rc = config(RIDGE_MODE_TRAIN, RIDGE_DTYPE_FP16, 4);
    ridge_oplist ol = {0};
    const ridge_op *op;
    ridge_model *m;
    check_context("ssd300");
    if (!(m = load_built("ssd300", &rc, &ol)))
        return;
    for (int i = 0; i < 6; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "l7.conf%d", i);
        if (CHECK((op = check_find_op(&ol, nm)) != NULL)) {
            CHECK_INT(op->u.conv.h, side[i]);
            CHECK_INT(op->u.conv.k, (i == 0 || i >= 4 ? 4 : 6) * 81);
        }
    }
    if (CHECK((op = check_find_op(&ol, "l7.loss.conf")) != NULL)) {
        CHECK_INT(op->u.rows.rows, 4 * 8732);
        CHECK_INT(op->u.rows.cols, 81);
    }
    ridge_oplist_free(&ol);
    ridge_model_free(m);
    check_context(NULL);
}

/* ------------------------------------------------------------ LSTM FLOPs and overrides */

/* 2 batch seq 4 hidden (in_l + hidden) per layer, forward. */
static double lstm_hand_flops(double batch, double seq, double input, double hidden, double layers)
{
    double f = 0;
    for (double l = 0; l < layers; l++)
        f += 2 * batch * seq * 4 * hidden * ((l == 0 ? input : hidden) + hidden);
    return f;
}

typedef struct {
    double batch, seq, hidden, layers; /* run overrides (0: the preset's) */
    double e_seq, e_hidden, e_layers;  /* what the run uses */
} lstm_row;

static const lstm_row lstm_rows[] = {
    {16, 0, 0, 0, 128, 1024, 2},
    {3, 77, 0, 0, 77, 1024, 2},
    {5, 0, 512, 3, 128, 512, 3},
    {1, 33, 2048, 1, 33, 2048, 1},
};

static void test_lstm(void)
{
    static const char *const lstm_group[] = {"lstm", NULL};
    char ctx[128];
    ridge_model *m = load("lstm");
    if (!m)
        return;
    for (size_t i = 0; i < sizeof lstm_rows / sizeof lstm_rows[0]; i++) {
        const lstm_row *r = &lstm_rows[i];
        ridge_run_config inf = config(RIDGE_MODE_INFER, RIDGE_DTYPE_FP16, r->batch);
        ridge_run_config tr;
        ridge_oplist ol = {0};
        ridge_err err;
        double hand = lstm_hand_flops(r->batch, r->e_seq, 1024, r->e_hidden, r->e_layers);
        double params = 0;
        snprintf(ctx, sizeof ctx, "lstm batch %g seq %g hidden %g layers %g", r->batch, r->seq, r->hidden, r->layers);
        check_context(ctx);
        inf.seq = r->seq;
        inf.hidden = r->hidden;
        inf.layers = r->layers;
        tr = inf;
        tr.mode = RIDGE_MODE_TRAIN;
        CHECK_NEAR(ridge_model_flops(m, &inf), hand, 1e-12);
        CHECK_NEAR(ridge_model_flops(m, &tr), 3 * hand, 1e-12);
        CHECK_NEAR(ridge_model_items_per_step(m, &tr), r->batch, 0);
        /* The graph: one cuDNN stack; its op adds the 10 pointwise FLOPs per unit and step. */
        if (CHECK(ridge_model_build(m, &inf, &ol, &err) == RIDGE_OK)) {
            CHECK_INT(ol.n, 1);
            CHECK(ol.ops[0].kind == RIDGE_OP_LSTM && ol.ops[0].u.lstm.pass == RIDGE_PASS_FWD);
            CHECK_INT(ol.ops[0].u.lstm.layers, r->e_layers);
            CHECK_INT(ol.ops[0].u.lstm.hidden, r->e_hidden);
            CHECK_INT(ol.ops[0].u.lstm.input, 1024);
            CHECK_NEAR(graph_flops(&ol, lstm_group, RIDGE_OP_LSTM),
                       hand + 10 * r->batch * r->e_seq * r->e_layers * r->e_hidden, 1e-12);
            ridge_oplist_free(&ol);
        }
        if (CHECK(ridge_model_build(m, &tr, &ol, &err) == RIDGE_OK)) {
            const ridge_op *zg = check_find_op(&ol, "zero_grad");
            CHECK(ol.ops[0].u.lstm.pass == RIDGE_PASS_FWD_BWD);
            CHECK_NEAR(graph_flops(&ol, lstm_group, RIDGE_OP_LSTM),
                       3 * (hand + 10 * r->batch * r->e_seq * r->e_layers * r->e_hidden), 1e-12);
            /* --hidden/--layers change the parameters the optimizer updates */
            for (double l = 0; l < r->e_layers; l++)
                params += 4 * r->e_hidden * ((l == 0 ? 1024 : r->e_hidden) + r->e_hidden) + 8 * r->e_hidden;
            if (CHECK(zg != NULL))
                CHECK_NEAR(zg->u.ew.elements, params, 0);
            ridge_oplist_free(&ol);
        }
        {
            ridge_memory mem;
            if (CHECK(ridge_model_memory(m, &tr, &mem, &err) == RIDGE_OK)) {
                CHECK_NEAR(mem.weights_bytes, 2 * params, 1e-12);
                CHECK_NEAR(mem.gradients_bytes, 2 * params, 1e-12);
                CHECK_NEAR(mem.optimizer_bytes, 12 * params, 1e-12); /* AdamW m, v + fp32 master */
            }
        }
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* GNMT: hand count of the DLE GNMT v2 shapes and FLOPs. */
static void test_gnmt(void)
{
    static const char *const matmul_groups[] = {"lstm", "attention", "classifier", NULL};
    ridge_model *m = load("gnmt");
    ridge_run_config tr = config(RIDGE_MODE_TRAIN, RIDGE_DTYPE_FP16, 2.0 * 64);
    ridge_run_config inf;
    ridge_oplist ol = {0};
    ridge_err err;
    double h = 1024, V = 32320, b = 128, s = 50, lstm, fwd;
    check_context("gnmt");
    if (!m)
        return;
    /* encoder: bidirectional (2 x), 2h -> h, 2 residual h -> h; decoder: attention LSTM, 3 x 2h -> h */
    lstm = 2 * 4 * h * 2 * h + 4 * h * 3 * h + 2 * 4 * h * 2 * h + 4 * h * 2 * h + 3 * 4 * h * 3 * h;
    fwd = 2 * b * s * (lstm + 2 * h * h + 2 * s * h + h * V);
    CHECK_NEAR(ridge_model_flops(m, &tr), 3 * fwd, 1e-12);
    CHECK_NEAR(ridge_model_items_per_step(m, &tr), b * s, 0);
    inf = tr;
    inf.mode = RIDGE_MODE_INFER;
    CHECK_NEAR(ridge_model_flops(m, &inf), fwd, 1e-12);
    /* The matrix work of the graphs (gate pointwise and the attention elementwise aside) is the
     * model FLOPs, whether teacher-forced (train) or one step at a time (greedy decoding). */
    if (CHECK(ridge_model_build(m, &tr, &ol, &err) == RIDGE_OK)) {
        double f = graph_flops(&ol, matmul_groups, RIDGE_OP_GEMM) + graph_flops(&ol, matmul_groups, RIDGE_OP_LSTM);
        CHECK_NEAR(f, 3 * fwd, 0.005);
        CHECK(check_find_op(&ol, "encoder.bidirectional") != NULL &&
              check_find_op(&ol, "encoder.bidirectional")->count == 2);
        CHECK(check_find_op(&ol, "encoder.residual_lstm") != NULL &&
              check_find_op(&ol, "encoder.residual_lstm")->count == 2);
        CHECK(check_find_op(&ol, "decoder.lstm") != NULL && check_find_op(&ol, "decoder.lstm")->count == 3);
        ridge_oplist_free(&ol);
    }
    if (CHECK(ridge_model_build(m, &inf, &ol, &err) == RIDGE_OK)) {
        double f = graph_flops(&ol, matmul_groups, RIDGE_OP_GEMM) + graph_flops(&ol, matmul_groups, RIDGE_OP_LSTM);
        CHECK_NEAR(f, fwd, 0.005);
        CHECK(check_find_op(&ol, "decoder.attention_lstm") != NULL &&
              check_find_op(&ol, "decoder.attention_lstm")->count == s);
        ridge_oplist_free(&ol);
    }
    /* --layers sets both stacks (DLE's --num-layers): 8 + 8 is the paper's depth */
    tr.layers = 8;
    if (CHECK(ridge_model_build(m, &tr, &ol, &err) == RIDGE_OK)) {
        CHECK(check_find_op(&ol, "decoder.lstm") != NULL && check_find_op(&ol, "decoder.lstm")->count == 7);
        CHECK(check_find_op(&ol, "encoder.residual_lstm") != NULL &&
              check_find_op(&ol, "encoder.residual_lstm")->count == 6);
        ridge_oplist_free(&ol);
    }
    ridge_model_free(m);
    check_context(NULL);
}

/* Small RNN files whose parameters and FLOPs are counted by hand.
 * lstm(i, h) = 4 h (i + h) + 8 h: lstm(4, 8) = 448, lstm(8, 8) = 576, lstm(16, 8) = 832. */
static void test_rnn_files(void)
{
    ridge_model *m = NULL;
    ridge_err err;
    ridge_oplist ol = {0};
    ridge_run_config rc = config(RIDGE_MODE_TRAIN, RIDGE_DTYPE_BF16, 3);
    const ridge_op *op;
    /* Encoder 3 layers, decoder 2 (its own depth, not the encoder's): encoder 448 + 2 x 576;
     * decoder 448 + attention (2 x 64 + 2 x 8 + 1 = 145) + 832; shared embedding 40; classifier
     * 80 + 10. */
    check_context("rnn file seq2seq");
    if (CHECK(load_text("{\"schema_version\":1,\"name\":\"s2s\",\"family\":\"rnn\",\"arch\":{\"cell\":\"lstm\","
                        "\"input\":4,\"hidden\":8,\"layers\":3,\"decoder_layers\":2,\"vocab\":10,\"seq\":5}}",
                        &m, &err) == RIDGE_OK)) {
        CHECK_NEAR(ridge_model_params(m), 3155, 0);
        CHECK_STR_EQ(ridge_model_throughput_unit(m, &rc), "tokens/s");
        CHECK_NEAR(ridge_model_items_per_step(m, &rc), 15, 0);
        if (CHECK(ridge_model_build(m, &rc, &ol, &err) == RIDGE_OK)) {
            if (CHECK((op = check_find_op(&ol, "decoder.lstm")) != NULL))
                CHECK_INT(op->count, 1);
            if (CHECK((op = check_find_op(&ol, "encoder.lstm")) != NULL)) {
                CHECK_INT(op->u.lstm.layers, 3);
                CHECK_INT(op->u.lstm.input, 4);
            }
            if (CHECK((op = check_find_op(&ol, "zero_grad")) != NULL))
                CHECK_NEAR(op->u.ew.elements, 3155, 0);
            ridge_oplist_free(&ol);
        }
    } else {
        fprintf(stderr, "  %s\n", err.msg);
    }
    ridge_model_free(m);
    /* A language model: embedding 40, 448 + 576, classifier 90 = 1154; forward FLOPs per token
     * 2 (4 x 8 x 12 + 4 x 8 x 16 + 8 x 10) = 1952. */
    check_context("rnn file language model");
    if (CHECK(load_text("{\"schema_version\":1,\"name\":\"lm\",\"family\":\"rnn\",\"arch\":{\"cell\":\"lstm\","
                        "\"input\":4,\"hidden\":8,\"layers\":2,\"vocab\":10,\"seq\":5}}",
                        &m, &err) == RIDGE_OK)) {
        CHECK_NEAR(ridge_model_params(m), 1154, 0);
        CHECK_NEAR(ridge_model_flops(m, &rc), 3 * 1952 * 15, 1e-12);
        rc.mode = RIDGE_MODE_INFER;
        CHECK_NEAR(ridge_model_flops(m, &rc), 1952 * 15, 1e-12);
        if (CHECK(ridge_model_build(m, &rc, &ol, &err) == RIDGE_OK)) {
            CHECK(check_find_op(&ol, "classifier") != NULL);
            CHECK(check_find_op(&ol, "loss") == NULL);
            ridge_oplist_free(&ol);
        }
    } else {
        fprintf(stderr, "  %s\n", err.msg);
    }
    ridge_model_free(m);
    check_context(NULL);
}

/* ------------------------------------------------------------ memory */

/* A small CNN whose saved tensors are derived by hand (per image, fp16 = 2 bytes):
 *   conv 3x8x8 -> 4x8x8   saves its input            192 el
 *   bn                     saves its input            256 el
 *   relu                   saves its output           256 el
 *   maxpool 2 -> 4x4x4     input already saved; int64 argmax 64 x 8 = 512 B
 *   gap -> 4               nothing
 *   fc 4 -> 10             saves its input              4 el
 *   loss                   fp32 softmax 10 x 4 =        40 B
 *   total 708 el x 2 B + 552 B = 1968 B per image.
 * Inference: the largest input + output of a layer: bn or relu, 256 + 256 el = 1024 B per image.
 * Parameters: conv 4 x 3 x 3 x 3 = 108, bn 8, fc 40 + 10 = 50: 166. */
static const char tiny_cnn[] =
    "{\"schema_version\":1,\"name\":\"tiny\",\"family\":\"cnn\",\"arch\":{\"image\":8,\"channels\":3,\"classes\":10,"
    "\"layers\":[{\"type\":\"conv\",\"k\":4,\"r\":3,\"pad\":1},{\"type\":\"bn\"},{\"type\":\"relu\"},"
    "{\"type\":\"maxpool\",\"r\":2},{\"type\":\"gap\"},{\"type\":\"fc\"}]}}";

static void test_memory(void)
{
    ridge_model *m = NULL;
    ridge_err err;
    ridge_memory mem;
    ridge_run_config rc = config(RIDGE_MODE_TRAIN, RIDGE_DTYPE_FP16, 3);
    check_context("memory tiny cnn");
    if (CHECK(load_text(tiny_cnn, &m, &err) == RIDGE_OK)) {
        CHECK_NEAR(ridge_model_params(m), 166, 0);
        if (CHECK(ridge_model_memory(m, &rc, &mem, &err) == RIDGE_OK)) {
            CHECK_NEAR(mem.activations_bytes, 3 * 1968, 1e-12);
            CHECK_NEAR(mem.kv_cache_bytes, 0, 0);
            CHECK_NEAR(mem.weights_bytes, 166 * 2, 1e-12);
            CHECK_NEAR(mem.total_bytes, mem.weights_bytes + mem.gradients_bytes + mem.optimizer_bytes +
                                            mem.activations_bytes + mem.workspace_bytes, 1e-12);
        }
        rc.mode = RIDGE_MODE_INFER;
        if (CHECK(ridge_model_memory(m, &rc, &mem, &err) == RIDGE_OK))
            CHECK_NEAR(mem.activations_bytes, 3 * 1024, 1e-12);
        /* fp32: twice the element size, the same fp32 loss and int64 indices */
        rc.mode = RIDGE_MODE_TRAIN;
        rc.precision = RIDGE_DTYPE_FP32;
        if (CHECK(ridge_model_memory(m, &rc, &mem, &err) == RIDGE_OK))
            CHECK_NEAR(mem.activations_bytes, 3 * (708 * 4 + 552), 1e-12);
    } else {
        fprintf(stderr, "  %s\n", err.msg);
    }
    ridge_model_free(m);

    /* The lstm preset in training, fp16, batch 8, 128 steps: cuDNN keeps 4 gates, c and h per step
     * and layer (6 x 8 x 128 x 1024 x 2 layers) plus the input sequence (8 x 128 x 1024). */
    check_context("memory lstm");
    if ((m = load("lstm")) != NULL) {
        rc = config(RIDGE_MODE_TRAIN, RIDGE_DTYPE_FP16, 8);
        if (CHECK(ridge_model_memory(m, &rc, &mem, &err) == RIDGE_OK))
            CHECK_NEAR(mem.activations_bytes, 2.0 * (6 * 8 * 128 * 1024 * 2 + 8 * 128 * 1024), 1e-12);
        rc.mode = RIDGE_MODE_INFER;
        if (CHECK(ridge_model_memory(m, &rc, &mem, &err) == RIDGE_OK))
            CHECK_NEAR(mem.activations_bytes, 2.0 * 8 * 128 * 2048, 1e-12);
        ridge_model_free(m);
    }
    /* ResNet-50 training saves far more than inference keeps live; both scale with the batch. */
    check_context("memory resnet50");
    if ((m = load("resnet50")) != NULL) {
        ridge_memory a, b;
        rc = config(RIDGE_MODE_TRAIN, RIDGE_DTYPE_FP16, 1);
        CHECK(ridge_model_memory(m, &rc, &a, &err) == RIDGE_OK);
        rc.batch = 256;
        CHECK(ridge_model_memory(m, &rc, &b, &err) == RIDGE_OK);
        CHECK_NEAR(b.activations_bytes, 256 * a.activations_bytes, 1e-12);
        /* 20-60 MB per image in fp16 (PyTorch AMP trains batch 256 on a 32 GB V100) */
        CHECK(a.activations_bytes > 20e6 && a.activations_bytes < 60e6);
        rc.mode = RIDGE_MODE_INFER;
        CHECK(ridge_model_memory(m, &rc, &b, &err) == RIDGE_OK);
        CHECK(b.activations_bytes < 0.2 * 256 * a.activations_bytes);
        ridge_model_free(m);
    }
    check_context(NULL);
}

/* ------------------------------------------------------------ every preset, every mode */

static void test_presets_build(void)
{
    static const char *const ids[] = {"resnet50", "vgg16", "mobilenet-v2", "ssd300", "lstm", "gnmt"};
    static const ridge_dtype train_p[] = {RIDGE_DTYPE_FP32, RIDGE_DTYPE_TF32, RIDGE_DTYPE_FP16, RIDGE_DTYPE_BF16};
    static const ridge_dtype infer_p[] = {RIDGE_DTYPE_FP32, RIDGE_DTYPE_FP16, RIDGE_DTYPE_BF16, RIDGE_DTYPE_FP8,
                                          RIDGE_DTYPE_INT8};
    char ctx[160];
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        ridge_model *m = load(ids[i]);
        if (!m)
            continue;
        for (int mode = RIDGE_MODE_TRAIN; mode <= RIDGE_MODE_DECODE; mode++) {
            int supported = mode == RIDGE_MODE_TRAIN || mode == RIDGE_MODE_INFER;
            const ridge_dtype *ps = mode == RIDGE_MODE_TRAIN ? train_p : infer_p;
            size_t np = mode == RIDGE_MODE_TRAIN ? 4 : 5;
            for (size_t k = 0; k < (supported ? np : 1); k++) {
                ridge_run_config rc = config((ridge_mode)mode, ps[k], 6);
                ridge_oplist ol = {0};
                ridge_memory mem;
                ridge_err err = {{0}};
                int st;
                snprintf(ctx, sizeof ctx, "%s %s %s", ids[i], ridge_mode_name((ridge_mode)mode),
                         ridge_dtype_name(ps[k]));
                check_context(ctx);
                st = ridge_model_build(m, &rc, &ol, &err);
                if (!supported) {
                    char want[96];
                    CHECK(st == RIDGE_EINVAL);
                    snprintf(want, sizeof want, "run.mode %s: %s is a%s", ridge_mode_name((ridge_mode)mode), ids[i],
                             i < 4 ? " CNN; use train or infer" : "n RNN; use train or infer");
                    CHECK_STR_HAS(err.msg, want);
                    CHECK(ridge_model_memory(m, &rc, &mem, &err) == RIDGE_EINVAL);
                    CHECK(ridge_model_flops(m, &rc) == 0);
                    continue;
                }
                if (!CHECK(st == RIDGE_OK)) {
                    fprintf(stderr, "  %s\n", err.msg);
                    continue;
                }
                CHECK(ol.n > 0);
                CHECK_STR_EQ(ol.name, ids[i]);
                for (size_t j = 0; j < ol.n; j++) {
                    char where[96];
                    snprintf(where, sizeof where, "op %zu (%s)", j, ol.ops[j].name);
                    if (!CHECK(ridge_op_check(&ol.ops[j], where, &err) == RIDGE_OK))
                        fprintf(stderr, "  %s\n", err.msg);
                    CHECK(isfinite(ridge_op_flops(&ol.ops[j])) && isfinite(ridge_op_min_bytes(&ol.ops[j])));
                    CHECK(ol.ops[j].group[0] != '\0' && ol.ops[j].name[0] != '\0');
                }
                CHECK(isfinite(graph_flops(&ol, NULL, -1)) && graph_flops(&ol, NULL, -1) > 0);
                CHECK(isfinite(ridge_model_flops(m, &rc)) && ridge_model_flops(m, &rc) > 0);
                CHECK(ridge_model_items_per_step(m, &rc) >= 6);
                if (CHECK(ridge_model_memory(m, &rc, &mem, &err) == RIDGE_OK))
                    CHECK(isfinite(mem.total_bytes) && mem.activations_bytes > 0 && mem.kv_cache_bytes == 0);
                ridge_oplist_free(&ol);
            }
        }
        ridge_model_free(m);
    }
    check_context(NULL);
}

/* --fusion engine builds every CNN preset in every inference precision into valid ops with
 * fewer kernels than eager, and never for RNNs. */
static void test_engine_presets(void)
{
    static const char *const ids[] = {"resnet50", "vgg16", "mobilenet-v2", "ssd300", "lstm"};
    static const ridge_dtype ps[] = {RIDGE_DTYPE_FP32, RIDGE_DTYPE_FP16, RIDGE_DTYPE_BF16, RIDGE_DTYPE_FP8,
                                     RIDGE_DTYPE_INT8};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        ridge_model *m = load(ids[i]);
        if (!m)
            continue;
        check_context(ids[i]);
        for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
            ridge_run_config rc = config(RIDGE_MODE_INFER, ps[k], 4);
            ridge_oplist eager = {0}, engine = {0};
            ridge_err err = {{0}};
            int st;
            rc.engine = 1;
            st = ridge_model_build(m, &rc, &engine, &err);
            if (i == 4) { /* an RNN */
                CHECK(st == RIDGE_EINVAL);
                CHECK_STR_HAS(err.msg, "CNN inference only");
                break;
            }
            rc.engine = 0;
            if (!CHECK(st == RIDGE_OK && ridge_model_build(m, &rc, &eager, &err) == RIDGE_OK))
                continue;
            for (size_t j = 0; j < engine.n; j++)
                CHECK(ridge_op_check(&engine.ops[j], "op", &err) == RIDGE_OK);
            CHECK(engine.n < eager.n);
            ridge_oplist_free(&eager);
            ridge_oplist_free(&engine);
        }
        ridge_model_free(m);
    }
    check_context(NULL);
}

/* ------------------------------------------------------------ errors */

typedef struct {
    const char *what;
    const char *arch; /* the "arch" object; family from the row */
    const char *family;
    const char *expect; /* substring of the message */
} bad_row;

#define CONV3 "{\"type\":\"conv\",\"k\":4,\"r\":3,\"pad\":1}"
#define HEAD "{\"type\":\"gap\"},{\"type\":\"fc\",\"out\":10}"

static const bad_row bad_rows[] = {
    {"unknown arch key", "{\"image\":8,\"classes\":10,\"depth\":3,\"layers\":[" HEAD "]}", "cnn",
     "$.arch.depth: unknown key"},
    {"missing image", "{\"classes\":10,\"layers\":[" HEAD "]}", "cnn", "$.arch.image: missing required number"},
    {"empty layers", "{\"image\":8,\"layers\":[]}", "cnn", "$.arch.layers: 0 layers"},
    {"layer not an object", "{\"image\":8,\"classes\":10,\"layers\":[3," HEAD "]}", "cnn",
     "$.arch.layers[0]: expected a layer object"},
    {"unknown layer type", "{\"image\":8,\"classes\":10,\"layers\":[" CONV3 ",{\"type\":\"conv3d\"}," HEAD "]}", "cnn",
     "$.arch.layers[1].type: 'conv3d' is not a layer type"},
    {"unknown conv key", "{\"image\":8,\"classes\":10,\"layers\":[{\"type\":\"conv\",\"k\":4,\"r\":3,\"dilation\":2}," HEAD "]}",
     "cnn", "$.arch.layers[0].dilation: unknown key"},
    {"key of another type", "{\"image\":8,\"classes\":10,\"layers\":[{\"type\":\"bn\",\"k\":4}," HEAD "]}", "cnn",
     "$.arch.layers[0].k: unknown key"},
    {"string size", "{\"image\":8,\"classes\":10,\"layers\":[{\"type\":\"conv\",\"k\":\"64\",\"r\":3}," HEAD "]}", "cnn",
     "$.arch.layers[0].k: expected a number"},
    {"zero stride", "{\"image\":8,\"classes\":10,\"layers\":[{\"type\":\"conv\",\"k\":4,\"r\":3,\"stride\":0}," HEAD "]}",
     "cnn", "$.arch.layers[0].stride: 0 is out of range"},
    {"fractional k", "{\"image\":8,\"classes\":10,\"layers\":[{\"type\":\"conv\",\"k\":4.5,\"r\":3}," HEAD "]}", "cnn",
     "$.arch.layers[0].k: 4.5 is not an integer"},
    {"non-positive output", "{\"image\":8,\"classes\":10,\"layers\":[{\"type\":\"conv\",\"k\":4,\"r\":3,\"stride\":4},"
                            "{\"type\":\"conv\",\"k\":4,\"r\":3}," HEAD "]}",
     "cnn", "$.arch.layers[1].r: filter height 3 exceeds the padded input height 2"},
    {"pool too large", "{\"image\":8,\"classes\":10,\"layers\":[{\"type\":\"maxpool\",\"r\":9}," HEAD "]}", "cnn",
     "$.arch.layers[0].r: window 9 exceeds"},
    {"pool pad", "{\"image\":8,\"classes\":10,\"layers\":[{\"type\":\"maxpool\",\"r\":2,\"pad\":2}," HEAD "]}", "cnn",
     "$.arch.layers[0].pad: 2 is more than half the window"},
    {"groups", "{\"image\":8,\"classes\":10,\"layers\":[{\"type\":\"conv\",\"k\":6,\"r\":3,\"groups\":2}," HEAD "]}",
     "cnn", "$.arch.layers[0].groups: 2 does not divide the 3 input channels"},
    {"classifier width", "{\"image\":8,\"classes\":10,\"layers\":[" CONV3 ",{\"type\":\"gap\"},{\"type\":\"fc\",\"out\":7}]}",
     "cnn", "$.arch.layers: the network ends with a 7x1x1 tensor"},
    {"no classifier", "{\"image\":8,\"classes\":10,\"layers\":[" CONV3 "]}", "cnn",
     "$.arch.layers: the network ends with a 4x8x8 tensor"},
    {"add from later", "{\"image\":8,\"classes\":10,\"layers\":[" CONV3 ",{\"type\":\"add\",\"from\":1}," HEAD "]}",
     "cnn", "$.arch.layers[1].from: 1 is not an earlier layer"},
    {"add shape", "{\"image\":8,\"classes\":10,\"layers\":[" CONV3 ",{\"type\":\"conv\",\"k\":8,\"r\":1},"
                  "{\"type\":\"add\",\"from\":0}," HEAD "]}",
     "cnn", "$.arch.layers[2].from: layer 0 outputs 4x8x8"},
    {"repeat 0", "{\"image\":64,\"classes\":10,\"layers\":[{\"type\":\"bottleneck\",\"mid\":4,\"out\":16,\"repeat\":0}," HEAD "]}",
     "cnn", "$.arch.layers[0].repeat: 0 is out of range"},
    {"bottleneck key", "{\"image\":64,\"classes\":10,\"layers\":[{\"type\":\"bottleneck\",\"mid\":4,\"out\":16,\"expand\":6}," HEAD "]}",
     "cnn", "$.arch.layers[0].expand: unknown key"},
    {"detection defaults", "{\"image\":32,\"classes\":5,\"layers\":[" CONV3 ",{\"type\":\"detection_head\",\"defaults\":[4,4],"
                           "\"extra\":[{\"mid\":4,\"out\":8,\"stride\":2,\"pad\":1},{\"mid\":4,\"out\":8,\"stride\":2,\"pad\":1}]}]}",
     "cnn", "$.arch.layers[1].defaults: 2 entries"},
    {"detection extra key", "{\"image\":32,\"classes\":5,\"layers\":[" CONV3 ",{\"type\":\"detection_head\",\"defaults\":[4,4],"
                            "\"extra\":[{\"mid\":4,\"out\":8,\"k\":3}]}]}",
     "cnn", "$.arch.layers[1].extra[0].k: unknown key"},
    {"detection extra too small", "{\"image\":2,\"classes\":5,\"layers\":[{\"type\":\"detection_head\",\"defaults\":[4,4],"
                                  "\"extra\":[{\"mid\":4,\"out\":8,\"stride\":1,\"pad\":0}]}]}",
     "cnn", "$.arch.layers[0].extra[0].pad: the 3x3 conv does not fit"},
    {"detection not last", "{\"image\":32,\"classes\":5,\"layers\":[{\"type\":\"detection_head\",\"defaults\":[4],"
                           "\"extra\":[]}," CONV3 "]}",
     "cnn", "$.arch.layers[1].type: 'conv' after the detection head"},
    {"rnn cell", "{\"cell\":\"gru\",\"hidden\":8,\"layers\":1,\"seq\":4}", "rnn", "$.arch.cell: 'gru' is not supported"},
    {"rnn unknown key", "{\"cell\":\"lstm\",\"hidden\":8,\"layers\":1,\"seq\":4,\"dropout\":0.2}", "rnn",
     "$.arch.dropout: unknown key"},
    {"rnn hidden 0", "{\"cell\":\"lstm\",\"hidden\":0,\"layers\":1,\"seq\":4}", "rnn", "$.arch.hidden: 0 is out of range"},
    {"rnn missing seq", "{\"cell\":\"lstm\",\"hidden\":8,\"layers\":1}", "rnn", "$.arch.seq: missing required number"},
    {"rnn bidirectional flag", "{\"cell\":\"lstm\",\"hidden\":8,\"layers\":2,\"seq\":4,\"bidirectional_first\":1}", "rnn",
     "$.arch.bidirectional_first: expected true or false"},
    {"rnn bidirectional 1 layer", "{\"cell\":\"lstm\",\"hidden\":8,\"layers\":1,\"seq\":4,\"bidirectional_first\":true}",
     "rnn", "$.arch.layers: 1 layer with bidirectional_first"},
    {"rnn residual width", "{\"cell\":\"lstm\",\"hidden\":8,\"layers\":4,\"seq\":4,\"bidirectional_first\":true,"
                           "\"residual_from\":2}",
     "rnn", "$.arch.residual_from: residual_from 2"},
    {"rnn decoder without vocab", "{\"cell\":\"lstm\",\"hidden\":8,\"layers\":2,\"seq\":4,\"decoder_layers\":2}", "rnn",
     "$.arch.decoder_layers: an encoder-decoder needs a vocabulary"},
    {"rnn attention alone", "{\"cell\":\"lstm\",\"hidden\":8,\"layers\":2,\"seq\":4,\"attention\":\"bahdanau\"}", "rnn",
     "$.arch.attention: only applies to an encoder-decoder"},
    {"rnn attention kind", "{\"cell\":\"lstm\",\"hidden\":8,\"layers\":2,\"seq\":4,\"vocab\":10,\"decoder_layers\":2,"
                           "\"attention\":\"luong\"}",
     "rnn", "$.arch.attention: 'luong' is not supported"},
};

static void test_bad_arch(void)
{
    char text[2048];
    for (size_t i = 0; i < sizeof bad_rows / sizeof bad_rows[0]; i++) {
        const bad_row *r = &bad_rows[i];
        ridge_model *m = NULL;
        ridge_err err = {{0}};
        check_context(r->what);
        snprintf(text, sizeof text, "{\"schema_version\":1,\"name\":\"bad\",\"family\":\"%s\",\"arch\":%s}", r->family,
                 r->arch);
        CHECK(load_text(text, &m, &err) == RIDGE_EINVAL);
        CHECK(m == NULL);
        CHECK_STR_HAS(err.msg, r->expect);
        CHECK_STR_HAS(err.msg, "/tmp/ridge_test_cnn_rnn_"); /* the file is named */
        ridge_model_free(m);
    }
    check_context(NULL);
}

/* Run options the model cannot take. */
static void test_bad_runs(void)
{
    ridge_model *cnn = load("resnet50"), *vgg = load("vgg16"), *rnn = load("gnmt"), *lstm = load("lstm");
    ridge_oplist ol = {0};
    ridge_err err = {{0}};
    ridge_run_config rc;
    check_context("bad runs");
    if (!cnn || !vgg || !rnn || !lstm)
        goto done;
    rc = config(RIDGE_MODE_DECODE, RIDGE_DTYPE_BF16, 1);
    CHECK(ridge_model_build(cnn, &rc, &ol, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.mode decode: resnet50 is a CNN; use train or infer");
    rc = config(RIDGE_MODE_PREFILL, RIDGE_DTYPE_BF16, 1);
    CHECK(ridge_model_build(rnn, &rc, &ol, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.mode prefill: gnmt is an RNN; use train or infer");
    rc = config(RIDGE_MODE_TRAIN, RIDGE_DTYPE_BF16, 1);
    rc.hidden = 512;
    CHECK(ridge_model_build(cnn, &rc, &ol, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.hidden: resnet50 is a CNN");
    rc = config(RIDGE_MODE_TRAIN, RIDGE_DTYPE_BF16, 1);
    rc.image = 8; /* VGG's 2x2 pools: 8 -> 4 -> 2 -> 1, then the fourth pool's window on 1x1 */
    CHECK(ridge_model_build(vgg, &rc, &ol, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.image 8: $.arch.layers[23].r: window 2 exceeds");
    rc.image = 64; /* the adaptive pool keeps the classifier at 25088 inputs */
    CHECK(ridge_model_build(vgg, &rc, &ol, &err) == RIDGE_OK);
    ridge_oplist_free(&ol);
    rc.image = 2.5;
    CHECK(ridge_model_build(cnn, &rc, &ol, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.image: 2.5 is not an integer");
    rc.image = 160; /* ResNet-50 at 160: fewer FLOPs (train: 3 x forward), same parameters */
    CHECK(ridge_model_build(cnn, &rc, &ol, &err) == RIDGE_OK);
    ridge_oplist_free(&ol);
    CHECK_NEAR(ridge_model_flops(cnn, &rc), 3 * 2 * 4.1e9 * 160 * 160 / (224.0 * 224), 0.05);
    rc = config(RIDGE_MODE_TRAIN, RIDGE_DTYPE_BF16, 1);
    rc.image = 224;
    CHECK(ridge_model_build(lstm, &rc, &ol, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.image: lstm is an RNN");
    rc.image = 0;
    rc.layers = 1;
    CHECK(ridge_model_build(rnn, &rc, &ol, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.layers 1: 1 layer with bidirectional_first");
    rc.layers = 0;
    rc.hidden = 0.5;
    CHECK(ridge_model_build(lstm, &rc, &ol, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.hidden: 0.5 is not an integer");
    rc.hidden = 0;
    rc.seq = -3;
    CHECK(ridge_model_build(lstm, &rc, &ol, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.seq: -3 is not an integer");
    /* The limits are the run options' (RIDGE_RUN_*_MAX), which the command line parses against:
     * the last value in range builds, the next is refused naming the same range. */
    rc.seq = RIDGE_RUN_TOKENS_MAX;
    CHECK(ridge_model_build(lstm, &rc, &ol, &err) == RIDGE_OK);
    ridge_oplist_free(&ol);
    rc.seq = RIDGE_RUN_TOKENS_MAX + 1;
    CHECK(ridge_model_build(lstm, &rc, &ol, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.seq: 1e+07 is not an integer in [1, 10000000]");
    rc.seq = 0;
    rc.layers = RIDGE_RUN_RNN_LAYERS_MAX + 1;
    CHECK(ridge_model_build(lstm, &rc, &ol, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.layers: 1001 is not an integer in [1, 1000]");
    rc.layers = 0;
    rc.hidden = RIDGE_RUN_RNN_HIDDEN_MAX + 1;
    CHECK(ridge_model_build(lstm, &rc, &ol, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.hidden: 1e+06 is not an integer in [1, 1000000]");
    rc = config(RIDGE_MODE_INFER, RIDGE_DTYPE_BF16, 1);
    rc.image = RIDGE_RUN_IMAGE_MAX + 1;
    CHECK(ridge_model_build(cnn, &rc, &ol, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.image: 65537 is not an integer in [1, 65536]");
done:
    ridge_model_free(cnn);
    ridge_model_free(vgg);
    ridge_model_free(rnn);
    ridge_model_free(lstm);
    check_context(NULL);
}

/* NCHW layout: each tensor-core convolution transposes its activations in and out; FP32 and
 * grouped (depthwise) convolutions run NCHW natively. */
static void layout_ops(const ridge_model *m, const ridge_run_config *rc, double *n, double *elements)
{
    ridge_oplist g;
    ridge_err err = {{0}};
    *n = *elements = 0;
    if (!CHECK(ridge_model_build(m, rc, &g, &err) == RIDGE_OK))
        return;
    for (size_t i = 0; i < g.n; i++)
        if (strcmp(g.ops[i].group, "layout") == 0) {
            *n += g.ops[i].count;
            *elements += g.ops[i].u.ew.elements * g.ops[i].count;
        }
    ridge_oplist_free(&g);
}

static void test_nchw_layout(void)
{
    ridge_model *r50 = load("resnet50"), *mb = load("mobilenet-v2");
    ridge_run_config rc = config(RIDGE_MODE_INFER, RIDGE_DTYPE_FP16, 2);
    double n, e, n_nhwc, e_nhwc, fwd_elems = 0, in_elems = 0;
    ridge_oplist g;
    ridge_err err = {{0}};
    if (!r50 || !mb)
        return;
    check_context("resnet50 infer nchw fp16");
    layout_ops(r50, &rc, &n_nhwc, &e_nhwc);
    CHECK_NEAR(n_nhwc, 0, 0);
    rc.nchw = 1;
    layout_ops(r50, &rc, &n, &e);
    CHECK_NEAR(n, 2 * 53, 0); /* 53 convolutions, one transpose in and one out each */
    /* The transposed elements are the convolutions' inputs and outputs. */
    if (CHECK(ridge_model_build(r50, &rc, &g, &err) == RIDGE_OK)) {
        for (size_t i = 0; i < g.n; i++)
            if (g.ops[i].kind == RIDGE_OP_CONV2D) {
                const ridge_op *o = &g.ops[i];
                double p = floor((o->u.conv.h + 2 * o->u.conv.pad - o->u.conv.r) / o->u.conv.stride) + 1;
                double q = floor((o->u.conv.w + 2 * o->u.conv.pad - o->u.conv.s) / o->u.conv.stride) + 1;
                in_elems += o->u.conv.n * o->u.conv.c * o->u.conv.h * o->u.conv.w * o->count;
                fwd_elems += o->u.conv.n * o->u.conv.k * p * q * o->count;
            }
        ridge_oplist_free(&g);
    }
    CHECK_NEAR(e, in_elems + fwd_elems, 1e-9 * e);
    check_context("resnet50 infer nchw fp32: native");
    rc.precision = RIDGE_DTYPE_FP32;
    layout_ops(r50, &rc, &n, &e);
    CHECK_NEAR(n, 0, 0);
    check_context("resnet50 train nchw tf32: fwd 2, dgrad 2, wgrad 2 per conv (no dgrad for the stem)");
    rc = config(RIDGE_MODE_TRAIN, RIDGE_DTYPE_TF32, 2);
    rc.nchw = 1;
    layout_ops(r50, &rc, &n, &e);
    CHECK_NEAR(n, 6 * 53 - 2, 0);
    check_context("mobilenet-v2 infer nchw fp16: depthwise convolutions are not transposed");
    rc = config(RIDGE_MODE_INFER, RIDGE_DTYPE_FP16, 2);
    rc.nchw = 1;
    layout_ops(mb, &rc, &n, &e);
    CHECK(n > 0);
    {
        double convs = 0, grouped = 0;
        if (CHECK(ridge_model_build(mb, &rc, &g, &err) == RIDGE_OK)) {
            for (size_t i = 0; i < g.n; i++)
                if (g.ops[i].kind == RIDGE_OP_CONV2D) {
                    convs += g.ops[i].count;
                    grouped += g.ops[i].u.conv.groups > 1 ? g.ops[i].count : 0;
                }
            ridge_oplist_free(&g);
        }
        CHECK(grouped > 0);
        CHECK_NEAR(n, 2 * (convs - grouped), 0);
    }
    check_context(NULL);
    ridge_model_free(r50);
    ridge_model_free(mb);
}

/* The memory of rc without --amp (m0) and with it (m1). */
static void memory_with_and_without_amp(const ridge_model *m, ridge_run_config rc, ridge_memory *m0, ridge_memory *m1)
{
    ridge_err err = {{0}};
    rc.amp = 0;
    CHECK(ridge_model_memory(m, &rc, m0, &err) == RIDGE_OK);
    rc.amp = 1;
    CHECK(ridge_model_memory(m, &rc, m1, &err) == RIDGE_OK);
}

/* --amp (inference): one weight cast per conv and fc per forward, FP32 weights in memory. */
static void test_amp_inference(void)
{
    ridge_model *r50 = load("resnet50");
    ridge_run_config rc = config(RIDGE_MODE_INFER, RIDGE_DTYPE_FP16, 4), bad;
    ridge_oplist g0, g1;
    ridge_memory m0, m1;
    ridge_err err = {{0}};
    double casts = 0, cast_bytes = 0;
    if (!r50)
        return;
    check_context("resnet50 --amp");
    if (!CHECK(ridge_model_build(r50, &rc, &g0, &err) == RIDGE_OK))
        return;
    rc.amp = 1;
    if (CHECK(ridge_model_build(r50, &rc, &g1, &err) == RIDGE_OK)) {
        for (size_t i = 0; i < g1.n; i++)
            if (strstr(g1.ops[i].name, ".wcast")) {
                casts += g1.ops[i].count;
                cast_bytes += g1.ops[i].u.custom.bytes * g1.ops[i].count;
            }
        CHECK_NEAR(casts, 54, 0); /* 53 convolutions and the fc */
        /* Every weight (not the BN and fc biases) read in FP32 and written in FP16: 6 B each. */
        CHECK(cast_bytes > 6 * 25.0e6 && cast_bytes < 6 * ridge_model_params(r50));
        {
            double weighted = 0; /* merged block repeats: one cast op per conv or fc op */
            for (size_t i = 0; i < g0.n; i++)
                weighted += g0.ops[i].kind == RIDGE_OP_CONV2D || g0.ops[i].kind == RIDGE_OP_GEMM;
            CHECK_NEAR((double)(g1.n - g0.n), weighted, 0);
        }
        ridge_oplist_free(&g1);
    }
    ridge_oplist_free(&g0);
    memory_with_and_without_amp(r50, rc, &m0, &m1);
    CHECK_NEAR(m1.weights_bytes, 2 * m0.weights_bytes, 1e-9 * m1.weights_bytes);
    bad = rc;
    bad.precision = RIDGE_DTYPE_FP32;
    CHECK(ridge_model_build(r50, &bad, &g1, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.amp needs run.precision fp16 or bf16");
    check_context(NULL);
    ridge_model_free(r50);
}

/* --amp in training (autocast over FP32 weights): per step a cast of each weight and one of
 * each weight gradient back to FP32; FP32 weights and gradients, no master copy; with fp16 the
 * GradScaler's unscale. */
static void test_amp_training(void)
{
    ridge_model *r50 = load("resnet50");
    ridge_run_config rc = config(RIDGE_MODE_TRAIN, RIDGE_DTYPE_FP16, 32);
    ridge_oplist g0, g1;
    ridge_memory m0, m1;
    ridge_err err = {{0}};
    double wcasts = 0, gcasts = 0, gcast_bytes = 0, p;
    int unscale = 0, unscale0 = 0;
    if (!r50)
        return;
    check_context("resnet50 train --amp");
    p = ridge_model_params(r50);
    if (!CHECK(ridge_model_build(r50, &rc, &g0, &err) == RIDGE_OK))
        return;
    rc.amp = 1;
    if (CHECK(ridge_model_build(r50, &rc, &g1, &err) == RIDGE_OK)) {
        for (size_t i = 0; i < g1.n; i++) {
            wcasts += strstr(g1.ops[i].name, ".wcast") ? g1.ops[i].count : 0;
            if (strstr(g1.ops[i].name, ".gcast")) {
                gcasts += g1.ops[i].count;
                gcast_bytes += g1.ops[i].u.custom.bytes * g1.ops[i].count;
                CHECK_NEAR(g1.ops[i].cold_bytes, g1.ops[i].u.custom.bytes * 4.0 / 6.0, 1e-12);
            }
            unscale += strcmp(g1.ops[i].name, "grad_unscale") == 0;
        }
        for (size_t i = 0; i < g0.n; i++)
            unscale0 += strcmp(g0.ops[i].name, "grad_unscale") == 0 || strstr(g0.ops[i].name, "cast") != NULL;
        CHECK_NEAR(wcasts, 54, 0); /* 53 convolutions and the fc */
        CHECK_NEAR(gcasts, 54, 0);
        /* the classifier: its forward GEMM once, then its dgrad and wgrad, as without autocast */
        {
            int fwd[2] = {0, 0}, dgrad[2] = {0, 0}, wgrad[2] = {0, 0};
            for (int a = 0; a < 2; a++) {
                const ridge_oplist *gl = a ? &g1 : &g0;
                for (size_t i = 0; i < gl->n; i++) {
                    const char *nm = gl->ops[i].name, *fc = strstr(nm, "fc");
                    if (gl->ops[i].kind != RIDGE_OP_GEMM || !fc)
                        continue;
                    fwd[a] += strcmp(fc, "fc") == 0;
                    dgrad[a] += strcmp(fc, "fc.dgrad") == 0;
                    wgrad[a] += strcmp(fc, "fc.wgrad") == 0;
                }
            }
            CHECK(fwd[0] == 1 && dgrad[0] == 1 && wgrad[0] == 1);
            CHECK(fwd[1] == 1 && dgrad[1] == 1 && wgrad[1] == 1);
        }
        CHECK(gcast_bytes > 6 * 25.0e6 && gcast_bytes < 6 * p); /* FP16 read, FP32 written */
        CHECK(unscale == 1 && unscale0 == 0);
        ridge_oplist_free(&g1);
    }
    ridge_oplist_free(&g0);
    memory_with_and_without_amp(r50, rc, &m0, &m1);
    /* AdamW (the default): mixed 2 + 2 + 4 (master) + 8 (m, v) bytes per parameter; autocast
     * 4 + 4 + 8, the same total laid out differently. */
    CHECK_NEAR(m0.weights_bytes + m0.gradients_bytes + m0.optimizer_bytes, 16 * p, 1e-9);
    CHECK_NEAR(m1.weights_bytes, 4 * p, 1e-9);
    CHECK_NEAR(m1.gradients_bytes, 4 * p, 1e-9);
    CHECK_NEAR(m1.optimizer_bytes, 8 * p, 1e-9);
    check_context(NULL);
    ridge_model_free(r50);
}

/* --fusion engine: no batch-norm, activation or add kernels; each residual add rides on the
 * convolution before it (epilogue_bytes); int8 activations stay 8-bit. */
static void test_engine_fusion(void)
{
    double adds = 0, add_bytes = 0, epi = 0, convs0 = 0, convs1 = 0;
    ridge_model *r50 = load("resnet50");
    ridge_run_config rc = config(RIDGE_MODE_INFER, RIDGE_DTYPE_INT8, 8);
    ridge_memory mem[2]; /* eager, engine */
    ridge_oplist g0, g1;
    ridge_err err = {{0}};
    if (!r50)
        return;
    check_context("resnet50 --fusion engine");
    if (!CHECK(ridge_model_build(r50, &rc, &g0, &err) == RIDGE_OK))
        return;
    for (size_t i = 0; i < g0.n; i++) {
        if (strstr(g0.ops[i].name, ".add") || strcmp(g0.ops[i].group, "other") == 0) {
            adds += g0.ops[i].count;
            add_bytes += g0.ops[i].u.ew.elements * g0.ops[i].count; /* one residual, 1 B per value */
        }
        convs0 += g0.ops[i].kind == RIDGE_OP_CONV2D ? g0.ops[i].count : 0;
    }
    rc.engine = 1;
    if (CHECK(ridge_model_build(r50, &rc, &g1, &err) == RIDGE_OK)) {
        for (size_t i = 0; i < g1.n; i++) {
            const ridge_op *op = &g1.ops[i];
            CHECK(strcmp(op->group, "bn") != 0 && strcmp(op->group, "activation") != 0 &&
                  strcmp(op->group, "other") != 0);
            if (op->kind == RIDGE_OP_CONV2D) {
                convs1 += op->count;
                epi += op->epilogue_bytes * op->count;
                CHECK(op->dtype == RIDGE_DTYPE_INT8);
            }
        }
        CHECK_NEAR(adds, 16, 0); /* one residual add per bottleneck block */
        CHECK_NEAR(convs1, convs0, 0);
        CHECK_NEAR(epi, add_bytes, 1e-12);
        ridge_oplist_free(&g1);
    }
    ridge_oplist_free(&g0);
    for (int e = 0; e < 2; e++) {
        rc.engine = e;
        CHECK(ridge_model_memory(r50, &rc, &mem[e], &err) == RIDGE_OK);
    }
    CHECK_NEAR(mem[1].activations_bytes, mem[0].activations_bytes / 2, 1e-9); /* int8 instead of bf16 */
    check_context(NULL);
    ridge_model_free(r50);
}

/* --bn-fusion fused (docs/workloads.md, "CNNs"): cuDNN's BN+ReLU and BN+add+ReLU. In inference
 * every ReLU of ResNet-50 follows a batch norm, directly or through its block's residual add, so
 * the fused graph has none of the ReLU and add kernels, the same FLOPs, and the DRAM bytes less by
 * the ReLUs' (a read and a write each) and two thirds of the adds' (the residual is one more read
 * of the fused kernel). In training the ReLUs' backward goes into the batch norms' (which read
 * the saved output for the mask), the add's backward (the sum where the branches fork) stays. */
static void test_bn_fusion(void)
{
    ridge_model *r50 = load("resnet50"), *bert = load("bert-base");
    ridge_run_config rc = config(RIDGE_MODE_INFER, RIDGE_DTYPE_FP16, 32);
    ridge_oplist sep, fus;
    ridge_err err = {{0}};
    double relu_bytes = 0, add_bytes = 0, absorbed = 0, b0 = 0, b1 = 0, k0 = 0, k1 = 0;
    if (!r50 || !bert) {
        ridge_model_free(r50);
        ridge_model_free(bert);
        return;
    }
    check_context("resnet50 --bn-fusion fused");
    if (CHECK(ridge_model_build(r50, &rc, &sep, &err) == RIDGE_OK)) {
        rc.bn_fused = 1;
        if (CHECK(ridge_model_build(r50, &rc, &fus, &err) == RIDGE_OK)) {
            for (size_t i = 0; i < sep.n; i++) {
                const ridge_op *op = &sep.ops[i];
                double b = ridge_op_min_bytes(op) * op->count;
                if (strstr(op->name, ".relu")) {
                    relu_bytes += b;
                    absorbed += op->count;
                } else if (strcmp(op->group, "other") == 0) {
                    add_bytes += b;
                    absorbed += op->count;
                }
                b0 += b;
                k0 += op->count;
            }
            for (size_t i = 0; i < fus.n; i++) {
                const ridge_op *op = &fus.ops[i];
                CHECK(!strstr(op->name, ".relu") && strcmp(op->group, "other") != 0 &&
                      strcmp(op->group, "activation") != 0);
                b1 += ridge_op_min_bytes(op) * op->count;
                k1 += op->count;
            }
            CHECK(relu_bytes > 0 && add_bytes > 0);
            CHECK_NEAR(b0 - b1, relu_bytes + add_bytes * 2.0 / 3.0, 1e-9 * b0);
            CHECK_NEAR(graph_flops(&fus, NULL, -1), graph_flops(&sep, NULL, -1), 1e-9 * graph_flops(&sep, NULL, -1));
            CHECK_NEAR(k0 - k1, absorbed, 0);
            CHECK(check_find_op(&fus, "l4[0].bn1+relu") != NULL);
            CHECK(check_find_op(&fus, "l4[0].downsample_bn+add+relu") != NULL);
            ridge_oplist_free(&fus);
        }
        ridge_oplist_free(&sep);
    }
    /* Training: no ReLU or add forward, no ReLU backward; the add's backward stays; the fused
     * backward reads x, y and dy, and writes the residual's gradient after an add. */
    rc = config(RIDGE_MODE_TRAIN, RIDGE_DTYPE_FP16, 32);
    if (CHECK(ridge_model_build(r50, &rc, &sep, &err) == RIDGE_OK)) {
        rc.bn_fused = 1;
        if (CHECK(ridge_model_build(r50, &rc, &fus, &err) == RIDGE_OK)) {
            const ridge_op *st = check_find_op(&fus, "l4[0].bn1+relu.stats.bwd"), *dx;
            for (size_t i = 0; i < fus.n; i++) {
                size_t len = strlen(fus.ops[i].name);
                CHECK(!strstr(fus.ops[i].name, ".relu") && !(len >= 4 && strcmp(fus.ops[i].name + len - 4, ".add") == 0));
            }
            CHECK(check_find_op(&fus, "l4[0].add.bwd") != NULL);
            if (CHECK(st != NULL))
                CHECK(st->kind == RIDGE_OP_REDUCE && st->u.rows.inputs == 3);
            if (CHECK((dx = check_find_op(&fus, "l4[0].downsample_bn+add+relu.bwd")) != NULL))
                CHECK(dx->u.ew.inputs == 3 && dx->u.ew.outputs == 2);
            if (CHECK((dx = check_find_op(&fus, "l4[0].bn1+relu.bwd")) != NULL))
                CHECK(dx->u.ew.inputs == 3 && dx->u.ew.outputs == 1);
            CHECK(fus.n < sep.n);
            ridge_oplist_free(&fus);
        }
        ridge_oplist_free(&sep);
    }
    /* An engine's graph folds the batch norms away: the same with the option; other families
     * have no batch norms to fuse. */
    rc = config(RIDGE_MODE_INFER, RIDGE_DTYPE_INT8, 8);
    rc.engine = 1;
    if (CHECK(ridge_model_build(r50, &rc, &sep, &err) == RIDGE_OK)) {
        rc.bn_fused = 1;
        if (CHECK(ridge_model_build(r50, &rc, &fus, &err) == RIDGE_OK)) {
            CHECK_INT(fus.n, sep.n);
            ridge_oplist_free(&fus);
        }
        ridge_oplist_free(&sep);
    }
    rc = config(RIDGE_MODE_TRAIN, RIDGE_DTYPE_BF16, 8);
    rc.bn_fused = 1;
    CHECK_INT(ridge_model_build(bert, &rc, &fus, &err), RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "run.bn_fusion");
    ridge_model_free(r50);
    ridge_model_free(bert);
    check_context(NULL);
}

int main(void)
{
    test_param_counts();
    test_cnn_flops();
    test_resnet50_graph();
    test_ssd300();
    test_lstm();
    test_gnmt();
    test_rnn_files();
    test_memory();
    test_presets_build();
    test_bad_arch();
    test_bad_runs();
    test_nchw_layout();
    test_amp_inference();
    test_amp_training();
    test_engine_fusion();
    test_engine_presets();
    test_bn_fusion();
    return check_report();
}
