/* AVX2 copy kernels (the AVX2 and AVX-512 levels both use them): strided runs with steps of 2
 * and -1, SLICE_GRAD rows with a step of 2, and transposes of 1- and 2-byte elements for tiled
 * copies.
 *
 * A tile kernel copies an nr x nc tile (at most DMLCPU_TILE_EDGE_* on each side) whose source
 * columns and destination rows are contiguous: dst[r * dr + c] = src[c * sc + r] (strides in
 * elements). Square blocks are transposed in registers, 8 x 8 (2 bytes) and 16 x 16 (1 byte);
 * edges that do not fill a block are copied element by element. Copies move bits, so any order
 * gives the same result. */
#if !defined(__AVX2__)
#error "copy_avx2.c must be compiled with -mavx2 -mfma -mf16c"
#endif

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "kernels.h"

/* n x n blocks of 2- and 1-byte elements (n = 8 and 16, one 16-byte register per row): each
 * round interleaves rows k and k + n/2 (element by element, low halves then high halves) into
 * rows 2k and 2k + 1. Writing the row index as bits r and the column as bits c, a round rotates
 * the bit string (r, c) left by one, so log2(n) rounds turn (r, c) into (c, r). */
#define DEF_BLOCK_UNPACK(NAME, T, N, ROUNDS, UNPACKLO, UNPACKHI)                                   \
    static inline void NAME(T *d, ptrdiff_t ds, const T *s, ptrdiff_t ss)                          \
    {                                                                                              \
        __m128i a[N], b[N];                                                                        \
        _Pragma("GCC unroll 16") for (int i = 0; i < (N); i++)                                     \
            a[i] = _mm_loadu_si128((const __m128i *)(s + i * ss));                                 \
        _Pragma("GCC unroll 4") for (int round = 0; round < (ROUNDS); round++) {                   \
            _Pragma("GCC unroll 8") for (int k = 0; k < (N) / 2; k++) {                            \
                b[2 * k] = UNPACKLO(a[k], a[k + (N) / 2]);                                         \
                b[2 * k + 1] = UNPACKHI(a[k], a[k + (N) / 2]);                                     \
            }                                                                                      \
            _Pragma("GCC unroll 16") for (int i = 0; i < (N); i++)                                 \
                a[i] = b[i];                                                                       \
        }                                                                                          \
        _Pragma("GCC unroll 16") for (int i = 0; i < (N); i++)                                     \
            _mm_storeu_si128((__m128i *)(d + i * ds), a[i]);                                       \
    }
DEF_BLOCK_UNPACK(block_x16, uint16_t, 8, 3, _mm_unpacklo_epi16, _mm_unpackhi_epi16)
DEF_BLOCK_UNPACK(block_x8, uint8_t, 16, 4, _mm_unpacklo_epi8, _mm_unpackhi_epi8)

/* The tile goes through two buffers, in the memory order of the portable tile copy: each source
 * column (a contiguous run) is copied into a row of the first buffer in one go, B x B blocks are
 * transposed in registers into the second, and each of its rows is written to a destination row
 * in one go. Blocks transposed straight from the source to the destination were up to 2.5 times
 * slower than the portable copy when the rows were a multiple of 4 KiB apart (64 MiB FLOAT32:
 * many lines of one cache set written at a time); the two extra passes stay in L1. */
#define DEF_TILE_AVX2(NAME, T, B, BLOCK, EDGE)                                                     \
    static void NAME(char *dst, ptrdiff_t dr, const char *src, ptrdiff_t sc, size_t nr, size_t nc) \
    {                                                                                              \
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
        for (size_t c = 0; c < nc; c++) /* the edges that do not fill a block */                   \
            for (size_t r = c < cfull ? rfull : 0; r < nr; r++)                                    \
                out[r * op + c] = in[c * ip + r];                                                  \
        for (size_t r = 0; r < nr; r++)                                                            \
            memcpy(d + (ptrdiff_t)r * dr, out + r * op, nc * sizeof(T));                           \
    }
DEF_TILE_AVX2(tile_x8_avx2, uint8_t, 16, block_x8, DMLCPU_TILE_EDGE_X8)
DEF_TILE_AVX2(tile_x16_avx2, uint16_t, 8, block_x16, DMLCPU_TILE_EDGE_X16)

/* Strided copies into a unit-stride destination (SLICE with steps of 2 or -1): 32 bytes per
 * store, the source read with whole vectors and reordered in registers. Other strides and the
 * tails take the element loop; unit strides are memcpy. */
static inline __m256i rev_x8(__m256i v)
{
    const __m256i m = _mm256_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
                                       15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    return _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, m), 0x4E);
}
static inline __m256i rev_x16(__m256i v)
{
    const __m256i m = _mm256_setr_epi8(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1,
                                       14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
    return _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, m), 0x4E);
}
static inline __m256i rev_x32(__m256i v)
{
    return _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
}
static inline __m256i rev_x64(__m256i v) { return _mm256_permute4x64_epi64(v, 0x1B); }

/* The even elements of a (first) and b (second), in order. pack* narrows each lane's halves
 * and interleaves the 128-bit lanes of a and b; the 64-bit permute puts them back in order. */
