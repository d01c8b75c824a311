/* Operators: names, checks, and the useful work (FLOPs, minimum bytes) of one instance.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The formulas below are the reference; docs/workloads.md ("FLOPs and minimum bytes") repeats
 * them and docs/model.md cites them. es = ridge_dtype_bytes(dtype). `count` is never applied.
 *
 *   gemm        flops = 2 m n k batch
 *               bytes = batch (m k + k n) es + batch m n es_out
 *               es_out = 4 for fp32, tf32, int8, int4 (int32 accumulators are written out);
 *                        2 for fp8 (bf16 output); es otherwise (fp16, bf16: 2; fp64: 8)
 *   conv2d      p = floor((h + 2 pad - r) / stride) + 1, q = floor((w + 2 pad - s) / stride) + 1
 *               flops = 2 n p q k (c / groups) r s           (fwd, bwd_data and bwd_filter alike)
 *               bytes = (n c h w + k (c / groups) r s + n k p q) es
 *                       (each pass reads two of these three tensors and writes the third)
 *   attention   pairs = q_len kv_len                          (not causal)
 *               causal, bottom-right aligned: query i (0-based) sees
 *                 max(0, min(kv_len, kv_len - q_len + i + 1)) keys, so
 *               pairs = q_len kv_len - q_len (q_len - 1) / 2  when q_len <= kv_len
 *                     = kv_len (kv_len + 1) / 2               when q_len >  kv_len
 *               fwd flops     = 4 batch heads head_dim pairs (QK^T and PV)
 *               fwd_bwd flops = 3.5 x fwd flops (FlashAttention-2 accounting: forward 2 matmuls,
 *                               backward 5, one of which recomputes QK^T)
 *               fwd bytes     = (2 batch heads q_len head_dim            Q read, O written
 *                                + 2 batch kv_heads kv_len head_dim) es   K, V read
 *                               + 4 batch heads q_len                     fp32 logsumexp written
 *               fwd_bwd bytes = fwd bytes
 *                               + (4 batch heads q_len head_dim          Q, O, dO read; dQ written
 *                                  + 4 batch kv_heads kv_len head_dim) es K, V read; dK, dV written
 *                               + 4 batch heads q_len                     logsumexp read
 *   elementwise flops = elements flops_per_element
 *               bytes = elements (inputs + outputs) es
 *   softmax     flops = 5 rows cols        bytes = 2 rows cols es
 *   layernorm   flops = 8 rows cols        bytes = (2 rows cols + 2 cols) es      (gamma, beta)
 *   rmsnorm     flops = 6 rows cols        bytes = (2 rows cols + cols) es        (gamma)
 *   reduce      flops = rows cols          bytes = (rows cols + rows) es          (over cols)
 *   embedding   flops = 0                  bytes = 2 tokens dim es + 8 tokens     (int64 indices)
 *   lstm        in_l = input for layer 0, hidden otherwise; W = sum_l 4 hidden (in_l + hidden)
 *               fwd flops     = 2 batch seq W + 10 batch seq layers hidden   (gate matmuls +
 *                               pointwise gate arithmetic)
 *               fwd bytes     = (W + batch seq (input + (2 layers - 1) hidden)) es
 *                               weights read once; x read once; every layer writes its output
 *                               sequence once and layers 1.. read their input sequence once;
 *                               the recurrent state stays on chip; biases are not counted
 *               fwd_bwd       = 3 x fwd, for flops and for bytes
 *   copy        flops = 0; bytes = 2 bytes for d2d (read + write), bytes for h2d and d2h
 *   custom      flops and bytes as given
 */
#include "ridge/op.h"

#include "roofline.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Largest accepted size, count or dimension: well inside 2^53, where doubles hold integers
 * exactly, and far above any real tensor. */
static const double dim_max = 1e15;
/* Largest accepted FLOP or byte amount of a custom op. */
static const double amount_max = 1e30;

