/* SLICE, SLICE_GRAD, SPLIT, JOIN and IDENTITY: each becomes a list of jobs over normalised dims,
 * keyed by element size, and the jobs a list of tasks that one parallel region runs. */
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "internal.h"

static int size_index(size_t es) { return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3; }

/* A job over the whole of a tensor's coordinates: sizes with both sides' strides. */
static void job_dims(copy_dims *d, const dmlcpu_tensor_desc *shape, const uint32_t *src_strides,
                     const uint32_t *dst_strides)
{
    memset(d, 0, sizeof *d);
    d->count = (int)shape->dimension_count;
    for (int i = 0; i < d->count; i++) {
        d->size[i] = shape->sizes[i];
        d->src[i] = src_strides ? (ptrdiff_t)src_strides[i] : 0;
        d->dst[i] = (ptrdiff_t)dst_strides[i];
    }
}

/* SLICE window: coordinate c of the small side maps to start + stride*c on the big side. */
static void window_map(const dmlcpu_tensor_desc *big, const uint32_t *big_strides,
                       const uint32_t *offsets, const uint32_t *sizes, const int32_t *strides,
                       ptrdiff_t *off, ptrdiff_t *step)
{
    *off = 0;
    for (uint32_t i = 0; i < big->dimension_count; i++) {
        int64_t start = (int64_t)offsets[i] + (strides[i] < 0 ? (int64_t)sizes[i] - 1 : 0);
        *off += (ptrdiff_t)start * (ptrdiff_t)big_strides[i];
        step[i] = (ptrdiff_t)strides[i] * (ptrdiff_t)big_strides[i];
    }
}

/* SLICE_GRAD: a COPY job (the scatter) when the window covers the whole output with steps of
 * +-1, else a GRAD job. */
static void plan_grad(copy_job *j, const dmlcpu_slice_grad_operator_desc *d)
{
    const dmlcpu_tensor_desc *og = d->output_gradient_tensor, *ig = d->input_gradient_tensor;
    uint32_t a[DMLCPU_MAX_RANK], b[DMLCPU_MAX_RANK];
    tensor_strides(ig, a);
    tensor_strides(og, b);
    bool covers = true;
    for (uint32_t i = 0; i < og->dimension_count; i++)
        covers = covers && d->input_window_sizes[i] == og->sizes[i] && ig->sizes[i] == og->sizes[i] &&
                 (d->input_window_strides[i] == 1 || d->input_window_strides[i] == -1);
    if (covers) {
        job_dims(&j->dims, ig, a, b);
        window_map(og, b, d->input_window_offsets, d->input_window_sizes, d->input_window_strides,
                   &j->dims.dst_off, j->dims.dst);
        return;
    }
    j->grad = true;
    job_dims(&j->dims, og, NULL, b);
    for (uint32_t i = 0; i < og->dimension_count; i++) {
        int32_t s = d->input_window_strides[i];
        j->start[i] = (int64_t)d->input_window_offsets[i] + (s < 0 ? (int64_t)d->input_window_sizes[i] - 1 : 0);
        j->step[i] = s;
        j->count[i] = ig->sizes[i];
        j->grad_stride[i] = (ptrdiff_t)a[i];
    }
}

static void plan_jobs(copy_plan *p, const dmlcpu_operator_desc *desc)
{
    uint32_t a[DMLCPU_MAX_RANK], b[DMLCPU_MAX_RANK];
    switch (desc->type) {
    case DMLCPU_OPERATOR_IDENTITY: {
        const dmlcpu_identity_operator_desc *d = desc->desc;
        tensor_strides(d->input_tensor, a);
        tensor_strides(d->output_tensor, b);
        job_dims(&p->jobs[0].dims, d->input_tensor, a, b);
        break;
    }
    case DMLCPU_OPERATOR_SLICE: {
        const dmlcpu_slice_operator_desc *d = desc->desc;
        tensor_strides(d->input_tensor, a);
        tensor_strides(d->output_tensor, b);
        copy_dims *cd = &p->jobs[0].dims;
        job_dims(cd, d->output_tensor, NULL, b);
        window_map(d->input_tensor, a, d->input_window_offsets, d->input_window_sizes,
                   d->input_window_strides, &cd->src_off, cd->src);
        break;
    }
    case DMLCPU_OPERATOR_SLICE_GRAD:
        plan_grad(&p->jobs[0], desc->desc);
        break;
    default: { /* SPLIT and JOIN: one job per part */
        bool split = desc->type == DMLCPU_OPERATOR_SPLIT;
        const dmlcpu_split_operator_desc *s = desc->desc;
        const dmlcpu_join_operator_desc *jd = desc->desc;
        const dmlcpu_tensor_desc *whole = split ? s->input_tensor : jd->output_tensor;
        const dmlcpu_tensor_desc *parts = split ? s->output_tensors : jd->input_tensors;
        uint32_t axis = split ? s->axis : jd->axis;
        tensor_strides(whole, a);
        ptrdiff_t at = 0;
        for (uint32_t k = 0; k < p->job_count; k++) {
            copy_job *j = &p->jobs[k];
            tensor_strides(&parts[k], b);
            j->src = split ? 0 : k;
            j->dst = split ? k : 0;
            job_dims(&j->dims, &parts[k], split ? a : b, split ? b : a);
            *(split ? &j->dims.src_off : &j->dims.dst_off) = at * (ptrdiff_t)a[axis];
            at += parts[k].sizes[axis];
        }
        break;
    }
    }
    for (uint32_t k = 0; k < p->job_count; k++)
        if (!p->jobs[k].grad)
            shape_copy(&p->jobs[k].dims);
}

