"""Attack 25 (global side effects, issue 12, GRU): a correct Triton GRU that, at import, patches
torch.nn.GRU.forward to return zeros and overrides aten::gru.input through torch.library. In one
process the reference (an nn.GRU) would change; here it runs in the judge. The patch is named.
(Kernel: worker/tests/candidates/gru_triton.py.)"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

RETURN = "output"  # or "h_n" (tests derive a 40_GRUHidden variant from this file)


@triton.jit
def _sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))


@triton.jit
def gru_layer_kernel(x_ptr, wih_ptr, whh_ptr, bih_ptr, bhh_ptr, h0_ptr, out_ptr, T, B, I, H,
                     BLOCK_I: tl.constexpr, BLOCK_H: tl.constexpr):
    b = tl.program_id(0)
    rows = tl.arange(0, BLOCK_H)
    cols_h = tl.arange(0, BLOCK_H)
    cols_i = tl.arange(0, BLOCK_I)
    mask_r = rows < H
    mask_hh = mask_r[:, None] & (cols_h < H)[None, :]
    mask_ih = mask_r[:, None] & (cols_i < I)[None, :]
    ih = rows[:, None] * I + cols_i[None, :]
    hh = rows[:, None] * H + cols_h[None, :]
    w_ir = tl.load(wih_ptr + ih, mask=mask_ih, other=0.0)
    w_iz = tl.load(wih_ptr + H * I + ih, mask=mask_ih, other=0.0)
    w_in = tl.load(wih_ptr + 2 * H * I + ih, mask=mask_ih, other=0.0)
    w_hr = tl.load(whh_ptr + hh, mask=mask_hh, other=0.0)
    w_hz = tl.load(whh_ptr + H * H + hh, mask=mask_hh, other=0.0)
    w_hn = tl.load(whh_ptr + 2 * H * H + hh, mask=mask_hh, other=0.0)
    b_ir = tl.load(bih_ptr + rows, mask=mask_r, other=0.0)
    b_iz = tl.load(bih_ptr + H + rows, mask=mask_r, other=0.0)
    b_in = tl.load(bih_ptr + 2 * H + rows, mask=mask_r, other=0.0)
    b_hr = tl.load(bhh_ptr + rows, mask=mask_r, other=0.0)
    b_hz = tl.load(bhh_ptr + H + rows, mask=mask_r, other=0.0)
    b_hn = tl.load(bhh_ptr + 2 * H + rows, mask=mask_r, other=0.0)
    h = tl.load(h0_ptr + b * H + rows, mask=mask_r, other=0.0)
    for t in range(T):
        x = tl.load(x_ptr + (t * B + b) * I + cols_i, mask=cols_i < I, other=0.0)
        r = _sigmoid(tl.sum(w_ir * x[None, :], axis=1) + b_ir
                     + tl.sum(w_hr * h[None, :], axis=1) + b_hr)
        z = _sigmoid(tl.sum(w_iz * x[None, :], axis=1) + b_iz
                     + tl.sum(w_hz * h[None, :], axis=1) + b_hz)
        pre_n = tl.sum(w_in * x[None, :], axis=1) + b_in \
            + r * (tl.sum(w_hn * h[None, :], axis=1) + b_hn)
        n = 2.0 * _sigmoid(2.0 * pre_n) - 1.0
        h = (1.0 - z) * n + z * h
        tl.store(out_ptr + (t * B + b) * H + rows, h, mask=mask_r)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first, dropout=0,
                          bidirectional=False)
        self.h0 = torch.randn((num_layers, batch_size, hidden_size))

    def forward(self, x):
        self.h0 = self.h0.to(x.device)
        T, B, _ = x.shape
        H = self.gru.hidden_size
        layer_input = x.contiguous()
        finals = []
        for layer in range(self.gru.num_layers):
            w_ih = getattr(self.gru, f"weight_ih_l{layer}").contiguous()
            w_hh = getattr(self.gru, f"weight_hh_l{layer}").contiguous()
            b_ih = getattr(self.gru, f"bias_ih_l{layer}").contiguous()
            b_hh = getattr(self.gru, f"bias_hh_l{layer}").contiguous()
            I = layer_input.shape[2]
            out = torch.empty((T, B, H), device=x.device, dtype=x.dtype)
            gru_layer_kernel[(B,)](layer_input, w_ih, w_hh, b_ih, b_hh,
                                   self.h0[layer].contiguous(), out, T, B, I, H,
                                   BLOCK_I=triton.next_power_of_2(I),
                                   BLOCK_H=triton.next_power_of_2(H))
            finals.append(out[T - 1])
            layer_input = out
        return layer_input if RETURN == "output" else torch.stack(finals)


def _zeros_forward(self, x, hx=None):
    return torch.zeros(x.shape[0], x.shape[1], self.hidden_size), hx


torch.nn.GRU.forward = _zeros_forward
_LIBRARY = torch.library.Library("aten", "IMPL")
_LIBRARY.impl("gru.input", lambda *args: (torch.zeros(1), torch.zeros(1)), "CPU")
