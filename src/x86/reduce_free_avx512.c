/* AVX-512 (F/BW/DQ/VL) kernels of the order-free reductions: integer SUM, L1, SUM_SQUARE and
 * MULTIPLY (wrapping, in lanes of the input's width: only the low bits of a partial matter), MIN
 * and MAX, ARGMIN and ARGMAX (both directions) for every type. The bodies are in simd/reduce_free.h;
 * this file gives them the vector vocabulary. Lane masks are 64-bit integers (one bit per lane);
 * tails use masked loads, which never touch memory outside the mask. FLOAT16 converts to FLOAT32
 * on load (exact). */
#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512DQ__) || !defined(__AVX512VL__)
#error "reduce_free_avx512.c must be compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl"
#endif

#include <immintrin.h>

#include "kernels.h"
#define COL_ARG_ROW_TEST 1
#include "simd/reduce_free.h"

/* The vocabulary below is defined for every element type, and each kernel family uses part of
 * it: clang would warn of each function a file leaves unused. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wunused-function"
#endif

typedef uint64_t lmask;
static inline lmask lm_zero(void) { return 0; }
static inline lmask lm_or(lmask a, lmask b) { return a | b; }
static inline lmask lm_and(lmask a, lmask b) { return a & b; }
static inline lmask lm_andn(lmask a, lmask b) { return a & ~b; }
static inline int lm_any(lmask a) { return a != 0; }
/* NaN seen: the lanes still ordered, narrowed by masked compares (no mask ORs in between). */
typedef __mmask16 nzacc;
static inline nzacc nz_init(void) { return (__mmask16)0xffff; }
static inline nzacc nz_or(nzacc a, nzacc b) { return _kand_mask16(a, b); }

/* Exchanges neighbouring groups of d bytes (d = 32 ... 1, a constant after inlining). */
static inline __m512i swap_groups(__m512i v, int d)
{
    switch (d) {
    case 32: return _mm512_shuffle_i64x2(v, v, _MM_SHUFFLE(1, 0, 3, 2));
    case 16: return _mm512_shuffle_i64x2(v, v, _MM_SHUFFLE(2, 3, 0, 1));
    case 8: return _mm512_shuffle_epi32(v, _MM_PERM_BADC);
    case 4: return _mm512_shuffle_epi32(v, _MM_PERM_CDAB);
    case 2: return _mm512_shuffle_epi8(v, _mm512_broadcast_i32x4(_mm_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13)));
    default: return _mm512_shuffle_epi8(v, _mm512_broadcast_i32x4(_mm_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14)));
    }
}

/* Multi-row folds: b in the upper d bytes of each 2d, a elsewhere. */
#define VEC_BYTES 64
typedef __m512i ivec;
static inline __m512i group_blend(__m512i a, __m512i b, int d)
{
    static const uint64_t m[6] = {0xAAAAAAAAAAAAAAAAu, 0xCCCCCCCCCCCCCCCCu, 0xF0F0F0F0F0F0F0F0u,
                                  0xFF00FF00FF00FF00u, 0xFFFF0000FFFF0000u, 0xFFFFFFFF00000000u};
    return _mm512_mask_blend_epi8(m[__builtin_ctz((unsigned)d)], a, b);
}

/* ---- index vectors: row numbers per lane, 16-bit lanes for 8- and 16-bit types ---- */

typedef struct { __m512i lo, hi; } iv_w8;
typedef __m512i iv_w16, iv_w32, iv_w64;
typedef uint16_t ix_w8, ix_w16;
typedef uint32_t ix_w32;
typedef uint64_t ix_w64;
static inline iv_w8 izero_w8(void)
{
    return (iv_w8){_mm512_setzero_si512(), _mm512_setzero_si512()};
}
static inline iv_w8 iblend_w8(iv_w8 v, lmask m, size_t r)
{
    const __m512i rv = _mm512_set1_epi16((short)r);
    v.lo = _mm512_mask_mov_epi16(v.lo, (__mmask32)m, rv);
    v.hi = _mm512_mask_mov_epi16(v.hi, (__mmask32)(m >> 32), rv);
    return v;
}
static inline void ist_w8(ix_w8 *d, iv_w8 v)
{
    _mm512_storeu_si512(d, v.lo);
    _mm512_storeu_si512(d + 32, v.hi);
}
#define DEF_IDX(W, SET1, MOV, MT)                                                                  \
    static inline iv_##W izero_##W(void) { return _mm512_setzero_si512(); }                        \
    static inline iv_##W iblend_##W(iv_##W v, lmask m, size_t r) { return MOV(v, (MT)m, SET1(r)); } \
    static inline void ist_##W(ix_##W *d, iv_##W v) { _mm512_storeu_si512(d, v); }