static bool unit(ptrdiff_t stride) { return stride == 1 || stride == -1; }

/* Tile edges by element size (1, 2, 4, 8 bytes), see kernels.h. */
static const uint32_t tile_edges[4] = {DMLCPU_TILE_EDGE_X8, DMLCPU_TILE_EDGE_X16, DMLCPU_TILE_EDGE_X32,
                                       DMLCPU_TILE_EDGE_X64};
#define TILE_BUF(edge) ((edge) * ((edge) + 1))

/* Whether a tile's rows are the band dim (dims[count - 2], unit-stride on the source: a
 * transposed input) rather than the innermost dim (the band dim unit-stride on the
 * destination: a transposed output): the tile function reads along its rows and writes along
 * its columns. */
static bool tile_src_rows(const copy_dims *d)
{
    const int in = d->count - 1, b = in - 1;
    return unit(d->src[b]) + unit(d->dst[in]) >= unit(d->src[in]) + unit(d->dst[b]);
}

/* Whether the tiles of a tiled job go to the table's transpose as narrow tiles (kernels.h):
 * a side of 2 to 4 elements whose elements lie back to back on the other side of the copy. */
static bool narrow_tiles(const copy_dims *d)
{
    const int in = d->count - 1, b = in - 1;
    uint32_t nr, nc; /* the transpose's sides, and its strides */
    ptrdiff_t dr, sc;
    if (tile_src_rows(d) && d->src[b] == 1 && d->dst[in] == 1) {
        nr = d->size[b], nc = d->size[in], dr = d->dst[b], sc = d->src[in];
    } else if (!tile_src_rows(d) && d->src[in] == 1 && d->dst[b] == 1) {
        nr = d->size[in], nc = d->size[b], dr = d->dst[in], sc = d->src[b];
    } else {
        return false;
    }
    return (nr >= 2 && nr <= 4 && sc == (ptrdiff_t)nr) || (nc >= 2 && nc <= 4 && dr == (ptrdiff_t)nc);
}

/* A COPY job whose innermost dim is strided on one side while another dim is unit-stride on that
 * side is a transpose: walking the innermost dim would touch a new cache line per element on
 * that side. Such a job is copied in square tiles, so that both sides read or write whole lines.
 * The unit-stride dim moves next to the innermost one (the order of dims does not change what
 * is copied, only the order of the moves). A plain transpose is always planned as a transposed
 * output, whatever side the caller described as transposed: its bands are rows of the source,
 * read along them, each tile writing its lines into as many destination rows. Described as a
 * transposed input (bands of destination rows, the source read a piece of each of many rows at
 * a time), the same copies took longer, on an Intel Xeon with AVX-512 at 1 thread (one process
 * alternating both builds, medians of 11): FLOAT32 4096 x 4096 11.5 -> 7.5 ms, 4095 x 4097
 * 1.23x, FLOAT16 4096 x 8192 1.77x, UINT8 4096 x 4096 1.24x, FLOAT64 2895 x 2897 1.17x; in cache
 * (FLOAT32 255 x 513) the same. narrow: the transposes of some table take narrow tiles
 * (kernels.h); returns whether this job's tiles are narrow ones (those keep their orientation). */
