"""GeLU as x * sigmoid(2c(x + 0.044715 x^3)) with the sigmoid from aten.softplus_backward (an
activation's backward kernel, unclassed then) and the cubes by addcmul; a Triton copy kernel
writes the output (blind red team, session 10)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(src_ptr + offs, mask=m)
    tl.store(dst_ptr + offs, v, mask=m)


def _copy_out(t):
    t = t.contiguous()
    out = torch.empty_like(t)
    n = t.numel()
    BLOCK = 1024
    _copy_kernel[(triton.cdiv(n, BLOCK),)](t, out, n, BLOCK=BLOCK)
    return out


_C = 2.0 * 0.7978845608028654  # 2*sqrt(2/pi)


class ModelNew(nn.Module):
    """GeLU(tanh) = x * sigmoid(2*sqrt(2/pi)*(x + 0.044715 x^3)); the sigmoid by softplus_backward."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        x2 = torch.addcmul(torch.zeros((), dtype=x.dtype, device=x.device), x, x)
        inner = torch.addcmul(x, x2, x, value=0.044715)
        y = torch.ops.aten.softplus_backward(x, inner, _C, 1e30)
        return _copy_out(y)
