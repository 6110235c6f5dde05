"""Black-box: `kforge analyze` over the real worker (CPU), on the analysis corpus."""

import json
import os
import subprocess

import pytest

KFORGE = os.environ.get("KFORGE_BIN")
if not KFORGE or not os.path.exists(KFORGE):
    pytest.exit("KFORGE_BIN not set: build kforge first", returncode=125)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = "tests/analysis/corpus"
TASKS = "tests/analysis/tasks"


def analyze(*args):
    env = {**os.environ}
    if os.environ.get("KFORGE_PYTHON"):
        env["KFORGE_PYTHON"] = os.environ["KFORGE_PYTHON"]
    return subprocess.run([KFORGE, "analyze", *args, "--device", "cpu"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_race_prints_a_located_error_and_exits_1():
    done = analyze(f"{CORPUS}/gru_persistent_race.py", "--task", f"{TASKS}/gru_tiny.py")
    assert done.returncode == 1, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith(f"{CORPUS}/gru_persistent_race.py:30: error: cross-program recurrence")
    assert first.endswith("[missing-grid-barrier]")
    assert "        for t in range(0, T):" in done.stdout
    assert "  hint: " in done.stdout
    assert done.stdout.rstrip().splitlines()[-1].startswith(
        "classification: kernel_type=persistent_recurrent persistent=yes")


def test_json_with_runtime_measures_launches():
    done = analyze(f"{CORPUS}/gru_python_time_loop.py", "--task", f"{TASKS}/gru_tiny.py",
                   "--runtime", "--json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    rules = [d["rule"] for d in report["diagnostics"]]
    assert rules == ["python-time-loop", "launch-count"]
    assert report["launches_per_forward"] == 34
    assert report["persistent"] is False


def test_clean_candidate_exits_0_and_bad_arguments_exit_2():
    done = analyze(f"{CORPUS}/relu_kernel.py", "--task", f"{TASKS}/relu_tiny.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "kernel_type=elementwise" in done.stdout
    missing = analyze(f"{CORPUS}/does_not_exist.py")
    assert missing.returncode == 2
    assert "does_not_exist.py" in missing.stderr
    no_task = analyze(f"{CORPUS}/relu_kernel.py", "--runtime")
    assert no_task.returncode == 2 and "--runtime needs --task" in no_task.stderr
