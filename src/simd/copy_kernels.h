/* Copy kernels of the NEON tier (arm/copy_neon.c): the bodies, written once
 * against a few vector operations that each ISA file defines before including this header.
 * Copies move bits, so any order gives the same result.
 *
 * Vocabulary:
 *   bvec, bld(p), bst(p, v)   a 16-byte vector, its unaligned load and store (transposed blocks)
 *   rvec, RVB, rld(p), rst(p, v), rzero()   the widest vector of the tier (RVB bytes) for runs
 * and per kernel, as macro arguments: the interleaves of a transposed block (ZIPLO, ZIPHI: the
 * low / high halves of two vectors, element by element), the reversal of a vector (REV), the
 * even elements of two consecutive vectors (EVEN), and a vector's elements with a zero after
 * each, first and second half (ZLO, ZHI). */
#ifndef DMLCPU_SIMD_COPY_KERNELS_H
#define DMLCPU_SIMD_COPY_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels.h"

/* n x n blocks of 16-byte rows (n = 16 / element size): each round interleaves rows k and
 * k + n/2 (element by element, low halves then high halves) into rows 2k and 2k + 1. Writing the
 * row index as bits r and the column as bits c, a round rotates the bit string (r, c) left by
 * one, so log2(n) rounds turn (r, c) into (c, r). */
#define DEF_BLOCK_ZIP(NAME, T, N, ROUNDS, ZIPLO, ZIPHI)                                            \
    static inline void NAME(T *d, ptrdiff_t ds, const T *s, ptrdiff_t ss)                          \
    {                                                                                              \
        bvec a[N], b[N];                                                                           \
        _Pragma("GCC unroll 16") for (int i = 0; i < (N); i++)                                     \
            a[i] = bld(s + i * ss);                                                                \
        _Pragma("GCC unroll 4") for (int round = 0; round < (ROUNDS); round++) {                   \
            _Pragma("GCC unroll 8") for (int k = 0; k < (N) / 2; k++) {                            \
                b[2 * k] = ZIPLO(a[k], a[k + (N) / 2]);                                            \
                b[2 * k + 1] = ZIPHI(a[k], a[k + (N) / 2]);                                        \
            }                                                                                      \
            _Pragma("GCC unroll 16") for (int i = 0; i < (N); i++)                                 \
                a[i] = b[i];                                                                       \
        }                                                                                          \
        _Pragma("GCC unroll 16") for (int i = 0; i < (N); i++)                                     \
            bst(d + i * ds, a[i]);                                                                 \
    }

/* A tile kernel copies an nr x nc tile (at most DMLCPU_TILE_EDGE_* on each side) whose source
 * columns and destination rows are contiguous: dst[r * dr + c] = src[c * sc + r] (strides in
 * elements). The tile goes through two buffers, in the memory order of the portable tile copy:
 * each source column (a contiguous run) is copied into a row of the first buffer in one go,
 * B x B blocks are transposed in registers into the second, and each of its rows is written to a
 * destination row in one go; edges that do not fill a block are blocks too, ending at the tile's
 * last row or column and overlapping blocks already done (same values), unless the tile is
 * narrower than a block: then they are copied element by element.
 * Blocks transposed straight from the source to the destination were up to 2.5 times slower
 * than the portable copy on AVX2 when the rows were a multiple of 4 KiB apart (64 MiB FLOAT32:
 * many lines of one cache set written at a time); the two extra passes stay in L1. */
#define DEF_TILE(NAME, T, B, BLOCK, EDGE)                                                          \
    static void NAME(char *dst, ptrdiff_t dr, const char *src, ptrdiff_t sc, size_t nr, size_t nc, \
                     size_t before, size_t after)                                                  \
    {                                                                                              \
        (void)before, (void)after; /* the tile's own elements only */                              \
        T in[(EDGE) * ((EDGE) + 32 / sizeof(T))], out[(EDGE) * ((EDGE) + 32 / sizeof(T))];         \
        T *d = (T *)(void *)dst;                                                                   \
        const T *s = (const T *)(const void *)src;                                                 \
        const size_t ip = nr + 32 / sizeof(T), op = nc + 32 / sizeof(T); /* pitches */            \
        for (size_t c = 0; c < nc; c++)                                                            \
            memcpy(in + c * ip, s + (ptrdiff_t)c * sc, nr * sizeof(T));                            \
        const size_t rfull = nr / (B) * (B), cfull = nc / (B) * (B);                               \
        for (size_t c0 = 0; c0 < cfull; c0 += (B))                                                 \
            for (size_t r0 = 0; r0 < rfull; r0 += (B))                                             \
                BLOCK(out + r0 * op + c0, (ptrdiff_t)op, in + c0 * ip + r0, (ptrdiff_t)ip);        \
        if (nr >= (B) && nc >= (B)) { /* edges: blocks ending at the last row or column */       \
            const size_t rl = nr - (B), cl = nc - (B);                                             \
            if (rfull < nr)                                                                        \
                for (size_t c0 = 0; c0 < cfull; c0 += (B))                                         \
                    BLOCK(out + rl * op + c0, (ptrdiff_t)op, in + c0 * ip + rl, (ptrdiff_t)ip);    \
            if (cfull < nc) {                                                                      \
                for (size_t r0 = 0; r0 < rfull; r0 += (B))                                         \
                    BLOCK(out + r0 * op + cl, (ptrdiff_t)op, in + cl * ip + r0, (ptrdiff_t)ip);    \
                if (rfull < nr)                                                                    \
                    BLOCK(out + rl * op + cl, (ptrdiff_t)op, in + cl * ip + rl, (ptrdiff_t)ip);    \
            }                                                                                      \
        } else                                                                                     \
            for (size_t c = 0; c < nc; c++) /* a tile narrower than a block */                     \
                for (size_t r = c < cfull ? rfull : 0; r < nr; r++)                                \
                    out[r * op + c] = in[c * ip + r];                                              \
        for (size_t r = 0; r < nr; r++)                                                            \
            memcpy(d + (ptrdiff_t)r * dr, out + r * op, nc * sizeof(T));                           \
    }

