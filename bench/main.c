/*
 * dmlcpu-bench: measures the machine's ceilings, then runs the case matrix and reports each
 * case as GB/s, elements/s and a fraction of the matching ceiling from the same run.
 * Run with --help for the options.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "bench.h"

#include "report.h"

static int progress_tty;

/* A case during which other processes kept this many CPUs busy is marked '!'. */
#define BUSY_CPUS 0.5

static void usage(FILE *f)
{
    fputs("usage: dmlcpu-bench [options]\n"
          "  --op LIST       operators or families: sum,max,argmax,average,l1,l2,sum_square,\n"
          "                  multiply,log_sum_exp,join,split,slice,slice_grad,identity,\n"
          "                  reduce,copy,tiny\n"
          "  --dtype LIST    float32,float16,float64,int8,...  (or f32,f16,i8,u64,...)\n"
          "  --axes LIST     inner,outer,middle,all,narrow,rows,step2,reverse,transpose,...\n"
          "  --size LIST     l2 (512 KiB), large (64 MiB, 16 MiB for 1-byte types), tiny\n"
          "  --threads LIST  thread counts, e.g. 1 or 1,2 or all (default: 1,all)\n"
          "  --isa NAME      cap the library: scalar, portable, avx2, avx512, neon\n"
          "  --compare-isa LIST  run every case at each of these levels in turn (e.g.\n"
          "                  portable,avx2,scalar) and compare the first with the others\n"
          "  --repeat N      at least N samples per case (default 7)\n"
          "  --min-time S    at least S seconds of samples per case (default 0.07)\n"
          "  --json FILE     write every result, with its samples, to FILE\n"
          "  --quick         all threads only, fewer samples (a smoke run)\n"
          "  --full          instead of the default matrix: every REDUCE function for every\n"
          "                  type it allows, in every reduction pattern (use with --op/--dtype)\n"
          "  --list          print the selected cases and exit\n"
          "  --simulate-threads LIST  instead of timing: the scaling each case's plan allows\n"
          "                  on N cores (e.g. 16,64), from its tasks timed one by one through\n"
          "                  a host pool (default size: large; --repeat executes per case)\n",
          f);
}

/* Is word in the comma-separated list? A NULL list matches everything. */
static int in_list(const char *list, const char *word)
{
    if (!list) return 1;
    size_t n = strlen(word);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncasecmp(p, word, n)) return 1;
        if (!end) break;
        p = end + 1;
    }
    return 0;
}

static int dtype_selected(const char *list, dmlcpu_data_type t)
{
    if (!list) return 1;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save))
        if (dtype_from_name(w) == t) return 1;
    return 0;
}

static int selected(const options *o, const bench_case *c)
{
    if (!in_list(o->ops, c->op) && !in_list(o->ops, c->family)) return 0;
    if (!dtype_selected(o->dtypes, c->dtype)) return 0;
    /* Patterns may hold a space ("4 parts"): match their first word too. */
    char first[32];
    snprintf(first, sizeof first, "%s", c->pattern);
    first[strcspn(first, " ")] = 0;
    if (!in_list(o->patterns, c->pattern) && !in_list(o->patterns, first) &&
        !(!strcmp(c->pattern, "4 parts") && in_list(o->patterns, "parts")))
        return 0;
    const char *cls = !strcmp(c->size, "tiny") ? "tiny" : !strcmp(c->size, "512K") ? "l2" : "large";
    if (!in_list(o->sizes, c->size) && !in_list(o->sizes, cls) &&
        !(!strcmp(cls, "large") && in_list(o->sizes, "dram")))
        return 0;
    return 1;
}

static int parse_isa(const char *name, dmlcpu_isa *out)
{
    static const char *names[] = {"scalar", "portable", "avx2", "avx512", "neon"};
    for (int i = 0; i < 5; i++)
        if (!strcasecmp(name, names[i])) {
            *out = (dmlcpu_isa)i;
            return 1;
        }
    return 0;
}

