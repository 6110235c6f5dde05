"""Broken on purpose: catches the refusal of a write outside its scratch directory, then fails
some other way. The violation must still decide the status (rejected), not the later error."""
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        try:
            with open("/proc/kforge_refusal_test", "w") as handle:  # refused before the OS sees it
                handle.write("x")
        except OSError:  # PermissionError: the refusal
            pass
        raise RuntimeError("something else went wrong")
