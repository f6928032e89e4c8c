/* IEEE binary16 <-> binary32, bit by bit (no F16C), so every tier converts alike: the bodies of
 * generic/fp16.c's dmlcpu_f16_to_f32 and dmlcpu_f32_to_f16 (kernels.h), inline for loops that
 * convert many values (FLOAT16 outputs: reduce_partials.c). fp16_from_f32 rounds to nearest
 * even; NaN stays NaN, made quiet with the top payload bits. */
#ifndef DMLCPU_FP16_H
#define DMLCPU_FP16_H

#include <stdint.h>
#include <string.h>

static inline float fp16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t man = h & 0x3ff;
    uint32_t bits;
    if (exp == 0x1f) {                  /* inf or NaN: keep the payload */
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp != 0) {              /* normal */
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (man == 0) {              /* +-0 */
        bits = sign;
    } else {                            /* subnormal: normalise */
        int e = 113;
        while (!(man & 0x400)) {
            man <<= 1;
            e--;
        }
        bits = sign | ((uint32_t)e << 23) | ((man & 0x3ff) << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static inline uint16_t fp16_from_f32(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
    uint32_t abs = bits & 0x7fffffffu;
    if (abs >= 0x7f800000u) {            /* inf, or NaN made quiet with the top payload bits */
        if (abs == 0x7f800000u)
            return sign | 0x7c00;
        return sign | 0x7e00 | (uint16_t)((abs >> 13) & 0x3ff);
    }
    if (abs >= 0x477ff000u)             /* rounds to >= 65536: overflow to inf */
        return sign | 0x7c00;
    if (abs >= 0x38800000u) {           /* normal half: rebias, round to nearest even */
        uint32_t v = abs - (112u << 23);
        uint32_t rest = v & 0x1fff;
        uint32_t h = v >> 13;
        if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
            h++;                        /* a carry into the exponent is the right result */
        return sign | (uint16_t)h;
    }
    if (abs < 0x33000000u)              /* below half the smallest subnormal: +-0 */
        return sign;
    /* subnormal half: the value is man * 2^(e-150); the half's unit is 2^-24 */
    uint32_t e = abs >> 23;
    uint32_t man = (abs & 0x7fffff) | 0x800000;
    uint32_t shift = 126 - e;           /* 14..24 */
    uint32_t h = man >> shift;
    uint32_t rest = man & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (h & 1)))
        h++;
    return sign | (uint16_t)h;
}

#endif
