"""Attack 7 (holding the reference, 39_GRU): find the task's Model class in sys.modules, hold an
instance built from the same seed and call it."""
import sys

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


def _reference_class():
    for name, module in list(sys.modules.items()):
        if name.startswith("kforge_task") and hasattr(module, "Model"):
            return module.Model
    raise RuntimeError("no task module found")


class ModelNew(nn.Module):
    def __init__(self, *args):
        super().__init__()
        self.inner = _reference_class()(*args)

    def forward(self, x):
        y = self.inner(x).contiguous()
        out = torch.empty_like(y)
        copy_kernel[(triton.cdiv(y.numel(), 1024),)](y, out, y.numel(), BLOCK=1024)
        return out
