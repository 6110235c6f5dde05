"""Trust: the defences that stop a candidate from faking a result or harming the harness.

CONTRACT between evaluate.py/sandbox.py (harness) and this module (defences). The harness calls,
in this order, inside the sandboxed child:

    child_setup(scratch_dir)                 # once, after torch/triton import, before the candidate
    guard = Guard(task, options)             # options: dict of the evaluate request
    guard.before_candidate_import()
    module = <import candidate>
    guard.after_candidate_import(module, reference_cls)
    model = ModelNew(*init_inputs)
    guard.check_model(model, reference_model)
    outputs = guard.call_candidate(model, inputs)   # every correctness forward goes through this
    ...timing (plain calls, unguarded, so timings are not perturbed)...
    guard.checkpoint()                       # after the timing loop, before reading its events
    guard.after_timing(timing=None)          # timing: the Evaluation's "timing" dict, if any
    guard.violations -> list[str]            # non-empty = status "rejected", reasons = violations

A refused operation raises, inside the candidate, an exception that is both a PermissionError
and the harness's Failure with status "rejected" (trust_audit.refusal), so it is not reported as a
runtime error even when the candidate lets it propagate. Additive: `guard.note_kernels(kernels)`
gives profiler evidence of the candidate's own kernels (the `kernels` list of the result) for
candidates that launch no Triton kernel (CUDA C++).

The defences (docs/trust.md has the table):
- process-wide (child_setup): the audit policy of trust_audit (no programs but the compilers,
  no network, no writes outside the scratch dir and compiler caches, no signals to others, no gc
  or frame reading, no tracing, no swapping a function's code), rlimits (no core files, a
  file-size cap), temporary files in the scratch dir, and watched modules that refuse attribute
  assignment from the candidate;
- the Guard: identity snapshots of the functions the verdict depends on (timers, events,
  comparisons, the worker's own functions), checked after import, around every call and after
  timing; ModelNew may not be or hold the reference Model; each guarded call records the operators
  and modules it calls (trust_ops) and checks its outputs (plain tensors, not aliasing inputs),
  its inputs (unchanged), threads and CUDA streams left running, and that it launched a kernel of
  its own."""

import contextlib
import gc
import importlib
import os
import sys
import tempfile
import threading
import types

from kforge_worker import (dataflow, frame_callbacks, interpreter_compat, numerics, numerics_report, provenance,
                           trust_audit)
from kforge_worker.trust_ops import (AtenRecorder, BitLevelRecorder, ModuleRecorder, OpRecorder,
                                     Policy, compute_class)

FILE_SIZE_LIMIT = 1 << 30       # no file written by the child may exceed 1 GiB
HOST_TIME_SLACK_MS = 0.5        # host time may exceed event time by this, plus the event time

# Modules whose functions the verdict depends on (timers, comparisons, the result's encoding).
_WATCHED_MODULES = ("builtins", "time", "gc", "os", "sys", "threading", "json", "math", "random",
                    "copy", "statistics", "hashlib", "inspect", "traceback", "numpy",
                    "numpy.testing", "numpy.random", "torch", "torch.cuda", "torch.cuda.streams",
                    "torch.nn.functional", "torch.testing", "torch.nn.modules.module",
                    "torch.overrides", "torch.utils._python_dispatch",
                    # what the operator recorders read the profiler's events through (blind red
                    # team, session 28: `_ProfilerResult.events` patched to drop the softmax's)
                    "torch._C._autograd", "torch.autograd.profiler",
                    "torch.autograd.profiler_util", "torch.autograd.profiler_legacy")
_WATCHED_CLASSES = ("torch.Tensor", "torch._C.TensorBase", "torch.cuda.Event", "torch.cuda.Stream",
                    "torch.nn.Module", "torch.overrides.TorchFunctionMode",
                    "torch._C._autograd._ProfilerResult", "torch._C._autograd._KinetoEvent",
                    "torch._C._autograd.ProfilerEvent", "torch.autograd.profiler.profile",
                    "torch.autograd.profiler_util.FunctionEvent",
                    "torch.autograd.profiler_util.EventList")
# Imported before the candidate, so that no import the harness makes later can be served by a
# finder or a sys.modules entry of the candidate's (blind red team, session 28: a sys.meta_path
# finder served a fake numpy.ctypeslib to memory provenance's first use of it)
_IMPORTED_AHEAD = ("numpy.ctypeslib",)
_OWN_PACKAGE = "kforge_worker"

_streams_seen = set()  # (stream_id, device_index, device_type) made current during a call


# ---- process-wide -----------------------------------------------------------------------------

def child_setup(scratch_dir):
    """Process-wide limits for the sandboxed child. Irreversible from Python by design."""
    import resource
    scratch_dir = os.path.realpath(scratch_dir)
    # Temporary files (Triton's launcher build, ptxas inputs) and compiler children stay inside.
    tempfile.tempdir = scratch_dir
    os.environ["TMPDIR"] = scratch_dir
    # Inductor's compile workers are a subprocess pool; one thread compiles in-process instead.
    os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
    for limit, value in ((resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT)):
        soft, hard = resource.getrlimit(limit)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(limit, (value, value))
    # Not RLIMIT_AS: CUDA reserves far more address space than it uses. Not RLIMIT_NPROC: it
    # counts every thread of the user (and root ignores it); the audit policy refuses forks.
    # Host memory is watched by the parent (sandbox.py).
    for name in _IMPORTED_AHEAD:
        importlib.import_module(name)
    trust_audit.install(scratch_dir)
    _record_stream_switches()
    _refuse_record_function_off()
    _guard_mode_stacks()
    _refuse_redispatch()
    _refuse_raw_casts()
    _refuse_torchscript_compilers()
    frame_callbacks.install()
    # The standard modules (_WATCHED_MODULES) are guarded by the identity snapshot only: giving
    # them a class of our own would break Triton, which accepts a module read by a kernel (math,
    # torch) only when `type(value) is ModuleType` (code_generator.global_lookup), and so turn
    # legitimate kernels and Inductor's own into compile errors (seen on the H200).


