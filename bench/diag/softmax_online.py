"""Row softmax for rows of any width (KernelBench level1 23_Softmax at full size: 393,216
columns): one program per row, two passes over the row in blocks (running max and sum, then the
outputs). A bench candidate for full-size evaluations (bench/gpu_proof.sh s32_fourth)."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_online_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride
    y_row = y_ptr + row * stride
    top = tl.full((), float("-inf"), tl.float32)
    total = tl.zeros((), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        values = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf"))
        new_top = tl.maximum(top, tl.max(values, axis=0))
        total = total * tl.exp(top - new_top) + tl.sum(tl.exp(values - new_top), axis=0)
        top = new_top
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        values = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf"))
        tl.store(y_row + cols, tl.exp(values - top) / total, mask=cols < n_cols)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        rows, cols = x.shape
        softmax_online_kernel[(rows,)](x, y, cols, x.stride(0), BLOCK=4096, num_warps=8)
        return y
