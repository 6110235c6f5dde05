"""Run-time facts (`analyze` with "runtime": true): one forward of the candidate on the task's
inputs, in the harness's sandboxed child. On the GPU the forward runs under torch.profiler
(every device kernel, its calls and share of kernel time, own or library); on the CPU, under
TRITON_INTERPRET=1, the Triton launches are counted (no time shares).

Reuses the harness: sandbox.run_request (fork, limits), trust.child_setup (the audit policy),
task_loader (task and candidate loading), launches (launch counting and profiling)."""

import os
import shutil

RUNTIME_TIMEOUT_S = 120.0


def _runtime_child(request, scratch):
    device = request.get("device", "cuda")
    if device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"  # read when the candidate's kernels are decorated
    import torch
    from kforge_worker import trust
    from kforge_worker.launches import cpu_launches, profile_forward, triton_kernel_names
    from kforge_worker.sandbox import RequestFailure, resolve
    from kforge_worker.task_loader import LoadError, load_candidate, load_task

    # The candidate runs here as it does in `evaluate`: under the same process-wide policy
    # (no programs, network or writes outside the scratch dir), installed before it is imported.
    trust.child_setup(scratch)

    result = {"status": "ok", "error": "", "device": device, "method": None,
              "launches_per_forward": None, "kernels": [], "own_launches": None,
              "library_launches": None, "own_time_share": None, "shapes": {}}
    try:
        task = load_task(request["task_path"], bool(request.get("shrink")), None,
                         resolve(request, "task_path"))
    except LoadError as error:
        raise RequestFailure(str(error)) from None
    result["shapes"] = task.shapes
    copy_path = os.path.join(scratch, f"kforge_candidate_{os.getpid()}.py")
    shutil.copyfile(resolve(request, "candidate_path"), copy_path)
    try:
        torch.manual_seed(0)
        module, model_new = load_candidate(copy_path, request["candidate_path"])
        model = model_new(*task.init_inputs()).to(device).eval()
        torch.manual_seed(1)
        inputs = [v.to(device) if isinstance(v, torch.Tensor) else v for v in task.inputs()]
        own = triton_kernel_names(module)
        with torch.no_grad():
            if device == "cuda":
                model(*inputs)  # compile and autotune outside the profiled forward
                torch.cuda.synchronize()
                launches, kernels = profile_forward(lambda: model(*inputs), own)
                result["method"] = "profiler"
            else:
                launches, kernels = cpu_launches(lambda: model(*inputs), own)
                result["method"] = "interpreter"
    except Exception as error:  # the candidate failed: facts say so, the request still succeeds
        message = f"{type(error).__name__}: {error}"
        result.update({"status": "error", "error": message.strip().splitlines()[0][:400]})
        return result
    result["launches_per_forward"] = launches
    result["kernels"] = kernels
    result["own_launches"] = sum(k["calls_per_forward"] for k in kernels if k["own"])
    result["library_launches"] = sum(k["calls_per_forward"] for k in kernels if not k["own"])
    if device == "cuda":
        result["own_time_share"] = round(sum(k["time_share"] or 0 for k in kernels if k["own"]), 4)
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
