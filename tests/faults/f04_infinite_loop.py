"""Fault: a Python loop that never ends."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def forward(self, x):
        while True:
            pass
