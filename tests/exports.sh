#!/bin/sh
# The libraries export exactly the public API: every global symbol that libdmlcpu.so and
# libdmlcpu.a define starts with dmlcpu_, and every function the header declares is among them.
# Usage: exports.sh NM libdmlcpu.so libdmlcpu.a include/dmlcpu.h
nm=$1 so=$2 ar=$3 header=$4
status=0
dyn=$("$nm" -D --defined-only "$so" | awk 'NF == 3 { print $3 }' | sort -u)
static=$("$nm" -g --defined-only "$ar" | awk 'NF == 3 { print $3 }' | sort -u)
api=$(sed -n 's/^DMLCPU_API[^(]*[ *]\(dmlcpu_[a-z0-9_]*\)(.*/\1/p' "$header" | sort -u)
[ -n "$api" ] || { echo "no DMLCPU_API declaration found in $header"; exit 1; }
for lib in shared static; do
    if [ $lib = shared ]; then syms=$dyn; else syms=$static; fi
    stray=$(printf '%s\n' "$syms" | grep -v '^dmlcpu_' | grep -v '^$')
    if [ -n "$stray" ]; then
        echo "$lib library exports symbols outside the API:"; echo "$stray"; status=1
    fi
    missing=$(printf '%s\n' "$api" | while read -r f; do
        printf '%s\n' "$syms" | grep -qx "$f" || echo "$f"; done)
    if [ -n "$missing" ]; then
        echo "$lib library lacks declared functions:"; echo "$missing"; status=1
    fi
    extra=$(printf '%s\n' "$syms" | grep '^dmlcpu_' | while read -r f; do
        printf '%s\n' "$api" | grep -qx "$f" || echo "$f"; done)
    if [ -n "$extra" ]; then
        echo "$lib library exports dmlcpu_ symbols the header does not declare:"; echo "$extra"; status=1
    fi
    echo "$lib: $(printf '%s\n' "$syms" | grep -c .) symbols exported, $(printf '%s\n' "$api" | grep -c .) declared"
done
exit $status
