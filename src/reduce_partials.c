/* REDUCE partials: combining functions per (kind, value family), finalize and store. */
#include <math.h>
#include <string.h>

#include "fp16.h"
#include "numeric.h"
#include "reduce_partials.h"
#include "simd/sleef_math.h"

/* ---- combining partials: one function per (kind, value family) ---- */

#define DEF_COMBINE_OP(NAME, FIELD, OP)                                                            \
    static partial NAME(partial a, partial b)                                                      \
    {                                                                                              \
        a.v.FIELD = OP(a.v.FIELD, b.v.FIELD);                                                      \
        return a;                                                                                  \
    }
#define ADD(a, b) ((a) + (b))
#define MUL(a, b) ((a) * (b))
DEF_COMBINE_OP(add_f32, f32, ADD)
DEF_COMBINE_OP(add_f64, f64, ADD)
DEF_COMBINE_OP(add_u64, u64, ADD)
DEF_COMBINE_OP(mul_f32, f32, MUL)
DEF_COMBINE_OP(mul_f64, f64, MUL)
DEF_COMBINE_OP(mul_u64, u64, MUL)
DEF_COMBINE_OP(max_f32, f32, max754_f32)
DEF_COMBINE_OP(max_f64, f64, max754_f64)
DEF_COMBINE_OP(max_s, i64, max_i64)
DEF_COMBINE_OP(max_u, u64, max_u64)
DEF_COMBINE_OP(min_f32, f32, min754_f32)
DEF_COMBINE_OP(min_f64, f64, min754_f64)
DEF_COMBINE_OP(min_s, i64, min_i64)
DEF_COMBINE_OP(min_u, u64, min_u64)

/* a covers earlier indices than b: b wins only where the direction's rule says so */
#define DEF_COMBINE_ARG(NAME, FIELD, BETTER, ISN)                                                  \
    static partial NAME(partial a, partial b) { return BETTER(ISN, b.v.FIELD, a.v.FIELD) ? b : a; }
