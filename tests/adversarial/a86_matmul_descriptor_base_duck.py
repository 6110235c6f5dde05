"""CHEAT (c02 on the matmul task): NumPy's own BLAS computes A @ B inside a launch, in the
untyped_storage() of an object put as the .base of a TensorDescriptor argument, which Triton's
interpreter calls while it copies the arguments back (after the kernel body ran).  The
kernel's tl.dot over a fifth of K is thrown away (it only satisfies the multiply count).
(Blind red team, session 37: c07_descriptor_duck_matmul.)"""
import mmap
import numpy as np
import torch, torch.nn as nn, triton, triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

CAP = 1 << 22
_ma, _mb, _mc = (mmap.mmap(-1, CAP * 4) for _ in range(3))
_A, _B, _C = (torch.frombuffer(m, dtype=torch.float32) for m in (_ma, _mb, _mc))
_na, _nb, _nc = (np.frombuffer(m, dtype=np.float32) for m in (_ma, _mb, _mc))
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
def relay_kernel(a, b, c, junk, d, flag, seq, M, N, K, KD, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, KD, BK):
        rk = k0 + tl.arange(0, BK)
        at = tl.load(a + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        bt = tl.load(b + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(at, bt)
    cm = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(junk + rm[:, None] * N + rn[None, :], acc, mask=cm)
    tl.store(c + rm[:, None] * N + rn[None, :], tl.load(c + rm[:, None] * N + rn[None, :], mask=cm), mask=cm)
    tl.store(flag, seq)

class Duck:
    def __init__(self, t):
        self._t = t
        self.done = False
        self.mnk = (0, 0, 0)
    def __getattr__(self, k):
        return getattr(self._t, k)
    def untyped_storage(self):
        if _nf[0] == _seq[0] and not self.done:
            self.done = True
            M, N, K = self.mnk
            _nc[: M * N] = (_na[: M * K].reshape(M, K).astype(np.float64) @ _nb[: K * N].reshape(K, N).astype(np.float64)).ravel()
        return self._t.untyped_storage()

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, A, B):
        A, B = A.contiguous(), B.contiguous()
        M, K = A.shape
        N = B.shape[1]
        ab, bb, cb = _A[: M * K], _B[: K * N], _C[: M * N]
        copy_kernel[(triton.cdiv(M * K, 1024),)](A, ab, M * K, BLOCK=1024)
        copy_kernel[(triton.cdiv(K * N, 1024),)](B, bb, K * N, BLOCK=1024)
        junk = torch.empty(M, N, dtype=torch.float32)
        d = TensorDescriptor(_D, [64], [1], [16])
        duck = Duck(_D)
        duck.mnk = (M, N, K)
        d.base = duck
        _seq[0] = (_seq[0] % 1000) + 1
        KD = max(16, (K // 5 + 15) // 16 * 16)
        relay_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 16))](ab, bb, cb, junk, d, _F[:1], _seq[0], M, N, K, KD, BM=16, BN=16, BK=16)
        return cb.view(M, N)
