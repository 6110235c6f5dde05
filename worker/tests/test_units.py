"""Unit tests of the worker's pieces, in process: shape policy, the correctness formulas, error
formatting, the sandbox and the Triton launch counter."""

import errno
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import pytest
import torch

from kforge_worker import operator_probes, sandbox
from kforge_worker.correctness import Comparison, base_tolerance
from kforge_worker.errors import describe, trim
from kforge_worker.task_loader import (LoadError, alternative_overrides, load_candidate,
                                       shrink_overrides)


# ---- shapes ---------------------------------------------------------------------------------

def test_shrink_overrides_policy():
    constants = {"batch_size": 10, "seq_len": 512, "sequence_length": 512, "input_size": 128,
                 "hidden_size": 256, "dim": 2000, "num_layers": 6, "output_size": 10,
                 "dropout": 0.0, "bidirectional": True, "time_steps": 4}
    assert shrink_overrides(constants) == {
        "batch_size": 2, "seq_len": 8, "sequence_length": 8, "input_size": 16,
        "hidden_size": 16, "dim": 24}


def test_alternative_overrides_prefers_batch_then_seq():
    assert alternative_overrides({"batch_size": 2, "seq_len": 8}) == [{"batch_size": 3}]
    assert alternative_overrides({"seq_len": 8, "dim": 16}) == [{"seq_len": 4}]
    assert alternative_overrides({"M": 16, "K": 16}) == [{"M": 17}]
    assert alternative_overrides({"scale": 0.5}) == []


def test_alternative_overrides_grow_a_shrunk_size_first():
    # a kernel right only at the shrunk sizes (a block capped at 64) is wrong at the grown one
    file = {"batch_size": 4096, "dim": 16384}
    shrunk = {"batch_size": 2, "dim": 24}
    assert alternative_overrides(shrunk, shrunk, file) == [
        {"batch_size": 3, "dim": 67}, {"batch_size": 3}]
    # sequence lengths stay (the cost grows with them); sizes the file keeps small stay too
    assert alternative_overrides({"batch_size": 2, "seq_len": 8, "hidden_size": 16},
                                 {"batch_size": 2, "seq_len": 8, "hidden_size": 16},
                                 {"batch_size": 10, "seq_len": 512, "hidden_size": 256}) == [
        {"batch_size": 3, "hidden_size": 67}, {"batch_size": 3}]
    assert alternative_overrides({"batch_size": 2, "dim": 24}, {"batch_size": 2, "dim": 24},
                                 {"batch_size": 16, "dim": 48}) == [{"batch_size": 3}]


# ---- correctness ----------------------------------------------------------------------------

def compare(candidate, ref32, ref64, precision="calibrated"):
    comparison = Comparison(precision)
    comparison.add([candidate], [ref32], [ref64], "input set 0 (seed 1)")
    return comparison


def test_exact_candidate_passes_calibrated_when_reference_is_off():
    ref64 = torch.linspace(-4, 4, 101, dtype=torch.float64)
    ref32 = (ref64 * (1 + 1e-3)).float()          # the reference's own error: ~1e-3 relative
    exact = ref64.float()
    result = compare(exact, ref32, ref64)
    assert result.pass_calibrated and not result.pass_kernelbench
    report = result.report()
    assert report["reference_err_fp64"] == pytest.approx(4e-3, rel=1e-3)
    assert report["tolerance"] > 1e-4


def test_calibrated_formula_bound():
    # Reference error e_ref at one element, in allclose units u = 1e-4 + 1e-4 |ref64|:
    # the bound is max(1, 4 * max(e_ref / u)) * u elementwise.
    ref64 = torch.zeros(4, dtype=torch.float64)
    ref32 = torch.tensor([0.0, 0.0, 0.0, 1e-3])    # 10 units off -> scale 40
    just_inside = torch.tensor([0.0, 0.0, 3.9e-3, 0.0])
    just_outside = torch.tensor([0.0, 0.0, 4.1e-3, 0.0])
    assert compare(just_inside, ref32, ref64).pass_calibrated
    failed = compare(just_outside, ref32, ref64)
    assert not failed.pass_calibrated
    assert "worst at index (2,)" in failed.first_failure
    assert "widened x40" in failed.first_failure


def test_unreliable_fp64_reference_falls_back_to_kernelbench():
    # A reference 1.0 away from its fp64 evaluation (random draws in forward differ by dtype):
    # widening the tolerance by that would accept anything.
    ref64 = torch.zeros(3, dtype=torch.float64)
    ref32 = torch.tensor([1.0, 0.0, 0.0])
    far_off = torch.tensor([1.0, 0.5, 0.0])
    result = compare(far_off, ref32, ref64)
    assert not result.pass_calibrated and not result.pass_kernelbench
    assert result.report()["fp64_reliable"] is False
    assert result.report()["tolerance"] == 1e-4
    assert "fp32 reference" in result.first_failure
    assert compare(ref32.clone(), ref32, ref64).pass_calibrated


def test_without_reference_error_the_base_tolerance_applies():
    ref64 = torch.ones(3, dtype=torch.float64)
    ref32 = ref64.float()
    assert compare(torch.tensor([1.0, 1.0, 1.00015]), ref32, ref64).pass_calibrated
    assert not compare(torch.tensor([1.0, 1.0, 1.0003]), ref32, ref64).pass_calibrated


def test_nan_never_passes():
    ref64 = torch.tensor([float("nan"), 1.0], dtype=torch.float64)
    result = compare(torch.tensor([float("nan"), 1.0]), ref64.float(), ref64)
    assert not result.pass_calibrated and not result.pass_kernelbench
    assert "NaN" in result.first_failure
    assert result.report()["max_abs_err"] != result.report()["max_abs_err"]  # NaN kept


def test_low_precision_tolerance():
    assert base_tolerance(torch.bfloat16) == 1e-2 and base_tolerance(torch.float32) == 1e-4
    ref64 = torch.ones(2, dtype=torch.float64)
    got = torch.tensor([1.0, 1.015], dtype=torch.bfloat16)
    result = compare(got, ref64.bfloat16(), ref64, "kernelbench")
    assert result.pass_kernelbench


def test_shape_and_dtype_mismatch_fail_both_verdicts():
    ref = torch.zeros(2, 3)
    result = compare(torch.zeros(3, 2), ref, ref.double())
    assert not result.pass_calibrated and not result.pass_kernelbench
    assert result.first_failure == "input set 0 (seed 1): output 0 has shape [3, 2], expected [2, 3]"
    result = compare(torch.zeros(2, 3, dtype=torch.float64), ref, ref.double())
    assert "dtype torch.float64, expected torch.float32" in result.first_failure


# ---- errors ---------------------------------------------------------------------------------

def test_trim_keeps_head_and_tail():
    text = "\n".join(f"line {i}" for i in range(200))
    trimmed = trim(text).split("\n")
    assert len(trimmed) == 60
    assert trimmed[0] == "line 0" and trimmed[-1] == "line 199"
    assert "omitted" in trimmed[20]


def test_describe_keeps_candidate_frames_only(tmp_path):
    path = tmp_path / "cand.py"
    path.write_text("def f(x):\n    return x[5]\n")
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    try:
        namespace["f"]([1])
    except IndexError as error:
        text, location = describe(error, {str(path): "cand.py"})
    assert text == "  File cand.py:2, in f\n    return x[5]\nIndexError: list index out of range"
    assert location == "cand.py:2"


def test_describe_says_what_a_sparse_tensor_error_means():
    try:
        torch.zeros(2, 2).to_sparse().untyped_storage()  # what a recorder does with an output
    except NotImplementedError as error:
        text, _ = describe(error, {})
    assert "Cannot access storage of SparseTensorImpl" in text
    assert text.endswith("compute on dense, strided tensors)")


def test_load_candidate_syntax_error_is_located(tmp_path):
    path = tmp_path / "c.py"
    path.write_text("import torch\nx = [1,\n")
    with pytest.raises(LoadError) as caught:
        load_candidate(str(path), "c.py")
    assert caught.value.status == "syntax_error"
    assert str(caught.value).startswith("c.py:2:5: SyntaxError: '[' was never closed")
    assert caught.value.location == "c.py:2"


# ---- sandbox --------------------------------------------------------------------------------

def _report_environment(request, scratch):
    with open("probe.txt", "w") as handle:  # relative: lands in the scratch directory
        handle.write("x")
    print("hello from the child")
    return {"cwd": os.getcwd(), "scratch": scratch,
            "secret": os.environ.get("KFORGE_TEST_API_KEY"),
            "plain": os.environ.get("KFORGE_TEST_PLAIN")}


def test_sandbox_scrubs_secrets_and_uses_a_scratch_directory(monkeypatch):
    monkeypatch.setenv("KFORGE_TEST_API_KEY", "s3cret")
    monkeypatch.setenv("KFORGE_TEST_PLAIN", "visible")
    outcome = sandbox.run_request(_report_environment, {"op": "test"}, timeout_s=30)
    assert outcome.status == "done"
    result = outcome.result
    assert result["secret"] is None and result["plain"] == "visible"
    assert os.path.realpath(result["cwd"]) == os.path.realpath(result["scratch"])
    assert not os.path.exists(result["scratch"])  # removed afterwards
    assert outcome.output.text() == "hello from the child\n"


def _raise_request_failure(request, scratch):
    raise sandbox.RequestFailure("failed to load task t.py: no Model class defined")


def _raise_bug(request, scratch):
    raise ZeroDivisionError("division by zero")


def test_sandbox_request_failures_and_worker_bugs_become_request_errors():
    from kforge_worker.protocol import RequestError
    with pytest.raises(RequestError, match="^failed to load task t.py: no Model class defined$"):
        sandbox.run_request(_raise_request_failure, {"op": "test"}, timeout_s=30)
    with pytest.raises(RequestError, match="worker error: ZeroDivisionError: division by zero"):
        sandbox.run_request(_raise_bug, {"op": "evaluate"}, timeout_s=30)


def test_output_keeps_a_bounded_head_and_tail():
    output = sandbox.Output()
    for _ in range(100):
        output.add(b"a" * 1000)
    output.add(b"THE END")
    assert output.bytes == 100_007
    assert len(output.head) == sandbox.KEEP_BYTES and len(output.tail) == sandbox.KEEP_BYTES
    assert output.text().endswith("THE END") and "bytes omitted" in output.text()


# ---- launches -------------------------------------------------------------------------------

def test_count_triton_launches(tmp_path):
    source = textwrap.dedent('''
        import triton
        import triton.language as tl

        @triton.jit
        def add_one(x_ptr, n, BLOCK: tl.constexpr):
            offsets = tl.arange(0, BLOCK)
            mask = offsets < n
            tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1.0, mask=mask)
    ''')
    path = tmp_path / "kernels.py"
    path.write_text(source)
    from kforge_worker.launches import count_triton_launches, triton_kernel_names
    from kforge_worker.task_loader import import_file
    module = import_file(str(path), "kernels.py", "kforge_test")
    x = torch.zeros(8)
    with count_triton_launches() as count:
        module.add_one[(1,)](x, 8, BLOCK=8)
        module.add_one[(1,)](x, 8, BLOCK=8)
    assert count.total == 2 and count.by_kernel == {"add_one": 2}
    assert torch.equal(x, torch.full((8,), 2.0))
    assert triton_kernel_names(module) == {"add_one"}
    module.add_one[(1,)](x, 8, BLOCK=8)  # outside the context: no longer counted
    assert count.total == 2


