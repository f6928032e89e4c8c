/* Data-type table, tensor strides and sizes, the thread-local error message (see tensor.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tensor.h"

static _Thread_local char error_message[1024];

dmlcpu_status set_error(dmlcpu_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error_message, sizeof error_message, fmt, ap);
    va_end(ap);
    return status;
}

const char *dmlcpu_last_error_message(void) { return error_message; }

/* Data types: size, name, family, indexed by the enum value. */
static const struct { const char *name; uint8_t size; bool is_float; } dtypes[12] = {
    [DMLCPU_DATA_TYPE_FLOAT32] = {"FLOAT32", 4, true}, [DMLCPU_DATA_TYPE_FLOAT16] = {"FLOAT16", 2, true},
    [DMLCPU_DATA_TYPE_UINT32] = {"UINT32", 4, false},  [DMLCPU_DATA_TYPE_UINT16] = {"UINT16", 2, false},
    [DMLCPU_DATA_TYPE_UINT8] = {"UINT8", 1, false},    [DMLCPU_DATA_TYPE_INT32] = {"INT32", 4, false},
    [DMLCPU_DATA_TYPE_INT16] = {"INT16", 2, false},    [DMLCPU_DATA_TYPE_INT8] = {"INT8", 1, false},
    [DMLCPU_DATA_TYPE_FLOAT64] = {"FLOAT64", 8, true}, [DMLCPU_DATA_TYPE_UINT64] = {"UINT64", 8, false},
    [DMLCPU_DATA_TYPE_INT64] = {"INT64", 8, false},
};

bool dtype_valid(dmlcpu_data_type t) { return (unsigned)t >= 1 && (unsigned)t <= 11; }
size_t dtype_size(dmlcpu_data_type t) { return dtype_valid(t) ? dtypes[t].size : 0; }
const char *dtype_name(dmlcpu_data_type t) { return dtype_valid(t) ? dtypes[t].name : "invalid"; }
bool dtype_is_float(dmlcpu_data_type t) { return dtype_valid(t) && dtypes[t].is_float; }

bool tensor_addressed_bytes(dmlcpu_data_type type, uint32_t rank, const uint32_t *sizes,
                            const uint32_t *strides, uint64_t *out)
{
    uint64_t last = 0; /* offset of the last element */
    uint64_t packed = 1;
    for (uint32_t i = rank; i-- > 0;) {
        uint64_t stride = strides ? strides[i] : packed;
        uint64_t term;
        if (__builtin_mul_overflow((uint64_t)(sizes[i] - 1), stride, &term) ||
            __builtin_add_overflow(last, term, &last))
            return false;
        if (!strides && __builtin_mul_overflow(packed, (uint64_t)sizes[i], &packed))
            return false;
    }
    return !__builtin_add_overflow(last, 1, &last) &&
           !__builtin_mul_overflow(last, (uint64_t)dtype_size(type), out);
}

uint64_t dmlcpu_calc_buffer_tensor_size(dmlcpu_data_type type, uint32_t dimension_count,
                                        const uint32_t *sizes, const uint32_t *strides)
{
    if (!dtype_valid(type) || dimension_count < 1 || dimension_count > DMLCPU_MAX_RANK || !sizes)
        return 0;
    for (uint32_t i = 0; i < dimension_count; i++)
        if (sizes[i] == 0)
            return 0;
    uint64_t bytes;
    if (!tensor_addressed_bytes(type, dimension_count, sizes, strides, &bytes) ||
        __builtin_add_overflow(bytes, 3, &bytes))
        return 0;
    return bytes & ~(uint64_t)3; /* DirectML rounds up to a multiple of 4 */
}

uint64_t tensor_bytes(const dmlcpu_tensor_desc *t)
{
    if (t->total_tensor_size_in_bytes)
        return t->total_tensor_size_in_bytes;
    uint64_t bytes = 0;
    tensor_addressed_bytes(t->data_type, t->dimension_count, t->sizes, t->strides, &bytes);
    return bytes;
}

void tensor_strides(const dmlcpu_tensor_desc *t, uint32_t strides[DMLCPU_MAX_RANK])
{
    if (t->strides) {
        memcpy(strides, t->strides, t->dimension_count * sizeof strides[0]);
        return;
    }
    uint64_t s = 1;
    for (uint32_t i = t->dimension_count; i-- > 0;) {
        strides[i] = (uint32_t)s; /* fits: a valid tensor has at most 2^32-1 elements */
        s *= t->sizes[i];
    }
}
