#!/usr/bin/env bash
# Everything kforge must show on a GPU, in sections that each fit one device call:
#   bench/gpu_proof.sh baseline   kforge baseline on 39_GRU and 35_LSTM, twice each
#   bench/gpu_proof.sh harness    kforge eval (readable + JSON), warm-worker overhead and repeat
#                                 spread (bench_harness.py), kforge analyze --runtime,
#                                 kforge run --provider library end to end, worker GPU tests
#   bench/gpu_proof.sh trust      the red-team and fault corpora with the GPU-only cases
#   bench/gpu_proof.sh rank       kforge rank of a CPU run replayed from a real model's
#                                 transcripts (.carry/runs/gru_replay, task .carry/kb/...)
#   bench/gpu_proof.sh numerics   an fp16-operand GEMM on an fp32 task under both numerics policies
#   bench/gpu_proof.sh library    the softmax and GELU library kernels through kforge eval
#   bench/gpu_proof.sh immunity   kforge baseline of 39_GRU before and after evaluating the library
#                                 kernel plus `torch.backends.cudnn.enabled = False` (issue 12's
#                                 78.6x attack): the baselines must not move
#   bench/gpu_proof.sh rnn_real   the RNN library kernels against the real KernelBench files 35-42
#                                 (.carry/kb/level3) through kforge eval, then KernelBench's 1e-4
#                                 check with cuDNN TF32 on and off (bench_rnn_tf32.py)
# Expects the carried build (scripts/pack_for_device.sh → .carry/) and a python3 with CUDA torch.
# Writes logs under $OUT (the device tool brings them back).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kforge-proof}; mkdir -p "$OUT"
# The carried confinement tools (bubblewrap, libseccomp), when packed.
[ -f .carry/env.sh ] && source .carry/env.sh
export KFORGE_PYTHON=${KFORGE_PYTHON:-$(command -v python3)} PYTHONUNBUFFERED=1
K=.carry/bin/kforge-run
step() { printf '\n=== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }

versions() {
  step versions
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  "$KFORGE_PYTHON" -c 'import torch,triton,sys; print("python", sys.version.split()[0], "torch", torch.__version__, "triton", triton.__version__, "cuda", torch.version.cuda)'
  $K --version
}

section_baseline() {
  for task in 39_GRU 35_LSTM; do
    for run in 1 2; do
      step "kforge baseline --task tasks/$task.py (run $run)"
      $K baseline --task tasks/$task.py --json > "$OUT/baseline_${task}_$run.json"
      "$KFORGE_PYTHON" - "$OUT/baseline_${task}_$run.json" <<'EOP'
import json, sys
r = json.load(open(sys.argv[1]))
b = r.get("result", r)
for name in ("eager", "compile", "cuda_graph"):
    s = b.get(name) or (b.get("timing") or {}).get(name)
    print(f"  {name:10s}", "-" if not s else f"median {s['median_ms']:.3f} ms  mean {s['mean_ms']:.3f}  std {s['std_ms']:.3f}  min {s['min_ms']:.3f}  trials {s['trials']}")
EOP
    done
  done
}

section_harness() {
  step "kforge eval softmax (readable)"
  $K eval --task tasks/softmax.py --candidate library/softmax/candidate.py
  step "kforge eval 39_GRU library kernel (readable)"
  $K eval --task tasks/39_GRU.py --candidate library/gru_out/candidate.py
  step "warm-worker overhead and repeatability"
  "$KFORGE_PYTHON" bench/bench_harness.py --repeat 2 \
    --pair tasks/softmax.py:library/softmax/candidate.py \
    --pair tasks/39_GRU.py:library/gru_out/candidate.py \
    --pair tasks/35_LSTM.py:library/lstm_fc/candidate.py 2>&1 | tee "$OUT/harness.txt"
  step "kforge analyze --runtime on the GPU"
  $K analyze library/gru_out/candidate.py --task tasks/39_GRU.py --runtime --device cuda
  step "kforge run --provider library (end to end)"
  $K run --task tasks/40_GRUHidden.py --provider library --runs-dir "$OUT/runs" --trials 50
  tar -C "$OUT" -czf "$OUT/runs.tgz" runs && rm -rf "$OUT/runs"
  step "worker GPU tests"
  "$KFORGE_PYTHON" -m pytest -q worker/tests/test_gpu.py 2>&1 | tail -15
}

section_trust() {
  step "trust corpora on the GPU"
  "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --json "$OUT/trust_gpu.json" 2>&1 | tee "$OUT/trust_gpu.txt"
}

section_rank() {
  step "kforge rank of the replayed real-model 39_GRU run"
  timeout 300 $K rank .carry/runs/gru_replay --device cuda --task .carry/kb/level3/39_GRU.py \
    --trials 30 2>&1 | tee "$OUT/rank.txt" | grep -v '^\[' 
  cp .carry/runs/gru_replay/run.json "$OUT/rank_run.json"
  cp .carry/runs/gru_replay/summary.md "$OUT/rank_summary.md"
}

section_numerics() {
  for policy in tolerance strict; do
    step "kforge eval fp16-operand GEMM, --numerics $policy"
    timeout 120 $K eval --task worker/tests/tasks/gemm_exact.py --candidate worker/tests/candidates/matmul_fp16.py \
      --numerics $policy --trials 30 2>&1 | tee "$OUT/numerics_$policy.txt"
  done
}

section_library() {
  step "kforge eval library softmax"
  timeout 120 $K eval --task tasks/softmax.py --candidate library/softmax/candidate.py --trials 50 \
    2>&1 | tee "$OUT/library_softmax.txt"
  step "kforge eval library gelu"
  timeout 120 $K eval --task tasks/gelu.py --candidate library/gelu/candidate.py --trials 50 \
    2>&1 | tee "$OUT/library_gelu.txt"
}

section_immunity() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  local flip=/tmp/gru_cudnn_off.py
  { cat library/gru_out/candidate.py; echo; echo "torch.backends.cudnn.enabled = False"; } > $flip
  step "kforge baseline 39_GRU (before)"
  timeout 100 $K baseline --task tasks/39_GRU.py --trials 30 2>&1 | grep -v '^\[' | tee "$OUT/immunity_before.txt"
  step "kforge eval: the library GRU + cudnn.enabled = False at import"
  timeout 130 $K eval --task tasks/39_GRU.py --candidate $flip --trials 30 2>&1 | grep -v '^\[' |
    tee "$OUT/immunity_flip.txt"
  step "kforge baseline 39_GRU (after)"
  timeout 100 $K baseline --task tasks/39_GRU.py --trials 30 2>&1 | grep -v '^\[' | tee "$OUT/immunity_after.txt"
}

# The RNN library against the unmodified public files (issue 13): kforge's verdict and speed-ups.
section_rnn_real() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  for pair in 35_LSTM:lstm_fc 36_LSTMHn:lstm_hn 37_LSTMCn:lstm_cn 38_LSTMBidirectional:lstm_bi_fc \
              39_GRU:gru_out 40_GRUHidden:gru_hn 41_GRUBidirectional:gru_bi_out \
              42_GRUBidirectionalHidden:gru_bi_hn; do
    task=${pair%%:*} entry=${pair##*:}
    step "kforge eval library/$entry on kernelbench level3/$task"
    timeout 150 $K eval --task ".carry/kb/level3/$task.py" --candidate "library/$entry/candidate.py" \
      --trials 30 --json > "$OUT/rnn_real_$task.json" 2> "$OUT/rnn_real_$task.log"
    "$KFORGE_PYTHON" - "$OUT/rnn_real_$task.json" <<'EOP'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    sys.exit(print("  no result:", e))
r = r.get("result", r)
t = r.get("timing") or {}
med = lambda k: (t.get(k) or {}).get("median_ms")
print("  status", r.get("status"), "| candidate", med("candidate"), "ms | eager", med("eager"),
      "| compile", med("compile"), "| cuda_graph", med("cuda_graph"), "| speedup", r.get("speedup_vs_best_baseline"),
      "|", "; ".join(r.get("reasons") or [])[:300], (r.get("error") or "")[:300])
EOP
  done
}

section_tf32() {
  step "KernelBench-style 1e-4 check, cuDNN TF32 on and off, real files"
  PYTHONPATH=worker timeout 240 "$KFORGE_PYTHON" bench/bench_rnn_tf32.py --task-dir .carry/kb/level3 \
    --json "$OUT/rnn_tf32.json" 2>&1 | tail -40
}

# Session 6's proof in two calls: the timing and GPU-only attacks (issues 12 and 18: the three
# original attacks, memo, look-ahead, skewed reports, decoys) beside legitimate kernels in one
# corpus run, then timing parity, the level-1 tasks that had failed alone, and the LSTM kernel.
section_trust_timing() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "corpus: timing, GPU-only and decoy attacks with legitimate kernels, one worker"
  timeout 540 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all --json "$OUT/trust_timing.json" \
    --only a03 a10 a13 a15 a16 a22 a24 a25 a26 a28 a29 a30 a31 library/softmax library/gelu \
    library/gru_out tests/controls/matmul 2>&1 | tee "$OUT/trust_timing.txt" | grep -v '^\['
}

section_parity_sweep() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "corpus again after the calibrated margin (0.05 -> 0.3 ms): the cases the first call rejected"
  timeout 240 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all --json "$OUT/trust_timing2.json" \
    --only a16 a25 a28 a30 library/gelu library/gru_out tests/controls/matmul 2>&1 | grep -v '^\['
  step "timing parity"
  timeout 130 "$KFORGE_PYTHON" bench/timing_parity.py --rounds 1 --chunks 1,4 --budget-s 100 \
    --json "$OUT/timing_parity.json" 2>&1 | tail -10
  step "level-1 tasks that failed alone at full size"
  timeout 150 "$KFORGE_PYTHON" tests/kernelbench_sweep.py --root .carry/kb --device cuda \
    --jobs 1 --trials 10 --timeout 60 --deadline 120 --json "$OUT/level1_rest.json" \
    --only level1/25 level1/30 level1/36 level1/38 level1/39 level1/45 level1/87 level1/92 2>&1 | tail -12
}

# Session 7: the three 8 GiB level-1 tasks, timing parity at cold cache, and the timed-call cases.
section_s7_first() {
  step "level-1 tasks that ran the judge out of memory (36, 38, 39), with baselines"
  timeout 200 "$KFORGE_PYTHON" tests/kernelbench_sweep.py --root .carry/kb --device cuda --baseline \
    --jobs 1 --trials 10 --timeout 90 --deadline 170 --json "$OUT/level1_8gib.json" \
    --markdown "$OUT/level1_8gib.md" --only level1/36 level1/38 level1/39 2> "$OUT/level1_8gib.err" | tail -8
  grep -B2 -A40 Traceback "$OUT/level1_8gib.err" | grep -v '^\[' | tail -45
  step "timing parity, cold cache in all three timers (KernelBench's current timer)"
  timeout 170 "$KFORGE_PYTHON" bench/timing_parity.py --rounds 2 --chunks 1,4 --variants "" \
    --budget-s 150 --json "$OUT/timing_parity.json" 2>&1 | tail -8
  step "timed calls observed as checked ones: a34, a36, a24, a33 with legitimate kernels"
  timeout 170 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all --json "$OUT/trust_s7.json" \
    --only a34 a36 a24 a33 library/softmax library/gelu tests/controls/matmul 2>&1 | grep -v '^\['
}
# The whole red-team corpus (attacks) beside the fault corpus, two workers on one GPU.
section_s7_corpus() {
  timeout 570 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only f \
    --json "$OUT/faults_gpu.json" > "$OUT/faults_gpu.txt" 2>&1 &
  step "attacks (all), faults beside them"
  timeout 570 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a \
    --json "$OUT/attacks_gpu.json" 2>&1 | grep -v '^\[' | tee "$OUT/attacks_gpu.txt"
  wait
  step "faults"
  grep -v '^\[' "$OUT/faults_gpu.txt"
}
# The whole red-team corpus alone, then the parity diagnosis (the recorder in KernelBench's loop).
section_s7_attacks() {
  step "attacks (all)"
  timeout 400 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a \
    --json "$OUT/attacks_gpu.json" 2>&1 | grep -v '^\[' | tee "$OUT/attacks_gpu.txt"
  step "timing parity with the recorder variants"
  timeout 150 "$KFORGE_PYTHON" bench/timing_parity.py --rounds 1 --chunks 1 --variants kb_recorded,kb_state \
    --budget-s 130 --json "$OUT/timing_parity_diag.json" 2>&1 | tail -6
}
# The last call of session 7: the recorder without Kineto, legitimate kernels, parity, attacks.
section_s7_last() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "legitimate kernels"
  timeout 90 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all --only library/softmax \
    library/gelu library/gru_out tests/controls/matmul --json "$OUT/legit_last.json" 2>&1 | grep -v '^\['
  step "timing parity, cold cache, with the recorder variant"
  timeout 80 "$KFORGE_PYTHON" bench/timing_parity.py --rounds 1 --chunks 1 --variants kb_recorded \
    --budget-s 70 --json "$OUT/timing_parity_last.json" 2>&1 | tail -5
  step "attacks a20-a36"
  timeout 150 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a2 a3 \
    2>&1 | grep -v '^\[' | tee "$OUT/attacks_a2_a3.txt"
  step "kforge eval library/gru_out on kernelbench level3/39_GRU"
  timeout 45 $K eval --task .carry/kb/level3/39_GRU.py --candidate library/gru_out/candidate.py \
    --trials 30 2>&1 | grep -v '^\[' | tail -25
}
# Every legitimate candidate alone (library, controls), then the RNN library on the real files.
section_s7_legit() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "legitimate candidates (library, controls)"
  timeout 200 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all --only library/softmax \
    library/gelu library/gru_out library/lstm_fc tests/controls \
    --json "$OUT/legit_gpu.json" 2>&1 | grep -v '^\[' | tee "$OUT/legit_gpu.txt"
  section_rnn_real
}
# Session 8 (no GPU time was left): what its first GPU call must show. Timing parity at cold cache
# with the synchronise-before-flush fix, the session's new corpus cases (the dense stand-ins, the
# recorder switched off, the host-memory decoys' GPU verdicts, the config file) beside the
# legitimate kernels they must leave ok.
section_s8_first() {
  step "timing parity, cold cache in all three timers"
  timeout 170 "$KFORGE_PYTHON" bench/timing_parity.py --rounds 2 --chunks 1,4 --variants "" \
    --budget-s 150 --json "$OUT/timing_parity_s8.json" 2>&1 | tail -8
  step "session 8 cases and the legitimate kernels"
  timeout 380 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all --json "$OUT/trust_s8.json" \
    --only a37 a38 a39 a40 a41 a42 a19 f25 library/softmax library/gelu tests/controls \
    2>&1 | grep -v '^\[' | tee "$OUT/trust_s8.txt"
}

