"""Fault: host memory in a memfd filled with write(): in no process's resident set (nothing maps
it), so an RSS watch alone never sees it. Stops by itself at 6 GiB so that a broken watch fails
this test instead of the machine."""
import os
import time

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        fds = []
        chunk = b"\1" * (64 << 20)
        for _ in range(96):  # 6 GiB, 64 MiB a write
            if not fds or os.fstat(fds[-1]).st_size >= 1 << 30:
                fds.append(os.memfd_create("hoard"))
            os.write(fds[-1], chunk)
        time.sleep(30)
        return x * 0
