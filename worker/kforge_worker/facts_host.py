"""Facts about the host (Python) side of a candidate or a task: kernel launch sites and their grids,
the Python loops around them on the way from `forward`, and the torch operators `forward` uses
(docs/analysis.md, "launches", "torch_ops")."""

import ast

from kforge_worker.facts_names import names_in, roles_of_name, unparse

# Operator families: calls that compute the same thing under different names.
_FAMILY_ALIASES = {
    "mm": "matmul", "bmm": "matmul", "matmul": "matmul", "einsum": "matmul", "mv": "matmul",
    "addmm": "linear", "addmv": "linear", "baddbmm": "matmul", "addbmm": "matmul",
    "batchnorm1d": "batchnorm", "batchnorm2d": "batchnorm", "batchnorm3d": "batchnorm",
    "instancenorm1d": "instancenorm", "instancenorm2d": "instancenorm",
    "instancenorm3d": "instancenorm", "scaleddotproductattention": "attention",
    "multiheadattention": "attention", "multiheadattentionforward": "attention",
    "conv1d": "conv1d", "conv2d": "conv2d", "conv3d": "conv3d",
}
# Shape, allocation and bookkeeping calls: never "the operator being replaced".
TRIVIAL = {
    "view", "reshape", "permute", "transpose", "contiguous", "size", "unsqueeze", "squeeze",
    "flatten", "expand", "expandas", "cat", "stack", "zeros", "ones", "empty", "zeroslike",
    "emptylike", "oneslike", "fulllike", "full", "tensor", "arange", "to", "float", "half",
    "chunk", "split", "unbind", "clone", "copy", "narrow", "select", "device", "dtype",
    "isavailable", "synchronize", "manualseed", "randn", "rand", "randint", "nograd",
    "emptystrided", "asstrided", "newempty", "newzeros", "parameter", "modulelist",
    "sequential", "identity", "dropout", "getdefaultdtype", "promote_types", "numel", "dim",
    "datptr", "dataptr", "stride", "item", "tolist", "zero", "fill", "copy_", "cuda", "cpu",
    "detach", "requiresgrad", "type", "flip", "repeat", "tile", "broadcastto", "zero_",
}
ELEMENTWISE = {
    "relu", "gelu", "tanh", "sigmoid", "add", "mul", "sub", "div", "exp", "log", "clamp", "abs",
    "where", "pow", "sqrt", "rsqrt", "neg", "silu", "leakyrelu", "elu", "selu", "hardtanh",
    "softplus", "mish", "erf", "maximum", "minimum", "sign", "reciprocal", "square",
    "hardsigmoid", "hardswish", "relu6", "logsigmoid", "clip", "addcmul", "lerp",
}
# Tensor methods that launch a library kernel worth naming.
TENSOR_METHOD_OPS = {
    "matmul", "mm", "bmm", "addmm", "baddbmm", "mv", "softmax", "log_softmax", "relu", "tanh",
    "sigmoid", "sum", "mean", "max", "min", "exp", "var", "std", "norm", "cumsum", "argmax",
}


def family(name):
    leaf = name.rsplit(".", 1)[-1].lower().replace("_", "")
    return _FAMILY_ALIASES.get(leaf, leaf)


def is_heavy(fam):
    return fam not in TRIVIAL and fam not in ELEMENTWISE


def _is_module_base(aliases, base, module_classes):
    name = aliases.canonical(base) or unparse(base)
    return name.endswith("Module") or name in module_classes


class _Function:
    def __init__(self, key, node, cls):
        self.key = key
        self.node = node
        self.cls = cls
        self.nested = {}
        self.launches = []  # (call node, loops)
        self.calls = []  # (callee keys, call node, loops)
        self.ops = []  # (name, node, loops)
        self.assigns = {}  # local name -> [(line, value node)]


