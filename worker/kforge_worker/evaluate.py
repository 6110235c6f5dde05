"""`evaluate`: the judge. Checks a candidate against the reference and times it against PyTorch
(docs/trust.md, docs/protocol.md).

Two processes, two trust levels. The judge (this module, in the worker's forked evaluation
child) loads the task, builds the reference, draws every input set from a fresh, unpredictable
seed, computes the expected outputs (fp32 and fp64, kept on the device), times the baselines
(eager, torch.compile, CUDA graph) and writes the verdict. It never runs candidate code. The
candidate runs in a separate, freshly started, OS-confined process (candidate_host.py, started by
candidate_proxy.py) that only maps inputs to outputs: the judge writes inputs into buffers shared
with it and reads its outputs from others (shared_memory.py).

Order, each step able to end the evaluation with a status:
start the candidate process (its imports overlap the judge's work) -> load the task, build the
reference, record its operators (the policy) -> load and build the candidate -> correctness over N
fresh input sets (two input slots alternate, so the same addresses come back with new contents:
caches keyed by the tensor fail) with the inputs checked unchanged after every call -> constant
output check -> alternative-shape check -> timing in blocks interleaved with the baselines, every
timed output checked, the candidate's event times cross-checked with the judge's wall clock ->
profile -> a fresh input set after timing -> the candidate's own report (violations, side
effects)."""

import copy
import gc
import hashlib
import math
import os
import re
import statistics
import sys
import time

from kforge_worker import gpu_sharing, numerics, numerics_report
from kforge_worker.errors import Failure, describe
from kforge_worker.seeding import fresh_seed, seed_all
from kforge_worker.task_loader import LoadError, alternative_overrides, load_task

DEFAULTS = {"device": "cuda", "shrink": False, "overrides": None, "precision": "calibrated",
            "numerics": "tolerance",
            "input_sets": 5, "trials": 100, "warmup": 10, "flush_l2": True, "timeout_s": 600,
            "allow_pytorch_only": False, "check_generalization": True, "baselines": ["eager"],
            "profile": True, "timing_budget_s": 120}
BLOCK_TRIALS = 10               # timed trials per block (one round trip to the candidate;
                                # timing.BLOCK_TRIALS, the baseline command's blocks)
SLOT_BUDGET_BYTES = 4 << 30     # shared timing slots (inputs + outputs) at most this large
# A GPU task whose one input set and outputs together exceed this runs lean (full-size KernelBench:
# level1/23_Softmax is 6 GiB in and 6 GiB out, on an 80 GB H100): one shared slot, reused for
# timing (every set arrives at the same addresses with new contents); blocks of one trial, each
# on a fresh set (as every task's timed calls), one set and its expected outputs at a time.
LEAN_SET_BYTES = 2 << 30
# Checked sets drawn ahead, with their references, while the candidate computes: at most this
# many bytes of inputs and expected outputs held (correctness, prepare_set)
READ_AHEAD_BYTES = 512 << 20
# A reference that ran this often here for the checked sets needs no warm-up calls before its
# first eager block (its round 0 of timing still runs)
WARM_REFERENCE_RUNS = 3
# The fp64 reference falls back to the host (when it failed on the GPU) only for input sets and
# outputs this small: float64 doubles them, and the judge's host memory is limited
# (sandbox.DEFAULT_HOST_MEMORY_GB); larger tasks go without (the note says why).
HOST_FP64_MAX_BYTES = 1 << 30
# A float64 reference run on the device needs about this many times its widened inputs and
# outputs (themselves, and temporaries as large: a norm's x.pow(2), its quotient).
FP64_DEVICE_FACTOR = 3
MIN_OWN_SHARE = 0.1             # on the GPU, the own kernels' share of its computing GPU time
SCRATCH_COPY = re.compile(r"[^\s\"']*kforge-cand-[^/\s]+/scratch/kforge_candidate\.py")
# Model and ModelNew are built from this seed, so equal parameter layouts get equal weights. It
# is no secret: the weights are not the answer; the inputs, drawn from fresh seeds, are.
SEED_BASE = 1000
# Every forward starts from this RNG state, so that a task drawing random numbers inside forward
# (some public KernelBench versions draw h0 there) draws the same for the candidate and the
# reference.
FORWARD_SEED = 424242