def test_gpu_compilation_error_is_classified_and_located(tmp_path, monkeypatch):
    # On a GPU, Triton raises CompilationError(src, node, message) with a line counted from the
    # kernel's `def`; built by hand here since the CPU interpreter never compiles.
    import ast
    from triton.compiler.errors import CompilationError
    from kforge_worker.errors import classify, kernel_location
    from kforge_worker.task_loader import import_file
    path = tmp_path / "cand.py"
    path.write_text(textwrap.dedent('''
        import triton
        import triton.language as tl


        @triton.jit
        def kernel(x_ptr, BLOCK: tl.constexpr):
            offsets = tl.arange(0, BLOCK)
            tl.store(x_ptr + offsets, tl.tanh(offsets))
    '''))
    monkeypatch.setenv("TRITON_INTERPRET", "0")  # a JITFunction, as on a GPU (no launch here)
    module = import_file(str(path), "cand.py", "kforge_test")
    node = ast.parse("x").body[0]
    node.lineno, node.col_offset = 4, 30   # 4th line of the kernel source: the tl.store line
    try:
        raise CompilationError(module.kernel.src, node, "AttributeError: no attribute 'tanh'")
    except CompilationError as error:
        assert classify(error) == "compile_error"
        assert kernel_location(error, module, {str(path): "cand.py"}) == "cand.py:10"


def test_timing_stats():
    # consecutive trials in blocks of `block`; the score's number is the median block mean
    from kforge_worker.timing import stats
    result = stats([1.0, 2.0, 3.0, 10.0], [1.5, 2.5, 3.5, 11.0], block=2)
    assert result == {"median_ms": 4.0, "mean_ms": 4.0, "std_ms": pytest.approx(3.5355, 1e-4),
                      "min_ms": 1.5, "trials": 4, "blocks": 2, "trial_median_ms": 2.5,
                      "trial_min_ms": 1.0, "host_median_ms": 3.0}


def test_block_stats_cannot_be_skewed_within_a_block():
    # One slow trial and nine free ones with the honest block's sum: the same score. The
    # median of single trials would read 0.0001 ms (a ~10000x speed-up).
    from kforge_worker.timing import block_stats
    honest = block_stats([[1.0] * 10, [1.1] * 10, [0.9] * 10])
    skewed = block_stats([[10.0 - 9e-4] + [1e-4] * 9, [11.0 - 9e-4] + [1e-4] * 9,
                          [9.0 - 9e-4] + [1e-4] * 9])
    assert skewed["median_ms"] == pytest.approx(honest["median_ms"]) == pytest.approx(1.0)
    assert skewed["min_ms"] == pytest.approx(0.9)
    assert skewed["trial_median_ms"] == 1e-4  # a diagnostic only


def test_block_stats_take_the_means_the_wall_clock_raised():
    from kforge_worker.timing import block_stats
    result = block_stats([[0.1] * 10, [0.1] * 10, [0.1] * 10], means=[0.1, 0.5, 0.5])
    assert result["median_ms"] == 0.5 and result["trial_median_ms"] == 0.1


def test_allowed_gap_is_the_stand_in_overhead_plus_a_margin():
    from kforge_worker.calibration import allowed_gap
    assert allowed_gap([0.10, 0.12, 0.5, 0.11, 0.09], 10, cpu=False) == pytest.approx(
        0.11 + 0.3 + 0.05)             # median 0.11, MIN_MARGIN_MS, BLOCK_MARGIN_MS / 10
    assert allowed_gap([0.4] * 5, 10, cpu=False) == pytest.approx(0.4 + 0.3 + 0.05)
    assert allowed_gap([0.4] * 5, 1, cpu=True) == pytest.approx(0.4 + 0.3 + 0.5 + 2.0)


def test_timed_tolerance_follows_the_checked_calls_error():
    # A memo serving another set's softmax is off by the size of the values (~1e-4 for 4096
    # columns): inside the base fp32 allclose tolerance, outside the derived one.
    from kforge_worker.timed_check import first_failure, timed_scale
    torch.manual_seed(0)
    want = torch.softmax(torch.randn(8, 4096), dim=1)
    other = torch.softmax(torch.randn(8, 4096), dim=1)
    scale = timed_scale(1e-3)      # an honest Triton softmax: ~1e-3 units in the checked calls
    assert scale == 1.0 / 16
    assert first_failure([other], [want], scale, "here") is not None
    assert first_failure([want + 1e-9], [want], scale, "here") is None
    # the RNN library: exact fp32 against cuDNN's TF32, ~2 units in the checked calls
    hidden = torch.randn(64, 256)
    assert first_failure([hidden + 3e-4], [hidden], timed_scale(2.0), "here") is None
    text = first_failure([hidden + 0.1], [hidden], timed_scale(2.0), "timed call 3")
    assert "timed call 3" in text and "elements outside tolerance" in text
    # capped by the checked verdict's allowance: 0.9 units checked under a 1.05-unit verdict
    # may not become 7.2 units in timed calls, nor 1.9 (a33_tolerance_switch_by_cost)
    assert timed_scale(0.9, 1.05) == 1.05
    assert timed_scale(2.0, 10.0) == 10.0
    from kforge_worker.timed_check import check
    base = 1e-4  # fp32's allclose tolerance
    ones = torch.ones(4)
    problem, worst = check([ones + 1.9 * 2 * base], [ones], [(1.05, 1.0)], "timed call 1")
    assert problem is not None and worst[0][0] == pytest.approx(1.9, rel=1e-3)
    problem, worst = check([ones + 0.5 * 2 * base], [ones], [(1.05, 1.0)], "timed call 1")
    assert problem is None and worst[0][0] == pytest.approx(0.5, rel=1e-3)
    inf = torch.tensor([float("inf"), 1.0])
    assert check([inf.clone()], [inf], [(scale, 1.0)], "here") == (None, [(0.0, 0.0)])
    nan = torch.tensor([float("nan"), 1.0])
    assert first_failure([nan.clone()], [nan], scale, "here") is None  # the task's own NaN
    assert first_failure([torch.tensor([1.0, float("nan")])], [torch.tensor([1.0, 1.0])],
                         scale, "here") is not None


def test_timed_outputs_are_held_to_the_checked_calls_relative_l2_bound():
    # Blind red team, session 25 (c07): one element 0.3 units off in the checked calls (a
    # relative L2 error of 7e-5, well inside the calibrated bound) let every element of every
    # timed call be 0.9 units off, a relative L2 error the checked calls would have failed.
    from kforge_worker.correctness import Comparison
    from kforge_worker.timed_check import check, limits, relative_bound
    torch.manual_seed(0)
    want = torch.softmax(torch.randn(2, 16), dim=1)
    want64 = want.double()
    planted = want.clone()
    planted[0, 0] += 0.3 * 1e-4 * (1 + want[0, 0])
    comparison = Comparison("calibrated")
    comparison.add([planted], [want], [want64], "input set 0")
    assert comparison.passed, comparison.first_failure
    assert 0 < comparison.rel32 < 1e-4 < comparison.allowed_rel32 < float("inf")
    [(scale, bound)] = limits(comparison.bounds, 1)
    assert bound == min(8 * comparison.rel32, comparison.allowed_rel32) and scale == 1.0
    everywhere = want + 0.9 * 1e-4 * (1 + want)
    problem, [(worst, relative)] = check([everywhere], [want], [(scale, bound)], "timed call 1")
    assert worst < 1.0 and relative > bound
    assert "relative L2 error" in problem and "timed call 1" in problem
    # an honest kernel's error, as large as the checked calls showed, passes
    assert check([planted], [want], [(scale, bound)], "timed call 2")[0] is None
    # Bounds are per output (blind red team, session 25): a value planted in an output of
    # zeros widens neither bound of the softmax beside it, which may not be served as zeros
    zeros = torch.zeros(2, 4)
    marked = zeros.clone()
    marked[0, 0] = 0.9e-4
    pair = Comparison("calibrated")
    pair.add([marked, want], [zeros, want], [zeros.double(), want64], "input set 0")
    assert pair.passed, pair.first_failure
    (zero_scale, _), (softmax_scale, softmax_bound) = limits(pair.bounds, 2)
    assert zero_scale > 0.5 and softmax_scale == 1 / 16 and softmax_bound == 1e-4 / 16
    problem, _ = check([zeros, torch.zeros_like(want)], [zeros, want],
                       limits(pair.bounds, 2), "timed call 3")
    assert problem.startswith("output 1 of 2")
    # where the checked verdict had no relative bound (kernelbench precision, no fp64), the 8x
    # rule alone: timed calls still show what the checked ones did
    assert relative_bound(1e-3) == 8e-3 and relative_bound(1e-9) == 1e-4 / 16
    kernelbench = Comparison("kernelbench")
    kernelbench.add([planted], [want], [want64], "input set 0")
    assert kernelbench.allowed_rel32 == float("inf") and kernelbench.rel32 == comparison.rel32


class _PassThroughGuard:
    violations = []

    def __init__(self, task, options):
        pass

    def __getattr__(self, name):
        return lambda *args, **kwargs: None

    def call_candidate(self, model, inputs):
        return model(*inputs)


def _fake_cuda_timing(monkeypatch, flush_elements=16):
    """CUDA events and synchronisation faked with host clocks (no GPU here)."""
    import time
    from kforge_worker import timing

    class FakeEvent:
        def __init__(self, enable_timing=False):
            self.at = None

        def record(self):
            self.at = time.perf_counter()

        def elapsed_time(self, end):
            return (end.at - self.at) * 1e3

    monkeypatch.setattr(torch.cuda, "Event", FakeEvent)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(timing, "l2_flush_buffer", lambda device: torch.empty(flush_elements))


@pytest.mark.parametrize("runners", [2, 3, 4])
def test_timed_outputs_are_kept_from_trials_the_candidate_ran_first(monkeypatch, runners):
    # Kept: per input set, the last trial (never the discarded first) in which the candidate ran
    # before every other runner, right after a trial on another input set: no runner had just
    # computed this set's answer, so stale memory cannot pass for it. Every set is covered even
    # when the runner and set counts share a factor (3 and 3).
    from kforge_worker import timing
    _fake_cuda_timing(monkeypatch)
    log = []

    def runner(name):
        return lambda inputs: (lambda: log.append((name, inputs)) or torch.tensor([inputs]))

    names = ["candidate", "eager", "compile", "cuda_graph"][:runners]
    kept = {}
    stats, _ = timing.time_interleaved({name: runner(name) for name in names}, [0, 1, 2],
                                       trials=12, warmup=2, keep={"candidate": kept})
    assert stats["candidate"]["trials"] == 12
    assert sorted(kept) == [0, 1, 2]
    timed = log[2 * runners:]  # after the warm-up rounds
    for input_set, (trial, output) in kept.items():
        assert 1 <= trial <= 12 and output.tolist() == [input_set]
        assert timed[trial * runners] == ("candidate", input_set)      # ran first
        assert timed[trial * runners - 1][1] != input_set              # after another set
        later = [t for t in range(trial + 1, 13) if t % 3 == input_set
                 and timed[t * runners][0] == "candidate"]
        assert later == []                                              # the last such trial


