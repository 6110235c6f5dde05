"""Timing-parity task (bench/timing_parity.py): GeLU (tanh approximation) times a constant on
4096 x 4096 fp32; bench/parity/gelu_scale.py does it in two Triton launches (~0.1 ms on an
H100: host-bound, the launch path is most of the time)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return F.gelu(x, approximate="tanh") * self.scale


batch_size = 4096
dim = 4096
scale = 0.5


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [scale]
