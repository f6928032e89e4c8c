/* LOG_SUM_EXP over columns, the x86 lane-array kernels' walk (x86/reduce_avx2.c,
 * x86/reduce_avx512.c), written once. The result is the lane loop's (SPEC 4): per column, m =
 * the maximum of the block's rows (a NaN anywhere gives NaN), lane j = the sum, in order, of
 * the quads j, j + L, j + 2L, ... of exp(x - m), each quad ((r0 + r1) + (r2 + r3)), then the
 * halving tree over the lanes.
 *
 * The tile is cut into sub-tiles of whole vectors of columns, each at most LSE_COL_SUB_BYTES of
 * the block's rows and at most a quarter of the tile (at least one vector). The first sub-tile's
 * maxima are read along the rows, a quad of rows at a time. Then each sub-tile's quads are
 * summed in order into a lane array of its own (L x its vectors), and in the same pass over the
 * rows the next sub-tile's maxima are read: those reads come from memory (prefetched 16 rows
 * ahead) while the exps of the quads, which bound the pass, run; the sub-tile is read again from
 * cache one pass later, prefetched 16 rows ahead too (the bench's middle axis, 1 thread: FLOAT32
 * 4.18-4.32 -> 4.04-4.26 ms, FLOAT16 8.60-8.79 -> 8.23-8.50 ms). The lane loop read the whole
 * tile for the maxima, then again for the sums: 4096 x 4096 FLOAT32 over axis 0 read 64 MiB
 * twice from memory, one read at a time.
 * Only the first sub-tile's maxima (at most a quarter of the tile) are not overlapped. The exps
 * of a quad's four rows run in lockstep (EXPQ).
 *
 * Parameters: T the input element, V the vector of EPV accumulators of type S, L lanes per column;
 * LD(p) a full vector, LDT(p) the tile's last, partial vector (the tail in scope); ADD, SUB, MAX
 * (any maximum: NaN is tracked apart), OR, UNORD(a, b) (all bits set in the lanes where a or b is
 * NaN; zeros where MAX itself returns NaN when either operand is, as NEON's FMAX does), SET1(s),
 * STORE(p, v) (aligned), EXPQ(q) (exp of q[0..4) in place), FIELD the partial's member. In scope: x
 * (const char *, row 0), rs (bytes between rows), nrows, K, out (K partials) and scratch (aligned
 * to the vector; (L + 1) x DMLCPU_COL_PITCH(K) values of S at least: two sub-tiles' maxima and L
 * lanes of a sub-tile fit, a sub-tile being at most a quarter of the tile when there are several). */
#ifndef DMLCPU_SIMD_LSE_COL_H
#define DMLCPU_SIMD_LSE_COL_H

#include <math.h>
#include <stddef.h>

/* The sub-tiles' bytes, S the accumulator: 16 MiB for FLOAT32 and FLOAT16, 4 MiB for FLOAT64
 * (before, 1 MiB, sized for a Zen 4's L2). Rows far apart put a sub-tile's lines in few sets of
 * the L2 (16 KiB apart: an eighth of a 2 MiB L2's sets), so the second read comes from L3
 * whatever the size; wider sub-tiles read longer pieces of each row, which the memory serves
 * faster: 4 KiB of each row of a 4096-wide FLOAT32 matrix in place of 1 KiB. On an Intel Xeon, 1
 * thread, one process alternating both builds (medians of 21), 4 -> 16 MiB: FLOAT32 4096 x 4096
 * over axis 0 1.17x (2 threads 1.07x), 8192 x 2048 1.09x (1.08x), 16384 x 1024 1.10x (1.23x;
 * one sub-tile), FLOAT16 4096 x 8192 1.04x (1.06x); FLOAT64, whose exp (SLEEF's) costs more
 * per byte, 2048 x 4096 0.92x (0.96x), so it keeps 4 MiB. 1 -> 4 MiB before: FLOAT32 4096 x
 * 4096 12.4-12.8 -> 8.3-8.6 ms (1.49x; 2 threads 1.39x), 16384 x 1024 1.39x, FLOAT16 4096 x
 * 8192 1.06x, FLOAT64 2048 x 4096 1.05x. Tiles of four sub-tiles or fewer (the bench's middle
 * axis, [8, 8192, 256]) do not change. */
