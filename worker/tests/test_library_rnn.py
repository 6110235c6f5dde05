"""The RNN library kernels (library/*/ with a gru/lstm signature) on the CPU: each candidate runs its
Triton kernel under TRITON_INTERPRET=1 (one program per layer and direction) at tiny shapes and
must match the task's own Model; the generated files must match their sources; meta.json must
describe what the candidate serves."""

import glob
import importlib.util
import json
import os
import sys

import pytest
import torch

from kforge_worker.evaluate import FORWARD_SEED, clone_values, seed_all
from kforge_worker.task_loader import load_candidate, load_task

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIBRARY = os.path.join(REPO, "library")
# the public KernelBench files, never copied into the repository (docs/kernelbench.md)
KERNELBENCH_LEVEL3 = os.path.join(os.path.dirname(REPO), "shared", "kernelbench", "level3")


def rnn_entries():
    entries = []
    for meta_path in sorted(glob.glob(os.path.join(LIBRARY, "*", "meta.json"))):
        with open(meta_path, encoding="utf-8") as handle:
            meta = json.load(handle)
        if meta.get("signature", {}).get("type") in ("gru", "lstm"):
            entries.append((os.path.basename(os.path.dirname(meta_path)), meta))
    return entries


ENTRIES = rnn_entries()
# odd batch, hidden not a power of two, input != hidden: the masked paths
SMALL = {"batch_size": 3, "seq_len": 5, "sequence_length": 5, "input_size": 7,
         "hidden_size": 12, "num_layers": 2}


def test_every_rnn_task_has_an_entry():
    served = {task for _, meta in ENTRIES for task in meta["tasks"]}
    assert served == {"35_LSTM", "36_LSTMHn", "37_LSTMCn", "38_LSTMBidirectional", "39_GRU",
                      "40_GRUHidden", "41_GRUBidirectional", "42_GRUBidirectionalHidden"}


@pytest.mark.parametrize("name,meta", ENTRIES, ids=[name for name, _ in ENTRIES])
def test_candidate_matches_task_on_cpu(name, meta):
    task_name = meta["tasks"][0]
    task = load_task(os.path.join(REPO, "tasks", f"{task_name}.py"))
    task.apply({key: value for key, value in SMALL.items() if key in task.constants})
    module, model_new = load_candidate(os.path.join(LIBRARY, name, meta["source"]), name)
    for key, value in task.shapes.items():  # as the harness sets them (share_constants)
        setattr(module, key, value)
    seed_all(3)
    init_inputs = task.init_inputs()
    seed_all(3)
    reference = task.model_class(*clone_values(init_inputs)).eval()
    seed_all(3)
    candidate = model_new(*clone_values(init_inputs)).eval()
    # same parameters, same names: the harness relies on it
    assert [n for n, _ in reference.named_parameters()] == \
        [n for n, _ in candidate.named_parameters()]
    for seed in (5, 6):
        seed_all(seed)
        inputs = task.inputs()
        with torch.no_grad():  # the same RNG state before each forward, as the judge seeds it
            seed_all(FORWARD_SEED)
            want = reference(*clone_values(inputs))
            seed_all(FORWARD_SEED)
            got = candidate(*clone_values(inputs))
        assert got.shape == want.shape
        torch.testing.assert_close(got, want, atol=2e-5, rtol=1e-5)


@pytest.mark.parametrize("name,meta", ENTRIES, ids=[name for name, _ in ENTRIES])
def test_meta_describes_the_entry(name, meta):
    signature = meta["signature"]
    assert signature["returns"] in ("output", "h_n", "c_n", "fc_last")
    assert isinstance(signature["bidirectional"], bool)
    assert os.path.isfile(os.path.join(LIBRARY, name, meta["source"]))
    for task in meta["tasks"]:
        assert os.path.isfile(os.path.join(REPO, "tasks", f"{task}.py"))
    for row in meta["measurements"]:  # measured, never typed in: device, date and source
        assert row["device"] and row["date"] and row["source"].startswith("docs/bench/")


def test_generated_candidates_are_current():
    """The candidates are build output (CMake target kforge_library): present and current."""
    spec = importlib.util.spec_from_file_location(
        "kforge_rnn_generate", os.path.join(LIBRARY, "rnn_src", "generate.py"))
    generate = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = generate
    spec.loader.exec_module(generate)
    assert generate.stale_candidates(LIBRARY) == [], \
        "build kforge, or run: python3 library/rnn_src/generate.py --candidates-only"


