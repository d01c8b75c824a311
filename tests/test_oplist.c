/* Tests for operators (model/kernel/op.c) and operator-list workloads (workloads/oplist.c).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: test_oplist [EXAMPLES_DIR]   (default: the source tree's workloads/examples) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ridge/op.h"
#include "ridge/workload.h"

/* tests/data/../../workloads/examples when built by tests/CMakeLists.txt. */
#ifdef RIDGE_TEST_DATA_DIR
static const char *examples_dir = RIDGE_TEST_DATA_DIR "/../../workloads/examples";
#else
static const char *examples_dir = "workloads/examples";
#endif

/* ------------------------------------------------------------ names */

static void test_names(void)
{
    check_context("names round-trip");
    for (int k = 0; k < RIDGE_OP_KIND_COUNT; k++) {
        ridge_op_kind out = RIDGE_OP_KIND_COUNT;
        CHECK_INT(ridge_op_kind_parse(ridge_op_kind_name((ridge_op_kind)k), &out), 0);
        CHECK_INT(out, k);
    }
    for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
        ridge_dtype out = RIDGE_DTYPE_COUNT;
        CHECK_INT(ridge_dtype_parse(ridge_dtype_name((ridge_dtype)d), &out), 0);
        CHECK_INT(out, d);
    }
    for (int p = 0; p < RIDGE_PASS_COUNT; p++) {
        ridge_pass out = RIDGE_PASS_COUNT;
        CHECK_INT(ridge_pass_parse(ridge_pass_name((ridge_pass)p), &out), 0);
        CHECK_INT(out, p);
    }
    for (int c = 0; c <= RIDGE_COPY_D2H; c++) {
        ridge_copy_kind out = RIDGE_COPY_D2H;
        CHECK_INT(ridge_copy_kind_parse(ridge_copy_kind_name((ridge_copy_kind)c), &out), 0);
        CHECK_INT(out, c);
    }
    check_context("names");
    CHECK_STR_EQ(ridge_op_kind_name(RIDGE_OP_CONV2D), "conv2d");
    CHECK_STR_EQ(ridge_op_kind_name(RIDGE_OP_KIND_COUNT), "?");
    CHECK_STR_EQ(ridge_dtype_name(RIDGE_DTYPE_BF16), "bf16");
    CHECK_STR_EQ(ridge_dtype_name(RIDGE_DTYPE_COUNT), "?");
    CHECK_STR_EQ(ridge_pass_name(RIDGE_PASS_BWD_FILTER), "bwd_filter");
    CHECK_STR_EQ(ridge_copy_kind_name(RIDGE_COPY_H2D), "h2d");
    CHECK_STR_EQ(ridge_copy_kind_name((ridge_copy_kind)7), "?");
    {
        ridge_op_kind k = RIDGE_OP_GEMM;
        ridge_dtype d = RIDGE_DTYPE_FP64;
        ridge_pass p = RIDGE_PASS_FWD;
        ridge_copy_kind c = RIDGE_COPY_D2D;
        CHECK_INT(ridge_op_kind_parse("matmul", &k), -1);
        CHECK_INT(ridge_op_kind_parse("GEMM", &k), -1);
        CHECK_INT(ridge_op_kind_parse(NULL, &k), -1);
        CHECK_INT(ridge_dtype_parse("fp4", &d), -1);
        CHECK_INT(ridge_pass_parse("bwd", &p), -1);
        CHECK_INT(ridge_copy_kind_parse("p2p", &c), -1);
        CHECK_INT(k, RIDGE_OP_GEMM); /* untouched on failure */
    }

    check_context("ridge_dtype_bytes");
    {
        static const struct {
            ridge_dtype d;
            double bytes;
        } rows[] = {
            {RIDGE_DTYPE_FP64, 8}, {RIDGE_DTYPE_FP32, 4}, {RIDGE_DTYPE_TF32, 4}, {RIDGE_DTYPE_FP16, 2},
            {RIDGE_DTYPE_BF16, 2}, {RIDGE_DTYPE_FP8, 1},  {RIDGE_DTYPE_INT8, 1}, {RIDGE_DTYPE_INT4, 0.5},
        };
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            CHECK_NEAR(ridge_dtype_bytes(rows[i].d), rows[i].bytes, 0);
        CHECK_NEAR(ridge_dtype_bytes(RIDGE_DTYPE_COUNT), 0, 0);
    }
}

/* ---------------------------------------------------------- formulas */

static ridge_op conv(ridge_pass pass)
{
    ridge_op op = ridge_op_blank(RIDGE_OP_CONV2D, RIDGE_DTYPE_FP16);
    op.u.conv.n = 2;
    op.u.conv.c = 6;
    op.u.conv.h = 9;
    op.u.conv.w = 7;
    op.u.conv.k = 4;
    op.u.conv.r = 3;
    op.u.conv.s = 2;
    op.u.conv.stride = 2;
    op.u.conv.pad = 1;
    op.u.conv.groups = 2;
    op.u.conv.pass = pass;
    return op;
}

static ridge_op attn(double b, double h, double kvh, double q, double kv, double d, int causal, ridge_pass pass)
{
    ridge_op op = ridge_op_blank(RIDGE_OP_ATTENTION, RIDGE_DTYPE_BF16);
    op.u.attn.batch = b;
    op.u.attn.heads = h;
    op.u.attn.kv_heads = kvh;
    op.u.attn.q_len = q;
    op.u.attn.kv_len = kv;
    op.u.attn.head_dim = d;
    op.u.attn.causal = causal;
    op.u.attn.pass = pass;
    return op;
}

static ridge_op rowop(ridge_op_kind kind, ridge_dtype dt, double rows, double cols)
{
    ridge_op op = ridge_op_blank(kind, dt);
    op.u.rows.rows = rows;
    op.u.rows.cols = cols;
    return op;
}

static ridge_op emb(double tokens, double dim, double vocab)
{
    ridge_op op = ridge_op_blank(RIDGE_OP_EMBEDDING, RIDGE_DTYPE_BF16);
    op.u.emb.tokens = tokens;
    op.u.emb.dim = dim;
    op.u.emb.vocab = vocab;
    return op;
}

static ridge_op lstm(ridge_pass pass)
{
    ridge_op op = ridge_op_blank(RIDGE_OP_LSTM, RIDGE_DTYPE_FP32);
    op.u.lstm.batch = 2;
    op.u.lstm.seq = 3;
    op.u.lstm.input = 5;
    op.u.lstm.hidden = 7;
    op.u.lstm.layers = 2;
    op.u.lstm.pass = pass;
    return op;
}

static ridge_op custom(double flops, double bytes)
{
    ridge_op op = ridge_op_blank(RIDGE_OP_CUSTOM, RIDGE_DTYPE_FP32);
    op.u.custom.flops = flops;
    op.u.custom.bytes = bytes;
    return op;
}

