"""What each of the harness's steps starts on a GPU, and what it leaves behind (warm_up.py).

Follows a candidate process's life in this one process: warm_up.steps("cuda") twice (as
candidate_host.main runs them once), then the `setup` request's limits (trust.child_setup), a
calibration-like timing phase and its close (the `load` request's first act), then the steps of
a candidate's evaluation again and the profiled forward. Run it with TEARDOWN_CUPTI=0, as the
candidate process is (and with 1 to see the threads Kineto's teardown would start). Per step it prints the tasks created (from the kernel's
last-allocated pid in /proc/loadavg: short-lived threads count too, on a machine where nothing
else starts processes), the threads alive, the signals newly caught, and the host time of a
small forward (one Triton launch and one PyTorch operator, 300 calls): a profiler left attached
(CUPTI) shows there. Steps after the warm-up must start nothing: that is what lets the judge
refuse every thread and handler once the candidate's code is loaded. GPU only.

    python3 bench/thread_probe.py"""

import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "worker"))


def last_pid():
    with open("/proc/loadavg") as handle:
        return int(handle.read().split()[-1])


def caught_signals():
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("SigCgt:"):
                mask = int(line.split()[1], 16)
                return {n + 1 for n in range(64) if mask >> n & 1}
    return set()


def host_us(model, x):
    """Microseconds of host time per forward, 300 forwards back to back."""
    import torch
    with torch.no_grad():
        for _ in range(20):
            model(x)
        torch.cuda.synchronize()
        began = time.perf_counter()
        for _ in range(300):
            model(x)
        torch.cuda.synchronize()
    return (time.perf_counter() - began) / 300 * 1e6


def main():
    import torch
    import triton
    from kforge_worker import kernel_compiles  # noqa: F401  (as candidate_host.main does)
    from kforge_worker import trust, warm_up
    from kforge_worker.launches import profile_forward
    torch.cuda.init()
    torch.empty(1, device="cuda")
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, triton "
          f"{triton.__version__}, TEARDOWN_CUPTI={os.environ.get('TEARDOWN_CUPTI')}")
    model, x = warm_up.WarmUpModel(), torch.randn(4096, device="cuda")
    model(x)  # compiled before the first measurement
    print(f"start: forward {host_us(model, x):.1f} us host")
    scratch = tempfile.mkdtemp()
    evaluation = [("setup: child_setup", lambda: trust.child_setup(scratch)),
                  ("calibration: timing phase", lambda: warm_up._timing_phase(model, x)),
                  ("load: empty cache", torch.cuda.empty_cache)]
    candidate = [step for step in warm_up.steps("cuda") if step[0] in (
        "checked call", "timing phase", "checked call after timing")]
    candidate.append(("profiled forward", lambda: profile_forward(lambda: model(x), set())))
    rounds = [("warm-up", warm_up.steps("cuda")), ("warm-up again", warm_up.steps("cuda")),
              ("evaluation", evaluation), ("candidate", candidate)]
    for round_, steps in rounds:
        for name, step in steps:
            pid, signals, began = last_pid(), caught_signals(), time.perf_counter()
            step()
            took = time.perf_counter() - began
            created = last_pid() - pid
            new_signals = sorted(caught_signals() - signals)
            print(f"{round_:14} {name:30} tasks created {created:3}  alive "
                  f"{len(os.listdir('/proc/self/task')):3}  new handlers {new_signals}  "
                  f"{took:6.2f} s  then forward {host_us(model, x):6.1f} us host", flush=True)


if __name__ == "__main__":
    main()
