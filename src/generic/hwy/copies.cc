// The portable tier's copies, written once with Highway: strided runs (SLICE with steps, JOIN,
// SPLIT), zero fills, SLICE_GRAD's expansion by 2 and the transposed tiles of IDENTITY. Copies
// move bits, so every target gives the same bytes whatever its vector length.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "generic/hwy/copies.cc"
#include <hwy/foreach_target.h> // IWYU pragma: keep

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <stdlib.h>
#include <string.h>
#if HWY_ARCH_X86
#include <cpuid.h>
#endif

#include "kernels.h"

HWY_BEFORE_NAMESPACE();
namespace dmlcpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ------------------------------------------------------------------------------ runs

// v's elements in reverse order. Highway 1.0.3 has Reverse of 1-byte lanes on SVE only, and
// reverses 2-byte lanes on x86 and NEON in three steps: there, 1- and 2-byte lanes are reversed
// within each 16-byte block by one byte shuffle, then the blocks are reversed (one permute on
// AVX2 and AVX3, nothing on 16-byte vectors).
template <class D, class V>
HWY_INLINE V ReverseLanes(D d, V v)
{
#if HWY_TARGET == HWY_SCALAR
    (void)d;
    return v; // one lane
#elif HWY_TARGET & (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128)
    return hn::Reverse(d, v);
#else
    if constexpr (sizeof(hn::TFromD<D>) <= 2) {
        // byte j of a block comes from byte 15 - j, or (15 - j) ^ 1 to keep 2-byte lanes whole
        const hn::Repartition<uint8_t, D> d8;
        const auto k15 = hn::Set(d8, 15);
        const auto from = hn::Xor(hn::Xor(hn::And(hn::Iota(d8, 0), k15), k15),
                                  hn::Set(d8, sizeof(hn::TFromD<D>) - 1));
        return hn::ReverseBlocks(d, hn::BitCast(d, hn::TableLookupBytes(hn::BitCast(d8, v), from)));
    } else {
        return hn::Reverse(d, v);
    }
#endif
}

// Copies n elements: dst[i * ds] = src[i * ss] (copy_fn). Unit strides are memcpy; a
// unit-stride destination with a source step of -1, 2, 3 or 4 (SLICE with steps) is written a
// vector per store, the source read with whole vectors and reordered in registers: a reversal,
// or the first of Highway's de-interleaved loads (even elements: two loads and a shuffle per
// vector, where a gather costs a load per element). The last vector of such a run ends at the
// run's end, overlapping the one before (RunEnd), and runs shorter than a vector take 16-byte
// vectors, so that only runs shorter than 16 bytes go element by element: the bench's rows of
// 512 FLOAT32 left 16 elements to the element loop at step 2, 1024 UINT8 64. Any other strides
// take the element loop. STREAM (copies larger than the caches, kernels.h): runs of at least
// kStreamRunBytes into a unit-stride destination, contiguous ones included, are written with
// non-temporal vector stores from the first vector-aligned element of the destination on, the
// head and tail element by element (an ordinary store into a line written non-temporally
// brings it back from memory); the caller fences once per task (stream_fence). Against memcpy
// per run, one process alternating both (medians of 41, Zen 4, AVX3): UINT8 JOIN of four
// [4096, 1024] parts 2.6 -> 0.85 ms, FLOAT32 JOIN of four [4096, 1024] 7.1 -> 4.0 ms, UINT8
// SPLIT the other way 3.7 -> 1.6 ms.
constexpr size_t kStreamRunBytes = 1024;
template <bool STREAM, class D, class V, typename T>
HWY_INLINE void StoreTo(D d, V v, T *HWY_RESTRICT p)
{
    if constexpr (STREAM)
        hn::Stream(v, d, p);
    else
        hn::StoreU(v, d, p);
}
template <bool STREAM, class D, typename T>
HWY_INLINE void StridedRuns(D dt, T *HWY_RESTRICT d, const T *HWY_RESTRICT s, ptrdiff_t ss,
                            size_t &i, size_t n)
{
    const size_t N = hn::Lanes(dt);
    if (ss == 1) {
        if constexpr (STREAM) {
            // four vectors a step, the loads ahead of their non-temporal stores: SPLIT of a
            // 64 MiB tensor into four parts (pieces of 4 KiB of each source row), one process
            // alternating both in either order (Zen 5): FLOAT16 1.07-1.11x, FLOAT32 1.08-1.11x,
            // FLOAT64 1.17-1.26x; JOIN the other way 0.97-1.0x. The loop of one vector a step
            // also swung by 12% with where the linker put it.
            for (; i + 4 * N <= n; i += 4 * N) {
                const auto v0 = hn::LoadU(dt, s + i), v1 = hn::LoadU(dt, s + i + N);
                const auto v2 = hn::LoadU(dt, s + i + 2 * N), v3 = hn::LoadU(dt, s + i + 3 * N);
                StoreTo<STREAM>(dt, v0, d + i);
                StoreTo<STREAM>(dt, v1, d + i + N);
                StoreTo<STREAM>(dt, v2, d + i + 2 * N);
                StoreTo<STREAM>(dt, v3, d + i + 3 * N);
            }
        }
        for (; i + N <= n; i += N)
            StoreTo<STREAM>(dt, hn::LoadU(dt, s + i), d + i);
    } else if (ss == -1) { // d[i] = s[-i]: reads s[-i - (N - 1) .. -i]
        if constexpr (STREAM) {
            // from the destination's last vector down, so that the source is read upwards:
            // from memory, the descending read ran at two thirds of the ascending one's speed.
            // SLICE reversing each row, one process alternating both in either order (Zen 5):
            // FLOAT32 4096 x 4096 1.55-1.59x, FLOAT16 4096 x 8192 1.68-1.71x, FLOAT64 4096 x
            // 2048 1.54x, FLOAT32 4000 x 4100 1.41x, UINT8 4096 x 4096 1.11-1.14x faster. In
            // cache the upward walk of the destination stays: there it was 4-11% faster.
            const size_t m = (n - i) / N;
            for (size_t k = m; k-- > 0;) {
                const size_t j = i + k * N;
                StoreTo<STREAM>(dt, ReverseLanes(dt, hn::LoadU(dt, s - j - (N - 1))), d + j);
            }
            i += m * N;
        } else {
            for (; i + N <= n; i += N)
                StoreTo<STREAM>(dt, ReverseLanes(dt, hn::LoadU(dt, s - i - (N - 1))), d + i);
        }
    } else if (ss == 2) {
        // d[i] = s[2i]. A vector reads s[2i .. 2i + 2N), so the last one must leave out
        // s[2n - 1]: i + N < n. Two stores a step halve the loop's own cost.
        hn::Vec<D> e0, o0, e1, o1;
        for (; i + 2 * N < n; i += 2 * N) {
            hn::LoadInterleaved2(dt, s + 2 * i, e0, o0);
            hn::LoadInterleaved2(dt, s + 2 * i + 2 * N, e1, o1);
            StoreTo<STREAM>(dt, e0, d + i);
            StoreTo<STREAM>(dt, e1, d + i + N);
        }
        for (; i + N < n; i += N) {
            hn::LoadInterleaved2(dt, s + 2 * i, e0, o0);
            StoreTo<STREAM>(dt, e0, d + i);
        }
    } else if (ss == 3) { // reads s[3i .. 3i + 3N): i + N < n as above
        hn::Vec<D> v0, v1, v2;
        for (; i + N < n; i += N) {
            hn::LoadInterleaved3(dt, s + 3 * i, v0, v1, v2);
            StoreTo<STREAM>(dt, v0, d + i);
        }
    } else if (ss == 4) { // reads s[4i .. 4i + 4N): i + N < n as above
        hn::Vec<D> v0, v1, v2, v3;
        for (; i + N < n; i += N) {
            hn::LoadInterleaved4(dt, s + 4 * i, v0, v1, v2, v3);
            StoreTo<STREAM>(dt, v0, d + i);
        }
    }
}
// The last vector of a run (ordinary stores), d[n - N .. n), when the run holds one: a source
// step k of 2 to 4 reads its de-interleaved vectors from k - 1 elements earlier and keeps the
// last of them, so that no element past s[k (n - 1)] is read (the run needs n > N). Returns
// whether it wrote.
template <class D, typename T>
HWY_INLINE bool RunEnd(D dt, T *HWY_RESTRICT d, const T *HWY_RESTRICT s, ptrdiff_t ss, size_t n)
{
    const size_t N = hn::Lanes(dt);
    if (n < N || (ss >= 2 && n == N))
        return false;
    const size_t j = n - N;
    hn::Vec<D> v0, v1, v2, v3;
    if (ss == 1) {
        v0 = hn::LoadU(dt, s + j);
    } else if (ss == -1) {
        v0 = ReverseLanes(dt, hn::LoadU(dt, s - j - (N - 1)));
    } else if (ss == 2) {
        hn::LoadInterleaved2(dt, s + 2 * j - 1, v1, v0);
    } else if (ss == 3) {
        hn::LoadInterleaved3(dt, s + 3 * j - 2, v1, v2, v0);
    } else {
        hn::LoadInterleaved4(dt, s + 4 * j - 3, v1, v2, v3, v0);
    }
    hn::StoreU(v0, dt, d + j);
    return true;
}
template <typename T, bool STREAM>
void CopyRun(void *dstv, ptrdiff_t ds, const void *srcv, ptrdiff_t ss, size_t n)
{
    T *HWY_RESTRICT d = static_cast<T *>(dstv);
    const T *HWY_RESTRICT s = static_cast<const T *>(srcv);
    const bool runs = ds == 1 && (ss == 1 || ss == -1 || (ss >= 2 && ss <= 4));
    const hn::ScalableTag<T> dt;
    size_t i = 0;
    if constexpr (STREAM) {
        if (runs && n * sizeof(T) >= kStreamRunBytes && (uintptr_t)d % sizeof(T) == 0) {
            const size_t bytes = hn::Lanes(dt) * sizeof(T);
            const size_t head = (size_t)(-(uintptr_t)d & (bytes - 1)) / sizeof(T);
            for (; i < head; i++)
                d[i] = s[(ptrdiff_t)i * ss];
            StridedRuns<true>(dt, d, s, ss, i, n);
            for (; i < n; i++)
                d[i] = s[(ptrdiff_t)i * ss];
            return;
        }
    }
    if (ds == 1 && ss == 1) {
        memcpy(d, s, n * sizeof(T));
        return;
    }
    if (runs) {
        StridedRuns<false>(dt, d, s, ss, i, n);
        if (i < n && RunEnd(dt, d, s, ss, n))
            return;
        // shorter than a vector: 16-byte vectors where the target's are wider
        const hn::CappedTag<T, 16 / sizeof(T)> dq;
        if (i == 0 && hn::Lanes(dq) < hn::Lanes(dt)) {
            StridedRuns<false>(dq, d, s, ss, i, n);
            if (i < n && RunEnd(dq, d, s, ss, n))
                return;
        }
    }
    for (; i < n; i++)
        d[(ptrdiff_t)i * ds] = s[(ptrdiff_t)i * ss];
}

