# Near-miss for python-time-loop: a Python loop launching a kernel per chunk, in a task that is
# not recurrent (the loop variable's name alone does not make it a time loop).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(y_ptr + offsets, tl.maximum(tl.load(x_ptr + offsets, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty_like(x)
        rows = x.shape[0]
        for t in range(rows):
            relu_kernel[(1,)](x[t], y[t], x.shape[1], BLOCK_SIZE=64)
        return y
