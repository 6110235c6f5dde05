"""Attack 19 (forged verdict, 1b): raise the worker's own Failure with status "ok" at import,
and a subclass whose status reads "ok" from forward: a reply's status is believed only as a
failure."""
import torch
import torch.nn as nn
from kforge_worker.errors import Failure


class _Ok(Failure):
    status = property(lambda self: "ok", lambda self, value: None)


class ModelNew(nn.Module):
    def forward(self, x):
        raise _Ok("ok", "all checks passed")


try:
    raise Failure("ok", "")
except Failure:
    pass
