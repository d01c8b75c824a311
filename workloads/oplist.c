/* Operator-list workloads: {"schema_version":1,"name":...,"ops":[...]} (docs/workloads.md).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The loader reads types and enumerations; ridge_op_check owns the ranges (positive integer
 * sizes, valid combinations), so a file and an op built in C are held to the same rules. Its
 * messages name the same JSON path ("ORIGIN: $.ops[i].key: problem"). */
#include "ridge/workload.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_util.h"
#include "ridge/file.h"

static const char *const top_keys[] = {"schema_version", "name", "description", "source", "ops", NULL};

/* Keys every op may carry come first in each list. */
#define COMMON_KEYS "op", "dtype", "name", "group", "count", "cold_bytes", "reuse_bytes", "epilogue_bytes"
static const char *const gemm_keys[] = {COMMON_KEYS, "m", "n", "k", "batch", "layout", "no_split_k", "tiles_by_m", NULL};
static const char *const conv_keys[] = {COMMON_KEYS, "n", "c", "h", "w", "k", "r", "s", "stride", "pad", "groups",
                                        "pass", "memory_format", NULL};
static const char *const attn_keys[] = {COMMON_KEYS, "batch",  "heads",  "kv_heads", "q_len",
                                        "kv_len",    "head_dim", "causal", "pass",   NULL};
static const char *const ew_keys[] = {COMMON_KEYS, "elements", "inputs", "outputs", "flops_per_element",
                                      "strided_inputs", "function", "rows", "channels", NULL};
static const char *const rows_keys[] = {COMMON_KEYS, "rows", "cols", "row_kernel", NULL};
static const char *const reduce_keys[] = {COMMON_KEYS, "rows", "cols", "row_kernel", "inputs", NULL};
static const char *const emb_keys[] = {COMMON_KEYS, "tokens", "dim", "vocab", NULL};
static const char *const lstm_keys[] = {COMMON_KEYS, "batch", "seq", "input", "hidden", "layers", "pass", NULL};
static const char *const copy_keys[] = {COMMON_KEYS, "bytes", "kind", NULL};
static const char *const custom_keys[] = {COMMON_KEYS, "flops", "bytes", "unit", NULL};

static const char *const *const kind_keys[RIDGE_OP_KIND_COUNT] = {
    [RIDGE_OP_GEMM] = gemm_keys,      [RIDGE_OP_CONV2D] = conv_keys,   [RIDGE_OP_ATTENTION] = attn_keys,
    [RIDGE_OP_ELEMENTWISE] = ew_keys, [RIDGE_OP_SOFTMAX] = rows_keys,  [RIDGE_OP_LAYERNORM] = rows_keys,
    [RIDGE_OP_RMSNORM] = rows_keys,   [RIDGE_OP_REDUCE] = reduce_keys,   [RIDGE_OP_EMBEDDING] = emb_keys,
    [RIDGE_OP_LSTM] = lstm_keys,      [RIDGE_OP_COPY] = copy_keys,     [RIDGE_OP_CUSTOM] = custom_keys,
};

/* The two values of a conv2d's "memory_format" (ridge_op.u.conv.nhwc) and of a custom op's "unit". */
static const ridge_name memory_format_rows[] = {{"nchw", 0}, {"nhwc", 1}};
static const ridge_names memory_formats = RIDGE_NAMES(memory_format_rows, "?");
static const ridge_name unit_rows[] = {{"tensor", RIDGE_UNIT_TENSOR}, {"vector", RIDGE_UNIT_VECTOR}};
static const ridge_names units = RIDGE_NAMES(unit_rows, "?");

/* Longest enumeration string we read ("elementwise", "bwd_filter"); longer input is an error. */
#define ENUM_MAX 32

/* A finite number: the range is ridge_op_check's business. Leaves *dst alone when absent. */
static int num(const cJSON *o, const char *path, const char *key, int required, double *dst, const rj_ctx *c)
{
    return rj_number(o, path, key, required, -DBL_MAX, DBL_MAX, dst, c);
}

/* Messages echo user strings as they are: ridge_err_set turns control characters into '?'. */
static int get_kind(const cJSON *o, const char *path, ridge_op_kind *out, const rj_ctx *c)
{
    char s[ENUM_MAX], list[256];
    RJ_TRY(rj_string(o, path, "op", 1, s, sizeof s, c));
    if (ridge_op_kind_parse(s, out) == RIDGE_OK)
        return RIDGE_OK;
    return rj_fail(c, RIDGE_EINVAL, path, "op", "unknown kind '%s' (known: %s)", s,
                   ridge_name_list(&ridge_op_kind_names, list, sizeof list));
}

