"""Test task in a third public KernelBench pattern: the initial states are drawn with
torch.randn inside forward, so the output depends on the RNG state when forward is called."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, output_size, dropout=0.0):
        super(Model, self).__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True,
                            dropout=dropout, bidirectional=False)
        self.fc = nn.Linear(hidden_size, output_size)

    def forward(self, x, h0=None, c0=None):
        batch = x.size(0)
        if h0 is None:
            h0 = torch.randn(self.num_layers, batch, self.hidden_size, device=x.device,
                             dtype=x.dtype)
        if c0 is None:
            c0 = torch.randn(self.num_layers, batch, self.hidden_size, device=x.device,
                             dtype=x.dtype)
        out, _ = self.lstm(x, (h0, c0))
        return self.fc(out[:, -1, :])


batch_size = 10
sequence_length = 512
input_size = 128
hidden_size = 256
num_layers = 6
output_size = 10
dropout = 0.0


def get_inputs():
    return [torch.rand(batch_size, sequence_length, input_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers, output_size, dropout]
