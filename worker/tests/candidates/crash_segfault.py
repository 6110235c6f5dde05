"""Broken on purpose: reads a kernel-half address through a cast pointer (crashed, SIGSEGV)."""
import ctypes

import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        ctypes.cast(0xFFFFFFFFFFFF0000, ctypes.POINTER(ctypes.c_char))[0]
        return x