static int get_dtype(const cJSON *o, const char *path, int required, ridge_dtype *out, const rj_ctx *c)
{
    char s[ENUM_MAX], list[128];
    int rc;
    RJ_TRY(rc = rj_string(o, path, "dtype", required, s, sizeof s, c));
    if (rc == 0 || ridge_dtype_parse(s, out) == RIDGE_OK)
        return RIDGE_OK;
    return rj_fail(c, RIDGE_EINVAL, path, "dtype", "unknown dtype '%s' (known: %s)", s,
                   ridge_name_list(&ridge_dtype_names, list, sizeof list));
}

/* The pass, which must be one of `valid` (n of them) for this kind. */
static int get_pass(const cJSON *o, const char *path, const ridge_pass *valid, int n, ridge_pass *out,
                    const rj_ctx *c)
{
    char s[ENUM_MAX], list[64] = "";
    ridge_pass p;
    RJ_TRY(rj_string(o, path, "pass", 1, s, sizeof s, c));
    for (int i = 0; i < n; i++) {
        if (ridge_pass_parse(s, &p) == 0 && p == valid[i]) {
            *out = p;
            return RIDGE_OK;
        }
        if (i)
            strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, ridge_pass_name(valid[i]), sizeof list - strlen(list) - 1);
    }
    return rj_fail(c, RIDGE_EINVAL, path, "pass", "'%s' is not one of: %s", s, list);
}

