/*
 * Threads: results never depend on who runs the tiles. Every case is first run with
 * max_threads = 1 (the caller's thread only; that path is compared with the oracle by the other
 * suites), then with a host pool that runs the tasks on its own pthreads, and by four threads
 * executing one operator at the same time on different data. All comparisons are bytewise.
 */
#define _POSIX_C_SOURCE 200809L /* pthread barriers */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DMLCPU_TESTS_IN_PROCESS
#include "inprocess.h"
#else
#include <criterion/criterion.h>
#endif

#include <dmlcpu.h>

/* ---- a host pool that runs each parallel_for on three fresh pthreads ---------------------- */

typedef struct {
    dmlcpu_task_fn task;
    void *ctx;
    size_t count;
    _Atomic size_t next;
} pool_job;

static _Atomic size_t pool_invocations;

static void *pool_worker(void *arg)
{
    pool_job *j = arg;
    for (size_t i; (i = atomic_fetch_add(&j->next, 1)) < j->count;)
        j->task(j->ctx, i);
    return NULL;
}

static void pthread_pool(void *pool_context, dmlcpu_task_fn task, void *task_context, size_t task_count)
{
    (void)pool_context;
    pool_job j = {task, task_context, task_count, 0};
    pthread_t t[3];
    atomic_fetch_add(&pool_invocations, 1);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, pool_worker, &j), 0);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
}

/* ---- cases -------------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    dmlcpu_operator_desc desc;
    uint32_t in_count, out_count;
    uint64_t in_bytes[4], out_bytes[4];
} op_case;

static uint32_t s_big[1] = {3u << 20}, s_one[1] = {1};                 /* 12 MiB f32: one output */
static uint32_t s_narrow[2] = {1u << 20, 4}, s_narrow_out[2] = {1, 4}; /* N x 4 over axis 0 */
static uint32_t s_rows[2] = {2048, 1024}, s_rows_out[2] = {2048, 1};   /* many row outputs */
static uint32_t s_cols[2] = {1024, 2048}, s_cols_out[2] = {1, 2048};   /* column tiles */
static uint32_t s_mat[2] = {1024, 1536}, s_tr_strides[2] = {1, 1024};  /* a transposed view */
static uint32_t s_part[2] = {1024, 512};
static uint32_t ax0[1] = {0}, ax1[1] = {1};

static dmlcpu_tensor_desc t_big, t_one, t_narrow, t_narrow_out, t_rows, t_rows_out, t_cols,
    t_cols_out, t_mat, t_mat_tr, t_parts[3], t_lse_in, t_lse_out, t_arg_out;
static dmlcpu_reduce_operator_desc r_sum_all, r_narrow, r_rows, r_cols, r_lse;
static dmlcpu_argmin_operator_desc a_cols;
static dmlcpu_identity_operator_desc id_tr;
static dmlcpu_split_operator_desc split3;

