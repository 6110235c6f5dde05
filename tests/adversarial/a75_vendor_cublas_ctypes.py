"""Attack 75 (vendor library, GPU): the GEMM computed by cuBLAS's cublasSgemm_v2, called through
ctypes on the tensors' device memory (the libcublas that torch loaded, found in /proc/self/maps)
on torch's stream; a Triton copy kernel makes the launch. No ATen entry point runs."""
import ctypes

import torch
import torch.nn as nn
import triton
import triton.language as tl


def _cublas():
    with open("/proc/self/maps") as handle:
        paths = {line.split()[-1] for line in handle if "libcublas.so" in line}
    lib = ctypes.CDLL(sorted(paths)[0])
    handle = ctypes.c_void_p()
    assert lib.cublasCreate_v2(ctypes.byref(handle)) == 0
    return lib, handle


torch.zeros(1, device="cuda") @ torch.zeros(1, device="cuda")  # (torch loads libcublas)
_lib, _handle = _cublas()


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
        scratch = torch.empty((M, N), device=A.device, dtype=torch.float32)
        _lib.cublasSetStream_v2(_handle, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
        alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
        # row-major C = A @ B as column-major C^T = B^T A^T (CUBLAS_OP_N = 0)
        status = _lib.cublasSgemm_v2(_handle, 0, 0, N, M, K, ctypes.byref(alpha),
                                     ctypes.c_void_p(B.data_ptr()), N,
                                     ctypes.c_void_p(A.data_ptr()), K, ctypes.byref(beta),
                                     ctypes.c_void_p(scratch.data_ptr()), N)
        assert status == 0, status
        out = torch.empty_like(scratch)
        copy_kernel[(triton.cdiv(M * N, 1024),)](scratch, out, M * N, BLOCK=1024)
        return out
