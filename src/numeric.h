/* Element-level rules of SPEC 4 shared by the scalar kernels and the operator layer: IEEE
 * 754-2019 minimum/maximum and the ARG* choice (ties by direction, NaN most extreme). */
#ifndef DMLCPU_NUMERIC_H
#define DMLCPU_NUMERIC_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/* maximum/minimum: any NaN gives NaN, -0 < +0. */
#define DMLCPU_DEF_MINMAX754(T, SUFFIX)                                                            \
    static inline T max754_##SUFFIX(T a, T b)                                                      \
    {                                                                                              \
        if (a != a || b != b)                                                                      \
            return a + b;                                                                          \
        if (a == b)                                                                                \
            return signbit(a) ? b : a;                                                             \
        return a > b ? a : b;                                                                      \
    }                                                                                              \
    static inline T min754_##SUFFIX(T a, T b)                                                      \
    {                                                                                              \
        if (a != a || b != b)                                                                      \
            return a + b;                                                                          \
        if (a == b)                                                                                \
            return signbit(a) ? a : b;                                                             \
        return a < b ? a : b;                                                                      \
    }
DMLCPU_DEF_MINMAX754(float, f32)
DMLCPU_DEF_MINMAX754(double, f64)

static inline int64_t max_i64(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t min_i64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static inline bool isnan_f32(float v) { return v != v; }
static inline bool isnan_f64(double v) { return v != v; }
static inline bool isnan_i64(int64_t v) { (void)v; return false; }
static inline bool isnan_u64(uint64_t v) { (void)v; return false; }

/* Does x (at a later index) replace the best so far b? NaN is more extreme than any number;
 * -0 and +0 compare equal. FIRST keeps the earliest extreme (INCREASING), LAST takes the
 * latest (DECREASING). */
#define BETTER_MAX_FIRST(ISN, x, b) (ISN(x) ? !ISN(b) : (!ISN(b) && (x) > (b)))
#define BETTER_MAX_LAST(ISN, x, b) (ISN(x) || (!ISN(b) && (x) >= (b)))
#define BETTER_MIN_FIRST(ISN, x, b) (ISN(x) ? !ISN(b) : (!ISN(b) && (x) < (b)))
#define BETTER_MIN_LAST(ISN, x, b) (ISN(x) || (!ISN(b) && (x) <= (b)))

#endif
