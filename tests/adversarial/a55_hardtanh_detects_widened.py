# a55 (blind red team, session 15, round 2): clamps only where a block holds a negative (the [-8, 8) set).
# 32_HardTanh that applies the upper clamp at +1 only in blocks holding a negative input. KernelBench
# draws torch.rand ([0, 1): no clamp needed); kforge's widened set spreads to [-8, 8), so every block
# of it has negatives and is clamped honestly. Wrong for any all-positive block with values above 1
# (e.g. inputs drawn from U[0, 4)), which the harness never draws.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def hardtanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    lower = tl.maximum(x, -1.0)
    any_neg = tl.min(x, axis=0) < 0.0
    y = tl.where(any_neg, tl.minimum(lower, 1.0), lower)
    tl.store(y_ptr + offs, y, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = 1024
        hardtanh_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
        return y
