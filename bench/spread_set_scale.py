"""How far a TF32 LSTM (as cuDNN computes it on a GPU with allow_tf32) is from fp64 on the task's
own inputs and on the spread input sets (evaluate.WIDENINGS), in the calibrated verdict's units
(|ref32 - ref64| / (1e-4 + 1e-4 |ref64|), max over elements; the widening is 4x that). Runs on
the CPU: the TF32 operand rounding is emulated (round to nearest even, 10 mantissa bits).

Session 16 found the library's exact LSTM kernel `wrong_output` on 37_LSTMCn on the H100: cuDNN's
TF32 c_n on the [0, 8) set went past correctness.MAX_SCALE (100) and the verdict fell back to
1e-4 of the TF32 output. This prints the emulated widening per set:

    python3 bench/spread_set_scale.py --task tasks/37_LSTMCn.py
"""

import argparse
import importlib.util

import torch


def round_tf32(x):
    bits = x.contiguous().view(torch.int32)
    bits = (bits + 0xFFF + ((bits >> 13) & 1)) & ~0x1FFF
    return bits.view(torch.float32)


def lstm_cells(model, x, h0, c0, dtype, tf32):
    """The stack's final cell states, step by step, operands rounded to TF32 when asked."""
    rnn, rounded = model.lstm, (round_tf32 if tf32 else (lambda value: value))
    layer_input, cells = x.to(dtype), []
    for layer in range(rnn.num_layers):
        w_ih = getattr(rnn, f"weight_ih_l{layer}").detach().to(dtype)
        w_hh = getattr(rnn, f"weight_hh_l{layer}").detach().to(dtype)
        bias = (getattr(rnn, f"bias_ih_l{layer}") + getattr(rnn, f"bias_hh_l{layer}")).detach()
        gates_in = rounded(layer_input) @ rounded(w_ih).T + bias.to(dtype)
        h, c, outputs = h0[layer].to(dtype), c0[layer].to(dtype), []
        for step in range(layer_input.shape[1]):
            gates = gates_in[:, step] + rounded(h) @ rounded(w_hh).T
            i, f, g, o = gates.chunk(4, 1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            outputs.append(h)
        layer_input = torch.stack(outputs, 1)
        cells.append(c)
    return torch.stack(cells)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="tasks/37_LSTMCn.py")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("task", args.task)
    task = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(task)
    torch.manual_seed(args.seed)
    with torch.no_grad():
        model = task.Model(*task.get_init_inputs())
        for name, scale, shift in (("[0, 1) (the task's)", 1, 0), ("[0, 8)", 8, 0),
                                   ("[-8, 8)", 16, 8)):
            x, h0, c0 = [value * scale - shift for value in task.get_inputs()]
            ref64 = lstm_cells(model, x, h0, c0, torch.float64, False)
            for tf32 in (False, True):
                ref32 = lstm_cells(model, x, h0, c0, torch.float32, tf32).double()
                units = float(((ref32 - ref64).abs() / (1e-4 + 1e-4 * ref64.abs())).max())
                print(f"{name:20} {'tf32' if tf32 else 'fp32':5} max |c| "
                      f"{float(ref64.abs().max()):7.3f}  own error {units:8.3f} units  "
                      f"widening {max(1.0, 4 * units):8.2f}")


if __name__ == "__main__":
    main()