static size_t build_cases(op_case *c)
{
    const dmlcpu_data_type f32 = DMLCPU_DATA_TYPE_FLOAT32;
    t_big = (dmlcpu_tensor_desc){f32, 1, s_big, NULL, 0};
    t_one = (dmlcpu_tensor_desc){f32, 1, s_one, NULL, 0};
    t_narrow = (dmlcpu_tensor_desc){f32, 2, s_narrow, NULL, 0};
    t_narrow_out = (dmlcpu_tensor_desc){f32, 2, s_narrow_out, NULL, 0};
    t_rows = (dmlcpu_tensor_desc){f32, 2, s_rows, NULL, 0};
    t_rows_out = (dmlcpu_tensor_desc){f32, 2, s_rows_out, NULL, 0};
    t_cols = (dmlcpu_tensor_desc){f32, 2, s_cols, NULL, 0};
    t_cols_out = (dmlcpu_tensor_desc){f32, 2, s_cols_out, NULL, 0};
    t_lse_in = (dmlcpu_tensor_desc){DMLCPU_DATA_TYPE_FLOAT16, 2, s_cols, NULL, 0};
    t_lse_out = (dmlcpu_tensor_desc){DMLCPU_DATA_TYPE_FLOAT16, 2, s_cols_out, NULL, 0};
    t_arg_out = (dmlcpu_tensor_desc){DMLCPU_DATA_TYPE_UINT32, 2, s_cols_out, NULL, 0};
    t_mat = (dmlcpu_tensor_desc){f32, 2, s_mat, NULL, 0};
    t_mat_tr = (dmlcpu_tensor_desc){f32, 2, s_mat, s_tr_strides, 0};
    for (int k = 0; k < 3; k++)
        t_parts[k] = (dmlcpu_tensor_desc){f32, 2, s_part, NULL, 0};
    r_sum_all = (dmlcpu_reduce_operator_desc){DMLCPU_REDUCE_FUNCTION_SUM, &t_big, &t_one, 1, ax0};
    r_narrow = (dmlcpu_reduce_operator_desc){DMLCPU_REDUCE_FUNCTION_L2, &t_narrow, &t_narrow_out, 1, ax0};
    r_rows = (dmlcpu_reduce_operator_desc){DMLCPU_REDUCE_FUNCTION_AVERAGE, &t_rows, &t_rows_out, 1, ax1};
    r_cols = (dmlcpu_reduce_operator_desc){DMLCPU_REDUCE_FUNCTION_SUM, &t_cols, &t_cols_out, 1, ax0};
    r_lse = (dmlcpu_reduce_operator_desc){DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP, &t_lse_in, &t_lse_out, 1, ax0};
    a_cols = (dmlcpu_argmin_operator_desc){&t_cols, &t_arg_out, 1, ax0, DMLCPU_AXIS_DIRECTION_DECREASING};
    id_tr = (dmlcpu_identity_operator_desc){&t_mat_tr, &t_mat};
    s_mat[0] = 1024;
    split3 = (dmlcpu_split_operator_desc){&t_mat, 3, t_parts, 1};
    size_t n = 0;
    c[n++] = (op_case){"SUM of 3M f32 (block tiles)", {DMLCPU_OPERATOR_REDUCE, &r_sum_all}, 1, 1, {12u << 20}, {4}};
    c[n++] = (op_case){"L2 of 1M x 4 over axis 0 (column block tiles)", {DMLCPU_OPERATOR_REDUCE, &r_narrow}, 1, 1, {16u << 20}, {16}};
    c[n++] = (op_case){"AVERAGE of 2048 rows", {DMLCPU_OPERATOR_REDUCE, &r_rows}, 1, 1, {8u << 20}, {8192}};
    c[n++] = (op_case){"SUM over axis 0 of 1024 x 2048", {DMLCPU_OPERATOR_REDUCE, &r_cols}, 1, 1, {8u << 20}, {8192}};
    c[n++] = (op_case){"LOG_SUM_EXP f16 over axis 0", {DMLCPU_OPERATOR_REDUCE, &r_lse}, 1, 1, {4u << 20}, {4096}};
    c[n++] = (op_case){"ARGMAX DECREASING over axis 0", {DMLCPU_OPERATOR_ARGMAX, &a_cols}, 1, 1, {8u << 20}, {8192}};
    c[n++] = (op_case){"IDENTITY transpose", {DMLCPU_OPERATOR_IDENTITY, &id_tr}, 1, 1, {6u << 20}, {6u << 20}};
    c[n++] = (op_case){"SPLIT in 3", {DMLCPU_OPERATOR_SPLIT, &split3}, 1, 3, {6u << 20}, {2u << 20, 2u << 20, 2u << 20}};
    return n;
}

/* Data: small integers in f32 or f16 (plenty of ties for ARGMAX), from a seed. */
static void fill(void *buf, uint64_t bytes, uint32_t seed, int half)
{
    uint32_t x = seed * 2654435761u + 1;
    if (half) {
        uint16_t *h = buf;
        for (uint64_t i = 0; i < bytes / 2; i++) {
            x = x * 1664525u + 1013904223u;
            h[i] = (uint16_t)(0x3c00 + ((x >> 24) & 0x3ff)); /* [1, 2) */
        }
        return;
    }
    float *f = buf;
    for (uint64_t i = 0; i < bytes / 4; i++) {
        x = x * 1664525u + 1013904223u;
        f[i] = (float)((int)(x >> 25) - 64) / 8.0f;
    }
}

typedef struct {
    const op_case *c;
    const dmlcpu_operator *op;
    void *in[4], *out[4], *temp;
    uint64_t temp_bytes;
} run_buffers;