class _WatchedModule(types.ModuleType):
    """A module that refuses attribute assignment from candidate code (`time.perf_counter = f`).
    Writes through the module's __dict__ escape this, not the Guard's identity snapshot."""

    def __setattr__(self, name, value):
        _refuse_patch(self, name)
        super().__setattr__(name, value)

    def __delattr__(self, name):
        _refuse_patch(self, name)
        super().__delattr__(name)

    # Triton records the globals a kernel reads and deep-copies them unless their type is exactly
    # ModuleType, and Inductor pickles them: a watched module copies to itself and pickles by name,
    # as a plain module is treated.
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return importlib.import_module, (self.__name__,)


def _refuse_patch(module, name):
    if trust_audit.called_by_candidate(depth=2):
        reason = f"patched {module.__name__}.{name}"
        trust_audit.record(reason)
        raise trust_audit.refusal(reason)


def _watch_module(module):
    if module is not None and type(module) is types.ModuleType:
        module.__class__ = _WatchedModule


def _refuse_record_function_off():
    """Candidate code may not silence or end the operator recorder (blind red teams, sessions 8
    and 9): `_enable_record_function(False)` silences it for the thread while the profiler still
    reports itself on; `_disable_profiler` (and the legacy one) ends the harness's session, after
    which a candidate can run the task's operator and open a session of its own for the harness
    to read. No candidate needs either."""
    _refuse_from_candidate("_enable_record_function", lambda enable, *rest: not enable,
                           "switched off PyTorch's operator recording (_enable_record_function)")
    for name in ("_disable_profiler", "_disable_profiler_legacy"):
        _refuse_from_candidate(name, lambda *args: True,
                               f"stopped the harness's operator recording ({name})")
    # switches the active session's collection off while the profiler still reports itself on
    # (blind red team, session 18: then torch.softmax in timed calls went unrecorded)
    _refuse_from_candidate("_toggle_collection_dynamic",
                           lambda enable, *rest: not enable,
                           "switched off PyTorch's operator recording "
                           "(_toggle_collection_dynamic)")


# TorchScript's fusers: each switch turns one on when given a true value
# (not nvfuser's: gone from TorchScript in torch 2.x, its switch only warns)
_FUSER_SWITCHES = ("_jit_override_can_fuse_on_cpu", "_jit_override_can_fuse_on_cpu_legacy",
                   "_jit_override_can_fuse_on_gpu", "_jit_set_texpr_fuser_enabled",
                   "_jit_set_llga_enabled")
# ... and what compiles or runs operators past the dispatcher whatever the switches say: the
# fusers' own graph passes, Static Runtime, NNC's kernel API
_TORCHSCRIPT_COMPILERS = (
    ("torch._C", ("_jit_pass_fuse_tensorexprs", "_jit_pass_fuse", "_jit_pass_llga_fuser",
                  "_jit_pass_convert_frozen_ops_to_mkldnn", "_jit_to_static_module",
                  "_fuse_to_static_module")),
    ("torch._C._te", ("TensorExprKernel", "construct_codegen", "SimpleIREvaluator", "lower")))


def _refuse_torchscript_compilers():
    """TorchScript's fusers (NNC's TensorExpr fuser, on by default for CUDA tensors; oneDNN
    Graph) and Static Runtime run a scripted function's operators as code they generate, or as
    kernels called below the dispatcher: a fused group is one record with no inputs
    ("fused_mul_softmax"), nothing is dispatched and nothing the probes watch is entered. Third
    blind red team, session 36: torch.softmax in a scripted function, fused on the CPU, and a
    Static Runtime module ended `ok` in timed calls. The candidate process turns every fuser off
    before candidate code runs, and candidate code may not turn one on, run a fuser's pass,
    build a Static Runtime module or call NNC's compiler itself. Scripted functions still run,
    operator by operator in TorchScript's interpreter, where every operator is recorded. Where
    a fused group is recorded anyway (a switch reached through ctypes), the policy names it
    (trust_ops.FUSED_GROUP)."""
    import torch
    for name in _FUSER_SWITCHES:
        switch = getattr(torch._C, name, None)
        if switch is None or getattr(switch, "_kforge_wrapped", False):
            continue
        try:
            switch(False)
        except Exception:  # not in this build
            continue
        _refuse_from_candidate(name, lambda *args: bool(args and args[0]),
                               f"turned on a TorchScript fuser ({name}): its fused kernels run "
                               f"no operator the harness records", torch._C)
    for module_name, names in _TORCHSCRIPT_COMPILERS:
        module = sys.modules.get(module_name) or importlib.import_module(module_name)
        for name in names:
            _refuse_from_candidate(name, lambda *args: True,
                                   f"compiled operators with TorchScript ({module_name}.{name}): "
                                   f"code that runs them past the dispatcher, where the harness "
                                   f"records nothing", module)


