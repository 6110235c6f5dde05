"""Attack 18 (alias): torch.special.softmax."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


def _copy(y):
    y = y.contiguous()
    out = torch.empty_like(y)
    copy_kernel[(triton.cdiv(y.numel(), 1024),)](y, out, y.numel(), BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def forward(self, x):
        return _copy(torch.special.softmax(x, dim=1))