static void alloc_buffers(run_buffers *b, const op_case *c, const dmlcpu_operator *op, uint32_t seed)
{
    dmlcpu_binding_properties bp;
    dmlcpu_get_binding_properties(op, &bp);
    b->c = c;
    b->op = op;
    for (uint32_t i = 0; i < c->in_count; i++) {
        b->in[i] = malloc(c->in_bytes[i]);
        cr_assert_not_null(b->in[i]);
        fill(b->in[i], c->in_bytes[i], seed + i, c->desc.desc == &r_lse);
    }
    for (uint32_t i = 0; i < c->out_count; i++) {
        b->out[i] = malloc(c->out_bytes[i]);
        cr_assert_not_null(b->out[i]);
        memset(b->out[i], 0xA5, c->out_bytes[i]);
    }
    b->temp_bytes = bp.temporary_size_in_bytes;
    b->temp = b->temp_bytes ? malloc(b->temp_bytes) : NULL;
}

static void free_buffers(run_buffers *b)
{
    for (uint32_t i = 0; i < b->c->in_count; i++)
        free(b->in[i]);
    for (uint32_t i = 0; i < b->c->out_count; i++)
        free(b->out[i]);
    free(b->temp);
}

static dmlcpu_status run(run_buffers *b)
{
    dmlcpu_buffer_binding in[4], out[4];
    for (uint32_t i = 0; i < b->c->in_count; i++)
        in[i] = (dmlcpu_buffer_binding){b->in[i], b->c->in_bytes[i]};
    for (uint32_t i = 0; i < b->c->out_count; i++)
        out[i] = (dmlcpu_buffer_binding){b->out[i], b->c->out_bytes[i]};
    dmlcpu_bindings bind = {b->c->in_count, in, b->c->out_count, out, {b->temp, b->temp_bytes}};
    return dmlcpu_execute(b->op, &bind);
}

static void assert_same_outputs(const run_buffers *a, const run_buffers *b, const char *what)
{
    for (uint32_t i = 0; i < a->c->out_count; i++)
        cr_assert(memcmp(a->out[i], b->out[i], a->c->out_bytes[i]) == 0, "%s: %s, output %u differs",
                  a->c->name, what, i);
}

static dmlcpu_operator *create(const op_case *c, const dmlcpu_create_options *o)
{
    dmlcpu_operator *op = NULL;
    cr_assert_eq(dmlcpu_create_operator(&c->desc, o, &op), DMLCPU_STATUS_OK, "%s: %s", c->name,
                 dmlcpu_last_error_message());
    return op;
}

Test(threads, host_pool_on_its_own_pthreads)
{
    op_case cases[16];
    size_t n = build_cases(cases);
    for (size_t k = 0; k < n; k++) {
        dmlcpu_create_options one = {1, NULL, NULL}, pool = {3, pthread_pool, NULL};
        dmlcpu_operator *serial = create(&cases[k], &one), *pooled = create(&cases[k], &pool);
        run_buffers a, b;
        alloc_buffers(&a, &cases[k], serial, (uint32_t)k);
        alloc_buffers(&b, &cases[k], pooled, (uint32_t)k);
        size_t before = atomic_load(&pool_invocations);
        cr_assert_eq(run(&a), DMLCPU_STATUS_OK);
        cr_assert_eq(run(&b), DMLCPU_STATUS_OK, "%s: %s", cases[k].name, dmlcpu_last_error_message());
        /* every case is large enough to be tiled: the pool must have been used */
        cr_assert_gt(atomic_load(&pool_invocations), before, "%s: the host pool was not called",
                     cases[k].name);
        assert_same_outputs(&a, &b, "host pool on pthreads vs the caller's thread");
        free_buffers(&a);
        free_buffers(&b);
        dmlcpu_destroy_operator(serial);
        dmlcpu_destroy_operator(pooled);
    }
}

/* ---- four threads executing one operator at once ------------------------------------------ */

typedef struct {
    run_buffers buf;
    int repeats;
    dmlcpu_status status;
    pthread_barrier_t *start;
} concurrent_arg;

