"""Which part of the real candidate process slows a host-bound candidate's launch path (timing
parity, issue 18). bench/parity/block_probe.py rebuilt the candidate block's loop step by step in
one process and found nothing; this runs the real thing, `kforge_worker`'s evaluate request with
its real candidate process, once per variant, with one piece taken out of a copy of the worker
package (the judge starts the candidate process from the package it runs from, so the copy is
what both processes import). Nothing here changes kforge; the variants exist only in /tmp.

  base        the worker as it is
  no_bwrap    KFORGE_BWRAP unset: no namespaces, no read-only file system (kforge warns)
  no_watch    the timed calls' operator recorder (candidate_host.TimedCallWatch) not started
  no_seal     no seccomp filter (exec_monitor.install not called; the judge warns)
  no_audit    no Python audit hook (trust_audit.install's sys.addaudithook not called)
  no_probes   no operator probes (uprobes and their perf events on the candidate's threads;
              session 29, after session 20's ablation)
  all_off     all five

Per variant and case: kforge's candidate median (ms) and its host time per call, with
KernelBench's timer and the bare loop (bench/timing_parity.py's fresh process) in the same
round. Variants run round-robin, so the host's slow spells spread over all of them.

    source .carry/env.sh; python3 bench/parity/ablation.py --rounds 2 --json $OUT/ablation.json
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import timing_parity  # noqa: E402

# (file, old text, new text): each must match exactly once, or the variant is not built
PATCHES = {
    "no_watch": [("candidate_host.py", "        self.recorder.start()\n        self.open = True",
                  "        self.open = False  # ablation: no recorder"),
                 ("candidate_host.py", "    def after_trial(self):\n        import torch\n",
                  "    def after_trial(self):\n        return  # ablation\n        import torch\n"),
                 ("candidate_host.py", "    def check(self):\n        if self.guard is None",
                  "    def check(self):\n        return  # ablation\n        if self.guard is None")],
    "no_seal": [("candidate_host.py",
                 "fd, why = exec_monitor.install(DENIED_SYSCALLS if request.get(\"deny\") else ())",
                 "fd, why = None, \"ablation: no filter\"")],
    "no_audit": [("trust_audit.py", "        sys.addaudithook(_hook)\n",
                  "        pass  # ablation: no audit hook\n")],
    "no_probes": [("operator_probes.py",
                   "    key = (tuple(sorted(str(name) for name in policy_ops)), bool(dense), "
                   "bool(recurrent))\n",
                   "    return {}  # ablation: no operator probes\n")],
}
VARIANTS = ("base", "no_bwrap", "no_watch", "no_seal", "no_audit", "no_probes", "all_off")


def build_variant(name, folder):
    """A copy of worker/ with the variant's patches; returns its path (PYTHONPATH)."""
    target = os.path.join(folder, name)
    shutil.copytree(os.path.join(ROOT, "worker"), target,
                    ignore=shutil.ignore_patterns("tests", "__pycache__"))
    patches = [p for key in (PATCHES if name == "all_off" else [name]) for p in PATCHES.get(key, [])]
    for file, old, new in patches:
        path = os.path.join(target, "kforge_worker", file)
        with open(path) as handle:
            text = handle.read()
        if text.count(old) != 1:
            raise SystemExit(f"{name}: patch for {file} matches {text.count(old)} times")
        with open(path, "w") as handle:
            handle.write(text.replace(old, new))
    return target


class VariantWorker(timing_parity.Worker):
    def __init__(self, device, worker_dir, bwrap):
        env = dict(os.environ, PYTHONPATH=worker_dir)
        if not bwrap:
            env.pop("KFORGE_BWRAP", None)
        env.pop("TRITON_INTERPRET", None)
        command = [sys.executable, "-m", "kforge_worker"]
        if device == "cpu":
            env["TRITON_INTERPRET"] = "1"
            command.append("--cpu")
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        env=env, text=True, bufsize=1, cwd=ROOT)
        self.next_id = 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--chunks", default="4")
    parser.add_argument("--no-gelu", dest="gelu", action="store_false")
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    parser.add_argument("--budget-s", type=float, default=400.0)
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    args.candidates, args.task, args.cache = [], "tasks/softmax.py", "cold"
    began = time.monotonic()
    folder = tempfile.mkdtemp(prefix="kforge-ablation-")
    variants = [v for v in args.variants.split(",") if v]
    dirs = {v: build_variant(v, folder) for v in variants}
    todo = timing_parity.cases(args)
    workers = {v: VariantWorker(args.device, dirs[v], v not in ("no_bwrap", "all_off"))
               for v in variants}
    times = {}
    try:
        for round_index in range(args.rounds):
            for name, task, candidate in todo:
                clean = timing_parity.run_standalone(args, task, candidate, "")
                for key in ("kernelbench", "bare", "bare_host"):
                    times.setdefault((name, key), []).append(clean[key])
                for variant in variants:
                    if time.monotonic() - began > args.budget_s:
                        raise TimeoutError
                    got = timing_parity.kforge_time(workers[variant], args, task, candidate)
                    for key in ("kforge", "kforge_host", "kforge_first_in_block"):
                        times.setdefault((name, f"{variant}.{key}"), []).append(got[key])
                    print(f"# round {round_index + 1} {name} {variant}: kforge "
                          f"{got['kforge']:.4f} host {got['kforge_host']:.4f} | KB "
                          f"{clean['kernelbench']:.4f} bare {clean['bare']:.4f} bare_host "
                          f"{clean['bare_host']:.4f}", flush=True)
    except TimeoutError:
        print(f"# stopped at the {args.budget_s:.0f} s budget", flush=True)
    finally:
        for worker in workers.values():
            worker.close()
    import torch
    print(f"\ndevice {torch.cuda.get_device_name() if args.device == 'cuda' else 'cpu'}, torch "
          f"{torch.__version__}; medians over rounds, ms; host = the candidate's launch path per "
          f"call")
    print("| case | variant | kforge | host | kforge/KB | KB | bare | bare host |")
    print("|---|---|---|---|---|---|---|---|")
    rows = []
    for name, _, _ in todo:
        clean = {k: statistics.median(times[(name, k)]) for k in ("kernelbench", "bare",
                                                                   "bare_host")
                 if times.get((name, k))}
        for variant in variants:
            values = times.get((name, f"{variant}.kforge"))
            if not values or not clean:
                continue
            row = {"case": name, "variant": variant, "kforge_ms": statistics.median(values),
                   "host_ms": statistics.median(times[(name, f"{variant}.kforge_host")]),
                   "rounds": values, **{f"{k}_ms": v for k, v in clean.items()}}
            row["kforge_vs_kb"] = row["kforge_ms"] / clean["kernelbench"]
            rows.append(row)
            print(f"| {name} | {variant} | {row['kforge_ms']:.4f} | {row['host_ms']:.4f} | "
                  f"{row['kforge_vs_kb']:.3f} | {clean['kernelbench']:.4f} | "
                  f"{clean['bare']:.4f} | {clean['bare_host']:.4f} |")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"seconds": round(time.monotonic() - began, 1), "rows": rows}, handle,
                      indent=1)


if __name__ == "__main__":
    main()
