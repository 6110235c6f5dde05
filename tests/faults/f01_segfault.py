"""Fault: read kernel-space memory through ctypes in forward (a segfault in the child; a
kernel-half address faults even where page 0 happens to be mapped)."""
import ctypes

import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def forward(self, x):
        return ctypes.string_at(0xFFFFFFFFFFFF0000, 16)