/* Parses a comma-separated list of thread counts (1..1024; "all" = this machine's) into v. */
static int parse_counts(const char *arg, int *v, int max)
{
    int count = 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", arg);
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w && count < max;
         w = strtok_r(NULL, ",", &save)) {
        int n = !strcmp(w, "all") ? bench_max_threads() : atoi(w);
        if (n < 1 || n > 1024) {
            fprintf(stderr, "dmlcpu-bench: bad thread count '%s'\n", w);
            exit(2);
        }
        int dup = 0;
        for (int i = 0; i < count; i++) dup |= v[i] == n;
        if (!dup) v[count++] = n;
    }
    return count;
}

static void parse_threads(options *o, const char *arg)
{
    o->thread_count = parse_counts(arg, o->threads, 8);
}

static void parse_options(options *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->timing = (timing_options){7, 0.07, 0.4, 0.001};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKE()                                                                 \
    do {                                                                       \
        if (!v) {                                                              \
            fprintf(stderr, "dmlcpu-bench: %s needs a value\n", a);            \
            exit(2);                                                           \
        }                                                                      \
        i++;                                                                   \
    } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--op")) { TAKE(); o->ops = v;
        } else if (!strcmp(a, "--dtype")) { TAKE(); o->dtypes = v;
        } else if (!strcmp(a, "--axes")) { TAKE(); o->patterns = v;
        } else if (!strcmp(a, "--size")) { TAKE(); o->sizes = v;
        } else if (!strcmp(a, "--threads")) { TAKE(); parse_threads(o, v);
        } else if (!strcmp(a, "--isa")) { TAKE(); o->isa = v;
        } else if (!strcmp(a, "--compare-isa")) { TAKE(); o->compare = v;
        } else if (!strcmp(a, "--repeat")) { TAKE(); o->timing.repeat = atoi(v); o->repeat_set = 1;
        } else if (!strcmp(a, "--min-time")) { TAKE(); o->timing.min_time = atof(v); o->min_time_set = 1;
        } else if (!strcmp(a, "--json")) { TAKE(); o->json = v;
        } else if (!strcmp(a, "--quick")) { o->quick = 1;
        } else if (!strcmp(a, "--list")) { o->list = 1;
        } else if (!strcmp(a, "--full")) { o->full = 1;
        } else if (!strcmp(a, "--simulate-threads")) { TAKE();
            o->simulate_count = parse_counts(v, o->simulate, 8);
        } else {
            fprintf(stderr, "dmlcpu-bench: unknown option '%s'\n", a);
            usage(stderr);
            exit(2);
        }
#undef TAKE
    }
    if (o->quick) {
        if (!o->repeat_set) o->timing.repeat = 3;
        if (!o->min_time_set) o->timing.min_time = 0.01;
        o->timing.max_time = 0.05;
        o->timing.sample_time = 0.0005;
    }
    if (o->timing.repeat < 1) o->timing.repeat = 1;
    if (o->timing.max_time < o->timing.min_time * 5) o->timing.max_time = o->timing.min_time * 5;
    if (o->thread_count == 0) parse_threads(o, o->quick ? "all" : "1,all");
    if (o->simulate_count && !o->sizes) o->sizes = "large";
}

/* ---- formatting ---- */

static const char *fmt_time(double s, char *buf, size_t n)
{
    if (s < 1e-6) snprintf(buf, n, "%.0f ns", s * 1e9);
    else if (s < 1e-3) snprintf(buf, n, "%.1f us", s * 1e6);
    else if (s < 1.0) snprintf(buf, n, "%.2f ms", s * 1e3);
    else snprintf(buf, n, "%.2f s", s);
    return buf;
}

static const char *fmt_bytes(uint64_t b, char *buf, size_t n)
{
    if (b >= 1024 * 1024) snprintf(buf, n, "%llu MiB", (unsigned long long)(b >> 20));
    else snprintf(buf, n, "%llu KiB", (unsigned long long)(b >> 10));
    return buf;
}

static void clear_progress(void)
{
    if (progress_tty) fputs("\r\033[K", stderr);
}

static void progress(size_t done, size_t total, const bench_case *c, int threads, double t0)
{
    if (!progress_tty) return;
    fprintf(stderr, "\r\033[K[%zu/%zu %.0fs] %s %s %s %s t%d", done + 1, total, bench_now() - t0,
            dtype_name(c->dtype), c->op, c->pattern, c->size, threads);
    fflush(stderr);
}

