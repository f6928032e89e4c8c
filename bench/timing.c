/*
 * The timer: warm up, pick how many calls make one sample, then take samples until both the
 * repeat count and the minimum time are reached. Statistics are over samples, each the mean
 * time of one call within the sample, so a preempted sample moves the median little.
 *
 * Several functions (one case at several thread counts, or under several ISA caps) are timed
 * side by side: their samples alternate, one of each per round, the order reversed every other
 * round. A drift of the machine (clock, caches, other tenants of a shared host) then falls on
 * all of them alike instead of on whichever ran last, and their ratios keep no order effect.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
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

/* Warm-up and calibration: the calls per sample. The first call pays for page faults, cold
 * caches and a cold thread pool. A slow call (10 ms or more) is its own warm-up and
 * calibration; short calls keep warming up for a few milliseconds so clocks and caches
 * settle. */
static int calibrate(timed_fn fn, void *ctx, const timing_options *opt, long *per_sample)
{
    int rc;
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
    long n = 1;
    if (one > 0.0 && one < opt->sample_time) n = (long)(opt->sample_time / one);
    if (n < 1) n = 1;
    if (n > 1000000) n = 1000000;
    *per_sample = n;
    return 0;
}

static int summarize(double *s, int n, long per_sample, timing_result *out)
{
    double *sorted = malloc(sizeof(double) * (size_t)n);
    if (!sorted) return -1;
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

int bench_time_set(timed_fn fn, void *const *ctx, int k, const timing_options *opt,
                   timing_result *out)
{
    int rc = 0;
    long per_sample[BENCH_TIME_SET_MAX];
    double spent[BENCH_TIME_SET_MAX];
    double *s[BENCH_TIME_SET_MAX];
    if (k < 1 || k > BENCH_TIME_SET_MAX) return -1;
    for (int j = 0; j < k; j++) {
        out[j].samples = NULL;
        out[j].sample_count = 0;
        s[j] = NULL;
        spent[j] = 0.0;
    }
    for (int j = 0; j < k; j++)
        if ((rc = calibrate(fn, ctx[j], opt, &per_sample[j])) != 0) return rc;
    for (int j = 0; j < k; j++)
        if (!(s[j] = malloc(sizeof(double) * MAX_SAMPLES))) {
            rc = -1;
            goto fail;
        }

    int n = 0; /* rounds taken: every function has n samples */
    for (;;) {
        for (int i = 0; i < k; i++) {
            const int j = n % 2 ? k - 1 - i : i;
            double a = bench_now();
            for (long c = 0; c < per_sample[j]; c++)
                if ((rc = fn(ctx[j])) != 0) goto fail;
            double dt = bench_now() - a;
            s[j][n] = dt / (double)per_sample[j];
            spent[j] += dt;
        }
        n++;
        if (n >= MAX_SAMPLES) break;
        int enough = n >= opt->repeat, budget = n >= 3;
        for (int j = 0; j < k; j++) {
            enough &= spent[j] >= opt->min_time;
            /* Slow calls: three samples are enough once the time budget is spent. */
            budget &= spent[j] >= opt->max_time;
        }
        if (enough || budget) break;
    }
    for (int j = 0; j < k; j++) {
        if (summarize(s[j], n, per_sample[j], &out[j]) != 0) {
            rc = -1;
            goto fail;
        }
        s[j] = NULL; /* owned by out[j] now */
    }
    return 0;
fail:
    for (int j = 0; j < k; j++) {
        free(s[j]);
        free(out[j].samples);
        out[j].samples = NULL;
        out[j].sample_count = 0;
    }
    return rc;
}

int bench_time(timed_fn fn, void *ctx, const timing_options *opt, timing_result *out)
{
    void *one[1] = {ctx};
    return bench_time_set(fn, one, 1, opt, out);
}

void bench_paired_ratio(const timing_result *a, const timing_result *b, double *ratio,
                        double *sigma)
{
    const int n = a->sample_count;
    if (n < 3 || b->sample_count != n || !a->samples || !b->samples) return;
    double *l = malloc(sizeof(double) * (size_t)n);
    if (!l) return;
    for (int i = 0; i < n; i++) l[i] = log(a->samples[i] / b->samples[i]);
    qsort(l, (size_t)n, sizeof(double), cmp_double);
    const double iqr = quantile(l, n, 0.75) - quantile(l, n, 0.25);
    *ratio = exp(quantile(l, n, 0.5));
    *sigma = iqr / 1.349 * 1.25 / sqrt((double)n);
    free(l);
}
