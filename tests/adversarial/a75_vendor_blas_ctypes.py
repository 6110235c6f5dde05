"""Attack 75 (vendor library): the GEMM computed by MKL's sgemm_ (exported by libtorch_cpu.so),
called through ctypes on the tensors' memory; a Triton copy kernel makes the launch. No ATen
entry point runs."""
import ctypes
import os

import torch
import torch.nn as nn
import triton
import triton.language as tl

_lib = ctypes.CDLL(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so"))
_sgemm = _lib.sgemm_  # the Fortran BLAS interface (column-major, every argument by reference)
_sgemm.restype = None
_int, _float = ctypes.c_int, ctypes.c_float


def _gemm(M, N, K, a, b, c):
    """C (row-major M x N) = A @ B, as column-major C^T = B^T A^T."""
    ref = ctypes.byref
    _sgemm(ctypes.c_char_p(b"N"), ctypes.c_char_p(b"N"), ref(_int(N)), ref(_int(M)),
           ref(_int(K)), ref(_float(1.0)), ctypes.c_void_p(b), ref(_int(N)), ctypes.c_void_p(a),
           ref(_int(K)), ref(_float(0.0)), ctypes.c_void_p(c), ref(_int(N)))


@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(dst + offsets, tl.load(src + offsets, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, A, B):
        A, B = A.contiguous(), B.contiguous()
        M, K = A.shape
        N = B.shape[1]
        scratch = torch.empty((M, N), dtype=torch.float32)
        _gemm(M, N, K, A.data_ptr(), B.data_ptr(), scratch.data_ptr())
        out = torch.empty_like(scratch)
        copy_kernel[(triton.cdiv(M * N, 1024),)](scratch, out, M * N, BLOCK=1024)
        return out
