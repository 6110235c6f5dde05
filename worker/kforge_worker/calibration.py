"""How much of a timed block's wall time the candidate process's honest harness takes, measured
while that process is still ours (docs/trust.md, "Timed-call integrity").

The judge times each candidate block from outside (its wall clock around the `time` request)
and compares that with the event times the process reports: what the events do not account for
is the harness's own per-trial work (seeding, the L2 flush and its synchronise, copying the
outputs into the shared buffers, the request's round trip) plus whatever the candidate hid
there. Before the candidate's code is imported, the judge runs the same request with a stand-in
forward that returns new tensors of the reference's output shapes (candidate_host's `time` with
`stand_in`): the same loop, flush, copies and channel, nothing of the candidate's. The per-trial
gap it measures is the honest overhead; the candidate's blocks may exceed it by a small noise
margin only. Measured after the import, a candidate could slow the measurement itself and
widen its own allowance."""

import statistics
import time

BLOCKS = 5              # measured stand-in blocks (after one discarded warm-up block)
# The margin over the stand-in's per-trial gap. A real forward leaves the harness's own Python
# a little slower than the stand-in does (caches and allocator state it left behind: measured
# on the CPU, +0.03 ms per trial in one process, up to +0.15 ms under the Triton interpreter,
# whose forward is ~3 ms of Python), and either process may be descheduled for a moment (per
# block, spread over its trials). Both sides are medians over blocks: one slow block moves
# neither.
# On the H100 (2026-11-25) honest kernels' blocks showed 0.16-0.29 ms per trial more than the
# stand-in (GRU library 0.387 vs 0.147, GELU 0.338 vs 0.158, Triton matmul 0.327 vs 0.17, the
# GRU kernel with global flips 0.628 vs 0.34): 0.05 ms falsely rejected all of them.
MIN_MARGIN_MS = 0.3
RELATIVE_MARGIN = 0.25
BLOCK_MARGIN_MS = 0.5   # per block (one request's round trip), divided among its trials
# Past the allowance the judge's wall clock is charged to the candidate (its block means are
# raised); it is rejected only when the unaccounted time is gross: more than this, or more than
# it reports. The H100's GRU library kernel showed 0.39 and 0.56 ms per trial on two leases
# against an allowance of 0.51: an honest kernel is charged a little, not accused.
GROSS_MS = 0.5
CPU_MARGIN_MS = 2.0     # host clocks on a shared two-core CPU (tests only): scheduler noise


def stand_in_gaps(candidate, outputs, block, flush, warmup, seed):
    """Per-trial gaps (ms) of BLOCKS stand-in blocks of `block` trials in the candidate process,
    as the judge measures a candidate block. `outputs`: (dtype, shape, nbytes) of each of the
    reference's outputs (each trial copies new tensors of those into shared buffers)."""
    sizes = [max(nbytes, 1) for _, _, nbytes in outputs]
    ids = candidate.share(sizes * block)
    stand_in = [{"dtype": str(dtype).replace("torch.", ""), "shape": list(shape)}
                for dtype, shape, _ in outputs]
    trials = [{"args": [], "outputs": ids[index * len(sizes):(index + 1) * len(sizes)]}
              for index in range(block)]
    gaps = []
    try:
        for index in range(1 + BLOCKS):
            began = time.perf_counter()
            reply = candidate.request({"op": "time", "trials": trials, "stand_in": stand_in,
                                       "warmup": warmup if index == 0 else 0, "flush": flush,
                                       "seed": seed})
            wall_ms = (time.perf_counter() - began) * 1e3
            if index:
                gaps.append((wall_ms - sum(reply["ms"])) / block)
    finally:
        candidate.release(ids)
    return gaps


def allowed_gap(gaps, block, cpu):
    """The per-trial gap a candidate block may show: the stand-in's median plus the margin."""
    honest = statistics.median(gaps)
    margin = max(MIN_MARGIN_MS, RELATIVE_MARGIN * honest) + BLOCK_MARGIN_MS / block
    return honest + margin + (CPU_MARGIN_MS if cpu else 0.0)
