/*
 * --simulate-threads: how far each case's plan scales on an N-core machine, measured on any
 * machine. The operator is created with max_threads = N and a host pool that runs the tasks of
 * each parallel_for one after another on the calling thread, timing each. The tasks are then
 * scheduled longest-first on N simulated workers; the time an execute spends outside its
 * parallel_for calls (checking the bindings, setting up, anything between or after the calls)
 * counts as serial. The pool's own time between tasks (its loop and clock reads) is not the
 * library's and would run on the workers of a real pool, so it counts nowhere:
 *
 *   speedup = (outside + sum of task times) / (outside + sum over regions of the makespan)
 *
 * Each task's time is its minimum over the repetitions (a preempted task on a busy machine
 * would otherwise pass for a slow one); so is the outside time. The same run also times the
 * 1-thread operator's execute (its minimum), so the plan's own overhead shows: "work" is the
 * sum of task times plus the outside, over the 1-thread execute time.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* One parallel_for of an execute: its task count, the tasks' times and how long the whole call
 * took (this repetition). */
typedef struct {
    size_t count;
    double *time;
    double span;
} sim_region;

#define SIM_MAX_REGIONS 16

typedef struct {
    int regions;
    sim_region r[SIM_MAX_REGIONS];
    int overflow; /* more regions than SIM_MAX_REGIONS in one execute */
} sim_pool;

