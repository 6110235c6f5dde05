"""Black-box: `kforge suite eval` over the public KernelBench level-1 folder (../shared/kernelbench,
used in place) with a small folder of real Triton candidates (tests/e2e/suite_candidates: a correct
one named after its task, one in KernelBench's level{L}_problem{N}_sample{S} layout, a wrong one, a
compile error, one the trust guard rejects); every other task has no candidate and is a `missing`
row. On the CPU under the Triton interpreter at shrunk shapes: correctness only, so the report must
say "unranked / no timings". Killed mid-way and resumed, every task appears once. Then two shards
of a small suite in one directory, merged."""

import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

import pytest

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
LEVEL1 = REPO.parent / "shared" / "kernelbench" / "level1"
CANDIDATES = HERE / "suite_candidates"
KFORGE = os.environ.get("KFORGE_BIN")
PYTHON = os.environ.get("KFORGE_PYTHON") or str(REPO / ".venv" / "bin" / "python3")

if not LEVEL1.is_dir():
    pytest.exit(f"no KernelBench files at {LEVEL1}", returncode=125)
if not KFORGE or not os.path.exists(KFORGE):
    pytest.exit("KFORGE_BIN not set: build kforge first", returncode=125)
if subprocess.run([PYTHON, "-c", "import torch, triton"], capture_output=True).returncode != 0:
    pytest.exit(f"{PYTHON} lacks torch or triton", returncode=125)

EXPECTED = {"19_ReLU": "ok", "20_LeakyReLU": "wrong_output", "21_Sigmoid": "ok",
            "22_Tanh": "compile_error", "32_HardTanh": "rejected"}


def environment():
    env = {k: v for k, v in os.environ.items() if not k.startswith("KFORGE_SUITE")}
    env.update(KFORGE_PYTHON=PYTHON, KFORGE_WORKER_DIR=str(REPO / "worker"), KINETO_LOG_LEVEL="5")
    env.pop("KFORGE_DEVICE", None)
    return env


def suite_args(suite_dir, *extra, tasks=None):
    return [KFORGE, "suite", "eval", "--tasks", str(tasks or LEVEL1), "--candidates",
            str(CANDIDATES), "--device", "cpu", "--shrink", "--timeout", "240",
            "--suite-dir", str(suite_dir), *extra]


def journal_rows(path):
    """Task ids of the journal's task lines, in order (a torn last line skipped)."""
    ids = []
    for line in pathlib.Path(path).read_text().splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if entry.get("kind") == "task":
            ids.append(entry["result"]["id"])
    return ids


