/*
 * Buffers and input data, shared by dmlcpu-bench and the oneDNN peer.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

void *bench_alloc(size_t bytes)
{
    size_t rounded = (bytes + 4095) & ~(size_t)4095;
    void *p = aligned_alloc(4096, rounded ? rounded : 4096);
    if (!p) {
        fprintf(stderr, "dmlcpu-bench: out of memory (%zu bytes)\n", bytes);
        exit(2);
    }
    return p;
}

static uint64_t next_random(uint64_t *s)
{
    /* xorshift64*: fast, and good enough to defeat branch prediction in ARGMAX. */
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

void fill_data(dmlcpu_data_type t, void *buf, size_t bytes, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    unsigned char *b = buf;
    size_t e = dtype_size(t), n = bytes / e;
    /* Floats: a random sign, exponent for [0.5, 1) or [1, 2), random mantissa. */
    switch (t) {
    case DMLCPU_DATA_TYPE_FLOAT32:
        for (size_t i = 0; i < n; i++) {
            uint64_t u = next_random(&s);
            uint32_t v = (uint32_t)(u >> 63) << 31 | (uint32_t)(126 + ((u >> 62) & 1)) << 23 |
                         (uint32_t)(u & 0x7fffff);
            memcpy(b + 4 * i, &v, 4);
        }
        break;
    case DMLCPU_DATA_TYPE_FLOAT16:
        for (size_t i = 0; i < n; i++) {
            uint64_t u = next_random(&s);
            uint16_t v = (uint16_t)((u >> 63) << 15 | (14 + ((u >> 62) & 1)) << 10 | (u & 0x3ff));
            memcpy(b + 2 * i, &v, 2);
        }
        break;
    case DMLCPU_DATA_TYPE_FLOAT64:
        for (size_t i = 0; i < n; i++) {
            uint64_t u = next_random(&s);
            uint64_t v = (u >> 63) << 63 | (1022 + ((u >> 62) & 1)) << 52 |
                         (next_random(&s) & 0xfffffffffffffull);
            memcpy(b + 8 * i, &v, 8);
        }
        break;
    default: {
        size_t i = 0;
        for (; i + 8 <= bytes; i += 8) {
            uint64_t u = next_random(&s);
            memcpy(b + i, &u, 8);
        }
        for (; i < bytes; i++) b[i] = (unsigned char)next_random(&s);
    }
    }
}
