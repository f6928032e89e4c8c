#!/usr/bin/env bash
# Builds the concurrency suite (tests/test_threads.c, run in one process) with ThreadSanitizer
# (clang 14) and runs it:
# threads executing one operator at once, host pools on pthreads, creates and destroys while other
# threads execute. The build has no OpenMP (TSan cannot see inside its runtime, and would report
# it): every thread is a pthread of the suite or of its host pool. The portable (Highway) tier is
# left out to keep the build short; its kernels are single-threaded, and the threading code is the
# same for every tier. BUILD_DIR picks the build folder (default build-tsan).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/packages.sh
ensure_packages build-essential cmake ninja-build pkg-config clang-14 libclang-rt-14-dev \
    libcriterion-dev libsleef-dev
build=${BUILD_DIR:-build-tsan}
flags="-fsanitize=thread -fno-omit-frame-pointer -g"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang-14 \
    -DCMAKE_CXX_COMPILER=clang++-14 "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" \
    -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread \
    -DCMAKE_DISABLE_FIND_PACKAGE_OpenMP=ON -DDMLCPU_PORTABLE=OFF -DDMLCPU_BUILD_BENCH=OFF
cmake --build "$build" -j2 --target test_threads_inprocess
# The suite without Criterion (tests/inprocess.h): Criterion's worker processes cannot map their
# shared arena under TSan. halt_on_error: the first race fails the run.
TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1" \
    "$build/tests/test_threads_inprocess"
