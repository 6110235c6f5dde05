"""Fault (blind red team, session 22): a thread refused at import (caught: the import replies at
once), then a hang in the third forward, with no new refusal. The refusal is charged whatever
follows; the judge stops waiting 5 s into the hanging request instead of running to the limit."""
import threading
import time

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_row_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    numerator = tl.exp(x)
    y = numerator / tl.sum(numerator, axis=0)
    tl.store(y_ptr + row * y_stride + cols, y, mask=mask)


try:
    threading.Thread(target=lambda: None).start()
except RuntimeError:
    pass  # refused: carry on as if nothing happened

CALLS = [0]


class ModelNew(nn.Module):
    def forward(self, x):
        CALLS[0] += 1
        if CALLS[0] == 3:
            while True:
                time.sleep(0.05)
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        softmax_row_kernel[(rows,)](x, y, cols, x.stride(0), y.stride(0),
                                    BLOCK=triton.next_power_of_2(cols))
        return y
