"""Test task: get_inputs() goes through NumPy (`.numpy()` of a torch tensor), which fails when
torch's factory functions allocate on another device (`with torch.device(...)`): the worker must
fall back to drawing this task's inputs on the CPU. It draws from NumPy's generator before it
fails, so the CPU draw must be reseeded. `calls` counts get_inputs() calls."""
import numpy
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x * 2


batch_size = 4
dim = 8
calls = 0


def get_inputs():
    global calls
    calls += 1
    scale = numpy.random.rand()
    base = torch.randn(batch_size, dim).numpy()
    return [torch.from_numpy(base * scale)]


def get_init_inputs():
    return []
