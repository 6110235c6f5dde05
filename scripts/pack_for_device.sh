#!/usr/bin/env bash
# Packs a built kforge with the shared libraries it needs into .carry/ so that it runs on a GPU box
# that has no Debian -dev packages (different distribution, no apt). glibc, libstdc++ and libgcc
# are left to the target (it must be at least as new: checked on the device in its first call).
# It also carries bubblewrap and libseccomp (the candidate's confinement, docs/trust.md): the GPU
# box has neither; `source .carry/env.sh` there sets KFORGE_BWRAP and the library path.
# Usage: scripts/pack_for_device.sh [build-dir]   → .carry/bin/kforge, .carry/lib/*.so*,
#        .carry/kb (KernelBench levels 1-3), .carry/build_cache.tgz kept
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
# A build cache made on the device (gpu_proof.sh s15_prebuild: $OUT/build_cache.tgz) survives a
# repack: without it a fresh device builds each RNN kernel with nvcc (51-61 s each).
cache=$(mktemp -d)
[ -f .carry/build_cache.tgz ] && mv .carry/build_cache.tgz "$cache/"
rm -rf .carry && mkdir -p .carry/bin .carry/lib
[ -f "$cache/build_cache.tgz" ] && mv "$cache/build_cache.tgz" .carry/
rmdir "$cache" 2>/dev/null || true
# The public KernelBench files the corpora and gpu_proof.sh name (the device has no ../shared;
# tests/run_corpora.py looks in .carry/kb).
for level in level1 level2 level3; do
  if [ -d ../shared/kernelbench/$level ]; then
    mkdir -p .carry/kb && cp -r ../shared/kernelbench/$level .carry/kb/
  fi
done
cp "$build/kforge" .carry/bin/
strip .carry/bin/kforge  # debug info would take the carry over the device's 64 MiB
bwrap=$(command -v bwrap || true)
[ -n "$bwrap" ] && cp "$bwrap" .carry/bin/bwrap.real
seccomp=$(ldconfig -p | awk '/libseccomp\.so\.2 /{print $NF; exit}')
mkdir -p .carry/seccomp  # a folder of its own: only it goes on the box's library path
[ -n "$seccomp" ] && cp -L "$seccomp" .carry/seccomp/libseccomp.so.2
{ ldd "$build/kforge"; if [ -n "$bwrap" ]; then ldd "$bwrap"; fi; } | awk '/=> \//{print $3}' | sort -u |
while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libresolv.so*|ld-linux*|libstdc++.so*|libgcc_s.so*) ;;
    *) cp -L "$lib" .carry/lib/ ;;
  esac
done
cat > .carry/bin/kforge-run <<'EOS'
#!/usr/bin/env bash
# Runs the carried kforge with its libraries.
here=$(cd "$(dirname "$0")/.." && pwd)
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/bin/kforge" "$@"
EOS
chmod +x .carry/bin/kforge-run
cat > .carry/bin/bwrap <<'EOS'
#!/usr/bin/env bash
# Runs the carried bubblewrap with its libraries (libcap, libselinux).
here=$(cd "$(dirname "$0")/.." && pwd)
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/bin/bwrap.real" "$@"
EOS
chmod +x .carry/bin/bwrap
cat > .carry/env.sh <<'EOS'
# source .carry/env.sh on the GPU box: the carried confinement tools.
carry=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ -x "$carry/bin/bwrap.real" ] && export KFORGE_BWRAP="$carry/bin/bwrap"
export LD_LIBRARY_PATH="$carry/seccomp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
EOS
du -sh .carry
