"""The judge's kernel-counted operator probes (operator_probes.py): which functions of PyTorch's
code they name, and that the kernel counts every way into an operator, in every thread and
child of the watched process, where the process's own Python cannot see or stop it."""

import os
import subprocess
import sys
import textwrap

import pytest

from kforge_worker import operator_probes, trust_ops

SOFTMAX = trust_ops.family("softmax")

CHILD = textwrap.dedent("""
    import ctypes, os, sys, threading, torch
    x = torch.randn(4, 8)

    @torch.jit.script
    def scripted(t):
        return torch.softmax(t, 1)

    def run(how):
        cpu = torch._C.DispatchKey.CPU
        if how == "plain": torch.softmax(x, 1)
        elif how == "functional": torch.nn.functional.softmin(-x, 1)
        elif how == "redispatch":
            torch.ops.aten._softmax.default.redispatch(torch._C.DispatchKeySet(cpu), x, 1, False)
        elif how == "op_dk": torch.ops.aten._softmax.default._op_dk(cpu, x, 1, False)
        elif how == "script": scripted(x)
        elif how == "thread":
            t = threading.Thread(target=lambda: torch.softmax(x, 1)); t.start(); t.join()
        elif how == "fork":
            pid = os.fork()
            if pid == 0:
                torch.softmax(x, 1); os._exit(0)
            os.waitpid(pid, 0)
        elif how == "decomposed": x.exp() / x.exp().sum(1, keepdim=True)
        elif how == "perf_off":  # PR_TASK_PERF_EVENTS_DISABLE: every counter on this process
            ctypes.CDLL(None).prctl(31, 0, 0, 0, 0); torch.softmax(x, 1)
        elif how == "unpatch":  # the breakpoints' bytes written back from the library's file
            unpatch(sys.argv[1:])
        elif how == "sgemm":  # MKL's Fortran BLAS, exported by libtorch_cpu.so, through ctypes
            a, c = torch.ones(4, 4), torch.zeros(4, 4)
            n, one, zero = ctypes.c_int(4), ctypes.c_float(1), ctypes.c_float(0)
            lib = ctypes.CDLL(os.path.join(os.path.dirname(torch.__file__), "lib",
                                           "libtorch_cpu.so"))
            ref = ctypes.byref
            lib.sgemm_(b"N", b"N", ref(n), ref(n), ref(n), ref(one), ctypes.c_void_p(
                a.data_ptr()), ref(n), ctypes.c_void_p(a.data_ptr()), ref(n), ref(zero),
                ctypes.c_void_p(c.data_ptr()), ref(n))
            assert c[0, 0].item() == 4
        elif how == "matmul": torch.matmul(x, x.t())
        elif how == "numpy_matmul":  # numpy's own BLAS (the Triton interpreter's tl.dot)
            import numpy; numpy.ones((4, 4), numpy.float32) @ numpy.ones((4, 4), numpy.float32)

    def unpatch(sites):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        for site in sites:
            path, offset = site.rsplit(":", 1)
            offset = int(offset)
            with open(path, "rb") as handle:
                handle.seek(offset)
                original = handle.read(1)
            for line in open("/proc/self/maps"):
                fields = line.split()
                low, high = (int(v, 16) for v in fields[0].split("-"))
                if len(fields) > 5 and fields[5] == path and "x" in fields[1] and \\
                        int(fields[2], 16) <= offset < int(fields[2], 16) + high - low:
                    address = low + offset - int(fields[2], 16)
                    page = address & ~4095
                    assert libc.mprotect(page, 4096, 7) == 0, ctypes.get_errno()
                    ctypes.memmove(address, original, 1)
                    libc.mprotect(page, 4096, 5)

    print("ready", flush=True)
    for line in sys.stdin:
        run(line.strip())
        print("done", flush=True)
""")


def probes_or_skip():
    operator_probes.start_anchor()  # (as the worker does before an evaluation)
    # a softmax's, and a dense task's vendor entry points beside them
    probes = operator_probes.merged(operator_probes.probes_for(SOFTMAX),
                                    operator_probes.vendor_probes(dense=True, recurrent=False))
    try:
        operator_probes._tracefs()
    except operator_probes.Unavailable as why:
        pytest.skip(str(why))
    return probes