def block_size(in_bytes, out_bytes):
    """Timed trials per block: BLOCK_TRIALS, fewer where that many input sets and outputs
    would exceed SLOT_BUDGET_BYTES (a lean task's is 1)."""
    return max(1, min(BLOCK_TRIALS, SLOT_BUDGET_BYTES // max(in_bytes + out_bytes, 1)))


def output_specs(outputs):
    """(dtype, shape, nbytes) of each tensor of a forward's result; None when it is not a
    tensor or a list of them."""
    import torch
    items = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    if not all(isinstance(item, torch.Tensor) for item in items):
        return None
    return [(item.dtype, tuple(item.shape), item.numel() * item.element_size())
            for item in items]


# How the last checked sets spread the task's non-negative float inputs (torch.rand's [0, 1)),
# in place (widen_values): the last set over [-8, 8), the one before over [0, 8). On [0, 1)
# HardTanh and ReLU are the identity, so a copy kernel passed every set the task draws (blind
# red team, session 11); a HardSigmoid without its clamps at +-3 passed [-2, 2), and a HardTanh
# clamping only where a block held a negative (the widened set's mark) passed [-8, 8) (session
# 15); [0, 8) has no negatives and passes 1, 3 and 6.
# Sprinkles (session 17): one element in SPRINKLE_EVERY (at least SPRINKLE_MIN, or all) becomes
# +-0 (one sprinkle in SPRINKLE_ZERO_EVERY) or +-2^e x m, e uniform over SPRINKLE_BINADES, so
# values beyond +-8, exact zeros and values a uniform draw meets once in a million (below 2^-20)
# are met at any size (session 16: a LeakyReLU clamped to [-8, 8], a HardSigmoid wrong below
# 2^-20; session 17: a LeakyReLU NaN at 0, a Softplus clamped at 1024, passed). The [-8, 8) set
# is sprinkled; the one before it ("sprinkled", with 4 sets or more) is the task's own [0, 1)
# with sprinkles only; [0, 8) has none. So a candidate keying its behaviour on telltale values
# (|x| > 8, tiny ones) is wrong on [0, 8), and one keying it on the share of large values is
# wrong on the sprinkled [0, 1) set (session 17's red team, r03 and r05b).
# name: (scale, shift, range as reported, sprinkled: None, "signed" or "positive")
WIDENINGS = {"signed": (16, 8, "[-8, 8)", "signed"), "positive": (8, 0, "[0, 8)", None),
             "sprinkled": (1, 0, "[0, 1)", "signed"),
             "signed_unsprinkled": (16, 8, "[-8, 8)", None),
             "signed_mild": (4, 2, "[-2, 2)", None), "positive_mild": (2, 0, "[0, 2)", None)}
# Where the reference's outputs are not finite on a spread set (an exp, a cumprod of 1024 terms
# of [0, 8), a log of a negative), the milder spreads are tried in this order, each on a fresh
# draw, before a plain set; the result's notes name every spread given up (session 16: a cumprod
# of min(|x|, 1) passed where both spreads overflowed and plain sets were drawn silently).
MILDER = {"signed": ("signed_unsprinkled", "signed_mild", "positive_mild"),
          "positive": ("positive_mild",), "sprinkled": ()}
SPRINKLE_EVERY = 64
SPRINKLE_MIN = 256
SPRINKLE_ZERO_EVERY = 8
SPRINKLE_BINADES = (-24, 20)  # the top capped below the dtype's largest binade (float16: 2^14)


def widening_label(widening):
    _, _, label, sprinkled = WIDENINGS[widening]
    if not sprinkled:
        return label
    low, high = SPRINKLE_BINADES
    sign = "+-" if sprinkled == "signed" else ""
    return f"{label}, 1 in {SPRINKLE_EVERY} elements {sign}0 or {sign}[2^{low}, 2^{high})"


def widen_values(input_set, widening="signed", seed=0):
    """Spreads the non-negative float inputs of `input_set` as WIDENINGS[widening] says (the
    sprinkle's positions and values drawn from `seed`). Returns the positions of the inputs it
    changed ([] when none is such: signed draws are left as they are)."""
    import torch
    scale, shift, _, sprinkled = WIDENINGS[widening]
    changed = []
    for position, value in enumerate(input_set):
        if isinstance(value, torch.Tensor) and value.is_floating_point() and value.numel() and \
                bool(value.min() >= 0):
            if (scale, shift) != (1, 0):  # the sprinkled [0, 1) set: no pass over the tensor
                value.mul_(scale).sub_(shift)
            if sprinkled:
                sprinkle(value, seed + position, signed=sprinkled == "signed")
            changed.append(position)
    return changed


def sprinkle(value, seed, signed=True):
    """Sets one element in SPRINKLE_EVERY of `value` (at least SPRINKLE_MIN, or every one) to
    (+-)0 (one in SPRINKLE_ZERO_EVERY) or (+-) 2^e x m, e uniform over SPRINKLE_BINADES, m in
    [1, 2), in place, at positions drawn with replacement. Indices, not a mask: a few percent of
    the tensor's bytes on top of it, whatever its size. A non-contiguous tensor is left as is."""
    import torch
    if not value.is_contiguous():
        return
    flat = value.view(-1)
    generator = torch.Generator(device=value.device).manual_seed(seed)
    count = min(flat.numel(), max(SPRINKLE_MIN, flat.numel() // SPRINKLE_EVERY))
    where = torch.randint(flat.numel(), (count,), generator=generator, device=value.device)
    low, high = SPRINKLE_BINADES
    high = min(high, math.frexp(torch.finfo(flat.dtype).max)[1] - 2)  # float32: 126
    exponent = torch.randint(low, high, (count,), generator=generator, device=value.device,
                             dtype=torch.int32)
    mantissa = 1 + torch.rand(count, generator=generator, device=value.device)
    drawn = torch.ldexp(mantissa, exponent.to(torch.float32))
    zero = torch.randint(0, SPRINKLE_ZERO_EVERY, (count,), generator=generator,
                         device=value.device, dtype=torch.int32) == 0
    drawn = torch.where(zero, torch.zeros_like(drawn), drawn)
    if signed:
        drawn = drawn * (torch.randint(0, 2, (count,), generator=generator, device=value.device,
                                       dtype=torch.int32) * 2 - 1)
    flat[where] = drawn.to(flat.dtype)


def all_finite(outputs):
    import torch
    return all(bool(torch.isfinite(item).all()) for item in outputs
               if isinstance(item, torch.Tensor) and item.is_floating_point())


def draw_inputs(task, device, seed):
    """The task's get_inputs() from `seed`, drawn directly on `device`: it is called under
    `with torch.device(device)`, so torch's factory functions (randn, rand, zeros, tensor, ...)
    allocate there. That spares a large task the CPU draw and the host-to-device copy (softmax's
    256 MB torch.randn took 0.45 s per input set on the CPU). Tensors it still returns on the CPU
    (torch.from_numpy, an explicit device="cpu") are left for the caller to move. Device "cpu"
    is the plain call, without the context (CPU mode as before).

    A task whose get_inputs() fails under the context (numpy conversions, a CPU generator, a
    CPU-only op) is drawn again on the CPU from the same seed, and its later draws go straight to
    the CPU: `task.inputs_fallback` keeps the first error, so the device is tried once per task.
    Values differ between the two paths (different generators), never between the runs of one
    input set: every run clones the same drawn set.

    Returns (values, where): where is `device`, or "cpu" for the plain draw. A task failing on
    the CPU too raises LoadError as before."""
    import torch
    if device != "cpu" and task.inputs_fallback is None:
        seed_all(seed)
        try:
            with torch.device(device):
                return task.inputs(), device
        except LoadError as error:
            cause = error.__cause__ or error
            task.inputs_fallback = f"{type(cause).__name__}: {str(cause)[:200]}"
    seed_all(seed)
    return task.inputs(), "cpu"


def clone_values(values, device=None):
    import torch
    out = []
    for value in values:
        if isinstance(value, torch.Tensor):
            value = value.detach().clone()
            out.append(value.to(device) if device is not None else value)
        else:
            out.append(copy.deepcopy(value))
    return out


def to_float64(model, device):
    """A float64 copy of the reference on `device`. Plain tensor attributes (KernelBench's h0/c0
    created in __init__) are converted too: Module.double() only converts parameters and buffers."""
    import torch
    model64 = copy.deepcopy(model).to(device).double()
    for sub in model64.modules():
        for name, value in list(vars(sub).items()):
            if isinstance(value, torch.Tensor) and value.is_floating_point():
                setattr(sub, name, value.to(device, torch.float64))
        # A float32 tensor made inside forward (KernelBench 35_LSTM draws h0/c0 there with
        # torch.randn) reaches a float64 submodule: upcast it, the same values as the fp32
        # reference drew from the same RNG state.
        try:
            sub.register_forward_pre_hook(_upcast_arguments, with_kwargs=True)
        except Exception:  # a scripted submodule takes no hooks: left as it was
            pass
    return model64


def _upcast_arguments(module, args, kwargs):
    import torch

    def up(value):
        if isinstance(value, torch.Tensor) and value.dtype in (torch.float32, torch.float16,
                                                               torch.bfloat16):
            return value.double()
        if type(value) in (tuple, list):  # an LSTM's (h0, c0); not a PackedSequence
            return type(value)(up(item) for item in value)
        return value
    return tuple(up(a) for a in args), {k: up(v) for k, v in kwargs.items()}


def _short_repr(value):
    import torch
    if isinstance(value, torch.Tensor):
        return f"tensor{list(value.shape)}"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def ahead_bytes(prepared):
    """What a prepared checked set holds: its inputs and both references' outputs."""
    return sum(tensor_bytes(part) for part in prepared[:3] if part is not None)


def tensor_bytes(values):
    import torch
    return sum(v.numel() * v.element_size() for v in values if isinstance(v, torch.Tensor))


def widened_values(values, device):
    """clone_values then upcast, without the intermediate clone of a float tensor (the largest
    input of a full-size task need not exist three times at once)."""
    import torch
    out = []
    for value in values:
        if isinstance(value, torch.Tensor) and value.is_floating_point():
            out.append(value.detach().to(device=device, dtype=torch.float64, copy=True))
        else:
            out.extend(clone_values([value], device if isinstance(value, torch.Tensor) else None))
    return out


def upcast(values):
    import torch
    return [v.double() if isinstance(v, torch.Tensor) and v.is_floating_point() else v
            for v in values]




def same_values(a, b):
    """Whether two argument lists hold bit-identical tensors (other values are not compared)."""
    import torch

    from kforge_worker.correctness import same_outputs
    return same_outputs([v for v in a if isinstance(v, torch.Tensor)],
                        [v for v in b if isinstance(v, torch.Tensor)])


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def _json_value(value):
    """A non-tensor forward or constructor argument, as JSON, or raise (the task's problem)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)) and all(
            item is None or isinstance(item, (bool, int, float, str)) for item in value):
        return list(value)
    raise LoadError(f"an argument of type {type(value).__name__} cannot be passed to the "
                    f"candidate process (tensors, numbers, strings and lists of them can)")


def share_values(candidate, values):
    """Arguments for the candidate process: tensors copied into new shared buffers, other values
    as JSON. Returns the encoded arguments."""
    import torch
    tensors = [value for value in values if isinstance(value, torch.Tensor)]
    ids = iter(candidate.share([max(t.numel() * t.element_size(), 1) for t in tensors])
               if tensors else [])
    args = []
    for value in values:
        if isinstance(value, torch.Tensor):
            key = next(ids)
            candidate.buffers[key].view(value.dtype, value.shape).copy_(value)
            args.append({"buffer": key, "dtype": _dtype_name(value.dtype),
                         "shape": list(value.shape)})
        else:
            args.append({"value": _json_value(value)})
    if candidate.device == "cuda":
        torch.cuda.synchronize()
    return args


class Slots:
    """Shared buffers for one input set's tensors (`inputs`) and one call's outputs
    (`outputs`), sized for a shape configuration: the judge writes inputs and reads outputs."""

    def __init__(self, candidate, input_set, expected):
        import torch
        self.candidate = candidate
        self.positions = [index for index, value in enumerate(input_set)
                          if isinstance(value, torch.Tensor)]
        self.input_sizes = [max(value.numel() * value.element_size(), 1)
                            for value in input_set if isinstance(value, torch.Tensor)]
        self.output_sizes = [max(item.numel() * item.element_size(), 1) for item in expected]
        self.expected = [(item.dtype, tuple(item.shape)) for item in expected]
        self.renew()

    def like(self):
        """New slots of the same sizes and expected outputs."""
        other = copy.copy(self)
        other.renew()
        return other

    def renew(self):
        """New buffers of the same sizes (after release)."""
        self.input_ids = self.candidate.share(self.input_sizes)
        self.output_ids = self.candidate.share(self.output_sizes)

    def write(self, input_set):
        """Copy an input set into the slot; returns the encoded arguments of the call."""
        import torch
        args, ids = [], iter(self.input_ids)
        for value in input_set:
            if isinstance(value, torch.Tensor):
                key = next(ids)
                view = self.candidate.buffers[key].view(value.dtype, value.shape)
                view.copy_(value)
                args.append({"buffer": key, "dtype": _dtype_name(value.dtype),
                             "shape": list(value.shape)})
            else:
                args.append({"value": _json_value(value)})
        if self.candidate.device == "cuda":
            torch.cuda.synchronize()
        return args

    def changed_inputs(self, input_set):
        """Indices of tensor inputs whose bytes in the slot differ from the input set's."""
        import torch
        changed = []
        for key, position in zip(self.input_ids, self.positions):
            value = input_set[position]
            view = self.candidate.buffers[key].view(value.dtype, value.shape)
            if not torch.equal(view.reshape(-1).view(torch.uint8),
                               value.contiguous().reshape(-1).view(torch.uint8)):
                changed.append(position)
        return changed

    def outputs(self, described, where):
        """The candidate's outputs (views over the output buffers), after checking what it
        reported about them against the reference's outputs; a Failure otherwise."""
        if not isinstance(described, list):
            raise Failure("runtime_error", f"{where}: the candidate process sent no outputs")
        if len(described) != len(self.expected):
            raise Failure("wrong_output", f"{where}: returned {len(described)} outputs, expected "
                                          f"{len(self.expected)}")
        got = []
        for index, (entry, (dtype, shape), key) in enumerate(
                zip(described, self.expected, self.output_ids)):
            entry = entry if isinstance(entry, dict) else {}
            if entry.get("type") != "tensor":
                raise Failure("wrong_output", f"{where}: output {index} is a "
                                              f"{entry.get('type')}, expected a tensor")
            if entry.get("subclass"):
                raise Failure("rejected", f"output {index} is a torch.Tensor subclass (lazy or "
                                          f"overridden behaviour); return a plain tensor",
                              reasons=[f"output {index} is a torch.Tensor subclass"])
            if entry.get("device") != self.candidate.device:
                raise Failure("wrong_output", f"{where}: output {index} is on "
                                              f"{entry.get('device')}, expected "
                                              f"{self.candidate.device}")
            if list(entry.get("shape") or []) != list(shape):
                raise Failure("wrong_output", f"{where}: output {index} has shape "
                                              f"{entry.get('shape')}, expected {list(shape)}")
            if entry.get("dtype") != _dtype_name(dtype):
                raise Failure("wrong_output", f"{where}: output {index} has dtype "
                                              f"torch.{entry.get('dtype')}, expected {dtype}")
            if not entry.get("copied"):
                raise Failure("runtime_error", f"{where}: output {index} was not delivered")
            got.append(self.candidate.buffers[key].view(dtype, shape))
        return got

    def release(self):
        self.candidate.release(self.input_ids + self.output_ids)


def with_defaults(request):
    """The request's fields over DEFAULTS (a field sent as null takes its default)."""
    return {**DEFAULTS, **{k: v for k, v in request.items() if v is not None}}


class Evaluation:
    def __init__(self, request, scratch, started):
        import torch
        self.torch = torch
        self.request = with_defaults(request)
        self.device = self.request["device"]
        self.precision = self.request["precision"]
        self.scratch = scratch
        self.task_path = self.request["task_path"]
        self.candidate_path = self.request["candidate_path"]
        self.deadline = started + float(self.request["timeout_s"])
        self.result = {"status": "ok", "error": "", "error_location": None, "reasons": [],
                       "correctness": None, "generalizes": "unknown", "timing": None,
                       "score": None, "speedup_vs_best_baseline": None,
                       "launches_per_forward": None, "kernels": [], "timed_s": 0.0,
                       "inputs_drawn_on": None, "seeds": [], "side_effects": [],
                       "confinement": None}
        self.files = {}
        self.settings = numerics.capture()
        self.model64 = None
        self.fp64_error = None
        self.fp64_missing = False
        self.fp64_host_skipped = None  # bytes of a task too large for a host fp64 reference
        self.candidate = None
        self.lean = False             # LEAN_SET_BYTES: decided on the first input set
        self.reference_mutates_inputs = True   # until the recording run shows otherwise
        self.input_dtypes = []
        self.source = b""
        self.numerics_seen = None  # what the candidate process said each call computed in
        # per output: the checked calls' largest errors and what their verdict allowed
        # (Comparison.bounds: what timed calls are held to, timed_check.py)
        self.checked_bounds = {}
        self.harness_gaps = None   # the calibration's per-trial gaps (calibration.py)
        self.reference_call_s = None  # the fp32 reference's fastest checked run (wall, synced)
        self.first_expected = None  # the first checked set's (want32, want64), made during load
        self.set_times = []   # per reference run: fp32 and fp64 seconds (diagnostics)
        self.call_times = []  # per checked call: the judge's wait, the candidate's own seconds
        self.task = None      # loaded by load(), or before the request by prefetch()
        self.prefetched = {}  # checked set index: its prepare_set, made before the request
        # [(alternative shapes, generalization_reference there)], made before the request
        self.generalization_ahead = []
        # the set checked after timing: (seed, inputs, want32, want64), drawn before timing
        self.after_timing = None
        self.source_facts = None  # candidate_source_facts
        self.reference_runs = 0   # fp32 runs of the task's reference here (warm: timing)
        self.probes_ahead = None  # (warm host, probes, Watch): attach_probes_ahead

    # ---- helpers ----------------------------------------------------------------------------

    def reference_code(self, what):
        """The reference failing is the task's problem, not the candidate's: ok=false."""
        from contextlib import contextmanager

        from kforge_worker.sandbox import RequestFailure

        @contextmanager
        def guard():
            try:
                yield
            except LoadError as error:  # already located and worded
                raise RequestFailure(str(error)) from None
            except Exception as error:
                text, _ = describe(error, self.files)
                raise RequestFailure(f"failed to {what} of {self.task_path}:\n{text}") from None
        return guard()

    def sync(self):
        if self.device == "cuda":
            self.torch.cuda.synchronize()

    def next_seed(self):
        """The next input set's seed: fresh from the OS, or, given the run's secret
        `input_seed`, the k-th of a stream derived from it (every candidate of a run sees the
        same sets, so errors compare; no candidate ever learns the seed)."""
        base = self.request.get("input_seed")
        if base is None:
            return fresh_seed()
        self.draws = getattr(self, "draws", 0) + 1
        digest = hashlib.sha256(f"{int(base)}:{self.draws}".encode()).digest()
        return int.from_bytes(digest[:8], "little") % (2 ** 62)

    def make_inputs(self, seed):
        """One input set, drawn by the judge from `seed`; recorded in the result's `seeds`."""
        self.result["seeds"].append(seed)
        with self.reference_code("call get_inputs()"), numerics.under(self.settings):
            values, where = draw_inputs(self.task, self.device, seed)
            self.result["inputs_drawn_on"] = where
            return clone_values(values, where)

    def build_reference(self):
        seed_all(SEED_BASE)
        with self.reference_code("call get_init_inputs()"):
            init_inputs = self.task.init_inputs()
        seed_all(SEED_BASE)
        with self.reference_code("build Model"), numerics.under(self.settings):
            reference = self.task.model_class(*clone_values(init_inputs)).to(self.device).eval()
        return reference, init_inputs

    def run_reference(self, model, input_set):
        """The fp32 reference's outputs on the device (they stay there: the candidate cannot
        reach the judge's memory, and no host copy of a large output is made)."""
        from kforge_worker.correctness import output_list
        seed_all(FORWARD_SEED)
        # a copy only where the reference may write into its inputs (the recording run showed
        # it) or the set is small: an 8 GiB input is not copied for a reference that reads it
        arguments = input_set if self.large_on_device(input_set) and \
            not self.reference_mutates_inputs else clone_values(input_set, self.device)
        with self.reference_code("run the reference"), self.torch.no_grad(), \
                numerics.under(self.settings):
            outputs = output_list(model(*arguments), "the reference's")
            return [item.detach().clone() for item in outputs]

    def run_reference64(self, model, input_set, host_bytes=0):
        """fp64 reference on the device if it runs there (cuDNN RNNs do), else on the CPU; None
        when it runs nowhere (an op without a float64 kernel, a task forcing float32): the fp32
        reference then stands in and the calibrated verdict equals the kernelbench one."""
        from kforge_worker.correctness import output_list
        if self.model64 is None or self.model64[0] is not model:
            host_ok = self.device == "cpu" or host_bytes <= HOST_FP64_MAX_BYTES
            device_ok = self.device == "cpu" or self.fp64_fits_device(host_bytes)
            self.model64 = [model, None, None, ([self.device] if device_ok else []) + (
                ["cpu"] if host_ok and self.device != "cpu" else [])]
            if not host_ok:
                self.fp64_host_skipped = host_bytes
        state = self.model64
        while True:
            if state[1] is None:
                if not state[3]:
                    return None
                state[2] = state[3].pop(0)
                try:
                    state[1] = to_float64(model, state[2])
                except Exception as error:
                    self.fp64_error = f"{type(error).__name__}: {str(error)[:200]}"
                    continue
            try:
                seed_all(FORWARD_SEED)
                with self.torch.no_grad(), numerics.under(self.settings):
                    return [item.detach() for item in output_list(state[1](*widened_values(
                        input_set, state[2])), "the reference's")]
            except Exception as error:
                self.fp64_error = f"{type(error).__name__}: {str(error)[:200]}"
                state[1] = None
                if state[2] != "cpu":
                    self.torch.cuda.empty_cache()

    def lean_set(self, input_set, want32):
        """Whether a task whose one input set and fp32 outputs are these runs lean (one slot,
        one set at a time: LEAN_SET_BYTES)."""
        return self.device == "cuda" and \
            tensor_bytes(input_set) + tensor_bytes(want32) > LEAN_SET_BYTES

    def large_on_device(self, values):
        """Whether `values` (an input set) are large enough on the GPU that a spare copy of
        them, or temporaries left in the allocator, can cost the task its memory."""
        return self.device != "cpu" and tensor_bytes(values) > LEAN_SET_BYTES // 4

    def fp64_fits_device(self, fp64_bytes):
        """Whether a float64 reference run (its widened inputs and outputs, `fp64_bytes`, and as
        much again twice over for its temporaries) fits on the device beside what the task still
        needs there (the shared slots and the candidate's own inputs, outputs and temporaries:
        three times the fp32 set). Full-size level1/36_RMSNorm, 38_L1Norm and 39_L2Norm (8 GiB in,
        8 out) ran the judge out of an 80 GB H100 trying (2026-11-25); they go without."""
        free, _ = self.torch.cuda.mem_get_info()
        free += self.torch.cuda.memory_reserved() - self.torch.cuda.memory_allocated()
        need = FP64_DEVICE_FACTOR * fp64_bytes + 3 * fp64_bytes // 2
        if need <= free:
            return True
        self.fp64_error = (f"skipped on the device: {need / 1024 ** 3:.1f} GiB for its float64 "
                           f"inputs, outputs and temporaries beside the task's slots, "
                           f"{free / 1024 ** 3:.1f} GiB free")
        return False

    def expected(self, model, input_set):
        began = time.perf_counter()
        want32 = self.run_reference(model, input_set)
        self.reference_runs += model is self.reference
        self.sync()
        took = time.perf_counter() - began
        self.reference_call_s = min(took, self.reference_call_s or took)
        want64 = self.run_reference64(model, input_set,
                                      2 * (tensor_bytes(input_set) + tensor_bytes(want32)))
        self.sync()
        self.set_times.append({"ref32_s": round(took, 4),
                               "ref64_s": round(time.perf_counter() - began - took, 4)})
        if want64 is None:
            self.fp64_missing = True
            want64 = want32
        if self.device != "cpu" and \
                tensor_bytes(input_set) + tensor_bytes(want32) > LEAN_SET_BYTES // 2:
            # The references' temporaries (float64 ones twice the size) stay reserved in this
            # process's caching allocator; the shared slots (cuMemCreate) and the candidate's
            # process cannot use that memory. Full-size level1/25_Swish (6 GiB in, 6 out) ran
            # the candidate out of memory with 55 GiB held here (H100, 2026-11-25).
            self.torch.cuda.empty_cache()
        return want32, want64

    def call(self, slots, input_set, where):
        """One checked call of the candidate on `input_set` (written into `slots`): its outputs,
        copied into the judge's memory."""
        self.send_call(slots, input_set)
        return self.call_reply(slots, input_set, where)

    def send_call(self, slots, input_set):
        """The first half of `call`: the candidate computes while the judge runs the reference
        on its own copy of the set (the two overlap: the references of a checked set and the
        candidate's guarded call each took ~0.1 s on a GRU task, one after the other)."""
        args = slots.write(input_set)
        self.candidate.send({"op": "call", "args": args, "outputs": slots.output_ids,
                             "seed": FORWARD_SEED})

    def call_reply(self, slots, input_set, where):
        """The second half of `call`: the reply, the inputs checked unchanged, the outputs."""
        waited = time.perf_counter()
        reply = self.candidate.reply()
        self.call_times.append({"wait_s": round(time.perf_counter() - waited, 4),
                                "candidate_s": reply.get("took_s")})  # diagnostics
        changed = slots.changed_inputs(input_set)
        if changed:
            raise Failure("rejected", f"mutated input {changed[0]} in place ({where})",
                          reasons=[f"mutated input {changed[0]} in place"])
        self.last_call = reply
        self.numerics_seen = numerics_report.merge(self.numerics_seen, reply.get("numerics"))
        # One copy into the judge's own memory: every check of this call reads the same values,
        # whatever touches the shared buffers later (a48 read one live buffer twice).
        return [view.clone() for view in slots.outputs(reply.get("outputs"), where)]

    # ---- steps ------------------------------------------------------------------------------

    def start_candidate(self):
        """The candidate process: the warm one the worker started ahead (warm_pool), else one
        started now; its imports overlap the judge's own work either way."""
        from kforge_worker import warm_pool
        from kforge_worker.candidate_proxy import CandidateProcess
        from kforge_worker.confinement import build_cache, probe
        from kforge_worker.sandbox import DEFAULT_HOST_MEMORY_GB, RequestFailure, resolve
        try:
            with open(resolve(self.request, "candidate_path"), "rb") as handle:
                source = handle.read()
        except OSError as error:
            raise RequestFailure(f"failed to read candidate {self.candidate_path}: "
                                 f"{error.strerror}") from None
        if probe().get("refuse"):
            raise RequestFailure(f"refusing to run candidate code: {probe()['warning']} "
                                 f"(KFORGE_CONFINEMENT=require)")
        host = warm_pool.adopted if getattr(warm_pool.adopted, "device", None) == self.device \
            else None
        self.result["warm_start"] = host is not None
        if host is None:
            host = warm_pool.WarmHost(self.device)
        self.source = source
        self.copy_path = os.path.join(host.scratch, "kforge_candidate.py")
        with open(self.copy_path, "wb") as handle:
            handle.write(source)
        memory = float(self.request.get("host_memory_gb") or DEFAULT_HOST_MEMORY_GB) * 1024 ** 3
        self.candidate = CandidateProcess(host, build_cache(source), self.deadline, memory,
                                          float(self.request["timeout_s"]))
        self.result["confinement"] = {key: value for key, value in
                                      self.candidate.confinement.items() if key != "status_fd"}
        # every exec of the candidate's process tree goes through the judge from here on
        self.candidate.seal()
        # how long ago the process was started and what its start-up took (its own account):
        # an evaluation waits here whenever a warm process's start-up outlasts its lead
        self.result["candidate_start"] = dict(self.candidate.startup or {},
                                              age_s=round(time.monotonic() - host.started, 3))
        self.result["confinement"]["exec_monitor"] = self.candidate.monitor is not None
        if self.candidate.monitor is not None:  # the seal installs the denylist without bwrap
            self.result["confinement"]["seccomp"] = True
        if self.candidate.seal_note:
            self.result.setdefault("notes", []).append(self.candidate.seal_note)
        if self.candidate.confinement.get("warning"):
            self.result.setdefault("notes", []).append(
                "WARNING: " + self.candidate.confinement["warning"])

    def load(self):
        """The task here, the candidate there, at the same time: the candidate process imports
        the candidate while the judge builds the reference and records its operators (a judge
        prepared ahead did its part before the request: prefetch)."""
        prefetched = self.task is not None
        if not prefetched:
            self.load_task()
        # the process-wide setup there while the reference is built here
        self.candidate.send({"op": "setup", "device": self.device})
        if not prefetched:
            self.load_reference()
        first = self.first_set
        self.candidate.watch_operators(self.policy_rules)
        probes_ahead, self.probes_ahead = self.probes_ahead, None
        self.candidate.adopt_probes(probes_ahead)
        self.result["judge_probes_ahead"] = probes_ahead is not None and \
            self.candidate.operator_watch is probes_ahead[2]
        self.candidate.reply()
        if self.device == "cuda" or self.request.get("time_on_cpu"):
            self.calibrate(first, self.first_output_specs)
        self.candidate.send({
            "op": "load", "candidate": self.copy_path, "display": self.candidate_path,
            "shapes": self.task.shapes, "device": self.device,
            "reference_name": self.task.model_class.__name__,
            "allow_pytorch_only": bool(self.request["allow_pytorch_only"])})
        # While the candidate is imported there: the first checked set's expected outputs here
        # (~0.1 s of cuDNN's GRU and its float64 twin, and the twin's build; not for a set
        # large enough that its outputs must not wait on the device beside the candidate's)
        if not self.large_on_device(first) and self.first_expected is None:
            self.first_expected = self.expected(self.reference, first)
        self.candidate.reply()
        self.build_candidate(self.init_inputs)

    def load_task(self):
        from kforge_worker.sandbox import RequestFailure, resolve
        try:
            self.task = load_task(self.task_path, self.request["shrink"],
                                  self.request["overrides"], resolve(self.request, "task_path"))
        except LoadError as error:
            raise RequestFailure(str(error)) from None
        self.files[os.path.abspath(self.task.module.__file__)] = self.task_path

    def load_reference(self):
        """The judge's own part of loading, no candidate involved: the reference, the first
        checked set, and the operator policy recorded from the reference's run on it."""
        from kforge_worker.sandbox import RequestFailure
        from kforge_worker.trust_ops import ModuleRecorder, OpRecorder, Policy, TensorScale
        from torch.utils._pytree import tree_leaves
        self.reference, self.init_inputs = self.build_reference()
        # The policy: the reference's operators, recorded here, in the judge.
        first = self.make_inputs(self.next_seed())
        ops, modules, scale = OpRecorder(), ModuleRecorder(), TensorScale()
        seed_all(FORWARD_SEED)
        outputs = None
        try:
            recorded = clone_values(first, self.device)
            with self.torch.no_grad(), numerics.under(self.settings), modules, ops, scale:
                outputs = self.reference(*recorded)
            policy = Policy(ops.names, [t for t in modules.types
                                        if t is not type(self.reference)], self.task.model_class)
            policy.note_scale(first, outputs, self.reference, scale.largest)
            policy.macs, policy.epilogue = int(scale.macs), int(scale.volume)
            policy.out_elements = sum(item.numel() for item in tree_leaves(outputs)
                                      if isinstance(item, self.torch.Tensor))
            self.reference_mutates_inputs = not same_values(recorded, first)
        except Exception as error:
            # Never judge without a policy (an empty one lets torch.softmax through): a reference
            # that fails on its own shows in its real run below; one that runs, but not under
            # the recorders, is the harness's problem, and no verdict is given.
            try:
                seed_all(FORWARD_SEED)
                with self.torch.no_grad(), numerics.under(self.settings):
                    self.reference(*clone_values(first, self.device))
            except Exception:
                policy = Policy([], [], self.task.model_class)
            else:
                text, _ = describe(error, self.files)
                raise RequestFailure(f"failed to record the operators of the reference of "
                                     f"{self.task_path}:\n{text}") from None
        recorded = None
        if self.large_on_device(first):
            # the recording's copy and temporaries back to the driver before the candidate
            # process allocates (full-size level1/38_L1Norm: 8 GiB each, the judge ran out)
            self.torch.cuda.empty_cache()
        self.first_set = first
        self.input_dtypes = [value.dtype for value in first
                             if isinstance(value, self.torch.Tensor)]
        self.policy_rules = policy
        self.policy = policy.describe()
        # the outputs themselves freed before calibrating
        self.first_output_specs = output_specs(outputs)
        # one set's inputs and both references' outputs (float64 twice the bytes), held ahead
        self.set_bytes = tensor_bytes(first) + 3 * sum(
            nbytes for _, _, nbytes in self.first_output_specs or [])

    def prefetch(self, request_waiting):
        """load_reference, the checked sets (prefetch_sets), then the operator probes attached
        to the warm candidate process this judge will drive (attach_probes_ahead)."""
        self.prefetch_sets(request_waiting)
        if not request_waiting():
            self.attach_probes_ahead()

    def attach_probes_ahead(self):
        """The policy's operator probes on the warm candidate process this judge adopted, while
        it waits idle (CandidateProcess.adopt_probes takes them at the request)."""
        from kforge_worker import operator_probes, warm_pool
        from kforge_worker.candidate_proxy import attach_probes
        host, rules = warm_pool.adopted, self.policy_rules
        if getattr(host, "device", None) != self.device or rules is None:
            return
        try:
            probes = operator_probes.chosen(rules.ops, rules.dense, rules.recurrent)
            if probes:
                self.probes_ahead = (host, probes, attach_probes(host.process, host.confinement,
                                                                 probes))
        except (operator_probes.Unavailable, OSError, ValueError):
            pass  # the request attaches them itself, and says why not if it cannot

    def prefetch_sets(self, request_waiting):
        """In a judge prepared ahead for a request like the worker's previous one (judge_spare:
        same task, shapes and settings, another candidate): load_reference and the checked
        sets' references, before any candidate exists. Each set is drawn from a fresh OS seed
        here as it would be later; only sets small enough for the read-ahead are made, and it
        stops once `request_waiting()` (what is done by then is used)."""
        self.load_task()
        self.load_reference()
        first = self.first_set
        if self.large_on_device(first) or request_waiting():
            return
        self.first_expected = self.expected(self.reference, first)
        sets = int(self.request["input_sets"])
        if self.lean_set(first, self.first_expected[0]):
            return  # a lean task: one set at a time (correctness)
        held = tensor_bytes(first) + tensor_bytes(self.first_expected[0])
        for index in range(1, sets):
            if held > READ_AHEAD_BYTES or request_waiting():
                return
            self.prefetched[index] = self.prepare_set(index, sets)
            held += ahead_bytes(self.prefetched[index])
        # and the generalisation check's own reference (0.2 s of an RNN evaluation on an H200,
        # session 35), at shapes about the task's: only while twice the task's set fits
        # (in the order every judge draws them: the set after timing follows the check's)
        if self.request["check_generalization"] and (
                2 * held > READ_AHEAD_BYTES or not self.prefetch_generalization(request_waiting)):
            return
        if not request_waiting():
            self.draw_after_timing()

    def prefetch_generalization(self, request_waiting):
        """generalization_reference for the alternative shapes in the order generalization
        tries them, until one runs (kept, by alternative, in self.generalization_ahead).
        Returns whether the check's draws are all made (later draws may follow them)."""
        shrink = self.task.shrink or {}
        for alternative in alternative_overrides(self.task.shapes, shrink.get("applied"),
                                                 self.task.constants):
            if request_waiting():
                return False
            ahead = self.generalization_reference(alternative)
            if ahead is not None and ahead_bytes(ahead[2:]) > READ_AHEAD_BYTES:
                return False  # too large to hold: made again when the check comes
            self.generalization_ahead.append((alternative, ahead))
            if ahead is not None:
                return True
        return True

    def drop_prefetch(self):
        """What prefetch made, for a request that turned out to be other work: the probes on the
        warm process closed (they would trap in the calls of another task's candidate), the
        reference, sets and their device memory freed."""
        if self.probes_ahead is not None:
            self.probes_ahead[2].close()
            self.probes_ahead = None
        self.prefetched, self.generalization_ahead = {}, []
        self.first_set = self.first_expected = self.after_timing = None
        self.reference = self.model64 = None
        gc.collect()
        if self.device == "cuda":
            self.torch.cuda.empty_cache()

    def adopt(self, request, started):
        """The request this prefetched evaluation was prepared for arrived: its candidate,
        limits and deadline (the fields that decide the task, shapes and sets are the same:
        judge_spare.same_work)."""
        self.request = with_defaults(request)
        self.candidate_path = self.request["candidate_path"]
        self.deadline = started + float(self.request["timeout_s"])
        self.result["judge_prefetched_sets"] = len(self.prefetched) + (
            self.first_expected is not None)
        self.result["judge_prefetched_generalization"] = any(
            made is not None for _, made in self.generalization_ahead)
        self.result["judge_prefetched_after_timing"] = self.after_timing is not None

    def calibrate(self, first, outputs):
        """The candidate process's honest per-trial harness overhead, measured with a stand-in
        forward before any candidate code is in it (calibration.py); `outputs`: output_specs.
        `self.harness_gaps` stays None when the reference's outputs are unknown (the old
        allowance then)."""
        from kforge_worker import calibration
        self.harness_gaps = None
        if outputs is None:
            return
        block = block_size(tensor_bytes(first), sum(nbytes for _, _, nbytes in outputs))
        self.harness_gaps = calibration.stand_in_gaps(
            self.candidate, outputs, block, bool(self.request["flush_l2"]) and
            self.device == "cuda", int(self.request["warmup"]), FORWARD_SEED)

    def build_candidate(self, init_inputs):
        try:
            args = share_values(self.candidate, init_inputs)
        except LoadError as error:
            from kforge_worker.sandbox import RequestFailure
            raise RequestFailure(f"failed to pass get_init_inputs() of {self.task_path} to the "
                                 f"candidate: {error}") from None
        shown = ", ".join(_short_repr(value) for value in init_inputs)
        self.candidate.request({"op": "build", "args": args, "seed": SEED_BASE,
                                "shapes": self.task.shapes, "policy": self.policy,
                                "what": f"build ModelNew({shown}) (the arguments Model gets)"})

    def correctness(self):
        """N input sets, one at a time: each set's inputs and expected outputs are dropped before
        the next is drawn. The constant-output check keeps the first set's outputs (copies:
        snapshots.snapshot) only until an output differs from them."""
        from kforge_worker.correctness import Comparison, same_outputs
        from kforge_worker.snapshots import fingerprint, snapshot
        comparison = Comparison(self.precision)
        sets = int(self.request["input_sets"])

        def keep(outputs, copy):  # what the check keeps of the first set's outputs
            if self.lean:  # no copies of outputs this large: fingerprints
                return [fingerprint(item) for item in outputs]
            return [snapshot(item) for item in outputs] if copy else outputs

        def same(outputs, kept):
            if self.lean:
                return [fingerprint(item) for item in outputs] == kept
            return same_outputs(outputs, kept)

        first_got = first_want = None
        candidate_constant = reference_constant = True
        slots = None
        # index: a later set, drawn with its references while the candidate computed (or before
        # the request: prefetch)
        ahead, self.prefetched = self.prefetched, {}
        for index in range(sets):
            prepared = ahead.pop(index, None) or self.prepare_set(index, sets)
            input_set, want32, want64, seed, widening, widened = prepared
            read_ahead = ahead_bytes(prepared) <= READ_AHEAD_BYTES
            prepared = None
            if widened:
                self.result.setdefault("widened_sets", []).append(
                    {"index": index, "inputs": widened, "range": widening_label(widening)})
            if slots is None:
                self.lean = self.lean_set(input_set, want32)
                # two slots, alternating: set 2 arrives at set 0's addresses with new contents;
                # a lean task's one slot: every set arrives at the same addresses
                slots = [Slots(self.candidate, input_set, want32)
                         for _ in range(1 if self.lean else 2)]
                self.slots = slots
            slot = slots[index % len(slots)]
            self.send_call(slot, input_set)
            if index == 0:  # judge work for later, while the candidate's first call runs
                self.candidate_source_facts()
            # While the candidate computes, the judge draws the next set and runs its references;
            # and more sets while the candidate's call is still running (its first call in a
            # process: 0.5-0.7 s for an RNN kernel on an H200, as long as all the later sets'
            # references). Only for small sets: a large one's references run before its call.
            if read_ahead and not self.lean:
                held = sum(ahead_bytes(item) for item in ahead.values())
                for later in range(index + 1, sets):
                    if later in ahead:
                        continue
                    if later > index + 1 and (self.candidate.replied() or
                                              held > READ_AHEAD_BYTES):
                        break
                    ahead[later] = self.prepare_set(later, sets)
                    held += ahead_bytes(ahead[later])
            where = f"input set {index} (seed {seed})"
            if widened:
                where += f" with inputs {widened} spread from [0, 1) to {widening_label(widening)}"
            got = self.call_reply(slot, input_set, where)
            comparison.add(got, want32, want64, where, spread=bool(widened))
            if index == sets - 1:
                launches = self.last_call.get("launches") or {}
                if self.device == "cpu" and isinstance(launches, dict):
                    self.result["launches_per_forward"] = sum(
                        v for v in launches.values() if isinstance(v, int))
                    self.result["kernels"] = [
                        {"name": str(name), "calls_per_forward": calls, "time_share": None,
                         "own": True} for name, calls in launches.items()]
            if index == 0:
                if sets > 1:  # the slot's outputs are overwritten by the next call: a copy
                    first_got, first_want = keep(got, copy=True), keep(want32, copy=False)
            else:
                candidate_constant = candidate_constant and same(got, first_got)
                reference_constant = reference_constant and same(want32, first_want)
                first_got = first_got if candidate_constant else None
                first_want = first_want if reference_constant else None
            input_set = want32 = want64 = got = None  # freed before the next set is drawn
            if not comparison.passed:
                break
        first_got = first_want = None
        ahead = None
        if comparison.passed and sets > 1 and not reference_constant and candidate_constant:
            comparison.fail(f"output does not depend on the input: bit-identical for all {sets} "
                            f"input sets while the reference's output varies")
        self.result["correctness"] = comparison.report()
        self.result.setdefault("phases_detail", {}).update(
            references=self.set_times, checked_calls=self.call_times)
        if not comparison.passed:
            raise Failure("wrong_output", comparison.first_failure)
        self.checked_bounds = comparison.bounds

    def prepare_set(self, index, sets):
        """Checked set `index` of `sets`, drawn, spread and with its references: (inputs,
        want32, want64, seed, widening, widened positions). Set 0 is the one drawn during load
        (its references too, when they were made there); the last three are spread (signed,
        positive, sprinkled), or a milder spread where the reference's outputs were not finite."""
        if index == 0 and self.first_set is not None:
            input_set, self.first_set = self.first_set, None
            seed = self.result["seeds"][0]
            precomputed, self.first_expected = self.first_expected, None
            want32, want64 = precomputed or self.expected(self.reference, input_set)
            return input_set, want32, want64, seed, None, None
        seed = self.next_seed()
        input_set = self.make_inputs(seed)
        widening = None if index == 0 else "signed" if index == sets - 1 else \
            "positive" if index == sets - 2 else "sprinkled" if index == sets - 3 else None
        widened = widening and widen_values(input_set, widening, seed)
        want32, want64 = self.expected(self.reference, input_set)
        if widened and not all_finite(want32):  # an exp, a cumprod, a log: milder, or plain
            return self.milder_set(index, widening)
        return input_set, want32, want64, seed, widening, widened

    def milder_set(self, index, widening):
        """Checked set `index` after the reference's outputs were not finite on its `widening`:
        the MILDER spreads in turn, each on a fresh draw, else a plain draw; the notes name what
        was given up. Returns (inputs, want32, want64, seed, widening, widened positions)."""
        given_up = [widening_label(widening)]
        for milder in MILDER[widening] + (None,):
            seed = self.next_seed()
            input_set = self.make_inputs(seed)
            widened = milder and widen_values(input_set, milder, seed)
            want32, want64 = self.expected(self.reference, input_set)
            if not widened or all_finite(want32):
                break
            given_up.append(widening_label(milder))
            input_set = want32 = want64 = None
        self.result.setdefault("notes", []).append(
            f"input set {index}: the reference's outputs were not finite with its inputs spread "
            f"to {'; to '.join(given_up)}; " + (
                f"spread to {widening_label(milder)} instead" if widened else
                "drawn as the task draws them instead (no spread set)"))
        return input_set, want32, want64, seed, milder, widened

    def generalization(self):
        """Correct at one alternative shape set too, or the shapes are hard-coded. The sets are
        tried in turn until the reference runs at one (a grown size may not fit the task)."""
        shrink = self.task.shrink or {}
        for alternative in alternative_overrides(self.task.shapes, shrink.get("applied"),
                                                 self.task.constants):
            self.generalization_at(alternative)
            if self.result["generalizes"] != "unknown":
                return

    def generalization_reference(self, alternative):
        """The judge's side of the check at `alternative` shapes: (reference, its init inputs,
        an input set drawn fresh, want32, want64), or None where the reference does not run
        there. The task's shapes and its reference's float64 twin come back afterwards."""
        previous = {name: self.task.shapes[name] for name in alternative}
        task_twin = self.model64
        self.task.apply(alternative)
        try:
            reference, init_inputs = self.build_reference()
            input_set = self.make_inputs(self.next_seed())
            want32, want64 = self.expected(reference, input_set)
            return reference, init_inputs, input_set, want32, want64
        except Exception:  # RequestFailure included: the reference fails at these shapes
            return None
        finally:
            self.task.apply(previous)
            self.model64 = task_twin

    def generalization_at(self, alternative):
        from kforge_worker.correctness import Comparison
        previous = {name: self.task.shapes[name] for name in alternative}
        if self.lean:  # room for the other shapes' slot; the same sizes come back afterwards
            self.slots[0].release()
        self.task.apply(alternative)
        shown = ", ".join(f"{name}={value}" for name, value in alternative.items())
        slots = None
        # the task shapes' float64 twin, kept for the post-timing check (its build is a deep copy
        # widened to float64: ~0.1 s for cuDNN's GRU); not for a lean task (memory)
        task_twin = None if self.lean else self.model64
        ahead = [made for shapes, made in self.generalization_ahead if shapes == alternative]
        self.generalization_ahead = [item for item in self.generalization_ahead
                                     if item[0] != alternative]
        try:
            made = ahead[0] if ahead else self.generalization_reference(alternative)
            if made is None:  # the reference fails at these shapes
                self.result["generalizes"] = "unknown"
                return
            reference, init_inputs, input_set, want32, want64 = made
            made = None
            comparison = Comparison(self.precision)
            try:
                self.build_candidate(init_inputs)
                slots = Slots(self.candidate, input_set, want32)
                got = self.call(slots, input_set, f"shapes {shown}")
                comparison.add(got, want32, want64, f"shapes {shown}")
                problem = comparison.first_failure
            except Failure as failure:
                if failure.status in ("rejected", "timeout", "crashed"):
                    raise
                problem = failure.message
            if problem is None:
                self.result["generalizes"] = "yes"
                return
            self.result["generalizes"] = "no"
            first_line = problem.strip().split("\n")[-1 if problem.startswith("failed") else 0]
            raise Failure("rejected", f"hard-coded shapes: correct at task shapes, wrong at "
                                      f"{{{shown}}}:\n{problem}",
                          reasons=[f"hard-coded shapes: correct at task shapes, wrong at "
                                   f"{{{shown}}}: {first_line}"])
        finally:
            if slots is not None:
                slots.release()
            input_set = want32 = want64 = reference = None
            if self.lean:
                self.slots[0].renew()
            self.task.apply(previous)
            self.model64 = task_twin
            if self.result["generalizes"] == "yes":
                self.build_candidate(self.init_inputs)  # back to the task's shapes

    def timing(self):
        """Rounds of one block per runner: the candidate's (in its process) and the baselines'
        (here), the order rotating every round. Each round draws `block` fresh input sets, one
        per trial: no input the candidate saw comes back (a memo by contents has nothing to
        serve). The eager block runs on the same sets and its outputs are kept as the expected
        ones; every candidate output is checked against them once both blocks ran. Scored: the
        median over blocks of each block's mean (timing.block_stats), for every runner; the
        candidate's block means are cross-checked with the judge's wall clock against the
        honest overhead measured before its import (calibration.py)."""
        from kforge_worker import error_stats, timed_check, timing
        torch = self.torch
        template = self.slots[0]
        block = block_size(sum(template.input_sizes), sum(template.output_sizes))
        # lean: block is 1 (a set is over 2 GiB) and the correctness slot serves
        slots = self.slots[:1] if self.lean else [template.like() for _ in range(block)]
        bounds = timed_check.limits(self.checked_bounds, len(template.expected))
        # each output's largest timed error against the eager one (base units, relative L2)
        worst = [(0.0, 0.0)] * len(bounds)
        cpu = self.device == "cpu"  # tests only (time_on_cpu): host clocks, no speed claim
        flush = timing.l2_flush_buffer(torch.cuda.current_device()) \
            if self.request["flush_l2"] and not cpu else None
        flush_ms = timing.flush_time_ms(flush) if flush is not None else None
        # the eager block's outputs, kept per trial: the expected ones of the round's sets
        kept = [[torch.empty(shape, dtype=dtype, device=self.device)
                 for dtype, shape in template.expected] for _ in range(block)]
        runners, reasons = self.baseline_runners(timing)
        # the other baselines copy theirs here, so every runner's trial does the same work (none
        # when eager is the only one: an 8 GiB output is not allocated for nothing)
        sink = [torch.empty_like(item) for item in kept[0]] \
            if any(name != "eager" for name in runners) else None
        names = ["candidate"] + list(runners)
        blocks = {name: [] for name in names}
        walls = {name: [] for name in names}
        firsts = {name: [] for name in names}   # each block's first trial (after an idle gap)
        hosts = {name: [] for name in names}  # each call's launch path (diagnostic)
        trials = int(self.request["trials"])
        rounds = max(1, math.ceil(trials / block))
        budget = float(self.request["timing_budget_s"])
        began = time.monotonic()
        round_index = 0
        warmup = int(self.request["warmup"])
        # round 0 (discarded) is shorter for a slow reference: each of its trials costs a call
        first = timing.warm_up_round_trials(block, self.reference_call_s)
        # the timed check in one pass per output where that repays the kernel's first launch
        fused = error_stats.pays_off(self.device, (first + rounds * block) * sum(
            math.prod(shape) for dtype, shape in template.expected if dtype.is_floating_point))
        if fused:
            error_stats.warm_up(self.device)
        while round_index <= rounds:
            round_began = time.monotonic()  # the draws count: a slow draw means fewer rounds
            count = first if round_index == 0 else block
            sets = [self.make_inputs(self.next_seed()) for _ in range(count)]
            seeds = self.result["seeds"][-count:]
            order = names[round_index % len(names):] + names[:round_index % len(names)]
            got = None
            for name in order:
                warm = warmup if not round_index else 0
                if name == "eager" and self.reference_runs >= WARM_REFERENCE_RUNS:
                    warm = 0  # the checked sets' runs warmed it (0.1 s of cuDNN's GRU)
                host = []
                if name == "candidate":
                    ms, wall, got = self.candidate_block(slots, sets, seeds, round_index, warm,
                                                         host)
                else:
                    ms, wall = self.baseline_block(runners[name], sets, flush, warm, cpu,
                                                   kept if name == "eager" else None, sink, host)
                if round_index:  # round 0 is the warm-up, discarded
                    hosts[name] += host
                    blocks[name].append(ms)
                    walls[name].append(wall * 1e3)
                    firsts[name].append(ms[0])
            problem, seen = timed_check.check_block(
                got, kept, bounds, lambda position: f"timed call {position + 1} of block "
                f"{round_index}, fresh input set (seed {seeds[position]})", fused)
            worst = [(max(a, c), max(b, d)) for (a, b), (c, d) in zip(worst, seen)]
            if problem:
                raise Failure("wrong_output", "wrong output during timing:\n" + problem)
            sets = got = None
            round_index += 1
            if round_index == 1 and budget:  # fewer rounds when one would blow the budget
                spent = (time.monotonic() - round_began) * block / first
                affordable = int(budget / max(spent, 1e-9))
                rounds = min(rounds, max(affordable, math.ceil(timing.MIN_TRIALS / block)))
        if not self.lean:
            for slot in slots:
                slot.release()
        self.result["phases_s"]["timing_wall"] = round(time.monotonic() - began, 3)
        # how close the timed calls came to their bound, beside what the checked calls showed
        finite = lambda value: value if math.isfinite(value) else None  # (JSON)
        checked = [self.checked_bounds.get(index, {}) for index in range(len(bounds))]
        self.result["timed_check"] = [  # per output
            {"worst_units": finite(round(units, 4)), "allowed_units": finite(round(scale, 4)),
             "checked_units": round(seen.get("units32", 0.0), 4),
             "worst_relative_l2": finite(float(f"{relative:.4g}")),
             "allowed_relative_l2": finite(float(f"{rel_bound:.4g}")),
             "checked_relative_l2": float(f"{seen.get('rel32', 0.0):.4g}")}
            for (units, relative), (scale, rel_bound), seen in zip(worst, bounds, checked)]
        self.score_timing(blocks, walls, firsts, block, reasons, cpu, hosts, flush_ms)

    def baseline_runners(self, timing):
        """{name: runner} of the baselines (eager always: the score is against it, and its
        outputs are the expected ones), and the reasons of those that failed to build."""
        runners, reasons = {"eager": timing.eager_runner(self.reference)}, {}
        baselines = self.request["baselines"] or []
        # compiled and captured on a set of their own (drawn only when one is wanted)
        sample = self.make_inputs(self.next_seed()) \
            if {"compile", "cuda_graph"} & set(baselines) else None
        if "compile" in baselines:
            runners["compile"], reasons["compile"] = timing.compile_runner(self.reference, sample)
        if "cuda_graph" in baselines:
            runners["cuda_graph"], reasons["cuda_graph"] = timing.cuda_graph_runner(
                self.reference, sample)
        return {name: r for name, r in runners.items() if r}, reasons

    def baseline_block(self, runner, sets, flush, warmup, cpu, kept, sink, host=None):
        """One block of a baseline on the round's sets; `kept` (eager's): its outputs are kept
        per trial as the expected ones, else copied into `sink` (the same work per trial).
        A reference that changes its inputs gets clones (the sets are the candidate's too),
        and warms up on other clones."""
        from kforge_worker import timing
        from kforge_worker.correctness import output_list
        mutates = self.reference_mutates_inputs
        if warmup:
            warm = [clone_values(s, self.device) for s in sets] if mutates else sets
            with self.torch.no_grad():
                timing.warm_up_calls([runner(values) for values in warm], warmup)
            warm = None
        inputs = [clone_values(s, self.device) for s in sets] if mutates else sets

        def keep(index, output):
            for target, item in zip(kept[index], output_list(output, "the reference's")):
                target.copy_(item)
        return timing.time_block([runner(s) for s in inputs], flush, 0,
                                 sink, after=keep if kept is not None else None, cpu=cpu,
                                 seed=FORWARD_SEED, host=host)

    def score_timing(self, blocks, walls, firsts, block, reasons, cpu, hosts, flush_ms):
        """Stats, the wall-clock cross-check and the score. A candidate block's mean is raised
        to what the judge's wall clock shows beyond the allowance (a block that under-reports
        gains nothing past the noise margin, whatever the other blocks say); the candidate is
        rejected when its typical block's gap exceeds the allowance grossly (by more than
        calibration.GROSS_MS and more than the time it reports)."""
        from kforge_worker import calibration, timing
        gaps = {name: [(wall - sum(ms)) / len(ms) for ms, wall in zip(blocks[name], walls[name])]
                for name in blocks}
        judge_gap = statistics.median(gaps["eager"])
        candidate_gap = statistics.median(gaps["candidate"])
        harness = self.harness_gaps
        if harness:
            allowed = calibration.allowed_gap(harness, block, cpu)
        else:  # no calibration (the reference's outputs were unknown at load): the old bound
            allowed = 2 * judge_gap + 0.05 + 3.0 / block + (20.0 if cpu else 0.0)
        charged = [max(sum(ms) / len(ms), wall / len(ms) - allowed)
                   for ms, wall in zip(blocks["candidate"], walls["candidate"])]
        stats = {name: timing.block_stats(values, means=charged if name == "candidate" else None)
                 for name, values in blocks.items() if values}
        candidate_ms = stats["candidate"]["median_ms"]
        stats["candidate"]["wall_gap_ms"] = candidate_gap
        stats["candidate"]["blocks_raised_by_wall"] = sum(
            1 for ms, mean in zip(blocks["candidate"], charged) if mean > sum(ms) / len(ms))
        stats["eager"]["wall_gap_ms"] = judge_gap
        for name, values in firsts.items():  # diagnostic (bench/timing_parity.py)
            if values and name in stats:
                stats[name]["first_in_block_median_ms"] = statistics.median(values)
        for name, values in hosts.items():  # diagnostic, as above
            if values and name in stats:
                stats[name]["host_median_ms"] = statistics.median(values)
        self.result["timing"] = {"candidate": stats["candidate"], "eager": stats["eager"],
                                 "compile": stats.get("compile"),
                                 "cuda_graph": stats.get("cuda_graph"),
                                 "block_trials": block, "allowed_gap_ms": allowed,
                                 "harness_gap_ms": statistics.median(harness) if harness
                                 else None, "fresh_input_sets": True,
                                 "flush_ms": flush_ms}
        note = timing.host_bound_note(stats["candidate"].get("host_median_ms"), flush_ms)
        if note:
            self.result.setdefault("notes", []).append(note)
        failed = {name: reason for name, reason in reasons.items() if reason}
        if failed:
            self.result["timing"]["baseline_errors"] = failed
        self.result["timed_s"] = sum(sum(sum(ms) for ms in v) for v in blocks.values()) / 1e3
        reported = statistics.median(sum(ms) / len(ms) for ms in blocks["candidate"])
        shared = 0 if cpu else self.gpu_others()
        if shared:
            self.result.setdefault("notes", []).append(
                f"{shared} other process{'es' if shared != 1 else ''} used this GPU during the "
                f"timing: every time here may hold their work")
        if candidate_gap > allowed + max(calibration.GROSS_MS, reported):
            if shared:  # not the candidate's to answer for (gpu_sharing.py)
                raise Failure("unjudged", gpu_sharing.sharing_reason(shared) + (
                    f" (the candidate's calls: {candidate_gap:.3f} ms each unaccounted for, "
                    f"{allowed:.3f} allowed)"))
            reason = (f"timing reported by the candidate process ({candidate_ms:.3f} ms per call) "
                      f"disagrees with the judge's wall clock: {candidate_gap:.3f} ms per call "
                      f"unaccounted for (allowed {allowed:.3f}; the harness's own, measured "
                      f"before the candidate was loaded: "
                      f"{statistics.median(harness) if harness else judge_gap:.3f}): "
                      f"under-reported time, or work outside the timed stream")
            raise Failure("rejected", reason, reasons=[reason])
        self.result["score"] = stats["eager"]["median_ms"] / candidate_ms
        best = min(stats[name]["median_ms"] for name in stats if name != "candidate")
        self.result["speedup_vs_best_baseline"] = best / candidate_ms

    def gpu_others(self):
        """How many processes besides the judge and the candidate's tree hold a context on the
        judge's GPU (gpu_sharing.py); 0 when the driver cannot say."""
        from kforge_worker.confinement import descendants
        torch = self.torch
        uuid = str(torch.cuda.get_device_properties(torch.cuda.current_device()).uuid)
        own = {os.getpid()}
        if self.candidate is not None:
            own |= set(descendants(self.candidate.process.pid))
        return gpu_sharing.others(gpu_sharing.processes_on(uuid), own)

    def candidate_block(self, slots, sets, seeds, round_index, warmup, host=None):
        """One block of timed candidate calls, trial i on sets[i] in slots[i]; inputs checked
        unchanged at once. Returns (event ms per trial as reported, the judge's wall seconds for
        the block, each trial's outputs: views over its slot's buffers, checked by the caller
        once the eager block of the round has run). `host` gets the host ms per call the
        candidate process reports (a diagnostic, trusted for nothing)."""
        trials = [{"args": slot.write(input_set), "outputs": slot.output_ids}
                  for slot, input_set in zip(slots, sets)]
        began = time.perf_counter()
        reply = self.candidate.request({"op": "time", "trials": trials, "warmup": warmup,
                                        "flush": bool(self.request["flush_l2"]),
                                        "seed": FORWARD_SEED})
        wall = time.perf_counter() - began
        self.candidate.note_programs("ended")
        ms = reply.get("ms")
        if not (isinstance(ms, list) and len(ms) == len(trials) and all(
                isinstance(v, (int, float)) and math.isfinite(v) and v >= 0 for v in ms)):
            raise Failure("rejected", "the candidate process reported malformed timings",
                          reasons=["the candidate process reported malformed timings"])
        reported = reply.get("host_ms")
        if host is not None and isinstance(reported, list) and len(reported) == len(trials):
            host += [float(v) for v in reported if isinstance(v, (int, float)) and
                     math.isfinite(v)]
        got = []
        described = reply.get("outputs")
        for position, (slot, input_set, seed) in enumerate(zip(slots, sets, seeds)):
            where = f"timed call {position + 1} of block {round_index}, fresh input set " \
                    f"(seed {seed})"
            changed = slot.changed_inputs(input_set)
            if changed:
                raise Failure("rejected", f"mutated input {changed[0]} in place ({where})",
                              reasons=[f"mutated input {changed[0]} in place"])
            got.append(slot.outputs(described[position] if isinstance(described, list) and
                                    position < len(described) else None, where))
        return [float(v) for v in ms], wall, got

    def profile(self):
        input_set = self.make_inputs(self.next_seed())
        args = self.slots[0].write(input_set)
        reply = self.candidate.request({"op": "profile", "args": args})
        kernels = reply.get("kernels") if isinstance(reply.get("kernels"), list) else []
        self.result["launches_per_forward"] = reply.get("launches")
        self.result["kernels"] = kernels[:200]
        kernels = [k for k in kernels if isinstance(k, dict)]
        own = sum(float(k.get("time_share") or 0) for k in kernels if k.get("own"))
        computing = [k for k in kernels if not k.get("own") and not k.get("data_movement")]
        pytorch = sum(float(k.get("time_share") or 0) for k in computing)
        share = own / (own + pytorch) if own + pytorch > 0 else 0.0
        self.result["own_kernel_share"] = round(own, 4)
        self.result["own_compute_share"] = round(share, 4)
        if any(k.get("own") for k in kernels) and share < MIN_OWN_SHARE and \
                not self.request["allow_pytorch_only"]:
            others = ", ".join(str(k.get("name"))[:60] for k in computing)[:300]
            reason = (f"its own kernels did {share:.0%} of the GPU time spent computing (at "
                      f"least {MIN_OWN_SHARE:.0%} required; PyTorch's data movement left out); "
                      f"the rest ran in PyTorch's kernels ({others}): a decoy launch does not "
                      f"make a kernel")
            raise Failure("rejected", reason, reasons=[reason])

    def times(self):
        """Whether this evaluation times the candidate (and so checks a set after timing)."""
        return self.device == "cuda" or bool(self.request.get("time_on_cpu"))

    def draw_after_timing(self):
        """The set checked after timing, with its references, drawn before timing begins (by a
        judge prepared ahead, before the request: 0.1 s of cuDNN's GRU and its float64 twin,
        session 35), where sets are small; a large one is drawn after timing. Either way the
        candidate sees it only after its last timed call. Every judge draws it at this point,
        prefetched or not, so that a run's secret seed stream gives every candidate the same
        sets."""
        if self.after_timing is not None or not self.times() or \
                self.set_bytes > READ_AHEAD_BYTES:
            return
        seed = self.next_seed()
        input_set = self.make_inputs(seed)
        self.after_timing = (seed, input_set) + tuple(self.expected(self.reference, input_set))

    def post_timing_check(self):
        from kforge_worker.correctness import Comparison
        comparison = Comparison(self.precision)
        if self.after_timing is not None:
            (seed, input_set, want32, want64), self.after_timing = self.after_timing, None
            where = f"fresh input set after timing (seed {seed})"
            got = self.call(self.slots[-1], input_set, where)
        else:
            seed = self.next_seed()
            input_set = self.make_inputs(seed)
            where = f"fresh input set after timing (seed {seed})"
            if self.lean:  # one set in memory at a time
                want32, want64 = self.expected(self.reference, input_set)
                got = self.call(self.slots[-1], input_set, where)
            else:  # the candidate's call beside the references
                self.send_call(self.slots[-1], input_set)
                want32, want64 = self.expected(self.reference, input_set)
                got = self.call_reply(self.slots[-1], input_set, where)
        comparison.add(got, want32, want64, where)
        if not comparison.passed:
            raise Failure("wrong_output", "correct before timing, wrong after it on fresh "
                                          "inputs:\n" + comparison.first_failure)

    def finish(self):
        """The candidate process's own report: violations its in-process guard saw (named, not
        trusted to be complete) and the global state it changed."""
        reply = self.candidate.request({"op": "finish"})
        if not (isinstance(reply.get("violations"), list) and
                isinstance(reply.get("side_effects"), list)):  # fail closed: no report, no ok
            reason = "the candidate process's last report was malformed (no list of violations)"
            raise Failure("rejected", reason, reasons=[reason])
        violations = [str(v)[:500] for v in reply["violations"]][:20]
        self.result["side_effects"] = [str(v)[:300] for v in reply["side_effects"]][:40]
        # which recorder watched the timed calls (timed_recorder.py; the process's word)
        self.result.setdefault("confinement", {})["timed_recorder"] = \
            str(reply.get("timed_recorder"))[:40]
        return violations

    def note_operator_probes(self):
        """The result's record of the kernel-counted operator probes, or the note saying they
        were off."""
        watch = self.candidate.operator_watch
        if watch is not None:
            self.result["confinement"]["operator_probes"] = watch.describe()
        elif self.candidate.probe_note:
            self.result.setdefault("notes", []).append(self.candidate.probe_note)

    def left_running(self):
        """Processes the candidate left running after its last call (a detached child, a
        daemon), seen from outside: they die with its sandbox, and they are named."""
        extra = self.candidate.extra_processes()
        if not extra:
            return []
        shown = ", ".join(f"{name} (pid {pid})" for pid, name in extra[:5])
        return [f"left a process running after its last call: {shown} (a fork, a setsid "
                f"child or a daemon; killed with its sandbox)"]

    def candidate_source_facts(self):
        """numerics_report.source_facts of the candidate's source, made once: while the judge
        waits for the candidate's first checked call (0.1 s of an RNN candidate's syntax tree on
        an H200, session 35), else when the numerics are assessed."""
        if self.source_facts is None:
            try:
                text = self.source.decode("utf-8", "replace")
            except AttributeError:
                text = ""
            self.source_facts = numerics_report.source_facts(text)
        return self.source_facts

    def assess_numerics(self):
        """The result's `numerics`: the precision the candidate computed in (numerics_report)
        and, under `strict`, the reason to reject it; None for the reason when there is none."""
        import torch
        dtypes = set()
        for dtype in self.input_dtypes:
            if dtype.is_floating_point:
                dtypes.add(numerics_report.short_dtype(dtype))
        reference = getattr(self, "reference", None)
        if reference is not None:
            for tensor in list(reference.parameters()) + list(reference.buffers()):
                if tensor.is_floating_point():
                    dtypes.add(numerics_report.short_dtype(tensor.dtype))
        for dtype, _ in getattr(getattr(self, "slots", [None])[0], "expected", []):
            if dtype.is_floating_point:
                dtypes.add(numerics_report.short_dtype(dtype))
        report = numerics_report.assess(
            self.request["numerics"], dtypes, self.numerics_seen,
            self.candidate_source_facts(), self.settings,
            (getattr(self, "policy", None) or {}).get("ops"))
        self.result["numerics"] = report
        return numerics_report.rejection(report)

    def phase(self, name, step):
        began = time.monotonic()
        try:
            step()
        finally:
            phases = self.result.setdefault("phases_s", {})
            phases[name] = round(phases.get(name, 0.0) + time.monotonic() - began, 3)

    def run(self):
        self.result["phases_s"] = {}
        violations = []
        try:
            try:
                self.phase("start_candidate", self.start_candidate)
                self.phase("load", self.load)
                self.phase("correctness", self.correctness)
                if self.request["check_generalization"]:
                    self.phase("generalization", self.generalization)
                if self.times():
                    self.phase("after_timing_set", self.draw_after_timing)
                    self.phase("timing", self.timing)
                    if self.request["profile"] and self.device == "cuda":
                        self.phase("profile", self.profile)
                    self.phase("post_timing_check", self.post_timing_check)
            except Failure as failure:
                self.result["status"] = failure.status
                self.result["error"] = failure.message
                self.result["error_location"] = failure.location
                self.result["reasons"] += failure.reasons
            if self.candidate is not None and not self.candidate.closed:
                probed = self.candidate.operator_probe_reasons()  # before its last request
                try:
                    violations = self.finish()
                except Failure as failure:
                    # No report is no clean report: a forged frame answering `finish` (a19), or
                    # a process gone before it (an earlier verdict of ok would stand otherwise)
                    violations = list(failure.reasons) or [
                        f"gave no final report: {failure.message.splitlines()[0]}"]
                violations = probed + [v for v in violations if v not in probed]
                if not self.candidate.closed:
                    violations += self.candidate.programs_beside_calls()
                    violations += self.left_running()
                    written = self.candidate.written_past_limits()
                    if written:
                        violations.append(f"{written}, found after its last call")
        finally:
            if self.candidate is not None:
                self.candidate.close()  # first: its output is complete once it is gone
                self.result["output_bytes"] = self.candidate.output.bytes
                # (kineto's profiler start/stop lines are noise, not the candidate's output)
                self.result["output_tail"] = "\n".join(
                    line for line in self.candidate.output.last_lines(200).split("\n")
                    if not line.startswith("USDT:"))[-8000:]
                self.result["candidate_start_s"] = round(self.candidate.start_s, 3)
                self.result["candidate_ops_s"] = self.candidate.ops_s
                self.note_operator_probes()
                monitor = self.candidate.monitor
                if monitor is not None:  # seen by the judge, whatever the process reported
                    violations = list(monitor.refused) + [
                        v for v in violations if v not in monitor.refused]
                    if monitor.programs:
                        self.result["programs"] = list(monitor.programs)
                    self.result["confinement"]["threads_started"] = dict(monitor.threads)
                    self.result["confinement"]["monitor_calls"] = dict(monitor.notified)
                    self.result["confinement"]["monitor_s"] = round(monitor.answering_s, 3)
                    if monitor.thread_callers:
                        self.result["confinement"]["thread_callers"] = monitor.thread_callers
                        self.result["confinement"]["thread_stacks"] = monitor.thread_stacks
                    if monitor.signal_handlers:
                        self.result["confinement"]["signal_handlers"] = monitor.signal_handlers
                    if monitor.refused_opens:
                        self.result["confinement"]["refused_opens"] = monitor.refused_opens
                    if monitor.timed_call_tools:
                        self.result["confinement"]["timed_call_tools"] = monitor.timed_call_tools
        try:
            lowered = self.assess_numerics()
        except Exception as error:  # the report explains; it never costs the verdict
            self.result["numerics"] = {"policy": self.request["numerics"], "summary": None,
                                       "error": f"{type(error).__name__}: {str(error)[:200]}"}
            lowered = None
        if lowered:  # --numerics strict: lower precision than the reference's
            violations = violations + [lowered]
        if violations:
            self.result["reasons"] += [v for v in violations if v not in self.result["reasons"]]
            # A violation outranks any other outcome, except timeout/crashed.
            if self.result["status"] not in ("rejected", "timeout", "crashed"):
                self.result["status"] = "rejected"
                self.result["error"] = "\n".join(violations)
        fallback = getattr(getattr(self, "task", None), "inputs_fallback", None)
        if fallback:
            self.result.setdefault("notes", []).append(
                f"task inputs drawn on the CPU: get_inputs() failed under "
                f"torch.device({self.device!r}): {fallback}")
        if self.fp64_missing:
            self.result.setdefault("notes", []).append(
                f"no float64 reference (the calibrated verdict is the kernelbench one): "
                f"{self.fp64_error}" + (
                    f" (not tried on the host: {self.fp64_host_skipped / 1024 ** 3:.1f} GiB of "
                    f"float64 inputs and outputs)" if self.fp64_host_skipped else ""))
        if self.result["side_effects"]:
            self.result.setdefault("notes", []).append(
                "the candidate changed global state in its own process (the reference and the "
                "baselines run in the judge, unaffected): "
                + ", ".join(self.result["side_effects"][:8]))
        if self.result["status"] != "ok":
            self.result["score"] = None
            self.result["speedup_vs_best_baseline"] = None
        return self.result


def _not_dumpable():
    """/proc/PID/environ, mem and the like of this process readable by nobody without
    CAP_SYS_PTRACE: without bubblewrap's PID namespace a candidate process could otherwise read
    the worker's original environment there (secrets scrubbed from os.environ stay in it)."""
    import ctypes
    try:
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
    except (OSError, AttributeError):
        pass


_prefetched = None  # in a prepared judge: (Evaluation, the request it was prefetched for)


def prepare_judge(device, predicted=None, request_waiting=lambda: False):
    """In a judge forked ahead of its request (judge_spare.py): the request-independent first
    work of an evaluation on `device`, each piece what the judge would otherwise pay inside the
    request (bench/diag/judge_cold_start.py has their costs); then, given the `predicted`
    request (the worker's previous one), the task's reference and checked sets (prefetch)."""
    _judge_process(device)
    if device != "cpu":
        _prepare_cuda(request_waiting)
    if predicted is None or request_waiting():
        return
    global _prefetched
    try:
        evaluation = Evaluation(predicted, os.getcwd(), time.monotonic())
        evaluation.prefetch(request_waiting)
        _prefetched = (evaluation, predicted)
    except Exception as error:  # the request then starts from nothing, and meets it itself
        print(f"kforge-worker: no prefetch: {type(error).__name__}: {str(error)[:300]}",
              file=sys.stderr, flush=True)


def _forget_prefetch():
    global _prefetched
    _prefetched = None


def _prepare_cuda(request_waiting=lambda: False):
    """CUDA's context, then each library's first use, while no request waits: one that arrived
    (back to back, as in a suite) is served at once, and its evaluation pays for what it uses
    itself (the one-pass check's kernel, 0.6-1.0 s of this on an H200, only where it pays)."""
    import torch
    if not torch.cuda.is_available():  # the request meets that itself, and says so
        return
    from kforge_worker import error_stats
    torch.cuda.init()
    torch.empty(1, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    end.record()
    end.synchronize()
    if request_waiting():
        return
    x = torch.ones(256, 256, device="cuda")
    (x @ x).sum().item()                           # cuBLAS: its library and handle
    del x
    if request_waiting():
        return
    with torch.no_grad():                          # cuDNN: its libraries and handle
        layer = torch.nn.GRU(8, 8).cuda()
        layer(torch.zeros(2, 1, 8, device="cuda"))
    del layer
    if not request_waiting():
        error_stats.warm_up("cuda")                # the judge's one-pass timed check
    torch.cuda.empty_cache()


def _judge_process(device):
    """What a judge process is for `device`, forked at its request or ahead of it."""
    _not_dumpable()
    if device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"
        import torch  # already imported by the worker; CUDA initialises in the judge
        torch.set_num_threads(1)


def _evaluate_child(request, scratch):
    started = time.monotonic()
    _judge_process(request.get("device", "cuda"))
    from kforge_worker import judge_spare
    from kforge_worker.hello import device_info, versions
    evaluation = None
    if _prefetched is not None:
        if not request.get("_prefetch_stale") and judge_spare.same_work(_prefetched[1], request):
            evaluation = _prefetched[0]
            evaluation.adopt(request, started)
        else:  # prefetched for other work: its memory and probes go before this work starts
            _prefetched[0].drop_prefetch()
        _forget_prefetch()
    if evaluation is None:
        evaluation = Evaluation(request, scratch, started)
    profile_to = os.environ.get("KFORGE_EVALUATE_CPROFILE")
    if profile_to:  # diagnostics: the judge's Python profile (bench/bench_harness.py --cprofile)
        import cProfile
        profiler = cProfile.Profile()
        result = profiler.runcall(evaluation.run)
        profiler.dump_stats(os.path.join(profile_to, f"evaluate_{os.getpid()}.prof"))
    else:
        result = evaluation.run()
    result["device"] = device_info() if evaluation.device == "cuda" else \
        {"name": "cpu", "interpret": True}
    result["versions"] = versions()
    result["shapes"] = evaluation.task.shapes if evaluation.task is not None else {}
    # how --shrink chose the shapes (task_loader.shrink_task: the policy, or a back-off)
    result["shrink"] = getattr(getattr(evaluation, "task", None), "shrink", None)
    if evaluation.device == "cuda":
        import torch
        if torch.cuda.is_initialized():
            # the judge's own peak (torch's allocator) and the buffers it shared with the
            # candidate (CUDA VMM, outside the allocator); the candidate's own is not seen
            result["gpu_memory"] = {
                "judge_peak_bytes": torch.cuda.max_memory_allocated(),
                "shared_peak_bytes": getattr(evaluation.candidate, "peak_shared_bytes", 0)}
    result["child_s"] = time.monotonic() - started
    return result


def require(request, fields, verb):
    from kforge_worker.protocol import RequestError
    for name in fields:
        if name not in request:
            raise RequestError(f"failed to {verb}: missing field {name}")
        if name.endswith("_path") and not os.path.isfile(request[name]):
            raise RequestError(f"failed to {verb}: no such file {request[name]}")
    for name in ("input_sets", "trials"):
        if name in request and (not isinstance(request[name], int) or request[name] < 1):
            raise RequestError(f"failed to {verb}: {name} must be a positive integer")
    seed = request.get("input_seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise RequestError(f"failed to {verb}: input_seed must be a non-negative integer")
    device = request.get("device", "cuda")
    if device not in ("cuda", "cpu"):
        raise RequestError(f"failed to {verb}: device must be cuda or cpu, got {device!r}")
    if device == "cuda" and os.environ.get("TRITON_INTERPRET") == "1":
        raise RequestError(f"failed to {verb}: device cuda requested from a worker in CPU mode "
                           f"(TRITON_INTERPRET=1)")


def handle(request):
    from kforge_worker.protocol import RequestError
    from kforge_worker.sandbox import run_request
    require(request, ("task_path", "candidate_path"), "evaluate")
    if request.get("precision", "calibrated") not in ("calibrated", "kernelbench"):
        raise RequestError("failed to evaluate: precision must be calibrated or kernelbench")
    if request.get("numerics", "tolerance") not in numerics_report.POLICIES:
        raise RequestError(f"failed to evaluate: numerics must be tolerance or strict, got "
                           f"{request.get('numerics')!r}")
    from kforge_worker import judge_spare, warm_pool
    _not_dumpable()  # the worker too (its children inherit nothing of it: exec resets it)
    device = request.get("device", "cuda")
    # The warm candidate process goes to this request's judge (a forked child: it inherits
    # this reference); whatever the judge did with it, it is discarded here afterwards.
    warm_pool.adopted = warm_pool.take(device)
    # the judge forked and prepared ahead for this device and this warm process, if one waits
    prepared = judge_spare.take(device, warm_pool.adopted, request)
    # (the judge's copy of the request says so; the next spare is prefetched for `request`)
    sent = {**request, "_prefetch_stale": True} if prepared is not None and \
        prepared.prefetch_stale else request
    # its replacement starts now rather than after this evaluation: a start-up (torch's import,
    # CUDA, warm_up.py: ~10 s on an H200 host) then has this evaluation's time as well as the
    # next one's before an evaluation waits on it (session 27: 2-10 s waits between evaluations)
    warm_pool.fill(device)
    try:
        # The judge enforces the limit on the candidate itself (and says so); this is the
        # backstop for the judge.
        outcome = run_request(_evaluate_child, sent,
                              timeout_s=(request.get("timeout_s") or DEFAULTS["timeout_s"]) + 60,
                              host_memory_gb=request.get("host_memory_gb"),
                              keep_fds=warm_pool.adopted.fds() if warm_pool.adopted else (),
                              prepared=prepared)
    finally:
        if warm_pool.adopted is not None:
            warm_pool.adopted.discard()
            warm_pool.adopted = None
        warm_pool.fill(device)
        # the next evaluation's judge, once this reply is out, prefetched for this task
        judge_spare.want(device, request)
    if outcome.status == "done":
        result = outcome.result
        if result["status"] == "unjudged":  # the GPU was shared: no verdict, and no accusation
            raise RequestError(f"failed to evaluate: {result['error']}")
    else:
        result = {"status": outcome.status, "error": f"the candidate {outcome.message}",
                  "error_location": None, "reasons": [], "correctness": None,
                  "generalizes": "unknown", "timing": None, "score": None,
                  "speedup_vs_best_baseline": None, "launches_per_forward": None,
                  "kernels": [], "device": None, "versions": None, "shapes": None,
                  "timed_s": 0.0, "inputs_drawn_on": None}
        if outcome.status == "rejected":
            result["reasons"] = [outcome.message.split(": ", 1)[-1]]
    result["wall_s"] = outcome.wall_s
    result["judge_prepared"] = prepared is not None
    if outcome.status != "done" or "output_tail" not in result:  # else: the candidate's output
        result["output_bytes"] = outcome.output.bytes
        result["output_tail"] = outcome.output.last_lines(40)
    # The child ran a scratch copy of the candidate: show the user's path instead.
    for key in ("error", "output_tail"):
        result[key] = SCRATCH_COPY.sub(request["candidate_path"], result[key] or "")
    if result["status"] == "crashed":
        _locate_crash(result, request["candidate_path"])
    return result


def _locate_crash(result, candidate_path):
    """A crashed child leaves faulthandler's stack (innermost call first) in its output: keep the
    fatal error line and the candidate's frames, and locate the innermost of them."""
    text = result["error"]
    head, _, _ = text.partition("\nlast output:\n")
    kept = []
    for line in SCRATCH_COPY.sub(candidate_path, result["output_tail"]).split("\n"):
        if line.startswith("Fatal Python error") or f'"{candidate_path}"' in line:
            kept.append(line)
            match = re.search(r'File "(.+)", line (\d+)', line)
            if match and result["error_location"] is None:
                result["error_location"] = f"{match.group(1)}:{match.group(2)}"
    if kept:
        result["error"] = head + "\n" + "\n".join(kept)
