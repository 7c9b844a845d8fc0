#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Small models of kernels memplan has no workspace rule for, which the ort runtime measures in
ONNX Runtime at compile time (KernelProbes), to hold that measurement to ORT's figure.

usage: measured-models.py [OUT_DIR]

Without OUT_DIR it writes the models into src/test/resources/ort/measured/ and has figures.py
measure them with ../shared/tools/ort-arena.py (ORT's default level) at the bindings of
measured-kernels.tsv into this machine's NCHWc block's folder (OrtMeasuredKernelsTest). Run it with
the ORT venv that benchmarks/ort/figures.sh makes: target/ort-venv/bin/python
benchmarks/ort/measured-models.py

Writes:
  elementwise.onnx  x float [batch, seq, 16]: PRelu(x, Sigmoid(x)), Round, GreaterOrEqual, Not,
                    Cast to float, Mul; and Size(x) (one int64)
  sequence.onnx     x float [seq, batch, 16]: a GRU (hidden 32, fixed random weights), then over its
                    output [seq, 1, batch, 32] a CumSum along seq, batch x seq x seq scores of it
                    with the output (MatMul), TopK (k = 4) and ArgMax of the scores, Hardmax,
                    ReduceL2, Mod and Trilu
  scan.onnx         a Scan over x [seq, batch, 16] with a state [batch, 32]: its body (MatMul, Add,
                    Tanh) runs once per step inside the node's compute, measured as one kernel
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper as h, numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def model(name, nodes, inputs, outputs, inits=()):
    g = h.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)], producer_name="memplan-measured-models")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def elementwise():
    x = h.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 16])
    nodes = [
        h.make_node("Sigmoid", ["x"], ["slope"]),
        h.make_node("PRelu", ["x", "slope"], ["p"]),
        h.make_node("Round", ["p"], ["r"]),
        h.make_node("GreaterOrEqual", ["p", "r"], ["g"]),
        h.make_node("Not", ["g"], ["ng"]),
        h.make_node("Cast", ["ng"], ["c"], to=TensorProto.FLOAT),
        h.make_node("Mul", ["c", "p"], ["y"]),
        h.make_node("Size", ["x"], ["n"]),
    ]
    return model("elementwise", nodes, [x], [
        h.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", 16]),
        h.make_tensor_value_info("n", TensorProto.INT64, [])])


def sequence():
    rng = np.random.default_rng(7)
    hidden = 32
    w = nh.from_array(rng.standard_normal((1, 3 * hidden, 16)).astype(np.float32) * 0.1, "w")
    r = nh.from_array(rng.standard_normal((1, 3 * hidden, hidden)).astype(np.float32) * 0.1, "r")
    b = nh.from_array(np.zeros((1, 6 * hidden), np.float32), "b")
    axis0 = nh.from_array(np.array(0, np.int64), "axis0")
    k = nh.from_array(np.array([4], np.int64), "k")
    two = nh.from_array(np.array(2.0, np.float32), "two")
    x = h.make_tensor_value_info("x", TensorProto.FLOAT, ["seq", "batch", 16])
    nodes = [
        h.make_node("GRU", ["x", "w", "r", "b"], ["y", "y_h"], hidden_size=hidden),
        h.make_node("Squeeze", ["y", "one"], ["ys"]),  # [seq, batch, hidden]
        h.make_node("CumSum", ["ys", "axis0"], ["cs"]),
        h.make_node("Transpose", ["cs"], ["cs_t"], perm=[1, 0, 2]),  # [batch, seq, hidden]
        h.make_node("Transpose", ["ys"], ["ys_t"], perm=[1, 2, 0]),  # [batch, hidden, seq]
        h.make_node("MatMul", ["cs_t", "ys_t"], ["scores"]),  # [batch, seq, seq]
        h.make_node("TopK", ["scores", "k"], ["top", "top_i"], axis=-1),
        h.make_node("ArgMax", ["scores"], ["best"], axis=-1, keepdims=0),
        h.make_node("Hardmax", ["scores"], ["hard"], axis=-1),
        h.make_node("ReduceL2", ["scores"], ["l2"], keepdims=0),
        h.make_node("Mod", ["scores", "two"], ["mod"], fmod=1),
        h.make_node("Trilu", ["mod"], ["tri"], upper=0),
    ]
    one = nh.from_array(np.array([1], np.int64), "one")
    return model("sequence", nodes, [x], [
        h.make_tensor_value_info("top", TensorProto.FLOAT, ["batch", "seq", 4]),
        h.make_tensor_value_info("best", TensorProto.INT64, ["batch", "seq"]),
        h.make_tensor_value_info("hard", TensorProto.FLOAT, ["batch", "seq", "seq"]),
        h.make_tensor_value_info("l2", TensorProto.FLOAT, []),
        h.make_tensor_value_info("tri", TensorProto.FLOAT, ["batch", "seq", "seq"]),
        h.make_tensor_value_info("y_h", TensorProto.FLOAT, [1, "batch", hidden])],
        [w, r, b, axis0, k, two, one])


def scan():
    """x [seq, batch, 16] scanned over seq with a state [batch, 32]: the body mixes each step into the
    state (MatMul by a weight, Add, Tanh) and emits the state; Scan's outputs are the last state and
    every step's state [seq, batch, 32]."""
    rng = np.random.default_rng(11)
    w = nh.from_array(rng.standard_normal((16, 32)).astype(np.float32) * 0.1, "w")
    body = h.make_graph(
        [h.make_node("MatMul", ["x_t", "w"], ["xw"]),
         h.make_node("Add", ["state_in", "xw"], ["mixed"]),
         h.make_node("Tanh", ["mixed"], ["state_out"]),
         h.make_node("Identity", ["state_out"], ["step_out"])],
        "body",
        [h.make_tensor_value_info("state_in", TensorProto.FLOAT, ["batch", 32]),
         h.make_tensor_value_info("x_t", TensorProto.FLOAT, ["batch", 16])],
        [h.make_tensor_value_info("state_out", TensorProto.FLOAT, ["batch", 32]),
         h.make_tensor_value_info("step_out", TensorProto.FLOAT, ["batch", 32])])
    x = h.make_tensor_value_info("x", TensorProto.FLOAT, ["seq", "batch", 16])
    s0 = h.make_tensor_value_info("s0", TensorProto.FLOAT, ["batch", 32])
    nodes = [h.make_node("Scan", ["s0", "x"], ["last", "steps"], body=body, num_scan_inputs=1)]
    return model("scan", nodes, [s0, x], [
        h.make_tensor_value_info("last", TensorProto.FLOAT, ["batch", 32]),
        h.make_tensor_value_info("steps", TensorProto.FLOAT, ["seq", "batch", 32])], [w])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "ort", "src", "test", "resources", "ort",
                                                             "measured")
    os.makedirs(out, exist_ok=True)
    for name, m in (("elementwise.onnx", elementwise()), ("sequence.onnx", sequence()), ("scan.onnx", scan())):
        onnx.save(m, os.path.join(out, name))
        print("measured-models.py: wrote", os.path.join(out, name))
    if len(sys.argv) == 1:
        subprocess.run([sys.executable, os.path.join(HERE, "figures.py"), "--write", "--only",
                        "measured-kernels.tsv"], check=True)


if __name__ == "__main__":
    main()
