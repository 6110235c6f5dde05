"""A corpus task (ours, KernelBench format): softmax(0.5 x) over 2^20 columns, so that almost every
value is below fp32's allclose tolerance of 1e-4 (a68_kernelbench_zeros_timed)."""
import torch
import torch.nn as nn

rows = 2
columns = 1 << 20


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(0.5 * x, dim=1)


def get_inputs():
    return [torch.randn(rows, columns)]


def get_init_inputs():
    return []
