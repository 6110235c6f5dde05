"""Attack 35 (decoy): the softmax computed in NumPy, the own Triton kernel only copies the result (blind red team, session 6; docs/trust.md)."""
import numpy as np
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
        a = x.detach().contiguous().numpy().astype(np.float64)
        a = np.exp(a - a.max(axis=1, keepdims=True))
        a = (a / a.sum(axis=1, keepdims=True)).astype(np.float32)
        src = torch.from_numpy(a)
        y = torch.empty_like(x)
        n = y.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](src, y, n, BLOCK=1024)
        return y
