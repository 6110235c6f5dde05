"""Evaluate task/candidate pairs through one warm worker and print one line per evaluation:
status, reasons, timings (candidate, eager, compile, CUDA graph), the wall-clock cross-check,
the confinement used and where the request's time went. For proving the judge on a GPU in one
command:

    python3 bench/judge_run.py --pair tasks/softmax.py:library/softmax/candidate.py \
        --pair tasks/39_GRU.py:library/gru_out/candidate.py --json out.json
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pair", action="append", default=[], help="TASK:CANDIDATE")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--baselines", default="eager,compile,cuda_graph")
    parser.add_argument("--shrink", action="store_true")
    parser.add_argument("--json", default="")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--no-generalization", action="store_true")
    parser.add_argument("--worker-path", default=os.path.join(ROOT, "worker"),
                        help="another worker tree (e.g. an older commit's, to compare)")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=os.path.abspath(args.worker_path))
    command = [sys.executable, "-m", "kforge_worker"] + (["--cpu"] if args.device == "cpu" else [])
    worker = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                              text=True, bufsize=1)
    results = []
    for number, pair in enumerate([p for p in args.pair for _ in range(args.repeat)], 1):
        task, candidate = pair.split(":", 1)
        request = {"id": number, "op": "evaluate", "task_path": task, "candidate_path": candidate,
                   "device": args.device, "trials": args.trials, "shrink": args.shrink,
                   "baselines": args.baselines.split(","), "timeout_s": args.timeout,
                   "check_generalization": not args.no_generalization}
        began = time.monotonic()
        worker.stdin.write(json.dumps(request) + "\n")
        worker.stdin.flush()
        reply = json.loads(worker.stdout.readline())
        wall = time.monotonic() - began
        result = reply.get("result") or {"status": "request_error", "error": reply.get("error")}
        results.append({"task": task, "candidate": candidate, "wall_s": wall, "result": result})
        timing = result.get("timing") or {}

        def ms(name):
            value = (timing.get(name) or {}).get("median_ms")
            return f"{value:.4f}" if isinstance(value, (int, float)) else "-"
        speedup = result.get("speedup_vs_best_baseline")
        reasons = "; ".join(result.get("reasons") or []) or (result.get("error") or "")[:300]
        print(f"{os.path.basename(task):28s} {os.path.basename(os.path.dirname(candidate)) + '/' + os.path.basename(candidate):40s} "
              f"{result.get('status'):13s} cand {ms('candidate')} eager {ms('eager')} "
              f"compile {ms('compile')} graph {ms('cuda_graph')} "
              f"x_best {speedup if speedup is None else round(speedup, 3)} "
              f"gap {(timing.get('candidate') or {}).get('wall_gap_ms')} "
              f"allowed {timing.get('allowed_gap_ms')} wall {wall:.1f}s "
              f"conf {result.get('confinement')} | "
              f"{reasons.replace(chr(10), ' ')[:400]}", flush=True)
        print(f"    candidate_ops {result.get('candidate_ops_s')} warm {result.get('warm_start')} "
              f"child_s {result.get('child_s')}", flush=True)
        print(f"    phases {result.get('phases_s')} own_share {result.get('own_kernel_share')} "
              f"side_effects {result.get('side_effects')}", flush=True)
    worker.stdin.write(json.dumps({"id": 0, "op": "shutdown"}) + "\n")
    worker.stdin.flush()
    worker.wait(timeout=60)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(results, handle, indent=1, default=str)


if __name__ == "__main__":
    main()
