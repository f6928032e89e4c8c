// ARGMIN / ARGMAX of the portable tier: part of free.cc, which includes it once per Highway
// target inside namespace dmlcpu::HWY_NAMESPACE, after its helpers (loads, ColWalk, ColLoad,
// NarrowWidth, ExtOfLanes). No include guard: every target's pass includes it again.

// ---- ARGMIN / ARGMAX. A policy P gives, for the element type stored as K (FLOAT16 as int16):
//   Key(d, v)      keys of loaded elements, whose order is the numeric one (-0 == +0)
//   NaNs(d, k)     the lanes that are NaN (kNaN: the type has NaNs)
//   ChunkNaN(d, k0 .. k7)  lanes where one of eight key vectors may be NaN: never misses one,
//                  may report one that is not there (the caller then looks element by element)
//   SKey, SNaN     the same for one element; Put(o, e) the element as the partial's value. ----

template <typename T> struct ArgInt {
    using K = T;
    static constexpr bool kNaN = false;
    template <class D> static hn::Vec<D> Key(D, hn::Vec<D> v) { return v; }
    template <class D> static hn::Mask<D> NaNs(D d, hn::Vec<D>) { return hn::FirstN(d, 0); }
    template <class D, class V> static hn::Mask<D> ChunkNaN(D d, V, V, V, V, V, V, V, V) { return hn::FirstN(d, 0); }
    static K SKey(K e) { return e; }
    static bool SNaN(K) { return false; }
    static void Put(partial *o, K e) { PutValue(o, e); }
};
template <typename T> struct ArgFloat {
    using K = T;
    static constexpr bool kNaN = true;
    template <class D> static hn::Vec<D> Key(D, hn::Vec<D> v) { return v; }
    // (not Ne(k, k): Highway 1.0.3's float Ne is the ordered compare on AVX2 and AVX3, false
    // for NaN, but the unordered one on SSE4)
    template <class D> static hn::Mask<D> NaNs(D, hn::Vec<D> k) { return hn::IsNaN(k); }
    // NaN where the sum is: every NaN shows, and so do inf - inf and overflows
    template <class D, class V> static hn::Mask<D> ChunkNaN(D, V k0, V k1, V k2, V k3, V k4, V k5, V k6, V k7)
    {
        return hn::IsNaN(hn::Add(hn::Add(hn::Add(k0, k1), hn::Add(k2, k3)), hn::Add(hn::Add(k4, k5), hn::Add(k6, k7))));
    }
    static K SKey(K e) { return e; }
    static bool SNaN(K e) { return e != e; }
    static void Put(partial *o, K e) { PutValue(o, e); }
};
// FLOAT16 as signed magnitudes: -m for negative numbers, so -0 and +0 are both 0; NaNs are
// the magnitudes above +inf's (0x7c00).
struct ArgF16 {
    using K = int16_t;
    static constexpr bool kNaN = true;
    template <class D> static hn::Vec<D> Key(D d, hn::Vec<D> v)
    {
        const auto m = hn::And(v, hn::Set(d, 0x7fff));
        return hn::IfThenElse(hn::Lt(v, hn::Zero(d)), hn::Sub(hn::Zero(d), m), m);
    }
    template <class D> static hn::Mask<D> NaNs(D d, hn::Vec<D> k) { return hn::Gt(hn::Abs(k), hn::Set(d, 0x7c00)); }
    template <class D, class V> static hn::Mask<D> ChunkNaN(D d, V k0, V k1, V k2, V k3, V k4, V k5, V k6, V k7)
    {
        const auto a = hn::Max(hn::Max(hn::Abs(k0), hn::Abs(k1)), hn::Max(hn::Abs(k2), hn::Abs(k3)));
        const auto b = hn::Max(hn::Max(hn::Abs(k4), hn::Abs(k5)), hn::Max(hn::Abs(k6), hn::Abs(k7)));
        return hn::Gt(hn::Max(a, b), hn::Set(d, 0x7c00));
    }
    static K SKey(K e) { return (K)(e < 0 ? -(e & 0x7fff) : e); }
    static bool SNaN(K e) { return (e & 0x7fff) > 0x7c00; }
    static void Put(partial *o, K e) { o->v.f32 = dmlcpu_f16_to_f32((uint16_t)e); }
};

