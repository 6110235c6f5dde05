"""Softmax in Triton that switches the default dtype to float64 at import: the reference must
still get float32 inputs and weights."""


import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_row_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    numerator = tl.exp(x)
    y = numerator / tl.sum(numerator, axis=0)
    tl.store(y_ptr + row * y_stride + cols, y, mask=mask)


torch.set_default_dtype(torch.float64)  # the reference must not be affected


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        block = triton.next_power_of_2(cols)
        num_warps = 4 if block <= 2048 else (8 if block <= 8192 else 16)
        softmax_row_kernel[(rows,)](x, y, cols, x.stride(0), y.stride(0), BLOCK=block,
                                    num_warps=num_warps)
        return y
