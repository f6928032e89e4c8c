// The portable tier's canonical float sums (SPEC 4: SUM, L1, SUM_SQUARE, MULTIPLY), written once
// with Highway. Results are the scalar tier's (generic/kernels_scalar.c: DEF_ROW_CANON,
// DEF_COL_CANON) bit for bit, on every target and vector length.
//
// The virtual vector of SPEC 4 (L = 64 f32 or 32 f64 lanes) is a fixed array of L accumulators
// whatever the hardware width: vectors of N lanes (a tag capped at 16 f32 / 8 f64, so N is 4, 8
// or 16 f32 and 2, 4 or 8 f64 on x86, 4 / 2 on NEON, and up to the cap on SVE at run time; N is
// a power of two, Highway's SVE vectors being SV_POW2) walk it as L / N accumulator vectors kept
// in a 256-byte stack array with Load/Store. Sizeless SVE vectors cannot live in arrays; the
// array stays in L1 and the dependency through it spans L / N vectors, so it costs one load and
// one store per 4 N elements. A row kernel reads a block in chunks of 4 N consecutive elements
// and turns a chunk into its N quads in canonical order with even/odd pair operations:
//   p = ConcatEven(b, a) op ConcatOdd(b, a) = [x0 op x1, x2 op x3, ...] (pairs of 2 N elements)
//   q = ConcatEven(p', p) op ConcatOdd(p', p) = [(x0 op x1) op (x2 op x3), ...]
// which is step 2's order exactly. Chunk c holds quads c N .. c N + N - 1, lanes N (c mod L/N)..,
// so it goes to accumulator c mod (L / N). The halving tree first combines whole accumulators
// (h = L/2 .. N), then runs inside the last vector.
//
// Elements past the end of a group are the identity: a partial load holds fill where elements
// are missing, MAP(fill) being the identity, and a quad wholly past the end is the identity
// itself. Adding the identity to a lane leaves it unchanged (a lane starts at +0 and only adds,
// so it is never -0; and x * 1 = x), so accumulators that took no quad may join the tree (rows)
// or be skipped (columns).
// Partial loads never read a byte past the given elements: masked loads where the target's are
// true masked loads (AVX2 and AVX3 for 4- and 8-byte lanes, AVX3 and SVE for all), otherwise
// through a small stack buffer.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "generic/hwy/sums.cc"
#include <hwy/foreach_target.h> // IWYU pragma: keep

#include <hwy/cache_control.h>
#include <hwy/highway.h>
#include <math.h>
#include <string.h>

#include "kernels.h"