#if HWY_TARGET != HWY_SCALAR
// Rows of contiguous bytes (copy_block_fn), all in one call: two vectors a step, then one, and
// a last vector that ends at the row's end, overlapping what is already written with the same
// bytes. Rows shorter than the target's vectors take 16-byte ones, rows shorter than 16 bytes
// memcpy. Against a call of CopyRun (and so of memcpy) per row, one process alternating both
// builds in either order (medians of 41 each, Zen 5, AVX3), JOIN of four parts into 512 KiB:
// FLOAT16 [512, 128] (256-byte runs) 1.39x, UINT8 [512, 256] 1.34x, FLOAT32 [256, 128] 1.03x,
// FLOAT64 [256, 64] 1.06x, FLOAT32 [250, 125] 1.11x; SPLIT the other way 1.40, 1.35, 1.06,
// 1.04 and 1.11x.
template <class D>
HWY_INLINE void BlockRows(D d8, uint8_t *HWY_RESTRICT d, ptrdiff_t dp, const uint8_t *HWY_RESTRICT s,
                          ptrdiff_t sp, size_t bytes, size_t rows)
{
    const size_t N = hn::Lanes(d8);
    for (size_t r = 0; r < rows; r++, d += dp, s += sp) {
        size_t i = 0;
        for (; i + 2 * N <= bytes; i += 2 * N) {
            const auto a = hn::LoadU(d8, s + i), b = hn::LoadU(d8, s + i + N);
            hn::StoreU(a, d8, d + i);
            hn::StoreU(b, d8, d + i + N);
        }
        if (i + N <= bytes) {
            hn::StoreU(hn::LoadU(d8, s + i), d8, d + i);
            i += N;
        }
        if (i < bytes)
            hn::StoreU(hn::LoadU(d8, s + bytes - N), d8, d + bytes - N);
    }
}
void CopyBlock(void *dstv, ptrdiff_t dp, const void *srcv, ptrdiff_t sp, size_t bytes, size_t rows)
{
    uint8_t *d = static_cast<uint8_t *>(dstv);
    const uint8_t *s = static_cast<const uint8_t *>(srcv);
    const hn::ScalableTag<uint8_t> d8;
    const hn::CappedTag<uint8_t, 16> dq;
    if (bytes >= hn::Lanes(d8))
        BlockRows(d8, d, dp, s, sp, bytes, rows);
    else if (bytes >= 16)
        BlockRows(dq, d, dp, s, sp, bytes, rows);
    else
        for (size_t r = 0; r < rows; r++)
            memcpy(d + (ptrdiff_t)r * dp, s + (ptrdiff_t)r * sp, bytes);
}
#endif

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
// after each, and `tail` zeros after the last element. A unit-stride source is interleaved with
// a zero vector: each vector of the source gives two of the destination, in the target's
// vectors, then 16-byte ones, then element by element. A vector may end at the last element's
// zero when there is a tail: the bench's rows of 512 UINT8 (256 FLOAT16) left 16 (8) elements
// to the element loop without it. A last vector overlapping the one before was slower than the
// element loop for the few elements left after the 16-byte vectors (FLOAT32 rows of 250).
template <class D, typename T>
HWY_INLINE void Expand2Vectors(D dt, T *HWY_RESTRICT d, const T *HWY_RESTRICT s, size_t &i,
                               size_t count, size_t tail)
{
    const size_t N = hn::Lanes(dt);
    const auto zero = hn::Zero(dt);
    // a vector writes d[2i .. 2i + 2N): within the 2 count - 1 elements, or the first zero after
    for (; i + N + (tail ? 0 : 1) <= count; i += N)
        hn::StoreInterleaved2(hn::LoadU(dt, s + i), zero, dt, d + 2 * i);
}
template <typename T>
void Expand2(void *dstv, const void *srcv, ptrdiff_t ss, size_t count, size_t tail)
{
    T *HWY_RESTRICT d = static_cast<T *>(dstv);
    const T *HWY_RESTRICT s = static_cast<const T *>(srcv);
    size_t i = 0;
    if (ss == 1) {
        const hn::ScalableTag<T> dt;
        const hn::CappedTag<T, 16 / sizeof(T)> dq;
        Expand2Vectors(dt, d, s, i, count, tail);
        if (hn::Lanes(dq) < hn::Lanes(dt))
            Expand2Vectors(dq, d, s, i, count, tail);
    }
    for (; i < count; i++) {
        d[2 * i] = s[(ptrdiff_t)i * ss];
        if (i + 1 < count)
            d[2 * i + 1] = 0;
    }
    if (tail == 1) // the usual case: the window ends one element before the row
        d[2 * count - 1] = 0;
    else if (tail)
        memset(d + 2 * count - 1, 0, tail * sizeof(T));
}

// ------------------------------------------------------------------------------ tiles

#if HWY_TARGET != HWY_SCALAR
// One round of the block transpose over n 16-byte rows: rows k and k + n/2, interleaved element
// by element (low halves, then high halves), become rows 2k and 2k + 1. Writing the row index as
// bits r and the column as bits c, a round rotates the bit string (r, c) left by one, so log2(n)
// rounds turn (r, c) into (c, r). Highway's interleaves work within 16-byte blocks on every
// target, so a vector of several blocks holds as many independent rows (TransposeBlock).
template <class D, class V>
HWY_INLINE void Zip(D d, V a, V b, V &lo, V &hi)
{
    lo = hn::InterleaveLower(d, a, b);
    hi = hn::InterleaveUpper(d, a, b);
}
template <class D, class V>
HWY_INLINE void Round4(D d, V &v0, V &v1, V &v2, V &v3)
{
    V b0, b1, b2, b3;
    Zip(d, v0, v2, b0, b1);
    Zip(d, v1, v3, b2, b3);
    v0 = b0, v1 = b1, v2 = b2, v3 = b3;
}
template <class D, class V>
HWY_INLINE void Round8(D d, V &v0, V &v1, V &v2, V &v3, V &v4, V &v5, V &v6, V &v7)
{
    V b0, b1, b2, b3, b4, b5, b6, b7;
    Zip(d, v0, v4, b0, b1);
    Zip(d, v1, v5, b2, b3);
    Zip(d, v2, v6, b4, b5);
    Zip(d, v3, v7, b6, b7);
    v0 = b0, v1 = b1, v2 = b2, v3 = b3, v4 = b4, v5 = b5, v6 = b6, v7 = b7;
}
template <class D, class V>
HWY_INLINE void Round16(D d, V &v0, V &v1, V &v2, V &v3, V &v4, V &v5, V &v6, V &v7, V &v8,
                        V &v9, V &v10, V &v11, V &v12, V &v13, V &v14, V &v15)
{
    V b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15;
    Zip(d, v0, v8, b0, b1);
    Zip(d, v1, v9, b2, b3);
    Zip(d, v2, v10, b4, b5);
    Zip(d, v3, v11, b6, b7);
    Zip(d, v4, v12, b8, b9);
    Zip(d, v5, v13, b10, b11);
    Zip(d, v6, v14, b12, b13);
    Zip(d, v7, v15, b14, b15);
    v0 = b0, v1 = b1, v2 = b2, v3 = b3, v4 = b4, v5 = b5, v6 = b6, v7 = b7;
    v8 = b8, v9 = b9, v10 = b10, v11 = b11, v12 = b12, v13 = b13, v14 = b14, v15 = b15;
}

// The vectors of the tiles' block transposes: two 16-byte blocks where the target has 32-byte
// vectors (AVX2, AVX3), one elsewhere.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
constexpr size_t kTileVecBytes = 32;
#else
constexpr size_t kTileVecBytes = 16;
#endif
template <typename T>
using TileTag = hn::FixedTag<T, kTileVecBytes / sizeof(T)>;
// A block's destination rows (the lanes of a vector) and source columns: as many, but for
// 1-byte elements 16 (a square block of 32 would need 32 registers).
template <typename T>
constexpr size_t kBlockRows = kTileVecBytes / sizeof(T);
template <typename T>
constexpr size_t kBlockCols = sizeof(T) == 1 ? 16 : kBlockRows<T>;

// Stores the two 16-byte blocks of v at p and p + step (elements).
template <class D, class V, typename T>
HWY_INLINE void StoreHalves(D d, V v, T *HWY_RESTRICT p, ptrdiff_t step)
{
    const hn::Half<D> dh;
    hn::StoreU(hn::LowerHalf(dh, v), dh, p);
    hn::StoreU(hn::UpperHalf(dh, v), dh, p + step);
}

// Two vectors of two 16-byte blocks each, a = [a0 a1] and b = [b0 b1], as [a0 b0] at lo and
// [a1 b1] at hi.
template <class D, class V, typename T>
HWY_INLINE void StoreCrossed(D d, V a, V b, T *HWY_RESTRICT lo, T *HWY_RESTRICT hi)
{
    hn::StoreU(hn::ConcatLowerLower(d, b, a), d, lo);
    hn::StoreU(hn::ConcatUpperUpper(d, b, a), d, hi);
}

