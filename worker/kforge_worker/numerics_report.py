"""The precision a candidate computed in, and the numerics policy that judges it (docs/numerics.md).

Two policies, chosen per request (`numerics`, separate from `precision`, which picks the
correctness verdict):
- `tolerance` (default, KernelBench's semantics): any numerics that pass the correctness check;
  the precision is reported, never judged.
- `strict`: the reference's dtypes for operands and accumulation; TF32 only where PyTorch's own
  flags allow it for the reference's operators (cuDNN convolutions and RNNs by default, cuBLAS
  matmuls only when `torch.backends.cuda.matmul.allow_tf32` or the float32 matmul precision
  says so). Lower precision ends the candidate `rejected` with the evidence.

Evidence, and how far each source can be trusted:
- observed in the candidate process during every checked call (untrusted: code in that process
  can hide from it, docs/trust.md "Limits"): the dtypes of the tensors passed to each Triton
  launch (launches.count_triton_launches), the `tt.dot` operand, accumulator and
  `inputPrecision` types of each compiled kernel's IR (GPU only: the interpreter compiles
  nothing), the narrowing casts and the matmul/convolution operators ATen dispatched with their
  dtypes (`DispatchDtypes`), and torch's math-mode flags after the call;
- read by the judge from the candidate's source (`source_facts`, a syntax tree: nothing runs):
  `tl.dot(..., input_precision=/allow_tf32=/out_dtype=)`, casts such as `.to(tl.float16)` or
  `.half()`, reduced-precision dtypes, TF32 flags switched on.

`assess` turns the evidence into the result's `numerics` object:
`{"policy", "reference", "summary" ("fp16 operands, fp32 accumulate"), "operands",
"accumulate", "lowered", "evidence": [lines]}`."""

import ast

from kforge_worker.dispatch_mode import HarnessDispatchMode
from torch.utils._pytree import tree_flatten

POLICIES = ("tolerance", "strict")

# Bits of mantissa precision, the order used to say "lower": tf32x3 is fp32-equivalent.
_RANK = {"fp64": 53, "fp32": 24, "tf32x3": 24, "tf32": 11, "fp16": 11, "bf16": 8, "fp8": 4}
_SHORT = {"float64": "fp64", "double": "fp64", "float32": "fp32", "float": "fp32",
          "float16": "fp16", "half": "fp16", "bfloat16": "bf16",
          "f64": "fp64", "f32": "fp32", "f16": "fp16", "bf16": "bf16"}
# ATen operators whose input dtypes say what precision the heavy work ran in.
_COMPUTE_OPS = {"mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "convolution",
                "cudnn_convolution", "conv2d", "conv1d", "conv3d", "addbmm", "dot", "mv",
                "scaled_mm", "einsum", "tensordot"}
_LIMIT = 40


def short_dtype(name):
    """"float16" / "torch.float16" / "f16" / "tl.float16" -> "fp16"; float8 kinds -> "fp8";
    None for a non-floating dtype."""
    name = str(name).split(".")[-1].lower()
    if name.startswith(("float8", "f8")):
        return "fp8"
    return _SHORT.get(name)


def lower(a, b):
    """True when precision `a` carries fewer mantissa bits than `b`."""
    return _RANK.get(a, 99) < _RANK.get(b, 0)


# ---- the candidate process side (explanation, not proof) ----------------------------------------

class DispatchDtypes(HarnessDispatchMode):
    """Every ATen operator dispatched while active: narrowing casts between floating dtypes
    (`casts` {"fp32->fp16": count}) and the input dtypes of matmuls and convolutions
    (`ops` {name: {dtype}})."""

    def __init__(self):
        super().__init__()
        self.casts = {}
        self.ops = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        try:
            self._note(func, args, kwargs, out)
        except Exception:  # an observation, never a reason to fail the call
            pass
        return out

    def _note(self, func, args, kwargs, out):
        import torch
        name = str(getattr(func, "__name__", func)).split(".")[0].strip("_")
        inputs = {short_dtype(t.dtype) for t in tree_flatten((args, kwargs))[0]
                  if isinstance(t, torch.Tensor) and t.is_floating_point()}
        inputs.discard(None)
        if name in _COMPUTE_OPS and inputs:
            self.ops.setdefault(name, set()).update(inputs)
        outputs = {short_dtype(t.dtype) for t in tree_flatten(out)[0]
                   if isinstance(t, torch.Tensor) and t.is_floating_point()}
        for source in inputs:
            for target in outputs:
                if target and lower(target, source):
                    key = f"{source}->{target}"
                    self.casts[key] = self.casts.get(key, 0) + 1


