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
 * order, plus integer moves of exponent bits: every instantiation gives the same bits. The
 * rounding of x / ln2 to an integer and the last step, y 2^n, are exact or correctly rounded
 * results that tiers may reach their own way (AVX-512's roundscale and scalef; AVX2 without
 * products that underflow); all 2^31 inputs with the sign bit set, +0 and the positive NaNs
 * gave the scalar form's bits at every x86 tier, one vector and four.
 *
 * x = n ln2 + r with n = round(x / ln2) (NEAREST below), ln2 split as
 * HI + LO where HI has 15 significant bits, so n * HI is exact for |n| <= 255; |r| <= ln2/2
 * (a little more when x / ln2 rounds before the integer rounding). exp(r) = 1 + (r + r^2 p(r)),
 * p of degree 4 fitted to (exp(r) - 1 - r) / r^2 for the least largest relative error of exp on
 * |r| <= 1.01 ln2/2 (0.055 ulp in exact arithmetic; single precision coefficients); y = exp(r)
 * is in [0.7, 1.42]. Then y 2^n, rounded once (SCALE below). Every float in [-104, 0]: worst
 * 0.976 ulp against double precision. The degree-5 Taylor polynomial it replaced (1/2 + r/6 +
 * ... + r^5/5040) cost one product and one sum more and had a worst of 1.017 ulp; one process
 * alternating both builds, 1 thread, medians of 21: LOG_SUM_EXP FLOAT32 4096 x 4096 over both
 * axes 1.08x, axis 1 1.06x, axis 0 1.03x, [8, 8192, 256] over axis 1 1.04x, 512 x 256 over axis
 * 0 (in L2) 1.13x; FLOAT16 4096 x 8192 over axis 0 1.07x. */
#ifndef DMLCPU_SIMD_LSE_EXPF_H
#define DMLCPU_SIMD_LSE_EXPF_H

#include <stdint.h>
#include <string.h>

/* LSE_EXPF_N: exp of NV vectors x[0..NV) in place, each step over all NV before the next, so
 * that the NV dependency chains (about 60 cycles each) overlap: one vector at a time left a Zen 5
 * core at 11 cycles a vector of 16 where 4 in lockstep take 8.5. Every lane gets the operations
 * of the one-vector form, whatever NV. SCALE(y, n, k) returns y 2^n (k = n as an integer) for
 * y in [0.7, 1.42] and -150 <= n <= 0, rounded once: LSE_SCALE_2STEP below, or a tier's own
 * with the same bits (AVX-512 scalef; AVX2 avoids products that underflow, which cost 4x). */
#define LSE_FOR(NV) _Pragma("GCC unroll 8") for (int w_ = 0; w_ < (NV); w_++)
#define LSE_EXPF_N(V, VI, SET1, SETI, ADD, SUB, MUL, BITS, FLT, ADDI, SUBI, SLL23, RAISE_TO,      \
                   NEAREST, SCALE, x, NV)                                                          \
    do {                                                                                           \
        V n_[NV], r_[NV], p_[NV];                                                                  \
        VI k_[NV];                                                                                 \
        LSE_FOR(NV) x[w_] = RAISE_TO(x[w_], SET1(-104.0f)); /* max(x, lim), NaN stays NaN */       \
        LSE_FOR(NV) NEAREST(MUL(x[w_], SET1(0x1.715476p+0f)), n_[w_], k_[w_]); /* x / ln2 */       \
        LSE_FOR(NV) r_[w_] = SUB(x[w_], MUL(n_[w_], SET1(0x1.62e4p-1f)));                          \
        LSE_FOR(NV) r_[w_] = SUB(r_[w_], MUL(n_[w_], SET1(0x1.7f7d1cp-20f)));                      \
        LSE_FOR(NV) p_[w_] = ADD(MUL(SET1(0x1.6a19aep-10f), r_[w_]), SET1(0x1.123fd4p-7f));        \
        LSE_FOR(NV) p_[w_] = ADD(MUL(p_[w_], r_[w_]), SET1(0x1.555918p-5f));                       \
        LSE_FOR(NV) p_[w_] = ADD(MUL(p_[w_], r_[w_]), SET1(0x1.55548ap-3f));                       \
        LSE_FOR(NV) p_[w_] = ADD(MUL(p_[w_], r_[w_]), SET1(0x1.fffffcp-2f));                       \
        LSE_FOR(NV) p_[w_] = ADD(SET1(1.0f), ADD(r_[w_], MUL(MUL(r_[w_], r_[w_]), p_[w_])));       \
        LSE_FOR(NV) x[w_] = SCALE(p_[w_], n_[w_], k_[w_]);                                         \
        (void)k_; /* a SCALE may take n alone */                                                   \
    } while (0)
