"""How far the library RNN kernels land from cuDNN's reference under PyTorch's precision flags
(issue 13, second goal: follow torch.backends.cudnn.allow_tf32 the way cuDNN does, within 1e-4 of
the TF32 reference; exact when TF32 is not allowed), and which TF32 operand rounding reproduces
cuDNN's TF32 RNN.

    PYTHONPATH=worker python3 bench/bench_rnn_tf32.py [--tasks 35,39] [--task-dir DIR] [--json OUT]
    PYTHONPATH=worker TRITON_INTERPRET=1 python3 bench/bench_rnn_tf32.py --cpu-check   # dry run

Per task (Model and the library's ModelNew built from one seed, one input set, the RNG seeded
before every forward as the judge does), max |a - b| against:
  ref_tf32   cuDNN with torch.backends.cudnn.allow_tf32 = True (PyTorch's default)
  ref_ieee   cuDNN with allow_tf32 = False (and matmul TF32 off)
  ref64      the float64 reference
of: the library with the flag on (its TF32 mode: operands rounded to nearest even) and off (exact
fp32), and a PyTorch emulation of the recurrence with every matmul operand (x, h, W_ih, W_hh)
rounded to TF32 before an exact product, by round-to-nearest-even ("rne", what the library
implements), by truncation ("rz") and to nearest with ties away ("rna"). Verdicts: the library
with the flag on within 1e-4 (max abs) of ref_tf32, with the flag off within 1e-4 of ref_ieee.

--baseline DIR: a library folder generated from the sources before the TF32 mode (e.g.
`git show REV:library/rnn_src/F` for generate.py, rnn_common.py and rnn_cluster.cu into a folder,
then `python3 that/generate.py --candidates-only --out DIR`): its candidates run too, and column
"off == base" says whether the library with the flag off is bit for bit the baseline's output.

--cpu-check: the interpreter, shrunk shapes. The flags change nothing on the CPU (the reference
and the library are exact there), so the library's TF32 run is forced (RNN_CONFIG["tf32"]) and
checked against the "rne" emulation (column lib(on) vs rne); the verdict columns are then
meaningless."""

import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "worker"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import torch  # noqa: E402

import bench_rnn_library as lib  # noqa: E402
from kforge_worker.correctness import output_list  # noqa: E402
from kforge_worker.evaluate import FORWARD_SEED, clone_values, seed_all, to_float64  # noqa: E402
from kforge_worker.task_loader import load_candidate, load_task  # noqa: E402


def round_tf32(t, mode):
    """float32 -> a TF32 value (10 mantissa bits) as float32: "rne" rounds to nearest even, "rna"
    to nearest with ties away from zero (cvt.rna.tf32.f32), "rz" truncates (what a tensor core
    does with raw fp32 registers). Finite values only (NaN bits are not preserved)."""
    bits = t.float().contiguous().view(torch.int32)
    if mode == "rne":
        bits = bits + (0xFFF + ((bits >> 13) & 1))
    elif mode == "rna":
        bits = bits + 0x1000
    return (bits & ~0x1FFF).view(torch.float32)


def emulate(rnn, x, hx, mode):
    """`rnn` (nn.LSTM / nn.GRU) stepped in PyTorch on its own call's (x, hx), every GEMM operand
    rounded to TF32, the products exact (float64) and cast to float32 per GEMM as a float32
    accumulator would be; returns what the module returns: (output, h_n or (h_n, c_n))."""
    lstm = isinstance(rnn, torch.nn.LSTM)
    if rnn.batch_first:
        x = x.transpose(0, 1)
    T, B, _ = x.shape
    D = 2 if rnn.bidirectional else 1
    H = rnn.hidden_size
    zeros = torch.zeros(rnn.num_layers * D, B, H, device=x.device)
    if hx is None:
        hx = (zeros, zeros) if lstm else zeros
    h0, c0 = hx if lstm else (hx, zeros)

    def mm(a, w):
        return (round_tf32(a, mode).double() @ round_tf32(w, mode).double().t()).float()

    layer_in = x.float()
    h_n, c_n = [], []
    for layer in range(rnn.num_layers):
        outs = []
        for d in range(D):
            sfx = "_reverse" if d else ""
            w_ih = getattr(rnn, f"weight_ih_l{layer}{sfx}")
            w_hh = getattr(rnn, f"weight_hh_l{layer}{sfx}")
            b_ih = getattr(rnn, f"bias_ih_l{layer}{sfx}")
            b_hh = getattr(rnn, f"bias_hh_l{layer}{sfx}")
            gx = mm(layer_in.reshape(T * B, -1), w_ih).view(T, B, -1) + b_ih
            h, c = h0[layer * D + d].float(), c0[layer * D + d].float()
            seq = [None] * T
            for t in (range(T - 1, -1, -1) if d else range(T)):
                gh = mm(h, w_hh) + b_hh
                if lstm:
                    i, f, g, o = (gx[t] + gh).chunk(4, 1)
                    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
                    h = torch.sigmoid(o) * torch.tanh(c)
                else:
                    rx, zx, nx = gx[t].chunk(3, 1)
                    rh, zh, nh = gh.chunk(3, 1)
                    r, z = torch.sigmoid(rx + rh), torch.sigmoid(zx + zh)
                    n = torch.tanh(nx + r * nh)
                    h = (1 - z) * n + z * h
                seq[t] = h
            outs.append(torch.stack(seq))
            h_n.append(h)
            c_n.append(c)
        layer_in = torch.cat(outs, -1)
    out = layer_in.transpose(0, 1) if rnn.batch_first else layer_in
    return out, ((torch.stack(h_n), torch.stack(c_n)) if lstm else torch.stack(h_n))


