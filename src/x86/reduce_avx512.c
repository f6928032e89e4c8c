/* AVX-512 (F/BW/DQ/VL) kernels of the float sums in the canonical order, and of LOG_SUM_EXP.
 *
 * Not yet on simd/reduce_sum.h, the body the NEON tier instantiates: this file and reduce_avx2.c are
 * still a pair. Folding them in needs the shared body to take this permuted quad layout and
 * the result tested and timed on an AVX-512 machine before it replaces these tuned loops. The
 * row form of LOG_SUM_EXP is already shared with the NEON tier (simd/lse_row.h).
 *
 * The virtual vector of SPEC 4 (64 f32 or 32 f64 lanes) is four zmm accumulators. A row kernel
 * loads a chunk of 64 consecutive f32 (32 f64) and forms its 16 (8) quads with two levels of
 * shuffles: pairs x_2i + x_2i+1, then quads (x_4j + x_4j+1) + (x_4j+2 + x_4j+3). Chunk c holds
 * quads 16c.. (8c..), the lanes of accumulator c mod 4; the shuffles leave them in a fixed
 * permuted order inside the accumulator, restored before the halving tree. A column kernel adds
 * four rows per column vector and folds the quad into that column's lane in a lane array in the
 * scratch buffer. Tails are loaded under a mask with the identity in the masked-out places: a
 * quad wholly past the end then adds the identity to its lane, which leaves the lane unchanged
 * (a lane starts at +0 and only adds, so it is never -0; and x * 1 = x). */
#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512DQ__) || !defined(__AVX512VL__)
#error "reduce_avx512.c must be compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl"
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

/* ---- loads of one vector (16 f32 / 8 f64 accumulator elements), full or the first n ---- */

#define LD_F32(p) _mm512_loadu_ps(p)
#define LDM_F32(p, n, id) _mm512_mask_loadu_ps(id, (__mmask16)((1u << (n)) - 1), p)
#define LD_F16(p) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p)))
#define LDM_F16(p, n, id)                                                                          \
    _mm512_mask_blend_ps((__mmask16)((1u << (n)) - 1), id,                                         \
                         _mm512_cvtph_ps(_mm256_maskz_loadu_epi16((__mmask16)((1u << (n)) - 1), p)))
#define LD_F64(p) _mm512_loadu_pd(p)
#define LDM_F64(p, n, id) _mm512_mask_loadu_pd(id, (__mmask8)((1u << (n)) - 1), p)

#define MAP_ID(v) (v)
#define MAP_ABS_PS(v) _mm512_abs_ps(v)
#define MAP_SQ_PS(v) _mm512_mul_ps(v, v)
#define MAP_ABS_PD(v) _mm512_abs_pd(v)
#define MAP_SQ_PD(v) _mm512_mul_pd(v, v)

/* The 16 quads of four f32 vectors a, b, c, d (64 consecutive elements) with in-lane shuffles:
 * shuffle 0x88 / 0xDD take the even / odd elements of each 128-bit lane of two vectors, so two
 * levels give, in 128-bit lane l, the quads of a, b, c and d that lie in their lane l:
 * position 4l + k holds quad 4k + l. Every accumulator keeps that order; unpermute_ps restores
 * the canonical one before the halving tree. (Two-source permutes give the canonical order
 * directly but cost more: 64-67 GB/s against 71-72 GB/s for these shuffles in a loop that only
 * forms quads over 64 MiB, where a plain read does 80.) */
#define DEF_QUADS_PS(NAME, OP)                                                                     \
    static inline __m512 NAME(__m512 a, __m512 b, __m512 c, __m512 d)                              \
    {                                                                                              \
        __m512 p = OP(_mm512_shuffle_ps(a, b, 0x88), _mm512_shuffle_ps(a, b, 0xDD));               \
        __m512 q = OP(_mm512_shuffle_ps(c, d, 0x88), _mm512_shuffle_ps(c, d, 0xDD));               \
        return OP(_mm512_shuffle_ps(p, q, 0x88), _mm512_shuffle_ps(p, q, 0xDD));                   \
    }
DEF_QUADS_PS(quads_add_ps, _mm512_add_ps)
DEF_QUADS_PS(quads_mul_ps, _mm512_mul_ps)
/* f64 (8 per vector): shuffle_pd 0x00 / 0xFF pair up the even / odd elements of each 128-bit
 * lane, then 128-bit lane shuffles add neighbouring pairs: the result holds quads
 * 0, 2, 1, 3, 4, 6, 5, 7 of the 32 elements; unpermute_pd restores the order. */
#define DEF_QUADS_PD(NAME, OP)                                                                     \
    static inline __m512d NAME(__m512d a, __m512d b, __m512d c, __m512d d)                         \
    {                                                                                              \
        __m512d p = OP(_mm512_shuffle_pd(a, b, 0x00), _mm512_shuffle_pd(a, b, 0xFF));              \
        __m512d q = OP(_mm512_shuffle_pd(c, d, 0x00), _mm512_shuffle_pd(c, d, 0xFF));              \
        return OP(_mm512_shuffle_f64x2(p, q, _MM_SHUFFLE(2, 0, 2, 0)),                             \
                  _mm512_shuffle_f64x2(p, q, _MM_SHUFFLE(3, 1, 3, 1)));                            \
    }
DEF_QUADS_PD(quads_add_pd, _mm512_add_pd)
DEF_QUADS_PD(quads_mul_pd, _mm512_mul_pd)
static inline __m512 unpermute_ps(__m512 v)
{
    const __m512i idx = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    return _mm512_permutexvar_ps(idx, v);
}
static inline __m512d unpermute_pd(__m512d v)
{
    return _mm512_permutexvar_pd(_mm512_setr_epi64(0, 2, 1, 3, 4, 6, 5, 7), v);
}

/* The halving tree over the 16 (8) lanes left after its steps that combine whole accumulators,
 * in canonical order; returns lane 0. */
#define DEF_HALVE(NAME, V, S, W, ADD4, MOVEHL, SHUF1, CVT, EXTRACT4)                                \
    static inline S NAME(V a)                                                                      \
    {                                                                                              \
        W x0, x1, x2, x3;                                                                          \
        EXTRACT4(a, x0, x1, x2, x3);                                                               \
        x0 = ADD4(x0, x2);                                                                         \
        x1 = ADD4(x1, x3);                                                                         \
        x0 = ADD4(x0, x1);                                                                         \
        x0 = ADD4(x0, MOVEHL(x0));                                                                 \
        x0 = SHUF1(x0, ADD4);                                                                      \
        return CVT(x0);                                                                            \
    }
#define EXTRACT4_PS(v, x0, x1, x2, x3)                                                             \
    do {                                                                                           \
        x0 = _mm512_castps512_ps128(v);                                                            \
        x1 = _mm512_extractf32x4_ps(v, 1);                                                         \
        x2 = _mm512_extractf32x4_ps(v, 2);                                                         \
        x3 = _mm512_extractf32x4_ps(v, 3);                                                         \
    } while (0)
