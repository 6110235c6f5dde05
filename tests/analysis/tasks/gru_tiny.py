"""A tiny 40_GRUHidden-like task for the analysis corpus (KernelBench format)."""
import torch
import torch.nn as nn

batch_size = 2
seq_len = 8
input_size = 8
hidden_size = 16
num_layers = 2


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first, dropout=0,
                          bidirectional=False)

    def forward(self, x, h0):
        output, h_n = self.gru(x, h0)
        return h_n


def get_inputs():
    return [torch.randn(seq_len, batch_size, input_size),
            torch.randn(num_layers, batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers]
