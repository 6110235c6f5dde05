"""GPU checks of the parts the CPU suite can only fake: CUDA-event timing, the L2 flush, the
baselines (torch.compile, CUDA graph), the profiler's kernel list. Skipped without a CUDA device
(torch.cuda.is_available() is asked in a subprocess: this test process must not hold CUDA)."""

import os
import subprocess
import sys

import pytest

from conftest import Worker


def _cuda_available():
    if not os.path.exists("/dev/nvidiactl"):  # no NVIDIA driver: skip without importing torch
        return False
    probe = "import torch; print(torch.cuda.is_available())"
    env = {key: value for key, value in os.environ.items() if key != "TRITON_INTERPRET"}
    try:
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                             timeout=120, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.stdout.strip() == "True"


pytestmark = pytest.mark.skipif(not _cuda_available(), reason="no CUDA device")


@pytest.fixture(scope="module")
def gpu_worker():
    process = Worker(gpu=True)
    yield process
    process.close()


def evaluate(worker, task, candidate, **fields):
    fields = {"device": "cuda", "timeout_s": 600, "trials": 30, "warmup": 5, **fields}
    reply = worker.call("evaluate", task_path=task, candidate_path=candidate, **fields)
    assert reply["ok"], reply
    return reply["result"]


def test_hello_names_the_device(gpu_worker):
    result = gpu_worker.call("hello")["result"]
    assert result["interpret"] is False
    assert result["device"]["sm_count"] > 0 and result["device"]["memory_gb"] > 0


@pytest.mark.parametrize("name", ["softmax", "gelu"])
def test_library_kernel_is_timed_and_profiled(gpu_worker, name):
    result = evaluate(gpu_worker, f"tasks/{name}.py", f"library/{name}/candidate.py",
                      baselines=["eager", "compile", "cuda_graph"])
    assert result["status"] == "ok", result["error"]
    timing = result["timing"]
    for runner in ("candidate", "eager"):
        # whole blocks: 30 asked, rounded up to the task's block (8 for the full-size softmax)
        assert 30 <= timing[runner]["trials"] < 40 and timing[runner]["median_ms"] > 0
        # the launch path of one call (a diagnostic): far below the GPU time of a device-bound
        # kernel (the full-size softmax: ~0.03 of ~0.18 ms on an H200)
        assert 0 < timing[runner]["host_median_ms"]
    for baseline in ("compile", "cuda_graph"):
        assert timing[baseline] is not None or baseline in timing.get("baseline_errors", {})
    assert result["score"] == pytest.approx(timing["eager"]["median_ms"]
                                            / timing["candidate"]["median_ms"])
    assert result["launches_per_forward"] == 1
    assert [k["own"] for k in result["kernels"]] == [True]
    assert 0 < result["timed_s"] < result["wall_s"]
    assert result["inputs_drawn_on"] == "cuda"
    assert not [note for note in result.get("notes", []) if "inputs drawn on the CPU" in note]


def test_broken_kernel_compile_error_on_gpu(gpu_worker):
    result = evaluate(gpu_worker, "tasks/gelu.py", "worker/tests/candidates/gelu_tl_tanh.py")
    assert result["status"] == "compile_error", result["error"]
    assert result["error_location"].endswith("gelu_tl_tanh.py:14")


def test_baseline_of_39_gru(gpu_worker):
    reply = gpu_worker.call("baseline", task_path="tasks/39_GRU.py", trials=20, warmup=3)
    assert reply["ok"], reply
    result = reply["result"]
    assert result["eager"]["median_ms"] > 0
    assert result["inputs_drawn_on"] == "cuda"
    assert result["cuda_graph"] is not None or "cuda_graph" in result["errors"]


GRAPH_CHECK = r'''
import sys, torch
sys.path.insert(0, "library/rnn_src")
import rnn_common
torch.manual_seed(0)
for kind, lstm in ((torch.nn.GRU, False), (torch.nn.LSTM, True)):
    for bidirectional in (False, True):
        rnn = kind(24, 64, 2, bidirectional=bidirectional).cuda()
        D = 2 if bidirectional else 1
        h0 = torch.randn(2 * D, 3, 64, device="cuda")
        c0 = torch.randn(2 * D, 3, 64, device="cuda")
        packed = rnn_common._PackedWeights()
        assert rnn_common._cluster_plan(2, D, 3, 64, lstm) is not None, rnn_common._CLUSTER

        def ours(x):
            return rnn_common.rnn_forward(rnn, packed, x, h0, c0 if lstm else None, lstm)

        def want(x):
            with torch.no_grad():
                return rnn(x, (h0, c0) if lstm else h0)[0]

        with torch.no_grad():
            x1, x2 = torch.randn(7, 3, 24, device="cuda"), torch.randn(7, 3, 24, device="cuda")
            out1 = ours(x1)[0]
            assert packed.graph is not None, "the cluster path was not captured"
            out2 = ours(x2)[0]
            assert (out1 - want(x1)).abs().max() < 1e-3      # still x1's: outputs are copies
            assert (out2 - want(x2)).abs().max() < 1e-3
            rnn.weight_hh_l0.mul_(0.5)                        # in place: a new capture
            out3 = ours(x2)[0]
            assert (out3 - want(x2)).abs().max() < 1e-3
            rnn_common.RNN_CONFIG["graph"] = False
            assert torch.equal(ours(x2)[0], out3)             # the same launches, eagerly
            rnn_common.RNN_CONFIG["graph"] = True
assert rnn_common._GRAPH["error"] is None, rnn_common._GRAPH
print("graph ok")
'''


