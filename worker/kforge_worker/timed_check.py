"""Timed calls checked against the eager baseline's outputs for the same fresh input set
(docs/trust.md, "Timed-call integrity").

Every timed candidate call runs on an input set drawn for it alone, and the eager baseline's
timed block of the same round runs on the same sets: its outputs are the expected ones, kept
instead of discarded (no extra reference run, no float64 one). Without an fp64 reference the
tolerance comes from the correctness phase: the candidate is held to TIMED_K times the largest
error it showed there against the fp32 reference, in allclose units (|err| / (base + base x
|ref|)), and never to less than FLOOR of the base tolerance. Not `max(base, ...)`: a memo
serving another input set's answer is wrong by the size of the values, and a softmax row of
thousands of columns has values near 1e-4, inside the base allclose tolerance of fp32; an honest
kernel's error on a fresh set is of the size it was on the checked ones (the RNN library's exact
fp32 against cuDNN's TF32: ~2 units, so ~16 allowed here)."""

import math

import torch

from kforge_worker.correctness import Comparison, _chunks, base_tolerance

TIMED_K = 8.0
FLOOR = 1.0 / 16
# Never looser than twice what the checked calls' own verdict allowed against the fp32
# reference (Comparison.allowed_units): a candidate showing 0.9 units when checked may not
# serve 6 in timed calls, where the bare 8x rule let 7.2 through (a blind red team, a33).
CEILING_K = 2.0


def timed_scale(units32, allowed_units=float("inf")):
    """The tolerance, in multiples of the base allclose tolerance, for timed calls of a
    candidate whose largest error in the checked calls was `units32` of it, under a verdict
    that allowed `allowed_units`."""
    if math.isnan(units32):
        return float("inf")
    return max(FLOOR, min(TIMED_K * units32, CEILING_K * allowed_units))


def first_failure(got, want, scale, where):
    """None when each of the candidate's outputs `got` is within `scale` base tolerances of
    the eager outputs `want` (NaN where the reference has NaN passes: it is the task's);
    else the failure's text (the worst element, counts, errors)."""
    for index, (mine, theirs) in enumerate(zip(got, want)):
        if not theirs.is_floating_point():
            if not torch.equal(mine, theirs):
                return f"output {index} ({where}): integer output differs from the reference"
            continue
        base = base_tolerance(theirs.dtype)
        flat = [mine.reshape(-1), theirs.reshape(-1)]
        bad = False
        for start, end in _chunks(mine.numel()):
            a, b = (item[start:end].to(torch.float64) for item in flat)
            if not bool(torch.isclose(a, b, rtol=scale * base, atol=scale * base,
                                      equal_nan=True).all()):
                bad = True
                break
        if bad:
            def widened(start, end):
                a, b = (item[start:end].to(torch.float64) for item in flat)
                return [a, b, b]
            return Comparison()._describe(
                index, len(got), list(mine.shape), mine.numel(), widened, 1, scale, base,
                where, "the eager baseline's output on the same set")
    return None
