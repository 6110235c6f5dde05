"""Which kernels a forward launches, and how often.

- `count_triton_launches()`: a context manager counting Triton kernel launches by wrapping the
  launch path (JITFunction.run, and InterpretedFunction.run under TRITON_INTERPRET=1). Works on
  CPU and GPU; reusable by the trust checks ("the candidate must launch a kernel of its own").
- `profile_forward(fn, own_names)`: on GPU, one forward under torch.profiler; every device kernel
  with calls per forward, share of kernel time, and whether it is the candidate's own."""

import contextlib
import re
from collections import Counter

# Kernels from PyTorch's own libraries (ATen, cuBLAS, cuDNN, CUTLASS shipped with torch), and
# the Triton kernels torch.compile generates (inductor names them triton_poi_/red_/per_/tem_...).
_LIBRARY_KERNEL = re.compile(
    r"at::|aten::|cudnn|cublas|cutlass|gemm|gemv|xmma|sm\d+_|ampere_|volta_|turing_|hopper_|"
    r"elementwise_kernel|reduce_kernel|vectorized_|Memcpy|Memset|nchwToNhwc|nhwcToNchw|"
    r"splitKreduce|cask|fmha|flash|^triton_(poi|red|per|tem|for|spl)_", re.IGNORECASE)
# cuDNN's RNN kernels (RNN_blockPersist_fp_GRU, LSTM_elementWise_fp...): upper case only, so that
# a candidate's own `gru_step` kernel is not mistaken for one.
_CUDNN_RNN_KERNEL = re.compile(r"RNN_|LSTM_|GRU_|elementWise|elemWise")
# PyTorch's kernels that only move data (im2col for an unfold, contiguous copies, concatenation,
# fills, layout changes): they compute nothing of a task, so the own-work share leaves them out
# (a conv done as unfold + a GEMM of its own spends most of its time in 128 im2col launches).
# Not col2im: F.fold adds the overlapping blocks, a sum (blind red team, session 10).
_DATA_MOVEMENT_KERNEL = re.compile(
    r"im2col|vol2col|direct_copy_kernel|CatArrayBatchedCopy|FillFunctor|"
    r"nchwToNhwc|nhwcToNchw")


class LaunchCount:
    """Triton launches seen inside the context: `total`, `by_kernel` {name: count}, and for the
    numerics report (numerics_report.py) `dtypes` {name: {dtype of a tensor argument}} and
    `dots` {name: [tt.dot facts of its compiled TTIR]} (GPU only: the interpreter compiles
    nothing)."""

    def __init__(self):
        self.by_kernel = Counter()
        self.dtypes = {}
        self.dots = {}

    @property
    def total(self):
        return sum(self.by_kernel.values())


def _kernel_name(function):
    inner = getattr(function, "fn", None)
    return getattr(inner, "__name__", None) or getattr(function, "__name__", "triton_kernel")


@contextlib.contextmanager
def count_triton_launches():
    """Count launches of every @triton.jit kernel while the context is active."""
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction
    count = LaunchCount()
    originals = {cls: cls.run for cls in (JITFunction, InterpretedFunction)}

    def wrap(original):
        def run(self, *args, **kwargs):
            if kwargs.get("warmup", False):
                return original(self, *args, **kwargs)
            name = _kernel_name(self)
            count.by_kernel[name] += 1
            _note_dtypes(count.dtypes.setdefault(name, set()), args, kwargs)
            kernel = original(self, *args, **kwargs)
            if name not in count.dots:
                count.dots[name] = compiled_dots(kernel)
            return kernel
        return run

    for cls, original in originals.items():
        cls.run = wrap(original)
    try:
        yield count
    finally:
        for cls, original in originals.items():
            cls.run = original


def _note_dtypes(seen, args, kwargs):
    """The dtypes of the tensors among a launch's arguments (what the kernel reads and writes)."""
    for value in list(args) + list(kwargs.values()):
        dtype = getattr(value, "dtype", None)
        if dtype is not None and hasattr(value, "data_ptr"):
            seen.add(str(dtype).replace("torch.", ""))