#define SET1_W16(r) _mm512_set1_epi16((short)(r))
#define SET1_W32(r) _mm512_set1_epi32((int)(r))
#define SET1_W64(r) _mm512_set1_epi64((long long)(r))
DEF_IDX(w16, SET1_W16, _mm512_mask_mov_epi16, __mmask32)
DEF_IDX(w32, SET1_W32, _mm512_mask_mov_epi32, __mmask16)
DEF_IDX(w64, SET1_W64, _mm512_mask_mov_epi64, __mmask8)

/* ---- the vocabulary per type ---- */

/* What integer and float types share: S suffix, lane type, lanes, index width, and the
 * intrinsic suffixes P (arithmetic and compares) and B (blend). */
#define DEF_COMMON(S, L, N, IW, HAS_NAN, P, B, CMP, VEC, BI, IB)                                   \
    typedef VEC vec_##S;                                                                           \
    typedef L lane_##S;                                                                            \
    typedef iv_##IW iv_##S;                                                                        \
    typedef ix_##IW ix_##S;                                                                        \
    enum { EPV_##S = N, NAN_##S = HAS_NAN };                                                       \
    static inline __m512i bi_##S(vec_##S v) { return BI(v); }                                      \
    static inline vec_##S ib_##S(__m512i v) { return IB(v); }                                      \
    static inline vec_##S max_##S(vec_##S a, vec_##S b) { return _mm512_max_##P(a, b); }           \
    static inline vec_##S min_##S(vec_##S a, vec_##S b) { return _mm512_min_##P(a, b); }           \
    static inline lmask gt_##S(vec_##S a, vec_##S b) { return _mm512_cmp_##P##_mask(a, b, CMP##GT); } \
    static inline lmask ge_##S(vec_##S a, vec_##S b) { return _mm512_cmp_##P##_mask(a, b, CMP##GE); } \
    static inline lmask lt_##S(vec_##S a, vec_##S b) { return _mm512_cmp_##P##_mask(a, b, CMP##LT); } \
    static inline lmask le_##S(vec_##S a, vec_##S b) { return _mm512_cmp_##P##_mask(a, b, CMP##LE); } \
    static inline lmask eq_##S(vec_##S a, vec_##S b) { return _mm512_cmp_##P##_mask(a, b, CMP##EQ); } \
    static inline vec_##S blend_##S(lmask m, vec_##S a, vec_##S b)                                 \
    {                                                                                              \
        return _mm512_mask_blend_##B(m, a, b);                                                     \
    }                                                                                              \
    static inline uint64_t bits_##S(lmask m) { return m; }                                         \
    static inline lmask valid_##S(size_t n) { return first_lanes(n); }                             \
    static inline iv_##S izero_##S(void) { return izero_##IW(); }                                  \
    static inline iv_##S iblend_##S(iv_##S v, lmask m, size_t r) { return iblend_##IW(v, m, r); }  \
    static inline void ist_##S(ix_##S *d, iv_##S v) { ist_##IW(d, v); }                            \
    DEF_HRED(hmax_##S, S, max_##S, 64 / (N), 64, swap_groups)                                      \
    DEF_HRED(hmin_##S, S, min_##S, (int)sizeof(L) < 4 ? (int)sizeof(L) : 64 / N, 64, swap_groups)

#define CMPI_GT _MM_CMPINT_NLE
#define CMPI_GE _MM_CMPINT_NLT
#define CMPI_LT _MM_CMPINT_LT
#define CMPI_LE _MM_CMPINT_LE
#define CMPI_EQ _MM_CMPINT_EQ
#define CMPF_GT _CMP_GT_OQ
#define CMPF_GE _CMP_GE_OQ
#define CMPF_LT _CMP_LT_OQ
#define CMPF_LE _CMP_LE_OQ
#define CMPF_EQ _CMP_EQ_OQ
#define SAME(v) (v)

/* Integers: E is the element intrinsic suffix (epi8 ...), P the arithmetic one (epi8 or epu8). */
#define DEF_INT(S, T, N, IW, E, P, LO, HI)                                                         \
    DEF_COMMON(S, T, N, IW, 0, P, E, CMPI_, __m512i, SAME, SAME)                                   \
    static inline vec_##S ld_##S(const T *p) { return _mm512_loadu_si512(p); }                     \
    static inline vec_##S ldn_##S(const T *p, size_t n, vec_##S f)                                 \
    {                                                                                              \
        return _mm512_mask_loadu_##E(f, first_lanes(n), p);                                        \
    }                                                                                              \
    static inline void st_##S(T *d, vec_##S v) { _mm512_storeu_si512(d, v); }                      \
    static inline vec_##S dup_##S(size_t x) { return _mm512_set1_##E((T)x); }                      \
    static inline vec_##S bc_##S(T x) { return _mm512_set1_##E(x); }                               \
    static inline vec_##S inc_##S(vec_##S v) { return _mm512_add_##E(v, _mm512_set1_##E(1)); }     \
    static inline vec_##S lo_##S(void) { return _mm512_set1_##E((T)(LO)); }                        \
    static inline vec_##S hi_##S(void) { return _mm512_set1_##E((T)(HI)); }                        \
    static inline vec_##S qnan_##S(void) { return _mm512_setzero_si512(); }                        \
    static inline lmask nan_##S(vec_##S a, vec_##S b) { (void)a, (void)b; return 0; }              \
    static inline nzacc nz_add_##S(nzacc z, vec_##S a, vec_##S b) { (void)a, (void)b; return z; }  \
    static inline int nz_any_##S(nzacc z) { (void)z; return 0; }                                   \
    static inline T lane0_##S(vec_##S v) { return (T)_mm_cvtsi128_si64(_mm512_castsi512_si128(v)); } \
    static inline T ld1_##S(const T *p) { return *p; }

DEF_INT(i8, int8_t, 64, w8, epi8, epi8, INT8_MIN, INT8_MAX)
DEF_INT(u8, uint8_t, 64, w8, epi8, epu8, 0, UINT8_MAX)
DEF_INT(i16, int16_t, 32, w16, epi16, epi16, INT16_MIN, INT16_MAX)
DEF_INT(u16, uint16_t, 32, w16, epi16, epu16, 0, UINT16_MAX)
DEF_INT(i32, int32_t, 16, w32, epi32, epi32, INT32_MIN, INT32_MAX)
DEF_INT(u32, uint32_t, 16, w32, epi32, epu32, 0, UINT32_MAX)
DEF_INT(i64, int64_t, 8, w64, epi64, epi64, INT64_MIN, INT64_MAX)
DEF_INT(u64, uint64_t, 8, w64, epi64, epu64, 0, UINT64_MAX)

/* Floats: P is ps or pd; LD / LDN load (and convert) full and partial vectors. */
#define DEF_FLOAT(S, T, L, N, IW, P, VEC, LD, LDN, LANE0)                                          \
    DEF_COMMON(S, L, N, IW, 1, P, P, CMPF_, VEC, _mm512_cast##P##_si512, _mm512_castsi512_##P)     \
    static inline vec_##S ld_##S(const T *p) { return LD(p); }                                     \
    static inline vec_##S ldn_##S(const T *p, size_t n, vec_##S f) { return LDN(p, n, f); }        \
    static inline void st_##S(L *d, vec_##S v) { _mm512_storeu_##P(d, v); }                        \
    static inline vec_##S lo_##S(void) { return _mm512_set1_##P(-INFINITY); }                      \
    static inline vec_##S hi_##S(void) { return _mm512_set1_##P(INFINITY); }                       \
    static inline vec_##S qnan_##S(void) { return _mm512_set1_##P(NAN); }                          \
    static inline vec_##S bc_##S(L x) { return _mm512_set1_##P(x); }                               \
    static inline lmask nan_##S(vec_##S a, vec_##S b) { return _mm512_cmp_##P##_mask(a, b, _CMP_UNORD_Q); } \
    static inline nzacc nz_add_##S(nzacc z, vec_##S a, vec_##S b)                                  \
    {                                                                                              \
        return (nzacc)_mm512_mask_cmp_##P##_mask(z, a, b, _CMP_ORD_Q);                             \
    }                                                                                              \
    static inline int nz_any_##S(nzacc z) { return (z & first_lanes(N)) != first_lanes(N); }       \
    static inline L lane0_##S(vec_##S v) { return LANE0(v); }

#define LDN_PS(p, n, f) _mm512_mask_loadu_ps(f, (__mmask16)first_lanes(n), p)
#define LDN_PD(p, n, f) _mm512_mask_loadu_pd(f, (__mmask8)first_lanes(n), p)
#define LD_PH(p) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p)))
#define LDN_PH(p, n, f)                                                                            \
    _mm512_mask_blend_ps((__mmask16)first_lanes(n), f,                                             \
                         _mm512_cvtph_ps(_mm256_maskz_loadu_epi16((__mmask16)first_lanes(n), p)))
DEF_FLOAT(f32, float, float, 16, w32, ps, __m512, _mm512_loadu_ps, LDN_PS, _mm512_cvtss_f32)
DEF_FLOAT(f16, uint16_t, float, 16, w32, ps, __m512, LD_PH, LDN_PH, _mm512_cvtss_f32)
DEF_FLOAT(f64, double, double, 8, w64, pd, __m512d, _mm512_loadu_pd, LDN_PD, _mm512_cvtsd_f64)

/* One element as a lane value. */
static inline float ld1_f32(const float *p) { return *p; }
static inline float ld1_f16(const uint16_t *p) { return _cvtsh_ss(*p); }
static inline double ld1_f64(const double *p) { return *p; }

DEF_CIDS()

/* ---- IEEE 754-2019 maximum / minimum of floats: VRANGE orders -0 below +0 but passes over a
 * quiet NaN, so lanes where either input is NaN take a + b (a NaN) instead. ---- */

#define DEF_MINMAX754(S, P, MT)                                                                    \
    static inline vec_##S max754_##S(vec_##S a, vec_##S b)                                         \
    {                                                                                              \
        KEEP(a);                                                                                   \
        KEEP(b);                                                                                   \
        const MT u = _mm512_cmp_##P##_mask(a, b, _CMP_UNORD_Q);                                    \
        return _mm512_mask_add_##P(_mm512_range_##P(a, b, 0x05), u, a, b);                         \
    }                                                                                              \
    static inline vec_##S min754_##S(vec_##S a, vec_##S b)                                         \
    {                                                                                              \
        KEEP(a);                                                                                   \
        KEEP(b);                                                                                   \
        const MT u = _mm512_cmp_##P##_mask(a, b, _CMP_UNORD_Q);                                    \
        return _mm512_mask_add_##P(_mm512_range_##P(a, b, 0x04), u, a, b);                         \
    }
/* The same without the NaN fix, for kernels that find NaN otherwise. */
#define DEF_RNG754(S, P)                                                                           \
    static inline vec_##S rng_max754_##S(vec_##S a, vec_##S b) { return _mm512_range_##P(a, b, 0x05); } \
    static inline vec_##S rng_min754_##S(vec_##S a, vec_##S b) { return _mm512_range_##P(a, b, 0x04); }
DEF_RNG754(f32, ps)
DEF_RNG754(f16, ps)
DEF_RNG754(f64, pd)
DEF_MINMAX754(f32, ps, __mmask16)
DEF_MINMAX754(f16, ps, __mmask16)
DEF_MINMAX754(f64, pd, __mmask8)

/* ---- integer sums in lanes of the input's width ---- */

static inline __m512i zero_w(void) { return _mm512_setzero_si512(); }
static inline __m512i one_w32(void) { return _mm512_set1_epi32(1); }
static inline __m512i one_w64(void) { return _mm512_set1_epi64(1); }
#define MAP_ID(v) (v)
#define SQ_W32(v) _mm512_mullo_epi32(v, v)
#define SQ_W64(v) _mm512_mullo_epi64(v, v)
typedef __m512i vec_w32, vec_w64;
static inline __m512i bi_w32(__m512i v) { return v; }
static inline __m512i ib_w32(__m512i v) { return v; }
#define bi_w64 bi_w32
#define ib_w64 ib_w32
DEF_HRED(hadd_w32, w32, _mm512_add_epi32, 4, 64, swap_groups)
DEF_HRED(hmul_w32, w32, _mm512_mullo_epi32, 4, 64, swap_groups)
DEF_HRED(hadd_w64, w64, _mm512_add_epi64, 8, 64, swap_groups)
DEF_HRED(hmul_w64, w64, _mm512_mullo_epi64, 8, 64, swap_groups)

/* ---- the kernels: kind, type, row and column kernel names, family, parameters ---- */

#define FREE_KERNELS(X)                                                                            \
    /* integer sums: T, suffix, identity, map, op, reduction over lanes, field */                  \
    X(RK_SUM, INT32, reduce_row_sum_i32_avx512, reduce_col_sum_i32_avx512, FOLD, int32_t, i32, zero_w, MAP_ID, _mm512_add_epi32, hadd_w32, u64) \
    X(RK_SUM, UINT32, reduce_row_sum_u32_avx512, reduce_col_sum_u32_avx512, FOLD, uint32_t, u32, zero_w, MAP_ID, _mm512_add_epi32, hadd_w32, u64) \
    X(RK_SUM, INT64, reduce_row_sum_i64_avx512, reduce_col_sum_i64_avx512, FOLD, int64_t, i64, zero_w, MAP_ID, _mm512_add_epi64, hadd_w64, u64) \
    X(RK_SUM, UINT64, reduce_row_sum_u64_avx512, reduce_col_sum_u64_avx512, FOLD, uint64_t, u64, zero_w, MAP_ID, _mm512_add_epi64, hadd_w64, u64) \
    X(RK_ASUM, INT32, reduce_row_asum_i32_avx512, reduce_col_asum_i32_avx512, FOLD, int32_t, i32, zero_w, _mm512_abs_epi32, _mm512_add_epi32, hadd_w32, u64) \
    X(RK_ASUM, UINT32, reduce_row_asum_u32_avx512, reduce_col_asum_u32_avx512, FOLD, uint32_t, u32, zero_w, MAP_ID, _mm512_add_epi32, hadd_w32, u64) \
    X(RK_ASUM, INT64, reduce_row_asum_i64_avx512, reduce_col_asum_i64_avx512, FOLD, int64_t, i64, zero_w, _mm512_abs_epi64, _mm512_add_epi64, hadd_w64, u64) \
    X(RK_ASUM, UINT64, reduce_row_asum_u64_avx512, reduce_col_asum_u64_avx512, FOLD, uint64_t, u64, zero_w, MAP_ID, _mm512_add_epi64, hadd_w64, u64) \
    X(RK_SQSUM, INT32, reduce_row_sqsum_i32_avx512, reduce_col_sqsum_i32_avx512, FOLD, int32_t, i32, zero_w, SQ_W32, _mm512_add_epi32, hadd_w32, u64) \
    X(RK_SQSUM, UINT32, reduce_row_sqsum_u32_avx512, reduce_col_sqsum_u32_avx512, FOLD, uint32_t, u32, zero_w, SQ_W32, _mm512_add_epi32, hadd_w32, u64) \
    X(RK_SQSUM, INT64, reduce_row_sqsum_i64_avx512, reduce_col_sqsum_i64_avx512, FOLD, int64_t, i64, zero_w, SQ_W64, _mm512_add_epi64, hadd_w64, u64) \
    X(RK_SQSUM, UINT64, reduce_row_sqsum_u64_avx512, reduce_col_sqsum_u64_avx512, FOLD, uint64_t, u64, zero_w, SQ_W64, _mm512_add_epi64, hadd_w64, u64) \
    X(RK_PROD, INT32, reduce_row_prod_i32_avx512, reduce_col_prod_i32_avx512, FOLD, int32_t, i32, one_w32, MAP_ID, _mm512_mullo_epi32, hmul_w32, u64) \
    X(RK_PROD, UINT32, reduce_row_prod_u32_avx512, reduce_col_prod_u32_avx512, FOLD, uint32_t, u32, one_w32, MAP_ID, _mm512_mullo_epi32, hmul_w32, u64) \
    X(RK_PROD, INT64, reduce_row_prod_i64_avx512, reduce_col_prod_i64_avx512, FOLD, int64_t, i64, one_w64, MAP_ID, _mm512_mullo_epi64, hmul_w64, u64) \
    X(RK_PROD, UINT64, reduce_row_prod_u64_avx512, reduce_col_prod_u64_avx512, FOLD, uint64_t, u64, one_w64, MAP_ID, _mm512_mullo_epi64, hmul_w64, u64) \
    /* integer MIN / MAX: T, suffix, identity, map, op, reduction over lanes, field */             \
    X(RK_MAX, INT8, reduce_row_max_i8_avx512, reduce_col_max_i8_avx512, FOLD, int8_t, i8, lo_i8, MAP_ID, max_i8, hmax_i8, i64) \
    X(RK_MAX, UINT8, reduce_row_max_u8_avx512, reduce_col_max_u8_avx512, FOLD, uint8_t, u8, lo_u8, MAP_ID, max_u8, hmax_u8, u64) \
    X(RK_MAX, INT16, reduce_row_max_i16_avx512, reduce_col_max_i16_avx512, FOLD, int16_t, i16, lo_i16, MAP_ID, max_i16, hmax_i16, i64) \
    X(RK_MAX, UINT16, reduce_row_max_u16_avx512, reduce_col_max_u16_avx512, FOLD, uint16_t, u16, lo_u16, MAP_ID, max_u16, hmax_u16, u64) \
    X(RK_MAX, INT32, reduce_row_max_i32_avx512, reduce_col_max_i32_avx512, FOLD, int32_t, i32, lo_i32, MAP_ID, max_i32, hmax_i32, i64) \
    X(RK_MAX, UINT32, reduce_row_max_u32_avx512, reduce_col_max_u32_avx512, FOLD, uint32_t, u32, lo_u32, MAP_ID, max_u32, hmax_u32, u64) \
    X(RK_MAX, INT64, reduce_row_max_i64_avx512, reduce_col_max_i64_avx512, FOLD, int64_t, i64, lo_i64, MAP_ID, max_i64, hmax_i64, i64) \
    X(RK_MAX, UINT64, reduce_row_max_u64_avx512, reduce_col_max_u64_avx512, FOLD, uint64_t, u64, lo_u64, MAP_ID, max_u64, hmax_u64, u64) \
    X(RK_MIN, INT8, reduce_row_min_i8_avx512, reduce_col_min_i8_avx512, FOLD, int8_t, i8, hi_i8, MAP_ID, min_i8, hmin_i8, i64) \
    X(RK_MIN, UINT8, reduce_row_min_u8_avx512, reduce_col_min_u8_avx512, FOLD, uint8_t, u8, hi_u8, MAP_ID, min_u8, hmin_u8, u64) \
    X(RK_MIN, INT16, reduce_row_min_i16_avx512, reduce_col_min_i16_avx512, FOLD, int16_t, i16, hi_i16, MAP_ID, min_i16, hmin_i16, i64) \
    X(RK_MIN, UINT16, reduce_row_min_u16_avx512, reduce_col_min_u16_avx512, FOLD, uint16_t, u16, hi_u16, MAP_ID, min_u16, hmin_u16, u64) \
    X(RK_MIN, INT32, reduce_row_min_i32_avx512, reduce_col_min_i32_avx512, FOLD, int32_t, i32, hi_i32, MAP_ID, min_i32, hmin_i32, i64) \
    X(RK_MIN, UINT32, reduce_row_min_u32_avx512, reduce_col_min_u32_avx512, FOLD, uint32_t, u32, hi_u32, MAP_ID, min_u32, hmin_u32, u64) \
    X(RK_MIN, INT64, reduce_row_min_i64_avx512, reduce_col_min_i64_avx512, FOLD, int64_t, i64, hi_i64, MAP_ID, min_i64, hmin_i64, i64) \
    X(RK_MIN, UINT64, reduce_row_min_u64_avx512, reduce_col_min_u64_avx512, FOLD, uint64_t, u64, hi_u64, MAP_ID, min_u64, hmin_u64, u64) \
    /* float MIN / MAX: T, suffix, fill, three (operation, integer type) accumulators, result,     \
     * field, then the exact lanewise operation of the column kernel and VRANGE */                            \
    X(RK_MAX, FLOAT32, reduce_row_max_f32_avx512, reduce_col_max_f32_avx512, FMMV, float, f32, lo, max, i32, min, i32, max, u32, fmax_bits32, f32, max754_f32, rng_max754_f32) \
    X(RK_MAX, FLOAT16, reduce_row_max_f16_avx512, reduce_col_max_f16_avx512, FMMV, uint16_t, f16, lo, max, i32, min, i32, max, u32, fmax_bits32, f32, max754_f16, rng_max754_f16) \
    X(RK_MAX, FLOAT64, reduce_row_max_f64_avx512, reduce_col_max_f64_avx512, FMMV, double, f64, lo, max, i64, min, i64, max, u64, fmax_bits64, f64, max754_f64, rng_max754_f64) \
    X(RK_MIN, FLOAT32, reduce_row_min_f32_avx512, reduce_col_min_f32_avx512, FMMV, float, f32, hi, max, u32, min, u32, max, i32, fmin_bits32, f32, min754_f32, rng_min754_f32) \
    X(RK_MIN, FLOAT16, reduce_row_min_f16_avx512, reduce_col_min_f16_avx512, FMMV, uint16_t, f16, hi, max, u32, min, u32, max, i32, fmin_bits32, f32, min754_f16, rng_min754_f16) \
    X(RK_MIN, FLOAT64, reduce_row_min_f64_avx512, reduce_col_min_f64_avx512, FMMV, double, f64, hi, max, u64, min, u64, max, i64, fmin_bits64, f64, min754_f64, rng_min754_f64)

/* ARG*: FREE_ARG_KERNELS (simd/reduce_free.h), named with this suffix */
#define FREE_SFX avx512

#define DEF_FOLD(ROW, COL, ...)                                                                    \
    DEF_ROW_FOLD(ROW, __VA_ARGS__) DEF_ROWS_FOLD(ROW##_rows, __VA_ARGS__) DEF_COL_FOLD(COL, __VA_ARGS__)
/* float MIN/MAX: rows keep three integer accumulators (one operation each, fastest in cache);
 * columns, whose running values live in the scratch buffer, keep one (VRANGE, NaN checked
 * apart) */
#define DEF_FMMV(ROW, COL, T, S, FILL, O1, S1, O2, S2, O3, S3, RES, FIELD, OP, RANGE)              \
    DEF_ROW_FMM(ROW, T, S, FILL, O1, S1, O2, S2, O3, S3, RES, FIELD)                               \
    DEF_ROWS_RNG(ROW##_rows, T, S, FILL, rng_##OP, FIELD)                                          \
    DEF_COL_FRANGE(COL, T, S, FILL##_##S, OP, RANGE, FIELD)
#define DEF_ARG(ROW, COL, ...)                                                                     \
    DEF_ROW_ARG(ROW, __VA_ARGS__) DEF_ROWS_ARG(ROW##_rows, ROW, __VA_ARGS__) DEF_COL_ARG(COL, __VA_ARGS__)
#define DEFINE_KERNELS(KIND, TYPE, ROW, COL, FAMILY, ...) DEF_##FAMILY(ROW, COL, __VA_ARGS__)
FREE_KERNELS(DEFINE_KERNELS)
FREE_ARG_KERNELS(DEFINE_KERNELS)

#define ENTRY(KIND, TYPE, ROW, COL, ...)                                                           \
    .row[KIND][DMLCPU_DATA_TYPE_##TYPE] = ROW, .rows[KIND][DMLCPU_DATA_TYPE_##TYPE] = ROW##_rows,    \
    .col[KIND][DMLCPU_DATA_TYPE_##TYPE] = COL,
const kernel_table dmlcpu_kernels_avx512_free = {
    .isa = DMLCPU_ISA_AVX512,
    FREE_KERNELS(ENTRY) FREE_ARG_KERNELS(ENTRY)
};
