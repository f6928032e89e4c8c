// ONNX Runtime's CPU provider on dmlcpu-bench's cases, run by bench/peers in a child process:
//
//     node peer_ort.js MODULES DIR --threads N [--repeat N] [--min-time S]
//
// MODULES is the folder whose node_modules holds onnxruntime-node; DIR holds the models and
// manifest.json written by peer_ort_models.py. Each case gets one session (CPU provider,
// intraOpNumThreads N, interOpNumThreads 1, sequential execution, every graph optimization, as
// ONNX Runtime does by default) and is timed as peers_py.py times: warm-up, samples of about
// 1 ms, median. The inputs are views of one pool per type (data like dmlcpu-bench's: floats
// +-[0.5, 2), integers with every bit random) and the outputs are preallocated tensors passed
// as fetches, which the runtime writes in place. Answers with JSON lines like peers_py.py's:
// {"version": v}, then {"key": [...], "median_s": ..., "min_s": ...} or {"key": [...],
// "skip": why} per case, or {"skip_all": why}.
'use strict';
const fs = require('fs');
const path = require('path');

// What onnxruntime-node expects for each type (float16 travels as its raw 16-bit patterns).
const TENSOR_ARRAYS = {
    float32: Float32Array, float16: Uint16Array, float64: Float64Array, int8: Int8Array,
    uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array,
    uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
};

function emit(obj) {
    process.stdout.write(JSON.stringify(obj) + '\n');
}

function parseArgs(argv) {
    const a = { modules: argv[0], dir: argv[1], threads: 0, repeat: 7, minTime: 0.07 };
    for (let i = 2; i < argv.length; i += 2) {
        if (argv[i] === '--threads') a.threads = Number(argv[i + 1]);
        else if (argv[i] === '--repeat') a.repeat = Number(argv[i + 1]);
        else if (argv[i] === '--min-time') a.minTime = Number(argv[i + 1]);
        else throw new Error(`unknown argument ${argv[i]}`);
    }
    if (!a.modules || !a.dir || !(a.threads >= 1)) throw new Error('usage: peer_ort.js MODULES DIR --threads N');
    return a;
}

// A pool of `elements` values of `type` from a fixed-seed xorshift: the float types get a
// random sign and mantissa with the exponent of [0.5, 1) or [1, 2); integers every bit random.
function makePool(type, elements) {
    const bytes = elements * TENSOR_ARRAYS[type].BYTES_PER_ELEMENT;
    const words = new Uint32Array(Math.ceil(bytes / 4));
    let s = 7;
    for (let i = 0; i < words.length; i++) {
        s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
        words[i] = s >>> 0;
    }
    if (type === 'float32') {
        for (let i = 0; i < words.length; i++) {
            const r = words[i];
            words[i] = (r & 0x807fffff) | ((126 + ((r >>> 23) & 1)) << 23);
        }
    } else if (type === 'float16') {
        const h = new Uint16Array(words.buffer, 0, elements);
        for (let i = 0; i < elements; i++) {
            const r = h[i];
            h[i] = (r & 0x83ff) | ((14 + ((r >>> 10) & 1)) << 10);
        }
    } else if (type === 'float64') {
        for (let i = 1; i < words.length; i += 2) {  // the high word of each value
            const r = words[i];
            words[i] = (r & 0x800fffff) | ((1022 + ((r >>> 20) & 1)) << 20);
        }
    }
    return words.buffer;
}

function tensorOf(ort, type, buffer, offset, dims) {
    const T = TENSOR_ARRAYS[type];
    const n = dims.reduce((p, d) => p * d, 1);
    return new ort.Tensor(type, new T(buffer, offset * T.BYTES_PER_ELEMENT, n), dims);
}

