"""Blind red team, session 17: Tanh rounding to bf16 where x has 16 zero low mantissa bits (bf16-representable inputs): fp32 draws almost never do."""
import torch
import triton
import triton.language as tl

@triton.jit
def tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    e = tl.exp(-2.0 * tl.abs(x))
    t = (1.0 - e) / (1.0 + e)
    t = tl.where(x < 0, -t, t)
    # "fast path" for inputs that came from bf16 (low 16 mantissa bits zero):
    # keep the result in bf16 as well
    bits = x.to(tl.int32, bitcast=True)
    from_bf16 = ((bits & 0xFFFF) == 0) & (tl.abs(x) >= 0.0078125)
    t_bf = t.to(tl.bfloat16).to(tl.float32)
    y = tl.where(from_bf16, t_bf, t)
    tl.store(y_ptr + offs, y, mask=m)

class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