HWY_BEFORE_NAMESPACE();
namespace dmlcpu {
namespace HWY_NAMESPACE {
#if HWY_TARGET != HWY_SCALAR // Highway's one-lane fallback: the shim never picks it
namespace hn = hwy::HWY_NAMESPACE;

// ---- accumulator types: the tag, L, the block length, the partial's field ----
template <typename A> struct Acc;
template <> struct Acc<float> {
    using D = hn::CappedTag<float, 16>;
    static constexpr size_t kL = DMLCPU_LANES_F32, kBlock = DMLCPU_BLOCK_F32;
    static void Put(partial *o, float v) { o->v.f32 = v; }
    static void PutAux(partial *o, float v) { o->aux.f32 = v; }
};
template <> struct Acc<double> {
    using D = hn::CappedTag<double, 8>;
    static constexpr size_t kL = DMLCPU_LANES_F64, kBlock = DMLCPU_BLOCK_F64;
    static void Put(partial *o, double v) { o->v.f64 = v; }
    static void PutAux(partial *o, double v) { o->aux.f64 = v; }
};

// ---- loads: N elements of the input type T as accumulators, whole or the first n < N ----

// Whether MaskedLoad of lanes of `bytes` reads nothing where the mask is false.
constexpr bool TrueMaskedLoad(size_t bytes)
{
    (void)bytes; // only the AVX2 answer depends on it
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2
    return true;
#elif HWY_TARGET == HWY_AVX2
    return bytes >= 4;
#else
    return false;
#endif
}

// The first n (< Lanes(d)) elements of p as a vector of d, zeros elsewhere.
template <class D> HWY_INLINE hn::Vec<D> LoadFirst(D d, const hn::TFromD<D> *p, size_t n)
{
    using T = hn::TFromD<D>;
    if constexpr (TrueMaskedLoad(sizeof(T))) {
        return hn::MaskedLoad(hn::FirstN(d, n), d, p);
    } else {
        HWY_ALIGN T buf[hn::MaxLanes(d)] = {};
        memcpy(buf, p, n * sizeof(T));
        return hn::Load(d, buf);
    }
}

// FLOAT16 to FLOAT32, exactly (bits of binary16 in u16 lanes). Highway's PromoteTo is exact on
// the targets with a hardware conversion; SSE4's emulation turns +-inf into 65536, so there the
// conversion is done on the bits: a finite value's exponent and mantissa, moved to f32's
// positions, are the value times 2^-112 (subnormals included), so one exact multiply by 2^112
// rescales them; inf and NaN keep their mantissa under an all-ones exponent.
template <class DF> HWY_INLINE hn::Vec<DF> HalfToFloat(DF df, hn::Vec<hn::Rebind<uint16_t, DF>> h)
{
#if HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_EMU128
    const hn::RebindToSigned<DF> di;
    const auto w = hn::PromoteTo(di, hn::BitCast(hn::Rebind<int16_t, DF>(), h)); // sign-extended
    const auto sign = hn::ShiftLeft<16>(hn::And(w, hn::Set(di, 0x8000)));
    const auto em = hn::And(w, hn::Set(di, 0x7fff));
    const auto bits = hn::ShiftLeft<13>(em);
    const auto finite = hn::Mul(hn::BitCast(df, bits), hn::Set(df, 0x1p112f));
    const auto special = hn::BitCast(df, hn::Or(bits, hn::Set(di, 0x7f800000)));
    const auto mag = hn::IfThenElse(hn::RebindMask(df, hn::Gt(em, hn::Set(di, 0x7bff))), special, finite);
    return hn::Or(mag, hn::BitCast(df, sign));
#else
    return hn::PromoteTo(df, hn::BitCast(hn::Rebind<hwy::float16_t, DF>(), h));
#endif
}

// In<T>::Full / Part load N (or the first n) elements of T into accumulator vectors of d; Part
// puts fill where elements are missing.
template <typename T> struct In {
    template <class D> static HWY_INLINE hn::Vec<D> Full(D d, const T *p) { return hn::LoadU(d, p); }
    template <class D> static HWY_INLINE hn::Vec<D> Part(D d, const T *p, size_t n, hn::Vec<D> fill)
    {
        return hn::IfThenElse(hn::FirstN(d, n), LoadFirst(d, p, n), fill);
    }
};
template <> struct In<uint16_t> { // FLOAT16, accumulating in f32
    template <class D> static HWY_INLINE hn::Vec<D> Full(D d, const uint16_t *p)
    {
        return HalfToFloat(d, hn::LoadU(hn::Rebind<uint16_t, D>(), p));
    }
    template <class D> static HWY_INLINE hn::Vec<D> Part(D d, const uint16_t *p, size_t n, hn::Vec<D> fill)
    {
        return hn::IfThenElse(hn::FirstN(d, n), HalfToFloat(d, LoadFirst(hn::Rebind<uint16_t, D>(), p, n)), fill);
    }
};

// ---- maps and operations ----
struct MapId {
    template <class V> static HWY_INLINE V Do(V v) { return v; }
};
struct MapAbs {
    template <class V> static HWY_INLINE V Do(V v) { return hn::Abs(v); }
};
struct MapSq {
    template <class V> static HWY_INLINE V Do(V v) { return hn::Mul(v, v); }
};
struct OpAdd {
    static constexpr int kId = 0;
    template <class V> static HWY_INLINE V Do(V a, V b) { return hn::Add(a, b); }
    template <typename S> static HWY_INLINE S Scalar(S a, S b) { return a + b; }
};
struct OpMul {
    static constexpr int kId = 1;
    template <class V> static HWY_INLINE V Do(V a, V b) { return hn::Mul(a, b); }
    template <typename S> static HWY_INLINE S Scalar(S a, S b) { return a * b; }
};

// The N quads of the 4 N mapped elements a, b, c, e (consecutive vectors). Where vectors are
// wider than one 128-bit block (AVX2, AVX3), ConcatEven/ConcatOdd cross blocks, which costs two
// shuffles each there; for f32 the quads are formed inside blocks instead, in a permuted order
// (QuadPos) that the tree undoes once per block of the group:
//   s = a op Shuffle2301(a) holds a's pairs in its even lanes (x0 op x1, -, x2 op x3, -);
//   u = OddEven(s_b, s_a) = [a's pair 0, b's pair 0, a's pair 1, b's pair 1] per block;
//   w = u op Shuffle1032(u) = [a's quad, b's quad, -, -] per block; the low halves of w_ab and
//   w_ce, interleaved, are [quad of a, of b, of c, of e] per block: block k holds quads k, B + k,
//   2B + k, 3B + k (B = N / 4 blocks). x op y and y op x give the same bits.
#undef DMLCPU_QUADS_IN_BLOCKS // this file is compiled once per target
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3
#define DMLCPU_QUADS_IN_BLOCKS 1
#else
#define DMLCPU_QUADS_IN_BLOCKS 0
#endif
template <class D> constexpr bool QuadsInBlocks()
{
    return DMLCPU_QUADS_IN_BLOCKS && sizeof(hn::TFromD<D>) == 4;
}

template <class Op, class D, class V> HWY_INLINE V Quads(D d, V a, V b, V c, V e)
{
    if constexpr (QuadsInBlocks<D>()) {
        const hn::Repartition<uint64_t, D> d64;
        const V sa = Op::Do(a, hn::Shuffle2301(a)), sb = Op::Do(b, hn::Shuffle2301(b));
        const V sc = Op::Do(c, hn::Shuffle2301(c)), se = Op::Do(e, hn::Shuffle2301(e));
        const V u0 = hn::OddEven(sb, sa), u1 = hn::OddEven(se, sc);
        const V w0 = Op::Do(u0, hn::Shuffle1032(u0)), w1 = Op::Do(u1, hn::Shuffle1032(u1));
        return hn::BitCast(d, hn::InterleaveLower(d64, hn::BitCast(d64, w0), hn::BitCast(d64, w1)));
    } else {
        const V p0 = Op::Do(hn::ConcatEven(d, b, a), hn::ConcatOdd(d, b, a));
        const V p1 = Op::Do(hn::ConcatEven(d, e, c), hn::ConcatOdd(d, e, c));
        return Op::Do(hn::ConcatEven(d, p1, p0), hn::ConcatOdd(d, p1, p0));
    }
}

// The position in a vector of Quads' output of canonical quad j (j < N).
template <class D> HWY_INLINE size_t QuadPos(D d, size_t j)
{
    if constexpr (QuadsInBlocks<D>()) {
        const size_t B = hn::Lanes(d) / 4;
        return 4 * (j % B) + j / B;
    }
    return j;
}

// ---- rows ----

// Steps 2-3 of SPEC 4 over one block p[0..m) (1 <= m <= block) and the halving steps over whole
// vectors (h = L/2 .. N): returns the vector of lanes 0..N-1 after them. acc: L accumulators.
// Every accumulator starts at the identity and joins the tree, used or not (lane op identity =
// lane); the indices into acc are constants once the loops over accumulators unroll, which
// lets the compiler keep them in registers where the vector length is fixed.
// PF > 0 (the stream forms, kernels.h): each round first prefetches its lines PF bytes ahead.
template <typename T, class Map, class Op, size_t PF, class D>
HWY_INLINE hn::Vec<D> BlockLanes(D d, const T *p, size_t m, hn::TFromD<D> *HWY_RESTRICT acc)
{
    using A = hn::TFromD<D>;
    const size_t N = hn::Lanes(d), K = Acc<A>::kL / N, chunk = 4 * N;
    const auto id = hn::Set(d, A(Op::kId));
    const size_t full = m / chunk, rest = m % chunk;
    HWY_UNROLL(16)
    for (size_t s = 0; s < K; s++)
        hn::Store(id, d, acc + s * N);
#define SUM_CHUNK(q) Quads<Op>(d, Map::Do(In<T>::Full(d, q)), Map::Do(In<T>::Full(d, (q) + N)), \
                               Map::Do(In<T>::Full(d, (q) + 2 * N)), Map::Do(In<T>::Full(d, (q) + 3 * N)))
    size_t c = 0;
    for (; c + K <= full; c += K) { // a round: every accumulator once
        const T *q = p + c * chunk;
        if constexpr (PF > 0)
            for (size_t l = 0; l < K * chunk * sizeof(T); l += 64)
                hwy::Prefetch((const char *)q + PF + l);
        HWY_UNROLL(16)
        for (size_t s = 0; s < K; s++)
            hn::Store(Op::Do(hn::Load(d, acc + s * N), SUM_CHUNK(q + s * chunk)), d, acc + s * N);
    }
    if (c < full || rest) { // the last round: whole chunks c.., then the partial chunk at full
        auto part = [&](size_t i) {
            const T *q = p + full * chunk + i * N;
            const size_t have = rest > i * N ? rest - i * N : 0;
            return have >= N ? Map::Do(In<T>::Full(d, q)) : have ? Map::Do(In<T>::Part(d, q, have, id)) : id;
        };
        const auto t = rest ? Quads<Op>(d, part(0), part(1), part(2), part(3)) : id;
        const T *q = p + c * chunk;
        HWY_UNROLL(16)
        for (size_t s = 0; s < K; s++) {
            if (c + s < full)
                hn::Store(Op::Do(hn::Load(d, acc + s * N), SUM_CHUNK(q + s * chunk)), d, acc + s * N);
            else if (c + s == full)
                hn::Store(Op::Do(hn::Load(d, acc + s * N), t), d, acc + s * N);
        }
    }
#undef SUM_CHUNK
    HWY_UNROLL(4)
    for (size_t h = K / 2; h >= 1; h /= 2) {
        HWY_UNROLL(8)
        for (size_t i = 0; i < h; i++)
            hn::Store(Op::Do(hn::Load(d, acc + i * N), hn::Load(d, acc + (i + h) * N)), d, acc + i * N);
    }
    return hn::Load(d, acc);
}

// The value of one block p[0..m): BlockLanes, its vector back in canonical lane order (canon:
// the indices of QuadPos), then the in-vector steps of the tree on the stored lanes.
template <typename T, class Map, class Op, size_t PF, class D, class Idx>
HWY_INLINE hn::TFromD<D> BlockValue(D d, const T *p, size_t m, hn::TFromD<D> *HWY_RESTRICT acc, Idx canon)
{
    const size_t N = hn::Lanes(d);
    hn::Store(hn::TableLookupLanes(BlockLanes<T, Map, Op, PF>(d, p, m, acc), canon), d, acc);
    for (size_t h = N / 2; h >= 1; h /= 2)
        for (size_t i = 0; i < h; i++)
            acc[i] = Op::Scalar(acc[i], acc[i + h]);
    return acc[0];
}

// The indices that put Quads' lanes back in canonical order (pos: N entries of scratch).
template <class D> HWY_INLINE auto CanonIndices(D d, hwy::MakeSigned<hn::TFromD<D>> *pos)
{
    for (size_t j = 0; j < hn::Lanes(d); j++)
        pos[j] = static_cast<hwy::MakeSigned<hn::TFromD<D>>>(QuadPos(d, j));
    return hn::SetTableIndices(d, pos);
}

// One partial per block of the row. PF: BlockLanes.
template <typename T, typename A, class Map, class Op, size_t PF = 0>
void RowSum(const void *xv, size_t n, uint64_t index_base, partial *out)
{
    (void)index_base;
    const T *x = static_cast<const T *>(xv);
    const typename Acc<A>::D d;
    HWY_ALIGN hwy::MakeSigned<A> pos[Acc<A>::kL];
    const auto canon = CanonIndices(d, pos);
    HWY_ALIGN A acc[Acc<A>::kL];
    for (size_t b0 = 0; b0 < n; b0 += Acc<A>::kBlock, out++) {
        const size_t m = n - b0 < Acc<A>::kBlock ? n - b0 : Acc<A>::kBlock;
        Acc<A>::Put(out, BlockValue<T, Map, Op, PF>(d, x + b0, m, acc, canon));
    }
}

// Many groups of one block each, N at a time. The in-vector steps of N groups' trees run
// together: with each group's lanes in bit-reversed order (position p holds lane bitrev(p), one
// lookup from Quads' order),
// step h = N/2 pairs neighbours, and ConcatEven(b, a) op ConcatOdd(b, a) does it for two groups
// at once, leaving each group's N/2 lanes again bit-reversed: log2 N levels of merges turn N
// vectors into one of the N values, in group order. The vectors live in a stack array (SVE).
template <typename T, typename A, class Map, class Op, size_t PF = 0>
void RowsSum(const void *xv, ptrdiff_t rs, size_t nrows, size_t n, partial *out)
{
    const typename Acc<A>::D d;
    const size_t N = hn::Lanes(d);
    using TI = hwy::MakeSigned<A>;
    HWY_ALIGN TI rev[Acc<A>::kL];
    size_t bits = 0;
    while ((size_t{1} << bits) < N)
        bits++;
    for (size_t p = 0; p < N; p++) {
        size_t r = 0;
        for (size_t b = 0; b < bits; b++)
            r |= ((p >> b) & 1) << (bits - 1 - b);
        rev[p] = static_cast<TI>(QuadPos(d, r));
    }
    const auto perm = hn::SetTableIndices(d, rev);
    const auto id = hn::Set(d, A(Op::kId));
    HWY_ALIGN A acc[Acc<A>::kL];
    HWY_ALIGN A vecs[Acc<A>::kL * 4]; // N vectors of N lanes: N * N <= 16 * 16 f32, 8 * 8 f64
    for (size_t r0 = 0; r0 < nrows; r0 += N) {
        for (size_t i = 0; i < N; i++) {
            const auto v = r0 + i < nrows
                               ? BlockLanes<T, Map, Op, PF>(
                                     d, (const T *)((const char *)xv + (ptrdiff_t)(r0 + i) * rs), n, acc)
                               : id;
            hn::Store(hn::TableLookupLanes(v, perm), d, vecs + i * N);
        }
        for (size_t cnt = N; cnt > 1; cnt /= 2)
            for (size_t k = 0; k < cnt / 2; k++) {
                const auto a = hn::Load(d, vecs + 2 * k * N), b = hn::Load(d, vecs + (2 * k + 1) * N);
                hn::Store(Op::Do(hn::ConcatEven(d, b, a), hn::ConcatOdd(d, b, a)), d, vecs + k * N);
            }
        for (size_t i = 0; i < N && r0 + i < nrows; i++)
            Acc<A>::Put(out + r0 + i, vecs[i]);
    }
}

// ---- columns ----
// lane[j][k] is lane j of column k, in the caller's scratch with rows of DMLCPU_COL_PITCH(K)
// accumulators (64-byte aligned, so a last vector of rem < N columns stays inside its lane row).
// K columns are nfull vectors, then one of rem columns if rem > 0. Four rows are combined in
// registers, then their quad goes into its lane: the lanes see a quarter of the input's traffic.

// (e0 op e1) op (e2 op e3)
template <class Op, class V> HWY_INLINE V Quad4(V e0, V e1, V e2, V e3)
{
    return Op::Do(Op::Do(e0, e1), Op::Do(e2, e3));
}

// Narrow contiguous rows (K = N/2 or N/4 columns, row stride K elements): one vector holds two
// or four rows, whose quads are taken on its halves (quarters). Returns the rows done.
template <typename T, class Map, class Op, class D>
HWY_INLINE size_t NarrowLanes(D d, const T *x, size_t nrows, size_t K, hn::TFromD<D> *lane, size_t P)
{
    using A = hn::TFromD<D>;
    const size_t N = hn::Lanes(d);
    const hn::Half<D> dh;
    size_t r0 = 0;
    if (2 * K == N) {
        for (; r0 + 4 <= nrows; r0 += 4) {
            const T *r = x + r0 * K;
            hwy::Prefetch((const char *)r + 8192); // 8 KiB ahead
            const auto a = Map::Do(In<T>::Full(d, r)), b = Map::Do(In<T>::Full(d, r + 2 * K));
            A *ln = lane + ((r0 / 4) % Acc<A>::kL) * P;
            const auto q = Quad4<Op>(hn::LowerHalf(dh, a), hn::UpperHalf(dh, a), hn::LowerHalf(dh, b),
                                     hn::UpperHalf(dh, b));
            hn::Store(Op::Do(hn::Load(dh, ln), q), dh, ln);
        }
    } else if constexpr (hn::MaxLanes(D()) >= 4) {
        const hn::Half<hn::Half<D>> dq;
        if (4 * K == N) {
            for (; r0 + 4 <= nrows; r0 += 4) {
                const T *r = x + r0 * K;
                hwy::Prefetch((const char *)r + 8192); // 8 KiB ahead
                const auto v = Map::Do(In<T>::Full(d, r));
                const auto lo = hn::LowerHalf(dh, v), hi = hn::UpperHalf(dh, v);
                A *ln = lane + ((r0 / 4) % Acc<A>::kL) * P;
                const auto q = Quad4<Op>(hn::LowerHalf(dq, lo), hn::UpperHalf(dq, lo),
                                         hn::LowerHalf(dq, hi), hn::UpperHalf(dq, hi));
                hn::Store(Op::Do(hn::Load(dq, ln), q), dq, ln);
            }
        }
    }
    return r0;
}

template <typename T, typename A, class Map, class Op>
void ColSum(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base, partial *out,
            void *scratch)
{
    (void)index_base;
    const char *x = static_cast<const char *>(xv);
    const typename Acc<A>::D d;
    const size_t N = hn::Lanes(d), L = Acc<A>::kL, P = DMLCPU_COL_PITCH(K);
    A *lane = static_cast<A *>(scratch); // lane j at lane + j * P
    const auto id = hn::Set(d, A(Op::kId)), fill = id;
    const size_t nfull = K / N, rem = K % N, nv = nfull + (rem != 0);
    // lanes past the last quad stay the identity and the tree skips them
    const size_t used = (nrows + 3) / 4 < L ? (nrows + 3) / 4 : L;
    for (size_t j = 0; j < used; j++)
        for (size_t v = 0; v < nv; v++)
            hn::Store(id, d, lane + j * P + v * N);
    size_t r0 = 0;
    if (K < N && rs == (ptrdiff_t)(K * sizeof(T)))
        r0 = NarrowLanes<T, Map, Op>(d, (const T *)x, nrows, K, lane, P);
    // prefetch 16 rows ahead, at least 1 KiB: the hardware prefetchers alone fall behind on
    // four interleaved row streams
    const ptrdiff_t pf = DMLCPU_COL_PREFETCH(rs);
    for (; r0 + 4 <= nrows; r0 += 4) {
        const T *r_0 = (const T *)(x + (ptrdiff_t)r0 * rs);
        const T *r_1 = (const T *)((const char *)r_0 + rs);
        const T *r_2 = (const T *)((const char *)r_1 + rs);
        const T *r_3 = (const T *)((const char *)r_2 + rs);
        A *ln = lane + ((r0 / 4) % L) * P;
        size_t o = 0;
        for (; o < nfull * N; o += N) {
            if (((o * sizeof(T)) & 63) == 0) {
                hwy::Prefetch((const char *)(r_0 + o) + pf);
                hwy::Prefetch((const char *)(r_1 + o) + pf);
                hwy::Prefetch((const char *)(r_2 + o) + pf);
                hwy::Prefetch((const char *)(r_3 + o) + pf);
            }
            const auto q = Quad4<Op>(Map::Do(In<T>::Full(d, r_0 + o)), Map::Do(In<T>::Full(d, r_1 + o)),
                                     Map::Do(In<T>::Full(d, r_2 + o)), Map::Do(In<T>::Full(d, r_3 + o)));
            hn::Store(Op::Do(hn::Load(d, ln + o), q), d, ln + o);
        }
        if (rem) {
            if (!nfull)
                hwy::Prefetch((const char *)r_0 + pf);
            const auto q = Quad4<Op>(Map::Do(In<T>::Part(d, r_0 + o, rem, fill)),
                                     Map::Do(In<T>::Part(d, r_1 + o, rem, fill)),
                                     Map::Do(In<T>::Part(d, r_2 + o, rem, fill)),
                                     Map::Do(In<T>::Part(d, r_3 + o, rem, fill)));
            hn::Store(Op::Do(hn::Load(d, ln + o), q), d, ln + o);
        }
    }
    if (r0 < nrows) { // a last quad of 1..3 rows: the identity for the missing ones
        const size_t have = nrows - r0;
        A *ln = lane + ((r0 / 4) % L) * P;
        for (size_t v = 0; v < nv; v++) {
            const size_t o = v * N;
            auto e = [&](size_t i) {
                if (i >= have)
                    return id;
                const T *r = (const T *)(x + (ptrdiff_t)(r0 + i) * rs) + o;
                return v < nfull ? Map::Do(In<T>::Full(d, r)) : Map::Do(In<T>::Part(d, r, rem, fill));
            };
            hn::Store(Op::Do(hn::Load(d, ln + o), Quad4<Op>(e(0), e(1), e(2), e(3))), d, ln + o);
        }
    }
    for (size_t h = L / 2; h >= 1; h /= 2)
        for (size_t i = 0; i < h && i + h < used; i++)
            for (size_t v = 0; v < nv; v++)
                hn::Store(Op::Do(hn::Load(d, lane + i * P + v * N), hn::Load(d, lane + (i + h) * P + v * N)),
                          d, lane + i * P + v * N);
    for (size_t k = 0; k < K; k++)
        Acc<A>::Put(out + k, lane[k]);
}

// ---- LOG_SUM_EXP: block max m, then the canonical block sum of exp(x - m) ----
// The scalar tier's DEF_ROW_LSE: m is the IEEE maximum of the block (a NaN anywhere gives NaN,
// -0 < +0), the sum is 0 when m is not finite. The exp is the scalar tier's, lane for lane:
// FLOAT32 (and FLOAT16) the own exp of simd/lse_expf.h, transcribed operation for operation;
// FLOAT64 SLEEF's deterministic cinz expd of the target's width.

// exp(x) for x <= 0 or NaN: simd/lse_expf.h's LSE_EXPF_N in the same operations and order (its
// two-step scaling, LSE_SCALE_2STEP).
template <class D> HWY_INLINE hn::Vec<D> LseExp(D d, hn::Vec<D> x, hwy::SizeTag<4>)
{
    const hn::RebindToSigned<D> di;
    const auto lim = hn::Set(d, -104.0f);
    x = hn::IfThenElse(hn::Lt(x, lim), lim, x); // Highway's Max leaves NaN open
    const auto shifter = hn::Set(d, 12582912.0f); // 1.5 * 2^23
    const auto t = hn::Add(hn::Mul(x, hn::Set(d, 0x1.715476p+0f)), shifter);
    const auto n = hn::Sub(t, shifter);
    const auto k = hn::Sub(hn::BitCast(di, t), hn::BitCast(di, shifter));
    auto r = hn::Sub(x, hn::Mul(n, hn::Set(d, 0x1.62e4p-1f)));
    r = hn::Sub(r, hn::Mul(n, hn::Set(d, 0x1.7f7d1cp-20f)));
    auto p = hn::Set(d, 0x1.6a19aep-10f);
    p = hn::Add(hn::Mul(p, r), hn::Set(d, 0x1.123fd4p-7f));
    p = hn::Add(hn::Mul(p, r), hn::Set(d, 0x1.555918p-5f));
    p = hn::Add(hn::Mul(p, r), hn::Set(d, 0x1.55548ap-3f));
    p = hn::Add(hn::Mul(p, r), hn::Set(d, 0x1.fffffcp-2f));
    const auto y = hn::Add(hn::Set(d, 1.0f), hn::Add(r, hn::Mul(hn::Mul(r, r), p)));
    const auto s = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(k, hn::Set(di, 127 + 25)))); // 2^(n+25)
    return hn::Mul(hn::Mul(y, s), hn::Set(d, 0x1p-25f));
}

