"""Attack 7 (torch._VF.gru, 39_GRU): hold nn.GRU only for its parameters (allowed) but call the
fused operator underneath the module directly."""
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
        g = self.gru
        output, _ = torch._VF.gru(x, self.h0.to(x.device), g._flat_weights, g.bias, g.num_layers,
                                  0.0, False, False, g.batch_first)
        output = output.contiguous()
        out = torch.empty_like(output)
        copy_kernel[(triton.cdiv(out.numel(), 1024),)](output, out, out.numel(), BLOCK=1024)
        return out
