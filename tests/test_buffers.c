/*
 * Exact-size buffers (SPEC 2). A CPU caller binds buffers of exactly the bytes a tensor
 * addresses (a numpy array of 17 INT8 values is 17 bytes), not DirectML's size rounded up to 4.
 * For every operator and every data type, tensors of odd element counts, packed and padded,
 * declared with a total size of 0 or of exactly the addressed size, are bound with buffers of
 * that size, each ending at a guard page: the result equals the oracle's. Then each binding in
 * turn is declared one byte short: execute rejects it, the message names the binding and both
 * sizes, and no output byte changes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "testutil.h"

#define MAX_BINDINGS 3

/* A tensor and its guarded buffer of exactly the addressed size; copy: the oracle's side (the
 * original input bytes, or the expected output bytes). */
typedef struct {
    tu_tensor t;
    dmlcpu_tensor_desc desc;
    tu_buffer buf;
    void *data;
    void *copy;
    size_t bytes;
} exact_buf;

static void eb_make(exact_buf *x, tu_rng *r, dmlcpu_data_type type, uint32_t rank,
                    const uint32_t *sizes, const uint32_t *strides, int is_input)
{
    tu_tensor_init(&x->t, type, rank, sizes);
    if (strides) {
        memcpy(x->t.strides, strides, rank * sizeof strides[0]);
        x->t.has_strides = 1;
    }
    x->bytes = (size_t)tu_addressed_bytes(&x->t);
    /* 0 means "the addressed size"; declaring it explicitly must be the same */
    x->t.declared_size = tu_chance(r, 0.5) ? 0 : x->bytes;
    x->desc = tu_desc(&x->t);
    const size_t es = ref_type_size(type);
    x->data = tu_buffer_alloc(&x->buf, x->bytes, es, 0); /* ends at the guard page */
    if (is_input)
        tu_fill(r, type, x->data, x->bytes / es, TU_DATA_PLAIN, 0);
    else
        memset(x->data, 0xA5, x->bytes);
    x->copy = malloc(x->bytes);
    cr_assert_not_null(x->copy);
    memcpy(x->copy, x->data, x->bytes);
}

static void eb_free(exact_buf *x)
{
    tu_buffer_free(&x->buf);
    free(x->copy);
}

/* Runs desc on exact-size buffers and compares with the oracle, then declares each binding one
 * byte short in turn and checks the rejection. */