def test_baseline_child_with_fake_cuda_events(monkeypatch, tmp_path):
    # As above: the baseline step's logic on the CPU; the CUDA graph capture fails here (no
    # CUDA) and must come back as null with its reason, not as an error.
    from conftest import REPO
    from kforge_worker import baseline

    _fake_cuda_timing(monkeypatch, flush_elements=1024)
    request = {"task_path": "tasks/gelu.py", "device": "cpu", "shrink": True, "trials": 3,
               "warmup": 1, "baselines": ["eager", "cuda_graph"], "_cwd": REPO}
    result = baseline._baseline_child(request, str(tmp_path))
    assert result["eager"]["trials"] == 3
    assert result["cuda_graph"] is None and result["compile"] is None
    assert result["errors"]["cuda_graph"].startswith("CUDA graph capture failed: ")
    assert result["shapes"] == {"batch_size": 2, "dim": 24}
    assert result["inputs_drawn_on"] == "cpu"


def _leave_a_grandchild(request, scratch):
    import time
    pid = os.fork()
    if pid == 0:
        os.setsid()  # out of the child's process group: not killed with it
        time.sleep(30)
        os._exit(0)
    return {"grandchild": pid}


def test_sandbox_result_does_not_wait_for_a_grandchild_holding_the_pipes():
    import signal
    import time
    started = time.monotonic()
    outcome = sandbox.run_request(_leave_a_grandchild, {"op": "test"}, timeout_s=60)
    try:
        assert outcome.status == "done"
        assert time.monotonic() - started < 8  # the result is framed, no wait for EOF
    finally:
        if outcome.result:
            os.kill(outcome.result["grandchild"], signal.SIGKILL)


def test_timing_budget_shortens_the_trial_loop(monkeypatch):
    import time
    from kforge_worker import timing

    _fake_cuda_timing(monkeypatch)
    slow = lambda inputs: (lambda: time.sleep(0.005))  # noqa: E731
    stats, timed_s = timing.time_interleaved({"a": slow, "b": slow}, [0], trials=1000, warmup=2,
                                             budget_s=0.25)
    assert timing.MIN_TRIALS <= stats["a"]["trials"] < 40
    assert stats["a"]["trials"] == stats["b"]["trials"]
    assert stats["a"]["median_ms"] >= 5.0


def _open_descriptors(request, scratch):
    return {"fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd"))}


def test_sandbox_child_keeps_only_its_own_descriptors():
    # The worker's protocol stream (and anything else the parent holds) must not reach the
    # child: only stdin (/dev/null), the output pipe on 1 and 2, and the result pipe remain.
    spare = os.open(os.devnull, os.O_RDONLY)  # stands in for the protocol stream
    try:
        outcome = sandbox.run_request(_open_descriptors, {"op": "test"}, timeout_s=30)
    finally:
        os.close(spare)
    fds = outcome.result["fds"]
    assert fds[:3] == [0, 1, 2]
    assert spare not in fds
    # the operator probes' helper pipes (started with the worker's first evaluation) are kept on
    # purpose; besides them only the result pipe and the descriptor listdir itself holds
    helper = set(operator_probes.anchor_fds())
    assert helper <= set(fds)
    assert len(set(fds) - helper) == 5


_PREPARED = {}


def _prepare_marker(request_waiting):
    _PREPARED["pid"] = os.getpid()
    _PREPARED["cwd"] = os.getcwd()


def _report_prepared(request, scratch):
    return {"prepared": dict(_PREPARED), "pid": os.getpid(), "scratch": scratch,
            "request": request.get("value"), "secret": os.environ.get("KFORGE_TEST_API_KEY"),
            "fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd"))}


def test_a_prepared_child_runs_its_preparation_then_the_request_it_is_handed(monkeypatch):
    monkeypatch.setenv("KFORGE_TEST_API_KEY", "s3cret")
    child = sandbox.fork_prepared(_report_prepared, _prepare_marker)
    outcome = sandbox.run_request(_report_prepared, {"op": "test", "value": 7}, timeout_s=30,
                                  prepared=child)
    assert outcome.status == "done"
    result = outcome.result
    # prepared in the same process, isolated as a child forked at the request is
    assert result["prepared"]["pid"] == result["pid"] == child.pid
    assert os.path.realpath(result["prepared"]["cwd"]) == os.path.realpath(result["scratch"])
    assert result["request"] == 7 and result["secret"] is None
    assert not os.path.exists(result["scratch"])
    # the request pipe is closed once read: the same descriptors as a child forked at a request
    helper = set(operator_probes.anchor_fds())
    assert result["fds"][:3] == [0, 1, 2] and len(set(result["fds"]) - helper) == 5


def test_a_discarded_prepared_child_is_gone_with_its_scratch_directory():
    child = sandbox.fork_prepared(_report_prepared, _prepare_marker)
    sandbox.discard(child)
    assert not os.path.exists(child.scratch)
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)


def test_the_spare_judge_is_used_only_for_its_device_and_warm_process(monkeypatch):
    import signal
    from kforge_worker import judge_spare, warm_pool
    monkeypatch.setattr(warm_pool, "_warm", {})  # no warm candidate processes: peek is None

    def spare():
        child = sandbox.fork_prepared(_report_prepared, _prepare_marker)
        monkeypatch.setattr(judge_spare, "_spare", (child, "cpu", None, None, None))
        return child
    child = spare()
    assert judge_spare.take("cpu", None) is child and judge_spare.take("cpu", None) is None
    sandbox.discard(child)
    child = spare()
    assert judge_spare.take("cuda", None) is None  # another device: discarded
    assert not os.path.exists(child.scratch)
    child = spare()
    assert judge_spare.take("cpu", object()) is None  # another warm process: discarded
    child = spare()
    os.kill(child.pid, signal.SIGKILL)  # died while it waited: never handed a request
    import time
    time.sleep(0.2)
    assert judge_spare.take("cpu", None) is None
    assert not os.path.exists(child.scratch)


def test_a_prefetched_spare_judge_serves_only_the_same_work_on_the_same_task_file(
        monkeypatch, tmp_path):
    from kforge_worker import judge_spare, warm_pool
    monkeypatch.setattr(warm_pool, "_warm", {})
    task = tmp_path / "task.py"
    task.write_text("# a task\n")
    request = {"op": "evaluate", "id": 1, "task_path": str(task), "candidate_path": "a.py",
               "device": "cpu", "shrink": True}
    predicted = {**request, "_cwd": os.getcwd()}

    def spare():
        child = sandbox.fork_prepared(_report_prepared, _prepare_marker)
        monkeypatch.setattr(judge_spare, "_spare", (child, "cpu", None, predicted,
                                                    judge_spare._task_digest(predicted)))
        return child
    child = spare()  # another candidate, another id: the same work
    assert judge_spare.take("cpu", None, {**request, "id": 2, "candidate_path": "b.py"}) is child
    assert not child.prefetch_stale
    sandbox.discard(child)
    # other shapes, or the task file edited since the prefetch: still a prepared judge, told
    # that its prefetch is stale (it drops it: evaluate._evaluate_child)
    child = spare()
    assert judge_spare.take("cpu", None, {**request, "shrink": False}) is child
    assert child.prefetch_stale
    sandbox.discard(child)
    child = spare()
    task.write_text("# another task\n")
    assert judge_spare.take("cpu", None, request) is child and child.prefetch_stale
    sandbox.discard(child)
    child = spare()  # another device: not this judge
    assert judge_spare.take("cuda", None, request) is None


def test_no_spare_judge_is_forked_once_no_evaluation_is_expected(monkeypatch):
    from kforge_worker import judge_spare, warm_pool
    monkeypatch.setattr(warm_pool, "_taken", 1)
    monkeypatch.setenv("KFORGE_EVALUATIONS", "1")
    monkeypatch.setattr(judge_spare, "_spare", None)
    judge_spare.want("cpu")
    judge_spare.fork_pending()
    assert judge_spare._spare is None and judge_spare._wanted is None


def test_own_kernel_classification():
    from kforge_worker.launches import is_own_kernel
    own = {"softmax_row_kernel", "gemm_rowwise"}
    assert is_own_kernel("softmax_row_kernel", own)
    assert is_own_kernel("gemm_rowwise", own)                    # own name wins over "gemm"
    assert is_own_kernel("void gru_persistent<float>(float*)", set())  # a CUDA extension's
    for library in ("void at::native::vectorized_elementwise_kernel<4, float>(int)",
                    "ampere_sgemm_128x64_nn", "sm90_xmma_gemm_f32f32_tf32f32",
                    "void cudnn::rnn::RNN_blockPersist_fp_GRU<float>(int)",
                    "triton_poi_fused_add_mul_0", "triton_red_fused__softmax_1"):
        assert not is_own_kernel(library, own), library


# ---- drawing the task's inputs ------------------------------------------------------------------

def _task(path, **kwargs):
    from conftest import REPO
    from kforge_worker.task_loader import load_task
    return load_task(path, file=os.path.join(REPO, path), **kwargs)


def test_seed_all_seeds_the_cuda_generators(monkeypatch):
    # Inputs drawn on the GPU come from the CUDA generators: seed_all must reach them (queued
    # before CUDA initialises, as torch.manual_seed queues it) or every evaluation would draw
    # different inputs.
    from kforge_worker.evaluate import seed_all
    seeded = []
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "manual_seed_all", seeded.append)
    seed_all(1234)
    assert seeded == [1234]


def test_seed_all_and_seed_forward_leave_the_generators_as_torch_manual_seed_does():
    # Every forward (checked, timed, the baselines' timed ones) starts from seed_forward's state,
    # and the judge's draws from seed_all's: both must be torch.manual_seed's for torch's
    # generators (with Python's and NumPy's seeded too), without its per-call stack walk
    # (bench/host_overhead.py).
    import random
    import numpy
    from kforge_worker.seeding import seed_all, seed_forward
    torch.manual_seed(77)
    random.seed(77)
    numpy.random.seed(77)
    first = (torch.rand(4), torch.randn(2, 3), random.random(), numpy.random.rand())
    for seed in (seed_all, seed_forward):
        torch.rand(9), random.random(), numpy.random.rand()
        seed(77)
        again = (torch.rand(4), torch.randn(2, 3), random.random(), numpy.random.rand())
        assert torch.equal(first[0], again[0]) and torch.equal(first[1], again[1])
        assert first[2:] == again[2:]


def test_draw_inputs_applies_the_device_context():
    # "meta" stands in for "cuda": factory functions in get_inputs() allocate on the device given
    # (softmax's full 4096 x 16384 costs nothing on meta).
    from kforge_worker.evaluate import draw_inputs
    task = _task("tasks/softmax.py")
    values, where = draw_inputs(task, "meta", 1001)
    assert where == "meta" and task.inputs_fallback is None
    assert len(values) == 1 and values[0].device.type == "meta"
    assert list(values[0].shape) == [4096, 16384]


