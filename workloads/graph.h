/* Private: building operator graphs for model families (workloads/transformer.c, cnn.c, rnn.c).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A rw_graph grows an array of ridge_op. Allocation failures are sticky (`failed`): builders add
 * ops without checking and the caller checks once at the end. The helpers add the kernels a
 * framework launches for one layer, in the forward and (when `train`) backward direction. */
#ifndef RIDGE_WORKLOADS_GRAPH_H
#define RIDGE_WORKLOADS_GRAPH_H

#include <stddef.h>

#include "ridge/workload.h"

typedef struct {
    ridge_op *ops;
    size_t n, cap;
    int failed; /* an allocation failed: the graph is incomplete */
    int amp;    /* autocast over FP32 weights: rw_weight_cast adds a cast before each use, and in
                   training rw_grad_cast one of each weight gradient back to FP32 */
    /* Bytes one step touches (weights, gradients and optimizer state, activations, KV cache):
     * the reuse distance of the ops' cold bytes (rw_cold). 0: no op gets cold bytes. */
    double reuse_bytes;
    /* Micro-batches per optimizer step (>= 1): rw_optimizer adds the gradient accumulation of
     * micro-batches 2..grad_accum; ridge_model_build repeats the other ops. */
    double grad_accum;
    /* Eager code that calls an nn.Module per layer (--code torch, hf): rw_linear marks the first
     * op of each linear layer with one module call (ridge_op.modules). */
    int modules;
    /* The step as eager PyTorch code runs it (--code torch, hf, compile): optimizer.zero_grad()
     * sets the gradients to None (PyTorch 2.x's default, measure.py's set_to_none=True), so no
     * memset; loss.backward() seeds the scalar loss's gradient with one fill kernel; an fp16
     * GradScaler runs torch.amp's full sequence (rw_optimizer). */
    int torch_step;
    /* Megatron-LM's mixed-precision optimizer (--code megatron): rw_optimizer runs its passes
     * around the Adam step. */
    int megatron_step;
} rw_graph;

/* Add n nn.Module calls to the op at index i (the first op of the module), when g->modules. */
void rw_modules_at(rw_graph *g, size_t i, double n);

/* Append one op (zeroed payload) and return it, or NULL after an allocation failure. */
ridge_op *rw_push(rw_graph *g, ridge_op_kind kind, ridge_dtype dt, const char *group, const char *name, double count);
/* Hand the ops to a ridge_oplist (named `name`) and reset g. */
int rw_finish(rw_graph *g, const char *name, ridge_oplist *out, ridge_err *err);
void rw_free(rw_graph *g);

/* The compute dtype GEMMs and convolutions run in for a run precision (fp32 -> fp32, tf32 ->
 * tf32, fp16/bf16 -> same, fp8 -> fp8 GEMMs, int8 -> int8 GEMMs), and the dtype activations are
 * stored in (fp8/int8 runs keep activations in bf16; tf32 stores fp32). */
ridge_dtype rw_math_dtype(ridge_dtype precision);
ridge_dtype rw_act_dtype(ridge_dtype precision);

/* Mark `bytes` of op's traffic as cold: weights (or weight gradients, a KV cache) it reads or
 * writes that the step last touched a whole step earlier (docs/model.md, "Cache levels"). */
void rw_cold(const rw_graph *g, ridge_op *op, double bytes);

/* A `custom` op on the vector units given by its work: flops and bytes of one instance. */
void rw_custom(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double flops, double bytes,
               double count);

/* Autocast (g->amp): the FP32 weight of a layer, `elements` values, cast to dt before its use,
 * `count` times (one kernel, 4 + size(dt) bytes per value); nothing otherwise. */
void rw_weight_cast(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double elements, double count);

/* Autocast training (g->amp): the weight gradient computed in dt, `elements` values, cast back to
 * the FP32 .grad by the backward of the forward's cast (one kernel, size(dt) + 4 bytes per value;
 * the FP32 gradient written is cold); nothing otherwise. */
