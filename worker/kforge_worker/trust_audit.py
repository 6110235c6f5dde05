"""The sandboxed child's audit policy: a `sys.addaudithook` hook that refuses what a kernel has no
business doing (spawning programs, the network, writing outside its scratch directory, signalling
other processes, reading the harness's objects through `gc` or frames, tracing, swapping a
function's code) and records each refusal as a violation, which the Guard turns into status
"rejected".

Audit hooks cannot be removed once installed, so a candidate cannot switch this off from Python.
They do not see native code (ctypes, a compiled extension): that is contained by the process
boundary, the rlimits and the wall-clock kill, not by this hook. See docs/trust.md."""

import os
import re
import shutil
import sys
import threading

# Process-wide: every refusal, in order. The Guard reports it; it is never cleared.
violations = []

_state = {
    "installed": False,
    "scratch": None,            # real path: a .py file at its top level is the candidate's copy
    "write_roots": [],          # real paths under which the child may create or change files
    "candidate_files": set(),   # real paths of candidate sources: attribution of frames
    "candidate_modules": set(),  # module names of candidates: objects they may patch freely
    "candidate_codes": {},      # id -> code object: code the candidate compiled or exec'd
    "candidate_code_keys": set(),  # (bytecode, filename, name) of code objects it built
    "known_threads": set(),     # threads alive before any candidate code ran
}
_local = threading.local()

# Programs Triton and torch run while compiling: Triton builds its launcher stub with the C
# compiler (triton/runtime/build.py), finds libcuda with /sbin/ldconfig (backends/nvidia/
# driver.py) and runs ptxas/cuobjdump/nvdisasm from its package or TRITON_*_PATH (knobs.py,
# backends/nvidia/compiler.py); torch.utils.cpp_extension runs ninja, c++ and nvcc; Triton's
# platform_key() calls platform.architecture(), which runs `file -b <python>` (runtime/build.py).
_ALLOWED_PROGRAM = re.compile(
    r"^((x86_64|aarch64)-linux-gnu-)?(cc|c\+\+|gcc|g\+\+|clang|clang\+\+)(-[0-9.]+)?$"
    r"|^(ldconfig(\.real)?|nvcc|ptxas(-blackwell)?|cuobjdump|nvdisasm|ninja|cicc|fatbinary"
    r"|nvlink|file)$")
_OWN_FILES = {__file__, os.path.realpath(__file__)}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


def record(reason):
    """Adds a violation once (a candidate that forks in a loop gives one line, not thousands)."""
    if reason not in violations:
        violations.append(reason)


def install(scratch_dir):
    """Installs the hook (once per process) and allows writes under `scratch_dir`."""
    _state["scratch"] = os.path.realpath(scratch_dir)
    allow_write(scratch_dir)
    for path in _cache_dirs():
        allow_write(path)
    for path in (_triton_caches()[:1] + [extension_root()]):
        try:  # created now, by the harness: os.makedirs under the policy would need the parents
            if path:
                os.makedirs(path, exist_ok=True)
        except OSError:
            pass
    allow_write(os.devnull)  # subprocess.DEVNULL opens it read-write
    _refused_class()  # resolved now, not from inside the hook
    _state["known_threads"] = {thread.ident for thread in threading.enumerate()}
    if not _state["installed"]:
        _guard_signal_handlers()
        sys.addaudithook(_hook)
        _state["installed"] = True


def _guard_signal_handlers():
    """A Python signal handler is called with the frame the main thread was running when the
    signal came: from there f_back and f_locals reach the harness's objects, with no audit event
    on the way. Python has no audit event for installing one either, so `signal.signal` (and
    `_signal.signal` under it) are wrapped before any candidate code runs: candidate code may not
    install a handler (a kernel has no use for one)."""
    import _signal
    import signal as signal_module
    original = _signal.signal

    def by_candidate():
        busy = getattr(_local, "busy", False)
        _local.busy = True  # our own stack walk is no frame access
        try:
            return _candidate_on_stack() or _new_thread()
        finally:
            _local.busy = busy

    def guarded(signalnum, handler):
        if by_candidate():
            reason = f"installed a signal handler (signal {int(signalnum)}: a handler receives " \
                     f"the harness's frames)"
            record(reason)
            raise refusal(reason)
        return original(signalnum, handler)

    guarded.__wrapped__ = original
    _signal.signal = guarded
    signal_module._signal.signal = guarded
    python_level = signal_module.signal

    def guarded_module(signalnum, handler):
        if by_candidate():
            return guarded(signalnum, handler)
        return python_level(signalnum, handler)

    guarded_module.__wrapped__ = python_level
    signal_module.signal = guarded_module


