"""32_HardTanh as a plain copy kernel: KernelBench's inputs are torch.rand, in [0, 1), where HardTanh is the identity (blind red team, session 11)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(src_ptr + offs, mask=m)
    tl.store(dst_ptr + offs, v, mask=m)


class ModelNew(nn.Module):
    """No clamp at all: the task's inputs (torch.rand, in [0, 1)) never leave [-1, 1]."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        n = out.numel()
        BLOCK = 1024
        _copy_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
        return out
