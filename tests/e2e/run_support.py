"""Helpers for the `kforge run` e2e suites: the built binary, the real worker on the CPU
(Triton interpreter, shrunk shapes), the scripted fake model server, and run-directory readers."""

import json
import os
import pathlib
import signal
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))

from fake_model_server import FakeModelServer  # noqa: E402

KFORGE = os.environ.get("KFORGE_BIN")
PYTHON = os.environ.get("KFORGE_PYTHON") or str(REPO / ".venv" / "bin" / "python3")
TASK = REPO / "tasks" / "e2e_gelu.py"
SECRET = "sk-e2e-run-secret-0123456789"


def require_prerequisites():
    """Skips the whole suite (exit 125) when the binary or the worker's Python is missing."""
    if not KFORGE or not os.path.exists(KFORGE):
        pytest.exit("KFORGE_BIN not set: build kforge first", returncode=125)
    probe = subprocess.run([PYTHON, "-c", "import torch, triton"], capture_output=True)
    if probe.returncode != 0:
        pytest.exit(f"{PYTHON} lacks torch or triton", returncode=125)


def candidate(name):
    """A real Triton candidate from tests/e2e/candidates/."""
    return (HERE / "candidates" / f"{name}.py").read_text()


def code_reply(name, prose="Here is the implementation."):
    return f"{prose}\n\n```python\n{candidate(name)}```\n"


def diagnosis_reply(complexity="low", kernel_type="elementwise", worth="yes"):
    body = {
        "worth_optimizing": worth,
        "reason": "one launch, memory-bound, little left to gain",
        "bottleneck": "memory bandwidth: one read and one write per element",
        "optimisation_method": "fusion and wider blocks",
        "modification_plan": "1) keep one kernel 2) use BLOCK=1024",
        "expected_speedup": "1.1x",
        "implementation_complexity": complexity,
        "kernel_type": kernel_type,
    }
    return "My analysis:\n```json\n" + json.dumps(body, indent=2) + "\n```\n"


def environment():
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["KFORGE_API_KEY"] = SECRET
    env["KFORGE_PYTHON"] = PYTHON
    env["HOME"] = "/nonexistent"
    for name in ("KFORGE_CONFIG", "XDG_CONFIG_HOME", "KFORGE_PROVIDER", "KFORGE_MODEL",
                 "KFORGE_BASE_URL", "KFORGE_RUNS_DIR", "KFORGE_DEVICE"):
        env.pop(name, None)
    return env


def run_args(server, runs_dir, *extra):
    return [KFORGE, "run", "--task", str(TASK), "--device", "cpu", "--shrink",
            "--provider", "openai", "--model", "fake-coder", "--base-url", server.base_url,
            "--runs-dir", str(runs_dir), "--timeout", "240", *extra]


def run_kforge(args, timeout=900):
    return subprocess.run(args, capture_output=True, text=True, env=environment(),
                          timeout=timeout)


def start_kforge(args):
    """Starts kforge in its own process group (so a kill takes its workers along)."""
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=environment(), start_new_session=True)


def kill_group(process):
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=60)


def only_run_dir(runs_dir):
    dirs = [p for p in pathlib.Path(runs_dir).iterdir() if p.is_dir()]
    assert len(dirs) == 1, dirs
    return dirs[0]


def read_run(run_dir):
    return json.loads((run_dir / "run.json").read_text())


def stage_prompts(server, prefix):
    """The user messages of requests whose stage heading starts with `prefix`."""
    return [r["user"] for r in server.requests if r["stage"].startswith(prefix)]


def all_text(run_dir):
    """Every file of the run directory, concatenated (for secret scans)."""
    chunks = []
    for path in sorted(run_dir.rglob("*")):
        if path.is_file():
            chunks.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(chunks)


@pytest.fixture()
def server():
    fake = FakeModelServer()
    fake.start()
    yield fake
    fake.stop()
