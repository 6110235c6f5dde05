# a54 (blind red team, session 15): HardSigmoid as x/6 + 0.5 with no clamps; the widened set once stopped at +-2.
# 28_HardSigmoid as x/6 + 1/2 with no clamp: exact wherever |x| < 3. KernelBench draws
# torch.rand ([0, 1)) and kforge's widened set spreads it to [-2, 2): both inside the linear
# part, so the missing clamp (wrong for every |x| > 3) is never exercised.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def hs_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = x * (1.0 / 6.0) + 0.5
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = 1024
        hs_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
        return y
