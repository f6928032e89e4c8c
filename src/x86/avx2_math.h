/* Vector exp for the AVX2 tier: the operations of dmlcpu_expf / dmlcpu_exp (generic/mathfn.c) in
 * the same order, fused multiply-adds exactly where the scalar code calls fmaf and separate
 * multiplies and adds elsewhere, so each lane gives the scalar function's bits. Include only from files compiled with -mavx2 -mfma -mf16c. */
#ifndef DMLCPU_X86_AVX2_MATH_H
#define DMLCPU_X86_AVX2_MATH_H

#include <immintrin.h>

#include "kernels.h"

/* The common part: y = 2^((n mod 16)/16) * exp(r) and k = n >> 4, so that exp(x) = y * 2^k. */
static inline __m256 exp_ps_avx2_core(__m256 x, __m256i *k)
{
    const __m256 shifter = _mm256_set1_ps(12582912.0f); /* 1.5 * 2^23 */
    __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(DMLCPU_EXPF_16_LN2), shifter);
    __m256 n = _mm256_sub_ps(t, shifter);
    __m256i ni = _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_castps_si256(shifter));
    __m256 r = _mm256_fmadd_ps(n, _mm256_set1_ps(-DMLCPU_EXPF_LN2_16_HI), x);
    r = _mm256_fmadd_ps(n, _mm256_set1_ps(-DMLCPU_EXPF_LN2_16_LO), r);
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(DMLCPU_EXPF_C3), r, _mm256_set1_ps(0.5f));
    __m256 q = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r);
    /* 16 table entries in two registers: each permute reads the low 3 bits of the index, bit 3
     * (moved to the sign bit) picks the register */
    __m256 lo = _mm256_permutevar8x32_ps(_mm256_loadu_ps(dmlcpu_exp2_16_f32), ni);
    __m256 hi = _mm256_permutevar8x32_ps(_mm256_loadu_ps(dmlcpu_exp2_16_f32 + 8), ni);
    __m256 tab = _mm256_blendv_ps(lo, hi, _mm256_castsi256_ps(_mm256_slli_epi32(ni, 28)));
    *k = _mm256_srai_epi32(ni, 4);
    return _mm256_fmadd_ps(tab, q, tab);
}

/* All-ones in the lanes with x in [-86, 88]: there y * 2^k is a normal number, so adding k to
 * the exponent field is the product. */
static inline __m256 exp_ps_avx2_easy_lanes(__m256 x)
{
    return _mm256_and_ps(_mm256_cmp_ps(x, _mm256_set1_ps(-86.0f), _CMP_GE_OQ),
                         _mm256_cmp_ps(x, _mm256_set1_ps(88.0f), _CMP_LE_OQ));
}

/* exp of a vector whose lanes are all easy. */
static inline __m256 exp_ps_avx2_easy(__m256 x)
{
    __m256i k;
    __m256 y = exp_ps_avx2_core(x, &k);
    return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(y), _mm256_slli_epi32(k, 23)));
}

static inline __m256 exp_ps_avx2(__m256 x)
{
    if (_mm256_movemask_ps(exp_ps_avx2_easy_lanes(x)) == 0xff)
        return exp_ps_avx2_easy(x);
    __m256i k;
    __m256 y = exp_ps_avx2_core(x, &k);
    __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    __m256 big = _mm256_cmp_ps(x, _mm256_set1_ps(89.0f), _CMP_GT_OQ);
    __m256 tiny = _mm256_cmp_ps(x, _mm256_set1_ps(-104.0f), _CMP_LT_OQ);
    __m256i k1 = _mm256_srai_epi32(k, 1), k2 = _mm256_sub_epi32(k, k1);
    const __m256i bias = _mm256_set1_epi32(127);
    __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k1, bias), 23));
    __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k2, bias), 23));
    y = _mm256_mul_ps(_mm256_mul_ps(y, s1), s2);
    y = _mm256_blendv_ps(y, _mm256_castsi256_ps(_mm256_set1_epi32(0x7f800000)), big);
    y = _mm256_blendv_ps(y, _mm256_setzero_ps(), tiny);
    return _mm256_blendv_ps(y, x, nan);
}

/* AVX2 has no 64-bit arithmetic shift: ni >> 1 is the logical shift with the sign bit put back
 * (bit 63 of the result is the sign, bit 62 is already the sign from the logical shift), which
 * equals the arithmetic shift for every int64. */
static inline __m256i srai1_epi64_avx2(__m256i v)
{
    const __m256i sign = _mm256_set1_epi64x((long long)0x8000000000000000ull);
    return _mm256_or_si256(_mm256_srli_epi64(v, 1), _mm256_and_si256(v, sign));
}

static inline __m256d exp_pd_avx2(__m256d x)
{
    const __m256d shifter = _mm256_set1_pd(6755399441055744.0); /* 1.5 * 2^52 */
    __m256d nan = _mm256_cmp_pd(x, x, _CMP_UNORD_Q);
    __m256d big = _mm256_cmp_pd(x, _mm256_set1_pd(710.0), _CMP_GT_OQ);
    __m256d tiny = _mm256_cmp_pd(x, _mm256_set1_pd(-746.0), _CMP_LT_OQ);
    __m256d t = _mm256_add_pd(_mm256_mul_pd(x, _mm256_set1_pd(1.4426950408889634074)), shifter);
    __m256d n = _mm256_sub_pd(t, shifter);
    __m256i ni = _mm256_sub_epi64(_mm256_castpd_si256(t), _mm256_castpd_si256(shifter));
    __m256d r = _mm256_sub_pd(_mm256_sub_pd(x, _mm256_mul_pd(n, _mm256_set1_pd(6.93147180369123816490e-01))),
                              _mm256_mul_pd(n, _mm256_set1_pd(1.90821492927058770002e-10)));
    static const double inv_fact[14] = {
        1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320,
        1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800.0,
    };
    __m256d p = _mm256_set1_pd(inv_fact[13]);
    for (int i = 12; i >= 0; i--)
        p = _mm256_add_pd(_mm256_mul_pd(p, r), _mm256_set1_pd(inv_fact[i]));
    __m256i n1 = srai1_epi64_avx2(ni), n2 = _mm256_sub_epi64(ni, n1);
    const __m256i bias = _mm256_set1_epi64x(1023);
    __m256d s1 = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(n1, bias), 52));
    __m256d s2 = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(n2, bias), 52));
    __m256d y = _mm256_mul_pd(_mm256_mul_pd(p, s1), s2);
    y = _mm256_blendv_pd(y, _mm256_castsi256_pd(_mm256_set1_epi64x(0x7ff0000000000000ll)), big);
    y = _mm256_blendv_pd(y, _mm256_setzero_pd(), tiny);
    return _mm256_blendv_pd(y, x, nan);
}

#endif
