/*
 * The case matrix and how one case becomes an operator with bound buffers.
 *
 * Sizes: an L2-resident case reads (or copies) 512 KiB; a large one 64 MiB, or 16 MiB for 1-byte
 * types (the same element count as 2-byte types at 32 MiB, far beyond any L2). 2-D shapes are
 * as square as powers of two allow: [R, C] with R <= C.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

const dmlcpu_data_type bench_dtypes[11] = {
    DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_FLOAT16, DMLCPU_DATA_TYPE_FLOAT64,
    DMLCPU_DATA_TYPE_INT8,    DMLCPU_DATA_TYPE_UINT8,   DMLCPU_DATA_TYPE_INT16,
    DMLCPU_DATA_TYPE_UINT16,  DMLCPU_DATA_TYPE_INT32,   DMLCPU_DATA_TYPE_UINT32,
    DMLCPU_DATA_TYPE_INT64,   DMLCPU_DATA_TYPE_UINT64};

static const struct {
    dmlcpu_data_type t;
    const char *name;
    size_t size;
} dtype_table[] = {
    {DMLCPU_DATA_TYPE_FLOAT32, "float32", 4}, {DMLCPU_DATA_TYPE_FLOAT16, "float16", 2},
    {DMLCPU_DATA_TYPE_UINT32, "uint32", 4},   {DMLCPU_DATA_TYPE_UINT16, "uint16", 2},
    {DMLCPU_DATA_TYPE_UINT8, "uint8", 1},     {DMLCPU_DATA_TYPE_INT32, "int32", 4},
    {DMLCPU_DATA_TYPE_INT16, "int16", 2},     {DMLCPU_DATA_TYPE_INT8, "int8", 1},
    {DMLCPU_DATA_TYPE_FLOAT64, "float64", 8}, {DMLCPU_DATA_TYPE_UINT64, "uint64", 8},
    {DMLCPU_DATA_TYPE_INT64, "int64", 8},
};

size_t dtype_size(dmlcpu_data_type t)
{
    for (size_t i = 0; i < sizeof dtype_table / sizeof dtype_table[0]; i++)
        if (dtype_table[i].t == t) return dtype_table[i].size;
    return 0;
}

const char *dtype_name(dmlcpu_data_type t)
{
    for (size_t i = 0; i < sizeof dtype_table / sizeof dtype_table[0]; i++)
        if (dtype_table[i].t == t) return dtype_table[i].name;
    return "unknown";
}

/* Full names ("float32") and short ones ("f32", "i8", "u64"). */
dmlcpu_data_type dtype_from_name(const char *name)
{
    static const char *shorts[] = {"f32", "f16", "u32", "u16", "u8", "i32",
                                   "i16", "i8",  "f64", "u64", "i64"};
    for (size_t i = 0; i < sizeof dtype_table / sizeof dtype_table[0]; i++)
        if (!strcmp(name, dtype_table[i].name) || !strcmp(name, shorts[i]))
            return dtype_table[i].t;
    return DMLCPU_DATA_TYPE_UNKNOWN;
}

/* SUM where the type's table allows it (SPEC 3.1), MAX otherwise. */
static int main_function(dmlcpu_data_type t)
{
    switch (t) {
    case DMLCPU_DATA_TYPE_INT8:
    case DMLCPU_DATA_TYPE_UINT8:
    case DMLCPU_DATA_TYPE_INT16:
    case DMLCPU_DATA_TYPE_UINT16:
        return DMLCPU_REDUCE_FUNCTION_MAX;
    default:
        return DMLCPU_REDUCE_FUNCTION_SUM;
    }
}

static const char *function_name(int f)
{
    switch (f) {
    case DMLCPU_REDUCE_FUNCTION_ARGMAX: return "argmax";
    case DMLCPU_REDUCE_FUNCTION_ARGMIN: return "argmin";
    case DMLCPU_REDUCE_FUNCTION_AVERAGE: return "average";
    case DMLCPU_REDUCE_FUNCTION_L1: return "l1";
    case DMLCPU_REDUCE_FUNCTION_L2: return "l2";
    case DMLCPU_REDUCE_FUNCTION_LOG_SUM: return "log_sum";
    case DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP: return "log_sum_exp";
    case DMLCPU_REDUCE_FUNCTION_MAX: return "max";
    case DMLCPU_REDUCE_FUNCTION_MIN: return "min";
    case DMLCPU_REDUCE_FUNCTION_MULTIPLY: return "multiply";
    case DMLCPU_REDUCE_FUNCTION_SUM: return "sum";
    case DMLCPU_REDUCE_FUNCTION_SUM_SQUARE: return "sum_square";
    default: return "unknown";
    }
}

static unsigned log2u(uint64_t n)
{
    unsigned k = 0;
    while ((1ull << (k + 1)) <= n) k++;
    return k;
}

/* [R, C] with R * C = n (a power of two) and R = 2^floor(log2(n) / 2). */
static void square_2d(uint64_t n, uint32_t *r, uint32_t *c)
{
    *r = (uint32_t)1 << (log2u(n) / 2);
    *c = (uint32_t)(n / *r);
}

