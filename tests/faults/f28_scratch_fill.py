"""Fault: fill the scratch directory, which is writable and on the host: three files of 1000 MiB
(under the 1 GiB file-size limit, past the 2 GiB write limit) by posix_fallocate (the sandbox
answers fallocate "not supported", so glibc writes the blocks), then 30000 empty files. The
judge kills it at whichever limit it passes first."""
import os
import time

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        scratch = os.environ.get("KFORGE_SCRATCH") or os.getcwd()
        for index in range(3):
            with open(os.path.join(scratch, f"big{index}"), "wb") as handle:
                try:
                    os.posix_fallocate(handle.fileno(), 0, 1000 << 20)
                except OSError:
                    handle.truncate(0)
        folder = os.path.join(scratch, "many")
        os.makedirs(folder, exist_ok=True)
        for index in range(30000):
            open(os.path.join(folder, str(index)), "w").close()
        time.sleep(30)
        return x * 0
