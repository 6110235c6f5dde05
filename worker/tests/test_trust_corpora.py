"""The trust proof's CPU subset in CI: every CPU case of the red-team and fault corpora through a
real worker (tests/run_corpora.py), plus the fast legitimate candidates (no false rejection).
The full legitimate set (the RNN library, minutes under the interpreter) and the GPU-only cases
run with `python3 tests/run_corpora.py [--device cuda]`."""

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_corpora_cpu_subset():
    run = subprocess.run([sys.executable, os.path.join(REPO, "tests", "run_corpora.py"),
                          "--device", "cpu", "--legit", "quick"], cwd=REPO,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 fail" in run.stdout
