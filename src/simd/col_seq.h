/* Column sums over contiguous rows of about a kilobyte, written once for the x86 lane-array
 * kernels (x86/reduce_avx2.c, x86/reduce_avx512.c).
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

/* Whether K columns of T over rows rs bytes apart take the walk: contiguous rows of LO to less
 * than HI bytes (K a multiple of the vector is the caller's condition: the walk has no masked
 * tail). The range is the ISA file's, measured on its machines. */
#define COL_SEQ_FITS(T, K, rs, LO, HI)                                                             \
    ((rs) == (ptrdiff_t)((K) * sizeof(T)) && (K) * sizeof(T) >= (LO) && (K) * sizeof(T) < (HI))

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

#endif
