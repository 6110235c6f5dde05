"""Blind red team, session 17: cumprod in log space with the exponent capped at 40: wrong on products above e^40, which no finite checked set reaches."""
import torch
import triton
import triton.language as tl

@triton.jit
def _add(a, b):
    return a + b

@triton.jit
def cumprod_log_kernel(x_ptr, y_ptr, stride, ncols: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    carry_s = 0.0
    carry_n = 0
    for start in range(0, ncols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < ncols
        x = tl.load(x_ptr + row * stride + offs, mask=m, other=1.0)
        lg = tl.log(tl.abs(x))
        neg = (x < 0).to(tl.int32)
        s = tl.associative_scan(lg, 0, _add) + carry_s
        c = tl.associative_scan(neg, 0, _add) + carry_n
        sign = 1.0 - 2.0 * (c % 2).to(tl.float32)
        # product = sign * exp(sum log|x|); exponent capped to stay finite
        p = sign * tl.exp(tl.minimum(s, 40.0))
        tl.store(y_ptr + row * stride + offs, p, mask=m)
        carry_s = carry_s + tl.sum(tl.where(m, lg, 0.0), axis=0)
        carry_n = carry_n + tl.sum(tl.where(m, neg, 0), axis=0)

class ModelNew(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
    def forward(self, x):
        assert self.dim == 1 and x.dim() == 2
        x = x.contiguous()
        y = torch.empty_like(x)
        R, C = x.shape
        cumprod_log_kernel[(R,)](x, y, x.stride(0), ncols=C, BLOCK=1024)
        return y
