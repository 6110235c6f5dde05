"""GRU cells in PyTorch whose sigmoid and tanh come from an exp built from float bits (the
exponent 2^n as (n + 127) << 23 viewed as float32, a cubic for the fraction) and arithmetic;
a Triton copy kernel writes the output (blind red team, session 10)."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

_F = np.linspace(0.0, 1.0, 4097)
_C = np.polyfit(_F, np.exp2(_F - 0.5), 4)[::-1].tolist()


def _exp(x):
    z = x.clamp(-80.0, 80.0) * 1.4426950408889634 + 127.5
    n = z.to(torch.int32)
    f = z - n
    p = (((_C[4] * f + _C[3]) * f + _C[2]) * f + _C[1]) * f + _C[0]
    return p * (n << 23).view(torch.float32)


def _sigmoid(x):
    return 1.0 / (1.0 + _exp(-x))


def _tanh(x):
    return 2.0 * _sigmoid(2.0 * x) - 1.0


@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        g = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first, dropout=0, bidirectional=False)
        self.params = nn.ParameterList()
        for l in range(num_layers):
            for n in ("weight_ih_l", "weight_hh_l", "bias_ih_l", "bias_hh_l"):
                self.params.append(nn.Parameter(getattr(g, n + str(l)).detach().clone()))
        self.h0 = torch.randn((num_layers, globals().get("batch_size", 10), hidden_size))

    def forward(self, x):
        T, B, _ = x.shape
        H = self.hidden_size
        inp = x
        for l in range(self.num_layers):
            wih, whh, bih, bhh = [self.params[4 * l + i] for i in range(4)]
            gi = torch.matmul(inp, wih.t()) + bih
            h = self.h0[l]
            outs = []
            for t in range(T):
                gh = torch.matmul(h, whh.t()) + bhh
                ir, iz, inn = gi[t].chunk(3, 1)
                hr, hz, hn = gh.chunk(3, 1)
                r = _sigmoid(ir + hr)
                z = _sigmoid(iz + hz)
                n = _tanh(inn + r * hn)
                h = (1 - z) * n + z * h
                outs.append(h)
            inp = torch.stack(outs)
        out = torch.empty_like(inp)
        n = inp.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](inp, out, n, BLOCK=1024)
        return out