static void *concurrent_worker(void *p)
{
    concurrent_arg *a = p;
    pthread_barrier_wait(a->start);
    for (int r = 0; r < a->repeats && a->status == DMLCPU_STATUS_OK; r++)
        a->status = run(&a->buf);
    return NULL;
}

Test(threads, four_threads_execute_one_operator)
{
    op_case cases[16];
    size_t n = build_cases(cases);
    for (size_t k = 0; k < n; k++) {
        dmlcpu_create_options one = {1, NULL, NULL}, dflt = {0, NULL, NULL};
        dmlcpu_operator *serial = create(&cases[k], &one), *shared = create(&cases[k], &dflt);
        concurrent_arg args[4];
        run_buffers expect[4];
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, 4);
        for (int t = 0; t < 4; t++) {
            /* each thread its own data; the expected result from the serial operator */
            alloc_buffers(&expect[t], &cases[k], serial, (uint32_t)(100 * k + t));
            cr_assert_eq(run(&expect[t]), DMLCPU_STATUS_OK);
            alloc_buffers(&args[t].buf, &cases[k], shared, (uint32_t)(100 * k + t));
            args[t].repeats = 3;
            args[t].status = DMLCPU_STATUS_OK;
            args[t].start = &start;
        }
        pthread_t th[4];
        for (int t = 0; t < 4; t++)
            cr_assert_eq(pthread_create(&th[t], NULL, concurrent_worker, &args[t]), 0);
        for (int t = 0; t < 4; t++)
            pthread_join(th[t], NULL);
        pthread_barrier_destroy(&start);
        for (int t = 0; t < 4; t++) {
            cr_assert_eq(args[t].status, DMLCPU_STATUS_OK, "%s: thread %d", cases[k].name, t);
            assert_same_outputs(&expect[t], &args[t].buf, "four threads at once");
            free_buffers(&expect[t]);
            free_buffers(&args[t].buf);
        }
        dmlcpu_destroy_operator(serial);
        dmlcpu_destroy_operator(shared);
    }
}

/* ---- 16 and 64 threads: OpenMP (oversubscribed on a small machine) and a host pool ---------
 * Column reductions of every kind whose column tiles are fewer than the tasks wanted: the plan
 * narrows the tiles and cuts the reduced rows into block-aligned ranges (order-free kinds: row
 * ranges) whose partials combine in order. Each case runs with 1 thread, then with 16 and 64
 * threads under OpenMP and under a host pool that runs the tasks in reverse order on the
 * calling thread (so a unit's last range finishes first); every output must have the 1-thread
 * bits. The sums get full-mantissa data (so that any other order of additions shows), ARG*,
 * MIN and MAX data full of ties (so that the first/last rule across range boundaries shows). */

typedef struct {
    size_t calls, most_tasks;
} reverse_log;

static void reverse_pool(void *pool_context, dmlcpu_task_fn task, void *task_context, size_t task_count)
{
    reverse_log *log = pool_context;
    log->calls++;
    if (task_count > log->most_tasks)
        log->most_tasks = task_count;
    for (size_t i = task_count; i-- > 0;)
        task(task_context, i);
}

typedef enum { DATA_FULL, DATA_TIES } data_kind;

typedef struct {
    const char *name;
    dmlcpu_operator_type type;
    int function;              /* REDUCE function; ARGMIN/ARGMAX: the axis direction */
    dmlcpu_data_type in_type, out_type;
    uint32_t rank, sizes[3], axis;
    data_kind data;
    uint32_t tasks64;          /* the 64-thread plan exposes at least this many tasks */
} many_case;

