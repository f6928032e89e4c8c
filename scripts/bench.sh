#!/usr/bin/env bash
# Builds dmlcpu and its benchmark, runs the default matrix and the peers (numpy, PyTorch,
# oneDNN, ONNX Runtime) and writes the table, JSON and plot into results/<date-time>/. Installs
# what is missing first (Debian 12, as root; onnxruntime-node from npm into .deps/ort). A peer
# that cannot be installed is skipped with a note. Arguments go to dmlcpu-bench (see bench/run).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/packages.sh
ensure_packages build-essential cmake ninja-build pkg-config libomp-dev libhwy-dev libsleef-dev \
    python3-numpy python3-matplotlib python3-torch libdnnl-dev python3-onnx

# ONNX Runtime for the ort peer: npm's onnxruntime-node, whose package already holds
# libonnxruntime for linux x64 and arm64 (ONNXRUNTIME_NODE_INSTALL=skip keeps its post-install
# step from downloading anything). Node and npm come from Debian when the machine has none.
ort_version=1.30.0
ort_dir=.deps/ort
if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
    ensure_packages nodejs npm || echo "nodejs and npm could not be installed"
fi
if grep -qs "\"version\": \"$ort_version\"" "$ort_dir/node_modules/onnxruntime-node/package.json"; then
    :
elif ! command -v npm >/dev/null || ! command -v node >/dev/null; then
    echo "node or npm not found: the ort peer will be skipped"
else
    echo "installing onnxruntime-node@$ort_version into $ort_dir"
    mkdir -p "$ort_dir"
    ONNXRUNTIME_NODE_INSTALL=skip npm install --prefix "$ort_dir" --no-audit --no-fund \
        "onnxruntime-node@$ort_version" >"$ort_dir/npm.log" 2>&1 ||
        echo "onnxruntime-node could not be installed (see $ort_dir/npm.log): the ort peer will be skipped"
fi
exec bench/run --peers "$@"
