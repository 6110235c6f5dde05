"""The candidate process: the only process that runs candidate code (docs/trust.md).

Started by the judge under confinement (confinement.py) as `python -m kforge_worker.candidate_host
FD`, FD being its end of the channel (channel.py). It imports the candidate, builds ModelNew, and
maps inputs to outputs on request; it never sees the task module, the reference, the seeds, the
expected outputs or the verdict. Inputs arrive in shared buffers the judge wrote; outputs are
copied into shared buffers the judge reads (shared_memory.py).

Everything this process reports is untrusted: the judge uses it to explain a verdict (operators
called, launches, kernels, side effects, violations seen by the in-process guard) and checks what
it can from outside (outputs, inputs, the wall clock). The in-process guard (trust.Guard, the
audit hook) is a second line that names what a candidate did; the operating system is the wall.

Requests (judge -> here), each answered with {"ok": true, ...} or {"ok": false, "status",
"error", "location"}:
  seal     {}                          before any candidate code: the exec-notifying seccomp
                                       filter (exec_monitor.py); its listener descriptor goes to
                                       the judge with the reply and is closed here
  setup    {device}                    the process-wide limits and the guard, before any
                                       candidate code (load does it when not yet done)
  load     {candidate, display, shapes, device, reference_name, policy, allow_pytorch_only}
  map      {buffers: [{id, nbytes}]} + one descriptor per buffer
  unmap    {ids}
  build    {args, seed}
  call     {args, outputs, seed}       guarded forward, outputs copied into buffers `outputs`;
                                       the reply's `numerics`: what the call computed in
  time     {trials: [{args, outputs}], warmup, flush, seed, stand_in}   event-timed forwards,
                                       the RNG seeded before each (as for a call); with
                                       `stand_in` [{dtype, shape}] (sent before the candidate
                                       is loaded: the calibration) a forward of ours that
                                       returns new tensors of those shapes; the first `time`
                                       opens the operator recorder's session for the timing
                                       phase (TimedCallWatch), any request but time/map/unmap
                                       closes it: its start falls in the judge's discarded
                                       warm-up block, not in a scored one
  profile  {args}                      one forward under the profiler (GPU)
  finish   {}                          violations, side effects, notes
Arguments are encoded as {"buffer": id, "dtype", "shape"} | {"value": json} | {"list": [...]}."""

import os
import sys
import time
import traceback


def _reply_error(host, status, error, location=None):
    host.send({"ok": False, "status": status, "error": error, "location": location})


