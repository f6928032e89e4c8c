/* Order-free reductions (integer sums, MIN/MAX, ARG*) for every SIMD tier (x86/reduce_free_avx2.c,
 * x86/reduce_free_avx512.c, arm/reduce_free_neon.c): the kernel bodies, written once against a
 * small vector vocabulary that each ISA file defines before including this header. The body uses
 * no intrinsic of its own: prefetches are __builtin_prefetch (prefetcht0 on x86, prfm pldl1keep
 * on AArch64) and KEEP names each architecture's vector register constraint. Results and partials are those of the scalar tier (DEF_ROW_FOLD, DEF_COL_FOLD,
 * DEF_ROW_ARG, DEF_COL_ARG): one partial per DMLCPU_BLOCK_FREE elements of a row, one per column.
 *
 * Vocabulary, for every data type suffix S (i8 u8 i16 u16 i32 u32 i64 u64 f16 f32 f64):
 *   vec_S, lane_S        the vector and the C type of one of its lanes (float for f16)
 *   iv_S, ix_S           a vector of lane indexes (row numbers < 2^16) and its stored lane type
 *   EPV_S, NAN_S         lanes per vector; 1 if the type has NaNs
 *   ld_S(p)              EPV_S elements; ldn_S(p, n, fill): the first n < EPV_S, fill elsewhere,
 *                        reading nothing past p + n
 *   st_S(d, v)           stores all lanes; lane0_S(v) is lane 0; ld1_S(p) one element as a lane
 *   lo_S(), hi_S()       the lowest / highest value (-inf / +inf for floats); qnan_S() a NaN
 *   max_S, min_S         lanewise (for floats: either operand when one is NaN or both are zero)
 *   hmax_S, hmin_S       max / min over the lanes, broadcast to every lane
 *   gt_S ge_S lt_S le_S eq_S (a, b)  lane masks, false where a lane is NaN
 *   nan_S(a, b)          lanes where a or b is NaN; blend_S(m, a, b): b where m, a elsewhere
 *   bits_S(m)            one bit per lane; valid_S(n): the first n lanes
 *   bi_S(v), ib_S(i)     the lanes' bits as an integer vector and back
 *   izero_S(), iblend_S(iv, m, r), ist_S(d, iv)   index vectors
 *   nzacc, nz_init(), nz_add_S(z, a, b), nz_or(z, w), nz_any_S(z)   NaN seen so far (floats)
 * and per ISA: lmask with lm_zero, lm_or, lm_and, lm_andn (a and not b), lm_any; and
 *   EXT_KEEPS_NAN        1 if float max_S / min_S give NaN where an operand is NaN (default 0):
 *                        the ARG* chunk pass then tests its extreme alone for NaN.
 *   COL_ARG_ROW_TEST     1 if the ARG* column walk over wide rows may test each row against the
 *                        best so far (COL_ARG_SEQ_WIDE; default 0). */
#ifndef DMLCPU_SIMD_REDUCE_FREE_H
#define DMLCPU_SIMD_REDUCE_FREE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels.h"

#ifndef EXT_KEEPS_NAN
#define EXT_KEEPS_NAN 0
#endif
#ifndef COL_ARG_ROW_TEST
#define COL_ARG_ROW_TEST 0
#endif

#define MIN_SZ(a, b) ((a) < (b) ? (a) : (b))
#define UNROLL4 _Pragma("GCC unroll 4")

/* Keeps a loaded vector in a register. Where a load has several consumers the compiler otherwise
 * folds it into each of them, reading memory once per consumer: for float MIN/MAX and ARG* that
 * made L1 reads, not the arithmetic, the limit (about 2.5x slower in cache). */
#if defined(__aarch64__)
#define KEEP(v) __asm__("" : "+w"(v))
#else
#define KEEP(v) __asm__("" : "+v"(v))
#endif
/* A read prefetch into L1. */
#define PREFETCH_L1(p) __builtin_prefetch((p), 0, 3)

static inline uint64_t first_lanes(size_t n)
{
    return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
}

/* Broadcast reduction over the lanes: swap halves, then quarters, ... down to one lane of LB
 * bytes. SWAP(v, d) exchanges neighbouring groups of d bytes of an integer vector. */
