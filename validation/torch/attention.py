"""Scaled dot-product attention with a fallback for PyTorch < 2.0.

Shapes are (batch, heads, length, head_dim).  `causal` is only used with
equal query and key lengths (prefill from position 0, training), where the
top-left and bottom-right causal masks agree.
"""

import torch
import torch.nn.functional as F

HAVE_SDPA = hasattr(F, "scaled_dot_product_attention")
IMPL = ("F.scaled_dot_product_attention" if HAVE_SDPA
        else "math fallback (matmul, softmax in fp32, matmul)")


def sdpa(q, k, v, causal):
    if HAVE_SDPA:
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    att = (q @ k.transpose(-2, -1)) * (q.shape[-1] ** -0.5)
    if causal:
        t, s = q.shape[-2], k.shape[-2]
        keep = torch.ones(t, s, dtype=torch.bool, device=q.device).tril(s - t)
        att = att.masked_fill(~keep, float("-inf"))
    return torch.softmax(att.float(), dim=-1).to(q.dtype) @ v
