#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""replay-check.py's replay on a real model file, at optimization level none (the graph as written).

usage: replay-model.py MODEL.onnx [DIM=N ...]
Value sizes come from ONNX shape inference with the dims bound; weights (initializers) are not
activations. Kernel rules: replay-check.py's ALIAS and INPLACE sets; a Conv takes MLAS's working
buffer during its compute (MlasConvPrepare, one thread: none if pointwise; the whole im2col,
output size x K floats, if it has more filters than output pixels; else 16,384 floats;
workspace-probe.py measured each case), LRN an input-sized buffer and
one padded by size - 1 channels; BatchNormalization, Sum, AveragePool, Gemm, MaxPool none (measured). Ops outside these
rules are replayed as plain kernels (own output, no workspace) and listed, so a mismatch can be
traced to them. Prints the prediction beside arena-x.py's measurement at ort-arena.py's settings.
Run it with the ORT venv: /work/ortvenv/bin/python benchmarks/ort/replay-model.py MODEL [DIM=N ...]
"""
import importlib.util, json, os, subprocess, sys
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
    return shape_inference.infer_shapes(m)


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


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.split("\n\n")[1])
    path, dims = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
    m = bound_model(path, dims)
    sizes = value_sizes(m)
    shapes = {vi.name: [d.dim_value for d in vi.type.tensor_type.shape.dim]
              for vi in list(m.graph.input) + list(m.graph.value_info) + list(m.graph.output)}
    nodes = list(m.graph.node)
    workspace = {k: workspace_of(n, shapes) for k, n in enumerate(nodes)}
    inputs = {vi.name for vi in m.graph.input if vi.name in sizes}
    outputs = {vi.name for vi in m.graph.output}
    itemsize = {vi.name: onnx.helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type).itemsize
                for vi in list(m.graph.input) + list(m.graph.value_info) + list(m.graph.output)}
    kinds = {v: (itemsize[v], tuple(shapes[v])) for v in sizes}
    got, shared = rc.predict(sizes, nodes, inputs, outputs, workspace, kinds)
    p = subprocess.run([sys.executable, os.path.join(HERE, "arena-x.py"), path, "--opt", "none"] + sys.argv[2:],
                       capture_output=True, text=True, errors="replace")
    want = json.loads(p.stdout.strip().splitlines()[-1])["activation"] if p.returncode == 0 else None
    unmodelled = sorted({n.op_type for n in nodes} - PLAIN)
    print(json.dumps({"model": os.path.basename(path), "dims": dims, "predicted": got, "ort": want,
                      "exact": got == want, "sharing": shared,
                      "unmodelledOps": unmodelled}))


if __name__ == "__main__":
    main()
