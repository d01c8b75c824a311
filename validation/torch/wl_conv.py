"""cuDNN convolutions one at a time: the kernel-level check of ridge's
convolution model (docs/model.md, "Convolution").

ResNet-50's layer shapes at batch 128, each timed as NREP back-to-back calls
of one pass (forward, or one backward half through
aten.convolution_backward), with cudnn.benchmark on (cuDNN times its
algorithms and keeps the fastest, as DeepLearningExamples run):

  fp32  TF32 off (torch.backends.cudnn.allow_tf32 = False), NCHW: CUDA
        cores; 3x3 stride-1 layers are where cuDNN picks Winograd, which
        ridge predicts; a 3x3 stride-2 and a 1x1 layer are the contrast
  bf16  channels_last (NHWC): tensor-core implicit GEMM

Each measurement carries `config.op`, a ridge `conv2d` operator with
`count` = NREP, so `ridge validate` predicts it like a CUDA microbenchmark
(back to back, no framework cost: the calls are large enough that the
GPU, not PyTorch's dispatch, sets the pace).  FLOPs are the direct
convolution's, 2 n k p q c r s per call, as ridge counts them.
"""

import torch
import torch.nn.functional as F

from harness import Case, Prepared

FAMILY = "conv"
BUDGET_S = 25.0
CUDNN_BENCHMARK = True
CUDNN_ALLOW_TF32 = False
NREP = 20

# (name, c, hw, k, r, stride, passes): ResNet-50 v1.5 layers.
LAYERS = [
    ("s1_3x3", 64, 56, 64, 3, 1, ("fwd",)),
    ("s2_3x3", 128, 28, 128, 3, 1, ("fwd",)),
    ("s3_3x3", 256, 14, 256, 3, 1, ("fwd", "bwd_data", "bwd_filter")),
    ("s4_3x3", 512, 7, 512, 3, 1, ("fwd",)),
    ("s2_3x3_stride2", 128, 56, 128, 3, 2, ("fwd",)),
    ("s1_1x1_expand", 64, 56, 256, 1, 1, ("fwd",)),
]
QUICK_LAYERS = [("q_3x3", 16, 14, 16, 3, 1, ("fwd", "bwd_data")),
                ("q_1x1", 16, 14, 32, 1, 1, ("fwd",))]


def out_hw(hw, r, stride, pad):
    return (hw + 2 * pad - r) // stride + 1


def make_setup(n, c, hw, k, r, stride, pss, precision):
    pad = r // 2

    def setup(ctx):
        dt = ctx.dtype(precision)
        fmt = (torch.channels_last if precision != "fp32"
               else torch.contiguous_format)
        x = torch.randn(n, c, hw, hw, device=ctx.device, dtype=dt)
        x = x.contiguous(memory_format=fmt)
        w = (torch.randn(k, c, r, r, device=ctx.device, dtype=dt)
             * (2.0 / (c * r * r)) ** 0.5).contiguous(memory_format=fmt)
        p = out_hw(hw, r, stride, pad)
        flops = NREP * 2 * n * k * p * p * c * r * r
        if pss == "fwd":
            def one():
                return F.conv2d(x, w, stride=stride, padding=pad)
        else:
            gy = torch.randn(n, k, p, p, device=ctx.device, dtype=dt)
            gy = gy.contiguous(memory_format=fmt)
            mask = [pss == "bwd_data", pss == "bwd_filter", False]
            idx = 0 if pss == "bwd_data" else 1

            def one():
                return torch.ops.aten.convolution_backward(
                    gy, x, w, None, [stride, stride], [pad, pad], [1, 1],
                    False, [0, 0], 1, mask)[idx]

        def step():
            y = None
            for _ in range(NREP):
                y = one()
            return y
        return Prepared(step, inference=True, flops=flops,
                        flops_source="analytic: 2 n k p q c r s per call",
                        extra={"impl": "F.conv2d / aten.convolution_backward"
                                       " (cuDNN)",
                               "memory_format": "channels_last"
                               if precision != "fp32" else "nchw"})
    return setup


def cases(ctx):
    n = 4 if ctx.quick else 128
    out = []
    for prec in ("fp32", "bf16"):
        for name, c, hw, k, r, stride, passes in (QUICK_LAYERS if ctx.quick
                                                   else LAYERS):
            for pss in passes:
                if prec == "bf16" and (stride > 1 or pss != "fwd"):
                    continue  # the contrast cases are for fp32 only
                op = {"op": "conv2d", "dtype": prec, "n": n, "c": c,
                      "h": hw, "w": hw, "k": k, "r": r, "s": r,
                      "stride": stride, "pad": r // 2, "pass": pss,
                      "count": NREP}
                cfg = {"op": op, "layer": name, "calls_per_step": NREP}
                if not ctx.cuda and prec == "bf16":
                    cfg["precision_effective"] = "bf16"
                out.append(Case("torch/conv/%s/%s/%s/n%d" % (prec, name, pss,
                                                             n),
                                cfg, make_setup(n, c, hw, k, r, stride, pss,
                                                prec),
                                runtimes=("eager",), items=n * NREP,
                                item="images",
                                time_s=0.3 if ctx.quick else 1.0))
    return out
