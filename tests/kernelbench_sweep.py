#!/usr/bin/env python3
"""Every public KernelBench task through a real worker on the CPU, each task's own reference
submitted as the candidate (its `Model` renamed `ModelNew`), at shrunk shapes (docs/kernelbench.md).

Such a candidate calls exactly the reference's operators, so the expected verdict is `rejected`;
what the sweep proves is that the task file runs unmodified: it loads, shrinks (or backs off,
task_loader.shrink_task), builds its Model and runs on both sides of the judge. Any other status
(runtime_error, crashed, a worker error ...) is a failure of the harness on that task. One table:

    level  file  status  seconds  shrink

Exit status 0 only when every task ran (`rejected`, or `ok`/`wrong_output` for a task whose
reference draws random numbers in forward); 125 when the KernelBench files are missing.

    python3 tests/kernelbench_sweep.py                       # all 250 (nightly, ~N minutes)
    python3 tests/kernelbench_sweep.py --sample              # the fixed CI sample
    python3 tests/kernelbench_sweep.py --only level1/94 level3/2
    python3 tests/kernelbench_sweep.py --json out.json --markdown table.md
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The public files, beside the clone (CI has shared/ next to it); never copied into the repo.
DEFAULT_ROOT = os.path.join(REPO, "..", "shared", "kernelbench")
LEVELS = ("level1", "level2", "level3")
# The task ran on both sides: the reference-as-candidate is caught calling the reference's
# operators (rejected); ok/wrong_output are also a run (not expected with the current policy).
RAN = ("rejected", "ok", "wrong_output")


def task_files(root):
    """[(level, file name)] in level, then numeric order."""
    found = []
    for level in LEVELS:
        folder = os.path.join(root, level)
        names = [n for n in os.listdir(folder) if n.endswith(".py")]
        names.sort(key=lambda n: (int(re.match(r"\d+", n).group()) if re.match(r"\d+", n)
                                  else 10 ** 6, n))
        found += [(level, name) for name in names]
    return found


def sample(files, count=60):
    """A fixed sample: every k-th task of each level in proportion, always the same files."""
    picked = []
    for level in LEVELS:
        names = [item for item in files if item[0] == level]
        share = max(1, round(count * len(names) / len(files)))
        step = len(names) / share
        picked += [names[int(i * step)] for i in range(share)]
    return picked


def as_candidate(task_path, folder):
    """The task file with its Model class renamed ModelNew (super(Model, self) included)."""
    with open(task_path, encoding="utf-8") as handle:
        text = handle.read()
    text = re.sub(r"\bModel\b", "ModelNew", text)
    path = os.path.join(folder, "ref_" + os.path.basename(task_path))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


class Worker:
    """`python -m kforge_worker --cpu` over pipes; restarted when it dies."""

    def __init__(self):
        self.process = None
        self.next_id = 0
        self.start()

    def start(self):
        env = {**os.environ, "PYTHONPATH": os.path.join(REPO, "worker"), "TRITON_INTERPRET": "1",
               "KINETO_LOG_LEVEL": os.environ.get("KINETO_LOG_LEVEL", "5")}
        self.process = subprocess.Popen([sys.executable, "-m", "kforge_worker", "--cpu"],
                                        cwd=REPO, env=env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True, bufsize=1)

    def evaluate(self, task, candidate, timeout_s):
        self.next_id += 1
        request = {"id": self.next_id, "op": "evaluate", "task_path": task,
                   "candidate_path": candidate, "device": "cpu", "shrink": True,
                   "input_sets": 2, "trials": 5, "warmup": 1, "timeout_s": timeout_s}
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            self.process.kill()
            self.process.wait()
            self.start()
            return {"status": "worker died", "error": ""}
        reply = json.loads(line)
        if not reply.get("ok"):
            return {"status": "worker error", "error": reply.get("error", "")}
        return reply["result"]

    def close(self):
        try:
            self.process.stdin.write(json.dumps({"id": 0, "op": "shutdown"}) + "\n")
            self.process.stdin.flush()
            self.process.wait(timeout=30)
        except Exception:
            self.process.kill()


def shrink_text(result):
    """The shapes that were used: name=value for each override, and a back-off mark."""
    shrink = result.get("shrink") or {}
    applied = shrink.get("applied", result.get("shrunk"))
    if applied is None:
        return "-"
    text = ",".join(f"{k}={v}" for k, v in applied.items()) or "none"
    if shrink.get("backed_off"):
        text += f" (backed off: {shrink.get('attempts', '?')} tries)"
    return text


def first_line(result):
    text = (result.get("error") or "").strip()
    lines = [line for line in text.split("\n") if line.strip()]
    return lines[-1][:160] if lines else ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=DEFAULT_ROOT, help="the KernelBench checkout")
    parser.add_argument("--sample", action="store_true", help="the fixed CI sample of 60")
    parser.add_argument("--only", nargs="*", default=[],
                        help="level1/94 or level1/94_... : tasks by level and number or name")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--json", default="")
    parser.add_argument("--markdown", default="")
    args = parser.parse_args()
    root = os.path.normpath(args.root)
    if not all(os.path.isdir(os.path.join(root, level)) for level in LEVELS):
        print(f"skipped: no KernelBench files at {root}", file=sys.stderr)
        return 125
    files = task_files(root)
    if args.sample:
        files = sample(files)
    if args.only:
        def wanted(level, name):
            return any(f"{level}/{name}".startswith(o) and
                       (len(f"{level}/{name}") == len(o) or not f"{level}/{name}"[len(o)].isdigit())
                       for o in args.only)
        files = [item for item in files if wanted(*item)]
    worker = Worker()
    rows, began = [], time.monotonic()
    print(f"{'level':7s} {'file':52s} {'status':13s} {'seconds':>7s}  shrink", flush=True)
    with tempfile.TemporaryDirectory(prefix="kforge_kb_") as scratch:
        for level, name in files:
            path = os.path.join(root, level, name)
            task = os.path.relpath(path, REPO)
            candidate = as_candidate(path, scratch)
            start = time.monotonic()
            result = worker.evaluate(task, candidate, args.timeout)
            seconds = time.monotonic() - start
            status = result.get("status")
            row = {"level": level, "file": name, "status": status, "seconds": round(seconds, 1),
                   "shrink": shrink_text(result), "ran": status in RAN,
                   "error": "" if status in RAN else first_line(result)}
            rows.append(row)
            print(f"{level:7s} {name[:52]:52s} {status:13s} {seconds:7.1f}  {row['shrink']}"
                  + ("" if row["ran"] else f"\n        {row['error']}"), flush=True)
    worker.close()
    total = time.monotonic() - began
    failed = [row for row in rows if not row["ran"]]
    print(f"{len(rows) - len(failed)} of {len(rows)} ran; {len(failed)} failed; "
          f"{total:.0f} s in all", flush=True)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"total_s": round(total, 1), "rows": rows}, handle, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as handle:
            handle.write("| level | file | status | seconds | shrink |\n|---|---|---|---|---|\n")
            for row in rows:
                handle.write(f"| {row['level']} | {row['file']} | {row['status']} | "
                             f"{row['seconds']} | {row['shrink']} |\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