// The key that never replaces anything, and is no NaN: the lowest number for MAX, the highest
// for MIN (-inf and +inf where the type has them).
template <class P, bool IS_MAX> typename P::K ArgFill()
{
    using K = typename P::K;
    using L = std::numeric_limits<K>;
    if (std::is_same<P, ArgF16>::value)
        return (K)(IS_MAX ? -0x7c00 : 0x7c00);
    if (L::has_infinity)
        return IS_MAX ? -L::infinity() : L::infinity();
    return IS_MAX ? L::lowest() : L::max();
}

// Does key a replace the best b (between numbers)? LAST takes the later of equal keys.
template <bool IS_MAX, bool LAST, class V> HWY_INLINE auto Beats(V a, V b) -> decltype(hn::Eq(a, b))
{
    // (Highway 1.0.3 has no integer >= on x86: not b > a, the same between numbers)
    return IS_MAX ? (LAST ? hn::Not(hn::Gt(b, a)) : hn::Gt(a, b)) : (LAST ? hn::Not(hn::Gt(a, b)) : hn::Lt(a, b));
}
template <bool IS_MAX, class D> HWY_INLINE hn::Vec<D> Ext(hn::Vec<D> a, hn::Vec<D> b)
{
    return IS_MAX ? hn::Max(a, b) : hn::Min(a, b);
}

// The scalar rule (numeric.h, BETTER_*): NaN is more extreme than any number.
template <class P, bool IS_MAX, bool LAST> bool Better(typename P::K x, typename P::K b)
{
    const bool xn = P::SNaN(x), bn = P::SNaN(b);
    const auto kx = P::SKey(x), kb = P::SKey(b);
    if (LAST)
        return xn || (!bn && (IS_MAX ? kx >= kb : kx <= kb));
    return xn ? !bn : (!bn && (IS_MAX ? kx > kb : kx < kb));
}

// Position of the first (LAST: last) of the m elements at p that is a NaN (FIND_NAN) or whose
// key equals ex; m when there is none.
template <class P, bool LAST, bool FIND_NAN, class D>
HWY_INLINE size_t FindLane(D d, const typename P::K *p, size_t m, typename P::K ex)
{
    using K = typename P::K;
    const size_t N = hn::Lanes(d), nv = (m + N - 1) / N;
    for (size_t j = 0; j < nv; j++) {
        const size_t v = LAST ? nv - 1 - j : j, c = MinSz(N, m - v * N);
        const auto k = P::Key(d, c == N ? hn::LoadU(d, p + v * N) : LoadPart(d, p + v * N, c));
        const auto hit = hn::And(FIND_NAN ? P::NaNs(d, k) : hn::Eq(k, hn::Set(d, ex)), hn::FirstN(d, c));
        if (hn::AllFalse(d, hit))
            continue;
        if (!LAST)
            return v * N + hn::FindKnownFirstTrue(d, hit);
        const hn::RebindToUnsigned<D> du;
        HWY_ALIGN hwy::MakeUnsigned<K> t[HWY_MAX_BYTES / sizeof(K)];
        hn::Store(hn::BitCast(du, hn::VecFromMask(d, hit)), du, t);
        for (size_t l = c; l-- > 0;) // hit has a lane below c
            if (t[l])
                return v * N + l;
    }
    return m;
}

