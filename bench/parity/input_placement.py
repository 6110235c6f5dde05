"""Where the timed call's inputs live, and what it does to a memory-bound candidate's time (issue
18's timing parity; GPU). KernelBench's timer calls the candidate on the same input tensor every
trial; kforge's judge gives every timed call a fresh input set, each in a shared buffer of its own
(shared_memory.SharedBuffer: cuMemCreate), so consecutive trials read different addresses. This
probe times one candidate in one process with KernelBench's loop (synchronise, fill a 256 MiB
flush buffer, record, call, record, synchronise) over:

  same          one input tensor, every trial (KernelBench)
  rotate        SETS input tensors from PyTorch's allocator, one per trial in turn
  shared        SETS shared buffers (kforge's timed calls until now), one per trial in turn
  shared_fixed  one shared buffer; before each trial (outside the events) the next set's
                contents are copied into it: the contents change, the address does not
  fixed         one tensor from PyTorch's allocator, contents copied in as shared_fixed

Variants are interleaved trial by trial (the order rotating), so drift hits all alike; medians.
Then the timed calls' operator recorder: none, Kineto's without shapes (trust_ops.AtenRecorder)
and the legacy profiler's (trust_ops.NameRecorder), in rotating blocks of 20 trials on `same`,
one session per block, started and stopped outside the events.

    source .carry/env.sh; python3 bench/parity/input_placement.py [--json FILE]"""
import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "worker"))
sys.path.insert(0, HERE)
VARIANTS = ("same", "rotate", "shared", "shared_fixed", "fixed")
CASES = (("softmax_split_1", "bench/parity/softmax_split.py", "tasks/softmax.py", 1),
         ("softmax_split_4", "bench/parity/softmax_split.py", "tasks/softmax.py", 4),
         ("gelu_scale", "bench/parity/gelu_scale.py", "bench/parity/gelu_scale_task.py", None))


def inputs_for(variant, sets, shared, fixed_shared, fixed):
    """A function of the trial index returning (args, prepare): prepare runs outside the events."""
    import torch
    if variant == "same":
        return lambda i: (sets[0], None)
    if variant == "rotate":
        return lambda i: (sets[i % len(sets)], None)
    if variant == "shared":
        return lambda i: (shared[i % len(shared)], None)
    target = fixed_shared if variant == "shared_fixed" else fixed

    def prepare(i):
        with torch.no_grad():
            for into, value in zip(target, sets[i % len(sets)]):
                into.copy_(value)
    return lambda i: (target, lambda: prepare(i))


def run_case(name, candidate_path, task_path, chunks, trials, set_count, placement=True):
    import torch
    from candidate_state import load, model_and_inputs
    from kforge_worker.shared_memory import SharedBuffer
    task = load(os.path.join(ROOT, task_path), "task_" + name)
    candidate = load(os.path.join(ROOT, candidate_path), "cand_" + name)
    if chunks is not None:
        candidate.CHUNKS = chunks
    model, first = model_and_inputs(task, candidate, "cuda")
    sets = [first]
    for seed in range(2, set_count + 1):
        torch.manual_seed(seed)
        sets.append([v.to("cuda") for v in task.get_inputs()])
    buffers = []

    def shared_copy(values):
        out = []
        for value in values:
            buffer = SharedBuffer("cuda", value.numel() * value.element_size())
            buffers.append(buffer)
            view = buffer.view(value.dtype, value.shape)
            view.copy_(value)
            out.append(view)
        return out
    shared = [shared_copy(s) for s in sets]
    fixed_shared = shared_copy(sets[0])
    fixed = [v.clone() for v in sets[0]]
    feeds = {v: inputs_for(v, sets, shared, fixed_shared, fixed) for v in VARIANTS}
    flush = torch.empty(256 * 1024 * 1024 // 8, dtype=torch.int64, device="cuda")
    samples = {v: [] for v in VARIANTS}
    with torch.no_grad():
        for variant in VARIANTS if placement else ():  # warm-up: compile and first calls
            for i in range(3):
                args, prepare = feeds[variant](i)
                if prepare:
                    prepare()
                model(*args)
        torch.cuda.synchronize()
        for trial in range(trials if placement else 0):
            shift = trial % len(VARIANTS)
            for variant in VARIANTS[shift:] + VARIANTS[:shift]:
                args, prepare = feeds[variant](trial)
                if prepare:
                    prepare()
                torch.cuda.synchronize()
                flush.fill_(42)
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                model(*args)
                end.record()
                torch.cuda.synchronize()
                samples[variant].append(start.elapsed_time(end))
    row = {"case": name, **{v: statistics.median(samples[v]) if samples[v] else float("nan")
                            for v in VARIANTS}}
    row.update(recorder_blocks(model, sets[0], flush, trials))
    del shared, fixed_shared
    for buffer in buffers:
        buffer.close()
    return row


RECORDERS = ("recorder_off", "kineto_names", "legacy_names")


def recorder_blocks(model, args, flush, trials, block=20):
    """Median event ms with no recorder, the Kineto recorder without shapes (the timed calls'
    until 2026-11-28) and the legacy profiler's names (trust_ops.NameRecorder), in rotating
    blocks of `block` trials, one recorder session per block."""
    import torch
    from kforge_worker.trust_ops import AtenRecorder, NameRecorder
    makers = {"recorder_off": None, "kineto_names": lambda: AtenRecorder(shapes=False),
              "legacy_names": NameRecorder}
    samples = {name: [] for name in RECORDERS}
    with torch.no_grad():
        for index in range(len(RECORDERS) * max(1, trials // block)):
            name = RECORDERS[index % len(RECORDERS)]
            recorder = makers[name]() if makers[name] else None
            if recorder:
                recorder.start()
            for _ in range(block):
                torch.cuda.synchronize()
                flush.fill_(42)
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                model(*args)
                end.record()
                torch.cuda.synchronize()
                samples[name].append(start.elapsed_time(end))
            if recorder:
                recorder.stop()
                recorder.read()
    return {name: statistics.median(values) for name, values in samples.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--sets", type=int, default=10)
    parser.add_argument("--recorders-only", action="store_true",
                        help="skip the input placements")
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    import torch
    print(f"# {torch.cuda.get_device_name()} torch {torch.__version__}; median event ms of "
          f"{args.trials} trials per variant, {args.sets} input sets", flush=True)
    print(f"{'case':16} " + " ".join(f"{v:>12}" for v in VARIANTS) + "   shared/same fixed/same | no recorder  kineto  legacy")
    rows = []
    for name, candidate, task, chunks in CASES:
        row = run_case(name, candidate, task, chunks, args.trials, args.sets,
                       not args.recorders_only)
        rows.append(row)
        print(f"{name:16} " + " ".join(f"{row[v]:12.4f}" for v in VARIANTS) +
              f"   {row['shared'] / row['same']:.3f}      {row['shared_fixed'] / row['same']:.3f}"
              f"   | {row['recorder_off']:.4f}  {row['kineto_names']:.4f}  {row['legacy_names']:.4f}",
              flush=True)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "rows": rows}, handle, indent=1)


if __name__ == "__main__":
    main()
