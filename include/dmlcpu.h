/*
 * dmlcpu — DirectML's reduction and copy operators on the CPU.
 *
 * The whole public API. Every name starts with dmlcpu_ / DMLCPU_. Enum values and struct
 * layouts mirror DirectML (directml.h, feature level 6_4) so that a runtime can cast between
 * them; the semantics of every operator are those of the project's specification (see README).
 *
 * Life cycle of an operator:
 *   dmlcpu_create_operator      validate the descriptor, plan the work (the only step that can
 *                               reject a descriptor)
 *   dmlcpu_get_binding_properties  how many buffers to bind and the temporary size
 *   dmlcpu_execute              check the bound buffers, run (any number of times, from any
 *                               number of threads at once: an operator is immutable)
 *   dmlcpu_destroy_operator     free it
 *
 * Errors: every function that returns a dmlcpu_status leaves, on failure, a message on the
 * calling thread (dmlcpu_last_error_message) naming the operator, the field, the values and the
 * rule that was broken. A rejected call writes nothing into any output.
 */
#ifndef DMLCPU_H
#define DMLCPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define DMLCPU_API
#else
#define DMLCPU_API __attribute__((visibility("default")))
#endif

/* ---------------------------------------------------------------------------------------------
 * Status codes (values pinned).
 *   OK                everything went well
 *   INVALID_ARGUMENT  the request breaks a rule of the specification (descriptor or bindings)
 *   UNSUPPORTED       a legal request this build cannot run (e.g. a type/function pair outside
 *                     the tables)
 *   OUT_OF_MEMORY     an allocation at create failed
 */
typedef enum {
    DMLCPU_STATUS_OK = 0,
    DMLCPU_STATUS_INVALID_ARGUMENT = 1,
    DMLCPU_STATUS_UNSUPPORTED = 2,
    DMLCPU_STATUS_OUT_OF_MEMORY = 3
} dmlcpu_status;

/* Element types; values equal DirectML's DML_TENSOR_DATA_TYPE. UNKNOWN (0) and any value not
 * listed are rejected. FLOAT16 is IEEE binary16. */
typedef enum {
    DMLCPU_DATA_TYPE_UNKNOWN = 0,
    DMLCPU_DATA_TYPE_FLOAT32 = 1,
    DMLCPU_DATA_TYPE_FLOAT16 = 2,
    DMLCPU_DATA_TYPE_UINT32 = 3,
    DMLCPU_DATA_TYPE_UINT16 = 4,
    DMLCPU_DATA_TYPE_UINT8 = 5,
    DMLCPU_DATA_TYPE_INT32 = 6,
    DMLCPU_DATA_TYPE_INT16 = 7,
    DMLCPU_DATA_TYPE_INT8 = 8,
    DMLCPU_DATA_TYPE_FLOAT64 = 9,
    DMLCPU_DATA_TYPE_UINT64 = 10,
    DMLCPU_DATA_TYPE_INT64 = 11
} dmlcpu_data_type;

/* A tensor description.
 *   data_type                  element type
 *   dimension_count            rank, 1..8
 *   sizes                      dimension_count sizes, each >= 1
 *   strides                    NULL = packed row-major (last dimension fastest); otherwise
 *                              dimension_count strides counted in elements. 0 broadcasts
 *                              (inputs only); larger strides mean padding or a transposed layout.
 *                              Element c lives at element offset sum(c[i] * strides[i]).
 *   total_tensor_size_in_bytes size of the buffer that holds the tensor; must be at least the
 *                              addressed size, (sum((sizes[i]-1) * strides[i]) + 1) * element
 *                              size; 0 = exactly the addressed size. A buffer bound at execute
 *                              must hold at least this many bytes, so a CPU caller binds
 *                              exact-size buffers (17 INT8 values: 17 bytes).
 * Output tensors must not address an element twice (no zero strides, no strides that make two
 * coordinates meet). At most 2^32-1 elements per tensor. */
typedef struct {
    dmlcpu_data_type data_type;
    uint32_t dimension_count;
    const uint32_t *sizes;
    const uint32_t *strides;
    uint64_t total_tensor_size_in_bytes;
} dmlcpu_tensor_desc;

