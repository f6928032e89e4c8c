/*
 * The few Criterion macros tests/test_threads.c uses, for a build without Criterion: every
 * Test runs in this process, one after the other, and the first failed assertion prints its
 * message and exits 1. ThreadSanitizer's build (scripts/tsan.sh) uses it: Criterion runs each
 * test in a worker process whose shared arena cannot be mapped under TSan, and the threads TSan
 * has to watch are the test's own anyway.
 */
#ifndef DMLCPU_TESTS_INPROCESS_H
#define DMLCPU_TESTS_INPROCESS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct ip_test {
    const char *name;
    void (*fn)(void);
    struct ip_test *next;
} ip_test;

static ip_test *ip_tests, **ip_tail = &ip_tests;

#define Test(suite, name)                                                                      \
    static void suite##_##name(void);                                                          \
    __attribute__((constructor)) static void suite##_##name##_register(void)                   \
    {                                                                                          \
        static ip_test t = {#suite "::" #name, suite##_##name, NULL};                          \
        *ip_tail = &t;                                                                         \
        ip_tail = &t.next;                                                                     \
    }                                                                                          \
    static void suite##_##name(void)

__attribute__((noreturn)) static void
ip_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: assertion failed: %s\n  ", file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}
#define cr_assert(cond, ...) ((cond) ? (void)0 : ip_fail(__FILE__, __LINE__, #cond, "" __VA_ARGS__))
#define cr_assert_eq(a, b, ...) cr_assert((a) == (b), __VA_ARGS__)
#define cr_assert_gt(a, b, ...) cr_assert((a) > (b), __VA_ARGS__)
#define cr_assert_geq(a, b, ...) cr_assert((a) >= (b), __VA_ARGS__)
#define cr_assert_not_null(p, ...) cr_assert((p) != NULL, __VA_ARGS__)

int main(void)
{
    int n = 0;
    for (ip_test *t = ip_tests; t; t = t->next, n++) {
        printf("%s ...\n", t->name);
        fflush(stdout);
        t->fn();
    }
    printf("%d tests passed\n", n);
    return 0;
}

#endif /* DMLCPU_TESTS_INPROCESS_H */
