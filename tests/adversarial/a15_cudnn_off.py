"""Attack 15 (baselines): an honest Triton softmax plus global flips at import time that would slow
down, or change, whatever else runs in the same process: cuDNN off, TF32 off, deterministic
algorithms, one thread, a global forward pre-hook that sleeps for every other module. Harmless
to the reference and the baselines only if they run in another process; the flips must show in
the result's side effects."""
import time

import torch
import torch.nn as nn
import triton
import triton.language as tl

torch.backends.cudnn.enabled = False
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_num_threads(1)


def _sleep_for_others(module, args):
    if type(module).__name__ != "ModelNew":
        time.sleep(0.002)


torch.nn.modules.module.register_module_forward_pre_hook(_sleep_for_others)


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        block = triton.next_power_of_2(x.shape[1])
        softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=block,
                                      num_warps=16 if block > 4096 else 4)
        return y
