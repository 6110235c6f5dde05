"""Frozen host copies of tensors: the outputs a comparison keeps, the inputs the trust guard
checks for in-place changes, the outputs kept from timed trials.

Host copies, not device clones: a candidate's kernel runs on the same device and could reach a
device-side copy; it cannot reach host memory. Large CUDA tensors are copied into page-locked
memory (torch's caching host allocator keeps and reuses it within the evaluation child): on the
H100 host a pageable copy of a 256 MB softmax output took ~0.1 s, and one evaluation made ~130 of
them (bench/bench_harness.py --cprofile)."""

import torch

PINNED_MIN_BYTES = 1 << 20  # below this a pageable copy costs microseconds either way


def host_snapshot(tensor):
    """A detached host copy of `tensor`, made synchronously (the values are frozen on return)."""
    tensor = tensor.detach()
    if tensor.is_cuda and tensor.numel() * tensor.element_size() >= PINNED_MIN_BYTES:
        host = torch.empty(tensor.shape, dtype=tensor.dtype, pin_memory=True)
        host.copy_(tensor)  # blocking: a page-locked target does not make it asynchronous
        return host
    return tensor.to("cpu", copy=True)
