#!/usr/bin/env bash
# Builds dmlcpu and its benchmark, runs the default matrix and the peers (numpy, PyTorch,
# oneDNN) and writes the table, JSON and plot into results/<date-time>/. Installs what is missing
# first (Debian 12, as root). Arguments go to dmlcpu-bench (see bench/run).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/packages.sh
ensure_packages build-essential cmake ninja-build pkg-config libomp-dev \
    python3-numpy python3-matplotlib python3-torch libdnnl-dev
exec bench/run --peers "$@"