static const ridge_name kind_rows[] = {
    {"gemm", RIDGE_OP_GEMM},           {"conv2d", RIDGE_OP_CONV2D},       {"attention", RIDGE_OP_ATTENTION},
    {"elementwise", RIDGE_OP_ELEMENTWISE}, {"softmax", RIDGE_OP_SOFTMAX}, {"layernorm", RIDGE_OP_LAYERNORM},
    {"rmsnorm", RIDGE_OP_RMSNORM},     {"reduce", RIDGE_OP_REDUCE},       {"embedding", RIDGE_OP_EMBEDDING},
    {"lstm", RIDGE_OP_LSTM},           {"copy", RIDGE_OP_COPY},           {"custom", RIDGE_OP_CUSTOM},
};
static const ridge_name dtype_rows[] = {
    {"fp64", RIDGE_DTYPE_FP64}, {"fp32", RIDGE_DTYPE_FP32}, {"tf32", RIDGE_DTYPE_TF32}, {"fp16", RIDGE_DTYPE_FP16},
    {"bf16", RIDGE_DTYPE_BF16}, {"fp8", RIDGE_DTYPE_FP8},   {"int8", RIDGE_DTYPE_INT8}, {"int4", RIDGE_DTYPE_INT4},
};
static const ridge_name pass_rows[] = {
    {"fwd", RIDGE_PASS_FWD}, {"bwd_data", RIDGE_PASS_BWD_DATA}, {"bwd_filter", RIDGE_PASS_BWD_FILTER},
    {"fwd_bwd", RIDGE_PASS_FWD_BWD},
};
static const ridge_name copy_kind_rows[] = {{"d2d", RIDGE_COPY_D2D}, {"h2d", RIDGE_COPY_H2D}, {"d2h", RIDGE_COPY_D2H}};
static const ridge_name layout_rows[] = {
    {"nn", RIDGE_LAYOUT_NN}, {"nt", RIDGE_LAYOUT_NT}, {"tn", RIDGE_LAYOUT_TN}, {"tt", RIDGE_LAYOUT_TT}};
static const ridge_name ew_fn_rows[] = {{"plain", RIDGE_EW_PLAIN}, {"gelu_erf", RIDGE_EW_GELU_ERF},
                                        {"gelu_tanh", RIDGE_EW_GELU_TANH}, {"silu", RIDGE_EW_SILU},
                                        {"exp", RIDGE_EW_EXP}};
/* column last: a prefix of the table is the kernels of every row-wise op but reduce. */
static const ridge_name row_kernel_rows[] = {
    {"auto", RIDGE_ROW_AUTO}, {"cta", RIDGE_ROW_CTA}, {"warp", RIDGE_ROW_WARP}, {"column", RIDGE_ROW_COLUMN}};

RIDGE_NAMES_DEFINE(ridge_op_kind, kind_rows, "?")
RIDGE_NAMES_DEFINE(ridge_dtype, dtype_rows, "?")
RIDGE_NAMES_DEFINE(ridge_pass, pass_rows, "?")
RIDGE_NAMES_DEFINE(ridge_copy_kind, copy_kind_rows, "?")
RIDGE_NAMES_DEFINE(ridge_layout, layout_rows, "?")
RIDGE_NAMES_DEFINE(ridge_ew_fn, ew_fn_rows, "?")
RIDGE_NAMES_DEFINE(ridge_row_kernel, row_kernel_rows, "?")

static const ridge_name class_rows[] = {{"auto", RIDGE_HOST_AUTO},         {"aten", RIDGE_HOST_ATEN},
                                        {"library", RIDGE_HOST_LIBRARY},   {"attention", RIDGE_HOST_ATTENTION},
                                        {"autograd", RIDGE_HOST_AUTOGRAD}, {"multi_tensor", RIDGE_HOST_MULTI_TENSOR}};
const ridge_names ridge_host_class_names = RIDGE_NAMES(class_rows, "?");