# `%c = tt.dot %a, %b, %acc, inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x64xf16> ->
# tensor<64x64xf32>`; IEEE, the default, is not printed.
_TT_DOT = re.compile(r"tt\.dot\s[^:]*?(?:inputPrecision\s*=\s*(\w+)\s*)?:\s*"
                     r"tensor<(?:\d+x)*(\w+)>\s*\*\s*tensor<(?:\d+x)*(\w+)>\s*->\s*"
                     r"tensor<(?:\d+x)*(\w+)>")


def dots_in_ttir(text):
    """The `tt.dot` operations of a Triton IR text: [{"a", "b", "acc", "input_precision"}] with
    MLIR element types (f32, f16, bf16, f8E4M3FN...) and ieee | tf32 | tf32x3."""
    return [{"a": a, "b": b, "acc": acc, "input_precision": (precision or "ieee").lower()}
            for precision, a, b, acc in _TT_DOT.findall(text or "")]


def compiled_dots(kernel):
    """tt.dot facts of a compiled kernel (the object JITFunction.run returns on the GPU); []
    where there is no IR (the interpreter) or it cannot be read."""
    try:
        asm = getattr(kernel, "asm", None)
        return dots_in_ttir(asm.get("ttir") if asm is not None else None)[:16]
    except Exception:
        return []


def triton_kernel_names(module):
    """Names of the @triton.jit functions a candidate module defines (its own kernels)."""
    from triton.runtime.jit import KernelInterface
    names = set()
    for value in vars(module).values():
        if isinstance(value, KernelInterface):
            names.add(_kernel_name(value))
            inner = getattr(value, "fn", None)  # autotuner/heuristics wrap a JITFunction
            while inner is not None and isinstance(inner, KernelInterface):
                names.add(_kernel_name(inner))
                inner = getattr(inner, "fn", None)
    return names


def is_own_kernel(name, own_names):
    """A kernel is the candidate's own when it is one of its Triton kernels, or when its name is
    not one of PyTorch's libraries' (a custom extension kernel)."""
    base = name.split("(")[0].split("<")[0].replace("void ", "").strip()
    return base in own_names or not (_LIBRARY_KERNEL.search(name) or
                                     _CUDNN_RNN_KERNEL.search(name))


def kineto_session(cuda):
    """A Kineto profiling session (CPU operators, and the GPU's kernels when `cuda`), through
    torch.autograd.profiler rather than torch.profiler.profile: the latter's start evaluates
    `hasattr(torch, "_inductor")`, and torch's lazy attribute imports torch._inductor with
    torch._dynamo, torch.distributed and sympy (~800 modules: 1.8 s on this project's CPU
    machine, 4-6.6 s of every candidate process's start-up on an H200 host, session 27), and
    registers torch.library operators that would read as the candidate's side effect."""
    import torch
    return torch.autograd.profiler.profile(use_kineto=True, use_cpu=True,
                                           use_device="cuda" if cuda else None)


def profile_forward(fn, own_names):
    """Profile one call of `fn` on the GPU. Returns (launches, kernels list)."""
    import torch
    torch.cuda.synchronize()
    with kineto_session(cuda=True) as prof:
        fn()
        torch.cuda.synchronize()
    calls = Counter()
    times = Counter()
    for event in prof.function_events:
        if getattr(event, "device_type", None) != torch.autograd.DeviceType.CUDA:
            continue
        name = event.name
        if name.startswith("Memcpy") or name.startswith("Memset"):
            continue
        calls[name] += 1
        times[name] += event.time_range.elapsed_us()
    total_time = sum(times.values()) or 1
    kernels = [{"name": name, "calls_per_forward": calls[name],
                "time_share": round(times[name] / total_time, 4),
                "own": is_own_kernel(name, own_names),
                "data_movement": bool(_DATA_MOVEMENT_KERNEL.search(name))}
               for name in sorted(calls, key=lambda n: -times[n])]
    return sum(calls.values()), kernels


def cpu_launches(fn, own_names):
    """CPU (interpreter) mode: the Triton launches of one call of `fn`; no timing shares."""
    with count_triton_launches() as count:
        fn()
    kernels = [{"name": name, "calls_per_forward": calls, "time_share": None, "own": True}
               for name, calls in count.by_kernel.most_common()]
    return count.total, kernels
