"""Starting the candidate process confined by the operating system (docs/trust.md, "Confinement").

The candidate's code runs in a process of its own, started fresh (exec, not fork: it inherits
none of the judge's memory), under bubblewrap where it works:

- its own PID, network, IPC, UTS and cgroup namespaces (`--unshare-all`): /proc shows only the
  candidate's processes, there is no network but a loopback of its own, and when the judge kills
  it every process it started dies with its namespace (`--die-with-parent`, `--new-session`);
- the file system read-only (`--ro-bind / /`), home directories and kforge's config files
  hidden, a private /tmp and /dev/shm, a minimal /dev plus the GPU's device nodes; writable:
  the evaluation's scratch directory and this candidate source's own build cache (see
  `build_cache`), the latter always at SANDBOX_CACHE;
- all capabilities dropped, `no_new_privs`, rlimits (no core files, a file-size cap, a bound on
  open files);
- an environment built from an allowlist (what torch, Triton and the compilers read), never the
  judge's environment minus a scrub list.

Where bubblewrap is missing or cannot create namespaces (an unprivileged container), the
candidate still runs in a separate, freshly started process with the allowlisted environment,
rlimits and no_new_privs, but shares the file system, network and PID namespace: every result
then carries `confinement.mechanism = "process"` and a warning. KFORGE_CONFINEMENT=require makes
that case an error instead."""

import ctypes
import glob
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys

FILE_SIZE_LIMIT = 1 << 30
OPEN_FILES_LIMIT = 4096
# The sandbox's private /tmp and /dev/shm are memory that no process's RSS shows: 1.5 GiB written
# there from C stayed outside the candidate's host-memory limit (blind red team, session 14). They
# are sized (bubblewrap's --size): the compilers write under TMPDIR (scratch, on disk), and what
# else a candidate puts there fits in these. The homes and config folders covered with a tmpfs
# only hide what is beneath.
TMPFS_BYTES = {"/tmp": 256 << 20, "/dev/shm": 64 << 20}
COVER_TMPFS_BYTES = 1 << 20
# What a candidate may write into its scratch directory and build-cache slot together (disk, or
# memory where the host's /tmp is a tmpfs): past it the judge kills it (file_tree.usage, also
# past file_tree.MAX_DEPTH levels). A CUDA extension's build (the library's RNN kernels) leaves
# ~20 MB there; RLIMIT_FSIZE bounds one file, not many.
WRITE_LIMIT_BYTES = 2 << 30
WRITE_LIMIT_FILES = 20000
# What no walk or descriptor table shows (a memfd or a deleted file whose only descriptor is in
# flight on a Unix socket, a detached SysV segment: red team, session 15, round 2) still shows in
# the host's totals. While a candidate runs, the growth of the host's shared memory (meminfo's
# Shmem) beyond the judge's own buffers is charged to it, so is the growth of the used space of
# its scratch directory's file system past DISK_GROWTH_LIMIT_BYTES (the write limit and 1 GiB
# for what other processes on the host write meanwhile); and it is killed whatever it is charged
# when the host's available memory or that file system's free space falls below these floors,
# which keep the judge, the worker and the run directory alive.
DISK_GROWTH_LIMIT_BYTES = WRITE_LIMIT_BYTES + (1 << 30)
HOST_MEMORY_FLOOR_BYTES = 1 << 30
DISK_FLOOR_BYTES = 2 << 30
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|AUTH", re.IGNORECASE)

# Environment variables passed through when set (never one whose name looks like a secret).
ALLOWED_NAMES = {"PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM", "LD_LIBRARY_PATH",
                 "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_HOME", "CUDA_PATH",
                 "CUDA_MODULE_LOADING", "TORCH_CUDA_ARCH_LIST", "CC", "CXX", "NVCC_APPEND_FLAGS",
                 "VIRTUAL_ENV", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "TRITON_INTERPRET",
                 "TRITON_PTXAS_PATH", "TRITON_CUOBJDUMP_PATH", "TRITON_NVDISASM_PATH",
                 "TRITON_LIBCUDA_PATH", "TRITON_LIBDEVICE_PATH", "TRITON_CUDACRT_PATH",
                 "TRITON_CUDART_PATH"}
