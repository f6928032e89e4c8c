/* Public entry points: create (validate, then plan), binding properties, execute (check the
 * bindings, then run), destroy; status strings. */
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "internal.h"

const char *dmlcpu_status_string(dmlcpu_status status)
{
    switch (status) {
    case DMLCPU_STATUS_OK: return "OK";
    case DMLCPU_STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case DMLCPU_STATUS_UNSUPPORTED: return "UNSUPPORTED";
    case DMLCPU_STATUS_OUT_OF_MEMORY: return "OUT_OF_MEMORY";
    }
    return "unknown status";
}

static const char *operator_name(dmlcpu_operator_type type)
{
    static const char *const names[] = {NULL, "REDUCE", "ARGMIN", "ARGMAX", "SLICE",
                                        "SLICE_GRAD", "SPLIT", "JOIN", "IDENTITY"};
    return (unsigned)type >= 1 && (unsigned)type <= 8 ? names[type] : NULL;
}

static dmlcpu_status validate(const dmlcpu_operator_desc *desc, const char *name)
{
    switch (desc->type) {
    case DMLCPU_OPERATOR_REDUCE:
        return validate_reduce(name, desc->desc, false, DMLCPU_AXIS_DIRECTION_INCREASING);
    case DMLCPU_OPERATOR_ARGMIN:
    case DMLCPU_OPERATOR_ARGMAX: {
        const dmlcpu_argmin_operator_desc *a = desc->desc;
        dmlcpu_reduce_operator_desc r = {
            .function = desc->type == DMLCPU_OPERATOR_ARGMIN ? DMLCPU_REDUCE_FUNCTION_ARGMIN
                                                             : DMLCPU_REDUCE_FUNCTION_ARGMAX,
            .input_tensor = a->input_tensor, .output_tensor = a->output_tensor,
            .axis_count = a->axis_count, .axes = a->axes};
        return validate_reduce(name, &r, true, a->axis_direction);
    }
    case DMLCPU_OPERATOR_SLICE: {
        const dmlcpu_slice_operator_desc *s = desc->desc;
        return validate_slice(name, s->input_tensor, s->output_tensor, "InputTensor", "OutputTensor",
                              s->dimension_count, s->input_window_offsets, s->input_window_sizes,
                              s->input_window_strides, false);
    }
    case DMLCPU_OPERATOR_SLICE_GRAD: {
        const dmlcpu_slice_grad_operator_desc *s = desc->desc;
        return validate_slice(name, s->output_gradient_tensor, s->input_gradient_tensor,
                              "OutputGradientTensor", "InputGradientTensor", s->dimension_count,
                              s->input_window_offsets, s->input_window_sizes,
                              s->input_window_strides, true);
    }
    case DMLCPU_OPERATOR_SPLIT: {
        const dmlcpu_split_operator_desc *s = desc->desc;
        return validate_split_join(name, s->input_tensor, "InputTensor", s->output_count,
                                   s->output_tensors, "OutputTensors", "OutputCount", s->axis);
    }
    case DMLCPU_OPERATOR_JOIN: {
        const dmlcpu_join_operator_desc *j = desc->desc;
        return validate_split_join(name, j->output_tensor, "OutputTensor", j->input_count,
                                   j->input_tensors, "InputTensors", "InputCount", j->axis);
    }
    case DMLCPU_OPERATOR_IDENTITY:
        return validate_identity(name, desc->desc);
    }
    return DMLCPU_STATUS_INVALID_ARGUMENT;
}

