"""Attack 15 (baselines, more variants): at import, push a torch function mode that sleeps in every
call, a dispatch mode left on the stack, and a torch.library override of aten::_softmax that
returns zeros. In a shared process they would change the reference (or its timing); in the
judge/candidate split they reach only the candidate's own process, which uses its own kernel:
the honest verdict is ok, with the modes in the side effects."""
import time

import torch
import torch.nn as nn
import triton
import triton.language as tl
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode


class _Slow(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        time.sleep(0.0001)
        return func(*args, **(kwargs or {}))


class _Quiet(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


_LIBRARY = torch.library.Library("aten", "IMPL")
_LIBRARY.impl("_softmax", lambda x, dim, half: torch.zeros_like(x), "CPU")
_Slow().__enter__()
_Quiet().__enter__()


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        block = triton.next_power_of_2(x.shape[1])
        softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=block,
                                      num_warps=16 if block > 4096 else 4)
        return y
