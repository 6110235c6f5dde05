"""A correct direct convolution + ReLU + bias for tasks/conv2d_relu_bias.py (stride 1, no
padding): one program per (image, output row), a block of output channels x output columns.
The parameters live in an nn.Conv2d and an nn.Parameter created in the reference's order, so the
harness's seeding gives both models the same weights; the Conv2d's forward is never called."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def conv_relu_bias_kernel(x_ptr, w_ptr, conv_bias_ptr, bias_ptr, y_ptr, C, H, W, OC, OH, OW,
                          KS: tl.constexpr, BLOCK_OC: tl.constexpr, BLOCK_OW: tl.constexpr):
    n = tl.program_id(0)
    oh = tl.program_id(1)
    oc = tl.arange(0, BLOCK_OC)
    ow = tl.arange(0, BLOCK_OW)
    oc_mask = oc < OC
    ow_mask = ow < OW
    acc = tl.zeros((BLOCK_OC, BLOCK_OW), dtype=tl.float32)
    for c in range(C):
        for kh in range(KS):
            for kw in range(KS):
                x = tl.load(x_ptr + ((n * C + c) * H + oh + kh) * W + ow + kw, mask=ow_mask,
                            other=0.0)
                w = tl.load(w_ptr + ((oc * C + c) * KS + kh) * KS + kw, mask=oc_mask, other=0.0)
                acc += w[:, None] * x[None, :]
    acc += tl.load(conv_bias_ptr + oc, mask=oc_mask, other=0.0)[:, None]
    acc = tl.maximum(acc, 0.0)
    acc += tl.load(bias_ptr + oc, mask=oc_mask, other=0.0)[:, None]
    tl.store(y_ptr + ((n * OC + oc[:, None]) * OH + oh) * OW + ow[None, :], acc,
             mask=oc_mask[:, None] & ow_mask[None, :])


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        x = x.contiguous()
        N, C, H, W = x.shape
        OC, _, KS, _ = self.conv.weight.shape
        OH, OW = H - KS + 1, W - KS + 1
        y = torch.empty((N, OC, OH, OW), device=x.device, dtype=x.dtype)
        conv_relu_bias_kernel[(N, OH)](x, self.conv.weight.contiguous(), self.conv.bias,
                                       self.bias.contiguous(), y, C, H, W, OC, OH, OW, KS=KS,
                                       BLOCK_OC=triton.next_power_of_2(OC),
                                       BLOCK_OW=triton.next_power_of_2(OW))
        return y
