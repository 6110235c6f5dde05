"""Turning exceptions into statuses and short, located messages fit for a repair prompt.

A repair prompt needs the candidate's own frames (file:line and the source line) and the final
error, not the harness's frames. Files of interest are passed as {actual path: display path}: the
candidate runs from a scratch copy, but the message must name the file the user knows."""

import os
import traceback

MAX_LINES = 60

_TRITON_DIR = None


def _triton_dir():
    global _TRITON_DIR
    if _TRITON_DIR is None:
        import triton
        _TRITON_DIR = os.path.dirname(os.path.abspath(triton.__file__))
    return _TRITON_DIR


class Failure(Exception):
    """A classified candidate failure raised by the harness itself (e.g. wrong output shape)."""

    def __init__(self, status, message, location=None, reasons=None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.location = location
        self.reasons = reasons or []


def trim(text, max_lines=MAX_LINES):
    """Keep the head and the tail of a long text: the cause is usually at one end."""
    lines = text.rstrip("\n").split("\n")
    if len(lines) <= max_lines:
        return "\n".join(lines)
    head = max_lines // 3
    tail = max_lines - head - 1
    return "\n".join(lines[:head] + [f"... ({len(lines) - head - tail} lines omitted) ..."]
                     + lines[-tail:])


def _display(path, files):
    return files.get(os.path.abspath(path), path) if path else path


def syntax_message(error, files):
    """`file:line:col: SyntaxError: msg`, the offending line and a caret. Returns (text, location)."""
    path = _display(error.filename or "<unknown>", files)
    line = error.lineno or 0
    col = error.offset or 0
    text = f"{path}:{line}:{col}: {type(error).__name__}: {error.msg}"
    if error.text:
        source = error.text.rstrip("\n")
        stripped = source.lstrip()
        indent = len(source) - len(stripped)
        text += f"\n    {stripped}"
        if col > 0:
            text += "\n    " + " " * max(0, col - 1 - indent) + "^"
    return text, f"{path}:{line}"


def _chain(error):
    """The exception and its causes, outermost first (the order Python prints them in)."""
    chain = []
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        chain.append(error)
        error = error.__cause__ or (None if error.__suppress_context__ else error.__context__)
    return list(reversed(chain))


def _segments(error):
    """(frames, exception) per printed exception. Triton's interpreter re-raises a kernel's
    error as InterpreterError(repr(cause)) from the launch site; the two are merged into one
    stack (launch site, then the kernel line) ending with the cause's own message."""
    from triton.runtime.errors import InterpreterError
    segments = []
    for link in _chain(error):
        frames = list(traceback.extract_tb(link.__traceback__))
        if isinstance(link, InterpreterError) and segments and link.__cause__ is segments[-1][1]:
            inner_frames, cause = segments.pop()
            segments.append((frames[:-1] + inner_frames, cause))
        else:
            segments.append((frames, link))
    return segments


def describe(error, files):
    """A short traceback that keeps only the frames inside `files` (candidate, task), plus the
    innermost frame when it lies outside the harness (a torch or triton function the candidate
    called), and the final error line of each chained exception. Returns (text, location), where
    location is the deepest `file:line` inside `files` or None."""
    if isinstance(error, SyntaxError) and error.filename and \
            os.path.abspath(error.filename) in files:
        return syntax_message(error, files)
    harness_dir = os.path.dirname(os.path.abspath(__file__))
    lines = []
    location = None
    for frames, link in _segments(error):
        for index, frame in enumerate(frames):
            full = os.path.abspath(frame.filename)
            if full in files:
                path = files[full]
                location = f"{path}:{frame.lineno}"
            elif index == len(frames) - 1 and not full.startswith(harness_dir):
                path = frame.filename
            else:
                continue
            lines.append(f"  File {path}:{frame.lineno}, in {frame.name}")
            if frame.line:
                lines.append(f"    {frame.line.strip()}")
        message = "".join(traceback.format_exception_only(type(link), link)).strip()
        for name, shown in files.items():
            message = message.replace(name, shown)
        lines.append(message)
    note = _layout_note(error)
    if note:
        lines.append(note)
    return trim("\n".join(lines)), location


def _layout_note(error):
    """What a harness error about a tensor layout means for the candidate: the recorders read
    each tensor's memory, and a sparse tensor has no storage they can read (torch.hspmm ended
    `runtime_error` with only "Cannot access storage of SparseTensorImpl")."""
    for link in _chain(error):
        if isinstance(link, NotImplementedError) and "SparseTensorImpl" in str(link):
            return ("(kforge's checks read the memory of every tensor a forward makes, and a "
                    "sparse tensor has none they can read: compute on dense, strided tensors)")
    return None


def kernel_location(error, module, files):
    """`file:line` of the kernel line a GPU CompilationError points at, or None. The error holds
    the kernel's source and a node whose line counts from the `def` line; the candidate's jit
    functions tell which file and line that source starts at."""
    from triton.compiler.errors import CompilationError
    from triton.runtime.jit import KernelInterface, get_jit_fn_file_line
    for link in _chain(error):
        line = getattr(getattr(link, "node", None), "lineno", None)
        if not isinstance(link, CompilationError) or line is None:
            continue
        for value in vars(module).values():
            if isinstance(value, KernelInterface) and getattr(value, "src", None) == link.src:
                path, begin = get_jit_fn_file_line(value)
                shown = files.get(os.path.abspath(path), path)
                return f"{shown}:{begin + line - 1}"
    return None


def _innermost_file(error):
    frames = traceback.extract_tb(error.__traceback__)
    return os.path.abspath(frames[-1].filename) if frames else ""


def is_compile_error(error):
    """True when Triton rejected the kernel source (the GPU compiler's CompilationError family,
    out-of-resources and ptxas failures), or, under TRITON_INTERPRET=1 where there is no compiler,
    when the interpreter's error was raised by Triton's language front end: semantic checks such
    as `arange's arguments must be of type tl.constexpr`, or a `tl.` name that does not exist."""
    from triton.compiler.errors import CompilationError
    from triton.runtime.errors import InterpreterError, OutOfResources, PTXASError
    # Triton's front end, its compiler driver and the backends' compile steps (MLIR passes,
    # ptxas; backends/<gpu>/compiler.py, not driver.py which launches): an error raised there is
    # the kernel source's fault, not the run's.
    front = tuple(os.path.join(_triton_dir(), name) + os.sep for name in ("language", "compiler"))
    backends = os.path.join(_triton_dir(), "backends") + os.sep
    for link in _chain(error):
        if isinstance(link, (CompilationError, OutOfResources, PTXASError)):
            return True
        if isinstance(link, InterpreterError):
            continue
        innermost = _innermost_file(link)
        if innermost.startswith(front) or (innermost.startswith(backends) and
                                           os.path.basename(innermost) == "compiler.py"):
            return True
        if isinstance(link, AttributeError) and "triton.language" in str(link):
            return True
    return False


def classify(error):
    """Status for an exception raised while importing, building or running a candidate."""
    if isinstance(error, Failure):
        return error.status
    if isinstance(error, SyntaxError):
        return "syntax_error"
    if is_compile_error(error):
        return "compile_error"
    return "runtime_error"
