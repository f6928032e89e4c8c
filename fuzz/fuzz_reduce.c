/*
 * libFuzzer target: REDUCE, ARGMIN and ARGMAX descriptors built from the input (function, types,
 * ranks, sizes, layouts, axes, direction; valid and not), created with options from the input and,
 * when created, executed and checked by fz_create_and_run (harness.h).
 */
#include <string.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const dmlcpu_data_type index_types[4] = {DMLCPU_DATA_TYPE_INT32, DMLCPU_DATA_TYPE_INT64,
                                                DMLCPU_DATA_TYPE_UINT32, DMLCPU_DATA_TYPE_UINT64};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader r = {data, size};
    fz_arena a = {.count = 0};
    uint8_t kind = fz_u8(&r);
    dmlcpu_operator_type type = kind == 0xFF ? (dmlcpu_operator_type)(int)fz_u32(&r)
                                             : (dmlcpu_operator_type)(DMLCPU_OPERATOR_REDUCE + kind % 3);
    /* A raw type that names a copy operator would hand the library a reduction's struct as the
     * copy's (the API cannot tell them apart: the caller owns that match); fuzz_copy covers those
     * types. Such a value becomes an invalid one. */
    if (type >= DMLCPU_OPERATOR_SLICE && type <= DMLCPU_OPERATOR_IDENTITY)
        type = (dmlcpu_operator_type)(DMLCPU_OPERATOR_IDENTITY + 1 + (uint32_t)type);
    int is_arg = type != DMLCPU_OPERATOR_REDUCE;
    uint8_t fb = fz_u8(&r);
    dmlcpu_reduce_function fn = fb < 240 ? (dmlcpu_reduce_function)(fb % 12)
                                         : (dmlcpu_reduce_function)(int)fz_u32(&r);

    dmlcpu_tensor_desc *in = fz_alloc(&a, 1, sizeof *in), *out = fz_alloc(&a, 1, sizeof *out);
    fz_any_tensor(&r, &a, in, 1);
    uint32_t rank = in->dimension_count >= 1 && in->dimension_count <= 8 ? in->dimension_count : 1;

    /* axes: mostly distinct and in range, sometimes repeated, out of range or counted wrong */
    uint8_t ab = fz_u8(&r);
    uint32_t axis_count = ab < 240 ? 1 + ab % rank : ab % 17;
    uint32_t *axes = fz_alloc(&a, axis_count, sizeof *axes), perm[8];
    for (uint32_t i = 0; i < rank; i++)
        perm[i] = i;
    for (uint32_t i = rank; i > 1; i--) {
        uint32_t j = fz_below(&r, i), t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    for (uint32_t i = 0; i < axis_count; i++)
        axes[i] = ab < 240 ? perm[i] : fz_u8(&r) % 12;

    /* output: the input's sizes with the reduced axes at 1, sometimes one size changed */
    uint32_t osizes[16] = {0}; /* fz_tensor reads up to 16 sizes (a rank beyond 8) */
    for (uint32_t i = 0; i < rank; i++)
        osizes[i] = in->sizes && in->dimension_count == rank ? in->sizes[i] : 1;
    for (uint32_t i = 0; i < axis_count; i++)
        if (axes[i] < rank)
            osizes[axes[i]] = 1;
    if (fz_u8(&r) == 0xFE)
        osizes[fz_below(&r, rank)] = fz_size(&r);
    uint8_t tb = fz_u8(&r);
    dmlcpu_data_type otype = tb >= 240 ? fz_type(&r)
                             : (is_arg || fn <= DMLCPU_REDUCE_FUNCTION_ARGMIN) ? index_types[tb % 4]
                                                                                : in->data_type;
    uint32_t orank = fz_u8(&r) == 0xFD ? fz_rank(&r) : rank;
    fz_tensor(&r, &a, out, otype, orank, osizes, 0);

    dmlcpu_reduce_operator_desc rd = {fn, in, out, axis_count, axes};
    dmlcpu_argmin_operator_desc ad = {in, out, axis_count, axes,
                                      (dmlcpu_axis_direction)(fz_u8(&r) < 250 ? fz_u8(&r) % 2 : fz_u32(&r))};
    uint8_t nb = fz_u8(&r); /* NULL pointers */
    if (nb == 0xE1)
        rd.input_tensor = ad.input_tensor = NULL;
    else if (nb == 0xE2)
        rd.output_tensor = ad.output_tensor = NULL;
    else if (nb == 0xE3)
        rd.axes = ad.axes = NULL;
    dmlcpu_operator_desc desc = {type, is_arg ? (const void *)&ad : (const void *)&rd};
    if (nb == 0xE4)
        desc.desc = NULL;
    dmlcpu_create_options storage;
    const dmlcpu_create_options *options = fz_options(&r, &storage);
    const dmlcpu_tensor_desc *ins[1] = {in}, *outs[1] = {out};
    fz_create_and_run(&r, nb == 0xE5 ? NULL : &desc, options, ins, 1, outs, 1);
    fz_arena_free(&a);
    return 0;
}
