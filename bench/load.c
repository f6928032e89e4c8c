/*
 * How busy the rest of the machine was: CPU time spent by everything (from /proc/stat,
 * including time the hypervisor stole) minus this process's own CPU time, over wall time.
 * On a shared machine this explains a noisy case; elsewhere it reads as unknown (-1).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench.h"

void load_mark_now(load_mark *m)
{
    m->wall = bench_now();
    m->busy = -1.0;
    FILE *f = fopen("/proc/stat", "r");
    if (f) {
        unsigned long long v[8] = {0};
        if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]) == 8) {
            /* user nice system idle iowait irq softirq steal: all but idle and iowait */
            double ticks = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]);
            m->busy = ticks / (double)sysconf(_SC_CLK_TCK);
        }
        fclose(f);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    m->own = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
             (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

double load_other(const load_mark *a, const load_mark *b)
{
    double wall = b->wall - a->wall;
    if (a->busy < 0 || b->busy < 0 || wall <= 0) return -1.0;
    double other = (b->busy - a->busy) - (b->own - a->own);
    return other > 0 ? other / wall : 0.0;
}
