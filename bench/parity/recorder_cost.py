"""What the operator recorder costs a timed call on the GPU (issue 18: timed calls are observed
as checked ones, candidate_host.TimedCallWatch). KernelBench-style cold-cache loop (clear L2,
record, call, record, synchronise) over a small multi-launch candidate, with the recorder off,
kineto's CPU profiler on (with and without shapes), and the legacy (non-kineto) profiler on;
median event ms and host wall per trial. One process, TEARDOWN_CUPTI=1 as the worker sets it.

    source .carry/env.sh; python3 bench/parity/recorder_cost.py"""
import importlib.util
import json
import os
import statistics
import sys
import time

os.environ.setdefault("TEARDOWN_CUPTI", "1")
import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def loop(model, x, trials=200):
    flush = torch.empty(32 << 20, dtype=torch.int64, device="cuda")
    samples, walls = [], []
    for _ in range(trials):
        flush.fill_(42)
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        began = time.perf_counter()
        start.record()
        model(x)
        end.record()
        torch.cuda.synchronize()
        walls.append((time.perf_counter() - began) * 1e3)
        samples.append(start.elapsed_time(end))
    return statistics.median(samples), statistics.median(walls)


def recorders():
    from torch.profiler import ProfilerActivity, profile
    yield "off", None
    yield "kineto_cpu_shapes", lambda: profile(activities=[ProfilerActivity.CPU],
                                               record_shapes=True)
    yield "kineto_cpu", lambda: profile(activities=[ProfilerActivity.CPU])
    yield "legacy_shapes", lambda: torch.autograd.profiler.profile(use_kineto=False,
                                                                   record_shapes=True)
    yield "legacy", lambda: torch.autograd.profiler.profile(use_kineto=False)
    yield "off_again", None


def main():
    cases = [("gelu_scale", "bench/parity/gelu_scale.py", "bench/parity/gelu_scale_task.py"),
             ("softmax_split_1", "bench/parity/softmax_split.py", "tasks/softmax.py")]
    rows = []
    with torch.no_grad():
        for name, candidate, task in cases:
            task = _load(os.path.join(ROOT, task), "task_" + name)
            module = _load(os.path.join(ROOT, candidate), "cand_" + name)
            torch.manual_seed(0)
            model = module.ModelNew(*task.get_init_inputs()).cuda().eval()
            x = [v.cuda() for v in task.get_inputs()][0]
            loop(model, x, 20)
            for label, make in recorders():
                if make is None:
                    ms, wall = loop(model, x)
                else:
                    with make():
                        loop(model, x, 20)
                        ms, wall = loop(model, x)
                rows.append({"case": name, "recorder": label, "event_ms": round(ms, 4),
                             "wall_ms": round(wall, 4)})
                print(f"{name:16s} {label:18s} event {ms:.4f} ms  wall {wall:.4f} ms", flush=True)
    print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                      "rows": rows}))


if __name__ == "__main__":
    sys.exit(main())
