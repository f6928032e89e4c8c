/* The exp and log functions of every tier and vector width (src/simd/sleef_math.h, and the
 * FLOAT32 exp of LOG_SUM_EXP's inner loop, src/simd/lse_expf.h), applied elementwise to an
 * array: one function per ISA, each in its own file compiled with that ISA's flags, so that
 * tests/test_sleef.c can compare their bits on the CPU it runs on. n is a multiple of 16. */
#ifndef DMLCPU_TESTS_SLEEF_VARIANTS_H
#define DMLCPU_TESTS_SLEEF_VARIANTS_H

#include <stddef.h>

typedef enum { SV_EXP_F32, SV_LOG_F32, SV_EXP_F64, SV_LOG_F64, SV_LSE_EXPF, SV_COUNT } sv_fn;

/* out[i] = fn(in[i]) for i < n; float or double arrays as fn says. Returns 0 when this variant
 * has no such function (SV_LSE_EXPF at a width the library does not use), 1 otherwise. */
typedef int sv_apply(sv_fn fn, const void *in, void *out, size_t n);

sv_apply sv_apply_scalar;
#if defined(__x86_64__)
sv_apply sv_apply_sse4, sv_apply_avx2, sv_apply_avx512;
#elif defined(__aarch64__)
sv_apply sv_apply_neon, sv_apply_sve;
#endif

#endif
