"""The judge's side of the candidate process: start it confined, talk to it, watch it, end it.

Every request has a deadline; while waiting, the judge watches what it can see from outside:
whether the process is alive, the resident memory of its whole process tree, and how much it
writes to stdout/stderr. A candidate that dies, floods its output, exceeds host memory or misses
the evaluation's deadline ends the evaluation with `crashed`, `rejected` or `timeout`; its reply
statuses are believed only as failures (a reply cannot make anything pass)."""

import os
import secrets
import select
import signal
import threading
import time

from kforge_worker import confinement, file_tree
from kforge_worker.channel import Channel, ChannelClosed, ChannelError
from kforge_worker.errors import Failure
from kforge_worker.sandbox import MAX_OUTPUT_BYTES, Output

POLL_S = 0.05
# A reply still missing this long after the candidate's process was refused a thread or a fork
# in the same request: it waits on what never started (a thread pool rebuilt by
# torch.set_num_threads hung until the 120 s limit on an H200, a25; a kernel spinning on a
# refused child's flag ran 120 s in Triton's interpreter, a49). The refusal is charged anyway
# (the verdict is rejected whatever follows), so the judge stops waiting.
REFUSAL_GRACE_S = 5.0
WAITS_ON = {"thread": ("started a thread", "the thread (a thread pool rebuilt, as by "
                                           "torch.set_num_threads)"),
            "fork": ("forked its process", "the child that never ran (a flag it was to raise)"),
            "code": ("had a program it ran map code from a file it can write",
                     "the program whose code never loaded (a flag it was to raise)"),
            "memory": ("opened a process's memory for writing",
                       "the program it never wrote into (a flag it was to raise)")}
FAILURE_STATUSES = {"syntax_error", "compile_error", "runtime_error", "wrong_output", "rejected"}


def _drain(stream, output, over_limit):
    while True:
        chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
        if not chunk:
            return
        output.add(chunk)
        if output.bytes > MAX_OUTPUT_BYTES:
            over_limit.set()


FORWARD_OPS = ("call", "time", "profile")  # requests in which candidate code computes outputs


def _killed_by(number):
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"was killed by signal {number}"
    if number == signal.SIGSYS:  # the only signal our seccomp filters send
        return (f"was killed by {name}: it made a system call of another architecture (a 32-bit "
                f"`int 0x80`), for which the sandbox kills the process")
    return f"was killed by {name}"


def _is_bubblewrap(pid):
    """By the executable, not the name: a candidate's process can call itself "bwrap"
    (prctl(PR_SET_NAME); red team, session 13)."""
    try:
        return os.path.basename(os.readlink(f"/proc/{pid}/exe")) in ("bwrap", "bwrap.real")
    except OSError:
        return False


def host_process_pid(process, confinement_info):
    """A candidate process's pid as the judge sees it: the first process of its tree, breadth
    first, that is not bubblewrap's (the process itself without bubblewrap)."""
    todo = [process.pid]
    while todo:
        pid = todo.pop(0)
        if confinement_info.get("mechanism") != "bwrap" or not _is_bubblewrap(pid):
            return pid
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as handle:
                todo += [int(child) for child in handle.read().split()]
        except (OSError, ValueError):
            pass
    return None


def attach_probes(process, confinement_info, probes):
    """operator_probes.Watch of `probes` on a candidate process's threads (its count not yet
    started: CandidateProcess starts it at the first forward request of candidate code)."""
    from kforge_worker import operator_probes
    return operator_probes.Watch(host_process_pid(process, confinement_info), probes)


