/* CPU detection (once), the cap and the kernel tables.
 *
 * Levels: x86 scalar < portable < avx2 < avx512; arm scalar < portable < neon. The cap is
 * min(detected, DMLCPU_ISA, dmlcpu_set_max_isa()); asking for more than the CPU has is clamped. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "generic/hwy/portable.h"
#include "tensor.h"

#if defined(__x86_64__) || defined(__i386__)
#define DMLCPU_X86 1
#include <cpuid.h>
#elif defined(__aarch64__)
#define DMLCPU_ARM 1
#include <sys/auxv.h>
/* Linux's AT_HWCAP / AT_HWCAP2 bits for AArch64, for C libraries whose headers predate them. */
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1ul << 1)
#endif
#ifndef HWCAP_SVE
#define HWCAP_SVE (1ul << 22)
#endif
#ifndef HWCAP2_SVE2
#define HWCAP2_SVE2 (1ul << 1)
#endif
#endif

static bool isa_of_this_arch(dmlcpu_isa isa)
{
    switch (isa) {
    case DMLCPU_ISA_SCALAR:
    case DMLCPU_ISA_PORTABLE:
        return true;
#if defined(DMLCPU_X86)
    case DMLCPU_ISA_AVX2:
    case DMLCPU_ISA_AVX512:
        return true;
#elif defined(DMLCPU_ARM)
    case DMLCPU_ISA_NEON:
        return true;
#endif
    default:
        return false;
    }
}

/* Orders levels within this architecture (NEON ranks above PORTABLE like AVX2 does). */
static int isa_rank(dmlcpu_isa isa)
{
    switch (isa) {
    case DMLCPU_ISA_SCALAR: return 0;
    case DMLCPU_ISA_PORTABLE: return 1;
    case DMLCPU_ISA_AVX2: return 2;
    case DMLCPU_ISA_NEON: return 2;
    case DMLCPU_ISA_AVX512: return 3;
    }
    return 0;
}

static dmlcpu_isa isa_min(dmlcpu_isa a, dmlcpu_isa b) { return isa_rank(a) <= isa_rank(b) ? a : b; }

#if defined(DMLCPU_X86)
static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}
#endif

/* The CPU's features as DISPATCH_PF_* bits plus the best hand-written level, read once. */
typedef struct {
    dmlcpu_isa level;
    unsigned portable;
} cpu_features;

static cpu_features read_cpu(void)
{
    cpu_features f = {DMLCPU_ISA_PORTABLE, 0};
#if defined(DMLCPU_X86)
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return f;
    bool ssse3 = c & (1u << 9), sse41 = c & (1u << 19), sse42 = c & (1u << 20);
    bool osxsave = c & (1u << 27), fma = c & (1u << 12), f16c = c & (1u << 29), avx = c & (1u << 28);
    if (ssse3 && sse41 && sse42)
        f.portable |= DISPATCH_PF_SSE4;
    if (!osxsave || !avx)
        return f;
    uint64_t xcr0 = read_xcr0();
    if ((xcr0 & 0x6) != 0x6) /* XMM and YMM state enabled by the OS */
        return f;
    if (__get_cpuid_max(0, 0) < 7)
        return f;
    __cpuid_count(7, 0, a, b, c, d);
    bool avx2 = b & (1u << 5), bmi1 = b & (1u << 3), bmi2 = b & (1u << 8);
    if (!(avx2 && fma && f16c))
        return f;
    f.level = DMLCPU_ISA_AVX2;
    if (bmi1 && bmi2 && (f.portable & DISPATCH_PF_SSE4))
        f.portable |= DISPATCH_PF_AVX2;
    bool f512 = b & (1u << 16), dq = b & (1u << 17), bw = b & (1u << 30), vl = b & (1u << 31);
    bool zmm_state = (xcr0 & 0xe6) == 0xe6; /* opmask, ZMM_Hi256, Hi16_ZMM */
    if (f512 && dq && bw && vl && zmm_state) {
        f.level = DMLCPU_ISA_AVX512;
        if (f.portable & DISPATCH_PF_AVX2)
            f.portable |= DISPATCH_PF_AVX3;
    }
#elif defined(DMLCPU_ARM)
    /* Advanced SIMD is mandatory in the AArch64 Linux ABI, but the kernel says so explicitly
     * and a CPU or emulator without it must not run NEON code. */
    unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
    if (hwcap & HWCAP_ASIMD) {
        f.level = DMLCPU_ISA_NEON;
        f.portable |= DISPATCH_PF_NEON;
        if (hwcap & HWCAP_SVE) {
            f.portable |= DISPATCH_PF_SVE;
            if (hwcap2 & HWCAP2_SVE2)
                f.portable |= DISPATCH_PF_SVE2;
        }
    }
#endif
    return f;
}

