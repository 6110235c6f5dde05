"""Static facts (kforge_worker.facts): what the syntax tree of a candidate says. The rules that
judge these facts are C++ (src/analysis) and are tested on the corpus by corpus_test.cc."""

import json
import os

import pytest
# Imported once here so that the forked children of extract() start warm, as in the worker.
import torch  # noqa: F401
import triton.language  # noqa: F401

from kforge_worker.facts import extract
from kforge_worker.facts_names import roles_of_name, words

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(REPO, "tests/analysis/corpus")
TASKS = os.path.join(REPO, "tests/analysis/tasks")


def facts_of(name, task=None):
    return extract(f"{CORPUS}/{name}.py", f"{TASKS}/{task}.py" if task else None)


def jit(facts, name):
    return next(f for f in facts["jit_functions"] if f["name"] == name)


def test_roles_come_from_identifier_words():
    assert words("HIDDEN_SIZE") == ["hidden", "size"]
    assert words("hiddenSize") == ["hidden", "size"]
    assert roles_of_name("seq_len") == {"time"}
    assert roles_of_name("T") == {"time"}
    assert roles_of_name("x_t") == {"time"}
    assert roles_of_name("batch_size") == {"batch"}
    assert roles_of_name("H") == {"hidden"}
    assert roles_of_name("offs_h") == set()  # a short word counts only as the whole name
    assert roles_of_name("num_layers") == {"layer"}


def test_python_time_loop_launches_through_helpers():
    facts = facts_of("gru_python_time_loop", "gru_tiny")
    launches = {launch["kernel"]: launch for launch in facts["launches"]}
    gemm = launches["gemm_bias_kernel"]
    assert gemm["in_forward"] and gemm["call_path"] == ["ModelNew.forward", "gemm_bias_out"]
    assert [(loop["var"], loop["roles"]) for loop in gemm["loops"]] == [
        ("layer", ["layer"]), ("t", ["time"])]
    assert gemm["grid_dims"] == 2
    step = launches["gru_elementwise_kernel"]
    assert step["dims"][0]["names"] == ["B", "H"] and step["dims"][0]["params"] == ["B", "H"]
    assert facts["reference"]["recurrent"] and facts["reference"]["families"] == ["gru"]
    assert facts["reference"]["layers"] == 2
    assert facts["modules"] == [{"attr": "gru", "type": "torch.nn.GRU", "family": "gru"}]


def test_module_cell_called_per_step_is_followed():
    facts = facts_of("gru_cell_module_loop")
    launch = facts["launches"][0]
    assert launch["in_forward"]
    assert launch["call_path"][:2] == ["ModelNew.forward", "GRUCell.forward"]
    assert any("time" in loop["roles"] for loop in launch["loops"])


def test_seed_gru_grid_is_a_cross_program_recurrence():
    facts = facts_of("gru_persistent_race")
    kernel = jit(facts, "gru_persistent_layer_kernel")
    assert kernel["program_id_axes"] == [0, 1]
    time_loop, k_loop = kernel["loops"]
    assert time_loop["roles"] == ["time"] and k_loop["parent"] == time_loop["id"]
    assert not k_loop["unit_step"] and k_loop["dots"] == 3
    (recurrence,) = kernel["recurrences"]
    assert recurrence["buffer"] == "h_state_ptr"
    assert recurrence["cross_program"] and recurrence["foreign_axes"] == [1]
    assert recurrence["barrier"] == "none"
    launch = facts["launches"][0]
    assert [d["roles"] for d in launch["dims"]] == [["batch"], ["hidden"]]  # lambda grid


@pytest.mark.parametrize("name, barrier, cross", [
    ("gru_persistent_grid_barrier", "grid_barrier", True),
    ("gru_persistent_helper_barrier", "grid_barrier", True),
    ("gru_persistent_atomic_no_wait", "atomic_no_spin", True),
    ("gru_persistent_flat_grid_race", "debug_barrier", True),
    ("gru_persistent_owner", "debug_barrier", False),
])
def test_barriers_and_ownership(name, barrier, cross):
    facts = facts_of(name)
    kernel = next(f for f in facts["jit_functions"] if f["recurrences"])
    recurrence = kernel["recurrences"][0]
    assert recurrence["barrier"] == barrier
    assert recurrence["cross_program"] == cross


def test_flattened_grid_halves_are_distinct_owners():
    kernel = facts_of("gru_persistent_flat_grid_race")["jit_functions"][0]
    recurrence = kernel["recurrences"][0]
    assert "pid_h" in recurrence["foreign_atoms"] and recurrence["foreign_axes"] == [0]


def test_batch_only_grid_and_serial_hidden_loop():
    facts = facts_of("lstm_batch_only_grid")
    launch = facts["launches"][0]
    assert launch["grid_dims"] == 1 and launch["dims"][0]["roles"] == ["batch"]  # def grid(meta)
    loops = jit(facts, "lstm_persistent_layer_kernel")["loops"]
    serial = [loop for loop in loops if loop["var"] == "k"][0]
    assert serial["unit_step"] and serial["roles"] == ["hidden"] and serial["loads"] == 5