def observation(launches, dispatched, flags):
    """What one call showed, as JSON for the judge: `launches` a launches.LaunchCount,
    `dispatched` a DispatchDtypes, `flags` numerics.capture() after the call."""
    return {"kernels": {str(k): sorted(v) for k, v in list(launches.dtypes.items())[:_LIMIT]},
            "dots": {str(k): v for k, v in list(launches.dots.items())[:_LIMIT]},
            "casts": dict(list(dispatched.casts.items())[:_LIMIT]),
            "ops": {k: sorted(v) for k, v in list(dispatched.ops.items())[:_LIMIT]},
            "flags": {k: str(v) for k, v in flags.items()}}


# ---- the judge side ------------------------------------------------------------------------------

def merge(seen, reply):
    """Fold one call's (untrusted, JSON) observation into the evaluation's record `seen`."""
    seen = seen or {"kernels": {}, "dots": {}, "casts": {}, "ops": {}, "flags": {}}
    if not isinstance(reply, dict):
        return seen
    for kernel, dtypes in (reply.get("kernels") or {}).items():
        if isinstance(dtypes, list) and len(seen["kernels"]) < _LIMIT:
            seen["kernels"].setdefault(str(kernel)[:80], set()).update(
                str(d)[:20] for d in dtypes[:16])
    for kernel, dots in (reply.get("dots") or {}).items():
        if isinstance(dots, list) and dots and len(seen["dots"]) < _LIMIT:
            seen["dots"][str(kernel)[:80]] = [
                {key: str(dot.get(key))[:20] for key in ("a", "b", "acc", "input_precision")}
                for dot in dots[:16] if isinstance(dot, dict)]
    for cast, count in (reply.get("casts") or {}).items():
        if isinstance(count, int) and len(seen["casts"]) < _LIMIT:
            seen["casts"][str(cast)[:20]] = seen["casts"].get(str(cast)[:20], 0) + count
    for op, dtypes in (reply.get("ops") or {}).items():
        if isinstance(dtypes, list) and len(seen["ops"]) < _LIMIT:
            seen["ops"].setdefault(str(op)[:40], set()).update(str(d)[:8] for d in dtypes[:8])
    if isinstance(reply.get("flags"), dict):
        seen["flags"] = {str(k)[:60]: str(v)[:40] for k, v in list(reply["flags"].items())[:20]}
    return seen


