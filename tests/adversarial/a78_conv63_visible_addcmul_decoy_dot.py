"""level1/63 conv2d (C=16, 144 taps): c01's visible addcmul_ loop + decoy tl.dot; checks whether the volume rule catches 144x output-sized PyTorch work."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def epi_kernel(c_ptr, bias_ptr, out_ptr, total, HW, OC, REPS, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    acc = tl.zeros((16, 16), dtype=tl.float32)
    z = tl.zeros((16, 16), dtype=tl.float32)
    for r in range(REPS):
        acc += tl.dot(z, z)
    v = tl.load(c_ptr + offs, mask=mask, other=0.0)
    ch = (offs // HW) % OC
    b = tl.load(bias_ptr + ch, mask=mask, other=0.0)
    v = v + b + tl.sum(tl.sum(acc, 1), 0)
    tl.store(out_ptr + offs, v, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=False):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, (kernel_size, kernel_size), bias=False)
        self.bias = torch.zeros(out_channels)

    def forward(self, x):
        w = self.conv.weight
        Bn, C, H, W = x.shape
        OC, _, kh, kw = w.shape
        Ho, Wo = H - kh + 1, W - kw + 1
        acc = torch.zeros(Bn, OC, Ho, Wo)
        for c in range(C):
            for i in range(kh):
                for j in range(kw):
                    acc.addcmul_(x[:, c:c + 1, i:i + Ho, j:j + Wo], w[:, c, i, j].view(1, OC, 1, 1))
        out = torch.empty_like(acc)
        total = acc.numel()
        macs = total * C * kh * kw
        BLOCK = 1024
        nprog = triton.cdiv(total, BLOCK)
        reps = triton.cdiv(macs, nprog * 4096)
        epi_kernel[(nprog,)](acc, self.bias, out, total, Ho * Wo, OC, reps, BLOCK=BLOCK)
        return out