def test_rnn_cluster_path_replays_a_cuda_graph_correctly():
    """The library RNN's CUDA-graph replay: fresh inputs each call, outputs that do not alias
    between calls, a new capture after an in-place weight update, identical to eager launches."""
    env = {key: value for key, value in os.environ.items() if key != "TRITON_INTERPRET"}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    run = subprocess.run([sys.executable, "-c", GRAPH_CHECK], cwd=root, env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0 and "graph ok" in run.stdout, run.stderr[-3000:]


TF32_CHECK = r'''
import sys, torch
sys.path.insert(0, "library/rnn_src")
sys.path.insert(0, "bench")
import rnn_common
from bench_rnn_tf32 import emulate
rnn_common.RNN_CONFIG["tf32"] = None  # following cuDNN's flag is opt-in (exact fp32 by default)
torch.manual_seed(0)
for kind, lstm in ((torch.nn.GRU, False), (torch.nn.LSTM, True)):
    for bidirectional, layers in ((False, 3), (True, 2)):
        rnn = kind(24, 64, layers, bidirectional=bidirectional).cuda()
        D = 2 if bidirectional else 1
        h0 = torch.randn(layers * D, 3, 64, device="cuda")
        c0 = torch.randn(layers * D, 3, 64, device="cuda")
        x = torch.randn(9, 3, 24, device="cuda")
        hx = (h0, c0) if lstm else h0
        packed = rnn_common._PackedWeights()
        with torch.no_grad():
            for flag in (True, False, True):   # read at every forward
                torch.backends.cudnn.allow_tf32 = flag
                got = rnn_common.rnn_forward(rnn, packed, x, h0, c0 if lstm else None, lstm)[0]
                assert packed.key[-1] is flag, (flag, packed.key[-1])
                want = emulate(rnn, x, hx, "rne")[0] if flag else rnn(x, hx)[0]
                err = (got - want).abs().max().item()
                # 1e-4: the order of the sums (3.5e-5 seen on an H200); exact fp32 is
                # 1.4e-4 to 3.3e-4 from the TF32 emulation at these sizes (H200, session 27)
                assert err < 1e-4, (kind.__name__, bidirectional, flag, err)
torch.backends.cudnn.allow_tf32 = True
assert rnn_common._CLUSTER["error"] is None and rnn_common._GEMM["error"] is None
print("tf32 ok")
'''


def test_rnn_follows_the_cudnn_tf32_flag():
    """The library RNN on the cluster path: flag on, the TF32 mode lands on the PyTorch emulation
    of TF32 operands rounded to nearest even; flag off, exact against cuDNN without TF32; the
    flag is read at every forward (the graph is captured again when it changes)."""
    env = {key: value for key, value in os.environ.items() if key != "TRITON_INTERPRET"}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    run = subprocess.run([sys.executable, "-c", TF32_CHECK], cwd=root, env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0 and "tf32 ok" in run.stdout, run.stderr[-3000:]


ERROR_STATS_CHECK = r'''
import time, torch
from kforge_worker import error_stats, timed_check
from kforge_worker.correctness import base_tolerance
torch.manual_seed(0)
for dtype, n in ((torch.float32, 4096 * 16384), (torch.bfloat16, 100003), (torch.float64, 5000)):
    theirs = torch.randn(n, device="cuda").to(dtype)
    mine = (theirs.double() + 1e-3 * torch.randn(n, device="cuda", dtype=torch.float64)).to(dtype)
    mine[7], theirs[7] = float("nan"), float("nan")
    mine[n - 1] = float("nan")
    base = base_tolerance(dtype)
    assert error_stats.fused_applies(mine, theirs)
    fused = error_stats.errors_fused(mine, theirs, base).tolist()
    plain = timed_check.errors_torch(mine, theirs, base).tolist()
    assert fused[0] == plain[0], (dtype, fused, plain)
    assert all(abs(f - p) <= 1e-9 * abs(p) for f, p in zip(fused[1:], plain[1:])), (fused, plain)
    for name, fn in (("fused", error_stats.errors_fused), ("pytorch", timed_check.errors_torch)):
        torch.cuda.synchronize(); began = time.perf_counter()
        for _ in range(5):
            fn(mine, theirs, base).tolist()
        print(f"{dtype} n={n} {name}: {(time.perf_counter() - began) / 5 * 1e3:.2f} ms per output")
print("error stats ok")
'''


def test_fused_error_statistics_on_the_gpu():
    """The timed check's one-pass kernel agrees with the PyTorch path on a GPU (a full-size
    softmax output, bfloat16, float64) and prints both times."""
    env = {key: value for key, value in os.environ.items() if key != "TRITON_INTERPRET"}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.path.join(root, "worker")
    run = subprocess.run([sys.executable, "-c", ERROR_STATS_CHECK], cwd=root, env=env,
                         capture_output=True, text=True, timeout=300)
    print(run.stdout)
    assert run.returncode == 0 and "error stats ok" in run.stdout, run.stderr[-3000:]
