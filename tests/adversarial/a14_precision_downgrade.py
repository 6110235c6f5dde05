"""Attack 14 (precision downgrade, Wafer's list): read the input as bfloat16 and store bfloat16
results (half the memory traffic on a GPU); softmax outputs are small, so the hope is that the
absolute tolerance does not notice."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_bf16_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    x = x.to(tl.bfloat16).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    y = (e / tl.sum(e, axis=0)).to(tl.bfloat16).to(tl.float32)
    tl.store(y_ptr + row * n_cols + cols, y, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        block = triton.next_power_of_2(x.shape[1])
        warps = 16 if block > 4096 else 4  # the GPU task's rows are 16384 long
        softmax_bf16_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=block, num_warps=warps)
        return y