static void check_exact(const dmlcpu_operator_desc *desc, exact_buf *ins, uint32_t nin,
                        exact_buf *outs, uint32_t nout, tu_cmp_mode mode, const char *what)
{
    dmlcpu_buffer_binding bi[MAX_BINDINGS], bo[MAX_BINDINGS];
    const void *ref_in[MAX_BINDINGS];
    void *ref_out[MAX_BINDINGS];
    for (uint32_t i = 0; i < nin; i++) {
        bi[i] = (dmlcpu_buffer_binding){ins[i].data, ins[i].bytes};
        ref_in[i] = ins[i].copy;
    }
    for (uint32_t i = 0; i < nout; i++) {
        bo[i] = (dmlcpu_buffer_binding){outs[i].data, outs[i].bytes};
        ref_out[i] = outs[i].copy;
    }
    dmlcpu_operator *op = NULL;
    cr_assert_eq(dmlcpu_create_operator(desc, NULL, &op), DMLCPU_STATUS_OK, "%s: create: %s", what,
                 dmlcpu_last_error_message());
    dmlcpu_binding_properties props;
    dmlcpu_get_binding_properties(op, &props);
    tu_buffer tmp;
    void *tmp_data = props.temporary_size_in_bytes
                         ? tu_buffer_alloc(&tmp, (size_t)props.temporary_size_in_bytes, 64, 0)
                         : NULL;
    dmlcpu_bindings b = {nin, bi, nout, bo, {tmp_data, props.temporary_size_in_bytes}};

    /* One byte short, one binding at a time: rejected before anything is written. */
    for (uint32_t k = 0; k < nin + nout; k++) {
        dmlcpu_buffer_binding *victim = k < nin ? &bi[k] : &bo[k - nin];
        const uint64_t exact = victim->size_in_bytes;
        victim->size_in_bytes = exact - 1;
        cr_assert_eq(dmlcpu_execute(op, &b), DMLCPU_STATUS_INVALID_ARGUMENT,
                     "%s: %s[%u] one byte short was accepted", what, k < nin ? "Inputs" : "Outputs",
                     k < nin ? k : k - nin);
        victim->size_in_bytes = exact;
        char field[64], sizes[96];
        snprintf(field, sizeof field, "%s[%u].SizeInBytes is %" PRIu64, k < nin ? "Inputs" : "Outputs",
                 k < nin ? k : k - nin, exact - 1);
        snprintf(sizes, sizeof sizes, "tensor's %" PRIu64 " bytes", exact);
        const char *m = dmlcpu_last_error_message();
        cr_assert(strstr(m, field) && strstr(m, sizes), "%s: message \"%s\" lacks \"%s\" or \"%s\"",
                  what, m, field, sizes);
        for (uint32_t o = 0; o < nout; o++)
            for (size_t i = 0; i < outs[o].bytes; i++)
                cr_assert_eq(((const unsigned char *)outs[o].data)[i], 0xA5,
                             "%s: a rejected execute wrote byte %zu of output %u", what, i, o);
    }

    cr_assert_eq(dmlcpu_execute(op, &b), DMLCPU_STATUS_OK, "%s: execute: %s", what,
                 dmlcpu_last_error_message());
    if (tmp_data)
        tu_buffer_free(&tmp);
    dmlcpu_destroy_operator(op);

    cr_assert_eq(ref_execute(desc, ref_in, ref_out), DMLCPU_STATUS_OK, "%s: oracle failed", what);
    for (uint32_t o = 0; o < nout; o++) {
        char msg[512];
        cr_assert(tu_compare(&outs[o].t, outs[o].data, outs[o].copy, mode, NULL, msg, sizeof msg),
                  "%s: output %u: %s", what, o, msg);
        cr_assert(tu_compare_gaps(&outs[o].t, outs[o].data, outs[o].copy, outs[o].bytes, msg,
                                  sizeof msg),
                  "%s: output %u: %s", what, o, msg);
    }
    for (uint32_t i = 0; i < nin; i++)
        cr_assert(memcmp(ins[i].data, ins[i].copy, ins[i].bytes) == 0, "%s: input %u modified",
                  what, i);
}

static const dmlcpu_data_type all_types[] = {
    DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_FLOAT16, DMLCPU_DATA_TYPE_UINT32,
    DMLCPU_DATA_TYPE_UINT16,  DMLCPU_DATA_TYPE_UINT8,   DMLCPU_DATA_TYPE_INT32,
    DMLCPU_DATA_TYPE_INT16,   DMLCPU_DATA_TYPE_INT8,    DMLCPU_DATA_TYPE_FLOAT64,
    DMLCPU_DATA_TYPE_UINT64,  DMLCPU_DATA_TYPE_INT64,
};
#define TYPE_COUNT (sizeof all_types / sizeof all_types[0])

/* Shapes with odd element counts: a packed 3x5 (15 elements) and a 3x5 padded to rows of 6
 * (17 addressed elements), and a 1-D run of 17 that crosses a 16-byte vector of INT8. */
static const uint32_t s35[2] = {3, 5}, s31[2] = {3, 1}, pad6[2] = {6, 1}, pad2[2] = {2, 1};

Test(buffers, reduce_every_type)
{
    static const dmlcpu_reduce_function fns[] = {DMLCPU_REDUCE_FUNCTION_MAX, DMLCPU_REDUCE_FUNCTION_SUM,
                                                 DMLCPU_REDUCE_FUNCTION_MIN, DMLCPU_REDUCE_FUNCTION_L1};
    for (size_t t = 0; t < TYPE_COUNT; t++)
        for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++)
            for (int padded = 0; padded < 2; padded++) {
                if (!ref_reduce_supported(fns[f], all_types[t], all_types[t]))
                    continue;
                tu_rng r;
                tu_rng_init(&r, "buffers.reduce", t * 8 + f, (uint64_t)padded);
                exact_buf in, out;
                eb_make(&in, &r, all_types[t], 2, s35, padded ? pad6 : NULL, 1);
                eb_make(&out, &r, all_types[t], 2, s31, padded ? pad2 : NULL, 0);
                uint32_t axes[1] = {1};
                dmlcpu_reduce_operator_desc d = {fns[f], &in.desc, &out.desc, 1, axes};
                dmlcpu_operator_desc od = {DMLCPU_OPERATOR_REDUCE, &d};
                char what[128];
                snprintf(what, sizeof what, "REDUCE %s %s%s", tu_function_name(fns[f]),
                         tu_type_name(all_types[t]), padded ? " padded" : "");
                check_exact(&od, &in, 1, &out, 1, TU_CMP_NAN_EQUAL, what);
                eb_free(&in);
                eb_free(&out);
            }
}

