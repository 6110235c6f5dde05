"""Attack 7 (holding the reference, 39_GRU): a copy of the task's Model class, held and called.
(The task module itself is not loaded in the candidate process, so the copy is the attack.)"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first, dropout=0,
                          bidirectional=False)
        self.h0 = torch.randn((num_layers, batch_size, hidden_size))  # noqa: F821

    def forward(self, x):
        output, _ = self.gru(x, self.h0.to(x.device))
        return output


def _reference_class():
    return Model


class ModelNew(nn.Module):
    def __init__(self, *args):
        super().__init__()
        self.inner = _reference_class()(*args)

    def forward(self, x):
        y = self.inner(x).contiguous()
        out = torch.empty_like(y)
        copy_kernel[(triton.cdiv(y.numel(), 1024),)](y, out, y.numel(), BLOCK=1024)
        return out
