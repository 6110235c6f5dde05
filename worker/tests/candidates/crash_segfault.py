"""Broken on purpose: reads a kernel-half address through ctypes.memmove (crashed, SIGSEGV)."""
import ctypes

import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        ctypes.memmove(ctypes.create_string_buffer(1), 0xFFFFFFFFFFFF0000, 1)
        return x
