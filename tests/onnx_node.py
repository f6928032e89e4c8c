#!/usr/bin/python3
"""ONNX's backend node tests, run through dmlcpu the way a runtime maps an ONNX node.

Usage: onnx_node.py LIBDMLCPU [NODE_DATA_DIR]

Every test folder of NODE_DATA_DIR (default: Debian's libonnx-testdata, ONNX 1.12) whose model
is one node of a reduction, ArgMax/ArgMin, Slice, Split or Concat is mapped onto a dmlcpu
descriptor (REDUCE, ARGMAX/ARGMIN, SLICE, SPLIT, JOIN), run on every test_data_set with buffers
of the inputs' and outputs' own sizes, and compared with ONNX's expected outputs: bitwise for
copies, integer results, MIN/MAX and ArgMax/ArgMin; within a few ulps for float reductions,
whose order of operations ONNX does not fix. A node the descriptors cannot express is reported
as skipped with its reason. Prints one line per test, a summary per op, then
"N passed, N failed, N skipped". Exit status: 0 if nothing failed, 1 if something failed,
77 (skipped) when numpy/onnx, the data or the requested ISA level (DMLCPU_ISA) is missing.
"""
import ctypes
import glob
import os
import sys

SKIP_EXIT = 77
DEFAULT_DATA = "/usr/share/libonnx-testdata/data/node"

try:
    import numpy as np
    import onnx
    from onnx import numpy_helper
except ImportError as e:
    print(f"skipped: this Python lacks numpy or onnx ({e}); install python3-numpy python3-onnx")
    sys.exit(SKIP_EXIT)

# ---------------------------------------------------------------------------------------------
# The public API of include/dmlcpu.h, mirrored field for field.

STATUS_OK, STATUS_INVALID_ARGUMENT, STATUS_UNSUPPORTED = 0, 1, 2
OP_REDUCE, OP_ARGMIN, OP_ARGMAX, OP_SLICE, OP_SPLIT, OP_JOIN = 1, 2, 3, 4, 6, 7
DIRECTION_INCREASING, DIRECTION_DECREASING = 0, 1
ISA_NAMES = {"scalar": 0, "portable": 1, "avx2": 2, "avx512": 3, "neon": 4}
X86_ONLY, ARM_ONLY = {"avx2", "avx512"}, {"neon"}

# numpy dtype -> dmlcpu_data_type (values equal DirectML's DML_TENSOR_DATA_TYPE).
DTYPES = {
    np.dtype(np.float32): 1, np.dtype(np.float16): 2, np.dtype(np.uint32): 3,
    np.dtype(np.uint16): 4, np.dtype(np.uint8): 5, np.dtype(np.int32): 6,
    np.dtype(np.int16): 7, np.dtype(np.int8): 8, np.dtype(np.float64): 9,
    np.dtype(np.uint64): 10, np.dtype(np.int64): 11,
}

U32P = ctypes.POINTER(ctypes.c_uint32)


class TensorDesc(ctypes.Structure):
    _fields_ = [("data_type", ctypes.c_int), ("dimension_count", ctypes.c_uint32),
                ("sizes", U32P), ("strides", U32P),
                ("total_tensor_size_in_bytes", ctypes.c_uint64)]


class ReduceDesc(ctypes.Structure):
    _fields_ = [("function", ctypes.c_int), ("input_tensor", ctypes.POINTER(TensorDesc)),
                ("output_tensor", ctypes.POINTER(TensorDesc)), ("axis_count", ctypes.c_uint32),
                ("axes", U32P)]


class ArgDesc(ctypes.Structure):
    _fields_ = [("input_tensor", ctypes.POINTER(TensorDesc)),
                ("output_tensor", ctypes.POINTER(TensorDesc)), ("axis_count", ctypes.c_uint32),
                ("axes", U32P), ("axis_direction", ctypes.c_int)]


