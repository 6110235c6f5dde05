"""Library RNN kernels (tasks 35-42) against eager PyTorch, torch.compile and a CUDA-graph replay
of eager, side by side in one process, with both correctness verdicts.

    PYTHONPATH=worker python3 bench/bench_rnn_library.py [--tasks 35,39] [--trials 30]
        [--sweep] [--json OUT.json] [--cudnn-tf32 on|off]

For each task: build Model and ModelNew (library/<entry>/candidate.py) from the same seed as the
worker does; check the candidate at the task shapes (two input sets) and at four other shapes
(kernelbench: allclose 1e-4 vs the fp32 reference; calibrated: vs the fp64 reference, widened by
the fp32 reference's own error); then time all four with the worker's interleaved timer (CUDA
events, warm-up, L2 flush, median). --sweep also times other slice widths of the kernel.
Prints one table last; --json writes every number. The library follows
torch.backends.cudnn.allow_tf32 as cuDNN does (TF32 operands when on, PyTorch's default; exact
fp32 when off): --cudnn-tf32 sets the flag for the whole run, reference and library alike."""

import argparse
import copy
import datetime
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "worker"))

import torch  # noqa: E402
import triton  # noqa: E402

from kforge_worker.correctness import Comparison, output_list  # noqa: E402
from kforge_worker.evaluate import FORWARD_SEED, clone_values, seed_all, to_float64  # noqa: E402
from kforge_worker.task_loader import load_candidate, load_task  # noqa: E402
from kforge_worker.timing import (compile_runner, cuda_graph_runner, eager_runner,  # noqa: E402
                                  time_interleaved)

ENTRIES = {
    35: ("35_LSTM", "lstm_fc"), 36: ("36_LSTMHn", "lstm_hn"), 37: ("37_LSTMCn", "lstm_cn"),
    38: ("38_LSTMBidirectional", "lstm_bi_fc"), 39: ("39_GRU", "gru_out"),
    40: ("40_GRUHidden", "gru_hn"), 41: ("41_GRUBidirectional", "gru_bi_out"),
    42: ("42_GRUBidirectionalHidden", "gru_bi_hn"),
}
# shapes besides the task's: odd batch, hidden not a power of two (96: 12-CTA clusters; 100: the
# last CTA owns 4 of its 8 units), other layer counts, hidden 320 (the cluster kernel's largest,
# 5 column chunks per lane); the last (hidden not a multiple of 4) checks the Triton fallback
OTHER_SHAPES_CPU = [
    {"batch_size": 3, "seq": 5, "input_size": 7, "hidden_size": 12, "num_layers": 3},
    {"batch_size": 1, "seq": 4, "input_size": 16, "hidden_size": 16, "num_layers": 2},
]
OTHER_SHAPES = [
    {"batch_size": 3, "seq": 37, "input_size": 40, "hidden_size": 96, "num_layers": 3},
    {"batch_size": 16, "seq": 64, "input_size": 64, "hidden_size": 100, "num_layers": 2},
    {"batch_size": 17, "seq": 20, "input_size": 24, "hidden_size": 320, "num_layers": 2},
    {"batch_size": 2, "seq": 9, "input_size": 8, "hidden_size": 66, "num_layers": 2},
]
# engines and slice widths tried by --sweep (units of hidden per program; dot = tl.dot, else a reduction)
SWEEP_UNI = [{"engine": "triton"}]
SWEEP_BI = [{"engine": "triton"}, {"engine": "cluster", "batch_groups": 1},
            {"engine": "cluster", "batch_groups": 2}]
DEFAULT_CONFIG = {"hsb": None, "use_dot": None, "prec": "ieee", "num_warps": 4,
                  "engine": "auto", "batch_groups": None}


def resources(module):
    cluster = getattr(module, "_CLUSTER", {})
    if cluster.get("plans") and any(cluster["plans"].values()) and \
            module.RNN_CONFIG.get("engine") != "triton":
        gemm_error = getattr(module, "_GEMM", {}).get("error")
        return {"engine": "cluster", "plans": {str(k): v for k, v in cluster["plans"].items()},
                "input_gemm": "addmm (fallback: %s)" % gemm_error if gemm_error
                else module.RNN_CONFIG.get("gemm")}
    kernel = module.LAST_KERNEL[0] if module.LAST_KERNEL else None
    if kernel is None:
        return {}
    return {"regs": getattr(kernel, "n_regs", None), "spills": getattr(kernel, "n_spills", None)}


def overrides_for(task, shape):
    out = {}
    for name, value in shape.items():
        if name == "seq":
            name = "seq_len" if "seq_len" in task.constants else "sequence_length"
        if name in task.constants:
            out[name] = value
    return out


DEVICE = "cuda"


