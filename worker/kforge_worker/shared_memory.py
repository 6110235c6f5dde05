"""Memory the judge shares with the candidate process, and nothing else.

The judge (trusted) and the candidate process (confined, untrusted) exchange tensors through
buffers the judge allocates one by one and hands over as file descriptors (SCM_RIGHTS over the
channel's Unix socket). Each buffer is its own allocation, so the candidate can reach exactly the
bytes it was given: never a neighbour in an allocator's segment (a CUDA IPC handle of a tensor
from PyTorch's caching allocator opens the whole segment, which may hold the expected outputs).

- host ("cpu"): a memfd, mapped by both processes.
- cuda: a CUDA virtual-memory allocation (cuMemCreate) exported as a POSIX file descriptor.
  Legacy CUDA IPC handles (cudaIpcGetMemHandle, what torch.multiprocessing uses) do not open
  across PID namespaces, and the candidate process has its own; a file descriptor passed over a
  socket does.

A buffer is raw bytes; `view(dtype, shape)` gives a tensor over it (no copy)."""

import ctypes
import mmap
import os

import torch

CU_MEM_ALLOCATION_TYPE_PINNED = 1
CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1
CU_MEM_LOCATION_TYPE_DEVICE = 1
CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3
CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0


class _Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class _AllocFlags(ctypes.Structure):
    _fields_ = [("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class _AllocationProp(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int),
                ("location", _Location), ("win32HandleMetaData", ctypes.c_void_p),
                ("allocFlags", _AllocFlags)]


class _AccessDesc(ctypes.Structure):
    _fields_ = [("location", _Location), ("flags", ctypes.c_int)]


class SharedMemoryError(RuntimeError):
    pass


_driver = None


def _cuda():
    global _driver
    if _driver is None:
        _driver = ctypes.CDLL("libcuda.so.1")
    return _driver


def _check(result, what):
    if result != 0:
        name = ctypes.c_char_p()
        _cuda().cuGetErrorName(result, ctypes.byref(name))
        raise SharedMemoryError(f"{what} failed: {(name.value or b'?').decode()} ({result})")


def _prop(device):
    prop = _AllocationProp()
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE
    prop.location.id = device
    return prop


def _granularity(device):
    value = ctypes.c_size_t()
    prop = _prop(device)
    _check(_cuda().cuMemGetAllocationGranularity(ctypes.byref(value), ctypes.byref(prop),
                                                 CU_MEM_ALLOC_GRANULARITY_MINIMUM),
           "cuMemGetAllocationGranularity")
    return value.value


class _CudaArray:
    """Enough of __cuda_array_interface__ for torch.as_tensor to wrap the mapping (no copy)."""

    def __init__(self, pointer, nbytes):
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1",
                                         "data": (pointer, False), "version": 2}


_PROT_READ_WRITE, _MAP_SHARED, _MADV_DONTFORK = 3, 1, 10


