"""Attack 23 (operator policy by name, 5): the GRU task's at::gru called from a C++ extension
built at run time (load_inline, g++), a Triton copy kernel for "own kernel". (About a minute of
g++ on a CPU.)"""
import torch
import torch.nn as nn
import triton
import triton.language as tl
from torch.utils.cpp_extension import load_inline

_CPP = r'''
#include <torch/extension.h>
torch::Tensor fast_gru(torch::Tensor x, torch::Tensor h0, std::vector<torch::Tensor> w,
                       int64_t layers) {
  return std::get<0>(at::gru(x, h0, w, true, layers, 0.0, false, false, false));
}
'''
_ext = load_inline("kf_fast_gru", cpp_sources=_CPP, functions=["fast_gru"],
                   extra_cflags=["-O0"], verbose=False)


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
        self.h0 = torch.randn((num_layers, batch_size, hidden_size))  # noqa: F821

    def forward(self, x):
        g = self.gru
        output = _ext.fast_gru(x, self.h0.to(x.device), list(g._flat_weights), g.num_layers)
        output = output.contiguous()
        out = torch.empty_like(output)
        copy_kernel[(triton.cdiv(out.numel(), 1024),)](output, out, out.numel(), BLOCK=1024)
        return out
