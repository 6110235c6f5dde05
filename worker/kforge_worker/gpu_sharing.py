"""Other processes on the judge's GPU, from NVML (the driver's management library).

The timing cross-check compares the candidate's reported event times with the judge's wall
clock. On a GPU that other processes use at the same time (another evaluation, a training job)
the two drift apart for reasons outside the candidate: side by side on one H200, 7 of 10 honest
library kernels were "rejected" for under-reported time (session 25). So before the judge
charges a candidate with that, it asks the driver who else holds a context on the device; where
others do, the timing is not judged (evaluate.py says so instead of accusing the candidate).

The candidate cannot add a process (its execs and forks are refused), so it cannot make a
rejection look like sharing. NVML is the driver's own library (libnvidia-ml.so.1, present
wherever nvidia-smi is); without it nothing is known and the cross-check stands as it is."""

import ctypes
import os

MAX_PROCESSES = 256


class _ProcessInfo(ctypes.Structure):  # nvmlProcessInfo_t (v2 and v3 alike)
    _fields_ = [("pid", ctypes.c_uint), ("used_gpu_memory", ctypes.c_ulonglong),
                ("gpu_instance_id", ctypes.c_uint), ("compute_instance_id", ctypes.c_uint)]


def _library():
    try:
        lib = ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return None
    init = getattr(lib, "nvmlInit_v2", None) or getattr(lib, "nvmlInit", None)
    if init is None or init() != 0:
        return None
    return lib


def _handle(lib, uuid):
    handle = ctypes.c_void_p()
    if lib.nvmlDeviceGetHandleByUUID(f"GPU-{uuid}".encode(), ctypes.byref(handle)) != 0:
        return None
    return handle


def processes_on(uuid):
    """The pids (as the driver reports them) of every process with a compute context on the GPU
    of this UUID (torch's `get_device_properties(i).uuid`); None when NVML cannot say."""
    lib = _library()
    if lib is None:
        return None
    try:
        handle = _handle(lib, uuid)
        if handle is None:
            return None
        query = getattr(lib, "nvmlDeviceGetComputeRunningProcesses_v3", None) or \
            getattr(lib, "nvmlDeviceGetComputeRunningProcesses_v2", None)
        if query is None:
            return None
        infos = (_ProcessInfo * MAX_PROCESSES)()
        count = ctypes.c_uint(MAX_PROCESSES)
        if query(handle, ctypes.byref(count), infos) != 0:
            return None
        return sorted({infos[index].pid for index in range(count.value)})
    finally:
        getattr(lib, "nvmlShutdown", lambda: 0)()


def others(pids, own):
    """How many of `pids` (the GPU's processes) are neither the judge nor the candidate's tree
    (`own`). Where the driver's pids are not this namespace's (a container), the judge's own pid
    is not among them: then all but two (the judge and the candidate) count."""
    if pids is None:
        return 0
    if os.getpid() in pids:
        return len(set(pids) - set(own))
    return max(0, len(set(pids)) - 2)


def sharing_reason(count):
    """The text of a timing the judge cannot judge: `count` other processes on its GPU."""
    return (f"{count} other process{'es' if count != 1 else ''} used this GPU during the timing: "
            f"their work shows in the judge's wall clock as well as the candidate's, so its "
            f"cross-check cannot tell an under-reported time from theirs. Not judged; evaluate "
            f"on a GPU of its own")
