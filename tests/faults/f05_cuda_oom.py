"""Fault (GPU only): ask the device for 10 TB."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def forward(self, x):
        hoard = torch.empty(10 * 2 ** 40, dtype=torch.uint8, device=x.device)
        return hoard[: x.numel() * 4].view(torch.float32).view_as(x)
