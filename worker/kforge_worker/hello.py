"""`hello`: versions and the device. The device is queried in a forked child so that the worker
process itself never initialises CUDA; the answer is cached for the worker's lifetime."""

import os
import platform

import kforge_worker

_cached = None


def versions():
    import numpy
    import torch
    import triton
    return {"worker_version": kforge_worker.__version__, "python": platform.python_version(),
            "torch": torch.__version__, "triton": triton.__version__, "numpy": numpy.__version__,
            "cuda": torch.version.cuda}


def interpret_mode():
    return os.environ.get("TRITON_INTERPRET", "0") == "1"


def device_info():
    """The current CUDA device, or None (no GPU, or CPU mode). Initialises CUDA: child only."""
    import torch
    if interpret_mode() or not torch.cuda.is_available():
        return None
    index = torch.cuda.current_device()
    props = torch.cuda.get_device_properties(index)
    return {"name": props.name, "sm_count": props.multi_processor_count,
            "memory_gb": round(props.total_memory / 1024 ** 3, 2),
            "capability": f"{props.major}.{props.minor}",
            "l2_cache_bytes": getattr(props, "L2_cache_size", None)}


def _hello_child(request, scratch):
    return {**versions(), "device": device_info(), "interpret": interpret_mode()}


def handle(request):
    global _cached
    if _cached is None:
        from kforge_worker.sandbox import run_request
        _cached = run_request(_hello_child, request, timeout_s=120).result_or_raise("say hello")
    return {**_cached, "pid": os.getpid()}