static int parse_fields(const cJSON *o, const char *path, ridge_op *op, const rj_ctx *c)
{
    static const ridge_pass conv_passes[] = {RIDGE_PASS_FWD, RIDGE_PASS_BWD_DATA, RIDGE_PASS_BWD_FILTER};
    static const ridge_pass fb_passes[] = {RIDGE_PASS_FWD, RIDGE_PASS_FWD_BWD};
    /* Row-wise kernels: the table's prefix without "column", which only reduce takes. */
    const ridge_names row_kernels = {ridge_row_kernel_names.rows,
                                     op->kind == RIDGE_OP_REDUCE ? ridge_row_kernel_names.count : RIDGE_ROW_COLUMN,
                                     ridge_row_kernel_names.unknown};
    int rc, v = 0;
    switch (op->kind) {
    case RIDGE_OP_GEMM:
        RJ_TRY(num(o, path, "m", 1, &op->u.gemm.m, c));
        RJ_TRY(num(o, path, "n", 1, &op->u.gemm.n, c));
        RJ_TRY(num(o, path, "k", 1, &op->u.gemm.k, c));
        op->u.gemm.batch = 1;
        RJ_TRY(num(o, path, "batch", 0, &op->u.gemm.batch, c));
        RJ_TRY(rc = rj_enum(o, path, "layout", 0, &ridge_layout_names, &v, c));
        if (rc == 1)
            op->u.gemm.layout = (ridge_layout)v;
        RJ_TRY(rj_bool(o, path, "no_split_k", 0, &op->u.gemm.no_split_k, c));
        return rj_bool(o, path, "tiles_by_m", 0, &op->u.gemm.tiles_by_m, c);
    case RIDGE_OP_CONV2D:
        RJ_TRY(num(o, path, "n", 1, &op->u.conv.n, c));
        RJ_TRY(num(o, path, "c", 1, &op->u.conv.c, c));
        RJ_TRY(num(o, path, "h", 1, &op->u.conv.h, c));
        RJ_TRY(num(o, path, "w", 1, &op->u.conv.w, c));
        RJ_TRY(num(o, path, "k", 1, &op->u.conv.k, c));
        RJ_TRY(num(o, path, "r", 1, &op->u.conv.r, c));
        RJ_TRY(num(o, path, "s", 1, &op->u.conv.s, c));
        RJ_TRY(num(o, path, "stride", 1, &op->u.conv.stride, c));
        RJ_TRY(num(o, path, "pad", 1, &op->u.conv.pad, c));
        op->u.conv.groups = 1;
        RJ_TRY(num(o, path, "groups", 0, &op->u.conv.groups, c));
        RJ_TRY(rj_enum(o, path, "memory_format", 0, &memory_formats, &op->u.conv.nhwc, c));
        return get_pass(o, path, conv_passes, 3, &op->u.conv.pass, c);
    case RIDGE_OP_ATTENTION:
        RJ_TRY(num(o, path, "batch", 1, &op->u.attn.batch, c));
        RJ_TRY(num(o, path, "heads", 1, &op->u.attn.heads, c));
        op->u.attn.kv_heads = op->u.attn.heads;
        RJ_TRY(num(o, path, "kv_heads", 0, &op->u.attn.kv_heads, c));
        RJ_TRY(num(o, path, "q_len", 1, &op->u.attn.q_len, c));
        RJ_TRY(num(o, path, "kv_len", 1, &op->u.attn.kv_len, c));
        RJ_TRY(num(o, path, "head_dim", 1, &op->u.attn.head_dim, c));
        RJ_TRY(rj_bool(o, path, "causal", 1, &op->u.attn.causal, c));
        return get_pass(o, path, fb_passes, 2, &op->u.attn.pass, c);
    case RIDGE_OP_ELEMENTWISE:
        RJ_TRY(num(o, path, "elements", 1, &op->u.ew.elements, c));
        RJ_TRY(num(o, path, "inputs", 1, &op->u.ew.inputs, c));
        RJ_TRY(num(o, path, "outputs", 1, &op->u.ew.outputs, c));
        RJ_TRY(num(o, path, "flops_per_element", 1, &op->u.ew.flops_per_element, c));
        RJ_TRY(num(o, path, "strided_inputs", 0, &op->u.ew.strided_inputs, c));
        /* optional, but when given at least 1 (0 is what "absent" is stored as); the op check
         * (ridge_op_check) holds them to whole numbers up to its 1e15 */
        RJ_TRY(rj_number(o, path, "rows", 0, 1, 1e15, &op->u.ew.rows, c));
        RJ_TRY(rj_number(o, path, "channels", 0, 1, 1e15, &op->u.ew.channels, c));
        RJ_TRY(rc = rj_enum(o, path, "function", 0, &ridge_ew_fn_names, &v, c));
        if (rc == 1)
            op->u.ew.fn = (ridge_ew_fn)v;
        return RIDGE_OK;
    case RIDGE_OP_SOFTMAX:
    case RIDGE_OP_LAYERNORM:
    case RIDGE_OP_RMSNORM:
    case RIDGE_OP_REDUCE:
        RJ_TRY(num(o, path, "rows", 1, &op->u.rows.rows, c));
        RJ_TRY(num(o, path, "cols", 1, &op->u.rows.cols, c));
        if (op->kind == RIDGE_OP_REDUCE)
            RJ_TRY(rj_number(o, path, "inputs", 0, 1, 1e15, &op->u.rows.inputs, c));
        RJ_TRY(rc = rj_enum(o, path, "row_kernel", 0, &row_kernels, &v, c));
        if (rc == 1)
            op->u.rows.kernel = (ridge_row_kernel)v;
        return RIDGE_OK;
    case RIDGE_OP_EMBEDDING:
        RJ_TRY(num(o, path, "tokens", 1, &op->u.emb.tokens, c));
        RJ_TRY(num(o, path, "dim", 1, &op->u.emb.dim, c));
        RJ_TRY(num(o, path, "vocab", 1, &op->u.emb.vocab, c));
        return RIDGE_OK;
    case RIDGE_OP_LSTM:
        RJ_TRY(num(o, path, "batch", 1, &op->u.lstm.batch, c));
        RJ_TRY(num(o, path, "seq", 1, &op->u.lstm.seq, c));
        RJ_TRY(num(o, path, "input", 1, &op->u.lstm.input, c));
        RJ_TRY(num(o, path, "hidden", 1, &op->u.lstm.hidden, c));
        RJ_TRY(num(o, path, "layers", 1, &op->u.lstm.layers, c));
        return get_pass(o, path, fb_passes, 2, &op->u.lstm.pass, c);
    case RIDGE_OP_COPY:
        RJ_TRY(num(o, path, "bytes", 1, &op->u.copy.bytes, c));
        RJ_TRY(rj_enum(o, path, "kind", 1, &ridge_copy_kind_names, &v, c));
        op->u.copy.kind = (ridge_copy_kind)v;
        return RIDGE_OK;
    case RIDGE_OP_CUSTOM:
        RJ_TRY(num(o, path, "flops", 1, &op->u.custom.flops, c));
        RJ_TRY(num(o, path, "bytes", 1, &op->u.custom.bytes, c));
        v = RIDGE_UNIT_VECTOR;
        RJ_TRY(rj_enum(o, path, "unit", 0, &units, &v, c));
        op->u.custom.unit = (ridge_unit)v;
        return RIDGE_OK;
    default: return rj_fail(c, RIDGE_EINVAL, path, "op", "unsupported kind");
    }
}

