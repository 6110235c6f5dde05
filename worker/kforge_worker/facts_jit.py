"""Facts about one `@triton.jit` function, from its syntax tree (docs/analysis.md, "jit_functions").

The analysis is flow-insensitive with one refinement: a use of a local name sees the definitions
above it plus those inside a loop that also holds the use (loop-carried values)."""

import ast

from kforge_worker.facts_names import exists_in_installed, names_in, roles_of_name, unparse

TL = "triton.language"
LIBDEVICE_SUFFIX = ".libdevice"
REDUCTIONS = {"sum", "max", "min", "reduce", "argmax", "argmin", "cumsum", "cumprod",
              "associative_scan", "xor_sum", "reduce_or", "sort", "histogram"}
LOADS = {"load"}
STORES = {"store"}
# tl functions whose result is not a tensor (so a subscript of it is no tensor subscript).
NOT_TENSOR = {"constexpr", "static_range", "range", "num_programs", "cdiv"}
RANGE_CALLS = {"range", f"{TL}.range", f"{TL}.static_range"}


def is_constexpr_annotation(node):
    if node is None:
        return False
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.endswith("constexpr")
    if isinstance(node, ast.Attribute):
        return node.attr == "constexpr"
    if isinstance(node, ast.Name):
        return node.id == "constexpr"
    return False


class _Def:
    """One definition of a local name: the expression it was assigned (None for a loop target,
    whose expression is `source`), its line and the loops around it."""

    def __init__(self, value, line, loops, kind="assign", source=None):
        self.value = value
        self.line = line
        self.loops = loops
        self.kind = kind  # assign | augassign | loop | tuple
        self.source = source if source is not None else value


