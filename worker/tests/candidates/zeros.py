"""Broken on purpose: returns zeros whatever the input (wrong_output: the output does not depend
on the input, even where zeros are within tolerance)."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.zeros_like(x)
