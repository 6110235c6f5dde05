"""Fault: fork attempts (os.fork, subprocess, os.system, multiprocessing), each tried even if
the last one failed."""
import multiprocessing
import os
import subprocess

import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def forward(self, x):
        attempts = (lambda: os.fork(), lambda: subprocess.run(["sh", "-c", "true"]),
                    lambda: os.system("true"),
                    lambda: multiprocessing.get_context("fork").Process(target=print).start())
        for attempt in attempts:
            try:
                if attempt() == 0:
                    os._exit(0)  # the forked child, if a fork ever succeeded
            except OSError:
                pass
        return torch.softmax(x, dim=1)
