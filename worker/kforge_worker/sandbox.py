"""Zygote + fork isolation: every piece of work that touches a candidate, or CUDA, runs in a child.

The worker process imports torch, triton and numpy once but never initialises CUDA; each request
forks a child that does the work (CUDA initialisation included) and sends one JSON result back
over a pipe. Forking a process that has torch imported but no CUDA context is the DataLoader
pattern and is safe. The parent enforces the limits and survives whatever the child does:

- wall clock (`timeout_s`): the child's process group is killed -> status "timeout";
- host memory (VmRSS polled every 50 ms, `host_memory_gb`) -> "crashed", host memory limit;
- output: the child's stdout/stderr go into a pipe drained by a thread that keeps a bounded
  head and tail and counts bytes; above MAX_OUTPUT_BYTES -> killed, status "rejected";
- killed by a signal -> "crashed" with the signal's name; exit without a result -> "crashed".

The child runs in its own session (os.setsid), in a fresh scratch directory (removed afterwards),
with secrets scrubbed from its environment and no access to the protocol stream."""

import json
import os
import re
import signal
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field

from kforge_worker import file_tree

# Above this many bytes written by the child to stdout+stderr it is killed and rejected.
# One constant so that the trust policy can change it in one place.
MAX_OUTPUT_BYTES = 8 * 1024 * 1024
KEEP_BYTES = 16 * 1024          # head and tail of the output kept for messages
POLL_S = 0.05
DEFAULT_HOST_MEMORY_GB = 16.0
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD", re.IGNORECASE)
SCRATCH_PREFIX = "kforge-eval-"   # + the worker's pid + "-": a dead worker's dirs can be found


def remove_stale_scratch():
    """Scratch directories left by workers that died mid-evaluation (a killed worker cannot
    remove them): those whose worker pid no longer exists. Called when a worker starts."""
    root = tempfile.gettempdir()
    for name in os.listdir(root):
        if not name.startswith(SCRATCH_PREFIX):
            continue
        owner = name[len(SCRATCH_PREFIX):].split("-")[0]
        if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
            file_tree.remove(os.path.join(root, name))


def resolve(request, key):
    """The absolute path of request[key] (paths in requests are relative to the worker's cwd)."""
    return os.path.join(request.get("_cwd", ""), request[key])


class RequestFailure(Exception):
    """Raised in the child when the request itself cannot be served (malformed task, missing
    file): the parent turns it into an ok=false reply with this message."""


@dataclass
class Output:
    """What the child wrote to stdout/stderr: a bounded head and tail, and the total count."""
    bytes: int = 0
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)

    def add(self, chunk):
        self.bytes += len(chunk)
        if len(self.head) < KEEP_BYTES:
            room = KEEP_BYTES - len(self.head)
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            del self.tail[:-KEEP_BYTES]

    def text(self):
        head = self.head.decode("utf-8", "replace")
        if not self.tail:
            return head
        gap = self.bytes - len(self.head) - len(self.tail)
        middle = f"\n... ({gap} bytes omitted) ...\n" if gap > 0 else ""
        return head + middle + self.tail.decode("utf-8", "replace")

    def last_lines(self, count=20):
        return "\n".join(self.text().rstrip("\n").split("\n")[-count:])


@dataclass
class Outcome:
    """How the child ended. status: done (result holds its reply), timeout, crashed, rejected."""
    status: str
    result: dict = None
    message: str = ""
    output: Output = None
    wall_s: float = 0.0

    def result_or_raise(self, verb):
        """For requests whose only useful answer is the child's result (hello, inspect)."""
        from kforge_worker.protocol import RequestError
        if self.status != "done":
            raise RequestError(f"failed to {verb}: {self.message}")
        return self.result


def _drain(fd, output, over_limit):
    with os.fdopen(fd, "rb", buffering=0) as stream:
        while True:
            chunk = stream.read(65536)
            if not chunk:
                return
            output.add(chunk)
            if output.bytes > MAX_OUTPUT_BYTES:
                over_limit.set()


def _write_frame(fd, data):
    """`data` framed (8-byte length, then the bytes) into the pipe `fd`, which is closed."""
    with os.fdopen(fd, "wb") as stream:
        stream.write(len(data).to_bytes(8, "little") + data)


def _read_frame(fd):
    """One frame from the pipe `fd` (closed afterwards), or None if it ended first. Framed so
    that it is complete without waiting for EOF, which a grandchild holding the pipe open would
    delay forever."""
    with os.fdopen(fd, "rb") as stream:
        header = stream.read(8)
        if len(header) < 8:
            return None
        return stream.read(int.from_bytes(header, "little"))