def _map_without_descriptor(fd, nbytes):
    """A shared mapping of `fd` through libc, as a ctypes array that unmaps itself when the last
    tensor over it is gone. Python's mmap keeps a duplicate of the descriptor open while the
    mapping lives: a candidate's forked grandchild mapped the output buffers again through it
    (red team, session 13). MADV_DONTFORK: a child it forks does not inherit the mapping (a48)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    address = libc.mmap(None, nbytes, _PROT_READ_WRITE, _MAP_SHARED, fd, 0)
    if address is None or address == ctypes.c_void_p(-1).value:
        raise OSError(ctypes.get_errno(), f"mmap of a shared buffer failed ({nbytes} bytes)")
    if libc.madvise(address, nbytes, _MADV_DONTFORK) != 0:
        libc.munmap(address, nbytes)
        raise OSError(ctypes.get_errno(), "madvise(MADV_DONTFORK) of a shared buffer failed")
    mapping = type("SharedMapping", (ctypes.c_ubyte * nbytes,),
                   {"__del__": lambda self: libc.munmap(address, nbytes)})
    return mapping.from_address(address)


class SharedBuffer:
    """One shared allocation of `nbytes` on `device` ("cpu" or "cuda")."""

    def __init__(self, device, nbytes, fd=None):
        self.device = device
        self.nbytes = max(int(nbytes), 1)
        self._closed = False
        if device == "cpu":
            self._init_host(fd)
        else:
            self._init_cuda(fd)

    # ---- host --------------------------------------------------------------------------------

    def _init_host(self, fd):
        imported = fd is not None
        if fd is None:
            fd = os.memfd_create("kforge-shared", os.MFD_CLOEXEC)
            os.ftruncate(fd, self.nbytes)
        self.fd = fd
        if imported:  # the candidate's side: no descriptor left open, no mapping inherited
            self._map = _map_without_descriptor(fd, self.nbytes)
            self._forget_fd()
        else:
            self._map = mmap.mmap(fd, self.nbytes)
        self.raw = torch.frombuffer(self._map, dtype=torch.uint8, count=self.nbytes)

    def _forget_fd(self):
        os.close(self.fd)
        self.fd = None

    # ---- cuda --------------------------------------------------------------------------------

    def _init_cuda(self, fd):
        torch.cuda.init()
        torch.empty(1, device="cuda")  # the primary context is current on this thread
        device = torch.cuda.current_device()
        self.size = -(-self.nbytes // _granularity(device)) * _granularity(device)
        driver = _cuda()
        handle = ctypes.c_ulonglong()
        imported = fd is not None
        if fd is None:
            prop = _prop(device)
            _check(driver.cuMemCreate(ctypes.byref(handle), ctypes.c_size_t(self.size),
                                      ctypes.byref(prop), ctypes.c_ulonglong(0)), "cuMemCreate")
            exported = ctypes.c_int()
            _check(driver.cuMemExportToShareableHandle(
                ctypes.byref(exported), handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                ctypes.c_ulonglong(0)), "cuMemExportToShareableHandle")
            fd = exported.value
        else:
            _check(driver.cuMemImportFromShareableHandle(
                ctypes.byref(handle), ctypes.c_void_p(fd), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
                "cuMemImportFromShareableHandle")
        self.fd = fd
        self._handle = handle
        if imported:
            self._forget_fd()
        pointer = ctypes.c_ulonglong()
        _check(driver.cuMemAddressReserve(ctypes.byref(pointer), ctypes.c_size_t(self.size),
                                          ctypes.c_size_t(0), ctypes.c_ulonglong(0),
                                          ctypes.c_ulonglong(0)), "cuMemAddressReserve")
        self._pointer = pointer
        _check(driver.cuMemMap(pointer, ctypes.c_size_t(self.size), ctypes.c_size_t(0), handle,
                               ctypes.c_ulonglong(0)), "cuMemMap")
        access = _AccessDesc()
        access.location.type = CU_MEM_LOCATION_TYPE_DEVICE
        access.location.id = device
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE
        _check(driver.cuMemSetAccess(pointer, ctypes.c_size_t(self.size), ctypes.byref(access),
                                     ctypes.c_size_t(1)), "cuMemSetAccess")
        self.raw = torch.as_tensor(_CudaArray(pointer.value, self.nbytes), device="cuda")

    # ---- both --------------------------------------------------------------------------------

    def view(self, dtype, shape):
        """A contiguous tensor of `dtype` and `shape` over the first bytes of the buffer."""
        count = 1
        for size in shape:
            count *= int(size)
        nbytes = count * torch.empty((), dtype=dtype).element_size()
        if nbytes > self.nbytes:
            raise SharedMemoryError(f"a {list(shape)} {dtype} tensor ({nbytes} bytes) does not fit "
                                    f"a shared buffer of {self.nbytes} bytes")
        return self.raw[:nbytes].view(dtype).view(tuple(int(s) for s in shape))

    def close(self):
        if self._closed:
            return
        self._closed = True
        self.raw = None
        if self.device == "cpu":
            try:
                if isinstance(self._map, mmap.mmap):
                    self._map.close()
            except BufferError:  # a tensor over it is still alive: the mapping goes with it
                pass
            self._map = None  # the candidate side's: unmapped with the last tensor over it
        else:
            driver = _cuda()
            torch.cuda.synchronize()
            driver.cuMemUnmap(self._pointer, ctypes.c_size_t(self.size))
            driver.cuMemAddressFree(self._pointer, ctypes.c_size_t(self.size))
            driver.cuMemRelease(self._handle)
        if self.fd is not None:
            try:
                os.close(self.fd)
            except OSError:
                pass


def nbytes_of(tensor):
    return tensor.numel() * tensor.element_size()