# Session 9: where a host-bound candidate's extra time comes from at cold cache (each stage of
# the candidate process's set-up, bench/parity/host_probe.py), and the conv control after the
# data-movement rule.
section_s9_probe() {
  local split=/tmp/softmax_split_1.py
  cp bench/parity/softmax_split.py $split
  for pair in bench/parity/gelu_scale.py:bench/parity/gelu_scale_task.py $split:tasks/softmax.py; do
    step "host probe ${pair%%:*}"
    TEARDOWN_CUPTI=1 PYTHONPATH=worker timeout 120 "$KFORGE_PYTHON" bench/parity/host_probe.py ${pair%%:*} ${pair##*:} \
      --trials 200 2>&1 | tail -6
  done
  step "controls and the library softmax"
  timeout 120 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all --json "$OUT/controls_s9.json" \
    --only tests/controls library/softmax 2>&1 | grep -v '^\['
}

section_s9_parity() {
  step "timing parity, cold cache, KernelBench's flush size"
  timeout 170 "$KFORGE_PYTHON" bench/timing_parity.py --rounds 2 --chunks 1,4 --variants kb_recorded \
    --budget-s 150 --json "$OUT/timing_parity_s9.json" 2>&1 | tail -8
  section_s9_probe
}

# Session 9's last call: the attacks past a22 (a23-a43, with the red team's a43) and f23 beside
# the legitimate kernels, two corpus runs on one GPU.
section_s9_last() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  timeout 540 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all --only library/softmax \
    library/gelu library/gru_out library/lstm_fc tests/controls f23 \
    --json "$OUT/legit_s9.json" > "$OUT/legit_s9.txt" 2>&1 &
  step "attacks a23-a43"
  timeout 540 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a23 a24 a25 a26 \
    a27 a28 a29 a3 a4 --json "$OUT/attacks_s9.json" 2>&1 | grep -v '^\[' | tee "$OUT/attacks_s9.txt"
  wait
  step "legitimate kernels and f23"
  grep -v '^\[' "$OUT/legit_s9.txt"
}

# After the gates rule's fix: the RNN library kernels beside the red team's a43 and a34/a35.
section_s9_verify() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  timeout 420 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all --only library/gru_out \
    library/lstm_fc library/gru_bi_out library/lstm_bi_fc \
    --json "$OUT/legit_rnn_s9.json" > "$OUT/legit_rnn_s9.txt" 2>&1 &
  step "attacks a43, a34_stop_recorder, a35"
  timeout 420 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a43 a34_stop a35 \
    --json "$OUT/attacks_a43.json" 2>&1 | grep -v '^\[' | tee "$OUT/attacks_a43.txt"
  wait
  step "the RNN library kernels"
  grep -v '^\[' "$OUT/legit_rnn_s9.txt"
}

# Session 10, call 1: the whole red-team corpus and the fault corpus on one build, five corpus
# runs side by side on one GPU (a37's element-by-element host readers, which only time out on a
# GPU, are left out: 120 s each).
section_s10_corpus() {
  local groups=("a01 a02 a03 a04 a05 a06 a07 a08 a09 a10 a11 a12 a13 a14 a15 a16 a17 a18"
                "a19 a20 a21 a22 a23 a24 a25 a26 a27 a28 a29"
                "a30 a31 a32 a33 a34 a35 a36 a37_dlpack a37_grid a38 a39"
                "a40 a41 a42 a43 a44 a45" "f")
  local i=0
  step "attacks a01-a45 and faults f01-f25, five runs side by side"
  for group in "${groups[@]}"; do
    i=$((i + 1))
    timeout 560 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only $group \
      --json "$OUT/corpus_$i.json" > "$OUT/corpus_$i.txt" 2>&1 &
  done
  wait
  for i in 1 2 3 4 5; do step "group $i"; grep -v '^\[' "$OUT/corpus_$i.txt"; done
}

# Session 10, call 2: every legitimate candidate in the repository alone on the GPU (the eight
# RNN library entries, softmax, gelu, the controls).
section_s10_legit() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "legitimate candidates (all)"
  timeout 560 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all --only library tests/controls \
    --json "$OUT/legit_s10.json" 2>&1 | grep -v '^\[' | tee "$OUT/legit_s10.txt"
}

# A warm worker's request wall minus the timed work, with its phases, on 39_GRU and softmax:
# confined, then with the confinement off (KFORGE_BWRAP pointing nowhere: a plain separate
# process), which is the OS isolation's own cost. $1: requests per pair; $2, $3: each run's limit
# in seconds, confined and not.
harness_overhead() {
  local pairs=(--pair tasks/39_GRU.py:library/gru_out/candidate.py
               --pair tasks/softmax.py:library/softmax/candidate.py)
  step "harness overhead, confined (bubblewrap + seccomp)"
  timeout "$2" "$KFORGE_PYTHON" bench/bench_harness.py "${pairs[@]}" --repeat "$1" 2>&1 | grep -v '^\[' | tail -22
  step "harness overhead, confinement off (a separate process only)"
  KFORGE_BWRAP=/nonexistent/bwrap timeout "$3" "$KFORGE_PYTHON" bench/bench_harness.py "${pairs[@]}" \
    --repeat "$1" 2>&1 | grep -v '^\[' | tail -22
}

# Session 10, call 3: the corpus cases call 1 could not run or ran beside other runs, the
# harness's cost per candidate, and the immunity check.
section_s10_harness() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "the corpus cases call 1 could not run or ran beside other runs (KernelBench paths, a46, f02, f19)"
  timeout 170 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a44 a45 a46 f02 f19 \
    --json "$OUT/corpus_rest.json" 2>&1 | grep -v '^\['
  harness_overhead 2 100 100
  section_immunity
}

# Session 10, planned, not run (the device time went to the calls above): timing parity and the
# RNN library on the real KernelBench files.
section_s10_parity() {
  step "timing parity, cold cache"
  timeout 170 "$KFORGE_PYTHON" bench/timing_parity.py --rounds 2 --chunks 1,4 --variants kb_recorded \
    --budget-s 150 --json "$OUT/timing_parity_s10.json" 2>&1 | tail -8
  section_rnn_real
}

# Session 10, call 4: the KernelBench-path cases (a44-a46, with a46 made device-correct), then the
# harness's cost per candidate, confined and not, three warm requests each.
section_s10_final() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "a44-a46 on the GPU"
  timeout 200 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a44 a45 a46 \
    --json "$OUT/corpus_a44_a46.json" 2>&1 | grep -v '^\['
  harness_overhead 3 160 130
}

# Session 11, call 1: every legitimate candidate alone on the GPU after the bit-level and fold
# rules (and the library's TF32 rounding moved into a Triton kernel), then a47 on the GPU.
section_s11_legit() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "legitimate candidates (all)"
  legit_on_gpu 470 legit_s11 library tests/controls
  step "a47 (session 10's last red team, rewritten)"
  timeout 100 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a47 \
    --json "$OUT/corpus_a47.json" 2>&1 | grep -v '^\['
}

# Session 11: what the profiler names on the GPU for a bit-level exp (view(dtype), an int32 cast,
# set_ on a storage): the own-work rule's bit_cast / float_int_cast must show there too.
section_s11_bits() {
  step "bit-level operators as the GPU's profiler records them"
  PYTHONPATH=worker "$KFORGE_PYTHON" - <<'EOS' 2>&1 | grep -v '^\[\|USDT'
import torch
from kforge_worker.trust_ops import AtenRecorder, Policy
x = torch.randn(64, 256, device="cuda")
def bits_exp(x):
    z = x * 1.4426950408889634 + 127.0
    n = z.to(torch.int32)
    s = torch.empty(0, dtype=torch.int32, device="cuda").set_(x.untyped_storage(), 0, x.shape)
    return (z - n + 1.0) * (n << 23).view(torch.float32) + s.float() * 0
from kforge_worker.trust_ops import BitLevelRecorder
with torch.no_grad(), AtenRecorder() as aten, BitLevelRecorder() as bits:
    out = bits_exp(x)
torch.cuda.synchronize()
print("profiler has dtypes:", aten.dtypes_seen)
print("profiler's bit-level:", [c[:3] for c in aten.calls if c[0] in ("bit_cast", "float_int_cast")])
print("dispatch's bit-level:", [c[:3] for c in bits.calls])
calls = aten.calls + ([] if aten.dtypes_seen else bits.calls)
print("softmax policy:", Policy(["softmax"], [], None).check_own_work(calls, x.numel()))
EOS
}

# Session 11, call 2: the whole corpus again on the final rules, five runs side by side (as
# s10_corpus, with a46 and a47 in the last attack group).
section_s11_corpus() {
  local groups=("a01 a02 a03 a04 a05 a06 a07 a08 a09 a10 a11 a12 a13 a14 a15 a16 a17 a18"
                "a19 a20 a21 a22 a23 a24 a25 a26 a27 a28 a29"
                "a30 a31 a32 a33 a34 a35 a36 a37_dlpack a37_grid a38 a39"
                "a40 a41 a42 a43 a44 a45 a46 a47 a48" "f")
  local i=0
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "attacks a01-a48 and faults f01-f25, five runs side by side, the legitimate set beside"
  for group in "${groups[@]}"; do
    i=$((i + 1))
    timeout 560 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only $group \
      --json "$OUT/corpus_$i.json" > "$OUT/corpus_$i.txt" 2>&1 &
  done
  timeout 560 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all --only library tests/controls \
    --json "$OUT/corpus_6.json" > "$OUT/corpus_6.txt" 2>&1 &
  wait
  for i in 1 2 3 4 5 6; do step "group $i"; grep -v '^\[' "$OUT/corpus_$i.txt"; done
}

# Session 11, call 3: what call 2 missed under load, alone; the harness's cost per candidate after
# the build-cache fix, confined and not, three warm requests each.
section_s11_final() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "call 2's misses under six-way load, alone; a47/a48 cases that do not time out by design"
  timeout 200 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a03_side a13 \
    a44_sum a45_foreach_norm_l2 f01 f15 a47_gru a48_relu a48_hardtanh a48_numpy \
    --json "$OUT/corpus_rest_s11.json" 2>&1 | grep -v '^\['
  harness_overhead 3 180 150
}

# Session 12: threads are refused once candidate code is loaded (exec_monitor). Every
# legitimate candidate must stay ok on the GPU (the CUDA driver's threads start in setup,
# CUPTI's in the harness's profile), and every thread case must be named.
section_s12_legit() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "legitimate candidates (all), threads refused after the import"
  legit_on_gpu 440 legit_s12 library tests/controls
  step "thread cases and CUDA-graph / side-stream cases"
  thread_cases 140 a03 a10 a36 a48_native a21_code a15 a25 a27
}

# Session 12, the device budget's last minutes: the fast legitimate candidates and one RNN.
section_s12_quick() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "legitimate candidates (gelu, softmax, gru_out, controls), threads refused"
  legit_on_gpu 200 legit_s12 library/gelu library/softmax library/gru_out tests/controls
  step "thread cases"
  thread_cases 70 a03_back a36 a48_native a15_cudnn
}

# legit_on_gpu SECONDS NAME PREFIX...: the legitimate candidates named, table into $OUT/NAME.txt
legit_on_gpu() {
  local limit=$1 name=$2
  shift 2
  timeout "$limit" "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all --only "$@" \
    --json "$OUT/$name.json" 2>&1 | grep -v '^\[' | tee "$OUT/$name.txt"
}

# thread_cases SECONDS PREFIX...: corpus cases, into $OUT/corpus_threads_s12.json
thread_cases() {
  local limit=$1
  shift
  timeout "$limit" "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only "$@" \
    --json "$OUT/corpus_threads_s12.json" 2>&1 | grep -v '^\['
}

# Session 12: the rest of the corpus, three groups at a time at most (six-way load caused OOMs).
section_s12_corpus() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "corpus: attacks and faults (three workers)"
  local pids=()
  for group in "a0 a1" "a2 a3 a4" "f"; do
    (timeout 560 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only $group \
      --json "$OUT/corpus_s12_${group// /_}.json" > "$OUT/corpus_s12_${group// /_}.txt" 2>&1) &
    pids+=($!)
  done
  wait "${pids[@]}"
  for group in "a0 a1" "a2 a3 a4" "f"; do
    grep -v '^\[' "$OUT/corpus_s12_${group// /_}.txt" | grep -E "FAIL|open|^total|^FAILED"
  done
}

# after_import FILE...: per case, the threads started and signal handlers installed after the
# candidate's import, with the libraries on the creating thread's stack (exec_monitor)
after_import() {
  "$KFORGE_PYTHON" - "$@" <<'EOS'
import json, sys
for path in sys.argv[1:]:
    for row in json.load(open(path)):
        seen = row.get("confinement") or {}
        print(f"{row['case'][:44]:44} {row['got']:12} {seen.get('threads_started')} "
              f"{seen.get('thread_callers') or []} {seen.get('signal_handlers') or []}")
EOS
}

