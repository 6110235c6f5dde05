"""Control (session 31): KernelBench level2 9 (Linear, subtract, multiply, ReLU) with the GEMM in
a Triton kernel and the whole epilogue left to PyTorch (bias add, subtract, multiply, ReLU): the
help a dense task keeps. Must be `ok` under the dense rules (PyTorch's work sized against the
task, the own kernels' multiplies against the reference's multiply-adds)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_nt_kernel(a_ptr, w_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_wn, stride_wk,
                     stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr):
    # C = A @ W^T, W in nn.Linear's (out_features, in_features) layout
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * stride_wn + (k + rk)[:, None] * stride_wk,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, w, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, subtract_value, multiply_value):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.subtract_value = subtract_value
        self.multiply_value = multiply_value

    def forward(self, x):
        weight = self.linear.weight
        M, K = x.shape
        N = weight.shape[0]
        out = torch.empty((M, N), device=x.device, dtype=torch.float32)
        grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
        matmul_nt_kernel[grid](x, weight, out, M, N, K, x.stride(0), x.stride(1),
                               weight.stride(0), weight.stride(1), out.stride(0), out.stride(1),
                               BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
        out = out + self.linear.bias
        return torch.relu((out - self.subtract_value) * self.multiply_value)