def test_eval_level1_killed_and_resumed_every_task_once(tmp_path):
    suite_dir = tmp_path / "suite"
    journal = suite_dir / "journal.jsonl"
    process = subprocess.Popen(suite_args(suite_dir), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=environment(),
                               start_new_session=True, cwd=REPO)
    # Kill it once the first real evaluation is journaled (the rows before it are quick
    # `missing` ones), while the next candidates are still to be evaluated.
    deadline = time.time() + 600
    while time.time() < deadline and process.poll() is None:
        if journal.exists() and "19_ReLU" in journal_rows(journal):
            break
        time.sleep(0.2)
    assert process.poll() is None, process.communicate()
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=60)
    before = journal_rows(journal)
    assert "19_ReLU" in before and "32_HardTanh" not in before
    assert len(before) == len(set(before))

    result = subprocess.run(suite_args(suite_dir), capture_output=True, text=True,
                            env=environment(), timeout=900, cwd=REPO)
    assert result.returncode == 0, result.stderr[-4000:]
    assert "resuming:" in result.stderr
    assert "state: finished" in result.stdout
    after = journal_rows(journal)
    task_files = sorted(p.stem for p in LEVEL1.glob("*.py"))
    assert sorted(after) == task_files  # every task once: none twice, none lost
    assert after[:len(before)] == before  # nothing done before the kill was done again

    suite = json.loads((suite_dir / "suite.json").read_text())
    rows = {row["id"]: row for row in suite["tasks"]}
    assert len(suite["tasks"]) == len(task_files) == len(rows)
    for task_id, status in EXPECTED.items():
        assert rows[task_id]["status"] == status, (task_id, rows[task_id])
    assert rows["21_Sigmoid"]["candidate"].endswith("level1_problem21_sample0.py")
    assert rows["32_HardTanh"]["reasons"], rows["32_HardTanh"]
    assert "tanh" in rows["22_Tanh"]["error_head"]
    missing = [r for r in suite["tasks"] if r["status"] == "missing"]
    assert len(missing) == len(task_files) - len(EXPECTED)
    assert suite["ranking"] == "unranked" and suite["timed"] is False
    assert suite["fast_p"]["eager"]["0"] == {"count": 2, "total": 100, "fraction": 0.02}
    assert suite["fast_p"]["eager"]["1"]["fraction"] is None
    assert all(r["best_ms"] is None and r["speedup_eager"] is None for r in suite["tasks"])

    summary = (suite_dir / "summary.md").read_text()
    assert "| fast_0 | 0.020 (2/100) |" in summary
    assert "| fast_1 | unranked / no timings |" in summary
    assert "### missing (95)" in summary and "### compile_error (1)" in summary
    html = (suite_dir / "report.html").read_text()
    assert html.count("<svg") >= 3 and "<script" not in html
    assert (suite_dir / "evals" / "19_ReLU.json").exists()

    # The reports can be rebuilt from the journal alone.
    os.remove(suite_dir / "suite.json")
    again = subprocess.run([KFORGE, "suite", "report", str(suite_dir)], capture_output=True,
                           text=True, env=environment(), timeout=60)
    assert again.returncode == 0, again.stderr
    assert json.loads((suite_dir / "suite.json").read_text())["fast_p"] == suite["fast_p"]


def test_two_shards_in_one_directory_then_merge(tmp_path):
    suite_dir = tmp_path / "sharded"
    tasks = ",".join(str(LEVEL1 / name) for name in
                     ("19_ReLU.py", "21_Sigmoid.py", "1_Square_matrix_multiplication_.py",
                      "23_Softmax.py"))
    for shard in (0, 1):
        result = subprocess.run(
            suite_args(suite_dir, "--shards", "2", "--shard", str(shard), tasks=tasks),
            capture_output=True, text=True, env=environment(), timeout=600, cwd=REPO)
        assert result.returncode == 0, result.stderr[-4000:]
        assert f"shard: {shard} of 2" in result.stdout
    assert not (suite_dir / "suite.json").exists()  # shards leave the report to merge
    shard0 = journal_rows(suite_dir / "journal.shard-0-of-2.jsonl")
    shard1 = journal_rows(suite_dir / "journal.shard-1-of-2.jsonl")
    assert not set(shard0) & set(shard1) and len(shard0) + len(shard1) == 4

    merged = subprocess.run([KFORGE, "suite", "merge", str(suite_dir)], capture_output=True,
                            text=True, env=environment(), timeout=60)
    assert merged.returncode == 0, merged.stderr
    assert "tasks: 4 (2 correct, 0 not run)" in merged.stdout
    suite = json.loads((suite_dir / "suite.json").read_text())
    assert suite["state"] == "merged"
    assert sorted(r["id"] for r in suite["tasks"]) == sorted(shard0 + shard1)
    assert {r["id"]: r["shard"] for r in suite["tasks"]}["19_ReLU"] in (0, 1)

    # A shard directory copied elsewhere merges the same way; a lost shard shows as not_run.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(suite_dir / "journal.shard-1-of-2.jsonl", elsewhere)
    out = tmp_path / "out"
    partial = subprocess.run([KFORGE, "suite", "merge", str(elsewhere), "--suite-dir", str(out)],
                             capture_output=True, text=True, env=environment(), timeout=60)
    assert partial.returncode == 1, partial.stdout + partial.stderr
    assert f"(not run)" not in partial.stdout
    rows = json.loads((out / "suite.json").read_text())["tasks"]
    assert sorted(r["id"] for r in rows if r["status"] == "not_run") == sorted(shard0)
