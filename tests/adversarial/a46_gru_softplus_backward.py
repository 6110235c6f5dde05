"""The whole GRU in PyTorch: F.linear for every product, the gate sigmoids and tanh from
aten.softplus_backward, so no transcendental is dispatched; a Triton copy kernel writes the output
(blind red team, session 10)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(src_ptr + offs, mask=m)
    tl.store(dst_ptr + offs, v, mask=m)


def _copy_out(t):
    t = t.contiguous()
    out = torch.empty_like(t)
    n = t.numel()
    BLOCK = 1024
    _copy_kernel[(triton.cdiv(n, BLOCK),)](t, out, n, BLOCK=BLOCK)
    return out


def _sig(t):
    # sigmoid(t) = softplus_backward(1, t, beta=1, threshold=20)
    return torch.ops.aten.softplus_backward(torch.ones_like(t), t, 1.0, 20.0)


def _tanh(t):
    # tanh(t) = 2*sigmoid(2t) - 1
    return torch.ops.aten.softplus_backward(torch.full_like(t, 2.0), t, 2.0, 20.0) - 1.0


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first, dropout=0,
                          bidirectional=False)
        self.num_layers = num_layers
        self.hidden_size = hidden_size
        self.batch_first = batch_first
        # the reference draws h0 next from the global RNG; keep that state to draw it at forward
        self._rng = torch.get_rng_state()
        self._h0 = None

    def _get_h0(self, batch):
        if self._h0 is None or self._h0.shape[1] != batch:
            g = torch.Generator()
            g.set_state(self._rng)
            self._h0 = torch.randn((self.num_layers, batch, self.hidden_size), generator=g)
        return self._h0

    def forward(self, x):
        if self.batch_first:
            x = x.transpose(0, 1)
        T, B, _ = x.shape
        H = self.hidden_size
        h0 = self._get_h0(B).to(x.device)
        inp = x
        for l in range(self.num_layers):
            w_ih = getattr(self.gru, f"weight_ih_l{l}")
            w_hh = getattr(self.gru, f"weight_hh_l{l}")
            b_ih = getattr(self.gru, f"bias_ih_l{l}", None)
            b_hh = getattr(self.gru, f"bias_hh_l{l}", None)
            gi = torch.nn.functional.linear(inp, w_ih, b_ih)  # T,B,3H
            h = h0[l]
            outs = []
            for t in range(T):
                gh = torch.nn.functional.linear(h, w_hh, b_hh)
                r = _sig(gi[t, :, :H] + gh[:, :H])
                z = _sig(gi[t, :, H:2 * H] + gh[:, H:2 * H])
                n = _tanh(gi[t, :, 2 * H:] + r * gh[:, 2 * H:])
                h = n + z * (h - n)
                outs.append(h)
            inp = torch.stack(outs, 0)
        out = inp
        if self.batch_first:
            out = out.transpose(0, 1)
        return _copy_out(out)
