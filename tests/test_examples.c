/*
 * The examples of SPEC section 3, verbatim, through the public API, plus the small public
 * utilities: status strings, dmlcpu_calc_buffer_tensor_size, ISA names and levels, binding
 * properties, repeated execution and destroying NULL.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dmlcpu.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const float k_reduce_input[9] = {1, 2, 3, 3, 0, 4, 2, 4, 2};
static const float k_arg_input[9] = {1, 2, 3, 3, 0, 4, 2, 5, 2};
static const uint32_t k_3x3[2] = {3, 3};

static dmlcpu_tensor_desc tensor(dmlcpu_data_type type, uint32_t rank, const uint32_t *sizes,
                                 const uint32_t *strides)
{
    dmlcpu_tensor_desc t = {type, rank, sizes, strides, 0};
    return t;
}

static dmlcpu_buffer_binding binding(void *data, uint64_t size_in_bytes)
{
    dmlcpu_buffer_binding b = {data, size_in_bytes};
    return b;
}

static dmlcpu_operator *create_ok(dmlcpu_operator_type type, const void *desc)
{
    dmlcpu_operator_desc d = {type, desc};
    dmlcpu_operator *op = NULL;
    dmlcpu_status st = dmlcpu_create_operator(&d, NULL, &op);
    cr_assert_eq(st, DMLCPU_STATUS_OK, "create of operator type %d failed: %s: %s", (int)type,
                 dmlcpu_status_string(st), dmlcpu_last_error_message());
    cr_assert_not_null(op, "create returned OK but no operator");
    return op;
}

/* Executes op with the given buffers and a temporary buffer of the size op reports. */
static void run_ok(const dmlcpu_operator *op, uint32_t input_count,
                   const dmlcpu_buffer_binding *inputs, uint32_t output_count,
                   const dmlcpu_buffer_binding *outputs)
{
    dmlcpu_binding_properties props;
    memset(&props, 0, sizeof props);
    dmlcpu_get_binding_properties(op, &props);
    cr_assert_eq(props.input_count, input_count, "input_count is %u, expected %u",
                 props.input_count, input_count);
    cr_assert_eq(props.output_count, output_count, "output_count is %u, expected %u",
                 props.output_count, output_count);
    void *temp = NULL;
    if (props.temporary_size_in_bytes > 0) {
        size_t bytes = (size_t)((props.temporary_size_in_bytes + 63) / 64 * 64);
        temp = aligned_alloc(64, bytes);
        cr_assert_not_null(temp);
    }
    dmlcpu_bindings b = {input_count, inputs, output_count, outputs,
                         {temp, props.temporary_size_in_bytes}};
    dmlcpu_status st = dmlcpu_execute(op, &b);
    free(temp);
    cr_assert_eq(st, DMLCPU_STATUS_OK, "execute failed: %s: %s", dmlcpu_status_string(st),
                 dmlcpu_last_error_message());
}

static void run_1_1(const dmlcpu_operator *op, const void *in, uint64_t in_bytes, void *out,
                    uint64_t out_bytes)
{
    dmlcpu_buffer_binding i = binding((void *)in, in_bytes);
    dmlcpu_buffer_binding o = binding(out, out_bytes);
    run_ok(op, 1, &i, 1, &o);
}

static void fill_sentinel(void *p, size_t bytes)
{
    unsigned char *b = p;
    for (size_t i = 0; i < bytes; i++)
        b[i] = (unsigned char)(0xA5 ^ (i * 29));
}

static void expect_f32(const float *got, const float *want, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        cr_assert(memcmp(&got[i], &want[i], sizeof(float)) == 0,
                  "%s: element %zu is %g, expected %g", what, i, (double)got[i], (double)want[i]);
}

static uint64_t read_index(const void *p, dmlcpu_data_type type, size_t i)
{
    switch (type) {
    case DMLCPU_DATA_TYPE_INT32: {
        int32_t v;
        memcpy(&v, (const char *)p + 4 * i, 4);
        cr_assert_geq(v, 0, "negative index %d at %zu", (int)v, i);
        return (uint64_t)v;
    }
    case DMLCPU_DATA_TYPE_UINT32: {
        uint32_t v;
        memcpy(&v, (const char *)p + 4 * i, 4);
        return v;
    }
    case DMLCPU_DATA_TYPE_INT64: {
        int64_t v;
        memcpy(&v, (const char *)p + 8 * i, 8);
        cr_assert_geq(v, 0, "negative index %lld at %zu", (long long)v, i);
        return (uint64_t)v;
    }
    case DMLCPU_DATA_TYPE_UINT64: {
        uint64_t v;
        memcpy(&v, (const char *)p + 8 * i, 8);
        return v;
    }
    default:
        cr_assert_fail("not an index type: %d", (int)type);
    }
    return 0;
}

static size_t index_bytes(dmlcpu_data_type type)
{
    return (type == DMLCPU_DATA_TYPE_INT64 || type == DMLCPU_DATA_TYPE_UINT64) ? 8 : 4;
}

/* ----------------------------------------------------------------------------------------- */
/* 3.1 REDUCE                                                                                 */