static bool plan_tile(copy_job *j, size_t es, bool narrow)
{
    copy_dims *d = &j->dims;
    const int in = d->count - 1;
    if (j->grad || in < 1)
        return false;
    for (int side = 0; side < 2; side++) {
        const ptrdiff_t *s = side ? d->dst : d->src;
        if (s[in] >= -1 && s[in] <= 1) /* unit-stride, or one element read again and again */
            continue;
        for (int k = in - 1; k >= 0; k--) {
            if (!unit(s[k]))
                continue;
            uint32_t size = d->size[k];
            ptrdiff_t a = d->src[k], b = d->dst[k];
            for (int i = k; i < in - 1; i++) {
                d->size[i] = d->size[i + 1];
                d->src[i] = d->src[i + 1];
                d->dst[i] = d->dst[i + 1];
            }
            d->size[in - 1] = size;
            d->src[in - 1] = a;
            d->dst[in - 1] = b;
            narrow = narrow && narrow_tiles(d);
            if (!narrow && d->src[in - 1] == 1 && d->dst[in] == 1) {
                /* a plain transpose described as a transposed input: the same copy as a
                 * transposed output with the two dims swapped, whose bands are source rows */
                d->size[in - 1] = d->size[in];
                d->src[in - 1] = d->src[in];
                d->dst[in - 1] = 1;
                d->size[in] = size;
                d->src[in] = 1;
                d->dst[in] = b;
                size = d->size[in - 1];
            }
            j->tile = j->tile_step = narrow ? DMLCPU_TILE_NARROW : tile_edges[size_index(es)];
            j->bands = (size + j->tile - 1) / j->tile;
            return narrow;
        }
    }
    return false;
}

/* The elements a job copies. */
static uint64_t job_elements(const copy_job *j)
{
    uint64_t e = 1;
    for (int i = 0; i < j->dims.count; i++)
        e *= j->dims.size[i];
    return e;
}

/* The bytes a copy's jobs move. */
static uint64_t copy_bytes(const copy_plan *p, size_t es)
{
    uint64_t total = 0;
    for (uint32_t k = 0; k < p->job_count; k++)
        total += job_elements(&p->jobs[k]) * es;
    return total;
}

/* The tiles of a stream transpose by a kernel that writes whole lines at any alignment
 * (kernels.h, transpose_stream_lines). Where the destination rows are not a multiple of 64
 * bytes apart, they span DMLCPU_TILE_WIDE_BYTES along the destination rows (twice the edge):
 * such a kernel transposes one block more than the tile's columns hold, from before the tile
 * (the line that starts there belongs to the tile): a quarter more with 64 columns (FLOAT32),
 * an eighth with 128. One process alternating both, both orders, medians of 11, Zen 5,
 * 1 thread: FLOAT32 transposed 4100 x 4100 1.20-1.32x, 4097 x 4097 1.18-1.30x, 3000 x 5000
 * 1.22-1.31x, 8-byte 4100 x 4100 1.23-1.25x, 2050 x 8200 1.23-1.27x; UINT8 (tiles of 256 x
 * 512) 4100 x 4100 1.11x, 4097 x 4097 1.08-1.10x, 3000 x 6000 1.08-1.14x (medians of 9).
 * UINT8 tiles there are DMLCPU_TILE_CARRY_ROWS x DMLCPU_TILE_CARRY_COLS instead (kernels.h).
 * Where the rows are on lines (no such block), tiles of 128 x 128 took 0.84-0.91x the time of
 * 64 x 64, and FLOAT16 ones of 64 x 64 (DMLCPU_TILE_LINES_X16) 1.10-1.26x less than
 * 128 x 128 (4096 x 8192 and back); smaller tiles of the other sizes took 0.84-0.93x. Plain
 * transposes are transposed outputs here (plan_tile): the kernel's destination rows are the
 * innermost dim, its tiles' columns the band dim. */
static void stream_tiles(copy_job *j, size_t es)
{
    const copy_dims *d = &j->dims;
    const int in = d->count - 1, b = in - 1;
    if (!j->tile || j->tile == DMLCPU_TILE_NARROW)
        return;
    if (tile_src_rows(d) || !(d->src[in] == 1 && d->dst[b] == 1))
        return; /* not the table's transpose (tile_piece) */
    const ptrdiff_t pitch = d->dst[in];
    if ((uint64_t)(pitch < 0 ? -pitch : pitch) * es % 64 == 0) {
        if (es == 2)
            j->tile = j->tile_step = DMLCPU_TILE_LINES_X16;
    } else if (es == 1) {
        j->tile_step = DMLCPU_TILE_CARRY_ROWS;
        j->tile = DMLCPU_TILE_CARRY_COLS;
    } else {
        j->tile = DMLCPU_TILE_WIDE_BYTES / (uint32_t)es;
    }
    j->bands = (d->size[b] + j->tile - 1) / j->tile;
}

/* Parallel JOIN or SPLIT along an inner axis, where the parts' rows interleave in the joined
 * tensor in pieces of at most LOCKSTEP_MAX_ROW_BYTES: tasks are ranges of rows of every part
 * (LOCKSTEP_ROWS rows of each part in turn), so each thread reads (SPLIT) or writes (JOIN) its
 * own stretch of the joined tensor, not a strided share of all of it. UINT8 JOIN of four
 * [4096, 1024] parts, 2 threads: 1.5x one thread with tasks per part, 4x in lockstep. On one
 * thread the lockstep order goes with the non-temporal copies (DMLCPU_STREAM_MIN_BYTES): with
 * them, SPLIT into four parts in lockstep against per part (one process alternating both, Zen 4,
 * medians of 41, three runs): UINT8 [4096, 4096] 1.33-1.40x, FLOAT32 [4096, 2048] 1.21-1.54x;
 * JOIN the other way 0.92-1.10x. With ordinary stores the order per part was 20% faster at
 * 64 MiB. */
