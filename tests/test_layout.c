/*
 * Layout independence (SPEC 4): the same logical tensor, given packed, with explicit packed
 * strides, padded, transposed (permuted strides, with and without gaps) or as a broadcast
 * (stride 0) of a smaller tensor, reduces to the same bits, for every REDUCE function, ARGMIN
 * and ARGMAX, on every float type, over several axis sets; output layouts, pointer alignments
 * and thread counts vary too. The packed result is also checked against the oracle.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "testutil.h"

typedef struct {
    int op;   /* DMLCPU_OPERATOR_REDUCE, _ARGMIN or _ARGMAX */
    int fn;   /* REDUCE function */
    int dir;  /* direction of ARGMIN / ARGMAX */
    int type; /* float input type */
} layout_param;

static dmlcpu_reduce_function effective_fn(const layout_param *p)
{
    if (p->op == DMLCPU_OPERATOR_ARGMIN)
        return DMLCPU_REDUCE_FUNCTION_ARGMIN;
    if (p->op == DMLCPU_OPERATOR_ARGMAX)
        return DMLCPU_REDUCE_FUNCTION_ARGMAX;
    return (dmlcpu_reduce_function)p->fn;
}

static int is_arg_fn(dmlcpu_reduce_function fn)
{
    return fn == DMLCPU_REDUCE_FUNCTION_ARGMAX || fn == DMLCPU_REDUCE_FUNCTION_ARGMIN;
}

static void append(char *buf, size_t len, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, n < len ? len - n : 0, fmt, ap);
    va_end(ap);
}

/* Writes the packed (row-major) elements into the layout of t, or reads them back. */
static void scatter(const tu_tensor *t, void *buf, const void *packed)
{
    const dmlcpu_tensor_desc d = tu_desc(t);
    const size_t es = ref_type_size(t->type);
    uint32_t c[8] = {0};
    size_t k = 0;
    do
        memcpy((unsigned char *)buf + ref_offset(&d, c) * es, (const unsigned char *)packed + k++ * es, es);
    while (ref_next_coord(c, t->sizes, t->rank));
}

static void gather(const tu_tensor *t, const void *buf, void *packed)
{
    const dmlcpu_tensor_desc d = tu_desc(t);
    const size_t es = ref_type_size(t->type);
    uint32_t c[8] = {0};
    size_t k = 0;
    do
        memcpy((unsigned char *)packed + k++ * es, (const unsigned char *)buf + ref_offset(&d, c) * es, es);
    while (ref_next_coord(c, t->sizes, t->rank));
}

typedef struct {
    const layout_param *p;
    dmlcpu_data_type out_type;
    uint32_t axis_count;
    uint32_t axes[8];
    uint32_t rank;
    uint32_t sizes[8];  /* input */
    uint32_t osizes[8]; /* output */
} layout_case;

/* Runs the library on input layout `in` holding the logical tensor `logical` (packed bytes;
 * the gaps of the layout hold random specials), output in layout `out_layout`; returns the
 * result as packed output elements in result. */
static void run_layout(tu_rng *r, const layout_case *lc, tu_tensor *in, const void *compact,
                       const tu_tensor *compact_t, int out_layout, void *result, const char *label)
{
    const layout_param *p = lc->p;
    const dmlcpu_data_type it = (dmlcpu_data_type)p->type;
    const size_t ies = ref_type_size(it), oes = ref_type_size(lc->out_type);
    tu_tensor out;
    tu_tensor_init(&out, lc->out_type, lc->rank, lc->osizes);
    tu_tensor_layout(&out, r, (tu_layout)out_layout, NULL);
    tu_tensor_random_declared_size(in, r);

    const size_t in_bytes = (size_t)tu_binding_bytes(in), out_bytes = (size_t)tu_binding_bytes(&out);
    tu_buffer ib, ob;
    void *in_data = tu_buffer_alloc(&ib, in_bytes, ies, tu_below(r, 4));
    void *out_data = tu_buffer_alloc(&ob, out_bytes, oes, tu_below(r, 4));
    tu_fill(r, it, in_data, in_bytes / ies, TU_DATA_SPECIAL, 1.0); /* gaps: NaN, inf, huge */
    scatter(compact_t, in_data, compact);
    memset(out_data, 0xa5, out_bytes);

    char what[1024];
    const uint32_t threads = tu_random_threads(r);
    snprintf(what, sizeof what, "seed %#" PRIx64 ": %s %s%s, %s input ", tu_rng_seed_value(r),
             p->op == DMLCPU_OPERATOR_REDUCE ? "REDUCE" : "", tu_function_name(effective_fn(p)),
             p->op == DMLCPU_OPERATOR_REDUCE ? "" : p->dir ? " DECREASING" : " INCREASING", label);
    tu_describe_tensor(what, sizeof what, in);
    append(what, sizeof what, " output ");
    tu_describe_tensor(what, sizeof what, &out);
    append(what, sizeof what, " axes {");
    for (uint32_t a = 0; a < lc->axis_count; a++)
        append(what, sizeof what, "%s%" PRIu32, a ? "," : "", lc->axes[a]);
    append(what, sizeof what, "} %s", tu_threads_name(threads));

    dmlcpu_tensor_desc idesc = tu_desc(in), odesc = tu_desc(&out);
    dmlcpu_reduce_operator_desc rd = {effective_fn(p), &idesc, &odesc, lc->axis_count, lc->axes};
    dmlcpu_argmin_operator_desc ad = {&idesc, &odesc, lc->axis_count, lc->axes,
                                      (dmlcpu_axis_direction)p->dir};
    dmlcpu_operator_desc desc = {(dmlcpu_operator_type)p->op,
                                 p->op == DMLCPU_OPERATOR_REDUCE ? (const void *)&rd : (const void *)&ad};
    dmlcpu_buffer_binding bi = {in_data, in_bytes}, bo = {out_data, out_bytes};
    tu_run(&desc, threads, &bi, 1, &bo, 1, what);
    gather(&out, out_data, result);
    tu_buffer_free(&ib);
    tu_buffer_free(&ob);
}