def test_draw_inputs_on_cpu_is_the_plain_seeded_call():
    from kforge_worker.evaluate import draw_inputs
    task = _task("tasks/gelu.py", shrink=True)
    values, where = draw_inputs(task, "cpu", 1001)
    again, _ = draw_inputs(task, "cpu", 1001)
    other, _ = draw_inputs(task, "cpu", 1002)
    torch.manual_seed(1001)
    plain = task.module.get_inputs()
    assert where == "cpu" and values[0].device.type == "cpu"
    assert torch.equal(values[0], plain[0]) and torch.equal(values[0], again[0])
    assert not torch.equal(values[0], other[0])


def test_make_inputs_moves_what_get_inputs_left_on_the_cpu(tmp_path):
    from conftest import task_file
    from kforge_worker import evaluate
    evaluation = evaluate.Evaluation({"task_path": task_file("mixed_inputs"),
                                      "candidate_path": "unused.py", "device": "meta"},
                                     str(tmp_path), 0.0)
    evaluation.task = _task(task_file("mixed_inputs"))
    x, offsets, scale = evaluation.make_inputs(1001)
    assert x.device.type == "meta" and offsets.device.type == "meta" and scale == 3
    assert evaluation.result["inputs_drawn_on"] == "meta"


def test_draw_inputs_falls_back_to_the_cpu_once_per_task(tmp_path):
    # get_inputs() goes through .numpy(), which fails on meta (as on cuda): drawn again on the
    # CPU from the same seed, and the device is not tried again for this task.
    from conftest import task_file
    from kforge_worker import evaluate
    task = _task(task_file("numpy_inputs"))
    values, where = evaluate.draw_inputs(task, "meta", 1001)
    assert where == "cpu" and values[0].device.type == "cpu"
    assert task.module.calls == 2  # the failed try on meta, then the CPU draw
    assert "numpy" in task.inputs_fallback.lower()
    evaluate.seed_all(1001)  # reseeded before the CPU draw: the failed try drew from NumPy
    assert torch.equal(values[0], task.module.get_inputs()[0])
    task.module.calls = 0
    _, where = evaluate.draw_inputs(task, "meta", 1002)
    assert where == "cpu" and task.module.calls == 1
    # Through the evaluation: the result says where, and notes say why.
    evaluation = evaluate.Evaluation({"task_path": task_file("numpy_inputs"),
                                      "candidate_path": "unused.py", "device": "meta"},
                                     str(tmp_path), 0.0)
    evaluation.start_candidate = lambda: None  # no candidate process: only the drawing runs
    evaluation.task = _task(task_file("numpy_inputs"))
    evaluation.load = lambda: None  # the task above, no candidate: only the drawing step runs
    evaluation.correctness = lambda: evaluation.make_inputs(1001)
    evaluation.kept = []  # so the reuse check has nothing to do
    evaluation.request["check_generalization"] = False
    result = evaluation.run()
    assert result["status"] == "ok" and result["inputs_drawn_on"] == "cpu"
    assert [note for note in result["notes"] if note.startswith(
        "task inputs drawn on the CPU: get_inputs() failed under torch.device('meta'): ")]


def test_draw_inputs_failing_on_the_cpu_too_is_the_tasks_error():
    from conftest import task_file
    from kforge_worker.evaluate import draw_inputs
    task = _task(task_file("bad_inputs"))
    with pytest.raises(LoadError) as caught:
        draw_inputs(task, "meta", 1001)
    assert str(caught.value).startswith("failed to call get_inputs() of worker/tests/tasks/")
    assert "undefined_size" in str(caught.value) and "NameError" in task.inputs_fallback


def test_host_snapshot_is_a_frozen_copy():
    """Comparisons and the trust guard keep snapshots: later writes to the source (a candidate
    reusing its output buffer) must not reach them; non-contiguous sources keep their values."""
    import torch
    from kforge_worker.snapshots import host_snapshot
    source = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    view = source.t()
    snap, snap_view = host_snapshot(source), host_snapshot(view)
    source.fill_(-1)
    assert torch.equal(snap, torch.arange(12, dtype=torch.float32).reshape(3, 4))
    assert torch.equal(snap_view, torch.arange(12, dtype=torch.float32).reshape(3, 4).t())
    assert snap.device.type == "cpu" and not snap.requires_grad


def test_large_gpu_outputs_are_kept_on_the_device():
    """The judge keeps a copy on the host only when it is small or the device is the CPU: a
    full-size KernelBench output (level1/23_Softmax: 6 GiB) stays on the GPU, where the
    candidate's process cannot reach the judge's own allocations."""
    from kforge_worker.snapshots import HOST_COPY_MAX_BYTES, keep_on_host, snapshot
    softmax_output = 4096 * 393216 * 4
    assert not keep_on_host(softmax_output, on_gpu=True)
    assert not keep_on_host(HOST_COPY_MAX_BYTES + 1, on_gpu=True)
    assert keep_on_host(HOST_COPY_MAX_BYTES, on_gpu=True)
    assert keep_on_host(softmax_output, on_gpu=False)   # CPU mode: the host is the device
    source = torch.ones(4)
    copy = snapshot(source)
    source.fill_(2)
    assert copy.device.type == "cpu" and torch.equal(copy, torch.ones(4))


def test_outputs_are_compared_on_their_own_device():
    from kforge_worker.correctness import compare_device
    assert compare_device(torch.zeros(2)).type == "cpu"
    assert compare_device(torch.zeros(2, device="meta")).type == "cpu"  # only a GPU keeps it


@pytest.mark.parametrize("chunk", [3, 7, 1 << 25])
def test_chunked_comparison_matches_the_whole_one(monkeypatch, chunk):
    """Outputs are compared chunk by chunk (a dozen float64 temporaries of a chunk, not of the
    output): the verdicts, errors, tolerance widening and the first failure's text are those of
    the whole output, whatever the chunk size."""
    from kforge_worker import correctness
    monkeypatch.setattr(correctness, "CHUNK_ELEMENTS", chunk)
    ref64 = torch.linspace(-4, 4, 101, dtype=torch.float64)
    ref32 = (ref64 * (1 + 1e-3)).float()
    result = compare(ref64.float(), ref32, ref64)
    assert result.pass_calibrated and not result.pass_kernelbench
    assert result.report()["reference_err_fp64"] == pytest.approx(4e-3, rel=1e-3)
    wrong = ref64.float().clone()
    wrong[57] += 1.0
    wrong[90] = float("nan")
    result = compare(wrong.reshape(101, 1), ref32.reshape(101, 1), ref64.reshape(101, 1))
    assert not result.pass_calibrated
    text = result.first_failure
    assert "2 of 101 elements outside tolerance" in text
    assert "worst at index (90, 0)" in text   # NaN is the worst excess
    assert "the output contains 1 NaN values" in text
    report = result.report()
    assert report["max_abs_err"] != report["max_abs_err"]  # NaN kept in the maximum


def test_candidate_environment_is_an_allowlist(tmp_path, monkeypatch):
    """Only allowlisted names reach the candidate, never a secret or an unknown name; the
    candidate's TEARDOWN_CUPTI is kforge's (0: no teardown thread after each recorder session),
    whatever the worker's is, and NVLink multicast is off whatever the caller set."""
    from kforge_worker import confinement
    monkeypatch.setenv("TEARDOWN_CUPTI", "1")
    monkeypatch.setenv("NCCL_NVLS_ENABLE", "1")
    monkeypatch.setenv("KFORGE_API_KEY", "sk-canary")
    monkeypatch.setenv("SOME_UNKNOWN_NAME", "x")
    scratch, cache = tmp_path / "scratch", tmp_path / "cache"
    scratch.mkdir()
    cache.mkdir()
    env = confinement.environment(str(scratch), str(cache), "cuda", "/worker")
    assert env["TEARDOWN_CUPTI"] == "0"
    assert (env["NCCL_NVLS_ENABLE"], env["TORCH_SYMM_MEM_DISABLE_MULTICAST"],
            env["NVSHMEM_DISABLE_NVLS"]) == ("0", "1", "1")
    assert "KFORGE_API_KEY" not in env and "SOME_UNKNOWN_NAME" not in env
    assert "sk-canary" not in "".join(env.values())


def test_the_sandbox_sees_its_build_cache_at_one_path(tmp_path):
    """torch's extension builds write absolute paths into their ninja file: a cache slot seen at
    a new path in every evaluation rebuilt the library's CUDA kernel every time (~30 s of nvcc
    on the H100; a C++ extension on the CPU: 21 s, then 3.7 s with the fixed path)."""
    from kforge_worker import confinement
    scratch, slot = str(tmp_path / "scratch"), str(tmp_path / "slot")
    args = confinement._bwrap_args(scratch, slot, [], 3, None)
    at = args.index(slot)
    assert args[at - 1:at + 2] == ["--bind", slot, confinement.SANDBOX_CACHE]
    assert args.index("--tmpfs") < args.index("/tmp") < at  # mounted inside the private /tmp
    env = confinement.environment(scratch, confinement.SANDBOX_CACHE, "cuda", "/worker")
    assert env["TORCH_EXTENSIONS_DIR"] == confinement.SANDBOX_CACHE + "/torch_extensions"


# ---- the judge's memory budget ----------------------------------------------------------------

def test_fp64_reference_only_where_it_fits_on_the_device():
    # Full-size level1/38_L1Norm (8 GiB in, 8 out): its float64 run and the task's slots exceed an
    # 80 GB GPU; it goes without (a note says why). A 1 GiB task keeps it.
    from types import SimpleNamespace

    from kforge_worker.evaluate import Evaluation
    gib = 1024 ** 3
    cuda = SimpleNamespace(mem_get_info=lambda: (60 * gib, 80 * gib),
                           memory_reserved=lambda: 12 * gib, memory_allocated=lambda: 10 * gib)
    judge = SimpleNamespace(torch=SimpleNamespace(cuda=cuda), fp64_error=None)
    assert Evaluation.fp64_fits_device(judge, 2 * (1 + 1) * gib)
    assert judge.fp64_error is None
    assert not Evaluation.fp64_fits_device(judge, 2 * (8 + 8) * gib)
    assert "skipped on the device" in judge.fp64_error and "62.0 GiB free" in judge.fp64_error


def test_fingerprint_tells_bit_identical_outputs_from_others():
    from kforge_worker import snapshots
    x = torch.randn(1000, 37)
    assert snapshots.fingerprint(x) == snapshots.fingerprint(x.clone())
    y = x.clone()
    y[500, 3] = torch.nextafter(y[500, 3], torch.tensor(float("inf")))
    assert snapshots.fingerprint(x) != snapshots.fingerprint(y)
    assert snapshots.fingerprint(x) != snapshots.fingerprint(x.reshape(37, 1000))
    loss = torch.tensor(2.5)  # a 0-dim output
    assert snapshots.fingerprint(loss) == snapshots.fingerprint(loss.clone())
    half = torch.ones(3, dtype=torch.float16)  # 6 bytes: summed as bytes
    assert snapshots.fingerprint(half) != snapshots.fingerprint(half * 2)


