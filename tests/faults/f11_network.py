"""Fault: a network connection attempt to 127.0.0.1 (the corpus runner listens on the port and
checks that nobody connected)."""
import socket

import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def forward(self, x):
        with socket.create_connection(("127.0.0.1", __KFORGE_PORT__), timeout=2) as connection:
            connection.sendall(b"hello from a candidate")
        return torch.softmax(x, dim=1)
