#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Kernel workspaces: what a single node takes from ONNX Runtime's CPU arena beyond its output.

usage: workspace-probe.py
Each probe is a one-node model (graph input -> node -> graph output, weights as initializers); the
last table is the shared tiny GPT-2's first Attention node alone, when ../shared/models is there.
arena-x.py measures one run with an exact arena (extend by the request, never hand out a chunk
whole) and memory pattern off, at levels none and all; 'workspace' = peak - the output's bytes
rounded up to 256. At level all ORT may rewrite the node (NCHWc convolution on x86), so the
workspace there is that of the rewritten kernels, reorder buffers included.
Run it with the ORT venv (scripts/ort-venv.sh makes it): target/ort-venv/bin/python benchmarks/ort/workspace-probe.py
"""
import json, os, subprocess, sys, tempfile
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F32 = TensorProto.FLOAT


def conv(c, m, hw, k, stride, group=1):
    pad = k // 2
    out = (hw + 2 * pad - k) // stride + 1
    w = np.zeros((m, c // group, k, k), np.float32)
    node = helper.make_node("Conv", ["X", "W"], ["Y"], kernel_shape=[k, k], strides=[stride, stride],
                            pads=[pad] * 4, group=group)
    return [1, c, hw, hw], [1, m, out, out], [node], [numpy_helper.from_array(w, "W")]


def matmul(b, s, k, n):
    w = np.zeros((k, n), np.float32)
    return [b, s, k], [b, s, n], [helper.make_node("MatMul", ["X", "W"], ["Y"])], [numpy_helper.from_array(w, "W")]


def bias_gelu(b, s, n):
    bias = numpy_helper.from_array(np.zeros(n, np.float32), "B")
    node = helper.make_node("BiasGelu", ["X", "B"], ["Y"], domain="com.microsoft")
    return [b, s, n], [b, s, n], [node], [bias]


def fused_gemm(m, k, n):
    w, bias = np.zeros((k, n), np.float32), np.zeros(n, np.float32)
    node = helper.make_node("FusedGemm", ["X", "W", "B"], ["Y"], domain="com.microsoft", activation="Relu")
    return [m, k], [m, n], [node], [numpy_helper.from_array(w, "W"), numpy_helper.from_array(bias, "B")]


def reduce_mean(b, s, n):
    return [b, s, n], [b, s, 1], [helper.make_node("ReduceMean", ["X"], ["Y"], axes=[-1], keepdims=1)], []


def matmul_integer(b, s, k, n):
    """uint8 x int8 -> int32, as a dynamically quantized model's MatMulInteger (zero points as initializers)."""
    w = numpy_helper.from_array(np.zeros((k, n), np.int8), "W")
    zero_a, zero_w = numpy_helper.from_array(np.array(0, np.uint8), "ZA"), numpy_helper.from_array(np.array(0, np.int8), "ZW")
    node = helper.make_node("MatMulInteger", ["X", "W", "ZA", "ZW"], ["Y"])
    return [b, s, k], [b, s, n], [node], [w, zero_a, zero_w], TensorProto.UINT8, TensorProto.INT32


def simple(op, shape, out_shape=None, consts=(), y_type=F32, **attrs):
    """One {op} node on float X and constant inputs (name, array) after it."""
    inits = [numpy_helper.from_array(np.asarray(a), n) for n, a in consts]
    node = helper.make_node(op, ["X"] + [n for n, _ in consts], ["Y"], **attrs)
    return shape, out_shape or shape, [node], inits, F32, y_type


# elementwise, broadcast, reduction and index kernels: their own output, nothing more
SIMPLE = [
    ("Log", simple("Log", [4, 512, 384])),
    ("Floor", simple("Floor", [4, 512, 384])),
    ("Ceil", simple("Ceil", [4, 512, 384])),
    ("Reciprocal", simple("Reciprocal", [4, 512, 384])),
    ("Sin", simple("Sin", [4, 512, 384])),
    ("Cos", simple("Cos", [4, 512, 384])),
    ("Min with a [384] constant", simple("Min", [4, 512, 384], consts=[("C", np.zeros(384, np.float32))])),
    ("Max with a [384] constant", simple("Max", [4, 512, 384], consts=[("C", np.zeros(384, np.float32))])),
    ("Greater than a [384] constant", simple("Greater", [4, 512, 384], consts=[("C", np.zeros(384, np.float32))],
                                            y_type=TensorProto.BOOL)),
    ("Less than a [384] constant", simple("Less", [4, 512, 384], consts=[("C", np.zeros(384, np.float32))],
                                          y_type=TensorProto.BOOL)),
    ("Expand [1,512,1] to [4,512,384]", simple("Expand", [1, 512, 1], [4, 512, 384],
                                                 consts=[("S", np.array([4, 512, 384], np.int64))])),
    ("Tile [4,512,384] x [1,2,1]", simple("Tile", [4, 512, 384], [4, 1024, 384],
                                           consts=[("T", np.array([1, 2, 1], np.int64))])),
    ("ReduceSum over axis 1 of [4,512,384]", simple("ReduceSum", [4, 512, 384], [4, 1, 384],
                                                     consts=[("A", np.array([1], np.int64))])),
    ("ReduceMax over the last axis of [4,512,384]", simple("ReduceMax", [4, 512, 384], [4, 512, 1], axes=[-1])),
]