// The keys of vector j of the cn elements at q: whole, partial (fill past cn) or all fill.
template <class P, class D>
HWY_INLINE hn::Vec<D> KeysAt(D d, const typename P::K *q, size_t j, size_t cn, hn::Vec<D> fill)
{
    const size_t N = hn::Lanes(d);
    if (cn >= (j + 1) * N)
        return P::Key(d, hn::LoadU(d, q + j * N));
    if (cn <= j * N)
        return fill;
    const size_t c = cn - j * N;
    return hn::IfThenElse(hn::FirstN(d, c), P::Key(d, LoadPart(d, q + j * N, c)), fill);
}

// Rows, in chunks of kCh vectors and without a data-dependent branch per chunk: the chunk's
// lanewise extreme e (a tree of pairs); lanes where e beats the best so far take e and the
// chunk's number. At the end of a block the extreme over the lanes is found; the first (LAST:
// last) chunk where it occurs is the smallest (largest) chunk number among the lanes that hold
// it, and only that chunk is searched. NaN lanes are only noticed (ChunkNaN may also report
// none that is there, never miss one); a block where one was noticed is searched for its first
// (last) NaN, and goes the ordinary way if it holds none. Chunk numbers (up to kBlock / (kCh *
// N)) live in unsigned lanes of the key's width.
constexpr size_t kCh = 8;
// Rows of at least this many bytes prefetch as far ahead (hardware prefetch alone falls behind
// on long rows out of cache).
constexpr size_t kArgPrefetch = 4096;

