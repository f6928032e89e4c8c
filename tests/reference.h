/*
 * The oracle: an executable form of the specification (SPEC sections 3 and 4), written from the
 * specification alone. It shares no code with the library; it only uses the public header for
 * the descriptor structs and enums. Everything is plain nested loops over logical coordinates
 * and raw strides, chosen to be obviously right rather than fast.
 */
#ifndef DMLCPU_TESTS_REFERENCE_H
#define DMLCPU_TESTS_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include <dmlcpu.h>

/* Bytes per element of a data type; 0 for a value that is not a data type. */
size_t ref_type_size(dmlcpu_data_type type);

/* Family of a data type. */
int ref_type_is_float(dmlcpu_data_type type);
int ref_type_is_signed(dmlcpu_data_type type); /* signed integer types only */

/* IEEE binary16 conversions. to_f16 rounds to nearest, ties to even, once (a float converts to
 * double exactly, so ref_f32_to_f16(x) == ref_f64_to_f16(x)). NaN stays NaN. */
float ref_f16_to_f32(uint16_t h);
uint16_t ref_f32_to_f16(float f);
uint16_t ref_f64_to_f16(double d);

/* Whether SPEC 3.1 allows REDUCE function fn on input type in with output type out. */
int ref_reduce_supported(dmlcpu_reduce_function fn, dmlcpu_data_type in, dmlcpu_data_type out);

/* Element offset of coordinate c in tensor t: sum c[i] * stride[i] (packed when strides NULL). */
uint64_t ref_offset(const dmlcpu_tensor_desc *t, const uint32_t *c);

/* Row-major increment of coordinate c (last dimension fastest) within sizes; returns 0 after
 * the last coordinate (c is then all zeros again). */
int ref_next_coord(uint32_t *c, const uint32_t *sizes, uint32_t rank);

/* REDUCE into out (laid out by d->output_tensor; only the addressed elements are written).
 * If scale is not NULL it receives, per output element in row-major order of the output shape,
 * the magnitude the LOG_SUM / LOG_SUM_EXP result is accurate relative to: |log(s)| for
 * LOG_SUM; |m| + |log(s)| + 1 for LOG_SUM_EXP, where s, a sum of rounded exp values, carries a
 * relative error that log turns into an absolute one (0 for other functions and specials).
 * Returns OK, or UNSUPPORTED when the type pairing is outside the SPEC tables. */
dmlcpu_status ref_reduce(const dmlcpu_reduce_operator_desc *d, const void *in, void *out,
                         double *scale);

/* ARGMIN (is_max = 0) / ARGMAX (is_max = 1) with a direction. */
dmlcpu_status ref_arg(const dmlcpu_argmin_operator_desc *d, int is_max, const void *in, void *out);

/* Any operator: inputs and outputs in descriptor order, each laid out by its tensor desc. */
dmlcpu_status ref_execute(const dmlcpu_operator_desc *desc, const void *const *inputs,
                          void *const *outputs);

#endif /* DMLCPU_TESTS_REFERENCE_H */
