"""GeLU on the host from bytes(x.untyped_storage()), written out by a Triton kernel that gets
eight results per launch as scalar arguments (blind red team, session 10: the writing half of
the pickling softmax, without the pickling)."""
import math
import struct

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _put8(out_ptr, at, v0, v1, v2, v3, v4, v5, v6, v7):
    tl.store(out_ptr + at + 0, v0)
    tl.store(out_ptr + at + 1, v1)
    tl.store(out_ptr + at + 2, v2)
    tl.store(out_ptr + at + 3, v3)
    tl.store(out_ptr + at + 4, v4)
    tl.store(out_ptr + at + 5, v5)
    tl.store(out_ptr + at + 6, v6)
    tl.store(out_ptr + at + 7, v7)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        raw = bytes(x.untyped_storage())[x.storage_offset() * 4:]
        values = struct.unpack(f"<{x.numel()}f", raw[:4 * x.numel()])
        result = [0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0))) for v in values]
        result += [0.0] * (-len(result) % 8)
        out = torch.empty(len(result), device=x.device, dtype=x.dtype)
        for at in range(0, len(result), 8):
            _put8[(1,)](out, at, *result[at:at + 8])
        return out[:x.numel()].view(x.shape)
