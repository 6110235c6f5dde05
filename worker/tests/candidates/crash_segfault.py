"""Broken on purpose: reads address 0 through ctypes (crashed, SIGSEGV)."""
import ctypes

import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        ctypes.string_at(0)
        return x