#define LOCKSTEP UINT32_MAX
#define LOCKSTEP_MAX_ROW_BYTES 2048
#define LOCKSTEP_ROWS 16
static bool lockstep_jobs(const copy_plan *p, size_t es)
{
    if (p->job_count < 2)
        return false;
    for (uint32_t k = 0; k < p->job_count; k++) {
        const copy_job *j = &p->jobs[k];
        if (j->tile || j->grad || j->rows != p->jobs[0].rows || j->rows < 2 ||
            (j->dims.count ? j->dims.size[j->dims.count - 1] : 1) * es > LOCKSTEP_MAX_ROW_BYTES)
            return false;
    }
    return true;
}

/* Cuts every job into tasks of similar size; one task per job when the copy is small.
 * streams: the tables have non-temporal copies for the element size (copy_stream). */
static dmlcpu_status plan_tasks(dmlcpu_operator *op, size_t es, bool streams)
{
    copy_plan *p = &op->u.copy;
    uint64_t total = 0;
    for (uint32_t k = 0; k < p->job_count; k++) {
        copy_job *j = &p->jobs[k];
        const uint64_t e = job_elements(j);
        j->rows = j->dims.count ? e / j->dims.size[j->dims.count - 1] : 1;
        if (j->tile) /* (outer row, band) */
            j->rows = j->rows / j->dims.size[j->dims.count - 2] * j->bands;
        total += e * es;
    }
    unsigned threads = parallel_threads(&op->par);
    bool parallel = threads > 1 && total >= DMLCPU_PAR_MIN_BYTES;
    p->parallel = parallel;
    p->bytes = total;
    if ((parallel || (streams && total >= DMLCPU_STREAM_MIN_BYTES)) && lockstep_jobs(p, es)) {
        /* tasks of whole rows of every job, so each thread has its own part of the joined
         * tensor */
        uint64_t rows = p->jobs[0].rows;
        uint64_t n = total / DMLCPU_TILE_MIN_BYTES;
        if (n > 4 * (uint64_t)threads)
            n = 4 * (uint64_t)threads;
        if (n > rows)
            n = rows;
        if (n < 1)
            n = 1;
        for (uint32_t k = 0; k < p->job_count; k++)
            p->jobs[k].cuts = 1;
        p->tasks = calloc(n, sizeof *p->tasks);
        if (!p->tasks)
            return set_error(DMLCPU_STATUS_OUT_OF_MEMORY, "%s: out of memory", op->name);
        for (uint64_t i = 0; i < n; i++)
            p->tasks[i] = (copy_task){LOCKSTEP, i * rows / n, (i + 1) * rows / n};
        p->task_count = (uint32_t)n;
        return DMLCPU_STATUS_OK;
    }
    uint64_t tasks = 0, want[256];
    for (uint32_t k = 0; k < p->job_count; k++) {
        copy_job *j = &p->jobs[k];
        uint64_t n = parallel ? job_elements(j) * es / DMLCPU_TILE_MIN_BYTES : 1;
        /* tiles whose rows end in partial lines (kernels.h, transpose_stream_lines) gather them
         * in a tensor's first and last bands, which take longer: more tasks to balance them */
        const uint64_t per_thread = j->tile_step != j->tile ? 8 : 4;
        if (n > per_thread * (uint64_t)threads)
            n = per_thread * (uint64_t)threads;
        if (n < 1)
            n = 1;
        /* fewer rows than tasks: cut each row into pieces */
        j->cuts = n > j->rows && !j->grad ? (uint32_t)((n + j->rows - 1) / j->rows) : 1;
        if (k < 256)
            want[k] = n;
        tasks += n;
    }
    p->tasks = calloc(tasks, sizeof *p->tasks);
    if (!p->tasks)
        return set_error(DMLCPU_STATUS_OUT_OF_MEMORY, "%s: out of memory", op->name);
    uint32_t t = 0;
    for (uint32_t k = 0; k < p->job_count; k++) {
        uint64_t n = k < 256 ? want[k] : 1, pieces = p->jobs[k].rows * p->jobs[k].cuts;
        for (uint64_t i = 0; i < n; i++)
            p->tasks[t++] = (copy_task){k, i * pieces / n, (i + 1) * pieces / n};
    }
    p->task_count = t;
    return DMLCPU_STATUS_OK;
}