dmlcpu_status dmlcpu_create_operator(const dmlcpu_operator_desc *desc,
                                     const dmlcpu_create_options *options, dmlcpu_operator **out)
{
    if (!out)
        return set_error(DMLCPU_STATUS_INVALID_ARGUMENT, "create: out is NULL");
    *out = NULL;
    if (!desc)
        return set_error(DMLCPU_STATUS_INVALID_ARGUMENT, "create: desc is NULL");
    const char *name = operator_name(desc->type);
    if (!name)
        return set_error(DMLCPU_STATUS_INVALID_ARGUMENT,
                         "create: OperatorDesc.Type is %d, not an operator type (1..8)", (int)desc->type);
    if (!desc->desc)
        return set_error(DMLCPU_STATUS_INVALID_ARGUMENT, "%s: OperatorDesc.Desc is NULL", name);

    dmlcpu_status st = validate(desc, name);
    if (st != DMLCPU_STATUS_OK)
        return st;

    dmlcpu_operator *op = calloc(1, sizeof *op);
    if (!op)
        return set_error(DMLCPU_STATUS_OUT_OF_MEMORY, "%s: out of memory", name);
    op->type = desc->type;
    op->name = name;
    parallel_config_init(&op->par, options);
    dmlcpu_isa cap = dispatch_cap();

    switch (desc->type) {
    case DMLCPU_OPERATOR_REDUCE: {
        const dmlcpu_reduce_operator_desc *r = desc->desc;
        st = reduce_create(op, r, r->function, DMLCPU_AXIS_DIRECTION_INCREASING, cap);
        break;
    }
    case DMLCPU_OPERATOR_ARGMIN:
    case DMLCPU_OPERATOR_ARGMAX: {
        const dmlcpu_argmin_operator_desc *a = desc->desc;
        dmlcpu_reduce_operator_desc r = {.input_tensor = a->input_tensor,
                                         .output_tensor = a->output_tensor,
                                         .axis_count = a->axis_count, .axes = a->axes};
        st = reduce_create(op, &r,
                           desc->type == DMLCPU_OPERATOR_ARGMIN ? DMLCPU_REDUCE_FUNCTION_ARGMIN
                                                                : DMLCPU_REDUCE_FUNCTION_ARGMAX,
                           a->axis_direction, cap);
        break;
    }
    default:
        st = copy_create(op, desc, cap);
        break;
    }
    if (st != DMLCPU_STATUS_OK) {
        dmlcpu_destroy_operator(op);
        return st;
    }
    *out = op;
    return DMLCPU_STATUS_OK;
}

void dmlcpu_get_binding_properties(const dmlcpu_operator *op, dmlcpu_binding_properties *out)
{
    if (!op || !out)
        return;
    out->input_count = op->input_count;
    out->output_count = op->output_count;
    out->temporary_size_in_bytes = op->temporary_bytes;
}

void dmlcpu_destroy_operator(dmlcpu_operator *op)
{
    if (!op)
        return;
    if (op->type >= DMLCPU_OPERATOR_SLICE)
        copy_destroy(op);
    free(op->inputs);
    free(op->outputs);
    free(op);
}

dmlcpu_isa dmlcpu_operator_isa(const dmlcpu_operator *op) { return op ? op->isa : DMLCPU_ISA_SCALAR; }

/* ---- execute: the bindings are checked completely before anything runs ---- */

static dmlcpu_status check_buffer(const dmlcpu_operator *op, const char *field, uint32_t i,
                                  const dmlcpu_buffer_binding *b, const binding_rule *rule)
{
    if (!b->data)
        return set_error(DMLCPU_STATUS_INVALID_ARGUMENT, "execute %s: %s[%u].Data is NULL",
                         op->name, field, i);
    if (b->size_in_bytes < rule->bytes)
        return set_error(DMLCPU_STATUS_INVALID_ARGUMENT,
                         "execute %s: %s[%u].SizeInBytes is %llu, less than the tensor's %llu bytes",
                         op->name, field, i, (unsigned long long)b->size_in_bytes,
                         (unsigned long long)rule->bytes);
    if ((uintptr_t)b->data % rule->esize != 0)
        return set_error(DMLCPU_STATUS_INVALID_ARGUMENT,
                         "execute %s: %s[%u].Data is %p, not aligned to the element size %u",
                         op->name, field, i, b->data, rule->esize);
    if (UINTPTR_MAX - (uintptr_t)b->data < b->size_in_bytes)
        return set_error(DMLCPU_STATUS_INVALID_ARGUMENT,
                         "execute %s: %s[%u] (Data %p, SizeInBytes %llu) wraps around the address space",
                         op->name, field, i, b->data, (unsigned long long)b->size_in_bytes);
    return DMLCPU_STATUS_OK;
}

