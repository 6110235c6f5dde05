"""What the judge sees from outside the candidate process (issue 18): the exec/signal/mknod
monitor (exec_monitor.py: a seccomp user-notification listener serviced in the judge), the
channel's per-request nonce (a forged reply is rejected), and the audit hook's attribution of
disguised code (fake file names, helper modules, library frame proxies, the candidate's
threads). Each live check runs in a child process: a seccomp filter and an audit hook cannot be
removed from the process that installs them."""

import array
import ctypes
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time

import pytest

from kforge_worker import exec_monitor

WORKER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(WORKER_DIR)
PY = sys.executable
GCC = "/usr/bin/x86_64-linux-gnu-gcc-12"
CUDA = "/usr/local/cuda-13.0"  # not present on the CPU machine: realpath leaves it as it is


@pytest.mark.parametrize("caller, parent, target, argv, allowed", [
    (PY, None, "/usr/bin/x86_64-linux-gnu-gcc-12", ["gcc", "-c", "x.c"], True),
    (PY, None, "/usr/bin/ninja", ["ninja", "-v"], True),
    (PY, None, "/usr/sbin/ldconfig", ["ldconfig", "-p"], True),
    (PY, None, "/usr/sbin/ldconfig", ["ldconfig", "-C", "/x"], False),
    (PY, None, "/usr/bin/dash", ["sh", "-c", "touch x"], False),
    (PY, None, "/usr/bin/touch", ["touch", "x"], False),
    (PY, None, GCC, ["gcc", "-wrapper", "/bin/sh,-c,id", "x.c"], False),
    (PY, None, GCC, ["gcc", "-B/tmp/evil", "x.c"], False),
    (GCC, PY, "/usr/lib/gcc/x86_64-linux-gnu/12/cc1", ["cc1"], True),
    (GCC, PY, "/usr/bin/x86_64-linux-gnu-as", ["as"], True),
    (GCC, PY, "/usr/bin/dash", ["sh", "-c", "id"], False),
    ("/usr/bin/ninja", PY, "/usr/bin/dash", ["/bin/sh", "-c", "c++ x.cpp"], True),
    ("/usr/bin/ninja", PY, "/usr/bin/touch", ["touch"], False),
    ("/usr/bin/dash", "/usr/bin/ninja", "/usr/bin/x86_64-linux-gnu-g++-12", ["c++"], True),
    ("/usr/bin/dash", "/usr/bin/ninja", "/usr/bin/id", ["id"], False),
    ("/usr/bin/dash", PY, GCC, ["gcc"], False),
])
def test_exec_policy(caller, parent, target, argv, allowed):
    reason = exec_monitor.decide(caller, [], parent, target, argv, PY)
    assert (reason is None) == allowed, reason


# The H100 image's wrapper scripts (seen there: Triton's `ldconfig -p` and its launcher build):
# the shell runs the script, which execs the real program beside it.
@pytest.mark.parametrize("script, target, argv, allowed", [
    ("/sbin/ldconfig", "/usr/sbin/ldconfig.real", ["/sbin/ldconfig.real", "-p"], True),
    ("/sbin/ldconfig", "/usr/sbin/ldconfig.real", ["/sbin/ldconfig.real", "-C", "/x"], False),
    ("/opt/gcc/bin/gcc", "/opt/gcc/bin/gcc-real",
     ["gcc-real", "-B/opt/gcc/bin/", "-B/opt/gcc/lib/gcc/x86_64-linux-gnu/13/", "-c", "x.c"], True),
    ("/opt/gcc/bin/gcc", "/opt/gcc/bin/gcc-real",
     ["gcc-real", "-B/opt/gcc/bin/", "-B/tmp/evil/", "x.c"], False),
    ("/opt/gcc/bin/gcc", "/opt/gcc/bin/gcc-real", ["gcc-real", "-wrapper", "/bin/sh,-c,id"], False),
    ("/opt/gcc/bin/gcc", "/usr/bin/touch", ["touch", "x"], False),
    ("/tmp/scratch/evil.sh", "/opt/gcc/bin/gcc-real", ["gcc-real"], False),
])
def test_exec_policy_wrapper_scripts(script, target, argv, allowed):
    reason = exec_monitor.decide("/usr/bin/dash", ["/bin/sh", script] + argv[1:], PY, target,
                                 argv, PY)
    assert (reason is None) == allowed, reason


