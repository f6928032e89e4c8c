/* Two walks of the x86 lane-array column kernels (x86/reduce_avx2.c, x86/reduce_avx512.c) over
 * blocks streamed from memory, written once: contiguous rows of about a kilobyte read a row at a
 * time (COL_SEQ_QUADS), and quads q and q + L read together (COL_PAIR_QUADS, below). Both keep
 * the lane loop's operations and their order (SPEC 4), so the bits are the same.
 *
 * The lane loop reads a quad of rows vector by vector: the four rows' vectors at one offset, then
 * the next offset. When the rows are contiguous and short, a quad is one piece of a few KiB, and
 * those four interleaved runs inside a page left the hardware prefetchers behind. Here each row
 * of the quad is read whole, in turn, prefetched COL_SEQ_AHEAD bytes ahead; (r0 op r1) and (r2 op
 * r3) go into two buffers, then lane op= (a op b). The quad's operations and their order are
 * those of the lane loop (SPEC 4), so the bits are the same. Not for LOG_SUM_EXP, bound by its
 * exp (the kernels pass SEQ = 0 for it).
 *
 * The row lengths that gain differ by machine, so each ISA file gives its range (1 thread,
 * alternated processes): AVX2 on a Zen 3 took rows of 1 KiB to less than 2 KiB (8 x 8192 x 256
 * FLOAT32 over axis 1: 5.2-5.8 -> 4.1-4.3 ms, medians of 200; 512-byte and 2 KiB rows were
 * slower); AVX-512 on a Zen 4 takes 512 bytes to less than 2 KiB (see reduce_avx512.c).
 *
 * Paired quads on a Zen 4, 1 thread, alternated processes (medians of 3 bench runs): 4096 x 4096
 * FLOAT32 over axis 0 3.3 -> 2.7 ms at AVX-512 and 3.4 -> 2.7 ms at AVX2; 8 x 4096 x 256 FLOAT64
 * over axis 1 (2 KiB rows) 5.1 -> 3.6 ms at AVX-512.
 *
 * Parameters: T the input element, V the vector type of EPV accumulators, L lanes per column,
 * LD(p) a full vector of inputs as accumulators, MAP the per-element map (it may use aux),
 * OP(a, b) the vector operation, AUX(o) the aux vector of columns o.. . In scope: x (const char *,
 * row 0), rs (row stride in bytes), nrows, K columns (a multiple of EPV), lane (the lane array:
 * rows of accumulators, lane q mod L takes quad q), and r0, the first row not yet taken, which
 * the body advances past the last whole quad. */
#ifndef DMLCPU_SIMD_COL_SEQ_H
#define DMLCPU_SIMD_COL_SEQ_H

#include <stddef.h>

#define COL_SEQ_AHEAD 16384
/* Both walks are for blocks streamed from memory: from 1 MiB read in the call. In cache they
 * were slower than the lane loop (AVX-512 on a Zen 4, 1 thread: 8 x 64 x 256 FLOAT32 over axis
 * 1, 10 -> 17 us; 512 x 512 FLOAT16 over axis 0, 16 -> 25 us). */
#define COL_WALK_MIN_BYTES ((size_t)1 << 20)
#define COL_STREAMED(T, K, nrows) ((size_t)(nrows) * (K) * sizeof(T) >= COL_WALK_MIN_BYTES)

/* Whether K columns of T over rows rs bytes apart take the walk: contiguous rows of LO to less
 * than HI bytes (K a multiple of the vector is the caller's condition: the walk has no masked
 * tail). The range is the ISA file's, measured on its machines. */
#define COL_SEQ_FITS(T, K, rs, LO, HI)                                                             \
    ((rs) == (ptrdiff_t)((K) * sizeof(T)) && (K) * sizeof(T) >= (LO) && (K) * sizeof(T) < (HI) &&  \
     COL_STREAMED(T, K, nrows))

