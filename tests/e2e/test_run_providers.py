"""Black-box: any model behind one command (`--provider exec`, a shell script here), a recorded
real run replayed byte for byte (`--provider replay`), and `kforge rank` re-timing a run's correct
candidates (with tests/fake_worker.py, which times candidates on the CPU)."""

import json
import os
import pathlib
import shutil
import subprocess

import pytest

from run_support import (REPO, TASK, candidate, environment, only_run_dir, read_run,
                         require_prerequisites, run_kforge, KFORGE)

require_prerequisites()

SHARED = REPO.parent / "shared"
RECORDED = SHARED / "model_runs" / "level3_39_GRU_cpu_real_model"
GRU_TASK = SHARED / "kernelbench" / "level3" / "39_GRU.py"
EXEC_SECRET = "tok-exec-e2e-0123456789"


def test_exec_provider_runs_a_shell_script_as_the_model(tmp_path):
    (tmp_path / "seed.txt").write_text(
        "Here it is.\n\n```python\n" + candidate("gelu_flat") + "```\n")
    (tmp_path / "tune.txt").write_text("```python\n" + candidate("gelu_exp_tanh") + "```\n")
    script = tmp_path / "model.sh"
    script.write_text(
        "#!/bin/sh\n"
        "request=$(cat)\n"
        "printf '%s\\n' \"$request\" >> \"$MODEL_DIR/requests.jsonl\"\n"
        "case \"$request\" in\n"
        "  *'\"stage\":\"seed\"'*) cat \"$MODEL_DIR/seed.txt\" ;;\n"
        "  *) printf '{\"content\": %s, \"usage\": {\"prompt_tokens\": 1000, '"
        "'\"completion_tokens\": 200}}' \"$(python3 -c 'import json,sys; "
        "print(json.dumps(open(sys.argv[1]).read()))' \"$MODEL_DIR/tune.txt\")\" ;;\n"
        "esac\n")
    env = environment()
    env["MODEL_DIR"] = str(tmp_path)
    env["EXEC_E2E_TOKEN"] = EXEC_SECRET
    runs = tmp_path / "runs"
    result = subprocess.run(
        [KFORGE, "run", "--task", str(TASK), "--device", "cpu", "--shrink", "--provider", "exec",
         "--command", f"sh {script}", "--runs-dir", str(runs), "--seeds", "1", "--repairs", "0",
         "--analysis", "never", "--timeout", "240", "--request-timeout", "120,seed=60"],
        capture_output=True, text=True, env=env, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    run_dir = only_run_dir(runs)
    run = read_run(run_dir)
    assert run["config"]["provider"] == "exec"
    assert [c["stage"] for c in run["candidates"]] == ["seed", "tune_grid", "tune_tiling",
                                                       "tune_memory"]
    assert all(c["status"] == "ok" for c in run["candidates"])
    assert run["ranking"] == "unranked" and run["best_id"] is None
    assert "best: unranked (no timings): 4 correct candidates kept (#1, #2, #3, #4)" in \
        result.stdout
    requests = [json.loads(line) for line in (tmp_path / "requests.jsonl").read_text().splitlines()]
    assert [r["stage"] for r in requests] == ["seed", "tune_grid", "tune_tiling", "tune_memory"]
    assert requests[0]["task"] == "e2e_gelu" and requests[0]["messages"][0]["role"] == "system"
    assert "# Stage: seed 1 of 1" in requests[0]["messages"][1]["content"]
    # Usage from the JSON replies; the plain-text seed reply is estimated.
    tokens = {row["stage"]: row for row in run["tokens"]}
    assert tokens["tune_grid"]["prompt_tokens"] == 1000
    assert tokens["seed"]["completion_tokens"] > 0
    seed = json.loads((run_dir / "transcripts" / "1_seed.json").read_text())
    assert seed["provider"] == "exec" and seed["reply"]["content"].startswith("Here it is.")
    text = "\n".join(p.read_text(errors="replace") for p in run_dir.rglob("*") if p.is_file())
    assert EXEC_SECRET not in text


@pytest.mark.skipif(not RECORDED.is_dir() or not GRU_TASK.is_file(),
                    reason="../shared (the recorded GRU run and KernelBench) is not beside the "
                           "repository")
def test_replay_of_the_recorded_gru_run_writes_the_same_candidates(tmp_path):
    runs = tmp_path / "runs"
    result = run_kforge([KFORGE, "run", "--task", str(GRU_TASK), "--provider", "replay",
                         "--from", str(RECORDED), "--device", "cpu", "--shrink",
                         "--runs-dir", str(runs), "--timeout", "600"], timeout=1500)
    assert result.returncode == 0, result.stdout + result.stderr
    run_dir = only_run_dir(runs)
    run = read_run(run_dir)
    recorded = json.loads((RECORDED / "run.json").read_text())
    assert run["config"]["model"] == recorded["config"]["model"]
    assert [(c["id"], c["stage"], c["status"]) for c in run["candidates"]] == \
        [(c["id"], c["stage"], c["status"]) for c in recorded["candidates"]]
    for c in recorded["candidates"]:
        assert (run_dir / c["file"]).read_bytes() == (RECORDED / c["file"]).read_bytes(), c["file"]
    for path in sorted((RECORDED / "transcripts").iterdir()):
        replayed = json.loads((run_dir / "transcripts" / path.name).read_text())
        assert replayed["reply"]["content"] == json.loads(path.read_text())["reply"]["content"]
    # The tokens are the recorded ones.
    assert run["tokens"] == recorded["tokens"]
    # The recorded run predates parameter-only tuning of persistent kernels: kforge now asks for
    # tune_grid and tune_tiling of #1, which the recording does not hold; the replay says so and
    # the branch ends (the run goes on).
    assert (f"failed to replay {RECORDED} (stage tune_grid): the recorded run made no call "
            "5_tune_grid.json (it made 6: ") in result.stderr, result.stderr
    # The CPU run no longer pretends to rank: all four correct candidates are kept, unranked.
    assert run["ranking"] == "unranked" and run["best_id"] is None
    assert run["correct_ids"] == [1, 2, 3, 4]
    assert "best: unranked (no timings): 4 correct candidates kept (#1, #2, #3, #4)" in \
        result.stdout
    assert not (run_dir / "best.py").exists()


@pytest.mark.skipif(not RECORDED.is_dir(), reason="../shared is not beside the repository")
def test_replay_that_runs_out_of_recorded_calls_says_so(tmp_path):
    missing = tmp_path / "recorded"
    shutil.copytree(RECORDED, missing)
    os.chmod(missing / "transcripts", 0o755)
    (missing / "transcripts" / "4_optimise.json").unlink()
    result = run_kforge([KFORGE, "run", "--task", str(GRU_TASK), "--provider", "replay",
                         "--from", str(missing), "--device", "cpu", "--shrink",
                         "--runs-dir", str(tmp_path / "runs"), "--timeout", "600"], timeout=1500)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (f"failed to replay {missing} (stage optimise): the recorded run made no call "
            "4_optimise.json (it made 5: ") in result.stderr, result.stderr

    bad = run_kforge([KFORGE, "run", "--task", str(TASK), "--provider", "replay",
                      "--from", str(tmp_path / "nowhere"), "--device", "cpu"])
    assert bad.returncode == 2
    assert f"failed to read recorded run {tmp_path / 'nowhere'}: no such directory" in bad.stderr


def fake_worker_dir(tmp_path):
    """A worker folder whose kforge_worker package is tests/fake_worker.py."""
    package = tmp_path / "fake_worker" / "kforge_worker"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(REPO / 'tests')!r})\n"
        "import fake_worker\n"
        "raise SystemExit(fake_worker.main())\n")
    return package.parent