@pytest.mark.parametrize("caller, cmdline, parent, target, argv, allowed", [
    # the real compiler behind the wrapper runs its own passes
    ("/opt/gcc/bin/gcc-real", [], PY, "/opt/gcc/libexec/gcc/x86_64-linux-gnu/13/cc1",
     ["cc1"], True),
    ("/opt/gcc/bin/gcc-real", [], PY, "/usr/bin/x86_64-linux-gnu-as", ["as"], True),
    ("/opt/gcc/bin/gcc-real", [], PY, "/usr/bin/touch", ["touch"], False),
    # nvcc (load_inline) runs the gcc wrapper, whose shell runs gcc-real
    ("/usr/local/cuda/bin/nvcc", [], PY, "/opt/gcc/bin/gcc", ["gcc", "-E", "x.cu"], True),
    ("/usr/bin/dash", ["/bin/sh", "/opt/gcc/bin/gcc", "-E"], "/usr/local/cuda/bin/nvcc",
     "/opt/gcc/bin/gcc-real", ["gcc-real", "-B/opt/gcc/bin/", "-E"], True),
    ("/usr/bin/dash", ["/bin/sh", "/opt/gcc/bin/gcc", "-E"], "/usr/local/cuda/bin/nvcc",
     "/usr/bin/id", ["id"], False),
    # nvcc runs its own passes through `sh -c` (the H100 image: cudafe++, cicc, ptxas), from its
    # own installation only
    ("/usr/bin/dash", ["sh", "-c", "cudafe++ --c++17"], CUDA + "/bin/nvcc",
     CUDA + "/bin/cudafe++", ["cudafe++", "--c++17"], True),
    ("/usr/bin/dash", ["sh", "-c", "cicc"], CUDA + "/bin/nvcc",
     CUDA + "/nvvm/bin/cicc", ["cicc"], True),
    ("/usr/bin/dash", ["sh", "-c", "ptxas"], CUDA + "/bin/nvcc", CUDA + "/bin/ptxas", ["ptxas"],
     True),
    ("/usr/bin/dash", ["sh", "-c", "cicc"], CUDA + "/bin/nvcc", "/tmp/scratch/cicc", ["cicc"],
     False),
    (CUDA + "/bin/nvcc", [], PY, "/tmp/scratch/ptxas", ["ptxas"], False),
    (CUDA + "/bin/nvcc", [], PY, CUDA + "/bin/ptxas", ["ptxas"], True),
])
def test_exec_policy_real_binaries_behind_wrappers(caller, cmdline, parent, target, argv,
                                                   allowed):
    reason = exec_monitor.decide(caller, cmdline, parent, target, argv, PY)
    assert (reason is None) == allowed, reason



