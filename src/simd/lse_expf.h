/* The FLOAT32 exp of LOG_SUM_EXP's inner loop (the terms exp(x - m) of a block, FLOAT32 and
 * FLOAT16 inputs), written once and instantiated below for every tier: lse_expf_scalar,
 * lse_expf_avx2, lse_expf_avx512, lse_expf_neon. Every other exp and log of the library is
 * SLEEF's (simd/sleef_math.h). SLEEF's call per vector made LOG_SUM_EXP FLOAT32 about twice as
 * slow at 64 MiB (README, "exp and log"), more than the 10% this loop may cost.
 *
 * Contract: x <= 0 or NaN (the loop passes x - m). Returns exp(x) within about one ulp
 * (tests/test_sleef.c measures the bound against double precision), +0 for x <= -104 and -inf,
 * NaN for NaN, and exactly 1 for +0 and -0. x below -104 is first raised to -104 (NaN stays
 * NaN), whose result, 0.97 * 2^-150, rounds to +0: one max instead of a compare and a mask at
 * the end, with the same bits for every input (all 2^31 values with the sign bit set were
 * compared with the compare-and-mask form).
 *
 * Only additions, subtractions and multiplications of single precision (no fused multiply-add:
 * every tier has them, including CPUs without FMA and the portable tier's SSE4 target), in one
 * order, plus integer moves of exponent bits: every instantiation gives the same bits.
 *
 * x = n ln2 + r with n = round(x / ln2) (adding 1.5 * 2^23 rounds to an integer), ln2 split as
 * HI + LO where HI has 15 significant bits, so n * HI is exact for |n| <= 255; |r| <= ln2/2
 * (a little more when x / ln2 rounds before the integer rounding). exp(r) = 1 + (r + r^2 p(r)),
 * p the Taylor polynomial of degree 5 (1/2 + r/6 + ... + r^5/5040): its truncation error is
 * below 0.05 ulp on that range; y = exp(r) is in [0.7, 1.42]. Then y 2^n = (y 2^(n+25)) 2^-25:
 * for -150 <= n <= 0 the first product is a normal number (>= 0.7 * 2^-125), hence exact, so a
 * subnormal result rounds only once, in the second. */
#ifndef DMLCPU_SIMD_LSE_EXPF_H
#define DMLCPU_SIMD_LSE_EXPF_H

#include <stdint.h>
#include <string.h>

#define LSE_EXPF_BODY(V, VI, SET1, SETI, ADD, SUB, MUL, BITS, FLT, ADDI, SUBI, SLL23, RAISE_TO,   \
                      x)                                                                           \
    x = RAISE_TO(x, SET1(-104.0f)); /* max(x, lim), NaN stays NaN */                               \
    const V shifter = SET1(12582912.0f); /* 1.5 * 2^23 */                                          \
    V t = ADD(MUL(x, SET1(0x1.715476p+0f)), shifter); /* x / ln2 + shifter, rounded */             \
    V n = SUB(t, shifter);                                                                         \
    VI k = SUBI(BITS(t), BITS(shifter));                                                           \
    V r = SUB(x, MUL(n, SET1(0x1.62e4p-1f)));                                                      \
    r = SUB(r, MUL(n, SET1(0x1.7f7d1cp-20f)));                                                     \
    V p = SET1(0x1.a01a02p-13f);                                                                   \
    p = ADD(MUL(p, r), SET1(0x1.6c16c2p-10f));                                                     \
    p = ADD(MUL(p, r), SET1(0x1.111112p-7f));                                                      \
    p = ADD(MUL(p, r), SET1(0x1.555556p-5f));                                                      \
    p = ADD(MUL(p, r), SET1(0x1.555556p-3f));                                                      \
    p = ADD(MUL(p, r), SET1(0.5f));                                                                \
    V y = ADD(SET1(1.0f), ADD(r, MUL(MUL(r, r), p)));                                              \
    V s = FLT(SLL23(ADDI(k, SETI(127 + 25)))); /* 2^(n + 25) */                                   \
    return MUL(MUL(y, s), SET1(0x1p-25f));

/* ---- scalar: float and int32 (integer arithmetic on the unsigned bits: it wraps) ---- */
static inline float lse_sc_set1(float s) { return s; }
static inline int32_t lse_sc_seti(int32_t i) { return i; }
static inline float lse_sc_add(float a, float b) { return a + b; }
static inline float lse_sc_sub(float a, float b) { return a - b; }
static inline float lse_sc_mul(float a, float b) { return a * b; }
static inline int32_t lse_sc_bits(float f) { int32_t b; memcpy(&b, &f, sizeof b); return b; }
static inline float lse_sc_flt(int32_t b) { float f; memcpy(&f, &b, sizeof f); return f; }
static inline int32_t lse_sc_addi(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t lse_sc_subi(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
static inline int32_t lse_sc_sll23(int32_t a) { return (int32_t)((uint32_t)a << 23); }
static inline float lse_sc_raise_to(float x, float lim) { return x < lim ? lim : x; }
static inline float lse_expf_scalar(float x)
{
    LSE_EXPF_BODY(float, int32_t, lse_sc_set1, lse_sc_seti, lse_sc_add, lse_sc_sub, lse_sc_mul,
                  lse_sc_bits, lse_sc_flt, lse_sc_addi, lse_sc_subi, lse_sc_sll23,
                  lse_sc_raise_to, x)
}

#if defined(__AVX2__)
#include <immintrin.h>
#define lse_avx2_sll23(k) _mm256_slli_epi32(k, 23)
/* maxps returns its second operand when either is NaN */
#define lse_avx2_raise_to(x, lim) _mm256_max_ps(lim, x)
static inline __m256 lse_expf_avx2(__m256 x)
{
    LSE_EXPF_BODY(__m256, __m256i, _mm256_set1_ps, _mm256_set1_epi32, _mm256_add_ps, _mm256_sub_ps,
                  _mm256_mul_ps, _mm256_castps_si256, _mm256_castsi256_ps, _mm256_add_epi32,
                  _mm256_sub_epi32, lse_avx2_sll23, lse_avx2_raise_to, x)
}
#endif

#if defined(__AVX512F__)
#include <immintrin.h>
#define lse_avx512_sll23(k) _mm512_slli_epi32(k, 23)
#define lse_avx512_raise_to(x, lim) _mm512_max_ps(lim, x) /* the second operand when NaN */
static inline __m512 lse_expf_avx512(__m512 x)
{
    LSE_EXPF_BODY(__m512, __m512i, _mm512_set1_ps, _mm512_set1_epi32, _mm512_add_ps, _mm512_sub_ps,
                  _mm512_mul_ps, _mm512_castps_si512, _mm512_castsi512_ps, _mm512_add_epi32,
                  _mm512_sub_epi32, lse_avx512_sll23, lse_avx512_raise_to, x)
}
#endif

#if defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#define lse_neon_sll23(k) vshlq_n_s32(k, 23)
#define lse_neon_raise_to(x, lim) vmaxq_f32(x, lim) /* NaN if either is NaN */
static inline float32x4_t lse_expf_neon(float32x4_t x)
{
    LSE_EXPF_BODY(float32x4_t, int32x4_t, vdupq_n_f32, vdupq_n_s32, vaddq_f32, vsubq_f32, vmulq_f32,
                  vreinterpretq_s32_f32, vreinterpretq_f32_s32, vaddq_s32, vsubq_s32,
                  lse_neon_sll23, lse_neon_raise_to, x)
}
#endif

#endif
