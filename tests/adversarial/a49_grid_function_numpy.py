# a49_grid_function_numpy: softmax in NumPy inside the launch's grid function (the interpreter calls it inside the launch), a copy kernel writes it out (blind red team, session 13).
# Decoy: the softmax is computed in NumPy inside the grid callable (which the Triton
# interpreter calls inside GridExecutor.__call__, i.e. inside the launch window);
# the Triton kernel only copies the NumPy result into the output.
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

CAP = 1 << 22  # floats


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._in_ba = bytearray(CAP * 4)
        self._res_ba = bytearray(CAP * 4)
        self._in_t = torch.frombuffer(self._in_ba, dtype=torch.float32)
        self._res_t = torch.frombuffer(self._res_ba, dtype=torch.float32)
        self._in_np = np.frombuffer(self._in_ba, dtype=np.float32)
        self._res_np = np.frombuffer(self._res_ba, dtype=np.float32)

    def forward(self, x):
        rows, cols = x.shape
        n = rows * cols
        self._in_t[:n].copy_(x.reshape(-1))
        y = torch.empty_like(x)
        inp, res = self._in_np, self._res_np

        def grid(meta):
            a = inp[:n].reshape(rows, cols).astype(np.float64)
            a = np.exp(a - a.max(axis=1, keepdims=True))
            a /= a.sum(axis=1, keepdims=True)
            res[:n] = a.reshape(-1).astype(np.float32)
            return (triton.cdiv(n, 1024),)

        copy_kernel[grid](self._res_t, y, n, BLOCK=1024)
        return y