def emulated_outputs(model, inputs, mode):
    """The task's forward with its RNN submodule answered by `emulate` on the very (x, hx) the
    forward passes it (drawn in forward, an attribute or an input alike)."""
    rnn = next(m for m in model.modules() if isinstance(m, torch.nn.RNNBase))

    def hook(module, args, kwargs, result):
        hx = args[1] if len(args) > 1 else kwargs.get("hx")
        return emulate(module, args[0], hx, mode)
    handle = rnn.register_forward_hook(hook, with_kwargs=True)
    try:
        return run(model, inputs)
    finally:
        handle.remove()


def flags(tf32):
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32


def run(model, inputs):
    seed_all(FORWARD_SEED)
    with torch.no_grad():
        outputs = output_list(model(*clone_values(inputs)), "model")
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return [o.float() for o in outputs]


def max_err(a, b):
    return max(float((x.double() - y.double()).abs().max()) for x, y in zip(a, b))


TOLERANCE = 1e-4   # the goal: max |a - b| <= 1e-4 against the reference of the same flag
EMULATIONS = ("rne", "rz", "rna")


def lib_mode(candidate):
    """The TF32 mode the library's last forward ran in: the last field of its packed weights' key
    (rnn_common._PackedWeights.get)."""
    key = getattr(getattr(candidate, "_packed", None), "key", None)
    return bool(key[-1]) if key else None


def same_as_baseline(row):
    return "yes" if row["off_bitwise_vs_baseline"] else f"NO {row['off_vs_baseline']:.1e}"