static void sim_parallel_for(void *pool_context, dmlcpu_task_fn task, void *task_context,
                             size_t task_count)
{
    sim_pool *s = pool_context;
    sim_region *r = s->regions < SIM_MAX_REGIONS ? &s->r[s->regions] : NULL;
    if (r) {
        if (r->count < task_count) {
            free(r->time);
            r->time = malloc(task_count * sizeof *r->time);
            if (!r->time) {
                fprintf(stderr, "out of memory\n");
                exit(2);
            }
        }
        r->count = task_count;
        s->regions++;
    } else {
        s->overflow = 1;
    }
    double start = bench_now();
    for (size_t i = 0; i < task_count; i++) {
        double t0 = bench_now();
        task(task_context, i);
        if (r) r->time[i] = bench_now() - t0;
    }
    if (r) r->span = bench_now() - start;
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* Longest-first list scheduling of n task times on `workers` workers: the makespan. */
static double lpt_makespan(const double *time, size_t n, int workers, double *sorted, double *load)
{
    memcpy(sorted, time, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_desc);
    for (int w = 0; w < workers; w++) load[w] = 0;
    for (size_t i = 0; i < n; i++) {
        int best = 0;
        for (int w = 1; w < workers; w++)
            if (load[w] < load[best]) best = w;
        load[best] += sorted[i];
    }
    double m = 0;
    for (int w = 0; w < workers; w++)
        if (load[w] > m) m = load[w];
    return m;
}

typedef struct {
    size_t tasks;        /* in all regions of one execute */
    int regions;
    double outside, sum, makespan, one, longest;
    double speedup;      /* simulated */
} sim_result;

/* Runs case c with max_threads = workers through the timing pool `repeat` times; fills r. */
static dmlcpu_status simulate_case(const bench_case *c, int workers, int repeat, void *pool,
                                   prepared_case *p, sim_result *r)
{
    memset(r, 0, sizeof *r);
    dmlcpu_status st = case_prepare(c, 1, pool, p);
    if (st != DMLCPU_STATUS_OK) return st;
    r->one = -1;
    for (int k = 0; k < repeat + 1; k++) { /* the first one warms the buffers up */
        double t0 = bench_now();
        st = dmlcpu_execute(p->op, &p->bindings);
        double t = bench_now() - t0;
        if (st != DMLCPU_STATUS_OK) return st;
        if (k > 0 && (r->one < 0 || t < r->one)) r->one = t;
    }
    case_release_operator(p);

    sim_pool sp;
    memset(&sp, 0, sizeof sp);
    st = case_prepare_pool(c, (uint32_t)workers, sim_parallel_for, &sp, pool, p);
    if (st != DMLCPU_STATUS_OK) return st;
    /* best[] holds each task's minimum over the repetitions, region after region */
    double *best = NULL, outside = -1;
    size_t best_n = 0;
    for (int k = 0; k < repeat + 1 && st == DMLCPU_STATUS_OK; k++) {
        sp.regions = 0;
        double t0 = bench_now();
        st = dmlcpu_execute(p->op, &p->bindings);
        double t = bench_now() - t0;
        size_t n = 0;
        for (int g = 0; g < sp.regions; g++) n += sp.r[g].count;
        if (k == 0) { /* warm-up: learn the shape of the execute */
            best_n = n;
            r->regions = sp.regions;
            best = malloc((n ? n : 1) * sizeof *best);
            if (!best) {
                fprintf(stderr, "out of memory\n");
                exit(2);
            }
            for (size_t i = 0; i < n; i++) best[i] = -1;
            continue;
        }
        if (n != best_n || sp.regions != r->regions || sp.overflow) {
            fprintf(stderr, "dmlcpu-bench: %s %s: the executes' task lists differ\n", c->op,
                    c->pattern);
            st = DMLCPU_STATUS_INVALID_ARGUMENT;
            break;
        }
        double in_regions = 0;
        size_t i = 0;
        for (int g = 0; g < sp.regions; g++) {
            in_regions += sp.r[g].span;
            for (size_t j = 0; j < sp.r[g].count; j++, i++)
                if (best[i] < 0 || sp.r[g].time[j] < best[i]) best[i] = sp.r[g].time[j];
        }
        double out = t - in_regions;
        if (out < 0) out = 0;
        if (outside < 0 || out < outside) outside = out;
    }
    if (st == DMLCPU_STATUS_OK) {
        double *sorted = malloc((best_n ? best_n : 1) * sizeof *sorted);
        double *load = malloc((size_t)workers * sizeof *load);
        if (!sorted || !load) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
        r->tasks = best_n;
        r->outside = outside;
        size_t i = 0;
        for (int g = 0; g < r->regions; g++) {
            size_t cnt = sp.r[g].count;
            for (size_t j = 0; j < cnt; j++) {
                r->sum += best[i + j];
                if (best[i + j] > r->longest) r->longest = best[i + j];
            }
            r->makespan += lpt_makespan(best + i, cnt, workers, sorted, load);
            i += cnt;
        }
        r->speedup = (outside + r->sum) / (outside + r->makespan);
        free(sorted);
        free(load);
    }
    free(best);
    for (int g = 0; g < SIM_MAX_REGIONS; g++) free(sp.r[g].time);
    case_release_operator(p);
    return st;
}

int simulate_threads(const bench_case *cases, size_t n, const int *workers, int worker_count,
                     int repeat)
{
    printf("simulated scaling: each case with max_threads = N and a host pool that runs the tasks\n"
           "one after another, timing each (the minimum of %d executes); the tasks scheduled\n"
           "longest-first on N workers, the execute's time outside the pool's calls serial.\n"
           "  longest = the longest task, outside = the execute's time outside the pool,\n"
           "  speedup = (outside + task sum) / (outside + makespan), eff = speedup / N,\n"
           "  work = (outside + task sum) / the 1-thread execute (the plan's own overhead)\n",
           repeat);
    int failed = 0;
    double worst_eff[8];
    const bench_case *worst[8] = {0};
    for (int w = 0; w < worker_count; w++) worst_eff[w] = 2.0;
    dmlcpu_data_type current = DMLCPU_DATA_TYPE_UNKNOWN;
    void *pool = NULL;
    for (size_t i = 0; i < n; i++) {
        const bench_case *c = &cases[i];
        if (c->dtype != current) {
            free(pool);
            uint64_t need = 4096;
            for (size_t j = i; j < n && cases[j].dtype == c->dtype; j++)
                if (cases[j].pool_bytes > need) need = cases[j].pool_bytes;
            pool = bench_alloc(need);
            fill_data(c->dtype, pool, need, (uint64_t)c->dtype);
            current = c->dtype;
            printf("\n%s\n  %-12s %-9s %-5s %4s %6s %9s %9s %9s %9s %8s %5s %6s\n",
                   dtype_name(current), "op", "axes", "size", "N", "tasks", "1-thread",
                   "task sum", "longest", "outside", "speedup", "eff", "work");
        }
        prepared_case p;
        memset(&p, 0, sizeof p);
        for (int w = 0; w < worker_count; w++) {
            sim_result r;
            dmlcpu_status st = simulate_case(c, workers[w], repeat, pool, &p, &r);
            printf("  %-12s %-9s %-5s %4d ", c->op, c->pattern, c->size, workers[w]);
            if (st != DMLCPU_STATUS_OK) {
                printf("%s: %s\n", dmlcpu_status_string(st), dmlcpu_last_error_message());
                failed += st != DMLCPU_STATUS_UNSUPPORTED;
                case_release_operator(&p);
                continue;
            }
            double eff = r.speedup / workers[w];
            printf("%6zu %7.3fms %7.3fms %7.3fms %7.3fms %7.2fx %4.0f%% %5.2fx\n", r.tasks,
                   1e3 * r.one, 1e3 * r.sum, 1e3 * r.longest, 1e3 * r.outside, r.speedup, 100 * eff,
                   r.one > 0 ? (r.outside + r.sum) / r.one : 0.0);
            if (eff < worst_eff[w]) {
                worst_eff[w] = eff;
                worst[w] = c;
            }
        }
        case_release(&p);
    }
    free(pool);
    printf("\n");
    for (int w = 0; w < worker_count; w++)
        if (worst[w])
            printf("worst at N = %d: %s %s %s %s, %.0f%% efficiency\n", workers[w],
                   dtype_name(worst[w]->dtype), worst[w]->op, worst[w]->pattern, worst[w]->size,
                   100 * worst_eff[w]);
    return failed;
}
