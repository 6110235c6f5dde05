"""Level 3, 37_LSTMCn: 6-layer LSTM (batch_first), returns the final cell state c_n;
h0/c0 are inputs."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, output_size, dropout=0.0):
        super().__init__()
        # Built as the public KernelBench file builds it: the LSTM, then the linear head, and
        # no other random draw; h0/c0 are inputs.
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True,
                            dropout=dropout, bidirectional=False)
        self.fc = nn.Linear(hidden_size, output_size)

    def forward(self, x, h0, c0):
        out, state = self.lstm(x, (h0, c0))
        out = self.fc(out[:, -1, :])  # computed and dropped, as in the public file
        return state[1]


batch_size = 10
sequence_length = 512
input_size = 128
hidden_size = 256
num_layers = 6
output_size = 10
dropout = 0.0


def get_inputs():
    state = (num_layers, batch_size, hidden_size)
    return [torch.rand(batch_size, sequence_length, input_size), torch.rand(state),
            torch.rand(state)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers, output_size, dropout]