class Host:
    def __init__(self, channel):
        self.channel = channel
        self.buffers = {}
        self.files = {}
        self.module = None
        self.model = None
        self.guard = None
        self.device = "cpu"
        self.flush = None
        self.side_effects_before = None
        self.sealed = False
        self.watch = None        # the open TimedCallWatch session (op_time opens it)
        self.timed_watches = []  # closed sessions, read at finish
        self.held = None  # the last checked call's arguments and outputs (op_call)
        self._nonce = None
        self._began = time.monotonic()
        self.startup = {}         # main's start-up steps, seconds each (reported by seal)
        self.ready_at = None      # when it began to wait for its first request

    # ---- helpers ------------------------------------------------------------------------------

    def send(self, message, fds=()):
        """A reply, with the time this process spent on the request (where an evaluation's
        time goes: the judge sums it per op in the result's candidate_ops_s) and the request's
        nonce (a frame written into the channel by anything else does not carry it)."""
        message["took_s"] = round(time.monotonic() - self._began, 4)
        message["nonce"] = self._nonce
        self.channel.send(message, fds)

    def decode(self, spec):
        import torch
        if "buffer" in spec:
            return self.buffers[spec["buffer"]].view(getattr(torch, spec["dtype"]), spec["shape"])
        if "list" in spec:
            return [self.decode(item) for item in spec["list"]]
        return spec.get("value")

    def candidate_failure(self, error, what):
        from kforge_worker.errors import Failure, classify, describe, kernel_location
        if isinstance(error, Failure):
            return error.status, error.message, error.location
        text, location = describe(error, self.files)
        kernel_line = kernel_location(error, self.module, self.files) if self.module else None
        if kernel_line:
            text += f"\n(the error is at {kernel_line})"
        return classify(error), f"failed to {what}:\n{text}", kernel_line or location

    def sync(self):
        if self.device == "cuda":
            import torch
            torch.cuda.synchronize()

    def write_outputs(self, outputs, targets):
        """Describe each output; copy it into its shared buffer when the judge gave one."""
        import torch
        items = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        described = []
        for index, item in enumerate(items):
            if not isinstance(item, torch.Tensor):
                described.append({"type": type(item).__name__})
                continue
            entry = {"type": "tensor", "dtype": str(item.dtype).replace("torch.", ""),
                     "shape": list(item.shape), "device": item.device.type,
                     "subclass": type(item) is not torch.Tensor}
            target = targets[index] if targets and index < len(targets) else None
            if target is not None and item.device.type == self.device:
                buffer = self.buffers[target]
                nbytes = item.numel() * item.element_size()
                if nbytes <= buffer.nbytes:
                    buffer.view(item.dtype, item.shape).copy_(torch.Tensor.as_subclass(
                        item, torch.Tensor) if entry["subclass"] else item)
                    entry["copied"] = True
            described.append(entry)
        return described

    # ---- requests -----------------------------------------------------------------------------

    def op_seal(self, request, fds):
        """Every exec of this process tree goes to the judge from now on (before any candidate
        code runs: the judge sends this first)."""
        from kforge_worker import exec_monitor
        if self.sealed:
            return _reply_error(self, "internal", "already sealed")
        from kforge_worker.confinement import DENIED_SYSCALLS
        # faulthandler's (main) and any other for a crash signal, read before the filter:
        # Triton's compiler saves and restores them around every compile, and the judge lets
        # exactly these be restored
        before_seal = exec_monitor.current_handlers(exec_monitor.CRASH_SIGNALS)
        fd, why = exec_monitor.install(DENIED_SYSCALLS if request.get("deny") else ())
        if request.get("private"):
            # Non-dumpable: a process it forks cannot open this one's /proc/PID/mem (a writer
            # of the output buffers); the judge, outside its user namespace, still can.
            import ctypes
            ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
        self.sealed = True
        startup = {"steps_s": self.startup, "idle_s": None if self.ready_at is None else
                   round(time.monotonic() - self.ready_at, 3)}
        if fd is None:
            return self.send({"ok": True, "exec_monitor": False, "why": why, "startup": startup})
        try:
            self.send({"ok": True, "exec_monitor": True, "startup": startup,
                       "handlers_before_seal": before_seal}, (fd,))
        finally:
            os.close(fd)

    def op_setup(self, request, fds):
        """Everything of op_load but the candidate's import: the judge calibrates the timing
        loop between the two, while the process runs nothing but ours."""
        self.setup(request["device"])
        self.send({"ok": True})

    def setup(self, device):
        import torch
        from kforge_worker import side_effects, trust
        if self.guard is not None:
            return
        self.device = device
        if self.device == "cpu":
            torch.set_num_threads(1)
        # (on a GPU, the threads the harness's own steps start were started in main: warm_up)
        trust.child_setup(os.getcwd())
        self.guard = trust.Guard(None, {})
        self.guard.before_candidate_import()
        self.side_effects_before = side_effects.capture()

    def op_load(self, request, fds):
        from kforge_worker.task_loader import LoadError, load_candidate
        self.setup(request["device"])
        if self.device == "cuda":  # the calibration's stand-in outputs: not the candidate's memory
            import torch
            torch.cuda.empty_cache()
        self.guard.options["allow_pytorch_only"] = request.get("allow_pytorch_only")
        path = request["candidate"]
        self.files[os.path.abspath(path)] = request["display"]
        from kforge_worker import kernel_compiles
        kernel_compiles.record_pristine_classes()  # what Triton's classes hold before its import
        try:
            self.module, self.model_new = load_candidate(path, request["display"])
        except LoadError as error:
            return _reply_error(self, error.status, str(error), error.location)
        reference = type(request.get("reference_name") or "Model", (), {})
        self.guard.after_candidate_import(self.module, reference)
        for name, value in (request.get("shapes") or {}).items():
            setattr(self.module, name, value)
        self.send({"ok": True})

    def op_map(self, request, fds):
        from kforge_worker.shared_memory import SharedBuffer
        for spec, fd in zip(request["buffers"], fds):
            self.buffers[spec["id"]] = SharedBuffer(self.device, spec["nbytes"], fd=fd)
        self.send({"ok": True})

    def op_unmap(self, request, fds):
        for key in request["ids"]:
            buffer = self.buffers.pop(key, None)
            if buffer is not None:
                buffer.close()
        self.send({"ok": True})

    def op_build(self, request, fds):
        from kforge_worker.seeding import seed_all
        from kforge_worker.trust_ops import Policy
        self.guard.use_policy(Policy.from_description(request.get("policy")))
        args = self.decode({"list": request["args"]})
        for name, value in (request.get("shapes") or {}).items():
            setattr(self.module, name, value)
        seed_all(request["seed"])
        try:
            model = self.model_new(*args)
            model = model.to(self.device).eval()
        except BaseException as error:  # SystemExit included: the candidate's fault
            status, text, location = self.candidate_failure(
                error, str(request.get("what") or "build ModelNew"))
            return _reply_error(self, status, text, location)
        self.model = model
        self.guard.check_model(model, None)
        self.send({"ok": True})

    def op_call(self, request, fds):
        import torch
        from kforge_worker.seeding import seed_forward
        args = self.decode({"list": request["args"]})
        seed_forward(request["seed"])  # as before every timed call (timing.time_block)
        try:
            with torch.no_grad():
                outputs = self.guard.call_candidate(self.model, args)
                self.sync()
            described = self.write_outputs(outputs, request.get("outputs"))
            self.sync()
        except BaseException as error:
            status, text, location = self.candidate_failure(error, "run ModelNew.forward")
            return _reply_error(self, status, text, location)
        # The call's objects live until the next request, when the judge has copied the
        # outputs: a finalizer on one of them cannot rewrite a buffer before that copy (red team,
        # session 13: weakref.finalize on the output did, once the harness dropped it).
        self.held = (args, outputs)
        self.send({"ok": True, "outputs": described,
                           "launches": getattr(self.guard, "last_launches", None),
                           "numerics": getattr(self.guard, "last_numerics", None)})

    def op_time(self, request, fds):
        """Event-timed forwards, the judge's own loop (timing.time_block); each trial's outputs
        are copied into its buffers after the trial (outside the events)."""
        import torch
        from kforge_worker import timing
        trials = [(self.decode({"list": t["args"]}), t.get("outputs")) for t in request["trials"]]
        forward = self.model
        if request.get("stand_in"):  # the calibration's forward: new outputs, no work
            shapes = [(getattr(torch, o["dtype"]), o["shape"]) for o in request["stand_in"]]

            def forward(*args):
                return [torch.empty(shape, dtype=dtype, device=self.device)
                        for dtype, shape in shapes]
        cpu = self.device == "cpu"
        if self.flush is None and request.get("flush") and not cpu:
            self.flush = timing.l2_flush_buffer(torch.cuda.current_device())
        described = [None] * len(trials)
        # Timed calls are observed as checked ones are: the operator recorder is on (one session
        # for the timing phase), so the profiler state a forward sees is the same, and what a
        # timed call dispatched meets the policy at finish.
        if self.watch is None:
            self.open_watch(bool(request.get("stand_in")))
        watch = self.watch
        warmup = int(request.get("warmup", 0))
        watch.calls += len(trials) + warmup

        def after(index, outputs):
            watch.after_trial()
            described[index] = self.write_outputs(outputs, trials[index][1])

        host = []
        try:
            samples, _ = timing.time_block(
                [lambda args=args: forward(*args) for args, _ in trials],
                self.flush if request.get("flush") else None, warmup,
                after=after, cpu=cpu, seed=request.get("seed"), host=host)
        except BaseException as error:
            self.close_watch()
            status, text, location = self.candidate_failure(error, "time ModelNew.forward")
            return _reply_error(self, status, text, location)
        self.send({"ok": True, "ms": samples, "outputs": described, "host_ms": host})

    def open_watch(self, stand_in):
        self.watch = TimedCallWatch(None if stand_in else self.guard)
        self.watch.start()

    def close_watch(self):
        """Stops the session (after the reply to the request before: the judge's wall clock
        does not wait for it); its events are read at finish."""
        if self.watch is not None:
            self.watch.close()
            if self.watch.guard is not None:
                self.timed_watches.append(self.watch)
            self.watch = None

    def op_profile(self, request, fds):
        import torch
        from kforge_worker.launches import profile_forward, triton_kernel_names
        args = self.decode({"list": request["args"]})
        try:
            with torch.no_grad():
                launches, kernels = profile_forward(lambda: self.model(*args),
                                                    triton_kernel_names(self.module))
        except BaseException as error:
            status, text, location = self.candidate_failure(error, "profile ModelNew.forward")
            return _reply_error(self, status, text, location)
        self.guard.note_kernels(kernels)
        self.send({"ok": True, "launches": launches, "kernels": kernels})

    def op_finish(self, request, fds):
        from kforge_worker import side_effects
        self.close_watch()
        for watch in self.timed_watches:
            watch.check()
        self.timed_watches = []
        self.guard.checkpoint()
        changed = side_effects.differences(self.side_effects_before, side_effects.capture())
        self.send({"ok": True, "violations": self.guard.violations,
                           "side_effects": changed, "timed_recorder": TimedCallWatch.kind()})

    def serve(self):
        from kforge_worker.channel import ChannelClosed
        while True:
            try:
                request, fds = self.channel.receive()
            except ChannelClosed:
                return
            self._began = time.monotonic()
            self._nonce = request.get("nonce")
            self.held = None  # the previous call's objects (op_call)
            if request.get("op") not in ("time", "map", "unmap"):
                self.close_watch()  # a timing phase ends at any other request
            handler = getattr(self, "op_" + str(request.get("op")), None)
            if handler is None:
                _reply_error(self, "internal", f"unknown op {request.get('op')!r}")
                continue
            self._began = time.monotonic()
            try:
                handler(request, fds)
            except BaseException as error:  # the harness side of this process failing
                from kforge_worker.errors import Failure
                if isinstance(error, Failure):
                    _reply_error(self, error.status, error.message, error.location)
                    continue
                _reply_error(self, "internal",
                             "candidate process error:\n" + traceback.format_exc()[-4000:])


