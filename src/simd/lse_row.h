/* LOG_SUM_EXP over rows, the block loop of the vector tiers' row kernels (x86/reduce_avx2.c,
 * x86/reduce_avx512.c, and the NEON tier through simd/reduce_sum.h), written once. The result is
 * the scalar tier's (SPEC 4): per block of at most 64 L elements, m = the maximum of the block (a
 * NaN anywhere gives NaN), then exp(x - m) of every element and the block's canonical sum of those
 * terms.
 *
 * Per block: the maximum (four accumulators; NaNs are found afterwards), then exp(x - m) of the
 * block into an L1-resident buffer e and its canonical sum: two short loops need far fewer live
 * registers than one fused loop. With m finite and no NaN every term is in [0, 1], so a NaN sum
 * means the block holds a NaN; when m is not finite the block is scanned for NaNs (x86's max
 * returns its second operand when either is NaN; a tier whose MAX returns NaN, NEON's FMAX, has m =
 * NaN already and never scans). While the block is in L1 the exp loop prefetches the next block's
 * bytes (past the end of the row: the next row's, when rows are contiguous; a prefetch reads
 * nothing and never faults), so memory keeps streaming during the arithmetic: with the prefetches
 * stopping at the row's end, the max loop waited on memory for a quarter of the time of 4096 x 4096
 * FLOAT32 over axis 1 (rows of one block). Inputs narrower than the accumulator (FLOAT16), and
 * every input in calls of more than one block, store the block into e in the max pass and the exp
 * pass reads it back from there: FLOAT16 converts each element once ([4096, 8192] over axis 1
 * 1.10-1.11x faster on AVX-512, 1.04-1.05x on AVX2), and a block that follows another in the same
 * call no longer waits on memory in its max pass. FLOAT32 on AVX-512, one process, both builds,
 * both orders: rows of one block (4096 x 4096 over axis 1) 2.94-3.0 ms, rows of 16 blocks (256 x
 * 65536) 3.86-3.98 ms before, 28% of the cpu-clock samples on one load of the max loop against 4%;
 * with the copy 256 x 65536 1.13-1.15x faster, both axes of 4096 x 4096 1.13-1.16x, FLOAT64 both
 * axes 1.10-1.12x; rows of one block keep reading the input (the copy cost them 5%). Same values,
 * same bits.
 *
 * Parameters: T the input element, V the vector of EPV accumulators of type S, L lanes (a block is
 * 64 L elements), ALIGN the vector's bytes; LD(p) a full vector of inputs, LDN(p, k) the first k <
 * EPV of them with -inf elsewhere; LOAD and STORE (aligned, accumulators), MAX, SUB, SET1, HMAX(v)
 * (the maximum over the lanes, as S); EXP(v) one vector's exp, EXP4(e, EPV, x0, x1, x2, x3) four
 * vectors' exps stored at e, EPV elements apart; NANMASK(v) the lanes of v that are NaN, as bits of
 * an unsigned; FIELD the partial's member; then BLOCK_SUM and its trailing arguments: BLOCK_SUM(e,
 * m, ...) is the canonical sum of e[0..m), as S. In scope: x (const T *), n (elements in the row)
 * and out (a partial per block). */
#ifndef DMLCPU_SIMD_LSE_ROW_H
#define DMLCPU_SIMD_LSE_ROW_H

#include <math.h>
#include <stdalign.h>
#include <stddef.h>

#define LSE_ROW_BLOCKS(T, V, S, EPV, L, ALIGN, LD, LDN, LOAD, STORE, MAX, SUB, SET1, HMAX, EXP,    \
                       EXP4, NANMASK, FIELD, BLOCK_SUM, ...)                                       \
    do {                                                                                           \
        if (sizeof(T) < sizeof(S) || n > 64 * (L))                                                 \
            LSE_ROW_LOOP(1, T, V, S, EPV, L, ALIGN, LD, LDN, LOAD, STORE, MAX, SUB, SET1, HMAX,    \
                         EXP, EXP4, NANMASK, FIELD, BLOCK_SUM, __VA_ARGS__);                       \
        else                                                                                       \
            LSE_ROW_LOOP(0, T, V, S, EPV, L, ALIGN, LD, LDN, LOAD, STORE, MAX, SUB, SET1, HMAX,    \
                         EXP, EXP4, NANMASK, FIELD, BLOCK_SUM, __VA_ARGS__);                       \
    } while (0)
