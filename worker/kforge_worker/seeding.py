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


def seed_forward(seed):
    """The RNG state every forward starts from (checked and timed calls alike, and the
    baselines' timed calls): the same state of Python's, NumPy's, torch's CPU and every CUDA
    device's generator as seed_all(seed), without torch.manual_seed's detour through the
    backends a CUDA machine does not use. On a CUDA build torch.manual_seed also seeds XPU and
    MTIA, which, never initialised, queue the call with traceback.format_stack() (a stack
    walk, linecache's stat of every frame's file, a few hundred objects) each time; run before
    every timed call it slowed the next call's Python (a Triton launch path) by ~5 us on the
    CPU (bench/host_overhead.py)."""
    random.seed(seed)
    numpy.random.seed(seed % 2 ** 32)
    torch.default_generator.manual_seed(seed)
    if torch.cuda.is_initialized():
        for generator in torch.cuda.default_generators:
            generator.manual_seed(seed)
    elif torch.cuda.is_available():  # queued until CUDA initialises, as seed_all does
        torch.cuda.manual_seed_all(seed)


def fresh_seed():
    """A seed nobody can predict (input sets of an evaluation): from the OS's random source,
    recorded in the result after the fact for reproduction."""
    return secrets.randbelow(2 ** 62)