static void test_formulas(void)
{
    /* Hand-computed; the derivations are in the comments. */
    const struct {
        const char *what;
        ridge_op op;
        double flops, bytes;
    } rows[] = {
        /* 2*4096^3; (A + B) 2*4096^2*2 bytes + C 4096^2*2 bytes */
        {"gemm 4096^3 bf16", ridge_op_gemm(RIDGE_DTYPE_BF16, 4096, 4096, 4096, 1), 2.0 * 4096 * 4096 * 4096,
         3.0 * 4096 * 4096 * 2},
        /* 2*1000*300*70*3; 3*(70000 + 21000)*1 + 3*300000*4 (int32 out) */
        {"gemm int8 batched", ridge_op_gemm(RIDGE_DTYPE_INT8, 1000, 300, 70, 3), 126e6, 273000 + 3600000},
        /* fp8 in, bf16 out: 2*16384*1 + 16384*2 */
        {"gemm fp8", ridge_op_gemm(RIDGE_DTYPE_FP8, 128, 128, 128, 1), 2.0 * 128 * 128 * 128, 65536},
        /* int4 in (half a byte), int32 out: 2*4096*0.5 + 4096*4 */
        {"gemm int4", ridge_op_gemm(RIDGE_DTYPE_INT4, 64, 64, 64, 1), 2.0 * 64 * 64 * 64, 20480},
        /* tf32 is stored as fp32: (64*32 + 32*16)*4 + 64*16*4 */
        {"gemm tf32", ridge_op_gemm(RIDGE_DTYPE_TF32, 64, 16, 32, 1), 2.0 * 64 * 16 * 32, 10240 + 4096},
        /* (300 + 600)*8 + 200*8 */
        {"gemm fp64", ridge_op_gemm(RIDGE_DTYPE_FP64, 10, 20, 30, 1), 12000, 8800},
        /* p = floor((9+2-3)/2)+1 = 5, q = floor((7+2-2)/2)+1 = 4; 2*2*5*4*4*(6/2)*3*2;
         * (2*6*9*7 + 4*3*3*2 + 2*4*5*4)*2 */
        {"conv2d fwd", conv(RIDGE_PASS_FWD), 5760, 1976},
        {"conv2d bwd_data", conv(RIDGE_PASS_BWD_DATA), 5760, 1976},
        {"conv2d bwd_filter", conv(RIDGE_PASS_BWD_FILTER), 5760, 1976},
        /* causal q = kv = 4: 1+2+3+4 = 10 pairs, 4*10 flops */
        {"attention causal 4x4", attn(1, 1, 1, 4, 4, 1, 1, RIDGE_PASS_FWD), 40, (2 * 4 + 2 * 4) * 2 + 16},
        /* non-causal 4x4: 16 pairs */
        {"attention full 4x4", attn(1, 1, 1, 4, 4, 1, 0, RIDGE_PASS_FWD), 64, (2 * 4 + 2 * 4) * 2 + 16},
        /* causal q=3 < kv=5, queries see 3, 4, 5 keys: 12 pairs; 4*2*8*16*12.
         * Q+O 2*768, K+V 2*320 elements of 2 bytes, lse 4*2*8*3 */
        {"attention gqa causal fwd", attn(2, 8, 2, 3, 5, 16, 1, RIDGE_PASS_FWD), 12288, 4352 + 192},
        /* 3.5x; bytes + (4*768 + 4*320)*2 + 192 */
        {"attention gqa causal fwd_bwd", attn(2, 8, 2, 3, 5, 16, 1, RIDGE_PASS_FWD_BWD), 43008,
         4544 + 8704 + 192},
        /* causal q=6 > kv=3: queries see 0,0,0,1,2,3 keys: 6 pairs */
        {"attention causal q>kv", attn(1, 1, 1, 6, 3, 1, 1, RIDGE_PASS_FWD), 24, (2 * 6 + 2 * 3) * 2 + 24},
        {"attention full q>kv", attn(1, 1, 1, 6, 3, 1, 0, RIDGE_PASS_FWD), 72, (2 * 6 + 2 * 3) * 2 + 24},
        {"elementwise", ridge_op_elementwise(RIDGE_DTYPE_FP32, 1000, 2, 1, 2.5), 2500, 12000},
        {"elementwise write-only", ridge_op_elementwise(RIDGE_DTYPE_FP16, 1000, 0, 1, 0), 0, 2000},
        {"softmax", rowop(RIDGE_OP_SOFTMAX, RIDGE_DTYPE_FP16, 3, 7), 105, 84},
        {"layernorm", rowop(RIDGE_OP_LAYERNORM, RIDGE_DTYPE_FP16, 3, 7), 168, 112},
        {"rmsnorm", rowop(RIDGE_OP_RMSNORM, RIDGE_DTYPE_FP16, 3, 7), 126, 98},
        {"reduce", rowop(RIDGE_OP_REDUCE, RIDGE_DTYPE_FP32, 3, 7), 21, 96},
        /* 2*5*8*2 + 5*8 */
        {"embedding", emb(5, 8, 100), 0, 200},
        /* sum(in_l + h) = 12 + 14 = 26, W = 4*7*26 = 728; 2*6*728 + 10*6*2*7;
         * (728 + 6*(5 + 3*7))*4 */
        {"lstm fwd", lstm(RIDGE_PASS_FWD), 9576, 3536},
        {"lstm fwd_bwd", lstm(RIDGE_PASS_FWD_BWD), 3 * 9576, 3 * 3536},
        {"copy d2d", ridge_op_copy(1000, RIDGE_COPY_D2D), 0, 2000},
        {"copy h2d", ridge_op_copy(1000, RIDGE_COPY_H2D), 0, 1000},
        {"copy d2h", ridge_op_copy(1000, RIDGE_COPY_D2H), 0, 1000},
        {"custom", custom(123.5, 77), 123.5, 77},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_err err = {{0}};
        check_context(rows[i].what);
        CHECK_INT(ridge_op_check(&rows[i].op, "t", &err), RIDGE_OK);
        CHECK_NEAR(ridge_op_flops(&rows[i].op), rows[i].flops, 1e-15);
        CHECK_NEAR(ridge_op_min_bytes(&rows[i].op), rows[i].bytes, 1e-15);
    }

    /* count is not applied */
    check_context("count not applied");
    {
        ridge_op a = ridge_op_gemm(RIDGE_DTYPE_FP16, 100, 200, 300, 1);
        ridge_op b = a;
        b.count = 7;
        CHECK_NEAR(ridge_op_flops(&a), ridge_op_flops(&b), 0);
        CHECK_NEAR(ridge_op_min_bytes(&a), ridge_op_min_bytes(&b), 0);
    }
}

/* ---------------------------------------------------- ridge_op_check */

