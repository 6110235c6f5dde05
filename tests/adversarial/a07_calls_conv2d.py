"""Attack 7 (heavy operator, conv task): F.conv2d does the convolution; a Triton kernel does only
the ReLU + bias epilogue, so the candidate does launch a kernel of its own."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def relu_bias_kernel(x_ptr, bias_ptr, y_ptr, n, plane, channels, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    channel = (offsets // plane) % channels
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.maximum(x, 0.0) + tl.load(bias_ptr + channel, mask=mask)
    tl.store(y_ptr + offsets, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        z = F.conv2d(x, self.conv.weight, self.conv.bias).contiguous()
        y = torch.empty_like(z)
        plane = z.shape[2] * z.shape[3]
        relu_bias_kernel[(triton.cdiv(z.numel(), 1024),)](z, self.bias.reshape(-1), y, z.numel(),
                                                          plane, z.shape[1], BLOCK=1024)
        return y
