/* AVX2 (+FMA, F16C) kernels of the float sums in the canonical order, and of LOG_SUM_EXP.
 *
 * Not yet on simd/reduce_sum.h, the body the NEON tier instantiates: this file and reduce_avx512.c are
 * still a pair. Folding them in needs the shared body to take this permuted quad layout and
 * the result tested and timed on an AVX-512 machine before it replaces these tuned loops. The
 * row form of LOG_SUM_EXP is already shared with the NEON tier (simd/lse_row.h).
 *
 * The virtual vector of SPEC 4 (64 f32 or 32 f64 lanes) is eight ymm accumulators a0..a7. A row
 * kernel reads a block in chunks of four consecutive ymm (32 f32 or 16 f64 elements) and turns
 * each chunk into its 8 (4) quads with pairwise operations in the layout of hadd, written as
 * even/odd shuffles plus one vertical add (or multiply for MULTIPLY):
 *
 *   f32: hadd(hadd(A, B), hadd(C, D)) of A = x0..7, B = x8..15, C = x16..23, D = x24..31 is
 *        [q0 q2 q4 q6 | q1 q3 q5 q7] with q_m = (x_4m + x_4m+1) + (x_4m+2 + x_4m+3): the first
 *        level forms the pairs p_i = x_2i + x_2i+1, the second adds p_2m and p_2m+1 (hadd works
 *        within each 128-bit half, hence the permuted order). Chunk c holds quads 8c..8c+7, i.e.
 *        lanes 8(c mod 8).. of the virtual vector, so it goes to a_(c mod 8); every accumulator
 *        has the same permutation, which the halving tree undoes once, after the steps that
 *        combine whole registers (h = 32, 16, 8) and before the steps inside one register.
 *   f64: hadd(A, B) = [p0 p2 | p1 p3] and hadd(C, D) = [p4 p6 | p5 p7]; joining the low halves
 *        and the high halves gives [p0 p2 p4 p6] and [p1 p3 p5 p7], whose sum is [q0 q1 q2 q3] in
 *        canonical order. Chunk c (quads 4c..4c+3) goes to a_(c mod 8).
 *
 * A column kernel adds four rows per column vector and folds the quad into that column's lane in
 * the lane array the caller's scratch holds (lane[j][k], quad of rows 4q..4q+3 into lane q mod L);
 * narrow contiguous columns of 16 accumulator bytes take two rows per vector.
 * Tails are loaded under a mask with fill where elements are missing, chosen so that the mapped
 * fill is the identity; a vector wholly past the end is the identity itself. A quad wholly past
 * the end then adds the identity to its lane, which leaves it unchanged (a lane starts at +0 and
 * only adds, so it is never -0; and x * 1 = x). No byte outside the given elements is read:
 * masked loads do not touch masked-out memory, and a FLOAT16 tail loads its whole pairs of halves
 * under a 32-bit mask and an odd last half on its own. */
#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "reduce_avx2.c must be compiled with -mavx2 -mfma -mf16c"
#endif

#include <immintrin.h>
#include <math.h>
#include <stdalign.h>

#include "kernels.h"
#include "simd/col_seq.h"
#include "simd/col_short.h"
#include "simd/lse_col.h"
#include "simd/lse_expf.h"
#include "simd/lse_row.h"
#include "simd/sleef_math.h"

/* ---- loads of one vector (8 f32 / 4 f64 accumulator elements), full or the first n ---- */

static const int32_t mask_tab32[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
static const int64_t mask_tab64[8] = {-1, -1, -1, -1, 0, 0, 0, 0};

/* first n (0..8) f32 / (0..4) f64 elements set */
static inline __m256i mask32(unsigned n) { return _mm256_loadu_si256((const __m256i *)(mask_tab32 + 8 - n)); }
static inline __m256i mask64(unsigned n) { return _mm256_loadu_si256((const __m256i *)(mask_tab64 + 4 - n)); }

/* A partial vector of n elements: its masks, built once where n is fixed (a column kernel's last
 * vector). h is the mask of the n / 2 whole 32-bit pairs of a FLOAT16 tail. */
typedef struct {
    __m256i m;
    __m128i h;
    unsigned n;
} vtail;
static inline vtail vtail_of(unsigned n, unsigned epv)
{
    vtail t = {epv == 8 ? mask32(n) : mask64(n), _mm_loadu_si128((const __m128i *)(mask_tab32 + 8 - n / 2)), n};
    return t;
}

static inline __m256 ldm_f32(const float *p, vtail t, __m256 fill)
{
    return _mm256_blendv_ps(fill, _mm256_maskload_ps(p, t.m), _mm256_castsi256_ps(t.m));
}
/* FLOAT16: the whole pairs of halves under a 32-bit mask, then an odd last half on its own */
static inline __m256 ldm_f16(const uint16_t *p, vtail t, __m256 fill)
{
    __m128i h = _mm_maskload_epi32((const int *)p, t.h);
    switch (t.n) {
    case 1: h = _mm_insert_epi16(h, p[0], 0); break;
    case 3: h = _mm_insert_epi16(h, p[2], 2); break;
    case 5: h = _mm_insert_epi16(h, p[4], 4); break;
    case 7: h = _mm_insert_epi16(h, p[6], 6); break;
    default: break;
    }
    return _mm256_blendv_ps(fill, _mm256_cvtph_ps(h), _mm256_castsi256_ps(t.m));
}
static inline __m256d ldm_f64(const double *p, vtail t, __m256d fill)
{
    return _mm256_blendv_pd(fill, _mm256_maskload_pd(p, t.m), _mm256_castsi256_pd(t.m));
}

#define LD_F32(p) _mm256_loadu_ps(p)
#define LDM_F32(p, t, fill) ldm_f32(p, t, fill)
#define LD_F16(p) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p)))
#define LDM_F16(p, t, fill) ldm_f16(p, t, fill)
#define LD_F64(p) _mm256_loadu_pd(p)
#define LDM_F64(p, t, fill) ldm_f64(p, t, fill)

#define MAP_ID(v) (v)
#define MAP_ABS_PS(v) _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)))
#define MAP_SQ_PS(v) _mm256_mul_ps(v, v)
#define MAP_ABS_PD(v) _mm256_and_pd(v, _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffll)))
#define MAP_SQ_PD(v) _mm256_mul_pd(v, v)

/* ---- quads of one chunk (four consecutive vectors) ---- */

/* [a0 op a1, a2 op a3, b0 op b1, b2 op b3 | the same for elements 4..7]: hadd's layout, from
 * even/odd shuffles and one vertical op (the same three operations hadd decodes into; written
 * out they run faster than vhaddps on some cores and cover the product too) */
#define DEF_PAIRS_PS(OPN)                                                                          \
    static inline __m256 pairs_##OPN##_ps(__m256 a, __m256 b)                                      \
    {                                                                                              \
        return _mm256_##OPN##_ps(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)),                 \
                                 _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));                \
    }