dmlcpu_status copy_create(dmlcpu_operator *op, const dmlcpu_operator_desc *desc, dmlcpu_isa cap)
{
    copy_plan *p = &op->u.copy;
    const dmlcpu_tensor_desc *ins, *outs; /* arrays of input and output descriptions */
    uint32_t nin = 1, nout = 1, jobs = 1;
    switch (desc->type) {
    case DMLCPU_OPERATOR_SLICE: {
        const dmlcpu_slice_operator_desc *d = desc->desc;
        ins = d->input_tensor;
        outs = d->output_tensor;
        break;
    }
    case DMLCPU_OPERATOR_SLICE_GRAD: {
        const dmlcpu_slice_grad_operator_desc *d = desc->desc;
        ins = d->input_gradient_tensor;
        outs = d->output_gradient_tensor;
        break;
    }
    case DMLCPU_OPERATOR_SPLIT: {
        const dmlcpu_split_operator_desc *d = desc->desc;
        ins = d->input_tensor;
        outs = d->output_tensors;
        nout = jobs = d->output_count;
        break;
    }
    case DMLCPU_OPERATOR_JOIN: {
        const dmlcpu_join_operator_desc *d = desc->desc;
        ins = d->input_tensors;
        outs = d->output_tensor;
        nin = jobs = d->input_count;
        break;
    }
    default: {
        const dmlcpu_identity_operator_desc *d = desc->desc;
        ins = d->input_tensor;
        outs = d->output_tensor;
        break;
    }
    }
    op->input_count = nin;
    op->output_count = nout;
    op->temporary_bytes = 0;
    p->job_count = jobs;
    p->jobs = calloc(jobs, sizeof *p->jobs);
    op->inputs = malloc(nin * sizeof *op->inputs);
    op->outputs = malloc(nout * sizeof *op->outputs);
    if (!p->jobs || !op->inputs || !op->outputs)
        return set_error(DMLCPU_STATUS_OUT_OF_MEMORY, "%s: out of memory", op->name);
    for (uint32_t i = 0; i < nin; i++)
        op->inputs[i] = (binding_rule){tensor_bytes(&ins[i]), (uint32_t)dtype_size(ins[i].data_type)};
    for (uint32_t i = 0; i < nout; i++)
        op->outputs[i] = (binding_rule){tensor_bytes(&outs[i]), (uint32_t)dtype_size(outs[i].data_type)};

    size_t es = dtype_size(ins[0].data_type);
    const kernel_table *tables[8];
    int nt = dispatch_tables(cap, tables);
    p->copy = NULL;
    p->copy_block = NULL;
    p->fill = NULL;
    p->transpose = NULL;
    p->expand2 = NULL;
    op->isa = DMLCPU_ISA_SCALAR;
    dmlcpu_isa transpose_isa = DMLCPU_ISA_SCALAR;
    transpose_fn transpose_stream = NULL, transpose_small = NULL;
    bool transpose_narrow = false, transpose_lines = false;
    const kernel_table *narrow = NULL; /* the best table whose transposes take narrow tiles */
    copy_fn copy_stream = NULL;
    void (*copy_fence)(void) = NULL, (*transpose_fence)(void) = NULL;
    for (int t = nt - 1; t >= 0; t--) { /* scalar first, better tables override */
        if (tables[t]->copy[size_index(es)]) {
            p->copy = tables[t]->copy[size_index(es)];
            copy_stream = tables[t]->copy_stream[size_index(es)];
            copy_fence = tables[t]->stream_fence;
            op->isa = tables[t]->isa;
        }
        if (tables[t]->copy_block)
            p->copy_block = tables[t]->copy_block;
        if (tables[t]->fill[size_index(es)])
            p->fill = tables[t]->fill[size_index(es)];
        if (tables[t]->expand2[size_index(es)])
            p->expand2 = tables[t]->expand2[size_index(es)];
        if (tables[t]->transpose[size_index(es)]) {
            p->transpose = tables[t]->transpose[size_index(es)];
            transpose_stream = tables[t]->transpose_stream[size_index(es)];
            transpose_small = tables[t]->transpose_small[size_index(es)];
            transpose_fence = tables[t]->stream_fence;
            transpose_isa = tables[t]->isa;
            transpose_narrow = tables[t]->transpose_narrow;
            transpose_lines = tables[t]->transpose_stream_lines;
            if (transpose_narrow)
                narrow = tables[t];
        }
    }
    p->stream_fence = NULL;
    plan_jobs(p, desc);
    bool any_narrow = false;
    for (uint32_t k = 0; k < p->job_count; k++)
        any_narrow |= plan_tile(&p->jobs[k], es, narrow != NULL);
    if (any_narrow && !transpose_narrow) {
        /* a better table's transposes (NEON's) lack narrow tiles: the copy takes the narrow
         * table's for all its tiles */
        p->transpose = narrow->transpose[size_index(es)];
        transpose_stream = narrow->transpose_stream[size_index(es)];
        transpose_small = narrow->transpose_small[size_index(es)];
        transpose_fence = narrow->stream_fence;
        transpose_isa = narrow->isa;
        transpose_lines = narrow->transpose_stream_lines;
    }
    for (uint32_t k = 0; k < p->job_count; k++)
        if (p->jobs[k].tile && p->transpose)
            op->isa = transpose_isa; /* the level of the kernel doing the work */
    if (transpose_stream && transpose_lines && copy_bytes(p, es) >= DMLCPU_STREAM_MIN_BYTES)
        for (uint32_t k = 0; k < p->job_count; k++)
            stream_tiles(&p->jobs[k], es);
    dmlcpu_status st = plan_tasks(op, es, copy_stream != NULL);
    if (p->bytes >= DMLCPU_STREAM_MIN_BYTES) { /* larger than the caches: see kernels.h */
        if (transpose_stream) {
            p->transpose = transpose_stream;
            p->stream_fence = transpose_fence;
        }
        if (copy_stream) {
            p->copy = copy_stream;
            p->copy_block = NULL;
            p->stream_fence = copy_fence;
        }
    } else if (transpose_small && p->bytes <= DMLCPU_COPY_SMALL_BYTES) {
        p->transpose = transpose_small; /* in the L2: see kernels.h */
    }
    return st;
}

