/* AVX2 kernels of the order-free reductions: integer SUM, L1, SUM_SQUARE and MULTIPLY (wrapping,
 * in lanes of the input's width: only the low bits of a partial matter), MIN and MAX, ARGMIN and
 * ARGMAX (both directions) for every type. The bodies are in simd/reduce_free.h; this file gives them
 * the vector vocabulary. Lane masks are vectors (all ones per selected lane). AVX2 lacks 64-bit
 * min/max, unsigned compares and a 64-bit multiply: they are built from signed compares, sign
 * flips and 32-bit multiplies. Partial vectors are read with masked loads (32/64-bit lanes) or
 * piecewise (8/16-bit), never past their last element. FLOAT16 converts to FLOAT32 on load. */
#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "reduce_free_avx2.c must be compiled with -mavx2 -mfma -mf16c"
#endif

#include <immintrin.h>

#include "kernels.h"
#include "simd/reduce_free.h"

/* The vocabulary below is defined for every element type, and each kernel family uses part of
 * it: clang would warn of each function a file leaves unused. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wunused-function"
#endif

typedef __m256i lmask;
static inline lmask lm_zero(void) { return _mm256_setzero_si256(); }
static inline lmask lm_or(lmask a, lmask b) { return _mm256_or_si256(a, b); }
static inline lmask lm_and(lmask a, lmask b) { return _mm256_and_si256(a, b); }
static inline lmask lm_andn(lmask a, lmask b) { return _mm256_andnot_si256(b, a); }
static inline int lm_any(lmask a) { return !_mm256_testz_si256(a, a); }
/* NaN seen: lanes where a compare found one. */
typedef __m256i nzacc;
static inline nzacc nz_init(void) { return _mm256_setzero_si256(); }
static inline nzacc nz_or(nzacc a, nzacc b) { return _mm256_or_si256(a, b); }

/* The first nb <= 32 bytes set. */
static const int8_t slide[64] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                 -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
static inline __m256i first_bytes(size_t nb)
{
    return _mm256_loadu_si256((const __m256i *)(slide + 32 - nb));
}

/* nb < 16 bytes from p, zeros above, in pieces of 8, 4, 2, 1 bytes. */
static inline __m128i ld_part128(const void *p, size_t nb)
{
    const unsigned char *c = p;
    uint64_t q = 0, t = 0;
    size_t o = 0, sh = 0;
    if (nb & 8) {
        memcpy(&q, c, 8);
        o = 8;
    }
    if (nb & 4) {
        uint32_t w;
        memcpy(&w, c + o, 4);
        t = w;
        sh = 32;
        o += 4;
    }
    if (nb & 2) {
        uint16_t w;
        memcpy(&w, c + o, 2);
        t |= (uint64_t)w << sh;
        sh += 16;
        o += 2;
    }
    if (nb & 1)
        t |= (uint64_t)c[o] << sh;
    return nb & 8 ? _mm_set_epi64x((long long)t, (long long)q) : _mm_set_epi64x(0, (long long)t);
}
/* nb < 32 bytes from p, zeros above. */
static inline __m256i ld_part(const void *p, size_t nb)
{
    const unsigned char *c = p;
    if (nb >= 16)
        return _mm256_set_m128i(ld_part128(c + 16, nb - 16), _mm_loadu_si128((const __m128i *)c));
    return _mm256_set_m128i(_mm_setzero_si128(), ld_part128(c, nb));
}
static inline __m256i ldn_b(const void *p, size_t nb, __m256i f)
{
    return _mm256_blendv_epi8(f, ld_part(p, nb), first_bytes(nb));
}
static inline __m256i ldn_d(const void *p, size_t nb, __m256i f)
{
    const __m256i m = first_bytes(nb);
    return _mm256_blendv_epi8(f, _mm256_maskload_epi32(p, m), m);
}
static inline __m256i ldn_q(const void *p, size_t nb, __m256i f)
{
    const __m256i m = first_bytes(nb);
    return _mm256_blendv_epi8(f, _mm256_maskload_epi64(p, m), m);
}

