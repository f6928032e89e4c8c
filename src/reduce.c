/* REDUCE / ARGMIN / ARGMAX: plan at create (kind, normalised dims, loop shape, kernels, tiles),
 * run at execute. Kernels deliver one partial per canonical block; this file walks the loop
 * nest and combines the block values pairwise (SPEC 4 step 5) with reduce_partials.c, so every
 * ISA shares that part verbatim. */
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "internal.h"
#include "reduce_partials.h"

/* ---- the three loop shapes ---- */

/* Scratch for gathered blocks: a block of the widest element type. */
typedef union {
    uint64_t u64[DMLCPU_BLOCK_FREE];
    unsigned char bytes[DMLCPU_BLOCK_FREE * 8];
} block_buffer;

/* Partials per row-kernel call: long runs go in chunks of this many blocks. */
#define CHUNK_BLOCKS 64

static void push_partials(const reduce_plan *p, pairwise *c, const partial *parts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pw_push(c, parts[i], p->combine);
}

/* Row kernel over n contiguous elements starting at a block boundary of the group. */
static void row_run(const reduce_plan *p, pairwise *c, const char *x, size_t n, uint64_t index)
{
    size_t es = dtype_size(p->in_type), chunk = (size_t)p->block * CHUNK_BLOCKS;
    partial parts[CHUNK_BLOCKS];
    for (size_t done = 0; done < n; done += chunk) {
        size_t len = n - done < chunk ? n - done : chunk;
        p->row(x + done * es, len, index + done, parts);
        push_partials(p, c, parts, (len + p->block - 1) / p->block);
    }
}

/* Gathered blocks: the caller appends elements to buf; full blocks go through the row kernel. */
typedef struct {
    block_buffer buf;
    size_t fill;
    uint64_t start; /* group index of buf's first element */
} gather_state;

static void gather_flush(const reduce_plan *p, pairwise *c, gather_state *g)
{
    if (g->fill == 0)
        return;
    partial part;
    p->row(g->buf.bytes, g->fill, g->start, &part);
    pw_push(c, part, p->combine);
    g->start += g->fill;
    g->fill = 0;
}

static void gather_append(const reduce_plan *p, pairwise *c, gather_state *g, const char *x,
                          ptrdiff_t stride_bytes, size_t n)
{
    size_t es = dtype_size(p->in_type);
    while (n > 0) {
        size_t take = p->block - g->fill < n ? p->block - g->fill : n;
        unsigned char *dst = g->buf.bytes + g->fill * es;
        if (stride_bytes == (ptrdiff_t)es) {
            memcpy(dst, x, take * es);
        } else {
            for (size_t i = 0; i < take; i++)
                memcpy(dst + i * es, x + (ptrdiff_t)i * stride_bytes, es);
        }
        x += (ptrdiff_t)take * stride_bytes;
        g->fill += take;
        n -= take;
        if (g->fill == p->block)
            gather_flush(p, c, g);
    }
}

/* Walks the outer reduced dims (all but the innermost) and calls fn for each run of the
 * innermost reduced dim, in logical order. */
typedef void (*run_fn)(const reduce_plan *p, void *state, const char *run, uint64_t index);

static void for_each_run(const reduce_plan *p, const char *base, run_fn fn, void *state)
{
    const norm_dims *r = &p->red;
    int outer = r->count - 1;
    size_t es = dtype_size(p->in_type);
    uint64_t nin = r->count ? r->size[r->count - 1] : 1;
    uint32_t c[8] = {0};
    const char *x = base;
    for (uint64_t run = 0;; run++) {
        fn(p, state, x, run * nin);
        int d = outer - 1;
        for (; d >= 0; d--) {
            x += r->in[d] * (ptrdiff_t)es;
            if (++c[d] < r->size[d])
                break;
            x -= (ptrdiff_t)r->size[d] * r->in[d] * (ptrdiff_t)es;
            c[d] = 0;
        }
        if (d < 0)
            return;
    }
}

typedef struct {
    pairwise pw;
    gather_state g;
} group_state;

static void run_direct(const reduce_plan *p, void *state, const char *run, uint64_t index)
{
    group_state *s = state;
    uint64_t nin = p->red.count ? p->red.size[p->red.count - 1] : 1;
    row_run(p, &s->pw, run, nin, index);
}

static void run_gather(const reduce_plan *p, void *state, const char *run, uint64_t index)
{
    group_state *s = state;
    (void)index;
    const norm_dims *r = &p->red;
    uint64_t nin = r->count ? r->size[r->count - 1] : 1;
    ptrdiff_t stride = r->count ? r->in[r->count - 1] * (ptrdiff_t)dtype_size(p->in_type) : 0;
    gather_append(p, &s->pw, &s->g, run, stride, nin);
}

/* One output of the ROW or STRIDED shape: base is the group's first element. */
static partial reduce_group(const reduce_plan *p, const char *base, group_state *s)
{
    s->pw.count = 0;
    s->pw.top = 0;
    s->g.fill = 0;
    s->g.start = 0;
    const norm_dims *r = &p->red;
    uint64_t nin = r->count ? r->size[r->count - 1] : 1;
    bool direct = p->shape == SHAPE_ROW && (r->count <= 1 || !p->ordered || nin % p->block == 0);
    for_each_run(p, base, direct ? run_direct : run_gather, s);
    if (!direct)
        gather_flush(p, &s->pw, &s->g);
    return pw_finish(&s->pw, p->combine);
}

