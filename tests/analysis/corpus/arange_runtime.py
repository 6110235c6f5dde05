# Seed pattern (37_LSTMCn, algorithm-optimized seed 2): `tl.arange(0, H)` with H a run-time
# argument ("arange's arguments must be of type tl.constexpr").
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def lstm_cell_kernel(gates_ptr, c_ptr, out_ptr, H, stride_b):
    b = tl.program_id(0)
    hid_idx = tl.arange(0, H)
    g = tl.load(gates_ptr + b * stride_b + hid_idx)
    c = tl.load(c_ptr + b * H + hid_idx)
    tl.store(out_ptr + b * H + hid_idx, tl.sigmoid(g) * c)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, gates, c):
        out = torch.empty_like(c)
        B, H = c.shape
        lstm_cell_kernel[(B,)](gates, c, out, H, gates.stride(0))
        return out