// exp(x), FLOAT64: SLEEF's cinz u10 of the target's width (declared here: sleef.h declares the
// vector names only under the matching -m flags). A capped SVE vector is a whole svfloat64_t:
// the lanes past the cap are computed and never stored.
#undef DMLCPU_SLEEF_EXPD // this file is compiled once per target
#undef DMLCPU_SLEEF_VD
#undef DMLCPU_SLEEF_SIZELESS
#undef DMLCPU_HAVE_LSE
#if HWY_TARGET == HWY_SSE4
#define DMLCPU_SLEEF_EXPD Sleef_cinz_expd2_u10sse4
#define DMLCPU_SLEEF_VD __m128d
#elif HWY_TARGET == HWY_AVX2
#define DMLCPU_SLEEF_EXPD Sleef_cinz_expd4_u10avx
#define DMLCPU_SLEEF_VD __m256d
#elif HWY_TARGET == HWY_AVX3
#define DMLCPU_SLEEF_EXPD Sleef_cinz_expd8_u10avx512fnofma
#define DMLCPU_SLEEF_VD __m512d
#elif HWY_TARGET == HWY_NEON
#define DMLCPU_SLEEF_EXPD Sleef_cinz_expd2_u10advsimdnofma
#define DMLCPU_SLEEF_VD float64x2_t
#elif HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2
#define DMLCPU_SLEEF_EXPD Sleef_cinz_expdx_u10svenofma
#define DMLCPU_SLEEF_VD svfloat64_t
#define DMLCPU_SLEEF_SIZELESS 1
#endif
#ifdef DMLCPU_SLEEF_EXPD
extern "C" DMLCPU_SLEEF_VD DMLCPU_SLEEF_EXPD(DMLCPU_SLEEF_VD);
template <class D> HWY_INLINE hn::Vec<D> LseExp(D d, hn::Vec<D> x, hwy::SizeTag<8>)
{
    (void)d;
#ifdef DMLCPU_SLEEF_SIZELESS
    return DMLCPU_SLEEF_EXPD(x);
#else
    return hn::Vec<D>{DMLCPU_SLEEF_EXPD(x.raw)};
#endif
}
#define DMLCPU_HAVE_LSE 1
#endif