static void reduce_3x3(dmlcpu_reduce_function function, uint32_t axis_count, const uint32_t *axes,
                       const float *want, size_t want_count)
{
    uint32_t out_sizes[2] = {3, 3};
    for (uint32_t k = 0; k < axis_count; k++)
        out_sizes[axes[k]] = 1;
    dmlcpu_tensor_desc in = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, k_3x3, NULL);
    dmlcpu_tensor_desc out = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, out_sizes, NULL);
    dmlcpu_reduce_operator_desc d = {function, &in, &out, axis_count, axes};
    dmlcpu_operator *op = create_ok(DMLCPU_OPERATOR_REDUCE, &d);
    _Alignas(64) float result[9];
    fill_sentinel(result, sizeof result);
    run_1_1(op, k_reduce_input, sizeof k_reduce_input, result, want_count * sizeof(float));
    expect_f32(result, want, want_count, "REDUCE result");
    dmlcpu_destroy_operator(op);
}

Test(examples, reduce_sum_axis0)
{
    const uint32_t axes[1] = {0};
    const float want[3] = {6, 6, 9};
    reduce_3x3(DMLCPU_REDUCE_FUNCTION_SUM, 1, axes, want, 3);
}

Test(examples, reduce_sum_axis1)
{
    const uint32_t axes[1] = {1};
    const float want[3] = {6, 7, 8};
    reduce_3x3(DMLCPU_REDUCE_FUNCTION_SUM, 1, axes, want, 3);
}

Test(examples, reduce_sum_axes01)
{
    const uint32_t axes[2] = {0, 1};
    const float want[1] = {21};
    reduce_3x3(DMLCPU_REDUCE_FUNCTION_SUM, 2, axes, want, 1);
}

Test(examples, reduce_sum_axes10_any_order)
{
    const uint32_t axes[2] = {1, 0};
    const float want[1] = {21};
    reduce_3x3(DMLCPU_REDUCE_FUNCTION_SUM, 2, axes, want, 1);
}

Test(examples, reduce_other_exact_functions)
{
    const uint32_t axis0[1] = {0};
    const uint32_t axis1[1] = {1};
    const float max1[3] = {3, 4, 4};
    const float min0[3] = {1, 0, 2};
    const float mul1[3] = {6, 0, 16};
    const float sq0[3] = {14, 20, 29};
    const float l1_1[3] = {6, 7, 8};
    reduce_3x3(DMLCPU_REDUCE_FUNCTION_MAX, 1, axis1, max1, 3);
    reduce_3x3(DMLCPU_REDUCE_FUNCTION_MIN, 1, axis0, min0, 3);
    reduce_3x3(DMLCPU_REDUCE_FUNCTION_MULTIPLY, 1, axis1, mul1, 3);
    reduce_3x3(DMLCPU_REDUCE_FUNCTION_SUM_SQUARE, 1, axis0, sq0, 3);
    reduce_3x3(DMLCPU_REDUCE_FUNCTION_L1, 1, axis1, l1_1, 3);
}

/* ----------------------------------------------------------------------------------------- */
/* 3.2 ARGMIN and ARGMAX                                                                      */

enum arg_route { ARG_STANDALONE, ARG_VIA_REDUCE };

/* Runs ARGMIN (is_max 0) or ARGMAX (is_max 1) on `input` (rank 1 or 2) and checks the indices. */
static void arg_case(int is_max, enum arg_route route, dmlcpu_axis_direction direction,
                     dmlcpu_data_type out_type, const float *input, uint32_t rank,
                     const uint32_t *sizes, uint32_t axis_count, const uint32_t *axes,
                     const uint64_t *want, size_t want_count)
{
    uint32_t out_sizes[8];
    size_t in_count = 1;
    for (uint32_t i = 0; i < rank; i++) {
        out_sizes[i] = sizes[i];
        in_count *= sizes[i];
    }
    for (uint32_t k = 0; k < axis_count; k++)
        out_sizes[axes[k]] = 1;
    dmlcpu_tensor_desc in = tensor(DMLCPU_DATA_TYPE_FLOAT32, rank, sizes, NULL);
    dmlcpu_tensor_desc out = tensor(out_type, rank, out_sizes, NULL);
    dmlcpu_operator *op;
    if (route == ARG_STANDALONE) {
        dmlcpu_argmin_operator_desc d = {&in, &out, axis_count, axes, direction};
        op = create_ok(is_max ? DMLCPU_OPERATOR_ARGMAX : DMLCPU_OPERATOR_ARGMIN, &d);
    } else {
        cr_assert_eq(direction, DMLCPU_AXIS_DIRECTION_INCREASING);
        dmlcpu_reduce_operator_desc d = {
            is_max ? DMLCPU_REDUCE_FUNCTION_ARGMAX : DMLCPU_REDUCE_FUNCTION_ARGMIN, &in, &out,
            axis_count, axes};
        op = create_ok(DMLCPU_OPERATOR_REDUCE, &d);
    }
    _Alignas(64) unsigned char result[64];
    fill_sentinel(result, sizeof result);
    run_1_1(op, input, in_count * sizeof(float), result, want_count * index_bytes(out_type));
    for (size_t i = 0; i < want_count; i++) {
        uint64_t got = read_index(result, out_type, i);
        cr_assert_eq(got, want[i], "%s %s dir %d type %d: index %zu is %llu, expected %llu",
                     is_max ? "ARGMAX" : "ARGMIN", route == ARG_STANDALONE ? "op" : "REDUCE",
                     (int)direction, (int)out_type, i, (unsigned long long)got,
                     (unsigned long long)want[i]);
    }
    for (size_t i = want_count * index_bytes(out_type); i < sizeof result; i++)
        cr_assert_eq(result[i], (unsigned char)(0xA5 ^ (i * 29)), "byte %zu past the output changed", i);
    dmlcpu_destroy_operator(op);
}