typedef struct {
    bench_case *v;
    size_t n, cap;
} case_list;

static bench_case *push(case_list *l)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = realloc(l->v, l->cap * sizeof(bench_case));
        if (!l->v) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
    }
    bench_case *c = &l->v[l->n++];
    memset(c, 0, sizeof *c);
    return c;
}

static const char *size_label(uint64_t bytes)
{
    return bytes == 512 * KIB ? "512K" : bytes == 16 * MIB ? "16M" : "64M";
}

static void add_reduce(case_list *l, dmlcpu_data_type t, int f, const char *pattern,
                       uint64_t bytes)
{
    bench_case *c = push(l);
    size_t e = dtype_size(t);
    uint64_t n = bytes / e;
    c->op = function_name(f);
    c->family = "reduce";
    c->pattern = pattern;
    c->size = size_label(bytes);
    c->dtype = t;
    c->ceiling = CEIL_READ;
    c->function = f;
    c->bytes = c->pool_bytes = c->size_bytes = bytes;
    c->elements = n;
    if (!strcmp(pattern, "middle")) {
        /* [8, n / 2048, 256]: 8 independent groups of 256-wide columns, a batch x sequence x
         * features reduction over the sequence. */
        c->rank = 3;
        c->shape[0] = 8;
        c->shape[1] = (uint32_t)(n / (8 * 256));
        c->shape[2] = 256;
        c->axis_count = 1;
        c->axes[0] = 1;
    } else if (!strcmp(pattern, "narrow")) {
        c->rank = 2;
        c->shape[0] = (uint32_t)(n / 4);
        c->shape[1] = 4;
        c->axis_count = 1;
        c->axes[0] = 0;
    } else {
        c->rank = 2;
        square_2d(n, &c->shape[0], &c->shape[1]);
        if (!strcmp(pattern, "inner")) {
            c->axis_count = 1;
            c->axes[0] = 1;
        } else if (!strcmp(pattern, "outer")) {
            c->axis_count = 1;
            c->axes[0] = 0;
        } else {
            c->axis_count = 2;
            c->axes[0] = 0;
            c->axes[1] = 1;
        }
    }
    c->out_rank = c->rank;
    for (uint32_t d = 0; d < c->rank; d++) c->out_shape[d] = c->shape[d];
    for (uint32_t a = 0; a < c->axis_count; a++) c->out_shape[c->axes[a]] = 1;
}

static void add_copy(case_list *l, dmlcpu_data_type t, copy_kind k, uint64_t bytes)
{
    static const struct {
        const char *op, *pattern;
    } names[] = {{"", ""},
                 {"join", "4 parts"},
                 {"split", "4 parts"},
                 {"slice", "rows"},
                 {"slice", "step2"},
                 {"slice", "reverse"},
                 {"slice_grad", "step2"},
                 {"identity", "transpose"},
                 {"identity", "odd"}};
    bench_case *c = push(l);
    size_t e = dtype_size(t);
    uint64_t n = bytes / e;
    uint32_t r, cols;
    square_2d(n, &r, &cols);
    if (k == COPY_TRANSPOSE_ODD) { /* [R - 1, C + 1]: no row starts where the previous did */
        r -= 1;
        cols += 1;
        n = (uint64_t)r * cols;
    }
    c->op = names[k].op;
    c->family = "copy";
    c->pattern = names[k].pattern;
    c->size = size_label(bytes);
    c->dtype = t;
    c->ceiling = CEIL_COPY;
    c->function = -1;
    c->copy = k;
    c->rank = c->out_rank = 2;
    c->bytes = n * e;
    c->size_bytes = bytes;
    c->elements = n;
    /* The output is [r, cols] (bytes) except for SPLIT (4 parts) and IDENTITY ([cols, r]). */
    uint32_t in0 = r, in1 = cols;
    if (k == COPY_SLICE_ROWS) in0 = 2 * r;
    if (k == COPY_SLICE_STEP2) in1 = 2 * cols;
    if (k == COPY_SLICE_GRAD) in1 = cols / 2;
    c->shape[0] = in0;
    c->shape[1] = in1;
    const int transpose = k == COPY_TRANSPOSE || k == COPY_TRANSPOSE_ODD;
    c->out_shape[0] = transpose ? cols : r;
    c->out_shape[1] = transpose ? r : cols;
    c->pool_bytes = (uint64_t)in0 * in1 * e;
}

static void add_tiny(case_list *l, int f, uint32_t rows, uint32_t cols, const char *pattern)
{
    bench_case *c = push(l);
    c->op = function_name(f);
    c->family = "tiny";
    c->pattern = pattern;
    c->size = "tiny";
    c->dtype = DMLCPU_DATA_TYPE_FLOAT32;
    c->ceiling = CEIL_NONE;
    c->function = f;
    c->rank = c->out_rank = 2;
    c->shape[0] = c->out_shape[0] = rows;
    c->shape[1] = cols;
    c->out_shape[1] = 1;
    c->axis_count = 1;
    c->axes[0] = 1;
    c->elements = (uint64_t)rows * cols;
    c->pool_bytes = c->elements * 4;
}