#ifdef DMLCPU_HAVE_LSE
// The ordered key of a float's bits: bits ^ ((bits >> (w - 1)) & INT_MAX), an involution that
// is increasing on non-NaN values as signed integers, with -0 below +0.
template <class DI, class V> HWY_INLINE hn::Vec<DI> OrderedKey(DI di, V v)
{
    using TI = hn::TFromD<DI>;
    const auto b = hn::BitCast(di, v);
    return hn::Xor(b, hn::And(hn::ShiftRight<sizeof(TI) * 8 - 1>(b), hn::Set(di, hwy::LimitsMax<TI>())));
}

// The IEEE maximum of p[0..m) (m >= 1). Floats compare as signed integers after
// key = bits ^ ((bits >> (w - 1)) & INT_MAX), an involution increasing on non-NaN values with
// -0 below +0; NaNs are counted apart.
template <typename T, class D> HWY_INLINE hn::TFromD<D> BlockMax(D d, const T *p, size_t m)
{
    using A = hn::TFromD<D>;
    const hn::RebindToSigned<D> di;
    const size_t N = hn::Lanes(d);
    const auto key = [&](hn::Vec<D> v) { return OrderedKey(di, v); };
    const auto ninf = hn::Set(d, -hwy::HighestValue<A>() * 2);
    auto k0 = key(ninf), k1 = k0;
    auto nan = hn::Zero(d);
    size_t i = 0;
    for (; i + 2 * N <= m; i += 2 * N) {
        const auto v0 = In<T>::Full(d, p + i), v1 = In<T>::Full(d, p + i + N);
        nan = hn::Or(nan, hn::Or(hn::VecFromMask(d, hn::IsNaN(v0)), hn::VecFromMask(d, hn::IsNaN(v1))));
        k0 = hn::Max(k0, key(v0));
        k1 = hn::Max(k1, key(v1));
    }
    for (; i < m; i += N) {
        const auto v = m - i >= N ? In<T>::Full(d, p + i) : In<T>::Part(d, p + i, m - i, ninf);
        nan = hn::Or(nan, hn::VecFromMask(d, hn::IsNaN(v)));
        k0 = hn::Max(k0, key(v));
    }
    if (!hn::AllFalse(d, hn::MaskFromVec(nan)))
        return static_cast<A>(NAN);
    return hn::GetLane(hn::BitCast(d, key(hn::BitCast(d, hn::MaxOfLanes(di, hn::Max(k0, k1))))));
}

