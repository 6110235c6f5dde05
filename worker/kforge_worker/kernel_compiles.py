"""On the CPU, whether a candidate's Triton kernel is one: its source compiles to Triton IR for a
GPU target, as it would have to on the GPU.

The CPU path runs kernels in Triton's interpreter, which executes a kernel's body as Python: a
body can call any Python function (NumPy's softmax on a loaded block), read a module-level list,
or build interpreter tensors from host arrays, and every rule that watches PyTorch and memory
sees the candidate's own launch do the work (blind red team, session 11). The GPU's compiler
refuses all of that (a non-constexpr global, a call that is no @triton.jit function). So before
a kernel first runs with a signature, its AST goes through Triton's own front end (`ASTSource`,
`make_ir`, for an sm_90 target: no GPU or ptxas needed, ~30 ms), with the helpers it calls made
JIT functions again; a failure is the candidate's violation."""

import functools
import inspect
import types

_TARGET = ("cuda", 90, 32)
# Triton's launch options, not kernel arguments
_OPTIONS = {"num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion", "debug",
            "launch_cooperative_grid", "launch_pdl"}


def _jit_function(fn, memo):
    """A JITFunction of `fn` whose globals and closure hold JITFunctions where the interpreter
    put its InterpretedFunctions (helpers a kernel calls)."""
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction
    if fn in memo:
        return memo[fn]

    def convert(value):
        if isinstance(value, InterpretedFunction):
            return _jit_function(value.fn, memo)
        return value
    scope = dict(fn.__globals__)
    for name in fn.__code__.co_names:
        if name in scope:
            scope[name] = convert(scope[name])
    closure = fn.__closure__ and tuple(types.CellType(convert(cell.cell_contents))
                                       for cell in fn.__closure__)
    copy = types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, closure)
    copy.__annotations__ = dict(fn.__annotations__)
    copy.__module__, copy.__qualname__ = fn.__module__, fn.__qualname__
    memo[fn] = JITFunction(copy)
    return memo[fn]


@functools.lru_cache(maxsize=1)
def _triton_home():
    import os
    import triton
    return os.path.dirname(os.path.abspath(triton.__file__)) + os.sep


def _triton_code(value):
    """Whether calling `value` runs only Triton's own code (or a kernel's JIT helper)."""
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction
    if isinstance(value, (JITFunction, InterpretedFunction)):
        return True  # a helper kernel: compiled and checked as one
    home = _triton_home()
    codes = []
    for item in (value, getattr(value, "fn", None), getattr(value, "__wrapped__", None),
                 getattr(value, "__func__", None), getattr(value, "__call__", None)):
        code = getattr(item, "__code__", None)
        if code is not None:
            codes.append(code)
    if isinstance(value, type):
        codes += [item.__code__ for item in vars(value).values() if hasattr(item, "__code__")]
        return all(code.co_filename.startswith(home) for code in codes) and \
            str(getattr(value, "__module__", "")).startswith(("triton", "builtins"))
    if codes:
        return all(code.co_filename.startswith(home) for code in codes)
    # a builtin function or method: a C function of Triton's (or Python's, for builtins)
    return str(getattr(value, "__module__", "") or "").startswith(("triton", "builtins"))


def _unwrapped(value):
    """A tl.constexpr's value (a module-level `OP = tl.constexpr(row_op)` is called as OP(x))."""
    import triton.language as tl
    while isinstance(value, tl.constexpr):
        value = value.value
    return value


_PLAIN_CONSTEXPRS = (int, float, bool, str, bytes, type(None))


