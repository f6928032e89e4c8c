/* The options and results of one dmlcpu-bench run, shared by main.c and json.c. */
#ifndef DMLCPU_BENCH_REPORT_H
#define DMLCPU_BENCH_REPORT_H

#include "bench.h"

typedef struct {
    const char *ops, *dtypes, *patterns, *sizes;
    int threads[8], thread_count;
    const char *isa;
    const char *compare;           /* --compare-isa LIST */
    dmlcpu_isa caps[4];            /* its levels, in order */
    const char *cap_names[4];
    int cap_count;                 /* 0 without --compare-isa */
    int quick, list, full, repeat_set, min_time_set;
    timing_options timing;
    const char *json;
    int simulate[8], simulate_count; /* --simulate-threads LIST */
} options;

typedef struct case_result {
    const bench_case *c;
    int threads;
    dmlcpu_status status;
    const char *isa;
    int cap; /* index into options.caps with --compare-isa, else 0 */
    char *message;
    timing_result t;
    double gbps, eps, fraction, ceiling_gbps;
    double other_load; /* CPUs used by other processes while the case ran; -1 = unknown */
    /* Results with more than 1 thread whose case also ran with 1 thread: */
    const struct case_result *one; /* the 1-thread result, or NULL */
    double speedup;      /* median at 1 thread / median here; 0 when there is no pair */
    double scale_noise;  /* relative slowdown this pair must exceed to count as slower */
} case_result;

typedef struct {
    ceiling_kind kind;
    uint64_t bytes;
    int threads;
    timing_result t;
    double gbps;
    double other_load;
} ceiling_result;

/* Writes the run (machine, options, ceilings, every case with its samples) to path as JSON;
 * other = CPUs other processes used during the run. Reports a failure to open on stderr. */
void write_json(const char *path, const options *o, const char *cpu, const char *date,
                double other, const ceiling_result *ceil, int n_ceil, const case_result *res,
                int n_res);

#endif /* DMLCPU_BENCH_REPORT_H */
