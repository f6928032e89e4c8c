/*
 * REDUCE, ARGMIN and ARGMAX against the oracle: seeded random cases over every function and
 * allowed data type, axis patterns, ranks 1..8, group sizes around vector widths and canonical
 * block lengths, data with specials, misaligned pointers, guard pages, strided inputs and
 * outputs. Every comparison is exact (any NaN equals any NaN), except LOG_SUM and LOG_SUM_EXP
 * whose exp/log the library evaluates with its own algorithm (see tu_compare).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "testutil.h"

typedef struct {
    int op;   /* DMLCPU_OPERATOR_REDUCE, _ARGMIN or _ARGMAX */
    int fn;   /* the REDUCE function (op REDUCE only) */
    int dir;  /* dmlcpu_axis_direction (ARGMIN / ARGMAX only) */
    int type; /* input data type */
} reduce_param;

static const dmlcpu_data_type index_types[] = {DMLCPU_DATA_TYPE_INT32, DMLCPU_DATA_TYPE_INT64,
                                               DMLCPU_DATA_TYPE_UINT32, DMLCPU_DATA_TYPE_UINT64};

/* Every REDUCE function with every type the SPEC tables allow, then ARGMIN and ARGMAX in both
 * directions with every type. */
static size_t build_params(reduce_param *p)
{
    size_t n = 0;
    for (int fn = DMLCPU_REDUCE_FUNCTION_ARGMAX; fn <= DMLCPU_REDUCE_FUNCTION_SUM_SQUARE; fn++)
        for (int t = DMLCPU_DATA_TYPE_FLOAT32; t <= DMLCPU_DATA_TYPE_INT64; t++) {
            int arg = fn == DMLCPU_REDUCE_FUNCTION_ARGMAX || fn == DMLCPU_REDUCE_FUNCTION_ARGMIN;
            if (ref_reduce_supported(fn, t, arg ? DMLCPU_DATA_TYPE_INT64 : (dmlcpu_data_type)t))
                p[n++] = (reduce_param){DMLCPU_OPERATOR_REDUCE, fn, 0, t};
        }
    for (int op = DMLCPU_OPERATOR_ARGMIN; op <= DMLCPU_OPERATOR_ARGMAX; op++)
        for (int dir = 0; dir < 2; dir++)
            for (int t = DMLCPU_DATA_TYPE_FLOAT32; t <= DMLCPU_DATA_TYPE_INT64; t++)
                p[n++] = (reduce_param){op, 0, dir, t};
    return n;
}

/* The function the case computes (ARGMIN / ARGMAX operators as their REDUCE function). */
static dmlcpu_reduce_function effective_fn(const reduce_param *p)
{
    if (p->op == DMLCPU_OPERATOR_ARGMIN)
        return DMLCPU_REDUCE_FUNCTION_ARGMIN;
    if (p->op == DMLCPU_OPERATOR_ARGMAX)
        return DMLCPU_REDUCE_FUNCTION_ARGMAX;
    return (dmlcpu_reduce_function)p->fn;
}

static uint32_t block_length(dmlcpu_data_type t)
{
    return t == DMLCPU_DATA_TYPE_FLOAT64 ? 2048 : 4096;
}

/* Data for a group of n: mostly values where the order of operations shows, sometimes specials
 * in a few groups (poison rate ~ 1/(2n)), sometimes everywhere. *cancel asks for cancelling
 * pairs (see plant_cancelling_pairs). */
static void choose_data(tu_rng *r, const reduce_param *p, uint64_t n, tu_data_kind *kind,
                        double *poison, int *cancel)
{
    const dmlcpu_reduce_function fn = effective_fn(p);
    const uint32_t pick = tu_below(r, 20);
    *poison = 0;
    *cancel = 0;
    if ((fn == DMLCPU_REDUCE_FUNCTION_SUM || fn == DMLCPU_REDUCE_FUNCTION_AVERAGE) &&
        ref_type_is_float((dmlcpu_data_type)p->type) && n >= 16 && pick < 6) {
        *kind = TU_DATA_PLAIN;
        *cancel = 1;
    } else if (fn == DMLCPU_REDUCE_FUNCTION_LOG_SUM && pick < 12) {
        *kind = TU_DATA_POSITIVE;
    } else if (fn == DMLCPU_REDUCE_FUNCTION_MULTIPLY && pick < 10) {
        *kind = TU_DATA_NEAR_ONE;
    } else if (pick < 7) {
        *kind = TU_DATA_PLAIN;
    } else {
        *kind = TU_DATA_SPECIAL;
        *poison = pick < 17 ? 0.5 / (double)n : 0.05;
    }
}

/* Fills every group with small values in [-1/16, 1/16) and puts pairs +X, -X of large values
 * at random positions of it. The exact sum is small, while an accumulator holding X has lost
 * low bits of the small values: the rounding errors of the FLOAT32 accumulation then show even
 * in a FLOAT16 result, so the order of operations is visible for every float type. */
static void plant_cancelling_pairs(tu_rng *r, const tu_tensor *in, void *data,
                                   const uint32_t *axes, uint32_t axis_count)
{
    const dmlcpu_tensor_desc d = tu_desc(in);
    const size_t es = ref_type_size(in->type);
    /* X in [2^lo, 2^(lo+8)): below 65504 for FLOAT16 */
    const int lo = in->type == DMLCPU_DATA_TYPE_FLOAT16   ? 7
                   : in->type == DMLCPU_DATA_TYPE_FLOAT32 ? 10
                                                          : 25;
    int reduced[8] = {0};
    uint32_t kept[8], red[8];
    uint64_t n = 1;
    for (uint32_t a = 0; a < axis_count; a++)
        reduced[axes[a]] = 1;
    for (uint32_t i = 0; i < in->rank; i++) {
        kept[i] = reduced[i] ? 1 : in->sizes[i];
        red[i] = reduced[i] ? in->sizes[i] : 1;
        n *= red[i];
    }
    uint64_t *offsets = malloc(n * sizeof *offsets);
    cr_assert_not_null(offsets);
    uint32_t oc[8] = {0};
    do {
        uint32_t gc[8] = {0}, c[8];
        size_t k = 0;
        do {
            for (uint32_t i = 0; i < in->rank; i++)
                c[i] = oc[i] + gc[i];
            offsets[k] = ref_offset(&d, c);
            tu_store_float(in->type, (unsigned char *)data + offsets[k] * es,
                           (2.0 * tu_uniform(r) - 1.0) / 16.0);
            k++;
        } while (ref_next_coord(gc, red, in->rank));
        for (uint64_t pair = 0; pair < n / 8; pair++) {
            /* distinct positions: a partial shuffle moves the pair's two to the front */
            for (uint64_t q = 2 * pair; q < 2 * pair + 2; q++) {
                uint64_t pick = q + tu_below(r, (uint32_t)(n - q)), tmp = offsets[q];
                offsets[q] = offsets[pick];
                offsets[pick] = tmp;
            }
            const uint64_t i = 2 * pair, j = 2 * pair + 1;
            double x = ldexp(1.0 + tu_uniform(r), lo + (int)tu_below(r, 8));
            if (tu_chance(r, 0.5))
                x = -x;
            tu_store_float(in->type, (unsigned char *)data + offsets[i] * es, x);
            tu_store_float(in->type, (unsigned char *)data + offsets[j] * es, -x);
        }
    } while (ref_next_coord(oc, kept, in->rank));
    free(offsets);
}

/* run_case's flags */
enum {
    RC_EVERY_THREAD_SETTING = 1, /* every thread setting instead of a random one */
    RC_SCALAR_BITS = 2, /* LOG_SUM, LOG_SUM_EXP: also the scalar kernels' bits, exactly (the
                         * oracle's exp and log are the C library's: it is compared within a
                         * tolerance, which a wrong block maximum can pass) */
    RC_PLAIN_DATA = 4   /* plain values (with specials, every column's maximum is often the
                         * same +inf or NaN) */
};

/* One case: builds the tensors, runs the oracle and the library, compares. in_layout /
 * out_layout < 0 choose randomly. flags: RC_* above. */
