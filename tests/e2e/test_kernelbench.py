"""Black-box: the public KernelBench files, unmodified (../shared/kernelbench beside the clone),
each with its own reference renamed ModelNew as the candidate, on the CPU at shrunk shapes
(docs/kernelbench.md). The reference must run on both sides, so the verdict is `rejected` for
calling the reference's operators: never a runtime error of the harness.

Three tasks through `kforge eval` (a scalar loss, a window that makes shrink back off, a tuple
constant that follows the size it repeats). Every task through one warm worker is CTest's
kernelbench_level1..3 (tests/kernelbench_sweep.py --levels ...), one entry per level."""

import json
import os
import re
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNELBENCH = os.path.join(REPO, "..", "shared", "kernelbench")
if not os.path.isdir(os.path.join(KERNELBENCH, "level1")):
    pytest.exit(f"no KernelBench files at {os.path.normpath(KERNELBENCH)}", returncode=125)
KFORGE = os.environ.get("KFORGE_BIN")
if not KFORGE or not os.path.exists(KFORGE):
    pytest.exit("KFORGE_BIN not set: build kforge first", returncode=125)
PYTHON = os.environ.get("KFORGE_PYTHON", sys.executable)
if subprocess.run([PYTHON, "-c", "import torch, triton"], capture_output=True).returncode != 0:
    pytest.exit(f"{PYTHON} lacks torch or triton", returncode=125)


def reference_as_candidate(task, folder):
    with open(os.path.join(REPO, task), encoding="utf-8") as handle:
        text = re.sub(r"\bModel\b", "ModelNew", handle.read())
    path = os.path.join(folder, "candidate.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


@pytest.mark.parametrize("task,shapes", [
    ("level1/94_MSELoss.py", {"batch_size": 2, "input_shape": [16]}),
    ("level1/41_Max_Pooling_1D.py", {"batch_size": 2, "sequence_length": 16}),
    ("level2/1_Conv2D_ReLU_BiasAdd.py", {"out_channels": 16, "bias_shape": [16, 1, 1]}),
])
def test_kforge_eval_runs_the_reference_on_both_sides(task, shapes, tmp_path):
    task = os.path.join("..", "shared", "kernelbench", task)
    candidate = reference_as_candidate(task, str(tmp_path))
    env = {**os.environ, "KFORGE_PYTHON": PYTHON, "KFORGE_WORKER_DIR": os.path.join(REPO, "worker"),
           "KINETO_LOG_LEVEL": "5"}
    result = subprocess.run([KFORGE, "eval", "--task", task, "--candidate", candidate,
                             "--device", "cpu", "--shrink", "--json"], capture_output=True,
                            text=True, env=env, timeout=300, cwd=REPO)
    assert result.stdout, result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "rejected", report.get("error")
    assert any("called the operator it replaces" in r for r in report["reasons"])
    assert {name: report["shapes"][name] for name in shapes} == shapes

