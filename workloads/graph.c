/* Operator-graph building blocks (docs/workloads.md, "Model families").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "graph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copy a label into a field of cap bytes, truncated to cap - 1 as snprintf("%s") would (the field
 * is zeroed). A loop, not snprintf: graphs are rebuilt for every parallel configuration a plan
 * evaluates, and formatting the two labels was a third of that (issue 18's profile). */
static void copy_label(char *dst, size_t cap, const char *src)
{
    size_t n = 0;
    while (n + 1 < cap && src[n])
        n++;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

ridge_op *rw_push(rw_graph *g, ridge_op_kind kind, ridge_dtype dt, const char *group, const char *name, double count)
{
    ridge_op *op;
    if (g->failed)
        return NULL;
    if (g->n == g->cap) {
        size_t ncap = g->cap ? g->cap * 2 : 64;
        ridge_op *nops = realloc(g->ops, ncap * sizeof *nops);
        if (!nops) {
            g->failed = 1;
            return NULL;
        }
        g->ops = nops;
        g->cap = ncap;
    }
    op = &g->ops[g->n++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->dtype = dt;
    op->count = count;
    copy_label(op->group, sizeof op->group, group ? group : "");
    copy_label(op->name, sizeof op->name, name ? name : "");
    return op;
}

int rw_finish(rw_graph *g, const char *name, ridge_oplist *out, ridge_err *err)
{
    memset(out, 0, sizeof *out);
    if (g->failed) {
        rw_free(g);
        return ridge_err_set(err, RIDGE_ENOMEM, "out of memory building the operator graph of %s", name);
    }
    snprintf(out->name, sizeof out->name, "%s", name);
    out->ops = g->ops;
    out->n = g->n;
    g->ops = NULL;
    g->n = g->cap = 0;
    return RIDGE_OK;
}

void rw_free(rw_graph *g)
{
    free(g->ops);
    memset(g, 0, sizeof *g);
}

ridge_dtype rw_math_dtype(ridge_dtype p)
{
    return p;
}

ridge_dtype rw_act_dtype(ridge_dtype p)
{
    switch (p) {
    case RIDGE_DTYPE_TF32: return RIDGE_DTYPE_FP32;
    case RIDGE_DTYPE_FP8:
    case RIDGE_DTYPE_INT8:
    case RIDGE_DTYPE_INT4: return RIDGE_DTYPE_BF16;
    default: return p;
    }
}

void rw_cold(const rw_graph *g, ridge_op *op, double bytes)
{
    if (!op || g->reuse_bytes <= 0 || bytes <= 0)
        return;
    op->cold_bytes = bytes;
    op->reuse_bytes = g->reuse_bytes;
}

ridge_op *rw_gemm(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double m, double n, double k,
                  double batch, double count)
{
    ridge_op *op = rw_push(g, RIDGE_OP_GEMM, dt, group, name, count);
    if (!op)
        return NULL;
    op->u.gemm.m = m;
    op->u.gemm.n = n;
    op->u.gemm.k = k;
    op->u.gemm.batch = batch;
    return op;
}

void rw_custom(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double flops, double bytes,
               double count)
{
    ridge_op *op = rw_push(g, RIDGE_OP_CUSTOM, dt, group, name, count);
    if (!op)
        return;
    op->u.custom.flops = flops;
    op->u.custom.bytes = bytes;
    op->u.custom.unit = RIDGE_UNIT_VECTOR;
}

/* An autocast conversion kernel between the FP32 copy and dt of `elements` values: reads one,
 * writes the other (size(dt) + 4 bytes per value); the FP32 side is cold. */
static void amp_cast(rw_graph *g, const char *group, const char *name, const char *suffix, ridge_dtype dt,
                     double elements, double count)
{
    char nm[RIDGE_OP_NAME_MAX];
    if (!g->amp)
        return;
    snprintf(nm, sizeof nm, "%.50s%s", name, suffix);
    rw_custom(g, group, nm, dt, 0, elements * (4 + ridge_dtype_bytes(dt)), count);
    if (!g->failed)
        rw_cold(g, &g->ops[g->n - 1], elements * 4);
}

void rw_weight_cast(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double elements, double count)
{
    amp_cast(g, group, name, ".wcast", dt, elements, count); /* reads the FP32 weight */
}

void rw_grad_cast(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double elements, double count)
{
    amp_cast(g, group, name, ".gcast", dt, elements, count); /* writes the FP32 gradient */
}

void rw_modules_at(rw_graph *g, size_t i, double n)
{
    if (g->modules && !g->failed && i < g->n)
        g->ops[i].modules += n;
}

void rw_linear(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double tokens, double in,
               double out, int train, double count)
{
    double w = in * out * ridge_dtype_bytes(dt);
    ridge_op *op;
    size_t first = g->n;
    rw_weight_cast(g, group, name, dt, in * out, count);
    op = rw_gemm(g, group, name, dt, tokens, out, in, 1, count);
    if (op) /* y = x W^T with W[out, in] row-major: B stored transposed (cuBLAS TN) */
        op->u.gemm.layout = RIDGE_LAYOUT_NT;
    if (!g->amp)
        rw_cold(g, op, w);
    rw_modules_at(g, first, 1); /* nn.Linear */
    if (train)
        rw_linear_backward(g, group, name, dt, tokens, in, out, 1, count);
}

void rw_linear_backward(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double tokens, double in,
                        double out, int dgrad, double count)
{
    char nm[RIDGE_OP_NAME_MAX];
    double w = in * out * ridge_dtype_bytes(dt), dw;
    ridge_op *op;
    if (dgrad) {
        snprintf(nm, sizeof nm, "%.50s.dgrad", name);
        rw_cold(g, rw_gemm(g, group, nm, dt, tokens, in, out, 1, count), w);
    }
    snprintf(nm, sizeof nm, "%.50s.wgrad", name);
    op = rw_gemm(g, group, nm, dt, out, in, tokens, 1, count);
    /* dW = dY^T X: A is dY stored [tokens, out] row-major, read transposed (leading dimension
     * `out`, cuBLAS TN), so a misaligned output width (GPT-2's 50,257-word head) misaligns the
     * wgrad as it does the forward's C and the dgrad's A (docs/model.md §2, §11). */
    if (op)
        op->u.gemm.layout = RIDGE_LAYOUT_TN;
    dw = in * out * ridge_gemm_out_bytes(dt); /* dW, written as the GEMM's output */
    if (!g->amp)
        rw_cold(g, op, dw);
    rw_grad_cast(g, group, name, dt, in * out, count); /* autocast: dW read back just after */
}

void rw_autograd_from(rw_graph *g, size_t first)
{
    for (size_t i = first; !g->failed && i < g->n; i++)
        g->ops[i].host_class = RIDGE_HOST_AUTOGRAD;
}

void rw_linear_bias(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double tokens, double out,
                    int train, double count)
{
    char nm[RIDGE_OP_NAME_MAX];
    double e = ridge_dtype_bytes(dt);
    if (g->amp) {
        snprintf(nm, sizeof nm, "%.50s.bcast", name);
        rw_custom(g, group, nm, dt, 0, out * (4 + e), count);
    }
    if (!train)
        return;
    snprintf(nm, sizeof nm, "%.50s.bgrad", name);
    rw_rows(g, RIDGE_OP_REDUCE, group, nm, dt, out, tokens, 0, count); /* dY summed over the rows */
    rw_autograd_from(g, g->n - 1);
    if (g->amp) {
        snprintf(nm, sizeof nm, "%.50s.bgrad.gcast", name);
        rw_custom(g, group, nm, dt, 0, out * (4 + e), count);
    }
}

void rw_act_cast(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double elements, int train,
                 double count)
{
    char nm[RIDGE_OP_NAME_MAX];
    double bytes = elements * (4 + ridge_dtype_bytes(dt));
    if (!g->amp || dt == RIDGE_DTYPE_FP32)
        return;
    snprintf(nm, sizeof nm, "%.50s.acast", name);
    rw_custom(g, group, nm, dt, 0, bytes, count);
    if (!train)
        return;
    snprintf(nm, sizeof nm, "%.50s.acast.bwd", name);
    rw_custom(g, group, nm, dt, 0, bytes, count);
}

/* One elementwise kernel; NULL when the graph is full. */
static ridge_op *push_ew(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double elements,
                         double inputs, double outputs, double flops_per_element, double count)
{
    ridge_op *op = rw_push(g, RIDGE_OP_ELEMENTWISE, dt, group, name, count);
    if (op) {
        op->u.ew.elements = elements;
        op->u.ew.inputs = inputs;
        op->u.ew.outputs = outputs;
        op->u.ew.flops_per_element = flops_per_element;
    }
    return op;
}

void rw_elementwise(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double elements,
                    double inputs, double outputs, double flops_per_element, int train, double count)
{
    if (push_ew(g, group, name, dt, elements, inputs, outputs, flops_per_element, count) && train)
        rw_elementwise_bwd(g, group, name, dt, elements, inputs, flops_per_element, count);
}

void rw_elementwise_bwd(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double elements,
                        double inputs, double flops_per_element, double count)
{
    char nm[RIDGE_OP_NAME_MAX];
    snprintf(nm, sizeof nm, "%.55s.bwd", name);
    push_ew(g, group, nm, dt, elements, inputs + 1, inputs > 0 ? inputs : 1, 2 * flops_per_element, count);
}

void rw_rows(rw_graph *g, ridge_op_kind kind, const char *group, const char *name, ridge_dtype dt, double rows,
             double cols, int train, double count)
{
    ridge_op *op = rw_push(g, kind, dt, group, name, count);
    char nm[RIDGE_OP_NAME_MAX];
    if (!op)
        return;
    op->u.rows.rows = rows;
    op->u.rows.cols = cols;
    if (!train)
        return;
    /* Backward reads x (or y) and dy and writes dx: twice the forward's traffic. */
    snprintf(nm, sizeof nm, "%.55s.bwd", name);
    op = rw_push(g, kind, dt, group, nm, 2 * count);
    if (!op)
        return;
    op->u.rows.rows = rows;
    op->u.rows.cols = cols;
}

/* Parameters one fused multi-tensor kernel launch updates (PyTorch's foreach/fused kernels
 * process tensor lists in chunks; ~65k elements per block, many blocks per launch). */
#define RW_FUSED_PARAMS_PER_KERNEL 5e7
/* One launch of PyTorch's multi_tensor_apply (a foreach op) covers at most 320 blocks of 65,536
 * elements and, for the three tensor lists of a typical op, 48 tensors. */
#define RW_FOREACH_ELEMS_PER_KERNEL (320.0 * 65536.0)
#define RW_FOREACH_TENSORS_PER_KERNEL 48.0

/* ceil(x), at least 1. */
static double ceil_at_least1(double x)
{
    double c = (double)(long long)x;
    return c < x ? c + 1 : (c < 1 ? 1 : c);
}

/* One pass of the optimizer over `params` parameters in `kernels` kernels: an elementwise op with
 * `count` = kernels, each kernel updating params / kernels parameters; inputs and outputs in
 * 2-byte units (the op's dtype is bf16 for accounting). */
static void optimizer_pass(rw_graph *g, const char *name, double params, double kernels, double in, double out,
                           double flops)
{
    ridge_op *op = rw_push(g, RIDGE_OP_ELEMENTWISE, RIDGE_DTYPE_BF16, "optimizer", name, 1);
    if (!op)
        return;
    op->count = kernels > 1 ? (double)(long long)(kernels + 0.5) : 1;
    op->u.ew.elements = (double)(long long)(params / op->count + 0.5);
    if (op->u.ew.elements < 1)
        op->u.ew.elements = 1;
    op->u.ew.inputs = in;
    op->u.ew.outputs = out;
    op->u.ew.flops_per_element = flops;
}

void rw_optimizer(rw_graph *g, double params, double tensors, ridge_dtype precision, ridge_optimizer opt, int impl)
{
    int mixed = (precision == RIDGE_DTYPE_FP16 || precision == RIDGE_DTYPE_BF16 || precision == RIDGE_DTYPE_FP8 ||
                 precision == RIDGE_DTYPE_INT8) && !g->amp;
    int adamw = opt == RIDGE_OPTIMIZER_ADAMW;
    double flops = adamw ? 12 : 4;
    double gu = mixed ? 1 : 2; /* the gradient, in 2-byte units */
    /* Launches of one foreach op over every parameter tensor. */
    double k_foreach = ceil_at_least1(fmax(params / RW_FOREACH_ELEMS_PER_KERNEL, tensors / RW_FOREACH_TENSORS_PER_KERNEL));
    ridge_op *op;
    /* GradScaler (fp16 autocast): unscale the FP32 gradients and check them for inf/NaN, one
     * foreach op; in 2-byte units: read 2, write 2. Eager PyTorch (g->torch_step) runs the whole
     * torch.amp.GradScaler sequence around it: scaler.scale(loss) is a multiply of the loss (and
     * its backward, one more); unscale_ computes 1 / scale (to double, reciprocal, to float: three
     * one-value kernels) and fills found_inf (one); scaler.step reads found_inf with .item() (a
     * 4-byte copy to the host, which waits for the GPU to drain) before a non-fused optimizer's
     * step; scaler.update is one _amp_update_scale_ kernel (after the step). A fused optimizer takes the scale and
     * found_inf itself (_step_supports_amp_scaling): the check runs with no .item(), and found_inf
     * is summed on the device (one kernel). */
    if (g->amp && precision == RIDGE_DTYPE_FP16) {
        int fused = impl == RIDGE_OPT_IMPL_FUSED;
        if (g->torch_step) {
            rw_custom(g, "loss", "scaler.scale_loss", RIDGE_DTYPE_FP32, 1, 12, 2); /* every micro-batch */
            rw_custom(g, "optimizer", "scaler.inv_scale", RIDGE_DTYPE_FP32, 1, 12, fused ? 1 : 3);
            rw_custom(g, "optimizer", "scaler.found_inf_fill", RIDGE_DTYPE_FP32, 0, 4, 1);
        }
        optimizer_pass(g, "grad_unscale", params, k_foreach, 2, 2, 2);
        if (g->torch_step && !fused) {
            op = rw_push(g, RIDGE_OP_COPY, RIDGE_DTYPE_FP32, "optimizer", "scaler.found_inf.item", 1);
            if (op) {
                op->u.copy.bytes = 4;
                op->u.copy.kind = RIDGE_COPY_D2H;
                op->host_sync = 1;
            }
        } else if (g->torch_step)
            rw_custom(g, "optimizer", "scaler.found_inf_sum", RIDGE_DTYPE_FP32, 1, 8, 1);
    }
    if (opt == RIDGE_OPTIMIZER_LAMB) {
        /* apex FusedLAMB (fused only; ridge_model_build refuses the others): four multi-tensor
         * passes, in 2-byte units per parameter: the global gradient norm (read g); stage 1, the
         * Adam update (read g, master p, m, v; write m, v and the FP32 update u); the per-tensor
         * norms of p and u (read 4); stage 2, p -= lr * trust ratio * u (read p, u; write p and,
         * mixed, the 16-bit copy). 18 FLOPs per parameter: Adam's 12, the norms 4, the update 2. */
        double kernels = params / RW_FUSED_PARAMS_PER_KERNEL > 1 ? params / RW_FUSED_PARAMS_PER_KERNEL : 1;
        optimizer_pass(g, "lamb_step", params, 4 * kernels, 2 * gu + 14, 8 + (mixed ? 1 : 0), 18);
    } else if (impl == RIDGE_OPT_IMPL_FOREACH || impl == RIDGE_OPT_IMPL_FOREACH_CAPTURABLE) {
        /* torch.optim's multi-tensor implementation: one foreach op (a pass over every tensor)
         * per arithmetic step, with weight decay, in 2-byte units of FP32 values:
         *   AdamW: p *= 1 - lr wd (2 -> 2); m.lerp_(g) (2 + g -> 2); v *= b2 (2 -> 2);
         *          v.addcmul_(g, g) (2 + g -> 2); t = sqrt(v) (2 -> 2); t /= bc2 (2 -> 2);
         *          t += eps (2 -> 2); [capturable: t /= step size (2 -> 2)]; p.addcdiv_(m, t) (6 -> 2)
         *   SGD with momentum: d = g + wd p (g + 2 -> 2); b *= mu (2 -> 2); b += d (4 -> 2);
         *          p -= lr b (4 -> 2)
         * then, in mixed precision, the 16-bit copy of the weights (2 -> 1). */
        int cap = impl == RIDGE_OPT_IMPL_FOREACH_CAPTURABLE && adamw;
        double passes = adamw ? 8 + cap : 4;
        double fin = adamw ? 20 + 2 * gu + 2 * cap : 12 + gu, fout = 2 * passes;
        /* One custom op of k_foreach x passes launches, each over params / k_foreach values and
         * moving the pass-average bytes (the passes differ in width: 2 to 8 bytes per value). */
        rw_custom(g, "optimizer", adamw ? "adamw_foreach" : "sgd_foreach", RIDGE_DTYPE_FP32,
                  flops / passes * params / k_foreach, 2.0 * (fin + fout) / passes * params / k_foreach,
                  k_foreach * passes);
        if (mixed)
            optimizer_pass(g, "half_weights_copy", params, k_foreach, 2, 1, 0);
    } else if (g->megatron_step && mixed && adamw && impl == RIDGE_OPT_IMPL_FUSED) {
        /* Megatron-LM's Float16OptimizerWithFloat16Params (megatron/optimizer/optimizer.py,
         * 2021), in 2-byte units per parameter: the 16-bit gradients copied to FP32 main
         * gradients, one kernel per tensor (read 1, write 2); unscaled and checked for inf/NaN,
         * torch._amp_foreach_non_finite_check_and_unscale_ (read 2, write 2); their global norm
         * for clipping, amp_C.multi_tensor_l2norm (read 2; the rescale runs only when the norm
         * exceeds the clip and is not counted); apex FusedAdam on the FP32 main parameters and
         * gradients (read g, p, m, v: 8; write p, m, v: 6); the FP32 parameters copied back to
         * the 16-bit model, multi_tensor_scale (read 2, write 1). 26 units (52 bytes) against the
         * 14 of one fused mixed-precision step. */
        double kernels = params / RW_FUSED_PARAMS_PER_KERNEL > 1 ? params / RW_FUSED_PARAMS_PER_KERNEL : 1;
        optimizer_pass(g, "main_grad_copy", params, tensors, 1, 2, 0);
        optimizer_pass(g, "grad_unscale", params, kernels, 2, 2, 2);
        optimizer_pass(g, "grad_norm", params, kernels, 2, 0, 2);
        optimizer_pass(g, "adamw_step", params, kernels, 8, 6, flops);
        optimizer_pass(g, "main_to_model_params", params, kernels, 2, 1, 0);
    } else {
        /* One pass (fused) or one loop over the tensors (forloop). Per parameter: read the
         * gradient, read and write the FP32 master weight and the states (AdamW: m and v; SGD:
         * momentum), write the half copy in mixed precision; in 2-byte units (the op's dtype is
         * bf16 for accounting): gradient 1 (2 in FP32), master 2 + 2, each state 2 + 2, copy 1. */
        double states = adamw ? 2 : 1, in = gu + 2 + 2 * states, out = 2 + 2 * states + (mixed ? 1 : 0);
        double kernels = impl == RIDGE_OPT_IMPL_FUSED
                             ? (params / RW_FUSED_PARAMS_PER_KERNEL > 1 ? params / RW_FUSED_PARAMS_PER_KERNEL : 1)
                             : tensors * (adamw ? 5 : 2);
        optimizer_pass(g, adamw ? "adamw_step" : "sgd_step", params, kernels, in, out, flops);
    }
    if (g->torch_step && g->amp && precision == RIDGE_DTYPE_FP16)
        rw_custom(g, "optimizer", "scaler.update_scale", RIDGE_DTYPE_FP32, 4, 16, 1);
    /* Gradient accumulation: micro-batches 2..N add their weight gradients into .grad, autograd's
     * AccumulateGrad as one in-place add per parameter tensor (read .grad and the new gradient,
     * write .grad, in the gradient dtype); .grad was last touched a micro-batch earlier: cold. */
    if (g->grad_accum > 1 && tensors >= 1) {
        ridge_dtype gdt = mixed ? RIDGE_DTYPE_BF16 : RIDGE_DTYPE_FP32;
        double per = params / tensors;
        op = rw_push(g, RIDGE_OP_ELEMENTWISE, gdt, "optimizer", "grad_accumulate", (g->grad_accum - 1) * tensors);
        if (op) {
            op->u.ew.elements = per;
            op->u.ew.inputs = 2;
            op->u.ew.outputs = 1;
            op->u.ew.flops_per_element = 1;
            rw_cold(g, op, 2 * per * ridge_dtype_bytes(gdt));
        }
    }
    /* zero_grad: set_to_none (g->torch_step) launches nothing; otherwise one memset of the
     * gradients. */
    if (g->torch_step)
        return;
    op = rw_push(g, RIDGE_OP_ELEMENTWISE, mixed ? RIDGE_DTYPE_BF16 : RIDGE_DTYPE_FP32, "optimizer", "zero_grad", 1);
    if (!op)
        return;
    op->u.ew.elements = params;
    op->u.ew.inputs = 0;
    op->u.ew.outputs = 1;
    op->u.ew.flops_per_element = 0;
}
