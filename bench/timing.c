/*
 * The timer: warm up, pick how many calls make one sample, then take samples until both the
 * repeat count and the minimum time are reached. Statistics are over samples, each the mean
 * time of one call within the sample, so a preempted sample moves the median little.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <time.h>

#include "bench.h"

#define MAX_SAMPLES 1000

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between order statistics of a sorted array. */
static double quantile(const double *sorted, int n, double q)
{
    double pos = q * (double)(n - 1);
    int i = (int)pos;
    if (i >= n - 1) return sorted[n - 1];
    double f = pos - (double)i;
    return sorted[i] * (1.0 - f) + sorted[i + 1] * f;
}

int bench_time(timed_fn fn, void *ctx, const timing_options *opt, timing_result *out)
{
    int rc;
    out->samples = NULL;
    out->sample_count = 0;

    /* Warm-up: the first call pays for page faults, cold caches and a cold thread pool. A
     * slow call (10 ms or more) is its own warm-up and calibration; short calls keep warming
     * up for a few milliseconds so clocks and caches settle. */
    double t0 = bench_now();
    if ((rc = fn(ctx)) != 0) return rc;
    double one = bench_now() - t0;
    if (one < 0.01) {
        t0 = bench_now();
        if ((rc = fn(ctx)) != 0) return rc;
        one = bench_now() - t0;
        long calls = 1;
        while (bench_now() - t0 < 0.005 && calls < 100000) {
            if ((rc = fn(ctx)) != 0) return rc;
            calls++;
        }
        double per_call = (bench_now() - t0) / (double)calls;
        if (per_call < one) one = per_call;
    }

    long per_sample = 1;
    if (one > 0.0 && one < opt->sample_time) per_sample = (long)(opt->sample_time / one);
    if (per_sample < 1) per_sample = 1;
    if (per_sample > 1000000) per_sample = 1000000;

    double *s = malloc(sizeof(double) * MAX_SAMPLES);
    if (!s) return -1;
    int n = 0;
    double spent = 0.0;
    for (;;) {
        double a = bench_now();
        for (long k = 0; k < per_sample; k++) {
            if ((rc = fn(ctx)) != 0) {
                free(s);
                return rc;
            }
        }
        double dt = bench_now() - a;
        s[n++] = dt / (double)per_sample;
        spent += dt;
        if (n >= MAX_SAMPLES) break;
        if (n >= opt->repeat && spent >= opt->min_time) break;
        /* Slow calls: three samples are enough once the time budget is spent. */
        if (n >= 3 && spent >= opt->max_time) break;
    }

    double *sorted = malloc(sizeof(double) * (size_t)n);
    if (!sorted) {
        free(s);
        return -1;
    }
    for (int i = 0; i < n; i++) sorted[i] = s[i];
    qsort(sorted, (size_t)n, sizeof(double), cmp_double);
    out->min = sorted[0];
    out->median = quantile(sorted, n, 0.5);
    out->p25 = quantile(sorted, n, 0.25);
    out->p75 = quantile(sorted, n, 0.75);
    free(sorted);
    out->samples = s;
    out->sample_count = n;
    out->calls_per_sample = (int)per_sample;
    return 0;
}
