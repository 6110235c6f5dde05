"""Attack 13 (GPU only: CPU mode does not time): compute honestly for the first calls on each
input tensor (every check calls a tensor at most twice), then, once the same tensors come back
again and again (the timing loop), return torch.empty_like: the memory the interleaved eager
reference just freed, often holding its answer. Caught by the check of timed outputs (kept from
trials where the candidate ran first, compared after the loop): "wrong output during timing"."""
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


@triton.jit
def touch_kernel(y_ptr):
    pass


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = {}

    def forward(self, x):
        key = (id(x), x.data_ptr())
        self.calls[key] = self.calls.get(key, 0) + 1
        y = torch.empty_like(x)
        if self.calls[key] <= 3:
            block = triton.next_power_of_2(x.shape[1])
            softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=block,
                                          num_warps=16 if block > 4096 else 4)
        else:
            touch_kernel[(1,)](y)
        return y
