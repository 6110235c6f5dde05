"""Test task: output = 1 + 1e-6 * x, whose variation across inputs is below every tolerance (the
elementwise one and the relative L2 bound alike), so only the constant-output check can tell a
candidate returning ones from a correct one."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return 1 + x * 1e-6


batch_size = 4
dim = 8


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
