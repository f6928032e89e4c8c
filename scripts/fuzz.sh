#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang 14, ASan + UBSan) and runs each for SECONDS
# (default 60) on a copy of its committed seed corpus (fuzz/corpus/<target>), the targets side by
# side (one process each: a 2-core machine runs both at once). Usage:
# scripts/fuzz.sh [SECONDS] [TARGET...] (targets: fuzz_reduce fuzz_copy).
# BUILD_DIR picks the build folder (default build-fuzz); inputs the run finds worth keeping go to
# BUILD_DIR/corpus/<target>, a crashing input to BUILD_DIR/artifacts/. Exits non-zero on a crash.
# The portable (Highway) tier is left out unless FUZZ_PORTABLE=ON: clang compiles its templates
# with ASan for over ten minutes a file on a 2-core machine. The fuzzed validation, planning and
# dispatch code is the same for every tier; the portable kernels' memory accesses are checked by
# the ASan build of the suites (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/packages.sh
ensure_packages build-essential cmake ninja-build pkg-config clang-14 libclang-rt-14-dev libomp-dev \
    libhwy-dev libsleef-dev
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_reduce fuzz_copy)
build=${BUILD_DIR:-build-fuzz}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang-14 \
    -DCMAKE_CXX_COMPILER=clang++-14 -DDMLCPU_FUZZ=ON -DDMLCPU_BUILD_TESTS=OFF -DDMLCPU_BUILD_BENCH=OFF \
    -DDMLCPU_PORTABLE="${FUZZ_PORTABLE:-OFF}"
cmake --build "$build" -j2 --target "${targets[@]}"
# LeakSanitizer runs after every input and at exit. The suppressions are the sanitizer suites'
# (tests/lsan.supp): LLVM's OpenMP runtime keeps its worker threads' structures until the
# process ends, which the exit check reported once after a 30-minute run (11 blocks of libomp).
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp
echo "== ${targets[*]}: ${seconds} s each, side by side"
pids=()
for t in "${targets[@]}"; do
    mkdir -p "$build/corpus/$t" "$build/artifacts"
    # The working corpus comes first: new inputs are written there, never into the seeds.
    "$build/fuzz/$t" -max_total_time="$seconds" -max_len=512 -timeout=20 -rss_limit_mb=4096 \
        -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" \
        "$build/corpus/$t" "fuzz/corpus/$t" >"$build/$t.log" 2>&1 &
    pids+=($!)
done
status=0
for i in "${!targets[@]}"; do
    t=${targets[$i]}
    if ! wait "${pids[$i]}"; then
        tail -n 60 "$build/$t.log"
        echo "$t: crash (the input is in $build/artifacts, the log in $build/$t.log)"
        status=1
        continue
    fi
    # the last progress line (executions, coverage, features, corpus) and the final stats
    echo "== $t"
    grep -E '^#[0-9]+' "$build/$t.log" | tail -n 1
    grep -E '^stat::' "$build/$t.log"
done
exit $status