Test(buffers, argmin_argmax_every_type)
{
    static const uint32_t s17[1] = {17}, s1[1] = {1};
    static const dmlcpu_data_type outs[] = {DMLCPU_DATA_TYPE_INT32, DMLCPU_DATA_TYPE_UINT64};
    for (size_t t = 0; t < TYPE_COUNT; t++)
        for (int is_max = 0; is_max < 2; is_max++) {
            tu_rng r;
            tu_rng_init(&r, "buffers.arg", t, (uint64_t)is_max);
            exact_buf in, out;
            eb_make(&in, &r, all_types[t], 1, s17, NULL, 1);
            eb_make(&out, &r, outs[is_max], 1, s1, NULL, 0);
            uint32_t axes[1] = {0};
            dmlcpu_argmin_operator_desc d = {&in.desc, &out.desc, 1, axes,
                                             is_max ? DMLCPU_AXIS_DIRECTION_DECREASING
                                                    : DMLCPU_AXIS_DIRECTION_INCREASING};
            dmlcpu_operator_desc od = {is_max ? DMLCPU_OPERATOR_ARGMAX : DMLCPU_OPERATOR_ARGMIN, &d};
            char what[128];
            snprintf(what, sizeof what, "%s %s", is_max ? "ARGMAX" : "ARGMIN", tu_type_name(all_types[t]));
            check_exact(&od, &in, 1, &out, 1, TU_CMP_BITS, what);
            eb_free(&in);
            eb_free(&out);
        }
}

Test(buffers, slice_and_slice_grad_every_type)
{
    /* 3x7 (21 elements) <-> a window of 3x5 at column 1 with step 2: 3x3 (9 elements). */
    static const uint32_t whole[2] = {3, 7}, part[2] = {3, 3};
    static const uint32_t offsets[2] = {0, 1}, sizes[2] = {3, 5};
    static const int32_t steps[2][2] = {{1, 2}, {-1, -2}};
    for (size_t t = 0; t < TYPE_COUNT; t++)
        for (int grad = 0; grad < 2; grad++)
            for (int s = 0; s < 2; s++) {
                tu_rng r;
                tu_rng_init(&r, "buffers.slice", t * 4 + (uint64_t)grad, (uint64_t)s);
                exact_buf in, out;
                eb_make(&in, &r, all_types[t], 2, grad ? part : whole, NULL, 1);
                eb_make(&out, &r, all_types[t], 2, grad ? whole : part, NULL, 0);
                dmlcpu_slice_operator_desc sd = {&in.desc, &out.desc, 2, offsets, sizes, steps[s]};
                dmlcpu_slice_grad_operator_desc gd = {&in.desc, &out.desc, 2, offsets, sizes, steps[s]};
                dmlcpu_operator_desc od = {grad ? DMLCPU_OPERATOR_SLICE_GRAD : DMLCPU_OPERATOR_SLICE,
                                           grad ? (const void *)&gd : (const void *)&sd};
                char what[128];
                snprintf(what, sizeof what, "%s %s steps %d,%d", grad ? "SLICE_GRAD" : "SLICE",
                         tu_type_name(all_types[t]), steps[s][0], steps[s][1]);
                check_exact(&od, &in, 1, &out, 1, TU_CMP_BITS, what);
                eb_free(&in);
                eb_free(&out);
            }
}

