/*
 * dmlcpu-bench: shared declarations of the benchmark driver (main.c), the case matrix
 * (cases.c, prepare.c, data.c), the ceilings (ceiling.c) and the timer (timing.c).
 */
#ifndef DMLCPU_BENCH_H
#define DMLCPU_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "dmlcpu.h"

#define BENCH_MAX_RANK 4
#define BENCH_PARTS 4

/* Which ceiling a case is measured against. */
typedef enum {
    CEIL_READ = 0, /* reductions: bytes of input read vs. the streaming-read ceiling */
    CEIL_COPY = 1, /* copies: bytes copied vs. the memcpy ceiling */
    CEIL_NONE = 2  /* tiny operators: nanoseconds per execute, no ceiling */
} ceiling_kind;

/* Copy cases (the reduction cases use DMLCPU_OPERATOR_REDUCE). */
typedef enum {
    COPY_NONE = 0,
    COPY_JOIN,          /* 4 parts [R, C/4] joined on axis 1 into [R, C] */
    COPY_SPLIT,         /* [R, C] split on axis 1 into 4 parts [R, C/4] */
    COPY_SLICE_ROWS,    /* rows R..2R-1 of [2R, C] */
    COPY_SLICE_STEP2,   /* every second element of the inner axis of [R, 2C] */
    COPY_SLICE_REVERSE, /* [R, C] with the inner axis reversed */
    COPY_SLICE_GRAD,    /* [R, C/2] scattered into every second element of [R, C] */
    COPY_TRANSPOSE,     /* IDENTITY from [R, C] into its transpose (packed [C, R]) */
    COPY_TRANSPOSE_ODD  /* the same from [R - 1, C + 1]: rows of odd length, at every alignment */
} copy_kind;

/* One case of the matrix. Shapes are row-major element counts. */
typedef struct {
    const char *op;      /* "sum", "argmax", "join", "slice", ... (what --op filters) */
    const char *family;  /* "reduce", "copy" or "tiny" (also accepted by --op) */
    const char *pattern; /* "inner", "outer", "middle", "all", "narrow", "rows", "3x3", ... */
    const char *size;    /* "512K", "16M", "64M" or "tiny" */
    dmlcpu_data_type dtype;
    ceiling_kind ceiling;
    int function;        /* dmlcpu_reduce_function for reductions, -1 for copies */
    copy_kind copy;
    uint32_t rank;
    uint32_t shape[BENCH_MAX_RANK];     /* the source tensor (copies: the larger side) */
    uint32_t out_rank;
    uint32_t out_shape[BENCH_MAX_RANK]; /* the destination tensor (SPLIT: the whole) */
    uint32_t axis_count;
    uint32_t axes[BENCH_MAX_RANK];
    uint64_t bytes;      /* bytes read (reductions) or copied (copies); 0 for tiny */
    uint64_t size_bytes; /* its size (512 KiB, 16 or 64 MiB), whose ceilings divide it */
    uint64_t elements;   /* elements read or copied */
    uint64_t pool_bytes; /* input bytes the case needs from its data pool */
} bench_case;

/* The result of timing one function. */
typedef struct {
    double median, min, p25, p75; /* seconds per call */
    int sample_count;
    int calls_per_sample;
    double *samples; /* sample_count values, seconds per call; owned by the caller */
} timing_result;

typedef struct {
    int repeat;        /* at least this many samples */
    double min_time;   /* and at least this much time in samples */
    double max_time;   /* slow calls: stop after this long once 3 samples exist */
    double sample_time;/* a sample repeats the call until it lasts about this long */
} timing_options;

/* A timed call: returns 0 on success, nonzero to abort the measurement. */
typedef int (*timed_fn)(void *ctx);

double bench_now(void);
/* Warms up, then samples fn. Returns 0, or the first nonzero value fn returned. */
int bench_time(timed_fn fn, void *ctx, const timing_options *opt, timing_result *out);
/* Times fn on k contexts side by side: each warms up, then their samples alternate, one of each
 * per round (the order reversed every other round), until every one has the repeat count and
 * the minimum time. out holds k results. Returns 0, or the first nonzero value fn returned
 * (then no result is kept). */
#define BENCH_TIME_SET_MAX 32
int bench_time_set(timed_fn fn, void *const *ctx, int k, const timing_options *opt,
                   timing_result *out);
