"""GPU timing: CUDA events, warm-up, L2 flush before every trial, interleaved runners.

All runners (the candidate, the eager reference, the baselines) are timed in the same process and
alternate trial by trial (the order rotates every len(input_sets) trials), so clock and thermal
drift hit all of them alike. Each trial: synchronise, flush L2 (write a buffer >= 2x the L2
size; not waited for, as KernelBench's timer), then time one forward with CUDA events and,
around it, host wall time (perf_counter up to the synchronise after the forward). Host time
much larger than event time hints at work the events did not see (side streams). The first trial is discarded. Inputs rotate among several
pre-generated sets.

Timed calls can be checked too (`keep`): a candidate may be honest in the correctness checks
and cheat only once the same tensors keep coming back. Its output is copied to the host after the
trial's synchronise (off the timed region), from the last trial per input set in which it ran
first: in any other trial a runner just computed the same answer, and memory it freed may
still hold it (stale memory would pass). With more than one input set, the previous trial
always used another one, so its leftovers are another set's answer.

A runner is `prepare(inputs) -> fn`: prepare is untimed (e.g. copying into a CUDA graph's static
inputs) and fn() is the timed forward."""

import gc
import math
import statistics
import time

import torch

from kforge_worker.seeding import seed_forward

# KernelBench's clear_l2_cache fills a 256 MiB tensor before every trial; kforge flushes as much
# (or twice the L2, were that larger). The size matters beyond the cache: the fill is not waited
# for, so it hides the call's host launch path for as long as it runs. With 2 x L2 (100 MB on
# the H100) kforge read a 2-launch candidate 40% slower than KernelBench's loop in the same
# process (bench/parity/host_probe.py, H100, 2026-11-25).
KERNELBENCH_FLUSH_BYTES = 256 * 1024 * 1024
# The warm-up calls before a timed block stop once they have taken this much host time (after
# one call at least): a whole discarded block (round 0 of evaluate's timing) follows them anyway.
# A host-bound reference (cuDNN's GRU, ~60 ms a call on the H100) spent 0.6 s of every
# evaluation per runner on its 10 calls; a GPU-bound one returns at once and still queues all 10.
WARMUP_WALL_S = 0.1


# Round 0 of evaluate's timing is a warm-up and discarded: for a reference this slow or slower
# per call it runs this much wall time (two trials at least), not a whole block. cuDNN's GRU
# (~45 ms a call, host-bound) spent 0.45 s of every evaluation on its 10 discarded trials (H200,
# session 19).
WARMUP_ROUND_S = 0.1


def warm_up_round_trials(block, reference_call_s):
    """Trials in round 0 for a reference whose checked call took `reference_call_s` (None:
    unknown, a whole block)."""
    if not reference_call_s or reference_call_s <= 0:
        return block
    return min(block, max(2, math.ceil(WARMUP_ROUND_S / reference_call_s)))


def warm_up_calls(fns, count):
    """Up to `count` calls of `fns` in turn, fewer past WARMUP_WALL_S of host time."""
    began = time.perf_counter()
    for index in range(count):
        fns[index % len(fns)]()
        if time.perf_counter() - began > WARMUP_WALL_S:
            break


def l2_flush_buffer(device):
    props = torch.cuda.get_device_properties(device)
    l2 = getattr(props, "L2_cache_size", 0) or 0
    return torch.empty(max(2 * l2, KERNELBENCH_FLUSH_BYTES) // 8, dtype=torch.int64,
                       device=device)


def flush_time_ms(flush, trials=5):
    """GPU ms of one L2 flush (the fill before every trial): how much of a call's host launch
    path it hides, since the call's launches queue behind it."""
    samples = []
    for _ in range(trials):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        flush.fill_(42)
        end.record()
        torch.cuda.synchronize()
        samples.append(start.elapsed_time(end))
    return statistics.median(samples)


def host_bound_note(host_ms, flush_ms):
    """A note when a candidate's launch path per call (its process's report) outlasts the flush
    that hides it: the GPU then waits for the host inside the timed window, so the time holds
    host latency, which varies with the machine's momentary speed (on the H200 of 2026-11-28
    pure Python ran up to 2x slower for seconds at a time: bench/parity/seccomp_cost.py), and
    it is charged the harness's own in-process cost: a library GeLU read 0.019 or 0.11 ms."""
    if not host_ms or not flush_ms or host_ms <= flush_ms:
        return None
    return (f"host-bound: its launch path takes {host_ms:.3f} ms per call, longer than the L2 "
            f"flush ({flush_ms:.3f} ms) that hides it, so its time includes host latency and "
            f"varies with the machine; the CUDA graph baseline shows what the GPU work costs")


BLOCK_TRIALS = 10   # trials per block: one round trip to the candidate process (evaluate.py)


