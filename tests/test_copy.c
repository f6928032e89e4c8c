/*
 * SLICE, SLICE_GRAD, SPLIT, JOIN and IDENTITY against the oracle, for all 11 data types and
 * ranks 1..8: random windows (negative strides, |stride| > 1, outputs smaller than the window
 * allows), 1..5 parts on any axis, transposed, broadcast and padded layouts, misaligned
 * pointers and guard pages. Copies move bits, so the outputs are compared byte for byte
 * (random input bits include NaNs with any payload, signalling NaNs, -0 and subnormals).
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
    int op;   /* dmlcpu_operator_type */
    int type; /* dmlcpu_data_type */
} copy_param;

/* A tensor with its guarded library-side buffer and an oracle-side copy: for an input the
 * original bytes (to check it was not modified), for an output the expected bytes. */
typedef struct {
    tu_tensor t;
    dmlcpu_tensor_desc desc;
    tu_buffer buf;
    void *data;
    void *copy;
    size_t bytes;
} tensor_buf;

/* When not 0: tensors are bound with exactly their addressed size, ending at the guard page (a
 * size that is a multiple of 64 bytes then starts on a cache line). */
static int exact_buffers;

/* layout: a tu_layout, or -1 for a random one; perm: the dimension order of a permuted layout
 * (NULL: random). */
static void tb_make_perm(tu_rng *r, tensor_buf *x, dmlcpu_data_type type, uint32_t rank,
                         const uint32_t *sizes, int is_input, int layout, const uint32_t *perm)
{
    tu_tensor_init(&x->t, type, rank, sizes);
    if (layout < 0)
        tu_tensor_random_layout(&x->t, r, is_input);
    else
        tu_tensor_layout(&x->t, r, (tu_layout)layout, perm);
    if (!exact_buffers)
        tu_tensor_random_declared_size(&x->t, r);
    x->desc = tu_desc(&x->t);
    x->bytes = (size_t)tu_binding_bytes(&x->t);
    const size_t es = ref_type_size(type);
    const unsigned shift = exact_buffers || tu_chance(r, 0.5) ? 0 : 1 + tu_below(r, 7);
    x->data = tu_buffer_alloc(&x->buf, x->bytes, es, shift);
    /* inputs: random bits; outputs: garbage the operator must overwrite where it writes */
    tu_fill(r, is_input ? type : DMLCPU_DATA_TYPE_UINT8, x->data,
            is_input ? x->bytes / es : x->bytes, TU_DATA_RAW, 0);
    x->copy = malloc(x->bytes ? x->bytes : 1);
    cr_assert_not_null(x->copy);
    memcpy(x->copy, x->data, x->bytes);
}

static void tb_make(tu_rng *r, tensor_buf *x, dmlcpu_data_type type, uint32_t rank,
                    const uint32_t *sizes, int is_input, int layout)
{
    tb_make_perm(r, x, type, rank, sizes, is_input, layout, NULL);
}

static void tb_free(tensor_buf *x)
{
    tu_buffer_free(&x->buf);
    free(x->copy);
}

static dmlcpu_buffer_binding tb_binding(const tensor_buf *x)
{
    dmlcpu_buffer_binding b = {x->data, x->bytes};
    return b;
}

static void check_output(const tensor_buf *x, const char *what, const char *name)
{
    char msg[512];
    int same = tu_compare(&x->t, x->data, x->copy, TU_CMP_BITS, NULL, msg, sizeof msg);
    cr_assert(same, "%s: %s %s", what, name, msg);
    same = tu_compare_gaps(&x->t, x->data, x->copy, x->bytes, msg, sizeof msg);
    cr_assert(same, "%s: %s %s", what, name, msg);
}

static void check_input(const tensor_buf *x, const char *what)
{
    cr_assert(memcmp(x->data, x->copy, x->bytes) == 0, "%s: an input buffer was modified", what);
}

static void append(char *buf, size_t len, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, n < len ? len - n : 0, fmt, ap);
    va_end(ap);
}

/* Random sizes with a product of at most budget; one dimension may take most of it. */
static void random_sizes(tu_rng *r, uint32_t rank, uint32_t budget, uint32_t *sizes)
{
    uint32_t order[8];
    tu_permutation(r, order, rank);
    uint32_t left = budget;
    for (uint32_t i = 0; i < rank; i++) {
        uint32_t cap = i == 0 && tu_chance(r, 0.6) ? left : (left < 6 ? left : 6);
        uint32_t s = 1 + tu_below(r, cap < 1 ? 1 : cap);
        sizes[order[i]] = s;
        left /= s;
        if (left < 1)
            left = 1;
    }
}

/* When not 0: the threads setting of every operator run (see copy.large). */
static uint32_t forced_threads;

