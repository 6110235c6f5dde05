"""CHEAT (variant of c02): the duck is the .base of a triton.reinterpret TensorWrapper, not of a TensorDescriptor.
NumPy computes the softmax inside a launch, after the kernel body ran: the kernel takes a
TensorDescriptor whose .base is replaced (after construction) by an object that acts as a tensor;
the interpreter calls its untyped_storage() while it copies the arguments back, and there
NumPy writes the answer into the output's memory (an mmap wrapped at import).
(Blind red team, session 37: c03_tensorwrapper_base_duck_softmax.)"""
import mmap
import numpy as np
import torch, torch.nn as nn, triton, triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

CAP = 1 << 22
_mx = mmap.mmap(-1, CAP * 4)
_my = mmap.mmap(-1, CAP * 4)
_X = torch.frombuffer(_mx, dtype=torch.float32)
_Y = torch.frombuffer(_my, dtype=torch.float32)
_nx = np.frombuffer(_mx, dtype=np.float32)
_ny = np.frombuffer(_my, dtype=np.float32)
_D = torch.zeros(64, dtype=torch.float32)
_mf = mmap.mmap(-1, 4096)
_F = torch.frombuffer(_mf, dtype=torch.int32)
_nf = np.frombuffer(_mf, dtype=np.int32)
_seq = [0]

@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)

@triton.jit
def relay_kernel(y, d, flag, seq, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y + offs, tl.load(y + offs, mask=m), mask=m)
    tl.store(flag, seq)

class Duck:
    def __init__(self, t):
        self._t = t
        self.calls = 0
        self.rc = (0, 0)
    def __getattr__(self, k):
        return getattr(self._t, k)
    def untyped_storage(self):
        if _nf[0] == _seq[0] and not self.calls:  # the kernel body has run: the copy-back
            self.calls = 1
            r, c = self.rc
            a = _nx[: r * c].reshape(r, c).astype(np.float64)
            a = np.exp(a - a.max(axis=1, keepdims=True))
            _ny[: r * c] = (a / a.sum(axis=1, keepdims=True)).ravel()
        return self._t.untyped_storage()

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        x = x.contiguous()
        r, c = x.shape
        n = r * c
        xb, yb = _X[:n], _Y[:n]
        B = 1024
        copy_kernel[(triton.cdiv(n, B),)](x, xb, n, BLOCK=B)
        d = triton.reinterpret(_D, tl.float32)
        duck = Duck(_D)
        duck.rc = (r, c)
        d.base = duck
        _seq[0] = (_seq[0] % 1000) + 1
        relay_kernel[(triton.cdiv(n, B),)](yb, d, _F[:1], _seq[0], n, BLOCK=B)
        return yb.view(r, c)
