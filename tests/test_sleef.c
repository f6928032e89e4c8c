/*
 * exp and log of every tier (src/simd/sleef_math.h: SLEEF's cinz variants; src/simd/lse_expf.h:
 * LOG_SUM_EXP's FLOAT32 inner-loop exp):
 *   same_bits   every vector width this CPU runs gives the scalar function's bits on edge cases
 *               (+-0, subnormals, the overflow and underflow thresholds, +-inf, NaN), a dense
 *               sweep of x - max <= 0 (what LOG_SUM_EXP feeds exp), wide sweeps and random bit
 *               patterns; NaN results need only be NaN;
 *   accuracy    the scalar functions against double precision (FLOAT32) and long double (a
 *               sample, FLOAT64): SLEEF's u10 within 1 ulp, lse_expf within LSE_EXPF_ULPS.
 * Not registered per ISA level: it calls the functions directly, and checks the CPU itself.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "sleef_variants.h"
#include "simd/lse_expf.h"
#include "simd/sleef_math.h"

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

/* The error bound of lse_expf: the rounding of 1 + (r + r^2 p) (half an ulp) plus that of r
 * (up to a third of an ulp of the result) and of the polynomial; the worst over every float in
 * [-104, 0] is 0.976 ulp (at -0x1.7714d4p+2). */
#define LSE_EXPF_ULPS 0.98
/* SLEEF 3.5.1's expd returns +inf above this argument, which is below ln(DBL_MAX) =
 * 0x1.62e42fefa39efp+9: the last 2e-6 of the range overflows early. The library calls exp only
 * on differences x - max <= 0. */
#define EXPD_OVERFLOW_FROM 709.78271114955742909217217426

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}
static float f32_of(uint32_t b) { float f; memcpy(&f, &b, sizeof f); return f; }
static uint32_t bits32(float f) { uint32_t b; memcpy(&b, &f, sizeof b); return b; }
static double f64_of(uint64_t b) { double f; memcpy(&f, &b, sizeof f); return f; }
static uint64_t bits64(double f) { uint64_t b; memcpy(&b, &f, sizeof b); return b; }

/* ---- inputs (count rounded up to a multiple of 16 with zeros) ---- */

typedef struct { void *p; size_t n, cap; size_t es; } arr;
static void push(arr *a, const void *v)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 1024;
        a->p = realloc(a->p, a->cap * a->es);
        cr_assert_not_null(a->p);
    }
    memcpy((char *)a->p + a->n++ * a->es, v, a->es);
}
static void pad16(arr *a)
{
    const double zero = 0;
    while (a->n % 16)
        push(a, &zero); /* the first es bytes of +0.0 are zero bits in both widths */
}
static void pushf(arr *a, float f) { push(a, &f); }
static void pushd(arr *a, double d) { push(a, &d); }

static arr inputs_f32(int lse_domain)
{
    arr a = {NULL, 0, 0, sizeof(float)};
    const float special[] = {0.0f, -0.0f, f32_of(1), f32_of(0x80000001u), f32_of(0x007fffffu),
                             -f32_of(0x007fffffu), FLT_MIN, -FLT_MIN, FLT_MAX, -FLT_MAX, INFINITY,
                             -INFINITY, NAN, -NAN, 1.0f, -1.0f, 0.5f, 2.0f, 88.0f, 88.72283f,
                             88.72284f, 89.0f, -86.0f, -87.33654f, -87.33655f, -103.27893f,
                             -103.97208f, -103.97209f, -104.0f, -104.00001f, -150.0f};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        pushf(&a, special[i]);
    /* around each threshold: the 64 floats on either side */
    const float edge[] = {88.72283f, -87.33654f, -103.97208f, -104.0f, 0.0f};
    for (size_t e = 0; e < sizeof edge / sizeof edge[0]; e++)
        for (int d = -64; d <= 64; d++)
            pushf(&a, f32_of(bits32(edge[e]) + (uint32_t)d));
    for (int i = 0; i <= 1 << 20; i++) /* dense: x - max in [-20, 0] */
        pushf(&a, -20.0f * (float)i / (float)(1 << 20));
    for (int i = 0; i <= 1 << 19; i++) /* wide: [-105, 90] */
        pushf(&a, -105.0f + 195.0f * (float)i / (float)(1 << 19));
    for (int i = 0; i <= 1 << 18; i++) /* log's core range [0.5, 2] */
        pushf(&a, 0.5f + 1.5f * (float)i / (float)(1 << 18));
    uint64_t s = 42;
    for (int i = 0; i < 1 << 19; i++)
        pushf(&a, f32_of((uint32_t)splitmix(&s)));
    if (lse_domain) { /* lse_expf's contract: x <= 0 or NaN */
        float *p = a.p;
        for (size_t i = 0; i < a.n; i++)
            if (p[i] > 0)
                p[i] = -p[i];
    }
    pad16(&a);
    return a;
}