def _refuse_from_candidate(name, refused, reason, module=None):
    """Wraps `module`.`name` (torch._C._autograd's by default), there and wherever torch holds
    it, so that a call with candidate code anywhere on the stack for which `refused(*args)`
    holds is refused and recorded (torch.jit.fuser, torch.jit.optimize_for_inference: torch's
    code makes the call for it). The original is kept as a local of a suspended generator,
    reachable only through its gi_frame (an access the audit hook refuses to candidate code),
    not a closure cell."""
    import torch
    module = torch._C._autograd if module is None else module
    original = getattr(module, name, None)
    if original is None or getattr(original, "_kforge_wrapped", False):
        return

    def check(*args):
        if refused(*args) and trust_audit.candidate_on_stack():
            raise _recorded_refusal(reason)
        return original(*args)
    wrapper = _wrapper(check, name, module.__name__)
    setattr(module, name, wrapper)  # (torch._C._te is no entry of sys.modules)
    _install_wrapper(name, original, wrapper)


def _guard_mode_stacks():
    """The harness's recorders (provenance, data flow, the dtype report, the operator recorder)
    are modes on torch's dispatch and function mode stacks while a checked call runs, and their
    findings live in them. torch hands the stacks' modes to anyone who asks
    (`_get_current_dispatch_mode_stack()`): a candidate that asks can empty a recorder before
    the Guard reads it (blind red team, session 30: work redispatched below every recorder, then
    provenance's `host_made` cleared; ended ok). Each function that reads or pops a mode stack
    is wrapped wherever torch holds it: handing one of the harness's modes to a request the
    candidate made is refused (`trust_audit.asks_for_harness_modes`), and a popped one is put
    back first. The candidate's own modes, and torch's own uses, stay as they were."""
    import torch
    from kforge_worker.dispatch_mode import HarnessDispatchMode
    push = {"dispatch": torch._C._push_on_torch_dispatch_stack,
            "function": torch._C._push_on_torch_function_stack}
    for name, stack, pops in (("_get_dispatch_stack_at", "dispatch", False),
                              ("_pop_torch_dispatch_stack", "dispatch", True),
                              ("_get_function_stack_at", "function", False),
                              ("_pop_torch_function_stack", "function", True)):
        original = getattr(torch._C, name, None)
        if original is None or getattr(original, "_kforge_wrapped", False):
            continue
        reason = (f"reached the harness's recorders on torch's {stack} mode stack ({name}): "
                  f"the objects that watch its calls")
        check = _mode_check(original, name, push[stack] if pops else None,
                            (HarnessDispatchMode, OpRecorder), reason)
        _install_wrapper(name, original, _wrapper(check, name, "torch._C"))


def _mode_check(original, name, push_back, harness_types, reason):
    """A mode-stack function's call: it runs, and a harness mode it hands to the candidate's
    request is refused (a popped one pushed back first)."""
    skip = {__file__, os.path.realpath(__file__)}

    def check(*args):
        mode = original(*args)
        if issubclass(type(mode), harness_types) and \
                trust_audit.asks_for_harness_modes(name, skip):
            if push_back is not None:
                push_back(mode)
            raise _recorded_refusal(reason)
        return mode
    return check


def _refuse_redispatch():
    """`OpOverload.redispatch`, its handle's `redispatch_boxed` and `OpOverload._op_dk` run an
    operator's kernel below the dispatcher's RecordFunction: no profiler record and no mode
    sees it, so the own-work and volume rules see nothing (blind red teams, sessions 18, 30 and
    31: softmax, GRU, GEMM, convolution and attention computed by redispatched ATen operators
    beside a copy kernel). torch's own Python kernels (custom ops' autograd) call them; a
    candidate has no use for them. Refused where candidate code calls them directly."""
    import torch
    import torch._ops as ops
    reason = ("called an operator below the dispatcher ({name}): its kernel runs where no "
              "profiler or mode records it")

    def guarded(name, original):
        return _wrapper(_from_candidate_refused(original, reason.format(name=name)),
                        name.rsplit(".", 1)[-1])

    if not getattr(ops.OpOverload.redispatch, "_kforge_wrapped", False):
        ops.OpOverload.redispatch = guarded("OpOverload.redispatch", ops.OpOverload.redispatch)
    handle = getattr(torch._C, "_DispatchOperatorHandle", None)
    if handle is not None and not getattr(handle.redispatch_boxed, "_kforge_wrapped", False):
        handle.redispatch_boxed = guarded("redispatch_boxed", handle.redispatch_boxed)
    # _op_dk: each overload holds its own, from torch._C._get_operation_overload
    lookup = torch._C._get_operation_overload
    if not getattr(lookup, "_kforge_wrapped", False):
        def get_operation_overload(*args, **kwargs):
            found = lookup(*args, **kwargs)
            if isinstance(found, tuple) and len(found) >= 2 and callable(found[1]):
                found = (found[0], guarded("OpOverload._op_dk", found[1])) + tuple(found[2:])
            return found
        get_operation_overload._kforge_wrapped = True
        torch._C._get_operation_overload = get_operation_overload
    for namespace in list(vars(torch.ops).values()):
        for packet in list(vars(namespace).values()) if isinstance(namespace, ops._OpNamespace) \
                else []:
            if not isinstance(packet, ops.OpOverloadPacket):
                continue
            for overload in list(vars(packet).values()):
                if isinstance(overload, ops.OpOverload) and \
                        not getattr(overload._op_dk, "_kforge_wrapped", False):
                    overload._op_dk = guarded("OpOverload._op_dk", overload._op_dk)


