"""The reference of tasks/scalar_loss_window.py as its own candidate: it calls the reference's
operators, so the verdict is rejected; the test checks the shapes and the comparison."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, bias_shape, kernel_size, dilation):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.pool = nn.MaxPool1d(kernel_size, stride=1, dilation=dilation)

    def forward(self, x, target):
        return torch.mean((self.pool(x + self.bias) - target) ** 2)
