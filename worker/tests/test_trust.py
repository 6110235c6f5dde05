"""Unit tests of the trust defences: the Guard called directly on tiny modules (real Triton kernels
under the interpreter), operator naming and policy, identity snapshots, and the audit policy in a
child process (an audit hook cannot be removed, so never in the test process itself)."""

import json
import os
import subprocess
import sys
import types

import pytest
import torch
import torch.nn as nn
import triton
import triton.language as tl

from kforge_worker import trust
from kforge_worker.trust_ops import Policy, op_name

WORKER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, factor, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * factor, mask=mask)


def triton_scale(x, factor, out=None):
    out = torch.empty_like(x) if out is None else out
    scale_kernel[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), factor, BLOCK=64)
    return out


class Softmax(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)


class Double(nn.Module):
    def forward(self, x):
        return x * 2.0


class TritonDouble(nn.Module):
    def forward(self, x):
        return triton_scale(x.contiguous(), 2.0)


class Gru(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(4, 8, 1)

    def forward(self, x):
        return self.gru(x)[0]


def guarded(reference, candidate, inputs, **options):
    """Guard one call of `candidate` as the harness does; returns (outputs, violations)."""
    guard = trust.Guard(None, options)
    guard.before_candidate_import()
    guard.after_candidate_import(types.ModuleType("candidate"), type(reference))
    guard.check_model(candidate, reference)
    outputs = guard.call_candidate(candidate, inputs)
    return outputs, guard.violations


def test_a_clean_triton_candidate_has_no_violations():
    x = torch.randn(4, 8)
    out, violations = guarded(Double(), TritonDouble(), [x])
    assert violations == []
    assert torch.equal(out, x * 2)


def test_no_kernel_of_its_own_is_a_violation_unless_allowed():
    class Rewrite(nn.Module):
        def forward(self, x):
            return x + x
    _, violations = guarded(Double(), Rewrite(), [torch.randn(4, 8)])
    assert any("no kernel of its own" in v for v in violations)
    _, violations = guarded(Double(), Rewrite(), [torch.randn(4, 8)], allow_pytorch_only=True)
    assert violations == []


def test_calling_the_replaced_operator_is_named():
    class Cheat(nn.Module):
        def forward(self, x):
            return triton_scale(torch.softmax(x, dim=1), 1.0)
    _, violations = guarded(Softmax(), Cheat(), [torch.randn(4, 8)])
    assert violations == ["called the operator it replaces: torch softmax"]


def test_plumbing_and_epilogue_are_allowed():
    class Conv(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 2, 3)

        def forward(self, x):
            return torch.relu(self.conv(x) + 1.0)

    class Candidate(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 2, 3)

        def forward(self, x):
            # "conv" in Triton (here: a stand-in kernel), bias and relu left to PyTorch: allowed.
            y = triton_scale(x[:, :, 1:-1, 1:-1].contiguous(), 1.0)
            return torch.relu(y + 1.0)
    _, violations = guarded(Conv(), Candidate(), [torch.randn(1, 2, 5, 5)])
    assert violations == []


def test_recurrent_task_allows_a_held_gru_and_the_input_projection_gemm():
    class Hybrid(nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = nn.GRU(4, 8, 1)  # held for its parameters only

        def forward(self, x):
            gates = torch.nn.functional.linear(x, self.gru.weight_ih_l0, self.gru.bias_ih_l0)
            return triton_scale(gates[..., :8].contiguous(), 1.0)
    _, violations = guarded(Gru(), Hybrid(), [torch.randn(3, 2, 4)])
    assert violations == []


def test_recurrent_task_forbids_calling_the_gru():
    class Cheat(nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = nn.GRU(4, 8, 1)

        def forward(self, x):
            return triton_scale(self.gru(x)[0].contiguous(), 1.0)
    _, violations = guarded(Gru(), Cheat(), [torch.randn(3, 2, 4)])
    assert "called the operator it replaces: torch gru" in violations
    assert any("GRU module's forward" in v for v in violations)


def test_holding_or_inheriting_the_reference_model():
    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Double()

        def forward(self, x):
            return triton_scale(x, 2.0)
    _, violations = guarded(Double(), Holder(), [torch.randn(4)])
    assert any("holds an instance of the reference Model" in v for v in violations)

    guard = trust.Guard(None, {})
    guard.before_candidate_import()
    module = types.ModuleType("fake_candidate")

    class ModelNew(Double):
        pass
    module.ModelNew = ModelNew
    guard.after_candidate_import(module, Double)
    assert "ModelNew inherits from the reference Model" in guard.violations


@pytest.mark.parametrize("make, reason", [
    (lambda x: triton_scale(x, 2.0, out=x), "aliases input 0"),
    (lambda x: triton_scale(x, 2.0, out=x)[1:], "aliases input 0"),
])
def test_outputs_may_not_alias_inputs(make, reason):
    # (an input changed in place is caught by the judge, from outside: test_evaluate_protocol)
    class Candidate(nn.Module):
        def forward(self, x):
            return make(x)
    _, violations = guarded(Double(), Candidate(), [torch.randn(8)])
    assert any(reason in v for v in violations), violations


def test_tensor_subclass_output_is_a_violation():
    class Sub(torch.Tensor):
        pass

    class Candidate(nn.Module):
        def forward(self, x):
            return triton_scale(x, 2.0).as_subclass(Sub)
    _, violations = guarded(Double(), Candidate(), [torch.randn(8)])
    assert any("torch.Tensor subclass" in v for v in violations)


def test_a_thread_left_running_is_a_violation():
    import threading
    stop = threading.Event()

    class Candidate(nn.Module):
        def forward(self, x):
            threading.Thread(target=stop.wait, daemon=True).start()
            return triton_scale(x, 2.0)
    try:
        _, violations = guarded(Double(), Candidate(), [torch.randn(8)])
    finally:
        stop.set()
    assert any("left a thread running" in v for v in violations)


def test_snapshot_names_a_replaced_function_and_a_swapped_code_object():
    snapshot = trust.Snapshot()
    original = torch.allclose
    original_code = trust._span.__code__
    try:
        vars(torch)["allclose"] = lambda *args, **kwargs: True
        trust._span.__code__ = (lambda tensor: (0, 1)).__code__
        changes = snapshot.changes()
    finally:
        vars(torch)["allclose"] = original
        trust._span.__code__ = original_code
    assert "patched torch.allclose" in changes
    assert "patched kforge_worker.trust._span" in changes
    assert snapshot.changes() == []


def test_host_time_far_above_event_time_is_a_violation():
    guard = trust.Guard(None, {"allow_pytorch_only": True})
    guard.after_timing({"candidate": {"median_ms": 0.01, "host_median_ms": 0.04}})
    assert guard.violations == []
    guard.after_timing({"candidate": {"median_ms": 0.01, "host_median_ms": 5.0}})
    assert any("host time" in v for v in guard.violations)


@pytest.mark.parametrize("func, name", [
    (torch.softmax, "softmax"), (torch.Tensor.softmax, "softmax"),
    (torch.ops.aten._softmax.default, "softmax"), (torch.Tensor.__rmul__, "mul"),
    (torch.Tensor.add_, "add"), (torch._VF.gru, "gru"), (torch.Tensor.__matmul__, "matmul"),
])
def test_op_name_is_canonical(func, name):
    assert op_name(func) == name


def test_policy_per_kind_of_task():
    gelu = Policy(["mul", "pow", "mul", "add", "tanh", "mul"], [], Double)
    assert gelu.ops == {"mul", "pow", "add", "tanh"}
    conv = Policy(["conv2d", "add", "relu", "size"], [nn.Conv2d], Double)
    # the convolution and every other name ATen dispatches it under; not its epilogue
    assert "conv2d" in conv.ops and "cudnn_convolution" in conv.ops and "convolution" in conv.ops
    assert not {"add", "relu", "size"} & conv.ops
    lstm = Policy(["zeros", "lstm", "linear", "getitem"], [nn.LSTM, nn.Linear], Double)
    assert "linear" not in lstm.ops and "lstm" in lstm.ops and "cudnn_rnn" in lstm.ops
    assert "torch.nn.modules.rnn.LSTM" in lstm.module_names
    softmax = Policy(["softmax"], [], Double)
    assert {"log_softmax", "softmin", "scaled_dot_product_attention"} <= softmax.ops


def test_policy_sees_the_operator_rebuilt_from_primitives():
    """A softmax from exp, sum and a division (a26_decoy_copy_out: a copy kernel then writes
    PyTorch's result) is the operator it replaces; a part of it in PyTorch is not."""
    from kforge_worker.trust_ops import AtenRecorder
    softmax = Policy(["softmax"], [], Double)
    with AtenRecorder() as aten:
        x = torch.randn(4, 8)
        e = torch.exp(x - x.amax(dim=1, keepdim=True))
        e / e.sum(dim=1, keepdim=True)
    reasons = softmax.check(aten.names, [])
    assert reasons == ["computed the operator it replaces in PyTorch: softmax from div, exp, sum"]
    assert not softmax.check(["amax", "sub", "empty_like"], [])  # the max in PyTorch, rest its own
    assert not softmax.check(["exp", "sum"], [])
    gelu = Policy(["gelu"], [], Double)
    assert gelu.check(["mul", "erf", "add"], [])
    assert not Policy(["mul", "pow", "add", "tanh"], [], Double).check(["empty_like"], [])
    lstm = Policy(["lstm"], [nn.LSTM], Double)  # the hybrid's input GEMM and glue stay allowed
    assert not lstm.check(["addmm", "sigmoid", "tanh", "mul", "add"], [])


def _scripted_softmax(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, 0)


def test_policy_travels_to_the_candidate_process():
    from kforge_worker.trust_ops import AtenRecorder
    lstm = Policy(["lstm"], [nn.LSTM], Double)
    rebuilt = Policy.from_description(json.loads(json.dumps(lstm.describe())))
    assert rebuilt.check(["lstm"], []) == ["called the operator it replaces: torch lstm"]
    assert rebuilt.check([], [nn.LSTM])  # holding and calling an nn.LSTM
    assert rebuilt.check([], [Double]) and not rebuilt.check(["linear"], [nn.Linear])
    with AtenRecorder() as aten:  # the dispatcher's names, TorchScript included
        torch.jit.script(_scripted_softmax)(torch.randn(4))
        torch.log_softmax(torch.randn(4), 0).exp()
    softmax = Policy(["softmax"], [], Double)
    assert "softmax" in aten.names and "log_softmax" in aten.names
    assert softmax.check(aten.names, [])


AUDIT_SCRIPT = r"""
import json, os, socket, subprocess, sys, gc
import torch, triton
from kforge_worker import trust, trust_audit
scratch, outside = sys.argv[1], sys.argv[2]
trust.child_setup(scratch)
with open(os.path.join(scratch, "inside.txt"), "w") as handle:  # allowed: the scratch dir
    handle.write("ok")
sys.path.insert(0, scratch)
with open(os.path.join(scratch, "cand.py"), "w") as handle:
    handle.write("import gc, inspect, time, torch\n"
                 "def objects(): return len(gc.get_objects())\n"
                 "def frames(): return inspect.currentframe().f_back\n"
                 "def timer(): time.perf_counter = lambda: 0.0\n"
                 "def code(): torch.nn.functional.softmax.__code__ = (lambda *a: 0).__code__\n"
                 "def monitor():\n"
                 "    import sys\n"
                 "    if not hasattr(sys, 'monitoring'):\n"
                 "        return 'absent'\n"
                 "    sys.monitoring.use_tool_id(3, 'probe')\n"
                 "    sys.monitoring.register_callback(3, sys.monitoring.events.PY_RETURN,\n"
                 "                                     lambda *a: None)\n"
                 "def limits():\n"
                 "    import resource\n"
                 "    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n")
import cand, shutil
planted = os.path.join(scratch, "gcc")  # /bin/true under a compiler's name, in a writable dir
shutil.copy("/bin/true", planted)
os.chmod(planted, 0o755)
results = {}
attempts = {
    "fork": lambda: os.fork(),
    "shell": lambda: subprocess.run(["sh", "-c", "true"]),
    "system": lambda: os.system("true"),
    "connect": lambda: socket.create_connection(("127.0.0.1", 9), timeout=1),
    "write_outside": lambda: open(os.path.join(outside, "x.txt"), "w"),
    "remove_outside": lambda: os.remove(os.path.join(outside, "keep.txt")),
    "kill_parent": lambda: os.kill(os.getppid(), 0),
    "gc": cand.objects, "frames": cand.frames, "timer": cand.timer, "code": cand.code,
    "gc_by_the_harness": lambda: len(gc.get_objects()),
    "frames_by_the_harness": lambda: sys._getframe(0),
    "compiler": lambda: subprocess.run(["gcc", "--version"], stdout=subprocess.DEVNULL),
    "planted_compiler": lambda: subprocess.run([planted]),
    "raise_limits": lambda: cand.limits(),
}
attempts["monitoring"] = cand.monitor
for name, attempt in attempts.items():
    try:
        value = attempt()
        results[name] = value if value == "absent" else "allowed"
    except PermissionError as error:
        results[name] = "refused"
    except (OSError, subprocess.SubprocessError) as error:
        results[name] = "error " + type(error).__name__
import resource
limits = {"core": resource.getrlimit(resource.RLIMIT_CORE),
          "fsize": resource.getrlimit(resource.RLIMIT_FSIZE)}
print(json.dumps({"results": results, "violations": trust_audit.violations, "limits": limits}))
"""


def test_audit_policy_in_a_child(tmp_path):
    scratch, outside = tmp_path / "scratch", tmp_path / "outside"
    scratch.mkdir()
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    run = subprocess.run([sys.executable, "-c", AUDIT_SCRIPT, str(scratch), str(outside)],
                         env={**os.environ, "PYTHONPATH": WORKER_DIR}, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout.strip().splitlines()[-1])
    results = report["results"]
    for name in ("fork", "shell", "system", "connect", "write_outside", "remove_outside",
                 "kill_parent", "gc", "frames", "code", "planted_compiler",
                 "raise_limits"):
        assert results[name] == "refused", (name, results)
    # Standard modules are not wrapped (Triton needs their exact type): patching time is caught
    # by the Guard's identity snapshot (test_patching_a_timer_is_caught_by_the_snapshot).
    assert results["timer"] == "allowed"
    # PEP 669 callbacks see every return value (a71): refused where Python has them (3.12+)
    assert results["monitoring"] == ("refused" if hasattr(sys, "monitoring") else "absent")
    assert results["gc_by_the_harness"] == "allowed"
    assert results["frames_by_the_harness"] == "allowed"
    assert results["compiler"] in ("allowed", "error FileNotFoundError")
    assert (outside / "keep.txt").read_text() == "keep"
    assert sorted(os.listdir(outside)) == ["keep.txt"]
    assert (scratch / "inside.txt").read_text() == "ok"
    assert report["limits"]["core"] == [0, 0]
    assert report["limits"]["fsize"] == [trust.FILE_SIZE_LIMIT] * 2
    violations = "\n".join(report["violations"])
    for text in ("tried to fork", "tried to run a program: sh", "network",
                 "outside its scratch directory", "signal another process", "gc.get_objects",
                 "caller's frames", "patched torch.nn.functional.softmax.__code__", "from a writable directory",
                 "changed its resource limits"):
        assert text in violations, (text, violations)


def test_recording_the_reference_does_not_move_the_rng():
    class Noisy(nn.Module):
        def forward(self, x):
            return x + torch.randn_like(x)
    guard = trust.Guard(None, {})
    guard.before_candidate_import()
    guard.after_candidate_import(types.ModuleType("candidate"), Noisy)
    guard.check_model(TritonDouble(), Noisy())
    x = torch.randn(8)
    state = torch.get_rng_state()
    guard.call_candidate(TritonDouble(), [x])
    assert torch.equal(torch.get_rng_state(), state)


def test_calls_into_a_runtime_built_extension_count_as_own_kernels(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path))
    fake = types.ModuleType("kforge_fake_ext")
    fake.__file__ = str(tmp_path / "kforge_fake_ext" / "kforge_fake_ext.so")
    monkeypatch.setitem(sys.modules, "kforge_fake_ext", fake)
    import math
    with trust._NativeCalls(True) as calls:
        math.sqrt(4.0)
    assert "math" in calls.modules
    calls.modules |= {"kforge_fake_ext"}
    assert calls.count() == 1
    # load_inline's module is not in sys.modules: found as <root>/<name>/<name>.so instead.
    (tmp_path / "kforge_inline_ext").mkdir()
    (tmp_path / "kforge_inline_ext" / "kforge_inline_ext.so").write_bytes(b"")
    calls.modules |= {"kforge_inline_ext", "not_built_here"}
    assert calls.count() == 2


def test_a_candidate_holding_the_workers_modules_is_named():
    import kforge_worker.correctness
    guard = trust.Guard(None, {})
    guard.before_candidate_import()
    module = types.ModuleType("fake_candidate")
    module.helper = kforge_worker.correctness
    guard.after_candidate_import(module, Double)
    assert any("imports the worker's own code" in v for v in guard.violations)


def test_the_interpreter_fix_triton_puts_in_a_kernels_globals_is_not_the_candidates_import():
    # Triton's interpreter copies its `_patch_lang_tensor` (the worker's fix, interpreter_compat)
    # into a kernel's globals when the kernel runs at import (blind red team, session 22)
    from kforge_worker import interpreter_compat
    interpreter_compat.install()
    guard = trust.Guard(None, {})
    guard.before_candidate_import()
    module = types.ModuleType("fake_candidate")
    module._patch_lang_tensor = interpreter_compat.installed
    guard.after_candidate_import(module, Double)
    assert not any("imports the worker's own code" in v for v in guard.violations)
    module.other = interpreter_compat.install  # anything else of the worker's still counts
    guard.after_candidate_import(module, Double)
    assert any("imports the worker's own code" in v for v in guard.violations)


def test_torchs_own_transparent_wrappers_are_not_patches():
    snapshot = trust.Snapshot()
    original = torch.manual_seed
    try:
        vars(torch)["manual_seed"] = torch._disable_dynamo(original)  # what dynamo's import does
        assert snapshot.changes() == []
        vars(torch)["manual_seed"] = torch._disable_dynamo(lambda seed: None)
        assert snapshot.changes() == ["patched torch.manual_seed"]
    finally:
        vars(torch)["manual_seed"] = original


def test_a_thread_started_at_import_is_a_violation():
    import threading
    stop = threading.Event()
    guard = trust.Guard(None, {})
    guard.before_candidate_import()
    threading.Thread(target=stop.wait, daemon=True).start()  # what the candidate's import did
    try:
        guard.after_candidate_import(types.ModuleType("candidate"), Double)
    finally:
        stop.set()
    assert any("left a thread running" in v for v in guard.violations)


COMPILERS_SCRIPT = r"""
import importlib.util, json, os, sys, time
import torch, triton
from kforge_worker import trust, trust_audit
scratch = sys.argv[1]
trust.child_setup(scratch)
report = {}
# Triton's GPU compile path (ptxas from its package, temporary files), no device needed.
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
ptxas = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas")
if os.path.exists(ptxas):
    spec = importlib.util.spec_from_file_location("case", sys.argv[2])
    case = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(case)
    compiled = triton.compile(ASTSource(fn=case.softmax_kernel, signature={
        "x_ptr": "*fp32", "y_ptr": "*fp32", "n_cols": "i32", "BLOCK": "constexpr"},
        constexprs={"BLOCK": 1024}), target=GPUTarget("cuda", 90, 32))
    report["cubin"] = len(compiled.asm["cubin"])
# torch's load_inline (ninja, c++, the extension build root), as the library's CUDA path uses.
from torch.utils.cpp_extension import load_inline
module = load_inline(name="kforge_policy_probe_%d" % os.getpid(),
                     cpp_sources="int probe(int x) { return x + 1; }", functions=["probe"])
report["probe"] = module.probe(1)
with trust._NativeCalls(True) as calls:
    module.probe(2)
report["native"] = calls.count()
report["violations"] = trust_audit.violations
print(json.dumps(report))
"""


def test_compilers_work_under_the_policy(tmp_path):
    """What the GPU path needs from the policy: Triton compiling for an H100 (ptxas, temporary
    files) and load_inline building a C++ extension, with no violation; and a call into the
    built extension counts as a kernel of the candidate's own."""
    import shutil
    if not (shutil.which("c++") and shutil.which("ninja")):
        pytest.skip("no C++ compiler or ninja")
    env = {name: value for name, value in os.environ.items() if name != "TRITON_INTERPRET"}
    env.update(PYTHONPATH=WORKER_DIR, TORCH_EXTENSIONS_DIR=str(tmp_path / "extensions"),
               TRITON_CACHE_DIR=str(tmp_path / "triton"))
    case = os.path.join(os.path.dirname(WORKER_DIR), "tests", "adversarial",
                        "a10_cuda_graph_stale.py")
    scratch = tmp_path / "scratch"  # the caches are its siblings: allowed as caches, not scratch
    scratch.mkdir()
    run = subprocess.run([sys.executable, "-c", COMPILERS_SCRIPT, str(scratch), case], env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["violations"] == []
    assert report["probe"] == 2 and report["native"] == 1
    assert report.get("cubin", 1) > 0


def test_a_watched_module_copies_and_pickles_like_a_plain_one():
    # Triton deep-copies the globals its kernels read unless their type is exactly ModuleType,
    # and Inductor pickles them (seen on the H100: torch.compile failed, __slotnames__ was
    # reported as a patch).
    import copy
    import pickle
    module = types.ModuleType("kforge_watch_probe")
    sys.modules[module.__name__] = module
    try:
        trust._watch_module(module)
        assert type(module) is not types.ModuleType
        assert copy.deepcopy(module) is module and copy.copy(module) is module
        assert pickle.loads(pickle.dumps(module)) is module
        snapshot = trust.Snapshot()
        copy.copy(module)
        pickle.dumps(module)
        assert not [line for line in snapshot.changes() if "_WatchedModule" in line]
    finally:
        del sys.modules[module.__name__]


def test_a_warning_from_the_harness_is_not_a_patch():
    # `warnings` adds __warningregistry__ to the globals of the module that issued a warning: a
    # PyTorch warning inside one of the harness's steps is not the candidate's patch (blind red
    # team, session 36). Anything but a plain dict under that name still is.
    import warnings
    from kforge_worker import trust_ops
    snapshot = trust.Snapshot()
    saved = vars(trust_ops).pop("__warningregistry__", None)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            exec(compile("import warnings\nwarnings.warn('harness step', UserWarning)",
                         trust_ops.__file__, "exec"), vars(trust_ops))
        assert type(vars(trust_ops).get("__warningregistry__")) is dict
        assert not [line for line in snapshot.changes() if "__warningregistry__" in line]
        trust_ops.__warningregistry__ = type("Registry", (dict,), {})()
        assert "patched kforge_worker.trust_ops.__warningregistry__ (added)" in snapshot.changes()
    finally:
        vars(trust_ops).pop("__warningregistry__", None)
        if saved is not None:
            trust_ops.__warningregistry__ = saved


def test_the_programs_triton_runs_while_compiling_are_allowed():
    from kforge_worker import trust_audit
    for program in ("gcc", "/sbin/ldconfig", "ptxas", "file", "ninja", "nvcc"):
        assert trust_audit._ALLOWED_PROGRAM.match(os.path.basename(program)), program
    assert not trust_audit._ALLOWED_PROGRAM.match("sh")
    assert not trust_audit._ALLOWED_PROGRAM.match("curl")


def test_patching_a_timer_is_caught_by_the_snapshot():
    import time
    snapshot = trust.Snapshot()
    original = time.perf_counter
    try:
        time.perf_counter = lambda: 0.0
        assert "patched time.perf_counter" in snapshot.changes()
    finally:
        time.perf_counter = original
    assert snapshot.changes() == []


def test_standard_modules_keep_their_exact_type_for_triton():
    # Triton's code generator accepts a module global read by a kernel only when
    # `type(value) is ModuleType`; the sandbox must not change that for math, torch, numpy.
    code = ("import math, tempfile, time, types, numpy, torch\n"
            "from kforge_worker import trust\n"
            "trust.child_setup(tempfile.mkdtemp())\n"
            "print(all(type(m) is types.ModuleType for m in (math, time, numpy, torch)))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": WORKER_DIR})
    assert run.stdout.strip().splitlines()[-1] == "True", run.stderr


FRAME_CALLBACK_SCRIPT = r"""
import json, sys, types, torch
from kforge_worker import frame_callbacks
from torch._C._dynamo import eval_frame as frames
frame_callbacks.install()
seen = []
def as_written():
    return types.SimpleNamespace(
        frame_exec_strategy=frames._FrameExecStrategy(frames._FrameAction.DEFAULT,
                                                      frames._FrameAction.DEFAULT),
        apply_to_code=False, guarded_code=None, skip_reason=None)
def callback(frame, *rest):
    seen.append(frame.f_code.co_filename)
    return as_written()
def own():
    return 1
report = {"wrapped": frame_callbacks.installed()}
report["prior"] = repr(frames.set_eval_frame(callback))
own()
frame_callbacks.installed()         # the harness's Python
torch.overrides.is_tensor_like(1)   # torch's Python on the recorders' paths
installed = frames.get_eval_frame_callback()
report["returned_is_callback"] = frames.set_eval_frame(None) is callback
report["installed_is_filter"] = installed is not callback
# the filter rebuilt with nothing protected is filtered again when installed
rebuilt = types.MethodType(installed.__func__, (callback, ()) + installed.__self__[2:])
frames.set_eval_frame(rebuilt)
frame_callbacks.installed()
own()
frames.set_eval_frame(None)
report["own"] = any(path.endswith("<string>") for path in seen)
report["harness"] = [path for path in seen if "kforge_worker" in path]
report["overrides"] = [path for path in seen if path.endswith("overrides.py")]
double = torch.compile(lambda x: x * 2 + 1, backend="eager")
report["compiled"] = double(torch.ones(3)).tolist()
report["after"] = repr(frames.get_eval_frame_callback())
print(json.dumps(report))
"""


def test_frame_evaluation_callbacks_never_see_the_harnesss_frames():
    """a69_eval_frame_code_swap: a PEP 523 callback installed by the candidate swapped the
    harness's policy checks for a stand-in. Every callable callback is now installed behind a
    filter that runs the harness's frames (and torch's on the recorders' paths) as written."""
    run = subprocess.run([sys.executable, "-c", FRAME_CALLBACK_SCRIPT],
                         env={**os.environ, "PYTHONPATH": WORKER_DIR}, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["wrapped"] and report["prior"] == "None"
    assert report["returned_is_callback"] and report["installed_is_filter"]
    assert report["own"], "the callback saw none of the script's own frames"
    assert report["harness"] == [] and report["overrides"] == []
    assert report["compiled"] == [3.0, 3.0, 3.0]   # torch.compile works behind the filter
    assert report["after"] == "None"


def test_refusal_wrappers_keep_their_check_out_of_closure_cells():
    """a70_refusal_cell_rewrite: a closure cell is writable, so the refusal wrappers' only cell
    is the generator that holds the check, the reason and the original."""
    run = subprocess.run([sys.executable, "-c", (
        "import torch\nfrom kforge_worker import trust\ntrust._refuse_record_function_off()\n"
        "cells = torch._C._autograd._disable_profiler_legacy.__closure__\n"
        "print([type(cell.cell_contents).__name__ for cell in cells])\n")],
        env={**os.environ, "PYTHONPATH": WORKER_DIR}, capture_output=True, text=True,
        timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip() == "['generator']"


MODE_STACK_SCRIPT = r"""
import json, os, sys
import torch
from kforge_worker import trust, trust_audit
from kforge_worker.dispatch_mode import HarnessDispatchMode
from kforge_worker.trust_ops import OpRecorder
scratch = sys.argv[1]
trust.child_setup(scratch)
sys.path.insert(0, scratch)
with open(os.path.join(scratch, "cand.py"), "w") as handle:
    handle.write(
        "import torch\n"
        "from torch.utils._python_dispatch import (TorchDispatchMode, _get_current_dispatch_mode,\n"
        "    _get_current_dispatch_mode_stack, _pop_mode_temporarily)\n"
        "from torch.overrides import _get_current_function_mode_stack\n"
        "from torch.utils._pytree import tree_map\n"
        "def stack(): return _get_current_dispatch_mode_stack()\n"
        "def tree(): return tree_map(torch._C._get_dispatch_stack_at, [0])\n"
        "def functions(): return _get_current_function_mode_stack()\n"
        "def pop():\n"
        "    with _pop_mode_temporarily() as mode: return mode\n"
        "class Own(TorchDispatchMode):\n"
        "    def __torch_dispatch__(self, func, types, args=(), kwargs=None):\n"
        "        return func(*args, **(kwargs or {}))\n"
        "def own():\n"
        "    with Own() as mine:\n"
        "        return _get_current_dispatch_mode() is mine and torch.ones(2).sum().item() == 2\n"
        "import ctypes\n"
        "KS = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)\n"
        "def redispatch(): return torch.ops.aten.exp.default.redispatch(KS, torch.ones(2))\n"
        "def op_dk(): return torch.ops.aten.exp.default._op_dk(torch._C.DispatchKey.CPU,\n"
        "                                                      torch.ones(2))\n"
        "def boxed(): return torch.ops.aten.exp.default._handle.redispatch_boxed(KS,\n"
        "                                                                        torch.ones(2))\n"
        "def cast(): return ctypes.cast(id(torch), ctypes.py_object).value\n"
        "def pointer(): return ctypes.cast(torch.ones(2).data_ptr(),\n"
        "                                  ctypes.POINTER(ctypes.c_float))[0]\n"
        "def buffer(): return ctypes.cast(ctypes.create_string_buffer(b'ab'),\n"
        "                                 ctypes.POINTER(ctypes.c_char))[0]\n")
import cand  # (a file under the scratch directory: candidate code)

class Watch(HarnessDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))

results = {}
with OpRecorder(), Watch():
    depth = torch._C._len_torch_dispatch_stack()
    for name in ("stack", "tree", "functions", "pop", "own", "redispatch", "op_dk", "boxed",
                 "cast", "pointer", "buffer"):
        try:
            results[name] = repr(getattr(cand, name)())[:60]
        except PermissionError as error:
            results[name] = "refused"
    results["depth_kept"] = torch._C._len_torch_dispatch_stack() == depth
    results["harness_redispatch"] = repr(torch.ops.aten.exp.default.redispatch(
        cand.KS, torch.zeros(1)))
    results["by_the_harness"] = [type(m).__name__ for m in
                                 __import__("torch").utils._python_dispatch
                                 ._get_current_dispatch_mode_stack()]
print(json.dumps({"results": results, "violations": trust_audit.violations}))
"""


def test_the_harness_modes_are_refused_to_the_candidate(tmp_path):
    """a76/a77: the recorders' modes, handed by torch's mode-stack functions to a request the
    candidate made (directly, through torch's proxies, through tree_map), are refused; a
    popped one is put back; the candidate's own modes and the harness's own reads stay. a78:
    calls below the dispatcher and ctypes casts of raw addresses are refused to it too."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    run = subprocess.run([sys.executable, "-c", MODE_STACK_SCRIPT, str(scratch)],
                         env={**os.environ, "PYTHONPATH": WORKER_DIR}, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    results = report["results"]
    for name in ("stack", "tree", "functions", "pop"):
        assert results[name] == "refused", (name, results)
    assert results["own"] == "True"
    # below the dispatcher and raw casts: refused to the candidate, not to the harness, and a
    # cast of a ctypes object the candidate made stays
    for name in ("redispatch", "op_dk", "boxed", "cast", "pointer"):
        assert results[name] == "refused", (name, results)
    assert results["buffer"] == "b'a'"
    assert results["harness_redispatch"] == "tensor([1.])"
    assert results["depth_kept"] is True
    assert results["by_the_harness"] == ["Watch"]
    violations = "\n".join(report["violations"])
    assert "dispatch mode stack (_get_dispatch_stack_at)" in violations
    assert "dispatch mode stack (_pop_torch_dispatch_stack)" in violations
    assert "function mode stack (_get_function_stack_at)" in violations
