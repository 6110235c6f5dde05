"""How far a TF32 RNN reference (as cuDNN computes it on a GPU with allow_tf32) is from fp64 on
the task's own inputs and on the spread input sets (evaluate.WIDENINGS), in the calibrated
verdict's units (|ref32 - ref64| / (1e-4 + 1e-4 |ref64|), max over elements; the widening is 4x
that). Runs on the CPU: cuDNN's TF32 operand rounding is bench_rnn_tf32.py's emulation ("rne"),
the fp64 reference the judge's own (evaluate.to_float64).

Session 16 found the library's exact LSTM kernel `wrong_output` on 37_LSTMCn on the H100: cuDNN's
TF32 c_n on the [0, 8) set went past correctness.MAX_SCALE (100) and the verdict fell back to
1e-4 of the TF32 output. This prints the emulated widening per set:

    python3 bench/spread_set_scale.py --task tasks/37_LSTMCn.py
"""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "worker"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import torch  # noqa: E402

import bench_rnn_tf32 as tf32  # noqa: E402
from kforge_worker.correctness import output_list  # noqa: E402
from kforge_worker.evaluate import (FORWARD_SEED, WIDENINGS, seed_all, to_float64,  # noqa: E402
                                    widen_values, widened_values)
from kforge_worker.task_loader import load_task  # noqa: E402


def units(ref32, ref64):
    """The fp32 reference's own error in allclose units, the largest over outputs."""
    return max(float(((a.double() - b).abs() / (1e-4 + 1e-4 * b.abs())).max())
               for a, b in zip(ref32, ref64))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default=os.path.join(ROOT, "tasks", "37_LSTMCn.py"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    task = load_task(args.task)
    torch.manual_seed(args.seed)
    model = task.model_class(*task.init_inputs())
    model64 = to_float64(model, "cpu")
    for widening in (None, "positive", "signed"):
        inputs = task.inputs()
        if widening:
            widen_values(inputs, widening)
        seed_all(FORWARD_SEED)
        with torch.no_grad():
            ref64 = output_list(model64(*widened_values(inputs, "cpu")), "fp64")
        shown = WIDENINGS[widening][2] if widening else "[0, 1) (the task's)"
        for name, ref32 in (("fp32", tf32.run(model, inputs)),
                            ("tf32", tf32.emulated_outputs(model, inputs, "rne"))):
            own = units(ref32, ref64)
            print(f"{shown:20} {name:5} max |out| {max(float(r.abs().max()) for r in ref64):7.3f}"
                  f"  own error {own:8.3f} units  widening {max(1.0, 4 * own):8.2f}")


if __name__ == "__main__":
    main()
