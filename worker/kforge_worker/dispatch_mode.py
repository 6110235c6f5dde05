"""The base of the harness's own dispatch modes (dataflow, provenance, the numerics report), which
watch every checked call in the candidate process.

torch 2.13 wraps each mode's `__torch_dispatch__` in `torch._dynamo.disable`, and its wrapper
(`torch._compile._disable_dynamo`) imports torch._dynamo at the first dispatch: about 2 s of a
candidate process's CPU time (820 modules), paid in its first checked call, on every evaluation,
by candidates that never use torch.compile. Without torch._dynamo imported nothing can be tracing,
so disabling it is a no-op: the wrapper's cached "disabled" function (the attribute it reads on
the raw method) is set to one that calls the method directly until torch._dynamo is imported (by
a candidate's own torch.compile) and from then on is torch's own `torch._dynamo.disable` of it,
as before. A torch without that attribute imports torch._dynamo as it always did."""

import sys

from torch.utils._python_dispatch import TorchDispatchMode

# the attribute torch._compile._disable_dynamo caches its disabled function in (no name mangling
# there: it is set from a plain function)
_CACHED_DISABLE = "__dynamo_disable"


def _lazy_disable(raw):
    disabled = []

    def call(*args, **kwargs):
        if not disabled:
            dynamo = sys.modules.get("torch._dynamo")
            if dynamo is None or not hasattr(dynamo, "disable"):  # absent, or mid-import
                return raw(*args, **kwargs)
            disabled.append(dynamo.disable(raw, recursive=True, wrapping=False))
        return disabled[0](*args, **kwargs)

    return call


class HarnessDispatchMode(TorchDispatchMode):
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)  # torch wraps __torch_dispatch__ here (2.13)
        raw = getattr(cls.__dict__.get("__torch_dispatch__"), "__wrapped__", None)
        if raw is not None:
            setattr(raw, _CACHED_DISABLE, _lazy_disable(raw))