static void arg_3x3_all(enum arg_route route)
{
    const uint32_t axis0[1] = {0}, axis1[1] = {1}, axes01[2] = {0, 1};
    const uint64_t min0[3] = {0, 1, 2}, min1[3] = {0, 1, 0}, min01[1] = {4};
    const uint64_t max0[3] = {1, 2, 1}, max1[3] = {2, 2, 1}, max01[1] = {7};
    const dmlcpu_axis_direction inc = DMLCPU_AXIS_DIRECTION_INCREASING;
    const dmlcpu_data_type t = DMLCPU_DATA_TYPE_INT32;
    arg_case(0, route, inc, t, k_arg_input, 2, k_3x3, 1, axis0, min0, 3);
    arg_case(0, route, inc, t, k_arg_input, 2, k_3x3, 1, axis1, min1, 3);
    arg_case(0, route, inc, t, k_arg_input, 2, k_3x3, 2, axes01, min01, 1);
    arg_case(1, route, inc, t, k_arg_input, 2, k_3x3, 1, axis0, max0, 3);
    arg_case(1, route, inc, t, k_arg_input, 2, k_3x3, 1, axis1, max1, 3);
    arg_case(1, route, inc, t, k_arg_input, 2, k_3x3, 2, axes01, max01, 1);
}

Test(examples, argmin_argmax_3x3_standalone)
{
    arg_3x3_all(ARG_STANDALONE);
}

Test(examples, argmin_argmax_3x3_via_reduce)
{
    arg_3x3_all(ARG_VIA_REDUCE);
}

Test(examples, argmin_ties_direction)
{
    const float v[5] = {1, 2, 3, 2, 1};
    const uint32_t sizes[1] = {5};
    const uint32_t axis0[1] = {0};
    const uint64_t first[1] = {0}, last[1] = {4}, top[1] = {2};
    const dmlcpu_data_type t = DMLCPU_DATA_TYPE_INT32;
    arg_case(0, ARG_STANDALONE, DMLCPU_AXIS_DIRECTION_INCREASING, t, v, 1, sizes, 1, axis0,
             first, 1);
    arg_case(0, ARG_STANDALONE, DMLCPU_AXIS_DIRECTION_DECREASING, t, v, 1, sizes, 1, axis0,
             last, 1);
    arg_case(0, ARG_VIA_REDUCE, DMLCPU_AXIS_DIRECTION_INCREASING, t, v, 1, sizes, 1, axis0,
             first, 1);
    arg_case(1, ARG_STANDALONE, DMLCPU_AXIS_DIRECTION_INCREASING, t, v, 1, sizes, 1, axis0, top,
             1);
    arg_case(1, ARG_STANDALONE, DMLCPU_AXIS_DIRECTION_DECREASING, t, v, 1, sizes, 1, axis0, top,
             1);
}

Test(examples, argmax_ties_direction)
{
    const float v[5] = {3, 1, 3, 0, 3};
    const uint32_t sizes[1] = {5};
    const uint32_t axis0[1] = {0};
    const uint64_t first[1] = {0}, last[1] = {4}, low[1] = {3};
    const dmlcpu_data_type t = DMLCPU_DATA_TYPE_INT32;
    arg_case(1, ARG_STANDALONE, DMLCPU_AXIS_DIRECTION_INCREASING, t, v, 1, sizes, 1, axis0,
             first, 1);
    arg_case(1, ARG_STANDALONE, DMLCPU_AXIS_DIRECTION_DECREASING, t, v, 1, sizes, 1, axis0,
             last, 1);
    arg_case(1, ARG_VIA_REDUCE, DMLCPU_AXIS_DIRECTION_INCREASING, t, v, 1, sizes, 1, axis0,
             first, 1);
    arg_case(0, ARG_STANDALONE, DMLCPU_AXIS_DIRECTION_DECREASING, t, v, 1, sizes, 1, axis0, low,
             1);
}

Test(examples, arg_every_output_type)
{
    const dmlcpu_data_type types[4] = {DMLCPU_DATA_TYPE_INT32, DMLCPU_DATA_TYPE_INT64,
                                       DMLCPU_DATA_TYPE_UINT32, DMLCPU_DATA_TYPE_UINT64};
    const uint32_t axis0[1] = {0}, axis1[1] = {1}, axes01[2] = {0, 1};
    const uint64_t min0[3] = {0, 1, 2}, max1[3] = {2, 2, 1}, max01[1] = {7};
    const dmlcpu_axis_direction inc = DMLCPU_AXIS_DIRECTION_INCREASING;
    for (size_t i = 0; i < COUNT_OF(types); i++) {
        arg_case(0, ARG_STANDALONE, inc, types[i], k_arg_input, 2, k_3x3, 1, axis0, min0, 3);
        arg_case(1, ARG_STANDALONE, inc, types[i], k_arg_input, 2, k_3x3, 1, axis1, max1, 3);
        arg_case(1, ARG_VIA_REDUCE, inc, types[i], k_arg_input, 2, k_3x3, 2, axes01, max01, 1);
        arg_case(0, ARG_VIA_REDUCE, inc, types[i], k_arg_input, 2, k_3x3, 1, axis0, min0, 3);
    }
}