const char *ridge_host_class_name(ridge_host_class c)
{
    return ridge_name_of(&ridge_host_class_names, (int)c);
}

static int ends_with(const char *s, const char *sfx)
{
    size_t n = strlen(s), k = strlen(sfx);
    return n >= k && strcmp(s + n - k, sfx) == 0;
}

ridge_host_class ridge_host_class_of(const ridge_op *op)
{
    if (op->host_class > RIDGE_HOST_AUTO && op->host_class < RIDGE_HOST_CLASS_COUNT)
        return (ridge_host_class)op->host_class;
    if (strcmp(op->group, "optimizer") == 0)
        return RIDGE_HOST_MULTI_TENSOR;
    if (ends_with(op->name, ".bwd") || ends_with(op->name, ".dgrad") || ends_with(op->name, ".wgrad") ||
        ends_with(op->name, ".gcast"))
        return RIDGE_HOST_AUTOGRAD;
    switch (op->kind) {
    case RIDGE_OP_GEMM:
    case RIDGE_OP_CONV2D:
    case RIDGE_OP_LSTM: return RIDGE_HOST_LIBRARY;
    case RIDGE_OP_ATTENTION: return op->u.attn.pass == RIDGE_PASS_FWD_BWD ? RIDGE_HOST_LIBRARY : RIDGE_HOST_ATTENTION;
    default: return RIDGE_HOST_ATEN;
    }
}

double ridge_dtype_bytes(ridge_dtype d)
{
    return rk_dtype_bytes(d);
}

/* ------------------------------------------------------------------ work */

double ridge_gemm_out_bytes(ridge_dtype d)
{
    return rk_gemm_out_bytes(d);
}

static double conv_p(const ridge_op *op)
{
    return rk_conv_out(op->u.conv.h, op->u.conv.pad, op->u.conv.r, op->u.conv.stride);
}

static double conv_q(const ridge_op *op)
{
    return rk_conv_out(op->u.conv.w, op->u.conv.pad, op->u.conv.s, op->u.conv.stride);
}

double rk_conv_flops(const ridge_op *op, double p, double q)
{
    return 2 * op->u.conv.n * p * q * op->u.conv.k * (op->u.conv.c / op->u.conv.groups) * op->u.conv.r * op->u.conv.s;
}

double rk_conv_bytes(const ridge_op *op, double p, double q)
{
    double es = rk_dtype_bytes(op->dtype);
    double in = op->u.conv.n * op->u.conv.c * op->u.conv.h * op->u.conv.w;
    double wt = op->u.conv.k * (op->u.conv.c / op->u.conv.groups) * op->u.conv.r * op->u.conv.s;
    double out = op->u.conv.n * op->u.conv.k * p * q;
    return (in + wt + out) * es;
}

/* Sum over layers of (in_l + hidden): layer 0 reads the input, the others the previous hidden. */
static double lstm_in_sum(const ridge_op *op)
{
    double h = op->u.lstm.hidden;
    return (op->u.lstm.input + h) + (op->u.lstm.layers - 1) * 2 * h;
}

static double lstm_fwd_flops(const ridge_op *op)
{
    double bt = op->u.lstm.batch * op->u.lstm.seq, h = op->u.lstm.hidden;
    return 2 * bt * 4 * h * lstm_in_sum(op) + 10 * bt * op->u.lstm.layers * h;
}

static double lstm_fwd_bytes(const ridge_op *op, double es)
{
    double bt = op->u.lstm.batch * op->u.lstm.seq, h = op->u.lstm.hidden;
    double weights = 4 * h * lstm_in_sum(op);
    double acts = bt * (op->u.lstm.input + (2 * op->u.lstm.layers - 1) * h);
    return (weights + acts) * es;
}


double ridge_op_flops(const ridge_op *op)
{
    return rk_op_flops(op);
}