static void run_op(tu_rng *r, const dmlcpu_operator_desc *desc, tensor_buf *ins, uint32_t nin,
                   tensor_buf *outs, uint32_t nout, const char *what)
{
    dmlcpu_buffer_binding bi[8], bo[8];
    for (uint32_t i = 0; i < nin; i++)
        bi[i] = tb_binding(&ins[i]);
    for (uint32_t i = 0; i < nout; i++)
        bo[i] = tb_binding(&outs[i]);
    const uint32_t threads = forced_threads ? forced_threads : tu_random_threads(r);

    /* The oracle writes the expected bytes into the outputs' copies, which hold the garbage the
     * library's buffers start with; each level starts from that garbage again. */
    void *garbage[8];
    const void *ref_in[8];
    void *ref_out[8];
    for (uint32_t i = 0; i < nin; i++)
        ref_in[i] = ins[i].copy;
    for (uint32_t i = 0; i < nout; i++) {
        ref_out[i] = outs[i].copy;
        garbage[i] = malloc(outs[i].bytes ? outs[i].bytes : 1);
        cr_assert_not_null(garbage[i]);
        memcpy(garbage[i], outs[i].data, outs[i].bytes);
    }
    cr_assert_eq(ref_execute(desc, ref_in, ref_out), DMLCPU_STATUS_OK, "%s: oracle failed", what);

    for (uint32_t lv = 0; lv < tu_level_count(); lv++) {
        const char *level = tu_level_select(lv);
        char full[2200];
        snprintf(full, sizeof full, "%s, %s%s%s", what, tu_threads_name(threads),
                 *level ? ", level " : "", level);
        for (uint32_t i = 0; i < nout; i++)
            memcpy(outs[i].data, garbage[i], outs[i].bytes);
        tu_run(desc, threads, bi, nin, bo, nout, full);
        for (uint32_t i = 0; i < nout; i++) {
            char name[32];
            snprintf(name, sizeof name, "output %" PRIu32, i);
            check_output(&outs[i], full, name);
        }
        for (uint32_t i = 0; i < nin; i++)
            check_input(&ins[i], full);
    }
    for (uint32_t i = 0; i < nout; i++)
        free(garbage[i]);
}

/* ---- SLICE and SLICE_GRAD ----------------------------------------------------------------- */

static void case_slice(tu_rng *r, dmlcpu_data_type type, uint32_t rank, uint32_t budget, int grad)
{
    uint32_t whole[8], offsets[8], windows[8], part[8];
    int32_t strides[8];
    random_sizes(r, rank, budget, whole);
    for (uint32_t d = 0; d < rank; d++) {
        static const int32_t choices[] = {1, 1, 1, 2, 3, -1, -1, -2, -3, 4, -5, 7};
        windows[d] = 1 + tu_below(r, whole[d]);
        offsets[d] = tu_below(r, whole[d] - windows[d] + 1);
        int32_t s = choices[tu_below(r, 12)];
        if (tu_chance(r, 0.08)) /* a stride beyond the window: one element */
            s = (int32_t)(windows[d] + tu_below(r, 4)) * (tu_chance(r, 0.5) ? -1 : 1);
        strides[d] = s;
        uint32_t abs_s = (uint32_t)(s < 0 ? -s : s);
        uint32_t max = 1 + (windows[d] - 1) / abs_s;
        part[d] = tu_chance(r, 0.7) ? max : 1 + tu_below(r, max);
    }
    tensor_buf in, out;
    tb_make(r, &in, type, rank, grad ? part : whole, 1, -1);
    tb_make(r, &out, type, rank, grad ? whole : part, 0, -1);

    char what[1024];
    snprintf(what, sizeof what, "seed %#" PRIx64 ": %s input ", tu_rng_seed_value(r),
             grad ? "SLICE_GRAD" : "SLICE");
    tu_describe_tensor(what, sizeof what, &in.t);
    append(what, sizeof what, " output ");
    tu_describe_tensor(what, sizeof what, &out.t);
    append(what, sizeof what, " window offsets/sizes/strides");
    for (uint32_t d = 0; d < rank; d++)
        append(what, sizeof what, " %" PRIu32 "/%" PRIu32 "/%" PRId32, offsets[d], windows[d],
               strides[d]);

    dmlcpu_slice_operator_desc sd = {&in.desc, &out.desc, rank, offsets, windows, strides};
    dmlcpu_slice_grad_operator_desc gd = {&in.desc, &out.desc, rank, offsets, windows, strides};
    dmlcpu_operator_desc desc = {grad ? DMLCPU_OPERATOR_SLICE_GRAD : DMLCPU_OPERATOR_SLICE,
                                 grad ? (const void *)&gd : (const void *)&sd};
    run_op(r, &desc, &in, 1, &out, 1, what);
    tb_free(&in);
    tb_free(&out);
}

/* ---- SPLIT and JOIN ----------------------------------------------------------------------- */

