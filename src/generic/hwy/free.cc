// The portable tier's order-free reductions (integer sums, MIN/MAX, ARGMIN/ARGMAX), written
// once with Highway. Results are the scalar tier's (DEF_ROW_FOLD, DEF_COL_FOLD, DEF_ROW_ARG,
// DEF_COL_ARG in generic/kernels_scalar.c): one partial per DMLCPU_BLOCK_FREE elements of a
// row, one per column. The algorithms are those of simd/reduce_free.h, restated for vectors
// whose width may be known only at run time (SVE): no arrays of vectors; the running values
// of a column tile live in the scratch buffer as plain lanes.
//
//   integer sums     lanes of the element's width: the result is narrowed to that width at the
//                    end, and the low bits of sums and products depend only on the low bits
//   integer MIN/MAX  lanewise Min/Max of the element type
//   float MIN/MAX    on the bits as integers (Fmm below): exact for -0 < +0 and any NaN, with
//                    no float compare; FLOAT16 stays in 16-bit lanes (no conversion to f32)
//   ARG*             a key per element whose integer or float order is the numeric one (-0 ==
//                    +0): the element itself, or for FLOAT16 its signed magnitude; NaN is
//                    tracked apart (RowArg, ColArgRows: free_arg-inl.h, included below)
// Narrow contiguous columns are read as rows a whole number of vectors wide (NarrowWidth).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "generic/hwy/free.cc"
#include <hwy/foreach_target.h> // IWYU pragma: keep

#include <hwy/highway.h>

#include <math.h>
#include <string.h>

#include <limits>
#include <type_traits>

extern "C" {
#include "kernels.h"
}

HWY_BEFORE_NAMESPACE();
namespace dmlcpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr size_t kBlock = DMLCPU_BLOCK_FREE;

inline size_t MinSz(size_t a, size_t b) { return a < b ? a : b; }
inline size_t MaxSz(size_t a, size_t b) { return a > b ? a : b; }

// The first c (< Lanes(d)) elements at p, zeros in the other lanes; reads nothing past p + c.
template <class D, typename T>
HWY_INLINE hn::Vec<D> LoadPart(D d, const T *p, size_t c)
{
    HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)] = {};
    memcpy(buf, p, c * sizeof(T));
    return hn::Load(d, buf);
}

// A read prefetch into L1.
inline void PrefetchL1(const void *p) { __builtin_prefetch(p, 0, 3); }

// ---- lanewise operations of the folds: vector form F and scalar form S (the same bits) ----

// Low half of the lane product: 64-bit lanes from 32x32-bit products (no target of Highway
// 1.0.3 has a 64-bit multiply on x86).
#if HWY_TARGET == HWY_SCALAR // Highway's fallback (never chosen by the shim) has one lane
template <class D> HWY_INLINE hn::Vec<D> MulLo(D, hn::Vec<D> a, hn::Vec<D> b) { return hn::Mul(a, b); }
#else
template <class D, typename std::enable_if<sizeof(hn::TFromD<D>) == 8, int>::type = 0>
HWY_INLINE hn::Vec<D> MulLo(D d, hn::Vec<D> a, hn::Vec<D> b)
{
    const hn::RebindToUnsigned<D> du;
    const hn::Repartition<uint32_t, D> d32;
    const auto au = hn::BitCast(du, a), bu = hn::BitCast(du, b);
    const auto lolo = hn::MulEven(hn::BitCast(d32, au), hn::BitCast(d32, bu));
    const auto cross = hn::Add(hn::MulEven(hn::BitCast(d32, hn::ShiftRight<32>(au)), hn::BitCast(d32, bu)),
                               hn::MulEven(hn::BitCast(d32, au), hn::BitCast(d32, hn::ShiftRight<32>(bu))));
    return hn::BitCast(d, hn::Add(lolo, hn::ShiftLeft<32>(cross)));
}
template <class D, typename std::enable_if<sizeof(hn::TFromD<D>) != 8, int>::type = 0>
HWY_INLINE hn::Vec<D> MulLo(D, hn::Vec<D> a, hn::Vec<D> b)
{
    return hn::Mul(a, b);
}
#endif

template <typename T> using Uns = typename std::make_unsigned<T>::type;

