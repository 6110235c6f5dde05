"""Fault: write, delete and rename outside the scratch directory (in a directory the corpus
runner created and checks afterwards)."""
import os

import torch
import torch.nn as nn
import triton
import triton.language as tl

CANARY_DIR = "__KFORGE_CANARY_DIR__"


class ModelNew(nn.Module):
    def forward(self, x):
        attempts = (lambda: open(os.path.join(CANARY_DIR, "new.txt"), "w").write("pwned"),
                    lambda: open(os.path.join(CANARY_DIR, "canary.txt"), "a").write("pwned"),
                    lambda: os.remove(os.path.join(CANARY_DIR, "canary.txt")),
                    lambda: os.rename(os.path.join(CANARY_DIR, "canary.txt"),
                                      os.path.join(CANARY_DIR, "moved.txt")))
        for attempt in attempts:
            try:
                attempt()
            except OSError:
                pass
        return torch.softmax(x, dim=1)
