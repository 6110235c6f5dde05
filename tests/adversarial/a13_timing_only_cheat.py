"""Attack 13 (checks first, timing later): compute honestly for the first calls of the process
(the correctness checks and the alternative shape come first), then return torch.empty_like
with only a token launch: memory that may still hold an earlier answer. Every timed output is
checked by the judge: "wrong output during timing". On the CPU it needs time_on_cpu (the
timing path with host clocks)."""
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
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        y = torch.empty_like(x)
        if self.calls <= 6:  # 5 checked input sets and the alternative shape
            block = triton.next_power_of_2(x.shape[1])
            softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=block,
                                          num_warps=16 if block > 4096 else 4)
        else:
            touch_kernel[(1,)](y)
        return y