static const many_case many_cases[] = {
    /* one canonical block of rows: only narrower column tiles can feed the threads */
    {"SUM f32 2048 x 2048 over axis 0", DMLCPU_OPERATOR_REDUCE, DMLCPU_REDUCE_FUNCTION_SUM,
     DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_FLOAT32, 2, {2048, 2048}, 0, DATA_FULL, 64},
    /* 25 MiB with rows of 1600 columns back to back: one thread takes whole rows per tile
     * (DMLCPU_COL_WIDE_TILE), many threads narrow tiles from there and split the two blocks */
    {"L2 f32 4099 x 1600 over axis 0", DMLCPU_OPERATOR_REDUCE, DMLCPU_REDUCE_FUNCTION_L2,
     DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_FLOAT32, 2, {4099, 1600}, 0, DATA_FULL, 48},
    /* 5 blocks (the last one short) of 96 columns: ranges of single blocks, an odd count */
    {"SUM_SQUARE f32 16461 x 96 over axis 0", DMLCPU_OPERATOR_REDUCE, DMLCPU_REDUCE_FUNCTION_SUM_SQUARE,
     DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_FLOAT32, 2, {16461, 96}, 0, DATA_FULL, 10},
    {"AVERAGE f16 20480 x 112 over axis 0", DMLCPU_OPERATOR_REDUCE, DMLCPU_REDUCE_FUNCTION_AVERAGE,
     DMLCPU_DATA_TYPE_FLOAT16, DMLCPU_DATA_TYPE_FLOAT16, 2, {20480, 112}, 0, DATA_FULL, 10},
    {"SUM f64 over the middle axis of 4 x 6200 x 40", DMLCPU_OPERATOR_REDUCE,
     DMLCPU_REDUCE_FUNCTION_SUM, DMLCPU_DATA_TYPE_FLOAT64, DMLCPU_DATA_TYPE_FLOAT64, 3,
     {4, 6200, 40}, 1, DATA_FULL, 16},
    {"LOG_SUM_EXP f32 12300 x 200 over axis 0", DMLCPU_OPERATOR_REDUCE,
     DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP, DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_FLOAT32, 2,
     {12300, 200}, 0, DATA_FULL, 16},
    {"L1 f32 narrow columns 600000 x 3 over axis 0", DMLCPU_OPERATOR_REDUCE, DMLCPU_REDUCE_FUNCTION_L1,
     DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_FLOAT32, 2, {600000, 3}, 0, DATA_FULL, 32},
    /* order-free kinds: rows cut anywhere, including inside a block of one */
    {"ARGMAX f32 4000 x 1024 over axis 0", DMLCPU_OPERATOR_ARGMAX, DMLCPU_AXIS_DIRECTION_INCREASING,
     DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_INT64, 2, {4000, 1024}, 0, DATA_TIES, 64},
    {"ARGMIN DECREASING f32 4000 x 1024 over axis 0", DMLCPU_OPERATOR_ARGMIN,
     DMLCPU_AXIS_DIRECTION_DECREASING, DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_UINT32, 2,
     {4000, 1024}, 0, DATA_TIES, 64},
    /* 17 MB of float rows of 15600 bytes: one thread reads each group's rows one after the
     * other (COL_ARG_SEQ over wide rows), many threads split the rows into ranges */
    {"ARGMAX f32 1100 x 3900 over axis 0", DMLCPU_OPERATOR_ARGMAX, DMLCPU_AXIS_DIRECTION_INCREASING,
     DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_INT64, 2, {1100, 3900}, 0, DATA_TIES, 16},
    {"ARGMAX DECREASING f16 narrow columns 1000003 x 3 over axis 0", DMLCPU_OPERATOR_ARGMAX,
     DMLCPU_AXIS_DIRECTION_DECREASING, DMLCPU_DATA_TYPE_FLOAT16, DMLCPU_DATA_TYPE_INT32, 2,
     {1000003, 3}, 0, DATA_TIES, 24},
    {"MAX u8 4096 x 2048 over axis 0", DMLCPU_OPERATOR_REDUCE, DMLCPU_REDUCE_FUNCTION_MAX,
     DMLCPU_DATA_TYPE_UINT8, DMLCPU_DATA_TYPE_UINT8, 2, {4096, 2048}, 0, DATA_TIES, 64},
    {"SUM i32 3000 x 1000 over axis 0", DMLCPU_OPERATOR_REDUCE, DMLCPU_REDUCE_FUNCTION_SUM,
     DMLCPU_DATA_TYPE_INT32, DMLCPU_DATA_TYPE_INT32, 2, {3000, 1000}, 0, DATA_FULL, 48},
};

static size_t type_size(dmlcpu_data_type t)
{
    switch (t) {
    case DMLCPU_DATA_TYPE_UINT8:
    case DMLCPU_DATA_TYPE_INT8: return 1;
    case DMLCPU_DATA_TYPE_FLOAT16:
    case DMLCPU_DATA_TYPE_UINT16:
    case DMLCPU_DATA_TYPE_INT16: return 2;
    case DMLCPU_DATA_TYPE_FLOAT64:
    case DMLCPU_DATA_TYPE_UINT64:
    case DMLCPU_DATA_TYPE_INT64: return 8;
    default: return 4;
    }
}

