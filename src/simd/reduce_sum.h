/* The float sums in the canonical order of SPEC 4 (SUM, L1, SUM_SQUARE, MULTIPLY and the sum
 * inside LOG_SUM_EXP), written once against a small vector vocabulary that an ISA file defines
 * before including this header. Results are those of the scalar tier (generic/kernels_scalar.c:
 * DEF_ROW_CANON, DEF_COL_CANON, DEF_ROW_LSE, DEF_COL_LSE) bit for bit.
 *
 * The virtual vector of 64 f32 / 32 f64 lanes is SUM_NACC accumulator vectors a[0..SUM_NACC) of
 * EPV lanes, lane j in a[j / EPV], position j % EPV. A row kernel reads a block in chunks of
 * four consecutive vectors (4 EPV elements, EPV quads): quads_OP(a, b, c, d) turns a chunk into
 * the vector of its quads in canonical order, so chunk c holds the quads of lanes
 * EPV (c mod SUM_NACC).. and goes to a[c mod SUM_NACC]. The halving tree first combines whole
 * vectors (h = L/2 .. EPV), then runs inside the last one (tree_OP).
 *
 * Elements past the end of a group are the identity: a vector loaded in part holds fill where
 * elements are missing, MAP(fill) being the identity, and a quad wholly past the end is the
 * identity itself. Adding the identity to a lane leaves it unchanged (a lane starts at +0 and
 * only adds, so it is never -0; and x * 1 = x), so accumulators that took no quad may join the
 * tree or be skipped: the bits are the same.
 *
 * Vocabulary, for the accumulator suffix A (f32, f64) and the input suffix I (f32, f16, f64):
 *   vacc_A, sacc_A, EPV_A      the accumulator vector, its lane type, lanes per vector
 *   SUM_NACC                   vectors in the virtual vector (256 bytes / vector bytes)
 *   set1_A(s), add_A, mul_A, sub_A, max_A (IEEE maximum: NaN wins, -0 < +0)
 *   lda_A(p), sta_A(p, v)      EPV accumulators from / to memory (any alignment)
 *   ld_I(p)                    EPV elements as accumulators (FLOAT16 converts exactly)
 *   ldn_I(p, n, fill)          the first n < EPV elements, fill elsewhere, reading nothing else
 *   quads_add_A, quads_mul_A (a, b, c, d)   the EPV quads of 4 EPV consecutive elements
 *   tree_add_A, tree_mul_A (v) the halving tree inside one vector: lane 0 of it, as sacc_A
 *   rows_add_A, rows_mul_A (const vacc_A *v)   EPV rows' trees at once: row r's value in lane r
 *   narrow_add_A, narrow_mul_A (lane, a, b)   lane[0..EPV/2) op= quad of the four rows of EPV/2
 *                              columns held by a (rows 0, 1) and b (rows 2, 3)
 *   hmax_A(v)                  IEEE maximum over the lanes; exp_A(v) the tiers' exp, lanewise
 *   exp4st_A(e, EPV, a, b, c, d)   exp of four vectors, stored at e, EPV elements apart
 *   expq_A(q)                  exp of the four vectors q[0..4) in place
 *   or_A(a, b), unord_A(a, b)  bitwise or; all bits set in the lanes where a or b is NaN (or
 *                              zeros, when max_A returns NaN for a NaN operand)
 *   nanmask_A(v)               nonzero when a lane of v is NaN, as an unsigned
 *   duplo_A(v)                 the low EPV/2 lanes twice (the aux of two narrow rows)
 *   map_id_A, map_abs_A, map_sq_A (v)   the maps of SUM, L1 and SUM_SQUARE */
#ifndef DMLCPU_SIMD_REDUCE_SUM_H
#define DMLCPU_SIMD_REDUCE_SUM_H

#include <math.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "simd/col_short.h"
#include "simd/lse_col.h"
#include "simd/lse_row.h"

#include "kernels.h"