/* A fused epilogue's extra reads are compulsory bytes of the GEMM or convolution. */
static void test_epilogue_bytes(void)
{
    ridge_op g = ridge_op_gemm(RIDGE_DTYPE_BF16, 64, 128, 256, 1);
    double plain = ridge_op_min_bytes(&g);
    g.epilogue_bytes = 64 * 128 * 2; /* a residual the size of C */
    CHECK_NEAR(ridge_op_min_bytes(&g), plain + 64 * 128 * 2, 1e-15);
    CHECK_NEAR(ridge_op_flops(&g), 2.0 * 64 * 128 * 256, 1e-15);
    CHECK_INT(ridge_op_check(&g, "op", NULL), RIDGE_OK);
}

static void test_check(void)
{
    const struct {
        const char *what;
        ridge_op op;
        const char *where;
        const char *msg; /* NULL: valid */
    } rows[] = {
        {"gemm ok", ridge_op_gemm(RIDGE_DTYPE_BF16, 1, 12288, 4096, 1), "w", NULL},
        {"gemm m 0", ridge_op_gemm(RIDGE_DTYPE_BF16, 0, 2, 3, 1), "w.json: $.ops[3]",
         "w.json: $.ops[3].m: 0 is out of range [1, 1e+15]"},
        {"gemm default where", ridge_op_gemm(RIDGE_DTYPE_BF16, 2, 2, 2.5, 1), NULL, "op.k: 2.5 is not an integer"},
        {"gemm n NaN", ridge_op_gemm(RIDGE_DTYPE_BF16, 2, NAN, 2, 1), "w", "w.n: not a finite number"},
        {"gemm k inf", ridge_op_gemm(RIDGE_DTYPE_BF16, 2, 2, INFINITY, 1), "w", "w.k: not a finite number"},
        {"gemm m huge", ridge_op_gemm(RIDGE_DTYPE_BF16, 2e15, 2, 2, 1), "w", "w.m: 2e+15 is out of range"},
        {"gemm batch 0", ridge_op_gemm(RIDGE_DTYPE_BF16, 2, 2, 2, 0), "w", "w.batch: 0 is out of range"},
        {"bad dtype", ridge_op_gemm((ridge_dtype)99, 2, 2, 2, 1), "w", "w.dtype: 99 is not a dtype"},
        {"elementwise none moved", ridge_op_elementwise(RIDGE_DTYPE_FP32, 10, 0, 0, 1), "w",
         "w.outputs: inputs + outputs is 0"},
        {"elementwise fpe negative", ridge_op_elementwise(RIDGE_DTYPE_FP32, 10, 1, 1, -1), "w",
         "w.flops_per_element: -1 is out of range"},
        {"elementwise inputs fractional", ridge_op_elementwise(RIDGE_DTYPE_FP32, 10, 1.5, 1, 1), "w",
         "w.inputs: 1.5 is not an integer"},
        {"copy 0 bytes", ridge_op_copy(0, RIDGE_COPY_D2D), "w", "w.bytes: 0 is out of range"},
        {"copy bad kind", ridge_op_copy(10, (ridge_copy_kind)5), "w", "w.kind: 5 is not a copy kind"},
        {"conv ok", conv(RIDGE_PASS_FWD), "w", NULL},
        {"conv fwd_bwd", conv(RIDGE_PASS_FWD_BWD), "w", "w.pass: 'fwd_bwd' is not a pass of conv2d"},
        {"attention bwd_data", attn(1, 8, 8, 4, 4, 64, 1, RIDGE_PASS_BWD_DATA), "w",
         "w.pass: 'bwd_data' is not a pass of attention (fwd, fwd_bwd)"},
        {"attention kv_heads 3", attn(1, 8, 3, 4, 4, 64, 1, RIDGE_PASS_FWD), "w",
         "w.kv_heads: 3 does not divide heads (8)"},
        {"attention kv_heads 16", attn(1, 8, 16, 4, 4, 64, 1, RIDGE_PASS_FWD), "w",
         "w.kv_heads: 16 exceeds heads (8)"},
        {"attention causal 2", attn(1, 8, 8, 4, 4, 64, 2, RIDGE_PASS_FWD), "w", "w.causal: 2 is not 0 or 1"},
        {"lstm bwd_filter", lstm(RIDGE_PASS_BWD_FILTER), "w", "w.pass: 'bwd_filter' is not a pass of lstm"},
        {"custom nothing", custom(0, 0), "w", "w.flops: flops and bytes are both 0"},
        {"custom bytes only", custom(0, 10), "w", NULL},
        {"custom flops negative", custom(-1, 10), "w", "w.flops: -1 is out of range"},
        {"embedding vocab 0", emb(5, 8, 0), "w", "w.vocab: 0 is out of range"},
        {"rows cols 0", rowop(RIDGE_OP_SOFTMAX, RIDGE_DTYPE_FP16, 3, 0), "w", "w.cols: 0 is out of range"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_err err = {{0}};
        int rc = ridge_op_check(&rows[i].op, rows[i].where, &err);
        check_context(rows[i].what);
        if (!rows[i].msg) {
            CHECK_INT(rc, RIDGE_OK);
        } else {
            CHECK_INT(rc, RIDGE_EINVAL);
            CHECK_STR_HAS(err.msg, rows[i].msg);
        }
    }

    check_context("op check: other fields");
    {
        ridge_err err = {{0}};
        ridge_op op = conv(RIDGE_PASS_FWD);
        op.u.conv.groups = 4; /* divides k = 4 but not c = 6 */
        CHECK_INT(ridge_op_check(&op, "w", &err), RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "w.groups: 4 does not divide c (6)");
        op = conv(RIDGE_PASS_FWD);
        op.u.conv.groups = 3; /* divides c = 6 but not k = 4 */
        CHECK_INT(ridge_op_check(&op, "w", &err), RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "w.groups: 3 does not divide k (4)");
        op = conv(RIDGE_PASS_FWD);
        op.u.conv.pad = 0;
        op.u.conv.r = 9; /* output height 1: allowed */
        CHECK_INT(ridge_op_check(&op, "w", &err), RIDGE_OK);
        op.u.conv.r = 10;
        CHECK_INT(ridge_op_check(&op, "w", &err), RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "w.r: filter height 10 exceeds");
        op = conv(RIDGE_PASS_FWD);
        op.u.conv.s = 10; /* w + 2 pad = 9 */
        CHECK_INT(ridge_op_check(&op, "w", &err), RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "w.s: filter width 10 exceeds");
        op = conv(RIDGE_PASS_FWD);
        op.u.conv.pad = -1;
        CHECK_INT(ridge_op_check(&op, "w", &err), RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "w.pad: -1 is out of range [0, 1e+15]");
        op = conv(RIDGE_PASS_FWD);
        op.u.conv.stride = 0;
        CHECK_INT(ridge_op_check(&op, "w", &err), RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "w.stride: 0 is out of range");

        op = ridge_op_gemm(RIDGE_DTYPE_FP16, 2, 2, 2, 1);
        op.count = 0;
        CHECK_INT(ridge_op_check(&op, "w", &err), RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "w.count: 0 is out of range");
        op.count = 2.5;
        CHECK_INT(ridge_op_check(&op, "w", &err), RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "w.count: 2.5 is not an integer");
        op.count = 1;
        memset(op.name, 'x', sizeof op.name);
        CHECK_INT(ridge_op_check(&op, "w", &err), RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "w.name: not terminated");
        op = ridge_op_gemm(RIDGE_DTYPE_FP16, 2, 2, 2, 1);
        op.kind = RIDGE_OP_KIND_COUNT;
        CHECK_INT(ridge_op_check(&op, "w", &err), RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "w.op: 12 is not an operator kind");
        op = custom(1, 1);
        op.u.custom.unit = (ridge_unit)3;
        CHECK_INT(ridge_op_check(&op, "w", &err), RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "w.unit: 3 is not a unit");
        CHECK_INT(ridge_op_check(NULL, "w", &err), RIDGE_EINVAL);
        CHECK_INT(ridge_op_check(&op, "w", NULL), RIDGE_EINVAL); /* NULL err is allowed */
    }

    check_context("constructors");
    {
        ridge_op g = ridge_op_gemm(RIDGE_DTYPE_TF32, 3, 5, 7, 2);
        ridge_op e = ridge_op_elementwise(RIDGE_DTYPE_FP16, 11, 2, 1, 3.25);
        ridge_op c = ridge_op_copy(4096, RIDGE_COPY_D2H);
        CHECK_INT(g.kind, RIDGE_OP_GEMM);
        CHECK_INT(g.dtype, RIDGE_DTYPE_TF32);
        CHECK_NEAR(g.count, 1, 0);
        CHECK_STR_EQ(g.name, "");
        CHECK_NEAR(g.u.gemm.m + 10 * g.u.gemm.n + 100 * g.u.gemm.k + 1000 * g.u.gemm.batch, 2753, 0);
        CHECK_INT(e.kind, RIDGE_OP_ELEMENTWISE);
        CHECK_NEAR(e.u.ew.flops_per_element, 3.25, 0);
        CHECK_NEAR(e.u.ew.inputs, 2, 0);
        CHECK_INT(c.kind, RIDGE_OP_COPY);
        CHECK_INT(c.u.copy.kind, RIDGE_COPY_D2H);
        CHECK_INT(c.dtype, RIDGE_DTYPE_FP32);
        CHECK_NEAR(c.u.copy.bytes, 4096, 0);
    }
}

/* ---------------------------------------------------- parser errors */

/* One op wrapped in a valid workload. */
#define W(op) "{\"schema_version\":1,\"name\":\"t\",\"ops\":[" op "]}"
#define GEMM(extra) W("{\"op\":\"gemm\",\"dtype\":\"bf16\",\"m\":64,\"n\":32,\"k\":16" extra "}")
#define CONV(extra)                                                                                   \
    W("{\"op\":\"conv2d\",\"dtype\":\"fp16\",\"n\":2,\"c\":6,\"h\":9,\"w\":7,\"k\":4,\"r\":3,\"s\":2," \
      "\"stride\":2,\"pad\":1" extra "}")
#define ATTN(extra) \
    W("{\"op\":\"attention\",\"dtype\":\"bf16\",\"batch\":1,\"heads\":8,\"q_len\":4,\"kv_len\":4,\"head_dim\":64" extra "}")

static void test_parse_errors(void)
{
    const struct {
        const char *what;
        const char *json;
        int status;
        const char *msg;
    } rows[] = {
        {"unknown kind", W("{\"op\":\"matmul\",\"dtype\":\"bf16\"}"), RIDGE_EINVAL,
         "t.json: $.ops[0].op: unknown kind 'matmul' (known: gemm, conv2d, attention, elementwise, softmax, "
         "layernorm, rmsnorm, reduce, embedding, lstm, copy, custom)"},
        {"kind with a newline", W("{\"op\":\"ge\\nmm\"}"), RIDGE_EINVAL,
         "t.json: $.ops[0].op: unknown kind 'ge?mm' (known: gemm,"},
        {"pass with a tab", ATTN(",\"causal\":true,\"pass\":\"\\tfwd\""), RIDGE_EINVAL,
         "$.ops[0].pass: '?fwd' is not one of: fwd, fwd_bwd"},
        {"kind not a string", W("{\"op\":3}"), RIDGE_EINVAL, "t.json: $.ops[0].op: expected a string, got a number"},
        {"kind missing", W("{\"dtype\":\"bf16\",\"m\":1}"), RIDGE_EINVAL, "$.ops[0].op: missing required string"},
        {"kind very long", W("{\"op\":\"gemmgemmgemmgemmgemmgemmgemmgemmgemm\"}"), RIDGE_EINVAL,
         "$.ops[0].op: string longer than"},
        {"op not an object", W("[1]"), RIDGE_EINVAL, "t.json: $.ops[0]: expected an object"},
        {"unknown key", GEMM(",\"transpose_a\":true"), RIDGE_EINVAL, "t.json: $.ops[0].transpose_a: unknown key"},
        {"key of another kind", GEMM(",\"rows\":3"), RIDGE_EINVAL, "$.ops[0].rows: unknown key"},
        {"duplicate key", GEMM(",\"m\":64"), RIDGE_EINVAL, "$.ops[0].m: duplicate key"},
        {"missing k", W("{\"op\":\"gemm\",\"dtype\":\"bf16\",\"m\":64,\"n\":32}"), RIDGE_EINVAL,
         "t.json: $.ops[0].k: missing required number"},
        {"m a string", W("{\"op\":\"gemm\",\"dtype\":\"bf16\",\"m\":\"64\",\"n\":32,\"k\":16}"), RIDGE_EINVAL,
         "$.ops[0].m: expected a number, got a string"},
        {"m fractional", W("{\"op\":\"gemm\",\"dtype\":\"bf16\",\"m\":2.385,\"n\":32,\"k\":16}"), RIDGE_EINVAL,
         "t.json: $.ops[0].m: 2.385 is not an integer"},
        {"m zero", W("{\"op\":\"gemm\",\"dtype\":\"bf16\",\"m\":0,\"n\":32,\"k\":16}"), RIDGE_EINVAL,
         "t.json: $.ops[0].m: 0 is out of range [1, 1e+15]"},
        {"m negative", W("{\"op\":\"gemm\",\"dtype\":\"bf16\",\"m\":-3,\"n\":32,\"k\":16}"), RIDGE_EINVAL,
         "$.ops[0].m: -3 is out of range"},
        {"m over limit", W("{\"op\":\"gemm\",\"dtype\":\"bf16\",\"m\":1e16,\"n\":32,\"k\":16}"), RIDGE_EINVAL,
         "$.ops[0].m: 1e+16 is out of range"},
        {"n infinite", W("{\"op\":\"gemm\",\"dtype\":\"bf16\",\"m\":64,\"n\":1e999,\"k\":16}"), RIDGE_EINVAL,
         "$.ops[0].n: not a finite number"},
        {"n minus infinite", W("{\"op\":\"gemm\",\"dtype\":\"bf16\",\"m\":64,\"n\":-1e999,\"k\":16}"),
         RIDGE_EINVAL, "$.ops[0].n: not a finite number"},
        {"k null", W("{\"op\":\"gemm\",\"dtype\":\"bf16\",\"m\":64,\"n\":32,\"k\":null}"), RIDGE_EINVAL,
         "$.ops[0].k: expected a number, got null"},
        {"batch zero", GEMM(",\"batch\":0"), RIDGE_EINVAL, "$.ops[0].batch: 0 is out of range"},
        {"dtype missing", W("{\"op\":\"gemm\",\"m\":64,\"n\":32,\"k\":16}"), RIDGE_EINVAL,
         "$.ops[0].dtype: missing required string"},
        {"dtype unknown", W("{\"op\":\"gemm\",\"dtype\":\"fp4\",\"m\":64,\"n\":32,\"k\":16}"), RIDGE_EINVAL,
         "$.ops[0].dtype: unknown dtype 'fp4' (known: fp64, fp32, tf32, fp16, bf16, fp8, int8, int4)"},
        {"dtype empty", W("{\"op\":\"gemm\",\"dtype\":\"\",\"m\":64,\"n\":32,\"k\":16}"), RIDGE_EINVAL,
         "$.ops[0].dtype: empty string"},
        {"count zero", GEMM(",\"count\":0"), RIDGE_EINVAL, "$.ops[0].count: 0 is out of range"},
        {"count fractional", GEMM(",\"count\":1.5"), RIDGE_EINVAL, "$.ops[0].count: 1.5 is not an integer"},
        {"count a bool", GEMM(",\"count\":true"), RIDGE_EINVAL, "$.ops[0].count: expected a number, got a boolean"},
        {"name too long", GEMM(",\"name\":\"0123456789012345678901234567890123456789012345678901234567890123\""),
         RIDGE_EINVAL, "$.ops[0].name: string longer than 63 bytes (UTF-8)"},
        {"name a number", GEMM(",\"name\":5"), RIDGE_EINVAL, "$.ops[0].name: expected a string"},
        {"conv pass missing", CONV(""), RIDGE_EINVAL, "$.ops[0].pass: missing required string"},
        {"conv pass fwd_bwd", CONV(",\"pass\":\"fwd_bwd\""), RIDGE_EINVAL,
         "$.ops[0].pass: 'fwd_bwd' is not one of: fwd, bwd_data, bwd_filter"},
        {"conv groups 4", CONV(",\"pass\":\"fwd\",\"groups\":4"), RIDGE_EINVAL,
         "t.json: $.ops[0].groups: 4 does not divide c (6)"},
        {"conv valid", CONV(",\"pass\":\"fwd\""), RIDGE_OK, NULL},
        {"conv stride missing",
         W("{\"op\":\"conv2d\",\"dtype\":\"fp16\",\"n\":2,\"c\":6,\"h\":9,\"w\":7,\"k\":4,\"r\":3,\"s\":2,"
           "\"pad\":1,\"pass\":\"fwd\"}"),
         RIDGE_EINVAL, "$.ops[0].stride: missing required number"},
        {"conv filter too big",
         W("{\"op\":\"conv2d\",\"dtype\":\"fp16\",\"n\":2,\"c\":6,\"h\":3,\"w\":7,\"k\":4,\"r\":7,\"s\":2,"
           "\"stride\":1,\"pad\":1,\"pass\":\"fwd\"}"),
         RIDGE_EINVAL, "$.ops[0].r: filter height 7 exceeds the padded input height h + 2 pad = 5"},
        {"conv pad -1",
         W("{\"op\":\"conv2d\",\"dtype\":\"fp16\",\"n\":2,\"c\":6,\"h\":9,\"w\":7,\"k\":4,\"r\":3,\"s\":2,"
           "\"stride\":1,\"pad\":-1,\"pass\":\"bwd_data\"}"),
         RIDGE_EINVAL, "$.ops[0].pad: -1 is out of range [0, 1e+15]"},
        {"attention causal missing", ATTN(",\"pass\":\"fwd\""), RIDGE_EINVAL,
         "$.ops[0].causal: missing required boolean"},
        {"attention causal a number", ATTN(",\"causal\":1,\"pass\":\"fwd\""), RIDGE_EINVAL,
         "$.ops[0].causal: expected true or false, got a number"},
        {"attention pass missing", ATTN(",\"causal\":true"), RIDGE_EINVAL, "$.ops[0].pass: missing required string"},
        {"attention pass bwd_data", ATTN(",\"causal\":true,\"pass\":\"bwd_data\""), RIDGE_EINVAL,
         "$.ops[0].pass: 'bwd_data' is not one of: fwd, fwd_bwd"},
        {"attention kv_heads 3", ATTN(",\"causal\":true,\"pass\":\"fwd\",\"kv_heads\":3"), RIDGE_EINVAL,
         "$.ops[0].kv_heads: 3 does not divide heads (8)"},
        {"attention kv_heads 16", ATTN(",\"causal\":true,\"pass\":\"fwd\",\"kv_heads\":16"), RIDGE_EINVAL,
         "$.ops[0].kv_heads: 16 exceeds heads (8)"},
        {"attention kv_heads 0", ATTN(",\"causal\":false,\"pass\":\"fwd\",\"kv_heads\":0"), RIDGE_EINVAL,
         "$.ops[0].kv_heads: 0 is out of range"},
        {"elementwise nothing moved",
         W("{\"op\":\"elementwise\",\"dtype\":\"fp32\",\"elements\":10,\"inputs\":0,\"outputs\":0,"
           "\"flops_per_element\":1}"),
         RIDGE_EINVAL, "$.ops[0].outputs: inputs + outputs is 0"},
        {"elementwise inputs -1",
         W("{\"op\":\"elementwise\",\"dtype\":\"fp32\",\"elements\":10,\"inputs\":-1,\"outputs\":1,"
           "\"flops_per_element\":1}"),
         RIDGE_EINVAL, "$.ops[0].inputs: -1 is out of range [0, 1e+15]"},
        {"elementwise fpe missing",
         W("{\"op\":\"elementwise\",\"dtype\":\"fp32\",\"elements\":10,\"inputs\":1,\"outputs\":1}"),
         RIDGE_EINVAL, "$.ops[0].flops_per_element: missing required number"},
        {"elementwise fpe negative",
         W("{\"op\":\"elementwise\",\"dtype\":\"fp32\",\"elements\":10,\"inputs\":1,\"outputs\":1,"
           "\"flops_per_element\":-0.5}"),
         RIDGE_EINVAL, "$.ops[0].flops_per_element: -0.5 is out of range"},
        {"softmax cols missing", W("{\"op\":\"softmax\",\"dtype\":\"fp16\",\"rows\":10}"), RIDGE_EINVAL,
         "$.ops[0].cols: missing required number"},
        {"layernorm rows 0", W("{\"op\":\"layernorm\",\"dtype\":\"fp16\",\"rows\":0,\"cols\":10}"), RIDGE_EINVAL,
         "$.ops[0].rows: 0 is out of range"},
        {"embedding vocab missing", W("{\"op\":\"embedding\",\"dtype\":\"bf16\",\"tokens\":10,\"dim\":8}"),
         RIDGE_EINVAL, "$.ops[0].vocab: missing required number"},
        {"lstm pass bwd_filter",
         W("{\"op\":\"lstm\",\"dtype\":\"fp16\",\"batch\":1,\"seq\":2,\"input\":3,\"hidden\":4,\"layers\":1,"
           "\"pass\":\"bwd_filter\"}"),
         RIDGE_EINVAL, "$.ops[0].pass: 'bwd_filter' is not one of: fwd, fwd_bwd"},
        {"lstm layers 0",
         W("{\"op\":\"lstm\",\"dtype\":\"fp16\",\"batch\":1,\"seq\":2,\"input\":3,\"hidden\":4,\"layers\":0,"
           "\"pass\":\"fwd\"}"),
         RIDGE_EINVAL, "$.ops[0].layers: 0 is out of range"},
        {"copy kind p2p", W("{\"op\":\"copy\",\"bytes\":100,\"kind\":\"p2p\"}"), RIDGE_EINVAL,
         "$.ops[0].kind: 'p2p' is not one of: d2d, h2d, d2h"},
        {"copy kind missing", W("{\"op\":\"copy\",\"bytes\":100}"), RIDGE_EINVAL,
         "$.ops[0].kind: missing required string"},
        {"copy bytes 0", W("{\"op\":\"copy\",\"bytes\":0,\"kind\":\"d2d\"}"), RIDGE_EINVAL,
         "$.ops[0].bytes: 0 is out of range"},
        {"copy dtype unknown", W("{\"op\":\"copy\",\"dtype\":\"byte\",\"bytes\":10,\"kind\":\"d2d\"}"),
         RIDGE_EINVAL, "$.ops[0].dtype: unknown dtype 'byte'"},
        {"custom nothing", W("{\"op\":\"custom\",\"dtype\":\"fp32\",\"flops\":0,\"bytes\":0}"), RIDGE_EINVAL,
         "$.ops[0].flops: flops and bytes are both 0"},
        {"custom flops negative", W("{\"op\":\"custom\",\"dtype\":\"fp32\",\"flops\":-1,\"bytes\":10}"),
         RIDGE_EINVAL, "$.ops[0].flops: -1 is out of range"},
        {"custom bytes huge", W("{\"op\":\"custom\",\"dtype\":\"fp32\",\"flops\":1,\"bytes\":1e31}"), RIDGE_EINVAL,
         "$.ops[0].bytes: 1e+31 is out of range"},
        {"custom unit matrix",
         W("{\"op\":\"custom\",\"dtype\":\"fp32\",\"flops\":1,\"bytes\":1,\"unit\":\"matrix\"}"), RIDGE_EINVAL,
         "$.ops[0].unit: 'matrix' is not one of: tensor, vector"},
        {"second op bad",
         W("{\"op\":\"copy\",\"bytes\":100,\"kind\":\"d2d\"},{\"op\":\"reduce\",\"dtype\":\"fp32\",\"rows\":10,"
           "\"cols\":2.5}"),
         RIDGE_EINVAL, "t.json: $.ops[1].cols: 2.5 is not an integer"},
        /* top level */
        {"schema_version 2", "{\"schema_version\":2,\"name\":\"t\",\"ops\":[]}", RIDGE_EINVAL,
         "t.json: $.schema_version: 2 is not supported"},
        {"schema_version missing", "{\"name\":\"t\",\"ops\":[]}", RIDGE_EINVAL,
         "t.json: $.schema_version: missing required number"},
        {"name missing", "{\"schema_version\":1,\"ops\":[]}", RIDGE_EINVAL, "t.json: $.name: missing required string"},
        {"name too long",
         "{\"schema_version\":1,\"name\":\"0123456789012345678901234567890123456789012345678901234567890123456789"
         "01234567890123456789012345\",\"ops\":[]}",
         RIDGE_EINVAL, "t.json: $.name: string longer than 95 bytes (UTF-8)"},
        {"unknown top key", "{\"schema_version\":1,\"name\":\"t\",\"version\":3,\"ops\":[]}", RIDGE_EINVAL,
         "t.json: $.version: unknown key"},
        {"a \\u0000 escape (cJSON would cut the name there)", "{\"schema_version\":1,\"name\":\"a\\u0000b\",\"ops\":[]}",
         RIDGE_EPARSE, "t.json: line 1: malformed JSON (a \\u0000 escape"},
        {"description not a string", "{\"schema_version\":1,\"name\":\"t\",\"description\":[],\"ops\":[]}",
         RIDGE_EINVAL, "t.json: $.description: expected a string, got an array"},
        {"source empty", "{\"schema_version\":1,\"name\":\"t\",\"source\":\"\",\"ops\":[]}", RIDGE_EINVAL,
         "t.json: $.source: empty string"},
        {"ops missing", "{\"schema_version\":1,\"name\":\"t\"}", RIDGE_EINVAL, "t.json: $.ops: missing required array"},
        {"ops an object", "{\"schema_version\":1,\"name\":\"t\",\"ops\":{}}", RIDGE_EINVAL,
         "t.json: $.ops: expected an array, got an object"},
        {"ops empty", "{\"schema_version\":1,\"name\":\"t\",\"ops\":[]}", RIDGE_EINVAL, "t.json: $.ops: empty array"},
        {"root an array", "[1,2]", RIDGE_EPARSE, "t.json: $: expected a JSON object"},
        {"malformed", "{\"schema_version\":1,\n\"name\":}", RIDGE_EPARSE, "t.json: line 2, column"},
        {"trailing text", W("{\"op\":\"copy\",\"bytes\":100,\"kind\":\"d2d\"}") " x", RIDGE_EPARSE,
         "t.json: trailing characters"},
        {"empty text", "", RIDGE_EPARSE, "t.json: line 1, column 1: malformed JSON"},
        {"epilogue on a copy", W("{\"op\":\"copy\",\"bytes\":100,\"kind\":\"d2d\",\"epilogue_bytes\":8}"),
         RIDGE_EINVAL, "t.json: $.ops[0].epilogue_bytes: only a gemm or conv2d has a fused epilogue"},
        {"negative epilogue", W("{\"op\":\"gemm\",\"dtype\":\"bf16\",\"m\":8,\"n\":8,\"k\":8,\"epilogue_bytes\":-1}"),
         RIDGE_EINVAL, "t.json: $.ops[0].epilogue_bytes: -1 is out of range"},
        {"cold without reuse", W("{\"op\":\"gemm\",\"dtype\":\"bf16\",\"m\":8,\"n\":8,\"k\":8,\"cold_bytes\":64}"),
         RIDGE_EINVAL, "t.json: $.ops[0].cold_bytes: needs reuse_bytes"},
        /* optional keys stored as 0 when absent: a 0 given is an error, not "absent" */
        {"elementwise rows 0",
         W("{\"op\":\"elementwise\",\"dtype\":\"fp16\",\"elements\":10,\"inputs\":1,\"outputs\":1,"
           "\"flops_per_element\":1,\"rows\":0}"),
         RIDGE_EINVAL, "t.json: $.ops[0].rows: 0 is out of range [1, 1e+15]"},
        {"elementwise channels 0",
         W("{\"op\":\"elementwise\",\"dtype\":\"fp16\",\"elements\":10,\"inputs\":1,\"outputs\":1,"
           "\"flops_per_element\":1,\"channels\":0}"),
         RIDGE_EINVAL, "t.json: $.ops[0].channels: 0 is out of range [1, 1e+15]"},
        {"reduce inputs 0", W("{\"op\":\"reduce\",\"dtype\":\"fp16\",\"rows\":10,\"cols\":10,\"inputs\":0}"),
         RIDGE_EINVAL, "t.json: $.ops[0].inputs: 0 is out of range [1, 1e+15]"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_oplist w;
        ridge_err err = {{0}};
        int rc;
        memset(&w, 0xab, sizeof w); /* the parser must reset it */
        rc = ridge_oplist_parse(rows[i].json, strlen(rows[i].json), "t.json", &w, &err);
        check_context(rows[i].what);
        CHECK_INT(rc, rows[i].status);
        if (rows[i].msg) {
            CHECK_STR_HAS(err.msg, rows[i].msg);
            CHECK(w.n == 0 && w.ops == NULL);
        }
        ridge_oplist_free(&w);
    }
}

/* ------------------------------------------------ parser: good input */

static void test_parse_good(void)
{
    static const char json[] =
        "{\"schema_version\":1,\"name\":\"defaults\",\"description\":\"d\",\"source\":\"s\",\"ops\":["
        "{\"op\":\"gemm\",\"dtype\":\"fp16\",\"m\":3,\"n\":5,\"k\":7},"
        "{\"op\":\"gemm\",\"dtype\":\"int8\",\"m\":3,\"n\":5,\"k\":7,\"batch\":11,\"count\":13,\"name\":\"g2\"},"
        "{\"op\":\"conv2d\",\"dtype\":\"bf16\",\"n\":2,\"c\":6,\"h\":9,\"w\":7,\"k\":4,\"r\":3,\"s\":2,"
        "\"stride\":2,\"pad\":0,\"pass\":\"bwd_filter\"},"
        "{\"op\":\"attention\",\"dtype\":\"fp8\",\"batch\":2,\"heads\":8,\"q_len\":1,\"kv_len\":4096,"
        "\"head_dim\":128,\"causal\":false,\"pass\":\"fwd_bwd\"},"
        "{\"op\":\"copy\",\"bytes\":4096,\"kind\":\"h2d\"},"
        "{\"op\":\"copy\",\"dtype\":\"int8\",\"bytes\":1e12,\"kind\":\"d2h\"},"
        "{\"op\":\"custom\",\"dtype\":\"fp32\",\"flops\":2.385e9,\"bytes\":0},"
        "{\"op\":\"custom\",\"dtype\":\"bf16\",\"flops\":1,\"bytes\":1,\"unit\":\"tensor\"},"
        "{\"op\":\"lstm\",\"dtype\":\"fp16\",\"batch\":1,\"seq\":2,\"input\":3,\"hidden\":4,\"layers\":5,"
        "\"pass\":\"fwd\"},"
        "{\"op\":\"elementwise\",\"dtype\":\"fp32\",\"elements\":1e15,\"inputs\":0,\"outputs\":1,"
        "\"flops_per_element\":0}"
        "]}";
    ridge_oplist w;
    ridge_err err = {{0}};
    int rc = ridge_oplist_parse(json, sizeof json - 1, "mem", &w, &err);
    check_context("good: defaults and fields");
    if (!CHECK_INT(rc, RIDGE_OK)) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    CHECK_STR_EQ(w.name, "defaults");
    CHECK_INT(w.n, 10);
    CHECK_NEAR(w.ops[0].u.gemm.batch, 1, 0);
    CHECK_NEAR(w.ops[0].count, 1, 0);
    CHECK_STR_EQ(w.ops[0].name, "");
    CHECK_INT(w.ops[0].dtype, RIDGE_DTYPE_FP16);
    CHECK_NEAR(w.ops[1].u.gemm.batch, 11, 0);
    CHECK_NEAR(w.ops[1].count, 13, 0);
    CHECK_STR_EQ(w.ops[1].name, "g2");
    CHECK_INT(w.ops[1].dtype, RIDGE_DTYPE_INT8);
    CHECK_INT(w.ops[2].kind, RIDGE_OP_CONV2D);
    CHECK_NEAR(w.ops[2].u.conv.groups, 1, 0);
    CHECK_NEAR(w.ops[2].u.conv.pad, 0, 0);
    CHECK_INT(w.ops[2].u.conv.pass, RIDGE_PASS_BWD_FILTER);
    CHECK_NEAR(w.ops[3].u.attn.kv_heads, 8, 0); /* defaults to heads */
    CHECK_INT(w.ops[3].u.attn.causal, 0);
    CHECK_INT(w.ops[3].u.attn.pass, RIDGE_PASS_FWD_BWD);
    CHECK_INT(w.ops[4].dtype, RIDGE_DTYPE_FP32); /* copy: dtype optional */
    CHECK_INT(w.ops[4].u.copy.kind, RIDGE_COPY_H2D);
    CHECK_INT(w.ops[5].dtype, RIDGE_DTYPE_INT8);
    CHECK_NEAR(w.ops[5].u.copy.bytes, 1e12, 0);
    CHECK_INT(w.ops[6].u.custom.unit, RIDGE_UNIT_VECTOR);
    CHECK_NEAR(w.ops[6].u.custom.flops, 2.385e9, 0);
    CHECK_INT(w.ops[7].u.custom.unit, RIDGE_UNIT_TENSOR);
    CHECK_NEAR(w.ops[8].u.lstm.layers, 5, 0);
    CHECK_NEAR(w.ops[9].u.ew.elements, 1e15, 0);
    /* decode attention: one query over 4096 keys, not causal: 4096 pairs */
    CHECK_NEAR(ridge_op_flops(&w.ops[3]), 3.5 * 4 * 2 * 8 * 128 * 4096, 1e-15);
    ridge_oplist_free(&w);
    CHECK(w.n == 0 && w.ops == NULL);
    ridge_oplist_free(&w); /* twice is harmless */
    ridge_oplist_free(NULL);

    check_context("good: NULL arguments");
    CHECK_INT(ridge_oplist_parse(NULL, 0, "mem", &w, &err), RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "mem: no data");
    CHECK_INT(ridge_oplist_parse(json, sizeof json - 1, NULL, NULL, &err), RIDGE_EINVAL);
    CHECK_INT(ridge_oplist_parse(json, sizeof json - 1, NULL, &w, NULL), RIDGE_OK); /* NULL err, default origin */
    ridge_oplist_free(&w);
    CHECK_INT(ridge_oplist_parse("{", 1, NULL, &w, &err), RIDGE_EPARSE);
    CHECK_STR_HAS(err.msg, "<workload>: line 1");
}

static void test_too_many_ops(void)
{
    /* One more element than the limit; the count is checked before any op is read. */
    size_t n = (size_t)RIDGE_OPLIST_MAX_OPS + 1, cap = 2 * n + 64, len;
    char *json = malloc(cap);
    ridge_oplist w;
    ridge_err err = {{0}};
    check_context("too many ops");
    if (!CHECK(json != NULL))
        return;
    len = (size_t)snprintf(json, cap, "{\"schema_version\":1,\"name\":\"big\",\"ops\":[");
    for (size_t i = 0; i < n; i++) {
        json[len++] = '0';
        json[len++] = i + 1 < n ? ',' : ']';
    }
    json[len++] = '}';
    json[len] = '\0';
    CHECK_INT(ridge_oplist_parse(json, len, "big.json", &w, &err), RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "big.json: $.ops: 1000001 ops, more than the limit of 1000000");
    free(json);
}

/* ------------------------------------------------------------- files */

static void path_of(char *buf, size_t cap, const char *file)
{
    snprintf(buf, cap, "%s/%s", examples_dir, file);
}

static void test_files(void)
{
    static const struct {
        const char *file;
        size_t n;
        const char *name;
    } good[] = {
        {"all-kinds.json", 12, "all-kinds"},
        {"gemm-sweep.json", 9, "gemm-sweep"},
        {"transformer-layer.json", 10, "llama2-7b-layer-prefill-2048"},
    };
    static const struct {
        const char *file;
        int status;
        const char *msg;
    } bad[] = {
        {"bad/unknown_kind.json", RIDGE_EINVAL, "unknown_kind.json: $.ops[1].op: unknown kind 'matmul' (known: gemm,"},
        {"bad/unknown_key.json", RIDGE_EINVAL, "unknown_key.json: $.ops[0].transpose_a: unknown key"},
        {"bad/negative_m.json", RIDGE_EINVAL, "negative_m.json: $.ops[0].m: -5 is out of range [1, 1e+15]"},
        {"bad/zero_k.json", RIDGE_EINVAL, "zero_k.json: $.ops[1].k: 0 is out of range [1, 1e+15]"},
        {"bad/malformed.json", RIDGE_EPARSE, "malformed.json: line 2, column"},
        {"bad/inf_value.json", RIDGE_EINVAL, "inf_value.json: $.ops[0].n: not a finite number"},
        {"bad/empty_ops.json", RIDGE_EINVAL, "empty_ops.json: $.ops: empty array"},
        {"bad/no_such_file.json", RIDGE_EIO, "no_such_file.json: cannot open"},
    };
    char path[1024];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        ridge_oplist w;
        ridge_err err = {{0}};
        path_of(path, sizeof path, good[i].file);
        check_context(good[i].file);
        if (!CHECK_INT(ridge_oplist_load_file(path, &w, &err), RIDGE_OK)) {
            fprintf(stderr, "  %s\n", err.msg);
            continue;
        }
        CHECK_INT(w.n, good[i].n);
        CHECK_STR_EQ(w.name, good[i].name);
        for (size_t j = 0; j < w.n; j++) {
            double f = ridge_op_flops(&w.ops[j]), b = ridge_op_min_bytes(&w.ops[j]);
            CHECK_INT(ridge_op_check(&w.ops[j], path, &err), RIDGE_OK);
            CHECK(isfinite(f) && f >= 0);
            CHECK(isfinite(b) && b > 0);
            CHECK(w.ops[j].name[0] != '\0'); /* every example op is named */
        }
        if (i == 0) {
            /* one of each kind, in enum order */
            for (size_t j = 0; j < w.n && j < RIDGE_OP_KIND_COUNT; j++)
                CHECK_INT(w.ops[j].kind, j);
            CHECK_NEAR(w.ops[2].u.attn.kv_heads, 8, 0);
            CHECK_NEAR(w.ops[11].count, 4, 0);
            CHECK_INT(w.ops[10].dtype, RIDGE_DTYPE_FP32);
        }
        if (i == 2) {
            double gemm_flops = 0;
            CHECK_STR_EQ(w.ops[2].name, "self_attn");
            CHECK_INT(w.ops[2].kind, RIDGE_OP_ATTENTION);
            CHECK_NEAR(w.ops[2].u.attn.kv_heads, 32, 0);
            CHECK_INT(w.ops[2].u.attn.causal, 1);
            /* attention: 4 * 32 * 128 * (2048^2 - 2048*2047/2) */
            CHECK_NEAR(ridge_op_flops(&w.ops[2]), 4.0 * 32 * 128 * (2048.0 * 2048 - 2048.0 * 2047 / 2), 1e-15);
            for (size_t j = 0; j < w.n; j++) {
                if (w.ops[j].kind == RIDGE_OP_GEMM)
                    gemm_flops += ridge_op_flops(&w.ops[j]);
            }
            /* 2 * tokens * parameters of the layer's matrices: 4096*(3*4096 + 4096 + 2*11008) + 11008*4096 */
            CHECK_NEAR(gemm_flops, 2.0 * 2048 * (4096.0 * (3 * 4096 + 4096 + 2 * 11008) + 11008.0 * 4096), 1e-15);
        }
        ridge_oplist_free(&w);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ridge_oplist w;
        ridge_err err = {{0}};
        path_of(path, sizeof path, bad[i].file);
        check_context(bad[i].file);
        CHECK_INT(ridge_oplist_load_file(path, &w, &err), bad[i].status);
        CHECK_STR_HAS(err.msg, bad[i].msg);
        CHECK(w.n == 0 && w.ops == NULL);
        ridge_oplist_free(&w);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1)
        examples_dir = argv[1];
    test_names();
    test_formulas();
    test_check();
    test_epilogue_bytes();
    test_parse_errors();
    test_parse_good();
    test_too_many_ops();
    test_files();
    return check_report();
}