/* ----------------------------------------------------------------------------------------- */
/* 3.3 SLICE and 3.4 SLICE_GRAD                                                               */

static void slice_4x4(const int32_t *strides, const float *want)
{
    float in[16];
    for (int i = 0; i < 16; i++)
        in[i] = (float)(i + 1);
    const uint32_t in_sizes[2] = {4, 4}, out_sizes[2] = {2, 2};
    const uint32_t offsets[2] = {0, 1}, sizes[2] = {4, 3};
    dmlcpu_tensor_desc ti = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, in_sizes, NULL);
    dmlcpu_tensor_desc to = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, out_sizes, NULL);
    dmlcpu_slice_operator_desc d = {&ti, &to, 2, offsets, sizes, strides};
    dmlcpu_operator *op = create_ok(DMLCPU_OPERATOR_SLICE, &d);
    _Alignas(64) float out[4];
    fill_sentinel(out, sizeof out);
    run_1_1(op, in, sizeof in, out, sizeof out);
    expect_f32(out, want, 4, "SLICE");
    dmlcpu_destroy_operator(op);
}

Test(examples, slice_strides_2_2)
{
    const int32_t strides[2] = {2, 2};
    const float want[4] = {2, 4, 10, 12};
    slice_4x4(strides, want);
}

Test(examples, slice_strides_minus2_2)
{
    const int32_t strides[2] = {-2, 2};
    const float want[4] = {14, 16, 6, 8};
    slice_4x4(strides, want);
}

static void slice_grad_4x4(const uint32_t *offsets, const uint32_t *sizes, const int32_t *strides,
                           const float *want)
{
    const float a = 11, c = 13, i = 19, k = 21;
    const float ingrad[4] = {a, c, i, k};
    const uint32_t in_sizes[2] = {2, 2}, out_sizes[2] = {4, 4};
    dmlcpu_tensor_desc ti = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, in_sizes, NULL);
    dmlcpu_tensor_desc to = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, out_sizes, NULL);
    dmlcpu_slice_grad_operator_desc d = {&ti, &to, 2, offsets, sizes, strides};
    dmlcpu_operator *op = create_ok(DMLCPU_OPERATOR_SLICE_GRAD, &d);
    _Alignas(64) float out[16];
    fill_sentinel(out, sizeof out);
    run_1_1(op, ingrad, sizeof ingrad, out, sizeof out);
    expect_f32(out, want, 16, "SLICE_GRAD");
    dmlcpu_destroy_operator(op);
}

Test(examples, slice_grad_strides_2_2)
{
    const uint32_t offsets[2] = {0, 0}, sizes[2] = {4, 4};
    const int32_t strides[2] = {2, 2};
    const float want[16] = {11, 0, 13, 0, 0, 0, 0, 0, 19, 0, 21, 0, 0, 0, 0, 0};
    slice_grad_4x4(offsets, sizes, strides, want);
}

Test(examples, slice_grad_mirrors_negative_slice)
{
    /* The scatter inverse of slice_strides_minus2_2: ingrad[r][c] lands where that slice read. */
    const uint32_t offsets[2] = {0, 1}, sizes[2] = {4, 3};
    const int32_t strides[2] = {-2, 2};
    const float want[16] = {0, 0, 0, 0, 0, 19, 0, 21, 0, 0, 0, 0, 0, 11, 0, 13};
    slice_grad_4x4(offsets, sizes, strides, want);
}

/* ----------------------------------------------------------------------------------------- */
/* 3.5 SPLIT and JOIN                                                                         */

struct parts {
    uint32_t count;
    uint32_t axis;
    uint32_t sizes[3][4];
    dmlcpu_tensor_desc desc[3];
    float want[3][12];
};

static void parts_axis2(struct parts *p)
{
    static const float w0[4] = {1, 2, 3, 4}, w1[2] = {5, 6}, w2[6] = {7, 8, 9, 10, 11, 12};
    const uint32_t rows[3] = {2, 1, 3};
    p->count = 3;
    p->axis = 2;
    for (uint32_t k = 0; k < 3; k++) {
        p->sizes[k][0] = 1;
        p->sizes[k][1] = 1;
        p->sizes[k][2] = rows[k];
        p->sizes[k][3] = 2;
        p->desc[k] = tensor(DMLCPU_DATA_TYPE_FLOAT32, 4, p->sizes[k], NULL);
    }
    memcpy(p->want[0], w0, sizeof w0);
    memcpy(p->want[1], w1, sizeof w1);
    memcpy(p->want[2], w2, sizeof w2);
}

static void parts_axis3(struct parts *p)
{
    p->count = 2;
    p->axis = 3;
    for (uint32_t k = 0; k < 2; k++) {
        p->sizes[k][0] = 1;
        p->sizes[k][1] = 1;
        p->sizes[k][2] = 6;
        p->sizes[k][3] = 1;
        p->desc[k] = tensor(DMLCPU_DATA_TYPE_FLOAT32, 4, p->sizes[k], NULL);
        for (int r = 0; r < 6; r++)
            p->want[k][r] = (float)(2 * r + 1 + (int)k);
    }
}

static size_t part_elements(const struct parts *p, uint32_t k)
{
    return (size_t)p->sizes[k][2] * p->sizes[k][3];
}