/* Two results of one bench_time_set (sample i of each in the same round): the median over rounds
 * of a's sample / b's sample, and the relative sigma of that median from the spread of the
 * rounds' log ratios (IQR / 1.349 x 1.25 / sqrt(n), as for a median). A drift of the machine
 * moves both samples of a round, so it leaves these ratios alone where it widens each result's
 * own spread. Leaves ratio and sigma as they are for results not timed side by side. */
void bench_paired_ratio(const timing_result *a, const timing_result *b, double *ratio,
                        double *sigma);

/* ---- load.c ---- */
typedef struct {
    double wall, busy, own; /* seconds: now, CPU time of the whole machine, of this process */
} load_mark;
void load_mark_now(load_mark *m);
/* CPUs kept busy by other processes (or the hypervisor) between a and b on average; -1 if
 * unknown. */
double load_other(const load_mark *a, const load_mark *b);

/* ---- cases.c ---- */
size_t dtype_size(dmlcpu_data_type t);
const char *dtype_name(dmlcpu_data_type t);
dmlcpu_data_type dtype_from_name(const char *name);
extern const dmlcpu_data_type bench_dtypes[11];

/* Appends the default matrix to *cases (realloc'd); returns the new count. */
size_t cases_build(bench_case **cases, size_t count);
/* Every REDUCE function for every type it allows, every reduction pattern and size (--full). */
size_t cases_build_full(bench_case **cases, size_t count);

/* A prepared case: the operator and every buffer, ready to execute. */
typedef struct {
    dmlcpu_operator *op;
    dmlcpu_buffer_binding inputs[BENCH_PARTS];
    dmlcpu_buffer_binding outputs[BENCH_PARTS];
    dmlcpu_bindings bindings;
    void *owned[BENCH_PARTS + 1]; /* output and temporary buffers to free */
    uint64_t owned_size[BENCH_PARTS + 1];
} prepared_case;

/* Creates the operator for c with max_threads and binds the input pool (which holds at least
 * c->pool_bytes of initialised data). p starts zeroed; preparing the same case again (another
 * thread count) after case_release_operator keeps its output and temporary buffers. Returns the
 * status of create (or OUT_OF_MEMORY). */
dmlcpu_status case_prepare(const bench_case *c, uint32_t max_threads, void *pool,
                           prepared_case *p);
/* The same with a host pool (create options parallel_for and parallel_for_context). */
dmlcpu_status case_prepare_pool(const bench_case *c, uint32_t max_threads,
                                dmlcpu_parallel_for_fn parallel_for, void *parallel_for_context,
                                void *pool, prepared_case *p);
void case_release_operator(prepared_case *p); /* the operator only */
void case_release(prepared_case *p);          /* the operator and the buffers */

/* ---- data.c ---- */
/* Fills buf with deterministic pseudo-random values of type t (floats: +-[0.5, 2), so sums,
 * products and exponentials stay in range; integers: every bit random). */
void fill_data(dmlcpu_data_type t, void *buf, size_t bytes, uint64_t seed);

/* Allocates with 4 KiB alignment; aborts on failure. */
void *bench_alloc(size_t bytes);

/* ---- ceiling.c ---- */
/* The name of the instruction set the read kernel uses on this machine. */
const char *ceiling_isa(void);
/* GB/s of the best sample of a streaming read (kind CEIL_READ) or a memcpy into a touched
 * buffer (CEIL_COPY) of bytes, with threads threads. */
double ceiling_measure(ceiling_kind kind, size_t bytes, int threads, const timing_options *opt,
                       timing_result *out);
int bench_max_threads(void);

/* Read kernels: the sum of the buffer read as 64-bit words (bytes is a multiple of 64). */
uint64_t read_sum_c(const void *p, size_t bytes);
#if defined(__x86_64__) || defined(_M_X64)
uint64_t read_sum_avx2(const void *p, size_t bytes);
uint64_t read_sum_avx512(const void *p, size_t bytes);
#endif

/* isa_compare.c: one measured case at one level of --compare-isa (cap indexes the list). */
typedef struct {
    const bench_case *c;
    int threads, cap, ok;
    const char *level;  /* the level whose kernels ran ("scalar" where a tier lacks one) */
    double median;      /* seconds */
    double rel_spread;  /* relative spread of the median, from the samples' interquartile range */
} isa_sample;
void isa_compare_print(const char *const *caps, int n_caps, const isa_sample *v, int n);

/* simulate.c: --simulate-threads over the selected cases, for each of the worker counts, each
 * case executed repeat + 1 times per count. Prints a table; returns the number of failed cases. */
int simulate_threads(const bench_case *cases, size_t n, const int *workers, int worker_count,
                     int repeat);

#endif /* DMLCPU_BENCH_H */
