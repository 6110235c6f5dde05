"""`analyze`: what a candidate does, from its syntax tree (and, on request, one measured forward).

Static facts need the candidate alone; the task, when given, adds what the reference computes.
The schema is documented in docs/analysis.md; C++ (src/analysis/facts.cc) parses it.

Command line (for fixtures and debugging):
    python3 -m kforge_worker.facts CANDIDATE.py [--task TASK.py] [--runtime] [--device cpu]"""

import ast
import json
import os
import sys

from kforge_worker.facts_host import TRIVIAL, HostFacts, is_heavy
from kforge_worker.facts_jit import JitFunctionFacts
from kforge_worker.facts_names import Aliases, exists_in_installed, unparse

SCHEMA_VERSION = 1
RECURRENT_FAMILIES = {"gru", "lstm", "rnn", "grucell", "lstmcell", "rnncell"}


def _versions():
    out = {"python": sys.version.split()[0]}
    for name in ("triton", "torch"):
        try:
            out[name] = __import__(name).__version__
        except Exception:
            out[name] = None
    return out


def _is_jit_decorator(aliases, decorator):
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = aliases.canonical(target) or unparse(target)
    return name in ("triton.jit", "triton.runtime.jit.jit", "triton.runtime.jit")


def _jit_functions(tree, aliases):
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(_is_jit_decorator(aliases, d) for d in node.decorator_list):
                out.append(node)
    return out


def _decorators(aliases, node):
    return [aliases.canonical(d.func if isinstance(d, ast.Call) else d)
            or unparse(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list]


def _import_facts(tree, aliases):
    """`from triton.language import tanh` and the like, checked against the installed modules."""
    missing = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("triton"):
            for alias in node.names:
                if exists_in_installed(f"{node.module}.{alias.name}") is False:
                    missing.append({"name": f"{node.module}.{alias.name}",
                                    "qualified": f"{node.module}.{alias.name}",
                                    "line": node.lineno, "column": node.col_offset + 1})
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("triton") and exists_in_installed(alias.name) is False:
                    missing.append({"name": alias.name, "qualified": alias.name,
                                    "line": node.lineno, "column": node.col_offset + 1})
    return missing


def _parse(source, path):
    try:
        return ast.parse(source, filename=path), None
    except SyntaxError as error:
        return None, {"line": error.lineno or 0, "column": error.offset or 0,
                      "message": error.msg}


def _param_aliases(launches, jit_params):
    """Kernel parameters that receive the same host expression at some launch (kernel(h, h, ...)):
    {kernel: {param: representative param}}."""
    out = {}
    for launch in launches:
        params = jit_params.get(launch["kernel"])
        if not params:
            continue
        by_expr = {}
        for param, expr in launch["args"].items():
            by_expr.setdefault(expr, []).append(param)
        mapping = out.setdefault(launch["kernel"], {})
        for group in by_expr.values():
            if len(group) > 1:
                for param in group[1:]:
                    mapping[param] = group[0]
    return out


def _sync_summaries(functions):
    """{jit function: {"spin", "atomic"}}, closed over the jit helpers each one calls."""
    summaries = {name: jit.sync_summary() for name, jit in functions.items()}
    changed = True
    while changed:
        changed = False
        for summary in summaries.values():
            for callee in summary["calls"]:
                other = summaries.get(callee)
                if other is None:
                    continue
                for key in ("spin", "atomic"):
                    if other[key] and not summary[key]:
                        summary[key] = True
                        changed = True
    return summaries


def candidate_facts(source, path):
    """Static facts of a candidate source (no task, nothing imported from it)."""
    facts = {"schema": SCHEMA_VERSION, "path": path, "versions": _versions(),
             "syntax_error": None, "jit_functions": [], "launches": [], "torch_ops": [],
             "modules": [], "forward": None, "import_missing_api": [], "reference": None,
             "runtime": None}
    tree, error = _parse(source, path)
    if tree is None:
        facts["syntax_error"] = error
        return facts
    aliases = Aliases(tree)
    jit_nodes = _jit_functions(tree, aliases)
    jit_names = [node.name for node in jit_nodes]
    jit_params = {node.name: [a.arg for a in node.args.posonlyargs + node.args.args
                              + node.args.kwonlyargs] for node in jit_nodes}
    host = HostFacts(tree, aliases, jit_names, ("ModelNew",))
    launches = host.launches(jit_params)
    param_aliases = _param_aliases(launches, jit_params)
    analyzed = [(node, JitFunctionFacts(node, aliases, {}, set(jit_names))) for node in jit_nodes]
    helpers = _sync_summaries({node.name: jit for node, jit in analyzed})
    for node, jit in analyzed:
        entry = jit.to_dict(param_aliases.get(node.name), helpers)
        entry["decorators"] = _decorators(aliases, node)
        entry["launched"] = any(launch["kernel"] == node.name for launch in launches)
        entry["launched_from_forward"] = any(launch["kernel"] == node.name and launch["in_forward"]
                                             for launch in launches)
        facts["jit_functions"].append(entry)
    facts["launches"] = launches
    facts["torch_ops"] = host.torch_ops()
    facts["modules"] = host.modules("ModelNew")
    facts["import_missing_api"] = _import_facts(tree, aliases)
    if host.root is not None:
        node = host.functions[host.root].node
        facts["forward"] = {"function": host.root, "line": node.lineno,
                            "reached": sorted(host.reached())}
    return facts


def _int_constant(tree, names):
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if (isinstance(target, ast.Name) and target.id in names
                        and isinstance(node.value.value, int)):
                    return node.value.value
    return None


def reference_facts(source, path):
    """What the task's reference `Model.forward` computes: the operator families it calls (the
    operators a candidate replaces), whether it is recurrent, and its layer count."""
    tree, error = _parse(source, path)
    if tree is None:
        return {"path": path, "syntax_error": error, "ops": [], "families": [],
                "heavy_families": [], "replaced_families": [], "recurrent": False,
                "layers": None, "directions": 1}
    aliases = Aliases(tree)
    host = HostFacts(tree, aliases, [], ("Model",))
    ops = [{"name": op["name"], "family": op["family"], "heavy": op["heavy"], "line": op["line"]}
           for op in host.torch_ops()]
    families = []
    for op in ops:
        if op["family"] not in families and (op["heavy"] or not op["name"].startswith("Tensor.")):
            if op["family"] not in TRIVIAL:
                families.append(op["family"])
    layers = _int_constant(tree, {"num_layers", "n_layers", "layers", "nlayers"})
    bidirectional = False
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "num_layers" and layers is None:
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, int):
                layers = node.value.value
        if (isinstance(node, ast.keyword) and node.arg == "bidirectional"
                and isinstance(node.value, ast.Constant) and node.value.value is True):
            bidirectional = True
    recurrent = [f for f in families if f in RECURRENT_FAMILIES]
    # What the candidate replaces: the recurrence itself when there is one (the input projection
    # and an output head may stay library GEMMs: the hybrid strategy), else every operator.
    return {"path": path, "syntax_error": None, "ops": ops, "families": families,
            "heavy_families": [f for f in families if is_heavy(f)],
            "replaced_families": recurrent or families,
            "recurrent": bool(recurrent),
            "layers": layers, "directions": 2 if bidirectional else 1}