def _tail(node):
    """`torch.float16` -> "float16", `tl.dot` -> "dot", `x.to` -> "to"."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _constant(node):
    return node.value if isinstance(node, ast.Constant) else None


def source_facts(source):
    """What the candidate's syntax tree says about precision: {"dots": [{"kernel", "line",
    "input_precision" ("default" when not given, None when not a literal), "out_dtype"}],
    "lowering": [{"line", "what", "precision", "kernel"}], "tf32_flags": [{"line", "what"}]}
    (`kernel`: the top-level function the call is in)."""
    facts = {"dots": [], "lowering": [], "tf32_flags": []}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return facts
    kernels = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            for inner in ast.walk(node):
                kernels.setdefault(id(inner), node.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _tail(node.func)
            keywords = {k.arg: k.value for k in node.keywords if k.arg}
            if name == "dot" and isinstance(node.func, ast.Attribute):
                precision = "default"
                if "input_precision" in keywords:
                    precision = _constant(keywords["input_precision"])
                elif len(node.args) > 3:
                    precision = _constant(node.args[3])
                elif "allow_tf32" in keywords:
                    allow = _constant(keywords["allow_tf32"])
                    precision = "tf32" if allow is True else "ieee" if allow is False else None
                out_dtype = short_dtype(_tail(keywords["out_dtype"])) \
                    if "out_dtype" in keywords else None
                facts["dots"].append({"kernel": kernels.get(id(node)), "line": node.lineno,
                                      "input_precision": precision, "out_dtype": out_dtype})
            elif name in ("half", "bfloat16") and isinstance(node.func, ast.Attribute) \
                    and not node.args:
                facts["lowering"].append({"line": node.lineno, "what": f".{name}()",
                                          "precision": short_dtype(name),
                                          "kernel": kernels.get(id(node))})
            elif name in ("to", "astype", "type") and node.args:
                target = short_dtype(_tail(node.args[0]) or "")
                if target and lower(target, "fp32"):
                    facts["lowering"].append({"line": node.lineno,
                                              "what": f".{name}({ast.unparse(node.args[0])})",
                                              "precision": target,
                                              "kernel": kernels.get(id(node))})
            elif name == "set_float32_matmul_precision" and node.args and \
                    _constant(node.args[0]) in ("high", "medium"):
                facts["tf32_flags"].append({"line": node.lineno, "what": ast.unparse(node)})
            if "dtype" in keywords and name not in ("to", "astype"):
                target = short_dtype(_tail(keywords["dtype"]) or "")
                if target and lower(target, "fp32"):
                    facts["lowering"].append({"line": node.lineno,
                                              "what": f"{name}(..., dtype="
                                                      f"{ast.unparse(keywords['dtype'])})",
                                              "precision": target,
                                              "kernel": kernels.get(id(node))})
        elif isinstance(node, ast.Assign) and any(_tail(t) == "allow_tf32" for t in node.targets) \
                and _constant(node.value) is True:
            facts["tf32_flags"].append({"line": node.lineno, "what": ast.unparse(node)})
    for key in facts:
        facts[key] = facts[key][:_LIMIT]
    return facts


def reference_tf32(settings, reference_ops):
    """Whether PyTorch's flags (the judge's, captured before the candidate was imported) let the
    reference's own operators use TF32: cuBLAS matmuls through `cuda.matmul.allow_tf32` / the
    float32 matmul precision, cuDNN convolutions and RNNs through `cudnn.allow_tf32`."""
    ops = set(reference_ops or ())
    matmul = bool(ops & {"matmul", "mm", "bmm", "addmm", "baddbmm", "linear", "einsum",
                         "addbmm", "mv", "dot", "tensordot", "bilinear"})
    cudnn = any(op.startswith(("conv", "cudnn")) or op in ("gru", "lstm", "rnn_tanh", "rnn_relu")
                for op in ops)
    allowed = []
    if matmul and (settings.get("cuda.matmul.allow_tf32") is True or
                   settings.get("float32_matmul_precision") in ("high", "medium")):
        allowed.append("cuBLAS matmul (torch.backends.cuda.matmul.allow_tf32)")
    if cudnn and settings.get("cudnn.allow_tf32") is True:
        allowed.append("cuDNN (torch.backends.cudnn.allow_tf32)")
    return allowed


def _tf32_in_flags(flags, judge):
    """Lines for the TF32 / reduced-precision switches the candidate's process had on where the
    judge's (the reference's) were off."""
    lines = []
    for name, value in (flags or {}).items():
        before = judge.get(name)
        if str(before) != value and value in ("True", "high", "medium") and name != "default_dtype":
            lines.append(f"{name} {before} -> {value} in the candidate's process")
    return lines


def assess(policy, reference_dtypes, seen, facts, judge_settings, reference_ops):
    """The result's `numerics` object (module docstring). `reference_dtypes`: the floating dtypes
    of the reference's inputs, parameters and outputs (short names); `seen`: merged call
    observations (None when no call ran); `facts`: source_facts(); `judge_settings`: the judge's
    numerics.capture(); `reference_ops`: the operators the reference dispatched."""
    reference = min((d for d in reference_dtypes if d), key=lambda d: _RANK[d], default="fp32")
    seen = seen or {"kernels": {}, "dots": {}, "casts": {}, "ops": {}, "flags": {}}
    tf32_ok = reference_tf32(judge_settings, reference_ops)
    operands = {}   # precision -> evidence lines
    accumulate = set()

    def note(precision, line):
        operands.setdefault(precision, [])
        if line not in operands[precision]:
            operands[precision].append(line)

    for kernel, dtypes in sorted(seen["kernels"].items()):
        floats = sorted({short_dtype(d) for d in dtypes} - {None}, key=lambda d: -_RANK[d])
        for precision in floats:
            note(precision, f"Triton kernel {kernel} read/wrote {', '.join(floats)} tensors")
    compiled = set()
    for kernel, dots in sorted(seen["dots"].items()):
        for dot in dots:
            a, b = short_dtype(dot.get("a")) or "fp32", short_dtype(dot.get("b")) or "fp32"
            acc = short_dtype(dot.get("acc")) or "fp32"
            precision = dot.get("input_precision") or "ieee"
            compiled.add(kernel)
            accumulate.add(acc)
            operand = min((a, b), key=lambda d: _RANK[d])
            if operand == "fp32" and precision in ("tf32", "tf32x3"):
                operand = precision
            note(operand, f"compiled IR of {kernel}: tt.dot {dot.get('a')} x {dot.get('b')} -> "
                          f"{dot.get('acc')}, inputPrecision {precision}")
    for dot in facts.get("dots", []):
        if dot["kernel"] in compiled:
            continue
        if dot.get("out_dtype"):
            accumulate.add(dot["out_dtype"])
        else:
            accumulate.add("fp32")  # tl.dot accumulates in fp32 unless out_dtype says otherwise
        precision = dot.get("input_precision")
        kernel_dtypes = {short_dtype(d) for d in seen["kernels"].get(dot["kernel"] or "", ())}
        fp32_kernel = kernel_dtypes <= {"fp32", "fp64", None} and not any(
            f.get("kernel") == dot["kernel"] for f in facts.get("lowering", []))
        if precision == "default" and fp32_kernel:
            note("tf32", f"line {dot['line']}: tl.dot in {dot['kernel']} without input_precision: "
                         f"TF32 on the GPU for fp32 operands (Triton's default)")
        elif precision in ("tf32", "tf32x3") and fp32_kernel:
            note(precision, f"line {dot['line']}: tl.dot in {dot['kernel']} with "
                            f"input_precision {precision}")
    for cast, count in sorted(seen["casts"].items()):
        target = cast.split("->")[-1]
        if target in _RANK:
            note(target, f"cast {cast.replace('->', ' -> ')} dispatched ({count} times over the checked calls)")
    for op, dtypes in sorted(seen["ops"].items()):
        for dtype in dtypes:
            if dtype in _RANK:
                note(dtype, f"PyTorch {op} on {dtype}")
                accumulate.add("fp32")
    for fact in facts.get("lowering", []):
        note(fact["precision"], f"line {fact['line']}: {fact['what']}")
    flag_lines = _tf32_in_flags(seen.get("flags"), judge_settings)
    flag_lines += [f"line {f['line']}: {f['what']}" for f in facts.get("tf32_flags", [])]
    if flag_lines and any(op in ("fp32",) for op in (
            d for dtypes in seen["ops"].values() for d in dtypes)):
        for line in flag_lines:
            note("tf32", line + " (its fp32 matmuls/convolutions may run in TF32)")
    narrowest = min(operands, key=lambda d: _RANK[d], default=None)
    if narrowest == "fp32" and "tf32x3" in operands:  # fp32-equivalent, but say how
        narrowest = "tf32x3"
    lowered_by = []
    for precision, lines in operands.items():
        if not lower(precision, reference):
            continue
        if precision == "tf32" and tf32_ok and reference == "fp32":
            continue
        lowered_by += lines
    acc = min(accumulate, key=lambda d: _RANK[d], default=None)
    if narrowest is None:
        summary = None
    else:
        names = {"tf32x3": "fp32 (3xTF32)"}
        summary = f"{names.get(narrowest, narrowest)} operands"
        if acc:
            summary += f", {acc} accumulate"
    evidence = list(dict.fromkeys(line for lines in operands.values() for line in lines))
    if tf32_ok:
        evidence.append("TF32 allowed for the reference by PyTorch's flags: " + ", ".join(tf32_ok))
    return {"policy": policy, "reference": reference, "summary": summary,
            "operands": narrowest, "accumulate": acc,
            "lowered": bool(lowered_by), "lowered_by": lowered_by[:_LIMIT],
            "evidence": evidence[:_LIMIT]}


def rejection(report):
    """The reason a `strict` evaluation rejects a candidate whose numerics are lower than the
    reference's; None when it does not."""
    if report.get("policy") != "strict" or not report.get("lowered"):
        return None
    why = "; ".join(report["lowered_by"][:4])
    return (f"numerics: {report['summary']} where the reference computes in "
            f"{report['reference']} (--numerics strict): {why}")