Test(buffers, split_and_join_every_type)
{
    /* 3x5 <-> 3x2 and 3x3 along axis 1 (15 <-> 6 + 9 elements); the whole tensor padded or not */
    static const uint32_t p0[2] = {3, 2}, p1[2] = {3, 3};
    for (size_t t = 0; t < TYPE_COUNT; t++)
        for (int join = 0; join < 2; join++)
            for (int padded = 0; padded < 2; padded++) {
                tu_rng r;
                tu_rng_init(&r, "buffers.parts", t * 4 + (uint64_t)join, (uint64_t)padded);
                exact_buf whole, parts[2];
                eb_make(&whole, &r, all_types[t], 2, s35, padded ? pad6 : NULL, !join);
                eb_make(&parts[0], &r, all_types[t], 2, p0, NULL, join);
                eb_make(&parts[1], &r, all_types[t], 2, p1, NULL, join);
                dmlcpu_tensor_desc pd[2] = {parts[0].desc, parts[1].desc};
                dmlcpu_split_operator_desc sd = {&whole.desc, 2, pd, 1};
                dmlcpu_join_operator_desc jd = {2, pd, &whole.desc, 1};
                dmlcpu_operator_desc od = {join ? DMLCPU_OPERATOR_JOIN : DMLCPU_OPERATOR_SPLIT,
                                           join ? (const void *)&jd : (const void *)&sd};
                char what[128];
                snprintf(what, sizeof what, "%s %s%s", join ? "JOIN" : "SPLIT",
                         tu_type_name(all_types[t]), padded ? " padded" : "");
                if (join)
                    check_exact(&od, parts, 2, &whole, 1, TU_CMP_BITS, what);
                else
                    check_exact(&od, &whole, 1, parts, 2, TU_CMP_BITS, what);
                eb_free(&whole);
                eb_free(&parts[0]);
                eb_free(&parts[1]);
            }
}

Test(buffers, identity_every_type)
{
    /* packed -> padded, padded -> packed, and a transposed 1x17 view */
    static const uint32_t s17[2] = {17, 1}, t17[2] = {1, 17};
    for (size_t t = 0; t < TYPE_COUNT; t++)
        for (int v = 0; v < 3; v++) {
            tu_rng r;
            tu_rng_init(&r, "buffers.identity", t, (uint64_t)v);
            exact_buf in, out;
            if (v < 2) {
                eb_make(&in, &r, all_types[t], 2, s35, v ? pad6 : NULL, 1);
                eb_make(&out, &r, all_types[t], 2, s35, v ? NULL : pad6, 0);
            } else {
                eb_make(&in, &r, all_types[t], 2, s17, t17, 1);
                eb_make(&out, &r, all_types[t], 2, s17, NULL, 0);
            }
            dmlcpu_identity_operator_desc d = {&in.desc, &out.desc};
            dmlcpu_operator_desc od = {DMLCPU_OPERATOR_IDENTITY, &d};
            char what[128];
            snprintf(what, sizeof what, "IDENTITY %s variant %d", tu_type_name(all_types[t]), v);
            check_exact(&od, &in, 1, &out, 1, TU_CMP_BITS, what);
            eb_free(&in);
            eb_free(&out);
        }
}

Test(buffers, calc_buffer_tensor_size_is_accepted_too)
{
    /* DirectML's rounded size (17 INT8 -> 20 bytes) binds as well as the exact 17. */
    static const uint32_t s17[1] = {17};
    dmlcpu_tensor_desc in = {DMLCPU_DATA_TYPE_INT8, 1, s17, NULL, 0};
    dmlcpu_tensor_desc out = in;
    cr_assert_eq(dmlcpu_calc_buffer_tensor_size(DMLCPU_DATA_TYPE_INT8, 1, s17, NULL), 20);
    dmlcpu_identity_operator_desc d = {&in, &out};
    dmlcpu_operator_desc od = {DMLCPU_OPERATOR_IDENTITY, &d};
    dmlcpu_operator *op = NULL;
    cr_assert_eq(dmlcpu_create_operator(&od, NULL, &op), DMLCPU_STATUS_OK);
    int8_t x[20], y[20];
    for (int i = 0; i < 20; i++) {
        x[i] = (int8_t)(i * 7 - 60);
        y[i] = 0;
    }
    for (uint64_t size = 17; size <= 20; size += 3) {
        dmlcpu_buffer_binding ib = {x, size}, ob = {y, size};
        dmlcpu_bindings b = {1, &ib, 1, &ob, {NULL, 0}};
        cr_assert_eq(dmlcpu_execute(op, &b), DMLCPU_STATUS_OK, "%s", dmlcpu_last_error_message());
        cr_assert(memcmp(x, y, 17) == 0);
        cr_assert(y[17] == 0 && y[18] == 0 && y[19] == 0, "wrote past the tensor's 17 bytes");
    }
    dmlcpu_destroy_operator(op);
}
