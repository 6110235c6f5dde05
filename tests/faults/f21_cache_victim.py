"""Second of the f21_cache_poison pair: a correct softmax unless it finds the previous
candidate's marker in any cache it can read, in which case it returns wrong values (so a leak
shows as wrong_output). It must end ok."""
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


def _poisoned():
    folders = [os.environ.get(n) for n in ("TRITON_CACHE_DIR", "TORCH_EXTENSIONS_DIR",
                                           "TORCHINDUCTOR_CACHE_DIR")]
    folders += [os.path.dirname(f) for f in folders if f]
    folders += [os.path.expanduser(p) for p in ("~/.triton/cache", "~/.cache/torch_extensions",
                                                "~/.cache/kforge/builds")] + ["/tmp", "/dev/shm"]
    return any(f and os.path.exists(os.path.join(f, MARK)) for f in folders)


_BAD = _poisoned()


class ModelNew(nn.Module):
    def forward(self, x):
        return _copy(x) if _BAD else _softmax(x)
