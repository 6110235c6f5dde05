#!/usr/bin/env bash
# Runs every test: the C++ unit tests (under AddressSanitizer), the worker's pytest suite with real
# Triton kernels under the interpreter, and the black-box suites against the built kforge.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python3 ] || { echo "run scripts/setup.sh first" >&2; exit 2; }
export KFORGE_PYTHON="$PWD/.venv/bin/python3"
cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKFORGE_WERROR=ON -DKFORGE_ASAN=ON \
  -DCMAKE_UNITY_BUILD=ON -DKFORGE_PYTHON="$KFORGE_PYTHON" >/dev/null
cmake --build build-test
cd build-test
ctest --output-on-failure -j2 --timeout 1500
