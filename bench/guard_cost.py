"""What the candidate process's in-process guard costs per checked call (GPU): a plain call of the
library softmax against the guard's call and against each recorder alone.

    python3 bench/guard_cost.py
"""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "worker"))
from kforge_worker import trust  # noqa: E402
from kforge_worker.launches import count_triton_launches  # noqa: E402
from kforge_worker.task_loader import load_candidate  # noqa: E402
from kforge_worker.trust_ops import AtenRecorder, ModuleRecorder, OpRecorder, Policy  # noqa: E402


def timed(label, fn, repeat=5):
    samples = []
    for _ in range(repeat):
        torch.cuda.synchronize()
        began = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - began) * 1e3)
    print(f"{label:28s} " + " ".join(f"{s:8.2f}" for s in samples) + "  ms", flush=True)


def main():
    module, model_new = load_candidate("library/softmax/candidate.py", "softmax")
    model = model_new().cuda()
    x = torch.randn(4096, 16384, device="cuda")
    guard = trust.Guard(None, {})
    guard.use_policy(Policy(["softmax"], [], None))
    guard.before_candidate_import()
    guard.after_candidate_import(module, type("Model", (), {}))
    with torch.no_grad():
        timed("plain call", lambda: model(x))
        timed("guard.call_candidate", lambda: guard.call_candidate(model, [x]))
        for name, make in (("AtenRecorder", AtenRecorder), ("OpRecorder", OpRecorder),
                           ("ModuleRecorder", ModuleRecorder),
                           ("NativeCalls", lambda: trust._NativeCalls(True))):
            def one(make=make):
                with make():
                    model(x)
            timed(name, one)

        def launches():
            with count_triton_launches():
                model(x)
        timed("count_triton_launches", launches)
        timed("snapshot check", guard._check_snapshot)


if __name__ == "__main__":
    main()