/* HI is the bound of COL_SEQ_FITS: it sizes the two stack buffers. */
#define COL_SEQ_QUADS(T, V, EPV, L, LD, MAP, OP, AUX, HI)                                          \
    do {                                                                                           \
        V ta_[(HI) / sizeof(T) / (EPV)], tb_[(HI) / sizeof(T) / (EPV)];                            \
        const size_t nv_ = K / (EPV);                                                              \
        for (; r0 + 4 <= nrows; r0 += 4) {                                                         \
            for (size_t i_ = 0; i_ < 4; i_++) { /* ta = r0 op r1, tb = r2 op r3 */                 \
                const T *ri_ = (const T *)(x + (ptrdiff_t)(r0 + i_) * rs);                         \
                V *t_ = i_ < 2 ? ta_ : tb_;                                                        \
                for (size_t v_ = 0; v_ < nv_; v_++) {                                              \
                    const V aux = AUX(v_ * (EPV));                                                 \
                    (void)aux;                                                                     \
                    if (((v_ * (EPV) * sizeof(T)) & 63) == 0)                                      \
                        __builtin_prefetch((const char *)(ri_ + v_ * (EPV)) + COL_SEQ_AHEAD, 0, 3); \
                    const V e_ = MAP(LD(ri_ + v_ * (EPV)));                                        \
                    t_[v_] = i_ % 2 == 0 ? e_ : OP(t_[v_], e_);                                    \
                }                                                                                  \
            }                                                                                      \
            V *ln_ = (V *)lane[(r0 / 4) % (L)];                                                    \
            for (size_t v_ = 0; v_ < nv_; v_++)                                                    \
                ln_[v_] = OP(ln_[v_], OP(ta_[v_], tb_[v_]));                                       \
        }                                                                                          \
    } while (0)

/* The quad of rows p, p + rs, p + 2 rs, p + 3 rs at element offset o, in the lane loop's order:
 * (r0 op r1) op (r2 op r3). */
#define COL_QUAD_AT(T, LD, MAP, OP, p, o)                                                          \
    OP(OP(MAP(LD((const T *)(p) + (o))), MAP(LD((const T *)((p) + rs) + (o)))),                     \
       OP(MAP(LD((const T *)((p) + 2 * rs) + (o))), MAP(LD((const T *)((p) + 3 * rs) + (o)))))

/* Lane j takes quads j, j + L, j + 2L, ... in turn, nothing in between, so quads q and q + L can
 * be read together and folded one after the other: lane = (lane op Q_q) op Q_(q+L), the order of
 * the lane loop, with half its passes over the lane array (L x K accumulators, 256 KiB for a
 * 1024-column FLOAT32 tile: it lives in L2, and each quad read it and wrote it back). Eight rows
 * are read at a time, in whole rounds of 2L quads; the rest is the lane loop's. PF: prefetch
 * every line of the eight rows pf bytes ahead (pf in scope). For tiles of whole vectors (K a
 * multiple of EPV) over more than 256 bytes of each row, streamed (COL_STREAMED). */
#define COL_PAIR_QUADS(T, V, EPV, L, LD, MAP, OP, AUX, PF)                                         \
    for (; r0 + 8 * (L) <= nrows; r0 += 8 * (L))                                                   \
        for (size_t q_ = 0; q_ < (L); q_++) {                                                      \
            const char *a_ = x + (ptrdiff_t)(r0 + 4 * q_) * rs;                                    \
            const char *b_ = a_ + (ptrdiff_t)(4 * (L)) * rs;                                       \
            V *ln_ = (V *)lane[(r0 / 4 + q_) % (L)];                                               \
            for (size_t v_ = 0; v_ < K / (EPV); v_++) {                                            \
                const size_t o_ = v_ * (EPV);                                                      \
                const V aux = AUX(o_);                                                             \
                (void)aux;                                                                         \
                if ((PF) && ((o_ * sizeof(T)) & 63) == 0)                                          \
                    for (int i_ = 0; i_ < 4; i_++) {                                               \
                        __builtin_prefetch(a_ + i_ * rs + o_ * sizeof(T) + pf, 0, 3);              \
                        __builtin_prefetch(b_ + i_ * rs + o_ * sizeof(T) + pf, 0, 3);              \
                    }                                                                              \
                const V qa_ = COL_QUAD_AT(T, LD, MAP, OP, a_, o_);                                 \
                const V qb_ = COL_QUAD_AT(T, LD, MAP, OP, b_, o_);                                 \
                ln_[v_] = OP(OP(ln_[v_], qa_), qb_);                                               \
            }                                                                                      \
        }

#endif
