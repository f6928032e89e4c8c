/* The scalar tier: every reduction kernel (every kind x every data type) and the strided copies,
 * plain C, and the definition every SIMD tier must match bit for bit.
 *
 * Float sums follow SPEC 4 literally: per block, quads of four mapped elements fold into L lanes
 * (quad q into lane q mod L), then a halving tree over the lanes. Row kernels walk contiguous
 * elements; column kernels keep L lanes per column (lane[j][column]) and add four rows at a time,
 * which is the layout a SIMD column kernel uses with vectors across the columns. Integers,
 * MIN/MAX and ARG* have no order constraint: one pass, one partial per block. */
#include <math.h>
#include <string.h>

#include "fp16.h"
#include "kernels.h"
#include "numeric.h"
#include "simd/lse_expf.h"
#include "simd/sleef_math.h"

static inline float ld_f32(float v) { return v; }
static inline float ld_f16(uint16_t v) { return fp16_to_f32(v); }
static inline double ld_f64(double v) { return v; }
static inline int64_t ld_s(int64_t v) { return v; }
static inline uint64_t ld_u(uint64_t v) { return v; }

static inline float map_id_f32(float a) { return a; }
static inline float map_abs_f32(float a) { return fabsf(a); }
static inline float map_sq_f32(float a) { return a * a; }
static inline double map_id_f64(double a) { return a; }
static inline double map_abs_f64(double a) { return fabs(a); }
static inline double map_sq_f64(double a) { return a * a; }
/* integers: wrap modulo 2^64, narrowed to the type's width at the end */
static inline uint64_t map_id_u64(uint64_t a) { return a; }
static inline uint64_t map_abs_u64(uint64_t a) { return (int64_t)a < 0 ? 0 - a : a; }
static inline uint64_t map_abs_zx(uint64_t a) { return a; } /* unsigned inputs */
static inline uint64_t map_sq_u64(uint64_t a) { return a * a; }

#define OP_ADD(a, b) ((a) + (b))
#define OP_MUL(a, b) ((a) * (b))

/* Steps 2-4 of SPEC 4 over the m <= 64*L elements p[0..m); MAP(LOAD(p[i])) is element i in the
 * accumulator type; the block's value goes to res. Missing elements of the last quad count as
 * the identity ID. */
#define CANON_BLOCK(ACC, L, m, p, LOAD, MAP, OP, ID, res)                                                     \
    do {                                                                                           \
        ACC lane_[L];                                                                              \
        for (int j_ = 0; j_ < (L); j_++)                                                           \
            lane_[j_] = (ID);                                                                      \
        size_t nq_ = (m) / 4;                                                                      \
        for (size_t q_ = 0; q_ < nq_; q_++) {                                                      \
            ACC e0_ = MAP(LOAD((p)[4 * q_])), e1_ = MAP(LOAD((p)[4 * q_ + 1]));                     \
            ACC e2_ = MAP(LOAD((p)[4 * q_ + 2])), e3_ = MAP(LOAD((p)[4 * q_ + 3]));                 \
            lane_[q_ % (L)] = OP(lane_[q_ % (L)], OP(OP(e0_, e1_), OP(e2_, e3_)));                 \
        }                                                                                          \
        if ((m) % 4) {                                                                             \
            ACC t_[4] = {(ID), (ID), (ID), (ID)};                                                  \
            for (size_t r_ = 0; r_ < (m) % 4; r_++)                                                \
                t_[r_] = MAP(LOAD((p)[4 * nq_ + r_]));                                             \
            lane_[nq_ % (L)] = OP(lane_[nq_ % (L)], OP(OP(t_[0], t_[1]), OP(t_[2], t_[3])));       \
        }                                                                                          \
        for (int h_ = (L) / 2; h_ >= 1; h_ /= 2)                                                   \
            for (int i_ = 0; i_ < h_; i_++)                                                        \
                lane_[i_] = OP(lane_[i_], lane_[i_ + h_]);                                         \
        (res) = lane_[0];                                                                          \
    } while (0)

/* ---- float sums in the canonical order ---- */

