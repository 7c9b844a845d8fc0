#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""replay-check.py's replay on a real model file, at optimization level none (the graph as written).

usage: replay-model.py MODEL.onnx [DIM=N ...] [--profile-sizes]
Value sizes come from ONNX shape inference with the dims bound (or, with --profile-sizes, from
ORT's profile of one run: for models whose shapes inference cannot make static; no workspace rules
are applied then); weights (initializers) are not activations. The planner's SameSize compares
the shapes inferred with the dims symbolic, as ORT's planner does at load. Kernel rules: replay-check.py's ALIAS and INPLACE sets; a Conv takes MLAS's working
buffer during its compute (MlasConvPrepare, one thread: none if pointwise; the whole im2col,
output size x K floats, if it has more filters than output pixels; else 16,384 floats;
workspace-probe.py measured each case), LRN an input-sized buffer and
one padded by size - 1 channels; BatchNormalization, Sum, AveragePool, Gemm, MaxPool none (measured). Ops outside these
rules are replayed as plain kernels (own output, no workspace) and listed, so a mismatch can be
traced to them. Prints the prediction beside arena-x.py's measurement at ort-arena.py's settings.
Run it with the ORT venv (scripts/ort-venv.sh makes it): target/ort-venv/bin/python benchmarks/ort/replay-model.py MODEL [DIM=N ...]
"""
import importlib.util, json, os, subprocess, sys, tempfile
import numpy as np
import onnx
from onnx import shape_inference

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
spec = importlib.util.spec_from_file_location("replay_check", os.path.join(HERE, "replay-check.py"))
rc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rc)

MLAS_CONV_FLOATS = 16384  # per-thread cap of MLAS's convolution working buffer
PLAIN = {"Conv", "Relu", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "DepthToSpace", "MaxPool",
         "Concat", "GlobalAveragePool", "Softmax", "Dropout", "Add", "Mul", "ConstantOfShape", "LRN",
         "BatchNormalization", "Sum", "AveragePool", "Gemm"}  # Conv and LRN workspaces measured, the rest none


def safe(text):
    """Text from ORT or a model file, made safe for a terminal: printable ASCII, the rest escaped."""
    return "".join(c if c.isprintable() and ord(c) < 0x7f else "\\x%02x" % ord(c) if ord(c) < 0x100
                   else "\\u%04x" % (ord(c) & 0xffff) for c in text)


def bound_model(path, dims):
    m = onnx.load(path)
    for vi in m.graph.input:
        for d in vi.type.tensor_type.shape.dim:
            if d.HasField("dim_param") and d.dim_param in dims:
                d.dim_value = int(dims[d.dim_param])
    return shape_inference.infer_shapes(m, data_prop=True)  # Shape -> Gather -> Concat chains need their values


def value_sizes(m):
    weights = {i.name for i in m.graph.initializer}
    sizes = {}
    for vi in list(m.graph.input) + list(m.graph.value_info) + list(m.graph.output):
        if vi.name in weights:
            continue
        tt = vi.type.tensor_type
        if not all(d.HasField("dim_value") for d in tt.shape.dim):
            raise SystemExit("replay-model.py: %s has no static shape; bind its dims" % safe(vi.name[:80]))
        n = int(np.prod([d.dim_value for d in tt.shape.dim])) if tt.shape.dim else 1
        sizes[vi.name] = n * onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type).itemsize
    return sizes


def workspace_of(node, shapes):
    """The arena allocations a kernel makes during its compute (workspace-probe.py measured them)."""
    a = {x.name: onnx.helper.get_attribute_value(x) for x in node.attribute}
    if node.op_type == "Conv":  # MlasConvPrepare's working buffer, one thread
        group = a.get("group", 1)
        kernel = int(np.prod(a.get("kernel_shape", [])))
        pointwise = kernel == 1 and all(v == 1 for v in a.get("strides", [1])) \
            and all(v == 0 for v in a.get("pads", [0])) and group == 1
        if pointwise:
            return []
        k = shapes[node.input[0]][1] // group * kernel
        filters, output_size = shapes[node.output[0]][1] // group, int(np.prod(shapes[node.output[0]][2:]))
        if group == 1 and filters > output_size:  # full expansion, then one GEMM
            return [4 * output_size * k]
        return [4 * MLAS_CONV_FLOATS]  # segmented (grouped convs: measured for depthwise only)
    if node.op_type == "LRN":  # a scale buffer like the input, then the squares padded by size - 1 channels
        n, c, *hw = shapes[node.input[0]]
        return [4 * n * c * int(np.prod(hw)), 4 * n * (c + a["size"] - 1) * int(np.prod(hw))]
    return []


def symbolic_kinds(path):
    """What ORT's planner compares (SameSize): element size and the shape it infers at load, with
    the request's dims still symbolic; a value whose shape is not fully inferred matches nothing."""
    m = shape_inference.infer_shapes(onnx.load(path))
    kinds = {}
    for vi in list(m.graph.input) + list(m.graph.value_info) + list(m.graph.output):
        tt = vi.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else d.dim_param or None for d in tt.shape.dim]
        if tt.HasField("shape") and None not in dims:
            kinds[vi.name] = (onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type).itemsize, tuple(dims))
    return kinds