/* Strided copies into a unit-stride destination (SLICE with steps of 2 or -1): one vector per
 * store, the source read with whole vectors and reordered in registers. Other strides and the
 * tails take the element loop; unit strides are memcpy. */
#define DEF_COPY_RUNS(NAME, T, REV, EVEN)                                                          \
    static void NAME(void *dst, ptrdiff_t ds, const void *src, ptrdiff_t ss, size_t n)             \
    {                                                                                              \
        T *d = dst;                                                                                \
        const T *s = src;                                                                          \
        const size_t v = RVB / sizeof(T); /* elements per vector */                                \
        size_t i = 0;                                                                              \
        if (ds == 1 && ss == 1) {                                                                  \
            memcpy(d, s, n * sizeof(T));                                                           \
            return;                                                                                \
        }                                                                                          \
        if (ds == 1 && ss == -1) /* d[i] = s[-i] */                                                \
            for (; i + v <= n; i += v)                                                             \
                rst(d + i, REV(rld(s - i - (v - 1))));                                             \
        else if (ds == 1 && ss == 2) { /* d[i] = s[2i]; a last vector would read past s[2n-2] */  \
            for (; i + 2 * v < n; i += 2 * v) { /* two stores a step: half the loop's own cost */  \
                const rvec e0 = EVEN(rld(s + 2 * i), rld(s + 2 * i + v));                          \
                const rvec e1 = EVEN(rld(s + 2 * i + 2 * v), rld(s + 2 * i + 3 * v));              \
                rst(d + i, e0);                                                                    \
                rst(d + i + v, e1);                                                                \
            }                                                                                      \
            for (; i + v < n; i += v)                                                              \
                rst(d + i, EVEN(rld(s + 2 * i), rld(s + 2 * i + v)));                              \
        }                                                                                          \
        for (; i < n; i++)                                                                         \
            d[(ptrdiff_t)i * ds] = s[(ptrdiff_t)i * ss];                                           \
    }

/* SLICE_GRAD with a window step of 2: the source's elements with a zero after each (but the
 * last), then `tail` zeros: dst[2i] = src[i * ss], dst[2i + 1] = 0, 2 count - 1 + tail elements
 * in all. With a tail, a vector may end at the last element's zero. */
#define DEF_EXPAND2(NAME, T, ZLO, ZHI)                                                             \
    static void NAME(void *dst, const void *src, ptrdiff_t ss, size_t count, size_t tail)         \
    {                                                                                              \
        T *d = dst;                                                                                \
        const T *s = src;                                                                          \
        const size_t v = RVB / sizeof(T);                                                          \
        const rvec z = rzero();                                                                    \
        size_t i = 0;                                                                              \
        if (ss == 1) /* writes d[2i .. 2i + 2v): within 2 count - 1, or the tail's first zero */  \
            for (; i + v + (tail ? 0 : 1) <= count; i += v) {                                      \
                const rvec x = rld(s + i);                                                         \
                rst(d + 2 * i, ZLO(x, z));                                                         \
                rst(d + 2 * i + v, ZHI(x, z));                                                     \
            }                                                                                      \
        for (; i < count; i++) {                                                                   \
            d[2 * i] = s[(ptrdiff_t)i * ss];                                                       \
            if (i + 1 < count)                                                                     \
                d[2 * i + 1] = 0;                                                                  \
        }                                                                                          \
        for (size_t k = 0; k < tail; k++)                                                          \
            d[2 * count - 1 + k] = 0;                                                              \
    }

#endif
