"""Attack 28 (content memo, timing): fingerprint the input by 16 sampled elements; on a repeat,
return the answer computed the first time (its own Triton kernel computes it honestly on a
miss). With three timing input sets rotated over ~100 timed calls it hit 97 times: `ok` at
0.0056 ms against the honest kernel's 3.4 ms on the CPU. Every timed call now runs on a fresh
input set: it never hits, and ends `ok` with the honest kernel's time."""
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


_MEMO = {}


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        flat = x.view(-1)
        step = max(1, flat.numel() // 16)
        key = tuple(flat[::step][:16].tolist())
        hit = _MEMO.get(key)
        if hit is not None:
            return hit
        y = torch.empty_like(x)
        block = triton.next_power_of_2(x.shape[1])
        softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=block)
        _MEMO[key] = y
        return y
