"""Black-box: `kforge suite eval|run` reads the evaluation settings as `kforge eval` does (one
path, cli::read_eval_settings): a bad value fails before anything is created, naming the flag;
`--numerics strict` reaches the worker's request (an fp32 GEMM computed in fp16 operands is
`rejected` under strict, `ok` under tolerance, on the CPU under the Triton interpreter); `--json`
prints one JSON object, the suite's summary, on every suite subcommand."""

import json
import os
import pathlib
import shutil
import subprocess

import pytest

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
KFORGE = os.environ.get("KFORGE_BIN")
PYTHON = os.environ.get("KFORGE_PYTHON") or str(REPO / ".venv" / "bin" / "python3")
if not KFORGE or not os.path.exists(KFORGE):
    pytest.exit("KFORGE_BIN not set: build kforge first", returncode=125)

TASK = REPO / "worker" / "tests" / "tasks" / "gemm_exact.py"
FP16 = REPO / "worker" / "tests" / "candidates" / "matmul_fp16.py"


def environment():
    env = {k: v for k, v in os.environ.items() if not k.startswith("KFORGE_")}
    env.update(KFORGE_PYTHON=PYTHON, KFORGE_WORKER_DIR=str(REPO / "worker"), KINETO_LOG_LEVEL="5")
    return env


def kforge(*args, cwd, timeout=600):
    return subprocess.run([KFORGE, *args], capture_output=True, text=True, env=environment(),
                          timeout=timeout, cwd=cwd)


COMMANDS = {
    "eval": ["suite", "eval", "--tasks", str(TASK), "--candidates", str(TASK.parent)],
    "run": ["suite", "run", "--tasks", str(TASK), "--provider", "library"],
}
BAD = [
    (["--trials", "0"], "failed to read --trials: expected at least 1, got 0"),
    (["--timeout", "-1"], "failed to read --timeout: expected a positive number of seconds, got -1"),
    (["--warmup", "-2"], "failed to read --warmup: expected 0 or more, got -2"),
    (["--device", "gpu"], "failed to read --device: expected cuda or cpu, got gpu"),
    (["--precision", "loose"],
     "failed to read --precision: expected calibrated or kernelbench, got loose"),
    (["--numerics", "loose"], "failed to read --numerics: expected tolerance or strict, got loose"),
    # two workers time-slicing one GPU disturb each other's timings (docs/suite.md)
    (["--device", "cuda", "--gpus", "0,1,0"], "failed to read --gpus: GPU 0 is listed twice"),
]


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("flags,message", BAD)
def test_invalid_setting_exits_2_naming_the_flag(command, flags, message, tmp_path):
    done = kforge(*COMMANDS[command], *flags, cwd=tmp_path, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr, done.stderr
    assert not list(tmp_path.iterdir()), "no suite directory for an invalid setting"


def have_torch():
    return subprocess.run([PYTHON, "-c", "import torch, triton"],
                          capture_output=True).returncode == 0


def suite_eval(tmp_path, numerics):
    candidates = tmp_path / "candidates"
    candidates.mkdir(exist_ok=True)
    shutil.copy(FP16, candidates / "gemm_exact.py")
    suite_dir = tmp_path / f"suite_{numerics}"
    done = kforge("suite", "eval", "--tasks", str(TASK), "--candidates", str(candidates),
                  "--device", "cpu", "--shrink", "--timeout", "240", "--numerics", numerics,
                  "--suite-dir", str(suite_dir), "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, done.stdout  # one JSON object, nothing else on stdout
    return suite_dir, json.loads(lines[0])


@pytest.mark.skipif(not have_torch(), reason="no torch/triton")
def test_strict_numerics_reach_the_worker_and_json_is_the_summary(tmp_path):
    suite_dir, answer = suite_eval(tmp_path, "strict")
    assert answer["config"]["numerics"] == "strict"
    assert answer["suite_dir"] == str(suite_dir)
    assert answer["report"] == str(suite_dir / "report.html")
    assert answer["summary"] == str(suite_dir / "summary.md")
    assert answer["suite_json"] == str(suite_dir / "suite.json")
    assert answer["exit_code"] == 0
    assert answer["ranking"] == "unranked"
    [row] = answer["tasks"]
    assert row["id"] == "gemm_exact"
    assert row["status"] == "rejected", row
    assert any("--numerics strict" in reason for reason in row["reasons"]), row["reasons"]
    assert answer["fast_p"]["eager"]["0"]["fraction"] == 0.0
    evaluation = json.loads((suite_dir / "evals" / "gemm_exact.json").read_text())
    assert evaluation["numerics"]["policy"] == "strict"
    assert evaluation["status"] == "rejected"

    # The same candidate under tolerance (the default) is correct.
    _, tolerant = suite_eval(tmp_path, "tolerance")
    assert tolerant["tasks"][0]["status"] == "ok"
    assert tolerant["fast_p"]["eager"]["0"]["fraction"] == 1.0

    # suite report --json: the same summary from the journal, one object.
    done = kforge("suite", "report", str(suite_dir), "--json", cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["tasks"][0]["status"] == "rejected"
    assert report["config"]["numerics"] == "strict"
    assert report["report"] == str(suite_dir / "report.html")
