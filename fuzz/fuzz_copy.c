/*
 * libFuzzer target: SLICE, SLICE_GRAD, SPLIT, JOIN and IDENTITY descriptors built from the input
 * (types, ranks, sizes, layouts, windows, part counts and axes; valid and not), created with
 * options from the input and, when created, executed and checked by fz_create_and_run
 * (harness.h).
 */
#include <string.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_PARTS 8

/* A window per dimension of the whole tensor: mostly valid, sometimes out of range. sizes
 * receives the output (slice) sizes. */
static void windows(fz_reader *r, fz_arena *a, const dmlcpu_tensor_desc *whole, uint32_t rank,
                    uint32_t count, uint32_t **offsets, uint32_t **wsizes, int32_t **strides,
                    uint32_t *sizes)
{
    *offsets = fz_alloc(a, count, sizeof **offsets);
    *wsizes = fz_alloc(a, count, sizeof **wsizes);
    *strides = fz_alloc(a, count, sizeof **strides);
    for (uint32_t d = 0; d < count; d++) {
        uint32_t n = d < rank && whole->sizes ? whole->sizes[d] : 1;
        uint8_t mode = fz_u8(r);
        uint32_t off = n ? fz_below(r, n) : 0, len = n > off ? 1 + fz_below(r, n - off) : 1;
        int32_t st = (int32_t)(1 + fz_u8(r) % 3) * (fz_u8(r) & 1 ? -1 : 1);
        if (mode >= 240) { /* out of range */
            off = mode & 1 ? fz_size(r) : off;
            len = mode & 2 ? fz_size(r) : len;
            st = mode & 4 ? (int32_t)fz_u32(r) : mode & 8 ? 0 : st;
        }
        (*offsets)[d] = off;
        (*wsizes)[d] = len;
        (*strides)[d] = st;
        if (d < rank) {
            uint32_t abs = st == INT32_MIN ? 1u << 31 : (uint32_t)(st < 0 ? -st : st);
            sizes[d] = abs ? 1 + (len - 1) / abs : 1;
            if (mode == 239)
                sizes[d] = fz_size(r);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader r = {data, size};
    fz_arena a = {.count = 0};
    uint8_t kind = fz_u8(&r);
    dmlcpu_operator_type type = kind == 0xFF ? (dmlcpu_operator_type)(int)fz_u32(&r)
                                             : (dmlcpu_operator_type)(DMLCPU_OPERATOR_SLICE + kind % 5);
    /* A raw type that names a reduction would hand the library a copy's struct as the reduction's
     * (the caller owns that match); fuzz_reduce covers those types. It becomes an invalid one. */
    if (type >= DMLCPU_OPERATOR_REDUCE && type <= DMLCPU_OPERATOR_ARGMAX)
        type = (dmlcpu_operator_type)(DMLCPU_OPERATOR_IDENTITY + 1 + (uint32_t)type);
    dmlcpu_tensor_desc *whole = fz_alloc(&a, 1, sizeof *whole);
    fz_any_tensor(&r, &a, whole, type != DMLCPU_OPERATOR_SLICE_GRAD && type != DMLCPU_OPERATOR_JOIN);
    uint32_t rank = whole->dimension_count >= 1 && whole->dimension_count <= 8 ? whole->dimension_count : 1;
    uint32_t sizes[16] = {0}; /* fz_tensor reads up to 16 sizes (a rank beyond 8) */
    for (uint32_t i = 0; i < rank; i++)
        sizes[i] = whole->sizes && whole->dimension_count == rank ? whole->sizes[i] : 1;
    uint8_t nb = fz_u8(&r); /* NULL pointers */

    dmlcpu_slice_operator_desc sd;
    dmlcpu_slice_grad_operator_desc gd;
    dmlcpu_split_operator_desc pd;
    dmlcpu_join_operator_desc jd;
    dmlcpu_identity_operator_desc id;
    dmlcpu_operator_desc desc = {type, NULL};
    const dmlcpu_tensor_desc *ins[MAX_PARTS], *outs[MAX_PARTS];
    uint32_t nin = 1, nout = 1;
    ins[0] = outs[0] = whole;

    if (type == DMLCPU_OPERATOR_SPLIT || type == DMLCPU_OPERATOR_JOIN) {
        uint8_t cb = fz_u8(&r);
        uint32_t count = cb < 250 ? 1 + cb % 4 : cb == 250 ? 0 : cb % MAX_PARTS + 1;
        uint32_t axis = fz_u8(&r) < 250 ? fz_below(&r, rank) : fz_u32(&r);
        dmlcpu_tensor_desc *parts = fz_alloc(&a, count, sizeof *parts);
        /* cut the whole's axis size into count parts at sorted cut points */
        uint32_t total = axis < rank ? sizes[axis] : 1, prev = 0;
        for (uint32_t k = 0; k < count; k++) {
            uint32_t psizes[16], left = total - prev;
            uint32_t next = k + 1 == count ? total
                            : prev + (left == UINT32_MAX ? fz_u32(&r) : fz_below(&r, left + 1));
            memcpy(psizes, sizes, sizeof psizes);
            if (axis < rank)
                psizes[axis] = fz_u8(&r) == 0xFC ? fz_size(&r) : next - prev;
            prev = next;
            dmlcpu_data_type t = fz_u8(&r) == 0xFB ? fz_type(&r) : whole->data_type;
            fz_tensor(&r, &a, &parts[k], t, whole->dimension_count, psizes,
                      type == DMLCPU_OPERATOR_JOIN);
            (type == DMLCPU_OPERATOR_SPLIT ? outs : ins)[k] = &parts[k];
        }
        if (type == DMLCPU_OPERATOR_SPLIT) {
            pd = (dmlcpu_split_operator_desc){whole, count, nb == 0xE2 ? NULL : parts, axis};
            nout = count;
            desc.desc = &pd;
        } else {
            jd = (dmlcpu_join_operator_desc){count, nb == 0xE2 ? NULL : parts, whole, axis};
            nin = count;
            desc.desc = &jd;
        }
    } else if (type == DMLCPU_OPERATOR_IDENTITY) {
        dmlcpu_tensor_desc *o = fz_alloc(&a, 1, sizeof *o);
        if (fz_u8(&r) == 0xFE)
            sizes[fz_below(&r, rank)] = fz_size(&r);
        dmlcpu_data_type t = fz_u8(&r) == 0xFB ? fz_type(&r) : whole->data_type;
        fz_tensor(&r, &a, o, t, whole->dimension_count, sizes, 0);
        id = (dmlcpu_identity_operator_desc){whole, nb == 0xE2 ? NULL : o};
        outs[0] = o;
        desc.desc = &id;
    } else { /* SLICE and SLICE_GRAD share the window rules */
        uint8_t db = fz_u8(&r);
        uint32_t count = db < 250 ? rank : db % 10;
        uint32_t *offsets, *wsizes;
        int32_t *strides;
        windows(&r, &a, whole, rank, count, &offsets, &wsizes, &strides, sizes);
        dmlcpu_tensor_desc *part = fz_alloc(&a, 1, sizeof *part);
        dmlcpu_data_type t = fz_u8(&r) == 0xFB ? fz_type(&r) : whole->data_type;
        fz_tensor(&r, &a, part, t, whole->dimension_count, sizes, type == DMLCPU_OPERATOR_SLICE_GRAD);
        if (nb == 0xE3)
            offsets = NULL;
        else if (nb == 0xE4)
            wsizes = NULL;
        else if (nb == 0xE5)
            strides = NULL;
        if (type == DMLCPU_OPERATOR_SLICE) {
            sd = (dmlcpu_slice_operator_desc){whole, nb == 0xE2 ? NULL : part, count, offsets, wsizes, strides};
            outs[0] = part;
            desc.desc = &sd;
        } else {
            gd = (dmlcpu_slice_grad_operator_desc){part, nb == 0xE2 ? NULL : whole, count, offsets, wsizes, strides};
            ins[0] = part;
            desc.desc = &gd;
        }
    }
    if (nb == 0xE1)
        desc.desc = NULL;
    dmlcpu_create_options storage;
    const dmlcpu_create_options *options = fz_options(&r, &storage);
    fz_create_and_run(&r, &desc, options, ins, nin, outs, nout);
    fz_arena_free(&a);
    return 0;
}
