"""Test task: get_inputs() returns a torch.randn tensor (drawn on the device under
`with torch.device(...)`), a tensor made from NumPy (still on the CPU there) and a plain int."""
import numpy
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, offsets, scale):
        return x * scale + offsets


batch_size = 4
dim = 8


def get_inputs():
    return [torch.randn(batch_size, dim), torch.from_numpy(numpy.arange(dim, dtype=numpy.float32)),
            3]


def get_init_inputs():
    return []
