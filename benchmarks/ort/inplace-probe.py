#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Which ops ONNX Runtime's CPU kernels really run in place, measured rather than read.

usage: inplace-probe.py [--keep DIR]
For each op it builds X[1,64,128,128] float -> op -> op -> op -> ReduceSum -> Y (one float) and
measures the arena peak of one run with arena-x.py at level none, memory pattern off and an exact
arena (extend by the request, never hand out a chunk whole). Each tensor in the chain is 4 MiB:
when the kernel may overwrite its input (MayInplace), the chain lives in one buffer and the peak is
4 MiB; when it may not, two buffers are live at each node and the peak is 8 MiB. Binary ops take a
scalar initializer as their second input, so the output has input 0's shape.
Run it with the ORT venv (scripts/ort-venv.sh makes it): target/ort-venv/bin/python benchmarks/ort/inplace-probe.py
"""
import json, os, subprocess, sys, tempfile
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPE = [1, 64, 128, 128]
MIB = 1 << 20

# (label, op, domain, opset, extra inputs as numpy initializers, attributes (or one dict per node),
#  element type of the chain's last tensor)
F32 = TensorProto.FLOAT
PROBES = [
    ("Relu", "Relu", "", 17, [], {}, F32),
    ("LeakyRelu", "LeakyRelu", "", 17, [], {}, F32),
    ("Sigmoid", "Sigmoid", "", 17, [], {}, F32),
    ("Tanh", "Tanh", "", 17, [], {}, F32),
    ("Elu", "Elu", "", 17, [], {}, F32),
    ("HardSigmoid", "HardSigmoid", "", 17, [], {}, F32),
    ("HardSwish", "HardSwish", "", 17, [], {}, F32),
    ("Softplus", "Softplus", "", 17, [], {}, F32),
    ("Exp", "Exp", "", 17, [], {}, F32),
    ("Sqrt", "Sqrt", "", 17, [], {}, F32),
    ("Abs", "Abs", "", 17, [], {}, F32),
    ("Neg", "Neg", "", 17, [], {}, F32),
    ("Erf", "Erf", "", 17, [], {}, F32),
    ("Clip (min, max inputs)", "Clip", "", 17, [np.float32(0), np.float32(6)], {}, F32),
    ("Identity", "Identity", "", 17, [], {}, F32),
    ("Dropout (inference)", "Dropout", "", 17, [], {}, F32),
    ("Add (scalar weight)", "Add", "", 17, [np.float32(1)], {}, F32),
    ("Sub (scalar weight)", "Sub", "", 17, [np.float32(1)], {}, F32),
    ("Mul (scalar weight)", "Mul", "", 17, [np.float32(2)], {}, F32),
    ("Div (scalar weight)", "Div", "", 17, [np.float32(2)], {}, F32),
    ("Pow (scalar weight)", "Pow", "", 17, [np.float32(1)], {}, F32),
    ("Cast float -> float", "Cast", "", 17, [], {"to": F32}, F32),
    ("Cast float -> int32 -> float -> int32", "Cast", "", 17, [],
     [{"to": TensorProto.INT32}, {"to": F32}, {"to": TensorProto.INT32}], TensorProto.INT32),
    ("Add (same-shape weight)", "Add", "", 17, [np.ones(SHAPE, np.float32)], {}, F32),
    ("Sum (same-shape weight)", "Sum", "", 17, [np.ones(SHAPE, np.float32)], {}, F32),
    ("Softmax (axis -1)", "Softmax", "", 17, [], {"axis": -1}, F32),
    ("LogSoftmax (axis -1)", "LogSoftmax", "", 17, [], {"axis": -1}, F32),
    ("LayerNormalization (axis -1)", "LayerNormalization", "", 17,
     [np.ones(SHAPE[-1], np.float32), np.zeros(SHAPE[-1], np.float32)], {"axis": -1}, F32),
    ("BatchNormalization", "BatchNormalization", "", 17,
     [np.ones(SHAPE[1], np.float32), np.zeros(SHAPE[1], np.float32), np.zeros(SHAPE[1], np.float32),
      np.ones(SHAPE[1], np.float32)], {}, F32),
    ("InstanceNormalization", "InstanceNormalization", "", 17,
     [np.ones(SHAPE[1], np.float32), np.zeros(SHAPE[1], np.float32)], {}, F32),
    ("Gelu (opset 20)", "Gelu", "", 20, [], {}, F32),
    ("com.microsoft Gelu", "Gelu", "com.microsoft", 17, [], {}, F32),
    ("com.microsoft FastGelu", "FastGelu", "com.microsoft", 17, [], {}, F32),
] + [
    # the kernels with rules since the public models (KernelWorkspaces, docs/performance.md)
    ("Log", "Log", "", 17, [], {}, F32),
    ("Floor", "Floor", "", 17, [], {}, F32),
    ("Ceil", "Ceil", "", 17, [], {}, F32),
    ("Reciprocal", "Reciprocal", "", 17, [], {}, F32),
    ("Sin", "Sin", "", 17, [], {}, F32),
    ("Cos", "Cos", "", 17, [], {}, F32),
    ("Min (scalar weight)", "Min", "", 17, [np.float32(1)], {}, F32),
    ("Max (scalar weight)", "Max", "", 17, [np.float32(0)], {}, F32),
    ("com.microsoft BiasGelu", "BiasGelu", "com.microsoft", 17, [np.zeros(SHAPE[-1], np.float32)], {}, F32),
    ("com.microsoft QuickGelu", "QuickGelu", "com.microsoft", 17, [], {}, F32),
]


def safe(text):
    """Text from ORT or a model file, made safe for a terminal: printable ASCII, the rest escaped."""
    return "".join(c if c.isprintable() and ord(c) < 0x7f else "\\x%02x" % ord(c) if ord(c) < 0x100
                   else "\\u%04x" % (ord(c) & 0xffff) for c in text)


def chain(label, op, domain, opset, extras, attrs, out_type, path):
    inits, nodes, prev = [], [], "X"
    for i in range(3):
        names = [prev]
        for j, e in enumerate(extras):
            name = "w%d_%d" % (i, j)
            inits.append(numpy_helper.from_array(np.asarray(e), name))
            names.append(name)
        out = "t%d" % i
        nodes.append(helper.make_node(op, names, [out], domain=domain, **(attrs[i] if isinstance(attrs, list) else attrs)))
        prev = out
    nodes.append(helper.make_node("ReduceSum", [prev], ["Y"], keepdims=0))
    graph = helper.make_graph(nodes, "probe", [helper.make_tensor_value_info("X", F32, SHAPE)],
                              [helper.make_tensor_value_info("Y", out_type, [])], initializer=inits)
    imports = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    onnx.save(helper.make_model(graph, opset_imports=imports, ir_version=10), path)


def peak(path):
    p = subprocess.run([sys.executable, os.path.join(HERE, "arena-x.py"), path, "--opt", "none", "--runs", "1",
                        "--pattern", "off", "--arena", "1,-1,0"], capture_output=True, text=True, errors="replace")
    if p.returncode != 0:
        return None, (p.stderr or p.stdout).strip().splitlines()[-1][:120]
    return json.loads(p.stdout.strip().splitlines()[-1])["runs"][0]["peak"], None


def main():
    keep = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None
    work = keep or tempfile.mkdtemp(prefix="inplace-probe-")
    os.makedirs(work, exist_ok=True)
    print("| op | peak of one run | chain in one buffer (in place) |\n|---|---:|---|")
    for label, op, domain, opset, extras, attrs, out_type in PROBES:
        path = os.path.join(work, label.split(" ")[0] + ("_ms" if domain else "") + ".onnx")
        chain(label, op, domain, opset, extras, attrs, out_type, path)
        got, err = peak(path)
        if err:
            print("| %s | | not run: %s |" % (label, safe(err).replace("|", "\\|")))
        else:
            verdict = "yes" if got < 5 * MIB else "no" if got < 9 * MIB else "no (%.1f MiB)" % (got / MIB)
            print("| %s | %s | %s |" % (label, "{:,}".format(got), verdict))


if __name__ == "__main__":
    main()