async function timeRun(run, repeat, minTime, maxTime, sampleTime = 1e-3) {
    const now = () => Number(process.hrtime.bigint()) * 1e-9;
    await run();
    const t0 = now();
    await run();
    let one = now() - t0;
    let calls = 1;
    while (now() - t0 < 0.005) {
        await run();
        calls++;
    }
    one = Math.min(one, (now() - t0) / calls);
    const per = one > 0 ? Math.max(1, Math.floor(sampleTime / one)) : 1;
    const samples = [];
    let spent = 0;
    for (;;) {
        const a = now();
        for (let i = 0; i < per; i++) await run();
        const dt = now() - a;
        samples.push(dt / per);
        spent += dt;
        if (samples.length >= repeat && spent >= minTime) break;
        if (samples.length >= 3 && spent >= maxTime) break;
        if (samples.length >= 1000) break;
    }
    samples.sort((x, y) => x - y);
    return [samples[samples.length >> 1], samples[0]];
}

// "Could not find an implementation for ReduceSum(13) node ..." becomes a short reason.
function skipReason(e, c) {
    const msg = String(e && e.message ? e.message : e);
    const m = msg.match(/Could not find an implementation for (\w+)\((\d+)\)/);
    if (m) return `ORT CPU has no ${m[1]}-${m[2]} kernel for ${c.inputs[0].type}`;
    return msg.split('\n')[0].slice(0, 120);
}

async function main() {
    const args = parseArgs(process.argv.slice(2));
    let ort;
    try {
        ort = require(require.resolve('onnxruntime-node', { paths: [args.modules] }));
    } catch (e) {
        emit({ skip_all: `onnxruntime-node is not installed in ${path.basename(args.modules)} (${String(e.message).split('\n')[0]})` });
        return;
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(args.dir, 'manifest.json'), 'utf8'));
    const version = require(require.resolve('onnxruntime-node/package.json', { paths: [args.modules] })).version;
    emit({ version: `${version} (CPU provider, opset ${manifest.opset}; every run also copies its outputs into a new buffer)`, threads: args.threads });
    const options = {
        executionProviders: ['cpu'], intraOpNumThreads: args.threads, interOpNumThreads: 1,
        executionMode: 'sequential', graphOptimizationLevel: 'all', logSeverityLevel: 3,
    };
    const maxTime = Math.max(0.5, 10 * args.minTime);
    const pools = new Map();
    const cases = manifest.cases;
    for (let i = 0; i < cases.length; i++) {
        const c = cases[i];
        const key = [...c.key, args.threads];
        process.stderr.write(`\r\x1b[K[${i + 1}/${cases.length}] ort ${c.key.join(' ')}`);
        if (c.skip) {
            emit({ key, skip: c.skip });
            continue;
        }
        let session;
        try {
            session = await ort.InferenceSession.create(path.join(args.dir, c.model), options);
        } catch (e) {
            emit({ key, skip: skipReason(e, c) });
            continue;
        }
        try {
            const type = c.inputs[0].type;
            const need = Math.max(...c.inputs.map((t) => t.offset + t.dims.reduce((p, d) => p * d, 1)));
            if (!pools.has(type) || pools.get(type).elements < need) {
                pools.clear();  // one pool alive at a time: the large cases hold 64 MiB or more
                pools.set(type, { elements: need, buffer: makePool(type, need) });
            }
            const pool = pools.get(type).buffer;
            const feeds = {};
            for (const t of c.inputs) feeds[t.name] = tensorOf(ort, t.type, pool, t.offset, t.dims);
            const fetches = {};
            for (const t of c.outputs) {
                const n = t.dims.reduce((p, d) => p * d, 1);
                fetches[t.name] = tensorOf(ort, t.type, new ArrayBuffer(n * TENSOR_ARRAYS[t.type].BYTES_PER_ELEMENT), 0, t.dims);
            }
            const [med, min] = await timeRun(() => session.run(feeds, fetches), args.repeat, args.minTime, maxTime);
            emit({ key, median_s: med, min_s: min });
        } catch (e) {  // a case the runtime cannot run is a note, never an error
            emit({ key, skip: skipReason(e, c) });
        } finally {
            await session.release();
        }
    }
    process.stderr.write('\r\x1b[K');
}

main().catch((e) => {
    emit({ skip_all: `ort: ${String(e && e.message ? e.message : e).split('\n')[0]}` });
    process.exitCode = 1;
});