static void cpu_model(char *buf, size_t n)
{
    struct utsname u;
    snprintf(buf, n, "%s", uname(&u) == 0 ? u.machine : "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10)) {
            char *v = strchr(line, ':');
            if (v) {
                v += 1 + (v[1] == ' ');
                v[strcspn(v, "\n")] = 0;
                snprintf(buf, n, "%s", v);
            }
            break;
        }
    }
    fclose(f);
}

/* ---- running ---- */

typedef struct {
    const dmlcpu_operator *op;
    const dmlcpu_bindings *b;
    dmlcpu_status st;
} exec_ctx;

static int exec_call(void *p)
{
    exec_ctx *x = p;
    x->st = dmlcpu_execute(x->op, x->b);
    return x->st != DMLCPU_STATUS_OK;
}

/* The ceiling of a case with N threads is the best one measured with at most N threads: a
 * library may always run fewer threads than it is allowed, and on a busy machine a 2-thread
 * ceiling can fall below the 1-thread one. */
static const ceiling_result *find_ceiling(const ceiling_result *v, int n, ceiling_kind k,
                                          uint64_t bytes, int threads)
{
    const ceiling_result *best = NULL;
    for (int i = 0; i < n; i++)
        if (v[i].kind == k && v[i].bytes == bytes && v[i].threads <= threads &&
            (!best || v[i].gbps > best->gbps))
            best = &v[i];
    return best;
}

/* Creates the operator of one configuration (thread count, ISA cap) of a case into p, which
 * keeps the case's buffers; on success the operator is moved to *op. */
static void prepare_config(const bench_case *c, int threads, int cap, void *pool,
                           prepared_case *p, dmlcpu_operator **op, case_result *r)
{
    memset(r, 0, sizeof *r);
    r->c = c;
    r->threads = threads;
    r->cap = cap;
    *op = NULL;
    r->status = case_prepare(c, (uint32_t)threads, pool, p);
    if (r->status != DMLCPU_STATUS_OK) {
        r->message = strdup(dmlcpu_last_error_message());
        return;
    }
    r->isa = dmlcpu_isa_name(dmlcpu_operator_isa(p->op));
    *op = p->op;
    p->op = NULL;
}

static void finish_config(const exec_ctx *x, int rc, const ceiling_result *ceil, int n_ceil,
                          case_result *r)
{
    const bench_case *c = r->c;
    if (rc != 0) {
        char buf[600];
        snprintf(buf, sizeof buf, "execute failed: %s: %s", dmlcpu_status_string(x->st),
                 dmlcpu_last_error_message());
        r->status = x->st != DMLCPU_STATUS_OK ? x->st : DMLCPU_STATUS_OUT_OF_MEMORY;
        r->message = strdup(buf);
        return;
    }
    r->gbps = (double)c->bytes / r->t.median * 1e-9;
    r->eps = (double)c->elements / r->t.median;
    const ceiling_result *cr = find_ceiling(ceil, n_ceil, c->ceiling, c->size_bytes, r->threads);
    if (cr && cr->gbps > 0) {
        r->ceiling_gbps = cr->gbps;
        r->fraction = r->gbps / cr->gbps;
    }
}

/* Runs every configuration of a case (each thread count under each ISA cap) on the same
 * buffers, timed side by side (bench_time_set), so that the scaling and ISA ratios compare
 * samples taken in the same moments. r holds k results. If an execute fails, each
 * configuration is timed alone to tell which. */