def foreign_constexprs(fn, constexprs):
    """(the launch's constexpr arguments that are callables but not Triton code, the JIT
    helpers among them). A plain Python function passed as `OP: tl.constexpr` is called by
    Triton's front end with IR values (it can return them: the kernel compiles as a copy) and
    by the interpreter with NumPy data (where it computes the task): blind red team, session
    15. A @triton.jit function passed so is a helper, checked as one."""
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction
    found, helpers = [], []
    items = list(constexprs.items())
    while items:
        name, value = items.pop()
        value = _unwrapped(value)
        if isinstance(value, (tuple, list)):  # a tuple of constexprs: each element is one
            items += [(f"{name}[{index}]", item) for index, item in enumerate(value)]
            continue
        if not callable(value) and not isinstance(value, _PLAIN_CONSTEXPRS) and \
                not str(type(value).__module__).startswith("triton"):
            found.append(f"an object of class {type(value).__name__} (passed to {fn.__name__} "
                         f"as its constexpr {name}: its methods run as Python)")
            continue
        if isinstance(value, (JITFunction, InterpretedFunction)):
            if hasattr(value.fn, "__code__") and \
                    not value.fn.__code__.co_filename.startswith(_triton_home()):
                helpers.append(value.fn)
        elif callable(value) and not _triton_code(value):
            shown = getattr(value, "__name__", type(value).__name__)
            found.append(f"{shown} (passed to {fn.__name__} as its constexpr {name})")
    return found, helpers


def computed_callees(function):
    """The calls in `function`'s source whose callee is computed rather than named: a call's
    result (`getattr(ops, NAME)(x)`), a subscript, or a local variable assigned in the body.
    Triton's front end resolves such a callee at compile time and calls whatever it finds, with
    IR values, while the interpreter calls it with NumPy data (red team, session 15, round 2).
    A named callee (a global, a parameter, an attribute chain on one) is checked by name."""
    import ast
    import textwrap
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return []
    assigned = {target.id for node in ast.walk(tree)
                for target in ast.walk(node) if isinstance(node, (ast.Assign, ast.AugAssign,
                                                                  ast.AnnAssign, ast.For,
                                                                  ast.With, ast.NamedExpr))
                and isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store)}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = node.func
        if isinstance(callee, ast.Name):
            computed = callee.id in assigned
        elif isinstance(callee, ast.Attribute):
            # a method of a value (x.to(...), (a + b).to(...)) is its class's: Triton's, checked
            # by patched_triton_classes; an attribute of what getattr found is not
            computed = any(isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and
                           inner.func.id == "getattr" for inner in ast.walk(callee.value))
        else:  # a call's result, a subscript, a lambda
            computed = True
        if computed:
            found.append(f"{ast.unparse(callee)[:60]} (a callee computed in "
                         f"{function.__name__})")
    return found


_PRISTINE_CLASSES = {}
# The functions kforge's own recorder (provenance.record) sets on the interpreter's classes for
# the length of a checked call
HARNESS_PATCHES = set()


def record_pristine_classes():
    """What triton.language's classes hold right before the candidate's import (the candidate
    host's `load`: after kforge's own interpreter shims are in place)."""
    _PRISTINE_CLASSES.clear()
    _PRISTINE_CLASSES.update(_class_attributes())


def patched_triton_classes():
    """Attributes of triton.language's classes added or replaced since record_pristine_classes
    by something that is not Triton's own code: a method added to tl.tensor at import runs as
    Python under the interpreter when a kernel calls x.method() (red team, session 15, round
    2). Triton's interpreter replaces some while kernels run: its code is Triton's."""
    if not _PRISTINE_CLASSES:
        return []
    found = []
    for (owner, name), value in _class_attributes().items():
        if _PRISTINE_CLASSES.get((owner, name), patched_triton_classes) is value or \
                any(value is patch for patch in HARNESS_PATCHES):
            continue
        parts = [value.fget, value.fset, value.fdel] if isinstance(value, property) else \
            [value.__func__] if isinstance(value, (staticmethod, classmethod)) else \
            [value] if callable(value) else []
        # (Python's own slots, object.__repr__: the interpreter's patch scope puts inherited
        # ones back as the class's own when it restores them)
        if all(_triton_code(part) or getattr(part, "__objclass__", None) in (object, type)
               for part in parts if part is not None):
            continue
        found.append(f"{owner.__name__}.{name} (set on Triton's class by the candidate)")
    return found


def _class_attributes():
    """{(class, attribute name): value} of every class triton.language and Triton's
    interpreter define (the interpreter's TensorHandle does a kernel's arithmetic on the CPU)."""
    import triton.language as tl
    from triton.runtime import interpreter
    classes = {value for module in (tl, tl.core, interpreter) for value in vars(module).values()
               if isinstance(value, type) and str(value.__module__).startswith(
                   ("triton.language", "triton.runtime.interpreter"))}
    return {(owner, name): value for owner in classes for name, value in vars(owner).items()}