double rk_op_flops(const ridge_op *op)
{
    switch (op->kind) {
    case RIDGE_OP_GEMM: return 2 * op->u.gemm.m * op->u.gemm.n * op->u.gemm.k * op->u.gemm.batch;
    case RIDGE_OP_CONV2D: return rk_conv_flops(op, conv_p(op), conv_q(op));
    case RIDGE_OP_ATTENTION: return rk_attn_flops(op, rk_attn_pairs(op));
    case RIDGE_OP_LSTM: {
        double fwd = lstm_fwd_flops(op);
        return op->u.lstm.pass == RIDGE_PASS_FWD_BWD ? 3 * fwd : fwd;
    }
    default: {
        /* the memory-bound kinds (0 for an unknown kind) */
        double flops, bytes;
        rk_mb_work(op, &flops, &bytes);
        return flops;
    }
    }
}

/* Inline in rk_op_min_bytes, below: once per prediction (ridge_kernel_predict). */
static inline double kind_min_bytes(const ridge_op *op)
{
    double es = rk_dtype_bytes(op->dtype);
    switch (op->kind) {
    case RIDGE_OP_GEMM: return rk_gemm_kind_bytes(op);
    case RIDGE_OP_CONV2D: return rk_conv_bytes(op, conv_p(op), conv_q(op));
    case RIDGE_OP_ATTENTION: return rk_attn_kind_bytes(op);
    case RIDGE_OP_LSTM: {
        double fwd = lstm_fwd_bytes(op, es);
        return op->u.lstm.pass == RIDGE_PASS_FWD_BWD ? 3 * fwd : fwd;
    }
    default: {
        /* the memory-bound kinds (0 for an unknown kind) */
        double flops, bytes;
        rk_mb_work(op, &flops, &bytes);
        return bytes;
    }
    }
}

double rk_op_min_bytes(const ridge_op *op)
{
    return kind_min_bytes(op) + op->epilogue_bytes;
}

double ridge_op_min_bytes(const ridge_op *op)
{
    return rk_op_min_bytes(op);
}

/* ----------------------------------------------------------------- check */

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int bad(ridge_err *err, const char *where, const char *key, const char *fmt, ...)
{
    char what[RIDGE_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return ridge_err_set(err, RIDGE_EINVAL, "%s.%s: %s", where, key, what);
}

/* An integer in [lo, dim_max]. */
static int check_int(double x, double lo, const char *where, const char *key, ridge_err *err)
{
    if (!isfinite(x))
        return bad(err, where, key, "not a finite number");
    if (x != floor(x))
        return bad(err, where, key, "%.15g is not an integer", x);
    if (x < lo || x > dim_max)
        return bad(err, where, key, "%.15g is out of range [%g, %g]", x, lo, dim_max);
    return RIDGE_OK;
}

/* A number in [lo, hi]. */
static int check_num(double x, double lo, double hi, const char *where, const char *key, ridge_err *err)
{
    if (!isfinite(x))
        return bad(err, where, key, "not a finite number");
    if (x < lo || x > hi)
        return bad(err, where, key, "%.15g is out of range [%g, %g]", x, lo, hi);
    return RIDGE_OK;
}

#define TRY(expr)              \
    do {                       \
        int rc_ = (expr);      \
        if (rc_ != RIDGE_OK)   \
            return rc_;        \
    } while (0)
#define DIM(field, key) TRY(check_int((field), 1, where, (key), err))

static int check_pass(ridge_pass p, const ridge_pass *valid, int n, const char *kind, const char *where,
                      ridge_err *err)
{
    char list[64] = "";
    for (int i = 0; i < n; i++) {
        if (p == valid[i])
            return RIDGE_OK;
        if (list[0])
            strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, ridge_pass_name(valid[i]), sizeof list - strlen(list) - 1);
    }
    return bad(err, where, "pass", "'%s' is not a pass of %s (%s)", ridge_pass_name(p), kind, list);
}