/* The block loop; CVT: e holds the block (a constant, so that each form has its own loops) */
#define LSE_ROW_LOOP(CVT, T, V, S, EPV, L, ALIGN, LD, LDN, LOAD, STORE, MAX, SUB, SET1, HMAX, EXP, \
                     EXP4, NANMASK, FIELD, BLOCK_SUM, ...)                                         \
    do {                                                                                           \
        const V ninf_ = SET1(-INFINITY);                                                           \
        for (size_t b0_ = 0; b0_ < n; b0_ += 64 * (L), out++) {                                    \
            const size_t m = n - b0_ < 64 * (L) ? n - b0_ : 64 * (L);                              \
            const T *p_ = x + b0_;                                                                 \
            alignas(ALIGN) S e[64 * (L)];                                                          \
            const int cvt_ = (CVT);                                                                \
            V m0_ = ninf_, m1_ = ninf_, m2_ = ninf_, m3_ = ninf_;                                  \
            size_t i_ = 0;                                                                         \
            for (; i_ + 4 * (EPV) <= m; i_ += 4 * (EPV)) {                                         \
                const V v0_ = LD(p_ + i_), v1_ = LD(p_ + i_ + (EPV)), v2_ = LD(p_ + i_ + 2 * (EPV)), \
                        v3_ = LD(p_ + i_ + 3 * (EPV));                                             \
                if (cvt_) {                                                                        \
                    STORE(e + i_, v0_);                                                            \
                    STORE(e + i_ + (EPV), v1_);                                                    \
                    STORE(e + i_ + 2 * (EPV), v2_);                                                \
                    STORE(e + i_ + 3 * (EPV), v3_);                                                \
                }                                                                                  \
                m0_ = MAX(m0_, v0_);                                                               \
                m1_ = MAX(m1_, v1_);                                                               \
                m2_ = MAX(m2_, v2_);                                                               \
                m3_ = MAX(m3_, v3_);                                                               \
            }                                                                                      \
            for (; i_ < m; i_ += (EPV)) {                                                          \
                const V v0_ = m - i_ >= (EPV) ? LD(p_ + i_) : LDN(p_ + i_, m - i_);                \
                if (cvt_)                                                                          \
                    STORE(e + i_, v0_);                                                            \
                m0_ = MAX(m0_, v0_);                                                               \
            }                                                                                      \
            S mx_ = HMAX(MAX(MAX(m0_, m1_), MAX(m2_, m3_)));                                       \
            S sum_ = 0;                                                                            \
            if (isfinite(mx_)) {                                                                   \
                const V mv_ = SET1(mx_);                                                           \
                size_t j_ = 0;                                                                     \
                for (; j_ + 4 * (EPV) <= m; j_ += 4 * (EPV)) {                                     \
                    LSE_ROW_PREFETCH4(p_ + m + j_, EPV);                                           \
                    V x0_ = SUB(LSE_ROW_RD(LOAD, LD, j_), mv_);                                    \
                    V x1_ = SUB(LSE_ROW_RD(LOAD, LD, j_ + (EPV)), mv_);                            \
                    V x2_ = SUB(LSE_ROW_RD(LOAD, LD, j_ + 2 * (EPV)), mv_);                        \
                    V x3_ = SUB(LSE_ROW_RD(LOAD, LD, j_ + 3 * (EPV)), mv_);                        \
                    EXP4(e + j_, EPV, x0_, x1_, x2_, x3_);                                         \
                }                                                                                  \
                for (; j_ + (EPV) <= m; j_ += (EPV))                                               \
                    STORE(e + j_, EXP(SUB(LSE_ROW_RD(LOAD, LD, j_), mv_)));                        \
                if (j_ < m)                                                                        \
                    STORE(e + j_, EXP(SUB(cvt_ ? LOAD(e + j_) : LDN(p_ + j_, m - j_), mv_)));      \
                sum_ = BLOCK_SUM(e, m, __VA_ARGS__);                                               \
                if (sum_ != sum_)                                                                  \
                    mx_ = (S)NAN;                                                                  \
            } else if (mx_ == mx_) {                                                               \
                unsigned nan_ = 0;                                                                 \
                for (size_t k_ = 0; k_ < m; k_ += (EPV)) {                                         \
                    const V v_ = m - k_ >= (EPV) ? LD(p_ + k_) : LDN(p_ + k_, m - k_);             \
                    nan_ |= NANMASK(v_);                                                           \
                }                                                                                  \
                if (nan_)                                                                          \
                    mx_ = (S)NAN;                                                                  \
            }                                                                                      \
            out->v.FIELD = mx_;                                                                    \
            out->aux.FIELD = mx_ == mx_ ? sum_ : 0;                                                \
        }                                                                                          \
    } while (0)
/* One prefetch (into L1) per 64 bytes of the four vectors at q. */
#define LSE_ROW_PREFETCH4(q, EPV)                                                                  \
    do {                                                                                           \
        for (size_t pf_ = 0; pf_ < 4 * (EPV) * sizeof *(q); pf_ += 64)                             \
            __builtin_prefetch((const char *)(q) + pf_, 0, 3);                                     \
    } while (0)
/* element j of the block in the exp pass: the converted block in e, or the input */
#define LSE_ROW_RD(LOAD, LD, j) (cvt_ ? LOAD(e + (j)) : LD(p_ + (j)))

#endif /* DMLCPU_SIMD_LSE_ROW_H */
