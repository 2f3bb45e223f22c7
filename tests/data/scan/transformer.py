# A pre-norm transformer block: RMSNorm, attention, MLP (optrace scan example).
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        norm = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(norm + self.eps) * self.weight


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)

    def _split(self, t):
        b, s, _ = t.shape
        return t.view(b, s, self.heads, -1).transpose(1, 2)

    def forward(self, x, causal=True):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = self._split(q), self._split(k), self._split(v)
        if causal:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
            y = scores.softmax(-1) @ v
        y = y.transpose(1, 2).reshape(x.shape)
        return self.out(y)


def gelu_mlp(x, up, down):
    return down(F.gelu(up(x)))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = RMSNorm(dim)
        self.attn = Attention(dim, heads)
        self.norm2 = RMSNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x, **kwargs):
        x = x + self.attn(self.norm1(x), **kwargs)
        return x + gelu_mlp(self.norm2(x), self.up, self.down)