// Row form, per block: the maximum, then exp(x - m) of the block into an L1-resident buffer and
// its canonical sum.
template <typename T, typename A>
void RowLse(const void *xv, size_t n, uint64_t index_base, partial *out)
{
    (void)index_base;
    const T *x = static_cast<const T *>(xv);
    const typename Acc<A>::D d;
    const size_t N = hn::Lanes(d);
    HWY_ALIGN hwy::MakeSigned<A> pos[Acc<A>::kL];
    const auto canon = CanonIndices(d, pos);
    HWY_ALIGN A acc[Acc<A>::kL];
    HWY_ALIGN A e[Acc<A>::kBlock];
    const auto ninf = hn::Set(d, -hwy::HighestValue<A>() * 2);
    for (size_t b0 = 0; b0 < n; b0 += Acc<A>::kBlock, out++) {
        const size_t m = n - b0 < Acc<A>::kBlock ? n - b0 : Acc<A>::kBlock;
        const T *p = x + b0;
        const A mx = BlockMax(d, p, m);
        A sum = 0;
        if (mx - mx == 0) { // finite
            const auto mv = hn::Set(d, mx);
            for (size_t j = 0; j < m; j += N) {
                const auto v = m - j >= N ? In<T>::Full(d, p + j) : In<T>::Part(d, p + j, m - j, ninf);
                hn::Store(LseExp(d, hn::Sub(v, mv), hwy::SizeTag<sizeof(A)>()), d, e + j);
            }
            sum = BlockValue<A, MapId, OpAdd, 0>(d, e, m, acc, canon);
        }
        Acc<A>::Put(out, mx);
        Acc<A>::PutAux(out, sum);
    }
}
#endif

