"""Malformed on purpose: unbalanced parenthesis at line 9."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x
size = (4
dim = 16


def get_inputs():
    return [torch.randn(size, dim)]


def get_init_inputs():
    return []