/* Positions of the kept dims [0, dims): input and output byte offsets of unit u, in row-major
 * order of those dims. */
static void kept_offsets(const reduce_plan *p, int dims, uint64_t u, ptrdiff_t *in_off,
                         ptrdiff_t *out_off)
{
    const norm_dims *k = &p->kept;
    ptrdiff_t ies = (ptrdiff_t)dtype_size(p->in_type), oes = (ptrdiff_t)dtype_size(p->out_type);
    *in_off = 0;
    *out_off = 0;
    for (int d = dims - 1; d >= 0; d--) {
        ptrdiff_t c = (ptrdiff_t)(u % k->size[d]);
        u /= k->size[d];
        *in_off += c * k->in[d] * ies;
        *out_off += c * k->out[d] * oes;
    }
}

/* Calls fn for the outputs [begin, begin + count) of the kept dims [0, dims), walking them with
 * an odometer from the first one. */
typedef void (*out_fn)(const reduce_plan *p, const char *in, char *out, void *state);

static void for_each_output(const reduce_plan *p, const char *in, char *out, int dims,
                            uint64_t begin, uint64_t count, out_fn fn, void *state)
{
    const norm_dims *k = &p->kept;
    ptrdiff_t ies = (ptrdiff_t)dtype_size(p->in_type), oes = (ptrdiff_t)dtype_size(p->out_type);
    ptrdiff_t io, oo;
    kept_offsets(p, dims, begin, &io, &oo);
    in += io;
    out += oo;
    uint32_t c[8] = {0};
    for (int d = dims - 1; d >= 0; d--) {
        c[d] = (uint32_t)(begin % k->size[d]);
        begin /= k->size[d];
    }
    for (uint64_t n = 0; n < count; n++) {
        fn(p, in, out, state);
        for (int d = dims - 1; d >= 0; d--) {
            in += k->in[d] * ies;
            out += k->out[d] * oes;
            if (++c[d] < k->size[d])
                break;
            in -= (ptrdiff_t)k->size[d] * k->in[d] * ies;
            out -= (ptrdiff_t)k->size[d] * k->out[d] * oes;
            c[d] = 0;
        }
    }
}

static void one_group(const reduce_plan *p, const char *in, char *out, void *state)
{
    reduce_finish(p, reduce_group(p, in, state), out);
}

/* The common ROW case: one contiguous run per output (a single reduced dim after merging). */
static void one_run(const reduce_plan *p, const char *in, char *out, void *state)
{
    (void)state;
    partial part;
    if (p->n <= p->block) {
        p->row(in, (size_t)p->n, 0, &part);
    } else {
        pairwise pw = {0};
        row_run(p, &pw, in, (size_t)p->n, 0);
        part = pw_finish(&pw, p->combine);
    }
    reduce_finish(p, part, out);
}

/* ROW outputs [u0, u1) whose groups are one block or less, through the multi-row kernel: runs of
 * consecutive outputs along the innermost kept dim, up to ROWS_BATCH at a time. */
#define ROWS_BATCH 64

static void rows_outputs(const reduce_plan *p, const char *in, char *out, uint64_t u0, uint64_t u1)
{
    const norm_dims *k = &p->kept;
    const int inner = k->count - 1;
    const ptrdiff_t is = k->in[inner] * (ptrdiff_t)dtype_size(p->in_type);
    const ptrdiff_t os = k->out[inner] * (ptrdiff_t)dtype_size(p->out_type);
    partial parts[ROWS_BATCH];
    for (uint64_t u = u0; u < u1;) {
        uint64_t cnt = k->size[inner] - u % k->size[inner]; /* left in this run of the inner dim */
        if (cnt > u1 - u)
            cnt = u1 - u;
        if (cnt > ROWS_BATCH)
            cnt = ROWS_BATCH;
        ptrdiff_t io, oo;
        kept_offsets(p, k->count, u, &io, &oo);
        p->rows(in + io, is, (size_t)cnt, (size_t)p->n, parts);
        reduce_store_parts(p, parts, (size_t)cnt, out + oo, os);
        u += cnt;
    }
}

/* ROW outputs [u0, u1) of the canonical float sums (ordered plans: their block values do not
 * depend on where the block lies, unlike ARG* indexes) whose groups are 2..ROWS_BATCH / 2 whole
 * blocks: their blocks through
 * the multi-row kernel as groups of one block each (the rows of consecutive outputs, when they
 * follow each other, in one call), then each output's block values folded in order as row_run
 * folds them. The kernels read rows of whole blocks as several streams at once, faster than a
 * row of a few blocks alone (FLOAT64 [2048, 4096] and FLOAT16 [4096, 8192] over axis 1). */
static void block_rows_outputs(const reduce_plan *p, const char *in, char *out, uint64_t u0,
                               uint64_t u1)
{
    const norm_dims *k = &p->kept;
    const int inner = k->count - 1;
    const size_t es = dtype_size(p->in_type), per = (size_t)(p->n / p->block);
    const ptrdiff_t is = k->in[inner] * (ptrdiff_t)es;
    const ptrdiff_t os = k->out[inner] * (ptrdiff_t)dtype_size(p->out_type);
    const ptrdiff_t bs = (ptrdiff_t)p->block * (ptrdiff_t)es;
    partial parts[ROWS_BATCH], res[ROWS_BATCH];
    for (uint64_t u = u0; u < u1;) {
        uint64_t cnt = k->size[inner] - u % k->size[inner];
        if (cnt > u1 - u)
            cnt = u1 - u;
        if (cnt > ROWS_BATCH / per)
            cnt = ROWS_BATCH / per;
        ptrdiff_t io, oo;
        kept_offsets(p, k->count, u, &io, &oo);
        if (is == (ptrdiff_t)per * bs)
            p->rows(in + io, bs, (size_t)cnt * per, p->block, parts);
        else
            for (uint64_t j = 0; j < cnt; j++)
                p->rows(in + io + (ptrdiff_t)j * is, bs, per, p->block, parts + j * per);
        for (uint64_t j = 0; j < cnt; j++) {
            pairwise pw = {0};
            push_partials(p, &pw, parts + j * per, per);
            res[j] = pw_finish(&pw, p->combine);
        }
        reduce_store_parts(p, res, (size_t)cnt, out + oo, os);
        u += cnt;
    }
}

