"""Black-box: `kforge run --resume` after the run was killed (SIGKILL) in the middle of a model
call: finished model calls and evaluations are replayed from the journal, not redone."""

import time

from run_support import (code_reply, diagnosis_reply, kill_group, only_run_dir, read_run,
                         require_prerequisites, run_args, run_kforge, server,  # noqa: F401
                         start_kforge)

require_prerequisites()


def script(hang_analysis):
    return [
        {"match": "# Stage: seed", "reply": code_reply("gelu_tl_tanh")},
        {"match": "# Stage: repair", "reply": code_reply("gelu_flat")},
        {"match": "# Stage: algorithm analysis", "reply": diagnosis_reply(), "hang": hang_analysis},
        {"match": "# Stage: optimise", "reply": code_reply("gelu_exp_tanh")},
        {"match": "# Stage: tuning", "reply": code_reply("gelu_rounded")},
    ]


def test_resume_after_a_kill_redoes_nothing_that_finished(server, tmp_path):
    runs = tmp_path / "runs"
    server.set_script(script(hang_analysis=True))
    process = start_kforge(run_args(server, runs, "--seeds", "1", "--repairs", "1"))
    try:
        assert server.wait_for(
            lambda requests: any(r["stage"].startswith("algorithm analysis") for r in requests),
            timeout=300), [r["stage"] for r in server.requests]
        time.sleep(0.5)
    finally:
        kill_group(process)
    run_dir = only_run_dir(runs)
    first = read_run(run_dir)
    assert first["state"] == "running"  # killed: never finished
    assert [c["key"] for c in first["candidates"]] == ["seed1", "seed1.r1"]
    console_before = (run_dir / "console.log").read_text()
    assert console_before.count("evaluating") == 2
    before = [r["stage"] for r in server.requests]
    assert [s.split(" ")[0] for s in before] == ["seed", "repair", "algorithm"]

    server.set_script(script(hang_analysis=False))
    result = run_kforge([*run_args(server, runs)[:2], "--resume", str(run_dir),
                         "--base-url", server.base_url])
    assert result.returncode == 0, result.stdout + result.stderr
    after = [r["stage"] for r in server.requests][len(before):]
    # No seed or repair call again; the unanswered analysis is asked again, then the rest.
    assert [s.split(" ")[0] for s in after] == ["algorithm", "optimise", "tuning", "tuning",
                                                 "tuning"]
    resumed_log = (run_dir / "console.log").read_text()[len(console_before):]
    assert "resuming: " in resumed_log
    assert "#1 seed: evaluating" not in resumed_log and "#2 repair: evaluating" not in resumed_log
    assert "seed1: model reply found in the journal" in resumed_log
    run = read_run(run_dir)
    assert run["state"] == "finished"
    assert [c["key"] for c in run["candidates"]] == ["seed1", "seed1.r1", "optimise1",
                                                     "tune_grid", "tune_tiling", "tune_memory"]
    assert [c["id"] for c in run["candidates"]][:2] == [c["id"] for c in first["candidates"]]
    # CPU mode: unranked; tuning started from the correct candidate with the lowest error (the
    # earlier one on a tie). The errors come from inputs drawn fresh per evaluation, and these
    # GELUs differ by rounding only, so which one is lowest is read from the run, not assumed.
    assert run["best_id"] is None and run["ranking"] == "unranked"
    before_tuning = [c for c in run["candidates"]
                     if c["key"] in ("seed1", "seed1.r1", "optimise1") and c["status"] == "ok"]
    assert before_tuning, run["candidates"]
    start = min(before_tuning, key=lambda c: (c["max_abs_err"], c["id"]))
    assert any(line.startswith(f"tuning: starts from #{start['id']},") for line in run["log"]), \
        [line for line in run["log"] if line.startswith("tuning")]
    # Tokens of the replayed calls are still counted: seed + repair + analysis + optimise + 3.
    assert sum(row["calls"] for row in run["tokens"]) == 7
    assert (run_dir / "summary.md").is_file() and not (run_dir / "best.py").exists()
