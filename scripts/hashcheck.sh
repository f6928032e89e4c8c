#!/usr/bin/env bash
# The cross-architecture check of SPEC 4 ("same bits on every machine"): runs tests/hashcheck
# (one hash of the output bytes per operator of a fixed list) natively at every x86 level the
# host has, with 1, 3 and 16 threads, and under qemu-aarch64 at the scalar and neon levels, and
# requires every run to print the same lines. Prints the differing lines and exits 1 otherwise.
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
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# run NAME ISA THREADS [RUNNER]: one run into $out/NAME, its stderr summary echoed
run() {
    local name=$1 isa=$2 threads=$3 prog=$4
    shift 4
    if ! DMLCPU_ISA=$isa "$@" "$prog" --threads "$threads" > "$out/$name" 2> "$out/$name.err"; then
        cat "$out/$name.err" >&2
        grep FAILED "$out/$name" >&2 || true
        echo "hashcheck: the $name run failed" >&2
        exit 1
    fi
    printf '%-22s %s\n' "$name" "$(cat "$out/$name.err")"
}

start=$SECONDS
run x86-scalar-1 scalar 1 "$x86/tests/hashcheck"
detected=$(sed -n 's/^hashcheck: detected \([a-z0-9]*\),.*/\1/p' "$out/x86-scalar-1.err")
levels="scalar portable"
case $detected in
    avx2) levels="$levels avx2" ;;
    avx512) levels="$levels avx2 avx512" ;;
esac
for isa in $levels; do
    for threads in 1 3 16; do
        [ "$isa-$threads" = scalar-1 ] || run "x86-$isa-$threads" "$isa" "$threads" "$x86/tests/hashcheck"
    done
done
for run_args in "scalar 1" "neon 1" "neon 3"; do
    set -- $run_args
    run "aarch64-$1-$2" "$1" "$2" "$arm/tests/hashcheck" scripts/qemu-aarch64-run
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
[ $status = 0 ] && echo "hashcheck: $ops operators, $runs runs (x86 levels: $levels; aarch64: scalar, neon), all lines identical ($((SECONDS - start)) s)"
exit $status
