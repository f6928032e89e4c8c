#!/usr/bin/env bash
# The cross-architecture check of SPEC 4 ("same bits on every machine"): runs tests/hashcheck
# (one hash of the output bytes per operator of a fixed list) natively at every x86 level the
# host has (the portable level once per Highway target: sse4, avx2, avx3), with 1, 3 and 16
# threads; on an emulated x86 CPU without AVX (qemu-x86_64 -cpu Nehalem: the portable level
# runs Highway's SSE4 target); and under qemu-aarch64 at the scalar, neon and portable levels
# (NEON target on neoverse-n1, SVE and SVE2 on qemu's "max" CPU at 128-, 512- and 2048-bit
# vectors). Every run must print the same lines. Prints the differing lines and exits 1
# otherwise.
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

# run NAME LEVEL THREADS PROGRAM [RUNNER...]: one run into $out/NAME, its stderr summary echoed.
# LEVEL is an ISA level, or portable:TARGET for the portable level at one Highway target; the
# run must then report that target, or the check would compare another one.
run() {
    local name=$1 level=$2 threads=$3 prog=$4 target=
    shift 4
    case $level in portable:*) target=${level#portable:}; level=portable ;; esac
    if ! DMLCPU_ISA=$level DMLCPU_PORTABLE_TARGET=$target "$@" "$prog" --threads "$threads" \
            > "$out/$name" 2> "$out/$name.err"; then
        cat "$out/$name.err" >&2
        grep FAILED "$out/$name" >&2 || true
        echo "hashcheck: the $name run failed" >&2
        exit 1
    fi
    if [ -n "$target" ] && ! grep -q "portable target $target," "$out/$name.err"; then
        cat "$out/$name.err" >&2
        echo "hashcheck: the $name run did not run the portable level's $target target" >&2
        exit 1
    fi
    printf '%-28s %s\n' "$name" "$(cat "$out/$name.err")"
}

start=$SECONDS
run x86-scalar-1 scalar 1 "$x86/tests/hashcheck"
detected=$(sed -n 's/^hashcheck: detected \([a-z0-9]*\),.*/\1/p' "$out/x86-scalar-1.err")
levels="scalar portable:sse4"
case $detected in
    avx2) levels="$levels portable:avx2 avx2" ;;
    avx512) levels="$levels portable:avx2 portable:avx3 avx2 avx512" ;;
esac
for level in $levels; do
    for threads in 1 3 16; do
        [ "$level-$threads" = scalar-1 ] || run "x86-$level-$threads" "$level" "$threads" "$x86/tests/hashcheck"
    done
done
for threads in 1 3; do
    run "x86-nehalem-portable:sse4-$threads" portable:sse4 "$threads" "$x86/tests/hashcheck" \
        qemu-x86_64 -cpu Nehalem
done
grep -q "detected portable," "$out/x86-nehalem-portable:sse4-1.err" ||
    { echo "hashcheck: the Nehalem CPU was not detected as portable" >&2; exit 1; }
arm_runs=("scalar 1 neoverse-n1" "neon 1 neoverse-n1" "neon 3 neoverse-n1"
          "portable:neon 1 neoverse-n1" "portable:neon 3 neoverse-n1"
          "portable:sve 1 max,sve-default-vector-length=16"
          "portable:sve 3 max,sve-default-vector-length=256"
          "portable:sve2 1 max,sve-default-vector-length=64")
for run_args in "${arm_runs[@]}"; do
    set -- $run_args
    vl=${3#*length=}
    [ "$vl" = "$3" ] && vl= || vl=-vl$vl
    QEMU_CPU=$3 run "aarch64-$1-$2$vl" "$1" "$2" "$arm/tests/hashcheck" scripts/qemu-aarch64-run
done
grep -q "detected neon" "$out/aarch64-neon-1.err" ||
    { echo "hashcheck: qemu-aarch64 did not run the neon level" >&2; exit 1; }

status=0
for f in "$out"/*; do
    case $f in *.err) continue ;; esac
    if ! cmp -s "$out/x86-scalar-1" "$f"; then
        echo "hashcheck: $(basename "$f") differs from x86-scalar-1:" >&2
        diff "$out/x86-scalar-1" "$f" >&2 || true
        status=1
    fi
done
runs=$(ls "$out" | grep -vc '\.err$')
ops=$(wc -l < "$out/x86-scalar-1")
[ $status = 0 ] && echo "hashcheck: $ops operators, $runs runs (x86 levels: $levels; Nehalem: portable:sse4; aarch64: scalar, neon, portable:neon/sve/sve2), all lines identical ($((SECONDS - start)) s)"
exit $status
