"""Which steps of a GPU evaluation start threads in the candidate process (exec_monitor refuses
new threads once candidate code is loaded): each step's new threads by /proc/self/task, and the
Python stack of every Python-level thread start. The order follows candidate_host.main (before
the seal), then the harness's own steps after it."""
import _thread
import os
import sys
import threading
import traceback

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "worker"))


def tasks():
    names = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as handle:
                names[int(tid)] = handle.read().strip()
        except OSError:
            pass
    return names


_start = _thread.start_new_thread


def start_new_thread(*args, **kwargs):
    print("  python thread start from:\n" + "".join(traceback.format_stack(limit=8)), flush=True)
    return _start(*args, **kwargs)


_thread.start_new_thread = start_new_thread
threading._start_new_thread = start_new_thread
seen = tasks()


def step(name, action):
    global seen
    action()
    now = tasks()
    new = {tid: comm for tid, comm in now.items() if tid not in seen}
    print(f"{name}: {len(now)} threads, new: {new}", flush=True)
    seen = now


import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

from kforge_worker.launches import profile_forward  # noqa: E402
from kforge_worker.trust_ops import AtenRecorder, BitLevelRecorder  # noqa: E402

step("import triton", lambda: None)
step("main: cuda init", lambda: (torch.cuda.init(), torch.empty(1, device="cuda")))


def main_recorder():
    with AtenRecorder():
        torch.empty(1)


def main_kineto():
    with profile(activities=[ProfilerActivity.CPU]):
        torch.empty(1)


step("main: recorder on a CPU op", main_recorder)
step("main: kineto CPU", main_kineto)
print("---- the seal: everything below is what setup and the harness do", flush=True)
x = torch.zeros(1000, device="cuda")


def recorder(shapes):
    def run():
        with AtenRecorder(shapes=shapes):
            x.mul_(2)
            torch.cuda.synchronize()
    return run


step("recorder shapes=False, cuda op", recorder(False))
step("recorder shapes=True, cuda op", recorder(True))
step("recorder shapes=True again", recorder(True))


@triton.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


step("triton compile + launch", lambda: (add_one[(8,)](x, 1000, BLOCK=128), torch.cuda.synchronize()))
step("triton new signature", lambda: (add_one[(8,)](x, 1000, BLOCK=256), torch.cuda.synchronize()))


def launch_recorded():
    with AtenRecorder(shapes=True):
        add_one[(8,)](x, 1000, BLOCK=128)
        torch.cuda.synchronize()


step("triton launch under the recorder", launch_recorded)


def bits():
    with BitLevelRecorder():
        x.view(torch.int32).add_(1)
    torch.cuda.synchronize()


step("bit-level recorder", bits)


def events():
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record(); x.add_(1); b.record(); torch.cuda.synchronize(); a.elapsed_time(b)


step("cuda events", events)
step("side stream", lambda: torch.cuda.Stream())
step("kineto cuda profile", lambda: profile_forward(lambda: x.add_(1), set()))
step("kineto cuda profile again", lambda: profile_forward(lambda: x.add_(1), set()))

print("---- op_load's steps (session 12: the refused thread came in `load` on the H200)", flush=True)
from kforge_worker import trust  # noqa: E402
from kforge_worker.task_loader import load_candidate  # noqa: E402

holder = {}
step("empty_cache", lambda: torch.cuda.empty_cache())
guard = trust.Guard(None, {})
step("guard before import (2)", guard.before_candidate_import)
step("load_candidate", lambda: holder.update(loaded=load_candidate(
    "library/softmax/candidate.py", "library/softmax/candidate.py")))
step("after_candidate_import", lambda: guard.after_candidate_import(
    holder["loaded"][0], type("Model", (), {})))

print("---- memory returned to the driver", flush=True)
from kforge_worker.shared_memory import SharedBuffer  # noqa: E402


def free_and_empty():
    y = torch.empty(64 << 20, device="cuda")
    del y
    torch.cuda.empty_cache()


step("empty_cache with a freed 256 MB block", free_and_empty)
step("again", free_and_empty)
step("shared buffer create+close", lambda: SharedBuffer("cuda", 1 << 20).close())
step("shared buffer again", lambda: SharedBuffer("cuda", 1 << 20).close())
import time  # noqa: E402
step("idle 3 s", lambda: time.sleep(3))
step("empty_cache after idle", free_and_empty)
step("recorder after idle", recorder(True))