class SliceDesc(ctypes.Structure):
    _fields_ = [("input_tensor", ctypes.POINTER(TensorDesc)),
                ("output_tensor", ctypes.POINTER(TensorDesc)),
                ("dimension_count", ctypes.c_uint32), ("input_window_offsets", U32P),
                ("input_window_sizes", U32P),
                ("input_window_strides", ctypes.POINTER(ctypes.c_int32))]


class SplitDesc(ctypes.Structure):
    _fields_ = [("input_tensor", ctypes.POINTER(TensorDesc)), ("output_count", ctypes.c_uint32),
                ("output_tensors", ctypes.POINTER(TensorDesc)), ("axis", ctypes.c_uint32)]


class JoinDesc(ctypes.Structure):
    _fields_ = [("input_count", ctypes.c_uint32), ("input_tensors", ctypes.POINTER(TensorDesc)),
                ("output_tensor", ctypes.POINTER(TensorDesc)), ("axis", ctypes.c_uint32)]


class OperatorDesc(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("desc", ctypes.c_void_p)]


class BindingProperties(ctypes.Structure):
    _fields_ = [("input_count", ctypes.c_uint32), ("output_count", ctypes.c_uint32),
                ("temporary_size_in_bytes", ctypes.c_uint64)]


class BufferBinding(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size_in_bytes", ctypes.c_uint64)]


class Bindings(ctypes.Structure):
    _fields_ = [("input_count", ctypes.c_uint32), ("inputs", ctypes.POINTER(BufferBinding)),
                ("output_count", ctypes.c_uint32), ("outputs", ctypes.POINTER(BufferBinding)),
                ("temporary", BufferBinding)]


def load_library(path):
    lib = ctypes.CDLL(path)
    lib.dmlcpu_create_operator.argtypes = [ctypes.POINTER(OperatorDesc), ctypes.c_void_p,
                                           ctypes.POINTER(ctypes.c_void_p)]
    lib.dmlcpu_create_operator.restype = ctypes.c_int
    lib.dmlcpu_get_binding_properties.argtypes = [ctypes.c_void_p,
                                                  ctypes.POINTER(BindingProperties)]
    lib.dmlcpu_get_binding_properties.restype = None
    lib.dmlcpu_execute.argtypes = [ctypes.c_void_p, ctypes.POINTER(Bindings)]
    lib.dmlcpu_execute.restype = ctypes.c_int
    lib.dmlcpu_destroy_operator.argtypes = [ctypes.c_void_p]
    lib.dmlcpu_destroy_operator.restype = None
    lib.dmlcpu_status_string.argtypes = [ctypes.c_int]
    lib.dmlcpu_status_string.restype = ctypes.c_char_p
    lib.dmlcpu_last_error_message.argtypes = []
    lib.dmlcpu_last_error_message.restype = ctypes.c_char_p
    lib.dmlcpu_detected_isa.argtypes = []
    lib.dmlcpu_detected_isa.restype = ctypes.c_int
    lib.dmlcpu_operator_isa.argtypes = [ctypes.c_void_p]
    lib.dmlcpu_operator_isa.restype = ctypes.c_int
    lib.dmlcpu_isa_name.argtypes = [ctypes.c_int]
    lib.dmlcpu_isa_name.restype = ctypes.c_char_p
    return lib


# ---------------------------------------------------------------------------------------------
# Outcomes of one test other than a pass.

class Skip(Exception):
    """The node cannot be expressed by dmlcpu's descriptors (or dmlcpu does not support it)."""


class Fail(Exception):
    """dmlcpu rejected a node it should accept, or its result differs from ONNX's."""


# SPEC 3.1: the input types each REDUCE function takes. A pairing outside the table may be
# UNSUPPORTED (a skip); UNSUPPORTED inside it is a failure.
ALL_TYPES = set(DTYPES.values())
REDUCE_TYPES = {
    "min_max": ALL_TYPES,
    "sum_like": {1, 2, 9, 6, 3, 11, 10},
    "float_only": {1, 2, 9},
}
REDUCE_FUNCTIONS = {  # ONNX op -> (dmlcpu_reduce_function, table row, comparison)
    "ReduceL1": (3, "sum_like", "ulps"),
    "ReduceL2": (4, "float_only", "ulps"),
    "ReduceLogSum": (5, "float_only", "ulps"),
    "ReduceLogSumExp": (6, "float_only", "ulps"),
    "ReduceMax": (7, "min_max", "exact"),
    "ReduceMean": (2, "float_only", "ulps"),
    "ReduceMin": (8, "min_max", "exact"),
    "ReduceProd": (9, "sum_like", "ulps"),
    "ReduceSum": (10, "sum_like", "ulps"),
    "ReduceSumSquare": (11, "sum_like", "ulps"),
}
SELECTED_OPS = set(REDUCE_FUNCTIONS) | {"ArgMax", "ArgMin", "Slice", "Split", "Concat"}
MAX_ULPS = 4


# ---------------------------------------------------------------------------------------------
# Tensors: numpy arrays bound with their own nbytes, descriptions kept alive with their arrays.

class Tensor:
    """A packed dmlcpu_tensor_desc of `shape` and `dtype` (total size 0 = the addressed size)."""

    def __init__(self, shape, dtype):
        if dtype not in DTYPES:
            raise Skip(f"data type {dtype} has no dmlcpu_data_type")
        shape = tuple(int(s) for s in shape) or (1,)  # a scalar is a rank-1 tensor of size 1
        if 0 in shape:
            raise Skip(f"zero-size tensor of shape {list(shape)} (SPEC 2: no empty tensors)")
        if len(shape) > 8:
            raise Skip(f"rank {len(shape)} is above dmlcpu's 8")
        self.shape = shape
        self.sizes = (ctypes.c_uint32 * len(shape))(*shape)
        self.desc = TensorDesc(DTYPES[dtype], len(shape), self.sizes, None, 0)

    def fill(self, desc):
        """Copies the description into an element of an array of descriptions."""
        desc.data_type, desc.dimension_count = self.desc.data_type, self.desc.dimension_count
        desc.sizes, desc.strides, desc.total_tensor_size_in_bytes = self.sizes, None, 0


def binding(array):
    assert array.flags["C_CONTIGUOUS"]
    return BufferBinding(array.ctypes.data, array.nbytes)


def u32_array(values):
    return (ctypes.c_uint32 * max(len(values), 1))(*values)


def normalize_axis(axis, rank, what):
    if not -rank <= axis < rank:
        raise Fail(f"{what} {axis} is out of range for rank {rank} (invalid model)")
    return axis + rank if axis < 0 else axis


# ---------------------------------------------------------------------------------------------
# Mapping an ONNX node onto a dmlcpu descriptor. Each map_* returns a Plan.

class Plan:
    """A descriptor and its buffers: keep (the ctypes objects the descriptor points into, alive
    as long as the plan), inputs (arrays), outputs (arrays allocated in dmlcpu's shape) and
    shapes (ONNX's output shapes, reached by reshaping the output buffers: keepdims=0)."""

    def __init__(self, op_type, desc, keep, inputs, outputs, shapes, compare, bound=None,
                 unsupported_allowed=False):
        self.op_type, self.desc, self.keep = op_type, desc, keep
        self.inputs, self.outputs, self.shapes = inputs, outputs, shapes
        self.compare = compare  # "exact" (bitwise) or "ulps"
        self.bound = bound  # absolute error bound per output beyond MAX_ULPS, or None
        self.unsupported_allowed = unsupported_allowed  # UNSUPPORTED at create is a skip


def attributes(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def optional_input(node, values, index):
    """The value of the node's index-th input, or None when it is absent or named ''."""
    if index >= len(node.input) or node.input[index] == "":
        return None
    return values[node.input[index]]


def map_reduce(node, values, opset):
    attrs = attributes(node)
    x = values[node.input[0]]
    function, table, compare = REDUCE_FUNCTIONS[node.op_type]
    rank = max(x.ndim, 1)
    # Axes are an input from opset 13 on for ReduceSum (18 for the others), an attribute before.
    axes_input = optional_input(node, values, 1)
    axes = [int(a) for a in axes_input] if axes_input is not None else list(attrs.get("axes", []))
    if not axes:
        if attrs.get("noop_with_empty_axes", 0):
            raise Skip("noop_with_empty_axes=1 with empty axes is an identity, not a REDUCE")
        axes = list(range(rank))
    axes = sorted({normalize_axis(a, rank, "axis") for a in axes})
    keepdims = attrs.get("keepdims", 1)
    x = np.ascontiguousarray(x)
    tin = Tensor(x.shape, x.dtype)
    out_shape = tuple(1 if d in axes else s for d, s in enumerate(tin.shape))
    tout = Tensor(out_shape, x.dtype)
    axes_c = u32_array(axes)
    desc = ReduceDesc(function, ctypes.pointer(tin.desc), ctypes.pointer(tout.desc), len(axes),
                      axes_c)
    out = np.empty(out_shape, x.dtype)
    onnx_shape = out_shape if keepdims else tuple(s for d, s in enumerate(x.shape) if d not in axes)
    if x.dtype.kind in "iu":
        compare = "exact"  # integer reductions are exact (SPEC 4)
    return Plan(node.op_type, OperatorDesc(OP_REDUCE, ctypes.addressof(desc)),
                [tin, tout, desc, axes_c], [x], [out], [onnx_shape], compare,
                conditioning_bound(node.op_type, x, tuple(axes), onnx_shape) if compare != "exact"
                else None, unsupported_allowed=DTYPES[x.dtype] not in REDUCE_TYPES[table])


def conditioning_bound(op_type, x, axes, shape):
    """An absolute error bound per output for results whose value is ill-conditioned in the
    order of the sum, which ONNX does not fix: MAX_ULPS ulps of the group's largest |term| for
    a sum that cancels (ReduceSum, ReduceMean, ReduceL1), and that error of the sum carried
    through the log (d log s = ds / s) for ReduceLogSum. None for the others."""
    x64 = np.abs(x.astype(np.float64))
    if op_type in ("ReduceSum", "ReduceMean", "ReduceL1"):
        bound = MAX_ULPS * np.spacing(np.max(x64, axis=axes).astype(x.dtype)).astype(np.float64)
    elif op_type == "ReduceLogSum":
        total = np.abs(np.sum(x.astype(np.float64), axis=axes))
        ulp = np.spacing(np.sum(x64, axis=axes).astype(x.dtype)).astype(np.float64)
        with np.errstate(divide="ignore"):
            bound = MAX_ULPS * ulp / total
    else:
        return None
    return bound.reshape(shape)


def map_arg(node, values, opset):
    attrs = attributes(node)
    x = np.ascontiguousarray(values[node.input[0]])
    tin = Tensor(x.shape, x.dtype)
    axis = normalize_axis(attrs.get("axis", 0), len(tin.shape), "axis")
    keepdims = attrs.get("keepdims", 1)
    direction = DIRECTION_DECREASING if attrs.get("select_last_index", 0) else DIRECTION_INCREASING
    out_shape = tuple(1 if d == axis else s for d, s in enumerate(tin.shape))
    tout = Tensor(out_shape, np.dtype(np.int64))  # ONNX's ArgMax/ArgMin output is INT64
    axes_c = u32_array([axis])
    desc = ArgDesc(ctypes.pointer(tin.desc), ctypes.pointer(tout.desc), 1, axes_c, direction)
    out = np.empty(out_shape, np.int64)
    onnx_shape = out_shape if keepdims else tuple(s for d, s in enumerate(x.shape) if d != axis)
    op = OP_ARGMAX if node.op_type == "ArgMax" else OP_ARGMIN
    return Plan(node.op_type, OperatorDesc(op, ctypes.addressof(desc)),
                [tin, tout, desc, axes_c], [x], [out], [onnx_shape], "exact")


def slice_window(start, end, step, size):
    """ONNX Slice on one axis of `size` elements -> (offset, window size, stride, count):
    negative starts/ends count from the end, then both are clamped ([0, size] for a positive
    step, [0, size-1] and [-1, size-1] for a negative one). The window is the smallest one that
    holds the selected elements; a negative step walks it backwards."""
    if step == 0:
        raise Fail("Slice step 0 (invalid model)")
    start += size if start < 0 else 0
    end += size if end < 0 else 0
    if step > 0:
        start, end = min(max(start, 0), size), min(max(end, 0), size)
        count = max(0, -(-(end - start) // step))
    else:
        start, end = min(max(start, 0), size - 1), min(max(end, -1), size - 1)
        count = max(0, -(-(start - end) // -step))
    if count == 0:
        return None
    if count == 1:
        step = 1 if step > 0 else -1  # one element: any step selects the same one
    if abs(step) > 2**31 - 1:
        raise Skip(f"Slice step {step} does not fit an INT32 window stride")
    span = (count - 1) * abs(step) + 1
    offset = start if step > 0 else start - span + 1
    return offset, span, step, count


def map_slice(node, values, opset):
    x = np.ascontiguousarray(values[node.input[0]])
    rank = x.ndim
    if opset < 10:  # starts, ends, axes are attributes before opset 10; no steps
        attrs = attributes(node)
        starts, ends = attrs["starts"], attrs["ends"]
        axes, steps = attrs.get("axes"), None
    else:
        starts = [int(v) for v in values[node.input[1]]]
        ends = [int(v) for v in values[node.input[2]]]
        axes, steps = optional_input(node, values, 3), optional_input(node, values, 4)
        axes = None if axes is None else [int(v) for v in axes]
        steps = None if steps is None else [int(v) for v in steps]
    axes = list(range(len(starts))) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    offsets, windows, strides, out_shape = [0] * rank, list(x.shape), [1] * rank, list(x.shape)
    for start, end, axis, step in zip(starts, ends, axes, steps):
        axis = normalize_axis(axis, rank, "Slice axis")
        window = slice_window(start, end, step, x.shape[axis])
        if window is None:
            raise Skip(f"zero-size output: axis {axis} selects nothing (start {start}, end {end},"
                       f" step {step}; SPEC 2: no empty tensors)")
        offsets[axis], windows[axis], strides[axis], out_shape[axis] = window
    tin, tout = Tensor(x.shape, x.dtype), Tensor(out_shape, x.dtype)
    offsets_c, windows_c = u32_array(offsets), u32_array(windows)
    strides_c = (ctypes.c_int32 * rank)(*strides)
    desc = SliceDesc(ctypes.pointer(tin.desc), ctypes.pointer(tout.desc), rank, offsets_c,
                     windows_c, strides_c)
    out = np.empty(out_shape, x.dtype)
    return Plan(node.op_type, OperatorDesc(OP_SLICE, ctypes.addressof(desc)),
                [tin, tout, desc, offsets_c, windows_c, strides_c], [x], [out],
                [tuple(out_shape)], "exact")


def map_split(node, values, opset):
    attrs = attributes(node)
    x = np.ascontiguousarray(values[node.input[0]])
    tin = Tensor(x.shape, x.dtype)
    axis = normalize_axis(attrs.get("axis", 0), x.ndim, "axis")
    split = optional_input(node, values, 1) if opset >= 13 else attrs.get("split")
    parts, whole = len(node.output), x.shape[axis]
    if split is None or len(split) == 0:
        chunk = -(-whole // parts)  # opset 18 lets the last part be smaller
        if whole % parts and opset < 18:
            raise Fail(f"axis size {whole} does not split into {parts} equal parts (invalid model)")
        split = [min(chunk, whole - k * chunk) for k in range(parts)]
    split = [int(s) for s in split]
    if 0 in split:
        raise Skip(f"zero-size output: split {split} has an empty part (SPEC 2: no empty tensors)")
    shapes = [tuple(s if d == axis else n for d, n in enumerate(x.shape)) for s in split]
    touts = [Tensor(s, x.dtype) for s in shapes]
    descs = (TensorDesc * parts)()
    for t, d in zip(touts, descs):
        t.fill(d)
    desc = SplitDesc(ctypes.pointer(tin.desc), parts, descs, axis)
    outs = [np.empty(s, x.dtype) for s in shapes]
    return Plan(node.op_type, OperatorDesc(OP_SPLIT, ctypes.addressof(desc)),
                [tin, touts, descs, desc], [x], outs, shapes, "exact")


def map_concat(node, values, opset):
    attrs = attributes(node)
    xs = [np.ascontiguousarray(values[name]) for name in node.input]
    axis = normalize_axis(attrs["axis"], xs[0].ndim, "axis")
    tins = [Tensor(x.shape, x.dtype) for x in xs]
    descs = (TensorDesc * len(xs))()
    for t, d in zip(tins, descs):
        t.fill(d)
    out_shape = list(xs[0].shape)
    out_shape[axis] = sum(x.shape[axis] for x in xs)
    tout = Tensor(out_shape, xs[0].dtype)
    desc = JoinDesc(len(xs), descs, ctypes.pointer(tout.desc), axis)
    out = np.empty(out_shape, xs[0].dtype)
    return Plan(node.op_type, OperatorDesc(OP_JOIN, ctypes.addressof(desc)),
                [tins, descs, tout, desc], xs, [out], [tuple(out_shape)], "exact")


def map_node(node, values, opset):
    if node.op_type in REDUCE_FUNCTIONS:
        return map_reduce(node, values, opset)
    return {"ArgMax": map_arg, "ArgMin": map_arg, "Slice": map_slice, "Split": map_split,
            "Concat": map_concat}[node.op_type](node, values, opset)


# ---------------------------------------------------------------------------------------------
# Running a plan and comparing.

COPY_OPS = {"Slice", "Split", "Concat"}


def expected_level(plan, isa_level):
    """The level whose kernels an operator must run at the requested level: that level, except
    for copies on x86, whose vector kernels at every level from portable up are the portable
    tier's (the hand-written AVX2 copies left: they were no faster, README Copies)."""
    x86 = os.uname().machine in ("x86_64", "AMD64", "amd64", "i686")
    if x86 and plan.op_type in COPY_OPS and isa_level > ISA_NAMES["portable"]:
        return ISA_NAMES["portable"]
    return isa_level


def run_plan(lib, plan, isa_level):
    op = ctypes.c_void_p()
    st = lib.dmlcpu_create_operator(ctypes.byref(plan.desc), None, ctypes.byref(op))
    if st != STATUS_OK:
        msg = lib.dmlcpu_last_error_message().decode()
        name = lib.dmlcpu_status_string(st).decode()
        if st == STATUS_UNSUPPORTED and plan.unsupported_allowed:
            raise Skip(f"dmlcpu: {name}: {msg}")
        raise Fail(f"create returned {name}: {msg}")
    try:
        if isa_level is not None and lib.dmlcpu_operator_isa(op) != expected_level(plan, isa_level):
            got = lib.dmlcpu_isa_name(lib.dmlcpu_operator_isa(op)).decode()
            raise Fail(f"the operator runs at ISA level {got}, not the requested one")
        props = BindingProperties()
        lib.dmlcpu_get_binding_properties(op, ctypes.byref(props))
        if props.input_count != len(plan.inputs) or props.output_count != len(plan.outputs):
            raise Fail(f"binding properties say {props.input_count} inputs and "
                       f"{props.output_count} outputs, the node has {len(plan.inputs)} and "
                       f"{len(plan.outputs)}")
        temp = np.empty(max(props.temporary_size_in_bytes, 1), np.uint8)
        ins = (BufferBinding * len(plan.inputs))(*[binding(a) for a in plan.inputs])
        outs = (BufferBinding * len(plan.outputs))(*[binding(a) for a in plan.outputs])
        b = Bindings(len(plan.inputs), ins, len(plan.outputs), outs,
                     BufferBinding(temp.ctypes.data, props.temporary_size_in_bytes))
        st = lib.dmlcpu_execute(op, ctypes.byref(b))
        if st != STATUS_OK:
            raise Fail(f"execute returned {lib.dmlcpu_status_string(st).decode()}: "
                       f"{lib.dmlcpu_last_error_message().decode()}")
    finally:
        lib.dmlcpu_destroy_operator(op)
    return [o.reshape(s) for o, s in zip(plan.outputs, plan.shapes)]


UINT_OF = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def ordered(a):
    """Float bit patterns as Python ints that are ordered like the values (adjacent floats
    differ by 1; -0 and +0 are both 0)."""
    bits = a.view(UINT_OF[a.itemsize]).ravel().tolist()
    sign = 1 << (8 * a.itemsize - 1)
    return [-(b ^ sign) if b & sign else b for b in bits]


def ulp_distances(got, want):
    """Per element distance in units in the last place; NaN against NaN is 0, NaN against a
    number is infinite."""
    dist = []
    for g, w, gn, wn in zip(ordered(got), ordered(want), np.isnan(got).ravel(),
                            np.isnan(want).ravel()):
        dist.append(0 if gn and wn else float("inf") if gn or wn else abs(g - w))
    return dist


def compare(plan, got, want):
    """Returns the worst ulp distance seen (0 for bitwise comparisons); raises Fail."""
    worst = 0
    for k, (g, w) in enumerate(zip(got, want)):
        where = f"output {k}" if len(got) > 1 else "output"
        if g.shape != w.shape:
            raise Fail(f"{where} shape {list(g.shape)}, ONNX expects {list(w.shape)}")
        if g.dtype != w.dtype:
            raise Fail(f"{where} type {g.dtype}, ONNX expects {w.dtype}")
        if plan.compare == "exact":
            same = g.view(UINT_OF.get(g.itemsize, np.uint8)) == w.view(UINT_OF.get(w.itemsize, np.uint8))
            if g.dtype.kind == "f" and plan.op_type not in ("Slice", "Split", "Concat"):
                same |= np.isnan(g) & np.isnan(w)  # any NaN equals any NaN (SPEC 4)
            if not same.all():
                i = np.unravel_index(int(np.argmin(same)), g.shape)
                raise Fail(f"{where}{list(i)} is {g[i]!r}, ONNX expects {w[i]!r} (bitwise)")
            continue
        dist = ulp_distances(g, w)
        bad = [i for i, d in enumerate(dist) if d > MAX_ULPS]
        if plan.bound is not None and bad:
            diff = np.abs(g.astype(np.float64).ravel() - w.astype(np.float64).ravel())
            bound = plan.bound.ravel()
            bad = [i for i in bad if not diff[i] <= bound[i]]
        if bad:
            i = np.unravel_index(bad[0], g.shape)
            raise Fail(f"{where}{list(i)} is {g[i]!r}, ONNX expects {w[i]!r} "
                       f"({dist[bad[0]]} ulps; {len(bad)} of {g.size} beyond {MAX_ULPS} ulps"
                       f"{' and the error bound' if plan.bound is not None else ''})")
        worst = max([worst] + dist)
    return worst


# ---------------------------------------------------------------------------------------------
# The ONNX side: selecting the tests and reading their data sets.

def read_tensors(folder, prefix):
    files = glob.glob(os.path.join(folder, prefix + "_*.pb"))
    files.sort(key=lambda f: int(os.path.basename(f)[len(prefix) + 1:-3]))
    return [numpy_helper.to_array(onnx.load_tensor(f)) for f in files]


def selected_tests(data_dir):
    """(name, model) of every test whose model is a single node of a selected op type."""
    tests = []
    for name in sorted(os.listdir(data_dir)):
        path = os.path.join(data_dir, name, "model.onnx")
        if not os.path.isfile(path):
            continue
        model = onnx.load(path)
        if len(model.graph.node) == 1 and model.graph.node[0].op_type in SELECTED_OPS:
            tests.append((name, model))
    return tests


def run_test(lib, folder, model, isa_level):
    """Runs every test_data_set of one test; returns the worst ulp distance; raises Skip/Fail."""
    node = model.graph.node[0]
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 1)
    initial = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    input_names = [i.name for i in model.graph.input if i.name not in initial]
    output_names = [o.name for o in model.graph.output]
    sets = sorted(glob.glob(os.path.join(folder, "test_data_set_*")))
    if not sets:
        raise Fail("no test_data_set folder")
    worst = 0
    for data_set in sets:
        inputs, expected = read_tensors(data_set, "input"), read_tensors(data_set, "output")
        if len(inputs) != len(input_names) or len(expected) != len(output_names):
            raise Fail(f"{os.path.basename(data_set)} has {len(inputs)} inputs and "
                       f"{len(expected)} outputs, the graph {len(input_names)} and "
                       f"{len(output_names)}")
        values = dict(initial, **dict(zip(input_names, inputs)))
        plan = map_node(node, values, opset)
        got = run_plan(lib, plan, isa_level)
        want = [expected[output_names.index(n)] for n in node.output]
        try:
            worst = max(worst, compare(plan, got, want))
        except Fail as e:
            raise Fail(f"{os.path.basename(data_set)}: {e}") from None
    return worst


def requested_isa(lib):
    """The ISA level DMLCPU_ISA asks for (None when unset); exits 77 when the host lacks it."""
    name = os.environ.get("DMLCPU_ISA", "")
    if not name:
        return None
    if name not in ISA_NAMES:
        print(f"DMLCPU_ISA={name} is not an ISA level")
        sys.exit(2)
    x86 = os.uname().machine in ("x86_64", "AMD64", "amd64", "i686")
    detected = lib.dmlcpu_detected_isa()
    foreign = name in (ARM_ONLY if x86 else X86_ONLY)
    if foreign or ISA_NAMES[name] > detected:
        print(f"skipped: DMLCPU_ISA={name} is not available here "
              f"(detected {lib.dmlcpu_isa_name(detected).decode()})")
        sys.exit(SKIP_EXIT)
    target = os.environ.get("DMLCPU_PORTABLE_TARGET", "")
    lib.dmlcpu_portable_target.restype = ctypes.c_char_p
    running = lib.dmlcpu_portable_target().decode()
    if target and target != running:
        print(f"skipped: DMLCPU_PORTABLE_TARGET={target} does not run here "
              f"(the portable level runs {running})")
        sys.exit(SKIP_EXIT)
    return ISA_NAMES[name]


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2])
        return 2
    data_dir = argv[2] if len(argv) == 3 else DEFAULT_DATA
    if not os.path.isdir(data_dir):
        print(f"skipped: no ONNX node test data at {data_dir} (install libonnx-testdata)")
        return SKIP_EXIT
    lib = load_library(argv[1])
    isa_level = requested_isa(lib)
    level = "default" if isa_level is None else lib.dmlcpu_isa_name(isa_level).decode()
    tests = selected_tests(data_dir)
    print(f"ONNX {onnx.__version__} node tests in {data_dir}: {len(tests)} selected; "
          f"ISA level {level}")
    counts, per_op = {"passed": 0, "failed": 0, "skipped": 0}, {}
    for name, model in tests:
        op_type = model.graph.node[0].op_type
        stats = per_op.setdefault(op_type, {"passed": 0, "failed": 0, "skipped": 0, "ulps": 0})
        try:
            worst = run_test(lib, os.path.join(data_dir, name), model, isa_level)
            outcome, line = "passed", "PASS"
            if worst > MAX_ULPS:
                line += f" (worst {worst} ulps, within the error bound of the sum's order)"
            elif worst:
                line += f" (worst {worst} ulps)"
            stats["ulps"] = max(stats["ulps"], worst)
        except Skip as e:
            outcome, line = "skipped", f"SKIP {e}"
        except Fail as e:
            outcome, line = "failed", f"FAIL {e}"
        counts[outcome] += 1
        stats[outcome] += 1
        print(f"{name}: {line}")
    print("\nper op:")
    for op_type in sorted(per_op):
        s = per_op[op_type]
        print(f"  {op_type:16s} {s['passed']:3d} passed {s['failed']:3d} failed "
              f"{s['skipped']:3d} skipped  worst {s['ulps']} ulps")
    print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    return 1 if counts["failed"] or not tests else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