/* COLUMN shape: the innermost kept dim is unit-stride; tiles of up to p->col_tile outputs.
 * Every column of a tile pushes its block values at the same moments, so the tile shares one
 * binary counter: a stack of rows of col_tile partials. */
typedef struct {
    size_t cols;
    partial *parts;   /* col_tile: the kernel's output */
    partial *stack;   /* col_depth rows of col_tile */
    int top;
    uint64_t count;
    void *scratch;    /* the kernel's */
} col_state;

static void col_push(const reduce_plan *p, col_state *s)
{
    size_t t = p->col_tile;
    memcpy(s->stack + (size_t)s->top * t, s->parts, s->cols * sizeof(partial));
    s->top++;
    for (uint64_t k = ++s->count; !(k & 1); k >>= 1, s->top--) {
        partial *a = s->stack + (size_t)(s->top - 2) * t, *b = a + t;
        for (size_t j = 0; j < s->cols; j++)
            a[j] = p->combine(a[j], b[j]);
    }
}

/* The column kernel over rows [r0, r1) of one run, a block at a time (r0 on a block boundary). */
static void col_rows(const reduce_plan *p, col_state *s, const char *run, uint64_t r0, uint64_t r1,
                     uint64_t index)
{
    ptrdiff_t rs = p->red.count ? p->red.in[p->red.count - 1] * (ptrdiff_t)dtype_size(p->in_type) : 0;
    const uint64_t step = p->ordered ? p->block : DMLCPU_COL_FREE_ROWS;
    for (; r0 < r1; r0 += step) {
        size_t rows = r1 - r0 < step ? (size_t)(r1 - r0) : (size_t)step;
        p->col(run + (ptrdiff_t)r0 * rs, rs, rows, s->cols, (index + r0) | p->col_hint, s->parts,
               s->scratch);
        if (p->col_depth > 1)
            col_push(p, s);
    }
}

static void col_run(const reduce_plan *p, void *state, const char *run, uint64_t index)
{
    uint64_t nin = p->red.count ? p->red.size[p->red.count - 1] : 1;
    col_rows(p, state, run, 0, nin, index);
}

/* The tile's result after all its pushes: the counter folded, or the kernel's single block. */
static const partial *col_result(const reduce_plan *p, col_state *s)
{
    if (p->col_depth == 1)
        return s->parts;
    while (s->top > 1) {
        partial *a = s->stack + (size_t)(s->top - 2) * p->col_tile, *b = a + p->col_tile;
        for (size_t j = 0; j < s->cols; j++)
            a[j] = p->combine(a[j], b[j]);
        s->top--;
    }
    return s->stack;
}

/* COL unit u = (position of the outer kept dims, column tile): its input, output and width. */
static void col_unit(const reduce_plan *p, uint64_t u, const char **in, char **out, size_t *cols)
{
    const norm_dims *k = &p->kept;
    int inner = k->count - 1;
    uint64_t tiles = (k->size[inner] + p->col_tile - 1) / p->col_tile;
    uint64_t j0 = (u % tiles) * p->col_tile;
    ptrdiff_t io, oo;
    kept_offsets(p, inner, u / tiles, &io, &oo);
    *in += io + (ptrdiff_t)j0 * (ptrdiff_t)dtype_size(p->in_type);
    *out += oo + (ptrdiff_t)j0 * k->out[inner] * (ptrdiff_t)dtype_size(p->out_type);
    *cols = k->size[inner] - j0 < p->col_tile ? (size_t)(k->size[inner] - j0) : p->col_tile;
}

static void col_outputs(const reduce_plan *p, uint64_t u, const char *in, char *out, col_state *s)
{
    col_unit(p, u, &in, &out, &s->cols);
    s->top = 0;
    s->count = 0;
    for_each_run(p, in, col_run, s);
    const partial *res = col_result(p, s);
    ptrdiff_t os = p->kept.out[p->kept.count - 1] * (ptrdiff_t)dtype_size(p->out_type);
    reduce_store_parts(p, res, s->cols, out, os);
}

/* The scratch of one column worker: kernel scratch, the tile's partials, the counter. Plans
 * that need at most COL_STACK_BYTES in all run serially on a stack buffer and report no
 * temporary buffer. */
#define COL_STACK_BYTES (16 * 1024)

static uint64_t col_scratch_bytes(const reduce_plan *p)
{
    return p->ordered ? DMLCPU_COL_SCRATCH(p->col_tile) : DMLCPU_COL_FREE_SCRATCH(p->col_tile);
}

static uint64_t col_slot_bytes(const reduce_plan *p)
{
    uint64_t b = col_scratch_bytes(p) + (uint64_t)(1 + p->col_depth) * p->col_tile * sizeof(partial);
    return (b + 63) & ~(uint64_t)63;
}