#define DEF_HRED(NAME, S, OP, LB, VB, SWAP)                                                        \
    static inline vec_##S NAME(vec_##S v)                                                          \
    {                                                                                              \
        _Pragma("GCC unroll 8") for (int d_ = (VB) / 2; d_ >= (LB); d_ /= 2)                       \
            v = OP(v, ib_##S(SWAP(bi_##S(v), d_)));                                                \
        return v;                                                                                  \
    }

/* ---- folds: integer sums, integer MIN/MAX (and float MIN/MAX columns where the ISA has an
 * exact lanewise operation). ID() is the identity, MAP and OP work lanewise, RED broadcasts OP
 * over the lanes. ---- */

/* The lanewise fold of the N elements at p into vector R, four independent chains (E, id and p
 * are the caller's). */
#define ROW_FOLD_VEC(S, MAP, OP, R, N)                                                             \
    do {                                                                                           \
        vec_##S a0 = id, a1 = id, a2 = id, a3 = id;                                                \
        size_t i_ = 0;                                                                             \
        for (; i_ + 4 * E <= (N); i_ += 4 * E) {                                                   \
            a0 = OP(a0, MAP(ld_##S(p + i_)));                                                      \
            a1 = OP(a1, MAP(ld_##S(p + i_ + E)));                                                  \
            a2 = OP(a2, MAP(ld_##S(p + i_ + 2 * E)));                                              \
            a3 = OP(a3, MAP(ld_##S(p + i_ + 3 * E)));                                              \
        }                                                                                          \
        for (; i_ + E <= (N); i_ += E)                                                             \
            a0 = OP(a0, MAP(ld_##S(p + i_)));                                                      \
        if (i_ < (N))                                                                              \
            a1 = OP(a1, MAP(ldn_##S(p + i_, (N) - i_, id)));                                       \
        R = OP(OP(a0, a1), OP(a2, a3));                                                            \
    } while (0)
#define DEF_ROW_FOLD(NAME, T, S, ID, MAP, OP, RED, FIELD)                                          \
    static void NAME(const void *xv, size_t n, uint64_t index_base, partial *out)                  \
    {                                                                                              \
        const T *x = xv;                                                                           \
        const size_t E = EPV_##S;                                                                  \
        const vec_##S id = ID();                                                                   \
        (void)index_base;                                                                          \
        for (size_t b0 = 0; b0 < n; b0 += DMLCPU_BLOCK_FREE, out++) {                              \
            const size_t m = MIN_SZ(n - b0, DMLCPU_BLOCK_FREE);                                    \
            const T *p = x + b0;                                                                   \
            vec_##S r_;                                                                            \
            ROW_FOLD_VEC(S, MAP, OP, r_, m);                                                       \
            out->v.FIELD = lane0_##S(RED(r_));                                                     \
        }                                                                                          \
    }

/* Column shapes: groups of G rows; per group every vector of the tile (up to DMLCPU_COL_TILE
 * columns, so each row is read in long stretches), with the running values in the scratch
 * buffer. BODY(..., LD) handles vector v of the group's rows; LD is COL_FULL for whole vectors,
 * COL_PART for the tile's last, partial one. Rows 16 ahead (at least 1 KiB) are prefetched. */
#define COL_FULL(S, p, cn, fill) ld_##S(p)
#define COL_PART(S, p, cn, fill) ldn_##S(p, cn, fill)
#define COL_AT(T, i) ((const T *)(rb + (ptrdiff_t)(i) * rs) + v * E)
#define COL_WALK(G, BODY, ...)                                                                     \
    do {                                                                                           \
        const size_t nvf = K / E;                                                                  \
        const ptrdiff_t pf = DMLCPU_COL_PREFETCH(rs);                                              \
        const size_t pstep = rs >= 64 ? 1 : (G);                                                   \
        for (size_t r0 = 0; r0 < nrows; r0 += (G)) {                                               \
            const size_t rn = MIN_SZ((G), nrows - r0);                                             \
            const char *rb = x + (ptrdiff_t)r0 * rs;                                               \
            for (size_t i = 0; i < rn; i += pstep)                                                 \
                PREFETCH_L1(rb + (ptrdiff_t)i * rs + pf);                                          \
            size_t v = 0, cn = E;                                                                  \
            for (; v < nvf; v++) {                                                                 \
                BODY(__VA_ARGS__, COL_FULL)                                                        \
            }                                                                                      \
            if (v < nv) {                                                                          \
                cn = K - v * E;                                                                    \
                BODY(__VA_ARGS__, COL_PART)                                                        \
            }                                                                                      \
        }                                                                                          \
    } while (0)
/* Narrow columns whose rows lie back to back (row_stride == K elements, K < E, K <= 16): the
 * tile is one stream of nrows * K elements, read in whole vectors. Vector i of the stream feeds
 * accumulator i mod NA, where NA vectors hold a whole number of rows and are at least `least`
 * (independent chains: four, or eight for FLOAT16, whose vectors hold half as many bytes of the
 * stream; NA <= NARROW_MAX either way, as K <= 16). Lane l of accumulator a sees the stream
 * positions a*E + l + t*NA*E, t = 0, 1, ...: always column (a*E + l) mod K. BODY(a, x, ok)
 * takes vector x for accumulator a; ok is the mask of its real lanes (the last vector of the
 * stream may be partial and is filled with FILLV); t counts the stretches of NA vectors. */
#define NARROW_MAX 16
static inline size_t narrow_accs_least(size_t K, size_t E, size_t least)
{
    size_t a = E, b = K;
    while (b) {
        const size_t r = a % b;
        a = b;
        b = r;
    }
    const size_t v = K / a; /* vectors per whole number of rows */
    return v * ((least + v - 1) / v);
}
#define NARROW_WALK(T, S, FILLV, BODY, ...)                                                           \
    do {                                                                                           \
        const T *xs = (const T *)x;                                                                \
        const size_t ntot = nrows * K, span = NA * E;                                              \
        size_t i0 = 0, t = 0;                                                                      \
        for (; i0 + span <= ntot; i0 += span, t++)                                                 \
            for (size_t a = 0; a < NA; a++) {                                                      \
                PREFETCH_L1((const char *)(xs + i0 + a * E) + ARG_PF);               \
                const vec_##S xv_ = ld_##S(xs + i0 + a * E);                                       \
                BODY(a, xv_, valid_##S(E), __VA_ARGS__);                                                      \
            }                                                                                      \
        for (size_t a = 0; i0 + a * E < ntot; a++) {                                               \
            const size_t c_ = MIN_SZ(E, ntot - i0 - a * E);                                        \
            const vec_##S xv_ = c_ == E ? ld_##S(xs + i0 + a * E) : ldn_##S(xs + i0 + a * E, c_, FILLV); \
            BODY(a, xv_, valid_##S(c_), __VA_ARGS__);                                                         \
        }                                                                                          \
    } while (0)

/* The start of a column fold: the locals every column kernel uses, the narrow contiguous case
 * (which returns), and the accumulators set to the identity. */
#define COL_FOLD_START(T, S, ID, MAP, OP, FIELD)                                                   \
    const char *x = xv;                                                                            \
    const size_t E = EPV_##S, nv = (K + E - 1) / E;                                                \
    const vec_##S id = ID();                                                                       \
    vec_##S *acc = scratch;                                                                        \
    (void)index_base;                                                                              \
    if (K < E && K <= NARROW_MAX && rs == (ptrdiff_t)(K * sizeof(T))) {                            \
        COL_FOLD_NARROW(T, S, MAP, OP, FIELD);                                                     \
        return;                                                                                    \
    }                                                                                              \
    for (size_t v = 0; v < nv; v++)                                                                \
        acc[v] = id
/* The end: each column's accumulator lane into its partial. */
#define COL_FOLD_STORE(S, FIELD)                                                                   \
    do {                                                                                           \
        for (size_t v = 0; v * E < K; v++) {                                                       \
            lane_##S t[EPV_##S];                                                                   \
            st_##S(t, acc[v]);                                                                     \
            for (size_t k = v * E; k < K && k < (v + 1) * E; k++)                                  \
                out[k].v.FIELD = t[k - v * E];                                                     \
        }                                                                                          \
    } while (0)
#define DEF_COL_FOLD(NAME, T, S, ID, MAP, OP, RED, FIELD)                                          \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base,    \
                     partial *out, void *scratch)                                                  \
    {                                                                                              \
        COL_FOLD_START(T, S, ID, MAP, OP, FIELD);                                                  \
        COL_WALK(8, COL_FOLD_BODY, T, S, MAP, OP);                                                 \
        COL_FOLD_STORE(S, FIELD);                                                                  \
    }
/* The accumulators, stored in order, are NA*E/K rows of the K columns: folding those rows gives
 * the columns. Where a lane is wider than an element (FLOAT16 in FLOAT32 lanes) the stored lanes
 * cannot be reloaded as elements: each column folds its NA*E/K values one broadcast at a time
 * (once per call). FLOAT16 MAX over axis 0 of [8388608, 4] read each row under a mask before. */
#define COL_FOLD_NARROW(T, S, MAP, OP, FIELD)                                                      \
    do {                                                                                           \
        /* FLOAT16: eight chains, 1.38x faster than four ([8388608, 4]); other types: four */   \
        const size_t NA = narrow_accs_least(K, E, sizeof(lane_##S) > sizeof(T) ? 8 : 4);           \
        for (size_t a = 0; a < NA; a++)                                                            \
            acc[a] = id;                                                                           \
        NARROW_WALK(T, S, id, COL_FOLD_NARROW_STEP, MAP, OP);                                               \
        lane_##S ln[NARROW_MAX * EPV_##S];                                                         \
        size_t a_ = 0; /* NA >= 4: a do-while, so that the compiler sees ln written */            \
        do                                                                                         \
            st_##S(ln + a_ * E, acc[a_]);                                                          \
        while (++a_ < NA);                                                                         \
        if (sizeof(lane_##S) == sizeof(T)) {                                                       \
            vec_##S r = ldn_##S((const T *)ln, K, id);                                             \
            for (size_t q = K; q < NA * E; q += K)                                                 \
                r = OP(r, ldn_##S((const T *)(ln + q), K, id));                                    \
            st_##S(ln, r);                                                                         \
            for (size_t k = 0; k < K; k++)                                                         \
                out[k].v.FIELD = ln[k];                                                            \
        } else {                                                                                   \
            for (size_t k = 0; k < K; k++) {                                                       \
                vec_##S r = bc_##S(ln[k]);                                                         \
                for (size_t q = K + k; q < NA * E; q += K)                                         \
                    r = OP(r, bc_##S(ln[q]));                                                      \
                out[k].v.FIELD = lane0_##S(r);                                                     \
            }                                                                                      \
        }                                                                                          \
    } while (0)
#define COL_FOLD_NARROW_STEP(a, xv, ok, MAP, OP) acc[a] = OP(acc[a], MAP(xv));
#define COL_FOLD_BODY(T, S, MAP, OP, LD)                                                           \
    vec_##S a = acc[v];                                                                            \
    if (rn == 8) {                                                                                 \
        UNROLL4 for (int i = 0; i < 8; i += 2)                                                     \
            a = OP(a, OP(MAP(LD(S, COL_AT(T, i), cn, id)), MAP(LD(S, COL_AT(T, i + 1), cn, id)))); \
    } else {                                                                                       \
        for (size_t i = 0; i < rn; i++)                                                            \
            a = OP(a, MAP(LD(S, COL_AT(T, i), cn, id)));                                           \
    }                                                                                              \
    acc[v] = a;

/* Float MIN/MAX columns where the ISA has a lanewise operation RANGE that is exact for numbers
 * (-0 < +0) but not for NaN: the tile folds with RANGE alone and only notes whether a NaN went
 * by; a tile that saw one folds again with the exact OP. Half the operations of OP per element:
 * f32 MAX over axis 0 of [4096,4096] went from 0.6 to 0.8 of the read ceiling. */
#define FR_G 8 /* rows per group: 4 measured 2% slower, 16 2.5x slower */
#define DEF_COL_FRANGE(NAME, T, S, ID, OP, RANGE, FIELD)                                           \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base,    \
                     partial *out, void *scratch)                                                  \
    {                                                                                              \
        COL_FOLD_START(T, S, ID, MAP_ID, OP, FIELD);                                               \
        nzacc nz[4] = {nz_init(), nz_init(), nz_init(), nz_init()};                                \
        bool nan_ = false;                                                                         \
        if (SEQ_ROWS_OK(T, S)) {                                                                   \
            lmask nanseen = lm_zero();                                                             \
            COL_FRANGE_SEQ(T, S, RANGE);                                                           \
            nan_ = lm_any(nanseen);                                                                \
        } else {                                                                                   \
            if (sizeof(T) < sizeof(lane_##S) && (index_base & DMLCPU_COL_STREAM) &&                \
                rs <= COL_FRANGE_PF_ROW)                                                           \
                COL_WALK(FR_G, COL_FRANGE_BODY_PF, T, S, RANGE);                                   \
            else                                                                                   \
                COL_WALK(FR_G, COL_FRANGE_BODY, T, S, RANGE);                                      \
            nan_ = nz_any_##S(nz_or(nz_or(nz[0], nz[1]), nz_or(nz[2], nz[3])));                     \
        }                                                                                          \
        if (nan_) {                                                                                \
            for (size_t v = 0; v < nv; v++)                                                        \
                acc[v] = id;                                                                       \
            COL_WALK(8, COL_FOLD_BODY, T, S, MAP_ID, OP);                                          \
        }                                                                                          \
        COL_FOLD_STORE(S, FIELD);                                                                  \
    }
/* Contiguous rows of 2 KiB or more whose running values take at most 16 KiB, in tiles of
 * DMLCPU_COL_WIDE_MIN_BYTES or more (streamed from memory): each row read whole, in turn, into
 * the running values, prefetched COL_ARG_SEQ_AHEAD bytes ahead, NaN marks straight into the
 * tile's verdict, as COL_ARG_SEQ does. MAX over axis 0, one process alternating both builds in
 * either order (Zen 5, medians of 9): FLOAT32 4096 x 4096 1.17-1.25x, 2048 x 4096 1.23-1.48x,
 * 16384 x 1024 1.10-1.14x, FLOAT64 4096 x 2048 1.23-1.56x, FLOAT16 8192 x 4096 1.40-1.50x. A
 * FLOAT32 1024 x 4096 (16 MiB, partly in L3 between calls) was 1.1-1.2x slower, FLOAT16 4096 x
 * 8192 (32 KiB of running values) 5-12% slower: those keep the group walk. So do the integer
 * folds (DEF_COL_FOLD), one operation per pair of rows there: the walk made INT32 MAX over axis 0
 * of 4096 x 4096 1.17-1.2x slower, INT64 and UINT32 1.07-1.1x. */
#define SEQ_ROWS_OK(T, S)                                                                           \
    (rs == (ptrdiff_t)(K * sizeof(T)) && rs >= COL_ARG_SEQ_MAX &&                                 \
     K * sizeof(lane_##S) < COL_ARG_SEQ_MAX_WIDE && nrows * (size_t)rs >= DMLCPU_COL_WIDE_MIN_BYTES)
#define COL_FRANGE_SEQ(T, S, RANGE)                                                                \
    for (size_t i = 0; i < nrows; i++) {                                                           \
        const T *row = (const T *)(x + (ptrdiff_t)i * rs);                                         \
        SEQ_ROW(T, S, row, id, 1, acc[v] = RANGE(acc[v], x0););                                    \
    }
/* One row of K elements read whole (the column walks over contiguous rows, COL_ARG_SEQ and
 * COL_FRANGE_SEQ): each line prefetched COL_ARG_SEQ_AHEAD bytes ahead, vector v as x0 (FILLV past
 * K), its NaN lanes into nanseen when NANS (only the tile's verdict is needed, not each
 * vector's), then BODY. */
#define SEQ_ROW(T, S, row, FILLV, NANS, BODY)                                                      \
    for (size_t v = 0; v < nv; v++) {                                                              \
        if (((v * E * sizeof(T)) & 63) == 0)                                                       \
            PREFETCH_L1((const char *)((row) + v * E) + COL_ARG_SEQ_AHEAD);                        \
        vec_##S x0 = v * E + E <= K ? ld_##S((row) + v * E)                                        \
                                    : ldn_##S((row) + v * E, K - v * E, FILLV);                    \
        KEEP(x0);                                                                                  \
        if (NANS)                                                                                  \
            nanseen = lm_or(nanseen, nan_##S(x0, x0));                                             \
        BODY                                                                                       \
    }
/* FLOAT16 tiles streamed from memory (DMLCPU_COL_STREAM) with rows of up to COL_FRANGE_PF_ROW
 * bytes also prefetch every line of the group's rows COL_FRANGE_PF bytes ahead: the conversions
 * hold back the loads behind them, as in the row sums (x86/reduce_avx512.c, ROW_PF). MAX over
 * the middle axis of [8, 16384, 256] FLOAT16 1.17x faster, over axis 0 of [65536, 512]
 * 1.33-1.38x (one process, both builds, both orders, Zen 5). Without the hint and the bound the
 * prefetches cost 2.5-5% in cache ([8, 128, 256]) and 9-14% on rows of 16 KiB (4096 x 8192
 * over axis 0); tested inside the walk instead of choosing between two walks, the untaken test
 * alone cost that 4096 x 8192 case 4-5%. */
#define COL_FRANGE_PF 8192
#define COL_FRANGE_PF_ROW 2048
#define COL_FRANGE_BODY_PF(T, S, RANGE, LD)                                                        \
    if (((v * E * sizeof(T)) & 63) == 0)                                                           \
        for (size_t i = 0; i < rn; i++)                                                            \
            PREFETCH_L1((const char *)COL_AT(T, i) + COL_FRANGE_PF);                               \
    COL_FRANGE_BODY(T, S, RANGE, LD)
#define COL_FRANGE_BODY(T, S, RANGE, LD)                                                           \
    vec_##S a = acc[v];                                                                            \
    if (rn == FR_G) {                                                                              \
        _Pragma("GCC unroll 8") for (int i = 0; i < FR_G; i += 2) {                                \
            vec_##S x0 = LD(S, COL_AT(T, i), cn, id), x1 = LD(S, COL_AT(T, i + 1), cn, id);        \
            KEEP(x0);                                                                              \
            KEEP(x1);                                                                              \
            nz[i / 2 % 4] = nz_add_##S(nz[i / 2 % 4], x0, x1);                                     \
            a = RANGE(a, RANGE(x0, x1));                                                           \
        }                                                                                          \
    } else {                                                                                       \
        for (size_t i = 0; i < rn; i++) {                                                          \
            vec_##S x0 = LD(S, COL_AT(T, i), cn, id);                                              \
            KEEP(x0);                                                                              \
            nz[0] = nz_add_##S(nz[0], x0, x0);                                                     \
            a = RANGE(a, x0);                                                                      \
        }                                                                                          \
    }                                                                                              \
    acc[v] = a;

/* ---- MIN / MAX of floats (IEEE 754-2019: any NaN gives NaN, -0 < +0), on the bits as integers:
 * non-negative floats order like their bits as signed integers and lie above every negative;
 * negative floats order in reverse of their bits. MAX keeps the signed max (the answer when it is
 * >= 0), the signed min (the answer when everything is negative) and the unsigned max; MIN keeps
 * the unsigned max (the answer when something is negative), the unsigned min and the signed max.
 * A NaN shows as a signed max above +inf's bits or an unsigned max above -inf's. Rows of every
 * ISA use these; a column kernel keeps three running values per lane this way, so where the ISA
 * has an exact lanewise operation its columns fold with that instead. ---- */

#define DEF_FMM_RESOLVE(MAXN, MINN, R, I, U, INF)                                                  \
    static inline R MAXN(I smax, I smin, U umax)                                                   \
    {                                                                                              \
        if (smax > (I)(INF) || umax > ((U)(INF) | ((U)1 << (8 * sizeof(U) - 1))))                  \
            return (R)NAN;                                                                         \
        U b = (U)(smax >= 0 ? smax : smin);                                                        \
        R r;                                                                                       \
        memcpy(&r, &b, sizeof r);                                                                  \
        return r;                                                                                  \
    }                                                                                              \
    static inline R MINN(U umax, U umin, I smax)                                                   \
    {                                                                                              \
        if (smax > (I)(INF) || umax > ((U)(INF) | ((U)1 << (8 * sizeof(U) - 1))))                  \
            return (R)NAN;                                                                         \
        U b = umax >> (8 * sizeof(U) - 1) ? umax : umin;                                           \
        R r;                                                                                       \
        memcpy(&r, &b, sizeof r);                                                                  \
        return r;                                                                                  \
    }
DEF_FMM_RESOLVE(fmax_bits32, fmin_bits32, float, int32_t, uint32_t, 0x7f800000u)
DEF_FMM_RESOLVE(fmax_bits64, fmin_bits64, double, int64_t, uint64_t, 0x7ff0000000000000u)

/* Accumulators: (O1, S1), (O2, S2), (O3, S3) are the operation and the integer type of each;
 * RES turns their lane values into the result; FILL is the identity (-inf for MAX, +inf MIN). */
/* Folds the M elements at P (fill past the end) into the three accumulators a1, a2, a3 of the
 * float MIN/MAX row kernels, four vectors at a time; E and fill are the caller's. */
#define FMM_FOLD(S, O1, S1, O2, S2, O3, S3, P, M)                                                  \
    do {                                                                                           \
        a1 = bi_##S(fill), a2 = a1, a3 = a1;                                                       \
        size_t i_ = 0;                                                                             \
        for (; i_ + 4 * E <= (M); i_ += 4 * E) {                                                   \
            vec_##S1 x0 = bi_##S(ld_##S((P) + i_)), x1 = bi_##S(ld_##S((P) + i_ + E));             \
            vec_##S1 x2 = bi_##S(ld_##S((P) + i_ + 2 * E)), x3 = bi_##S(ld_##S((P) + i_ + 3 * E)); \
            KEEP(x0);                                                                              \
            KEEP(x1);                                                                              \
            KEEP(x2);                                                                              \
            KEEP(x3);                                                                              \
            a1 = O1##_##S1(a1, O1##_##S1(O1##_##S1(x0, x1), O1##_##S1(x2, x3)));                   \
            a2 = O2##_##S2(a2, O2##_##S2(O2##_##S2(x0, x1), O2##_##S2(x2, x3)));                   \
            a3 = O3##_##S3(a3, O3##_##S3(O3##_##S3(x0, x1), O3##_##S3(x2, x3)));                   \
        }                                                                                          \
        for (; i_ < (M); i_ += E) {                                                                \
            vec_##S1 x0 = bi_##S(i_ + E <= (M) ? ld_##S((P) + i_) : ldn_##S((P) + i_, (M) - i_, fill)); \
            KEEP(x0);                                                                              \
            a1 = O1##_##S1(a1, x0);                                                                \
            a2 = O2##_##S2(a2, x0);                                                                \
            a3 = O3##_##S3(a3, x0);                                                                \
        }                                                                                          \
    } while (0)
#define DEF_ROW_FMM(NAME, T, S, FILL, O1, S1, O2, S2, O3, S3, RES, FIELD)                          \
    static void NAME(const void *xv, size_t n, uint64_t index_base, partial *out)                  \
    {                                                                                              \
        const T *x = xv;                                                                           \
        const size_t E = EPV_##S;                                                                  \
        const vec_##S fill = FILL##_##S();                                                         \
        (void)index_base;                                                                          \
        for (size_t b0 = 0; b0 < n; b0 += DMLCPU_BLOCK_FREE, out++) {                              \
            const size_t m = MIN_SZ(n - b0, DMLCPU_BLOCK_FREE);                                    \
            const T *p = x + b0;                                                                   \
            vec_##S1 a1, a2, a3;                                                                   \
            FMM_FOLD(S, O1, S1, O2, S2, O3, S3, p, m);                                             \
            out->v.FIELD = RES(lane0_##S1(h##O1##_##S1(a1)), lane0_##S2(h##O2##_##S2(a2)),         \
                               lane0_##S3(h##O3##_##S3(a3)));                                      \
        }                                                                                          \
    }

#define DEF_COL_FMM(NAME, T, S, FILL, O1, S1, O2, S2, O3, S3, RES, FIELD)                          \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base,    \
                     partial *out, void *scratch)                                                  \
    {                                                                                              \
        const char *x = xv;                                                                        \
        const size_t E = EPV_##S, nv = (K + E - 1) / E;                                            \
        const vec_##S fill = FILL##_##S();                                                         \
        vec_##S1 *a1 = scratch, *a2 = a1 + 1, *a3 = a1 + 2; /* interleaved: a1[3v], a2[3v] ... */  \
        (void)index_base;                                                                          \
        if (K < E && K <= NARROW_MAX && rs == (ptrdiff_t)(K * sizeof(T))) {                        \
            COL_FMM_NARROW(T, S, O1, S1, O2, S2, O3, S3, RES, FIELD);                              \
            return;                                                                                \
        }                                                                                          \
        for (size_t v = 0; v < nv; v++)                                                            \
            a1[3 * v] = a2[3 * v] = a3[3 * v] = bi_##S(fill);                                      \
        COL_WALK(8, COL_FMM_BODY, T, S, O1, S1, O2, S2, O3, S3);                                   \
        for (size_t v = 0; v * E < K; v++) {                                                       \
            lane_##S1 t1[EPV_##S];                                                                 \
            lane_##S2 t2[EPV_##S];                                                                 \
            lane_##S3 t3[EPV_##S];                                                                 \
            st_##S1(t1, a1[3 * v]);                                                                \
            st_##S2(t2, a2[3 * v]);                                                                \
            st_##S3(t3, a3[3 * v]);                                                                \
            for (size_t k = v * E; k < K && k < (v + 1) * E; k++)                                  \
                out[k].v.FIELD = RES(t1[k - v * E], t2[k - v * E], t3[k - v * E]);                 \
        }                                                                                          \
    }
/* Narrow contiguous columns (NARROW_WALK) with the three accumulators: each column's values
 * are the lanes k, k + K, ... of the stored accumulators, folded one broadcast at a time (once
 * per call). Each row read under a mask, AVX2's FLOAT32 MAX over axis 0 of [4194304, 4] took
 * about 16 ms, ten times the AVX-512 tier's. */
#define COL_FMM_NARROW_STEP(a, xv, ok, S, O1, S1, O2, S2, O3, S3)                                  \
    {                                                                                              \
        vec_##S1 x_ = bi_##S(xv);                                                                  \
        KEEP(x_);                                                                                  \
        a1[3 * (a)] = O1##_##S1(a1[3 * (a)], x_);                                                  \
        a2[3 * (a)] = O2##_##S2(a2[3 * (a)], x_);                                                  \
        a3[3 * (a)] = O3##_##S3(a3[3 * (a)], x_);                                                  \
    }
#define COL_FMM_NARROW(T, S, O1, S1, O2, S2, O3, S3, RES, FIELD)                                   \
    do {                                                                                           \
        const size_t NA = narrow_accs_least(K, E, sizeof(lane_##S) > sizeof(T) ? 8 : 4);           \
        for (size_t a = 0; a < NA; a++)                                                            \
            a1[3 * a] = a2[3 * a] = a3[3 * a] = bi_##S(fill);                                      \
        NARROW_WALK(T, S, fill, COL_FMM_NARROW_STEP, S, O1, S1, O2, S2, O3, S3);                   \
        lane_##S1 l1[NARROW_MAX * EPV_##S];                                                        \
        lane_##S2 l2[NARROW_MAX * EPV_##S];                                                        \
        lane_##S3 l3[NARROW_MAX * EPV_##S];                                                        \
        size_t a_ = 0; /* NA >= 4: a do-while, so that the compiler sees the lanes written */     \
        do {                                                                                       \
            st_##S1(l1 + a_ * E, a1[3 * a_]);                                                      \
            st_##S2(l2 + a_ * E, a2[3 * a_]);                                                      \
            st_##S3(l3 + a_ * E, a3[3 * a_]);                                                      \
        } while (++a_ < NA);                                                                       \
        for (size_t k = 0; k < K; k++) {                                                           \
            vec_##S1 r1 = bc_##S1(l1[k]);                                                          \
            vec_##S2 r2 = bc_##S2(l2[k]);                                                          \
            vec_##S3 r3 = bc_##S3(l3[k]);                                                          \
            for (size_t q = K + k; q < NA * E; q += K) {                                           \
                r1 = O1##_##S1(r1, bc_##S1(l1[q]));                                                \
                r2 = O2##_##S2(r2, bc_##S2(l2[q]));                                                \
                r3 = O3##_##S3(r3, bc_##S3(l3[q]));                                                \
            }                                                                                      \
            out[k].v.FIELD = RES(lane0_##S1(r1), lane0_##S2(r2), lane0_##S3(r3));                  \
        }                                                                                          \
    } while (0)
#define COL_FMM_BODY(T, S, O1, S1, O2, S2, O3, S3, LD)                                             \
    vec_##S1 c1 = a1[3 * v], c2 = a2[3 * v], c3 = a3[3 * v];                                       \
    for (size_t i = 0; i < rn; i++) {                                                              \
        vec_##S1 x0 = bi_##S(LD(S, COL_AT(T, i), cn, fill));                                       \
        KEEP(x0);                                                                                  \
        c1 = O1##_##S1(c1, x0);                                                                    \
        c2 = O2##_##S2(c2, x0);                                                                    \
        c3 = O3##_##S3(c3, x0);                                                                    \
    }                                                                                              \
    a1[3 * v] = c1;                                                                                \
    a2[3 * v] = c2;                                                                                \
    a3[3 * v] = c3;

/* ---- ARGMIN / ARGMAX. EXT is max or min, BEAT the test "a replaces b" between numbers (gt or
 * lt; ge or le for the LAST kinds, which take the latest of equal values), FILL the value that
 * never replaces anything (lo for ARGMAX, hi for ARGMIN). NaN is more extreme than any number.
 *
 * Rows, without data-dependent branches (a mispredicted one waits for memory and discards the
 * loads behind it): per chunk of ARG_CH vectors, the lanewise extreme e; lanes where e beats the
 * best so far take e and the chunk's number. At the end of the block the extreme over the lanes
 * is found; the chunk where it first (LAST: last) occurs is the smallest (largest) chunk number
 * among the lanes holding it, and only that chunk is searched for its position. NaN lanes are
 * only collected; a block that holds one is searched for its first (last) NaN instead. cid_*_S
 * keep chunk numbers in unsigned lanes of S's width. ---- */

/* Vectors per chunk: 8 unless the ISA says otherwise (NEON takes 16 of its 16-byte vectors, so
 * the per-chunk bookkeeping, a compare and two blends, is paid once per 256 bytes as on AVX2). */
#ifndef ARG_CH
#define ARG_CH 8
#endif
/* Rows of at least this many bytes prefetch as far ahead: 64 MiB of 16 KiB rows ran at 0.95 of
 * the read ceiling instead of 0.75 (hardware prefetch alone does not keep up). Short rows skip
 * it: in L2, 2 KiB rows took 1.5x longer with it. */
#define ARG_PF 4096

/* Position of the first (last) set bit among nb lane masks of E lanes each (one is set). */
static inline size_t pick_bit(const uint64_t *b, size_t nb, size_t E, int last)
{
    if (!last) {
        size_t j = 0;
        while (!b[j])
            j++;
        return j * E + (size_t)__builtin_ctzll(b[j]);
    }
    size_t j = nb - 1;
    while (!b[j])
        j--;
    return j * E + 63 - (size_t)__builtin_clzll(b[j]);
}

/* The same over ARG_CH masks without a data-dependent branch (the multi-row kernels search one
 * chunk per row: a loop that stops at the first non-empty mask mispredicted on most rows). nz
 * has bit j set where b[j] is not 0. */
static inline size_t pick_bit_nb(const uint64_t *b, unsigned nz, size_t E, int last)
{
    const size_t j = last ? 31 - (size_t)__builtin_clz(nz) : (size_t)__builtin_ctz(nz);
    return j * E + (last ? 63 - (size_t)__builtin_clzll(b[j]) : (size_t)__builtin_ctzll(b[j]));
}

/* The same over the four masks of a short row; one word when they fit in 64 bits. */
static inline size_t pick4(const uint64_t *b, size_t E, int last)
{
    if (4 * E > 64)
        return pick_bit(b, 4, E, last);
    const uint64_t w = b[0] | b[1] << (E & 63) | b[2] << (2 * E & 63) | b[3] << (3 * E & 63);
    return last ? 63 - (size_t)__builtin_clzll(w) : (size_t)__builtin_ctzll(w);
}

#define DEF_CID(S, C)                                                                              \
    typedef vec_##C cvec_##S;                                                                      \
    static inline cvec_##S cid_zero_##S(void) { return lo_##C(); }                                 \
    static inline cvec_##S cid_next_##S(cvec_##S c) { return inc_##C(c); }                         \
    static inline cvec_##S cid_set_##S(cvec_##S c, lmask m, cvec_##S k) { return blend_##C(m, c, k); } \
    static inline size_t cid_pick_##S(cvec_##S c, lmask m, int last)                               \
    {                                                                                              \
        return last ? (size_t)lane0_##C(hmax_##C(blend_##C(m, lo_##C(), c)))                       \
                    : (size_t)lane0_##C(hmin_##C(blend_##C(m, hi_##C(), c)));                      \
    }
#define DEF_CIDS()                                                                                 \
    DEF_CID(i8, u8) DEF_CID(u8, u8) DEF_CID(i16, u16) DEF_CID(u16, u16) DEF_CID(i32, u32)          \
    DEF_CID(u32, u32) DEF_CID(f32, u32) DEF_CID(f16, u32) DEF_CID(i64, u64) DEF_CID(u64, u64)      \
    DEF_CID(f64, u64)

/* Vector j of the cn elements at q: whole, partial, or all fill. */
#define ARG_LD(S, q, j, cn)                                                                        \
    ((cn) >= ((j) + 1) * E ? ld_##S((q) + (j) * E)                                                 \
     : (cn) > (j) * E      ? ldn_##S((q) + (j) * E, (cn) - (j) * E, fill)                          \
                           : fill)
#define ARG_VALID(j, cn) ((cn) > (j) * E ? first_lanes(MIN_SZ(E, (cn) - (j) * E)) : 0)

#define ARG_CHUNK(T, S, EXT, BEAT, cnt)                                                            \
    do {                                                                                           \
        const size_t cn_ = (cnt);                                                                  \
        const T *q_ = p + k * ARG_CH * E;                                                          \
        vec_##S v_[ARG_CH];                                                                        \
        _Pragma("GCC unroll 16") for (int j = 0; j < ARG_CH; j++) {                                \
            v_[j] = ARG_LD(S, q_, j, cn_);                                                         \
            KEEP(v_[j]);                                                                           \
        }                                                                                          \
        if (NAN_##S && !EXT_KEEPS_NAN)                                                             \
            _Pragma("GCC unroll 8") for (int j = 0; j < ARG_CH; j += 2)                            \
                nz[j / 2 % 4] = nz_add_##S(nz[j / 2 % 4], v_[j], v_[j + 1]);                       \
        _Pragma("GCC unroll 4") for (int w = ARG_CH; w > 1; w /= 2) /* a tree of pairs */         \
            _Pragma("GCC unroll 8") for (int j = 0; j < w; j += 2)                                 \
                v_[j / 2] = EXT##_##S(v_[j], v_[j + 1]);                                           \
        const vec_##S e_ = v_[0];                                                                  \
        if (NAN_##S && EXT_KEEPS_NAN) /* the chunk's extreme is NaN where any of its lanes was */  \
            nz[0] = nz_add_##S(nz[0], e_, e_);                                                     \
        const lmask w_ = BEAT##_##S(e_, best);                                                     \
        best = blend_##S(w_, best, e_);                                                            \
        cid = cid_set_##S(cid, w_, kv);                                                            \
        kv = cid_next_##S(kv);                                                                     \
    } while (0)

/* The first (LAST: last) NaN among the m elements at p. */
#define ARG_FIND_NAN(S, LAST, m, res)                                                              \
    do {                                                                                           \
        const size_t nv_ = ((m) + E - 1) / E;                                                      \
        for (size_t i_ = 0; i_ < nv_; i_++) {                                                      \
            const size_t j_ = (LAST) ? nv_ - 1 - i_ : i_;                                          \
            const size_t c_ = MIN_SZ(E, (m) - j_ * E);                                             \
            const vec_##S x_ = c_ == E ? ld_##S(p + j_ * E) : ldn_##S(p + j_ * E, c_, fill);       \
            const uint64_t b_ = bits_##S(nan_##S(x_, x_)) & first_lanes(c_);                       \
            if (b_) {                                                                              \
                (res) = j_ * E + ((LAST) ? 63 - (size_t)__builtin_clzll(b_) : (size_t)__builtin_ctzll(b_)); \
                break;                                                                             \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* A block of at most four vectors (short rows): their extreme, then the first (last) lane that
 * holds it, with no chunk bookkeeping. */
#define ARG_SHORT(T, S, EXT, LAST, FIELD)                                                               \
    do {                                                                                           \
        const vec_##S v0 = ARG_LD(S, p, 0, m), v1 = ARG_LD(S, p, 1, m);                            \
        const vec_##S v2 = ARG_LD(S, p, 2, m), v3 = ARG_LD(S, p, 3, m);                            \
        vec_##S ex;                                                                                \
        size_t at = 0;                                                                             \
        if (NAN_##S && lm_any(lm_or(nan_##S(v0, v1), nan_##S(v2, v3)))) {                         \
            ex = qnan_##S();                                                                       \
            ARG_FIND_NAN(S, LAST, m, at);                                                          \
        } else {                                                                                   \
            ex = h##EXT##_##S(EXT##_##S(EXT##_##S(v0, v1), EXT##_##S(v2, v3)));                    \
            const uint64_t b[4] = {bits_##S(eq_##S(v0, ex)) & ARG_VALID(0, m),                     \
                                   bits_##S(eq_##S(v1, ex)) & ARG_VALID(1, m),                     \
                                   bits_##S(eq_##S(v2, ex)) & ARG_VALID(2, m),                     \
                                   bits_##S(eq_##S(v3, ex)) & ARG_VALID(3, m)};                    \
            at = pick4(b, E, LAST);                                                                \
        }                                                                                          \
        out->v.FIELD = lane0_##S(ex);                                                              \
        out->aux.idx = index_base + b0 + at;                                                       \
    } while (0)

#define DEF_ROW_ARG(NAME, T, S, EXT, BEAT, LAST, FILL, FIELD)                                      \
    static void NAME(const void *xv, size_t n, uint64_t index_base, partial *out)                  \
    {                                                                                              \
        const T *x = xv;                                                                           \
        const size_t E = EPV_##S, CH = ARG_CH * EPV_##S;                                           \
        const vec_##S fill = FILL##_##S();                                                         \
        const int pf = n * sizeof(T) >= ARG_PF;                                                    \
        for (size_t b0 = 0; b0 < n; b0 += DMLCPU_BLOCK_FREE, out++) {                              \
            const size_t m = MIN_SZ(n - b0, DMLCPU_BLOCK_FREE);                                    \
            const T *p = x + b0;                                                                   \
            if (m <= 4 * E) {                                                                      \
                ARG_SHORT(T, S, EXT, LAST, FIELD);                                                      \
                continue;                                                                          \
            }                                                                                      \
            vec_##S best = fill;                                                                   \
            cvec_##S cid = cid_zero_##S(), kv = cid;                                               \
            nzacc nz[4] = {nz_init(), nz_init(), nz_init(), nz_init()};                   \
            size_t at = 0, k = 0;                                                                  \
            for (; (k + 1) * CH <= m; k++) {                                                       \
                if (pf)                                                                            \
                    _Pragma("GCC unroll 16") for (size_t o = 0; o < CH * sizeof(T); o += 64)       \
                        PREFETCH_L1((const char *)(p + k * CH) + ARG_PF + o);        \
                ARG_CHUNK(T, S, EXT, BEAT, CH);                                                    \
            }                                                                                      \
            if (k * CH < m)                                                                        \
                ARG_CHUNK(T, S, EXT, BEAT, m - k * CH);                                            \
            if (NAN_##S && nz_any_##S(nz_or(nz_or(nz[0], nz[1]), nz_or(nz[2], nz[3])))) {          \
                best = qnan_##S();                                                                 \
                ARG_FIND_NAN(S, LAST, m, at);                                                      \
            } else {                                                                               \
                const vec_##S ex = h##EXT##_##S(best);                                             \
                k = cid_pick_##S(cid, eq_##S(best, ex), LAST);                                     \
                best = ex;                                                                         \
                const T *q = p + k * CH;                                                           \
                const size_t cn = MIN_SZ(CH, m - k * CH);                                          \
                uint64_t b[ARG_CH];                                                                \
                _Pragma("GCC unroll 16") for (int j = 0; j < ARG_CH; j++)                          \
                    b[j] = bits_##S(eq_##S(ARG_LD(S, q, j, cn), ex)) & ARG_VALID(j, cn);           \
                at = k * CH + pick_bit(b, ARG_CH, E, LAST);                                        \
            }                                                                                      \
            out->v.FIELD = lane0_##S(best);                                                        \
            out->aux.idx = index_base + b0 + at;                                                   \
        }                                                                                          \
    }

/* Columns: best value and row index per lane. Per group of COL_ARG_ROWS rows, the lanewise
 * extreme and a NaN test decide whether any lane can change; only then are the rows replayed one
 * by one with the exact rule (blend value and index where the row's lane wins). Smaller groups
 * replay less where the best values still change often (the first rows of a block); larger ones
 * measured slower. */
#define ARG_BETTER(S, BEAT, LAST, xv, b)                                                           \
    (NAN_##S ? lm_or(BEAT##_##S(xv, b),                                                            \
                     (LAST) ? nan_##S(xv, xv) : lm_andn(nan_##S(xv, xv), nan_##S(b, b)))           \
             : BEAT##_##S(xv, b))
#define COL_ARG_REPLAY(T, S, LD, BETTER)                                                           \
    for (size_t i = 0; i < rn; i++) {                                                              \
        vec_##S xi = LD(S, COL_AT(T, i), cn, fill);                                                \
        KEEP(xi);                                                                                  \
        const lmask w = BETTER;                                                                    \
        b = blend_##S(w, b, xi);                                                                   \
        ix = iblend_##S(ix, w, r0 + i);                                                            \
    }
#define COL_ARG_ROWS 4 /* rows per test */
/* need: 0 nothing can change, 1 replay with the compare alone (no NaN), 2 with the NaN rule */
#define COL_ARG_BODY(T, S, EXT, BEAT, LAST, LD)                                                    \
    vec_##S b = bv[v];                                                                             \
    int need = 2;                                                                                  \
    if (rn == COL_ARG_ROWS) {                                                                      \
        vec_##S e = fill;                                                                          \
        lmask nm = lm_zero();                                                                      \
        _Pragma("GCC unroll 8") for (int i = 0; i < COL_ARG_ROWS; i += 2) {                        \
            vec_##S x0 = LD(S, COL_AT(T, i), cn, fill), x1 = LD(S, COL_AT(T, i + 1), cn, fill);    \
            KEEP(x0);                                                                              \
            KEEP(x1);                                                                              \
            if (NAN_##S)                                                                           \
                nm = lm_or(nm, nan_##S(x0, x1));                                                   \
            e = EXT##_##S(e, EXT##_##S(x0, x1));                                                   \
        }                                                                                          \
        const lmask ok = valid_##S(cn);                                                            \
        need = NAN_##S && lm_any(lm_and(nm, ok))  ? 2                                              \
               : lm_any(lm_and(BEAT##_##S(e, b), ok)) ? 1                                          \
                                                    : 0;                                           \
    }                                                                                              \
    if (need) {                                                                                    \
        iv_##S ix = iv[v];                                                                         \
        if (need == 1)                                                                             \
            COL_ARG_REPLAY(T, S, LD, BEAT##_##S(xi, b))                                            \
        else                                                                                       \
            COL_ARG_REPLAY(T, S, LD, ARG_BETTER(S, BEAT, LAST, xi, b))                             \
        bv[v] = b;                                                                                 \
        iv[v] = ix;                                                                                \
    }

/* Columns without a NaN: per group of COL_ARG_G rows the lanewise extreme e; lanes where e beats
 * the best so far (BEAT: strictly, or not for LAST) take e and the group's first row, with no
 * branch. At the end each column searches its group's rows for the first (last) element equal
 * to its best. A NaN anywhere sends the tile to the exact row replay. Used where a tile spans
 * at least COL_ARG_BIG bytes of rows: f32 [8,8192,256] over axis 1 took 8.5M cycles instead of
 * 12M; in L2 ([256,512] over axis 0) the scattered loads of the search made it 1.2x slower. */
/* A group's extremes e (its NaN marks nm) against the best of vector v: lanes where e beats the
 * best (BEAT) take e and the group's first row r0. */
#define COL_ARG_TAKE(S, BEAT, e, nm)                                                               \
    do {                                                                                           \
        nanseen = lm_or(nanseen, (nm));                                                            \
        const vec_##S b_ = bv[v];                                                                  \
        const lmask w_ = BEAT##_##S((e), b_);                                                      \
        bv[v] = blend_##S(w_, b_, (e));                                                            \
        iv[v] = iblend_##S(iv[v], w_, r0);                                                         \
    } while (0)
#define COL_ARG_G DMLCPU_COL_ARG_GROUP
#define COL_ARG_BIG (2u << 20)
#define COL_ARG_GROUP(T, S, EXT, BEAT, LD)                                                         \
    {                                                                                              \
        vec_##S e = fill;                                                                          \
        lmask nm = lm_zero();                                                                      \
        if (rn == COL_ARG_G) {                                                                     \
            _Pragma("GCC unroll 8") for (int i = 0; i < COL_ARG_G; i += 2) {                       \
                vec_##S x0 = LD(S, COL_AT(T, i), cn, fill), x1 = LD(S, COL_AT(T, i + 1), cn, fill); \
                KEEP(x0);                                                                          \
                KEEP(x1);                                                                          \
                if (NAN_##S)                                                                       \
                    nm = lm_or(nm, nan_##S(x0, x1));                                               \
                e = EXT##_##S(e, EXT##_##S(x0, x1));                                               \
            }                                                                                      \
        } else {                                                                                   \
            for (size_t i = 0; i < rn; i++) {                                                      \
                vec_##S x0 = LD(S, COL_AT(T, i), cn, fill);                                        \
                KEEP(x0);                                                                          \
                if (NAN_##S)                                                                       \
                    nm = lm_or(nm, nan_##S(x0, x0));                                               \
                e = EXT##_##S(e, x0);                                                              \
            }                                                                                      \
        }                                                                                          \
        COL_ARG_TAKE(S, BEAT, e, nm);                                                              \
    }
/* COL_ARG_GROUP's walk over contiguous rows of COL_ARG_SEQ_MIN bytes to less than
 * COL_ARG_SEQ_MAX (a group of 8 rows is then one piece of 4 to 16 KiB): each row read whole, in
 * turn, the group's extremes per vector kept in ge, then compared with the best as COL_ARG_GROUP
 * does. The extreme of a group is exact whatever the order. A NaN sends the tile to the replay,
 * so its marks go straight into the tile's nanseen: keeping them per vector beside ge, a second
 * store per vector read, cost FLOAT32 4096 x 4096 over axis 0 1.07-1.10x, FLOAT16 8192 x 512
 * 1.32x, FLOAT32 8192 x 256 1.22x (Zen 5, both orders of one process). Each row is prefetched
 * COL_ARG_SEQ_AHEAD bytes ahead, the distance 16 rows of 1 KiB had: over 16 KiB rows, 16 KiB
 * ahead instead of 16 rows took 1.05-1.13x less time (FLOAT32 4096 x 4096 and 2048 x 4096,
 * FLOAT64 4096 x 2048), 8 KiB rows 1.0-1.03x, 512-byte rows unchanged; 4 KiB ahead was slower.
 * The rows' vectors in turn, 8 rows interleaved within a few pages, left the hardware
 * prefetchers behind: FLOAT32 ARGMAX over axis 1 of 8 x 8192 x 256 took 5.6-6.9 ms that way and
 * 4.2-5.6 ms this way, of 8 x 16384 x 128 and 8 x 5461 x 384 15-30% less (medians of 200,
 * processes alternated); rows of 2 KiB gained nothing clear and UINT8 rows of 4 KiB (4096 x
 * 4096 over axis 0) were a third slower.
 * Rows of 2 to 16 KiB of 4- and 8-byte elements take the walk too when they are streamed from
 * memory: the tile reads COL_ARG_SEQ_WIDE_MIN or more. ge then holds up to 16 KiB, in L1.
 * ARGMAX over axis 0, one process alternating both builds in either order (medians of 11 to 21,
 * Zen 5, AVX-512): FLOAT32 4096 x 4096 1.05-1.08x, 8192 x 2048 1.32x, FLOAT64 4096 x 2048
 * 1.11-1.13x; in L3 (FLOAT32 2048 x 1024, 8 MiB) it was 1.7x slower. Integers, once the walk
 * kept no per-vector marks and prefetched 16 KiB ahead: INT32 8192 x 2048 1.21-1.28x, 2048 x
 * 4096 1.09-1.18x, 4096 x 4096 1.0x, UINT64 4096 x 2048 1.02-1.05x. FLOAT16 rows (half-line
 * loads) stay on the group walk: 16 KiB rows gained 1.1x, 4 and 8 KiB rows lost 5-40%. */
#define COL_ARG_SEQ_MIN 512
#define COL_ARG_SEQ_AHEAD 16384 /* bytes: prefetch distance of the walk */
#define COL_ARG_SEQ_MAX 2048
#define COL_ARG_SEQ_MAX_WIDE (DMLCPU_COL_FREE_BYTES + 1)
#define COL_ARG_SEQ_WIDE_MIN ((size_t)16 << 20)
#define COL_ARG_ROW_TEST_MIN ((size_t)1 << 20)
#define COL_ARG_SEQ_LIMIT(T) (sizeof(T) >= 4 ? COL_ARG_SEQ_MAX_WIDE : COL_ARG_SEQ_MAX)
#define COL_ARG_WIDE_ROWS(T)                                                                       \
    (sizeof(T) >= 4 && rs == (ptrdiff_t)(K * sizeof(T)) && rs >= COL_ARG_SEQ_MAX &&                \
     rs < COL_ARG_SEQ_MAX_WIDE)
#define COL_ARG_SEQ_WIDE_OK(T) (COL_ARG_WIDE_ROWS(T) && nrows * (size_t)rs >= COL_ARG_SEQ_WIDE_MIN)
#define COL_ARG_ROW_TEST_OK(T)                                                                     \
    (COL_ARG_ROW_TEST && sizeof(T) >= 2 && rs == (ptrdiff_t)(K * sizeof(T)) &&                     \
     rs >= COL_ARG_SEQ_MAX && rs < COL_ARG_SEQ_MAX_WIDE && streamed &&                             \
     nrows * (size_t)rs >= COL_ARG_ROW_TEST_MIN)
#define COL_ARG_SEQ(T, S, EXT, BEAT)                                                               \
    do {                                                                                           \
        /* nv = ceil(K / E) <= this, as K * sizeof(T) < COL_ARG_SEQ_MAX */                       \
        vec_##S ge[COL_ARG_SEQ_LIMIT(T) / sizeof(T) / EPV_##S + 1];                                \
        for (size_t r0 = 0; r0 < nrows; r0 += COL_ARG_G) {                                         \
            const size_t rn = MIN_SZ(COL_ARG_G, nrows - r0);                                       \
            const char *rb = x + (ptrdiff_t)r0 * rs;                                               \
            for (size_t i = 0; i < rn; i++) {                                                      \
                const T *row = (const T *)(rb + (ptrdiff_t)i * rs);                                \
                SEQ_ROW(T, S, row, fill, NAN_##S, ge[v] = i ? EXT##_##S(ge[v], x0) : x0;);         \
            }                                                                                      \
            for (size_t v = 0; v < nv; v++)                                                        \
                COL_ARG_TAKE(S, BEAT, ge[v], lm_zero());                                           \
        }                                                                                          \
    } while (0)
/* COL_ARG_ROW_TEST's walk over wide rows (COL_ARG_ROW_TEST_OK: contiguous rows of 2 to 16 KiB of
 * 2- to 8-byte elements, in tiles of COL_ARG_ROW_TEST_MIN or more of an operator that streams
 * from memory, DMLCPU_COL_STREAM): each row is read whole, in turn, as in COL_ARG_SEQ, but where
 * few vectors take a new best, each vector of a row is compared with the best so far and only a
 * vector where some lane wins is blended, with the row itself as its index; a row that changes
 * nothing costs a load and a compare per vector and stores nothing. Where most vectors take a
 * new best in every group (the first rows, columns that rise row after row) a branch per vector
 * costs more, so groups are taken as COL_ARG_SEQ takes them, with the group's first row as the
 * index (COL_ARG_TAKE; their extremes ge live in the scratch buffer after the best values and
 * indexes: 3 x 16 KiB for 4-byte lanes, 3 x 32 KiB for FLOAT16, within DMLCPU_COL_FREE_SCRATCH
 * for vectors of 8 lanes or more). The walk starts with groups, turns to the row test after a
 * group where fewer than half of the vectors took a new best, and back after a group of row
 * tests where more (row, vector) pairs than vectors did. Either way a column ends with its best
 * value and a row from which the rescan of a group finds the element's row (at once, from a
 * row test's row).
 * ARGMAX over axis 0, AVX-512 on a Zen 5, one process alternating both builds in either order
 * (medians of 9 to 21, random data), against the former walks: FLOAT32 4096 x 4096 1.12-1.14x,
 * FLOAT64 4096 x 2048 1.13-1.14x, INT32 4096 x 4096 1.20-1.22x, FLOAT16 4096 x 8192 1.24-1.27x
 * (8192 x 4096 1.28-1.36x), INT16 and UINT16 4096 x 8192 1.26-1.33x; INT64 rising in every
 * column (groups throughout) 0.97-0.98x; on two threads, each task 8 MiB of rows, FLOAT32
 * 1.13-1.16x, INT32 1.07x, FLOAT16 1.19x. Then the bounds above and the row test's own row as
 * the index, against a quarter and half as many with the group's first row: FLOAT32 1.09-1.11x
 * on one thread and 1.12-1.13x on two (each 512-row task had stayed on groups throughout),
 * FLOAT16 1.10-1.13x and 1.14-1.16x, INT32 1.14-1.16x, rising INT64 columns 0.92-0.94x.
 * With the row test alone the rising INT64 columns took 1.47x as long; AVX2 measured FLOAT32
 * 4096 x 4096 4-7% slower and keeps COL_ARG_SEQ; in L3 the row test was slower than the walks it
 * replaces (FLOAT32 256 x 4096 and 512 x 4096 by 6-20%, FLOAT16 1024 x 8192 by 28-30%), hence
 * the stream condition. Pieces of longer rows (FLOAT64 2048 x 4096 in two tiles) gained 5-8%
 * with random data but lost 22-29% with rising INT64 columns and 3-10% for FLOAT32 2048 x 8192:
 * they keep the group walk. */
#define COL_ARG_SEQ_WIDE(T, S, EXT, BEAT)                                                          \
    do {                                                                                           \
        vec_##S *ge = (vec_##S *)(iv + nv); /* after the best values and indexes */            \
        int grouped = 1;                                                                           \
        for (size_t r0 = 0; r0 < nrows; r0 += COL_ARG_G) {                                         \
            const size_t rn = MIN_SZ(COL_ARG_G, nrows - r0);                                       \
            size_t moved = 0;                                                                      \
            if (grouped) {                                                                         \
                for (size_t i = 0; i < rn; i++) {                                                  \
                    const T *row = (const T *)(x + (ptrdiff_t)(r0 + i) * rs);                      \
                    SEQ_ROW(T, S, row, fill, NAN_##S, ge[v] = i ? EXT##_##S(ge[v], x0) : x0;);     \
                }                                                                                  \
                for (size_t v = 0; v < nv; v++) {                                                  \
                    const lmask w_ = BEAT##_##S(ge[v], bv[v]);                                     \
                    moved += lm_any(w_) != 0;                                                      \
                    bv[v] = blend_##S(w_, bv[v], ge[v]);                                           \
                    iv[v] = iblend_##S(iv[v], w_, r0);                                             \
                }                                                                                  \
                grouped = 2 * moved >= nv;                                                         \
            } else {                                                                               \
                for (size_t i = 0; i < rn; i++) {                                                  \
                    const T *row = (const T *)(x + (ptrdiff_t)(r0 + i) * rs);                      \
                    SEQ_ROW(T, S, row, fill, NAN_##S, {                                            \
                        const lmask w_ = BEAT##_##S(x0, bv[v]);                                    \
                        if (lm_any(w_)) {                                                          \
                            moved++;                                                               \
                            bv[v] = blend_##S(w_, bv[v], x0);                                      \
                            iv[v] = iblend_##S(iv[v], w_, r0 + i);                                 \
                        }                                                                          \
                    });                                                                            \
                }                                                                                  \
                grouped = moved > nv;                                                              \
            }                                                                                      \
        }                                                                                          \
    } while (0)
/* The index of row 0 without the plan's hint (DMLCPU_COL_STREAM), where an index is written. */
#define ARG_BASE (index_base & ~DMLCPU_COL_STREAM)
#define COL_ARG_RESCAN(T, S, LAST, FIELD)                                                          \
    for (size_t v = 0; v * E < K; v++) {                                                           \
        lane_##S t[EPV_##S];                                                                       \
        ix_##S ti[EPV_##S];                                                                        \
        st_##S(t, bv[v]);                                                                          \
        ist_##S(ti, iv[v]);                                                                        \
        for (size_t k = v * E; k < K && k < (v + 1) * E; k++) {                                    \
            const lane_##S bx = t[k - v * E];                                                      \
            /* deferred (DMLCPU_ARG_DEFER): the group's first row, the caller rescans */           \
            const size_t g0 = ti[k - v * E];                                                       \
            const size_t g1 = index_base & DMLCPU_ARG_DEFER ? g0 : MIN_SZ(g0 + COL_ARG_G, nrows);  \
            size_t at = g0;                                                                        \
            for (size_t j = 0; j < g1 - g0; j++) {                                                 \
                const size_t r = (LAST) ? g1 - 1 - j : g0 + j;                                     \
                if (ld1_##S((const T *)(x + (ptrdiff_t)r * rs) + k) == bx) {                       \
                    at = r;                                                                        \
                    break;                                                                         \
                }                                                                                  \
            }                                                                                      \
            out[k].v.FIELD = bx;                                                                   \
            out[k].aux.idx = ARG_BASE + at;                                                        \
        }                                                                                          \
    }

/* Narrow contiguous columns (see NARROW_WALK): per lane the best value and the stretch t where it
 * was taken, with the plain compare (a NaN anywhere sends the tile to the row replay above, which
 * has the NaN rule). Then per column, over its lanes, the best value, ties going to the smaller
 * (LAST: larger) row; lane l of stretch t is row t * NA*E/K + l / K. */
#define STRICT_max(a, b) ((a) > (b))
#define STRICT_min(a, b) ((a) < (b))
#define COL_ARG_NARROW_STEP(a, xv, ok, S, BEAT)                                                    \
    {                                                                                              \
        /* both in registers: GCC otherwise may load each of them twice (INT32 [4194304, 4] */   \
        /* over axis 0 took 1.35x as long when the kernel grew the wide-row walk) */              \
        vec_##S x_ = (xv), b_ = bn[a];                                                             \
        KEEP(x_);                                                                                  \
        KEEP(b_);                                                                                  \
        nanseen = lm_or(nanseen, nan_##S(x_, x_));                                                 \
        const lmask w_ = lm_and(BEAT(x_, b_), ok);                                                 \
        bn[a] = blend_##S(w_, b_, x_);                                                             \
        in[a] = iblend_##S(in[a], w_, t);                                                          \
    }
#define COL_ARG_NARROW(T, S, EXT, BEAT, LAST, FIELD)                                               \
    do {                                                                                           \
        const size_t NA = narrow_accs_least(K, E, sizeof(lane_##S) > sizeof(T) ? 8 : 4);           \
        vec_##S *bn = scratch;                                                                     \
        iv_##S *in = (iv_##S *)(bn + NA);                                                          \
        for (size_t a = 0; a < NA; a++) {                                                          \
            bn[a] = fill;                                                                          \
            in[a] = izero_##S();                                                                   \
        }                                                                                          \
        lmask nanseen = lm_zero();                                                                 \
        NARROW_WALK(T, S, fill, COL_ARG_NARROW_STEP, S, BEAT##_##S);                                     \
        if (NAN_##S && lm_any(nanseen))                                                            \
            break;                                                                                 \
        lane_##S lv[NARROW_MAX * EPV_##S];                                                         \
        ix_##S li[NARROW_MAX * EPV_##S];                                                           \
        for (size_t a = 0; a < NA; a++) {                                                          \
            st_##S(lv + a * E, bn[a]);                                                             \
            ist_##S(li + a * E, in[a]);                                                            \
        }                                                                                          \
        const size_t per = NA * E / K;                                                             \
        for (size_t k = 0; k < K; k++) {                                                           \
            lane_##S bx = lv[k];                                                                   \
            size_t br = (size_t)li[k] * per;                                                       \
            /* lane l = k + j K is row li[l] * per + j (no division: this loop runs per call) */  \
            for (size_t l = k + K, j = 1; l < NA * E; l += K, j++) {                               \
                const size_t r = (size_t)li[l] * per + j;                                          \
                const lane_##S xl = lv[l];                                                         \
                if (r < nrows && (STRICT_##EXT(xl, bx) || (xl == bx && ((LAST) ? r > br : r < br)))) { \
                    bx = xl;                                                                       \
                    br = r;                                                                        \
                }                                                                                  \
            }                                                                                      \
            out[k].v.FIELD = bx;                                                                   \
            out[k].aux.idx = ARG_BASE + br;                                                        \
        }                                                                                          \
        return;                                                                                    \
    } while (0)

#define DEF_COL_ARG(NAME, T, S, EXT, BEAT, LAST, FILL, FIELD)                                      \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base,    \
                     partial *out, void *scratch)                                                  \
    {                                                                                              \
        const char *x = xv;                                                                        \
        const size_t E = EPV_##S, nv = (K + E - 1) / E;                                            \
        const vec_##S fill = FILL##_##S();                                                         \
        vec_##S *bv = scratch;                                                                     \
        iv_##S *iv = (iv_##S *)(bv + nv);                                                          \
        if (K < E && K <= NARROW_MAX && rs == (ptrdiff_t)(K * sizeof(T))) {                        \
            COL_ARG_NARROW(T, S, EXT, BEAT, LAST, FIELD); /* returns unless it met a NaN */        \
        }                                                                                          \
        if (nrows * (size_t)(rs < 0 ? -rs : rs) >= COL_ARG_BIG) {                                  \
            const int streamed = (index_base & DMLCPU_COL_STREAM) != 0;                            \
            lmask nanseen = lm_zero();                                                             \
            for (size_t v = 0; v < nv; v++) {                                                      \
                bv[v] = fill;                                                                      \
                iv[v] = izero_##S();                                                               \
            }                                                                                      \
            if (COL_ARG_ROW_TEST_OK(T))                                                            \
                COL_ARG_SEQ_WIDE(T, S, EXT, BEAT);                                                 \
            else if (rs == (ptrdiff_t)(K * sizeof(T)) && rs >= COL_ARG_SEQ_MIN &&                 \
                     (rs < COL_ARG_SEQ_MAX || COL_ARG_SEQ_WIDE_OK(T)))                             \
                COL_ARG_SEQ(T, S, EXT, BEAT);                                                      \
            else                                                                                   \
                COL_WALK(COL_ARG_G, COL_ARG_GROUP, T, S, EXT, BEAT);                               \
            if (!NAN_##S || !lm_any(nanseen)) {                                                    \
                COL_ARG_RESCAN(T, S, LAST, FIELD);                                                 \
                return;                                                                            \
            }                                                                                      \
        }                                                                                          \
        for (size_t v = 0; v < nv; v++) {                                                          \
            bv[v] = fill;                                                                          \
            iv[v] = izero_##S();                                                                   \
        }                                                                                          \
        COL_WALK(COL_ARG_ROWS, COL_ARG_BODY, T, S, EXT, BEAT, LAST);                               \
        for (size_t v = 0; v * E < K; v++) {                                                       \
            lane_##S t[EPV_##S];                                                                   \
            ix_##S ti[EPV_##S];                                                                    \
            st_##S(t, bv[v]);                                                                      \
            ist_##S(ti, iv[v]);                                                                    \
            for (size_t k = v * E; k < K && k < (v + 1) * E; k++) {                                \
                out[k].v.FIELD = t[k - v * E];                                                     \
                out[k].aux.idx = ARG_BASE + ti[k - v * E];                                         \
            }                                                                                      \
        }                                                                                          \
    }


/* ---- many short rows (multi-row kernels, groups of at most one block): each row folds into
 * one vector, then the folds over the lanes of RG rows run together. A step takes two vectors a
 * and b of the group and folds a's halves (of 2d bytes) into the lower d bytes, b's into the
 * upper d: OP([a0 b1], [a1 b0]) with one blend each way and one swap, so a step costs about one
 * operation per pair of rows instead of one per row. From d = VEC_BYTES/2 down to 4 bytes (8
 * for 64-bit lanes) RG vectors become one, with row i in group bitrev(i); narrower lanes fold
 * within their 4-byte group after. The ISA defines VEC_BYTES, ivec, and group_blend(a, b, d):
 * b in the upper d bytes of each 2d, a elsewhere. ---- */

#define ROWS_GB(LB) ((LB) < 4 ? 4 : (LB))  /* bytes per row in the folded vector */
#define ROWS_G(LB) (VEC_BYTES / ROWS_GB(LB)) /* rows folded together */

/* The group that holds row i of G (a power of two, at most 16): i with its bits reversed. */
static inline size_t rows_slot(size_t i, size_t G)
{
    static const uint8_t rev16[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
    return rev16[i] >> (4 - __builtin_ctzll(G));
}

/* v[0..G) folded as above; returns the vector of the G rows' folds. */
#define DEF_TFOLD(NAME, S, OP)                                                                     \
    static inline vec_##S NAME(vec_##S *v)                                                         \
    {                                                                                              \
        enum { LB = sizeof(lane_##S), GB = ROWS_GB(LB) };                                          \
        _Pragma("GCC unroll 4") for (int c = ROWS_G(LB), d = VEC_BYTES / 2; c > 1; c /= 2, d /= 2) \
            _Pragma("GCC unroll 8") for (int i = 0; i < c / 2; i++) {                              \
                const ivec a = bi_##S(v[2 * i]), b = bi_##S(v[2 * i + 1]);                         \
                v[i] = OP(ib_##S(group_blend(a, b, d)), ib_##S(swap_groups(group_blend(b, a, d), d))); \
            }                                                                                      \
        _Pragma("GCC unroll 2") for (int d = GB / 2; d >= LB; d /= 2)                              \
            v[0] = OP(v[0], ib_##S(swap_groups(bi_##S(v[0]), d)));                                 \
        return v[0];                                                                               \
    }

/* Walks the rows in batches of G: ROW_BODY stores the vector(s) of row r of the batch (at p, n
 * elements), PAD those of a missing row r >= rn, BATCH_END folds and writes out[r0, r0 + rn). */
#define ROWS_WALK(T, G, ROW_BODY, PAD, BATCH_END)                                                  \
    for (size_t r0 = 0; r0 < nrows; r0 += (G)) {                                                   \
        const size_t rn = MIN_SZ((G), nrows - r0);                                                 \
        for (size_t r = 0; r < rn; r++) {                                                          \
            const T *p = (const T *)((const char *)xv + (ptrdiff_t)(r0 + r) * rs);                 \
            ROW_BODY                                                                               \
        }                                                                                          \
        for (size_t r = rn; r < (G); r++) {                                                        \
            PAD                                                                                    \
        }                                                                                          \
        BATCH_END                                                                                  \
    }


#define DEF_ROWS_FOLD(NAME, T, S, ID, MAP, OP, RED, FIELD)                                         \
    DEF_TFOLD(NAME##_fold, S, OP)                                                                  \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t n, partial *out)           \
    {                                                                                              \
        enum { LB = sizeof(lane_##S), G = ROWS_G(LB) };                                            \
        const size_t E = EPV_##S;                                                                  \
        const vec_##S id = ID();                                                                   \
        vec_##S acc[G];                                                                            \
        ROWS_WALK(T, G, ROW_FOLD_VEC(S, MAP, OP, acc[r], n);, acc[r] = id;,                                          \
                  {                                                                                \
                      lane_##S t[EPV_##S];                                                         \
                      st_##S(t, NAME##_fold(acc));                                                 \
                      for (size_t r = 0; r < rn; r++)                                              \
                          out[r0 + r].v.FIELD = t[rows_slot(r, G) * (ROWS_GB(LB) / LB)];           \
                  })                                                                               \
    }

/* Float MIN/MAX: the three integer accumulators of DEF_ROW_FMM per row, each folded. */
#define DEF_ROWS_FMM(NAME, T, S, FILL, O1, S1, O2, S2, O3, S3, RES, FIELD)                         \
    DEF_TFOLD(NAME##_f1, S1, O1##_##S1)                                                            \
    DEF_TFOLD(NAME##_f2, S2, O2##_##S2)                                                            \
    DEF_TFOLD(NAME##_f3, S3, O3##_##S3)                                                            \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t n, partial *out)           \
    {                                                                                              \
        enum { LB = sizeof(lane_##S1), G = ROWS_G(LB) };                                           \
        const size_t E = EPV_##S;                                                                  \
        const vec_##S fill = FILL##_##S();                                                         \
        vec_##S1 c1[G];                                                                            \
        vec_##S2 c2[G];                                                                            \
        vec_##S3 c3[G];                                                                            \
        ROWS_WALK(T, G, ROW_FMM_VECS(T, S, O1, S1, O2, S2, O3, S3), c1[r] = c2[r] = c3[r] = bi_##S(fill);,                                \
                  {                                                                                \
                      lane_##S1 t1[EPV_##S];                                                       \
                      lane_##S2 t2[EPV_##S];                                                       \
                      lane_##S3 t3[EPV_##S];                                                       \
                      st_##S1(t1, NAME##_f1(c1));                                                  \
                      st_##S2(t2, NAME##_f2(c2));                                                  \
                      st_##S3(t3, NAME##_f3(c3));                                                  \
                      for (size_t r = 0; r < rn; r++) {                                            \
                          const size_t k = rows_slot(r, G);                                        \
                          out[r0 + r].v.FIELD = RES(t1[k], t2[k], t3[k]);                          \
                      }                                                                            \
                  })                                                                               \
    }
#define ROW_FMM_VECS(T, S, O1, S1, O2, S2, O3, S3)                                                 \
    {                                                                                              \
        vec_##S1 a1, a2, a3;                                                                       \
        FMM_FOLD(S, O1, S1, O2, S2, O3, S3, p, n);                                                 \
        c1[r] = a1;                                                                                \
        c2[r] = a2;                                                                                \
        c3[r] = a3;                                                                                \
    }

/* Float MIN/MAX where the ISA has RNG, a lanewise operation exact except for NaN (VRANGE): one
 * operation per vector, and unordered compares, ORed, find the NaN rows. (Ordered compares that
 * narrow one mask, as in the ARG* rows, made the chain of masks the limit: 58% of the read
 * ceiling instead of 80% for [256,512] FLOAT32.) */
#define DEF_ROWS_RNG(NAME, T, S, FILL, RNG, FIELD)                                                 \
    DEF_TFOLD(NAME##_fold, S, RNG)                                                                 \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t n, partial *out)           \
    {                                                                                              \
        enum { LB = sizeof(lane_##S), G = ROWS_G(LB) };                                            \
        const size_t E = EPV_##S;                                                                  \
        const vec_##S fill = FILL##_##S();                                                         \
        vec_##S acc[G];                                                                            \
        unsigned nanrows = 0;                                                                      \
        ROWS_WALK(T, G, ROW_RNG_VEC(S, RNG), acc[r] = fill;,                                       \
                  {                                                                                \
                      lane_##S t[EPV_##S];                                                         \
                      st_##S(t, NAME##_fold(acc));                                                 \
                      for (size_t r = 0; r < rn; r++)                                              \
                          out[r0 + r].v.FIELD = nanrows >> r & 1 ? (lane_##S)NAN                   \
                                                                 : t[rows_slot(r, G) * (ROWS_GB(LB) / LB)]; \
                      nanrows = 0;                                                                 \
                  })                                                                               \
    }
#define ROW_RNG_VEC(S, RNG)                                                                        \
    {                                                                                              \
        vec_##S a0 = fill, a1 = fill, a2 = fill, a3 = fill;                                        \
        lmask nm = lm_zero();                                                                      \
        size_t i = 0;                                                                              \
        for (; i + 4 * E <= n; i += 4 * E) {                                                       \
            vec_##S x0 = ld_##S(p + i), x1 = ld_##S(p + i + E);                                    \
            vec_##S x2 = ld_##S(p + i + 2 * E), x3 = ld_##S(p + i + 3 * E);                        \
            KEEP(x0);                                                                              \
            KEEP(x1);                                                                              \
            KEEP(x2);                                                                              \
            KEEP(x3);                                                                              \
            nm = lm_or(nm, lm_or(nan_##S(x0, x1), nan_##S(x2, x3)));                               \
            a0 = RNG(a0, x0);                                                                      \
            a1 = RNG(a1, x1);                                                                      \
            a2 = RNG(a2, x2);                                                                      \
            a3 = RNG(a3, x3);                                                                      \
        }                                                                                          \
        for (; i < n; i += E) {                                                                    \
            vec_##S x0 = i + E <= n ? ld_##S(p + i) : ldn_##S(p + i, n - i, fill);                 \
            KEEP(x0);                                                                              \
            nm = lm_or(nm, nan_##S(x0, x0));                                                       \
            a0 = RNG(a0, x0);                                                                      \
        }                                                                                          \
        if (lm_any(nm))                                                                            \
            nanrows |= 1u << r;                                                                    \
        acc[r] = RNG(RNG(a0, a1), RNG(a2, a3));                                                    \
    }

/* ARG*: per row the chunk pass of DEF_ROW_ARG (best value and chunk per lane); then per batch
 * the rows' extremes, and per row the first (last) chunk whose lane holds its extreme, by
 * folds; only that chunk is searched. A row with a NaN goes to the row kernel ROWK. */
#define DEF_ROWS_ARG(NAME, ROWK, T, S, EXT, BEAT, LAST, FILL, FIELD)                               \
    DEF_TFOLD(NAME##_ext, S, EXT##_##S)                                                            \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t n, partial *out)           \
    {                                                                                              \
        enum { LB = sizeof(lane_##S), G = ROWS_G(LB) };                                            \
        const size_t E = EPV_##S, CH = ARG_CH * EPV_##S;                                           \
        const vec_##S fill = FILL##_##S();                                                         \
        vec_##S bests[G], ext[G];                                                                  \
        cvec_##S cids[G];                                                                          \
        unsigned nanrows = 0;                                                                      \
        if (n <= 4 * E) { /* the row kernel's short path is cheaper than the chunk pass */         \
            for (size_t r = 0; r < nrows; r++)                                                     \
                ROWK((const char *)xv + (ptrdiff_t)r * rs, n, 0, out + r);                         \
            return;                                                                                \
        }                                                                                          \
        ROWS_WALK(T, G, ROW_ARG_VECS(T, S, EXT, BEAT), ext[r] = fill;, ROWS_ARG_END(NAME, ROWK, T, S, LAST, FIELD)) \
    }
#define ROW_ARG_VECS(T, S, EXT, BEAT)                                                              \
    {                                                                                              \
        vec_##S best = fill;                                                                       \
        cvec_##S cid = cid_zero_##S(), kv = cid;                                                   \
        nzacc nz[4] = {nz_init(), nz_init(), nz_init(), nz_init()};                       \
        size_t k = 0;                                                                              \
        for (; (k + 1) * CH <= n; k++)                                                             \
            ARG_CHUNK(T, S, EXT, BEAT, CH);                                                        \
        if (k * CH < n)                                                                            \
            ARG_CHUNK(T, S, EXT, BEAT, n - k * CH);                                                \
        if (NAN_##S && nz_any_##S(nz_or(nz_or(nz[0], nz[1]), nz_or(nz[2], nz[3]))))                \
            nanrows |= 1u << r;                                                                    \
        bests[r] = ext[r] = best;                                                                  \
        cids[r] = cid;                                                                             \
    }
#define ROWS_ARG_END(NAME, ROWK, T, S, LAST, FIELD)                                                \
    {                                                                                              \
        lane_##S xt[EPV_##S];                                                                      \
        st_##S(xt, NAME##_ext(ext));                                                               \
        for (size_t r = 0; r < rn; r++) {                                                          \
            const T *p = (const T *)((const char *)xv + (ptrdiff_t)(r0 + r) * rs);                 \
            if (nanrows >> r & 1) {                                                                \
                ROWK(p, n, 0, out + r0 + r);                                                       \
                continue;                                                                          \
            }                                                                                      \
            const lane_##S x = xt[rows_slot(r, G) * (ROWS_GB(LB) / LB)];                           \
            const vec_##S ex = bc_##S(x);                                                          \
            const size_t k = cid_pick_##S(cids[r], eq_##S(bests[r], ex), LAST);                    \
            const T *q = p + k * CH;                                                               \
            const size_t cn = MIN_SZ(CH, n - k * CH);                                              \
            uint64_t b[ARG_CH];                                                                    \
            unsigned nz = 0;                                                                       \
            _Pragma("GCC unroll 16") for (int j = 0; j < ARG_CH; j++) {                            \
                uint64_t bj = bits_##S(eq_##S(ARG_LD(S, q, j, cn), ex)) & ARG_VALID(j, cn);        \
                __asm__("" : "+r"(bj)); /* not a vector compare of b reloaded: a stalled load */   \
                b[j] = bj;                                                                         \
                nz |= (unsigned)(bj != 0) << j;                                                    \
            }                                                                                      \
            out[r0 + r].v.FIELD = x;                                                               \
            out[r0 + r].aux.idx = k * CH + pick_bit_nb(b, nz, E, LAST);                            \
        }                                                                                          \
        nanrows = 0;                                                                               \
    }

/* The ARG* kernels of every kind and type, for the ISA files' tables: X(KIND, TYPE, ROW, COL, ARG,
 * T, suffix, extreme, test, LAST, fill, field), the kernels named with the suffix FREE_SFX that
 * the file defines (avx2, avx512, neon). */
#define FREE_PASTE_(a, b) a##b
#define FREE_PASTE(a, b) FREE_PASTE_(a, b)
#define FREE_ARG_ONE_(X, KIND, TYPE, ROW, COL, T, S, FIELD, ...)                                   \
    X(KIND, TYPE, ROW, COL, ARG, T, S, __VA_ARGS__, FIELD)
#define FREE_ARG_ONE(X, KIND, K, TYPE, T, S, FIELD, ...)                                           \
    FREE_ARG_ONE_(X, KIND, TYPE, FREE_PASTE(reduce_row_##K##_##S##_, FREE_SFX),                    \
                  FREE_PASTE(reduce_col_##K##_##S##_, FREE_SFX), T, S, FIELD, __VA_ARGS__)
#define FREE_ARG_TYPES(X, KIND, K, ...)                                                            \
    FREE_ARG_ONE(X, KIND, K, FLOAT32, float, f32, f32, __VA_ARGS__)                                \
    FREE_ARG_ONE(X, KIND, K, FLOAT16, uint16_t, f16, f32, __VA_ARGS__)                             \
    FREE_ARG_ONE(X, KIND, K, FLOAT64, double, f64, f64, __VA_ARGS__)                               \
    FREE_ARG_ONE(X, KIND, K, UINT32, uint32_t, u32, u64, __VA_ARGS__)                              \
    FREE_ARG_ONE(X, KIND, K, UINT16, uint16_t, u16, u64, __VA_ARGS__)                              \
    FREE_ARG_ONE(X, KIND, K, UINT8, uint8_t, u8, u64, __VA_ARGS__)                                 \
    FREE_ARG_ONE(X, KIND, K, INT32, int32_t, i32, i64, __VA_ARGS__)                                \
    FREE_ARG_ONE(X, KIND, K, INT16, int16_t, i16, i64, __VA_ARGS__)                                \
    FREE_ARG_ONE(X, KIND, K, INT8, int8_t, i8, i64, __VA_ARGS__)                                   \
    FREE_ARG_ONE(X, KIND, K, UINT64, uint64_t, u64, u64, __VA_ARGS__)                              \
    FREE_ARG_ONE(X, KIND, K, INT64, int64_t, i64, i64, __VA_ARGS__)
/* the kind adds extreme, test, LAST and fill */
#define FREE_ARG_KERNELS(X)                                                                        \
    FREE_ARG_TYPES(X, RK_ARGMAX, argmax, max, gt, 0, lo)                                           \
    FREE_ARG_TYPES(X, RK_ARGMAX_LAST, argmax_last, max, ge, 1, lo)                                 \
    FREE_ARG_TYPES(X, RK_ARGMIN, argmin, min, lt, 0, hi)                                           \
    FREE_ARG_TYPES(X, RK_ARGMIN_LAST, argmin_last, min, le, 1, hi)

#endif