static inline __m256i even_x8(__m256i a, __m256i b)
{
    const __m256i m = _mm256_set1_epi16(0x00ff);
    return _mm256_permute4x64_epi64(_mm256_packus_epi16(_mm256_and_si256(a, m), _mm256_and_si256(b, m)), 0xD8);
}
static inline __m256i even_x16(__m256i a, __m256i b)
{
    const __m256i m = _mm256_set1_epi32(0xffff);
    return _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_and_si256(a, m), _mm256_and_si256(b, m)), 0xD8);
}
static inline __m256i even_x32(__m256i a, __m256i b)
{
    __m256 e = _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), 0x88);
    return _mm256_permute4x64_epi64(_mm256_castps_si256(e), 0xD8);
}
static inline __m256i even_x64(__m256i a, __m256i b)
{
    return _mm256_permute4x64_epi64(_mm256_unpacklo_epi64(a, b), 0xD8);
}

#define DEF_COPY_AVX2(NAME, T, REV, EVEN)                                                          \
    static void NAME(void *dst, ptrdiff_t ds, const void *src, ptrdiff_t ss, size_t n)             \
    {                                                                                              \
        T *d = dst;                                                                                \
        const T *s = src;                                                                          \
        const size_t v = 32 / sizeof(T); /* elements per vector */                                 \
        size_t i = 0;                                                                              \
        if (ds == 1 && ss == 1) {                                                                  \
            memcpy(d, s, n * sizeof(T));                                                           \
            return;                                                                                \
        }                                                                                          \
        if (ds == 1 && ss == -1) /* d[i] = s[-i] */                                                \
            for (; i + v <= n; i += v)                                                             \
                _mm256_storeu_si256((__m256i *)(d + i),                                            \
                                    REV(_mm256_loadu_si256((const __m256i *)(s - i - (v - 1)))));  \
        else if (ds == 1 && ss == 2) /* d[i] = s[2i]; the last vector would read past s[2n-2] */   \
            for (; i + v < n; i += v)                                                              \
                _mm256_storeu_si256((__m256i *)(d + i),                                            \
                                    EVEN(_mm256_loadu_si256((const __m256i *)(s + 2 * i)),         \
                                         _mm256_loadu_si256((const __m256i *)(s + 2 * i + v))));   \
        for (; i < n; i++)                                                                         \
            d[(ptrdiff_t)i * ds] = s[(ptrdiff_t)i * ss];                                           \
    }
DEF_COPY_AVX2(copy_x8_avx2, uint8_t, rev_x8, even_x8)
DEF_COPY_AVX2(copy_x16_avx2, uint16_t, rev_x16, even_x16)
DEF_COPY_AVX2(copy_x32_avx2, uint32_t, rev_x32, even_x32)
DEF_COPY_AVX2(copy_x64_avx2, uint64_t, rev_x64, even_x64)

/* SLICE_GRAD with a window step of 2: the source's elements with a zero after each (but the
 * last). The 128-bit unpacks interleave within lanes; the lane permutes put the halves in order. */
#define DEF_EXPAND2_AVX2(NAME, T, UNPACKLO, UNPACKHI)                                              \
    static void NAME(void *dst, const void *src, ptrdiff_t ss, size_t count)                       \
    {                                                                                              \
        T *d = dst;                                                                                \
        const T *s = src;                                                                          \
        const size_t v = 32 / sizeof(T);                                                           \
        const __m256i z = _mm256_setzero_si256();                                                  \
        size_t i = 0;                                                                              \
        if (ss == 1)                                                                               \
            for (; i + v < count; i += v) { /* writes d[2i .. 2i + 2v), within 2 count - 1 */     \
                __m256i x = _mm256_loadu_si256((const __m256i *)(s + i));                          \
                __m256i lo = UNPACKLO(x, z), hi = UNPACKHI(x, z);                                  \
                _mm256_storeu_si256((__m256i *)(d + 2 * i), _mm256_permute2x128_si256(lo, hi, 0x20)); \
                _mm256_storeu_si256((__m256i *)(d + 2 * i + v), _mm256_permute2x128_si256(lo, hi, 0x31)); \
            }                                                                                      \
        for (; i < count; i++) {                                                                   \
            d[2 * i] = s[(ptrdiff_t)i * ss];                                                       \
            if (i + 1 < count)                                                                     \
                d[2 * i + 1] = 0;                                                                  \
        }                                                                                          \
    }
DEF_EXPAND2_AVX2(expand2_x8_avx2, uint8_t, _mm256_unpacklo_epi8, _mm256_unpackhi_epi8)
DEF_EXPAND2_AVX2(expand2_x16_avx2, uint16_t, _mm256_unpacklo_epi16, _mm256_unpackhi_epi16)
DEF_EXPAND2_AVX2(expand2_x32_avx2, uint32_t, _mm256_unpacklo_epi32, _mm256_unpackhi_epi32)
DEF_EXPAND2_AVX2(expand2_x64_avx2, uint64_t, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64)

const kernel_table dmlcpu_kernels_avx2_copy = {
    .expand2 = {expand2_x8_avx2, expand2_x16_avx2, expand2_x32_avx2, expand2_x64_avx2},
    .copy = {copy_x8_avx2, copy_x16_avx2, copy_x32_avx2, copy_x64_avx2},
    .isa = DMLCPU_ISA_AVX2,
    /* 4- and 8-byte tiles stay with the portable copy: these were 15-40% faster at 512 KiB but
     * 10-15% slower on 64 MiB transposes of power-of-two widths, where the two buffers (36 KiB)
     * crowd the source and destination lines out of L1. */
    .transpose = {tile_x8_avx2, tile_x16_avx2, NULL, NULL},
};
