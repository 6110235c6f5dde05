#!/usr/bin/env bash
# Where the candidate process's host time goes in its timed calls (timing parity, issue 18): a
# copy of the worker whose candidate_host cProfiles each `time` request's block and prints the
# top functions to stderr (the result's output_tail), then one evaluate request of the 3-launch
# softmax_split on tasks/softmax.py, 100 trials. The copy lives under the checkout (the sandbox
# hides /tmp), in .diag-worker/; the checkout's worker is not changed.
#   bash bench/diag/profile_timed_calls.sh [CANDIDATE] [TASK]
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -f .carry/env.sh ] && source .carry/env.sh
PY=${KFORGE_PYTHON:-python3}
rm -rf .diag-worker && cp -r worker .diag-worker
"$PY" - <<'EOP'
p = ".diag-worker/kforge_worker/candidate_host.py"
s = open(p).read()
old = "            samples, _ = timing.time_block("
new = ("            import cProfile, pstats, io\n"
       "            _profile = cProfile.Profile()\n"
       "            _profile.enable()\n"
       "            samples, _ = timing.time_block(")
assert old in s
s = s.replace(old, new, 1)
old = "        self.send({\"ok\": True, \"ms\": samples, \"outputs\": described, \"host_ms\": host})"
new = ("        _profile.disable()\n"
       "        _text = io.StringIO()\n"
       "        pstats.Stats(_profile, stream=_text).sort_stats('tottime').print_stats(22)\n"
       "        import sys; sys.stderr.write('TIMED-PROFILE trials=%d\\n' % len(trials) + _text.getvalue()[-6000:])\n"
       + old)
assert old in s
s = s.replace(old, new, 1)
open(p, "w").write(s)
EOP
CAND=${1:-bench/parity/softmax_split.py} TASK=${2:-tasks/softmax.py}
PYTHONPATH=.diag-worker "$PY" - "$CAND" "$TASK" <<'EOP'
import json, os, subprocess, sys
cand, task = (os.path.abspath(p) for p in sys.argv[1:3])
env = {**os.environ, "PYTHONPATH": os.path.abspath(".diag-worker")}
worker = subprocess.Popen([sys.executable, "-m", "kforge_worker"], env=env, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True, bufsize=1)
request = {"id": 1, "op": "evaluate", "task_path": task, "candidate_path": cand, "device": "cuda",
           "trials": 100, "baselines": ["eager"], "timeout_s": 200}
worker.stdin.write(json.dumps(request) + "\n"); worker.stdin.flush()
reply = json.loads(worker.stdout.readline())
result = reply.get("result") or reply
timing = result.get("timing") or {}
print("status", result.get("status"), "candidate", (timing.get("candidate") or {}).get("median_ms"),
      "host", (timing.get("candidate") or {}).get("host_median_ms"))
tail = result.get("output_tail") or ""
print(tail[tail.rfind("TIMED-PROFILE"):] if "TIMED-PROFILE" in tail else tail[-3000:])
worker.stdin.write(json.dumps({"id": 0, "op": "shutdown"}) + "\n"); worker.stdin.flush()
EOP
