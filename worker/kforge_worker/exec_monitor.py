"""Every program the candidate's process tree runs, seen by the judge (docs/trust.md, class 6);
also every FIFO or device node it tries to make (mknod, refused) and every signal it sends outside
its own process tree (kill, tgkill, pidfd_send_signal..., refused: the worker, the judge or the
sandbox's init).

The Python audit hook sees `subprocess` and `os.exec*`, but not an exec made below Python (libc
`system()` or `execv()` through ctypes, `_posixsubprocess.fork_exec`, a C extension), nor what an
allowed program runs in turn (`ninja` running a build rule's shell, `gcc -wrapper`). So the
candidate process, before any candidate code runs (the judge's `seal` request), installs a
seccomp filter that hands every `execve`/`execveat` of its process tree to a supervisor
(SECCOMP_RET_USER_NOTIF, all threads: TSYNC), sends the filter's listener descriptor to the judge
and closes its own copy. The kernel then stops each exec until the judge answers: the judge reads
the program's path and arguments from the caller's memory, decides by who is asking (the caller's
own executable, which the kernel reports and the caller cannot fake) and what it asks for, names
every refused exec in the verdict and answers EPERM.

Policy (`decide`): the candidate process (Python) may run the compilers and their helpers that
Triton and torch's extension builds run (cc/gcc/g++/clang, nvcc/ptxas/cuobjdump/nvdisasm, ninja,
ldconfig -p, `file`, programs inside Triton's package); a compiler driver may run its own passes
(cc1, as, ld, collect2, lto-wrapper; nvcc: its CUDA tools); ninja may run /bin/sh, and a shell
started by ninja (or nvcc) may run the compilers. Everything else is refused and named.

The path is read from the caller's memory after the kernel stopped it; another thread of the
caller could change that memory between the judge's read and the kernel's (the kernel
documentation's warning for this mechanism). Such a race can make the judge allow an exec it
would refuse; it cannot hide that an exec happened (the notification itself comes from the
kernel), and what runs is still confined by the namespaces and the read-only file system."""

import collections
import ctypes
import os
import re
import select
import struct
import threading
import time

from kforge_worker.confinement import SCMP_ACT_KILL_PROCESS, SCMP_FLTATR_ACT_BADARCH

SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_ACT_NOTIFY = 0x7FC00000
SCMP_FLTATR_CTL_TSYNC = 4
NOTIF = struct.Struct("<QIIiIQ6Q")      # struct seccomp_notif (80 bytes)
RESPONSE = struct.Struct("<QqiI")       # struct seccomp_notif_resp (24 bytes)
IOCTL_RECV = 0xC0502100                 # SECCOMP_IOCTL_NOTIF_RECV
IOCTL_SEND = 0xC0182101                 # SECCOMP_IOCTL_NOTIF_SEND
IOCTL_ID_VALID = 0x40082102             # SECCOMP_IOCTL_NOTIF_ID_VALID
FLAG_CONTINUE = 1
EPERM = 1

COMPILER = re.compile(r"^((x86_64|aarch64)-linux-gnu-)?(cc|c\+\+|gcc|g\+\+|clang|clang\+\+)"
                      r"(-[0-9.]+)?$")
# Triton's own tools: the assembler and the disassemblers it runs when a launch compiles
TRITON_TOOLS = re.compile(r"^(ptxas(-blackwell)?|cuobjdump|nvdisasm)$")
PYTHON_MAY_RUN = re.compile(COMPILER.pattern + "|" + TRITON_TOOLS.pattern +
                            r"|^(nvcc|ninja|file|ldconfig(\.real)?)$")
COMPILER_PASSES = re.compile(r"^((x86_64|aarch64)-linux-gnu-)?(as|ld(\.bfd|\.gold|\.lld)?|"
                             r"collect2|lto-wrapper|lto1|cc1(plus)?|cpp|objcopy|strip)"
                             r"(-[0-9.]+)?$")
SHELLS = {"sh", "dash", "bash"}
NVCC_TOOLS = re.compile(r"^(cicc|ptxas|fatbinary|nvlink|cudafe\+\+|nvcc|bin2c|cuobjdump|"
                        r"nvdisasm|nvprune)$")


def _libseccomp():
    try:
        lib = ctypes.CDLL("libseccomp.so.2")
    except OSError:
        return None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                     ctypes.c_uint]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                           ctypes.c_uint, ctypes.c_void_p]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_notify_fd.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    return lib


SIGNALS = ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
           "pidfd_send_signal")
# Ways to have a signal delivered later, between the harness's steps: a POSIX timer or a message
# queue that signals, a descriptor that signals its readiness with a chosen signal (F_SETSIG).
TIMERS = ("timer_create", "mq_notify")
WATCHED = ("execve", "execveat", "mknod", "mknodat") + SIGNALS + TIMERS
# Code mapped executable (mmap or mprotect with PROT_EXEC): the judge refuses it to every program
# of the tree but the candidate process when the file is one the candidate could have written
# (Monitor._code_mapping_reason)
CODE_MAPPINGS = ("mmap", "mprotect", "pkey_mprotect")
PROT_EXEC = 0x4
# Advice that discards a mapping's private pages (blind red team, session 35): the judge's
# operator probes are breakpoints in the process's private copies of a library's code pages, and
# madvise(MADV_DONTNEED) on them refaults the code from the file without the breakpoints (no
# mprotect, no mmap, no write); a split and merge of the mapping puts them back before the judge
# reads them. Refused where the range holds a library the probes watch (Monitor._advice_reason).
# MADV_COLLAPSE rebuilds the pages too; process_madvise (another process's memory) is refused.
MADV_DONTNEED, MADV_DONTNEED_LOCKED, MADV_COLLAPSE = 4, 24, 25
CODE_ADVICE = ("madvise", "process_madvise")
# personality(READ_IMPLIES_EXEC) makes the kernel add PROT_EXEC to every mapping asked for with
# PROT_READ (blind red team, session 36): mprotect(PROT_READ | PROT_WRITE) on a probed page of
# libtorch then left it executable and writable with no PROT_EXEC in the call, so the filter
# never asked the judge; the original bytes went back around torch.softmax, the breakpoints
# after it, and the probes counted nothing. Every personality() but the query goes to the judge,
# which refuses READ_IMPLIES_EXEC once candidate code may run.
READ_IMPLIES_EXEC = 0x0400000
PERSONALITY_QUERY = 0xFFFFFFFF
# Calls that change another process's scheduling or limits: a process may lower one of the same
# uid without a capability, and the sandbox's PID 1 is the host's bubblewrap (blind red team,
# session 37: its nice value, CPU affinity and I/O class changed, nothing reported). With a
# target other than 0 (or a group or a user) they go to the judge, which lets the caller's own
# process and threads through (libgomp pins its threads by thread id). name -> (the target's
# argument, the `which` argument and its value for one process, or None)
FOREIGN_TARGETS = {"setpriority": (1, (0, 0)), "ioprio_set": (1, (0, 1)),
                   "sched_setaffinity": (0, None), "sched_setscheduler": (0, None),
                   "sched_setparam": (0, None), "sched_setattr": (0, None),
                   "prlimit64": (0, None)}
