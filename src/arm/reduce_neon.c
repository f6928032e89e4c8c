/* NEON kernels of the float sums in the canonical order (SUM, AVERAGE, L1, L2, SUM_SQUARE,
 * MULTIPLY, LOG_SUM) and of LOG_SUM_EXP, for FLOAT32, FLOAT16 (converted exactly to FLOAT32 on
 * load) and FLOAT64. The kernel bodies are in simd/reduce_sum.h; this file gives them the NEON
 * vocabulary.
 *
 * The virtual vector of SPEC 4 is 16 q registers (4 f32 or 2 f64 lanes each), and NEON's
 * pairwise add forms quads in canonical order: for a chunk a, b, c, d of 16 consecutive f32,
 * vpaddq(a, b) = [a0+a1, a2+a3, b0+b1, b2+b3] and vpaddq of two such vectors gives
 * [(a0+a1)+(a2+a3), (b0+b1)+(b2+b3), ...], quads 4c..4c+3 of the block, which belong to
 * accumulator c mod 16 unpermuted (f64: vpaddq(vpaddq(a, b), vpaddq(c, d)) is quads 2c, 2c+1).
 * MULTIPLY has no pairwise multiply: the even and odd elements (uzp1, uzp2) times each other give
 * the same layout. Partial vectors load only their elements (lane inserts, 64-bit loads), never
 * a byte past them. Every row, multi-row and column entry the x86 tiers fill for these kinds is
 * here; none is left to the scalar table (LOG_SUM_EXP has no multi-row kernel on any tier). */
#if !defined(__aarch64__) || !defined(__ARM_NEON)
#error "reduce_neon.c must be compiled for AArch64 with NEON (-march=armv8-a+simd)"
#endif

#include <arm_neon.h>
#include <string.h>

#include "kernels.h"
#include "simd/lse_expf.h"
#include "simd/sleef_math.h"

#define SUM_NACC 16

typedef float32x4_t vacc_f32;
typedef float sacc_f32;
#define EPV_f32 4
typedef float64x2_t vacc_f64;
typedef double sacc_f64;
#define EPV_f64 2

static inline float32x4_t set1_f32(float s) { return vdupq_n_f32(s); }
static inline float64x2_t set1_f64(double s) { return vdupq_n_f64(s); }
#define add_f32 vaddq_f32
#define mul_f32 vmulq_f32
#define sub_f32 vsubq_f32
#define max_f32 vmaxq_f32 /* FMAX: NaN if either is NaN, max(-0, +0) = +0 */
#define add_f64 vaddq_f64
#define mul_f64 vmulq_f64
#define sub_f64 vsubq_f64
#define max_f64 vmaxq_f64
#define hmax_f32 vmaxvq_f32
#define hmax_f64 vmaxvq_f64
#define lda_f32 vld1q_f32
#define sta_f32 vst1q_f32
#define lda_f64 vld1q_f64
#define sta_f64 vst1q_f64
#define exp_f32 lse_expf_neon
#define exp_f64 DMLCPU_EXP_F64_NEON
/* four vectors' exps stored EPV apart: FLOAT32 in lockstep, FLOAT64 SLEEF's call on each */
#define exp4st_f32(e, EPV, ...) LSE_EXPQ4_STORE(vst1q_f32, lse_expf4_neon, e, EPV, __VA_ARGS__)
#define exp4st_f64(e, EPV, ...) LSE_EACH4_STORE(vst1q_f64, DMLCPU_EXP_F64_NEON, e, EPV, __VA_ARGS__)
#define expq_f32(q) lse_expf4_neon(q)
#define expq_f64(q) LSE_EXPQ_EACH(q, DMLCPU_EXP_F64_NEON)
static inline float32x4_t or_f32(float32x4_t a, float32x4_t b)
{
    return vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(a), vreinterpretq_u32_f32(b)));
}
static inline float64x2_t or_f64(float64x2_t a, float64x2_t b)
{
    return vreinterpretq_f64_u64(vorrq_u64(vreinterpretq_u64_f64(a), vreinterpretq_u64_f64(b)));
}
/* simd/lse_col.h's NaN marks: none needed, FMAX already returns NaN when either operand is */
#define unord_f32(a, b) vdupq_n_f32(0)
#define unord_f64(a, b) vdupq_n_f64(0)
/* nonzero when a lane of v is NaN (the only lanes not equal to themselves) */
#define nanmask_f32(v) ((unsigned)vmaxvq_u32(vmvnq_u32(vceqq_f32(v, v))))
#define nanmask_f64(v) ((unsigned)vmaxvq_u32(vmvnq_u32(vreinterpretq_u32_u64(vceqq_f64(v, v)))))

