"""Test task in the other public KernelBench pattern: the initial state is an input of forward
(drawn by get_inputs with torch.rand), the module holds only the GRU."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super(Model, self).__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first, dropout=0,
                          bidirectional=False)

    def forward(self, x, h0):
        output, h_n = self.gru(x, h0)
        return output


batch_size = 3
seq_len = 512
input_size = 64
hidden_size = 128
num_layers = 6


def get_inputs():
    return [torch.rand(seq_len, batch_size, input_size),
            torch.rand((num_layers, batch_size, hidden_size))]


def get_init_inputs():
    return [input_size, hidden_size, num_layers]