struct OpAdd {
    template <class D> static hn::Vec<D> F(D, hn::Vec<D> a, hn::Vec<D> b) { return hn::Add(a, b); }
    template <typename T> static T S(T a, T b) { return (T)(Uns<T>)((Uns<T>)a + (Uns<T>)b); }
    template <typename T> static T Id() { return 0; }
};
struct OpMul {
    template <class D> static hn::Vec<D> F(D d, hn::Vec<D> a, hn::Vec<D> b) { return MulLo(d, a, b); }
    template <typename T> static T S(T a, T b)
    {
        // unsigned int promotion keeps 16-bit and narrower products defined
        return (T)(Uns<T>)((Uns<T>)a * (unsigned long long)(Uns<T>)b);
    }
    template <typename T> static T Id() { return 1; }
};
struct OpMax {
    template <class D> static hn::Vec<D> F(D, hn::Vec<D> a, hn::Vec<D> b) { return hn::Max(a, b); }
    template <typename T> static T S(T a, T b) { return a > b ? a : b; }
    template <typename T> static T Id() { return std::numeric_limits<T>::lowest(); }
};
struct OpMin {
    template <class D> static hn::Vec<D> F(D, hn::Vec<D> a, hn::Vec<D> b) { return hn::Min(a, b); }
    template <typename T> static T S(T a, T b) { return a < b ? a : b; }
    template <typename T> static T Id() { return std::numeric_limits<T>::max(); }
};

// What an element contributes: itself, |x| (wrapping: |INT_MIN| keeps its bits), x*x.
struct MapId {
    template <class D> static hn::Vec<D> F(D, hn::Vec<D> v) { return v; }
};
struct MapAbs {
    template <class D, typename std::enable_if<std::is_signed<hn::TFromD<D>>::value, int>::type = 0> static hn::Vec<D> F(D, hn::Vec<D> v) { return hn::Abs(v); }
    template <class D, typename std::enable_if<!std::is_signed<hn::TFromD<D>>::value, int>::type = 0> static hn::Vec<D> F(D, hn::Vec<D> v) { return v; }
};
struct MapSq {
    template <class D> static hn::Vec<D> F(D d, hn::Vec<D> v) { return MulLo(d, v, v); }
};

// A lane value into a partial: signed integers as i64, unsigned as u64 (integer sums read u64:
// the same low bits), floats as themselves.
template <typename T, typename std::enable_if<std::is_integral<T>::value && std::is_signed<T>::value, int>::type = 0> void PutValue(partial *o, T v) { o->v.i64 = v; }
template <typename T, typename std::enable_if<std::is_unsigned<T>::value, int>::type = 0> void PutValue(partial *o, T v) { o->v.u64 = v; }
inline void PutValue(partial *o, float v) { o->v.f32 = v; }
inline void PutValue(partial *o, double v) { o->v.f64 = v; }

// OP over the lanes of v, in scalar: once per block or column, not worth a shuffle tree.
template <class Op, class D>
HWY_INLINE hn::TFromD<D> FoldLanes(D d, hn::Vec<D> v)
{
    using T = hn::TFromD<D>;
    HWY_ALIGN T t[HWY_MAX_BYTES / sizeof(T)];
    hn::Store(v, d, t);
    T r = t[0];
    for (size_t i = 1, N = hn::Lanes(d); i < N; i++)
        r = Op::S(r, t[i]);
    return r;
}

// The extreme over the lanes of v. Bytes go through 16-bit lanes (Highway 1.0.3 has no 8-bit
// MinOfLanes / MaxOfLanes on AVX2): the extreme of each even and odd byte, sign- or zero-extended.
template <bool IS_MAX, class D, typename std::enable_if<sizeof(hn::TFromD<D>) != 1 || HWY_TARGET == HWY_SCALAR, int>::type = 0>
HWY_INLINE hn::TFromD<D> ExtOfLanes(D d, hn::Vec<D> v)
{
    return hn::GetLane(IS_MAX ? hn::MaxOfLanes(d, v) : hn::MinOfLanes(d, v));
}
template <bool IS_MAX, class D, typename std::enable_if<sizeof(hn::TFromD<D>) == 1 && HWY_TARGET != HWY_SCALAR, int>::type = 0>
HWY_INLINE hn::TFromD<D> ExtOfLanes(D, hn::Vec<D> v)
{
    using W = typename std::conditional<std::is_signed<hn::TFromD<D>>::value, int16_t, uint16_t>::type;
    const hn::Repartition<W, D> dw;
    const auto w = hn::BitCast(dw, v);
    const auto even = hn::ShiftRight<8>(hn::ShiftLeft<8>(w)), odd = hn::ShiftRight<8>(w);
    return static_cast<hn::TFromD<D>>(ExtOfLanes<IS_MAX>(dw, IS_MAX ? hn::Max(even, odd) : hn::Min(even, odd)));
}

