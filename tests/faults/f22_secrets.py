"""Fault 22 (secrets, 7): look for secrets everywhere a process can: its environment (names
outside the allowlist), /proc/<pid>/environ and cmdline of its parent, of pid 1 and of every
process it can see, /proc/self/environ; print whatever looks like a key and raise it in an
error, so a leak would reach output_tail or the error text. The runner plants
KFORGE_API_KEY=sk-canary-... in the worker's environment and checks no result carries it."""
import os
import torch
import torch.nn as nn
import triton
import triton.language as tl

@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


def _softmax(x):
    y = torch.empty_like(x)
    block = triton.next_power_of_2(x.shape[1])
    softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=block,
                                  num_warps=16 if block > 4096 else 4)
    return y


def _copy(y):
    y = y.contiguous()
    out = torch.empty_like(y)
    copy_kernel[(triton.cdiv(y.numel(), 1024),)](y, out, y.numel(), BLOCK=1024)
    return out


def _hunt():
    found = set()
    for name, value in os.environ.items():
        found.add(f"env {name}={value[:60]}")
    pids = {"self", str(os.getppid()), "1"} | {p for p in os.listdir("/proc") if p.isdigit()}
    for pid in pids:
        for what in ("environ", "cmdline"):
            try:
                with open(f"/proc/{pid}/{what}", "rb") as handle:
                    for item in handle.read().split(b"\0"):
                        if b"sk-" in item or b"KEY" in item or b"TOKEN" in item:
                            found.add(f"{pid}/{what}: {item[:80].decode(errors='replace')}")
            except OSError:
                pass
    return sorted(found)


_FOUND = _hunt()
print("\n".join(_FOUND))


class ModelNew(nn.Module):
    def forward(self, x):
        leaked = [item for item in _FOUND if "sk-" in item]
        if leaked:
            raise RuntimeError("leaked: " + "; ".join(leaked))
        return _softmax(x)