/* DATA_FULL: floats in +-[0.5, 2) with random mantissas (f16: [1, 2)); DATA_TIES: floats from 16
 * values; integers: random bits either way. */
static void fill_many(const many_case *c, void *buf, size_t count, uint64_t seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < count; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint32_t b = (uint32_t)(x >> 32);
        switch (c->in_type) {
        case DMLCPU_DATA_TYPE_FLOAT32: {
            float f = c->data == DATA_TIES ? (float)((int)(b >> 28) - 8)
                                           : (float)((b >> 8) | 0x800000u) / (float)(1u << 23) *
                                                 ((b & 1) ? -0.5f : 0.5f) * 2.0f;
            ((float *)buf)[i] = f;
            break;
        }
        case DMLCPU_DATA_TYPE_FLOAT64:
            ((double *)buf)[i] = ((double)(x >> 11) / 9007199254740992.0 + 1.0) * ((b & 1) ? -0.75 : 0.75);
            break;
        case DMLCPU_DATA_TYPE_FLOAT16:
            ((uint16_t *)buf)[i] = (uint16_t)(c->data == DATA_TIES ? 0x3c00 + ((b >> 28) << 6)
                                                                   : 0x3c00 + (b >> 22));
            break;
        default:
            memcpy((char *)buf + i * type_size(c->in_type), &x, type_size(c->in_type));
            break;
        }
    }
}

/* Creates c's operator with the options and runs it on in; out receives the output. Returns the
 * host pool's largest task count (0 without a pool). */
static size_t run_many(const many_case *c, const dmlcpu_create_options *o, reverse_log *log,
                       const void *in, uint64_t in_bytes, void *out, uint64_t out_bytes,
                       const char *what)
{
    uint32_t out_sizes[3];
    memcpy(out_sizes, c->sizes, sizeof out_sizes);
    out_sizes[c->axis] = 1;
    dmlcpu_tensor_desc ti = {c->in_type, c->rank, c->sizes, NULL, 0};
    dmlcpu_tensor_desc to = {c->out_type, c->rank, out_sizes, NULL, 0};
    uint32_t axes[1] = {c->axis};
    dmlcpu_reduce_operator_desc rd = {(dmlcpu_reduce_function)c->function, &ti, &to, 1, axes};
    dmlcpu_argmax_operator_desc ad = {&ti, &to, 1, axes, (dmlcpu_axis_direction)c->function};
    dmlcpu_operator_desc desc = {c->type, c->type == DMLCPU_OPERATOR_REDUCE ? (const void *)&rd
                                                                              : (const void *)&ad};
    dmlcpu_operator *op = NULL;
    cr_assert_eq(dmlcpu_create_operator(&desc, o, &op), DMLCPU_STATUS_OK, "%s, %s: %s", c->name,
                 what, dmlcpu_last_error_message());
    dmlcpu_binding_properties bp;
    dmlcpu_get_binding_properties(op, &bp);
    void *temp = bp.temporary_size_in_bytes ? malloc(bp.temporary_size_in_bytes) : NULL;
    dmlcpu_buffer_binding bi = {(void *)in, in_bytes}, bo = {out, out_bytes};
    dmlcpu_bindings b = {1, &bi, 1, &bo, {temp, bp.temporary_size_in_bytes}};
    if (log)
        *log = (reverse_log){0, 0};
    cr_assert_eq(dmlcpu_execute(op, &b), DMLCPU_STATUS_OK, "%s, %s: %s", c->name, what,
                 dmlcpu_last_error_message());
    free(temp);
    dmlcpu_destroy_operator(op);
    return log ? log->most_tasks : 0;
}

