# A LLaMA-style block (optrace scan example, issue 27): operators in every form,
# dtype conversions, and int arithmetic on a layer's attribute.
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
        norm = x.float() * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return norm.type_as(x) * self.weight


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def rope_freqs(dim, t, theta=10000.0):
    inv = 1.0 / (theta ** (torch.arange(0, dim, 2).float() / dim))
    return torch.outer(t, inv)


class Attention(nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.proj = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        B, T, _ = x.shape
        C = self.proj.in_features
        hd = C // self.n_heads
        q, k, v = self.proj(x).split(C, dim=-1)
        q = q.view(B, T, self.n_heads, hd).transpose(1, 2)
        q = q * rope_freqs(hd, torch.arange(T)).cos() + rotate_half(q)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        y = y.to(torch.float16)
        y = y.half()
        y *= 2.0
        return self.out(y) / hd
