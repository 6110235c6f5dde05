"""What the candidate process's in-process guard costs per checked call (GPU): a plain call of a
library kernel (the softmax by default) against the guard's call and against each recorder
alone, and the legacy profiler with shapes (what the timed calls' recorder is, with sizes).

    python3 bench/guard_cost.py [--task tasks/39_GRU.py --candidate library/gru_out/candidate.py]
"""
import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "worker"))
from kforge_worker import trust  # noqa: E402
from kforge_worker.launches import count_triton_launches  # noqa: E402
from kforge_worker.task_loader import load_candidate, load_task  # noqa: E402
from kforge_worker.trust_ops import (AtenRecorder, BitLevelRecorder, ModuleRecorder,  # noqa: E402
                                     OpRecorder, Policy)


def timed(label, fn, repeat=5):
    samples = []
    for _ in range(repeat):
        torch.cuda.synchronize()
        began = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - began) * 1e3)
    print(f"{label:28s} " + " ".join(f"{s:8.2f}" for s in samples) + "  ms", flush=True)


def legacy_shapes():
    """The legacy profiler recording shapes, as a context manager."""
    import contextlib
    from torch.autograd import ProfilerConfig, ProfilerState

    @contextlib.contextmanager
    def session():
        config = ProfilerConfig(ProfilerState.CPU, True, False, False, False, False,
                                torch._C._profiler._ExperimentalConfig())
        torch.autograd._enable_profiler_legacy(config)
        try:
            yield
        finally:
            torch.autograd._disable_profiler_legacy()
    return session()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--task", default="tasks/softmax.py")
    parser.add_argument("--candidate", default="library/softmax/candidate.py")
    args = parser.parse_args()
    task = load_task(args.task)
    module, model_new = load_candidate(args.candidate, "candidate")
    for name, value in task.shapes.items():  # as the harness gives them (library RNNs)
        setattr(module, name, value)
    torch.manual_seed(1000)
    model = model_new(*task.init_inputs()).cuda()
    torch.manual_seed(1)
    inputs = [v.cuda() if isinstance(v, torch.Tensor) else v for v in task.module.get_inputs()]
    guard = trust.Guard(None, {})
    guard.use_policy(Policy([], [], None))
    guard.before_candidate_import()
    guard.after_candidate_import(module, type("Model", (), {}))
    with torch.no_grad():
        timed("plain call", lambda: model(*inputs))
        timed("guard.call_candidate", lambda: guard.call_candidate(model, inputs))
        for name, make in (("AtenRecorder", AtenRecorder), ("legacy, shapes", legacy_shapes),
                           ("OpRecorder", OpRecorder), ("BitLevelRecorder", BitLevelRecorder),
                           ("ModuleRecorder", ModuleRecorder),
                           ("NativeCalls", lambda: trust._NativeCalls(True))):
            seen = {}

            def one(make=make, seen=seen):
                with make() as recorder:
                    model(*inputs)
                seen["calls"] = len(getattr(recorder, "calls", None) or [])
            timed(name, one)
            if seen.get("calls"):
                print(f"  ({seen['calls']} operators recorded)")

        def launches():
            with count_triton_launches():
                model(*inputs)
        timed("count_triton_launches", launches)
        timed("snapshot check", guard._check_snapshot)


if __name__ == "__main__":
    main()