PROBES = [
    ("Conv 3->64, 7x7 stride 2, 224x224 (ResNet stem)", conv(3, 64, 224, 7, 2)),
    ("Conv 64->64, 3x3, 56x56", conv(64, 64, 56, 3, 1)),
    ("Conv 256->64, 1x1, 56x56", conv(256, 64, 56, 1, 1)),
    ("Conv 256->512, 1x1 stride 2, 56x56", conv(256, 512, 56, 1, 2)),
    ("Conv 3->8, 3x3, 8x8 (small im2col)", conv(3, 8, 8, 3, 1)),
    ("Conv 256->256, 3x3 stride 2, 28x28 (ResNet-50 res4_0)", conv(256, 256, 28, 3, 2)),
    ("Conv 128->128, 3x3 stride 2, 56x56 (ResNet-50 res3_0)", conv(128, 128, 56, 3, 2)),
    ("Conv 512->512, 3x3, 28x28", conv(512, 512, 28, 3, 1)),
    ("Conv depthwise 64, 3x3, 112x112", conv(64, 64, 112, 3, 1, group=64)),
    ("MatMul [4,512,384] x [384,1536]", matmul(4, 512, 384, 1536)),
    ("LRN size 5 on [1,64,56,56]", ([1, 64, 56, 56], [1, 64, 56, 56], [helper.make_node("LRN", ["X"], ["Y"], size=5)], [])),
    ("com.microsoft BiasGelu on [4,256,1536]", bias_gelu(4, 256, 1536)),
    ("com.microsoft BiasGelu on [1,128,1536]", bias_gelu(1, 128, 1536)),
    ("com.microsoft FusedGemm (Relu) [1024,384] x [384,1536]", fused_gemm(1024, 384, 1536)),
    ("ReduceMean last axis of [4,512,384]", reduce_mean(4, 512, 384)),
    ("MatMulInteger [4,512,384] x [384,1536]", matmul_integer(4, 512, 384, 1536)),
] + SIMPLE
ELEMENT_BYTES = {F32: 4, TensorProto.UINT8: 1, TensorProto.INT32: 4, TensorProto.BOOL: 1}


def gpt2_attention(models, b, s, past):
    """The first com.microsoft Attention node of the shared tiny GPT-2, alone, at a binding."""
    m = onnx.load(os.path.join(models, "ort-genai", "tiny-random-gpt2-fp32_past.onnx"))
    weights = {i.name: i for i in m.graph.initializer}
    node = next(n for n in m.graph.node if n.op_type == "Attention")
    t = s + past
    x, mask, past_name = node.input[0], node.input[3], node.input[4]
    inputs = [helper.make_tensor_value_info(x, F32, [b, s, 32]),
              helper.make_tensor_value_info(mask, TensorProto.INT32, [b, t]),
              helper.make_tensor_value_info(past_name, F32, [2, b, 4, past, 8])]
    outputs = [helper.make_tensor_value_info(node.output[0], F32, [b, s, 32]),
               helper.make_tensor_value_info(node.output[1], F32, [2, b, 4, t, 8])]
    graph = helper.make_graph([node], "probe", inputs, outputs, initializer=[weights[node.input[1]], weights[node.input[2]]])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)],
                             ir_version=8), [b * s * 32 * 4, 2 * b * 4 * t * 8 * 4], b * 4 * s * t * 4


def measure(path, level):
    p = subprocess.run([sys.executable, os.path.join(HERE, "arena-x.py"), path, "--opt", level, "--runs", "1",
                        "--pattern", "off", "--arena", "1,-1,0"], capture_output=True, text=True, errors="replace")
    if p.returncode != 0:
        return None
    return json.loads(p.stdout.strip().splitlines()[-1])["runs"][0]["peak"]


