"""Suite throughput on GPUs: wall time of one `kforge suite eval` on 1 GPU and on N GPUs, and the
warm worker's overhead per candidate (request wall minus timed work) on the RNN tasks.

The suite: every task under tasks/ that a library kernel verifies (library/*/meta.json "tasks":
the eight RNN tasks, gelu, softmax), each copied --copies times under its own name (in a temporary
folder, never in the repository) so that the suite has at least 16 tasks, with the library
kernel as its candidate. Every evaluation is the full harness: correctness on 5 input sets,
timing against eager, torch.compile and CUDA graph, the trust checks.

Targets (issue 15): overhead per candidate <= 1.5 s on the RNN tasks; on 2 GPUs the suite in
<= 0.55x the single-GPU wall time. A warm-up suite runs first (Triton and CUDA caches, the page
cache), so that neither measured run pays for the first compile.

    python3 bench/bench_suite.py --gpus 0,1 --out docs/bench/suite_h200x2_$(date +%Y%m%d)

writes <out>.md and <out>.json and prints the same.
"""

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
RNN = ("LSTM", "GRU", "RNN")


def build_suite(folder, copies, only=""):
    tasks, cands = folder / "tasks", folder / "cands"
    tasks.mkdir(parents=True)
    cands.mkdir()
    names = []
    for meta_file in sorted((ROOT / "library").glob("*/meta.json")):
        meta = json.loads(meta_file.read_text())
        candidate = meta_file.parent / meta.get("source", "candidate.py")
        for task in meta.get("tasks", []):
            source = ROOT / "tasks" / f"{task}.py"
            if not source.exists() or not candidate.exists() or only not in task:
                continue
            for k in range(copies):
                name = f"{task}_c{k}"
                shutil.copy(source, tasks / f"{name}.py")
                shutil.copy(candidate, cands / f"{name}.py")
                names.append(name)
    return tasks, cands, names


def run_suite(kforge, tasks, cands, suite_dir, gpus, extra, device="cuda"):
    args = [kforge, "suite", "eval", "--tasks", str(tasks), "--candidates", str(cands),
            "--device", device, "--gpus", gpus, "--suite-dir", str(suite_dir), *extra]
    if device == "cpu":
        args.append("--shrink")
    print("$", " ".join(args), flush=True)
    started = time.perf_counter()
    result = subprocess.run(args, text=True, stdout=subprocess.PIPE)
    wall = time.perf_counter() - started
    print(result.stdout, flush=True)
    if result.returncode != 0:
        raise SystemExit(f"suite failed with exit code {result.returncode}")
    return wall, json.loads((suite_dir / "suite.json").read_text())


def overheads(suite_dir, suite):
    """Per task: the request wall (kforge's side), the timed work, the worker's phases."""
    rows = []
    for task in suite["tasks"]:
        evaluation = json.loads((suite_dir / "evals" / f"{task['id']}.json").read_text())
        timed = evaluation.get("timed_s") or 0.0
        rows.append({"task": task["id"], "status": task["status"], "gpu": task["gpu"],
                     "request_wall_s": task["wall_s"], "worker_wall_s": evaluation.get("wall_s"),
                     "timed_s": timed, "overhead_s": task["wall_s"] - timed,
                     "phases_s": evaluation.get("phases_s") or {},
                     "device": (evaluation.get("device") or {}).get("name"),
                     "versions": evaluation.get("versions") or {}})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", default="0,1", help="GPUs of the multi-GPU run (first: 1-GPU)")
    parser.add_argument("--copies", type=int, default=2, help="copies of each task (>= 16 tasks)")
    parser.add_argument("--kforge", default=str(ROOT / "build" / "kforge"))
    parser.add_argument("--no-warmup", action="store_true")
    parser.add_argument("--device", default="cuda", help="cpu: a smoke run of this script only "
                        "(shrunk shapes, no timings: the figures mean nothing)")
    parser.add_argument("--only", default="", help="only tasks whose name contains this")
    parser.add_argument("--out", default="", help="write <out>.md and <out>.json")
    parser.add_argument("extra", nargs="*", help="more `kforge suite eval` flags (after --)")
    args = parser.parse_args()
    gpus = args.gpus.split(",")
    work = pathlib.Path(tempfile.mkdtemp(prefix="kforge-bench-suite-"))
    tasks, cands, names = build_suite(work, args.copies, args.only)
    print(f"suite: {len(names)} tasks in {work}", flush=True)
    if len(names) < 16:
        print("warning: fewer than 16 tasks; raise --copies", file=sys.stderr)

    if not args.no_warmup:
        run_suite(args.kforge, tasks, cands, work / "warmup", ",".join(gpus), args.extra,
                  args.device)
    wall_1, suite_1 = run_suite(args.kforge, tasks, cands, work / "one", gpus[0], args.extra,
                                args.device)
    wall_n, suite_n = run_suite(args.kforge, tasks, cands, work / "many", ",".join(gpus),
                                args.extra, args.device)
    rows = overheads(work / "one", suite_1)
    # Workers are started before the first task (kforge suite does), but a worker's first
    # evaluation still pays its one-time imports and compiles: "warm" leaves it out.
    first = rows[0]["task"] if rows else None
    rnn = [r for r in rows if any(k in r["task"] for k in RNN) and r["task"] != first]
    worst_rnn = max((r["overhead_s"] for r in rnn), default=None)
    ratio = wall_n / wall_1
    device = next((r["device"] for r in rows if r["device"]), "?")
    versions = next((r["versions"] for r in rows if r["versions"]), {})

    lines = [f"# kforge suite throughput ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
             "", f"- device: {device} x {len(gpus)} (GPUs {args.gpus}); versions: "
             f"{json.dumps(versions)}",
             f"- suite: {len(names)} tasks (library-verified tasks x {args.copies}), every "
             "candidate through the full harness",
             f"- wall, 1 GPU: {wall_1:.1f} s; {len(gpus)} GPUs: {wall_n:.1f} s; ratio "
             f"{ratio:.3f} (target <= 0.55 on 2 GPUs)",
             f"- worst warm-worker overhead per candidate on the RNN tasks (the 1-GPU run's first "
             f"evaluation left out): "
             f"{worst_rnn:.2f} s (target <= 1.5 s)" if worst_rnn is not None else "- no RNN task",
             "", "| task | status | request wall s | timed s | overhead s | phases (s) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        phases = ", ".join(f"{k} {v:.2f}" for k, v in sorted(r["phases_s"].items(),
                                                               key=lambda kv: -kv[1]))
        lines.append(f"| {r['task']} | {r['status']} | {r['request_wall_s']:.2f} | "
                     f"{r['timed_s']:.2f} | {r['overhead_s']:.2f} | {phases} |")
    per_gpu = {}
    for task in suite_n["tasks"]:
        per_gpu[task["gpu"]] = per_gpu.get(task["gpu"], 0) + 1
    lines += ["", f"Tasks per GPU in the {len(gpus)}-GPU run: {json.dumps(per_gpu)}"]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        pathlib.Path(args.out + ".md").write_text(text)
        pathlib.Path(args.out + ".json").write_text(json.dumps(
            {"device": device, "gpus": args.gpus, "versions": versions, "tasks": len(names),
             "wall_1_gpu_s": wall_1, "wall_n_gpu_s": wall_n, "ratio": ratio,
             "worst_rnn_overhead_s": worst_rnn, "rows": rows, "tasks_per_gpu": per_gpu},
            indent=2) + "\n")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
