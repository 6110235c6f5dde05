"""Computes 2x in a Triton kernel, then keeps 6 mantissa bits: many times further off than the
test task's reference (10 bits)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def double_rounded_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    y = tl.load(x_ptr + offsets, mask=mask) * 2.0
    bits = y.to(tl.int32, bitcast=True) & -131072  # clear the low 17 of 23 mantissa bits
    tl.store(y_ptr + offsets, bits.to(tl.float32, bitcast=True), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        double_rounded_kernel[(triton.cdiv(x.numel(), 128),)](x, y, x.numel(), BLOCK=128)
        return y
