"""Black-box: the evaluation settings are read and validated once, for every command that takes
them; an invalid value fails before any worker starts, with exit 2 and a message naming the flag."""

import os
import subprocess

import pytest

KFORGE = os.environ.get("KFORGE_BIN")
if not KFORGE or not os.path.exists(KFORGE):
    pytest.exit("KFORGE_BIN not set: build kforge first", returncode=125)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TASK = os.path.join(REPO, "tasks", "softmax.py")
CANDIDATE = os.path.join(REPO, "library", "softmax", "candidate.py")

COMMANDS = {
    "run": ["run", "--task", TASK, "--provider", "library"],
    "eval": ["eval", "--task", TASK, "--candidate", CANDIDATE],
    "baseline": ["baseline", "--task", TASK],
}
BAD = [
    (["--trials", "0"], "failed to read --trials: expected at least 1, got 0"),
    (["--timeout", "-1"], "failed to read --timeout: expected a positive number of seconds, got -1"),
    (["--warmup", "-2"], "failed to read --warmup: expected 0 or more, got -2"),
    (["--device", "gpu"], "failed to read --device: expected cuda or cpu, got gpu"),
]


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("flags,message", BAD)
def test_invalid_setting_exits_2_naming_the_flag(command, flags, message, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("KFORGE_")}
    done = subprocess.run([KFORGE, *COMMANDS[command], *flags, "--runs-dir", str(tmp_path)]
                          if command == "run" else [KFORGE, *COMMANDS[command], *flags],
                          capture_output=True, text=True, env=env, timeout=60, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr, done.stderr
    assert not list(tmp_path.iterdir()), "no run directory for an invalid setting"
