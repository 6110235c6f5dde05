"""Broken on purpose: fails while being imported (runtime_error at line 6)."""
import torch.nn as nn

SIZES = {"block": 128}

BLOCK = SIZES["blok"]


class ModelNew(nn.Module):
    def forward(self, x):
        return x