static void case_split_join(tu_rng *r, dmlcpu_data_type type, uint32_t rank, uint32_t budget,
                            int join)
{
    uint32_t whole[8];
    random_sizes(r, rank, budget, whole);
    const uint32_t axis = tu_below(r, rank);
    const uint32_t count = 1 + tu_below(r, 5);
    if (whole[axis] < count)
        whole[axis] = count + tu_below(r, 4);
    /* a random composition of whole[axis] into count positive parts */
    uint32_t cuts[6] = {0};
    for (uint32_t k = 1; k < count; k++)
        cuts[k] = tu_below(r, whole[axis] - count + 1);
    cuts[count] = whole[axis] - count;
    for (uint32_t k = 1; k < count; k++) /* insertion sort of cuts[1..count-1] */
        for (uint32_t j = k; j > 1 && cuts[j - 1] > cuts[j]; j--) {
            uint32_t tmp = cuts[j];
            cuts[j] = cuts[j - 1];
            cuts[j - 1] = tmp;
        }

    tensor_buf w, parts[5];
    dmlcpu_tensor_desc part_descs[5];
    tb_make(r, &w, type, rank, whole, !join, -1);
    for (uint32_t k = 0; k < count; k++) {
        uint32_t sizes[8];
        memcpy(sizes, whole, sizeof sizes);
        sizes[axis] = cuts[k + 1] - cuts[k] + 1;
        tb_make(r, &parts[k], type, rank, sizes, join, -1);
        part_descs[k] = parts[k].desc;
    }

    char what[2048];
    snprintf(what, sizeof what, "seed %#" PRIx64 ": %s axis %" PRIu32 " whole ",
             tu_rng_seed_value(r), join ? "JOIN" : "SPLIT", axis);
    tu_describe_tensor(what, sizeof what, &w.t);
    for (uint32_t k = 0; k < count; k++) {
        append(what, sizeof what, " part %" PRIu32 " ", k);
        tu_describe_tensor(what, sizeof what, &parts[k].t);
    }

    dmlcpu_split_operator_desc sd = {&w.desc, count, part_descs, axis};
    dmlcpu_join_operator_desc jd = {count, part_descs, &w.desc, axis};
    dmlcpu_operator_desc desc = {join ? DMLCPU_OPERATOR_JOIN : DMLCPU_OPERATOR_SPLIT,
                                 join ? (const void *)&jd : (const void *)&sd};
    if (join)
        run_op(r, &desc, parts, count, &w, 1, what);
    else
        run_op(r, &desc, &w, 1, parts, count, what);
    tb_free(&w);
    for (uint32_t k = 0; k < count; k++)
        tb_free(&parts[k]);
}

/* JOIN and SPLIT along the last dim of packed [rows, sum of widths] tensors of more than 17 MiB:
 * contiguous runs of a KiB or more are written with non-temporal stores where the level has them
 * (one fence per task), and on one thread the parts go in lockstep, row range by row range. The
 * parts' widths put their rows at every alignment; UINT8 has a part below a KiB (ordinary
 * stores in the same copy). One thread, then a random thread setting. */
static void case_split_join_stream(tu_rng *r, dmlcpu_data_type type, int join)
{
    static const uint32_t widths_u8[4] = {1030, 1500, 700, 2000};
    static const uint32_t widths_f32[4] = {300, 257, 511, 100};
    const uint32_t *widths = type == DMLCPU_DATA_TYPE_UINT8 ? widths_u8 : widths_f32;
    const uint32_t cols = widths[0] + widths[1] + widths[2] + widths[3];
    const uint32_t whole[2] = {(uint32_t)((17u << 20) / (cols * ref_type_size(type)) + 1), cols};
    tensor_buf w, parts[4];
    dmlcpu_tensor_desc part_descs[4];
    tb_make(r, &w, type, 2, whole, !join, TU_LAYOUT_PACKED);
    for (uint32_t k = 0; k < 4; k++) {
        const uint32_t sizes[2] = {whole[0], widths[k]};
        tb_make(r, &parts[k], type, 2, sizes, join, TU_LAYOUT_PACKED);
        part_descs[k] = parts[k].desc;
    }
    char what[1024];
    snprintf(what, sizeof what, "seed %#" PRIx64 ": %s axis 1 whole ", tu_rng_seed_value(r),
             join ? "JOIN" : "SPLIT");
    tu_describe_tensor(what, sizeof what, &w.t);
    dmlcpu_split_operator_desc sd = {&w.desc, 4, part_descs, 1};
    dmlcpu_join_operator_desc jd = {4, part_descs, &w.desc, 1};
    dmlcpu_operator_desc desc = {join ? DMLCPU_OPERATOR_JOIN : DMLCPU_OPERATOR_SPLIT,
                                 join ? (const void *)&jd : (const void *)&sd};
    for (int pass = 0; pass < 2; pass++) {
        forced_threads = pass == 0 ? 1 : 0;
        if (join)
            run_op(r, &desc, parts, 4, &w, 1, what);
        else
            run_op(r, &desc, &w, 1, parts, 4, what);
    }
    forced_threads = 0;
    tb_free(&w);
    for (uint32_t k = 0; k < 4; k++)
        tb_free(&parts[k]);
}

/* UINT8 and FLOAT32, JOIN and SPLIT; the reduced set (emulators, sanitizers) JOIN UINT8 and
 * SPLIT FLOAT32. */
ParameterizedTestParameters(copy, split_join_stream)
{
    static copy_param params[4];
    size_t n = 0;
    for (int join = 0; join < 2; join++)
        for (int t = 0; t < 2; t++)
            if (!tu_reduced() || join != t)
                params[n++] = (copy_param){join ? DMLCPU_OPERATOR_JOIN : DMLCPU_OPERATOR_SPLIT,
                                           t ? DMLCPU_DATA_TYPE_FLOAT32 : DMLCPU_DATA_TYPE_UINT8};
    return cr_make_param_array(copy_param, params, n);
}

