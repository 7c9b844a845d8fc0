#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Small If models whose branches differ, to measure how ONNX Runtime runs an If's branch.

usage: if-models.py [OUT_DIR]

Without OUT_DIR it writes the models into src/test/resources/ort/if/ and has figures.py measure
them with ../shared/tools/ort-arena.py (ORT's default level, sr = 16000) at the bindings of
if-figures.tsv (n = 1000 and n = 5000) into this machine's NCHWc block's folder,
src/test/resources/ort/nchwc<block>/if-figures.tsv (OrtIfBranchTest); and Silero VAD's else branch
(the 8 kHz model, which ORT runs for sr = 8000; ort-arena.py feeds 16000, so figures.py measures a
copy whose Equal compares sr with 8000) into silero-else.tsv, and Silero at level none (ORT changes
no graph there, so the branch runs in ORT's reverse-DFS order, not as saved) into
src/test/resources/ort/silero-level-none.tsv. Run it with the ORT venv that
benchmarks/ort/figures.sh makes: target/ort-venv/bin/python benchmarks/ort/if-models.py

Writes, for K in (16000: the then branch runs under ort-arena.py's sr = 16000; 8000: the else
branch runs):
  if-out-K.onnx      the If's outputs are graph outputs (as in Silero VAD), x float [n]
  if-mid-K.onnx      the If's output is read by a node after it (a traced tensor of the main graph)
  if-static-K.onnx   as if-mid with x float [4096]: the branch outputs' shapes are known, so ORT
                     allocates them before the branch runs (IfImpl::AllocateOutputTensors)
  if-nested-K.onnx   the then branch holds another If on the same condition (an outer-scope value)
  if-gemm-K.onnx     x float [n, 64]; then: Gemm with an outer-scope weight (ORT pre-packs it and
                     drops the initializer, and the branch then traces no memory pattern), two Exp;
                     else: MatMul with a weight of the branch's own, two Exp
Branches (1-D float, Pad/Slice/Relu, no fused kernels): then: Pad +1000, Relu (in place), Pad
+3000, Slice to n + 1; else: Pad +20000, Slice to n + 1. Main graph: cond = Equal(sr, K), a Pad
+64 of x before the If that the branches also read, the If, and (if-mid) a Pad +500 after it.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper as h, numpy_helper as nh


def const(name, values):
    return nh.from_array(np.array(values, dtype=np.int64), name)


def pad(src, out, extra, tag):
    return [h.make_node("Pad", [src, "pads_" + tag], [out])], [const("pads_" + tag, [0, extra])]


def branch(name, steps, n, outs):
    """steps: list of (op, extra); returns the branch graph reading outer 'x' and 'p'."""
    nodes, inits, src = [], [], "x"
    for i, (op, extra) in enumerate(steps):
        out = "%s_%d" % (name, i)
        if op == "Pad":
            ns, its = pad(src, out, extra, "%s_%d" % (name, i))
            nodes += ns
            inits += its
        elif op == "Relu":
            nodes.append(h.make_node("Relu", [src], [out]))
        elif op == "Slice":  # keep the first n + 1 elements: ends = -(extra) from the end
            inits += [const("st_%s_%d" % (name, i), [0]), const("en_%s_%d" % (name, i), [-extra])]
            nodes.append(h.make_node("Slice", [src, "st_%s_%d" % (name, i), "en_%s_%d" % (name, i)], [out]))
        elif op == "If":
            nodes.append(h.make_node("If", ["cond"], [out], then_branch=extra[0], else_branch=extra[1]))
        src = out
    # the branch also reads p (outer scope): add it in, then emit the output
    nodes.append(h.make_node("Add", [src, name + "_p"], [outs]))
    nodes.insert(0, h.make_node("Slice", ["p", "zero", "n1"], [name + "_p"]))
    return nodes, inits, src


def make(kind, k):
    n = 4096 if kind == "static" else "n"
    x = h.make_tensor_value_info("x", TensorProto.FLOAT, [n])
    sr = h.make_tensor_value_info("sr", TensorProto.INT64, [])

    def graph_of(name, steps, out_name):
        nodes, inits, last = branch(name, steps, n, out_name)
        # the last step ends at n + 1 elements; p_head is p's first n + 1 elements
        return h.make_graph(nodes, name, [], [h.make_tensor_value_info(out_name, TensorProto.FLOAT, None)], inits)

    then_steps = [("Pad", 1000), ("Relu", 0), ("Pad", 3000), ("Slice", 3999)]
    else_steps = [("Pad", 20000), ("Slice", 19999)]
    if kind == "nested":
        inner_then = graph_of("tt", [("Pad", 200), ("Slice", 199)], "tt_y")
        inner_else = graph_of("te", [("Pad", 40000), ("Slice", 39999)], "te_y")
        then_steps = [("Pad", 1000), ("Relu", 0), ("If", (inner_then, inner_else)), ("Pad", 3000), ("Slice", 3000)]  # the inner If gives n + 1
    then_g = graph_of("then", then_steps, "then_y")
    else_g = graph_of("else", else_steps, "else_y")
    nodes = [h.make_node("Equal", ["sr", "k"], ["cond"]),
             h.make_node("Pad", ["x", "pads_p"], ["p"]),
             h.make_node("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g, name="the_if")]
    inits = [const("k", k), const("pads_p", [0, 64]), const("zero", [0]), const("n1", [-63])]
    outputs = [h.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    if kind != "out":
        nodes.append(h.make_node("Pad", ["y", "pads_z"], ["z"]))
        inits.append(const("pads_z", [0, 500]))
        outputs = [h.make_tensor_value_info("z", TensorProto.FLOAT, None)]
    else:
        outputs.append(h.make_tensor_value_info("p", TensorProto.FLOAT, None))
    g = h.make_graph(nodes, "if_" + kind, [x, sr], outputs, inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 18)], producer_name="memplan if-models.py")
    m.ir_version = 8
    m = onnx.shape_inference.infer_shapes(m)
    onnx.checker.check_model(m)
    return m


HERE = os.path.dirname(os.path.abspath(__file__))
RESOURCES = os.path.join(HERE, "..", "..", "ort", "src", "test", "resources", "ort", "if")


def make_gemm(k):
    """The branches read a weight through a pre-packing kernel: from the outer scope, or their own."""
    rng = np.random.default_rng(1)
    w_outer = nh.from_array((rng.standard_normal((64, 32)) * 0.1).astype(np.float32), "w_outer")
    w_own = nh.from_array((rng.standard_normal((64, 32)) * 0.1).astype(np.float32), "w_own")

    def chain(name, first, inits):
        nodes = [first, h.make_node("Exp", [name + "_g"], [name + "_e1"]),
                 h.make_node("Exp", [name + "_e1"], [name + "_e2"]),
                 h.make_node("Sub", [name + "_e2", name + "_e1"], [name + "_y"])]
        return h.make_graph(nodes, name, [], [h.make_tensor_value_info(name + "_y", TensorProto.FLOAT, None)], inits)

    then_g = chain("then", h.make_node("Gemm", ["x", "w_outer"], ["then_g"]), [])
    else_g = chain("else", h.make_node("MatMul", ["x", "w_own"], ["else_g"]), [w_own])
    g = h.make_graph([h.make_node("Equal", ["sr", "k"], ["cond"]),
                      h.make_node("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g, name="the_if")],
                     "if_gemm", [h.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 64]),
                                 h.make_tensor_value_info("sr", TensorProto.INT64, [])],
                     [h.make_tensor_value_info("y", TensorProto.FLOAT, None)], [const("k", k), w_outer])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 18)], producer_name="memplan if-models.py")
    m.ir_version = 8
    m = onnx.shape_inference.infer_shapes(m)
    onnx.checker.check_model(m)
    return m


def main():
    if len(sys.argv) > 2 or len(sys.argv) == 2 and sys.argv[1].startswith("-"):
        sys.exit(__doc__.split("\n\n")[1])
    out = sys.argv[1] if len(sys.argv) == 2 else RESOURCES
    os.makedirs(out, exist_ok=True)
    files = []
    for kind in ("out", "mid", "static", "nested", "gemm"):
        for k in (16000, 8000):
            name = "if-%s-%d.onnx" % (kind, k)
            onnx.save(make_gemm(k) if kind == "gemm" else make(kind, k), os.path.join(out, name))
            files.append((name, kind))
            print("wrote", os.path.join(out, name))
    if len(sys.argv) == 2:
        return
    # the figures of the models (and of Silero's else branch) in this machine's NCHWc block's tables
    subprocess.run([sys.executable, os.path.join(HERE, "figures.py"), "--write", "--only", "if-figures.tsv"], check=True)
    subprocess.run([sys.executable, os.path.join(HERE, "figures.py"), "--write", "--only", "silero-else.tsv"], check=True)
    subprocess.run([sys.executable, os.path.join(HERE, "figures.py"), "--write", "--only", "silero-level-none.tsv"],
                   check=True)


if __name__ == "__main__":
    main()