#ifdef DMLCPU_HAVE_LSE
// Column form: the scalar tier's DEF_COL_LSE across the K columns a vector at a time, walking
// the rows in order (one pass for the maxima, one for the sums): each column's IEEE maximum over
// the rows (NaN wins; -0 < +0 through the integer keys of BlockMax), then its 64 (32) lanes of
// canonical quads of exp(x - m) over four rows at a time, and the halving tree. Scratch: the
// maxima, then lane j at lane + j * P (DMLCPU_COL_SCRATCH).
template <typename T, typename A>
void ColLse(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base, partial *out,
            void *scratch)
{
    (void)index_base;
    const char *x = static_cast<const char *>(xv);
    const typename Acc<A>::D d;
    const hn::RebindToSigned<decltype(d)> di;
    const size_t N = hn::Lanes(d), L = Acc<A>::kL, P = DMLCPU_COL_PITCH(K);
    A *mx = static_cast<A *>(scratch);
    A *lane = mx + P;
    const auto key = [&](hn::Vec<decltype(d)> v) { return OrderedKey(di, v); };
    const auto zero = hn::Zero(d);
    const auto nan = hn::Set(d, static_cast<A>(NAN));
    const auto row = [&](size_t i, size_t k0) {
        const T *p = reinterpret_cast<const T *>(x + (ptrdiff_t)i * rs) + k0;
        return K - k0 >= N ? In<T>::Full(d, p) : In<T>::Part(d, p, K - k0, zero);
    };
    for (size_t k0 = 0; k0 < K; k0 += N)
        hn::Store(row(0, k0), d, mx + k0);
    for (size_t i = 1; i < nrows; i++)
        for (size_t k0 = 0; k0 < K; k0 += N) {
            const auto m = hn::Load(d, mx + k0), v = row(i, k0);
            const auto big = hn::BitCast(d, key(hn::BitCast(d, hn::Max(key(m), key(v)))));
            hn::Store(hn::IfThenElse(hn::Or(hn::IsNaN(m), hn::IsNaN(v)), nan, big), d, mx + k0);
        }
    const size_t used = (nrows + 3) / 4 < L ? (nrows + 3) / 4 : L;
    for (size_t j = 0; j < used; j++)
        for (size_t k0 = 0; k0 < K; k0 += N)
            hn::Store(zero, d, lane + j * P + k0);
    const auto ex = [&](size_t i, size_t k0, hn::Vec<decltype(d)> m) {
        return LseExp(d, hn::Sub(row(i, k0), m), hwy::SizeTag<sizeof(A)>());
    };
    for (size_t r0 = 0; r0 < nrows; r0 += 4) {
        const size_t have = nrows - r0 < 4 ? nrows - r0 : 4;
        A *ln = lane + ((r0 / 4) % L) * P;
        for (size_t k0 = 0; k0 < K; k0 += N) {
            const auto m = hn::Load(d, mx + k0);
            const auto e0 = ex(r0, k0, m);
            const auto e1 = have > 1 ? ex(r0 + 1, k0, m) : zero;
            const auto e2 = have > 2 ? ex(r0 + 2, k0, m) : zero;
            const auto e3 = have > 3 ? ex(r0 + 3, k0, m) : zero;
            hn::Store(hn::Add(hn::Load(d, ln + k0), hn::Add(hn::Add(e0, e1), hn::Add(e2, e3))), d, ln + k0);
        }
    }
    // lanes past the last quad hold 0 and the tree skips them (x + 0 = x: a lane is never -0)
    for (size_t h = L / 2; h >= 1; h /= 2)
        for (size_t i = 0; i < h && i + h < used; i++)
            for (size_t k0 = 0; k0 < K; k0 += N)
                hn::Store(hn::Add(hn::Load(d, lane + i * P + k0), hn::Load(d, lane + (i + h) * P + k0)), d,
                          lane + i * P + k0);
    for (size_t k = 0; k < K; k++) {
        Acc<A>::Put(out + k, mx[k]);
        Acc<A>::PutAux(out + k, mx[k] - mx[k] == 0 ? lane[k] : A(0));
    }
}
#endif

