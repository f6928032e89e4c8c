#!/usr/bin/env bash
# The cross-architecture check of SPEC 4 ("same bits on every machine"): runs tests/hashcheck
# (one hash of the output bytes per operator of a fixed list) natively at every x86 level the
# host has (the portable level once per Highway target: sse4, avx2, avx3), with 1, 3 and 16
# threads; on an emulated x86 CPU without AVX (qemu-x86_64 -cpu Nehalem: the portable level
# runs Highway's SSE4 target); and under qemu-aarch64 at the scalar, neon and portable levels
# (NEON target on neoverse-n1 with 1 and 3 threads; SVE and SVE2 on qemu's "max" CPU at
# 128-bit vectors with 1 thread, SVE at 2048-bit vectors with 3 threads). One process runs all the levels and thread counts of one machine (it
# checks that they agree); every process must print the same lines. Prints the differing lines
# and exits 1 otherwise. The processes run HASHCHECK_JOBS at a time (default 2: most of them
# are one emulated thread).
#
#   scripts/hashcheck.sh [X86_BUILD [AARCH64_BUILD]]   (defaults: build, build-aarch64)
#
# Builds are made by scripts/test.sh and scripts/test-aarch64.sh; a build folder that does not
# exist is an error, so CI cannot pass by leaving one architecture out.
set -euo pipefail
cd "$(dirname "$0")/.."
x86=${1:-build}
arm=${2:-build-aarch64}
for b in "$x86" "$arm"; do
    [ -x "$b/tests/hashcheck" ] || { echo "hashcheck: $b/tests/hashcheck not built" >&2; exit 1; }
done
command -v qemu-x86_64 > /dev/null || { echo "hashcheck: qemu-x86_64 missing (qemu-user)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# run NAME LEVELS THREADS PROGRAM [RUNNER...]: one process into $out/NAME, running every
# operator at each of the comma-separated LEVELS (the tests' names: portable_<target> is the
# portable level at one Highway target) with each of the comma-separated THREADS; it fails when
# a level does not run there or two of its runs differ. Its stderr summary is echoed.
# The run goes to the background (at most $jobs at once); $out/NAME.ok marks its success.
jobs=${HASHCHECK_JOBS:-2}
names=()
run() {
    local name=$1 levels=$2 threads=$3 prog=$4
    shift 4
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    names+=("$name")
    {
        if "$@" "$prog" --levels "$levels" --threads "$threads" > "$out/$name" 2> "$out/$name.err"; then
            printf '%-22s %s\n' "$name" "$(cat "$out/$name.err")"
            touch "$out/$name.ok"
        else
            cat "$out/$name.err" >&2
            grep FAILED "$out/$name" >&2 || true
            echo "hashcheck: the $name run failed" >&2
        fi
    } &
}

start=$SECONDS
detected=$(DMLCPU_ISA=scalar "$x86/tests/hashcheck" --levels scalar --threads 1 2>&1 > /dev/null |
           sed -n 's/^hashcheck: detected \([a-z0-9]*\),.*/\1/p')
levels="scalar,portable_sse4"
case $detected in
    avx2) levels="$levels,portable_avx2,avx2" ;;
    avx512) levels="$levels,portable_avx2,portable_avx3,avx2,avx512" ;;
esac
run x86 "$levels" 1,3,16 "$x86/tests/hashcheck"
run x86-nehalem portable_sse4 1,3 "$x86/tests/hashcheck" qemu-x86_64 -cpu Nehalem
QEMU_CPU=neoverse-n1 run aarch64-neoverse-n1 scalar,neon,portable_neon 1,3 "$arm/tests/hashcheck" \
    scripts/qemu-aarch64-run
# qemu emulates SVE slowly (most of these runs' time is the library): two levels at 128-bit
# vectors, one at 2048-bit vectors with 3 threads.
QEMU_CPU=max,sve-default-vector-length=16 run aarch64-sve-vl16 portable_sve,portable_sve2 1 \
    "$arm/tests/hashcheck" scripts/qemu-aarch64-run
QEMU_CPU=max,sve-default-vector-length=256 run aarch64-sve-vl256 portable_sve 3 \
    "$arm/tests/hashcheck" scripts/qemu-aarch64-run
wait
for name in "${names[@]}"; do
    [ -e "$out/$name.ok" ] || exit 1
done
grep -q "detected portable," "$out/x86-nehalem.err" ||
    { echo "hashcheck: the Nehalem CPU was not detected as portable" >&2; exit 1; }
grep -q "detected neon," "$out/aarch64-neoverse-n1.err" ||
    { echo "hashcheck: qemu-aarch64 did not run the neon level" >&2; exit 1; }

status=0
for f in "$out"/*; do
    case $f in *.err|*.ok) continue ;; esac
    if ! cmp -s "$out/x86" "$f"; then
        echo "hashcheck: $(basename "$f") differs from x86:" >&2
        diff "$out/x86" "$f" >&2 || true
        status=1
    fi
done
ops=$(wc -l < "$out/x86")
[ $status = 0 ] && echo "hashcheck: $ops operators; x86 $levels at 1, 3 and 16 threads; Nehalem portable_sse4; aarch64 scalar, neon, portable_neon at 1 and 3 threads, portable_sve and portable_sve2 at 128-bit vectors, portable_sve at 2048-bit vectors with 3 threads: all identical ($((SECONDS - start)) s)"
exit $status
