"""The shrink policy on KernelBench-shaped tasks: tuple constants follow the sizes they repeat,
the back-off ladder when a task does not run at the policy's shapes, and scalar (0-dim) outputs
compared and checked for constancy (docs/kernelbench.md)."""

import textwrap

import torch

from kforge_worker.correctness import Comparison, same_outputs
from kforge_worker.task_loader import load_task, shrink_overrides, shrink_plans


def write_task(tmp_path, body, name="task.py"):
    path = tmp_path / name
    path.write_text("import torch\nimport torch.nn as nn\n\n" + textwrap.dedent(body))
    return str(path)


# ---- the policy on tuples and lists -------------------------------------------------------------

def test_tuple_follows_the_constant_it_repeats():
    constants = {"batch_size": 128, "out_channels": 128, "kernel_size": 3,
                 "bias_shape": (128, 1, 1)}
    assert shrink_overrides(constants) == {"batch_size": 2, "out_channels": 16,
                                           "bias_shape": (16, 1, 1)}


def test_tuple_equal_to_the_batch_only_follows_it_in_the_second_plan():
    # 100_HingeLoss: input_shape = (32768,) is broadcast against targets of shape (batch_size,);
    # in 89_cumsum the same pair is a coincidence, and a row of 2 elements checks little.
    constants = {"batch_size": 32768, "input_shape": (32768,), "dim": 1}
    assert shrink_overrides(constants) == {"batch_size": 2, "input_shape": (16,)}
    assert shrink_plans(constants)[:3] == [{"batch_size": 2, "input_shape": (16,)},
                                           {"batch_size": 2, "input_shape": (2,)},
                                           {"batch_size": 4, "input_shape": (4,)}]


HINGE = """
class Model(nn.Module):
    def forward(self, predictions, targets):
        return torch.mean(torch.clamp(1 - predictions * targets, min=0))

batch_size = 32768
input_shape = (32768,)

def get_inputs():
    return [torch.rand(batch_size, *input_shape), torch.rand(batch_size)]

def get_init_inputs():
    return []
"""


def test_broadcast_against_the_batch_takes_the_second_plan(tmp_path):
    task = load_task(write_task(tmp_path, HINGE), shrink=True)
    assert task.shrink["step"] == 1 and task.shrink["backed_off"]
    assert task.applied == {"batch_size": 2, "input_shape": (2,)}
    cumsum = load_task(write_task(tmp_path, HINGE.replace(
        "torch.mean(torch.clamp(1 - predictions * targets, min=0))",
        "torch.cumsum(predictions, dim=1)"), "cumsum.py"), shrink=True)
    assert cumsum.shrink["step"] == 0 and cumsum.applied["input_shape"] == (16,)


def test_list_without_a_matching_constant_takes_the_generic_value():
    # 2_ShallowWideMLP: two 32768 x 32768 layers were 8 GB of parameters at "shrunk" shapes
    constants = {"batch_size": 128, "input_size": 16384, "hidden_layer_sizes": [32768, 32768],
                 "output_size": 16384}
    assert shrink_overrides(constants) == {"batch_size": 2, "input_size": 16,
                                           "hidden_layer_sizes": [16, 16], "output_size": 16}


def test_plans_grow_by_two_and_end_at_the_file_shapes():
    constants = {"batch_size": 10, "seq_length": 128, "d_model": 96, "d_state": 16,
                 "shape": (96, 3)}
    plans = shrink_plans(constants)
    assert plans == [
        {"batch_size": 2, "seq_length": 8, "d_model": 24, "shape": (24, 3)},
        {"batch_size": 4, "seq_length": 16, "d_model": 48, "shape": (48, 3)},
        {"batch_size": 8, "seq_length": 32},
        {"seq_length": 64},
        {}]


# ---- backing off ------------------------------------------------------------------------------

POOL = """
class Model(nn.Module):
    def __init__(self, kernel_size, dilation):
        super().__init__()
        self.pool = nn.MaxPool1d(kernel_size, stride=1, dilation=dilation)

    def forward(self, x):
        return self.pool(x)

batch_size = 64
features = 192
sequence_length = 65536
kernel_size = 8
dilation = 3

def get_inputs():
    return [torch.rand(batch_size, features, sequence_length)]

def get_init_inputs():
    return [kernel_size, dilation]
"""


def test_a_window_longer_than_the_shrunk_input_backs_off(tmp_path):
    task = load_task(write_task(tmp_path, POOL), shrink=True)
    shrink = task.shrink
    # the window spans 22 > 8: the sequence grows to 32, the rest goes back to the policy
    assert shrink["backed_off"] and shrink["step"] == 2
    assert shrink["applied"] == {"batch_size": 2, "features": 24, "sequence_length": 32}
    assert task.applied == shrink["applied"]
    assert "Invalid computed output size" in shrink["tried"][0]["error"]
    assert task.module.sequence_length == 32
    (x,) = task.inputs()
    assert list(task.model_class(*task.init_inputs())(x).shape) == [2, 24, 11]


def test_explicit_overrides_stay_on_top_of_the_back_off(tmp_path):
    task = load_task(write_task(tmp_path, POOL), shrink=True, overrides={"features": 5})
    assert task.shrink["applied"]["features"] == 5
    assert task.shrink["applied"]["sequence_length"] == 32