# resolve_stacks FILE: the first thread stacks of the cases in FILE, as symbols (nm -DC)
resolve_stacks() {
  "$KFORGE_PYTHON" - "$1" <<'EOS'
import bisect, json, subprocess, sys
symbols = {}
def symbol(path, at):
    if path not in symbols:
        try:
            text = subprocess.run(["nm", "-DC", "--defined-only", path], capture_output=True,
                                  text=True).stdout
        except OSError:
            text = ""
        table = sorted((int(f[0], 16), f[2]) for f in (l.split(None, 2) for l in text.splitlines())
                       if len(f) == 3 and f[1] in "TtWw")
        symbols[path] = table
    table = symbols[path]
    i = bisect.bisect_right(table, (at, "\uffff")) - 1
    return f"{table[i][1][:110]}+{hex(at - table[i][0])}" if i >= 0 else "?"
for row in json.load(open(sys.argv[1]))[:2]:
    for stack in (row.get("confinement") or {}).get("thread_stacks") or []:
        print("==", row["case"])
        for entry in stack:
            path, at = entry.rsplit("+", 1)
            print(f"   {path.rsplit('/', 1)[-1]:28} {symbol(path, int(at, 16))}")
EOS
}

section_s13_probe() {
  step "library/gelu, threads refused: who starts the thread in load"
  legit_on_gpu 120 probe_s13 library/gelu
  resolve_stacks "$OUT/probe_s13.json"
}

# Session 13 (H100), last call: forks, CLONE_VM processes and signal handlers refused after the
# import (threads counted, as before); every legitimate candidate must stay ok, the fork and
# thread cases named.
section_s13_final() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "legitimate candidates (all)"
  legit_on_gpu 420 legit_s13 library tests/controls
  step "thread, fork and side-effect cases"
  thread_cases 140 a03_back a48_native a36 a15 f10 f15 f20
  step "threads past the harness's"
  after_import "$OUT/legit_s13.json" "$OUT/corpus_threads_s12.json"
}

# Session 13: the Triton candidates with empty build caches (their compiles run), signal
# handlers counted
section_s13_cold() {
  export KFORGE_BUILD_CACHE=$(mktemp -d)
  step "gelu, softmax and the controls, cold build caches"
  legit_on_gpu 200 legit_s13c library/gelu library/softmax tests/controls
  after_import "$OUT/legit_s13c.json"
}

# Session 13, after s13_final: signal handlers counted (not refused) on the GPU
section_s13_legit() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "legitimate candidates (all)"
  legit_on_gpu 450 legit_s13b library tests/controls
  after_import "$OUT/legit_s13b.json"
}

# Session 14: the harness's steps run once before the seal (warm_up.py), threads and signal
# handlers refused after the import on the GPU too
section_s14_probe() {
  for teardown in 0 1; do  # 0: as the candidate process runs (confinement.environment)
    step "what each harness step starts (bench/thread_probe.py), TEARDOWN_CUPTI=$teardown"
    TEARDOWN_CUPTI=$teardown KINETO_LOG_LEVEL=5 timeout 240 "$KFORGE_PYTHON" bench/thread_probe.py \
      2>&1 | grep -v "^\[" | tail -n 40
  done
}

section_s14_cold() {
  export KFORGE_BUILD_CACHE=$(mktemp -d)
  step "gelu, softmax and the controls, cold build caches, threads refused"
  legit_on_gpu 240 legit_s14c library/gelu library/softmax tests/controls
  after_import "$OUT/legit_s14c.json"
  step "thread, fork and handler cases"
  thread_cases 280 a03_back a48_native a36 a15 a49 f10 f15 f20
  after_import "$OUT/corpus_threads_s12.json"
}

section_s14_legit() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "legitimate candidates (all), threads refused"
  legit_on_gpu 540 legit_s14 library tests/controls
  after_import "$OUT/legit_s14.json"
}

# Session 14: what the warm-up costs a request (the previous commit's worker carried as
# .carry/worker_0a5f73e: `git archive 0a5f73e worker | tar -x -C .carry/worker_0a5f73e`), and
# timing parity with the candidate's TEARDOWN_CUPTI=0
section_s14_cost() {
  for tree in .carry/worker_0a5f73e/worker worker; do
    step "softmax through one warm worker, 3 requests: $tree"
    timeout 200 "$KFORGE_PYTHON" bench/judge_run.py --worker-path "$tree" --repeat 3 \
      --pair tasks/softmax.py:library/softmax/candidate.py 2>&1 | grep -v '^\[' | tail -n 6
  done
  step "timing parity"
  timeout 200 "$KFORGE_PYTHON" bench/timing_parity.py --rounds 2 --chunks 1,4 --variants "" \
    --budget-s 170 --json "$OUT/timing_parity_s14.json" 2>&1 | tail -n 8
}

# Session 14, last: signals that arrive later refused (timers, F_SETSIG, a vfork's end signal),
# Triton's handlers for crash signals only; every legitimate candidate and the thread cases
section_s14_final() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "legitimate candidates (all)"
  legit_on_gpu 560 legit_s14f library tests/controls
  after_import "$OUT/legit_s14f.json"
}

section_s14_threads() {
  step "thread, fork, handler and signal cases"
  thread_cases 300 a03_back a48_native a36 a49_clone a49_native a51 f15 f20
}

# Session 15: every legitimate candidate through `kforge suite eval` (the final signal rule of
# session 14 on a GPU), four workers on one GPU building the library's CUDA kernels into a build
# cache that comes back as $OUT/build_cache.tgz (carried to the two-GPU machine); then the warm
# evaluation's phases, pipeline-like (eager only) and scoring (three baselines), with the
# judge's Python profile.
legit_suite_dir() {  # DIR: tasks/ and cands/ of every library task and control
  mkdir -p "$1/tasks" "$1/cands"
  "$KFORGE_PYTHON" - "$1" <<'EOP'
import json, pathlib, shutil, sys
out = pathlib.Path(sys.argv[1])
for meta in sorted(pathlib.Path("library").glob("*/meta.json")):
    m = json.loads(meta.read_text())
    for task in m.get("tasks", []):
        shutil.copy(f"tasks/{task}.py", out / "tasks")
        shutil.copy(meta.parent / m.get("source", "candidate.py"), out / "cands" / f"{task}.py")
for task, cand in (("matmul", "matmul_triton"), ("conv2d_relu_bias", "conv2d_relu_bias_triton")):
    shutil.copy(f"tasks/{task}.py", out / "tasks")
    shutil.copy(f"tests/controls/{cand}.py", out / "cands" / f"{task}.py")
EOP
}

suite_verdicts() {  # SUITE_DIR: each evaluation's verdict and what the judge saw after the import
  "$KFORGE_PYTHON" - "$1" <<'EOP'
import glob, json, os, sys
for path in sorted(glob.glob(os.path.join(sys.argv[1], "evals", "*.json"))):
    r = json.load(open(path))
    c = r.get("confinement") or {}
    t = r.get("timing") or {}
    med = lambda k: (t.get(k) or {}).get("median_ms")
    print(f"{os.path.basename(path)[:-5]:28} {r['status']:10} cand {med('candidate')} eager "
          f"{med('eager')} | threads {c.get('threads_started')} handlers "
          f"{len(c.get('signal_handlers') or [])} | timed check {r.get('timed_check')} | "
          f"{'; '.join(r.get('reasons') or [])[:300]}")
EOP
}

section_s15_prebuild() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  local dir=/tmp/kforge-legit
  legit_suite_dir $dir
  step "every legitimate candidate, suite eval on GPU 0, 10 trials (builds the cache; the pool refuses a GPU listed twice)"
  timeout 330 $K suite eval --tasks $dir/tasks --candidates $dir/cands --gpus 0 \
    --trials 10 --suite-dir $dir/suite 2>&1 | grep -v '^\[worker' | tail -n 22
  suite_verdicts $dir/suite
  step "warm evaluations: phases, eager only and three baselines, the judge's profile"
  timeout 200 "$KFORGE_PYTHON" bench/bench_harness.py --repeat 2 --cprofile /tmp/kforge-prof \
    --pair tasks/39_GRU.py:library/gru_out/candidate.py \
    --pair tasks/softmax.py:library/softmax/candidate.py 2>&1 | grep -v '^\[' | tail -n 60
  timeout 120 "$KFORGE_PYTHON" bench/bench_harness.py --repeat 1 --baselines \
    eager,compile,cuda_graph --pair tasks/39_GRU.py:library/gru_out/candidate.py 2>&1 |
    grep -v '^\[' | tail -n 8
  tar czf "$OUT/prof.tgz" -C /tmp kforge-prof
  tar czf "$OUT/build_cache.tgz" -C /tmp kforge-builds
  ls -la "$OUT"
}

# Session 16 (prepared in session 15, no device time left to run it): first call, one GPU.
# Every legitimate candidate through suite eval with the session-15 resource watch (shared
# memory, scratch writes, sized tmpfs mounts) and the raw-event read of the timed calls'
# recorder; the new resource faults on a GPU; the phases of a warm RNN evaluation. Set
# KFORGE_BUILD_CACHE to an unpacked .carry/build_cache.tgz to skip the nvcc builds (51-61 s each).
section_s16_legit() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  local dir=/tmp/kforge-legit16
  legit_suite_dir $dir
  step "every legitimate candidate, suite eval on GPU 0 (no task shares the GPU), 30 trials"
  timeout 420 $K suite eval --tasks $dir/tasks --candidates $dir/cands --gpus 0 --trials 30 \
    --suite-dir $dir/suite 2>&1 | grep -v '^\[worker' | tail -n 22
  suite_verdicts $dir/suite
  "$KFORGE_PYTHON" - $dir/suite <<'EOP'
import glob, json, os, sys
for path in sorted(glob.glob(os.path.join(sys.argv[1], "evals", "*.json"))):
    r = json.load(open(path))
    print(f"{os.path.basename(path)[:-5]:28} wall {r.get('wall_s', 0):6.1f} timed "
          f"{r.get('timed_s', 0):6.2f} finish {(r.get('candidate_ops_s') or {}).get('finish')} "
          f"phases {r.get('phases_s')}")
EOP
}

section_s16_faults() {
  step "session 15's faults and attacks on a GPU (resources, deep trees, surrogates, Triton"
  step "classes and constexpr callables) and the thread/fork cases"
  timeout 420 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none \
    --only f06 f26 f27 f28 f29 f30 f31 f32 f33 a53 a54 a55 a03_back a36 f15 f20 2>&1 |
    grep -v '^\[' | tail -n 36
}

# Only where `status` lists a two-GPU kind: the run-mode suite that session 15 could not finish
# on two GPUs (its eval-mode ratio: 0.530). Both walls take ~11 minutes, more than one call: the
# bench runs detached (setsid, it outlives the call while the machine is held) and this section
# waits for it up to 560 s; call it again at once (the machine goes back 30 s after a call) until
# it prints the report, which it then copies to $OUT.
section_s16_two_gpus() {
  local log=/tmp/kforge-2gpu/bench.log
  if [ ! -d /tmp/kforge-2gpu ]; then
    mkdir -p /tmp/kforge-2gpu
    "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
    setsid nohup "$KFORGE_PYTHON" bench/bench_suite.py --kforge $K --gpus 0,1 --mode run \
      --out /tmp/kforge-2gpu/suite_run_2gpu -- --trials 30 >"$log" 2>&1 < /dev/null &
  fi
  for _ in $(seq 112); do
    [ -f /tmp/kforge-2gpu/suite_run_2gpu.md ] && break
    sleep 5
  done
  grep -v '^\[worker' "$log" | tail -n 30
  cp /tmp/kforge-2gpu/suite_run_2gpu.* "$OUT"/ 2>/dev/null || echo "(not finished: call again)"
}

# Session 17 and later, where `status` lists a two-GPU kind: the same run-mode suite as above, each
# wall in a call of its own and in the foreground. Session 16 found the machine given back between
# two calls of s16_two_gpus twice (the second call started bare, the detached bench gone), so no
# wall may depend on the next call. `many` first (~210 s on 2 x H100), then `one` (~400 s) on the
# same machine if it is still held; each copies its report to $OUT. Unpack the build cache first.
section_s17_two_gpus_many() { two_gpu_wall many; }
section_s17_two_gpus_one() { two_gpu_wall one; }
two_gpu_wall() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "suite run --provider library over tasks/ (16 tasks), wall: $1"
  timeout 560 "$KFORGE_PYTHON" bench/bench_suite.py --kforge $K --gpus 0,1 --mode run \
    --walls "$1" --out "$OUT/suite_run_$1" -- --trials 30 2>&1 | grep -v '^\[worker' | tail -n 40
}

# Session 19, one call (~250 s): does CUPTI left subscribed after the candidate process's Kineto
# sessions (TEARDOWN_CUPTI=0 there) slow its launch path? Session 18 (H200) found that path ~2x a
# fresh process's per call (docs/bench/gpu_h200_20261128.md). state_probe prints each stage's
# host us per forward; compare the cuda_prof/guard stages under 0 and 1, then kforge's own figure.
section_s19_cupti() {
  local gelu="bench/parity/gelu_scale.py bench/parity/gelu_scale_task.py"
  for teardown in 0 1; do
    step "state_probe gelu_scale, TEARDOWN_CUPTI=$teardown"
    TEARDOWN_CUPTI=$teardown timeout 100 "$KFORGE_PYTHON" bench/parity/state_probe.py $gelu \
      2>&1 | grep '"stage"'
  done
  step "timing parity (kforge's launch path: kforge_host against bare_host)"
  timeout 200 "$KFORGE_PYTHON" bench/timing_parity.py --rounds 2 --chunks 4 \
    --json "$OUT/timing_parity.json" 2>&1 | grep -v '^\[worker' | tail -n 12
}

