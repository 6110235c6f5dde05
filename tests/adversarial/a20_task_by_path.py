"""Attack 20 (changing the task, 2): import the task file itself by path from disk (found beside
the worker on sys.path), rebind its Model.forward to return its input and register it in
sys.modules under every plausible name; the candidate returns its input through a copy kernel.
Only the candidate's own copy of the task changes: the judge's reference is another process's."""
import importlib.util
import os
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


def _identity(self, *args):
    return args[0]


for _root in list(sys.path) + [os.getcwd()]:
    for _up in (_root, os.path.dirname(_root), os.path.dirname(os.path.dirname(_root))):
        _path = os.path.join(_up, "tasks", "softmax.py")
        if os.path.isfile(_path):
            _spec = importlib.util.spec_from_file_location("softmax", _path)
            _task = importlib.util.module_from_spec(_spec)
            _spec.loader.exec_module(_task)
            _task.Model.forward = _identity
            for _name in ("softmax", "tasks.softmax", "task", "kforge_task"):
                sys.modules[_name] = _task


class ModelNew(nn.Module):
    def forward(self, x):
        return _copy(x)
