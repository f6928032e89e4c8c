/* The AVX-512 read kernel of the ceilings; this file alone is compiled with -mavx512f. */
#ifndef __AVX512F__
#error "ceiling_avx512.c must be compiled with -mavx512f"
#endif
#include <immintrin.h>

#include "bench.h"

uint64_t read_sum_avx512(const void *p, size_t bytes)
{
    const unsigned char *b = p;
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 256 <= bytes; i += 256) {
        a0 = _mm512_add_epi64(a0, _mm512_load_si512((const void *)(b + i)));
        a1 = _mm512_add_epi64(a1, _mm512_load_si512((const void *)(b + i + 64)));
        a2 = _mm512_add_epi64(a2, _mm512_load_si512((const void *)(b + i + 128)));
        a3 = _mm512_add_epi64(a3, _mm512_load_si512((const void *)(b + i + 192)));
    }
    __m512i s = _mm512_add_epi64(_mm512_add_epi64(a0, a1), _mm512_add_epi64(a2, a3));
    return (uint64_t)_mm512_reduce_add_epi64(s) + read_sum_c(b + i, bytes - i);
}