// Row, multi-row and column kernels of one kind for FLOAT32, FLOAT16 and FLOAT64, and the row
// kernels' stream forms: 8 KiB ahead, as the AVX2 and AVX-512 tiers' (x86/reduce_avx512.c). At
// this tier on a Zen 5 (AVX3 target), one process alternating both builds in either order, row
// sums: FLOAT16 [4096, 8192] 1.24-1.29x faster, FLOAT32 [4096, 4096] 1.08-1.17x; in cache
// (256 x 512 FLOAT32, 512 x 512 FLOAT16; below DMLCPU_ROW_STREAM_BYTES anyway) within 1%.
constexpr size_t kRowPf = 8192;
template <class Map, class Op> void FillKind(kernel_table *t, reduce_kind kind)
{
    t->row_stream[kind][DMLCPU_DATA_TYPE_FLOAT32] = RowSum<float, float, Map, Op, kRowPf>;
    t->row_stream[kind][DMLCPU_DATA_TYPE_FLOAT16] = RowSum<uint16_t, float, Map, Op, kRowPf>;
    t->row_stream[kind][DMLCPU_DATA_TYPE_FLOAT64] = RowSum<double, double, Map, Op, kRowPf>;
    t->rows_stream[kind][DMLCPU_DATA_TYPE_FLOAT32] = RowsSum<float, float, Map, Op, kRowPf>;
    t->rows_stream[kind][DMLCPU_DATA_TYPE_FLOAT16] = RowsSum<uint16_t, float, Map, Op, kRowPf>;
    t->rows_stream[kind][DMLCPU_DATA_TYPE_FLOAT64] = RowsSum<double, double, Map, Op, kRowPf>;
    t->row[kind][DMLCPU_DATA_TYPE_FLOAT32] = RowSum<float, float, Map, Op>;
    t->row[kind][DMLCPU_DATA_TYPE_FLOAT16] = RowSum<uint16_t, float, Map, Op>;
    t->row[kind][DMLCPU_DATA_TYPE_FLOAT64] = RowSum<double, double, Map, Op>;
    t->rows[kind][DMLCPU_DATA_TYPE_FLOAT32] = RowsSum<float, float, Map, Op>;
    t->rows[kind][DMLCPU_DATA_TYPE_FLOAT16] = RowsSum<uint16_t, float, Map, Op>;
    t->rows[kind][DMLCPU_DATA_TYPE_FLOAT64] = RowsSum<double, double, Map, Op>;
    t->col[kind][DMLCPU_DATA_TYPE_FLOAT32] = ColSum<float, float, Map, Op>;
    t->col[kind][DMLCPU_DATA_TYPE_FLOAT16] = ColSum<uint16_t, float, Map, Op>;
    t->col[kind][DMLCPU_DATA_TYPE_FLOAT64] = ColSum<double, double, Map, Op>;
}

