"""The RNN library's TF32 mode (issue 13: follow torch.backends.cudnn.allow_tf32 the way cuDNN's
RNN does) on the CPU: which mode a forward picks, the rounding helpers (PyTorch, Triton under the
interpreter, and the CUDA kernel's, compiled for the host) against bench_rnn_tf32.round_tf32
"rne", the Triton engine in TF32 mode against the PyTorch emulation of cuDNN's TF32 recurrence
(bench_rnn_tf32.emulate), and exact mode unchanged whatever the flag on the CPU."""

import os
import re
import shutil
import subprocess
import sys

import pytest
import torch
import triton
import triton.language as tl

from kforge_worker.evaluate import FORWARD_SEED, clone_values, seed_all
from kforge_worker.task_loader import load_candidate, load_task

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RNN_SRC = os.path.join(REPO, "library", "rnn_src")
sys.path.insert(0, RNN_SRC)
sys.path.insert(0, os.path.join(REPO, "bench"))
import rnn_common  # noqa: E402
import bench_rnn_tf32  # noqa: E402
sys.path.remove(RNN_SRC)
sys.path.remove(os.path.join(REPO, "bench"))

SMALL = {"batch_size": 3, "seq_len": 5, "sequence_length": 5, "input_size": 7,
         "hidden_size": 12, "num_layers": 2}


@pytest.fixture
def config(monkeypatch):
    """rnn_common.RNN_CONFIG, restored after the test."""
    monkeypatch.setattr(rnn_common, "RNN_CONFIG", dict(rnn_common.RNN_CONFIG))
    return rnn_common.RNN_CONFIG


@pytest.fixture
def cudnn_flag():
    saved = torch.backends.cudnn.allow_tf32
    yield
    torch.backends.cudnn.allow_tf32 = saved


def test_mode_follows_the_cudnn_flag_on_cuda_only(config, cudnn_flag):
    cuda, cpu = torch.device("cuda"), torch.device("cpu")
    torch.backends.cudnn.allow_tf32 = True
    assert rnn_common.tf32_mode(cuda) is False          # the default: exact whatever the flag
    config["tf32"] = None                               # opt in: follow cuDNN's flag
    assert rnn_common.tf32_mode(cuda) is True
    assert rnn_common.tf32_mode(cpu) is False           # the CPU path stays exact
    torch.backends.cudnn.allow_tf32 = False             # read at every call
    assert rnn_common.tf32_mode(cuda) is False
    config["tf32"] = True                               # forced (the tests below)
    assert rnn_common.tf32_mode(cpu) is True and rnn_common.tf32_mode(cuda) is True
    config["tf32"] = False
    torch.backends.cudnn.allow_tf32 = True
    assert rnn_common.tf32_mode(cuda) is False


def awkward_floats():
    """Random bit patterns over every exponent, exact ties (low 13 bits 0x1000) with bit 13 even
    and odd, values just above and below a tie, the largest finite values (they round to Inf),
    subnormals, zeros; finite only."""
    gen = torch.Generator().manual_seed(0)
    bits = torch.randint(-2**31, 2**31 - 1, (20000,), generator=gen, dtype=torch.int64)
    high = bits & ~0x1FFF
    ties = [high | 0x1000, high | 0x1000 | 0x2000, high | 0x0FFF, high | 0x1001, high]
    special = torch.tensor([0x7F7FFFFF, 0x7F7FF000, 0x7F7FEFFF, 0x00000001, 0x00001000,
                            0x00003000, 0x007FFFFF, 0x00800000, 0x3F800000, 0x3F801000,
                            0x3F803000, 0, -2**31], dtype=torch.int64)
    special = torch.cat([special, special | -2**31])
    every = torch.cat([bits] + ties + [special])
    every = torch.where(every >= 2**31, every - 2**32, every).to(torch.int32)
    values = every.view(torch.float32)
    return values[torch.isfinite(values)]