static void col_state_init(const reduce_plan *p, col_state *s, void *slot)
{
    s->scratch = slot;
    s->parts = (partial *)((char *)slot + col_scratch_bytes(p));
    s->stack = s->parts + p->col_tile;
}

/* Partials the split tiles leave in the temporary buffer: one per column of each tile. */
static uint64_t split_results(const reduce_plan *p)
{
    return p->split > 1 ? (uint64_t)p->tiles * (p->shape == SHAPE_COL ? p->col_tile : 1) : 0;
}

/* ---- tiles: planned at create, run by parallel_run; results never depend on the count ---- */

/* Column workers' scratch areas at most: more threads of one execute than this take turns. */
#define COL_MAX_SLOTS 256

typedef struct {
    const reduce_plan *p;
    const char *in;
    char *out;
    char *slots;               /* column workers' scratch, col_slot_bytes apart */
    partial *results;          /* split tiles: one partial per column of each tile */
    _Atomic uint32_t *arrived; /* split tiles: per tree node, how many children are done */
    _Atomic uint64_t busy[COL_MAX_SLOTS / 64]; /* slots in use, a bit each */
} exec_ctx;

static unsigned slot_acquire(exec_ctx *c)
{
    for (;;) {
        for (unsigned w = 0; w * 64 < c->p->slots; w++) {
            uint64_t m = atomic_load(&c->busy[w]);
            for (unsigned i = 0; i < 64 && w * 64 + i < c->p->slots; i++)
                if (!(m & ((uint64_t)1 << i)) &&
                    atomic_compare_exchange_weak(&c->busy[w], &m, m | ((uint64_t)1 << i)))
                    return w * 64 + i;
        }
        sched_yield(); /* more tasks at once than the plan's threads: wait for a slot */
    }
}

static void slot_release(exec_ctx *c, unsigned i)
{
    atomic_fetch_and(&c->busy[i / 64], ~((uint64_t)1 << (i % 64)));
}

/* A tile of whole units (outputs, or column tiles). */
static void units_task(exec_ctx *c, uint64_t u0, uint64_t u1)
{
    const reduce_plan *p = c->p;
    if (p->shape == SHAPE_COL) {
        unsigned slot = slot_acquire(c);
        col_state s;
        col_state_init(p, &s, c->slots + (size_t)slot * col_slot_bytes(p));
        for (uint64_t u = u0; u < u1; u++)
            col_outputs(p, u, c->in, c->out, &s);
        slot_release(c, slot);
    } else if (p->shape == SHAPE_ROW && p->red.count == 1 && p->rows && p->kept.count > 0 &&
               p->n <= p->block) {
        rows_outputs(p, c->in, c->out, u0, u1);
    } else if (p->shape == SHAPE_ROW && p->red.count == 1 && p->rows && p->kept.count > 0 &&
               p->ordered && p->n % p->block == 0 && p->n / p->block <= ROWS_BATCH / 2) {
        block_rows_outputs(p, c->in, c->out, u0, u1);
    } else if (p->shape == SHAPE_ROW && p->red.count == 1) {
        for_each_output(p, c->in, c->out, p->kept.count, u0, u1 - u0, one_run, NULL);
    } else {
        group_state s;
        for_each_output(p, c->in, c->out, p->kept.count, u0, u1 - u0, one_group, &s);
    }
}

static void split_combine(exec_ctx *c, uint64_t u, uint64_t s, size_t cols);

/* Whether the element at x equals the partial's value v, compared as the ARG* kernels compare
 * (FLOAT16 widened to f32, integers widened to 64 bits). */
static bool arg_equals(dmlcpu_data_type t, const char *x, const partial *v)
{
    switch (t) {
    case DMLCPU_DATA_TYPE_FLOAT16: { uint16_t h; memcpy(&h, x, 2); return dmlcpu_f16_to_f32(h) == v->v.f32; }
    case DMLCPU_DATA_TYPE_FLOAT32: { float f; memcpy(&f, x, 4); return f == v->v.f32; }
    case DMLCPU_DATA_TYPE_FLOAT64: { double d; memcpy(&d, x, 8); return d == v->v.f64; }
    case DMLCPU_DATA_TYPE_INT8: { int8_t i; memcpy(&i, x, 1); return i == v->v.i64; }
    case DMLCPU_DATA_TYPE_INT16: { int16_t i; memcpy(&i, x, 2); return i == v->v.i64; }
    case DMLCPU_DATA_TYPE_INT32: { int32_t i; memcpy(&i, x, 4); return i == v->v.i64; }
    case DMLCPU_DATA_TYPE_INT64: { int64_t i; memcpy(&i, x, 8); return i == v->v.i64; }
    case DMLCPU_DATA_TYPE_UINT8: { uint8_t u; memcpy(&u, x, 1); return u == v->v.u64; }
    case DMLCPU_DATA_TYPE_UINT16: { uint16_t u; memcpy(&u, x, 2); return u == v->v.u64; }
    case DMLCPU_DATA_TYPE_UINT32: { uint32_t u; memcpy(&u, x, 4); return u == v->v.u64; }
    default: { uint64_t u; memcpy(&u, x, 8); return u == v->v.u64; }
    }
}

/* The rescan a split column ARG* plan deferred (DMLCPU_ARG_DEFER): each column's index is the
 * first row of the group where its best value was met (or that value's own row); the first
 * (LAST kinds: last) row of the group holding the value becomes the index, as the kernel's own
 * rescan would have chosen. A row past the group's tile cannot hold the value: the combine
 * would have taken that tile's index instead. in: the unit's first element. */