ParameterizedTest(copy_param *p, copy, split_join_stream)
{
    tu_rng r;
    tu_rng_init(&r, "copy.split_join_stream", (uint64_t)p->op, (uint64_t)p->type);
    case_split_join_stream(&r, (dmlcpu_data_type)p->type, p->op == DMLCPU_OPERATOR_JOIN);
}

/* ---- IDENTITY ----------------------------------------------------------------------------- */

/* Runs IDENTITY from in to out (checked against the oracle's copy), then frees both. */
static void run_identity(tu_rng *r, tensor_buf *in, tensor_buf *out)
{
    char what[1024];
    snprintf(what, sizeof what, "seed %#" PRIx64 ": IDENTITY input ", tu_rng_seed_value(r));
    tu_describe_tensor(what, sizeof what, &in->t);
    append(what, sizeof what, " output ");
    tu_describe_tensor(what, sizeof what, &out->t);
    dmlcpu_identity_operator_desc id = {&in->desc, &out->desc};
    dmlcpu_operator_desc desc = {DMLCPU_OPERATOR_IDENTITY, &id};
    run_op(r, &desc, in, 1, out, 1, what);
    tb_free(in);
    tb_free(out);
}

static void case_identity(tu_rng *r, dmlcpu_data_type type, uint32_t rank, uint32_t budget)
{
    uint32_t sizes[8];
    random_sizes(r, rank, budget, sizes);
    /* a third of the cases transpose one side explicitly */
    const uint32_t pick = tu_below(r, 6);
    const int in_layout = pick == 0 ? TU_LAYOUT_PERMUTED : pick == 1 ? TU_LAYOUT_BROADCAST : -1;
    const int out_layout = pick == 2 ? TU_LAYOUT_PERMUTED : -1;
    tensor_buf in, out;
    tb_make(r, &in, type, rank, sizes, 1, in_layout);
    tb_make(r, &out, type, rank, sizes, 0, out_layout);
    run_identity(r, &in, &out);
}

/* ---- the tests ---------------------------------------------------------------------------- */

static void one_case(tu_rng *r, int op, dmlcpu_data_type type, uint32_t rank, uint32_t budget)
{
    switch (op) {
    case DMLCPU_OPERATOR_SLICE: case_slice(r, type, rank, budget, 0); break;
    case DMLCPU_OPERATOR_SLICE_GRAD: case_slice(r, type, rank, budget, 1); break;
    case DMLCPU_OPERATOR_SPLIT: case_split_join(r, type, rank, budget, 0); break;
    case DMLCPU_OPERATOR_JOIN: case_split_join(r, type, rank, budget, 1); break;
    default: case_identity(r, type, rank, budget); break;
    }
}

ParameterizedTestParameters(copy, random)
{
    static copy_param params[5 * 11];
    static const int ops[] = {DMLCPU_OPERATOR_SLICE, DMLCPU_OPERATOR_SLICE_GRAD,
                              DMLCPU_OPERATOR_SPLIT, DMLCPU_OPERATOR_JOIN,
                              DMLCPU_OPERATOR_IDENTITY};
    size_t n = 0;
    for (int o = 0; o < 5; o++)
        for (int t = DMLCPU_DATA_TYPE_FLOAT32; t <= DMLCPU_DATA_TYPE_INT64; t++)
            params[n++] = (copy_param){ops[o], t};
    return cr_make_param_array(copy_param, params, n);
}

ParameterizedTest(copy_param *p, copy, random)
{
    tu_rng r;
    tu_rng_init(&r, "copy.random", (uint64_t)p->op, (uint64_t)p->type);
    const dmlcpu_data_type type = (dmlcpu_data_type)p->type;
    /* the reduced set: every other case of each size, one large one */
    const int reduced = tu_reduced();
    for (uint32_t rank = 1; rank <= 8; rank++)
        for (int k = 0; k < 14; k++)
            if (!reduced || k % 2 == 0)
                one_case(&r, p->op, type, rank, k < 4 ? 24 : k < 12 ? 600 : 6000);
    /* a few large ones: long unit-stride runs and many rows */
    for (int k = 0; k < (reduced ? 1 : 3); k++)
        one_case(&r, p->op, type, 1 + tu_below(&r, 4), 150000);
}

/* Copies of more than a MiB: these are cut into tasks (rows, or pieces of long rows), run on
 * 2, 3, 7 threads or a host pool, and must give the same bytes as the oracle. */
ParameterizedTestParameters(copy, large)
{
    static copy_param params[5 * 4];
    static const int ops[] = {DMLCPU_OPERATOR_SLICE, DMLCPU_OPERATOR_SLICE_GRAD,
                              DMLCPU_OPERATOR_SPLIT, DMLCPU_OPERATOR_JOIN,
                              DMLCPU_OPERATOR_IDENTITY};
    static const int types[] = {DMLCPU_DATA_TYPE_UINT8, DMLCPU_DATA_TYPE_FLOAT16,
                                DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_INT64};
    size_t n = 0;
    for (int o = 0; o < 5; o++)
        for (int t = 0; t < 4; t++)
            params[n++] = (copy_param){ops[o], types[t]};
    return cr_make_param_array(copy_param, params, n);
}

