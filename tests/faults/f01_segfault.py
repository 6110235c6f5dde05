"""Fault: read kernel-space memory through a ctypes pointer in forward (a segfault in the child;
a kernel-half address faults even where page 0 happens to be mapped). A cast pointer raises no
audit event (string_at and from_address are refused before they read)."""
import ctypes

import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def forward(self, x):
        return ctypes.cast(0xFFFFFFFFFFFF0000, ctypes.POINTER(ctypes.c_char))[0]