#define map_id_f32(v) (v)
#define map_abs_f32(v) vabsq_f32(v)
#define map_sq_f32(v) vmulq_f32(v, v)
#define map_id_f64(v) (v)
#define map_abs_f64(v) vabsq_f64(v)
#define map_sq_f64(v) vmulq_f64(v, v)

/* ---- loads: EPV elements, or the first n < EPV with fill in the other lanes ---- */

#define ld_f32(p) vld1q_f32(p)
#define ld_f64(p) vld1q_f64(p)
#define ld_f16(p) vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p)))

static inline float32x4_t ldn_f32(const float *p, size_t n, float32x4_t fill)
{
    if (n == 1)
        return vsetq_lane_f32(p[0], fill, 0);
    float32x4_t v = vcombine_f32(vld1_f32(p), vget_high_f32(fill));
    return n == 2 ? v : vsetq_lane_f32(p[2], v, 2);
}
static inline float64x2_t ldn_f64(const double *p, size_t n, float64x2_t fill)
{
    (void)n; /* n == 1 */
    return vsetq_lane_f64(p[0], fill, 0);
}
static inline float32x4_t ldn_f16(const uint16_t *p, size_t n, float32x4_t fill)
{
    uint16_t h[4] = {0, 0, 0, 0};
    memcpy(h, p, n * sizeof h[0]);
    const uint32x4_t lane = {0, 1, 2, 3};
    return vbslq_f32(vcltq_u32(lane, vdupq_n_u32((uint32_t)n)), ld_f16(h), fill);
}

/* ---- quads of a chunk, in canonical order ---- */

static inline float32x4_t quads_add_f32(float32x4_t a, float32x4_t b, float32x4_t c, float32x4_t d)
{
    return vpaddq_f32(vpaddq_f32(a, b), vpaddq_f32(c, d));
}
static inline float32x4_t pairs_mul_f32(float32x4_t a, float32x4_t b)
{
    return vmulq_f32(vuzp1q_f32(a, b), vuzp2q_f32(a, b));
}
static inline float32x4_t quads_mul_f32(float32x4_t a, float32x4_t b, float32x4_t c, float32x4_t d)
{
    return pairs_mul_f32(pairs_mul_f32(a, b), pairs_mul_f32(c, d));
}
static inline float64x2_t quads_add_f64(float64x2_t a, float64x2_t b, float64x2_t c, float64x2_t d)
{
    return vpaddq_f64(vpaddq_f64(a, b), vpaddq_f64(c, d));
}
static inline float64x2_t pairs_mul_f64(float64x2_t a, float64x2_t b)
{
    return vmulq_f64(vuzp1q_f64(a, b), vuzp2q_f64(a, b));
}
static inline float64x2_t quads_mul_f64(float64x2_t a, float64x2_t b, float64x2_t c, float64x2_t d)
{
    return pairs_mul_f64(pairs_mul_f64(a, b), pairs_mul_f64(c, d));
}

/* ---- the halving tree inside one vector: f32 h = 2 (lanes 2, 3 onto 0, 1), then h = 1 ---- */

#define DEF_TREES(OPN, OP)                                                                         \
    static inline float tree_##OPN##_f32(float32x4_t v)                                            \
    {                                                                                              \
        float32x4_t y = OPN##_f32(v, vextq_f32(v, v, 2));                                          \
        return vgetq_lane_f32(y, 0) OP vgetq_lane_f32(y, 1);                                       \
    }                                                                                              \
    static inline double tree_##OPN##_f64(float64x2_t v)                                           \
    {                                                                                              \
        return vgetq_lane_f64(v, 0) OP vgetq_lane_f64(v, 1);                                       \
    }                                                                                              \
    /* four rows: h = 2 for two rows per vector (low halves op high halves), then h = 1 for all   \
     * four (even lanes op odd lanes); row r's value lands in lane r */                          \
    static inline float32x4_t rows_##OPN##_f32(const float32x4_t *v)                               \
    {                                                                                              \
        float32x4_t x = OPN##_f32(vcombine_f32(vget_low_f32(v[0]), vget_low_f32(v[1])),            \
                                  vcombine_f32(vget_high_f32(v[0]), vget_high_f32(v[1])));         \
        float32x4_t y = OPN##_f32(vcombine_f32(vget_low_f32(v[2]), vget_low_f32(v[3])),            \
                                  vcombine_f32(vget_high_f32(v[2]), vget_high_f32(v[3])));         \
        return OPN##_f32(vuzp1q_f32(x, y), vuzp2q_f32(x, y));                                      \
    }                                                                                              \
    static inline float64x2_t rows_##OPN##_f64(const float64x2_t *v)                               \
    {                                                                                              \
        return OPN##_f64(vzip1q_f64(v[0], v[1]), vzip2q_f64(v[0], v[1]));                          \
    }
