"""Llama-style decoder with a 7B shape, a few layers: prefill and decode.

Dimensions of a 7B grouped-query-attention model (those of Mistral-7B):
hidden 4096, 32 query heads, 8 key/value heads, head_dim 128, SwiGLU MLP
14336, RMSNorm (eps 1e-5, computed in fp32), rotary embeddings (theta 1e4),
vocabulary 32000, untied lm_head.  Only `layers_run` of the 32 layers are
built (2 and 4 are measured), so a model predicts this exact network: the
embedding, layers_run decoder layers, the final norm and lm_head.  The two
depths also give the per-layer cost by difference.

Weights are bf16 (as served), random; tokens are random.

  prefill  batch x prompt tokens from position 0, causal SDPA; writes the
           KV cache; logits for the last position only (as serving engines)
  decode   one new token per sequence at position `context`, attending to
           context+1 cached positions; every timed step does the same work
           (it rewrites the same cache slot)

GQA: prefill repeats K/V heads (expand + reshape, as Hugging Face
transformers); decode groups the query heads under their K/V head
(batch, kv_heads, group, head_dim) so the cache is read once, uncopied.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

import attention
from harness import Case, Prepared

FAMILY = "llama"
BUDGET_S = 50.0

WORKLOAD = {"family": "transformer_decoder", "name": "llama-7b-gqa-shape",
            "shape_of": "Mistral-7B (Llama architecture, GQA)",
            "vocab": 32000, "hidden": 4096, "layers": 32, "heads": 32,
            "kv_heads": 8, "head_dim": 128, "ffn": 14336,
            "activation": "swiglu", "norm": "rmsnorm", "norm_eps": 1e-5,
            "positional": "rope", "rope_theta": 10000.0, "bias": False,
            "tied_embeddings": False,
            # separate nn.Linear for q, k, v and for w1 (gate), w3 (up), as below
            "qkv_projection": "separate", "gate_up_projection": "separate",
            # RMSNorm and rotary embeddings as PyTorch pointwise ops, one kernel each (below)
            "norm_impl": "composite", "rope_impl": "composite"}

QUICK_WORKLOAD = dict(WORKLOAD, name="llama-tiny-gqa", vocab=1000,
                      hidden=256, heads=8, kv_heads=2, head_dim=32, ffn=512,
                      layers=4)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps, device, dtype):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim, device=device, dtype=dtype))

    def forward(self, x):
        xf = x.float()
        y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return y.to(x.dtype) * self.weight


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


class Layer(nn.Module):
    def __init__(self, w, device, dtype):
        super().__init__()
        fk = {"device": device, "dtype": dtype, "bias": False}
        h, hd = w["hidden"], w["head_dim"]
        self.nh, self.nkv, self.hd = w["heads"], w["kv_heads"], hd
        self.wq = nn.Linear(h, self.nh * hd, **fk)
        self.wk = nn.Linear(h, self.nkv * hd, **fk)
        self.wv = nn.Linear(h, self.nkv * hd, **fk)
        self.wo = nn.Linear(self.nh * hd, h, **fk)
        self.w1 = nn.Linear(h, w["ffn"], **fk)
        self.w3 = nn.Linear(h, w["ffn"], **fk)
        self.w2 = nn.Linear(w["ffn"], h, **fk)
        self.n1 = RMSNorm(h, w["norm_eps"], device, dtype)
        self.n2 = RMSNorm(h, w["norm_eps"], device, dtype)

    def attn(self, x, cos, sin, kc, vc, pos):
        b, t, _ = x.shape
        q = self.wq(x).view(b, t, self.nh, self.hd).transpose(1, 2)
        k = self.wk(x).view(b, t, self.nkv, self.hd).transpose(1, 2)
        v = self.wv(x).view(b, t, self.nkv, self.hd).transpose(1, 2)
        c, s = cos[pos:pos + t], sin[pos:pos + t]
        q = q * c + rotate_half(q) * s
        k = k * c + rotate_half(k) * s
        kc[:, :, pos:pos + t] = k
        vc[:, :, pos:pos + t] = v
        keys, vals = kc[:, :, :pos + t], vc[:, :, :pos + t]
        g = self.nh // self.nkv
        if t == 1:
            # decode: query heads grouped under their K/V head, no copies
            y = attention.sdpa(q.reshape(b, self.nkv, g, self.hd), keys, vals,
                               causal=False)
        else:
            # prefill: repeat K/V heads (expand + reshape), causal from 0
            n = keys.shape[2]
            keys = keys[:, :, None].expand(b, self.nkv, g, n, self.hd)
            vals = vals[:, :, None].expand(b, self.nkv, g, n, self.hd)
            y = attention.sdpa(q, keys.reshape(b, self.nh, n, self.hd),
                               vals.reshape(b, self.nh, n, self.hd),
                               causal=True)
        return self.wo(y.reshape(b, self.nh, t, self.hd).transpose(1, 2)
                       .reshape(b, t, self.nh * self.hd))

    def forward(self, x, cos, sin, kc, vc, pos):
        x = x + self.attn(self.n1(x), cos, sin, kc, vc, pos)
        h = self.n2(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Decoder(nn.Module):
    def __init__(self, w, layers_run, max_len, device, dtype):
        super().__init__()
        self.embed = nn.Embedding(w["vocab"], w["hidden"], device=device,
                                  dtype=dtype)
        self.layers = nn.ModuleList(Layer(w, device, dtype)
                                    for _ in range(layers_run))
        self.norm = RMSNorm(w["hidden"], w["norm_eps"], device, dtype)
        self.lm_head = nn.Linear(w["hidden"], w["vocab"], bias=False,
                                 device=device, dtype=dtype)
        hd = w["head_dim"]
        inv = 1.0 / (w["rope_theta"] ** (torch.arange(0, hd, 2,
                                                      device=device).float()
                                         / hd))
        ang = torch.outer(torch.arange(max_len, device=device).float(), inv)
        ang = torch.cat((ang, ang), dim=-1)
        self.register_buffer("cos", ang.cos().to(dtype), persistent=False)
        self.register_buffer("sin", ang.sin().to(dtype), persistent=False)

    def forward(self, tokens, caches, pos):
        x = self.embed(tokens)
        for layer, (kc, vc) in zip(self.layers, caches):
            x = layer(x, self.cos, self.sin, kc, vc, pos)
        return self.lm_head(self.norm(x[:, -1:, :]))  # last position only


def llama_flops(w, layers_run, mode, batch, length):
    """Matmul FLOPs: projections q, k, v, o and the SwiGLU MLP for every
    token, attention 4 b heads q_len kv_len head_dim (dense), lm_head for
    the last position of each sequence."""
    h, hd, nh, nkv = w["hidden"], w["head_dim"], w["heads"], w["kv_heads"]
    q_len = length if mode == "prefill" else 1
    kv_len = length if mode == "prefill" else length + 1
    t = batch * q_len
    proj = 2 * t * h * hd * (2 * nh + 2 * nkv) + 3 * 2 * t * h * w["ffn"]
    att = 4 * batch * nh * q_len * kv_len * hd
    return layers_run * (proj + att) + 2 * batch * h * w["vocab"]


MAX_POSITIONS = 4096  # rotary table length; covers every case below

_cached = {}  # one model kept between cases of the same depth


def get_model(w, layers_run, device, dtype):
    key = (w["name"], layers_run, str(device), dtype)
    if key not in _cached:
        _cached.clear()  # free the previous depth's weights first
        _cached[key] = Decoder(w, layers_run, MAX_POSITIONS, device,
                               dtype).eval()
    return _cached[key]


def make_setup(w, layers_run, mode, batch, length):
    """length: prompt tokens (prefill) or context already cached (decode)."""
    def setup(ctx):
        dtype = ctx.dtype("bf16")
        cache_len = length + 1 if mode == "decode" else length
        model = get_model(w, layers_run, ctx.device, dtype)
        shape = (batch, w["kv_heads"], cache_len, w["head_dim"])
        caches = [(torch.randn(shape, device=ctx.device, dtype=dtype),
                   torch.randn(shape, device=ctx.device, dtype=dtype))
                  for _ in range(layers_run)]
        if mode == "prefill":
            tokens = torch.randint(0, w["vocab"], (batch, length),
                                   device=ctx.device)
            pos = 0
        else:
            tokens = torch.randint(0, w["vocab"], (batch, 1),
                                   device=ctx.device)
            pos = length

        def step():
            with torch.no_grad():
                return model(tokens, caches, pos)
        kv_bytes = (2 * layers_run * batch * w["kv_heads"] * cache_len
                    * w["head_dim"] * torch.finfo(dtype).bits // 8)
        return Prepared(step, inference=True, extra={
            "attention_impl": attention.IMPL,
            "gqa_impl": ("grouped queries, cache read in place"
                         if mode == "decode" else
                         "repeat_kv (expand + reshape) then causal SDPA"),
            "logits": "last position only",
            "kv_cache_bytes": kv_bytes,
            "kv_cache_positions": cache_len},
            flops_analytic=llama_flops(w, layers_run, mode, batch, length))
    return setup


def cases(ctx):
    if ctx.quick:
        w = QUICK_WORKLOAD
        depths = (1, 2)
        plan = [("prefill", 1, 64, ("eager",)),
                ("decode", 2, 64, ("eager", "graph"))]
    else:
        w = WORKLOAD
        depths = (2, 4)
        plan = [("prefill", 1, 512, ("eager", "graph")),
                ("prefill", 8, 512, ("eager",)),
                ("prefill", 1, 2048, ("eager",)),
                ("decode", 1, 512, ("eager", "graph")),
                ("decode", 1, 2048, ("eager", "graph")),
                ("decode", 8, 2048, ("eager", "graph"))]
    out = []
    for layers_run in depths:
        for mode, batch, length, runtimes in plan:
            cfg = {"workload": w, "mode": mode, "batch": batch,
                   "precision": "bf16", "amp": False, "weights_dtype": "bf16",
                   "layers_run": layers_run}
            if mode == "prefill":
                cfg.update({"seq": length, "prompt": length, "context": 0})
                items = batch * length
                name = "b%d_p%d" % (batch, length)
            else:
                cfg.update({"seq": 1, "prompt": None, "context": length})
                items = batch
                name = "b%d_c%d" % (batch, length)
            out.append(Case("torch/%s/L%d/%s/bf16/%s" % (w["name"], layers_run,
                                                         mode, name),
                            cfg, make_setup(w, layers_run, mode, batch, length),
                            runtimes=runtimes, items=items, item="tokens",
                            time_s=0.6 if ctx.quick else 1.5))
    return out