def _from_candidate_refused(original, reason, extra_skip=(), refused=None):
    """A call of `original` refused when candidate code made it (the first frame outside this
    file and `extra_skip`) and, where given, `refused(*args)` holds."""
    skip = {__file__, os.path.realpath(__file__), *extra_skip}

    def check(*args, **kwargs):
        if (refused is None or refused(*args)) and trust_audit.called_from_candidate(skip):
            raise _recorded_refusal(reason)
        return original(*args, **kwargs)
    return check


def _refuse_raw_casts():
    """`ctypes.cast` of an address (an int, a c_void_p) to a pointer type or to `py_object`
    reads any memory as any type, and turns any address into a Python object, with no audit
    event (only `from_address` and `string_at` raise one): blind red team, session 31, read the
    interpreter's frames above a running generator this way and cleared the recorders found
    in their locals. Refused where candidate code casts a raw address; a pointer cast of a
    ctypes object it made (an array, a buffer) stays. `ctypes.cast` is a Python function over
    `ctypes._cast`: both are wrapped, and the foreign function's address is removed from the
    modules (ctypes read it at import)."""
    import ctypes
    import _ctypes
    original = getattr(ctypes, "_cast", None)
    if original is None or getattr(original, "_kforge_wrapped", False):
        return
    reason = ("made a pointer or an object from a raw address through ctypes (ctypes.cast); a "
              "foreign function takes ctypes.c_void_p(tensor.data_ptr()) as it is")

    def raw(obj, same, typ):
        address = isinstance(obj, int) or isinstance(obj, (ctypes.c_void_p, ctypes.c_size_t,
                                                            ctypes.c_ssize_t))
        target = typ is ctypes.py_object or (isinstance(typ, type) and
                                             issubclass(typ, (ctypes._Pointer, ctypes.c_void_p,
                                                              ctypes.c_char_p)))
        return address and target

    ctypes._cast = _wrapper(_from_candidate_refused(
        original, reason, {os.path.realpath(ctypes.__file__)}, refused=raw), "_cast")
    for module in (ctypes, _ctypes):
        if hasattr(module, "_cast_addr"):
            delattr(module, "_cast_addr")


def _recorded_refusal(reason):
    trust_audit.record(reason)
    return trust_audit.refusal(reason)


def _wrapper(check, name, module_name=None):
    """A function that runs `check` (the original, its test and its reason, in the cells of
    `check`) through a suspended generator, _keeper: the wrapper's only closure cell is the
    generator."""
    channel = _keeper(check)
    next(channel)

    def wrapper(*args, **kwargs):
        done, value = channel.send((args, kwargs))
        if not done:
            raise value
        return value

    wrapper._kforge_wrapped = True
    if module_name:
        wrapper.__module__ = module_name  # torch's, to whoever holds it
    wrapper.__name__ = wrapper.__qualname__ = name
    return wrapper


def _install_wrapper(name, original, wrapper):
    """Puts `wrapper` in place of `original` in every torch module that holds it."""
    holders = [module for module in list(sys.modules.values())  # (no module __getattr__ run)
               if isinstance(module, types.ModuleType)
               and str(getattr(module, "__name__", "")).startswith("torch")
               and vars(module).get(name) is original]
    for module in holders:
        setattr(module, name, wrapper)


def _keeper(check):
    """Every refusal wrapper's generator. `check` (the original, its test and its reason, in its
    own cells) lives here as the generator's local, reachable only through gi_frame, an access
    the audit hook refuses to candidate code. A closure cell of the wrapper is rewritable by any
    code (`wrapper.__closure__[i].cell_contents = ...`), so a
    wrapper whose check lived in a cell could be told to refuse nothing. Candidate code that
    reaches this generator (the wrapper's closure) and sends it arguments calls from its own frame
    and is refused the same (blind red team, session 18:
    `_disable_profiler_legacy.__closure__[0].cell_contents.send(())`)."""
    arguments = yield
    while True:
        try:
            # the wrapper sends (args, kwargs); anything else sent here is taken as the
            # arguments themselves, so that the check still runs on it (a59_refusal_keeper_send)
            args, kwargs = arguments
            if not isinstance(args, tuple) or not isinstance(kwargs, dict):
                raise TypeError
        except (TypeError, ValueError):
            args = tuple(arguments) if isinstance(arguments, (tuple, list)) else (arguments,)
            kwargs = {}
        try:
            result = (True, check(*args, **kwargs))
        except BaseException as error:  # handed to the caller, the generator lives on
            result = (False, error)
        arguments = yield result


def _record_stream_switches():
    """Wrap the one entry point that makes a CUDA stream current (torch.cuda.set_stream and the
    torch.cuda.stream context both end here) to learn which streams a candidate used."""
    import torch
    original = getattr(torch._C, "_cuda_setStream", None)
    if original is None or getattr(original, "_kforge_wrapped", False):
        return

    def set_stream(*args, **kwargs):
        key = kwargs.get("stream_id", args[0] if args else None), \
            kwargs.get("device_index", args[1] if len(args) > 1 else None), \
            kwargs.get("device_type", args[2] if len(args) > 2 else None)
        _streams_seen.add(key)
        return original(*args, **kwargs)

    set_stream._kforge_wrapped = True
    torch._C._cuda_setStream = set_stream


# ---- identity snapshots -----------------------------------------------------------------------

