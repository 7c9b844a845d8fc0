#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""com.microsoft Attention's workspaces in ONNX Runtime, one node alone.

usage: attention-probe.py
Builds one-node Attention models (hidden 32, 4 heads, no past) at a few bindings, with a causal mask
or not and a mask input of rank 2, 1 or none, runs each once through arena-x.py (level none, memory
pattern off, exact arena: the peak is the sum of what is live, each rounded to 256 B) and prints the
peak beside the figure of KernelWorkspaces' Attention rule: QKV, the mask (B x T floats for a padding
mask only, else B x S x T), the scores, 64 bytes of GEMM arguments per row and head, the heads'
output, plus the node's output. Run it with the ORT venv (scripts/ort-venv.sh makes it): target/ort-venv/bin/python benchmarks/ort/attention-probe.py
"""
import json, os, subprocess, sys, tempfile
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

HERE = os.path.dirname(os.path.abspath(__file__))
HIDDEN, HEADS = 32, 4
CASES = [(2, 32, 0, 2), (2, 32, 1, 2), (2, 32, 0, 0), (4, 64, 0, 2), (4, 64, 0, 1), (3, 1, 1, 2)]


def build(path, b, s, unidirectional, mask_rank):
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array((rng.standard_normal((HIDDEN, 3 * HIDDEN)) * 0.1).astype(np.float32), "W")
    bias = numpy_helper.from_array(np.zeros(3 * HIDDEN, np.float32), "b")
    inputs, names = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [b, s, HIDDEN])], ["x", "W", "b"]
    if mask_rank:
        inputs.append(helper.make_tensor_value_info("mask", TensorProto.INT32, [b, s] if mask_rank == 2 else [b]))
        names.append("mask")
    node = helper.make_node("Attention", names, ["y"], domain="com.microsoft", num_heads=HEADS,
                            unidirectional=unidirectional)
    graph = helper.make_graph([node], "attention", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [b, s, HIDDEN])], initializer=[w, bias])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
                                ir_version=8), path)


def rule(b, s, unidirectional, mask_rank):
    t = s  # no past: T = S
    causal = unidirectional and s > 1
    sizes = [4 * b * s * 3 * HIDDEN]
    if mask_rank or causal:
        padding_only = mask_rank in (1, 2) and not causal
        sizes.append(4 * b * t if padding_only else 4 * b * s * t)
    sizes += [4 * b * HEADS * s * t, b * HEADS * 64, 4 * b * s * HIDDEN]
    return sizes + [4 * b * s * HIDDEN]  # the output


def main():
    work = tempfile.mkdtemp(prefix="attention-probe-")
    print("| B | S | causal | mask rank | ORT peak (exact arena) | rule + output | workspaces |\n|---|---|---|---|---:|---:|---|")
    for b, s, uni, rank in CASES:
        path = os.path.join(work, "a_%d_%d_%d_%d.onnx" % (b, s, uni, rank))
        build(path, b, s, uni, rank)
        p = subprocess.run([sys.executable, os.path.join(HERE, "arena-x.py"), path, "--opt", "none", "--runs", "1",
                            "--pattern", "off", "--arena", "1,-1,0"], capture_output=True, text=True, errors="replace")
        peak = json.loads(p.stdout.strip().splitlines()[-1])["runs"][0]["peak"] if p.returncode == 0 else None
        sizes = rule(b, s, uni, rank)
        predicted = sum((x + 255) // 256 * 256 for x in sizes)
        print("| %d | %d | %s | %d | %s | %s | %s |" % (b, s, "yes" if uni and s > 1 else "no", rank,
              "{:,}".format(peak) if peak is not None else "failed", "{:,}".format(predicted),
              ", ".join("{:,}".format(x) for x in sizes[:-1])), flush=True)


if __name__ == "__main__":
    main()