static int check_conv(const ridge_op *op, const char *where, ridge_err *err)
{
    static const ridge_pass passes[] = {RIDGE_PASS_FWD, RIDGE_PASS_BWD_DATA, RIDGE_PASS_BWD_FILTER};
    DIM(op->u.conv.n, "n");
    DIM(op->u.conv.c, "c");
    DIM(op->u.conv.h, "h");
    DIM(op->u.conv.w, "w");
    DIM(op->u.conv.k, "k");
    DIM(op->u.conv.r, "r");
    DIM(op->u.conv.s, "s");
    DIM(op->u.conv.stride, "stride");
    TRY(check_int(op->u.conv.pad, 0, where, "pad", err));
    DIM(op->u.conv.groups, "groups");
    if (fmod(op->u.conv.c, op->u.conv.groups) != 0)
        return bad(err, where, "groups", "%.15g does not divide c (%.15g)", op->u.conv.groups, op->u.conv.c);
    if (fmod(op->u.conv.k, op->u.conv.groups) != 0)
        return bad(err, where, "groups", "%.15g does not divide k (%.15g)", op->u.conv.groups, op->u.conv.k);
    if (op->u.conv.r > op->u.conv.h + 2 * op->u.conv.pad)
        return bad(err, where, "r", "filter height %.15g exceeds the padded input height h + 2 pad = %.15g",
                   op->u.conv.r, op->u.conv.h + 2 * op->u.conv.pad);
    if (op->u.conv.s > op->u.conv.w + 2 * op->u.conv.pad)
        return bad(err, where, "s", "filter width %.15g exceeds the padded input width w + 2 pad = %.15g",
                   op->u.conv.s, op->u.conv.w + 2 * op->u.conv.pad);
    return check_pass(op->u.conv.pass, passes, 3, "conv2d", where, err);
}

static int check_attn(const ridge_op *op, const char *where, ridge_err *err)
{
    static const ridge_pass passes[] = {RIDGE_PASS_FWD, RIDGE_PASS_FWD_BWD};
    DIM(op->u.attn.batch, "batch");
    DIM(op->u.attn.heads, "heads");
    DIM(op->u.attn.kv_heads, "kv_heads");
    DIM(op->u.attn.q_len, "q_len");
    DIM(op->u.attn.kv_len, "kv_len");
    DIM(op->u.attn.head_dim, "head_dim");
    if (op->u.attn.kv_heads > op->u.attn.heads)
        return bad(err, where, "kv_heads", "%.15g exceeds heads (%.15g)", op->u.attn.kv_heads, op->u.attn.heads);
    if (fmod(op->u.attn.heads, op->u.attn.kv_heads) != 0)
        return bad(err, where, "kv_heads", "%.15g does not divide heads (%.15g)", op->u.attn.kv_heads,
                   op->u.attn.heads);
    if (op->u.attn.causal != 0 && op->u.attn.causal != 1)
        return bad(err, where, "causal", "%d is not 0 or 1", op->u.attn.causal);
    return check_pass(op->u.attn.pass, passes, 2, "attention", where, err);
}

