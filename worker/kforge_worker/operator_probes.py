"""The operators a candidate replaces, counted from outside its process: uprobes on PyTorch's code.

The operator policy's other observations (trust_ops' recorders, the profiler) are made inside the
candidate's process, and code there that attacks its own interpreter can silence them: a
redispatch below the profiler (a59_redispatch_timed), a kernel called for one dispatch key
(a59_op_dk_timed), native code. Here the judge asks the kernel instead: one uprobe per entry
point of ATen's code for each operator the candidate replaces (every dispatch key's registered
kernel `wrapper_<Key>_<overload>_X` and the dispatcher's entries into it, `at::native::X`,
`at::cpu::X`, `at::cuda::X`, structured kernels and stub kernels), counted by perf events
attached to the candidate's process and inherited by every thread it starts. However the
operator is reached (Python, TorchScript, a C++ extension, the boxed dispatcher) its code runs,
and the count is kept in the kernel, where the candidate can neither read nor reset it (its
seccomp filter refuses perf_event_open, and prctl(PR_TASK_PERF_EVENTS_DISABLE), which reaches
only counters the caller owns, is refused too). To escape the count it must take the
breakpoints out of its copy of torch's code: making a page of it executable again is refused
by the judge's system-call monitor (exec_monitor), and the judge reads the breakpoints back
through /proc/<pid>/mem before the verdict.

Only operators the harness never runs in the candidate's process are probed: the heavy ones
(softmax, convolutions, GEMMs, recurrences, norms, attention) and non-arithmetic math (gelu,
tanh); its own checks there use arithmetic and reductions (timed_check).

Where the kernel refuses (no tracefs, perf_event_paranoid for a non-root judge, a container's
seccomp profile) the evaluation goes on without the probes and says so in a note."""

import ctypes
import functools
import hashlib
import json
import os
import platform
import re
import struct

import numpy as np

# x86-64 and AArch64 syscall numbers, and the breakpoint instruction the kernel's uprobes write
_PERF_EVENT_OPEN = {"x86_64": 298, "aarch64": 241}
_BREAKPOINT = {"x86_64": b"\xcc", "aarch64": b"\xa0\x00\x20\xd4"}
_ATTR_SIZE = 112          # PERF_ATTR_SIZE_VER5
_INHERIT = 1 << 1         # perf_event_attr.inherit: threads and children started later count
_PERF_FLAG_FD_CLOEXEC = 1 << 3

# The namespaces whose functions named as the operator compute it (the composite ones call
# into these; at::meta only computes shapes)
_COMPUTING = ("native", "cpu", "cuda")


class Unavailable(Exception):
    """The probes cannot be attached here; the message says why."""


def probed_operators(policy_ops):
    """The policy's operators the harness itself never runs in the candidate's process: the
    heavy ones and non-arithmetic math. Its own checks there (timed_check) use arithmetic,
    reductions and pow, which stay with the in-process recorders."""
    from kforge_worker import trust_ops
    # (lookups and bit casts are "math" to the own-work rule, and plain indexing to the harness)
    harness = HARNESS_OPERATORS | trust_ops._LOOKUPS | trust_ops._BIT_LEVEL
    return sorted(name for name in policy_ops
                  if (trust_ops.is_heavy(name) or trust_ops.compute_class(name) == "math")
                  and name not in harness)


# Math the candidate process's harness computes itself (timed_check's error bounds)
HARNESS_OPERATORS = frozenset(("pow",))


def _libraries():
    import torch
    folder = os.path.join(os.path.dirname(os.path.realpath(torch.__file__)), "lib")
    return [os.path.join(folder, name) for name in ("libtorch_cpu.so", "libtorch_cuda.so")
            if os.path.exists(os.path.join(folder, name))]


def aten_names(policy_ops):
    """{ATen operator: [overload names]} for the policy's canonical names (`softmax` covers
    aten::softmax and aten::_softmax; in-place forms too)."""
    import torch
    found = {}
    for name in sorted(policy_ops):
        for raw in (name, f"_{name}", f"{name}_", f"_{name}_", f"__{name}"):
            try:
                packet = getattr(torch.ops.aten, raw)
                overloads = packet.overloads()
            except (AttributeError, RuntimeError):
                continue
            found[raw] = sorted(overloads)
    return found


def _identifier(strings, position):
    """The length-prefixed identifier of a mangled name at `position` (its digits), and the
    offset after it; (None, position) where there is none."""
    end = position
    while end < len(strings) and 48 <= strings[end] <= 57:
        end += 1
    if end == position:
        return None, position
    size = int(strings[position:end])
    return strings[end:end + size], end + size


_ENTRY = re.compile(rb"\0_ZN2at(" + rb"|".join(
    b"%d%s" % (len(n), n.encode()) for n in _COMPUTING) + rb")(?=\d)")