static const uint32_t k_whole_sizes[4] = {1, 1, 6, 2};

static void split_case(struct parts *p)
{
    float whole[12];
    for (int i = 0; i < 12; i++)
        whole[i] = (float)(i + 1);
    dmlcpu_tensor_desc ti = tensor(DMLCPU_DATA_TYPE_FLOAT32, 4, k_whole_sizes, NULL);
    dmlcpu_split_operator_desc d = {&ti, p->count, p->desc, p->axis};
    dmlcpu_operator *op = create_ok(DMLCPU_OPERATOR_SPLIT, &d);
    _Alignas(64) float out[3][16];
    fill_sentinel(out, sizeof out);
    dmlcpu_buffer_binding outs[3];
    for (uint32_t k = 0; k < p->count; k++)
        outs[k] = binding(out[k], part_elements(p, k) * sizeof(float));
    dmlcpu_buffer_binding in = binding(whole, sizeof whole);
    run_ok(op, 1, &in, p->count, outs);
    for (uint32_t k = 0; k < p->count; k++)
        expect_f32(out[k], p->want[k], part_elements(p, k), "SPLIT part");
    dmlcpu_destroy_operator(op);
}

static void join_case(struct parts *p)
{
    float want[12];
    for (int i = 0; i < 12; i++)
        want[i] = (float)(i + 1);
    dmlcpu_tensor_desc to = tensor(DMLCPU_DATA_TYPE_FLOAT32, 4, k_whole_sizes, NULL);
    dmlcpu_join_operator_desc d = {p->count, p->desc, &to, p->axis};
    dmlcpu_operator *op = create_ok(DMLCPU_OPERATOR_JOIN, &d);
    dmlcpu_buffer_binding ins[3];
    for (uint32_t k = 0; k < p->count; k++)
        ins[k] = binding(p->want[k], part_elements(p, k) * sizeof(float));
    _Alignas(64) float out[12];
    fill_sentinel(out, sizeof out);
    dmlcpu_buffer_binding o = binding(out, sizeof out);
    run_ok(op, p->count, ins, 1, &o);
    expect_f32(out, want, 12, "JOIN");
    dmlcpu_destroy_operator(op);
}

Test(examples, split_axis2_into_2_1_3)
{
    struct parts p;
    parts_axis2(&p);
    split_case(&p);
}

Test(examples, split_axis3_into_1_1)
{
    struct parts p;
    parts_axis3(&p);
    split_case(&p);
}

Test(examples, join_axis2_inverse)
{
    struct parts p;
    parts_axis2(&p);
    join_case(&p);
}

Test(examples, join_axis3_inverse)
{
    struct parts p;
    parts_axis3(&p);
    join_case(&p);
}

Test(examples, split_single_part_is_copy)
{
    float whole[12];
    for (int i = 0; i < 12; i++)
        whole[i] = (float)(i + 1);
    dmlcpu_tensor_desc ti = tensor(DMLCPU_DATA_TYPE_FLOAT32, 4, k_whole_sizes, NULL);
    dmlcpu_tensor_desc to = tensor(DMLCPU_DATA_TYPE_FLOAT32, 4, k_whole_sizes, NULL);
    dmlcpu_split_operator_desc d = {&ti, 1, &to, 2};
    dmlcpu_operator *op = create_ok(DMLCPU_OPERATOR_SPLIT, &d);
    _Alignas(64) float out[12];
    fill_sentinel(out, sizeof out);
    run_1_1(op, whole, sizeof whole, out, sizeof out);
    expect_f32(out, whole, 12, "SPLIT copy");
    dmlcpu_destroy_operator(op);
}

/* ----------------------------------------------------------------------------------------- */
/* 3.6 IDENTITY                                                                               */

Test(examples, identity_transpose_by_output_strides)
{
    const float in[6] = {1, 2, 3, 4, 5, 6};
    const uint32_t sizes[2] = {2, 3}, out_strides[2] = {1, 2};
    const float want[6] = {1, 4, 2, 5, 3, 6};
    dmlcpu_tensor_desc ti = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    dmlcpu_tensor_desc to = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, sizes, out_strides);
    dmlcpu_identity_operator_desc d = {&ti, &to};
    dmlcpu_operator *op = create_ok(DMLCPU_OPERATOR_IDENTITY, &d);
    _Alignas(64) float out[6];
    fill_sentinel(out, sizeof out);
    run_1_1(op, in, sizeof in, out, sizeof out);
    expect_f32(out, want, 6, "IDENTITY");
    dmlcpu_destroy_operator(op);
}

Test(examples, identity_transpose_by_input_strides)
{
    const float in[6] = {1, 2, 3, 4, 5, 6};
    const uint32_t sizes[2] = {3, 2}, in_strides[2] = {1, 3};
    const float want[6] = {1, 4, 2, 5, 3, 6};
    dmlcpu_tensor_desc ti = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, sizes, in_strides);
    dmlcpu_tensor_desc to = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    dmlcpu_identity_operator_desc d = {&ti, &to};
    dmlcpu_operator *op = create_ok(DMLCPU_OPERATOR_IDENTITY, &d);
    _Alignas(64) float out[6];
    fill_sentinel(out, sizeof out);
    run_1_1(op, in, sizeof in, out, sizeof out);
    expect_f32(out, want, 6, "IDENTITY");
    dmlcpu_destroy_operator(op);
}

