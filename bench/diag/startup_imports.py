"""What each step of a candidate process's start-up imports (warm_up.py), and from where the
first heavy package (torch._dynamo, torch._inductor, sympy) is imported: the start-up's seconds
are mostly imports (session 27: 10-12.6 s on an H200 host, 4-6 s of them in one step).

    PYTHONPATH=worker python3 bench/diag/startup_imports.py [cuda|cpu]"""

import builtins
import sys
import time
import traceback

HEAVY = ("torch._dynamo", "torch._inductor", "sympy", "torch.distributed")


def main():
    device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
    began = time.monotonic()
    import torch
    import triton  # noqa: F401
    from kforge_worker import kernel_compiles  # noqa: F401
    print(f"imports: {time.monotonic() - began:.2f} s, {len(sys.modules)} modules")
    if device == "cuda":
        torch.cuda.init()
        torch.empty(1, device="cuda")
    from kforge_worker import warm_up
    original = builtins.__import__
    first = {}
    step = None

    def watch(name, globals=None, locals=None, fromlist=(), level=0):
        if name.startswith(HEAVY) and name not in sys.modules and step not in first:
            first[step] = "".join(traceback.format_stack(limit=12)[:-1])
        return original(name, globals, locals, fromlist, level)

    builtins.__import__ = watch
    for step, function in warm_up.steps(device):
        before = set(sys.modules)
        began = time.monotonic()
        function()
        new = set(sys.modules) - before
        heavy = sorted({name.split(".")[0] + "." + name.split(".")[1] if "." in name else name
                        for name in new if name.startswith(HEAVY)})
        print(f"{step:28} {time.monotonic() - began:6.2f} s  {len(new):4} new modules  {heavy}")
        if step in first:
            print("  first heavy import from:\n" + first[step])
    builtins.__import__ = original


if __name__ == "__main__":
    main()
