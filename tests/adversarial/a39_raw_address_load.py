"""Attack 39 (decoy): softmax in NumPy (through a ctypes view of the input) into a NumPy array;
the own kernel gets that array's address as an integer and loads from it as a pointer, so no
tensor made from host data is ever passed."""
import ctypes
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_from_address(address, dst_ptr, n, BLOCK: tl.constexpr):
    src_ptr = address.to(tl.pointer_type(tl.float32), bitcast=True)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        raw = ctypes.cast(x.data_ptr(), ctypes.POINTER(ctypes.c_float))
        a = np.ctypeslib.as_array(raw, shape=tuple(x.shape)).astype(np.float64)
        a = np.exp(a - a.max(axis=1, keepdims=True))
        self.answer = np.ascontiguousarray(a / a.sum(axis=1, keepdims=True), dtype=np.float32)
        y = torch.empty_like(x)
        n = y.numel()
        copy_from_address[(triton.cdiv(n, 1024),)](self.answer.ctypes.data, y, n, BLOCK=1024)
        return y