static void run_case(tu_rng *r, const reduce_param *p, uint32_t rank, const uint32_t *sizes,
                     uint32_t axis_count, const uint32_t *axes_in, int in_layout, int out_layout,
                     int flags)
{
    const int every_thread_setting = (flags & RC_EVERY_THREAD_SETTING) != 0;
    const dmlcpu_reduce_function fn = effective_fn(p);
    const int is_arg = fn == DMLCPU_REDUCE_FUNCTION_ARGMAX || fn == DMLCPU_REDUCE_FUNCTION_ARGMIN;
    const dmlcpu_data_type it = (dmlcpu_data_type)p->type;
    const dmlcpu_data_type ot = is_arg ? index_types[tu_below(r, 4)] : it;

    uint32_t axes[8], osizes[8];
    memcpy(axes, axes_in, axis_count * sizeof axes[0]);
    for (uint32_t i = axis_count; i > 1; i--) { /* axes come in any order */
        uint32_t j = tu_below(r, i), tmp = axes[i - 1];
        axes[i - 1] = axes[j];
        axes[j] = tmp;
    }
    memcpy(osizes, sizes, rank * sizeof sizes[0]);
    uint64_t n = 1;
    for (uint32_t a = 0; a < axis_count; a++) {
        n *= sizes[axes[a]];
        osizes[axes[a]] = 1;
    }

    tu_tensor in, out;
    tu_tensor_init(&in, it, rank, sizes);
    tu_tensor_init(&out, ot, rank, osizes);
    if (in_layout < 0)
        tu_tensor_random_layout(&in, r, 1);
    else
        tu_tensor_layout(&in, r, (tu_layout)in_layout, NULL);
    if (out_layout < 0)
        tu_tensor_random_layout(&out, r, 0);
    else
        tu_tensor_layout(&out, r, (tu_layout)out_layout, NULL);
    tu_tensor_random_declared_size(&in, r);
    tu_tensor_random_declared_size(&out, r);

    tu_data_kind kind;
    double poison;
    int cancel;
    choose_data(r, p, n, &kind, &poison, &cancel);
    if (flags & RC_PLAIN_DATA) {
        kind = TU_DATA_PLAIN;
        poison = 0;
        cancel = 0;
    }
    const unsigned in_shift = tu_chance(r, 0.5) ? 0 : 1 + tu_below(r, 7);
    const unsigned out_shift = tu_chance(r, 0.5) ? 0 : 1 + tu_below(r, 7);

    const size_t ies = ref_type_size(it), oes = ref_type_size(ot);
    const size_t in_bytes = (size_t)tu_binding_bytes(&in), out_bytes = (size_t)tu_binding_bytes(&out);
    tu_buffer ib, ob;
    void *in_data = tu_buffer_alloc(&ib, in_bytes, ies, in_shift);
    void *out_data = tu_buffer_alloc(&ob, out_bytes, oes, out_shift);
    tu_fill(r, it, in_data, in_bytes / ies, kind, poison);
    if (cancel)
        plant_cancelling_pairs(r, &in, in_data, axes, axis_count);
    void *in_copy = malloc(in_bytes);
    void *expected = malloc(out_bytes);
    double *scale = malloc((size_t)tu_element_count(&out) * sizeof(double));
    cr_assert(in_copy && expected && scale);
    memcpy(in_copy, in_data, in_bytes);
    memset(expected, 0xa5, out_bytes); /* as the library's output buffer before each run */

    char what[768];
    snprintf(what, sizeof what, "seed %#" PRIx64 ": %s%s%s input ", tu_rng_seed_value(r),
             p->op == DMLCPU_OPERATOR_REDUCE ? "REDUCE " : "",
             p->op == DMLCPU_OPERATOR_REDUCE ? tu_function_name(fn)
             : p->op == DMLCPU_OPERATOR_ARGMIN ? "ARGMIN" : "ARGMAX",
             p->op == DMLCPU_OPERATOR_REDUCE ? "" : p->dir ? " DECREASING" : " INCREASING");
    tu_describe_tensor(what, sizeof what, &in);
    snprintf(what + strlen(what), sizeof what - strlen(what), " output ");
    tu_describe_tensor(what, sizeof what, &out);
    snprintf(what + strlen(what), sizeof what - strlen(what), " axes {");
    for (uint32_t a = 0; a < axis_count; a++)
        snprintf(what + strlen(what), sizeof what - strlen(what), "%s%" PRIu32, a ? "," : "",
                 axes[a]);
    snprintf(what + strlen(what), sizeof what - strlen(what),
             "} data %s%s poison %.3g shifts %u/%u", tu_data_kind_name(kind),
             cancel ? " with cancelling pairs" : "", poison, in_shift, out_shift);

    dmlcpu_tensor_desc idesc = tu_desc(&in), odesc = tu_desc(&out);
    dmlcpu_reduce_operator_desc rd = {fn, &idesc, &odesc, axis_count, axes};
    dmlcpu_argmin_operator_desc ad = {&idesc, &odesc, axis_count, axes,
                                      (dmlcpu_axis_direction)p->dir};
    dmlcpu_operator_desc desc = {(dmlcpu_operator_type)p->op,
                                 p->op == DMLCPU_OPERATOR_REDUCE ? (const void *)&rd : (const void *)&ad};
    dmlcpu_status st = p->op == DMLCPU_OPERATOR_REDUCE
                           ? ref_reduce(&rd, in_copy, expected, scale)
                           : ref_arg(&ad, p->op == DMLCPU_OPERATOR_ARGMAX, in_copy, expected);
    cr_assert_eq(st, DMLCPU_STATUS_OK, "%s: the oracle rejects the case", what);
    const tu_cmp_mode mode = fn == DMLCPU_REDUCE_FUNCTION_LOG_SUM ||
                                     fn == DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP
                                 ? TU_CMP_LOG
                                 : TU_CMP_NAN_EQUAL;

    /* one random thread setting, or all of them (each must give the oracle's bits); the
     * reduced set takes the first three: 1 thread, 3 threads and the reversed host pool. The
     * random one is drawn once, whatever the number of levels, so a seed names the same case. */
    static const uint32_t settings[] = {1, 3, TU_HOST_POOL, 2, 7, 0};
    const size_t runs = !every_thread_setting ? 1 : tu_reduced() ? 3 : sizeof settings / sizeof settings[0];
    const uint32_t random_threads = every_thread_setting ? 0 : tu_random_threads(r);
    void *scalar_bits = NULL; /* RC_SCALAR_BITS: the output of the scalar kernels, 1 thread */
    if ((flags & RC_SCALAR_BITS) && mode == TU_CMP_LOG) {
        scalar_bits = malloc(out_bytes);
        cr_assert_not_null(scalar_bits);
        tu_level_select(0); /* then below it: the loop selects each level again */
        cr_assert_eq(dmlcpu_set_max_isa(DMLCPU_ISA_SCALAR), DMLCPU_STATUS_OK);
        memset(out_data, 0xa5, out_bytes);
        dmlcpu_buffer_binding bi = {in_data, in_bytes}, bo = {out_data, out_bytes};
        char full[900];
        snprintf(full, sizeof full, "%s, scalar kernels", what);
        tu_run(&desc, 1, &bi, 1, &bo, 1, full);
        cr_assert_eq(dmlcpu_set_max_isa(dmlcpu_detected_isa()), DMLCPU_STATUS_OK);
        memcpy(scalar_bits, out_data, out_bytes);
    }
    for (uint32_t lv = 0; lv < tu_level_count(); lv++) {
        const char *level = tu_level_select(lv);
        for (size_t k = 0; k < runs; k++) {
            const uint32_t threads = every_thread_setting ? settings[k] : random_threads;
            char full[900];
            snprintf(full, sizeof full, "%s, %s%s%s", what, tu_threads_name(threads),
                     *level ? ", level " : "", level);
            memset(out_data, 0xa5, out_bytes);
            dmlcpu_buffer_binding bi = {in_data, in_bytes}, bo = {out_data, out_bytes};
            tu_run(&desc, threads, &bi, 1, &bo, 1, full);
            char msg[512];
            int same = tu_compare(&out, out_data, expected, mode, scale, msg, sizeof msg);
            cr_assert(same, "%s: %s", full, msg);
            if (scalar_bits) {
                same = tu_compare(&out, out_data, scalar_bits, TU_CMP_NAN_EQUAL, scale, msg,
                                  sizeof msg);
                cr_assert(same, "%s: not the scalar kernels' bits: %s", full, msg);
            }
            same = tu_compare_gaps(&out, out_data, expected, out_bytes, msg, sizeof msg);
            cr_assert(same, "%s: %s", full, msg);
            cr_assert(memcmp(in_copy, in_data, in_bytes) == 0,
                      "%s: the input buffer was modified", full);
        }
    }

    free(scalar_bits);
    free(scale);
    free(expected);
    free(in_copy);
    tu_buffer_free(&ib);
    tu_buffer_free(&ob);
}

/* ---- random shapes over axis patterns ------------------------------------------------------ */

enum { PATTERN_INNER, PATTERN_OUTER, PATTERN_MIDDLE, PATTERN_NONADJACENT, PATTERN_ALL,
       PATTERN_RANDOM, PATTERN_COUNT };

