"""Black-box: `kforge run` end to end on the CPU (real worker, Triton interpreter, shrunk shapes)
against the scripted fake model server. Asserts on the stage sequence, the feedback text the
model received, the run directory and the final choice."""

import re
import sqlite3

import pytest

from run_support import (SECRET, all_text, code_reply, candidate, diagnosis_reply,
                         only_run_dir, read_run, require_prerequisites, run_args, run_kforge,
                         server, stage_prompts)  # noqa: F401 (server is a fixture)

require_prerequisites()


def test_full_run_repairs_analyses_and_never_regresses(server, tmp_path):
    server.set_script([
        # Seeds: seed 1 uses tl.tanh (compile error), seed 2 computes the wrong formula.
        {"match": "# Stage: seed 1 of 2", "reply": code_reply("gelu_tl_tanh")},
        {"match": "# Stage: seed 2 of 2", "reply": code_reply("gelu_wrong")},
        {"match": ["# Stage: repair", "AttributeError: module 'triton.language' has no attribute 'tanh'"], "reply": code_reply("gelu_flat")},
        {"match": ["# Stage: repair", "status `wrong_output`"], "reply": code_reply("gelu_exp_tanh")},
        # Analysis: the first answer is invalid JSON and is asked again with the error.
        {"match": "(second try)", "reply": diagnosis_reply()},
        {"match": "# Stage: algorithm analysis", "times": 1,
         "reply": '```json\n{"worth_optimizing": "yes", "bottleneck": "launches"}\n```'},
        {"match": "# Stage: algorithm analysis", "reply": diagnosis_reply()},
        {"match": "# Stage: optimise", "reply": code_reply("gelu_flat")},
        # Tuning: grid regresses (larger error), tiling breaks the output and is repaired.
        {"match": "# Stage: tuning 1", "reply": code_reply("gelu_rounded")},
        {"match": "# Stage: tuning 2", "reply": code_reply("gelu_wrong")},
        {"match": "# Stage: tuning 3", "reply": code_reply("gelu_rounded")},
        {"match": "# Stage: repair", "reply": code_reply("gelu_rounded")},
    ])
    result = run_kforge(run_args(server, tmp_path / "runs", "--seeds", "2", "--repairs", "1"))
    assert result.returncode == 0, result.stdout + result.stderr
    run_dir = only_run_dir(tmp_path / "runs")
    run = read_run(run_dir)

    # Stage sequence.
    assert run["phases"] == ["seeds", "analysis", "tuning", "final"]
    stages = [c["stage"] for c in run["candidates"]]
    assert sorted(stages[:4]) == ["repair", "repair", "seed", "seed"]
    assert stages[4:] == ["optimise", "optimise", "tune_grid", "tune_tiling", "repair",
                          "tune_memory"]
    by_key = {c["key"]: c for c in run["candidates"]}
    assert by_key["seed1"]["status"] == "compile_error"
    assert by_key["seed2"]["status"] == "wrong_output"
    assert by_key["seed1.r1"]["status"] == "ok" and by_key["seed2.r1"]["status"] == "ok"
    assert by_key["tune_tiling"]["status"] == "wrong_output"

    # Feedback text the model received.
    repairs = stage_prompts(server, "repair")
    tanh_repair = [p for p in repairs
                   if "AttributeError: module 'triton.language' has no attribute 'tanh'" in p]
    assert tanh_repair and "t = tl.tanh(inner)" in tanh_repair[0]
    wrong_repair = [p for p in repairs if "status `wrong_output`" in p and "# Stage: repair of candidate #" in p]
    assert any("outside tolerance" in p for p in wrong_repair), wrong_repair
    retries = [r["user"] for r in server.requests if "(second try)" in r["stage"]]
    assert len(retries) == 1
    assert "failed to parse the analysis: missing reason, optimisation_method" in retries[0]
    optimise = stage_prompts(server, "optimise")
    assert len(optimise) == 2
    assert all("memory bandwidth: one read and one write per element" in p for p in optimise)
    # Tuning starts from the correct candidate with the lowest error. Every candidate of the run
    # is checked on the same (secret, per-run) input sets, so errors compare; which of the two
    # honest formulas (gelu_exp_tanh, gelu_flat) is closer depends on those sets.
    before_tuning = [c for c in run["candidates"]
                     if c["status"] == "ok" and not c["stage"].startswith("tune")]
    base = min(before_tuning, key=lambda c: (c["max_abs_err"], c["id"]))
    base_source = candidate("gelu_exp_tanh" if base["key"] == "seed2.r1" else "gelu_flat")
    tune = stage_prompts(server, "tuning 1")
    assert len(tune) == 1 and base_source.strip() in tune[0]

    # The final choice: none. CPU mode has no timings, so every correct candidate is kept and
    # reported as unranked; tuning starts from the one with the lowest error.
    assert run["best_id"] is None and run["ranking"] == "unranked"
    assert not (run_dir / "best.py").exists()
    correct = [c["id"] for c in run["candidates"] if c["status"] == "ok"]
    assert run["correct_ids"] == correct and len(correct) >= 4
    for c in run["candidates"]:
        if c["status"] == "ok":
            assert c["note"] == "correct, unranked (no timing)"
    assert (f"tuning: starts from #{base['id']}, the correct candidate with the "
            "lowest error (unranked: no timings)") in run["log"]
    assert "best: unranked (no timings): " in result.stdout
    assert "kforge rank " in result.stdout
    assert run["state"] == "finished"

    # The run directory.
    for c in run["candidates"]:
        assert (run_dir / c["file"]).is_file()
        assert (run_dir / c["file"]).with_suffix(".json").is_file()
        assert (run_dir / "transcripts" / f"{c['id']}_{c['stage']}.json").is_file()
    assert (run_dir / "transcripts" / f"{by_key['seed1.r1']['id']}_analysis.json").exists() or \
        (run_dir / "transcripts" / f"{by_key['seed2.r1']['id']}_analysis.json").exists()
    summary = (run_dir / "summary.md").read_text()
    assert ("| # | stage | from | candidate | score | latency (ms) | max_abs_err | numerics | "
            "status | note |") in summary
    # the numerics policy of the run, and each correct candidate's precision (docs/numerics.md)
    assert "- **numerics**: tolerance (--numerics; " in summary
    assert "| fp32 operands" in summary
    assert run["config"]["numerics"] == "tolerance"
    assert "| stage | calls | input tokens | output tokens | total | cost (USD) |" in summary
    assert re.search(r"\| analysis \| 3 \|", summary), summary
    html = (run_dir / "report.html").read_text()
    assert html.count("<svg") == 2
    console = (run_dir / "console.log").read_text()
    assert "== tuning ==" in console and "unranked: " in console
    assert "- **best**: unranked — " in summary
    assert SECRET not in all_text(run_dir)

    # The index across runs.
    db = sqlite3.connect(tmp_path / "runs" / "index.sqlite")
    (count,) = db.execute("SELECT COUNT(*) FROM candidates WHERE run_id = ?", (run["id"],)).fetchone()
    assert count == len(run["candidates"])
    (best_id,) = db.execute("SELECT best_id FROM runs WHERE id = ?", (run["id"],)).fetchone()
    assert best_id == run["best_id"]


