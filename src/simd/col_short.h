/* Column sums of short blocks, written once for the vector tiers (x86/reduce_avx2.c,
 * x86/reduce_avx512.c, arm/reduce_neon.c): a block of at most 4 L rows (L lanes of SPEC 4: 64
 * f32 / 32 f64), where each lane takes at most one quad, of an operator whose whole input is
 * small (DMLCPU_COL_SMALL, kernels.h).
 *
 * The lane-array kernels keep L lanes per column of the tile (up to DMLCPU_COL_TILE columns) in
 * the caller's scratch: set to the identity, each quad folded in, then the halving tree. With one
 * quad per lane those passes over the lane array move about as many bytes as the block itself:
 * 256 x 512 FLOAT32 summed over axis 0 writes 128 KiB of lanes, reads them back and runs the
 * tree through them, for 512 KiB of input, all in L2. Here the columns go in passes of
 * COL_SHORT_NV vectors (256 bytes of each FLOAT32 row) whose lanes, L x COL_SHORT_NV vectors
 * (16 KiB), stay in L1: each lane is id op its quad, then the same halving tree over the lanes
 * used. Measured on 256 x 512 FLOAT32 over axis 0 (input in L2): 16.6 -> 11.0 us (best of 200).
 *
 * Only for small operators: on a block streamed from memory the 256-byte pieces of many rows
 * defeat the hardware prefetchers (256 x 65536 FLOAT32 over axis 0: 3.7 -> 6.2 ms), and software
 * prefetching the next pass made the in-cache case slower (11 -> 16 us) without recovering it.
 *
 * Bits: a lane past the last quad is the identity and the tree skips it, as in the lane-array
 * kernels (x op id = x: a lane starts at +0 and only adds, so it is never -0; x * 1 = x); the
 * tree's operand order is theirs, the lower lane on the left.
 *
 * Parameters: V the vector type, EPV its lanes, T the input element;
 * LD(p) a full vector of inputs as accumulators, LDM(p) the columns of the last partial vector
 * (the identity's preimage elsewhere; the caller binds the tail state), MAP the per-element map,
 * OP(a, b) the vector operation, ID the identity vector, S the accumulator type (the lanes are
 * read back as EPV of them), FIELD the partial's field. In scope: x (const char *, row
 * 0), rs (row stride in bytes), nrows (<= 4 L), K columns, nfull and nv (full and all column
 * vectors), scratch (64-byte aligned, the lane-array kernels' scratch) and out (K partials). */
#ifndef DMLCPU_SIMD_COL_SHORT_H
#define DMLCPU_SIMD_COL_SHORT_H

#include <stdalign.h>
#include <stddef.h>

#define COL_SHORT_NV 8

/* The quad of rows 4j.. of one column vector at element offset o; rows past nrows are ID. */
#define COL_SHORT_QUAD(V, T, LOAD, MAP, OP, ID, j, o)                                              \
    __extension__({                                                                                \
        const size_t r_ = 4 * (j);                                                                 \
        const char *p_ = x + (ptrdiff_t)r_ * rs + (ptrdiff_t)((o) * sizeof(T));                    \
        V q_;                                                                                      \
        if (r_ + 4 <= nrows) {                                                                     \
            q_ = OP(OP(MAP(LOAD((const T *)p_)), MAP(LOAD((const T *)(p_ + rs)))),                 \
                    OP(MAP(LOAD((const T *)(p_ + 2 * rs))), MAP(LOAD((const T *)(p_ + 3 * rs))))); \
        } else {                                                                                   \
            const size_t have_ = nrows - r_;                                                       \
            const V e1_ = have_ > 1 ? MAP(LOAD((const T *)(p_ + rs))) : (ID);                      \
            const V e2_ = have_ > 2 ? MAP(LOAD((const T *)(p_ + 2 * rs))) : (ID);                  \
            q_ = OP(OP(MAP(LOAD((const T *)p_)), e1_), OP(e2_, (ID)));                             \
        }                                                                                          \
        q_;                                                                                        \
    })

/* The quad of quad row j at element offset o of the pass's vector c (FULL: a full vector). */
#define COL_SHORT_QAT(V, T, LD, LDM, MAP, OP, ID, FULL, v0, c, j, o)                             \
    ((FULL) || (v0) + (c) < nfull ? COL_SHORT_QUAD(V, T, LD, MAP, OP, ID, j, o)                   \
                                  : COL_SHORT_QUAD(V, T, LDM, MAP, OP, ID, j, o))

/* STMT for the pass's vectors c < cnt, with o their element offset and q_ the quad of quad row
 * j. FULL (a constant): every vector of the pass is a full one, cnt COL_SHORT_NV. */