static void compare_packed(const layout_case *lc, const void *got, const void *expected,
                           const char *label)
{
    tu_tensor packed;
    tu_tensor_init(&packed, lc->out_type, lc->rank, lc->osizes);
    char msg[512], axes[64] = "";
    for (uint32_t a = 0; a < lc->axis_count; a++)
        append(axes, sizeof axes, "%s%" PRIu32, a ? "," : "", lc->axes[a]);
    int same = tu_compare(&packed, got, expected, TU_CMP_NAN_EQUAL, NULL, msg, sizeof msg);
    cr_assert(same, "%s %s axes {%s}: %s input differs from packed input: %s",
              tu_type_name((dmlcpu_data_type)lc->p->type), tu_function_name(effective_fn(lc->p)),
              axes, label, msg);
}

static void choose_data(tu_rng *r, dmlcpu_reduce_function fn, uint64_t n, tu_data_kind *kind,
                        double *poison)
{
    *poison = 0;
    if (fn == DMLCPU_REDUCE_FUNCTION_LOG_SUM)
        *kind = TU_DATA_POSITIVE;
    else if (fn == DMLCPU_REDUCE_FUNCTION_MULTIPLY)
        *kind = TU_DATA_NEAR_ONE;
    else if (tu_chance(r, 0.3))
        *kind = TU_DATA_PLAIN;
    else {
        *kind = TU_DATA_SPECIAL;
        *poison = 0.5 / (double)n;
    }
}

