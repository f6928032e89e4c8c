/*
 * The oracle (see reference.h). Every operator is written the way SPEC.md states it: walk the
 * logical coordinates, compute the element offset from the raw strides, gather a reduction
 * group in its logical order, and reduce it with the canonical order of SPEC section 4 spelled
 * out literally (blocks, quads, lanes, halving tree, pairwise block combination).
 */
#include "reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Data types                                                                                  */

size_t ref_type_size(dmlcpu_data_type type)
{
    switch (type) {
    case DMLCPU_DATA_TYPE_UINT8:
    case DMLCPU_DATA_TYPE_INT8:
        return 1;
    case DMLCPU_DATA_TYPE_FLOAT16:
    case DMLCPU_DATA_TYPE_UINT16:
    case DMLCPU_DATA_TYPE_INT16:
        return 2;
    case DMLCPU_DATA_TYPE_FLOAT32:
    case DMLCPU_DATA_TYPE_UINT32:
    case DMLCPU_DATA_TYPE_INT32:
        return 4;
    case DMLCPU_DATA_TYPE_FLOAT64:
    case DMLCPU_DATA_TYPE_UINT64:
    case DMLCPU_DATA_TYPE_INT64:
        return 8;
    default:
        return 0;
    }
}

int ref_type_is_float(dmlcpu_data_type type)
{
    return type == DMLCPU_DATA_TYPE_FLOAT16 || type == DMLCPU_DATA_TYPE_FLOAT32 ||
           type == DMLCPU_DATA_TYPE_FLOAT64;
}

int ref_type_is_signed(dmlcpu_data_type type)
{
    return type == DMLCPU_DATA_TYPE_INT8 || type == DMLCPU_DATA_TYPE_INT16 ||
           type == DMLCPU_DATA_TYPE_INT32 || type == DMLCPU_DATA_TYPE_INT64;
}

float ref_f16_to_f32(uint16_t h)
{
    const float sign = (h & 0x8000) ? -1.0f : 1.0f;
    const int exponent = (h >> 10) & 0x1f;
    const int mantissa = h & 0x3ff;
    if (exponent == 0) /* zero or subnormal: mantissa units of 2^-24 */
        return sign * ldexpf((float)mantissa, -24);
    if (exponent == 31)
        return mantissa ? NAN : sign * INFINITY;
    return sign * ldexpf((float)(1024 + mantissa), exponent - 25);
}

uint16_t ref_f64_to_f16(double d)
{
    const uint16_t sign = signbit(d) ? 0x8000 : 0;
    if (isnan(d))
        return sign | 0x7e00;
    const double a = fabs(d);
    if (isinf(a))
        return sign | 0x7c00;
    if (a < 0x1p-14) {
        /* Subnormal range: count units of 2^-24 (the scaling is exact), round to nearest even.
         * A result of 1024 is the encoding of the smallest normal number, as it should be. */
        return sign | (uint16_t)nearbyint(a * 0x1p24);
    }
    int e;
    frexp(a, &e); /* a = f * 2^e, f in [0.5, 1): 2^(e-1) <= a < 2^e */
    int exponent = e - 1;
    double mantissa = nearbyint(ldexp(a, 10 - exponent)); /* in [1024, 2048] */
    if (mantissa == 2048.0) {
        mantissa = 1024.0;
        exponent++;
    }
    if (exponent > 15)
        return sign | 0x7c00;
    return sign | (uint16_t)((exponent + 15) << 10) | (uint16_t)(mantissa - 1024.0);
}

uint16_t ref_f32_to_f16(float f)
{
    return ref_f64_to_f16((double)f);
}

/* Loads and stores through memcpy (the buffers are element-aligned, but this keeps the oracle
 * free of any aliasing or alignment assumption). */
