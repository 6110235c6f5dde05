"""Seeding every random generator a task or a candidate may draw from."""

import random
import secrets

import numpy
import torch


def seed_all(seed):
    random.seed(seed)
    numpy.random.seed(seed % 2 ** 32)
    # Seeds the CPU generator and every CUDA device's (torch.cuda.manual_seed_all, queued until
    # CUDA initialises when it has not yet). Inputs drawn on the device depend on this
    # (evaluate.draw_inputs); test_units checks that it reaches the CUDA generators.
    torch.manual_seed(seed)


def fresh_seed():
    """A seed nobody can predict (input sets of an evaluation): from the OS's random source,
    recorded in the result after the fact for reproduction."""
    return secrets.randbelow(2 ** 62)