/* Every REDUCE function (ARGMIN aside, which costs what ARGMAX costs) for every type the SPEC
 * allows it on, in every pattern and size of the default matrix. */
size_t cases_build_full(bench_case **cases, size_t count)
{
    static const char *patterns[] = {"inner", "outer", "middle", "all", "narrow"};
    static const int funcs[] = {
        DMLCPU_REDUCE_FUNCTION_ARGMAX,  DMLCPU_REDUCE_FUNCTION_AVERAGE,
        DMLCPU_REDUCE_FUNCTION_L1,      DMLCPU_REDUCE_FUNCTION_L2,
        DMLCPU_REDUCE_FUNCTION_LOG_SUM, DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP,
        DMLCPU_REDUCE_FUNCTION_MAX,     DMLCPU_REDUCE_FUNCTION_MIN,
        DMLCPU_REDUCE_FUNCTION_MULTIPLY, DMLCPU_REDUCE_FUNCTION_SUM,
        DMLCPU_REDUCE_FUNCTION_SUM_SQUARE};
    case_list l = {*cases, count, count};
    for (int ti = 0; ti < 11; ti++) {
        dmlcpu_data_type t = bench_dtypes[ti];
        bool is_float = t == DMLCPU_DATA_TYPE_FLOAT16 || t == DMLCPU_DATA_TYPE_FLOAT32 ||
                        t == DMLCPU_DATA_TYPE_FLOAT64;
        uint64_t big = dtype_size(t) == 1 ? 16 * MIB : 64 * MIB;
        uint64_t sizes[2] = {512 * KIB, big};
        for (size_t fi = 0; fi < sizeof funcs / sizeof funcs[0]; fi++) {
            int f = funcs[fi];
            bool float_only = f == DMLCPU_REDUCE_FUNCTION_AVERAGE || f == DMLCPU_REDUCE_FUNCTION_L2 ||
                              f == DMLCPU_REDUCE_FUNCTION_LOG_SUM ||
                              f == DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP;
            if (float_only && !is_float)
                continue;
            for (int p = 0; p < 5; p++)
                for (int s = 0; s < 2; s++) add_reduce(&l, t, f, patterns[p], sizes[s]);
        }
    }
    *cases = l.v;
    return l.n;
}

size_t cases_build(bench_case **cases, size_t count)
{
    static const char *patterns[] = {"inner", "outer", "middle", "all"};
    static const int extras[] = {DMLCPU_REDUCE_FUNCTION_AVERAGE,    DMLCPU_REDUCE_FUNCTION_L1,
                                 DMLCPU_REDUCE_FUNCTION_L2,         DMLCPU_REDUCE_FUNCTION_SUM_SQUARE,
                                 DMLCPU_REDUCE_FUNCTION_MULTIPLY,   DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP};
    case_list l = {*cases, count, count};
    for (int ti = 0; ti < 11; ti++) {
        dmlcpu_data_type t = bench_dtypes[ti];
        uint64_t big = dtype_size(t) == 1 ? 16 * MIB : 64 * MIB;
        uint64_t sizes[2] = {512 * KIB, big};
        int funcs[2] = {main_function(t), DMLCPU_REDUCE_FUNCTION_ARGMAX};
        for (int fi = 0; fi < 2; fi++) {
            for (int p = 0; p < 4; p++)
                for (int s = 0; s < 2; s++) add_reduce(&l, t, funcs[fi], patterns[p], sizes[s]);
            for (int s = 0; s < 2; s++) add_reduce(&l, t, funcs[fi], "narrow", sizes[s]);
        }
        if (t == DMLCPU_DATA_TYPE_FLOAT32 || t == DMLCPU_DATA_TYPE_FLOAT16)
            for (size_t fi = 0; fi < sizeof extras / sizeof extras[0]; fi++)
                for (int p = 0; p < 4; p++)
                    for (int s = 0; s < 2; s++) add_reduce(&l, t, extras[fi], patterns[p], sizes[s]);
        /* Copies depend on the element size only: one type per size. */
        if (t == DMLCPU_DATA_TYPE_FLOAT32 || t == DMLCPU_DATA_TYPE_FLOAT16 ||
            t == DMLCPU_DATA_TYPE_FLOAT64 || t == DMLCPU_DATA_TYPE_UINT8)
            for (int k = COPY_JOIN; k <= COPY_TRANSPOSE_ODD; k++)
                for (int s = 0; s < 2; s++) add_copy(&l, t, (copy_kind)k, sizes[s]);
        if (t == DMLCPU_DATA_TYPE_FLOAT32) {
            add_tiny(&l, DMLCPU_REDUCE_FUNCTION_SUM, 3, 3, "3x3");
            add_tiny(&l, DMLCPU_REDUCE_FUNCTION_SUM, 1, 1000, "1x1000");
            add_tiny(&l, DMLCPU_REDUCE_FUNCTION_ARGMAX, 64, 64, "64x64");
        }
    }
    *cases = l.v;
    return l.n;
}
