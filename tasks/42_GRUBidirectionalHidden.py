"""Level 3, 42_GRUBidirectionalHidden: 6-layer bidirectional GRU (sequence first), returns
the final hidden state h_n."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first, dropout=0,
                          bidirectional=True)
        # Drawn once from the global RNG with the module-level batch_size (as the public files).
        self.h0 = torch.randn((num_layers * 2, batch_size, hidden_size))

    def forward(self, x):
        self.h0 = self.h0.to(x.device)
        output, h_n = self.gru(x, self.h0)
        return h_n


batch_size = 10
seq_len = 512
input_size = 128
hidden_size = 256
num_layers = 6


def get_inputs():
    return [torch.randn(seq_len, batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers]