# Files opened for writing (open/openat with O_WRONLY or O_RDWR, creat) go to the judge, which
# refuses another process's memory (/proc/PID/mem): the candidate process could write code of its
# own into a compiler it runs, a child of its that is dumpable after its exec (session 22, f36).
# /proc itself must stay writable: CUDA's driver names its threads through
# /proc/self/task/TID/comm and fails cuInit (error 304) when it cannot (H200, session 23).
# openat2 (whose flags sit in memory a filter cannot read) fails with ENOSYS: glibc and CPython
# never use it for open().
WRITE_OPENS = ("open", "openat", "creat")
O_ACCMODE, O_WRONLY, O_RDWR = 3, 1, 2
PROC_SUPER_MAGIC = 0x9FA0
PROC_MEMORY = re.compile(r"^/proc/(self|thread-self|[0-9]+)(/task/[0-9]+)?/mem$")
# The machine's settings (confinement.PROC_SETTINGS, read-only in the sandbox as well): a write
# there is charged by name (blind red team, session 36: kernel.core_pattern was writable)
PROC_SETTING = re.compile(r"^(/proc)?/(sys|sysrq-trigger|mtrr|pressure|fs|driver|acpi|scsi|irq|"
                          r"bus)(/|$)")
# A process's own files (its /proc/PID): writable for that process only. The sandbox's PID 1 is
# bubblewrap, a process of the host (blind red team, session 37: its oom_score_adj raised through
# libc); a child's files are not the caller's either.
PROC_PROCESS = re.compile(r"^/proc/([0-9]+)(/|$)")
# New threads and processes: clone (but a vfork's) and fork go to the judge; clone3 (whose flags
# sit in memory a filter cannot read) fails with ENOSYS, and glibc falls back to clone.
CLONE_VM, CLONE_VFORK, CLONE_THREAD = 0x00000100, 0x00004000, 0x00010000
SCMP_CMP_NE, SCMP_CMP_EQ, SCMP_CMP_MASKED_EQ = 1, 4, 7
F_SETSIG, SIGCHLD = 10, 17
# Locks: flock and fcntl's record locks act on the host's inode of a file seen through the
# read-only root (blind red team, session 37: a host flock got EWOULDBLOCK on the project's
# README while a candidate held it). They go to the judge, which allows them on the sandbox's
# own writable files (Inductor's and SQLite's locks in scratch or the cache slot).
LOCK_COMMANDS = (6, 7, 37, 38)  # F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW
ENOSYS = 38
EAGAIN = 11
EACCES = 13
ENOENT = 2


class _ArgCompare(ctypes.Structure):  # struct scmp_arg_cmp
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


def exec_syscalls():
    """{number: name} of the watched system calls on this machine."""
    lib = _libseccomp()
    if lib is None:
        return {}
    numbers = {}
    for name in WATCHED + CODE_MAPPINGS + CODE_ADVICE + WRITE_OPENS + (
            "clone", "fork", "rt_sigaction", "fcntl", "personality", "flock",
            *FOREIGN_TARGETS):
        number = lib.seccomp_syscall_resolve_name(name.encode())
        if number >= 0:
            numbers[number] = name
    return numbers


def install(deny=()):
    """In the candidate process, before candidate code runs: the notifying filter on every
    thread (and, where bubblewrap did not install confinement.DENIED_SYSCALLS already, those
    refused with EPERM: `deny`). Returns (listener fd, None) or (None, why not)."""
    lib = _libseccomp()
    if lib is None:
        return None, "libseccomp is not installed"
    context = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not context:
        return None, "seccomp_init failed"
    try:
        for name in (item.encode() for item in WATCHED):
            number = lib.seccomp_syscall_resolve_name(name)
            if number >= 0 and lib.seccomp_rule_add(context, SCMP_ACT_NOTIFY, number, 0) != 0:
                return None, f"seccomp_rule_add({name.decode()}) failed"
        # clone as a thread (CLONE_THREAD), as a thread in all but name (CLONE_VM without
        # CLONE_VFORK), as a fork (no CLONE_VM) and as a vfork (for the signal its end sends
        # the parent). rt_sigaction only when it sets an action, fcntl only for F_SETSIG.
        clone = lib.seccomp_syscall_resolve_name(b"clone")
        fcntl = lib.seccomp_syscall_resolve_name(b"fcntl")
        for syscall, arg, op, a, b in (
                (clone, 0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD),
                (clone, 0, SCMP_CMP_MASKED_EQ, CLONE_VM | CLONE_VFORK, CLONE_VM),
                (clone, 0, SCMP_CMP_MASKED_EQ, CLONE_VM, 0),
                (clone, 0, SCMP_CMP_MASKED_EQ, CLONE_VFORK, CLONE_VFORK),
                (fcntl, 1, SCMP_CMP_EQ, F_SETSIG, 0),
                *((fcntl, 1, SCMP_CMP_EQ, command, 0) for command in LOCK_COMMANDS)):
            compare = _ArgCompare(arg, op, a, b)
            if lib.seccomp_rule_add_array(context, SCMP_ACT_NOTIFY, syscall, 1,
                                          ctypes.byref(compare)) != 0:
                return None, "seccomp_rule_add(clone, fcntl) failed"
        number = lib.seccomp_syscall_resolve_name(b"flock")
        if number >= 0 and lib.seccomp_rule_add(context, SCMP_ACT_NOTIFY, number, 0) != 0:
            return None, "seccomp_rule_add(flock) failed"
        for name in CODE_MAPPINGS:  # only when the new protection allows execution
            compare = _ArgCompare(2, SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC)
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number >= 0 and lib.seccomp_rule_add_array(context, SCMP_ACT_NOTIFY, number, 1,
                                                          ctypes.byref(compare)) != 0:
                return None, f"seccomp_rule_add({name}) failed"
        madvise = lib.seccomp_syscall_resolve_name(b"madvise")
        for advice in (MADV_DONTNEED, MADV_DONTNEED_LOCKED, MADV_COLLAPSE):
            compare = _ArgCompare(2, SCMP_CMP_EQ, advice, 0)
            if madvise >= 0 and lib.seccomp_rule_add_array(context, SCMP_ACT_NOTIFY, madvise, 1,
                                                           ctypes.byref(compare)) != 0:
                return None, "seccomp_rule_add(madvise) failed"
        number = lib.seccomp_syscall_resolve_name(b"process_madvise")
        if number >= 0 and lib.seccomp_rule_add(context, SCMP_ACT_NOTIFY, number, 0) != 0:
            return None, "seccomp_rule_add(process_madvise) failed"
        number = lib.seccomp_syscall_resolve_name(b"personality")
        compare = _ArgCompare(0, SCMP_CMP_NE, PERSONALITY_QUERY, 0)
        if number >= 0 and lib.seccomp_rule_add_array(context, SCMP_ACT_NOTIFY, number, 1,
                                                      ctypes.byref(compare)) != 0:
            return None, "seccomp_rule_add(personality) failed"
        for name, (target, which) in FOREIGN_TARGETS.items():
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number < 0:
                continue
            compares = [_ArgCompare(target, SCMP_CMP_NE, 0, 0)]
            if which is not None:
                compares.append(_ArgCompare(which[0], SCMP_CMP_NE, which[1], 0))
            for compare in compares:  # either: the judge looks
                if lib.seccomp_rule_add_array(context, SCMP_ACT_NOTIFY, number, 1,
                                              ctypes.byref(compare)) != 0:
                    return None, f"seccomp_rule_add({name}) failed"
        for name, arg in (("open", 1), ("openat", 2)):  # only opens for writing
            number = lib.seccomp_syscall_resolve_name(name.encode())
            for mode in (O_WRONLY, O_RDWR):
                compare = _ArgCompare(arg, SCMP_CMP_MASKED_EQ, O_ACCMODE, mode)
                if number >= 0 and lib.seccomp_rule_add_array(
                        context, SCMP_ACT_NOTIFY, number, 1, ctypes.byref(compare)) != 0:
                    return None, f"seccomp_rule_add({name}) failed"
        number = lib.seccomp_syscall_resolve_name(b"creat")
        if number >= 0 and lib.seccomp_rule_add(context, SCMP_ACT_NOTIFY, number, 0) != 0:
            return None, "seccomp_rule_add(creat) failed"
        number = lib.seccomp_syscall_resolve_name(b"openat2")
        if number >= 0:
            lib.seccomp_rule_add(context, 0x00050000 | ENOSYS, number, 0)
        compare = _ArgCompare(1, SCMP_CMP_NE, 0, 0)
        if lib.seccomp_rule_add_array(context, SCMP_ACT_NOTIFY,
                                      lib.seccomp_syscall_resolve_name(b"rt_sigaction"), 1,
                                      ctypes.byref(compare)) != 0:
            return None, "seccomp_rule_add(rt_sigaction) failed"
        number = lib.seccomp_syscall_resolve_name(b"fork")
        if number >= 0 and lib.seccomp_rule_add(context, SCMP_ACT_NOTIFY, number, 0) != 0:
            return None, "seccomp_rule_add(fork) failed"
        number = lib.seccomp_syscall_resolve_name(b"clone3")
        if number >= 0:
            lib.seccomp_rule_add(context, 0x00050000 | ENOSYS, number, 0)
        for name in deny:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number >= 0:
                lib.seccomp_rule_add(context, 0x00050000 | EPERM, number, 0)
        if deny:
            from kforge_worker.confinement import (deny_host_file_effects, deny_prctl_options,
                                                   deny_socket_families)
            deny_prctl_options(lib, context)
            deny_socket_families(lib, context)
            deny_host_file_effects(lib, context)
        if lib.seccomp_attr_set(context, SCMP_FLTATR_CTL_TSYNC, 1) != 0:
            return None, "seccomp TSYNC is not available"
        # as in bubblewrap's filter (confinement.SCMP_ACT_KILL_PROCESS, where a failure is
        # explained): kept here for the machines without bubblewrap
        lib.seccomp_attr_set(context, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)
        result = lib.seccomp_load(context)
        if result != 0:
            return None, f"seccomp_load failed ({os.strerror(-result)})"
        fd = lib.seccomp_notify_fd(context)
        if fd < 0:
            return None, "no seccomp listener descriptor"
        return fd, None
    finally:
        lib.seccomp_release(context)