def block_stats(blocks_ms, host_ms=None, means=None):
    """A runner's Stats from its blocks of per-trial event times. The score's number,
    `median_ms`, is the median over blocks of each block's mean: a block's sum is what the
    judge's wall clock bounds, the split of it among the block's trials is the candidate
    process's to report (one slow trial and nine free ones have the median of a free one), so
    no statistic of single trials is trusted. The same for every runner, so ratios stay fair.
    `min_ms` is the fastest block's mean for the same reason; `std_ms`, `trial_median_ms` and
    `trial_min_ms` describe single trials (diagnostics). `means`: per-block means to use
    instead of the reported ones (the candidate's, raised where the wall clock says more)."""
    blocks_ms = [list(block) for block in blocks_ms if block]
    trials = [value for block in blocks_ms for value in block]
    means = list(means) if means is not None else [statistics.fmean(b) for b in blocks_ms]
    result = {"median_ms": statistics.median(means), "mean_ms": statistics.fmean(means),
              "std_ms": statistics.pstdev(trials) if len(trials) > 1 else 0.0,
              "min_ms": min(means), "trials": len(trials), "blocks": len(means),
              "trial_median_ms": statistics.median(trials), "trial_min_ms": min(trials)}
    if host_ms:
        result["host_median_ms"] = statistics.median(host_ms)
    return result


def stats(samples_ms, host_ms=None, block=BLOCK_TRIALS):
    """block_stats of consecutive trials taken `block` at a time (the interleaved loop of the
    baseline command, which has no blocks of its own)."""
    return block_stats([samples_ms[at:at + block] for at in range(0, len(samples_ms), block)],
                       host_ms)


MIN_TRIALS = 10


def host_copy(value):
    """A forward's result kept: tensors copied (on the host, or on the device when large:
    snapshots.snapshot), a tuple/list as a list, anything else as it is (the caller's comparison
    names it)."""
    if isinstance(value, torch.Tensor):
        from kforge_worker.snapshots import snapshot
        return snapshot(value)
    if isinstance(value, (list, tuple)):
        return [host_copy(item) for item in value]
    return value