static void run_case(const bench_case *c, const options *o, int k, void *pool,
                     const ceiling_result *ceil, int n_ceil, case_result *r)
{
    const int n_caps = o->cap_count ? o->cap_count : 1;
    prepared_case p;
    memset(&p, 0, sizeof p);
    dmlcpu_operator *ops[BENCH_TIME_SET_MAX];
    for (int i = 0; i < k; i++) {
        if (o->cap_count) dmlcpu_set_max_isa(o->caps[i % n_caps]);
        prepare_config(c, o->threads[i / n_caps], i % n_caps, pool, &p, &ops[i], &r[i]);
    }
    /* Bound after every create: a later one may have grown the temporary buffer. */
    exec_ctx x[BENCH_TIME_SET_MAX];
    dmlcpu_bindings b[BENCH_TIME_SET_MAX];
    void *ctx[BENCH_TIME_SET_MAX];
    int idx[BENCH_TIME_SET_MAX], m = 0;
    for (int i = 0; i < k; i++) {
        if (!ops[i]) continue;
        dmlcpu_binding_properties props;
        dmlcpu_get_binding_properties(ops[i], &props);
        b[i] = p.bindings;
        b[i].temporary.data = props.temporary_size_in_bytes ? p.owned[BENCH_PARTS] : NULL;
        b[i].temporary.size_in_bytes = props.temporary_size_in_bytes;
        x[i] = (exec_ctx){ops[i], &b[i], DMLCPU_STATUS_OK};
        ctx[m] = &x[i];
        idx[m++] = i;
    }
    if (m > 0) {
        timing_result t[BENCH_TIME_SET_MAX];
        load_mark a, e;
        load_mark_now(&a);
        int rc = bench_time_set(exec_call, ctx, m, &o->timing, t);
        load_mark_now(&e);
        double other = load_other(&a, &e);
        if (rc == 0) {
            for (int j = 0; j < m; j++) {
                r[idx[j]].t = t[j];
                r[idx[j]].other_load = other;
                finish_config(&x[idx[j]], 0, ceil, n_ceil, &r[idx[j]]);
            }
        } else {
            for (int j = 0; j < m; j++) {
                const int i = idx[j];
                x[i].st = DMLCPU_STATUS_OK;
                load_mark_now(&a);
                int rc1 = bench_time(exec_call, &x[i], &o->timing, &r[i].t);
                load_mark_now(&e);
                r[i].other_load = load_other(&a, &e);
                finish_config(&x[i], rc1, ceil, n_ceil, &r[i]);
            }
        }
    }
    for (int i = 0; i < k; i++) dmlcpu_destroy_operator(ops[i]);
    case_release(&p);
}

/* The isa column: the level whose kernels ran; with --compare-isa, "cap>level" when a tier
 * lacks a kernel and a lower one ran it. */
static void print_row(const options *o, const case_result *r)
{
    const bench_case *c = r->c;
    char med[32], mn[32];
    printf("  %-12s %-9s %-5s %3d  ", c->op, c->pattern, c->size, r->threads);
    if (r->message) {
        printf("%-8s %s\n", r->status == DMLCPU_STATUS_UNSUPPORTED ? "-" : "ERROR", r->message);
        return;
    }
    char lvl[40];
    if (o->cap_count && strcmp(o->cap_names[r->cap], r->isa))
        snprintf(lvl, sizeof lvl, "%s>%s", o->cap_names[r->cap], r->isa);
    else
        snprintf(lvl, sizeof lvl, "%s", r->isa);
    printf("%-8s %9s %9s", lvl, fmt_time(r->t.median, med, sizeof med),
           fmt_time(r->t.min, mn, sizeof mn));
    const char *busy = r->other_load >= BUSY_CPUS ? " !" : "";
    if (c->ceiling == CEIL_NONE)
        printf("  %7s %8.3f  %6s%s\n", "-", r->eps * 1e-9, "-", busy);
    else
        printf("  %7.2f %8.3f  %5.0f%%%s\n", r->gbps, r->eps * 1e-9, 100.0 * r->fraction, busy);
}

static void print_header(dmlcpu_data_type t)
{
    printf("\n%s\n", dtype_name(t));
    printf("  %-12s %-9s %-5s %3s  %-8s %9s %9s  %7s %8s  %6s\n", "op", "axes", "size", "thr",
           "isa", "median", "min", "GB/s", "Gelem/s", "%ceil");
}

static void list_cases(const bench_case *cases, size_t n, int thread_count)
{
    for (size_t i = 0; i < n; i++) {
        const bench_case *c = &cases[i];
        printf("%-8s %-12s %-9s %-5s [", dtype_name(c->dtype), c->op, c->pattern, c->size);
        for (uint32_t d = 0; d < c->rank; d++) printf("%s%u", d ? "," : "", c->shape[d]);
        printf("]");
        if (c->axis_count) {
            printf(" axes ");
            for (uint32_t a = 0; a < c->axis_count; a++) printf("%s%u", a ? "," : "", c->axes[a]);
        }
        printf("\n");
    }
    printf("%zu cases x %d thread count(s)\n", n, thread_count);
}

