/* The only place that knows OpenMP or the host's parallel-for. */
#ifndef DMLCPU_PARALLEL_H
#define DMLCPU_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#include "dmlcpu.h"

/* Below DMLCPU_PAR_MIN_BYTES of input an execute runs on the caller's thread; tiles get at
 * least DMLCPU_TILE_MIN_BYTES each. Measured on a 2-core machine (README, Threads): with libomp
 * a 2-thread SUM is faster from 1 MiB when the pool is hot, but after 300 ms idle it is slower
 * at 1 MiB (77 us vs 52 us) and faster from 2 MiB. */
#define DMLCPU_PAR_MIN_BYTES ((uint64_t)2 << 20)
#define DMLCPU_TILE_MIN_BYTES ((uint64_t)128 << 10)
/* Between DMLCPU_PAR_MIN_BYTES and DMLCPU_COLD_MIN_BYTES an OpenMP execute opens a parallel
 * region only when another execute of at least DMLCPU_PAR_MIN_BYTES started less than
 * DMLCPU_WARM_NS before (the pool is likely awake: libomp's workers spin for 200 ms after a
 * region); an isolated one runs on the caller's thread. Waking a sleeping worker cost up to a
 * few hundred microseconds here, more than a 2-8 MiB reduction takes on one thread. */
#define DMLCPU_COLD_MIN_BYTES ((uint64_t)8 << 20)
#define DMLCPU_WARM_NS ((int64_t)100000000)

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
 * configuration allows one thread, otherwise over the host's pool or OpenMP (see
 * DMLCPU_COLD_MIN_BYTES). bytes: the execute's input size. */
void parallel_run(const parallel_config *cfg, size_t count, uint64_t bytes, dmlcpu_task_fn task,
                  void *ctx);

#endif