static arr inputs_f64(void)
{
    arr a = {NULL, 0, 0, sizeof(double)};
    const double special[] = {0.0, -0.0, f64_of(1), f64_of(UINT64_C(0x8000000000000001)),
                              f64_of(UINT64_C(0x000fffffffffffff)), DBL_MIN, -DBL_MIN, DBL_MAX,
                              -DBL_MAX, INFINITY, -INFINITY, NAN, -NAN, 1.0, -1.0, 0.5, 2.0,
                              709.782712893384, 709.7827128933841, 710.0, -708.3964185322641,
                              -708.3964185322642, -745.1332191019411, -745.1332191019412, -746.0};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        pushd(&a, special[i]);
    const double edge[] = {709.782712893384, -708.3964185322641, -745.1332191019411, 0.0};
    for (size_t e = 0; e < sizeof edge / sizeof edge[0]; e++)
        for (int d = -64; d <= 64; d++)
            pushd(&a, f64_of(bits64(edge[e]) + (uint64_t)(int64_t)d));
    for (int i = 0; i <= 1 << 19; i++)
        pushd(&a, -40.0 * i / (double)(1 << 19));
    for (int i = 0; i <= 1 << 18; i++)
        pushd(&a, -746.0 + 1456.0 * i / (double)(1 << 18));
    for (int i = 0; i <= 1 << 17; i++)
        pushd(&a, 0.5 + 1.5 * i / (double)(1 << 17));
    uint64_t s = 43;
    for (int i = 0; i < 1 << 18; i++)
        pushd(&a, f64_of(splitmix(&s)));
    pad16(&a);
    return a;
}

/* ---- same bits ---- */

typedef struct { const char *name; sv_apply *apply; } variant;

/* The vector variants this CPU runs. */
static size_t cpu_variants(variant *v)
{
    size_t n = 0;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse4.1"))
        v[n++] = (variant){"sse4", sv_apply_sse4};
    if (__builtin_cpu_supports("avx2"))
        v[n++] = (variant){"avx2", sv_apply_avx2};
    if (__builtin_cpu_supports("avx512f"))
        v[n++] = (variant){"avx512", sv_apply_avx512};
#elif defined(__aarch64__)
    v[n++] = (variant){"neon", sv_apply_neon};
    if (getauxval(AT_HWCAP) & HWCAP_SVE)
        v[n++] = (variant){"sve", sv_apply_sve};
#endif
    return n;
}

static const char *fn_name[SV_COUNT] = {"expf", "logf", "expd", "logd", "lse_expf"};

static void check_same_bits(sv_fn fn)
{
    const int f64 = fn == SV_EXP_F64 || fn == SV_LOG_F64;
    arr in = f64 ? inputs_f64() : inputs_f32(fn == SV_LSE_EXPF);
    const size_t es = in.es, n = in.n;
    void *want = malloc(n * es), *got = malloc(n * es);
    cr_assert(want && got);
    cr_assert(sv_apply_scalar(fn, in.p, want, n));
    variant v[4];
    size_t nv = cpu_variants(v), compared = 0;
    for (size_t k = 0; k < nv; k++) {
        memset(got, 0x5a, n * es);
        if (!v[k].apply(fn, in.p, got, n))
            continue;
        compared++;
        for (size_t i = 0; i < n; i++) {
            if (f64) {
                const double w = ((double *)want)[i], g = ((double *)got)[i];
                if (bits64(w) != bits64(g) && !(isnan(w) && isnan(g)))
                    cr_assert_fail("%s %s(%a) = %a, scalar %a", v[k].name, fn_name[fn],
                             ((double *)in.p)[i], g, w);
            } else {
                const float w = ((float *)want)[i], g = ((float *)got)[i];
                if (bits32(w) != bits32(g) && !(isnan(w) && isnan(g)))
                    cr_assert_fail("%s %s(%a) = %a, scalar %a", v[k].name, fn_name[fn],
                             (double)((float *)in.p)[i], (double)g, (double)w);
            }
        }
        cr_log_info("%s: %s gives the scalar bits on %zu inputs", fn_name[fn], v[k].name, n);
    }
#if defined(__x86_64__) || defined(__aarch64__)
    cr_expect(compared > 0, "%s: no vector variant ran on this CPU", fn_name[fn]);
#endif
    free(want);
    free(got);
    free(in.p);
}

Test(sleef, same_bits_expf) { check_same_bits(SV_EXP_F32); }
Test(sleef, same_bits_logf) { check_same_bits(SV_LOG_F32); }
Test(sleef, same_bits_expd) { check_same_bits(SV_EXP_F64); }
Test(sleef, same_bits_logd) { check_same_bits(SV_LOG_F64); }
Test(sleef, same_bits_lse_expf) { check_same_bits(SV_LSE_EXPF); }