/* Measures the ceilings at every (kind, size) the cases use, for 1 thread, all threads and
 * each requested count, and prints them. Returns the array (*count entries). */
static ceiling_result *measure_ceilings(const options *o, const bench_case *cases, size_t n,
                                        int *count)
{
    int tc[10], n_tc = 0;
    int cand[10] = {1, bench_max_threads()};
    for (int i = 0; i < o->thread_count; i++) cand[2 + i] = o->threads[i];
    for (int i = 0; i < 2 + o->thread_count; i++) {
        int dup = 0;
        for (int j = 0; j < n_tc; j++) dup |= tc[j] == cand[i];
        if (!dup) tc[n_tc++] = cand[i];
    }
    uint64_t sizes[8];
    int n_sizes = 0;
    for (size_t i = 0; i < n; i++) {
        if (cases[i].ceiling == CEIL_NONE) continue;
        int dup = 0;
        for (int j = 0; j < n_sizes; j++) dup |= sizes[j] == cases[i].size_bytes;
        if (!dup && n_sizes < 8) sizes[n_sizes++] = cases[i].size_bytes;
    }
    for (int a = 0; a < n_sizes; a++)
        for (int b = a + 1; b < n_sizes; b++)
            if (sizes[b] < sizes[a]) {
                uint64_t s = sizes[a];
                sizes[a] = sizes[b];
                sizes[b] = s;
            }
    ceiling_result *ceil = calloc((size_t)(2 * n_sizes * n_tc) + 1, sizeof *ceil);
    *count = 0;
    if (!n_sizes) return ceil;

    /* The ceilings are few and every case is divided by one: give them more samples. */
    timing_options timing = o->timing;
    if (timing.repeat < 10) timing.repeat = 10;
    if (timing.min_time < 0.1) timing.min_time = 0.1;
    if (timing.max_time < 1.0) timing.max_time = 1.0;

    printf("\nceilings, GB/s (best)    ");
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < n_tc; j++) printf(" %7s t%-2d", k == 0 ? "read" : "memcpy", tc[j]);
    printf("\n");
    for (int s = 0; s < n_sizes; s++) {
        char label[32];
        printf("  %-22s", fmt_bytes(sizes[s], label, sizeof label));
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < n_tc; j++) {
                ceiling_result *c = &ceil[(*count)++];
                c->kind = (ceiling_kind)k;
                c->bytes = sizes[s];
                c->threads = tc[j];
                if (progress_tty)
                    fprintf(stderr, "\r\033[Kceiling %s %s t%d", k ? "memcpy" : "read", label,
                            tc[j]);
                load_mark before, after;
                load_mark_now(&before);
                c->gbps = ceiling_measure(c->kind, sizes[s], tc[j], &timing, &c->t);
                load_mark_now(&after);
                c->other_load = load_other(&before, &after);
                clear_progress();
                printf(" %9.2f%s", c->gbps, c->other_load >= BUSY_CPUS ? "!" : " ");
            }
        printf("\n");
    }
    printf("a case with N threads is divided by the best ceiling measured with <= N threads\n"
           "('!': other processes kept >= %.1f CPU busy during the measurement)\n", BUSY_CPUS);
    return ceil;
}

/* ---- thread scaling ---- */

/* A pair counts as slower with N threads only when its ratio falls below 1 by more than
 * SCALE_SIGMAS times the combined relative spread of the two medians, and by more than
 * SCALE_FLOOR, so that a pair with almost no spread is not listed for a fraction of a percent. */
#define SCALE_SIGMAS 3.0
#define SCALE_FLOOR 0.01

/* Relative sigma of a result's median, estimated from its samples: the interquartile range
 * over the median, as a normal sigma (IQR = 1.349 sigma), times about 1.25 / sqrt(n) for a
 * median of n samples. The same estimate as bench/compare. */
