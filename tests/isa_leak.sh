#!/bin/sh
# Fails when the library carries an AVX instruction (a VEX or EVEX encoded one, or a ymm/zmm/mask
# register) outside code that only runs on a CPU with AVX: only the ISA files of src/x86 may
# carry ISA flags, and in the portable tier (src/generic/hwy) only the functions Highway compiles
# for its AVX2 and AVX3 targets (namespaces N_AVX2, N_AVX3) may use them.
# Arguments: the library's object files.
status=0
checked=0
for obj in "$@"; do
    case "$obj" in */x86/*) continue ;; esac
    checked=$((checked + 1))
    hits=$(objdump -d --no-show-raw-insn "$obj" |
        awk -F'\t' '
            /^[0-9a-f]+ <.*>:$/ { fn = $0; avx_target = (fn ~ /N_AVX[23]/); next }
            avx_target { next }
            NF >= 2 { split($2, w, " "); if (w[1] ~ /^v/ || $2 ~ /%[yz]mm|%k[0-7]/) print fn ": " $2 }' |
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
