"""`evaluate`: load a task and a candidate in a sandboxed child, check the candidate's correctness,
time it against the reference (GPU only), profile it, and report facts (docs/protocol.md).

Order inside the child, each step able to end the evaluation with a status:
import candidate -> build Model and ModelNew from the same seed -> correctness over N input sets
(candidate first, then the fp32 reference on fresh clones, then the fp64 reference) -> constant
output check -> same-tensor-new-contents check -> alternative-shape check -> timing (and the
outputs of timed calls) -> profile -> post-timing correctness on fresh inputs -> trust guard
verdict."""

import copy
import os
import random
import re
import shutil
import time
from contextlib import contextmanager

from kforge_worker import numerics, trust
from kforge_worker.errors import Failure, classify, describe, kernel_location
from kforge_worker.task_loader import (LoadError, alternative_overrides, load_candidate,
                                       load_task)

DEFAULTS = {"device": "cuda", "shrink": False, "overrides": None, "precision": "calibrated",
            "input_sets": 5, "trials": 100, "warmup": 10, "flush_l2": True, "timeout_s": 600,
            "allow_pytorch_only": False, "check_generalization": True, "baselines": ["eager"],
            "profile": True, "timing_budget_s": 120}
TIMING_INPUT_SETS = 3
SCRATCH_COPY = re.compile(r"[^\s\"']*kforge-eval-[^/\s]+/kforge_candidate_\d+\.py")
SEED_BASE = 1000
# Every correctness forward starts from this RNG state, so that a task drawing random numbers
# inside forward (some public KernelBench versions draw h0 there) draws the same for the
# candidate and the reference.
FORWARD_SEED = 424242


def seed_all(seed):
    import numpy
    import torch
    random.seed(seed)
    numpy.random.seed(seed % 2 ** 32)
    # Seeds the CPU generator and every CUDA device's (torch.cuda.manual_seed_all, queued until
    # CUDA initialises when it has not yet; the child never inherits an initialised CUDA, which
    # is the one case, a "bad fork", where torch skips it). Inputs drawn on the device depend on
    # this (draw_inputs); test_units checks that it reaches the CUDA generators.
    torch.manual_seed(seed)


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
    return model64


def _short_repr(value):
    import torch
    if isinstance(value, torch.Tensor):
        return f"tensor{list(value.shape)}"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def upcast(values):
    import torch
    return [v.double() if isinstance(v, torch.Tensor) and v.is_floating_point() else v
            for v in values]


