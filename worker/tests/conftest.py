"""Shared fixtures: a real worker process driven over the JSON-lines protocol, in CPU mode
(TRITON_INTERPRET=1), from the repository root."""

import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKER_DIR = os.path.join(REPO, "worker")
sys.path.insert(0, WORKER_DIR)
os.environ.setdefault("TRITON_INTERPRET", "1")


class Worker:
    """A `python -m kforge_worker` subprocess (CPU mode unless `gpu`); `call(op, **fields)`
    returns the reply dict."""

    def __init__(self, gpu=False, env_extra=None):
        env = {**os.environ, "PYTHONPATH": WORKER_DIR, "TRITON_INTERPRET": "1", **(env_extra or {})}
        if gpu:
            del env["TRITON_INTERPRET"]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "kforge_worker"] + ([] if gpu else ["--cpu"]), cwd=REPO, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, bufsize=1)
        self.next_id = 0

    def send_line(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def call(self, op, **fields):
        self.next_id += 1
        reply = self.send_line(json.dumps({"id": self.next_id, "op": op, **fields}))
        assert reply["id"] == self.next_id
        return reply

    def evaluate(self, task, candidate, **fields):
        fields = {"device": "cpu", "shrink": True, "timeout_s": 60, **fields}
        reply = self.call("evaluate", task_path=task, candidate_path=candidate, **fields)
        assert reply["ok"], reply
        return reply["result"]

    def close(self):
        if self.process.poll() is None:
            reply = self.call("shutdown")
            assert reply["ok"]
            self.process.wait(timeout=30)
        return self.process.returncode


@pytest.fixture(autouse=True, scope="module")
def _no_probe_helper_after_the_module():
    """The operator probes' helper process of evaluations forked in process ends with the module
    that started it: one pytest process can run every file (CI runs one per file)."""
    yield
    from kforge_worker import operator_probes
    operator_probes.stop_anchor()


@pytest.fixture(scope="session")
def worker():
    process = Worker()
    yield process
    process.close()


def candidate(name):
    return f"worker/tests/candidates/{name}.py"


def task_file(name):
    return f"worker/tests/tasks/{name}.py"
