#!/usr/bin/env python3
"""The trust proof: runs the red-team corpus (tests/adversarial), the fault corpus (tests/faults)
and every legitimate candidate in the repository (library/*/candidate.py, and the controls of
tests/controls/manifest.json: good test kernels, Triton matmul and conv) through a real worker
over the JSON-lines protocol, and prints one table:

    kind  case  expected  got  pass  (reasons)

An attack passes when its status is one of the expected ones and the expected reason appears in
the reasons or the error. A fault passes when, in addition, the same worker then evaluates a good
candidate correctly and nothing outside the scratch directory changed (a canary directory; a
listening socket nobody may reach). A legitimate candidate passes when it is `ok` (any other
status is a false rejection). Exit status 0 only when every row passes.

    python3 tests/run_corpora.py                      # CPU: TRITON_INTERPRET=1, shrunk shapes
    python3 tests/run_corpora.py --device cuda        # on a GPU: adds the GPU-only cases
    python3 tests/run_corpora.py --legit quick        # only the fast legitimate candidates
    python3 tests/run_corpora.py --legit quick --shard 2/4   # CI: every 4th case from the 2nd
    python3 tests/run_corpora.py --only a07 f10       # cases whose name starts with these
    python3 tests/run_corpora.py --legit none --host-wide only   # CI: the host-total faults, alone
"""

import argparse
import hashlib
import itertools
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOOD = ("tasks/softmax.py", "library/softmax/candidate.py")  # the recovery check after a fault
QUICK_LIBRARY = ("softmax", "gelu")  # the library entries in the CI subset (the RNNs take minutes)
SECRET = "sk-canary-" + hashlib.sha256(os.urandom(16)).hexdigest()[:24]
# ... and a config file holding it, outside any home or /tmp (what the sandbox hides anyway)
CONFIG_FILE = os.path.join(REPO, "build" if os.path.isdir(os.path.join(REPO, "build")) else "",
                           f".corpus-config-{os.getpid()}.toml")


class Worker:
    """`python -m kforge_worker` over pipes; restarted when it dies."""

    def __init__(self, device):
        self.device = device
        self.process = None
        self.next_id = 0
        self.start()

    def start(self):
        # A planted secret (class 7): no result, output tail or error may ever carry it.
        env = {**os.environ, "PYTHONPATH": os.path.join(REPO, "worker"),
               "KFORGE_API_KEY": SECRET, "KFORGE_CONFIG": CONFIG_FILE}
        args = [sys.executable, "-m", "kforge_worker"]
        if self.device == "cpu":
            env["TRITON_INTERPRET"] = "1"
            args.append("--cpu")
        self.process = subprocess.Popen(args, cwd=REPO, env=env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True, bufsize=1)

    def evaluate(self, task, candidate, **fields):
        """The result dict, or {"status": "worker died"/"request failed", "error": ...}. An
        evaluation the judge did not judge because other processes shared the GPU (shards side
        by side on one GPU: evaluate.py, gpu_sharing.py) is tried again, up to SHARED_TRIES
        times, after a pause."""
        for attempt in range(SHARED_TRIES):
            result = self._evaluate(task, candidate, **fields)
            if result["status"] != "request failed" or "Not judged" not in result["error"]:
                break
            time.sleep(SHARED_PAUSE_S * (attempt + 1))
        return result

    def _evaluate(self, task, candidate, **fields):
        fields = {"device": self.device, "shrink": self.device == "cpu", "input_sets": 3,
                  "trials": 20, "warmup": 3, "timeout_s": 120, **fields}
        self.next_id += 1
        request = {"id": self.next_id, "op": "evaluate", "task_path": task_path(task),
                   "candidate_path": candidate, **fields}
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
            return {"status": "worker died", "error": "", "reasons": []}
        reply = json.loads(line)
        if not reply.get("ok"):
            return {"status": "request failed", "error": reply.get("error", ""), "reasons": []}
        return reply["result"]

    def close(self):
        try:
            self.process.stdin.write(json.dumps({"id": 0, "op": "shutdown"}) + "\n")
            self.process.stdin.flush()
            self.process.wait(timeout=30)
        except Exception:
            self.process.kill()


# Faults charged from the host's totals (shared memory, the used space of the scratch directory's
# file system: confinement.py): while one runs, any other evaluation on the machine sees the same
# growth and can be charged with it, so CI runs them in a CTest entry that runs alone
# (`--host-wide only`, RUN_SERIAL) and keeps them out of the parallel shards (`without`).
HOST_WIDE = ("f26_", "f27_", "f28_", "f31_", "f32_")

# An evaluation not judged for a shared GPU: tried this many times, pausing 10 s, 20 s, ...
SHARED_TRIES = 4
SHARED_PAUSE_S = 10.0