def test_missing_api_is_checked_against_installed_triton():
    kernel = facts_of("tl_tanh")["jit_functions"][0]
    assert [(m["name"], m["line"]) for m in kernel["missing_api"]] == [("tl.tanh", 15)]
    facts = facts_of("custom_tanh")
    assert all(not f["missing_api"] for f in facts["jit_functions"])
    assert jit(facts, "gates_kernel")["libdevice_calls"] == ["libdevice.tanh"]
    assert jit(facts, "gates_kernel")["jit_calls"] == ["triton_tanh"]


def test_arange_bounds():
    (arange,) = facts_of("arange_runtime")["jit_functions"][0]["nonconstexpr_arange"]
    assert arange["expr"] == "tl.arange(0, H)" and arange["runtime_names"] == ["H"]
    assert facts_of("arange_constexpr")["jit_functions"][0]["nonconstexpr_arange"] == []


def test_tensor_subscripts():
    kernel = facts_of("tensor_subscript")["jit_functions"][0]
    assert [s["expr"] for s in kernel["tensor_subscripts"]] == ["h_prev[k_ids]"]
    assert facts_of("arange_constexpr")["jit_functions"][0]["tensor_subscripts"] == []


def test_torch_ops_and_reference_calls():
    ops = facts_of("gru_calls_reference", "gru_tiny")["torch_ops"]
    assert {(op["name"], op["family"]) for op in ops} >= {
        ("torch.nn.GRU", "gru"), ("torch._VF.gru", "gru")}
    owner = facts_of("gru_persistent_owner", "gru_tiny")
    assert [op["family"] for op in owner["torch_ops"] if op["heavy"]] == ["matmul"]
    relu = facts_of("relu_calls_torch", "relu_tiny")
    assert relu["reference"]["families"] == ["relu"] and not relu["reference"]["recurrent"]


def test_syntax_error_is_a_fact():
    facts = facts_of("syntax_error")
    assert facts["syntax_error"]["line"] == 7 and facts["jit_functions"] == []


def test_analyze_over_the_protocol_keeps_the_interpreter_usable(worker):
    """analyze imports libdevice (in its child); a CPU evaluation afterwards must still run."""
    reply = worker.call("analyze", candidate_path=f"{CORPUS}/custom_tanh.py")
    assert reply["ok"], reply
    assert reply["result"]["jit_functions"][1]["libdevice_calls"] == ["libdevice.tanh"]
    missing = worker.call("analyze", candidate_path=f"{CORPUS}/nope.py")
    assert not missing["ok"] and "no such file" in missing["error"]
    result = worker.evaluate(f"{TASKS}/relu_tiny.py", f"{CORPUS}/relu_kernel.py",
                             input_sets=1, check_generalization=False)
    assert result["status"] == "ok", result["error"]


def test_runtime_counts_launches_on_cpu():
    facts = extract(f"{CORPUS}/relu_chunked_loop.py", f"{TASKS}/relu_tiny.py", runtime=True,
                    device="cpu")
    runtime = facts["runtime"]
    assert runtime["status"] == "ok", runtime
    assert runtime["method"] == "interpreter"
    assert runtime["launches_per_forward"] == 4  # one per row of the 4-row input
    assert runtime["kernels"] == [{"name": "relu_kernel", "calls_per_forward": 4,
                                   "time_share": None, "own": True}]


RUNTIME_ESCAPE = '''
import os
import socket

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.maximum(tl.load(x_ptr + offsets, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        try:
            with open(os.path.join(OUTSIDE, "pwned.txt"), "w") as handle:
                handle.write("pwned")
        except OSError:
            pass  # a refusal is a PermissionError: caught, the forward goes on
        with socket.create_connection(("127.0.0.1", PORT), timeout=2) as connection:
            connection.sendall(b"hello from a candidate")
        y = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
'''


def test_runtime_facts_run_the_candidate_under_the_trust_policy(tmp_path):
    # `analyze` with runtime: true imports and runs the candidate: the same audit policy as in
    # `evaluate` (trust.child_setup) must hold there, or facts become a way out of the sandbox.
    import socket
    outside = tmp_path / "outside"
    outside.mkdir()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.5)
    path = tmp_path / "escape.py"
    path.write_text(f"OUTSIDE = {str(outside)!r}\nPORT = {listener.getsockname()[1]}\n"
                    + RUNTIME_ESCAPE)
    try:
        facts = extract(str(path), f"{TASKS}/relu_tiny.py", runtime=True, device="cpu")
        with pytest.raises(socket.timeout):
            listener.accept()[0].close()  # nobody connected
    finally:
        listener.close()
    runtime = facts["runtime"]
    assert runtime["status"] == "error", runtime
    assert "tried to use the network" in runtime["error"]
    assert list(outside.iterdir()) == []
