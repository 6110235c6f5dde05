"""Where an RNN library candidate's first call goes (issue 15: its first checked call took
0.84-1.04 s of the candidate's own time on an H200, session 28), outside the sandbox, each way in
a fresh process: the cluster kernel's extension through torch's load_inline (its cache warm), or
its built module imported directly (rnn_common._built_module, what the candidates do since
session 28), then the first, second and third forward.

    KFORGE_BUILD_CACHE=/tmp/kforge-builds python3 bench/diag/rnn_first_call.py \
        --task tasks/39_GRU.py --candidate library/gru_out/candidate.py

The candidate's cache slot (confinement.build_cache) is linked at the sandbox's path so that
torch's ninja file, which holds absolute paths, finds its build up to date."""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SANDBOX_CACHE = "/tmp/kforge-build-cache"

CHILD = r"""
import importlib.util, json, os, sys, time
began = time.perf_counter()
marks = {}
def mark(name):
    marks[name] = round(time.perf_counter() - began, 3)
import torch
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
mark("torch + CUDA context")
def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
task, cand = load("task", sys.argv[1]), load("cand", sys.argv[2])
mark("imports")
how = sys.argv[3]
if how == "load_inline":  # as before session 28: load_inline even when the module is built
    cand._built_module = lambda name: None
module = cand._cluster_module()
mark(f"extension ({how})")
print("module", module, "error", cand._CLUSTER.get("error"), file=sys.stderr)
model = cand.ModelNew(*task.get_init_inputs()).cuda()
inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in task.get_inputs()]
mark("model and inputs")
with torch.no_grad():
    for call in ("first forward", "second forward", "third forward"):
        model(*inputs); torch.cuda.synchronize(); mark(call)
print(json.dumps(marks))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="tasks/39_GRU.py")
    parser.add_argument("--candidate", default="library/gru_out/candidate.py")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    candidate = os.path.join(ROOT, args.candidate)
    with open(candidate, "rb") as handle:
        slot = hashlib.sha256(handle.read()).hexdigest()[:24]
    root = os.environ.get("KFORGE_BUILD_CACHE") or os.path.expanduser("~/.cache/kforge/builds")
    if os.path.lexists(SANDBOX_CACHE):
        os.remove(SANDBOX_CACHE)
    os.symlink(os.path.join(root, slot), SANDBOX_CACHE)
    env = dict(os.environ, TORCH_EXTENSIONS_DIR=os.path.join(SANDBOX_CACHE, "torch_extensions"),
               TRITON_CACHE_DIR=os.path.join(SANDBOX_CACHE, "triton"))
    try:
        for round_index in range(args.rounds):
            for how in ("load_inline", "import"):
                run = subprocess.run([sys.executable, "-c", CHILD, os.path.join(ROOT, args.task),
                                      candidate, how], env=env, capture_output=True, text=True,
                                     timeout=300)
                marks = json.loads(run.stdout.strip().splitlines()[-1]) if run.returncode == 0 \
                    else run.stderr[-1500:]
                steps, last = {}, 0.0
                if isinstance(marks, dict):
                    for name, at in marks.items():
                        steps[name], last = round(at - last, 3), at
                print(f"round {round_index + 1} {how:12}", json.dumps(steps) if steps else marks,
                      flush=True)
    finally:
        os.remove(SANDBOX_CACHE)


if __name__ == "__main__":
    main()
