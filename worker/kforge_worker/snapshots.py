"""Frozen copies of tensors the judge keeps: the outputs a comparison keeps, the outputs kept
from timed trials.

Where a copy lives (`keep_on_host`): on the CPU device, on the host; on the GPU, on the host only
when small (HOST_COPY_MAX_BYTES), else a clone on the judge's device. A device clone is as safe as
a host copy: the candidate runs in another process with its own CUDA context and reaches only the
buffers the judge shares with it (shared_memory.py), never the judge's own allocations. Host
copies of large outputs are what killed full-size KernelBench tasks at the judge's host memory
limit (level1/23_Softmax: 6 GiB per output, a dozen float64 temporaries per comparison).

Large host copies that are still made go into page-locked memory (torch's caching host allocator
keeps and reuses it within the evaluation child): on the H100 host a pageable copy of a 256 MB
softmax output took ~0.1 s."""

import torch

PINNED_MIN_BYTES = 1 << 20  # below this a pageable copy costs microseconds either way
HOST_COPY_MAX_BYTES = 64 << 20  # a GPU tensor above this is kept on the device


def nbytes(tensor):
    return tensor.numel() * tensor.element_size()


def keep_on_host(size_bytes, on_gpu):
    """Whether a kept copy of a tensor of `size_bytes` goes to the host: always for a CPU
    tensor, for a GPU tensor only when small."""
    return not on_gpu or size_bytes <= HOST_COPY_MAX_BYTES


def host_snapshot(tensor):
    """A detached host copy of `tensor`, made synchronously (the values are frozen on return)."""
    tensor = tensor.detach()
    if tensor.is_cuda and nbytes(tensor) >= PINNED_MIN_BYTES:
        host = torch.empty(tensor.shape, dtype=tensor.dtype, pin_memory=True)
        host.copy_(tensor)  # blocking: a page-locked target does not make it asynchronous
        return host
    return tensor.to("cpu", copy=True)


def snapshot(tensor):
    """A detached copy of `tensor` that the candidate cannot write: on the host when
    keep_on_host says so, else a clone on its device."""
    tensor = tensor.detach()
    if keep_on_host(nbytes(tensor), tensor.is_cuda):
        return host_snapshot(tensor)
    return tensor.clone()


FINGERPRINT_CHUNK = 1 << 25  # elements summed at once (a 256 MB int64 temporary)


def fingerprint(tensor):
    """What the constant-output check needs of a large output without a copy of it: its shape,
    dtype and, chunk by chunk, the wrapping int64 sums of its bits and of their squares (equal
    for bit-identical tensors; a different tensor matching both in every chunk by chance is not
    a concern for that check). Full-size level1/38_L1Norm kept a copy of its first 8 GiB output
    and the reference's, and ran the judge out of an 80 GB GPU."""
    tensor = tensor.detach()
    flat = tensor.reshape(-1)
    if flat.numel() and flat.element_size() % 4 == 0:
        words = flat.view(torch.int32)
    else:
        words = flat.contiguous().view(torch.uint8) if flat.numel() else flat
    sums = []
    for start in range(0, words.numel(), FINGERPRINT_CHUNK):
        chunk = words[start:start + FINGERPRINT_CHUNK].to(torch.int64)
        sums.append((int(chunk.sum()), int((chunk * chunk).sum())))
    return (tuple(tensor.shape), str(tensor.dtype), tuple(sums))
