"""Attack 39 (decoy): GeLU in pure Python, reading the input through a ctypes.cast pointer (no
audit event) and writing each answer with `scratch[i] = v` (one PyTorch fill_ per element); the
own kernel only copies."""
import ctypes
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        src = ctypes.cast(x.data_ptr(), ctypes.POINTER(ctypes.c_float))
        scratch = torch.empty(n, dtype=x.dtype)
        for i in range(n):
            v = src[i]
            scratch[i] = 0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0)))
        y = torch.empty_like(x)
        copy_kernel[(triton.cdiv(n, 1024),)](scratch, y, n, BLOCK=1024)
        return y
