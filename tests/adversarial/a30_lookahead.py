"""Attack 30 (look-ahead, timing, CPU): a timed block's input sets are all written into their
shared buffers before the block starts. On its first call of a block the candidate maps every
shared buffer of its process (the memfds among its own descriptors: no frame, gc or module
walk for the in-process guard to see), runs its kernel on each, and memoises the answers by
content; the block's other calls return them at once. Scored by the median trial, one slow
call and nine free ones read as a 10x speed-up; scored by the block's mean, the work is all
inside the block's events and the time is honest: `ok` with the honest kernel's time."""
import mmap
import os

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


def _softmax(x):
    y = torch.empty_like(x)
    block = triton.next_power_of_2(x.shape[1])
    softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=block,
                                  num_warps=16 if block > 4096 else 4)
    return y


_MEMO = {}
_MAPS = {}


def _shared_tensors(nbytes, dtype, shape):
    """Every memfd of this process as large as the input: the block's other inputs among them."""
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            if "kforge-shared" not in os.readlink(f"/proc/self/fd/{name}"):
                continue
            if os.fstat(int(name)).st_size < nbytes:
                continue
            if name not in _MAPS:
                _MAPS[name] = mmap.mmap(int(name), nbytes)
            found.append(torch.frombuffer(_MAPS[name], dtype=torch.uint8, count=nbytes)
                         .view(dtype).view(shape))
        except (OSError, ValueError):
            continue
    return found


class ModelNew(nn.Module):
    def forward(self, x):
        key = bytes(x.contiguous().view(torch.uint8).reshape(-1).numpy())
        hit = _MEMO.get(key)
        if hit is not None:
            return hit
        if x.device.type == "cpu":  # look ahead: every shared buffer of the input's size
            nbytes = x.numel() * x.element_size()
            for other in _shared_tensors(nbytes, x.dtype, x.shape):
                other = other.clone()
                _MEMO[bytes(other.view(torch.uint8).reshape(-1).numpy())] = _softmax(other)
        return _MEMO.get(key, None) if key in _MEMO else _softmax(x)
