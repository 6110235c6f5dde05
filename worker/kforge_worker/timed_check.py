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
fp32 against cuDNN's TF32: ~2 units, so ~16 allowed here). Never more than the checked verdict
allowed (CEILING_K), and the relative L2 error likewise (relative_bound): on the H200 the honest
kernels' worst timed error was 1.0-1.3x their checked one (session 25)."""

import math

import torch

from kforge_worker import error_stats
from kforge_worker.correctness import Comparison, _chunks, base_tolerance

TIMED_K = 8.0
FLOOR = 1.0 / 16
# Never looser than what the checked calls' own verdict allowed against the fp32 reference
# (Comparison.allowed_units): a timed call is a checked call, held to the same bound. It was
# twice that until session 25: a candidate could be accurate when checked and twice as loose
# when timed, telling the two apart by the cost of a dispatch (a33_tolerance_switch_by_cost).
CEILING_K = 1.0


def timed_scale(units32, allowed_units=float("inf")):
    """The tolerance, in multiples of the base allclose tolerance, for timed calls of a
    candidate whose largest error in the checked calls was `units32` of it, under a verdict
    that allowed `allowed_units`."""
    if math.isnan(units32):
        return float("inf")
    return max(FLOOR, min(TIMED_K * units32, CEILING_K * allowed_units))


def relative_bound(rel32, allowed_rel32=float("inf")):
    """The relative L2 error (against the eager output) allowed to each timed output of a
    candidate whose checked calls showed at most `rel32` against the fp32 reference under a
    verdict that allowed `allowed_rel32` (infinite where the verdict set no such bound: the
    kernelbench precision, no fp64). As the elementwise scale: TIMED_K times what was shown,
    never above what was allowed, never below FLOOR x 1e-4. Without a verdict's bound the 8x
    rule alone still holds timed calls to what the checked ones showed (blind red team, session
    25: under the kernelbench precision a softmax of 2^20 columns, 0.04 relative L2 when
    checked, served 31 when timed, every element inside allclose's absolute term)."""
    if math.isnan(rel32) or math.isinf(rel32):
        return float("inf")
    return max(FLOOR * 1e-4, min(TIMED_K * rel32, allowed_rel32))


def worst_units(mine, theirs, base):
    """The largest error of `mine` against `theirs` in allclose units (|err| / (base + base x
    |theirs|)); NaN where `theirs` has NaN and `mine` too counts 0 (the task's own), a NaN on
    one side only, or an infinity the other side lacks, counts infinite."""
    return float(_worst_units_on_device(mine, theirs, base))


def _worst_units_on_device(mine, theirs, base):
    err = (mine - theirs).abs() / (base + base * theirs.abs())
    same = (mine == theirs) | (torch.isnan(mine) & torch.isnan(theirs))  # (equal infinities)
    err = torch.where(same, torch.zeros_like(err), torch.nan_to_num(err, nan=float("inf")))
    return err.max() if err.numel() else err.new_zeros(())


def _errors_on_device(mine, theirs, base, fused=False):
    """[largest error in base units, sum of squared errors, sum of squared reference values] of
    a floating output, as check() computes them (float64, in chunks), left on the device; with
    `fused` (error_stats.pays_off) in one pass on a GPU."""
    if fused and error_stats.fused_applies(mine, theirs):
        return error_stats.errors_fused(mine, theirs, base)
    return errors_torch(mine, theirs, base)


def errors_torch(mine, theirs, base):
    """_errors_on_device in PyTorch's float64 operators, a chunk at a time."""
    flat = [mine.reshape(-1), theirs.reshape(-1)]
    parts = []
    for start, end in _chunks(mine.numel()):
        a, b = (item[start:end].to(torch.float64) for item in flat)
        parts.append(torch.stack([_worst_units_on_device(a, b, base),
                                  ((a - b) ** 2).nan_to_num(nan=0.0).sum(),
                                  (b ** 2).nan_to_num(nan=0.0).sum()]))
    parts = torch.stack(parts)
    return torch.stack([parts[:, 0].max(), parts[:, 1].sum(), parts[:, 2].sum()])