#define DEF_ROW_CANON(NAME, T, ACC, L, LOAD, MAP, OP, ID, FIELD)                                   \
    static void NAME(const void *xv, size_t n, uint64_t index_base, partial *out)                 \
    {                                                                                              \
        const T *x = xv;                                                                           \
        (void)index_base;                                                                          \
        for (size_t b0 = 0; b0 < n; b0 += 64 * (L), out++) {                                       \
            size_t m = n - b0 < 64 * (L) ? n - b0 : 64 * (L);                                      \
            const T *p = x + b0;                                                                   \
            ACC v;                                                                                 \
            CANON_BLOCK(ACC, L, m, p, LOAD, MAP, OP, ID, v);                                       \
            out->v.FIELD = v;                                                                      \
        }                                                                                          \
    }

/* Column form: K columns side by side, row r at x + r*rs bytes. lane[j][k] is lane j of column
 * k; the quad of rows 4q..4q+3 of column k goes to lane q mod L. */
#define DEF_COL_CANON(NAME, T, ACC, L, LOAD, MAP, OP, ID, FIELD)                                   \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base,   \
                     partial *out, void *scratch)                                                  \
    {                                                                                              \
        const char *x = xv;                                                                        \
        (void)index_base;                                                                          \
        const size_t P = DMLCPU_COL_PITCH(K);                                                      \
        ACC(*lane)[P] = scratch;                                                                   \
        for (int j = 0; j < (L); j++)                                                              \
            for (size_t k = 0; k < K; k++)                                                         \
                lane[j][k] = (ID);                                                                 \
        for (size_t r0 = 0; r0 < nrows; r0 += 4) {                                                 \
            size_t have = nrows - r0 < 4 ? nrows - r0 : 4;                                         \
            const T *r[4];                                                                         \
            for (size_t i = 0; i < 4; i++)                                                         \
                r[i] = (const T *)(x + (ptrdiff_t)(r0 + (i < have ? i : 0)) * rs);                 \
            ACC *ln = lane[(r0 / 4) % (L)];                                                        \
            for (size_t k = 0; k < K; k++) {                                                       \
                ACC e0 = MAP(LOAD(r[0][k]));                                                       \
                ACC e1 = have > 1 ? MAP(LOAD(r[1][k])) : (ID);                                     \
                ACC e2 = have > 2 ? MAP(LOAD(r[2][k])) : (ID);                                     \
                ACC e3 = have > 3 ? MAP(LOAD(r[3][k])) : (ID);                                     \
                ln[k] = OP(ln[k], OP(OP(e0, e1), OP(e2, e3)));                                     \
            }                                                                                      \
        }                                                                                          \
        for (int h = (L) / 2; h >= 1; h /= 2)                                                      \
            for (int i = 0; i < h; i++)                                                            \
                for (size_t k = 0; k < K; k++)                                                     \
                    lane[i][k] = OP(lane[i][k], lane[i + h][k]);                                   \
        for (size_t k = 0; k < K; k++)                                                             \
            out[k].v.FIELD = lane[0][k];                                                           \
    }

/* ---- order-free reductions: integer sums, MIN/MAX ---- */

#define DEF_ROW_FOLD(NAME, T, ACC, LOAD, MAP, OP, FIELD)                                           \
    static void NAME(const void *xv, size_t n, uint64_t index_base, partial *out)                 \
    {                                                                                              \
        const T *x = xv;                                                                           \
        (void)index_base;                                                                          \
        for (size_t b0 = 0; b0 < n; b0 += DMLCPU_BLOCK_FREE, out++) {                              \
            size_t end = n - b0 < DMLCPU_BLOCK_FREE ? n : b0 + DMLCPU_BLOCK_FREE;                  \
            ACC acc = MAP(LOAD(x[b0]));                                                            \
            for (size_t i = b0 + 1; i < end; i++)                                                  \
                acc = OP(acc, MAP(LOAD(x[i])));                                                    \
            out->v.FIELD = acc;                                                                    \
        }                                                                                          \
    }

#define DEF_COL_FOLD(NAME, T, ACC, LOAD, MAP, OP, FIELD)                                           \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base,   \
                     partial *out, void *scratch)                                                  \
    {                                                                                              \
        const char *x = xv;                                                                        \
        (void)index_base;                                                                          \
        ACC *acc = scratch;                                                                        \
        const T *r = (const T *)x;                                                                 \
        for (size_t k = 0; k < K; k++)                                                             \
            acc[k] = MAP(LOAD(r[k]));                                                              \
        for (size_t i = 1; i < nrows; i++) {                                                       \
            r = (const T *)(x + (ptrdiff_t)i * rs);                                                \
            for (size_t k = 0; k < K; k++)                                                         \
                acc[k] = OP(acc[k], MAP(LOAD(r[k])));                                              \
        }                                                                                          \
        for (size_t k = 0; k < K; k++)                                                             \
            out[k].v.FIELD = acc[k];                                                               \
    }

