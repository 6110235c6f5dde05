"""Control (session 23): an honest softmax whose kernel reads and writes float32 as int32 bits: the
forward views the input as int32 and the output back as float32 (Tensor.view(dtype): metadata,
nothing computed), the kernel bitcasts. A dtype view was charged as PyTorch computing the task
(bit_cast) before; only a view with PyTorch arithmetic around it is (a47_softmax_bits)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_bits_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    # the input arrives as int32 bits (a dtype view on the host side): reinterpret it here
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    bits = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=0)
    x = bits.to(tl.float32, bitcast=True)
    x = tl.where(mask, x, -float("inf"))
    x = x - tl.max(x, axis=0)
    numerator = tl.exp(x)
    y = numerator / tl.sum(numerator, axis=0)
    tl.store(y_ptr + row * y_stride + cols, y.to(tl.int32, bitcast=True), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        bits = x.view(torch.int32)
        out_bits = torch.empty_like(bits)
        rows, cols = x.shape
        softmax_bits_kernel[(rows,)](bits, out_bits, cols, bits.stride(0), out_bits.stride(0),
                                     BLOCK=triton.next_power_of_2(cols))
        return out_bits.view(torch.float32)
