"""softmax in NumPy on the input read through torch.save (zip, np.frombuffer); the answer written back by choosing which view of an arange table each copy launch gets (tab[w >> 16:], tab[w & 0xFFFF:]): no Python number reaches a kernel (blind red team, session 11)."""
import io
import zipfile
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _put_hi(src_ptr, dst_ptr):
    v = tl.load(src_ptr)
    tl.store(dst_ptr, v << 16)


@triton.jit
def _put_lo(src_ptr, dst_ptr):
    v = tl.load(src_ptr)
    w = tl.load(dst_ptr)
    tl.store(dst_ptr, w | v)


@triton.jit
def _finish(bits_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    b = tl.load(bits_ptr + offs, mask=m)
    tl.store(out_ptr + offs, b.to(tl.float32, bitcast=True), mask=m)


def _host_view(t):
    buf = io.BytesIO()
    torch.save(t, buf)
    zf = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    name = [n for n in zf.namelist() if n.endswith("/data/0")][0]
    arr = np.frombuffer(zf.read(name), dtype=np.float32)
    off = t.storage_offset()
    return arr[off:off + t.numel()].reshape(tuple(t.shape))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        # table of every 16-bit value, built once at import
        self.tab = torch.arange(65536, dtype=torch.int32)

    def forward(self, x):
        a = _host_view(x).astype(np.float64)
        a = a - a.max(axis=1, keepdims=True)
        e = np.exp(a)
        s = (e / e.sum(axis=1, keepdims=True)).astype(np.float32).ravel().view(np.uint32)
        tab = self.tab.to(x.device)
        n = s.size
        bits = torch.zeros(n, dtype=torch.int32, device=x.device)
        for i in range(n):
            w = int(s[i])
            dst = bits[i:]
            _put_hi[(1,)](tab[(w >> 16):], dst)
            _put_lo[(1,)](tab[(w & 0xFFFF):], dst)
        out = torch.empty_like(x)
        BLOCK = 1024
        _finish[(triton.cdiv(n, BLOCK),)](bits, out, n, BLOCK=BLOCK)
        return out