/* NEAREST(y, n, k): n = y rounded to the nearest integer, ties to even (a float), and k = n as an
 * integer, for |y| <= 151. LSE_NEAREST_SHIFT adds 1.5 * 2^23, which leaves no bits below the
 * units, and takes it away again (n), or from the sum's bits (k). A tier with a rounding
 * instruction may use it instead: the n it gives differs at most in the sign of a zero
 * (rint(-0.3) = -0, the shift gives +0), which changes no result (r = x - n ln2 is then x, or +0
 * for x = -0, and exp gives 1 either way; all 2^31 inputs with the sign bit set were compared). */
#define LSE_NEAREST_SHIFT(V, SET1, ADD, SUB, BITS, SUBI, y, n, k)                                  \
    do {                                                                                           \
        const V shifter_ = SET1(12582912.0f); /* 1.5 * 2^23 */                                     \
        const V t_ = ADD(y, shifter_);                                                             \
        (n) = SUB(t_, shifter_);                                                                   \
        (k) = SUBI(BITS(t_), BITS(shifter_));                                                      \
    } while (0)
/* y 2^n = (y 2^(n+25)) 2^-25: for -150 <= n <= 0 the first product is a normal number
 * (>= 0.7 * 2^-125), hence exact, so a subnormal result rounds only once, in the second. */
#define LSE_SCALE_2STEP(V, SET1, SETI, MUL, FLT, ADDI, SLL23, y, k)                                \
    MUL(MUL(y, FLT(SLL23(ADDI(k, SETI(127 + 25))))), SET1(0x1p-25f))

/* Four vectors x0..x3 of exp(x) stored at e, EPV elements apart. LSE_EXPQ4_STORE: EXPQ(q) maps
 * q[0..4) in place (the lockstep form). LSE_EACH4_STORE: a one-vector EXP on each, stored at
 * once (SLEEF's FLOAT64 call: held in an array across the four calls, the values were spilled,
 * 1.1x the time). LSE_EXPQ_EACH(q, EXP) is an EXPQ made of a one-vector EXP. */
#define LSE_EXPQ4_STORE(STORE, EXPQ, e, EPV, x0, x1, x2, x3)                                       \
    do {                                                                                           \
        __typeof__(x0) q_[4] = {x0, x1, x2, x3};                                                   \
        EXPQ(q_);                                                                                  \
        for (int i_ = 0; i_ < 4; i_++)                                                             \
            STORE((e) + i_ * (EPV), q_[i_]);                                                       \
    } while (0)
#define LSE_EACH4_STORE(STORE, EXP, e, EPV, x0, x1, x2, x3)                                        \
    do {                                                                                           \
        STORE(e, EXP(x0));                                                                         \
        STORE((e) + (EPV), EXP(x1));                                                               \
        STORE((e) + 2 * (EPV), EXP(x2));                                                           \
        STORE((e) + 3 * (EPV), EXP(x3));                                                           \
    } while (0)
