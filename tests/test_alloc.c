/*
 * Allocation failure (SPEC 5): every allocation a create makes is made to fail in turn. Each
 * such create returns OUT_OF_MEMORY with a message and no operator, gives back every block it
 * had taken, and leaves the library usable: the same descriptor then creates and executes with
 * the bits of a run made before the failures.
 *
 * The suite links the static library with the linker's --wrap for malloc, calloc, realloc and
 * free (tests/CMakeLists.txt), so the library's calls come here; the wrappers count calls and
 * live blocks only while a create is under test, and otherwise pass straight through.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <dmlcpu.h>

#include "testutil.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

/* Under test: the fail_at-th allocation (from 0) returns NULL. Criterion runs every test in its
 * own process, and the operators here plan on the caller's thread: no locking is needed. */
static bool armed;
static long calls, fail_at, live;

static bool inject(void)
{
    return armed && calls++ == fail_at;
}

void *__wrap_malloc(size_t n)
{
    if (inject())
        return NULL;
    void *p = __real_malloc(n);
    live += armed && p;
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    if (inject())
        return NULL;
    void *p = __real_calloc(n, size);
    live += armed && p;
    return p;
}

void *__wrap_realloc(void *p, size_t n)
{
    if (inject())
        return NULL;
    void *q = __real_realloc(p, n);
    live += armed && q && !p;
    return q;
}

void __wrap_free(void *p)
{
    live -= armed && p;
    __real_free(p);
}

/* ---- cases: every operator type and every allocating path of create ---------------------- */

static const dmlcpu_data_type F32 = DMLCPU_DATA_TYPE_FLOAT32;
static uint32_t s_mat[2] = {64, 48}, s_row[2] = {1, 48}, s_col[2] = {64, 1};
static uint32_t s_big[2] = {1024, 1024}, s_big_col[2] = {1024, 1}, s_big_row[2] = {1, 1024};
static uint32_t s_part[2] = {64, 16}, s_win[2] = {40, 22};
static uint32_t tr[2] = {1, 64};               /* a transposed 64 x 48 layout */
/* outputs whose strides interleave without meeting: proven element by element, over a bitmap
 * (a small span) or over the sorted offsets (a span of 2 * 10^8 bytes, of which 9 are written) */
static uint32_t s_inter[2] = {2, 3}, interleaved[2] = {3, 2};
static uint32_t s_sparse[2] = {3, 3}, sparse_strides[2] = {50000000, 50000001};
static uint32_t ax0[1] = {0}, ax1[1] = {1}, win_off[2] = {8, 4}, win_size[2] = {40, 44};
static int32_t win_step[2] = {1, -2};

typedef struct {
    const char *name;
    dmlcpu_operator_desc desc;
} alloc_case;

static dmlcpu_tensor_desc t_mat, t_mat_tr, t_row, t_col, t_big, t_big_col, t_big_row, t_parts[3],
    t_win, t_inter_in, t_inter_out, t_sparse_in, t_sparse_out, t_idx;
static dmlcpu_reduce_operator_desc r_rows, r_cols, r_big_cols, r_big_rows;
static dmlcpu_argmin_operator_desc a_cols;
static dmlcpu_slice_operator_desc sl;
static dmlcpu_slice_grad_operator_desc sg;
static dmlcpu_split_operator_desc sp;
static dmlcpu_join_operator_desc jn;
static dmlcpu_identity_operator_desc id_tr, id_inter, id_sparse;