def build(task, model_new, seed=7):
    # the task's shapes as globals of the candidate's module, as the harness sets them
    module = sys.modules[model_new.__module__]
    for name, value in task.shapes.items():
        setattr(module, name, value)
    seed_all(seed)
    init_inputs = task.init_inputs()
    seed_all(seed)
    reference = task.model_class(*clone_values(init_inputs)).to(DEVICE).eval()
    seed_all(seed)
    candidate = model_new(*clone_values(init_inputs)).to(DEVICE).eval()
    return reference, candidate


def inputs_for(task, seed):
    seed_all(seed)
    return [x.to(DEVICE) if isinstance(x, torch.Tensor) else x for x in task.inputs()]


def sync():
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def check(task, model_new, comparison, input_seeds, where):
    reference, candidate = build(task, model_new)
    reference64 = to_float64(reference, DEVICE)
    with torch.no_grad():
        for seed in input_seeds:
            inputs = inputs_for(task, seed)
            # the same RNG state before each forward, as the judge seeds it (35_LSTM draws h0/c0
            # in forward)
            seed_all(FORWARD_SEED)
            got = output_list(candidate(*clone_values(inputs)), "candidate")
            seed_all(FORWARD_SEED)
            want = output_list(reference(*clone_values(inputs)), "reference")
            seed_all(FORWARD_SEED)
            want64 = output_list(reference64(*[x.double() for x in inputs]), "reference64")
            sync()
            comparison.add([g.cpu() for g in got], [w.cpu() for w in want],
                           [w.cpu() for w in want64], f"{where}, inputs seed {seed}")
    return reference, candidate


