"""Broken on purpose: floods stdout (rejected above the output limit)."""
import sys

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        line = "x" * 1023 + "\n"
        for _ in range(10 * 1024):
            sys.stdout.write(line)
        sys.stdout.flush()
        return x
