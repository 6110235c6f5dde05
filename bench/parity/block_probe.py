"""Which part of a candidate block's per-trial work slows its timed calls (GPU, timing parity)?

In kforge's timing a candidate block's first trial reads at KernelBench's time and the other nine
do not (H200, session 19: gelu_scale first-in-block 0.0788 ms, block median 0.1008, KernelBench
0.0775; bench/timing_parity.py). The first trial follows the request's decoding; each later one
follows the trial before's `after` step (the timed calls' recorder mark, the outputs copied into
the judge's shared buffer). This probe builds that loop up step by step in one process with no
sandbox, each variant in fresh processes alternating with the others (the host's slow spells hit
all alike), BLOCKS blocks of 10 trials through timing.time_block with the L2 flush:

  sink         the same inputs every trial, the output copied into a buffer (kb_state's loop)
  fresh_in     ten input sets, one per trial (a timed block's)
  watch        + the timed calls' recorder open (TimedCallWatch) and its mark after each trial
  shared_out   + outputs written as candidate_host does (write_outputs) into shared buffers
  shared_in    + inputs read from shared buffers (SharedBuffer views, as the judge maps them)
  guarded      + the candidate process's in-process set-up (child_setup, the Guard, 3 calls)

    python3 bench/parity/block_probe.py bench/parity/gelu_scale.py \
        bench/parity/gelu_scale_task.py [--processes 2] [--blocks 20]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VARIANTS = ("sink", "fresh_in", "watch", "shared_out", "shared_in", "guarded")


class _Writer:
    """What candidate_host.Host.write_outputs reads of its host."""

    def __init__(self, buffers, device):
        self.buffers = buffers
        self.device = device


def one_process(args):
    sys.path.insert(0, os.path.join(ROOT, "worker"))
    sys.path.insert(0, HERE)
    import torch
    from candidate_state import guard_as_candidate, load, model_and_inputs
    from kforge_worker import timing
    from kforge_worker.candidate_host import Host, TimedCallWatch
    from kforge_worker.shared_memory import SharedBuffer, nbytes_of
    level = VARIANTS.index(args.variant)
    task = load(args.task, "probe_task")
    if args.device == "cpu":  # small enough for the interpreter
        task.batch_size, task.dim = 16, 64
    module = load(args.candidate, "probe_candidate")
    device = args.device
    model, inputs = model_and_inputs(task, module, device)
    with torch.no_grad():
        first = model(*inputs)
    out_items = list(first) if isinstance(first, (list, tuple)) else [first]
    if level >= VARIANTS.index("guarded"):
        from kforge_worker import trust
        trust.child_setup(tempfile.mkdtemp(prefix="kforge-probe-"))
        guard_as_candidate(module, model, inputs)

    def copy_of(values, shared):
        made = []
        for value in values:
            if not isinstance(value, torch.Tensor):
                made.append(value)
            elif shared:
                buffer = SharedBuffer(device, nbytes_of(value))
                view = buffer.view(value.dtype, list(value.shape))
                view.copy_(value)
                made.append(view)
                keep.append(buffer)
            else:
                made.append(value.clone())
        return made

    keep = []
    shared_in = level >= VARIANTS.index("shared_in")
    sets = [inputs] * 10 if level == 0 else [copy_of(inputs, shared_in) for _ in range(10)]
    buffers = {}
    targets = []
    for trial in range(10):
        ids = []
        for position, item in enumerate(out_items):
            key = f"out-{trial}-{position}"
            buffers[key] = SharedBuffer(device, nbytes_of(item))
            ids.append(key)
        targets.append(ids)
    writer = _Writer(buffers, device)
    sink = [torch.empty_like(item) for item in out_items]
    watch = TimedCallWatch(None) if level >= VARIANTS.index("watch") else None
    cpu = device == "cpu"  # a dry run (TRITON_INTERPRET=1, host clocks): no claim
    flush = None if cpu else timing.l2_flush_buffer(torch.cuda.current_device())

    def after(index, outputs):
        if watch is not None:
            watch.after_trial()
        if level >= VARIANTS.index("shared_out"):
            Host.write_outputs(writer, outputs, targets[index])
        else:
            items = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
            for target, item in zip(sink, items):
                target.copy_(item)

    if watch is not None:
        watch.start()
    fns = [lambda args=s: model(*args) for s in sets]
    all_ms, firsts, rests, host = [], [], [], []
    for index in range(args.blocks + 1):
        ms, _ = timing.time_block(fns, flush, 3 if index == 0 else 0, after=after, seed=424242,
                                  host=host, cpu=cpu)
        if index:
            all_ms += ms
            firsts.append(ms[0])
            rests += ms[1:]
    if watch is not None:
        watch.close()
    row = {"variant": args.variant, "median_ms": round(statistics.median(all_ms), 4),
           "first_ms": round(statistics.median(firsts), 4),
           "rest_ms": round(statistics.median(rests), 4),
           "host_us": round(statistics.median(host) * 1e3, 1)}
    print(json.dumps(row), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("candidate")
    parser.add_argument("task")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--blocks", type=int, default=20)
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    parser.add_argument("--variant", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.variant:
        return one_process(args)
    seen = {variant: [] for variant in VARIANTS}
    for _ in range(args.processes):
        for variant in VARIANTS:
            out = subprocess.run([sys.executable, __file__, args.candidate, args.task,
                                  "--blocks", str(args.blocks), "--device", args.device,
                                  "--variant", variant],
                                 capture_output=True, text=True, timeout=300)
            lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
            if not lines:
                print(f"{variant}: failed\n{out.stderr[-1500:]}", flush=True)
                continue
            print(lines[-1], flush=True)
            seen[variant].append(json.loads(lines[-1]))
    print("\n| variant | median ms | first in block ms | rest ms | host us |")
    print("|---|---|---|---|---|")
    for variant, rows in seen.items():
        if rows:
            col = lambda key: " / ".join(str(r[key]) for r in rows)
            print(f"| {variant} | {col('median_ms')} | {col('first_ms')} | {col('rest_ms')} | "
                  f"{col('host_us')} |")


if __name__ == "__main__":
    main()
