"""Broken on purpose: shapes hard-coded to the shrunk task (2 rows of 16): correct there, wrong
at any other shape (rejected, hard-coded shapes)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * BLOCK + cols)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * BLOCK + cols, e / tl.sum(e, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty_like(x)
        softmax_kernel[(2,)](x, y, BLOCK=16)
        return y