void copy_destroy(dmlcpu_operator *op)
{
    free(op->u.copy.jobs);
    free(op->u.copy.tasks);
}

/* Byte offsets of row `row` (row-major over the outer dims, dims[0, outer)) on both sides. */
static void row_offsets(const copy_dims *d, int outer, uint64_t row, ptrdiff_t es, ptrdiff_t *src,
                        ptrdiff_t *dst)
{
    *src = d->src_off * es;
    *dst = d->dst_off * es;
    for (int k = outer - 1; k >= 0; k--) {
        ptrdiff_t c = (ptrdiff_t)(row % d->size[k]);
        row /= d->size[k];
        *src += c * d->src[k] * es;
        *dst += c * d->dst[k] * es;
    }
}

/* GRAD: row `row` of the output gradient. Returns whether every outer coordinate lies on the
 * window's lattice; then *src is the input gradient's row. */
static bool grad_row(const copy_job *j, uint64_t row, ptrdiff_t es, ptrdiff_t *src, ptrdiff_t *dst)
{
    const copy_dims *d = &j->dims;
    bool on = true;
    *src = 0;
    *dst = 0;
    for (int k = d->count - 2; k >= 0; k--) {
        int64_t c = (int64_t)(row % d->size[k]);
        row /= d->size[k];
        *dst += (ptrdiff_t)c * d->dst[k] * es;
        int64_t delta = c - j->start[k]; /* c = start + step * i for i in [0, count) */
        int64_t i = delta / j->step[k];
        on = on && delta % j->step[k] == 0 && i >= 0 && i < j->count[k];
        *src += (ptrdiff_t)i * j->grad_stride[k] * es;
    }
    return on;
}

/* Copies an nr x nc tile (at most EDGE x EDGE): dst[r * dr + c * dc] = src[r * sr + c * sc]
 * (strides in elements; callers pass the source's unit stride, if any, as sr and the
 * destination's as dc). The tile goes through a buffer on the stack: the source is read along r
 * into one buffer row per c, then the destination written along c from a buffer column. So each
 * source line is read in one go and each destination line written in one go, even when the
 * lines of a tile compete for the same cache sets (power-of-two strides); the buffer's pitch is
 * nr + 1 so that a column's elements do not. Measured faster than copying the tile in place at
 * 512 KiB as well as at 64 MiB. */
#define DEF_TILE(NAME, T, EDGE)                                                                    \
    static void NAME(char *dst, ptrdiff_t dr, ptrdiff_t dc, const char *src, ptrdiff_t sr,         \
                     ptrdiff_t sc, size_t nr, size_t nc)                                           \
    {                                                                                              \
        T buf[TILE_BUF(EDGE)];                                                                     \
        T *d = (T *)(void *)dst;                                                                   \
        const T *s = (const T *)(const void *)src;                                                 \
        const size_t pitch = nr + 1;                                                               \
        for (size_t c = 0; c < nc; c++) {                                                          \
            const T *ss = s + (ptrdiff_t)c * sc;                                                   \
            T *b = buf + c * pitch;                                                                \
            if (sr == 1)                                                                           \
                for (size_t r = 0; r < nr; r++)                                                    \
                    b[r] = ss[r];                                                                  \
            else                                                                                   \
                for (size_t r = 0; r < nr; r++)                                                    \
                    b[r] = ss[(ptrdiff_t)r * sr];                                                  \
        }                                                                                          \
        for (size_t r = 0; r < nr; r++) {                                                          \
            T *dd = d + (ptrdiff_t)r * dr;                                                         \
            const T *b = buf + r;                                                                  \
            if (dc == 1)                                                                           \
                for (size_t c = 0; c < nc; c++)                                                    \
                    dd[c] = b[c * pitch];                                                          \
            else                                                                                   \
                for (size_t c = 0; c < nc; c++)                                                    \
                    dd[(ptrdiff_t)c * dc] = b[c * pitch];                                          \
        }                                                                                          \
    }
