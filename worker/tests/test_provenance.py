"""The CPU's memory-provenance check (provenance.py): every byte a call's operators and kernels
read, and every byte it returns, was left there by a recorded writer. Host-side work (ctypes,
NumPy views, tensors made from host data, raw addresses, element-by-element traffic) is named;
honest kernels, PyTorch glue and small constants are not."""

import ctypes

import numpy as np
import torch
import triton
import triton.language as tl

from kforge_worker import provenance


@triton.jit
def _copy(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


@triton.jit
def _scale(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, 2.0 * tl.load(src_ptr + offs, mask=m), mask=m)


@triton.jit
def _copy_from_address(address, dst_ptr, n, BLOCK: tl.constexpr):
    src_ptr = address.to(tl.pointer_type(tl.float32), bitcast=True)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


def launch(kernel, src, dst):
    kernel[(1,)](src, dst, dst.numel(), BLOCK=64)


def view(tensor):
    raw = ctypes.cast(tensor.data_ptr(), ctypes.POINTER(ctypes.c_float))
    return np.ctypeslib.as_array(raw, shape=(tensor.numel(),))


def reasons_of(forward, x):
    with provenance.record() as record:
        out = forward(x)
    return record.reasons(out)


X = torch.randn(48)


def test_honest_kernels_and_pytorch_glue_pass():
    def forward(x):
        scratch = torch.empty_like(x)
        launch(_scale, x * 0.5 + torch.tensor([1.0]), scratch)  # a small constant is fine
        y = torch.empty_like(x)
        launch(_copy, scratch, y)  # a workspace its own kernel wrote, read by the next one
        return y.view(6, 8).relu()
    assert reasons_of(forward, X) == []


def test_a_host_write_into_a_scratch_tensor_is_named():
    def forward(x):
        scratch = torch.empty_like(x)
        view(scratch)[:] = np.tanh(view(x))
        y = torch.empty_like(x)
        launch(_copy, scratch, y)
        return y
    [reason] = reasons_of(forward, X)
    assert reason.startswith("wrote tensor memory outside any PyTorch operator or kernel of its "
                             "own (found before kernel _copy)")


def test_laundering_through_an_operator_or_the_input_is_named():
    def through_operator(x):
        scratch = torch.zeros_like(x)
        view(scratch)[:] = np.tanh(view(x))
        y = torch.empty_like(x)
        launch(_copy, scratch.clone(), y)
        return y

    def through_input(x):
        saved = view(x).copy()
        view(x)[:] = np.tanh(saved)
        y = torch.empty_like(x)
        launch(_copy, x, y)
        view(x)[:] = saved
        return y
    assert "found before torch clone" in reasons_of(through_operator, X)[0]
    assert "found before kernel _copy" in reasons_of(through_input, X.clone())[0]


def test_a_host_write_after_the_last_kernel_is_named():
    def forward(x):
        y = torch.empty_like(x)
        launch(_copy, x, y)
        view(y)[:] = np.tanh(view(x))
        return y
    assert "found before the returned outputs" in reasons_of(forward, X)[0]


def test_tensors_made_from_host_data_are_named():
    def from_numpy(x):
        y = torch.empty_like(x)
        launch(_copy, torch.from_numpy(np.tanh(x.numpy())), y)
        return y

    def from_list(x):
        y = torch.empty_like(x)
        launch(_copy, torch.tensor([float(v) for v in np.tanh(x.numpy())]), y)
        return y
    for forward in (from_numpy, from_list):
        [reason] = reasons_of(forward, X)
        assert reason.startswith("made 192 bytes of tensor data on the host inside forward")


def test_a_load_from_a_raw_address_is_named():
    answer = np.tanh(X.numpy())

    def forward(x):
        y = torch.empty_like(x)
        _copy_from_address[(1,)](answer.ctypes.data, y, y.numel(), BLOCK=64)
        return y
    assert reasons_of(forward, X) == [
        "its kernel _copy_from_address loaded memory outside its tensor arguments (a raw address)"]


def test_element_by_element_traffic_is_named():
    def forward(x):
        scratch = torch.empty_like(x)
        for i in range(x.numel()):
            scratch[i] = float(np.tanh(x[i].item()))
        y = torch.empty_like(x)
        launch(_copy, scratch, y)
        return y
    [reason] = reasons_of(forward, X)
    assert "element by element inside forward (48 reads, 48 writes)" in reason


def test_python_numbers_made_into_one_element_tensors_are_element_traffic():
    """Blind red team, session 9: the answer read through a cast pointer and brought back as one
    `torch.full((1,), v)` per element joined by `torch.cat` (no host data, no `y[i] = v`)."""
    def forward(x):
        values = view(x)
        r = torch.cat([torch.full((1,), 2.0 * float(v)) for v in values])
        y = torch.empty_like(x)
        launch(_copy, r, y)
        return y
    [reason] = reasons_of(forward, X)
    assert "element by element inside forward (0 reads, 48 writes)" in reason

    def honest(x):  # a scale by a Python number, a one-element reduction: not element traffic
        y = torch.empty_like(x)
        launch(_scale, x * 0.5, y)
        return y + x.sum() * 0.0
    assert reasons_of(honest, X) == []