#if HWY_TARGET == HWY_SCALAR // Highway's one-lane fallback (never chosen by the shim)
template <class P, bool IS_MAX, bool LAST>
void RowArg(const void *xv, size_t n, uint64_t index_base, partial *out)
{
    const typename P::K *x = static_cast<const typename P::K *>(xv);
    for (size_t b0 = 0; b0 < n; b0 += kBlock, out++) {
        size_t at = b0;
        for (size_t i = b0 + 1; i < b0 + MinSz(n - b0, kBlock); i++)
            if (Better<P, IS_MAX, LAST>(x[i], x[at]))
                at = i;
        P::Put(out, x[at]);
        out->aux.idx = index_base + at;
    }
}
#else
template <class P, bool IS_MAX, bool LAST>
void RowArg(const void *xv, size_t n, uint64_t index_base, partial *out)
{
    using K = typename P::K;
    using C = hwy::MakeUnsigned<K>;
    const K *x = static_cast<const K *>(xv);
    const hn::ScalableTag<K> d;
    const hn::RebindToUnsigned<decltype(d)> dc;
    const size_t N = hn::Lanes(d), CH = kCh * N;
    const auto fill = hn::Set(d, ArgFill<P, IS_MAX>());
    const bool pf = n * sizeof(K) >= kArgPrefetch;
    for (size_t b0 = 0; b0 < n; b0 += kBlock, out++) {
        const size_t m = MinSz(n - b0, kBlock);
        const K *p = x + b0;
        size_t at = m;
        if (m <= 4 * N) { // short: four vectors at most, no chunk bookkeeping
            const auto k0 = KeysAt<P>(d, p, 0, m, fill), k1 = KeysAt<P>(d, p, 1, m, fill);
            const auto k2 = KeysAt<P>(d, p, 2, m, fill), k3 = KeysAt<P>(d, p, 3, m, fill);
            if (P::kNaN && !hn::AllFalse(d, hn::Or(hn::Or(P::NaNs(d, k0), P::NaNs(d, k1)),
                                                   hn::Or(P::NaNs(d, k2), P::NaNs(d, k3)))))
                at = FindLane<P, LAST, true>(d, p, m, 0);
            else
                at = FindLane<P, LAST, false>(
                    d, p, m,
                    ExtOfLanes<IS_MAX>(d, Ext<IS_MAX, decltype(d)>(Ext<IS_MAX, decltype(d)>(k0, k1),
                                                                   Ext<IS_MAX, decltype(d)>(k2, k3))));
            P::Put(out, p[at]);
            out->aux.idx = index_base + b0 + at;
            continue;
        }
        auto best = fill;
        auto cid = hn::Zero(dc), kv = cid;
        const auto one = hn::Set(dc, C{1});
        auto nan = hn::FirstN(d, 0);
        const size_t nch = (m + CH - 1) / CH;
        for (size_t k = 0; k < nch; k++, kv = hn::Add(kv, one)) {
            const K *q = p + k * CH;
            const size_t cn = MinSz(CH, m - k * CH);
            hn::Vec<decltype(d)> k0, k1, k2, k3, k4, k5, k6, k7;
            if (cn == CH) {
                if (pf)
                    for (size_t o = 0; o < CH * sizeof(K); o += 64)
                        PrefetchL1(reinterpret_cast<const char *>(q) + kArgPrefetch + o);
                k0 = P::Key(d, hn::LoadU(d, q));
                k1 = P::Key(d, hn::LoadU(d, q + N));
                k2 = P::Key(d, hn::LoadU(d, q + 2 * N));
                k3 = P::Key(d, hn::LoadU(d, q + 3 * N));
                k4 = P::Key(d, hn::LoadU(d, q + 4 * N));
                k5 = P::Key(d, hn::LoadU(d, q + 5 * N));
                k6 = P::Key(d, hn::LoadU(d, q + 6 * N));
                k7 = P::Key(d, hn::LoadU(d, q + 7 * N));
            } else {
                k0 = KeysAt<P>(d, q, 0, cn, fill);
                k1 = KeysAt<P>(d, q, 1, cn, fill);
                k2 = KeysAt<P>(d, q, 2, cn, fill);
                k3 = KeysAt<P>(d, q, 3, cn, fill);
                k4 = KeysAt<P>(d, q, 4, cn, fill);
                k5 = KeysAt<P>(d, q, 5, cn, fill);
                k6 = KeysAt<P>(d, q, 6, cn, fill);
                k7 = KeysAt<P>(d, q, 7, cn, fill);
            }
            if (P::kNaN)
                nan = hn::Or(nan, P::ChunkNaN(d, k0, k1, k2, k3, k4, k5, k6, k7));
            using V = hn::Vec<decltype(d)>;
            const V e = Ext<IS_MAX, decltype(d)>(
                Ext<IS_MAX, decltype(d)>(Ext<IS_MAX, decltype(d)>(k0, k1), Ext<IS_MAX, decltype(d)>(k2, k3)),
                Ext<IS_MAX, decltype(d)>(Ext<IS_MAX, decltype(d)>(k4, k5), Ext<IS_MAX, decltype(d)>(k6, k7)));
            const auto w = Beats<IS_MAX, LAST>(e, best);
            best = hn::IfThenElse(w, e, best);
            cid = hn::IfThenElse(hn::RebindMask(dc, w), kv, cid);
        }
        if (P::kNaN && !hn::AllFalse(d, nan))
            at = FindLane<P, LAST, true>(d, p, m, 0);
        if (at == m) {
            const K ex = ExtOfLanes<IS_MAX>(d, best);
            const auto holds = hn::RebindMask(dc, hn::Eq(best, hn::Set(d, ex)));
            const size_t k = LAST ? (size_t)ExtOfLanes<true>(dc, hn::IfThenElseZero(holds, cid))
                                  : (size_t)ExtOfLanes<false>(dc, hn::IfThenElse(holds, cid, hn::Set(dc, (C)~C{0})));
            at = k * CH + FindLane<P, LAST, false>(d, p + k * CH, MinSz(CH, m - k * CH), ex);
        }
        P::Put(out, p[at]);
        out->aux.idx = index_base + b0 + at;
    }
}
#endif

