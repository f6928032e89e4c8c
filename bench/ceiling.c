/*
 * The machine's ceilings, measured in the same run as the cases: a streaming read (a sum of
 * the buffer as 64-bit words, with the widest vectors the CPU has) and a memcpy into a buffer
 * that was already written once. Both are split into equal contiguous chunks over the threads.
 * The read kernel is the benchmark's own: it shares nothing with the library.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#if defined(_OPENMP)
#include <omp.h>
#endif
#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "bench.h"

typedef uint64_t (*read_fn)(const void *p, size_t bytes);

/* Plain C: eight independent accumulators keep the adds off the critical path. */
uint64_t read_sum_c(const void *p, size_t bytes)
{
    const uint64_t *w = p;
    size_t n = bytes / 8;
    uint64_t a[8] = {0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++) a[k] += w[i + k];
    for (; i < n; i++) a[0] += w[i];
    return a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7];
}

#if defined(__aarch64__)
/* NEON is part of the aarch64 baseline: no extra flags needed. */
static uint64_t read_sum_neon(const void *p, size_t bytes)
{
    const uint64_t *w = p;
    size_t n = bytes / 8, i = 0;
    uint64x2_t a0 = vdupq_n_u64(0), a1 = a0, a2 = a0, a3 = a0;
    for (; i + 8 <= n; i += 8) {
        a0 = vaddq_u64(a0, vld1q_u64(w + i));
        a1 = vaddq_u64(a1, vld1q_u64(w + i + 2));
        a2 = vaddq_u64(a2, vld1q_u64(w + i + 4));
        a3 = vaddq_u64(a3, vld1q_u64(w + i + 6));
    }
    uint64_t r = vaddvq_u64(vaddq_u64(vaddq_u64(a0, a1), vaddq_u64(a2, a3)));
    for (; i < n; i++) r += w[i];
    return r;
}
#endif

#if defined(__x86_64__) || defined(_M_X64)
static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

/* 2 = AVX-512F, 1 = AVX2, 0 = neither (CPU bits and the OS's saved register state). */
static int x86_level(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    if (!osxsave || !avx) return 0;
    uint64_t xcr0 = xgetbv0();
    if ((xcr0 & 0x6) != 0x6) return 0; /* XMM and YMM state */
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    int avx2 = (b >> 5) & 1, avx512f = (b >> 16) & 1;
    if (avx512f && (xcr0 & 0xe6) == 0xe6) return 2; /* + opmask, ZMM_Hi256, Hi16_ZMM */
    return avx2 ? 1 : 0;
}
#endif

static read_fn chosen;
static const char *chosen_name;

static void choose(void)
{
    if (chosen) return;
    chosen = read_sum_c;
    chosen_name = "c";
#if defined(__x86_64__) || defined(_M_X64)
    int level = x86_level();
    if (level == 2) {
        chosen = read_sum_avx512;
        chosen_name = "avx512";
    } else if (level == 1) {
        chosen = read_sum_avx2;
        chosen_name = "avx2";
    }
#elif defined(__aarch64__)
    chosen = read_sum_neon;
    chosen_name = "neon";
#endif
}

const char *ceiling_isa(void)
{
    choose();
    return chosen_name;
}

int bench_max_threads(void)
{
#if defined(_OPENMP)
    return omp_get_max_threads();
#else
    return 1;
#endif
}

typedef struct {
    ceiling_kind kind;
    const unsigned char *src;
    unsigned char *dst;
    size_t bytes;
    int threads;
    int passes; /* passes over the buffer per call (per parallel region) */
    int streams; /* reads: 1, or 4 (read_streams) */
} ceiling_ctx;

static volatile uint64_t sink;

/* Chunk t of n over bytes, in whole 4 KiB pages so threads never share a cache line. */
static void chunk(size_t bytes, int n, int t, size_t *off, size_t *len)
{
    size_t pages = bytes / 4096, per = pages / (size_t)n, extra = pages % (size_t)n;
    size_t first = per * (size_t)t + ((size_t)t < extra ? (size_t)t : extra);
    size_t count = per + ((size_t)t < extra ? 1 : 0);
    *off = first * 4096;
    *len = count * 4096;
    if (t == n - 1) *len = bytes - *off;
}

/* A read of len bytes as four streams: its quarters, READ_STEP bytes of each in turn. One core
 * may read memory faster so than in one stream (the AVX2 row sums read four streams); the read
 * ceiling is the better of the two. */
#define READ_STEP 1024
static uint64_t read_streams(const unsigned char *p, size_t len)
{
    const size_t q = len / 4 / READ_STEP * READ_STEP;
    uint64_t acc = 0;
    for (size_t off = 0; off < q; off += READ_STEP)
        for (size_t s = 0; s < 4; s++)
            acc += chosen(p + s * q + off, READ_STEP);
    if (len > 4 * q)
        acc += chosen(p + 4 * q, len - 4 * q);
    return acc;
}

static void run_part(const ceiling_ctx *c, int t, int n, uint64_t *acc)
{
    size_t off, len;
    chunk(c->bytes, n, t, &off, &len);
    for (int k = 0; k < c->passes; k++) {
        if (c->kind == CEIL_READ)
            *acc += c->streams > 1 ? read_streams(c->src + off, len) : chosen(c->src + off, len);
        else
            memcpy(c->dst + off, c->src + off, len);
    }
}

static int ceiling_call(void *p)
{
    const ceiling_ctx *c = p;
    uint64_t total = 0;
    if (c->threads <= 1) {
        run_part(c, 0, 1, &total);
    } else {
#if defined(_OPENMP)
#pragma omp parallel num_threads(c->threads) reduction(+ : total)
        run_part(c, omp_get_thread_num(), omp_get_num_threads(), &total);
#else
        run_part(c, 0, 1, &total);
#endif
    }
    sink = total;
    return 0;
}

double ceiling_measure(ceiling_kind kind, size_t bytes, int threads, const timing_options *opt,
                       timing_result *out)
{
    choose();
    /* Each thread makes several passes over its chunk within one parallel region, so the
     * ceiling is the machine's bandwidth and not the cost of starting threads (which the cases
     * pay, as they should). About 64 MiB are moved per region. */
    int passes = bytes >= ((size_t)64 << 20) ? 1 : (int)(((size_t)64 << 20) / bytes);
    ceiling_ctx c = {kind, NULL, NULL, bytes, threads, passes, 1};
    unsigned char *src = bench_alloc(bytes);
    unsigned char *dst = kind == CEIL_COPY ? bench_alloc(bytes) : NULL;
    fill_data(DMLCPU_DATA_TYPE_UINT8, src, bytes, 99);
    if (dst) memset(dst, 1, bytes);
    c.src = src;
    c.dst = dst;
    int rc = bench_time(ceiling_call, &c, opt, out);
    if (rc == 0 && kind == CEIL_READ) {
        timing_result four;
        c.streams = 4;
        int rc4 = bench_time(ceiling_call, &c, opt, &four);
        if (rc4 == 0 && four.min < out->min) {
            free(out->samples);
            *out = four;
        } else {
            free(four.samples);
        }
    }
    free(src);
    free(dst);
    if (rc != 0) return 0.0;
    /* Report per pass. */
    out->median /= passes;
    out->min /= passes;
    out->p25 /= passes;
    out->p75 /= passes;
    for (int i = 0; i < out->sample_count; i++) out->samples[i] /= passes;
    /* A ceiling is what the machine can do: its best sample, as STREAM reports its best time.
     * A neighbour that streams memory for part of the measurement does not lower it. */
    return (double)bytes / out->min * 1e-9;
}