static int parse_op(const cJSON *o, const char *path, ridge_op *op, const rj_ctx *c)
{
    char where[RJ_PATH_MAX + 256];
    memset(op, 0, sizeof *op);
    if (!cJSON_IsObject(o))
        return rj_fail(c, RIDGE_EINVAL, path, NULL, "expected an object");
    RJ_TRY(get_kind(o, path, &op->kind, c));
    RJ_TRY(rj_check_keys(o, path, kind_keys[op->kind], c));
    /* A copy moves bytes; its dtype only names it, so it may be left out. */
    op->dtype = RIDGE_DTYPE_FP32;
    RJ_TRY(get_dtype(o, path, op->kind != RIDGE_OP_COPY, &op->dtype, c));
    RJ_TRY(rj_string(o, path, "name", 0, op->name, sizeof op->name, c));
    RJ_TRY(rj_string(o, path, "group", 0, op->group, sizeof op->group, c));
    op->count = 1;
    RJ_TRY(num(o, path, "count", 0, &op->count, c));
    RJ_TRY(num(o, path, "cold_bytes", 0, &op->cold_bytes, c));
    RJ_TRY(num(o, path, "reuse_bytes", 0, &op->reuse_bytes, c));
    RJ_TRY(num(o, path, "epilogue_bytes", 0, &op->epilogue_bytes, c));
    RJ_TRY(parse_fields(o, path, op, c));
    snprintf(where, sizeof where, "%s: %s", c->origin, path);
    return ridge_op_check(op, where, c->err);
}

static int parse_root(const cJSON *root, ridge_oplist *w, const rj_ctx *c)
{
    char text[2048];
    const cJSON *arr = NULL, *it;
    long version = 0;
    int n, i = 0;
    RJ_TRY(rj_check_keys(root, "$", top_keys, c));
    RJ_TRY(rj_int(root, "$", "schema_version", 1, 1, 1000, &version, c));
    if (version != 1)
        return rj_fail(c, RIDGE_EINVAL, "$", "schema_version", "%ld is not supported (this ridge reads 1)", version);
    RJ_TRY(rj_string(root, "$", "name", 1, w->name, sizeof w->name, c));
    RJ_TRY(rj_string(root, "$", "description", 0, text, sizeof text, c));
    RJ_TRY(rj_string(root, "$", "source", 0, text, sizeof text, c));
    RJ_TRY(rj_array(root, "$", "ops", 1, &arr, c));
    n = cJSON_GetArraySize(arr);
    if (n <= 0)
        return rj_fail(c, RIDGE_EINVAL, "$", "ops", "empty array: a workload needs at least one op");
    if ((size_t)n > RIDGE_OPLIST_MAX_OPS)
        return rj_fail(c, RIDGE_EINVAL, "$", "ops", "%d ops, more than the limit of %d", n, RIDGE_OPLIST_MAX_OPS);
    w->ops = calloc((size_t)n, sizeof *w->ops);
    if (!w->ops)
        return ridge_err_set(c->err, RIDGE_ENOMEM, "%s: out of memory for %d ops", c->origin, n);
    cJSON_ArrayForEach(it, arr)
    {
        char path[RJ_PATH_MAX];
        snprintf(path, sizeof path, "$.ops[%d]", i);
        RJ_TRY(parse_op(it, path, &w->ops[i], c));
        i++;
    }
    w->n = (size_t)i;
    return RIDGE_OK;
}

int ridge_oplist_parse(const char *json, size_t len, const char *origin, ridge_oplist *out, ridge_err *err)
{
    rj_ctx c = {origin ? origin : "<workload>", err};
    cJSON *root = NULL;
    int rc;
    if (!out)
        return ridge_err_set(err, RIDGE_EINVAL, "%s: no output list", c.origin);
    memset(out, 0, sizeof *out);
    if (!json)
        return ridge_err_set(err, RIDGE_EINVAL, "%s: no data", c.origin);
    rc = rj_parse_object(json, len, &c, &root);
    if (rc != RIDGE_OK)
        return rc;
    rc = parse_root(root, out, &c);
    cJSON_Delete(root);
    if (rc != RIDGE_OK)
        ridge_oplist_free(out);
    return rc;
}

static int parse_loaded(const char *text, size_t len, const char *path, void *out, ridge_err *err)
{
    return ridge_oplist_parse(text, len, path, out, err);
}

int ridge_oplist_load_file(const char *path, ridge_oplist *out, ridge_err *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!path)
        return ridge_err_set(err, RIDGE_EINVAL, "<workload>: no file name");
    return ridge_file_load(path, parse_loaded, out, err);
}

void ridge_oplist_free(ridge_oplist *w)
{
    if (!w)
        return;
    free(w->ops);
    w->ops = NULL;
    w->n = 0;
    w->name[0] = '\0';
}