/* [a0 op a1, b0 op b1 | a2 op a3, b2 op b3]: hadd_pd's layout */
#define DEF_PAIRS_PD(OPN)                                                                          \
    static inline __m256d pairs_##OPN##_pd(__m256d a, __m256d b)                                   \
    {                                                                                              \
        return _mm256_##OPN##_pd(_mm256_unpacklo_pd(a, b), _mm256_unpackhi_pd(a, b));             \
    }
DEF_PAIRS_PS(add)
DEF_PAIRS_PS(mul)
DEF_PAIRS_PD(add)
DEF_PAIRS_PD(mul)

/* f32: quads 0..7 of x[0..32) in the order [q0 q2 q4 q6 | q1 q3 q5 q7] */
#define DEF_QUADS_PS(OPN)                                                                          \
    static inline __m256 quads_##OPN##_ps(__m256 a, __m256 b, __m256 c, __m256 d)                   \
    {                                                                                              \
        return pairs_##OPN##_ps(pairs_##OPN##_ps(a, b), pairs_##OPN##_ps(c, d));                   \
    }
/* f64: quads 0..3 of x[0..16) in canonical order */
#define DEF_QUADS_PD(OPN)                                                                          \
    static inline __m256d quads_##OPN##_pd(__m256d a, __m256d b, __m256d c, __m256d d)              \
    {                                                                                              \
        __m256d x = pairs_##OPN##_pd(a, b), y = pairs_##OPN##_pd(c, d); /* [p0 p2|p1 p3] ... */    \
        return _mm256_##OPN##_pd(_mm256_permute2f128_pd(x, y, 0x20),  /* p0 p2 p4 p6 */            \
                                 _mm256_permute2f128_pd(x, y, 0x31)); /* p1 p3 p5 p7 */            \
    }
DEF_QUADS_PS(add)
DEF_QUADS_PS(mul)
DEF_QUADS_PD(add)
DEF_QUADS_PD(mul)

/* ---- halving tree over the 64 (32) lanes of a[0..8) ----
 * whole_*: h = L/2, L/4, L/8 combine whole registers (a_r with a_r+4, then +2, then +1), leaving
 * one register of 8 (4) lanes; halve_* does the last three (f32) or two (f64) steps inside it and
 * returns lane 0. f32 first restores the canonical order of its lanes: position i of a register
 * holds lane perm[i] = 0,2,4,6,1,3,5,7. */
#define DEF_WHOLE(OPN, SFX, V)                                                                     \
    static inline V whole_##OPN##_##SFX(const V *a)                                                \
    {                                                                                              \
        V b0 = _mm256_##OPN##_##SFX(a[0], a[4]), b1 = _mm256_##OPN##_##SFX(a[1], a[5]);            \
        V b2 = _mm256_##OPN##_##SFX(a[2], a[6]), b3 = _mm256_##OPN##_##SFX(a[3], a[7]);            \
        b0 = _mm256_##OPN##_##SFX(b0, b2);                                                         \
        b1 = _mm256_##OPN##_##SFX(b1, b3);                                                         \
        return _mm256_##OPN##_##SFX(b0, b1);                                                       \
    }
#define DEF_HALVE_PS(OPN)                                                                          \
    static inline float halve_##OPN##_ps(__m256 b0)                                                \
    {                                                                                              \
        b0 = _mm256_permutevar8x32_ps(b0, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));              \
        __m128 x = _mm_##OPN##_ps(_mm256_castps256_ps128(b0), _mm256_extractf128_ps(b0, 1));       \
        x = _mm_##OPN##_ps(x, _mm_movehl_ps(x, x));                                                \
        x = _mm_##OPN##_ps(x, _mm_shuffle_ps(x, x, _MM_SHUFFLE(1, 1, 1, 1)));                      \
        return _mm_cvtss_f32(x);                                                                   \
    }
#define DEF_HALVE_PD(OPN)                                                                          \
    static inline double halve_##OPN##_pd(__m256d b0)                                              \
    {                                                                                              \
        __m128d x = _mm_##OPN##_pd(_mm256_castpd256_pd128(b0), _mm256_extractf128_pd(b0, 1));      \
        x = _mm_##OPN##_pd(x, _mm_unpackhi_pd(x, x));                                              \
        return _mm_cvtsd_f64(x);                                                                   \
    }
DEF_WHOLE(add, ps, __m256)
DEF_WHOLE(mul, ps, __m256)
DEF_WHOLE(add, pd, __m256d)
DEF_WHOLE(mul, pd, __m256d)
DEF_HALVE_PS(add)
DEF_HALVE_PS(mul)
DEF_HALVE_PD(add)
DEF_HALVE_PD(mul)

/* ---- many short groups at once: the in-register steps for 8 (f32) or 4 (f64) rows ----
 * A merge takes the registers of two sets of rows and does one step of the tree for both with
 * two shuffles and one operation; the results of the first set land where the step's partner
 * lanes were in the first source, those of the second set in the second's. Three (two) levels
 * turn the rows' registers into one register of their values.
 *   f32: position 4h + k holds lane 2k + h, so h = 4, 2, 1 pair positions differing in bit 1,
 *   0 (inside 128-bit halves), then 2 (the halves); the result is in row order.
 *   f64: canonical order: h = 2 pairs the halves, h = 1 neighbours; with the rows fed as
 *   0, 2, 1, 3 the result is in row order. */
#define DEF_MERGES(OPN)                                                                            \
    static inline __m256 merge4_##OPN##_ps(__m256 a, __m256 b)                                     \
    {                                                                                              \
        return _mm256_##OPN##_ps(_mm256_shuffle_ps(a, b, 0x44), _mm256_shuffle_ps(a, b, 0xEE));    \
    }                                                                                              \
    static inline __m256 merge2_##OPN##_ps(__m256 a, __m256 b)                                     \
    {                                                                                              \
        return _mm256_##OPN##_ps(_mm256_shuffle_ps(a, b, 0x88), _mm256_shuffle_ps(a, b, 0xDD));    \
    }                                                                                              \
    static inline __m256 merge1_##OPN##_ps(__m256 a, __m256 b)                                     \
    {                                                                                              \
        return _mm256_##OPN##_ps(_mm256_permute2f128_ps(a, b, 0x20), _mm256_permute2f128_ps(a, b, 0x31)); \
    }                                                                                              \
    static inline __m256 tree_##OPN##_ps(const __m256 *v) /* 8 rows */                             \
    {                                                                                              \
        __m256 lo = merge2_##OPN##_ps(merge4_##OPN##_ps(v[0], v[1]), merge4_##OPN##_ps(v[2], v[3])); \
        __m256 hi = merge2_##OPN##_ps(merge4_##OPN##_ps(v[4], v[5]), merge4_##OPN##_ps(v[6], v[7])); \
        return merge1_##OPN##_ps(lo, hi);                                                          \
    }                                                                                              \
    static inline __m256d merge2_##OPN##_pd(__m256d a, __m256d b)                                  \
    {                                                                                              \
        return _mm256_##OPN##_pd(_mm256_permute2f128_pd(a, b, 0x20), _mm256_permute2f128_pd(a, b, 0x31)); \
    }                                                                                              \
    static inline __m256d merge1_##OPN##_pd(__m256d a, __m256d b)                                  \
    {                                                                                              \
        return _mm256_##OPN##_pd(_mm256_unpacklo_pd(a, b), _mm256_unpackhi_pd(a, b));             \
    }                                                                                              \
    static inline __m256d tree_##OPN##_pd(const __m256d *v) /* 4 rows */                           \
    {                                                                                              \
        return merge1_##OPN##_pd(merge2_##OPN##_pd(v[0], v[2]), merge2_##OPN##_pd(v[1], v[3]));    \
    }