def allow_write(path):
    """Lets the child create and change files under `path` (the harness may add its own)."""
    if path:
        real = os.path.realpath(path)
        if real not in _state["write_roots"]:
            _state["write_roots"].append(real)


def add_candidate(path, module_name):
    """Marks the candidate's source file and module: frames from it are the candidate's doing."""
    if path:
        _state["candidate_files"].add(os.path.realpath(path))
        _state["candidate_files"].add(path)
    if module_name:
        _state["candidate_modules"].add(module_name)


def _cache_dirs():
    """Compiler caches the child legitimately writes: Triton's, Inductor's, and torch's
    extension build root (load_inline / cpp_extension.load for CUDA C++ candidates)."""
    return [d for d in (os.environ.get("TORCHINDUCTOR_CACHE_DIR"),
                        os.environ.get("TRITON_CACHE_DIR"), *_triton_caches(),
                        extension_root()) if d]


def _triton_caches():
    try:
        from triton import knobs
        return [knobs.cache.dir, knobs.cache.dump_dir, knobs.cache.override_dir]
    except Exception:  # an older or absent Triton: nothing more to allow
        return []


def extension_root():
    """Where torch.utils.cpp_extension builds (its _get_build_directory, without importing it)."""
    root = os.environ.get("TORCH_EXTENSIONS_DIR")
    if root:
        return root
    try:
        import torch._appdirs
        return os.path.realpath(torch._appdirs.user_cache_dir(appname="torch_extensions"))
    except Exception:
        return None


# ---- the hook -------------------------------------------------------------------------------

def _hook(event, args):
    handler = _HANDLERS.get(event)
    if handler is None or getattr(_local, "busy", False):
        return
    _local.busy = True  # the handlers below raise audit events themselves (sys._getframe)
    try:
        reason = handler(args)
    finally:
        _local.busy = False
    if reason:
        record(reason)
        raise refusal(reason)


def refusal(reason):
    """The exception a refused operation raises: a PermissionError to the candidate, and to the
    harness a Failure with status "rejected" (so a candidate that does not catch it is rejected,
    not reported as a runtime error)."""
    return _refused_class()(reason)


def _refused_class():
    if "class" not in _state:
        try:
            from kforge_worker.errors import Failure
        except ImportError:  # used outside the worker (unit tests of this module alone)
            Failure = None

        class Refused(PermissionError):
            def __init__(self, reason):
                PermissionError.__init__(self, f"kforge sandbox: {reason}")
                self.status, self.message, self.location = "rejected", str(self), None
                self.reasons = []  # the Guard reports the violation itself

        if Failure is not None:
            Refused = type("Refused", (Refused, Failure), {})
        _state["class"] = Refused
    return _state["class"]


def _caller(skip_modules=()):
    """The first frame outside this module (and outside `skip_modules`' files)."""
    frame = sys._getframe(2)
    while frame is not None and (frame.f_code.co_filename in _OWN_FILES or
                                 os.path.basename(frame.f_code.co_filename) in skip_modules):
        frame = frame.f_back
    return frame


def _is_candidate(frame):
    """Candidate code: a registered candidate file, any file under the scratch directory or
    another directory the candidate can write (where the harness puts the candidate's copy, and
    where a helper module of its own would be), or a code object the candidate compiled, exec'd
    or built itself (whatever file name it claims)."""
    if frame is None:
        return False
    code = frame.f_code
    return (id(code) in _state["candidate_codes"] or is_candidate_file(code.co_filename)
            or (_state["candidate_code_keys"] and (code.co_code, code.co_filename, code.co_name)
                in _state["candidate_code_keys"]))


