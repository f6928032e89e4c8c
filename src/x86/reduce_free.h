/* Order-free reductions (integer sums, MIN/MAX, ARG*) for the x86 tiers: the kernel bodies,
 * written once against a small vector vocabulary that each ISA file defines before including
 * this header. Results and partials are those of the scalar tier (DEF_ROW_FOLD, DEF_COL_FOLD,
 * DEF_ROW_ARG, DEF_COL_ARG): one partial per DMLCPU_BLOCK_FREE elements of a row, one per column.
 *
 * Vocabulary, for every data type suffix S (i8 u8 i16 u16 i32 u32 i64 u64 f16 f32 f64):
 *   vec_S, lane_S        the vector and the C type of one of its lanes (float for f16)
 *   iv_S, ix_S           a vector of lane indexes (row numbers < 2^16) and its stored lane type
 *   EPV_S, NAN_S         lanes per vector; 1 if the type has NaNs
 *   ld_S(p)              EPV_S elements; ldn_S(p, n, fill): the first n < EPV_S, fill elsewhere,
 *                        reading nothing past p + n
 *   st_S(d, v)           stores all lanes; lane0_S(v) is lane 0
 *   lo_S(), hi_S()       the lowest / highest value (-inf / +inf for floats); qnan_S() a NaN
 *   max_S, min_S         lanewise (for floats: either operand when one is NaN or both are zero)
 *   hmax_S, hmin_S       max / min over the lanes, broadcast to every lane
 *   gt_S ge_S lt_S le_S eq_S (a, b)  lane masks, false where a lane is NaN
 *   nan_S(a, b)          lanes where a or b is NaN; blend_S(m, a, b): b where m, a elsewhere
 *   bits_S(m)            one bit per lane; valid_S(n): the first n lanes
 *   bi_S(v), ib_S(i)     the lanes' bits as an integer vector and back
 *   izero_S(), iblend_S(iv, m, r), ist_S(d, iv)   index vectors
 * and per ISA: lmask with lm_zero, lm_or, lm_and, lm_andn (a and not b), lm_any. */
#ifndef DMLCPU_X86_REDUCE_FREE_H
#define DMLCPU_X86_REDUCE_FREE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels.h"

#define MIN_SZ(a, b) ((a) < (b) ? (a) : (b))
#define UNROLL4 _Pragma("GCC unroll 4")

static inline uint64_t first_lanes(size_t n) { return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1; }

/* Broadcast reduction over the lanes: swap halves, then quarters, ... down to one lane of LB
 * bytes. SWAP(v, d) exchanges neighbouring groups of d bytes of an integer vector. */