// OP over the lanes of v, with Highway's reductions for the extremes. Not for sums: on AVX3
// Highway's SumOfLanes of 32- and 64-bit integers is GCC's _mm512_reduce_add_epi32/epi64, which
// adds in signed C arithmetic, so a sum that wraps (as integer sums may) is undefined behaviour
// there (UndefinedBehaviorSanitizer: "signed integer overflow" in avx512fintrin.h). The lanes are
// summed in OpAdd's unsigned arithmetic instead, once per row or block.
template <class Op> struct LaneFold {
    template <class D> static hn::TFromD<D> Do(D d, hn::Vec<D> v) { return FoldLanes<Op>(d, v); }
};
template <> struct LaneFold<OpMax> {
    template <class D> static hn::TFromD<D> Do(D d, hn::Vec<D> v) { return ExtOfLanes<true>(d, v); }
};
template <> struct LaneFold<OpMin> {
    template <class D> static hn::TFromD<D> Do(D d, hn::Vec<D> v) { return ExtOfLanes<false>(d, v); }
};

// ---- integer folds: SUM, ASUM, SQSUM, PROD (32- and 64-bit), MIN and MAX (every width) ----

// The lanewise fold of the m elements at p: four independent chains, the tail filled with the
// identity.
template <class Map, class Op, class D, typename T>
HWY_INLINE hn::Vec<D> FoldVec(D d, const T *p, size_t m)
{
    const size_t N = hn::Lanes(d);
    const auto id = hn::Set(d, Op::template Id<T>());
    auto a0 = id, a1 = id, a2 = id, a3 = id;
    size_t i = 0;
    for (; i + 4 * N <= m; i += 4 * N) {
        a0 = Op::F(d, a0, Map::F(d, hn::LoadU(d, p + i)));
        a1 = Op::F(d, a1, Map::F(d, hn::LoadU(d, p + i + N)));
        a2 = Op::F(d, a2, Map::F(d, hn::LoadU(d, p + i + 2 * N)));
        a3 = Op::F(d, a3, Map::F(d, hn::LoadU(d, p + i + 3 * N)));
    }
    for (; i + N <= m; i += N)
        a0 = Op::F(d, a0, Map::F(d, hn::LoadU(d, p + i)));
    if (i < m) {
        const auto x = Map::F(d, LoadPart(d, p + i, m - i));
        a1 = Op::F(d, a1, hn::IfThenElse(hn::FirstN(d, m - i), x, id));
    }
    return Op::F(d, Op::F(d, a0, a1), Op::F(d, a2, a3));
}

template <typename T, class Map, class Op>
void RowFold(const void *xv, size_t n, uint64_t, partial *out)
{
    const T *x = static_cast<const T *>(xv);
    const hn::ScalableTag<T> d;
    for (size_t b0 = 0; b0 < n; b0 += kBlock, out++)
        PutValue(out, LaneFold<Op>::Do(d, FoldVec<Map, Op>(d, x + b0, MinSz(n - b0, kBlock))));
}

