/*
 * Helpers shared by the Criterion suites: a seeded random generator, data generators per data
 * type, guarded buffers, tensor layouts, running an operator, and comparing outputs. The main()
 * of every suite lives in testutil.c (it skips with exit code 77 when the ISA level named by the
 * environment variable DMLCPU_ISA is not available on this machine).
 */
#ifndef DMLCPU_TESTS_TESTUTIL_H
#define DMLCPU_TESTS_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include <dmlcpu.h>

#include "reference.h"

/* ---- random numbers ----------------------------------------------------------------------- */

typedef struct {
    uint64_t state;
    uint64_t seed;
} tu_rng;

/* Seeds from a test name and two numbers; the environment variable DMLCPU_TEST_SEED (an
 * integer), when set, is mixed in so other seeds can be explored. The seed used is printed in
 * every failure message through tu_rng_seed_value. */
void tu_rng_init(tu_rng *r, const char *name, uint64_t a, uint64_t b);
uint64_t tu_rng_seed_value(const tu_rng *r);
uint64_t tu_next(tu_rng *r);
uint32_t tu_below(tu_rng *r, uint32_t n); /* uniform in [0, n), n >= 1 */
double tu_uniform(tu_rng *r);             /* uniform in [0, 1) */
int tu_chance(tu_rng *r, double p);       /* 1 with probability p */
void tu_permutation(tu_rng *r, uint32_t *perm, uint32_t n); /* perm: a random order of 0..n-1 */

/* ---- data --------------------------------------------------------------------------------- */

typedef enum {
    /* Small values: floats in [-2, 2) with few mantissa bits and ints in [-100, 100]
     * ([0, 200] unsigned); many exact ties. */
    TU_DATA_PLAIN,
    /* A mix: small integers (ties), values spread over many binades, +-0, subnormals, the
     * largest and smallest integers; plus, with probability poison_rate per element, NaN (with
     * varied payloads and signs), +-inf and the largest finite floats. */
    TU_DATA_SPECIAL,
    /* Positive floats in [0.25, 4) (LOG_SUM of a sum that stays positive). */
    TU_DATA_POSITIVE,
    /* Floats in [0.9, 1.1) (products of thousands stay finite). */
    TU_DATA_NEAR_ONE,
    /* Random bits, with extra NaNs (quiet and signalling, any payload), +-0, subnormals. */
    TU_DATA_RAW
} tu_data_kind;

const char *tu_data_kind_name(tu_data_kind kind);

/* Writes count elements of type t into buf. poison_rate is used by TU_DATA_SPECIAL. */
void tu_fill(tu_rng *r, dmlcpu_data_type t, void *buf, size_t count, tu_data_kind kind,
             double poison_rate);

/* Stores v rounded once to the float type t at p. */
void tu_store_float(dmlcpu_data_type t, void *p, double v);

const char *tu_type_name(dmlcpu_data_type t);
const char *tu_function_name(dmlcpu_reduce_function fn);

/* ---- guarded buffers ---------------------------------------------------------------------- */

/* A buffer of size bytes mapped so that a PROT_NONE page follows it. With shift 0 the buffer
 * ends exactly at the guard page; a shift of s > 0 moves the start down by s elements of
 * elem_size bytes (the pointer stays aligned to the element size but changes its alignment
 * relative to vectors and cache lines; the last s elements before the guard page lie outside
 * the buffer). Never fails: aborts the test when mapping fails. */
typedef struct {
    void *map;
    size_t map_size;
    void *data;
    size_t size;
} tu_buffer;

void *tu_buffer_alloc(tu_buffer *b, size_t size, size_t elem_size, unsigned shift);
void tu_buffer_free(tu_buffer *b);

/* ---- tensors ------------------------------------------------------------------------------ */

typedef enum {
    TU_LAYOUT_PACKED,          /* strides NULL */
    TU_LAYOUT_PACKED_EXPLICIT, /* strides given, equal to the packed ones */
    TU_LAYOUT_PADDED,          /* row-major with gaps after some dimensions */
    TU_LAYOUT_PERMUTED,        /* a random dimension order (transposed), maybe with gaps */
    TU_LAYOUT_BROADCAST,       /* padded, with stride 0 on some dimensions (inputs only) */
    TU_LAYOUT_COUNT
} tu_layout;

typedef struct {
    dmlcpu_data_type type;
    uint32_t rank;
    uint32_t sizes[8];
    uint32_t strides[8];
    int has_strides;
    uint64_t declared_size; /* total_tensor_size_in_bytes: 0, the addressed size, or more
                               (a multiple of the element size) */
} tu_tensor;

void tu_tensor_init(tu_tensor *t, dmlcpu_data_type type, uint32_t rank, const uint32_t *sizes);
/* Sets the strides for a layout. perm, when not NULL, gives the dimension order from outermost
 * to innermost for TU_LAYOUT_PERMUTED (otherwise a random order is chosen). */
