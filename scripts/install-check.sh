#!/usr/bin/env bash
# Installs dmlcpu into a temporary prefix, then builds and runs examples/reduce_sum.c against the
# install four ways: CMake's find_package with dmlcpu::dmlcpu and dmlcpu::dmlcpu_static, and
# pkg-config, shared and --static. Checks the SONAME, that the shared example really loads the
# installed libdmlcpu.so.0 and that the static one does not need it. BUILD_DIR: the library's
# build folder (default build-install); a folder that is already configured (CI passes the
# release build of scripts/test.sh) is brought up to date and installed as it is, any other is
# configured first. The install goes to a prefix given only at install time
# (cmake --install --prefix), which the package files must follow. Installs what is missing
# first (Debian 12, as root).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/packages.sh
ensure_packages build-essential cmake ninja-build pkg-config libomp-dev libsleef-dev binutils
build=${BUILD_DIR:-build-install}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

echo "-- build $build and install it into a temporary prefix"
if [ ! -e "$build/CMakeCache.txt" ]; then
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDMLCPU_BUILD_TESTS=OFF \
        -DDMLCPU_BUILD_BENCH=OFF >/dev/null
fi
cmake --build "$build" --target dmlcpu dmlcpu_static >/dev/null
cmake --install "$build" --prefix "$prefix" | sed "s|$prefix|<prefix>|"
libdir=$prefix/lib
soname=$(readelf -d "$libdir/libdmlcpu.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
echo "SONAME: $soname"
[ "$soname" = libdmlcpu.so.0 ] || { echo "expected SONAME libdmlcpu.so.0"; exit 1; }

# Tools' output is read whole before it is matched: with pipefail, `tool | grep -q` fails when grep
# quits at its match before the tool has written the rest (SIGPIPE), as ldd does on a busy machine.
needs_dmlcpu() { local d; d=$(readelf -d "$1"); grep -q 'NEEDED.*\[libdmlcpu\.so\.0\]' <<<"$d"; }
run() { # name, executable, shared|static
    out=$("$2")
    echo "$1: $out"
    [ "${out%% on *}" = "[[6, 6, 9]]" ] || { echo "$1: wrong result"; exit 1; }
    if [ "$3" = shared ]; then
        needs_dmlcpu "$2" || { echo "$1: does not link libdmlcpu.so.0"; exit 1; }
        deps=$(ldd "$2")
        loaded=$(sed -n 's/^[[:space:]]*libdmlcpu\.so\.0 => \(.*\) (0x[0-9a-f]*)$/\1/p' <<<"$deps")
        [ -n "$loaded" ] && [ "$loaded" -ef "$libdir/libdmlcpu.so.0" ] ||
            { echo "$1: did not load the installed libdmlcpu.so.0:"; echo "$deps"; exit 1; }
    else
        ! needs_dmlcpu "$2" || { echo "$1: a static build needs libdmlcpu.so.0"; exit 1; }
    fi
}

echo "-- CMake: find_package(dmlcpu CONFIG)"
cmake -S examples -B "$work/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
run "cmake, dmlcpu::dmlcpu" "$work/cmake/reduce_sum_shared" shared
run "cmake, dmlcpu::dmlcpu_static" "$work/cmake/reduce_sum_static" static

echo "-- pkg-config"
export PKG_CONFIG_PATH=$libdir/pkgconfig
echo "pkg-config --cflags --libs dmlcpu: $(pkg-config --cflags --libs dmlcpu | sed "s|$prefix|<prefix>|g")"
echo "pkg-config --static --libs dmlcpu: $(pkg-config --static --libs dmlcpu | sed "s|$prefix|<prefix>|g")"
cc -O2 -o "$work/pc_shared" examples/reduce_sum.c $(pkg-config --cflags --libs dmlcpu) \
    -Wl,-rpath,"$libdir"
run "pkg-config, shared" "$work/pc_shared" shared
# -Bstatic picks libdmlcpu.a; --as-needed then drops the shared one that --libs names again.
cc -O2 -o "$work/pc_static" examples/reduce_sum.c $(pkg-config --cflags dmlcpu) \
    -Wl,-Bstatic -ldmlcpu -Wl,-Bdynamic -Wl,--as-needed $(pkg-config --static --libs dmlcpu)
run "pkg-config, static" "$work/pc_static" static
echo "install check passed"
