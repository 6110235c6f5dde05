"""Control (session 31): an honest softmax that runs its forward under a TorchDispatchMode and a
TorchFunctionMode of its own, asks torch for the current modes (its own, on top) and maps a
helper over its tensors with torch's tree_map. The harness's recorders are refused to a
candidate that asks torch's mode stacks for them (a76, a77); the candidate's own modes must stay
its own."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
from torch.overrides import TorchFunctionMode, _get_current_function_mode
from torch.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode
from torch.utils._pytree import tree_map


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    numerator = tl.exp(x)
    tl.store(y_ptr + row * stride + cols, numerator / tl.sum(numerator, axis=0), mask=mask)


class CountOps(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.seen = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen += 1
        return func(*args, **(kwargs or {}))


class CountCalls(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class ModelNew(nn.Module):
    def forward(self, x):
        with CountCalls() as calls, CountOps() as ops:
            assert _get_current_dispatch_mode() is ops
            assert _get_current_function_mode() is calls
            x = tree_map(lambda t: t.contiguous() if isinstance(t, torch.Tensor) else t, x)
            y = torch.empty_like(x)
            rows, cols = x.shape
            softmax_kernel[(rows,)](x, y, cols, x.stride(0), BLOCK=triton.next_power_of_2(cols))
        return y