static bool parse_isa(const char *s, dmlcpu_isa *out)
{
    static const struct { const char *name; dmlcpu_isa isa; } names[] = {
        {"scalar", DMLCPU_ISA_SCALAR}, {"portable", DMLCPU_ISA_PORTABLE},
        {"avx2", DMLCPU_ISA_AVX2},     {"avx512", DMLCPU_ISA_AVX512},
        {"neon", DMLCPU_ISA_NEON},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0) {
            *out = names[i].isa;
            return true;
        }
    return false;
}

/* -1 = not read yet. Each is written once with the same value by any racing thread. */
static _Atomic int detected_isa = -1;
static _Atomic int portable_features = -1;
static _Atomic int env_cap = -1;
static _Atomic int api_cap = -1; /* -1: no cap */

dmlcpu_isa dmlcpu_detected_isa(void)
{
    int v = atomic_load(&detected_isa);
    if (v < 0) {
        v = (int)read_cpu().level;
        atomic_store(&detected_isa, v);
    }
    return (dmlcpu_isa)v;
}

unsigned dispatch_portable_features(void)
{
    int v = atomic_load(&portable_features);
    if (v < 0) {
        v = (int)read_cpu().portable;
        atomic_store(&portable_features, v);
    }
    return (unsigned)v;
}

static dmlcpu_isa env_isa(void)
{
    int v = atomic_load(&env_cap);
    if (v < 0) {
        dmlcpu_isa isa = dmlcpu_detected_isa();
        const char *s = getenv("DMLCPU_ISA");
        dmlcpu_isa parsed;
        /* An unknown name or a level of the other architecture leaves the level uncapped. */
        if (s && parse_isa(s, &parsed) && isa_of_this_arch(parsed))
            isa = parsed;
        v = (int)isa;
        atomic_store(&env_cap, v);
    }
    return (dmlcpu_isa)v;
}

dmlcpu_status dmlcpu_set_max_isa(dmlcpu_isa isa)
{
    if ((unsigned)isa > DMLCPU_ISA_NEON || !isa_of_this_arch(isa))
        return set_error(DMLCPU_STATUS_INVALID_ARGUMENT,
                         "dmlcpu_set_max_isa: isa is %d, not a level of this CPU architecture",
                         (int)isa);
    atomic_store(&api_cap, (int)isa);
    return DMLCPU_STATUS_OK;
}

dmlcpu_isa dispatch_cap(void)
{
    dmlcpu_isa cap = isa_min(dmlcpu_detected_isa(), env_isa());
    int api = atomic_load(&api_cap);
    if (api >= 0)
        cap = isa_min(cap, (dmlcpu_isa)api);
    return cap;
}

const char *dmlcpu_isa_name(dmlcpu_isa isa)
{
    switch (isa) {
    case DMLCPU_ISA_SCALAR: return "scalar";
    case DMLCPU_ISA_PORTABLE: return "portable";
    case DMLCPU_ISA_AVX2: return "avx2";
    case DMLCPU_ISA_AVX512: return "avx512";
    case DMLCPU_ISA_NEON: return "neon";
    }
    return "unknown";
}

int dispatch_tables(dmlcpu_isa cap, const kernel_table **out)
{
    /* Every table of this build, best first; a table is used when the cap reaches its level. */
    static const kernel_table *const all[] = {
#if defined(DMLCPU_HAVE_X86_TABLES)
        &dmlcpu_kernels_avx512, &dmlcpu_kernels_avx512_free,
        &dmlcpu_kernels_avx2,   &dmlcpu_kernels_avx2_free,
#endif
#if defined(DMLCPU_HAVE_ARM_TABLES)
        &dmlcpu_kernels_neon, &dmlcpu_kernels_neon_free, &dmlcpu_kernels_neon_copy,
#endif
    };
    int n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (isa_rank(all[i]->isa) <= isa_rank(cap) && isa_of_this_arch(all[i]->isa))
            out[n++] = all[i];
    /* The portable tier (Highway), below every hand-written tier, above scalar. */
#if defined(DMLCPU_HAVE_PORTABLE)
    if (isa_rank(cap) >= isa_rank(DMLCPU_ISA_PORTABLE)) {
        const kernel_table *portable = portable_kernels(cap);
        if (portable)
            out[n++] = portable;
    }
#endif
    out[n++] = &dmlcpu_kernels_scalar;
    return n;
}

dmlcpu_status dmlcpu_set_portable_target(const char *name)
{
#if defined(DMLCPU_HAVE_PORTABLE)
    if (portable_set_target(name) == 0)
        return DMLCPU_STATUS_OK;
#else
    if (!name || !*name)
        return DMLCPU_STATUS_OK;
#endif
    return set_error(DMLCPU_STATUS_INVALID_ARGUMENT,
                     "dmlcpu_set_portable_target: name is \"%s\", not a Highway target this build "
                     "compiles for this CPU architecture",
                     name);
}

const char *dmlcpu_portable_target(void)
{
#if defined(DMLCPU_HAVE_PORTABLE)
    dmlcpu_isa cap = dispatch_cap();
    if (isa_rank(cap) >= isa_rank(DMLCPU_ISA_PORTABLE))
        return portable_target_name(cap);
#endif
    return "none";
}