#define EXTRACT4_PD(v, x0, x1, x2, x3)                                                             \
    do {                                                                                           \
        x0 = _mm512_castpd512_pd128(v);                                                            \
        x1 = _mm512_extractf64x2_pd(v, 1);                                                         \
        x2 = _mm512_extractf64x2_pd(v, 2);                                                         \
        x3 = _mm512_extractf64x2_pd(v, 3);                                                         \
    } while (0)
/* f32: 16 lanes = four xmm: h = 8, 4 on whole xmm, then h = 2 (lanes 2,3 onto 0,1) and h = 1
 * (lane 1 onto 0). f64: 8 lanes = four xmm of 2: h = 4, 2 on whole xmm, h = 1
 * within. The f64 tree therefore needs one step fewer: its MOVEHL step is lane 1 onto lane 0 and
 * its SHUF1 step does nothing. */
#define MOVEHL_PS(x) _mm_movehl_ps(x, x)
#define SHUF1_PS(x, ADD4) ADD4(x, _mm_shuffle_ps(x, x, _MM_SHUFFLE(1, 1, 1, 1)))
#define MOVEHL_PD(x) _mm_unpackhi_pd(x, x)
#define SHUF1_PD(x, ADD4) (x)
DEF_HALVE(halve_add_ps, __m512, float, __m128, _mm_add_ps, MOVEHL_PS, SHUF1_PS, _mm_cvtss_f32, EXTRACT4_PS)
DEF_HALVE(halve_mul_ps, __m512, float, __m128, _mm_mul_ps, MOVEHL_PS, SHUF1_PS, _mm_cvtss_f32, EXTRACT4_PS)
DEF_HALVE(halve_add_pd, __m512d, double, __m128d, _mm_add_pd, MOVEHL_PD, SHUF1_PD, _mm_cvtsd_f64, EXTRACT4_PD)
DEF_HALVE(halve_mul_pd, __m512d, double, __m128d, _mm_mul_pd, MOVEHL_PD, SHUF1_PD, _mm_cvtsd_f64, EXTRACT4_PD)

/* Steps 2-3 of SPEC 4 over one block p[0..m) (m <= 64 L) and the steps of 4 that combine whole
 * accumulators (h = 32, 16 for f32; 16, 8 for f64): one vector of 16 (8) lanes, in the shuffles'
 * order. MAP(v) maps a loaded vector (it may use aux); masked loads put fill where elements are
 * missing, chosen so that MAP(fill) is the identity id.
 * PF > 0 (the stream forms, kernels.h): the main loop prefetches the lines PF bytes ahead of the
 * four chunks it reads. FLOAT16 chunks' conversions hold back the loads behind them: the row sum
 * of [4096, 8192] FLOAT16 ran at 33-35 GB/s without, 41-45 with 8 KiB ahead (4 KiB: 38-41,
 * 12 KiB: 38-43); FLOAT32 [4096, 4096] 2-7% faster, [2048, 4096] (32 MiB) 1.16x; but in cache
 * 5-9% slower at 4 and 8 MiB, up to 1.3x at 512 KiB (one process alternating both builds,
 * both orders, Zen 5). */
#define ROW_PF 8192
#define DEF_LANES(LNAME, T, V, EPV, LD, LDM, MAP, OPN, SFX, PF)                                    \
    static inline __attribute__((always_inline)) V LNAME(const T *p, size_t m, V id, V fill, V aux) \
    {                                                                                              \
        (void)aux;                                                                                 \
        V a0 = id, a1 = id, a2 = id, a3 = id;                                                      \
        const size_t chunk = 4 * (EPV);                                                            \
        size_t full = m / chunk, c = 0;                                                            \
        for (; c + 4 <= full; c += 4) {                                                            \
            const T *q = p + c * chunk;                                                            \
            if (PF)                                                                                \
                for (size_t l_ = 0; l_ < 4 * chunk * sizeof(T); l_ += 64)                          \
                    __builtin_prefetch((const char *)q + (PF) + l_, 0, 3);                         \
            a0 = _mm512_##OPN##_##SFX(a0, QUADS(q, LD, MAP, OPN, SFX));                            \
            a1 = _mm512_##OPN##_##SFX(a1, QUADS(q + chunk, LD, MAP, OPN, SFX));                    \
            a2 = _mm512_##OPN##_##SFX(a2, QUADS(q + 2 * chunk, LD, MAP, OPN, SFX));                \
            a3 = _mm512_##OPN##_##SFX(a3, QUADS(q + 3 * chunk, LD, MAP, OPN, SFX));                \
        }                                                                                          \
        for (; c < full; c++) {                                                                    \
            V qv = QUADS(p + c * chunk, LD, MAP, OPN, SFX);                                        \
            if ((c & 3) == 0) a0 = _mm512_##OPN##_##SFX(a0, qv);                                   \
            else if ((c & 3) == 1) a1 = _mm512_##OPN##_##SFX(a1, qv);                              \
            else a2 = _mm512_##OPN##_##SFX(a2, qv);                                                \
        }                                                                                          \
        size_t rest = m - full * chunk;                                                            \
        if (rest) {                                                                                \
            const T *q = p + full * chunk;                                                         \
            V v[4];                                                                                \
            for (size_t i = 0; i < 4; i++) {                                                       \
                size_t have = rest > i * (EPV) ? rest - i * (EPV) : 0;                             \
                v[i] = have >= (EPV) ? MAP(LD(q + i * (EPV)))                                      \
                       : have    ? MAP(LDM(q + i * (EPV), (unsigned)have, fill))                   \
                                 : id;                                                             \
            }                                                                                      \
            V qv = quads_##OPN##_##SFX(v[0], v[1], v[2], v[3]);                            \
            if ((full & 3) == 0) a0 = _mm512_##OPN##_##SFX(a0, qv);                                \
            else if ((full & 3) == 1) a1 = _mm512_##OPN##_##SFX(a1, qv);                           \
            else if ((full & 3) == 2) a2 = _mm512_##OPN##_##SFX(a2, qv);                           \
            else a3 = _mm512_##OPN##_##SFX(a3, qv);                                                \
        }                                                                                          \
        a0 = _mm512_##OPN##_##SFX(a0, a2);                                                         \
        a1 = _mm512_##OPN##_##SFX(a1, a3);                                                         \
        return _mm512_##OPN##_##SFX(a0, a1);                                                       \
    }
/* The block's value (steps 2-4): all accumulators share one permutation, so one unpermute after
 * the whole-accumulator steps does. */
#define DEF_BLOCK(BNAME, LNAME, T, V, S, OPN, SFX)                                                 \
    static inline S BNAME(const T *p, size_t m, V id, V fill, V aux)                               \
    {                                                                                              \
        return halve_##OPN##_##SFX(unpermute_##SFX(LNAME(p, m, id, fill, aux)));                   \
    }
