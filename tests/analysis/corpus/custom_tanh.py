# Near-miss for missing-triton-api (41_GRUBidirectional, algorithm-optimized seed 2): a jit helper
# triton_tanh built from tl.exp and tl.where, and libdevice.tanh from the module that has it.
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def triton_tanh(x):
    # Numerically stable tanh implementation
    two = 2.0
    x2 = two * x
    e_neg = tl.exp(-x2)
    tanh_pos = (1.0 - e_neg) / (1.0 + e_neg)
    e_pos = tl.exp(x2)
    tanh_neg = (e_pos - 1.0) / (e_pos + 1.0)
    mask_pos = x >= 0
    return tl.where(mask_pos, tanh_pos, tanh_neg)


@triton.jit
def gates_kernel(gx_ptr, out_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    g = tl.load(gx_ptr + offs, mask=mask, other=0.0)
    y = triton_tanh(g) + libdevice.tanh(g) + tl.sigmoid(g)
    tl.store(out_ptr + offs, y.to(tl.float32), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, gx):
        out = torch.empty_like(gx)
        n = gx.numel()
        gates_kernel[(triton.cdiv(n, 128),)](gx, out, n, BLOCK=128)
        return out