def verdict(err):
    return "pass" if err <= TOLERANCE else "FAIL"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", default="35,36,37,38,39,40,41,42")
    parser.add_argument("--task-dir", default=os.path.join(ROOT, "tasks"))
    parser.add_argument("--json", default="")
    parser.add_argument("--baseline", default="",
                        help="a library folder of the candidates before the TF32 mode: compare "
                             "the flag-off outputs bit for bit")
    parser.add_argument("--cpu-check", action="store_true",
                        help="CPU dry run (TRITON_INTERPRET=1, shrunk shapes; the flags do nothing)")
    args = parser.parse_args()
    lib.DEVICE = device = "cpu" if args.cpu_check else "cuda"
    saved = (torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32)
    results = {}
    cols = ("task", "lib(on) vs ref_tf32", "on <=1e-4", "lib(off) vs ref_ieee", "off <=1e-4",
            "lib(on) vs rne", "lib(off) vs ref64", "ref_tf32 vs ref64", "rne vs ref_tf32",
            "rz vs ref_tf32", "rna vs ref_tf32") + (("off == base",) if args.baseline else ())
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for number in [int(n) for n in args.tasks.split(",")]:
        task_name, entry = lib.ENTRIES[number]
        task = load_task(os.path.join(args.task_dir, f"{task_name}.py"), shrink=args.cpu_check)
        if args.cpu_check:
            task.apply({k: v for k, v in {"num_layers": 2}.items() if k in task.constants})
        module, model_new = load_candidate(os.path.join(ROOT, "library", entry, "candidate.py"),
                                           f"library/{entry}/candidate.py")
        reference, candidate = lib.build(task, model_new)
        inputs = lib.inputs_for(task, 11)
        try:
            flags(True)
            ref_tf32 = run(reference, inputs)
            default_mode = module.RNN_CONFIG["tf32"]   # exact unless configured to follow
            # follow the flag (the library's opt-in mode); on the CPU the flag does nothing:
            # force the TF32 path
            module.RNN_CONFIG["tf32"] = True if args.cpu_check else None
            lib_tf32 = run(candidate, inputs)
            mode_on = lib_mode(candidate)
            module.RNN_CONFIG["tf32"] = None   # follow the flag (now off)
            emulated = {mode: emulated_outputs(reference, inputs, mode) for mode in EMULATIONS}
            flags(False)
            ref_ieee, lib_ieee = run(reference, inputs), run(candidate, inputs)
            mode_off = lib_mode(candidate)
            if args.baseline:   # the same weights: built from the same seed
                _, base_new = load_candidate(
                    os.path.join(args.baseline, entry, "candidate.py"),
                    f"baseline/{entry}/candidate.py")
                _, base = lib.build(task, base_new)
                base_ieee = run(base, inputs)
            reference64 = to_float64(reference, device)
            seed_all(FORWARD_SEED)
            with torch.no_grad():
                ref64 = output_list(reference64(*[x.double() for x in inputs]), "reference64")
        finally:
            torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = saved
            module.RNN_CONFIG["tf32"] = default_mode
        row = {"lib_tf32_vs_ref_tf32": max_err(lib_tf32, ref_tf32),
               "lib_ieee_vs_ref_ieee": max_err(lib_ieee, ref_ieee),
               "lib_tf32_vs_rne": max_err(lib_tf32, emulated["rne"]),
               "lib_ieee_vs_ref64": max_err(lib_ieee, ref64),
               "lib_tf32_vs_ref64": max_err(lib_tf32, ref64),
               "ref_tf32_vs_ref64": max_err(ref_tf32, ref64),
               "ref_ieee_vs_ref64": max_err(ref_ieee, ref64),
               "rne_vs_ref_tf32": max_err(emulated["rne"], ref_tf32),
               "rz_vs_ref_tf32": max_err(emulated["rz"], ref_tf32),
               "rna_vs_ref_tf32": max_err(emulated["rna"], ref_tf32),
               "rne_vs_ref64": max_err(emulated["rne"], ref64),
               # KernelBench's own verdict, for comparison: allclose atol = rtol = 1e-4
               "kb_on": all(torch.allclose(a, b, atol=TOLERANCE, rtol=TOLERANCE)
                            for a, b in zip(lib_tf32, ref_tf32)),
               "kb_off": all(torch.allclose(a, b, atol=TOLERANCE, rtol=TOLERANCE)
                             for a, b in zip(lib_ieee, ref_ieee)),
               "lib_tf32_mode": [mode_on, mode_off],   # the library's mode, flag on / off
               "input_gemm_error": getattr(module, "_GEMM", {}).get("error"),
               "cluster_error": getattr(module, "_CLUSTER", {}).get("error")}
        if args.baseline:
            row["off_bitwise_vs_baseline"] = all(torch.equal(a, b)
                                                 for a, b in zip(lib_ieee, base_ieee))
            row["off_vs_baseline"] = max_err(lib_ieee, base_ieee)
        row["verdict_on"] = verdict(row["lib_tf32_vs_ref_tf32"])
        row["verdict_off"] = verdict(row["lib_ieee_vs_ref_ieee"])
        results[task_name] = row
        print(f"| {task_name} | {row['lib_tf32_vs_ref_tf32']:.1e} | {row['verdict_on']} | "
              f"{row['lib_ieee_vs_ref_ieee']:.1e} | {row['verdict_off']} | "
              f"{row['lib_tf32_vs_rne']:.1e} | {row['lib_ieee_vs_ref64']:.1e} | "
              f"{row['ref_tf32_vs_ref64']:.1e} | {row['rne_vs_ref_tf32']:.1e} | "
              f"{row['rz_vs_ref_tf32']:.1e} | {row['rna_vs_ref_tf32']:.1e} |"
              + (f" {same_as_baseline(row)} |" if args.baseline else ""), flush=True)
        if mode_on is not True or mode_off is not False:
            print(f"  {task_name}: the library ran TF32 mode {mode_on} with the flag on and "
                  f"{mode_off} with it off (expected True / False)", flush=True)
    on = sum(r["verdict_on"] == "pass" for r in results.values())
    off = sum(r["verdict_off"] == "pass" for r in results.values())
    print(f"verdicts (max abs <= {TOLERANCE:g}): cudnn.allow_tf32 on: {on}/{len(results)} pass "
          f"against ref_tf32; off: {off}/{len(results)} pass against ref_ieee"
          + (" (cpu check: the references are exact, only lib(on) vs rne means anything)"
             if args.cpu_check else ""))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"device": device, "task_dir": args.task_dir, "tasks": results}, handle,
                      indent=2)


if __name__ == "__main__":
    main()
