"""Fault 21 (compiler caches, 6; first of a pair): plant a marker in every compiler cache this
process can write (Triton's, torch extensions', Inductor's, ~/.triton, ~/.cache), hoping the next
candidate (f21_cache_victim, another source) reads it. The victim must not see it."""
import os

MARK = "kforge-cache-poison-marker"
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

for _name in ("TRITON_CACHE_DIR", "TORCH_EXTENSIONS_DIR", "TORCHINDUCTOR_CACHE_DIR"):
    _folder = os.environ.get(_name)
    for _target in (_folder, os.path.dirname(_folder or "") or None):
        if _target:
            try:
                os.makedirs(_target, exist_ok=True)
                with open(os.path.join(_target, MARK), "w") as _handle:
                    _handle.write("poisoned")
            except OSError:
                pass
for _target in ("~/.triton/cache", "~/.cache/torch_extensions", "~/.cache/kforge/builds",
                "/tmp", "/dev/shm"):
    try:
        _path = os.path.expanduser(_target)
        os.makedirs(_path, exist_ok=True)
        with open(os.path.join(_path, MARK), "w") as _handle:
            _handle.write("poisoned")
    except OSError:
        pass


class ModelNew(nn.Module):
    def forward(self, x):
        return _softmax(x)
