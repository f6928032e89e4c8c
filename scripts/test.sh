#!/usr/bin/env bash
# Builds dmlcpu and runs every test suite under ctest. Installs what is missing first
# (Debian 12, as root). Extra arguments go to cmake's configure step; BUILD_DIR picks the
# build folder (default: build).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/packages.sh
ensure_packages build-essential cmake ninja-build pkg-config libcriterion-dev libomp-dev libhwy-dev libsleef-dev \
    python3-numpy python3-onnx libonnx-testdata
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure -j2
