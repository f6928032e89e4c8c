/* sv_apply_scalar, and on x86 sv_apply_sse4 / _avx2 / _avx512: this file is compiled once as it
 * is and, on x86, three more times with -DSV_WIDTH=128 (-msse4.1), 256 (-mavx2) and 512
 * (-mavx512f); see tests/CMakeLists.txt. */
#include <string.h>

#include "sleef_variants.h"
#include "simd/lse_expf.h"
#include "simd/sleef_math.h"

#define SV_LOOP(T, V, EPV, LOAD, STORE, F)                                                         \
    for (size_t i = 0; i < n; i += (EPV)) {                                                        \
        V v = LOAD((const T *)in + i);                                                             \
        STORE((T *)out + i, F(v));                                                                 \
    }

#if !defined(SV_WIDTH)
int sv_apply_scalar(sv_fn fn, const void *in, void *out, size_t n)
{
    const float *fi = in;
    const double *di = in;
    float *fo = out;
    double *dout = out;
    for (size_t i = 0; i < n; i++) {
        switch (fn) {
        case SV_EXP_F32: fo[i] = DMLCPU_EXP_F32_SCALAR(fi[i]); break;
        case SV_LOG_F32: fo[i] = DMLCPU_LOG_F32_SCALAR(fi[i]); break;
        case SV_EXP_F64: dout[i] = DMLCPU_EXP_F64_SCALAR(di[i]); break;
        case SV_LOG_F64: dout[i] = DMLCPU_LOG_F64_SCALAR(di[i]); break;
        case SV_LSE_EXPF: fo[i] = lse_expf_scalar(fi[i]); break;
        default: return 0;
        }
    }
    return 1;
}
#elif SV_WIDTH == 128
#include <immintrin.h>
int sv_apply_sse4(sv_fn fn, const void *in, void *out, size_t n)
{
    switch (fn) {
    case SV_EXP_F32: SV_LOOP(float, __m128, 4, _mm_loadu_ps, _mm_storeu_ps, DMLCPU_EXP_F32_SSE4) return 1;
    case SV_LOG_F32: SV_LOOP(float, __m128, 4, _mm_loadu_ps, _mm_storeu_ps, DMLCPU_LOG_F32_SSE4) return 1;
    case SV_EXP_F64: SV_LOOP(double, __m128d, 2, _mm_loadu_pd, _mm_storeu_pd, DMLCPU_EXP_F64_SSE4) return 1;
    case SV_LOG_F64: SV_LOOP(double, __m128d, 2, _mm_loadu_pd, _mm_storeu_pd, DMLCPU_LOG_F64_SSE4) return 1;
    default: return 0;
    }
}
#elif SV_WIDTH == 256
#include <immintrin.h>
int sv_apply_avx2(sv_fn fn, const void *in, void *out, size_t n)
{
    switch (fn) {
    case SV_EXP_F32: SV_LOOP(float, __m256, 8, _mm256_loadu_ps, _mm256_storeu_ps, DMLCPU_EXP_F32_AVX2) return 1;
    case SV_LOG_F32: SV_LOOP(float, __m256, 8, _mm256_loadu_ps, _mm256_storeu_ps, DMLCPU_LOG_F32_AVX2) return 1;
    case SV_EXP_F64: SV_LOOP(double, __m256d, 4, _mm256_loadu_pd, _mm256_storeu_pd, DMLCPU_EXP_F64_AVX2) return 1;
    case SV_LOG_F64: SV_LOOP(double, __m256d, 4, _mm256_loadu_pd, _mm256_storeu_pd, DMLCPU_LOG_F64_AVX2) return 1;
    case SV_LSE_EXPF: SV_LOOP(float, __m256, 8, _mm256_loadu_ps, _mm256_storeu_ps, lse_expf_avx2) return 1;
    default: return 0;
    }
}
#elif SV_WIDTH == 512
#include <immintrin.h>
int sv_apply_avx512(sv_fn fn, const void *in, void *out, size_t n)
{
    switch (fn) {
    case SV_EXP_F32: SV_LOOP(float, __m512, 16, _mm512_loadu_ps, _mm512_storeu_ps, DMLCPU_EXP_F32_AVX512) return 1;
    case SV_LOG_F32: SV_LOOP(float, __m512, 16, _mm512_loadu_ps, _mm512_storeu_ps, DMLCPU_LOG_F32_AVX512) return 1;
    case SV_EXP_F64: SV_LOOP(double, __m512d, 8, _mm512_loadu_pd, _mm512_storeu_pd, DMLCPU_EXP_F64_AVX512) return 1;
    case SV_LOG_F64: SV_LOOP(double, __m512d, 8, _mm512_loadu_pd, _mm512_storeu_pd, DMLCPU_LOG_F64_AVX512) return 1;
    case SV_LSE_EXPF: SV_LOOP(float, __m512, 16, _mm512_loadu_ps, _mm512_storeu_ps, lse_expf_avx512) return 1;
    default: return 0;
    }
}
#endif