static uint64_t load_int(dmlcpu_data_type t, const unsigned char *p)
{
    switch (t) {
    case DMLCPU_DATA_TYPE_UINT8: { uint8_t v; memcpy(&v, p, 1); return v; }
    case DMLCPU_DATA_TYPE_INT8: { int8_t v; memcpy(&v, p, 1); return (uint64_t)(int64_t)v; }
    case DMLCPU_DATA_TYPE_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case DMLCPU_DATA_TYPE_INT16: { int16_t v; memcpy(&v, p, 2); return (uint64_t)(int64_t)v; }
    case DMLCPU_DATA_TYPE_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case DMLCPU_DATA_TYPE_INT32: { int32_t v; memcpy(&v, p, 4); return (uint64_t)(int64_t)v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

/* Stores the low bits of v (two's complement wrap-around for every integer type). */
static void store_int(dmlcpu_data_type t, unsigned char *p, uint64_t v)
{
    switch (ref_type_size(t)) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* Exact numeric value of a float element (every FLOAT16 and FLOAT32 value is a double). */
static double load_float(dmlcpu_data_type t, const unsigned char *p)
{
    if (t == DMLCPU_DATA_TYPE_FLOAT16) {
        uint16_t h;
        memcpy(&h, p, 2);
        return ref_f16_to_f32(h);
    }
    if (t == DMLCPU_DATA_TYPE_FLOAT32) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    double d;
    memcpy(&d, p, 8);
    return d;
}

static int elem_is_nan(dmlcpu_data_type t, const unsigned char *p)
{
    return ref_type_is_float(t) && isnan(load_float(t, p));
}

/* a < b numerically. Floats: false when either is NaN, -0 == +0. Signed integers compare their
 * sign-extended bits with the sign bit flipped, which orders them as unsigned numbers. */
static int elem_less(dmlcpu_data_type t, const unsigned char *a, const unsigned char *b)
{
    if (ref_type_is_float(t))
        return load_float(t, a) < load_float(t, b);
    uint64_t x = load_int(t, a), y = load_int(t, b);
    if (ref_type_is_signed(t)) {
        x ^= UINT64_C(1) << 63;
        y ^= UINT64_C(1) << 63;
    }
    return x < y;
}

/* ------------------------------------------------------------------------------------------ */
/* Coordinates                                                                                 */

uint64_t ref_offset(const dmlcpu_tensor_desc *t, const uint32_t *c)
{
    uint64_t offset = 0, packed = 1;
    for (uint32_t i = t->dimension_count; i-- > 0;) {
        offset += (uint64_t)c[i] * (t->strides ? t->strides[i] : packed);
        packed *= t->sizes[i];
    }
    return offset;
}

int ref_next_coord(uint32_t *c, const uint32_t *sizes, uint32_t rank)
{
    for (uint32_t i = rank; i-- > 0;) {
        if (++c[i] < sizes[i])
            return 1;
        c[i] = 0;
    }
    return 0;
}

static unsigned char *elem_at(const void *base, const dmlcpu_tensor_desc *t, const uint32_t *c)
{
    return (unsigned char *)base + ref_offset(t, c) * ref_type_size(t->data_type);
}

/* ------------------------------------------------------------------------------------------ */
/* SPEC section 4: the canonical order, written once per accumulator type.                     */
/*   T      accumulator type (float for FLOAT16 and FLOAT32, double for FLOAT64)               */
/*   LANES  64 or 32 lanes; a block is B = 64 * LANES elements                                 */

#define DEFINE_CANONICAL(T, SUF, LANES, EXP, LOG, SQRT, FABS)                                   \
    /* map(x) of step 2; m is the block maximum subtracted inside exp for LOG_SUM_EXP. */        \
    static T map_##SUF(dmlcpu_reduce_function fn, T x, T m)                                     \
    {                                                                                           \
        switch (fn) {                                                                           \
        case DMLCPU_REDUCE_FUNCTION_L1: return FABS(x);                                         \
        case DMLCPU_REDUCE_FUNCTION_L2:                                                         \
        case DMLCPU_REDUCE_FUNCTION_SUM_SQUARE: return x * x;                                   \
        case DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP: return EXP(x - m);                             \
        default: return x;                                                                      \
        }                                                                                       \
    }                                                                                           \
                                                                                                \
    static T op_##SUF(int mul, T a, T b) { return mul ? a * b : a + b; }                        \
                                                                                                \
    /* Steps 2-4: the value of one block x[0..len), len <= B. */                                \
    static T block_##SUF(dmlcpu_reduce_function fn, const T *x, size_t len, T m)                \
    {                                                                                           \
        const int mul = fn == DMLCPU_REDUCE_FUNCTION_MULTIPLY;                                  \
        const T identity = mul ? (T)1 : (T)0;                                                   \
        T lane[LANES];                                                                          \
        for (size_t j = 0; j < LANES; j++)                                                      \
            lane[j] = identity;                                                                 \
        for (size_t q = 0; 4 * q < len; q++) { /* quad q goes to lane q mod LANES */            \
            T e[4];                                                                             \
            for (size_t k = 0; k < 4; k++)                                                      \
                e[k] = 4 * q + k < len ? map_##SUF(fn, x[4 * q + k], m) : identity;            \
            T quad = op_##SUF(mul, op_##SUF(mul, e[0], e[1]), op_##SUF(mul, e[2], e[3]));      \
            lane[q % LANES] = op_##SUF(mul, lane[q % LANES], quad);                            \
        }                                                                                       \
        for (size_t h = LANES / 2; h >= 1; h /= 2)                                              \
            for (size_t i = 0; i < h; i++)                                                      \
                lane[i] = op_##SUF(mul, lane[i], lane[i + h]);                                  \
        return lane[0];                                                                         \
    }                                                                                           \
                                                                                                \
    /* Steps 1-5 for SUM, L1, SUM_SQUARE (L2) and MULTIPLY. */                                  \
    static T canonical_##SUF(dmlcpu_reduce_function fn, const T *x, size_t n)                   \
    {                                                                                           \
        const int mul = fn == DMLCPU_REDUCE_FUNCTION_MULTIPLY;                                  \
        const size_t block = 64 * LANES;                                                        \
        size_t count = (n + block - 1) / block;                                                 \
        T *v = malloc(count * sizeof(T));                                                       \
        if (!v)                                                                                 \
            abort();                                                                            \
        for (size_t b = 0; b < count; b++) {                                                    \
            size_t len = n - b * block < block ? n - b * block : block;                         \
            v[b] = block_##SUF(fn, x + b * block, len, 0);                                      \
        }                                                                                       \
        while (count > 1) { /* step 5: pairwise, an odd last one carried */                     \
            size_t k = 0;                                                                       \
            for (size_t i = 0; i + 1 < count; i += 2)                                           \
                v[k++] = op_##SUF(mul, v[i], v[i + 1]);                                         \
            if (count % 2)                                                                      \
                v[k++] = v[count - 1];                                                          \
            count = k;                                                                          \
        }                                                                                       \
        T result = v[0];                                                                        \
        free(v);                                                                                \
        return result;                                                                          \
    }                                                                                           \
                                                                                                \
    /* LOG_SUM_EXP: per block (m_b, s_b), pairwise (m, s) combination, m + log(s). */            \
    static T log_sum_exp_##SUF(const T *x, size_t n, double *scale)                             \
    {                                                                                           \
        int any_nan = 0, any_pos_inf = 0, all_neg_inf = 1;                                      \
        for (size_t i = 0; i < n; i++) {                                                        \
            any_nan |= isnan(x[i]);                                                             \
            any_pos_inf |= x[i] == (T)INFINITY;                                                 \
            all_neg_inf &= x[i] == -(T)INFINITY;                                                \
        }                                                                                       \
        if (any_nan)                                                                            \
            return (T)NAN;                                                                      \
        if (any_pos_inf)                                                                        \
            return (T)INFINITY;                                                                 \
        if (all_neg_inf)                                                                        \
            return -(T)INFINITY;                                                                \
        const size_t block = 64 * LANES;                                                        \
        size_t count = (n + block - 1) / block;                                                 \
        T *m = malloc(count * sizeof(T)), *s = malloc(count * sizeof(T));                       \
        if (!m || !s)                                                                           \
            abort();                                                                            \
        for (size_t b = 0; b < count; b++) {                                                    \
            size_t len = n - b * block < block ? n - b * block : block;                         \
            T mb = -(T)INFINITY;                                                                \
            for (size_t i = 0; i < len; i++)                                                    \
                if (x[b * block + i] > mb)                                                      \
                    mb = x[b * block + i];                                                      \
            m[b] = mb;                                                                          \
            s[b] = mb == -(T)INFINITY                                                           \
                       ? (T)0                                                                   \
                       : block_##SUF(DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP, x + b * block, len, mb); \
        }                                                                                       \
        while (count > 1) {                                                                     \
            size_t k = 0;                                                                       \
            for (size_t i = 0; i + 1 < count; i += 2) {                                         \
                T big = m[i] > m[i + 1] ? m[i] : m[i + 1];                                      \
                T t0 = m[i] == -(T)INFINITY ? (T)0 : s[i] * EXP(m[i] - big);                    \
                T t1 = m[i + 1] == -(T)INFINITY ? (T)0 : s[i + 1] * EXP(m[i + 1] - big);        \
                m[k] = big;                                                                     \
                s[k] = t0 + t1;                                                                 \
                k++;                                                                            \
            }                                                                                   \
            if (count % 2) {                                                                    \
                m[k] = m[count - 1];                                                            \
                s[k] = s[count - 1];                                                            \
                k++;                                                                            \
            }                                                                                   \
            count = k;                                                                          \
        }                                                                                       \
        T log_s = LOG(s[0]);                                                                    \
        T result = m[0] + log_s;                                                                \
        *scale = fabs((double)m[0]) + fabs((double)log_s) + 1.0;                                \
        free(m);                                                                                \
        free(s);                                                                                \
        return result;                                                                          \
    }                                                                                           \
                                                                                                \
    /* Step 6: finalize in the accumulator type. */                                             \
    static T reduce_float_##SUF(dmlcpu_reduce_function fn, const T *x, size_t n, double *scale) \
    {                                                                                           \
        switch (fn) {                                                                           \
        case DMLCPU_REDUCE_FUNCTION_AVERAGE:                                                    \
            return canonical_##SUF(DMLCPU_REDUCE_FUNCTION_SUM, x, n) / (T)n;                    \
        case DMLCPU_REDUCE_FUNCTION_L2:                                                         \
            return SQRT(canonical_##SUF(DMLCPU_REDUCE_FUNCTION_L2, x, n));                      \
        case DMLCPU_REDUCE_FUNCTION_LOG_SUM: {                                                  \
            T r = LOG(canonical_##SUF(DMLCPU_REDUCE_FUNCTION_SUM, x, n));                       \
            *scale = fabs((double)r);                                                           \
            return r;                                                                           \
        }                                                                                       \
        case DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP:                                                \
            return log_sum_exp_##SUF(x, n, scale);                                              \
        default: /* SUM, L1, SUM_SQUARE, MULTIPLY */                                            \
            return canonical_##SUF(fn, x, n);                                                   \
        }                                                                                       \
    }

DEFINE_CANONICAL(float, f32, 64, expf, logf, sqrtf, fabsf)
DEFINE_CANONICAL(double, f64, 32, exp, log, sqrt, fabs)

/* ------------------------------------------------------------------------------------------ */
/* One reduction group, gathered in logical order: grp holds n elements of type it.            */

/* MIN / MAX: IEEE 754-2019 minimum / maximum; returns the index of the chosen element (the
 * first NaN if there is one: any NaN is a correct result). */
static size_t select_min_max(dmlcpu_data_type t, const unsigned char *grp, size_t n, int is_max)
{
    const size_t es = ref_type_size(t);
    for (size_t i = 0; i < n; i++)
        if (elem_is_nan(t, grp + i * es))
            return i;
    size_t best = 0;
    for (size_t i = 1; i < n; i++) {
        const unsigned char *x = grp + i * es, *b = grp + best * es;
        int better = is_max ? elem_less(t, b, x) : elem_less(t, x, b);
        if (!better && ref_type_is_float(t) && load_float(t, x) == 0 && load_float(t, b) == 0) {
            /* -0 < +0 */
            int x_neg = signbit(load_float(t, x)) != 0, b_neg = signbit(load_float(t, b)) != 0;
            better = is_max ? (b_neg && !x_neg) : (x_neg && !b_neg);
        }
        if (better)
            best = i;
    }
    return best;
}

/* ARGMIN / ARGMAX (SPEC 3.2): NaN is more extreme than any number; ties (numerically equal,
 * so -0 == +0) go to the smallest index INCREASING, the largest DECREASING; likewise the first
 * or the last NaN. */
static size_t select_arg(dmlcpu_data_type t, const unsigned char *grp, size_t n, int is_max,
                         int decreasing)
{
    const size_t es = ref_type_size(t);
    size_t best = 0;
    for (size_t i = 1; i < n; i++) {
        const unsigned char *x = grp + i * es, *b = grp + best * es;
        const int x_nan = elem_is_nan(t, x), b_nan = elem_is_nan(t, b);
        int take;
        if (b_nan)
            take = x_nan && decreasing;
        else if (x_nan)
            take = 1;
        else if (is_max ? elem_less(t, b, x) : elem_less(t, x, b))
            take = 1;
        else if (!elem_less(t, x, b) && !elem_less(t, b, x))
            take = decreasing;
        else
            take = 0;
        if (take)
            best = i;
    }
    return best;
}

/* Integer SUM, MULTIPLY, SUM_SQUARE, L1 modulo 2^64 on sign-extended values; truncating to the
 * type's width afterwards gives the result modulo 2^bits. */
static uint64_t reduce_int(dmlcpu_reduce_function fn, dmlcpu_data_type t, const unsigned char *grp,
                           size_t n)
{
    const size_t es = ref_type_size(t);
    uint64_t acc = fn == DMLCPU_REDUCE_FUNCTION_MULTIPLY ? 1 : 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = load_int(t, grp + i * es);
        switch (fn) {
        case DMLCPU_REDUCE_FUNCTION_SUM: acc += v; break;
        case DMLCPU_REDUCE_FUNCTION_MULTIPLY: acc *= v; break;
        case DMLCPU_REDUCE_FUNCTION_SUM_SQUARE: acc += v * v; break;
        case DMLCPU_REDUCE_FUNCTION_L1:
            acc += (ref_type_is_signed(t) && (v >> 63)) ? 0 - v : v;
            break;
        default: abort();
        }
    }
    return acc;
}

static void reduce_group(dmlcpu_reduce_function fn, int decreasing, dmlcpu_data_type it,
                         dmlcpu_data_type ot, const unsigned char *grp, size_t n,
                         unsigned char *out, double *scale)
{
    const size_t es = ref_type_size(it);
    *scale = 0;
    switch (fn) {
    case DMLCPU_REDUCE_FUNCTION_ARGMAX:
    case DMLCPU_REDUCE_FUNCTION_ARGMIN:
        store_int(ot, out, select_arg(it, grp, n, fn == DMLCPU_REDUCE_FUNCTION_ARGMAX, decreasing));
        return;
    case DMLCPU_REDUCE_FUNCTION_MAX:
    case DMLCPU_REDUCE_FUNCTION_MIN:
        memcpy(out, grp + es * select_min_max(it, grp, n, fn == DMLCPU_REDUCE_FUNCTION_MAX), es);
        return;
    default:
        break;
    }
    if (!ref_type_is_float(it)) {
        store_int(it, out, reduce_int(fn, it, grp, n));
    } else if (it == DMLCPU_DATA_TYPE_FLOAT64) {
        double *x = malloc(n * sizeof(double));
        if (!x)
            abort();
        memcpy(x, grp, n * sizeof(double));
        double r = reduce_float_f64(fn, x, n, scale);
        memcpy(out, &r, sizeof r);
        free(x);
    } else {
        float *x = malloc(n * sizeof(float));
        if (!x)
            abort();
        for (size_t i = 0; i < n; i++)
            x[i] = (float)load_float(it, grp + i * es); /* exact */
        float r = reduce_float_f32(fn, x, n, scale);
        if (it == DMLCPU_DATA_TYPE_FLOAT16) {
            uint16_t h = ref_f32_to_f16(r); /* the one rounding to the output type */
            memcpy(out, &h, sizeof h);
        } else {
            memcpy(out, &r, sizeof r);
        }
        free(x);
    }
}

/* Walks every output coordinate; for each, gathers the group (reduced axes row-major in
 * increasing axis number) and reduces it. */
static void reduce_all(dmlcpu_reduce_function fn, int decreasing, const dmlcpu_tensor_desc *it,
                       const dmlcpu_tensor_desc *ot, uint32_t axis_count, const uint32_t *axes,
                       const void *in, void *out, double *scale)
{
    const uint32_t rank = it->dimension_count;
    const size_t es = ref_type_size(it->data_type);
    int reduced[8] = {0};
    for (uint32_t a = 0; a < axis_count; a++)
        reduced[axes[a]] = 1;
    size_t n = 1;
    for (uint32_t d = 0; d < rank; d++)
        if (reduced[d])
            n *= it->sizes[d];
    unsigned char *grp = malloc(n * es);
    if (!grp)
        abort();
    uint32_t oc[8] = {0};
    size_t k = 0;
    do {
        uint32_t c[8];
        memcpy(c, oc, sizeof c); /* reduced axes start at 0: oc is 0 there */
        for (size_t i = 0; i < n; i++) {
            memcpy(grp + i * es, elem_at(in, it, c), es);
            for (uint32_t d = rank; d-- > 0;) { /* next coordinate over the reduced axes */
                if (!reduced[d])
                    continue;
                if (++c[d] < it->sizes[d])
                    break;
                c[d] = 0;
            }
        }
        double s;
        reduce_group(fn, decreasing, it->data_type, ot->data_type, grp, n, elem_at(out, ot, oc),
                     &s);
        if (scale)
            scale[k] = s;
        k++;
    } while (ref_next_coord(oc, ot->sizes, rank));
    free(grp);
}

static int is_index_type(dmlcpu_data_type t)
{
    return t == DMLCPU_DATA_TYPE_INT32 || t == DMLCPU_DATA_TYPE_INT64 ||
           t == DMLCPU_DATA_TYPE_UINT32 || t == DMLCPU_DATA_TYPE_UINT64;
}

int ref_reduce_supported(dmlcpu_reduce_function fn, dmlcpu_data_type in, dmlcpu_data_type out)
{
    if (ref_type_size(in) == 0)
        return 0;
    switch (fn) {
    case DMLCPU_REDUCE_FUNCTION_ARGMAX:
    case DMLCPU_REDUCE_FUNCTION_ARGMIN:
        return is_index_type(out);
    case DMLCPU_REDUCE_FUNCTION_MAX:
    case DMLCPU_REDUCE_FUNCTION_MIN:
        return out == in;
    case DMLCPU_REDUCE_FUNCTION_SUM:
    case DMLCPU_REDUCE_FUNCTION_MULTIPLY:
    case DMLCPU_REDUCE_FUNCTION_L1:
    case DMLCPU_REDUCE_FUNCTION_SUM_SQUARE:
        return out == in && (ref_type_is_float(in) || ref_type_size(in) >= 4);
    case DMLCPU_REDUCE_FUNCTION_AVERAGE:
    case DMLCPU_REDUCE_FUNCTION_L2:
    case DMLCPU_REDUCE_FUNCTION_LOG_SUM:
    case DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP:
        return out == in && ref_type_is_float(in);
    default:
        return 0;
    }
}

dmlcpu_status ref_reduce(const dmlcpu_reduce_operator_desc *d, const void *in, void *out,
                         double *scale)
{
    if (!ref_reduce_supported(d->function, d->input_tensor->data_type,
                              d->output_tensor->data_type))
        return DMLCPU_STATUS_UNSUPPORTED;
    reduce_all(d->function, 0, d->input_tensor, d->output_tensor, d->axis_count, d->axes, in, out,
               scale);
    return DMLCPU_STATUS_OK;
}

dmlcpu_status ref_arg(const dmlcpu_argmin_operator_desc *d, int is_max, const void *in, void *out)
{
    dmlcpu_reduce_function fn = is_max ? DMLCPU_REDUCE_FUNCTION_ARGMAX : DMLCPU_REDUCE_FUNCTION_ARGMIN;
    if (!ref_reduce_supported(fn, d->input_tensor->data_type, d->output_tensor->data_type))
        return DMLCPU_STATUS_UNSUPPORTED;
    reduce_all(fn, d->axis_direction == DMLCPU_AXIS_DIRECTION_DECREASING, d->input_tensor,
               d->output_tensor, d->axis_count, d->axes, in, out, NULL);
    return DMLCPU_STATUS_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Copies (SPEC 3.3 - 3.6): they move element bytes.                                           */

static void copy_elem(void *dst, const dmlcpu_tensor_desc *dt, const uint32_t *dc, const void *src,
                      const dmlcpu_tensor_desc *st, const uint32_t *sc)
{
    memcpy(elem_at(dst, dt, dc), elem_at(src, st, sc), ref_type_size(st->data_type));
}

/* Input coordinate of window position c: start + stride * c per dimension. */
static void window_coord(uint32_t rank, const uint32_t *offsets, const uint32_t *sizes,
                         const int32_t *strides, const uint32_t *c, uint32_t *ic)
{
    for (uint32_t k = 0; k < rank; k++) {
        int64_t start = (int64_t)offsets[k] + (strides[k] < 0 ? (int64_t)sizes[k] - 1 : 0);
        ic[k] = (uint32_t)(start + (int64_t)strides[k] * c[k]);
    }
}

static dmlcpu_status ref_slice(const dmlcpu_slice_operator_desc *d, const void *in, void *out)
{
    const dmlcpu_tensor_desc *ot = d->output_tensor;
    uint32_t oc[8] = {0}, ic[8];
    do {
        window_coord(d->dimension_count, d->input_window_offsets, d->input_window_sizes,
                     d->input_window_strides, oc, ic);
        copy_elem(out, ot, oc, in, d->input_tensor, ic);
    } while (ref_next_coord(oc, ot->sizes, ot->dimension_count));
    return DMLCPU_STATUS_OK;
}

static dmlcpu_status ref_slice_grad(const dmlcpu_slice_grad_operator_desc *d, const void *in,
                                    void *out)
{
    const dmlcpu_tensor_desc *it = d->input_gradient_tensor, *ot = d->output_gradient_tensor;
    const size_t es = ref_type_size(ot->data_type);
    uint32_t c[8] = {0}, oc[8];
    do /* zeros everywhere: all-zero bytes are 0 (+0.0) in every type */
        memset(elem_at(out, ot, c), 0, es);
    while (ref_next_coord(c, ot->sizes, ot->dimension_count));
    do {
        window_coord(d->dimension_count, d->input_window_offsets, d->input_window_sizes,
                     d->input_window_strides, c, oc);
        copy_elem(out, ot, oc, in, it, c);
    } while (ref_next_coord(c, it->sizes, it->dimension_count));
    return DMLCPU_STATUS_OK;
}

/* SPLIT (to_parts = 1) and JOIN (to_parts = 0): part k covers axis positions
 * [o_k, o_k + size_k) of the whole. */
static void split_join(const dmlcpu_tensor_desc *whole, void *whole_data, uint32_t count,
                       const dmlcpu_tensor_desc *parts, void *const *part_data, uint32_t axis,
                       int to_parts)
{
    uint32_t o = 0;
    for (uint32_t k = 0; k < count; k++) {
        const dmlcpu_tensor_desc *p = &parts[k];
        uint32_t c[8] = {0}, wc[8];
        do {
            memcpy(wc, c, sizeof wc);
            wc[axis] += o;
            if (to_parts)
                copy_elem(part_data[k], p, c, whole_data, whole, wc);
            else
                copy_elem(whole_data, whole, wc, part_data[k], p, c);
        } while (ref_next_coord(c, p->sizes, p->dimension_count));
        o += p->sizes[axis];
    }
}

static dmlcpu_status ref_identity(const dmlcpu_identity_operator_desc *d, const void *in, void *out)
{
    const dmlcpu_tensor_desc *ot = d->output_tensor;
    uint32_t c[8] = {0};
    do
        copy_elem(out, ot, c, in, d->input_tensor, c);
    while (ref_next_coord(c, ot->sizes, ot->dimension_count));
    return DMLCPU_STATUS_OK;
}

dmlcpu_status ref_execute(const dmlcpu_operator_desc *desc, const void *const *inputs,
                          void *const *outputs)
{
    switch (desc->type) {
    case DMLCPU_OPERATOR_REDUCE:
        return ref_reduce(desc->desc, inputs[0], outputs[0], NULL);
    case DMLCPU_OPERATOR_ARGMIN:
        return ref_arg(desc->desc, 0, inputs[0], outputs[0]);
    case DMLCPU_OPERATOR_ARGMAX:
        return ref_arg(desc->desc, 1, inputs[0], outputs[0]);
    case DMLCPU_OPERATOR_SLICE:
        return ref_slice(desc->desc, inputs[0], outputs[0]);
    case DMLCPU_OPERATOR_SLICE_GRAD:
        return ref_slice_grad(desc->desc, inputs[0], outputs[0]);
    case DMLCPU_OPERATOR_SPLIT: {
        const dmlcpu_split_operator_desc *d = desc->desc;
        split_join(d->input_tensor, (void *)inputs[0], d->output_count, d->output_tensors, outputs,
                   d->axis, 1);
        return DMLCPU_STATUS_OK;
    }
    case DMLCPU_OPERATOR_JOIN: {
        const dmlcpu_join_operator_desc *d = desc->desc;
        split_join(d->output_tensor, outputs[0], d->input_count, d->input_tensors,
                   (void *const *)inputs, d->axis, 0);
        return DMLCPU_STATUS_OK;
    }
    case DMLCPU_OPERATOR_IDENTITY:
        return ref_identity(desc->desc, inputs[0], outputs[0]);
    default:
        return DMLCPU_STATUS_UNSUPPORTED;
    }
}
