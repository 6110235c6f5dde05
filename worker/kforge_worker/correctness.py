"""Comparing a candidate's outputs with the reference's (docs/correctness.md has the formulas).

Two verdicts per comparison:
- kernelbench: torch.allclose against the fp32 reference, atol = rtol = 1e-4 (fp32) or 1e-2
  (fp16/bf16);
- calibrated: against the fp64 reference, with the allclose tolerance widened to k times the fp32
  reference's own error (in allclose units) when that is larger: an exact candidate is never
  punished for the reference's TF32 rounding, and a candidate as inexact as the reference passes.
NaN in a candidate's output never passes."""


import torch

K_REFERENCE = 4.0       # a candidate may be this many times as far off as the fp32 reference
# Above this widening the fp64 evaluation is not a trustworthy reference (e.g. a task drawing
# random numbers in forward: float64 draws differ from float32 ones): the calibrated verdict
# falls back to the kernelbench one instead of accepting almost anything.
MAX_SCALE = 100.0
LOW_PRECISION = (torch.float16, torch.bfloat16)


def base_tolerance(dtype):
    return 1e-2 if dtype in LOW_PRECISION else 1e-4


def output_list(value, who):
    """A forward's result as a list of tensors (a tensor, or a tuple/list of tensors)."""
    from kforge_worker.errors import Failure
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    for index, item in enumerate(values):
        if not isinstance(item, torch.Tensor):
            raise Failure("wrong_output", f"{who} output {index} is a {type(item).__name__}, "
                                          f"expected a tensor")
    return values


def to_host(outputs):
    from kforge_worker.snapshots import host_snapshot
    return [host_snapshot(item) for item in outputs]


def same_outputs(a, b):
    """Whether two lists of host tensors are bit-identical (for the constant-output check; NaNs
    in the same places count as the same bits). Flattened before the byte view: a 0-dim tensor
    (a loss) cannot be viewed as another element size."""
    return len(a) == len(b) and all(
        x.shape == y.shape and x.dtype == y.dtype and
        torch.equal(_bytes(x), _bytes(y))
        for x, y in zip(a, b))


def _bytes(tensor):
    return tensor.contiguous().reshape(-1).view(torch.uint8)


# A comparison holds about a dozen float64 temporaries of the output's size at once.
_COMPARE_TEMPORARIES = 12


def _compare_device(numel):
    """Where outputs are compared. The candidate and references have finished and their host
    copies (snapshots.host_snapshot) are kept; comparing in float64 on the GPU (when this child
    already uses one and has room) instead of on the host takes a 4096x16384 softmax's checks
    from seconds to milliseconds per input set."""
    if not (torch.cuda.is_available() and torch.cuda.is_initialized()):
        return "cpu"
    free, _ = torch.cuda.mem_get_info()
    return "cuda" if free > _COMPARE_TEMPORARIES * 8 * numel else "cpu"


def _max(a, b):
    """max that keeps NaN (Python's max drops it depending on the order)."""
    return a + b if a != a or b != b else max(a, b)


def _format_index(flat, shape):
    index = []
    for size in reversed(shape):
        index.append(flat % size if size else 0)
        flat = flat // size if size else 0
    return tuple(reversed(index))


