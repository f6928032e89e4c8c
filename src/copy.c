/* SLICE, SLICE_GRAD, SPLIT, JOIN and IDENTITY: each becomes a list of normalised strided copies
 * (and, for SLICE_GRAD, a zero fill of what the scatter does not cover), keyed by element size. */
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

static dmlcpu_status plan_jobs(dmlcpu_operator *op, const dmlcpu_operator_desc *desc)
{
    copy_plan *p = &op->u.copy;
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
    case DMLCPU_OPERATOR_SLICE_GRAD: {
        const dmlcpu_slice_grad_operator_desc *d = desc->desc;
        const dmlcpu_tensor_desc *og = d->output_gradient_tensor, *ig = d->input_gradient_tensor;
        tensor_strides(ig, a);
        tensor_strides(og, b);
        /* the scatter covers the whole output when every window is the whole dim, walked with
         * step +-1 by an input gradient of the same size; otherwise zero-fill first */
        bool covers = true;
        for (uint32_t i = 0; i < og->dimension_count; i++)
            covers = covers && d->input_window_sizes[i] == og->sizes[i] &&
                     ig->sizes[i] == og->sizes[i] &&
                     (d->input_window_strides[i] == 1 || d->input_window_strides[i] == -1);
        copy_job *j = p->jobs;
        if (!covers) {
            j->is_fill = true;
            job_dims(&j->dims, og, NULL, b);
            j++;
        }
        job_dims(&j->dims, ig, a, b);
        window_map(og, b, d->input_window_offsets, d->input_window_sizes, d->input_window_strides,
                   &j->dims.dst_off, j->dims.dst);
        p->job_count = (uint32_t)(j - p->jobs) + 1;
        break;
    }
    case DMLCPU_OPERATOR_SPLIT:
    case DMLCPU_OPERATOR_JOIN: {
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
            if (split) {
                j->src = 0;
                j->dst = k;
                job_dims(&j->dims, &parts[k], a, b);
                j->dims.src_off = at * (ptrdiff_t)a[axis];
            } else {
                j->src = k;
                j->dst = 0;
                job_dims(&j->dims, &parts[k], b, a);
                j->dims.dst_off = at * (ptrdiff_t)a[axis];
            }
            at += parts[k].sizes[axis];
        }
        break;
    }
    default:
        break;
    }
    for (uint32_t k = 0; k < p->job_count; k++)
        shape_copy(&p->jobs[k].dims);
    return DMLCPU_STATUS_OK;
}

dmlcpu_status copy_create(dmlcpu_operator *op, const dmlcpu_operator_desc *desc, dmlcpu_isa cap)
{
    copy_plan *p = &op->u.copy;
    const dmlcpu_tensor_desc *ins, *outs;   /* arrays of input and output descriptions */
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
        jobs = 2;
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
    p->fill = NULL;
    op->isa = DMLCPU_ISA_SCALAR;
    for (int t = nt - 1; t >= 0; t--) { /* scalar first, better tables override */
        if (tables[t]->copy[size_index(es)]) {
            p->copy = tables[t]->copy[size_index(es)];
            op->isa = tables[t]->isa;
        }
        if (tables[t]->fill[size_index(es)])
            p->fill = tables[t]->fill[size_index(es)];
    }
    return plan_jobs(op, desc);
}

void copy_destroy(dmlcpu_operator *op) { free(op->u.copy.jobs); }

static void run_job(const copy_plan *p, const copy_job *j, char *dst, const char *src, size_t es)
{
    const copy_dims *d = &j->dims;
    dst += d->dst_off * (ptrdiff_t)es;
    src += d->src_off * (ptrdiff_t)es;
    if (d->count == 0) { /* a single element */
        if (j->is_fill)
            p->fill(dst, 1, 1);
        else
            p->copy(dst, 1, src, 1, 1);
        return;
    }
    int inner = d->count - 1;
    uint32_t c[8] = {0};
    for (;;) {
        if (j->is_fill)
            p->fill(dst, d->dst[inner], d->size[inner]);
        else
            p->copy(dst, d->dst[inner], src, d->src[inner], d->size[inner]);
        int k = inner - 1;
        for (; k >= 0; k--) {
            dst += d->dst[k] * (ptrdiff_t)es;
            src += d->src[k] * (ptrdiff_t)es;
            if (++c[k] < d->size[k])
                break;
            dst -= (ptrdiff_t)d->size[k] * d->dst[k] * (ptrdiff_t)es;
            src -= (ptrdiff_t)d->size[k] * d->src[k] * (ptrdiff_t)es;
            c[k] = 0;
        }
        if (k < 0)
            return;
    }
}

void copy_execute(const dmlcpu_operator *op, const dmlcpu_bindings *b)
{
    const copy_plan *p = &op->u.copy;
    size_t es = op->inputs[0].esize;
    for (uint32_t k = 0; k < p->job_count; k++) {
        const copy_job *j = &p->jobs[k];
        /* a fill reads nothing: its source strides are 0, any valid pointer serves */
        char *dst = b->outputs[j->dst].data;
        run_job(p, j, dst, j->is_fill ? dst : b->inputs[j->src].data, es);
    }
}
