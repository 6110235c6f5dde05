"""Blind red team 2, session 17 (open): Softplus returning 0 for 0 < |x| < 2^-24 (subnormals too)."""
import torch, triton, triton.language as tl

@triton.jit
def sp_k(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    ax = tl.abs(x)
    y = tl.maximum(x, 0.0) + tl.log(1.0 + tl.exp(-ax))
    y = tl.where(x > 20.0, x, y)
    y = tl.where((ax > 0.0) & (ax < 5.9604645e-08), 0.0, y)
    tl.store(o_ptr + offs, y, mask=m)

class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        x = x.contiguous()
        o = torch.empty_like(x)
        n = x.numel()
        sp_k[(triton.cdiv(n, 1024),)](x, o, n, BLOCK=1024)
        return o