static bool overlaps(const dmlcpu_buffer_binding *a, const dmlcpu_buffer_binding *b)
{
    uintptr_t a0 = (uintptr_t)a->data, b0 = (uintptr_t)b->data;
    if (a->size_in_bytes == 0 || b->size_in_bytes == 0)
        return false;
    return a0 < b0 + b->size_in_bytes && b0 < a0 + a->size_in_bytes;
}

static dmlcpu_status check_bindings(const dmlcpu_operator *op, const dmlcpu_bindings *b)
{
    if (b->input_count != op->input_count)
        return set_error(DMLCPU_STATUS_INVALID_ARGUMENT, "execute %s: InputCount is %u, expected %u",
                         op->name, b->input_count, op->input_count);
    if (b->output_count != op->output_count)
        return set_error(DMLCPU_STATUS_INVALID_ARGUMENT, "execute %s: OutputCount is %u, expected %u",
                         op->name, b->output_count, op->output_count);
    if (!b->inputs)
        return set_error(DMLCPU_STATUS_INVALID_ARGUMENT, "execute %s: Inputs is NULL", op->name);
    if (!b->outputs)
        return set_error(DMLCPU_STATUS_INVALID_ARGUMENT, "execute %s: Outputs is NULL", op->name);
    dmlcpu_status st;
    for (uint32_t i = 0; i < op->input_count; i++)
        if ((st = check_buffer(op, "Inputs", i, &b->inputs[i], &op->inputs[i])) != DMLCPU_STATUS_OK)
            return st;
    for (uint32_t i = 0; i < op->output_count; i++)
        if ((st = check_buffer(op, "Outputs", i, &b->outputs[i], &op->outputs[i])) != DMLCPU_STATUS_OK)
            return st;
    if (b->temporary.size_in_bytes < op->temporary_bytes)
        return set_error(DMLCPU_STATUS_INVALID_ARGUMENT,
                         "execute %s: Temporary.SizeInBytes is %llu, less than the %llu bytes the operator needs",
                         op->name, (unsigned long long)b->temporary.size_in_bytes,
                         (unsigned long long)op->temporary_bytes);
    if (op->temporary_bytes > 0 && !b->temporary.data)
        return set_error(DMLCPU_STATUS_INVALID_ARGUMENT, "execute %s: Temporary.Data is NULL", op->name);
    for (uint32_t o = 0; o < op->output_count; o++) {
        const dmlcpu_buffer_binding *ob = &b->outputs[o];
        for (uint32_t i = 0; i < op->input_count; i++)
            if (overlaps(ob, &b->inputs[i]))
                return set_error(DMLCPU_STATUS_INVALID_ARGUMENT,
                                 "execute %s: Outputs[%u] overlaps Inputs[%u]; an output must not share memory with another bound buffer",
                                 op->name, o, i);
        for (uint32_t k = 0; k < op->output_count; k++)
            if (k != o && overlaps(ob, &b->outputs[k]))
                return set_error(DMLCPU_STATUS_INVALID_ARGUMENT,
                                 "execute %s: Outputs[%u] overlaps Outputs[%u]; an output must not share memory with another bound buffer",
                                 op->name, o, k);
        if (b->temporary.data && overlaps(ob, &b->temporary))
            return set_error(DMLCPU_STATUS_INVALID_ARGUMENT,
                             "execute %s: Outputs[%u] overlaps Temporary; an output must not share memory with another bound buffer",
                             op->name, o);
    }
    return DMLCPU_STATUS_OK;
}

dmlcpu_status dmlcpu_execute(const dmlcpu_operator *op, const dmlcpu_bindings *bindings)
{
    if (!op)
        return set_error(DMLCPU_STATUS_INVALID_ARGUMENT, "execute: op is NULL");
    if (!bindings)
        return set_error(DMLCPU_STATUS_INVALID_ARGUMENT, "execute %s: bindings is NULL", op->name);
    dmlcpu_status st = check_bindings(op, bindings);
    if (st != DMLCPU_STATUS_OK)
        return st;
    if (op->type <= DMLCPU_OPERATOR_ARGMAX)
        reduce_execute(op, bindings);
    else
        copy_execute(op, bindings);
    return DMLCPU_STATUS_OK;
}
