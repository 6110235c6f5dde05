"""Test task that cannot run in float64: forward builds a float32 matrix whatever the input's
dtype, and a float64 input cannot be multiplied by it."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x @ torch.eye(x.shape[1], dtype=torch.float32)


batch_size = 4
dim = 8


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
