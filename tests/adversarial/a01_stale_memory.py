"""Attack 1: return torch.empty_like(x), hoping it is the memory the reference just freed, still
holding the reference's result (Sakana's 150x). A token kernel runs so it is not a pure rewrite."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def touch_kernel(y_ptr):
    pass


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        touch_kernel[(1,)](y)
        return y
