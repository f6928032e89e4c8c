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
#include <atomic>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"

namespace dmlcpu {
namespace {

// The targets of this build, best first. HWY_CHOOSE_* is nullptr for a target the build does
// not compile (another architecture, or one the compiler cannot target). Which of them the CPU
// runs comes from dispatch.c's own CPU reading (feature), not from Highway's run-time library:
// linking libhwy would add its start-up work (tens of milliseconds) to every program.
struct target_entry {
    int64_t bit;
    unsigned feature;
    const char *name;
    void (*fill)(kernel_table *);
};
const target_entry targets[] = {
    {HWY_AVX3, DISPATCH_PF_AVX3, "avx3", HWY_CHOOSE_AVX3(FillTable)},
    {HWY_AVX2, DISPATCH_PF_AVX2, "avx2", HWY_CHOOSE_AVX2(FillTable)},
    {HWY_SSE4, DISPATCH_PF_SSE4, "sse4", HWY_CHOOSE_SSE4(FillTable)},
    {HWY_SVE2, DISPATCH_PF_SVE2, "sve2", HWY_CHOOSE_SVE2(FillTable)},
    {HWY_SVE, DISPATCH_PF_SVE, "sve", HWY_CHOOSE_SVE(FillTable)},
    {HWY_NEON, DISPATCH_PF_NEON, "neon", HWY_CHOOSE_NEON(FillTable)},
};
constexpr int kTargets = sizeof targets / sizeof targets[0];

struct filled_tables {
    kernel_table table[kTargets];
    bool runs[kTargets]; // compiled, and the CPU supports it
    int named;           // index of DMLCPU_PORTABLE_TARGET's target, -1 when unset or unknown
};
filled_tables all_tables;
pthread_once_t all_tables_once = PTHREAD_ONCE_INIT;

void fill_all_tables()
{
    filled_tables &f = all_tables;
    memset(&f, 0, sizeof f);
    f.named = -1;
    const unsigned features = dispatch_portable_features();
    const char *want = getenv("DMLCPU_PORTABLE_TARGET");
    for (int i = 0; i < kTargets; i++) {
        f.table[i].isa = DMLCPU_ISA_PORTABLE;
        f.runs[i] = targets[i].fill && (features & targets[i].feature);
        if (f.runs[i])
            targets[i].fill(&f.table[i]);
        if (want && strcmp(want, targets[i].name) == 0)
            f.named = i;
    }
}

const filled_tables &tables()
{
    pthread_once(&all_tables_once, fill_all_tables);
    return all_tables;
}

// Index of the target dmlcpu_set_portable_target named, -1 when none.
std::atomic<int> api_named{-1};

// Index into targets of the target that runs at cap, or -1. The list is best first, so a
// named target (the environment's or the API's, whichever is lower) bounds it from above by
// its position.
int chosen(dmlcpu_isa cap)
{
    const filled_tables &f = tables();
    if (f.named >= 0 && !targets[f.named].fill)
        return -1; // a target of another architecture, or one this build lacks
    int first = f.named < 0 ? 0 : f.named;
    const int api = api_named.load(std::memory_order_relaxed);
    if (api > first)
        first = api;
    for (int i = first; i < kTargets; i++) {
        if (!f.runs[i] || (cap == DMLCPU_ISA_AVX2 && targets[i].bit == HWY_AVX3))
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

extern "C" int portable_set_target(const char *name)
{
    int index = -1;
    if (name && *name) {
        while (++index < dmlcpu::kTargets && strcmp(name, dmlcpu::targets[index].name) != 0) {
        }
        if (index == dmlcpu::kTargets || !dmlcpu::targets[index].fill)
            return -1;
    }
    dmlcpu::api_named.store(index, std::memory_order_relaxed);
    return 0;
}

extern "C" const char *portable_target_name(dmlcpu_isa cap)
{
    const int i = dmlcpu::chosen(cap);
    return i < 0 ? "none" : dmlcpu::targets[i].name;
}
#endif // HWY_ONCE