/* The reduced axes of a pattern, increasing; 0 when the pattern needs a larger rank. */
static uint32_t pattern_axes(tu_rng *r, int pattern, uint32_t rank, uint32_t *axes)
{
    uint32_t count = 0;
    switch (pattern) {
    case PATTERN_INNER:
        axes[count++] = rank - 1;
        break;
    case PATTERN_OUTER:
        axes[count++] = 0;
        break;
    case PATTERN_MIDDLE:
        if (rank < 3)
            return 0;
        axes[count++] = 1 + tu_below(r, rank - 2);
        break;
    case PATTERN_NONADJACENT: { /* at least two axes, no two neighbours */
        if (rank < 3)
            return 0;
        uint32_t a = tu_below(r, rank - 2);
        axes[count++] = a;
        for (uint32_t d = a + 2; d < rank; d++)
            if (count == 1 ? (d == rank - 1 || tu_chance(r, 0.5)) : tu_chance(r, 0.3)) {
                axes[count++] = d;
                d++;
            }
        break;
    }
    case PATTERN_ALL:
        for (uint32_t d = 0; d < rank; d++)
            axes[count++] = d;
        break;
    default:
        while (count == 0)
            for (uint32_t d = 0; d < rank; d++)
                if (tu_chance(r, 0.5))
                    axes[count++] = d;
        break;
    }
    return count;
}

/* Sizes with product n over the reduced axes (random divisors), and small kept sizes whose
 * product stays within budget / n. */
static void pattern_sizes(tu_rng *r, uint32_t rank, const uint32_t *axes, uint32_t axis_count,
                          uint32_t n, uint32_t *sizes)
{
    int reduced[8] = {0};
    for (uint32_t a = 0; a < axis_count; a++)
        reduced[axes[a]] = 1;
    uint32_t rest = n;
    for (uint32_t a = 0; a + 1 < axis_count; a++) {
        uint32_t divisors[64], count = 0;
        for (uint32_t d = 1; d <= rest && count < 64; d++)
            if (rest % d == 0)
                divisors[count++] = d;
        uint32_t d = divisors[tu_below(r, count)];
        sizes[axes[a]] = d;
        rest /= d;
    }
    sizes[axes[axis_count - 1]] = rest;
    uint32_t kept_budget = 24576 / n;
    if (kept_budget < 1)
        kept_budget = 1;
    if (kept_budget > 512)
        kept_budget = 512;
    for (uint32_t d = 0; d < rank; d++) {
        if (reduced[d])
            continue;
        /* mostly tiny; sometimes around vector widths (a kept inner dim feeds column kernels) */
        static const uint32_t wide[] = {8, 15, 16, 17, 31, 32, 33, 64, 100};
        uint32_t s = 1 + tu_below(r, kept_budget < 7 ? kept_budget : 7);
        if (tu_chance(r, 0.3)) {
            uint32_t w = wide[tu_below(r, 9)];
            if (w <= kept_budget)
                s = w;
        }
        sizes[d] = s;
        kept_budget /= s;
    }
}

static const uint32_t common_sizes[] = {1, 3, 63, 64, 65, 1023, 1024, 1025};

static uint32_t pick_group_size(tu_rng *r, dmlcpu_data_type t, int allow_large)
{
    const uint32_t b = block_length(t);
    const uint32_t large[] = {b, 2 * b, 3 * b + 5, 5 * b + 3, 2 * b - 1};
    if (allow_large && tu_chance(r, 0.4))
        return large[tu_below(r, 5)];
    return common_sizes[tu_below(r, 8)];
}

static void random_cases(const reduce_param *p)
{
    tu_rng r;
    tu_rng_init(&r, "reduce.random", (uint64_t)(p->op * 100 + p->fn), (uint64_t)(p->dir * 100 + p->type));
    /* reduced set: ranks 1, 2, 3, 5, 8 and two repeats (one of them may take a large group) */
    const int reduced = tu_reduced();
    for (int pattern = 0; pattern < PATTERN_COUNT; pattern++)
        for (uint32_t rank = 1; rank <= 8; rank++)
            for (int k = 0; k < 3; k++) {
                if (reduced && (k == 1 || rank == 4 || rank == 6 || rank == 7))
                    continue;
                uint32_t axes[8], sizes[8];
                uint32_t count = pattern_axes(&r, pattern, rank, axes);
                if (count == 0)
                    continue;
                uint32_t n = pick_group_size(&r, (dmlcpu_data_type)p->type, k == 2);
                pattern_sizes(&r, rank, axes, count, n, sizes);
                run_case(&r, p, rank, sizes, count, axes, -1, -1, 0);
            }
}

ParameterizedTestParameters(reduce, random)
{
    static reduce_param params[256];
    size_t n = build_params(params);
    return cr_make_param_array(reduce_param, params, n);
}

ParameterizedTest(reduce_param *p, reduce, random)
{
    random_cases(p);
}

/* ---- size sweeps: rank 1, rows and columns ------------------------------------------------- */

/* Mostly packed (the row and column kernels); now and then any layout. */
static int sweep_layout(tu_rng *r, int is_input)
{
    if (tu_chance(r, 0.75))
        return tu_chance(r, 0.8) ? TU_LAYOUT_PACKED : TU_LAYOUT_PACKED_EXPLICIT;
    return (int)tu_below(r, is_input ? TU_LAYOUT_COUNT : TU_LAYOUT_BROADCAST);
}

static void sweep_cases(const reduce_param *p)
{
    tu_rng r;
    tu_rng_init(&r, "reduce.sweep", (uint64_t)(p->op * 100 + p->fn), (uint64_t)(p->dir * 100 + p->type));
    const uint32_t b = block_length((dmlcpu_data_type)p->type);
    const uint32_t around_blocks[] = {b - 1, b, b + 1, 2 * b - 1, 2 * b, 2 * b + 1,
                                      3 * b,  3 * b + 1, 4 * b + 4, 5 * b + 3};
    const uint32_t nblocks = sizeof around_blocks / sizeof around_blocks[0];
    const uint32_t axis0 = 0, axis1 = 1;

    /* Lengths 1..300 cross every vector width and unroll; the reduced set keeps 1..40, the
     * lengths next to each multiple of 64 and 300 (16-byte vectors hold 2 to 16 elements,
     * unrolled by up to 4 or 8). */
    const int reduced = tu_reduced();
#define SWEEP_SKIPS(n) (reduced && (n) > 40 && ((n) + 1) % 64 > 2 && (n) != 300)

    /* rank 1, the whole tensor is one group */
    for (uint32_t n = 1; n <= 300; n++)
        if (!SWEEP_SKIPS(n))
            run_case(&r, p, 1, &n, 1, &axis0, sweep_layout(&r, 1), sweep_layout(&r, 0), 0);
    for (uint32_t i = 0; i < nblocks; i++)
        run_case(&r, p, 1, &around_blocks[i], 1, &axis0, sweep_layout(&r, 1), sweep_layout(&r, 0), 0);

    /* rows: M x n, reduce the last axis */
    for (uint32_t n = 1; n <= 300; n++) {
        if (SWEEP_SKIPS(n))
            continue;
        uint32_t sizes[2] = {1 + tu_below(&r, 4), n};
        run_case(&r, p, 2, sizes, 1, &axis1, sweep_layout(&r, 1), sweep_layout(&r, 0), 0);
    }
    for (uint32_t i = 0; i < nblocks; i += 2) {
        uint32_t sizes[2] = {2, around_blocks[i]};
        run_case(&r, p, 2, sizes, 1, &axis1, sweep_layout(&r, 1), sweep_layout(&r, 0), 0);
    }

    /* many short rows (the multi-row kernels): M x n and 3 x M x n, reduce the last axis, with
     * row counts around their batches (4, 8, 16 rows) and the 64 outputs per call, lengths
     * around vector widths, unrolls and the block */
    static const uint32_t many[] = {5, 7, 8, 9, 15, 16, 17, 33, 63, 64, 65, 100};
    static const uint32_t lens[] = {1,   2,   3,   4,   5,   7,   8,   9,   15,  16,  17, 31,
                                    32,  33,  63,  64,  65,  127, 128, 129, 255, 256, 257, 511,
                                    512, 513, 1023, 1024, 1025};
    for (uint32_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        uint32_t m = many[tu_below(&r, sizeof many / sizeof many[0])];
        uint32_t sizes2[2] = {m, lens[i]}, sizes3[3] = {3, m, lens[i]};
        const uint32_t axis2 = 2;
        run_case(&r, p, 2, sizes2, 1, &axis1, sweep_layout(&r, 1), sweep_layout(&r, 0), 0);
        if (i % 3 == 0)
            run_case(&r, p, 3, sizes3, 1, &axis2, sweep_layout(&r, 1), sweep_layout(&r, 0), 0);
    }
    for (uint32_t i = 0; i < 3; i++) {
        uint32_t sizes[2] = {many[tu_below(&r, sizeof many / sizeof many[0])], b - 1 + i};
        run_case(&r, p, 2, sizes, 1, &axis1, sweep_layout(&r, 1), sweep_layout(&r, 0), 0);
    }

    /* columns: n x K, reduce axis 0, for K in 1..17 and a wide 100 */
    for (uint32_t k = 1; k <= 18; k++) {
        const uint32_t width = k == 18 ? 100 : k;
        for (int j = 0; j < (reduced ? 5 : 10); j++) {
            uint32_t n = j < 3 ? (uint32_t[]){1, 4, 64}[j] : 1 + tu_below(&r, 300);
            uint32_t sizes[2] = {n, width};
            run_case(&r, p, 2, sizes, 1, &axis0, sweep_layout(&r, 1), sweep_layout(&r, 0), 0);
        }
        if (width <= 17 && tu_chance(&r, 0.3)) {
            uint32_t sizes[2] = {around_blocks[tu_below(&r, 6)], width};
            run_case(&r, p, 2, sizes, 1, &axis0, sweep_layout(&r, 1), sweep_layout(&r, 0), 0);
        }
    }

    /* wide columns: the order-free kinds take tiles of up to 16 KiB of a row (1024 columns for
     * the canonical sums); widths around both edges and vector widths, odd row counts */
    const uint32_t es = (uint32_t)ref_type_size((dmlcpu_data_type)p->type);
    const uint32_t wide[] = {1023, 1025, 4096 / es + 15, 16384 / es - 1, 16384 / es + 1,
                             16384 / es + 33};
    for (uint32_t i = 0; i < sizeof wide / sizeof wide[0]; i++) {
        /* the reduced set: 1, 3 or 9 rows */
        uint32_t sizes[2] = {(uint32_t[]){1, 3, 9, 17, 34}[tu_below(&r, reduced ? 3 : 5)], wide[i]};
        run_case(&r, p, 2, sizes, 1, &axis0, sweep_layout(&r, 1), sweep_layout(&r, 0), 0);
    }

    /* columns over at least 2 MiB of rows per block (the branch-free column path of ARG*);
     * the reduced set keeps one for the ARGMIN / ARGMAX operators of FLOAT32 and INT8 */
    const int big_columns = !reduced ? 3
                            : p->op != DMLCPU_OPERATOR_REDUCE &&
                                      (p->type == DMLCPU_DATA_TYPE_FLOAT32 || p->type == DMLCPU_DATA_TYPE_INT8)
                                ? 1
                                : 0;
    for (int j = 0; j < big_columns; j++) {
        uint32_t sizes[2] = {4096 + 5 + tu_below(&r, 100), 600 + 17 * (uint32_t)j};
        run_case(&r, p, 2, sizes, 1, &axis0, TU_LAYOUT_PACKED, TU_LAYOUT_PACKED, 0);
    }
#undef SWEEP_SKIPS
}

