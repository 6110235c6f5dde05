"""Fault 24 (signals and limits, 9): raise the recursion limit to a million and recurse through a
C function (map) at every level, so the C stack overflows before the limit: the candidate process
dies (SIGSEGV) or Python stops it (RecursionError); the worker must carry on."""
import sys
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
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


def _softmax(x):
    y = torch.empty_like(x)
    block = triton.next_power_of_2(x.shape[1])
    softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=block,
                                  num_warps=16 if block > 4096 else 4)
    return y


def _copy(y):
    y = y.contiguous()
    out = torch.empty_like(y)
    copy_kernel[(triton.cdiv(y.numel(), 1024),)](y, out, y.numel(), BLOCK=1024)
    return out


def _deep(n):
    return list(map(_deep, [n + 1]))


class ModelNew(nn.Module):
    def forward(self, x):
        sys.setrecursionlimit(10 ** 6)
        _deep(0)
        return _softmax(x)