Test(threads, sixteen_and_sixty_four_threads_give_one_thread_bits)
{
    for (size_t k = 0; k < sizeof many_cases / sizeof many_cases[0]; k++) {
        const many_case *c = &many_cases[k];
        uint64_t count = 1, outputs = 1;
        for (uint32_t d = 0; d < c->rank; d++) {
            count *= c->sizes[d];
            outputs *= d == c->axis ? 1 : c->sizes[d];
        }
        uint64_t in_bytes = count * type_size(c->in_type), out_bytes = outputs * type_size(c->out_type);
        void *in = malloc(in_bytes), *expect = malloc(out_bytes), *got = malloc(out_bytes);
        cr_assert(in && expect && got);
        fill_many(c, in, count, k + 1);
        dmlcpu_create_options one = {1, NULL, NULL};
        memset(expect, 0xA5, out_bytes);
        run_many(c, &one, NULL, in, in_bytes, expect, out_bytes, "1 thread");
        static const uint32_t counts[2] = {16, 64};
        for (int n = 0; n < 2; n++) {
            char what[64];
            reverse_log log;
            dmlcpu_create_options omp = {counts[n], NULL, NULL}, pool = {counts[n], reverse_pool, &log};
            snprintf(what, sizeof what, "%u OpenMP threads", counts[n]);
            memset(got, 0x5A, out_bytes);
            run_many(c, &omp, NULL, in, in_bytes, got, out_bytes, what);
            cr_assert(memcmp(expect, got, out_bytes) == 0, "%s: %s differ from 1 thread", c->name, what);
            snprintf(what, sizeof what, "a %u-thread host pool in reverse order", counts[n]);
            memset(got, 0x5A, out_bytes);
            size_t tasks = run_many(c, &pool, &log, in, in_bytes, got, out_bytes, what);
            cr_assert(memcmp(expect, got, out_bytes) == 0, "%s: %s differ from 1 thread", c->name, what);
            /* planned for the pool's threads, not for this machine's */
            uint32_t least = counts[n] < c->tasks64 ? counts[n] : c->tasks64;
            cr_assert_geq(tasks, least, "%s: %s ran %zu tasks, expected at least %u", c->name, what,
                          tasks, least);
        }
        free(in);
        free(expect);
        free(got);
    }
}

/* ---- eight threads at once on one operator that runs on a pthread host pool -------------- */

/* The ThreadSanitizer job (.ci/run) runs this suite in a build without OpenMP, whose runtime it
 * cannot see: every thread here is a pthread it watches. */
Test(threads, eight_threads_execute_one_operator_on_a_host_pool)
{
    op_case cases[16];
    size_t n = build_cases(cases);
    for (size_t k = 0; k < n; k++) {
        dmlcpu_create_options one = {1, NULL, NULL}, pool = {3, pthread_pool, NULL};
        dmlcpu_operator *serial = create(&cases[k], &one), *shared = create(&cases[k], &pool);
        concurrent_arg args[8];
        run_buffers expect[2];
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, 8);
        for (int s = 0; s < 2; s++) { /* two data sets, four threads on each */
            alloc_buffers(&expect[s], &cases[k], serial, (uint32_t)(100 * k + s));
            cr_assert_eq(run(&expect[s]), DMLCPU_STATUS_OK);
        }
        for (int t = 0; t < 8; t++) {
            alloc_buffers(&args[t].buf, &cases[k], shared, (uint32_t)(100 * k + t % 2));
            args[t].repeats = 2;
            args[t].status = DMLCPU_STATUS_OK;
            args[t].start = &start;
        }
        size_t before = atomic_load(&pool_invocations);
        pthread_t th[8];
        for (int t = 0; t < 8; t++)
            cr_assert_eq(pthread_create(&th[t], NULL, concurrent_worker, &args[t]), 0);
        for (int t = 0; t < 8; t++)
            pthread_join(th[t], NULL);
        pthread_barrier_destroy(&start);
        cr_assert_geq(atomic_load(&pool_invocations), before + 16, "%s: the host pool was not used",
                      cases[k].name);
        for (int t = 0; t < 8; t++) {
            cr_assert_eq(args[t].status, DMLCPU_STATUS_OK, "%s: thread %d", cases[k].name, t);
            assert_same_outputs(&expect[t % 2], &args[t].buf, "eight threads at once");
            free_buffers(&args[t].buf);
        }
        for (int s = 0; s < 2; s++)
            free_buffers(&expect[s]);
        dmlcpu_destroy_operator(serial);
        dmlcpu_destroy_operator(shared);
    }
}