# NVLink multicast stays off in every process kforge starts, whatever the caller's environment
# says: a program that uses it can put a host's shared GPUs out of service (the GPU machines'
# rule). Set, not passed through.
NO_MULTICAST = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
                "NVSHMEM_DISABLE_NVLS": "1"}

_probe_result = None

# System calls a candidate never needs, refused (EPERM) by a seccomp filter that libseccomp
# compiles and bwrap installs right before it execs the candidate process: tracing or reading
# other processes, kernel modules and kexec, mounts and namespaces, BPF and perf, keyrings,
# clocks, swap, reboot.
DENIED_SYSCALLS = ("ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd",
                   "kexec_load", "kexec_file_load", "init_module", "finit_module",
                   "delete_module", "mount", "umount2", "pivot_root", "move_mount", "open_tree",
                   "fsopen", "fsmount", "fsconfig", "setns", "unshare", "bpf",
                   "perf_event_open", "keyctl", "add_key", "request_key", "userfaultfd",
                   "swapon", "swapoff", "reboot", "settimeofday", "clock_settime", "adjtimex",
                   "clock_adjtime", "syslog", "acct", "quotactl", "vhangup", "lookup_dcookie",
                   "iopl", "ioperm",
                   # asynchronous I/O: the kernel writes a process's memory later, with no
                   # thread or handler of its (red team, session 13: io_uring timers linked to
                   # reads rewrote the output buffer after the harness's copy)
                   "io_uring_setup", "io_uring_enter", "io_uring_register", "io_setup",
                   "io_submit",
                   # quotas counted per user up through the user namespaces: the sandbox's root
                   # is the host's uid 0, so its inotify instances and message-queue bytes were
                   # the host root's (blind red team, session 37: host processes got EMFILE)
                   "inotify_init", "inotify_init1", "mq_open", "fanotify_init")
SCMP_ACT_ALLOW = 0x7FFF0000
# A system call of another architecture (an i386 `int 0x80` from this x86-64 process) kills the
# whole process. libseccomp's default kills only the calling thread: the candidate process was
# left a zombie whose other threads held its channel open until the deadline (blind red team,
# session 23, docs/redteam/s23_int80_hang.py).
SCMP_ACT_KILL_PROCESS = 0x80000000
SCMP_FLTATR_ACT_BADARCH = 2  # enum scmp_filter_attr (1 is the read-only default action)
SCMP_ACT_ERRNO_EPERM = 0x00050000 | 1
# fallocate reserved 10 GiB of disk in 0.01 s, between two of the judge's looks at the scratch
# directory (blind red team, session 15). It answers "not supported", as on file systems without
# it: glibc's posix_fallocate and LLVM then write or truncate instead, at the disk's pace, which
# the judge's watch (every second) bounds.
SCMP_ACT_ERRNO_EOPNOTSUPP = 0x00050000 | 95
UNSUPPORTED_SYSCALLS = ("fallocate",)


def bwrap_path():
    return os.environ.get("KFORGE_BWRAP") or shutil.which("bwrap")


def probe():
    """{"mechanism": "bwrap"|"process", "warning": str|None}: whether bubblewrap can create the
    namespaces here (checked once per worker)."""
    global _probe_result
    if _probe_result is None:
        path = bwrap_path()
        if not path:
            _probe_result = {"mechanism": "process", "warning": "bubblewrap (bwrap) is not "
                             "installed: the candidate ran in a separate process WITHOUT "
                             "namespaces (it shares the file system, network and process "
                             "table); install bubblewrap"}
        else:
            try:
                done = subprocess.run([path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc",
                                       "/proc", "--unshare-all", "--die-with-parent",
                                       "--cap-drop", "ALL", "--", "/bin/true"],
                                      capture_output=True, timeout=30, env={"PATH": "/usr/bin:/bin"})
                error = done.stderr.decode(errors="replace").strip()
                ok = done.returncode == 0
            except (OSError, subprocess.TimeoutExpired) as failure:
                ok, error = False, str(failure)
            _probe_result = {"mechanism": "bwrap", "warning": None} if ok else {
                "mechanism": "process", "warning": f"bubblewrap cannot create namespaces here "
                f"({error[:200]}): the candidate ran in a separate process WITHOUT namespaces"}
        if _probe_result["mechanism"] != "bwrap" and \
                os.environ.get("KFORGE_CONFINEMENT") == "require":
            _probe_result["refuse"] = True
    return _probe_result