DEF_MERGES(add)
DEF_MERGES(mul)

/* ---- row kernels ----
 * Steps 2-3 of SPEC 4 over one block p[0..m) (m <= 64 L) and the whole-register steps of 4
 * (DEF_LANES: one register of 8 (4) lanes left), then the block's value (DEF_BLOCK). MAP(v) maps
 * a loaded vector; masked loads put fill where elements are missing, chosen so that MAP(fill) is
 * the identity id. PF > 0 (the stream forms, kernels.h): each pass over eight chunks first
 * prefetches their lines PF bytes ahead, in DEF_LANES4 for each of the four streams. On a Zen 5
 * at this tier (one process alternating both builds, both orders), 64 MiB row sums: FLOAT16
 * [4096, 8192] over axis 1 2.2x faster, FLOAT32 [4096, 4096] 1.37-1.42x, over both axes
 * 1.38x; in cache (256 x 512 FLOAT32) 12-14% slower, hence only for large operators. */
#define ROW_PF 8192
#define QUADS_AT(q, LD, MAP, OPN, SFX, EPV)                                                        \
    quads_##OPN##_##SFX(MAP(LD(q)), MAP(LD((q) + (EPV))), MAP(LD((q) + 2 * (EPV))),                \
                        MAP(LD((q) + 3 * (EPV))))
#define DEF_LANES(LNAME, T, V, EPV, LD, LDM, MAP, OPN, SFX, PF)                                    \
    static inline __attribute__((always_inline)) V LNAME(const T *p, size_t m, V id, V fill)       \
    {                                                                                              \
        const size_t chunk = 4 * (EPV);                                                            \
        size_t full = m / chunk, c = 0;                                                            \
        V a0 = id, a1 = id, a2 = id, a3 = id, a4 = id, a5 = id, a6 = id, a7 = id;                  \
        for (; c + 8 <= full; c += 8) {                                                            \
            const T *q = p + c * chunk;                                                            \
            if (PF)                                                                                \
                for (size_t l_ = 0; l_ < 8 * chunk * sizeof(T); l_ += 64)                          \
                    __builtin_prefetch((const char *)q + (PF) + l_, 0, 3);                         \
            a0 = _mm256_##OPN##_##SFX(a0, QUADS_AT(q, LD, MAP, OPN, SFX, EPV));                    \
            a1 = _mm256_##OPN##_##SFX(a1, QUADS_AT(q + chunk, LD, MAP, OPN, SFX, EPV));            \
            a2 = _mm256_##OPN##_##SFX(a2, QUADS_AT(q + 2 * chunk, LD, MAP, OPN, SFX, EPV));        \
            a3 = _mm256_##OPN##_##SFX(a3, QUADS_AT(q + 3 * chunk, LD, MAP, OPN, SFX, EPV));        \
            a4 = _mm256_##OPN##_##SFX(a4, QUADS_AT(q + 4 * chunk, LD, MAP, OPN, SFX, EPV));        \
            a5 = _mm256_##OPN##_##SFX(a5, QUADS_AT(q + 5 * chunk, LD, MAP, OPN, SFX, EPV));        \
            a6 = _mm256_##OPN##_##SFX(a6, QUADS_AT(q + 6 * chunk, LD, MAP, OPN, SFX, EPV));        \
            a7 = _mm256_##OPN##_##SFX(a7, QUADS_AT(q + 7 * chunk, LD, MAP, OPN, SFX, EPV));        \
        }                                                                                          \
        V a[8] = {a0, a1, a2, a3, a4, a5, a6, a7};                                                 \
        for (; c < full; c++)                                                                      \
            a[c & 7] = _mm256_##OPN##_##SFX(a[c & 7], QUADS_AT(p + c * chunk, LD, MAP, OPN, SFX, EPV)); \
        size_t rest = m - full * chunk;                                                            \
        if (rest) {                                                                                \
            const T *q = p + full * chunk;                                                         \
            V v[4];                                                                                \
            for (size_t i = 0; i < 4; i++) {                                                       \
                size_t have = rest > i * (EPV) ? rest - i * (EPV) : 0;                             \
                v[i] = have >= (EPV) ? MAP(LD(q + i * (EPV)))                                      \
                       : have    ? MAP(LDM(q + i * (EPV), vtail_of((unsigned)have, EPV), fill))    \
                                 : id;                                                             \
            }                                                                                      \
            a[full & 7] = _mm256_##OPN##_##SFX(a[full & 7], quads_##OPN##_##SFX(v[0], v[1], v[2], v[3])); \
        }                                                                                          \
        return whole_##OPN##_##SFX(a);                                                             \
    }
/* DEF_LANES for four runs of n elements each at once (n a multiple of 8 chunks), 8 chunks of each
 * in turn, each run with its own eight registers (kept in memory by the compiler). The operations
 * on each run are DEF_LANES', in its order. Four streams of input at a time read memory faster
 * than one on the machine measured: FLOAT32 blocks summed from 64 MiB (AMD EPYC, 2 vCPUs;
 * medians of 61 rounds alternated in one process) took 3.4-4.3 ms as four streams of eight
 * consecutive blocks against 4.2-4.9 ms one block after the other; the same loop with plain
 * vertical adds took 3.0-3.8 ms in one stream, and prefetching 2-16 KiB ahead did not help the
 * canonical one. */
#define DEF_LANES4(L4NAME, T, V, EPV, LD, MAP, OPN, SFX, PF)                                       \
    static inline __attribute__((always_inline)) void L4NAME(const T *const *p, size_t n, V id,   \
                                                              V *res)                              \
    {                                                                                              \
        const size_t chunk = 4 * (EPV);                                                            \
        V a[4][8];                                                                                 \
        for (int s = 0; s < 4; s++)                                                                \
            for (int k = 0; k < 8; k++)                                                            \
                a[s][k] = id;                                                                      \
        for (size_t c = 0; c < n / chunk; c += 8)                                                  \
            for (int s = 0; s < 4; s++) {                                                          \
                const T *q = p[s] + c * chunk;                                                     \
                if (PF)                                                                            \
                    for (size_t l_ = 0; l_ < 8 * chunk * sizeof(T); l_ += 64)                      \
                        __builtin_prefetch((const char *)q + (PF) + l_, 0, 3);                     \
                for (int k = 0; k < 8; k++)                                                        \
                    a[s][k] = _mm256_##OPN##_##SFX(a[s][k], QUADS_AT(q + k * chunk, LD, MAP, OPN, SFX, EPV)); \
            }                                                                                      \
        for (int s = 0; s < 4; s++)                                                                \
            res[s] = whole_##OPN##_##SFX(a[s]);                                                    \
    }
