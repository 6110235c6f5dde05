"""Attack 29 (work outside the events, CPU and GPU): forward returns an uninitialised tensor at
once; a dispatch mode pushed at import computes the softmax when the harness copies that output
into its shared buffer, after the end event (a27's trick, run on the CPU too). The events time
nothing. Honest in the first six calls (the checked ones: five input sets and the alternative
shape), so that only the timing can catch it. On the CPU the hidden work (the interpreter's ~3 ms) was far inside the old host-clock
allowance (20 ms per call): `ok` with a fake speed-up. The calibrated cross-check sees it.
The hidden work is four softmaxes: one (2.5 ms under the interpreter on a fast CPU) sat barely
past the CPU's 2 ms scheduler margin (calibration.CPU_MARGIN_MS) and was charged 0.3 ms, so the
case tested the machine's speed, not the check (session 16)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
from torch.utils._python_dispatch import TorchDispatchMode


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


_PENDING = {}
_CALLS = [0]


class _LateWork(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.ops.aten.copy_.default and len(args) >= 2:
            source = _PENDING.pop(args[1].data_ptr(), None)
            if source is not None:
                # (the mode is off while its handler runs: the kernel's own ops pass by)
                for _ in range(3):
                    _softmax(source)
                return func(args[0], _softmax(source), **kwargs)
        return func(*args, **kwargs)


_LateWork().__enter__()


class ModelNew(nn.Module):
    def forward(self, x):
        _CALLS[0] += 1
        if _CALLS[0] <= 6:
            return _softmax(x)
        y = torch.empty_like(x)
        _PENDING[y.data_ptr()] = x
        return y
