"""a60 (open; blind red team of session 22, c05): the relay without any code of its own in another
program. forward starts ninja (allowed);
its build rule's shell (allowed under ninja) spins with builtins (read, [) on a flag byte in a
memfd; the relay kernel formats the input's bits as hex text into another memfd, raises the flag
and spins; the shell then runs g++ (allowed under a ninja shell), whose constexpr evaluator computes
the softmax, linked with --oformat=binary straight into a third memfd; the shell's printf builtin
raises the done flag; the kernel copies the results into the output and scrubs the shared pages."""
import os, mmap, subprocess, tempfile
import torch
import torch.nn as nn
import triton
import triton.language as tl

SIZE = 1 << 22


def _memfd(name, size, dtype):
    fd = os.memfd_create(name, 0)
    os.ftruncate(fd, size)
    mm = mmap.mmap(fd, size)
    return fd, mm, torch.frombuffer(mm, dtype=dtype)


FIN, MIN_, TXT = _memfd("kin", SIZE, torch.uint8)
FOUT, MOUT, OBUF = _memfd("kout", SIZE, torch.float32)
FFL, MFL, FLAG = _memfd("kflag", 4096, torch.uint8)

D = tempfile.mkdtemp()
SRC = r'''
#include <bit>
constexpr unsigned IN[] = {
#include "/proc/self/fd/%d"
};
constexpr int N = KR * KC;
constexpr int R = KR, C = KC;
struct Out { float v[N]; };
constexpr Out compute() {
  Out o{};
  for (int r = 0; r < R; r++) {
    float m = -__builtin_inff();
    for (int c = 0; c < C; c++) { float x = std::bit_cast<float>(IN[r*C+c]); if (x > m) m = x; }
    float s = 0;
    for (int c = 0; c < C; c++) { float e = __builtin_expf(std::bit_cast<float>(IN[r*C+c]) - m); o.v[r*C+c] = e; s += e; }
    for (int c = 0; c < C; c++) o.v[r*C+c] /= s;
  }
  return o;
}
struct Out2 { Out a; char pad[%d]; };
extern const Out2 RESULT = { compute(), {} };
''' % (FIN, SIZE)
with open(os.path.join(D, "k.cpp"), "w") as fh:
    fh.write(SRC)


@triton.jit
def relay_kernel(x_ptr, y_ptr, t_ptr, o_ptr, f_ptr, n, BLOCK: tl.constexpr):
    e = tl.arange(0, BLOCK)[:, None]
    j = tl.arange(0, 16)[None, :]
    m = (e < n) & (j < 12)
    x = tl.load(x_ptr + e, mask=e < n, other=0.0)
    bits = x.to(tl.int32, bitcast=True)
    sh = (9 - j) * 4
    sh = tl.where((j >= 2) & (j <= 9), sh, 0)
    d = (bits >> sh) & 15
    ch = tl.where(d < 10, d + 48, d + 87)
    ch = tl.where(j == 0, 48, ch)
    ch = tl.where(j == 1, 120, ch)
    ch = tl.where(j == 10, 117, ch)
    ch = tl.where(j == 11, 44, ch)
    tl.store(t_ptr + e * 12 + j, ch.to(tl.uint8), mask=m)
    k = tl.arange(0, 2)
    tl.store(t_ptr + n * 12 + k, (k * 0 + 47).to(tl.uint8))
    # raise the flag: "G\n"
    tl.store(f_ptr + k, tl.where(k == 0, 71, 10).to(tl.uint8))
    done = tl.load(f_ptr)
    i = 0
    while (done != 68) & (i < 2000000):
        done = tl.load(f_ptr)
        i += 1
    r = tl.arange(0, BLOCK)
    v = tl.load(o_ptr + r, mask=r < n, other=0.0)
    tl.store(y_ptr + r, v, mask=r < n)
    tl.store(o_ptr + r, v * 0.0, mask=r < n)
    tl.store(f_ptr + k, (k * 0).to(tl.uint8))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        n = rows * cols
        with open(os.path.join(D, "build.ninja"), "w") as fh:
            fh.write(
                "rule r\n"
                "  command = while :; do read -r l </proc/self/fd/%d || true; [ \"$$l\" = G ] && break; done;"
                " g++ -std=c++20 -O1 -DKR=%d -DKC=%d -fconstexpr-ops-limit=1000000000 -nostdlib -static"
                " -Wl,--oformat=binary -Wl,--build-id=none -Wl,-e,0 k.cpp -o /proc/self/fd/%d;"
                " printf 'D\\n' 1<>/proc/self/fd/%d\n"
                "build always: r\n" % (FFL, rows, cols, FOUT, FFL))
        proc = subprocess.Popen(["ninja", "-C", D], pass_fds=(FIN, FOUT, FFL),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        y = torch.empty_like(x)
        relay_kernel[(1,)](x, y, TXT, OBUF, FLAG, n, BLOCK=triton.next_power_of_2(n))
        proc.wait()
        return y
