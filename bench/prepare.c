/*
 * Turning a case into an operator with bound buffers. Inputs come from a pool that the driver
 * fills once per data type, outside any timed loop; outputs and the temporary buffer are
 * allocated here and written once so no page fault lands in a sample.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* A buffer of at least size bytes in owned slot k, written once: the one a previous prepare of
 * the same case left there when it is large enough, so that every thread count of a case runs on
 * the same memory (at 512 KiB, where the buffers landed in the cache moved a case by up to 10%). */
static void *owned_buffer(prepared_case *p, int k, uint64_t size)
{
    if (!p->owned[k] || p->owned_size[k] < size) {
        free(p->owned[k]);
        p->owned[k] = bench_alloc(size);
        p->owned_size[k] = size;
        memset(p->owned[k], 0, size);
    }
    return p->owned[k];
}

static void bind_output(prepared_case *p, int slot, const dmlcpu_tensor_desc *d)
{
    uint64_t size = dmlcpu_calc_buffer_tensor_size(d->data_type, d->dimension_count, d->sizes,
                                                   d->strides);
    p->outputs[slot].data = owned_buffer(p, slot, size);
    p->outputs[slot].size_in_bytes = size;
}

static void bind_input(prepared_case *p, int slot, const dmlcpu_tensor_desc *d, void *data)
{
    p->inputs[slot].data = data;
    p->inputs[slot].size_in_bytes = dmlcpu_calc_buffer_tensor_size(
        d->data_type, d->dimension_count, d->sizes, d->strides);
}

static dmlcpu_tensor_desc tensor(dmlcpu_data_type t, uint32_t rank, const uint32_t *sizes,
                                 const uint32_t *strides)
{
    dmlcpu_tensor_desc d = {t, rank, sizes, strides, 0};
    return d;
}

dmlcpu_status case_prepare(const bench_case *c, uint32_t max_threads, void *pool,
                           prepared_case *p)
{
    return case_prepare_pool(c, max_threads, NULL, NULL, pool, p);
}