def unranked_run(tmp_path):
    """A CPU run's directory as `kforge run` leaves it: four candidates, three correct, unranked."""
    run_dir = tmp_path / "runs" / "20261124_020351_e2e_gelu_replay_slow-model"
    (run_dir / "candidates").mkdir(parents=True)
    medians = {1: 36.0, 2: 12.0, 3: 18.0}
    candidates = []
    for cid, stage in [(1, "seed"), (2, "seed"), (3, "optimise"), (4, "optimise")]:
        source = candidate("gelu_flat")
        if cid in medians:
            source = f"# fake_median_ms: {medians[cid]}\n" + source
        (run_dir / "candidates" / f"{cid}_{stage}.py").write_text(source)
        candidates.append({"id": cid, "stage": stage, "key": f"{stage}{cid}",
                           "file": f"candidates/{cid}_{stage}.py",
                           "status": "ok" if cid in medians else "wrong_output",
                           "score": None, "latency_ms": None, "max_abs_err": 1e-7,
                           "note": "correct, unranked (no timing)" if cid in medians else ""})
    run = {"id": run_dir.name, "config": {"task": str(TASK), "device": "cpu", "shrink": True,
                                          "provider": "replay", "model": "slow-model"},
           "task_name": "e2e_gelu", "state": "finished", "candidates": candidates,
           "best_id": None, "ranking": "unranked"}
    (run_dir / "run.json").write_text(json.dumps(run, indent=2))
    return run_dir