static int check_kind(const ridge_op *op, const char *where, ridge_err *err)
{
    static const ridge_pass lstm_passes[] = {RIDGE_PASS_FWD, RIDGE_PASS_FWD_BWD};
    switch (op->kind) {
    case RIDGE_OP_GEMM:
        DIM(op->u.gemm.m, "m");
        DIM(op->u.gemm.n, "n");
        DIM(op->u.gemm.k, "k");
        DIM(op->u.gemm.batch, "batch");
        if ((unsigned)op->u.gemm.layout >= RIDGE_LAYOUT_COUNT)
            return bad(err, where, "layout", "%d is not a layout", (int)op->u.gemm.layout);
        return RIDGE_OK;
    case RIDGE_OP_CONV2D: return check_conv(op, where, err);
    case RIDGE_OP_ATTENTION: return check_attn(op, where, err);
    case RIDGE_OP_ELEMENTWISE:
        DIM(op->u.ew.elements, "elements");
        TRY(check_int(op->u.ew.inputs, 0, where, "inputs", err));
        TRY(check_int(op->u.ew.outputs, 0, where, "outputs", err));
        /* No tensor at all is an empty kernel (launch cost only), so no arithmetic either. */
        if (op->u.ew.inputs + op->u.ew.outputs < 1 && op->u.ew.flops_per_element != 0)
            return bad(err, where, "outputs",
                       "inputs + outputs is 0 with arithmetic: an empty kernel has flops_per_element 0");
        TRY(check_int(op->u.ew.strided_inputs, 0, where, "strided_inputs", err));
        if (op->u.ew.strided_inputs > op->u.ew.inputs)
            return bad(err, where, "strided_inputs", "%.17g is more than the %.17g inputs", op->u.ew.strided_inputs,
                       op->u.ew.inputs);
        if (op->u.ew.rows != 0) {
            DIM(op->u.ew.rows, "rows");
            if (op->u.ew.rows > op->u.ew.elements)
                return bad(err, where, "rows", "%.17g rows of %.17g elements", op->u.ew.rows, op->u.ew.elements);
        }
        if (op->u.ew.channels != 0) {
            DIM(op->u.ew.channels, "channels");
            if (op->u.ew.channels > op->u.ew.elements)
                return bad(err, where, "channels", "%.17g channels of %.17g elements", op->u.ew.channels,
                           op->u.ew.elements);
        }
        if ((unsigned)op->u.ew.fn >= RIDGE_EW_FN_COUNT)
            return bad(err, where, "function", "%d is not a function", (int)op->u.ew.fn);
        return check_num(op->u.ew.flops_per_element, 0, dim_max, where, "flops_per_element", err);
    case RIDGE_OP_SOFTMAX:
    case RIDGE_OP_LAYERNORM:
    case RIDGE_OP_RMSNORM:
    case RIDGE_OP_REDUCE:
        DIM(op->u.rows.rows, "rows");
        DIM(op->u.rows.cols, "cols");
        if ((unsigned)op->u.rows.kernel >= RIDGE_ROW_KERNEL_COUNT)
            return bad(err, where, "row_kernel", "%d is not a row kernel", (int)op->u.rows.kernel);
        if (op->kind != RIDGE_OP_REDUCE && op->u.rows.kernel == RIDGE_ROW_COLUMN)
            return bad(err, where, "row_kernel", "column applies to reduce only");
        if (op->u.rows.inputs != 0) {
            if (op->kind != RIDGE_OP_REDUCE)
                return bad(err, where, "inputs", "applies to reduce only");
            TRY(check_int(op->u.rows.inputs, 1, where, "inputs", err));
        }
        return RIDGE_OK;
    case RIDGE_OP_EMBEDDING:
        DIM(op->u.emb.tokens, "tokens");
        DIM(op->u.emb.dim, "dim");
        DIM(op->u.emb.vocab, "vocab");
        return RIDGE_OK;
    case RIDGE_OP_LSTM:
        DIM(op->u.lstm.batch, "batch");
        DIM(op->u.lstm.seq, "seq");
        DIM(op->u.lstm.input, "input");
        DIM(op->u.lstm.hidden, "hidden");
        DIM(op->u.lstm.layers, "layers");
        return check_pass(op->u.lstm.pass, lstm_passes, 2, "lstm", where, err);
    case RIDGE_OP_COPY:
        DIM(op->u.copy.bytes, "bytes");
        if ((unsigned)op->u.copy.kind >= (unsigned)ridge_copy_kind_names.count) {
            char list[64];
            return bad(err, where, "kind", "%d is not a copy kind (%s)", (int)op->u.copy.kind,
                       ridge_name_list(&ridge_copy_kind_names, list, sizeof list));
        }
        return RIDGE_OK;
    case RIDGE_OP_CUSTOM:
        TRY(check_num(op->u.custom.flops, 0, amount_max, where, "flops", err));
        TRY(check_num(op->u.custom.bytes, 0, amount_max, where, "bytes", err));
        if (op->u.custom.flops + op->u.custom.bytes <= 0)
            return bad(err, where, "flops", "flops and bytes are both 0: a custom op must do some work");
        if (op->u.custom.unit != RIDGE_UNIT_VECTOR && op->u.custom.unit != RIDGE_UNIT_TENSOR)
            return bad(err, where, "unit", "%d is not a unit (tensor, vector)", (int)op->u.custom.unit);
        return RIDGE_OK;
    default: return bad(err, where, "op", "%d is not an operator kind", (int)op->kind);
    }
}