/* ---- ARGMIN / ARGMAX ---- */

#define DEF_ROW_ARG(NAME, T, V, LOAD, BETTER, ISN, FIELD)                                          \
    static void NAME(const void *xv, size_t n, uint64_t index_base, partial *out)                 \
    {                                                                                              \
        const T *x = xv;                                                                           \
        for (size_t b0 = 0; b0 < n; b0 += DMLCPU_BLOCK_FREE, out++) {                              \
            size_t end = n - b0 < DMLCPU_BLOCK_FREE ? n : b0 + DMLCPU_BLOCK_FREE;                  \
            V best = LOAD(x[b0]);                                                                  \
            size_t at = b0;                                                                        \
            for (size_t i = b0 + 1; i < end; i++) {                                                \
                V v = LOAD(x[i]);                                                                  \
                if (BETTER(ISN, v, best)) {                                                        \
                    best = v;                                                                      \
                    at = i;                                                                        \
                }                                                                                  \
            }                                                                                      \
            out->v.FIELD = best;                                                                   \
            out->aux.idx = index_base + at;                                                        \
        }                                                                                          \
    }

#define DEF_COL_ARG(NAME, T, V, LOAD, BETTER, ISN, FIELD)                                          \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base,   \
                     partial *out, void *scratch)                                                  \
    {                                                                                              \
        const char *x = xv;                                                                        \
        index_base &= ~DMLCPU_COL_STREAM;                                                          \
        V *best = scratch;                                                                         \
        size_t *at = (size_t *)(best + DMLCPU_COL_PITCH(K));                                           \
        const T *r = (const T *)x;                                                                 \
        for (size_t k = 0; k < K; k++) {                                                           \
            best[k] = LOAD(r[k]);                                                                  \
            at[k] = 0;                                                                             \
        }                                                                                          \
        for (size_t i = 1; i < nrows; i++) {                                                       \
            r = (const T *)(x + (ptrdiff_t)i * rs);                                                \
            for (size_t k = 0; k < K; k++) {                                                       \
                V v = LOAD(r[k]);                                                                  \
                if (BETTER(ISN, v, best[k])) {                                                     \
                    best[k] = v;                                                                   \
                    at[k] = i;                                                                     \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        for (size_t k = 0; k < K; k++) {                                                           \
            out[k].v.FIELD = best[k];                                                              \
            out[k].aux.idx = index_base + at[k];                                                   \
        }                                                                                          \
    }

/* ---- LOG_SUM_EXP: block max m, then the canonical block sum of exp(x - m) ---- */

#define DEF_ROW_LSE(NAME, T, ACC, L, LOAD, MAX754, EXPSUB, FIELD)                                     \
    static void NAME(const void *xv, size_t n, uint64_t index_base, partial *out)                 \
    {                                                                                              \
        const T *x = xv;                                                                           \
        (void)index_base;                                                                          \
        for (size_t b0 = 0; b0 < n; b0 += 64 * (L), out++) {                                       \
            size_t m = n - b0 < 64 * (L) ? n - b0 : 64 * (L);                                      \
            const T *p = x + b0;                                                                   \
            ACC mx = LOAD(p[0]);                                                                   \
            for (size_t i = 1; i < m; i++)                                                         \
                mx = MAX754(mx, LOAD(p[i]));                                                       \
            ACC s = 0;                                                                             \
            if (isfinite(mx)) {                                                                    \
                CANON_BLOCK(ACC, L, m, p, LOAD, EXPSUB, OP_ADD, (ACC)0, s);                        \
            }                                                                                      \
            out->v.FIELD = mx;                                                                     \
            out->aux.FIELD = s;                                                                    \
        }                                                                                          \
    }

#define DEF_COL_LSE(NAME, T, ACC, L, LOAD, MAX754, EXP, FIELD)                                     \
    static void NAME(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base,   \
                     partial *out, void *scratch)                                                  \
    {                                                                                              \
        const char *x = xv;                                                                        \
        (void)index_base;                                                                          \
        const size_t P = DMLCPU_COL_PITCH(K);                                                      \
        ACC *mx = scratch;                                                                         \
        ACC(*lane)[P] = (void *)(mx + P);                                                          \
        for (size_t k = 0; k < K; k++)                                                             \
            mx[k] = LOAD(((const T *)x)[k]);                                                       \
        for (size_t i = 1; i < nrows; i++)                                                         \
            for (size_t k = 0; k < K; k++)                                                         \
                mx[k] = MAX754(mx[k], LOAD(((const T *)(x + (ptrdiff_t)i * rs))[k]));              \
        for (int j = 0; j < (L); j++)                                                              \
            for (size_t k = 0; k < K; k++)                                                         \
                lane[j][k] = 0;                                                                    \
        for (size_t r0 = 0; r0 < nrows; r0 += 4) {                                                 \
            size_t have = nrows - r0 < 4 ? nrows - r0 : 4;                                         \
            ACC *ln = lane[(r0 / 4) % (L)];                                                        \
            for (size_t k = 0; k < K; k++) {                                                       \
                ACC e[4] = {0, 0, 0, 0};                                                           \
                for (size_t i = 0; i < have; i++)                                                  \
                    e[i] = EXP(LOAD(((const T *)(x + (ptrdiff_t)(r0 + i) * rs))[k]) - mx[k]);      \
                ln[k] = ln[k] + ((e[0] + e[1]) + (e[2] + e[3]));                                   \
            }                                                                                      \
        }                                                                                          \
        for (int h = (L) / 2; h >= 1; h /= 2)                                                      \
            for (int i = 0; i < h; i++)                                                            \
                for (size_t k = 0; k < K; k++)                                                     \
                    lane[i][k] = lane[i][k] + lane[i + h][k];                                      \
        for (size_t k = 0; k < K; k++) {                                                           \
            out[k].v.FIELD = mx[k];                                                                \
            out[k].aux.FIELD = isfinite(mx[k]) ? lane[0][k] : 0;                                   \
        }                                                                                          \
    }

static inline int64_t map_id_i64(int64_t a) { return a; }
#define EXPSUB_F32(a) lse_expf_scalar((a) - mx)
#define EXPSUB_F64(a) DMLCPU_EXP_F64_SCALAR((a) - mx)

#define DEF_CANON(ROW, COL, ...) DEF_ROW_CANON(ROW, __VA_ARGS__) DEF_COL_CANON(COL, __VA_ARGS__)
#define DEF_FOLD(ROW, COL, ...) DEF_ROW_FOLD(ROW, __VA_ARGS__) DEF_COL_FOLD(COL, __VA_ARGS__)
#define DEF_ARG(ROW, COL, ...) DEF_ROW_ARG(ROW, __VA_ARGS__) DEF_COL_ARG(COL, __VA_ARGS__)
#define DEF_LSE(ROW, COL, T, ACC, L, LOAD, MAX754, EXPSUB, EXP, FIELD)                             \
    DEF_ROW_LSE(ROW, T, ACC, L, LOAD, MAX754, EXPSUB, FIELD)                                       \
    DEF_COL_LSE(COL, T, ACC, L, LOAD, MAX754, EXP, FIELD)

/* The flat list of scalar reduction kernels: kind, input type, row and column kernel names,
 * family, then the family's parameters. Expanded once into definitions, once into the table. */
#define SCALAR_REDUCE_KERNELS(X)                                                                   \
    /* float sums in the canonical order: T, ACC, lanes, load, map, op, identity, field */          \
    X(RK_SUM, FLOAT32, reduce_row_sum_f32_scalar, reduce_col_sum_f32_scalar, CANON, float, float, 64, ld_f32, map_id_f32, OP_ADD, 0.0f, f32) \
    X(RK_SUM, FLOAT16, reduce_row_sum_f16_scalar, reduce_col_sum_f16_scalar, CANON, uint16_t, float, 64, ld_f16, map_id_f32, OP_ADD, 0.0f, f32) \
    X(RK_SUM, FLOAT64, reduce_row_sum_f64_scalar, reduce_col_sum_f64_scalar, CANON, double, double, 32, ld_f64, map_id_f64, OP_ADD, 0.0, f64) \
    X(RK_ASUM, FLOAT32, reduce_row_asum_f32_scalar, reduce_col_asum_f32_scalar, CANON, float, float, 64, ld_f32, map_abs_f32, OP_ADD, 0.0f, f32) \
    X(RK_ASUM, FLOAT16, reduce_row_asum_f16_scalar, reduce_col_asum_f16_scalar, CANON, uint16_t, float, 64, ld_f16, map_abs_f32, OP_ADD, 0.0f, f32) \
    X(RK_ASUM, FLOAT64, reduce_row_asum_f64_scalar, reduce_col_asum_f64_scalar, CANON, double, double, 32, ld_f64, map_abs_f64, OP_ADD, 0.0, f64) \
    X(RK_SQSUM, FLOAT32, reduce_row_sqsum_f32_scalar, reduce_col_sqsum_f32_scalar, CANON, float, float, 64, ld_f32, map_sq_f32, OP_ADD, 0.0f, f32) \
    X(RK_SQSUM, FLOAT16, reduce_row_sqsum_f16_scalar, reduce_col_sqsum_f16_scalar, CANON, uint16_t, float, 64, ld_f16, map_sq_f32, OP_ADD, 0.0f, f32) \
    X(RK_SQSUM, FLOAT64, reduce_row_sqsum_f64_scalar, reduce_col_sqsum_f64_scalar, CANON, double, double, 32, ld_f64, map_sq_f64, OP_ADD, 0.0, f64) \
    X(RK_PROD, FLOAT32, reduce_row_prod_f32_scalar, reduce_col_prod_f32_scalar, CANON, float, float, 64, ld_f32, map_id_f32, OP_MUL, 1.0f, f32) \
    X(RK_PROD, FLOAT16, reduce_row_prod_f16_scalar, reduce_col_prod_f16_scalar, CANON, uint16_t, float, 64, ld_f16, map_id_f32, OP_MUL, 1.0f, f32) \
    X(RK_PROD, FLOAT64, reduce_row_prod_f64_scalar, reduce_col_prod_f64_scalar, CANON, double, double, 32, ld_f64, map_id_f64, OP_MUL, 1.0, f64) \
    /* integer sums, wrapping: T, ACC, load, map, op, field */                                     \
    X(RK_SUM, INT32, reduce_row_sum_i32_scalar, reduce_col_sum_i32_scalar, FOLD, int32_t, uint64_t, ld_s, map_id_u64, OP_ADD, u64) \
    X(RK_SUM, UINT32, reduce_row_sum_u32_scalar, reduce_col_sum_u32_scalar, FOLD, uint32_t, uint64_t, ld_u, map_id_u64, OP_ADD, u64) \
    X(RK_SUM, INT64, reduce_row_sum_i64_scalar, reduce_col_sum_i64_scalar, FOLD, int64_t, uint64_t, ld_s, map_id_u64, OP_ADD, u64) \
    X(RK_SUM, UINT64, reduce_row_sum_u64_scalar, reduce_col_sum_u64_scalar, FOLD, uint64_t, uint64_t, ld_u, map_id_u64, OP_ADD, u64) \
    X(RK_ASUM, INT32, reduce_row_asum_i32_scalar, reduce_col_asum_i32_scalar, FOLD, int32_t, uint64_t, ld_s, map_abs_u64, OP_ADD, u64) \
    X(RK_ASUM, UINT32, reduce_row_asum_u32_scalar, reduce_col_asum_u32_scalar, FOLD, uint32_t, uint64_t, ld_u, map_abs_zx, OP_ADD, u64) \
    X(RK_ASUM, INT64, reduce_row_asum_i64_scalar, reduce_col_asum_i64_scalar, FOLD, int64_t, uint64_t, ld_s, map_abs_u64, OP_ADD, u64) \
    X(RK_ASUM, UINT64, reduce_row_asum_u64_scalar, reduce_col_asum_u64_scalar, FOLD, uint64_t, uint64_t, ld_u, map_abs_zx, OP_ADD, u64) \
    X(RK_SQSUM, INT32, reduce_row_sqsum_i32_scalar, reduce_col_sqsum_i32_scalar, FOLD, int32_t, uint64_t, ld_s, map_sq_u64, OP_ADD, u64) \
    X(RK_SQSUM, UINT32, reduce_row_sqsum_u32_scalar, reduce_col_sqsum_u32_scalar, FOLD, uint32_t, uint64_t, ld_u, map_sq_u64, OP_ADD, u64) \
    X(RK_SQSUM, INT64, reduce_row_sqsum_i64_scalar, reduce_col_sqsum_i64_scalar, FOLD, int64_t, uint64_t, ld_s, map_sq_u64, OP_ADD, u64) \
    X(RK_SQSUM, UINT64, reduce_row_sqsum_u64_scalar, reduce_col_sqsum_u64_scalar, FOLD, uint64_t, uint64_t, ld_u, map_sq_u64, OP_ADD, u64) \
    X(RK_PROD, INT32, reduce_row_prod_i32_scalar, reduce_col_prod_i32_scalar, FOLD, int32_t, uint64_t, ld_s, map_id_u64, OP_MUL, u64) \
    X(RK_PROD, UINT32, reduce_row_prod_u32_scalar, reduce_col_prod_u32_scalar, FOLD, uint32_t, uint64_t, ld_u, map_id_u64, OP_MUL, u64) \
    X(RK_PROD, INT64, reduce_row_prod_i64_scalar, reduce_col_prod_i64_scalar, FOLD, int64_t, uint64_t, ld_s, map_id_u64, OP_MUL, u64) \
    X(RK_PROD, UINT64, reduce_row_prod_u64_scalar, reduce_col_prod_u64_scalar, FOLD, uint64_t, uint64_t, ld_u, map_id_u64, OP_MUL, u64) \
    /* MIN / MAX: T, value type, load, map, op, field */                                          \
    X(RK_MAX, FLOAT32, reduce_row_max_f32_scalar, reduce_col_max_f32_scalar, FOLD, float, float, ld_f32, map_id_f32, max754_f32, f32) \
    X(RK_MAX, FLOAT16, reduce_row_max_f16_scalar, reduce_col_max_f16_scalar, FOLD, uint16_t, float, ld_f16, map_id_f32, max754_f32, f32) \
    X(RK_MAX, FLOAT64, reduce_row_max_f64_scalar, reduce_col_max_f64_scalar, FOLD, double, double, ld_f64, map_id_f64, max754_f64, f64) \
    X(RK_MAX, UINT32, reduce_row_max_u32_scalar, reduce_col_max_u32_scalar, FOLD, uint32_t, uint64_t, ld_u, map_id_u64, max_u64, u64) \
    X(RK_MAX, UINT16, reduce_row_max_u16_scalar, reduce_col_max_u16_scalar, FOLD, uint16_t, uint64_t, ld_u, map_id_u64, max_u64, u64) \
    X(RK_MAX, UINT8, reduce_row_max_u8_scalar, reduce_col_max_u8_scalar, FOLD, uint8_t, uint64_t, ld_u, map_id_u64, max_u64, u64) \
    X(RK_MAX, INT32, reduce_row_max_i32_scalar, reduce_col_max_i32_scalar, FOLD, int32_t, int64_t, ld_s, map_id_i64, max_i64, i64) \
    X(RK_MAX, INT16, reduce_row_max_i16_scalar, reduce_col_max_i16_scalar, FOLD, int16_t, int64_t, ld_s, map_id_i64, max_i64, i64) \
    X(RK_MAX, INT8, reduce_row_max_i8_scalar, reduce_col_max_i8_scalar, FOLD, int8_t, int64_t, ld_s, map_id_i64, max_i64, i64) \
    X(RK_MAX, UINT64, reduce_row_max_u64_scalar, reduce_col_max_u64_scalar, FOLD, uint64_t, uint64_t, ld_u, map_id_u64, max_u64, u64) \
    X(RK_MAX, INT64, reduce_row_max_i64_scalar, reduce_col_max_i64_scalar, FOLD, int64_t, int64_t, ld_s, map_id_i64, max_i64, i64) \
    X(RK_MIN, FLOAT32, reduce_row_min_f32_scalar, reduce_col_min_f32_scalar, FOLD, float, float, ld_f32, map_id_f32, min754_f32, f32) \
    X(RK_MIN, FLOAT16, reduce_row_min_f16_scalar, reduce_col_min_f16_scalar, FOLD, uint16_t, float, ld_f16, map_id_f32, min754_f32, f32) \
    X(RK_MIN, FLOAT64, reduce_row_min_f64_scalar, reduce_col_min_f64_scalar, FOLD, double, double, ld_f64, map_id_f64, min754_f64, f64) \
    X(RK_MIN, UINT32, reduce_row_min_u32_scalar, reduce_col_min_u32_scalar, FOLD, uint32_t, uint64_t, ld_u, map_id_u64, min_u64, u64) \
    X(RK_MIN, UINT16, reduce_row_min_u16_scalar, reduce_col_min_u16_scalar, FOLD, uint16_t, uint64_t, ld_u, map_id_u64, min_u64, u64) \
    X(RK_MIN, UINT8, reduce_row_min_u8_scalar, reduce_col_min_u8_scalar, FOLD, uint8_t, uint64_t, ld_u, map_id_u64, min_u64, u64) \
    X(RK_MIN, INT32, reduce_row_min_i32_scalar, reduce_col_min_i32_scalar, FOLD, int32_t, int64_t, ld_s, map_id_i64, min_i64, i64) \
    X(RK_MIN, INT16, reduce_row_min_i16_scalar, reduce_col_min_i16_scalar, FOLD, int16_t, int64_t, ld_s, map_id_i64, min_i64, i64) \
    X(RK_MIN, INT8, reduce_row_min_i8_scalar, reduce_col_min_i8_scalar, FOLD, int8_t, int64_t, ld_s, map_id_i64, min_i64, i64) \
    X(RK_MIN, UINT64, reduce_row_min_u64_scalar, reduce_col_min_u64_scalar, FOLD, uint64_t, uint64_t, ld_u, map_id_u64, min_u64, u64) \
    X(RK_MIN, INT64, reduce_row_min_i64_scalar, reduce_col_min_i64_scalar, FOLD, int64_t, int64_t, ld_s, map_id_i64, min_i64, i64) \
    /* LOG_SUM_EXP: T, ACC, lanes, load, max, exp(x - m) in the row form, exp, field */            \
    X(RK_LSE, FLOAT32, reduce_row_lse_f32_scalar, reduce_col_lse_f32_scalar, LSE, float, float, 64, ld_f32, max754_f32, EXPSUB_F32, lse_expf_scalar, f32) \
    X(RK_LSE, FLOAT16, reduce_row_lse_f16_scalar, reduce_col_lse_f16_scalar, LSE, uint16_t, float, 64, ld_f16, max754_f32, EXPSUB_F32, lse_expf_scalar, f32) \
    X(RK_LSE, FLOAT64, reduce_row_lse_f64_scalar, reduce_col_lse_f64_scalar, LSE, double, double, 32, ld_f64, max754_f64, EXPSUB_F64, DMLCPU_EXP_F64_SCALAR, f64)

/* ARG* for every type and the four (function, direction) kinds: T, value type, load, NaN test,
 * field. */
#define SCALAR_ARG_TYPES(X, KIND, K, BETTER)                                                       \
    X(KIND, FLOAT32, reduce_row_##K##_f32_scalar, reduce_col_##K##_f32_scalar, ARG, float, float, ld_f32, BETTER, isnan_f32, f32) \
    X(KIND, FLOAT16, reduce_row_##K##_f16_scalar, reduce_col_##K##_f16_scalar, ARG, uint16_t, float, ld_f16, BETTER, isnan_f32, f32) \
    X(KIND, FLOAT64, reduce_row_##K##_f64_scalar, reduce_col_##K##_f64_scalar, ARG, double, double, ld_f64, BETTER, isnan_f64, f64) \
    X(KIND, UINT32, reduce_row_##K##_u32_scalar, reduce_col_##K##_u32_scalar, ARG, uint32_t, uint64_t, ld_u, BETTER, isnan_u64, u64) \
    X(KIND, UINT16, reduce_row_##K##_u16_scalar, reduce_col_##K##_u16_scalar, ARG, uint16_t, uint64_t, ld_u, BETTER, isnan_u64, u64) \
    X(KIND, UINT8, reduce_row_##K##_u8_scalar, reduce_col_##K##_u8_scalar, ARG, uint8_t, uint64_t, ld_u, BETTER, isnan_u64, u64) \
    X(KIND, INT32, reduce_row_##K##_i32_scalar, reduce_col_##K##_i32_scalar, ARG, int32_t, int64_t, ld_s, BETTER, isnan_i64, i64) \
    X(KIND, INT16, reduce_row_##K##_i16_scalar, reduce_col_##K##_i16_scalar, ARG, int16_t, int64_t, ld_s, BETTER, isnan_i64, i64) \
    X(KIND, INT8, reduce_row_##K##_i8_scalar, reduce_col_##K##_i8_scalar, ARG, int8_t, int64_t, ld_s, BETTER, isnan_i64, i64) \
    X(KIND, UINT64, reduce_row_##K##_u64_scalar, reduce_col_##K##_u64_scalar, ARG, uint64_t, uint64_t, ld_u, BETTER, isnan_u64, u64) \
    X(KIND, INT64, reduce_row_##K##_i64_scalar, reduce_col_##K##_i64_scalar, ARG, int64_t, int64_t, ld_s, BETTER, isnan_i64, i64)
#define SCALAR_ARG_KERNELS(X)                                                                      \
    SCALAR_ARG_TYPES(X, RK_ARGMAX, argmax, BETTER_MAX_FIRST)                                       \
    SCALAR_ARG_TYPES(X, RK_ARGMAX_LAST, argmax_last, BETTER_MAX_LAST)                              \
    SCALAR_ARG_TYPES(X, RK_ARGMIN, argmin, BETTER_MIN_FIRST)                                       \
    SCALAR_ARG_TYPES(X, RK_ARGMIN_LAST, argmin_last, BETTER_MIN_LAST)

#define DEFINE_KERNELS(KIND, TYPE, ROW, COL, FAMILY, ...) DEF_##FAMILY(ROW, COL, __VA_ARGS__)
SCALAR_REDUCE_KERNELS(DEFINE_KERNELS)
SCALAR_ARG_KERNELS(DEFINE_KERNELS)

/* Copies: one strided loop per element size; memcpy for unit strides. */
#define DEF_COPY(NAME, FILL, T)                                                                    \
    static void NAME(void *dst, ptrdiff_t ds, const void *src, ptrdiff_t ss, size_t n)             \
    {                                                                                              \
        T *d = dst;                                                                                \
        const T *s = src;                                                                          \
        if (ds == 1 && ss == 1) {                                                                  \
            memcpy(d, s, n * sizeof(T));                                                           \
            return;                                                                                \
        }                                                                                          \
        for (size_t i = 0; i < n; i++)                                                             \
            d[(ptrdiff_t)i * ds] = s[(ptrdiff_t)i * ss];                                           \
    }                                                                                              \
    static void FILL(void *dst, ptrdiff_t ds, size_t n)                                            \
    {                                                                                              \
        T *d = dst;                                                                                \
        if (ds == 1) {                                                                             \
            memset(d, 0, n * sizeof(T));                                                           \
            return;                                                                                \
        }                                                                                          \
        for (size_t i = 0; i < n; i++)                                                             \
            d[(ptrdiff_t)i * ds] = 0;                                                              \
    }
DEF_COPY(copy_strided_x8_scalar, fill_zero_x8_scalar, uint8_t)
DEF_COPY(copy_strided_x16_scalar, fill_zero_x16_scalar, uint16_t)
DEF_COPY(copy_strided_x32_scalar, fill_zero_x32_scalar, uint32_t)
DEF_COPY(copy_strided_x64_scalar, fill_zero_x64_scalar, uint64_t)

static void log_f32_scalar(float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = DMLCPU_LOG_F32_SCALAR(v[i]);
}
static void log_f64_scalar(double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = DMLCPU_LOG_F64_SCALAR(v[i]);
}

#define ROW_ENTRY(KIND, TYPE, ROW, COL, ...) [KIND][DMLCPU_DATA_TYPE_##TYPE] = ROW,
#define COL_ENTRY(KIND, TYPE, ROW, COL, ...) [KIND][DMLCPU_DATA_TYPE_##TYPE] = COL,

const kernel_table dmlcpu_kernels_scalar = {
    .isa = DMLCPU_ISA_SCALAR,
    .row = {SCALAR_REDUCE_KERNELS(ROW_ENTRY) SCALAR_ARG_KERNELS(ROW_ENTRY)},
    .col = {SCALAR_REDUCE_KERNELS(COL_ENTRY) SCALAR_ARG_KERNELS(COL_ENTRY)},
    .copy = {copy_strided_x8_scalar, copy_strided_x16_scalar, copy_strided_x32_scalar,
             copy_strided_x64_scalar},
    .fill = {fill_zero_x8_scalar, fill_zero_x16_scalar, fill_zero_x32_scalar, fill_zero_x64_scalar},
    .log_f32 = log_f32_scalar,
    .log_f64 = log_f64_scalar,
};
