"""Broken on purpose: its error text holds a lone surrogate, which JSON can carry only as an escape
that strict parsers refuse (runtime_error, the text kept with U+FFFD in its place)."""
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        raise ValueError("bad byte \ud800 here")
