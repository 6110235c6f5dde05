"""`baseline`: timings of the reference alone (eager, torch.compile, CUDA graph), in a sandboxed
child, with the same timing method as `evaluate` (timing.py)."""

import os
import time

from kforge_worker.sandbox import RequestFailure, resolve

DEFAULTS = {"device": "cuda", "shrink": False, "overrides": None, "trials": 100, "warmup": 10,
            "flush_l2": True, "baselines": ["eager", "compile", "cuda_graph"], "timeout_s": 600,
            "timing_budget_s": 120}
INPUT_SETS = 3


def _baseline_child(request, scratch):
    started = time.monotonic()
    from kforge_worker import timing
    from kforge_worker.evaluate import SEED_BASE, clone_values, draw_inputs, seed_all
    from kforge_worker.hello import device_info, versions
    from kforge_worker.task_loader import LoadError, load_task
    request = {**DEFAULTS, **{k: v for k, v in request.items() if v is not None}}
    try:
        task = load_task(request["task_path"], request["shrink"], request["overrides"],
                         resolve(request, "task_path"))
        seed_all(SEED_BASE)
        device = request["device"]  # "cuda" (handle() refuses anything else; tests fake it)
        model = task.model_class(*task.init_inputs()).to(device).eval()
        sets = []
        for index in range(INPUT_SETS):  # the same sets as evaluate's timing sets
            values, drawn_on = draw_inputs(task, device, SEED_BASE + 200 + index)
            sets.append(clone_values(values, device))
    except LoadError as error:
        raise RequestFailure(str(error)) from None
    runners, errors = {}, {}
    wanted = request["baselines"] or ["eager"]
    if "eager" in wanted:
        runners["eager"] = lambda i: (lambda: model(*sets[i]))
    if "compile" in wanted:
        runner, errors["compile"] = timing.compile_runner(model, sets[0])
        if runner:
            runners["compile"] = lambda i, r=runner: r(sets[i])
    if "cuda_graph" in wanted:
        runner, errors["cuda_graph"] = timing.cuda_graph_runner(model, sets[0])
        if runner:
            runners["cuda_graph"] = lambda i, r=runner: r(sets[i])
    stats, timed_s = timing.time_interleaved(runners, list(range(INPUT_SETS)),
                                             int(request["trials"]), int(request["warmup"]),
                                             bool(request["flush_l2"]),
                                             budget_s=float(request["timing_budget_s"])) \
        if runners else ({}, 0.0)
    return {"eager": stats.get("eager"), "compile": stats.get("compile"),
            "cuda_graph": stats.get("cuda_graph"),
            "errors": {name: reason for name, reason in errors.items() if reason},
            "device": device_info(), "versions": versions(), "shapes": task.shapes,
            "inputs_drawn_on": drawn_on, "timed_s": timed_s,
            "gpu_memory": _gpu_memory(device),
            "child_s": time.monotonic() - started}


def _gpu_memory(device):
    """The child's peak GPU memory (torch's allocator), or None off the GPU."""
    import torch
    if device != "cuda" or not torch.cuda.is_initialized():
        return None
    return {"judge_peak_bytes": torch.cuda.max_memory_allocated()}


def handle(request):
    from kforge_worker.evaluate import require
    from kforge_worker.protocol import RequestError
    from kforge_worker.sandbox import run_request
    require(request, ("task_path",), "run baseline")
    if request.get("device", "cuda") != "cuda" or os.environ.get("TRITON_INTERPRET") == "1":
        raise RequestError("failed to run baseline: timing needs a CUDA device (CPU mode has no "
                           "timings)")
    outcome = run_request(_baseline_child, request,
                          timeout_s=request.get("timeout_s") or DEFAULTS["timeout_s"],
                          host_memory_gb=request.get("host_memory_gb"))
    result = outcome.result_or_raise("run baseline")
    result["wall_s"] = outcome.wall_s
    return result
