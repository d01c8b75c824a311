/* ridge — operators: the unit of work the kernel model predicts (docs/workloads.md).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A ridge_op is a plain value. Dimensions are doubles (exact for integers below 2^53) so that
 * products never overflow; the loaders check they are positive integers. */
#ifndef RIDGE_OP_H
#define RIDGE_OP_H

#include <stddef.h>

#include "ridge/error.h"
#include "ridge/names.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    RIDGE_DTYPE_FP64 = 0,
    RIDGE_DTYPE_FP32,
    RIDGE_DTYPE_TF32,
    RIDGE_DTYPE_FP16,
    RIDGE_DTYPE_BF16,
    RIDGE_DTYPE_FP8,
    RIDGE_DTYPE_INT8,
    RIDGE_DTYPE_INT4,
    RIDGE_DTYPE_COUNT
} ridge_dtype;

typedef enum {
    RIDGE_OP_GEMM = 0,
    RIDGE_OP_CONV2D,
    RIDGE_OP_ATTENTION,
    RIDGE_OP_ELEMENTWISE,
    RIDGE_OP_SOFTMAX,
    RIDGE_OP_LAYERNORM,
    RIDGE_OP_RMSNORM,
    RIDGE_OP_REDUCE,
    RIDGE_OP_EMBEDDING,
    RIDGE_OP_LSTM,
    RIDGE_OP_COPY,
    RIDGE_OP_CUSTOM,
    RIDGE_OP_KIND_COUNT
} ridge_op_kind;

typedef enum {
    RIDGE_PASS_FWD = 0,
    RIDGE_PASS_BWD_DATA,   /* conv2d */
    RIDGE_PASS_BWD_FILTER, /* conv2d */
    RIDGE_PASS_FWD_BWD,    /* attention, lstm: forward and backward together */
    RIDGE_PASS_COUNT
} ridge_pass;

typedef enum { RIDGE_COPY_D2D = 0, RIDGE_COPY_H2D, RIDGE_COPY_D2H } ridge_copy_kind;
typedef enum { RIDGE_UNIT_VECTOR = 0, RIDGE_UNIT_TENSOR } ridge_unit;

/* How a GEMM's operands are stored, as two letters for A and B: `n`, as written (A[m,k] and
 * B[k,n] row-major), or `t`, stored transposed (A as [k,m], B as [n,k], the nn.Linear weight).
 * It sets every operand's leading dimension, which decides the alignment (docs/model.md §2). */
typedef enum { RIDGE_LAYOUT_NN = 0, RIDGE_LAYOUT_NT, RIDGE_LAYOUT_TN, RIDGE_LAYOUT_TT, RIDGE_LAYOUT_COUNT } ridge_layout;

/* How a row-wise op's kernel maps rows to the GPU (docs/model.md §6, "One CTA per row"):
 * RIDGE_ROW_AUTO, PyTorch's rule (rows of at most 1,024 elements and 4 KB to one warp each, longer
 * rows to one CTA each, a one-row reduce to the whole grid); RIDGE_ROW_CTA, one CTA per row at any
 * length (vLLM's quantisation kernels); RIDGE_ROW_WARP, one warp per row at any length (fused
 * kernels that keep a row in registers: Megatron's scale-mask softmax); RIDGE_ROW_COLUMN (reduce
 * only), rows are the channels of a channels_last tensor whose threads each walk one channel's
 * column (PyTorch's channels_last batch-norm reductions, docs/model.md §6). */
typedef enum { RIDGE_ROW_AUTO = 0, RIDGE_ROW_CTA, RIDGE_ROW_WARP, RIDGE_ROW_COLUMN, RIDGE_ROW_KERNEL_COUNT } ridge_row_kernel;

/* The function an elementwise op applies, for its instruction cost (docs/model.md §6).
 * RIDGE_EW_PLAIN: flops_per_element as given. */
typedef enum {
    RIDGE_EW_PLAIN = 0,
    RIDGE_EW_GELU_ERF,
    RIDGE_EW_GELU_TANH,
    RIDGE_EW_SILU,
    RIDGE_EW_EXP,
    RIDGE_EW_FN_COUNT
} ridge_ew_fn;