def test_policy_kept_and_reported_when_nothing_runs(tmp_path):
    body = """
    class Model(nn.Module):
        def forward(self, x):
            raise ValueError("never runs")

    batch_size = 64

    def get_inputs():
        return [torch.rand(batch_size, 4)]

    def get_init_inputs():
        return []
    """
    task = load_task(write_task(tmp_path, body), shrink=True)
    assert task.applied == {"batch_size": 2}
    assert task.shrink["failed"] and not task.shrink["backed_off"]
    assert [t["overrides"] for t in task.shrink["tried"]] == [
        {"batch_size": 2}, {"batch_size": 4}, {"batch_size": 8}, {"batch_size": 16},
        {"batch_size": 32}, {}]
    assert task.shrink["tried"][0]["error"] == "ValueError: never runs"


def test_a_model_meta_cannot_build_is_tried_for_real(tmp_path):
    # .item() in __init__ (the Swin tasks' drop-path rates) fails on the meta device; the plan
    # is then run on the CPU, and a size the model hard-codes is found by growing.
    body = """
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.rate = float(torch.linspace(0, 1, 3)[1].item())
            self.image_size = 224

        def forward(self, x):
            assert x.shape[-1] == self.image_size, "image size must match the model"
            return x * self.rate

    batch_size = 10
    image_size = 224

    def get_inputs():
        return [torch.rand(batch_size, 3, image_size)]

    def get_init_inputs():
        return []
    """
    task = load_task(write_task(tmp_path, body), shrink=True)
    assert task.shrink["backed_off"]
    assert task.shrink["applied"] == {"batch_size": 2}
    assert "image size must match" in task.shrink["tried"][0]["error"]


def test_a_plan_too_large_is_not_tried(tmp_path, monkeypatch):
    from kforge_worker import task_loader
    monkeypatch.setattr(task_loader, "TRIAL_BUDGET_BYTES", 4 * 24 * 24 * 2)
    body = """
    class Model(nn.Module):
        def forward(self, x):
            assert x.shape[-1] > 100
            return x

    batch_size = 10
    width = 1000

    def get_inputs():
        return [torch.rand(batch_size, width)]

    def get_init_inputs():
        return []
    """
    task = load_task(write_task(tmp_path, body), shrink=True)
    assert task.shrink["failed"]
    assert task.shrink["tried"][-1]["error"].startswith("not tried: ")
    assert task.applied == {"batch_size": 2, "width": 24}


def test_a_tuple_override_given_as_a_list_becomes_a_tuple(tmp_path):
    body = """
    class Model(nn.Module):
        def __init__(self, shape):
            super().__init__()
            self.bias = nn.Parameter(torch.zeros(shape))

        def forward(self, x):
            return x + self.bias

    channels = 64
    bias_shape = (channels, 1)

    def get_inputs():
        return [torch.rand(2, channels, 5)]

    def get_init_inputs():
        return [bias_shape]
    """
    task = load_task(write_task(tmp_path, body), overrides={"channels": 8, "bias_shape": [8, 1]})
    assert task.module.bias_shape == (8, 1)
    shrunk = load_task(write_task(tmp_path, body, "again.py"), shrink=True)
    assert shrunk.applied == {"channels": 16, "bias_shape": (16, 1)}
    assert shrunk.shrink["step"] == 0 and shrunk.shrink["applied"]["bias_shape"] == [16, 1]


# ---- scalar outputs ---------------------------------------------------------------------------

def test_scalar_outputs_compare_and_check_for_constancy():
    loss = torch.tensor(0.25)
    assert same_outputs([loss], [loss.clone()])
    assert not same_outputs([loss], [torch.tensor(0.5)])
    ok = Comparison()
    ok.add([loss.clone()], [loss], [loss.double()], "input set 0")
    assert ok.passed and ok.report()["max_abs_err"] == 0.0
    wrong = Comparison()
    wrong.add([torch.tensor(0.3)], [loss], [loss.double()], "input set 0")
    assert not wrong.passed
    assert wrong.first_failure.startswith("output 0 of 1 (shape []), input set 0: 1 of 1")
    assert "worst at index ()" in wrong.first_failure
    shape = Comparison()
    shape.add([torch.ones(1)], [loss], [loss.double()], "input set 0")
    assert shape.first_failure == "input set 0: output 0 has shape [1], expected []"


def test_tuple_with_a_scalar_output():
    want = [torch.tensor(1.5), torch.arange(6.0).reshape(2, 3)]
    comparison = Comparison()
    comparison.add([w.clone() for w in want], want, [w.double() for w in want], "set 0")
    assert comparison.passed


# ---- through the worker -----------------------------------------------------------------------

def test_scalar_output_tuple_and_back_off_through_the_worker(worker):
    # Before: `self.dim() cannot be 0 to view` (a worker error), bias_shape (128, 1) against 16
    # channels, and a window of 22 over a sequence of 8.
    from conftest import candidate, task_file
    result = worker.evaluate(task_file("scalar_loss_window"), candidate("reference_copy_scalar_loss"),
                             input_sets=2)
    assert result["status"] == "rejected", result["error"]
    assert result["correctness"]["pass_calibrated"], result["correctness"]
    assert result["correctness"]["max_abs_err"] == 0.0
    shapes = result["shapes"]
    assert shapes["channels"] == 16 and shapes["bias_shape"] == [16, 1]
    assert shapes["batch_size"] == 2 and shapes["sequence_length"] == 32


def test_inspect_reports_the_back_off(worker):
    from conftest import task_file
    reply = worker.call("inspect_task", task_path=task_file("scalar_loss_window"), shrink=True)
    assert reply["ok"], reply
    result = reply["result"]
    assert result["outputs"] == [{"shape": [], "dtype": "float32"}]
    assert result["shrunk"]["sequence_length"] == 32
    shrink = result["shrink"]
    assert shrink["backed_off"] and shrink["step"] == 2
    assert shrink["tried"][0]["overrides"]["sequence_length"] == 8
    assert "negative dimension -13" in shrink["tried"][0]["error"]  # get_inputs() itself