dmlcpu_status case_prepare_pool(const bench_case *c, uint32_t max_threads,
                                dmlcpu_parallel_for_fn parallel_for, void *parallel_for_context,
                                void *pool, prepared_case *p)
{
    p->op = NULL;
    dmlcpu_create_options options = {max_threads, parallel_for, parallel_for_context};
    dmlcpu_data_type t = c->dtype;
    size_t e = dtype_size(t);
    uint32_t r = c->out_shape[0], cols = c->out_shape[1];
    uint32_t part[2] = {0, 0}, out_strides[2] = {1, 0};
    uint32_t offsets[2] = {0, 0}, window[2] = {c->shape[0], c->shape[1]};
    int32_t steps[2] = {1, 1};
    dmlcpu_tensor_desc in[BENCH_PARTS], out[BENCH_PARTS];
    int n_in = 1, n_out = 1;
    dmlcpu_reduce_operator_desc reduce;
    dmlcpu_join_operator_desc join;
    dmlcpu_split_operator_desc split;
    dmlcpu_slice_operator_desc slice;
    dmlcpu_slice_grad_operator_desc grad;
    dmlcpu_identity_operator_desc identity;
    dmlcpu_operator_desc desc = {0, NULL};

    in[0] = tensor(t, c->rank, c->shape, NULL);
    out[0] = tensor(t, c->out_rank, c->out_shape, NULL);
    switch (c->copy) {
    case COPY_NONE:
        if (c->function == DMLCPU_REDUCE_FUNCTION_ARGMAX) out[0].data_type = DMLCPU_DATA_TYPE_INT64;
        reduce = (dmlcpu_reduce_operator_desc){(dmlcpu_reduce_function)c->function, &in[0],
                                               &out[0], c->axis_count, c->axes};
        desc = (dmlcpu_operator_desc){DMLCPU_OPERATOR_REDUCE, &reduce};
        break;
    case COPY_JOIN:
    case COPY_SPLIT:
        part[0] = r;
        part[1] = cols / BENCH_PARTS;
        if (c->copy == COPY_JOIN) {
            n_in = BENCH_PARTS;
            for (int k = 0; k < BENCH_PARTS; k++) in[k] = tensor(t, 2, part, NULL);
            join = (dmlcpu_join_operator_desc){BENCH_PARTS, in, &out[0], 1};
            desc = (dmlcpu_operator_desc){DMLCPU_OPERATOR_JOIN, &join};
        } else {
            n_out = BENCH_PARTS;
            for (int k = 0; k < BENCH_PARTS; k++) out[k] = tensor(t, 2, part, NULL);
            split = (dmlcpu_split_operator_desc){&in[0], BENCH_PARTS, out, 1};
            desc = (dmlcpu_operator_desc){DMLCPU_OPERATOR_SPLIT, &split};
        }
        break;
    case COPY_SLICE_ROWS:
    case COPY_SLICE_STEP2:
    case COPY_SLICE_REVERSE:
        if (c->copy == COPY_SLICE_ROWS) {
            offsets[0] = r;
            window[0] = r;
        }
        if (c->copy == COPY_SLICE_STEP2) steps[1] = 2;
        if (c->copy == COPY_SLICE_REVERSE) steps[1] = -1;
        slice = (dmlcpu_slice_operator_desc){&in[0], &out[0], 2, offsets, window, steps};
        desc = (dmlcpu_operator_desc){DMLCPU_OPERATOR_SLICE, &slice};
        break;
    case COPY_SLICE_GRAD:
        window[0] = r;
        window[1] = cols;
        steps[1] = 2;
        grad = (dmlcpu_slice_grad_operator_desc){&in[0], &out[0], 2, offsets, window, steps};
        desc = (dmlcpu_operator_desc){DMLCPU_OPERATOR_SLICE_GRAD, &grad};
        break;
    case COPY_TRANSPOSE:
    case COPY_TRANSPOSE_ODD:
        /* The output is the packed [cols_in, rows_in] tensor, described with the input's sizes
         * and transposed strides. */
        out_strides[0] = 1;
        out_strides[1] = c->shape[0];
        out[0] = tensor(t, 2, c->shape, out_strides);
        identity = (dmlcpu_identity_operator_desc){&in[0], &out[0]};
        desc = (dmlcpu_operator_desc){DMLCPU_OPERATOR_IDENTITY, &identity};
        break;
    }

    dmlcpu_status st = dmlcpu_create_operator(&desc, &options, &p->op);
    if (st != DMLCPU_STATUS_OK) return st;

    dmlcpu_binding_properties props;
    dmlcpu_get_binding_properties(p->op, &props);
    if ((int)props.input_count != n_in || (int)props.output_count != n_out) {
        fprintf(stderr, "dmlcpu-bench: %s expects %u inputs and %u outputs, not %d and %d\n",
                c->op, props.input_count, props.output_count, n_in, n_out);
        dmlcpu_destroy_operator(p->op);
        p->op = NULL;
        return DMLCPU_STATUS_INVALID_ARGUMENT;
    }
    /* JOIN's parts lie one after the other in the pool. */
    unsigned char *src = pool;
    for (int k = 0; k < n_in; k++) {
        bind_input(p, k, &in[k], src);
        uint64_t elements = 1;
        for (uint32_t d = 0; d < in[k].dimension_count; d++) elements *= in[k].sizes[d];
        src += elements * e;
    }
    for (int k = 0; k < n_out; k++) bind_output(p, k, &out[k]);
    if (props.temporary_size_in_bytes) {
        p->bindings.temporary.data = owned_buffer(p, BENCH_PARTS, props.temporary_size_in_bytes);
        p->bindings.temporary.size_in_bytes = props.temporary_size_in_bytes;
    }
    p->bindings.input_count = (uint32_t)n_in;
    p->bindings.inputs = p->inputs;
    p->bindings.output_count = (uint32_t)n_out;
    p->bindings.outputs = p->outputs;
    return DMLCPU_STATUS_OK;
}

void case_release_operator(prepared_case *p)
{
    dmlcpu_destroy_operator(p->op);
    p->op = NULL;
}

void case_release(prepared_case *p)
{
    case_release_operator(p);
    for (int k = 0; k <= BENCH_PARTS; k++) free(p->owned[k]);
    memset(p, 0, sizeof *p);
}