CHILD = r"""
import array, ctypes, json, os, socket, subprocess, sys, time
from kforge_worker import exec_monitor
import triton._C.libtriton as libtriton  # (its import starts threads: before candidate code)
ctypes.CDLL(None).prctl(38, 1, 0, 0, 0)  # no_new_privs
sock = socket.socket(fileno=int(sys.argv[1]))
import faulthandler
faulthandler.enable()  # as candidate_host.main: its handlers may be put back later
fatal = exec_monitor.current_handlers(exec_monitor.CRASH_SIGNALS)
fd, why = exec_monitor.install()
sock.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))])
sock.sendall(json.dumps(fatal).encode() + b"\n")
os.close(fd)
sock.recv(1)  # the judge's monitor is running
results = {}
def attempt(name, action):
    try:
        action()
        results[name] = "allowed"
    except PermissionError:
        results[name] = "refused"
    except Exception as error:
        results[name] = type(error).__name__
attempt("true", lambda: subprocess.run(["/bin/true"], check=True))
attempt("gcc", lambda: subprocess.run(["gcc", "--version"], check=True, capture_output=True))
attempt("fifo", lambda: os.mkfifo(os.path.join(sys.argv[2], "fifo")))
attempt("kill_parent", lambda: os.kill(os.getppid(), 0))
attempt("kill_self", lambda: os.kill(os.getpid(), 0))
libc = ctypes.CDLL(None, use_errno=True)
results["libc_system"] = libc.system(b"true")
import threading
attempt("thread_before", lambda: threading.Thread(target=lambda: None).start())
# a library of the candidate's, built before: a constructor that leaves a mark where it runs
marked = os.path.join(sys.argv[2], "constructor_ran")
with open(os.path.join(sys.argv[2], "own.c"), "w") as source:
    source.write('#include <stdio.h>\n__attribute__((constructor)) static void mark(void) '
                 '{ FILE *f = fopen("%s", "a"); if (f) { fputs("x", f); fclose(f); } }\n' % marked)
own_library = os.path.join(sys.argv[2], "own.so")
subprocess.run(["gcc", "-shared", "-fPIC", "-o", own_library, source.name], check=True)
sock.send(b"t")
sock.recv(1)  # the judge: candidate code from now on
attempt("thread_after", lambda: threading.Thread(target=lambda: None).start())
pthread = ctypes.c_ulong()
callback = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)(lambda _: None)
results["pthread_after"] = libc.pthread_create(ctypes.byref(pthread), None, callback, None)
attempt("spawn_after", lambda: subprocess.run(["gcc", "--version"], check=True,
                                              capture_output=True))  # a vfork: allowed
# its library preloaded into a program it runs: the program runs, the library's code does not
attempt("preload_after", lambda: subprocess.run(["gcc", "--version"], check=True,
                                                capture_output=True,
                                                env={**os.environ, "LD_PRELOAD": own_library}))
results["preload_code_ran"] = os.path.exists(marked)
attempt("own_library_after", lambda: ctypes.CDLL(own_library))  # in its own process: allowed
results["own_code_ran"] = os.path.exists(marked)
# another process's memory opened for writing (a compiler it runs: its child, dumpable), by its
# name and through a link of its own: refused; reading it is not
sleeper = subprocess.Popen(["gcc", "-x", "c", "-E", "-"], stdin=subprocess.PIPE,
                           stdout=subprocess.DEVNULL)
os.symlink(f"/proc/{sleeper.pid}/mem", os.path.join(sys.argv[2], "mem_link"))
results["child_memory_write"] = libc.open(f"/proc/{sleeper.pid}/mem".encode(), 2) == -1 and \
    ctypes.get_errno()
results["child_memory_link_write"] = libc.open(
    os.path.join(sys.argv[2], "mem_link").encode(), 1) == -1 and ctypes.get_errno()
handle = libc.open(f"/proc/{sleeper.pid}/mem".encode(), 0o10000000)  # O_PATH, then reopened
results["child_memory_magic_link"] = libc.open(f"/proc/self/fd/{handle}".encode(), 2) == -1 \
    and ctypes.get_errno()
read_only = libc.open(f"/proc/{sleeper.pid}/mem".encode(), 0)
results["child_memory_read"] = read_only >= 0
sleeper.stdin.close()
sleeper.wait()
attempt("scratch_write", lambda: open(os.path.join(sys.argv[2], "out.txt"), "w").close())
attempt("os_fork_after", os.fork)
results["libc_fork_after"] = libc.fork() == -1 and ctypes.get_errno()
stack = ctypes.create_string_buffer(1 << 16)
getpid = ctypes.cast(libc.getpid, ctypes.c_void_p)  # native: the child runs no Python
results["clone_vm_after"] = libc.clone(getpid, ctypes.c_void_p(ctypes.addressof(stack) + (1 << 16)),
                                       0x100 | 17, None) == -1 and ctypes.get_errno()
import signal
attempt("handler_after", lambda: signal.signal(signal.SIGUSR1, lambda *_: None))
attempt("default_after", lambda: signal.signal(signal.SIGUSR2, signal.SIG_DFL))
attempt("ignore_after", lambda: signal.signal(signal.SIGUSR2, signal.SIG_IGN))
# A handler in Triton's library (what LLVM's crash recovery installs in every compile) is
# allowed; the same bytes in a private copy that was written to are the writer's code.
def raw_handler(address, number=11):  # rt_sigaction with a handler that never runs
    action = (ctypes.c_uint64 * 4)(address, 0, 0, 0)
    if libc.syscall(13, number, action, None, 8) != 0:
        raise PermissionError(ctypes.get_errno(), "rt_sigaction")
    before = fatal.get(str(number), [0, 0, 0, 0])  # faulthandler's back, whole (allowed)
    libc.syscall(13, number, (ctypes.c_uint64 * 4)(*before), None, 8)
library = ctypes.CDLL(libtriton.__file__)
in_triton = ctypes.cast(library.PyInit_libtriton, ctypes.c_void_p).value
attempt("triton_handler_after", lambda: raw_handler(in_triton))  # refused, not charged
# faulthandler's handler with a restorer of its own: not the whole action it had
own_restorer = list(fatal["11"])
own_restorer[2] = in_triton
results["restorer_after"] = libc.syscall(13, 11, (ctypes.c_uint64 * 4)(*own_restorer), None, 8)
attempt("triton_handler_usr2_after", lambda: raw_handler(in_triton, 12))  # LLVM's too: the same
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                      ctypes.c_long]
with open(libtriton.__file__, "rb") as handle:
    copy = libc.mmap(None, 8192, 3, 2, handle.fileno(), 0)  # PROT_READ|WRITE, MAP_PRIVATE
ctypes.memset(copy, 0xC3, 1)  # copy-on-write: the page is no longer the file's
libc.mprotect(ctypes.c_void_p(copy), 8192, 5)  # PROT_READ|EXEC
attempt("triton_copy_handler_after", lambda: raw_handler(copy))
# a signal later, between the harness's steps: a POSIX timer, F_SETSIG, a child's end signal
timer = ctypes.c_void_p()
results["timer_after"] = libc.timer_create(1, None, ctypes.byref(timer)) == -1 and \
    ctypes.get_errno()
import fcntl
attempt("setsig_after", lambda: fcntl.fcntl(sock.fileno(), 10, 11))
results["vfork_signal_after"] = libc.clone(
    getpid, ctypes.c_void_p(ctypes.addressof(stack) + (1 << 16)), 0x100 | 0x4000 | 28,
    None) == -1 and ctypes.get_errno()
attempt("faulthandler_off_after", faulthandler.disable)  # the defaults back
attempt("faulthandler_back_after", faulthandler.enable)  # the handlers it had before its seal
print(json.dumps(results))
"""