#define LSE_EXPQ_EACH(q, EXP)                                                                      \
    for (int i_ = 0; i_ < 4; i_++)                                                                 \
    (q)[i_] = EXP((q)[i_])

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
#define lse_sc_nearest(y, n, k)                                                                    \
    LSE_NEAREST_SHIFT(float, lse_sc_set1, lse_sc_add, lse_sc_sub, lse_sc_bits, lse_sc_subi, y, n, k)
#define lse_sc_scale(y, n, k)                                                                      \
    LSE_SCALE_2STEP(float, lse_sc_set1, lse_sc_seti, lse_sc_mul, lse_sc_flt, lse_sc_addi,          \
                    lse_sc_sll23, y, k)
static inline float lse_expf_scalar(float x)
{
    float v[1] = {x};
    LSE_EXPF_N(float, int32_t, lse_sc_set1, lse_sc_seti, lse_sc_add, lse_sc_sub, lse_sc_mul,
               lse_sc_bits, lse_sc_flt, lse_sc_addi, lse_sc_subi, lse_sc_sll23, lse_sc_raise_to,
               lse_sc_nearest, lse_sc_scale, v, 1);
    return v[0];
}

#if defined(__AVX2__)
#include <immintrin.h>
#define lse_avx2_sll23(k) _mm256_slli_epi32(k, 23)
/* maxps returns its second operand when either is NaN */
#define lse_avx2_raise_to(x, lim) _mm256_max_ps(lim, x)
/* y 2^n in one product when no lane's result can be subnormal (n >= -125); otherwise those
 * lanes (but NaN ones) take m = y 2^(n+149) (exact, normal: n + 149 >= -1) rounded to an
 * integer, which is the result's bit pattern: below 2^-125 floats are multiples of 2^-149
 * (m = 2^23 is FLT_MIN's bits). A product whose result is subnormal costs a microcode assist on
 * x86. */
static inline __m256 lse_avx2_scale(__m256 y, __m256 n, __m256i k)
{
    (void)n;
    const __m256i lo = _mm256_set1_epi32(-125);
    const __m256i sub = _mm256_cmpgt_epi32(lo, k);
    const __m256 pow2 = _mm256_castsi256_ps(_mm256_slli_epi32(
        _mm256_add_epi32(_mm256_max_epi32(k, lo), _mm256_set1_epi32(127)), 23));
    if (!_mm256_movemask_ps(_mm256_castsi256_ps(sub)))
        return _mm256_mul_ps(y, pow2);
    const __m256i kup = _mm256_min_epi32(k, _mm256_set1_epi32(-126)); /* the subnormal lanes' k */
    const __m256 up = _mm256_castsi256_ps(
        _mm256_slli_epi32(_mm256_add_epi32(kup, _mm256_set1_epi32(149 + 127)), 23));
    const __m256 m = _mm256_castsi256_ps(_mm256_cvtps_epi32(_mm256_mul_ps(y, up)));
    const __m256 take = _mm256_and_ps(_mm256_castsi256_ps(sub), _mm256_cmp_ps(y, y, _CMP_ORD_Q));
    return _mm256_blendv_ps(_mm256_mul_ps(y, pow2), m, take); /* NaN stays NaN */
}
#define lse_avx2_nearest(y, n, k)                                                                  \
    LSE_NEAREST_SHIFT(__m256, _mm256_set1_ps, _mm256_add_ps, _mm256_sub_ps, _mm256_castps_si256,   \
                      _mm256_sub_epi32, y, n, k)
#define LSE_EXPF_AVX2_N(x, NV)                                                                     \
    LSE_EXPF_N(__m256, __m256i, _mm256_set1_ps, _mm256_set1_epi32, _mm256_add_ps, _mm256_sub_ps,   \
               _mm256_mul_ps, _mm256_castps_si256, _mm256_castsi256_ps, _mm256_add_epi32,          \
               _mm256_sub_epi32, lse_avx2_sll23, lse_avx2_raise_to, lse_avx2_nearest,              \
               lse_avx2_scale, x, NV)