def special_floats():
    return torch.tensor([float("inf"), float("-inf"), float("nan"),
                         torch.tensor(0x7FFFFFFF, dtype=torch.int32).view(torch.float32).item(),
                         torch.tensor(-1, dtype=torch.int32).view(torch.float32).item()])


def bits(t):
    return t.contiguous().view(torch.int32)


def test_round_tf32_matches_the_bench_rne_bit_for_bit():
    values = awkward_floats()
    got = rnn_common.round_tf32(values)
    want = bench_rnn_tf32.round_tf32(values, "rne")
    assert torch.equal(bits(got), bits(want))
    assert (bits(got) & 0x1FFF).eq(0).all()
    # ties go to even: 1 + 2^-11 (halfway between 1 and 1 + 2^-10) -> 1; 1 + 3 * 2^-11 -> 1 + 2^-9
    assert rnn_common.round_tf32(torch.tensor([1 + 2**-11, 1 + 3 * 2**-11])).tolist() == \
        [1.0, 1 + 2**-9]
    # NaN and Inf pass unchanged (the bench's helper is for finite values only)
    special = special_floats()
    assert torch.equal(bits(rnn_common.round_tf32(special)), bits(special))


@triton.jit
def _round_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + offs, rnn_common._round_tf32(x), mask=offs < n)


def test_triton_rounding_matches_bit_for_bit():
    values = torch.cat([awkward_floats(), special_floats()])
    out = torch.empty_like(values)
    _round_kernel[(triton.cdiv(values.numel(), 1024),)](values, out, values.numel(), BLOCK=1024)
    assert torch.equal(bits(out), bits(rnn_common.round_tf32(values)))


def cuda_function(name):
    """The text of a __device__ function of rnn_cluster.cu."""
    with open(os.path.join(RNN_SRC, "rnn_cluster.cu"), encoding="utf-8") as handle:
        source = handle.read()
    match = re.search(r"__device__ __forceinline__ float " + name + r"\(float x\) \{.*?\n\}",
                      source, re.S)
    assert match, name
    return match.group(0)


@pytest.mark.skipif(shutil.which("c++") is None, reason="no host C++ compiler")
def test_cuda_rounding_matches_bit_for_bit(tmp_path):
    """rnn_cluster.cu's round_tf32, verbatim, compiled for the host (the CUDA intrinsics it uses
    defined as the bit casts they are)."""
    program = """
#include <cstdint>
#include <cstdio>
#include <cstring>
#define __device__
#define __forceinline__ inline
static unsigned __float_as_uint(float x) { unsigned u; std::memcpy(&u, &x, 4); return u; }
static float __uint_as_float(unsigned u) { float x; std::memcpy(&x, &u, 4); return x; }
""" + cuda_function("round_tf32") + """
int main() {
  unsigned u;
  while (std::scanf("%u", &u) == 1)
    std::printf("%u\\n", __float_as_uint(round_tf32(__uint_as_float(u))));
  return 0;
}
"""
    (tmp_path / "round.cc").write_text(program)
    binary = tmp_path / "round"
    subprocess.run(["c++", "-O2", "-std=c++17", "-o", str(binary), str(tmp_path / "round.cc")],
                   check=True, capture_output=True, text=True)
    values = torch.cat([awkward_floats(), special_floats()])
    unsigned = bits(values).to(torch.int64) & 0xFFFFFFFF
    run = subprocess.run([str(binary)], input="\n".join(map(str, unsigned.tolist())),
                         capture_output=True, text=True, check=True)
    got = torch.tensor([int(v) for v in run.stdout.split()], dtype=torch.int64)
    want = bits(rnn_common.round_tf32(values)).to(torch.int64) & 0xFFFFFFFF
    assert torch.equal(got, want)


