# (red team round 2, session 15) bubblewrap's --dev tmpfs was unsized; it is read-only now.
# honest softmax; at import, 4 files of 1 GiB written (libc) into the sandbox's /dev (bubblewrap's
# --dev tmpfs: is it sized? are closed files there counted against host memory?)
# helpers via libc (no Python audit events); imported by candidates via exec of source text
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
for n in ['open', 'write', 'close', 'unlink', 'socketpair', 'sendmsg', 'memfd_create', 'shmget', 'shmat', 'shmdt', 'ftruncate', 'mkdir']:
    getattr(libc, n)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
libc.write.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
libc.write.restype = ctypes.c_ssize_t
libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]

class iovec(ctypes.Structure):
    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]
class msghdr(ctypes.Structure):
    _fields_ = [('name', ctypes.c_void_p), ('namelen', ctypes.c_uint), ('iov', ctypes.POINTER(iovec)),
                ('iovlen', ctypes.c_size_t), ('control', ctypes.c_void_p), ('controllen', ctypes.c_size_t),
                ('flags', ctypes.c_int)]
class cmsg1(ctypes.Structure):
    _fields_ = [('len', ctypes.c_size_t), ('level', ctypes.c_int), ('type', ctypes.c_int), ('fd', ctypes.c_int), ('pad', ctypes.c_int)]

def cwrite_file(path, nbytes, chunk=1 << 20):
    fd = libc.open(path.encode(), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    if fd < 0: return -ctypes.get_errno()
    buf = ctypes.create_string_buffer(b'z' * chunk, chunk)
    n = 0
    while n < nbytes:
        r = libc.write(fd, buf, min(chunk, nbytes - n))
        if r <= 0: n = -ctypes.get_errno() if n == 0 else n; break
        n += r
    libc.close(fd)
    return n

def sockpair():
    sv = (ctypes.c_int * 2)()
    r = libc.socketpair(1, 2, 0, sv)  # AF_UNIX, SOCK_DGRAM
    return (sv[0], sv[1]) if r == 0 else (-ctypes.get_errno(), None)

def send_fd(sock, fd):
    b = ctypes.create_string_buffer(b'x', 1)
    io = iovec(ctypes.cast(b, ctypes.c_void_p), 1)
    c = cmsg1(ctypes.sizeof(ctypes.c_size_t) + 8 + 4, 1, 1, fd, 0)
    m = msghdr(None, 0, ctypes.pointer(io), 1, ctypes.cast(ctypes.pointer(c), ctypes.c_void_p), 24, 0)
    r = libc.sendmsg(sock, ctypes.byref(m), 0)
    return r if r >= 0 else -ctypes.get_errno()

def memfd_filled(nbytes, chunk=16 << 20):
    fd = libc.memfd_create(b'rt16', 0)
    if fd < 0: return -ctypes.get_errno()
    buf = ctypes.create_string_buffer(b'q' * chunk, chunk)
    n = 0
    while n < nbytes:
        r = libc.write(fd, buf, min(chunk, nbytes - n))
        if r <= 0: break
        n += r
    return fd
import torch, torch.nn as nn, time

import triton
import triton.language as tl

@triton.jit
def softmax_row_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    numerator = tl.exp(x)
    y = numerator / tl.sum(numerator, axis=0)
    tl.store(y_ptr + row * y_stride + cols, y, mask=mask)

def honest_softmax(x):
    x = x.contiguous()
    rows, cols = x.shape
    y = torch.empty_like(x)
    softmax_row_kernel[(rows,)](x, y, cols, x.stride(0), y.stride(0), BLOCK=triton.next_power_of_2(cols))
    return y

s = os.statvfs('/dev')
print("statvfs /dev:", s.f_blocks * s.f_frsize >> 20, "MiB", flush=True)
LOG = [cwrite_file(f'/dev/rt16_{i}', (1 << 30) - (1 << 20), chunk=16 << 20) for i in range(4)]
print("written to /dev:", LOG, flush=True)
if sum(n for n in LOG if isinstance(n, int) and n > 0) > 1 << 20:  # /dev took it: not read-only
    os._exit(7)

class ModelNew(nn.Module):
    def forward(self, x):
        time.sleep(0.5)
        return honest_softmax(x)
