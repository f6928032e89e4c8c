/* NEON kernels of the order-free reductions: integer SUM, L1, SUM_SQUARE and MULTIPLY (wrapping,
 * in lanes of the input's width: only the low bits of a partial matter), MIN and MAX, ARGMIN and
 * ARGMAX (both directions) for every type. The bodies are in simd/reduce_free.h, shared with the
 * x86 tiers; this file gives them the vector vocabulary on 16-byte registers.
 *
 * Lane masks are byte vectors (all ones per selected lane), reinterpreted to each lane width.
 * FMAX / FMIN are IEEE 754-2019 maximum / minimum (a NaN operand gives NaN, -0 < +0), so float
 * MIN/MAX fold with one exact instruction per vector, like the integer folds, where x86 needs the
 * three integer accumulators of the FMM kernels. What NEON lacks is built here: 64-bit min/max
 * (compare and select), the 64-bit multiply (from 32-bit widening multiplies), the movemask (lane
 * bits weighted and added across the vector), partial loads (pieces of 8, 4, 2 and 1 bytes: never
 * a byte past the last element). FLOAT16 converts to FLOAT32 on load (FCVTL, exact). */
#if !defined(__aarch64__) || !defined(__ARM_NEON)
#error "reduce_free_neon.c must be compiled for AArch64 with Advanced SIMD (-march=armv8-a+simd)"
#endif

#include <arm_neon.h>

#include "kernels.h"
/* FMAX / FMIN propagate NaN: one test of a chunk's extreme finds the NaN of its eight vectors. */
#define EXT_KEEPS_NAN 1
/* ARG* rows: chunks of 16 vectors (256 bytes, as on AVX2), see ARG_CH. */
#define ARG_CH 16
#include "simd/reduce_free.h"

typedef uint8x16_t lmask;
static inline lmask lm_zero(void) { return vdupq_n_u8(0); }
static inline lmask lm_or(lmask a, lmask b) { return vorrq_u8(a, b); }
static inline lmask lm_and(lmask a, lmask b) { return vandq_u8(a, b); }
static inline lmask lm_andn(lmask a, lmask b) { return vbicq_u8(a, b); }
static inline int lm_any(lmask a) { return vmaxvq_u32(vreinterpretq_u32_u8(a)) != 0; }
/* NaN seen: lanes where a compare found one. */
typedef uint8x16_t nzacc;
static inline nzacc nz_init(void) { return vdupq_n_u8(0); }
static inline nzacc nz_or(nzacc a, nzacc b) { return vorrq_u8(a, b); }

/* The first nb <= 16 bytes set. */
static const uint8_t slide[32] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
static inline uint8x16_t first_bytes(size_t nb) { return vld1q_u8(slide + 16 - nb); }

/* nb < 16 bytes from p, zeros above, in pieces of 8, 4, 2, 1 bytes. */
static inline uint8x16_t ld_part(const void *p, size_t nb)
{
    const unsigned char *c = p;
    uint64_t q[2] = {0, 0};
    unsigned char *t = (unsigned char *)q;
    size_t o = 0;
    if (nb & 8) {
        memcpy(t, c, 8);
        o = 8;
    }
    if (nb & 4) {
        memcpy(t + o, c + o, 4);
        o += 4;
    }
    if (nb & 2) {
        memcpy(t + o, c + o, 2);
        o += 2;
    }
    if (nb & 1)
        t[o] = c[o];
    return vld1q_u8(t);
}

/* Exchanges neighbouring groups of d bytes (d = 8 ... 1, a constant after inlining). */
static inline uint8x16_t swap_groups(uint8x16_t v, int d)
{
    switch (d) {
    case 8: return vextq_u8(v, v, 8);
    case 4: return vreinterpretq_u8_u32(vrev64q_u32(vreinterpretq_u32_u8(v)));
    case 2: return vreinterpretq_u8_u16(vrev32q_u16(vreinterpretq_u16_u8(v)));
    default: return vrev16q_u8(v);
    }
}