class HostFacts:
    """Launch sites, call graph and torch operators of one Python source."""

    def __init__(self, tree, aliases, jit_names, root_classes):
        self.tree = tree
        self.aliases = aliases
        self.jit_names = set(jit_names)
        self.functions = {}
        self.classes = {}
        self.module_classes = set()
        self.function_classes = set()
        self.attr_types = {}  # class -> attr -> [type names]
        self.module_assigns = {}
        self._collect(tree)
        self.root = self._find_root(root_classes)
        for fn in list(self.functions.values()):
            self._scan_function(fn)

    # ---- collection ----

    def _collect(self, tree):
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                self.classes[node.name] = node
        changed = True
        while changed:  # module classes may derive from each other in any order
            changed = False
            for name, node in self.classes.items():
                if name in self.module_classes:
                    continue
                if any(_is_module_base(self.aliases, b, self.module_classes) for b in node.bases):
                    self.module_classes.add(name)
                    changed = True
        for name, node in self.classes.items():
            if any((self.aliases.canonical(b) or unparse(b)).endswith("Function")
                   for b in node.bases):
                self.function_classes.add(name)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name not in self.jit_names:
                    self._add_function(node.name, node, None)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self._add_function(f"{node.name}.{item.name}", item, node.name)
                self.attr_types[node.name] = self._attribute_types(node)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.module_assigns.setdefault(target.id, []).append(
                            (node.lineno, node.value))

    def _add_function(self, key, node, cls):
        fn = _Function(key, node, cls)
        self.functions[key] = fn
        for sub in ast.walk(node):
            if sub is not node and isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                nested_key = f"{key}.{sub.name}"
                if nested_key not in self.functions:
                    fn.nested[sub.name] = nested_key
                    self._add_function(nested_key, sub, cls)
        return fn

    def _attribute_types(self, cls_node):
        """`self.X = nn.GRU(...)` in a class's methods: attribute -> constructed type names."""
        out = {}
        for item in ast.walk(cls_node):
            if not isinstance(item, ast.Assign):
                continue
            for target in item.targets:
                if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id == "self"):
                    types = []
                    for sub in ast.walk(item.value):
                        if isinstance(sub, ast.Call):
                            name = self.aliases.canonical(sub.func) or unparse(sub.func)
                            types.append(name)
                    if types:
                        out.setdefault(target.attr, []).extend(types)
        return out

    def _find_root(self, root_classes):
        for name in root_classes:
            if f"{name}.forward" in self.functions:
                return f"{name}.forward"
        return None

    # ---- one function ----

    def _scan_function(self, fn):
        loop_vars = {}  # loop variable -> iterated expression (for `for cell in self.cells`)
        self._walk(fn, fn.node.body, [], loop_vars)

    def _walk(self, fn, body, loops, loop_vars):
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                if isinstance(stmt, ast.While):
                    entry = {"function": fn.key, "line": stmt.lineno, "kind": "while",
                             "var": None, "iter": unparse(stmt.test),
                             "roles": sorted(set().union(*[roles_of_name(n)
                                                           for n in names_in(stmt.test)]))}
                    self._scan_expr(fn, stmt.test, loops, loop_vars)
                else:
                    var = unparse(stmt.target)
                    roles = set(roles_of_name(var)) if isinstance(stmt.target, ast.Name) else set()
                    iter_names = [n for n in names_in(stmt.iter)
                                  if n not in ("range", "self", "enumerate", "zip", "reversed")]
                    if isinstance(stmt.iter, ast.Call) and unparse(stmt.iter.func) == "range":
                        for name in iter_names:
                            roles |= roles_of_name(name)
                        for sub in ast.walk(stmt.iter):
                            if isinstance(sub, ast.Attribute):
                                roles |= roles_of_name(sub.attr)
                    entry = {"function": fn.key, "line": stmt.lineno, "kind": "for", "var": var,
                             "iter": unparse(stmt.iter), "roles": sorted(roles)}
                    self._scan_expr(fn, stmt.iter, loops, loop_vars)
                    targets = [stmt.target] if isinstance(stmt.target, ast.Name) else [
                        t for t in getattr(stmt.target, "elts", []) if isinstance(t, ast.Name)]
                    if targets:
                        loop_vars = dict(loop_vars)
                        for target in targets:  # `for i, cell in enumerate(self.cells)`
                            loop_vars[target.id] = stmt.iter
                self._walk(fn, stmt.body, loops + [entry], loop_vars)
                self._walk(fn, stmt.orelse, loops, loop_vars)
                continue
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        fn.assigns.setdefault(target.id, []).append((stmt.lineno, stmt.value))
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.expr):
                    self._scan_expr(fn, child, loops, loop_vars)
                elif isinstance(child, list):
                    pass
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    self._walk(fn, inner, loops, loop_vars)
            if isinstance(stmt, ast.Try):
                for handler in stmt.handlers:
                    self._walk(fn, handler.body, loops, loop_vars)
            if isinstance(stmt, ast.With):
                for item in stmt.items:
                    self._scan_expr(fn, item.context_expr, loops, loop_vars)

    def _scan_expr(self, fn, expr, loops, loop_vars):
        for node in ast.walk(expr):
            if isinstance(node, ast.Lambda):
                continue
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
                fn.ops.append(("operator.matmul", node, loops))
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Subscript):
                kernel = func.value
                kernel_name = kernel.id if isinstance(kernel, ast.Name) else (
                    kernel.attr if isinstance(kernel, ast.Attribute) else None)
                if kernel_name is not None:
                    fn.launches.append((node, loops, kernel_name))
                    continue
            qualified = self.aliases.canonical(func)
            if qualified and qualified.startswith("torch."):
                fn.ops.append((qualified, node, loops))
                continue
            callees = self._callees(fn, func, loop_vars)
            if callees:
                fn.calls.append((callees, node, loops))
            module_types = self._module_attr_types(fn, func, loop_vars)
            for type_name in module_types:
                if type_name.startswith("torch."):
                    fn.ops.append((type_name, node, loops))
            if (isinstance(func, ast.Attribute) and func.attr in TENSOR_METHOD_OPS
                    and not callees and not module_types and qualified is None
                    and not (isinstance(func.value, ast.Name) and func.value.id == "self")):
                fn.ops.append((f"Tensor.{func.attr}", node, loops))

    def _self_attr(self, func, loop_vars):
        """The `self.X` a call goes through: self.X(...), self.X[i](...), or a loop variable over
        self.X."""
        target = func
        if isinstance(target, ast.Subscript):
            target = target.value
        if isinstance(target, ast.Name) and target.id in loop_vars:
            iterated = loop_vars[target.id]
            if isinstance(iterated, ast.Call) and iterated.args:  # enumerate(self.cells)
                iterated = iterated.args[0]
            target = iterated
        if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and target.value.id == "self"):
            return target.attr
        return None

    def _module_attr_types(self, fn, func, loop_vars):
        attr = self._self_attr(func, loop_vars)
        if attr is None or fn.cls is None:
            return []
        return self.attr_types.get(fn.cls, {}).get(attr, [])

    def _callees(self, fn, func, loop_vars):
        out = []
        if isinstance(func, ast.Name):
            scope = fn
            while scope is not None:
                if func.id in scope.nested:
                    return [scope.nested[func.id]]
                parent_key = scope.key.rsplit(".", 1)[0] if "." in scope.key else None
                scope = self.functions.get(parent_key) if parent_key else None
            if func.id in self.functions:
                out.append(func.id)
            if func.id in self.module_classes:
                out.append(f"{func.id}.__init__")
            for type_name in self._module_attr_types(fn, func, loop_vars):  # loop over modules
                if type_name in self.module_classes:
                    out.append(f"{type_name}.forward")
        elif isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name):
                owner = func.value.id
                if owner == "self" and fn.cls and f"{fn.cls}.{func.attr}" in self.functions:
                    out.append(f"{fn.cls}.{func.attr}")
                elif owner in self.classes:
                    method = "forward" if func.attr == "apply" else func.attr
                    out.append(f"{owner}.{method}")
            for type_name in self._module_attr_types(fn, func, loop_vars):
                if type_name in self.module_classes:
                    out.append(f"{type_name}.forward")
        elif isinstance(func, ast.Subscript):
            for type_name in self._module_attr_types(fn, func, loop_vars):
                if type_name in self.module_classes:
                    out.append(f"{type_name}.forward")
        return [key for key in out if key in self.functions]

    # ---- grids ----

    def _resolve(self, fn, name, line):
        """The last value assigned to `name` before `line` in `fn` (or its enclosing functions,
        or the module), or a nested `def name` (its returned expression)."""
        scope = fn
        while scope is not None:
            if name in scope.nested:
                nested = self.functions[scope.nested[name]].node
                for sub in ast.walk(nested):
                    if isinstance(sub, ast.Return) and sub.value is not None:
                        return sub.value
            candidates = [(ln, v) for ln, v in scope.assigns.get(name, []) if ln <= line]
            if candidates:
                return candidates[-1][1]
            parent_key = scope.key.rsplit(".", 1)[0] if "." in scope.key else None
            scope = self.functions.get(parent_key) if parent_key else None
            line = 10 ** 9
        if name in self.functions:
            for sub in ast.walk(self.functions[name].node):
                if isinstance(sub, ast.Return) and sub.value is not None:
                    return sub.value
        if name in self.module_assigns:
            return self.module_assigns[name][-1][1]
        return None

    def grid_of(self, fn, call):
        grid = call.func.slice
        text = unparse(grid)
        expr = grid
        for _ in range(4):
            if isinstance(expr, ast.Name):
                resolved = self._resolve(fn, expr.id, call.lineno)
                if resolved is None:
                    break
                expr = resolved
            elif isinstance(expr, ast.Lambda):
                expr = expr.body
            else:
                break
        skip = {"triton", "meta", "META", "max", "min", "cdiv", "int", "math", "lambda", "self",
                "len"}
        if isinstance(expr, ast.Lambda):
            skip |= {a.arg for a in expr.args.args}
        if isinstance(expr, (ast.Tuple, ast.List)):
            elements = expr.elts
        elif isinstance(expr, (ast.Name, ast.Lambda)) or expr is None:
            elements = None
        else:
            elements = [expr]
        dims = None
        if elements is not None:
            dims = []
            for element in elements:
                names = [n for n in names_in(element) if n not in skip]
                roles = set()
                for name in names:
                    roles |= roles_of_name(name)
                for sub in ast.walk(element):
                    if isinstance(sub, ast.Attribute):
                        roles |= roles_of_name(sub.attr)
                dims.append({"expr": unparse(element), "names": names, "roles": sorted(roles)})
        return text, dims

    # ---- traversal from forward ----

    def reached(self):
        """{function key: [(call path, loops)]} for every function reachable from the root."""
        out = {}
        if self.root is None:
            return out

        def visit(key, path, loops):
            out.setdefault(key, []).append((path, loops))
            if len(path) > 12:
                return
            for callees, _, call_loops in self.functions[key].calls:
                for callee in callees:
                    if callee not in path:
                        visit(callee, path + [callee], loops + call_loops)

        visit(self.root, [self.root], [])
        return out

    def launches(self, jit_params):
        reached = self.reached()
        out = []
        for fn in self.functions.values():
            contexts = reached.get(fn.key) or [([fn.key], [])]
            in_forward = fn.key in reached
            path, outer = max(contexts, key=lambda c: len(c[1]))
            for call, loops, kernel in fn.launches:
                grid_text, dims = self.grid_of(fn, call)
                params = jit_params.get(kernel)
                args = {}
                if params is not None:
                    for i, arg in enumerate(call.args):
                        if i < len(params):
                            args[params[i]] = unparse(arg)
                for keyword in call.keywords:
                    if keyword.arg:
                        args[keyword.arg] = unparse(keyword.value)
                if dims is not None:
                    for dim in dims:
                        dim["params"] = sorted(p for p, a in args.items() if a in dim["names"])
                out.append({
                    "kernel": kernel, "kernel_is_jit": kernel in self.jit_names,
                    "line": call.lineno, "column": call.col_offset + 1, "function": fn.key,
                    "grid": grid_text, "grid_dims": len(dims) if dims is not None else None,
                    "dims": dims, "args": args, "in_forward": in_forward,
                    "call_path": path if in_forward else [fn.key],
                    "loops": (outer if in_forward else []) + loops,
                })
        return sorted(out, key=lambda launch: launch["line"])

    def torch_ops(self):
        reached = self.reached()
        out = []
        seen = set()
        for key, contexts in reached.items():
            fn = self.functions[key]
            outer = max((c[1] for c in contexts), key=len)
            for name, node, loops in fn.ops:
                marker = (name, node.lineno, node.col_offset)
                if marker in seen:
                    continue
                seen.add(marker)
                fam = family(name)
                out.append({"name": name, "family": fam, "heavy": is_heavy(fam),
                            "line": node.lineno, "function": key,
                            "in_loop": bool(outer or loops)})
        return sorted(out, key=lambda op: op["line"])

    def modules(self, cls):
        out = []
        for attr, types in self.attr_types.get(cls, {}).items():
            for type_name in types:
                if type_name.startswith("torch.nn.") and type_name[9:10].isupper():
                    out.append({"attr": attr, "type": type_name, "family": family(type_name)})
        return out