/* Exchanges neighbouring groups of d bytes (d = 16 ... 1, a constant after inlining). */
static inline __m256i swap_groups(__m256i v, int d)
{
    switch (d) {
    case 16: return _mm256_permute4x64_epi64(v, _MM_SHUFFLE(1, 0, 3, 2));
    case 8: return _mm256_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2));
    case 4: return _mm256_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1));
    case 2: return _mm256_shuffle_epi8(v, _mm256_broadcastsi128_si256(_mm_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13)));
    default: return _mm256_shuffle_epi8(v, _mm256_broadcastsi128_si256(_mm_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14)));
    }
}

/* Multi-row folds: b in the upper d bytes of each 2d, a elsewhere. */
#define VEC_BYTES 32
typedef __m256i ivec;
static inline __m256i group_blend(__m256i a, __m256i b, int d)
{
    switch (d) {
    case 16: return _mm256_blend_epi32(a, b, 0xF0);
    case 8: return _mm256_blend_epi32(a, b, 0xCC);
    case 4: return _mm256_blend_epi32(a, b, 0xAA);
    case 2: return _mm256_blend_epi16(a, b, 0xAA);
    default: return _mm256_blendv_epi8(a, b, _mm256_set1_epi16((short)0xFF00));
    }
}

/* ---- what AVX2 lacks: unsigned compares, 64-bit min/max and multiply, 64-bit abs ---- */

#define DEF_UGT(NAME, E, SIGN)                                                                     \
    static inline __m256i NAME(__m256i a, __m256i b)                                               \
    {                                                                                              \
        const __m256i s = _mm256_set1_##E(SIGN);                                                   \
        return _mm256_cmpgt_##E(_mm256_xor_si256(a, s), _mm256_xor_si256(b, s));                   \
    }
DEF_UGT(cmpgt_u8, epi8, (char)0x80)
DEF_UGT(cmpgt_u16, epi16, (short)0x8000)
DEF_UGT(cmpgt_u32, epi32, (int)0x80000000u)
static inline __m256i cmpgt_u64(__m256i a, __m256i b)
{
    const __m256i s = _mm256_set1_epi64x((long long)0x8000000000000000u);
    return _mm256_cmpgt_epi64(_mm256_xor_si256(a, s), _mm256_xor_si256(b, s));
}
static inline __m256i max_s64(__m256i a, __m256i b)
{
    return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(b, a));
}
static inline __m256i min_s64(__m256i a, __m256i b)
{
    return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b));
}
static inline __m256i max_u64v(__m256i a, __m256i b)
{
    return _mm256_blendv_epi8(a, b, cmpgt_u64(b, a));
}
static inline __m256i min_u64v(__m256i a, __m256i b)
{
    return _mm256_blendv_epi8(a, b, cmpgt_u64(a, b));
}
static inline __m256i mullo64(__m256i a, __m256i b)
{
    const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b),
                                           _mm256_mul_epu32(a, _mm256_srli_epi64(b, 32)));
    return _mm256_add_epi64(_mm256_mul_epu32(a, b), _mm256_slli_epi64(cross, 32));
}
static inline __m256i sq64(__m256i a)
{
    return _mm256_add_epi64(_mm256_mul_epu32(a, a),
                            _mm256_slli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), a), 33));
}
static inline __m256i abs64(__m256i a)
{
    const __m256i s = _mm256_cmpgt_epi64(_mm256_setzero_si256(), a);
    return _mm256_sub_epi64(_mm256_xor_si256(a, s), s);
}
static inline __m256i sq32(__m256i a) { return _mm256_mullo_epi32(a, a); }

/* ---- index vectors: row numbers per lane, 16-bit lanes for 8- and 16-bit types ---- */

typedef struct { __m256i lo, hi; } iv_w8;
typedef __m256i iv_w16, iv_w32, iv_w64;
typedef uint16_t ix_w8, ix_w16;
typedef uint32_t ix_w32;
typedef uint64_t ix_w64;
static inline iv_w8 izero_w8(void)
{
    return (iv_w8){_mm256_setzero_si256(), _mm256_setzero_si256()};
}
static inline iv_w8 iblend_w8(iv_w8 v, lmask m, size_t r)
{
    const __m256i rv = _mm256_set1_epi16((short)r);
    v.lo = _mm256_blendv_epi8(v.lo, rv, _mm256_cvtepi8_epi16(_mm256_castsi256_si128(m)));
    v.hi = _mm256_blendv_epi8(v.hi, rv, _mm256_cvtepi8_epi16(_mm256_extracti128_si256(m, 1)));
    return v;
}
static inline void ist_w8(ix_w8 *d, iv_w8 v)
{
    _mm256_storeu_si256((__m256i *)d, v.lo);
    _mm256_storeu_si256((__m256i *)(d + 16), v.hi);
}
#define DEF_IDX(W, SET1)                                                                           \
    static inline iv_##W izero_##W(void) { return _mm256_setzero_si256(); }                        \
    static inline iv_##W iblend_##W(iv_##W v, lmask m, size_t r) { return _mm256_blendv_epi8(v, SET1(r), m); } \
    static inline void ist_##W(ix_##W *d, iv_##W v) { _mm256_storeu_si256((__m256i *)d, v); }
