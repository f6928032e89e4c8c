/* The only place that knows OpenMP or the host's parallel-for. */
#ifndef DMLCPU_PARALLEL_H
#define DMLCPU_PARALLEL_H

#include <stddef.h>

#include "dmlcpu.h"

typedef struct {
    unsigned max_threads;               /* 0 = the OpenMP default */
    dmlcpu_parallel_for_fn parallel_for;
    void *parallel_for_context;
} parallel_config;

/* Reads the create options (NULL = defaults). */
void parallel_config_init(parallel_config *cfg, const dmlcpu_create_options *options);

/* How many threads an execute may use (1 = the caller's only). */
unsigned parallel_threads(const parallel_config *cfg);

/* Runs task(ctx, i) for every i in [0, count): on the caller's thread when count is 1 or the
 * configuration allows one thread, otherwise over the host's pool or OpenMP. */
void parallel_run(const parallel_config *cfg, size_t count, dmlcpu_task_fn task, void *ctx);

#endif