ParameterizedTest(copy_param *p, copy, large)
{
    tu_rng r;
    tu_rng_init(&r, "copy.large", (uint64_t)p->op, (uint64_t)p->type);
    const dmlcpu_data_type type = (dmlcpu_data_type)p->type;
    const uint32_t budget = (uint32_t)((3u << 20) / ref_type_size(type)); /* 3 MiB */
    /* the first case at every threads setting: 1, 2, 3, 7 and the reversed host pool (the
     * reduced set: 1, 3 and the host pool, and no further cases) */
    static const uint32_t settings[] = {1, 3, TU_HOST_POOL, 2, 7};
    const int reduced = tu_reduced();
    for (size_t i = 0; i < (reduced ? 3 : sizeof settings / sizeof settings[0]); i++) {
        tu_rng again = r;
        forced_threads = settings[i];
        one_case(&again, p->op, type, 1 + tu_below(&again, 3), budget);
    }
    forced_threads = 0;
    for (int k = 0; k < (reduced ? 0 : 3); k++)
        one_case(&r, p->op, type, 1 + tu_below(&r, 3), budget);
}

/* ---- transposes --------------------------------------------------------------------------- */

/* Random permutation of 0..n-1 that moves the last dim (so the innermost dim is strided). */
static void moving_permutation(tu_rng *r, uint32_t *perm, uint32_t n)
{
    do {
        for (uint32_t i = 0; i < n; i++)
            perm[i] = i;
        for (uint32_t i = n; i > 1; i--) {
            uint32_t j = tu_below(r, i), tmp = perm[i - 1];
            perm[i - 1] = perm[j];
            perm[j] = tmp;
        }
    } while (perm[n - 1] == n - 1);
}

/* IDENTITY, or SLICE with a window of steps +-1 (a reversed transpose), from a transposed input
 * to a packed output or from a packed input to a transposed output. Two dims have odd sizes of
 * a few tiles plus a part of one (tiles are 32 to 256 elements), so the copy is cut into whole
 * and partial tiles, and the partial bands and pieces meet at odd places between threads.
 * full: a 2-D copy of (almost) all of budget elements, not a random part of it. */
static void case_transpose(tu_rng *r, dmlcpu_data_type type, int slice, uint64_t budget, int full)
{
    const uint32_t rank = full ? 2 : 2 + tu_below(r, 3); /* full: a plain transpose */
    uint32_t sizes[8], perm[8];
    /* the last dim and one other get most of the budget: odd sizes, the other one 129 or more */
    const uint32_t other = tu_below(r, rank - 1);
    uint64_t left = budget;
    for (uint32_t d = 0; d < rank; d++) {
        sizes[d] = 1 + tu_below(r, 3);
        if (d != other && d != rank - 1)
            left /= sizes[d];
    }
    const uint32_t a = 65 + 2 * tu_below(r, 200);
    uint64_t rest = left / a;
    uint32_t b = rest > 130 ? (uint32_t)(129 + 2 * tu_below(r, (uint32_t)((rest - 129) / 2))) : 129;
    if (full && rest > 130) /* the whole budget: the largest odd size that fits */
        b = (uint32_t)(rest % 2 ? rest : rest - 1);
    sizes[rank - 1] = a;
    sizes[other] = b;
    moving_permutation(r, perm, rank);
    const int transposed_input = tu_chance(r, 0.5);

    uint32_t offsets[8] = {0}, windows[8];
    int32_t steps[8];
    for (uint32_t d = 0; d < rank; d++) {
        windows[d] = sizes[d];
        steps[d] = tu_chance(r, 0.3) ? -1 : 1;
    }
    tensor_buf in, out;
    tb_make_perm(r, &in, type, rank, sizes, 1,
                 transposed_input ? TU_LAYOUT_PERMUTED : TU_LAYOUT_PACKED, perm);
    tb_make_perm(r, &out, type, rank, sizes, 0,
                 transposed_input ? TU_LAYOUT_PACKED : TU_LAYOUT_PERMUTED, perm);

    char what[1024];
    snprintf(what, sizeof what, "seed %#" PRIx64 ": transposing %s input ", tu_rng_seed_value(r),
             slice ? "SLICE" : "IDENTITY");
    tu_describe_tensor(what, sizeof what, &in.t);
    append(what, sizeof what, " output ");
    tu_describe_tensor(what, sizeof what, &out.t);
    if (slice) {
        append(what, sizeof what, " window steps");
        for (uint32_t d = 0; d < rank; d++)
            append(what, sizeof what, " %" PRId32, steps[d]);
    }
    dmlcpu_identity_operator_desc id = {&in.desc, &out.desc};
    dmlcpu_slice_operator_desc sd = {&in.desc, &out.desc, rank, offsets, windows, steps};
    dmlcpu_operator_desc desc = {slice ? DMLCPU_OPERATOR_SLICE : DMLCPU_OPERATOR_IDENTITY,
                                 slice ? (const void *)&sd : (const void *)&id};
    run_op(r, &desc, &in, 1, &out, 1, what);
    tb_free(&in);
    tb_free(&out);
}

/* One type of each element size: the transposes' kernels are keyed by size only. */
static const int size_types[4] = {DMLCPU_DATA_TYPE_UINT8, DMLCPU_DATA_TYPE_FLOAT16,
                                  DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_INT64};

