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


def test_tensors_read_from_a_file_are_host_data(tmp_path):
    # blind red team, session 22: the answer computed in Python (or by g++'s constant evaluator),
    # written to scratch and read back inside forward, then copied by a kernel of its own
    path = str(tmp_path / "answer.bin")

    def from_file(x):
        np.tanh(x.numpy()).astype(np.float32).tofile(path)
        y = torch.empty_like(x)
        launch(_copy, torch.from_file(path, size=x.numel(), dtype=torch.float32), y)
        return y

    def storage_from_file(x):
        np.tanh(x.numpy()).astype(np.float32).tofile(path)
        storage = torch.UntypedStorage.from_file(path, False, x.numel() * 4)
        y = torch.empty_like(x)
        launch(_copy, torch.empty(0).set_(storage, 0, (x.numel(),), (1,)), y)
        return y
    for forward in (from_file, storage_from_file):
        reasons = reasons_of(forward, X)
        assert any(r.startswith("made 192 bytes of tensor data on the host inside forward")
                   for r in reasons), reasons


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


@triton.jit
def _put4(dst_ptr, at, v0, v1, v2, v3):
    tl.store(dst_ptr + at, v0)
    tl.store(dst_ptr + at + 1, v1)
    tl.store(dst_ptr + at + 2, v2)
    tl.store(dst_ptr + at + 3, v3)


HOST_VALUES = []


@triton.jit
def _put_host_values(dst_ptr, n: tl.constexpr):
    for i in tl.static_range(n):  # under the interpreter the body is Python: it can read a global list
        tl.store(dst_ptr + i, HOST_VALUES[i])


def test_numbers_handed_to_kernels_are_host_traffic():
    """Blind red team, session 10: the answer computed in Python (there from the input pickled
    by torch.save) and written by a kernel that gets it a few values per launch as scalar
    arguments; or read by the kernel's body from a Python list."""
    def by_arguments(x):
        values = [2.0 * float(v) for v in view(x)]
        y = torch.empty_like(x)
        for at in range(0, len(values), 4):
            _put4[(1,)](y, at, *values[at:at + 4])
        return y
    [reason] = reasons_of(by_arguments, X)
    assert "handed its kernels" in reason and "48 output elements" in reason

    def by_global(x):
        HOST_VALUES[:] = [2.0 * float(v) for v in view(x)]
        y = torch.empty_like(x)
        _put_host_values[(1,)](y, x.numel())
        return y
    reasons = reasons_of(by_global, X)
    assert any("handed its kernels" in reason for reason in reasons)
    assert any("_put_host_values does not compile as Triton" in reason for reason in reasons)


def test_a_storage_given_another_dtype_is_named():
    """A float's bits as an int32's through set_ on its storage (no view(dtype) to see), an
    exponent edited there, and the result given back its float dtype the same way."""
    def forward(x):
        bits = torch.empty(0, dtype=torch.int32).set_(x.untyped_storage(), 0, x.shape)
        doubled = bits + (1 << 23)
        y = torch.empty_like(x)
        launch(_copy, torch.empty(0).set_(doubled.untyped_storage(), 0, x.shape), y)
        return y
    reasons = reasons_of(forward, X)
    assert any("reinterpreted 96 elements" in reason for reason in reasons), reasons


def _numpy_softmax(block):  # a plain Python function: NumPy on the interpreter's block
    data = block.handle.data
    block.handle.data = (np.exp(data - data.max()) / np.exp(data - data.max()).sum()).astype(
        data.dtype)
    return block


@triton.jit
def _softmax_by_numpy(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dst_ptr + offs, _numpy_softmax(tl.load(src_ptr + offs, mask=offs < n)),
             mask=offs < n)


@triton.jit
def _twice(v):
    return 2.0 * v


@triton.jit
def _scale_by_helper(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offs, _twice(tl.load(src_ptr + offs, mask=offs < n)), mask=offs < n)