static size_t build_cases(alloc_case *c)
{
    t_mat = (dmlcpu_tensor_desc){F32, 2, s_mat, NULL, 0};
    t_mat_tr = (dmlcpu_tensor_desc){F32, 2, s_mat, tr, 0};
    t_row = (dmlcpu_tensor_desc){F32, 2, s_row, NULL, 0};
    t_col = (dmlcpu_tensor_desc){F32, 2, s_col, NULL, 0};
    t_big = (dmlcpu_tensor_desc){F32, 2, s_big, NULL, 0};
    t_big_col = (dmlcpu_tensor_desc){F32, 2, s_big_col, NULL, 0};
    t_big_row = (dmlcpu_tensor_desc){F32, 2, s_big_row, NULL, 0};
    t_idx = (dmlcpu_tensor_desc){DMLCPU_DATA_TYPE_UINT32, 2, s_row, NULL, 0};
    t_win = (dmlcpu_tensor_desc){F32, 2, s_win, NULL, 0};
    t_inter_in = (dmlcpu_tensor_desc){F32, 2, s_inter, NULL, 0};
    t_inter_out = (dmlcpu_tensor_desc){F32, 2, s_inter, interleaved, 0};
    t_sparse_in = (dmlcpu_tensor_desc){DMLCPU_DATA_TYPE_INT8, 2, s_sparse, NULL, 0};
    t_sparse_out = (dmlcpu_tensor_desc){DMLCPU_DATA_TYPE_INT8, 2, s_sparse, sparse_strides, 0};
    for (int k = 0; k < 3; k++)
        t_parts[k] = (dmlcpu_tensor_desc){F32, 2, s_part, NULL, 0};
    r_rows = (dmlcpu_reduce_operator_desc){DMLCPU_REDUCE_FUNCTION_SUM, &t_mat, &t_row, 1, ax0};
    r_cols = (dmlcpu_reduce_operator_desc){DMLCPU_REDUCE_FUNCTION_L2, &t_mat_tr, &t_col, 1, ax1};
    r_big_cols = (dmlcpu_reduce_operator_desc){DMLCPU_REDUCE_FUNCTION_SUM, &t_big, &t_big_row, 1, ax0};
    r_big_rows = (dmlcpu_reduce_operator_desc){DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP, &t_big, &t_big_col, 1, ax1};
    a_cols = (dmlcpu_argmin_operator_desc){&t_mat, &t_idx, 1, ax0, DMLCPU_AXIS_DIRECTION_DECREASING};
    sl = (dmlcpu_slice_operator_desc){&t_mat, &t_win, 2, win_off, win_size, win_step};
    sg = (dmlcpu_slice_grad_operator_desc){&t_win, &t_mat, 2, win_off, win_size, win_step};
    sp = (dmlcpu_split_operator_desc){&t_mat, 3, t_parts, 1};
    jn = (dmlcpu_join_operator_desc){3, t_parts, &t_mat, 1};
    id_tr = (dmlcpu_identity_operator_desc){&t_mat_tr, &t_mat};
    id_inter = (dmlcpu_identity_operator_desc){&t_inter_in, &t_inter_out};
    id_sparse = (dmlcpu_identity_operator_desc){&t_sparse_in, &t_sparse_out};
    size_t n = 0;
    c[n++] = (alloc_case){"REDUCE SUM over axis 0", {DMLCPU_OPERATOR_REDUCE, &r_rows}};
    c[n++] = (alloc_case){"REDUCE L2 of a transposed input", {DMLCPU_OPERATOR_REDUCE, &r_cols}};
    c[n++] = (alloc_case){"REDUCE SUM over axis 0 of 1024 x 1024 (tiled)", {DMLCPU_OPERATOR_REDUCE, &r_big_cols}};
    c[n++] = (alloc_case){"REDUCE LOG_SUM_EXP of 1024 rows (tiled)", {DMLCPU_OPERATOR_REDUCE, &r_big_rows}};
    c[n++] = (alloc_case){"ARGMAX over axis 0", {DMLCPU_OPERATOR_ARGMAX, &a_cols}};
    c[n++] = (alloc_case){"SLICE", {DMLCPU_OPERATOR_SLICE, &sl}};
    c[n++] = (alloc_case){"SLICE_GRAD", {DMLCPU_OPERATOR_SLICE_GRAD, &sg}};
    c[n++] = (alloc_case){"SPLIT in 3", {DMLCPU_OPERATOR_SPLIT, &sp}};
    c[n++] = (alloc_case){"JOIN of 3", {DMLCPU_OPERATOR_JOIN, &jn}};
    c[n++] = (alloc_case){"IDENTITY transpose", {DMLCPU_OPERATOR_IDENTITY, &id_tr}};
    c[n++] = (alloc_case){"IDENTITY into an interleaved output (bitmap)", {DMLCPU_OPERATOR_IDENTITY, &id_inter}};
    c[n++] = (alloc_case){"IDENTITY into a sparse output (sorted offsets)", {DMLCPU_OPERATOR_IDENTITY, &id_sparse}};
    return n;
}