#if HWY_TARGET != HWY_SCALAR
// Many short rows (1 <= n <= kBlock): each row of a batch of G folds into one vector, then the
// batch's vectors fold together over log2 G levels: Op(ConcatEven(b, a), ConcatOdd(b, a)) folds
// the lane pairs of a into the lower half and those of b into the upper half, so that at the end
// row i holds lanes [i * N / G, (i + 1) * N / G), folded last in scalar. G is the largest power
// of two (at most 16) that divides N; the vectors live in a stack array (SVE).
template <typename T, class Map, class Op>
void RowsFold(const void *xv, ptrdiff_t rs, size_t nrows, size_t n, partial *out)
{
    const hn::ScalableTag<T> d;
    const size_t N = hn::Lanes(d), G = MinSz(16, N & (0 - N)), L = N / G;
    const auto id = hn::Set(d, Op::template Id<T>());
    HWY_ALIGN T vecs[16 * HWY_MAX_BYTES / sizeof(T)];
    for (size_t r0 = 0; r0 < nrows; r0 += G) {
        const size_t rn = MinSz(G, nrows - r0);
        for (size_t i = 0; i < G; i++)
            hn::Store(i < rn ? FoldVec<Map, Op>(d, (const T *)((const char *)xv + (ptrdiff_t)(r0 + i) * rs), n) : id,
                      d, vecs + i * N);
        for (size_t cnt = G; cnt > 1; cnt /= 2)
            for (size_t k = 0; k < cnt / 2; k++) {
                const auto a = hn::Load(d, vecs + 2 * k * N), b = hn::Load(d, vecs + (2 * k + 1) * N);
                hn::Store(Op::F(d, hn::ConcatEven(d, b, a), hn::ConcatOdd(d, b, a)), d, vecs + k * N);
            }
        for (size_t i = 0; i < rn; i++) {
            T r = vecs[i * L];
            for (size_t l = 1; l < L; l++)
                r = Op::S(r, vecs[i * L + l]);
            PutValue(out + r0 + i, r);
        }
    }
}
#endif

// Column tiles: groups of G rows; per group every vector of the tile's columns, so each row is
// read in long stretches. VISIT(v, rows, cn) handles the tile's vector v (columns v*N ..), where
// rows(i) is row i of the group's elements at that vector and cn the columns it holds (< N only
// for the tile's last vector: lanes past cn are zeros, never stored to a column). Rows 16 ahead
// (at least 1 KiB) are prefetched.
template <class Visit>
HWY_INLINE void ColWalk(const char *x, ptrdiff_t rs, size_t nrows, size_t K, size_t N, size_t G, Visit visit)
{
    const ptrdiff_t pf = DMLCPU_COL_PREFETCH(rs);
    const size_t pstep = rs >= 64 || rs <= -64 ? 1 : G;
    for (size_t r0 = 0; r0 < nrows; r0 += G) {
        const size_t rn = MinSz(G, nrows - r0);
        const char *rb = x + (ptrdiff_t)r0 * rs;
        for (size_t i = 0; i < rn; i += pstep)
            PrefetchL1(rb + (ptrdiff_t)i * rs + pf);
        for (size_t c0 = 0; c0 < K; c0 += N)
            visit(r0, rn, rb, c0, MinSz(N, K - c0));
    }
}

// Row i of the group at rb, columns c0 .. c0 + cn, as a vector.
template <class D, typename T>
HWY_INLINE hn::Vec<D> ColLoad(D d, const char *rb, ptrdiff_t rs, size_t i, size_t c0, size_t cn)
{
    const T *p = reinterpret_cast<const T *>(rb + (ptrdiff_t)i * rs) + c0;
    return cn == hn::Lanes(d) ? hn::LoadU(d, p) : LoadPart(d, p, cn);
}

// Narrow columns whose rows lie back to back (K < N, row_stride == K elements): the tile is
// one stream of nrows * K elements, read as a matrix of W-element rows, W = NA * N a multiple
// of K with NA >= 4 vectors (independent chains); lane j of that matrix holds column j mod K.
// The rows that do not fill a last W-element row go the ordinary way. Returns W, or 0 when the
// path does not apply or (W + N) * lane_bytes bytes (the running values of the W-element rows
// and of the rest) exceed the scratch buffer.
inline size_t NarrowWidth(size_t K, size_t N, size_t esize, ptrdiff_t rs, size_t lane_bytes)
{
    if (K >= N || K > 16 || rs != (ptrdiff_t)(K * esize))
        return 0;
    size_t g = N, b = K;
    while (b) {
        const size_t r = g % b;
        g = b;
        b = r;
    }
    const size_t v = K / g, W = v * ((4 + v - 1) / v) * N;
    return (W + N) * lane_bytes <= DMLCPU_COL_FREE_SCRATCH(K) ? W : 0;
}

