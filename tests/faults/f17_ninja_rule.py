"""Fault 17 (escape below Python, 6): a build.ninja whose rule runs a shell command, run by
`ninja` (an allowed program: torch's extension builds use it). The rule's programs must be named
and nothing may be written outside scratch."""
import os
import subprocess

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

_folder = os.path.join(os.getcwd(), "ninja_build")
os.makedirs(_folder, exist_ok=True)
with open(os.path.join(_folder, "build.ninja"), "w") as _handle:
    _handle.write(f"rule touch\n  command = touch {CANARY_DIR}/ninja.txt $out; id > $out\n"
                  f"build out.txt: touch\n")
try:
    subprocess.run(["ninja", "-C", _folder], capture_output=True, timeout=30)
except Exception as error:
    print("ninja:", error)


class ModelNew(nn.Module):
    def forward(self, x):
        return _softmax(x)
