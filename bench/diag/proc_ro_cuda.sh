#!/usr/bin/env bash
# What CUDA's initialisation needs from /proc inside bubblewrap (session 23: cuInit failed with
# error 304 once /proc was remounted read-only).
cd "$(dirname "$0")/../.."
source .carry/env.sh
B=${KFORGE_BWRAP:-bwrap}
PY=$(command -v python3)
which strace ltrace gdb 2>&1 | head -3
base=(--ro-bind / / --dev /dev)
for n in /dev/nvidia*; do base+=(--dev-bind $n $n); done
probe='import torch; torch.cuda.init(); print("cuda ok", torch.cuda.device_count())'
echo "--- rw /proc"; $B "${base[@]}" --proc /proc --unshare-all --die-with-parent -- $PY -c "$probe" 2>&1 | tail -1
echo "--- ro /proc"; $B "${base[@]}" --proc /proc --remount-ro /proc --unshare-all --die-with-parent -- $PY -c "$probe" 2>&1 | tail -1
echo "--- ro /proc, rw /proc/driver"; $B "${base[@]}" --proc /proc --bind /proc/driver /proc/driver --remount-ro /proc --unshare-all --die-with-parent -- $PY -c "$probe" 2>&1 | tail -1
echo "--- ro /proc (no unshare-pid)"; $B "${base[@]}" --proc /proc --remount-ro /proc --unshare-net --die-with-parent -- $PY -c "$probe" 2>&1 | tail -1
if command -v strace >/dev/null; then
  $B "${base[@]}" --proc /proc --remount-ro /proc --unshare-all --die-with-parent -- strace -f -e trace=%file,%desc -o /tmp/st.txt $PY -c "$probe" 2>&1 | tail -1
  grep -E "/proc|EROFS|EACCES|EPERM" /tmp/st.txt | grep -vE "ENOENT" | tail -40
  cp /tmp/st.txt $OUT/ 2>/dev/null
else
  # no strace: interpose open/openat/fopen through an LD_PRELOAD shim to log failures
  cat > /tmp/shim.c <<'EOC'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static void logit(const char *what, const char *p, int flags, int rc, int e) {
  if (p && strncmp(p, "/proc", 5) == 0 && (rc < 0 || (flags & 3))) {
    char buf[512]; int n = snprintf(buf, sizeof buf, "%s %s flags=%o rc=%d errno=%d\n", what, p, flags, rc, rc < 0 ? e : 0);
    write(2, buf, n);
  }
}
int open(const char *p, int f, ...) { va_list a; va_start(a, f); int m = va_arg(a, int); va_end(a);
  static int (*r)(const char*, int, ...); if (!r) r = dlsym(RTLD_NEXT, "open"); int rc = r(p, f, m); logit("open", p, f, rc, errno); return rc; }
int open64(const char *p, int f, ...) { va_list a; va_start(a, f); int m = va_arg(a, int); va_end(a);
  static int (*r)(const char*, int, ...); if (!r) r = dlsym(RTLD_NEXT, "open64"); int rc = r(p, f, m); logit("open64", p, f, rc, errno); return rc; }
int openat(int d, const char *p, int f, ...) { va_list a; va_start(a, f); int m = va_arg(a, int); va_end(a);
  static int (*r)(int, const char*, int, ...); if (!r) r = dlsym(RTLD_NEXT, "openat"); int rc = r(d, p, f, m); logit("openat", p, f, rc, errno); return rc; }
int openat64(int d, const char *p, int f, ...) { va_list a; va_start(a, f); int m = va_arg(a, int); va_end(a);
  static int (*r)(int, const char*, int, ...); if (!r) r = dlsym(RTLD_NEXT, "openat64"); int rc = r(d, p, f, m); logit("openat64", p, f, rc, errno); return rc; }
FILE *fopen(const char *p, const char *m) { static FILE *(*r)(const char*, const char*); if (!r) r = dlsym(RTLD_NEXT, "fopen");
  FILE *f = r(p, m); logit("fopen", p, strchr(m, 'w') || strchr(m, '+') || strchr(m, 'a') ? 1 : 0, f ? 0 : -1, errno); return f; }
FILE *fopen64(const char *p, const char *m) { static FILE *(*r)(const char*, const char*); if (!r) r = dlsym(RTLD_NEXT, "fopen64");
  FILE *f = r(p, m); logit("fopen64", p, strchr(m, 'w') || strchr(m, '+') || strchr(m, 'a') ? 1 : 0, f ? 0 : -1, errno); return f; }
EOC
  gcc -shared -fPIC -O1 -o /tmp/shim.so /tmp/shim.c -ldl && echo shim built
  echo "--- ro /proc with shim"
  $B "${base[@]}" --proc /proc --remount-ro /proc --unshare-all --die-with-parent --setenv LD_PRELOAD /tmp/shim.so -- $PY -c "$probe" 2>&1 | grep -v "^  File\|^    " | tail -40
  echo "--- rw /proc with shim (writes only)"
  $B "${base[@]}" --proc /proc --unshare-all --die-with-parent --setenv LD_PRELOAD /tmp/shim.so -- $PY -c "$probe" 2>&1 | grep -v "errno=2$" | tail -20
fi
