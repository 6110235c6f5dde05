"""The timed calls' operator recorder, built in C++ (native/timed_recorder.cpp).

Every timed call runs with an operator recorder on (candidate_host.TimedCallWatch: a candidate
that computes otherwise when timed is seen). It was PyTorch's legacy profiler
(trust_ops.NameRecorder), whose bookkeeping cost 5-8 us of host time per ATen operator on the
H200 (bench/parity/ablation.py, docs/bench/gpu_h200_20261128_s20.md): 40 us of a 2-launch GeLU's
0.11 ms launch path, which a host-bound timed call is charged for (issue 18's timing parity).
This one is a single global RecordFunction callback that keeps each call's name, its largest
input's element count and its enclosing scope, on every thread: the same record as the legacy
profiler's with shapes, about five times cheaper per operator on the CPU machine.

The worker builds it once per machine and torch version, outside the sandbox, in a subprocess
(`library()`: ~5 s with torch's extension builder; kept under the user's cache folder). The
candidate process loads it with ctypes before any candidate code (`load()`), from a read-only
path, and falls back to the legacy profiler where it could not be built (no compiler): the
result says which one ran (`confinement.timed_recorder`)."""

import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
import sys

_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "native", "timed_recorder.cpp")
_NAME = "kforge_timed_recorder"
# The environment variable naming the built library for the candidate process
ENV = "KFORGE_TIMED_RECORDER"

_BUILD = r"""
import os, shutil, sys
import torch.utils.cpp_extension as extension
source, folder = sys.argv[1], sys.argv[2]
shutil.copy(source, os.path.join(folder, "timed_recorder.cpp"))
extension.load(name=sys.argv[3], sources=[os.path.join(folder, "timed_recorder.cpp")],
               build_directory=folder, is_python_module=False, extra_cflags=["-O2", "-DNDEBUG"])
"""


def _folder():
    """Where the library for this source, torch and Python lives."""
    import torch
    with open(_SOURCE, "rb") as handle:
        key = hashlib.sha256(handle.read() + _BUILD.encode() + torch.__version__.encode() +
                             sys.version.encode()).hexdigest()[:16]
    root = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(root, "kforge", "native", key)


@functools.lru_cache(maxsize=1)
def library():
    """(path of the built library or None, why not). In the worker: built the first time on a
    machine (a compiler and ninja needed), found on disk after that. KFORGE_TIMED_RECORDER=legacy
    in the worker's environment keeps the legacy profiler (a comparison)."""
    if os.environ.get(ENV) == "legacy":
        return None, "turned off (KFORGE_TIMED_RECORDER=legacy)"
    try:
        folder = _folder()
    except OSError as error:
        return None, f"no cache folder: {error}"
    path = os.path.join(folder, _NAME + ".so")
    if os.path.isfile(path):
        return path, None
    # built beside it, then renamed into place: another worker never loads half a library
    building = f"{folder}.build-{os.getpid()}"
    try:
        os.makedirs(building, exist_ok=True)
        done = subprocess.run([sys.executable, "-c", _BUILD, _SOURCE, building, _NAME],
                              capture_output=True, text=True, timeout=600)
        built = os.path.join(building, _NAME + ".so")
        if done.returncode != 0 or not os.path.isfile(built):
            return None, "build failed: " + (done.stderr or done.stdout)[-300:].strip()
        os.makedirs(folder, exist_ok=True)
        os.replace(built, path)
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, f"build failed: {error}"
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return path, None


_lib = None  # in the candidate process: the loaded library


def load():
    """In the candidate process, before any candidate code: the library the worker named, or
    None (the legacy profiler then records the timed calls)."""
    global _lib
    path = os.environ.get(ENV)
    if _lib is None and path:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            return None
        lib.kforge_timed_count.restype = ctypes.c_int64
        lib.kforge_timed_entry.argtypes = [ctypes.c_int64, ctypes.c_char_p, ctypes.c_int64,
                                           ctypes.POINTER(ctypes.c_int64),
                                           ctypes.POINTER(ctypes.c_int32)]
        _lib = lib
    return _lib


def recorder(marker):
    """The timed calls' recorder: this one where it is loaded, else the legacy profiler's."""
    if _lib is not None:
        return NativeRecorder(marker)
    from kforge_worker.trust_ops import NameRecorder
    return NameRecorder(marker, sizes=True)


class NativeRecorder:
    """trust_ops.NameRecorder's interface over the C++ record: `names`, `calls` (name, raw,
    elements, -1), `trials` (the calls between two marks, parents indexed within the list) and
    `marked` after `read`."""

    kind = "native"

    def __init__(self, marker):
        self.names = []
        self.calls = []
        self.trials = []
        self.dtypes_seen = False
        self.marker = marker
        self.marked = 0
        self.sizes = True

    def start(self):
        _lib.kforge_timed_start()

    def running(self):
        return bool(_lib.kforge_timed_running())

    def stop(self, *exc):
        if _lib.kforge_timed_stop() != 0:
            raise RuntimeError("the recorder's session was stopped before its end")

    def read(self):
        from kforge_worker.trust_ops import recorded_name
        entries = []
        buffer = ctypes.create_string_buffer(512)
        numel, parent = ctypes.c_int64(), ctypes.c_int32()
        for index in range(_lib.kforge_timed_count()):
            if _lib.kforge_timed_entry(index, buffer, len(buffer), ctypes.byref(numel),
                                       ctypes.byref(parent)) != 0:
                break
            entries.append((buffer.value.decode("utf-8", "replace"), numel.value, parent.value))
        placed = []  # per entry: (its segment, its index there) for an operator, else None
        segment, segments = [], 0
        for text, count, above in entries:
            if text == self.marker:
                self.marked += 1
                self.trials.append(segment)
                segment, segments = [], segments + 1
                placed.append(None)
                continue
            name = recorded_name(text)
            if not name:
                placed.append(None)
                continue
            # the nearest enclosing operator in this segment, as the legacy record's scopes
            while 0 <= above < len(placed) and placed[above] is None:
                above = entries[above][2]
            up = placed[above][1] if 0 <= above < len(placed) and \
                placed[above][0] == segments else -1
            raw = text[len("aten::"):].split(".")[0]
            self.names.append(name)
            self.calls.append((name, raw, count, -1))
            placed.append((segments, len(segment)))
            segment.append((name, raw, count, up))
