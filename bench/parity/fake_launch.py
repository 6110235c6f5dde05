"""CPU stand-in for a multi-launch Triton candidate (bench/host_overhead.py; task
worker/tests/tasks/tiny_scale.py, allow_pytorch_only): Triton's real JITFunction.run Python path
(binder, specialization, cache key, the used-globals check, grid, launch_metadata, the launcher
call) LAUNCHES times per forward, on a fake driver whose launcher does nothing; the output is
computed by torch. What a timed call's host path costs, without a GPU."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.runtime import driver
from triton.runtime.jit import JITFunction, compute_cache_key

LAUNCHES = 6


class _FakeDriver:
    def get_current_device(self):
        return 0

    def get_current_stream(self, device):
        return torch._C._cuda_getCurrentRawStream(device) if torch.cuda.is_available() else 0

    def get_current_target(self):
        return GPUTarget("cuda", 90, 32)


class _FakeKernel:
    function = 0
    packed_metadata = ()

    def launch_metadata(self, grid, stream, *args):
        return None

    def run(self, *args):
        return None


def _kernel(x_ptr, y_ptr, n_cols, start, stop, BLOCK: tl.constexpr):
    pass


kernel = JITFunction(_kernel)
driver.set_active(_FakeDriver())


def _install(x, y):
    caches, keys, target, backend, binder = kernel.device_caches[0]
    bound, specialization, options = binder(x, y, x.shape[1], 0, 7, BLOCK=1024, debug=False,
                                            instrumentation_mode="")
    # the real run adds debug/instrumentation_mode to kwargs the same way
    key = compute_cache_key(keys, specialization, options)
    caches[key] = _FakeKernel()


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        if not kernel.device_caches[0][0]:
            _install(x, y)
        for index in range(LAUNCHES):
            kernel[(rows,)](x, y, cols, 0, 7, BLOCK=1024)
        return x / 1e6
