"""Malformed on purpose: get_inputs() fails (line 15)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x


dim = 16


def get_inputs():
    return [torch.randn(dim, undefined_size)]


def get_init_inputs():
    return []
