"""Loading KernelBench-format task files and candidate files, shape overrides, and `inspect_task`.

Files are imported with importlib from a path (never exec of a string: @triton.jit needs
inspect.getsource, which needs a real file). A task's shape constants are module globals that
get_inputs(), get_init_inputs() and Model.__init__ read at call time, so an override is applied by
assigning the module global before any of them is called."""

import importlib.util
import inspect
import itertools
import os
import sys
from dataclasses import dataclass, field

from kforge_worker.errors import classify, describe, syntax_message

_counter = itertools.count()


class LoadError(Exception):
    """A file that cannot be loaded: the message is located and final (no traceback needed)."""

    def __init__(self, message, location=None, status="runtime_error"):
        super().__init__(message)
        self.location = location
        self.status = status


def import_file(path, display, prefix):
    """Import the Python file `path` under a unique module name. A syntax error raises LoadError
    with status syntax_error and `display:line:col`; an exception at import time raises LoadError
    with the file's own frame."""
    name = f"{prefix}_{os.getpid()}_{next(_counter)}"
    files = {os.path.abspath(path): display}
    try:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
    except OSError as error:
        raise LoadError(f"failed to read {display}: {error.strerror}") from None
    try:
        compile(source, path, "exec")
    except SyntaxError as error:
        text, location = syntax_message(error, files)
        raise LoadError(text, location, "syntax_error") from None
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses, pickling and triton look modules up by name
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[name]
        text, location = describe(error, files)
        raise LoadError(f"failed to import {display}:\n{text}", location,
                        classify(error)) from error
    return module


def _int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _int_sequence(value):
    """A tuple or list of ints (bias_shape = (out_channels, 1, 1), hidden_layer_sizes = [...])."""
    return isinstance(value, (tuple, list)) and len(value) > 0 and all(map(_int, value))


def module_constants(module):
    """Module-level constants: ints, floats and bools (the task's shapes and hyper-parameters),
    and tuples or lists of ints (shapes such as `bias_shape`, layer widths)."""
    return {name: value for name, value in vars(module).items()
            if not name.startswith("_") and (isinstance(value, (int, float, bool)) or
                                             _int_sequence(value))}


def _power_of_two(value):
    return value > 0 and value & (value - 1) == 0


_SEQ_WORDS = ("seq", "len", "time", "step")


def _kind(name):
    """How the policy reads a constant's name: "seq", "batch" or a plain "size"."""
    lower = name.lower()
    if any(word in lower for word in _SEQ_WORDS):
        return "seq"
    return "batch" if "batch" in lower else "size"


def _generic_value(value):
    """A size > 32 becomes 16 (a power of two) or 24; a smaller one is kept."""
    if value > 32:
        return 16 if _power_of_two(value) else 24
    return value


def _policy_value(name, value):
    """The shrink policy's value for one int constant, or None when it is kept."""
    kind = _kind(name)
    small = 8 if kind == "seq" else 2 if kind == "batch" else _generic_value(value)
    return small if small < value else None


def _shrink_sequence(values, constants, shrunk, follow_batch):
    """A tuple/list constant shrunk consistently with the int constants it repeats: an element
    equal to a shrunk constant's value takes that constant's new value (bias_shape =
    (out_channels, 1, 1) follows out_channels), sizes first, then seq-like names, then (when
    `follow_batch`) batch-like ones; the generic value (16 or 24) when the match is ambiguous or
    absent and the element is > 32; other elements are kept. None when nothing changes.
    An element that only the batch repeats (`input_shape = (32768,)` beside `batch_size =
    32768`) is usually a coincidence, so the first plan gives it the generic value and the
    next follows the batch (100_HingeLoss broadcasts the two against each other)."""
    kinds = ("size", "seq", "batch") if follow_batch else ("size", "seq")
    out = []
    for element in values:
        value = _generic_value(element)
        for kind in kinds:
            found = {shrunk[name] for name, constant in constants.items()
                     if name in shrunk and _int(constant) and constant == element and
                     _kind(name) == kind}
            if found:
                value = found.pop() if len(found) == 1 else value
                break
        out.append(value)
    out = type(values)(out)
    return None if out == values else out


