#!/bin/sh
# Fails when an object file of the library outside src/x86 contains an AVX instruction (a VEX or
# EVEX encoded one, or a ymm/zmm/mask register): only the ISA files may carry ISA flags.
# Arguments: the library's object files.
status=0
checked=0
for obj in "$@"; do
    case "$obj" in */x86/*) continue ;; esac
    checked=$((checked + 1))
    hits=$(objdump -d --no-show-raw-insn "$obj" |
        awk -F'\t' 'NF >= 2 { split($2, w, " "); if (w[1] ~ /^v/ || $2 ~ /%[yz]mm|%k[0-7]/) print }' |
        head -5)
    if [ -n "$hits" ]; then
        echo "AVX instructions in $obj:"
        echo "$hits"
        status=1
    fi
done
echo "checked $checked objects outside src/x86"
[ "$checked" -gt 0 ] || status=1
exit $status
