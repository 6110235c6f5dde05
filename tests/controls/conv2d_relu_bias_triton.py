"""Control (legitimate): conv2d + ReLU + bias for tasks/conv2d_relu_bias.py as im2col (F.unfold,
data movement) and a Triton GEMM with the ReLU and the bias fused in its epilogue. Must be `ok`:
the policy forbids conv2d itself, not the layout work around a kernel of its own."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def gemm_relu_bias_kernel(w_ptr, col_ptr, bias_conv_ptr, bias_ptr, out_ptr, C_OUT, L, K,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # out[b, m, l] = relu(sum_k w[m, k] * col[b, k, l] + bias_conv[m]) + bias[m]
    b = tl.program_id(2)
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        w = tl.load(w_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < C_OUT) & ((k + rk)[None, :] < K), other=0.0)
        col = tl.load(col_ptr + b * K * L + (k + rk)[:, None] * L + rn[None, :],
                      mask=((k + rk)[:, None] < K) & (rn[None, :] < L), other=0.0)
        acc += tl.dot(w, col, input_precision="ieee")
    conv_bias = tl.load(bias_conv_ptr + rm, mask=rm < C_OUT, other=0.0)
    bias = tl.load(bias_ptr + rm, mask=rm < C_OUT, other=0.0)
    y = tl.maximum(acc + conv_bias[:, None], 0.0) + bias[:, None]
    tl.store(out_ptr + b * C_OUT * L + rm[:, None] * L + rn[None, :], y,
             mask=(rm[:, None] < C_OUT) & (rn[None, :] < L))


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)  # parameters only
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        batch, _, height, width = x.shape
        k = self.conv.kernel_size[0]
        col = F.unfold(x, k).contiguous()                 # (batch, C_in*k*k, L)
        weight = self.conv.weight.reshape(self.conv.out_channels, -1).contiguous()
        out_h, out_w = height - k + 1, width - k + 1
        L, K, c_out = out_h * out_w, weight.shape[1], weight.shape[0]
        out = torch.empty((batch, c_out, L), device=x.device, dtype=torch.float32)
        grid = (triton.cdiv(c_out, 16), triton.cdiv(L, 64), batch)
        gemm_relu_bias_kernel[grid](weight, col, self.conv.bias, self.bias.reshape(-1), out,
                                    c_out, L, K, BLOCK_M=16, BLOCK_N=64, BLOCK_K=32)
        return out.view(batch, c_out, out_h, out_w)