#define RIDGE_OP_NAME_MAX 64
#define RIDGE_OP_GROUP_MAX 24

typedef struct {
    ridge_op_kind kind;
    ridge_dtype dtype;
    char name[RIDGE_OP_NAME_MAX]; /* "" when not given */
    char group[RIDGE_OP_GROUP_MAX]; /* layer type for breakdowns ("attention", "mlp", "conv",
                                       "optimizer"...); "" when not given */
    double count;                 /* repeat factor, >= 1 */
    /* Cold bytes (docs/model.md, "Cache levels"): the part of the op's compulsory traffic last
     * touched a whole step earlier (model weights, weight gradients, a decode step's KV cache),
     * and the bytes the step touches between two uses of it (its LRU reuse distance). They hit
     * L2 only when that distance fits. Both 0: every operand was touched just before (a benchmark
     * loop repeating the op), the rule for op-list files that do not give them. */
    double cold_bytes, reuse_bytes;
    /* gemm, conv2d: bytes the fused epilogue reads besides the op's own tensors (a residual added
     * to the output, as an inference engine fuses it); part of the compulsory bytes. 0: none. */
    double epilogue_bytes;
    /* Host side (docs/model.md §7, "Host profiles"): the dispatch class of the op (a
     * ridge_host_class; 0 = derived from its kind and name), the nn.Module calls whose Python runs
     * before it (per instance), and host_sync = 1 when the host waits for the GPU after it (a
     * .item() read, GradScaler's inf check). All 0 in op-list files. */
    int host_class;
    double modules;
    int host_sync;
    union {
        struct { double m, n, k, batch; ridge_layout layout; int no_split_k, tiles_by_m; } gemm; /* C[m,n] = A[m,k] B[k,n], batch >= 1; no_split_k: the library never splits K; tiles_by_m: its tile is dispatched on m (docs/model.md §2) */
        struct { double n, c, h, w, k, r, s, stride, pad, groups; ridge_pass pass; int nhwc; } conv; /* nhwc: channels_last tensors */
        /* per_head_kv: a decode kernel with one CTA per query head, each reading its KV head (no
         * packing of the heads that share one; TensorRT-LLM's masked MHA before XQA) */
        struct { double batch, heads, kv_heads, q_len, kv_len, head_dim; int causal; ridge_pass pass; int per_head_kv; } attn;
        struct {
            double elements, inputs, outputs, flops_per_element;
            double strided_inputs; /* inputs read through a non-contiguous view (0..inputs) */
            double rows;           /* > 0: one CTA per row of elements / rows (0: a flat grid) */
            double channels;       /* > 0: PyTorch's channels_last batch-norm kernel over this many
                                    * channels (docs/model.md §6, "Channels-last batch norm") */
            double aux_kernels;    /* tiny kernels the op launches besides its own, a kernel floor
                                    * and a launch each (the eval batch norm's running-mean copy
                                    * and invstd; docs/model.md §6). 0 in op-list files */
            ridge_ew_fn fn;
        } ew;
        struct { double rows, cols; ridge_row_kernel kernel; double inputs, aux_kernels; } rows; /* softmax, layernorm, rmsnorm, reduce; kernel: ridge_row_kernel; inputs: reduce only, tensors of rows x cols reduced together (0 = 1); aux_kernels: as ew's (the training batch norm's running-statistics update after its statistics) */
        struct { double tokens, dim, vocab; } emb;
        struct { double batch, seq, input, hidden, layers; ridge_pass pass; } lstm;
        struct { double bytes; ridge_copy_kind kind; } copy;
        struct { double flops, bytes; ridge_unit unit; } custom;
    } u;
} ridge_op;

/* Names as in the JSON format ("gemm", "bf16", "bwd_data", "d2d"), each enumeration's from one
 * table (ridge/names.h) in the order messages list them. */
extern const ridge_names ridge_op_kind_names, ridge_dtype_names, ridge_pass_names, ridge_copy_kind_names,
    ridge_layout_names, ridge_ew_fn_names, ridge_row_kernel_names;
