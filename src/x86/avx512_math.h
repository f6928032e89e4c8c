/* Vector exp for the AVX-512 tier: the operations of dmlcpu_expf / dmlcpu_exp (generic/mathfn.c)
 * in the same order (fused multiply-adds exactly where the scalar code calls fmaf), so each lane
 * gives the scalar function's bits. Include only from files
 * compiled with AVX-512 flags. */
#ifndef DMLCPU_X86_AVX512_MATH_H
#define DMLCPU_X86_AVX512_MATH_H

#include <immintrin.h>

#include "kernels.h"

/* The common part: y = 2^((n mod 16)/16) * exp(r) and k = n >> 4, so that exp(x) = y * 2^k. */
static inline __m512 exp_ps_avx512_core(__m512 x, __m512i *k)
{
    const __m512 shifter = _mm512_set1_ps(12582912.0f);
    __m512 t = _mm512_fmadd_ps(x, _mm512_set1_ps(DMLCPU_EXPF_16_LN2), shifter);
    __m512 n = _mm512_sub_ps(t, shifter);
    __m512i ni = _mm512_sub_epi32(_mm512_castps_si512(t), _mm512_castps_si512(shifter));
    __m512 r = _mm512_fmadd_ps(n, _mm512_set1_ps(-DMLCPU_EXPF_LN2_16_HI), x);
    r = _mm512_fmadd_ps(n, _mm512_set1_ps(-DMLCPU_EXPF_LN2_16_LO), r);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(DMLCPU_EXPF_C3), r, _mm512_set1_ps(0.5f));
    __m512 q = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r);
    /* the permute reads the low 4 bits of each index: n mod 16 */
    __m512 tab = _mm512_permutexvar_ps(ni, _mm512_loadu_ps(dmlcpu_exp2_16_f32));
    *k = _mm512_srai_epi32(ni, 4);
    return _mm512_fmadd_ps(tab, q, tab);
}

/* Lanes with x in [-86, 88]: there y * 2^k is a normal number, so adding k to the exponent
 * field is the product. */
static inline __mmask16 exp_ps_avx512_easy_lanes(__m512 x)
{
    return _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(x, _mm512_set1_ps(-86.0f), _CMP_GE_OQ), x,
                                   _mm512_set1_ps(88.0f), _CMP_LE_OQ);
}

/* exp of a vector whose lanes are all easy. */
static inline __m512 exp_ps_avx512_easy(__m512 x)
{
    __m512i k;
    __m512 y = exp_ps_avx512_core(x, &k);
    return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(y), _mm512_slli_epi32(k, 23)));
}

static inline __m512 exp_ps_avx512(__m512 x)
{
    if (exp_ps_avx512_easy_lanes(x) == 0xffff)
        return exp_ps_avx512_easy(x);
    __m512i k;
    __m512 y = exp_ps_avx512_core(x, &k);
    __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    __mmask16 big = _mm512_cmp_ps_mask(x, _mm512_set1_ps(89.0f), _CMP_GT_OQ);
    __mmask16 tiny = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-104.0f), _CMP_LT_OQ);
    __m512i k1 = _mm512_srai_epi32(k, 1), k2 = _mm512_sub_epi32(k, k1);
    __m512 s1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(k1, _mm512_set1_epi32(127)), 23));
    __m512 s2 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(k2, _mm512_set1_epi32(127)), 23));
    y = _mm512_mul_ps(_mm512_mul_ps(y, s1), s2);
    y = _mm512_mask_blend_ps(big, y, _mm512_castsi512_ps(_mm512_set1_epi32(0x7f800000)));
    y = _mm512_mask_blend_ps(tiny, y, _mm512_setzero_ps());
    return _mm512_mask_blend_ps(nan, y, x);
}

static inline __m512d exp_pd_avx512(__m512d x)
{
    const __m512d shifter = _mm512_set1_pd(6755399441055744.0);
    __mmask8 nan = _mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q);
    __mmask8 big = _mm512_cmp_pd_mask(x, _mm512_set1_pd(710.0), _CMP_GT_OQ);
    __mmask8 tiny = _mm512_cmp_pd_mask(x, _mm512_set1_pd(-746.0), _CMP_LT_OQ);
    __m512d t = _mm512_add_pd(_mm512_mul_pd(x, _mm512_set1_pd(1.4426950408889634074)), shifter);
    __m512d n = _mm512_sub_pd(t, shifter);
    __m512i ni = _mm512_sub_epi64(_mm512_castpd_si512(t), _mm512_castpd_si512(shifter));
    __m512d r = _mm512_sub_pd(_mm512_sub_pd(x, _mm512_mul_pd(n, _mm512_set1_pd(6.93147180369123816490e-01))),
                              _mm512_mul_pd(n, _mm512_set1_pd(1.90821492927058770002e-10)));
    static const double inv_fact[14] = {
        1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320,
        1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800.0,
    };
    __m512d p = _mm512_set1_pd(inv_fact[13]);
    for (int i = 12; i >= 0; i--)
        p = _mm512_add_pd(_mm512_mul_pd(p, r), _mm512_set1_pd(inv_fact[i]));
    __m512i n1 = _mm512_srai_epi64(ni, 1), n2 = _mm512_sub_epi64(ni, n1);
    __m512d s1 = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_add_epi64(n1, _mm512_set1_epi64(1023)), 52));
    __m512d s2 = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_add_epi64(n2, _mm512_set1_epi64(1023)), 52));
    __m512d y = _mm512_mul_pd(_mm512_mul_pd(p, s1), s2);
    y = _mm512_mask_blend_pd(big, y, _mm512_castsi512_pd(_mm512_set1_epi64(0x7ff0000000000000ll)));
    y = _mm512_mask_blend_pd(tiny, y, _mm512_setzero_pd());
    return _mm512_mask_blend_pd(nan, y, x);
}

#endif