static double median_spread(const timing_result *t)
{
    if (t->median <= 0 || t->sample_count < 1) return 0.0;
    double iqr = (t->p75 - t->p25) / t->median;
    return iqr / 1.349 * 1.25 / sqrt((double)t->sample_count);
}

/* Pairs every successful result with more than 1 thread with the 1-thread result of the same
 * case, and sets its speedup and noise threshold. Returns the number of pairs. */
static int compute_scaling(case_result *res, int n_res)
{
    int pairs = 0;
    for (int i = 0; i < n_res; i++) {
        case_result *r = &res[i];
        r->one = NULL;
        r->speedup = 0;
        r->scale_noise = 0;
        if (r->threads <= 1 || r->message || r->t.median <= 0) continue;
        for (int j = 0; j < n_res; j++) {
            const case_result *q = &res[j];
            if (q->c == r->c && q->cap == r->cap && q->threads == 1 && !q->message &&
                q->t.median > 0) {
                r->one = q;
                break;
            }
        }
        if (!r->one) continue;
        r->speedup = r->one->t.median / r->t.median;
        double sigma = hypot(median_spread(&r->one->t), median_spread(&r->t));
        bench_paired_ratio(&r->one->t, &r->t, &r->speedup, &sigma);
        double limit = fmax(SCALE_SIGMAS * sigma, log1p(SCALE_FLOOR));
        r->scale_noise = expm1(limit);
        pairs++;
    }
    return pairs;
}

/* Slower with N threads than with 1, beyond the pair's own noise. */
static int scale_slower(const case_result *r)
{
    return r->speedup > 0 && log(r->speedup) < -log1p(r->scale_noise);
}

static void print_scaling(const options *o, const case_result *res, int n_res)
{
    int has_one = 0, has_more = 0;
    for (int k = 0; k < o->thread_count; k++) {
        has_one |= o->threads[k] == 1;
        has_more |= o->threads[k] > 1;
    }
    if (!has_one || !has_more) {
        printf("\nthread scaling: not measured (needs 1 and N > 1 threads, e.g. --threads 1,all)\n");
        return;
    }
    printf("\nthread scaling: 1-thread time / N-thread time, median over the rounds that sampled both (> 1: N threads faster)\n");
    printf("  %-7s %-5s %3s  %7s %6s %6s  %s\n", "family", "size", "thr", "geomean", "min", "max",
           "slower (ratio < 1)");
    static const char *fams[] = {"reduce", "copy", "tiny"};
    static const char *sizes[] = {"512K", "16M", "64M", "tiny"};
    for (int k = 0; k < o->thread_count; k++) {
        int t = o->threads[k];
        if (t <= 1) continue;
        for (int f = 0; f < 3; f++)
            for (int z = 0; z < 4; z++) {
                double logsum = 0, lo = 0, hi = 0;
                int cnt = 0, slower = 0;
                for (int i = 0; i < n_res; i++) {
                    const case_result *r = &res[i];
                    if (r->threads != t || r->speedup <= 0 || strcmp(r->c->family, fams[f]) ||
                        strcmp(r->c->size, sizes[z]))
                        continue;
                    logsum += log(r->speedup);
                    if (!cnt || r->speedup < lo) lo = r->speedup;
                    if (!cnt || r->speedup > hi) hi = r->speedup;
                    slower += r->speedup < 1.0;
                    cnt++;
                }
                if (cnt)
                    printf("  %-7s %-5s %3d  %7.2f %6.2f %6.2f  %d of %d\n", fams[f], sizes[z], t,
                           exp(logsum / cnt), lo, hi, slower, cnt);
            }
    }
    printf("slower with N threads beyond noise (ratio below 1 by more than %.0f x its spread, from\n"
           "the interquartile range of the rounds' ratios, and by > %.0f%%):\n",
           SCALE_SIGMAS, 100 * SCALE_FLOOR);
    int listed = 0;
    for (int i = 0; i < n_res; i++) {
        const case_result *r = &res[i];
        if (!scale_slower(r)) continue;
        if (!listed++)
            printf("  %-8s %-12s %-9s %-5s %3s  %9s %9s  %5s  %5s\n", "dtype", "op", "axes",
                   "size", "thr", "t1 median", "tN median", "ratio", "noise");
        char m1[32], mn[32];
        int busy = r->other_load >= BUSY_CPUS || r->one->other_load >= BUSY_CPUS;
        printf("  %-8s %-12s %-9s %-5s %3d  %9s %9s  %5.2f  %4.1f%%%s\n", dtype_name(r->c->dtype),
               r->c->op, r->c->pattern, r->c->size, r->threads,
               fmt_time(r->one->t.median, m1, sizeof m1), fmt_time(r->t.median, mn, sizeof mn),
               r->speedup, 100 * r->scale_noise, busy ? " !" : "");
    }
    if (!listed) printf("  none\n");
}

