/*
 * dmlcpu-peer-dnnl: runs dmlcpu-bench's cases with oneDNN, for bench/peers.
 *
 * Reads case keys "dtype|op|pattern|size" on stdin, one a line, and answers each with
 * "key|median_s|min_s" or "key|skip|reason". The cases are rebuilt from the same matrix as
 * dmlcpu-bench's (cases.c), with the same data and the same timer. Threads follow the OpenMP
 * settings (OMP_NUM_THREADS), as oneDNN's CPU runtime does.
 *
 * What oneDNN offers: the reduction primitive (sum, max, mean, Lp norms, product; no argmax and
 * no log-sum-exp), reorder for strided copies (no negative strides) and concat. SPLIT is one
 * reorder per part, SLICE_GRAD a memset and one reorder into the strided window.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>

#include "bench.h"

#define MAX_PRIMS BENCH_PARTS

typedef struct {
    dnnl_stream_t stream;
    int count;
    dnnl_primitive_t prim[MAX_PRIMS];
    dnnl_exec_arg_t args[MAX_PRIMS][BENCH_PARTS + 1];
    int nargs[MAX_PRIMS];
    void *zero_dst; /* SLICE_GRAD: cleared before the scatter */
    size_t zero_bytes;
} peer_run;

static dnnl_engine_t engine;
static char reason[256];

static int dnnl_type(dmlcpu_data_type t, dnnl_data_type_t *out)
{
    switch (t) {
    case DMLCPU_DATA_TYPE_FLOAT32: *out = dnnl_f32; return 1;
    case DMLCPU_DATA_TYPE_FLOAT16: *out = dnnl_f16; return 1;
    case DMLCPU_DATA_TYPE_INT32: *out = dnnl_s32; return 1;
    case DMLCPU_DATA_TYPE_INT8: *out = dnnl_s8; return 1;
    case DMLCPU_DATA_TYPE_UINT8: *out = dnnl_u8; return 1;
    default: return 0;
    }
}

