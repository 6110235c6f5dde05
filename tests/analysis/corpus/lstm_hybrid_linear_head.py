# Near-miss for replaced-operator (35_LSTM): the reference is nn.LSTM + an nn.Linear head. The
# candidate computes the recurrence in its own persistent kernel and keeps the input projection
# (F.linear over all steps) and the head (self.fc) as library GEMMs: the seeds' hybrid strategy.
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def lstm_owner_kernel(gx_ptr, w_ptr, h_ptr, c_ptr, out_ptr, T,
                      HIDDEN: tl.constexpr, BLOCK_K: tl.constexpr):
    b = tl.program_id(0)
    offs = tl.arange(0, HIDDEN)
    c = tl.load(c_ptr + b * HIDDEN + offs)
    for t in range(T):
        g = tl.load(gx_ptr + (b * T + t) * 4 * HIDDEN + offs[:, None] * 4 + tl.arange(0, 4)[None, :])
        for k0 in range(0, HIDDEN, BLOCK_K):
            ks = k0 + tl.arange(0, BLOCK_K)
            h_k = tl.load(h_ptr + b * HIDDEN + ks)
            w = tl.load(w_ptr + ks[:, None] * (4 * HIDDEN) + offs[None, :] * 4)
            g += tl.sum(h_k[:, None] * w, axis=0)[:, None]
        i = tl.sigmoid(tl.sum(g, axis=1))
        c = c * i
        tl.debug_barrier()
        tl.store(h_ptr + b * HIDDEN + offs, c)
        tl.store(out_ptr + (b * T + t) * HIDDEN + offs, c)
        tl.debug_barrier()


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, output_size, dropout=0.0):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, output_size)
        self.hidden_size = hidden_size

    def forward(self, x, h0, c0):
        B, T, _ = x.shape
        H = self.hidden_size
        gates_x = F.linear(x, self.lstm.weight_ih_l0, self.lstm.bias_ih_l0).contiguous()
        h = h0[0].contiguous().clone()
        c = c0[0].contiguous().clone()
        out = torch.empty(B, T, H, device=x.device, dtype=x.dtype)
        lstm_owner_kernel[(B,)](gates_x, self.lstm.weight_hh_l0.t().contiguous(), h, c, out, T,
                                HIDDEN=H, BLOCK_K=8)
        return self.fc(out[:, -1, :])