#define QUADS(q, LD, MAP, OPN, SFX)                                                                \
    quads_##OPN##_##SFX(MAP(LD(q)), MAP(LD((q) + chunk / 4)), MAP(LD((q) + chunk / 2)),            \
                        MAP(LD((q) + 3 * chunk / 4)))

#define DEF_ROW(NAME, BNAME, T, L, SFX, ID, FIELD)                                                 \
    static void NAME(const void *xv, size_t n, uint64_t index_base, partial *out)                 \
    {                                                                                              \
        const T *x = xv;                                                                           \
        (void)index_base;                                                                          \
        for (size_t b0 = 0; b0 < n; b0 += 64 * (L), out++) {                                       \
            size_t m = n - b0 < 64 * (L) ? n - b0 : 64 * (L);                                      \
            out->v.FIELD = BNAME(x + b0, m, _mm512_set1_##SFX(ID), _mm512_set1_##SFX(ID),          \
                                 _mm512_set1_##SFX(ID));                                           \
        }                                                                                          \
    }

/* ---- many short groups at once: the end of the halving tree for 16 (f32) or 8 (f64) rows ----
 * Each row's lane vector (DEF_LANES) still needs the tree steps inside one register. A merge
 * takes the vectors of two sets of rows and does one step for both with two shuffles and one
 * operation, leaving the results of the first set where the step's partner lanes were in the
 * first source and those of the second set in the second source's; four levels of merges
 * (three for f64) turn the rows' vectors into one vector of their values.
 *   f32: position 4l + k holds lane 4k + l, so the steps h = 8, 4, 2, 1 pair positions that
 *   differ in bit 1, 0 (inside 128-bit lanes), 3, 2 (across them); the result is in row order.
 *   f64: position order 0, 2, 1, 3, 4, 6, 5, 7: h = 4, 2, 1 pair positions differing in bit 2
 *   (256-bit halves), 0 (neighbours), 1 (128-bit lanes); with the rows fed as 0, 2, 1, 3, ...
 *   the result is in row order. */
#define DEF_MERGES(OPN)                                                                            \
    static inline __m512 merge8_##OPN##_ps(__m512 a, __m512 b)                                     \
    {                                                                                              \
        return _mm512_##OPN##_ps(_mm512_shuffle_ps(a, b, 0x44), _mm512_shuffle_ps(a, b, 0xEE));    \
    }                                                                                              \
    static inline __m512 merge4_##OPN##_ps(__m512 a, __m512 b)                                     \
    {                                                                                              \
        return _mm512_##OPN##_ps(_mm512_shuffle_ps(a, b, 0x88), _mm512_shuffle_ps(a, b, 0xDD));    \
    }                                                                                              \
    static inline __m512 merge2_##OPN##_ps(__m512 a, __m512 b)                                     \
    {                                                                                              \
        return _mm512_##OPN##_ps(_mm512_shuffle_f32x4(a, b, 0x44), _mm512_shuffle_f32x4(a, b, 0xEE)); \
    }                                                                                              \
    static inline __m512 merge1_##OPN##_ps(__m512 a, __m512 b)                                     \
    {                                                                                              \
        return _mm512_##OPN##_ps(_mm512_shuffle_f32x4(a, b, 0x88), _mm512_shuffle_f32x4(a, b, 0xDD)); \
    }                                                                                              \
    static inline __m512 tree_##OPN##_ps(const __m512 *v) /* 16 rows */                            \
    {                                                                                              \
        __m512 a[8], b[4];                                                                         \
        for (int i = 0; i < 8; i++)                                                                \
            a[i] = merge8_##OPN##_ps(v[2 * i], v[2 * i + 1]);                                      \
        for (int i = 0; i < 4; i++)                                                                \
            b[i] = merge4_##OPN##_ps(a[2 * i], a[2 * i + 1]);                                      \
        return merge1_##OPN##_ps(merge2_##OPN##_ps(b[0], b[1]), merge2_##OPN##_ps(b[2], b[3]));    \
    }                                                                                              \
    static inline __m512d merge4_##OPN##_pd(__m512d a, __m512d b)                                  \
    {                                                                                              \
        return _mm512_##OPN##_pd(_mm512_shuffle_f64x2(a, b, 0x44), _mm512_shuffle_f64x2(a, b, 0xEE)); \
    }                                                                                              \
    static inline __m512d merge2_##OPN##_pd(__m512d a, __m512d b)                                  \
    {                                                                                              \
        return _mm512_##OPN##_pd(_mm512_unpacklo_pd(a, b), _mm512_unpackhi_pd(a, b));             \
    }                                                                                              \
    static inline __m512d merge1_##OPN##_pd(__m512d a, __m512d b)                                  \
    {                                                                                              \
        return _mm512_##OPN##_pd(_mm512_shuffle_f64x2(a, b, 0x88), _mm512_shuffle_f64x2(a, b, 0xDD)); \
    }                                                                                              \
    static inline __m512d tree_##OPN##_pd(const __m512d *v) /* 8 rows */                           \
    {                                                                                              \
        __m512d lo = merge2_##OPN##_pd(merge4_##OPN##_pd(v[0], v[2]), merge4_##OPN##_pd(v[1], v[3])); \
        __m512d hi = merge2_##OPN##_pd(merge4_##OPN##_pd(v[4], v[6]), merge4_##OPN##_pd(v[5], v[7])); \
        return merge1_##OPN##_pd(lo, hi);                                                          \
    }
DEF_MERGES(add)
DEF_MERGES(mul)

/* RPV rows per vector of values; missing rows of the last batch are the identity. */
#define DEF_ROWS(NAME, LNAME, T, V, S, EPV, OPN, SFX, ID, FIELD)                                   \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t n, partial *out)         \
    {                                                                                              \
        const V id = _mm512_set1_##SFX(ID);                                                        \
        for (size_t r0 = 0; r0 < nrows; r0 += (EPV)) {                                             \
            V v[EPV];                                                                              \
            for (size_t i = 0; i < (EPV); i++)                                                     \
                v[i] = r0 + i < nrows ? LNAME((const T *)((const char *)xv + (ptrdiff_t)(r0 + i) * rs), \
                                              n, id, id, id)                                       \
                                      : id;                                                        \
            alignas(64) S s[EPV];                                                                  \
            _mm512_store_##SFX(s, tree_##OPN##_##SFX(v));                                          \
            for (size_t i = 0; i < (EPV) && r0 + i < nrows; i++)                                   \
                out[r0 + i].v.FIELD = s[i];                                                        \
        }                                                                                          \
    }

/* The lane loop of a column kernel: lane[j][k] is lane j of column k (K columns in nv vectors of
 * EPV, the last one holding `last`). AUX(o) is the aux vector of columns o.. . SEQ: contiguous
 * rows of 512 bytes to less than 2 KiB take simd/col_seq.h's walk (not LOG_SUM_EXP: SEQ = 0). On
 * a Zen 4, alternated processes (medians of 3 runs of the bench): 8 x 8192 x 256 FLOAT32 over
 * axis 1 7.1-7.6 -> 4.5-5.0 ms; 8 x 16384 x 256 FLOAT16 6.1-6.8 -> 4.9-5.5 ms; 2 KiB rows of
 * FLOAT64 gained nothing. */
#define COL_SEQ_LO 512
#define COL_SEQ_HI 2048
#define COL_LANES(T, V, EPV, L, LD, LDM, MAP, OPN, SFX, AUX, SEQ)                                  \
    /* lanes past the last quad stay the identity, and the tree skips them: x op id = x (a lane  \
     * is never -0), so short blocks do not pay for all L lanes */                               \
    const size_t used = (nrows + 3) / 4 < (L) ? (nrows + 3) / 4 : (L);                             \
    for (size_t j = 0; j < used; j++)                                                              \
        for (size_t v = 0; v < nv; v++)                                                            \
            _mm512_store_##SFX(&lane[j][v * (EPV)], id);                                           \
    const size_t nvf = last == (EPV) ? nv : nv - 1; /* vectors without a masked tail */            \
    /* rows 16 ahead, at least 1 KiB: the hardware prefetchers alone left strided and narrow   \
     * columns at a third of the read ceiling. Not over long stretches of each row (more than    \
     * 256 bytes) read with whole-line loads, where the hardware prefetchers do better alone     \
     * (4096 x 1024 f32 tiles: 52 GB/s with these prefetches, 60 without; 64 columns: 55 with,   \
     * 53 without). FLOAT16 (half-line loads) keeps them over contiguous rows shorter than 4 KiB \
     * (64 GB/s with, 52 without); not over longer rows, or pieces of rows: SUM over axis 0, one  \
     * process alternating both in either order (Zen 5), FLOAT16 4096 x 8192 (2 KiB pieces 16  \
     * KiB apart) 1.24x, 4096 x 4096 1.15x, 8192 x 2048 1.14x, 1024 x 4096 1.35x faster without, \
     * 16384 x 1024 1.12x and 65536 x 256 1.08x slower without. */                              \
    const ptrdiff_t pf = DMLCPU_COL_PREFETCH(rs);                                                  \
    const int pfw = K * sizeof(T) <= 256 || ((EPV) * sizeof(T) < 64 &&                             \
                                             rs == (ptrdiff_t)(K * sizeof(T)) &&                   \
                                             K * sizeof(T) < 4096);                                \
    size_t r0 = 0;                                                                                 \
    if (rs == (ptrdiff_t)(K * sizeof(T)) && 4 * K == (EPV))                                        \
        r0 = NARROW16_##SFX(T, V, EPV, L, LD, LDM, MAP, OPN, AUX);                                 \
    if (rs == (ptrdiff_t)(K * sizeof(T)) && 4 * K <= 2 * (EPV))                                    \
        r0 = NARROW_##SFX(T, V, EPV, L, LD, LDM, MAP, OPN, AUX);                                   \
    if (SEQ && last == (EPV) && COL_SEQ_FITS(T, K, rs, COL_SEQ_LO, COL_SEQ_HI))                    \
        COL_SEQ_QUADS(T, V, EPV, L, LD, MAP, _mm512_##OPN##_##SFX, AUX, COL_SEQ_HI);               \
    /* paired quads (simd/col_seq.h), prefetching as the lane loop does (pfw) */                \
    if (last == (EPV) && K * sizeof(T) > 256 && COL_STREAMED(T, K, nrows))                         \
        COL_PAIR_QUADS(T, V, EPV, L, LD, MAP, _mm512_##OPN##_##SFX, AUX, pfw);                     \
    for (; r0 + 4 <= nrows; r0 += 4) {                                                             \
        const T *r_0 = (const T *)(x + (ptrdiff_t)r0 * rs);                                        \
        const T *r_1 = (const T *)((const char *)r_0 + rs);                                        \
        const T *r_2 = (const T *)((const char *)r_1 + rs);                                        \
        const T *r_3 = (const T *)((const char *)r_2 + rs);                                        \
        V *ln = (V *)lane[(r0 / 4) % (L)];                                                         \
        if (!nvf) /* narrow: the four rows share a line or two */                                  \
            _mm_prefetch((const char *)r_0 + pf, _MM_HINT_T0);                                     \
        size_t v = 0;                                                                              \
        for (; v < nvf; v++) {                                                                     \
            size_t o = v * (EPV);                                                                  \
            V aux = AUX(o);                                                                        \
            (void)aux;                                                                             \
            if (pfw && ((o * sizeof(T)) & 63) == 0) { /* every line of the four rows */            \
                _mm_prefetch((const char *)(r_0 + o) + pf, _MM_HINT_T0);                           \
                _mm_prefetch((const char *)(r_1 + o) + pf, _MM_HINT_T0);                           \
                _mm_prefetch((const char *)(r_2 + o) + pf, _MM_HINT_T0);                           \
                _mm_prefetch((const char *)(r_3 + o) + pf, _MM_HINT_T0);                           \
            }                                                                                      \
            V qv = _mm512_##OPN##_##SFX(_mm512_##OPN##_##SFX(MAP(LD(r_0 + o)), MAP(LD(r_1 + o))),  \
                                        _mm512_##OPN##_##SFX(MAP(LD(r_2 + o)), MAP(LD(r_3 + o)))); \
            ln[v] = _mm512_##OPN##_##SFX(ln[v], qv);                                               \
        }                                                                                          \
        if (v < nv) {                                                                              \
            size_t o = v * (EPV);                                                                  \
            V aux = AUX(o);                                                                        \
            (void)aux;                                                                             \
            V qv = _mm512_##OPN##_##SFX(                                                           \
                _mm512_##OPN##_##SFX(MAP(LDM(r_0 + o, last, fill)), MAP(LDM(r_1 + o, last, fill))), \
                _mm512_##OPN##_##SFX(MAP(LDM(r_2 + o, last, fill)), MAP(LDM(r_3 + o, last, fill)))); \
            ln[v] = _mm512_##OPN##_##SFX(ln[v], qv);                                               \
        }                                                                                          \
    }                                                                                              \
    if (r0 < nrows) { /* the last, partial quad: missing rows are the identity */                  \
        size_t have = nrows - r0;                                                                  \
        V *ln = (V *)lane[(r0 / 4) % (L)];                                                         \
        for (size_t v = 0; v < nv; v++) {                                                          \
            size_t o = v * (EPV);                                                                  \
            V aux = AUX(o);                                                                        \
            (void)aux;                                                                             \
            V e[4];                                                                                \
            for (size_t i = 0; i < 4; i++) {                                                       \
                const T *r = (const T *)(x + (ptrdiff_t)(r0 + i) * rs);                            \
                e[i] = i >= have ? id : v < nvf ? MAP(LD(r + o)) : MAP(LDM(r + o, last, fill));    \
            }                                                                                      \
            V qv = _mm512_##OPN##_##SFX(_mm512_##OPN##_##SFX(e[0], e[1]),                          \
                                        _mm512_##OPN##_##SFX(e[2], e[3]));                         \
            ln[v] = _mm512_##OPN##_##SFX(ln[v], qv);                                               \
        }                                                                                          \
    }                                                                                              \
    for (size_t h = (L) / 2; h >= 1; h /= 2)                                                       \
        for (size_t i = 0; i < h && i + h < used; i++)                                             \
            for (size_t v = 0; v < nv; v++)                                                        \
                ((V *)lane[i])[v] = _mm512_##OPN##_##SFX(((V *)lane[i])[v], ((V *)lane[i + h])[v]);

/* Narrow columns whose rows are contiguous (K <= 8 f32, K <= 4 f64): a quad of rows is 4K
 * consecutive elements, at most two vectors; permutes pick row r's K elements out of them.
 * Handles the whole quads and returns the first row left over. */
#define NARROW_BODY(T, V, EPV, L, LD, LDM, MAP, OPN, SFX, AUX, IDXT, PERMUTE)                      \
    ({                                                                                             \
        alignas(64) IDXT ix[4][EPV];                                                               \
        for (size_t r_ = 0; r_ < 4; r_++)                                                          \
            for (size_t c_ = 0; c_ < (EPV); c_++)                                                  \
                ix[r_][c_] = (IDXT)(c_ < K ? r_ * K + c_ : 0);                                     \
        const __m512i i0 = _mm512_load_si512(ix[0]), i1 = _mm512_load_si512(ix[1]);               \
        const __m512i i2 = _mm512_load_si512(ix[2]), i3 = _mm512_load_si512(ix[3]);               \
        const size_t span = 4 * K;                                                                 \
        V aux = AUX(0);                                                                            \
        (void)aux;                                                                                 \
        size_t q0 = r0;                                                                            \
        for (; q0 + 4 <= nrows; q0 += 4) {                                                         \
            const T *s_ = (const T *)(x + (ptrdiff_t)q0 * rs);                                     \
            _mm_prefetch((const char *)s_ + 1024, _MM_HINT_T0);                                    \
            V lo, hi;                                                                              \
            if ((nrows - q0) * K >= 2 * (EPV)) { /* two whole vectors stay inside the rows */      \
                lo = LD(s_);                                                                       \
                hi = LD(s_ + (EPV));                                                               \
            } else {                                                                               \
                lo = span >= (EPV) ? LD(s_) : LDM(s_, (unsigned)span, fill);                       \
                hi = span > (EPV) ? LDM(s_ + (EPV), (unsigned)(span - (EPV)), fill) : lo;          \
            }                                                                                      \
            /* map after the permutes: aux (LOG_SUM_EXP's column maxima) is per column */          \
            V qv = _mm512_##OPN##_##SFX(                                                           \
                _mm512_##OPN##_##SFX(MAP(PERMUTE(lo, i0, hi)), MAP(PERMUTE(lo, i1, hi))),          \
                _mm512_##OPN##_##SFX(MAP(PERMUTE(lo, i2, hi)), MAP(PERMUTE(lo, i3, hi))));         \
            V *ln_ = (V *)lane[(q0 / 4) % (L)];                                                    \
            ln_[0] = _mm512_##OPN##_##SFX(ln_[0], qv);                                             \
        }                                                                                          \
        q0;                                                                                        \
    })
/* Narrow columns of 16 accumulator bytes with contiguous rows (4 f32 or f16, 2 f64): every
 * 128-bit lane of a vector is one row, a vector is a quad of rows. Four vectors (16 rows) make
 * their four quads with two levels of 128-bit lane shuffles, as the multi-row trees do: pairs
 * (r0 op r1), (r2 op r3) of two vectors, then the quads of all four, which are the lanes
 * 4g..4g+3 of the columns, one 128-bit lane each, added to a compact lane vector cl[g]. Whole
 * groups of 16 rows only; the lanes then move to the lane array and the first row left over is
 * returned. */
#define NARROW16_BODY(T, V, EPV, L, LD, MAP, OPN, SFX, AUX, SHUF128)                                \
    ({                                                                                             \
        V cl[(L) / 4];                                                                             \
        for (size_t g_ = 0; g_ < (L) / 4; g_++)                                                    \
            cl[g_] = id;                                                                           \
        V aux = AUX(0);                                                                            \
        aux = SHUF128(aux, aux, 0); /* the columns in every 128-bit lane */                        \
        (void)aux;                                                                                 \
        size_t q0 = 0;                                                                             \
        for (; q0 + 16 <= nrows; q0 += 16) {                                                       \
            const T *s_ = (const T *)(x + (ptrdiff_t)q0 * rs);                                     \
            /* 8 KiB ahead: 2 KiB gave 48 GB/s, 8 KiB 55, 16 KiB 50 over 64 MiB */                 \
            _mm_prefetch((const char *)s_ + 8192, _MM_HINT_T0);                                    \
            _mm_prefetch((const char *)s_ + 8192 + 64, _MM_HINT_T0);                               \
            _mm_prefetch((const char *)s_ + 8192 + 128, _MM_HINT_T0);                              \
            _mm_prefetch((const char *)s_ + 8192 + 192, _MM_HINT_T0);                              \
            V a = MAP(LD(s_)), b = MAP(LD(s_ + (EPV))), c = MAP(LD(s_ + 2 * (EPV)));               \
            V d = MAP(LD(s_ + 3 * (EPV)));                                                         \
            V p_ = _mm512_##OPN##_##SFX(SHUF128(a, b, 0x88), SHUF128(a, b, 0xDD));                 \
            V r_ = _mm512_##OPN##_##SFX(SHUF128(c, d, 0x88), SHUF128(c, d, 0xDD));                 \
            V *ln_ = &cl[(q0 / 16) % ((L) / 4)];                                                   \
            *ln_ = _mm512_##OPN##_##SFX(*ln_, _mm512_##OPN##_##SFX(SHUF128(p_, r_, 0x88),          \
                                                                   SHUF128(p_, r_, 0xDD)));        \
        }                                                                                          \
        for (size_t j_ = 0; j_ < (L); j_++)                                                        \
            for (size_t k_ = 0; k_ < K; k_++)                                                      \
                lane[j_][k_] = ((const __typeof__(lane[0][0]) *)&cl[j_ / 4])[(j_ % 4) * K + k_];  \
        q0;                                                                                        \
    })
#define NARROW16_ps(T, V, EPV, L, LD, LDM, MAP, OPN, AUX)                                          \
    NARROW16_BODY(T, V, EPV, L, LD, MAP, OPN, ps, AUX, _mm512_shuffle_f32x4)
#define NARROW16_pd(T, V, EPV, L, LD, LDM, MAP, OPN, AUX)                                          \
    NARROW16_BODY(T, V, EPV, L, LD, MAP, OPN, pd, AUX, _mm512_shuffle_f64x2)
#define NARROW_ps(T, V, EPV, L, LD, LDM, MAP, OPN, AUX)                                            \
    NARROW_BODY(T, V, EPV, L, LD, LDM, MAP, OPN, ps, AUX, int32_t, _mm512_permutex2var_ps)
#define NARROW_pd(T, V, EPV, L, LD, LDM, MAP, OPN, AUX)                                            \
    NARROW_BODY(T, V, EPV, L, LD, LDM, MAP, OPN, pd, AUX, int64_t, _mm512_permutex2var_pd)

#define NO_AUX(o) id
/* the short-block body's tail loads (simd/col_short.h) */
#define LDM_F32_TL(p) LDM_F32(p, last, fill)
#define LDM_F16_TL(p) LDM_F16(p, last, fill)
#define LDM_F64_TL(p) LDM_F64(p, last, fill)
/* Blocks of at most 4 L rows of a small operator (DMLCPU_COL_SMALL) go column strip by column
 * strip with their lanes in L1 (simd/col_short.h), as on AVX2 and NEON. On a Zen 4, alternated
 * processes (medians of 3 and 4 bench runs): 256 x 512 FLOAT32 over axis 0 9 -> 6 us (1.48-1.53x
 * for SUM, L1, L2, MULTIPLY, AVERAGE), 8 x 64 x 256 over axis 1 1.22-1.29x. */
#define DEF_COL(NAME, T, V, S, EPV, L, LD, LDM, MAP, OPN, SFX, ID, FIELD)                          \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base,   \
                     partial *out, void *scratch)                                                  \
    {                                                                                              \
        const char *x = xv;                                                                        \
        (void)index_base;                                                                          \
        S(*lane)[DMLCPU_COL_PITCH(K)] = scratch;                                                   \
        const V id = _mm512_set1_##SFX(ID), fill = id;                                             \
        const size_t nv = (K + (EPV) - 1) / (EPV);                                                 \
        const unsigned last = (unsigned)(K - (nv - 1) * (EPV));                                    \
        const size_t nfull = last == (EPV) ? nv : nv - 1;                                          \
        if (nrows <= 4 * (L) && (index_base & DMLCPU_COL_SMALL)) {                                 \
            COL_SHORT(V, S, EPV, T, LD, LDM##_TL, MAP, _mm512_##OPN##_##SFX, id, FIELD);        \
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
    DEF_ROW(ROW, BNAME, T, L, SFX, ID, FIELD)                                                      \
    DEF_ROWS(ROWS, BNAME##_lanes, T, V, S, EPV, OPN, SFX, ID, FIELD)                               \
    DEF_LANES(BNAME##_slanes, T, V, EPV, LD, LDM, MAP, OPN, SFX, ROW_PF)                           \
    DEF_BLOCK(BNAME##_s, BNAME##_slanes, T, V, S, OPN, SFX)                                        \
    DEF_ROW(ROW##_stream, BNAME##_s, T, L, SFX, ID, FIELD)                                         \
    DEF_ROWS(ROWS##_stream, BNAME##_slanes, T, V, S, EPV, OPN, SFX, ID, FIELD)                     \
    DEF_COL(COL, T, V, S, EPV, L, LD, LDM, MAP, OPN, SFX, ID, FIELD)

#define F32ARGS __m512, float, 16, 64
#define F64ARGS __m512d, double, 8, 32
DEF_SUMS(reduce_row_sum_f32_avx512, reduce_rows_sum_f32_avx512, reduce_col_sum_f32_avx512, block_sum_f32, float, F32ARGS, LD_F32, LDM_F32, MAP_ID, add, ps, 0.0f, f32)
DEF_SUMS(reduce_row_sum_f16_avx512, reduce_rows_sum_f16_avx512, reduce_col_sum_f16_avx512, block_sum_f16, uint16_t, F32ARGS, LD_F16, LDM_F16, MAP_ID, add, ps, 0.0f, f32)
DEF_SUMS(reduce_row_sum_f64_avx512, reduce_rows_sum_f64_avx512, reduce_col_sum_f64_avx512, block_sum_f64, double, F64ARGS, LD_F64, LDM_F64, MAP_ID, add, pd, 0.0, f64)
DEF_SUMS(reduce_row_asum_f32_avx512, reduce_rows_asum_f32_avx512, reduce_col_asum_f32_avx512, block_asum_f32, float, F32ARGS, LD_F32, LDM_F32, MAP_ABS_PS, add, ps, 0.0f, f32)
DEF_SUMS(reduce_row_asum_f16_avx512, reduce_rows_asum_f16_avx512, reduce_col_asum_f16_avx512, block_asum_f16, uint16_t, F32ARGS, LD_F16, LDM_F16, MAP_ABS_PS, add, ps, 0.0f, f32)
DEF_SUMS(reduce_row_asum_f64_avx512, reduce_rows_asum_f64_avx512, reduce_col_asum_f64_avx512, block_asum_f64, double, F64ARGS, LD_F64, LDM_F64, MAP_ABS_PD, add, pd, 0.0, f64)
DEF_SUMS(reduce_row_sqsum_f32_avx512, reduce_rows_sqsum_f32_avx512, reduce_col_sqsum_f32_avx512, block_sqsum_f32, float, F32ARGS, LD_F32, LDM_F32, MAP_SQ_PS, add, ps, 0.0f, f32)
DEF_SUMS(reduce_row_sqsum_f16_avx512, reduce_rows_sqsum_f16_avx512, reduce_col_sqsum_f16_avx512, block_sqsum_f16, uint16_t, F32ARGS, LD_F16, LDM_F16, MAP_SQ_PS, add, ps, 0.0f, f32)
DEF_SUMS(reduce_row_sqsum_f64_avx512, reduce_rows_sqsum_f64_avx512, reduce_col_sqsum_f64_avx512, block_sqsum_f64, double, F64ARGS, LD_F64, LDM_F64, MAP_SQ_PD, add, pd, 0.0, f64)
DEF_SUMS(reduce_row_prod_f32_avx512, reduce_rows_prod_f32_avx512, reduce_col_prod_f32_avx512, block_prod_f32, float, F32ARGS, LD_F32, LDM_F32, MAP_ID, mul, ps, 1.0f, f32)
DEF_SUMS(reduce_row_prod_f16_avx512, reduce_rows_prod_f16_avx512, reduce_col_prod_f16_avx512, block_prod_f16, uint16_t, F32ARGS, LD_F16, LDM_F16, MAP_ID, mul, ps, 1.0f, f32)
DEF_SUMS(reduce_row_prod_f64_avx512, reduce_rows_prod_f64_avx512, reduce_col_prod_f64_avx512, block_prod_f64, double, F64ARGS, LD_F64, LDM_F64, MAP_ID, mul, pd, 1.0, f64)

/* ---- LOG_SUM_EXP: block max m (NaN tracked apart: the vector max instruction does not
 * propagate it), then the canonical block sum of exp(x - m) with -inf as the fill (exp(-inf) is
 * the identity 0). The max instruction may return -0 where IEEE maximum gives +0; the sum, the
 * combination and the result are the same for either sign of a zero m. ---- */


#define MAXNAN_PS(acc, nan, v)                                                                     \
    do {                                                                                           \
        __m512 v_ = (v);                                                                           \
        nan |= _mm512_cmp_ps_mask(v_, v_, _CMP_UNORD_Q);                                           \
        acc = _mm512_max_ps(acc, v_);                                                              \
    } while (0)
#define MAXNAN_PD(acc, nan, v)                                                                     \
    do {                                                                                           \
        __m512d v_ = (v);                                                                          \
        nan |= _mm512_cmp_pd_mask(v_, v_, _CMP_UNORD_Q);                                           \
        acc = _mm512_max_pd(acc, v_);                                                              \
    } while (0)

/* Four vectors of exp into e (simd/lse_expf.h): FLOAT32 the four in lockstep, FLOAT64 SLEEF's
 * call on each in turn. */
#define EXP4_ps(e, EPV, ...) LSE_EXPQ4_STORE(_mm512_store_ps, lse_expf4_avx512, e, EPV, __VA_ARGS__)
#define EXP4_pd(e, EPV, ...) LSE_EACH4_STORE(_mm512_store_pd, DMLCPU_EXP_F64_AVX512, e, EPV, __VA_ARGS__)

#define EXPQ_F64(q) LSE_EXPQ_EACH(q, DMLCPU_EXP_F64_AVX512)
/* Row form (simd/lse_row.h): the first k elements of a partial vector with -inf elsewhere, and
 * the NaN lanes of a vector as bits. */
#define LDM_F32_NINF(p, k) LDM_F32(p, (unsigned)(k), _mm512_set1_ps(-INFINITY))
#define LDM_F16_NINF(p, k) LDM_F16(p, (unsigned)(k), _mm512_set1_ps(-INFINITY))
#define LDM_F64_NINF(p, k) LDM_F64(p, (unsigned)(k), _mm512_set1_pd(-INFINITY))
#define UNORD_MASK_ps(v) ((unsigned)_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q))
#define UNORD_MASK_pd(v) ((unsigned)_mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q))
#define DEF_ROW_LSE(NAME, BNAME, T, V, S, EPV, L, LD, LDM, SFX, HMAX, EXP, FIELD)                  \
    static void NAME(const void *xv, size_t n, uint64_t index_base, partial *out)                 \
    {                                                                                              \
        const T *x = xv;                                                                           \
        (void)index_base;                                                                          \
        const V zero = _mm512_setzero_##SFX();                                                     \
        LSE_ROW_BLOCKS(T, V, S, EPV, L, 64, LD, LDM##_NINF, _mm512_load_##SFX, _mm512_store_##SFX, \
                       _mm512_max_##SFX, _mm512_sub_##SFX, _mm512_set1_##SFX, HMAX, EXP,           \
                       EXP4_##SFX, UNORD_MASK_##SFX, FIELD, BNAME, zero, zero, zero);              \
    }
DEF_ROW_LSE(reduce_row_lse_f32_avx512, block_sum_f32, float, __m512, float, 16, 64, LD_F32, LDM_F32, ps, _mm512_reduce_max_ps, lse_expf_avx512, f32)
DEF_ROW_LSE(reduce_row_lse_f16_avx512, block_sum_f32, uint16_t, __m512, float, 16, 64, LD_F16, LDM_F16, ps, _mm512_reduce_max_ps, lse_expf_avx512, f32)
DEF_ROW_LSE(reduce_row_lse_f64_avx512, block_sum_f64, double, __m512d, double, 8, 32, LD_F64, LDM_F64, pd, _mm512_reduce_max_pd, DMLCPU_EXP_F64_AVX512, f64)

/* Column form: the column maxima first (mcol, NaN marks apart in nanv), read along the rows a
 * quad at a time, then the lane loop with aux = the column's max. The maxima were taken one
 * column vector at a time down all the rows, a strided walk per vector: 4096 x 4096 FLOAT32 over
 * axis 0 took 24 ms, now 11 (Zen 4, medians of 3 alternated runs of the bench). */
#define DEF_COL_LSE(NAME, T, V, S, EPV, L, LD, LDM, SFX, MAXNAN, FIELD)                            \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base,   \
                     partial *out, void *scratch)                                                  \
    {                                                                                              \
        const char *x = xv;                                                                        \
        (void)index_base;                                                                          \
        S *mcol = scratch;                                                                         \
        S(*lane)[DMLCPU_COL_PITCH(K)] = (void *)(mcol + DMLCPU_COL_PITCH(K));                      \
        uint16_t nanv[DMLCPU_COL_WIDE_TILE / (EPV)];                                               \
        const V id = _mm512_setzero_##SFX(), fill = _mm512_set1_##SFX(-INFINITY);                 \
        const size_t nv = (K + (EPV) - 1) / (EPV);                                                 \
        const unsigned last = (unsigned)(K - (nv - 1) * (EPV));                                    \
        /* simd/lse_col.h where the rows hold a line */                                            \
        if (K * sizeof(T) >= 64) {                                                                 \
            LSE_COL_WALK(T, V, S, EPV, L, LD, LDM##_TL, _mm512_add_##SFX, _mm512_sub_##SFX,        \
                         _mm512_max_##SFX, _mm512_or_##SFX, UNORD_##SFX, _mm512_set1_##SFX,        \
                         _mm512_store_##SFX, EXPQ_##SFX, FIELD);                                   \
            return;                                                                                \
        }                                                                                          \
        for (size_t v = 0; v < nv; v++) {                                                          \
            _mm512_store_##SFX(&mcol[v * (EPV)], fill);                                            \
            nanv[v] = 0;                                                                           \
        }                                                                                          \
        /* a quad of rows at a time, along the rows (missing rows of a last quad repeat the      \
         * first: max is idempotent) */                                                            \
        const ptrdiff_t mpf = DMLCPU_COL_PREFETCH(rs);                                             \
        for (size_t i0 = 0; i0 < nrows; i0 += 4) {                                                 \
            const T *r[4];                                                                         \
            for (size_t i = 0; i < 4; i++)                                                         \
                r[i] = (const T *)(x + (ptrdiff_t)(i0 + (i0 + i < nrows ? i : 0)) * rs);           \
            for (size_t v = 0; v < nv; v++) {                                                      \
                const size_t o = v * (EPV);                                                        \
                if (((o * sizeof(T)) & 63) == 0)                                                   \
                    for (size_t i = 0; i < 4; i++)                                                 \
                        _mm_prefetch((const char *)(r[i] + o) + mpf, _MM_HINT_T0);                 \
                V mv = _mm512_load_##SFX(&mcol[o]);                                                \
                unsigned nan = nanv[v];                                                            \
                for (size_t i = 0; i < 4; i++)                                                     \
                    MAXNAN(mv, nan, v + 1 < nv || last == (EPV) ? LD(r[i] + o) : LDM(r[i] + o, last, fill)); \
                _mm512_store_##SFX(&mcol[o], mv);                                                  \
                nanv[v] = (uint16_t)nan;                                                           \
            }                                                                                      \
        }                                                                                          \
        COL_LANES(T, V, EPV, L, LD, LDM, MAP_EXPSUB_##SFX##_U, add, SFX, LSE_AUX_##SFX, 0)        \
        for (size_t k = 0; k < K; k++) {                                                           \
            S mx = (nanv[k / (EPV)] >> (k % (EPV))) & 1 ? (S)NAN : mcol[k];                        \
            out[k].v.FIELD = mx;                                                                   \
            out[k].aux.FIELD = isfinite(mx) ? lane[0][k] : 0;                                      \
        }                                                                                          \
    }
#define UNORD_ps(a, b) _mm512_castsi512_ps(_mm512_movm_epi32(_mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q)))
#define UNORD_pd(a, b) _mm512_castsi512_pd(_mm512_movm_epi64(_mm512_cmp_pd_mask(a, b, _CMP_UNORD_Q)))
#define EXPQ_ps(q) lse_expf4_avx512(q)
#define EXPQ_pd(q) EXPQ_F64(q)
#define LSE_AUX_ps(o) _mm512_load_ps(&mcol[o])
#define LSE_AUX_pd(o) _mm512_load_pd(&mcol[o])
#define MAP_EXPSUB_ps_U(v) lse_expf_avx512(_mm512_sub_ps(v, aux))
#define MAP_EXPSUB_pd_U(v) DMLCPU_EXP_F64_AVX512(_mm512_sub_pd(v, aux))
DEF_COL_LSE(reduce_col_lse_f32_avx512, float, __m512, float, 16, 64, LD_F32, LDM_F32, ps, MAXNAN_PS, f32)
DEF_COL_LSE(reduce_col_lse_f16_avx512, uint16_t, __m512, float, 16, 64, LD_F16, LDM_F16, ps, MAXNAN_PS, f32)
DEF_COL_LSE(reduce_col_lse_f64_avx512, double, __m512d, double, 8, 32, LD_F64, LDM_F64, pd, MAXNAN_PD, f64)

DMLCPU_DEF_LOG_BATCH(log_f32_avx512, float, 16, _mm512_loadu_ps, _mm512_storeu_ps, DMLCPU_LOG_F32_AVX512, DMLCPU_LOG_F32_SCALAR)
DMLCPU_DEF_LOG_BATCH(log_f64_avx512, double, 8, _mm512_loadu_pd, _mm512_storeu_pd, DMLCPU_LOG_F64_AVX512, DMLCPU_LOG_F64_SCALAR)

#define ENTRY(K, T, R, RS, C)                                                                      \
    .row[K][DMLCPU_DATA_TYPE_##T] = R, .rows[K][DMLCPU_DATA_TYPE_##T] = RS, .col[K][DMLCPU_DATA_TYPE_##T] = C
#define ENTRY_STREAM(K, T, R, RS, C)                                                               \
    ENTRY(K, T, R, RS, C), .row_stream[K][DMLCPU_DATA_TYPE_##T] = R##_stream,                      \
    .rows_stream[K][DMLCPU_DATA_TYPE_##T] = RS##_stream
const kernel_table dmlcpu_kernels_avx512 = {
    .isa = DMLCPU_ISA_AVX512,
    ENTRY_STREAM(RK_SUM, FLOAT32, reduce_row_sum_f32_avx512, reduce_rows_sum_f32_avx512, reduce_col_sum_f32_avx512),
    ENTRY_STREAM(RK_SUM, FLOAT16, reduce_row_sum_f16_avx512, reduce_rows_sum_f16_avx512, reduce_col_sum_f16_avx512),
    ENTRY_STREAM(RK_SUM, FLOAT64, reduce_row_sum_f64_avx512, reduce_rows_sum_f64_avx512, reduce_col_sum_f64_avx512),
    ENTRY_STREAM(RK_ASUM, FLOAT32, reduce_row_asum_f32_avx512, reduce_rows_asum_f32_avx512, reduce_col_asum_f32_avx512),
    ENTRY_STREAM(RK_ASUM, FLOAT16, reduce_row_asum_f16_avx512, reduce_rows_asum_f16_avx512, reduce_col_asum_f16_avx512),
    ENTRY_STREAM(RK_ASUM, FLOAT64, reduce_row_asum_f64_avx512, reduce_rows_asum_f64_avx512, reduce_col_asum_f64_avx512),
    ENTRY_STREAM(RK_SQSUM, FLOAT32, reduce_row_sqsum_f32_avx512, reduce_rows_sqsum_f32_avx512, reduce_col_sqsum_f32_avx512),
    ENTRY_STREAM(RK_SQSUM, FLOAT16, reduce_row_sqsum_f16_avx512, reduce_rows_sqsum_f16_avx512, reduce_col_sqsum_f16_avx512),
    ENTRY_STREAM(RK_SQSUM, FLOAT64, reduce_row_sqsum_f64_avx512, reduce_rows_sqsum_f64_avx512, reduce_col_sqsum_f64_avx512),
    ENTRY_STREAM(RK_PROD, FLOAT32, reduce_row_prod_f32_avx512, reduce_rows_prod_f32_avx512, reduce_col_prod_f32_avx512),
    ENTRY_STREAM(RK_PROD, FLOAT16, reduce_row_prod_f16_avx512, reduce_rows_prod_f16_avx512, reduce_col_prod_f16_avx512),
    ENTRY_STREAM(RK_PROD, FLOAT64, reduce_row_prod_f64_avx512, reduce_rows_prod_f64_avx512, reduce_col_prod_f64_avx512),
    ENTRY(RK_LSE, FLOAT32, reduce_row_lse_f32_avx512, NULL, reduce_col_lse_f32_avx512),
    ENTRY(RK_LSE, FLOAT16, reduce_row_lse_f16_avx512, NULL, reduce_col_lse_f16_avx512),
    ENTRY(RK_LSE, FLOAT64, reduce_row_lse_f64_avx512, NULL, reduce_col_lse_f64_avx512),
    .log_f32 = log_f32_avx512,
    .log_f64 = log_f64_avx512,
};
