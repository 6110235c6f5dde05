"""Attack 7 (holding nn.GRU, 39_GRU): the same parameters as the reference (allowed) and a call
of the module (not allowed), plus a token copy kernel."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first, dropout=0,
                          bidirectional=False)
        # batch_size: the task's shape constant, set as a global of this module by the harness
        self.h0 = torch.randn((num_layers, batch_size, hidden_size))  # noqa: F821

    def forward(self, x):
        output, _ = self.gru(x, self.h0.to(x.device))
        output = output.contiguous()
        out = torch.empty_like(output)
        copy_kernel[(triton.cdiv(out.numel(), 1024),)](output, out, out.numel(), BLOCK=1024)
        return out
