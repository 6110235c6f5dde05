#!/usr/bin/env bash
# A real Slurm test of sharded suites: a single-node Slurm (munged + slurmctld + slurmd, loopback
# only, state in a temporary folder) runs scripts/slurm/kforge_suite.sbatch as a 2-task array:
# `kforge suite eval` over a few KernelBench level-1 tasks on the CPU (two with a candidate from
# tests/e2e/suite_candidates, two without), one shard each, in one suite directory; then
# `kforge suite merge` joins them and the merged suite must hold every task once.
# Exit 125 (skipped) without Slurm (apt-get install -y slurm-wlm; scripts/setup.sh does), not as
# root, or without KernelBench. Daemons are stopped on exit, whatever happens.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo="$PWD"
skip() { echo "SKIP: $*" >&2; exit 125; }

[ "$(id -u)" = 0 ] || skip "needs root to run slurmctld/slurmd/munged"
for tool in munged slurmctld slurmd sbatch sinfo squeue scontrol; do
  command -v "$tool" >/dev/null || skip "$tool not found (apt-get install -y slurm-wlm)"
done
kforge="${KFORGE_BIN:-$repo/build/kforge}"
[ -x "$kforge" ] || skip "no kforge binary at $kforge (set KFORGE_BIN)"
level1="$repo/../shared/kernelbench/level1"
[ -d "$level1" ] || skip "no KernelBench files at $level1"
export KFORGE_PYTHON="${KFORGE_PYTHON:-$repo/.venv/bin/python3}"
"$KFORGE_PYTHON" -c 'import torch, triton' 2>/dev/null || skip "$KFORGE_PYTHON lacks torch or triton"

tmp="$(mktemp -d /tmp/kforge-slurm.XXXXXX)"
chmod 755 "$tmp"
pids=()
cleanup() {
  for pidfile in "$tmp/slurmd.pid" "$tmp/slurmctld.pid" "$tmp/munged.pid"; do
    [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
  done
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  sleep 1
  for pidfile in "$tmp/slurmd.pid" "$tmp/slurmctld.pid" "$tmp/munged.pid"; do
    [ -s "$pidfile" ] && kill -9 "$(cat "$pidfile")" 2>/dev/null
  done
  [ "${KEEP_SLURM_TMP:-0}" = 1 ] || rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  for log in "$tmp"/*.log "$tmp"/out-*.txt; do
    [ -f "$log" ] && { echo "--- $log" >&2; tail -n 30 "$log" >&2; }
  done
  exit 1
}

# munge: its own key, socket and state in $tmp.
mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool"
chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
munged --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.socket" \
  --pid-file="$tmp/munged.pid" --log-file="$tmp/munged.log" --seed-file="$tmp/munge/seed" \
  || fail "munged did not start"

host="$(hostname -s)"
cpus="$(nproc)"
ports_base=$((20000 + RANDOM % 20000))
cat > "$tmp/slurm.conf" <<CONF
ClusterName=kforge-test
SlurmctldHost=${host}(127.0.0.1)
SlurmctldPort=${ports_base}
SlurmdPort=$((ports_base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
MaxArraySize=16
NodeName=${host} NodeAddr=127.0.0.1 CPUs=${cpus} State=UNKNOWN
PartitionName=test Nodes=${host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF="$tmp/slurm.conf"

slurmctld -c -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" -N "$host" || fail "slurmd did not start"

# Wait (bounded) for the node to be idle.
for _ in $(seq 60); do
  state="$(sinfo -h -N -o '%t' 2>/dev/null | head -n1)"
  [ "$state" = idle ] && break
  sleep 1
done
[ "$state" = idle ] || fail "the node did not become idle (state '${state:-none}')"
echo "slurm: node $host idle ($(sinfo -h -o '%P %D %C'))"

suite="$tmp/suite"
tasks="$level1/19_ReLU.py,$level1/21_Sigmoid.py,$level1/1_Square_matrix_multiplication_.py,$level1/23_Softmax.py"
submitted="$(env -u CUDA_VISIBLE_DEVICES KFORGE_SUITE_DIR="$suite" KFORGE_BIN="$kforge" \
  KFORGE_WORKER_DIR="$repo/worker" KINETO_LOG_LEVEL=5 \
  timeout 900 sbatch --parsable --wait --array=0-1 --cpus-per-task=1 \
  --output="$tmp/out-%a.txt" --chdir="$repo" \
  scripts/slurm/kforge_suite.sbatch eval --tasks "$tasks" \
  --candidates "$repo/tests/e2e/suite_candidates" --device cpu --shrink --timeout 240)"
rc=$?
echo "slurm: array job ${submitted:-?} ended with $rc"
[ $rc = 0 ] || fail "sbatch --wait returned $rc"
for shard in 0 1; do
  echo "--- shard $shard:"
  cat "$tmp/out-$shard.txt"
  grep -q "shard: $shard of 2" "$tmp/out-$shard.txt" || fail "shard $shard did not finish"
  [ -s "$suite/journal.shard-$shard-of-2.jsonl" ] || fail "no journal for shard $shard"
done

merged="$("$kforge" suite merge "$suite")" || fail "merge failed: $merged"
echo "--- merge:"
echo "$merged"
echo "$merged" | grep -q "tasks: 4 (2 correct, 0 not run)" || fail "unexpected merge: $merged"
"$KFORGE_PYTHON" - "$suite/suite.json" <<'PY' || fail "suite.json is wrong"
import json, sys
suite = json.load(open(sys.argv[1]))
rows = {r["id"]: r for r in suite["tasks"]}
assert len(rows) == len(suite["tasks"]) == 4, rows.keys()
assert suite["state"] == "merged", suite["state"]
assert {r["shard"] for r in suite["tasks"]} == {0, 1}
assert rows["19_ReLU"]["status"] == "ok" and rows["21_Sigmoid"]["status"] == "ok"
assert rows["23_Softmax"]["status"] == "missing"
print("suite.json: 4 tasks from 2 shards;", {k: r["status"] for k, r in rows.items()})
PY
echo "PASS: Slurm array of 2 shards merged"
