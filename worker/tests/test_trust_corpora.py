"""The GPU-only kernels of the red-team and fault corpora, compiled here for an H100 (they cannot
run on the CPU). The CPU subset of the corpora itself (every CPU case through a real worker, plus
the fast legitimate candidates) is CTest's corpora_cpu_1..4 (`tests/run_corpora.py --device cpu
--legit quick --shard K/4`); the full legitimate set and the GPU cases run with
`python3 tests/run_corpora.py [--device cuda]`."""

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


GPU_ONLY = [("tests/faults/f02_illegal_address.py", "wild_store_kernel"),
            ("tests/adversarial/a27_work_in_output_copy.py", "softmax_kernel"),
            ("tests/faults/f03_gpu_hang.py", "spin_kernel"),
            ("tests/adversarial/a03_side_stream.py", "softmax_kernel"),
            ("tests/adversarial/a10_cuda_graph_stale.py", "softmax_kernel"),
            ("tests/adversarial/a13_timing_only_cheat.py", "softmax_kernel")]

COMPILE_SCRIPT = r"""
import importlib.util, inspect, json, os, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
ptxas = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas")
if not os.path.exists(ptxas):
    print(json.dumps("no ptxas")); sys.exit(0)
report = {}
for path, name in json.loads(sys.argv[1]):
    spec = importlib.util.spec_from_file_location("gpu_case_" + name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernel = getattr(module, name)
    signature, constants = {}, {}
    for parameter in inspect.signature(kernel.fn).parameters.values():
        if "constexpr" in str(parameter.annotation):
            signature[parameter.name] = "constexpr"
            constants[parameter.name] = 16384 if parameter.name == "BLOCK" else 1024
        elif parameter.name.endswith("_ptr"):
            signature[parameter.name] = "*i32" if parameter.name == "flag_ptr" else "*fp32"
        else:
            signature[parameter.name] = "i32"
    compiled = triton.compile(ASTSource(fn=kernel, signature=signature, constexprs=constants),
                              target=GPUTarget("cuda", 90, 32))
    report[path] = {"cubin": len(compiled.asm["cubin"]),
                    "volatile_loads": compiled.asm["ptx"].count("ld.volatile")}
print(json.dumps(report))
"""


def test_gpu_only_kernels_compile_for_sm90():
    """The GPU-only cases cannot run here, but their kernels must compile for an H100 (Triton's
    bundled ptxas, no device needed; outside the interpreter), and the hang must really spin on
    a volatile load."""
    import json

    import pytest
    env = {name: value for name, value in os.environ.items() if name != "TRITON_INTERPRET"}
    cases = [(os.path.join(REPO, path), name) for path, name in GPU_ONLY]
    run = subprocess.run([sys.executable, "-c", COMPILE_SCRIPT, json.dumps(cases)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    if report == "no ptxas":
        pytest.skip("Triton's bundled ptxas is missing")
    assert all(entry["cubin"] > 0 for entry in report.values()), report
    assert report[os.path.join(REPO, "tests/faults/f03_gpu_hang.py")]["volatile_loads"] > 0
