"""Whether a second process's CUDA context on the same GPU slows a per-call timed loop (timing
parity, issue 18). kforge's judge holds a context beside the candidate process's, and draws,
compares and times its baselines there; the benches that read as KernelBench ran in one process.
Each mode times the KernelBench-style loop (L2 flush, events around one call, synchronise) of
bench/parity/softmax_split.py (3 launches) on tasks/softmax.py in this process, with:

  alone       no other process on the GPU;
  idle        another process holding a CUDA context and 1 GiB, asleep;
  polling     the other process calling torch.cuda.synchronize() every 1 ms (no work);
  drawing     the other process drawing a 4096x16384 randn every 5 ms (the judge's fresh sets).

Prints, per mode, the median GPU time per call and the median host time of the call's launches.

    python3 bench/parity/second_context.py [--trials 200]"""
import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def other(mode, ready, stop):
    import torch
    hold = torch.empty(1 << 28, device="cuda")  # 1 GiB
    torch.cuda.synchronize()
    ready.set()
    while not stop.is_set():
        if mode == "idle":
            time.sleep(0.05)
        elif mode == "polling":
            torch.cuda.synchronize()
            time.sleep(0.001)
        elif mode == "drawing":
            hold[: 4096 * 16384].normal_()
            time.sleep(0.005)
    del hold


def timed_loop(trials):
    import importlib.util
    import torch
    sys.path.insert(0, REPO)
    spec = importlib.util.spec_from_file_location("cand", os.path.join(HERE, "softmax_split.py"))
    cand = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cand)
    model = cand.ModelNew().cuda()
    x = torch.randn(4096, 16384, device="cuda")
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    for _ in range(5):
        model(x)
    torch.cuda.synchronize()
    gpu, host = [], []
    for _ in range(trials):
        flush.fill_(1)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        began = time.perf_counter()
        model(x)
        host.append((time.perf_counter() - began) * 1e3)
        end.record()
        torch.cuda.synchronize()
        gpu.append(start.elapsed_time(end))
    return statistics.median(gpu), statistics.median(host)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    context = multiprocessing.get_context("spawn")
    rows = []
    for round_ in range(args.rounds):
        for mode in ("alone", "idle", "polling", "drawing"):
            stop, ready = context.Event(), context.Event()
            helper = None
            if mode != "alone":
                helper = context.Process(target=other, args=(mode, ready, stop))
                helper.start()
                ready.wait(120)
            with context.Pool(1) as pool:  # the timed loop in a fresh process each time
                gpu_ms, host_ms = pool.apply(timed_loop, (args.trials,))
            stop.set()
            if helper is not None:
                helper.join(30)
            rows.append({"round": round_ + 1, "mode": mode, "gpu_ms": round(gpu_ms, 4),
                         "host_ms": round(host_ms, 4)})
            print(json.dumps(rows[-1]), flush=True)


if __name__ == "__main__":
    main()