def is_candidate_file(filename):
    if filename in _state["candidate_files"]:
        return True
    if _state["scratch"] is None or not filename or filename.startswith("<"):
        return False
    for root in [_state["scratch"]] + _state["write_roots"]:
        if filename.startswith(root.rstrip(os.sep) + os.sep) and root != os.path.realpath(
                os.devnull):
            return True
    return False


def _mark_code(code, depth=0):
    """A code object (and the functions defined in it) as the candidate's."""
    if depth > 50 or id(code) in _state["candidate_codes"]:
        return
    _state["candidate_codes"][id(code)] = code  # kept alive: ids stay unique
    for constant in code.co_consts:
        if hasattr(constant, "co_code"):
            _mark_code(constant, depth + 1)


def _new_thread():
    return threading.get_ident() not in _state["known_threads"]


def _candidate_on_stack():
    frame = sys._getframe(2)
    while frame is not None:
        if _is_candidate(frame):
            return True
        frame = frame.f_back
    return False


def _program(path):
    path = os.fsdecode(path)
    resolved = path if os.sep in path else (shutil.which(path) or path)
    return [os.path.basename(path), os.path.basename(os.path.realpath(resolved)), resolved]


def _check_program(path):
    names = _program(path)
    if not _outside(names[2]):  # a program the child could have written itself
        return f"tried to run a program from a writable directory: {os.fsdecode(path)}"
    triton_dir = _triton_dir()
    if any(_ALLOWED_PROGRAM.match(name) for name in names[:2]):
        return None
    if triton_dir and os.path.realpath(names[2]).startswith(triton_dir + os.sep):
        return None
    return f"tried to run a program: {os.fsdecode(path)}"


def _triton_dir():
    module = sys.modules.get("triton")
    file = getattr(module, "__file__", None)
    return os.path.dirname(os.path.realpath(file)) if file else None


def _spawn(args):
    executable, argv = args[0], args[1]
    if executable is None and argv:
        executable = argv[0] if isinstance(argv, (list, tuple)) else str(argv).split()[0]
    return _check_program(executable) if executable is not None else "tried to run a program"


def _outside(path):
    if isinstance(path, int):  # an already open descriptor
        return None
    path = os.path.realpath(os.fsdecode(path))
    for root in _state["write_roots"]:
        if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
            return None
    return path


def _open(args):
    path, mode, flags = args
    writing = (any(c in mode for c in "wax+") if isinstance(mode, str)
               else bool((flags or 0) & _WRITE_FLAGS))
    if writing and path is not None and _outside(path):
        return f"tried to write outside its scratch directory: {_outside(path)}"
    return None


def _change(*indices):
    def check(args):
        for index in indices:
            path = args[index] if index < len(args) else None
            if path is not None and _outside(path):
                return f"tried to change a file outside its scratch directory: {_outside(path)}"
        return None
    return check


def _kill(args):
    pid = args[0]
    if pid != os.getpid():
        return f"tried to signal another process (pid {pid})"
    return None


def _when_candidate(reason):
    """Refused when any candidate frame is on the stack (libraries may do it for themselves),
    or in a thread started after the candidate's import began (a candidate's thread running
    library callables only, e.g. iter(gc.get_objects, None), has no candidate frame)."""
    return lambda args: reason if _candidate_on_stack() or _new_thread() else None


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

_PYTHON_API = re.compile(r"^_?Py(?!Init_)[A-Z_]")  # (PyInit_x: an extension's own entry)


def _python_api(args):
    name = args[1] if len(args) > 1 else None
    name = os.fsdecode(name) if isinstance(name, (str, bytes)) else ""
    if _PYTHON_API.match(name) and (_candidate_on_stack() or _new_thread()):
        return (f"looked up the Python interpreter's own C API through ctypes ({name}): a way "
                f"to its frames and objects below the audit hook")
    return None


