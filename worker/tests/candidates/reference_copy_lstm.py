"""Not a kernel: the reference's own computation, random initial states drawn in forward
included (the trust guard may reject it). Used only to check the harness's correctness numbers."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, output_size, dropout=0.0):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True,
                            dropout=dropout, bidirectional=False)
        self.fc = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        batch = x.size(0)
        h0 = torch.randn(self.num_layers, batch, self.hidden_size, device=x.device, dtype=x.dtype)
        c0 = torch.randn(self.num_layers, batch, self.hidden_size, device=x.device, dtype=x.dtype)
        out, _ = self.lstm(x, (h0, c0))
        return self.fc(out[:, -1, :])