class Comparison:
    """Candidate vs reference over all input sets and outputs; the first failure is kept."""

    def __init__(self, precision="calibrated", k=K_REFERENCE):
        self.precision = precision
        self.k = k
        self.pass_calibrated = True
        self.pass_kernelbench = True
        self.max_abs_err = 0.0
        self.max_abs_err_fp64 = 0.0
        self.reference_err_fp64 = 0.0
        self.tolerance = 0.0
        self._mean_sum = 0.0
        self._mean64_sum = 0.0
        self._compared = 0
        self.first_failure = None
        self.sets = 0
        self.fp64_reliable = True

    @property
    def passed(self):
        return self.pass_calibrated if self.precision == "calibrated" else self.pass_kernelbench

    def check_structure(self, candidate, reference, where):
        """Same number of outputs, shapes and dtypes; a mismatch fails both verdicts."""
        problem = None
        if len(candidate) != len(reference):
            problem = f"returned {len(candidate)} outputs, expected {len(reference)}"
        else:
            for index, (got, want) in enumerate(zip(candidate, reference)):
                if tuple(got.shape) != tuple(want.shape):
                    problem = (f"output {index} has shape {list(got.shape)}, expected "
                               f"{list(want.shape)}")
                elif got.dtype != want.dtype:
                    problem = f"output {index} has dtype {got.dtype}, expected {want.dtype}"
                if problem:
                    break
        if problem:
            self._fail(f"{where}: {problem}", calibrated=True, kernelbench=True)
            return False
        return True

    def add(self, candidate, ref32, ref64, where):
        """Compare host tensors of one input set. `where` names the input set in messages."""
        self.sets += 1
        if ref64 is ref32:  # no float64 reference ran: the fp32 one stands in
            self.fp64_reliable = False
        if not self.check_structure(candidate, ref32, where):
            return
        for index, (got, want32, want64) in enumerate(zip(candidate, ref32, ref64)):
            self._add_output(index, len(candidate), got, want32, want64, where)

    def _add_output(self, index, count, got, want32, want64, where):
        if not got.is_floating_point():
            if not torch.equal(got, want32):
                self._fail(f"output {index} ({where}): integer output differs from the "
                           f"reference", calibrated=True, kernelbench=True)
            return
        base = base_tolerance(want32.dtype)
        device = _compare_device(got.numel())
        # to the device in the stored dtype, then widened there (not widened on the host)
        got64, ref32, ref64 = (item.to(device).to(torch.float64) for item in (got, want32, want64))
        self._compare(index, count, got64, ref32, ref64, base, where)

    def _compare(self, index, count, got64, ref32, ref64, base, where):
        err32 = (got64 - ref32).abs()
        err64 = (got64 - ref64).abs()
        own = (ref32 - ref64).abs()
        allowed_unit = base + base * ref64.abs()
        ratio = float((own / allowed_unit).max()) if own.numel() else 0.0
        scale = max(1.0, self.k * ratio) if ratio == ratio else float("inf")
        allowed64 = scale * allowed_unit
        has_nan = bool(torch.isnan(got64).any())
        kernelbench = not has_nan and torch.allclose(got64, ref32, atol=base, rtol=base)
        if scale > MAX_SCALE:
            self.fp64_reliable = False
            calibrated = kernelbench
        else:
            calibrated = not has_nan and bool((err64 <= allowed64).all())
        if got64.numel():
            self.max_abs_err = _max(self.max_abs_err, float(err32.max()))
            self.max_abs_err_fp64 = _max(self.max_abs_err_fp64, float(err64.max()))
            self.reference_err_fp64 = _max(self.reference_err_fp64, float(own.max()))
            self._mean_sum += float(err32.mean())
            self._mean64_sum += float(err64.mean())
            self._compared += 1
        # The widened absolute term; the base one where fp64 could not be used.
        self.tolerance = max(self.tolerance, scale * base if scale <= MAX_SCALE else base)
        if not (calibrated if self.precision == "calibrated" else kernelbench):
            if self.precision == "calibrated" and scale <= MAX_SCALE:
                text = self._describe(index, count, got64, ref64, err64, allowed64, where,
                                      "fp64 reference", scale)
            else:
                text = self._describe(index, count, got64, ref32, err32,
                                      base + base * ref32.abs(), where, "fp32 reference", 1.0)
            self._fail(text, calibrated=not calibrated, kernelbench=not kernelbench)
        else:
            self.pass_calibrated &= calibrated
            self.pass_kernelbench &= kernelbench

    def _describe(self, index, count, got, want, err, allowed, where, against, scale):
        excess = torch.where(torch.isnan(err), torch.full_like(err, float("inf")), err - allowed)
        bad = int((excess > 0).sum())
        flat = int(excess.reshape(-1).argmax())
        position = _format_index(flat, list(got.shape))
        got_value = float(got.reshape(-1)[flat])
        want_value = float(want.reshape(-1)[flat])
        lines = [
            f"output {index} of {count} (shape {list(got.shape)}), {where}: {bad} of "
            f"{got.numel()} elements outside tolerance",
            f"worst at index {position}: expected {want_value:.7g} ({against}), got "
            f"{got_value:.7g}, |err| {float(err.reshape(-1)[flat]):.3g} > allowed "
            f"{float(allowed.reshape(-1)[flat]):.3g}",
            f"max abs err {float(err.max()):.3g}, mean abs err {float(err.mean()):.3g} vs {against}"
            + (f" (tolerance widened x{scale:.3g} by the reference's own error)"
               if scale > 1 else ""),
        ]
        if bool(torch.isnan(got).any()):
            lines.append(f"the output contains {int(torch.isnan(got).sum())} NaN values")
        return "\n".join(lines)

    def _fail(self, text, calibrated, kernelbench):
        if calibrated:
            self.pass_calibrated = False
        if kernelbench:
            self.pass_kernelbench = False
        if self.first_failure is None and (calibrated if self.precision == "calibrated"
                                           else kernelbench):
            self.first_failure = text

    def fail(self, text):
        """A failure found outside the numeric comparison (e.g. constant output)."""
        self._fail(text, calibrated=True, kernelbench=True)

    def report(self):
        count = max(self._compared, 1)
        return {
            "precision": self.precision, "input_sets": self.sets,
            "pass_calibrated": self.pass_calibrated, "pass_kernelbench": self.pass_kernelbench,
            "max_abs_err": self.max_abs_err, "mean_abs_err": self._mean_sum / count,
            "max_abs_err_fp64": self.max_abs_err_fp64, "mean_abs_err_fp64": self._mean64_sum / count,
            "reference_err_fp64": self.reference_err_fp64, "tolerance": self.tolerance,
            "fp64_reliable": self.fp64_reliable,
            "first_failure": self.first_failure,
        }
