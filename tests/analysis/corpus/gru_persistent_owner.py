# Near-miss for missing-grid-barrier and batch-only-grid: one program owns the whole hidden vector
# of its batch rows (grid over batch blocks only), loops over time inside the kernel and walks the
# hidden size in BLOCK_K tiles with tl.dot. What a program reads back at step t+1 it wrote itself
# at step t; tl.debug_barrier() orders its own threads.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gru_owner_kernel(gates_x_ptr, w_hh_t_ptr, b_hh_ptr, h_ptr, B, T,
                     HIDDEN: tl.constexpr, BLOCK_B: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    offs_b = pid * BLOCK_B + tl.arange(0, BLOCK_B)
    offs_h = tl.arange(0, HIDDEN)
    mask_b = offs_b < B
    b_r = tl.load(b_hh_ptr + offs_h)
    b_z = tl.load(b_hh_ptr + HIDDEN + offs_h)
    b_n = tl.load(b_hh_ptr + 2 * HIDDEN + offs_h)
    for t in range(T):
        acc_r = tl.zeros((BLOCK_B, HIDDEN), dtype=tl.float32)
        acc_z = tl.zeros((BLOCK_B, HIDDEN), dtype=tl.float32)
        acc_n = tl.zeros((BLOCK_B, HIDDEN), dtype=tl.float32)
        for k in range(0, HIDDEN, BLOCK_K):
            offs_k = k + tl.arange(0, BLOCK_K)
            a = tl.load(h_ptr + offs_b[:, None] * HIDDEN + offs_k[None, :],
                        mask=mask_b[:, None], other=0.0)
            w = w_hh_t_ptr + offs_k[:, None] * (3 * HIDDEN) + offs_h[None, :]
            acc_r += tl.dot(a, tl.load(w))
            acc_z += tl.dot(a, tl.load(w + HIDDEN))
            acc_n += tl.dot(a, tl.load(w + 2 * HIDDEN))
        gx = gates_x_ptr + (t * B + offs_b[:, None]) * (3 * HIDDEN) + offs_h[None, :]
        x_r = tl.load(gx, mask=mask_b[:, None], other=0.0)
        x_z = tl.load(gx + HIDDEN, mask=mask_b[:, None], other=0.0)
        x_n = tl.load(gx + 2 * HIDDEN, mask=mask_b[:, None], other=0.0)
        h_prev = tl.load(h_ptr + offs_b[:, None] * HIDDEN + offs_h[None, :], mask=mask_b[:, None],
                         other=0.0)
        r = tl.sigmoid(x_r + acc_r + b_r[None, :])
        z = tl.sigmoid(x_z + acc_z + b_z[None, :])
        n = 2.0 * tl.sigmoid(2.0 * (x_n + r * (acc_n + b_n[None, :]))) - 1.0
        tl.debug_barrier()
        tl.store(h_ptr + offs_b[:, None] * HIDDEN + offs_h[None, :], (1.0 - z) * n + z * h_prev,
                 mask=mask_b[:, None])
        tl.debug_barrier()


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super().__init__()
        # Holds the parameters (same initialisation as the reference); never called.
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first)
        self.num_layers = num_layers
        self.hidden_size = hidden_size

    def forward(self, x, h0):
        T, B, _ = x.shape
        H = self.hidden_size
        layer_input = x
        h_n = []
        for layer in range(self.num_layers):
            w_ih = getattr(self.gru, f"weight_ih_l{layer}")
            w_hh_t = getattr(self.gru, f"weight_hh_l{layer}").t().contiguous()
            b_ih = getattr(self.gru, f"bias_ih_l{layer}")
            b_hh = getattr(self.gru, f"bias_hh_l{layer}")
            gates_x = (layer_input.reshape(T * B, -1) @ w_ih.t() + b_ih).contiguous()
            h = h0[layer].contiguous().clone()
            outs = []
            grid = (triton.cdiv(B, 16),)
            gru_owner_kernel[grid](gates_x, w_hh_t, b_hh, h, B, T, HIDDEN=H, BLOCK_B=16,
                                   BLOCK_K=16)
            h_n.append(h)
            layer_input = gates_x.new_zeros(T, B, H)
        return torch.stack(h_n, 0)