void FillSums(kernel_table *t)
{
    FillKind<MapId, OpAdd>(t, RK_SUM);
    FillKind<MapAbs, OpAdd>(t, RK_ASUM);
    FillKind<MapSq, OpAdd>(t, RK_SQSUM);
    FillKind<MapId, OpMul>(t, RK_PROD);
#ifdef DMLCPU_HAVE_LSE
    t->row[RK_LSE][DMLCPU_DATA_TYPE_FLOAT32] = RowLse<float, float>;
    t->row[RK_LSE][DMLCPU_DATA_TYPE_FLOAT16] = RowLse<uint16_t, float>;
    t->row[RK_LSE][DMLCPU_DATA_TYPE_FLOAT64] = RowLse<double, double>;
    t->col[RK_LSE][DMLCPU_DATA_TYPE_FLOAT32] = ColLse<float, float>;
    t->col[RK_LSE][DMLCPU_DATA_TYPE_FLOAT16] = ColLse<uint16_t, float>;
    t->col[RK_LSE][DMLCPU_DATA_TYPE_FLOAT64] = ColLse<double, double>;
#endif
}
#else
void FillSums(kernel_table *t)
{
    (void)t;
}
#endif // HWY_TARGET != HWY_SCALAR

} // namespace HWY_NAMESPACE
} // namespace dmlcpu
HWY_AFTER_NAMESPACE();
