"""What a freshly forked judge pays before its first useful GPU work (issue 15's warm overhead).

The worker imports torch once and forks a judge per evaluation; the judge starts CUDA itself.
This forks judges the same way and times, in each, the first and then a second run of the steps
every GPU evaluation takes: the context, an allocation and a copy, cuBLAS's first GEMM, cuDNN's
first GRU (float32 and float64), the one-pass error statistics' first Triton launch, events.
The first-run column minus the second is what a judge prepared ahead of its request would save.

    python3 bench/diag/judge_cold_start.py [--forks 3]"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "worker"))

import torch  # noqa: E402  (the worker's zygote has torch imported before it forks)


def steps():
    def context():
        torch.cuda.init()
        torch.empty(1, device="cuda")

    def copy():
        torch.ones(1 << 20).cuda().sum().item()

    def gemm():
        a = torch.randn(512, 512, device="cuda")
        (a @ a).sum().item()

    def gru(dtype):
        def run():
            layer = torch.nn.GRU(128, 256, 2, batch_first=False).cuda().to(dtype)
            with torch.no_grad():
                out, _ = layer(torch.randn(16, 8, 128, device="cuda", dtype=dtype))
            out.sum().item()
        return run

    def error_stats():
        from kforge_worker import error_stats as module
        module.warm_up("cuda")
        torch.cuda.synchronize()

    def events():
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        end.record()
        end.synchronize()
        start.elapsed_time(end)

    return [("context", context), ("alloc+copy", copy), ("cuBLAS gemm", gemm),
            ("cuDNN GRU fp32", gru(torch.float32)), ("cuDNN GRU fp64", gru(torch.float64)),
            ("error_stats (Triton)", error_stats), ("events", events)]


def child(write_end):
    rows = []
    for name, step in steps():
        times = []
        for _ in range(2):
            began = time.perf_counter()
            step()
            torch.cuda.synchronize()
            times.append(time.perf_counter() - began)
        rows.append(f"{name}\t{times[0]:.4f}\t{times[1]:.4f}")
    os.write(write_end, ("\n".join(rows) + "\n").encode())
    os._exit(0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--forks", type=int, default=3)
    args = parser.parse_args()
    # (no CUDA call here: the forks must find it uninitialised, as the worker's do)
    print(f"torch {torch.__version__}; seconds, first run / second run in one fresh judge")
    for fork in range(args.forks):
        read_end, write_end = os.pipe()
        began = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            child(write_end)
        os.close(write_end)
        text = b""
        while chunk := os.read(read_end, 65536):
            text += chunk
        os.waitpid(pid, 0)
        total = time.perf_counter() - began
        print(f"fork {fork + 1}: {total:.3f} s in all")
        first = 0.0
        for line in text.decode().splitlines():
            name, cold, warm = line.split("\t")
            first += float(cold) - float(warm)
            print(f"  {name:22s} {float(cold):8.4f} {float(warm):8.4f}")
        print(f"  first-run cost beyond the second: {first:.3f} s")


if __name__ == "__main__":
    main()
