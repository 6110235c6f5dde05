#!/usr/bin/env bash
# Installs everything kforge needs on a fresh Debian machine, builds it, and runs a first
# evaluation. Safe to run again. On a GPU box whose python3 already has a CUDA torch and triton,
# that interpreter is used as is (no torch is reinstalled).
set -euo pipefail
cd "$(dirname "$0")/.."

if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq build-essential cmake ninja-build pkg-config libcurl4-openssl-dev \
    nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev libsqlite3-dev libgtest-dev \
    libgmock-dev libcpp-httplib-dev libtomlplusplus-dev clang-format \
    bubblewrap libseccomp2 >/dev/null
  # Tests only: headless Chromium renders the suite report; a single-node Slurm runs the sharded
  # suite test (tests/slurm). Both are skipped (exit 125) where they cannot be installed.
  apt-get install -y -qq chromium slurm-wlm >/dev/null || \
    echo "warning: chromium or slurm-wlm not installed: their tests will be skipped" >&2
fi
# bubblewrap confines candidate code (docs/trust.md); without it kforge degrades with a warning
command -v bwrap >/dev/null || [ -n "${KFORGE_BWRAP:-}" ] || \
  echo "warning: bubblewrap (bwrap) not found: candidates will run without namespaces" >&2

# Python: reuse an interpreter that already has torch and triton, else make .venv. einops: a
# dependency of two KernelBench tasks (level3 48/49, Mamba2), not of kforge; best effort.
if [ -x .venv/bin/python3 ] && .venv/bin/python3 -c 'import torch, triton, numpy, pytest' 2>/dev/null; then
  :
elif python3 -c 'import torch, triton, numpy' 2>/dev/null; then
  python3 -m venv --system-site-packages .venv
  .venv/bin/python3 -m pip install -q pytest 2>/dev/null || true
else
  python3 -m venv .venv
  .venv/bin/python3 -m pip install -q torch==2.13.0 triton==3.6.0 numpy pytest
fi
.venv/bin/python3 -c 'import einops' 2>/dev/null || .venv/bin/python3 -m pip install -q einops \
  2>/dev/null || echo "warning: einops not installed (KernelBench level3 48/49 need it)" >&2

# Unity build: the sources compiled in batches, so the JSON, fmt and CLI11 templates they all use
# are instantiated once a batch (about half the compile time on a 2-core machine). The unit-test
# binary is built by scripts/test.sh (under ASan); configure with -DKFORGE_TESTS=ON for it here.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON \
  -DKFORGE_TESTS=OFF >/dev/null
cmake --build build

# A first evaluation: a Triton softmax against its task. With no GPU it runs on the CPU under the
# Triton interpreter at shrunk shapes (correctness only).
device=cpu
if .venv/bin/python3 -c 'import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  device=cuda
fi
KFORGE_PYTHON="$PWD/.venv/bin/python3" ./build/kforge eval --task tasks/softmax.py \
  --candidate library/softmax/candidate.py --device "$device" $([ $device = cpu ] && echo --shrink)