#define LSE_COL_SUB_BYTES(S) (sizeof(S) == 8 ? (size_t)4 << 20 : (size_t)16 << 20)

/* The running maxima *mv take vector o (elements) of the rows p0..p3, read by LOAD. MAX returns
 * its second operand, the running value, when that is NaN, so a NaN stays. */
#define LSE_COL_MAXV(V, LOAD, MAX, OR, UNORD, p0, p1, p2, p3, o, mv)                              \
    do {                                                                                           \
        const V e0_ = LOAD((p0) + (o)), e1_ = LOAD((p1) + (o)), e2_ = LOAD((p2) + (o)),            \
                e3_ = LOAD((p3) + (o));                                                            \
        const V nan_ = OR(UNORD(e0_, e1_), UNORD(e2_, e3_));                                       \
        *(mv) = OR(MAX(MAX(MAX(e0_, e1_), MAX(e2_, e3_)), *(mv)), nan_);                           \
    } while (0)
/* lane += the quad of exp(p_k[o] - m), k = 0..3, read by LOAD */
#define LSE_COL_SUMV(V, LOAD, ADD, SUB, EXPQ, p0, p1, p2, p3, o, m, lane)                         \
    do {                                                                                           \
        V e_[4] = {SUB(LOAD((p0) + (o)), m), SUB(LOAD((p1) + (o)), m), SUB(LOAD((p2) + (o)), m),   \
                   SUB(LOAD((p3) + (o)), m)};                                                      \
        EXPQ(e_);                                                                                  \
        *(lane) = ADD(*(lane), ADD(ADD(e_[0], e_[1]), ADD(e_[2], e_[3])));                         \
    } while (0)

/* The same with LD (full) or LDT (the tile's partial last vector) */
#define LSE_COL_MAXF(V, LD, LDT, full, MAX, OR, UNORD, p0, p1, p2, p3, o, mv)                     \
    do {                                                                                           \
        if (full)                                                                                  \
            LSE_COL_MAXV(V, LD, MAX, OR, UNORD, p0, p1, p2, p3, o, mv);                            \
        else                                                                                       \
            LSE_COL_MAXV(V, LDT, MAX, OR, UNORD, p0, p1, p2, p3, o, mv);                           \
    } while (0)
#define LSE_COL_SUMF(V, LD, LDT, full, ADD, SUB, EXPQ, p0, p1, p2, p3, o, m, lane)                \
    do {                                                                                           \
        if (full)                                                                                  \
            LSE_COL_SUMV(V, LD, ADD, SUB, EXPQ, p0, p1, p2, p3, o, m, lane);                       \
        else                                                                                       \
            LSE_COL_SUMV(V, LDT, ADD, SUB, EXPQ, p0, p1, p2, p3, o, m, lane);                      \
    } while (0)

/* the line of each of the four rows 16 rows ahead, at element offset o */
#define LSE_COL_PREFETCH4(p0, p1, p2, p3, o)                                                       \
    do {                                                                                           \
        __builtin_prefetch((const char *)((p0) + (o)) + 16 * rs, 0, 3);                            \
        __builtin_prefetch((const char *)((p1) + (o)) + 16 * rs, 0, 3);                            \
        __builtin_prefetch((const char *)((p2) + (o)) + 16 * rs, 0, 3);                            \
        __builtin_prefetch((const char *)((p3) + (o)) + 16 * rs, 0, 3);                            \
    } while (0)

