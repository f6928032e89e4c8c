"""One-node ONNX models of dmlcpu-bench's cases, for the ONNX Runtime peer (bench/peer_ort.js):

    /usr/bin/python3 peer_ort_models.py CASES.json DIR

CASES.json is a dmlcpu-bench result. Every successful case (once, whatever its thread count) gets
a model DIR/<n>.onnx, written with Debian's python3-onnx at opset 17, and an entry in
DIR/manifest.json: {"key": [dtype, op, pattern, size], "model": file, "inputs": [...],
"outputs": [...]} with each tensor's name, ONNX type name and dims (inputs also with their
element offset into one data pool per type), or {"key": [...], "skip": why} for a case that
ONNX cannot express as the same work. Prints {"skip_all": why} and writes no manifest when
python3-onnx is missing.

How the cases map (keepdims=1 everywhere, so the outputs have dmlcpu's shapes):
  REDUCE sum/max/min/average/multiply/l1/l2/sum_square/log_sum/log_sum_exp
          -> ReduceSum/ReduceMax/.../ReduceLogSumExp over the case's axes
  ARGMAX  -> ArgMax (select_last_index=0: the first of equal values, dmlcpu's default axis
             direction); over all axes of [R, C], which ArgMax cannot name at once, the input
             is fed as the same bytes shaped [R * C], as the index over the reduced axes is
             then the same number
  JOIN    -> Concat of the 4 parts on axis 1;  SPLIT -> Split into 4 equal parts on axis 1
  SLICE   -> Slice with starts/ends/axes/steps (reverse: step -1 from -1 to INT64_MIN)
  SLICE_GRAD is skipped (SLICE_GRAD_SKIP says why)
  IDENTITY into the transpose -> Transpose perm [1, 0]
"""
import json
import os
import re
import sys

OPSET = 17
REDUCE_OPS = {
    "sum": "ReduceSum", "max": "ReduceMax", "min": "ReduceMin", "average": "ReduceMean",
    "multiply": "ReduceProd", "l1": "ReduceL1", "l2": "ReduceL2", "sum_square": "ReduceSumSquare",
    "log_sum": "ReduceLogSum", "log_sum_exp": "ReduceLogSumExp",
}
INT64_MIN = -(2 ** 63)
# The same bytes could come from a Pad of the input seen as [R, C/2, 1] by one zero on its last
# axis, but ORT pads such an axis value by value: that measures its padding's worst case (30
# times slower than a Pad on a leading axis when tried on a busy machine), not a strided copy.
SLICE_GRAD_SKIP = ("no ONNX operator scatters into a strided window (ORT's inference build "
                   "has no SliceGrad)")


def prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def case_graph(onnx, c):
    """(nodes, inputs, outputs, initializers) of case c, or a reason string when ONNX has no
    operator doing the same work. inputs: (name, dims, element offset); outputs: (name, dims,
    type name)."""
    h, tp = onnx.helper, onnx.TensorProto
    op, pat, dt = c["op"], c["pattern"], c["dtype"]
    ins, outs, axes = list(c["in_shape"]), list(c["out_shape"]), list(c["axes"])

    def ints(name, values):
        return h.make_tensor(name, tp.INT64, [len(values)], values)

    if c["family"] in ("reduce", "tiny"):
        if op == "argmax":
            if len(axes) == 1:
                node = h.make_node("ArgMax", ["x"], ["y"], axis=axes[0], keepdims=1,
                                   select_last_index=0)
                return [node], [("x", ins, 0)], [("y", outs, "int64")], []
            if axes != list(range(len(ins))):
                return f"ArgMax takes one axis; axes {axes} of {ins} are not all of them"
            node = h.make_node("ArgMax", ["x"], ["y"], axis=0, keepdims=1, select_last_index=0)
            return [node], [("x", [prod(ins)], 0)], [("y", [1], "int64")], []
        kind = REDUCE_OPS.get(op)
        if kind is None:
            return f"no ONNX operator for REDUCE {op}"
        if kind == "ReduceSum":  # axes became an input at opset 13 for ReduceSum only
            node = h.make_node(kind, ["x", "axes"], ["y"], keepdims=1)
            inits = [ints("axes", axes)]
        else:
            node = h.make_node(kind, ["x"], ["y"], axes=axes, keepdims=1)
            inits = []
        return [node], [("x", ins, 0)], [("y", outs, dt)], inits
    rows, cols = outs[0], outs[1]
    w = cols // 4
    if op == "join":
        names = [f"x{k}" for k in range(4)]
        node = h.make_node("Concat", names, ["y"], axis=1)
        return [node], [(n, [rows, w], k * rows * w) for k, n in enumerate(names)], \
            [("y", outs, dt)], []
    if op == "split":
        names = [f"y{k}" for k in range(4)]
        node = h.make_node("Split", ["x", "split"], names, axis=1)
        return [node], [("x", ins, 0)], [(n, [rows, w], dt) for n in names], \
            [ints("split", [w] * 4)]
    if op == "slice":
        starts, ends, sl_axes, steps = {
            "rows": ([rows], [2 * rows], [0], [1]),
            "step2": ([0], [ins[1]], [1], [2]),
            "reverse": ([-1], [INT64_MIN], [1], [-1]),
        }[pat]
        node = h.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"])
        inits = [ints("starts", starts), ints("ends", ends), ints("axes", sl_axes),
                 ints("steps", steps)]
        return [node], [("x", ins, 0)], [("y", outs, dt)], inits
    if op == "slice_grad":
        return SLICE_GRAD_SKIP
    if op == "identity":
        node = h.make_node("Transpose", ["x"], ["y"], perm=[1, 0])
        return [node], [("x", ins, 0)], [("y", outs, dt)], []
    return f"no ONNX operator for {op}"


