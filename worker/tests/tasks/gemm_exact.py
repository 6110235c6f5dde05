"""An fp32 GEMM whose operands are exact in fp16 (multiples of 1/4 in [-1, 1]) and whose sums
stay exact in fp32: a candidate that computes in fp16 operands with fp32 accumulation gets the
reference's answer bit for bit, so only the numerics policy can tell it from an fp32 one."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


M = 256
K = 512
N = 256


def get_inputs():
    return [torch.randint(-4, 5, (M, K)).float() / 4, torch.randint(-4, 5, (K, N)).float() / 4]


def get_init_inputs():
    return []
