"""An output's error statistics against the expected one, in one pass on the GPU.

The timed calls' check (timed_check.check_block) needs, for every output of every timed call,
three float64 numbers: the largest error in allclose units (|mine - theirs| / (base + base x
|theirs|)), the sum of squared errors and the sum of squared expected values. In PyTorch that
is ~20 float64 elementwise kernels over the whole output; on a 4096 x 16384 softmax they took
0.47 s of a warm evaluation's 1.0 s of timing overhead (H200, session 32), and a full-size
KernelBench level 1 output (1.6e9 elements) costs ~0.14 s per timed call. Here one Triton
kernel reads both outputs once and leaves one row of partials per program; PyTorch reduces the
partials. The judge's own code: candidate code never runs in this process.

The numbers are the same as timed_check's PyTorch path (`errors_torch`), special values
included: elements equal on both sides (equal infinities, NaN on both) count 0; a NaN error
counts +inf and an infinite one the largest float64 (torch.nan_to_num's rule); a NaN square
counts 0 and an infinite one the largest float64. Only the order of the float64 sums differs."""

import torch
import triton
import triton.language as tl

BLOCK = 2048
# The kernel's first launch in a judge process costs ~0.45 s (Triton's cache lookup, its
# launcher, the module load: a warm evaluation's load phase grew by that much when it ran there,
# H200, session 32); each output element checked costs 0.087 ns in PyTorch's path and 0.0076 ns
# here (a 4096 x 16384 float32 output: 5.83 against 0.51 ms). One pass pays off past ~5.7e9
# elements checked in an evaluation: a full-size softmax (7.5e9), not an RNN's (4e6).
FUSED_MIN_ELEMENTS = 6e9
_DOUBLE_MAX = tl.constexpr(1.7976931348623157e308)  # (torch.nan_to_num: +inf becomes it)
_FLOATING = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


@triton.jit
def _capped(x):
    """NaN to 0 and +inf to the largest float64 (the squares' rule; the error's NaN is +inf)."""
    return tl.where(x != x, 0.0, tl.where(x == float("inf"), _DOUBLE_MAX, x))


@triton.jit
def _error_stats_kernel(mine_ptr, theirs_ptr, base_ptr, partials_ptr, numel,
                        BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    inside = offsets < numel
    a = tl.load(mine_ptr + offsets, mask=inside, other=0.0).to(tl.float64)
    b = tl.load(theirs_ptr + offsets, mask=inside, other=0.0).to(tl.float64)
    base = tl.load(base_ptr)
    diff = a - b
    err = tl.abs(diff) / (base + base * tl.abs(b))
    same = (a == b) | ((a != a) & (b != b))
    err = tl.where(same | ~inside, 0.0, tl.where(err != err, float("inf"), _capped(err)))
    squares = tl.where(inside, _capped(diff * diff), 0.0)
    expected = tl.where(inside, _capped(b * b), 0.0)
    row = partials_ptr + pid * 3
    tl.store(row, tl.max(err, axis=0))
    tl.store(row + 1, tl.sum(squares, axis=0))
    tl.store(row + 2, tl.sum(expected, axis=0))


_warmed = False  # the kernel launched once in this process (a prepared judge: judge_spare.py)


def pays_off(device, elements):
    """Whether an evaluation that checks `elements` output elements in timed calls does it in
    one pass per output: always once the first launch is paid (a judge prepared ahead paid it
    before its request), else where the one pass repays it."""
    return device == "cuda" and (_warmed or elements >= FUSED_MIN_ELEMENTS)


def fused_applies(mine, theirs):
    """Whether the one-pass kernel computes these statistics: floating outputs of one size on
    one CUDA device. (The CPU path stays PyTorch: there the interpreter would run the kernel.)"""
    return (mine.is_cuda and theirs.is_cuda and mine.device == theirs.device and
            mine.dtype in _FLOATING and theirs.dtype in _FLOATING and
            mine.numel() == theirs.numel() and mine.numel() > 0)


def errors_fused(mine, theirs, base):
    """[largest error in base units, sum of squared errors, sum of squared expected values] as
    one float64 tensor of 3 on the device (no synchronisation)."""
    a = mine.reshape(-1).contiguous()
    b = theirs.reshape(-1).contiguous()
    programs = triton.cdiv(a.numel(), BLOCK)
    partials = torch.empty((programs, 3), dtype=torch.float64, device=a.device)
    base_value = torch.tensor([base], dtype=torch.float64, device=a.device)
    _error_stats_kernel[(programs,)](a, b, base_value, partials, a.numel(), BLOCK=BLOCK,
                                     num_warps=8)
    return torch.stack([partials[:, 0].max(), partials[:, 1].sum(), partials[:, 2].sum()])


def warm_up(device):
    """The kernel's first launch in this process, before the first timed block."""
    global _warmed
    x = torch.zeros(4, device=device)
    errors_fused(x, x, 1e-4)
    _warmed = True
