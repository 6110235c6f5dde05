"""The timed check's error statistics of one full-size KernelBench level1 23_Softmax output
(4096 x 393216 float32), one pass (error_stats.py) against PyTorch's float64 path (GPU)."""
import time, torch, sys
sys.path.insert(0, "worker")
from kforge_worker import error_stats, timed_check
from kforge_worker.correctness import base_tolerance
n = 4096 * 393216  # level1 23_Softmax's output
theirs = torch.rand(n, device="cuda") * 1e-4
mine = theirs + 1e-9 * torch.randn(n, device="cuda")
base = base_tolerance(torch.float32)
for name, fn in (("fused", error_stats.errors_fused), ("pytorch", timed_check.errors_torch)):
    fn(mine, theirs, base).tolist()
    torch.cuda.synchronize(); began = time.perf_counter()
    for _ in range(3):
        out = fn(mine, theirs, base).tolist()
    print(f"n={n} {name}: {(time.perf_counter() - began) / 3 * 1e3:.1f} ms per output {out}")
