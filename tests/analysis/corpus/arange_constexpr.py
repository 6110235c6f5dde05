# Near-miss for non-constexpr-arange and tensor-subscript: arange bounds that are constexpr
# parameters or computed from them, a static_range loop variable, layout subscripts
# (x[:, None], x[None, :]) and a shape subscript.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rowwise_kernel(x_ptr, out_ptr, n_rows, HIDDEN_SIZE: tl.constexpr, ROWS: tl.constexpr):
    pid = tl.program_id(0)
    WIDE = HIDDEN_SIZE * 2
    cols = tl.arange(0, WIDE) // 2
    rows = pid * ROWS + tl.arange(0, ROWS)
    mask = rows[:, None] < n_rows
    x = tl.load(x_ptr + rows[:, None] * HIDDEN_SIZE + cols[None, :], mask=mask, other=0.0)
    n_cols = x.shape[1]
    for i in tl.static_range(2):
        part = tl.arange(i * HIDDEN_SIZE, (i + 1) * HIDDEN_SIZE)
        x = x + part[None, :] * 0.0
    tl.store(out_ptr + rows[:, None] * n_cols + tl.arange(0, WIDE)[None, :], x, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n_rows, hidden = x.shape
        out = torch.empty(n_rows, 2 * hidden, device=x.device, dtype=x.dtype)
        rowwise_kernel[(triton.cdiv(n_rows, 4),)](x, out, n_rows, HIDDEN_SIZE=hidden, ROWS=4)
        return out