// Folds rows into acc[0 .. K) (whole vectors: the caller set them to the identity).
template <typename T, class Map, class Op>
void ColFoldInto(const char *x, ptrdiff_t rs, size_t nrows, size_t K, T *acc)
{
    const hn::ScalableTag<T> d;
    ColWalk(x, rs, nrows, K, hn::Lanes(d), 8,
                  [&](size_t, size_t rn, const char *rb, size_t c0, size_t cn) HWY_ATTR {
                      auto a = hn::Load(d, acc + c0);
                      if (rn == 8) {
                          for (size_t i = 0; i < 8; i += 2)
                              a = Op::F(d, a, Op::F(d, Map::F(d, ColLoad<decltype(d), T>(d, rb, rs, i, c0, cn)),
                                                    Map::F(d, ColLoad<decltype(d), T>(d, rb, rs, i + 1, c0, cn))));
                      } else {
                          for (size_t i = 0; i < rn; i++)
                              a = Op::F(d, a, Map::F(d, ColLoad<decltype(d), T>(d, rb, rs, i, c0, cn)));
                      }
                      hn::Store(a, d, acc + c0);
                  });
}

template <typename T, class Map, class Op>
void ColFold(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t, partial *out, void *scratch)
{
    const char *x = static_cast<const char *>(xv);
    const hn::ScalableTag<T> d;
    const size_t N = hn::Lanes(d), Kp = (K + N - 1) / N * N;
    T *acc = static_cast<T *>(scratch);
    const size_t w = NarrowWidth(K, N, sizeof(T), rs, sizeof(T));
    const size_t nl = w ? w + N : Kp; // running values: w lanes for the wide rows, N for the rest
    for (size_t c0 = 0; c0 < nl; c0 += N)
        hn::Store(hn::Set(d, Op::template Id<T>()), d, acc + c0);
    if (!w) {
        ColFoldInto<T, Map, Op>(x, rs, nrows, K, acc);
        for (size_t k = 0; k < K; k++)
            PutValue(out + k, acc[k]);
        return;
    }
    const size_t wrows = nrows * K / w, done = wrows * w / K;
    T *rest = acc + w;
    if (wrows)
        ColFoldInto<T, Map, Op>(x, (ptrdiff_t)(w * sizeof(T)), wrows, w, acc);
    if (done < nrows)
        ColFoldInto<T, Map, Op>(x + (ptrdiff_t)done * rs, rs, nrows - done, K, rest);
    for (size_t k = 0; k < K; k++) {
        T r = rest[k];
        for (size_t j = k; j < w; j += K)
            r = Op::S(r, acc[j]);
        PutValue(out + k, r);
    }
}

// ---- float MIN/MAX on the bits as integers (U unsigned, I signed, of the float's width):
// non-negative floats order like their bits as signed integers and lie above every negative;
// negative floats order in reverse of their bits. MAX keeps the signed max of the bits (the
// answer when it is >= 0), the signed min (the answer when all are negative) and the unsigned
// max; MIN keeps the unsigned max (the answer when one is negative), the unsigned min and the
// signed max. A NaN shows as a signed max above +inf's bits or an unsigned max above -inf's.
// The partial takes the float of the answer's bits (FLOAT16: converted exactly to f32). ----

template <typename U> struct FloatBits;
template <> struct FloatBits<uint16_t> {
    using I = int16_t;
    static constexpr uint16_t kInf = 0x7c00;
    static void Put(partial *o, uint16_t b) { o->v.f32 = dmlcpu_f16_to_f32(b); }
    static void PutNaN(partial *o) { o->v.f32 = NAN; }
};
template <> struct FloatBits<uint32_t> {
    using I = int32_t;
    static constexpr uint32_t kInf = 0x7f800000u;
    static void Put(partial *o, uint32_t b) { memcpy(&o->v.f32, &b, 4); }
    static void PutNaN(partial *o) { o->v.f32 = NAN; }
};
template <> struct FloatBits<uint64_t> {
    using I = int64_t;
    static constexpr uint64_t kInf = 0x7ff0000000000000u;
    static void Put(partial *o, uint64_t b) { memcpy(&o->v.f64, &b, 8); }
    static void PutNaN(partial *o) { o->v.f64 = NAN; }
};

