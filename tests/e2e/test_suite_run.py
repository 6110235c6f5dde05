"""Black-box: `kforge suite run`, the pipeline over every task of a suite, on the CPU (Triton
interpreter, shrunk shapes). With the offline library provider over two tasks; then with the
scripted model server, a suite token budget that stops the suite after its first task, and a
resume with a larger budget that finishes the other without asking the model again for the
first."""

import json
import pathlib

import pytest

from run_support import (FakeModelServer, REPO, code_reply, require_prerequisites, run_kforge)

require_prerequisites()

TASKS = REPO / "tasks"


def journal_rows(path):
    ids = []
    for line in pathlib.Path(path).read_text().splitlines():
        entry = json.loads(line)
        if entry.get("kind") == "task":
            ids.append(entry["result"]["id"])
    return ids


def suite_run(suite_dir, tasks, *extra):
    from run_support import KFORGE
    return [KFORGE, "suite", "run", "--tasks", ",".join(str(TASKS / t) for t in tasks),
            "--device", "cpu", "--shrink", "--timeout", "240", "--suite-dir", str(suite_dir),
            *extra]


def test_library_provider_over_two_tasks(tmp_path):
    suite_dir = tmp_path / "suite"
    result = run_kforge(suite_run(suite_dir, ["gelu.py", "softmax.py"], "--provider", "library"))
    assert result.returncode == 0, result.stderr[-4000:]
    assert "tasks: 2 done of 2, 2 correct" in result.stdout
    suite = json.loads((suite_dir / "suite.json").read_text())
    assert [r["status"] for r in suite["tasks"]] == ["ok", "ok"]
    for row in suite["tasks"]:
        run_dir = suite_dir / row["run_dir"]
        assert (run_dir / "run.json").exists() and (run_dir / "summary.md").exists()
        assert row["pass_kernelbench"] is True
    assert (suite_dir / "runs" / "index.sqlite").exists()
    # Run again: everything is in the journal, nothing is redone.
    again = run_kforge(suite_run(suite_dir, ["gelu.py", "softmax.py"], "--provider", "library"))
    assert again.returncode == 0, again.stderr[-4000:]
    assert "resuming: 2 of 2 tasks already done, 0 to go" in again.stderr
    assert journal_rows(suite_dir / "journal.jsonl") == ["gelu", "softmax"]


def test_library_provider_on_two_slots_uses_each_slots_own_worker(tmp_path):
    # `--gpus 0,0` on the CPU: two slots, a worker each. The library provider inspects each task
    # through the worker of the slot running it (the first slot's made the second wait).
    suite_dir = tmp_path / "suite"
    result = run_kforge(suite_run(suite_dir, ["gelu.py", "softmax.py"], "--provider", "library",
                                  "--gpus", "0,0"))
    assert result.returncode == 0, result.stderr[-4000:]
    assert "tasks: 2 done of 2, 2 correct" in result.stdout
    assert "2 slot(s)" in result.stderr
    for slot in (0, 1):
        assert (suite_dir / "logs" / f"slot-{slot}" / "worker-0.log").exists()


def test_suite_token_budget_stops_then_resume_finishes(tmp_path):
    server = FakeModelServer([{"match": "", "reply": code_reply("gelu_flat"),
                               "usage": {"prompt_tokens": 300, "completion_tokens": 200}}])
    server.start()
    try:
        suite_dir = tmp_path / "suite"
        model = ["--provider", "openai", "--model", "fake-coder", "--base-url", server.base_url,
                 "--seeds", "1", "--repairs", "0", "--analysis", "never",
                 "--max-candidates", "1"]
        tasks = ["e2e_gelu.py", "gelu.py"]
        first = run_kforge(suite_run(suite_dir, tasks, *model, "--suite-budget-tokens", "100"))
        assert first.returncode == 1, first.stdout + first.stderr[-4000:]
        assert "no more tasks start: suite token budget of 100 spent (500 used)" in first.stderr
        suite = json.loads((suite_dir / "suite.json").read_text())
        assert suite["state"] == "stopped"
        assert [r["status"] for r in suite["tasks"]] == ["ok", "not_run"]
        assert suite["tasks"][0]["tokens"] == 500
        assert len(server.requests) == 1

        second = run_kforge(suite_run(suite_dir, tasks, *model, "--suite-budget-tokens", "5000"))
        assert second.returncode == 0, second.stderr[-4000:]
        assert len(server.requests) == 2  # only the second task asked the model
        assert journal_rows(suite_dir / "journal.jsonl") == ["e2e_gelu", "gelu"]
        suite = json.loads((suite_dir / "suite.json").read_text())
        assert suite["state"] == "finished"
        assert [r["status"] for r in suite["tasks"]] == ["ok", "ok"]
        assert sum(r["tokens"] for r in suite["tasks"]) == 1000
    finally:
        server.stop()
