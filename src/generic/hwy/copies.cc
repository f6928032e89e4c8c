// The portable tier's copies: strided copies and zero fills, written once with Highway.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "generic/hwy/copies.cc"
#include <hwy/foreach_target.h> // IWYU pragma: keep

#include <hwy/highway.h>

#include "kernels.h"

HWY_BEFORE_NAMESPACE();
namespace dmlcpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Writes n zero elements of type T at dst[i * dst_stride]: whole vectors when contiguous.
template <typename T>
void FillZero(void *dstv, ptrdiff_t dst_stride, size_t n)
{
    T *dst = static_cast<T *>(dstv);
    if (dst_stride != 1) {
        for (size_t i = 0; i < n; i++)
            dst[(ptrdiff_t)i * dst_stride] = 0;
        return;
    }
    const hn::ScalableTag<T> d;
    const size_t N = hn::Lanes(d);
    const auto zero = hn::Zero(d);
    size_t i = 0;
    for (; i + N <= n; i += N)
        hn::StoreU(zero, d, dst + i);
    for (; i < n; i++)
        dst[i] = 0;
}

void FillCopies(kernel_table *t)
{
    t->fill[0] = FillZero<uint8_t>;
    t->fill[1] = FillZero<uint16_t>;
    t->fill[2] = FillZero<uint32_t>;
    t->fill[3] = FillZero<uint64_t>;
}

} // namespace HWY_NAMESPACE
} // namespace dmlcpu
HWY_AFTER_NAMESPACE();