#define DEF_BLOCK(BNAME, LNAME, T, V, S, OPN, SFX)                                                 \
    static inline S BNAME(const T *p, size_t m, V id, V fill)                                      \
    {                                                                                              \
        return halve_##OPN##_##SFX(LNAME(p, m, id, fill));                                         \
    }

/* A row's whole blocks as four streams (DEF_LANES4) of a quarter of them each, the rest (at
 * most three whole blocks and a partial one) one at a time. */
#define DEF_ROW(NAME, BNAME, L4NAME, T, V, L, OPN, SFX, ID, FIELD)                                 \
    static void NAME(const void *xv, size_t n, uint64_t index_base, partial *out)                 \
    {                                                                                              \
        const T *x = xv;                                                                           \
        (void)index_base;                                                                          \
        const size_t B = 64 * (L), q = n / B / 4;                                                  \
        for (size_t i = 0; i < q; i++) {                                                           \
            const T *p[4] = {x + i * B, x + (i + q) * B, x + (i + 2 * q) * B, x + (i + 3 * q) * B}; \
            V r[4];                                                                                \
            L4NAME(p, B, _mm256_set1_##SFX(ID), r);                                                \
            for (size_t s = 0; s < 4; s++)                                                         \
                out[i + s * q].v.FIELD = halve_##OPN##_##SFX(r[s]);                                \
        }                                                                                          \
        size_t b0 = 4 * q * B;                                                                     \
        out += 4 * q;                                                                              \
        for (; b0 < n; b0 += 64 * (L), out++) {                                                    \
            size_t m = n - b0 < 64 * (L) ? n - b0 : 64 * (L);                                      \
            out->v.FIELD = BNAME(x + b0, m, _mm256_set1_##SFX(ID), _mm256_set1_##SFX(ID));         \
        }                                                                                          \
    }

/* EPV rows per register of values (8 f32, 4 f64); missing rows of the last batch are the
 * identity. */
#define DEF_ROWS(NAME, LNAME, L4NAME, T, V, S, EPV, OPN, SFX, ID, FIELD)                           \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t n, partial *out)         \
    {                                                                                              \
        const V id = _mm256_set1_##SFX(ID);                                                        \
        size_t r0 = 0;                                                                             \
        /* rows of at least 8 whole chunk groups: 4 EPV rows as four streams of EPV rows          \
         * (DEF_LANES4); on shorter rows its set-up costs more than it gains (256 x 512 FLOAT32 \
         * over axis 1, in cache: 8.5 -> 9.5 us) */                                               \
        if (n % (32 * (EPV)) == 0 && n >= 256 * (EPV))                                             \
            for (; r0 + 4 * (EPV) <= nrows; r0 += 4 * (EPV)) {                                     \
                V v[4][EPV];                                                                       \
                for (size_t i = 0; i < (EPV); i++) {                                               \
                    const T *p[4];                                                                 \
                    for (int s = 0; s < 4; s++)                                                    \
                        p[s] = (const T *)((const char *)xv + (ptrdiff_t)(r0 + s * (EPV) + i) * rs); \
                    V r[4];                                                                        \
                    L4NAME(p, n, id, r);                                                           \
                    for (int s = 0; s < 4; s++)                                                    \
                        v[s][i] = r[s];                                                            \
                }                                                                                  \
                for (int s = 0; s < 4; s++) {                                                      \
                    alignas(32) S t[EPV];                                                          \
                    _mm256_store_##SFX(t, tree_##OPN##_##SFX(v[s]));                               \
                    for (size_t i = 0; i < (EPV); i++)                                             \
                        out[r0 + s * (EPV) + i].v.FIELD = t[i];                                    \
                }                                                                                  \
            }                                                                                      \
        for (; r0 < nrows; r0 += (EPV)) {                                                          \
            V v[EPV];                                                                              \
            for (size_t i = 0; i < (EPV); i++)                                                     \
                v[i] = r0 + i < nrows ? LNAME((const T *)((const char *)xv + (ptrdiff_t)(r0 + i) * rs), \
                                              n, id, id)                                           \
                                      : id;                                                        \
            alignas(32) S s[EPV];                                                                  \
            _mm256_store_##SFX(s, tree_##OPN##_##SFX(v));                                          \
            for (size_t i = 0; i < (EPV) && r0 + i < nrows; i++)                                   \
                out[r0 + i].v.FIELD = s[i];                                                        \
        }                                                                                          \
    }

/* ---- column kernels ----
 * The lane loop: lane[j][k] is lane j of column k, in the caller's scratch with rows of
 * DMLCPU_COL_PITCH(K) accumulators (64-byte aligned). K columns are nfull vectors of EPV, then
 * one of rem if rem > 0. AUX(o) is the aux vector of columns o.. . Whole quads of rows run
 * without per-element conditions; a last quad of 1..3 rows has the identity for missing rows. */
typedef __m128 half_ps;
typedef __m128d half_pd;
#define COL_QUAD(OPN, SFX, e0, e1, e2, e3)                                                         \
    _mm256_##OPN##_##SFX(_mm256_##OPN##_##SFX(e0, e1), _mm256_##OPN##_##SFX(e2, e3))
/* SEQ: contiguous rows of 1 KiB to less than 2 KiB take simd/col_seq.h's walk (not LOG_SUM_EXP:
 * SEQ = 0); on a Zen 3, rows of 512 bytes and of 2 KiB were slower that way. */
#define COL_SEQ_LO 1024
#define COL_SEQ_HI 2048
#define COL_LANES(T, V, EPV, L, LD, LDM, MAP, OPN, SFX, AUX, SEQ)                                  \
    /* lanes past the last quad stay the identity, and the tree skips them: x op id = x (a lane  \
     * is never -0), so short blocks do not pay for all L lanes */                               \
    const size_t used = (nrows + 3) / 4 < (L) ? (nrows + 3) / 4 : (L);                             \
    for (size_t j = 0; j < used; j++)                                                              \
        for (size_t v = 0; v < nv; v++)                                                            \
            _mm256_store_##SFX(&lane[j][v * (EPV)], id);                                           \
    size_t r0 = 0;                                                                                 \
    if (K == (EPV) / 2 && rs == (ptrdiff_t)(K * sizeof(T))) {                                      \
        /* narrow contiguous rows of 16 accumulator bytes (N x 4 f32 or f16, N x 2 f64): one      \
         * vector holds two rows, so a quad of rows is two vectors and its sum is taken on their  \
         * 128-bit halves: (r0 op r1) op (r2 op r3) */                                             \
        const V aux0 = AUX(0), aux = _mm256_permute2f128_##SFX(aux0, aux0, 0x00);                   \
        (void)aux;                                                                                 \
        for (; r0 + 4 <= nrows; r0 += 4) {                                                         \
            const T *r_0 = (const T *)(x + (ptrdiff_t)r0 * rs);                                    \
            /* 8 KiB ahead: 45 GB/s at 1 KiB, 63 at 8 KiB over 64 MiB of 4 f32 columns */       \
            _mm_prefetch((const char *)r_0 + 8192, _MM_HINT_T0);                                   \
            V a = MAP(LD(r_0)), b = MAP(LD(r_0 + 2 * K));                                          \
            half_##SFX *ln = (half_##SFX *)lane[(r0 / 4) % (L)];                                   \
            *ln = _mm_##OPN##_##SFX(*ln, _mm_##OPN##_##SFX(                                        \
                _mm_##OPN##_##SFX(_mm256_cast##SFX##256_##SFX##128(a), _mm256_extractf128_##SFX(a, 1)), \
                _mm_##OPN##_##SFX(_mm256_cast##SFX##256_##SFX##128(b), _mm256_extractf128_##SFX(b, 1)))); \
        }                                                                                          \
    }                                                                                              \
    if (SEQ && !rem && COL_SEQ_FITS(T, K, rs, COL_SEQ_LO, COL_SEQ_HI))                             \
        COL_SEQ_QUADS(T, V, EPV, L, LD, MAP, _mm256_##OPN##_##SFX, AUX, COL_SEQ_HI);               \
    /* paired quads: software prefetches for FLOAT16 only (16-byte loads); on a Zen 4 they made \
     * 4096 x 4096 FLOAT32 over axis 0 1.3x slower than the hardware prefetchers alone */        \
    if (!rem && K * sizeof(T) > 256 && COL_STREAMED(T, K, nrows))                                  \
        COL_PAIR_QUADS(T, V, EPV, L, LD, MAP, _mm256_##OPN##_##SFX, AUX, sizeof(T) == 2);          \
    for (; r0 + 4 <= nrows; r0 += 4) {                                                             \
        const T *r_0 = (const T *)(x + (ptrdiff_t)r0 * rs);                                        \
        const T *r_1 = (const T *)((const char *)r_0 + rs);                                        \
        const T *r_2 = (const T *)((const char *)r_1 + rs);                                        \
        const T *r_3 = (const T *)((const char *)r_2 + rs);                                        \
        V *ln = (V *)lane[(r0 / 4) % (L)];                                                         \
        size_t v = 0;                                                                              \
        for (; v < nfull; v++) {                                                                   \
            size_t o = v * (EPV);                                                                  \
            V aux = AUX(o);                                                                        \
            (void)aux;                                                                             \
            if (((o * sizeof(T)) & 63) == 0) {                                                     \
                _mm_prefetch((const char *)(r_0 + o) + pf, _MM_HINT_T0);                           \
                _mm_prefetch((const char *)(r_1 + o) + pf, _MM_HINT_T0);                           \
                _mm_prefetch((const char *)(r_2 + o) + pf, _MM_HINT_T0);                           \
                _mm_prefetch((const char *)(r_3 + o) + pf, _MM_HINT_T0);                           \
            }                                                                                      \
            ln[v] = _mm256_##OPN##_##SFX(ln[v], COL_QUAD(OPN, SFX, MAP(LD(r_0 + o)), MAP(LD(r_1 + o)), \
                                                         MAP(LD(r_2 + o)), MAP(LD(r_3 + o))));     \
        }                                                                                          \
        if (rem) {                                                                                 \
            size_t o = v * (EPV);                                                                  \
            V aux = AUX(o);                                                                        \
            (void)aux;                                                                             \
            if (!nfull) /* narrow columns: one line per quad of rows */                            \
                _mm_prefetch((const char *)r_0 + pf, _MM_HINT_T0);                                 \
            ln[v] = _mm256_##OPN##_##SFX(                                                          \
                ln[v], COL_QUAD(OPN, SFX, MAP(LDM(r_0 + o, tl, fill)), MAP(LDM(r_1 + o, tl, fill)), \
                                MAP(LDM(r_2 + o, tl, fill)), MAP(LDM(r_3 + o, tl, fill))));      \
        }                                                                                          \
    }                                                                                              \
    if (r0 < nrows) {                                                                              \
        size_t have = nrows - r0;                                                                  \
        V *ln = (V *)lane[(r0 / 4) % (L)];                                                         \
        for (size_t v = 0; v < nv; v++) {                                                          \
            size_t o = v * (EPV);                                                                  \
            V aux = AUX(o);                                                                        \
            (void)aux;                                                                             \
            V e[4];                                                                                \
            for (size_t i = 0; i < 4; i++) {                                                       \
                const T *r = (const T *)(x + (ptrdiff_t)(r0 + (i < have ? i : 0)) * rs);           \
                e[i] = i >= have ? id : v < nfull ? MAP(LD(r + o)) : MAP(LDM(r + o, tl, fill));   \
            }                                                                                      \
            ln[v] = _mm256_##OPN##_##SFX(ln[v], COL_QUAD(OPN, SFX, e[0], e[1], e[2], e[3]));       \
        }                                                                                          \
    }                                                                                              \
    for (size_t h = (L) / 2; h >= 1; h /= 2)                                                       \
        for (size_t i = 0; i < h && i + h < used; i++)                                             \
            for (size_t v = 0; v < nv; v++)                                                        \
                ((V *)lane[i])[v] = _mm256_##OPN##_##SFX(((V *)lane[i])[v], ((V *)lane[i + h])[v]);

/* The split of the K columns into vectors, the masks of the last one, and the prefetch distance:
 * 16 rows ahead, at least 1 KiB. The lane loop prefetches every 64-byte line of its four rows
 * that far ahead: with 32-byte loads the hardware prefetchers alone left the column kernels well
 * below the read ceiling (FLOAT16 columns at less than half). */
#define COL_SETUP(EPV)                                                                             \
    const size_t nfull = K / (EPV);                                                                \
    const unsigned rem = (unsigned)(K % (EPV));                                                    \
    const size_t nv = nfull + (rem != 0);                                                          \
    const vtail tl = vtail_of(rem, EPV);                                                           \
    const ptrdiff_t pf = DMLCPU_COL_PREFETCH(rs)

#define NO_AUX(o) id
/* the short-block body's tail loads (simd/col_short.h) */
#define LDM_F32_TL(p) LDM_F32(p, tl, fill)
#define LDM_F16_TL(p) LDM_F16(p, tl, fill)
#define LDM_F64_TL(p) LDM_F64(p, tl, fill)
#define DEF_COL(NAME, T, V, S, EPV, L, LD, LDM, MAP, OPN, SFX, ID, FIELD)                          \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base,   \
                     partial *out, void *scratch)                                                  \
    {                                                                                              \
        const char *x = xv;                                                                        \
        (void)index_base;                                                                          \
        S(*lane)[DMLCPU_COL_PITCH(K)] = scratch;                                                   \
        const V id = _mm256_set1_##SFX(ID), fill = id;                                             \
        COL_SETUP(EPV);                                                                            \
        if (nrows <= 4 * (L) && (index_base & DMLCPU_COL_SMALL)) {                                 \
            COL_SHORT(V, S, EPV, T, LD, LDM##_TL, MAP, _mm256_##OPN##_##SFX, id, FIELD);        \
            return;                                                                                \
        }                                                                                          \
        COL_LANES(T, V, EPV, L, LD, LDM, MAP, OPN, SFX, NO_AUX, 1)                                 \
        for (size_t k = 0; k < K; k++)                                                             \
            out[k].v.FIELD = lane[0][k];                                                           \
    }

#define DEF_SUMS(...) DEF_SUMS_(__VA_ARGS__) /* expands F32ARGS / F64ARGS first */
#define DEF_SUMS_(ROW, ROWS, COL, BNAME, T, V, S, EPV, L, LD, LDM, MAP, OPN, SFX, ID, FIELD)    \
    DEF_LANES(BNAME##_lanes, T, V, EPV, LD, LDM, MAP, OPN, SFX, 0)                                 \
    DEF_BLOCK(BNAME, BNAME##_lanes, T, V, S, OPN, SFX)                                             \
    DEF_LANES4(BNAME##_lanes4, T, V, EPV, LD, MAP, OPN, SFX, 0)                                    \
    DEF_ROW(ROW, BNAME, BNAME##_lanes4, T, V, L, OPN, SFX, ID, FIELD)                              \
    DEF_ROWS(ROWS, BNAME##_lanes, BNAME##_lanes4, T, V, S, EPV, OPN, SFX, ID, FIELD)               \
    DEF_LANES(BNAME##_slanes, T, V, EPV, LD, LDM, MAP, OPN, SFX, ROW_PF)                           \
    DEF_BLOCK(BNAME##_s, BNAME##_slanes, T, V, S, OPN, SFX)                                        \
    DEF_LANES4(BNAME##_slanes4, T, V, EPV, LD, MAP, OPN, SFX, ROW_PF)                              \
    DEF_ROW(ROW##_stream, BNAME##_s, BNAME##_slanes4, T, V, L, OPN, SFX, ID, FIELD)                \
    DEF_ROWS(ROWS##_stream, BNAME##_slanes, BNAME##_slanes4, T, V, S, EPV, OPN, SFX, ID, FIELD)    \
    DEF_COL(COL, T, V, S, EPV, L, LD, LDM, MAP, OPN, SFX, ID, FIELD)

#define F32ARGS __m256, float, 8, 64
#define F64ARGS __m256d, double, 4, 32
DEF_SUMS(reduce_row_sum_f32_avx2, reduce_rows_sum_f32_avx2, reduce_col_sum_f32_avx2, block_sum_f32, float, F32ARGS, LD_F32, LDM_F32, MAP_ID, add, ps, 0.0f, f32)
DEF_SUMS(reduce_row_sum_f16_avx2, reduce_rows_sum_f16_avx2, reduce_col_sum_f16_avx2, block_sum_f16, uint16_t, F32ARGS, LD_F16, LDM_F16, MAP_ID, add, ps, 0.0f, f32)
DEF_SUMS(reduce_row_sum_f64_avx2, reduce_rows_sum_f64_avx2, reduce_col_sum_f64_avx2, block_sum_f64, double, F64ARGS, LD_F64, LDM_F64, MAP_ID, add, pd, 0.0, f64)
DEF_SUMS(reduce_row_asum_f32_avx2, reduce_rows_asum_f32_avx2, reduce_col_asum_f32_avx2, block_asum_f32, float, F32ARGS, LD_F32, LDM_F32, MAP_ABS_PS, add, ps, 0.0f, f32)
DEF_SUMS(reduce_row_asum_f16_avx2, reduce_rows_asum_f16_avx2, reduce_col_asum_f16_avx2, block_asum_f16, uint16_t, F32ARGS, LD_F16, LDM_F16, MAP_ABS_PS, add, ps, 0.0f, f32)
DEF_SUMS(reduce_row_asum_f64_avx2, reduce_rows_asum_f64_avx2, reduce_col_asum_f64_avx2, block_asum_f64, double, F64ARGS, LD_F64, LDM_F64, MAP_ABS_PD, add, pd, 0.0, f64)
DEF_SUMS(reduce_row_sqsum_f32_avx2, reduce_rows_sqsum_f32_avx2, reduce_col_sqsum_f32_avx2, block_sqsum_f32, float, F32ARGS, LD_F32, LDM_F32, MAP_SQ_PS, add, ps, 0.0f, f32)
DEF_SUMS(reduce_row_sqsum_f16_avx2, reduce_rows_sqsum_f16_avx2, reduce_col_sqsum_f16_avx2, block_sqsum_f16, uint16_t, F32ARGS, LD_F16, LDM_F16, MAP_SQ_PS, add, ps, 0.0f, f32)
DEF_SUMS(reduce_row_sqsum_f64_avx2, reduce_rows_sqsum_f64_avx2, reduce_col_sqsum_f64_avx2, block_sqsum_f64, double, F64ARGS, LD_F64, LDM_F64, MAP_SQ_PD, add, pd, 0.0, f64)
DEF_SUMS(reduce_row_prod_f32_avx2, reduce_rows_prod_f32_avx2, reduce_col_prod_f32_avx2, block_prod_f32, float, F32ARGS, LD_F32, LDM_F32, MAP_ID, mul, ps, 1.0f, f32)
DEF_SUMS(reduce_row_prod_f16_avx2, reduce_rows_prod_f16_avx2, reduce_col_prod_f16_avx2, block_prod_f16, uint16_t, F32ARGS, LD_F16, LDM_F16, MAP_ID, mul, ps, 1.0f, f32)
DEF_SUMS(reduce_row_prod_f64_avx2, reduce_rows_prod_f64_avx2, reduce_col_prod_f64_avx2, block_prod_f64, double, F64ARGS, LD_F64, LDM_F64, MAP_ID, mul, pd, 1.0, f64)

/* ---- LOG_SUM_EXP: block max m, then the canonical block sum of exp(x - m); elements missing
 * from a masked load are -inf, and exp(-inf - m) = 0 is the identity.
 *
 * The max uses the vector max instruction, which is not IEEE maximum in two ways. NaN: maxps
 * returns its second operand when either is NaN, so a NaN can be lost; NaNs are tracked apart
 * (an unordered compare) and make m NaN. Zeros: for +0 and -0 it also returns the second operand,
 * so m may be -0 where IEEE maximum gives +0. No result depends on that sign. m is used only in
 * differences x - m (here and, as m - M, when blocks combine) and in the final m + log(s).
 * A difference with a nonzero x does not depend on the sign of a zero m; with x = +-0 it is +0
 * or -0, and exp(+0) = exp(-0) = 1 exactly (n = 0 and r = +-0, so the polynomial gives 1 and the
 * scaling by 2^0 keeps it). The sum s of a block is >= 1 (its maximum contributes exp(0) = 1),
 * so log(s) is +0 or positive, and -0 + log(s) = +0 + log(s). The max of two block maxima
 * (IEEE maximum in the combiner) only passes a zero on into those same uses. ---- */

#define MAP_EXPSUB_ps(v) lse_expf_avx2(_mm256_sub_ps(v, aux))
#define MAP_EXPSUB_pd(v) DMLCPU_EXP_F64_AVX2(_mm256_sub_pd(v, aux))

/* horizontal max of the lanes (no NaN among them that matters: NaN is tracked apart) */
static inline float hmax_ps(__m256 v)
{
    __m128 x = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    x = _mm_max_ps(x, _mm_movehl_ps(x, x));
    x = _mm_max_ps(x, _mm_shuffle_ps(x, x, _MM_SHUFFLE(1, 1, 1, 1)));
    return _mm_cvtss_f32(x);
}
static inline double hmax_pd(__m256d v)
{
    __m128d x = _mm_max_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    x = _mm_max_pd(x, _mm_unpackhi_pd(x, x));
    return _mm_cvtsd_f64(x);
}

/* acc = max(acc, v); nan |= lanes where a or b is NaN */
#define UNORD(SFX, a, b) _mm256_cmp_##SFX(a, b, _CMP_UNORD_Q)

/* Four vectors of exp into e (simd/lse_expf.h): FLOAT32 the four in lockstep, FLOAT64 SLEEF's
 * call on each in turn. */
#define EXP4_ps(e, EPV, ...) LSE_EXPQ4_STORE(_mm256_store_ps, lse_expf4_avx2, e, EPV, __VA_ARGS__)
#define EXP4_pd(e, EPV, ...) LSE_EACH4_STORE(_mm256_store_pd, DMLCPU_EXP_F64_AVX2, e, EPV, __VA_ARGS__)

#define EXPQ_F64(q) LSE_EXPQ_EACH(q, DMLCPU_EXP_F64_AVX2)
/* Row form (simd/lse_row.h): the first k elements of a partial vector with -inf elsewhere, and
 * the NaN lanes of a vector as bits. */
#define LDM_F32_NINF(p, k) LDM_F32(p, vtail_of((unsigned)(k), 8), _mm256_set1_ps(-INFINITY))
#define LDM_F16_NINF(p, k) LDM_F16(p, vtail_of((unsigned)(k), 8), _mm256_set1_ps(-INFINITY))
#define LDM_F64_NINF(p, k) LDM_F64(p, vtail_of((unsigned)(k), 4), _mm256_set1_pd(-INFINITY))
#define UNORD_MASK_ps(v) ((unsigned)_mm256_movemask_ps(UNORD(ps, v, v)))
#define UNORD_MASK_pd(v) ((unsigned)_mm256_movemask_pd(UNORD(pd, v, v)))
#define DEF_ROW_LSE(NAME, BNAME, T, V, S, EPV, L, LD, LDM, SFX, EXP, FIELD)                        \
    static void NAME(const void *xv, size_t n, uint64_t index_base, partial *out)                 \
    {                                                                                              \
        const T *x = xv;                                                                           \
        (void)index_base;                                                                          \
        const V zero = _mm256_setzero_##SFX();                                                     \
        LSE_ROW_BLOCKS(T, V, S, EPV, L, 32, LD, LDM##_NINF, _mm256_load_##SFX, _mm256_store_##SFX, \
                       _mm256_max_##SFX, _mm256_sub_##SFX, _mm256_set1_##SFX, hmax_##SFX, EXP,     \
                       EXP4_##SFX, UNORD_MASK_##SFX, FIELD, BNAME, zero, zero);                    \
    }
DEF_ROW_LSE(reduce_row_lse_f32_avx2, block_sum_f32, float, __m256, float, 8, 64, LD_F32, LDM_F32, ps, lse_expf_avx2, f32)
DEF_ROW_LSE(reduce_row_lse_f16_avx2, block_sum_f32, uint16_t, __m256, float, 8, 64, LD_F16, LDM_F16, ps, lse_expf_avx2, f32)
DEF_ROW_LSE(reduce_row_lse_f64_avx2, block_sum_f64, double, __m256d, double, 4, 32, LD_F64, LDM_F64, pd, DMLCPU_EXP_F64_AVX2, f64)

/* Column form: the column maxima first, kept in mcol (the first DMLCPU_COL_PITCH(K) accumulators
 * of the scratch, the lanes follow), four rows at a time: mcol = max(max of the four rows, mcol)
 * returns mcol when it is NaN, so a NaN stays; a NaN among the four rows (which the max may drop)
 * sets all bits of the column, which is a NaN too. Then the lane loop with aux = the column's
 * max. Columns whose m is not finite (and lanes past K, where m = -inf) get exp(NaN) or 0 terms
 * that are never used: their aux is 0. */
#define DEF_COL_LSE(NAME, T, V, S, EPV, L, LD, LDM, SFX, FIELD)                                    \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base,   \
                     partial *out, void *scratch)                                                  \
    {                                                                                              \
        const char *x = xv;                                                                        \
        (void)index_base;                                                                          \
        S *mcol = scratch;                                                                         \
        S(*lane)[DMLCPU_COL_PITCH(K)] = (void *)(mcol + DMLCPU_COL_PITCH(K));                      \
        const V id = _mm256_setzero_##SFX(), fill = _mm256_set1_##SFX(-INFINITY);                 \
        COL_SETUP(EPV);                                                                            \
        /* simd/lse_col.h where the rows hold a line */                                            \
        if (K * sizeof(T) >= 64) {                                                                 \
            LSE_COL_WALK(T, V, S, EPV, L, LD, LDM##_TL, _mm256_add_##SFX, _mm256_sub_##SFX,        \
                         _mm256_max_##SFX, _mm256_or_##SFX, UNORD_##SFX, _mm256_set1_##SFX,        \
                         _mm256_store_##SFX, EXPQ_##SFX, FIELD);                                   \
            return;                                                                                \
        }                                                                                          \
        for (size_t v = 0; v < nv; v++)                                                            \
            _mm256_store_##SFX(&mcol[v * (EPV)], fill);                                            \
        for (size_t i0 = 0; i0 < nrows; i0 += 4) {                                                 \
            const T *r[4]; /* missing rows of a last quad repeat the first: max is idempotent */   \
            for (size_t i = 0; i < 4; i++)                                                         \
                r[i] = (const T *)(x + (ptrdiff_t)(i0 + (i0 + i < nrows ? i : 0)) * rs);           \
            for (size_t v = 0; v < nv; v++) {                                                      \
                size_t o = v * (EPV);                                                              \
                V e0, e1, e2, e3;                                                                  \
                if (((o * sizeof(T)) & 63) == 0)                                                   \
                    for (size_t i = 0; i < 4; i++)                                                 \
                        _mm_prefetch((const char *)(r[i] + o) + pf, _MM_HINT_T0);                  \
                if (v < nfull) {                                                                   \
                    e0 = LD(r[0] + o), e1 = LD(r[1] + o), e2 = LD(r[2] + o), e3 = LD(r[3] + o);    \
                } else {                                                                           \
                    e0 = LDM(r[0] + o, tl, fill), e1 = LDM(r[1] + o, tl, fill);                  \
                    e2 = LDM(r[2] + o, tl, fill), e3 = LDM(r[3] + o, tl, fill);                  \
                }                                                                                  \
                V nanm = _mm256_or_##SFX(UNORD(SFX, e0, e1), UNORD(SFX, e2, e3));                   \
                V q = _mm256_max_##SFX(_mm256_max_##SFX(e0, e1), _mm256_max_##SFX(e2, e3));        \
                V mv = _mm256_max_##SFX(q, _mm256_load_##SFX(&mcol[o]));                           \
                _mm256_store_##SFX(&mcol[o], _mm256_or_##SFX(mv, nanm));                            \
            }                                                                                      \
        }                                                                                          \
        COL_LANES(T, V, EPV, L, LD, LDM, MAP_EXPSUB_##SFX, add, SFX, LSE_AUX_##SFX, 0)            \
        for (size_t k = 0; k < K; k++) {                                                           \
            S mx = isnan(mcol[k]) ? (S)NAN : mcol[k];                                              \
            out[k].v.FIELD = mx;                                                                   \
            out[k].aux.FIELD = isfinite(mx) ? lane[0][k] : 0;                                      \
        }                                                                                          \
    }
#define UNORD_ps(a, b) UNORD(ps, a, b)
#define UNORD_pd(a, b) UNORD(pd, a, b)
#define EXPQ_ps(q) lse_expf4_avx2(q)
#define EXPQ_pd(q) EXPQ_F64(q)
#define LSE_AUX_ps(o) _mm256_load_ps(&mcol[o])
#define LSE_AUX_pd(o) _mm256_load_pd(&mcol[o])
DEF_COL_LSE(reduce_col_lse_f32_avx2, float, __m256, float, 8, 64, LD_F32, LDM_F32, ps, f32)
DEF_COL_LSE(reduce_col_lse_f16_avx2, uint16_t, __m256, float, 8, 64, LD_F16, LDM_F16, ps, f32)
DEF_COL_LSE(reduce_col_lse_f64_avx2, double, __m256d, double, 4, 32, LD_F64, LDM_F64, pd, f64)

DMLCPU_DEF_LOG_BATCH(log_f32_avx2, float, 8, _mm256_loadu_ps, _mm256_storeu_ps, DMLCPU_LOG_F32_AVX2, DMLCPU_LOG_F32_SCALAR)
DMLCPU_DEF_LOG_BATCH(log_f64_avx2, double, 4, _mm256_loadu_pd, _mm256_storeu_pd, DMLCPU_LOG_F64_AVX2, DMLCPU_LOG_F64_SCALAR)

#define ENTRY(K, T, R, RS, C)                                                                      \
    .row[K][DMLCPU_DATA_TYPE_##T] = R, .rows[K][DMLCPU_DATA_TYPE_##T] = RS, .col[K][DMLCPU_DATA_TYPE_##T] = C
#define ENTRY_STREAM(K, T, R, RS, C)                                                               \
    ENTRY(K, T, R, RS, C), .row_stream[K][DMLCPU_DATA_TYPE_##T] = R##_stream,                      \
    .rows_stream[K][DMLCPU_DATA_TYPE_##T] = RS##_stream
const kernel_table dmlcpu_kernels_avx2 = {
    .isa = DMLCPU_ISA_AVX2,
    ENTRY_STREAM(RK_SUM, FLOAT32, reduce_row_sum_f32_avx2, reduce_rows_sum_f32_avx2, reduce_col_sum_f32_avx2),
    ENTRY_STREAM(RK_SUM, FLOAT16, reduce_row_sum_f16_avx2, reduce_rows_sum_f16_avx2, reduce_col_sum_f16_avx2),
    ENTRY_STREAM(RK_SUM, FLOAT64, reduce_row_sum_f64_avx2, reduce_rows_sum_f64_avx2, reduce_col_sum_f64_avx2),
    ENTRY_STREAM(RK_ASUM, FLOAT32, reduce_row_asum_f32_avx2, reduce_rows_asum_f32_avx2, reduce_col_asum_f32_avx2),
    ENTRY_STREAM(RK_ASUM, FLOAT16, reduce_row_asum_f16_avx2, reduce_rows_asum_f16_avx2, reduce_col_asum_f16_avx2),
    ENTRY_STREAM(RK_ASUM, FLOAT64, reduce_row_asum_f64_avx2, reduce_rows_asum_f64_avx2, reduce_col_asum_f64_avx2),
    ENTRY_STREAM(RK_SQSUM, FLOAT32, reduce_row_sqsum_f32_avx2, reduce_rows_sqsum_f32_avx2, reduce_col_sqsum_f32_avx2),
    ENTRY_STREAM(RK_SQSUM, FLOAT16, reduce_row_sqsum_f16_avx2, reduce_rows_sqsum_f16_avx2, reduce_col_sqsum_f16_avx2),
    ENTRY_STREAM(RK_SQSUM, FLOAT64, reduce_row_sqsum_f64_avx2, reduce_rows_sqsum_f64_avx2, reduce_col_sqsum_f64_avx2),
    ENTRY_STREAM(RK_PROD, FLOAT32, reduce_row_prod_f32_avx2, reduce_rows_prod_f32_avx2, reduce_col_prod_f32_avx2),
    ENTRY_STREAM(RK_PROD, FLOAT16, reduce_row_prod_f16_avx2, reduce_rows_prod_f16_avx2, reduce_col_prod_f16_avx2),
    ENTRY_STREAM(RK_PROD, FLOAT64, reduce_row_prod_f64_avx2, reduce_rows_prod_f64_avx2, reduce_col_prod_f64_avx2),
    ENTRY(RK_LSE, FLOAT32, reduce_row_lse_f32_avx2, NULL, reduce_col_lse_f32_avx2),
    ENTRY(RK_LSE, FLOAT16, reduce_row_lse_f16_avx2, NULL, reduce_col_lse_f16_avx2),
    ENTRY(RK_LSE, FLOAT64, reduce_row_lse_f64_avx2, NULL, reduce_col_lse_f64_avx2),
    .log_f32 = log_f32_avx2,
    .log_f64 = log_f64_avx2,
};
