"""Malformed on purpose: fails while being imported (line 7)."""
import torch
import torch.nn as nn

SIZES = {"batch": 4}

dim = SIZES["dim"]


class Model(nn.Module):
    def forward(self, x):
        return x