/* IDENTITY once for each element size (the line and narrow transposes). */
static struct criterion_test_params identity_per_element_size(void)
{
    static copy_param params[4];
    for (int t = 0; t < 4; t++)
        params[t] = (copy_param){DMLCPU_OPERATOR_IDENTITY, size_types[t]};
    return cr_make_param_array(copy_param, params, 4);
}

/* Transposes beyond the parallel threshold and below it, for every element size, at random
 * thread counts (run_op picks them). */
ParameterizedTestParameters(copy, transpose)
{
    static copy_param params[2 * 4];
    size_t n = 0;
    for (int o = 0; o < 2; o++)
        for (int t = 0; t < 4; t++)
            params[n++] = (copy_param){o ? DMLCPU_OPERATOR_SLICE : DMLCPU_OPERATOR_IDENTITY,
                                       size_types[t]};
    return cr_make_param_array(copy_param, params, n);
}

ParameterizedTest(copy_param *p, copy, transpose)
{
    tu_rng r;
    tu_rng_init(&r, "copy.transpose", (uint64_t)p->op, (uint64_t)p->type);
    const dmlcpu_data_type type = (dmlcpu_data_type)p->type;
    const int slice = p->op == DMLCPU_OPERATOR_SLICE;
    const uint64_t large = (5u << 20) / ref_type_size(type); /* 5 MiB: cut into tasks */
    /* the reduced set: two small, one large */
    const int reduced = tu_reduced();
    for (int k = 0; k < 6; k++)
        if (!reduced || k == 0 || k == 2 || k == 3)
            case_transpose(&r, type, slice, k < 3 ? 40000 : large, 0);
    /* two above DMLCPU_STREAM_MIN_BYTES (12 MiB), whose tiles are written with non-temporal
     * stores where the level has them: destination rows at every alignment */
    for (int k = 0; k < (slice ? 0 : 2); k++)
        case_transpose(&r, type, slice, (17u << 20) / ref_type_size(type), 1);
}

/* IDENTITY of a packed [rows, other] into a column-major output, then of a column-major input
 * of [other, rows] into a packed output: either way the output's rows hold `rows` elements. */
static void transpose_both_ways(tu_rng *r, dmlcpu_data_type type, uint32_t rows, uint32_t other)
{
    for (int way = 0; way < 2; way++) {
        const uint32_t sizes[2] = {way ? other : rows, way ? rows : other};
        tensor_buf x[2]; /* input, output */
        for (int k = 0; k < 2; k++) {
            tb_make_perm(r, &x[k], type, 2, sizes, k == 0, TU_LAYOUT_PACKED_EXPLICIT, NULL);
            if (k != way) { /* column-major: the same bytes, the strides swapped (no gaps) */
                x[k].t.strides[0] = 1;
                x[k].t.strides[1] = sizes[0];
                x[k].desc = tu_desc(&x[k].t);
            }
        }
        run_identity(r, &x[0], &x[1]);
    }
}

/* IDENTITY of a packed [rows - 3, other] into a column-major output whose rows are `rows`
 * elements apart: they start where the buffer does, on a line when rows is whole lines. */
static void transpose_padded_output(tu_rng *r, dmlcpu_data_type type, uint32_t rows, uint32_t other)
{
    const uint32_t es = (uint32_t)ref_type_size(type);
    const uint32_t sizes[2] = {rows - 3, other};
    tensor_buf x[2];
    tb_make_perm(r, &x[0], type, 2, sizes, 1, TU_LAYOUT_PACKED_EXPLICIT, NULL);
    tu_tensor_init(&x[1].t, type, 2, sizes);
    x[1].t.has_strides = 1;
    x[1].t.strides[0] = 1;
    x[1].t.strides[1] = rows;
    x[1].t.declared_size = (uint64_t)rows * other * es; /* whole lines: the buffer starts on one */
    x[1].desc = tu_desc(&x[1].t);
    x[1].bytes = (size_t)tu_binding_bytes(&x[1].t);
    x[1].data = tu_buffer_alloc(&x[1].buf, x[1].bytes, es, 0);
    tu_fill(r, DMLCPU_DATA_TYPE_UINT8, x[1].data, x[1].bytes, TU_DATA_RAW, 0);
    x[1].copy = malloc(x[1].bytes);
    cr_assert_not_null(x[1].copy);
    memcpy(x[1].copy, x[1].data, x[1].bytes);
    run_identity(r, &x[0], &x[1]);
}

/* IDENTITY transposes above DMLCPU_STREAM_MIN_BYTES whose destination rows start on 64-byte
 * lines (their length a multiple of 64 bytes, buffers starting on a line): AVX3 writes the tiles
 * of 2- to 8-byte elements in blocks of 64-byte rows straight to the destination. The other
 * side is a few tiles (256 bytes of a row on x86) plus a block and 3 elements, so the last
 * tiles end with a block that overlaps the one before it; a packed input into a transposed
 * output and a transposed input into a packed output. */
ParameterizedTestParameters(copy, line_transpose) { return identity_per_element_size(); }

