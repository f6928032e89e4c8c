/* dmlcpu-bench --json FILE: the run as one JSON document (format "dmlcpu-bench 1"). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>

#include "report.h"

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

static void json_dims(FILE *f, const char *key, const uint32_t *d, uint32_t n)
{
    fprintf(f, ", \"%s\": [", key);
    for (uint32_t i = 0; i < n; i++) fprintf(f, "%s%u", i ? ", " : "", d[i]);
    fputc(']', f);
}

static void json_timing(FILE *f, const timing_result *t)
{
    fprintf(f, ", \"median_s\": %.6e, \"min_s\": %.6e, \"p25_s\": %.6e, \"p75_s\": %.6e",
            t->median, t->min, t->p25, t->p75);
    fprintf(f, ", \"calls_per_sample\": %d, \"samples_s\": [", t->calls_per_sample);
    for (int i = 0; i < t->sample_count; i++) fprintf(f, "%s%.4e", i ? ", " : "", t->samples[i]);
    fputc(']', f);
}

void write_json(const char *path, const options *o, const char *cpu, const char *date,
                       double other, const ceiling_result *ceil, int n_ceil,
                       const case_result *res, int n_res)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    struct utsname u;
    fprintf(f, "{\n  \"format\": \"dmlcpu-bench 1\",\n  \"date\": \"%s\",\n", date);
    fputs("  \"machine\": {\"cpu\": ", f);
    json_string(f, cpu);
    fprintf(f, ", \"arch\": \"%s\", \"threads\": %d, \"detected_isa\": \"%s\", "
               "\"ceiling_isa\": \"%s\"},\n",
            uname(&u) == 0 ? u.machine : "unknown", bench_max_threads(),
            dmlcpu_isa_name(dmlcpu_detected_isa()), ceiling_isa());
    fputs("  \"options\": {\"isa\": ", f);
    json_string(f, o->isa ? o->isa : (getenv("DMLCPU_ISA") ? getenv("DMLCPU_ISA") : ""));
    fprintf(f, ", \"threads\": [");
    for (int i = 0; i < o->thread_count; i++) fprintf(f, "%s%d", i ? ", " : "", o->threads[i]);
    fprintf(f, "], \"repeat\": %d, \"min_time_s\": %g, \"quick\": %s},\n", o->timing.repeat,
            o->timing.min_time, o->quick ? "true" : "false");
    fprintf(f, "  \"other_load\": %.2f,\n", other);
    fputs("  \"ceilings\": [\n", f);
    for (int i = 0; i < n_ceil; i++) {
        const ceiling_result *c = &ceil[i];
        fprintf(f, "    {\"kind\": \"%s\", \"bytes\": %llu, \"threads\": %d, \"gbps\": %.4f",
                c->kind == CEIL_READ ? "read" : "memcpy", (unsigned long long)c->bytes,
                c->threads, c->gbps);
        if (c->other_load >= 0) fprintf(f, ", \"other_load\": %.2f", c->other_load);
        json_timing(f, &c->t);
        fprintf(f, "}%s\n", i + 1 < n_ceil ? "," : "");
    }
    fputs("  ],\n  \"cases\": [\n", f);
    for (int i = 0; i < n_res; i++) {
        const case_result *r = &res[i];
        const bench_case *c = r->c;
        fputs("    {\"op\": ", f);
        json_string(f, c->op);
        fprintf(f, ", \"family\": \"%s\", \"pattern\": ", c->family);
        json_string(f, c->pattern);
        fprintf(f, ", \"size\": \"%s\", \"dtype\": \"%s\", \"threads\": %d", c->size,
                dtype_name(c->dtype), r->threads);
        json_dims(f, "in_shape", c->shape, c->rank);
        json_dims(f, "out_shape", c->out_shape, c->out_rank);
        json_dims(f, "axes", c->axes, c->axis_count);
        fprintf(f, ", \"bytes\": %llu, \"elements\": %llu, \"status\": \"%s\"",
                (unsigned long long)c->bytes, (unsigned long long)c->elements,
                dmlcpu_status_string(r->status));
        if (r->message) {
            fputs(", \"message\": ", f);
            json_string(f, r->message);
        }
        if (r->other_load >= 0) fprintf(f, ", \"other_load\": %.2f", r->other_load);
        if (r->status == DMLCPU_STATUS_OK && !r->message) {
            fprintf(f, ", \"isa\": \"%s\", \"gbps\": %.4f, \"elements_per_s\": %.6e", r->isa,
                    r->gbps, r->eps);
            if (o->cap_count) fprintf(f, ", \"cap\": \"%s\"", o->cap_names[r->cap]);
            if (c->ceiling != CEIL_NONE)
                fprintf(f, ", \"ceiling\": \"%s\", \"ceiling_gbps\": %.4f, \"fraction\": %.4f",
                        c->ceiling == CEIL_READ ? "read" : "memcpy", r->ceiling_gbps, r->fraction);
            json_timing(f, &r->t);
            if (r->speedup > 0) fprintf(f, ", \"speedup_vs_1\": %.4f", r->speedup);
        }
        fprintf(f, "}%s\n", i + 1 < n_res ? "," : "");
    }
    fputs("  ]\n}\n", f);
    fclose(f);
}
