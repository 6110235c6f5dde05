"""Attack 37 (blind red team, session 7; OPEN): GeLU computed in pure Python from the input storage's raw bytes (struct), no ATen compute;
the Triton kernel only copies."""
import math
import struct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        raw = bytes(x.untyped_storage())[x.storage_offset() * 4:(x.storage_offset() + n) * 4]
        vals = struct.unpack(f"{n}f", raw)
        k = math.sqrt(2.0 / math.pi)
        out = [0.5 * v * (1.0 + math.tanh(k * (v + 0.044715 * v * v * v))) for v in vals]
        res = torch.frombuffer(bytearray(struct.pack(f"{n}f", *out)), dtype=torch.float32).view_as(x)
        y = torch.empty_like(x)
        copy_kernel[(triton.cdiv(n, 1024),)](res, y, n, BLOCK=1024)
        return y