ParameterizedTest(copy_param *p, copy, line_transpose)
{
    tu_rng r;
    tu_rng_init(&r, "copy.line_transpose", (uint64_t)p->type, 0);
    const dmlcpu_data_type type = (dmlcpu_data_type)p->type;
    const uint32_t es = (uint32_t)ref_type_size(type), line = 64 / es, edge = 256 / es;
    const uint32_t rows = 2048 + line * tu_below(&r, 8); /* destination rows: whole lines */
    const uint32_t other = ((17u << 20) / es / rows) / edge * edge + line + 3;
    exact_buffers = 1;
    transpose_both_ways(&r, type, rows, other);
    /* the output's columns padded to whole lines, so that its rows start on lines but end 3
     * elements before the next (the tiles that end a row end with a part of a line) */
    transpose_padded_output(&r, type, rows, other);
    exact_buffers = 0;
}

/* IDENTITY transposes of at most DMLCPU_COPY_SMALL_BYTES (1 MiB) whose destination rows start on
 * 64-byte lines (buffers on a line, rows of whole lines): AVX3's transpose_small writes tiles at
 * least a line wide and high in blocks of whole lines straight to the destination (UINT8 where
 * the byte blocks do not apply). Rows of 1 KiB with 549 of them (the last tile of each band not
 * whole blocks high: blocks overlapping the one before), rows of three lines with 21 of them,
 * rows 1 KiB apart holding 3 elements less (tiles not whole blocks wide); both ways. UINT8,
 * FLOAT16 and (rows spread over the L1's sets) FLOAT32 take those blocks into rows not on lines
 * too: 301 x 259 at random buffer offsets (UINT8 1025 x 259: with rows 301 bytes apart it takes
 * the byte blocks). Then about 5 MiB cut into tasks (the buffered tiles), at random thread
 * counts. */
ParameterizedTestParameters(copy, cache_line_transpose) { return identity_per_element_size(); }

ParameterizedTest(copy_param *p, copy, cache_line_transpose)
{
    tu_rng r;
    tu_rng_init(&r, "copy.cache_line_transpose", (uint64_t)p->type, 0);
    const dmlcpu_data_type type = (dmlcpu_data_type)p->type;
    const uint32_t es = (uint32_t)ref_type_size(type), line = 64 / es;
    exact_buffers = 1;
    transpose_both_ways(&r, type, 1024 / es, 549);
    transpose_both_ways(&r, type, 3 * line, 21);
    transpose_padded_output(&r, type, 1024 / es, 549);
    exact_buffers = 0;
    transpose_both_ways(&r, type, es == 1 ? 1025 : 301, 259); /* rows not on lines */
    exact_buffers = 1;
    if (!tu_reduced())
        transpose_both_ways(&r, type, 2048, (5u << 20) / es / 2048 + 7);
    exact_buffers = 0;
}

/* IDENTITY transposes above DMLCPU_STREAM_MIN_BYTES whose destination rows are not on 64-byte
 * lines (an odd number of elements each), so that AVX3's tiles meet at the rows' line
 * boundaries, and whose number of rows is 5 past a multiple of 256: the last tiles of each
 * band hold fewer rows than a block (those go element by element by the same rule); then with
 * rows of a multiple of 4 KiB on the other side (FLOAT32 carries its blocks in memory there).
 * A packed input into a transposed output and a transposed input into a packed output, at
 * random thread counts. */
ParameterizedTestParameters(copy, odd_transpose) { return identity_per_element_size(); }

ParameterizedTest(copy_param *p, copy, odd_transpose)
{
    tu_rng r;
    tu_rng_init(&r, "copy.odd_transpose", (uint64_t)p->type, 0);
    const dmlcpu_data_type type = (dmlcpu_data_type)p->type;
    const uint32_t es = (uint32_t)ref_type_size(type);
    const uint32_t rows = 2 * (1000 + tu_below(&r, 1000)) + 1; /* the output rows' length */
    const uint32_t other = ((17u << 20) / es / rows) / 256 * 256 + 5; /* their number */
    transpose_both_ways(&r, type, rows, other);
    const uint32_t page = 4096 / es;
    transpose_both_ways(&r, type, rows, ((17u << 20) / es / rows / page + 1) * page);
}

/* ---- narrow transposes --------------------------------------------------------------------- */

/* IDENTITY between [batch, n, k] and its [batch, k, n] memory order, as images between
 * interleaved channels and planes (HWC and CHW): k = 2, 3 and 4 take the interleaving kernels
 * where the level has them, k = 1 and 5 the others. deinterleave: a packed input into a
 * permuted output (planes), else a permuted input into a packed output. Permuted layouts are
 * padded 40% of the time (then the k elements are not back to back). */
static void case_narrow(tu_rng *r, dmlcpu_data_type type, uint32_t k, uint32_t n, uint32_t batch,
                        int deinterleave)
{
    const uint32_t sizes[3] = {batch, n, k}, planes[3] = {0, 2, 1};
    tensor_buf in, out;
    tb_make_perm(r, &in, type, 3, sizes, 1, deinterleave ? TU_LAYOUT_PACKED : TU_LAYOUT_PERMUTED,
                 planes);
    tb_make_perm(r, &out, type, 3, sizes, 0, deinterleave ? TU_LAYOUT_PERMUTED : TU_LAYOUT_PACKED,
                 planes);
    run_identity(r, &in, &out);
}

