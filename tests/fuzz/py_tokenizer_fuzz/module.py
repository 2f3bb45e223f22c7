import torch
from torch import nn

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(2, 3)

    @torch.no_grad()
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = f"{x!r}" + """doc
"""
        return torch.relu(self.l(x)) @ x.T
