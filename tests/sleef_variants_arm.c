/* sv_apply_neon (compiled with -DSV_NEON) and sv_apply_sve (-DSV_SVE, -march=armv8-a+sve); see
 * tests/CMakeLists.txt. */
#include "sleef_variants.h"
#include "simd/lse_expf.h"
#include "simd/sleef_math.h"

#if defined(SV_NEON)
#include <arm_neon.h>
#define SV_LOOP(T, V, EPV, LOAD, STORE, F)                                                         \
    for (size_t i = 0; i < n; i += (EPV))                                                          \
        STORE((T *)out + i, F(LOAD((const T *)in + i)));
int sv_apply_neon(sv_fn fn, const void *in, void *out, size_t n)
{
    switch (fn) {
    case SV_EXP_F32: SV_LOOP(float, float32x4_t, 4, vld1q_f32, vst1q_f32, DMLCPU_EXP_F32_NEON) return 1;
    case SV_LOG_F32: SV_LOOP(float, float32x4_t, 4, vld1q_f32, vst1q_f32, DMLCPU_LOG_F32_NEON) return 1;
    case SV_EXP_F64: SV_LOOP(double, float64x2_t, 2, vld1q_f64, vst1q_f64, DMLCPU_EXP_F64_NEON) return 1;
    case SV_LOG_F64: SV_LOOP(double, float64x2_t, 2, vld1q_f64, vst1q_f64, DMLCPU_LOG_F64_NEON) return 1;
    case SV_LSE_EXPF: SV_LOOP(float, float32x4_t, 4, vld1q_f32, vst1q_f32, lse_expf_neon) return 1;
    default: return 0;
    }
}
#elif defined(SV_SVE)
#include <arm_sve.h>
/* whatever the vector length: predicated loads and stores */
#define SV_LOOP(T, B, CNT, F)                                                                      \
    for (size_t i = 0; i < n; i += CNT()) {                                                        \
        svbool_t pg = svwhilelt_b##B((uint64_t)i, (uint64_t)n);                                    \
        svst1(pg, (T *)out + i, F(svld1(pg, (const T *)in + i)));                                  \
    }
int sv_apply_sve(sv_fn fn, const void *in, void *out, size_t n)
{
    switch (fn) {
    case SV_EXP_F32: SV_LOOP(float, 32, svcntw, DMLCPU_EXP_F32_SVE) return 1;
    case SV_LOG_F32: SV_LOOP(float, 32, svcntw, DMLCPU_LOG_F32_SVE) return 1;
    case SV_EXP_F64: SV_LOOP(double, 64, svcntd, DMLCPU_EXP_F64_SVE) return 1;
    case SV_LOG_F64: SV_LOOP(double, 64, svcntd, DMLCPU_LOG_F64_SVE) return 1;
    default: return 0;
    }
}
#endif