def shrink_overrides(constants, follow_batch=False):
    """Small shapes for CPU checks (docs/protocol.md, "Shrink policy"):
    names containing seq/len/time/step -> 8; names containing batch -> 2; any other int > 32 ->
    16 when it is a power of two, else 24 (so power-of-two-ness, hence masking paths, is kept;
    24 rather than 20 because it divides by 2, 3, 4, 6, 8 and 12: head counts, groups).
    Floats, bools and ints <= 32 (layers, kernel sizes, channels of small convs) are kept.
    Tuples/lists of ints follow the ints they repeat (`_shrink_sequence`)."""
    shrunk = {}
    for name, value in constants.items():
        if _int(value):
            small = _policy_value(name, value)
            if small is not None:
                shrunk[name] = small
    ints = dict(shrunk)
    for name, value in constants.items():
        if _int_sequence(value):
            small = _shrink_sequence(value, constants, ints, follow_batch)
            if small is not None:
                shrunk[name] = small
    return shrunk


def shrink_plans(constants):
    """The shrink policy's overrides, then ever less shrunk ones (the back-off ladder of
    `shrink_task`): the policy with tuple elements that only a batch repeats following the
    batch (when that differs), then at step k every shrunk size is that plan's value times
    2**k, capped at the file's own value (tuple elements alike, so they stay consistent), until
    nothing is shrunk. Growing from the policy keeps its properties (powers of two stay powers
    of two) and keeps the ratio of sizes that grow together. The last plan ({}) is the file's
    own shapes."""
    plans = [shrink_overrides(constants)]
    first = shrink_overrides(constants, follow_batch=True)
    if first != plans[0]:
        plans.append(first)
    step = 1
    while plans[-1]:
        def grow(small, value):
            return min(value, small * 2 ** step)
        plan = {}
        for name, small in first.items():
            value = constants[name]
            if _int(small):
                grown = grow(small, value)
            else:
                grown = type(value)(grow(s, v) for s, v in zip(small, value))
            if grown != value:
                plan[name] = grown
        plans.append(plan)
        step += 1
    return plans


# A shrunk size grows back to this for the generalisation check: past the block sizes a kernel
# may have hard-coded (64), and odd, so that a missing mask shows too
GROWN_SIZE = 67
# Names of sequence-like constants (a length, a number of time steps)
_SEQUENCE_WORDS = ("seq", "len", "time", "step")