def _static_child(request, scratch):
    from kforge_worker.sandbox import resolve
    with open(resolve(request, "candidate_path"), encoding="utf-8", errors="replace") as handle:
        source = handle.read()
    facts = candidate_facts(source, request["candidate_path"])
    if request.get("task_path"):
        with open(resolve(request, "task_path"), encoding="utf-8", errors="replace") as handle:
            facts["reference"] = reference_facts(handle.read(), request["task_path"])
    return facts


def extract(candidate_path, task_path=None, runtime=False, device="cpu", shrink=False,
            timeout_s=60.0):
    """Static facts (and run-time facts on request). The static part runs in a forked child too:
    checking names imports Triton modules (libdevice), and importing those into the worker
    process would break later CPU-mode (interpreter) evaluations."""
    from kforge_worker.protocol import RequestError
    from kforge_worker.sandbox import run_request
    request = {"candidate_path": candidate_path, "task_path": task_path}
    outcome = run_request(_static_child, request, timeout_s=timeout_s, cpu_only=True)
    if outcome.status != "done":
        raise RequestError(f"failed to analyze candidate {candidate_path}: the analysis "
                           f"{outcome.message}")
    facts = outcome.result
    if runtime:
        from kforge_worker.facts_runtime import measure
        facts["runtime"] = measure(candidate_path, task_path, device, shrink)
    return facts


def handle(request):
    """The `analyze` op (docs/protocol.md)."""
    from kforge_worker.protocol import RequestError
    candidate = request.get("candidate_path")
    if not candidate:
        raise RequestError("failed to analyze candidate: no candidate_path given")
    if not os.path.isfile(candidate):
        raise RequestError(f"failed to analyze candidate {candidate}: no such file")
    task = request.get("task_path")
    if task and not os.path.isfile(task):
        raise RequestError(f"failed to analyze candidate {candidate}: task {task}: no such file")
    return extract(candidate, task, bool(request.get("runtime", False)),
                   request.get("device", "cuda"), bool(request.get("shrink", False)))


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(prog="python3 -m kforge_worker.facts")
    parser.add_argument("candidate")
    parser.add_argument("--task")
    parser.add_argument("--runtime", action="store_true")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--shrink", action="store_true")
    args = parser.parse_args(argv)
    facts = extract(args.candidate, args.task, args.runtime, args.device, args.shrink)
    json.dump(facts, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