@pytest.mark.parametrize("task,value", [("36_LSTMHn", "h_n"), ("37_LSTMCn", "c_n"),
                                        ("39_GRU", "output"), ("35_LSTM", None)])
def test_inspect_task_names_the_rnn_value_returned(task, value, tmp_path):
    """The provider tells 36 from 37 (same output shape) by these labels."""
    from kforge_worker.task_loader import inspect_child
    info = inspect_child({"task_path": os.path.join(REPO, "tasks", f"{task}.py"), "shrink": True},
                         str(tmp_path))
    label = info["output_sources"][0]
    assert (label and label["value"]) == value


def test_library_bench_runs_on_cpu(tmp_path):
    """bench/bench_rnn_library.py in its CPU dry run (interpreter, tiny shapes): the GPU bench
    once broke unnoticed when a worker helper's signature changed."""
    import subprocess
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=os.path.join(REPO, "worker"))
    out = tmp_path / "bench.json"
    run = subprocess.run([sys.executable, os.path.join(REPO, "bench", "bench_rnn_library.py"),
                          "--cpu-check", "--tasks", "40,38", "--json", str(out)],
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    import json
    tasks = json.loads(out.read_text())["tasks"]
    assert set(tasks) == {"40_GRUHidden", "38_LSTMBidirectional"}
    for record in tasks.values():
        assert record["verdict"][1] == "pass"   # calibrated, against fp64
        assert all(o["verdict"][1] == "pass" for o in record["other_shapes"])


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("gemm", ["tf32x3", "ieee", "torch"])
def test_cluster_input_gates_layout(batch_first, gemm, monkeypatch):
    """The cluster engine's input projection (input_gates_kernel, or addmm + permute) lands each
    row r = (t, b) and column n at [n // ghs][t][b][n % ghs], with the bias, from either input
    layout; ragged tiles (rows, columns, K not multiples of the tile) are masked."""
    sys.path.insert(0, os.path.join(LIBRARY, "rnn_src"))
    try:
        import rnn_common
    finally:
        sys.path.pop(0)
    monkeypatch.setitem(rnn_common.RNN_CONFIG, "gemm", gemm)
    monkeypatch.setitem(rnn_common.RNN_CONFIG, "gemm_tile", (16, 32, 16, 4, 2))
    torch.manual_seed(0)
    T, B, K, ghs = 5, 3, 40, 48
    N = 3 * ghs
    x = torch.randn(B, T, K) if batch_first else torch.randn(T, B, K)
    w, bias = torch.randn(N, K), torch.randn(N)
    got = rnn_common.cluster_input_gates(x, batch_first, w, bias, ghs)
    rows = (x.transpose(0, 1) if batch_first else x).reshape(T * B, K).double()
    want = (rows @ w.double().t() + bias.double()).view(T, B, N // ghs, ghs).permute(2, 0, 1, 3)
    assert rnn_common._GEMM["error"] is None   # the Triton kernel ran, not the addmm fallback
    assert got.shape == (N // ghs, T, B, ghs)
    assert torch.allclose(got.double(), want, rtol=0, atol=1e-4)


# ---- the library against the task it is given: the public KernelBench files and ours ----------
# (issue 13: the public LSTM files build nn.LSTM first and draw h0/c0 in forward or take them as
# inputs; the library once built its weights after two draws of its own and was wrong on them)

def task_paths():
    """(id, path) for every RNN entry's task: ours, and the public file where shared/ has it."""
    pairs = []
    for name, meta in ENTRIES:
        for task_name in meta["tasks"]:
            pairs.append((f"{name}-ours", os.path.join("tasks", f"{task_name}.py"), name, meta))
            pairs.append((f"{name}-kernelbench", os.path.join(KERNELBENCH_LEVEL3, f"{task_name}.py"),
                          name, meta))
    return pairs


TASK_PATHS = task_paths()


def need(path):
    if not os.path.isfile(os.path.join(REPO, path)):
        pytest.skip(f"{path} is missing (the public KernelBench files live in ../shared)")


def signature_of(info):
    """The provider's signature (src/llm/library_catalog.cc, derive_signature) from an
    inspect_task reply."""
    rnn = next(m for m in info["modules"] if m["type"] in ("GRU", "LSTM", "RNN"))
    has_fc = any(m["type"] == "Linear" for m in info["modules"])
    returns = "other"
    if len(info["outputs"]) == 1:
        source = info["output_sources"][0]
        if source:
            returns = source["value"]
        elif has_fc and len(info["outputs"][0]["shape"]) == 2:
            returns = "fc_last"
    return {"type": rnn["type"].lower(), "bidirectional": rnn["args"]["bidirectional"],
            "batch_first": rnn["args"]["batch_first"], "has_fc": has_fc, "returns": returns}


@pytest.mark.parametrize("ident,path,name,meta", TASK_PATHS, ids=[p[0] for p in TASK_PATHS])
def test_provider_signature_finds_the_entry(ident, path, name, meta, tmp_path):
    """The task's signature, as the provider derives it, picks this entry and no other."""
    from kforge_worker.task_loader import inspect_child
    need(path)
    info = inspect_child({"task_path": os.path.join(REPO, path), "shrink": True}, str(tmp_path))
    signature = signature_of(info)
    matching = [n for n, m in ENTRIES if all(signature.get(k) == v
                                             for k, v in m["signature"].items())]
    assert matching == [name], signature


@pytest.mark.parametrize("ident,path,name,meta", TASK_PATHS, ids=[p[0] for p in TASK_PATHS])
def test_entry_passes_through_the_worker(ident, path, name, meta, worker):
    """The real worker (judge + candidate process), shrunk shapes, as `kforge eval --device cpu
    --shrink` (two layers): each entry passes both verdicts on the public file and on ours, and
    at the alternative shapes (generalization)."""
    need(path)
    # two layers instead of the shrink's six: the interpreter runs layers one after another.
    # A fixed input seed (evaluate's input_seed): with fresh draws, one CI rehearsal of session 37
    # failed pass_kernelbench on 42_GRUBidirectionalHidden while the calibrated verdict held; 21
    # fresh draws in a row passed afterwards, some with the fp32 reference itself 1e-5 from fp64
    # (a recurrence amplifies rounding). KernelBench's fixed 1e-4 cannot allow for the
    # reference's own error; the calibrated verdict does.
    result = worker.evaluate(path, os.path.join("library", name, meta["source"]),
                             overrides={"num_layers": 2}, input_sets=2, timeout_s=600,
                             input_seed=2026)
    assert result["status"] == "ok", (result["status"], result.get("error"))
    correctness = result["correctness"]
    assert correctness["pass_kernelbench"] and correctness["pass_calibrated"]
    # exact fp32: a few ulps from fp64, relative, on the task's own draws (the spread set's
    # sprinkles reach 2^20: cancellation in the gates' sums took an exact c_n 2.7e-5 off fp64
    # there, the fp32 reference as far; the calibrated verdict above holds it to that)
    assert correctness["relative_l2_fp64_own"] < 1e-6, correctness
    # the fp64 reference ran (35_LSTM's forward-drawn float32 h0/c0 are upcast into it)
    assert correctness["fp64_reliable"], result.get("notes")
    assert result.get("generalizes") in ("yes", None)


def test_state_drawn_in_forward_through_timing(worker):
    """35_LSTM draws h0/c0 inside forward: every timed call is checked against the reference,
    so a timed call must start from the checked calls' RNG state on both sides (time_block's
    seed), or the candidate is wrong during timing."""
    result = worker.evaluate("tasks/35_LSTM.py", "library/lstm_fc/candidate.py",
                             overrides={"num_layers": 2}, input_sets=1, trials=4, warmup=1,
                             time_on_cpu=True, check_generalization=False, timeout_s=600)
    assert result["status"] == "ok", (result["status"], result.get("error"))
    assert result["timing"]["candidate"]["median_ms"] > 0


def test_time_block_seeds_every_trial():
    from kforge_worker import timing
    drawn = []
    timing.time_block([lambda: torch.randn(4)] * 3, None, warmup=1, cpu=True, seed=11,
                      after=lambda index, output: drawn.append(output))
    seed_all(11)
    want = torch.randn(4)
    assert all(torch.equal(item, want) for item in drawn)
