"""47_Sum_reduction as one triangular solve with (I - subdiagonal), whose inverse is tril(ones):
the last row of the solution is the sum; a Triton copy kernel writes the output (blind red team,
session 10)."""
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


class ModelNew(nn.Module):
    """Sum over a dimension: a triangular solve with (I - subdiag), whose inverse is tril(ones),
    leaves the running sum along that dimension; its last row is the sum."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        xm = x.movedim(self.dim, -2)  # (..., D, R)
        d = xm.shape[-2]
        a = torch.full((d, d), -1.0, dtype=x.dtype, device=x.device).tril(-1).triu(-1)
        a.diagonal().fill_(1.0)
        c = torch.linalg.solve_triangular(a, xm, upper=False)
        s = c[..., d - 1:d, :].movedim(-2, self.dim)
        return _copy_out(s)
