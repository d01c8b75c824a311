"""LSTM (nn.LSTM, cuDNN): forward (inference) and training step.

2 layers, input 1024, hidden 1024, sequence 128, batch 64, unidirectional,
time-major input.  fp32 runs with PyTorch's default TF32 switches (recorded
with each measurement; cuDNN may use TF32 tensor cores); fp16 runs under
autocast.  Training: forward, MSE against a random target, backward, SGD.

FLOPs are counted analytically, as ridge counts its `lstm` operator (the
flop counter does not see cuDNN RNNs): per layer, time step and sample the
gate matmuls cost 2 * 4H * (I + H) (I = input width of that layer) and the
gate nonlinearities and cell update 10 H; the training step counts 3x the
forward.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from harness import Case, Prepared

FAMILY = "lstm"
BUDGET_S = 20.0

WORKLOAD = {"family": "rnn", "name": "lstm-2x1024", "cell": "lstm",
            "layers": 2, "input": 1024, "hidden": 1024,
            "bidirectional": False, "bias": True, "impl": "nn.LSTM (cuDNN)"}
QUICK_WORKLOAD = dict(WORKLOAD, name="lstm-2x128", input=128, hidden=128)


def lstm_flops(w, batch, seq, train):
    f, i = 0, w["input"]
    for _ in range(w["layers"]):
        f += (2 * 4 * w["hidden"] * (i + w["hidden"]) + 10 * w["hidden"]) \
            * batch * seq
        i = w["hidden"]
    return 3 * f if train else f


def make_setup(w, mode, precision, batch, seq):
    def setup(ctx):
        lstm = nn.LSTM(w["input"], w["hidden"], num_layers=w["layers"],
                       bias=w["bias"], device=ctx.device)
        lstm.flatten_parameters()
        x = torch.randn(seq, batch, w["input"], device=ctx.device)
        flops = lstm_flops(w, batch, seq, mode == "train")
        src = ("analytic: 8 H (I+H) + 10 H per layer, step and sample;"
               " train 3x")
        if mode == "infer":
            lstm.eval()

            def step():
                with torch.no_grad(), ctx.autocast(precision):
                    return lstm(x)[0]
            return Prepared(step, inference=True, flops=flops,
                            flops_source=src)
        lstm.train()
        tgt = torch.randn(seq, batch, w["hidden"], device=ctx.device)
        opt = torch.optim.SGD(lstm.parameters(), lr=0.01)

        def step():
            opt.zero_grad(set_to_none=True)
            with ctx.autocast(precision):
                out = lstm(x)[0]
            loss = F.mse_loss(out.float(), tgt)
            loss.backward()
            opt.step()
            return loss.detach()
        return Prepared(step, inference=False, flops=flops, flops_source=src,
                        extra={"optimizer": "SGD(lr=0.01)", "loss": "mse"})
    return setup


def cases(ctx):
    if ctx.quick:
        w, batch, seq = QUICK_WORKLOAD, 4, 16
        plan = [("infer", "fp16", ("eager", "graph")),
                ("train", "fp32", ("eager",))]
    else:
        w, batch, seq = WORKLOAD, 64, 128
        plan = [("infer", "fp32", ("eager",)),
                ("infer", "fp16", ("eager", "graph")),
                ("train", "fp32", ("eager",)),
                ("train", "fp16", ("eager",))]
    out = []
    for mode, prec, runtimes in plan:
        cfg = {"workload": w, "mode": mode, "batch": batch, "seq": seq,
               "precision": prec, "amp": prec != "fp32",
               "weights_dtype": "fp32", "layers_run": w["layers"]}
        if not ctx.cuda and prec == "fp16":
            cfg["precision_effective"] = "bf16"
        out.append(Case("torch/%s/%s/%s/b%d_s%d" % (w["name"], mode, prec,
                                                     batch, seq),
                        cfg, make_setup(w, mode, prec, batch, seq),
                        runtimes=runtimes, items=batch * seq, item="tokens",
                        time_s=0.6 if ctx.quick else 2.0))
    return out