// Columns: per group of G rows the lanewise extreme; lanes where it beats the best so far take
// it and the group's number, with no branch per lane. A NaN anywhere in the tile sends it to the
// exact element-by-element rule. Group numbers must fit a lane: (nrows - 1) / G < 2^bits of the
// key (ArgGroupRows). The row within the group:
//   - 1-byte keys (the most lanes a vector, so that a search per column would cost more than
//     the walk; their few values soon stop changing the best): when some lane of a group wins,
//     the group's rows are compared again with its extreme, and the first (last) row holding it
//     goes to that lane's offset;
//   - wider keys (whose best keeps changing on random data, so that the branch above would
//     mispredict): at the end each column searches its group for the first (last) element
//     equal to its best.
// emit(k, r): row r of the tile holds column k's answer.
template <typename Kt> size_t ArgGroupRows(size_t nrows)
{
    // 1-byte keys: fewer than 256 groups; wider keys: the callers' groups of 8 rows or more,
    // whose numbers fit 16 bits for calls of up to DMLCPU_COL_FREE_ROWS rows
    return sizeof(Kt) == 1 ? (nrows + 255) / 256 : 1;
}

template <class P, bool IS_MAX, bool LAST, class Emit>
HWY_INLINE void ColArgRows(const char *x, ptrdiff_t rs, size_t nrows, size_t K, size_t G, void *scratch, Emit emit)
{
    using Kt = typename P::K;
    using Ut = hwy::MakeUnsigned<Kt>;
    const hn::ScalableTag<Kt> d;
    const hn::RebindToUnsigned<decltype(d)> du;
    const size_t N = hn::Lanes(d), Kp = (K + N - 1) / N * N;
    constexpr bool kOffsets = sizeof(Kt) == 1;
    Kt *best = static_cast<Kt *>(scratch);
    Ut *gid = reinterpret_cast<Ut *>(best + Kp), *off = gid + Kp;
    for (size_t c0 = 0; c0 < K; c0 += N) {
        hn::StoreU(hn::Set(d, ArgFill<P, IS_MAX>()), d, best + c0);
        hn::StoreU(hn::Zero(du), du, gid + c0);
        if (kOffsets)
            hn::StoreU(hn::Zero(du), du, off + c0);
    }
    bool nan = false;
    ColWalk(x, rs, nrows, K, N, G, [&](size_t r0, size_t rn, const char *rb, size_t c0, size_t cn) HWY_ATTR {
        auto e = hn::Set(d, ArgFill<P, IS_MAX>());
        auto nm = hn::FirstN(d, 0);
        for (size_t i = 0; i < rn; i++) {
            const auto k = P::Key(d, ColLoad<decltype(d), Kt>(d, rb, rs, i, c0, cn));
            if (P::kNaN)
                nm = hn::Or(nm, P::NaNs(d, k));
            e = Ext<IS_MAX, decltype(d)>(e, k);
        }
        if (P::kNaN && !hn::AllFalse(d, nm))
            nan = true;
        const auto b = hn::LoadU(d, best + c0);
        const auto w = Beats<IS_MAX, LAST>(e, b);
        const auto wu = hn::RebindMask(du, w);
        hn::StoreU(hn::IfThenElse(w, e, b), d, best + c0);
        hn::StoreU(hn::IfThenElse(wu, hn::Set(du, (Ut)(r0 / G)), hn::LoadU(du, gid + c0)), du, gid + c0);
        if (kOffsets && !hn::AllFalse(d, w)) { // later matches overwrite: rows from last to first (LAST: first to last)
            auto o = hn::Zero(du);
            for (size_t j = 0; j < rn; j++) {
                const size_t i = LAST ? j : rn - 1 - j;
                const auto k = P::Key(d, ColLoad<decltype(d), Kt>(d, rb, rs, i, c0, cn));
                o = hn::IfThenElse(hn::RebindMask(du, hn::Eq(k, e)), hn::Set(du, (Ut)i), o);
            }
            hn::StoreU(hn::IfThenElse(wu, o, hn::LoadU(du, off + c0)), du, off + c0);
        }
    });
    auto at = [&](size_t r, size_t k) { return reinterpret_cast<const Kt *>(x + (ptrdiff_t)r * rs)[k]; };
    for (size_t k = 0; k < K; k++) {
        size_t r = 0;
        if (nan) {
            for (size_t i = 1; i < nrows; i++)
                if (Better<P, IS_MAX, LAST>(at(i, k), at(r, k)))
                    r = i;
        } else if (kOffsets) {
            r = (size_t)gid[k] * G + off[k];
        } else {
            const size_t g0 = (size_t)gid[k] * G, g1 = MinSz(g0 + G, nrows);
            const Kt bk = best[k];
            r = g0;
            for (size_t j = 0; j < g1 - g0; j++) {
                const size_t q = LAST ? g1 - 1 - j : g0 + j;
                if (P::SKey(at(q, k)) == bk) {
                    r = q;
                    break;
                }
            }
        }
        emit(k, r);
    }
}

