#!/usr/bin/env bash
# Builds dmlcpu for AArch64 with the cross compiler and runs every test suite under ctest in
# qemu-user (CPU neoverse-n1: Advanced SIMD, no SVE). Installs what is missing first (Debian 12,
# as root): the cross compilers, arm64 run-time libraries (multiarch), qemu-user with its binfmt
# entries, and Criterion for arm64, unpacked into .deps/arm64 because Debian's Criterion cannot
# be installed for amd64 and arm64 at once. Extra arguments go to cmake's configure step;
# BUILD_DIR picks the build folder (default: build-aarch64). Exits 0 only when every test ran
# and passed. On an ARM machine, use scripts/test.sh instead (a native build).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/packages.sh

if ! grep -qx arm64 <<<"$(dpkg --print-foreign-architectures)"; then
    echo "adding the arm64 architecture to dpkg"
    dpkg --add-architecture arm64
    apt-get -o DPkg::Lock::Timeout=900 update -qq
fi
ensure_packages build-essential cmake ninja-build pkg-config util-linux \
    gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user qemu-user-binfmt \
    libc6:arm64 libgomp1:arm64 libgit2-1.5:arm64 libffi8:arm64 libhwy-dev:arm64 libsleef-dev:arm64

# Criterion for arm64 (headers, library, and its nanomsg, which is not multiarch either).
deps=$PWD/.deps/arm64
if [ ! -e "$deps/usr/lib/aarch64-linux-gnu/libcriterion.so" ] ||
   [ ! -e "$deps/usr/lib/aarch64-linux-gnu/libnanomsg.so.5" ]; then
    echo "unpacking Criterion for arm64 into .deps/arm64"
    debs=$(mktemp -d)
    chmod 755 "$debs" # apt's download user must be able to write there
    chown _apt "$debs" 2>/dev/null || true
    (cd "$debs" && apt-get download -q libcriterion-dev:arm64 libcriterion3:arm64 libnanomsg5:arm64) ||
        { apt-get -o DPkg::Lock::Timeout=900 update -qq &&
          (cd "$debs" && apt-get download -q libcriterion-dev:arm64 libcriterion3:arm64 libnanomsg5:arm64); }
    rm -rf "$deps"
    mkdir -p "$deps"
    for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$deps"; done
    rm -rf "$debs"
fi

build=${BUILD_DIR:-build-aarch64}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" "$@"
cmake --build "$build"

# The emulated CPU must be detected as NEON, or the neon suites would run the scalar level.
smoke=$(scripts/qemu-aarch64-run "$build/tests/smoke" 2>&1) || { echo "$smoke" >&2; exit 1; }
echo "under qemu-aarch64: $(echo "$smoke" | head -n 1)"
grep -qx "detected ISA: neon" <<<"$smoke" || { echo "expected neon under qemu-aarch64" >&2; exit 1; }

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
ctest --test-dir "$build" --output-on-failure -j2 2>&1 | tee "$log" || status=$?
# A skipped suite would mean a level did not run: that is a failure here.
if grep -q "tests did not run" "$log"; then
    echo "some tests did not run under qemu-aarch64" >&2
    status=1
fi
exit $status