/* REDUCE functions; values equal DirectML's DML_REDUCE_FUNCTION. For a group x_0..x_{N-1}:
 *   ARGMAX / ARGMIN   index of the maximum / minimum in the group's logical order (smallest
 *                     index on ties; NaN counts as more extreme than any number)
 *   AVERAGE           sum / N           L1          sum of |x|       L2     sqrt(sum of x*x)
 *   LOG_SUM           log(sum)          LOG_SUM_EXP log(sum of exp(x)), computed stably
 *   MAX / MIN         IEEE 754-2019 maximum / minimum (NaN propagates, -0 < +0)
 *   MULTIPLY          product           SUM         sum              SUM_SQUARE  sum of x*x */
typedef enum {
    DMLCPU_REDUCE_FUNCTION_ARGMAX = 0,
    DMLCPU_REDUCE_FUNCTION_ARGMIN = 1,
    DMLCPU_REDUCE_FUNCTION_AVERAGE = 2,
    DMLCPU_REDUCE_FUNCTION_L1 = 3,
    DMLCPU_REDUCE_FUNCTION_L2 = 4,
    DMLCPU_REDUCE_FUNCTION_LOG_SUM = 5,
    DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP = 6,
    DMLCPU_REDUCE_FUNCTION_MAX = 7,
    DMLCPU_REDUCE_FUNCTION_MIN = 8,
    DMLCPU_REDUCE_FUNCTION_MULTIPLY = 9,
    DMLCPU_REDUCE_FUNCTION_SUM = 10,
    DMLCPU_REDUCE_FUNCTION_SUM_SQUARE = 11
} dmlcpu_reduce_function;

/* Tie breaking of ARGMIN / ARGMAX: INCREASING returns the smallest index among equal extremes
 * (and the first NaN), DECREASING the largest (and the last NaN). */
typedef enum {
    DMLCPU_AXIS_DIRECTION_INCREASING = 0,
    DMLCPU_AXIS_DIRECTION_DECREASING = 1
} dmlcpu_axis_direction;

/* Operator kinds; 0 is invalid. */
typedef enum {
    DMLCPU_OPERATOR_REDUCE = 1,
    DMLCPU_OPERATOR_ARGMIN = 2,
    DMLCPU_OPERATOR_ARGMAX = 3,
    DMLCPU_OPERATOR_SLICE = 4,
    DMLCPU_OPERATOR_SLICE_GRAD = 5,
    DMLCPU_OPERATOR_SPLIT = 6,
    DMLCPU_OPERATOR_JOIN = 7,
    DMLCPU_OPERATOR_IDENTITY = 8
} dmlcpu_operator_type;

/* REDUCE. Output has the input's rank, size 1 on each reduced axis and the input's size
 * elsewhere. axes: axis_count distinct values in [0, rank-1], any order, at least one.
 * Output type equals the input type, except ARGMIN/ARGMAX (INT32, INT64, UINT32 or UINT64). */
typedef struct {
    dmlcpu_reduce_function function;
    const dmlcpu_tensor_desc *input_tensor;
    const dmlcpu_tensor_desc *output_tensor;
    uint32_t axis_count;
    const uint32_t *axes;
} dmlcpu_reduce_operator_desc;

/* ARGMIN / ARGMAX with a tie-breaking direction. Same axis and shape rules as REDUCE; output
 * type INT32, INT64, UINT32 or UINT64, wide enough for N-1 (N = product of reduced sizes). */
typedef struct {
    const dmlcpu_tensor_desc *input_tensor;
    const dmlcpu_tensor_desc *output_tensor;
    uint32_t axis_count;
    const uint32_t *axes;
    dmlcpu_axis_direction axis_direction;
} dmlcpu_argmin_operator_desc;

/* ARGMAX: the same fields as ARGMIN. */
typedef dmlcpu_argmin_operator_desc dmlcpu_argmax_operator_desc;

/* SLICE (DirectML's SLICE1). Per dimension d (dimension_count = rank):
 *   window: input_window_offsets[d] + input_window_sizes[d] <= input size, size >= 1;
 *   input_window_strides[d] != 0; a negative stride walks the window backwards;
 *   1 <= output size <= 1 + (window size - 1) / |stride|;
 *   out[c] = in[start + stride * c], start = offset + (stride < 0 ? size - 1 : 0). */
typedef struct {
    const dmlcpu_tensor_desc *input_tensor;
    const dmlcpu_tensor_desc *output_tensor;
    uint32_t dimension_count;
    const uint32_t *input_window_offsets;
    const uint32_t *input_window_sizes;
    const int32_t *input_window_strides;
} dmlcpu_slice_operator_desc;

