#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Each node's workspace in the graph ONNX Runtime runs at its default level, measured node by node.

usage: node-workspaces.py MODEL.onnx [DIM=N ...] [--op OPTYPE]
Saves ORT's level-all graph of the model (this machine), runs it once with profiling at level none
to learn every node's input and output shapes at the binding (ort-arena.py's inputs), then measures
each distinct (op, input shapes) alone: a one-node model (the node's weights stay initializers, so
kernels that pre-pack them behave as in the model; other inputs become graph inputs of the profiled
shapes) run once by arena-x.py at level none, memory pattern off, exact arena. workspace = the peak
minus the node's outputs, each rounded up to 256 B: what the kernel takes during its compute.
A kernel that runs in place on a graph input cannot here (graph inputs are never overwritten),
so such a node shows its output twice; read those rows with that in mind.
Run it with the ORT venv (scripts/ort-venv.sh makes it): target/ort-venv/bin/python benchmarks/ort/node-workspaces.py MODEL [DIM=N ...]
"""
import json, os, subprocess, sys, tempfile
import numpy as np
import onnx
from onnx import helper

HERE = os.path.dirname(os.path.abspath(__file__))
KIND = {"float": 1, "int64_t": 7, "int64": 7, "int32_t": 6, "int32": 6, "uint8_t": 2, "uint8": 2,
        "int8_t": 3, "int8": 3, "bool": 9, "double": 11}
BYTES = {1: 4, 7: 8, 6: 4, 2: 1, 3: 1, 9: 1, 11: 8}


def safe(text):
    return "".join(c if c.isprintable() and ord(c) < 0x7f else "\\x%02x" % (ord(c) & 0xff) for c in str(text))


def saved_level_all(path, work):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads, so.log_severity_level = 1, 3
    so.optimized_model_filepath = os.path.join(work, "model.all.onnx")
    ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return so.optimized_model_filepath


def feeds_for(m, dims):
    feeds = {}
    for vi in m.graph.input:
        tt = vi.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else int(dims.get(d.dim_param, 1)) for d in tt.shape.dim]
        dt = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type)
        n = vi.name.lower()
        data = np.zeros(shape, dt) if "type" in n else np.ones(shape, dt)
        if "input_ids" in n:
            data = (np.arange(int(np.prod(shape))) % 50 + 1).reshape(shape).astype(dt)
        if n == "sr":
            data = np.array(16000, dt)
        feeds[vi.name] = data
    return feeds


def profiled_shapes(path, dims):
    """Per node name: its inputs' and outputs' (elem type, shape) as ORT's profiler lists them."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.enable_profiling, so.intra_op_num_threads, so.log_severity_level = True, 1, 3
    so.profile_file_prefix = os.path.join(os.path.dirname(path), "profile")
    session = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    session.run(None, feeds_for(onnx.load(path, load_external_data=False), dims))
    out = {}
    with open(session.end_profiling()) as f:
        for e in json.load(f):
            if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
                a = e["args"]
                typed = lambda l: [next(iter(t.items())) for t in l]
                out[e["name"][:-len("_kernel_time")]] = (typed(a.get("input_type_shape", [])),
                                                          typed(a.get("output_type_shape", [])))
    return out


def one_node(m, node, ins, outs, path):
    weights = {i.name: i for i in m.graph.initializer}
    inputs, inits = [], []
    listed = list(ins)  # the profile omits weights a kernel pre-packed (and released)
    for name in [i for i in node.input if i]:
        if name in weights:
            inits.append(weights[name])
            if listed and list(listed[0][1]) == list(weights[name].dims):
                listed.pop(0)
        else:
            kind, shape = listed.pop(0)
            inputs.append(helper.make_tensor_value_info(name, KIND[kind], shape))
    outputs = [helper.make_tensor_value_info(name, KIND[kind], shape)
               for name, (kind, shape) in zip([o for o in node.output if o], outs)]
    g = helper.make_graph([node], "probe", inputs, outputs, initializer=inits)
    model = helper.make_model(g, opset_imports=m.opset_import, ir_version=m.ir_version)
    onnx.save(model, path)


def measure(path):
    p = subprocess.run([sys.executable, os.path.join(HERE, "arena-x.py"), path, "--opt", "none", "--runs", "1",
                        "--pattern", "off", "--arena", "1,-1,0"], capture_output=True, text=True, errors="replace")
    if p.returncode != 0:
        return None, safe(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed")
    return json.loads(p.stdout.strip().splitlines()[-1])["runs"][0]["peak"], None


def main():
    args = [a for a in sys.argv[1:]]
    only = None
    if "--op" in args:
        i = args.index("--op"); only = args[i + 1]; del args[i:i + 2]
    if not args:
        sys.exit(__doc__.split("\n\n")[1])
    path, dims = args[0], dict(a.split("=", 1) for a in args[1:])
    work = tempfile.mkdtemp(prefix="node-workspaces-")
    saved = saved_level_all(path, work)
    m = onnx.load(saved)
    shapes = profiled_shapes(saved, dims)
    seen = {}
    print("| node | op | inputs | outputs (rounded) | workspace |\n|---|---|---|---:|---:|")
    for k, node in enumerate(m.graph.node):
        if only and node.op_type != only or node.name not in shapes or node.op_type == "If":
            continue
        ins, outs = shapes[node.name]
        key = (node.domain, node.op_type, str(ins), str([(a.name, str(a)) for a in node.attribute]))
        if key not in seen:
            probe = os.path.join(work, "n%d.onnx" % k)
            one_node(m, node, ins, outs, probe)
            seen[key] = measure(probe)
        peak, err = seen[key]
        out_bytes = sum((BYTES[KIND[kind]] * int(np.prod(s)) + 255) // 256 * 256 for kind, s in outs)
        print("| %s | %s | %s | %s | %s |" % (safe(node.name), safe((node.domain + ".") if node.domain else "") + safe(node.op_type),
              " ".join("%s%s" % (kind, list(s)) for kind, s in ins), "{:,}".format(out_bytes),
              err if err else "{:,}".format(peak - out_bytes)), flush=True)


if __name__ == "__main__":
    main()