def schema_reason(onnx, node, error):
    """A reason like 'ONNX ReduceSum-13 takes no uint8' from the checker's error, or the error's
    first line."""
    msg = str(error)
    m = re.search(r"unsupported type: tensor\((\w+)\)", msg)
    if m:
        since = onnx.defs.get_schema(node.op_type, OPSET).since_version
        return f"ONNX {node.op_type}-{since} takes no {m.group(1)}"
    return f"ONNX checker: {msg.splitlines()[0][:100]}"


def main():
    cases_json, out_dir = sys.argv[1], sys.argv[2]
    try:
        import onnx
    except ImportError as e:
        print(json.dumps({"skip_all": f"python3-onnx is not installed ({e})"}))
        return
    types = {
        "float32": onnx.TensorProto.FLOAT, "float16": onnx.TensorProto.FLOAT16,
        "float64": onnx.TensorProto.DOUBLE, "int8": onnx.TensorProto.INT8,
        "uint8": onnx.TensorProto.UINT8, "int16": onnx.TensorProto.INT16,
        "uint16": onnx.TensorProto.UINT16, "int32": onnx.TensorProto.INT32,
        "uint32": onnx.TensorProto.UINT32, "int64": onnx.TensorProto.INT64,
        "uint64": onnx.TensorProto.UINT64,
    }
    with open(cases_json) as f:
        cases = [c for c in json.load(f)["cases"] if c.get("status") == "OK"]
    os.makedirs(out_dir, exist_ok=True)
    manifest, seen = [], set()
    for c in cases:
        key = [c["dtype"], c["op"], c["pattern"], c["size"]]
        if tuple(key) in seen:
            continue
        seen.add(tuple(key))
        if c["dtype"] not in types:
            manifest.append({"key": key, "skip": f"no ONNX type for {c['dtype']}"})
            continue
        g = case_graph(onnx, c)
        if isinstance(g, str):
            manifest.append({"key": key, "skip": g})
            continue
        nodes, inputs, outputs, inits = g
        h = onnx.helper
        graph = h.make_graph(
            nodes, "_".join(map(str, key)),
            [h.make_tensor_value_info(n, types[c["dtype"]], d) for n, d, _ in inputs],
            [h.make_tensor_value_info(n, types[t], d) for n, d, t in outputs], inits)
        model = h.make_model(graph, opset_imports=[h.make_opsetid("", OPSET)],
                             producer_name="dmlcpu-bench")
        try:
            onnx.checker.check_model(model, full_check=True)
        except Exception as e:  # the operator's type constraints leave this dtype out
            manifest.append({"key": key, "skip": schema_reason(onnx, nodes[0], e)})
            continue
        name = f"{len(manifest)}.onnx"
        onnx.save(model, os.path.join(out_dir, name))
        manifest.append({
            "key": key, "model": name,
            "inputs": [{"name": n, "type": c["dtype"], "dims": d, "offset": o}
                       for n, d, o in inputs],
            "outputs": [{"name": n, "type": t, "dims": d} for n, d, t in outputs]})
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump({"opset": OPSET, "onnx": onnx.__version__, "cases": manifest}, f, indent=1)


if __name__ == "__main__":
    main()
