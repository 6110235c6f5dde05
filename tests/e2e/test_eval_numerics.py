"""Black-box: `kforge eval --numerics tolerance|strict` on the CPU (TRITON_INTERPRET=1): an fp32
GEMM computed in fp16 operands with fp32 accumulation is `ok` with its numerics reported under
tolerance and `rejected` under strict; an fp32 candidate is `ok` under both (docs/numerics.md)."""

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
TASK = os.path.join(REPO, "worker", "tests", "tasks", "gemm_exact.py")
FP16 = os.path.join(REPO, "worker", "tests", "candidates", "matmul_fp16.py")
FP32 = os.path.join(REPO, "worker", "tests", "candidates", "matmul_triton.py")


def kforge_eval(candidate, *extra):
    env = {**os.environ, "KFORGE_PYTHON": PYTHON}
    return subprocess.run([KFORGE, "eval", "--task", TASK, "--candidate", candidate, "--device",
                           "cpu", "--shrink", "--timeout", "120", *extra],
                          capture_output=True, text=True, env=env, timeout=300, cwd=REPO)


def test_fp16_operands_are_reported_under_tolerance():
    result = kforge_eval(FP16, "--numerics", "tolerance")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "status        ok" in result.stdout
    assert ("numerics      fp16 operands, fp32 accumulate (policy tolerance; reference fp32, "
            "lower than the reference)") in result.stdout
    assert "cast fp32 -> fp16 dispatched" in result.stdout


def test_fp16_operands_are_rejected_under_strict():
    result = kforge_eval(FP16, "--numerics", "strict", "--json")
    assert result.returncode == 1, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "rejected"
    assert report["numerics"]["policy"] == "strict"
    assert report["numerics"]["summary"] == "fp16 operands, fp32 accumulate"
    assert report["numerics"]["lowered"] is True
    assert any(reason.startswith("numerics: fp16 operands, fp32 accumulate where the reference "
                                 "computes in fp32 (--numerics strict)")
               for reason in report["reasons"]), report["reasons"]
    # correct all the same: only the policy rejected it
    assert report["correctness"]["pass_calibrated"] is True


def test_fp32_candidate_is_ok_under_strict():
    result = kforge_eval(FP32, "--numerics", "strict")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "numerics      fp32 operands, fp32 accumulate (policy strict; reference fp32)" \
        in result.stdout


def test_unknown_policy_is_a_usage_error():
    result = kforge_eval(FP32, "--numerics", "loose")
    assert result.returncode == 2
    assert "failed to read --numerics: expected tolerance or strict, got loose" in result.stderr
