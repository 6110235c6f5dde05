"""A corpus task (ours, KernelBench format): two outputs, relu(x[:, :64] - 100) (zero for any
normal draw) and softmax(0.5 x) over 2^20 columns (a67_zero_output_plant)."""
import torch
import torch.nn as nn

rows = 2
columns = 1 << 20


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x[:, :64] - 100.0), torch.softmax(0.5 * x, dim=1)


def get_inputs():
    return [torch.randn(rows, columns)]


def get_init_inputs():
    return []
