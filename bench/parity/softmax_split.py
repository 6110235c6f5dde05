"""A correct softmax in several Triton launches (timing-parity bench): each row block's max,
then its exp-sum, then the normalisation, over CHUNKS column chunks: 2 + CHUNKS launches.
CHUNKS is set by bench/timing_parity.py --chunks (1, 2, 4: 3, 4 and 6 launches), which writes
one copy per value."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

CHUNKS = 1


@triton.jit
def _chunk_max(x_ptr, m_ptr, n_cols, start, stop, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    best = tl.full((BLOCK,), -float("inf"), tl.float32)
    for offset in range(start, stop, BLOCK):
        cols = offset + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < stop, other=-float("inf"))
        best = tl.maximum(best, x)
    previous = tl.load(m_ptr + row)
    tl.store(m_ptr + row, tl.maximum(previous, tl.max(best, axis=0)))


@triton.jit
def _exp_sum(x_ptr, m_ptr, s_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = tl.load(m_ptr + row)
    total = tl.zeros((BLOCK,), tl.float32)
    for offset in range(0, n_cols, BLOCK):
        cols = offset + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        total += tl.exp(x - m)
    tl.store(s_ptr + row, tl.sum(total, axis=0))


@triton.jit
def _normalise(x_ptr, m_ptr, s_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = tl.load(m_ptr + row)
    s = tl.load(s_ptr + row)
    for offset in range(0, n_cols, BLOCK):
        cols = offset + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * n_cols + cols, tl.exp(x - m) / s, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        block = min(1024, triton.next_power_of_2(cols))
        m = torch.full((rows,), -float("inf"), device=x.device, dtype=torch.float32)
        s = torch.empty((rows,), device=x.device, dtype=torch.float32)
        y = torch.empty_like(x)
        step = -(-cols // CHUNKS)
        for chunk in range(CHUNKS):
            _chunk_max[(rows,)](x, m, cols, chunk * step, min(cols, (chunk + 1) * step),
                                BLOCK=block)
        _exp_sum[(rows,)](x, m, s, cols, BLOCK=block)
        _normalise[(rows,)](x, m, s, y, cols, BLOCK=block)
        return y