def test_the_judge_sees_execs_signals_and_fifos_below_python(tmp_path):
    if not exec_monitor.exec_syscalls():
        pytest.skip("libseccomp is not installed")
    ours, theirs = socket.socketpair()
    child = subprocess.Popen([PY, "-c", CHILD, str(theirs.fileno()), str(tmp_path)],
                             pass_fds=(theirs.fileno(),), stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": WORKER_DIR})
    theirs.close()
    fds = array.array("i")
    _, ancillary, _, _ = ours.recvmsg(1, socket.CMSG_SPACE(fds.itemsize))
    fds.frombytes(ancillary[0][2])
    fatal = json.loads(ours.makefile("rb").readline())
    assert set(fatal) == {"4", "6", "7", "8", "11"}, fatal
    import triton
    monitor = exec_monitor.Monitor(fds[0], PY, os.path.dirname(os.path.realpath(triton.__file__)),
                                   read_only_root=False, tree_root=child.pid,
                                   restorable_handlers=fatal)
    ours.send(b"g")
    assert ours.recv(1) == b"t"
    assert monitor.threads["harness"] >= 1  # counted, allowed
    monitor.candidate_code()
    ours.send(b"c")
    out, _ = child.communicate(timeout=120)
    monitor.close()
    results = json.loads(out.strip().splitlines()[-1])
    assert results["true"] == "refused"
    assert results["gcc"] in ("allowed", "FileNotFoundError")
    assert results["fifo"] == "refused" and not (tmp_path / "fifo").exists()
    assert results["kill_parent"] == "refused"
    assert results["kill_self"] == "allowed"
    assert results["libc_system"] != 0  # /bin/sh refused: system() fails
    assert results["thread_before"] == "allowed"
    assert results["thread_after"] == "RuntimeError"  # "can't start new thread"
    assert results["pthread_after"] == 11  # EAGAIN: a native thread is refused too
    # a fork or a thread in all but name (CLONE_VM) is refused; a vfork that execs is not
    assert results["spawn_after"] in ("allowed", "FileNotFoundError")
    # code of its own mapped by a program it runs is refused (the program runs without it); in
    # the candidate process itself it is allowed
    assert results["preload_after"] == "allowed" and not results["preload_code_ran"]
    assert results["own_library_after"] == "allowed" and results["own_code_ran"]
    assert results["child_memory_write"] == results["child_memory_link_write"] == 13  # EACCES
    assert results["child_memory_read"] and results["scratch_write"] == "allowed"
    # through a descriptor's magic link the judge cannot follow it: refused, noted, not charged
    assert results["child_memory_magic_link"] == 13
    assert any("/proc/self/fd/" in seen for seen in monitor.refused_opens), monitor.refused_opens
    assert results["os_fork_after"] == "refused"
    assert results["libc_fork_after"] == 1  # EPERM
    assert results["clone_vm_after"] == 11  # EAGAIN, as a thread
    assert monitor.threads["refused"] == 3
    # a signal handler is refused once candidate code runs; restoring the default, or the whole
    # action the process had before its seal, is not. One in Triton's own library (LLVM's, in
    # every compile; for any signal) is refused without a charge, and named
    assert results["handler_after"] == "refused"
    assert results["default_after"] == results["ignore_after"] == "allowed"
    assert results["faulthandler_off_after"] == results["faulthandler_back_after"] == "allowed"
    assert results["restorer_after"] == -1  # faulthandler's handler, a restorer of its own
    assert results["triton_handler_after"] == "refused"
    assert results["triton_handler_usr2_after"] == "refused"
    assert results["triton_copy_handler_after"] == "refused"
    assert results["timer_after"] == 1 and results["setsig_after"] == "refused"
    assert results["vfork_signal_after"] == 1  # EPERM
    assert [seen.split(" (")[0] for seen in monitor.signal_handlers
            if "Triton's library; refused, not charged" in seen] == ["signal 11", "signal 12"], \
        monitor.signal_handlers
    named = "\n".join(monitor.refused)
    for text in ("/bin/true", "FIFO", "signal another process", "/bin/sh",
                 "started a thread once its code was loaded", "forked its process",
                 "installed a signal handler once its code was loaded (signal 10",
                 "installed a signal handler once its code was loaded (signal 11",
                 "asked for a signal later (timer_create", "asked for a signal later (F_SETSIG",
                 "mapped code from a file the candidate can write: " + str(tmp_path / "own.so"),
                 "whose end signals it with signal 28",
                 "opened a process's memory for writing (python"):
        assert text in named, (text, named)


def test_triton_tools_in_timed_calls_are_allowed_only_where_triton_compiles():
    # A new specialisation at a timed call's launch runs ptxas on a GPU; Triton's interpreter
    # (the CPU) never does, so there a ptxas in a timed call is the candidate's own program.
    def reason(compiles_for_gpu, program):
        monitor = object.__new__(exec_monitor.Monitor)
        monitor.compiles_for_gpu, monitor.timed_call_tools = compiles_for_gpu, []
        # this test's own process is the "candidate process" (a python)
        return monitor._timed_call_program_reason(os.getpid(), program, program), monitor
    allowed, monitor = reason(True, "/usr/local/cuda/bin/ptxas")
    assert allowed is None and monitor.timed_call_tools == ["ptxas"]
    refused, monitor = reason(False, "/usr/local/cuda/bin/ptxas")
    assert refused == ("ran a program during its timed calls (refused; seen by the judge): "
                       "/usr/local/cuda/bin/ptxas") and monitor.timed_call_tools == []
    assert reason(True, "/usr/bin/gcc")[0].endswith("/usr/bin/gcc")


def test_a_reply_without_the_requests_nonce_is_rejected():
    from kforge_worker.candidate_proxy import CandidateProcess
    from kforge_worker.channel import Channel
    from kforge_worker.errors import Failure
    from kforge_worker.sandbox import Output

    class Process:
        pid = os.getpid()

        def poll(self):
            return None

    ours, theirs = socket.socketpair()
    proxy = CandidateProcess.__new__(CandidateProcess)
    proxy.channel, proxy.closed, proxy.confinement = Channel(ours), False, {}
    proxy.process, proxy.output, proxy.over_limit = Process(), Output(), threading.Event()
    proxy.deadline, proxy.timeout_s, proxy.ops_s = time.monotonic() + 60, 10.0, {}
    proxy._exit_code, proxy._last_op, proxy._nonce = None, None, None
    proxy.beside_calls, proxy._host_pid, proxy.operator_probes = [], None, None
    proxy.operator_watch = None
    proxy._drainer = threading.Thread(target=lambda: None)
    proxy._drainer.start()
    proxy.close = lambda: setattr(proxy, "closed", True)
    other = Channel(theirs)
    proxy.send({"op": "call"})
    request, _ = other.receive()
    other.send({"ok": True, "nonce": request["nonce"]})
    assert proxy.reply()["ok"] is True
    proxy.send({"op": "finish"})
    other.receive()
    other.send({"ok": True, "violations": []})  # forged: written without the nonce
    with pytest.raises(Failure) as caught:
        proxy.reply()
    assert caught.value.status == "rejected" and "forged" in caught.value.message


AUDIT_CHILD = r"""
import gc, json, os, sys, threading, time
from kforge_worker import trust, trust_audit
scratch = sys.argv[1]
trust.child_setup(scratch)
helpers = os.path.join(scratch, "helpers")
os.makedirs(helpers)
with open(os.path.join(helpers, "kf_helper.py"), "w") as handle:
    handle.write("import gc\ndef objects():\n    return len(gc.get_objects())\n")
with open(os.path.join(scratch, "cand.py"), "w") as handle:
    handle.write('''
import gc, logging, os, sys, threading
import torch
def own_frame():
    return logging.currentframe()
def fake_name():
    code = compile("import gc\\nn = len(gc.get_objects())", torch.__file__, "exec")
    exec(code, {})
def exec_string():
    exec("import gc\\ndef f():\\n    return len(gc.get_objects())", globals())
    return threading_run(globals()["f"])
def threading_run(target):
    box = []
    thread = threading.Thread(target=lambda: box.append(_attempt(target)))
    thread.start(); thread.join()
    return box[0]
def _attempt(target):
    try:
        target(); return "allowed"
    except PermissionError:
        return "refused"
def library_callable_in_thread():
    box = []
    thread = threading.Thread(target=lambda: box.append(_attempt(gc.get_objects)))
    thread.start(); thread.join()
    return box[0]
def helper():
    sys.path.insert(0, os.path.join(os.getcwd(), "helpers"))
    import kf_helper
    return threading_run(kf_helper.objects)
def named_tuple():
    import collections
    return collections.namedtuple("P", "a b")(1, 2).a
def logs():
    logging.getLogger("cand").warning("a candidate may log")
def signal_handler():
    import signal
    signal.signal(signal.SIGUSR1, lambda *args: None)
def registers():
    global LIBRARY
    LIBRARY = torch.library.Library("kf_test_ns", "DEF")
''')
sys.path.insert(0, scratch)
os.chdir(scratch)
import cand
results = {}
for name in ("own_frame", "fake_name", "exec_string", "library_callable_in_thread", "helper",
             "named_tuple", "logs", "registers", "signal_handler"):
    try:
        value = getattr(cand, name)()
        results[name] = value if isinstance(value, str) else "allowed"
    except PermissionError:
        results[name] = "refused"
results["harness_gc"] = "allowed" if gc.get_objects() else "?"
import signal
signal.signal(signal.SIGUSR2, signal.SIG_DFL)  # the harness itself may
results["harness_signal"] = "allowed"
print(json.dumps({"results": results, "violations": trust_audit.violations}))
"""


def test_disguised_candidate_code_is_still_the_candidates(tmp_path):
    run = subprocess.run([PY, "-c", AUDIT_CHILD, str(tmp_path)], capture_output=True,
                         text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": WORKER_DIR})
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    results = report["results"]
    for name in ("own_frame", "fake_name", "exec_string", "library_callable_in_thread",
                 "helper", "signal_handler"):
        assert results[name] == "refused", (name, results)
    assert results["named_tuple"] == results["logs"] == results["registers"] == "allowed"
    assert results["harness_gc"] == results["harness_signal"] == "allowed"
    violations = "\n".join(report["violations"])
    assert "through __init__.py: <lambda>" in violations  # logging.currentframe
    assert "under the name of another file" in violations


@pytest.mark.skipif(not shutil.which("bwrap"), reason="bubblewrap is not installed")
def test_bubblewrap_behind_a_wrapper_script_is_not_a_left_process(tmp_path):
    # The GPU box has no bubblewrap: a carried one runs as bwrap.real behind a script
    # (scripts/pack_for_device.sh). Its processes are the sandbox's, not the candidate's.
    from conftest import Worker
    real = tmp_path / "bwrap.real"
    shutil.copy(shutil.which("bwrap"), real)
    wrapper = tmp_path / "bwrap"
    wrapper.write_text(f'#!/usr/bin/env bash\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    worker = Worker(env_extra={"KFORGE_BWRAP": str(wrapper)})
    try:
        result = worker.evaluate("tasks/softmax.py",
                                 os.path.join(REPO_ROOT, "library", "softmax", "candidate.py"))
    finally:
        worker.close()
    assert result["status"] == "ok", result.get("error")
    assert result["confinement"]["mechanism"] == "bwrap"


JUDGE_WITHOUT_RECORDER = """
import runpy, sys
from kforge_worker import trust_ops

def broken(self):
    raise RuntimeError("the recorder broke")

trust_ops.OpRecorder.__enter__ = broken
sys.argv = ["kforge_worker", "--cpu"]
runpy.run_module("kforge_worker", run_name="__main__")
"""


def _evaluate_with_patched_judge(patch):
    """One CPU evaluation of the library softmax by a worker whose judge runs `patch` first."""
    worker = subprocess.Popen([PY, "-c", patch], cwd=REPO_ROOT,
                              env={**os.environ, "PYTHONPATH": WORKER_DIR,
                                   "TRITON_INTERPRET": "1"},
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    request = {"id": 1, "op": "evaluate", "task_path": "tasks/softmax.py",
               "candidate_path": "library/softmax/candidate.py", "device": "cpu",
               "shrink": True, "input_sets": 2}
    reply, _ = worker.communicate(json.dumps(request) + "\n", timeout=300)
    return json.loads(reply.splitlines()[0])


def test_no_verdict_without_the_reference_policy():
    # A judge whose operator recorder fails on a reference that runs must not judge with an
    # empty policy (torch.softmax would pass): the request fails instead.
    reply = _evaluate_with_patched_judge(JUDGE_WITHOUT_RECORDER)
    assert reply["ok"] is False
    assert "failed to record the operators of the reference" in reply["error"]
    assert "the recorder broke" in reply["error"]


JUDGE_WITHOUT_REPORT = """
import runpy, sys
from kforge_worker import evaluate
from kforge_worker.errors import Failure

def forged(self):
    raise Failure("rejected", "the candidate wrote a frame into the judge's channel (forged)",
                  reasons=["wrote a frame into the judge's channel (forged)"])

evaluate.Evaluation.finish = forged
sys.argv = ["kforge_worker", "--cpu"]
runpy.run_module("kforge_worker", run_name="__main__")
"""


def test_a_final_report_that_fails_is_a_rejection():
    # a19's race: a forged frame answers the judge's `finish`; the verdict so far (ok) must not
    # stand without the candidate process's report
    result = _evaluate_with_patched_judge(JUDGE_WITHOUT_REPORT)["result"]
    assert result["status"] == "rejected"
    assert result["reasons"] == ["wrote a frame into the judge's channel (forged)"]


JUDGE_WITH_A_BARE_REPORT = """
import runpy, sys
from kforge_worker import candidate_proxy

request = candidate_proxy.CandidateProcess.request

def bare(self, message, *args, **kwargs):
    reply = request(self, message, *args, **kwargs)
    return {"ok": True} if message.get("op") == "finish" else reply

candidate_proxy.CandidateProcess.request = bare
sys.argv = ["kforge_worker", "--cpu"]
runpy.run_module("kforge_worker", run_name="__main__")
"""


def test_a_final_report_without_its_lists_is_a_rejection():
    # a reply to `finish` that carries no list of violations (a candidate that rewrote its
    # process's last reply) is no clean report
    result = _evaluate_with_patched_judge(JUDGE_WITH_A_BARE_REPORT)["result"]
    assert result["status"] == "rejected"
    assert result["reasons"] == [
        "the candidate process's last report was malformed (no list of violations)"]


def test_the_channel_codec_survives_a_rebound_json():
    # bound when channel.py is imported: a candidate's later json.dumps or JSONEncoder.encode
    # (through functools.update_wrapper, a43_scrub_*) does not reach the frames
    script = """
import functools, json, json.encoder, socket, sys
sys.path.insert(0, sys.argv[1])
from kforge_worker.channel import Channel
class Scrub:
    def encode(self, value):
        return '{"violations": []}'
functools.update_wrapper(json.encoder.JSONEncoder, Scrub, assigned=("encode",), updated=())
json.dumps = lambda *a, **k: '{"violations": []}'
json.loads = lambda *a, **k: {"forged": True}
left, right = socket.socketpair()
Channel(left).send({"violations": ["called the operator it replaces"], "x": float("nan")})
print(Channel(right).receive()[0])
"""
    done = subprocess.run([PY, "-c", script, WORKER_DIR], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.strip() == \
        "{'violations': ['called the operator it replaces'], 'x': 'nan'}", done.stderr


def test_a_shared_buffer_is_not_inherited_by_a_forked_child():
    """The candidate's side of a host buffer (an imported descriptor): its descriptor is closed
    once mapped and the mapping is not inherited, so a child the candidate forks cannot write the
    output buffers after the harness copied into them (the fork variant of a48)."""
    import ctypes
    import signal

    from kforge_worker.shared_memory import SharedBuffer
    judge = SharedBuffer("cpu", 4096)
    candidate = SharedBuffer("cpu", 4096, fd=os.dup(judge.fd))
    assert candidate.fd is None
    address = candidate.raw.data_ptr()
    candidate.raw[0] = 7
    assert judge.raw[0] == 7  # one memory
    pid = os.fork()
    if pid == 0:  # the child: the address is not mapped here
        import faulthandler
        faulthandler.disable()
        ctypes.memset(address, 1, 1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGSEGV
    assert judge.raw[0] == 7
    candidate.close()
    judge.close()


def test_a_handler_in_a_library_whose_llvm_sets_its_own_is_not_charged_elsewhere_it_is():
    """exec_monitor.Monitor.handler_library: NVRTC's (and Triton's) LLVM installs handlers for
    its signals on its first compile (a59 on an H200, session 20: libnvrtc.so.13); such a call
    is refused but not charged, when the handler lies in an unmodified mapping of that library's
    file in its folder. Checked here with libc standing in for the library."""
    import types
    libc = ctypes.CDLL(None)
    address = ctypes.cast(libc.abort, ctypes.c_void_p).value
    with open("/proc/self/maps") as handle:
        path = next(line.split()[5] for line in handle
                    if len(line.split()) > 5 and "libc.so" in line.split()[5])
    folder = os.path.dirname(os.path.realpath(path))
    owner = types.SimpleNamespace(handler_libraries=[("libc", folder)])
    assert exec_monitor.Monitor.handler_library(owner, os.getpid(), address) == \
        os.path.basename(path)
    owner.handler_libraries = [("libc", "/nonexistent")]  # the same name in another folder
    assert exec_monitor.Monitor.handler_library(owner, os.getpid(), address) is None
    owner.handler_libraries = [("libnvrtc", folder)]
    assert exec_monitor.Monitor.handler_library(owner, os.getpid(), address) is None
    anonymous = ctypes.cast(ctypes.create_string_buffer(64), ctypes.c_void_p).value
    owner.handler_libraries = [("", "/")]
    assert exec_monitor.Monitor.handler_library(owner, os.getpid(), anonymous) is None