def test_rank_retimes_the_correct_candidates_and_writes_the_real_best(tmp_path):
    run_dir = unranked_run(tmp_path)
    result = run_kforge([KFORGE, "rank", str(run_dir), "--device", "cpu",
                         "--worker-dir", str(fake_worker_dir(tmp_path))])
    assert result.returncode == 0, result.stdout + result.stderr
    run = read_run(run_dir)
    assert run["ranking"] == "ranked" and run["best_id"] == 2
    assert [e["id"] for e in run["rank"]["entries"]] == [2, 3, 1]  # fastest first; #4 was wrong
    assert run["rank"]["device_name"] == "Fake GPU"
    assert (run_dir / "best.py").read_text() == (run_dir / "candidates" / "2_seed.py").read_text()
    by_id = {c["id"]: c for c in run["candidates"]}
    assert by_id[2]["latency_ms"] == 12.0 and by_id[4]["score"] is None
    summary = (run_dir / "summary.md").read_text()
    assert "## Ranking" in summary and "| 1 | #2 | 1.7250 | 12.000 |" in summary
    assert "(ranked by `kforge rank`); copied to best.py" in summary
    assert "best: #2 seed -> " in result.stdout

    # A run without a correct candidate, and no run at all, are bad input.
    none = run_kforge([KFORGE, "rank", str(tmp_path / "nowhere"), "--device", "cpu"])
    assert none.returncode == 2 and "failed to open run" in none.stderr


def test_rank_of_a_run_moved_to_another_machine_takes_the_task_where_it_is_now(tmp_path):
    # A CPU run ranked on a GPU box: the recorded absolute task path does not exist there.
    run_dir = unranked_run(tmp_path)
    run = read_run(run_dir)
    run["config"]["task"] = "/home/someone/else/e2e_gelu.py"
    (run_dir / "run.json").write_text(json.dumps(run, indent=2))
    worker_dir = str(fake_worker_dir(tmp_path))
    lost = run_kforge([KFORGE, "rank", str(run_dir), "--device", "cpu", "--worker-dir", worker_dir])
    assert lost.returncode == 2
    assert ("its task /home/someone/else/e2e_gelu.py does not exist here (name where it is now "
            "with --task)") in lost.stderr
    moved = run_kforge([KFORGE, "rank", str(run_dir), "--device", "cpu", "--task", str(TASK),
                        "--worker-dir", worker_dir])
    assert moved.returncode == 0, moved.stdout + moved.stderr
    assert read_run(run_dir)["best_id"] == 2