class Listener:
    """A TCP listener on 127.0.0.1 that counts connections (none may arrive)."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(4)
        self.socket.settimeout(0.2)
        self.port = self.socket.getsockname()[1]
        self.connections = 0
        self.stopped = False
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while not self.stopped:
            try:
                connection, _ = self.socket.accept()
                self.connections += 1
                connection.close()
            except OSError:
                pass

    def close(self):
        self.stopped = True
        self.thread.join(timeout=2)
        self.socket.close()


def tree_digest(path):
    """Names, sizes, modes and contents of every file under `path`."""
    digest = hashlib.sha256()
    for root, dirs, files in sorted(os.walk(path)):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(root, name)
            info = os.stat(full)
            digest.update(f"{os.path.relpath(full, path)} {info.st_size} {info.st_mode}".encode())
            with open(full, "rb") as handle:
                digest.update(handle.read())
    return digest.hexdigest()


def load_manifest(folder):
    with open(os.path.join(REPO, "tests", folder, "manifest.json")) as handle:
        return json.load(handle)["cases"]


def legit_cases(quick):
    """(name, task, candidate, fields) for every legitimate candidate in the repository."""
    cases = []
    library = os.path.join(REPO, "library")
    for name in sorted(os.listdir(library)):
        candidate = os.path.join("library", name, "candidate.py")
        if not os.path.isfile(os.path.join(REPO, candidate)) or (
                quick and name not in QUICK_LIBRARY):
            continue
        meta_path = os.path.join(library, name, "meta.json")
        tasks = [name]
        if os.path.isfile(meta_path):
            with open(meta_path) as handle:
                tasks = json.load(handle).get("tasks") or tasks
        for task in tasks:
            cases.append((f"library/{name} on {task}", f"tasks/{task}.py", candidate, {}))
    for case in load_manifest("controls"):
        if case.get("quick") or not quick:
            cases.append((case["candidate"], case["task"], case["candidate"], case["fields"]))
    return cases


def fill(source_path, scratch, port, canary_dir):
    """A copy of the candidate with the runner's placeholders filled in."""
    with open(source_path) as handle:
        text = handle.read()
    text = text.replace("__KFORGE_PORT__", str(port)).replace("__KFORGE_CANARY_DIR__", canary_dir)
    text = text.replace("__KFORGE_CONFIG_FILE__", CONFIG_FILE)
    path = os.path.join(scratch, os.path.basename(source_path))
    with open(path, "w") as handle:
        handle.write(text)
    return path