static void arg_rescan(const reduce_plan *p, const char *in, partial *res, size_t cols)
{
    const size_t es = dtype_size(p->in_type);
    const ptrdiff_t rs = p->red.in[p->red.count - 1] * (ptrdiff_t)es;
    const bool last = p->kind == RK_ARGMIN_LAST || p->kind == RK_ARGMAX_LAST;
    for (size_t j = 0; j < cols; j++) {
        const uint64_t g0 = res[j].aux.idx & ~DMLCPU_ARG_DEFER;
        const uint64_t g1 = g0 + DMLCPU_COL_ARG_GROUP < p->n ? g0 + DMLCPU_COL_ARG_GROUP : p->n;
        uint64_t at = g0;
        for (uint64_t k = 0; k < g1 - g0; k++) {
            const uint64_t r = last ? g1 - 1 - k : g0 + k;
            if (arg_equals(p->in_type, in + (ptrdiff_t)r * rs + (ptrdiff_t)(j * es), &res[j])) {
                at = r;
                break;
            }
        }
        res[j].aux.idx = at;
    }
}

/* A tile of one unit's group (a single reduced dim): elements [e0, e1) of it, an aligned
 * power-of-two group of canonical blocks (order-free columns: of DMLCPU_COL_FREE_SPLIT_BYTES of
 * a column), whose partial goes into results, one per column; then its share of combining the
 * unit's partials (split_combine). */
static void split_task(exec_ctx *c, uint64_t t)
{
    const reduce_plan *p = c->p;
    uint64_t u = t / p->split, s = t % p->split;
    uint64_t e0 = s * p->split_len, e1 = e0 + p->split_len;
    if (e1 > p->n)
        e1 = p->n;
    const char *in = c->in;
    char *out = c->out;
    size_t cols = 1;
    if (p->shape == SHAPE_COL) {
        unsigned slot = slot_acquire(c);
        col_state st;
        col_state_init(p, &st, c->slots + (size_t)slot * col_slot_bytes(p));
        col_unit(p, u, &in, &out, &st.cols);
        st.top = 0;
        st.count = 0;
        col_rows(p, &st, in, e0, e1, reduce_kind_is_arg(p->kind) ? DMLCPU_ARG_DEFER : 0);
        memcpy(c->results + t * p->col_tile, col_result(p, &st), st.cols * sizeof(partial));
        slot_release(c, slot);
        cols = st.cols;
    } else {
        ptrdiff_t io, oo;
        kept_offsets(p, p->kept.count, u, &io, &oo);
        pairwise pw = {0};
        row_run(p, &pw, in + io + (ptrdiff_t)e0 * (ptrdiff_t)dtype_size(p->in_type), e1 - e0, e0);
        c->results[t] = pw_finish(&pw, p->combine);
    }
    split_combine(c, u, s, cols);
}

static void reduce_task(void *ctx, size_t t)
{
    exec_ctx *c = ctx;
    const reduce_plan *p = c->p;
    if (p->split > 1)
        split_task(c, t);
    else
        units_task(c, t * p->units / p->tiles, (t + 1) * p->units / p->tiles);
}

/* The partials of unit u's tiles combine pairwise in tile order, per column: node i of level L
 * (L = 0: tile i's partial) is node 2i of level L-1 op node 2i+1, or node 2i alone when that is
 * the last one (an odd count carries it). For the canonical sums the tiles are aligned
 * power-of-two groups of blocks, complete subtrees of the block tree (SPEC 4 step 5), and a
 * short last group is the tree of its own blocks, so this is exactly the unsplit tree. The
 * order-free kinds are exact; ARG* and the first/last rules only need the order.
 * Tile s calls this after storing its partial: it climbs from its leaf; at a node with two
 * children the first child to arrive stops, the second combines them into the left child's
 * partials (node i of level L lives in tile i * 2^L's) and goes on; whoever reaches the root
 * finishes the unit's outputs. So every tile does a share of the combining, whichever order the
 * tiles run in. The node counters are indexed by the first tile of the right child, which no
 * other node shares; the atomic increments order the partials' stores and loads. */
static void split_combine(exec_ctx *c, uint64_t u, uint64_t s, size_t cols)
{
    const reduce_plan *p = c->p;
    size_t width = p->shape == SHAPE_COL ? p->col_tile : 1;
    partial *res = c->results + u * p->split * width;
    uint64_t i = s, nodes = p->split;
    for (int level = 0; nodes > 1; level++, i >>= 1, nodes = (nodes + 1) >> 1) {
        if ((i | 1) >= nodes)
            continue; /* the odd last node: carried up unchanged */
        uint64_t left = (i & ~(uint64_t)1) << level, right = (i | 1) << level;
        if (atomic_fetch_add(&c->arrived[u * p->split + right], 1) == 0)
            return;
        partial *a = res + left * width, *b = res + right * width;
        for (size_t j = 0; j < cols; j++)
            a[j] = p->combine(a[j], b[j]);
    }
    char *out = c->out;
    ptrdiff_t os = 0;
    if (p->shape == SHAPE_COL) {
        const char *in = c->in;
        col_unit(p, u, &in, &out, &cols);
        os = p->kept.out[p->kept.count - 1] * (ptrdiff_t)dtype_size(p->out_type);
        if (reduce_kind_is_arg(p->kind))
            arg_rescan(p, in, res, cols);
    } else {
        ptrdiff_t io, oo;
        kept_offsets(p, p->kept.count, u, &io, &oo);
        out += oo;
    }
    reduce_store_parts(p, res, cols, out, os);
}

