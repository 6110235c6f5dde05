"""KernelBench patterns the shrink policy used to break (docs/kernelbench.md): a 0-dim output
(a loss), a tuple constant repeating a size (`bias_shape`), and a dilated pooling window longer
than the shrunk sequence (the policy's seq 8 must back off to 32)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, bias_shape, kernel_size, dilation):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.pool = nn.MaxPool1d(kernel_size, stride=1, dilation=dilation)

    def forward(self, x, target):
        return torch.mean((self.pool(x + self.bias) - target) ** 2)


batch_size = 64
channels = 128
sequence_length = 4096
kernel_size = 8
dilation = 3
bias_shape = (channels, 1)


def get_inputs():
    out_length = sequence_length - dilation * (kernel_size - 1)
    return [torch.rand(batch_size, channels, sequence_length),
            torch.rand(batch_size, channels, out_length)]


def get_init_inputs():
    return [bias_shape, kernel_size, dilation]