// Does candidate c (at row rc) win over b (at row rb), rows in any order? The rule of Better,
// with ties going to the earlier (LAST: later) row.
template <class P, bool IS_MAX, bool LAST> bool Prefer(typename P::K c, size_t rc, typename P::K b, size_t rb)
{
    const bool cn = P::SNaN(c), bn = P::SNaN(b);
    if (cn != bn)
        return cn;
    if (!cn) {
        const auto kc = P::SKey(c), kb = P::SKey(b);
        if (kc != kb)
            return IS_MAX ? kc > kb : kc < kb;
    }
    return LAST ? rc > rb : rc < rb;
}

// Narrow columns at most this wide as W-element rows (NarrowWidth): their answers stay on the stack.
constexpr size_t kArgNarrowMax = 512;

template <class P, bool IS_MAX, bool LAST>
void ColArg(const void *xv, ptrdiff_t rs, size_t nrows, size_t K, uint64_t index_base, partial *out, void *scratch)
{
    using Kt = typename P::K;
    const char *x = static_cast<const char *>(xv);
    index_base &= ~DMLCPU_COL_STREAM;
    const hn::ScalableTag<Kt> d;
    auto at = [&](size_t r, size_t k) { return reinterpret_cast<const Kt *>(x + (ptrdiff_t)r * rs)[k]; };
    const size_t w = NarrowWidth(K, hn::Lanes(d), sizeof(Kt), rs, 3 * sizeof(Kt));
    if (!w || w > kArgNarrowMax) {
        ColArgRows<P, IS_MAX, LAST>(x, rs, nrows, K, MaxSz(8, ArgGroupRows<Kt>(nrows)), scratch, [&](size_t k, size_t r) {
            P::Put(out + k, at(r, k));
            out[k].aux.idx = index_base + r;
        });
        return;
    }
    // narrow: lane j of W-element row q is column j mod K of row q * (w / K) + j / K
    const size_t wrows = nrows * K / w, done = wrows * w / K;
    size_t lr[kArgNarrowMax];
    if (wrows)
        ColArgRows<P, IS_MAX, LAST>(x, (ptrdiff_t)(w * sizeof(Kt)), wrows, w, MaxSz(8, ArgGroupRows<Kt>(wrows)), scratch,
                                    [&](size_t j, size_t q) { lr[j] = q * (w / K) + j / K; });
    for (size_t k = 0; k < K; k++) {
        size_t r = wrows ? lr[k] : 0;
        for (size_t j = k + K; wrows && j < w; j += K)
            if (Prefer<P, IS_MAX, LAST>(at(lr[j], k), lr[j], at(r, k), r))
                r = lr[j];
        for (size_t i = wrows ? done : 1; i < nrows; i++)
            if (Better<P, IS_MAX, LAST>(at(i, k), at(r, k)))
                r = i;
        P::Put(out + k, at(r, k));
        out[k].aux.idx = index_base + r;
    }
}