ParameterizedTestParameters(reduce, sweep)
{
    static reduce_param params[256];
    size_t n = build_params(params);
    return cr_make_param_array(reduce_param, params, n);
}

ParameterizedTest(reduce_param *p, reduce, sweep)
{
    sweep_cases(p);
}

/* ---- short column blocks --------------------------------------------------------------------- */

/* The float sums in the canonical order over columns, for every float type: blocks of at most
 * 4 L rows of an input of at most 1 MiB go through the vector tiers' strip walk (simd/col_short.h:
 * FLOAT32 and FLOAT64), longer blocks and larger inputs through the lane array. Row counts around
 * 4 L (256 FLOAT32 rows, 128 FLOAT64) and around a quad, column counts around a vector, a pass of
 * 8 vectors and its tail, over axis 0 and the middle axis; then the 1 MiB edge (the same block
 * with one column more takes the other path). Each against the scalar oracle's bits. */
static size_t build_canonical_params(reduce_param *p)
{
    static const int fns[] = {DMLCPU_REDUCE_FUNCTION_SUM,        DMLCPU_REDUCE_FUNCTION_AVERAGE,
                              DMLCPU_REDUCE_FUNCTION_L1,         DMLCPU_REDUCE_FUNCTION_L2,
                              DMLCPU_REDUCE_FUNCTION_SUM_SQUARE, DMLCPU_REDUCE_FUNCTION_MULTIPLY,
                              DMLCPU_REDUCE_FUNCTION_LOG_SUM,    DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP};
    static const int types[] = {DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_FLOAT64,
                                DMLCPU_DATA_TYPE_FLOAT16};
    size_t n = 0;
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++)
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
            p[n++] = (reduce_param){DMLCPU_OPERATOR_REDUCE, fns[f], 0, types[t]};
    return n;
}
/* The parameters of a test over build_canonical_params. */
#define CANONICAL_PARAMETERS(NAME)                                                                 \
    ParameterizedTestParameters(reduce, NAME)                                                      \
    {                                                                                              \
        static reduce_param params[32];                                                            \
        size_t n = build_canonical_params(params);                                                 \
        return cr_make_param_array(reduce_param, params, n);                                       \
    }

CANONICAL_PARAMETERS(column_short_blocks)

ParameterizedTest(reduce_param *p, reduce, column_short_blocks)
{
    tu_rng r;
    tu_rng_init(&r, "reduce.column_short_blocks", (uint64_t)p->fn, (uint64_t)p->type);
    const uint32_t lanes = p->type == DMLCPU_DATA_TYPE_FLOAT64 ? 32 : 64;
    const uint32_t rows[] = {1, 2, 3, 4, 5, 7, lanes - 1, lanes, 2 * lanes + 3,
                             4 * lanes - 1, 4 * lanes, 4 * lanes + 1};
    const uint32_t cols[] = {1, 3, 9, 64, 71, 130};
    const int reduced = tu_reduced();
    const uint32_t axis0 = 0, axis1 = 1;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        for (size_t j = 0; j < sizeof cols / sizeof cols[0]; j++) {
            if (reduced && (i + j) % 3)
                continue;
            const uint32_t col[2] = {rows[i], cols[j]}, mid[3] = {2, rows[i], cols[j]};
            run_case(&r, p, 2, col, 1, &axis0, TU_LAYOUT_PACKED, TU_LAYOUT_PACKED, 0);
            run_case(&r, p, 3, mid, 1, &axis1, TU_LAYOUT_PACKED, TU_LAYOUT_PACKED, 0);
        }
    /* the 1 MiB edge: 4 L rows and 1 MiB in all, then one column more */
    const uint32_t es = p->type == DMLCPU_DATA_TYPE_FLOAT64 ? 8 : p->type == DMLCPU_DATA_TYPE_FLOAT16 ? 2 : 4;
    const uint32_t wide = (1u << 20) / es / (4 * lanes);
    for (uint32_t extra = 0; extra < 2; extra++) {
        const uint32_t edge[2] = {4 * lanes, wide + extra};
        run_case(&r, p, 2, edge, 1, &axis0, TU_LAYOUT_PACKED, TU_LAYOUT_PACKED, 0);
    }
}

/* Rows of several whole blocks, which the AVX2 row kernel reads as four streams (a quarter of
 * the whole blocks each), and rows of at least 8 whole chunk groups, which its multi-row kernel
 * reads four sets of 8 (f64: 4) rows at a time: single rows of 4, 5 and 7 blocks and a partial
 * one, of 32, 64 (a row kernel call) and 97 blocks; then 32 to 71 rows of 1 to 10 chunk groups
 * (256, f64: 128 elements; from 8 groups on the four streams) or of a whole block each, and rows
 * of 2 to 33 whole blocks (reduce.c hands rows of up to 32 whole blocks to the multi-row kernel
 * a block at a time); all over the last axis, against the scalar oracle. */
CANONICAL_PARAMETERS(many_block_rows)