/* ---- creates and destroys on some threads while others execute -------------------------- */

typedef struct {
    const op_case *cases;
    size_t case_count;
    int rounds;
    int failures; /* wrong statuses or another thread's message */
    pthread_barrier_t *start;
} churn_arg;

/* Creates and destroys every case on a host pool, and a refused create whose message must be
 * this thread's own (the message is thread-local), round after round. */
static void *churn_worker(void *p)
{
    churn_arg *a = p;
    uint32_t bad_sizes[1] = {0};
    dmlcpu_tensor_desc bad = {DMLCPU_DATA_TYPE_FLOAT32, 1, bad_sizes, NULL, 0};
    dmlcpu_identity_operator_desc bad_id = {&bad, &bad};
    dmlcpu_operator_desc bad_desc = {DMLCPU_OPERATOR_IDENTITY, &bad_id};
    dmlcpu_create_options pool = {2, pthread_pool, NULL};
    pthread_barrier_wait(a->start);
    for (int r = 0; r < a->rounds; r++)
        for (size_t k = 0; k < a->case_count; k++) {
            dmlcpu_operator *op = NULL;
            if (dmlcpu_create_operator(&a->cases[k].desc, &pool, &op) != DMLCPU_STATUS_OK)
                a->failures++;
            dmlcpu_binding_properties bp = {0};
            dmlcpu_get_binding_properties(op, &bp);
            a->failures += bp.output_count != a->cases[k].out_count;
            dmlcpu_destroy_operator(op);
            op = NULL;
            a->failures += dmlcpu_create_operator(&bad_desc, &pool, &op) != DMLCPU_STATUS_INVALID_ARGUMENT;
            a->failures += op != NULL;
            a->failures += strstr(dmlcpu_last_error_message(), "IDENTITY: InputTensor.Sizes[0] is 0") == NULL;
        }
    return NULL;
}

Test(threads, creates_and_destroys_while_other_threads_execute)
{
    op_case cases[16];
    size_t n = build_cases(cases);
    enum { EXECUTORS = 4, CHURNERS = 4 };
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, EXECUTORS + CHURNERS);
    dmlcpu_create_options one = {1, NULL, NULL}, pool = {3, pthread_pool, NULL};
    dmlcpu_operator *serial[EXECUTORS], *pooled[EXECUTORS];
    run_buffers expect[EXECUTORS];
    concurrent_arg exec[EXECUTORS];
    churn_arg churn[CHURNERS];
    pthread_t th[EXECUTORS + CHURNERS];
    for (int t = 0; t < EXECUTORS; t++) { /* each executor its own operator */
        const op_case *c = &cases[(size_t)(2 * t + 1) % n];
        serial[t] = create(c, &one);
        pooled[t] = create(c, &pool);
        alloc_buffers(&expect[t], c, serial[t], (uint32_t)t);
        cr_assert_eq(run(&expect[t]), DMLCPU_STATUS_OK);
        alloc_buffers(&exec[t].buf, c, pooled[t], (uint32_t)t);
        exec[t].repeats = 3;
        exec[t].status = DMLCPU_STATUS_OK;
        exec[t].start = &start;
        cr_assert_eq(pthread_create(&th[t], NULL, concurrent_worker, &exec[t]), 0);
    }
    for (int t = 0; t < CHURNERS; t++) {
        churn[t] = (churn_arg){cases, n, 3, 0, &start};
        cr_assert_eq(pthread_create(&th[EXECUTORS + t], NULL, churn_worker, &churn[t]), 0);
    }
    for (int t = 0; t < EXECUTORS + CHURNERS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&start);
    for (int t = 0; t < CHURNERS; t++)
        cr_assert_eq(churn[t].failures, 0, "create/destroy thread %d: %d failures", t, churn[t].failures);
    for (int t = 0; t < EXECUTORS; t++) {
        cr_assert_eq(exec[t].status, DMLCPU_STATUS_OK, "executing thread %d", t);
        assert_same_outputs(&expect[t], &exec[t].buf, "while other threads create and destroy");
        free_buffers(&expect[t]);
        free_buffers(&exec[t].buf);
        dmlcpu_destroy_operator(serial[t]);
        dmlcpu_destroy_operator(pooled[t]);
    }
}