static void check_axis_set(tu_rng *r, layout_case *lc)
{
    const dmlcpu_reduce_function fn = effective_fn(lc->p);
    const dmlcpu_data_type it = (dmlcpu_data_type)lc->p->type;
    const size_t ies = ref_type_size(it), oes = ref_type_size(lc->out_type);
    uint64_t n = 1, total = 1, outputs = 1;
    memcpy(lc->osizes, lc->sizes, sizeof lc->osizes);
    for (uint32_t a = 0; a < lc->axis_count; a++) {
        n *= lc->sizes[lc->axes[a]];
        lc->osizes[lc->axes[a]] = 1;
    }
    for (uint32_t d = 0; d < lc->rank; d++) {
        total *= lc->sizes[d];
        outputs *= lc->osizes[d];
    }
    tu_data_kind kind;
    double poison;
    choose_data(r, fn, n, &kind, &poison);

    unsigned char *logical = malloc(total * ies);
    unsigned char *base = malloc(outputs * oes), *got = malloc(outputs * oes);
    unsigned char *expected = malloc(outputs * oes);
    double *scale = malloc(outputs * sizeof(double));
    cr_assert(logical && base && got && expected && scale);
    tu_fill(r, it, logical, total, kind, poison);

    tu_tensor packed;
    tu_tensor_init(&packed, it, lc->rank, lc->sizes);

    /* the reference point: packed input (strides NULL), packed output; checked by the oracle */
    tu_tensor in = packed;
    run_layout(r, lc, &in, logical, &packed, TU_LAYOUT_PACKED, base, "packed");
    {
        tu_tensor out;
        tu_tensor_init(&out, lc->out_type, lc->rank, lc->osizes);
        dmlcpu_tensor_desc idesc = tu_desc(&packed), odesc = tu_desc(&out);
        dmlcpu_status st;
        if (lc->p->op == DMLCPU_OPERATOR_REDUCE) {
            dmlcpu_reduce_operator_desc rd = {fn, &idesc, &odesc, lc->axis_count, lc->axes};
            st = ref_reduce(&rd, logical, expected, scale);
        } else {
            dmlcpu_argmin_operator_desc ad = {&idesc, &odesc, lc->axis_count, lc->axes,
                                              (dmlcpu_axis_direction)lc->p->dir};
            st = ref_arg(&ad, lc->p->op == DMLCPU_OPERATOR_ARGMAX, logical, expected);
        }
        cr_assert_eq(st, DMLCPU_STATUS_OK);
        char msg[512];
        const tu_cmp_mode mode = fn == DMLCPU_REDUCE_FUNCTION_LOG_SUM ||
                                         fn == DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP
                                     ? TU_CMP_LOG
                                     : TU_CMP_NAN_EQUAL;
        int same = tu_compare(&out, base, expected, mode, scale, msg, sizeof msg);
        char shape[256] = "";
        tu_describe_tensor(shape, sizeof shape, &packed);
        append(shape, sizeof shape, " axes {");
        for (uint32_t a = 0; a < lc->axis_count; a++)
            append(shape, sizeof shape, "%s%" PRIu32, a ? "," : "", lc->axes[a]);
        cr_assert(same, "%s %s, packed input %s}: oracle mismatch: %s", tu_type_name(it),
                  tu_function_name(fn), shape, msg);
    }

    /* the same operator on scalar kernels: every ISA gives the same bits, LOG_SUM and
     * LOG_SUM_EXP included (their exp and log are one algorithm on every ISA) */
    cr_assert_eq(dmlcpu_set_max_isa(DMLCPU_ISA_SCALAR), DMLCPU_STATUS_OK);
    in = packed;
    run_layout(r, lc, &in, logical, &packed, TU_LAYOUT_PACKED, got, "packed, scalar kernels,");
    cr_assert_eq(dmlcpu_set_max_isa(dmlcpu_detected_isa()), DMLCPU_STATUS_OK);
    compare_packed(lc, got, base, "scalar kernels (packed)");

    /* the same logical tensor in other layouts, into other output layouts */
    static const struct {
        tu_layout in, out;
        int reverse;
        const char *label;
    } variants[] = {
        {TU_LAYOUT_PACKED_EXPLICIT, TU_LAYOUT_PACKED, 0, "explicit packed strides"},
        {TU_LAYOUT_PADDED, TU_LAYOUT_PACKED, 0, "padded"},
        {TU_LAYOUT_PERMUTED, TU_LAYOUT_PADDED, 0, "permuted"},
        {TU_LAYOUT_PERMUTED, TU_LAYOUT_PERMUTED, 1, "reversed dimension order"},
        {TU_LAYOUT_PADDED, TU_LAYOUT_PERMUTED, 0, "padded, permuted output"},
    };
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        uint32_t perm[8];
        for (uint32_t d = 0; d < lc->rank; d++)
            perm[d] = lc->rank - 1 - d;
        in = packed;
        tu_tensor_layout(&in, r, variants[v].in, variants[v].reverse ? perm : NULL);
        run_layout(r, lc, &in, logical, &in, variants[v].out, got, variants[v].label);
        compare_packed(lc, got, base, variants[v].label);
    }

    /* broadcast: a tensor constant along some dimensions, materialised vs stride 0 */
    if (lc->rank > 1 || tu_chance(r, 0.5)) {
        uint32_t small_sizes[8];
        memcpy(small_sizes, lc->sizes, sizeof small_sizes);
        int any = 0;
        for (uint32_t d = 0; d < lc->rank; d++)
            if (tu_chance(r, 0.4)) {
                small_sizes[d] = 1;
                any = 1;
            }
        if (!any)
            small_sizes[tu_below(r, lc->rank)] = 1;
        tu_tensor small_t;
        tu_tensor_init(&small_t, it, lc->rank, small_sizes);
        const uint64_t small_count = tu_element_count(&small_t);
        unsigned char *small = malloc(small_count * ies);
        cr_assert_not_null(small);
        tu_fill(r, it, small, small_count, kind, poison);
        /* materialise: element c of the big tensor is small[c with broadcast coordinates 0] */
        uint32_t c[8] = {0};
        size_t k = 0;
        do {
            uint32_t sc[8];
            for (uint32_t d = 0; d < lc->rank; d++)
                sc[d] = small_sizes[d] == 1 ? 0 : c[d];
            const dmlcpu_tensor_desc sd = tu_desc(&small_t);
            memcpy(logical + k++ * ies, small + ref_offset(&sd, sc) * ies, ies);
        } while (ref_next_coord(c, lc->sizes, lc->rank));
        in = packed;
        run_layout(r, lc, &in, logical, &packed, TU_LAYOUT_PACKED, base, "materialised broadcast");
        /* stride-0 view of small: padded or packed strides for small, 0 where broadcast */
        tu_tensor view = small_t;
        tu_tensor_layout(&view, r, tu_chance(r, 0.5) ? TU_LAYOUT_PADDED : TU_LAYOUT_PACKED_EXPLICIT,
                         NULL);
        tu_tensor where = view;
        for (uint32_t d = 0; d < lc->rank; d++) {
            view.sizes[d] = lc->sizes[d];
            if (small_sizes[d] == 1)
                view.strides[d] = 0;
        }
        run_layout(r, lc, &view, small, &where, tu_chance(r, 0.5) ? TU_LAYOUT_PACKED : TU_LAYOUT_PADDED,
                   got, "stride-0 broadcast");
        compare_packed(lc, got, base, "stride-0 broadcast");
        free(small);
    }

    free(scale);
    free(expected);
    free(got);
    free(base);
    free(logical);
}

