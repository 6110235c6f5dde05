"""Where a host-bound candidate's extra time comes from at cold cache (timing parity, issue 18).
One process, one candidate, cumulative stages of the candidate process's in-process set-up; at
each stage, three numbers:

  host_us     host time of one forward (perf_counter around the call, synchronised outside it;
              median of TRIALS): what the L2 flush must hide for the window to hold GPU time only
  kb_ms       KernelBench's current timer (synchronise, new events, clear L2, record, call,
              record, synchronise; mean, first trial dropped)
  block_ms    kforge's own loop (timing.time_block with its preallocated flush, seeded; median)

Stages: fresh, audit (trust.child_setup), guard (the Guard's snapshot and three guarded calls),
watch (the timed calls' operator recorder on, as candidate_host.TimedCallWatch: the C++ one
where it builds, timed_recorder.py), watch_stopped (the same after it stops). Last, with the
recorder still on, the audit events and profiler operators one forward raises, by name.

    python3 bench/parity/host_probe.py CANDIDATE TASK [--trials 200]
"""
import argparse
import collections
import json
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "worker"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from candidate_state import guard_as_candidate, load, model_and_inputs  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("candidate")
    parser.add_argument("task")
    parser.add_argument("--trials", type=int, default=200)
    args = parser.parse_args()
    import torch
    from kforge_worker import timing
    task = load(args.task, "probe_task")
    module = load(args.candidate, "probe_candidate")
    model, inputs = model_and_inputs(task, module, "cuda")
    flush = timing.l2_flush_buffer(torch.cuda.current_device())
    forward = lambda: model(*inputs)  # noqa: E731

    def host_us():
        samples = []
        for _ in range(args.trials):
            torch.cuda.synchronize()
            began = time.perf_counter()
            forward()
            samples.append((time.perf_counter() - began) * 1e6)
        torch.cuda.synchronize()
        return statistics.median(samples)

    def kb_ms():
        samples = []
        for _ in range(args.trials + 1):
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            dummy = torch.empty((32, 1024, 1024), dtype=torch.int64, device="cuda")
            dummy.fill_(42)
            del dummy
            start.record()
            forward()
            end.record()
            torch.cuda.synchronize()
            samples.append(start.elapsed_time(end))
        return statistics.mean(samples[1:])

    def block_ms():
        samples = []
        for block in range(max(1, args.trials // 10)):
            ms, _ = timing.time_block([forward] * 10, flush, 3 if not block else 0, sink=[],
                                      seed=12345)
            samples += ms
        return statistics.median(samples)

    rows = []

    def measure(stage):
        with torch.no_grad():
            for _ in range(5):
                forward()
            row = {"stage": stage, "host_us": round(host_us(), 1), "kb_ms": round(kb_ms(), 4),
                   "block_ms": round(block_ms(), 4), "host_us_again": round(host_us(), 1)}
        rows.append(row)
        print(json.dumps(row), flush=True)

    from kforge_worker import timed_recorder
    path, why = timed_recorder.library()
    measure("fresh")
    from kforge_worker import trust
    trust.child_setup(tempfile.mkdtemp(prefix="kforge-probe-"))
    measure("audit")
    from kforge_worker.trust_ops import AtenRecorder
    with AtenRecorder():
        torch.empty(1)
    guard_as_candidate(module, model, inputs)
    measure("guard")
    # the timed calls' recorder as the worker runs it: the C++ one where it builds here (built
    # before the audit policy, as the worker builds it outside the sandbox)
    if path:
        os.environ[timed_recorder.ENV] = path
        timed_recorder.load()
    recorder = timed_recorder.recorder("kforge-probe-mark")
    print(json.dumps({"timed_recorder": recorder.kind, "why_not_native": why}), flush=True)
    recorder.start()
    measure("watch")
    # what a real timed block does between two trials and this loop leaves out: the output
    # copied into a buffer of the judge's (here a plain one), the recorder's mark
    with torch.no_grad():
        target = torch.empty_like(forward())

    def between(index, output):
        with torch.autograd.profiler.record_function("kforge-probe-mark"):
            pass
        target.copy_(output)

    def block_variant(after=None, seed=12345):
        samples = []
        with torch.no_grad():
            for block in range(max(1, args.trials // 10)):
                ms, _ = timing.time_block([forward] * 10, flush, 3 if not block else 0,
                                          sink=None if after else [], after=after, seed=seed)
                samples += ms
        return round(statistics.median(samples), 4)

    print(json.dumps({"stage": "watch, the loop's variants",
                      "block_ms": block_variant(), "unseeded": block_variant(seed=None),
                      "with_copy_and_mark": block_variant(after=between),
                      "block_ms_again": block_variant(), "kb_ms": round(kb_ms(), 4)}),
          flush=True)
    recorder.stop()
    measure("watch_stopped")
    recorder = timed_recorder.recorder("kforge-probe-mark")
    recorder.start()
    events = collections.Counter()
    counting = [False]

    def count(event, _args):
        if counting[0]:
            events[event] += 1

    sys.addaudithook(count)
    from torch.profiler import profile, ProfilerActivity
    with torch.no_grad():
        counting[0] = True
        for _ in range(10):
            forward()
        counting[0] = False
    recorder.stop()
    with profile(activities=[ProfilerActivity.CPU]) as prof, torch.no_grad():
        forward()
    operators = collections.Counter(e.name for e in prof.events())
    print(json.dumps({"candidate": os.path.basename(args.candidate),
                      "device": torch.cuda.get_device_name(), "torch": torch.__version__,
                      "audit_events_per_forward": {k: v / 10 for k, v in events.most_common(20)},
                      "profiler_events_per_forward": dict(operators.most_common(20)),
                      "stages": rows}))


if __name__ == "__main__":
    main()
