#!/usr/bin/env python3
"""The profiler exports `optrace profile` is tested on (issue 26), made with torch.profiler.

One training step of a small transformer block (LayerNorm, QKV Linear, scaled_dot_product_attention, GELU MLP,
AdamW) and one of a small conv net (Conv2d, BatchNorm2d, ReLU, MaxPool2d, Linear, cross entropy, SGD), after a
warm-up outside the profiler, with record_shapes=True and with_stack=True, written as
`export_chrome_trace` JSON and gzipped. On CUDA the transformer runs under bf16 autocast (cuBLAS GEMMs, flash
attention); on CPU in float32 (Debian's torch 1.13 makes the CPU files).

Usage: make_profiles.py DEVICE OUTDIR     (DEVICE: cpu | cuda)
Writes OUTDIR/<device>-transformer.json.gz and OUTDIR/<device>-convnet.json.gz.

The checked-in files: cpu-*.json.gz by this script with Debian's python3-torch 1.13 (the legacy profiler: no
Kineto, so no shapes); cuda-*.json.gz on one NVIDIA H200 with torch 2.11.0+cu130 (2026-12-03) by a condensed copy
of this script (the same models, sizes and steps; the device tool takes one command line), saved as mp.py --
which is why their Python frames read `mp.py(N): ...`.
"""
import gzip
import os
import shutil
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile


class Block(nn.Module):
    def __init__(self, d=256, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        if hasattr(F, "scaled_dot_product_attention"):
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:  # torch 1.13 (Debian): the same attention written out
            mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
            s = (q @ k.transpose(-2, -1)) / (d // self.heads) ** 0.5
            a = s.masked_fill(~mask, float("-inf")).softmax(-1) @ v
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))


def convnet():
    return nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(64 * 8 * 8, 10))


def capture(name, device, make, step, outdir):
    model, opt, batch = make()
    for _ in range(3):  # warm-up: cuDNN/cuBLAS heuristics, allocator, lazy init stay out of the profile
        step(model, opt, batch)
    if device == "cuda":
        torch.cuda.synchronize()
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with profile(activities=acts, record_shapes=True, with_stack=True) as prof:
        step(model, opt, batch)
        if device == "cuda":
            torch.cuda.synchronize()
    raw = os.path.join(outdir, f"{device}-{name}.json")
    prof.export_chrome_trace(raw)
    with open(raw, "rb") as f, gzip.open(raw + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    os.remove(raw)
    print(raw + ".gz", os.path.getsize(raw + ".gz"))


def main():
    device, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    torch.manual_seed(0)
    cuda = device == "cuda"

    def make_block():
        m = Block().to(device)
        return m, torch.optim.AdamW(m.parameters(), lr=1e-3), torch.randn(8, 128, 256, device=device)

    def step_block(m, opt, x):
        opt.zero_grad(set_to_none=True)
        if cuda:
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
                loss = m(x).float().pow(2).mean()
        else:
            loss = m(x).pow(2).mean()
        loss.backward()
        opt.step()

    def make_conv():
        m = convnet().to(device)
        x = torch.randn(32, 3, 32, 32, device=device)
        y = torch.randint(0, 10, (32,), device=device)
        return m, torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9), (x, y)

    def step_conv(m, opt, batch):
        opt.zero_grad(set_to_none=True)
        F.cross_entropy(m(batch[0]), batch[1]).backward()
        opt.step()

    capture("transformer", device, make_block, step_block, outdir)
    capture("convnet", device, make_conv, step_conv, outdir)
    print("torch", torch.__version__, torch.cuda.get_device_name() if cuda else "cpu")


if __name__ == "__main__":
    main()