def verdict(c):
    return ("pass" if c.pass_kernelbench else "FAIL", "pass" if c.pass_calibrated else "FAIL")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", default="35,36,37,38,39,40,41,42")
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--sweep", default="", help="tasks whose kernel variants are swept")
    parser.add_argument("--json", default="")
    parser.add_argument("--task-dir", default=os.path.join(ROOT, "tasks"),
                        help="where the task files are: ours (default) or the public KernelBench "
                             "files, e.g. ../shared/kernelbench/level3")
    parser.add_argument("--no-compile", action="store_true",
                        help="skip the torch.compile baseline (slow to build; for kernel work)")
    parser.add_argument("--budget-s", type=float, default=300)
    parser.add_argument("--cpu-check", action="store_true",
                        help="CPU dry run of the script (TRITON_INTERPRET=1, tiny shapes, no timing)")
    parser.add_argument("--cudnn-tf32", choices=("on", "off"), default=None,
                        help="set torch.backends.cudnn.allow_tf32 (default: PyTorch's, on)")
    parser.add_argument("--library-tf32", choices=("exact", "follow"), default="exact",
                        help="the library's mode: exact fp32 (its default) or follow the cuDNN flag")
    args = parser.parse_args()
    DEFAULT_CONFIG["tf32"] = None if args.library_tf32 == "follow" else False
    if args.cudnn_tf32:
        torch.backends.cudnn.allow_tf32 = args.cudnn_tf32 == "on"
    began = time.time()
    global DEVICE
    if args.cpu_check:
        DEVICE = "cpu"
        name = "cpu (interpreter)"
    else:
        props = torch.cuda.get_device_properties(0)
        name = f"{props.name}, {props.multi_processor_count} SMs"
    header = (f"device: {name}; torch {torch.__version__}, "
              f"triton {triton.__version__}, CUDA {torch.version.cuda}, "
              f"cudnn {torch.backends.cudnn.version()}, python {sys.version.split()[0]}; "
              f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; "
              f"cudnn.allow_tf32 {torch.backends.cudnn.allow_tf32}")
    print(header, flush=True)
    results = {"header": header, "tasks": {}}
    rows = []
    for number in [int(n) for n in args.tasks.split(",")]:
        task_name, entry = ENTRIES[number]
        if time.time() - began > args.budget_s:
            print(f"{task_name}: skipped, time budget spent", flush=True)
            continue
        task = load_task(os.path.join(args.task_dir, f"{task_name}.py"), shrink=args.cpu_check)
        module, model_new = load_candidate(os.path.join(ROOT, "library", entry, "candidate.py"),
                                           f"library/{entry}/candidate.py")
        module.RNN_CONFIG["tf32"] = DEFAULT_CONFIG["tf32"]  # --library-tf32
        # the library's precision this run (rnn_common.tf32_mode: the flag, on CUDA only)
        record = {"entry": entry, "tf32": module.tf32_mode(torch.device(DEVICE))}
        if not args.cpu_check:
            began_build = time.time()
            module._cluster_module()
            record["cluster_build"] = module._CLUSTER["error"] or f"ok ({time.time() - began_build:.0f} s)"
            print(f"{task_name}: cluster kernel build: {record['cluster_build']}", flush=True)
        # correctness: task shapes, then the other shapes
        main_cmp = Comparison("calibrated")
        check(task, model_new, main_cmp, [11, 12], "task shapes")
        record["max_abs_err"] = main_cmp.max_abs_err
        record["max_abs_err_fp64"] = main_cmp.max_abs_err_fp64
        record["reference_err_fp64"] = main_cmp.reference_err_fp64
        record["verdict"] = verdict(main_cmp)
        if main_cmp.first_failure:
            print(f"{task_name} task shapes: {main_cmp.first_failure}", flush=True)
        other = []
        for shape in OTHER_SHAPES_CPU if args.cpu_check else OTHER_SHAPES:
            cmp = Comparison("calibrated")
            overrides = overrides_for(task, shape)
            task.apply(overrides)
            try:
                check(task, model_new, cmp, [21], f"shape {overrides}")
            finally:
                task.reset()
            other.append({"shape": overrides, "verdict": verdict(cmp),
                          "max_abs_err_fp64": cmp.max_abs_err_fp64})
            if cmp.first_failure:
                print(f"{task_name} {overrides}: {cmp.first_failure}", flush=True)
        record["other_shapes"] = other
        print(f"{task_name}: library tf32 {record['tf32']}, task shapes kb/cal "
              f"{record['verdict']}, err32 "
              f"{record['max_abs_err']:.2e}, err64 {record['max_abs_err_fp64']:.2e} (ref own "
              f"{record['reference_err_fp64']:.2e}); other shapes "
              f"{[(*o['verdict'], '%.1e' % o['max_abs_err_fp64']) for o in other]}", flush=True)

        results["tasks"][task_name] = record
        if args.cpu_check:
            continue
        # timing at the task shapes
        reference, candidate = build(task, model_new)
        input_sets = [inputs_for(task, seed) for seed in (31, 32, 33)]
        runners = {"eager": eager_runner(reference), "library": eager_runner(candidate)}
        graph, reason = cuda_graph_runner(reference, input_sets[0])
        if graph:
            runners["cuda_graph"] = graph
        else:
            print(reason)
        compiled, reason = (None, "compile skipped (--no-compile)") if args.no_compile else \
            compile_runner(copy.deepcopy(reference), input_sets[0])
        if compiled:
            runners["compile"] = compiled
        else:
            print(reason)
        timing, _ = time_interleaved(runners, input_sets, trials=args.trials, warmup=3)
        record["timing"] = timing
        med = {name: s["median_ms"] for name, s in timing.items()}
        record["median_ms"] = med
        record["resources"] = resources(module)
        print(f"  {task_name} median ms {({k: round(v, 3) for k, v in med.items()})}, library "
              f"kernel {record['resources']}", flush=True)
        if str(number) in args.sweep.split(","):
            sweep = []
            for config in SWEEP_BI if "bi" in entry else SWEEP_UNI:
                if time.time() - began > args.budget_s:
                    break
                module.RNN_CONFIG.update(DEFAULT_CONFIG)
                module.RNN_CONFIG.update(config)
                module._CLUSTER["plans"].clear()
                try:
                    cmp = Comparison("calibrated")
                    check(task, model_new, cmp, [41], f"sweep {config}")
                    _, cand = build(task, model_new)
                    t, _ = time_interleaved({"lib": eager_runner(cand)}, input_sets,
                                            trials=max(10, args.trials // 2), warmup=2)
                    sweep.append({**config, "ms": round(t["lib"]["median_ms"], 3),
                                  "verdict": verdict(cmp), "err64": cmp.max_abs_err_fp64,
                                  **resources(module)})
                except Exception as error:  # a config that does not fit (registers, SMs)
                    sweep.append({**config, "error": f"{type(error).__name__}: {str(error)[:200]}"})
                print(f"  sweep {task_name} {sweep[-1]}", flush=True)
            module.RNN_CONFIG.update(DEFAULT_CONFIG)
            module._CLUSTER["plans"].clear()
            record["sweep"] = sweep
        rows.append((task_name, med, record))

    print()
    print(header)
    print(f"median ms over {args.trials} interleaved trials (L2 flushed); speed-up = baseline / "
          f"library; kb = allclose 1e-4 vs fp32 reference, cal = calibrated vs fp64; other = "
          f"{len(OTHER_SHAPES)} other shapes (kb/cal)")
    cols = ("task", "eager", "compile", "graph", "library", "x eager", "x compile", "x graph",
            "kb", "cal", "err64", "ref err64", "other")
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for task_name, med, record in rows:
        lib = med["library"]

        def ms(name):
            return f"{med[name]:.3f}" if name in med else "-"

        def speed(name):
            return f"{med[name] / lib:.2f}" if name in med else "-"
        others = " ".join("/".join(o["verdict"]) for o in record["other_shapes"])
        print(f"| {task_name} | {ms('eager')} | {ms('compile')} | {ms('cuda_graph')} | {ms('library')} | "
              f"{speed('eager')} | {speed('compile')} | {speed('cuda_graph')} | "
              f"{record['verdict'][0]} | {record['verdict'][1]} | {record['max_abs_err_fp64']:.1e} | "
              f"{record['reference_err_fp64']:.1e} | {others} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1, default=str)


if __name__ == "__main__":
    main()
