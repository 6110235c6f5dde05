"""Run-time facts (`analyze` with "runtime": true): one forward of the candidate on the task's
inputs, the candidate in its own confined process as in `evaluate` (candidate_host.py). On the
GPU the forward runs under torch.profiler (every device kernel, its calls and share of kernel
time, own or library); on the CPU, under TRITON_INTERPRET=1, the Triton launches are counted (no
time shares).

Reuses the harness: sandbox.run_request (the forked child that loads the task), the candidate
process (confinement, shared buffers), task_loader, launches."""

import os
import time

RUNTIME_TIMEOUT_S = 120.0


def _runtime_child(request, scratch):
    """The candidate runs where it runs in `evaluate`: in its own confined process
    (candidate_host.py), fed the task's inputs through shared buffers; this child only loads the
    task and asks for one profiled forward."""
    device = request.get("device", "cuda")
    if device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"  # read when the candidate's kernels are decorated
    import torch
    from kforge_worker import warm_pool
    from kforge_worker.candidate_proxy import CandidateProcess
    from kforge_worker.confinement import build_cache
    from kforge_worker.errors import Failure
    from kforge_worker.evaluate import share_values
    from kforge_worker.sandbox import DEFAULT_HOST_MEMORY_GB, RequestFailure, resolve
    from kforge_worker.task_loader import LoadError, load_task

    result = {"status": "ok", "error": "", "device": device, "method": None,
              "launches_per_forward": None, "kernels": [], "own_launches": None,
              "library_launches": None, "own_time_share": None, "shapes": {}}
    try:
        task = load_task(request["task_path"], bool(request.get("shrink")), None,
                         resolve(request, "task_path"))
        with open(resolve(request, "candidate_path"), "rb") as handle:
            source = handle.read()
    except LoadError as error:
        raise RequestFailure(str(error)) from None
    except OSError as error:
        raise RequestFailure(f"failed to read candidate {request['candidate_path']}: "
                             f"{error.strerror}") from None
    result["shapes"] = task.shapes
    host = warm_pool.WarmHost(device)
    copy_path = os.path.join(host.scratch, "kforge_candidate.py")
    with open(copy_path, "wb") as handle:
        handle.write(source)
    timeout = float(request.get("timeout_s") or RUNTIME_TIMEOUT_S)
    candidate = CandidateProcess(host, build_cache(source), time.monotonic() + timeout,
                                 DEFAULT_HOST_MEMORY_GB * 1024 ** 3, timeout)
    try:
        # the harness's own start-up (CUDA's threads among it) before any candidate code
        candidate.request({"op": "setup", "device": device})
        candidate.request({"op": "load", "candidate": copy_path,
                           "display": request["candidate_path"], "shapes": task.shapes,
                           "device": device, "reference_name": task.model_class.__name__,
                           "allow_pytorch_only": True})
        torch.manual_seed(0)
        candidate.request({"op": "build", "args": share_values(candidate, task.init_inputs()),
                           "seed": 0, "shapes": task.shapes})
        torch.manual_seed(1)
        args = share_values(candidate, task.inputs())
        if device == "cuda":  # compile and autotune outside the profiled forward
            candidate.request({"op": "call", "args": args, "outputs": None, "seed": 0})
            reply = candidate.request({"op": "profile", "args": args})
            launches, kernels = reply.get("launches"), reply.get("kernels") or []
            result["method"] = "profiler"
        else:
            reply = candidate.request({"op": "call", "args": args, "outputs": None, "seed": 0})
            counts = reply.get("launches") if isinstance(reply.get("launches"), dict) else {}
            kernels = [{"name": str(name), "calls_per_forward": calls, "time_share": None,
                        "own": True} for name, calls in counts.items() if isinstance(calls, int)]
            launches = sum(kernel["calls_per_forward"] for kernel in kernels)
            result["method"] = "interpreter"
    except (Failure, LoadError) as error:  # the candidate failed: facts say so
        message = str(getattr(error, "message", error))
        lines = [line for line in message.strip().splitlines() if line.strip()]
        result.update({"status": "error", "error": (lines[-1] if lines else message)[:400]})
        return result
    finally:
        candidate.close()
    kernels = [k for k in kernels if isinstance(k, dict)]
    result["launches_per_forward"] = launches
    result["kernels"] = kernels
    result["own_launches"] = sum(k.get("calls_per_forward") or 0 for k in kernels if k.get("own"))
    result["library_launches"] = sum(k.get("calls_per_forward") or 0 for k in kernels
                                     if not k.get("own"))
    if device == "cuda":
        result["own_time_share"] = round(sum(k.get("time_share") or 0 for k in kernels
                                             if k.get("own")), 4)
    return result


def measure(candidate_path, task_path, device="cuda", shrink=False, timeout_s=None):
    """Run-time facts of one forward; {"status": "skipped"} without a task (no inputs)."""
    if not task_path:
        return {"status": "skipped", "error": "no task given: nothing to run the candidate on",
                "launches_per_forward": None, "kernels": []}
    from kforge_worker.sandbox import run_request
    request = {"op": "analyze", "candidate_path": candidate_path, "task_path": task_path,
               "device": device, "shrink": shrink}
    outcome = run_request(_runtime_child, request, timeout_s=timeout_s or RUNTIME_TIMEOUT_S,
                          cpu_only=device == "cpu")
    if outcome.status == "done":
        return outcome.result
    return {"status": outcome.status, "error": f"the candidate {outcome.message}",
            "launches_per_forward": None, "kernels": []}