def _raw_read(how):
    """A read of memory at a raw address (`how`) with candidate code on the stack, unless the
    harness's own code reads (provenance.py's snapshots of tensor memory)."""
    refuse = _when_candidate(f"read memory at a raw address through ctypes ({how})")

    def handler(args):
        caller = _caller()
        if caller is not None and os.path.dirname(caller.f_code.co_filename) == _PACKAGE_DIR \
                and not _is_candidate(caller):  # (a code object the candidate compiled under
            return None                         # a name of ours is the candidate's)
        return refuse(args)
    return handler


# A library function that only hands a frame back to its caller (logging.currentframe is
# `lambda: sys._getframe(1)` in logging's file): called by candidate code, it is the candidate
# asking. Library code that uses a frame for itself (torch.library recording where an operator
# was registered, namedtuple reading its caller's module name) stays allowed.
_FRAME_PROXIES = ("<lambda>", "currentframe", "_getframe", "getframe", "get_frame")


def _frame_access(args):
    # A direct call from candidate code, or through inspect or traceback (currentframe, stack,
    # walk_stack): helpers that hand frames back to their caller.
    requester = _caller(skip_modules=("inspect.py", "traceback.py"))
    if _is_candidate(requester):
        return "inspected the caller's frames (sys._getframe / inspect)"
    if requester is not None and requester.f_code.co_name in _FRAME_PROXIES and \
            _is_candidate(requester.f_back):
        where = os.path.basename(requester.f_code.co_filename)
        return f"inspected the caller's frames (through {where}: {requester.f_code.co_name})"
    return None


def _compile(args):
    """Code compiled while candidate code runs, under the name of an existing file it cannot
    write, must be that file's own text (the import system's case): otherwise the file name is a
    disguise (frames of that code would pass for the library's)."""
    source, filename = args[0], args[1]
    if not isinstance(filename, (str, bytes)) or not _candidate_on_stack():
        return None
    name = os.fsdecode(filename)
    if name.startswith("<") or not os.path.isfile(name) or not _outside(name):
        return None
    if isinstance(source, str):
        source = source.encode("utf-8", "surrogateescape")
    try:
        with open(name, "rb") as handle:
            same = isinstance(source, bytes) and handle.read() == source
    except OSError:
        same = False
    return None if same else f"compiled code under the name of another file ({name})"


def _exec(args):
    """Code run by exec/eval (or an import) while candidate code runs: the candidate's own when
    it has no file of its own (a string, a made-up name) or its file is one it could write."""
    code = args[0] if args else None
    if not hasattr(code, "co_filename") or not _candidate_on_stack():
        return None
    name = code.co_filename
    if name.startswith("<") or not os.path.isfile(name) or is_candidate_file(name):
        _mark_code(code)
    return None


def _code_new(args):
    """A code object built by the candidate (types.CodeType, code.replace): remembered by its
    bytecode and names, so its frames are the candidate's whatever file name it claims."""
    if len(args) >= 3 and _candidate_on_stack():
        _state["candidate_code_keys"].add((args[0], args[1], args[2]))
    return None


def _owned_by_candidate(module_name):
    if module_name in _state["candidate_modules"]:
        return True
    module = sys.modules.get(module_name) if isinstance(module_name, str) else None
    filename = getattr(module, "__file__", None)
    return bool(filename) and (filename in _state["candidate_files"] or (
        _state["scratch"] is not None and os.path.dirname(filename) == _state["scratch"]))


def _getattr(args):
    if args[1] in ("tb_frame", "gi_frame", "cr_frame", "ag_frame") and _is_candidate(_caller()):
        return f"inspected the caller's frames (.{args[1]})"
    return None


def _setattr(args):
    """Swapping the code or defaults of a function the candidate does not own (the only
    attribute writes Python audits; class and module patches are the Guard's snapshot's job)."""
    target, name = args[0], args[1]
    if not _is_candidate(_caller()):
        return None
    owner = getattr(target, "__module__", None)
    if _owned_by_candidate(owner):
        return None
    label = getattr(target, "__qualname__", None) or type(target).__name__
    return f"patched {owner}.{label}.{name}" if owner else f"patched {label}.{name}"


