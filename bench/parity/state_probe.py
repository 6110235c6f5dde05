"""Which part of the candidate process's in-process set-up slows a host-bound candidate
(timing parity, docs/bench/judge_split.md). One process, one candidate: KernelBench's per-call
loop (new events, record, call, record, synchronise; median of TRIALS) measured at cumulative
stages, each twice, so the step in which the loop slows down names the cause:

  fresh       torch, the task and the candidate imported, nothing else
  aten        + a CPU-only profiler session (trust_ops.AtenRecorder, as the warm pool does)
  cuda_prof   + a CUDA profiler session (launches.profile_forward, the own-kernel share)
  audit       + trust.child_setup (audit hook, rlimits, the stream-switch wrapper)
  guard       + the Guard's snapshot and three guarded calls
  slots       + ten distinct input copies rotated per trial, the output copied out after each

    python3 bench/parity/state_probe.py CANDIDATE TASK [--trials 200]
    TEARDOWN_CUPTI=1 python3 bench/parity/state_probe.py ...   (Kineto finalises CUPTI after a session)
    TEARDOWN_CUPTI=0 python3 bench/parity/state_probe.py ...   (as the candidate process runs)

Each stage also prints the host time of one forward (`host_us`, the launch path): in the
candidate process it was about twice a fresh process's on the H200 (docs/bench/gpu_h200_20261128.md).
"""
import argparse
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
    task = load(args.task, "probe_task")
    module = load(args.candidate, "probe_candidate")
    model, inputs = model_and_inputs(task, module, "cuda")
    rotating = [[v.clone() if isinstance(v, torch.Tensor) else v for v in inputs]
                for _ in range(10)]
    sink = None

    def loop(sets, copy_out):
        nonlocal sink
        with torch.no_grad():
            for _ in range(3):
                model(*sets[0])
            torch.cuda.synchronize()
            samples, host = [], []
            for trial in range(args.trials):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                called = time.perf_counter()
                out = model(*sets[trial % len(sets)])
                host.append((time.perf_counter() - called) * 1e6)
                end.record()
                torch.cuda.synchronize()
                samples.append(start.elapsed_time(end))
                if copy_out:
                    if sink is None:
                        sink = out.clone()
                    sink.copy_(out)
            return statistics.median(samples), statistics.median(host)

    rows = []

    def measure(stage, sets=(None,), copy_out=False):
        chosen = [inputs] if sets == (None,) else sets
        runs = [loop(chosen, copy_out) for _ in range(2)]
        rows.append({"stage": stage, "ms": [round(ms, 4) for ms, _ in runs],
                     "host_us": [round(us, 1) for _, us in runs]})
        print(json.dumps(rows[-1]), flush=True)

    measure("fresh")
    from kforge_worker.trust_ops import AtenRecorder
    with AtenRecorder():
        torch.empty(1)
    measure("aten")
    from kforge_worker.launches import profile_forward
    with torch.no_grad():
        profile_forward(lambda: model(*inputs), set())
    measure("cuda_prof")
    from kforge_worker import trust
    trust.child_setup(tempfile.mkdtemp(prefix="kforge-probe-"))
    measure("audit")
    guard_as_candidate(module, model, inputs)
    measure("guard")
    measure("slots", rotating, copy_out=True)
    print(json.dumps({"candidate": os.path.basename(args.candidate),
                      "teardown_cupti": os.environ.get("TEARDOWN_CUPTI", ""),
                      "device": torch.cuda.get_device_name(), "torch": torch.__version__,
                      "stages": rows}))


if __name__ == "__main__":
    main()
