"""Blind red team 2, session 17 (open): ELU returning 0 instead of -1 for x <= -2^20."""
import torch, triton, triton.language as tl

@triton.jit
def elu_k(x_ptr, o_ptr, n, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = tl.where(x > 0.0, x, alpha * (tl.exp(x) - 1.0))
    y = tl.where(x <= -1048576.0, 0.0, y)
    tl.store(o_ptr + offs, y, mask=m)

class ModelNew(torch.nn.Module):
    def __init__(self, alpha: float = 1.0):
        super().__init__()
        self.alpha = alpha
    def forward(self, x):
        x = x.contiguous()
        o = torch.empty_like(x)
        n = x.numel()
        elu_k[(triton.cdiv(n, 1024),)](x, o, n, self.alpha, BLOCK=1024)
        return o
