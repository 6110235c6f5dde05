"""Host overhead per timed call, on the CPU (issue 18, timing parity): the window a timed call's
events would see is host-bound for small multi-launch candidates, so whatever the candidate
process's Python does around it counts. Host clocks stand in for CUDA events.

  kforge       `evaluate` with time_on_cpu through a worker: the candidate process's timed calls
               (candidate_host.op_time -> timing.time_block), median and first-in-block median;
  kernelbench  KernelBench's loop in a fresh process (warm-up 3; record, call, record);
  in-process   the same loop with, between trials (outside the window), what kforge's loop runs
               there: seeding.seed_all (torch.manual_seed) or seeding.seed_forward.

The candidate is bench/parity/fake_launch.py: Triton's real launch path in Python (LAUNCHES
launches per forward) on a driver that launches nothing.

    .venv/bin/python bench/host_overhead.py [--rounds 3]"""

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKER = os.path.join(ROOT, "worker")
CANDIDATE = os.path.join(ROOT, "bench", "parity", "fake_launch.py")
TASK = "worker/tests/tasks/tiny_scale.py"


def in_process(trials=600):
    """KernelBench's window with nothing, seed_all or seed_forward between trials (us)."""
    sys.path.insert(0, WORKER)
    import torch
    from kforge_worker.seeding import seed_all, seed_forward
    torch.set_num_threads(1)
    spec = importlib.util.spec_from_file_location("fake_launch", CANDIDATE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.ModelNew().eval()
    x = torch.randn(4, 8)
    out = {}
    with torch.no_grad():
        for _ in range(3):
            model(x)
        for name, between in (("nothing", None), ("seed_all", lambda: seed_all(424242)),
                              ("seed_forward", lambda: seed_forward(424242))) * 2:
            samples = []
            for _ in range(trials):
                if between is not None:
                    between()
                began = time.perf_counter()
                model(x)
                samples.append((time.perf_counter() - began) * 1e6)
            out[name] = statistics.median(samples)
        costs = {}
        for name, fn in (("seed_all", seed_all), ("seed_forward", seed_forward)):
            began = time.perf_counter()
            for _ in range(200):
                fn(424242)
            costs[name] = (time.perf_counter() - began) / 200 * 1e6
    return out, costs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--standalone", action="store_true")
    args = parser.parse_args()
    if args.standalone:
        print(json.dumps(in_process()))
        return
    env = dict(os.environ, PYTHONPATH=WORKER, TRITON_INTERPRET="1")
    worker = subprocess.Popen([sys.executable, "-m", "kforge_worker", "--cpu"], cwd=ROOT,
                              env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              bufsize=1)
    rows = {"kforge": [], "kforge_first_in_block": [], "kernelbench": [], "seed_all": [],
            "seed_forward": [], "nothing": []}
    costs = None
    for index in range(args.rounds):
        worker.stdin.write(json.dumps({
            "id": index, "op": "evaluate", "task_path": TASK, "candidate_path": CANDIDATE,
            "device": "cpu", "shrink": True, "timeout_s": 120, "trials": 200, "warmup": 5,
            "time_on_cpu": True, "allow_pytorch_only": True,
            "check_generalization": False}) + "\n")
        worker.stdin.flush()
        result = json.loads(worker.stdout.readline())["result"]
        if result["status"] != "ok":
            raise SystemExit(f"{result['status']}: {result['error'][:1000]}")
        timing = result["timing"]["candidate"]
        rows["kforge"].append(timing["median_ms"] * 1e3)
        rows["kforge_first_in_block"].append(timing["first_in_block_median_ms"] * 1e3)
        done = subprocess.run([sys.executable, __file__, "--standalone"], capture_output=True,
                              text=True, env=env, cwd=ROOT)
        windows, costs = json.loads(done.stdout.splitlines()[-1])
        rows["kernelbench"].append(windows["nothing"])
        for name in ("seed_all", "seed_forward", "nothing"):
            rows[name].append(windows[name])
    worker.stdin.write(json.dumps({"id": 999, "op": "shutdown"}) + "\n")
    worker.stdin.flush()
    medians = {name: statistics.median(values) for name, values in rows.items()}
    print(f"host window per call, {CANDIDATE.split(ROOT + os.sep)[1]} "
          f"(6 launches), medians of {args.rounds} rounds (us):")
    print(f"  kforge candidate process (time_block)  {medians['kforge']:.1f}"
          f"   (first trial of a block: {medians['kforge_first_in_block']:.1f})")
    print(f"  KernelBench loop, fresh process         {medians['kernelbench']:.1f}")
    print(f"  same loop, seed_all between trials      {medians['seed_all']:.1f}")
    print(f"  same loop, seed_forward between trials  {medians['seed_forward']:.1f}")
    print(f"cost of the seeding itself (outside the window): seed_all {costs['seed_all']:.0f} us, "
          f"seed_forward {costs['seed_forward']:.0f} us")
    print(json.dumps({"rounds": rows, "seed_cost_us": costs}))


if __name__ == "__main__":
    main()
