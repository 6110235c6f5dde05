"""Blind red team, session 17: ReLU turning NaN into 0 (torch.relu keeps NaN): inputs are never NaN."""
import torch
import triton
import triton.language as tl

@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    # NaN > 0 is False -> NaN becomes 0 (torch.relu keeps NaN); -inf/+inf fine
    y = tl.where(x > 0.0, x, 0.0)
    tl.store(y_ptr + offs, y, mask=m)

class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
