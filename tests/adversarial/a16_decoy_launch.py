"""Attack 16 (decoy): a no-op Triton launch, then the softmax computed from PyTorch's exp, max,
sum and div: the reference's computation by decomposition. A decoy launch is not a kernel."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _noop(x_ptr):
    pass


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        _noop[(1,)](x)
        e = torch.exp(x - x.max(dim=1, keepdim=True).values)
        return e / e.sum(dim=1, keepdim=True)
