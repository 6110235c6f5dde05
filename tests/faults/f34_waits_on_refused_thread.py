"""Fault 34: at import the candidate's process needs a thread (as torch.set_num_threads does when
it rebuilds a thread pool on a machine with more cores) and waits for it; the thread is refused,
so it waits forever. The judge must stop waiting soon after the refusal, not at the time limit
(a25_global_flips ran to its 120 s limit on an H200)."""
import threading
import time

import torch.nn as nn

_started = threading.Event()
try:
    threading.Thread(target=_started.set, daemon=True).start()
except RuntimeError:
    pass
while not _started.is_set():  # a pool's wait for its workers
    time.sleep(0.05)


class ModelNew(nn.Module):
    def forward(self, x):
        return x.softmax(dim=1)