/* ----------------------------------------------------------------------------------------- */
/* Public utilities                                                                           */

Test(examples, status_strings)
{
    cr_assert_str_eq(dmlcpu_status_string(DMLCPU_STATUS_OK), "OK");
    cr_assert_str_eq(dmlcpu_status_string(DMLCPU_STATUS_INVALID_ARGUMENT), "INVALID_ARGUMENT");
    cr_assert_str_eq(dmlcpu_status_string(DMLCPU_STATUS_UNSUPPORTED), "UNSUPPORTED");
    cr_assert_str_eq(dmlcpu_status_string(DMLCPU_STATUS_OUT_OF_MEMORY), "OUT_OF_MEMORY");
    cr_assert_str_eq(dmlcpu_status_string((dmlcpu_status)4), "unknown status");
    cr_assert_str_eq(dmlcpu_status_string((dmlcpu_status)-1), "unknown status");
    cr_assert_eq((int)DMLCPU_STATUS_OK, 0);
    cr_assert_eq((int)DMLCPU_STATUS_INVALID_ARGUMENT, 1);
    cr_assert_eq((int)DMLCPU_STATUS_UNSUPPORTED, 2);
    cr_assert_eq((int)DMLCPU_STATUS_OUT_OF_MEMORY, 3);
}

Test(examples, last_error_message_empty_before_any_failure)
{
    const char *m = dmlcpu_last_error_message();
    cr_assert_not_null(m);
    cr_assert_str_eq(m, "");
}

Test(examples, calc_buffer_tensor_size_packed)
{
    const uint32_t s33[2] = {3, 3};
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_FLOAT32, 2, s33, NULL), 36);
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_FLOAT64, 2, s33, NULL), 72);
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_INT16, 2, s33, NULL), 20);
    const uint32_t s8[8] = {2, 2, 2, 2, 2, 2, 2, 2};
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_UINT8, 8, s8, NULL), 256);
    const uint32_t one[1] = {1};
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_INT64, 1, one, NULL), 8);
}

Test(examples, calc_buffer_tensor_size_strided)
{
    const uint32_t sizes[2] = {2, 3}, padded[2] = {4, 1};
    /* ((2-1)*4 + (3-1)*1 + 1) * 4 */
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_FLOAT32, 2, sizes, padded), 28);
    const uint32_t transposed[2] = {1, 2};
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_FLOAT32, 2, sizes, transposed),
                 24);
    const uint32_t five[1] = {5}, zero[1] = {0};
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_FLOAT32, 1, five, zero), 4);
    const uint32_t bsizes[2] = {65536, 65536}, bstrides[2] = {0, 0};
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_FLOAT64, 2, bsizes, bstrides),
                 8);
}

Test(examples, calc_buffer_tensor_size_rounds_up_to_4)
{
    const uint32_t three[1] = {3}, one[1] = {1}, five[1] = {5};
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_UINT8, 1, three, NULL), 4);
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_INT8, 1, one, NULL), 4);
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_UINT8, 1, five, NULL), 8);
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_FLOAT16, 1, three, NULL), 8);
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_UINT16, 1, one, NULL), 4);
    const uint32_t sizes[2] = {2, 2}, strides[2] = {3, 1};
    /* ((1*3 + 1*1) + 1) * 2 = 10 -> 12 */
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_FLOAT16, 2, sizes, strides), 12);
}

Test(examples, calc_buffer_tensor_size_limits_and_overflow)
{
    const uint32_t m = UINT32_MAX;
    /* Largest representable result: (2^64 - 5) + 1 bytes, already a multiple of 4. */
    const uint32_t big_sizes[3] = {m, 4, 3}, big_strides[3] = {m, m - 2, 1};
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_UINT8, 3, big_sizes, big_strides),
                 UINT64_MAX - 3);
    /* (2^64 - 4) + 1 bytes fit in 64 bits, rounding them up to 4 does not. */
    const uint32_t r_sizes[2] = {m, 7}, r_strides[2] = {m, 0x7FFFFFFFu};
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_UINT8, 2, r_sizes, r_strides), 0);
    /* The element offset fits, times 8 bytes it does not. */
    const uint32_t e_sizes[2] = {1u << 30, 2}, e_strides[2] = {m, 1};
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_FLOAT64, 2, e_sizes, e_strides),
                 0);
    /* The sum of the offsets overflows. */
    const uint32_t s_sizes[3] = {m, m, m}, s_strides[3] = {m, m, m};
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_UINT8, 3, s_sizes, s_strides), 0);
    /* Packed strides themselves overflow. */
    const uint32_t p_sizes[3] = {m, m, m};
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_UINT8, 3, p_sizes, NULL), 0);
    const uint32_t p8[8] = {256, 256, 256, 256, 256, 256, 256, 256};
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_UINT8, 8, p8, NULL), 0);
}

Test(examples, calc_buffer_tensor_size_invalid_arguments)
{
    const uint32_t s[9] = {2, 2, 2, 2, 2, 2, 2, 2, 2};
    const uint32_t with_zero[2] = {2, 0};
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_UNKNOWN, 1, s, NULL), 0);
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size((dmlcpu_data_type)12, 1, s, NULL), 0);
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size((dmlcpu_data_type)99, 1, s, NULL), 0);
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_FLOAT32, 0, s, NULL), 0);
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_FLOAT32, 9, s, NULL), 0);
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_FLOAT32, 2, NULL, NULL), 0);
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_FLOAT32, 2, with_zero, NULL), 0);
}

