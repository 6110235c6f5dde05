"""Broken on purpose: a shape error inside forward (runtime_error at line 12)."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        weights = torch.ones(3, 5)
        return torch.matmul(x, weights)
