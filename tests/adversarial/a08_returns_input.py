"""Attack 8 (returning the input): softmax in place, return x itself."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


def triton_softmax(x, y=None):
    x = x.contiguous()
    y = torch.empty_like(x) if y is None else y
    block = triton.next_power_of_2(x.shape[1])
    warps = 16 if block > 4096 else 4  # the GPU task's rows are 16384 long
    softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=block, num_warps=warps)
    return y


class ModelNew(nn.Module):
    def forward(self, x):
        return triton_softmax(x, x)