class JitFunctionFacts:
    """Walks one jit function and collects its facts as a JSON-ready dict (`self.facts`)."""

    def __init__(self, node, aliases, module_constants, jit_names, aliased_params=None):
        self.node = node
        self.aliases = aliases
        self.module_constants = module_constants
        self.jit_names = jit_names
        self.params = []
        self.param_names = set()
        self.constexpr_params = set()
        self.defs = {}  # name -> [_Def]
        self.loops = []  # dicts, in source order
        self.loop_nodes = {}
        self.memory = []
        self.calls = []
        self.missing = []
        self.aranges = []
        self.subscripts = []
        self.barriers = []
        self.pid_axes = {}  # atom name -> axis (int or None)
        self.pid_calls = []
        self._collect_params()
        self.scalar_params = self._scalar_params()
        self._walk_body(node.body, [])
        self._finish()

    # ---- collection ----

    def _collect_params(self):
        args = self.node.args
        for arg in list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs):
            constexpr = is_constexpr_annotation(arg.annotation)
            self.params.append({"name": arg.arg, "constexpr": constexpr, "line": arg.lineno})
            self.param_names.add(arg.arg)
            if constexpr:
                self.constexpr_params.add(arg.arg)

    def _scalar_params(self):
        """Parameters used as numbers somewhere (compared, multiplied, a loop bound): never the
        base of a pointer, even where they are added to one (`b_ptr + H + offs`)."""
        out = set()
        for sub in ast.walk(self.node):
            operands = []
            if isinstance(sub, ast.Compare):
                operands = [sub.left] + list(sub.comparators)
            elif isinstance(sub, ast.BinOp) and not isinstance(sub.op, (ast.Add, ast.Sub)):
                operands = [sub.left, sub.right]
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and \
                    sub.func.id == "range":
                operands = list(sub.args)
            for operand in operands:
                if isinstance(operand, ast.Name) and operand.id in self.param_names:
                    out.add(operand.id)
        return out

    def _add_def(self, target, value, line, loops, kind="assign", source=None):
        if isinstance(target, ast.Name):
            self.defs.setdefault(target.id, []).append(_Def(value, line, loops, kind, source))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._add_def(element, value, line, loops, "tuple", source)
        elif isinstance(target, ast.Starred):
            self._add_def(target.value, value, line, loops, "tuple", source)

    def _walk_body(self, body, loops):
        for stmt in body:
            self._walk_stmt(stmt, loops)

    def _walk_stmt(self, stmt, loops):
        if isinstance(stmt, ast.For):
            loop_id = len(self.loops)
            self._record_loop(stmt, loop_id, loops)
            self._scan_expr(stmt.iter, loops)
            self._add_def(stmt.target, None, stmt.lineno, loops + [loop_id], "loop", stmt.iter)
            self._walk_body(stmt.body, loops + [loop_id])
            self._walk_body(stmt.orelse, loops)
        elif isinstance(stmt, ast.While):
            loop_id = len(self.loops)
            self._record_loop(stmt, loop_id, loops)
            self._scan_expr(stmt.test, loops + [loop_id])
            self._walk_body(stmt.body, loops + [loop_id])
            self._walk_body(stmt.orelse, loops)
        elif isinstance(stmt, ast.If):
            self._scan_expr(stmt.test, loops)
            self._walk_body(stmt.body, loops)
            self._walk_body(stmt.orelse, loops)
        elif isinstance(stmt, ast.With):
            for item in stmt.items:
                self._scan_expr(item.context_expr, loops)
            self._walk_body(stmt.body, loops)
        elif isinstance(stmt, ast.Assign):
            self._scan_expr(stmt.value, loops)
            for target in stmt.targets:
                self._scan_target(target, loops)
                self._add_def(target, stmt.value, stmt.lineno, loops)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self._scan_expr(stmt.value, loops)
                self._add_def(stmt.target, stmt.value, stmt.lineno, loops)
        elif isinstance(stmt, ast.AugAssign):
            self._scan_expr(stmt.value, loops)
            self._scan_target(stmt.target, loops)
            combined = ast.BinOp(left=ast.Name(id=getattr(stmt.target, "id", "_"), ctx=ast.Load()),
                                 op=stmt.op, right=stmt.value)
            ast.copy_location(combined, stmt)
            self._add_def(stmt.target, combined, stmt.lineno, loops, "augassign")
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            pass  # nested definitions are not part of the kernel body
        else:
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.expr):
                    self._scan_expr(child, loops)

    def _record_loop(self, stmt, loop_id, loops):
        entry = {"id": loop_id, "line": stmt.lineno, "end_line": getattr(stmt, "end_lineno", None),
                 "depth": len(loops), "parent": loops[-1] if loops else None}
        if isinstance(stmt, ast.For):
            entry["kind"] = "for"
            entry["var"] = unparse(stmt.target)
            entry["iter"] = unparse(stmt.iter)
            start = stop = step = None
            static = False
            if isinstance(stmt.iter, ast.Call):
                callee = self.aliases.canonical(stmt.iter.func) or unparse(stmt.iter.func)
                if callee in RANGE_CALLS:
                    static = callee.endswith("static_range")
                    args = stmt.iter.args
                    if len(args) == 1:
                        stop = args[0]
                    elif len(args) >= 2:
                        start, stop = args[0], args[1]
                        step = args[2] if len(args) >= 3 else None
            entry["start"] = unparse(start) if start is not None else None
            entry["stop"] = unparse(stop) if stop is not None else None
            entry["step"] = unparse(step) if step is not None else None
            entry["unit_step"] = step is None or (isinstance(step, ast.Constant) and step.value == 1)
            entry["static"] = static
            bound_names = [n for n in names_in(stmt.iter) if n not in ("range", "tl", "triton")]
            entry["bound_names"] = bound_names
            entry["bound_constexpr"] = stop is not None and self.is_constexpr_expr(stop, stmt.lineno,
                                                                                   loops)
            roles = set(roles_of_name(entry["var"]) if isinstance(stmt.target, ast.Name) else ())
            stop_names = names_in(stop) if stop is not None else bound_names
            for name in stop_names:
                roles |= roles_of_name(name)
            entry["roles"] = sorted(roles)
        else:
            # `while n < H: ... n += 1` walks H one element at a time, like range(H).
            counters = set()
            for sub in ast.walk(stmt):
                if (isinstance(sub, ast.AugAssign) and isinstance(sub.op, ast.Add)
                        and isinstance(sub.target, ast.Name) and isinstance(sub.value, ast.Constant)
                        and sub.value.value == 1):
                    counters.add(sub.target.id)
            test_names = names_in(stmt.test)
            unit = bool(counters & set(test_names))
            roles = set()
            if unit:
                for name in test_names:
                    if name not in counters:
                        roles |= roles_of_name(name)
            entry.update({"kind": "while", "var": None, "iter": unparse(stmt.test), "start": None,
                          "stop": None, "step": None, "unit_step": unit, "static": False,
                          "bound_names": test_names, "bound_constexpr": False,
                          "roles": sorted(roles)})
        self.loops.append(entry)
        self.loop_nodes[loop_id] = stmt

    def _scan_target(self, target, loops):
        """Subscripts assigned to (`h[k] = v`) inside a kernel are tensor subscripts too."""
        if isinstance(target, ast.Subscript):
            self._check_subscript(target, loops)
        for child in ast.iter_child_nodes(target):
            if isinstance(child, ast.expr) and not isinstance(target, ast.Subscript):
                self._scan_target(child, loops)

    def _scan_expr(self, expr, loops):
        for node in ast.walk(expr):
            if isinstance(node, ast.Call):
                self._on_call(node, loops)
            elif isinstance(node, ast.Attribute):
                self._on_attribute(node, loops)
            elif isinstance(node, ast.Subscript):
                self._check_subscript(node, loops)

    def _on_attribute(self, node, loops):
        qualified = self.aliases.canonical(node)
        if not qualified or not qualified.startswith("triton."):
            return
        # Only the outermost attribute of a chain is checked (tl.extra.cuda.libdevice.tanh once).
        if getattr(node, "_kforge_inner", False):
            return
        inner = node.value
        while isinstance(inner, ast.Attribute):
            inner._kforge_inner = True
            inner = inner.value
        if exists_in_installed(qualified) is False:
            self.missing.append({"name": self._short(qualified), "qualified": qualified,
                                 "line": node.lineno, "column": node.col_offset + 1})

    def _short(self, qualified):
        if qualified.startswith(TL + "."):
            rest = qualified[len(TL) + 1:]
            if ".libdevice." in qualified:
                return "libdevice." + qualified.rsplit(".", 1)[1]
            return "tl." + rest
        return qualified

    def _on_call(self, node, loops):
        qualified = self.aliases.canonical(node.func)
        line = node.lineno
        if qualified is None:
            if isinstance(node.func, ast.Name) and node.func.id in self.jit_names:
                self.calls.append({"name": node.func.id, "module": "jit", "line": line,
                                   "exists": True, "loops": list(loops)})
            return
        if not qualified.startswith("triton."):
            return
        module = "libdevice" if LIBDEVICE_SUFFIX + "." in qualified else (
            "tl" if qualified.startswith(TL + ".") else "triton")
        short = self._short(qualified)
        exists = exists_in_installed(qualified) is not False
        self.calls.append({"name": short, "module": module, "line": line, "exists": exists,
                           "loops": list(loops)})
        leaf = qualified.rsplit(".", 1)[1]
        if module != "tl":
            return
        if leaf == "program_id":
            axis = self._axis_of(node)
            self.pid_calls.append({"axis": axis, "line": line})
        elif leaf in LOADS or leaf in STORES or leaf.startswith("atomic_"):
            self._on_memory(node, leaf, loops)
        elif leaf == "arange":
            self._on_arange(node, loops)
        elif leaf == "debug_barrier":
            self.barriers.append({"kind": "debug_barrier", "line": line, "loops": list(loops)})

    def _axis_of(self, call):
        value = call.args[0] if call.args else None
        for keyword in call.keywords:
            if keyword.arg == "axis":
                value = keyword.value
        if isinstance(value, ast.Constant) and isinstance(value.value, int):
            return value.value
        return None

    def _on_memory(self, node, leaf, loops):
        pointer = node.args[0] if node.args else None
        for keyword in node.keywords:
            if keyword.arg in ("pointer", "ptr"):
                pointer = keyword.value
        volatile = any(k.arg == "volatile" and isinstance(k.value, ast.Constant) and k.value.value
                       for k in node.keywords)
        kind = "load" if leaf in LOADS else "store" if leaf in STORES else "atomic"
        self.memory.append({"kind": kind, "op": "tl." + leaf, "line": node.lineno,
                            "column": node.col_offset + 1, "loops": list(loops),
                            "pointer": unparse(pointer) if pointer is not None else "",
                            "volatile": bool(volatile), "_node": pointer})

    def _on_arange(self, node, loops):
        args = list(node.args)
        for keyword in node.keywords:
            if keyword.arg in ("start", "end"):
                args.append(keyword.value)
        runtime = []
        for arg in args:
            runtime += [n for n in self.runtime_names(arg, node.lineno, loops) if n not in runtime]
        if runtime:
            self.aranges.append({"line": node.lineno, "column": node.col_offset + 1,
                                 "expr": unparse(node), "runtime_names": runtime})

    def _check_subscript(self, node, loops):
        if _is_layout_index(node.slice):
            return
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            return
        if not self.is_tensor_expr(node.value, node.lineno, loops):
            return
        self.subscripts.append({"line": node.lineno, "column": node.col_offset + 1,
                                "expr": unparse(node), "value": unparse(node.value)})

    # ---- queries over definitions ----

    def visible_defs(self, name, line, loops):
        """Definitions of `name` a use at `line` inside `loops` can see."""
        out = []
        for d in self.defs.get(name, []):
            if d.line < line or (d.line == line and d.kind == "loop"):
                out.append(d)
            elif set(d.loops) & set(loops):
                out.append(d)  # loop-carried
        return out

    def is_constexpr_expr(self, expr, line, loops, seen=None):
        return not self.runtime_names(expr, line, loops, seen)

    def runtime_names(self, expr, line, loops, seen=None):
        """Names in `expr` that make it a run-time value: non-constexpr parameters, values loaded
        or computed from tensors, loop variables of non-static loops."""
        seen = set() if seen is None else seen
        out = []
        for node in ast.walk(expr):
            if isinstance(node, ast.Call):
                qualified = self.aliases.canonical(node.func) or ""
                if qualified.startswith(TL + ".") and qualified.rsplit(".", 1)[1] not in (
                        "constexpr", "cdiv"):
                    out.append(unparse(node.func))
            if not isinstance(node, ast.Name) or node.id in seen:
                continue
            name = node.id
            if name in self.constexpr_params:
                continue
            if name in self.param_names:
                out.append(name)
                continue
            defs = self.visible_defs(name, line, loops)
            if not defs:
                continue  # globals, builtins: constants as far as a kernel is concerned
            seen.add(name)
            for d in defs:
                if d.kind == "loop":
                    if not (isinstance(d.source, ast.Call) and (
                            self.aliases.canonical(d.source.func) or "").endswith("static_range")):
                        out.append(name)
                        break
                elif self.runtime_names(d.value, d.line, d.loops, seen):
                    out.append(name)
                    break
        return out

    def is_tensor_expr(self, expr, line, loops, seen=None):
        """Whether `expr` is (as far as the syntax shows) a Triton tensor: a non-constexpr
        parameter, or a local computed by a tl.* call or from other tensors. Tuples and shapes
        are not."""
        seen = set() if seen is None else seen
        if isinstance(expr, ast.Name):
            if expr.id in self.constexpr_params or expr.id in seen:
                return False
            if expr.id in self.param_names:
                return True
            seen.add(expr.id)
            for d in self.visible_defs(expr.id, line, loops):
                if d.kind in ("loop", "tuple"):
                    continue
                if self.is_tensor_expr(d.value, d.line, d.loops, seen):
                    return True
            return False
        if isinstance(expr, (ast.Tuple, ast.List, ast.Constant)):
            return False
        if isinstance(expr, ast.Attribute):
            return False if expr.attr == "shape" else self.is_tensor_expr(expr.value, line, loops,
                                                                          seen)
        if isinstance(expr, ast.Call):
            qualified = self.aliases.canonical(expr.func) or ""
            if qualified.startswith(TL + "."):
                return qualified.rsplit(".", 1)[1] not in NOT_TENSOR
            if isinstance(expr.func, ast.Attribute):  # x.to(...), x.reshape(...)
                return self.is_tensor_expr(expr.func.value, line, loops, seen)
            return False
        if isinstance(expr, ast.BinOp):
            return (self.is_tensor_expr(expr.left, line, loops, seen)
                    or self.is_tensor_expr(expr.right, line, loops, seen))
        if isinstance(expr, ast.UnaryOp):
            return self.is_tensor_expr(expr.operand, line, loops, seen)
        if isinstance(expr, ast.Subscript):
            return self.is_tensor_expr(expr.value, line, loops, seen)
        return False

    def depends(self, expr, line, loops, seen=None):
        """(names, pid atoms): every name `expr` depends on, through local definitions, and the
        program-id atoms among them. An atom is a local assigned from tl.program_id, or from a
        `//` or `%` of a program-id value (the two halves of a flattened grid are distinct
        owners); a program_id call inline in the expression is an atom of its own."""
        seen = set() if seen is None else seen
        names, atoms = set(), set()
        for node in ast.walk(expr):
            if isinstance(node, ast.Call):
                qualified = self.aliases.canonical(node.func) or ""
                if qualified == f"{TL}.program_id":
                    axis = self._axis_of(node)
                    atom = f"program_id({axis})"
                    atoms.add(atom)
                    self.pid_axes[atom] = axis
            if not isinstance(node, ast.Name) or node.id in seen:
                continue
            name = node.id
            names.add(name)
            if name in self.param_names:
                continue
            seen.add(name)
            for d in self.visible_defs(name, line, loops):
                source = d.source if d.kind == "loop" else d.value
                sub_names, sub_atoms = self.depends(source, d.line, d.loops, seen)
                names |= sub_names
                atoms |= sub_atoms
                if d.kind != "loop" and sub_atoms and self._is_atom_def(d.value):
                    atoms.add(name)
                    axes = {self.pid_axes.get(a) for a in sub_atoms}
                    self.pid_axes[name] = axes.pop() if len(axes) == 1 else None
        return names, atoms

    def _is_atom_def(self, value):
        if isinstance(value, ast.Call):
            return (self.aliases.canonical(value.func) or "") == f"{TL}.program_id"
        if isinstance(value, ast.BinOp):
            return isinstance(value.op, (ast.FloorDiv, ast.Mod))
        return False

    def pointer_bases(self, expr, line, loops, seen=None):
        """Parameters a pointer expression is based on: the additive terms that are parameters,
        through local definitions (`h_ptrs = h_ptr + offs` -> h_ptr), block pointers and
        tl.advance."""
        seen = set() if seen is None else seen
        if expr is None:
            return set()
        if isinstance(expr, ast.Name):
            if expr.id in self.param_names:
                if expr.id in self.constexpr_params or expr.id in self.scalar_params:
                    return set()
                return {expr.id}
            if expr.id in seen:
                return set()
            seen.add(expr.id)
            out = set()
            for d in self.visible_defs(expr.id, line, loops):
                if d.kind != "loop":
                    out |= self.pointer_bases(d.value, d.line, d.loops, seen)
            return out
        if isinstance(expr, ast.BinOp):
            if isinstance(expr.op, (ast.Add, ast.Sub)):
                return (self.pointer_bases(expr.left, line, loops, seen)
                        | self.pointer_bases(expr.right, line, loops, seen))
            return set()
        if isinstance(expr, ast.Subscript):
            return self.pointer_bases(expr.value, line, loops, seen)
        if isinstance(expr, ast.Call):
            qualified = self.aliases.canonical(expr.func) or ""
            leaf = qualified.rsplit(".", 1)[-1]
            if leaf in ("make_block_ptr", "make_tensor_descriptor", "advance", "multiple_of",
                        "max_contiguous", "where"):
                first = expr.args[0] if expr.args else None
                if leaf == "where" and len(expr.args) >= 2:
                    first = expr.args[1]
                for keyword in expr.keywords:
                    if keyword.arg == "base":
                        first = keyword.value
                return self.pointer_bases(first, line, loops, seen)
            if isinstance(expr.func, ast.Attribute) and expr.func.attr == "to":
                return self.pointer_bases(expr.func.value, line, loops, seen)
        return set()

    # ---- conclusions ----

    def _finish(self):
        for m in self.memory:
            pointer = m.pop("_node")
            line, loops = m["line"], m["loops"]
            if pointer is None:
                m.update({"bases": [], "depends_on": [], "pid_atoms": [], "pid_axes": []})
                continue
            names, atoms = self.depends(pointer, line, loops)
            m["bases"] = sorted(self.pointer_bases(pointer, line, loops))
            m["depends_on"] = sorted(names)
            m["pid_atoms"] = sorted(atoms)
            m["pid_axes"] = sorted({self.pid_axes.get(a) for a in atoms} - {None})
        for loop in self.loops:
            inside = [m for m in self.memory if loop["id"] in m["loops"]]
            loop["loads"] = sum(1 for m in inside if m["kind"] == "load")
            loop["stores"] = sum(1 for m in inside if m["kind"] == "store")
            loop["dots"] = sum(1 for c in self.calls if c["name"] == "tl.dot"
                               and loop["id"] in c.get("loops", []))

    def sync_summary(self):
        """What this function does towards synchronising programs, for callers that inline it:
        {"spin": polls a counter in a while loop, "atomic": performs an atomic}."""
        spin = any(self._spins(loop["id"]) for loop in self.loops if loop["kind"] == "while")
        atomic = any(m["kind"] == "atomic" for m in self.memory)
        return {"spin": spin, "atomic": atomic,
                "calls": sorted({c["name"] for c in self.calls if c["module"] == "jit"})}

    def _spins(self, while_id):
        return any(while_id in m["loops"] and (m["kind"] == "atomic" or
                                               (m["kind"] == "load" and m["volatile"]))
                   for m in self.memory)

    def recurrences(self, aliases=None, helpers=None):
        """Buffers stored in a loop and loaded again in the same loop (so read in a later
        iteration), with the program-id atoms the store is owned by that the load does not
        depend on: those loads read what other programs wrote."""
        aliases = aliases or {}

        def buffers(m):
            out = set()
            for base in m["bases"]:
                out.add(aliases.get(base, base))
            return out

        found = {}
        stores = [m for m in self.memory if m["kind"] == "store" and m["loops"]]
        loads = [m for m in self.memory if m["kind"] == "load" and m["loops"]]
        for store in stores:
            for load in loads:
                shared = buffers(store) & buffers(load)
                if not shared:
                    continue
                common = [loop for loop in store["loops"] if loop in load["loops"]]
                if not common:
                    continue
                carrier = common[-1]
                same_pointer = store["pointer"] == load["pointer"]
                foreign = sorted(set(store["pid_atoms"]) - set(load["pid_atoms"]))
                if same_pointer and not foreign:
                    continue  # an in-place update of the program's own elements
                key = (carrier, tuple(sorted(shared)))
                entry = found.get(key)
                if entry is None:
                    entry = {"loop": carrier, "loop_line": self.loops[carrier]["line"],
                             "buffer": sorted(shared)[0], "buffers": sorted(shared),
                             "store_lines": [], "load_lines": [], "foreign_atoms": [],
                             "foreign_axes": [], "store_pid_atoms": store["pid_atoms"],
                             "load_pid_atoms": []}
                    found[key] = entry
                if store["line"] not in entry["store_lines"]:
                    entry["store_lines"].append(store["line"])
                if load["line"] not in entry["load_lines"]:
                    entry["load_lines"].append(load["line"])
                if foreign:
                    entry["load_pid_atoms"] = load["pid_atoms"]
                for atom in foreign:
                    if atom not in entry["foreign_atoms"]:
                        entry["foreign_atoms"].append(atom)
                    axis = self.pid_axes.get(atom)
                    if axis is not None and axis not in entry["foreign_axes"]:
                        entry["foreign_axes"].append(axis)
        out = []
        for entry in found.values():
            entry["cross_program"] = bool(entry["foreign_atoms"])
            entry["barrier"] = self._barrier_in(entry["loop"], helpers or {})
            entry["store_lines"].sort()
            entry["load_lines"].sort()
            out.append(entry)
        return sorted(out, key=lambda e: (e["loop_line"], e["buffer"]))

    def _barrier_in(self, loop_id, helpers):
        """What synchronises the programs inside loop `loop_id`: "grid_barrier" (an atomic
        arrival plus a spin loop polling a counter with an atomic or a volatile load, here or in
        a jit helper called in the loop), "atomic_no_spin", "debug_barrier" (tl.debug_barrier:
        one program's threads only), or "none". `helpers`: {jit function: sync_summary()}."""
        atomics = [m for m in self.memory if m["kind"] == "atomic" and loop_id in m["loops"]]
        spin = False
        for loop in self.loops:
            if loop["kind"] != "while" or loop_id not in self._ancestors(loop["id"]):
                continue
            if self._spins(loop["id"]):
                spin = True
        for call in self.calls:
            if call["module"] == "jit" and loop_id in call.get("loops", []):
                summary = helpers.get(call["name"], {})
                spin = spin or summary.get("spin", False)
                if summary.get("atomic"):
                    atomics.append(call)
        # A `while tl.atomic_add(...) < n` spin has its atomic in the loop test, which is
        # recorded as inside the while loop too.
        if atomics and spin:
            return "grid_barrier"
        if atomics:
            return "atomic_no_spin"
        if any(loop_id in b["loops"] for b in self.barriers):
            return "debug_barrier"
        return "none"

    def _ancestors(self, loop_id):
        out = []
        parent = self.loops[loop_id]["parent"]
        while parent is not None:
            out.append(parent)
            parent = self.loops[parent]["parent"]
        return out

    def to_dict(self, aliases=None, helpers=None):
        program_ids = [{"axis": p["axis"], "line": p["line"]} for p in self.pid_calls]
        calls = [{k: v for k, v in c.items() if k != "loops"} for c in self.calls]
        tl_calls = sorted({c["name"] for c in self.calls if c["module"] == "tl"})
        return {
            "name": self.node.name,
            "line": self.node.lineno,
            "end_line": getattr(self.node, "end_lineno", None),
            "params": self.params,
            "program_ids": program_ids,
            "program_id_axes": sorted({p["axis"] for p in program_ids if p["axis"] is not None}),
            "loops": self.loops,
            "memory": self.memory,
            "calls": calls,
            "tl_calls": tl_calls,
            "libdevice_calls": sorted({c["name"] for c in self.calls if c["module"] == "libdevice"}),
            "jit_calls": sorted({c["name"] for c in self.calls if c["module"] == "jit"}),
            "dots": sum(1 for c in self.calls if c["name"] == "tl.dot"),
            "reductions": sorted({c["name"] for c in self.calls if c["module"] == "tl"
                                  and c["name"][3:] in REDUCTIONS}),
            "atomics": [{"op": m["op"], "line": m["line"]} for m in self.memory
                        if m["kind"] == "atomic"],
            "barriers": [{"kind": b["kind"], "line": b["line"]} for b in self.barriers],
            "missing_api": self.missing,
            "nonconstexpr_arange": self.aranges,
            "tensor_subscripts": self.subscripts,
            "recurrences": self.recurrences(aliases, helpers),
        }


def _is_layout_index(node):
    """`x[:, None]`, `x[None, :]`: the subscripts Triton allows on tensors (adding axes)."""
    elements = node.elts if isinstance(node, ast.Tuple) else [node]
    for element in elements:
        if isinstance(element, ast.Constant) and element.value in (None, Ellipsis):
            continue
        if (isinstance(element, ast.Slice) and element.lower is None and element.upper is None
                and element.step is None):
            continue
        return False
    return True