def seccomp_filter():
    """A pipe's read end holding the compiled filter (for bwrap --seccomp), or None where
    libseccomp is not installed (the result's confinement record says so)."""
    import ctypes
    try:
        lib = ctypes.CDLL("libseccomp.so.2")
    except OSError:
        return None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                     ctypes.c_uint]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    context = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not context:
        return None
    try:
        # (a libseccomp older than 2.4 knows no KILL_PROCESS: the thread is killed, as before,
        # and the judge's deadline ends the hang; the rest of the filter still stands)
        lib.seccomp_attr_set(context, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)
        for name in DENIED_SYSCALLS:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number >= 0:
                lib.seccomp_rule_add(context, SCMP_ACT_ERRNO_EPERM, number, 0)
        for name in UNSUPPORTED_SYSCALLS:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number >= 0:
                lib.seccomp_rule_add(context, SCMP_ACT_ERRNO_EOPNOTSUPP, number, 0)
        deny_prctl_options(lib, context)
        deny_socket_families(lib, context)
        deny_host_file_effects(lib, context)
        read_end, write_end = os.pipe()
        try:
            if lib.seccomp_export_bpf(context, write_end) != 0:
                os.close(read_end)
                return None
        finally:
            os.close(write_end)
        return read_end
    finally:
        lib.seccomp_release(context)


# prctl(PR_TASK_PERF_EVENTS_DISABLE / _ENABLE): documented as switching every perf counter
# attached to the caller, the judge's operator probes (operator_probes.py) among them; the
# kernel only switches those the caller owns (worker/tests/test_operator_probes.py). Refused
# anyway: no kernel needs them
PERF_SWITCHES = (31, 32)
# prctl(PR_SET_DUMPABLE, 1): the candidate process is made non-dumpable before any candidate code
# (candidate_host.op_seal), so that nothing it starts can open its memory and no core of it is
# written; making itself dumpable again is refused (blind red team, session 36: it could, and a
# crash then went to the machine's core handler)
PR_SET_DUMPABLE = 4
SCMP_CMP_NE, SCMP_CMP_EQ = 1, 4


class _ArgCompare(ctypes.Structure):  # struct scmp_arg_cmp
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


def deny_prctl_options(lib, context):
    """Refuses (EPERM) the prctl options that switch the judge's counters off, and making the
    process dumpable again."""
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                           ctypes.c_uint, ctypes.c_void_p]
    number = lib.seccomp_syscall_resolve_name(b"prctl")
    for option in PERF_SWITCHES:
        compare = _ArgCompare(0, SCMP_CMP_EQ, option, 0)
        lib.seccomp_rule_add_array(context, SCMP_ACT_ERRNO_EPERM, number, 1,
                                   ctypes.byref(compare))
    dumpable = (_ArgCompare * 2)(_ArgCompare(0, SCMP_CMP_EQ, PR_SET_DUMPABLE, 0),
                                 _ArgCompare(1, SCMP_CMP_NE, 0, 0))
    lib.seccomp_rule_add_array(context, SCMP_ACT_ERRNO_EPERM, number, 2, dumpable)


# Socket families a candidate process may open: local ones and the (unconnected) network ones of
# its own network namespace. AF_VSOCK is not namespaced: on a Firecracker VM (the GPU machines)
# it reaches the hypervisor's side (blind red team, session 36: socket(AF_VSOCK) succeeded).
ALLOWED_SOCKET_FAMILIES = (1, 2, 10, 16)  # AF_UNIX, AF_INET, AF_INET6, AF_NETLINK
SCMP_CMP_GE = 5


