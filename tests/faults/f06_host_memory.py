"""Fault: host memory blow-up, 256 MB at a time (touched, so it is resident). Stops by itself at
12 GB so that a broken memory watch fails this test instead of the machine."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def forward(self, x):
        hoard = []
        for _ in range(48):
            hoard.append(torch.ones(64 * 2 ** 20))
        return x * 0