def main():
    work = tempfile.mkdtemp(prefix="workspace-probe-")
    print("| node | output bytes | workspace, level none | workspace, level all |\n|---|---:|---:|---:|")
    for i, (label, probe) in enumerate(PROBES):
        xs, ys, nodes, inits = probe[:4]
        x_type, y_type = probe[4:] if len(probe) > 4 else (F32, F32)
        graph = helper.make_graph(nodes, "probe", [helper.make_tensor_value_info("X", x_type, xs)],
                                  [helper.make_tensor_value_info("Y", y_type, ys)], initializer=inits)
        path = os.path.join(work, "p%d.onnx" % i)
        opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
        onnx.save(helper.make_model(graph, opset_imports=opsets, ir_version=10), path)
        out = int(np.prod(ys)) * ELEMENT_BYTES[y_type]
        rounded = (out + 255) // 256 * 256
        cells = []
        for level in ("none", "all"):
            got = measure(path, level)
            cells.append("not run" if got is None else "{:,}".format(got - rounded))
        print("| %s | %s | %s | %s |" % (label, "{:,}".format(out), cells[0], cells[1]))


def attention_table(models):
    print("\n| GPT-2 Attention (4 heads of 8), batch x new + past tokens | outputs | workspace, level none |"
          " of which the scores, B x heads x S x T floats |\n|---|---:|---:|---:|")
    work = tempfile.mkdtemp(prefix="workspace-probe-")
    for b, s, past in ((4, 128, 896), (8, 512, 1536)):
        model, outs, scores = gpt2_attention(models, b, s, past)
        path = os.path.join(work, "attention.onnx")
        onnx.save(model, path)
        got = measure(path, "none")
        rounded = sum((n + 255) // 256 * 256 for n in outs)
        print("| %d x (%d + %d) | %s | %s | %s |" % (b, s, past, "{:,}".format(sum(outs)),
              "not run" if got is None else "{:,}".format(got - rounded), "{:,}".format(scores)))


# LSTM cases of OrtLstmRuleTest: seq, batch, input, hidden, bias, Y_h, Y_c, sequence_lens, direction
LSTM_CASES = [(4, 1, 64, 64, True, True, True, False, "forward"), (58, 2, 129, 64, True, True, True, False, "forward"),
              (100, 8, 32, 48, False, True, True, False, "forward"), (10, 3, 16, 32, True, False, False, False, "forward"),
              (10, 3, 16, 32, True, True, True, True, "forward"), (10, 3, 16, 32, True, True, True, False, "reverse"),
              (16, 1, 64, 64, True, True, True, False, "forward"), (4, 2, 64, 64, True, True, True, False, "forward")]


def lstm_table():
    """One LSTM node, random weights (ORT shares identical initializers and packs them during the run)."""
    print("\n| LSTM S, B, I, H, bias, Y_h, Y_c, sequence_lens, direction | workspace, level none |\n|---|---:|")
    work = tempfile.mkdtemp(prefix="workspace-probe-")
    rng = np.random.default_rng(1)
    for s, b, i, h, bias, y_h, y_c, lens, direction in LSTM_CASES:
        inits = [numpy_helper.from_array(rng.standard_normal((1, 4 * h, i)).astype(np.float32), "W"),
                 numpy_helper.from_array(rng.standard_normal((1, 4 * h, h)).astype(np.float32), "R")]
        inputs = [helper.make_tensor_value_info("X", F32, [s, b, i]),
                  helper.make_tensor_value_info("h0", F32, [1, b, h]), helper.make_tensor_value_info("c0", F32, [1, b, h])]
        names = ["X", "W", "R", "B" if bias else "", "L" if lens else "", "h0", "c0"]
        if bias:
            inits.append(numpy_helper.from_array(np.zeros((1, 8 * h), np.float32), "B"))
        if lens:
            inputs.append(helper.make_tensor_value_info("L", TensorProto.INT32, [b]))
        wanted = [("Y", [s, 1, b, h], True), ("Y_h", [1, b, h], y_h), ("Y_c", [1, b, h], y_c)]
        outs = [n if keep else "" for n, _, keep in wanted]
        while outs[-1] == "":
            outs.pop()
        node = helper.make_node("LSTM", names, outs, hidden_size=h, direction=direction)
        graph = helper.make_graph([node], "lstm", inputs,
                                  [helper.make_tensor_value_info(n, F32, d) for n, d, keep in wanted if keep],
                                  initializer=inits)
        path = os.path.join(work, "lstm.onnx")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=8), path)
        got = measure(path, "none")
        rounded = sum((4 * int(np.prod(d)) + 255) // 256 * 256 for _, d, keep in wanted if keep)
        print("| %d, %d, %d, %d, %s, %s, %s, %s, %s | %s |" % (s, b, i, h, bias, y_h, y_c, lens, direction,
              "not run" if got is None else "{:,}".format(got - rounded)))


if __name__ == "__main__":
    main()
    lstm_table()
    shared = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "shared", "models")
    if os.path.isdir(shared):
        attention_table(shared)
