/*
 * Giant and hostile shapes (SPEC 2 and 5): byte sizes that overflow 64 bits, element counts at
 * and beyond 2^32-1, addressed sizes near 2^64, windows whose ends wrap 32 bits, and operators
 * over 2^32-1 elements executed for real: broadcast inputs (one stored element read 2^32-1
 * times) and a packed 4 GiB input whose pages are mapped but never written (so they cost no
 * memory). Registered once, not per ISA level: the executions read 4 G elements each, which the
 * reduced set (tu_reduced: under an emulator or a sanitizer) leaves out.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <dmlcpu.h>

#include "testutil.h"

#define BIG UINT32_MAX /* 2^32-1 = 65535 * 65537 */

static const dmlcpu_data_type F32 = DMLCPU_DATA_TYPE_FLOAT32, F64 = DMLCPU_DATA_TYPE_FLOAT64,
                              I32 = DMLCPU_DATA_TYPE_INT32, U32 = DMLCPU_DATA_TYPE_UINT32,
                              U8 = DMLCPU_DATA_TYPE_UINT8, I8 = DMLCPU_DATA_TYPE_INT8;
static uint32_t s_big2[2] = {65535, 65537}, s_one2[2] = {1, 1}, s_zero2[2] = {0, 0};
static uint32_t ax01[2] = {0, 1}, ax0[1] = {0};

/* Creates desc expecting status; on failure also no operator and a message holding needle. */
static void expect_create(const dmlcpu_operator_desc *desc, dmlcpu_status status, const char *needle,
                          const char *what)
{
    dmlcpu_operator *op = (dmlcpu_operator *)&op;
    dmlcpu_status st = dmlcpu_create_operator(desc, NULL, &op);
    cr_assert_eq(st, status, "%s: create returned %s (%s), expected %s", what,
                 dmlcpu_status_string(st), dmlcpu_last_error_message(), dmlcpu_status_string(status));
    if (st != DMLCPU_STATUS_OK) {
        cr_assert_null(op, "%s: a refused create returned an operator", what);
        cr_assert(strstr(dmlcpu_last_error_message(), needle), "%s: message \"%s\" lacks \"%s\"",
                  what, dmlcpu_last_error_message(), needle);
    }
    dmlcpu_destroy_operator(op);
}

Test(hostile, byte_size_overflows_64_bits)
{
    /* (2^32-2) * (2^32-1) + 1 elements' worth of offsets: below 2^64, but not times 8 bytes */
    uint32_t sizes[1] = {BIG}, strides[1] = {BIG}, one[1] = {1};
    dmlcpu_tensor_desc in = {F64, 1, sizes, strides, 0}, out = {F64, 1, one, NULL, 0};
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(F64, 1, sizes, strides), 0);
    dmlcpu_reduce_operator_desc r = {DMLCPU_REDUCE_FUNCTION_MAX, &in, &out, 1, ax0};
    dmlcpu_operator_desc d = {DMLCPU_OPERATOR_REDUCE, &r};
    expect_create(&d, DMLCPU_STATUS_INVALID_ARGUMENT, "InputTensor.Strides {4294967295} make the addressed size overflow 64 bits", "REDUCE input");
    /* the same layout as an output, and as a slice's input */
    dmlcpu_tensor_desc packed = {F64, 1, sizes, NULL, 0};
    dmlcpu_identity_operator_desc id = {&packed, &in};
    d = (dmlcpu_operator_desc){DMLCPU_OPERATOR_IDENTITY, &id};
    expect_create(&d, DMLCPU_STATUS_INVALID_ARGUMENT, "OutputTensor.Strides", "IDENTITY output");
    uint32_t off[1] = {0}, win[1] = {1};
    int32_t step[1] = {1};
    dmlcpu_slice_operator_desc s = {&in, &out, 1, off, win, step};
    d = (dmlcpu_operator_desc){DMLCPU_OPERATOR_SLICE, &s};
    expect_create(&d, DMLCPU_STATUS_INVALID_ARGUMENT, "overflow 64 bits", "SLICE input");
}