def _read_result(fd, sink):
    data = _read_frame(fd)
    if data is not None:
        sink.append(data)


def _rss_bytes(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _kill_group(pid):
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except OSError:
            pass


def _die_with_parent(parent):
    """The child leaves the worker's process group (setsid), so a pool killing the worker's group
    would miss it: ask the kernel to kill it when the worker dies, however the worker dies."""
    import ctypes
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the worker died before the request took effect
        os._exit(1)


def _isolate(scratch, output_w, result_w, request_r, cpu_only, parent, keep_fds):
    """In the forked child, before any work: its own session, stdio on the output pipe, every
    other descriptor closed, secrets out of the environment, the scratch directory its cwd."""
    os.setsid()
    _die_with_parent(parent)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(output_w, 1)
    os.dup2(output_w, 2)
    # Close every other descriptor (the protocol stream above all), but the result pipe, the
    # request pipe of a prepared child and those handed over on purpose (a warm candidate
    # process's channel and output).
    low = 3
    for fd in sorted({result_w, *keep_fds, *((request_r,) if request_r is not None else ())}):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 65536)
    for name in list(os.environ):
        if SECRET_NAME.search(name):
            del os.environ[name]
    if cpu_only:
        os.environ["CUDA_VISIBLE_DEVICES"] = ""
    os.environ["KFORGE_SCRATCH"] = scratch
    os.chdir(scratch)
    import faulthandler
    import sys
    sys.stdin = os.fdopen(0, "r", closefd=False)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
    faulthandler.enable(file=sys.stderr)  # a segfault leaves its Python stack in the output


def _child(fn, request, scratch, result_w, output_w, cpu_only, parent, keep_fds=(),
           request_r=None, prepare=None):
    """In the forked child: isolate, run fn(request, scratch), send its result, exit. A child
    forked ahead (request None) first runs prepare() and then waits for its request."""
    status = 1
    try:
        _isolate(scratch, output_w, result_w, request_r, cpu_only, parent, keep_fds)
        if request is None:
            import select
            try:
                prepare(lambda: bool(select.select([request_r], [], [], 0)[0]))
            except BaseException:  # the request still runs: it meets the failure itself
                traceback.print_exc()
            data = _read_frame(request_r)
            if data is None:  # the worker discarded it
                status = 0
                return
            request = json.loads(data)
        try:
            reply = {"result": fn(request, scratch)}
        except RequestFailure as error:
            reply = {"request_error": str(error)}
        except BaseException:
            reply = {"internal_error": traceback.format_exc()}
        from kforge_worker.protocol import encode
        _write_frame(result_w, encode(reply).encode("utf-8"))
        status = 0
    finally:
        # Skip interpreter and CUDA teardown: a poisoned context can hang it.
        os._exit(status)


@dataclass
class Child:
    """A forked child, its pipes and the threads draining them."""
    pid: int
    scratch: str
    output: Output
    over_limit: threading.Event
    drainer: threading.Thread
    reader: threading.Thread
    result_chunks: list
    request_w: int = None  # a prepared child's request pipe (None: it was forked with one)
    prefetch_stale: bool = False  # a prepared child's prefetch is for other work (judge_spare)


def _fork(fn, request, cpu_only, keep_fds, prepare=None):
    import torch
    from kforge_worker.protocol import RequestError
    if torch.cuda.is_initialized():  # a forked child could not use CUDA at all
        raise RequestError("failed to start an evaluation child: the worker process itself has "
                           "initialised CUDA (a worker bug: only children may touch the GPU)")
    # the operator probes' helper: started here, so that it outlives every evaluation
    from kforge_worker import operator_probes
    operator_probes.start_anchor()
    keep_fds = tuple(keep_fds) + operator_probes.anchor_fds()
    scratch = tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-")
    result_r, result_w = os.pipe()
    output_r, output_w = os.pipe()
    request_r, request_w = os.pipe() if request is None else (None, None)
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        os.close(result_r)
        os.close(output_r)
        if request_w is not None:
            os.close(request_w)
        _child(fn, request, scratch, result_w, output_w, cpu_only, parent, keep_fds,
               request_r, prepare)
    os.close(result_w)
    os.close(output_w)
    if request_r is not None:
        os.close(request_r)
    output = Output()
    over_limit = threading.Event()
    result_chunks = []
    drainer = threading.Thread(target=_drain, args=(output_r, output, over_limit), daemon=True)
    reader = threading.Thread(target=_read_result, args=(result_r, result_chunks), daemon=True)
    drainer.start()
    reader.start()
    return Child(pid, scratch, output, over_limit, drainer, reader, result_chunks, request_w)


