// The portable tier's shim: one kernel table per Highway target, exported to C (portable.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "generic/hwy/portable.cc"
#include <hwy/foreach_target.h> // IWYU pragma: keep

#include <hwy/highway.h>

#include "generic/hwy/portable.h"

HWY_BEFORE_NAMESPACE();
namespace dmlcpu {
namespace HWY_NAMESPACE {
#include "generic/hwy/families.h"

void FillTable(kernel_table *t)
{
    FillSums(t);
    FillFree(t);
    FillCopies(t);
}
} // namespace HWY_NAMESPACE
} // namespace dmlcpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <stdlib.h>
#include <string.h>

namespace dmlcpu {
namespace {

// The targets of this build, best first. HWY_CHOOSE_* is nullptr for a target the build does
// not compile (another architecture, or one the compiler cannot target).
struct target_entry {
    int64_t bit;
    const char *name;
    void (*fill)(kernel_table *);
};
const target_entry targets[] = {
    {HWY_AVX3, "avx3", HWY_CHOOSE_AVX3(FillTable)},
    {HWY_AVX2, "avx2", HWY_CHOOSE_AVX2(FillTable)},
    {HWY_SSE4, "sse4", HWY_CHOOSE_SSE4(FillTable)},
    {HWY_SVE2, "sve2", HWY_CHOOSE_SVE2(FillTable)},
    {HWY_SVE, "sve", HWY_CHOOSE_SVE(FillTable)},
    {HWY_NEON, "neon", HWY_CHOOSE_NEON(FillTable)},
};
constexpr int kTargets = sizeof targets / sizeof targets[0];

struct filled_tables {
    kernel_table table[kTargets];
    bool runs[kTargets]; // compiled, and the CPU supports it
    int64_t named_max;   // DMLCPU_PORTABLE_TARGET's bit, 0 when unset or unknown
};

const filled_tables &tables()
{
    // A function-local static: initialised once, thread-safe.
    static const filled_tables all = [] {
        filled_tables f;
        memset(&f, 0, sizeof f);
        const int64_t supported = hwy::SupportedTargets();
        const char *want = getenv("DMLCPU_PORTABLE_TARGET");
        for (int i = 0; i < kTargets; i++) {
            f.table[i].isa = DMLCPU_ISA_PORTABLE;
            f.runs[i] = targets[i].fill && (supported & targets[i].bit);
            if (f.runs[i])
                targets[i].fill(&f.table[i]);
            if (want && strcmp(want, targets[i].name) == 0)
                f.named_max = targets[i].bit;
        }
        return f;
    }();
    return all;
}

// Index into targets of the target that runs at cap, or -1.
int chosen(dmlcpu_isa cap)
{
    const filled_tables &f = tables();
    for (int i = 0; i < kTargets; i++) {
        const int64_t bit = targets[i].bit;
        if (!f.runs[i])
            continue;
        if (cap == DMLCPU_ISA_AVX2 && bit == HWY_AVX3)
            continue;
        // Highway numbers better targets with lower bits.
        if (f.named_max && bit < f.named_max)
            continue;
        return i;
    }
    return -1;
}

} // namespace
} // namespace dmlcpu

extern "C" const kernel_table *portable_kernels(dmlcpu_isa cap)
{
    const int i = dmlcpu::chosen(cap);
    return i < 0 ? nullptr : &dmlcpu::tables().table[i];
}

extern "C" const char *portable_target_name(dmlcpu_isa cap)
{
    const int i = dmlcpu::chosen(cap);
    return i < 0 ? "none" : dmlcpu::targets[i].name;
}
#endif // HWY_ONCE
