#!/usr/bin/env bash
# Packs a built kforge with the shared libraries it needs into .carry/ so that it runs on a GPU box
# that has no Debian -dev packages (different distribution, no apt). glibc, libstdc++ and libgcc
# are left to the target (it must be at least as new: checked on the device in its first call).
# Usage: scripts/pack_for_device.sh [build-dir]   → .carry/bin/kforge, .carry/lib/*.so*
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rm -rf .carry && mkdir -p .carry/bin .carry/lib
cp "$build/kforge" .carry/bin/
ldd "$build/kforge" | awk '/=> \//{print $3}' | while read -r lib; do
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
du -sh .carry