#define SUM_UNROLL _Pragma("GCC unroll 16")
#define SUM_LANES_f32 DMLCPU_LANES_F32
#define SUM_LANES_f64 DMLCPU_LANES_F64
#define SUM_BLOCK_f32 DMLCPU_BLOCK_F32
#define SUM_BLOCK_f64 DMLCPU_BLOCK_F64

/* ---- rows: steps 2-3 and the whole-vector steps of 4 over one block p[0..m), m <= 64 L ----
 * MAP(v) maps a loaded vector (it may use aux); the result is one vector of EPV lanes. The loop
 * over full rounds of SUM_NACC chunks keeps every accumulator in a register; the chunks left
 * over (fewer than SUM_NACC, the last one possibly partial) go to a[0], a[1], ... in order, and
 * only accumulators that took a quad join the tree. */
#define SUM_QUADS(q, I, A, MAP, OPN)                                                               \
    quads_##OPN##_##A(MAP(ld_##I(q)), MAP(ld_##I((q) + EPV_##A)), MAP(ld_##I((q) + 2 * EPV_##A)), \
                      MAP(ld_##I((q) + 3 * EPV_##A)))
/* One step of the halving tree over whole accumulators (constant bounds, so that the array
 * stays in registers); SUM_NACC is 16. */
#define SUM_TREE_STEP(OPN, A, H)                                                                   \
    SUM_UNROLL for (int i = 0; i < (H); i++) if ((size_t)(i + (H)) < used) a[i] = OPN##_##A(a[i], a[i + (H)]);
#define DEF_SUM_LANES(LNAME, T, I, A, MAP, OPN)                                                    \
    static inline __attribute__((always_inline)) vacc_##A LNAME(const T *p, size_t m,              \
                                                                vacc_##A id, vacc_##A fill,        \
                                                                vacc_##A aux)                      \
    {                                                                                              \
        (void)aux;                                                                                 \
        const size_t chunk = 4 * EPV_##A, full = m / chunk, rest = m % chunk;                      \
        vacc_##A a[SUM_NACC];                                                                      \
        SUM_UNROLL for (int r = 0; r < SUM_NACC; r++) a[r] = id;                                   \
        size_t c = 0;                                                                              \
        for (; c + SUM_NACC <= full; c += SUM_NACC) {                                              \
            const T *q = p + c * chunk;                                                            \
            SUM_UNROLL for (int r = 0; r < SUM_NACC; r++)                                          \
                a[r] = OPN##_##A(a[r], SUM_QUADS(q + r * chunk, I, A, MAP, OPN));                  \
        }                                                                                          \
        /* the quads of the partial chunk at index full (identity lanes where nothing is left) */ \
        vacc_##A t = id;                                                                           \
        if (rest) {                                                                                \
            const T *q = p + full * chunk;                                                         \
            vacc_##A v[4];                                                                         \
            for (size_t i = 0; i < 4; i++) {                                                       \
                size_t have = rest > i * EPV_##A ? rest - i * EPV_##A : 0;                         \
                v[i] = have >= EPV_##A ? MAP(ld_##I(q + i * EPV_##A))                              \
                       : have          ? MAP(ldn_##I(q + i * EPV_##A, have, fill))                 \
                                       : id;                                                       \
            }                                                                                      \
            t = quads_##OPN##_##A(v[0], v[1], v[2], v[3]);                                         \
        }                                                                                          \
        const T *q = p + c * chunk;                                                                \
        SUM_UNROLL for (int r = 0; r < SUM_NACC; r++) {                                            \
            if (c + r < full)                                                                      \
                a[r] = OPN##_##A(a[r], SUM_QUADS(q + r * chunk, I, A, MAP, OPN));                  \
            else if (c + r == full)                                                                \
                a[r] = OPN##_##A(a[r], t);                                                         \
        }                                                                                          \
        /* h = L/2 .. EPV: accumulator i with i + h; those past the last one used hold id */      \
        const size_t used = full + (rest != 0) < SUM_NACC ? full + (rest != 0) : SUM_NACC;          \
        SUM_TREE_STEP(OPN, A, 8)                                                                   \
        SUM_TREE_STEP(OPN, A, 4)                                                                   \
        SUM_TREE_STEP(OPN, A, 2)                                                                   \
        SUM_TREE_STEP(OPN, A, 1)                                                                   \
        return a[0];                                                                               \
    }

/* One partial per block of 64 L elements. */
#define DEF_SUM_ROW(NAME, LNAME, T, A, OPN, ID, FIELD)                                             \
    static void NAME(const void *xv, size_t n, uint64_t index_base, partial *out)                 \
    {                                                                                              \
        const T *x = xv;                                                                           \
        (void)index_base;                                                                          \
        const vacc_##A id = set1_##A(ID);                                                          \
        for (size_t b0 = 0; b0 < n; b0 += SUM_BLOCK_##A, out++) {                                  \
            size_t m = n - b0 < SUM_BLOCK_##A ? n - b0 : SUM_BLOCK_##A;                            \
            out->v.FIELD = tree_##OPN##_##A(LNAME(x + b0, m, id, id, id));                         \
        }                                                                                          \
    }

/* Many groups of one block each: the lanes of EPV rows, then their in-vector trees together.
 * Missing rows of the last batch are the identity. */
#define DEF_SUM_ROWS(NAME, LNAME, T, A, OPN, ID, FIELD)                                            \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t n, partial *out)          \
    {                                                                                              \
        const vacc_##A id = set1_##A(ID);                                                          \
        for (size_t r0 = 0; r0 < nrows; r0 += EPV_##A) {                                           \
            vacc_##A v[EPV_##A];                                                                   \
            for (size_t i = 0; i < EPV_##A; i++)                                                   \
                v[i] = r0 + i < nrows                                                              \
                           ? LNAME((const T *)((const char *)xv + (ptrdiff_t)(r0 + i) * rs), n,    \
                                   id, id, id)                                                     \
                           : id;                                                                   \
            sacc_##A s[EPV_##A];                                                                   \
            sta_##A(s, rows_##OPN##_##A(v));                                                       \
            for (size_t i = 0; i < EPV_##A && r0 + i < nrows; i++)                                 \
                out[r0 + i].v.FIELD = s[i];                                                        \
        }                                                                                          \
    }

/* ---- columns ----
 * lane[j][k] is lane j of column k, in the caller's scratch with rows of DMLCPU_COL_PITCH(K)
 * accumulators (so a last vector of rem < EPV columns stays inside a lane row). K columns are
 * nfull vectors, then one of rem columns if rem > 0. Four rows are added in registers, then
 * their quad goes into its lane: the lanes see a quarter of the input's traffic. AUX(o) is the
 * aux vector of columns o.. . A last quad of 1..3 rows has the identity for missing rows. */
#define COL_QUAD(OPN, A, e0, e1, e2, e3) OPN##_##A(OPN##_##A(e0, e1), OPN##_##A(e2, e3))
#define SUM_COL_LANES(T, I, A, MAP, OPN, AUX)                                                      \
    const size_t nfull = K / EPV_##A, rem = K % EPV_##A, nv = nfull + (rem != 0);                  \
    /* lanes past the last quad stay the identity and the tree skips them */                     \
    const size_t used = (nrows + 3) / 4 < SUM_LANES_##A ? (nrows + 3) / 4 : SUM_LANES_##A;         \
    for (size_t j = 0; j < used; j++)                                                              \
        for (size_t v = 0; v < nv; v++)                                                            \
            sta_##A(&lane[j][v * EPV_##A], id);                                                    \
    size_t r0 = 0;                                                                                 \
    if (2 * K == EPV_##A && rs == (ptrdiff_t)(K * sizeof(T))) {                                    \
        /* narrow contiguous rows (EPV/2 columns): one vector holds two rows */                   \
        const vacc_##A aux = duplo_##A(AUX(0));                                                    \
        (void)aux;                                                                                 \
        for (; r0 + 4 <= nrows; r0 += 4) {                                                         \
            const T *r_0 = (const T *)(x + (ptrdiff_t)r0 * rs);                                    \
            narrow_##OPN##_##A(lane[(r0 / 4) % SUM_LANES_##A], MAP(ld_##I(r_0)), MAP(ld_##I(r_0 + 2 * K))); \
        }                                                                                          \
    }                                                                                              \
    for (; r0 + 4 <= nrows; r0 += 4) {                                                             \
        const T *r_0 = (const T *)(x + (ptrdiff_t)r0 * rs);                                        \
        const T *r_1 = (const T *)((const char *)r_0 + rs);                                        \
        const T *r_2 = (const T *)((const char *)r_1 + rs);                                        \
        const T *r_3 = (const T *)((const char *)r_2 + rs);                                        \
        sacc_##A *ln = lane[(r0 / 4) % SUM_LANES_##A];                                                     \
        size_t o = 0;                                                                              \
        for (; o < nfull * EPV_##A; o += EPV_##A) {                                                \
            const vacc_##A aux = AUX(o);                                                           \
            (void)aux;                                                                             \
            sta_##A(ln + o, OPN##_##A(lda_##A(ln + o),                                             \
                                      COL_QUAD(OPN, A, MAP(ld_##I(r_0 + o)), MAP(ld_##I(r_1 + o)), \
                                               MAP(ld_##I(r_2 + o)), MAP(ld_##I(r_3 + o)))));      \
        }                                                                                          \
        if (rem) {                                                                                 \
            const vacc_##A aux = AUX(o);                                                           \
            (void)aux;                                                                             \
            sta_##A(ln + o, OPN##_##A(lda_##A(ln + o),                                             \
                                      COL_QUAD(OPN, A, MAP(ldn_##I(r_0 + o, rem, fill)),           \
                                               MAP(ldn_##I(r_1 + o, rem, fill)),                   \
                                               MAP(ldn_##I(r_2 + o, rem, fill)),                   \
                                               MAP(ldn_##I(r_3 + o, rem, fill)))));                \
        }                                                                                          \
    }                                                                                              \
    if (r0 < nrows) {                                                                              \
        const size_t have = nrows - r0;                                                            \
        sacc_##A *ln = lane[(r0 / 4) % SUM_LANES_##A];                                                     \
        for (size_t v = 0; v < nv; v++) {                                                          \
            const size_t o = v * EPV_##A;                                                          \
            const vacc_##A aux = AUX(o);                                                           \
            (void)aux;                                                                             \
            vacc_##A e[4];                                                                         \
            for (size_t i = 0; i < 4; i++) {                                                       \
                const T *r = (const T *)(x + (ptrdiff_t)(r0 + (i < have ? i : 0)) * rs);           \
                e[i] = i >= have ? id : v < nfull ? MAP(ld_##I(r + o)) : MAP(ldn_##I(r + o, rem, fill)); \
            }                                                                                      \
            sta_##A(ln + o, OPN##_##A(lda_##A(ln + o), COL_QUAD(OPN, A, e[0], e[1], e[2], e[3])));  \
        }                                                                                          \
    }                                                                                              \
    for (size_t h = SUM_LANES_##A / 2; h >= 1; h /= 2)                                                     \
        for (size_t i = 0; i < h && i + h < used; i++)                                             \
            for (size_t v = 0; v < nv; v++)                                                        \
                sta_##A(&lane[i][v * EPV_##A],                                                     \
                        OPN##_##A(lda_##A(&lane[i][v * EPV_##A]), lda_##A(&lane[i + h][v * EPV_##A])));

#define SUM_NO_AUX(o) id
/* the short-block body's tail loads (simd/col_short.h) */
#define COL_SHORT_LDN_f32(p) ldn_f32(p, rem, fill)
#define COL_SHORT_LDN_f16(p) ldn_f16(p, rem, fill)
#define COL_SHORT_LDN_f64(p) ldn_f64(p, rem, fill)
#define DEF_SUM_COL(NAME, T, I, A, MAP, OPN, ID, FIELD)                                            \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base,   \
                     partial *out, void *scratch)                                                  \
    {                                                                                              \
        const char *x = xv;                                                                        \
        (void)index_base;                                                                          \
        sacc_##A(*lane)[DMLCPU_COL_PITCH(K)] = scratch;                                            \
        const vacc_##A id = set1_##A(ID), fill = id;                                               \
        if (nrows <= 4 * SUM_LANES_##A && (index_base & DMLCPU_COL_SMALL)) {                       \
            const size_t nfull = K / EPV_##A, rem = K % EPV_##A, nv = nfull + (rem != 0);          \
            COL_SHORT(vacc_##A, sacc_##A, EPV_##A, T, ld_##I, COL_SHORT_LDN_##I,    \
                      MAP, OPN##_##A, id, FIELD);                                                  \
            return;                                                                                \
        }                                                                                          \
        SUM_COL_LANES(T, I, A, MAP, OPN, SUM_NO_AUX)                                               \
        for (size_t k = 0; k < K; k++)                                                             \
            out[k].v.FIELD = lane[0][k];                                                           \
    }

/* Row, multi-row and column kernels of one kind and input type. */
#define DEF_SUMS(ROW, ROWS, COL, LNAME, T, I, A, MAP, OPN, ID, FIELD)                              \
    DEF_SUM_LANES(LNAME, T, I, A, MAP, OPN)                                                        \
    DEF_SUM_ROW(ROW, LNAME, T, A, OPN, ID, FIELD)                                                  \
    DEF_SUM_ROWS(ROWS, LNAME, T, A, OPN, ID, FIELD)                                                \
    DEF_SUM_COL(COL, T, I, A, MAP, OPN, ID, FIELD)

/* ---- LOG_SUM_EXP: block max m, then the canonical block sum of exp(x - m) ----
 * max_A and hmax_A are IEEE maximum (a NaN anywhere gives NaN, -0 < +0), so m is the scalar
 * tier's max754 fold. With m finite, exp(x - m) is in [0, 1] and no term is NaN; elements
 * missing from a partial load are -inf, whose exp(-inf - m) = 0 is the identity. */
#define MAP_EXPSUB_f32(v) exp_f32(sub_f32(v, aux))
#define MAP_EXPSUB_f64(v) exp_f64(sub_f64(v, aux))

/* Row form: simd/lse_row.h, the block loop the x86 tiers share (the maximum, then exp(x - m) of
 * the block into an L1-resident buffer in lockstep fours while the next block is prefetched, and
 * the buffer's canonical sum by ELANES, the sum lanes of the accumulator type). */
#define LSE_LDN_f32(p, k) ldn_f32(p, k, set1_f32(-INFINITY))
#define LSE_LDN_f16(p, k) ldn_f16(p, k, set1_f32(-INFINITY))
#define LSE_LDN_f64(p, k) ldn_f64(p, k, set1_f64(-INFINITY))
#define LSE_TREE_f32(e, m, ELANES, z) tree_add_f32(ELANES(e, m, z, z, z))
#define LSE_TREE_f64(e, m, ELANES, z) tree_add_f64(ELANES(e, m, z, z, z))
#define DEF_LSE_ROW(NAME, ELANES, T, I, A, FIELD)                                                  \
    static void NAME(const void *xv, size_t n, uint64_t index_base, partial *out)                 \
    {                                                                                              \
        const T *x = xv;                                                                           \
        (void)index_base;                                                                          \
        const vacc_##A zero = set1_##A(0);                                                         \
        LSE_ROW_BLOCKS(T, vacc_##A, sacc_##A, EPV_##A, SUM_LANES_##A, 64, ld_##I, LSE_LDN_##I,     \
                       lda_##A, sta_##A, max_##A, sub_##A, set1_##A, hmax_##A, exp_##A,            \
                       exp4st_##A, nanmask_##A, FIELD, LSE_TREE_##A, ELANES, zero);                \
    }

/* Column form: rows of a line or more take the walk of simd/lse_col.h (the x86 tiers' too):
 * sub-tiles whose maxima are read while the previous sub-tile's exps run, so that the tile is read
 * once from memory. Narrower rows: the column maxima first, kept in mcol (the first
 * DMLCPU_COL_PITCH(K) accumulators of the scratch, the lanes follow), four rows at a time (a
 * missing row repeats the first: max is idempotent); then the lane loop with aux = the columns'
 * maxima. Columns whose m is not finite (and lanes past K) get terms that are never used: their aux
 * is 0. */
#define LSE_AUX_f32(o) lda_f32(mcol + (o))
#define LSE_AUX_f64(o) lda_f64(mcol + (o))
#define LSE_LDT_f32(p) ldn_f32(p, K % EPV_f32, set1_f32(-INFINITY))
#define LSE_LDT_f16(p) ldn_f16(p, K % EPV_f32, set1_f32(-INFINITY))
#define LSE_LDT_f64(p) ldn_f64(p, K % EPV_f64, set1_f64(-INFINITY))
#define DEF_LSE_COL(NAME, T, I, A, FIELD)                                                          \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base,   \
                     partial *out, void *scratch)                                                  \
    {                                                                                              \
        const char *x = xv;                                                                        \
        (void)index_base;                                                                          \
        if (K * sizeof(T) >= 64) { /* simd/lse_col.h where the rows hold a line */               \
            LSE_COL_WALK(T, vacc_##A, sacc_##A, EPV_##A, SUM_LANES_##A, ld_##I, LSE_LDT_##I,       \
                         add_##A, sub_##A, max_##A, or_##A, unord_##A, set1_##A, sta_##A,          \
                         expq_##A, FIELD);                                                         \
            return;                                                                                \
        }                                                                                          \
        sacc_##A *mcol = scratch;                                                                  \
        sacc_##A(*lane)[DMLCPU_COL_PITCH(K)] = (void *)(mcol + DMLCPU_COL_PITCH(K));               \
        const vacc_##A id = set1_##A(0), fill = set1_##A(-INFINITY);                               \
        {                                                                                          \
            const size_t nfull = K / EPV_##A, rem = K % EPV_##A, nv = nfull + (rem != 0);          \
            for (size_t v = 0; v < nv; v++)                                                        \
                sta_##A(mcol + v * EPV_##A, fill);                                                 \
            for (size_t i0 = 0; i0 < nrows; i0 += 4) {                                             \
                const T *r[4];                                                                     \
                for (size_t i = 0; i < 4; i++)                                                     \
                    r[i] = (const T *)(x + (ptrdiff_t)(i0 + (i0 + i < nrows ? i : 0)) * rs);       \
                for (size_t v = 0; v < nv; v++) {                                                  \
                    const size_t o = v * EPV_##A;                                                  \
                    vacc_##A e[4];                                                                 \
                    for (size_t i = 0; i < 4; i++)                                                 \
                        e[i] = v < nfull ? ld_##I(r[i] + o) : ldn_##I(r[i] + o, rem, fill);        \
                    sta_##A(mcol + o, max_##A(lda_##A(mcol + o),                                   \
                                              max_##A(max_##A(e[0], e[1]), max_##A(e[2], e[3])))); \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        SUM_COL_LANES(T, I, A, MAP_EXPSUB_##A, add, LSE_AUX_##A)                                   \
        for (size_t k = 0; k < K; k++) {                                                           \
            out[k].v.FIELD = mcol[k];                                                              \
            out[k].aux.FIELD = isfinite(mcol[k]) ? lane[0][k] : 0;                                 \
        }                                                                                          \
    }

#endif
