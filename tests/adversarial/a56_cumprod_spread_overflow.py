"""Blind red team, session 16 (open: docs/trust.md): 90_cumprod with 1024 columns: both spread sets
overflow the fp32 reference and plain [0, 1) sets are drawn silently; this cumprod of min(|x|,
1) is wrong below 0 and above 1. Ends ok."""
import torch, triton, triton.language as tl

@triton.jit
def _mul(a, b):
    return a * b

@triton.jit
def cumprod_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(x_ptr + row * N + offs, mask=m, other=1.0)
    # WRONG outside [0,1): uses |x| clamped to 1
    x = tl.minimum(tl.abs(x), 1.0)
    y = tl.associative_scan(x, 0, _mul)
    tl.store(y_ptr + row * N + offs, y, mask=m)

class ModelNew(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
    def forward(self, x):
        x = x.contiguous()
        assert self.dim == 1 and x.dim() == 2
        B, N = x.shape
        y = torch.empty_like(x)
        cumprod_kernel[(B,)](x, y, N, BLOCK=triton.next_power_of_2(N))
        return y