# The kernels a DispatchStub points at (`softmax_lastdim_kernel_impl`, `GeluKernelImpl`): in an
# anonymous namespace of at::native, or one per CPU capability. A C++ extension reaches them
# through the stub's exported pointers (blind red team, session 29)
_STUB_KERNEL = re.compile(rb"\0_ZN2at6native(?:(?:7DEFAULT|4AVX2|6AVX512|8ZVECTOR|4VSX|4SVE|"
                          rb"6SVE256|4NEON)(?:12_GLOBAL__N_1)?|12_GLOBAL__N_1)(?=\d)")


# The libraries below ATen that compute a dense task's operator: MKL and oneDNN (inside
# libtorch_cpu.so on x86), cuBLAS, cuBLASLt and cuDNN (beside libtorch_cuda.so: the nvidia wheels
# or a CUDA toolkit), and ATen's own BLAS wrappers (at::native::cpublas::gemm,
# at::cuda::blas::gemm). A C++ extension or ctypes calls their API on the tensors' memory without
# entering any ATen operator's code; on the GPU nothing else outside the candidate's process sees
# it (on the CPU provenance.py sees the host write). Their entry points of dense algebra are
# probed for GEMM and convolution tasks (any level 2/3 BLAS routine computes a GEMM: a triangular
# multiply twice, a matrix-vector product per column), cuDNN's RNN for recurrent ones (whose
# input projection may stay a PyTorch GEMM, so BLAS is not probed there).
# A BLAS routine by its standard names: the type letter, the routine, the API's suffixes (MKL's
# sgemm_, SGEMM_64, cblas_sgemm_batch, mkl_blas__sgemm; cuBLAS's cublasSgemm_v2, cublasGemmEx,
# cublasSgemmStridedBatched_64, cublasXtSgemm; oneDNN's dnnl_sgemm, dnnl_gemm_u8s8s32)
_BLAS_ROUTINE = (r"(?:gemm(?:t|3m|_bf16bf16f32|_f16f16f32|_[su](?:8|16)[su](?:8|16)s32)?|gemv|"
                 r"symm|hemm|syrkx?|herkx?|syr2k|her2k|trmm|trsm|trmv|trsv|symv|hemv|gbmv|sbmv|"
                 r"tbmv)")
_BLAS_SUFFIX = r"(?:Ex|Batched|StridedBatched|GroupedBatched|_batch|_strided|_compute|_v2|_64|_)*"
VENDOR_DENSE = re.compile(
    rf"(?i:(?:cblas_|mkl_blas__?|cublas(?:Xt)?|dnnl_)?[sdczh]?{_BLAS_ROUTINE}){_BLAS_SUFFIX}|"
    r"cublasLtMatmul|dnnl_primitive_execute|"
    r"cudnn(?:ConvolutionForward|ConvolutionBiasActivationForward|BackendExecute|"
    r"FusedOpsExecute|MultiHeadAttnForward)|"
    r"at::(?:native::cpublas|cuda::blas)::\w*ge[mv][mv]\w*")
VENDOR_RECURRENT = re.compile(r"cudnnRNNForward\w*")
# Letter pairs one of which every such name holds (`mm` of gemm, `mv` of gemv, `rk`/`2k` of
# syrk/syr2k, `rs` of trsm, `tm` of Matmul, `nv` of Convolution, `xe` of Execute, `tt` of
# MultiHeadAttn, `nf` of RNNForward): where the index looks for names, vectorised over the table
_VENDOR_PAIRS = (b"mm", b"mv", b"rk", b"2k", b"rs", b"tm", b"nv", b"xe", b"tt", b"nf")
_ATEN_BLAS = {b"_ZN2at6native7cpublas": "at::native::cpublas",
              b"_ZN2at4cuda4blas": "at::cuda::blas"}


def _vendor_keys(strings, name_offsets):
    """{name offset: "vendor:<name>"} for the functions (their names' offsets) that are a
    vendor's entry points of dense or recurrent computation. Linkers store a name that ends
    another (`sgemm` inside `cblas_sgemm`) as that one's tail, so a name is a candidate when a
    telling word lies between its start and the string's end."""
    text = np.frombuffer(strings.lower(), dtype=np.uint8)
    hit = np.zeros(text.size, dtype=bool)
    for first, second in _VENDOR_PAIRS:
        hit[:-1] |= (text[:-1] == first) & (text[1:] == second)
    words = np.flatnonzero(hit)
    if not words.size:
        return {}
    zeros = np.flatnonzero(np.frombuffer(strings, dtype=np.uint8) == 0)
    starts = np.asarray(name_offsets, dtype=np.int64)
    ends = zeros[np.minimum(np.searchsorted(zeros, starts), zeros.size - 1)]
    starts = starts[np.searchsorted(words, starts) < np.searchsorted(words, ends)]
    keys = {}
    for start in (int(offset) for offset in starts):
        name = strings[start:strings.index(b"\0", start)]
        for prefix, namespace in _ATEN_BLAS.items():
            if name.startswith(prefix):  # at::native::cpublas::gemm<...>(...) and the like
                identifier, _ = _identifier(strings, start + len(prefix))
                name = f"{namespace}::{identifier.decode()}".encode() if identifier else b""
                break
        text = name.decode(errors="replace")
        if VENDOR_DENSE.fullmatch(text) or VENDOR_RECURRENT.fullmatch(text):
            keys[start] = f"vendor:{text}"
    return keys