class Evaluation:
    def __init__(self, request, scratch):
        import torch
        self.torch = torch
        self.request = {**DEFAULTS, **{k: v for k, v in request.items() if v is not None}}
        self.device = self.request["device"]
        self.precision = self.request["precision"]
        self.scratch = scratch
        self.task_path = self.request["task_path"]
        self.candidate_path = self.request["candidate_path"]
        self.result = {"status": "ok", "error": "", "error_location": None, "reasons": [],
                       "correctness": None, "generalizes": "unknown", "timing": None,
                       "score": None, "speedup_vs_best_baseline": None,
                       "launches_per_forward": None, "kernels": [], "timed_s": 0.0,
                       "inputs_drawn_on": None}
        self.files = {}
        self.settings = numerics.capture()  # the reference's numerics (before the candidate)
        self.model64 = None
        self.fp64_error = None
        self.fp64_missing = False

    # ---- helpers ----------------------------------------------------------------------------

    @contextmanager
    def candidate_code(self, what):
        """Exceptions raised while candidate code runs become a classified Failure."""
        try:
            yield
        except Failure:
            raise
        except (Exception, SystemExit) as error:
            text, location = describe(error, self.files)
            module = getattr(self, "module", None)
            kernel_line = kernel_location(error, module, self.files) if module else None
            if kernel_line:
                text += f"\n(the error is at {kernel_line})"
            raise Failure(classify(error), f"failed to {what}:\n{text}",
                          kernel_line or location) from None

    def reference_code(self, what):
        """The reference failing is the task's problem, not the candidate's: ok=false."""
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

    def build(self, model_new, seed):
        """Model and ModelNew from the same seed, so equal parameter layouts get equal weights."""
        seed_all(seed)
        with self.reference_code("call get_init_inputs()"):
            init_inputs = self.task.init_inputs()
        seed_all(seed)
        with self.reference_code("build Model"), numerics.under(self.settings):
            reference = self.task.model_class(*clone_values(init_inputs)).to(self.device).eval()
        seed_all(seed)
        shown = ", ".join(_short_repr(value) for value in init_inputs)
        with self.candidate_code(f"build ModelNew({shown}) (the arguments Model gets)"):
            candidate = model_new(*clone_values(init_inputs))
            candidate = candidate.to(self.device).eval()
        return reference, candidate

    def make_inputs(self, seed):
        """One input set: the copy that every run of it clones from, so the candidate and the
        references see the same values. On the device when drawn there (draw_inputs; anything
        get_inputs() left on the CPU is moved), else on the CPU as in CPU mode."""
        with self.reference_code("call get_inputs()"), numerics.under(self.settings):
            values, where = draw_inputs(self.task, self.device, seed)
            self.result["inputs_drawn_on"] = where
            return clone_values(values, where)

    def run_candidate(self, model, inputs, what):
        from kforge_worker.correctness import output_list, to_host
        seed_all(FORWARD_SEED)
        with self.candidate_code(what), self.torch.no_grad():
            outputs = output_list(self.guard.call_candidate(model, inputs), "the candidate's")
            self.sync()
        for index, item in enumerate(outputs):
            if item.device.type != self.device:
                raise Failure("wrong_output", f"output {index} is on {item.device.type}, "
                                              f"expected {self.device}")
        with self.candidate_code(what):
            return to_host(outputs)

    def run_reference(self, model, input_set):
        from kforge_worker.correctness import output_list, to_host
        seed_all(FORWARD_SEED)
        with self.reference_code("run the reference"), self.torch.no_grad(), \
                numerics.under(self.settings):
            return to_host(output_list(model(*clone_values(input_set, self.device)),
                                       "the reference's"))

    def run_reference64(self, model, input_set):
        """fp64 reference on the device if it runs there (cuDNN RNNs do), else on the CPU; None
        when it runs nowhere (an op without a float64 kernel, a task forcing float32): the fp32
        reference then stands in and the calibrated verdict equals the kernelbench one."""
        from kforge_worker.correctness import output_list, to_host
        if self.model64 is None or self.model64[0] is not model:
            # (reference, its fp64 copy or None, that copy's device, devices still to try)
            self.model64 = [model, None, None, [self.device, "cpu"] if self.device != "cpu"
                            else ["cpu"]]
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
                    return to_host(output_list(state[1](*upcast(clone_values(
                        input_set, state[2]))), "the reference's"))
            except Exception as error:
                self.fp64_error = f"{type(error).__name__}: {str(error)[:200]}"
                state[1] = None
                if state[2] != "cpu":
                    self.torch.cuda.empty_cache()

    def compare_one(self, reference, candidate, input_set, where, comparison, inputs=None):
        """Candidate first (on `inputs`, or fresh device copies), then the references."""
        got = self.run_candidate(candidate, inputs if inputs is not None else
                                 clone_values(input_set, self.device), "run ModelNew.forward")
        want32 = self.run_reference(reference, input_set)
        want64 = self.run_reference64(reference, input_set)
        if want64 is None:
            comparison.fp64_reliable = False
            self.fp64_missing = True
            want64 = want32
        comparison.add(got, want32, want64, where)
        return got, want32, want64

    # ---- steps ------------------------------------------------------------------------------

    def load(self):
        from kforge_worker.sandbox import RequestFailure, resolve
        try:
            self.task = load_task(self.task_path, self.request["shrink"],
                                  self.request["overrides"], resolve(self.request, "task_path"))
        except LoadError as error:
            raise RequestFailure(str(error)) from None
        self.files[os.path.abspath(self.task.module.__file__)] = self.task_path
        copy_path = os.path.join(self.scratch, f"kforge_candidate_{os.getpid()}.py")
        try:
            shutil.copyfile(resolve(self.request, "candidate_path"), copy_path)
        except OSError as error:
            raise RequestFailure(f"failed to read candidate {self.candidate_path}: "
                                 f"{error.strerror}") from None
        self.files[os.path.abspath(copy_path)] = self.candidate_path
        self.guard = trust.Guard(self.task, self.request)
        self.guard.before_candidate_import()
        try:
            self.module, self.model_new = load_candidate(copy_path, self.candidate_path)
        except LoadError as error:
            raise Failure(error.status, str(error), error.location) from None
        self.guard.after_candidate_import(self.module, self.task.model_class)
        self.share_constants()

    def share_constants(self):
        """The task's shape constants (overrides applied) are set as globals of the candidate's
        module too: a candidate that copies `batch_size = 10` from the task, or simply uses
        `batch_size` in __init__ as KernelBench files do, sees the shapes being evaluated."""
        for name, value in self.task.shapes.items():
            setattr(self.module, name, value)

    def correctness(self):
        from kforge_worker.correctness import Comparison, same_outputs
        from kforge_worker.launches import count_triton_launches
        self.reference, self.candidate = self.build(self.model_new, SEED_BASE)
        self.guard.check_model(self.candidate, self.reference)
        comparison = Comparison(self.precision)
        self.kept = []
        # Whether every set's output is bit-identical to the first set's (the constant-output
        # check): compared against the first host copies, not hashed (hashing a 256 MB output
        # cost ~0.4 s per set).
        first_got = first_want = None
        candidate_constant = reference_constant = True
        for index in range(int(self.request["input_sets"])):
            seed = SEED_BASE + 1 + index
            input_set = self.make_inputs(seed)
            with count_triton_launches() as launches:
                got, want32, want64 = self.compare_one(
                    self.reference, self.candidate, input_set,
                    f"input set {index} (seed {seed})", comparison)
            # CPU: launches counted on the last set (the first may include autotuning runs).
            if index == int(self.request["input_sets"]) - 1 and self.device == "cpu":
                self.result["launches_per_forward"] = launches.total
                self.result["kernels"] = [
                    {"name": name, "calls_per_forward": calls, "time_share": None, "own": True}
                    for name, calls in launches.by_kernel.most_common()]
            if index < 2:
                self.kept.append((input_set, want32, want64))
            if first_got is None:
                first_got, first_want = got, want32
            else:
                candidate_constant &= same_outputs(got, first_got)
                reference_constant &= same_outputs(want32, first_want)
        sets = int(self.request["input_sets"])
        if comparison.passed and sets > 1 and not reference_constant and candidate_constant:
            comparison.fail(f"output does not depend on the input: bit-identical for all {sets} "
                            f"input sets while the reference's output varies")
        self.result["correctness"] = comparison.report()
        if not comparison.passed:
            raise Failure("wrong_output", comparison.first_failure)

    def reuse_check(self):
        """Same input tensor objects, new contents copied in place: a cache keyed by data_ptr
        (or by id) returns the old answer here. Both calls are checked: the tensors may land at
        an address a correctness run already used, and a cache hit there answers the first call
        with whatever that run's inputs were (the second call's, by chance, when the freed
        clone of input set 1 sat at the same address)."""
        from kforge_worker.correctness import Comparison
        if len(self.kept) < 2:
            return
        (first, first32, first64), (second, want32, want64) = self.kept
        tensors = clone_values(first, self.device)
        if not any(isinstance(value, self.torch.Tensor) for value in tensors):
            return
        got_first = self.run_candidate(self.candidate, tensors, "run ModelNew.forward")
        for target, source in zip(tensors, second):
            if isinstance(target, self.torch.Tensor):
                target.copy_(source)
        got = self.run_candidate(self.candidate, tensors, "run ModelNew.forward")
        comparison = Comparison(self.precision)
        comparison.add(got_first, first32, first64, "input set 0 in new tensors")
        comparison.add(got, want32, want64, "input set 1 copied into the tensors of input set 0")
        if not comparison.passed:
            raise Failure("wrong_output", "wrong when the same input tensors are reused with new "
                                          "contents (a cache keyed by the tensor?):\n"
                          + comparison.first_failure)

    def generalization(self):
        """Correct at one alternative shape set too, or the shapes are hard-coded."""
        from kforge_worker.correctness import Comparison
        alternative = alternative_overrides(self.task.shapes)
        if not alternative:
            return
        previous = {name: self.task.shapes[name] for name in alternative}
        self.task.apply(alternative)
        self.share_constants()
        shown = ", ".join(f"{name}={value}" for name, value in alternative.items())
        try:
            try:
                seed_all(SEED_BASE)
                with numerics.under(self.settings):
                    reference = self.task.model_class(*self.task.init_inputs())
                reference = reference.to(self.device).eval()
                input_set = self.make_inputs(SEED_BASE + 100)
                want32 = self.run_reference(reference, input_set)
                want64 = self.run_reference64(reference, input_set) or want32
            except Exception:  # RequestFailure included: the reference fails at these shapes
                self.result["generalizes"] = "unknown"
                return
            comparison = Comparison(self.precision)
            try:
                _, candidate = self.build(self.model_new, SEED_BASE)
                got = self.run_candidate(candidate, clone_values(input_set, self.device),
                                         "run ModelNew.forward")
                comparison.add(got, want32, want64, f"shapes {shown}")
                problem = comparison.first_failure
            except Failure as failure:
                if failure.status == "rejected":  # a trust refusal, not a shape problem
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
            self.task.apply(previous)
            self.share_constants()
            self.model64 = None

    def timing(self):
        from kforge_worker import timing
        drawn_sets = [self.make_inputs(SEED_BASE + 200 + i) for i in range(TIMING_INPUT_SETS)]
        candidate_sets = [clone_values(s, self.device) for s in drawn_sets]
        reference_sets = [clone_values(s, self.device) for s in drawn_sets]
        candidate, reference = self.candidate, self.reference
        runners = {"candidate": lambda i: (lambda: candidate(*candidate_sets[i])),
                   "eager": lambda i: (lambda: reference(*reference_sets[i]))}
        reasons = {}
        baselines = self.request["baselines"] or []
        if "compile" in baselines:
            runner, reasons["compile"] = timing.compile_runner(reference, reference_sets[0])
            if runner:
                runners["compile"] = lambda i, r=runner: r(reference_sets[i])
        if "cuda_graph" in baselines:
            runner, reasons["cuda_graph"] = timing.cuda_graph_runner(reference, reference_sets[0])
            if runner:
                runners["cuda_graph"] = lambda i, r=runner: r(reference_sets[i])
        timed_outputs = {}
        with self.candidate_code("time ModelNew.forward"):
            stats, timed_s = timing.time_interleaved(
                runners, list(range(TIMING_INPUT_SETS)), int(self.request["trials"]),
                int(self.request["warmup"]), bool(self.request["flush_l2"]),
                checkpoint=getattr(self.guard, "checkpoint", None),
                budget_s=float(self.request["timing_budget_s"]),
                keep={"candidate": timed_outputs})
        result = {"candidate": stats["candidate"], "eager": stats["eager"],
                  "compile": stats.get("compile"), "cuda_graph": stats.get("cuda_graph")}
        failed = {name: reason for name, reason in reasons.items() if reason}
        if failed:
            result["baseline_errors"] = failed
        self.result["timing"] = result
        self.result["timed_s"] = timed_s
        candidate_ms = stats["candidate"]["median_ms"]
        self.result["score"] = stats["eager"]["median_ms"] / candidate_ms
        best = min(stats[name]["median_ms"] for name in stats if name != "candidate")
        self.result["speedup_vs_best_baseline"] = best / candidate_ms
        self.timed_output_check(drawn_sets, timed_outputs)

    def timed_output_check(self, drawn_sets, timed_outputs):
        """The candidate's outputs kept from timed trials (timing.time_interleaved's `keep`)
        against the reference on fresh clones of the same inputs: a candidate honest in every
        check but cheating once the same tensors keep coming back (attack 13) is wrong here."""
        from kforge_worker.correctness import Comparison, output_list
        comparison = Comparison(self.precision)
        for index, (trial, outputs) in sorted(timed_outputs.items()):
            got = output_list(outputs, "the candidate's")
            want32 = self.run_reference(self.reference, drawn_sets[index])
            want64 = self.run_reference64(self.reference, drawn_sets[index]) or want32
            comparison.add(got, want32, want64, f"timing input set {index}")
            if not comparison.passed:
                raise Failure("wrong_output", f"wrong output during timing (trial {trial}):\n"
                              + comparison.first_failure)

    def profile(self):
        from kforge_worker.launches import profile_forward, triton_kernel_names
        inputs = self.make_inputs(SEED_BASE + 300)
        device_inputs = clone_values(inputs, self.device)
        with self.candidate_code("profile ModelNew.forward"), self.torch.no_grad():
            launches, kernels = profile_forward(lambda: self.candidate(*device_inputs),
                                                triton_kernel_names(self.module))
        self.result["launches_per_forward"] = launches
        self.result["kernels"] = kernels
        if hasattr(self.guard, "note_kernels"):
            self.guard.note_kernels(kernels)  # profiler evidence of own (e.g. CUDA C++) kernels

    def post_timing_check(self):
        from kforge_worker.correctness import Comparison
        comparison = Comparison(self.precision)
        seed = SEED_BASE + 400
        self.compare_one(self.reference, self.candidate, self.make_inputs(seed),
                         f"fresh input set after timing (seed {seed})", comparison)
        if not comparison.passed:
            raise Failure("wrong_output", "correct before timing, wrong after it on fresh "
                                          "inputs:\n" + comparison.first_failure)

    def phase(self, name, step):
        """Runs one step of the evaluation, adding its wall time to result["phases_s"] (where a
        request's time goes besides the timed trials: bench/bench_harness.py prints it)."""
        began = time.monotonic()
        try:
            step()
        finally:
            phases = self.result.setdefault("phases_s", {})
            phases[name] = round(phases.get(name, 0.0) + time.monotonic() - began, 3)

    def run(self):
        try:
            self.phase("load", self.load)
            self.phase("correctness", self.correctness)
            self.phase("reuse_check", self.reuse_check)
            if self.request["check_generalization"]:
                self.phase("generalization", self.generalization)
            if self.device == "cuda":
                self.phase("timing", self.timing)
                if self.request["profile"]:
                    self.phase("profile", self.profile)
                self.phase("post_timing_check", self.post_timing_check)
        except Failure as failure:
            self.result["status"] = failure.status
            self.result["error"] = failure.message
            self.result["error_location"] = failure.location
            self.result["reasons"] += failure.reasons
        guard = getattr(self, "guard", None)
        if guard is not None:
            refused = []
            try:
                self.phase("trust_after", lambda: guard.after_timing(timing=self.result["timing"]))
            except Failure as refusal:  # a refusal raised by the guard itself
                refused.append(refusal.message)
            violations = list(guard.violations) + refused
            if violations:
                self.result["reasons"] += violations
                # A violation outranks any other outcome (a candidate can catch a refusal and
                # then fail some other way), except one the parent decides: timeout, crashed.
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
                f"{self.fp64_error}")
        changed = numerics.differences(self.settings, numerics.capture())
        if changed:
            self.result.setdefault("notes", []).append(
                f"the candidate changed global numerics (the reference ran without the "
                f"change): {', '.join(changed)}")
        if self.result["status"] != "ok":
            self.result["score"] = None
            self.result["speedup_vs_best_baseline"] = None
        return self.result


