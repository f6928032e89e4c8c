// The portable tier's copies, written once with Highway: strided runs (SLICE with steps, JOIN,
// SPLIT), zero fills, SLICE_GRAD's expansion by 2 and the transposed tiles of IDENTITY. Copies
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

// ------------------------------------------------------------------------------ tiles

#if HWY_TARGET != HWY_SCALAR
// One round of the block transpose over n 16-byte rows: rows k and k + n/2, interleaved element
// by element (low halves, then high halves), become rows 2k and 2k + 1. Writing the row index as
// bits r and the column as bits c, a round rotates the bit string (r, c) left by one, so log2(n)
// rounds turn (r, c) into (c, r). (Highway's interleaves work within 16-byte blocks on every
// target, and the tag here is one block wide.)
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

// Transposes a B x B block, B = 16 / sizeof(T): d[r * ds + c] = s[c * ss + r] for r, c < B
// (strides in elements), with log2(B) rounds of B / 2 pairs of interleaves.
template <typename T>
HWY_INLINE void TransposeBlock(T *HWY_RESTRICT d, ptrdiff_t ds, const T *HWY_RESTRICT s,
                               ptrdiff_t ss)
{
    const hn::FixedTag<T, 16 / sizeof(T)> dt;
#define LD(i) auto v##i = hn::LoadU(dt, s + (i) * ss)
#define ST(i) hn::StoreU(v##i, dt, d + (i) * ds)
    if constexpr (sizeof(T) == 8) {
        LD(0); LD(1);
        auto b0 = hn::InterleaveLower(dt, v0, v1), b1 = hn::InterleaveUpper(dt, v0, v1);
        hn::StoreU(b0, dt, d), hn::StoreU(b1, dt, d + ds);
    } else if constexpr (sizeof(T) == 4) {
        LD(0); LD(1); LD(2); LD(3);
        Round4(dt, v0, v1, v2, v3);
        Round4(dt, v0, v1, v2, v3);
        ST(0); ST(1); ST(2); ST(3);
    } else if constexpr (sizeof(T) == 2) {
        LD(0); LD(1); LD(2); LD(3); LD(4); LD(5); LD(6); LD(7);
#define R8 Round8(dt, v0, v1, v2, v3, v4, v5, v6, v7)
        R8; R8; R8;
        ST(0); ST(1); ST(2); ST(3); ST(4); ST(5); ST(6); ST(7);
    } else {
        LD(0); LD(1); LD(2); LD(3); LD(4); LD(5); LD(6); LD(7);
        LD(8); LD(9); LD(10); LD(11); LD(12); LD(13); LD(14); LD(15);
#define R16 Round16(dt, v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15)
        R16; R16; R16; R16;
        ST(0); ST(1); ST(2); ST(3); ST(4); ST(5); ST(6); ST(7);
        ST(8); ST(9); ST(10); ST(11); ST(12); ST(13); ST(14); ST(15);
    }
#undef LD
#undef ST
#undef R8
#undef R16
}

// Copies an nr x nc tile (at most EDGE on each side) whose source columns and destination rows
// are contiguous (transpose_fn): dst[r * dr + c] = src[c * sc + r] (strides in elements). The
// tile goes through two buffers, in the memory order of copy.c's tile copy: each source column
// (a contiguous run) is copied into a row of the first buffer in one go, B x B blocks are
// transposed in registers into the second, and each of its rows is written to a destination row
// in one go; edges that do not fill a block are copied element by element. Blocks transposed
// straight from the source to the destination are slow when the rows are a multiple of 4 KiB
// apart (many lines of one cache set written at a time); the two extra passes stay in L1. The
// buffers' pitches (a tile side and 32 bytes) keep a block's rows off one cache set. For 4- and
// 8-byte elements, which no hand-written x86 tier transposes, this replaces copy.c's tile copy
// at every level: on the bench's transposes (1 thread) FLOAT32 took a quarter of its time at
// 512 KiB and a third at 64 MiB, FLOAT64 about the same at 512 KiB and half at 64 MiB. One
// buffer (blocks transposed from it straight into B destination rows) was no faster at 512 KiB
// and 10-30% slower at 64 MiB.
template <typename T, size_t EDGE>
void TransposeTile(char *dst, ptrdiff_t dr, const char *src, ptrdiff_t sc, size_t nr, size_t nc)
{
    constexpr size_t B = 16 / sizeof(T), PAD = 32 / sizeof(T);
    alignas(64) T in[EDGE * (EDGE + PAD)], out[EDGE * (EDGE + PAD)];
    T *d = reinterpret_cast<T *>(dst);
    const T *s = reinterpret_cast<const T *>(src);
    const size_t ip = nr + PAD, op = nc + PAD; // pitches
    for (size_t c = 0; c < nc; c++)
        memcpy(in + c * ip, s + (ptrdiff_t)c * sc, nr * sizeof(T));
    const size_t rfull = nr / B * B, cfull = nc / B * B;
    for (size_t c0 = 0; c0 < cfull; c0 += B)
        for (size_t r0 = 0; r0 < rfull; r0 += B)
            TransposeBlock<T>(out + r0 * op + c0, (ptrdiff_t)op, in + c0 * ip + r0, (ptrdiff_t)ip);
    for (size_t c = 0; c < nc; c++) // the edges that do not fill a block
        for (size_t r = c < cfull ? rfull : 0; r < nr; r++)
            out[r * op + c] = in[c * ip + r];
    for (size_t r = 0; r < nr; r++)
        memcpy(d + (ptrdiff_t)r * dr, out + r * op, nc * sizeof(T));
}
#endif

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
#if HWY_TARGET != HWY_SCALAR
    t->transpose[0] = TransposeTile<uint8_t, DMLCPU_TILE_EDGE_X8>;
    t->transpose[1] = TransposeTile<uint16_t, DMLCPU_TILE_EDGE_X16>;
    t->transpose[2] = TransposeTile<uint32_t, DMLCPU_TILE_EDGE_X32>;
    t->transpose[3] = TransposeTile<uint64_t, DMLCPU_TILE_EDGE_X64>;
#endif
}

} // namespace HWY_NAMESPACE
} // namespace dmlcpu
HWY_AFTER_NAMESPACE();
