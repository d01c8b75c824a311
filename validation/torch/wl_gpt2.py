"""GPT-2 124M training step (local definition, random weights and tokens).

GPT-2 small: vocabulary 50257, context 1024, 12 layers, 12 heads, hidden
768, MLP 3072 with tanh-GELU, pre-LayerNorm, learned positions, biases,
lm_head tied to the token embedding, dropout 0 (as in nanoGPT pretraining).
Attention is F.scaled_dot_product_attention with is_causal.

Step: zero_grad, forward + cross-entropy over all positions under bf16
autocast, backward, AdamW (lr 6e-4, betas 0.9/0.95, weight decay 0.1).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

import attention
from harness import Case, Prepared

FAMILY = "gpt2"
BUDGET_S = 25.0

WORKLOAD = {"family": "transformer_decoder", "name": "gpt2-124m",
            "vocab": 50257, "n_ctx": 1024, "hidden": 768, "layers": 12,
            "heads": 12, "ffn": 3072, "activation": "gelu_tanh",
            "norm": "pre_layernorm", "layer_norm_eps": 1e-5, "bias": True,
            "tied_embeddings": True, "dropout": 0.0,
            "positional": "learned", "attention": "multi_head_causal"}


class Block(nn.Module):
    def __init__(self, w, device):
        super().__init__()
        h = w["hidden"]
        self.heads = w["heads"]
        self.ln1 = nn.LayerNorm(h, device=device)
        self.qkv = nn.Linear(h, 3 * h, device=device)
        self.proj = nn.Linear(h, h, device=device)
        self.ln2 = nn.LayerNorm(h, device=device)
        self.fc = nn.Linear(h, w["ffn"], device=device)
        self.fc_proj = nn.Linear(w["ffn"], h, device=device)

    def forward(self, x):
        b, t, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(h, dim=2)
        q, k, v = (z.view(b, t, self.heads, h // self.heads).transpose(1, 2)
                   for z in (q, k, v))
        y = attention.sdpa(q, k, v, causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, h))
        return x + self.fc_proj(F.gelu(self.fc(self.ln2(x)),
                                       approximate="tanh"))


class GPT2(nn.Module):
    def __init__(self, w, device):
        super().__init__()
        self.wte = nn.Embedding(w["vocab"], w["hidden"], device=device)
        self.wpe = nn.Embedding(w["n_ctx"], w["hidden"], device=device)
        self.blocks = nn.ModuleList(Block(w, device)
                                    for _ in range(w["layers"]))
        self.ln_f = nn.LayerNorm(w["hidden"], device=device)

    def forward(self, idx, targets):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.wte(idx) + self.wpe(pos)[None]
        for blk in self.blocks:
            x = blk(x)
        logits = F.linear(self.ln_f(x), self.wte.weight)  # tied lm_head
        return F.cross_entropy(logits.float().view(-1, logits.shape[-1]),
                               targets.view(-1))


def gpt2_flops(w, batch, seq):
    """Matmul FLOPs of a training step: 3x the forward, whose layers cost
    2 T (4h^2 + 2 h ffn) + 4 b s^2 h (attention counted dense) and whose
    lm_head costs 2 T h vocab."""
    h, f, t = w["hidden"], w["ffn"], batch * seq
    fwd = (w["layers"] * (2 * t * (4 * h * h + 2 * h * f)
                          + 4 * batch * seq * seq * h)
           + 2 * t * h * w["vocab"])
    return 3 * fwd


def make_setup(w, precision, batch, seq):
    def setup(ctx):
        model = GPT2(w, ctx.device)
        model.train()
        idx = torch.randint(0, w["vocab"], (batch, seq), device=ctx.device)
        tgt = torch.randint(0, w["vocab"], (batch, seq), device=ctx.device)
        kw = {"lr": 6e-4, "betas": (0.9, 0.95), "weight_decay": 0.1}
        try:
            opt = torch.optim.AdamW(model.parameters(), capturable=ctx.cuda,
                                    **kw)
        except TypeError:
            opt = torch.optim.AdamW(model.parameters(), **kw)

        def step():
            opt.zero_grad(set_to_none=True)
            with ctx.autocast(precision):
                loss = model(idx, tgt)
            loss.backward()
            opt.step()
            return loss.detach()
        return Prepared(step, inference=False, extra={
            "optimizer": "AdamW(lr=6e-4, betas=(0.9,0.95), weight_decay=0.1,"
                         " capturable)",
            "loss": "cross_entropy (all positions, logits in fp32)",
            "attention_impl": attention.IMPL, "autocast_cache": False},
            flops_analytic=gpt2_flops(w, batch, seq))
    return setup


def cases(ctx):
    w = dict(WORKLOAD)
    if ctx.quick:
        w["layers"] = 2
        batch, seq = 2, 64
    else:
        batch, seq = 8, 1024
    cfg = {"workload": w, "mode": "train", "batch": batch, "seq": seq,
           "precision": "bf16", "amp": True, "weights_dtype": "fp32",
           "layers_run": w["layers"]}
    return [Case("torch/gpt2-124m/train/bf16/b%d_s%d" % (batch, seq), cfg,
                 make_setup(w, "bf16", batch, seq),
                 runtimes=("eager", "graph"), items=batch * seq,
                 item="tokens", time_s=1.0 if ctx.quick else 3.0)]
