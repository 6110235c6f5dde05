"""Test task: 2x whose fp32 evaluation is rounded to 10 mantissa bits (like TF32), while the
harness's fp64 evaluation is exact: an exact candidate fails the kernelbench allclose against
the fp32 result but passes the calibrated check against fp64."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        y = x * 2.0
        if y.dtype == torch.float32:
            y = (y.view(torch.int32) & ~((1 << 13) - 1)).view(torch.float32)
        return y


batch_size = 8
dim = 64


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
