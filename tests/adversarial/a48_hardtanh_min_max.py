"""32_HardTanh as two torch.where in PyTorch, 2 passes of arithmetic under the 8x limit; a Triton copy kernel writes it (blind red team, session 11)."""
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
    def __init__(self):
        super().__init__()

    def forward(self, x):
        # hardtanh(x, -1, 1) by PyTorch arithmetic: x - relu-free clipping via where
        y = torch.where(x > 1.0, 1.0, torch.where(x < -1.0, -1.0, x))
        out = torch.empty_like(x)
        n = out.numel()
        BLOCK = 1024
        _copy_kernel[(triton.cdiv(n, BLOCK),)](y, out, n, BLOCK=BLOCK)
        return out