class CandidateProcess:
    """The judge's handle on one candidate process: a warm one the worker started ahead
    (warm_pool.WarmHost), or one started now. `cache`: the candidate source's build cache,
    linked into the process's cache slot now and updated from it when the process is gone."""

    def __init__(self, host, cache, deadline, host_memory_bytes, timeout_s):
        from kforge_worker.warm_pool import load_slot
        self.host = host
        self.cache = cache
        self.device = host.device
        self.scratch = host.scratch
        self.process = host.process
        self.confinement = host.confinement
        self.deadline = deadline
        self.timeout_s = timeout_s
        self.host_memory_bytes = host_memory_bytes
        self.output = Output()
        self.over_limit = threading.Event()
        self.start_s = time.monotonic() - host.started
        self.channel = Channel(host.sock)
        self.buffers = {}
        self.shared_bytes = 0        # buffers shared now (on the GPU: outside torch's allocator)
        self.peak_shared_bytes = 0
        self.closed = False
        self._exit_code = None
        self._last_op = None
        self.ops_s = {}   # the candidate process's own time per request kind (untrusted)
        self._next_id = 0
        self._nonce = None
        self.monitor = None   # exec_monitor.Monitor once sealed
        self.judge_inodes = set()  # the shared buffers' (st_dev, st_ino): the judge's memory
        self._checked_writes = 0.0
        self.slot_over_limits = False  # then nothing of the slot goes back into the cache
        self._shm_bytes = 0
        # the host's totals when the judge took the process: what they grow by is charged to it
        self._host_at_start = confinement.host_memory()
        self._disk_at_start = confinement.disk_space(self.scratch)
        self.seal_note = None
        self.startup = None  # the process's own start-up steps and idle time (seal's reply)
        # "a program it started was running when a forward call began/ended": a program beside
        # the candidate's calls can write what its kernels read (programs_beside_calls)
        self.beside_calls = []
        self._host_pid = None
        # the kernel's count of entries into PyTorch's code for the operators the candidate
        # replaces (operator_probes.py): probes chosen by watch_operators, attached to the
        # process and its threads before its first forward request
        self.operator_probes = None
        self.operator_watch = None
        self.probe_note = None
        load_slot(host.slot, cache)
        self._drainer = threading.Thread(target=_drain, args=(
            self.process.stdout, self.output, self.over_limit), daemon=True)
        self._drainer.start()

    # ---- watching -----------------------------------------------------------------------------

    def _died(self):
        """How the process ended, or None while it runs. Under bwrap, from bwrap's status
        descriptor: the judge is not the parent of a warm process, and Popen.poll() there would
        report a running process as exited (ECHILD)."""
        status_fd = self.confinement.get("status_fd")
        if status_fd is not None:
            code = self._exit_code if self._exit_code is not None else \
                confinement.exit_status(status_fd)
            self._exit_code = code
            if code is None:
                return None
            if code > 128:  # bwrap reports a death by signal N as 128 + N
                return _killed_by(code - 128)
            return f"exited with code {code} before reporting"
        code = self.process.poll()
        if code is None:
            return None
        if code < 0:
            return _killed_by(-code)
        return f"exited with code {code} before reporting"

    def _fail(self, status, message):
        self.close()
        if status == "crashed":
            tail = self.output.last_lines()
            if tail.strip():
                message += "\nlast output:\n" + tail
        raise Failure(status, f"the candidate {message}",
                      reasons=[message.split(": ", 1)[-1]] if status == "rejected" else None)

    def _wait_readable(self):
        sock = self.channel.sock
        checked_memory = 0.0
        # the request's own start: the judge may have worked a while before waiting (the first
        # set's references while the candidate is imported), and a refusal then counts too
        began = getattr(self, "_sent_at", None) or time.monotonic()
        while True:
            ready, _, _ = select.select([sock], [], [], POLL_S)
            if ready:
                return
            died = self._died()
            if died:
                # it may have answered just before dying
                ready, _, _ = select.select([sock], [], [], 0)
                if ready:
                    return
                self._fail("crashed", died)
            if self.over_limit.is_set():
                self._fail("rejected", f"was killed: wrote {self.output.bytes / 1e6:.1f} MB to "
                                       f"stdout/stderr (limit {MAX_OUTPUT_BYTES / 1e6:.0f} MB)")
            now = time.monotonic()
            if now > self.deadline:
                self._fail("timeout", f"exceeded the wall-clock limit of {self.timeout_s:g} s "
                                      f"and was killed")
            refused, kind = getattr(self.monitor, "start_refused", None) or (None, None)
            # A refusal of an earlier request counts too, from this request's sending (blind red
            # team, session 22: a thread refused at import, then a hang in a later checked call,
            # ran to the 300 s limit): the refusal is charged whatever follows
            if refused is not None and now - max(refused, began) > REFUSAL_GRACE_S:
                did, waits = WAITS_ON[kind]
                when = "after" if refused >= began else "of a later request"
                self._fail("rejected", f"{did} once its code was loaded (refused; seen by the "
                                       f"judge) and gave no reply in the {REFUSAL_GRACE_S:g} s "
                                       f"{when}: its process waits on {waits}; killed")
            if now - checked_memory > 0.2:
                checked_memory = now
                self._check_memory(now)

    def _check_memory(self, now):
        """The process tree's resident memory (every 0.2 s) plus, every second, the shared memory
        it holds outside any RSS and what it wrote into its scratch directory and cache slot."""
        memory = confinement.tree_rss_bytes(self.process.pid)
        if now - self._checked_writes > 1.0:
            self._checked_writes = now
            self._shm_bytes = confinement.shared_memory_bytes(self.process.pid,
                                                              self.judge_inodes)
            self._check_host()
            written = self.written_past_limits()
            if written:
                self._fail("crashed", f"was killed: {written}")
        if memory + self._shm_bytes > self.host_memory_bytes:
            held = f", {self._shm_bytes / 1024 ** 3:.1f} GB of it in shared memory" \
                if self._shm_bytes > (64 << 20) else ""
            self._fail("crashed", f"was killed: host memory limit exceeded "
                                  f"({self.host_memory_bytes / 1024 ** 3:g} GB{held})")

    def _check_host(self):
        """The host's totals (confinement.HOST_MEMORY_FLOOR_BYTES and its neighbours): shared
        memory grown beyond the judge's own buffers is charged to the candidate (the larger of
        that and what it is seen to hold); the floors stop it whatever it is charged."""
        host = confinement.host_memory()
        if host is not None and self._host_at_start is not None:
            available, shmem = host
            # (the peak: a released buffer can stay mapped on the candidate's side a while)
            judge_shared = self.peak_shared_bytes if self.device == "cpu" else 0
            self._shm_bytes = max(self._shm_bytes,
                                  shmem - self._host_at_start[1] - judge_shared)
            if available < confinement.HOST_MEMORY_FLOOR_BYTES < self._host_at_start[0]:
                self._fail("crashed", f"was killed: the host's available memory fell to "
                                      f"{available / 1024 ** 3:.2f} GiB while it ran (floor "
                                      f"{confinement.HOST_MEMORY_FLOOR_BYTES / 1024 ** 3:g} GiB)")
        disk = confinement.disk_space(self.scratch)
        if disk is not None and self._disk_at_start is not None:
            used, free = disk
            grown = used - self._disk_at_start[0]
            if grown > confinement.DISK_GROWTH_LIMIT_BYTES or \
                    free < confinement.DISK_FLOOR_BYTES < self._disk_at_start[1]:
                self._fail("crashed", f"was killed: the used space of its scratch directory's "
                                      f"file system grew by {grown / 1024 ** 3:.1f} GiB while "
                                      f"it ran ({free / 1024 ** 3:.1f} GiB free; limit "
                                      f"{confinement.DISK_GROWTH_LIMIT_BYTES / 1024 ** 3:g} GiB, "
                                      f"floor {confinement.DISK_FLOOR_BYTES / 1024 ** 3:g} GiB)")

    def written_past_limits(self):
        """What the candidate wrote into its scratch directory and cache slot, as a reason, when
        it passes a limit (bytes, files, depth: confinement.WRITE_LIMIT_*, file_tree.MAX_DEPTH);
        else None. Checked while the judge waits for a reply and once after the last one (a
        candidate that answers fast is never waited for)."""
        written, files, depth = file_tree.usage([self.scratch, self.host.slot],
                                                confinement.WRITE_LIMIT_FILES)
        if written > confinement.WRITE_LIMIT_BYTES or files > confinement.WRITE_LIMIT_FILES \
                or depth > file_tree.MAX_DEPTH:
            self.slot_over_limits = True
            return (f"wrote {written / 1024 ** 2:.0f} MiB in {files} files, {depth} folders "
                    f"deep, into its scratch directory and build cache (limit "
                    f"{confinement.WRITE_LIMIT_BYTES / 1024 ** 3:g} GiB, "
                    f"{confinement.WRITE_LIMIT_FILES} files, {file_tree.MAX_DEPTH} deep)")
        return None

    def request(self, message, fds=()):
        """Send one request; return the reply if ok, else raise the candidate's Failure."""
        self.send(message, fds)
        return self.reply()

    def send(self, message, fds=()):
        """The first half of a request: the judge may work while the candidate does."""
        if self.closed:
            raise Failure("crashed", "the candidate process is gone")
        self._last_op = message.get("op")
        monitor = getattr(self, "monitor", None)
        if monitor is not None:
            monitor.request = self._last_op
            if self._last_op == "load":  # its import is the first candidate code
                monitor.candidate_code()
        # A fresh nonce per request, echoed by the candidate host: a frame that something else
        # in that process wrote into the channel (a forged or out-of-turn reply) lacks it.
        # (not for the stand-in's timed blocks before the import, calibration.py: harness code)
        if self._last_op in FORWARD_OPS and not message.get("stand_in"):
            self._probes_started()
        self._nonce = secrets.randbits(62)
        self._sent_at = time.monotonic()  # a refusal from now on belongs to this request
        message = {**message, "nonce": self._nonce}
        try:
            self.channel.send(message, fds)
        except OSError:
            self._wait_readable()  # reports why it is gone
            self._fail("crashed", "closed its channel")
        if self._last_op in FORWARD_OPS:
            self.note_programs("began")

    def replied(self):
        """Whether a reply (or the end of the channel) is waiting: the judge's read-ahead stops
        there (evaluate.correctness)."""
        if self.closed:
            return True
        ready, _, _ = select.select([self.channel.sock], [], [], 0)
        return bool(ready)

    def reply(self, keep_fds=False):
        """The second half: the reply if ok, else the candidate's Failure. `keep_fds`: the
        descriptors that came with it are the caller's (else closed), as reply["fds"]."""
        if self.closed:
            raise Failure("crashed", "the candidate process is gone")
        self._wait_readable()
        self.channel.sock.settimeout(max(1.0, self.deadline - time.monotonic()))
        problem = None
        try:
            reply, received = self.channel.receive()
        except (ChannelClosed, OSError):
            problem = "closed"
        except ChannelError as error:
            problem = f"sent a malformed reply ({error})"
        if problem == "closed":
            for _ in range(40):  # its exit status follows the closed channel closely
                if self._died():
                    break
                time.sleep(0.05)
            self._fail("crashed", self._died() or "closed its channel")
        if problem:
            self._fail("rejected", problem)
        self.channel.sock.settimeout(None)
        if reply.get("nonce") != self._nonce:
            for fd in received:
                os.close(fd)
            self._fail("rejected", "wrote a frame into the judge's channel that the candidate "
                                   "host did not send in reply to the request (a forged or "
                                   "out-of-turn reply)")
        if keep_fds:
            reply["fds"] = received
        else:
            for fd in received:  # the candidate has no business sending descriptors
                os.close(fd)
        if self.over_limit.is_set():
            self._fail("rejected", f"was killed: wrote {self.output.bytes / 1e6:.1f} MB to "
                                   f"stdout/stderr (limit {MAX_OUTPUT_BYTES / 1e6:.0f} MB)")
        if self._last_op in FORWARD_OPS and self._last_op != "time":  # (time: after its wall)
            self.note_programs("ended")
        took = reply.get("took_s")
        if isinstance(took, (int, float)) and isinstance(self._last_op, str):
            self.ops_s[self._last_op] = round(self.ops_s.get(self._last_op, 0.0) + took, 4)
        if reply.get("ok") is True:
            return reply
        status = reply.get("status")
        if status not in FAILURE_STATUSES:
            status = "runtime_error"
        raise Failure(status, str(reply.get("error") or "failed (no message)")[:20000],
                      reply.get("location") if isinstance(reply.get("location"), str) else None)

    def seal(self):
        """Before any candidate code: every exec of the candidate's process tree is referred to
        the judge from now on (exec_monitor.py). Without libseccomp the evaluation goes on with
        a note (the audit hook still sees exec through Python)."""
        # without bubblewrap nothing installed the system-call denylist: the seal does
        bwrap = self.confinement.get("mechanism") == "bwrap"
        self.send({"op": "seal", "deny": not bwrap, "private": bwrap})
        reply = self.reply(keep_fds=True)
        # what the process says its start-up took (untrusted, reported only: warm_pool's lead)
        startup = reply.get("startup")
        self.startup = startup if isinstance(startup, dict) else None
        if not reply.get("exec_monitor"):
            for fd in reply.get("fds") or []:
                os.close(fd)
            self.seal_note = f"exec monitor off: {str(reply.get('why'))[:200]}"
            return
        self.start_monitor(reply.get("fds") or [], reply.get("handlers_before_seal"))

    def start_monitor(self, fds, handlers_before_seal=None):
        import sys
        from kforge_worker import exec_monitor
        triton_dir = None
        try:
            import triton
            triton_dir = os.path.dirname(os.path.realpath(triton.__file__))
        except Exception:
            pass
        if len(fds) != 1:
            for fd in fds:
                os.close(fd)
            self.seal_note = "exec monitor off: no listener descriptor came back"
            return
        self.monitor = exec_monitor.Monitor(
            fds[0], sys.executable, triton_dir,
            read_only_root=self.confinement.get("mechanism") == "bwrap",
            tree_root=self.process.pid, restorable_handlers=handlers_before_seal,
            compiles_for_gpu=self.device != "cpu")

    # ---- the operators it replaces, counted by the kernel ----------------------------------

    def watch_operators(self, policy):
        """Chooses the probes for the policy's operators (operator_probes.probes_for) and, for a
        dense or recurrent task, the vendor libraries' entry points (vendor_probes); they are
        attached at the first forward request. Where the kernel offers no probes, a note."""
        from kforge_worker import operator_probes
        try:
            self.operator_probes = operator_probes.chosen(policy.ops, policy.dense,
                                                          policy.recurrent)
        except (operator_probes.Unavailable, OSError, ValueError) as why:
            self.probe_note = f"operator probes off: {why}"

    def adopt_probes(self, ahead):
        """`ahead`: (the warm host, probes, Watch) that a judge prepared ahead attached to this
        process while it waited idle in the pool (an RNN task's 2,600 perf_event_open calls:
        0.2 s on an H200 inside the request, session 35). Used when they are the probes
        watch_operators chose for this process; closed otherwise. Threads the process started
        since inherit the counters; the count starts at its first forward request."""
        if ahead is None:
            return
        host, probes, watch = ahead
        if host is self.host and self.operator_probes is not None and \
                probes == self.operator_probes and self.operator_watch is None:
            self.operator_watch, self.operator_probes = watch, None
        else:
            watch.close()

    def _probes_started(self):
        """Before the first forward request of candidate code: the probes attached and their
        count started."""
        if self.operator_probes:
            probes, self.operator_probes = self.operator_probes, None
            self._attach_probes(probes)
        if self.operator_watch is not None and self.operator_watch.baseline is None:
            try:
                self.operator_watch.start()
            except OSError as why:
                self.operator_watch.close()
                self.operator_watch = None
                self.probe_note = f"operator probes off: {why}"

    def _attach_probes(self, probes):
        from kforge_worker import operator_probes
        try:
            self.operator_watch = operator_probes.Watch(self.host_pid(), probes)
        except (operator_probes.Unavailable, OSError) as why:
            self.probe_note = f"operator probes off: {why}"

    def operator_probe_reasons(self):
        """Violations the probes saw (entries into the operators' code, breakpoints gone)."""
        from kforge_worker import operator_probes
        if self.operator_watch is None:
            return []
        try:
            return operator_probes.reasons(self.operator_watch)
        except OSError as error:  # the counters unreadable: the in-process policy still stands
            self.probe_note = f"operator probes unread: {error}"
            self.operator_watch = None
            return []

    def running_programs(self):
        """The live programs of the candidate's tree besides the candidate process (zombies and
        bubblewrap aside), from the tree's `children` links: cheap enough for every forward
        request. None where the kernel has no such links."""
        found, todo = [], [self.process.pid]
        try:
            while todo:
                pid = todo.pop()
                for task in os.listdir(f"/proc/{pid}/task"):
                    with open(f"/proc/{pid}/task/{task}/children") as handle:
                        for child in handle.read().split():
                            todo.append(int(child))
                            found.append(int(child))
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{self.process.pid}/task"):
                return []  # gone: the request fails on its own
            return None
        except (OSError, ValueError):
            return []  # a process left while it was read: the next look sees the rest
        running = []
        for pid in found:
            try:
                with open(f"/proc/{pid}/stat") as handle:
                    text = handle.read()
            except OSError:
                continue
            state = text[text.rindex(")") + 2:][:1]
            if state in ("Z", "X") or _is_bubblewrap(pid) or pid == self.host_pid():
                continue
            running.append(f"{text[text.index('(') + 1:text.rindex(')')]} (pid {pid})")
        return running

    def host_pid(self):
        """The candidate process's pid here: the first process of the tree, breadth first, that
        is not bubblewrap's (the process itself without bubblewrap)."""
        if self._host_pid is None:
            self._host_pid = host_process_pid(self.process, self.confinement)
        return self._host_pid

    def note_programs(self, when):
        """A program of the candidate's running when a forward request began or ended: it can
        write into memory the candidate's kernels read while they run (a60_ninja_shell_relay: a
        ninja shell that ran g++ and linked its folded answer into a memfd a relay kernel spun
        on). An honest candidate runs its compilers to their end inside the call that needs
        them. Seen from outside the sandbox; the first four, named."""
        if len(self.beside_calls) >= 4:
            return
        running = self.running_programs()
        if running:
            self.beside_calls.append(f"{', '.join(running[:3])} when a {self._last_op} request "
                                     f"{when}")

    def programs_beside_calls(self):
        if not self.beside_calls:
            return []
        return [f"a program it started was running beside its forward calls: "
                f"{'; '.join(self.beside_calls)} (seen by the judge): a program can write what "
                f"a kernel reads while it runs"]

    def extra_processes(self):
        """Processes of the candidate's tree besides the candidate process itself, seen from
        outside (bubblewrap's own processes aside): a child it left running."""
        def identity(pid):  # the executable's file, whatever it is called (a carried
            try:            # bubblewrap may run as bwrap.real behind a wrapper script)
                info = os.stat(f"/proc/{pid}/exe")
                return info.st_dev, info.st_ino
            except OSError:
                return None
        sandbox = identity(self.process.pid)
        found = []
        for pid in confinement.descendants(self.process.pid):
            try:
                with open(f"/proc/{pid}/stat") as handle:
                    text = handle.read()
                name = text[text.index("(") + 1:text.rindex(")")]
                started = int(text.rsplit(")", 1)[1].split()[19])
            except (OSError, ValueError, IndexError):
                continue
            if not _is_bubblewrap(pid) and (sandbox is None or identity(pid) != sandbox):
                found.append((started, pid, name))
        found.sort()
        if self.confinement.get("mechanism") == "bwrap":
            return [(pid, name) for _, pid, name in found[1:]]  # the first: the candidate host
        return [(pid, name) for _, pid, name in found if pid != self.process.pid]

    # ---- shared buffers -----------------------------------------------------------------------

    def share(self, nbytes_list):
        """New shared buffers of these sizes, mapped in the candidate process. Returns ids."""
        from kforge_worker.shared_memory import SharedBuffer
        ids, specs, fds = [], [], []
        for nbytes in nbytes_list:
            key = self._next_id
            self._next_id += 1
            buffer = SharedBuffer(self.device, nbytes)
            self.buffers[key] = buffer
            if self.device == "cpu":  # a memfd: held or mapped by the candidate too
                info = os.fstat(buffer.fd)
                self.judge_inodes.add((info.st_dev, info.st_ino))
            self.shared_bytes += buffer.nbytes
            self.peak_shared_bytes = max(self.peak_shared_bytes, self.shared_bytes)
            ids.append(key)
            specs.append({"id": key, "nbytes": buffer.nbytes})
            fds.append(buffer.fd)
        if specs:
            self.request({"op": "map", "buffers": specs}, fds)
        return ids

    def release(self, ids):
        ids = [key for key in ids if key in self.buffers]
        if not ids:
            return
        self.request({"op": "unmap", "ids": ids})
        for key in ids:
            buffer = self.buffers.pop(key)
            self.shared_bytes -= buffer.nbytes
            buffer.close()

    def close(self):
        """Kill the process (and its namespace), keep what it built for its source, remove its
        folders."""
        from kforge_worker.warm_pool import save_slot
        if self.closed:
            return
        self.closed = True
        confinement.kill(self.process)
        # what it wrote just before (a print, then a failing reply) may still be in the pipe
        self._drainer.join(timeout=2)
        if self.monitor is not None:
            self.monitor.close()
        if self.operator_watch is not None:
            self.operator_watch.close()
        for buffer in self.buffers.values():
            try:
                buffer.close()
            except Exception:
                pass
        self.buffers = {}
        if not self.slot_over_limits and self.written_past_limits() is None:
            save_slot(self.host.slot, self.cache)
        self.host.discard()
