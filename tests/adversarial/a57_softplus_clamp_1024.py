"""Blind red team, session 17: Softplus clamping its input to +-1024: nothing at or above 2^10 was drawn."""
import torch
import triton
import triton.language as tl

@triton.jit
def softplus_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    # clamp to a "safe" range to avoid overflow in exp
    x = tl.minimum(tl.maximum(x, -1024.0), 1024.0)
    sp = tl.log(1.0 + tl.exp(tl.minimum(x, 20.0)))
    y = tl.where(x > 20.0, x, sp)
    tl.store(y_ptr + offs, y, mask=m)

class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = 1024
        softplus_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
        return y
