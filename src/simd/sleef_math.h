/* exp and log of every tier: SLEEF's deterministic functions, one name per tier and vector width.
 * SPEC 4 asks that LOG_SUM_EXP and LOG_SUM give the same bits on every ISA, so every tier calls
 * the same algorithm: SLEEF's "cinz" variants (u10: at most 1 ulp of error), which return the
 * same bits for the same input in every vector width and in scalar code.
 *
 * Why cinz and not finz: finz is the same algorithm written with fused multiply-adds, and its
 * code exists only for ISAs that have FMA (purecfma, avx2, avx512f, advsimd). A CPU without FMA
 * (x86-64-v2, e.g. a Nehalem) could run only cinz, and cinz and finz differ in the last bit for
 * some inputs, so one choice for every tier must be cinz. The few extra operations cost little:
 * LOG_SUM_EXP streams from memory (README, "exp and log").
 *
 * Vector prototypes exist in <sleef.h> only when the including file is compiled with the matching
 * flags (-mavx for the 256-bit names, -mavx512f for the 512-bit ones, SVE for the x names); the
 * scalar names are always declared. tests/test_sleef.c checks that every name below that the
 * build's CPU can run gives the scalar name's bits.
 *
 *   tier / width                    f32 exp, log                  f64 exp, log
 *   scalar (every architecture)     Sleef_cinz_expf1_u10purec     Sleef_cinz_expd1_u10purec
 *                                   Sleef_cinz_logf1_u10purec     Sleef_cinz_logd1_u10purec
 *   x86 128-bit (SSE4.1)            Sleef_cinz_expf4_u10sse4      Sleef_cinz_expd2_u10sse4
 *                                   Sleef_cinz_logf4_u10sse4      Sleef_cinz_logd2_u10sse4
 *   x86 256-bit (avx2 tier; the     Sleef_cinz_expf8_u10avx       Sleef_cinz_expd4_u10avx
 *     AVX code, SLEEF's AVX2 code   Sleef_cinz_logf8_u10avx       Sleef_cinz_logd4_u10avx
 *     exists only with FMA)
 *   x86 512-bit (avx512 tier)       Sleef_cinz_expf16_u10avx512fnofma  Sleef_cinz_expd8_u10avx512fnofma
 *                                   Sleef_cinz_logf16_u10avx512fnofma  Sleef_cinz_logd8_u10avx512fnofma
 *   AArch64 128-bit (neon tier)     Sleef_cinz_expf4_u10advsimdnofma   Sleef_cinz_expd2_u10advsimdnofma
 *                                   Sleef_cinz_logf4_u10advsimdnofma   Sleef_cinz_logd2_u10advsimdnofma
 *   AArch64 SVE (any length)        Sleef_cinz_expfx_u10svenofma  Sleef_cinz_expdx_u10svenofma
 *                                   Sleef_cinz_logfx_u10svenofma  Sleef_cinz_logdx_u10svenofma */
#ifndef DMLCPU_SIMD_SLEEF_MATH_H
#define DMLCPU_SIMD_SLEEF_MATH_H

#include <sleef.h>

#define DMLCPU_EXP_F32_SCALAR Sleef_cinz_expf1_u10purec
#define DMLCPU_EXP_F64_SCALAR Sleef_cinz_expd1_u10purec
#define DMLCPU_LOG_F32_SCALAR Sleef_cinz_logf1_u10purec
#define DMLCPU_LOG_F64_SCALAR Sleef_cinz_logd1_u10purec

#define DMLCPU_EXP_F32_SSE4 Sleef_cinz_expf4_u10sse4
#define DMLCPU_EXP_F64_SSE4 Sleef_cinz_expd2_u10sse4
#define DMLCPU_LOG_F32_SSE4 Sleef_cinz_logf4_u10sse4
#define DMLCPU_LOG_F64_SSE4 Sleef_cinz_logd2_u10sse4

#define DMLCPU_EXP_F32_AVX2 Sleef_cinz_expf8_u10avx
#define DMLCPU_EXP_F64_AVX2 Sleef_cinz_expd4_u10avx
#define DMLCPU_LOG_F32_AVX2 Sleef_cinz_logf8_u10avx
#define DMLCPU_LOG_F64_AVX2 Sleef_cinz_logd4_u10avx

#define DMLCPU_EXP_F32_AVX512 Sleef_cinz_expf16_u10avx512fnofma
#define DMLCPU_EXP_F64_AVX512 Sleef_cinz_expd8_u10avx512fnofma
#define DMLCPU_LOG_F32_AVX512 Sleef_cinz_logf16_u10avx512fnofma
#define DMLCPU_LOG_F64_AVX512 Sleef_cinz_logd8_u10avx512fnofma

#define DMLCPU_EXP_F32_NEON Sleef_cinz_expf4_u10advsimdnofma
#define DMLCPU_EXP_F64_NEON Sleef_cinz_expd2_u10advsimdnofma
#define DMLCPU_LOG_F32_NEON Sleef_cinz_logf4_u10advsimdnofma
#define DMLCPU_LOG_F64_NEON Sleef_cinz_logd2_u10advsimdnofma

#define DMLCPU_EXP_F32_SVE Sleef_cinz_expfx_u10svenofma
#define DMLCPU_EXP_F64_SVE Sleef_cinz_expdx_u10svenofma
#define DMLCPU_LOG_F32_SVE Sleef_cinz_logfx_u10svenofma
#define DMLCPU_LOG_F64_SVE Sleef_cinz_logdx_u10svenofma

/* A log_f32_fn / log_f64_fn (kernels.h) over VLOG, EPV elements per vector; the elements past
 * the last whole vector take SLOG, the scalar name, which gives the same bits. */
#define DMLCPU_DEF_LOG_BATCH(NAME, T, EPV, LOADU, STOREU, VLOG, SLOG)                             \
    static void NAME(T *v, size_t n)                                                               \
    {                                                                                              \
        size_t i = 0;                                                                              \
        for (; i + (EPV) <= n; i += (EPV))                                                         \
            STOREU(v + i, VLOG(LOADU(v + i)));                                                     \
        for (; i < n; i++)                                                                         \
            v[i] = SLOG(v[i]);                                                                     \
    }

#endif
