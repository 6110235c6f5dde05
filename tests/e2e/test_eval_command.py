"""Black-box: `kforge eval` and `kforge baseline` against the real worker in CPU mode
(TRITON_INTERPRET=1, --shrink): exit codes, the readable summary, --json, start failures."""

import json
import os
import subprocess

import pytest

KFORGE = os.environ.get("KFORGE_BIN")
if not KFORGE or not os.path.exists(KFORGE):
    pytest.exit("KFORGE_BIN not set: build kforge first", returncode=125)
PYTHON = os.environ.get("KFORGE_PYTHON", "python3")
if subprocess.run([PYTHON, "-c", "import torch, triton"], capture_output=True).returncode != 0:
    pytest.exit(f"{PYTHON} lacks torch or triton", returncode=125)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOFTMAX = os.path.join(REPO, "tasks", "softmax.py")
GOOD = os.path.join(REPO, "library", "softmax", "candidate.py")
BROKEN = os.path.join(REPO, "worker", "tests", "candidates")


def kforge(*args, env=None):
    full_env = {**os.environ, "KFORGE_PYTHON": PYTHON, **(env or {})}
    return subprocess.run([KFORGE, *args], capture_output=True, text=True, env=full_env,
                          timeout=300, cwd=REPO)


def cpu_eval(candidate, *extra, env=None):
    return kforge("eval", "--task", SOFTMAX, "--candidate", candidate, "--device", "cpu",
                  "--shrink", "--timeout", "60", *extra, env=env)


def test_correct_candidate_exits_0_without_speedup():
    result = cpu_eval(GOOD)
    assert result.returncode == 0, result.stderr
    assert "status        ok" in result.stdout
    assert "calibrated pass, kernelbench pass" in result.stdout
    assert "not measured in CPU mode" in result.stdout
    for word in ("score", "speed", "x vs"):
        assert word not in result.stdout


def test_json_is_one_object_with_kforge_fields():
    result = cpu_eval(GOOD, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "ok"
    assert report["score"] is None and report["speedup_vs_best_baseline"] is None
    assert report["correctness"]["pass_calibrated"] is True
    assert report["kforge"]["correct"] is True
    assert report["kforge"]["exit_code"] == 0
    assert report["kforge"]["device"] == "cpu"
    assert report["kforge"]["worker"]["interpret"] is True


@pytest.mark.parametrize("candidate,status", [
    ("softmax_wrong.py", "wrong_output"),
    ("softmax_syntax_error.py", "syntax_error"),
    ("crash_segfault.py", "crashed"),
])
def test_incorrect_candidates_exit_1(candidate, status):
    result = cpu_eval(os.path.join(BROKEN, candidate), "--json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == status
    assert report["error"]
    assert report["kforge"]["correct"] is False


def test_missing_files_exit_2():
    result = kforge("eval", "--task", "no/such/task.py", "--candidate", GOOD, "--device", "cpu")
    assert result.returncode == 2
    assert "failed to read task no/such/task.py: no such file" in result.stderr
    result = kforge("eval", "--task", SOFTMAX, "--candidate", GOOD, "--device", "gpu")
    assert result.returncode == 2
    assert "expected cuda or cpu, got gpu" in result.stderr


def test_malformed_task_exits_2_with_the_workers_reason():
    task = os.path.join(REPO, "worker", "tests", "tasks", "no_get_inputs.py")
    result = kforge("eval", "--task", task, "--candidate", GOOD, "--device", "cpu")
    assert result.returncode == 2
    assert "no get_inputs() defined" in result.stderr


def test_worker_that_cannot_start_exits_3(tmp_path):
    package = tmp_path / "kforge_worker"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text("raise ModuleNotFoundError(\"No module named 'torch'\")\n")
    result = cpu_eval(GOOD, "--worker-dir", str(tmp_path))
    assert result.returncode == 3
    assert "failed to start worker: " in result.stderr
    assert "-m kforge_worker exited 1: ModuleNotFoundError: No module named 'torch'" in result.stderr

    result = cpu_eval(GOOD, "--python", "/nonexistent/python3")
    assert result.returncode == 3
    assert "failed to find python: /nonexistent/python3" in result.stderr


def test_baseline_in_cpu_mode_is_refused():
    result = kforge("baseline", "--task", SOFTMAX, "--device", "cpu")
    assert result.returncode == 2
    assert "CPU mode has no timings" in result.stderr


def test_secrets_do_not_reach_the_worker(tmp_path):
    # A fake worker package that reports what it sees; the pool must strip credential variables.
    package = tmp_path / "kforge_worker"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(
        "import json, os, sys\n"
        "for line in sys.stdin:\n"
        "    r = json.loads(line)\n"
        "    if r['op'] == 'hello':\n"
        "        res = {'torch': 'x', 'device': None, 'interpret': True,\n"
        "               'worker_version': json.dumps(sorted(k for k in os.environ\n"
        "                                                   if 'SECRET' in k or 'KEY' in k))}\n"
        "    elif r['op'] == 'evaluate':\n"
        "        res = {'status': 'ok'}\n"
        "    else:\n"
        "        res = {}\n"
        "    print(json.dumps({'id': r['id'], 'ok': True, 'result': res}), flush=True)\n"
        "    if r['op'] == 'shutdown':\n"
        "        break\n")
    result = cpu_eval(GOOD, "--worker-dir", str(tmp_path), "--json",
                      env={"DEEPSEEK_API_KEY": "sk-1", "MY_SECRET": "s", "KFORGE_PLAIN": "p"})
    assert result.returncode == 0, result.stderr
    seen = json.loads(json.loads(result.stdout)["kforge"]["worker"]["worker_version"])
    assert seen == []


def test_the_config_file_is_hidden_from_candidates(tmp_path):
    # A config holding an API key, outside any home directory (the sandbox hides homes anyway):
    # kforge names it to its workers, and the candidate, which tries to print it, reads nothing.
    folder = os.path.join(os.path.dirname(os.path.abspath(KFORGE)), f"e2e-config-{os.getpid()}")
    os.makedirs(folder, exist_ok=True)
    config = os.path.join(folder, "kforge.toml")
    with open(config, "w") as handle:
        handle.write('provider = "openai"\napi_key = "sk-config-canary-1234"\n')
    candidate = tmp_path / "reads_config.py"
    with open(GOOD) as handle:
        candidate.write_text(f"try:\n    print('config:', repr(open({config!r}).read()))\n"
                             f"except OSError as error:\n    print('config:', error)\n" +
                             handle.read())
    try:
        result = cpu_eval(str(candidate), "--config", config, "--json")
    finally:
        os.remove(config)
        os.rmdir(folder)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert "config: [Errno 13] Permission denied" in report["output_tail"]
    assert "sk-config-canary" not in result.stdout + result.stderr
