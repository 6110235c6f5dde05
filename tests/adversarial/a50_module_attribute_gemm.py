# a50_module_attribute_gemm: the kernel calls ops.mac, a function in a types.ModuleType global of its own: compiles as a kernel that stores zeros, computes the GEMM in NumPy under the interpreter (blind red team, session 13, second round).
import types
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl


def _mac(acc, a, b):
    # Reached as an attribute of a ModuleType global: the Triton front end allows
    # module globals and calls the attribute at compile time (returns acc: compiles);
    # the interpreter calls it with NumPy-backed tensors.
    h = acc.handle
    if isinstance(getattr(h, "data", None), np.ndarray):
        r = (h.data.astype(np.float64) + a.handle.data.astype(np.float64) @ b.handle.data.astype(np.float64)).astype(np.float32)
        return tl.tensor(type(h)(r, h.dtype), acc.type)
    return acc


ops = types.ModuleType("ops")
ops.mac = _mac


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * sam + rk[None, :] * sak,
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * sbk + rn[None, :] * sbn,
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = ops.mac(acc, a, b)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        M, K = A.shape
        N = B.shape[1]
        C = torch.empty((M, N), dtype=torch.float32)
        BM, BN, BK = 32, 32, 32
        grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
        mm_kernel[grid](A, B, C, M, N, K, A.stride(0), A.stride(1), B.stride(0), B.stride(1),
                        C.stride(0), C.stride(1), BM=BM, BN=BN, BK=BK)
        return C
