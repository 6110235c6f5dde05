# replaced-operator: the candidate calls the operator it is meant to replace (nn.GRU through the
# module, and torch._VF.gru) and launches a token kernel to look custom.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first)

    def forward(self, x, h0):
        _, h_n = self.gru(x, h0)
        if not h_n.is_contiguous():
            _, h_n = torch._VF.gru(x, h0, list(self.gru._flat_weights), True, 2, 0.0, False,
                                   False, False)
        out = torch.empty_like(h_n)
        n = h_n.numel()
        copy_kernel[(triton.cdiv(n, 256),)](h_n, out, n, BLOCK=256)
        return out
