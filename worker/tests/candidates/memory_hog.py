"""Broken on purpose: grows host memory until stopped (crashed, host memory limit)."""
import time

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        hoard = []
        for _ in range(40):
            hoard.append(torch.ones(64 * 1024 * 1024 // 4))  # 64 MB, touched
            time.sleep(0.02)
        time.sleep(60)
        return x
