/*
 * The level check every test program makes first: DMLCPU_ISA names the ISA level a run is for,
 * and a level this CPU (or emulator) lacks is reported as skipped (exit 77, ctest's
 * SKIP_RETURN_CODE) instead of silently running at a lower level. DMLCPU_PORTABLE_TARGET names
 * the Highway target a run of the portable level is for, checked the same way.
 */
#ifndef DMLCPU_TESTS_LEVELS_H
#define DMLCPU_TESTS_LEVELS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dmlcpu.h>

/* 0: run (DMLCPU_ISA unset or available); 77: skip (message printed); 2: not a level name. */
static inline int tu_check_isa_level(void)
{
    static const struct {
        const char *name;
        dmlcpu_isa level;
        int on_x86, on_arm;
    } levels[] = {
        {"scalar", DMLCPU_ISA_SCALAR, 1, 1}, {"portable", DMLCPU_ISA_PORTABLE, 1, 1},
        {"avx2", DMLCPU_ISA_AVX2, 1, 0},     {"avx512", DMLCPU_ISA_AVX512, 1, 0},
        {"neon", DMLCPU_ISA_NEON, 0, 1},
    };
#if defined(__x86_64__) || defined(__i386__)
    const int x86 = 1;
#else
    const int x86 = 0;
#endif
    const char *isa = getenv("DMLCPU_ISA");
    if (!isa || !*isa)
        return 0;
    size_t i = 0;
    while (i < sizeof levels / sizeof levels[0] && strcmp(levels[i].name, isa) != 0)
        i++;
    if (i == sizeof levels / sizeof levels[0]) {
        fprintf(stderr, "DMLCPU_ISA=%s is not an ISA level\n", isa);
        return 2;
    }
    const dmlcpu_isa detected = dmlcpu_detected_isa();
    if (!(x86 ? levels[i].on_x86 : levels[i].on_arm) || levels[i].level > detected) {
        printf("skipped: DMLCPU_ISA=%s is not available here (detected %s)\n", isa,
               dmlcpu_isa_name(detected));
        return 77;
    }
    /* A run of the portable level for one Highway target: skipped when that target does not
     * run here (the CPU lacks it, or the build does not compile it). */
    const char *target = getenv("DMLCPU_PORTABLE_TARGET");
    if (target && *target && strcmp(target, dmlcpu_portable_target()) != 0) {
        printf("skipped: DMLCPU_PORTABLE_TARGET=%s does not run here (the portable level runs %s)\n",
               target, dmlcpu_portable_target());
        return 77;
    }
    return 0;
}

/* A level as the tests name it: "scalar", "portable", "avx2", "avx512", "neon", or
 * "portable_<target>", the portable level capped at one Highway target. */
typedef struct {
    char name[24];  /* as given, for messages */
    dmlcpu_isa isa; /* the cap */
    char target[8]; /* the Highway target of portable_<target>, else "" */
} tu_level;

/* Parses name into lv; 0 when it is not a level name. */
static inline int tu_parse_level(const char *name, tu_level *lv)
{
    static const char *const isa_names[] = {"scalar", "portable", "avx2", "avx512", "neon"};
    memset(lv, 0, sizeof *lv);
    if (strlen(name) >= sizeof lv->name)
        return 0;
    strcpy(lv->name, name);
    if (strncmp(name, "portable_", 9) == 0) {
        if (!name[9] || strlen(name + 9) >= sizeof lv->target)
            return 0;
        strcpy(lv->target, name + 9);
        lv->isa = DMLCPU_ISA_PORTABLE;
        return 1;
    }
    for (int i = 0; i < 5; i++)
        if (strcmp(name, isa_names[i]) == 0) {
            lv->isa = (dmlcpu_isa)i;
            return 1;
        }
    return 0;
}

/* Caps the library at lv for operators created afterwards (dmlcpu_set_max_isa and
 * dmlcpu_set_portable_target); 1 when this CPU and build run lv as named, 0 otherwise (the
 * caps are then undefined: apply another level). */
static inline int tu_apply_level(const tu_level *lv)
{
    if (dmlcpu_set_max_isa(lv->isa) != DMLCPU_STATUS_OK || dmlcpu_detected_isa() < lv->isa)
        return 0;
    if (dmlcpu_set_portable_target(lv->target) != DMLCPU_STATUS_OK)
        return 0;
    return !lv->target[0] || strcmp(dmlcpu_portable_target(), lv->target) == 0;
}

#endif /* DMLCPU_TESTS_LEVELS_H */
