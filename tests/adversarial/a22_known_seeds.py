"""Attack 22 (known seeds, 4): load the task from disk, predict the input seeds (the old harness
used 1001, 1002, ...; try a range and torch's default), run get_inputs() at import for each under
the shapes the judge announces, compute the answers with PyTorch, and serve them by a key of the
input's bytes; unknown inputs get the input back. Seeds are fresh from the OS: every set misses."""
import hashlib
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

_ANSWERS = {}


def _key(x):
    return hashlib.sha1(x.detach().cpu().contiguous().numpy().tobytes()).hexdigest()


def _prepare(shapes):
    for root in list(sys.path):
        for up in (root, os.path.dirname(root)):
            path = os.path.join(up, "tasks", "softmax.py")
            if os.path.isfile(path):
                spec = importlib.util.spec_from_file_location("kf_task", path)
                task = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(task)
                for name, value in shapes.items():
                    setattr(task, name, value)
                for seed in list(range(990, 1030)) + [0, 42, 424242, 1000]:
                    torch.manual_seed(seed)
                    (x,) = task.get_inputs()
                    _ANSWERS[_key(x)] = torch.softmax(x, dim=1)
                return


class ModelNew(nn.Module):
    def forward(self, x):
        if not _ANSWERS:
            module = sys.modules[type(self).__module__]
            _prepare({name: getattr(module, name) for name in ("batch_size", "dim")
                      if isinstance(getattr(module, name, None), int)})
        hit = _ANSWERS.get(_key(x))
        return _copy(hit if hit is not None else x)