def _resolve(dotted):
    module_name, _, attribute = dotted.rpartition(".")
    module = sys.modules.get(module_name)
    if module is None and module_name == "torch._C":
        module = sys.modules.get("torch")._C
    return getattr(module, attribute, None) if module is not None else None


class Snapshot:
    """Identity of every callable in the watched modules and classes and in the worker's own
    modules, taken before the candidate is imported: per namespace, (name, object, its code)."""

    def __init__(self):
        self.spaces = []  # (label, namespace object, [(name, value, code)], its keys or None)
        # the worker's modules and the watched ones as sys.modules holds them: a lazy import of
        # the harness's resolves there (blind red team, session 28: a look-alike trust_ops
        # whose Policy checks returned nothing, put in sys.modules at import)
        self.entries = {name: module for name, module in list(sys.modules.items())
                        if name in _WATCHED_MODULES or name in _IMPORTED_AHEAD
                        or name == _OWN_PACKAGE or name.startswith(_OWN_PACKAGE + ".")}
        self.finders = list(sys.meta_path), list(sys.path_hooks)
        modules = [sys.modules.get(name) for name in _WATCHED_MODULES]
        modules += [module for name, module in sorted(sys.modules.items())
                    if name == _OWN_PACKAGE or name.startswith(_OWN_PACKAGE + ".")]
        classes = [(name, _resolve(name)) for name in _WATCHED_CLASSES]
        for module in modules:
            if module is None:
                continue
            items = [(name, value) for name, value in list(vars(module).items())
                     if callable(value) and not isinstance(value, types.ModuleType)]
            own = module.__name__.startswith(_OWN_PACKAGE)
            # the worker's own: no new names either (a global `sorted` in trust_ops shadowed the
            # builtin its checks call, written into the module's __dict__: blind red team,
            # session 28)
            self._add(module.__name__, module, items, set(vars(module)) if own else None)
            if own:
                classes += [(f"{module.__name__}.{name}", value) for name, value in items
                            if isinstance(value, type)]
        for label, cls in classes:
            if isinstance(cls, type):
                self._add(label, cls, list(vars(cls).items()), set(vars(cls)))

    def _add(self, label, space, items, keys):
        entries = [(name, value, getattr(value, "__code__", None)) for name, value in items]
        self.spaces.append((label, space, entries, keys))

    def changes(self):
        """Lines naming every watched function replaced, deleted, or added to a watched class or
        one of the worker's modules; a watched module replaced in sys.modules; an import hook
        added."""
        reasons = [f"replaced the module {name} in sys.modules" for name, module in
                   self.entries.items() if sys.modules.get(name) is not module]
        for label, now, before in (("sys.meta_path", sys.meta_path, self.finders[0]),
                                   ("sys.path_hooks", sys.path_hooks, self.finders[1])):
            reasons += [f"installed an import hook ({label}: {type(hook).__name__})"
                        for hook in now if not any(hook is seen for seen in before)]
        for label, space, entries, keys in self.spaces:
            current = vars(space)
            for name, value, code in entries:
                now = current.get(name, _MISSING)
                if now is _MISSING:
                    reasons.append(f"patched {label}.{name} (deleted)")
                elif now is not value and _transparent_torch_wrapper(now, value):
                    continue
                elif now is not value or (code is not None and
                                          getattr(now, "__code__", None) is not code):
                    reasons.append(f"patched {label}.{name}")
            if keys is not None:  # (a name deleted and another added: the same length)
                reasons += [f"patched {label}.{name} (added)" for name in set(current) - keys
                            if not name.startswith("_abc_") and name not in _INTERPRETER_CACHES
                            and not _warning_registry(name, current[name])]
        return reasons


_MISSING = object()
# Attributes the interpreter itself caches on classes (copyreg stores __slotnames__ the first time
# an instance is copied or pickled): not patches.
_INTERPRETER_CACHES = {"__slotnames__"}


def _warning_registry(name, value):
    """The registry `warnings` adds to a module's globals the first time a warning is issued
    from its code (PyTorch warning inside one of the harness's own steps: blind red team,
    session 36, an honest candidate would have been charged "patched ... (added)"). Only a
    plain dict: anything else there is not the interpreter's."""
    return name == "__warningregistry__" and type(value) is dict


def _transparent_torch_wrapper(now, original):
    """torch wraps some of its own functions at run time (importing torch._dynamo replaces
    torch.manual_seed with a functools.wraps wrapper of it): a wrapper defined in torch whose
    __wrapped__ chain reaches the original is not a patch."""
    code = getattr(now, "__code__", None)
    torch_dir = os.path.dirname(getattr(sys.modules.get("torch"), "__file__", "") or "")
    if code is None or not torch_dir or not code.co_filename.startswith(torch_dir + os.sep):
        return False
    inner = getattr(now, "__wrapped__", None)
    for _ in range(8):
        if inner is original:
            return True
        inner = getattr(inner, "__wrapped__", None)
    return False


def _prepare_compiler(options):
    """When the harness will torch.compile the reference (the compile baseline), let dynamo
    install its nn.Module hooks now, before the snapshot, so they do not read as patches."""
    if "compile" not in (options.get("baselines") or []):
        return
    try:
        from torch._dynamo.mutation_guard import install_generation_tagging_init
        install_generation_tagging_init()
    except Exception:  # another torch: the snapshot will name what changed
        pass