def alternative_overrides(shapes, shrunk=None, constants=None):
    """Other shape sets for the generalisation check, the first one to try first. The base one:
    batch + 1 if the task has a batch-like constant, else a seq-like constant halved, else the
    first int constant > 1 plus one. When --shrink made the task small (`shrunk`: the overrides
    it applied; `constants`: the file's own values), the first set also grows one shrunk size
    (not a batch or sequence) back towards the file's, to GROWN_SIZE: a kernel right only at the
    small shapes (a block capped at 64) is wrong there. Returns [] when no int constant varies."""
    ints = {name: value for name, value in shapes.items()
            if isinstance(value, int) and not isinstance(value, bool)}
    base = {}
    for name, value in ints.items():
        if "batch" in name.lower():
            base = {name: value + 1}
            break
    else:
        for name, value in ints.items():
            if any(word in name.lower() for word in _SEQUENCE_WORDS) and value >= 4:
                base = {name: value // 2}
                break
        else:
            for name, value in ints.items():
                if value > 1:
                    base = {name: value + 1}
                    break
    if not base:
        return []
    for name, value in (shrunk or {}).items():
        original = (constants or {}).get(name)
        if name in base or name not in ints or not isinstance(original, int) or \
                any(word in name.lower() for word in ("batch",) + _SEQUENCE_WORDS):
            continue
        if value < GROWN_SIZE <= original:
            return [{**base, name: GROWN_SIZE}, base]
    return [base]


@dataclass
class Task:
    path: str                 # as given in the request (used in messages)
    module: object
    constants: dict           # the file's own values
    applied: dict = field(default_factory=dict)  # overrides in force
    # Why get_inputs() is drawn on the CPU although the evaluation device is not: the error it
    # raised under `with torch.device(...)` (evaluate.draw_inputs). None: not tried or it worked.
    inputs_fallback: str = None

    @property
    def model_class(self):
        return self.module.Model

    @property
    def shapes(self):
        return module_constants(self.module)

    # How --shrink chose the shapes (shrink_task): {"applied": overrides, "backed_off": bool,
    # "step": index in shrink_plans, "tried": [{"overrides", "error"}] for each plan that failed}.
    # None when shrink was not asked for.
    shrink: dict = None

    def apply(self, overrides):
        """Set module globals; later calls to get_inputs()/Model() see the new values. A list
        given for a tuple constant (JSON has no tuples) becomes a tuple."""
        overrides = {name: type(self.constants[name])(value)
                     if isinstance(value, list) and isinstance(self.constants.get(name), tuple)
                     else value for name, value in overrides.items()}
        for name, value in overrides.items():
            setattr(self.module, name, value)
        self.applied = {**self.applied, **overrides}

    def reset(self):
        for name in self.applied:
            setattr(self.module, name, self.constants[name])
        self.applied = {}

    def init_inputs(self):
        return list(_call(self, "get_init_inputs"))

    def inputs(self):
        return list(_call(self, "get_inputs"))


def _call(task, name):
    try:
        value = getattr(task.module, name)()
    except Exception as error:
        text, location = describe(error, {os.path.abspath(task.module.__file__): task.path})
        raise LoadError(f"failed to call {name}() of {task.path}:\n{text}", location) from error
    if not isinstance(value, (list, tuple)):
        raise LoadError(f"failed to call {name}() of {task.path}: returned "
                        f"{type(value).__name__}, expected a list")
    return value


def load_task(path, shrink=False, overrides=None, file=None):
    """Import a task file and apply shape overrides (shrink policy first, explicit ones on top).
    `path` is the name used in messages, `file` where to read it (default: `path`)."""
    file = file or path
    if not os.path.isfile(file):
        raise LoadError(f"failed to load task {path}: no such file")
    try:
        module = import_file(file, path, "kforge_task")
    except LoadError as error:
        # "failed to load task tasks/x.py:9:8: SyntaxError: ..." or "... tasks/x.py:\n<frames>"
        message = str(error).removeprefix("failed to import ")
        raise LoadError(f"failed to load task {message}", error.location, error.status) from None
    for name, kind in (("Model", "class"), ("get_inputs", "function"),
                       ("get_init_inputs", "function")):
        if not hasattr(module, name):
            suffix = "" if kind == "class" else "()"
            raise LoadError(f"failed to load task {path}: no {name}{suffix} defined")
    if not inspect.isclass(module.Model):
        raise LoadError(f"failed to load task {path}: Model is not a class")
    task = Task(path=path, module=module, constants=module_constants(module))
    for name in overrides or {}:
        if name not in task.constants:
            raise LoadError(f"failed to apply overrides to {path}: no constant {name!r} "
                            f"(constants: {', '.join(task.constants) or 'none'})")
    if shrink:
        shrink_task(task, overrides or {})
    else:
        task.apply(overrides or {})
    return task


# A back-off plan whose parameters and inputs (estimated on the meta device) exceed this is not
# tried: the trial runs in the judge, and a plan that large is no longer a CPU check.
TRIAL_BUDGET_BYTES = 1 << 30


def _tensor_bytes(values):
    import torch
    return sum(v.numel() * v.element_size() for v in values if isinstance(v, torch.Tensor))


def _trial(task, device):
    """Build Model and run one forward on get_inputs() at the applied shapes, on `device`
    ("meta": shapes only, no memory, no arithmetic; "cpu": for real). Returns (error, size):
    the error's last line or None, and the bytes of the inputs, plus the parameters and
    buffers once Model is built (None when get_inputs() itself failed). On meta, a task over
    TRIAL_BUDGET_BYTES is sized and not run."""
    import torch
    size = None
    try:
        with torch.random.fork_rng(devices=[]), torch.device(device), torch.no_grad():
            torch.manual_seed(0)
            init_inputs = list(getattr(task.module, "get_init_inputs")())
            inputs = list(getattr(task.module, "get_inputs")())
            size = _tensor_bytes(init_inputs + inputs)
            model = task.model_class(*init_inputs)
            size += _tensor_bytes(list(model.parameters()) + list(model.buffers()))
            if device != "meta" or size <= TRIAL_BUDGET_BYTES:
                model.eval()(*inputs)
        return None, size
    except Exception as error:
        text, _ = describe(error, {os.path.abspath(task.module.__file__): task.path})
        lines = [line for line in text.strip().split("\n") if line.strip()]
        return (lines[-1] if lines else type(error).__name__), size


def shrink_task(task, overrides):
    """Apply the shrink policy, backing off when the task does not run at its shapes.

    Each plan of `shrink_plans` (explicit `overrides` on top) is tried in turn: Model is built
    and run once on get_inputs(), first on the meta device (shapes only: milliseconds, and
    parameters and inputs are sized before anything is allocated), then, when meta fails
    (an operator without a meta kernel, or a real shape error), on the CPU for real. The first
    plan that runs is kept, then tightened (`_tighten`). The policy's own plan is always tried
    (it is what the judge would run anyway); a later plan whose inputs and parameters (those
    that meta could build) exceed TRIAL_BUDGET_BYTES ends the ladder, and one whose
    get_inputs() fails on meta counts as failed without a CPU trial.
    When no plan runs, the policy's overrides stay (the judge then reports the reference's
    error as before). What happened is in `task.shrink`."""
    plans = shrink_plans(task.constants)
    tried = []
    for step, plan in enumerate(plans):
        wanted = {**plan, **overrides}
        task.reset()
        task.apply(wanted)
        error, size = _trial(task, "meta")
        if step > 0 and size is not None and size > TRIAL_BUDGET_BYTES:
            tried.append({"overrides": _jsonable(wanted), "error": (
                f"not tried: {size / 2 ** 20:.0f} MiB of parameters and inputs > "
                f"{TRIAL_BUDGET_BYTES / 2 ** 20:.0f} MiB")})
            break
        # get_inputs() failing on meta (size None) is taken as the plan's answer past the
        # policy's: its inputs cannot be sized, so they are not drawn for real.
        if error is not None and (step == 0 or size is not None):
            error, _ = _trial(task, "cpu")
        if error is None:
            if step > 0:
                wanted = _tighten(task, wanted, {**plans[0], **overrides})
            task.shrink = {"applied": _jsonable(wanted), "backed_off": step > 0, "step": step,
                           "tried": tried}
            return
        tried.append({"overrides": _jsonable(wanted), "error": error})
    task.reset()
    wanted = {**plans[0], **overrides}
    task.apply(wanted)
    task.shrink = {"applied": _jsonable(wanted), "backed_off": False, "step": 0,
                   "tried": tried, "failed": True}


def _runs(task):
    """Whether the task runs at the applied shapes: on meta, else for real on the CPU."""
    return _trial(task, "meta")[0] is None or _trial(task, "cpu")[0] is None


def _tighten(task, wanted, first):
    """After a backed-off plan ran: each constant in turn goes back to its policy value when the
    task still runs so (a pooling window that needed a longer sequence does not need a larger
    batch). An int is tried first together with the tuple elements that repeat it (`channels`
    with `bias_shape = (channels, 1)`), then alone (level2 3's `norm_shape = (out_channels,)`
    must keep the file's value). Returns the overrides kept, applied to `task`."""
    constants = task.constants
    for name in first:
        if name in wanted and wanted[name] == first[name]:
            continue
        attempts = [{**wanted, name: first[name]}]
        if _int(constants[name]):
            linked = dict(attempts[0])
            for other, original in constants.items():
                if other != name and _int_sequence(original) and \
                        constants[name] in original:
                    current = linked.get(other, original)
                    linked[other] = type(original)(
                        first[name] if element == constants[name] else now
                        for element, now in zip(original, current))
            if linked != attempts[0]:
                attempts.insert(0, linked)
        for attempt in attempts:
            task.reset()
            task.apply(attempt)
            if _runs(task):
                wanted = attempt
                break
    task.reset()
    task.apply(wanted)
    return wanted


def _jsonable(overrides):
    return {name: list(value) if isinstance(value, tuple) else value
            for name, value in overrides.items()}


def load_candidate(path, display):
    """Import a candidate file and return its ModelNew class."""
    module = import_file(path, display, "kforge_candidate")
    model_new = getattr(module, "ModelNew", None)
    if model_new is None:
        raise LoadError(f"failed to load candidate {display}: no ModelNew class defined")
    if not inspect.isclass(model_new):
        raise LoadError(f"failed to load candidate {display}: ModelNew is not a class")
    return module, model_new


# ---- inspect_task ---------------------------------------------------------------------------

_RNN_ARGS = ("input_size", "hidden_size", "num_layers", "bias", "batch_first", "bidirectional",
             "dropout")
_CONV_ARGS = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation",
              "groups")