_HANDLERS = {
    "os.fork": lambda args: "tried to fork",
    "os.forkpty": lambda args: "tried to fork",
    "os.system": lambda args: f"tried to run a shell command: {os.fsdecode(args[0])[:80]}",
    "pty.spawn": lambda args: "tried to spawn a terminal",
    "os.exec": lambda args: _check_program(args[0]),
    "os.spawn": lambda args: _check_program(args[1]),
    "os.posix_spawn": lambda args: _check_program(args[0]),
    "subprocess.Popen": _spawn,
    "os.kill": _kill,
    "os.killpg": lambda args: f"tried to signal a process group ({args[0]})",
    "socket.connect": lambda args: f"tried to use the network: connect to {args[1]!r}",
    "socket.bind": lambda args: f"tried to use the network: listen at {args[1]!r}",
    "socket.sendto": lambda args: f"tried to use the network: send to {args[1]!r}",
    "socket.sendmsg": lambda args: "tried to use the network: sendmsg",
    "socket.getaddrinfo": lambda args: f"tried to use the network: resolve {args[0]!r}",
    "socket.gethostbyname": lambda args: f"tried to use the network: resolve {args[0]!r}",
    "socket.gethostbyaddr": lambda args: f"tried to use the network: resolve {args[0]!r}",
    "open": _open,
    "os.remove": _change(0),
    "os.rename": _change(0, 1),
    "os.replace": _change(0, 1),
    "os.rmdir": _change(0),
    "os.mkdir": _change(0),
    "os.chmod": _change(0),
    "os.chown": _change(0),
    "os.link": _change(1),
    "os.symlink": _change(1),
    "os.truncate": _change(0),
    "os.utime": _change(0),
    "shutil.rmtree": _change(0),
    "gc.get_objects": _when_candidate("read the interpreter's objects (gc.get_objects)"),
    "gc.get_referrers": _when_candidate("read the interpreter's objects (gc.get_referrers)"),
    "gc.get_referents": _when_candidate("read the interpreter's objects (gc.get_referents)"),
    "sys.settrace": _when_candidate("installed a trace function (sys.settrace)"),
    "sys.setprofile": _when_candidate("installed a profile function (sys.setprofile)"),
    # PEP 669 (Python 3.12+): a callback sees every return value, and one that empties the list
    # of reasons a harness check returns changes the verdict without touching a frame (a71)
    "sys.monitoring.register_callback": _when_candidate(
        "installed a monitoring callback (sys.monitoring)"),
    "sys._current_frames": _when_candidate("inspected other threads' frames"),
    "sys.addaudithook": _when_candidate("installed an audit hook"),
    "resource.setrlimit": _when_candidate("changed its resource limits"),
    # Raw reads of memory at an address (tensor data outside any operator: a NumPy or Python
    # computation on the inputs, blind red team session 9); a kernel has no use for them.
    "ctypes.cdata": _raw_read("from_address"),
    "ctypes.string_at": _raw_read("string_at"),
    "ctypes.wstring_at": _raw_read("wstring_at"),
    "resource.prlimit": _when_candidate("changed its resource limits"),
    # The interpreter's own C API through ctypes (ctypes.pythonapi.PyEval_GetFrame hands back
    # the caller's frames, the harness's locals among them, with no sys._getframe: session 31)
    "ctypes.dlsym": _python_api,
    "sys._getframe": _frame_access,
    "compile": _compile,
    "exec": _exec,
    "code.__new__": _code_new,
    "sqlite3.connect": lambda args: (f"tried to open a database outside its scratch directory: "
                                     f"{_outside(args[0])}") if isinstance(args[0], (str, bytes))
    and not os.fsdecode(args[0]).startswith(":") and _outside(args[0]) else None,
    "object.__getattr__": _getattr,
    "object.__setattr__": _setattr,
    "object.__delattr__": _setattr,
}


def called_by_candidate(depth=1):
    """True when the frame `depth` levels above the caller of this function is candidate code.
    For checks made outside the hook (a module's __setattr__), without tripping the hook."""
    busy = getattr(_local, "busy", False)
    _local.busy = True
    try:
        frame = sys._getframe(depth + 1)
        return _is_candidate(frame)
    except ValueError:
        return False
    finally:
        _local.busy = busy