# Session 19, second part (~250 s): the overlap of checked calls with the references (session 18,
# unmeasured) on 39_GRU, eager only, with the judge's phases; then the a59 and a34 corpora on the
# GPU (a59 never ran there). Unpack the build cache first (KFORGE_BUILD_CACHE).
section_s19_overhead() {
  gru_overhead
  step "corpora a59 a34 on the GPU"
  timeout 250 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none \
    --only a59 a34 2>&1 | grep -v '^\[' | tail -n 24
}
# Warm evaluations of 39_GRU through one worker, eager only (as a pipeline's candidates are
# timed): the judge's phases and the overhead per candidate (issue 15).
gru_overhead() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "warm evaluations of 39_GRU, eager only, 100 trials: phases and overhead"
  timeout 200 "$KFORGE_PYTHON" bench/bench_harness.py --repeat 3 \
    --pair tasks/39_GRU.py:library/gru_out/candidate.py 2>&1 | grep -v '^\[' | tail -n 20
}

# Session 19, call 2 (~140 s): does a profiler session with CUDA activity after the warm-up speed
# the launch path (cupti_state.py, fresh processes alternating; it did not), what each harness
# step starts (no thread after the candidate's import), then timing parity.
section_s19_warm_up() {
  local gelu="bench/parity/gelu_scale.py bench/parity/gelu_scale_task.py"
  step "launch path after the warm-up, with and without a CUDA profiler session (TEARDOWN_CUPTI=0)"
  TEARDOWN_CUPTI=0 timeout 200 "$KFORGE_PYTHON" bench/parity/cupti_state.py $gelu --processes 3 \
    2>&1 | grep -v '^\[' | tail -n 14
  step "what each harness step starts (bench/thread_probe.py), TEARDOWN_CUPTI=0"
  TEARDOWN_CUPTI=0 KINETO_LOG_LEVEL=5 timeout 150 "$KFORGE_PYTHON" bench/thread_probe.py 2>&1 |
    tail -n 30
  step "timing parity"
  timeout 200 "$KFORGE_PYTHON" bench/timing_parity.py --rounds 2 --chunks 4 \
    --json "$OUT/timing_parity.json" 2>&1 | grep -v '^\[worker' | tail -n 8
}

# Session 19, last call (~420 s): the judge's cheaper seeding and shorter discarded round 0 on
# 39_GRU (eager only, as bench_harness measured before them in call 1), then every legitimate
# candidate through suite eval (s16_legit: the library still ok). Unpack the build cache first.
section_s19_final() {
  gru_overhead
  section_s16_legit
}

# Session 19, after the own-work rule on timed calls (trust.Guard.check_timed over the timed
# recorder's per-trial sizes): every legitimate candidate (no false rejection), then a59 and a34.
section_s19_timed_rule() {
  section_s16_legit
  step "corpora a59 a34 on the GPU"
  timeout 200 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none \
    --only a59 a34 2>&1 | grep -v '^\[' | tail -n 18
}

# Session 20, first call (~330 s; prepared in session 19, not run): the first checked set's
# references computed during the candidate's import (unmeasured), then timing parity with and
# without the sandbox on one lease (session 19 ruled out every in-process step: what is left is
# the sandbox or the two processes taking turns on the GPU). Unpack the build cache first.
section_s20_first() {
  gru_overhead
  step "timing parity, confined (bwrap)"
  timeout 130 "$KFORGE_PYTHON" bench/timing_parity.py --rounds 2 --chunks 4 --variants "" \
    --json "$OUT/parity_bwrap.json" 2>&1 | grep -v '^\[worker' | tail -n 5
  step "timing parity, not confined (KFORGE_BWRAP unset)"
  env -u KFORGE_BWRAP timeout 130 "$KFORGE_PYTHON" bench/timing_parity.py --rounds 2 --chunks 4 \
    --variants "" --json "$OUT/parity_plain.json" 2>&1 | grep -v '^\[worker' | tail -n 5
}

# Session 20: which part of the real candidate process slows the launch path (parity), and
# which library installs signal handlers on its own (a false accusation's risk)
section_s20_ablation() {
  step "signal handlers installed by libraries on their own"
  timeout 120 "$KFORGE_PYTHON" bench/signal_handlers_probe.py 2>&1 | grep -v "^\[worker" | tail -n 20
  step "a59_tiny_slice_whitelist through the corpus runner (the charged handler's library)"
  timeout 120 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none \
    --only a59_tiny_slice_whitelist 2>&1 | tail -n 4
  step "host probe: the audit events and operators one forward raises (gelu_scale)"
  timeout 150 "$KFORGE_PYTHON" bench/parity/host_probe.py bench/parity/gelu_scale.py \
    bench/parity/gelu_scale_task.py --trials 200 2>&1 | grep -v "^\[worker" | tail -n 8
  step "parity ablation: the real candidate process, one piece out at a time"
  timeout 420 "$KFORGE_PYTHON" bench/parity/ablation.py --rounds 2 --budget-s 380 \
    --json "$OUT/ablation.json" 2>&1 | grep -v '^\[worker' | tail -n 40
}

# Session 20, call 2: where a checked GRU set's time goes (fp32 and fp64 references, the wait for
# the candidate's reply, the candidate's own handling), the build cache kept for later calls;
# a59 after the LLVM-handler change, with the legitimate Triton candidates beside it.
section_s20_overhead() {
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  [ -f .carry/build_cache.tgz ] && tar xzf .carry/build_cache.tgz -C /tmp
  gru_overhead
  tar czf "$OUT/build_cache.tgz" -C /tmp kforge-builds
  step "a59_tiny_slice_whitelist and the library's softmax and GELU on the GPU"
  timeout 200 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all \
    --only a59_tiny_slice_whitelist library/softmax library/gelu 2>&1 | grep -v '^\[' | tail -n 8
}

# Session 20, call 3: the correctness phase reading later sets ahead while the candidate's first
# call runs; whose handler a59 is charged for (old -> new handler, the judge's full reason).
section_s20_read_ahead() {
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  [ -f .carry/build_cache.tgz ] && tar xzf .carry/build_cache.tgz -C /tmp
  step "signal handlers installed by libraries on their own (old -> new)"
  timeout 120 "$KFORGE_PYTHON" bench/signal_handlers_probe.py 2>&1 | grep -v "^\[worker" | tail -n 16
  step "a59_tiny_slice_whitelist: the judge's whole reason"
  timeout 150 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none \
    --only a59_tiny_slice_whitelist --json "$OUT/a59.json" >/dev/null 2>&1
  "$KFORGE_PYTHON" -c 'import json,sys; [print(r["got"], r["reasons"]) for r in json.load(open(sys.argv[1]))]' "$OUT/a59.json" 2>&1 | tail -n 5
  gru_overhead
  step "legitimate candidates with a cached or no build (GPU, read-ahead)"
  timeout 300 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all --only library/softmax \
    library/gelu library/gru_out tests/controls worker/tests/candidates 2>&1 | grep -v '^\[' | tail -n 14
}

# Session 20, call 4: a59 after the NVRTC-handler change; the RNN kernels' per-step budget at
# the current code (issue 16): GRU and LSTM, one layer and the 6-layer wavefront, with clocks.
section_s20_rnn_budget() {
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  [ -f .carry/build_cache.tgz ] && tar xzf .carry/build_cache.tgz -C /tmp
  step "a59_tiny_slice_whitelist after the NVRTC-handler change"
  timeout 150 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none \
    --only a59_tiny_slice_whitelist --json "$OUT/a59.json" 2>&1 | grep -v '^\[' | tail -n 3
  "$KFORGE_PYTHON" -c 'import json,sys; [print(r["got"], r["reasons"]) for r in json.load(open(sys.argv[1]))]' "$OUT/a59.json"
  step "RNN per-step time, GRU and LSTM, 1 and 6 layers"
  timeout 240 "$KFORGE_PYTHON" bench/bench_rnn_scaling.py --cell both --layers 1,6 --trials 20 2>&1 | tail -n 8
  step "RNN per-step phases (profile build: clocks per phase)"
  timeout 300 "$KFORGE_PYTHON" bench/bench_rnn_scaling.py --cell both --layers 1,6 --trials 5 --profile 2>&1 | tail -n 40
  tar czf "$OUT/build_cache.tgz" -C /tmp kforge-builds
}

# Session 20, call 5: the GPU-only cases and the timing-related classes of issues 12 and 18 after
# this session's judge changes (read-ahead of checked sets, library signal handlers).
section_s20_corpora() {
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  [ -f .carry/build_cache.tgz ] && tar xzf .carry/build_cache.tgz -C /tmp
  step "corpora on the GPU: a03 a10 a12 a15 a25 a26 a27 a29 a34 a59 f01-f03"
  timeout 500 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none \
    --only a03 a10 a12 a15 a25 a26 a27 a29 a34 a59 f01 f02 f03 --json "$OUT/corpora.json" \
    2>&1 | grep -v '^\[' | tail -n 60
}

# Session 20, call 6: a25 and f34 after the refused-thread change; the library's softmax and GELU.
section_s20_last() {
  step "a25_global_flips, f34 and the library's softmax and GELU on the GPU"
  timeout 200 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all \
    --only a25_global_flips f34 library/softmax library/gelu 2>&1 | grep -v '^\[' | tail -n 10
}

# Session 22, call 1: the whole corpus (attacks and faults, CPU and GPU-only cases) on the GPU,
# five shards side by side (run_corpora.py --shard K/5), for issue 12's one-lease proof.
section_s22_corpus() {
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  [ -f .carry/build_cache.tgz ] && tar xzf .carry/build_cache.tgz -C /tmp
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "corpus: every attack and fault, five shards side by side"
  local pids=()
  for k in 1 2 3 4 5; do
    (timeout 540 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --shard $k/5 \
      --json "$OUT/corpus_s22_$k.json" > "$OUT/corpus_s22_$k.txt" 2>&1) &
    pids+=($!)
  done
  wait "${pids[@]}"
  for k in 1 2 3 4 5; do
    grep -v '^\[' "$OUT/corpus_s22_$k.txt" | grep -E "FAIL|  open|^total|^FAILED|Traceback"
  done
}

# Session 22, call 2 (same lease): every library kernel and legitimate control alone on the GPU
# (suite eval).
section_s22_legit() {
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  [ -f .carry/build_cache.tgz ] && tar xzf .carry/build_cache.tgz -C /tmp
  section_s16_legit
}

# Session 22, call 3 (same lease): issue 12's immunity check (39_GRU's baselines before and after
# the library GRU with the cuDNN flip), then the warm 39_GRU evaluation's overhead (issue 15).
section_s22_third() {
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  [ -f .carry/build_cache.tgz ] && tar xzf .carry/build_cache.tgz -C /tmp
  section_immunity
  gru_overhead
}

# Session 22, last call: the library GRU built by nvcc under the code-mapping rule (no build cache),
# the a60 cases (code of the candidate's inside a program it runs) and the library's softmax and
# GELU; beside it, the 58 cases call 1's five shards did not reach, in three runs.
section_s22_rest() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  unset KFORGE_BUILD_CACHE
  local groups=("a47_gelu_kernel_global a48_pickle_numpy_linspace a49_fork_memfd_remap a52_triton_ret_restorer a50_helper_through_own_module a55_tensor_method a56_leaky_beyond_8 a57_hardsigmoid_detects_share a58_hardsigmoid_whole_numbers a59_toggle_collection_timed a59_numpy_timed f04_infinite_loop f07_os_exit f11_network f15_ctypes_fork_exec f19_mkfifo_mknod_sqlite f22_secrets f26_memfd_hoard f30_surrogate_error f34_waits_on_refused_thread"
                "a48_save_numpy_addr_channel a49_grid_function_numpy a49_native_sigalrm a52_tsc_trap_later a53_constexpr_function_gemm a55_getattr_callee a56_hardsigmoid_rare_values a57_cumprod_logspace_cap a58_hardtanh_combined_detector a59_refusal_keeper_send f01_segfault f05_cuda_oom f09_stdout_flood f12_write_outside f16_posixsubprocess f20_setsid_survivor f24_deep_recursion f27_tmpfs_fill f31_memfd_in_flight"
                "a48_hardtanh_min_max a49_builder_cumsum a49_finalizer_slot a50_module_attribute_gemm a54_tiny_output_softmax a56_cumprod_spread_overflow a57_hardtanh_detects_sprinkle a58_elu_beyond_2_20 a58_softplus_below_2_24 a59_tiny_slice_whitelist f02_illegal_address f06_host_memory f10_fork f14_escape_below_python f17_ninja_rule f21_cache_poison f25_config_file f29_deep_tree f32_disk_in_flight")
  local pids=() i=0
  for group in "${groups[@]}"; do
    i=$((i + 1))
    (timeout 430 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only $group \
      --json "$OUT/rest_$i.json" > "$OUT/rest_$i.txt" 2>&1) &
    pids+=($!)
  done
  step "a60, and the library's GRU (nvcc build), softmax and GELU"
  timeout 430 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all --only a60 \
    library/gru_out library/softmax library/gelu --json "$OUT/verify.json" 2>&1 | grep -v '^\[' |
    tail -n 12
  wait "${pids[@]}"
  for i in 1 2 3; do
    step "rest $i"; grep -v '^\[' "$OUT/rest_$i.txt" | grep -E "FAIL|  open|^total|^FAILED|Traceback"
  done
}

