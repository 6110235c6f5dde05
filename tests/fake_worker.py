"""A stand-in for kforge_worker that speaks the protocol (docs/protocol.md) without torch.

Run as `python3 -m fake_worker` with PYTHONPATH=tests (the C++ pool tests set PoolOptions::module).
What it does with a request is chosen by the request: the field "fake", or else the stem of
"candidate_path" (evaluate) or "task_path" (baseline):

  ok            a passing Evaluation            wrong      status wrong_output
  nan           max_abs_err "nan"               badfield   correctness.max_abs_err = true
  crash         SIGSEGV itself                  exit3      exit with code 3
  hang          never answer                    garbage    print a line that is not JSON
  poison        answer ok with "poisoned": true refuse     answer ok=false
  slow          sleep request["sleep_s"] then answer ok
  flood         write 1 MiB to stderr, then answer ok
  stale         answer with a wrong id first, then the right one

A candidate file with a line `# fake_median_ms: 12.5` is timed at that median (score = eager
20.7 ms / median), so that ranking tests see different speeds.

`hello` reports the pid and the environment variables the pool is meant to set or strip.
"""

import json
import os
import signal
import sys
import time

ENV_SEEN = ("CUDA_VISIBLE_DEVICES", "PYTHONPATH", "TRITON_INTERPRET", "KFORGE_DEVICE",
            "FAKE_API_KEY", "FAKE_TOKEN", "KFORGE_TEST_PLAIN")


def stats(median):
    return {"median_ms": median, "mean_ms": median * 1.01, "std_ms": 0.05, "min_ms": median * 0.98,
            "trials": 100}


def evaluation(status="ok", max_abs_err=1.5e-6):
    return {
        "status": status,
        "error": "" if status == "ok" else "output 0 differs at [0, 3]: expected 1.0, got 2.0",
        "error_location": None,
        "reasons": [],
        "correctness": {
            "precision": "calibrated", "input_sets": 5,
            "pass_calibrated": status == "ok", "pass_kernelbench": status == "ok",
            "max_abs_err": max_abs_err, "mean_abs_err": 1e-7,
            "max_abs_err_fp64": 1e-6, "mean_abs_err_fp64": 1e-7,
            "reference_err_fp64": 2.5e-4, "tolerance": 2.5e-3,
            "first_failure": None if status == "ok" else "output 0 [0, 3]: expected 1.0 got 2.0",
        },
        "generalizes": "yes",
        "timing": {"candidate": stats(15.14), "eager": stats(20.7), "compile": None,
                   "cuda_graph": stats(8.7)} if status == "ok" else None,
        "score": 1.367 if status == "ok" else None,
        "speedup_vs_best_baseline": 0.575 if status == "ok" else None,
        "launches_per_forward": 6,
        "kernels": [{"name": "gru_layer_kernel", "calls_per_forward": 6, "time_share": 0.97,
                     "own": True}],
        "device": {"name": "Fake GPU", "sm_count": 132},
        "versions": {"torch": "0.0-fake", "triton": "0.0-fake"},
        "shapes": {"batch_size": 10, "seq_len": 512},
        "wall_s": 0.01, "timed_s": 0.005,
    }


def fake_median_ms(request):
    """The `# fake_median_ms: X` of the candidate file, or None."""
    try:
        with open(request.get("candidate_path") or "", encoding="utf-8") as source:
            for line in source:
                if line.startswith("# fake_median_ms:"):
                    return float(line.split(":", 1)[1])
    except OSError:
        pass
    return None


def behaviour(request):
    if "fake" in request:
        return request["fake"]
    path = request.get("candidate_path") or request.get("task_path") or ""
    return os.path.splitext(os.path.basename(path))[0]


def answer(request):
    """The reply dict for `request`, or None when the behaviour already answered."""
    op = request.get("op")
    rid = request.get("id")
    if op == "hello":
        return {"id": rid, "ok": True, "result": {
            "worker_version": "fake-0.1", "python": sys.version.split()[0], "torch": "0.0-fake",
            "triton": "0.0-fake", "numpy": "0.0-fake", "cuda": None, "device": None,
            "interpret": os.environ.get("TRITON_INTERPRET") == "1", "pid": os.getpid(),
            "env": {name: os.environ.get(name) for name in ENV_SEEN}}}
    if op == "shutdown":
        return {"id": rid, "ok": True, "result": {}}
    what = behaviour(request)
    if what == "crash":
        sys.stderr.write("fake worker: about to crash\n")
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGSEGV)
    if what == "exit3":
        sys.stderr.write("fake worker: exiting with 3\n")
        sys.stderr.flush()
        os._exit(3)
    if what == "hang":
        sys.stderr.write("fake worker: hanging\n")
        sys.stderr.flush()
        time.sleep(3600)
    if what == "garbage":
        return "this is not json {"
    if what == "refuse":
        return {"id": rid, "ok": False, "error": "failed to load task t.py: no get_inputs() defined"}
    if what == "slow":
        time.sleep(float(request.get("sleep_s", 0.2)))
    if what == "flood":
        sys.stderr.write(("x" * 1023 + "\n") * 1024)
        sys.stderr.flush()
    if what == "stale":
        print(json.dumps({"id": -5, "ok": True, "result": {}}), flush=True)
    if op == "baseline":
        return {"id": rid, "ok": True, "result": {
            "eager": stats(42.0), "compile": stats(41.5), "cuda_graph": stats(8.7),
            "device": {"name": "Fake GPU"}, "versions": {"torch": "0.0-fake"},
            "shapes": {"seq_len": 512}}}
    if op == "evaluate":
        if what == "wrong":
            result = evaluation("wrong_output", 1.0)
        elif what == "nan":
            result = evaluation("wrong_output", "nan")
        elif what == "badfield":
            result = evaluation()
            result["correctness"]["max_abs_err"] = True
        else:
            result = evaluation()
            median = fake_median_ms(request)
            if median is not None:
                result["timing"]["candidate"] = stats(median)
                result["score"] = round(20.7 / median, 4)
        reply = {"id": rid, "ok": True, "result": result}
        if what == "poison":
            reply["poisoned"] = True
        return reply
    if op == "echo":
        return {"id": rid, "ok": True, "result": {"echo": request.get("payload")}}
    return {"id": rid, "ok": False, "error": f"failed to serve request: unknown op {op!r}"}


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        reply = answer(request)
        text = reply if isinstance(reply, str) else json.dumps(reply)
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
        if request.get("op") == "shutdown":
            return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
