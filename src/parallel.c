/* Runs the tiles of an execute. The tiles themselves are planned by reduce.c and copy.c so that
 * their results never depend on how many threads run them. */
#include "parallel.h"

void parallel_config_init(parallel_config *cfg, const dmlcpu_create_options *options)
{
    cfg->max_threads = options ? options->max_threads : 0;
    cfg->parallel_for = options ? options->parallel_for : NULL;
    cfg->parallel_for_context = options ? options->parallel_for_context : NULL;
}

void parallel_run(const parallel_config *cfg, size_t count, dmlcpu_task_fn task, void *ctx)
{
    if (count > 1 && cfg->max_threads != 1 && cfg->parallel_for) {
        cfg->parallel_for(cfg->parallel_for_context, task, ctx, count);
        return;
    }
    /* OpenMP tiling is not wired in yet: every tile runs on the caller's thread, in order. */
    for (size_t i = 0; i < count; i++)
        task(ctx, i);
}
