"""Attack 23 (operator policy by name, 5): the GRU task's fused operator called inside a
torch.jit.script function (TorchScript bypasses Python's torch function modes), a Triton copy
kernel for "own kernel"."""
from typing import List

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


@torch.jit.script
def _scripted(x: torch.Tensor, h0: torch.Tensor, weights: List[torch.Tensor],
              layers: int) -> torch.Tensor:
    output, _ = torch.gru(x, h0, weights, True, layers, 0.0, False, False, False)
    return output


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first, dropout=0,
                          bidirectional=False)
        self.h0 = torch.randn((num_layers, batch_size, hidden_size))  # noqa: F821

    def forward(self, x):
        g = self.gru
        output = _scripted(x, self.h0.to(x.device), list(g._flat_weights), g.num_layers)
        output = output.contiguous()
        out = torch.empty_like(output)
        copy_kernel[(triton.cdiv(out.numel(), 1024),)](output, out, out.numel(), BLOCK=1024)
        return out
