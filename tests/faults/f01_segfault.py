"""Fault: read kernel-space memory through ctypes in forward (a segfault in the child; a
kernel-half address faults even where page 0 happens to be mapped). `memmove` raises no audit
event (string_at and from_address are refused before they read, and since session 31 so is a
cast of a raw address)."""
import ctypes

import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def forward(self, x):
        ctypes.memmove(ctypes.create_string_buffer(1), 0xFFFFFFFFFFFF0000, 1)
        return x