def _evaluate_child(request, scratch):
    started = time.monotonic()
    if request.get("device", "cuda") == "cpu":
        # Read by triton at @triton.jit decoration time, i.e. when the candidate is imported.
        os.environ["TRITON_INTERPRET"] = "1"
        from kforge_worker import interpreter_compat
        interpreter_compat.install()
    import torch  # already imported by the worker; CUDA initialises in this child
    if request.get("device", "cuda") == "cpu":
        # CPU mode checks small shapes; OpenMP threads only spin against each other (and
        # against other workers) there: 15x slower on a loaded 2-core machine.
        torch.set_num_threads(1)
    from kforge_worker.hello import device_info, versions
    trust.child_setup(scratch)
    evaluation = Evaluation(request, scratch)
    profile_to = os.environ.get("KFORGE_EVALUATE_CPROFILE")
    if profile_to:  # diagnostics: the child's Python profile (bench/bench_harness.py --cprofile)
        import cProfile
        from kforge_worker import trust_audit
        trust_audit.allow_write(profile_to)  # the harness's own file, not the candidate's
        profiler = cProfile.Profile()
        result = profiler.runcall(evaluation.run)
        profiler.dump_stats(os.path.join(profile_to, f"evaluate_{os.getpid()}.prof"))
    else:
        result = evaluation.run()
    result["device"] = device_info() if evaluation.device == "cuda" else \
        {"name": "cpu", "interpret": True}
    result["versions"] = versions()
    result["shapes"] = evaluation.task.shapes if hasattr(evaluation, "task") else {}
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
    outcome = run_request(_evaluate_child, request,
                          timeout_s=request.get("timeout_s") or DEFAULTS["timeout_s"],
                          host_memory_gb=request.get("host_memory_gb"))
    if outcome.status == "done":
        result = outcome.result
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
    result["output_bytes"] = outcome.output.bytes
    result["output_tail"] = outcome.output.last_lines(40)
    # The child ran a scratch copy of the candidate: show the user's path instead.
    for key in ("error", "output_tail"):
        result[key] = SCRATCH_COPY.sub(request["candidate_path"], result[key] or "")
    if outcome.status == "crashed":
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