def deny_socket_families(lib, context):
    """Refuses (EAFNOSUPPORT, as a kernel without the family) socket() and socketpair() for every
    family but ALLOWED_SOCKET_FAMILIES."""
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                           ctypes.c_uint, ctypes.c_void_p]
    action = 0x00050000 | 97  # SCMP_ACT_ERRNO(EAFNOSUPPORT)
    last = max(ALLOWED_SOCKET_FAMILIES)
    for name in (b"socket", b"socketpair"):
        number = lib.seccomp_syscall_resolve_name(name)
        if number < 0:
            continue
        above = _ArgCompare(0, SCMP_CMP_GE, last + 1, 0)
        lib.seccomp_rule_add_array(context, action, number, 1, ctypes.byref(above))
        for family in range(last):
            if family not in ALLOWED_SOCKET_FAMILIES:
                compare = _ArgCompare(0, SCMP_CMP_EQ, family, 0)
                lib.seccomp_rule_add_array(context, action, number, 1, ctypes.byref(compare))


F_SETLEASE = 1024
POSIX_FADV_DONTNEED = 4


def deny_host_file_effects(lib, context):
    """Refuses (EPERM) what acts on a host file through the read-only root without writing it
    (blind red team, session 37): a lease, which stalls every host process that opens the file
    for writing until the sandbox lets go (the sandbox's root owns the host's root-owned
    files), and dropping the file's pages from the host's page cache. Locks are the judge's
    (exec_monitor.LOCK_COMMANDS: allowed on the sandbox's own writable files)."""
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                           ctypes.c_uint, ctypes.c_void_p]
    for name, arg, value in ((b"fcntl", 1, F_SETLEASE), (b"fadvise64", 3, POSIX_FADV_DONTNEED)):
        number = lib.seccomp_syscall_resolve_name(name)
        if number >= 0:
            compare = _ArgCompare(arg, SCMP_CMP_EQ, value, 0)
            lib.seccomp_rule_add_array(context, SCMP_ACT_ERRNO_EPERM, number, 1,
                                       ctypes.byref(compare))