ParameterizedTestParameters(copy, narrow_transpose) { return identity_per_element_size(); }

/* Every k from 1 to 5 both ways: lengths around a vector (1 to 65 and 129 elements: a vector
 * has up to 64), a long odd one, several images a batch; then k = 3 both ways above
 * DMLCPU_STREAM_MIN_BYTES (12 MiB), whose tiles stream where the level has streaming kernels. */
ParameterizedTest(copy_param *p, copy, narrow_transpose)
{
    tu_rng r;
    tu_rng_init(&r, "copy.narrow_transpose", (uint64_t)p->type, 0);
    const dmlcpu_data_type type = (dmlcpu_data_type)p->type;
    static const uint32_t lengths[] = {1, 2, 7, 31, 33, 63, 64, 65, 129};
    for (uint32_t k = 1; k <= 5; k++)
        for (int way = 0; way < 2; way++) {
            for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
                case_narrow(&r, type, k, lengths[i], 1 + tu_below(&r, 2), way);
            case_narrow(&r, type, k, 1001 + 2 * tu_below(&r, 3000), 1 + tu_below(&r, 3), way);
        }
    const uint32_t big = (uint32_t)((17u << 20) / 3 / ref_type_size(type)) | 1;
    for (int way = 0; way < 2; way++)
        case_narrow(&r, type, 3, big, 1, way);
}

/* ---- strided runs above DMLCPU_STREAM_MIN_BYTES ------------------------------------------ */

/* SLICE of a 2-D packed tensor with a window step of -1, 2, 3 or 4 on its last dim and an output
 * of more than 17 MiB: the levels that have them write these runs with non-temporal stores from
 * the destination's first vector-aligned element on. Rows of an odd length start at every
 * alignment; long rows (thousands of elements) take the streaming stores, short ones (61
 * elements, below a KiB) the ordinary ones in the same copy. */
static void case_steps(tu_rng *r, dmlcpu_data_type type, int32_t step, uint32_t cols)
{
    const uint64_t out_elements = (17u << 20) / ref_type_size(type);
    const uint32_t abs_s = (uint32_t)(step < 0 ? -step : step);
    uint32_t sizes[2], part[2], offsets[2] = {0, 0}, windows[2];
    int32_t strides[2] = {1, step};
    part[1] = cols;
    part[0] = (uint32_t)(out_elements / cols + 1);
    windows[0] = sizes[0] = part[0];
    windows[1] = (cols - 1) * abs_s + 1;
    offsets[1] = tu_below(r, 5);
    sizes[1] = offsets[1] + windows[1] + tu_below(r, 5);
    tensor_buf in, out;
    tb_make(r, &in, type, 2, sizes, 1, TU_LAYOUT_PACKED);
    tb_make(r, &out, type, 2, part, 0, TU_LAYOUT_PACKED);

    char what[1024];
    snprintf(what, sizeof what, "seed %#" PRIx64 ": SLICE input ", tu_rng_seed_value(r));
    tu_describe_tensor(what, sizeof what, &in.t);
    append(what, sizeof what, " output ");
    tu_describe_tensor(what, sizeof what, &out.t);
    append(what, sizeof what, " window offset %" PRIu32 " size %" PRIu32 " step %" PRId32,
           offsets[1], windows[1], step);
    dmlcpu_slice_operator_desc sd = {&in.desc, &out.desc, 2, offsets, windows, strides};
    dmlcpu_operator_desc desc = {DMLCPU_OPERATOR_SLICE, &sd};
    run_op(r, &desc, &in, 1, &out, 1, what);
    tb_free(&in);
    tb_free(&out);
}

/* 17 MiB a case at every level, so every step and every type run, but not every pair: the full
 * set takes half of them (steps -1 and 2 for UINT8 and FLOAT32, 3 and 4 for FLOAT16 and INT64),
 * the reduced set (emulators, sanitizers) a quarter (-1 UINT8, 2 FLOAT32, 3 FLOAT16, 4 INT64).
 * copy_param.op holds the step's index. */
static const int32_t stream_steps[] = {-1, 2, 3, 4};
ParameterizedTestParameters(copy, steps_stream)
{
    static copy_param params[8];
    static const int types[] = {DMLCPU_DATA_TYPE_UINT8, DMLCPU_DATA_TYPE_FLOAT32,
                                DMLCPU_DATA_TYPE_FLOAT16, DMLCPU_DATA_TYPE_INT64};
    size_t n = 0;
    for (int s = 0; s < 4; s++)
        for (int t = 0; t < 4; t++)
            if ((t < 2) == (s < 2) && (!tu_reduced() || t == s))
                params[n++] = (copy_param){s, types[t]};
    return cr_make_param_array(copy_param, params, n);
}

ParameterizedTest(copy_param *p, copy, steps_stream)
{
    tu_rng r;
    tu_rng_init(&r, "copy.steps_stream", (uint64_t)p->op, (uint64_t)p->type);
    const dmlcpu_data_type type = (dmlcpu_data_type)p->type;
    case_steps(&r, type, stream_steps[p->op], 4099 + 2 * tu_below(&r, 500));
    if (!tu_reduced())
        case_steps(&r, type, stream_steps[p->op], 61);
}
