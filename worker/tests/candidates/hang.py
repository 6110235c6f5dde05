"""Broken on purpose: never returns (timeout)."""
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        while True:
            pass
