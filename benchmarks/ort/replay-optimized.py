#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""replay-check.py's replay on the graph ONNX Runtime really runs at its default level (all).

usage: replay-optimized.py MODEL.onnx [DIM=N ...]
Asks ORT (Python API, CPU, one thread) for its level-all graph of the model (fusions, NCHWc
layout: specific to this machine's vector width), propagates shapes through it with the rules
below (ORT saves no shapes for that graph), replays planner, arena, pattern and held outputs, and
prints the prediction beside arena-x.py's measurement at ort-arena.py's settings. An op without a
rule here stops the script with its name: nothing is guessed.
Shape rules: com.microsoft.nchwc Conv (output channels = its reordered weight's first dim,
fused activation, optional Sum input run in place), MaxPool / AveragePool / GlobalAveragePool
(both domains), ReorderInput / ReorderOutput, Concat, Softmax, DepthToSpace, Reshape, Flatten,
Gemm, Relu, Sigmoid, Tanh, LRN, broadcasting Add / Sub / Mul / Div, Split, Squeeze, Resize
(scales), Transpose. Workspaces: LRN's two buffers
(replay-model.py), Softmax on a non-last axis two transposed copies of its input (measured: 309,760
B on [1,80,22,22]), none for the others (workspace-probe.py at level all). Softmax's rule assumes
opset 13 or later.
Run it with the ORT venv (scripts/ort-venv.sh makes it): target/ort-venv/bin/python benchmarks/ort/replay-optimized.py MODEL [DIM=N ...]
"""
import importlib.util, json, math, os, subprocess, sys, tempfile
import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
spec = importlib.util.spec_from_file_location("replay_check", os.path.join(HERE, "replay-check.py"))
rc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rc)


def safe(text):
    """Text from ORT or a model file, made safe for a terminal: printable ASCII, the rest escaped."""
    return "".join(c if c.isprintable() and ord(c) < 0x7f else "\\x%02x" % ord(c) if ord(c) < 0x100
                   else "\\u%04x" % (ord(c) & 0xffff) for c in text)


def optimized(path):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    so.optimized_model_filepath = os.path.join(tempfile.mkdtemp(prefix="replay-optimized-"), "model.all.onnx")
    ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return onnx.load(so.optimized_model_filepath)


def attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def pooled(hw, a, global_pool=False):
    if global_pool:
        return [1] * len(hw)
    k, s = a["kernel_shape"], a.get("strides", [1] * len(hw))
    p, d = a.get("pads", [0] * 2 * len(hw)), a.get("dilations", [1] * len(hw))
    rnd = math.ceil if a.get("ceil_mode", 0) else math.floor
    return [int(rnd((hw[i] + p[i] + p[i + len(hw)] - (d[i] * (k[i] - 1) + 1)) / s[i])) + 1 for i in range(len(hw))]


def propagate(m, dims):
    shapes = {}
    for vi in m.graph.input:
        shapes[vi.name] = [d.dim_value if d.HasField("dim_value") else int(dims[d.dim_param])
                           for d in vi.type.tensor_type.shape.dim]
    weights = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    for node in m.graph.node:
        a, x = attrs(node), shapes.get(node.input[0]) if node.input else None
        op = (node.domain, node.op_type)
        if op == ("com.microsoft.nchwc", "Conv"):
            w = weights[node.input[1]].shape
            a.setdefault("kernel_shape", list(w[2:]))  # ORT may leave it to the weight
            out = [x[0], w[0]] + pooled(x[2:], a)
        elif node.op_type in ("MaxPool", "AveragePool"):
            out = x[:2] + pooled(x[2:], a)
        elif node.op_type in ("GlobalAveragePool", "GlobalMaxPool"):
            out = x[:2] + [1] * (len(x) - 2)
        elif op == ("com.microsoft.nchwc", "ReorderOutput"):
            out = [x[0], a["channels"]] + x[2:] if not a.get("channels_last", 0) else [x[0]] + x[2:] + [a["channels"]]
        elif op == ("com.microsoft.nchwc", "ReorderInput"):
            c = x[1]
            out = [x[0], (c + 15) // 16 * 16] + x[2:]  # padded to the block (16 floats with AVX-512)
        elif node.op_type == "Concat":
            axis = a["axis"] % len(x)
            out = list(x)
            out[axis] = sum(shapes[i][axis] for i in node.input)
        elif node.op_type in ("Softmax", "Relu", "LRN", "Sigmoid", "Tanh"):
            out = list(x)
        elif node.op_type in ("Add", "Mul", "Div", "Sub"):
            ins = [shapes[i] if i in shapes else list(weights[i].shape) for i in node.input]
            out = list(np.broadcast_shapes(*[tuple(v) for v in ins]))
        elif node.op_type == "DepthToSpace":
            b = a["blocksize"]
            out = [x[0], x[1] // (b * b), x[2] * b, x[3] * b]
        elif node.op_type == "Reshape":
            target = [int(v) for v in weights[node.input[1]]]
            target = [x[i] if v == 0 else v for i, v in enumerate(target)]
            if -1 in target:
                known = int(np.prod([v for v in target if v != -1]))
                target[target.index(-1)] = int(np.prod(x)) // known
            out = target
        elif node.op_type == "Split":
            axis = a.get("axis", 0) % len(x)
            parts = [int(v) for v in weights[node.input[1]]] if len(node.input) > 1 and node.input[1] \
                else a.get("split", [x[axis] // len(node.output)] * len(node.output))
            for name, part in zip(node.output, parts):
                shapes[name] = x[:axis] + [part] + x[axis + 1:]
            continue
        elif node.op_type == "Squeeze":
            axes = [int(v) for v in weights[node.input[1]]] if len(node.input) > 1 else a["axes"]
            axes = [v % len(x) for v in axes]
            out = [d for i, d in enumerate(x) if i not in axes]
        elif node.op_type == "Resize":
            scales = [float(v) for v in weights[node.input[2]]]
            out = [int(math.floor(d * f)) for d, f in zip(x, scales)]
        elif node.op_type == "Transpose":
            out = [x[i] for i in a.get("perm", list(reversed(range(len(x)))))]
        elif node.op_type == "Flatten":
            axis = a.get("axis", 1)
            out = [int(np.prod(x[:axis])), int(np.prod(x[axis:]))]
        elif node.op_type == "Gemm":
            w = weights[node.input[1]].shape
            out = [x[1] if a.get("transA", 0) else x[0], w[0] if a.get("transB", 0) else w[1]]
        else:
            raise SystemExit("replay-optimized.py: no shape rule for %s %s" % (safe(node.domain or "ai.onnx"), safe(node.op_type)))
        shapes[node.output[0]] = out
    return shapes, set(weights)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.split("\n\n")[1])
    path, dims = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
    m = optimized(path)
    shapes, weights = propagate(m, dims)
    sizes = {v: 4 * int(np.prod(s)) for v, s in shapes.items() if v not in weights}  # float models only
    kinds = {v: (4, tuple(s)) for v, s in shapes.items()}
    nodes = list(m.graph.node)
    inputs = {vi.name for vi in m.graph.input if vi.name in sizes}
    outputs = {vi.name for vi in m.graph.output}
    workspace = {}
    for k, node in enumerate(nodes):
        if node.op_type == "LRN":  # replay-model.py's rule: an input-sized buffer, then one padded by size - 1 channels
            n, c, *hw = shapes[node.input[0]]
            workspace[k] = [4 * n * c * int(np.prod(hw)), 4 * n * (c + attrs(node)["size"] - 1) * int(np.prod(hw))]
        if node.op_type in ("Softmax", "LogSoftmax") and not node.domain:
            x = shapes[node.input[0]]
            if attrs(node).get("axis", -1) % len(x) != len(x) - 1:  # opset 13+: transposed in, transposed out
                workspace[k] = [4 * int(np.prod(x))] * 2
    got, shared = rc.predict(sizes, nodes, inputs, outputs, workspace, kinds)
    p = subprocess.run([sys.executable, os.path.join(HERE, "arena-x.py"), path] + sys.argv[2:],
                       capture_output=True, text=True, errors="replace")
    want = json.loads(p.stdout.strip().splitlines()[-1])["activation"] if p.returncode == 0 else None
    print(json.dumps({"model": os.path.basename(path), "dims": dims, "level": "all", "nodes": len(nodes),
                      "predicted": got, "ort": want, "exact": got == want, "sharing": shared}))


if __name__ == "__main__":
    main()
