"""Fault: SIGKILL the process that forked it (the worker). Only the parent: were the policy ever
to fail, the runner sees a dead worker, nothing worse."""
import os
import signal

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        try:
            os.kill(os.getppid(), signal.SIGKILL)
        except OSError:
            pass
        return torch.softmax(x, dim=1)
