/* exp and log written once with plain IEEE operations: additions, multiplications, one division
 * (log), comparisons and integer bit moves; no libm and no fused multiply-add (the build passes
 * -ffp-contract=off). A SIMD tier that performs the same operations in the same order gets the
 * same bits, which is what SPEC 4 asks of LOG_SUM_EXP and LOG_SUM. Accuracy: about 1 ulp.
 *
 * exp: x = n*ln2 + r with n = nearest integer to x/ln2 (ln2 split in a high part with trailing
 * zeros, so n*ln2_hi is exact, and a low part), |r| <= ln2/2; exp(r) by its Taylor polynomial
 * (degree 7 for float, 13 for double: the truncation error is below half an ulp on that range);
 * the result is scaled by 2^n in two steps so that subnormal results round only once.
 * log: x = 2^k * m with m in [sqrt(1/2), sqrt(2)); log(m) = 2 atanh(s), s = (m-1)/(m+1), by its
 * odd series in s (|s| <= 0.1716). */
#include <string.h>

#include "kernels.h"

static float f32_from_bits(uint32_t b) { float f; memcpy(&f, &b, sizeof f); return f; }
static uint32_t f32_bits(float f) { uint32_t b; memcpy(&b, &f, sizeof b); return b; }
static double f64_from_bits(uint64_t b) { double f; memcpy(&f, &b, sizeof f); return f; }
static uint64_t f64_bits(double f) { uint64_t b; memcpy(&b, &f, sizeof b); return b; }

float dmlcpu_expf(float x)
{
    if (x != x)
        return x;
    if (x > 89.0f)
        return f32_from_bits(0x7f800000u);
    if (x < -104.0f)
        return 0.0f;
    const float shifter = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
    float t = x * 1.44269504088896341f + shifter;
    float n = t - shifter;
    int32_t ni = (int32_t)(f32_bits(t) - f32_bits(shifter));
    float r = (x - n * 0.693145751953125f) - n * 1.42860682030941723212e-6f;
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    int32_t n1 = ni >> 1, n2 = ni - n1; /* each in [-75, 65]: normal powers of two */
    float s1 = f32_from_bits((uint32_t)(n1 + 127) << 23);
    float s2 = f32_from_bits((uint32_t)(n2 + 127) << 23);
    return (p * s1) * s2;
}

double dmlcpu_exp(double x)
{
    if (x != x)
        return x;
    if (x > 710.0)
        return f64_from_bits(0x7ff0000000000000ull);
    if (x < -746.0)
        return 0.0;
    const double shifter = 6755399441055744.0; /* 1.5 * 2^52 */
    double t = x * 1.4426950408889634074 + shifter;
    double n = t - shifter;
    int64_t ni = (int64_t)(f64_bits(t) - f64_bits(shifter));
    double r = (x - n * 6.93147180369123816490e-01) - n * 1.90821492927058770002e-10;
    static const double inv_fact[14] = {
        1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320,
        1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800.0,
    };
    double p = inv_fact[13];
    for (int i = 12; i >= 0; i--)
        p = p * r + inv_fact[i];
    int64_t n1 = ni >> 1, n2 = ni - n1; /* each in [-538, 513] */
    double s1 = f64_from_bits((uint64_t)(n1 + 1023) << 52);
    double s2 = f64_from_bits((uint64_t)(n2 + 1023) << 52);
    return (p * s1) * s2;
}

float dmlcpu_logf(float x)
{
    uint32_t b = f32_bits(x);
    if (x != x)
        return x;
    if (x < 0.0f)
        return f32_from_bits(0x7fc00000u);
    if (x == 0.0f)
        return f32_from_bits(0xff800000u);
    if (b == 0x7f800000u)
        return x;
    int32_t k = 0;
    if (b < 0x00800000u) { /* subnormal: scale into the normal range */
        x *= 16777216.0f;  /* 2^24 */
        b = f32_bits(x);
        k = -24;
    }
    /* m in [sqrt(1/2), sqrt(2)): move the mantissa boundary from 1 to sqrt(1/2) */
    uint32_t adj = b + (0x3f800000u - 0x3f3504f3u);
    k += (int32_t)(adj >> 23) - 127;
    float m = f32_from_bits((adj & 0x007fffffu) + 0x3f3504f3u);
    float f = m - 1.0f;
    float s = f / (2.0f + f);
    float z = s * s;
    float q = 2.0f / 11.0f;
    q = q * z + 2.0f / 9.0f;
    q = q * z + 2.0f / 7.0f;
    q = q * z + 2.0f / 5.0f;
    q = q * z + 2.0f / 3.0f;
    float hf = 0.5f * f * f;
    /* 2 atanh(s) = f - f*s = f - hf + s*(hf + q*z)  (2s = f - f*s, f*s = hf - s*hf) */
    float logm = f - (hf - s * (hf + q * z));
    float kf = (float)k;
    return kf * 0.693145751953125f + (logm + kf * 1.42860682030941723212e-6f);
}

double dmlcpu_log(double x)
{
    uint64_t b = f64_bits(x);
    if (x != x)
        return x;
    if (x < 0.0)
        return f64_from_bits(0x7ff8000000000000ull);
    if (x == 0.0)
        return f64_from_bits(0xfff0000000000000ull);
    if (b == 0x7ff0000000000000ull)
        return x;
    int64_t k = 0;
    if (b < 0x0010000000000000ull) {
        x *= 18014398509481984.0; /* 2^54 */
        b = f64_bits(x);
        k = -54;
    }
    uint64_t adj = b + (0x3ff0000000000000ull - 0x3fe6a09e667f3bcdull);
    k += (int64_t)(adj >> 52) - 1023;
    double m = f64_from_bits((adj & 0x000fffffffffffffull) + 0x3fe6a09e667f3bcdull);
    double f = m - 1.0;
    double s = f / (2.0 + f);
    double z = s * s;
    double q = 2.0 / 23;
    for (int i = 21; i >= 3; i -= 2)
        q = q * z + 2.0 / i;
    double hf = 0.5 * f * f;
    double logm = f - (hf - s * (hf + q * z));
    double kd = (double)k;
    return kd * 6.93147180369123816490e-01 + (logm + kd * 1.90821492927058770002e-10);
}