class TimedCallWatch:
    """An operator recorder (trust_ops.NameRecorder: the operators' names, from the legacy
    profiler, which adds no CUPTI callback to the launches and event records inside the timed
    window as a Kineto session does) on over a whole timing phase: every timed call runs with
    the profiler on and its operators recorded, as a checked call does (a34: a candidate that
    switched to torch.softmax whenever the profiler was off, at addresses it had not seen, or at
    timing pace, ended ok; one that tells the legacy profiler from Kineto's is recorded by
    either). `check` (at finish) puts what the timed calls dispatched through the
    guard's policy and asks that they computed with the operators the checked calls did. A
    candidate that stops the recorder inside a call is named. The session must be live through
    every trial: after each one (outside the events) the harness records a scope under a name
    drawn for the session, and finds all of them at the end; a candidate that switched the
    collection off while the profiler still reports itself on, or stopped the session and
    opened one of its own, loses some (blind red team, session 18)."""

    def __init__(self, guard):
        import secrets
        from kforge_worker import timed_recorder
        self.guard = guard
        self.marker = f"kforge-timed-{secrets.token_hex(8)}"
        self.recorder = timed_recorder.recorder(self.marker)
        self.open = False
        self.stopped = False
        self.calls = 0
        self.marks = 0

    @staticmethod
    def kind():
        from kforge_worker import timed_recorder
        return timed_recorder.recorder("").kind

    def start(self):
        self.recorder.start()
        self.open = True

    def close(self):
        if not self.open:
            return
        self.open = False
        try:
            self.recorder.stop()
        except RuntimeError:  # the profiler it started is no longer running
            self.stopped = True

    def after_trial(self):
        import torch
        if not self.recorder.running():
            self.stopped = True
            return
        with torch.autograd.profiler.record_function(self.marker):
            pass
        self.marks += 1

    def check(self):
        if self.guard is None or not self.calls:
            return
        if self.stopped:
            self.guard.note_timed(["stopped the operator recording"])
            return
        self.recorder.read()
        if self.recorder.marked != self.marks:
            self.guard.note_timed([f"stopped the operator recording (it recorded "
                                   f"{self.recorder.marked} of the harness's {self.marks} marks "
                                   f"between timed calls)"])
            return
        self.guard.check_timed(self.recorder)


