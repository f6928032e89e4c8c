/*
 * Accuracy of the canonical order (SPEC 4) on long sums:
 *   FLOAT32 SUM of 16M uniform [0, 1) values: relative error against the exact sum below 1e-7;
 *   FLOAT16 SUM of 1M small values: the exact sum rounded once to FLOAT16, or one FLOAT16 ulp
 *   away from it when the FLOAT32 accumulation itself rounds to the other side.
 * Both results must also equal the oracle's bits and be the same for every thread count.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "testutil.h"

/* SUM over the single axis of a rank-1 tensor of n elements with the given thread cap. */
static void sum_1d(dmlcpu_data_type type, const void *data, uint32_t n, void *result,
                   uint32_t threads)
{
    const size_t es = ref_type_size(type);
    const uint32_t one = 1, axis = 0;
    dmlcpu_tensor_desc in = {type, 1, &n, NULL, 0}, out = {type, 1, &one, NULL, 0};
    dmlcpu_reduce_operator_desc rd = {DMLCPU_REDUCE_FUNCTION_SUM, &in, &out, 1, &axis};
    dmlcpu_operator_desc desc = {DMLCPU_OPERATOR_REDUCE, &rd};
    tu_buffer ob;
    void *out_data = tu_buffer_alloc(&ob, 8, es, 0); /* 4 bytes minimum buffer, 8 is enough */
    dmlcpu_buffer_binding bi = {(void *)data, (uint64_t)n * es}, bo = {out_data, 8};
    bi.size_in_bytes = (bi.size_in_bytes + 3) / 4 * 4;
    char what[96];
    snprintf(what, sizeof what, "SUM %s[%" PRIu32 "] threads %" PRIu32, tu_type_name(type), n,
             threads);
    tu_run(&desc, threads, &bi, 1, &bo, 1, what);
    memcpy(result, out_data, es);
    tu_buffer_free(&ob);
}

/* The oracle's result for the same sum. */
static void oracle_sum_1d(dmlcpu_data_type type, const void *data, uint32_t n, void *result)
{
    const uint32_t one = 1, axis = 0;
    dmlcpu_tensor_desc in = {type, 1, &n, NULL, 0}, out = {type, 1, &one, NULL, 0};
    dmlcpu_reduce_operator_desc rd = {DMLCPU_REDUCE_FUNCTION_SUM, &in, &out, 1, &axis};
    cr_assert_eq(ref_reduce(&rd, data, result, NULL), DMLCPU_STATUS_OK);
}

Test(accuracy, float32_sum_16m)
{
    const uint32_t n = 16u * 1024 * 1024;
    tu_rng r;
    tu_rng_init(&r, "accuracy.float32", 0, 0);
    tu_buffer ib;
    float *x = tu_buffer_alloc(&ib, (size_t)n * sizeof(float), sizeof(float), 0);
    /* Uniform [0, 1) in steps of 2^-24: every value and every partial sum of up to 2^24 of them
     * is a multiple of 2^-24 below 2^24, so the double sum below is exact. */
    double exact = 0;
    for (uint32_t i = 0; i < n; i++) {
        x[i] = (float)(tu_next(&r) >> 40) * 0x1p-24f;
        exact += x[i];
    }

    float got, oracle;
    sum_1d(DMLCPU_DATA_TYPE_FLOAT32, x, n, &got, 0);
    const double rel = fabs((double)got - exact) / exact;
    cr_log_info("FLOAT32 SUM of %" PRIu32 " uniform [0,1) values: %.9g, exact %.9g, relative "
                "error %.3g (limit 1e-7)",
                n, (double)got, exact, rel);
    printf("FLOAT32 SUM of %" PRIu32 " uniform [0,1) values: %.9g, exact %.9g, relative error "
           "%.3g (limit 1e-7)\n",
           n, (double)got, exact, rel);
    fflush(stdout);
    cr_expect_lt(rel, 1e-7, "relative error %.3g", rel);

    oracle_sum_1d(DMLCPU_DATA_TYPE_FLOAT32, x, n, &oracle);
    cr_expect_eq(memcmp(&got, &oracle, sizeof got), 0,
                 "library %a differs from the canonical order's %a", (double)got, (double)oracle);

    static const uint32_t thread_counts[] = {1, 2, 3, 7};
    for (size_t k = 0; k < 4; k++) {
        float again;
        sum_1d(DMLCPU_DATA_TYPE_FLOAT32, x, n, &again, thread_counts[k]);
        cr_expect_eq(memcmp(&got, &again, sizeof got), 0,
                     "max_threads %" PRIu32 " gives %.9g instead of %.9g", thread_counts[k],
                     (double)again, (double)got);
    }
    tu_buffer_free(&ib);
}

