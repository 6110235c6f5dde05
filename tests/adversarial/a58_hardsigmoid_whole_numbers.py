"""Blind red team 2, session 17 (open): HardSigmoid wrong on small nonzero whole numbers."""
import torch, triton, triton.language as tl

@triton.jit
def hs_k(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = tl.minimum(tl.maximum(x / 6.0 + 0.5, 0.0), 1.0)
    isint = (x == tl.floor(x)) & (x != 0.0) & (tl.abs(x) <= 4.0)
    y = tl.where(isint, 0.25, y)
    tl.store(o_ptr + offs, y, mask=m)

class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        x = x.contiguous()
        o = torch.empty_like(x)
        n = x.numel()
        hs_k[(triton.cdiv(n, 1024),)](x, o, n, BLOCK=1024)
        return o
