"""Attack 8 (mutation): use the input as scratch space (exp written back into x), saving an
allocation; the output is right, the caller's tensor is not."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_scratch_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(x_ptr + row * n_cols + cols, e, mask=mask)
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        softmax_scratch_kernel[(x.shape[0],)](x, y, x.shape[1],
                                              BLOCK=triton.next_power_of_2(x.shape[1]))
        return y
