"""Fault 19 (escape below Python, 6): file system objects outside scratch without open():
os.mkfifo, os.mknod, sqlite3.connect, each aimed at the canary directory. None may appear, and
the attempts must be named."""
import os
import sqlite3
import stat

CANARY_DIR = "__KFORGE_CANARY_DIR__"
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

for _attempt in (lambda: os.mkfifo(f"{CANARY_DIR}/fifo"),
                 lambda: os.mknod(f"{CANARY_DIR}/node", stat.S_IFREG | 0o644),
                 lambda: sqlite3.connect(f"{CANARY_DIR}/db.sqlite").execute(
                     "create table t (x)")):
    try:
        _attempt()
    except Exception as error:
        print("refused:", error)


class ModelNew(nn.Module):
    def forward(self, x):
        return _softmax(x)
