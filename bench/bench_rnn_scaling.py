"""How the library's RNN cluster kernel scales: time per step against layers, direction, batch
and the kernel's pipeline knobs (input ring depth, publication interval), at the KernelBench
shapes (hidden 256, input 128, sequence 512, batch 10) unless told otherwise. For kernel work:
it shows where a stack's time goes (one layer's step cost vs the wavefront's coupling).

    python3 bench/bench_rnn_scaling.py [--cell gru|lstm|both] [--layers 1,2,6] [--batch 10]
        [--knobs ring=4,publish=4 parts=1 gemm=torch gemm_tile=128x64x32x4x3] [--bidirectional]
        [--profile]

Each row: median of --trials forward calls (the worker's timer: CUDA events, L2 flushed,
after warm-up), ms and us per
sequential step (layers x sequence for bidirectional stacks, sequence + layers - 1 for a
unidirectional wavefront), and the max abs difference from cuDNN fp32 as a sanity check.
--profile rebuilds the kernel with per-phase clocks and prints, per layer, the mean us per step
each phase took on thread 0 (which also issues the input copies) and on the last warp."""

import argparse
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "library", "rnn_src"))
sys.path.insert(0, os.path.join(ROOT, "worker"))

import rnn_common  # noqa: E402
from kforge_worker.timing import time_interleaved  # noqa: E402


def time_forward(fn, trials):
    timing, _ = time_interleaved({"kernel": lambda inputs: fn}, [()], trials=trials, warmup=3)
    return timing["kernel"]["median_ms"]


def knob_value(text):
    """'4' -> 4, '128x64x32x4x3' -> (128, 64, 32, 4, 3) (gemm_tile), else the string (gemm)."""
    if text.isdigit():
        return int(text)
    if all(part.isdigit() for part in text.split("x")):
        return tuple(int(part) for part in text.split("x"))
    return text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cell", default="both")
    parser.add_argument("--layers", default="1,2,3,6")
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--input", type=int, default=128)
    parser.add_argument("--seq", type=int, default=512)
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--bidirectional", action="store_true")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--knobs", nargs="*", default=["ring=4,publish=4"],
                        help="RNN_CONFIG settings per row group, e.g. ring=8,publish=2 or "
                             "gemm=torch; each group starts from the defaults")
    args = parser.parse_args()
    props = torch.cuda.get_device_properties(0)
    print(f"device: {props.name}; torch {torch.__version__}; hidden {args.hidden}, input "
          f"{args.input}, sequence {args.seq}, batch {args.batch}, "
          f"{'bidirectional' if args.bidirectional else 'unidirectional'}")
    rnn_common.RNN_CONFIG["profile"] = args.profile
    defaults = dict(rnn_common.RNN_CONFIG)
    rnn_common._cluster_module()
    if rnn_common._CLUSTER["error"]:
        sys.exit(f"cluster kernel unavailable: {rnn_common._CLUSTER['error']}")
    cells = ["gru", "lstm"] if args.cell == "both" else [args.cell]
    D = 2 if args.bidirectional else 1
    print("| cell | layers | knobs | plan | ms | us/step | max diff vs cuDNN |")
    print("|---|---|---|---|---|---|---|")
    for cell in cells:
        lstm = cell == "lstm"
        for layers in [int(n) for n in args.layers.split(",")]:
            torch.manual_seed(0)
            kind = torch.nn.LSTM if lstm else torch.nn.GRU
            rnn = kind(args.input, args.hidden, layers, bidirectional=args.bidirectional).cuda()
            x = torch.randn(args.seq, args.batch, args.input, device="cuda")
            h0 = torch.randn(layers * D, args.batch, args.hidden, device="cuda")
            c0 = torch.randn(layers * D, args.batch, args.hidden, device="cuda")
            with torch.no_grad():
                want = rnn(x, (h0, c0) if lstm else h0)[0]
            steps = layers * args.seq if D == 2 else args.seq + layers - 1
            for knobs in args.knobs:
                settings = dict(item.split("=") for item in knobs.split(","))
                rnn_common.RNN_CONFIG.update(defaults)
                rnn_common.RNN_CONFIG.update({k: knob_value(v) for k, v in settings.items()})
                rnn_common._CLUSTER["plans"].clear()
                packed = rnn_common._PackedWeights()

                def forward():
                    return rnn_common.rnn_forward(rnn, packed, x, h0, c0 if lstm else None, lstm)

                with torch.no_grad():
                    try:
                        got = forward()[0]
                        diff = (got - want).abs().max().item()
                        ms = time_forward(forward, args.trials)
                    except Exception as error:  # a knob the kernel refuses
                        print(f"| {cell} | {layers} | {knobs} | - | {type(error).__name__}: "
                              f"{str(error)[:80]} | | |")
                        continue
                plan = rnn_common._cluster_plan(layers, D, args.batch, args.hidden, lstm,
                                              rnn_common.tf32_mode(x.device))
                print(f"| {cell} | {layers} | {knobs} | {plan} | {ms:.3f} | "
                      f"{1000 * ms / steps:.2f} | {diff:.1e} |", flush=True)
                if rnn_common._GEMM["error"]:
                    sys.exit(f"input GEMM fell back to addmm: {rnn_common._GEMM['error']}")
                if args.profile:
                    rnn_common.LAST_PROFILE.clear()
                    with torch.no_grad():
                        forward()
                    torch.cuda.synchronize()
                    print_profile(plan[0], args.seq, props.clock_rate)


PHASES = ("top", "wait", "compute", "barrier", "push", "tail", "total")  # rnn_cluster.cu kPhases


def print_profile(batch_groups, seq, clock_khz):
    """Mean us per step of each phase, per launch and (layer, direction) group."""
    for launch, prof in enumerate(rnn_common.LAST_PROFILE):
        rows = prof.shape[0] // batch_groups
        clocks = prof.double().reshape(rows, -1, 2, len(PHASES)).mean(dim=1)
        us = clocks / (clock_khz / 1000.0) / seq
        for row in range(rows):
            for who, name in ((0, "thread 0"), (1, "last warp")):
                cells = " ".join(f"{p} {us[row, who, i]:.2f}" for i, p in enumerate(PHASES))
                print(f"    launch {launch} group {row} {name}: {cells}")


if __name__ == "__main__":
    main()