def build_index(path):
    """{key: [file offsets]} of every function in the library that can be an operator's entry
    point: `ns:<namespace>::<op>` (at::native::softmax and the like), `impl:` and `stub:`
    (structured kernels, the kernels behind dispatch stubs), `wrapper:<identifier>` (the
    kernel a dispatch key registered, `wrapper_CPU__softmax`, with the dispatcher's unboxed and
    boxed entries into it) and `vendor:<name>` (BLAS, cuBLAS, cuDNN entry points:
    _vendor_keys). Identifiers in Itanium-mangled names carry their length, so every key is
    exact. Built once per library (a few seconds for libtorch), then cached."""
    symbols, strings, executable = _elf(path)
    keys = {}  # name offset -> key
    for match in _ENTRY.finditer(strings):
        identifier, after = _identifier(strings, match.end())
        if identifier is None:
            continue
        if strings[after:after + 1] == b"E":  # a function of the namespace itself
            namespace = match.group(1).lstrip(b"0123456789").decode()
            keys[match.start() + 1] = f"ns:{namespace}::{identifier.decode()}"
        elif identifier.startswith(b"structured_") and \
                _identifier(strings, after)[0] == b"impl":  # a structured kernel's computation
            keys[match.start() + 1] = f"impl:{identifier.decode()}"
    for match in _STUB_KERNEL.finditer(strings):
        identifier, after = _identifier(strings, match.end())
        if identifier is not None and strings[after:after + 1] == b"E" and \
                re.search(rb"(_kernel(_impl)?|Kernel(Impl)?)$", identifier):
            keys[match.start() + 1] = f"stub:{identifier.decode()}"
    for match in re.finditer(rb"wrapper_", strings):
        first = match.start()
        while first > 0 and 48 <= strings[first - 1] <= 57:
            first -= 1
        start = strings.rfind(b"\0", 0, first) + 1
        if first == match.start() or start in keys:
            continue
        digits = strings[first:match.start()]
        # The length prefix may follow other digits (`_GLOBAL__N_1` then `20wrapper_...`): the
        # shortest that ends the name's scope (an `E` after it) is the identifier's own
        for index in reversed(range(len(digits))):
            size = int(digits[index:])
            identifier = strings[match.start():match.start() + size]
            key_end = identifier.find(b"_", len(b"wrapper_"))
            if key_end < 0 or strings[match.start() + size:match.start() + size + 1] != b"E" \
                    or not re.fullmatch(rb"wrapper_[A-Za-z0-9]+_\w+", identifier):
                continue
            # (a Meta kernel computes shapes, not values; a destructor computes nothing)
            end = strings.index(b"\0", start)
            if identifier[len(b"wrapper_"):key_end] != b"Meta" and \
                    not re.search(rb"D[012]Ev$", strings[start:end]):
                keys[start] = f"wrapper:{identifier.decode()}"
            break
    defined = ((symbols["info"] & 0xF) == 2) & (symbols["shndx"] != 0) & (symbols["value"] != 0)
    keys.update(_vendor_keys(strings, np.unique(symbols["name"][defined])))
    functions = symbols[np.isin(symbols["name"], np.fromiter(keys, dtype=np.uint32)) & defined]
    index = {}
    for row in functions:
        start = int(row["name"])
        if b".cold" in strings[start:strings.index(b"\0", start)]:
            continue  # a function's outlined tail: entered only from the function
        value = int(row["value"])
        for vaddr, offset, size in executable:
            if vaddr <= value < vaddr + size:
                found = index.setdefault(keys[start], [])
                if value - vaddr + offset not in found:
                    found.append(value - vaddr + offset)
                break
    return index


