import torch
import triton


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return (x + 1