/* ---- accuracy ---- */

/* |got - exact| in units of the last place of the FLOAT32 (FLOAT64) nearest to exact; results
 * that are not finite must match exactly (returns 0 or INFINITY). */
static double ulps_f32(float got, double exact)
{
    if (isnan(exact) || isnan(got))
        return isnan(exact) && isnan(got) ? 0 : INFINITY;
    const float r = (float)exact;
    if (isinf(r) || isinf(got))
        return r == got ? 0 : INFINITY;
    int e;
    frexp(fabs(exact), &e);
    const double ulp = ldexp(1.0, (e - 24 < -149 ? -149 : e - 24));
    return fabs((double)got - exact) / ulp;
}
static double ulps_f64(double got, long double exact)
{
    if (isnan(exact) || isnan(got))
        return isnan(exact) && isnan(got) ? 0 : INFINITY;
    const double r = (double)exact;
    if (isinf(r) || isinf(got))
        return r == got ? 0 : INFINITY;
    int e;
    frexpl(fabsl(exact), &e);
    const long double ulp = ldexpl(1.0L, (e - 53 < -1074 ? -1074 : e - 53));
    return (double)(fabsl((long double)got - exact) / ulp);
}

static double worst_f32(sv_fn fn, double (*ref)(double), int lse_domain, float *at)
{
    arr in = inputs_f32(lse_domain);
    float *out = malloc(in.n * sizeof(float));
    cr_assert_not_null(out);
    cr_assert(sv_apply_scalar(fn, in.p, out, in.n));
    double worst = 0;
    for (size_t i = 0; i < in.n; i++) {
        const float x = ((float *)in.p)[i];
        const double u = ulps_f32(out[i], ref((double)x));
        if (u > worst)
            worst = u, *at = x;
    }
    free(out);
    free(in.p);
    return worst;
}

Test(sleef, accuracy_f32)
{
    float at = 0;
    double w = worst_f32(SV_EXP_F32, exp, 0, &at);
    cr_log_info("expf: worst %.3f ulp at %a", w, (double)at);
    cr_expect(w <= 1.0, "expf: %.3f ulp at %a", w, (double)at);
    w = worst_f32(SV_LOG_F32, log, 0, &at);
    cr_log_info("logf: worst %.3f ulp at %a", w, (double)at);
    cr_expect(w <= 1.0, "logf: %.3f ulp at %a", w, (double)at);
    w = worst_f32(SV_LSE_EXPF, exp, 1, &at);
    cr_log_info("lse_expf: worst %.3f ulp at %a", w, (double)at);
    cr_expect(w <= LSE_EXPF_ULPS, "lse_expf: %.3f ulp at %a", w, (double)at);
    /* LOG_SUM_EXP relies on these (a zero block maximum may have either sign) */
    cr_expect(DMLCPU_EXP_F32_SCALAR(-0.0f) == 1.0f && DMLCPU_EXP_F32_SCALAR(0.0f) == 1.0f);
    cr_expect(lse_expf_scalar(-0.0f) == 1.0f && lse_expf_scalar(0.0f) == 1.0f);
    cr_expect(DMLCPU_EXP_F64_SCALAR(-0.0) == 1.0 && DMLCPU_EXP_F64_SCALAR(0.0) == 1.0);
}

Test(sleef, accuracy_f64)
{
    arr in = inputs_f64();
    double *e = malloc(in.n * sizeof(double)), *l = malloc(in.n * sizeof(double));
    cr_assert(e && l);
    cr_assert(sv_apply_scalar(SV_EXP_F64, in.p, e, in.n));
    cr_assert(sv_apply_scalar(SV_LOG_F64, in.p, l, in.n));
    double we = 0, wl = 0;
    double ae = 0, al = 0;
    size_t sampled = 0;
    for (size_t i = 0; i < in.n; i += 7, sampled++) { /* a sample: long double is slow */
        const double x = ((double *)in.p)[i];
        const double ue = x > EXPD_OVERFLOW_FROM ? (e[i] == INFINITY ? 0 : INFINITY)
                                                 : ulps_f64(e[i], expl((long double)x));
        const double ul = ulps_f64(l[i], logl((long double)x));
        if (ue > we)
            we = ue, ae = x;
        if (ul > wl)
            wl = ul, al = x;
    }
    cr_log_info("expd: worst %.3f ulp at %a; logd: worst %.3f ulp at %a (%zu inputs)", we, ae,
                wl, al, sampled);
    cr_expect(we <= 1.0, "expd: %.3f ulp at %a", we, ae);
    cr_expect(wl <= 1.0, "logd: %.3f ulp at %a", wl, al);
    free(e);
    free(l);
    free(in.p);
}
