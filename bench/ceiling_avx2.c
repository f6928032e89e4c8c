/* The AVX2 read kernel of the ceilings; this file alone is compiled with -mavx2. */
#ifndef __AVX2__
#error "ceiling_avx2.c must be compiled with -mavx2"
#endif
#include <immintrin.h>

#include "bench.h"

uint64_t read_sum_avx2(const void *p, size_t bytes)
{
    const unsigned char *b = p;
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 128 <= bytes; i += 128) {
        a0 = _mm256_add_epi64(a0, _mm256_load_si256((const __m256i *)(b + i)));
        a1 = _mm256_add_epi64(a1, _mm256_load_si256((const __m256i *)(b + i + 32)));
        a2 = _mm256_add_epi64(a2, _mm256_load_si256((const __m256i *)(b + i + 64)));
        a3 = _mm256_add_epi64(a3, _mm256_load_si256((const __m256i *)(b + i + 96)));
    }
    __m256i s = _mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3));
    uint64_t lanes[4];
    _mm256_storeu_si256((__m256i *)lanes, s);
    uint64_t r = lanes[0] + lanes[1] + lanes[2] + lanes[3];
    return r + read_sum_c(b + i, bytes - i);
}
