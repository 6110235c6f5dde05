"""Fault (GPU only): a kernel that spins on a flag nobody ever writes (never ends)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def spin_kernel(flag_ptr, y_ptr):
    value = tl.load(flag_ptr, volatile=True)
    while value == 0:
        value = tl.load(flag_ptr, volatile=True)
    tl.store(y_ptr, value.to(tl.float32))


class ModelNew(nn.Module):
    def forward(self, x):
        flag = torch.zeros(1, dtype=torch.int32, device=x.device)
        y = torch.empty_like(x)
        spin_kernel[(1,)](flag, y)
        torch.cuda.synchronize()
        return y