/* SLICE_GRAD: the inverse scatter of SLICE. input_gradient_tensor has the shape of the slice's
 * output, output_gradient_tensor the shape of the slice's input; the window rules are SLICE's.
 * The output gradient is zero except outgrad[start + stride * c] = ingrad[c]. */
typedef struct {
    const dmlcpu_tensor_desc *input_gradient_tensor;
    const dmlcpu_tensor_desc *output_gradient_tensor;
    uint32_t dimension_count;
    const uint32_t *input_window_offsets;
    const uint32_t *input_window_sizes;
    const int32_t *input_window_strides;
} dmlcpu_slice_grad_operator_desc;

/* SPLIT: the input is cut along axis into output_count parts (an array of tensor descriptions)
 * whose sizes on the axis add up to the input's; all other sizes, the rank and the type match. */
typedef struct {
    const dmlcpu_tensor_desc *input_tensor;
    uint32_t output_count;
    const dmlcpu_tensor_desc *output_tensors;
    uint32_t axis;
} dmlcpu_split_operator_desc;

/* JOIN: concatenation of input_count inputs (an array of tensor descriptions) along axis. */
typedef struct {
    uint32_t input_count;
    const dmlcpu_tensor_desc *input_tensors;
    const dmlcpu_tensor_desc *output_tensor;
    uint32_t axis;
} dmlcpu_join_operator_desc;

/* IDENTITY: a strided copy between tensors of equal type and sizes (transpose, materialising a
 * broadcast, packing a padded tensor). Copies move bits exactly (NaN payloads, -0, subnormals). */
typedef struct {
    const dmlcpu_tensor_desc *input_tensor;
    const dmlcpu_tensor_desc *output_tensor;
} dmlcpu_identity_operator_desc;

/* An operator description: type and a pointer to the matching dmlcpu_*_operator_desc. */
typedef struct {
    dmlcpu_operator_type type;
    const void *desc;
} dmlcpu_operator_desc;

/* A host thread pool. parallel_for must call task(task_context, i) once for every i in
 * [0, task_count), on any threads, in any order, and return when all calls have returned.
 * A task (and an execute on the caller's thread) uses up to about 96 KiB of its thread's stack:
 * a transpose stages its tiles there (72 KiB for a 256 x 256 UINT8 tile). */
typedef void (*dmlcpu_task_fn)(void *task_context, size_t task_index);
typedef void (*dmlcpu_parallel_for_fn)(void *pool_context, dmlcpu_task_fn task,
                                       void *task_context, size_t task_count);

/* Options of dmlcpu_create_operator; all fields optional, zero-initialised = defaults.
 *   max_threads           0 = the OpenMP default; 1 = run on the caller's thread only
 *   parallel_for          the host's pool, used instead of OpenMP when not NULL
 *   parallel_for_context  passed to parallel_for as pool_context */
typedef struct {
    uint32_t max_threads;
    dmlcpu_parallel_for_fn parallel_for;
    void *parallel_for_context;
} dmlcpu_create_options;

/* What an operator needs bound at execute: input_count input buffers, output_count output
 * buffers (descriptor order), and a temporary buffer of temporary_size_in_bytes (may be 0). */
typedef struct {
    uint32_t input_count;
    uint32_t output_count;
    uint64_t temporary_size_in_bytes;
} dmlcpu_binding_properties;

/* One bound buffer: its address and its size in bytes. */
typedef struct {
    void *data;
    uint64_t size_in_bytes;
} dmlcpu_buffer_binding;

/* The buffers of one execute. Every input and output buffer must be non-NULL, aligned to its
 * element size and at least as large as its tensor's total size; the temporary buffer must be
 * at least temporary_size_in_bytes (data may be NULL when that is 0); no output may overlap any
 * other bound buffer. */
typedef struct {
    uint32_t input_count;
    const dmlcpu_buffer_binding *inputs;
    uint32_t output_count;
    const dmlcpu_buffer_binding *outputs;
    dmlcpu_buffer_binding temporary;
} dmlcpu_bindings;

/* An operator: opaque, immutable after create. */
typedef struct dmlcpu_operator dmlcpu_operator;

/* Validates desc and plans the operator.
 *   desc     the operator description (not retained: it may be freed after the call)
 *   options  NULL for defaults
 *   out      receives the operator; set to NULL on failure
 * Returns OK, INVALID_ARGUMENT (a rule is broken; the message names it), UNSUPPORTED (legal but
 * not implemented, e.g. a type outside the function's table) or OUT_OF_MEMORY. */
