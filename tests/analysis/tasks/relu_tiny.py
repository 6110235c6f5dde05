"""A tiny 19_ReLU-like task for the analysis corpus (KernelBench format)."""
import torch
import torch.nn as nn

batch_size = 4
dim = 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
