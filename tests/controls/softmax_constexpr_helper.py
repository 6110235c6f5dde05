"""A legitimate softmax whose exponential is a @triton.jit helper passed to the kernel as a
constexpr (a common Triton idiom for activations): it must stay ok under the rule that refuses
plain Python functions passed so (a53_constexpr_function)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def exp_helper(x):
    return tl.exp(x)


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr, EXP: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    e = EXP(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        softmax_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0),
                                      BLOCK=triton.next_power_of_2(x.shape[1]), EXP=exp_helper)
        return y