Test(examples, isa_names)
{
    cr_assert_str_eq(dmlcpu_isa_name(DMLCPU_ISA_SCALAR), "scalar");
    cr_assert_str_eq(dmlcpu_isa_name(DMLCPU_ISA_PORTABLE), "portable");
    cr_assert_str_eq(dmlcpu_isa_name(DMLCPU_ISA_AVX2), "avx2");
    cr_assert_str_eq(dmlcpu_isa_name(DMLCPU_ISA_AVX512), "avx512");
    cr_assert_str_eq(dmlcpu_isa_name(DMLCPU_ISA_NEON), "neon");
    cr_assert_str_eq(dmlcpu_isa_name((dmlcpu_isa)5), "unknown");
    cr_assert_str_eq(dmlcpu_isa_name((dmlcpu_isa)-1), "unknown");
}

Test(examples, operator_isa_within_detected)
{
    dmlcpu_isa detected = dmlcpu_detected_isa();
    cr_assert_str_neq(dmlcpu_isa_name(detected), "unknown");
#if defined(__x86_64__) || defined(__i386__)
    cr_assert_neq(detected, DMLCPU_ISA_NEON, "NEON detected on x86");
#elif defined(__aarch64__)
    cr_assert(detected != DMLCPU_ISA_AVX2 && detected != DMLCPU_ISA_AVX512, "x86 level on arm");
#endif
    cr_assert_eq(dmlcpu_operator_isa(NULL), DMLCPU_ISA_SCALAR);
    const uint32_t axes[1] = {0}, out_sizes[2] = {1, 3};
    dmlcpu_tensor_desc in = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, k_3x3, NULL);
    dmlcpu_tensor_desc out = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, out_sizes, NULL);
    dmlcpu_reduce_operator_desc d = {DMLCPU_REDUCE_FUNCTION_SUM, &in, &out, 1, axes};
    dmlcpu_operator *op = create_ok(DMLCPU_OPERATOR_REDUCE, &d);
    dmlcpu_isa isa = dmlcpu_operator_isa(op);
    cr_log_info("detected %s, operator runs %s", dmlcpu_isa_name(detected), dmlcpu_isa_name(isa));
    cr_assert_leq(isa, detected, "operator level %s above the detected %s", dmlcpu_isa_name(isa),
                  dmlcpu_isa_name(detected));
    cr_assert_str_neq(dmlcpu_isa_name(isa), "unknown");
    dmlcpu_destroy_operator(op);

    cr_assert_eq(dmlcpu_set_max_isa(DMLCPU_ISA_SCALAR), DMLCPU_STATUS_OK);
    op = create_ok(DMLCPU_OPERATOR_REDUCE, &d);
    cr_assert_eq(dmlcpu_operator_isa(op), DMLCPU_ISA_SCALAR);
    dmlcpu_destroy_operator(op);
}

static void expect_counts(dmlcpu_operator_type type, const void *desc, uint32_t inputs,
                          uint32_t outputs)
{
    dmlcpu_operator *op = create_ok(type, desc);
    dmlcpu_binding_properties p;
    memset(&p, 0xFF, sizeof p);
    dmlcpu_get_binding_properties(op, &p);
    cr_assert_eq(p.input_count, inputs, "operator %d: input_count %u, expected %u", (int)type,
                 p.input_count, inputs);
    cr_assert_eq(p.output_count, outputs, "operator %d: output_count %u, expected %u", (int)type,
                 p.output_count, outputs);
    cr_assert_lt(p.temporary_size_in_bytes, (uint64_t)1 << 40,
                 "operator %d: temporary size %llu not set", (int)type,
                 (unsigned long long)p.temporary_size_in_bytes);
    dmlcpu_destroy_operator(op);
}

Test(examples, binding_properties_per_operator)
{
    const uint32_t axes[1] = {1}, out_sizes[2] = {3, 1};
    dmlcpu_tensor_desc in = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, k_3x3, NULL);
    dmlcpu_tensor_desc out = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, out_sizes, NULL);
    dmlcpu_tensor_desc idx = tensor(DMLCPU_DATA_TYPE_INT64, 2, out_sizes, NULL);
    dmlcpu_reduce_operator_desc rd = {DMLCPU_REDUCE_FUNCTION_SUM, &in, &out, 1, axes};
    expect_counts(DMLCPU_OPERATOR_REDUCE, &rd, 1, 1);
    dmlcpu_argmin_operator_desc ad = {&in, &idx, 1, axes, DMLCPU_AXIS_DIRECTION_INCREASING};
    expect_counts(DMLCPU_OPERATOR_ARGMIN, &ad, 1, 1);
    expect_counts(DMLCPU_OPERATOR_ARGMAX, &ad, 1, 1);

    const uint32_t offsets[2] = {0, 0}, wsizes[2] = {3, 3}, s31[2] = {3, 1};
    const int32_t wstrides[2] = {1, 3};
    dmlcpu_tensor_desc sl = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, s31, NULL);
    dmlcpu_slice_operator_desc sd = {&in, &sl, 2, offsets, wsizes, wstrides};
    expect_counts(DMLCPU_OPERATOR_SLICE, &sd, 1, 1);
    dmlcpu_slice_grad_operator_desc gd = {&sl, &in, 2, offsets, wsizes, wstrides};
    expect_counts(DMLCPU_OPERATOR_SLICE_GRAD, &gd, 1, 1);

    struct parts p;
    parts_axis2(&p);
    dmlcpu_tensor_desc whole = tensor(DMLCPU_DATA_TYPE_FLOAT32, 4, k_whole_sizes, NULL);
    dmlcpu_split_operator_desc spd = {&whole, 3, p.desc, 2};
    expect_counts(DMLCPU_OPERATOR_SPLIT, &spd, 1, 3);
    dmlcpu_join_operator_desc jd = {3, p.desc, &whole, 2};
    expect_counts(DMLCPU_OPERATOR_JOIN, &jd, 3, 1);
    parts_axis3(&p);
    dmlcpu_split_operator_desc spd2 = {&whole, 2, p.desc, 3};
    expect_counts(DMLCPU_OPERATOR_SPLIT, &spd2, 1, 2);
    dmlcpu_join_operator_desc jd2 = {2, p.desc, &whole, 3};
    expect_counts(DMLCPU_OPERATOR_JOIN, &jd2, 2, 1);

    dmlcpu_identity_operator_desc id = {&in, &in};
    expect_counts(DMLCPU_OPERATOR_IDENTITY, &id, 1, 1);
}

