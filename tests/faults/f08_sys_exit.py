"""Fault: sys.exit in forward (a SystemExit the harness must not let through)."""
import sys

import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def forward(self, x):
        sys.exit(0)