const char *ridge_op_kind_name(ridge_op_kind k);
const char *ridge_dtype_name(ridge_dtype d);
const char *ridge_pass_name(ridge_pass p);
const char *ridge_copy_kind_name(ridge_copy_kind k);
const char *ridge_layout_name(ridge_layout l);
const char *ridge_ew_fn_name(ridge_ew_fn f);
const char *ridge_row_kernel_name(ridge_row_kernel k); /* the table ends with "column", reduce only */
/* Reverse look-ups (ridge_name_parse's convention): RIDGE_OK and *out set, or RIDGE_EINVAL when
 * s is unknown or NULL. */
int ridge_op_kind_parse(const char *s, ridge_op_kind *out);
int ridge_dtype_parse(const char *s, ridge_dtype *out);
int ridge_pass_parse(const char *s, ridge_pass *out);
int ridge_copy_kind_parse(const char *s, ridge_copy_kind *out);
int ridge_layout_parse(const char *s, ridge_layout *out);
int ridge_ew_fn_parse(const char *s, ridge_ew_fn *out);
int ridge_row_kernel_parse(const char *s, ridge_row_kernel *out);

/* What issues an op, for its dispatch cost (ridge_op.host_class; RIDGE_HOST_AUTO derives it,
 * ridge_host_class_of). An attribute of the op, here so that workload builders can set it; the
 * host profiles that price each class are ridge/host.h's. */
typedef enum {
    RIDGE_HOST_AUTO = 0,
    RIDGE_HOST_ATEN,         /* a tensor op called from Python (elementwise, reductions, copies) */
    RIDGE_HOST_LIBRARY,      /* a cuBLAS / cuDNN call from Python (linear, matmul, conv, LSTM) */
    RIDGE_HOST_ATTENTION,    /* F.scaled_dot_product_attention: backend choice, checks, outputs */
    RIDGE_HOST_AUTOGRAD,     /* a backward node run by the C++ autograd engine (no Python) */
    RIDGE_HOST_MULTI_TENSOR, /* one launch of a multi-tensor apply (foreach / fused optimizers) */
    RIDGE_HOST_CLASS_COUNT
} ridge_host_class;

extern const ridge_names ridge_host_class_names; /* "auto", "aten", ... "multi_tensor" */
const char *ridge_host_class_name(ridge_host_class c);
/* The class of an op: its host_class when set, else: group "optimizer" -> multi_tensor; a name
 * ending in .bwd, .dgrad, .wgrad or .gcast (the backward ops of docs/workloads.md) -> autograd;
 * GEMM, convolution, LSTM -> library; attention -> attention; the rest -> aten. */
ridge_host_class ridge_host_class_of(const ridge_op *op);

/* Bytes per element in memory (TF32 is stored as FP32; INT4 is 0.5). */
double ridge_dtype_bytes(ridge_dtype d);

/* Useful work of one instance (count not applied): FLOPs (integer ops for int types) and the
 * minimum DRAM bytes (each input read once, each output written once). docs/model.md. */
double ridge_op_flops(const ridge_op *op);
double ridge_op_min_bytes(const ridge_op *op);
/* Bytes of one element of a GEMM's output C: 4 for fp32, tf32, int8, int4 (FP32 / int32
 * accumulators written out), 2 for fp8 (bf16 output), the element size otherwise. */
double ridge_gemm_out_bytes(ridge_dtype d);

/* Check an op's fields (positive sizes, valid combinations). Errors name `where` (for
 * example "model.json: $.ops[3]"). */
int ridge_op_check(const ridge_op *op, const char *where, ridge_err *err);

/* Convenience constructors (count 1, no name). ridge_op_blank: a zeroed op of a kind and dtype,
 * run once, what every other constructor starts from; the caller fills in its shape. */
ridge_op ridge_op_blank(ridge_op_kind kind, ridge_dtype dt);
ridge_op ridge_op_gemm(ridge_dtype dt, double m, double n, double k, double batch);
ridge_op ridge_op_elementwise(ridge_dtype dt, double elements, double inputs, double outputs, double flops_per_element);
ridge_op ridge_op_copy(double bytes, ridge_copy_kind kind);

#ifdef __cplusplus
}
#endif
#endif
