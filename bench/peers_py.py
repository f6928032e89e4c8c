"""numpy and PyTorch versions of dmlcpu-bench's cases, run by bench/peers in a child process:

    python3 peers_py.py numpy|torch CASES.json --threads N [--repeat N] [--min-time S]

CASES.json is a dmlcpu-bench result; each successful case is rebuilt from its op, pattern and
shapes, timed like dmlcpu-bench times (warm-up, samples of about 1 ms, median), and answered
with one JSON line: {"key": [...], "median_s": ..., "min_s": ...} or {"key": [...], "skip": why}.
Every peer gets its best shot: outputs and temporaries allocated once outside the timed loop
(out=, copyto, copy_), the integer sums accumulating in their own type, threads set explicitly.
"""
import argparse
import json
import sys
import time


def time_fn(fn, repeat, min_time, max_time, sample_time=1e-3):
    fn()
    t0 = time.perf_counter()
    fn()
    one = time.perf_counter() - t0
    calls = 1
    while time.perf_counter() - t0 < 0.005:
        fn()
        calls += 1
    one = min(one, (time.perf_counter() - t0) / calls)
    per = max(1, int(sample_time / one)) if one > 0 else 1
    samples, spent = [], 0.0
    while True:
        a = time.perf_counter()
        for _ in range(per):
            fn()
        dt = time.perf_counter() - a
        samples.append(dt / per)
        spent += dt
        if len(samples) >= repeat and spent >= min_time:
            break
        if len(samples) >= 3 and spent >= max_time:
            break
        if len(samples) >= 1000:
            break
    samples.sort()
    return samples[len(samples) // 2], samples[0]


def make_pool(np, dtype, elements, seed):
    """Data like dmlcpu-bench's: floats +-[0.5, 2), integers with every bit random."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        v = rng.uniform(0.5, 2.0, elements) * np.where(rng.random(elements) < 0.5, -1.0, 1.0)
        return v.astype(dt)
    raw = rng.integers(0, 256, elements * dt.itemsize, dtype=np.uint8)
    return raw.view(dt)


def prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def numpy_case(np, c, pool):
    op, pat = c["op"], c["pattern"]
    ins, outs, axes = tuple(c["in_shape"]), tuple(c["out_shape"]), tuple(c["axes"])
    dt = pool.dtype
    if c["family"] in ("reduce", "tiny"):
        x = pool[:prod(ins)].reshape(ins)
        if op == "argmax":
            out = np.zeros(outs, np.int64)
            if len(axes) == 1:
                return lambda: np.argmax(x, axis=axes[0], out=out, keepdims=True)
            flat, o0 = x.reshape(-1), out.reshape(())
            return lambda: np.argmax(flat, out=o0)
        out = np.zeros(outs, dt)
        tmp = np.empty(ins, dt)
        if op == "sum":
            return lambda: np.sum(x, axis=axes, dtype=dt, out=out, keepdims=True)
        if op == "max":
            return lambda: np.max(x, axis=axes, out=out, keepdims=True)
        if op == "average":
            return lambda: np.mean(x, axis=axes, out=out, keepdims=True)
        if op == "multiply":
            return lambda: np.prod(x, axis=axes, dtype=dt, out=out, keepdims=True)
        if op == "l1":
            return lambda: (np.abs(x, out=tmp), np.sum(tmp, axis=axes, out=out, keepdims=True))
        if op == "sum_square":
            return lambda: (np.multiply(x, x, out=tmp),
                            np.sum(tmp, axis=axes, out=out, keepdims=True))
        if op == "l2":
            return lambda: (np.multiply(x, x, out=tmp),
                            np.sum(tmp, axis=axes, out=out, keepdims=True),
                            np.sqrt(out, out=out))
        if op == "log_sum_exp":
            m = np.zeros(outs, dt)
            return lambda: (np.max(x, axis=axes, out=m, keepdims=True),
                            np.subtract(x, m, out=tmp), np.exp(tmp, out=tmp),
                            np.sum(tmp, axis=axes, out=out, keepdims=True),
                            np.log(out, out=out), np.add(out, m, out=out))
        return None
    rows, cols = outs[0], outs[1]
    if op == "join":
        w = cols // 4
        parts = [pool[k * rows * w:(k + 1) * rows * w].reshape(rows, w) for k in range(4)]
        out = np.zeros(outs, dt)
        return lambda: np.concatenate(parts, axis=1, out=out)
    x = pool[:prod(ins)].reshape(ins)
    if op == "split":
        w = cols // 4
        parts = [np.zeros((rows, w), dt) for _ in range(4)]
        views = [x[:, k * w:(k + 1) * w] for k in range(4)]
        return lambda: [np.copyto(p, v) for p, v in zip(parts, views)]
    out = np.zeros(outs, dt)
    if op == "slice":
        src = {"rows": x[rows:], "step2": x[:, ::2], "reverse": x[:, ::-1]}[pat]
        return lambda: np.copyto(out, src)
    if op == "slice_grad":
        window = out[:, ::2]
        return lambda: (out.fill(0), np.copyto(window, x))
    if op == "identity":
        return lambda: np.copyto(out, x.T)
    return None


def torch_case(torch, np, c, pool):
    op, pat = c["op"], c["pattern"]
    ins, outs, axes = tuple(c["in_shape"]), tuple(c["out_shape"]), tuple(c["axes"])
    tp = torch.from_numpy(pool)
    dt = tp.dtype
    if c["family"] in ("reduce", "tiny"):
        x = tp[:prod(ins)].reshape(ins)
        if op == "argmax":
            out = torch.zeros(outs, dtype=torch.int64)
            if len(axes) == 1:
                return lambda: torch.argmax(x, dim=axes[0], keepdim=True, out=out)
            flat, o0 = x.reshape(-1), out.reshape(())
            return lambda: torch.argmax(flat, out=o0)
        out = torch.zeros(outs, dtype=dt)
        tmp = torch.empty(ins, dtype=dt)
        if op == "sum":
            return lambda: torch.sum(x, dim=axes, keepdim=True, dtype=dt, out=out)
        if op == "max":
            return lambda: torch.amax(x, dim=axes, keepdim=True, out=out)
        if op == "average":
            return lambda: torch.mean(x, dim=axes, keepdim=True, out=out)
        if op == "multiply":
            if len(axes) == 1:
                return lambda: torch.prod(x, axes[0], keepdim=True, out=out)
            flat, o1 = x.reshape(-1), out.reshape(1)
            return lambda: torch.prod(flat, 0, keepdim=True, out=o1)
        if op in ("l1", "l2"):
            order = 1 if op == "l1" else 2
            return lambda: torch.linalg.vector_norm(x, order, dim=axes, keepdim=True, out=out)
        if op == "sum_square":
            return lambda: (torch.square(x, out=tmp),
                            torch.sum(tmp, dim=axes, keepdim=True, out=out))
        if op == "log_sum_exp":
            return lambda: torch.logsumexp(x, dim=axes, keepdim=True, out=out)
        return None
    rows, cols = outs[0], outs[1]
    if op == "join":
        w = cols // 4
        parts = [tp[k * rows * w:(k + 1) * rows * w].reshape(rows, w) for k in range(4)]
        out = torch.zeros(outs, dtype=dt)
        return lambda: torch.cat(parts, dim=1, out=out)
    x = tp[:prod(ins)].reshape(ins)
    if op == "split":
        w = cols // 4
        parts = [torch.zeros((rows, w), dtype=dt) for _ in range(4)]
        views = [x[:, k * w:(k + 1) * w] for k in range(4)]
        return lambda: [p.copy_(v) for p, v in zip(parts, views)]
    out = torch.zeros(outs, dtype=dt)
    if op == "slice":
        if pat == "reverse":
            # Tensors take no negative steps; flip (which allocates its result) is the way.
            return lambda: torch.flip(x, [1])
        src = x[rows:] if pat == "rows" else x[:, ::2]
        return lambda: out.copy_(src)
    if op == "slice_grad":
        window = out[:, ::2]
        return lambda: (out.zero_(), window.copy_(x))
    if op == "identity":
        return lambda: out.copy_(x.t())
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("peer", choices=["numpy", "torch"])
    ap.add_argument("cases")
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--min-time", type=float, default=0.07)
    args = ap.parse_args()

    def emit(obj):
        print(json.dumps(obj), flush=True)

    try:
        import numpy as np
        torch = None
        if args.peer == "torch":
            import torch
            torch.set_num_threads(args.threads)
    except ImportError as e:
        emit({"skip_all": f"{args.peer} is not installed ({e})"})
        return
    with open(args.cases) as f:
        cases = [c for c in json.load(f)["cases"]
                 if c.get("status") == "OK" and c["threads"] == args.threads]
    version = np.__version__ if torch is None else torch.__version__
    emit({"version": version, "threads": args.threads})
    pools = {}
    max_time = max(0.5, 10 * args.min_time)
    for i, c in enumerate(cases):
        key = [c["dtype"], c["op"], c["pattern"], c["size"], c["threads"]]
        print(f"\r\033[K[{i + 1}/{len(cases)}] {args.peer} {' '.join(map(str, key[:4]))}",
              end="", file=sys.stderr, flush=True)
        if torch is not None and getattr(torch, c["dtype"], None) is None:
            emit({"key": key, "skip": f"torch {version} has no {c['dtype']}"})
            continue
        need = max(prod(c["in_shape"]), prod(c["out_shape"]))
        if c["dtype"] not in pools or pools[c["dtype"]].size < need:
            pools.clear()
            pools[c["dtype"]] = make_pool(np, c["dtype"], need, 7)
        try:
            pool = pools[c["dtype"]]
            fn = numpy_case(np, c, pool) if torch is None else torch_case(torch, np, c, pool)
            if fn is None:
                emit({"key": key, "skip": f"no {args.peer} equivalent"})
                continue
            med, mn = time_fn(fn, args.repeat, args.min_time, max_time)
            emit({"key": key, "median_s": med, "min_s": mn})
        except Exception as e:  # a peer that cannot run a case is a note, never an error
            emit({"key": key, "skip": f"{type(e).__name__}: {str(e).splitlines()[0][:90]}"})
    print("\r\033[K", end="", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