/* Multi-row folds: b in the upper d bytes of each 2d, a elsewhere. */
#define VEC_BYTES 16
typedef uint8x16_t ivec;
static inline uint8x16_t group_blend(uint8x16_t a, uint8x16_t b, int d)
{
    uint64x2_t m;
    switch (d) {
    case 8: m = vcombine_u64(vdup_n_u64(0), vdup_n_u64(~(uint64_t)0)); break;
    case 4: m = vdupq_n_u64(0xFFFFFFFF00000000u); break;
    case 2: m = vdupq_n_u64(0xFFFF0000FFFF0000u); break;
    default: m = vdupq_n_u64(0xFF00FF00FF00FF00u); break;
    }
    return vbslq_u8(vreinterpretq_u8_u64(m), b, a);
}

/* ---- byte views of each vector type (NEON has no reinterpret of a type to itself) ---- */

#define DEF_BYTES(X, VT)                                                                           \
    static inline uint8x16_t tob_##X(VT v) { return vreinterpretq_u8_##X(v); }                     \
    static inline VT fromb_##X(uint8x16_t v) { return vreinterpretq_##X##_u8(v); }
static inline uint8x16_t tob_u8(uint8x16_t v) { return v; }
static inline uint8x16_t fromb_u8(uint8x16_t v) { return v; }
DEF_BYTES(s8, int8x16_t)
DEF_BYTES(s16, int16x8_t)
DEF_BYTES(u16, uint16x8_t)
DEF_BYTES(s32, int32x4_t)
DEF_BYTES(u32, uint32x4_t)
DEF_BYTES(s64, int64x2_t)
DEF_BYTES(u64, uint64x2_t)
DEF_BYTES(f32, float32x4_t)
DEF_BYTES(f64, float64x2_t)