Test(hostile, more_than_2_32_minus_1_elements)
{
    uint32_t s2[2] = {65536, 65536}, s8[8], one8[8];
    for (int i = 0; i < 8; i++)
        s8[i] = BIG, one8[i] = 1;
    uint32_t ax[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    dmlcpu_tensor_desc in2 = {U8, 2, s2, NULL, 0}, out2 = {U8, 2, s_one2, NULL, 0};
    dmlcpu_reduce_operator_desc r = {DMLCPU_REDUCE_FUNCTION_MAX, &in2, &out2, 2, ax01};
    dmlcpu_operator_desc d = {DMLCPU_OPERATOR_REDUCE, &r};
    expect_create(&d, DMLCPU_STATUS_INVALID_ARGUMENT, "InputTensor.Sizes {65536,65536} hold more than 2^32-1 elements", "2^32 elements");
    dmlcpu_tensor_desc in8 = {U8, 8, s8, NULL, 0}, out8 = {U8, 8, one8, NULL, 0};
    r = (dmlcpu_reduce_operator_desc){DMLCPU_REDUCE_FUNCTION_MAX, &in8, &out8, 8, ax};
    expect_create(&d, DMLCPU_STATUS_INVALID_ARGUMENT, "more than 2^32-1 elements", "rank 8 of 2^32-1");
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(U8, 8, s8, NULL), 0);
    /* zero sizes are no tensor at all */
    dmlcpu_tensor_desc z = {U8, 2, s_zero2, NULL, 0};
    r = (dmlcpu_reduce_operator_desc){DMLCPU_REDUCE_FUNCTION_MAX, &z, &out2, 2, ax01};
    expect_create(&d, DMLCPU_STATUS_INVALID_ARGUMENT, "InputTensor.Sizes[0] is 0", "size 0");
}

/* An INT8 tensor addressing (2^32-2) * (2^32-1) + 1 bytes, just below 2^64: legal, created, and
 * every binding that cannot hold it is refused without a write. */
Test(hostile, addressed_size_just_below_2_64)
{
    uint32_t sizes[1] = {BIG}, strides[1] = {BIG}, one[1] = {1};
    const uint64_t need = (uint64_t)(BIG - 1) * BIG + 1;
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(I8, 1, sizes, strides), (need + 3) & ~(uint64_t)3);
    dmlcpu_tensor_desc in = {I8, 1, sizes, strides, 0}, out = {I8, 1, one, NULL, 0};
    dmlcpu_reduce_operator_desc r = {DMLCPU_REDUCE_FUNCTION_MAX, &in, &out, 1, ax0};
    dmlcpu_operator_desc d = {DMLCPU_OPERATOR_REDUCE, &r};
    dmlcpu_operator *op = NULL;
    cr_assert_eq(dmlcpu_create_operator(&d, NULL, &op), DMLCPU_STATUS_OK, "%s", dmlcpu_last_error_message());
    int8_t x[64] = {5}, y[1] = {-7};
    dmlcpu_buffer_binding ib = {x, sizeof x}, ob = {y, 1};
    dmlcpu_bindings b = {1, &ib, 1, &ob, {NULL, 0}};
    cr_assert_eq(dmlcpu_execute(op, &b), DMLCPU_STATUS_INVALID_ARGUMENT);
    cr_assert(strstr(dmlcpu_last_error_message(), "Inputs[0].SizeInBytes is 64, less than"),
              "%s", dmlcpu_last_error_message());
    /* a size that claims the whole tensor but runs past the end of the address space */
    ib.size_in_bytes = UINT64_MAX;
    cr_assert_eq(dmlcpu_execute(op, &b), DMLCPU_STATUS_INVALID_ARGUMENT);
    cr_assert(strstr(dmlcpu_last_error_message(), "wraps around the address space"), "%s",
              dmlcpu_last_error_message());
    cr_assert_eq(y[0], -7, "a refused execute wrote the output");
    dmlcpu_destroy_operator(op);
    /* a declared size of 2^64-1 is legal, and no real buffer holds it */
    dmlcpu_tensor_desc small = {I8, 1, one, NULL, UINT64_MAX};
    r.input_tensor = &small;
    cr_assert_eq(dmlcpu_create_operator(&d, NULL, &op), DMLCPU_STATUS_OK, "%s", dmlcpu_last_error_message());
    ib.size_in_bytes = sizeof x;
    cr_assert_eq(dmlcpu_execute(op, &b), DMLCPU_STATUS_INVALID_ARGUMENT);
    cr_assert_eq(y[0], -7, "a refused execute wrote the output");
    dmlcpu_destroy_operator(op);
}

