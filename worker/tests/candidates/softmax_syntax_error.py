"""Broken on purpose: a missing colon (syntax_error at line 13)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x)
        return x