def fork_prepared(fn, prepare, cpu_only=False, keep_fds=()):
    """A child forked ahead of its request: it runs prepare(request_waiting) (for an evaluation:
    CUDA's context, cuBLAS, cuDNN, the judge's own Triton kernel, the reference) and waits.
    run_request(..., prepared=child) hands it the request; discard(child) ends one not wanted."""
    return _fork(fn, None, cpu_only, keep_fds, prepare)


def discard(child):
    """Ends a prepared child that will not get a request, and removes its scratch directory."""
    try:
        os.close(child.request_w)
    except OSError:
        pass
    _kill_group(child.pid)
    try:
        os.waitpid(child.pid, 0)
    except ChildProcessError:
        pass
    file_tree.remove(child.scratch)


def run_request(fn, request, timeout_s=300.0, host_memory_gb=None, cpu_only=False, keep_fds=(),
                prepared=None):
    """Fork, run `fn(request, scratch_dir) -> dict` in the child, return an Outcome. `prepared`:
    a child from fork_prepared for the same fn, cpu_only and keep_fds, which gets the request
    instead (the caller checks that it fits; its limits start now)."""
    from kforge_worker.protocol import RequestError
    timeout_s = float(timeout_s or 300.0)
    memory_limit = float(host_memory_gb or DEFAULT_HOST_MEMORY_GB) * 1024 ** 3
    # The child works in its scratch directory: relative paths are resolved against ours.
    request = {**request, "_cwd": os.getcwd()}
    started = time.monotonic()
    if prepared is not None:
        child = prepared
        try:
            _write_frame(child.request_w, json.dumps(request).encode("utf-8"))
        except OSError:  # it died while it waited: the exit status below says how
            pass
    else:
        child = _fork(fn, request, cpu_only, keep_fds)
    pid, output, over_limit = child.pid, child.output, child.over_limit
    outcome = None
    wait_status = None
    try:
        while True:
            done, wait_status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            elapsed = time.monotonic() - started
            if elapsed > timeout_s:
                outcome = Outcome("timeout", message=f"exceeded the wall-clock limit of "
                                                     f"{timeout_s:g} s and was killed")
            elif over_limit.is_set():
                outcome = Outcome("rejected", message=f"was killed: wrote {output.bytes / 1e6:.1f} MB to "
                                                      f"stdout/stderr (limit "
                                                      f"{MAX_OUTPUT_BYTES / 1e6:.0f} MB)")
            elif _rss_bytes(pid) > memory_limit:
                outcome = Outcome("crashed", message=f"was killed: host memory limit exceeded "
                                                     f"({memory_limit / 1024 ** 3:g} GB)")
            if outcome is not None:
                _kill_group(pid)
                os.waitpid(pid, 0)
                break
            time.sleep(POLL_S)
        _kill_group(pid)  # grandchildren left in the group
        # The child is gone: what it wrote is in the pipes already. Only an escaped grandchild
        # still holding them open could delay EOF, so the wait is short.
        child.reader.join(timeout=2)
        child.drainer.join(timeout=2)
    finally:
        file_tree.remove(child.scratch)
    wall_s = time.monotonic() - started
    if outcome is None:
        outcome = _ended(wait_status, b"".join(child.result_chunks))
    outcome.output = output
    outcome.wall_s = wall_s
    if outcome.status == "done":
        if "request_error" in outcome.result:
            raise RequestError(outcome.result["request_error"])
        if "internal_error" in outcome.result:
            detail = outcome.result["internal_error"].rstrip().split("\n")[-1]
            print(outcome.result["internal_error"], flush=True)  # fd 1 is stderr in the worker
            raise RequestError(f"failed to serve {request.get('op')}: worker error: {detail}")
        outcome.result = outcome.result["result"]
    elif outcome.status == "crashed":
        tail = output.last_lines()
        if tail.strip():
            outcome.message += "\nlast output:\n" + tail
    return outcome


def _ended(wait_status, data):
    if os.WIFSIGNALED(wait_status):
        number = os.WTERMSIG(wait_status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return Outcome("crashed", message=f"was killed by {name}")
    if data:
        try:
            return Outcome("done", result=json.loads(data))
        except json.JSONDecodeError:
            return Outcome("crashed", message="sent a malformed result")
    code = os.WEXITSTATUS(wait_status) if os.WIFEXITED(wait_status) else -1
    return Outcome("crashed", message=f"exited with code {code} before reporting")