def foreign_calls(fn, helpers=()):
    """The names a kernel's body calls through that are not Triton code: a function flagged
    `__triton_builtin__`, an attribute of a module of its own, a plain function wrapped in a
    tl.constexpr global. Triton's front end calls such a function at compile time with IR values
    (where it can return its input and compile as a copy), and the interpreter with NumPy data
    (where it can compute the task): the ninth red team's second round, session 13. `helpers`:
    JIT helpers the launch passed as constexprs, scanned as the kernel's own are."""
    import builtins
    import dis
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction
    found, seen, functions, done = [], set(), [fn, *helpers], set()
    while functions:  # the kernel, then every JIT helper it reaches, however named
        function = functions.pop()
        if function in done:
            continue
        done.add(function)
        closure = dict(zip(function.__code__.co_freevars,
                           (cell.cell_contents for cell in function.__closure__ or ())))
        codes = [function.__code__]
        while codes:
            code = codes.pop()
            codes += [const for const in code.co_consts if isinstance(const, types.CodeType)]
            chain, value = None, None
            for instruction in dis.get_instructions(code):
                name = instruction.argval
                if instruction.opname == "LOAD_GLOBAL":
                    chain = name if isinstance(name, str) else None
                    value = function.__globals__.get(chain, getattr(builtins, chain or "", None))
                elif instruction.opname == "LOAD_DEREF" and name in closure:
                    chain, value = name, closure[name]
                elif instruction.opname in ("LOAD_ATTR", "LOAD_METHOD") and chain is not None:
                    chain, value = f"{chain}.{name}", getattr(value, str(name), None)
                else:
                    chain = None
                    continue
                value = _unwrapped(value)
                if isinstance(value, (JITFunction, InterpretedFunction)) and \
                        hasattr(value.fn, "__code__") and \
                        not value.fn.__code__.co_filename.startswith(_triton_home()):
                    functions.append(value.fn)
                elif callable(value) and chain not in seen:
                    seen.add(chain)
                    if not _triton_code(value):
                        found.append(f"{chain} (in {function.__name__})")
        found += computed_callees(function)
    return found + patched_triton_classes()


def _signature(fn, args, kwargs):
    """(signature, constexprs) for ASTSource from a launch's arguments."""
    from triton.runtime.jit import mangle_type
    kwargs = {k: v for k, v in kwargs.items() if k not in _OPTIONS}
    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    annotations = {name: str(getattr(ty, "__name__", ty)) for name, ty in
                   fn.__annotations__.items()}
    signature, constexprs = {}, {}
    for name, value in bound.arguments.items():
        if "constexpr" in annotations.get(name, "") or value is None:
            signature[name] = "constexpr"
            constexprs[name] = value
        else:
            signature[name] = mangle_type(value)
    return signature, constexprs


# The interpreter patches triton.language's builtins with its own while a kernel runs, and a
# helper's call leaves them patched (InterpretedFunction.__call__ never restores); the compiler
# needs the originals. Every patch goes through _LangPatchScope.set_attr: the first value seen for
# each attribute is the original.
_ORIGINALS = {}  # (object, attribute name) -> its value before any patch, or _MISSING


def record_originals():
    from triton.runtime import interpreter
    scope = interpreter._LangPatchScope
    if getattr(scope.set_attr, "_kforge", False):
        return
    set_attr = scope.set_attr

    def recording(self, obj, name, value):
        _ORIGINALS.setdefault((obj, name), getattr(obj, name, interpreter._MISSING))
        return set_attr(self, obj, name, value)
    recording._kforge = True
    scope.set_attr = recording