ParameterizedTest(reduce_param *p, reduce, many_block_rows)
{
    tu_rng r;
    tu_rng_init(&r, "reduce.many_block_rows", (uint64_t)p->fn, (uint64_t)p->type);
    const uint32_t lanes = p->type == DMLCPU_DATA_TYPE_FLOAT64 ? 32 : 64, block = 64 * lanes;
    const uint32_t group = p->type == DMLCPU_DATA_TYPE_FLOAT64 ? 128 : 256; /* 8 chunks */
    const uint32_t axis1 = 1;
    const uint32_t lengths[] = {4 * block,      5 * block + 3, 7 * block + block - 1, 32 * block,
                                32 * block + 17, 64 * block + block / 2 + 3, 97 * block};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        const uint32_t one[2] = {1, lengths[i]}, two[2] = {2, lengths[i]};
        run_case(&r, p, 2, i % 2 ? two : one, 1, &axis1, TU_LAYOUT_PACKED, TU_LAYOUT_PACKED, 0);
    }
    const uint32_t shapes[][2] = {{32, group},     {33, 8 * group}, {71, 10 * group}, {32, block},
                                  {40, block},     {32, group + 1}, {33, 2 * block},  {70, 3 * block},
                                  {5, 32 * block}, {3, 33 * block}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        run_case(&r, p, 2, shapes[i], 1, &axis1, TU_LAYOUT_PACKED, TU_LAYOUT_PACKED, 0);
    /* rows of whole blocks that do not follow each other: a random input layout */
    const uint32_t spaced[3] = {3, 11, 2 * block}, axis2 = 2;
    run_case(&r, p, 3, spaced, 1, &axis2, -1, TU_LAYOUT_PACKED, 0);
}

/* The x86 column kernels' walks for blocks streamed from memory (simd/col_seq.h: at least 1 MiB
 * read in one call). Contiguous rows of about a kilobyte have their quads read a row at a time
 * (each row whole, the pairs summed in two buffers): AVX2 takes rows of 1 KiB to less than
 * 2 KiB, AVX-512 from 512 bytes. Tiles over more than 256 bytes of each row have quads q and
 * q + L read together and folded in turn. Cases past 1 MiB, each with a partial quad: rows of
 * 512 bytes, of 2 KiB less an AVX2 vector and less an AVX-512 vector, of 1 KiB over more than a
 * block, the middle axis of two slices of 1 KiB rows, and rows of 2 KiB over two rounds of paired
 * quads (16 L + 5 rows); in cache, where the lane loop reads them: 4 rows of 1 KiB (a small
 * operator: the short-block path), 4 L + 3 rows of 1 KiB, 4 L + 1 rows of 1 KiB plus an element.
 * The reduced set (emulators, sanitizers) leaves out the block and shrinks the middle axis. */
CANONICAL_PARAMETERS(column_row_pairs)

ParameterizedTest(reduce_param *p, reduce, column_row_pairs)
{
    tu_rng r;
    tu_rng_init(&r, "reduce.column_row_pairs", (uint64_t)p->fn, (uint64_t)p->type);
    const uint32_t es = p->type == DMLCPU_DATA_TYPE_FLOAT64 ? 8 : p->type == DMLCPU_DATA_TYPE_FLOAT16 ? 2 : 4;
    const uint32_t lanes = es == 8 ? 32 : 64, block = 64 * lanes;
    const uint32_t k1 = 1024 / es, k2 = 2048 / es - 32 / (es == 2 ? 4 : es);
    const uint32_t k3 = 2048 / es - 64 / (es == 2 ? 4 : es), k0 = 512 / es;
    /* rows of k columns past 1 MiB, ending in a partial quad */
#define PAST_1M(k) ((1u << 20) / ((k) * es) + 4 * lanes + 3)
    const uint32_t axis0 = 0, axis1 = 1;
    const uint32_t shapes[][2] = {{4, k1},           {4 * lanes + 3, k1}, {4 * lanes + 1, k1 + 1},
                                  {PAST_1M(k0), k0}, {PAST_1M(k2), k2},   {PAST_1M(k3), k3},
                                  {16 * lanes + 5, 2048 / es},            {block + 7, k1}};
    const int reduced = tu_reduced();
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        if (!reduced || i < 7)
            run_case(&r, p, 2, shapes[i], 1, &axis0, TU_LAYOUT_PACKED, TU_LAYOUT_PACKED, 0);
    const uint32_t mid[3] = {2, reduced ? 2 * lanes + 5 : PAST_1M(k1), k1};
#undef PAST_1M
    run_case(&r, p, 3, mid, 1, &axis1, TU_LAYOUT_PACKED, TU_LAYOUT_PACKED, 0);
}

/* Whole rows of more than 1024 columns back to back, at least 24 MiB in all: the column tile
 * spans the row (DMLCPU_COL_WIDE_TILE). FLOAT32 rows of 1600 columns (a masked last vector) over
 * a block and a partial quad, FLOAT64 over a block and a half, FLOAT16 rows of 4096 columns, the
 * widest tile. The reduced set (emulators, sanitizers) runs SUM and LOG_SUM_EXP only. */
CANONICAL_PARAMETERS(column_wide_rows)

ParameterizedTest(reduce_param *p, reduce, column_wide_rows)
{
    if (tu_reduced() && p->fn != DMLCPU_REDUCE_FUNCTION_SUM &&
        p->fn != DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP)
        return;
    tu_rng r;
    tu_rng_init(&r, "reduce.column_wide_rows", (uint64_t)p->fn, (uint64_t)p->type);
    const uint32_t axis0 = 0;
    const uint32_t shape[2][2] = {{4096 + 7, 1600}, {3 * 1024 + 5, 1040}};
    const uint32_t f16[2] = {4096 + 7, 4096};
    const uint32_t *sizes = p->type == DMLCPU_DATA_TYPE_FLOAT16   ? f16
                            : p->type == DMLCPU_DATA_TYPE_FLOAT64 ? shape[1]
                                                                  : shape[0];
    run_case(&r, p, 2, sizes, 1, &axis0, TU_LAYOUT_PACKED, TU_LAYOUT_PACKED, RC_SCALAR_BITS);
    /* each column its own maximum; 1 thread among the settings: the whole row one tile, whose
     * blocks span several of LOG_SUM_EXP's sub-tiles (simd/lse_col.h) */
    if (p->fn == DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP)
        run_case(&r, p, 2, sizes, 1, &axis0, TU_LAYOUT_PACKED, TU_LAYOUT_PACKED,
                 RC_SCALAR_BITS | RC_PLAIN_DATA | RC_EVERY_THREAD_SETTING);
}

#define DMLCPU_BLOCK_FREE_ELEMS 4096 /* the library's order-free block, DMLCPU_BLOCK_FREE */

/* The order-free kinds over rows of 2 and 3 whole blocks (DMLCPU_BLOCK_FREE elements): these
 * stay on the row kernel, whose ARG* indexes count from the row's start (the multi-row kernels'
 * count from the start of each group they are given, so a block handed over as a group would
 * give an index within the block). */
ParameterizedTestParameters(reduce, free_kinds_block_rows)
{
    static reduce_param params[16];
    static const int types[] = {DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_FLOAT16,
                                DMLCPU_DATA_TYPE_INT32, DMLCPU_DATA_TYPE_UINT8};
    size_t n = 0;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        params[n++] = (reduce_param){DMLCPU_OPERATOR_ARGMAX, 0, DMLCPU_AXIS_DIRECTION_INCREASING, types[t]};
        params[n++] = (reduce_param){DMLCPU_OPERATOR_ARGMIN, 0, DMLCPU_AXIS_DIRECTION_DECREASING, types[t]};
        params[n++] = (reduce_param){DMLCPU_OPERATOR_REDUCE, DMLCPU_REDUCE_FUNCTION_MAX, 0, types[t]};
    }
    params[n++] = (reduce_param){DMLCPU_OPERATOR_REDUCE, DMLCPU_REDUCE_FUNCTION_SUM, 0, DMLCPU_DATA_TYPE_INT32};
    return cr_make_param_array(reduce_param, params, n);
}