# ---- the judge's side ------------------------------------------------------------------------

def _read_memory(pid, address, size):
    try:
        with open(f"/proc/{pid}/mem", "rb", buffering=0) as handle:
            handle.seek(address)
            return handle.read(size)
    except (OSError, ValueError, OverflowError):
        return b""


def _read_string(pid, address, limit=4096):
    if not address:
        return None
    data = _read_memory(pid, address, limit)
    end = data.find(b"\0")
    return os.fsdecode(data if end < 0 else data[:end])


def _read_argv(pid, address, count=4096):
    """The first `count` arguments (each up to 4 KiB): every one a check may need (a `-B` or
    `-wrapper` late on the line is read as one early is)."""
    if not address:
        return []
    raw = _read_memory(pid, address, 8 * count)
    argv = []
    for (pointer,) in struct.iter_unpack("<Q", raw[:len(raw) - len(raw) % 8]):
        if not pointer:
            break
        argv.append(_read_string(pid, pointer, 4096) or "")
    return argv


def _mapped_file(pid, address):
    """The file behind the mapping that holds `address` in the caller, as its /proc/PID/maps
    names it, or None for anonymous memory (a JIT's, the stack)."""
    try:
        with open(f"/proc/{pid}/maps") as maps:
            for line in maps:
                fields = line.split(maxsplit=5)
                start, _, end = fields[0].partition("-")
                if int(start, 16) <= address < int(end, 16):
                    if len(fields) < 6 or fields[4] == "0":
                        return None
                    return fields[5].rstrip("\n")
    except (OSError, ValueError, IndexError):
        return None
    return None


# Where a candidate can write when there is no read-only root (no bubblewrap): its scratch is its
# working directory, the rest are the usual temporary folders
WRITABLE_PLACES = ("/tmp/", "/var/tmp/", "/dev/shm/", "/run/user/")