class _Unpatched:
    """triton.language as the compiler needs it, for the duration of a compile: its builtins
    unpatched, and its @jit functions (tl.sigmoid, tl.softmax: InterpretedFunctions under the
    interpreter) and those of the modules the kernel names JIT functions again."""

    def __init__(self, fn, memo):
        self.fn, self.memo = fn, memo

    def __enter__(self):
        import sys
        from triton.runtime import interpreter
        modules = [module for name, module in list(sys.modules.items())
                   if name.startswith("triton.language") and module is not None]
        modules += [value for name, value in self.fn.__globals__.items()
                    if name in self.fn.__code__.co_names and isinstance(value, types.ModuleType)]
        swaps = dict(_ORIGINALS)
        for module in modules:
            for name, value in list(vars(module).items()):
                if isinstance(value, interpreter.InterpretedFunction):
                    swaps[(module, name)] = _jit_function(value.fn, self.memo)
        self.now = [(obj, name, getattr(obj, name, interpreter._MISSING)) for obj, name in swaps]
        self._set(swaps.items())
        return self

    def __exit__(self, *exc):
        self._set(((obj, name), value) for obj, name, value in self.now)
        return False

    @staticmethod
    def _set(items):
        from triton.runtime import interpreter
        for (obj, name), value in list(items):
            if value is interpreter._MISSING:
                if hasattr(obj, name):
                    delattr(obj, name)
            else:
                setattr(obj, name, value)


@functools.lru_cache(maxsize=1)
def _backend():
    from triton._C.libtriton import ir
    from triton.backends.compiler import GPUTarget
    from triton.compiler.compiler import make_backend
    target = GPUTarget(*_TARGET)
    backend = make_backend(target)
    options = backend.parse_options({})
    return ir, target, backend, options


def check(fn, args, kwargs):
    """None when the kernel `fn` (a plain function: the interpreter's InterpretedFunction.fn)
    compiles to Triton IR with these launch arguments, else the compiler's message."""
    from triton.compiler import ASTSource
    try:
        from triton.runtime.interpreter import InterpretedFunction
        signature, constexprs = _signature(fn, args, kwargs)
        memo = {}
        # a JIT helper passed as a constexpr is the interpreter's InterpretedFunction here: the
        # compiler needs it as a JITFunction, as the helpers a kernel names (_jit_function)
        compiled = {name: _jit_function(value.fn, memo) if isinstance(value, InterpretedFunction)
                    else value for name, value in constexprs.items()}
        source = ASTSource(_jit_function(fn, memo), signature, constexprs=compiled)
        ir, target, backend, options = _backend()
        context = ir.context()
        ir.load_dialects(context)
        backend.load_dialects(context)
        foreign, helpers = foreign_constexprs(fn, constexprs)
        foreign += foreign_calls(fn, helpers)
        if foreign:
            return (f"it calls {', '.join(foreign[:3])}, which is not Triton code: the "
                    f"interpreter runs it as Python")
        with _Unpatched(fn, memo):
            source.make_ir(target, options, backend.get_codegen_implementation(options),
                           backend.get_module_map(), context)
        return None
    except Exception as error:  # the compiler's CompilationError, or arguments it cannot type
        text = str(error).strip().splitlines()
        return (text[-1] if text else type(error).__name__)[:300]


_CHECKED = {}  # (kernel, signature, constexprs) -> check's answer: once per process


class Checker:
    """The kernels of one call that do not compile (each checked once per signature: a launch's
    argument types and constexprs)."""

    def __init__(self):
        self.failures = {}  # kernel name -> the compiler's message

    def launch(self, fn, args, kwargs):
        try:
            signature, constexprs = _signature(fn, args, kwargs)
            key = (fn, tuple(sorted(signature.items())),
                   tuple(sorted((k, repr(v)) for k, v in constexprs.items())))
        except Exception:
            key = (fn, None, None)
        if key not in _CHECKED:
            _CHECKED[key] = check(fn, args, kwargs)
        if _CHECKED[key] is not None:
            self.failures.setdefault(fn.__name__, _CHECKED[key])

    def reasons(self):
        return [f"its kernel {name} does not compile as Triton for a GPU ({message}): under the "
                f"CPU interpreter a kernel's body runs as Python, so kforge compiles every "
                f"kernel's source to Triton IR too" for name, message in
                sorted(self.failures.items())]


# once, when kforge_worker's trust modules (or the candidate host) import this: before any
# kernel runs interpreted (a helper's leftover patch seen first would be taken for the original)
try:
    record_originals()
except Exception:  # no Triton here (a judge without it): nothing to compile
    pass
