"""Timing parity (GPU): kforge's timing of small multi-launch candidates against KernelBench's
timer and a bare CUDA-event loop, on the same lease, with no harness code running in the timed
calls of the other two.

For each candidate: (1) kforge: an `evaluate` request through a warm worker, L2 flush off (as
KernelBench), the candidate's median; (2) KernelBench's `time_execution_with_cuda_event` loop
(warm-up 3, then per trial: record, call, record, synchronise), in a fresh process; (3) a bare
loop: record, N calls back to back, record, synchronise, divided by N, in a fresh process. Each
timer runs ROUNDS times, alternating, and the medians of the rounds are compared.

    python3 bench/timing_parity.py --chunks 1,2,4          # bench/parity/softmax_split.py
    python3 bench/timing_parity.py my_candidate.py ...      # any candidates of --task
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "worker"))


def standalone(timer, task_path, candidate_path, trials):
    """Runs in a fresh process: time the candidate with `timer`, print the median ms."""
    import torch
    from kforge_worker.seeding import seed_all
    from kforge_worker.task_loader import load_candidate, load_task
    task = load_task(task_path)
    if timer.endswith("_audited"):  # the candidate process's in-process guard installed
        import tempfile
        from kforge_worker import trust
        trust.child_setup(tempfile.mkdtemp())
    module, model_new = load_candidate(candidate_path, candidate_path)
    seed_all(1000)
    model = model_new(*task.init_inputs()).cuda().eval()
    seed_all(1)
    inputs = [value.cuda() if isinstance(value, torch.Tensor) else value
              for value in task.inputs()]
    if timer.endswith("_vmm"):  # inputs in shared buffers, as the candidate process gets them
        from kforge_worker.shared_memory import SharedBuffer
        buffers = [SharedBuffer("cuda", v.numel() * v.element_size()) for v in inputs]
        inputs = [b.view(v.dtype, v.shape) for b, v in zip(buffers, inputs)]
        for view, value in zip(inputs, [x.clone() for x in inputs]):
            view.copy_(value)
    sink = None
    if timer.endswith("_copyout"):  # each output copied out after its trial, as kforge does
        sink = model(*inputs).clone()
    with torch.no_grad():
        for _ in range(3):
            model(*inputs)
            torch.cuda.synchronize()
        if timer.startswith("kernelbench"):
            samples = []
            for _ in range(trials):
                torch.cuda.synchronize()
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                output = model(*inputs)
                end.record()
                torch.cuda.synchronize()
                samples.append(start.elapsed_time(end))
                if sink is not None:
                    sink.copy_(output)
            print(json.dumps({"median_ms": statistics.median(samples)}))
        else:
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(trials):
                model(*inputs)
            end.record()
            torch.cuda.synchronize()
            print(json.dumps({"median_ms": start.elapsed_time(end) / trials}))


def run_standalone(timer, task, candidate, trials):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "worker"))
    done = subprocess.run([sys.executable, __file__, "--standalone", timer, "--task", task,
                           "--trials", str(trials), candidate], capture_output=True, text=True,
                          env=env, timeout=600)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise SystemExit(f"{timer} timer failed for {candidate}:\n{done.stderr[-2000:]}")
    return json.loads(lines[-1])["median_ms"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("candidates", nargs="*")
    parser.add_argument("--chunks", default="1,2,4",
                        help="without candidates: bench/parity/softmax_split.py with these CHUNKS")
    parser.add_argument("--task", default="tasks/softmax.py")
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--standalone", default="")
    parser.add_argument("--json", default="")
    parser.add_argument("--variants", default="",
                        help="also time these KernelBench-loop variants: kernelbench_vmm, "
                             "kernelbench_audited, kernelbench_copyout (which part of kforge's "
                             "setting costs time)")
    args = parser.parse_args()
    if args.standalone:
        return standalone(args.standalone, args.task, args.candidates[0], args.trials)
    if not args.candidates:
        import tempfile
        folder = tempfile.mkdtemp(prefix="kforge-parity-")
        with open(os.path.join(ROOT, "bench", "parity", "softmax_split.py")) as handle:
            template = handle.read()
        for chunks in args.chunks.split(","):
            path = os.path.join(folder, f"softmax_split_{chunks}.py")
            with open(path, "w") as handle:
                handle.write(template.replace("\nCHUNKS = 1\n", f"\nCHUNKS = {int(chunks)}\n"))
            args.candidates.append(path)
    import torch
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "worker"))
    worker = subprocess.Popen([sys.executable, "-m", "kforge_worker"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, env=env, text=True, bufsize=1)
    rows = []
    for number, candidate in enumerate(args.candidates):
        variants = [v for v in args.variants.split(",") if v]
        times = {"kforge": [], "kernelbench": [], "bare": [], **{v: [] for v in variants}}
        for round_index in range(args.rounds):
            request = {"id": number * 100 + round_index, "op": "evaluate",
                       "task_path": args.task, "candidate_path": candidate, "device": "cuda",
                       "trials": args.trials, "flush_l2": False, "baselines": ["eager"],
                       "check_generalization": False, "profile": False}
            worker.stdin.write(json.dumps(request) + "\n")
            worker.stdin.flush()
            result = json.loads(worker.stdout.readline())["result"]
            if result["status"] != "ok":
                raise SystemExit(f"{candidate}: {result['status']}: {result['error'][:500]}")
            times["kforge"].append(result["timing"]["candidate"]["median_ms"])
            times["kernelbench"].append(run_standalone("kernelbench", args.task, candidate,
                                                       args.trials))
            times["bare"].append(run_standalone("bare", args.task, candidate, args.trials))
            for variant in variants:
                times[variant].append(run_standalone(variant, args.task, candidate, args.trials))
        medians = {name: statistics.median(values) for name, values in times.items()}
        row = {"candidate": candidate, **{f"{k}_ms": v for k, v in medians.items()},
               "kforge_vs_kernelbench": medians["kforge"] / medians["kernelbench"],
               "kforge_vs_bare": medians["kforge"] / medians["bare"], "rounds": times}
        rows.append(row)
        print(f"{os.path.basename(candidate):24s} kforge {medians['kforge']:.4f} ms  kernelbench "
              f"{medians['kernelbench']:.4f} ms  bare {medians['bare']:.4f} ms  "
              f"kforge/kernelbench {row['kforge_vs_kernelbench']:.3f}  "
              f"kforge/bare {row['kforge_vs_bare']:.3f}" + "".join(
                  f"  {v} {medians[v]:.4f}" for v in variants), flush=True)
    worker.stdin.write(json.dumps({"id": 0, "op": "shutdown"}) + "\n")
    worker.stdin.flush()
    header = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "task": args.task, "trials": args.trials, "rounds": args.rounds}
    print(json.dumps(header))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"header": header, "rows": rows}, handle, indent=1)


if __name__ == "__main__":
    main()