ParameterizedTest(reduce_param *p, reduce, free_kinds_block_rows)
{
    tu_rng r;
    tu_rng_init(&r, "reduce.free_kinds_block_rows", (uint64_t)p->op * 64 + (uint64_t)p->fn,
                (uint64_t)p->type);
    const uint32_t axis1 = 1;
    const uint32_t shapes[][2] = {{33, 2 * DMLCPU_BLOCK_FREE_ELEMS}, {5, 3 * DMLCPU_BLOCK_FREE_ELEMS},
                                  {2, 2 * DMLCPU_BLOCK_FREE_ELEMS}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        run_case(&r, p, 2, shapes[i], 1, &axis1, TU_LAYOUT_PACKED, TU_LAYOUT_PACKED, 0);
}

/* Row sums of operators that read 24 MiB or more take the stream forms of the row kernels
 * (kernels.h, DMLCPU_ROW_STREAM_BYTES), at every level that has them: rows of many blocks (the
 * row kernel; AVX2's reads four blocks at a time), rows of one or two blocks (the multi-row
 * kernel where the row is one block) and both axes, each against the oracle's bits, for every
 * float function (LOG_SUM_EXP has no stream forms: its row kernel prefetches the next block). */
CANONICAL_PARAMETERS(row_stream)

ParameterizedTest(reduce_param *p, reduce, row_stream)
{
    if (tu_reduced() && p->fn != DMLCPU_REDUCE_FUNCTION_SUM)
        return;
    tu_rng r;
    tu_rng_init(&r, "reduce.row_stream", (uint64_t)p->fn, (uint64_t)p->type);
    const uint32_t es = (uint32_t)ref_type_size((dmlcpu_data_type)p->type);
    /* 26.4 MB each: above the 24 MiB (25.2 MB) of DMLCPU_ROW_STREAM_BYTES */
    const uint32_t many[2] = {1600 / es, 16500}, few[2] = {8800 / es, 3000};
    const uint32_t axis1 = 1, both[2] = {0, 1};
    run_case(&r, p, 2, many, 1, &axis1, TU_LAYOUT_PACKED, TU_LAYOUT_PACKED, 0);
    run_case(&r, p, 2, few, 1, &axis1, TU_LAYOUT_PACKED, TU_LAYOUT_PACKED, 0);
    run_case(&r, p, 2, many, 2, both, TU_LAYOUT_PACKED, TU_LAYOUT_PACKED, 0);
}

/* ARGMAX and ARGMIN (decreasing) over axis 0 of float matrices whose rows of 2 to 16 KiB lie
 * back to back, 16 MiB or more in all, at every thread setting: on one thread the column walk
 * reads each group's rows one after the other (COL_ARG_SEQ over wide rows); tasks of fewer rows
 * take the interleaved walk. FLOAT32 and INT32 [1100, 3900] (rows of 15600 bytes, a masked last
 * vector), FLOAT64 and UINT64 [1100, 1950]. FLOAT16 [1100, 3900] takes the interleaved walk,
 * whose split plans leave the rescan of each group to the caller. */
ParameterizedTestParameters(reduce, column_arg_wide_rows)
{
    static reduce_param params[10];
    static const int types[] = {DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_FLOAT64,
                                DMLCPU_DATA_TYPE_INT32, DMLCPU_DATA_TYPE_UINT64,
                                DMLCPU_DATA_TYPE_FLOAT16};
    size_t n = 0;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        params[n++] = (reduce_param){DMLCPU_OPERATOR_ARGMAX, 0, DMLCPU_AXIS_DIRECTION_INCREASING, types[t]};
        params[n++] = (reduce_param){DMLCPU_OPERATOR_ARGMIN, 0, DMLCPU_AXIS_DIRECTION_DECREASING, types[t]};
    }
    return cr_make_param_array(reduce_param, params, n);
}

ParameterizedTest(reduce_param *p, reduce, column_arg_wide_rows)
{
    if (tu_reduced() && p->op == DMLCPU_OPERATOR_ARGMIN)
        return;
    tu_rng r;
    tu_rng_init(&r, "reduce.column_arg_wide_rows", (uint64_t)p->op, (uint64_t)p->type);
    const uint32_t axis0 = 0;
    const uint32_t f32[2] = {1100, 3900}, f64[2] = {1100, 1950};
    /* every thread setting (1 thread takes the wide walk), three draws of data (a NaN sends a
     * tile to the exact row replay instead) */
    for (int k = 0; k < 3; k++)
        run_case(&r, p, 2, ref_type_size(p->type) == 8 ? f64 : f32, 1, &axis0,
                 TU_LAYOUT_PACKED, TU_LAYOUT_PACKED, RC_EVERY_THREAD_SETTING);
}

/* ARGMAX and ARGMIN over axis 0 of matrices of 24 MiB or more with rows of 15600 bytes back to
 * back (FLOAT32, INT32, FLOAT64, INT64, FLOAT16, INT16): random values with many ties (integers
 * below 1000), then a stretch of rows where every column rises (falls, for ARGMIN) from row to
 * row, then values below the best again with ties to it here and there. The AVX-512 walk over wide rows (COL_ARG_SEQ_WIDE) compares each row
 * with the best where few vectors take a new one, and takes a group's extremes where most do;
 * the stretch sends it from the first way to the second and back. It runs on one thread's
 * whole matrix and, the operator being streamed (DMLCPU_COL_STREAM), on the row ranges of split
 * plans. Both axis directions (ties go to the first or the last row), every level, 1, 2 and 7
 * threads and the reversed host pool. */
static void store_value(dmlcpu_data_type t, void *p, double v)
{
    if (t == DMLCPU_DATA_TYPE_INT16) {
        const int16_t x = (int16_t)v;
        memcpy(p, &x, sizeof x);
    } else if (t == DMLCPU_DATA_TYPE_INT32) {
        const int32_t x = (int32_t)v;
        memcpy(p, &x, sizeof x);
    } else if (t == DMLCPU_DATA_TYPE_INT64) {
        const int64_t x = (int64_t)v;
        memcpy(p, &x, sizeof x);
    } else {
        tu_store_float(t, p, v);
    }
}

Test(reduce, column_arg_rising_stretch)
{
    static const struct {
        dmlcpu_data_type type;
        uint32_t cols;
    } cases[] = {{DMLCPU_DATA_TYPE_FLOAT32, 3900}, {DMLCPU_DATA_TYPE_INT32, 3900},
                 {DMLCPU_DATA_TYPE_FLOAT64, 1950}, {DMLCPU_DATA_TYPE_INT64, 1950},
                 {DMLCPU_DATA_TYPE_FLOAT16, 7800}, {DMLCPU_DATA_TYPE_INT16, 7800}};
    const uint32_t rows = 1700, lo = 600, hi = 1100;
    tu_rng r;
    tu_rng_init(&r, "reduce.column_arg_rising_stretch", 0, 0);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int is_max = 0; is_max < 2; is_max++)
            for (int dir = 0; dir < 2; dir++) {
                if (tu_reduced() && dir != is_max)
                    continue;
                const dmlcpu_data_type type = cases[c].type;
                const uint32_t cols = cases[c].cols;
                const uint32_t sizes[2] = {rows, cols}, osizes[2] = {1, cols}, axis = 0;
                const size_t es = ref_type_size(type);
                tu_tensor in, out;
                tu_tensor_init(&in, type, 2, sizes);
                tu_tensor_init(&out, DMLCPU_DATA_TYPE_INT64, 2, osizes);
                const size_t in_bytes = (size_t)tu_binding_bytes(&in);
                const size_t out_bytes = (size_t)tu_binding_bytes(&out);
                tu_buffer ib, ob;
                unsigned char *x = tu_buffer_alloc(&ib, in_bytes, es, 0);
                void *y = tu_buffer_alloc(&ob, out_bytes, 8, 0);
                void *expected = malloc(out_bytes);
                cr_assert(expected);
                const double sign = is_max ? 1.0 : -1.0, best = 1000.0 + (hi - 1 - lo);
                size_t ties = 0;
                for (uint32_t i = 0; i < rows; i++)
                    for (uint32_t k = 0; k < cols; k++) {
                        double v = i >= lo && i < hi ? 1000.0 + (i - lo) : (double)tu_below(&r, 1000);
                        if (i >= hi && tu_below(&r, 1024) == 0) {
                            v = best;
                            ties++;
                        }
                        store_value(type, x + ((size_t)i * cols + k) * es, sign * v);
                    }
                cr_assert(ties > 0);
                memset(expected, 0xa5, out_bytes);
                dmlcpu_tensor_desc idesc = tu_desc(&in), odesc = tu_desc(&out);
                dmlcpu_argmin_operator_desc ad = {&idesc, &odesc, 1, &axis,
                                                  dir ? DMLCPU_AXIS_DIRECTION_DECREASING
                                                      : DMLCPU_AXIS_DIRECTION_INCREASING};
                dmlcpu_operator_desc desc = {is_max ? DMLCPU_OPERATOR_ARGMAX : DMLCPU_OPERATOR_ARGMIN,
                                             &ad};
                cr_assert_eq(ref_arg(&ad, is_max, x, expected), DMLCPU_STATUS_OK);
                static const uint32_t settings[] = {1, 2, 7, TU_HOST_POOL};
                for (uint32_t lv = 0; lv < tu_level_count(); lv++) {
                    const char *level = tu_level_select(lv);
                    for (size_t t = 0; t < sizeof settings / sizeof settings[0]; t++) {
                        char what[200];
                        snprintf(what, sizeof what, "%s %s [%" PRIu32 ", %" PRIu32 "] over axis 0, %s, %s%s%s",
                                 is_max ? "ARGMAX" : "ARGMIN", tu_type_name(type), rows, cols,
                                 dir ? "DECREASING" : "INCREASING", tu_threads_name(settings[t]),
                                 *level ? ", level " : "", level);
                        memset(y, 0xa5, out_bytes);
                        dmlcpu_buffer_binding bi = {x, in_bytes}, bo = {y, out_bytes};
                        tu_run(&desc, settings[t], &bi, 1, &bo, 1, what);
                        char msg[512];
                        cr_assert(tu_compare(&out, y, expected, TU_CMP_BITS, NULL, msg, sizeof msg),
                                  "%s: %s", what, msg);
                    }
                }
                free(expected);
                tu_buffer_free(&ib);
                tu_buffer_free(&ob);
            }
}