DEF_TILE(tile_x8, uint8_t, DMLCPU_TILE_EDGE_X8)
DEF_TILE(tile_x16, uint16_t, DMLCPU_TILE_EDGE_X16)
DEF_TILE(tile_x32, uint32_t, DMLCPU_TILE_EDGE_X32)
DEF_TILE(tile_x64, uint64_t, DMLCPU_TILE_EDGE_X64)

typedef void (*tile_fn)(char *, ptrdiff_t, ptrdiff_t, const char *, ptrdiff_t, ptrdiff_t, size_t,
                        size_t);
static const tile_fn tile_fns[4] = {tile_x8, tile_x16, tile_x32, tile_x64};

/* A tiled job's piece: band `band` of dims[count - 2] times [i0, i1) of the innermost dim, tile
 * by tile; dst and src point at the piece's outer row. */
static void tile_piece(const copy_plan *p, const copy_job *j, size_t es, char *dst, const char *src,
                       uint64_t band, size_t i0, size_t i1)
{
    const copy_dims *d = &j->dims;
    const int in = d->count - 1, b = in - 1;
    const ptrdiff_t e = (ptrdiff_t)es;
    const size_t r0 = (size_t)band * j->tile;
    size_t nr = d->size[b] - r0;
    if (nr > j->tile)
        nr = j->tile;
    const tile_fn f = tile_fns[size_index(es)];
    dst += (ptrdiff_t)r0 * d->dst[b] * e;
    src += (ptrdiff_t)r0 * d->src[b] * e;
    /* The tile function reads along its rows and writes along its columns: its rows are the
     * band dim when that is unit-stride on the source (a transposed input), the innermost dim
     * when the band dim is unit-stride on the destination (a transposed output). */
    const bool src_rows = tile_src_rows(d);
    for (size_t c = i0; c < i1; c += j->tile_step) {
        size_t nc = i1 - c < j->tile_step ? i1 - c : j->tile_step;
        char *to = dst + (ptrdiff_t)c * d->dst[in] * e;
        const char *from = src + (ptrdiff_t)c * d->src[in] * e;
        /* a plain transpose (the tile's source columns and destination rows contiguous) goes to
         * the ISA's kernel when there is one */
        if (src_rows && p->transpose && d->src[b] == 1 && d->dst[in] == 1)
            p->transpose(to, d->dst[b], from, d->src[in], nr, nc, c, d->size[in] - c - nc);
        else if (!src_rows && p->transpose && d->src[in] == 1 && d->dst[b] == 1)
            p->transpose(to, d->dst[in], from, d->src[b], nc, nr, r0, d->size[b] - r0 - nr);
        else if (src_rows)
            f(to, d->dst[b], d->dst[in], from, d->src[b], d->src[in], nr, nc);
        else
            f(to, d->dst[in], d->dst[b], from, d->src[in], d->src[b], nc, nr);
    }
}

typedef struct {
    const copy_plan *p;
    const dmlcpu_bindings *b;
    size_t es;
} copy_ctx;

/* Copies rows [r0, r1) of a plain (untiled, uncut) job: the offsets of the first row by
 * division, the next ones by stepping the outer coordinates like an odometer (a division per
 * dim and row cost a third of the time of copying 512-byte rows). Rows contiguous on both sides
 * go to the table's copy_block, as many at a time as dims[count - 2] holds from the current
 * one. */