/* Geometric mean of the fraction of the ceiling per family and thread count. Returns the
 * number of failed cases. */
static int print_summary(const options *o, const case_result *res, int n_res)
{
    printf("\nsummary (geometric mean of %% of ceiling)\n");
    int failed = 0, unsupported = 0;
    for (int i = 0; i < n_res; i++) {
        if (res[i].status == DMLCPU_STATUS_UNSUPPORTED) unsupported++;
        else if (res[i].message) failed++;
    }
    const char *fams[2] = {"reduce", "copy"};
    for (int j = 0; j < (o->cap_count ? o->cap_count : 1); j++)
        for (int f = 0; f < 2; f++)
            for (int k = 0; k < o->thread_count; k++) {
                double logsum = 0;
                int cnt = 0;
                for (int i = 0; i < n_res; i++)
                    if (!res[i].message && res[i].cap == j && res[i].threads == o->threads[k] &&
                        !strcmp(res[i].c->family, fams[f]) && res[i].fraction > 0) {
                        logsum += log(res[i].fraction);
                        cnt++;
                    }
                if (cnt)
                    printf("  %-9s%-7s t%-2d %5.1f%%  (%d cases)\n",
                           o->cap_count ? o->cap_names[j] : "", fams[f], o->threads[k],
                           100.0 * exp(logsum / cnt), cnt);
            }
    printf("%d results, %d unsupported, %d failed", n_res, unsupported, failed);
    return failed;
}

static double load_average(void)
{
    double v = -1.0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &v) != 1) v = -1.0;
        fclose(f);
    }
    return v;
}

