"""Attack 19 (forged verdict, 1a): in forward, write a framed reply claiming "ok", delivered
outputs and invented timings straight into the channel socket (its descriptor is in argv), then
exit before the host can answer. The judge believes a reply only as a failure and reads the
outputs from its own buffers: the forged frame must not count."""
import json
import os
import struct
import sys

import torch
import torch.nn as nn
import triton
import triton.language as tl


def _forge(shape):
    entry = {"type": "tensor", "dtype": "float32", "shape": list(shape), "device": "cpu",
             "subclass": False, "copied": True}
    body = json.dumps({"ok": True, "outputs": [entry], "ms": [0.0001] * 10,
                       "launches": {"softmax_kernel": 1}, "violations": [],
                       "side_effects": [], "kernels": [{"name": "softmax_kernel", "own": True,
                                                        "time_share": 1.0}]}).encode()
    fd = int(sys.argv[1])
    os.write(fd, struct.pack("<IQ", 0, len(body)) + body)
    os._exit(0)


class ModelNew(nn.Module):
    def forward(self, x):
        _forge(x.shape)
