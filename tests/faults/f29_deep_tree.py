# honest softmax kernel; at import, a directory chain 3000 deep (paths far past PATH_MAX) in the
# scratch directory and in the build cache, to see what the clean-up and the cache copy-back do.
import os
import torch
import torch.nn as nn
import triton
import triton.language as tl

def deep(root, depth, name):
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for i in range(depth):
            os.mkdir(name, dir_fd=fd)
            nfd = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd); fd = nfd
        f = os.open("leaf.txt", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd)
        os.write(f, b"rt15 leaf\n"); os.close(f)
    finally:
        os.close(fd)

_log = []
for root in (os.environ.get("KFORGE_SCRATCH", "."), "/tmp/kforge-build-cache/triton"):
    try:
        deep(root, 3000, "d" * 100); _log.append(root + ": ok")
    except Exception as e:
        _log.append(f"{root}: {e!r}")
print("DEEP", _log, flush=True)


@triton.jit
def softmax_row_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    numerator = tl.exp(x)
    y = numerator / tl.sum(numerator, axis=0)
    tl.store(y_ptr + row * y_stride + cols, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        softmax_row_kernel[(rows,)](x, y, cols, x.stride(0), y.stride(0), BLOCK=triton.next_power_of_2(cols))
        return y