def module_args(module):
    import torch.nn as nn
    if isinstance(module, nn.RNNBase):
        return {name: getattr(module, name) for name in _RNN_ARGS}
    if isinstance(module, nn.Linear):
        return {"in_features": module.in_features, "out_features": module.out_features,
                "bias": module.bias is not None}
    if isinstance(module, nn.modules.conv._ConvNd):
        args = {name: getattr(module, name) for name in _CONV_ARGS}
        args["bias"] = module.bias is not None
        return {k: list(v) if isinstance(v, tuple) else v for k, v in args.items()}
    return {}


def describe_value(value):
    import torch
    if isinstance(value, torch.Tensor):
        return {"shape": list(value.shape), "dtype": str(value.dtype).replace("torch.", "")}
    return {"shape": None, "dtype": type(value).__name__, "value": value
            if isinstance(value, (int, float, bool, str)) else None}


def _outputs(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def inspect_child(request, scratch):
    """Runs in the sandboxed child: build the model on CPU and describe it."""
    import torch
    from kforge_worker.sandbox import RequestFailure, resolve
    task_path = request["task_path"]
    torch.set_num_threads(1)  # one small forward: threads would only spin (see evaluate.py)
    try:
        task = load_task(task_path, request.get("shrink", False), request.get("overrides"),
                         resolve(request, "task_path"))
        torch.manual_seed(0)
        init_inputs = task.init_inputs()
        model = task.model_class(*init_inputs).eval()
        torch.manual_seed(1)
        inputs = task.inputs()
        from kforge_worker.rnn_signature import capture_rnn_outputs, label_outputs
        with torch.no_grad(), capture_rnn_outputs(model) as captured:
            outputs = _outputs(model(*inputs))
        output_sources = label_outputs(outputs, captured)
    except LoadError as error:
        raise RequestFailure(str(error)) from None
    except Exception as error:
        text, _ = describe(error, {os.path.abspath(task.module.__file__): task_path}
                           if "task" in locals() else {})
        raise RequestFailure(f"failed to inspect task {task_path}:\n{text}") from None
    modules = [{"path": name or "", "type": type(sub).__name__, "args": module_args(sub)}
               for name, sub in model.named_modules()]
    signature = str(inspect.signature(task.model_class.forward))
    recurrent = any(isinstance(sub, torch.nn.RNNBase) or
                    isinstance(sub, (torch.nn.RNNCellBase,)) for sub in model.modules())
    return {
        "task_path": task_path,
        "constants": task.constants,
        "shrunk": _jsonable(task.applied),
        "shrink": task.shrink,
        "shapes": task.shapes,
        "modules": modules,
        "inputs": [describe_value(v) for v in inputs],
        "init_inputs": [describe_value(v) for v in init_inputs],
        "outputs": [describe_value(v) for v in outputs],
        "output_sources": output_sources,
        "forward_signature": f"forward{signature}",
        "recurrent": recurrent,
    }


def handle_inspect(request):
    from kforge_worker.protocol import RequestError
    from kforge_worker.sandbox import run_request
    if "task_path" not in request:
        raise RequestError("failed to inspect task: missing field task_path")
    if not os.path.isfile(request["task_path"]):
        raise RequestError(f"failed to inspect task {request['task_path']}: no such file")
    outcome = run_request(inspect_child, request, timeout_s=request.get("timeout_s", 120),
                          cpu_only=True)
    return outcome.result_or_raise("inspect task")
