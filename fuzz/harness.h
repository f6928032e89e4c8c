/*
 * The shared half of the libFuzzer targets (fuzz_reduce.c, fuzz_copy.c): a reader that turns
 * the fuzz input into descriptor fields, tensor descriptions in every layout (valid and not),
 * create options, and the run that checks SPEC 5's promises on the created operator.
 *
 * Every array handed to the library (sizes, strides, axes, windows, tensor arrays) is its own
 * heap block of exactly the announced length, so AddressSanitizer reports any read beyond it.
 */
#ifndef DMLCPU_FUZZ_HARNESS_H
#define DMLCPU_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include <dmlcpu.h>

/* ---- reading the input ------------------------------------------------------------------- */

/* The input as a stream; past its end every read returns 0 (the most ordinary choice). */
typedef struct {
    const uint8_t *p;
    size_t n;
} fz_reader;

uint8_t fz_u8(fz_reader *r);
uint32_t fz_u32(fz_reader *r);
uint64_t fz_u64(fz_reader *r);
/* A size: mostly 1..20, sometimes a block or vector edge, 0, 2^16+-1, 2^31, 2^32-1 or raw. */
uint32_t fz_size(fz_reader *r);
/* A count in [0, n) for n >= 1. */
uint32_t fz_below(fz_reader *r, uint32_t n);

/* ---- owned allocations ------------------------------------------------------------------- */

/* Every block made for one input, freed together by fz_arena_free. */
typedef struct {
    void *blocks[512];
    unsigned count;
} fz_arena;

/* count * size bytes from malloc (zeroed), recorded in the arena; NULL when count is 0. */
void *fz_alloc(fz_arena *a, size_t count, size_t size);
void fz_arena_free(fz_arena *a);

/* ---- tensors ----------------------------------------------------------------------------- */

/* Bytes per element of a valid type; 0 otherwise. */
unsigned fz_esize(dmlcpu_data_type t);
/* A data type: mostly one of the 11, sometimes 0, 12 or a raw value. */
dmlcpu_data_type fz_type(fz_reader *r);
/* A rank: mostly 1..8, sometimes 0, 9 or a raw value. */
uint32_t fz_rank(fz_reader *r);

/* Fills *t for the given type and sizes (copied into a block of rank entries): strides NULL,
 * packed, padded, permuted, broadcast (zeros: is_input), overlapping or raw, and a declared
 * size of 0, exact, larger, one byte short or raw, all chosen by the input. */
void fz_tensor(fz_reader *r, fz_arena *a, dmlcpu_tensor_desc *t, dmlcpu_data_type type,
               uint32_t rank, const uint32_t *sizes, int is_input);
/* A tensor with type, rank and sizes from the input too. */
void fz_any_tensor(fz_reader *r, fz_arena *a, dmlcpu_tensor_desc *t, int is_input);

/* The addressed size of SPEC 2, computed here independently of the library. Returns 0 when the
 * description is not valid (type, rank, NULL sizes, a zero size, more than 2^32-1 elements) or
 * the size overflows 64 bits. elements receives the element count (when not NULL). */
uint64_t fz_addressed_bytes(const dmlcpu_tensor_desc *t, uint64_t *elements);

/* ---- create and run ---------------------------------------------------------------------- */

/* Create options from the input: max_threads 0, 1, 2, 3, 7, 64 or raw; sometimes a host pool
 * that runs the tasks on the calling thread in reverse order; sometimes NULL options. Also caps
 * the ISA level (dmlcpu_set_max_isa) at scalar, portable or the detected level. */
const dmlcpu_create_options *fz_options(fz_reader *r, dmlcpu_create_options *storage);

/* Creates the operator and checks what SPEC 5 promises of a create: a rejected create returns
 * no operator and leaves a message. When it succeeds: the binding counts equal input_count and
 * output_count; every tensor is a valid description; then, unless a buffer would be larger than
 * the fuzzer can afford, executes on buffers of exactly the tensors' sizes (each its own heap
 * block), first with one binding broken as the input chooses (count, NULL, one element short,
 * misaligned, overlap, temporary too small) expecting INVALID_ARGUMENT and no byte of any buffer
 * changed, then for real expecting OK with no input byte changed, and compares the outputs with
 * those of the same descriptor created at the scalar level for the caller's thread only (same
 * bits; any NaN equals any NaN for reductions). Aborts on any breach. */
void fz_create_and_run(fz_reader *r, const dmlcpu_operator_desc *desc,
                       const dmlcpu_create_options *options,
                       const dmlcpu_tensor_desc *const *inputs, uint32_t input_count,
                       const dmlcpu_tensor_desc *const *outputs, uint32_t output_count);

#endif /* DMLCPU_FUZZ_HARNESS_H */
