# Int arithmetic, shapes and metadata next to tensor ops (optrace scan example).
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, n_embd, n_head: int, vocab=50304):
        super().__init__()
        self.n_head = n_head
        self.scale = 1.0 / math.sqrt(n_embd)
        self.wte = nn.Embedding(vocab, n_embd)
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)

    def forward(self, idx):
        x = self.wte(idx)
        B, T, C = x.size()
        hd = C // self.n_head
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, hd).transpose(1, 2)
        n = x.shape[-1] * 2 + len(q.shape)
        if x.dim() > 2 and x.size(-1) % 2 == 0:
            n += 1
        seen = set()
        seen.add(n)
        att = (q @ k.transpose(-2, -1)) * self.scale
        att = att / math.sqrt(hd)
        return -att + x * 2 + 1


x = torch.randn(2, 3)
y = torch.relu(x)