# Session 23, call 1: session 22's read-only /proc broke CUDA's initialisation in the sandbox (its
# driver names its threads through /proc/self/task/TID/comm: error 304, every candidate crashed);
# /proc is writable again and the judge refuses an open of /proc/PID/mem for writing. Every
# library kernel and control through suite eval with an empty build cache (nvcc, ptxas and ninja
# under the new write-open watch), one worker on GPU 0, 10 trials; beside it the escape and relay
# cases. Leaves the fresh build cache in $OUT/build_cache.tgz.
section_s23_first() {
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  rm -rf "$KFORGE_BUILD_CACHE" && mkdir -p "$KFORGE_BUILD_CACHE"
  local dir=/tmp/kforge-legit23
  legit_suite_dir $dir
  (timeout 400 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none \
    --only f36 a60 f14 f15 f16 f17 f20 a36 a49_fork a61 --json "$OUT/escapes_s23.json" \
    > "$OUT/escapes_s23.txt" 2>&1) &
  local pid=$!
  step "every legitimate candidate, suite eval on GPU 0, 10 trials, empty build cache"
  timeout 500 $K suite eval --tasks $dir/tasks --candidates $dir/cands --gpus 0 \
    --trials 10 --suite-dir $dir/suite 2>&1 | grep -v '^\[worker' | tail -n 22
  suite_verdicts $dir/suite
  tar czf "$OUT/build_cache.tgz" -C /tmp kforge-builds
  wait $pid
  step "escape and relay cases"
  grep -v '^\[' "$OUT/escapes_s23.txt" | tail -n 30
}

# Session 23, call 2: every library kernel and control alone on GPU 0 at 30 trials (issue 12's
# speed-ups, after the write-open watch and the judge's look at the process tree at every forward
# request), the build cache of call 1; then the relay and helper cases and f36.
section_s23_second() {
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  [ -f .carry/build_cache.tgz ] && tar xzf .carry/build_cache.tgz -C /tmp
  section_s16_legit
  step "relay, helper and /proc/PID/mem cases"
  timeout 200 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none \
    --only a62 a60_ninja f36 f20 a49_daemon --json "$OUT/beside_s23.json" 2>&1 | grep -v '^\[' |
    tail -n 12
}

# Session 23, call 3: the cases that run programs, fork or map files (the write-open watch and the
# judge's look at the process tree at every forward request), the bit-level attacks and the
# honest dtype-view control, in two runs side by side.
section_s23_third() {
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  [ -f .carry/build_cache.tgz ] && tar xzf .carry/build_cache.tgz -C /tmp
  (timeout 430 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all --only a49 a47 \
    tests/controls library/softmax --json "$OUT/third_a.json" > "$OUT/third_a.txt" 2>&1) &
  local pid=$!
  timeout 430 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a60 a61 \
    a62 f10 f14 f15 f16 f17 f19 f20 f21 f29 f36 --json "$OUT/third_b.json" > "$OUT/third_b.txt" 2>&1
  wait $pid
  for part in a b; do
    step "run $part"; grep -v '^\[' "$OUT/third_$part.txt" | grep -E "FAIL|  open|^total|^FAILED|Traceback|^legit"
  done
}

# Session 24: issue 12's one-lease proof, in three calls on one warm machine. Call 1 (s24_first):
# every library kernel and control alone on GPU 0 (30 trials), the immunity check, then the whole
# corpus (every attack and fault, the CPU cases too) started in six shards in its own session, so
# that it outlives the call; calls 2 and 3 (s24_wait) print its progress until it ends, then its
# failures and totals, and copy its output into $OUT.
S24=/tmp/kforge-s24
section_s24_first() {
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  [ -f .carry/build_cache.tgz ] && tar xzf .carry/build_cache.tgz -C /tmp
  section_s16_legit
  section_immunity
  step "the whole corpus, six shards side by side, detached"
  mkdir -p $S24
  for k in 1 2 3 4 5 6; do
    setsid bash -c "timeout 1150 '$KFORGE_PYTHON' tests/run_corpora.py --device cuda --legit none \
      --shard $k/6 --json $S24/corpus_$k.json > $S24/corpus_$k.txt 2>&1; echo done > $S24/done_$k" \
      < /dev/null > /dev/null 2>&1 &
  done
  sleep 2
  section_s24_wait $((575 - SECONDS))
}

section_s24_wait() {
  local limit=${1:-560} started=$SECONDS
  while [ $((SECONDS - started)) -lt "$limit" ] && [ "$(ls $S24/done_* 2>/dev/null | wc -l)" -lt 6 ]; do
    sleep 10
  done
  step "corpus progress: $(ls $S24/done_* 2>/dev/null | wc -l) of 6 shards done"
  for k in 1 2 3 4 5 6; do
    printf 'shard %s: %s rows\n' $k "$(grep -cE '^(attack|fault) ' $S24/corpus_$k.txt 2>/dev/null)"
    grep -v '^\[' $S24/corpus_$k.txt 2>/dev/null | grep -E "^total|^FAILED|Traceback" | cut -c1-400
  done
  cp $S24/corpus_* "$OUT/" 2>/dev/null
}

# Session 25, first call on a fresh machine (no build cache carried): every library source
# built side by side (one kforge eval each, nvcc's 51-61 s in parallel), the cache sent back;
# then every library kernel and control alone under the timed-call exec rule (session 24) and
# timed outputs held to the checked calls' tolerance (each result's timed_check: the worst
# error against its bound); then the cases new since the last GPU run.
section_s25_first() {
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  [ -f .carry/build_cache.tgz ] && tar xzf .carry/build_cache.tgz -C /tmp
  section_s25_side  # builds every library source side by side (nvcc's 51-61 s in parallel)
  tar czf "$OUT/build_cache.tgz" -C /tmp kforge-builds
  section_s16_legit
  step "the cases new since the last GPU run"
  timeout 240 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none \
    --only a33 a34_dispatch a63 a64 2>&1 | grep -v '^\[' | tail -n 10
}

# Session 25, second call: the same side-by-side evaluations with the cache (39_GRU and
# 37_LSTMCn ended `rejected` beside the nvcc builds: why), then the whole corpus in six shards,
# detached (section_s25_wait collects it in the next call).
S25=/tmp/kforge-s25
section_s25_second() {
  use_build_cache
  section_s25_side
  step "the whole corpus, six shards side by side, detached"
  mkdir -p $S25
  for k in 1 2 3 4 5 6; do
    setsid bash -c "timeout 1150 '$KFORGE_PYTHON' tests/run_corpora.py --device cuda --legit none \
      --shard $k/6 --json $S25/corpus_$k.json > $S25/corpus_$k.txt 2>&1; echo done > $S25/done_$k" \
      < /dev/null > /dev/null 2>&1 &
  done
  sleep 2
  S24=$S25 section_s24_wait $((570 - SECONDS))
}

