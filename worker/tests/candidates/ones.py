"""Broken on purpose: returns ones whatever the input (wrong_output: the output does not depend on
the input, even where ones are within tolerance)."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.ones_like(x)
