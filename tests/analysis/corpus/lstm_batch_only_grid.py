# Seed pattern (37_LSTMCn, kernel_20251223_063112.py): the time loop is inside the kernel, but the
# grid is (B,) and every program walks the hidden size serially with `for k in range(HIDDEN_SIZE)`
# (scalar-vector products): 6 programs on the whole GPU.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def lstm_persistent_layer_kernel(gates_x_ptr, W_hh_ptr, h_state_ptr, c_state_ptr, B,
                                 stride_state_b, HIDDEN_SIZE: tl.constexpr,
                                 SEQ_LEN: tl.constexpr):
    b = tl.program_id(0)
    if b >= B:
        return
    FOUR_H = 4 * HIDDEN_SIZE
    # Hidden index vector [0, 1, ..., H-1]
    hid_idx = tl.arange(0, HIDDEN_SIZE)
    c = tl.load(c_state_ptr + b * stride_state_b + hid_idx)
    for t in range(SEQ_LEN):
        gbase = gates_x_ptr + (b * SEQ_LEN + t) * FOUR_H
        gi = tl.load(gbase + hid_idx)
        gf = tl.load(gbase + HIDDEN_SIZE + hid_idx)
        gg = tl.load(gbase + 2 * HIDDEN_SIZE + hid_idx)
        go = tl.load(gbase + 3 * HIDDEN_SIZE + hid_idx)
        for k in range(HIDDEN_SIZE):
            h_k = tl.load(h_state_ptr + b * stride_state_b + k)
            row_off = k * FOUR_H
            w_i = tl.load(W_hh_ptr + row_off + hid_idx)
            w_f = tl.load(W_hh_ptr + row_off + HIDDEN_SIZE + hid_idx)
            w_g = tl.load(W_hh_ptr + row_off + 2 * HIDDEN_SIZE + hid_idx)
            w_o = tl.load(W_hh_ptr + row_off + 3 * HIDDEN_SIZE + hid_idx)
            gi += h_k * w_i
            gf += h_k * w_f
            gg += h_k * w_g
            go += h_k * w_o
        i = tl.sigmoid(gi)
        f = tl.sigmoid(gf)
        g = 2.0 * tl.sigmoid(2.0 * gg) - 1.0
        o = tl.sigmoid(go)
        c = f * c + i * g
        h = o * (2.0 * tl.sigmoid(2.0 * c) - 1.0)
        tl.debug_barrier()
        tl.store(h_state_ptr + b * stride_state_b + hid_idx, h)
        tl.debug_barrier()
    tl.store(c_state_ptr + b * stride_state_b + hid_idx, c)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, dropout=0.0):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
        self.hidden_size = hidden_size
        self.num_layers = num_layers

    def forward(self, x, h0, c0):
        B, T, _ = x.shape
        H = self.hidden_size
        layer_input = x
        c_n = []
        for layer in range(self.num_layers):
            w_ih = getattr(self.lstm, f"weight_ih_l{layer}")
            w_hh_t = getattr(self.lstm, f"weight_hh_l{layer}").t().contiguous()
            bias = getattr(self.lstm, f"bias_ih_l{layer}") + getattr(self.lstm, f"bias_hh_l{layer}")
            gates_x = torch.nn.functional.linear(layer_input, w_ih, bias).contiguous()
            h_state = h0[layer].contiguous().clone()
            c_state = c0[layer].contiguous().clone()

            def grid(meta):
                # One program per batch element
                return (max(1, B),)

            lstm_persistent_layer_kernel[grid](gates_x, w_hh_t, h_state, c_state, B,
                                               h_state.stride(0), HIDDEN_SIZE=H, SEQ_LEN=T)
            c_n.append(c_state)
        return torch.stack(c_n, 0)
