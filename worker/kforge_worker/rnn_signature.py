"""What a recurrent task's forward returns, found by value rather than by reading its source:
forward hooks record each RNN submodule's (output, h_n[, c_n]) during inspect_task's forward, and
each task output that equals one of them is labelled with its module path and name. The library
provider matches kernels on these labels (an LSTM's h_n and c_n have the same shape)."""

import contextlib

import torch


@contextlib.contextmanager
def capture_rnn_outputs(model):
    """Yields a list that fills with (module path, {"output", "h_n"[, "c_n"]: tensor})."""
    captured = []
    handles = []
    for path, sub in model.named_modules():
        if isinstance(sub, torch.nn.RNNBase):
            def hook(module, args, result, path=path):
                output, state = result
                values = {"output": output}
                if isinstance(state, tuple):
                    values["h_n"], values["c_n"] = state[0], state[1]
                else:
                    values["h_n"] = state
                captured.append((path, values))
            handles.append(sub.register_forward_hook(hook))
    try:
        yield captured
    finally:
        for handle in handles:
            handle.remove()


def label_outputs(outputs, captured):
    """One entry per output: {"module": path, "value": "output"|"h_n"|"c_n"} or None."""
    labels = []
    for out in outputs:
        label = None
        if isinstance(out, torch.Tensor):
            for path, values in captured:
                for name, value in values.items():
                    if isinstance(value, torch.Tensor) and value.shape == out.shape \
                            and torch.equal(value, out):
                        label = {"module": path, "value": name}
                        break
                if label:
                    break
        labels.append(label)
    return labels