DMLCPU_API dmlcpu_status dmlcpu_create_operator(const dmlcpu_operator_desc *desc,
                                                const dmlcpu_create_options *options,
                                                dmlcpu_operator **out);

/* Fills *out with the buffer counts and the temporary size of op. op and out must not be NULL
 * (if either is, nothing happens). */
DMLCPU_API void dmlcpu_get_binding_properties(const dmlcpu_operator *op,
                                              dmlcpu_binding_properties *out);

/* Runs op on the bound buffers. Returns OK, or INVALID_ARGUMENT when a binding breaks a rule
 * (count, NULL, size, alignment, temporary size, overlap); then nothing was written. */
DMLCPU_API dmlcpu_status dmlcpu_execute(const dmlcpu_operator *op, const dmlcpu_bindings *bindings);

/* Frees op; NULL is fine. */
DMLCPU_API void dmlcpu_destroy_operator(dmlcpu_operator *op);

/* A static, human-readable name of a status ("OK", "INVALID_ARGUMENT", ...; "unknown status"
 * for other values). */
DMLCPU_API const char *dmlcpu_status_string(dmlcpu_status status);

/* The message of the calling thread's last failed call; "" if none failed yet. Valid until the
 * thread's next failing call into the library. */
DMLCPU_API const char *dmlcpu_last_error_message(void);

/* The DirectML-compatible allocation size, DirectML's DMLCalcBufferTensorSize: the addressed
 * size (sum((sizes[i]-1) * strides[i]) + 1) * element size, rounded up to a multiple of 4;
 * strides NULL = packed. A buffer of this size is always accepted, but execute needs only the
 * addressed size (or the declared total_tensor_size_in_bytes). Returns 0 when the type is invalid,
 * dimension_count is not 1..8, sizes is NULL, a size is 0, or the result overflows 64 bits. */
DMLCPU_API uint64_t dmlcpu_calc_buffer_tensor_size(dmlcpu_data_type type, uint32_t dimension_count,
                                                   const uint32_t *sizes, const uint32_t *strides);

/* Instruction-set levels. x86: SCALAR < PORTABLE < AVX2 < AVX512; arm: SCALAR < PORTABLE < NEON.
 * The environment variable DMLCPU_ISA=scalar|portable|avx2|avx512|neon caps the level. */
typedef enum {
    DMLCPU_ISA_SCALAR = 0,
    DMLCPU_ISA_PORTABLE = 1,
    DMLCPU_ISA_AVX2 = 2,
    DMLCPU_ISA_AVX512 = 3,
    DMLCPU_ISA_NEON = 4
} dmlcpu_isa;

/* The best level this CPU (and OS) supports. */
DMLCPU_API dmlcpu_isa dmlcpu_detected_isa(void);

/* Caps the level of operators created afterwards (clamped to what the CPU has; the cap of
 * DMLCPU_ISA still applies). Returns INVALID_ARGUMENT for a value that is not a dmlcpu_isa or
 * belongs to the other architecture (NEON on x86, AVX2/AVX512 on arm). */
DMLCPU_API dmlcpu_status dmlcpu_set_max_isa(dmlcpu_isa isa);

/* The level whose kernels op runs (DMLCPU_ISA_SCALAR for NULL). */
DMLCPU_API dmlcpu_isa dmlcpu_operator_isa(const dmlcpu_operator *op);

/* "scalar", "portable", "avx2", "avx512", "neon"; "unknown" for other values. */
DMLCPU_API const char *dmlcpu_isa_name(dmlcpu_isa isa);

/* The Highway target the portable level runs under the current cap: "sse4", "avx2", "avx3"
 * (x86), "neon", "sve", "sve2" (aarch64), or "none" when the cap is scalar or no target
 * of the build runs on this CPU. Below the avx512 level the avx3 target is excluded. The
 * environment variable DMLCPU_PORTABLE_TARGET=<name> (read once) names the best target allowed. */
DMLCPU_API const char *dmlcpu_portable_target(void);

/* Names the best Highway target the portable level may use for operators created afterwards
 * (as DMLCPU_PORTABLE_TARGET does; when both name one, the lower applies): a CPU that lacks it
 * runs the next lower one. NULL or "" lifts the cap set here. Returns INVALID_ARGUMENT (nothing
 * changed) for a name that is not a target this build compiles for this CPU architecture. */
DMLCPU_API dmlcpu_status dmlcpu_set_portable_target(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* DMLCPU_H */