def test_the_probes_name_the_operators_entry_points_exactly():
    """Every way in: each dispatch key's registered kernel (whichever way the dispatcher was
    entered), at::native and at::cpu, structured kernels and the kernels behind dispatch stubs. Mangled names carry identifiers' lengths, so an operator's
    probes are its own: `_softmax` picks no `_softmax_backward_data`, no Meta (shape) kernel."""
    library = operator_probes._libraries()[0]
    names = {label for _, label in operator_probes.resolve(
        operator_probes.library_index(library), operator_probes.aten_names({"softmax"}))}
    for expected in ("wrapper_CPU__softmax", "at::cpu::_softmax",
                     "at::native::softmax", "wrapper_CompositeImplicitAutograd_int_softmax",
                     # below the dispatcher: a structured kernel's computation, and the kernel
                     # a DispatchStub points at (both reached from C++: a74, red team s29)
                     "at::native::structured_softmax_cpu_out::impl",
                     "at::native::softmax_lastdim_kernel_impl"):
        assert expected in names, (expected, sorted(names))
    assert not any("backward" in name or "log_softmax" in name or "Meta" in name
                   for name in names), sorted(names)


def test_only_operators_the_harness_never_runs_there_are_probed():
    """The candidate process's harness computes error bounds with arithmetic, reductions and
    pow: probing those would charge the harness's own calls to the candidate."""
    assert operator_probes.probed_operators({"softmax", "gru", "conv2d", "gelu", "tanh"}) == \
        ["conv2d", "gelu", "gru", "softmax", "tanh"]
    assert operator_probes.probed_operators({"add", "mul", "sum", "amax", "pow", "abs",
                                             "index", "gather"}) == []