void rw_grad_cast(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double elements, double count);

/* C[m,n] = A[m,k] B[k,n], `count` times; returns the op (NULL after an allocation failure). */
ridge_op *rw_gemm(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double m, double n, double k,
                  double batch, double count);
/* A linear layer y[tokens,out] = x[tokens,in] W^T: forward GEMM, and in training the two backward
 * GEMMs (dX = dY W: tokens x in x out; dW = dY^T X: out x in x tokens). W (read by the forward
 * and dX GEMMs) and dW (written) are cold, unless autocast has just cast W. */
void rw_linear(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double tokens, double in,
               double out, int train, double count);
/* rw_linear's backward half alone, for a builder that lays the backward pass out apart from the
 * forward: the dX GEMM (unless `dgrad` is 0: the layer's input is the network's), the dW GEMM and,
 * under autocast, dW's cast back to the FP32 gradient. The forward's weight cast is not repeated:
 * autograd keeps the cast weight for the backward. */
void rw_linear_backward(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double tokens, double in,
                        double out, int dgrad, double count);
/* Ops first..n-1 are backward kernels, issued by the autograd engine (host class autograd) though
 * their names do not end in .bwd. */
void rw_autograd_from(rw_graph *g, size_t first);
/* The bias of a linear layer of `out` outputs over `tokens` rows, as PyTorch's addmm runs it: the
 * add rides in the GEMM's epilogue (no kernel); under autocast (g->amp) the FP32 bias is cast to
 * dt before the GEMM (one kernel of `out` values). In training the bias gradient is the sum of
 * the output gradient over the rows (one reduce kernel, sum_to of addmm's backward) and, under
 * autocast, its cast back to the FP32 .grad (one kernel). */
void rw_linear_bias(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double tokens, double out,
                    int train, double count);
/* Autocast's cast of an FP32 activation of `elements` values to dt before an op on the autocast
 * lower-precision list (a linear layer), when the value is FP32 (an FP32 LayerNorm's output or
 * an FP32 residual stream): one kernel reading 4 and writing size(dt) bytes a value; in training
 * its backward (ToCopyBackward) casts the gradient back to FP32. Nothing without g->amp. */
void rw_act_cast(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double elements, int train,
                 double count);
/* Elementwise op; in training also its backward (reads the saved inputs and the gradient,
 * writes input gradients: inputs+1 reads, inputs writes). */
void rw_elementwise(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double elements,
                    double inputs, double outputs, double flops_per_element, int train, double count);
/* That backward alone (named name.bwd), for an op whose forward the caller emits its own way. */
void rw_elementwise_bwd(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double elements,
                        double inputs, double flops_per_element, double count);
/* softmax / layernorm / rmsnorm / reduce on rows x cols; backward (train) reads x (or y) and dy,
 * writes dx: modelled as the same kind with twice the traffic. */
void rw_rows(rw_graph *g, ridge_op_kind kind, const char *group, const char *name, ridge_dtype dt, double rows,
             double cols, int train, double count);
/* Optimizer step over `params` parameters (FP32 master weights when mixed precision; under
 * autocast, g->amp, the FP32 weights themselves, and with fp16 the GradScaler's unscale of the
 * FP32 gradients): SGD with momentum or AdamW, as `impl` (a ridge_optimizer_impl) runs it: fused
 * (one multi-tensor kernel per ~5e7 parameters, one pass), foreach (one multi-tensor pass per
 * arithmetic step) or a loop over the `tensors` tensors (a few kernels each); LAMB as apex's
 * FusedLAMB (four multi-tensor passes; fused only). Also zeroes the gradients (not with
 * g->torch_step: set_to_none), and with g->grad_accum > 1 adds autograd's accumulation of each later micro-batch's
 * gradients into .grad (one in-place add per tensor per micro-batch). */
void rw_optimizer(rw_graph *g, double params, double tensors, ridge_dtype precision, ridge_optimizer opt,
                  int impl);

#endif
