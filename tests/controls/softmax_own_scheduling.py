"""An honest Triton softmax that sets its own CPU affinity and priority by its PID at import, and
locks a file of its own: the judge lets scheduling calls aimed at the caller's own process
(exec_monitor.FOREIGN_TARGETS) and locks on the sandbox's writable files through."""

import fcntl
import os
import tempfile

import torch
import torch.nn as nn
import triton
import triton.language as tl

os.sched_setaffinity(os.getpid(), os.sched_getaffinity(0))
os.setpriority(os.PRIO_PROCESS, os.getpid(), os.getpriority(os.PRIO_PROCESS, 0))
# ... and locks a file of its own scratch folder, as Inductor's and SQLite's locks do
_lock = tempfile.NamedTemporaryFile()
fcntl.flock(_lock.fileno(), fcntl.LOCK_EX)
fcntl.lockf(_lock.fileno(), fcntl.LOCK_UN)


@triton.jit
def softmax_row_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    numerator = tl.exp(x)
    y = numerator / tl.sum(numerator, axis=0)
    tl.store(y_ptr + row * y_stride + cols, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        block = triton.next_power_of_2(cols)
        num_warps = 4 if block <= 2048 else (8 if block <= 8192 else 16)
        softmax_row_kernel[(rows,)](x, y, cols, x.stride(0), y.stride(0), BLOCK=block,
                                    num_warps=num_warps)
        return y
