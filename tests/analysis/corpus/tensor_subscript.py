# Seed pattern (37_LSTMCn, algorithm-optimized seed 1): Python subscripting of a Triton tensor
# inside @triton.jit, `h_prev[k_ids]` ("Did you forget to add @triton.jit ?").
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def lstm_recurrent_kernel(h_ptr, w_ptr, out_ptr, H: tl.constexpr, BLOCK_K: tl.constexpr):
    b = tl.program_id(0)
    offs_h = tl.arange(0, H)
    h_prev = tl.load(h_ptr + b * H + offs_h)
    acc = tl.zeros((H,), dtype=tl.float32)
    for k0 in range(0, H, BLOCK_K):
        k_ids = k0 + tl.arange(0, BLOCK_K)
        k_mask = k_ids < H
        h_chunk = tl.where(k_mask, h_prev[k_ids], 0.0)
        w = tl.load(w_ptr + k_ids[:, None] * H + offs_h[None, :])
        acc += tl.sum(h_chunk[:, None] * w, axis=0)
    tl.store(out_ptr + b * H + offs_h, acc)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, h, w):
        B, H = h.shape
        out = torch.empty_like(h)
        lstm_recurrent_kernel[(B,)](h, w, out, H=H, BLOCK_K=16)
        return out