// The three running values (r1, r2, r3) of MAX (IS_MAX) or MIN, and their resolution.
template <typename U, bool IS_MAX> struct Fmm {
    using FB = FloatBits<U>;
    using I = typename FB::I;
    static constexpr U kSign = (U)((U)1 << (8 * sizeof(U) - 1));
    static constexpr U kFill = IS_MAX ? (U)(FB::kInf | kSign) : FB::kInf; // -inf, +inf

    // r1, r2, r3 as unsigned bits: MAX (smax, smin, umax), MIN (umax, umin, smax).
    template <class DU> static void Step(DU du, hn::Vec<DU> x, hn::Vec<DU> &r1, hn::Vec<DU> &r2, hn::Vec<DU> &r3)
    {
        const hn::RebindToSigned<DU> di;
        const auto xi = hn::BitCast(di, x);
        if (IS_MAX) {
            r1 = hn::BitCast(du, hn::Max(hn::BitCast(di, r1), xi));
            r2 = hn::BitCast(du, hn::Min(hn::BitCast(di, r2), xi));
            r3 = hn::Max(r3, x);
        } else {
            r1 = hn::Max(r1, x);
            r2 = hn::Min(r2, x);
            r3 = hn::BitCast(du, hn::Max(hn::BitCast(di, r3), xi));
        }
    }
    static U S1(U a, U b) { return IS_MAX ? ((I)a > (I)b ? a : b) : (a > b ? a : b); }
    static U S2(U a, U b) { return IS_MAX ? ((I)a < (I)b ? a : b) : (a < b ? a : b); }
    static U S3(U a, U b) { return IS_MAX ? (a > b ? a : b) : ((I)a > (I)b ? a : b); }
    static void Resolve(partial *o, U r1, U r2, U r3)
    {
        const U smax = IS_MAX ? r1 : r3, umax = IS_MAX ? r3 : r1;
        if ((I)smax > (I)FB::kInf || umax > (U)(FB::kInf | kSign)) {
            FB::PutNaN(o);
            return;
        }
        if (IS_MAX)
            FB::Put(o, (I)r1 >= 0 ? r1 : r2);
        else
            FB::Put(o, r1 & kSign ? r1 : r2);
    }
};

template <typename U, bool IS_MAX>
void RowFmm(const void *xv, size_t n, uint64_t, partial *out)
{
    using F = Fmm<U, IS_MAX>;
    const U *x = static_cast<const U *>(xv);
    const hn::ScalableTag<U> du;
    const size_t N = hn::Lanes(du);
    const auto fill = hn::Set(du, F::kFill);
    for (size_t b0 = 0; b0 < n; b0 += kBlock, out++) {
        const size_t m = MinSz(n - b0, kBlock);
        const U *p = x + b0;
        auto a1 = fill, a2 = fill, a3 = fill, c1 = fill, c2 = fill, c3 = fill;
        size_t i = 0;
        for (; i + 2 * N <= m; i += 2 * N) {
            F::Step(du, hn::LoadU(du, p + i), a1, a2, a3);
            F::Step(du, hn::LoadU(du, p + i + N), c1, c2, c3);
        }
        for (; i < m; i += N)
            F::Step(du, i + N <= m ? hn::LoadU(du, p + i) : hn::IfThenElse(hn::FirstN(du, m - i), LoadPart(du, p + i, m - i), fill),
                    a1, a2, a3);
        // each running value is the bits of an element (or the fill): fold them in as such
        F::Step(du, c1, a1, a2, a3);
        F::Step(du, c2, a1, a2, a3);
        F::Step(du, c3, a1, a2, a3);
        HWY_ALIGN U t1[HWY_MAX_BYTES / sizeof(U)], t2[HWY_MAX_BYTES / sizeof(U)], t3[HWY_MAX_BYTES / sizeof(U)];
        hn::Store(a1, du, t1);
        hn::Store(a2, du, t2);
        hn::Store(a3, du, t3);
        U r1 = t1[0], r2 = t2[0], r3 = t3[0];
        for (size_t l = 1; l < N; l++) {
            r1 = F::S1(r1, t1[l]);
            r2 = F::S2(r2, t2[l]);
            r3 = F::S3(r3, t3[l]);
        }
        F::Resolve(out, r1, r2, r3);
    }
}

