"""Name resolution shared by the facts extractors: import aliases, dotted names, identifier roles.

Everything here works on `ast` nodes; nothing reads code as text."""

import ast
import importlib

# Words in an identifier that hint at the dimension it stands for. Identifiers are split into
# words at underscores and case changes ("seq_len" -> seq, len; "HIDDEN_SIZE" -> hidden, size).
ROLE_WORDS = {
    "time": {"t", "seq", "time", "times", "timestep", "timesteps", "step", "steps", "tt", "seqlen",
             "sequence", "ts"},
    "batch": {"b", "batch", "bsz", "bs", "nb", "batches"},
    "hidden": {"h", "hidden", "hid", "hs", "hdim", "nh", "units"},
    "layer": {"layer", "layers", "l", "nl"},
}
# Short words that are a role hint only when they are the whole identifier ("T", "h"), not as a
# part of a longer one ("offs_h", "pid_b").
_WHOLE_ONLY = {"t", "b", "h", "l", "tt", "ts", "bs", "nb", "nh", "hs", "nl"}


def words(identifier):
    """Splits an identifier (a name, not code) into lower-case words at underscores, digits and
    lower-to-upper case changes: "seq_len" -> [seq, len], "hiddenSize" -> [hidden, size]."""
    out, current = [], ""
    for i, ch in enumerate(identifier):
        if ch == "_" or ch.isdigit():
            if current:
                out.append(current)
            current = ""
            continue
        if ch.isupper() and current and identifier[i - 1].islower():
            out.append(current)
            current = ""
        current += ch.lower()
    if current:
        out.append(current)
    return out


def roles_of_name(identifier):
    """Roles (time, batch, hidden, layer) that an identifier's words suggest."""
    found = set()
    ws = words(identifier)
    whole = identifier.lower()
    for role, vocab in ROLE_WORDS.items():
        if whole in vocab:
            found.add(role)
            continue
        if any(w in vocab and w not in _WHOLE_ONLY for w in ws):
            found.add(role)
    # "x_t", "h_t": a trailing t word marks a per-step value.
    if len(ws) > 1 and ws[-1] == "t":
        found.add("time")
    return found


def dotted(node):
    """`a.b.c` as a list of names, or None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return list(reversed(parts))
    return None


class Aliases:
    """What each imported local name refers to: `tl` -> triton.language, `F` ->
    torch.nn.functional, `libdevice` -> triton.language.extra.libdevice, `jit` -> triton.jit."""

    def __init__(self, tree):
        self.names = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.names[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        self.names[top] = top
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    self.names[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def canonical(self, node):
        """The fully qualified name of a dotted expression (`tl.load` -> triton.language.load),
        or None when it does not start at an imported name."""
        parts = dotted(node)
        if not parts or parts[0] not in self.names:
            return None
        return ".".join([self.names[parts[0]]] + parts[1:])


_MODULE_CACHE = {}


def _import(name):
    if name not in _MODULE_CACHE:
        try:
            _MODULE_CACHE[name] = importlib.import_module(name)
        except Exception:  # not a module (an attribute), or not installed
            _MODULE_CACHE[name] = None
    return _MODULE_CACHE[name]


def exists_in_installed(qualified):
    """Whether `triton.language.tanh` (say) exists in the installed packages: imports the longest
    module prefix and walks the rest with getattr. None when not even the top package imports."""
    parts = qualified.split(".")
    if _import(parts[0]) is None:
        return None
    for cut in range(len(parts), 0, -1):
        module = _import(".".join(parts[:cut]))
        if module is None:
            continue
        obj = module
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def unparse(node):
    try:
        return ast.unparse(node)
    except Exception:
        return "<expr>"


def names_in(node):
    """Identifiers read by an expression (ast.Name loads), in order, without repeats."""
    seen = []
    if node is None:
        return seen
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id not in seen:
            seen.append(sub.id)
    return seen