def import_ahead():
    """The imports child_setup and the Guard's set-up make (numpy.ctypeslib, every module of the
    worker), done by a warm candidate process while it waits for its evaluation
    (candidate_host.main): 0.1 of the 0.22 s the set-up took inside an RNN evaluation's load on
    an H200 (session 35). Imports only: nothing is installed or recorded here."""
    for name in _IMPORTED_AHEAD:
        importlib.import_module(name)
    _import_own_modules()


def _import_own_modules():
    """Every module of the worker package (the analysis ones included: they are small)."""
    import importlib
    import pkgutil
    package = sys.modules[_OWN_PACKAGE]
    for info in pkgutil.iter_modules(package.__path__):
        if info.name != "__main__":
            try:
                importlib.import_module(f"{_OWN_PACKAGE}.{info.name}")
            except Exception:  # a module that cannot load here is not one the harness uses
                pass


# ---- the guard --------------------------------------------------------------------------------

class Guard:
    """Per-evaluation checks; `violations` is the verdict (empty = nothing caught)."""

    def __init__(self, task, options):
        self.task = task
        self.options = options or {}
        self._own = []           # this evaluation's violations (the audit's are process-wide)
        self._snapshot = None
        self._module = None
        self._reference = None
        self._reference_cls = None
        self._policy = None
        self._calls = 0          # completed guarded calls
        self._launches = 0       # Triton launches seen in them
        self._profiled_own = False
        self._audit_seen = []
        self._threads = set(threading.enumerate())
        self._held = []          # the previous guarded call's inputs, kept alive
        self._raw_threads_seen = set(sys._current_frames())  # (threads that were there before)
        self._checked_names = set()  # ATen operators the checked calls dispatched
        self._task_size = 0  # elements of the largest tensor a checked call took or returned

    @property
    def violations(self):
        reasons = list(trust_audit.violations) + self._own
        if (self._calls and not self._launches and not self._profiled_own
                and not self.options.get("allow_pytorch_only")):
            reasons.append("launched no kernel of its own (a pure PyTorch rewrite; allowed only "
                           "with allow_pytorch_only)")
        return list(dict.fromkeys(reasons))

    def _add(self, reasons):
        for reason in reasons:
            if reason not in self._own:
                self._own.append(reason)

    def _check_snapshot(self):
        if self._snapshot is not None:
            self._add(self._snapshot.changes())
        # A garbage-collector callback runs at any allocation, between any two of the harness's
        # steps (red team, session 13: one rewrote the output buffer after the harness's copy).
        if getattr(self, "_gc_callbacks", None) is not None and gc.callbacks != self._gc_callbacks:
            self._add(["registered a garbage-collector callback (gc.callbacks): code of its "
                       "own runs between the harness's steps"])
        # The audit record only grows; anything else is the candidate editing it.
        seen = self._audit_seen
        if list(trust_audit.violations[:len(seen)]) != seen:
            self._add(["tampered with the worker's record of violations"])
        self._audit_seen = list(trust_audit.violations)

    def before_candidate_import(self):
        _import_own_modules()  # so that lazily imported ones are in the snapshot too
        _prepare_compiler(self.options)
        self._threads = set(threading.enumerate())
        self._raw_threads_seen = set(sys._current_frames())
        self._gc_callbacks = list(gc.callbacks)
        for name, module in list(sys.modules.items()):
            if name == _OWN_PACKAGE or name.startswith(_OWN_PACKAGE + "."):
                _watch_module(module)
        provenance.note_known_operators()
        self._snapshot = Snapshot()

    def after_candidate_import(self, module, reference_cls):
        self._module = module
        self._reference_cls = reference_cls
        trust_audit.add_candidate(getattr(module, "__file__", None), module.__name__)
        self._check_snapshot()
        self._check_threads(self._threads)  # only the import ran since the baseline
        for name, value in vars(module).items():
            if value is not None and value is interpreter_compat.installed:
                # the worker's fix to Triton's interpreter, which the interpreter itself puts
                # into a kernel's globals when a kernel runs at import (blind red team, session
                # 22: a warm-up launch at import was charged with importing the worker's code)
                continue
            owner = value.__name__ if isinstance(value, types.ModuleType) else \
                getattr(value, "__module__", None)
            if isinstance(owner, str) and owner.split(".")[0] == _OWN_PACKAGE:
                self._add([f"imports the worker's own code ({name} from {owner})"])
        model_new = getattr(module, "ModelNew", None)
        if isinstance(model_new, type) and any(
                cls is reference_cls or cls.__name__ == reference_cls.__name__
                for cls in model_new.__mro__[1:]):
            self._add(["ModelNew inherits from the reference Model"])

    def use_policy(self, policy):
        """The operator policy, derived by the judge from its own record of the reference (the
        candidate process never runs the reference)."""
        self._policy = policy

    def check_model(self, model, reference_model):
        self._reference = reference_model
        self._check_snapshot()
        cls = self._reference_cls or type(reference_model)
        self.last_launches = None
        for name, sub in model.named_modules():
            if isinstance(sub, cls) or type(sub).__name__ == cls.__name__:
                self._add([f"holds an instance of the reference Model ({name or 'itself'})"])

    def note_kernels(self, kernels):
        """Profiler evidence (the result's `kernels`): any kernel marked own counts."""
        if any(kernel.get("own") for kernel in kernels or []):
            self._profiled_own = True

    def call_candidate(self, model, inputs):
        import torch
        from kforge_worker.launches import count_triton_launches
        self._check_snapshot()
        # (inputs are checked unchanged by the judge, from outside, after every call)
        threads = set(threading.enumerate())
        cuda = any(isinstance(x, torch.Tensor) and x.is_cuda for x in inputs)
        stream = torch.cuda.current_stream() if cuda else None
        _streams_seen.clear()
        ops, modules, native = OpRecorder(), ModuleRecorder(), _NativeCalls(cuda)
        aten = AtenRecorder(interpreted=not cuda)
        bits = BitLevelRecorder() if cuda else contextlib.nullcontext()
        # CPU: where the outputs came from (the GPU's profile time share says it there)
        flow_record = contextlib.nullcontext() if cuda else dataflow.record()
        # CPU: and whether the memory they came from was written by anyone the recorders name
        origin_record = contextlib.nullcontext() if cuda else provenance.record()
        dispatched = numerics_report.DispatchDtypes()  # the precision report's casts and GEMMs
        with count_triton_launches() as launches, native, modules, aten, ops, \
                flow_record as flow, origin_record as origin, dispatched, bits:
            outputs = model(*inputs)
        if cuda and not aten.dtypes_seen:
            aten.calls += bits.calls
            aten.names += [call[0] for call in bits.calls]
        if cuda:
            self._check_streams(stream)
        self.last_launches = dict(launches.by_kernel)
        self.last_numerics = numerics_report.observation(launches, dispatched, numerics.capture())
        if flow is not None and launches.total and not self.options.get("allow_pytorch_only"):
            for index in dataflow.unowned_outputs(flow, outputs):
                self._add([f"output {index} was not computed by its own kernels: no launch wrote "
                           f"it or the memory it was computed from (a decoy launch beside "
                           f"PyTorch doing the work?)"])
            # through the class: an attribute of the instance's (reachable from the dispatch mode
            # stack) would shadow the method (blind red team, session 28)
            self._add(provenance.Provenance.reasons(origin, outputs))
            if self._policy is not None:
                self._add(self._policy.check_own_multiplies(origin.multiplies, aten.calls))
        self._checked_names.update(aten.names)
        self._task_size = max(self._task_size, _task_size(inputs, outputs))
        self._launches += launches.total + native.count()
        self._calls += 1
        self._check_snapshot()
        self._check_outputs(outputs, inputs)
        self._check_threads(threads)
        if self._policy is None and self._reference is not None:
            self._policy = self._record_reference(inputs)
        if self._policy is not None:
            self._add(self._policy.check(ops.names + aten.names, modules.types))
            if not self.options.get("allow_pytorch_only"):
                self._add(self._policy.check_own_work(aten.calls, _task_size(inputs, outputs)))
        # Hold these inputs until the next guarded call's inputs exist: the allocator cannot hand
        # the next set the same addresses, so a result cached by address, or a CUDA graph replayed
        # on the old pointers, reads the old values and fails the comparison.
        self._held = list(inputs)
        return outputs

    def check_timed(self, aten):
        """The operators a timing phase's forwards dispatched (candidate_host.TimedCallWatch):
        the policy the checked calls meet, and no computing operator the checked calls did not
        run (a candidate that computes otherwise when timed; its checked calls met the own-work
        rule, which needs the input sizes the timed record leaves out)."""
        if self._policy is None:
            return
        reasons = self._policy.check(aten.names, [])
        new = sorted({name for name, raw, _, _ in aten.calls if name not in self._checked_names
                      and compute_class(name, raw) is not None})
        if new:
            reasons.append(f"computed with PyTorch operators in timed calls that its checked "
                           f"calls did not run: {', '.join(new)} (it behaves differently when "
                           f"timed)")
        # The own-work rule on each timed call, as on each checked one (a59_tiny_slice_whitelist:
        # the checked calls ran amax, exp2 and mm on a 1x1 slice, the timed ones on the whole
        # input). The first list also holds the warm-up calls: left out.
        if self._task_size and not self.options.get("allow_pytorch_only"):
            for calls in getattr(aten, "trials", [])[1:]:
                found = self._policy.check_own_work(calls, self._task_size)
                if found:
                    reasons += found
                    break
        self.note_timed(reasons)

    def note_timed(self, reasons):
        self._add([f"{reason} (in timed calls)" for reason in reasons])

    def _record_reference(self, inputs):
        """One reference forward on copies of these inputs (after the candidate's: it runs first)
        under the recorders, to learn which operators the candidate replaces."""
        import torch
        copies = [x.detach().clone() if isinstance(x, torch.Tensor) else x for x in inputs]
        devices = sorted({x.device.index or 0 for x in copies
                          if isinstance(x, torch.Tensor) and x.is_cuda})
        ops, modules = OpRecorder(), ModuleRecorder()
        reference_cls = self._reference_cls or type(self._reference)
        try:
            # A reference that draws random numbers in forward must not shift the harness's RNG.
            with torch.random.fork_rng(devices=devices), torch.no_grad(), modules, ops:
                self._reference(*copies)
        except Exception:  # the reference's own problem, reported by the harness's own run:
            return Policy([], [], reference_cls)  # only the Model itself stays forbidden
        return Policy(ops.names, [t for t in modules.types if t is not type(self._reference)],
                      reference_cls)

    def _check_outputs(self, outputs, inputs):
        import torch
        items = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        spans = [(index, _span(x)) for index, x in enumerate(inputs)
                 if isinstance(x, torch.Tensor) and x.numel()]
        for position, item in enumerate(items):
            if isinstance(item, torch.Tensor) and type(item) is not torch.Tensor:
                self._add([f"output {position} is a {type(item).__name__}, a torch.Tensor "
                           f"subclass (lazy or overridden behaviour); return a plain tensor"])
                continue
            if not isinstance(item, torch.Tensor) or not item.numel():
                continue
            low, high = _span(item)
            for index, (in_low, in_high) in spans:
                if low < in_high and in_low < high:
                    self._add([f"output {position} aliases input {index} (returns the input or "
                               f"a view of it)"])

    def _check_threads(self, before, only_candidate=False):
        self._check_raw_threads()
        for thread in set(threading.enumerate()) - before:
            target = getattr(thread, "_target", None) or getattr(type(thread), "run", None)
            origin = getattr(target, "__module__", "") or ""
            code = getattr(target, "__code__", None)
            if only_candidate and not (code and trust_audit.is_candidate_file(code.co_filename)):
                continue
            if thread.is_alive() and not origin.startswith(("torch", "triton")):
                self._add([f"left a thread running ({thread.name}): work the timing would not "
                           f"see"])

    def _check_raw_threads(self):
        """Threads started below `threading` (`_thread.start_new_thread`, a36): not in
        threading.enumerate(), but every thread that runs Python has a frame in
        sys._current_frames(). Neither torch nor Triton starts one; any that appeared since the
        candidate's import began is the candidate's, whatever its code claims to be."""
        known = {thread.ident for thread in threading.enumerate()}
        for ident, frame in sys._current_frames().items():
            if ident in known or ident in self._raw_threads_seen:
                continue
            self._raw_threads_seen.add(ident)
            name = frame.f_code.co_name if frame is not None else "native code"
            self._add([f"left a thread running (a thread started below threading, in {name}): "
                       f"work the timing would not see"])

    def _check_streams(self, stream):
        import torch
        current = torch.cuda.current_stream()
        if current != stream:
            self._add(["left a different CUDA stream current after forward returned"])
        stream.synchronize()  # the stream the timing events are recorded on
        for stream_id, device_index, device_type in list(_streams_seen):
            if stream_id is None:
                continue
            other = torch.cuda.Stream(stream_id=stream_id, device_index=device_index,
                                      device_type=device_type)
            if other != stream and not other.query():
                self._add(["left work running on a side CUDA stream after forward returned "
                           "(the current stream does not wait for it): work the timing "
                           "events would not see"])
        torch.cuda.synchronize()

    def checkpoint(self):
        """Snapshot, record and threads checked now. The harness calls this between the timing
        loop and reading the events: a patch that undoes itself when the harness first uses it
        (elapsed_time restoring the original) is still in place here."""
        self._check_snapshot()
        # Outside guarded calls the harness runs too (torch.compile's pools): only threads that
        # run candidate code count here.
        self._check_threads(self._threads, only_candidate=True)

    def after_timing(self, timing=None):
        self.checkpoint()
        stats = (timing or {}).get("candidate") or {}
        event, host = stats.get("median_ms"), stats.get("host_median_ms")
        if event is not None and host is not None and host > 2 * event + HOST_TIME_SLACK_MS:
            self._add([f"host time {host:.3f} ms per forward vs {event:.3f} ms seen by the CUDA "
                       f"events: work outside the timed stream (side stream or thread)"])


