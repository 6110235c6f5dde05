"""Fault: host memory in a memfd filled with write(): in no process's resident set (nothing maps
it), so an RSS watch alone never sees it. 64 MiB every 20 ms, up to 3 GiB: the judge's watch
(every second) kills it at its 1 GB limit; a broken watch fails this test, not the machine."""
import os
import time

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        fds = []
        chunk = b"\1" * (64 << 20)
        for _ in range(48):  # 3 GiB, 64 MiB a write
            if not fds or os.fstat(fds[-1]).st_size >= 1 << 30:
                fds.append(os.memfd_create("hoard"))
            os.write(fds[-1], chunk)
            time.sleep(0.02)
        time.sleep(30)
        return x * 0
