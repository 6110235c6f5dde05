"""Broken on purpose: prints (must not reach the protocol stream), then raises (runtime_error)."""
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        print("debug: block size is", 128)
        raise ValueError("unsupported shape " + str(tuple(x.shape)))