int main(int argc, char **argv)
{
    options o;
    parse_options(&o, argc, argv);
    progress_tty = isatty(2);
    setvbuf(stdout, NULL, _IOLBF, 0);

    if (o.compare) {
        if (o.isa) {
            fprintf(stderr, "dmlcpu-bench: --isa and --compare-isa exclude each other\n");
            return 2;
        }
        static char list[128];
        snprintf(list, sizeof list, "%s", o.compare);
        for (char *save = NULL, *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
            dmlcpu_isa isa;
            if (o.cap_count == 4 || !parse_isa(w, &isa) ||
                dmlcpu_set_max_isa(isa) != DMLCPU_STATUS_OK || dmlcpu_detected_isa() < isa) {
                fprintf(stderr, "dmlcpu-bench: --compare-isa: '%s' is not a level of this CPU "
                                "(at most 4 levels)\n", w);
                return 2;
            }
            o.caps[o.cap_count] = isa;
            o.cap_names[o.cap_count++] = w;
        }
        if (o.cap_count < 2) {
            fprintf(stderr, "dmlcpu-bench: --compare-isa needs at least two levels\n");
            return 2;
        }
    }
    if (o.isa) {
        dmlcpu_isa isa;
        if (!parse_isa(o.isa, &isa) || dmlcpu_set_max_isa(isa) != DMLCPU_STATUS_OK) {
            fprintf(stderr, "dmlcpu-bench: --isa %s is not an ISA of this architecture\n", o.isa);
            return 2;
        }
    }

    bench_case *all = NULL;
    size_t n_all = o.full ? cases_build_full(&all, 0) : cases_build(&all, 0);
    bench_case *cases = malloc(n_all * sizeof *cases);
    size_t n = 0;
    for (size_t i = 0; i < n_all; i++)
        if (selected(&o, &all[i])) cases[n++] = all[i];
    if (n == 0) {
        fprintf(stderr, "dmlcpu-bench: no case matches the filters\n");
        return 2;
    }
    if (o.list) {
        list_cases(cases, n, o.thread_count);
        return 0;
    }
    if (o.simulate_count) {
        int failed = simulate_threads(cases, n, o.simulate, o.simulate_count,
                                      o.repeat_set ? o.timing.repeat : 5);
        free(cases);
        free(all);
        return failed ? 1 : 0;
    }

    char cpu[256], date[64];
    cpu_model(cpu, sizeof cpu);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    double t0 = bench_now();
    load_mark run_start, run_end;
    load_mark_now(&run_start);
    printf("dmlcpu-bench  %s  %s, %d threads\n", date, cpu, bench_max_threads());
    double loadavg = load_average();
    if (loadavg >= 0.5)
        printf("the machine is busy: load average %.2f on %d CPUs before the run; expect noise\n",
               loadavg, bench_max_threads());
    printf("library isa: detected %s%s%s; ceiling kernel: %s; samples: >= %d and >= %g s\n",
           dmlcpu_isa_name(dmlcpu_detected_isa()), o.isa ? ", capped at " : "",
           o.isa ? o.isa : "", ceiling_isa(), o.timing.repeat, o.timing.min_time);

    int n_ceil;
    ceiling_result *ceil = measure_ceilings(&o, cases, n, &n_ceil);

    const int n_caps = o.cap_count ? o.cap_count : 1;
    case_result *res = calloc(n * (size_t)o.thread_count * n_caps, sizeof *res);
    int n_res = 0;
    size_t total = n * (size_t)o.thread_count * n_caps;
    dmlcpu_data_type current = DMLCPU_DATA_TYPE_UNKNOWN;
    void *pool = NULL;
    for (size_t i = 0; i < n; i++) {
        const bench_case *c = &cases[i];
        if (c->dtype != current) {
            /* One pool per type, filled once, large enough for every case of the type. */
            free(pool);
            uint64_t need = 4096;
            for (size_t j = i; j < n && cases[j].dtype == c->dtype; j++)
                if (cases[j].pool_bytes > need) need = cases[j].pool_bytes;
            pool = bench_alloc(need);
            fill_data(c->dtype, pool, need, (uint64_t)c->dtype);
            current = c->dtype;
            clear_progress();
            print_header(current);
        }
        /* every configuration of a case runs on the same input and output buffers, timed
         * side by side */
        const int k = o.thread_count * n_caps;
        progress((size_t)n_res, total, c, o.threads[o.thread_count - 1], t0);
        run_case(c, &o, k, pool, ceil, n_ceil, &res[n_res]);
        clear_progress();
        for (int i = 0; i < k; i++) print_row(&o, &res[n_res + i]);
        n_res += k;
    }
    free(pool);

    compute_scaling(res, n_res);
    print_scaling(&o, res, n_res);
    if (o.cap_count) {
        isa_sample *v = calloc((size_t)n_res, sizeof *v);
        for (int i = 0; i < n_res; i++)
            v[i] = (isa_sample){res[i].c, res[i].threads, res[i].cap, !res[i].message,
                                res[i].isa, res[i].t.median, median_spread(&res[i].t)};
        isa_compare_print(o.cap_names, o.cap_count, v, n_res);
        free(v);
    }
    int failed = print_summary(&o, res, n_res);
    load_mark_now(&run_end);
    double other = load_other(&run_start, &run_end);
    int busy = 0;
    for (int i = 0; i < n_res; i++) busy += res[i].other_load >= BUSY_CPUS;
    printf(", %.1f s\n", bench_now() - t0);
    if (other >= 0)
        printf("other processes kept %.2f of %d CPUs busy on average; %d cases marked '!' "
               "(>= %.1f CPU busy elsewhere while they ran)\n",
               other, bench_max_threads(), busy, BUSY_CPUS);

    if (o.json) {
        write_json(o.json, &o, cpu, date, other, ceil, n_ceil, res, n_res);
        printf("wrote %s\n", o.json);
    }
    for (int i = 0; i < n_res; i++) {
        free(res[i].message);
        free(res[i].t.samples);
    }
    for (int i = 0; i < n_ceil; i++) free(ceil[i].t.samples);
    free(res);
    free(ceil);
    free(cases);
    free(all);
    return failed ? 1 : 0;
}