def _order(names, trial, sets):
    """The runners of `trial`, rotated once every `sets` trials, so that every (order, input set)
    pair occurs whatever the counts (rotating with the trial index pairs a runner's position
    with one input set when the counts share a factor). Trials 1..sets (the first ones kept)
    run names[0] first on every input set."""
    shift = ((trial - 1) // sets) % len(names)
    return names[shift:] + names[:shift]


def time_interleaved(runners, input_sets, trials=100, warmup=10, flush_l2=True, checkpoint=None,
                     budget_s=None, keep=None):
    """Time `runners` {name: prepare} over `trials` (+1 discarded) trials each. `checkpoint()`,
    if given, runs after the last trial and before any event is read (the trust guard's hook).
    `budget_s` bounds the trial loop: when one round of all runners, as measured in the last
    warm-up round, would make `trials` rounds exceed it, fewer trials are run (never fewer than
    MIN_TRIALS); Stats.trials says how many.
    `keep` {name: dict}: each dict is filled with {input set index: (trial, host_copy(output))}
    of that runner's last kept trial on the set in which it ran first (see the module's doc).
    Returns ({name: Stats}, timed_s) where timed_s is the summed event time of every timed call."""
    device = torch.cuda.current_device()
    flush = l2_flush_buffer(device) if flush_l2 else None
    names = list(runners)
    with torch.no_grad():
        round_s = 0.0
        for index in range(max(warmup, 1)):
            began = time.perf_counter()
            for name in names:
                runners[name](input_sets[index % len(input_sets)])()
            torch.cuda.synchronize()
            round_s = time.perf_counter() - began
        if budget_s and round_s * trials > budget_s:
            trials = max(MIN_TRIALS, int(budget_s / max(round_s, 1e-9)))
        events = {name: [] for name in names}
        host = {name: [] for name in names}
        sets = len(input_sets)
        # Which trial's output to keep, per runner and input set: decided up front, so that
        # only those outputs are copied (not the discarded trial 0: the warm-up ran before it).
        keep_at = {}
        for name in keep or {}:
            for trial in range(1, trials + 1):
                if _order(names, trial, sets)[0] == name:
                    keep_at[(name, trial % sets)] = trial
        for trial in range(trials + 1):
            inputs = input_sets[trial % sets]
            for name in _order(names, trial, sets):
                fn = runners[name](inputs)
                torch.cuda.synchronize()
                if flush is not None:  # not waited for: as KernelBench's timer (time_block)
                    flush.fill_(42)  # as KernelBench fills its buffer
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                began = time.perf_counter()
                start.record()
                output = fn()
                end.record()
                torch.cuda.synchronize()
                host[name].append((time.perf_counter() - began) * 1e3)
                events[name].append((start, end))
                if keep_at.get((name, trial % sets)) == trial:  # after the sync: not timed
                    keep[name][trial % sets] = (trial, host_copy(output))
                del output  # freed before the next runner, as when outputs were not kept
    if checkpoint is not None:
        checkpoint()
    timed_s = 0.0
    result = {}
    for name in names:
        samples = [start.elapsed_time(end) for start, end in events[name]]
        timed_s += sum(samples) / 1e3
        result[name] = stats(samples[1:], host[name][1:])
    return result, timed_s


class _HostEvent:
    """A host-clock stand-in for a CUDA event (timing on the CPU: the CI's test of the timing
    path; no claim about speed is made from it)."""

    def __init__(self, enable_timing=True):
        self.at = None

    def record(self):
        self.at = time.perf_counter()

    def elapsed_time(self, end):
        return (end.at - self.at) * 1e3


def time_block(fns, flush, warmup=0, sink=None, after=None, cpu=False, seed=None, host=None):
    """One block of timed trials, the same loop in the judge (baselines) and in the candidate
    process: per trial (given `seed`) seed the RNG as before every checked forward
    (seeding.seed_forward: cheap, since whatever runs here leaves the next call's host path
    colder), synchronise, flush L2 (not waited for), CUDA events around one call, synchronise
    (KernelBench's current timer: synchronise, clear L2, record, call, record, synchronise); then,
    outside the events, the trial's outputs go to `after(index, output)` or are copied into
    `sink` (a list of tensors), so both sides do the same per-trial work besides the call.
    Returns (event ms per trial, wall seconds of the block after the warm-up); `host`, a list,
    gets each call's host ms (the launch path, which the flush must hide for the window to hold
    GPU time only: a diagnostic). `cpu`: host clocks instead of CUDA events (tests only).
    Python's garbage collector is off during the block (as timeit does): a collection lands
    between two trials at random, on either side, and one that happened to fall outside the
    events read as the candidate's unaccounted time (calibration.py)."""
    event = _HostEvent if cpu else torch.cuda.Event
    synchronize = (lambda: None) if cpu else torch.cuda.synchronize
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _block(fns, flush, warmup, sink, after, seed, event, synchronize,
                      host if host is not None else [])
    finally:
        if collecting:
            gc.enable()


def _block(fns, flush, warmup, sink, after, seed, event, synchronize, host):
    with torch.no_grad():
        warm_up_calls(fns, warmup)
        synchronize()
        samples = []
        began = time.perf_counter()
        for index, fn in enumerate(fns):
            if seed is not None:  # a forward drawing random numbers (h0) draws what was checked
                seed_forward(seed)
            synchronize()
            # The flush is not waited for, as in KernelBench's timer (synchronise, clear L2,
            # record, call): the call's launches queue behind it, so a host-bound forward's
            # launch path overlaps the flush instead of idling the GPU inside the window. With
            # a synchronise between the two, kforge read 2.0x KernelBench's time for a 0.1 ms
            # two-launch candidate (H100, 2026-11-25, bench/timing_parity.py).
            if flush is not None:
                flush.fill_(42)  # as KernelBench fills its buffer
            start = event(enable_timing=True)
            end = event(enable_timing=True)
            start.record()
            called = time.perf_counter()
            output = fn()
            returned = time.perf_counter()
            end.record()
            synchronize()
            samples.append(start.elapsed_time(end))
            host.append((returned - called) * 1e3)
            if after is not None:
                after(index, output)
            elif sink is not None:
                items = list(output) if isinstance(output, (list, tuple)) else [output]
                for target, item in zip(sink, items):
                    if isinstance(item, torch.Tensor) and item.shape == target.shape:
                        target.copy_(item)
            del output
        synchronize()
        wall = time.perf_counter() - began
    return samples, wall


def eager_runner(model):
    return lambda inputs: (lambda: model(*inputs))


def compile_runner(model, sample_inputs):
    """torch.compile'd model, compiled on a sample. Returns (runner, None) or (None, reason).
    Compiled in this process (compile_threads = 1): a pool of compile workers would be started
    afresh in every evaluation child, and would be programs the sandbox has to allow."""
    try:
        import torch._inductor.config as inductor_config
        inductor_config.compile_threads = 1
        compiled = torch.compile(model)
        with torch.no_grad():
            compiled(*sample_inputs)
        torch.cuda.synchronize()
    except Exception as error:
        return None, f"torch.compile failed: {type(error).__name__}: {str(error)[:300]}"
    return eager_runner(compiled), None


def cuda_graph_runner(model, sample_inputs):
    """The eager model captured in a CUDA graph with static inputs; prepare() copies the trial's
    inputs into them (untimed), fn() replays. Returns (runner, None) or (None, reason)."""
    try:
        static = [item.clone() if isinstance(item, torch.Tensor) else item
                  for item in sample_inputs]
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.no_grad(), torch.cuda.stream(stream):
            for _ in range(3):
                model(*static)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.no_grad(), torch.cuda.graph(graph):
            model(*static)
        torch.cuda.synchronize()
    except Exception as error:
        return None, f"CUDA graph capture failed: {type(error).__name__}: {str(error)[:300]}"

    def prepare(inputs):
        for target, source in zip(static, inputs):
            if isinstance(target, torch.Tensor):
                target.copy_(source)
        return graph.replay

    return prepare, None