void reduce_execute(const dmlcpu_operator *op, const dmlcpu_bindings *b)
{
    const reduce_plan *p = &op->u.reduce;
    exec_ctx c = {.p = p, .in = b->inputs[0].data, .out = b->outputs[0].data};
    for (unsigned w = 0; w < COL_MAX_SLOTS / 64; w++)
        atomic_init(&c.busy[w], 0);
    alignas(64) unsigned char small[COL_STACK_BYTES];
    char *temp = op->temporary_bytes ? (char *)(((uintptr_t)b->temporary.data + 63) & ~(uintptr_t)63)
                                     : (char *)small;
    c.slots = temp;
    c.results = (partial *)(temp + (size_t)p->slots * (p->shape == SHAPE_COL ? col_slot_bytes(p) : 0));
    if (p->split > 1) {
        c.arrived = (_Atomic uint32_t *)(c.results + split_results(p));
        for (uint64_t t = 0; t < p->tiles; t++)
            atomic_init(&c.arrived[t], 0);
    }
    parallel_run(&op->par, p->tiles, op->inputs[0].bytes, reduce_task, &c);
}

/* ---- planning ---- */


static uint64_t next_pow2(uint64_t v)
{
    uint64_t r = 1;
    while (r < v)
        r <<= 1;
    return r;
}

/* Columns per column tile: the order-free kinds keep one running value per column and take
 * whole rows (up to DMLCPU_COL_FREE_BYTES), the canonical sums 64 lanes and DMLCPU_COL_TILE (or
 * whole rows of a large operator: plan_tiles, DMLCPU_COL_WIDE_TILE). */
static uint32_t widest_col_tile(const reduce_plan *p)
{
    return p->ordered ? DMLCPU_COL_TILE : DMLCPU_COL_FREE_BYTES / (uint32_t)dtype_size(p->in_type);
}

/* Columns per tile at the least when a plan narrows its column tiles: 128 bytes of a row. */
#define COL_MIN_TILE_BYTES 128

/* A parallel column plan whose units cannot give every task its own piece even with their rows
 * split as finely as allowed: narrower column tiles, multiples of 16 columns and at least
 * COL_MIN_TILE_BYTES wide. Results do not depend on the width: each column's lanes and block
 * values are its own. */
static void narrow_col_tiles(reduce_plan *p, uint64_t outputs, uint64_t want, uint64_t pieces)
{
    uint64_t inner = p->kept.size[p->kept.count - 1], rows = outputs / inner;
    uint64_t per_row = (want + rows * pieces - 1) / (rows * pieces);
    uint64_t w = ((inner + per_row - 1) / per_row + 15) & ~(uint64_t)15;
    uint64_t least = COL_MIN_TILE_BYTES / dtype_size(p->in_type);
    if (least < 16)
        least = 16;
    if (w < least)
        w = least;
    if (w < p->col_tile) {
        p->col_tile = (uint32_t)w;
        p->units = rows * ((inner + w - 1) / w);
    }
}

/* Units (outputs, or column tiles), tiles and their kind, for the threads the operator may use
 * (max_threads or the host pool's, not this machine's): whole units per tile when there are at
 * least `want` of them; else each unit's group (a single reduced dim) is cut into aligned
 * power-of-two groups of pieces, a piece being a canonical block (order-free columns:
 * DMLCPU_COL_FREE_SPLIT_BYTES of a column, their results do not depend on where the rows are
 * cut), and
 * column plans with too few pieces in all narrow their column tiles too. */
