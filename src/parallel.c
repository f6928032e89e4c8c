/* Runs the tiles of an execute, on the host's pool, OpenMP, or the caller's thread. The tiles
 * are planned by reduce.c and copy.c so that results never depend on which thread runs which
 * tile or on how many there are. */
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>
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
/* Each thread of the region owns a contiguous range of the tiles and claims them in order; a
 * thread that has finished its own range claims what is left of the others'. A thread that
 * starts late (a busy core) so finds less to do instead of holding up a fixed share, and when
 * the same operator runs again each thread touches mostly the same memory as the time before:
 * on a machine whose cores do not share their last-level cache (2 vCPUs on different core
 * complexes) a 16 MiB UINT8 JOIN ran 2 threads at 1.5x one thread with all threads claiming
 * from one counter, and at 4x with home ranges. */
#define OMP_HOME_MAX 64
typedef struct {
    _Alignas(64) _Atomic size_t next;
    size_t end;
} omp_range;
typedef struct {
    dmlcpu_task_fn task;
    void *ctx;
    int threads;
    omp_range range[OMP_HOME_MAX];
} omp_job;

static void omp_job_run(omp_job *job, int self)
{
    for (int k = 0; k < job->threads; k++) {
        omp_range *r = &job->range[(self + k) % job->threads];
        for (size_t i; (i = atomic_fetch_add(&r->next, 1)) < r->end;)
            job->task(job->ctx, i);
    }
}
#endif

#if defined(_OPENMP)
static _Atomic int64_t last_parallel_execute; /* CLOCK_MONOTONIC ns; 0: none yet */

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Whether a region is worth opening for `bytes` (see DMLCPU_COLD_MIN_BYTES). Only timing moves
 * with this choice: the tiles and their results are the same either way. */
static bool pool_worth_waking(uint64_t bytes)
{
    int64_t now = now_ns();
    int64_t prev = atomic_exchange(&last_parallel_execute, now);
    return bytes >= DMLCPU_COLD_MIN_BYTES || (prev != 0 && now - prev < DMLCPU_WARM_NS);
}
#endif

void parallel_run(const parallel_config *cfg, size_t count, uint64_t bytes, dmlcpu_task_fn task,
                  void *ctx)
{
    (void)bytes; /* only the OpenMP path weighs waking its pool */
    if (count > 1 && cfg->max_threads != 1 && cfg->parallel_for) {
        cfg->parallel_for(cfg->parallel_for_context, task, ctx, count);
        return;
    }
#if defined(_OPENMP)
    unsigned threads = parallel_threads(cfg);
    if (count > 1 && threads > 1 && pool_worth_waking(bytes)) {
        int n = (int)(threads < count ? threads : count);
        if (n > OMP_HOME_MAX)
            n = OMP_HOME_MAX;
        omp_job job;
        job.task = task;
        job.ctx = ctx;
        job.threads = n;
        for (int t = 0; t < n; t++) {
            atomic_init(&job.range[t].next, (size_t)t * count / (size_t)n);
            job.range[t].end = (size_t)(t + 1) * count / (size_t)n;
        }
#pragma omp parallel num_threads(n)
        omp_job_run(&job, omp_get_thread_num());
        return;
    }
#endif
    for (size_t i = 0; i < count; i++)
        task(ctx, i);
}
