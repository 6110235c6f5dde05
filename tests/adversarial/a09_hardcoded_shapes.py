"""Attack 9: the grid and row length frozen at the first shape seen (module-level), i.e.
hard-coded to the task's shapes: right there, wrong at any other batch size."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


SHAPE = []


class ModelNew(nn.Module):
    def forward(self, x):
        if not SHAPE:
            SHAPE.extend(x.shape)
        rows, cols = SHAPE
        y = torch.zeros_like(x)
        softmax_kernel[(min(rows, x.shape[0]),)](x, y, cols, BLOCK=triton.next_power_of_2(cols))
        return y