def check_block(gots, wants, bounds, where, fused=False):
    """check() over a block's timed calls (`gots`, `wants`: per call, its outputs and the eager
    ones; `where(position)`: the call's place, for the text) with one host synchronisation for
    the whole block instead of three per chunk of every output (0.68 s of a softmax evaluation's
    1.0 s of timing overhead on an H200, session 28). (failure, worst) as check(), `worst` the
    largest per output over the calls; a call beyond its bounds is described by check() itself,
    so the text is check()'s."""
    floating, stats = [], []
    for got, want in zip(gots, wants):
        for mine, theirs in zip(got, want):
            if theirs.is_floating_point():
                floating.append(True)
                stats.append(_errors_on_device(mine, theirs, base_tolerance(theirs.dtype),
                                               fused))
            else:
                floating.append(False)
    numbers = iter(torch.stack(stats).tolist() if stats else [])  # the one synchronisation
    kinds = iter(floating)
    worst = [(0.0, 0.0)] * len(bounds)
    for position, (got, want) in enumerate(zip(gots, wants)):
        seen = []
        for index, (mine, theirs) in enumerate(zip(got, want)):
            if not next(kinds):
                if not torch.equal(mine, theirs):
                    return check(got, want, bounds, where(position))
                seen.append((0.0, 0.0))
                continue
            units, squares_err, squares_ref = next(numbers)
            relative = (squares_err / squares_ref) ** 0.5 if squares_ref > 0 else 0.0
            seen.append((units, relative))
            scale, rel_bound = bounds[index]
            if units > scale or relative > rel_bound:
                problem, _ = check(got, want, bounds, where(position))
                if problem:
                    return problem, [(max(a, c), max(b, d)) for (a, b), (c, d) in
                                     zip(worst, seen + worst[len(seen):])]
        worst = [(max(a, c), max(b, d)) for (a, b), (c, d) in zip(worst, seen + worst[len(seen):])]
    return None, worst


def limits(bounds, count):
    """[(scale, relative bound)] of each of `count` outputs, from the checked calls' bounds per
    output (Comparison.bounds); an output with none recorded (an integer one) gets the floors."""
    pairs = []
    for index in range(count):
        seen = bounds.get(index, {})
        pairs.append((timed_scale(seen.get("units32", 0.0), seen.get("allowed_units", 0.0)),
                      relative_bound(seen.get("rel32", 0.0), seen.get("allowed_rel32", 0.0))))
    return pairs


def check(got, want, bounds, where):
    """(failure, worst): the failure's text when one of the candidate's outputs `got` is beyond
    its elementwise scale (base tolerances) of the eager outputs `want`, or its relative L2 error
    beyond its relative bound (`bounds`: limits()), else None; `worst` [(largest error in base
    tolerances, relative L2 error)] per output compared."""
    worst = []
    for index, (mine, theirs) in enumerate(zip(got, want)):
        scale, rel_bound = bounds[index]
        if not theirs.is_floating_point():
            if not torch.equal(mine, theirs):
                worst.append((float("inf"), float("inf")))
                return f"output {index} ({where}): integer output differs from the reference", \
                    worst
            worst.append((0.0, 0.0))
            continue
        base = base_tolerance(theirs.dtype)
        flat = [mine.reshape(-1), theirs.reshape(-1)]
        units = squares_err = squares_ref = 0.0
        for start, end in _chunks(mine.numel()):
            a, b = (item[start:end].to(torch.float64) for item in flat)
            units = max(units, worst_units(a, b, base))
            squares_err += float(((a - b) ** 2).nan_to_num(nan=0.0).sum())
            squares_ref += float((b ** 2).nan_to_num(nan=0.0).sum())
        relative = (squares_err / squares_ref) ** 0.5 if squares_ref > 0 else 0.0
        worst.append((units, relative))
        if units > scale:
            def widened(start, end):
                a, b = (item[start:end].to(torch.float64) for item in flat)
                return [a, b, b]
            return Comparison()._describe(
                index, len(got), list(mine.shape), mine.numel(), widened, 1, scale, base,
                where, "the eager baseline's output on the same set"), worst
        if relative > rel_bound:
            return (f"output {index} of {len(got)} (shape {list(mine.shape)}), {where}: relative "
                    f"L2 error {relative:.3g} against the eager baseline's output on the same set, "
                    f"above the {rel_bound:.3g} allowed (each element within its tolerance: the "
                    f"error is spread over many)"), worst
    return None, worst


def first_failure(got, want, scale, where, rel_bound=float("inf")):
    """check()'s failure text alone, every output held to `scale` and `rel_bound`."""
    return check(got, want, [(scale, rel_bound)] * len(got), where)[0]
