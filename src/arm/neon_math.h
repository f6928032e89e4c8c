/* Vector exp for the NEON tier: the operations of dmlcpu_expf / dmlcpu_exp (generic/mathfn.c) in
 * the same order, fused multiply-adds (vfmaq) exactly where the scalar code calls fmaf and
 * separate multiplies and adds elsewhere (the build passes -ffp-contract=off), so each lane gives
 * the scalar function's bits. The special cases (NaN, overflow, underflow) are selected at the
 * end, lanewise, without branches. Include only from files compiled for AArch64 with NEON. */
#ifndef DMLCPU_ARM_NEON_MATH_H
#define DMLCPU_ARM_NEON_MATH_H

#include <arm_neon.h>
#include <math.h>

#include "kernels.h"

/* 2^((n mod 16)/16) for the four lanes of ni: the 64-byte table in four registers, one byte
 * look-up (TBL) at byte indexes 4 (n mod 16) + 0..3 of each lane. */
static inline float32x4_t exp2_16_lookup_neon(int32x4_t ni)
{
    const uint8x16x4_t tab = vld1q_u8_x4((const uint8_t *)dmlcpu_exp2_16_f32);
    uint32x4_t j = vandq_u32(vreinterpretq_u32_s32(ni), vdupq_n_u32(15));
    j = vmlaq_u32(vdupq_n_u32(0x03020100u), j, vdupq_n_u32(0x04040404u));
    return vreinterpretq_f32_u8(vqtbl4q_u8(tab, vreinterpretq_u8_u32(j)));
}

static inline float32x4_t exp_f32_neon(float32x4_t x)
{
    const float32x4_t shifter = vdupq_n_f32(12582912.0f); /* 1.5 * 2^23 */
    float32x4_t t = vfmaq_f32(shifter, x, vdupq_n_f32(DMLCPU_EXPF_16_LN2));
    float32x4_t n = vsubq_f32(t, shifter);
    int32x4_t ni = vsubq_s32(vreinterpretq_s32_f32(t), vreinterpretq_s32_f32(shifter));
    float32x4_t r = vfmaq_f32(x, n, vdupq_n_f32(-DMLCPU_EXPF_LN2_16_HI));
    r = vfmaq_f32(r, n, vdupq_n_f32(-DMLCPU_EXPF_LN2_16_LO));
    float32x4_t p = vfmaq_f32(vdupq_n_f32(0.5f), vdupq_n_f32(DMLCPU_EXPF_C3), r);
    float32x4_t q = vfmaq_f32(r, p, vmulq_f32(r, r));
    float32x4_t tab = exp2_16_lookup_neon(ni);
    float32x4_t y = vfmaq_f32(tab, tab, q);
    int32x4_t k = vshrq_n_s32(ni, 4), k1 = vshrq_n_s32(k, 1), k2 = vsubq_s32(k, k1);
    const int32x4_t bias = vdupq_n_s32(127);
    float32x4_t s1 = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(k1, bias), 23));
    float32x4_t s2 = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(k2, bias), 23));
    y = vmulq_f32(vmulq_f32(y, s1), s2);
    y = vbslq_f32(vcgtq_f32(x, vdupq_n_f32(89.0f)), vdupq_n_f32(INFINITY), y);
    y = vbslq_f32(vcltq_f32(x, vdupq_n_f32(-104.0f)), vdupq_n_f32(0.0f), y);
    return vbslq_f32(vceqq_f32(x, x), y, x);
}

static inline float64x2_t exp_f64_neon(float64x2_t x)
{
    const float64x2_t shifter = vdupq_n_f64(6755399441055744.0); /* 1.5 * 2^52 */
    float64x2_t t = vaddq_f64(vmulq_f64(x, vdupq_n_f64(1.4426950408889634074)), shifter);
    float64x2_t n = vsubq_f64(t, shifter);
    int64x2_t ni = vsubq_s64(vreinterpretq_s64_f64(t), vreinterpretq_s64_f64(shifter));
    float64x2_t r = vsubq_f64(vsubq_f64(x, vmulq_f64(n, vdupq_n_f64(6.93147180369123816490e-01))),
                              vmulq_f64(n, vdupq_n_f64(1.90821492927058770002e-10)));
    static const double inv_fact[14] = {
        1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320,
        1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800.0,
    };
    float64x2_t p = vdupq_n_f64(inv_fact[13]);
    for (int i = 12; i >= 0; i--)
        p = vaddq_f64(vmulq_f64(p, r), vdupq_n_f64(inv_fact[i]));
    int64x2_t n1 = vshrq_n_s64(ni, 1), n2 = vsubq_s64(ni, n1);
    const int64x2_t bias = vdupq_n_s64(1023);
    float64x2_t s1 = vreinterpretq_f64_s64(vshlq_n_s64(vaddq_s64(n1, bias), 52));
    float64x2_t s2 = vreinterpretq_f64_s64(vshlq_n_s64(vaddq_s64(n2, bias), 52));
    float64x2_t y = vmulq_f64(vmulq_f64(p, s1), s2);
    y = vbslq_f64(vcgtq_f64(x, vdupq_n_f64(710.0)), vdupq_n_f64(INFINITY), y);
    y = vbslq_f64(vcltq_f64(x, vdupq_n_f64(-746.0)), vdupq_n_f64(0.0), y);
    return vbslq_f64(vceqq_f64(x, x), y, x);
}

#endif