Test(accuracy, float16_sum_1m)
{
    const uint32_t n = 1024 * 1024;
    tu_rng r;
    tu_rng_init(&r, "accuracy.float16", 0, 0);
    tu_buffer ib;
    uint16_t *x = tu_buffer_alloc(&ib, (size_t)n * 2, 2, 0);
    float *as_float = malloc((size_t)n * sizeof(float));
    cr_assert_not_null(as_float);
    /* Values in [0, 1/32): the sum (~16384) stays far below 65504. Every FLOAT16 value below
     * 2^-5 is a multiple of 2^-24 and the sum is below 2^15, so the double sum is exact. */
    double exact = 0;
    for (uint32_t i = 0; i < n; i++) {
        x[i] = ref_f64_to_f16(tu_uniform(&r) / 32.0);
        as_float[i] = ref_f16_to_f32(x[i]);
        exact += as_float[i];
    }
    const uint16_t exact16 = ref_f64_to_f16(exact);

    uint16_t got, oracle;
    float acc32;
    sum_1d(DMLCPU_DATA_TYPE_FLOAT16, x, n, &got, 0);
    /* the FLOAT32 accumulation of the same values (same canonical order) */
    sum_1d(DMLCPU_DATA_TYPE_FLOAT32, as_float, n, &acc32, 0);
    const double g = ref_f16_to_f32(got), e16 = ref_f16_to_f32(exact16);
    const double ulp = ref_f16_to_f32((uint16_t)(exact16 + 1)) - e16;
    const char *verdict = got == exact16 ? "equals the exact sum rounded once"
                          : fabs(g - e16) <= ulp ? "one FLOAT16 ulp from the exact sum rounded once"
                                                 : "too far from the exact sum";
    cr_log_info("FLOAT16 SUM of %" PRIu32 " values: %.9g, exact %.9g (FLOAT16 %.9g), FLOAT32 "
                "accumulation %.9g (relative error %.3g): %s",
                n, g, exact, e16, (double)acc32, fabs((double)acc32 - exact) / exact, verdict);
    printf("FLOAT16 SUM of %" PRIu32 " values: %.9g, exact %.9g (FLOAT16 %.9g), FLOAT32 "
           "accumulation %.9g (relative error %.3g): %s\n",
           n, g, exact, e16, (double)acc32, fabs((double)acc32 - exact) / exact, verdict);
    fflush(stdout);

    /* a FLOAT16 result is the FLOAT32 accumulation rounded once */
    cr_expect_eq(got, ref_f32_to_f16(acc32),
                 "FLOAT16 result 0x%04x is not the FLOAT32 accumulation %.9g rounded once (0x%04x)",
                 got, (double)acc32, ref_f32_to_f16(acc32));
    if (got != exact16) {
        cr_expect((double)acc32 != exact, "the FLOAT32 accumulation is exact, yet the result "
                                          "0x%04x is not the exact sum rounded (0x%04x)",
                  got, exact16);
        cr_expect_leq(fabs(g - e16), ulp, "result %.9g is more than one FLOAT16 ulp from %.9g", g,
                      e16);
    }

    oracle_sum_1d(DMLCPU_DATA_TYPE_FLOAT16, x, n, &oracle);
    cr_expect_eq(got, oracle, "library 0x%04x differs from the canonical order's 0x%04x", got,
                 oracle);
    static const uint32_t thread_counts[] = {1, 2, 3, 7};
    for (size_t k = 0; k < 4; k++) {
        uint16_t again;
        sum_1d(DMLCPU_DATA_TYPE_FLOAT16, x, n, &again, thread_counts[k]);
        cr_expect_eq(again, got, "max_threads %" PRIu32 " gives 0x%04x instead of 0x%04x",
                     thread_counts[k], again, got);
    }
    free(as_float);
    tu_buffer_free(&ib);
}