#define CHECK(call)                                                                              \
    do {                                                                                         \
        dnnl_status_t s_ = (call);                                                               \
        if (s_ != dnnl_success) {                                                                \
            snprintf(reason, sizeof reason, "oneDNN: %s: %s", #call, dnnl_status2str(s_));       \
            return 0;                                                                            \
        }                                                                                        \
    } while (0)

/* A packed row-major description of dims. */
static int plain_md(dnnl_memory_desc_t *md, int rank, const uint32_t *dims, dnnl_data_type_t dt)
{
    dnnl_dims_t d, s;
    int64_t stride = 1;
    for (int i = rank - 1; i >= 0; i--) {
        d[i] = dims[i];
        s[i] = stride;
        stride *= dims[i];
    }
    CHECK(dnnl_memory_desc_init_by_strides(md, rank, d, dt, s));
    return 1;
}

static int strided_md(dnnl_memory_desc_t *md, int64_t d0, int64_t d1, int64_t s0, int64_t s1,
                      dnnl_data_type_t dt)
{
    dnnl_dims_t d = {d0, d1}, s = {s0, s1};
    CHECK(dnnl_memory_desc_init_by_strides(md, 2, d, dt, s));
    return 1;
}

static int memory(dnnl_memory_t *m, const dnnl_memory_desc_t *md, void *ptr)
{
    CHECK(dnnl_memory_create(m, md, engine, ptr));
    return 1;
}

static int add_prim(peer_run *r, const_dnnl_primitive_desc_t pd)
{
    CHECK(dnnl_primitive_create(&r->prim[r->count], pd));
    r->count++;
    return 1;
}

/* One reorder src -> dst as the next primitive of r. */
static int add_reorder(peer_run *r, const dnnl_memory_desc_t *src_md, void *src,
                       const dnnl_memory_desc_t *dst_md, void *dst)
{
    dnnl_primitive_desc_t pd;
    dnnl_memory_t ms, md;
    CHECK(dnnl_reorder_primitive_desc_create(&pd, src_md, engine, dst_md, engine, NULL));
    int ok = add_prim(r, pd);
    dnnl_primitive_desc_destroy(pd);
    if (!ok || !memory(&ms, src_md, src) || !memory(&md, dst_md, dst)) return 0;
    int k = r->count - 1;
    r->args[k][0] = (dnnl_exec_arg_t){DNNL_ARG_FROM, ms};
    r->args[k][1] = (dnnl_exec_arg_t){DNNL_ARG_TO, md};
    r->nargs[k] = 2;
    return 1;
}

static int setup_reduce(peer_run *r, const bench_case *c, dnnl_data_type_t dt, void *src,
                        void *dst)
{
    dnnl_alg_kind_t alg;
    float p = 0.0f;
    if (!strcmp(c->op, "sum")) alg = dnnl_reduction_sum;
    else if (!strcmp(c->op, "max")) alg = dnnl_reduction_max;
    else if (!strcmp(c->op, "average")) alg = dnnl_reduction_mean;
    else if (!strcmp(c->op, "multiply")) alg = dnnl_reduction_mul;
    else if (!strcmp(c->op, "l1")) { alg = dnnl_reduction_norm_lp_sum; p = 1.0f; }
    else if (!strcmp(c->op, "l2")) { alg = dnnl_reduction_norm_lp_sum; p = 2.0f; }
    else if (!strcmp(c->op, "sum_square")) { alg = dnnl_reduction_norm_lp_power_p_sum; p = 2.0f; }
    else {
        snprintf(reason, sizeof reason, "oneDNN has no %s reduction", c->op);
        return 0;
    }
    dnnl_memory_desc_t smd, dmd;
    if (!plain_md(&smd, (int)c->rank, c->shape, dt) ||
        !plain_md(&dmd, (int)c->out_rank, c->out_shape, dt))
        return 0;
    dnnl_reduction_desc_t rd;
    dnnl_primitive_desc_t pd;
    dnnl_memory_t ms, md;
    CHECK(dnnl_reduction_desc_init(&rd, alg, &smd, &dmd, p, 0.0f));
    CHECK(dnnl_primitive_desc_create(&pd, &rd, NULL, engine, NULL));
    int ok = add_prim(r, pd);
    dnnl_primitive_desc_destroy(pd);
    if (!ok || !memory(&ms, &smd, src) || !memory(&md, &dmd, dst)) return 0;
    r->args[0][0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, ms};
    r->args[0][1] = (dnnl_exec_arg_t){DNNL_ARG_DST, md};
    r->nargs[0] = 2;
    return 1;
}

static int setup_copy(peer_run *r, const bench_case *c, dnnl_data_type_t dt, unsigned char *src,
                      unsigned char *dst)
{
    int64_t rows = c->out_shape[0], cols = c->out_shape[1];
    size_t e = dtype_size(c->dtype);
    dnnl_memory_desc_t smd, dmd;
    switch (c->copy) {
    case COPY_JOIN: {
        dnnl_memory_desc_t parts[BENCH_PARTS];
        int64_t w = cols / BENCH_PARTS;
        for (int k = 0; k < BENCH_PARTS; k++)
            if (!strided_md(&parts[k], rows, w, w, 1, dt)) return 0;
        if (!strided_md(&dmd, rows, cols, cols, 1, dt)) return 0;
        dnnl_primitive_desc_t pd;
        CHECK(dnnl_concat_primitive_desc_create(&pd, &dmd, BENCH_PARTS, 1, parts, NULL, engine));
        int ok = add_prim(r, pd);
        dnnl_primitive_desc_destroy(pd);
        if (!ok) return 0;
        for (int k = 0; k < BENCH_PARTS; k++) {
            dnnl_memory_t m;
            if (!memory(&m, &parts[k], src + (size_t)k * (size_t)(rows * w) * e)) return 0;
            r->args[0][k] = (dnnl_exec_arg_t){DNNL_ARG_MULTIPLE_SRC + k, m};
        }
        dnnl_memory_t m;
        if (!memory(&m, &dmd, dst)) return 0;
        r->args[0][BENCH_PARTS] = (dnnl_exec_arg_t){DNNL_ARG_DST, m};
        r->nargs[0] = BENCH_PARTS + 1;
        return 1;
    }
    case COPY_SPLIT: {
        /* One reorder per part (oneDNN has no split primitive); each part is its own buffer,
         * laid out one after the other in dst. */
        int64_t w = cols / BENCH_PARTS;
        for (int k = 0; k < BENCH_PARTS; k++) {
            if (!strided_md(&smd, rows, w, cols, 1, dt) || !strided_md(&dmd, rows, w, w, 1, dt))
                return 0;
            if (!add_reorder(r, &smd, src + (size_t)(k * w) * e, &dmd,
                             dst + (size_t)k * (size_t)(rows * w) * e))
                return 0;
        }
        return 1;
    }
    case COPY_SLICE_ROWS:
        if (!strided_md(&smd, rows, cols, cols, 1, dt) || !strided_md(&dmd, rows, cols, cols, 1, dt))
            return 0;
        return add_reorder(r, &smd, src + (size_t)(rows * cols) * e, &dmd, dst);
    case COPY_SLICE_STEP2:
        if (!strided_md(&smd, rows, cols, 2 * cols, 2, dt) ||
            !strided_md(&dmd, rows, cols, cols, 1, dt))
            return 0;
        return add_reorder(r, &smd, src, &dmd, dst);
    case COPY_SLICE_GRAD: {
        int64_t half = c->shape[1];
        if (!strided_md(&smd, rows, half, half, 1, dt) || !strided_md(&dmd, rows, half, cols, 2, dt))
            return 0;
        r->zero_dst = dst;
        r->zero_bytes = (size_t)(rows * cols) * e;
        return add_reorder(r, &smd, src, &dmd, dst);
    }
    case COPY_TRANSPOSE:
    case COPY_TRANSPOSE_ODD: {
        int64_t in0 = c->shape[0], in1 = c->shape[1];
        if (!strided_md(&smd, in0, in1, in1, 1, dt) || !strided_md(&dmd, in0, in1, 1, in0, dt))
            return 0;
        return add_reorder(r, &smd, src, &dmd, dst);
    }
    case COPY_SLICE_REVERSE:
        snprintf(reason, sizeof reason, "oneDNN memory descriptors take no negative strides");
        return 0;
    default:
        snprintf(reason, sizeof reason, "not a copy");
        return 0;
    }
}

static int run_once(void *p)
{
    peer_run *r = p;
    if (r->zero_dst) memset(r->zero_dst, 0, r->zero_bytes);
    for (int k = 0; k < r->count; k++)
        if (dnnl_primitive_execute(r->prim[k], r->stream, r->nargs[k], r->args[k]) != dnnl_success)
            return 1;
    return dnnl_stream_wait(r->stream) != dnnl_success;
}

static void release(peer_run *r)
{
    for (int k = 0; k < r->count; k++) {
        for (int a = 0; a < r->nargs[k]; a++) dnnl_memory_destroy(r->args[k][a].memory);
        dnnl_primitive_destroy(r->prim[k]);
    }
}

static void run_case(const bench_case *c, const char *key, dnnl_stream_t stream,
                     const timing_options *opt)
{
    dnnl_data_type_t dt;
    if (!dnnl_type(c->dtype, &dt)) {
        printf("%s|skip|oneDNN has no %s\n", key, dtype_name(c->dtype));
        return;
    }
    uint64_t out_elems = 1;
    for (uint32_t d = 0; d < c->out_rank; d++) out_elems *= c->out_shape[d];
    size_t out_bytes = (size_t)out_elems * dtype_size(c->dtype);
    unsigned char *src = bench_alloc(c->pool_bytes);
    unsigned char *dst = bench_alloc(out_bytes);
    fill_data(c->dtype, src, c->pool_bytes, (uint64_t)c->dtype);
    memset(dst, 0, out_bytes);

    peer_run r;
    memset(&r, 0, sizeof r);
    r.stream = stream;
    reason[0] = 0;
    int ok = c->copy == COPY_NONE ? setup_reduce(&r, c, dt, src, dst)
                                  : setup_copy(&r, c, dt, src, dst);
    if (ok) {
        timing_result t;
        if (bench_time(run_once, &r, opt, &t) == 0)
            printf("%s|%.6e|%.6e\n", key, t.median, t.min);
        else
            printf("%s|skip|oneDNN: execute failed\n", key);
        free(t.samples);
    } else {
        printf("%s|skip|%s\n", key, reason[0] ? reason : "oneDNN: unsupported");
    }
    fflush(stdout);
    release(&r);
    free(src);
    free(dst);
}

int main(int argc, char **argv)
{
    timing_options opt = {7, 0.07, 0.7, 0.001};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--repeat")) opt.repeat = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--min-time")) opt.min_time = atof(argv[i + 1]);
    }
    if (opt.max_time < 10 * opt.min_time) opt.max_time = 10 * opt.min_time;

    if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success) {
        fprintf(stderr, "dmlcpu-peer-dnnl: no CPU engine\n");
        return 1;
    }
    dnnl_stream_t stream;
    if (dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success) return 1;

    bench_case *cases = NULL;
    size_t n = cases_build(&cases, 0);
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0]) continue;
        char buf[256], *save = NULL;
        snprintf(buf, sizeof buf, "%s", line);
        const char *dt = strtok_r(buf, "|", &save), *op = strtok_r(NULL, "|", &save);
        const char *pat = strtok_r(NULL, "|", &save), *size = strtok_r(NULL, "|", &save);
        const bench_case *c = NULL;
        for (size_t i = 0; dt && op && pat && size && i < n && !c; i++)
            if (cases[i].dtype == dtype_from_name(dt) && !strcmp(cases[i].op, op) &&
                !strcmp(cases[i].pattern, pat) && !strcmp(cases[i].size, size))
                c = &cases[i];
        if (!c) printf("%s|skip|no such case\n", line);
        else run_case(c, line, stream, &opt);
        fflush(stdout);
    }
    free(cases);
    dnnl_stream_destroy(stream);
    dnnl_engine_destroy(engine);
    return 0;
}
