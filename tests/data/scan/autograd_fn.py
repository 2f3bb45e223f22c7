# A custom autograd Function with its own backward (optrace scan example).
import torch
from torch.autograd import Function


class ScaledTanh(Function):
    @staticmethod
    def forward(ctx, x, scale):
        y = torch.tanh(x * scale)
        ctx.save_for_backward(y)
        ctx.scale = scale
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * (1 - y * y) * ctx.scale, None


def scaled_tanh(x, scale=2.0):
    return ScaledTanh.apply(x, scale)


class Head(torch.nn.Module):
    def forward(self, x):
        return scaled_tanh(x).sum(dim=-1)
