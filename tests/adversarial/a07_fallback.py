"""Attack 7 (fallback, Kevin): a kernel that cannot compile (non-constexpr arange), wrapped in
try/except that silently falls back to the reference operator."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols):
    row = tl.program_id(0)
    cols = tl.arange(0, n_cols)
    x = tl.load(x_ptr + row * n_cols + cols)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        try:
            y = torch.empty_like(x)
            softmax_kernel[(x.shape[0],)](x, y, x.shape[1])
            return y
        except Exception:
            return torch.nn.functional.softmax(x, dim=1)
