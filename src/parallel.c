/* Runs the tiles of an execute, on the host's pool, OpenMP, or the caller's thread. The tiles
 * are planned by reduce.c and copy.c so that results never depend on which thread runs which
 * tile or on how many there are. */
#include <stdatomic.h>
#include <unistd.h>

#include "parallel.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

void parallel_config_init(parallel_config *cfg, const dmlcpu_create_options *options)
{
    cfg->max_threads = options ? options->max_threads : 0;
    cfg->parallel_for = options ? options->parallel_for : NULL;
    cfg->parallel_for_context = options ? options->parallel_for_context : NULL;
}

unsigned parallel_threads(const parallel_config *cfg)
{
    if (cfg->max_threads)
        return cfg->max_threads;
    if (cfg->parallel_for) { /* the host's pool: assume one thread per CPU */
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        return n > 0 ? (unsigned)n : 1;
    }
#if defined(_OPENMP)
    return (unsigned)omp_get_max_threads();
#else
    return 1;
#endif
}

#if defined(_OPENMP)
typedef struct {
    dmlcpu_task_fn task;
    void *ctx;
    size_t count;
    _Atomic size_t next;
} omp_job;
#endif

void parallel_run(const parallel_config *cfg, size_t count, dmlcpu_task_fn task, void *ctx)
{
    if (count > 1 && cfg->max_threads != 1 && cfg->parallel_for) {
        cfg->parallel_for(cfg->parallel_for_context, task, ctx, count);
        return;
    }
#if defined(_OPENMP)
    unsigned threads = parallel_threads(cfg);
    if (count > 1 && threads > 1) {
        /* Threads claim tiles in order from a shared counter: a thread that starts late finds
         * less to do instead of holding up a fixed share. */
        omp_job job = {task, ctx, count, 0};
        int n = (int)(threads < count ? threads : count);
#pragma omp parallel num_threads(n)
        for (size_t i; (i = atomic_fetch_add(&job.next, 1)) < job.count;)
            job.task(job.ctx, i);
        return;
    }
#endif
    for (size_t i = 0; i < count; i++)
        task(ctx, i);
}
