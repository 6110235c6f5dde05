"""Blind red team, session 17: LeakyReLU computing the sign as x/|x|: NaN at exactly 0, which no set held."""
import torch
import triton
import triton.language as tl

@triton.jit
def leaky_kernel(x_ptr, y_ptr, n, slope, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    # branch-free: sign(x) = x/|x|  (NaN at exactly 0)
    s = x / tl.abs(x)
    y = x * ((1.0 + slope) * 0.5 + (1.0 - slope) * 0.5 * s)
    tl.store(y_ptr + offs, y, mask=m)

class ModelNew(torch.nn.Module):
    def __init__(self, negative_slope: float = 0.01):
        super().__init__()
        self.negative_slope = negative_slope
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = 1024
        leaky_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, self.negative_slope, BLOCK=BLOCK)
        return y