# ---- build caches -----------------------------------------------------------------------------

def test_a_build_cache_grown_past_its_limit_is_emptied(tmp_path):
    from kforge_worker.warm_pool import load_slot, save_slot
    cache, slot = tmp_path / "cache", tmp_path / "slot"
    (cache / "triton").mkdir(parents=True)
    (cache / "triton" / "kernel.so").write_bytes(b"x" * 1000)
    load_slot(str(slot), str(cache))
    (slot / "triton" / "new.cubin").write_bytes(b"y" * 1000)
    save_slot(str(slot), str(cache), limit_bytes=4096)
    assert sorted(os.listdir(cache / "triton")) == ["kernel.so", "new.cubin"]  # a normal build
    # grown in place through the hard link, past the limit (a candidate's libc write): emptied
    with open(slot / "triton" / "kernel.so", "ab") as handle:
        handle.truncate(1 << 20)
    save_slot(str(slot), str(cache), limit_bytes=4096)
    assert os.listdir(cache) == ["triton"] and os.listdir(cache / "triton") == []


def test_a_build_cache_takes_only_names_a_compiler_writes(tmp_path):
    # blind red team, session 36: names with a newline, bytes that are not UTF-8 or a leading
    # "-" came back into the host's cache
    from kforge_worker.warm_pool import load_slot, save_slot
    cache, slot = tmp_path / "cache", tmp_path / "slot"
    (cache / "triton").mkdir(parents=True)
    load_slot(str(slot), str(cache))
    for name in ("kernel.cubin", "a\nb", "-rf", os.fsdecode(b"\xff\xfe.bin")):
        (slot / "triton" / name).write_bytes(b"x")
    (slot / "triton" / "-dir").mkdir()
    (slot / "triton" / "-dir" / "inside.so").write_bytes(b"x")
    save_slot(str(slot), str(cache))
    assert sorted(os.listdir(cache / "triton")) == ["kernel.cubin"]


def test_a_build_cache_never_takes_setuid_or_shared_write_bits_from_the_slot(tmp_path):
    # blind red team, session 34: a setuid-root shell written into the slot persisted in the
    # host's cache (the slot is nosuid only inside the sandbox)
    import stat
    from kforge_worker.warm_pool import load_slot, save_slot
    cache, slot = tmp_path / "cache", tmp_path / "slot"
    (cache / "triton").mkdir(parents=True)
    (cache / "triton" / "kernel.so").write_bytes(b"x")
    load_slot(str(slot), str(cache))
    os.chmod(slot / "triton" / "kernel.so", 0o6777)  # a linked file, changed in place
    (slot / "triton" / "helper_bin").write_bytes(b"#!/bin/sh\n")
    os.chmod(slot / "triton" / "helper_bin", 0o6777)  # a new file, copied back
    (slot / "triton" / "shared").write_bytes(b"y")
    os.chmod(slot / "triton" / "shared", 0o666)
    save_slot(str(slot), str(cache))
    modes = {name: stat.S_IMODE(os.lstat(cache / "triton" / name).st_mode)
             for name in ("kernel.so", "helper_bin", "shared")}
    assert modes == {"kernel.so": 0o755, "helper_bin": 0o755, "shared": 0o644}


def test_all_build_caches_together_stay_under_their_limit(tmp_path):
    """A candidate changed by one comment gets a cache of its own: past the total, the least
    recently saved caches go, never the one just saved (blind red team, session 9)."""
    from kforge_worker.warm_pool import load_slot, save_slot
    root = tmp_path / "builds"
    for index, name in enumerate(("a", "b", "c")):
        cache, slot = root / name, tmp_path / f"slot_{name}"
        (cache / "triton").mkdir(parents=True)
        load_slot(str(slot), str(cache))
        (slot / "triton" / "kernel.cubin").write_bytes(b"x" * 3000)
        save_slot(str(slot), str(cache), limit_bytes=1 << 20, total_limit_bytes=7000)
        os.utime(root / ".sizes" / name, (1000 + index, 1000 + index))  # a, then b, then c
    assert sorted(os.listdir(root)) == [".sizes", "b", "c"]
    assert sorted(os.listdir(root / ".sizes")) == ["b", "c"]


def test_shared_memory_outside_any_rss_is_counted_once_but_not_the_judges(tmp_path):
    """A memfd filled with write() is in no resident set: shared_memory_bytes counts it at its
    allocated size, once however many descriptors hold it, and leaves the judge's own shared
    buffers out (by inode)."""
    from kforge_worker import confinement
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import os, sys, time
        theirs = os.memfd_create("hoard")
        os.write(theirs, b"x" * (8 << 20))
        os.dup(theirs)
        judge = os.memfd_create("kforge-shared")
        os.write(judge, b"y" * (4 << 20))
        print(os.fstat(judge).st_ino, flush=True)
        time.sleep(30)
        """)], stdout=subprocess.PIPE, text=True)
    try:
        inode = int(child.stdout.readline())
        counted = confinement.shared_memory_bytes(child.pid)
        assert 12 << 20 <= counted < 13 << 20
        device = os.stat(f"/proc/{child.pid}/fd/3").st_dev
        assert 8 << 20 <= confinement.shared_memory_bytes(child.pid, {(device, inode)}) < 9 << 20
    finally:
        child.kill()
        child.wait()


def test_file_tree_usage_counts_blocks_files_and_depth_past_path_max(tmp_path):
    """What a candidate wrote: allocated blocks (a sparse file costs nothing), entries (the walk
    stops past the limit) and depth, read through descriptors, so a chain of folders whose path
    passes PATH_MAX is measured and removed (a 3000-deep chain once kept every worker on the
    host from starting: shutil.rmtree's RecursionError)."""
    from kforge_worker import file_tree
    (tmp_path / "sparse").write_bytes(b"")
    os.truncate(tmp_path / "sparse", 1 << 30)  # apparent size only: no blocks
    (tmp_path / "real").write_bytes(b"z" * (1 << 20))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "more").write_bytes(b"z" * (1 << 20))
    written, entries, depth = file_tree.usage([tmp_path], 1000)
    assert 2 << 20 <= written < 3 << 20 and entries == 4 and depth == 1
    for index in range(30):
        (tmp_path / "sub" / str(index)).write_bytes(b"")
    assert file_tree.usage([tmp_path], limit_files=10)[1] > 10
    chain = tmp_path / "chain"
    chain.mkdir()
    fd = os.open(chain, os.O_RDONLY)
    for _ in range(1200):  # 1200 x 101 characters: far past PATH_MAX, past the recursion limit
        os.mkdir("d" * 100, dir_fd=fd)
        inner = os.open("d" * 100, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)
    assert file_tree.usage([chain], 100000)[2] == file_tree.MAX_DEPTH + 1
    file_tree.remove(str(chain))
    assert not chain.exists()


def test_the_timed_calls_recorder_reads_the_same_operators_from_raw_events():
    """The timed calls' recorder (no shapes) reads names from the profiler's raw events (30x
    faster than torch's FunctionEvents); it must name every operator the slow read names."""
    from kforge_worker import trust_ops
    x = torch.randn(8, 16, 16)
    gru = torch.nn.GRU(16, 16, 2)

    def work():
        torch.softmax(x, 1), torch.cumsum(x, 0), x.amax(1), torch.exp2(x), gru(x), x.sum(1)
        torch.where(x > 0, x, 0), x.to(torch.int32), x.view(torch.int32), x @ x.transpose(1, 2)

    fast = trust_ops.AtenRecorder(shapes=False)
    with fast:
        work()
    slow = trust_ops.AtenRecorder(shapes=False)
    slow.start()
    work()
    slow.stop()
    names = {trust_ops.aten_name(e.name) for e in slow._profile.function_events} - {None}
    assert set(fast.names) == names
    assert {"softmax", "cumsum", "amax", "exp2", "gru", "sum", "where", "bmm"} <= set(fast.names)
    assert all(raw and numel == 0 and parent == -1 for _, raw, numel, parent in fast.calls)


def test_stale_folders_of_any_depth_never_stop_a_worker_from_starting(tmp_path, monkeypatch):
    """A dead worker's candidate folder holding a chain deeper than the recursion limit (and
    PATH_MAX) is removed at the next worker's start, and clean-up never raises."""
    from kforge_worker import warm_pool
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    dead = 2 ** 22 + 12345  # above pid_max's default: no such process
    stale = tmp_path / f"{warm_pool.PREFIX}{dead}-abc"
    stale.mkdir()
    fd = os.open(stale, os.O_RDONLY)
    for _ in range(1500):
        os.mkdir("d" * 100, dir_fd=fd)
        inner = os.open("d" * 100, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)
    warm_pool.remove_stale()
    assert not stale.exists()


