/*
 * The cross-architecture check of SPEC 4's "same bits on every machine": a fixed list of
 * operators (every REDUCE function x every type it allows x axis patterns, ARGMIN / ARGMAX in
 * both directions, every copy operator at every element type) run on inputs from a seeded,
 * portable generator, printing one line per operator:
 *
 *     <id> <description> <64-bit FNV-1a hash of the output bytes>
 *
 * Nothing in the list or the inputs depends on the machine, the ISA level or the thread count,
 * so every run must print the same lines; scripts/hashcheck.sh runs it at every level on x86
 * and under qemu on aarch64, with several thread counts, and compares. It needs no Criterion
 * (no worker processes), so it runs under any emulator.
 *
 * Usage: hashcheck [--threads N[,N...]] [--levels LEVEL[,LEVEL...]]
 *   --threads  create option max_threads (default 1)
 *   --levels   the levels as the tests name them (scalar, avx2, portable_sse4, ...; see
 *              tests/levels.h); without it, the one DMLCPU_ISA and DMLCPU_PORTABLE_TARGET select
 * Every operator runs at every level x thread count on the same inputs (making the inputs is
 * most of the time, under an emulator too); its line is printed once, and only when all runs
 * hash alike.
 * stdout: the lines above; stderr: the detected ISA, the runs, and how many operators ran at
 * each level. Exit status 1 when any operator failed to create or execute, or two runs of one
 * operator differ (its line says so); 2 for bad arguments or a listed level that does not run
 * here (a check that leaves a level out must not pass).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dmlcpu.h>

#include "levels.h"
#include "reference.h"

/* ------------------------------------------------------------------------------------------ */
/* Inputs: splitmix64 seeded per operator, so an operator's data never depends on the others.  */

static uint64_t next_u64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

enum fill_mode {
    FILL_WIDE,    /* floats over many exponents, integers over their whole range */
    FILL_TIES,    /* few distinct small values: ties for MIN/MAX/ARG*, small sums */
    FILL_PRODUCT, /* floats of magnitude in [0.5, 2), odd integers: products neither vanish
                     nor overflow at once */
    FILL_BITS,    /* random bits of any type (copies: NaN payloads, signalling NaNs) */
    FILL_FINITE,  /* FILL_WIDE without NaN and inf (groups of millions would all hold one) */
};

/* A float32 or float64 value from r: specials now and then (NaN with a payload, +-inf, -0,
 * subnormals), else a signed mantissa scaled by a small power of two. Built from integers with
 * exact operations only, so every machine makes the same bits. */
static double float_value(uint64_t r, enum fill_mode mode, int is_f64)
{
    /* rates per 100000 elements: NaN 3, inf 3 (a group of 5000 holds one now and then, so
     * most results stay finite), -0 and subnormals 2000 each (not in products: they would
     * zero every one) */
    unsigned pick = (unsigned)(r % 100000u);
    r /= 100000u;
    if (mode == FILL_WIDE || mode == FILL_PRODUCT) {
        if (pick < 3)
            return pick == 0 ? -(double)__builtin_nan("") : (double)__builtin_nan("");
        if (pick < 6)
            return pick == 3 ? -__builtin_inf() : __builtin_inf();
    }
    if (mode == FILL_WIDE || mode == FILL_FINITE) {
        if (pick < 2000)
            return -0.0;
        if (pick < 4000) /* subnormal of the type (float16 ones come from the small floats) */
            return (double)(int)(r % 1000u + 1u) * (is_f64 ? 0x1p-1070 : 0x1p-149);
    }
    int sign = (r & 1) ? -1 : 1;
    r >>= 1;
    switch (mode) {
    case FILL_TIES:
        return (double)((int)(r % 61u) - 30) / 8.0;
    case FILL_PRODUCT:
        return sign * (1.0 + (double)(r % 1024u) / 1024.0) * ((r >> 10) & 1 ? 0.5 : 1.0);
    default: {
        double m = (double)(r & ((UINT64_C(1) << 24) - 1)); /* 24 bits: exact in both types */
        int e = (int)((r >> 24) % 24u) - 28;                 /* m * 2^e in about [2^-28, 2^19] */
        double v = m;
        for (; e < 0; e++)
            v *= 0.5;
        for (; e > 0; e--)
            v *= 2.0;
        return sign * v;
    }
    }
}

