"""Does the profiler state the candidate process's warm-up leaves slow its launch path (GPU)?

Session 19's state_probe (H200, TEARDOWN_CUPTI=0 as in the candidate process) read a 2-launch
GeLU's host time per forward at 79 us after one CPU-only Kineto session (the checked calls'
recorder, AtenRecorder) and 44 us once a session with CUDA activity had run; with
TEARDOWN_CUPTI=1, 39-43 us throughout. The candidate process's warm-up (warm_up.py) ran only
CPU-only Kineto sessions, and its first session with CUDA activity came in the profile request,
after timing. This probe runs, in PROCESSES fresh processes each (alternating, so the host's slow spells hit
both), the real warm-up steps then the loop (KernelBench's per-call window), then guarded calls
and the loop again:

  plain         warm_up.steps as they are
  cuda_session  the same plus one session with CUDA activity (launches.profile_forward) after them

Result (H200, session 19, 3 processes each; the variant was then a warm-up step): host us per
forward after the warm-up plain 43.4 / 41.0 / 77.1, with the session 54.4 / 67.0 / 48.0; after
the checked calls 41.1 / 40.5 / 77.4 against 82.7 / 42.8 / 45.0. No effect: state_probe's 79 us
was one of the host's slow spells (pure Python up to 2x slower for seconds, parity/seccomp_cost.py),
and the step was dropped again.

    TEARDOWN_CUPTI=0 python3 bench/parity/cupti_state.py bench/parity/gelu_scale.py \
        bench/parity/gelu_scale_task.py [--processes 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def loop(model, inputs, trials):
    import torch
    with torch.no_grad():
        for _ in range(3):
            model(*inputs)
        torch.cuda.synchronize()
        samples, host = [], []
        for _ in range(trials):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            called = time.perf_counter()
            model(*inputs)
            host.append((time.perf_counter() - called) * 1e6)
            end.record()
            torch.cuda.synchronize()
            samples.append(start.elapsed_time(end))
    return round(statistics.median(samples), 4), round(statistics.median(host), 1)


def one_process(args):
    sys.path.insert(0, os.path.join(ROOT, "worker"))
    sys.path.insert(0, HERE)
    import torch
    from candidate_state import guard_as_candidate, load, model_and_inputs
    from kforge_worker import warm_up
    warm_up.warm_up("cuda")
    task = load(args.task, "probe_task")
    module = load(args.candidate, "probe_candidate")
    model, inputs = model_and_inputs(task, module, "cuda")
    if args.variant == "cuda_session":
        from kforge_worker.launches import profile_forward
        with torch.no_grad():
            profile_forward(lambda: model(*inputs), set())
    rows = {"after_warm_up": loop(model, inputs, args.trials)}
    guard_as_candidate(module, model, inputs)
    rows["after_checked_calls"] = loop(model, inputs, args.trials)
    print(json.dumps({"variant": args.variant, **rows}), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("candidate")
    parser.add_argument("task")
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--variant", choices=("plain", "cuda_session"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.variant:
        return one_process(args)
    env = dict(os.environ, TEARDOWN_CUPTI=os.environ.get("TEARDOWN_CUPTI", "0"))
    seen = {"plain": [], "cuda_session": []}
    for _ in range(args.processes):
        for variant in seen:
            out = subprocess.run([sys.executable, __file__, args.candidate, args.task,
                                  "--trials", str(args.trials), "--variant", variant],
                                 env=env, capture_output=True, text=True, timeout=300)
            lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
            if not lines:
                print(f"{variant}: failed\n{out.stderr[-2000:]}", flush=True)
                continue
            row = json.loads(lines[-1])
            print(json.dumps(row), flush=True)
            seen[variant].append(row)
    for variant, rows in seen.items():
        for stage in ("after_warm_up", "after_checked_calls"):
            if rows:
                print(f"{variant:12} {stage:20} ms {[r[stage][0] for r in rows]} "
                      f"host_us {[r[stage][1] for r in rows]}")


if __name__ == "__main__":
    main()