/* One bit per lane: each lane's mask keeps its own power of two, and the lanes are added. */
static inline uint64_t bits_w8(lmask m)
{
    static const uint8_t w[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t t = vandq_u8(m, vld1q_u8(w));
    return vaddv_u8(vget_low_u8(t)) | (uint64_t)vaddv_u8(vget_high_u8(t)) << 8;
}
static inline uint64_t bits_w16(lmask m)
{
    static const uint16_t w[8] = {1, 2, 4, 8, 16, 32, 64, 128};
    return vaddvq_u16(vandq_u16(vreinterpretq_u16_u8(m), vld1q_u16(w)));
}
static inline uint64_t bits_w32(lmask m)
{
    static const uint32_t w[4] = {1, 2, 4, 8};
    return vaddvq_u32(vandq_u32(vreinterpretq_u32_u8(m), vld1q_u32(w)));
}
static inline uint64_t bits_w64(lmask m)
{
    static const uint64_t w[2] = {1, 2};
    return vaddvq_u64(vandq_u64(vreinterpretq_u64_u8(m), vld1q_u64(w)));
}

/* ---- what NEON lacks: 64-bit min/max and multiply ---- */

#define DEF_MINMAX64(X, VT)                                                                        \
    static inline VT vmaxq64_##X(VT a, VT b) { return vbslq_##X(vcgtq_##X(b, a), b, a); }          \
    static inline VT vminq64_##X(VT a, VT b) { return vbslq_##X(vcgtq_##X(a, b), b, a); }
DEF_MINMAX64(s64, int64x2_t)
DEF_MINMAX64(u64, uint64x2_t)
/* a * b mod 2^64 per lane: lo(a) lo(b) + (hi(a) lo(b) + lo(a) hi(b)) << 32. */
static inline uint64x2_t vmulq64_u64(uint64x2_t a, uint64x2_t b)
{
    const uint32x2_t al = vmovn_u64(a), bl = vmovn_u64(b);
    const uint32x2_t ah = vshrn_n_u64(a, 32), bh = vshrn_n_u64(b, 32);
    const uint64x2_t cross = vmlal_u32(vmull_u32(ah, bl), al, bh);
    return vmlal_u32(vshlq_n_u64(cross, 32), al, bl);
}
static inline int64x2_t vmulq64_s64(int64x2_t a, int64x2_t b)
{
    return vreinterpretq_s64_u64(vmulq64_u64(vreinterpretq_u64_s64(a), vreinterpretq_u64_s64(b)));
}

/* ---- index vectors: row numbers per lane, 16-bit lanes for 8- and 16-bit types ---- */

typedef struct { uint16x8_t lo, hi; } iv_w8;
typedef uint16x8_t iv_w16;
typedef uint32x4_t iv_w32;
typedef uint64x2_t iv_w64;
typedef uint16_t ix_w8, ix_w16;
typedef uint32_t ix_w32;
typedef uint64_t ix_w64;
static inline iv_w8 izero_w8(void) { return (iv_w8){vdupq_n_u16(0), vdupq_n_u16(0)}; }
static inline iv_w8 iblend_w8(iv_w8 v, lmask m, size_t r)
{
    const uint16x8_t rv = vdupq_n_u16((uint16_t)r);
    const int8x16_t s = vreinterpretq_s8_u8(m);
    v.lo = vbslq_u16(vreinterpretq_u16_s16(vmovl_s8(vget_low_s8(s))), rv, v.lo);
    v.hi = vbslq_u16(vreinterpretq_u16_s16(vmovl_s8(vget_high_s8(s))), rv, v.hi);
    return v;
}
static inline void ist_w8(ix_w8 *d, iv_w8 v)
{
    vst1q_u16(d, v.lo);
    vst1q_u16(d + 8, v.hi);
}
#define DEF_IDX(W, X, L)                                                                           \
    static inline iv_##W izero_##W(void) { return vdupq_n_##X(0); }                                \
    static inline iv_##W iblend_##W(iv_##W v, lmask m, size_t r)                                   \
    {                                                                                              \
        return vbslq_##X(fromb_##X(m), vdupq_n_##X((L)r), v);                                      \
    }                                                                                              \
    static inline void ist_##W(ix_##W *d, iv_##W v) { vst1q_##X(d, v); }
DEF_IDX(w16, u16, uint16_t)
DEF_IDX(w32, u32, uint32_t)
DEF_IDX(w64, u64, uint64_t)

/* ---- the vocabulary per type ---- */

/* What integer and float types share: S suffix, lane type, lanes, index width, the vector type
 * and its intrinsic suffix X, the mask suffix M (unsigned of the lane width). */
#define DEF_COMMON(S, L, N, IW, HAS_NAN, VT, X, M)                                                 \
    typedef VT vec_##S;                                                                            \
    typedef L lane_##S;                                                                            \
    typedef iv_##IW iv_##S;                                                                        \
    typedef ix_##IW ix_##S;                                                                        \
    enum { EPV_##S = N, NAN_##S = HAS_NAN };                                                       \
    static inline uint8x16_t bi_##S(vec_##S v) { return tob_##X(v); }                              \
    static inline vec_##S ib_##S(uint8x16_t v) { return fromb_##X(v); }                            \
    static inline lmask valid_##S(size_t n) { return first_bytes(n * sizeof(L)); }                 \
    static inline iv_##S izero_##S(void) { return izero_##IW(); }                                  \
    static inline iv_##S iblend_##S(iv_##S v, lmask m, size_t r) { return iblend_##IW(v, m, r); }  \
    static inline void ist_##S(ix_##S *d, iv_##S v) { ist_##IW(d, v); }                            \
    static inline lmask gt_##S(vec_##S a, vec_##S b) { return tob_##M(vcgtq_##X(a, b)); }          \
    static inline lmask ge_##S(vec_##S a, vec_##S b) { return tob_##M(vcgeq_##X(a, b)); }          \
    static inline lmask lt_##S(vec_##S a, vec_##S b) { return tob_##M(vcltq_##X(a, b)); }          \
    static inline lmask le_##S(vec_##S a, vec_##S b) { return tob_##M(vcleq_##X(a, b)); }          \
    static inline lmask eq_##S(vec_##S a, vec_##S b) { return tob_##M(vceqq_##X(a, b)); }          \
    static inline vec_##S blend_##S(lmask m, vec_##S a, vec_##S b)                                 \
    {                                                                                              \
        return vbslq_##X(fromb_##M(m), b, a);                                                      \
    }                                                                                              \
    static inline uint64_t bits_##S(lmask m) { return bits_##IW(m); }                              \
    static inline L lane0_##S(vec_##S v) { return vgetq_lane_##X(v, 0); }                          \
    static inline vec_##S bc_##S(L x) { return vdupq_n_##X(x); }
#define DEF_HREDS(S, L)                                                                            \
    DEF_HRED(hmax_##S, S, max_##S, (int)sizeof(L), 16, swap_groups)                                \
    DEF_HRED(hmin_##S, S, min_##S, (int)sizeof(L), 16, swap_groups)

/* Integers: T the element type, X the intrinsic suffix (s8, u8, ...), MAXF / MINF / MULF the
 * lanewise max, min and (wrapping) multiply. */
#define DEF_INT(S, T, N, IW, VT, X, M, MAXF, MINF, MULF, LO, HI)                               \
    DEF_COMMON(S, T, N, IW, 0, VT, X, M)                                                           \
    static inline vec_##S ld_##S(const T *p) { return vld1q_##X(p); }                              \
    static inline vec_##S ldn_##S(const T *p, size_t n, vec_##S f)                                 \
    {                                                                                              \
        return vbslq_##X(fromb_##M(first_bytes(n * sizeof(T))), fromb_##X(ld_part(p, n * sizeof(T))), f); \
    }                                                                                              \
    static inline void st_##S(T *d, vec_##S v) { vst1q_##X(d, v); }                                \
    static inline vec_##S dup_##S(size_t x) { return vdupq_n_##X((T)x); }                          \
    static inline vec_##S inc_##S(vec_##S v) { return vaddq_##X(v, vdupq_n_##X(1)); }              \
    static inline vec_##S lo_##S(void) { return vdupq_n_##X((T)(LO)); }                            \
    static inline vec_##S hi_##S(void) { return vdupq_n_##X((T)(HI)); }                            \
    static inline vec_##S qnan_##S(void) { return vdupq_n_##X(0); }                                \
    static inline vec_##S zero_##S(void) { return vdupq_n_##X(0); }                                \
    static inline vec_##S one_##S(void) { return vdupq_n_##X(1); }                                 \
    static inline vec_##S max_##S(vec_##S a, vec_##S b) { return MAXF##_##X(a, b); }               \
    static inline vec_##S min_##S(vec_##S a, vec_##S b) { return MINF##_##X(a, b); }               \
    static inline vec_##S add_##S(vec_##S a, vec_##S b) { return vaddq_##X(a, b); }                \
    static inline vec_##S mul_##S(vec_##S a, vec_##S b) { return MULF##_##X(a, b); }               \
    static inline vec_##S sq_##S(vec_##S a) { return MULF##_##X(a, a); }                           \
    static inline lmask nan_##S(vec_##S a, vec_##S b) { (void)a, (void)b; return lm_zero(); }      \
    static inline nzacc nz_add_##S(nzacc z, vec_##S a, vec_##S b) { (void)a, (void)b; return z; }  \
    static inline int nz_any_##S(nzacc z) { (void)z; return 0; }                                   \
    static inline T ld1_##S(const T *p) { return *p; }                                             \
    DEF_HREDS(S, T)                                                                                \
    DEF_HRED(hadd_##S, S, add_##S, (int)sizeof(T), 16, swap_groups)                                \
    DEF_HRED(hmul_##S, S, mul_##S, (int)sizeof(T), 16, swap_groups)

DEF_INT(i8, int8_t, 16, w8, int8x16_t, s8, u8, vmaxq, vminq, vmulq, INT8_MIN, INT8_MAX)
DEF_INT(u8, uint8_t, 16, w8, uint8x16_t, u8, u8, vmaxq, vminq, vmulq, 0, UINT8_MAX)
DEF_INT(i16, int16_t, 8, w16, int16x8_t, s16, u16, vmaxq, vminq, vmulq, INT16_MIN, INT16_MAX)
DEF_INT(u16, uint16_t, 8, w16, uint16x8_t, u16, u16, vmaxq, vminq, vmulq, 0, UINT16_MAX)
DEF_INT(i32, int32_t, 4, w32, int32x4_t, s32, u32, vmaxq, vminq, vmulq, INT32_MIN, INT32_MAX)
DEF_INT(u32, uint32_t, 4, w32, uint32x4_t, u32, u32, vmaxq, vminq, vmulq, 0, UINT32_MAX)
DEF_INT(i64, int64_t, 2, w64, int64x2_t, s64, u64, vmaxq64, vminq64, vmulq64, INT64_MIN, INT64_MAX)
DEF_INT(u64, uint64_t, 2, w64, uint64x2_t, u64, u64, vmaxq64, vminq64, vmulq64, 0, UINT64_MAX)

/* |x| of signed lanes wraps (|INT_MIN| = INT_MIN), as SPEC 4 asks. */
static inline vec_i32 abs_i32(vec_i32 v) { return vabsq_s32(v); }
static inline vec_i64 abs_i64(vec_i64 v) { return vabsq_s64(v); }
#define MAP_ID(v) (v)

/* Floats: T the stored type, L the lane type, X f32 or f64, M u32 or u64; LD / LDN load (and
 * convert) full and partial vectors. max / min are FMAX / FMIN: IEEE 754-2019, exact. */
#define DEF_FLOAT(S, T, L, N, IW, VT, X, M, LD, LDN)                                               \
    DEF_COMMON(S, L, N, IW, 1, VT, X, M)                                                           \
    static inline vec_##S ld_##S(const T *p) { return LD(p); }                                     \
    static inline vec_##S ldn_##S(const T *p, size_t n, vec_##S f)                                 \
    {                                                                                              \
        return vbslq_##X(fromb_##M(first_bytes(n * sizeof(L))), LDN(p, n), f);                     \
    }                                                                                              \
    static inline void st_##S(L *d, vec_##S v) { vst1q_##X(d, v); }                                \
    static inline vec_##S lo_##S(void) { return vdupq_n_##X(-INFINITY); }                          \
    static inline vec_##S hi_##S(void) { return vdupq_n_##X(INFINITY); }                           \
    static inline vec_##S qnan_##S(void) { return vdupq_n_##X(NAN); }                              \
    static inline vec_##S max_##S(vec_##S a, vec_##S b) { return vmaxq_##X(a, b); }                \
    static inline vec_##S min_##S(vec_##S a, vec_##S b) { return vminq_##X(a, b); }                \
    static inline lmask nan_##S(vec_##S a, vec_##S b)                                              \
    {                                                                                              \
        return vmvnq_u8(vandq_u8(tob_##M(vceqq_##X(a, a)), tob_##M(vceqq_##X(b, b))));             \
    }                                                                                              \
    static inline nzacc nz_add_##S(nzacc z, vec_##S a, vec_##S b) { return lm_or(z, nan_##S(a, b)); } \
    static inline int nz_any_##S(nzacc z) { return lm_any(z); }                                    \
    DEF_HREDS(S, L)

/* Partial loads: the zero-filled bytes of n elements, converted; the caller blends in the fill. */
#define LDN_F32(p, n) vreinterpretq_f32_u8(ld_part(p, (n) * 4))
#define LDN_F64(p, n) vreinterpretq_f64_u8(ld_part(p, (n) * 8))
#define LD_F16(p) vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p)))
#define LDN_F16(p, n) vcvt_f32_f16(vreinterpret_f16_u8(vget_low_u8(ld_part(p, (n) * 2))))
DEF_FLOAT(f32, float, float, 4, w32, float32x4_t, f32, u32, vld1q_f32, LDN_F32)
DEF_FLOAT(f16, uint16_t, float, 4, w32, float32x4_t, f32, u32, LD_F16, LDN_F16)
DEF_FLOAT(f64, double, double, 2, w64, float64x2_t, f64, u64, vld1q_f64, LDN_F64)

/* One element as a lane value. */
static inline float ld1_f32(const float *p) { return *p; }
static inline float ld1_f16(const uint16_t *p) { return vgetq_lane_f32(vcvt_f32_f16(vreinterpret_f16_u16(vdup_n_u16(*p))), 0); }
static inline double ld1_f64(const double *p) { return *p; }

DEF_CIDS()

/* ---- the kernels: kind, type, row and column kernel names, family, parameters ---- */

#define FREE_SUMS(X, KIND, K, MAP, OP, RED, ONE)                                                   \
    X(KIND, INT32, reduce_row_##K##_i32_neon, reduce_col_##K##_i32_neon, FOLD, int32_t, i32, ONE##_i32, MAP(i32), OP##_i32, RED##_i32, u64) \
    X(KIND, UINT32, reduce_row_##K##_u32_neon, reduce_col_##K##_u32_neon, FOLD, uint32_t, u32, ONE##_u32, MAP(u32), OP##_u32, RED##_u32, u64) \
    X(KIND, INT64, reduce_row_##K##_i64_neon, reduce_col_##K##_i64_neon, FOLD, int64_t, i64, ONE##_i64, MAP(i64), OP##_i64, RED##_i64, u64) \
    X(KIND, UINT64, reduce_row_##K##_u64_neon, reduce_col_##K##_u64_neon, FOLD, uint64_t, u64, ONE##_u64, MAP(u64), OP##_u64, RED##_u64, u64)
#define MAP_NONE(S) MAP_ID
#define MAP_SQ(S) sq_##S
#define MAP_ABS(S) MAP_ABS_##S
#define MAP_ABS_i32 abs_i32
#define MAP_ABS_i64 abs_i64
#define MAP_ABS_u32 MAP_ID
#define MAP_ABS_u64 MAP_ID
/* MIN / MAX of every type: the identity, the lanewise operation (FMAX / FMIN for floats). */
#define FREE_MINMAX(X, KIND, K, ID, OP)                                                            \
    X(KIND, INT8, reduce_row_##K##_i8_neon, reduce_col_##K##_i8_neon, FOLD, int8_t, i8, ID##_i8, MAP_ID, OP##_i8, h##OP##_i8, i64) \
    X(KIND, UINT8, reduce_row_##K##_u8_neon, reduce_col_##K##_u8_neon, FOLD, uint8_t, u8, ID##_u8, MAP_ID, OP##_u8, h##OP##_u8, u64) \
    X(KIND, INT16, reduce_row_##K##_i16_neon, reduce_col_##K##_i16_neon, FOLD, int16_t, i16, ID##_i16, MAP_ID, OP##_i16, h##OP##_i16, i64) \
    X(KIND, UINT16, reduce_row_##K##_u16_neon, reduce_col_##K##_u16_neon, FOLD, uint16_t, u16, ID##_u16, MAP_ID, OP##_u16, h##OP##_u16, u64) \
    X(KIND, INT32, reduce_row_##K##_i32_neon, reduce_col_##K##_i32_neon, FOLD, int32_t, i32, ID##_i32, MAP_ID, OP##_i32, h##OP##_i32, i64) \
    X(KIND, UINT32, reduce_row_##K##_u32_neon, reduce_col_##K##_u32_neon, FOLD, uint32_t, u32, ID##_u32, MAP_ID, OP##_u32, h##OP##_u32, u64) \
    X(KIND, INT64, reduce_row_##K##_i64_neon, reduce_col_##K##_i64_neon, FOLD, int64_t, i64, ID##_i64, MAP_ID, OP##_i64, h##OP##_i64, i64) \
    X(KIND, UINT64, reduce_row_##K##_u64_neon, reduce_col_##K##_u64_neon, FOLD, uint64_t, u64, ID##_u64, MAP_ID, OP##_u64, h##OP##_u64, u64) \
    X(KIND, FLOAT32, reduce_row_##K##_f32_neon, reduce_col_##K##_f32_neon, FOLD, float, f32, ID##_f32, MAP_ID, OP##_f32, h##OP##_f32, f32) \
    X(KIND, FLOAT16, reduce_row_##K##_f16_neon, reduce_col_##K##_f16_neon, FOLD, uint16_t, f16, ID##_f16, MAP_ID, OP##_f16, h##OP##_f16, f32) \
    X(KIND, FLOAT64, reduce_row_##K##_f64_neon, reduce_col_##K##_f64_neon, FOLD, double, f64, ID##_f64, MAP_ID, OP##_f64, h##OP##_f64, f64)
#define FREE_KERNELS(X)                                                                            \
    FREE_SUMS(X, RK_SUM, sum, MAP_NONE, add, hadd, zero)                                           \
    FREE_SUMS(X, RK_ASUM, asum, MAP_ABS, add, hadd, zero)                                          \
    FREE_SUMS(X, RK_SQSUM, sqsum, MAP_SQ, add, hadd, zero)                                         \
    FREE_SUMS(X, RK_PROD, prod, MAP_NONE, mul, hmul, one)                                          \
    FREE_MINMAX(X, RK_MAX, max, lo, max)                                                           \
    FREE_MINMAX(X, RK_MIN, min, hi, min)

/* ARG*: FREE_ARG_KERNELS (simd/reduce_free.h), named with this suffix */
#define FREE_SFX neon

/* Every family has row, multi-row and column kernels (the column ones take the narrow contiguous
 * path of the body themselves); no entry is left to the scalar table. */
#define DEF_FOLD(ROW, COL, ...)                                                                    \
    DEF_ROW_FOLD(ROW, __VA_ARGS__) DEF_ROWS_FOLD(ROW##_rows, __VA_ARGS__) DEF_COL_FOLD(COL, __VA_ARGS__)
#define DEF_ARG(ROW, COL, ...)                                                                     \
    DEF_ROW_ARG(ROW, __VA_ARGS__) DEF_ROWS_ARG(ROW##_rows, ROW, __VA_ARGS__) DEF_COL_ARG(COL, __VA_ARGS__)
#define DEFINE_KERNELS(KIND, TYPE, ROW, COL, FAMILY, ...) DEF_##FAMILY(ROW, COL, __VA_ARGS__)
FREE_KERNELS(DEFINE_KERNELS)
FREE_ARG_KERNELS(DEFINE_KERNELS)

#define ENTRY(KIND, TYPE, ROW, COL, ...)                                                           \
    .row[KIND][DMLCPU_DATA_TYPE_##TYPE] = ROW, .rows[KIND][DMLCPU_DATA_TYPE_##TYPE] = ROW##_rows,    \
    .col[KIND][DMLCPU_DATA_TYPE_##TYPE] = COL,
const kernel_table dmlcpu_kernels_neon_free = {
    .isa = DMLCPU_ISA_NEON,
    FREE_KERNELS(ENTRY) FREE_ARG_KERNELS(ENTRY)
};