static void fill(dmlcpu_data_type t, unsigned char *buf, size_t n, uint64_t seed, enum fill_mode mode)
{
    uint64_t state = seed;
    if (mode == FILL_BITS || (mode != FILL_TIES && !ref_type_is_float(t))) {
        /* raw bits: integers over their whole range (sums wrap; every element odd for
         * products), any bit pattern of a float for the copies */
        for (size_t i = 0; i < n * ref_type_size(t); i += 8) {
            uint64_t r = next_u64(&state) | (mode == FILL_PRODUCT ? UINT64_C(0x0101010101010101) : 0);
            memcpy(buf + i, &r, n * ref_type_size(t) - i < 8 ? n * ref_type_size(t) - i : 8);
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next_u64(&state);
        uint64_t bits = (uint64_t)((int64_t)(r % 61u) - 30); /* integer ties */
        switch (t) {
        case DMLCPU_DATA_TYPE_FLOAT32: {
            float f = (float)float_value(r, mode, 0);
            memcpy(buf + 4 * i, &f, 4);
            break;
        }
        case DMLCPU_DATA_TYPE_FLOAT64: {
            double d = float_value(r, mode, 1);
            memcpy(buf + 8 * i, &d, 8);
            break;
        }
        case DMLCPU_DATA_TYPE_FLOAT16: {
            /* wide values of float16 are scaled into its range; subnormals of float16 appear
             * among them (below 2^-14) */
            double d = float_value(r, mode, 0);
            uint16_t h = ref_f32_to_f16((float)(mode == FILL_WIDE || mode == FILL_FINITE ? d * 0x1p-14 : d));
            memcpy(buf + 2 * i, &h, 2);
            break;
        }
        case DMLCPU_DATA_TYPE_INT8:
        case DMLCPU_DATA_TYPE_UINT8: buf[i] = (unsigned char)bits; break;
        case DMLCPU_DATA_TYPE_INT16:
        case DMLCPU_DATA_TYPE_UINT16: {
            uint16_t v = (uint16_t)bits;
            memcpy(buf + 2 * i, &v, 2);
            break;
        }
        case DMLCPU_DATA_TYPE_INT32:
        case DMLCPU_DATA_TYPE_UINT32: {
            uint32_t v = (uint32_t)bits;
            memcpy(buf + 4 * i, &v, 4);
            break;
        }
        default: memcpy(buf + 8 * i, &bits, 8); break;
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Running one operator and hashing its outputs                                                */

static const char *const type_names[] = {"?",     "FLOAT32", "FLOAT16", "UINT32", "UINT16", "UINT8",
                                         "INT32", "INT16",   "INT8",    "FLOAT64", "UINT64", "INT64"};
static const char *const function_names[] = {"ARGMAX", "ARGMIN",  "AVERAGE",  "L1",
                                             "L2",     "LOG_SUM", "LOG_SUM_EXP", "MAX",
                                             "MIN",    "MULTIPLY", "SUM",     "SUM_SQUARE"};

static uint32_t thread_counts[8] = {1};
static int thread_count_n = 1;
static tu_level run_levels[16];
static int run_level_n; /* 0: the level of the environment */
static int operator_count, failures;
static int ops_per_isa[DMLCPU_ISA_NEON + 1];

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    return h;
}

static size_t tensor_bytes(const dmlcpu_tensor_desc *t)
{
    return (size_t)dmlcpu_calc_buffer_tensor_size(t->data_type, t->dimension_count, t->sizes, t->strides);
}

/* SPEC 4: "any NaN equals any NaN" for the results of reductions (the sign and payload of a
 * NaN result are not fixed), so a float reduction's NaNs are hashed as one quiet NaN. Copies
 * move bits and are hashed as they are. */
static void canonical_nans(dmlcpu_data_type t, unsigned char *p, size_t bytes)
{
    if (t == DMLCPU_DATA_TYPE_FLOAT32) {
        for (size_t i = 0; i + 4 <= bytes; i += 4) {
            uint32_t v;
            memcpy(&v, p + i, 4);
            if ((v & 0x7fffffffu) > 0x7f800000u)
                memcpy(p + i, &(uint32_t){0x7fc00000u}, 4);
        }
    } else if (t == DMLCPU_DATA_TYPE_FLOAT64) {
        for (size_t i = 0; i + 8 <= bytes; i += 8) {
            uint64_t v;
            memcpy(&v, p + i, 8);
            if ((v & UINT64_C(0x7fffffffffffffff)) > UINT64_C(0x7ff0000000000000))
                memcpy(p + i, &(uint64_t){UINT64_C(0x7ff8000000000000)}, 8);
        }
    } else if (t == DMLCPU_DATA_TYPE_FLOAT16) {
        for (size_t i = 0; i + 2 <= bytes; i += 2) {
            uint16_t v;
            memcpy(&v, p + i, 2);
            if ((v & 0x7fffu) > 0x7c00u)
                memcpy(p + i, &(uint16_t){0x7e00u}, 2);
        }
    }
}

/* Creates desc, fills the inputs (seeded by the operator's number), executes and prints the
 * line. Output buffers start as 0xA5 bytes so that padding a kernel must not touch is hashed
 * too. */
static void run(const char *what, const dmlcpu_operator_desc *desc, uint32_t in_count,
                const dmlcpu_tensor_desc *ins, uint32_t out_count, const dmlcpu_tensor_desc *outs,
                enum fill_mode mode)
{
    const int id = operator_count++;
    dmlcpu_buffer_binding ib[4] = {{0}}, ob[4] = {{0}};
    for (uint32_t i = 0; i < in_count; i++) {
        ib[i].size_in_bytes = tensor_bytes(&ins[i]);
        ib[i].data = malloc((size_t)ib[i].size_in_bytes);
        fill(ins[i].data_type, ib[i].data, (size_t)ib[i].size_in_bytes / ref_type_size(ins[i].data_type),
             UINT64_C(0x5eed) * (uint64_t)(id + 1) + i, mode);
    }
    for (uint32_t i = 0; i < out_count; i++) {
        ob[i].size_in_bytes = tensor_bytes(&outs[i]);
        ob[i].data = malloc((size_t)ob[i].size_in_bytes);
        memset(ob[i].data, 0xA5, (size_t)ob[i].size_in_bytes);
    }
    uint64_t first = 0;
    const int levels = run_level_n ? run_level_n : 1;
    int bad = 0;
    for (int lv = 0; lv < levels && !bad; lv++) {
        if (run_level_n)
            tu_apply_level(&run_levels[lv]);
        for (int ti = 0; ti < thread_count_n && !bad; ti++) {
            const char *level = run_level_n ? run_levels[lv].name : "env";
            for (uint32_t i = 0; i < out_count; i++)
                memset(ob[i].data, 0xA5, (size_t)ob[i].size_in_bytes);
            dmlcpu_create_options options = {thread_counts[ti], NULL, NULL};
            dmlcpu_operator *op = NULL;
            dmlcpu_status st = dmlcpu_create_operator(desc, &options, &op);
            if (st == DMLCPU_STATUS_OK) {
                dmlcpu_binding_properties bp;
                dmlcpu_get_binding_properties(op, &bp);
                void *tmp =
                    bp.temporary_size_in_bytes ? malloc((size_t)bp.temporary_size_in_bytes) : NULL;
                dmlcpu_bindings b = {in_count, ib, out_count, ob, {tmp, bp.temporary_size_in_bytes}};
                st = dmlcpu_execute(op, &b);
                free(tmp);
                ops_per_isa[dmlcpu_operator_isa(op)]++;
            }
            dmlcpu_destroy_operator(op);
            if (st != DMLCPU_STATUS_OK) {
                printf("%d %s FAILED at %s, %u threads: %s: %s\n", id, what, level,
                       thread_counts[ti], dmlcpu_status_string(st), dmlcpu_last_error_message());
                bad = 1;
                break;
            }
            uint64_t h = UINT64_C(0xcbf29ce484222325);
            for (uint32_t i = 0; i < out_count; i++) {
                if (desc->type == DMLCPU_OPERATOR_REDUCE)
                    canonical_nans(outs[i].data_type, ob[i].data, (size_t)ob[i].size_in_bytes);
                h = fnv1a(h, ob[i].data, (size_t)ob[i].size_in_bytes);
            }
            if (lv == 0 && ti == 0) {
                first = h;
            } else if (h != first) {
                printf("%d %s FAILED: %016llx at %s, %u threads, %016llx at %s, %u threads\n", id,
                       what, (unsigned long long)h, level, thread_counts[ti],
                       (unsigned long long)first, run_level_n ? run_levels[0].name : "env",
                       thread_counts[0]);
                bad = 1;
            }
        }
    }
    if (bad)
        failures++;
    else
        printf("%d %s %016llx\n", id, what, (unsigned long long)first);
    for (uint32_t i = 0; i < in_count; i++)
        free(ib[i].data);
    for (uint32_t i = 0; i < out_count; i++)
        free(ob[i].data);
}

/* ------------------------------------------------------------------------------------------ */
/* The list                                                                                    */

/* Input layouts of the reductions. Each crosses a canonical block (4096 elements, 2048 for
 * 64-bit types) or a vector tail in the shape the kernels see. */
typedef struct {
    const char *name;
    uint32_t rank, sizes[3];
    int strided; /* strides below apply */
    uint32_t strides[3];
    uint32_t axis_count, axes[3];
} layout;

static const layout layouts[] = {
    {"inner", 2, {3, 5003}, 0, {0}, 1, {1}},             /* rows: two blocks and a tail */
    {"short-rows", 2, {67, 37}, 0, {0}, 1, {1}},         /* multi-row kernels, odd width */
    {"outer", 2, {4133, 37}, 0, {0}, 1, {0}},            /* columns: block + tail, odd count */
    {"middle", 3, {3, 4099, 5}, 0, {0}, 1, {1}},         /* columns inside a kept outer dim */
    {"all", 3, {17, 19, 23}, 0, {0}, 3, {0, 1, 2}},      /* one group of 7429 */
    {"narrow", 2, {9001, 3}, 0, {0}, 1, {0}},            /* narrow columns */
    {"transposed", 2, {5, 4201}, 1, {1, 5}, 1, {1}},     /* gathered: reduced dim strided */
    {"padded", 3, {4, 45, 101}, 1, {6000, 128, 1}, 2, {0, 2}}, /* two reduced axes, padding */
    {"broadcast", 2, {7, 4500}, 1, {1, 0}, 1, {1}},      /* a repeated value over the group */
};
#define LAYOUT_COUNT (sizeof layouts / sizeof layouts[0])

static const dmlcpu_data_type all_types[] = {
    DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_FLOAT16, DMLCPU_DATA_TYPE_FLOAT64,
    DMLCPU_DATA_TYPE_INT32,   DMLCPU_DATA_TYPE_UINT32,  DMLCPU_DATA_TYPE_INT64,
    DMLCPU_DATA_TYPE_UINT64,  DMLCPU_DATA_TYPE_INT16,   DMLCPU_DATA_TYPE_UINT16,
    DMLCPU_DATA_TYPE_INT8,    DMLCPU_DATA_TYPE_UINT8};
#define TYPE_COUNT (sizeof all_types / sizeof all_types[0])

static const dmlcpu_data_type index_types[] = {DMLCPU_DATA_TYPE_INT32, DMLCPU_DATA_TYPE_UINT64,
                                               DMLCPU_DATA_TYPE_UINT32, DMLCPU_DATA_TYPE_INT64};

static void reductions(void)
{
    char what[200];
    for (int f = DMLCPU_REDUCE_FUNCTION_ARGMAX; f <= DMLCPU_REDUCE_FUNCTION_SUM_SQUARE; f++)
        for (size_t ti = 0; ti < TYPE_COUNT; ti++)
            for (size_t li = 0; li < LAYOUT_COUNT; li++) {
                const layout *l = &layouts[li];
                dmlcpu_data_type t = all_types[ti];
                int arg = f <= DMLCPU_REDUCE_FUNCTION_ARGMIN;
                dmlcpu_data_type ot = arg ? index_types[(ti + li) % 4] : t;
                if (!ref_reduce_supported((dmlcpu_reduce_function)f, t, ot))
                    continue;
                uint32_t osz[3];
                memcpy(osz, l->sizes, sizeof osz);
                for (uint32_t a = 0; a < l->axis_count; a++)
                    osz[l->axes[a]] = 1;
                dmlcpu_tensor_desc in = {t, l->rank, l->sizes, l->strided ? l->strides : NULL, 0};
                dmlcpu_tensor_desc out = {ot, l->rank, osz, NULL, 0};
                dmlcpu_reduce_operator_desc r = {(dmlcpu_reduce_function)f, &in, &out, l->axis_count,
                                                 l->axes};
                dmlcpu_operator_desc d = {DMLCPU_OPERATOR_REDUCE, &r};
                /* integer sums over the whole range test wrapping; MIN/MAX/ARG* get ties in
                 * every other layout */
                enum fill_mode mode = f == DMLCPU_REDUCE_FUNCTION_MULTIPLY ? FILL_PRODUCT
                                      : (arg || f == DMLCPU_REDUCE_FUNCTION_MIN ||
                                         f == DMLCPU_REDUCE_FUNCTION_MAX) && (li & 1)
                                          ? FILL_TIES
                                          : FILL_WIDE;
                snprintf(what, sizeof what, "REDUCE %s %s->%s %s", function_names[f], type_names[t],
                         type_names[ot], l->name);
                run(what, &d, 1, &in, 1, &out, mode);
            }
}

static void arg_operators(void)
{
    char what[200];
    for (int max = 0; max < 2; max++)
        for (int dir = 0; dir < 2; dir++)
            for (size_t ti = 0; ti < TYPE_COUNT; ti++)
                for (size_t li = 0; li < LAYOUT_COUNT; li++) {
                    const layout *l = &layouts[li];
                    dmlcpu_data_type t = all_types[ti], ot = index_types[(ti + li + 1) % 4];
                    uint32_t osz[3];
                    memcpy(osz, l->sizes, sizeof osz);
                    for (uint32_t a = 0; a < l->axis_count; a++)
                        osz[l->axes[a]] = 1;
                    dmlcpu_tensor_desc in = {t, l->rank, l->sizes, l->strided ? l->strides : NULL, 0};
                    dmlcpu_tensor_desc out = {ot, l->rank, osz, NULL, 0};
                    dmlcpu_argmin_operator_desc a = {&in, &out, l->axis_count, l->axes,
                                                     (dmlcpu_axis_direction)dir};
                    dmlcpu_operator_desc d = {max ? DMLCPU_OPERATOR_ARGMAX : DMLCPU_OPERATOR_ARGMIN, &a};
                    snprintf(what, sizeof what, "%s %s %s->%s %s", max ? "ARGMAX" : "ARGMIN",
                             dir ? "DECREASING" : "INCREASING", type_names[t], type_names[ot], l->name);
                    run(what, &d, 1, &in, 1, &out, (li + dir) & 1 ? FILL_TIES : FILL_WIDE);
                }
}

/* Copies of every type (so every element size 1, 2, 4 and 8, floats with NaN payloads). */
static void copies(void)
{
    char what[200];
    for (size_t ti = 0; ti < TYPE_COUNT; ti++) {
        dmlcpu_data_type t = all_types[ti];
        const char *tn = type_names[t];

        /* IDENTITY: a transpose over several tiles, a broadcast, a padded source */
        static const uint32_t tsz[2] = {300, 257}, tst[2] = {1, 300};
        dmlcpu_tensor_desc tin = {t, 2, tsz, tst, 0}, tout = {t, 2, tsz, NULL, 0};
        dmlcpu_identity_operator_desc id = {&tin, &tout};
        dmlcpu_operator_desc d = {DMLCPU_OPERATOR_IDENTITY, &id};
        snprintf(what, sizeof what, "IDENTITY %s transpose 300x257", tn);
        run(what, &d, 1, &tin, 1, &tout, FILL_BITS);

        static const uint32_t bsz[3] = {40, 3, 77}, bst[3] = {0, 80, 1};
        dmlcpu_tensor_desc bin = {t, 3, bsz, bst, 0}, bout = {t, 3, bsz, NULL, 0};
        id = (dmlcpu_identity_operator_desc){&bin, &bout};
        snprintf(what, sizeof what, "IDENTITY %s broadcast 40x3x77", tn);
        run(what, &d, 1, &bin, 1, &bout, FILL_BITS);

        /* SLICE: steps 2 and -1 along rows, 3 and -2 elsewhere; one window runs off the
         * vector width by an odd count */
        static const uint32_t ssz[2] = {50, 301}, off[2] = {1, 3}, win[2] = {48, 293};
        static const int32_t steps[4][2] = {{1, 2}, {-2, -1}, {3, 3}, {1, -2}};
        dmlcpu_tensor_desc sin = {t, 2, ssz, NULL, 0};
        for (int s = 0; s < 4; s++) {
            uint32_t osz[2];
            for (int k = 0; k < 2; k++)
                osz[k] = 1 + (win[k] - 1) / (uint32_t)abs(steps[s][k]);
            dmlcpu_tensor_desc sout = {t, 2, osz, NULL, 0};
            dmlcpu_slice_operator_desc sl = {&sin, &sout, 2, off, win, steps[s]};
            d = (dmlcpu_operator_desc){DMLCPU_OPERATOR_SLICE, &sl};
            snprintf(what, sizeof what, "SLICE %s steps %d,%d", tn, steps[s][0], steps[s][1]);
            run(what, &d, 1, &sin, 1, &sout, FILL_BITS);

            /* SLICE_GRAD: the same window scattered back */
            dmlcpu_slice_grad_operator_desc sg = {&sout, &sin, 2, off, win, steps[s]};
            d = (dmlcpu_operator_desc){DMLCPU_OPERATOR_SLICE_GRAD, &sg};
            snprintf(what, sizeof what, "SLICE_GRAD %s steps %d,%d", tn, steps[s][0], steps[s][1]);
            run(what, &d, 1, &sout, 1, &sin, FILL_BITS);
        }

        /* SPLIT and JOIN along the inner and the outer axis, parts of uneven sizes */
        for (uint32_t axis = 0; axis < 2; axis++) {
            static const uint32_t part[3] = {17, 50, 33};
            uint32_t whole[2] = {axis == 0 ? 100 : 40, axis == 1 ? 100 : 40}, psz[3][2];
            dmlcpu_tensor_desc parts[3];
            for (int p = 0; p < 3; p++) {
                psz[p][0] = axis == 0 ? part[p] : whole[0];
                psz[p][1] = axis == 1 ? part[p] : whole[1];
                parts[p] = (dmlcpu_tensor_desc){t, 2, psz[p], NULL, 0};
            }
            dmlcpu_tensor_desc w = {t, 2, whole, NULL, 0};
            dmlcpu_split_operator_desc sp = {&w, 3, parts, axis};
            d = (dmlcpu_operator_desc){DMLCPU_OPERATOR_SPLIT, &sp};
            snprintf(what, sizeof what, "SPLIT %s axis %u", tn, axis);
            run(what, &d, 1, &w, 3, parts, FILL_BITS);
            dmlcpu_join_operator_desc jo = {3, parts, &w, axis};
            d = (dmlcpu_operator_desc){DMLCPU_OPERATOR_JOIN, &jo};
            snprintf(what, sizeof what, "JOIN %s axis %u", tn, axis);
            run(what, &d, 3, parts, 1, &w, FILL_BITS);
        }
    }
}

/* Operators of more than 8 MiB, which the library splits over threads (outputs, and groups in
 * whole canonical blocks): the part of the list where --threads changes the plan. */
static void large_operators(void)
{
    static const uint32_t rows[2] = {3, 1048583}, cols[2] = {1048583, 3}, axis1 = 1, axis0 = 0;
    static const dmlcpu_data_type types[] = {DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_FLOAT16,
                                             DMLCPU_DATA_TYPE_FLOAT64, DMLCPU_DATA_TYPE_INT32};
    static const dmlcpu_reduce_function fns[] = {DMLCPU_REDUCE_FUNCTION_SUM, DMLCPU_REDUCE_FUNCTION_MAX,
                                                 DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP};
    char what[200];
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (size_t fi = 0; fi < sizeof fns / sizeof fns[0]; fi++)
            for (int column = 0; column < 2; column++) {
                dmlcpu_data_type t = types[ti];
                if (!ref_reduce_supported(fns[fi], t, t))
                    continue;
                uint32_t osz[2] = {column ? 1 : 3, column ? 3 : 1};
                dmlcpu_tensor_desc in = {t, 2, column ? cols : rows, NULL, 0};
                dmlcpu_tensor_desc out = {t, 2, osz, NULL, 0};
                dmlcpu_reduce_operator_desc r = {fns[fi], &in, &out, 1, column ? &axis0 : &axis1};
                dmlcpu_operator_desc d = {DMLCPU_OPERATOR_REDUCE, &r};
                snprintf(what, sizeof what, "REDUCE %s %s large %s", function_names[fns[fi]],
                         type_names[t], column ? "narrow" : "inner");
                run(what, &d, 1, &in, 1, &out, FILL_FINITE);
            }
    for (int dir = 0; dir < 2; dir++) {
        static const uint32_t osz[2] = {3, 1};
        dmlcpu_tensor_desc in = {DMLCPU_DATA_TYPE_FLOAT32, 2, rows, NULL, 0};
        dmlcpu_tensor_desc out = {DMLCPU_DATA_TYPE_UINT32, 2, osz, NULL, 0};
        dmlcpu_argmax_operator_desc a = {&in, &out, 1, &axis1, (dmlcpu_axis_direction)dir};
        dmlcpu_operator_desc d = {DMLCPU_OPERATOR_ARGMAX, &a};
        snprintf(what, sizeof what, "ARGMAX %s FLOAT32 large inner", dir ? "DECREASING" : "INCREASING");
        run(what, &d, 1, &in, 1, &out, FILL_TIES);
    }
    static const uint32_t tsz[2] = {2048, 1031}, tst[2] = {1, 2048};
    dmlcpu_tensor_desc tin = {DMLCPU_DATA_TYPE_FLOAT32, 2, tsz, tst, 0};
    dmlcpu_tensor_desc tout = {DMLCPU_DATA_TYPE_FLOAT32, 2, tsz, NULL, 0};
    dmlcpu_identity_operator_desc id = {&tin, &tout};
    dmlcpu_operator_desc d = {DMLCPU_OPERATOR_IDENTITY, &id};
    run("IDENTITY FLOAT32 large transpose 2048x1031", &d, 1, &tin, 1, &tout, FILL_BITS);
}

static int usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [--threads N[,N...]] [--levels LEVEL[,LEVEL...]]\n", argv0);
    return 2;
}

int main(int argc, char **argv)
{
    const int level = tu_check_isa_level();
    if (level != 0)
        return level;
    for (int i = 1; i < argc; i++) {
        const int has_value = i + 1 < argc;
        if (strcmp(argv[i], "--threads") == 0 && has_value) {
            char *p = argv[++i], *end;
            thread_count_n = 0;
            do {
                unsigned long v = strtoul(p, &end, 10);
                if (end == p || v > 1024 || thread_count_n == 8)
                    return usage(argv[0]);
                thread_counts[thread_count_n++] = (uint32_t)v;
                p = end + (*end == ',');
            } while (*end == ',');
            if (*end)
                return usage(argv[0]);
        } else if (strcmp(argv[i], "--levels") == 0 && has_value) {
            char *list = argv[++i];
            for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
                if (run_level_n == 16 || !tu_parse_level(name, &run_levels[run_level_n]))
                    return usage(argv[0]);
                if (!tu_apply_level(&run_levels[run_level_n])) {
                    fprintf(stderr, "hashcheck: level %s does not run here (detected %s)\n", name,
                            dmlcpu_isa_name(dmlcpu_detected_isa()));
                    return 2;
                }
                run_level_n++;
            }
        } else {
            return usage(argv[0]);
        }
    }
    reductions();
    arg_operators();
    copies();
    large_operators();
    fprintf(stderr, "hashcheck: detected %s, levels", dmlcpu_isa_name(dmlcpu_detected_isa()));
    if (!run_level_n) {
        const char *env = getenv("DMLCPU_ISA");
        fprintf(stderr, " %s (portable target %s)",
                env && *env ? env : dmlcpu_isa_name(dmlcpu_detected_isa()),
                dmlcpu_portable_target());
    }
    for (int i = 0; i < run_level_n; i++)
        fprintf(stderr, " %s", run_levels[i].name);
    fprintf(stderr, ", threads");
    for (int i = 0; i < thread_count_n; i++)
        fprintf(stderr, "%s%u", i ? "," : " ", thread_counts[i]);
    fprintf(stderr, ", %d operators, runs per level (", operator_count);
    for (int i = 0; i <= DMLCPU_ISA_NEON; i++)
        if (ops_per_isa[i])
            fprintf(stderr, " %s %d", dmlcpu_isa_name((dmlcpu_isa)i), ops_per_isa[i]);
    fprintf(stderr, " ), %d failed\n", failures);
    return failures ? 1 : 0;
}
