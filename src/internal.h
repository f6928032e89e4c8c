/* Shared internals of the operator layer: the operator object and the entry points of the
 * validate, reduce and copy files. Portable C, no intrinsics. */
#ifndef DMLCPU_INTERNAL_H
#define DMLCPU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dmlcpu.h"
#include "kernels.h"
#include "parallel.h"
#include "shape.h"
#include "tensor.h"

/* What execute checks of one bound buffer. */
typedef struct {
    uint64_t bytes;     /* the tensor's total size (declared, or the addressed size when 0) */
    uint32_t esize;     /* element size: the required alignment */
} binding_rule;

/* A reduction, planned (reduce.c). */
typedef struct {
    reduce_kind kind;
    reduce_finalize finalize;
    dmlcpu_data_type in_type, out_type;
    bool ordered;               /* float sums: the canonical order of SPEC 4 applies */
    uint32_t block;             /* elements per partial (the canonical block length) */
    uint64_t n;                 /* group size N */
    reduce_shape shape;
    uint32_t col_tile;          /* COL: outputs per column-kernel call */
    uint32_t col_depth;         /* COL: rows of the tile's pairwise counter (1: one block) */
    uint64_t col_hint;          /* COL: flags or-ed into the kernel's index_base (kernels.h) */
    uint64_t units;             /* outputs (ROW, STRIDED) or column tiles (COL) */
    uint32_t tiles;             /* tasks of an execute: 1 = serial */
    uint32_t split;             /* tiles per unit (> 1: a unit's blocks are divided) */
    uint64_t split_len;         /* group elements per split tile: a power of two of pieces
                                 * (canonical blocks; order-free columns: rows, see plan_tiles) */
    uint32_t slots;             /* COL: scratch areas, one per concurrently running tile */
    norm_dims kept;             /* kept dims: size, input stride, output stride */
    norm_dims red;              /* reduced dims in logical order: size, input stride */
    reduce_row_fn row;
    reduce_rows_fn rows;        /* NULL: short groups go through row one at a time */
    reduce_col_fn col;
    combine_fn combine;
    log_f32_fn log_f32;         /* LOG_SUM, LOG_SUM_EXP: the finalize step's log */
    log_f64_fn log_f64;
} reduce_plan;

/* A copy operator, planned (copy.c): jobs, each a strided copy dst[c] = src[c] over dims, or
 * (SLICE_GRAD) a pass over the whole output gradient that writes each element once: the input
 * gradient's value on the window's lattice, zero elsewhere. */
typedef struct {
    uint32_t src;               /* input binding index */
    uint32_t dst;               /* output binding index */
    copy_dims dims;             /* COPY: normalised; GRAD: the output gradient's dims */
    bool grad;
    /* GRAD, per dim: lattice start (the window's first element), step (signed), count, and
     * the input gradient's stride */
    int64_t start[8], step[8];
    uint32_t count[8];
    ptrdiff_t grad_stride[8];
    /* COPY, tiled (a transpose): 0, or the tile edge in elements. dims[count - 2] is then
     * unit-stride on the side where the innermost dim is not; it is walked in bands of this
     * many, each band's part of the innermost dim in tiles of `tile_step` elements (as many, or
     * DMLCPU_TILE_WIDE_BYTES: kernels.h, transpose_stream_lines). */
    uint32_t tile, tile_step;
    uint64_t bands;             /* tiled: bands of dims[count - 2] */
    uint64_t rows;              /* positions of the outer dims (tiled: times bands) */
    uint32_t cuts;              /* pieces per row (long rows are divided between tiles) */
} copy_job;

/* One task of an execute: pieces [begin, end) of job, in (row, piece) order; a tiled job's rows
 * are (outer row, band). */
typedef struct {
    uint32_t job;
    uint64_t begin, end;
} copy_task;

typedef struct {
    uint32_t job_count;
    copy_job *jobs;
    uint32_t task_count;
    bool parallel;              /* false: the tasks (one per job) run on the caller's thread */
    uint64_t bytes;             /* bytes copied by an execute */
    copy_task *tasks;
    copy_fn copy;               /* the innermost-dimension kernel for the element size */
    copy_block_fn copy_block;   /* contiguous rows, many per call; NULL when streamed */
    fill_fn fill;
    transpose_fn transpose;     /* tiles with contiguous source columns and destination rows */
    expand2_fn expand2;         /* SLICE_GRAD rows with a window step of 2 */
    void (*stream_fence)(void); /* after each task, when copy or transpose streams */
} copy_plan;

struct dmlcpu_operator {
    dmlcpu_operator_type type;
    const char *name;           /* "REDUCE", "SLICE", ... */
    dmlcpu_isa isa;
    uint32_t input_count, output_count;
    uint64_t temporary_bytes;
    binding_rule *inputs;       /* input_count rules */
    binding_rule *outputs;      /* output_count rules */
    parallel_config par;
    union {
        reduce_plan reduce;
        copy_plan copy;
    } u;
};

/* validate.c: one function per operator. Each checks every rule of the SPEC and returns OK or the
 * status with the message set; nothing is allocated. */
dmlcpu_status validate_reduce(const char *op, const dmlcpu_reduce_operator_desc *d, bool standalone_arg,
                              dmlcpu_axis_direction direction);
dmlcpu_status validate_slice(const char *op, const dmlcpu_tensor_desc *in, const dmlcpu_tensor_desc *out,
                             const char *in_field, const char *out_field, uint32_t dimension_count,
                             const uint32_t *offsets, const uint32_t *sizes, const int32_t *strides,
                             bool grad);
dmlcpu_status validate_split_join(const char *op, const dmlcpu_tensor_desc *whole, const char *whole_field,
                                  uint32_t part_count, const dmlcpu_tensor_desc *parts,
                                  const char *parts_field, const char *count_field, uint32_t axis);
dmlcpu_status validate_identity(const char *op, const dmlcpu_identity_operator_desc *d);
/* reduce.c / copy.c: plan a validated descriptor into op (op->u, counts, binding rules). */
dmlcpu_status reduce_create(dmlcpu_operator *op, const dmlcpu_reduce_operator_desc *d,
                            dmlcpu_reduce_function function, dmlcpu_axis_direction direction,
                            dmlcpu_isa cap);
void reduce_execute(const dmlcpu_operator *op, const dmlcpu_bindings *b);
dmlcpu_status copy_create(dmlcpu_operator *op, const dmlcpu_operator_desc *desc, dmlcpu_isa cap);
void copy_execute(const dmlcpu_operator *op, const dmlcpu_bindings *b);
void copy_destroy(dmlcpu_operator *op);

#endif