@pytest.fixture()
def watched(tmp_path):
    probes = probes_or_skip()
    script = tmp_path / "child.py"  # (TorchScript reads its function's source)
    script.write_text(CHILD)
    child = subprocess.Popen([sys.executable, str(script)] + [
        f"{path}:{offset}" for path, found in probes.items() for offset, _ in found],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "ready"
    watch = operator_probes.Watch(child.pid, probes)
    watch.start()

    def run(how):
        before = watch.counts()
        child.stdin.write(how + "\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "done", how
        now = watch.counts()
        return {label: count - before.get(label, 0) for label, count in now.items()
                if count > before.get(label, 0)}
    try:
        yield watch, run
    finally:
        watch.close()
        child.kill()
        child.wait()


def test_the_kernel_counts_every_way_into_the_operator(watched):
    """Python, a torch function of the same family, the boxed dispatcher below the profiler
    (a59_redispatch_timed, a59_op_dk_timed), TorchScript, a thread started after the probes, a
    forked child; and no count for the same function computed from other operators."""
    watch, run = watched
    assert run("decomposed") == {}
    # (the fork first: a fork after TorchScript or a thread has run can deadlock in libgomp)
    for how in ("fork", "plain", "functional", "redispatch", "op_dk", "script", "thread"):
        counted = run(how)
        assert counted.get("wrapper_CPU__softmax") == 1, (how, counted)
    assert watch.entries().get("wrapper_CPU__softmax") == 7
    assert operator_probes.reasons(watch)[0].startswith(
        "ran PyTorch's own code for the operator it replaces: ")
    assert watch.breakpoints_missing() == []


def test_vendor_entry_points_are_named_by_their_apis():
    """BLAS routines by every API's names (any level 2/3 routine computes a GEMM), cuBLASLt's
    matmul, cuDNN's executions; not their set-up functions."""
    for name in ("sgemm_", "SGEMM_64", "cblas_sgemm", "cblas_sgemm_batch", "mkl_blas__sgemm",
                 "dgemv_", "strmm_", "cublasSgemm_v2", "cublasSgemm_v2_64", "cublasGemmEx",
                 "cublasGemmStridedBatchedEx", "cublasSgemmStridedBatched", "cublasHgemm",
                 "cublasXtSgemm", "cublasCgemm3m", "cublasStrsm_v2", "cublasSgemvBatched",
                 "cublasLtMatmul", "dnnl_sgemm", "dnnl_gemm_u8s8s32", "cudnnBackendExecute",
                 "cudnnConvolutionForward", "at::native::cpublas::gemm",
                 "at::cuda::blas::gemm_and_bias"):
        assert operator_probes.VENDOR_DENSE.fullmatch(name), name
    for name in ("cublasCreate_v2", "cublasLtMatmulDescCreate", "cublasSetStream_v2",
                 "cudnnCreate", "cblas_sgemm_pack_get_size", "mkl_blas_avx2_sgemm_kernel_0",
                 "cudnnRNNForward"):
        assert not operator_probes.VENDOR_DENSE.fullmatch(name), name
    assert operator_probes.VENDOR_RECURRENT.fullmatch("cudnnRNNForward")
    # which tasks: dense ones (a GEMM, a convolution) and, for cuDNN's RNN, recurrent ones
    assert operator_probes.vendor_probes(dense=False, recurrent=False) == {}
    dense = operator_probes.vendor_probes(dense=True, recurrent=False)
    labels = {label for found in dense.values() for _, label in found}
    assert any(label.startswith(("sgemm_ in ", "mkl_blas__sgemm in ", "SGEMM in "))
               for label in labels), sorted(labels)[:20]
    assert any(label.startswith("at::native::cpublas::gemm in ") for label in labels)


def test_a_vendor_library_called_directly_is_counted(watched):
    """MKL's sgemm_ through ctypes enters no ATen function; its own entry point counts it (and
    torch.matmul reaches it too). NumPy's BLAS, which the Triton interpreter's tl.dot uses, is
    not watched."""
    watch, run = watched
    assert run("numpy_matmul") == {}
    counted = run("sgemm")
    assert any(label.endswith(" in libtorch_cpu.so") for label in counted), counted
    assert any(" in libtorch_cpu.so" in label for label in run("matmul"))
    assert any(reason.startswith("computed the operator it replaces in the vendor library")
               for reason in operator_probes.reasons(watch))


def test_another_copy_of_a_watched_library_is_refused(tmp_path):
    """The candidate process mapping code from a second copy of libtorch or cuBLAS (another
    installation) would run code no probe watches: exec_monitor refuses it."""
    from kforge_worker import exec_monitor
    library = operator_probes._libraries()[0]
    copy = tmp_path / "libcublas.so.13"
    copy.write_bytes(b"\x7fELF")
    for path, refused in ((library, False), (str(copy), True)):
        fd = os.open(path, os.O_RDONLY)
        try:
            reason = exec_monitor._torch_code_reason(os.getpid(), "mmap",
                                                     (0, 4096, 5, 2, fd, 0))
        finally:
            os.close(fd)
        assert (reason is not None) == refused, (path, reason)
    assert "another copy of a library the judge's operator probes watch" in reason


def test_breakpoints_written_out_of_the_process_code_are_seen(watched):
    """A process that writes the original bytes back over the judge's breakpoints counts no
    more entries; the judge reads its code back and names the sites."""
    watch, run = watched
    run("unpatch")
    assert "wrapper_CPU__softmax" not in run("plain")
    missing = watch.breakpoints_missing()
    assert "wrapper_CPU__softmax" in missing and len(missing) > 10  # (an mprotect may set some again)
    assert any("the judge's breakpoints are gone" in reason
               for reason in operator_probes.reasons(watch))


def test_the_process_cannot_switch_the_judges_counters_off(watched):
    """prctl(PR_TASK_PERF_EVENTS_DISABLE), documented as switching off every counter attached
    to the caller, reaches only counters the caller owns (the kernel's perf_event_list): the
    judge's keep counting. The candidate's seccomp filter refuses it anyway
    (confinement.deny_prctl_options; corpus case a73_perf_events_disable)."""
    _, run = watched
    assert run("perf_off").get("wrapper_CPU__softmax") == 1


def test_unavailable_probes_say_why(monkeypatch):
    monkeypatch.setattr(operator_probes, "_TRACEFS", ("/nonexistent/tracing",))
    with pytest.raises(operator_probes.Unavailable, match="tracefs"):
        operator_probes.Watch(os.getpid(), operator_probes.probes_for(SOFTMAX))