def _seconds_since_exec():
    """This process's age (bubblewrap's exec of Python, the interpreter's start, the imports
    up to main), from /proc's start time in clock ticks since boot."""
    try:
        with open("/proc/self/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")
        return round(time.clock_gettime(time.CLOCK_BOOTTIME) - started, 3)
    except (OSError, ValueError, IndexError):
        return None


def main(argv):
    import faulthandler
    from kforge_worker.channel import Channel
    faulthandler.enable(file=sys.stderr)  # a segfault leaves its Python stack in the output
    channel = Channel.from_fd(int(argv[0]))
    # Where the start-up's seconds go (reported with the seal, evaluate.start_candidate): a
    # warm process that is not ready when its evaluation comes makes the evaluation wait.
    startup = {"exec to main": _seconds_since_exec()}
    began = time.monotonic()
    # the import and CUDA start-up costs are paid before the first request (warm_pool)
    import torch
    import triton  # noqa: F401
    # importing it records triton.language's originals before any candidate kernel runs
    from kforge_worker import kernel_compiles  # noqa: F401
    from kforge_worker import timed_recorder
    timed_recorder.load()  # the timed calls' recorder the worker built, if it could
    startup["imports"] = round(time.monotonic() - began, 3)
    device = argv[1] if len(argv) > 1 else "cpu"
    if device == "cuda":
        began = time.monotonic()
        torch.cuda.init()
        torch.empty(1, device="cuda")
        startup["CUDA context"] = round(time.monotonic() - began, 3)
    # the harness's first steps, before any candidate is waiting on them and before its import
    # can start threads of its own (warm_up.py)
    from kforge_worker import warm_up
    startup.update(warm_up.warm_up(device))
    if os.environ.get("TRITON_INTERPRET") == "1":
        from kforge_worker import interpreter_compat
        interpreter_compat.install()
    began = time.monotonic()
    from kforge_worker import trust
    trust.import_ahead()
    startup["own modules"] = round(time.monotonic() - began, 3)
    host = Host(channel)
    host.startup = startup
    host.ready_at = time.monotonic()
    host.serve()
    sys.stdout.flush()
    os._exit(0)  # no interpreter or CUDA teardown: a poisoned context can hang it


if __name__ == "__main__":
    main(sys.argv[1:])
