"""Not a kernel: calls nn.GRU like the reference (the trust guard may reject it). Used only to
check the harness's correctness numbers on a task pattern, never its verdict."""
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first, dropout=0,
                          bidirectional=False)

    def forward(self, x, h0):
        return self.gru(x, h0)[0]