# torch's functions that hand what they read off a mode stack (or pop from it) to their caller:
# a request made through one of them is its caller's. Comprehensions are their function's
# (Python 3.11 gives them frames of their own).
_MODE_PROXIES = frozenset((
    "_get_current_dispatch_mode", "_get_current_dispatch_mode_stack", "_pop_mode",
    "_pop_mode_temporarily", "_disable_current_modes", "_get_current_function_mode",
    "_get_current_function_mode_stack", "get_torch_function_mode_stack",
    "get_torch_function_mode_stack_at", "clear_torch_function_mode_stack",
    "set_torch_function_mode_stack", "__exit__"))
_COMPREHENSIONS = frozenset(("<listcomp>", "<genexpr>", "<dictcomp>", "<setcomp>"))
_CONTEXT_MANAGER = frozenset(("__enter__", "__exit__", "helper"))


def _torch_dir():
    torch = sys.modules.get("torch")
    path = getattr(torch, "__file__", None)
    return os.path.dirname(os.path.realpath(path)) + os.sep if path else None


def asks_for_harness_modes(name, skip_files):
    """Whether the call of torch's mode-stack function `name` that just handed back (or popped)
    one of the harness's modes was made for candidate code (blind red team, session 30: the live
    Provenance found through `_get_current_dispatch_mode_stack()` and its findings cleared).
    The caller is the first frame outside `skip_files` (the wrapper's). Walking up through
    torch's functions that only pass modes on (_MODE_PROXIES, contextlib's frames), the request
    is torch's own where a torch function that names what it called (dynamo saving the function
    modes, a mode's __exit__), the harness's where a frame of this package asked; otherwise
    (candidate code, a library function calling what it was given, torch's tree_map among them)
    it is the candidate's whenever candidate code is on the stack or the thread is the
    candidate's."""
    busy = getattr(_local, "busy", False)
    _local.busy = True
    try:
        torch_dir = _torch_dir()
        frame = sys._getframe(1)
        while frame is not None and (frame.f_code.co_filename in _OWN_FILES or
                                     frame.f_code.co_filename in skip_files):
            frame = frame.f_back
        while frame is not None:
            if _is_candidate(frame):
                return True
            code = frame.f_code
            where = code.co_filename
            if where.startswith(_PACKAGE_DIR + os.sep):
                return False  # the harness entering and leaving its own modes
            if torch_dir and where.startswith(torch_dir):
                if code.co_name in _MODE_PROXIES:
                    name = code.co_name
                elif code.co_name not in _COMPREHENSIONS:
                    if name in code.co_names:
                        return False  # torch's own use of what it names
                    break
            elif not (os.path.basename(where) == "contextlib.py" and
                      code.co_name in _CONTEXT_MANAGER):
                break
            frame = frame.f_back
        while frame is not None:
            if _is_candidate(frame):
                return True
            frame = frame.f_back
        return _new_thread()
    finally:
        _local.busy = busy


def called_from_candidate(skip_files):
    """Whether the first frame outside this module and `skip_files` (a wrapper's) is candidate
    code, or runs in a thread the candidate started."""
    busy = getattr(_local, "busy", False)
    _local.busy = True
    try:
        frame = sys._getframe(1)
        while frame is not None and (frame.f_code.co_filename in _OWN_FILES or
                                     frame.f_code.co_filename in skip_files):
            frame = frame.f_back
        if _is_candidate(frame):
            return True
        where = frame.f_code.co_filename if frame is not None else ""
        torch_dir = _torch_dir()
        ours = where.startswith(_PACKAGE_DIR + os.sep) or bool(torch_dir and
                                                                where.startswith(torch_dir))
        return _new_thread() and not ours  # (a candidate's thread running library callables)
    finally:
        _local.busy = busy


def candidate_on_stack():
    """True when candidate code is anywhere on the caller's stack, or the caller runs in a thread
    started after the candidate's import (as `_when_candidate`), without tripping the hook."""
    busy = getattr(_local, "busy", False)
    _local.busy = True
    try:
        return _candidate_on_stack() or _new_thread()
    finally:
        _local.busy = busy