static void plan_tiles(reduce_plan *p, const parallel_config *par)
{
    const norm_dims *k = &p->kept, *r = &p->red;
    uint64_t outputs = 1;
    for (int i = 0; i < k->count; i++)
        outputs *= k->size[i];
    const uint64_t bytes = outputs * p->n * dtype_size(p->in_type);
    p->col_tile = 1;
    p->col_depth = 1;
    p->col_hint = 0;
    if (p->shape == SHAPE_COL) {
        uint64_t nin = r->size[r->count - 1];
        uint64_t blocks = (nin + p->block - 1) / p->block; /* per group: outer reduced dims x */
        for (int i = 0; i + 1 < r->count; i++)
            blocks *= r->size[i];
        while (blocks >>= 1)
            p->col_depth++;
        uint32_t inner = k->size[k->count - 1], widest = widest_col_tile(p);
        if (p->ordered && r->in[r->count - 1] == (ptrdiff_t)inner &&
            inner <= DMLCPU_COL_WIDE_TILE &&
            inner * dtype_size(p->in_type) <= DMLCPU_COL_WIDE_BYTES &&
            bytes >= DMLCPU_COL_WIDE_MIN_BYTES)
            widest = inner; /* whole rows back to back: see DMLCPU_COL_WIDE_TILE */
        p->col_tile = inner < widest ? inner : widest;
        p->units = outputs / inner * ((inner + p->col_tile - 1) / p->col_tile);
    } else {
        p->units = outputs;
    }
    p->tiles = 1;
    p->split = 1;
    p->split_len = 0;
    p->slots = 1;
    unsigned threads = parallel_threads(par);
    /* FLOAT16 columns are bound by their conversions: the strip walk measured no faster there */
    if (p->shape == SHAPE_COL && p->ordered && bytes <= DMLCPU_COL_SMALL_BYTES &&
        p->in_type != DMLCPU_DATA_TYPE_FLOAT16)
        p->col_hint = DMLCPU_COL_SMALL;
    if (p->shape == SHAPE_COL && bytes >= DMLCPU_COL_WIDE_MIN_BYTES &&
        (reduce_kind_is_arg(p->kind) || p->kind == RK_MIN || p->kind == RK_MAX))
        p->col_hint = DMLCPU_COL_STREAM;
    if (threads <= 1 || bytes < DMLCPU_PAR_MIN_BYTES)
        return;
    /* four tiles a worker, for balance; but on two workers one tile each for column ARG* that
     * streams from memory and would split its rows: each tile's walk starts over, its first few
     * hundred rows changing most of the bests (simd/reduce_free.h), and the tiles' results
     * then wait for one rescan of every column. ARGMAX over axis 0 on two threads, one process
     * alternating both plans in either order (Zen 5): 8 tiles were no faster than one thread
     * (FLOAT32 4096 x 4096, UINT16 and FLOAT16 4096 x 8192); one each 1.14-1.15x, 1.29-1.35x and
     * 1.35x faster than those 8 tiles (INT16 1.39x; FLOAT64 2048 x 4096, two column tiles,
     * 1.04-1.06x), 4 tiles between. With more workers one tile each left the rescans to few
     * tasks (--simulate-threads 16: 32-53% efficiency against 90-97% with four a worker). */
    const bool one_each = p->col_hint == DMLCPU_COL_STREAM && reduce_kind_is_arg(p->kind) &&
                          threads <= 2 && p->units < 4 * (uint64_t)threads;
    uint64_t want = (one_each ? 1 : 4) * (uint64_t)threads, most = bytes / DMLCPU_TILE_MIN_BYTES;
    if (want > most)
        want = most;
    uint64_t piece = p->shape == SHAPE_COL && !p->ordered
                         ? DMLCPU_COL_FREE_SPLIT_BYTES / dtype_size(p->in_type)
                         : p->block;
    bool splittable = r->count == 1 && p->shape != SHAPE_STRIDED;
    uint64_t pieces = splittable ? (p->n + piece - 1) / piece : 1;
    if (p->col_tile > DMLCPU_COL_TILE) {
        /* whole rows (DMLCPU_COL_WIDE_TILE) on a few threads: tiles of DMLCPU_COL_TILE columns
         * while that gives every worker two or more; narrower tiles read shorter pieces of each
         * row. SUM and SUM_SQUARE over axis 0 of 4096 x 4096 FLOAT32 on 2 threads, one process
         * alternating both plans (Zen 4): 4 tiles of 1024 columns 1.19-1.32x faster than 8 of
         * 512; FLOAT64 4096 x 2048 1.02-1.13x. With more workers their balance needs the usual
         * four tiles each (--simulate-threads 16 with two: 76% efficiency instead of 90%). */
        const uint64_t inner = k->size[k->count - 1];
        uint64_t fit = outputs / inner * ((inner + DMLCPU_COL_TILE - 1) / DMLCPU_COL_TILE) * pieces;
        fit = (fit + threads - 1) / threads * threads;
        if (fit >= 2 * (uint64_t)threads && fit < want)
            want = fit;
    }
    if (p->shape == SHAPE_COL && p->units * pieces < want)
        narrow_col_tiles(p, outputs, want, pieces);
    if (p->units >= want || pieces <= 1) {
        p->tiles = (uint32_t)(p->units < want ? p->units : want);
    } else {
        uint64_t per_unit = (want + p->units - 1) / p->units;
        uint64_t group = next_pow2((pieces + per_unit - 1) / per_unit);
        p->split_len = group * piece;
        p->split = (uint32_t)((pieces + group - 1) / group);
        p->tiles = (uint32_t)(p->units * p->split);
    }
    if (p->shape == SHAPE_COL)
        p->slots = p->tiles < threads ? p->tiles : threads;
    if (p->slots > COL_MAX_SLOTS)
        p->slots = COL_MAX_SLOTS;
}

static reduce_kind kind_of(dmlcpu_reduce_function f, dmlcpu_axis_direction dir, reduce_finalize *fin)
{
    bool last = dir == DMLCPU_AXIS_DIRECTION_DECREASING;
    *fin = FIN_NONE;
    switch (f) {
    case DMLCPU_REDUCE_FUNCTION_ARGMAX: return last ? RK_ARGMAX_LAST : RK_ARGMAX;
    case DMLCPU_REDUCE_FUNCTION_ARGMIN: return last ? RK_ARGMIN_LAST : RK_ARGMIN;
    case DMLCPU_REDUCE_FUNCTION_AVERAGE: *fin = FIN_DIV_N; return RK_SUM;
    case DMLCPU_REDUCE_FUNCTION_L1: return RK_ASUM;
    case DMLCPU_REDUCE_FUNCTION_L2: *fin = FIN_SQRT; return RK_SQSUM;
    case DMLCPU_REDUCE_FUNCTION_LOG_SUM: *fin = FIN_LOG; return RK_SUM;
    case DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP: *fin = FIN_LSE; return RK_LSE;
    case DMLCPU_REDUCE_FUNCTION_MAX: return RK_MAX;
    case DMLCPU_REDUCE_FUNCTION_MIN: return RK_MIN;
    case DMLCPU_REDUCE_FUNCTION_MULTIPLY: return RK_PROD;
    case DMLCPU_REDUCE_FUNCTION_SUM: return RK_SUM;
    case DMLCPU_REDUCE_FUNCTION_SUM_SQUARE: return RK_SQSUM;
    }
    return RK_SUM;
}