PROFILE_BYTES = {"float": 4, "double": 8, "int64": 8, "int32": 4, "uint8": 1, "int8": 1, "bool": 1, "float16": 2}


def profiled_sizes(path, dims, m):
    """Every value's bytes as ORT's profiler reports them for one run at level none (this runs the
    request: a validation aid where shape inference cannot give static sizes)."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.enable_profiling, so.intra_op_num_threads, so.log_severity_level = True, 1, 3
    so.profile_file_prefix = os.path.join(tempfile.mkdtemp(prefix="replay-model-"), "profile")
    session = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    feeds, sizes = {}, {}
    for vi in m.graph.input:  # the same inputs as ort-arena.py's, enough for shapes
        tt = vi.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else int(dims.get(d.dim_param, 1)) for d in tt.shape.dim]
        dt = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type)
        name = vi.name.lower()
        data = np.zeros(shape, dt) if "type" in name else np.ones(shape, dt)
        if "input_ids" in name:
            data = (np.arange(int(np.prod(shape))) % 50 + 1).reshape(shape).astype(dt)
        feeds[vi.name] = data
        sizes[vi.name] = data.nbytes
    session.run(None, feeds)
    by_name = {n.name: n for n in m.graph.node}
    with open(session.end_profiling()) as f:
        for event in json.load(f):
            if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
                node = by_name[event["name"][:-len("_kernel_time")]]
                for out, typed in zip(node.output, event["args"]["output_type_shape"]):
                    (kind, shape), = typed.items()
                    sizes[out] = PROFILE_BYTES[kind] * int(np.prod(shape))
    return sizes


def main():
    args = [a for a in sys.argv[1:] if a != "--profile-sizes"]
    if not args:
        sys.exit(__doc__.split("\n\n")[1])
    path, dims = args[0], dict(a.split("=", 1) for a in args[1:])
    m = bound_model(path, dims)
    nodes = list(m.graph.node)
    if "--profile-sizes" in sys.argv:
        sizes, shapes = profiled_sizes(path, dims, m), {}
    else:
        sizes = value_sizes(m)
        shapes = {vi.name: [d.dim_value for d in vi.type.tensor_type.shape.dim]
                  for vi in list(m.graph.input) + list(m.graph.value_info) + list(m.graph.output)}
    workspace = {k: workspace_of(n, shapes) for k, n in enumerate(nodes)} if shapes else {}
    inputs = {vi.name for vi in m.graph.input if vi.name in sizes}
    outputs = {vi.name for vi in m.graph.output}
    known = symbolic_kinds(path)
    kinds = {v: known.get(v, ("unknown", v)) for v in sizes}
    got, shared = rc.predict(sizes, nodes, inputs, outputs, workspace, kinds)
    p = subprocess.run([sys.executable, os.path.join(HERE, "arena-x.py"), path, "--opt", "none"] + args[1:],
                       capture_output=True, text=True, errors="replace")
    want = json.loads(p.stdout.strip().splitlines()[-1])["activation"] if p.returncode == 0 else None
    unmodelled = sorted({n.op_type for n in nodes} - PLAIN)
    print(json.dumps({"model": os.path.basename(path), "dims": dims, "predicted": got, "ort": want,
                      "exact": got == want, "sharing": shared, "sizes": "profile" if not shapes else "inferred",
                      "unmodelledOps": unmodelled}))


if __name__ == "__main__":
    main()
