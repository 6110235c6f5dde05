"""Blind red team 2, session 17 (open): ReLU returning 0 for x >= 2^20, the sprinkle's ceiling."""
import torch, triton, triton.language as tl

@triton.jit
def relu_k(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = tl.where(x > 0.0, x, 0.0)
    y = tl.where(x >= 1048576.0, 0.0, y)
    tl.store(o_ptr + offs, y, mask=m)

class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        x = x.contiguous()
        o = torch.empty_like(x)
        n = x.numel()
        relu_k[(triton.cdiv(n, 1024),)](x, o, n, BLOCK=1024)
        return o
