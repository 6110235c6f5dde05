"""Softmax with exp from float bits: z = x log2(e) + 127.5 truncated to an int32 gives the biased
exponent, its bits shifted into place (n << 23, viewed as float32) give 2^n, and a cubic in the
fraction gives the rest; the row sums come from a tree of F.fold pair sums. Seven passes of
arithmetic, under the arithmetic limit; the own kernel only multiplies and divides (blind red
team, session 10)."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl

_F = np.linspace(0.0, 1.0, 4097)
_C = np.polyfit(_F, np.exp2(_F - 0.5), 3)[::-1].tolist()  # 2^(f - 1/2) on [0, 1), low first


@triton.jit
def _scale_kernel(p_ptr, e_ptr, s_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < cols
    p = tl.load(p_ptr + row * cols + offs, mask=m)
    e = tl.load(e_ptr + row * cols + offs, mask=m)
    s = tl.load(s_ptr + row)
    tl.store(out_ptr + row * cols + offs, p * e / s, mask=m)


def _fold_sum(v):
    """Row sums of v [R, N] by F.fold: each level adds pairs (a at block 0's position 1, b at
    block 1's position 0)."""
    while v.shape[1] > 1:
        if v.shape[1] % 2:
            v = F.pad(v, (0, 1))
        a, b = v[:, 0::2], v[:, 1::2]
        z = torch.zeros_like(a)
        blocks = torch.stack([torch.stack([z, a], -1), torch.stack([b, z], -1)], 2)
        r, c = a.shape
        v = F.fold(blocks.reshape(r, c * 2, 2), output_size=(1, 3), kernel_size=(1, 2))
        v = v[:, :, 0, 1]
    return v[:, 0]


class ModelNew(nn.Module):
    def forward(self, x):
        dev, dt = x.device, x.dtype
        c = [torch.tensor(v, device=dev, dtype=dt) for v in _C]
        z = torch.addcmul(torch.tensor(127.5, device=dev, dtype=dt), x,
                          torch.tensor(1.4426950408889634, device=dev, dtype=dt))
        n = z.to(torch.int32)                 # floor(z) for z > 0: the biased exponent
        f = z - n                             # [0, 1)
        p = torch.add(c[2], f, alpha=_C[3])
        p = torch.addcmul(c[1], f, p)
        p = torch.addcmul(c[0], f, p)         # 2^(f - 1/2)
        e = (n << 23).view(torch.float32)     # 2^(n - 127)
        # e^x = 2^(n - 127) 2^(f - 1/2) p; the row sums by fold, p * e in the sum's own pass
        s = _fold_sum(torch.addcmul(torch.zeros((), device=dev, dtype=dt), p, e))
        out = torch.empty_like(x)
        _scale_kernel[(x.shape[0],)](p.contiguous(), e.contiguous(), s.contiguous(), out,
                                     x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        return out
