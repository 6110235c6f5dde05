"""Where one library RNN candidate's forward spends its time on the GPU, at the task shapes.

    PYTHONPATH=worker python3 bench/profile_rnn_candidate.py [--tasks 35,39] [--trials 20]

For each task: (1) one forward under torch.profiler: every GPU kernel with its start (us after the
first kernel's start) and duration, and the idle gaps between them, so host launch overhead shows
as gaps; (2) the worker's timer (L2 flushed, median) on the module call and on the candidate's
rnn_forward called directly (the same work without the module and the final linear), side by side.
A diagnostic for kernel work, not a speed claim: bench_rnn_library.py makes those."""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "worker"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import torch  # noqa: E402

from bench_rnn_library import ENTRIES, build, inputs_for  # noqa: E402
from kforge_worker.task_loader import load_candidate, load_task  # noqa: E402
from kforge_worker.timing import eager_runner, time_interleaved  # noqa: E402


def kernel_timeline(fn):
    """[(name, start_us, duration_us)] of the GPU kernels and copies one call of fn launches."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    events = [e for e in prof.events()
              if e.device_type == torch.autograd.DeviceType.CUDA and e.time_range.elapsed_us() > 0]
    events.sort(key=lambda e: e.time_range.start)
    if not events:
        return []
    t0 = events[0].time_range.start
    return [(e.name, e.time_range.start - t0, e.time_range.elapsed_us()) for e in events]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", default="35,39")
    parser.add_argument("--trials", type=int, default=20)
    args = parser.parse_args()
    props = torch.cuda.get_device_properties(0)
    print(f"device: {props.name}; torch {torch.__version__}")
    for number in [int(n) for n in args.tasks.split(",")]:
        task_name, entry = ENTRIES[number]
        task = load_task(os.path.join(ROOT, "tasks", f"{task_name}.py"))
        module, model_new = load_candidate(os.path.join(ROOT, "library", entry, "candidate.py"),
                                           f"library/{entry}/candidate.py")
        _, candidate = build(task, model_new)
        inputs = inputs_for(task, 31)
        rnn = getattr(candidate, "lstm", None) or candidate.gru
        lstm = hasattr(candidate, "lstm")
        h0 = candidate.h0.to("cuda")
        c0 = candidate.c0.to("cuda") if lstm else None

        def direct(_inputs):
            return lambda: module.rnn_forward(rnn, candidate._packed, inputs[0], h0, c0, lstm)

        with torch.no_grad():
            candidate(*inputs)
            timeline = kernel_timeline(lambda: candidate(*inputs))
            timing, _ = time_interleaved({"module": eager_runner(candidate), "direct": direct},
                                         [inputs], trials=args.trials, warmup=3)
        print(f"\n{task_name}: module {timing['module']['median_ms']:.3f} ms, direct "
              f"rnn_forward {timing['direct']['median_ms']:.3f} ms (median of {args.trials})")
        end = 0.0
        for name, start, duration in timeline:
            gap = start - end
            print(f"  {start:9.1f} us  +{duration:8.1f} us  (gap {gap:7.1f})  {name[:90]}")
            end = max(end, start + duration)


if __name__ == "__main__":
    main()