def processes_mentioning(text):
    """Processes whose command line mentions `text` (a fault's detached child, say)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    line = handle.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in line:
                found.append(f"{entry}: {line[:80]}")
    return found


def task_path(task):
    """A manifest's task path; the public KernelBench files (../shared/kernelbench) are under
    .carry/kb on the GPU machine, which has no ../shared."""
    prefix = "../shared/kernelbench/"
    carried = os.path.join(REPO, ".carry", "kb", task[len(prefix):])
    if task.startswith(prefix) and not os.path.exists(os.path.join(REPO, task)) and \
            os.path.exists(carried):
        return carried
    return task


def candidate_processes_left(worker_pid):
    """Candidate-side processes that outlived their evaluation: the worker keeps its warm
    candidate processes (each alone under its sandbox's init), nothing else. A candidate process
    whose parent is not bubblewrap's init, or a sandbox holding more than one process, is
    left over (a detached daemon, a setsid child). Only this run's worker's descendants count:
    other corpus runs beside it on the machine start compilers in their sandboxes."""
    def stat(pid):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                text = handle.read()
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                line = handle.read().replace(b"\0", b" ").decode(errors="replace")
            return text[text.index("(") + 1:text.rindex(")")], int(text.rsplit(")", 1)[1].split()[1]), line
        except (OSError, ValueError, IndexError):
            return None
    table = {int(p): stat(p) for p in os.listdir("/proc") if p.isdigit()}
    table = {pid: info for pid, info in table.items() if info}
    children = {}
    for pid, (_, parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    def descends(pid):
        seen = set()
        while pid in table and pid not in seen:
            seen.add(pid)
            pid = table[pid][1]
            if pid == worker_pid:
                return True
        return False
    found = []
    for pid, (comm, parent, line) in table.items():
        if "kforge_worker.candidate_host" not in line or comm.startswith("bwrap") or \
                not descends(pid):
            continue
        parent_comm = table.get(parent, ("?",))[0]
        if not parent_comm.startswith("bwrap"):  # bwrap, or a carried bwrap.real
            found.append(f"{pid} (parent {parent_comm}): {line[:60]}")
        elif len(children.get(parent, [])) > 1:
            found.append(f"{pid}: {len(children[parent])} processes in one sandbox")
    return found


def verdict(case, result, device="cpu"):
    """(passed, note) for an attack or a fault's own status."""
    status = result.get("status")
    text = "\n".join(result.get("reasons") or []) + "\n" + (result.get("error") or "")
    if device == "cuda" and "gpu_expect" in case:  # a host-only attack (NumPy on a CUDA tensor)
        case = dict(case, expect=case["gpu_expect"], reason=case.get("gpu_reason", ""),
                    side_effects=case.get("gpu_side_effects"))
    if status not in case["expect"]:
        return False, f"status {status}"
    # "reason" is one substring, or a list of alternatives when different checks may catch the
    # attack first depending on the device (e.g. the allocator reusing an address across sets).
    wanted = case.get("reason") or []
    wanted = [wanted] if isinstance(wanted, str) else wanted
    # an `ok` has no reason to show (a case accepting ok is checked by its time instead)
    if wanted and status != "ok" and not any(reason.lower() in text.lower() for reason in wanted):
        return False, f"reason {' or '.join(map(repr, wanted))} missing"
    least = case.get("cpu_min_ms")
    if least and device == "cpu" and status == "ok":  # ok only with an honest time
        took = ((result.get("timing") or {}).get("candidate") or {}).get("median_ms")
        if took is None or took < least:
            return False, f"ok with a fake time: {took} ms (at least {least} expected)"
    effect = case.get("side_effects")
    if effect and not any(effect in item for item in result.get("side_effects") or []):
        return False, f"side effect {effect!r} not reported"
    return True, ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--legit", choices=("all", "quick", "none"), default="all")
    parser.add_argument("--only", nargs="*", default=None, help="case name prefixes")
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--shard", default="1/1", help="K/N: every Nth case from the Kth (CI "
                        "runs the CPU corpus as parallel CTest entries)")
    parser.add_argument("--host-wide", choices=("with", "without", "only"), default="with",
                        help="the faults charged from the host's totals (HOST_WIDE): with the "
                        "others, without them, or only them (whatever the shard)")
    args = parser.parse_args()
    shard, shards = (int(part) for part in args.shard.split("/"))
    if not 1 <= shard <= shards:
        parser.error(f"--shard {args.shard}: K must be 1..N")
    position = itertools.count()  # each case's place in the whole corpus, for --shard

    rows = []
    with open(CONFIG_FILE, "w") as handle:
        handle.write(f'provider = "openai"\napi_key = "{SECRET}"\n')
    worker = Worker(args.device)
    listener = Listener()
    work = tempfile.mkdtemp(prefix="kforge-corpora-")
    canary_dir = tempfile.mkdtemp(prefix="kforge-canary-")
    with open(os.path.join(canary_dir, "canary.txt"), "w") as handle:
        handle.write("must stay as it is\n")
    canary = tree_digest(canary_dir)

    def selected(name):
        in_shard = next(position) % shards == shard - 1
        host_wide = name.startswith(HOST_WIDE)
        wanted = {"with": in_shard, "without": in_shard and not host_wide,
                  "only": host_wide}[args.host_wide]
        return wanted and (args.only is None or
                           any(name.startswith(prefix) for prefix in args.only))

    def row(kind, name, expected, result, passed, note, started, wanted=""):
        # Show the reason the case is about first, then the others.
        lines = list(dict.fromkeys(result.get("reasons") or [])) or \
            (result.get("error") or "").strip().split("\n")[:1]
        wanted = [wanted] if isinstance(wanted, str) else wanted
        lines.sort(key=lambda line: not any(w and w.lower() in line.lower() for w in wanted))
        reasons = "; ".join(lines)
        rows.append({"kind": kind, "case": name, "expected": expected,
                     "got": result.get("status"), "pass": passed, "note": note,
                     "reasons": reasons[:800], "seconds": round(time.monotonic() - started, 1),
                     "confinement": result.get("confinement")})
        if passed is False:  # the whole story of a failure, printed again at the end
            failures.append(f"{name}: got {result.get('status')}, expected {expected}; "
                            f"note: {note}; reasons: {reasons[:600]}; "
                            f"error: {(result.get('error') or '')[-600:]}")
        mark = "open" if passed is None else "pass" if passed else "FAIL"
        print(f"{kind:7} {name:44} {expected:24} {result.get('status', '?'):14} {mark:5} "
              f"{note or reasons[:90]}", flush=True)

    failures = []
    print(f"{'kind':7} {'case':44} {'expected':24} {'got':14} {'pass':5} reason / note")
    try:
        for kind, folder in (("attack", "adversarial"), ("fault", "faults")):
            for case in load_manifest(folder):
                if not selected(case["name"]):
                    continue
                expected = "/".join(case["expect"])
                if case.get("gpu") and args.device != "cuda":
                    rows.append({"kind": kind, "case": case["name"], "expected": expected,
                                 "got": "skipped", "pass": None, "note": "GPU only"})
                    print(f"{kind:7} {case['name']:44} {expected:24} {'-':14} {'skip':5} "
                          f"GPU only (--device cuda)", flush=True)
                    continue
                started = time.monotonic()
                candidate = fill(os.path.join(REPO, "tests", folder, case["name"] + ".py"),
                                 work, listener.port, canary_dir)
                fields = {key: case[key] for key in ("timeout_s", "host_memory_gb", "overrides",
                                                     "shrink", "input_sets", "precision")
                          if key in case}
                if case.get("time_on_cpu") and args.device == "cpu":
                    fields["time_on_cpu"] = True
                result = worker.evaluate(case["task"], candidate, **fields)
                passed, note = verdict(case, result, args.device)
                if SECRET in json.dumps(result):
                    passed, note = False, "the planted secret appears in the result"
                follow = case.get("then")
                if follow:  # a pair: what the first left behind must not help the second
                    second = worker.evaluate(follow["task"], fill(
                        os.path.join(REPO, "tests", folder, follow["name"] + ".py"), work,
                        listener.port, canary_dir), **fields)
                    if second.get("status") not in follow["expect"]:
                        passed, note = False, (f"then {follow['name']}: "
                                               f"{second.get('status')} (expected "
                                               f"{'/'.join(follow['expect'])})")
                    if SECRET in json.dumps(second):
                        passed, note = False, "the planted secret appears in the result"
                if kind == "fault":
                    again = worker.evaluate(*GOOD)
                    if again.get("status") != "ok":
                        passed, note = False, (f"next good candidate: {again.get('status')} "
                                               f"({str(again.get('error'))[:300]})")
                    if tree_digest(canary_dir) != canary:
                        passed, note = False, "the canary directory changed"
                    if listener.connections:
                        passed, note = False, "a connection reached the listener"
                    time.sleep(0.5)
                    survivors = processes_mentioning(canary_dir) + \
                        candidate_processes_left(worker.process.pid)
                    if survivors:
                        passed, note = False, f"processes outlived the evaluation: {survivors}"
                if case.get("open") and not passed:  # a known gap, stated in docs/trust.md
                    passed, note = None, f"OPEN (known gap): {note}"
                row(kind, case["name"], expected, result, passed, note, started,
                    case.get("reason", ""))
        if args.legit != "none":
            for name, task, candidate, fields in legit_cases(args.legit == "quick"):
                if not selected(name):
                    continue
                started = time.monotonic()
                timeout = 600 if args.device == "cpu" else 300
                result = worker.evaluate(task, candidate, timeout_s=timeout, **fields)
                passed = result.get("status") == "ok"
                timing = result.get("timing") or {}
                speed = (f"{(timing.get('candidate') or {}).get('median_ms', 0):.4f} ms, "
                         f"{result.get('speedup_vs_best_baseline') or 0:.3f}x vs the best "
                         f"baseline" if passed and timing.get("candidate") else "")
                row("legit", name, "ok", result, passed, speed if passed else "false rejection"
                    if result.get("status") == "rejected" else "", started)
    finally:
        worker.close()
        listener.close()
        # gone already where the checkout was refreshed under a long run (the device tool syncs
        # the working tree at every call): the totals and the JSON still follow
        if os.path.exists(CONFIG_FILE):
            os.remove(CONFIG_FILE)

    counted = [r for r in rows if r["pass"] is not None]
    gaps = [r for r in rows if r["pass"] is None and r.get("got") != "skipped"]
    by_kind = {}
    for r in counted:
        total, good = by_kind.get(r["kind"], (0, 0))
        by_kind[r["kind"]] = (total + 1, good + bool(r["pass"]))
    skipped = len(rows) - len(counted) - len(gaps)
    print()
    for kind in ("attack", "fault", "legit"):
        if kind in by_kind:
            total, good = by_kind[kind]
            label = {"attack": "attacks handled", "fault": "faults handled",
                     "legit": "legitimate candidates ok (no false rejection)"}[kind]
            print(f"{label}: {good}/{total}")
    failed = sum(1 for r in counted if not r["pass"])
    for line in failures:
        print("FAILED " + line)
    print(f"total: {len(counted) - failed}/{len(counted)} pass, {failed} fail, "
          f"{skipped} skipped (GPU only), {len(gaps)} open (known gaps: "
          f"{', '.join(r['case'] for r in gaps) or 'none'}) on {args.device}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(rows, handle, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