dmlcpu_status reduce_create(dmlcpu_operator *op, const dmlcpu_reduce_operator_desc *d,
                            dmlcpu_reduce_function function, dmlcpu_axis_direction direction,
                            dmlcpu_isa cap)
{
    reduce_plan *p = &op->u.reduce;
    const dmlcpu_tensor_desc *in = d->input_tensor, *out = d->output_tensor;
    p->kind = kind_of(function, direction, &p->finalize);
    p->in_type = in->data_type;
    p->out_type = out->data_type;
    p->ordered = dtype_is_float(in->data_type) &&
                 (p->kind <= RK_PROD || p->kind == RK_LSE);
    p->block = p->ordered && in->data_type == DMLCPU_DATA_TYPE_FLOAT64 ? DMLCPU_BLOCK_F64
               : p->ordered                                            ? DMLCPU_BLOCK_F32
                                                                       : DMLCPU_BLOCK_FREE;
    p->combine = reduce_combiner(p->kind, in->data_type);

    uint32_t is[DMLCPU_MAX_RANK], os[DMLCPU_MAX_RANK];
    uint8_t reduced[DMLCPU_MAX_RANK] = {0};
    tensor_strides(in, is);
    tensor_strides(out, os);
    for (uint32_t i = 0; i < d->axis_count; i++)
        reduced[d->axes[i]] = 1;
    shape_reduce(in->dimension_count, in->sizes, is, os, reduced, &p->kept, &p->red);
    p->n = 1;
    for (int i = 0; i < p->red.count; i++)
        p->n *= p->red.size[i];

    const norm_dims *r = &p->red, *k = &p->kept;
    uint64_t nin = r->count ? r->size[r->count - 1] : 1;
    if (r->count == 0 || r->in[r->count - 1] == 1)
        p->shape = SHAPE_ROW;
    else if (k->count > 0 && k->in[k->count - 1] == 1 &&
             (r->count == 1 || !p->ordered || nin % p->block == 0))
        p->shape = SHAPE_COL;
    else
        p->shape = SHAPE_STRIDED;

    const kernel_table *tables[8];
    int nt = dispatch_tables(cap, tables);
    p->row = NULL;
    p->rows = NULL;
    p->col = NULL;
    p->log_f32 = NULL;
    p->log_f64 = NULL;
    dmlcpu_isa row_isa = DMLCPU_ISA_SCALAR, col_isa = DMLCPU_ISA_SCALAR;
    /* the stream forms of the row kernels (kernels.h) for operators that read from memory */
    uint64_t in_bytes = dtype_size(in->data_type);
    for (uint32_t i = 0; i < in->dimension_count; i++)
        in_bytes *= in->sizes[i];
    const bool stream = in_bytes >= DMLCPU_ROW_STREAM_BYTES;
    for (int t = nt - 1; t >= 0; t--) { /* scalar first, better tables override */
        if (tables[t]->row[p->kind][p->in_type]) {
            p->row = tables[t]->row[p->kind][p->in_type];
            if (stream && tables[t]->row_stream[p->kind][p->in_type])
                p->row = tables[t]->row_stream[p->kind][p->in_type];
            row_isa = tables[t]->isa;
        }
        if (tables[t]->rows[p->kind][p->in_type]) {
            p->rows = tables[t]->rows[p->kind][p->in_type];
            if (stream && tables[t]->rows_stream[p->kind][p->in_type])
                p->rows = tables[t]->rows_stream[p->kind][p->in_type];
        }
        if (tables[t]->col[p->kind][p->in_type]) {
            p->col = tables[t]->col[p->kind][p->in_type];
            col_isa = tables[t]->isa;
        }
        if (tables[t]->log_f32)
            p->log_f32 = tables[t]->log_f32;
        if (tables[t]->log_f64)
            p->log_f64 = tables[t]->log_f64;
    }
    if (!p->row || !p->col || !p->combine)
        return set_error(DMLCPU_STATUS_UNSUPPORTED, "%s: no kernel for %s on %s", op->name,
                         dtype_name(p->in_type), dmlcpu_isa_name(cap));
    op->isa = p->shape == SHAPE_COL ? col_isa : row_isa;

    op->input_count = 1;
    op->output_count = 1;
    plan_tiles(p, &op->par);
    uint64_t temp = (uint64_t)p->slots * (p->shape == SHAPE_COL ? col_slot_bytes(p) : 0) +
                    split_results(p) * sizeof(partial) +
                    (p->split > 1 ? p->tiles * sizeof(_Atomic uint32_t) : 0);
    /* a serial plan that fits uses the stack (small operators bind no temporary buffer) */
    op->temporary_bytes = p->tiles == 1 && temp <= COL_STACK_BYTES ? 0 : temp + 64;
    op->inputs = malloc(sizeof *op->inputs);
    op->outputs = malloc(sizeof *op->outputs);
    if (!op->inputs || !op->outputs)
        return set_error(DMLCPU_STATUS_OUT_OF_MEMORY, "%s: out of memory", op->name);
    op->inputs[0] = (binding_rule){tensor_bytes(in), (uint32_t)dtype_size(in->data_type)};
    op->outputs[0] = (binding_rule){tensor_bytes(out), (uint32_t)dtype_size(out->data_type)};
    return DMLCPU_STATUS_OK;
}