#define DEF_HRED(NAME, S, OP, LB, VB, SWAP)                                                        \
    static inline vec_##S NAME(vec_##S v)                                                          \
    {                                                                                              \
        _Pragma("GCC unroll 8") for (int d_ = (VB) / 2; d_ >= (LB); d_ /= 2)                       \
            v = OP(v, ib_##S(SWAP(bi_##S(v), d_)));                                                \
        return v;                                                                                  \
    }

/* ---- integer sums and integer MIN/MAX: ID() is the identity, MAP and OP work lanewise, RED
 * broadcasts OP over the lanes. ---- */

#define DEF_ROW_FOLD(NAME, T, S, ID, MAP, OP, RED, FIELD)                                          \
    static void NAME(const void *xv, size_t n, uint64_t index_base, partial *out)                 \
    {                                                                                              \
        const T *x = xv;                                                                           \
        const size_t E = EPV_##S;                                                                  \
        const vec_##S id = ID();                                                                   \
        (void)index_base;                                                                          \
        for (size_t b0 = 0; b0 < n; b0 += DMLCPU_BLOCK_FREE, out++) {                              \
            const size_t m = MIN_SZ(n - b0, DMLCPU_BLOCK_FREE);                                    \
            const T *p = x + b0;                                                                   \
            vec_##S a0 = id, a1 = id, a2 = id, a3 = id;                                            \
            size_t i = 0;                                                                          \
            for (; i + 4 * E <= m; i += 4 * E) {                                                   \
                a0 = OP(a0, MAP(ld_##S(p + i)));                                                   \
                a1 = OP(a1, MAP(ld_##S(p + i + E)));                                               \
                a2 = OP(a2, MAP(ld_##S(p + i + 2 * E)));                                           \
                a3 = OP(a3, MAP(ld_##S(p + i + 3 * E)));                                           \
            }                                                                                      \
            for (; i + E <= m; i += E)                                                             \
                a0 = OP(a0, MAP(ld_##S(p + i)));                                                   \
            if (i < m)                                                                             \
                a1 = OP(a1, MAP(ldn_##S(p + i, m - i, id)));                                       \
            out->v.FIELD = lane0_##S(RED(OP(OP(a0, a1), OP(a2, a3))));                             \
        }                                                                                          \
    }

/* Column shapes: groups of 8 rows; per group every vector of the tile (up to DMLCPU_COL_TILE
 * columns, so each row is read in long stretches), with the running values in the scratch
 * buffer. BODY(..., LD) handles vector v of the group's rows; LD is COL_FULL for whole vectors,
 * COL_PART for the tile's last, partial one. Rows 16 ahead (at least 1 KiB) are prefetched. */
#define COL_FULL(S, p, cn, fill) ld_##S(p)
#define COL_PART(S, p, cn, fill) ldn_##S(p, cn, fill)
#define COL_AT(T, i) ((const T *)(rb + (ptrdiff_t)(i) * rs) + v * E)
#define COL_WALK(BODY, ...)                                                                        \
    do {                                                                                           \
        const size_t nvf = K / E;                                                                  \
        const ptrdiff_t pf = 16 * rs > 1024 ? 16 * rs : 1024;                                      \
        const size_t pstep = rs >= 64 ? 1 : 8;                                                     \
        for (size_t r0 = 0; r0 < nrows; r0 += 8) {                                                 \
            const size_t rn = MIN_SZ(8, nrows - r0);                                               \
            const char *rb = x + (ptrdiff_t)r0 * rs;                                               \
            for (size_t i = 0; i < rn; i += pstep)                                                 \
                _mm_prefetch(rb + (ptrdiff_t)i * rs + pf, _MM_HINT_T0);                            \
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
#define DEF_COL_FOLD(NAME, T, S, ID, MAP, OP, RED, FIELD)                                          \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base,   \
                     partial *out, void *scratch)                                                  \
    {                                                                                              \
        const char *x = xv;                                                                        \
        const size_t E = EPV_##S, nv = (K + E - 1) / E;                                            \
        const vec_##S id = ID();                                                                   \
        vec_##S *acc = scratch;                                                                    \
        (void)index_base;                                                                          \
        for (size_t v = 0; v < nv; v++)                                                            \
            acc[v] = id;                                                                           \
        COL_WALK(COL_FOLD_BODY, T, S, MAP, OP);                                                    \
        for (size_t v = 0; v * E < K; v++) {                                                       \
            lane_##S t[EPV_##S];                                                                   \
            st_##S(t, acc[v]);                                                                     \
            for (size_t k = v * E; k < K && k < (v + 1) * E; k++)                                  \
                out[k].v.FIELD = t[k - v * E];                                                     \
        }                                                                                          \
    }
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

/* ---- MIN / MAX of floats (IEEE 754-2019: any NaN gives NaN, -0 < +0), on the bits as integers:
 * non-negative floats order like their bits as signed integers and lie above every negative;
 * negative floats order in reverse of their bits. MAX keeps the signed max (the answer when it is
 * >= 0), the signed min (the answer when everything is negative) and the unsigned max; MIN keeps
 * the unsigned max (the answer when something is negative), the unsigned min and the signed max.
 * A NaN shows as a signed max above +inf's bits or an unsigned max above -inf's. ---- */

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
#define DEF_ROW_FMM(NAME, T, S, FILL, O1, S1, O2, S2, O3, S3, RES, FIELD)                          \
    static void NAME(const void *xv, size_t n, uint64_t index_base, partial *out)                 \
    {                                                                                              \
        const T *x = xv;                                                                           \
        const size_t E = EPV_##S;                                                                  \
        const vec_##S fill = FILL##_##S();                                                         \
        (void)index_base;                                                                          \
        for (size_t b0 = 0; b0 < n; b0 += DMLCPU_BLOCK_FREE, out++) {                              \
            const size_t m = MIN_SZ(n - b0, DMLCPU_BLOCK_FREE);                                    \
            const T *p = x + b0;                                                                   \
            vec_##S1 a1 = bi_##S(fill), a2 = a1, a3 = a1;                                          \
            size_t i = 0;                                                                          \
            for (; i + 4 * E <= m; i += 4 * E) {                                                   \
                vec_##S1 x0 = bi_##S(ld_##S(p + i)), x1 = bi_##S(ld_##S(p + i + E));               \
                vec_##S1 x2 = bi_##S(ld_##S(p + i + 2 * E)), x3 = bi_##S(ld_##S(p + i + 3 * E));   \
                a1 = O1##_##S1(a1, O1##_##S1(O1##_##S1(x0, x1), O1##_##S1(x2, x3)));               \
                a2 = O2##_##S2(a2, O2##_##S2(O2##_##S2(x0, x1), O2##_##S2(x2, x3)));               \
                a3 = O3##_##S3(a3, O3##_##S3(O3##_##S3(x0, x1), O3##_##S3(x2, x3)));               \
            }                                                                                      \
            for (; i < m; i += E) {                                                                \
                vec_##S1 x0 = bi_##S(i + E <= m ? ld_##S(p + i) : ldn_##S(p + i, m - i, fill));    \
                a1 = O1##_##S1(a1, x0);                                                            \
                a2 = O2##_##S2(a2, x0);                                                            \
                a3 = O3##_##S3(a3, x0);                                                            \
            }                                                                                      \
            out->v.FIELD = RES(lane0_##S1(h##O1##_##S1(a1)), lane0_##S2(h##O2##_##S2(a2)),         \
                               lane0_##S3(h##O3##_##S3(a3)));                                      \
        }                                                                                          \
    }

#define DEF_COL_FMM(NAME, T, S, FILL, O1, S1, O2, S2, O3, S3, RES, FIELD)                          \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base,   \
                     partial *out, void *scratch)                                                  \
    {                                                                                              \
        const char *x = xv;                                                                        \
        const size_t E = EPV_##S, nv = (K + E - 1) / E;                                            \
        const vec_##S fill = FILL##_##S();                                                         \
        vec_##S1 *a1 = scratch, *a2 = a1 + nv, *a3 = a2 + nv;                                      \
        (void)index_base;                                                                          \
        for (size_t v = 0; v < nv; v++)                                                            \
            a1[v] = a2[v] = a3[v] = bi_##S(fill);                                                  \
        COL_WALK(COL_FMM_BODY, T, S, O1, S1, O2, S2, O3, S3);                                      \
        for (size_t v = 0; v * E < K; v++) {                                                       \
            lane_##S1 t1[EPV_##S];                                                                 \
            lane_##S2 t2[EPV_##S];                                                                 \
            lane_##S3 t3[EPV_##S];                                                                 \
            st_##S1(t1, a1[v]);                                                                    \
            st_##S2(t2, a2[v]);                                                                    \
            st_##S3(t3, a3[v]);                                                                    \
            for (size_t k = v * E; k < K && k < (v + 1) * E; k++)                                  \
                out[k].v.FIELD = RES(t1[k - v * E], t2[k - v * E], t3[k - v * E]);                \
        }                                                                                          \
    }
#define COL_FMM_BODY(T, S, O1, S1, O2, S2, O3, S3, LD)                                             \
    vec_##S1 c1 = a1[v], c2 = a2[v], c3 = a3[v];                                                   \
    for (size_t i = 0; i < rn; i++) {                                                              \
        const vec_##S1 x0 = bi_##S(LD(S, COL_AT(T, i), cn, fill));                                 \
        c1 = O1##_##S1(c1, x0);                                                                    \
        c2 = O2##_##S2(c2, x0);                                                                    \
        c3 = O3##_##S3(c3, x0);                                                                    \
    }                                                                                              \
    a1[v] = c1;                                                                                    \
    a2[v] = c2;                                                                                    \
    a3[v] = c3;

/* ---- ARGMIN / ARGMAX. EXT is max or min, BEAT the test "a replaces b" between numbers (gt or
 * lt; ge or le for the LAST kinds, which take the latest of equal values), FILL the value that
 * never replaces anything (lo for ARGMAX, hi for ARGMIN). NaN is more extreme than any number.
 *
 * Rows: per chunk of four vectors, the lanewise extreme and a NaN test. Only when the chunk holds
 * a NaN, or its extreme beats (LAST: ties) the best so far, is the chunk searched, in registers:
 * the extreme over its lanes, then its first (LAST: last) position. A FIRST kind stops at the
 * first NaN. ---- */

/* Position of the first (last) set bit among four lane masks of E lanes each. */
static inline size_t pick_bit4(const uint64_t b[4], size_t E, int last)
{
    if (!last) {
        for (size_t j = 0; j < 3; j++)
            if (b[j])
                return j * E + (size_t)__builtin_ctzll(b[j]);
        return 3 * E + (size_t)__builtin_ctzll(b[3]);
    }
    for (size_t j = 3; j > 0; j--)
        if (b[j])
            return j * E + 63 - (size_t)__builtin_clzll(b[j]);
    return 63 - (size_t)__builtin_clzll(b[0]);
}

#define ARG_LD(S, q, j, cn, fill)                                                                  \
    ((cn) >= ((j) + 1) * E ? ld_##S((q) + (j) * E)                                                 \
     : (cn) > (j) * E      ? ldn_##S((q) + (j) * E, (cn) - (j) * E, fill)                          \
                           : (fill))
#define ARG_VALID(j, cn) ((cn) > (j) * E ? first_lanes(MIN_SZ(E, (cn) - (j) * E)) : 0)

#define ARG_CHUNK(S, EXT, BEAT, LAST, q, c, cnt)                                                   \
    do {                                                                                           \
        const size_t cn_ = (cnt);                                                                  \
        const vec_##S v_[4] = {ARG_LD(S, q, 0, cn_, fill), ARG_LD(S, q, 1, cn_, fill),             \
                               ARG_LD(S, q, 2, cn_, fill), ARG_LD(S, q, 3, cn_, fill)};            \
        uint64_t b_[4];                                                                            \
        if (NAN_##S && lm_any(lm_or(nan_##S(v_[0], v_[1]), nan_##S(v_[2], v_[3])))) {              \
            UNROLL4 for (int j = 0; j < 4; j++) b_[j] = bits_##S(nan_##S(v_[j], v_[j]));           \
            at = (c) + pick_bit4(b_, E, LAST);                                                     \
            best = qnan_##S();                                                                     \
            if (!(LAST))                                                                           \
                goto block_done;                                                                   \
        } else {                                                                                   \
            const vec_##S e_ = EXT##_##S(EXT##_##S(v_[0], v_[1]), EXT##_##S(v_[2], v_[3]));        \
            if (lm_any(BEAT##_##S(e_, best))) {                                                    \
                best = h##EXT##_##S(e_);                                                           \
                UNROLL4 for (int j = 0; j < 4; j++)                                                \
                    b_[j] = bits_##S(eq_##S(v_[j], best)) & ARG_VALID(j, cn_);                     \
                at = (c) + pick_bit4(b_, E, LAST);                                                 \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#define DEF_ROW_ARG(NAME, T, S, EXT, BEAT, LAST, FILL, FIELD)                                      \
    static void NAME(const void *xv, size_t n, uint64_t index_base, partial *out)                 \
    {                                                                                              \
        const T *x = xv;                                                                           \
        const size_t E = EPV_##S;                                                                  \
        const vec_##S fill = FILL##_##S();                                                         \
        for (size_t b0 = 0; b0 < n; b0 += DMLCPU_BLOCK_FREE, out++) {                              \
            const size_t m = MIN_SZ(n - b0, DMLCPU_BLOCK_FREE);                                    \
            const T *p = x + b0;                                                                   \
            vec_##S best = fill;                                                                   \
            size_t at = 0, c = 0;                                                                  \
            for (; c + 4 * E <= m; c += 4 * E)                                                     \
                ARG_CHUNK(S, EXT, BEAT, LAST, p + c, c, 4 * E);                                    \
            if (c < m)                                                                             \
                ARG_CHUNK(S, EXT, BEAT, LAST, p + c, c, m - c);                                    \
        block_done:                                                                                \
            out->v.FIELD = lane0_##S(best);                                                        \
            out->aux.idx = index_base + b0 + at;                                                   \
        }                                                                                          \
    }

/* Columns: best value and row index per lane. Per group of 8 rows, the lanewise extreme and a
 * NaN test decide whether any lane can change; only then are the rows replayed one by one with
 * the exact rule (blend value and index where the row's lane wins). */
#define ARG_BETTER(S, BEAT, LAST, xv, b)                                                           \
    (NAN_##S ? lm_or(BEAT##_##S(xv, b),                                                            \
                     (LAST) ? nan_##S(xv, xv) : lm_andn(nan_##S(xv, xv), nan_##S(b, b)))           \
             : BEAT##_##S(xv, b))
#define COL_ARG_BODY(T, S, EXT, BEAT, LAST, LD)                                                    \
    vec_##S b = bv[v];                                                                             \
    int need = 1;                                                                                  \
    if (rn == 8) {                                                                                 \
        vec_##S e = fill;                                                                          \
        lmask nm = lm_zero();                                                                      \
        UNROLL4 for (int i = 0; i < 8; i += 2) {                                                   \
            const vec_##S x0 = LD(S, COL_AT(T, i), cn, fill), x1 = LD(S, COL_AT(T, i + 1), cn, fill); \
            if (NAN_##S)                                                                           \
                nm = lm_or(nm, nan_##S(x0, x1));                                                   \
            e = EXT##_##S(e, EXT##_##S(x0, x1));                                                   \
        }                                                                                          \
        need = lm_any(lm_and(lm_or(nm, BEAT##_##S(e, b)), valid_##S(cn)));                         \
    }                                                                                              \
    if (need) {                                                                                    \
        iv_##S ix = iv[v];                                                                         \
        for (size_t i = 0; i < rn; i++) {                                                          \
            const vec_##S xi = LD(S, COL_AT(T, i), cn, fill);                                      \
            const lmask w = ARG_BETTER(S, BEAT, LAST, xi, b);                                      \
            b = blend_##S(w, b, xi);                                                               \
            ix = iblend_##S(ix, w, r0 + i);                                                        \
        }                                                                                          \
        bv[v] = b;                                                                                 \
        iv[v] = ix;                                                                                \
    }

#define DEF_COL_ARG(NAME, T, S, EXT, BEAT, LAST, FILL, FIELD)                                      \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base,   \
                     partial *out, void *scratch)                                                  \
    {                                                                                              \
        const char *x = xv;                                                                        \
        const size_t E = EPV_##S, nv = (K + E - 1) / E;                                            \
        const vec_##S fill = FILL##_##S();                                                         \
        vec_##S *bv = scratch;                                                                     \
        iv_##S *iv = (iv_##S *)(bv + nv);                                                          \
        for (size_t v = 0; v < nv; v++) {                                                          \
            bv[v] = fill;                                                                          \
            iv[v] = izero_##S();                                                                   \
        }                                                                                          \
        COL_WALK(COL_ARG_BODY, T, S, EXT, BEAT, LAST);                                             \
        for (size_t v = 0; v * E < K; v++) {                                                       \
            lane_##S t[EPV_##S];                                                                   \
            ix_##S ti[EPV_##S];                                                                    \
            st_##S(t, bv[v]);                                                                      \
            ist_##S(ti, iv[v]);                                                                    \
            for (size_t k = v * E; k < K && k < (v + 1) * E; k++) {                                \
                out[k].v.FIELD = t[k - v * E];                                                     \
                out[k].aux.idx = index_base + ti[k - v * E];                                       \
            }                                                                                      \
        }                                                                                          \
    }

#endif