// Folds rows into the running values a1, a2, a3 [0 .. K) (whole vectors, set by the caller).
template <typename U, bool IS_MAX>
void ColFmmInto(const char *x, ptrdiff_t rs, size_t nrows, size_t K, U *a1, U *a2, U *a3)
{
    using F = Fmm<U, IS_MAX>;
    const hn::ScalableTag<U> du;
    ColWalk(x, rs, nrows, K, hn::Lanes(du), 8,
                  [&](size_t, size_t rn, const char *rb, size_t c0, size_t cn) HWY_ATTR {
                      auto r1 = hn::LoadU(du, a1 + c0), r2 = hn::LoadU(du, a2 + c0), r3 = hn::LoadU(du, a3 + c0);
                      for (size_t i = 0; i < rn; i++)
                          F::Step(du, ColLoad<decltype(du), U>(du, rb, rs, i, c0, cn), r1, r2, r3);
                      hn::StoreU(r1, du, a1 + c0);
                      hn::StoreU(r2, du, a2 + c0);
                      hn::StoreU(r3, du, a3 + c0);
                  });
}

template <typename U, bool IS_MAX>
void ColFmm(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t, partial *out, void *scratch)
{
    using F = Fmm<U, IS_MAX>;
    const char *x = static_cast<const char *>(xv);
    const hn::ScalableTag<U> du;
    const size_t N = hn::Lanes(du), Kp = (K + N - 1) / N * N;
    const size_t w = NarrowWidth(K, N, sizeof(U), rs, 3 * sizeof(U));
    const size_t nl = w ? w + N : Kp; // as in ColFold
    U *a1 = static_cast<U *>(scratch), *a2 = a1 + nl, *a3 = a2 + nl;
    for (size_t c0 = 0; c0 < nl; c0 += N) {
        const auto fill = hn::Set(du, F::kFill);
        hn::StoreU(fill, du, a1 + c0);
        hn::StoreU(fill, du, a2 + c0);
        hn::StoreU(fill, du, a3 + c0);
    }
    if (!w) {
        ColFmmInto<U, IS_MAX>(x, rs, nrows, K, a1, a2, a3);
        for (size_t k = 0; k < K; k++)
            F::Resolve(out + k, a1[k], a2[k], a3[k]);
        return;
    }
    const size_t wrows = nrows * K / w, done = wrows * w / K;
    if (wrows)
        ColFmmInto<U, IS_MAX>(x, (ptrdiff_t)(w * sizeof(U)), wrows, w, a1, a2, a3);
    if (done < nrows)
        ColFmmInto<U, IS_MAX>(x + (ptrdiff_t)done * rs, rs, nrows - done, K, a1 + w, a2 + w, a3 + w);
    for (size_t k = 0; k < K; k++) {
        U r1 = a1[w + k], r2 = a2[w + k], r3 = a3[w + k];
        for (size_t j = k; j < w; j += K) {
            r1 = F::S1(r1, a1[j]);
            r2 = F::S2(r2, a2[j]);
            r3 = F::S3(r3, a3[j]);
        }
        F::Resolve(out + k, r1, r2, r3);
    }
}

#include "generic/hwy/free_arg-inl.h"

// ---- the table ----

template <typename T> struct Dt;
#define DMLCPU_DT(T, E)                                                                            \
    template <> struct Dt<T> {                                                                     \
        static constexpr int kId = DMLCPU_DATA_TYPE_##E;                                           \
    };
DMLCPU_DT(int8_t, INT8)
DMLCPU_DT(uint8_t, UINT8)
DMLCPU_DT(int16_t, INT16)
DMLCPU_DT(uint16_t, UINT16)
DMLCPU_DT(int32_t, INT32)
DMLCPU_DT(uint32_t, UINT32)
DMLCPU_DT(int64_t, INT64)
DMLCPU_DT(uint64_t, UINT64)
#undef DMLCPU_DT

