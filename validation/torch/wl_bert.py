"""BERT-base and BERT-large encoders (inference and a fine-tuning step).

A local definition on nn.TransformerEncoderLayer with BERT's sizes:
embeddings (token 30522, position 512, token type 2) + LayerNorm, then
post-LayerNorm encoder layers with GELU, LayerNorm eps 1e-12, dropout 0.1.

  inference  weights in bf16, eval, no_grad; output: the sequence output
             (PyTorch may take nn.TransformerEncoderLayer's fused inference
             fast path here, as it would in any eval/no_grad use)
  train      fp32 weights, bf16 autocast, pooler + 2-class classifier,
             cross-entropy, AdamW: a fine-tuning step

nn.TransformerEncoder deep-copies its layer, so layers start with equal
random weights; that does not change the work done.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from harness import Case, Prepared

FAMILY = "bert"
BUDGET_S = 40.0

COMMON = {"family": "transformer_encoder", "vocab": 30522,
          "max_position": 512, "type_vocab": 2, "activation": "gelu",
          "norm": "post_layernorm", "layer_norm_eps": 1e-12, "dropout": 0.1,
          "attention": "multi_head", "bias": True}
SIZES = {
    "bert-base": {"hidden": 768, "layers": 12, "heads": 12, "ffn": 3072},
    "bert-large": {"hidden": 1024, "layers": 24, "heads": 16, "ffn": 4096},
}


def workload(name):
    w = {"name": name}
    w.update(SIZES[name])
    w.update(COMMON)
    return w


class Bert(nn.Module):
    def __init__(self, w, device, dtype):
        super().__init__()
        fk = {"device": device, "dtype": dtype}
        h = w["hidden"]
        self.tok = nn.Embedding(w["vocab"], h, **fk)
        self.pos = nn.Embedding(w["max_position"], h, **fk)
        self.typ = nn.Embedding(w["type_vocab"], h, **fk)
        self.ln = nn.LayerNorm(h, eps=w["layer_norm_eps"], **fk)
        self.drop = nn.Dropout(w["dropout"])
        layer = nn.TransformerEncoderLayer(
            h, w["heads"], w["ffn"], dropout=w["dropout"], activation="gelu",
            layer_norm_eps=w["layer_norm_eps"], batch_first=True,
            norm_first=False, **fk)
        try:
            self.encoder = nn.TransformerEncoder(layer, w["layers"],
                                                 enable_nested_tensor=False)
        except TypeError:  # older PyTorch
            self.encoder = nn.TransformerEncoder(layer, w["layers"])
        self.pool = nn.Linear(h, h, **fk)
        self.cls = nn.Linear(h, 2, **fk)

    def encode(self, ids, types):
        pos = torch.arange(ids.shape[1], device=ids.device)
        x = self.tok(ids) + self.pos(pos)[None] + self.typ(types)
        return self.encoder(self.drop(self.ln(x)))

    def forward(self, ids, types):
        hs = self.encode(ids, types)
        return self.cls(torch.tanh(self.pool(hs[:, 0])))


def bert_flops(w, batch, seq, train):
    """Matmul FLOPs: per layer QKV, output projection and MLP, 2 T (4h^2 +
    2 h ffn), plus scores and P.V, 4 b s^2 h; training adds the pooler and
    classifier and counts 3x the forward."""
    h, f, t = w["hidden"], w["ffn"], batch * seq
    fwd = w["layers"] * (2 * t * (4 * h * h + 2 * h * f)
                         + 4 * batch * seq * seq * h)
    if not train:
        return fwd
    return 3 * (fwd + 2 * batch * h * h + 2 * batch * h * 2)


def make_setup(name, mode, precision, batch, seq):
    def setup(ctx):
        w = workload(name)
        wdt = ctx.dtype(precision) if mode == "infer" else torch.float32
        model = Bert(w, ctx.device, wdt)
        ids = torch.randint(0, w["vocab"], (batch, seq), device=ctx.device)
        types = torch.randint(0, 2, (batch, seq), device=ctx.device)
        if mode == "infer":
            model.eval()

            def step():
                with torch.no_grad():
                    return model.encode(ids, types)
            return Prepared(step, inference=True,
                            extra={"output": "sequence_output"},
                            flops_analytic=bert_flops(w, batch, seq, False))
        model.train()
        labels = torch.randint(0, 2, (batch,), device=ctx.device)
        try:
            opt = torch.optim.AdamW(model.parameters(), lr=2e-5,
                                    weight_decay=0.01, capturable=ctx.cuda)
        except TypeError:
            opt = torch.optim.AdamW(model.parameters(), lr=2e-5,
                                    weight_decay=0.01)

        def step():
            opt.zero_grad(set_to_none=True)
            with ctx.autocast(precision):
                loss = F.cross_entropy(model(ids, types), labels)
            loss.backward()
            opt.step()
            return loss.detach()
        return Prepared(step, inference=False, extra={
            "head": "pooler + classifier(2)", "loss": "cross_entropy",
            "optimizer": "AdamW(lr=2e-5, weight_decay=0.01, capturable)",
            "autocast_cache": False},
            flops_analytic=bert_flops(w, batch, seq, True))
    return setup


def cases(ctx):
    if ctx.quick:
        plan = [("bert-base", "infer", "bf16", 2, 32, ("eager", "graph")),
                ("bert-base", "train", "bf16", 2, 32, ("eager", "graph"))]
    else:
        plan = [("bert-base", "infer", "bf16", 32, 128, ("eager", "graph")),
                ("bert-base", "infer", "bf16", 32, 512, ("eager",)),
                ("bert-large", "infer", "bf16", 32, 128, ("eager",)),
                ("bert-large", "infer", "bf16", 32, 512, ("eager", "graph")),
                ("bert-base", "train", "bf16", 32, 128, ("eager", "graph")),
                ("bert-large", "train", "bf16", 8, 512, ("eager",))]
    out = []
    for name, mode, prec, batch, seq, runtimes in plan:
        w = workload(name)
        cfg = {"workload": w, "mode": mode, "batch": batch, "seq": seq,
               "precision": prec, "amp": mode == "train",
               "weights_dtype": prec if mode == "infer" else "fp32",
               "layers_run": w["layers"]}
        if not ctx.cuda and prec == "fp16":
            cfg["precision_effective"] = "bf16"
        out.append(Case("torch/%s/%s/%s/b%d_s%d" % (name, mode, prec, batch,
                                                     seq),
                        cfg, make_setup(name, mode, prec, batch, seq),
                        runtimes=runtimes, items=batch * seq, item="tokens",
                        time_s=1.0 if ctx.quick else 2.0))
    return out
