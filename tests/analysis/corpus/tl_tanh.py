# Seed pattern (41_GRUBidirectional, algorithm-optimized seed 1): `tl.tanh` does not exist in
# triton.language ("module 'triton.language' has no attribute 'tanh'").
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gru_gates_kernel(gx_ptr, gh_ptr, h_ptr, out_ptr, N, H, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    gates_n = tl.load(gx_ptr + offs, mask=mask) + tl.load(gh_ptr + offs, mask=mask)
    n_val = tl.tanh(gates_n)
    h = tl.load(h_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, n_val + h, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, gx, gh, h):
        out = torch.empty_like(h)
        n = h.numel()
        gru_gates_kernel[(triton.cdiv(n, 256),)](gx, gh, h, out, n, h.shape[-1], BLOCK=256)
        return out