def build_cache(source_bytes):
    """The compiler caches (Triton, torch extensions, Inductor) of one candidate source: keyed by
    the source's hash, so a candidate can only ever write into the cache that evaluations of the
    byte-identical source read (a poisoned build can mislead nobody but itself), while the
    library's kernels are not rebuilt on every evaluation."""
    root = os.environ.get("KFORGE_BUILD_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "kforge", "builds")
    path = os.path.join(root, hashlib.sha256(source_bytes).hexdigest()[:24])
    for sub in ("triton", "torch_extensions", "inductor"):
        os.makedirs(os.path.join(path, sub), exist_ok=True)
    return os.path.realpath(path)


# Where the sandbox sees its build-cache slot: one path for every evaluation. torch's extension
# builds write absolute paths into their ninja file, so a slot seen at a new path each time made
# ninja rebuild the library's CUDA kernel in every evaluation (~30 s of nvcc on the H100).
SANDBOX_CACHE = "/tmp/kforge-build-cache"


def environment(scratch, cache, device, worker_path):
    env = {name: value for name, value in os.environ.items()
           if (name in ALLOWED_NAMES) and not SECRET_NAME.search(name)}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    tmp = os.path.join(scratch, "tmp")
    os.makedirs(tmp, exist_ok=True)
    env.update({"HOME": scratch, "TMPDIR": tmp, "PYTHONPATH": worker_path,
                "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1",
                "TRITON_CACHE_DIR": os.path.join(cache, "triton"),
                "TORCH_EXTENSIONS_DIR": os.path.join(cache, "torch_extensions"),
                "TORCHINDUCTOR_CACHE_DIR": os.path.join(cache, "inductor"),
                "TORCHINDUCTOR_COMPILE_THREADS": "1", "KFORGE_SCRATCH": scratch,
                "KINETO_LOG_LEVEL": "5",  # the profiler's start/stop lines flood the output
                # Kineto would finalise CUPTI on a thread of its own at the end of every
                # profiler session, the checked calls' operator recorder's included: a thread
                # after the candidate's import each time, which the judge refuses; and CUPTI,
                # brought up again in the profiled forward, would start its threads there
                # (H100, session 14: bench/thread_probe.py, docs/bench/gpu_h100_20261126c.md).
                # The callbacks it leaves on do not slow the launch path measurably (H200,
                # session 19: bench/parity/cupti_state.py).
                "TEARDOWN_CUPTI": "0", **NO_MULTICAST})
    if device == "cpu":
        env.update({"CUDA_VISIBLE_DEVICES": "", "TRITON_INTERPRET": "1", "OMP_NUM_THREADS": "1"})
    return env


def _drop_capabilities():
    """Without bubblewrap (which drops them itself): no capabilities, bounding set included,
    so a candidate started by root cannot read other processes' memory or environment
    (/proc/PID/environ of a non-dumpable judge), override file permissions or signal anyone."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in range(64):
        libc.prctl(24, capability, 0, 0, 0)     # PR_CAPBSET_DROP (EINVAL past the last)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()
    libc.capset(header, data)


def _limits(drop_capabilities=False):
    """In the new process before exec: rlimits and no_new_privs (inherited by everything it
    starts; bwrap sets no_new_privs too)."""
    import ctypes
    import resource
    for limit, value in ((resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT),
                         (resource.RLIMIT_NOFILE, OPEN_FILES_LIMIT)):
        _, hard = resource.getrlimit(limit)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(limit, (value, value))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(38, 1, 0, 0, 0)                  # PR_SET_NO_NEW_PRIVS
    libc.prctl(1, signal.SIGKILL, 0, 0, 0)      # PR_SET_PDEATHSIG: dies with the judge
    if drop_capabilities:
        _drop_capabilities()


def _hidden_homes():
    homes = {os.path.expanduser("~"), "/root", "/home"}
    return sorted(path for path in homes if path and os.path.isdir(path) and path != "/")


def _covered(path):
    """True when the sandbox covers `path` with an empty tmpfs: under a home, or under /tmp."""
    hidden = _hidden_homes() + ["/tmp", os.path.realpath("/tmp")]
    return any(path == home or path.startswith(home + os.sep) for home in hidden)


def _hidden_configs():
    """kforge's config files (they may hold an API key), wherever the user keeps them: the file
    named by KFORGE_CONFIG (kforge exports --config there) and $XDG_CONFIG_HOME/kforge. Under a
    home they are hidden with it already."""
    found = []
    path = os.environ.get("KFORGE_CONFIG")
    if path and os.path.isfile(path):
        found.append(os.path.realpath(path))
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg and os.path.isdir(os.path.join(xdg, "kforge")):
        found.append(os.path.realpath(os.path.join(xdg, "kforge")))
    return [path for path in found if not _covered(path)]


_sized_tmpfs = None


def _tmpfs(dest, size):
    """bubblewrap's arguments for a tmpfs of at most `size` bytes on `dest` (`--size` came with
    bubblewrap 0.8; an older one mounts it unsized, as before)."""
    global _sized_tmpfs
    if _sized_tmpfs is None:
        try:
            shown = subprocess.run([bwrap_path(), "--help"], capture_output=True, text=True,
                                   timeout=10)
            _sized_tmpfs = "--size" in shown.stdout + shown.stderr
        except (OSError, subprocess.SubprocessError, TypeError):
            _sized_tmpfs = False
    return (["--size", str(size)] if _sized_tmpfs else []) + ["--tmpfs", dest]


# /proc's files and folders that change the machine rather than the process
PROC_SETTINGS = ("/proc/sys", "/proc/sysrq-trigger", "/proc/mtrr", "/proc/pressure", "/proc/fs",
                 "/proc/driver", "/proc/acpi", "/proc/scsi", "/proc/irq", "/proc/bus")


def _bwrap_args(scratch, cache, keep_visible, status_fd, seccomp_fd):
    # --json-status-fd: bwrap writes {"exit-code": N} there when the candidate exits, so a
    # process that is not bwrap's parent (the judge adopting a warm one) learns how it ended
    args = [bwrap_path(), "--json-status-fd", str(status_fd)]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    args += ["--ro-bind", "/", "/", "--dev", "/dev"] + _tmpfs("/dev/shm", TMPFS_BYTES["/dev/shm"])
    for node in sorted(glob.glob("/dev/nvidia*")):
        args += ["--dev-bind", node, node]
    if os.path.isdir("/dev/dri"):
        args += ["--dev-bind", "/dev/dri", "/dev/dri"]
    # --dev's own tmpfs is unsized: 4 GiB written into /dev stayed outside every limit (red
    # team, session 15, round 2). Read-only once its nodes are in place (the nodes still read
    # and write; /dev/shm is a mount of its own, writable and sized).
    args += ["--remount-ro", "/dev"]
    # /proc stays writable: CUDA's driver names its threads through /proc/self/task/TID/comm
    # and cuInit fails (error 304) when it cannot (H200, session 23). Another process's memory
    # (/proc/PID/mem, f36) is refused by the judge instead (exec_monitor.WRITE_OPENS).
    args += ["--proc", "/proc"] + _tmpfs("/tmp", TMPFS_BYTES["/tmp"])
    # The machine's settings under /proc read-only (blind red team, session 36): the sandbox's
    # root is the host's uid 0 without capabilities, and a /proc/sys file checks only the uid and
    # its mode, so kernel.core_pattern (a program run as root for every crash) was writable.
    # bubblewrap covers /proc/sys only where a test write succeeds; these binds always do.
    for path in PROC_SETTINGS:
        args += ["--ro-bind-try", path, path]
    # The host's service sockets (dbus, docker, a database) live under /run: connect() reaches a
    # socket on a read-only mount (blind red team, session 36), so the folder is covered
    for run in ("/run", "/var/run"):
        if os.path.isdir(run) and not os.path.islink(run):
            args += _tmpfs(run, COVER_TMPFS_BYTES)
    for home in _hidden_homes():
        args += _tmpfs(home, COVER_TMPFS_BYTES)
    for path in _hidden_configs():
        # (a file: /dev/null on a nodev mount, so reading it is refused outright)
        args += _tmpfs(path, COVER_TMPFS_BYTES) if os.path.isdir(path) else \
            ["--ro-bind", os.devnull, path]
    # what the candidate process needs from under a hidden home (the worker, an interpreter)
    for path in keep_visible:
        args += ["--ro-bind", path, path]
    args += ["--bind", scratch, scratch, "--bind", cache, SANDBOX_CACHE,
             "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
             "--chdir", scratch, "--"]
    return args


def start(scratch, cache, device, sock_fd, warm=False):
    """Start `python -m kforge_worker.candidate_host FD` confined; returns (Popen, confinement
    record); the record's `status_fd` (bwrap only) reports the exit. The process's stdout/stderr
    are a pipe the caller drains."""
    state = probe()
    if state.get("refuse"):
        raise RuntimeError(f"refusing to run candidate code: {state['warning']} "
                           f"(KFORGE_CONFINEMENT=require)")
    worker_path = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = environment(scratch, SANDBOX_CACHE if state["mechanism"] == "bwrap" else cache, device,
                      worker_path)
    command = [sys.executable, "-m", "kforge_worker.candidate_host", str(sock_fd), device]
    from kforge_worker import timed_recorder
    recorder, _ = timed_recorder.library()  # built here, outside the sandbox, once
    if recorder:
        env[timed_recorder.ENV] = recorder
    status_r = status_w = seccomp_fd = None
    pass_fds = (sock_fd,)
    if state["mechanism"] == "bwrap":
        env["KFORGE_PID_NAMESPACE"] = "1"  # /proc shows the sandbox only (provenance)
        status_r, status_w = os.pipe()
        seccomp_fd = seccomp_filter()
        pass_fds = (sock_fd, status_w) + ((seccomp_fd,) if seccomp_fd is not None else ())
        visible = {worker_path, os.path.dirname(os.path.dirname(os.path.realpath(sys.executable))),
                   sys.prefix, os.path.realpath(sys.prefix),
                   os.path.dirname(os.path.dirname(os.path.abspath(sys.executable)))}
        if recorder:  # (read-only, as everything the sandbox keeps visible)
            visible.add(os.path.dirname(recorder))
        # what the sandbox covers but the process needs (a checkout or a virtual environment
        # may live under /tmp, as in a CI clone)
        keep = sorted(path for path in visible if _covered(path))
        command = _bwrap_args(scratch, cache, keep, status_w, seccomp_fd) + command
    try:
        process = subprocess.Popen(command, env=env, cwd=scratch, pass_fds=pass_fds,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, start_new_session=True,
                                   preexec_fn=_limits if state["mechanism"] == "bwrap" else
                                   lambda: _limits(drop_capabilities=True))
    finally:
        for fd in (status_w, seccomp_fd):
            if fd is not None:
                os.close(fd)
    return process, {"mechanism": state["mechanism"], "warning": state["warning"],
                     "seccomp": seccomp_fd is not None, "status_fd": status_r}


def exit_status(status_fd):
    """The candidate's exit code from bwrap's status descriptor, or None while it runs."""
    import json
    import select
    if status_fd is None or not select.select([status_fd], [], [], 0)[0]:
        return None
    try:
        data = os.read(status_fd, 65536)
    except OSError:
        return None
    for line in data.decode(errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and "exit-code" in entry:
            return int(entry["exit-code"])
    return -1 if not data else None


def descendants(pid):
    """pid and every process below it (from /proc's parent links)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += children.get(current, [])
    return found


def tree_rss_bytes(pid):
    total = 0
    for member in descendants(pid):
        try:
            with open(f"/proc/{member}/statm") as handle:
                total += int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    return total


def host_memory():
    """(MemAvailable, Shmem) of the host in bytes, from /proc/meminfo; None where unreadable."""
    fields = {}
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                name, _, rest = line.partition(":")
                if name in ("MemAvailable", "Shmem"):
                    fields[name] = int(rest.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    if len(fields) != 2:
        return None
    return fields["MemAvailable"], fields["Shmem"]


def disk_space(path):
    """(used, free) bytes of the file system holding `path`; None where unreadable."""
    try:
        info = os.statvfs(path)
    except OSError:
        return None
    return (info.f_blocks - info.f_bfree) * info.f_frsize, info.f_bavail * info.f_frsize


def _is_shared_memory(target):
    """A descriptor's or mapping's target that is memory no RSS shows once written through
    write() or unmapped: a memfd, a POSIX or SysV shared-memory segment, a deleted file (on a
    tmpfs it is memory; on disk the write limit's walk cannot see it either)."""
    return target.startswith(("/memfd:", "/dev/shm/", "/SYSV")) or target.endswith(" (deleted)")


def shared_memory_bytes(pid, judge_inodes=frozenset()):
    """Bytes allocated in the shared-memory objects the process tree of `pid` holds open or
    mapped (memfds, /dev/shm, SysV segments, deleted files), each object once, at its allocated
    size: a memfd filled with write() is in no process's resident set (red team, session 15).
    `judge_inodes`: (st_dev, st_ino) of the judge's own shared buffers, not counted. Objects
    the judge cannot stat (a mapping whose descriptor is closed, where /proc's map_files is
    closed to it) are left out: their touched pages are in the RSS already."""
    seen = {}
    for member in descendants(pid):
        paths = []
        try:
            for fd in os.listdir(f"/proc/{member}/fd"):
                path = f"/proc/{member}/fd/{fd}"
                try:
                    if _is_shared_memory(os.readlink(path)):
                        paths.append(path)
                except OSError:
                    continue
            with open(f"/proc/{member}/maps") as handle:
                for line in handle:
                    fields = line.split(None, 5)
                    if len(fields) == 6 and _is_shared_memory(fields[5].rstrip("\n")):
                        paths.append(f"/proc/{member}/map_files/{fields[0]}")
        except OSError:
            continue
        for path in paths:
            try:
                info = os.stat(path)
            except OSError:
                continue
            key = (info.st_dev, info.st_ino)
            if key not in judge_inodes:
                seen[key] = max(seen.get(key, 0), info.st_blocks * 512)
    return sum(seen.values())


def kill(process):
    """The process, its session and (under bwrap) its PID namespace: nothing outlives it."""
    members = descendants(process.pid)
    for target in [lambda: os.killpg(process.pid, signal.SIGKILL)] + \
            [lambda m=m: os.kill(m, signal.SIGKILL) for m in members]:
        try:
            target()
        except OSError:
            pass
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