#define SET1_W16(r) _mm256_set1_epi16((short)(r))
#define SET1_W32(r) _mm256_set1_epi32((int)(r))
#define SET1_W64(r) _mm256_set1_epi64x((long long)(r))
DEF_IDX(w16, SET1_W16)
DEF_IDX(w32, SET1_W32)
DEF_IDX(w64, SET1_W64)

/* ---- the vocabulary per type ---- */

#define DEF_COMMON(S, L, N, IW, HAS_NAN, VEC, BI, IB)                                              \
    typedef VEC vec_##S;                                                                           \
    typedef L lane_##S;                                                                            \
    typedef iv_##IW iv_##S;                                                                        \
    typedef ix_##IW ix_##S;                                                                        \
    enum { EPV_##S = N, NAN_##S = HAS_NAN };                                                       \
    static inline __m256i bi_##S(vec_##S v) { return BI(v); }                                      \
    static inline vec_##S ib_##S(__m256i v) { return IB(v); }                                      \
    static inline lmask valid_##S(size_t n) { return first_bytes(n * sizeof(L)); }                 \
    static inline iv_##S izero_##S(void) { return izero_##IW(); }                                  \
    static inline iv_##S iblend_##S(iv_##S v, lmask m, size_t r) { return iblend_##IW(v, m, r); }  \
    static inline void ist_##S(ix_##S *d, iv_##S v) { ist_##IW(d, v); }
#define DEF_HREDS(S, N)                                                                            \
    DEF_HRED(hmax_##S, S, max_##S, 32 / (N), 32, swap_groups)                                      \
    DEF_HRED(hmin_##S, S, min_##S, 32 / (N), 32, swap_groups)
#define SAME(v) (v)

/* Integers: E is the element intrinsic suffix (epi8 ...), MAXF / MINF / GTF the lanewise max,
 * min and greater-than, LDN the partial load, BITS the lane mask as bits. */
#define DEF_INT(S, T, N, IW, E, MAXF, MINF, GTF, LDN, BITS, LO, HI)                                \
    DEF_COMMON(S, T, N, IW, 0, __m256i, SAME, SAME)                                                \
    static inline vec_##S ld_##S(const T *p) { return _mm256_loadu_si256((const __m256i *)p); }    \
    static inline vec_##S ldn_##S(const T *p, size_t n, vec_##S f) { return LDN(p, n * sizeof(T), f); } \
    static inline void st_##S(T *d, vec_##S v) { _mm256_storeu_si256((__m256i *)d, v); }           \
    static inline vec_##S dup_##S(size_t x) { return _mm256_set1_##E((T)x); }                      \
    static inline vec_##S bc_##S(T x) { return _mm256_set1_##E(x); }                               \
    static inline vec_##S inc_##S(vec_##S v) { return ADD_##E(v, _mm256_set1_##E(1)); }            \
    static inline vec_##S lo_##S(void) { return _mm256_set1_##E((T)(LO)); }                        \
    static inline vec_##S hi_##S(void) { return _mm256_set1_##E((T)(HI)); }                        \
    static inline vec_##S qnan_##S(void) { return _mm256_setzero_si256(); }                        \
    static inline vec_##S max_##S(vec_##S a, vec_##S b) { return MAXF(a, b); }                     \
    static inline vec_##S min_##S(vec_##S a, vec_##S b) { return MINF(a, b); }                     \
    static inline lmask gt_##S(vec_##S a, vec_##S b) { return GTF(a, b); }                         \
    static inline lmask lt_##S(vec_##S a, vec_##S b) { return GTF(b, a); }                         \
    static inline lmask ge_##S(vec_##S a, vec_##S b) { return CMPEQ_##E(MAXF(a, b), a); }          \
    static inline lmask le_##S(vec_##S a, vec_##S b) { return CMPEQ_##E(MAXF(a, b), b); }          \
    static inline lmask eq_##S(vec_##S a, vec_##S b) { return CMPEQ_##E(a, b); }                   \
    static inline lmask nan_##S(vec_##S a, vec_##S b) { (void)a, (void)b; return lm_zero(); }      \
    static inline nzacc nz_add_##S(nzacc z, vec_##S a, vec_##S b) { (void)a, (void)b; return z; }  \
    static inline int nz_any_##S(nzacc z) { (void)z; return 0; }                                   \
    static inline vec_##S blend_##S(lmask m, vec_##S a, vec_##S b) { return _mm256_blendv_epi8(a, b, m); } \
    static inline uint64_t bits_##S(lmask m) { return BITS(m); }                                   \
    static inline T lane0_##S(vec_##S v) { return (T)_mm_cvtsi128_si64(_mm256_castsi256_si128(v)); } \
    static inline T ld1_##S(const T *p) { return *p; }                                             \
    DEF_HREDS(S, N)
#define ADD_epi8 _mm256_add_epi8
#define ADD_epi16 _mm256_add_epi16
#define ADD_epi32 _mm256_add_epi32
#define ADD_epi64x _mm256_add_epi64
#define CMPEQ_epi8 _mm256_cmpeq_epi8
#define CMPEQ_epi16 _mm256_cmpeq_epi16
#define CMPEQ_epi32 _mm256_cmpeq_epi32
#define CMPEQ_epi64x _mm256_cmpeq_epi64
#define BITS_B(m) (uint32_t)_mm256_movemask_epi8(m)
#define BITS_W(m)                                                                                  \
    ((uint32_t)_mm256_movemask_epi8(_mm256_permute4x64_epi64(_mm256_packs_epi16(m, m), 0xD8)) & 0xFFFF)
#define BITS_D(m) (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(m))
#define BITS_Q(m) (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(m))

DEF_INT(i8, int8_t, 32, w8, epi8, _mm256_max_epi8, _mm256_min_epi8, _mm256_cmpgt_epi8, ldn_b, BITS_B, INT8_MIN, INT8_MAX)
DEF_INT(u8, uint8_t, 32, w8, epi8, _mm256_max_epu8, _mm256_min_epu8, cmpgt_u8, ldn_b, BITS_B, 0, UINT8_MAX)
DEF_INT(i16, int16_t, 16, w16, epi16, _mm256_max_epi16, _mm256_min_epi16, _mm256_cmpgt_epi16, ldn_b, BITS_W, INT16_MIN, INT16_MAX)
DEF_INT(u16, uint16_t, 16, w16, epi16, _mm256_max_epu16, _mm256_min_epu16, cmpgt_u16, ldn_b, BITS_W, 0, UINT16_MAX)
DEF_INT(i32, int32_t, 8, w32, epi32, _mm256_max_epi32, _mm256_min_epi32, _mm256_cmpgt_epi32, ldn_d, BITS_D, INT32_MIN, INT32_MAX)
DEF_INT(u32, uint32_t, 8, w32, epi32, _mm256_max_epu32, _mm256_min_epu32, cmpgt_u32, ldn_d, BITS_D, 0, UINT32_MAX)
DEF_INT(i64, int64_t, 4, w64, epi64x, max_s64, min_s64, _mm256_cmpgt_epi64, ldn_q, BITS_Q, INT64_MIN, INT64_MAX)
DEF_INT(u64, uint64_t, 4, w64, epi64x, max_u64v, min_u64v, cmpgt_u64, ldn_q, BITS_Q, 0, UINT64_MAX)

/* Floats: P is ps or pd; LD / LDN load (and convert) full and partial vectors. */
#define DEF_FLOAT(S, T, L, N, IW, P, VEC, LD, LDN, LANE0)                                          \
    DEF_COMMON(S, L, N, IW, 1, VEC, _mm256_cast##P##_si256, _mm256_castsi256_##P)                  \
    static inline vec_##S ld_##S(const T *p) { return LD(p); }                                     \
    static inline vec_##S ldn_##S(const T *p, size_t n, vec_##S f) { return LDN(p, n, f); }        \
    static inline void st_##S(L *d, vec_##S v) { _mm256_storeu_##P(d, v); }                        \
    static inline vec_##S lo_##S(void) { return _mm256_set1_##P(-INFINITY); }                      \
    static inline vec_##S hi_##S(void) { return _mm256_set1_##P(INFINITY); }                       \
    static inline vec_##S qnan_##S(void) { return _mm256_set1_##P(NAN); }                          \
    static inline vec_##S bc_##S(L x) { return _mm256_set1_##P(x); }                               \
    static inline vec_##S max_##S(vec_##S a, vec_##S b) { return _mm256_max_##P(a, b); }           \
    static inline vec_##S min_##S(vec_##S a, vec_##S b) { return _mm256_min_##P(a, b); }           \
    static inline lmask fcmp_##S(vec_##S a, vec_##S b, int gt, int ge, int lt, int le, int eq)     \
    {                                                                                              \
        return _mm256_cast##P##_si256(gt   ? _mm256_cmp_##P(a, b, _CMP_GT_OQ)                      \
                                      : ge ? _mm256_cmp_##P(a, b, _CMP_GE_OQ)                      \
                                      : lt ? _mm256_cmp_##P(a, b, _CMP_LT_OQ)                      \
                                      : le ? _mm256_cmp_##P(a, b, _CMP_LE_OQ)                      \
                                      : eq ? _mm256_cmp_##P(a, b, _CMP_EQ_OQ)                      \
                                           : _mm256_cmp_##P(a, b, _CMP_UNORD_Q));                  \
    }                                                                                              \
    static inline lmask gt_##S(vec_##S a, vec_##S b) { return fcmp_##S(a, b, 1, 0, 0, 0, 0); }     \
    static inline lmask ge_##S(vec_##S a, vec_##S b) { return fcmp_##S(a, b, 0, 1, 0, 0, 0); }     \
    static inline lmask lt_##S(vec_##S a, vec_##S b) { return fcmp_##S(a, b, 0, 0, 1, 0, 0); }     \
    static inline lmask le_##S(vec_##S a, vec_##S b) { return fcmp_##S(a, b, 0, 0, 0, 1, 0); }     \
    static inline lmask eq_##S(vec_##S a, vec_##S b) { return fcmp_##S(a, b, 0, 0, 0, 0, 1); }     \
    static inline lmask nan_##S(vec_##S a, vec_##S b) { return fcmp_##S(a, b, 0, 0, 0, 0, 0); }    \
    static inline nzacc nz_add_##S(nzacc z, vec_##S a, vec_##S b) { return lm_or(z, nan_##S(a, b)); } \
    static inline int nz_any_##S(nzacc z) { return lm_any(z); }                                    \
    static inline vec_##S blend_##S(lmask m, vec_##S a, vec_##S b)                                 \
    {                                                                                              \
        return _mm256_blendv_##P(a, b, _mm256_castsi256_##P(m));                                   \
    }                                                                                              \
    static inline uint64_t bits_##S(lmask m) { return (uint32_t)_mm256_movemask_##P(_mm256_castsi256_##P(m)); } \
    static inline L lane0_##S(vec_##S v) { return LANE0(v); }                                      \
    DEF_HREDS(S, N)

#define LDN_PS(p, n, f)                                                                            \
    _mm256_blendv_ps(f, _mm256_maskload_ps(p, first_bytes(4 * (n))),                               \
                     _mm256_castsi256_ps(first_bytes(4 * (n))))
#define LDN_PD(p, n, f)                                                                            \
    _mm256_blendv_pd(f, _mm256_maskload_pd(p, first_bytes(8 * (n))),                               \
                     _mm256_castsi256_pd(first_bytes(8 * (n))))
#define LD_PH(p) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p)))
#define LDN_PH(p, n, f)                                                                            \
    _mm256_blendv_ps(f, _mm256_cvtph_ps(ld_part128(p, 2 * (n))),                                   \
                     _mm256_castsi256_ps(first_bytes(4 * (n))))
DEF_FLOAT(f32, float, float, 8, w32, ps, __m256, _mm256_loadu_ps, LDN_PS, _mm256_cvtss_f32)
DEF_FLOAT(f16, uint16_t, float, 8, w32, ps, __m256, LD_PH, LDN_PH, _mm256_cvtss_f32)
DEF_FLOAT(f64, double, double, 4, w64, pd, __m256d, _mm256_loadu_pd, LDN_PD, _mm256_cvtsd_f64)

/* One element as a lane value. */
static inline float ld1_f32(const float *p) { return *p; }
static inline float ld1_f16(const uint16_t *p) { return _cvtsh_ss(*p); }
static inline double ld1_f64(const double *p) { return *p; }

DEF_CIDS()

/* ---- integer sums in lanes of the input's width ---- */

static inline __m256i zero_w(void) { return _mm256_setzero_si256(); }
static inline __m256i one_w32(void) { return _mm256_set1_epi32(1); }
static inline __m256i one_w64(void) { return _mm256_set1_epi64x(1); }
#define MAP_ID(v) (v)
typedef __m256i vec_w32, vec_w64;
static inline __m256i bi_w32(__m256i v) { return v; }
static inline __m256i ib_w32(__m256i v) { return v; }
#define bi_w64 bi_w32
#define ib_w64 ib_w32
DEF_HRED(hadd_w32, w32, _mm256_add_epi32, 4, 32, swap_groups)
DEF_HRED(hmul_w32, w32, _mm256_mullo_epi32, 4, 32, swap_groups)
DEF_HRED(hadd_w64, w64, _mm256_add_epi64, 8, 32, swap_groups)
DEF_HRED(hmul_w64, w64, mullo64, 8, 32, swap_groups)

/* ---- the kernels: kind, type, row and column kernel names, family, parameters ---- */

#define FREE_KERNELS(X)                                                                            \
    /* integer sums: T, suffix, identity, map, op, reduction over lanes, field */                  \
    X(RK_SUM, INT32, reduce_row_sum_i32_avx2, reduce_col_sum_i32_avx2, FOLD, int32_t, i32, zero_w, MAP_ID, _mm256_add_epi32, hadd_w32, u64) \
    X(RK_SUM, UINT32, reduce_row_sum_u32_avx2, reduce_col_sum_u32_avx2, FOLD, uint32_t, u32, zero_w, MAP_ID, _mm256_add_epi32, hadd_w32, u64) \
    X(RK_SUM, INT64, reduce_row_sum_i64_avx2, reduce_col_sum_i64_avx2, FOLD, int64_t, i64, zero_w, MAP_ID, _mm256_add_epi64, hadd_w64, u64) \
    X(RK_SUM, UINT64, reduce_row_sum_u64_avx2, reduce_col_sum_u64_avx2, FOLD, uint64_t, u64, zero_w, MAP_ID, _mm256_add_epi64, hadd_w64, u64) \
    X(RK_ASUM, INT32, reduce_row_asum_i32_avx2, reduce_col_asum_i32_avx2, FOLD, int32_t, i32, zero_w, _mm256_abs_epi32, _mm256_add_epi32, hadd_w32, u64) \
    X(RK_ASUM, UINT32, reduce_row_asum_u32_avx2, reduce_col_asum_u32_avx2, FOLD, uint32_t, u32, zero_w, MAP_ID, _mm256_add_epi32, hadd_w32, u64) \
    X(RK_ASUM, INT64, reduce_row_asum_i64_avx2, reduce_col_asum_i64_avx2, FOLD, int64_t, i64, zero_w, abs64, _mm256_add_epi64, hadd_w64, u64) \
    X(RK_ASUM, UINT64, reduce_row_asum_u64_avx2, reduce_col_asum_u64_avx2, FOLD, uint64_t, u64, zero_w, MAP_ID, _mm256_add_epi64, hadd_w64, u64) \
    X(RK_SQSUM, INT32, reduce_row_sqsum_i32_avx2, reduce_col_sqsum_i32_avx2, FOLD, int32_t, i32, zero_w, sq32, _mm256_add_epi32, hadd_w32, u64) \
    X(RK_SQSUM, UINT32, reduce_row_sqsum_u32_avx2, reduce_col_sqsum_u32_avx2, FOLD, uint32_t, u32, zero_w, sq32, _mm256_add_epi32, hadd_w32, u64) \
    X(RK_SQSUM, INT64, reduce_row_sqsum_i64_avx2, reduce_col_sqsum_i64_avx2, FOLD, int64_t, i64, zero_w, sq64, _mm256_add_epi64, hadd_w64, u64) \
    X(RK_SQSUM, UINT64, reduce_row_sqsum_u64_avx2, reduce_col_sqsum_u64_avx2, FOLD, uint64_t, u64, zero_w, sq64, _mm256_add_epi64, hadd_w64, u64) \
    X(RK_PROD, INT32, reduce_row_prod_i32_avx2, reduce_col_prod_i32_avx2, FOLD, int32_t, i32, one_w32, MAP_ID, _mm256_mullo_epi32, hmul_w32, u64) \
    X(RK_PROD, UINT32, reduce_row_prod_u32_avx2, reduce_col_prod_u32_avx2, FOLD, uint32_t, u32, one_w32, MAP_ID, _mm256_mullo_epi32, hmul_w32, u64) \
    X(RK_PROD, INT64, reduce_row_prod_i64_avx2, reduce_col_prod_i64_avx2, FOLD, int64_t, i64, one_w64, MAP_ID, mullo64, hmul_w64, u64) \
    X(RK_PROD, UINT64, reduce_row_prod_u64_avx2, reduce_col_prod_u64_avx2, FOLD, uint64_t, u64, one_w64, MAP_ID, mullo64, hmul_w64, u64) \
    /* integer MIN / MAX: T, suffix, identity, map, op, reduction over lanes, field */             \
    X(RK_MAX, INT8, reduce_row_max_i8_avx2, reduce_col_max_i8_avx2, FOLD, int8_t, i8, lo_i8, MAP_ID, max_i8, hmax_i8, i64) \
    X(RK_MAX, UINT8, reduce_row_max_u8_avx2, reduce_col_max_u8_avx2, FOLD, uint8_t, u8, lo_u8, MAP_ID, max_u8, hmax_u8, u64) \
    X(RK_MAX, INT16, reduce_row_max_i16_avx2, reduce_col_max_i16_avx2, FOLD, int16_t, i16, lo_i16, MAP_ID, max_i16, hmax_i16, i64) \
    X(RK_MAX, UINT16, reduce_row_max_u16_avx2, reduce_col_max_u16_avx2, FOLD, uint16_t, u16, lo_u16, MAP_ID, max_u16, hmax_u16, u64) \
    X(RK_MAX, INT32, reduce_row_max_i32_avx2, reduce_col_max_i32_avx2, FOLD, int32_t, i32, lo_i32, MAP_ID, max_i32, hmax_i32, i64) \
    X(RK_MAX, UINT32, reduce_row_max_u32_avx2, reduce_col_max_u32_avx2, FOLD, uint32_t, u32, lo_u32, MAP_ID, max_u32, hmax_u32, u64) \
    X(RK_MAX, INT64, reduce_row_max_i64_avx2, reduce_col_max_i64_avx2, FOLD, int64_t, i64, lo_i64, MAP_ID, max_i64, hmax_i64, i64) \
    X(RK_MAX, UINT64, reduce_row_max_u64_avx2, reduce_col_max_u64_avx2, FOLD, uint64_t, u64, lo_u64, MAP_ID, max_u64, hmax_u64, u64) \
    X(RK_MIN, INT8, reduce_row_min_i8_avx2, reduce_col_min_i8_avx2, FOLD, int8_t, i8, hi_i8, MAP_ID, min_i8, hmin_i8, i64) \
    X(RK_MIN, UINT8, reduce_row_min_u8_avx2, reduce_col_min_u8_avx2, FOLD, uint8_t, u8, hi_u8, MAP_ID, min_u8, hmin_u8, u64) \
    X(RK_MIN, INT16, reduce_row_min_i16_avx2, reduce_col_min_i16_avx2, FOLD, int16_t, i16, hi_i16, MAP_ID, min_i16, hmin_i16, i64) \
    X(RK_MIN, UINT16, reduce_row_min_u16_avx2, reduce_col_min_u16_avx2, FOLD, uint16_t, u16, hi_u16, MAP_ID, min_u16, hmin_u16, u64) \
    X(RK_MIN, INT32, reduce_row_min_i32_avx2, reduce_col_min_i32_avx2, FOLD, int32_t, i32, hi_i32, MAP_ID, min_i32, hmin_i32, i64) \
    X(RK_MIN, UINT32, reduce_row_min_u32_avx2, reduce_col_min_u32_avx2, FOLD, uint32_t, u32, hi_u32, MAP_ID, min_u32, hmin_u32, u64) \
    X(RK_MIN, INT64, reduce_row_min_i64_avx2, reduce_col_min_i64_avx2, FOLD, int64_t, i64, hi_i64, MAP_ID, min_i64, hmin_i64, i64) \
    X(RK_MIN, UINT64, reduce_row_min_u64_avx2, reduce_col_min_u64_avx2, FOLD, uint64_t, u64, hi_u64, MAP_ID, min_u64, hmin_u64, u64) \
    /* float MIN / MAX: T, suffix, fill, three (operation, integer type) accumulators, result */   \
    X(RK_MAX, FLOAT32, reduce_row_max_f32_avx2, reduce_col_max_f32_avx2, FMM, float, f32, lo, max, i32, min, i32, max, u32, fmax_bits32, f32) \
    X(RK_MAX, FLOAT16, reduce_row_max_f16_avx2, reduce_col_max_f16_avx2, FMM, uint16_t, f16, lo, max, i32, min, i32, max, u32, fmax_bits32, f32) \
    X(RK_MAX, FLOAT64, reduce_row_max_f64_avx2, reduce_col_max_f64_avx2, FMM, double, f64, lo, max, i64, min, i64, max, u64, fmax_bits64, f64) \
    X(RK_MIN, FLOAT32, reduce_row_min_f32_avx2, reduce_col_min_f32_avx2, FMM, float, f32, hi, max, u32, min, u32, max, i32, fmin_bits32, f32) \
    X(RK_MIN, FLOAT16, reduce_row_min_f16_avx2, reduce_col_min_f16_avx2, FMM, uint16_t, f16, hi, max, u32, min, u32, max, i32, fmin_bits32, f32) \
    X(RK_MIN, FLOAT64, reduce_row_min_f64_avx2, reduce_col_min_f64_avx2, FMM, double, f64, hi, max, u64, min, u64, max, i64, fmin_bits64, f64)

/* ARG*: FREE_ARG_KERNELS (simd/reduce_free.h), named with this suffix */
#define FREE_SFX avx2

#define DEF_FOLD(ROW, COL, ...)                                                                    \
    DEF_ROW_FOLD(ROW, __VA_ARGS__) DEF_ROWS_FOLD(ROW##_rows, __VA_ARGS__) DEF_COL_FOLD(COL, __VA_ARGS__)
#define DEF_FMM(ROW, COL, ...)                                                                     \
    DEF_ROW_FMM(ROW, __VA_ARGS__) DEF_ROWS_FMM(ROW##_rows, __VA_ARGS__) DEF_COL_FMM(COL, __VA_ARGS__)
/* ARG* has no multi-row kernel here: with 8 lanes a row of 64 FLOAT32 is a whole chunk, and the
 * batch measured slower than the row kernel ([64,64] 0.9 us instead of 0.78 us). */
#define DEF_ARG(ROW, COL, ...) DEF_ROW_ARG(ROW, __VA_ARGS__) DEF_COL_ARG(COL, __VA_ARGS__)
#define DEFINE_KERNELS(KIND, TYPE, ROW, COL, FAMILY, ...) DEF_##FAMILY(ROW, COL, __VA_ARGS__)
FREE_KERNELS(DEFINE_KERNELS)
FREE_ARG_KERNELS(DEFINE_KERNELS)

#define ROWS_FOLD(ROW) ROW##_rows
#define ROWS_FMM(ROW) ROW##_rows
#define ROWS_ARG(ROW) NULL
#define ENTRY(KIND, TYPE, ROW, COL, FAMILY, ...)                                                   \
    .row[KIND][DMLCPU_DATA_TYPE_##TYPE] = ROW, .rows[KIND][DMLCPU_DATA_TYPE_##TYPE] = ROWS_##FAMILY(ROW), \
    .col[KIND][DMLCPU_DATA_TYPE_##TYPE] = COL,
const kernel_table dmlcpu_kernels_avx2_free = {
    .isa = DMLCPU_ISA_AVX2,
    FREE_KERNELS(ENTRY) FREE_ARG_KERNELS(ENTRY)
};
