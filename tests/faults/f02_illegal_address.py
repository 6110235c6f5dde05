"""Fault (GPU only): a Triton store far outside any allocation (illegal memory access; the CUDA
context is poisoned for the rest of the process)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def wild_store_kernel(y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    far = offsets.to(tl.int64) + (1 << 40)
    tl.store(y_ptr + far, tl.zeros((BLOCK,), tl.float32), mask=offsets < n)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        wild_store_kernel[(triton.cdiv(y.numel(), 1024),)](y, y.numel(), BLOCK=1024)
        torch.cuda.synchronize()
        return y
