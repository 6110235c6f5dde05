"""Seeding every random generator a task or a candidate may draw from."""

import random
import secrets

import numpy
import torch


def seed_all(seed):
    """The same state of Python's, NumPy's, torch's CPU and every CUDA device's generator as
    torch.manual_seed(seed) with random and NumPy seeded too, without torch.manual_seed's detour
    through the backends a CUDA machine does not use. On a CUDA build torch.manual_seed also
    seeds XPU and MTIA, which, never initialised, queue the call with traceback.format_stack()
    (a stack walk, linecache's stat of every frame's file, a few hundred objects) each time:
    ~0.8 ms a call in the judge on the H200 (137 calls, 0.11 s of a 39_GRU evaluation, session
    19), and run before every timed call it slowed the next call's Python (a Triton launch path)
    by ~5 us on the CPU (bench/host_overhead.py). Inputs drawn on the device depend on the CUDA
    generators (evaluate.draw_inputs); test_units checks that this reaches them, also before
    CUDA initialises (the call is queued then, as torch.manual_seed queues it)."""
    random.seed(seed)
    numpy.random.seed(seed % 2 ** 32)
    torch.default_generator.manual_seed(seed)
    if torch.cuda.is_initialized():
        for generator in torch.cuda.default_generators:
            generator.manual_seed(seed)
    elif torch.cuda.is_available():  # queued until CUDA initialises
        torch.cuda.manual_seed_all(seed)


def seed_forward(seed):
    """The RNG state every forward starts from (checked and timed calls alike, and the
    baselines' timed calls): seed_all's."""
    seed_all(seed)


def fresh_seed():
    """A seed nobody can predict (input sets of an evaluation): from the OS's random source,
    recorded in the result after the fact for reproduction."""
    return secrets.randbelow(2 ** 62)