/* MAX and MIN over axis 0 of float matrices whose rows of 2 to 16 KiB lie back to back, 24 MiB
 * or more in all, at every thread setting: on one thread the AVX-512 column fold reads each row
 * whole, in turn (COL_FRANGE_SEQ), and a NaN sends the tile to the exact fold; tasks of fewer
 * rows take the group walk. FLOAT32 [1700, 3900] (rows of 15600 bytes, a masked last vector),
 * FLOAT64 [1700, 1950], FLOAT16 [3300, 3900] (FLOAT32 running values of 15600 bytes). FLOAT16
 * also over rows of 2000 bytes, 26.4 MB: axis 0 of [13200, 1000] and the middle axis of
 * [3, 4400, 1000], which take the group walk that prefetches every line of its rows (the plan's
 * DMLCPU_COL_STREAM, rows of at most COL_FRANGE_PF_ROW bytes). */
ParameterizedTestParameters(reduce, column_minmax_wide_rows)
{
    static reduce_param params[6];
    static const int types[] = {DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_FLOAT64,
                                DMLCPU_DATA_TYPE_FLOAT16};
    size_t n = 0;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        params[n++] = (reduce_param){DMLCPU_OPERATOR_REDUCE, DMLCPU_REDUCE_FUNCTION_MAX, 0, types[t]};
        params[n++] = (reduce_param){DMLCPU_OPERATOR_REDUCE, DMLCPU_REDUCE_FUNCTION_MIN, 0, types[t]};
    }
    return cr_make_param_array(reduce_param, params, n);
}

ParameterizedTest(reduce_param *p, reduce, column_minmax_wide_rows)
{
    if (tu_reduced() && p->fn == DMLCPU_REDUCE_FUNCTION_MIN)
        return;
    tu_rng r;
    tu_rng_init(&r, "reduce.column_minmax_wide_rows", (uint64_t)p->fn, (uint64_t)p->type);
    const uint32_t axis0 = 0;
    const uint32_t f32[2] = {1700, 3900}, f64[2] = {1700, 1950}, f16[2] = {3300, 3900};
    const uint32_t *sizes = p->type == DMLCPU_DATA_TYPE_FLOAT64   ? f64
                            : p->type == DMLCPU_DATA_TYPE_FLOAT16 ? f16
                                                                  : f32;
    /* three draws of data: plain values, or specials (NaN, infinities, signed zeros) */
    for (int k = 0; k < 3; k++)
        run_case(&r, p, 2, sizes, 1, &axis0, TU_LAYOUT_PACKED, TU_LAYOUT_PACKED,
                 RC_EVERY_THREAD_SETTING);
    if (p->type == DMLCPU_DATA_TYPE_FLOAT16) {
        const uint32_t short_rows[2] = {13200, 1000}, middle[3] = {3, 4400, 1000}, axis1 = 1;
        for (int k = 0; k < 2; k++) {
            run_case(&r, p, 2, short_rows, 1, &axis0, TU_LAYOUT_PACKED, TU_LAYOUT_PACKED,
                     RC_EVERY_THREAD_SETTING);
            run_case(&r, p, 3, middle, 1, &axis1, TU_LAYOUT_PACKED, TU_LAYOUT_PACKED,
                     RC_EVERY_THREAD_SETTING);
        }
    }
}

/* LOG_SUM_EXP over axis 0 where each column's maximum is far above its other elements (so a
 * maximum taken without it overflows the exp) and lies in the last row (a partial quad), the
 * first row or the middle row, in turn by column. The tiles are several vector sub-tiles wide,
 * whose maxima are read while the previous sub-tile's sums run (simd/lse_col.h); some shapes
 * end in a masked vector. One thread and the reversed host pool, every level. */
Test(reduce, lse_column_maxima_anywhere)
{
    static const struct {
        dmlcpu_data_type type;
        uint32_t rows, cols;
        double big;
    } cases[] = {{DMLCPU_DATA_TYPE_FLOAT32, 1029, 512, 200},  {DMLCPU_DATA_TYPE_FLOAT32, 1030, 520, 200},
                 {DMLCPU_DATA_TYPE_FLOAT16, 1029, 1024, 200}, {DMLCPU_DATA_TYPE_FLOAT16, 2051, 300, 200},
                 {DMLCPU_DATA_TYPE_FLOAT64, 659, 248, 1000},  {DMLCPU_DATA_TYPE_FLOAT64, 658, 250, 1000}};
    tu_rng r;
    tu_rng_init(&r, "reduce.lse_column_maxima_anywhere", 0, 0);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const dmlcpu_data_type type = cases[c].type;
        const uint32_t rows = cases[c].rows, cols = cases[c].cols;
        const uint32_t sizes[2] = {rows, cols}, osizes[2] = {1, cols}, axis = 0;
        const size_t es = ref_type_size(type);
        tu_tensor in, out;
        tu_tensor_init(&in, type, 2, sizes);
        tu_tensor_init(&out, type, 2, osizes);
        const size_t in_bytes = (size_t)tu_binding_bytes(&in), out_bytes = (size_t)tu_binding_bytes(&out);
        tu_buffer ib, ob;
        unsigned char *x = tu_buffer_alloc(&ib, in_bytes, es, 0);
        void *y = tu_buffer_alloc(&ob, out_bytes, es, 0);
        void *expected = malloc(out_bytes);
        double *scale = malloc(cols * sizeof(double));
        cr_assert(expected && scale);
        for (size_t i = 0; i < (size_t)rows * cols; i++)
            tu_store_float(type, x + i * es, -4.0 * tu_uniform(&r));
        for (uint32_t k = 0; k < cols; k++) {
            const uint32_t row = k % 3 == 0 ? rows - 1 : k % 3 == 1 ? 0 : rows / 2;
            tu_store_float(type, x + ((size_t)row * cols + k) * es, cases[c].big + k % 7);
        }
        memset(expected, 0xa5, out_bytes);
        dmlcpu_tensor_desc idesc = tu_desc(&in), odesc = tu_desc(&out);
        dmlcpu_reduce_operator_desc rd = {DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP, &idesc, &odesc, 1, &axis};
        dmlcpu_operator_desc desc = {DMLCPU_OPERATOR_REDUCE, &rd};
        cr_assert_eq(ref_reduce(&rd, x, expected, scale), DMLCPU_STATUS_OK);
        static const uint32_t settings[] = {1, TU_HOST_POOL};
        for (uint32_t lv = 0; lv < tu_level_count(); lv++) {
            const char *level = tu_level_select(lv);
            for (size_t t = 0; t < 2; t++) {
                char what[200];
                snprintf(what, sizeof what, "LOG_SUM_EXP %s [%" PRIu32 ", %" PRIu32 "] over axis 0, %s%s%s",
                         tu_type_name(type), rows, cols, tu_threads_name(settings[t]),
                         *level ? ", level " : "", level);
                memset(y, 0xa5, out_bytes);
                dmlcpu_buffer_binding bi = {x, in_bytes}, bo = {y, out_bytes};
                tu_run(&desc, settings[t], &bi, 1, &bo, 1, what);
                char msg[512];
                cr_assert(tu_compare(&out, y, expected, TU_CMP_LOG, scale, msg, sizeof msg), "%s: %s",
                          what, msg);
            }
        }
        free(expected);
        free(scale);
        tu_buffer_free(&ib);
        tu_buffer_free(&ob);
    }
}

/* ---- signed zeros -------------------------------------------------------------------------- */

/* Groups made only of -0 (or only of +0): the canonical order starts every lane at +0, so SUM
 * and AVERAGE give +0 for any length; MIN, MAX and MULTIPLY keep signs. Exact bits. */
