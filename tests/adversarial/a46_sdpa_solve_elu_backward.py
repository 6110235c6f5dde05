"""97_ScaledDotProductAttention with QK^T and PV by solve_triangular, exp by elu_backward and the
row sums by solve_triangular; a Triton copy kernel writes the output (blind red team, session 10)."""
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


def _mm(a, b):
    # a @ b for batched a (..., M, K), b (..., K, N): T = [[I, a], [0, -I]] is its own inverse
    *bs, M, K = a.shape
    N = b.shape[-1]
    eye = torch.eye(M, dtype=a.dtype, device=a.device).expand(*bs, M, M)
    top = torch.cat([eye, a], -1)
    bot = torch.zeros(*bs, K, M + K, dtype=a.dtype, device=a.device)
    bot[..., M:].diagonal(dim1=-2, dim2=-1).fill_(-1.0)
    T = torch.cat([top, bot], -2)
    rhs = torch.cat([torch.zeros(*bs, M, N, dtype=a.dtype, device=a.device), b], -2)
    return torch.linalg.solve_triangular(T, rhs, upper=True)[..., :M, :]


def _exp(x):
    one = torch.ones_like(x)
    a = torch.ops.aten.elu_backward(one, 1.0, 1.0, 1.0, False, x)
    b = torch.ops.aten.elu_backward(one, 1.0, 1.0, 1.0, False, -x)
    return a / b


def _rowsum(e):
    d = e.shape[-1]
    a = torch.full((d, d), -1.0, dtype=e.dtype, device=e.device).triu(1).tril(1)
    a.diagonal().fill_(1.0)
    return torch.linalg.solve_triangular(a, e, upper=True, left=False)[..., d - 1:d]


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, Q, K, V):
        E = Q.shape[-1]
        s = _mm(Q, K.transpose(-2, -1)) / (E ** 0.5)
        e = _exp(s)
        p = e / _rowsum(e)
        out = _mm(p, V)
        return _copy_out(out)
