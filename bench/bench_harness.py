"""What the harness itself costs, and how repeatable its timings are (GPU).

Drives one warm kforge-worker over its real protocol (the same pipe the C++ pool uses) and
evaluates each candidate REPEAT times in a row. For every evaluation it prints the request's
round-trip wall time, the time the forked child spent, and the timed work inside it; the
difference is the per-candidate overhead of a warm worker. It also prints the spread of the
candidate and eager medians across the repeats (the issue asks for two runs within 2%).

    python3 bench/bench_harness.py --pair tasks/softmax.py:library/softmax/candidate.py \
        --pair tasks/39_GRU.py:library/gru_out/candidate.py --repeat 2
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Worker:
    def __init__(self, python, cprofile=""):
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "worker"))
        if cprofile:
            os.makedirs(cprofile, exist_ok=True)
            env["KFORGE_EVALUATE_CPROFILE"] = os.path.abspath(cprofile)
        self.process = subprocess.Popen([python, "-m", "kforge_worker"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, env=env, text=True, bufsize=1)
        self.next_id = 0

    def request(self, op, **fields):
        self.next_id += 1
        self.process.stdin.write(json.dumps(dict(fields, id=self.next_id, op=op)) + "\n")
        self.process.stdin.flush()
        reply = json.loads(self.process.stdout.readline())
        if not reply.get("ok"):
            raise SystemExit(f"{op} failed: {reply.get('error')}")
        return reply["result"]

    def close(self):
        self.request("shutdown")
        self.process.wait(timeout=30)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", action="append", required=True, help="TASK:CANDIDATE")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--device", default="cuda",
                        help="cuda, or cpu (the Triton interpreter: the judge's own overhead, "
                             "profiled without a GPU; add --shrink)")
    parser.add_argument("--shrink", action="store_true", help="the task's shapes shrunk (CPU)")
    parser.add_argument("--baselines", default="eager",
                        help="comma-separated: eager (a pipeline's candidates) or "
                             "eager,compile,cuda_graph (kforge eval, suite eval)")
    parser.add_argument("--cprofile", default="",
                        help="folder: the worker's evaluate child writes its Python profile there "
                             "(evaluate_PID.prof; the 25 costliest calls are printed)")
    parser.add_argument("--gap-s", type=float, default=0.0,
                        help="seconds between a reply and the next request (a pipeline waits for "
                             "a model's reply there; the worker prepares the next judge)")
    parser.add_argument("--no-spare", action="store_true",
                        help="no judge prepared ahead (KFORGE_JUDGE_SPARE=0): the comparison")
    args = parser.parse_args()
    if args.no_spare:
        os.environ["KFORGE_JUDGE_SPARE"] = "0"

    started = time.perf_counter()
    worker = Worker(args.python, args.cprofile)
    hello = worker.request("hello")
    print(f"worker ready in {time.perf_counter() - started:.2f} s; device {hello.get('device')}; "
          f"python {hello['python']}, torch {hello['torch']}, triton {hello['triton']}, "
          f"cuda {hello.get('cuda')}", flush=True)
    rows = []
    for pair in args.pair:
        task, candidate = pair.split(":")
        for attempt in range(args.repeat):
            time.sleep(args.gap_s)
            sent = time.perf_counter()
            result = worker.request("evaluate", task_path=os.path.join(ROOT, task),
                                    candidate_path=os.path.join(ROOT, candidate),
                                    device=args.device, shrink=args.shrink,
                                    trials=args.trials, timeout_s=600,
                                    baselines=args.baselines.split(","))
            wall = time.perf_counter() - sent
            timing = result.get("timing") or {}
            cand = (timing.get("candidate") or {}).get("median_ms")
            eager = (timing.get("eager") or {}).get("median_ms")
            rows.append((task, attempt + 1, result["status"], cand, eager, result.get("score"),
                         wall, result.get("child_s"), result.get("timed_s")))
            print(f"{task} run {attempt + 1}: {result['status']} {result.get('error', '')[:200]}",
                  flush=True)
            print(f"  phases (s): {result.get('phases_s')}; judge prepared ahead: "
                  f"{result.get('judge_prepared')}, sets prefetched: "
                  f"{result.get('judge_prefetched_sets')}, generalization prefetched: "
                  f"{result.get('judge_prefetched_generalization')}", flush=True)
            if result.get("candidate_ops_s"):  # the candidate process's own time per request
                print(f"  candidate ops (s): {result['candidate_ops_s']}", flush=True)
            if result.get("candidate_start"):  # the warm process: its age, start-up, idle time
                print(f"  candidate start: {result['candidate_start']}", flush=True)
            detail = result.get("phases_detail") or {}

            def cells(rows, keys):
                return "; ".join("/".join(f"{r.get(k):.3f}" if isinstance(r.get(k), (int, float))
                                          else "-" for k in keys) for r in rows)
            if detail.get("references"):  # the correctness phase's critical path
                print("  reference runs (fp32/fp64 s): " +
                      cells(detail["references"], ("ref32_s", "ref64_s")), flush=True)
                print("  checked calls (judge's wait/candidate's own s): " +
                      cells(detail.get("checked_calls") or [], ("wait_s", "candidate_s")),
                      flush=True)
    worker.close()
    if args.cprofile:
        import glob
        import pstats
        for path in sorted(glob.glob(os.path.join(args.cprofile, "evaluate_*.prof"))):
            print(f"\n{path}: the 25 costliest calls (cumulative)")
            pstats.Stats(path).sort_stats("cumulative").print_stats(25)

    print("\n| task | run | status | candidate ms | eager ms | score | request wall s | child s "
          "| timed s | overhead s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for task, run, status, cand, eager, score, wall, child, timed in rows:
        overhead = wall - timed if timed is not None else None
        fmt = lambda v, p=3: "-" if v is None else f"{v:.{p}f}"
        print(f"| {task} | {run} | {status} | {fmt(cand)} | {fmt(eager)} | {fmt(score, 2)} | "
              f"{fmt(wall, 2)} | {fmt(child, 2)} | {fmt(timed, 2)} | {fmt(overhead, 2)} |")
    print()
    for task in dict.fromkeys(row[0] for row in rows):
        cands = [row[3] for row in rows if row[0] == task and row[3]]
        if len(cands) >= 2:
            spread = (max(cands) - min(cands)) / min(cands) * 100
            print(f"{task}: candidate median spread across runs {spread:.2f}% "
                  f"({'within' if spread <= 2 else 'NOT within'} 2%)")


if __name__ == "__main__":
    main()
