"""Attack 18 (TorchScript): the softmax inside a torch.jit.script function, which a
Python-level torch function mode does not see."""
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


@torch.jit.script
def _scripted(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, 1)


class ModelNew(nn.Module):
    def forward(self, x):
        return _copy(_scripted(x))