def test_guard_tunes_only_the_parameters_of_a_persistent_kernel(server, tmp_path):
    server.set_script([
        {"match": "# Stage: seed", "reply": code_reply("gelu_persistent")},
        {"match": "# Stage: tuning", "reply": code_reply("gelu_flat")},
    ])
    result = run_kforge(run_args(server, tmp_path / "runs", "--seeds", "1", "--analysis", "never"))
    assert result.returncode == 0, result.stdout + result.stderr
    run_dir = only_run_dir(tmp_path / "runs")
    run = read_run(run_dir)
    assert [c["stage"] for c in run["candidates"]] == ["seed", "tune_grid", "tune_tiling"]
    assert run["candidates"][0]["persistent"] is True
    tuning = stage_prompts(server, "tuning")
    assert len(tuning) == 2
    assert all("Tune PARAMETERS ONLY: the launch configuration" in p for p in tuning)
    console = (run_dir / "console.log").read_text()
    assert "guard: #1 is a persistent kernel" in console, console
    assert "tuning parameters only (launch configuration, block sizes, num_warps, num_stages)" \
        in console
    assert "guard: tune_memory skipped" in console
    assert "guard: tune_grid skipped" not in console
    assert run["phases"] == ["seeds", "tuning", "final"]

    # `kforge report DIR` rewrites the reports from run.json.
    (run_dir / "summary.md").unlink()
    (run_dir / "report.html").unlink()
    report = run_kforge([run_args(server, tmp_path)[0], "report", str(run_dir)])
    assert report.returncode == 0, report.stdout + report.stderr
    assert "guard: #1 is a persistent kernel" in (run_dir / "summary.md").read_text()
    assert (run_dir / "report.html").is_file()


def test_token_budget_stops_cleanly_with_the_best_so_far(server, tmp_path):
    usage = {"prompt_tokens": 3000, "completion_tokens": 2000}
    server.set_script([
        {"match": "# Stage: seed", "reply": code_reply("gelu_flat"), "usage": usage},
        {"match": "# Stage: algorithm analysis", "reply": diagnosis_reply(), "usage": usage},
        {"match": "# Stage: optimise", "reply": code_reply("gelu_exp_tanh"), "usage": usage},
    ])
    result = run_kforge(run_args(server, tmp_path / "runs", "--seeds", "2",
                                 "--budget-tokens", "8000", "--no-stream"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "state: stopped (token budget of 8000 spent (10000 used))" in result.stdout
    run_dir = only_run_dir(tmp_path / "runs")
    run = read_run(run_dir)
    assert run["state"] == "stopped"
    assert [r["stage"].split(" ")[0] for r in server.requests] == ["seed", "seed"]
    assert not any(r["stream"] for r in server.requests)
    assert run["ranking"] == "unranked" and run["correct_ids"]
    assert "stopped: token budget of 8000 spent" in (run_dir / "summary.md").read_text()