def _elf(path):
    """(symbols: numpy records, string table bytes, executable PT_LOAD segments) of a 64-bit
    little-endian ELF file; its full symbol table where it has one (torch's wheels keep it)."""
    with open(path, "rb") as handle:
        header = handle.read(64)
        if header[:4] != b"\x7fELF" or header[4] != 2 or header[5] != 1:
            raise Unavailable(f"{os.path.basename(path)} is not a 64-bit little-endian ELF file")
        phoff, shoff = struct.unpack_from("<QQ", header, 32)
        phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", header, 54)
        handle.seek(shoff)
        sections = [struct.unpack("<IIQQQQIIQQ", handle.read(shentsize)[:64])
                    for _ in range(shnum)]
        handle.seek(phoff)
        segments = [struct.unpack("<IIQQQQQQ", handle.read(phentsize)[:56])
                    for _ in range(phnum)]
        tables = [s for s in sections if s[1] == 2] or [s for s in sections if s[1] == 11]
        if not tables:
            raise Unavailable(f"{os.path.basename(path)} has no symbol table")
        table = tables[0]
        strings_section = sections[table[6]]
        handle.seek(strings_section[4])
        strings = handle.read(strings_section[5])
    layout = np.dtype([("name", "<u4"), ("info", "u1"), ("other", "u1"), ("shndx", "<u2"),
                       ("value", "<u8"), ("size", "<u8")])
    symbols = np.fromfile(path, dtype=layout, count=table[5] // layout.itemsize,
                          offset=table[4])
    executable = [(vaddr, offset, filesz) for kind, flags, offset, vaddr, _, filesz, _, _
                  in segments if kind == 1 and flags & 1]
    return symbols, strings, executable


def _wrapper_forms(operators):
    """{op: regex} for the rest of a registered kernel's name after `wrapper_<Key>_`: torchgen
    names them `<overload>_<op>`, `_<op>`, `<op>_out_<overload>` and the like."""
    forms = {}
    for name, overloads in operators.items():
        tokens = "|".join(re.escape(o) for o in overloads if o != "default")
        forms[name] = re.compile(
            rf"^(?:(?:{tokens}|)_)?{re.escape(name)}(?:_(?:{tokens + '|' if tokens else ''}out))*$")
    return forms


def _kernel_forms(operators):
    """Regexes for the names of the code that computes these operators below the dispatcher:
    structured kernels' classes (`structured_softmax_cpu_out`) and the kernels behind dispatch
    stubs (`softmax_lastdim_kernel_impl`, `GeluKernelImpl`)."""
    forms = []
    for name in operators:
        base = name.strip("_")
        camel = "".join(part.capitalize() for part in base.split("_"))
        forms.append(re.compile(rf"^impl:structured_{re.escape(base)}(?:_(?:cpu|cuda|out))*$"))
        # (a forward operator's probes name no backward kernel: `softmax_backward_kernel_impl`)
        forward = "" if "backward" in base else "(?!.*[Bb]ackward)"
        forms.append(re.compile(rf"^stub:{forward}(?:{re.escape(base)}(?:_[a-z0-9]+)*_kernel"
                                rf"(?:_impl)?|{re.escape(camel)}[A-Za-z0-9]*Kernel(?:Impl)?)$"))
    return forms


def resolve(index, operators):
    """[(file offset, label)] of the indexed functions that are entry points of `operators`
    ({aten name: overloads})."""
    kernels = _kernel_forms(operators)
    # Where the computation is: every registered kernel (`wrapper_*`, whatever way the
    # dispatcher is entered), the native functions, structured kernels and stub kernels. The
    # dispatcher's own `at::_ops::*` entries and the composite namespaces' functions lead to
    # one of those, and each probe costs the judge a counter per thread (session 29: kept few)
    wanted = {f"ns:{namespace}::{name}" for name in operators for namespace in _COMPUTING}
    forms = list(_wrapper_forms(operators).values())
    found = {}
    for key, offsets in index.items():
        if key.startswith("wrapper:"):
            rest = key.split("_", 2)[-1] if key.count("_") >= 2 else ""
            if not any(form.match(rest) for form in forms):
                continue
            label = key[len("wrapper:"):]
        elif key in wanted:
            label = f"at::{key.partition(':')[2]}"
        elif key.startswith(("impl:", "stub:")) and any(form.match(key) for form in kernels):
            kind, _, rest = key.partition(":")
            label = f"at::native::{rest}::impl" if kind == "impl" else f"at::native::{rest}"
        else:
            continue
        for offset in offsets:
            found.setdefault(offset, label)
    return sorted(found.items())