def test_a_kernel_must_compile_as_triton():
    """Blind red team, session 11: under the interpreter a kernel's body is Python, and one
    called NumPy's softmax on the block it loaded; every other rule saw its own launch do the
    work. Each kernel's source is compiled to Triton IR for a GPU target too (kernel_compiles);
    a kernel calling @triton.jit helpers compiles."""
    def numpy_body(x):
        y = torch.empty_like(x)
        _softmax_by_numpy[(1,)](x, y, x.numel(), BLOCK=64)
        return y
    reasons = reasons_of(numpy_body, X)
    assert any("_softmax_by_numpy does not compile as Triton for a GPU" in r for r in reasons)
    assert reasons_of(lambda x: (lambda y: (launch(_scale_by_helper, x, y), y)[1])(
        torch.empty_like(x)), X) == []
    # a helper's interpreted call leaves triton.language patched; a new signature still compiles
    _scale_by_helper[(1,)](X, torch.empty_like(X), X.numel(), BLOCK=64)

    def other_block(x):
        y = torch.empty_like(x)
        _scale_by_helper[(2,)](x, y, x.numel(), BLOCK=32)
        return y
    assert reasons_of(other_block, X) == []


def test_a_launch_while_a_program_it_started_runs_is_named():
    # a60_ninja_shell_relay: a program the candidate started writes what its kernel reads while
    # the kernel runs; a program run to its end before the launch (a compiler) is not named
    import subprocess
    subprocess.run(["true"], check=True)
    assert reasons_of(lambda x: _copy_out(x), X) == []
    helper = subprocess.Popen(["sleep", "30"])
    try:
        found = reasons_of(lambda x: _copy_out(x), X)
    finally:
        helper.kill()
        helper.wait()
    assert any("while a program it started was still running" in reason and "sleep" in reason
               for reason in found), found


def _copy_out(x):
    y = torch.empty_like(x)
    launch(_copy, x, y)
    return y


@triton.jit
def _dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rows, cols, inner = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rows[:, None] * K + inner[None, :])
    b = tl.load(b_ptr + inner[:, None] * N + cols[None, :])
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], tl.dot(a, b))


@triton.jit
def _outer_sum(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rows, cols, inner = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rows[:, None] * K + inner[None, :])
    b = tl.load(b_ptr + inner[:, None] * N + cols[None, :])
    tl.store(c_ptr + rows[:, None] * N + cols[None, :],
             tl.sum(a[:, :, None] * b[None, :, :], axis=1))


def test_the_kernels_multiplies_are_counted():
    """The dense rule's count (trust_ops.Policy.check_own_multiplies): a tl.dot is M*N*K
    multiply-adds, an elementwise product its elements; a copy kernel none; address arithmetic
    (integer multiplies) is not counted."""
    a, b = torch.randn(16, 32), torch.randn(32, 16)
    for kernel, expected in ((_dot, 16 * 16 * 32), (_outer_sum, 16 * 32 * 16)):
        c = torch.empty(16, 16)
        with provenance.record() as record:
            kernel[(1,)](a, b, c, M=16, N=16, K=32)
        assert record.multiplies == expected
        torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)
    with provenance.record() as record:
        launch(_copy, X, torch.empty_like(X))
    assert record.multiplies == 0


class _Hook:
    """Stands in for an object whose operators run the candidate's code inside a program."""

    def __eq__(self, other):
        return False

    __hash__ = object.__hash__


HOOK = tl.constexpr(_Hook())
HOOKS = (tl.constexpr(1), tl.constexpr(_Hook()))
PLAIN = tl.constexpr(4)
PLAIN_DTYPE = tl.constexpr(tl.float32)


@triton.jit
def _reads_hook(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    value = tl.load(src_ptr + offsets, mask=mask)
    if HOOK == 1:
        value = value * 2.0
    tl.store(dst_ptr + offsets, value, mask=mask)


@triton.jit
def _helper_reads_tuple(value):
    if HOOKS[1] == 1:
        value = value + 1.0
    return value


@triton.jit
def _calls_helper(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    value = _helper_reads_tuple(tl.load(src_ptr + offsets, mask=mask))
    tl.store(dst_ptr + offsets, tl.maximum(value, PLAIN).to(PLAIN_DTYPE), mask=mask)


def test_a_kernels_globals_carry_no_object_of_its_own():
    """Blind red team, session 37: a module-level tl.constexpr wrapping an object whose __eq__
    ran NumPy inside a program. The kernel's globals, its jit helpers' and the attributes it
    names on a module are read; constexprs of plain constants, tl's own (patched) functions and
    the interpreter's names are not impostors."""
    assert provenance.kernel_global_impostors(_reads_hook) == ["HOOK"]
    assert provenance.kernel_global_impostors(_calls_helper) == ["HOOKS"]
    assert provenance.kernel_global_impostors(_copy) == []
    assert provenance.kernel_global_impostors(_scale) == []
