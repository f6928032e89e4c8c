/* AVX2 copy kernels (the AVX2 and AVX-512 levels both use them): strided runs with steps of 2
 * and -1, SLICE_GRAD rows with a step of 2, and transposes of 1- and 2-byte elements for tiled
 * copies. The bodies are in simd/copy_kernels.h; this file gives them the vector operations.
 * Transposed blocks use 16-byte registers (8 x 8 of 2 bytes, 16 x 16 of 1 byte). */
#if !defined(__AVX2__)
#error "copy_avx2.c must be compiled with -mavx2 -mfma -mf16c"
#endif

#include <immintrin.h>
#include "kernels.h"

/* 16-byte vectors for the transposed blocks, 32-byte vectors for the runs. */
typedef __m128i bvec;
static inline bvec bld(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline void bst(void *p, bvec v) { _mm_storeu_si128((__m128i *)p, v); }
typedef __m256i rvec;
#define RVB 32
static inline rvec rld(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline void rst(void *p, rvec v) { _mm256_storeu_si256((__m256i *)p, v); }
static inline rvec rzero(void) { return _mm256_setzero_si256(); }

#include "simd/copy_kernels.h"

DEF_BLOCK_ZIP(block_x16, uint16_t, 8, 3, _mm_unpacklo_epi16, _mm_unpackhi_epi16)
DEF_BLOCK_ZIP(block_x8, uint8_t, 16, 4, _mm_unpacklo_epi8, _mm_unpackhi_epi8)

DEF_TILE(tile_x8_avx2, uint8_t, 16, block_x8, DMLCPU_TILE_EDGE_X8)
DEF_TILE(tile_x16_avx2, uint16_t, 8, block_x16, DMLCPU_TILE_EDGE_X16)

/* Runs with steps of -1 and 2: the reversal of a vector, and the even elements of two. */
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

DEF_COPY_RUNS(copy_x8_avx2, uint8_t, rev_x8, even_x8)
DEF_COPY_RUNS(copy_x16_avx2, uint16_t, rev_x16, even_x16)
DEF_COPY_RUNS(copy_x32_avx2, uint32_t, rev_x32, even_x32)
DEF_COPY_RUNS(copy_x64_avx2, uint64_t, rev_x64, even_x64)

/* SLICE_GRAD rows of step 2: the 128-bit unpacks interleave within lanes; the lane permutes put
 * the halves in order (the two unpacks are shared by both halves). */
#define DEF_ZIP_ZERO(NAME, UNPACKLO, UNPACKHI)                                                     \
    static inline __m256i NAME##_lo(__m256i x, __m256i z)                                          \
    {                                                                                              \
        return _mm256_permute2x128_si256(UNPACKLO(x, z), UNPACKHI(x, z), 0x20);                    \
    }                                                                                              \
    static inline __m256i NAME##_hi(__m256i x, __m256i z)                                          \
    {                                                                                              \
        return _mm256_permute2x128_si256(UNPACKLO(x, z), UNPACKHI(x, z), 0x31);                    \
    }
DEF_ZIP_ZERO(zipz_x8, _mm256_unpacklo_epi8, _mm256_unpackhi_epi8)
DEF_ZIP_ZERO(zipz_x16, _mm256_unpacklo_epi16, _mm256_unpackhi_epi16)
DEF_ZIP_ZERO(zipz_x32, _mm256_unpacklo_epi32, _mm256_unpackhi_epi32)
DEF_ZIP_ZERO(zipz_x64, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64)
DEF_EXPAND2(expand2_x8_avx2, uint8_t, zipz_x8_lo, zipz_x8_hi)
DEF_EXPAND2(expand2_x16_avx2, uint16_t, zipz_x16_lo, zipz_x16_hi)
DEF_EXPAND2(expand2_x32_avx2, uint32_t, zipz_x32_lo, zipz_x32_hi)
DEF_EXPAND2(expand2_x64_avx2, uint64_t, zipz_x64_lo, zipz_x64_hi)

const kernel_table dmlcpu_kernels_avx2_copy = {
    .expand2 = {expand2_x8_avx2, expand2_x16_avx2, expand2_x32_avx2, expand2_x64_avx2},
    .copy = {copy_x8_avx2, copy_x16_avx2, copy_x32_avx2, copy_x64_avx2},
    .isa = DMLCPU_ISA_AVX2,
    /* 4- and 8-byte tiles stay with the portable copy: these were 15-40% faster at 512 KiB but
     * 10-15% slower on 64 MiB transposes of power-of-two widths, where the two buffers (36 KiB)
     * crowd the source and destination lines out of L1. */
    .transpose = {tile_x8_avx2, tile_x16_avx2, NULL, NULL},
};
