// The portable tier's copies, written once with Highway: strided runs (SLICE with steps, JOIN,
// SPLIT), zero fills and SLICE_GRAD's expansion by 2. Copies
// move bits, so every target gives the same bytes whatever its vector length.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "generic/hwy/copies.cc"
#include <hwy/foreach_target.h> // IWYU pragma: keep

#include <hwy/highway.h>

#include <string.h>

#include "kernels.h"

HWY_BEFORE_NAMESPACE();
namespace dmlcpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ------------------------------------------------------------------------------ runs

// v's elements in reverse order. Highway 1.0.3 has Reverse of 1-byte lanes on SVE only: on x86
// and NEON the 2-byte lanes are reversed and the two bytes of each swapped.
template <class D, class V>
HWY_INLINE V ReverseLanes(D d, V v)
{
#if HWY_TARGET == HWY_SCALAR
    (void)d;
    return v; // one lane
#elif HWY_TARGET & (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128)
    return hn::Reverse(d, v);
#else
    if constexpr (sizeof(hn::TFromD<D>) == 1) {
        const hn::Repartition<uint16_t, D> d16;
        const auto r = hn::Reverse(d16, hn::BitCast(d16, v));
        return hn::BitCast(d, hn::Or(hn::ShiftLeft<8>(r), hn::ShiftRight<8>(r)));
    } else {
        return hn::Reverse(d, v);
    }
#endif
}

// Copies n elements: dst[i * ds] = src[i * ss] (copy_fn). Unit strides are memcpy; a
// unit-stride destination with a source step of -1, 2, 3 or 4 (SLICE with steps) is written a
// vector per store, the source read with whole vectors and reordered in registers: a reversal,
// or the first of Highway's de-interleaved loads (even elements: two loads and a shuffle per
// vector, where a gather costs a load per element). Any other strides, and the tails, take the
// element loop.
template <typename T>
void CopyRun(void *dstv, ptrdiff_t ds, const void *srcv, ptrdiff_t ss, size_t n)
{
    T *HWY_RESTRICT d = static_cast<T *>(dstv);
    const T *HWY_RESTRICT s = static_cast<const T *>(srcv);
    if (ds == 1 && ss == 1) {
        memcpy(d, s, n * sizeof(T));
        return;
    }
    const hn::ScalableTag<T> dt;
    const size_t N = hn::Lanes(dt);
    size_t i = 0;
    if (ds == 1 && ss == -1) { // d[i] = s[-i]: reads s[-i - (N - 1) .. -i]
        for (; i + N <= n; i += N)
            hn::StoreU(ReverseLanes(dt, hn::LoadU(dt, s - i - (N - 1))), dt, d + i);
    } else if (ds == 1 && ss == 2) {
        // d[i] = s[2i]. A vector reads s[2i .. 2i + 2N), so the last one must leave out
        // s[2n - 1]: i + N < n. Two stores a step halve the loop's own cost.
        hn::Vec<decltype(dt)> e0, o0, e1, o1;
        for (; i + 2 * N < n; i += 2 * N) {
            hn::LoadInterleaved2(dt, s + 2 * i, e0, o0);
            hn::LoadInterleaved2(dt, s + 2 * i + 2 * N, e1, o1);
            hn::StoreU(e0, dt, d + i);
            hn::StoreU(e1, dt, d + i + N);
        }
        for (; i + N < n; i += N) {
            hn::LoadInterleaved2(dt, s + 2 * i, e0, o0);
            hn::StoreU(e0, dt, d + i);
        }
    } else if (ds == 1 && ss == 3) { // reads s[3i .. 3i + 3N): i + N < n as above
        hn::Vec<decltype(dt)> v0, v1, v2;
        for (; i + N < n; i += N) {
            hn::LoadInterleaved3(dt, s + 3 * i, v0, v1, v2);
            hn::StoreU(v0, dt, d + i);
        }
    } else if (ds == 1 && ss == 4) { // reads s[4i .. 4i + 4N): i + N < n as above
        hn::Vec<decltype(dt)> v0, v1, v2, v3;
        for (; i + N < n; i += N) {
            hn::LoadInterleaved4(dt, s + 4 * i, v0, v1, v2, v3);
            hn::StoreU(v0, dt, d + i);
        }
    }
    for (; i < n; i++)
        d[(ptrdiff_t)i * ds] = s[(ptrdiff_t)i * ss];
}

// Writes n zero elements at dst[i * ds] (fill_fn): memset when contiguous.
template <typename T>
void FillZero(void *dstv, ptrdiff_t ds, size_t n)
{
    T *d = static_cast<T *>(dstv);
    if (ds == 1) {
        memset(d, 0, n * sizeof(T));
        return;
    }
    for (size_t i = 0; i < n; i++)
        d[(ptrdiff_t)i * ds] = 0;
}

// SLICE_GRAD with a window step of 2 (expand2_fn): dst[2i] = src[i * ss] for i < count, a zero
// after each but the last, 2 count - 1 elements in all. A unit-stride source is interleaved with
// a zero vector: each vector of the source gives two of the destination.
template <typename T>
void Expand2(void *dstv, const void *srcv, ptrdiff_t ss, size_t count)
{
    T *HWY_RESTRICT d = static_cast<T *>(dstv);
    const T *HWY_RESTRICT s = static_cast<const T *>(srcv);
    const hn::ScalableTag<T> dt;
    const size_t N = hn::Lanes(dt);
    const auto zero = hn::Zero(dt);
    size_t i = 0;
    if (ss == 1)
        for (; i + N < count; i += N) // writes d[2i .. 2i + 2N), within 2 count - 1
            hn::StoreInterleaved2(hn::LoadU(dt, s + i), zero, dt, d + 2 * i);
    for (; i < count; i++) {
        d[2 * i] = s[(ptrdiff_t)i * ss];
        if (i + 1 < count)
            d[2 * i + 1] = 0;
    }
}

void FillCopies(kernel_table *t)
{
    t->copy[0] = CopyRun<uint8_t>;
    t->copy[1] = CopyRun<uint16_t>;
    t->copy[2] = CopyRun<uint32_t>;
    t->copy[3] = CopyRun<uint64_t>;
    t->fill[0] = FillZero<uint8_t>;
    t->fill[1] = FillZero<uint16_t>;
    t->fill[2] = FillZero<uint32_t>;
    t->fill[3] = FillZero<uint64_t>;
    t->expand2[0] = Expand2<uint8_t>;
    t->expand2[1] = Expand2<uint16_t>;
    t->expand2[2] = Expand2<uint32_t>;
    t->expand2[3] = Expand2<uint64_t>;
}

} // namespace HWY_NAMESPACE
} // namespace dmlcpu
HWY_AFTER_NAMESPACE();