/* ---- running ----------------------------------------------------------------------------- */

/* Bytes a tensor addresses (packed or with the given strides). */
static uint64_t bytes_of(const dmlcpu_tensor_desc *t)
{
    return dmlcpu_calc_buffer_tensor_size(t->data_type, t->dimension_count, t->sizes, t->strides);
}

typedef struct {
    uint32_t n_in, n_out;
    dmlcpu_buffer_binding in[3], out[3];
} case_buffers;

static void buffers_for(const alloc_case *c, case_buffers *b, tu_rng *rng)
{
    const dmlcpu_tensor_desc *ins[3], *outs[3];
    b->n_in = b->n_out = 1;
    switch (c->desc.type) {
    case DMLCPU_OPERATOR_REDUCE: {
        const dmlcpu_reduce_operator_desc *d = c->desc.desc;
        ins[0] = d->input_tensor, outs[0] = d->output_tensor;
        break;
    }
    case DMLCPU_OPERATOR_ARGMAX: {
        const dmlcpu_argmax_operator_desc *d = c->desc.desc;
        ins[0] = d->input_tensor, outs[0] = d->output_tensor;
        break;
    }
    case DMLCPU_OPERATOR_SLICE: ins[0] = sl.input_tensor, outs[0] = sl.output_tensor; break;
    case DMLCPU_OPERATOR_SLICE_GRAD:
        ins[0] = sg.input_gradient_tensor, outs[0] = sg.output_gradient_tensor;
        break;
    case DMLCPU_OPERATOR_SPLIT:
        ins[0] = &t_mat, b->n_out = 3;
        for (int k = 0; k < 3; k++)
            outs[k] = &t_parts[k];
        break;
    case DMLCPU_OPERATOR_JOIN:
        outs[0] = &t_mat, b->n_in = 3;
        for (int k = 0; k < 3; k++)
            ins[k] = &t_parts[k];
        break;
    default: {
        const dmlcpu_identity_operator_desc *d = c->desc.desc;
        ins[0] = d->input_tensor, outs[0] = d->output_tensor;
        break;
    }
    }
    for (uint32_t i = 0; i < b->n_in; i++) {
        uint64_t n = bytes_of(ins[i]);
        size_t esize = ins[i]->data_type == DMLCPU_DATA_TYPE_INT8 ? 1 : 4;
        b->in[i] = (dmlcpu_buffer_binding){malloc(n), n};
        tu_fill(rng, ins[i]->data_type, b->in[i].data, n / esize, TU_DATA_PLAIN, 0);
    }
    /* zeroed outputs: a sparse one stays mostly unmapped pages */
    for (uint32_t i = 0; i < b->n_out; i++) {
        uint64_t n = bytes_of(outs[i]);
        b->out[i] = (dmlcpu_buffer_binding){calloc(n, 1), n};
    }
}

static void free_buffers(case_buffers *b)
{
    for (uint32_t i = 0; i < b->n_in; i++)
        free(b->in[i].data);
    for (uint32_t i = 0; i < b->n_out; i++)
        free(b->out[i].data);
}