DEF_TREES(add, +)
DEF_TREES(mul, *)

/* ---- narrow columns: a holds rows 0, 1 and b rows 2, 3 of EPV/2 columns ---- */

#define DEF_NARROW(OPN, OP)                                                                        \
    static inline void narrow_##OPN##_f32(float *lane, float32x4_t a, float32x4_t b)               \
    {                                                                                              \
        float32x2_t q = v##OPN##_f32(v##OPN##_f32(vget_low_f32(a), vget_high_f32(a)),              \
                                     v##OPN##_f32(vget_low_f32(b), vget_high_f32(b)));             \
        vst1_f32(lane, v##OPN##_f32(vld1_f32(lane), q));                                           \
    }                                                                                              \
    static inline void narrow_##OPN##_f64(double *lane, float64x2_t a, float64x2_t b)              \
    {                                                                                              \
        lane[0] = lane[0] OP ((vgetq_lane_f64(a, 0) OP vgetq_lane_f64(a, 1)) OP                    \
                              (vgetq_lane_f64(b, 0) OP vgetq_lane_f64(b, 1)));                     \
    }
DEF_NARROW(add, +)
DEF_NARROW(mul, *)
static inline float32x4_t duplo_f32(float32x4_t v) { return vcombine_f32(vget_low_f32(v), vget_low_f32(v)); }
static inline float64x2_t duplo_f64(float64x2_t v) { return vdupq_laneq_f64(v, 0); }

#include "simd/reduce_sum.h"

DEF_SUMS(reduce_row_sum_f32_neon, reduce_rows_sum_f32_neon, reduce_col_sum_f32_neon, lanes_sum_f32_neon, float, f32, f32, map_id_f32, add, 0.0f, f32)
DEF_SUMS(reduce_row_sum_f16_neon, reduce_rows_sum_f16_neon, reduce_col_sum_f16_neon, lanes_sum_f16_neon, uint16_t, f16, f32, map_id_f32, add, 0.0f, f32)
DEF_SUMS(reduce_row_sum_f64_neon, reduce_rows_sum_f64_neon, reduce_col_sum_f64_neon, lanes_sum_f64_neon, double, f64, f64, map_id_f64, add, 0.0, f64)
DEF_SUMS(reduce_row_asum_f32_neon, reduce_rows_asum_f32_neon, reduce_col_asum_f32_neon, lanes_asum_f32_neon, float, f32, f32, map_abs_f32, add, 0.0f, f32)
DEF_SUMS(reduce_row_asum_f16_neon, reduce_rows_asum_f16_neon, reduce_col_asum_f16_neon, lanes_asum_f16_neon, uint16_t, f16, f32, map_abs_f32, add, 0.0f, f32)
DEF_SUMS(reduce_row_asum_f64_neon, reduce_rows_asum_f64_neon, reduce_col_asum_f64_neon, lanes_asum_f64_neon, double, f64, f64, map_abs_f64, add, 0.0, f64)
DEF_SUMS(reduce_row_sqsum_f32_neon, reduce_rows_sqsum_f32_neon, reduce_col_sqsum_f32_neon, lanes_sqsum_f32_neon, float, f32, f32, map_sq_f32, add, 0.0f, f32)
DEF_SUMS(reduce_row_sqsum_f16_neon, reduce_rows_sqsum_f16_neon, reduce_col_sqsum_f16_neon, lanes_sqsum_f16_neon, uint16_t, f16, f32, map_sq_f32, add, 0.0f, f32)
DEF_SUMS(reduce_row_sqsum_f64_neon, reduce_rows_sqsum_f64_neon, reduce_col_sqsum_f64_neon, lanes_sqsum_f64_neon, double, f64, f64, map_sq_f64, add, 0.0, f64)
DEF_SUMS(reduce_row_prod_f32_neon, reduce_rows_prod_f32_neon, reduce_col_prod_f32_neon, lanes_prod_f32_neon, float, f32, f32, map_id_f32, mul, 1.0f, f32)
DEF_SUMS(reduce_row_prod_f16_neon, reduce_rows_prod_f16_neon, reduce_col_prod_f16_neon, lanes_prod_f16_neon, uint16_t, f16, f32, map_id_f32, mul, 1.0f, f32)
DEF_SUMS(reduce_row_prod_f64_neon, reduce_rows_prod_f64_neon, reduce_col_prod_f64_neon, lanes_prod_f64_neon, double, f64, f64, map_id_f64, mul, 1.0, f64)

DEF_LSE_ROW(reduce_row_lse_f32_neon, lanes_sum_f32_neon, float, f32, f32, f32)
DEF_LSE_ROW(reduce_row_lse_f16_neon, lanes_sum_f32_neon, uint16_t, f16, f32, f32)
DEF_LSE_ROW(reduce_row_lse_f64_neon, lanes_sum_f64_neon, double, f64, f64, f64)
DEF_LSE_COL(reduce_col_lse_f32_neon, float, f32, f32, f32)
DEF_LSE_COL(reduce_col_lse_f16_neon, uint16_t, f16, f32, f32)
DEF_LSE_COL(reduce_col_lse_f64_neon, double, f64, f64, f64)

DMLCPU_DEF_LOG_BATCH(log_f32_neon, float, 4, vld1q_f32, vst1q_f32, DMLCPU_LOG_F32_NEON, DMLCPU_LOG_F32_SCALAR)
DMLCPU_DEF_LOG_BATCH(log_f64_neon, double, 2, vld1q_f64, vst1q_f64, DMLCPU_LOG_F64_NEON, DMLCPU_LOG_F64_SCALAR)

#define ENTRY(K, T, R, RS, C)                                                                      \
    .row[K][DMLCPU_DATA_TYPE_##T] = R, .rows[K][DMLCPU_DATA_TYPE_##T] = RS, .col[K][DMLCPU_DATA_TYPE_##T] = C
const kernel_table dmlcpu_kernels_neon = {
    .isa = DMLCPU_ISA_NEON,
    ENTRY(RK_SUM, FLOAT32, reduce_row_sum_f32_neon, reduce_rows_sum_f32_neon, reduce_col_sum_f32_neon),
    ENTRY(RK_SUM, FLOAT16, reduce_row_sum_f16_neon, reduce_rows_sum_f16_neon, reduce_col_sum_f16_neon),
    ENTRY(RK_SUM, FLOAT64, reduce_row_sum_f64_neon, reduce_rows_sum_f64_neon, reduce_col_sum_f64_neon),
    ENTRY(RK_ASUM, FLOAT32, reduce_row_asum_f32_neon, reduce_rows_asum_f32_neon, reduce_col_asum_f32_neon),
    ENTRY(RK_ASUM, FLOAT16, reduce_row_asum_f16_neon, reduce_rows_asum_f16_neon, reduce_col_asum_f16_neon),
    ENTRY(RK_ASUM, FLOAT64, reduce_row_asum_f64_neon, reduce_rows_asum_f64_neon, reduce_col_asum_f64_neon),
    ENTRY(RK_SQSUM, FLOAT32, reduce_row_sqsum_f32_neon, reduce_rows_sqsum_f32_neon, reduce_col_sqsum_f32_neon),
    ENTRY(RK_SQSUM, FLOAT16, reduce_row_sqsum_f16_neon, reduce_rows_sqsum_f16_neon, reduce_col_sqsum_f16_neon),
    ENTRY(RK_SQSUM, FLOAT64, reduce_row_sqsum_f64_neon, reduce_rows_sqsum_f64_neon, reduce_col_sqsum_f64_neon),
    ENTRY(RK_PROD, FLOAT32, reduce_row_prod_f32_neon, reduce_rows_prod_f32_neon, reduce_col_prod_f32_neon),
    ENTRY(RK_PROD, FLOAT16, reduce_row_prod_f16_neon, reduce_rows_prod_f16_neon, reduce_col_prod_f16_neon),
    ENTRY(RK_PROD, FLOAT64, reduce_row_prod_f64_neon, reduce_rows_prod_f64_neon, reduce_col_prod_f64_neon),
    ENTRY(RK_LSE, FLOAT32, reduce_row_lse_f32_neon, NULL, reduce_col_lse_f32_neon),
    ENTRY(RK_LSE, FLOAT16, reduce_row_lse_f16_neon, NULL, reduce_col_lse_f16_neon),
    ENTRY(RK_LSE, FLOAT64, reduce_row_lse_f64_neon, NULL, reduce_col_lse_f64_neon),
    .log_f32 = log_f32_neon,
    .log_f64 = log_f64_neon,
};
