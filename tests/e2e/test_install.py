"""A relocatable install (issue 13): `cmake --install` to a temporary prefix, then the installed
kforge runs `kforge run --provider library` from a temporary working directory on the CPU. It
must find its worker, prompts and library under PREFIX/share/kforge, and reach the worker through
its own pool (no private worker started from a path baked in at build time)."""

import json
import os
import pathlib
import shutil
import subprocess

import pytest

from run_support import PYTHON, REPO, environment, require_prerequisites, only_run_dir

require_prerequisites()

KFORGE = pathlib.Path(os.environ["KFORGE_BIN"])
BUILD_DIR = pathlib.Path(os.environ.get("KFORGE_BUILD_DIR") or KFORGE.parent)
CMAKE = shutil.which("cmake")
if not CMAKE:
    pytest.exit("cmake not on PATH: cannot install", returncode=125)


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    prefix = tmp_path_factory.mktemp("prefix")
    done = subprocess.run([CMAKE, "--install", str(BUILD_DIR), "--prefix", str(prefix)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return prefix


def test_install_lays_out_bin_and_share(prefix):
    assert (prefix / "bin" / "kforge").is_file()
    share = prefix / "share" / "kforge"
    assert (share / "worker" / "kforge_worker" / "__main__.py").is_file()
    assert (share / "prompts" / "seed.txt").is_file()
    assert (share / "library" / "gelu" / "candidate.py").is_file()


def test_installed_library_provider_runs_from_another_directory(prefix, tmp_path):
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    task = cwd / "e2e_gelu.py"  # the library entry gelu names this task
    shutil.copy(REPO / "tasks" / "e2e_gelu.py", task)
    env = environment()
    env["KFORGE_PYTHON"] = PYTHON
    env.pop("KFORGE_WORKER_DIR", None)
    env.pop("KFORGE_PROMPTS_DIR", None)
    done = subprocess.run(
        [str(prefix / "bin" / "kforge"), "run", "--provider", "library", "--task", task.name,
         "--device", "cpu", "--shrink", "--timeout", "240", "--runs-dir", "runs"],
        cwd=cwd, capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    # on the CPU a correct candidate is kept unranked (no timings)
    assert "best: unranked (no timings): 1 correct candidate kept (#1)" in done.stdout, \
        done.stdout + done.stderr
    run = json.loads((only_run_dir(cwd / "runs") / "run.json").read_text())
    assert run["config"]["provider"] == "library"
    assert [c["status"] for c in run["candidates"]] == ["ok"]
    # the installed data, not the source tree's
    assert run["config"]["prompts_dir"].startswith(str(prefix / "share" / "kforge")), run["config"]
