"""Attack 27 (inflated timing, GPU): forward returns an uninitialised tensor at once, and a
dispatch mode pushed at import computes the softmax when the harness copies that output into its
shared buffer, after the timing events. The events time nothing; the judge's wall clock sees the
work. The score must not credit the hidden work (rejected by the wall-clock cross-check, or a
wrong output if the copy is skipped)."""
from torch.utils._python_dispatch import TorchDispatchMode
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

_PENDING = {}


class _LateWork(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.ops.aten.copy_.default and len(args) >= 2:
            source = _PENDING.pop(args[1].data_ptr(), None)
            if source is not None:
                with _suspended():
                    return func(args[0], _softmax(source), **kwargs)
        return func(*args, **kwargs)


class _suspended:
    def __enter__(self):
        self.mode = torch.utils._python_dispatch._pop_mode()

    def __exit__(self, *exc):
        torch.utils._python_dispatch._push_mode(self.mode)


_LateWork().__enter__()


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        _PENDING[y.data_ptr()] = x
        return y