def test_cluster_entry_point_matches_its_declaration():
    """load_inline binds rnn_cluster_run through _CLUSTER_DECL: same parameters, same order (no
    nvcc here to catch a mismatch)."""
    def params(text):
        inside = re.search(r"rnn_cluster_run\((.*?)\)", text, re.S).group(1)
        return [p.split()[-1] for p in inside.replace("\n", " ").split(",")]
    with open(os.path.join(RNN_SRC, "rnn_cluster.cu"), encoding="utf-8") as handle:
        source = handle.read()
    definition = source[source.index("int64_t rnn_cluster_run("):]
    assert params(definition) == params(rnn_common._CLUSTER_DECL)
    assert "tf32" in params(rnn_common._CLUSTER_DECL)
    # the host call passes them in that order: 11 pointers, then the scalars up to query
    decl = params(rnn_common._CLUSTER_DECL)
    assert decl.index("tf32") == decl.index("fuse") + 1


def test_packed_weights_follow_the_mode():
    torch.manual_seed(0)
    rnn = torch.nn.GRU(7, 12, 2)
    packed = rnn_common._PackedWeights()
    exact = [t.clone() for t in packed.get(rnn, False, [(0, 2)], None, False)[0]]
    w_in, b_in, wih, bih, whh, bhh = packed.get(rnn, False, [(0, 2)], None, True)[0]
    for got, want in ((w_in, exact[0]), (wih, exact[2]), (whh, exact[4])):
        assert torch.equal(got, rnn_common.round_tf32(want)) and not torch.equal(got, want)
    assert torch.equal(b_in, exact[1]) and torch.equal(bhh, exact[5])   # biases stay fp32
    again = packed.get(rnn, False, [(0, 2)], None, False)[0]
    assert all(torch.equal(a, b) for a, b in zip(again, exact))