static inline __m256 lse_expf_avx2(__m256 x)
{
    __m256 v[1] = {x};
    LSE_EXPF_AVX2_N(v, 1);
    return v[0];
}
/* exp of x[0..4) in place, in lockstep */
static inline __attribute__((always_inline)) void lse_expf4_avx2(__m256 x[4])
{
    LSE_EXPF_AVX2_N(x, 4);
}
#endif

#if defined(__AVX512F__)
#include <immintrin.h>
#define lse_avx512_sll23(k) _mm512_slli_epi32(k, 23)
#define lse_avx512_raise_to(x, lim) _mm512_max_ps(lim, x) /* the second operand when NaN */
/* y 2^n rounded once (n is integral), with no penalty for a subnormal result */
#define lse_avx512_scale(y, n, k) _mm512_scalef_ps(y, n)
/* n by one rounding instruction (scalef takes n, so k is not needed): one operation fewer than
 * the shift, 2.15 -> 2.03 ns per vector of 16 in lockstep fours on a Zen 5 */
#define lse_avx512_nearest(y, n, k)                                                                \
    do {                                                                                           \
        (n) = _mm512_roundscale_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);              \
        (k) = _mm512_setzero_si512();                                                              \
    } while (0)
#define LSE_EXPF_AVX512_N(x, NV)                                                                   \
    LSE_EXPF_N(__m512, __m512i, _mm512_set1_ps, _mm512_set1_epi32, _mm512_add_ps, _mm512_sub_ps,   \
               _mm512_mul_ps, _mm512_castps_si512, _mm512_castsi512_ps, _mm512_add_epi32,          \
               _mm512_sub_epi32, lse_avx512_sll23, lse_avx512_raise_to, lse_avx512_nearest,        \
               lse_avx512_scale, x, NV)
static inline __m512 lse_expf_avx512(__m512 x)
{
    __m512 v[1] = {x};
    LSE_EXPF_AVX512_N(v, 1);
    return v[0];
}
/* exp of x[0..4) in place, in lockstep */
static inline __attribute__((always_inline)) void lse_expf4_avx512(__m512 x[4])
{
    LSE_EXPF_AVX512_N(x, 4);
}
#endif

#if defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#define lse_neon_sll23(k) vshlq_n_s32(k, 23)
#define lse_neon_raise_to(x, lim) vmaxq_f32(x, lim) /* NaN if either is NaN */
#define lse_neon_nearest(y, n, k)                                                                  \
    LSE_NEAREST_SHIFT(float32x4_t, vdupq_n_f32, vaddq_f32, vsubq_f32, vreinterpretq_s32_f32,       \
                      vsubq_s32, y, n, k)
#define lse_neon_scale(y, n, k)                                                                    \
    LSE_SCALE_2STEP(float32x4_t, vdupq_n_f32, vdupq_n_s32, vmulq_f32, vreinterpretq_f32_s32,       \
                    vaddq_s32, lse_neon_sll23, y, k)
#define LSE_EXPF_NEON_N(x, NV)                                                                     \
    LSE_EXPF_N(float32x4_t, int32x4_t, vdupq_n_f32, vdupq_n_s32, vaddq_f32, vsubq_f32, vmulq_f32,  \
               vreinterpretq_s32_f32, vreinterpretq_f32_s32, vaddq_s32, vsubq_s32, lse_neon_sll23, \
               lse_neon_raise_to, lse_neon_nearest, lse_neon_scale, x, NV)
static inline float32x4_t lse_expf_neon(float32x4_t x)
{
    float32x4_t v[1] = {x};
    LSE_EXPF_NEON_N(v, 1);
    return v[0];
}
/* exp of x[0..4) in place, in lockstep */
static inline __attribute__((always_inline)) void lse_expf4_neon(float32x4_t x[4])
{
    LSE_EXPF_NEON_N(x, 4);
}
#endif

#endif
