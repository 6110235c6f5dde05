"""Whether a seccomp filter slows the candidate process's host code (timing parity, issue 18).
On kernels whose speculation mitigations default to "seccomp" (spec_store_bypass_disable,
spectre_v2_user), loading any seccomp filter turns on Speculative Store Bypass Disable (and
STIBP) for the process, which slows interpreter-heavy code such as Python and Triton's launch
path. libseccomp's SCMP_FLTATR_CTL_SSB asks the kernel not to (SECCOMP_FILTER_FLAG_SPEC_ALLOW).
Each mode runs in a fresh process: none, a filter as loaded by default, a filter with CTL_SSB.
Prints the process's speculation status and the host time of a pure-Python loop and, with a
GPU, of a small CUDA launch sequence.

    python3 bench/parity/seccomp_cost.py"""
import ctypes
import json
import os
import statistics
import subprocess
import sys
import time

SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_ACT_ERRNO_EPERM = 0x00050001
SCMP_FLTATR_CTL_SSB = 7


def load_filter(spec_allow):
    lib = ctypes.CDLL("libseccomp.so.2")
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                     ctypes.c_uint]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    context = lib.seccomp_init(SCMP_ACT_ALLOW)
    number = lib.seccomp_syscall_resolve_name(b"ptrace")
    lib.seccomp_rule_add(context, SCMP_ACT_ERRNO_EPERM, number, 0)
    if spec_allow and lib.seccomp_attr_set(context, SCMP_FLTATR_CTL_SSB, 1) != 0:
        return "CTL_SSB not supported by this libseccomp"
    return "loaded" if lib.seccomp_load(context) == 0 else "seccomp_load failed"


def speculation():
    with open("/proc/self/status") as handle:
        return {line.split(":")[0]: line.split(":", 1)[1].strip() for line in handle
                if line.startswith("Speculation")}


def python_loop_us(rounds=7):
    def work():
        total = 0
        values = {}
        for index in range(20000):
            values[index & 255] = total
            total += index * 3 % 7
        return total
    samples = []
    for _ in range(rounds):
        began = time.perf_counter()
        work()
        samples.append((time.perf_counter() - began) * 1e6)
    return statistics.median(samples)


def cuda_launch_us():
    try:
        import torch
        if not torch.cuda.is_available():
            return None
        x = torch.ones(1024, device="cuda")
        for _ in range(50):
            torch.empty_like(x).copy_(x).mul_(2)
        torch.cuda.synchronize()
        samples = []
        for _ in range(200):
            began = time.perf_counter()
            torch.empty_like(x).copy_(x).mul_(2)
            samples.append((time.perf_counter() - began) * 1e6)
            torch.cuda.synchronize()
        return statistics.median(samples)
    except Exception as error:  # no torch here: the Python loop alone
        return f"{type(error).__name__}: {error}"


def per_call_ns(call, count=200000):
    """Median over 5 runs of one call's cost in ns: time.perf_counter (a vDSO read unless the
    clock source has none, then a system call through every seccomp filter) and os.getppid (a
    system call always)."""
    samples = []
    for _ in range(5):
        began = time.perf_counter_ns()
        for _ in range(count):
            call()
        samples.append((time.perf_counter_ns() - began) / count)
    return round(statistics.median(samples), 1)


def child(mode):
    import torch  # noqa: F401 (imported before the filter, as the candidate process does)
    state = "none" if mode == "none" else load_filter(mode == "spec_allow")
    print(json.dumps({"mode": mode, "filter": state, "speculation": speculation(),
                      "python_loop_us": python_loop_us(), "cuda_launch_us": cuda_launch_us(),
                      "perf_counter_ns": per_call_ns(time.perf_counter),
                      "getppid_ns": per_call_ns(os.getppid)}))


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        return child(sys.argv[2])
    for path in ("/sys/devices/system/cpu/vulnerabilities/spec_store_bypass",
                 "/sys/devices/system/cpu/vulnerabilities/spectre_v2",
                 "/sys/devices/system/clocksource/clocksource0/current_clocksource",
                 "/sys/devices/system/clocksource/clocksource0/available_clocksource"):
        try:
            print(os.path.basename(path), ":", open(path).read().strip())
        except OSError:
            pass
    bwrap = os.environ.get("KFORGE_BWRAP")
    if bwrap and "--namespaces" in sys.argv:  # which of bubblewrap's namespaces slows Python
        base = [bwrap, "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc"]
        for _ in range(3):
            for label, extra in (("plain", None), ("bwrap", []), ("user", ["--unshare-user"]),
                                 ("pid", ["--unshare-pid"]), ("net", ["--unshare-net"]),
                                 ("ipc+uts+cgroup", ["--unshare-ipc", "--unshare-uts",
                                                     "--unshare-cgroup"]),
                                 ("all", ["--unshare-all"])):
                command = [sys.executable, os.path.abspath(__file__), "--child", "none"]
                if extra is not None:
                    command = base + extra + ["--"] + command
                done = subprocess.run(command, capture_output=True, text=True, timeout=300)
                try:
                    got = json.loads(done.stdout.strip().splitlines()[-1])
                    print(f"{label:16} python {got['python_loop_us']:8.1f} us  cuda launches "
                          f"{got['cuda_launch_us']} us", flush=True)
                except (ValueError, IndexError):
                    print(label, done.stderr[-300:], flush=True)
        return
    for _ in range(2):
        for mode in ("none", "default", "spec_allow"):
            done = subprocess.run([sys.executable, __file__, "--child", mode],
                                  capture_output=True, text=True, timeout=300)
            print(done.stdout.strip() or done.stderr[-500:], flush=True)
        if bwrap:  # the candidate's sandbox: bubblewrap's namespaces and its --seccomp filter
            sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
                os.path.dirname(os.path.abspath(__file__)))), "worker"))
            from kforge_worker.confinement import seccomp_filter
            for with_filter in (False, True):
                fd = seccomp_filter() if with_filter else None
                extra = ["--seccomp", str(fd)] if fd is not None else []
                done = subprocess.run(
                    [bwrap, "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc",
                     "/proc", "--unshare-all", "--die-with-parent", *extra, "--",
                     sys.executable, os.path.abspath(__file__), "--child", "none"],
                    capture_output=True, text=True, timeout=300,
                    pass_fds=(fd,) if fd is not None else ())
                label = "bwrap + kforge's filter" if with_filter else "bwrap, no filter"
                print(label, done.stdout.strip() or done.stderr[-500:], flush=True)
                if fd is not None:
                    os.close(fd)


if __name__ == "__main__":
    main()
