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


def module_constants(module):
    """Module-level int/float/bool constants: the task's shapes and hyper-parameters."""
    return {name: value for name, value in vars(module).items()
            if not name.startswith("_") and isinstance(value, (int, float, bool))}


def _power_of_two(value):
    return value > 0 and value & (value - 1) == 0


def shrink_overrides(constants):
    """Small shapes for CPU checks (docs/protocol.md, "Shrink policy"):
    names containing seq/len/time/step -> 8; names containing batch -> 2; any other int > 32 ->
    16 when it is a power of two, else 24 (so power-of-two-ness, hence masking paths, is kept;
    24 rather than 20 because it divides by 2, 3, 4, 6, 8 and 12: head counts, groups).
    Floats, bools and ints <= 32 (layers, kernel sizes, channels of small convs) are kept."""
    shrunk = {}
    for name, value in constants.items():
        if isinstance(value, bool) or not isinstance(value, int):
            continue
        lower = name.lower()
        if any(word in lower for word in ("seq", "len", "time", "step")):
            small = 8
        elif "batch" in lower:
            small = 2
        elif value > 32:
            small = 16 if _power_of_two(value) else 24
        else:
            continue
        if small < value:
            shrunk[name] = small
    return shrunk


def alternative_overrides(shapes):
    """One other shape set for the generalisation check: batch + 1 if the task has a batch-like
    constant, else a seq-like constant halved, else the first int constant > 1 plus one.
    Returns {} when the task has no int constant to vary."""
    ints = {name: value for name, value in shapes.items()
            if isinstance(value, int) and not isinstance(value, bool)}
    for name, value in ints.items():
        if "batch" in name.lower():
            return {name: value + 1}
    for name, value in ints.items():
        if any(word in name.lower() for word in ("seq", "len", "time", "step")) and value >= 4:
            return {name: value // 2}
    for name, value in ints.items():
        if value > 1:
            return {name: value + 1}
    return {}


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

    def apply(self, overrides):
        """Set module globals; later calls to get_inputs()/Model() see the new values."""
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
    wanted = shrink_overrides(task.constants) if shrink else {}
    for name, value in (overrides or {}).items():
        if name not in task.constants:
            raise LoadError(f"failed to apply overrides to {path}: no constant {name!r} "
                            f"(constants: {', '.join(task.constants) or 'none'})")
        wanted[name] = value
    task.apply(wanted)
    return task


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
        "shrunk": task.applied,
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