section_s25_side() {
  use_build_cache
  rm -f /tmp/side_*
  step "every library source, side by side again (cache built): verdicts and reasons"
  local pairs
  pairs=$("$KFORGE_PYTHON" -c 'import json,pathlib
for m in sorted(pathlib.Path("library").glob("*/meta.json")):
    d = json.loads(m.read_text()); print(d["tasks"][0] + ":" + str(m.parent) + "/" + d.get("source", "candidate.py"))')
  for pair in $pairs; do
    timeout 240 $K eval --task "tasks/${pair%%:*}.py" --candidate "${pair#*:}" --trials 3 \
      --json > "/tmp/side_${pair%%:*}.json" 2> "/tmp/side_${pair%%:*}.err" &
  done
  wait
  "$KFORGE_PYTHON" - <<'EOP2'
import glob, json, os
for path in sorted(glob.glob("/tmp/side_*.json")):
    name = os.path.basename(path)[5:-5]
    try:
        r = json.load(open(path))
    except Exception as error:
        err = open(path[:-5] + ".err").read().strip().splitlines()
        print(f"{name:28} no result ({error}); stderr: {' | '.join(err[-2:])[:400]}")
        continue
    print(f"{name:28} {r.get('status')} wall {r.get('wall_s')} | "
          f"{(r.get('error') or '')[:300]!r} | {r.get('reasons')}")
EOP2
}

# Session 25, third call: the side-by-side evaluations again, now that a wall-clock
# disagreement beside other processes on the GPU is not judged (gpu_sharing.py); then the
# corpus cases that failed their line beside five other shards, alone.
section_s25_third() {
  step "NVML: the processes on this GPU, seen from a process that holds a context"
  "$KFORGE_PYTHON" -c 'import os, sys, time; sys.path.insert(0, "worker"); import torch
from kforge_worker import gpu_sharing
torch.zeros(1, device="cuda"); u = str(torch.cuda.get_device_properties(0).uuid)
began = time.perf_counter(); pids = gpu_sharing.processes_on(u)
print("uuid", u, "processes", pids, "me", os.getpid(), "query ms", round((time.perf_counter() - began) * 1e3, 1))'
  section_s25_side
  step "the corpus cases that failed beside other shards, alone"
  timeout 300 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none \
    --only a13_timing_only_cheat a16_decoy_launch a33_tolerance_switch_by_cost a44_cumsum_scan \
    f12_write_outside f17_ninja_rule f23_pidfd_signal 2>&1 | grep -v '^\[' | tail -n 14
}

# Session 25, fourth call: the 38 corpus cases the second call's shards did not reach (the
# machine went back with them), in three streams.
section_s25_rest() {
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  [ -d /tmp/kforge-builds ] || tar xzf .carry/build_cache.tgz -C /tmp
  local rest="a47_softmax_pickle_scalars a48_relu_mul_gt a49_grid_function_numpy
    a49_daemon_named_bwrap a51_triton_handler_alarm a50_module_attribute_gemm
    a53_constexpr_helper_builtin a55_getattr_callee a57_leaky_nan_at_zero a57_cumprod_logspace_cap
    a57_tanh_bf16_inputs a58_relu_beyond_2_20 a58_softplus_below_2_24 a59_op_dk_timed
    a59_numpy_timed a60_ninja_shell_relay a61_python_from_file a61_gxx_constexpr_from_file
    f01_segfault f02_illegal_address f03_gpu_hang f07_os_exit f08_sys_exit f09_stdout_flood
    f13_kill_worker f14_escape_below_python f15_ctypes_fork_exec f19_mkfifo_mknod_sqlite
    f20_setsid_survivor f21_cache_poison f25_config_file f26_memfd_hoard f27_tmpfs_fill
    f29_deep_tree f31_memfd_in_flight f32_disk_in_flight f33_dev_tmpfs f35_refused_then_hangs_later"
  step "the rest of the corpus, three streams"
  for k in 1 2 3; do
    timeout 560 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --shard $k/3 \
      --only $rest > /tmp/rest_$k.txt 2>&1 &
  done
  wait
  for k in 1 2 3; do
    grep -v '^\[' /tmp/rest_$k.txt | grep -E '^(attack|fault) |^total|^FAILED' | cut -c1-330
  done
  cp /tmp/rest_* "$OUT/" 2>/dev/null
}

# Session 25, last call: every library kernel and control once more, 10 trials, now that timed
# outputs are also held to the checked calls' relative L2 bound (each result's timed_check).
section_s25_final() {
  use_build_cache
  local dir=/tmp/kforge-legit25
  legit_suite_dir $dir
  step "every legitimate candidate, suite eval on GPU 0, 10 trials"
  timeout 170 $K suite eval --tasks $dir/tasks --candidates $dir/cands --gpus 0 --trials 10 \
    --suite-dir $dir/suite 2>&1 | grep -E 'ok \(|: [a-z_]+ \(|fast_0|tasks:' | tail -n 16
  suite_verdicts $dir/suite | cut -c1-60,130-420
}

section_s25_wait() {
  S24=$S25 section_s24_wait "${1:-560}"
}

# Session 27, first call on a fresh machine: every library source built side by side (the cache
# sent back), then every library kernel and control under session 25's timed bounds (relative L2
# and per output, never run on a GPU before), then the warm worker's overhead per candidate
# (issue 15) after session 26's start-up changes (dispatch modes without torch._dynamo, one
# pre-started candidate process per evaluation left).
section_s27_first() {
  section_s25_side
  tar czf "$OUT/build_cache.tgz" -C /tmp kforge-builds
  section_s25_final
  warm_overhead harness_s27 40
}

# warm_overhead NAME LINES: bench_harness.py's overhead per candidate (issue 15) on 39_GRU,
# 35_LSTM and softmax, three warm requests each, into $OUT/NAME.txt; its last LINES lines.
warm_overhead() {
  step "warm-worker overhead (issue 15)"
  timeout 200 "$KFORGE_PYTHON" bench/bench_harness.py --repeat 3 \
    --pair tasks/39_GRU.py:library/gru_out/candidate.py \
    --pair tasks/35_LSTM.py:library/lstm_fc/candidate.py \
    --pair tasks/softmax.py:library/softmax/candidate.py 2>&1 | grep -v '^\[' | tee "$OUT/$1.txt" |
    tail -n "$2"
}

# suite_starts SUITE_DIR: each evaluation's wait for its candidate process and that process's
# own account of its start-up (candidate_start), with the profile request's own-kernel share.
suite_starts() {
  "$KFORGE_PYTHON" - "$1" <<'EOP'
import glob, json, os, sys
for path in sorted(glob.glob(os.path.join(sys.argv[1], "evals", "*.json"))):
    r = json.load(open(path))
    c = r.get("candidate_start") or {}
    steps = c.get("steps_s") or {}
    kernels = [k.get("name", "")[:30] for k in (r.get("kernels") or [])][:2]
    print(f"{os.path.basename(path)[:-5]:28} wait {r.get('phases_s', {}).get('start_candidate')} s | age"
          f" {c.get('age_s')} idle {c.get('idle_s')} | start-up {sum(v or 0 for v in steps.values()):.2f} s"
          f" (imports {steps.get('imports')}, Kineto {steps.get('first Kineto session')}) |"
          f" own share {r.get('own_kernel_share')} {kernels}")
EOP
}

# Session 27, second call (the cache of the first): the same suite eval after the warm pool
# starts each replacement as its process is taken (each evaluation reports its candidate
# process's age and start-up steps: candidate_start), then the warm worker's overhead again.
section_s27_second() {
  section_s25_final
  suite_starts /tmp/kforge-legit25/suite
  warm_overhead harness_s27b 14
  grep -E "run [0-9]|candidate start" "$OUT/harness_s27b.txt"
}

# Session 27, third call: after the candidate processes' profiler stopped importing
# torch._inductor (launches.kineto_session) and the worker starts its first candidate process
# before its own imports: the suite eval again, two one-shot `kforge eval`, the worker's GPU
# tests (the profile request), the warm worker's overhead.
section_s27_third() {
  section_s25_final
  suite_starts /tmp/kforge-legit25/suite
  for run in 1 2; do
    step "one-shot kforge eval softmax (run $run)"
    local began=$(date +%s.%N)
    $K eval --task tasks/softmax.py --candidate library/softmax/candidate.py --json \
      >/tmp/oneshot.json 2>/tmp/oneshot.err
    "$KFORGE_PYTHON" -c "import time; print('kforge eval wall', round(time.time() - $began, 2), 's')"
    "$KFORGE_PYTHON" -c 'import json; r=json.load(open("/tmp/oneshot.json")); r=r.get("result",r); print(r["status"], r.get("phases_s"), r.get("candidate_start",{}).get("age_s"))'
  done
  step "worker GPU tests"
  timeout 200 "$KFORGE_PYTHON" -m pytest -q worker/tests/test_gpu.py 2>&1 | tail -4
  warm_overhead harness_s27c 14
  grep -E "candidate start" "$OUT/harness_s27c.txt" | cut -c1-60,240-330
}

versions

# Session 28, first call: frame-evaluation callbacks behind the filter on this torch (the unit
# tests and the a69/a70 corpus cases on the GPU), then the warm worker's overhead per candidate
# with the judge's evaluate child profiled (issue 15: where the judge's ~2-3 s go), the
# profiles sent back.
section_s28_first() {
  step "frame-evaluation filter and refusal keeper: unit tests"
  (cd worker && timeout 300 "$KFORGE_PYTHON" -m pytest -q tests/test_trust.py \
    -k "frame_evaluation or closure_cells" 2>&1 | tail -n 3)
  step "a69/a70 and the refusal cases on the GPU"
  timeout 300 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none \
    --only a69 a70 a59_refusal a43_profiler 2>&1 | grep -v '^\[' | grep -E '^(attack|total)' |
    cut -c1-260
  use_build_cache
  step "warm-worker overhead, the judge's evaluate child profiled"
  timeout 240 "$KFORGE_PYTHON" bench/bench_harness.py --repeat 3 --cprofile "$OUT/prof" \
    --pair tasks/39_GRU.py:library/gru_out/candidate.py \
    --pair tasks/softmax.py:library/softmax/candidate.py 2>&1 | grep -v '^\[' |
    tee "$OUT/harness_s28.txt" | grep -E -v '^ +[0-9]+ +[0-9.]+ ' | tail -n 40
}

# Session 28, second call: a71 (a sys.monitoring callback that empties the policy checks'
# reasons; Python 3.12 only, so never seen in CI) from a copy of this checkout without the
# refusal, then with it; the audit-policy unit test on this Python; then every library kernel
# and control (the refusal wrappers' keeper, on the profiler's path, rewritten this session).
section_s28_second() {
  step "a71 without the monitoring refusal (a copy of this checkout)"
  rm -rf /tmp/before && mkdir /tmp/before && cp -r tasks tests worker library /tmp/before/
  sed -i '/"sys.monitoring.register_callback"/,+1d' /tmp/before/worker/kforge_worker/trust_audit.py
  grep -c "sys.monitoring" /tmp/before/worker/kforge_worker/trust_audit.py
  timeout 200 "$KFORGE_PYTHON" /tmp/before/tests/run_corpora.py --device cuda --legit none \
    --only a71 2>&1 | grep -E '^(attack|total)' | cut -c1-260
  step "a71 and a69/a70 with it"
  timeout 300 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none \
    --only a71 a69 a70 2>&1 | grep -E '^(attack|total)' | cut -c1-260
  step "audit policy unit test on this Python"
  (cd worker && timeout 200 "$KFORGE_PYTHON" -m pytest -q tests/test_trust.py \
    -k "audit_policy_in_a_child or frame_evaluation or closure_cells" 2>&1 | tail -n 2)
  section_s25_final
}

# Session 28, third call: where an RNN candidate's first call goes (load_inline with its cache
# warm, or the built module imported), then the warm worker's overhead after the timed calls'
# check went to one synchronisation per block (timed_check.check_block).
section_s28_third() {
  use_build_cache
  step "an RNN candidate's first call, outside the sandbox"
  timeout 200 "$KFORGE_PYTHON" bench/diag/rnn_first_call.py --rounds 2 2>&1 | tail -n 6
  warm_overhead harness_s28b 14
  grep -E "phases|candidate start" "$OUT/harness_s28b.txt" | cut -c1-300
}

# Session 28, fourth call: the RNN candidates import their built cluster module directly
# (rnn_common._built_module) and so have new sources: every library source built side by side
# (the cache sent back), the first-call diagnostic again, the warm worker's overhead, then every
# library kernel and control through the suite.
section_s28_fourth() {
  section_s25_side
  tar czf "$OUT/build_cache.tgz" -C /tmp kforge-builds
  step "an RNN candidate's first call, outside the sandbox"
  timeout 200 "$KFORGE_PYTHON" bench/diag/rnn_first_call.py --rounds 2 2>&1 | tail -n 6
  warm_overhead harness_s28c 14
  grep -E "phases|candidate start" "$OUT/harness_s28c.txt" | cut -c1-200
  section_s25_final
}

# Session 28, last call: the RNN candidates' sources changed again (no torch.utils.cpp_extension
# import when the module is built): every library source built and judged side by side, their
# cache slots alone sent back; the blind red team's a72 cases on the GPU; the warm overhead.
section_s28_fifth() {
  section_s25_side
  "$KFORGE_PYTHON" - <<'EOP' > /tmp/slots.txt
import glob, hashlib, json, os
for meta in sorted(glob.glob("library/*/meta.json")):
    source = os.path.join(os.path.dirname(meta), json.load(open(meta)).get("source", "candidate.py"))
    print("kforge-builds/" + hashlib.sha256(open(source, "rb").read()).hexdigest()[:24])
EOP
  tar czf "$OUT/build_cache.tgz" -C /tmp $(cat /tmp/slots.txt) 2>&1 | tail -n 2
  ls -la "$OUT/build_cache.tgz"
  step "the blind red team's a72 cases and a69-a71 on the GPU"
  timeout 240 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a72 a69 a70 a71 \
    2>&1 | grep -E '^(attack|total)' | cut -c1-230
  warm_overhead harness_s28d 14
  grep -E "phases|checked calls" "$OUT/harness_s28d.txt" | cut -c1-200
}

# Session 29: the operator probes (operator_probes.py) on a GPU: tracefs and perf events there,
# the unit tests, the redispatch cases (a73_cuda_redispatch_timed is the GPU's open a59 case),
# their cost on the warm overhead, and the library unchanged.
section_s29_probes() {
  step "tracefs and perf events"
  ls /sys/kernel/tracing/uprobe_events 2>&1; cat /proc/sys/kernel/perf_event_paranoid
  timeout 200 "$KFORGE_PYTHON" -m pytest -q worker/tests/test_operator_probes.py 2>&1 | tail -n 3
  step "the probed functions of libtorch_cuda.so for softmax and GRU"
  PYTHONPATH=worker "$KFORGE_PYTHON" - <<'EOP'
import time
from kforge_worker import operator_probes as p, trust_ops as t
for ops in (t.family("softmax"), t.family("gru")):
    began = time.monotonic()
    found = p.probes_for(p.probed_operators(ops))
    print({path.rsplit("/", 1)[-1]: len(v) for path, v in found.items()},
          f"{time.monotonic() - began:.2f} s")
EOP
  step "the redispatch cases and the a72/a73 cases on the GPU"
  timeout 240 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none \
    --only a73 a59_redispatch a59_op_dk a72 a07 2>&1 | grep -E '^(attack|total)' | cut -c1-230
  [ -n "${S29_NO_TAIL:-}" ] || section_s29_tail
}

section_s29_tail() {
  warm_overhead harness_s29 14
  section_s25_final
}

section_s30_vendor() {
  step "the vendor libraries found and their probes for a dense and a recurrent task"
  PYTHONPATH=worker "$KFORGE_PYTHON" - <<'EOP'
import time
import torch
from kforge_worker import operator_probes as p
torch.zeros(1, device="cuda") @ torch.zeros(1, device="cuda")
began = time.monotonic()
print([path.rsplit("/", 1)[-1] for path in p.vendor_libraries()])
for dense, recurrent in ((True, False), (False, True)):
    found = p.vendor_probes(dense, recurrent)
    print(f"dense={dense} recurrent={recurrent}",
          {path.rsplit("/", 1)[-1]: len(v) for path, v in found.items()})
print(f"{time.monotonic() - began:.2f} s (indexes built or read from the cache)")
EOP
  step "cuBLAS through ctypes, the dense and GEMM cases, the controls"
  timeout 300 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all \
    --only a75 a41 a43_gemm a46_gemm a07 tests 2>&1 | grep -E '^(attack|legit|total)' | cut -c1-230
}

# Session 31, first call on a bare machine (no build cache carried): the vendor probes, then
# session 29's probes without their library tail, which needs the RNN builds.
section_s31_first() {
  section_s30_vendor
  S29_NO_TAIL=1 section_s29_probes
}

# Session 31, second call: every library source side by side (builds the RNN cache in parallel,
# sent back for later calls), then the warm overhead with the probes (issue 15).
section_s31_second() {
  section_s25_side
  tar czf "$OUT/build_cache.tgz" -C /tmp kforge-builds
  step "session 31's cases on the GPU (mode stacks, C API, dense tasks at full size)"
  timeout 240 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a76 a77 \
    2>&1 | grep -E '^(attack|total)' | cut -c1-230
}

# Session 31, third call: the warm overhead with the probes and TensorScale (issue 15), and the
# controls.
section_s31_third() {
  use_build_cache
  warm_overhead harness_s31 14
  step "the controls on the GPU"
  timeout 200 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all --only tests/controls \
    2>&1 | grep -E '^(legit|total)' | cut -c1-230
}

# Session 32, first call (a fresh checkout: no build cache carried): every library source side by
# side (builds the RNN cache, sent back), the operator probes' unit tests on a GPU, session 31's
# cases (a78, a79) on the GPU, and the warm overhead with the judge's profile (issue 15).
section_s32_first() {
  section_s25_side
  tar czf "$OUT/build_cache.tgz" -C /tmp kforge-builds
  step "the operator probes' unit tests on the GPU"
  timeout 150 "$KFORGE_PYTHON" -m pytest -q -x worker/tests/test_operator_probes.py 2>&1 | tail -n 6
  step "session 31's blind red-team cases on the GPU (a78, a79)"
  timeout 200 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a78 a79 \
    2>&1 | grep -E '^(attack|total)' | cut -c1-230
  step "warm-worker overhead with the judge's profile (issue 15)"
  timeout 150 "$KFORGE_PYTHON" bench/bench_harness.py --repeat 3 --cprofile /tmp/kforge-prof \
    --pair tasks/39_GRU.py:library/gru_out/candidate.py \
    --pair tasks/softmax.py:library/softmax/candidate.py 2>&1 | grep -v '^\[' > "$OUT/harness_s32.txt"
  grep -v "^ \{2,\}[0-9]" "$OUT/harness_s32.txt" | grep -v "^$" | tail -n 40
  tar czf "$OUT/prof.tgz" -C /tmp kforge-prof
}

# Session 32, second call: the timed check's one-pass error statistics (error_stats.py) against
# PyTorch's, the warm overhead after it, a78's remaining cases, timing parity (issue 18).
section_s32_second() {
  use_build_cache
  step "the one-pass error statistics on the GPU"
  timeout 120 "$KFORGE_PYTHON" -m pytest -q -s worker/tests/test_gpu.py -k fused_error 2>&1 |
    grep -E "ms per output|passed|failed|Error" | head -n 12
  step "warm-worker overhead after the one-pass timed check (issue 15)"
  timeout 150 "$KFORGE_PYTHON" bench/bench_harness.py --repeat 3 \
    --pair tasks/39_GRU.py:library/gru_out/candidate.py \
    --pair tasks/softmax.py:library/softmax/candidate.py 2>&1 | grep -v '^\[' > "$OUT/harness_s32b.txt"
  grep -E "^\||phases|spread" "$OUT/harness_s32b.txt" | tail -n 22
  step "a78's remaining cases on the GPU"
  timeout 210 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only \
    a78_l2gemm a78_matmul_addcmul a78_matmul_numpy a78_matmul_redispatch a78_sdpa \
    2>&1 | grep -E '^(attack|total)' | cut -c1-230
  step "timing parity (issue 18)"
  timeout 130 "$KFORGE_PYTHON" bench/timing_parity.py --rounds 1 --chunks 1,4 --budget-s 100 \
    --json "$OUT/timing_parity.json" 2>&1 | tail -10
}

# Session 32, third call: the last a78/a79 cases and the controls on the GPU.
section_s32_third() {
  use_build_cache
  step "warm-worker overhead, the one-pass check only where it pays (issue 15)"
  timeout 150 "$KFORGE_PYTHON" bench/bench_harness.py --repeat 3 \
    --pair tasks/39_GRU.py:library/gru_out/candidate.py \
    --pair tasks/softmax.py:library/softmax/candidate.py 2>&1 | grep -v '^\[' > "$OUT/harness_s32c.txt"
  grep -E "^\||phases|spread" "$OUT/harness_s32c.txt" | tail -n 22
  step "a78/a79's last cases on the GPU"
  timeout 200 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only \
    a78_softmax_no_launch a78_softmax_redispatch a79 2>&1 | grep -E '^(attack|total)' | cut -c1-230
  step "the controls on the GPU"
  timeout 250 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit all --only tests/controls \
    2>&1 | grep -E '^(legit|total)' | cut -c1-230
}

# Session 32, fourth call: the one-pass error statistics at a full-size KernelBench output, and a
# full-size level1 23_Softmax evaluation (outputs of 1.6e9 elements: the one-pass check's case).
section_s32_fourth() {
  step "error statistics of one 4096 x 393216 output: one pass against PyTorch's path"
  timeout 60 "$KFORGE_PYTHON" bench/diag/error_stats_full_size.py
  step "kforge eval, level1 23_Softmax at full size, a blocked online softmax"
  timeout 380 $K eval --task .carry/kb/level1/23_Softmax.py --candidate bench/diag/softmax_online.py \
    --json > "$OUT/t23.json" 2> "$OUT/t23.err"
  "$KFORGE_PYTHON" - "$OUT/t23.json" <<'EOP'
import json, sys
r = json.load(open(sys.argv[1]))
t = r.get("timing") or {}
print(r["status"], r.get("error", "")[:300], r.get("reasons"))
print("phases", r.get("phases_s"), "wall", r.get("wall_s"), "timed", r.get("timed_s"))
print({k: (v or {}).get("median_ms") for k, v in t.items() if isinstance(v, dict)},
      r.get("speedup_vs_best_baseline"))
EOP
}

# Session 34, first call: the one-pass check's global constant on the GPU, what a fresh judge
# pays before its first GPU work (bench/diag/judge_cold_start.py), and the warm overhead with
# the judge's profile; keeps the RNN build cache.
section_s34_first() {
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  [ -d /tmp/kforge-builds ] || { [ -f .carry/build_cache.tgz ] && tar xzf .carry/build_cache.tgz -C /tmp; }
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  step "the one-pass error statistics on the GPU"
  timeout 120 "$KFORGE_PYTHON" -m pytest -q -s worker/tests/test_gpu.py -k fused_error 2>&1 |
    grep -E "ms per output|passed|failed|Error" | head -n 12
  step "a fresh judge's first GPU work"
  timeout 120 "$KFORGE_PYTHON" bench/diag/judge_cold_start.py --forks 3
  step "warm-worker overhead (issue 15): no prepared judge; prepared, back to back; prepared, 3 s gaps"
  local pairs="--pair tasks/39_GRU.py:library/gru_out/candidate.py --pair tasks/softmax.py:library/softmax/candidate.py"
  timeout 200 "$KFORGE_PYTHON" bench/bench_harness.py --repeat 3 --no-spare $pairs 2>&1 |
    grep -v '^\[' > "$OUT/harness_s34_nospare.txt"
  timeout 150 "$KFORGE_PYTHON" bench/bench_harness.py --repeat 3 $pairs 2>&1 |
    grep -v '^\[' > "$OUT/harness_s34_spare.txt"
  timeout 170 "$KFORGE_PYTHON" bench/bench_harness.py --repeat 3 --gap-s 3 --cprofile /tmp/kforge-prof \
    $pairs 2>&1 | grep -v '^\[' > "$OUT/harness_s34_gap.txt"
  for f in nospare spare gap; do echo "-- $f"; grep -E "^\| tasks|phases" "$OUT/harness_s34_$f.txt"; done
  tar czf "$OUT/prof.tgz" -C /tmp kforge-prof
  [ -d /tmp/kforge-builds ] && tar czf "$OUT/build_cache.tgz" -C /tmp kforge-builds
}

# Session 34, second call: every library source built side by side (the RNN kernels' nvcc), then
# every legitimate candidate through one suite eval on GPU 0 (back-to-back evaluations in one
# worker, each judge prepared ahead: judge_spare.py), the build cache kept.
section_s34_second() {
  section_s25_side
  tar czf "$OUT/build_cache.tgz" -C /tmp kforge-builds
  local dir=/tmp/kforge-legit34
  legit_suite_dir $dir
  step "every legitimate candidate, suite eval on GPU 0, 30 trials"
  timeout 330 $K suite eval --tasks $dir/tasks --candidates $dir/cands --gpus 0 --trials 30 \
    --suite-dir $dir/suite 2>&1 | grep -v '^\[worker' | tail -n 22
  suite_verdicts $dir/suite
  "$KFORGE_PYTHON" - $dir/suite <<'EOP'
import glob, json, os, sys
for path in sorted(glob.glob(os.path.join(sys.argv[1], "evals", "*.json"))):
    r = json.load(open(path))
    print(f"{os.path.basename(path)[:-5]:28} prepared {r.get('judge_prepared')} wall {r.get('wall_s'):.2f} "
          f"timed {r.get('timed_s'):.2f} speed-up vs best {r.get('speedup_vs_best_baseline')}")
EOP
  cp -r $dir/suite/summary.md "$OUT/legit_summary.md" 2>/dev/null
}

# The RNN build cache the device made (.carry/build_cache.tgz), and the generated RNN candidates.
use_build_cache() {
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  [ -d /tmp/kforge-builds ] || tar xzf .carry/build_cache.tgz -C /tmp
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
}

# gap_overhead LIMIT NAME [bench_harness flags]: warm overhead of 39_GRU and softmax, three
# evaluations each with 3 s before every request (a model's reply), into $OUT/harness_s34_NAME.txt
gap_overhead() {
  local limit=$1 name=$2
  shift 2
  timeout "$limit" "$KFORGE_PYTHON" bench/bench_harness.py --repeat 3 --gap-s 3 "$@" \
    --pair tasks/39_GRU.py:library/gru_out/candidate.py \
    --pair tasks/softmax.py:library/softmax/candidate.py 2>&1 |
    grep -v '^\[' > "$OUT/harness_s34_$name.txt"
  echo "-- $name"
  grep -E "^\| tasks|phases|run [0-9]" "$OUT/harness_s34_$name.txt"
}

a34_on_gpu() {  # LIMIT
  step "timed-vs-checked attacks (a34) on the GPU"
  timeout "$1" "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a34 \
    2>&1 | grep -E '^(attack|total)' | cut -c1-230
}

# Session 34, third call: the warm overhead with a 3 s gap between evaluations (a pipeline's
# model reply), prepared judge against none; the worker's GPU tests; the timed-vs-checked
# attacks (a34) now that every prepared judge checks timed outputs in one pass.
section_s34_third() {
  use_build_cache
  step "warm-worker overhead, 3 s gaps: no prepared judge, then prepared (issue 15)"
  gap_overhead 150 gap_nospare --no-spare
  gap_overhead 150 gap_spare
  step "the worker's GPU tests"
  timeout 200 "$KFORGE_PYTHON" -m pytest -q worker/tests/test_gpu.py 2>&1 | tail -n 4
  a34_on_gpu 200
}

# Session 34, fourth call: the third call's gap comparison and a34 again, with the carried
# bubblewrap (the third call's carry had lost env.sh: no warm candidate processes, no namespaces).
section_s34_fourth() {
  echo "bubblewrap: ${KFORGE_BWRAP:-MISSING}"
  use_build_cache
  step "warm-worker overhead, 3 s gaps: no prepared judge, then prepared (issue 15)"
  gap_overhead 130 gap_nospare --no-spare
  gap_overhead 130 gap_spare
  a34_on_gpu 150
}

# Session 34, fifth call: the same comparison with the prepared judge prefetching the task's
# reference and checked sets (evaluate.prefetch).
section_s34_fifth() {
  echo "bubblewrap: ${KFORGE_BWRAP:-MISSING}"
  use_build_cache
  step "warm-worker overhead, 3 s gaps: prepared and prefetched, then none (issue 15)"
  gap_overhead 120 prefetch
  gap_overhead 110 prefetch_none --no-spare
}


# Session 35, first call (a fresh carry has no build cache): every library source built side by
# side, the cache brought back, then session 34's unmeasured fifth call (the prefetching judge).
section_s35_first() {
  versions
  section_s25_side
  tar czf "$OUT/build_cache.tgz" -C /tmp kforge-builds
  section_s34_fifth
}

# Session 35, second call: the warm overhead with the generalisation check's reference made
# ahead and the worker's modules imported by the warm candidate process, the judge profiled.
section_s35_second() {
  echo "bubblewrap: ${KFORGE_BWRAP:-MISSING}"
  use_build_cache
  step "warm-worker overhead, 3 s gaps, generalisation prefetched (issue 15), judge profiled"
  rm -rf /tmp/kforge-prof && mkdir -p /tmp/kforge-prof
  gap_overhead 150 gen_prefetch
  grep -E "candidate ops|candidate start" "$OUT/harness_s34_gen_prefetch.txt" | cut -c1-400
  gap_overhead 170 gen_prefetch_profiled --cprofile /tmp/kforge-prof
  tar czf "$OUT/prof.tgz" -C /tmp kforge-prof
}

# Session 35, third call: the warm overhead with the probes chosen ahead and attached during the
# candidate's import, the set after timing drawn ahead; the probe and timed-vs-checked cases.
section_s35_third() {
  echo "bubblewrap: ${KFORGE_BWRAP:-MISSING}"
  use_build_cache
  step "warm-worker overhead, 3 s gaps (issue 15)"
  gap_overhead 150 s35_third
  grep -E "candidate ops" "$OUT/harness_s34_s35_third.txt" | cut -c1-300
  a34_on_gpu 150
  step "the operator and vendor probe cases on the GPU"
  timeout 150 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a59 a75 a78 \
    2>&1 | grep -E '^(attack|total)' | cut -c1-200
}

suite_walls() {  # SUITE_DIR: each evaluation's judge (prepared, probes ahead), walls, speed-up
  "$KFORGE_PYTHON" - "$1" <<'EOP'
import glob, json, os, sys
for path in sorted(glob.glob(os.path.join(sys.argv[1], "evals", "*.json"))):
    r = json.load(open(path))
    wall, timed = r.get("wall_s") or 0.0, r.get("timed_s") or 0.0
    print(f"{os.path.basename(path)[:-5]:28} {r['status']} prepared {r.get('judge_prepared')} "
          f"probes ahead {r.get('judge_probes_ahead')} wall {wall:.2f} timed {timed:.2f} "
          f"overhead {wall - timed:.2f} speed-up vs best {r.get('speedup_vs_best_baseline')}")
EOP
}

# Session 35, fourth call: the warm overhead with the probes attached by the prepared judge to
# the idle warm process (not during the request); every legitimate candidate in one suite eval.
section_s35_fourth() {
  echo "bubblewrap: ${KFORGE_BWRAP:-MISSING}"
  use_build_cache
  step "warm-worker overhead, 3 s gaps (issue 15)"
  gap_overhead 150 s35_fourth
  grep -E "candidate ops" "$OUT/harness_s34_s35_fourth.txt" | cut -c1-300
  local dir=/tmp/kforge-legit35
  legit_suite_dir $dir
  step "every legitimate candidate, suite eval on GPU 0, 30 trials"
  timeout 300 $K suite eval --tasks $dir/tasks --candidates $dir/cands --gpus 0 --trials 30 \
    --suite-dir $dir/suite 2>&1 | grep -v '^\[worker' | tail -n 22
  suite_verdicts $dir/suite
  suite_walls $dir/suite
}

# Session 35, fifth call: back to back (a suite), no prepared judge against prepared judges that
# skip their warm-ups once the request waits; three tasks each, the same lease.
section_s35_fifth() {
  use_build_cache
  local dir=/tmp/kforge-b2b
  legit_suite_dir $dir/all
  mkdir -p $dir/tasks $dir/cands
  for t in 39_GRU 40_GRUHidden conv2d_relu_bias; do
    cp $dir/all/tasks/$t.py $dir/tasks/; cp $dir/all/cands/$t.py $dir/cands/
  done
  for spare in 0 1; do
    step "suite eval back to back, KFORGE_JUDGE_SPARE=$spare"
    KFORGE_JUDGE_SPARE=$spare timeout 75 $K suite eval --tasks $dir/tasks --candidates $dir/cands \
      --gpus 0 --trials 30 --suite-dir $dir/suite_$spare 2>&1 | grep -E '^\[ ' | tee -a "$OUT/b2b.txt"
    suite_walls $dir/suite_$spare | tee -a "$OUT/b2b.txt"
  done
}

# Session 36, first call: what session 35 left unmeasured on a GPU. The clock source and a
# system call's cost with and without the seccomp filters (timing parity); session 35's fifth
# call (back to back, prepared judges skipping their warm-ups once a request waits); the madvise
# and number-impostor cases (a80, a81); every library kernel and two controls still `ok`.
section_s36_first() {
  versions
  echo "bubblewrap: ${KFORGE_BWRAP:-MISSING}"
  use_build_cache
  step "clock source, a system call and a launch with and without the filters (timing parity)"
  timeout 90 "$KFORGE_PYTHON" bench/parity/seccomp_cost.py 2>&1 | cut -c1-420 | tail -n 12
  section_s35_fifth
  step "session 35's cases on the GPU (a80 madvise, a81 number impostor)"
  timeout 120 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a80 a81 \
    2>&1 | grep -E '^(attack|total)' | cut -c1-230
  local dir=/tmp/kforge-legit36
  legit_suite_dir $dir
  step "every library kernel and two controls, suite eval on GPU 0, 30 trials"
  timeout 280 $K suite eval --tasks $dir/tasks --candidates $dir/cands --gpus 0 --trials 30 \
    --suite-dir $dir/suite 2>&1 | grep -v '^\[worker' | tail -n 22
  suite_verdicts $dir/suite
  suite_walls $dir/suite
}

eval_phases() {  # SUITE_DIR: where each evaluation's wall went (phases, candidate ops, monitor)
  "$KFORGE_PYTHON" - "$1" <<'EOP'
import glob, json, os, sys
for path in sorted(glob.glob(os.path.join(sys.argv[1], "evals", "*.json"))):
    r = json.load(open(path))
    c = r.get("confinement") or {}
    ops = {k: round(v, 2) for k, v in (r.get("candidate_ops_s") or {}).items() if v >= 0.05}
    phases = {k: round(v, 2) for k, v in (r.get("phases_s") or {}).items() if v >= 0.05}
    print(f"{os.path.basename(path)[:-5]:26} {r['status']} wall {r.get('wall_s') or 0:.1f} "
          f"prepared {r.get('judge_prepared')} start {r.get('candidate_start_s')} "
          f"phases {phases} ops {ops} monitor {c.get('monitor_calls')} {c.get('monitor_s')} s")
EOP
}

# Session 36, second call: why a prepared judge's first evaluation took 75-100 s in s36_first
# (both suites' first task; unprepared 16 s), with the monitor's counts; the sandbox's machine
# settings and dumpable refusal on the GPU machine (root, Firecracker), a82 on the GPU.
section_s36_second() {
  echo "bubblewrap: ${KFORGE_BWRAP:-MISSING}"
  use_build_cache
  local dir=/tmp/kforge-b2b
  legit_suite_dir $dir/all
  mkdir -p $dir/tasks $dir/cands
  for t in 39_GRU 40_GRUHidden softmax; do
    cp $dir/all/tasks/$t.py $dir/tasks/; cp $dir/all/cands/$t.py $dir/cands/
  done
  for spare in 1 0; do
    step "suite eval back to back, KFORGE_JUDGE_SPARE=$spare"
    KFORGE_JUDGE_SPARE=$spare timeout 170 $K suite eval --tasks $dir/tasks --candidates $dir/cands \
      --gpus 0 --trials 30 --suite-dir $dir/suite_$spare > "$OUT/b2b_$spare.log" 2>&1
    grep -E '^\[ ' "$OUT/b2b_$spare.log"
    grep -v '^\[ ' "$OUT/b2b_$spare.log" | tail -n 12 | cut -c1-300
    eval_phases $dir/suite_$spare
  done
  step "the sandbox's machine settings and dumpable refusal on this machine"
  timeout 120 "$KFORGE_PYTHON" -m pytest -q worker/tests/test_units.py -k \
    "dumpable or settings_read_only or foreign_architecture" 2>&1 | tail -n 4
  cat /proc/sys/kernel/core_pattern /proc/sys/kernel/core_uses_pid
  step "a82 on the GPU"
  timeout 120 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a82 \
    2>&1 | grep -E '^(attack|total)' | cut -c1-230
  cat /proc/sys/kernel/core_pattern /proc/sys/kernel/core_uses_pid
}

# Session 36, third call: the timed calls' recorder in C++ against the legacy profiler, same
# rounds (timing parity, issue 18); the timed-vs-checked attacks and the new cases on the GPU.
section_s36_third() {
  echo "bubblewrap: ${KFORGE_BWRAP:-MISSING}"
  use_build_cache
  step "the C++ timed recorder's unit test on this machine (builds it)"
  timeout 120 "$KFORGE_PYTHON" -m pytest -q worker/tests/test_units.py -k timed_recorder 2>&1 | tail -n 3
  step "timing parity, C++ timed recorder and legacy profiler in the same rounds (issue 18)"
  timeout 280 "$KFORGE_PYTHON" bench/timing_parity.py --rounds 2 --chunks 1,4 --budget-s 200 \
    --variants "" --compare-legacy --json "$OUT/timing_parity_s36.json" 2>&1 | tail -n 14
  step "timed-vs-checked attacks and session 36's cases on the GPU (a34, a59, a82, a83)"
  timeout 170 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a34 a59 \
    a82 a83 2>&1 | grep -E '^(attack|total)' | cut -c1-200
}

# Session 36, fourth call: after the second red team's fixes (personality refused, socket
# families, /run covered) and with the C++ timed recorder: the sandbox's tests and a84 on this
# machine, every library kernel and two controls, timing parity once more against the legacy
# profiler in the same rounds.
section_s36_fourth() {
  echo "bubblewrap: ${KFORGE_BWRAP:-MISSING}"
  use_build_cache
  step "the sandbox's tests on this machine"
  timeout 120 "$KFORGE_PYTHON" -m pytest -q worker/tests/test_units.py -k \
    "socket_of_a_family or settings_read_only or dumpable or timed_recorder" 2>&1 | tail -n 3
  step "a84 on the GPU"
  timeout 100 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a84 \
    2>&1 | grep -E '^(attack|total)' | cut -c1-200
  local dir=/tmp/kforge-legit36d
  legit_suite_dir $dir
  step "every library kernel and two controls, suite eval on GPU 0, 30 trials"
  timeout 280 $K suite eval --tasks $dir/tasks --candidates $dir/cands --gpus 0 --trials 30 \
    --suite-dir $dir/suite 2>&1 | grep -v '^\[worker' | tail -n 8
  suite_verdicts $dir/suite | cut -c1-150
  suite_walls $dir/suite
  "$KFORGE_PYTHON" -c "import json,glob; print(sorted({json.load(open(p)).get('confinement',{}).get('timed_recorder') for p in glob.glob('$dir/suite/evals/*.json')}))"
  step "timing parity, C++ timed recorder and legacy profiler in the same rounds (issue 18)"
  timeout 150 "$KFORGE_PYTHON" bench/timing_parity.py --rounds 2 --chunks 4 --budget-s 110 \
    --variants "" --compare-legacy --json "$OUT/timing_parity_s36b.json" 2>&1 | tail -n 9
}

torchscript_fuser_probe() {  # what a85_gelu_nnc_default_gpu_timed relies on, in a plain process
  step "TorchScript's fuser on this build, in a plain process"
  cat > /tmp/kforge_fuser_probe.py <<'EOP'
import torch
print("can fuse on gpu", torch._C._jit_can_fuse_on_gpu(), "texpr fuser",
      torch._C._jit_texpr_fuser_enabled(), "can fuse on cpu", torch._C._jit_can_fuse_on_cpu())
@torch.jit.script
def gelu(x):
    inner = 0.7978845608028654 * (x + 0.044715 * torch.pow(x, 3.0))
    return 0.5 * x * (1.0 + torch.tanh(inner))
x = torch.randn(256, 256, device="cuda")
for _ in range(4):
    gelu(x)
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as p:
    gelu(x)
print("recorded:", [e.name for e in p.events()])
EOP
  timeout 60 "$KFORGE_PYTHON" /tmp/kforge_fuser_probe.py 2>&1 | tail -n 3
}

# Session 37, first call: the third blind red team's fixes (TorchScript's fusers off and refused,
# Static Runtime refused and recorded, fused groups named: a85) on a CUDA build, where the NNC
# fuser is on by default for CUDA tensors; legitimate candidates still ok; one parity round.
section_s37_first() {
  echo "bubblewrap: ${KFORGE_BWRAP:-MISSING}"
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  torchscript_fuser_probe
  step "the C++ timed recorder's tests on this machine (builds it)"
  timeout 150 "$KFORGE_PYTHON" -m pytest -q worker/tests/test_units.py -k timed_recorder 2>&1 | tail -n 3
  step "a85 and the timed-call cases on the GPU (a34, a59, a83, a85)"
  timeout 200 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a85 a34 a59 \
    a83 2>&1 | grep -E '^(attack|total)' | cut -c1-220
  local dir=/tmp/kforge-legit37
  legit_suite_dir $dir
  for task in 35_LSTM 36_LSTMHn 37_LSTMCn 38_LSTMBidirectional 40_GRUHidden 41_GRUBidirectional \
      42_GRUBidirectionalHidden; do
    rm -f "$dir/tasks/$task.py" "$dir/cands/$task.py"  # (no build cache carried: one RNN build)
  done
  step "library kernels (softmax, gelu, 39_GRU) and two controls, suite eval on GPU 0, 30 trials"
  timeout 200 $K suite eval --tasks $dir/tasks --candidates $dir/cands --gpus 0 --trials 30 \
    --suite-dir $dir/suite 2>&1 | grep -v '^\[worker' | tail -n 8
  suite_verdicts $dir/suite | cut -c1-150
  step "timing parity, one round (issue 18)"
  timeout 120 "$KFORGE_PYTHON" bench/timing_parity.py --rounds 1 --chunks 4 --budget-s 90 \
    --variants "" --json "$OUT/timing_parity_s37.json" 2>&1 | tail -n 9
}

# Session 37, second call: the versions (cut from the first call's tail), the fuser probe, the
# fourth blind red team's cases, and the timing-parity ablation with the operator probes out.
section_s37_second() {
  echo "bubblewrap: ${KFORGE_BWRAP:-MISSING}"
  export KFORGE_BUILD_CACHE=/tmp/kforge-builds
  "$KFORGE_PYTHON" library/rnn_src/generate.py --candidates-only >/dev/null
  torchscript_fuser_probe
  step "the fourth blind red team's cases on the GPU (a86; the /proc rule on a GPU's threads)"
  timeout 150 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a86 a82 \
    2>&1 | grep -E '^(attack|total)' | cut -c1-200
  local dir=/tmp/kforge-legit37b
  legit_suite_dir $dir
  for task in 35_LSTM 36_LSTMHn 37_LSTMCn 38_LSTMBidirectional 40_GRUHidden 41_GRUBidirectional \
      42_GRUBidirectionalHidden; do
    rm -f "$dir/tasks/$task.py" "$dir/cands/$task.py"  # (no build cache carried: one RNN build)
  done
  step "library kernels (softmax, gelu, 39_GRU) and the controls, suite eval on GPU 0, 30 trials"
  timeout 200 $K suite eval --tasks $dir/tasks --candidates $dir/cands --gpus 0 --trials 30 \
    --suite-dir $dir/suite 2>&1 | grep -v '^\[worker' | tail -n 6
  suite_verdicts $dir/suite | cut -c1-120
  step "timing parity: which defence slows a host-bound candidate (ablation, issue 18)"
  timeout 250 "$KFORGE_PYTHON" bench/parity/ablation.py --rounds 2 --budget-s 220 \
    --variants base,no_probes,no_watch,all_off --json "$OUT/ablation_s37.json" 2>&1 |
    tail -n 14
}

# Session 37, third call: where the candidate process's launch path loses its time, stage by
# stage in one process (bench/parity/host_probe.py, now with the C++ timed recorder).
section_s37_third() {
  sed 's/^CHUNKS = 1$/CHUNKS = 4/' bench/parity/softmax_split.py > /tmp/softmax_split_4.py
  for pair in bench/parity/gelu_scale.py:bench/parity/gelu_scale_task.py \
      /tmp/softmax_split_4.py:tasks/softmax.py; do
    step "host_probe ${pair%%:*}"
    timeout 150 "$KFORGE_PYTHON" bench/parity/host_probe.py "${pair%%:*}" "${pair##*:}" \
      --trials 300 2>&1 | grep -v '^\[' | tail -n 9 | cut -c1-1500
  done
}

# Session 37, fourth call: host_probe found kforge's own loop as fast as KernelBench's in one
# process; what starts beside an evaluation (the replacement warm candidate process: torch's
# import, CUDA, warm_up.py) is the next suspect. Same rounds, a worker that starts nothing else.
section_s37_fourth() {
  echo "bubblewrap: ${KFORGE_BWRAP:-MISSING}"
  step "timing parity: as it is, and with nothing starting beside the evaluation"
  timeout 420 "$KFORGE_PYTHON" bench/timing_parity.py --rounds 2 --chunks 4 --budget-s 380 \
    --variants "" --compare-quiet --json "$OUT/timing_parity_s37.json" 2>&1 | tail -n 12
}

# Session 37, fifth call: host_probe again, with the loop's variants (unseeded; the output copied
# and the recorder's mark between trials, as a real timed block does).
section_s37_fifth() {
  sed 's/^CHUNKS = 1$/CHUNKS = 4/' bench/parity/softmax_split.py > /tmp/softmax_split_4.py
  for pair in bench/parity/gelu_scale.py:bench/parity/gelu_scale_task.py \
      /tmp/softmax_split_4.py:tasks/softmax.py; do
    step "host_probe ${pair%%:*}"
    timeout 150 "$KFORGE_PYTHON" bench/parity/host_probe.py "${pair%%:*}" "${pair##*:}" \
      --trials 300 2>&1 | grep -E '^\{"(stage|timed)' | cut -c1-400
  done
}

# Session 37, seventh call: after the second red team's fixes (a kernel's globals, scheduling
# calls on another process sent to the judge): a87 on the GPU, and the non-RNN library kernels
# and controls still ok (the CUDA driver's own scheduling calls on its threads).
section_s37_seventh() {
  echo "bubblewrap: ${KFORGE_BWRAP:-MISSING}"
  timeout 100 "$KFORGE_PYTHON" tests/run_corpora.py --device cuda --legit none --only a87 a88 \
    2>&1 | grep -E '^(attack|total)' | cut -c1-170
  local dir=/tmp/kforge-legit37c
  legit_suite_dir $dir
  for task in 35_LSTM 36_LSTMHn 37_LSTMCn 38_LSTMBidirectional 39_GRU 40_GRUHidden \
      41_GRUBidirectional 42_GRUBidirectionalHidden; do
    rm -f "$dir/tasks/$task.py" "$dir/cands/$task.py"
  done
  timeout 120 $K suite eval --tasks $dir/tasks --candidates $dir/cands --gpus 0 --trials 20 \
    --suite-dir $dir/suite 2>&1 | grep -v '^\[worker' | tail -n 4
  suite_verdicts $dir/suite | cut -c1-100
}

for section in "$@"; do "section_$section"; done