@pytest.mark.parametrize("gemm", ["tf32x3", "torch"])
def test_input_gates_tf32(gemm, config):
    """The cluster engine's input projection in TF32 mode: x rounded as it is loaded, w rounded by
    the packing, then the exact product (tl.dot "tf32" on TF32 values)."""
    config["gemm"] = gemm
    config["gemm_tile"] = (16, 32, 16, 4, 2)
    torch.manual_seed(1)
    T, B, K, ghs = 5, 3, 40, 48
    N = 3 * ghs
    x = torch.randn(B, T, K)
    w, bias = rnn_common.round_tf32(torch.randn(N, K)), torch.randn(N)
    got = rnn_common.cluster_input_gates(x, True, w, bias, ghs, tf32=True)
    rows = rnn_common.round_tf32(x.transpose(0, 1).reshape(T * B, K)).double()
    want = (rows @ w.double().t() + bias.double()).view(T, B, N // ghs, ghs).permute(2, 0, 1, 3)
    assert rnn_common._GEMM["error"] is None
    assert torch.allclose(got.double(), want, rtol=0, atol=1e-5)
    exact = (x.transpose(0, 1).reshape(T * B, K).double() @ w.double().t() + bias.double())
    assert (got.double() - exact.view(T, B, N // ghs, ghs).permute(2, 0, 1, 3)).abs().max() > 1e-4


@pytest.mark.parametrize("lstm,bidirectional,batch_first",
                         [(False, False, False), (True, False, True), (False, True, False),
                          (True, True, True)])
def test_triton_tf32_mode_matches_the_emulation(lstm, bidirectional, batch_first, config):
    """The Triton engine (interpreter) with TF32 forced against bench_rnn_tf32.emulate ("rne":
    every matmul operand rounded to nearest even, exact products): within 1e-5, while exact
    mode is ~1e-4 away from it (the rounding is really applied)."""
    torch.manual_seed(2)
    kind = torch.nn.LSTM if lstm else torch.nn.GRU
    rnn = kind(7, 12, 2, bidirectional=bidirectional, batch_first=batch_first)
    D = 2 if bidirectional else 1
    x = torch.randn((3, 5, 7) if batch_first else (5, 3, 7))
    h0, c0 = torch.randn(2 * D, 3, 12), torch.randn(2 * D, 3, 12)
    with torch.no_grad():
        want_out, want_state = bench_rnn_tf32.emulate(rnn, x, (h0, c0) if lstm else h0, "rne")
    want_h = want_state[0] if lstm else want_state
    results = {}
    for mode in (True, False):
        config["tf32"] = mode
        packed = rnn_common._PackedWeights()
        results[mode] = rnn_common.rnn_forward(rnn, packed, x, h0, c0 if lstm else None, lstm)
        assert packed.key[-1] is mode
    out, h_n, c_n = results[True]
    assert (out - want_out).abs().max() < 1e-5
    assert (h_n - want_h).abs().max() < 1e-5
    if lstm:
        assert (c_n - want_state[1]).abs().max() < 1e-5
    assert (results[False][0] - want_out).abs().max() > 2e-5


@pytest.mark.parametrize("entry,task_name", [("gru_bi_out", "41_GRUBidirectional"),
                                             ("lstm_fc", "35_LSTM")])
def test_candidate_follows_the_mode(entry, task_name, cudnn_flag):
    """A generated candidate: on the CPU the flag changes nothing (exact, bit for bit, whatever
    torch.backends.cudnn.allow_tf32 says); TF32 forced, its output is the task's Model with its
    RNN answered by the "rne" emulation, within 1e-5."""
    task = load_task(os.path.join(REPO, "tasks", f"{task_name}.py"))
    task.apply({key: value for key, value in SMALL.items() if key in task.constants})
    module, model_new = load_candidate(
        os.path.join(REPO, "library", entry, "candidate.py"), f"tf32_{entry}")
    for key, value in task.shapes.items():
        setattr(module, key, value)
    seed_all(3)
    init_inputs = task.init_inputs()
    seed_all(3)
    reference = task.model_class(*clone_values(init_inputs)).eval()
    seed_all(3)
    candidate = model_new(*clone_values(init_inputs)).eval()
    seed_all(5)
    inputs = task.inputs()

    def forward(model):
        with torch.no_grad():
            seed_all(FORWARD_SEED)
            return model(*clone_values(inputs))
    outputs = {}
    module.RNN_CONFIG["tf32"] = None   # follow the flag (opt-in): the CPU path stays exact
    try:
        for flag in (True, False):
            torch.backends.cudnn.allow_tf32 = flag
            outputs[flag] = forward(candidate)
        module.RNN_CONFIG["tf32"] = True
        forced = forward(candidate)
    finally:
        module.RNN_CONFIG["tf32"] = False
    assert torch.equal(outputs[True], outputs[False])
    torch.testing.assert_close(outputs[False], forward(reference), atol=2e-5, rtol=1e-5)
    emulated = bench_rnn_tf32.emulated_outputs(reference, inputs, "rne")[0]
    assert (forced - emulated).abs().max() < 1e-5
    assert (outputs[False] - emulated).abs().max() > 1e-6


def test_tf32_bench_runs_on_cpu(tmp_path):
    """bench/bench_rnn_tf32.py --cpu-check: the library's forced TF32 run lands on the "rne"
    emulation, and it ran in the mode the script asked for."""
    import json
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=os.path.join(REPO, "worker"))
    out = tmp_path / "tf32.json"
    run = subprocess.run([sys.executable, os.path.join(REPO, "bench", "bench_rnn_tf32.py"),
                          "--cpu-check", "--tasks", "40,37", "--json", str(out)],
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    tasks = json.loads(out.read_text())["tasks"]
    assert set(tasks) == {"40_GRUHidden", "37_LSTMCn"}
    for row in tasks.values():
        assert row["lib_tf32_mode"] == [True, False]
        assert row["lib_tf32_vs_rne"] < 1e-5
        assert row["lib_ieee_vs_ref_ieee"] < 1e-5 and row["verdict_off"] == "pass"