#define LSE_COL_WALK(T, V, S, EPV, L, LD, LDT, ADD, SUB, MAX, OR, UNORD, SET1, STORE, EXPQ, FIELD) \
    do {                                                                                           \
        const size_t nv_ = (K + (EPV) - 1) / (EPV), nfull_ = K / (EPV);                            \
        const size_t vb_ = (EPV) * sizeof(T) * (nrows); /* bytes of one vector of columns */      \
        size_t sw_ = LSE_COL_SUB_BYTES(S) / vb_; /* vectors a sub-tile */                          \
        sw_ = sw_ < 1 ? 1 : sw_ >= nv_ ? nv_ : sw_ > (nv_ + 3) / 4 ? (nv_ + 3) / 4 : sw_;          \
        const size_t nq_ = (nrows + 3) / 4, used_ = nq_ < (L) ? nq_ : (L);                         \
        const V zero_ = SET1(0), ninf_ = SET1(-INFINITY);                                          \
        /* two sub-tiles' maxima (one when there is one sub-tile), then the lanes: lane j,      \
         * vector v at lanes_[j * cw_ + v] */                                                     \
        S *mxb_[2] = {(S *)scratch, (S *)scratch + sw_ * (EPV)};                                   \
        V *lanes_ = (V *)((S *)scratch + (sw_ < nv_ ? 2 : 1) * sw_ * (EPV));                       \
        for (size_t v_ = 0; v_ < sw_; v_++)                                                        \
            STORE(mxb_[0] + v_ * (EPV), ninf_);                                                    \
        for (size_t i_ = 0; i_ < nrows; i_ += 4) { /* the first sub-tile's maxima */              \
            /* missing rows of a last quad repeat the first */                                     \
            const T *p0_ = (const T *)(x + (ptrdiff_t)i_ * rs);                                    \
            const T *p1_ = i_ + 1 < nrows ? (const T *)((const char *)p0_ + rs) : p0_;             \
            const T *p2_ = i_ + 2 < nrows ? (const T *)((const char *)p0_ + 2 * rs) : p0_;         \
            const T *p3_ = i_ + 3 < nrows ? (const T *)((const char *)p0_ + 3 * rs) : p0_;         \
            for (size_t v_ = 0; v_ < sw_; v_++) {                                                  \
                const size_t o_ = v_ * (EPV);                                                      \
                if (((o_ * sizeof(T)) & 63) == 0)                                                  \
                    LSE_COL_PREFETCH4(p0_, p1_, p2_, p3_, o_);                                     \
                LSE_COL_MAXF(V, LD, LDT, v_ < nfull_,                                              \
                             MAX, OR, UNORD, p0_, p1_, p2_, p3_, o_, (V *)mxb_[0] + v_);           \
            }                                                                                      \
        }                                                                                          \
        for (size_t c_ = 0, s_ = 0; c_ < nv_; c_ += sw_, s_ ^= 1) {                                \
            const size_t cw_ = nv_ - c_ < sw_ ? nv_ - c_ : sw_;                                    \
            const size_t cn_ = nv_ - c_ - cw_ < sw_ ? nv_ - c_ - cw_ : sw_; /* the next's */      \
            const size_t nf_ = nfull_ > c_ ? (nfull_ - c_ < cw_ ? nfull_ - c_ : cw_) : 0;          \
            S *mx_ = mxb_[s_], *mn_ = mxb_[s_ ^ 1];                                                \
            for (size_t v_ = 0; v_ < cn_; v_++)                                                    \
                STORE(mn_ + v_ * (EPV), ninf_);                                                    \
            for (size_t j_ = 0; j_ < used_ * cw_; j_++)                                            \
                lanes_[j_] = zero_;                                                                \
            /* the quads in order, lane q mod L taking quad q, and the next sub-tile's maxima   \
             * of the same rows: its reads from memory overlap these exps */                     \
            for (size_t q_ = 0; q_ < nq_; q_++) {                                                  \
                const size_t r0_ = 4 * q_, have_ = nrows - r0_ < 4 ? nrows - r0_ : 4;              \
                const T *p0_ = (const T *)(x + (ptrdiff_t)r0_ * rs);                               \
                const T *p1_ = have_ > 1 ? (const T *)((const char *)p0_ + rs) : p0_;              \
                const T *p2_ = have_ > 2 ? (const T *)((const char *)p0_ + 2 * rs) : p0_;          \
                const T *p3_ = have_ > 3 ? (const T *)((const char *)p0_ + 3 * rs) : p0_;          \
                V *ln_ = lanes_ + (q_ % (L)) * cw_;                                                \
                if (have_ < 4) { /* the last, partial quad: missing rows are the identity */      \
                    for (size_t v_ = 0; v_ < cw_; v_++) {                                          \
                        const size_t o_ = (c_ + v_) * (EPV);                                       \
                        const V m_ = ((const V *)mx_)[v_];                                         \
                        V e_[4];                                                                   \
                        for (size_t k_ = 0; k_ < 4; k_++) {                                        \
                            const T *pk_ = (const T *)((const char *)p0_ + (ptrdiff_t)k_ * rs);    \
                            e_[k_] = k_ >= have_ ? ninf_                                           \
                                     : SUB(v_ < nf_ ? LD(pk_ + o_) : LDT(pk_ + o_), m_);           \
                        }                                                                          \
                        EXPQ(e_);                                                                  \
                        for (size_t k_ = have_; k_ < 4; k_++)                                      \
                            e_[k_] = zero_;                                                        \
                        ln_[v_] = ADD(ln_[v_], ADD(ADD(e_[0], e_[1]), ADD(e_[2], e_[3])));         \
                    }                                                                              \
                    for (size_t v_ = 0; v_ < cn_; v_++) { /* missing rows repeat the first */     \
                        const size_t o_ = (c_ + cw_ + v_) * (EPV);                                 \
                        LSE_COL_MAXF(V, LD, LDT, c_ + cw_ + v_ < nfull_,                           \
                                     MAX, OR, UNORD, p0_, p1_, p2_, p3_, o_, (V *)mn_ + v_);       \
                    }                                                                              \
                } else { /* vector v of this sub-tile's quad, and of the next's maxima */         \
                    const size_t vmax_ = cw_ > cn_ ? cw_ : cn_;                                    \
                    for (size_t v_ = 0; v_ < vmax_; v_++) {                                        \
                        if (v_ < cw_) {                                                            \
                            const size_t o_ = (c_ + v_) * (EPV);                                   \
                            if (((o_ * sizeof(T)) & 63) == 0) /* from L2 or L3 */                  \
                                LSE_COL_PREFETCH4(p0_, p1_, p2_, p3_, o_);                         \
                            const V m_ = ((const V *)mx_)[v_];                                     \
                            LSE_COL_SUMF(V, LD, LDT, v_ < nf_,                                     \
                                         ADD, SUB, EXPQ, p0_, p1_, p2_, p3_, o_, m_, ln_ + v_);    \
                        }                                                                          \
                        if (v_ < cn_) {                                                            \
                            const size_t o_ = (c_ + cw_ + v_) * (EPV);                             \
                            if (((o_ * sizeof(T)) & 63) == 0)                                      \
                                LSE_COL_PREFETCH4(p0_, p1_, p2_, p3_, o_);                         \
                            LSE_COL_MAXF(V, LD, LDT, c_ + cw_ + v_ < nfull_,                       \
                                         MAX, OR, UNORD, p0_, p1_, p2_, p3_, o_, (V *)mn_ + v_);   \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
            for (size_t h_ = (L) / 2; h_ >= 1; h_ /= 2)                                            \
                for (size_t j_ = 0; j_ < h_ && j_ + h_ < used_; j_++)                              \
                    for (size_t v_ = 0; v_ < cw_; v_++)                                            \
                        lanes_[j_ * cw_ + v_] =                                                \
                            ADD(lanes_[j_ * cw_ + v_], lanes_[(j_ + h_) * cw_ + v_]);              \
            const S *sum_ = (const S *)lanes_;                                                     \
            for (size_t k_ = c_ * (EPV); k_ < K && k_ < (c_ + cw_) * (EPV); k_++) {                \
                const S m_ = mx_[k_ - c_ * (EPV)], mk_ = m_ != m_ ? (S)NAN : m_;                   \
                out[k_].v.FIELD = mk_;                                                             \
                out[k_].aux.FIELD = isfinite(mk_) ? sum_[k_ - c_ * (EPV)] : 0;                     \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#endif