#define DEF_COMBINE_ARGS(K, BETTER)                                                                \
    DEF_COMBINE_ARG(K##_f32, f32, BETTER, isnan_f32)                                               \
    DEF_COMBINE_ARG(K##_f64, f64, BETTER, isnan_f64)                                               \
    DEF_COMBINE_ARG(K##_s, i64, BETTER, isnan_i64)                                                 \
    DEF_COMBINE_ARG(K##_u, u64, BETTER, isnan_u64)
DEF_COMBINE_ARGS(argmax, BETTER_MAX_FIRST)
DEF_COMBINE_ARGS(argmax_last, BETTER_MAX_LAST)
DEF_COMBINE_ARGS(argmin, BETTER_MIN_FIRST)
DEF_COMBINE_ARGS(argmin_last, BETTER_MIN_LAST)

/* LOG_SUM_EXP: (m, s) op (m', s') = (M, s*exp(m-M) + s'*exp(m'-M)), M = max(m, m'). When M is
 * not finite the result is decided by M alone (NaN, +inf, or all -inf) and s stays 0. */
/* exp(0) is exactly 1 in dmlcpu's exp, so the term of the larger max skips the call. */
#define DEF_COMBINE_LSE(NAME, FIELD, T, MAX, EXP)                                                  \
    static T NAME##_scale(T d) { return d == 0 ? 1 : EXP(d); }                                     \
    static partial NAME(partial a, partial b)                                                      \
    {                                                                                              \
        partial r;                                                                                 \
        T m = MAX(a.v.FIELD, b.v.FIELD);                                                           \
        r.v.FIELD = m;                                                                             \
        r.aux.FIELD = isfinite(m) ? a.aux.FIELD * NAME##_scale(a.v.FIELD - m) +                    \
                                        b.aux.FIELD * NAME##_scale(b.v.FIELD - m)                  \
                                  : 0;                                                             \
        return r;                                                                                  \
    }
DEF_COMBINE_LSE(lse_f32, f32, float, max754_f32, DMLCPU_EXP_F32_SCALAR)
DEF_COMBINE_LSE(lse_f64, f64, double, max754_f64, DMLCPU_EXP_F64_SCALAR)

enum { FAM_F32, FAM_F64, FAM_S, FAM_U };

static int family(dmlcpu_data_type t)
{
    switch (t) {
    case DMLCPU_DATA_TYPE_FLOAT16:
    case DMLCPU_DATA_TYPE_FLOAT32: return FAM_F32;
    case DMLCPU_DATA_TYPE_FLOAT64: return FAM_F64;
    case DMLCPU_DATA_TYPE_INT8:
    case DMLCPU_DATA_TYPE_INT16:
    case DMLCPU_DATA_TYPE_INT32:
    case DMLCPU_DATA_TYPE_INT64: return FAM_S;
    default: return FAM_U;
    }
}

static const combine_fn combiners[RK_COUNT][4] = {
    [RK_SUM] = {add_f32, add_f64, add_u64, add_u64},
    [RK_ASUM] = {add_f32, add_f64, add_u64, add_u64},
    [RK_SQSUM] = {add_f32, add_f64, add_u64, add_u64},
    [RK_PROD] = {mul_f32, mul_f64, mul_u64, mul_u64},
    [RK_MIN] = {min_f32, min_f64, min_s, min_u},
    [RK_MAX] = {max_f32, max_f64, max_s, max_u},
    [RK_ARGMIN] = {argmin_f32, argmin_f64, argmin_s, argmin_u},
    [RK_ARGMIN_LAST] = {argmin_last_f32, argmin_last_f64, argmin_last_s, argmin_last_u},
    [RK_ARGMAX] = {argmax_f32, argmax_f64, argmax_s, argmax_u},
    [RK_ARGMAX_LAST] = {argmax_last_f32, argmax_last_f64, argmax_last_s, argmax_last_u},
    [RK_LSE] = {lse_f32, lse_f64, NULL, NULL},
};

combine_fn reduce_combiner(reduce_kind k, dmlcpu_data_type t) { return combiners[k][family(t)]; }

/* ---- finalize and store one output element ---- */

static float fin_f32(reduce_finalize fin, float v, uint64_t n)
{
    switch (fin) {
    case FIN_DIV_N: return v / (float)n;
    case FIN_SQRT: return sqrtf(v);
    default: return v; /* FIN_LOG and FIN_LSE: store_logs */
    }
}

static double fin_f64(reduce_finalize fin, double v, uint64_t n)
{
    switch (fin) {
    case FIN_DIV_N: return v / (double)n;
    case FIN_SQRT: return sqrt(v);
    default: return v; /* FIN_LOG and FIN_LSE: store_logs */
    }
}

static void store_bits(void *dst, uint64_t bits, size_t size)
{
    switch (size) {
    case 1: { uint8_t v = (uint8_t)bits; memcpy(dst, &v, 1); break; }
    case 2: { uint16_t v = (uint16_t)bits; memcpy(dst, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)bits; memcpy(dst, &v, 4); break; }
    default: memcpy(dst, &bits, 8); break;
    }
}

/* LOG_SUM and LOG_SUM_EXP, every output of them (reduce_finish passes one): the logs of up to
 * LOG_CHUNK outputs at a time through the plan's vector log (the bits of SLEEF's scalar log),
 * then log(s) for LOG_SUM, m + log(s) for LOG_SUM_EXP where m is finite (else m). */
#define LOG_CHUNK 64
#define LOGS_OF(T, FIELD, LOGFN)                                                                   \
    T l[LOG_CHUNK];                                                                                \
    for (size_t i = 0; i < m; i++)                                                                 \
        l[i] = lse ? pp[i].aux.FIELD : pp[i].v.FIELD;                                              \
    p->LOGFN(l, m)
#define LOG_RESULT(FIELD, i)                                                                       \
    (!lse ? l[i] : isfinite(pp[i].v.FIELD) ? pp[i].v.FIELD + l[i] : pp[i].v.FIELD)
static void store_logs(const reduce_plan *p, const partial *parts, size_t cnt, char *out,
                       ptrdiff_t os)
{
    const bool lse = p->finalize == FIN_LSE;
    for (size_t j0 = 0; j0 < cnt; j0 += LOG_CHUNK) {
        const size_t m = cnt - j0 < LOG_CHUNK ? cnt - j0 : LOG_CHUNK;
        const partial *pp = parts + j0;
        char *o = out + (ptrdiff_t)j0 * os;
        if (p->in_type == DMLCPU_DATA_TYPE_FLOAT64) {
            LOGS_OF(double, f64, log_f64);
            for (size_t i = 0; i < m; i++) {
                const double d = LOG_RESULT(f64, i);
                memcpy(o + (ptrdiff_t)i * os, &d, sizeof d);
            }
            continue;
        }
        LOGS_OF(float, f32, log_f32);
        for (size_t i = 0; i < m; i++) {
            const float f = LOG_RESULT(f32, i);
            if (p->in_type == DMLCPU_DATA_TYPE_FLOAT16) {
                const uint16_t h = fp16_from_f32(f);
                memcpy(o + (ptrdiff_t)i * os, &h, sizeof h);
            } else {
                memcpy(o + (ptrdiff_t)i * os, &f, sizeof f);
            }
        }
    }
}

void reduce_finish(const reduce_plan *p, partial v, void *dst)
{
    if (reduce_kind_is_arg(p->kind)) {
        store_bits(dst, v.aux.idx, dtype_size(p->out_type));
        return;
    }
    if (p->finalize == FIN_LSE || p->finalize == FIN_LOG) {
        store_logs(p, &v, 1, dst, 0);
        return;
    }
    switch (p->in_type) {
    case DMLCPU_DATA_TYPE_FLOAT16:
    case DMLCPU_DATA_TYPE_FLOAT32: {
        const float f = fin_f32(p->finalize, v.v.f32, p->n);
        if (p->in_type == DMLCPU_DATA_TYPE_FLOAT16) {
            uint16_t h = fp16_from_f32(f);
            memcpy(dst, &h, 2);
        } else {
            memcpy(dst, &f, 4);
        }
        break;
    }
    case DMLCPU_DATA_TYPE_FLOAT64: {
        const double d = fin_f64(p->finalize, v.v.f64, p->n);
        memcpy(dst, &d, 8);
        break;
    }
    default: /* integers: sums wrap, MIN/MAX are exact; narrowing keeps the low bits */
        store_bits(dst, v.v.u64, dtype_size(p->in_type));
        break;
    }
}

/* The outputs of a multi-row batch. Values that need no finalize step are stored as they are,
 * by element size: reduce_finish per element cost more than the kernel's work on short rows. */
#define STORE_PARTS(CT, EXPR)                                                                      \
    for (size_t j = 0; j < cnt; j++) {                                                             \
        const CT v_ = (CT)(EXPR);                                                                  \
        memcpy(out + (ptrdiff_t)j * os, &v_, sizeof v_);                                           \
    }
void reduce_store_parts(const reduce_plan *p, const partial *parts, size_t cnt, char *out,
                        ptrdiff_t os)
{
    const bool arg = reduce_kind_is_arg(p->kind);
    if (arg) {
        switch (dtype_size(p->out_type)) {
        case 4: STORE_PARTS(uint32_t, parts[j].aux.idx); return;
        default: STORE_PARTS(uint64_t, parts[j].aux.idx); return;
        }
    }
    if (p->in_type == DMLCPU_DATA_TYPE_FLOAT32 || p->in_type == DMLCPU_DATA_TYPE_FLOAT64) {
        const bool f32 = p->in_type == DMLCPU_DATA_TYPE_FLOAT32;
        switch (p->finalize) { /* the operations of fin_f32 / fin_f64 */
        case FIN_SQRT:
            if (f32) {
                STORE_PARTS(float, sqrtf(parts[j].v.f32));
            } else {
                STORE_PARTS(double, sqrt(parts[j].v.f64));
            }
            return;
        case FIN_DIV_N:
            if (f32) {
                STORE_PARTS(float, parts[j].v.f32 / (float)p->n);
            } else {
                STORE_PARTS(double, parts[j].v.f64 / (double)p->n);
            }
            return;
        default: break;
        }
    }
    if (p->in_type == DMLCPU_DATA_TYPE_FLOAT16) { /* fin_f32, then rounded once to FLOAT16 */
        switch (p->finalize) {
        case FIN_NONE: STORE_PARTS(uint16_t, fp16_from_f32(parts[j].v.f32)); return;
        case FIN_SQRT: STORE_PARTS(uint16_t, fp16_from_f32(sqrtf(parts[j].v.f32))); return;
        case FIN_DIV_N:
            STORE_PARTS(uint16_t, fp16_from_f32(parts[j].v.f32 / (float)p->n));
            return;
        default: break;
        }
    }
    if (p->finalize == FIN_LSE || p->finalize == FIN_LOG) {
        store_logs(p, parts, cnt, out, os);
        return;
    }
    if (p->finalize == FIN_NONE) {
        switch (p->in_type) {
        case DMLCPU_DATA_TYPE_FLOAT32: STORE_PARTS(float, parts[j].v.f32); return;
        case DMLCPU_DATA_TYPE_FLOAT64: STORE_PARTS(double, parts[j].v.f64); return;
        case DMLCPU_DATA_TYPE_FLOAT16: break;
        default: /* integers: sums wrap, MIN/MAX are exact; narrowing keeps the low bits */
            switch (dtype_size(p->in_type)) {
            case 1: STORE_PARTS(uint8_t, parts[j].v.u64); return;
            case 2: STORE_PARTS(uint16_t, parts[j].v.u64); return;
            case 4: STORE_PARTS(uint32_t, parts[j].v.u64); return;
            default: STORE_PARTS(uint64_t, parts[j].v.u64); return;
            }
        }
    }
    for (size_t j = 0; j < cnt; j++)
        reduce_finish(p, parts[j], out + (ptrdiff_t)j * os);
}