/* Runs every allocation of create failing in turn; returns how many allocations create makes. */
static long fail_each_allocation(const alloc_case *c, const dmlcpu_create_options *options)
{
    for (fail_at = 0;; fail_at++) {
        dmlcpu_operator *op = (dmlcpu_operator *)&op;
        calls = live = 0;
        armed = true;
        dmlcpu_status st = dmlcpu_create_operator(&c->desc, options, &op);
        armed = false;
        if (calls <= fail_at) { /* every allocation succeeded: done */
            cr_assert_eq(st, DMLCPU_STATUS_OK, "%s: %s", c->name, dmlcpu_last_error_message());
            armed = true;
            dmlcpu_destroy_operator(op);
            armed = false;
            cr_assert_eq(live, 0, "%s: destroy left %ld blocks", c->name, live);
            return fail_at;
        }
        cr_assert_eq(st, DMLCPU_STATUS_OUT_OF_MEMORY,
                     "%s: allocation %ld of %ld failed, create returned %s (%s)", c->name, fail_at,
                     calls, dmlcpu_status_string(st), dmlcpu_last_error_message());
        cr_assert_null(op, "%s: allocation %ld failed, yet an operator was returned", c->name, fail_at);
        cr_assert(strstr(dmlcpu_last_error_message(), "out of memory"),
                  "%s: allocation %ld failed, message \"%s\"", c->name, fail_at,
                  dmlcpu_last_error_message());
        cr_assert_eq(live, 0, "%s: allocation %ld failed and create kept %ld blocks", c->name,
                     fail_at, live);
    }
}

/* Executes a fresh operator on b (asserting OK). */
static void run_case(const alloc_case *c, const dmlcpu_create_options *options, case_buffers *b)
{
    dmlcpu_operator *op = NULL;
    cr_assert_eq(dmlcpu_create_operator(&c->desc, options, &op), DMLCPU_STATUS_OK, "%s: %s",
                 c->name, dmlcpu_last_error_message());
    dmlcpu_binding_properties bp;
    dmlcpu_get_binding_properties(op, &bp);
    void *temp = bp.temporary_size_in_bytes ? malloc(bp.temporary_size_in_bytes) : NULL;
    dmlcpu_bindings bind = {b->n_in, b->in, b->n_out, b->out, {temp, bp.temporary_size_in_bytes}};
    cr_assert_eq(dmlcpu_execute(op, &bind), DMLCPU_STATUS_OK, "%s: %s", c->name, dmlcpu_last_error_message());
    free(temp);
    dmlcpu_destroy_operator(op);
}

static void host_pool(void *pool_context, dmlcpu_task_fn task, void *task_context, size_t count)
{
    (void)pool_context;
    for (size_t i = 0; i < count; i++)
        task(task_context, i);
}

Test(alloc, every_allocation_of_create_fails_in_turn)
{
    alloc_case cases[16];
    size_t n = build_cases(cases);
    const dmlcpu_create_options options[3] = {{1, NULL, NULL}, {7, NULL, NULL}, {4, host_pool, NULL}};
    long total = 0;
    for (size_t k = 0; k < n; k++)
        for (int o = 0; o < 3; o++) {
            tu_rng rng;
            tu_rng_init(&rng, "alloc", k, (uint64_t)o);
            case_buffers before, after;
            buffers_for(&cases[k], &before, &rng);
            tu_rng_init(&rng, "alloc", k, (uint64_t)o);
            buffers_for(&cases[k], &after, &rng);
            run_case(&cases[k], &options[o], &before);
            long allocations = fail_each_allocation(&cases[k], &options[o]);
            cr_assert_gt(allocations, 0, "%s: create allocated nothing", cases[k].name);
            total += allocations;
            /* still usable: the same bits as before the failures */
            run_case(&cases[k], &options[o], &after);
            for (uint32_t i = 0; i < before.n_out; i++)
                cr_assert(memcmp(before.out[i].data, after.out[i].data, before.out[i].size_in_bytes) == 0,
                          "%s: output %u differs after the failed creates", cases[k].name, i);
            free_buffers(&before);
            free_buffers(&after);
        }
    cr_log_info("%ld failing allocations over %zu operators x 3 option sets", total, n);
}