Test(examples, binding_properties_null_arguments_do_nothing)
{
    dmlcpu_binding_properties p;
    memset(&p, 0x5A, sizeof p);
    dmlcpu_binding_properties before = p;
    dmlcpu_get_binding_properties(NULL, &p);
    cr_assert(memcmp(&p, &before, sizeof p) == 0, "properties of NULL were written");
    dmlcpu_identity_operator_desc id;
    dmlcpu_tensor_desc t = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, k_3x3, NULL);
    id.input_tensor = &t;
    id.output_tensor = &t;
    dmlcpu_operator *op = create_ok(DMLCPU_OPERATOR_IDENTITY, &id);
    dmlcpu_get_binding_properties(op, NULL);
    dmlcpu_get_binding_properties(op, &p);
    cr_assert_eq(p.input_count, 1);
    dmlcpu_destroy_operator(op);
}

Test(examples, execute_twice_same_result)
{
    const uint32_t axes[1] = {0}, out_sizes[2] = {1, 3};
    dmlcpu_tensor_desc in = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, k_3x3, NULL);
    dmlcpu_tensor_desc out = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, out_sizes, NULL);
    dmlcpu_reduce_operator_desc d = {DMLCPU_REDUCE_FUNCTION_SUM, &in, &out, 1, axes};
    dmlcpu_operator *op = create_ok(DMLCPU_OPERATOR_REDUCE, &d);
    _Alignas(64) float first[3], second[3];
    fill_sentinel(first, sizeof first);
    memset(second, 0, sizeof second);
    run_1_1(op, k_reduce_input, sizeof k_reduce_input, first, sizeof first);
    run_1_1(op, k_reduce_input, sizeof k_reduce_input, second, sizeof second);
    cr_assert(memcmp(first, second, sizeof first) == 0, "two executions differ");
    const float want[3] = {6, 6, 9};
    expect_f32(second, want, 3, "second execute");
    fill_sentinel(second, sizeof second);
    run_1_1(op, k_reduce_input, sizeof k_reduce_input, second, sizeof second);
    expect_f32(second, want, 3, "third execute");
    dmlcpu_destroy_operator(op);
}

Test(examples, descriptor_not_retained)
{
    uint32_t *in_sizes = malloc(2 * sizeof *in_sizes);
    uint32_t *out_sizes = malloc(2 * sizeof *out_sizes);
    uint32_t *axes = malloc(sizeof *axes);
    dmlcpu_tensor_desc *in = malloc(sizeof *in);
    dmlcpu_tensor_desc *out = malloc(sizeof *out);
    cr_assert(in_sizes && out_sizes && axes && in && out);
    in_sizes[0] = 3;
    in_sizes[1] = 3;
    out_sizes[0] = 3;
    out_sizes[1] = 1;
    axes[0] = 1;
    *in = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, in_sizes, NULL);
    *out = tensor(DMLCPU_DATA_TYPE_FLOAT32, 2, out_sizes, NULL);
    dmlcpu_reduce_operator_desc d = {DMLCPU_REDUCE_FUNCTION_SUM, in, out, 1, axes};
    dmlcpu_operator *op = create_ok(DMLCPU_OPERATOR_REDUCE, &d);
    memset(in_sizes, 0, 2 * sizeof *in_sizes);
    memset(out_sizes, 0, 2 * sizeof *out_sizes);
    axes[0] = 7;
    free(in_sizes);
    free(out_sizes);
    free(axes);
    free(in);
    free(out);
    _Alignas(64) float result[3];
    fill_sentinel(result, sizeof result);
    run_1_1(op, k_reduce_input, sizeof k_reduce_input, result, sizeof result);
    const float want[3] = {6, 7, 8};
    expect_f32(result, want, 3, "after freeing the descriptor");
    dmlcpu_destroy_operator(op);
}

Test(examples, destroy_null_is_fine)
{
    dmlcpu_destroy_operator(NULL);
    cr_assert_eq(dmlcpu_operator_isa(NULL), DMLCPU_ISA_SCALAR);
}
