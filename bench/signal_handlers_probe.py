"""Which library installs signal handlers on its own, and when (trust, GPU). The judge charges a
candidate with "installed a signal handler once its code was loaded" for any handler set after
its import except Triton's crash handlers (exec_monitor.py). On an H200 in session 19,
tests/adversarial/a59_tiny_slice_whitelist was charged for signals 2, 15 and 25 (the set LLVM's
signal handling installs): if a PyTorch or CUDA library does that lazily on a first use, an
honest candidate whose first such use comes after its import would be charged too.

One fresh process, steps in order; after each, the handlers that changed (signals 1-31) and the
file holding each handler's code:

    python3 bench/signal_handlers_probe.py [--device cuda]
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "worker"))
from kforge_worker.exec_monitor import current_handlers  # noqa: E402

SIGNALS = range(1, 32)


def mapping(address):
    with open("/proc/self/maps") as handle:
        for line in handle:
            fields = line.split()
            low, high = (int(part, 16) for part in fields[0].split("-"))
            if low <= address < high:
                return os.path.basename(fields[5]) if len(fields) > 5 else "anonymous"
    return "?"


def report(step, before):
    now = current_handlers(SIGNALS)
    changed = {int(s): now.get(s) for s in set(now) | set(before) if now.get(s) != before.get(s)}
    def name(handler):
        return f"{mapping(handler[0])} {hex(handler[0])} flags {hex(handler[1])}" if handler \
            else "default"
    described = ", ".join(f"{s}: {name(before.get(str(s)))} -> {name(h)}"
                          for s, h in sorted(changed.items())) or "none"
    print(f"{step:<44} changed: {described}", flush=True)
    return now


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    state = current_handlers(SIGNALS)
    print(f"{'start':<44} set: {sorted(int(s) for s in state)}")
    import torch
    state = report("import torch", state)
    import triton
    import triton.language as tl
    state = report("import triton", state)
    device = args.device
    x = torch.randn(64, 128, device=device)
    torch.cuda.synchronize() if device == "cuda" else None
    state = report("first tensor on the device", state)

    @triton.jit
    def copy(src, dst, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(dst + offsets, tl.load(src + offsets, mask=offsets < n), mask=offsets < n)

    y = torch.empty_like(x)
    copy[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    state = report("a Triton kernel compiled and launched", state)
    try:
        torch.mm(x[:1, :1], torch.ones(1, 1))
    except RuntimeError as error:
        print(f"  (mm across devices: {str(error).splitlines()[0][:80]})")
    state = report("torch.mm with a host tensor (an error)", state)
    m = x.amax(1, keepdim=True)
    e = torch.exp2((x - m) * 1.4426950408889634)
    s = torch.mm(e, torch.ones(x.shape[1], 1, device=device))
    (e * s.reciprocal()).sum().item()
    state = report("a59's decomposition on the device", state)
    torch.special.bessel_j0(x).sum().item()  # a jiterator (NVRTC) kernel on CUDA
    state = report("torch.special.bessel_j0 (jiterator/NVRTC)", state)
    code = "template <typename T> T twice(T a) { return a + a; }"
    try:
        fn = torch.cuda.jiterator._create_jit_fn(code)
        fn(x).sum().item()
        state = report("torch.cuda.jiterator._create_jit_fn", state)
    except Exception as error:  # noqa: BLE001
        print(f"  (jiterator: {error})")
    torch.linalg.inv(torch.eye(8, device=device) + 0.1).sum().item()
    state = report("torch.linalg.inv (cuSOLVER/MAGMA)", state)
    torch.fft.rfft(x).abs().sum().item()
    state = report("torch.fft.rfft (cuFFT)", state)
    torch.nn.functional.conv2d(torch.randn(1, 3, 16, 16, device=device),
                               torch.randn(4, 3, 3, 3, device=device)).sum().item()
    state = report("conv2d (cuDNN)", state)
    torch.nn.GRU(16, 16, batch_first=True).to(device)(torch.randn(2, 5, 16, device=device))
    state = report("nn.GRU (cuDNN RNN)", state)
    compiled = torch.compile(lambda t: (t * 2).sin())
    compiled(x).sum().item()
    report("torch.compile (Inductor, Triton)", state)


if __name__ == "__main__":
    main()