def _cache_root():
    return os.environ.get("KFORGE_PROBE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "kforge", "probes")


INDEX_VERSION = 5  # of build_index's output: a new one invalidates the cached indexes


def library_index(path):
    """build_index, cached under the library's identity (inode, size, modification time)."""
    info = os.stat(path)
    identity = f"{path}:{info.st_ino}:{info.st_size}:{info.st_mtime_ns}:{INDEX_VERSION}"
    key = hashlib.sha256(identity.encode())
    cache = os.path.join(_cache_root(), f"{key.hexdigest()[:24]}.json")
    if cache in _indexes:
        return _indexes[cache]
    try:
        with open(cache) as handle:
            index = json.load(handle)
    except (OSError, ValueError):
        index = build_index(path)
        try:
            os.makedirs(os.path.dirname(cache), exist_ok=True)
            with open(f"{cache}.{os.getpid()}", "w") as handle:
                json.dump(index, handle)
            os.replace(f"{cache}.{os.getpid()}", cache)
        except OSError:
            pass
    _indexes[cache] = index
    return index


_indexes = {}  # cache path -> index, for this worker's lifetime


def probes_for(policy_ops):
    """{library path: [(file offset, label)]} for the policy's operators."""
    operators = aten_names(policy_ops)
    if not operators:
        return {}
    found = {path: resolve(library_index(path), operators) for path in _libraries()}
    return {path: probes for path, probes in found.items() if probes}


_chosen = {}  # (operators, dense, recurrent) -> chosen()'s probes, for this process's lifetime


def chosen(policy_ops, dense, recurrent):
    """The probes a policy's candidate is watched with: its operators' (probes_for) and, for a
    dense or recurrent task, the vendor libraries' (vendor_probes), merged. Kept per policy:
    a judge prepared ahead chooses them before its request (evaluate.prefetch), 0.1-0.16 s of
    an RNN evaluation's load on an H200 (session 35)."""
    key = (tuple(sorted(str(name) for name in policy_ops)), bool(dense), bool(recurrent))
    if key not in _chosen:
        _chosen[key] = merged(probes_for(probed_operators(policy_ops)),
                              vendor_probes(dense, recurrent))
    return {path: list(entries) for path, entries in _chosen[key].items()}


# A vendor's entry point in a probe's label: "sgemm_ in libtorch_cpu.so"
_VENDOR_LABEL = re.compile(r" in lib[\w.+-]*\.so[\d.]*$")


def vendor_probes(dense, recurrent):
    """{library path: [(file offset, label)]}: the BLAS and cuDNN entry points (VENDOR_DENSE,
    VENDOR_RECURRENT) a dense or recurrent task's candidate computes its operator with."""
    patterns = [pattern for pattern, wanted in ((VENDOR_DENSE, dense),
                                                (VENDOR_RECURRENT, recurrent)) if wanted]
    found = {}
    for path in (_libraries() + vendor_libraries()) if patterns else []:
        probes = {}
        for key, offsets in library_index(path).items():
            name = key[len("vendor:"):]
            if key.startswith("vendor:") and any(p.fullmatch(name) for p in patterns):
                for offset in offsets:  # (sgemm, sgemm_ and SGEMM may be one function)
                    probes.setdefault(offset, f"{name} in {os.path.basename(path)}")
        if probes:
            found[path] = sorted(probes.items())
    return found


def merged(*probe_sets):
    """One {library path: [(file offset, label)]} of several, one probe per offset."""
    found = {}
    for probes in probe_sets:
        for path, entries in probes.items():
            for offset, label in entries:
                found.setdefault(path, {}).setdefault(offset, label)
    return {path: sorted(entries.items()) for path, entries in found.items()}


_VENDOR_LIBRARY = re.compile(r"^lib(?:cublas|cublasLt|cudnn(?:_\w+)?)\.so(?:\.\d+)*$")


@functools.lru_cache(maxsize=None)
def vendor_libraries():
    """The cuBLAS, cuBLASLt and cuDNN libraries a candidate can load: beside torch, in the nvidia
    wheels, in a CUDA toolkit, in the loader's folders, and any this process has mapped; one
    path per file (a uprobe is on the file, whatever name maps it)."""
    import glob
    torch = _libraries()
    torch_lib = os.path.dirname(torch[0]) if torch else None
    folders = [torch_lib] if torch_lib else []
    if torch_lib:
        site = os.path.dirname(os.path.dirname(torch_lib))
        folders += glob.glob(os.path.join(site, "nvidia", "*", "lib"))
        folders += glob.glob(os.path.join(site, "nvidia", "*", "*", "lib"))
    folders += glob.glob("/usr/local/cuda*/lib64") + glob.glob("/usr/local/cuda*/targets/*/lib")
    folders += [f"/usr/lib/{platform.machine()}-linux-gnu", "/usr/lib64", "/usr/lib", "/lib64"]
    folders += [f for f in os.environ.get("LD_LIBRARY_PATH", "").split(":") if f]
    for conf in glob.glob("/etc/ld.so.conf.d/*.conf"):
        try:
            with open(conf) as handle:
                folders += [line.strip() for line in handle if line.startswith("/")]
        except OSError:
            pass
    paths = []
    try:
        with open("/proc/self/maps") as handle:
            paths += [line.split(None, 5)[5].strip() for line in handle if line.count(" ") >= 5
                      and "/" in line]
    except OSError:
        pass
    for folder in folders:
        try:
            paths += [os.path.join(folder, name) for name in os.listdir(folder)]
        except OSError:
            continue
    found = {}
    for path in paths:
        if not _VENDOR_LIBRARY.match(os.path.basename(path)):
            continue
        try:
            real = os.path.realpath(path)
            info = os.stat(real)
        except OSError:
            continue
        found.setdefault((info.st_dev, info.st_ino), real)
    return sorted(found.values())


@functools.lru_cache(maxsize=None)
def watched_files():
    """(st_dev, st_ino) of the libraries the probes may sit in: PyTorch's own (every file beside
    libtorch) and the vendors'. exec_monitor refuses code mapped from another copy of them."""
    files = set()
    paths = list(vendor_libraries())
    torch = _libraries()
    if torch:
        folder = os.path.dirname(torch[0])
        paths += [os.path.join(folder, name) for name in os.listdir(folder)]
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            continue
        files.add((info.st_dev, info.st_ino))
    return files


_TRACEFS = ("/sys/kernel/tracing", "/sys/kernel/debug/tracing")
_PERF_TYPE_TRACEPOINT = 2
_events = {}       # (library path, file offset) -> trace event id, for this worker's lifetime
_group = None


def _tracefs():
    """The tracing file system's root, mounted at its standard place if it is not yet (as root).
    Uprobes are defined there rather than through the perf uprobe PMU: an event of that PMU
    re-reads its library path from user memory in every thread it is inherited into, which
    fails (EFAULT) in the candidate's threads."""
    for root in _TRACEFS:
        if os.path.exists(os.path.join(root, "uprobe_events")):
            return root
    libc = ctypes.CDLL(None, use_errno=True)
    if os.path.isdir(_TRACEFS[0]) and \
            libc.mount(b"nodev", _TRACEFS[0].encode(), b"tracefs", 0, None) == 0:
        return _TRACEFS[0]
    raise Unavailable(f"no tracing file system (tracefs) at {_TRACEFS[0]}, and it cannot be "
                      f"mounted here ({os.strerror(ctypes.get_errno())})")


def _define(root, wanted):
    """Trace event ids of uprobes at `wanted` [(library path, file offset)], defined once per
    worker under the group kforge_<pid> (left-over groups of workers that are gone removed)."""
    global _group
    if _group is None:
        owner = _anchor[3] if _anchor is not None else os.getpid()
        _group = f"kforge_{owner}"
        _remove_stale(root)
        if owner == os.getpid():
            import atexit
            atexit.register(_remove_own, root)
    new = []
    for path, offset in wanted:
        if (path, offset) in _events:
            continue
        if any(c.isspace() for c in path):
            raise Unavailable(f"the library path has white space in it: {path!r}")
        # named by what it probes: another evaluation of this worker finds it defined
        name = "p" + hashlib.sha1(f"{path}:{offset}".encode()).hexdigest()[:16]
        folder = os.path.join(root, "events", _group, name)
        if not os.path.exists(folder):
            try:
                _write_lines(root, [f"p:{_group}/{name} {path}:0x{offset:x}\n"])
            except OSError as error:
                if not os.path.exists(folder):
                    raise Unavailable(f"the kernel refused a uprobe definition "
                                      f"({error.strerror})") from None
            new.append((path, offset))
        with open(os.path.join(folder, "id")) as handle:
            _events[(path, offset)] = int(handle.read())
    _hold([_events[key] for key in new])
    return [_events[key] for key in wanted]


# A helper process of the worker's that holds one counter on itself for every probe defined, for
# the worker's lifetime. It maps no libtorch, so no breakpoint is ever set in it; but while it
# holds them the uprobes stay registered, and a candidate's counters are opened and closed
# without registering and unregistering them in the kernel, which synchronises and took ~80 ms
# per counter when closed (28 s for a softmax task's 344, session 29). It dies with the worker.
_ANCHOR_SOURCE = r"""
import ctypes, os, signal, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(1, signal.SIGKILL, 0, 0, 0)
if os.getppid() != int(sys.argv[2]):
    sys.exit(0)
held = []
for line in sys.stdin:
    for event in line.split():
        attr = bytearray(112)
        struct.pack_into("<IIQ", attr, 0, 2, 112, int(event))
        fd = libc.syscall(int(sys.argv[1]), (ctypes.c_char * 112).from_buffer(attr), 0, -1, -1, 8)
        if fd >= 0:
            held.append(fd)
    print(len(held), flush=True)
"""
_anchor = None  # (process, its stdin, its stdout, the worker's pid), inherited by evaluations


def start_anchor():
    """In the worker, before it forks an evaluation (sandbox.run_request): the helper process,
    once per worker. Evaluations inherit its pipes (anchor_fds) and the worker's group of probe
    definitions, so what one evaluation defined the next finds registered."""
    global _anchor
    import subprocess
    import sys
    if _anchor is not None and _anchor[3] == os.getpid() and _anchor[0].poll() is None:
        return
    try:
        process = subprocess.Popen(
            [sys.executable, "-S", "-c", _ANCHOR_SOURCE,
             str(_PERF_EVENT_OPEN[platform.machine()]), str(os.getpid())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True)
        _anchor = (process, process.stdin.fileno(), process.stdout.fileno(), os.getpid())
    except (OSError, KeyError):
        _anchor = None
        return
    # a helper started again (the last one died) holds what the worker defined before
    for root in _TRACEFS:
        folder = os.path.join(root, "events", f"kforge_{os.getpid()}")
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        ids = []
        for name in names:
            try:
                with open(os.path.join(folder, name, "id")) as handle:
                    ids.append(int(handle.read()))
            except (OSError, ValueError):
                pass
        _hold(ids)
        break


def stop_anchor():
    """Ends this process's helper (tests: a test module that forked evaluations in process leaves
    it a child of the test process, where the next module's in-process Guard sees a program
    still running)."""
    global _anchor
    if _anchor is not None and _anchor[3] == os.getpid():
        _anchor[0].kill()
        _anchor[0].wait()
        for stream in (_anchor[0].stdin, _anchor[0].stdout):
            stream.close()
    _anchor = None


def anchor_fds():
    """The descriptors an evaluation child keeps to talk to the helper."""
    return (_anchor[1], _anchor[2]) if _anchor is not None else ()


def _hold(ids):
    """Has the helper hold a counter on each of these trace events (best effort: without it the
    probes work, only more slowly)."""
    if _anchor is None or not ids:
        return
    try:
        os.write(_anchor[1], (" ".join(str(i) for i in ids) + "\n").encode())
        while True:  # (its counters are open once it answers)
            answer = os.read(_anchor[2], 4096)
            if not answer or answer.endswith(b"\n"):
                break
    except OSError:
        pass


def _definitions(root):
    try:
        with open(os.path.join(root, "uprobe_events")) as handle:
            return [line.split()[0][2:] for line in handle if line.startswith("p:kforge_")]
    except OSError:
        return []


def _write_lines(root, lines, ignore_errors=False):
    """One write per line, unbuffered: the file takes no seek, which Python's "a" mode makes."""
    fd = os.open(os.path.join(root, "uprobe_events"), os.O_WRONLY | os.O_APPEND)
    try:
        for line in lines:
            try:
                os.write(fd, line.encode())
            except OSError:
                if not ignore_errors:
                    raise
    finally:
        os.close(fd)


def _remove(root, names):
    try:  # (a definition still in use by another worker's open events stays)
        _write_lines(root, [f"-:{name}\n" for name in names], ignore_errors=True)
    except OSError:
        pass


def _remove_stale(root):
    stale = []
    for name in _definitions(root):
        pid = name.split("/")[0][len("kforge_"):]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            stale.append(name)
    _remove(root, stale)


def _remove_own(root):
    _remove(root, [name for name in _definitions(root) if name.startswith(f"{_group}/")])


class Watch:
    """Perf counters on every probe, in every thread of one process (and what they start)."""

    def __init__(self, pid, probes):
        self.pid = pid
        self.probes = probes          # {library path: [(file offset, label)]}
        self.fds = []                 # (fd, path, offset, label)
        self.baseline = None
        self.threads = 0
        self.events = 0
        self.breakpoints_checked = 0
        machine = platform.machine()
        if machine not in _PERF_EVENT_OPEN:
            raise Unavailable(f"no perf_event_open number known for {machine}")
        self._syscall = ctypes.CDLL(None, use_errno=True).syscall
        self._syscall.restype = ctypes.c_long
        self._number = _PERF_EVENT_OPEN[machine]
        root = _tracefs()
        self._ids = dict(zip(
            [(path, offset) for path, found in probes.items() for offset, _ in found],
            _define(root, [(path, offset) for path, found in probes.items()
                           for offset, _ in found])))
        try:
            self._attach()
        except BaseException:
            self.close()
            raise

    def _open(self, tid, path, offset):
        attr = bytearray(_ATTR_SIZE)
        struct.pack_into("<IIQ", attr, 0, _PERF_TYPE_TRACEPOINT, _ATTR_SIZE,
                         self._ids[(path, offset)])
        struct.pack_into("<Q", attr, 40, _INHERIT)
        buffer = (ctypes.c_char * _ATTR_SIZE).from_buffer(attr)
        fd = self._syscall(self._number, buffer, tid, -1, -1, _PERF_FLAG_FD_CLOEXEC)
        if fd < 0:
            error = ctypes.get_errno()
            why = "not permitted here (perf_event_paranoid, a container)" if error in (1, 13) \
                else "the kernel refused it"
            raise Unavailable(f"perf_event_open refused a uprobe ({os.strerror(error)}): {why}")
        return fd

    def _threads(self):
        try:
            return {int(tid) for tid in os.listdir(f"/proc/{self.pid}/task")}
        except OSError:
            raise Unavailable(f"process {self.pid} is gone") from None

    def _attach(self):
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        count = sum(len(found) for found in self.probes.values())
        attached = set()
        while True:  # until no thread appeared while the others were attached
            threads = self._threads() - attached
            if not threads:
                break
            need = len(self.fds) + count * len(threads) + 256
            if need > soft and soft < hard:
                soft = min(hard, max(need, soft * 2)) if hard != resource.RLIM_INFINITY \
                    else max(need, soft * 2)
                resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
            for tid in sorted(threads):
                for path, found in self.probes.items():
                    for offset, label in found:
                        try:
                            fd = self._open(tid, path, offset)
                        except Unavailable:
                            if not os.path.exists(f"/proc/{self.pid}/task/{tid}"):
                                break  # the thread ended meanwhile: nothing to count there
                            raise
                        self.fds.append((fd, path, offset, label))
                attached.add(tid)
        self.threads = len(attached)
        self.events = len(self.fds)

    def counts(self):
        """{label: entries} summed over threads (and the threads they started)."""
        totals = {}
        for fd, _, _, label in self.fds:
            value = struct.unpack("<Q", os.read(fd, 8))[0]
            totals[label] = totals.get(label, 0) + value
        return totals

    def start(self):
        """From now on entries are the candidate's (the first forward request)."""
        if self.baseline is None:
            self.baseline = self.counts()

    def entries(self):
        """{label: entries since start()} where nonzero."""
        if self.baseline is None:
            return {}
        now = self.counts()
        return {label: count - self.baseline.get(label, 0) for label, count in now.items()
                if count > self.baseline.get(label, 0)}

    def breakpoints_missing(self):
        """Labels of probes whose breakpoint is no longer in the process's code (rewritten by the
        process, or its page replaced by a mapping of another file)."""
        expected = _BREAKPOINT.get(platform.machine())
        if expected is None:
            return []
        try:
            with open(f"/proc/{self.pid}/maps") as handle:
                maps = handle.read().splitlines()
            memory = os.open(f"/proc/{self.pid}/mem", os.O_RDONLY)
        except OSError:
            return []  # (describe() shows no breakpoint checked)
        missing = []
        try:
            inodes = {path: os.stat(path).st_ino for path in self.probes}
            for path, found in self.probes.items():
                regions = []
                for line in maps:
                    fields = line.split()
                    if len(fields) >= 6 and int(fields[4]) == inodes[path]:
                        low, high = (int(x, 16) for x in fields[0].split("-"))
                        regions.append((low, high, int(fields[2], 16), fields[1]))
                if not regions:
                    # never loaded (cuDNN in a candidate that uses none): no code of it can run,
                    # and the kernel puts the breakpoints in if it is mapped later. A library
                    # with its code unmapped but its other segments left is still checked.
                    continue
                for offset, label in found:
                    address = next((low + offset - file_offset for low, high, file_offset, mode
                                    in regions if "x" in mode and
                                    file_offset <= offset < file_offset + high - low), None)
                    try:
                        ok = address is not None and \
                            os.pread(memory, len(expected), address) == expected
                    except OSError:
                        ok = False
                    if not ok and label not in missing:
                        missing.append(label)
        finally:
            os.close(memory)
        self.breakpoints_checked = sum(len(found) for found in self.probes.values())
        return missing

    def describe(self):
        return {"functions": sum(len(found) for found in self.probes.values()),
                "threads": self.threads, "perf_events": self.events,
                "breakpoints_checked": self.breakpoints_checked}

    def close(self):
        for fd, _, _, _ in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds = []


def reasons(watch):
    """The violation lines the counters and breakpoints give, if any."""
    found = []
    entries = watch.entries()
    vendor = {label: count for label, count in entries.items() if _VENDOR_LABEL.search(label)}
    aten = {label: count for label, count in entries.items() if label not in vendor}
    if aten:
        found.append(f"ran PyTorch's own code for the operator it replaces: {_most(aten)} "
                     f"(entries counted by the kernel's uprobes, seen by the judge)")
    if vendor:
        found.append(f"computed the operator it replaces in the vendor library PyTorch uses "
                     f"(BLAS, cuBLAS, cuDNN): {_most(vendor)} (entries counted by the kernel's "
                     f"uprobes, seen by the judge)")
    missing = watch.breakpoints_missing()
    if missing:
        found.append(f"rewrote PyTorch's code in its own process: the judge's breakpoints are "
                     f"gone from {', '.join(missing[:3])}")
    return found


def _most(entries):
    return ", ".join(f"{label} x{count}" for label, count in
                     sorted(entries.items(), key=lambda item: -item[1])[:4])
