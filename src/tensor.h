/* The bottom of the operator layer: data-type facts, tensor strides and sizes, and the
 * thread-local error message. Every other file of src/ may use it; it uses no other file. */
#ifndef DMLCPU_TENSOR_H
#define DMLCPU_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dmlcpu.h"

#define DMLCPU_MAX_RANK 8
#define DMLCPU_MAX_ELEMENTS UINT32_MAX

#if defined(__GNUC__)
#define DMLCPU_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define DMLCPU_PRINTF(f, a)
#endif

/* Data types. */
bool dtype_valid(dmlcpu_data_type t);
size_t dtype_size(dmlcpu_data_type t);   /* 0 for an invalid type */
const char *dtype_name(dmlcpu_data_type t);
bool dtype_is_float(dmlcpu_data_type t);

/* Sets the calling thread's message (printf-style) and returns status. */
dmlcpu_status set_error(dmlcpu_status status, const char *fmt, ...) DMLCPU_PRINTF(2, 3);

/* The addressed size of SPEC 2: (sum((sizes[i]-1) * strides[i]) + 1) * element size, the bytes
 * the tensor touches (strides NULL = packed, computed in 64 bits). False on 64-bit overflow.
 * The caller has checked the type, the rank and that every size is >= 1. */
bool tensor_addressed_bytes(dmlcpu_data_type type, uint32_t rank, const uint32_t *sizes,
                            const uint32_t *strides, uint64_t *out);

/* The total size of a validated tensor: total_tensor_size_in_bytes, or the addressed size when
 * that is 0. A bound buffer must hold at least this many bytes. */
uint64_t tensor_bytes(const dmlcpu_tensor_desc *t);

/* Fills strides[] with the tensor's strides (packed ones when t->strides is NULL). */
void tensor_strides(const dmlcpu_tensor_desc *t, uint32_t strides[DMLCPU_MAX_RANK]);

#endif