def _run_under_sandbox_filter(probe, bind=None, timeout=None):
    """`python -c probe` under bubblewrap with its seccomp filter (`bind`: a folder bound and
    made the working directory). A failure to build the filter where libseccomp exists is a bug
    (in session 23 a wrong attribute made it None, and bubblewrap silently ran without it)."""
    import ctypes
    import shutil
    from kforge_worker import confinement
    if not confinement.bwrap_path() or not shutil.which(confinement.bwrap_path()):
        pytest.skip("no bubblewrap")
    try:
        ctypes.CDLL("libseccomp.so.2")
    except OSError:
        pytest.skip("libseccomp is not installed")
    fd = confinement.seccomp_filter()
    assert fd is not None
    folder = ["--bind", str(bind), str(bind), "--chdir", str(bind)] if bind else []
    try:
        return subprocess.run(
            [confinement.bwrap_path(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
             *folder, "--seccomp", str(fd), "--", sys.executable, "-c", textwrap.dedent(probe)],
            capture_output=True, text=True, pass_fds=(fd,), timeout=timeout)
    finally:
        os.close(fd)


def test_a_foreign_architecture_call_kills_the_whole_process():
    """A system call of another ABI (here x32; the red team's was an i386 `int 0x80`) killed only
    its thread by libseccomp's default: the process stayed, a zombie with live threads holding the
    judge's channel, until the deadline (session 23). The filter kills the process."""
    started = time.monotonic()
    done = _run_under_sandbox_filter("""
        import ctypes, threading, time
        threading.Thread(target=time.sleep, args=(60,)).start()  # a second thread, alive
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        libc.syscall(ctypes.c_long(0x40000000 | 257), ctypes.c_long(-100), b"/etc/hostname", 0, 0)
        print("survived", flush=True)
        """, timeout=50)
    assert "survived" not in done.stdout
    assert done.returncode == 128 + signal.SIGSYS, (done.returncode, done.stderr)
    assert time.monotonic() - started < 30


def test_the_sandbox_cannot_make_itself_dumpable_again():
    """The candidate process is made non-dumpable before its code runs; prctl(PR_SET_DUMPABLE, 1)
    succeeded in the sandbox (blind red team, session 36), and a crash of a dumpable process
    goes to the machine's core handler. Setting it to 0 stays allowed (candidate_host.op_seal)."""
    done = _run_under_sandbox_filter("""
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        print(libc.prctl(4, 0, 0, 0, 0), libc.prctl(4, 1, 0, 0, 0), ctypes.get_errno(),
              libc.prctl(3, 0, 0, 0, 0))  # PR_SET_DUMPABLE 0, then 1; PR_GET_DUMPABLE
        """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "-1", str(errno.EPERM), "0"]


def test_the_sandbox_sees_the_machine_settings_read_only(tmp_path):
    """/proc/sys and the other settings under /proc are read-only in the sandbox (blind red
    team, session 36: its root is the host's uid 0 without capabilities, and a /proc/sys file
    checks only the uid and the mode: kernel.core_pattern was writable there), while the
    process's own /proc files stay writable (CUDA's driver names its threads there)."""
    from kforge_worker import confinement
    if not confinement.bwrap_path() or not shutil.which(confinement.bwrap_path()):
        pytest.skip("no bubblewrap")
    scratch, slot = tmp_path / "scratch", tmp_path / "slot"
    scratch.mkdir()
    slot.mkdir()
    status_r, status_w = os.pipe()
    probe = textwrap.dedent("""
        import errno, os
        for path in ("/proc/sys/kernel/core_pattern", "/proc/sys/kernel/core_uses_pid"):
            try:
                os.close(os.open(path, os.O_WRONLY))
                print("writable", path)
            except OSError as error:
                print("refused" if error.errno in (errno.EROFS, errno.EACCES) else error, path)
        with open("/proc/self/comm", "w") as handle:
            handle.write("probe")
        print("comm", open("/proc/self/comm").read().strip())
        print("run", os.listdir("/run"))  # the host's service sockets are covered
        """)
    keep = sorted({os.path.dirname(os.path.dirname(os.path.realpath(sys.executable))),
                   sys.prefix, os.path.realpath(sys.prefix)})
    try:
        done = subprocess.run(confinement._bwrap_args(str(scratch), str(slot), keep, status_w,
                                                      None) + [sys.executable, "-c", probe],
                              capture_output=True, text=True, pass_fds=(status_w,), timeout=60)
    finally:
        os.close(status_r)
        os.close(status_w)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["refused /proc/sys/kernel/core_pattern",
                         "refused /proc/sys/kernel/core_uses_pid"], done.stdout
    assert lines[2] == "comm probe"
    assert lines[3] == "run []"


def test_the_sandbox_opens_no_socket_of_a_family_outside_its_namespace():
    """AF_VSOCK is not namespaced: on a Firecracker VM it reaches the hypervisor (blind red
    team, session 36). Only AF_UNIX, AF_INET(6) and AF_NETLINK sockets open in the sandbox."""
    done = _run_under_sandbox_filter("""
        import errno, socket
        for family in (socket.AF_UNIX, getattr(socket, "AF_VSOCK", 40), 17, 38, 3, 200):
            try:
                socket.socket(family, socket.SOCK_STREAM if family == 1 else socket.SOCK_DGRAM)
                print("opened")
            except OSError as error:
                print("refused" if error.errno == errno.EAFNOSUPPORT else error.errno)
        """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["opened"] + ["refused"] * 5


def test_the_sandbox_takes_no_lease_quota_or_cache_of_the_host(tmp_path):
    """Blind red team, session 37: the sandbox's root is the host's uid 0, so a lease on a host
    file (read-only root) stalled host writers, inotify instances and message queues counted
    against the host root's quotas, and fadvise dropped a host file's cached pages. Each fails
    with EPERM in the sandbox; a lease on a file of its own folders fails too (nothing needs
    one)."""
    done = _run_under_sandbox_filter("""
        import ctypes, errno, os
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mq_open.restype = ctypes.c_int
        host = os.open(os.__file__, os.O_RDONLY)
        own = os.open("f", os.O_CREAT | os.O_RDWR)
        for call in (lambda: libc.fcntl(host, 1024, 0), lambda: libc.fcntl(own, 1024, 0),
                     lambda: libc.inotify_init(), lambda: libc.inotify_init1(0),
                     lambda: libc.mq_open(b"/kforge-test", os.O_CREAT | os.O_RDWR, 0o600, None)):
            print(call(), ctypes.get_errno() == errno.EPERM)
        print(libc.posix_fadvise(host, 0, 0, 4) == errno.EPERM)  # returns the error
        print(libc.posix_fadvise(own, 0, 0, 1))  # other advice stays
        """, bind=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["-1", "True"] * 5 + ["True", "0"]


def test_the_sandbox_filter_answers_fallocate_not_supported(tmp_path):
    """fallocate reserved 10 GiB of disk between two of the judge's looks (red team, session 15):
    in the sandbox it fails with EOPNOTSUPP, as on file systems without it, so glibc's
    posix_fallocate writes the blocks instead, at a pace the judge's watch bounds."""
    done = _run_under_sandbox_filter("""
        import ctypes, errno, os
        libc = ctypes.CDLL(None, use_errno=True)
        handle = os.open("f", os.O_CREAT | os.O_WRONLY)
        print(libc.fallocate(handle, 0, 0, 1 << 20), ctypes.get_errno() == errno.EOPNOTSUPP)
        os.posix_fallocate(handle, 0, 1 << 20)  # glibc writes the blocks instead
        print(os.fstat(handle).st_size)
        """, bind=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["-1", "True", str(1 << 20)]


def test_the_calibrated_verdict_bounds_the_relative_error_of_small_outputs():
    """Where outputs are small, every element can sit inside the absolute tolerance while the
    whole is 15% off (a54): the calibrated verdict bounds ||c - r64|| / ||r64|| by 4 x the base
    tolerance (x the widening); outputs of size 1 or more are unaffected."""
    torch.manual_seed(0)
    ref64 = torch.rand(4, 4096, dtype=torch.float64) * 3e-5
    ref32 = ref64.float()
    sloppy = (ref64 * 1.15).float()
    comparison = Comparison("calibrated")
    comparison.add([sloppy], [ref32], [ref64], "set 0")
    assert not comparison.pass_calibrated and comparison.pass_kernelbench
    assert "relative L2 error 0.15 vs the fp64 reference, above the 0.0004 allowed" in \
        comparison.first_failure
    assert comparison.report()["relative_l2_fp64"] == pytest.approx(0.15, rel=1e-3)
    judged_by_kernelbench = Comparison("kernelbench")
    judged_by_kernelbench.add([sloppy], [ref32], [ref64], "set 0")
    assert judged_by_kernelbench.passed and not judged_by_kernelbench.pass_calibrated
    large = torch.rand(4, 4096, dtype=torch.float64) + 1.0  # 0.9e-4 relative: passes
    fine = Comparison("calibrated")
    fine.add([(large * (1 + 0.9e-4)).float()], [large.float()], [large], "set 0")
    assert fine.passed and fine.pass_kernelbench


def test_a_spread_set_keeps_the_fp64_reference_when_the_tasks_own_sets_trusted_it():
    """Spread inputs ([0, 8), [-8, 8)) can take a TF32 reference 100+ units from fp64 (cuDNN's
    LSTM c_n on 37_LSTMCn, H100): an exact candidate must still pass there, as on the task's own
    sets, and a wrong one still fail. Outside spread sets (or where fp64 was never reliable) a
    widening above MAX_SCALE falls back to the fp32 reference as before."""
    from kforge_worker.correctness import MAX_SCALE
    torch.manual_seed(0)
    own = torch.rand(2, 512, dtype=torch.float64) + 1.0
    noisy = torch.rand(2, 512, dtype=torch.float64) * 30 - 15  # c_n-like, |c| up to 15
    tf32 = (noisy * (1 + 3e-3 * torch.randn_like(noisy))).float()  # ~300 units off fp64
    scale = 4 * float(((tf32.double() - noisy).abs() / (1e-4 + 1e-4 * noisy.abs())).max())
    assert scale > MAX_SCALE
    exact = noisy.float()

    def judged(spread, candidate, first=True):
        comparison = Comparison("calibrated")
        if first:  # a set of the task's own draw: fp64 reliable
            comparison.add([own.float()], [own.float()], [own], "set 0")
        comparison.add([candidate], [tf32], [noisy], "set 4", spread=spread)
        return comparison

    passed = judged(True, exact)
    assert passed.passed and passed.fp64_reliable, passed.first_failure
    assert passed.units32 < 1 and passed.allowed_units < 2  # timed calls: the task's own sets
    wrong = judged(True, (noisy * 1.2).float())
    assert not wrong.passed and "fp64 reference" in wrong.first_failure
    assert not judged(False, exact).passed  # the task's own set: the fallback, as before
    assert not judged(True, exact, first=False).fp64_reliable


def test_computed_callees_allow_methods_of_values_and_refuse_getattr_and_locals():
    """A kernel may call methods of its values (x.to(...).to(...), (a / b).to(...): the class is
    Triton's, checked by patched_triton_classes); a callee that getattr found, a subscript or a
    local variable is computed, and refused (a55_getattr_callee)."""
    import types
    from kforge_worker import kernel_compiles
    source = textwrap.dedent("""
        def kernel(x, y, OPS, NAME):
            z = x.to(int).to(float) + (x / y).to(float)
            f = OPS
            a = getattr(OPS, NAME)(x)
            b = getattr(OPS, NAME).inner(x)
            c = OPS[0](x)
            return f(z), a, b, c, max(x, y)
        """)
    scope = {}
    path = os.path.join(os.path.dirname(__file__), "_computed_callees_probe.py")
    with open(path, "w") as handle:
        handle.write(source)
    try:
        exec(compile(source, path, "exec"), scope)
        found = kernel_compiles.computed_callees(scope["kernel"])
    finally:
        os.remove(path)
    shown = sorted(text.split(" (")[0] for text in found)
    assert shown == ["OPS[0]", "f", "getattr(OPS, NAME)", "getattr(OPS, NAME).inner"]


def test_warm_up_calls_stop_after_their_host_time_budget():
    """A slow (host-bound) runner's warm-up stops past timing.WARMUP_WALL_S, after one call at
    least; a fast one makes every call asked for; none asked, none made."""
    import time as clock
    from kforge_worker import timing
    calls = []

    def slow():
        calls.append("slow")
        clock.sleep(timing.WARMUP_WALL_S * 0.6)
    timing.warm_up_calls([slow], 10)
    assert len(calls) == 2
    calls.clear()
    timing.warm_up_calls([lambda: calls.append("a"), lambda: calls.append("b")], 5)
    assert calls == ["a", "b", "a", "b", "a"]
    calls.clear()
    timing.warm_up_calls([slow], 0)
    assert calls == []


def test_the_discarded_warm_up_round_is_short_only_for_a_slow_reference():
    """Round 0 of evaluate's timing: a whole block for a fast or unmeasured reference, about
    timing.WARMUP_ROUND_S of calls (two at least) for a slow one."""
    from kforge_worker import timing
    assert timing.warm_up_round_trials(10, None) == 10
    assert timing.warm_up_round_trials(10, 0.0002) == 10
    assert timing.warm_up_round_trials(10, 0.045) == 3
    assert timing.warm_up_round_trials(10, 2.0) == 2
    assert timing.warm_up_round_trials(1, 2.0) == 1   # a lean task's block


def test_time_block_reports_each_calls_host_time():
    import time as clock
    from kforge_worker import timing
    host = []
    samples, _ = timing.time_block([lambda: clock.sleep(0.002)] * 4, None, cpu=True, host=host)
    assert len(samples) == len(host) == 4
    assert all(1.5 < value < 200 for value in host)


def test_a_launch_path_longer_than_the_flush_is_named_host_bound():
    # The GPU waits for the host inside the window when the launches outlast the flush that
    # hides them: the time then holds host latency (the bimodal GeLU of sessions 16-18).
    from kforge_worker.timing import host_bound_note
    assert host_bound_note(0.040, 0.055) is None
    assert host_bound_note(None, 0.055) is None and host_bound_note(0.2, None) is None
    note = host_bound_note(0.095, 0.055)
    assert note.startswith("host-bound") and "0.095 ms" in note and "0.055 ms" in note


def test_the_timed_calls_recorder_names_the_operators_and_notices_a_stop():
    # trust_ops.NameRecorder: the legacy profiler (no Kineto, so no CUPTI callbacks in the
    # timed window) records what the Kineto recorder of the checked calls does.
    import torch
    from kforge_worker.trust_ops import AtenRecorder, NameRecorder

    def forward():
        x = torch.ones(8)
        return torch.softmax(x, 0), x.exp().sum()
    legacy = NameRecorder()
    legacy.start()
    forward()
    legacy.stop()
    legacy.read()
    kineto = AtenRecorder(shapes=False)
    kineto.start()
    forward()
    kineto.stop()
    kineto.read()
    assert "softmax" in legacy.names and "exp" in legacy.names
    assert sorted(legacy.names) == sorted(kineto.names)
    stopped = NameRecorder()
    stopped.start()
    torch.autograd._disable_profiler_legacy()  # the candidate stopping it inside a call
    with pytest.raises(RuntimeError):
        stopped.stop()


def test_the_timed_calls_recorder_sizes_each_trial_between_the_marks():
    # With sizes, each call carries the elements of its largest input and the calls come split
    # per trial at the harness's marks, nested calls pointing at their parent within the trial:
    # what the own-work rule needs to run on every timed call (a59_tiny_slice_whitelist).
    import torch
    from kforge_worker.trust_ops import NameRecorder
    recorder = NameRecorder("mark-x", sizes=True)
    recorder.start()
    torch.ones(2, 3).exp()                      # before the first mark: the warm-up's list
    with torch.autograd.profiler.record_function("mark-x"):
        pass
    torch.softmax(torch.ones(4, 8), 1)           # trial 2
    with torch.autograd.profiler.record_function("mark-x"):
        pass
    recorder.stop()
    recorder.read()
    assert recorder.marked == 2 and len(recorder.trials) == 2
    second = recorder.trials[1]
    names = [call[0] for call in second]
    assert "softmax" in names
    softmax = names.index("softmax")
    assert second[softmax][2] == 32 and second[softmax][3] == -1
    nested = [call for call in second if call[3] == softmax]
    assert nested and all(call[2] == 32 for call in nested)   # _softmax inside softmax
    assert all(call[0] != "softmax" for call in recorder.trials[0])


def test_the_own_work_rule_runs_on_each_timed_call():
    # a59_tiny_slice_whitelist: the decomposition on a 1x1 slice when checked, on the whole
    # input when timed; the timed trials' sizes name it, the warm-up's list is left out.
    from kforge_worker import trust
    from kforge_worker.trust_ops import Policy

    class Timed:
        names = ["amax", "exp2", "mm"]
        calls = []
        trials = [[("exp2", "exp2", 10 ** 6, -1)] * 9,          # warm-ups: not counted
                  [("amax", "amax", 64, -1), ("exp2", "exp2", 64, -1)],
                  [("amax", "amax", 4096, -1), ("exp2", "exp2", 4096, -1),
                   ("mm", "mm", 4096, -1)]]
    guard = trust.Guard(None, {})
    guard.use_policy(Policy(["softmax"], [], None))
    guard._checked_names.update(["amax", "exp2", "mm"])
    guard._task_size = 4096
    guard.check_timed(Timed())
    assert any("computed the task in PyTorch" in v and "(in timed calls)" in v
               for v in guard.violations), guard.violations
    honest = trust.Guard(None, {})
    honest.use_policy(Policy(["softmax"], [], None))
    honest._task_size = 4096
    Timed.trials = Timed.trials[:2]
    honest.check_timed(Timed())
    assert not honest.violations


def test_the_timed_calls_recorder_must_stay_live_through_every_trial():
    # Blind red team, session 18: `_toggle_collection_dynamic(False, ...)` switched collection
    # off while the profiler still reported itself on; the harness's marks between trials go
    # missing then, and the timing phase is named.
    import torch
    from torch.autograd import ProfilerActivity
    from kforge_worker.candidate_host import TimedCallWatch

    class Guard:
        def __init__(self):
            self.notes, self.checked = [], None

        def note_timed(self, reasons):
            self.notes += reasons

        def check_timed(self, recorder):
            self.checked = list(recorder.names)

    live = TimedCallWatch(Guard())
    live.start()
    for _ in range(3):
        torch.ones(4).exp()
        live.after_trial()
    live.calls = 3
    live.close()
    live.check()
    assert not live.guard.notes and "exp" in live.guard.checked
    silenced = TimedCallWatch(Guard())
    silenced.start()
    torch.ones(4).exp()
    silenced.after_trial()
    torch._C._autograd._toggle_collection_dynamic(False, {ProfilerActivity.CPU})
    torch.softmax(torch.ones(4), 0)
    silenced.after_trial()
    silenced.calls = 2
    silenced.close()
    silenced.check()
    assert silenced.guard.checked is None
    assert silenced.guard.notes and "1 of the harness's 2 marks" in silenced.guard.notes[0]


def test_the_spread_sets_meet_large_and_rare_values_of_either_sign():
    # Session 16's blind red team: nothing beyond +-8 and nothing below 2^-20 was ever drawn,
    # so a LeakyReLU clamped to [-8, 8] and a HardSigmoid wrong below 2^-20 passed.
    import torch
    from kforge_worker.evaluate import SPRINKLE_MIN, widen_values
    signed = [torch.rand(4096), torch.randn(8), torch.arange(3)]
    assert widen_values(signed, "signed", seed=7) == [0]  # randn and integers left as drawn
    x = signed[0]
    assert bool((x > 1024).any()) and bool((x < -1024).any()) and x.abs().max() < 2 ** 21
    assert bool(((x.abs() < 2 ** -20) & (x != 0)).any())
    assert bool((x == 0).any()) and bool(torch.signbit(x[x == 0]).any())  # -0 too
    again = [torch.rand(4096)]
    widen_values(again, "signed", seed=7)
    assert torch.equal(again[0].abs() > 8, x.abs() > 8)  # positions and values from the seed
    # The task's own [0, 1) with sprinkles only: few large values (a share-of-large-values
    # detector sees a plain set), while [0, 8) has no telltale value at all.
    sprinkled = [torch.rand(1 << 16)]
    widen_values(sprinkled, "sprinkled", seed=8)
    share = float((sprinkled[0].abs() > 3).float().mean())
    assert 0 < share < 1 / 64 and bool((sprinkled[0] < 0).any())
    positive = [torch.rand(4096)]
    widen_values(positive, "positive", seed=8)
    assert bool((positive[0] >= 0).all()) and bool((positive[0] <= 8).all())
    assert float((positive[0] > 3).float().mean()) > 0.5
    small = [torch.rand(2, 24)]  # a shrunk task: at least SPRINKLE_MIN draws, here every element
    widen_values(small, "signed", seed=9)
    assert SPRINKLE_MIN > 48 and bool((small[0].abs() > 8).any())
    half = [torch.rand(4096, dtype=torch.float16)]
    widen_values(half, "signed", seed=10)
    assert bool(torch.isfinite(half[0]).all()) and bool((half[0].abs() > 4096).any())
    plain = [torch.rand(4096)]
    widen_values(plain, "signed_unsprinkled", seed=7)
    assert bool((plain[0].abs() <= 8).all())


def test_a_spread_set_the_reference_overflows_on_is_replaced_by_a_milder_one_and_named():
    # A cumprod of 1024 terms overflows on [-8, 8) and on [0, 8); drawing a plain [0, 1) set
    # instead, silently, let a cumprod of min(|x|, 1) pass (session 16).
    import torch
    from kforge_worker import evaluate
    evaluation = evaluate.Evaluation({"task_path": "unused.py", "candidate_path": "unused.py",
                                      "device": "cpu"}, "/tmp", 0.0)
    evaluation.result["seeds"] = []
    evaluation.reference = None

    def make_inputs(seed):
        evaluation.result["seeds"].append(seed)
        return [torch.rand(4, 1024, generator=torch.Generator().manual_seed(seed % 2 ** 32))]

    evaluation.make_inputs = make_inputs
    evaluation.expected = lambda model, inputs: ([inputs[0].cumprod(1)],
                                                 [inputs[0].double().cumprod(1)])
    inputs, want32, _, seed, widening, widened = evaluation.milder_set(4, "signed")
    assert widening in ("signed_mild", "positive_mild") and widened == [0]
    assert evaluate.all_finite(want32) and seed == evaluation.result["seeds"][-1]
    assert bool((inputs[0] > 1).any())  # where min(|x|, 1) is wrong
    note = evaluation.result["notes"][-1]
    assert note.startswith("input set 4: the reference's outputs were not finite with its "
                           "inputs spread to [-8, 8), 1 in 64 elements +-0 or +-[2^-24, 2^20)"
                           "; to [-8, 8); ")
    assert "spread to [-2, 2) instead" in note or "spread to [0, 2) instead" in note
    # Where even the mildest spread overflows: a plain set, and the note says so.
    evaluation.expected = lambda model, inputs: (
        [inputs[0].exp() * (torch.inf if bool((inputs[0] > 1).any()) else 1)], [inputs[0]])
    _, want32, _, _, widening, widened = evaluation.milder_set(3, "positive")
    assert widening is None and not widened and evaluate.all_finite(want32)
    assert evaluation.result["notes"][-1].endswith(
        "to [0, 8); to [0, 2); drawn as the task draws them instead (no spread set)")
    _, _, _, _, widening, widened = evaluation.milder_set(2, "sprinkled")
    assert widening is None and evaluation.result["notes"][-1].endswith(
        "[0, 1), 1 in 64 elements +-0 or +-[2^-24, 2^20); drawn as the task draws them instead "
        "(no spread set)")


def test_gpu_sharing_counts_processes_that_are_neither_the_judge_nor_the_candidate():
    from kforge_worker import gpu_sharing
    me = os.getpid()
    assert gpu_sharing.others(None, {me}) == 0              # NVML could not say
    assert gpu_sharing.others([me, 7], {me, 7}) == 0        # the judge and the candidate
    assert gpu_sharing.others([me, 7, 8, 9], {me, 7}) == 2  # two more
    # pids of another namespace (a container): all but the judge and the candidate count
    assert gpu_sharing.others([10**7 + 1, 10**7 + 2, 10**7 + 3], {me}) == 1
    text = gpu_sharing.sharing_reason(2)
    assert text.startswith("2 other processes used this GPU") and "Not judged" in text
    if not os.path.exists("/dev/nvidiactl"):
        assert gpu_sharing.processes_on("00000000-0000-0000-0000-000000000000") is None


def test_the_warm_pool_starts_no_more_processes_than_evaluations_are_left(monkeypatch):
    from kforge_worker import warm_pool
    monkeypatch.setattr(warm_pool, "_taken", 0)
    monkeypatch.delenv("KFORGE_EVALUATIONS", raising=False)
    assert warm_pool.wanted() == warm_pool.POOL_SIZE  # open-ended: a suite, a run
    monkeypatch.setenv("KFORGE_EVALUATIONS", "0")  # baseline, analyze, doctor
    assert warm_pool.wanted() == 0
    monkeypatch.setenv("KFORGE_EVALUATIONS", "1")  # kforge eval
    assert warm_pool.wanted() == 1
    assert warm_pool.take("no-such-device") is None  # counted though none was warm
    assert warm_pool.wanted() == 0
    monkeypatch.setenv("KFORGE_EVALUATIONS", "5")
    assert warm_pool.wanted() == warm_pool.POOL_SIZE
    monkeypatch.setenv("KFORGE_EVALUATIONS", "many")
    assert warm_pool.wanted() == warm_pool.POOL_SIZE


def test_the_checked_calls_dispatch_modes_leave_torch_dynamo_unimported():
    """The candidate process's checked call (the guard's recorders and dispatch modes) and the
    bit-level recorder dispatch without importing torch._dynamo: a plain TorchDispatchMode's
    first dispatch imports it (~800 modules; 5.5 s of every candidate process's start-up on an
    H200 host before session 27, dispatch_mode.HarnessDispatchMode)."""
    import subprocess
    import sys
    code = """
import sys, torch
from kforge_worker import trust
from kforge_worker.trust_ops import BitLevelRecorder
class Model(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x + 1)
x = torch.randn(64)
with torch.no_grad():
    trust.Guard(None, {}).call_candidate(Model(), [x])
with BitLevelRecorder() as bits:
    (x.view(torch.int32) << 1).view(torch.float32)
assert bits.calls, "the bit-level recorder saw nothing"
print("dynamo imported:", "torch._dynamo" in sys.modules)
"""
    worker = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=worker), timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "dynamo imported: False" in run.stdout


def test_a_blocks_timed_check_agrees_with_checking_each_call():
    """timed_check.check_block (one synchronisation per block) gives check()'s verdict, text and
    worst errors, call by call: honest calls, a NaN the eager output shares, an integer output,
    a call wrong in one element, one wrong by a spread-out error (relative L2 only)."""
    from kforge_worker import timed_check
    torch.manual_seed(0)
    want = [[torch.randn(300), torch.arange(5)] for _ in range(4)]
    want[1][0][7] = float("nan")
    got = [[w[0] + 1e-7 * torch.randn(300), w[1].clone()] for w in want]
    bounds = [(4.0, 1e-5), (1.0, 1.0)]
    where = lambda position: f"call {position}"
    problem, worst = timed_check.check_block(got, want, bounds, where)
    expected = [(0.0, 0.0), (0.0, 0.0)]
    for g, w in zip(got, want):
        one, seen = timed_check.check(g, w, bounds, "x")
        assert one is None
        expected = [(max(a, c), max(b, d)) for (a, b), (c, d) in zip(expected, seen)]
    assert problem is None
    assert [v for pair in worst for v in pair] == pytest.approx([v for pair in expected for v in pair])
    wrong = [list(call) for call in got]
    wrong[2][0] = wrong[2][0].clone()
    wrong[2][0][3] += 1.0
    problem, _ = timed_check.check_block(wrong, want, bounds, where)
    assert problem == timed_check.check(wrong[2], want[2], bounds, "call 2")[0]
    assert problem.startswith("output 0 of 2") and "call 2" in problem
    spread = [list(call) for call in got]
    spread[3][0] = want[3][0] * (1 + 1e-4)
    problem, _ = timed_check.check_block(spread, want, [(1e9, 1e-5), (1.0, 1.0)], where)
    assert "relative L2 error" in problem and "call 3" in problem
    integer = [list(call) for call in got]
    integer[0][1] = integer[0][1] + 1
    problem, _ = timed_check.check_block(integer, want, bounds, where)
    assert problem.startswith("output 1 (call 0): integer output differs")


def _special_pair(dtype):
    """Two outputs with every special case of the error statistics, across several programs
    of the one-pass kernel and a partial last one."""
    torch.manual_seed(1)
    theirs = torch.randn(5000, dtype=torch.float64).to(dtype)
    mine = (theirs.double() + 1e-3 * torch.randn(5000, dtype=torch.float64)).to(dtype)
    theirs[10], mine[10] = float("nan"), float("nan")        # NaN on both sides: 0
    theirs[11], mine[11] = float("inf"), float("inf")        # equal infinities: 0
    mine[4099] = float("nan")                               # NaN on one side: +inf
    return mine, theirs


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.float64])
def test_fused_error_statistics_match_pytorchs(dtype):
    """error_stats' one-pass kernel (run here by the interpreter) gives timed_check's PyTorch
    numbers: largest error in units, sums of squares, special values by the same rules."""
    from kforge_worker import error_stats, timed_check
    mine, theirs = _special_pair(dtype)
    base = base_tolerance(theirs.dtype)
    for a, b in ((mine, theirs), (mine[:4099], theirs[:4099]), (mine[:3000], theirs[:3000])):
        fused = error_stats.errors_fused(a, b, base).tolist()
        plain = timed_check.errors_torch(a, b, base).tolist()
        assert fused[0] == plain[0]
        assert fused[1:] == pytest.approx(plain[1:], rel=1e-12)
    # an infinite error on one side only: the largest float64, as torch.nan_to_num makes it
    a, b = mine[:3000].clone(), theirs[:3000].clone()
    a[5] = float("inf")
    assert error_stats.errors_fused(a, b, base).tolist()[0] == 1.7976931348623157e308
    assert timed_check.errors_torch(a, b, base).tolist()[0] == 1.7976931348623157e308
    assert not error_stats.fused_applies(a, b)  # CPU tensors: PyTorch's path in the judge
    # one pass only where it repays its first launch: a full-size softmax, not an RNN's outputs
    assert error_stats.pays_off("cuda", 112 * 4096 * 16384)
    assert not error_stats.pays_off("cuda", 112 * 10 * 512 * 256)
    assert not error_stats.pays_off("cpu", 1e12)


# ---- the timed calls' recorder ----------------------------------------------------------------

def test_the_timed_recorder_records_what_the_legacy_profiler_does(monkeypatch):
    """The C++ recorder (timed_recorder.py) replaced the legacy profiler in timed calls: the same
    operators, element counts, marks and nesting, for a fraction of the host time per call."""
    from kforge_worker import timed_recorder
    from kforge_worker.trust_ops import NameRecorder
    path, why = timed_recorder.library()
    if path is None:
        pytest.skip(f"no C++ recorder here: {why}")
    monkeypatch.setenv(timed_recorder.ENV, path)
    assert timed_recorder.load() is not None
    x = torch.randn(8, 8)

    def trials(recorder):
        recorder.start()
        for _ in range(3):
            y = torch.softmax(x, dim=-1).exp()
            torch.empty_like(y).copy_(y).sum()
            torch._foreach_mul([x, y, x[:2]], 2.0)  # a list's tensors, summed
            with torch.autograd.profiler.record_function("mark"):
                pass
        recorder.stop()
        recorder.read()
        return recorder

    native, legacy = trials(timed_recorder.recorder("mark")), trials(NameRecorder("mark", sizes=True))
    assert isinstance(native, timed_recorder.NativeRecorder) and native.kind == "native"
    assert native.marked == legacy.marked == 3
    # the same calls, element counts and nesting; a tensor list's elements, which the legacy
    # profiler's shapes leave out (0), are counted
    listed = lambda call: call[1].startswith("_foreach")  # noqa: E731
    assert [[call if not listed(call) else call[:2] + call[3:] for call in trial]
            for trial in native.trials] == \
        [[call if not listed(call) else call[:2] + call[3:] for call in trial]
         for trial in legacy.trials]
    assert ("softmax", "softmax", 64, -1) in native.trials[1]
    assert ("foreach_mul", "_foreach_mul", 144, -1) in native.trials[1]
    assert ("foreach_mul", "_foreach_mul", 0, -1) in legacy.trials[1]
    assert native.names == legacy.names
    assert not native.running()
    with pytest.raises(RuntimeError):
        native.stop()  # a second stop: the session had ended


def _doubled_softmax(x):
    return torch.softmax(x * 2.0, dim=-1)


def test_the_timed_recorder_sees_static_runtime_and_fused_groups(monkeypatch):
    """Third blind red team, session 36: Static Runtime runs its operators under a scope of its
    own (STATIC_RUNTIME_OP), and an NNC kernel's record ("fused_mul_softmax") has a name that dies
    with its RecordFunction. The C++ recorder keeps both, and the policy names the fused group."""
    from kforge_worker import timed_recorder
    from kforge_worker.trust_ops import FUSED_GROUP, Policy
    path, why = timed_recorder.library()
    if path is None:
        pytest.skip(f"no C++ recorder here: {why}")
    monkeypatch.setenv(timed_recorder.ENV, path)
    assert timed_recorder.load() is not None

    class Softmax(torch.nn.Module):
        def forward(self, x):
            e = torch.exp(x - torch.amax(x, dim=-1, keepdim=True))
            return e / e.sum(dim=-1, keepdim=True)

    static = torch._C._jit_to_static_module(
        torch.jit.freeze(torch.jit.script(Softmax()).eval())._c)
    x = torch.randn(4, 16)
    recorder = timed_recorder.recorder("mark")
    recorder.start()
    static(x)
    recorder.stop()
    recorder.read()
    assert {"amax", "exp", "sum", "div"} <= set(recorder.names)

    fusers = (torch._C._jit_can_fuse_on_cpu(), torch._C._jit_texpr_reductions_enabled(),
              torch._C._jit_get_te_must_use_llvm_cpu())
    torch._C._jit_override_can_fuse_on_cpu(True)
    torch._C._jit_set_texpr_reductions_enabled(True)
    torch._C._jit_set_te_must_use_llvm_cpu(False)
    try:
        fused = torch.jit.script(_doubled_softmax)
        for _ in range(4):  # the profiling executor fuses after its profiling runs
            fused(x)
        recorder = timed_recorder.recorder("mark")
        recorder.start()
        fused(x)
        recorder.stop()
        recorder.read()
    finally:
        torch._C._jit_override_can_fuse_on_cpu(fusers[0])
        torch._C._jit_set_texpr_reductions_enabled(fusers[1])
        torch._C._jit_set_te_must_use_llvm_cpu(fusers[2])
    assert FUSED_GROUP + "fused_mul_softmax" in recorder.names, recorder.names
    policy = Policy(["softmax"], [], None)
    assert any("TorchScript's fuser generated (fused_mul_softmax)" in reason
               for reason in policy.check(recorder.names, []))
