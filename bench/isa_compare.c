/* --compare-isa: every case runs once per listed level, one level after the other on the same
 * buffers (so that the machine's state drifts as little as possible between them), and this
 * file prints how the first level compares with each other one. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

/* A ratio counts as a difference when its log exceeds this many times the combined spread of
 * the two medians, and the ratio is more than ISA_FLOOR away from 1. */
#define ISA_SIGMAS 3.0
#define ISA_FLOOR 0.05

static double spread(const isa_sample *s)
{
    return s->median > 0 ? s->rel_spread : 0.0;
}

/* The sample of level `cap` for the same case and thread count as s, or NULL. */
static const isa_sample *partner(const isa_sample *v, int n, const isa_sample *s, int cap)
{
    for (int i = 0; i < n; i++)
        if (v[i].c == s->c && v[i].threads == s->threads && v[i].cap == cap)
            return v[i].ok ? &v[i] : NULL;
    return NULL;
}

void isa_compare_print(const char *const *caps, int n_caps, const isa_sample *v, int n)
{
    static const char *fams[] = {"reduce", "copy", "tiny"};
    static const char *sizes[] = {"512K", "16M", "64M", "tiny"};
    printf("\nISA comparison: speed of %s relative to each level (geometric mean of the other\n"
           "level's median / %s's median; > 1: %s faster), same cases, same run\n",
           caps[0], caps[0], caps[0]);
    printf("  %-10s %-7s %-5s %3s  %7s %6s %6s  %s\n", "vs", "family", "size", "thr", "geomean",
           "min", "max", "cases");
    int thr[16], n_thr = 0;
    for (int i = 0; i < n; i++) {
        int dup = 0;
        for (int k = 0; k < n_thr; k++) dup |= thr[k] == v[i].threads;
        if (!dup && n_thr < 16) thr[n_thr++] = v[i].threads;
    }
    for (int j = 1; j < n_caps; j++) {
        double all_log = 0;
        int all_cnt = 0;
        for (int k = 0; k < n_thr; k++)
            for (int f = 0; f < 3; f++)
                for (int z = 0; z < 4; z++) {
                    double logsum = 0, lo = 0, hi = 0;
                    int cnt = 0;
                    for (int i = 0; i < n; i++) {
                        const isa_sample *a = &v[i];
                        if (a->cap != 0 || !a->ok || a->threads != thr[k] ||
                            strcmp(a->c->family, fams[f]) || strcmp(a->c->size, sizes[z]))
                            continue;
                        const isa_sample *b = partner(v, n, a, j);
                        if (!b) continue;
                        double r = b->median / a->median;
                        logsum += log(r);
                        if (!cnt || r < lo) lo = r;
                        if (!cnt || r > hi) hi = r;
                        cnt++;
                    }
                    if (!cnt) continue;
                    printf("  %-10s %-7s %-5s %3d  %7.2f %6.2f %6.2f  %d\n", caps[j], fams[f],
                           sizes[z], thr[k], exp(logsum / cnt), lo, hi, cnt);
                    all_log += logsum;
                    all_cnt += cnt;
                }
        if (all_cnt)
            printf("  %-10s %-7s %-5s %3s  %7.2f %6s %6s  %d\n", caps[j], "all", "", "",
                   exp(all_log / all_cnt), "", "", all_cnt);
    }
    for (int j = 1; j < n_caps; j++) {
        printf("cases where %s is not slower than %s beyond noise (ratio = %s median / %s median;\n"
               "noise: %.0f x the combined spread of the medians and > %.0f%%):\n",
               caps[0], caps[j], caps[j], caps[0], ISA_SIGMAS, 100 * ISA_FLOOR);
        int listed = 0;
        for (int i = 0; i < n; i++) {
            const isa_sample *a = &v[i];
            if (a->cap != 0 || !a->ok) continue;
            const isa_sample *b = partner(v, n, a, j);
            if (!b) continue;
            double r = b->median / a->median;
            double limit = fmax(ISA_SIGMAS * hypot(spread(a), spread(b)), log1p(ISA_FLOOR));
            if (log(r) < -limit) continue; /* caps[0] clearly slower */
            if (!listed++)
                printf("  %-8s %-12s %-9s %-5s %3s  %-9s %-9s %6s\n", "dtype", "op", "axes", "size",
                       "thr", caps[0], caps[j], "ratio");
            printf("  %-8s %-12s %-9s %-5s %3d  %-9s %-9s %6.2f%s\n", dtype_name(a->c->dtype),
                   a->c->op, a->c->pattern, a->c->size, a->threads, a->level, b->level, r,
                   log(r) > limit ? "  faster" : "");
        }
        if (!listed) printf("  none\n");
    }
}
