/* Vector exp for the AVX-512 tier: the operations of dmlcpu_expf / dmlcpu_exp (generic/mathfn.c)
 * in the same order, so each lane gives the scalar function's bits. Include only from files
 * compiled with AVX-512 flags. */
#ifndef DMLCPU_X86_AVX512_MATH_H
#define DMLCPU_X86_AVX512_MATH_H

#include <immintrin.h>

static inline __m512 exp_ps_avx512(__m512 x)
{
    const __m512 shifter = _mm512_set1_ps(12582912.0f);
    __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    __mmask16 big = _mm512_cmp_ps_mask(x, _mm512_set1_ps(89.0f), _CMP_GT_OQ);
    __mmask16 tiny = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-104.0f), _CMP_LT_OQ);
    __m512 t = _mm512_add_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)), shifter);
    __m512 n = _mm512_sub_ps(t, shifter);
    __m512i ni = _mm512_sub_epi32(_mm512_castps_si512(t), _mm512_castps_si512(shifter));
    __m512 r = _mm512_sub_ps(_mm512_sub_ps(x, _mm512_mul_ps(n, _mm512_set1_ps(0.693145751953125f))),
                             _mm512_mul_ps(n, _mm512_set1_ps(1.42860682030941723212e-6f)));
    __m512 p = _mm512_set1_ps(1.0f / 5040.0f);
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(1.0f / 720.0f));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(1.0f / 120.0f));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(1.0f / 24.0f));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(1.0f / 6.0f));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(0.5f));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(1.0f));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(1.0f));
    __m512i n1 = _mm512_srai_epi32(ni, 1), n2 = _mm512_sub_epi32(ni, n1);
    __m512 s1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(n1, _mm512_set1_epi32(127)), 23));
    __m512 s2 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(n2, _mm512_set1_epi32(127)), 23));
    __m512 y = _mm512_mul_ps(_mm512_mul_ps(p, s1), s2);
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
