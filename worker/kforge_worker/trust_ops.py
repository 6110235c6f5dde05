"""Which operators a forward calls, and which of them a candidate may not call.

The reference's forward is recorded once (a TorchFunctionMode sees every top-level torch call:
`torch.softmax`, `F.gelu`, `torch._VF.gru`, `torch.ops.aten.*`, Tensor methods; a global module
pre-hook sees every nn.Module called). From that record, `forbidden_ops` derives what the
candidate replaces: its compute operators, minus plumbing (creation, views, copies, shapes) and,
when the reference has a heavy operator, minus the elementwise epilogue around it. Recurrent
references are special: only the recurrent operators and modules are forbidden, so the hybrid
strategy may do its input projection as one GEMM (linear/matmul/addmm) in PyTorch."""

import re

from torch.overrides import TorchFunctionMode

# Never "the operator it replaces": allocation, views, layout, copies, dtype/device moves, shape
# queries, indexing, joins and splits, and the interpreter's own data movement.
_PLUMBING = re.compile(
    r"^(empty|zeros|ones|full|rand|randn|randint|arange|linspace|tensor|as_tensor|from_numpy|"
    r"new_\w+|\w+_like|"
    r"view|view_as|reshape|reshape_as|flatten|unflatten|squeeze|unsqueeze|expand|expand_as|"
    r"permute|transpose|t|contiguous|narrow|select|index_select|getitem|setitem|split|"
    r"split_with_sizes|chunk|unbind|cat|concat|concatenate|stack|hstack|vstack|movedim|"
    r"as_strided|unfold|repeat|tile|flip|roll|"
    r"clone|copy|detach|requires_grad|to|cpu|cuda|float|double|half|bfloat16|int|long|bool|"
    r"type|type_as|pin_memory|share_memory|numpy|tolist|item|"
    r"size|dim|ndim|ndimension|numel|nelement|stride|storage_offset|data_ptr|untyped_storage|"
    r"is_contiguous|is_floating_point|is_complex|element_size|get|len|iter|bool|"
    r"shape|dtype|device|is_cuda|layout|names|grad|data|fill|zero|set|record_stream|"
    r"no_grad|is_grad_enabled|set_grad_enabled|manual_seed|eq|ne|format|repr|hash|"
    r"reversed|contains|index|setstate|reduce_ex|deepcopy|dlpack|array)$")

# Operators that are the substance of a task: when the reference calls one, the elementwise
# epilogue around it (bias add, relu, scale) may stay in PyTorch, the heavy operator may not.
_HEAVY = re.compile(
    r"^(matmul|mm|bmm|addmm|addbmm|baddbmm|linear|bilinear|einsum|tensordot|dot|mv|addmv|"
    r"conv\w*|softmax|log_softmax|softmin|\w*norm|scaled_dot_product_attention|"
    r"\w*pool\w*|\w*interpolate|upsample\w*|embedding\w*|cross_entropy|nll_loss|"
    r"gru|lstm|rnn_tanh|rnn_relu|gru_cell|lstm_cell|rnn_tanh_cell|rnn_relu_cell|"
    r"cudnn_rnn|thnn_fused_gru_cell|thnn_fused_lstm_cell|miopen_rnn|mkldnn_rnn\w*|"
    r"cumsum|cumprod|sort|topk|argsort|fft\w*)$")

_RECURRENT = re.compile(
    r"^(gru|lstm|rnn_tanh|rnn_relu|gru_cell|lstm_cell|rnn_tanh_cell|rnn_relu_cell|"
    r"cudnn_rnn|thnn_fused_gru_cell|thnn_fused_lstm_cell|miopen_rnn|mkldnn_rnn\w*)$")


def op_name(func):
    """A torch callable's canonical name: `torch.softmax`, `Tensor.softmax`, `aten._softmax`
    -> softmax; `Tensor.__rmul__`, `mul_` -> mul; `torch._VF.gru` -> gru."""
    name = getattr(func, "__name__", None) or str(func)
    if name.startswith("aten."):
        name = name.split(".")[1]
    name = name.split(".")[0]  # an aten overload: _softmax.default
    name = name.strip("_")
    if name.startswith(("r", "i")) and name[1:] in _DUNDER_ARITHMETIC:
        name = name[1:]
    return name.rstrip("_")


_DUNDER_ARITHMETIC = {"add", "sub", "mul", "truediv", "floordiv", "div", "pow", "matmul", "mod",
                      "and", "or", "xor", "lshift", "rshift"}


def is_plumbing(name):
    return bool(_PLUMBING.match(name))


def is_heavy(name):
    return bool(_HEAVY.match(name))


def is_recurrent_op(name):
    return bool(_RECURRENT.match(name))


class OpRecorder(TorchFunctionMode):
    """Records the canonical name of every top-level torch call made while active (calls made
    inside a torch function are not seen: the mode is off while the function runs)."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(op_name(func))
        return func(*args, **(kwargs or {}))


class ModuleRecorder:
    """Records the type of every nn.Module called while active (a global forward pre-hook)."""

    def __init__(self):
        self.types = []
        self.handle = None

    def __enter__(self):
        from torch.nn.modules.module import register_module_forward_pre_hook
        self.handle = register_module_forward_pre_hook(
            lambda module, args: self.types.append(type(module)))
        return self

    def __exit__(self, *exc):
        self.handle.remove()
        return False


def is_recurrent_module(cls):
    import torch.nn as nn
    return issubclass(cls, (nn.RNNBase, nn.RNNCellBase))


class Policy:
    """What a candidate may not call, derived from one recorded reference forward."""

    def __init__(self, reference_names, reference_module_types, reference_cls):
        compute = {name for name in reference_names if not is_plumbing(name)}
        self.recurrent = (any(is_recurrent_op(name) for name in compute)
                          or any(is_recurrent_module(t) for t in reference_module_types))
        if self.recurrent:
            # The hybrid strategy's input projection (one big GEMM) and the elementwise glue stay
            # allowed; the recurrence itself is what the candidate has to write.
            self.ops = {name for name in compute if is_recurrent_op(name)}
            self.ops |= {"gru", "lstm", "rnn_tanh", "rnn_relu", "gru_cell", "lstm_cell",
                         "rnn_tanh_cell", "rnn_relu_cell", "cudnn_rnn"}
        elif any(is_heavy(name) for name in compute):
            self.ops = {name for name in compute if is_heavy(name)}
        else:  # an elementwise or reduction task: all of its compute is the operator
            self.ops = compute
        self.module_types = {reference_cls} | {t for t in reference_module_types
                                               if is_recurrent_module(t)}

    def check(self, names, module_types):
        """Violation lines for a candidate call that made `names` calls on `module_types`."""
        reasons = []
        for name in sorted(set(names) & self.ops):
            reasons.append(f"called the operator it replaces: torch {name}")
        for cls in module_types:
            if cls in self.module_types or is_recurrent_module(cls) and self.recurrent:
                reasons.append(f"called the operator it replaces: the {cls.__module__}."
                               f"{cls.__qualname__} module's forward")
        return sorted(set(reasons))