template <class Map, class Op, typename T> void SetFold(kernel_table *t, reduce_kind kind)
{
    t->row[kind][Dt<T>::kId] = RowFold<T, Map, Op>;
#if HWY_TARGET != HWY_SCALAR
    t->rows[kind][Dt<T>::kId] = RowsFold<T, Map, Op>;
#endif
    t->col[kind][Dt<T>::kId] = ColFold<T, Map, Op>;
}
template <class Map, class Op, typename... Ts> void SetFolds(kernel_table *t, reduce_kind kind)
{
    (SetFold<Map, Op, Ts>(t, kind), ...);
}
template <class P> void SetArg(kernel_table *t, int type)
{
    t->row[RK_ARGMAX][type] = RowArg<P, true, false>;
    t->col[RK_ARGMAX][type] = ColArg<P, true, false>;
    t->row[RK_ARGMAX_LAST][type] = RowArg<P, true, true>;
    t->col[RK_ARGMAX_LAST][type] = ColArg<P, true, true>;
    t->row[RK_ARGMIN][type] = RowArg<P, false, false>;
    t->col[RK_ARGMIN][type] = ColArg<P, false, false>;
    t->row[RK_ARGMIN_LAST][type] = RowArg<P, false, true>;
    t->col[RK_ARGMIN_LAST][type] = ColArg<P, false, true>;
}
template <typename... Ts> void SetArgInts(kernel_table *t) { (SetArg<ArgInt<Ts>>(t, Dt<Ts>::kId), ...); }

void FillFree(kernel_table *t)
{
    SetFolds<MapId, OpAdd, int32_t, uint32_t, int64_t, uint64_t>(t, RK_SUM);
    SetFolds<MapAbs, OpAdd, int32_t, uint32_t, int64_t, uint64_t>(t, RK_ASUM);
    SetFolds<MapSq, OpAdd, int32_t, uint32_t, int64_t, uint64_t>(t, RK_SQSUM);
    SetFolds<MapId, OpMul, int32_t, uint32_t, int64_t, uint64_t>(t, RK_PROD);
    SetFolds<MapId, OpMax, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t>(t, RK_MAX);
    SetFolds<MapId, OpMin, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t>(t, RK_MIN);

    t->row[RK_MAX][DMLCPU_DATA_TYPE_FLOAT16] = RowFmm<uint16_t, true>;
    t->col[RK_MAX][DMLCPU_DATA_TYPE_FLOAT16] = ColFmm<uint16_t, true>;
    t->row[RK_MAX][DMLCPU_DATA_TYPE_FLOAT32] = RowFmm<uint32_t, true>;
    t->col[RK_MAX][DMLCPU_DATA_TYPE_FLOAT32] = ColFmm<uint32_t, true>;
    t->row[RK_MAX][DMLCPU_DATA_TYPE_FLOAT64] = RowFmm<uint64_t, true>;
    t->col[RK_MAX][DMLCPU_DATA_TYPE_FLOAT64] = ColFmm<uint64_t, true>;
    t->row[RK_MIN][DMLCPU_DATA_TYPE_FLOAT16] = RowFmm<uint16_t, false>;
    t->col[RK_MIN][DMLCPU_DATA_TYPE_FLOAT16] = ColFmm<uint16_t, false>;
    t->row[RK_MIN][DMLCPU_DATA_TYPE_FLOAT32] = RowFmm<uint32_t, false>;
    t->col[RK_MIN][DMLCPU_DATA_TYPE_FLOAT32] = ColFmm<uint32_t, false>;
    t->row[RK_MIN][DMLCPU_DATA_TYPE_FLOAT64] = RowFmm<uint64_t, false>;
    t->col[RK_MIN][DMLCPU_DATA_TYPE_FLOAT64] = ColFmm<uint64_t, false>;

    SetArgInts<int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t>(t);
    SetArg<ArgFloat<float>>(t, DMLCPU_DATA_TYPE_FLOAT32);
    SetArg<ArgFloat<double>>(t, DMLCPU_DATA_TYPE_FLOAT64);
    SetArg<ArgF16>(t, DMLCPU_DATA_TYPE_FLOAT16);
}

} // namespace HWY_NAMESPACE
} // namespace dmlcpu
HWY_AFTER_NAMESPACE();