#define COL_SHORT_QUADS(V, EPV, T, LD, LDM, MAP, OP, ID, v0, cnt, FULL, j, STMT)                   \
    do {                                                                                           \
        for (size_t c = 0; c < COL_SHORT_NV; c++) {                                               \
            if (!(FULL) && c >= (cnt))                                                             \
                break;                                                                             \
            const size_t o = ((v0) + c) * (EPV);                                                   \
            const V q_ = COL_SHORT_QAT(V, T, LD, LDM, MAP, OP, ID, FULL, v0, c, j, o);             \
            STMT;                                                                                  \
        }                                                                                          \
    } while (0)

/* One pass: column vectors v0 .. v0 + cnt - 1 (cnt <= COL_SHORT_NV); the last may be partial.
 * Lane j of vector c of the pass is ln_[j * nvp_ + c]. Lane j < half is id op q_j, then, with
 * the tree's first step (h = span / 2), op q_{j + half} when that quad exists: both quads are
 * read together and the lane is stored once. The upper lane's id is left out: a lower lane is
 * never -0 (+0 + -0 = +0), so lower + (+0 + q) and lower + q have the same bits, as have 1 * q
 * and q for MULTIPLY (any NaN stays a NaN). */
#define COL_SHORT_PASS(V, S, EPV, T, LD, LDM, MAP, OP, ID, FIELD, v0, cnt, FULL)                 \
    do {                                                                                           \
        for (size_t j = 0; j < half; j++) {                                                        \
            V *ln = ln_ + j * nvp_;                                                                \
            if (j + half < used)                                                                   \
                COL_SHORT_QUADS(V, EPV, T, LD, LDM, MAP, OP, ID, v0, cnt, FULL, j,                 \
                                ln[c] = OP(OP((ID), q_), COL_SHORT_QAT(V, T, LD, LDM, MAP, OP, ID, \
                                                                       FULL, v0, c, j + half, o)));\
            else                                                                                   \
                COL_SHORT_QUADS(V, EPV, T, LD, LDM, MAP, OP, ID, v0, cnt, FULL, j,                 \
                                ln[c] = OP((ID), q_));                                             \
        }                                                                                          \
        for (size_t h = half / 2; h >= 1; h /= 2)                                                  \
            for (size_t i = 0; i < h && i + h < used; i++)                                         \
                for (size_t c = 0; c < COL_SHORT_NV; c++)                                          \
                    if (c < (cnt))                                                                 \
                        ln_[i * nvp_ + c] = OP(ln_[i * nvp_ + c], ln_[(i + h) * nvp_ + c]);        \
        for (size_t c = 0; c < COL_SHORT_NV; c++) {                                               \
            if (c >= (cnt))                                                                        \
                break;                                                                             \
            const S *t_ = (const S *)&ln_[c];                                                      \
            const size_t o = ((v0) + c) * (EPV);                                                   \
            if (o + (EPV) <= K) {                                                                  \
                _Pragma("GCC unroll 16") for (size_t k = 0; k < (EPV); k++)                        \
                    out[o + k].v.FIELD = t_[k];                                                    \
            } else {                                                                               \
                for (size_t k = 0; o + k < K; k++)                                                 \
                    out[o + k].v.FIELD = t_[k];                                                    \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* The whole kernel body for nrows <= 4 L: writes out[0 .. K). scratch holds the lanes of a pass
 * (L x min(nv, COL_SHORT_NV) vectors: within the L accumulators per column the lane-array
 * kernels take). */
#define COL_SHORT(V, S, EPV, T, LD, LDM, MAP, OP, ID, FIELD)                                    \
    do {                                                                                           \
        const size_t used = (nrows + 3) / 4;                                                       \
        size_t span = 1;                                                                           \
        while (span < used)                                                                        \
            span *= 2;                                                                             \
        const size_t half = span > 1 ? span / 2 : 1; /* used = 1: no tree step */                 \
        const size_t nvp_ = nv < COL_SHORT_NV ? nv : COL_SHORT_NV;                                 \
        V *ln_ = (V *)scratch;                                                                     \
        size_t v0 = 0;                                                                             \
        for (; v0 + COL_SHORT_NV <= nfull; v0 += COL_SHORT_NV)                                     \
            COL_SHORT_PASS(V, S, EPV, T, LD, LDM, MAP, OP, ID, FIELD, v0, COL_SHORT_NV, 1);         \
        if (v0 < nv)                                                                               \
            COL_SHORT_PASS(V, S, EPV, T, LD, LDM, MAP, OP, ID, FIELD, v0, nv - v0, 0);              \
    } while (0)

#endif /* DMLCPU_SIMD_COL_SHORT_H */
