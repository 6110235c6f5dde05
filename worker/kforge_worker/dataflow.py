"""On the CPU (the Triton interpreter), whether a call's outputs came from the candidate's own
kernels: the "own work" check where no GPU profile gives kernel time shares.

Two records, made while the call runs:
- the memory its kernels stored to: the interpreter's store operations (masked stores, block
  pointer and descriptor stores, atomics) are wrapped to keep the address ranges they wrote;
- what PyTorch computed from that memory: a dispatch mode marks the storage of every ATen
  operator's result as derived when one of its tensor arguments was written by a kernel or is
  itself derived (an RNN's linear head in PyTorch on the kernel's hidden states stays "own").

An output passes when its storage overlaps memory a kernel wrote, or is derived from it. A
decoy (a no-op launch, the answer computed from the inputs by PyTorch) writes nothing and
derives nothing: every output fails. What this does not prove: that the kernel did most of the
work (a kernel writing one scratch element that PyTorch folds into the result passes); on the
GPU the profiler's time share says that (evaluate.MIN_OWN_SHARE)."""

import contextlib

import numpy
import torch
from kforge_worker.dispatch_mode import HarnessDispatchMode
from torch.utils._pytree import tree_flatten

_STORE_METHODS = ("create_store", "create_masked_store", "create_tensor_pointer_store",
                  "create_atomic_rmw", "create_atomic_cas", "create_descriptor_store")


def _span(tensor):
    storage = tensor.untyped_storage()
    return storage.data_ptr(), storage.data_ptr() + max(storage.nbytes(), 1)


class Flow:
    def __init__(self):
        self.written = []       # (low, high) byte ranges kernels stored to
        self.derived = set()    # storage data_ptrs of results computed from written memory

    def touched(self, tensor):
        low, high = _span(tensor)
        if low in self.derived:
            return True
        return any(low < w_high and w_low < high for w_low, w_high in self.written)

    def note_store(self, pointers, mask=None):
        addresses = numpy.asarray(pointers)
        if mask is not None:
            addresses = addresses[numpy.asarray(mask, dtype=bool)]
        if addresses.size:
            self.written.append((int(addresses.min()), int(addresses.max()) + 8))


class _Derivation(HarnessDispatchMode):
    def __init__(self, flow):
        super().__init__()
        self.flow = flow

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        inputs = [t for t in tree_flatten((args, kwargs or {}))[0] if isinstance(t, torch.Tensor)]
        if any(self.flow.touched(t) for t in inputs):
            for out in tree_flatten(result)[0]:
                if isinstance(out, torch.Tensor):
                    self.flow.derived.add(out.untyped_storage().data_ptr())
        return result


def _handle_data(value):
    return getattr(value, "data", value)


@contextlib.contextmanager
def record():
    """Record a call's kernel stores and derivations (CPU interpreter only). Yields the Flow."""
    from triton.runtime import interpreter
    builder = interpreter.InterpreterBuilder
    flow = Flow()
    originals = {name: getattr(builder, name) for name in _STORE_METHODS if hasattr(builder, name)}

    def wrap(name, original):
        def store(self, *args, **kwargs):
            try:
                pointer = _handle_data(args[0])
                if name == "create_masked_store":
                    flow.note_store(pointer, _handle_data(args[2]))
                elif name == "create_atomic_rmw":
                    flow.note_store(_handle_data(args[1]), _handle_data(args[3]))
                elif isinstance(pointer, numpy.ndarray):
                    flow.note_store(pointer)
                else:  # block pointers and descriptors: the base address is enough to match
                    base = getattr(pointer, "base", None) or getattr(args[0], "base", None)
                    base = _handle_data(base)
                    if isinstance(base, numpy.ndarray):
                        flow.note_store(base)
            except Exception:  # never let the record break a kernel
                pass
            return original(self, *args, **kwargs)
        return store

    from kforge_worker import kernel_compiles
    wrappers = {name: wrap(name, original) for name, original in originals.items()}
    for name, wrapper in wrappers.items():
        setattr(builder, name, wrapper)
    kernel_compiles.HARNESS_PATCHES.update(wrappers.values())  # the recorder's, not a candidate's
    try:
        with _Derivation(flow):
            yield flow
    finally:
        kernel_compiles.HARNESS_PATCHES.difference_update(wrappers.values())
        for name, original in originals.items():
            setattr(builder, name, original)


def unowned_outputs(flow, outputs):
    """Indices of output tensors neither written by a kernel nor derived from such memory."""
    items = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    return [index for index, item in enumerate(items)
            if isinstance(item, torch.Tensor) and item.numel() and not flow.touched(item)]