/* Window ends and strides at the limits of their 32-bit fields. */
Test(hostile, windows_at_32_bit_limits)
{
    uint32_t s10[1] = {10}, one[1] = {1}, off[1] = {BIG}, win[1] = {2};
    int32_t step[1] = {1};
    dmlcpu_tensor_desc in = {I32, 1, s10, NULL, 0}, out = {I32, 1, one, NULL, 0};
    dmlcpu_slice_operator_desc s = {&in, &out, 1, off, win, step};
    dmlcpu_operator_desc d = {DMLCPU_OPERATOR_SLICE, &s};
    /* 2^32-1 + 2 wraps to 1 in 32 bits: must still be out of range */
    expect_create(&d, DMLCPU_STATUS_INVALID_ARGUMENT, "InputWindowOffsets[0]", "offset + size wrapping 32 bits");
    dmlcpu_slice_grad_operator_desc g = {&out, &in, 1, off, win, step};
    d = (dmlcpu_operator_desc){DMLCPU_OPERATOR_SLICE_GRAD, &g};
    expect_create(&d, DMLCPU_STATUS_INVALID_ARGUMENT, "InputWindowOffsets[0]", "SLICE_GRAD offset + size wrapping 32 bits");
    /* stride INT32_MIN: |stride| does not fit int32; one element, from the window's end */
    off[0] = 0;
    win[0] = 10;
    step[0] = INT32_MIN;
    d = (dmlcpu_operator_desc){DMLCPU_OPERATOR_SLICE, &s};
    int32_t x[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, y[1] = {-1};
    dmlcpu_buffer_binding ib = {x, sizeof x}, ob = {y, sizeof y};
    tu_run(&d, 1, &ib, 1, &ob, 1, "SLICE with stride INT32_MIN");
    cr_assert_eq(y[0], 9);
    /* split and join on an axis beyond the rank, and with no parts */
    dmlcpu_split_operator_desc sp = {&in, 1, &in, BIG};
    d = (dmlcpu_operator_desc){DMLCPU_OPERATOR_SPLIT, &sp};
    expect_create(&d, DMLCPU_STATUS_INVALID_ARGUMENT, "Axis", "SPLIT axis 2^32-1");
    dmlcpu_join_operator_desc jn = {0, NULL, &in, 0};
    d = (dmlcpu_operator_desc){DMLCPU_OPERATOR_JOIN, &jn};
    expect_create(&d, DMLCPU_STATUS_INVALID_ARGUMENT, "InputCount", "JOIN of no inputs");
}

/* ---- 2^32-1 elements, executed ----------------------------------------------------------- */

/* SPEC 4 for a group of n ones in FLOAT32: full blocks of 4096 sum to 4096 exactly, the short
 * last block to its length; the block values combine pairwise (step 5) in float. */
static float canonical_sum_of_ones(uint64_t n)
{
    static float v[(1u << 20) + 1];
    uint64_t m = 0;
    for (uint64_t done = 0; done < n; done += 4096)
        v[m++] = (float)(n - done < 4096 ? n - done : 4096);
    while (m > 1) {
        uint64_t k = 0;
        for (uint64_t i = 0; i + 1 < m; i += 2)
            v[k++] = v[i] + v[i + 1];
        if (m % 2)
            v[k++] = v[m - 1];
        m = k;
    }
    return v[0];
}

/* The executions over 2^32-1 elements are left out of the reduced set; the broadcast ones (about
 * 30 s each) run only when DMLCPU_TEST_GIANT is set (ctest's test_hostile.giant, registered with
 * -DDMLCPU_TEST_GIANT=ON). */
static void skip_when_reduced(void)
{
    if (tu_reduced())
        cr_skip_test("2^32-1 elements are left out of the reduced set");
}

static void skip_unless_giant(void)
{
    skip_when_reduced();
    const char *giant = getenv("DMLCPU_TEST_GIANT");
    if (!giant || !*giant || strcmp(giant, "0") == 0)
        cr_skip_test("broadcasts of 2^32-1 elements run with DMLCPU_TEST_GIANT=1");
}

/* One stored element read as a [65535, 65537] tensor (strides 0), reduced over both axes. */
static void broadcast_reduce(dmlcpu_operator_type type, dmlcpu_reduce_function fn,
                             dmlcpu_axis_direction dir, dmlcpu_data_type in_type,
                             dmlcpu_data_type out_type, const void *value, void *result,
                             uint32_t threads, const char *what)
{
    dmlcpu_tensor_desc in = {in_type, 2, s_big2, s_zero2, 0}, out = {out_type, 2, s_one2, NULL, 0};
    dmlcpu_reduce_operator_desc r = {fn, &in, &out, 2, ax01};
    dmlcpu_argmin_operator_desc a = {&in, &out, 2, ax01, dir};
    dmlcpu_operator_desc d = {type, type == DMLCPU_OPERATOR_REDUCE ? (const void *)&r : (const void *)&a};
    uint64_t in_bytes = 8, out_bytes = 8;
    dmlcpu_buffer_binding ib = {(void *)value, in_bytes}, ob = {result, out_bytes};
    tu_run(&d, threads, &ib, 1, &ob, 1, what);
}

Test(hostile, broadcast_2_32_minus_1_elements_int32_sum, .timeout = 120)
{
    skip_unless_giant();
    int32_t one[2] = {1, 0}, got[2] = {0, 0};
    broadcast_reduce(DMLCPU_OPERATOR_REDUCE, DMLCPU_REDUCE_FUNCTION_SUM, 0, I32, I32, one, got, 0,
                     "INT32 SUM of 2^32-1 ones");
    cr_assert_eq(got[0], -1, "2^32-1 ones wrap to -1, got %d", got[0]);
}

Test(hostile, broadcast_2_32_minus_1_elements_float_sum, .timeout = 120)
{
    skip_unless_giant();
    float one[2] = {1.0f, 0.0f}, got[2] = {0, 0};
    broadcast_reduce(DMLCPU_OPERATOR_REDUCE, DMLCPU_REDUCE_FUNCTION_SUM, 0, F32, F32, one, got,
                     TU_HOST_POOL, "FLOAT32 SUM of 2^32-1 ones");
    float want = canonical_sum_of_ones(BIG);
    cr_assert(memcmp(&got[0], &want, 4) == 0, "got %.9g, the canonical order gives %.9g", got[0], want);
}

Test(hostile, broadcast_2_32_minus_1_elements_argmin, .timeout = 120)
{
    skip_unless_giant();
    uint8_t seven[8] = {7};
    uint32_t got[2] = {0, 0};
    /* every element ties: DECREASING returns the largest index, 2^32-2 (fits UINT32) */
    broadcast_reduce(DMLCPU_OPERATOR_ARGMIN, 0, DMLCPU_AXIS_DIRECTION_DECREASING, U8, U32, seven,
                     got, 0, "ARGMIN DECREASING of 2^32-1 ties");
    cr_assert_eq(got[0], BIG - 1);
    /* the largest index does not fit INT32 */
    dmlcpu_tensor_desc in = {U8, 2, s_big2, s_zero2, 0}, out = {I32, 2, s_one2, NULL, 0};
    dmlcpu_argmin_operator_desc a = {&in, &out, 2, ax01, DMLCPU_AXIS_DIRECTION_INCREASING};
    dmlcpu_operator_desc d = {DMLCPU_OPERATOR_ARGMAX, &a};
    expect_create(&d, DMLCPU_STATUS_INVALID_ARGUMENT, "too narrow for the largest index 4294967294", "ARGMAX into INT32");
}

/* A packed UINT8 tensor of 2^32-1 bytes: mapped, never written except one page, read whole. */
Test(hostile, packed_2_32_minus_1_elements, .timeout = 120)
{
    skip_when_reduced();
    tu_buffer buf;
    uint8_t *x = tu_buffer_alloc(&buf, BIG, 1, 0);
    x[BIG - 2] = 200;
    dmlcpu_tensor_desc in = {U8, 2, s_big2, NULL, 0}, out = {U8, 2, s_one2, NULL, 0},
                       idx = {U32, 2, s_one2, NULL, 0};
    dmlcpu_reduce_operator_desc r = {DMLCPU_REDUCE_FUNCTION_MAX, &in, &out, 2, ax01};
    dmlcpu_operator_desc d = {DMLCPU_OPERATOR_REDUCE, &r};
    uint8_t max = 0;
    dmlcpu_buffer_binding ib = {x, BIG}, ob = {&max, 1};
    tu_run(&d, 0, &ib, 1, &ob, 1, "MAX of 2^32-1 bytes");
    cr_assert_eq(max, 200);
    dmlcpu_argmin_operator_desc a = {&in, &idx, 2, ax01, DMLCPU_AXIS_DIRECTION_INCREASING};
    d = (dmlcpu_operator_desc){DMLCPU_OPERATOR_ARGMAX, &a};
    uint32_t at = 0;
    ob = (dmlcpu_buffer_binding){&at, 4};
    tu_run(&d, 0, &ib, 1, &ob, 1, "ARGMAX of 2^32-1 bytes");
    cr_assert_eq(at, BIG - 2);
    tu_buffer_free(&buf);
}
