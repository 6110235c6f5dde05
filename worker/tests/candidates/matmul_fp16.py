"""fp16 operands, fp32 accumulation, for an fp32 GEMM (worker/tests/tasks/gemm_exact.py,
tasks/matmul.py): the inputs are cast to float16 in PyTorch, the kernel multiplies fp16 tiles
with tl.dot (fp32 accumulator) and writes fp32. Correct within tolerance on gemm_exact (whose
operands are exact in fp16); `ok` under --numerics tolerance, `rejected` under strict."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_fp16_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                       stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rows[:, None] * stride_am + (k + ks)[None, :] * stride_ak,
                    mask=(rows[:, None] < M) & ((k + ks)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + ks)[:, None] * stride_bk + cols[None, :] * stride_bn,
                    mask=((k + ks)[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, acc,
             mask=(rows[:, None] < M) & (cols[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, A, B):
        a = A.to(torch.float16)
        b = B.to(torch.float16)
        M, K = a.shape
        N = b.shape[1]
        C = torch.empty((M, N), device=A.device, dtype=torch.float32)
        grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
        matmul_fp16_kernel[grid](a, b, C, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                 b.stride(1), C.stride(0), C.stride(1), BLOCK_M=32, BLOCK_N=32,
                                 BLOCK_K=32)
        return C