void tu_tensor_layout(tu_tensor *t, tu_rng *r, tu_layout layout, const uint32_t *perm);
/* A random layout; inputs may also get TU_LAYOUT_BROADCAST. Returns the layout chosen. */
tu_layout tu_tensor_random_layout(tu_tensor *t, tu_rng *r, int is_input);
/* Randomly declares total_tensor_size_in_bytes as 0, exactly required, or a bit more. */
void tu_tensor_random_declared_size(tu_tensor *t, tu_rng *r);
/* The description (points into t: t must outlive it and not move). */
dmlcpu_tensor_desc tu_desc(const tu_tensor *t);
/* The addressed size of SPEC 2 (the bytes the tensor touches, not rounded up), computed here
 * independently of the library. */
uint64_t tu_addressed_bytes(const tu_tensor *t);
/* Bytes to bind: the declared size, or the addressed size when 0 is declared (an exact-size
 * buffer, as a CPU caller hands it). */
uint64_t tu_binding_bytes(const tu_tensor *t);
uint64_t tu_element_count(const tu_tensor *t);
/* Appends "FLOAT32[3,4] strides{5,1}" to buf. */
void tu_describe_tensor(char *buf, size_t len, const tu_tensor *t);

/* ---- levels ------------------------------------------------------------------------------- */

/* The ISA levels every case runs at. DMLCPU_TEST_LEVELS=scalar,avx2,portable_sse4,... (the
 * ctest level names; portable_<target> is the portable level capped at that Highway target)
 * runs each case at every listed level this CPU has, against one oracle result: the oracle and
 * the data, not the library, are most of a suite's time. main() prints the levels that run and
 * those this CPU lacks, and skips the suite (77) when none runs. Without DMLCPU_TEST_LEVELS
 * there is one level, the one DMLCPU_ISA (and DMLCPU_PORTABLE_TARGET) selects. A test that
 * calls tu_run while several levels are listed must select one first. */
uint32_t tu_level_count(void);
/* Caps the library at level k (< tu_level_count()) for operators created afterwards; returns
 * its name for failure messages ("" for the single level of a run without the list). */
const char *tu_level_select(uint32_t k);

/* ---- running ------------------------------------------------------------------------------ */

/* The threads argument of tu_run: a max_threads value, or TU_HOST_POOL for a host
 * parallel_for (create options) that runs the tasks on the calling thread in reverse order. */
#define TU_HOST_POOL UINT32_MAX

/* Creates the operator (asserting OK), checks the binding counts, allocates a guarded,
 * garbage-filled temporary buffer of the reported size, executes (asserting OK) and destroys.
 * threads selects the create options (see TU_HOST_POOL). what names the case in failure
 * messages. */
void tu_run(const dmlcpu_operator_desc *desc, uint32_t threads,
            const dmlcpu_buffer_binding *inputs, uint32_t input_count,
            const dmlcpu_buffer_binding *outputs, uint32_t output_count, const char *what);

/* 1 when the environment variable DMLCPU_TEST_REDUCED is set to anything but "" or "0": the
 * suites run under an emulator (qemu-user, ~10x slower) and take the reduced set, which keeps
 * every function, type, shape kind, vector-width and block edge but fewer random repeats and
 * smaller thread sweeps (tests/CMakeLists.txt lists what is left out). */
int tu_reduced(void);

/* A random choice among max_threads 0 (default), 1, 2, 3, 7 and TU_HOST_POOL. */
uint32_t tu_random_threads(tu_rng *r);
/* "threads 3", "host pool", ... (a static string for the values tu_random_threads returns). */
const char *tu_threads_name(uint32_t threads);

/* ---- comparing ---------------------------------------------------------------------------- */

typedef enum {
    TU_CMP_BITS,      /* identical bytes (copies: NaN payloads included) */
    TU_CMP_NAN_EQUAL, /* identical bytes, except that any NaN equals any NaN */
    TU_CMP_LOG        /* LOG_SUM / LOG_SUM_EXP tolerance, see tu_compare */
} tu_cmp_mode;

/* Compares every element t addresses in got and expected. Returns 1 if equal; otherwise 0 and
 * a message in msg naming the first mismatching coordinate with both values. For TU_CMP_LOG,
 * scale[k] (k = row-major index of the coordinate) is the magnitude from ref_reduce. */
int tu_compare(const tu_tensor *t, const void *got, const void *expected, tu_cmp_mode mode,
               const double *scale, char *msg, size_t msg_len);

/* Outputs are written element by element: the bytes of an output buffer that no element of t
 * covers (gaps of padded strides, the tail) must keep their contents. got and expected were
 * filled alike before the run; returns 1 if they agree on every byte outside the elements,
 * otherwise 0 and a message naming the first changed byte. */
int tu_compare_gaps(const tu_tensor *t, const void *got, const void *expected, size_t bytes,
                    char *msg, size_t msg_len);

#endif /* DMLCPU_TESTS_TESTUTIL_H */