static const uint32_t shapes[][9] = {
    /* rank, sizes... */
    {1, 4099},
    {2, 3, 4097},
    {2, 4097, 3},
    {2, 65, 67},
    {3, 9, 17, 33},
    {4, 6, 7, 9, 11},
    {6, 3, 2, 4, 2, 5, 3},
    {8, 2, 2, 2, 2, 2, 2, 2, 3},
};

ParameterizedTestParameters(layout, same_bits)
{
    static layout_param params[64];
    size_t n = 0;
    static const int types[] = {DMLCPU_DATA_TYPE_FLOAT16, DMLCPU_DATA_TYPE_FLOAT32,
                                DMLCPU_DATA_TYPE_FLOAT64};
    for (int t = 0; t < 3; t++) {
        for (int fn = DMLCPU_REDUCE_FUNCTION_ARGMAX; fn <= DMLCPU_REDUCE_FUNCTION_SUM_SQUARE; fn++)
            params[n++] = (layout_param){DMLCPU_OPERATOR_REDUCE, fn, 0, types[t]};
        params[n++] = (layout_param){DMLCPU_OPERATOR_ARGMIN, 0, 1, types[t]};
        params[n++] = (layout_param){DMLCPU_OPERATOR_ARGMAX, 0, 1, types[t]};
    }
    return cr_make_param_array(layout_param, params, n);
}

ParameterizedTest(layout_param *p, layout, same_bits)
{
    tu_rng r;
    tu_rng_init(&r, "layout.same_bits", (uint64_t)(p->op * 100 + p->fn), (uint64_t)(p->dir * 100 + p->type));
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        layout_case lc;
        memset(&lc, 0, sizeof lc);
        lc.p = p;
        lc.rank = shapes[s][0];
        memcpy(lc.sizes, &shapes[s][1], lc.rank * sizeof lc.sizes[0]);
        static const dmlcpu_data_type index_types[] = {
            DMLCPU_DATA_TYPE_INT32, DMLCPU_DATA_TYPE_INT64, DMLCPU_DATA_TYPE_UINT32,
            DMLCPU_DATA_TYPE_UINT64};
        /* every non-empty axis set for ranks up to 3, six random ones (always including all
         * axes and the innermost axis) above; three in the reduced set */
        const uint32_t subsets = (1u << lc.rank) - 1;
        const uint32_t tries = lc.rank <= 3 ? subsets : tu_reduced() ? 3 : 6;
        for (uint32_t k = 0; k < tries; k++) {
            uint32_t mask = lc.rank <= 3 ? k + 1
                            : k == 0     ? subsets
                            : k == 1     ? 1u << (lc.rank - 1)
                                         : 1 + tu_below(&r, subsets);
            lc.axis_count = 0;
            for (uint32_t d = 0; d < lc.rank; d++)
                if (mask & (1u << d))
                    lc.axes[lc.axis_count++] = d;
            lc.out_type = is_arg_fn(effective_fn(p)) ? index_types[tu_below(&r, 4)]
                                                     : (dmlcpu_data_type)p->type;
            check_axis_set(&r, &lc);
        }
    }
}
