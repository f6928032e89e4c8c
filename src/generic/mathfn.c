/* exp and log written once with correctly rounded IEEE operations: additions, multiplications,
 * fused multiply-adds where written (fmaf; the build passes -ffp-contract=off, so the compiler
 * adds none), one division (log), comparisons, a table look-up and integer bit moves. A SIMD
 * tier that performs the same operations in the same order gets the same bits, which is what
 * SPEC 4 asks of LOG_SUM_EXP and LOG_SUM. Accuracy: about 1 ulp.
 *
 * expf: x = n*ln2/16 + r with n = nearest integer to x*16/ln2 (ln2/16 in a high and a low part,
 * each subtracted with one fused multiply-add), |r| <= ln2/32; exp(x) = 2^(n>>4) * 2^((n&15)/16)
 * * exp(r), the middle factor from a 16-entry table (one permute in a vector register), exp(r)-1
 * by its Taylor polynomial of degree 3 (truncation error below 0.16 ulp on that range). The
 * final scaling by 2^(n>>4) is done in two steps so that subnormal results round only once.
 * exp (double): x = n*ln2 + r, |r| <= ln2/2, Taylor polynomial of degree 13, plain operations
 * (no fused multiply-add), the same two-step scaling.
 * log: x = 2^k * m with m in [sqrt(1/2), sqrt(2)); log(m) = 2 atanh(s), s = (m-1)/(m+1), by its
 * odd series in s (|s| <= 0.1716). */
#include <math.h>
#include <string.h>

#include "kernels.h"

static float f32_from_bits(uint32_t b) { float f; memcpy(&f, &b, sizeof f); return f; }
static uint32_t f32_bits(float f) { uint32_t b; memcpy(&b, &f, sizeof b); return b; }
static double f64_from_bits(uint64_t b) { double f; memcpy(&f, &b, sizeof f); return f; }
static uint64_t f64_bits(double f) { uint64_t b; memcpy(&b, &f, sizeof b); return b; }

/* 2^(j/16), j = 0..15, each rounded to nearest: the table of dmlcpu_expf. */
const float dmlcpu_exp2_16_f32[16] = {
    0x1.000000p+0f, 0x1.0b5586p+0f, 0x1.172b84p+0f, 0x1.2387a6p+0f,
    0x1.306fe0p+0f, 0x1.3dea64p+0f, 0x1.4bfdaep+0f, 0x1.5ab07ep+0f,
    0x1.6a09e6p+0f, 0x1.7a1148p+0f, 0x1.8ace54p+0f, 0x1.9c4918p+0f,
    0x1.ae89fap+0f, 0x1.c199bep+0f, 0x1.d5818ep+0f, 0x1.ea4afap+0f,
};

float dmlcpu_expf(float x)
{
    if (x != x)
        return x;
    if (x > 89.0f)
        return f32_from_bits(0x7f800000u);
    if (x < -104.0f)
        return 0.0f;
    const float shifter = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
    float t = fmaf(x, DMLCPU_EXPF_16_LN2, shifter);
    float n = t - shifter; /* n = round(x * 16/ln2) */
    int32_t ni = (int32_t)(f32_bits(t) - f32_bits(shifter));
    float r = fmaf(n, -DMLCPU_EXPF_LN2_16_HI, x);
    r = fmaf(n, -DMLCPU_EXPF_LN2_16_LO, r); /* |r| <= ln2/32 */
    float p = fmaf(DMLCPU_EXPF_C3, r, 0.5f);
    float q = fmaf(p, r * r, r); /* exp(r) - 1 */
    float tab = dmlcpu_exp2_16_f32[ni & 15];
    float y = fmaf(tab, q, tab); /* 2^((n mod 16)/16) * exp(r), in [0.97, 2.05) */
    int32_t k = ni >> 4, k1 = k >> 1, k2 = k - k1; /* k1, k2 in [-76, 64]: normal powers of two */
    float s1 = f32_from_bits((uint32_t)(k1 + 127) << 23);
    float s2 = f32_from_bits((uint32_t)(k2 + 127) << 23);
    return (y * s1) * s2;
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