static void copy_rows(const copy_ctx *c, const copy_job *j, uint64_t r0, uint64_t r1)
{
    const copy_dims *d = &j->dims;
    const ptrdiff_t es = (ptrdiff_t)c->es;
    const int in = d->count - 1;
    char *dst0 = c->b->outputs[j->dst].data;
    const char *src0 = c->b->inputs[j->src].data;
    const ptrdiff_t ds = in >= 0 ? d->dst[in] : 1, ss = in >= 0 ? d->src[in] : 1;
    const size_t n = in >= 0 ? d->size[in] : 1;
    const bool block = c->p->copy_block && in >= 1 && ds == 1 && ss == 1 &&
                       n * c->es <= DMLCPU_BLOCK_ROW_MAX_BYTES;
    ptrdiff_t so, dof;
    row_offsets(d, in, r0, es, &so, &dof);
    uint32_t coord[DMLCPU_MAX_RANK];
    uint64_t rest = r0;
    for (int k = in - 1; k >= 0; k--) {
        coord[k] = (uint32_t)(rest % d->size[k]);
        rest /= d->size[k];
    }
    for (uint64_t row = r0; row < r1;) {
        uint64_t step = 1; /* rows copied by this call */
        if (block) {
            step = d->size[in - 1] - coord[in - 1];
            if (step > r1 - row)
                step = r1 - row;
            c->p->copy_block(dst0 + dof, d->dst[in - 1] * es, src0 + so, d->src[in - 1] * es,
                             n * c->es, step);
        } else {
            c->p->copy(dst0 + dof, ds, src0 + so, ss, n);
        }
        row += step;
        for (int k = in - 1; k >= 0; k--) {
            so += (ptrdiff_t)step * d->src[k] * es;
            dof += (ptrdiff_t)step * d->dst[k] * es;
            coord[k] += (uint32_t)step;
            if (coord[k] < d->size[k])
                break;
            so -= (ptrdiff_t)d->size[k] * d->src[k] * es;
            dof -= (ptrdiff_t)d->size[k] * d->dst[k] * es;
            coord[k] = 0;
            step = 1;
        }
    }
}

static void copy_task_body(const copy_ctx *c, size_t t)
{
    const copy_plan *p = c->p;
    const copy_task *task = &p->tasks[t];
    if (task->job == LOCKSTEP) {
        for (uint64_t r0 = task->begin; r0 < task->end; r0 += LOCKSTEP_ROWS) {
            uint64_t r1 = task->end - r0 < LOCKSTEP_ROWS ? task->end : r0 + LOCKSTEP_ROWS;
            for (uint32_t k = 0; k < p->job_count; k++)
                copy_rows(c, &p->jobs[k], r0, r1);
        }
        return;
    }
    const copy_job *j = &p->jobs[task->job];
    if (!j->grad && !j->tile && j->cuts == 1) {
        copy_rows(c, j, task->begin, task->end);
        return;
    }
    const copy_dims *d = &j->dims;
    ptrdiff_t es = (ptrdiff_t)c->es;
    char *dst0 = c->b->outputs[j->dst].data;
    const char *src0 = c->b->inputs[j->src].data;
    int in = d->count - 1;
    size_t n = in >= 0 ? d->size[in] : 1;
    ptrdiff_t ss = in >= 0 ? d->src[in] : 1, ds = in >= 0 ? d->dst[in] : 1;
    for (uint64_t piece = task->begin; piece < task->end; piece++) {
        uint64_t row = piece / j->cuts, cut = piece % j->cuts;
        size_t i0 = (size_t)(cut * n / j->cuts), i1 = (size_t)((cut + 1) * n / j->cuts);
        ptrdiff_t so, dof;
        if (j->grad) {
            bool on = grad_row(j, row, es, &so, &dof);
            char *dst = dst0 + dof;
            if (on && p->expand2 && ds == 1 && j->step[in] == 2 && j->count[in] > 0) {
                /* one pass: zeros before the window, the window's elements with zeros between
                 * and after it */
                size_t s0 = (size_t)j->start[in], end = s0 + 2 * (size_t)j->count[in] - 1;
                p->fill(dst, 1, s0);
                p->expand2(dst + (ptrdiff_t)s0 * es, src0 + so, j->grad_stride[in], j->count[in],
                           n - end);
                continue;
            }
            p->fill(dst, ds, n);
            if (on)
                p->copy(dst + (ptrdiff_t)j->start[in] * ds * es, j->step[in] * ds,
                        src0 + so, j->grad_stride[in], j->count[in]);
            continue;
        }
        if (j->tile) {
            row_offsets(d, in - 1, row / j->bands, es, &so, &dof);
            tile_piece(p, j, c->es, dst0 + dof, src0 + so, row % j->bands, i0, i1);
            continue;
        }
        row_offsets(d, in, row, es, &so, &dof);
        p->copy(dst0 + dof + (ptrdiff_t)i0 * ds * es, ds, src0 + so + (ptrdiff_t)i0 * ss * es, ss,
                i1 - i0);
    }
}

/* A task, then the fence of the stream kernels it may have used (kernels.h, stream_fence). */
static void copy_task_run(void *ctx, size_t t)
{
    const copy_ctx *c = ctx;
    copy_task_body(c, t);
    if (c->p->stream_fence)
        c->p->stream_fence();
}

void copy_execute(const dmlcpu_operator *op, const dmlcpu_bindings *b)
{
    copy_ctx c = {&op->u.copy, b, op->inputs[0].esize};
    if (!op->u.copy.parallel) { /* small: no parallel region, however many parts */
        for (uint32_t t = 0; t < op->u.copy.task_count; t++)
            copy_task_run(&c, t);
        return;
    }
    parallel_run(&op->par, op->u.copy.task_count, op->u.copy.bytes, copy_task_run, &c);
}