int ridge_op_check(const ridge_op *op, const char *where, ridge_err *err)
{
    if (!where)
        where = "op";
    if (!op)
        return ridge_err_set(err, RIDGE_EINVAL, "%s: no operator", where);
    if ((unsigned)op->kind >= RIDGE_OP_KIND_COUNT)
        return bad(err, where, "op", "%d is not an operator kind", (int)op->kind);
    if ((unsigned)op->dtype >= RIDGE_DTYPE_COUNT)
        return bad(err, where, "dtype", "%d is not a dtype", (int)op->dtype);
    if (!memchr(op->name, '\0', sizeof op->name))
        return bad(err, where, "name", "not terminated within %d characters", RIDGE_OP_NAME_MAX);
    TRY(check_int(op->count, 1, where, "count", err));
    TRY(check_num(op->cold_bytes, 0, 1e18, where, "cold_bytes", err));
    TRY(check_num(op->reuse_bytes, 0, 1e18, where, "reuse_bytes", err));
    if (op->cold_bytes > 0 && op->reuse_bytes <= 0)
        return bad(err, where, "cold_bytes", "needs reuse_bytes (the bytes touched between two uses)");
    TRY(check_num(op->epilogue_bytes, 0, 1e18, where, "epilogue_bytes", err));
    if (op->epilogue_bytes > 0 && op->kind != RIDGE_OP_GEMM && op->kind != RIDGE_OP_CONV2D)
        return bad(err, where, "epilogue_bytes", "only a gemm or conv2d has a fused epilogue");
    return check_kind(op, where, err);
}

/* ---------------------------------------------------------- constructors */

/* A zeroed op of a kind and dtype, run once: what every constructor starts from. */
ridge_op ridge_op_blank(ridge_op_kind kind, ridge_dtype dt)
{
    ridge_op op;
    memset(&op, 0, sizeof op);
    op.kind = kind;
    op.dtype = dt;
    op.count = 1;
    return op;
}

ridge_op ridge_op_gemm(ridge_dtype dt, double m, double n, double k, double batch)
{
    ridge_op op = ridge_op_blank(RIDGE_OP_GEMM, dt);
    op.u.gemm.m = m;
    op.u.gemm.n = n;
    op.u.gemm.k = k;
    op.u.gemm.batch = batch;
    return op;
}

ridge_op ridge_op_elementwise(ridge_dtype dt, double elements, double inputs, double outputs,
                              double flops_per_element)
{
    ridge_op op = ridge_op_blank(RIDGE_OP_ELEMENTWISE, dt);
    op.u.ew.elements = elements;
    op.u.ew.inputs = inputs;
    op.u.ew.outputs = outputs;
    op.u.ew.flops_per_element = flops_per_element;
    return op;
}

ridge_op ridge_op_copy(double bytes, ridge_copy_kind kind)
{
    ridge_op op = ridge_op_blank(RIDGE_OP_COPY, RIDGE_DTYPE_FP32); /* a copy moves bytes; its dtype only names it */
    op.u.copy.bytes = bytes;
    op.u.copy.kind = kind;
    return op;
}