def _process(pid):
    """(executable's real path, parent pid, command line) of a process, from /proc."""
    try:
        exe = os.readlink(f"/proc/{pid}/exe")
    except OSError:
        exe = "?"
    try:
        with open(f"/proc/{pid}/stat") as handle:
            parent = int(handle.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        parent = 0
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            cmdline = [os.fsdecode(item) for item in handle.read().split(b"\0")[:-1]]
    except OSError:
        cmdline = []
    return exe, parent, cmdline


def _thread_name(tid):
    try:
        with open(f"/proc/{tid}/comm") as handle:
            return handle.read().strip()
    except OSError:
        return "?"


def _stack_code(tid, span=16384):
    """The words on a stopped thread's stack that are code addresses, nearest first, as
    (file, address relative to the file's load base): which library asked for a thread
    (diagnostic only: a stack is the caller's to forge)."""
    try:
        with open(f"/proc/{tid}/syscall") as handle:
            sp = int(handle.read().split()[-2], 16)
        code, bases = [], {}
        with open(f"/proc/{tid}/maps") as handle:
            for line in handle:
                fields = line.split()
                if len(fields) < 6:
                    continue
                low, high = (int(part, 16) for part in fields[0].split("-"))
                if int(fields[2], 16) == 0:
                    bases.setdefault(fields[5], low)
                if "x" in fields[1]:
                    code.append((low, high, fields[5]))
    except (OSError, ValueError, IndexError):
        return []
    raw = b""
    for offset in range(0, span, 4096):  # page by page: the stack may end within the span
        chunk = _read_memory(tid, sp + offset, 4096)
        raw += chunk
        if len(chunk) < 4096:
            break
    found = []
    for (word,) in struct.iter_unpack("<Q", raw[:len(raw) - len(raw) % 8]):
        for low, high, path in code:
            if low <= word < high:
                found.append((path, word - bases.get(path, 0)))
                break
    return found


# SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV: faulthandler's, and those LLVM's crash
# recovery takes around each compile of Triton's
CRASH_SIGNALS = (4, 5, 6, 7, 8, 11)
# LLVM's (lib/Support/Unix/Signals.inc): SIGHUP, SIGINT, SIGTERM, SIGUSR2; SIGQUIT, SIGILL,
# SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGXCPU, SIGXFSZ, SIGSYS; SIGUSR1
LLVM_SIGNALS = (1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 15, 24, 25, 31)
RT_SIGACTION = 13  # x86_64


def _cuda_library_dirs():
    """Where PyTorch's CUDA libraries come from: the `nvidia` packages beside torch, torch's own
    lib folder, a CUDA toolkit. Real paths; those that exist."""
    folders = []
    try:
        import torch
        torch_dir = os.path.dirname(os.path.realpath(torch.__file__))
        folders += [os.path.join(os.path.dirname(torch_dir), "nvidia"),
                    os.path.join(torch_dir, "lib")]
    except Exception:
        pass
    folders += ["/usr/local/cuda", "/usr/lib/x86_64-linux-gnu"]
    return [os.path.realpath(f) for f in folders if os.path.isdir(f)]


def current_handlers(signals):
    """{signal: [handler, flags, restorer, mask]} of this process's handlers (SIG_DFL and
    SIG_IGN left out), read with rt_sigaction and no new action (which the filter does not send
    the judge): the kernel's struct, as the judge reads a new action."""
    libc = ctypes.CDLL(None, use_errno=True)
    found = {}
    for number in signals:
        old = (ctypes.c_uint64 * 4)()
        if libc.syscall(RT_SIGACTION, number, None, old, 8) == 0 and old[0] not in (0, 1):
            found[str(number)] = [int(word) for word in old]
    return found


def _code_mapping(pid, address):
    """The file of the unmodified, read-only executable mapping holding `address`, or None: a
    private mapping of a library that was written to (copy-on-write pages: smaps' Anonymous)
    or that is writable holds code of whoever wrote it, whatever file it names."""
    try:
        with open(f"/proc/{pid}/smaps") as handle:
            found = None
            for line in handle:
                fields = line.split()
                if fields and "-" in fields[0] and len(fields) >= 5 and ":" in fields[3]:
                    if found is not None:
                        return found
                    low, high = (int(part, 16) for part in fields[0].split("-"))
                    if low <= address < high and len(fields) >= 6 and "x" in fields[1] \
                            and "w" not in fields[1]:
                        found = fields[5]
                elif found is not None and fields[:1] == ["Anonymous:"] and fields[1] != "0":
                    return None
            return found
    except (OSError, ValueError, IndexError):
        return None


MAP_FIXED = 0x10
# PyTorch's own libraries and the vendors' (cuBLAS, cuDNN): the judge's operator probes
# (operator_probes.py) are breakpoints in their code, and nothing but the loader (long done when
# candidate code runs, or loading a library the first time) maps that code
_TORCH_LIBRARY = re.compile(r"/torch/lib/libtorch\w*\.so$|"
                            r"/lib(?:cublas|cublasLt|cudnn\w*)\.so[.\d]*$")
# A library by one of those names, wherever it lies
_WATCHED_NAME = re.compile(r"/lib(?:torch\w*|cublas\w*|cudnn\w*|mkl\w*)\.so[.\d]*$")


def _second_copy_reason(pid, args):
    """The candidate process mapping code from another copy of a library the probes watch (a
    second torch installation, a CUDA toolkit's cuBLAS the judge did not find): there no
    breakpoint counts what it runs."""
    fd = ctypes.c_int(args[4] & 0xFFFFFFFF).value
    if fd < 0:
        return None
    try:
        shown = os.readlink(f"/proc/{pid}/fd/{fd}")
        if not _WATCHED_NAME.search(shown):
            return None
        info = os.stat(f"/proc/{pid}/fd/{fd}")
    except OSError:
        return None
    from kforge_worker import operator_probes
    if (info.st_dev, info.st_ino) in operator_probes.watched_files():
        return None
    return (f"mapped code from another copy of a library the judge's operator probes watch: "
            f"{shown} (refused; seen by the judge): what runs there is counted by no probe")


def _watched_library_in(pid, address, length):
    """The path of an executable mapping of a library the operator probes watch (operator_probes.
    watched_files, by device and inode) that [address, address + length) overlaps in the
    caller, or None. Only code: the breakpoints are there, and a library's data (the CUDA
    driver reads cuBLAS's kernel images from its read-only segments) is not the judge's."""
    from kforge_worker import operator_probes
    end = address + max(length, 1)
    watched = None
    try:
        with open(f"/proc/{pid}/maps") as maps:
            for line in maps:
                fields = line.split(maxsplit=5)
                low, _, high = fields[0].partition("-")
                if int(high, 16) <= address or int(low, 16) >= end or fields[4] == "0" or \
                        "x" not in fields[1]:
                    continue
                major, _, minor = fields[3].partition(":")
                if watched is None:
                    watched = operator_probes.watched_files()
                if (os.makedev(int(major, 16), int(minor, 16)), int(fields[4])) in watched:
                    return fields[5].rstrip("\n") if len(fields) > 5 else fields[4]
    except (OSError, ValueError, IndexError):
        return None
    return None


def _torch_code_reason(pid, name, args):
    """The candidate process making a page of torch's code executable again (mprotect after
    rewriting it) or mapping other code over it (mmap MAP_FIXED): the way to take the judge's
    breakpoints out of its copy of the operators' code. Or mapping another copy of it."""
    if name == "mmap":
        second = _second_copy_reason(pid, args)
        if second is not None or not args[3] & MAP_FIXED:
            return second
    shown = _mapped_file(pid, args[0])
    if shown is None or not _TORCH_LIBRARY.search(shown):
        return None
    how = "mapped other code over" if name == "mmap" else "made executable again"
    return (f"{how} PyTorch's own code ({os.path.basename(shown)}) in its process (refused; "
            f"seen by the judge): the judge's operator probes are breakpoints there")


def _stack_libraries(found, limit=5):
    names = []
    for path, _ in found:
        name = os.path.basename(path)
        if name not in names:
            names.append(name)
    return names[:limit]


def _resolve(pid, path, dirfd=None):
    if path is None:
        return None
    if path == "" and dirfd is not None:  # fexecve: the descriptor itself
        try:
            return os.readlink(f"/proc/{pid}/fd/{dirfd}")
        except OSError:
            return path
    if not path.startswith("/"):
        base = f"/proc/{pid}/cwd" if dirfd is None or dirfd == -100 else f"/proc/{pid}/fd/{dirfd}"
        try:
            path = os.path.join(os.readlink(base), path)
        except OSError:
            pass
    return path


SYS_OPENAT2 = 437   # the same number on x86_64 and aarch64
RESOLVE_IN_ROOT, RESOLVE_NO_MAGICLINKS = 0x10, 0x02


def _open_beneath(pid, path, resolve):
    """(an O_PATH descriptor of `path` resolved inside the caller's root with openat2's
    `resolve` flags, 0) or (None, errno)."""
    try:
        root = os.open(f"/proc/{pid}/root", os.O_PATH | os.O_DIRECTORY)
    except OSError as error:
        return None, error.errno
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        how = struct.pack("<QQQ", os.O_PATH | os.O_CLOEXEC, 0, resolve)
        fd = libc.syscall(SYS_OPENAT2, root, os.fsencode(path.lstrip("/") or "."),
                          ctypes.c_char_p(how), ctypes.c_size_t(len(how)))
        return (fd, 0) if fd >= 0 else (None, ctypes.get_errno())
    finally:
        os.close(root)


def _open_in_root(pid, path):
    """An O_PATH descriptor of `path` resolved inside the caller's root (absolute links
    included: openat2 with RESOLVE_IN_ROOT), or None."""
    return _open_beneath(pid, path, RESOLVE_IN_ROOT)[0]


def _open_resolved(pid, path):
    """_open_beneath without magic links (/proc/N/fd/M, cwd, root, exe: what they point to is
    the looker's to see, not the judge's)."""
    return _open_beneath(pid, path, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS)


class _StatFs(ctypes.Structure):  # struct statfs, up to f_type (the rest as bytes)
    _fields_ = [("f_type", ctypes.c_long), ("rest", ctypes.c_char * 112)]


def _own_ids(pid):
    """(process id, thread id) of the caller as its own PID namespace numbers them."""
    ids = {}
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                if key in ("NStgid", "NSpid"):
                    ids[key] = value.split()[-1]
    except (OSError, IndexError):
        pass
    return ids.get("NStgid", str(pid)), ids.get("NSpid", str(pid))


def _own_id(pid, number):
    """Whether `number`, a process id in the caller's PID namespace, is the caller's process or
    one of its threads (/proc/TID names a thread's files as /proc/PID/task/TID does)."""
    if number == _own_ids(pid)[0]:
        return True
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    return any(_own_ids(int(tid))[1] == number for tid in threads)


def _tgid(pid):
    with open(f"/proc/{pid}/status") as handle:
        return next((line.split()[1] for line in handle if line.startswith("Tgid:")), None)


def _own_host_id(pid, number):
    """The same for `number` as the judge's PID namespace numbers processes."""
    try:
        found = _tgid(number)
        return found is not None and found == _tgid(pid)
    except OSError:
        return False


def _write_target(pid, path, dirfd=None):
    """What a file opened for writing is: "memory" (a process's /proc/PID/mem), "setting" (a
    file of the machine's settings under /proc: PROC_SETTING), "process" (another process's
    /proc/PID files: PROC_PROCESS), "unresolved"
    (a path the judge cannot follow as the caller would: a magic link, /proc/self reached
    through a link), or None (anything else, a new file included). By name first (/proc/self
    is the caller's own: its ids in its namespace), then by what the path resolves to inside
    the caller's root: a link in scratch, a descriptor's folder."""
    path = _resolve(pid, path, dirfd)
    if path is None:
        return None
    if re.match(r"^/proc/+(thread-)?self(/|$)", path):
        own, thread = _own_ids(pid)
        path = re.sub(r"^/proc/+thread-self(?=/|$)", f"/proc/{own}/task/{thread}", path)
        path = re.sub(r"^/proc/+self(?=/|$)", f"/proc/{own}", path)
    if PROC_MEMORY.match(os.path.normpath(path)):
        return "memory"
    if PROC_SETTING.match(os.path.normpath(path)) and path.startswith("/proc"):
        return "setting"
    named = PROC_PROCESS.match(os.path.normpath(path))
    if named and not _own_id(pid, named.group(1)):
        return "process"
    fd, error = _open_resolved(pid, path)
    if fd is None:
        if error != ENOENT:
            return "unresolved"
        parent, _ = _open_resolved(pid, os.path.dirname(path.rstrip("/")) or "/")
        if parent is None:
            return "unresolved"
        os.close(parent)
        return None  # a new file in a folder that exists
    try:
        found = _StatFs()
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.fstatfs(fd, ctypes.byref(found)) != 0:
            return "unresolved"
        if found.f_type == PROC_SUPER_MAGIC:
            target = os.readlink(f"/proc/self/fd/{fd}")
            if target.endswith("/mem"):
                return "memory"
            if PROC_SETTING.match(target):  # reached through a link
                return "setting"
            # reached through a link from outside /proc (by name, PROC_PROCESS above decided);
            # the number may be the caller's namespace's or the judge's: either may be its own
            named = PROC_PROCESS.match(target)
            if named and not path.startswith("/proc") and not (
                    _own_id(pid, named.group(1)) or _own_host_id(pid, named.group(1))):
                return "process"
        return None
    except OSError:
        return "unresolved"
    finally:
        os.close(fd)


def _inspect_target(pid, path):
    """(the file's real path, whether it lies on a writable mount), both as the caller's mount
    namespace sees them: opened through /proc/PID/root, so a link or a copy in the sandbox's own
    /tmp or scratch is judged by what it is (a shell copied to scratch/gcc is on a writable
    mount). (None, False) when there is no such file."""
    fd = _open_in_root(pid, path)
    if fd is None:
        return None, False
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
        try:
            writable = not (os.fstatvfs(fd).f_flag & os.ST_RDONLY)
        except OSError:
            writable = False
        return real, writable
    finally:
        os.close(fd)


def _unwrapped(name):
    """`gcc` for `gcc-real`, `ldconfig` for `ldconfig.real`; other names as they are."""
    for suffix in ("-real", ".real"):
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name


def _program_arguments(name, argv, shown, prefix=None):
    """None when a program Python may run is run with harmless arguments, else the reason.
    `prefix`: the install folder of a wrapper script, whose own -B options point inside it."""
    if name.startswith("ldconfig") and [a for a in argv[1:] if a != "-p"]:
        return f"ran ldconfig with arguments other than -p: {shown}"
    if COMPILER.match(name):
        for index, arg in enumerate(argv[1:], 1):
            if arg.startswith(("-wrapper", "-fplugin")):
                return f"ran the compiler with a wrapper, plugin or program prefix: {shown}"
            if arg.startswith("-B"):
                path = arg[2:] or (argv[index + 1] if index + 1 < len(argv) else "")
                if not (prefix and os.path.normpath(path).startswith(prefix)):
                    return f"ran the compiler with a wrapper, plugin or program prefix: {shown}"
    return None


def _cuda_tool(target, nvcc_exe):
    """A pass of nvcc's (cicc, ptxas, cudafe++, ...) from nvcc's own CUDA installation."""
    if not NVCC_TOOLS.match(os.path.basename(target)) or not nvcc_exe:
        return False
    root = os.path.dirname(os.path.dirname(os.path.realpath(nvcc_exe))) + os.sep
    return os.path.realpath(target).startswith(root)


def decide(caller_exe, caller_cmdline, parent_exe, target, argv, python_exe, triton_dir=None):
    """None when the exec is allowed, else the reason it is refused."""
    # A distribution's real binary behind a wrapper script (gcc-real, ldconfig.real) is that
    # program.
    caller = _unwrapped(os.path.basename(caller_exe))
    name = os.path.basename(target)
    parent = os.path.basename(parent_exe or "")
    shown = " ".join([target] + list(argv[1:6]))[:200]
    if os.path.realpath(caller_exe) == os.path.realpath(python_exe) or caller.startswith("python"):
        if triton_dir and target.startswith(triton_dir + os.sep):
            return None
        if PYTHON_MAY_RUN.match(name):
            return _program_arguments(name, argv, shown)
        return f"tried to run a program (exec below Python, seen by the judge): {shown}"
    if COMPILER.match(caller) or caller in ("collect2", "lto-wrapper"):
        if COMPILER_PASSES.match(name) or COMPILER.match(name) or \
                target.startswith(("/usr/lib/gcc", "/usr/libexec/gcc", "/usr/lib/llvm")):
            return None
        return f"the compiler ran another program: {shown}"
    if caller == "nvcc" or NVCC_TOOLS.match(caller):
        if _cuda_tool(target, caller_exe) or COMPILER.match(name) or \
                COMPILER_PASSES.match(name) or name in SHELLS:
            return None
        return f"nvcc ran another program: {shown}"
    if caller == "ninja":
        if name in SHELLS:
            return None
        return f"ninja ran another program: {shown}"
    if caller in SHELLS:
        # A program Python may run can be a wrapper script that execs the real binary beside it
        # (the GPU image's /sbin/ldconfig -> ldconfig.real, /opt/gcc/bin/gcc -> gcc-real -B...):
        # the script (the shell's first argument) stands for the program it wraps.
        script = caller_cmdline[1] if len(caller_cmdline) > 1 else ""
        wrapped = os.path.basename(script)
        if (PYTHON_MAY_RUN.match(wrapped) or NVCC_TOOLS.match(wrapped)) and \
                name != wrapped and _unwrapped(name) == wrapped:
            prefix = os.path.dirname(os.path.dirname(script)) + os.sep
            return _program_arguments(wrapped, argv, shown, prefix)
        if parent in ("ninja", "nvcc") and (COMPILER.match(name) or name in ("nvcc",)
                                             or name in SHELLS):
            return None
        # nvcc runs its passes through `sh -c` (seen on the H100: cudafe++, cicc, ptxas).
        if parent == "nvcc" and _cuda_tool(target, parent_exe):
            return None
        return f"a shell ran a program: {shown} (the shell's parent: {parent or '?'})"
    return f"{caller} ran a program: {shown}"


UNCHARGED = ""  # a reason that refuses the call and records nothing (Monitor._answer)


class Monitor:
    """The judge's supervisor thread on one candidate process's listener descriptor."""

    def __init__(self, fd, python_exe, triton_dir=None, read_only_root=True, tree_root=None,
                 restorable_handlers=None, compiles_for_gpu=True):
        self.fd = fd
        # Triton compiles for a GPU (and runs its tools) only there: its interpreter never does
        self.compiles_for_gpu = compiles_for_gpu
        self.tree_root = tree_root  # the candidate's process tree (bwrap or the process itself)
        self.read_only_root = read_only_root  # bwrap: only scratch, caches and /tmp writable
        self.python_exe = python_exe
        self.triton_dir = triton_dir
        # Libraries whose LLVM installs handlers on its own: (file name prefix, folder) pairs,
        # Triton's, and NVRTC's from the CUDA packages beside torch (handler_library)
        self.handler_libraries = [("libtriton", triton_dir)] if triton_dir else []
        self.handler_libraries += [("libnvrtc", folder) for folder in _cuda_library_dirs()]
        # {signal: (handler, restorer)} the candidate process had before its seal (faulthandler's):
        # putting one back is not installing code of the candidate's. The restorer (where the
        # kernel returns to after the handler) counts: with one of its own, a candidate ran its
        # code after a handler that was not (blind red team, session 14)
        self.restorable = {int(number): (action[0], action[2]) for number, action in
                           (restorable_handlers or {}).items()
                           if isinstance(action, list) and len(action) == 4}
        self.syscalls = exec_syscalls()
        self.refused = []      # reasons, in order, each once
        self.programs = []     # "caller -> target" for every exec seen (first 50)
        self.count = 0
        # Threads: allowed while only the harness runs, refused once candidate code may run
        # (`candidate_code()`). The libraries' own threads were all started before the seal
        # (warm_up.py): none is expected after it on either device.
        self.threads = {"harness": 0, "refused": 0}
        # The first refused thread, fork or code mapping, (monotonic time, "thread"|"fork"|
        # "code"): a library whose
        # pool waits for the thread that never started (torch.set_num_threads at import on a
        # 16-core GPU machine) hangs its process, a kernel that spins on its refused child's
        # flag runs on for minutes; either is charged already, and the judge stops waiting soon
        # after (candidate_proxy.REFUSAL_GRACE_S)
        self.start_refused = None
        self._thread_phase = "harness"
        self.thread_callers = []  # "phase: the calling thread's name" past the harness's own
        self.thread_stacks = []   # the first two callers' code addresses (diagnostics)
        self.signal_handlers = []  # Triton's refused after the import, not charged (named)
        self.refused_opens = []    # writes the judge could not follow, refused, not charged
        # the calls the filter stopped, by system call, and the judge's seconds answering them
        # (each one waits for this thread: a cost of confinement, in the result)
        self.notified = collections.Counter()
        self.answering_s = 0.0
        self.timed_call_tools = []  # Triton's tools run during a timed call (named, allowed)
        self.request = None       # the judge's request in progress (candidate_proxy.send)
        self._stop = threading.Event()
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._thread = threading.Thread(target=self._serve, daemon=True, name="exec-monitor")
        self._thread.start()

    def _ioctl(self, request, buffer):
        return self._libc.ioctl(self.fd, ctypes.c_ulong(request), buffer)

    def _serve(self):
        while not self._stop.is_set():
            try:
                ready, _, failed = select.select([self.fd], [], [self.fd], 0.1)
            except (OSError, ValueError):
                return
            if failed:
                return
            if not ready:
                continue
            buffer = ctypes.create_string_buffer(NOTIF.size)
            if self._ioctl(IOCTL_RECV, buffer) != 0:
                if ctypes.get_errno() in (4, ENOENT):  # EINTR, or the caller went away
                    continue
                return
            began = time.monotonic()
            notif = NOTIF.unpack(buffer.raw)
            self.notified[self.syscalls.get(notif[3], "execve")] += 1
            self._handle(notif)
            self.answering_s += time.monotonic() - began

    def candidate_code(self):
        """From now on candidate code may run in the process: every new thread is refused and
        named (a48: a native thread of its own rewrote the output buffers after the harness
        had copied them, unseen by any check in the process)."""
        self._thread_phase = "refused"

    def _answer(self, identifier, reason, error=EPERM):
        """Refuse the notified call with `error` and record why (UNCHARGED: record nothing),
        or (no reason) let it run."""
        if reason and reason not in self.refused:
            self.refused.append(reason)
        self._send(identifier, error if reason is not None else 0)

    def _send(self, identifier, error):
        """The kernel's answer to the stopped call: fail with `error`, or (0) run it."""
        response = RESPONSE.pack(identifier, 0, -error, 0) if error else \
            RESPONSE.pack(identifier, 0, 0, FLAG_CONTINUE)
        self._ioctl(IOCTL_SEND, ctypes.create_string_buffer(response, RESPONSE.size))

    def _candidate_running(self):
        """Candidate code may run (from `load` on)."""
        return self._thread_phase == "refused"

    def _candidate_python(self, pid):
        """The candidate process itself or a copy of it that has not run another program (a
        compiler, a shell: theirs to fork)."""
        exe, _, _ = _process(pid)
        return os.path.basename(exe or "").startswith("python")

    def _timed_call_program_reason(self, pid, path, target):
        """No program starts during the timed calls: the checked calls already built everything
        for these shapes, and a program's work there is outside the kernels being timed (a
        program started and ended inside one call is seen by no other rule on a GPU). Triton's
        own tools run by the candidate process (a new specialisation compiles at its first
        launch) are named in the result, not charged, on a GPU: Triton's interpreter (the CPU)
        never runs them."""
        if self.compiles_for_gpu and TRITON_TOOLS.match(os.path.basename(target)) and \
                self._candidate_python(pid):
            if len(self.timed_call_tools) < 10:
                self.timed_call_tools.append(os.path.basename(target))
            return None
        shown = target if path == target else f"{path} (= {target})"
        return f"ran a program during its timed calls (refused; seen by the judge): {shown}"

    def _advice_reason(self, pid, name, args):
        """madvise discarding pages of a library the operator probes watch (CODE_ADVICE), or any
        process_madvise, once candidate code may run; None lets the call run."""
        if not self._candidate_running():
            return None
        if name == "process_madvise":
            return ("advised the kernel on a process's memory (process_madvise; refused; seen "
                    "by the judge)")
        shown = _watched_library_in(pid, args[0], args[1])
        if shown is None:
            return None
        advice = {MADV_DONTNEED: "MADV_DONTNEED", MADV_DONTNEED_LOCKED: "MADV_DONTNEED_LOCKED",
                  MADV_COLLAPSE: "MADV_COLLAPSE"}.get(args[2], str(args[2]))
        return (f"discarded its copy of PyTorch's or a vendor library's code pages "
                f"({os.path.basename(shown)}: madvise {advice}; refused; seen by the judge): "
                f"the judge's operator probes are breakpoints there")

    def _personality_reason(self, args):
        """personality() with READ_IMPLIES_EXEC once candidate code may run (every other
        execution domain is allowed: nothing the harness checks depends on it)."""
        if not self._candidate_running() or not args[0] & READ_IMPLIES_EXEC:
            return None
        return (f"asked the kernel to make readable memory executable (personality "
                f"{args[0] & 0xFFFFFFFF:#x} with READ_IMPLIES_EXEC; refused; seen by the judge): "
                f"a way to rewrite PyTorch's code without an executable mprotect")

    def _target_reason(self, pid, name, args):
        """A scheduling or limits call aimed at another process, once candidate code may run
        (FOREIGN_TARGETS); the caller's own process and threads are its own business."""
        if not self._candidate_running():
            return None
        argument, which = FOREIGN_TARGETS[name]
        target = ctypes.c_int(args[argument]).value
        one_process = which is None or args[which[0]] == which[1]
        if one_process and (target == 0 or _own_id(pid, str(target))):
            return None
        whom = f"process {target}" if one_process else "a process group or user"
        return (f"changed another process's scheduling or limits ({name} on {whom}; refused; "
                f"seen by the judge): the sandbox's first process is the host's bubblewrap")

    def _lock_reason(self, pid, name, args):
        """A lock on a file of a read-only mount (a host file) once candidate code may run; the
        sandbox's own writable files may be locked."""
        if not self._candidate_running():
            return None
        descriptor = ctypes.c_int(args[0]).value
        try:
            handle = os.open(f"/proc/{pid}/fd/{descriptor}", os.O_PATH)
        except OSError:
            return None  # no such descriptor: the call fails by itself
        try:
            if not os.fstatvfs(handle).f_flag & os.ST_RDONLY:
                return None
            shown = os.readlink(f"/proc/{pid}/fd/{descriptor}")
        except OSError:
            shown = f"descriptor {descriptor}"
        finally:
            os.close(handle)
        return (f"locked a file of the host ({name} on {shown}; refused; seen by the judge): a "
                f"file outside its sandbox's writable folders, which host processes would wait on")

    def _fork_reason(self, pid):
        # A forked copy computes beside the harness into memory it shares (red team, session 13:
        # a child wrote the answer into a MAP_SHARED page while the kernel waited, then exited).
        if not self._candidate_running() or not self._candidate_python(pid):
            return None
        return ("forked its process once its code was loaded (refused; seen by the judge): a "
                "copy of the candidate process runs beside the harness")

    def _code_mapping_reason(self, pid, name, args):
        """A program the candidate ran (a compiler, the linker, a shell) mapping code from a file
        the candidate could have written is refused (red team, session 22: `ld -plugin
        scratch/evil.so`, hidden in an @file, computed the softmax beside the candidate's kernel
        through a shared memfd; LD_PRELOAD, LD_LIBRARY_PATH, GCONV_PATH and -fplugin reach the
        same place, and nvcc's own LD_LIBRARY_PATH ends with the working directory). The
        candidate process itself maps its compiled kernels from scratch: its own code, watched
        by the rest of the harness."""
        if not self._candidate_running():
            return None
        if self._candidate_python(pid):
            return _torch_code_reason(pid, name, args)
        if name == "mmap":
            fd = ctypes.c_int(args[4] & 0xFFFFFFFF).value
            if fd < 0:
                return None  # anonymous memory
            try:
                shown = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                return None  # not a descriptor: the call fails on its own
            writable = self._writable_file(pid, f"/proc/{pid}/fd/{fd}", shown, direct=True)
        else:
            shown = _mapped_file(pid, args[0])
            if shown is None:
                return None
            writable = self._writable_file(pid, shown, shown)
        if not writable:
            return None
        exe = os.path.basename(_process(pid)[0] or "?")
        return (f"a program it ran ({exe}) mapped code from a file the candidate can write: "
                f"{shown} (refused; seen by the judge): code of its own inside an allowed "
                f"program")

    def _writable_file(self, pid, path, shown, direct=False):
        """Whether the mapped file lies where the candidate can write (a writable mount under
        bubblewrap's read-only root; a temporary folder or the caller's working directory
        without it). A file with no path left (a memfd, a deleted file) counts as writable."""
        if shown.startswith(("/memfd:", "memfd:")) or shown.endswith(" (deleted)"):
            return True
        if not self.read_only_root:
            try:
                cwd = os.readlink(f"/proc/{pid}/cwd").rstrip("/") + "/"
            except OSError:
                cwd = None
            return shown.startswith(WRITABLE_PLACES) or bool(cwd and cwd != "/" and
                                                            shown.startswith(cwd))
        try:
            fd = os.open(path, os.O_PATH) if direct else _open_in_root(pid, path)
        except OSError:
            fd = None
        if fd is None:
            return True
        try:
            return not (os.fstatvfs(fd).f_flag & os.ST_RDONLY)
        except OSError:
            return True
        finally:
            os.close(fd)

    def _signal_action_reason(self, pid, args):
        # A handler runs between any two of the harness's steps (red team, session 13: a C
        # SIGALRM handler rewrote the output buffer after the harness's copy). Restoring the
        # default or ignoring (a vfork child before its exec) is allowed.
        if not self._candidate_running() or not self._candidate_python(pid):
            return None
        raw = _read_memory(pid, args[1], 32)
        action = struct.unpack("<4Q", raw) if len(raw) == 32 else None
        handler = action[0] if action else None
        if handler in (0, 1) or (action is not None and
                                 self.restorable.get(args[0]) == (handler, action[2])):
            return None  # SIG_DFL, SIG_IGN, or the handler it had before its seal
        # Triton's compiler (LLVM's crash recovery) installs handlers for signals 4-8 and 11 in
        # every compile and puts the old ones back after it (H100, session 14); LLVM's signal
        # handling also installs its own for 1, 2, 3, 10, 12, 15, 24, 25 and 31 in the first
        # compile and sets 2, 15 and 25 again later, with no compile and no candidate code
        # in between (H200, session 20, bench/signal_handlers_probe.py): a59 was charged for
        # those. Refused, but not charged, for LLVM's signals (LLVM_SIGNALS; a libtriton
        # address for SIGALRM is charged, a51): LLVM ignores the error and goes on,
        # and the old crash handlers it puts back are the ones it saved in the warm-up's
        # compile (warm_up.py). Refusing is what protects: allowing "an address in libtriton"
        # let a candidate run its own code as a handler (a `ret` with its own sa_restorer, a
        # PLT stub through a GOT entry it rewrote; blind red team, session 14), at faults it
        # arranged in the harness's own code.
        # NVRTC (PyTorch's runtime compiles: jiterator operators) does the same on its first
        # compile in a process, and puts the old ones back: a59's decomposition on an H200 was
        # charged for signals 2 and 15 with the handler in libnvrtc.so.13 (session 20).
        library = self.handler_library(pid, handler) if handler is not None and \
            args[0] in LLVM_SIGNALS else None
        if library:
            if len(self.signal_handlers) < 8:  # named in the result
                libraries = ", ".join(_stack_libraries(_stack_code(pid))) or "?"
                self.signal_handlers.append(
                    f"signal {args[0]} ({hex(handler)}, {library}; refused, not charged) "
                    f"by {_thread_name(pid)} in {self.request} (stack: {libraries})")
            return UNCHARGED
        # Where the handler and the call came from, for the reader (a stack is the caller's to
        # forge, so this names, it does not excuse): a library acting on its own shows here.
        where = _code_mapping(pid, handler) if handler is not None else None
        libraries = ", ".join(_stack_libraries(_stack_code(pid))) or "?"
        return (f"installed a signal handler once its code was loaded (signal {args[0]}; "
                f"refused; seen by the judge): a handler runs between the harness's steps "
                f"(handler in {os.path.basename(where) if where else 'anonymous memory'}; "
                f"stack: {libraries})")

    def handler_library(self, pid, handler):
        """The name of the library of `handler` when it is one whose LLVM sets handlers on its
        own (handler_libraries), in an unmodified read-only mapping of its file; else None."""
        found = _code_mapping(pid, handler)
        if not found:
            return None
        real = os.path.realpath(found)
        for prefix, folder in self.handler_libraries:
            if os.path.basename(found).startswith(prefix) and real.startswith(folder + os.sep):
                return "Triton's library" if prefix == "libtriton" else os.path.basename(found)
        return None

    def _open_reason(self, pid, name, args):
        """None unless the file opened for writing is a process's memory (charged) or a path the
        judge cannot follow (refused, not charged, and noted)."""
        if name == "openat":
            path, dirfd = _read_string(pid, args[1]), ctypes.c_int(args[0]).value
        else:
            path, dirfd = _read_string(pid, args[0]), None
        if not path or not self._candidate_running():
            return None
        what = _write_target(pid, path, dirfd)
        if what is None:
            return None
        exe = os.path.basename(_process(pid)[0] or "?")
        if what == "unresolved":
            if len(self.refused_opens) < 8:
                self.refused_opens.append(f"{exe}: {path} (a link the judge cannot follow; "
                                          f"refused, not charged)")
            return UNCHARGED
        if what == "setting":
            return (f"opened a setting of the machine for writing ({exe}: {path}; refused; seen "
                    f"by the judge): a candidate changes nothing outside its sandbox")
        if what == "process":
            return (f"opened another process's files for writing ({exe}: {path}; refused; seen "
                    f"by the judge): the sandbox's first process is the host's bubblewrap")
        return (f"opened a process's memory for writing ({exe}: {path}; refused; seen by the "
                f"judge): code or data of its own inside a program it runs")

    def _handle(self, notif):
        identifier, pid, _, number, _, _, *args = notif
        name = self.syscalls.get(number, "execve")
        if name in WRITE_OPENS:
            reason = self._open_reason(pid, name, args)
            if reason and self.start_refused is None:
                self.start_refused = (time.monotonic(), "memory")
            self._answer(identifier, reason, EACCES)
            return
        if name == "rt_sigaction":
            self._answer(identifier, self._signal_action_reason(pid, args))
            return
        if name in FOREIGN_TARGETS:
            self._answer(identifier, self._target_reason(pid, name, args))
            return
        if name == "personality":
            reason = self._personality_reason(args)
            if reason and self.start_refused is None:
                self.start_refused = (time.monotonic(), "code")
            self._answer(identifier, reason)
            return
        if name in CODE_ADVICE:
            reason = self._advice_reason(pid, name, args)
            if reason and self.start_refused is None:
                self.start_refused = (time.monotonic(), "code")
            self._answer(identifier, reason)
            return
        if name in CODE_MAPPINGS:
            reason = self._code_mapping_reason(pid, name, args)
            if reason and self.start_refused is None:
                self.start_refused = (time.monotonic(), "code")
            self._answer(identifier, reason)
            return
        if name == "fork" or (name == "clone" and not args[0] & CLONE_VM):
            reason = self._fork_reason(pid)
            if reason and self.start_refused is None:
                self.start_refused = (time.monotonic(), "fork")
            self._answer(identifier, reason)
            return
        if name == "clone" and args[0] & CLONE_VFORK:  # subprocess, posix_spawn: allowed
            signal_ = args[0] & 0xFF
            self._answer(identifier, None if signal_ in (0, SIGCHLD) or
                         not self._candidate_running() else
                         f"started a process whose end signals it with signal {signal_}, not "
                         f"SIGCHLD (refused; seen by the judge): a signal later, between the "
                         f"harness's steps")
            return
        if name == "flock" or (name == "fcntl" and args[1] in LOCK_COMMANDS):
            self._answer(identifier, self._lock_reason(pid, name, args))
            return
        if name in TIMERS or name == "fcntl":
            self._answer(identifier, None if not self._candidate_running() else
                         f"asked for a signal later ({name if name in TIMERS else 'F_SETSIG'}; "
                         f"refused; seen by the judge): it would arrive between the harness's "
                         f"steps")
            return
        if name == "clone":
            phase = self._thread_phase
            self.threads[phase] += 1
            if phase != "harness" and len(self.thread_callers) < 8:
                found = _stack_code(pid)
                libraries = ", ".join(_stack_libraries(found)) or "?"
                self.thread_callers.append(f"{phase}: {_thread_name(pid)} in {self.request} "
                                           f"(stack: {libraries})")
                if len(self.thread_stacks) < 2:
                    self.thread_stacks.append([f"{path}+{hex(at)}" for path, at in found[:16]])
            reason = None if phase != "refused" else (
                "started a thread once its code was loaded (refused; seen by the judge): a "
                "thread runs beside the harness's checks, timing and output copies")
            if reason and self.start_refused is None:
                self.start_refused = (time.monotonic(), "thread")
            self._answer(identifier, reason, EAGAIN)
            return
        if name.startswith("mknod"):  # FIFOs and device nodes: no kernel build makes one
            path = _read_string(pid, args[1] if name == "mknodat" else args[0])
            self._answer(identifier, f"tried to make a FIFO or device node ({name}): {path}")
            return
        if name in SIGNALS:
            self._answer(identifier, self._signal_reason(pid, name, args))
            return
        if name == "execveat":
            path = _resolve(pid, _read_string(pid, args[1]), ctypes.c_int(args[0]).value)
            argv = _read_argv(pid, args[2])
        else:
            path = _resolve(pid, _read_string(pid, args[0]))
            argv = _read_argv(pid, args[1])
        caller_exe, parent, cmdline = _process(pid)
        parent_exe = None
        for _ in range(8):  # the first ancestor that is not a shell (a shell forks for `a; b`)
            if not parent:
                break
            parent_exe, grandparent, _ = _process(parent)
            if os.path.basename(parent_exe) not in SHELLS:
                break
            parent = grandparent
        target, writable = _inspect_target(pid, path) if path else (None, False)
        valid = self._ioctl(IOCTL_ID_VALID, ctypes.byref(ctypes.c_uint64(identifier))) == 0
        if target is None:  # no such file (a PATH search): fails here, as it would anyway
            self._send(identifier, ENOENT)
            return
        if not valid:
            reason = None
        elif writable and self.read_only_root:
            reason = f"tried to run a program from a writable directory: {path}"
        else:
            reason = decide(caller_exe, cmdline, parent_exe, target, argv, self.python_exe,
                            self.triton_dir)
            if reason and path != target:  # the name it asked for, and what that is
                reason = reason.replace(target, f"{path} (= {target})", 1)
            if reason is None and self.request == "time" and self._candidate_running():
                reason = self._timed_call_program_reason(pid, path, target)
        self.count += 1
        if len(self.programs) < 50:
            self.programs.append(f"{os.path.basename(caller_exe)} -> {target}"
                                 + ("" if reason is None else " (refused)"))
        self._answer(identifier, reason)

    def _tree(self):
        """{pid in the candidate's own namespace: pid here} for the candidate's processes
        (bubblewrap's aside: its init is no target)."""
        from kforge_worker.confinement import descendants
        members = {}
        for member in descendants(self.tree_root) if self.tree_root else []:
            try:
                with open(f"/proc/{member}/status") as handle:
                    fields = dict(line.split(":", 1) for line in handle if ":" in line)
            except OSError:
                continue
            # the carried bubblewrap runs as `bwrap.real` (scripts/pack_for_device.sh): on the
            # H100 its init counted as the candidate's own, and f23's signals to it went unnamed
            if fields.get("Name", "").strip() in ("bwrap", "bwrap.real"):
                continue
            inner = fields.get("NSpid", str(member)).split()
            members[int(inner[-1])] = member
        return members

    def _signal_reason(self, pid, name, args):
        """None when the signal stays inside the candidate's own process tree."""
        signal_number = ctypes.c_int(args[1] if name != "tgkill" and
                                     name != "rt_tgsigqueueinfo" else args[2]).value
        if name == "pidfd_send_signal":
            target = None
            try:
                with open(f"/proc/{pid}/fdinfo/{ctypes.c_int(args[0]).value}") as handle:
                    for line in handle:
                        if line.startswith("Pid:"):
                            target = int(line.split()[1])
            except (OSError, ValueError):
                return None  # not a pidfd: the call fails by itself
            if target in self._tree().values():
                return None
            return (f"tried to signal another process (pidfd_send_signal, signal "
                    f"{signal_number}, seen by the judge)")
        target = ctypes.c_int(args[0]).value
        if target == 0 and name == "kill":
            return None  # its own process group
        if target > 0 and target in self._tree():
            return None
        what = "every process it can see" if target == -1 else f"pid {target}"
        return (f"tried to signal another process ({name} {what}, signal {signal_number}, "
                f"seen by the judge)")

    def close(self):
        self._stop.set()
        self._thread.join(timeout=1)
        try:
            os.close(self.fd)
        except OSError:
            pass