class _NativeCalls:
    """On GPU, calls into native modules built at run time (CUDA C++ through load_inline or
    cpp_extension.load, under the scratch dir or torch's extension root): a candidate's own
    kernels that Triton's launch counter does not see. A profile hook, during guarded calls only."""

    def __init__(self, active):
        self.active = active
        self.modules = set()
        self.previous = None

    def _hook(self, frame, event, arg):
        if event == "c_call":
            self.modules.add(getattr(arg, "__module__", None))

    def __enter__(self):
        if self.active:
            self.previous = sys.getprofile()
            sys.setprofile(self._hook)
        return self

    def __exit__(self, *exc):
        if self.active:
            sys.setprofile(self.previous)
        return False

    def count(self):
        """How many of the called modules are such builds. load_inline does not register its
        module in sys.modules, so a name is also looked up as <root>/<dir>/<name>.so."""
        import glob
        roots = [os.path.realpath(root) for root in (trust_audit.extension_root(),
                                                     tempfile.gettempdir()) if root]
        found = 0
        for name in self.modules:
            if not isinstance(name, str) or not name.isidentifier():
                continue
            path = getattr(sys.modules.get(name), "__file__", None) or ""
            if path.endswith(".so") and os.path.realpath(path).startswith(
                    tuple(root + os.sep for root in roots)):
                found += 1
            elif any(glob.glob(os.path.join(glob.escape(root), "*", f"{name}.so")) or
                     glob.glob(os.path.join(glob.escape(root), "*", f"{name}.*.so"))
                     for root in roots):
                found += 1
        return found


def _span(tensor):
    """[low, high) bytes of the storage region a tensor can reach."""
    storage = tensor.untyped_storage()
    return storage.data_ptr(), storage.data_ptr() + max(storage.nbytes(), 1)


def _task_size(inputs, outputs):
    """Elements of the largest tensor among a call's inputs and outputs: the scale against which
    the own-work rule measures what PyTorch computed (trust_ops.Policy.check_own_work)."""
    import torch
    items = list(inputs) + (list(outputs) if isinstance(outputs, (list, tuple)) else [outputs])
    return max((item.numel() for item in items if isinstance(item, torch.Tensor)), default=0)
