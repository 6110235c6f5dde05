"""Frame-evaluation callbacks (PEP 523) never see the harness's own frames.

torch exposes CPython's frame-evaluation hook as `torch._C._dynamo.eval_frame.set_eval_frame`:
the callback it installs is asked, at the start of every Python frame of the thread, which code
to run in its place. Dynamo uses it for torch.compile, which candidates may use. A candidate can
use it too (blind red team, session 27, a69_eval_frame_code_swap): at import it installed a
callback that ran a stand-in returning [] whenever the harness's operator-policy checks started,
and torch.softmax plus a copy kernel ended `ok`, with no function object changed and no audit
event.

So every callable callback is installed behind a filter: frames whose code comes from the
harness, or from torch's Python that the harness's recorders run through (torch function and
dispatch modes, operator overloads, the profiler), are run as written and never reach the
callback; every other frame goes to it unchanged, so torch.compile works as before. Callers get
back what they installed, never the filter, so dynamo's save-and-restore round trips.

The filter holds its state in a tuple bound to a module-level function (a bound method: neither
`__self__` nor `__func__` can be reassigned, a tuple cannot change, the function reads no
globals, and the answer it gives is made afresh each time), not in closure cells, which Python lets any code rewrite (`cell.cell_contents = x`).
The original setter is kept as a local of a suspended generator, reachable only through its
gi_frame, which the audit hook refuses to candidate code."""

import os
import sys
import threading
import types

_HARNESS = os.path.dirname(os.path.abspath(__file__)) + os.sep
# torch's Python on the harness's recording paths, relative to torch's folder
_TORCH_PROTECTED = ("overrides.py", "utils/_python_dispatch.py", "_ops.py", "autograd/profiler.py",
                    "autograd/profiler_util.py", "profiler" + os.sep)


def install():
    """Wraps torch._C._dynamo.eval_frame.set_eval_frame before any candidate code runs (and
    before torch._dynamo, which imports the setter by name, is imported)."""
    import torch
    frames = getattr(getattr(torch._C, "_dynamo", None), "eval_frame", None)
    original = getattr(frames, "set_eval_frame", None)
    strategy, action = (getattr(frames, "_FrameExecStrategy", None),
                        getattr(frames, "_FrameAction", None))
    if original is None or strategy is None or action is None \
            or getattr(original, "_kforge_wrapped", False):
        return
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    protected = (_HARNESS,) + tuple(torch_dir + path for path in _TORCH_PROTECTED)
    holders = [module for module in list(sys.modules.values())  # (no module __getattr__ run)
               if isinstance(module, types.ModuleType) and module is not frames
               and str(getattr(module, "__name__", "")).startswith("torch")
               and any(value is original for value in list(vars(module).values()))]
    channel = _setter(original, (protected, types.SimpleNamespace, strategy, action.SKIP,
                                 action.DEFAULT))
    next(channel)
    lock = threading.RLock()  # one generator, many threads: sends must not overlap

    def set_eval_frame(callback):
        with lock:
            done, value = channel.send(callback)
        if not done:
            raise value
        return value

    set_eval_frame._kforge_wrapped = True
    set_eval_frame.__module__ = "torch._C._dynamo.eval_frame"
    frames.set_eval_frame = set_eval_frame
    for module in holders:
        for name, value in list(vars(module).items()):
            if value is original:
                setattr(module, name, set_eval_frame)


def _setter(original, rules):
    filters = {}   # id(inner) -> (inner, filter): one filter per callback, so memory stays bounded
    inners = {}    # id(filter) -> (filter, inner)
    callback = yield
    while True:
        try:
            if callable(callback):
                known = inners.get(id(callback))
                if known is not None and known[0] is callback:   # a filter handed back: as is
                    pass
                else:
                    entry = filters.get(id(callback))
                    if entry is None or entry[0] is not callback:
                        entry = (callback, types.MethodType(
                            _filtered, (callback,) + rules))
                        filters[id(callback)] = entry
                        inners[id(entry[1])] = (entry[1], callback)
                    callback = entry[1]
            prior = original(callback)
            known = inners.get(id(prior))
            result = (True, known[1] if known is not None and known[0] is prior else prior)
        except BaseException as error:  # handed to the caller, the generator lives on
            result = (False, error)
        callback = yield result


def _filtered(state, frame, *rest):
    inner, protected, namespace, strategy, skip, default = state
    if frame.f_code.co_filename.startswith(protected):
        # "run this frame as written, ask again for the frames it calls" (the fields of dynamo's
        # ConvertFrameReturn), made afresh so no one can edit a shared one
        return namespace(frame_exec_strategy=strategy(skip, default), apply_to_code=False,
                         guarded_code=None, skip_reason=None)
    return inner(frame, *rest)


def installed():
    """Whether the setter torch's modules hold is this module's (for tests)."""
    frames = sys.modules.get("torch._C._dynamo.eval_frame")
    return bool(getattr(getattr(frames, "set_eval_frame", None), "_kforge_wrapped", False))