// Transposes a kBlockRows x kBlockCols block: d[r * ds + c] = s[c * ss + r] for
// r < kBlockRows<T>, c < kBlockCols<T> (strides in elements). With B = 16 / sizeof(T) elements
// per 16-byte block, log2(B) rounds of B / 2 pairs of interleaves transpose the 16-byte block
// columns of B vectors in place. With one block per vector that is the block. With two, block k
// of vector i is then destination row k*B + i: 1-byte elements (B = 16 columns) store the
// blocks apart; wider ones transpose the first B vectors (source columns 0..B) and the last B
// (columns B..2B) apart, and vectors i and B + i crossed (their low blocks together, their high
// blocks together) are destination rows i and B + i.
template <typename T>
HWY_INLINE void TransposeBlock(T *HWY_RESTRICT d, ptrdiff_t ds, const T *HWY_RESTRICT s,
                               ptrdiff_t ss)
{
    const TileTag<T> dt;
    constexpr bool two = hn::MaxLanes(dt) * sizeof(T) == 32;
#define LD(i) auto v##i = hn::LoadU(dt, s + (i) * ss)
#define ST(i) hn::StoreU(v##i, dt, d + (i) * ds)
#define X(i, j) StoreCrossed(dt, v##i, v##j, d + (i) * ds, d + (j) * ds)
#define R4(a, b, c, e) Round4(dt, v##a, v##b, v##c, v##e); Round4(dt, v##a, v##b, v##c, v##e)
#define R8(a, b, c, e, f, g, h, i)                                                             \
    Round8(dt, v##a, v##b, v##c, v##e, v##f, v##g, v##h, v##i);                                 \
    Round8(dt, v##a, v##b, v##c, v##e, v##f, v##g, v##h, v##i);                                 \
    Round8(dt, v##a, v##b, v##c, v##e, v##f, v##g, v##h, v##i)
    if constexpr (sizeof(T) == 8 && !two) {
        LD(0); LD(1);
        Zip(dt, v0, v1, v0, v1);
        ST(0); ST(1);
    } else if constexpr (sizeof(T) == 8) {
        LD(0); LD(1); LD(2); LD(3);
        Zip(dt, v0, v1, v0, v1);
        Zip(dt, v2, v3, v2, v3);
        X(0, 2); X(1, 3);
    } else if constexpr (sizeof(T) == 4 && !two) {
        LD(0); LD(1); LD(2); LD(3);
        R4(0, 1, 2, 3);
        ST(0); ST(1); ST(2); ST(3);
    } else if constexpr (sizeof(T) == 4) {
        LD(0); LD(1); LD(2); LD(3); LD(4); LD(5); LD(6); LD(7);
        R4(0, 1, 2, 3);
        R4(4, 5, 6, 7);
        X(0, 4); X(1, 5); X(2, 6); X(3, 7);
    } else if constexpr (sizeof(T) == 2 && !two) {
        LD(0); LD(1); LD(2); LD(3); LD(4); LD(5); LD(6); LD(7);
        R8(0, 1, 2, 3, 4, 5, 6, 7);
        ST(0); ST(1); ST(2); ST(3); ST(4); ST(5); ST(6); ST(7);
    } else if constexpr (sizeof(T) == 2) {
        LD(0); LD(1); LD(2); LD(3); LD(4); LD(5); LD(6); LD(7);
        LD(8); LD(9); LD(10); LD(11); LD(12); LD(13); LD(14); LD(15);
        R8(0, 1, 2, 3, 4, 5, 6, 7);
        R8(8, 9, 10, 11, 12, 13, 14, 15);
        X(0, 8); X(1, 9); X(2, 10); X(3, 11); X(4, 12); X(5, 13); X(6, 14); X(7, 15);
    } else {
        LD(0); LD(1); LD(2); LD(3); LD(4); LD(5); LD(6); LD(7);
        LD(8); LD(9); LD(10); LD(11); LD(12); LD(13); LD(14); LD(15);
#define R16 Round16(dt, v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15)
        R16; R16; R16; R16;
        if constexpr (two) {
#define SH(i) StoreHalves(dt, v##i, d + (i) * ds, 16 * ds)
            SH(0); SH(1); SH(2); SH(3); SH(4); SH(5); SH(6); SH(7);
            SH(8); SH(9); SH(10); SH(11); SH(12); SH(13); SH(14); SH(15);
        } else {
            ST(0); ST(1); ST(2); ST(3); ST(4); ST(5); ST(6); ST(7);
            ST(8); ST(9); ST(10); ST(11); ST(12); ST(13); ST(14); ST(15);
        }
    }
#undef LD
#undef ST
#undef X
#undef R4
#undef R8
#undef R16
#undef SH
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
// Blocks whose rows are 64-byte lines, for AVX3's stream tiles of 2- to 8-byte elements (16 x 16
// FLOAT32, 8 x 8 FLOAT64, 32 x 32 FLOAT16). One round over n vectors: v[k] and v[k + n/2] zipped
// become v[2k] and v[2k + 1] (Zip).
template <size_t n, class D, class V>
HWY_INLINE void ZipRound(D d, V *v)
{
    V b[n];
#pragma GCC unroll 16
    for (size_t k = 0; k < n / 2; k++)
        Zip(d, v[k], v[k + n / 2], b[2 * k], b[2 * k + 1]);
#pragma GCC unroll 32
    for (size_t k = 0; k < n; k++)
        v[k] = b[k];
}

// Four vectors of four 16-byte blocks, as a 4 x 4 matrix of blocks, transposed: block k of
// vector i becomes block i of vector k.
template <class V>
HWY_INLINE void TransposeBlocks4(V &a, V &b, V &c, V &e)
{
    const __m512i t0 = _mm512_shuffle_i32x4(a.raw, b.raw, 0x44); // a0 a1 b0 b1
    const __m512i t1 = _mm512_shuffle_i32x4(a.raw, b.raw, 0xEE); // a2 a3 b2 b3
    const __m512i t2 = _mm512_shuffle_i32x4(c.raw, e.raw, 0x44); // c0 c1 e0 e1
    const __m512i t3 = _mm512_shuffle_i32x4(c.raw, e.raw, 0xEE); // c2 c3 e2 e3
    a.raw = _mm512_shuffle_i32x4(t0, t2, 0x88);                  // a0 b0 c0 e0
    b.raw = _mm512_shuffle_i32x4(t0, t2, 0xDD);                  // a1 b1 c1 e1
    c.raw = _mm512_shuffle_i32x4(t1, t3, 0x88);                  // a2 b2 c2 e2
    e.raw = _mm512_shuffle_i32x4(t1, t3, 0xDD);                  // a3 b3 c3 e3
}

// Transposes a 64 x 64 block of bytes, d[r * ds + c] = s[c * ss + r], writing each destination
// row as one 64-byte vector (NT: a non-temporal store, d + r * ds on a line). Four groups of 16
// source columns go through the interleave rounds of TransposeBlock (lane k of vector j of
// group g is then destination row 16k + j, columns 16g ..), staged in 4 KiB of L1; vector j of
// the four groups, 4 x 4 block-transposed, gives rows j, 16 + j, 32 + j and 48 + j whole. The
// 32 x 16 blocks of TransposeBlock store 16 bytes at a time, twice as many stores a byte with
// the buffer's copy to the destination after them.
// Whether 64 rows `pitch` bytes apart put at most 8 of their first lines in any one of the
// 64 sets of 64-byte lines (a 4 KiB way, as in the L1 of current x86 cores). TransposeByteBlock's
// stores go straight to the destination rows, 64 at a time: with the rows 1 KiB apart or a
// multiple of 2 KiB, those lines evict each other before they are written out. UINT8
// transposes, one process alternating both builds in either order (medians of 21, Zen 5): rows
// 64 to 512 bytes apart 1.19-2.0x faster than the buffered blocks (the bench's 512 KiB case,
// 512 x 1024: 1.45x), 1 KiB apart 1.0-1.11x, 2 and 4 KiB apart 1.6-2.0x slower.
HWY_INLINE bool FewLinesPerSet(ptrdiff_t pitch)
{
    uint8_t n[64] = {0};
    for (size_t r = 0; r < 64; r++)
        if (++n[((size_t)r * (size_t)pitch >> 6) & 63] > 8)
            return false;
    return true;
}

template <bool NT>
HWY_INLINE void TransposeByteBlock(uint8_t *HWY_RESTRICT d, ptrdiff_t ds,
                                   const uint8_t *HWY_RESTRICT s, ptrdiff_t ss, size_t lo = 0,
                                   size_t hi = 64, uint8_t *HWY_RESTRICT d2 = nullptr)
{
    const hn::FixedTag<uint8_t, 64> dt;
    using V = hn::Vec<decltype(dt)>;
    alignas(64) uint8_t stage[64 * 64];
    const bool all = lo == 0 && hi >= 64; // else source columns outside lo .. hi read as zeros
#pragma GCC unroll 4
    for (size_t g = 0; g < 4; g++) {
        V v[16];
#pragma GCC unroll 16
        for (size_t i = 0; i < 16; i++) {
            const size_t c = 16 * g + i;
            v[i] = all || (c >= lo && c < hi) ? hn::LoadU(dt, s + (ptrdiff_t)c * ss) : hn::Zero(dt);
        }
#pragma GCC unroll 4
        for (size_t m = 0; m < 4; m++)
            ZipRound<16>(dt, v);
#pragma GCC unroll 16
        for (size_t j = 0; j < 16; j++)
            hn::Store(v[j], dt, stage + (16 * g + j) * 64);
    }
#pragma GCC unroll 4
    for (size_t j = 0; j < 16; j++) {
        V a = hn::Load(dt, stage + j * 64), b = hn::Load(dt, stage + (16 + j) * 64);
        V c = hn::Load(dt, stage + (32 + j) * 64), e = hn::Load(dt, stage + (48 + j) * 64);
        TransposeBlocks4(a, b, c, e);
        StoreTo<NT>(dt, a, d + (ptrdiff_t)j * ds);
        StoreTo<NT>(dt, b, d + (ptrdiff_t)(16 + j) * ds);
        StoreTo<NT>(dt, c, d + (ptrdiff_t)(32 + j) * ds);
        StoreTo<NT>(dt, e, d + (ptrdiff_t)(48 + j) * ds);
        if (d2) {
            StoreTo<NT>(dt, a, d2 + (ptrdiff_t)j * ds);
            StoreTo<NT>(dt, b, d2 + (ptrdiff_t)(16 + j) * ds);
            StoreTo<NT>(dt, c, d2 + (ptrdiff_t)(32 + j) * ds);
            StoreTo<NT>(dt, e, d2 + (ptrdiff_t)(48 + j) * ds);
        }
    }
}

// The n = 64 / sizeof(T) vectors v[0..n) of a B4 x B4 block of 2- to 8-byte elements (B4 = n),
// one source column each, transposed in place: v[r] becomes destination row r (lane c of v[r]
// is lane r of the former v[c]). As in TransposeBlock, log2(B) rounds of interleaves
// (B = 16 / sizeof(T)) transpose the 16-byte block columns of each group of B vectors (source
// columns g*B .. g*B + B, g < 4): block k of vector g*B + i is then destination row k*B + i,
// columns g*B .. g*B + B; a 4 x 4 transpose of the blocks of vectors i, B + i, 2B + i and 3B + i
// gives rows i, B + i, 2B + i and 3B + i.
template <typename T, class V>
HWY_INLINE void TransposeLines(V *v)
{
    static_assert(sizeof(T) > 1, "1-byte elements take TransposeBlock");
    const hn::FixedTag<T, 64 / sizeof(T)> dt;
    constexpr size_t B = 16 / sizeof(T);
#pragma GCC unroll 4
    for (size_t g = 0; g < 4; g++)
#pragma GCC unroll 3
        for (size_t m = 1; m < B; m *= 2)
            ZipRound<B>(dt, v + g * B);
#pragma GCC unroll 8
    for (size_t i = 0; i < B; i++)
        TransposeBlocks4(v[i], v[B + i], v[2 * B + i], v[3 * B + i]);
}

// Transposes a B4 x B4 block of 2- to 8-byte elements (TransposeLines) with non-temporal stores
// of whole 64-byte vectors: d[r * ds + c] = s[c * ss + r] for r, c < B4 (d + r * ds on 64-byte
// boundaries).
template <typename T>
HWY_INLINE void TransposeLineBlock(T *HWY_RESTRICT d, ptrdiff_t ds, const T *HWY_RESTRICT s,
                                   ptrdiff_t ss)
{
    const hn::FixedTag<T, 64 / sizeof(T)> dt;
    constexpr size_t n = 64 / sizeof(T);
    hn::Vec<decltype(dt)> v[n];
#pragma GCC unroll 32
    for (size_t i = 0; i < n; i++)
        v[i] = hn::LoadU(dt, s + (ptrdiff_t)i * ss);
    TransposeLines<T>(v);
#pragma GCC unroll 32
    for (size_t i = 0; i < n; i++)
        hn::Stream(v[i], dt, d + (ptrdiff_t)i * ds);
}

// Transposes a B4 x B4 block (64 x 64 UINT8, 32 x 32 FLOAT16, 16 x 16 FLOAT32, 8 x 8 FLOAT64)
// straight to the destination: d[r * ds + c] = s[c * ss + r] for r, c < B4, one 64-byte store
// per row. Each vector is built from four 16-byte pieces of four source rows (a load and three
// inserts, which issue on two ports where 512-bit shuffles issue on one), block a of vector
// (p, b) holding row k*a + b, columns k*p .. k*p + k (k = 16 / sizeof(T) elements a piece); the
// k vectors (p, b), b < k, are then k x k transposes within their 16-byte blocks (log2(k)
// rounds of interleaves), whose vector q is destination row k*p + q. Four-round transposes of
// whole lines (TransposeLines) took 1.3-1.5x the time in cache, as did the tiles' buffered
// blocks of 32-byte vectors.
template <typename T>
HWY_INLINE void TransposePiecesBlock(T *HWY_RESTRICT d, ptrdiff_t ds, const T *HWY_RESTRICT s,
                                     ptrdiff_t ss)
{
    static_assert(sizeof(T) <= 8, "1- to 8-byte elements");
    constexpr size_t k = 16 / sizeof(T);
    const ptrdiff_t row = (ptrdiff_t)k * ss; // elements between the pieces of a vector
#pragma GCC unroll 4
    for (size_t p = 0; p < 4; p++) {
        __m512i v[k];
#pragma GCC unroll 8
        for (size_t b = 0; b < k; b++) {
            const T *q = s + (ptrdiff_t)b * ss + (ptrdiff_t)(k * p);
            __m512i x = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i *>(q)));
            x = _mm512_inserti32x4(x, _mm_loadu_si128(reinterpret_cast<const __m128i *>(q + row)), 1);
            x = _mm512_inserti32x4(x, _mm_loadu_si128(reinterpret_cast<const __m128i *>(q + 2 * row)), 2);
            v[b] = _mm512_inserti32x4(x, _mm_loadu_si128(reinterpret_cast<const __m128i *>(q + 3 * row)), 3);
        }
        if constexpr (sizeof(T) == 1) { // four rounds of byte zips, as TransposeByteBlock's
            const hn::FixedTag<uint8_t, 64> dt;
            hn::Vec<decltype(dt)> w[16];
#pragma GCC unroll 16
            for (size_t i = 0; i < 16; i++)
                w[i].raw = v[i];
#pragma GCC unroll 4
            for (size_t m = 0; m < 4; m++)
                ZipRound<16>(dt, w);
            T *o = d + (ptrdiff_t)(k * p) * ds;
#pragma GCC unroll 16
            for (size_t i = 0; i < 16; i++)
                hn::StoreU(w[i], dt, o + (ptrdiff_t)i * ds);
            continue;
        }
        if constexpr (sizeof(T) == 2) {
#pragma GCC unroll 4
            for (size_t i = 0; i < 4; i++) {
                const __m512i lo = _mm512_unpacklo_epi16(v[2 * i], v[2 * i + 1]);
                v[2 * i + 1] = _mm512_unpackhi_epi16(v[2 * i], v[2 * i + 1]);
                v[2 * i] = lo;
            }
        }
        if constexpr (sizeof(T) <= 4) { // 32-bit interleaves within each group of four
#pragma GCC unroll 2
            for (size_t g = 0; g < k; g += 4) {
                const __m512i a0 = v[g], a1 = v[g + 1], a2 = v[g + 2], a3 = v[g + 3];
                const __m512i x = sizeof(T) == 2 ? a2 : a1, y = sizeof(T) == 2 ? a1 : a2;
                v[g] = _mm512_unpacklo_epi32(a0, x);
                v[g + 1] = _mm512_unpackhi_epi32(a0, x);
                v[g + 2] = _mm512_unpacklo_epi32(y, a3);
                v[g + 3] = _mm512_unpackhi_epi32(y, a3);
            }
        }
        // the last round: 64-bit halves of vectors h and h + k/2
        T *o = d + (ptrdiff_t)(k * p) * ds;
        constexpr size_t h2 = k / 2;
#pragma GCC unroll 4
        for (size_t h = 0; h < h2; h++) {
            const __m512i lo = _mm512_unpacklo_epi64(v[h], v[h + h2]);
            const __m512i hi = _mm512_unpackhi_epi64(v[h], v[h + h2]);
            _mm512_storeu_si512(o + (ptrdiff_t)(2 * h) * ds, lo);
            _mm512_storeu_si512(o + (ptrdiff_t)(2 * h + 1) * ds, hi);
        }
    }
}

// Lanes [i, i + L) of the concatenation a:b of two vectors of L lanes of 4 or 8 bytes (i <= L):
// `from` holds i, i + 1, .. (AVX3's two-table permute: indexes below L pick from a).
template <typename T>
HWY_INLINE __m512i Concat2(__m512i a, __m512i from, __m512i b)
{
    if constexpr (sizeof(T) == 2)
        return _mm512_permutex2var_epi16(a, from, b);
    else if constexpr (sizeof(T) == 4)
        return _mm512_permutex2var_epi32(a, from, b);
    else
        return _mm512_permutex2var_epi64(a, from, b);
}

// Where the tile's lines start in row q and what it writes of the row, for TransposeShifted:
// off, the elements of the row's first 64-byte line before the tile's column 0 (d + q * dr is
// `off` elements past a line); lo .. hi, the columns it writes: from the line boundary at or
// before column 0 (at most `before` back, the row's start) to the last boundary at or before
// nc, or to nc when the tile ends the row (after == 0).
struct ShiftedRow {
    ptrdiff_t off, lo, hi;
};
template <typename T>
HWY_INLINE ShiftedRow ShiftedRowOf(const T *row, size_t nc, size_t before, size_t after)
{
    constexpr ptrdiff_t L = 64 / sizeof(T);
    const ptrdiff_t off = (ptrdiff_t)(((uintptr_t)row / sizeof(T)) % L), n = (ptrdiff_t)nc;
    const ptrdiff_t back = (ptrdiff_t)before < off ? (ptrdiff_t)before : off;
    return {off, -back, after ? n - (n + off) % L : n};
}

// A tile of fewer rows than a block, element by element by ShiftedRow's rule (transpose_fn).
template <typename T>
HWY_INLINE void ShiftedElements(T *HWY_RESTRICT d, ptrdiff_t dr, const T *HWY_RESTRICT s,
                                ptrdiff_t sc, size_t nr, size_t nc, size_t before, size_t after)
{
    for (size_t q = 0; q < nr; q++) {
        const ShiftedRow w = ShiftedRowOf(d + (ptrdiff_t)q * dr, nc, before, after);
        for (ptrdiff_t c = w.lo; c < w.hi; c++)
            d[(ptrdiff_t)q * dr + c] = s[c * sc + (ptrdiff_t)q];
    }
}

// STREAM transposes of 2- to 8-byte elements on AVX3 (transpose_fn, dst[r * dr + c] =
// src[c * sc + r]): every destination line is written whole, with one non-temporal store, at any
// alignment of the rows. The tiles of a row meet at its line boundaries, not at their nominal
// columns: a tile writes the lines of each row that end within its columns (from the line
// boundary at or before its column 0, reading up to L - 1 source columns before the tile, to the
// last boundary at or before column nc), and only at the row's ends (before == 0, after == 0)
// partial lines, with masked ordinary stores (ShiftedRow). 4- and 8-byte elements: groups of
// L = 64 / sizeof(T) rows go through the tile's columns a block of L source columns at a time
// (TransposeLines); the line of
// row q that starts `off` elements before block t is the last `off` lanes of row q of block t - 1
// followed by the first L - off of block t (Concat2), so the previous block's rows stay in
// registers. The last group overlaps the one before when nr is not a multiple of L (the same
// values again); tiles of fewer than L rows go element by element, by the same rule. (FLOAT16
// rows not on lines take TransposeRowsShifted, which carries the block in memory, and so do
// FLOAT32 and FLOAT64 ones but on AMD's cores: g_carry_in_registers.)
// Rows that all start on lines take no carry, and go a block's L source columns at a time down
// the tile's rows, as the line blocks before did (TransposeLineBlock, which FLOAT16 keeps there:
// its 32 vectors a block fill the registers). Those blocks, against the buffer, on the bench's
// transposes at 1 thread on a Zen 5, five alternated runs (medians): FLOAT32 64 MiB 6.39 -> 4.71
// ms (44 -> 63% of memcpy), FLOAT64 5.85 -> 3.72 ms (49 -> 77%), FLOAT16 5.89 -> 5.36 ms (49 ->
// 54%); in cache (512 KiB) the buffer stays, the copy of the tiles' lines alone taking 8.5 us
// for FLOAT32 against 12.5 for the transpose.
// Before, tiles whose destination rows did not start on lines went through a buffer, each row's
// partial lines at the tile's columns written by ordinary stores (a line written half by one
// band of tiles and half by the next, each time read from memory first). One process, both
// libraries alternated in either order (medians of 11, Zen 5, 1 thread): FLOAT32 transposes of
// 4100 x 4100 9.4-9.6 -> 5.0-5.1 ms, 4097 x 4097 1.84x, 3000 x 5000 1.62-1.65x, 2050 x 8200
// 1.97-1.98x (2 threads: 4100 x 4100 1.62x); 8-byte elements 4100 x 4100 1.84-1.88x, 4097 x 4097
// 1.85-1.94x, 2050 x 8200 2.06-2.17x; rows on lines (the former line blocks) 4096 x 4096
// 1.08-1.14x, 4160 x 4160 0.96-1.06x. FLOAT16 (its carry spilled: 64 vectors), with the wider
// tiles of copy.c: 4100 x 4100 1.29-1.30x, 3001 x 2999 1.43-1.47x, 2050 x 8200 1.46-1.53x,
// 4095 x 8193 1.22-1.28x (2 threads 1.21x); 4096 x 4096 0.95-0.99x, 4096 x 8192 0.95-1.02x.
template <typename T>
HWY_INLINE void TransposeShifted(T *HWY_RESTRICT d, ptrdiff_t dr, const T *HWY_RESTRICT s,
                                 ptrdiff_t sc, size_t nr, size_t nc, size_t before, size_t after)
{
    static_assert(sizeof(T) >= 2, "1-byte elements take TransposeRowsShifted");
    const hn::FixedTag<T, 64 / sizeof(T)> dt;
    using V = hn::Vec<decltype(dt)>;
    constexpr size_t L = 64 / sizeof(T);
    constexpr ptrdiff_t SL = (ptrdiff_t)L;
    const ptrdiff_t n = (ptrdiff_t)nc;
    if (nr < L) {
        ShiftedElements(d, dr, s, sc, nr, nc, before, after);
        return;
    }
    if (((uintptr_t)d | (uintptr_t)dr * sizeof(T)) % 64 == 0) {
        // every row starts on a line: no carry, and a block's L source columns at a time down
        // the tile's rows (each source line read in one go)
        const ptrdiff_t hi = after ? n - n % SL : n;
        for (ptrdiff_t c0 = 0; c0 < hi; c0 += SL) {
            for (size_t g = 0; g < nr; g += L) {
                const size_t j0 = g + L <= nr ? g : nr - L;
                if (sizeof(T) == 2 && c0 + SL <= hi) { // 32 vectors a block: no room for more
                    for (size_t k = 0; k < L; k++) // the next tile's lines, into L2
                        __builtin_prefetch(s + (c0 + (ptrdiff_t)k) * sc + j0 + nr, 0, 2);
                    TransposeLineBlock<T>(d + (ptrdiff_t)j0 * dr + c0, dr,
                                          s + c0 * sc + (ptrdiff_t)j0, sc);
                    continue;
                }
                V v[L];
                if (c0 + SL <= n) {
#pragma GCC unroll 16
                    for (size_t k = 0; k < L; k++) // the next tile's lines, into L2
                        __builtin_prefetch(s + (c0 + (ptrdiff_t)k) * sc + j0 + nr, 0, 2);
#pragma GCC unroll 16
                    for (size_t k = 0; k < L; k++)
                        v[k] = hn::LoadU(dt, s + (c0 + (ptrdiff_t)k) * sc + j0);
                } else {
                    for (size_t k = 0; k < L; k++)
                        v[k] = c0 + (ptrdiff_t)k < n ? hn::LoadU(dt, s + (c0 + (ptrdiff_t)k) * sc + j0)
                                                     : hn::Zero(dt);
                }
                TransposeLines<T>(v);
                T *HWY_RESTRICT dg = d + (ptrdiff_t)j0 * dr + c0;
                if (c0 + SL <= hi) {
#pragma GCC unroll 16
                    for (size_t q = 0; q < L; q++)
                        hn::Stream(v[q], dt, dg + (ptrdiff_t)q * dr);
                } else { // the rows' ends
                    for (size_t q = 0; q < L; q++)
                        hn::BlendedStore(v[q], hn::FirstN(dt, (size_t)(hi - c0)), dt,
                                         dg + (ptrdiff_t)q * dr);
                }
            }
        }
        return;
    }
    // rows not on lines: 2-byte elements take TransposeRowsShifted (from TransposeTile)
    if constexpr (sizeof(T) >= 4) {
        // the source columns a block may read: from `back` before the tile to its last
        const ptrdiff_t back = before < L ? (ptrdiff_t)before : SL;
        using TI = hwy::MakeSigned<T>;
        const hn::FixedTag<TI, L> di;
        const auto lanes = hn::Iota(di, 0);
        for (size_t g = 0; g < nr; g += L) {
            const size_t j0 = g + L <= nr ? g : nr - L;
            T *HWY_RESTRICT dg = d + (ptrdiff_t)j0 * dr;
            const T *HWY_RESTRICT sg = s + (ptrdiff_t)j0;
            ShiftedRow w[L];
            __m512i from[L];
            bool shifted = false;
            ptrdiff_t tlast = 0; // the last block a row's last line takes
#pragma GCC unroll 16
            for (size_t q = 0; q < L; q++) {
                w[q] = ShiftedRowOf(dg + (ptrdiff_t)q * dr, nc, before, after);
                from[q] = hn::Add(lanes, hn::Set(di, (TI)(SL - w[q].off))).raw;
                shifted |= w[q].off != 0;
                const ptrdiff_t t = (w[q].hi + w[q].off + SL - 1) / SL - 1;
                tlast = t > tlast ? t : tlast;
            }
            V prev[L], v[L];
#pragma GCC unroll 16
            for (size_t q = 0; q < L; q++)
                prev[q] = hn::Zero(dt);
            // block t holds source columns t*L .. t*L + L; the line of row q that starts at
            // column t*L - off is written after block t; block -1 only when some line starts
            // before the tile
            for (ptrdiff_t t = shifted && before ? -1 : 0; t <= tlast; t++) {
                const ptrdiff_t c0 = t * SL;
                if (c0 >= -back && c0 + SL <= n) {
#pragma GCC unroll 16
                    for (size_t k = 0; k < L; k++) // the next tile's lines of these columns
                        __builtin_prefetch(sg + (c0 + (ptrdiff_t)k) * sc + nr, 0, 2); // (L2)
#pragma GCC unroll 16
                    for (size_t k = 0; k < L; k++)
                        v[k] = hn::LoadU(dt, sg + (c0 + (ptrdiff_t)k) * sc);
                } else {
                    for (size_t k = 0; k < L; k++) {
                        const ptrdiff_t c = c0 + (ptrdiff_t)k;
                        v[k] = c >= -back && c < n ? hn::LoadU(dt, sg + c * sc) : hn::Zero(dt);
                    }
                }
                TransposeLines<T>(v);
                // every row's line whole: t >= 1 (or t == 0 with the columns before the tile
                // readable), and the block within the tile
                if ((t >= 1 || (t == 0 && back == SL)) && c0 + SL <= n) {
                    if (shifted) {
#pragma GCC unroll 16
                        for (size_t q = 0; q < L; q++)
                            hn::Stream(V{Concat2<T>(prev[q].raw, from[q], v[q].raw)}, dt,
                                       dg + (ptrdiff_t)q * dr + c0 - w[q].off);
                    } else {
#pragma GCC unroll 16
                        for (size_t q = 0; q < L; q++)
                            hn::Stream(v[q], dt, dg + (ptrdiff_t)q * dr + c0);
                    }
                } else {
                    for (size_t q = 0; q < L; q++) {
                        const ptrdiff_t start = c0 - w[q].off; // the line's first column
                        const ptrdiff_t a = w[q].lo > start ? w[q].lo - start : 0;
                        const ptrdiff_t b = w[q].hi < start + SL ? w[q].hi - start : SL;
                        if (a >= b)
                            continue;
                        const V line{Concat2<T>(prev[q].raw, from[q], v[q].raw)};
                        T *p = dg + (ptrdiff_t)q * dr + start;
                        if (a == 0 && b == SL)
                            hn::Stream(line, dt, p);
                        else // a partial line at the row's start or end
                            hn::BlendedStore(line, hn::And(hn::Not(hn::FirstN(dt, (size_t)a)),
                                                           hn::FirstN(dt, (size_t)b)),
                                             dt, p);
                    }
                }
#pragma GCC unroll 16
                for (size_t q = 0; q < L; q++)
                    prev[q] = v[q];
            }
        }
    }
}
#endif

// Writes the k elements b[0..k), fewer than a line's (64 bytes, or a vector's if longer), to d
// with ordinary stores that touch no other byte: a partial line next to lines written with
// non-temporal stores, which an ordinary store into one of those lines would bring back from
// memory. AVX3 stores them with one masked store (never with k = 0: a masked store that writes
// nothing still slowed the non-temporal stores to its line), other targets in pieces of 32, 16,
// 8, 4, 2 and 1 bytes.
template <typename T>
HWY_INLINE void StorePart(T *HWY_RESTRICT d, const T *HWY_RESTRICT b, size_t k)
{
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
    const hn::FixedTag<T, 64 / sizeof(T)> dl;
    hn::BlendedStore(hn::LoadU(dl, b), hn::FirstN(dl, k), dl, d);
#else
    char *p = reinterpret_cast<char *>(d);
    const char *q = reinterpret_cast<const char *>(b);
    const size_t n = k * sizeof(T);
    size_t o = 0;
    for (; o + 32 <= n; o += 32)
        memcpy(p + o, q + o, 32);
#define PIECE(w)                                                                                \
    if (n & (w)) {                                                                              \
        memcpy(p + o, q + o, w);                                                                \
        o += w;                                                                                 \
    }
    PIECE(16) PIECE(8) PIECE(4) PIECE(2) PIECE(1)
#undef PIECE
#endif
}

// Copies n elements from b to d, one vector per store. A tail shorter than a vector is one
// store that ends at the row's end, overlapping what is already written (with the same bytes).
// STREAM: the row's whole 64-byte lines (or vectors, if longer) are written with non-temporal
// stores, the partial lines at its ends with ordinary ones (StorePart), so that no line takes
// both; a row that holds no whole line takes ordinary stores. One process alternating both
// (medians of 21, Zen 4): UINT8 4200 x 4100 and FLOAT16 3001 x 2999 transposes took 6-7 times
// less time than with the former vector-aligned stores, whose overlapping tail store and
// element-by-element head fell on lines written non-temporally.
template <bool STREAM, typename T>
HWY_INLINE void StoreRow(T *HWY_RESTRICT d, const T *HWY_RESTRICT b, size_t n)
{
    const hn::ScalableTag<T> dt;
    const size_t N = hn::Lanes(dt);
    size_t i = 0;
    if (n < N) {
        for (; i < n; i++)
            d[i] = b[i];
        return;
    }
    if constexpr (STREAM) {
        const size_t line = N * sizeof(T) > 64 ? N : 64 / sizeof(T); // a multiple of N
        const size_t head = (size_t)(-(uintptr_t)d & (line * sizeof(T) - 1)) / sizeof(T);
        if ((uintptr_t)d % sizeof(T) == 0 && head + line <= n) {
            const size_t end = head + (n - head) / line * line;
            if (head)
                StorePart(d, b, head);
            for (i = head; i < end; i += N)
                hn::Stream(hn::LoadU(dt, b + i), dt, d + i);
            if (end < n)
                StorePart(d + end, b + end, n - end);
            return;
        }
    }
    for (; i + N <= n; i += N)
        hn::StoreU(hn::LoadU(dt, b + i), dt, d + i);
    if (i < n)
        hn::StoreU(hn::LoadU(dt, b + n - N), dt, d + n - N);
}

// Tiles with a side of k = 2, 3 or 4 elements whose other side's elements lie k apart, as in
// images converted between interleaved channels and planes (HWC to CHW and back), go without
// the buffer, a vector of each of the k rows or columns at a time: dst[r * dr + c] =
// src[c * sc + r] as in TransposeTile. Deinterleave: k rows from source columns of k elements
// back to back (sc == k), one interleaved stream; Interleave: k source columns into destination
// rows of k elements back to back (dr == k). copy.c gives them tiles of DMLCPU_TILE_NARROW
// elements along the long side (kernels.h). Against the former element-by-element edges of
// 256-element tiles, alternated processes on a Zen 4 (medians of 3 x 11): UINT8 [2073600, 3]
// to [3, 2073600] 4.7 -> 0.15 ms, back 5.3 -> 0.17 ms, FLOAT32 [1000000, 3] 3.3 -> 0.96 ms,
// FLOAT64 [1000000, 2] 3.9 -> 1.1 ms (9-54% -> 76-99% of memcpy's time in the same process).
template <typename T>
HWY_INLINE void Deinterleave(T *HWY_RESTRICT d, ptrdiff_t dr, const T *HWY_RESTRICT s, size_t k,
                             size_t nc)
{
    const hn::ScalableTag<T> dt;
    const size_t N = hn::Lanes(dt);
    hn::Vec<decltype(dt)> v0, v1, v2, v3;
    size_t c = 0;
    if (k == 2)
        for (; c + N <= nc; c += N) {
            hn::LoadInterleaved2(dt, s + 2 * c, v0, v1);
            hn::StoreU(v0, dt, d + c);
            hn::StoreU(v1, dt, d + dr + c);
        }
    else if (k == 3)
        for (; c + N <= nc; c += N) {
            hn::LoadInterleaved3(dt, s + 3 * c, v0, v1, v2);
            hn::StoreU(v0, dt, d + c);
            hn::StoreU(v1, dt, d + dr + c);
            hn::StoreU(v2, dt, d + 2 * dr + c);
        }
    else
        for (; c + N <= nc; c += N) {
            hn::LoadInterleaved4(dt, s + 4 * c, v0, v1, v2, v3);
            hn::StoreU(v0, dt, d + c);
            hn::StoreU(v1, dt, d + dr + c);
            hn::StoreU(v2, dt, d + 2 * dr + c);
            hn::StoreU(v3, dt, d + 3 * dr + c);
        }
    for (; c < nc; c++)
        for (size_t r = 0; r < k; r++)
            d[(ptrdiff_t)r * dr + c] = s[c * k + r];
}
template <typename T>
HWY_INLINE void Interleave(T *HWY_RESTRICT d, const T *HWY_RESTRICT s, ptrdiff_t sc, size_t nr,
                           size_t k)
{
    const hn::ScalableTag<T> dt;
    const size_t N = hn::Lanes(dt);
    size_t r = 0;
    if (k == 2)
        for (; r + N <= nr; r += N)
            hn::StoreInterleaved2(hn::LoadU(dt, s + r), hn::LoadU(dt, s + sc + r), dt, d + 2 * r);
    else if (k == 3)
        for (; r + N <= nr; r += N)
            hn::StoreInterleaved3(hn::LoadU(dt, s + r), hn::LoadU(dt, s + sc + r),
                                  hn::LoadU(dt, s + 2 * sc + r), dt, d + 3 * r);
    else
        for (; r + N <= nr; r += N)
            hn::StoreInterleaved4(hn::LoadU(dt, s + r), hn::LoadU(dt, s + sc + r),
                                  hn::LoadU(dt, s + 2 * sc + r), hn::LoadU(dt, s + 3 * sc + r), dt,
                                  d + 4 * r);
    for (; r < nr; r++)
        for (size_t c = 0; c < k; c++)
            d[r * k + c] = s[(ptrdiff_t)c * sc + r];
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
// A block of L = 64 / sizeof(T) source columns of L rows, transposed into the rows b + q * pitch
// (and b2 + q * pitch when b2 is not null), 64 bytes each: source columns lo .. hi read, the
// others zero.
template <typename T>
HWY_INLINE void LineBlockTo(uint8_t *HWY_RESTRICT b, uint8_t *HWY_RESTRICT b2, size_t pitch,
                            const T *HWY_RESTRICT s, ptrdiff_t sc, size_t lo, size_t hi)
{
    if constexpr (sizeof(T) == 1) {
        TransposeByteBlock<false>(b, (ptrdiff_t)pitch, s, sc, lo, hi, b2);
    } else {
        constexpr size_t L = 64 / sizeof(T);
        const hn::FixedTag<T, L> dt;
        hn::Vec<decltype(dt)> v[L];
        const bool all = lo == 0 && hi >= L;
#pragma GCC unroll 32
        for (size_t k = 0; k < L; k++)
            v[k] = all || (k >= lo && k < hi) ? hn::LoadU(dt, s + (ptrdiff_t)k * sc) : hn::Zero(dt);
        TransposeLines<T>(v);
#pragma GCC unroll 32
        for (size_t q = 0; q < L; q++) {
            hn::Store(v[q], dt, reinterpret_cast<T *>(b + q * pitch));
            if (b2)
                hn::Store(v[q], dt, reinterpret_cast<T *>(b2 + q * pitch));
        }
    }
}

// Whether the STREAM transposes of 4- and 8-byte elements into rows not on lines carry the last
// block in registers (TransposeShifted) rather than in memory (TransposeRowsShifted): on AMD's
// cores only (set once by FillCopies). In memory, against registers, one process alternating
// both builds (medians of 11, 1 thread): on an Intel Xeon, FLOAT32 4095 x 4097 1.54x faster,
// 4097 x 4095 1.35x, 4100 x 4100 1.33x, 3000 x 5000 1.39x, FLOAT64 2895 x 2897 1.21x, 4100 x 4100
// 1.13x; on a Zen 5 slower (below), but for FLOAT32 source rows a multiple of 4 KiB apart.
// DMLCPU_TRANSPOSE_CARRY=registers or =memory takes one kernel on any CPU (the tests run both).
static bool g_carry_in_registers = false;

HWY_INLINE bool CarryInRegisters()
{
    const char *want = getenv("DMLCPU_TRANSPOSE_CARRY");
    if (want && strcmp(want, "registers") == 0)
        return true;
    if (want && strcmp(want, "memory") == 0)
        return false;
    unsigned a = 0, b = 0, c = 0, d = 0;
    __cpuid(0, a, b, c, d);
    return b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163; // "AuthenticAMD"
}

// STREAM transposes of 1- and 2-byte elements on AVX3 (transpose_fn) whose destination rows are
// not on lines, and of 4- and 8-byte ones but on AMD's cores (above), there FLOAT32 ones whose
// source rows are a multiple of 4 KiB apart: as in
// TransposeShifted, the tiles meet at the rows' line boundaries (ShiftedRow)
// and every destination line is written whole with one non-temporal store; only a row's two
// ends take masked ordinary stores. But the last block is carried in memory, not in registers:
// a block of these sizes fills them (64 x 64 bytes go through a stage, LineBlockTo). Block k
// holds the tile's columns L (k - 1) .. L k (block 0 the L before the tile, those that exist;
// the others read as zeros), L rows at a time, going down the tile's rows (each source line
// read in one go); row q of block k writes its line that starts `off` columns before the block,
// from the row's last block and this one side by side in a small buffer (an odd block is stored
// twice, after its predecessor and before its successor, so no block is copied). The last group
// of rows overlaps the one before when nr is not a multiple of L (the same values again); tiles
// of fewer than L rows go element by element, by the same rule. One process alternating both
// builds in either order (medians of 9, Zen 5, 1 thread), against the buffer with its partial
// lines at the tiles' edges: UINT8 transposes of 4097 x 4097 1.30-1.37x, 4100 x 4100
// 1.48-1.51x, 3000 x 6000 1.42-1.45x, 5000 x 5000 1.30-1.35x (with the wider tiles of copy.c);
// against the register carry of TransposeShifted (which spills FLOAT16's 64 vectors): FLOAT16
// 4095 x 8193 1.07x, 4100 x 8192 1.22-1.25x, 4100 x 4100 1.09-1.12x, 2050 x 8200 1.10-1.11x,
// 3001 x 2999 1.01-1.04x. On that Zen 5, FLOAT32 and FLOAT64 kept the register carry: with the
// buffer FLOAT32 4095 x 4097 took 1.03x its time, 4100 x 4100 1.18x, 3001 x 3000 1.04x, FLOAT64
// 2047 x 4097 1.25x, 4100 x 4100 1.13x, 1001 x 3001 1.13x (medians of 7, one run); but with
// FLOAT32 source rows 16 KiB apart the buffer was 1.20-1.27x faster (1000 x 4096), 1.27-1.33x
// (4100 x 4096), 1.32-1.34x (3000 x 4096; medians of 9, both orders). UINT8 rows on lines keep
// the byte blocks straight to the destination or the buffer (one line of each of 64 rows 4 KiB
// apart at a time took 1.45x the buffer's time, 4096 x 4096).
template <typename T, size_t EDGE>
HWY_INLINE void TransposeRowsShifted(T *HWY_RESTRICT d, ptrdiff_t dr, const T *HWY_RESTRICT s,
                                     ptrdiff_t sc, size_t nr, size_t nc, size_t before,
                                     size_t after)
{
    constexpr size_t L = 64 / sizeof(T);
    constexpr ptrdiff_t SL = (ptrdiff_t)L;
    // Row q's blocks in rows[q]: block k at 64 + 64 (k % 2), an odd one also at 0, so that the
    // line of block k, which starts in block k - 1, is contiguous from 64 (k % 2) + 64 - off.
    alignas(64) uint8_t rows[EDGE][192];
    const uint8_t *from[EDGE]; // rows[q] + 64 - off (bytes)
    T *to[EDGE];               // d + q * dr - off: block k writes row q's line at to + L (k - 1)
    const hn::FixedTag<T, L> dt;
    if (nr < L) {
        ShiftedElements(d, dr, s, sc, nr, nc, before, after);
        return;
    }
    // Blocks kfull .. kwhole write a whole line of every row, and none writes past block klast;
    // in a tile that holds neither end of its rows, every block but 0 (kept for its rows' ends).
    const bool ends = before < L || after == 0 || nc % L != 0;
    ptrdiff_t kfull = 1, kwhole = (ptrdiff_t)(nc / L), klast = kwhole;
    for (size_t q = 0; q < nr; q++) {
        const size_t off = ((uintptr_t)(d + (ptrdiff_t)q * dr) / sizeof(T)) % L;
        from[q] = rows[q] + 64 - off * sizeof(T);
        to[q] = d + (ptrdiff_t)q * dr - (ptrdiff_t)off;
    }
    if (ends) {
        kwhole = PTRDIFF_MAX;
        klast = 0;
        for (size_t q = 0; q < nr; q++) {
            // row q's line of block k: columns L (k - 1) - off .. L k - off
            const ShiftedRow w = ShiftedRowOf(d + (ptrdiff_t)q * dr, nc, before, after);
            const ptrdiff_t first = (w.lo + w.off + SL - 1) / SL + 1, whole = (w.hi + w.off) / SL;
            const ptrdiff_t k = (w.hi + w.off + SL - 1) / SL;
            kfull = first > kfull ? first : kfull;
            kwhole = whole < kwhole ? whole : kwhole;
            klast = w.hi > w.lo && k > klast ? k : klast;
        }
    }
    const size_t back = before < L ? before : L; // columns before the tile that exist
    for (ptrdiff_t k = 0; k <= klast; k++) {
        const ptrdiff_t c0 = SL * (k - 1), odd = 64 * (k % 2); // the block's first column
        // the block's columns that exist: from -back, before nc
        const size_t clo = c0 < -(ptrdiff_t)back ? (size_t)(-(ptrdiff_t)back - c0) : 0;
        const ptrdiff_t left = (ptrdiff_t)nc - c0; // (none when the block is past the tile)
        const size_t chi = left >= SL ? L : left > 0 ? (size_t)left : 0;
        if (k == 0 && clo >= chi)
            continue; // no columns before the tile: the lines of block 1 start at the row's start
        for (size_t g = 0; g < nr; g += L) {
            const size_t j0 = g + L <= nr ? g : nr - L; // (rows before g are written)
            if (chi == L)
                for (size_t i = 0; i < L; i++) // the next tile's lines of these columns, into L2
                    __builtin_prefetch(s + (c0 + (ptrdiff_t)i) * sc + j0 + nr, 0, 2);
            LineBlockTo<T>(rows[j0] + 64 + odd, odd ? rows[j0] : nullptr, 192,
                           s + c0 * sc + (ptrdiff_t)j0, sc, clo, chi);
            if (k == 0)
                continue;
            if (k >= kfull && k <= kwhole) {
                for (size_t q = g; q < j0 + L; q++)
                    hn::Stream(hn::LoadU(dt, reinterpret_cast<const T *>(from[q] + odd)), dt,
                               to[q] + c0);
                continue;
            }
            for (size_t q = g; q < j0 + L; q++) {
                // the part of the line within the row's lo .. hi (a part at its first or last)
                const ShiftedRow w = ShiftedRowOf(d + (ptrdiff_t)q * dr, nc, before, after);
                const ptrdiff_t x = c0 - w.off; // the line's first column
                const ptrdiff_t a = x > w.lo ? x : w.lo, e = x + SL < w.hi ? x + SL : w.hi;
                const auto line = hn::LoadU(dt, reinterpret_cast<const T *>(from[q] + odd));
                if (a == x && e == x + SL)
                    hn::Stream(line, dt, to[q] + c0);
                else if (a < e)
                    hn::BlendedStore(line,
                                     hn::AndNot(hn::FirstN(dt, (size_t)(a - x)),
                                                hn::FirstN(dt, (size_t)(e - x))),
                                     dt, to[q] + c0);
            }
        }
    }
}
#endif

// The B x B blocks of an nr x nc tile (nr, nc >= B), block(r0, c0) for each: along the
// destination rows (r0 outer) or down the columns (c0 outer), each walk ending with the blocks
// that end at the tile's last row or column (overlapping blocks already done where B does not
// divide nr or nc). Along the rows, each block's stores go to the next line of the same rows, which
// the L2's prefetchers follow: in the L2 (transpose_small) UINT8 512 x 1024 1.17-1.21x faster than
// down the columns, 256 x 2048 and 2048 x 256 1.07x, 1024 x 1024 1.09x; FLOAT16 512 x 512 and
// 511 x 513 1.19-1.20x, other shapes of at most 1 MiB 1.07-1.11x, 384 x 640 0.92x; FLOAT64
// 1.07-1.33x, 200 x 300 0.93x; FLOAT32 0.93-1.15x, as many shapes slower as faster, so it keeps
// the columns. Larger UINT8 copies (2 to 6 MiB, byte blocks without the stream stores) were
// 0.96-1.03x along the rows and keep the columns too.
template <class F>
HWY_INLINE void WalkBlocks(size_t nr, size_t nc, size_t B, bool rows_outer, const F &block)
{
    const size_t n_out = rows_outer ? nr : nc, n_in = rows_outer ? nc : nr;
    for (size_t o = 0;; o += B) {
        o = o + B > n_out ? n_out - B : o;
        for (size_t i = 0;; i += B) {
            i = i + B > n_in ? n_in - B : i;
            if (rows_outer)
                block(o, i);
            else
                block(i, o);
            if (i + B == n_in)
                break;
        }
        if (o + B == n_out)
            break;
    }
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
// A tile of an operator that fits the L2 (transpose_small) whose destination rows are not on
// lines, 4- and 8-byte elements: a band of B4 rows at a time (the last band ending at the tile's
// last row, overlapping the one before), its blocks transposed (TransposePiecesBlock) into a
// stage in L1 whose rows are on lines, then each row written out in whole-line stores, masked at
// the row's two ends (the line another tile or row shares), loaded from the stage shifted by the
// row's offset in its first line. Stored straight, every 64-byte store of a block spans two
// lines. One process alternating both (medians of 1001 calls, Xeon, AVX-512), against the
// piece blocks straight to the rows (FLOAT32) and the buffered tiles (FLOAT64): FLOAT32
// 255 x 513 1.32x, 383 x 257 1.35x, 300 x 333 1.48x, 100 x 1000 1.34x, 129 x 1023 1.21x,
// 200 x 300 1.16x, 1000 x 100 1.11x; FLOAT64 255 x 257 1.37x, 300 x 333 1.32x, 127 x 513 1.30x,
// 383 x 129 1.17x, 100 x 1000 1.11x. UINT8 and FLOAT16 keep their blocks straight to the rows:
// UINT8 this way (the byte blocks into the stage) took 0.68-1.06x their time on 11 shapes
// (511 x 1025 1.01x, 200 x 2000 0.82x), FLOAT16 511 x 513 0.97-1.00x. Wider tiles (a band's rows
// 512 or 1024 bytes long) were 0.86-1.11x; writing a line of each row out after each block
// instead of the band's rows after its blocks, 0.86-0.94x.
template <typename T, size_t EDGE>
HWY_INLINE void TransposeBanded(T *HWY_RESTRICT d, ptrdiff_t dr, const T *HWY_RESTRICT s,
                                ptrdiff_t sc, size_t nr, size_t nc)
{
    constexpr size_t B4 = 64 / sizeof(T);
    constexpr size_t P = B4 + (EDGE + B4 - 1) / B4 * B4 + B4; // a lead line, the row, a pad line
    alignas(64) T stage[B4 * P];
    const hn::FixedTag<T, B4> dt;
    for (size_t r0 = 0;; r0 += B4) {
        r0 = r0 + B4 > nr ? nr - B4 : r0;
        WalkBlocks(B4, nc, B4, true, [&](size_t, size_t c0) {
            TransposePiecesBlock<T>(stage + B4 + c0, (ptrdiff_t)P, s + (ptrdiff_t)c0 * sc + r0, sc);
        });
        for (size_t q = 0; q < B4; q++) {
            T *row = d + (ptrdiff_t)(r0 + q) * dr;
            const size_t off = (size_t)((uintptr_t)row % 64) / sizeof(T);
            T *line = row - off;                       // the row's first line
            const T *from = stage + q * P + B4 - off;  // stage row q, `off` elements back
            const size_t end = off + nc;               // > B4 but for off == 0, nc == B4
            hn::BlendedStore(hn::LoadU(dt, from), hn::Not(hn::FirstN(dt, off)), dt, line);
            size_t i = B4;
            for (; i + B4 <= end; i += B4)
                hn::Store(hn::LoadU(dt, from + i), dt, line + i);
            if (i < end)
                hn::BlendedStore(hn::LoadU(dt, from + i), hn::FirstN(dt, end - i), dt, line + i);
        }
        if (r0 + B4 == nr)
            break;
    }
}
#endif

// Copies an nr x nc tile (at most EDGE on each side) whose source columns and destination rows
// are contiguous (transpose_fn): dst[r * dr + c] = src[c * sc + r] (strides in elements). Blocks
// are transposed in registers from the source into a buffer, a block's source columns at a time
// down the tile (so each source line is read in one go), and the buffer's rows are then written
// to the destination rows in one go each; edges that do not fill a block are blocks too, ending
// at the tile's last row or column and overlapping blocks already done (the same values), unless
// the tile is narrower than a block (then element by element). Blocks written straight to the
// destination are slow when its rows are a multiple of 4 KiB apart (many lines of one cache set
// written at a time, and a TLB entry per row); the buffer (pitch: a tile side and 32 bytes, so a
// block's rows are not on one cache set) stays in
// L1. STREAM: the destination rows are written with non-temporal stores (the caller fences), for
// copies larger than the caches: no destination line is read before it is written, and the
// source is not evicted by the destination.
// STREAM, 1- to 4-byte elements: while a block's source columns go down the tile, the lines of
// the next block's columns at the same rows are prefetched into L2 (the hardware prefetchers do
// not follow 8 or 16 streams of a few lines each). One process alternating both, medians of 11,
// on a Zen 4: FLOAT32 4096 x 4096 1.03-1.08x, FLOAT16 5792 x 5793 1.16-1.45x, UINT8 4096 x 4096
// 1.07-1.18x; FLOAT64 0.90-0.97x without it. Prefetching into L1 did as well or less, and in
// copies that fit in L2 or L3 it was slower (0.79-0.92x).
// Against the former scheme (the source also staged, through a second buffer, with a memcpy
// call per 256-byte row and 16-byte blocks), on the bench's transposes at 1 thread on AVX2, both
// alternated three times (the smallest of the bench's min column, in us): FLOAT32 512 KiB
// 35.6 -> 26.3, 64 MiB 13860 -> 11540; FLOAT64 512 KiB 33.3 -> 24.2, 64 MiB 13900 -> 9920;
// UINT8 512 KiB 57.8 -> 43.7, 16 MiB 5410 -> 4560; FLOAT16 512 KiB 48.0 -> 41.5, 64 MiB
// unchanged (19630 -> 21380, within the noise). Staging the source instead of the destination,
// or both, was slower; so were blocks written straight to the destination at 64 MiB (half the
// speed), though 16 x 16 FLOAT32 tiles written straight were 10% faster at 512 KiB.
// GCC turns StoreRow's loop into a call of memcpy per row; inline, the FLOAT32 512 KiB transpose
// took 23-24 us instead of 26-27 (medians of processes alternated six times).
#if defined(__GNUC__) && !defined(__clang__)
#define DMLCPU_ROWS_INLINE __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define DMLCPU_ROWS_INLINE
#endif
template <typename T, size_t EDGE, bool STREAM, bool SMALL = false>
DMLCPU_ROWS_INLINE void TransposeTile(char *dst, ptrdiff_t dr, const char *src, ptrdiff_t sc, size_t nr,
                                      size_t nc, size_t before, size_t after)
{
    constexpr size_t BR = kBlockRows<T>, BC = kBlockCols<T>, PAD = 32 / sizeof(T);
    (void)before, (void)after; // the tile's own elements, but in TransposeShifted
    alignas(64) T out[EDGE * (EDGE + PAD)];
    T *d = reinterpret_cast<T *>(dst);
    const T *s = reinterpret_cast<const T *>(src);
    if (nr >= 2 && nr <= 4 && sc == (ptrdiff_t)nr) {
        Deinterleave(d, dr, s, nr, nc);
        return;
    }
    if (nc >= 2 && nc <= 4 && dr == (ptrdiff_t)nc) {
        Interleave(d, s, sc, nr, nc);
        return;
    }
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
    if constexpr (sizeof(T) == 1) {
        // tiles of whole 64 x 64 byte blocks straight to the destination, 64 bytes a store,
        // where a block's 64 destination rows spread over the L1's sets (FewLinesPerSet)
        const bool lines = ((uintptr_t)d | (uintptr_t)dr) % 64 == 0;
        if (nr % 64 == 0 && nc % 64 == 0 && (!STREAM || lines) && FewLinesPerSet(dr)) {
            WalkBlocks(nr, nc, 64, SMALL, [&](size_t r0, size_t c0) {
                if (STREAM)
                    for (size_t j = 0; j < 64; j++) // the next tile's lines, into L2
                        __builtin_prefetch(s + (ptrdiff_t)(c0 + j) * sc + r0 + nr, 0, 2);
                TransposeByteBlock<STREAM>(d + (ptrdiff_t)r0 * dr + c0, dr,
                                           s + (ptrdiff_t)c0 * sc + r0, sc);
            });
            return;
        }
    }
    if constexpr (SMALL) {
        // an operator that fits the L2 (transpose_small), destination rows on lines: blocks of
        // whole lines straight to them (edges as blocks that end at the tile's last row or
        // column, overlapping blocks already done). Larger copies keep the buffered tiles:
        // from 2 MiB on, rows 2 or 4 KiB apart took 1.05-1.13x their time. UINT8 takes the
        // byte blocks above where they apply: with rows 2 KiB apart on the source side the 64
        // source rows of a block (read four times, a 16-byte piece each time) evict each other
        // (256 x 2048: 1.27x the time); where they do not (destination rows 1 or 2 KiB apart)
        // the 512 KiB to 1 MiB shapes took 1.39-1.66x less time than the buffered tiles.
        // Rows not on lines take them too for 1- and 2-byte elements (odd shapes of UINT8
        // 1.13-1.53x faster, FLOAT16 1.16-1.20x); 4- and 8-byte elements go through a stage
        // (TransposeBanded).
        constexpr size_t B4 = 64 / sizeof(T);
        const bool lines = ((uintptr_t)d | (uintptr_t)dr * sizeof(T)) % 64 == 0;
        if (nr >= B4 && nc >= B4 && sizeof(T) >= 4 && !lines) {
            TransposeBanded<T, EDGE>(d, dr, s, sc, nr, nc);
            return;
        }
        if (nr >= B4 && nc >= B4) {
            WalkBlocks(nr, nc, B4, sizeof(T) != 4, [&](size_t r0, size_t c0) {
                TransposePiecesBlock<T>(d + (ptrdiff_t)r0 * dr + c0, dr,
                                        s + (ptrdiff_t)c0 * sc + r0, sc);
            });
            return;
        }
    }
    if constexpr (STREAM) {
        // rows not on lines (on lines: below), the last block carried in memory: 1- and 2-byte
        // elements; 4- and 8-byte ones but on AMD's cores (g_carry_in_registers), there FLOAT32
        // whose source rows are a multiple of 4 KiB apart (TransposeShifted's walk along a group
        // of rows reads one line of each row, all in one cache set)
        const bool carry = sizeof(T) <= 2 || !g_carry_in_registers ||
                           (sizeof(T) == 4 && (size_t)sc * sizeof(T) % 4096 == 0);
        if (carry && ((uintptr_t)d | (uintptr_t)dr * sizeof(T)) % 64 != 0) {
            TransposeRowsShifted<T, EDGE>(d, dr, s, sc, nr, nc, before, after);
            return;
        }
    }
    if constexpr (STREAM && sizeof(T) >= 2) {
        // every tile of the copy (they meet at line boundaries), also those of twice the edge
        // (transpose_stream_lines); execute checks that buffers are aligned to the element size
        TransposeShifted<T>(d, dr, s, sc, nr, nc, before, after);
        return;
    }
#endif
    const size_t op = nc + PAD; // pitch
    const size_t rfull = nr / BR * BR, cfull = nc / BC * BC;
    constexpr bool kPrefetch = STREAM && sizeof(T) <= 4;
    for (size_t c0 = 0; c0 < cfull; c0 += BC)
        for (size_t r0 = 0; r0 < rfull; r0 += BR) {
            if (kPrefetch && c0 + BC < cfull && (r0 * sizeof(T)) % 64 == 0)
                for (size_t j = 0; j < BC; j++) { // per 64 bytes of a column, its last byte's line
                    const T *next = s + (ptrdiff_t)(c0 + BC + j) * sc + r0;
                    __builtin_prefetch(reinterpret_cast<const char *>(next) + 63, 0, 2);
                }
            TransposeBlock<T>(out + r0 * op + c0, (ptrdiff_t)op, s + (ptrdiff_t)c0 * sc + r0, sc);
        }
    if ((rfull < nr || cfull < nc) && nr >= BR && nc >= BC) {
        // the edges as blocks that end at the tile's last row or column, overlapping blocks
        // already done (which write the same values there)
        const auto block = [&](size_t r0, size_t c0) {
            TransposeBlock<T>(out + r0 * op + c0, (ptrdiff_t)op, s + (ptrdiff_t)c0 * sc + r0, sc);
        };
        const size_t rl = nr - BR, cl = nc - BC;
        if (rfull < nr)
            for (size_t c0 = 0; c0 < cfull; c0 += BC)
                block(rl, c0);
        if (cfull < nc) {
            for (size_t r0 = 0; r0 < rfull; r0 += BR)
                block(r0, cl);
            if (rfull < nr)
                block(rl, cl);
        }
    } else if (rfull < nr || cfull < nc) {
        for (size_t c = 0; c < nc; c++) // the edges of a tile narrower than a block
            for (size_t r = c < cfull ? rfull : 0; r < nr; r++)
                out[r * op + c] = s[(ptrdiff_t)c * sc + r];
    }
    for (size_t r = 0; r < nr; r++)
        StoreRow<STREAM>(d + (ptrdiff_t)r * dr, out + r * op, nc);
}
#endif

#if HWY_TARGET != HWY_SCALAR
void StreamFence() { hwy::FlushStream(); }
#endif

void FillCopies(kernel_table *t)
{
    t->copy[0] = CopyRun<uint8_t, false>;
    t->copy[1] = CopyRun<uint16_t, false>;
    t->copy[2] = CopyRun<uint32_t, false>;
    t->copy[3] = CopyRun<uint64_t, false>;
#if HWY_TARGET != HWY_SCALAR
    t->copy_stream[0] = CopyRun<uint8_t, true>;
    t->copy_stream[1] = CopyRun<uint16_t, true>;
    t->copy_stream[2] = CopyRun<uint32_t, true>;
    t->copy_stream[3] = CopyRun<uint64_t, true>;
#endif
#if HWY_TARGET != HWY_SCALAR
    t->copy_block = CopyBlock;
#endif
    t->fill[0] = FillZero<uint8_t>;
    t->fill[1] = FillZero<uint16_t>;
    t->fill[2] = FillZero<uint32_t>;
    t->fill[3] = FillZero<uint64_t>;
    t->expand2[0] = Expand2<uint8_t>;
    t->expand2[1] = Expand2<uint16_t>;
    t->expand2[2] = Expand2<uint32_t>;
    t->expand2[3] = Expand2<uint64_t>;
#if HWY_TARGET != HWY_SCALAR
    t->transpose[0] = TransposeTile<uint8_t, DMLCPU_TILE_EDGE_X8, false>;
    t->transpose[1] = TransposeTile<uint16_t, DMLCPU_TILE_EDGE_X16, false>;
    t->transpose[2] = TransposeTile<uint32_t, DMLCPU_TILE_EDGE_X32, false>;
    t->transpose[3] = TransposeTile<uint64_t, DMLCPU_TILE_EDGE_X64, false>;
    t->transpose_stream[0] = TransposeTile<uint8_t, DMLCPU_TILE_EDGE_X8, true>;
    t->transpose_stream[1] = TransposeTile<uint16_t, DMLCPU_TILE_EDGE_X16, true>;
    t->transpose_stream[2] = TransposeTile<uint32_t, DMLCPU_TILE_EDGE_X32, true>;
    t->transpose_stream[3] = TransposeTile<uint64_t, DMLCPU_TILE_EDGE_X64, true>;
    t->transpose_narrow = true;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
    g_carry_in_registers = CarryInRegisters();
    t->transpose_stream_lines = true; // TransposeShifted
    t->transpose_small[0] = TransposeTile<uint8_t, DMLCPU_TILE_EDGE_X8, false, true>;
    t->transpose_small[1] = TransposeTile<uint16_t, DMLCPU_TILE_EDGE_X16, false, true>;
    t->transpose_small[2] = TransposeTile<uint32_t, DMLCPU_TILE_EDGE_X32, false, true>;
    t->transpose_small[3] = TransposeTile<uint64_t, DMLCPU_TILE_EDGE_X64, false, true>;
#endif
    t->stream_fence = StreamFence;
#endif
}

} // namespace HWY_NAMESPACE
} // namespace dmlcpu
HWY_AFTER_NAMESPACE();