Test(reduce, signed_zero_groups)
{
    static const dmlcpu_data_type types[] = {DMLCPU_DATA_TYPE_FLOAT16, DMLCPU_DATA_TYPE_FLOAT32,
                                             DMLCPU_DATA_TYPE_FLOAT64};
    static const dmlcpu_reduce_function fns[] = {
        DMLCPU_REDUCE_FUNCTION_SUM,      DMLCPU_REDUCE_FUNCTION_AVERAGE, DMLCPU_REDUCE_FUNCTION_L1,
        DMLCPU_REDUCE_FUNCTION_MULTIPLY, DMLCPU_REDUCE_FUNCTION_MIN,     DMLCPU_REDUCE_FUNCTION_MAX,
        DMLCPU_REDUCE_FUNCTION_SUM_SQUARE, DMLCPU_REDUCE_FUNCTION_L2};
    static const uint32_t lengths[] = {1, 2, 3, 4, 5, 255, 256, 257, 2048, 4096, 4097, 8193};
    for (size_t t = 0; t < 3; t++)
        for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++)
            for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
                for (int negative = 0; negative < 2; negative++)
                    for (int column = 0; column < 3; column++) {
                        const dmlcpu_data_type type = types[t];
                        const size_t es = ref_type_size(type);
                        /* rows: [2, n] over axis 1; columns: [n, 3] and [n, 40] over axis 0 */
                        const uint32_t n = lengths[l], width = column == 2 ? 40 : 3;
                        const uint32_t sizes[2] = {column ? n : 2, column ? width : n};
                        const uint32_t osizes[2] = {column ? 1 : 2, column ? width : 1};
                        const uint32_t axis = column ? 0 : 1;
                        tu_tensor in, out;
                        tu_tensor_init(&in, type, 2, sizes);
                        tu_tensor_init(&out, type, 2, osizes);
                        const size_t in_bytes = (size_t)tu_binding_bytes(&in);
                        const size_t out_bytes = (size_t)tu_binding_bytes(&out);
                        tu_buffer ib, ob;
                        unsigned char *x = tu_buffer_alloc(&ib, in_bytes, es, 0);
                        void *y = tu_buffer_alloc(&ob, out_bytes, es, 0);
                        void *expected = malloc(out_bytes);
                        cr_assert_not_null(expected);
                        for (size_t i = 0; i < in_bytes / es; i++)
                            tu_store_float(type, x + i * es, negative ? -0.0 : 0.0);
                        memset(y, 0xa5, out_bytes);
                        memcpy(expected, y, out_bytes);
                        dmlcpu_tensor_desc idesc = tu_desc(&in), odesc = tu_desc(&out);
                        dmlcpu_reduce_operator_desc rd = {fns[f], &idesc, &odesc, 1, &axis};
                        dmlcpu_operator_desc desc = {DMLCPU_OPERATOR_REDUCE, &rd};
                        char what[160];
                        snprintf(what, sizeof what, "%s %s of %" PRIu32 " x %s0 (%s)",
                                 tu_function_name(fns[f]), tu_type_name(type), n,
                                 negative ? "-" : "+", column ? "columns" : "rows");
                        dmlcpu_buffer_binding bi = {x, in_bytes}, bo = {y, out_bytes};
                        cr_assert_eq(ref_reduce(&rd, x, expected, NULL), DMLCPU_STATUS_OK);
                        for (uint32_t lv = 0; lv < tu_level_count(); lv++) {
                            const char *level = tu_level_select(lv);
                            char full[200];
                            snprintf(full, sizeof full, "%s%s%s", what, *level ? ", level " : "",
                                     level);
                            memset(y, 0xa5, out_bytes);
                            tu_run(&desc, 1, &bi, 1, &bo, 1, full);
                            char msg[512];
                            cr_assert(tu_compare(&out, y, expected, TU_CMP_BITS, NULL, msg,
                                                 sizeof msg),
                                      "%s: %s", full, msg);
                        }
                        free(expected);
                        tu_buffer_free(&ib);
                        tu_buffer_free(&ob);
                    }
}

/* ---- large problems: every thread setting ------------------------------------------------- */

/* Problems large enough to be split over threads (over outputs, and over the reduced dimension
 * in whole canonical blocks): every thread cap and a host pool that runs the tasks in reverse
 * order must give the oracle's bits. Float types and INT32 only, to keep the time down. */
ParameterizedTestParameters(reduce, threads)
{
    /* the reduced set: FLOAT32 only (every function), three shapes */
    static reduce_param params[256], chosen[256];
    size_t n = build_params(params), m = 0;
    const int reduced = tu_reduced();
    for (size_t i = 0; i < n; i++)
        if (reduced ? params[i].type == DMLCPU_DATA_TYPE_FLOAT32
                    : ref_type_is_float((dmlcpu_data_type)params[i].type) ||
                          params[i].type == DMLCPU_DATA_TYPE_INT32)
            chosen[m++] = params[i];
    return cr_make_param_array(reduce_param, chosen, m);
}

ParameterizedTest(reduce_param *p, reduce, threads)
{
    tu_rng r;
    tu_rng_init(&r, "reduce.threads", (uint64_t)(p->op * 100 + p->fn), (uint64_t)(p->dir * 100 + p->type));
    static const struct {
        uint32_t rank, sizes[3], axis_count, axes[2];
    } shapes[] = {
        {2, {16, 40000}, 1, {1}},      /* rows of ~10 blocks */
        {2, {40000, 16}, 1, {0}},      /* narrow columns */
        {1, {300007}, 1, {0}},         /* one group of many blocks */
        {3, {5, 30000, 4}, 1, {1}},    /* middle axis */
        {3, {3, 200, 1000}, 2, {0, 2}}, /* non-adjacent axes */
        {2, {100000, 3}, 1, {1}},       /* many tiny rows */
        {2, {301, 9000}, 1, {0}}        /* wide columns: tiles narrowed for threads */
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        if (!tu_reduced() || s == 0 || s == 1 || s == 6)
            run_case(&r, p, shapes[s].rank, shapes[s].sizes, shapes[s].axis_count, shapes[s].axes,
                     TU_LAYOUT_PACKED, TU_LAYOUT_PACKED, RC_EVERY_THREAD_SETTING);
}

/* ---- indices beyond 2^24 ------------------------------------------------------------------ */

/* Groups longer than 2^24: an index kept in FLOAT32 lanes would round. All-equal data (the tie
 * goes to the last index DECREASING, the first INCREASING) and a unique extreme at the odd
 * index 2^24 + 1. */
Test(reduce, index_beyond_2p24)
{
    static const dmlcpu_data_type types[] = {DMLCPU_DATA_TYPE_INT8, DMLCPU_DATA_TYPE_FLOAT16,
                                             DMLCPU_DATA_TYPE_FLOAT32};
    const uint32_t n = (1u << 24) + 3, one = 1, axis = 0, special = (1u << 24) + 1;
    for (size_t t = 0; t < 3; t++) {
        const dmlcpu_data_type type = types[t];
        const size_t es = ref_type_size(type);
        tu_buffer ib, ob;
        unsigned char *x = tu_buffer_alloc(&ib, ((size_t)n * es + 3) / 4 * 4, es, 0);
        uint64_t *y = tu_buffer_alloc(&ob, 8, 8, 0);
        for (int is_max = 0; is_max < 2; is_max++)
            for (int unique = 0; unique < 2; unique++)
                for (int dir = 0; dir < 2; dir++) {
                    /* zeros everywhere; the unique extreme is +-1 */
                    memset(x, 0, (size_t)n * es);
                    if (unique) {
                        if (ref_type_is_float(type))
                            tu_store_float(type, x + (size_t)special * es, is_max ? 1.0 : -1.0);
                        else
                            x[special] = (unsigned char)(is_max ? 1 : 0xff);
                    }
                    dmlcpu_tensor_desc in = {type, 1, &n, NULL, 0};
                    dmlcpu_tensor_desc out = {DMLCPU_DATA_TYPE_UINT64, 1, &one, NULL, 0};
                    dmlcpu_argmin_operator_desc ad = {&in, &out, 1, &axis,
                                                      (dmlcpu_axis_direction)dir};
                    dmlcpu_operator_desc desc = {is_max ? DMLCPU_OPERATOR_ARGMAX
                                                        : DMLCPU_OPERATOR_ARGMIN,
                                                 &ad};
                    char what[128];
                    snprintf(what, sizeof what, "%s %s %s over %" PRIu32 " %s",
                             is_max ? "ARGMAX" : "ARGMIN", dir ? "DECREASING" : "INCREASING",
                             unique ? "with one extreme" : "all equal", n, tu_type_name(type));
                    dmlcpu_buffer_binding bi = {x, ib.size}, bo = {y, 8};
                    const uint64_t expected = unique ? special : dir ? n - 1 : 0;
                    for (uint32_t lv = 0; lv < tu_level_count(); lv++) {
                        const char *level = tu_level_select(lv);
                        *y = UINT64_MAX;
                        tu_run(&desc, 0, &bi, 1, &bo, 1, what);
                        cr_assert_eq(*y, expected, "%s%s%s: got %" PRIu64 ", expected %" PRIu64,
                                     what, *level ? ", level " : "", level, *y, expected);
                    }
                }
        tu_buffer_free(&ib);
        tu_buffer_free(&ob);
    }
}
